/* SPDX-License-Identifier: MIT */
/*
 * sim_exec.c - one step of a send queue's processing unit: is the head WQE
 * runnable (fetched, WAIT satisfied, fence clear: decided inline by
 * sim_sq_ready_plain / sim_sq_ready_slow in sim_internal.h, their rare
 * parts here), then hazard check, firmware-profile checks, the cost
 * callback, dispatch through the opcode table to the verb executors, the
 * completion of ordering verbs, the error path, and the fetch of what the
 * step made room for.  The step is made twice from one body: a plain copy
 * for a device without cost model, observer or stock firmware checks.
 *
 * Owns: the per-WQE life from "fetched" to "executed".  Must not: know
 * any verb's semantics (sim_exec_*.c) or emit CQEs itself (completions go
 * through the outstanding ring, sim_requester.c).
 */
#include "sim/sim_internal.h"

static const sim_exec_fn exec_table[256] = {
    [PRISM_OP_NOP] = sim_exec_nop,
    [PRISM_OP_RDMA_WRITE] = sim_exec_write,
    [PRISM_OP_RDMA_WRITE_IMM] = sim_exec_write,
    [PRISM_OP_SEND] = sim_exec_write,
    [PRISM_OP_SEND_IMM] = sim_exec_write,
    [PRISM_OP_CQE_WAIT] = sim_exec_wait,
    [PRISM_OP_RDMA_READ] = sim_exec_read,
    [PRISM_OP_ATOMIC_CS] = sim_exec_atomic,
    [PRISM_OP_ATOMIC_FA] = sim_exec_atomic,
    [PRISM_OP_ATOMIC_MASKED_CS] = sim_exec_atomic,
    [PRISM_OP_ATOMIC_MASKED_FA] = sim_exec_atomic,
    [PRISM_OP_RECV_ENABLE] = sim_exec_recv_en,
    [PRISM_OP_SEND_ENABLE] = sim_exec_send_en,
};

/* WAIT_BLOCK / WAIT_RELEASE of the head WQE, for an observer (cold: the
 * caller checked there is one). */
__attribute__((cold)) void sim_sq_emit_wait(struct sim_qp *qp, enum sim_event_kind k, sim_time_t t)
{
	const struct sim_fetched *f = &qp->sq.pf[qp->sq.pf_head];
	struct sim_event ev = {
	    .kind = k,
	    .t = t,
	    .t_end = t,
	    .qpn = qp->qpn,
	    .wqe_counter = f->counter,
	    .opcode = qp->sq.hd.w.ctrl.opcode,
	};

	sim_emit(qp->dev, &ev);
}

/* A fence (sim_sq_ready_slow) on a non-empty outstanding ring: every
 * READ/atomic entry (@strong: every entry) must be done; *@t moves to the
 * latest completion among them. */
bool sim_sq_fence_scan(struct sim_qp *qp, bool strong, sim_time_t *t)
{
	const struct sim_sq *sq = &qp->sq;

	for (uint32_t i = 0; i < sq->os_cnt; i++) {
		const struct sim_outst *o = sim_outst_at(sq, i);

		if (!strong && !o->read_like)
			continue;
		if (!o->done)
			return false;
		if (o->done_at > *t)
			*t = o->done_at;
	}
	return true;
}

/* An RNR-blocked queue resends once its timer ran out (rare). */
unsigned sim_sq_rnr_ready(struct sim_qp *qp, sim_time_t *t)
{
	struct sim_sq *sq = &qp->sq;

	if (sq->rnr_parked &&
	    sq->rnr_mark == __atomic_load_n(&qp->dev->outside_progress, __ATOMIC_RELAXED))
		return SIM_RD_POLL;
	sq->rnr_parked = false;
	*t = sq->rnr_at > sq->t ? sq->rnr_at : sq->t;
	return SIM_RD_READY | SIM_RD_POLL;
}

/* @dev: qp->dev, which the caller holds (a reload here otherwise);
 * @plain: dev->step_plain (no stock firmware checks) */
