/* SPDX-License-Identifier: MIT */
/*
 * sim_fetch.c - send-queue doorbells, WQE prefetch and hazard detection.
 *
 * Owns: when a send queue may fetch (RedN section 3.1: an unmanaged queue
 * once its doorbell rang, a managed queue as soon as an ENABLE executes),
 * the copy of a WQE's bytes into the NIC (decoded once, by the codec), and
 * the check at execute time that those bytes still match memory.  A
 * mismatch is a hazard: the NIC executes the fetched (stale) copy, as
 * hardware does; the report names the queue, WQE, bytes and last writer.
 *
 * Must not: execute WQEs.  The hot path does no allocation.
 */
#include <stdlib.h>

#include "sim/sim_internal.h"

/* Copies @len bytes of the send queue ring starting at BB counter @ctr. */
static void ring_copy(const struct sim_sq *sq, uint32_t ctr, uint8_t *dst, uint32_t len)
{
	size_t ring = (size_t)sq->nbb * PRISM_WQE_BB;
	size_t off = (size_t)(ctr & (sq->nbb - 1)) * PRISM_WQE_BB;
	size_t first = ring - off < len ? ring - off : len;

	memcpy(dst, sq->buf + off, first);
	if (first < len)
		memcpy(dst + first, sq->buf, len - first);
}

void sim_sq_fetch(struct sim_qp *qp, sim_time_t t, enum sim_order first_order)
{
	struct sim_dev *dev = qp->dev;
	struct sim_sq *sq = &qp->sq;
	uint32_t limit;
	bool first = true;

	if (qp->state != SIM_QPS_RTS)
		return;
	limit = sim_qp_sq_limit(qp);
	while ((int32_t)(limit - sq->fetch) > 0 && sq->pf_cnt < sq->pf_cap &&
	       sq->fetch - sq->head < sq->pf_max_bbs) {
		struct sim_fetched *f = &sq->pf[(sq->pf_head + sq->pf_cnt) % sq->pf_cap];
		const uint8_t *ctrl = sq->buf + (size_t)(sq->fetch & (sq->nbb - 1)) * PRISM_WQE_BB;
		unsigned ds = ctrl[7] & 0x3fu; /* mlx5_wqe_ctrl_seg.qpn_ds low 6 bits */
		unsigned nbb = ds ? prism_wqe_bbs(ds) : 1;
		uint32_t len = ds ? ds * PRISM_WQE_DS_BYTES : PRISM_WQE_DS_BYTES;

		if ((int32_t)(limit - (sq->fetch + nbb)) < 0)
			break; /* the WQE is not wholly posted / enabled yet */
		f->counter = sq->fetch;
		f->nbb = (uint16_t)nbb;
		f->len = (uint16_t)len;
		ring_copy(sq, sq->fetch, f->bytes, len);
		f->decode_rc = prism_wqe_decode(f->bytes, len, &f->w, NULL);
		if (first && sq->pf_cnt == 0 && sq->fetch == sq->head)
			f->order = first_order;
		else
			f->order = first_order == SIM_ORDER_DOORBELL ? SIM_ORDER_DOORBELL
								     : SIM_ORDER_WQ;
		first = false;
		f->fetched_at = t;
		f->wseq = dev->wseq;
		sq->fetch += nbb;
		sq->pf_cnt++;
		dev->st.fetches++;
		if (dev->obs.event) {
			struct sim_event ev = {
				.kind = SIM_EV_FETCH,
				.t = t,
				.t_end = t,
				.qpn = qp->qpn,
				.wqe_counter = f->counter,
				.opcode = f->bytes[3],
				.order = f->order,
				.bytes = len,
				.wqe = f->decode_rc < 0 ? NULL : &f->w,
			};
			sim_emit(dev, &ev);
		}
	}
}

void sim_sq_drop_fetched(struct sim_qp *qp)
{
	qp->sq.pf_head = 0;
	qp->sq.pf_cnt = 0;
	qp->sq.fetch = qp->sq.head;
}

/* First and last differing byte of @f against memory; false if equal. */
static bool diff_range(const struct sim_sq *sq, const struct sim_fetched *f, uint32_t *lo,
		       uint32_t *hi)
{
	uint8_t now[PRISM_WQE_MAX_BB * PRISM_WQE_BB];
	size_t ring = (size_t)sq->nbb * PRISM_WQE_BB;
	size_t off = (size_t)(f->counter & (sq->nbb - 1)) * PRISM_WQE_BB;
	uint32_t i, j;

	if (off + f->len <= ring) {
		if (memcmp(sq->buf + off, f->bytes, f->len) == 0)
			return false;
		memcpy(now, sq->buf + off, f->len);
	} else {
		ring_copy(sq, f->counter, now, f->len);
		if (memcmp(now, f->bytes, f->len) == 0)
			return false;
	}
	for (i = 0; i < f->len && now[i] == f->bytes[i]; i++)
		;
	for (j = f->len; j > i && now[j - 1] == f->bytes[j - 1]; j--)
		;
	*lo = i;
	*hi = j;
	return true;
}

