/* SPDX-License-Identifier: MIT */
/*
 * sim_qp.c - RC queue pairs: creation (queue memory laid out as mlx5 does),
 * the state machine RESET/INIT/RTR/RTS/ERR, the send/receive limits
 * (doorbell, ENABLE, overflow), and the error path: move to ERR, complete
 * the failing WQE with its syndrome and flush everything else
 * (MLX5_CQE_SYNDROME_WR_FLUSH_ERR), for both queues.
 *
 * Must not: execute WQEs or process packets.
 */
#include <stdlib.h>

#include "sim/sim_internal.h"
#include "util/array.h"

static uint32_t pow2_at_least(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static void qp_free(struct sim_qp *qp)
{
	struct sim_sq *sq = &qp->sq;

	if (sq->os) {
		for (uint32_t i = 0; i < sq->os_cap; i++)
			sim_outst_drop_req(NULL, &sq->os[i]); /* lent ones: sim_qp_destroy */
	}
	while (qp->txq.n)
		sim_pkt_free(NULL, sim_pktq_pop(&qp->txq));
	sim_pktq_free(&qp->txq);
	free(sq->pf);
	free(sq->pf_bytes);
	free(sq->os);
	free(sq->bbs);
	free(sq->bbf);
	if (!qp->ext_mem) {
		free(qp->buf);
		free((void *)qp->dbrec);
	}
	free(qp);
}

int sim_qp_create(struct sim_dev *dev, const struct sim_qp_attr *attr, struct sim_qp **out)
{
	struct sim_qp *qp;
	uint32_t slot, sge;
	size_t rq_bytes, sq_bytes;
	int rc = -ENOMEM;

	if (!dev || !attr || !out || !attr->send_cq || !attr->recv_cq || attr->sq_bbs == 0 ||
	    attr->sq_bbs > (1u << 15) || (attr->sq_bbs & (attr->sq_bbs - 1)) ||
	    attr->rq_wqes > (1u << 15) || (attr->rq_wqes & (attr->rq_wqes - 1)) ||
	    attr->rq_max_sge > PRISM_WQE_MAX_SGE ||
	    (attr->flags & ~(uint32_t)(SIM_QP_CROSS_CHANNEL | SIM_QP_MANAGED_SEND |
	                               SIM_QP_MANAGED_RECV | SIM_QP_IGNORE_RQ_OVERFLOW)) ||
	    attr->send_cq->dev != dev || attr->recv_cq->dev != dev ||
	    (attr->pd && attr->pd->dev != dev) ||
	    (attr->access & ~(unsigned)(SIM_ACCESS_REMOTE_READ | SIM_ACCESS_REMOTE_WRITE |
	                                SIM_ACCESS_REMOTE_ATOMIC)) ||
	    !attr->ext_buf != !attr->ext_dbrec)
		return -EINVAL;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return -ENOMEM;
	sge = pow2_at_least(attr->rq_max_sge ? attr->rq_max_sge : 1);
	qp->rq.n = attr->rq_wqes;
	qp->rq.max_sge = sge;
	qp->rq.stride = sge * 16u;
	rq_bytes = (size_t)qp->rq.n * qp->rq.stride;
	sq_bytes = (size_t)attr->sq_bbs * PRISM_WQE_BB;
	qp->buf_len = rq_bytes + sq_bytes;
	qp->ext_mem = attr->ext_buf != NULL;
	qp->buf =
	    qp->ext_mem ? attr->ext_buf : aligned_alloc(4096, (qp->buf_len + 4095) & ~(size_t)4095);
	qp->dbrec = qp->ext_mem ? attr->ext_dbrec : aligned_alloc(64, 64);
	qp->sq.nbb = attr->sq_bbs;
	qp->sq.pf_max_bbs = dev->o.prefetch_bbs < attr->sq_bbs ? dev->o.prefetch_bbs : attr->sq_bbs;
	/* the window's WQEs take at least a BB each: pf_max_bbs records, in a
	 * ring of a power of two (indexed by mask) */
	qp->sq.pf_cap =
	    qp->sq.pf_max_bbs > 1 ? 2u << (31 - __builtin_clz(qp->sq.pf_max_bbs - 1)) : 1;
	qp->sq.pf = calloc(qp->sq.pf_cap, sizeof(*qp->sq.pf));
	qp->sq.pf_bytes = aligned_alloc(SIM_CACHE_LINE, (size_t)qp->sq.pf_cap * SIM_PF_ROW_BYTES);
	/* sq_bbs is a power of two (checked above), so os_cap is one too: the
	 * outstanding ring wraps by mask (sim_outst_at) */
	qp->sq.os_cap = attr->sq_bbs < 16 ? 16 : attr->sq_bbs;
	qp->sq.os = aligned_alloc(SIM_CACHE_LINE, qp->sq.os_cap * sizeof(*qp->sq.os));
	if (qp->sq.os) /* qp_free reads it */
		memset(qp->sq.os, 0, qp->sq.os_cap * sizeof(*qp->sq.os));
	qp->sq.bbs = calloc(attr->sq_bbs, sizeof(*qp->sq.bbs));
	qp->sq.bbf = calloc(attr->sq_bbs, sizeof(*qp->sq.bbf));
	if (!qp->buf || !qp->dbrec || !qp->sq.pf || !qp->sq.pf_bytes || !qp->sq.os || !qp->sq.bbs ||
	    !qp->sq.bbf)
		goto fail;
	for (uint32_t i = 0; i < qp->sq.pf_cap; i++)
		qp->sq.pf[i].bytes = qp->sq.pf_bytes + (size_t)i * SIM_PF_ROW_BYTES;
	if (!qp->ext_mem) {
		memset(qp->buf, 0, qp->buf_len);
		memset((void *)qp->dbrec, 0, 64);
	}
	qp->rq.buf = qp->buf;
	qp->sq.buf = qp->buf + rq_bytes;
	qp->dev = dev;
	qp->flags = attr->flags;
	qp->access = attr->access;
	qp->scq = attr->send_cq;
	qp->rcq = attr->recv_cq;
	qp->state = SIM_QPS_RESET;
	qp->rnr_retry = 7;

	pthread_mutex_lock(&dev->lock);
	for (slot = 0; slot < dev->qps_cap && dev->qps[slot]; slot++)
		;
	if (slot + SIM_QPN_BASE > 0xffffffu) {
		/* QPNs are 24 bits: checked before the table grows, so a
		 * failure leaves dev->qps as it was. */
		pthread_mutex_unlock(&dev->lock);
		rc = -ENOSPC;
		goto fail;
	}
	if (slot >= dev->qps_cap) {
		uint32_t ocap = dev->qps_cap;

		if (!ARRAY_RESERVE(dev->qps, dev->qps_cap, (size_t)slot + 1)) {
			/* realloc failed: the old table is still valid. */
			pthread_mutex_unlock(&dev->lock);
			goto fail;
		}
		if (sim_sched_resize(dev, ocap)) {
			/* The larger table stays (its new slots are empty); the
			 * capacity the scheduler's arrays cover does not grow. */
			dev->qps_cap = ocap;
			pthread_mutex_unlock(&dev->lock);
			goto fail;
		}
	}
	qp->slot = slot;
	qp->qpn = slot + SIM_QPN_BASE;
	qp->birth = __atomic_add_fetch(&dev->qp_births, 1, __ATOMIC_RELEASE);
	dev->qps[slot] = qp;
	dev->nqps++;
	qp->scq->users++;
	qp->rcq->users++;
	qp->pd = attr->pd ? attr->pd : dev->pd0;
	qp->pd->users++;
	sim_sqrange_rebuild(dev);
	pthread_mutex_unlock(&dev->lock);
	*out = qp;
	return 0;
fail:
	qp_free(qp);
	return rc;
}

int sim_qp_destroy(struct sim_qp *qp)
{
	struct sim_dev *dev;

	if (!qp)
		return -EINVAL;
	dev = qp->dev;
	pthread_mutex_lock(&dev->lock);
	dev->qps[qp->slot] = NULL;
	sim_sched_forget(qp);
	sim_qp_txq_drop(qp);
	dev->nqps--;
	/* requests lent out wait in the inbox, which the NIC thread reads:
	 * let go of them under the lock (their delivery frees them) */
	for (uint32_t i = 0; qp->sq.os && i < qp->sq.os_cap; i++)
		if (qp->sq.os[i].req_lent)
			sim_outst_drop_req(dev, &qp->sq.os[i]);
	qp->scq->users--;
	qp->rcq->users--;
	qp->pd->users--;
	sim_sqrange_rebuild(dev);
	pthread_mutex_unlock(&dev->lock);
	qp_free(qp);
	return 0;
}

void sim_qp_destroy_all(struct sim_dev *dev)
{
	for (uint32_t i = 0; i < dev->qps_cap; i++) {
		if (dev->qps[i])
			qp_free(dev->qps[i]);
		dev->qps[i] = NULL;
	}
	dev->nqps = 0;
	dev->nsqr = 0;
	dev->tx_held = NULL;
}

uint32_t sim_qp_num(const struct sim_qp *qp)
{
	return qp->qpn;
}
void *sim_qp_buf(const struct sim_qp *qp)
{
	return qp->buf;
}
size_t sim_qp_buf_len(const struct sim_qp *qp)
{
	return qp->buf_len;
}
void *sim_qp_sq(const struct sim_qp *qp)
{
	return qp->sq.buf;
}
uint32_t sim_qp_rq_stride(const struct sim_qp *qp)
{
	return qp->rq.stride;
}
volatile uint32_t *sim_qp_dbrec(const struct sim_qp *qp)
{
	return qp->dbrec;
}
int sim_qp_state(const struct sim_qp *qp)
{
	return qp->state;
}

void sim_qp_set_state(struct sim_qp *qp, int state, sim_time_t t)
{
	struct sim_event ev = {
	    .kind = SIM_EV_QP_STATE,
	    .t = t,
	    .t_end = t,
	    .qpn = qp->qpn,
	    .old_state = qp->state,
	    .new_state = state,
	};

	if (qp->state == state)
		return;
	qp->state = state;
	sim_sched_wake(qp);
	sim_emit(qp->dev, &ev);
}

static void push_cqe(struct sim_qp *qp, struct sim_cq *cq, uint8_t op, uint8_t synd,
                     uint16_t counter, uint8_t wqe_op, uint32_t byte_count, sim_time_t t)
{
	struct prism_cqe c = {
	    .opcode = op,
	    .syndrome = synd,
	    .wqe_opcode = wqe_op,
	    .wqe_counter = counter,
	    .byte_count = byte_count,
	    .qpn = qp->qpn,
	};

	sim_cq_push(cq, &c, t);
}

/* Flush CQEs for WQEs in [from, to) of the send queue (walks their DS). */
static void flush_sq_range(struct sim_qp *qp, uint32_t from, uint32_t to, sim_time_t t)
{
	struct sim_sq *sq = &qp->sq;
	uint32_t guard = 0;

	while ((int32_t)(to - from) > 0 && guard++ < sq->nbb) {
		struct prism_ctrl_seg c;
		uint32_t nbb;

		prism_ctrl_seg_unpack(sq->buf + (size_t)(from & (sq->nbb - 1)) * PRISM_WQE_BB, &c);
		nbb = prism_wqe_bbs(c.ds & 0x3f);
		if (nbb == 0 || nbb > PRISM_WQE_MAX_BB)
			nbb = 1;
		push_cqe(qp, qp->scq, PRISM_CQE_REQ_ERR, PRISM_SYND_WR_FLUSH_ERR, (uint16_t)from,
		         c.opcode, 0, t);
		from += nbb;
	}
}

/*
 * Moves @qp to ERR at time @t.  Outstanding WQEs complete in order: the
 * done ones with their result (an error syndrome always makes a CQE), the
 * rest with WR_FLUSH_ERR; then every fetched, enabled or posted WQE and
 * every posted receive is flushed.  (IB spec 10.3.1 / mlx5: in the error
 * state all outstanding and new work requests complete in error.)
 */
void sim_qp_fail(struct sim_qp *qp, sim_time_t t)
{
	struct sim_sq *sq = &qp->sq;
	struct sim_rq *rq = &qp->rq;
	uint32_t limit;

	if (qp->state == SIM_QPS_ERR)
		return;
	sim_qp_set_state(qp, SIM_QPS_ERR, t);
	while (sq->os_cnt) {
		struct sim_outst *o = &sq->os[sq->os_head];
		uint8_t synd = o->done ? o->syndrome : PRISM_SYND_WR_FLUSH_ERR;

		if (!o->done || o->syndrome)
			push_cqe(qp, qp->scq, PRISM_CQE_REQ_ERR, synd, (uint16_t)o->counter,
			         o->opcode, 0, t);
		else if (o->signaled)
			push_cqe(qp, qp->scq, PRISM_CQE_REQ, 0, (uint16_t)o->counter, o->opcode,
			         o->byte_count, t);
		sim_outst_pop(qp);
	}
	sim_sq_drop_fetched(qp);
	limit = sim_qp_sq_limit(qp);
	flush_sq_range(qp, sq->head, limit, t);
	if ((int32_t)(limit - sq->head) > 0)
		sq->head = limit;
	sq->fetch = sq->head;
	sq->block = SIM_BLOCK_NONE;
	if (rq->n) {
		uint32_t rl = sim_qp_rq_limit(qp), guard = 0;

		while ((int32_t)(rl - rq->head) > 0 && guard++ < rq->n) {
			push_cqe(qp, qp->rcq, PRISM_CQE_RESP_ERR, PRISM_SYND_WR_FLUSH_ERR,
			         (uint16_t)rq->head, 0, 0, t);
			rq->head++;
		}
		rq->head = rl;
	}
}

void sim_qp_flush_new(struct sim_qp *qp, sim_time_t t)
{
	uint32_t limit = sim_qp_sq_limit(qp);

	flush_sq_range(qp, qp->sq.head, limit, t);
	if ((int32_t)(limit - qp->sq.head) > 0)
		qp->sq.head = qp->sq.fetch = limit;
}

static bool transition_ok(int from, int to)
{
	static const uint8_t ok[5] = {
	    [SIM_QPS_RESET] = 1u << SIM_QPS_INIT,
	    [SIM_QPS_INIT] = 1u << SIM_QPS_INIT | 1u << SIM_QPS_RTR,
	    [SIM_QPS_RTR] = 1u << SIM_QPS_RTS,
	    [SIM_QPS_RTS] = 1u << SIM_QPS_RTS,
	    [SIM_QPS_ERR] = 0,
	};

	if (to == SIM_QPS_RESET || to == SIM_QPS_ERR)
		return true;
	return (ok[from] >> to) & 1u;
}

static void reset_queues(struct sim_qp *qp)
{
	struct sim_sq *sq = &qp->sq;

	for (uint32_t i = 0; i < sq->os_cap; i++)
		sim_outst_drop_req(qp->dev, &sq->os[i]);
	sq->os_head = sq->os_cnt = 0;
	sq->rnr_outst = 0;
	sq->pf_head = sq->pf_cnt = 0;
	sq->pi = sq->en = sq->fetch = sq->head = sq->limit = 0;
	sq->block = SIM_BLOCK_NONE;
	sq->after_wait = false;
	qp->rq.pi = qp->rq.en = qp->rq.head = 0;
	memset((void *)qp->dbrec, 0, 8);
}

int sim_qp_modify(struct sim_qp *qp, const struct sim_qp_mod *mod)
{
	struct sim_dev *dev;
	int rc = 0;

	if (!qp || !mod || mod->state < SIM_QPS_RESET || mod->state > SIM_QPS_ERR)
		return -EINVAL;
	dev = qp->dev;
	pthread_mutex_lock(&dev->lock);
	if (!transition_ok(qp->state, mod->state)) {
		rc = -EINVAL;
		goto out;
	}
	switch (mod->state) {
	case SIM_QPS_RESET:
		reset_queues(qp);
		break;
	case SIM_QPS_INIT:
		if (mod->set_access) {
			if (mod->access &
			    ~(unsigned)(SIM_ACCESS_REMOTE_READ | SIM_ACCESS_REMOTE_WRITE |
			                SIM_ACCESS_REMOTE_ATOMIC)) {
				rc = -EINVAL;
				goto out;
			}
			qp->access = mod->access;
		}
		break;
	case SIM_QPS_RTR:
		if (mod->peer_qpn > 0xffffffu || mod->min_rnr_timer > 31) {
			rc = -EINVAL;
			goto out;
		}
		qp->peer_node = mod->peer_node;
		qp->peer_qpn = mod->peer_qpn;
		qp->min_rnr_timer = mod->min_rnr_timer;
		qp->exp_psn = mod->rq_psn & 0xffffffu;
		break;
	case SIM_QPS_RTS:
		if (qp->state == SIM_QPS_RTR) {
			if (mod->rnr_retry > 7 || mod->retry_cnt > 7) {
				rc = -EINVAL;
				goto out;
			}
			qp->rnr_retry = mod->rnr_retry;
			qp->retry_cnt = mod->retry_cnt;
			qp->next_psn = mod->sq_psn & 0xffffffu;
			qp->sq.rnr_left = qp->rnr_retry;
		}
		break;
	case SIM_QPS_ERR:
		sim_qp_fail(qp, dev->now);
		goto out;
	default:
		break;
	}
	sim_qp_set_state(qp, mod->state, dev->now);
	if (mod->state == SIM_QPS_RTS)
		sim_sq_fetch(qp, dev->now, SIM_ORDER_HOST);
	sim_progress_bump(dev);
out:
	pthread_mutex_unlock(&dev->lock);
	if (!rc)
		sim_thread_wake(dev);
	return rc;
}

int sim_qp_link_down(struct sim_qp *qp, uint8_t syndrome)
{
	struct sim_sq *sq;
	bool in_flight = false;

	if (!qp)
		return -EINVAL;
	pthread_mutex_lock(&qp->dev->lock);
	sq = &qp->sq;
	for (uint32_t i = 0; i < sq->os_cnt; i++) {
		struct sim_outst *o = sim_outst_at(sq, i);

		if (!o->done && o->sent) {
			o->done = true;
			o->syndrome = syndrome;
			in_flight = true;
		}
	}
	/* As on hardware, only a request that gets no answer (retries
	 * exhausted) fails the QP; an idle QP stays as it is, a later request
	 * fails at the wire, and its owner tears it down in its own order. */
	if (in_flight)
		sim_qp_fail(qp, qp->dev->now);
	pthread_mutex_unlock(&qp->dev->lock);
	return 0;
}