static inline __attribute__((always_inline)) uint8_t
check_ctrl(const struct sim_dev *dev, struct sim_qp *qp, const struct sim_fetched *f, bool plain)
{
	const struct sim_decoded *d = &qp->sq.hd;

	if (d->rc < 0)
		return PRISM_SYND_LOCAL_QP_OP_ERR;
	/* stock firmware checks the WQE index and QPN (PCX; RedN section 4),
	 * read from the fetched bytes (the engine's decode leaves them out) */
	if (!plain && dev->o.fw == SIM_FW_STRICT &&
	    (get_be16(f->bytes + 1) != (uint16_t)f->counter ||
	     get_be32(f->bytes + 4) >> 8 != qp->qpn))
		return PRISM_SYND_LOCAL_QP_OP_ERR;
	/* an ENABLE on a QP that is not cross-channel fails in its executor
	 * (sim_enable_refused), before it does anything */
	return 0;
}

/* The next fetched WQE, if any, becomes the head (decoded: sq->hd).  An
 * emptied window starts again at slot 0: a queue that fetches one WQE at a
 * time reuses one slot (and its row of bytes), which stays in cache, instead
 * of walking the whole ring.  @plain: dev->step_plain (no cost query: the
 * engine's decode). */
static inline __attribute__((always_inline)) void pop_head(struct sim_qp *qp,
                                                           const struct sim_fetched *f, bool plain)
{
	struct sim_sq *sq = &qp->sq;

	sq->head = f->counter + f->nbb;
	if (--sq->pf_cnt) {
		sq->pf_head = (sq->pf_head + 1) & (sq->pf_cap - 1); /* a power of two */
		sim_sq_decode_as(qp, !plain && qp->dev->cost_query);
	} else {
		sq->pf_head = 0;
	}
}

/* The cost query, for a cost model or an event observer (out of line: the
 * common case, neither, charges the flat default cost). */
static __attribute__((noinline)) void charge_query(struct sim_qp *qp, const struct sim_fetched *f,
                                                   uint8_t synd, struct sim_cost_query *q,
                                                   struct sim_cost *cost)
{
	struct sim_dev *dev = qp->dev;
	const struct sim_decoded *d = &qp->sq.hd;

	/* an ENABLE its executor refuses is charged as the error it is */
	if (!synd && sim_enable_refused(qp, d->w.ctrl.opcode))
		synd = PRISM_SYND_LOCAL_QP_OP_ERR;
	*q = (struct sim_cost_query){
	    .qpn = qp->qpn,
	    .wqe_counter = f->counter,
	    .opcode = f->bytes[3],
	    .opmod = f->bytes[0],
	    .cls = PRISM_CLASS_ORDERING,
	    .order = qp->sq.after_wait ? SIM_ORDER_COMPLETION : f->order,
	    .ds = f->bytes[7] & 0x3fu,
	    .wqe = d->rc < 0 ? NULL : &d->w,
	};
	if (!synd) {
		const struct prism_opcode_info *info = d->info;

		q->cls = info->cls;
		q->fence = (uint8_t)prism_ctrl_fence(&d->w.ctrl);
		q->loopback = qp->peer_node == dev->o.node;
		if (info->cls == PRISM_CLASS_COPY) {
			if (d->w.is_inline)
				q->bytes = d->w.inline_len;
			else
				for (unsigned i = 0; i < d->w.num_sge; i++)
					q->bytes += d->w.sge[i].byte_count;
		} else if (info->cls == PRISM_CLASS_ATOMIC) {
			q->bytes = d->w.atomic.size;
		}
	}
	dev->obs.cost(dev->obs.ctx, q, cost);
	if (cost->latency < cost->busy)
		cost->latency = cost->busy;
}

/* EXEC_START (@wqe: the decoded WQE) or EXEC_END (@wqe NULL). */
static __attribute__((noinline)) void emit_exec(struct sim_qp *qp, enum sim_event_kind k,
                                                sim_time_t t, sim_time_t t_end, uint32_t counter,
                                                const struct sim_cost_query *q,
                                                const struct prism_wqe *wqe)
{
	struct sim_event ev = {
	    .kind = k,
	    .t = t,
	    .t_end = t_end,
	    .qpn = qp->qpn,
	    .wqe_counter = counter,
	    .opcode = q->opcode,
	    .order = q->order,
	    .bytes = q->bytes,
	    .wqe = wqe,
	};

	sim_emit(qp->dev, &ev);
}

/* sim_sq_fetch after a step of @qp (RTS) at @t: the step freed room in the
 * window.  The common case, one more one-BB WQE into a window that still
 * holds WQEs (no head to decode, no queue to wake) and no observer (no
 * FETCH event), is fetched inline; the rest, if anything, by
 * sim_sq_fetch_upto, as before.  @plain: dev->step_plain (no observer). */