bool sim_sq_hazard_check(struct sim_qp *qp, struct sim_fetched *f, sim_time_t t)
{
	struct sim_dev *dev = qp->dev;
	struct sim_sq *sq = &qp->sq;
	struct sim_hazard *h = &dev->last_hazard;
	struct sim_bb_writer *bw;
	uint32_t lo, hi, bb;

	if (dev->o.hazard == SIM_HAZARD_OFF || !diff_range(sq, f, &lo, &hi))
		return false;
	bb = ((f->counter & (sq->nbb - 1)) + lo / PRISM_WQE_BB) & (sq->nbb - 1);
	bw = &sq->writers[bb];
	memset(h, 0, sizeof(*h));
	h->qpn = qp->qpn;
	h->wqe_counter = f->counter;
	h->offset = lo;
	h->len = hi - lo;
	h->fetched_at = f->fetched_at;
	h->executed_at = t;
	if (bw->wseq > f->wseq)
		h->writer = bw->w;
	else
		h->writer.kind = SIM_WRITER_HOST;
	dev->has_hazard = true;
	dev->st.hazards++;
	{
		struct sim_event ev = {
			.kind = SIM_EV_HAZARD,
			.t = t,
			.t_end = t,
			.qpn = qp->qpn,
			.wqe_counter = f->counter,
			.opcode = f->bytes[3],
			.offset = lo,
			.len = hi - lo,
			.writer = h->writer,
			.hazard = h,
		};
		sim_emit(dev, &ev);
	}
	sim_log(dev, dev->o.hazard == SIM_HAZARD_FAIL ? SIM_LOG_ERROR : SIM_LOG_WARN,
		"qp %u: WQE %u: hazard: bytes %u..%u changed after fetch (writer: %s qp %u WQE %u)",
		qp->qpn, f->counter, lo, hi - 1,
		h->writer.kind == SIM_WRITER_HOST	  ? "host"
		: h->writer.kind == SIM_WRITER_SQ	  ? "send"
		: h->writer.kind == SIM_WRITER_RQ	  ? "recv"
							  : "remote",
		h->writer.qpn, h->writer.wqe_counter);
	if (dev->o.hazard == SIM_HAZARD_FAIL) {
		dev->hazard_failed = true;
		return true;
	}
	return false;
}

static int range_cmp(const void *a, const void *b)
{
	const struct sim_sqrange *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

void sim_sqrange_rebuild(struct sim_dev *dev)
{
	uint32_t n = 0;
	struct sim_sqrange *r = realloc(dev->sqr, (dev->nqps + 1) * sizeof(*r));

	if (!r)
		return; /* keep the old table: attribution only, never safety */
	dev->sqr = r;
	dev->sqr_lo = UINTPTR_MAX;
	dev->sqr_hi = 0;
	for (uint32_t i = 0; i < dev->qps_cap; i++) {
		struct sim_qp *qp = dev->qps[i];

		if (!qp)
			continue;
		r[n].lo = (uintptr_t)qp->sq.buf;
		r[n].hi = r[n].lo + (size_t)qp->sq.nbb * PRISM_WQE_BB;
		r[n].qp = qp;
		if (r[n].lo < dev->sqr_lo)
			dev->sqr_lo = r[n].lo;
		if (r[n].hi > dev->sqr_hi)
			dev->sqr_hi = r[n].hi;
		n++;
	}
	qsort(r, n, sizeof(*r), range_cmp);
	dev->nsqr = n;
}

int sim_qp_ring_sq_doorbell(struct sim_qp *qp)
{
	struct sim_dev *dev;
	struct sim_sq *sq;

	if (!qp)
		return -EINVAL;
	dev = qp->dev;
	pthread_mutex_lock(&dev->lock);
	sq = &qp->sq;
	sq->pi = sim_extend16(sq->pi, sim_load_be32(&qp->dbrec[1]) & 0xffffu);
	if (dev->obs.event) {
		struct sim_event ev = {
			.kind = SIM_EV_DOORBELL,
			.t = dev->now,
			.t_end = dev->now,
			.qpn = qp->qpn,
			.wqe_counter = sq->pi,
		};
		sim_emit(dev, &ev);
	}
	if (qp->state == SIM_QPS_ERR)
		sim_qp_flush_new(qp, dev->now);
	else if (!(qp->flags & SIM_QP_MANAGED_SEND))
		sim_sq_fetch(qp, dev->now, SIM_ORDER_HOST);
	pthread_mutex_unlock(&dev->lock);
	sim_thread_wake(dev);
	return 0;
}

int sim_qp_ring_rq_doorbell(struct sim_qp *qp)
{
	if (!qp)
		return -EINVAL;
	pthread_mutex_lock(&qp->dev->lock);
	sim_progress_bump(qp->dev);
	pthread_mutex_unlock(&qp->dev->lock);
	sim_thread_wake(qp->dev);
	return 0;
}