static inline __attribute__((always_inline)) void fetch_next(struct sim_qp *qp, sim_time_t t,
                                                             bool plain)
{
	struct sim_sq *sq = &qp->sq;
	uint32_t fetch = sq->fetch;
	/* BBs below the limit, and room in the window, from fetch on */
	int32_t posted = (int32_t)(sim_qp_sq_limit(qp) - fetch);
	int32_t room = (int32_t)(sq->head + sq->pf_max_bbs - fetch);
	const uint8_t *src;
	unsigned ds;

	if (posted <= 0)
		return; /* nothing posted / enabled beyond what was fetched */
	src = sq->buf + (size_t)(fetch & (sq->nbb - 1)) * PRISM_WQE_BB;
	ds = src[7] & 0x3fu;
	if (room > 0 && sq->pf_cnt && ds <= PRISM_WQE_BB / PRISM_WQE_DS_BYTES &&
	    (plain || !qp->dev->obs.event)) {
		struct sim_fetched *f = &sq->pf[(sq->pf_head + sq->pf_cnt) & (sq->pf_cap - 1)];

		sim_sq_fetched(sq, f, fetch, src, 1, t, SIM_ORDER_WQ, qp->dev->wseq);
		sq->fetch = fetch + 1;
		sq->pf_cnt++;
		qp->dev->st.fetches++;
		/* the whole block (a fixed-size copy; bytes past its length are never
		 * read), last: byte stores, after which nothing is reloaded */
		memcpy(f->bytes, src, PRISM_WQE_BB);
		if (posted == 1 || room == 1)
			return;
	}
	sim_sq_fetch_upto(qp, t, SIM_ORDER_WQ, fetch + (uint32_t)posted);
}

/* Does a control segment's fm_ce_se byte ask for a CQE on success? */
static inline bool ce_signaled(uint8_t fm_ce_se)
{
	return ((fm_ce_se & PRISM_CTRL_CE_MASK) >> PRISM_CTRL_CE_SHIFT) >= PRISM_CE_CQ_UPDATE;
}

/* The outstanding entry of the head WQE @f (taken by the caller), as it
 * starts at @start. */
static inline void fill_entry(struct sim_outst *o, const struct sim_fetched *f, bool signaled,
                              sim_time_t start, sim_time_t latency)
{
	o->counter = f->counter;
	o->opcode = f->bytes[3];
	o->signaled = signaled;
	o->start = start;
	o->ready_at = start + latency;
}

/* The WQE @f of @x failed with syndrome @synd: it leaves the window (the
 * next head is not decoded: the QP fails, which drops every fetched WQE)
 * and completes with its error, through the ring, then the QP fails (cold:
 * a failure ends the queue's work). */
static __attribute__((cold, noinline)) void step_failed(struct sim_qp *qp, struct sim_fetched *f,
                                                        struct sim_xctx *x, uint8_t synd)
{
	struct sim_sq *sq = &qp->sq;
	struct sim_outst *os = x->os;

	sq->head = f->counter + f->nbb;
	sq->pf_cnt--;
	if (!os) { /* it is the ring's only entry: os_head names it */
		os = sim_outst_push(qp);
		/* an ordering verb decoded: the copy's CE says it */
		fill_entry(os, f, ce_signaled(f->bytes[11]), x->start, x->cost.latency);
	}
	os->done = true;
	os->syndrome = synd;
	os->done_at = x->start + x->cost.busy;
	/* debug: the error CQE reports it to the QP's owner, which says what
	 * failed in its own terms (the behaviour probe fails QPs on purpose; a
	 * chain's owner logs the program and CQ) */
	sim_log(qp->dev, SIM_LOG_DEBUG, "qp %u: WQE %u (%s): %s", qp->qpn, os->counter,
	        prism_opcode_name(os->opcode), prism_cqe_syndrome_name(synd));
	sim_qp_fail(qp, x->start + x->cost.busy);
}

/* sim_sq_step, made twice: @plain (dev->step_plain, a constant in each
 * copy) leaves out every test of a cost model, an observer and stock
 * firmware.  True where the queue may fetch what the step made room for. */
static inline __attribute__((always_inline)) bool step(struct sim_qp *qp, sim_time_t start,
                                                       bool plain)
{
	struct sim_dev *dev = qp->dev;
	struct sim_sq *sq = &qp->sq;
	struct sim_fetched *f;
	struct sim_xctx x;
	struct sim_cost_query q; /* filled only when dev->cost_query */
	int rc;
	uint8_t synd, opcode;
	bool ordering;

	if (sq->block == SIM_BLOCK_RNR) {
		sq->t = start;
		sim_requester_rnr_resend(qp);
		return false;
	}
	/* the scheduler steps a queue only where sim_sq_ready said it may
	 * run: its head WQE is fetched (and decoded: sq->hd) */
	f = &sq->pf[sq->pf_head];
	/* dev->now moves to the WQE's end below (nothing here reads it) */

	if (sim_sq_hazard_check(qp, f, start))
		synd = PRISM_SYND_LOCAL_QP_OP_ERR;
	else
		synd = check_ctrl(dev, qp, f, plain);

	if (plain || !dev->cost_query) /* nobody reads the query: charge the flat default cost */
		sim_default_cost_of(synd ? PRISM_CLASS_ORDERING : sq->hd.info->cls, &x.cost);
	else
		charge_query(qp, f, synd, &q, &x.cost);

	/* An ordering verb completes in its own step, done at start +
	 * latency (its executor touches no outstanding entry, and an error
	 * overwrites the completion below).  On an empty ring it completes as
	 * the oldest entry would, without taking one (no push, no completion
	 * pass, no pop): only an error makes it an entry, below.  Every other
	 * WQE takes its entry now. */
	ordering = !synd && sq->hd.info->cls == PRISM_CLASS_ORDERING;
	/* what the head says, read before the entry's stores */
	opcode = sq->hd.w.ctrl.opcode;
	x.os = NULL;
	if (!ordering || sq->os_cnt) {
		bool signaled = sq->hd.rc >= 0 && ce_signaled(sq->hd.w.ctrl.fm_ce_se);

		x.os = sim_outst_push(qp);
		fill_entry(x.os, f, signaled, start, x.cost.latency);
		if (ordering) {
			x.os->done = true;
			x.os->done_at = start + x.cost.latency;
		}
	}

	if (!plain && dev->obs.event) /* an observer implies dev->cost_query: q is filled */
		emit_exec(qp, SIM_EV_EXEC_START, start, start + x.cost.busy, f->counter, &q, q.wqe);

	/* the executor's context, filled last: stores to it earlier made the
	 * compiler reload what the checks above read */
	x.qp = qp;
	x.f = f;
	x.w = &sq->hd.w;
	x.start = start;
	rc = synd ? synd : exec_table[opcode](&x);
	sq->t = start + x.cost.busy;
	dev->st.wqes_executed++;
	sim_advance_now(dev, sq->t);
	/* one test for the quiet case: an observer implies dev->cost_query */
	if (!plain && dev->cost_query) {
		/* the query's order is all that reads it */
		sq->after_wait = sq->hd.rc >= 0 && sq->hd.w.ctrl.opcode == PRISM_OP_CQE_WAIT;
		if (dev->obs.event)
			emit_exec(qp, SIM_EV_EXEC_END, sq->t, sq->t, f->counter, &q, NULL);
	}
	if (__builtin_expect(rc > 0, 0)) {
		step_failed(qp, f, &x, (uint8_t)rc);
		return false;
	}
	pop_head(qp, f, plain); /* x.w: the next head from here */
	if (!x.os) {            /* an ordering verb on an empty ring, done */
		sim_time_t done = start + x.cost.latency;

		/* sim_outst_retire of the entry it would have been (done_at =
		 * ready_at; not read_like) */
		if (done > sq->done_t)
			sq->done_t = done;
		if (ce_signaled(f->bytes[11])) { /* the copy's, as above */
			struct sim_outst *o = sim_outst_at(sq, 0);

			o->counter = f->counter;
			o->opcode = f->bytes[3];
			o->byte_count = 0;
			sim_outst_retire_cqe(qp, o, done);
		}
	} else if (sq->os[sq->os_head].done) { /* completions go in order: the head first */
		sim_outst_complete(qp);
	}
	return qp->state == SIM_QPS_RTS;
}

void sim_sq_step(struct sim_qp *qp, sim_time_t start)
{
	if (qp->dev->step_plain) {
		if (step(qp, start, true))
			fetch_next(qp, start, true);
	} else if (step(qp, start, false)) {
		fetch_next(qp, start, false);
	}
}
