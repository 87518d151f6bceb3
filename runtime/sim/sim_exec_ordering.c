/* SPDX-License-Identifier: MIT */
/*
 * sim_exec_ordering.c - the ordering verbs: NOP, WAIT on a CQ count (24-bit,
 * cyclic), wait-on-data, SEND_EN and RECV_EN (16-bit absolute indices).
 *
 * Owns: what these verbs do once their WQE is runnable.  An ENABLE raises
 * the target queue's limit and the target fetches right away (RedN section
 * 3.1: a managed queue fetches enabled WQEs as soon as the ENABLE runs).
 *
 * Must not: block (readiness is decided in sim_exec.c via
 * sim_wait_satisfied), touch memory outside a registered region, or touch
 * the outstanding entry (x->os, NULL where the ring is empty): an ordering
 * verb that returns 0 is done at start + latency, which sim_sq_step
 * records.
 */
#include "sim/sim_internal.h"

int sim_exec_nop(struct sim_xctx *x)
{
	(void)x;
	return 0;
}

/* Wait-on-data condition on the big-endian 64-bit word at @mem. */
static bool wod_true(const struct prism_wod_seg *s, const uint8_t *mem)
{
	uint64_t v = get_be64(mem) & s->mask, want = s->value & s->mask;
	bool r;

	switch (s->cond & 0x0fu) {
	case PRISM_WOD_EQUAL:
		r = v == want;
		break;
	case PRISM_WOD_BIGGER:
		r = v > want;
		break;
	case PRISM_WOD_SMALLER:
		r = v < want;
		break;
	case PRISM_WOD_CYCLIC_BIGGER:
		r = (int64_t)(v - want) > 0;
		break;
	case PRISM_WOD_CYCLIC_SMALLER:
		r = (int64_t)(v - want) < 0;
		break;
	default:
		r = true;
		break;
	}
	return (s->cond & PRISM_WOD_INVERT) ? !r : r;
}

/* sim_wait_satisfied (sim_internal.h) for WAITs other than on a CQ count:
 * wait-on-data, and malformed ones (satisfied: they execute and fail). */
bool sim_wait_satisfied_slow(struct sim_qp *qp, const struct prism_wqe *w, sim_time_t *t)
{
	struct sim_dev *dev = qp->dev;

	*t = 0;
	if (w->ctrl.opmod == PRISM_WAIT_ON_DATA) {
		uint8_t *mem;

		if (sim_mr_check_local(qp, SIM_MR_WAIT, w->wod.lkey, w->wod.addr, 8, &mem))
			return true;
		if (!wod_true(&w->wod, mem))
			return false;
		*t = dev->now;
		return true;
	}
	return true;
}

int sim_exec_wait(struct sim_xctx *x)
{
	const struct prism_wqe *w = x->w;
	uint8_t *mem;

	if (w->ctrl.opmod == PRISM_WAIT_CQ) {
		if (!sim_cq_by_num(x->qp->dev, w->wait_en.obj_num))
			return PRISM_SYND_LOCAL_QP_OP_ERR;
	} else if (w->ctrl.opmod == PRISM_WAIT_ON_DATA) {
		if (sim_mr_check_local(x->qp, SIM_MR_WAIT, w->wod.lkey, w->wod.addr, 8, &mem))
			return PRISM_SYND_LOCAL_PROT_ERR;
	} else {
		return PRISM_SYND_LOCAL_QP_OP_ERR; /* wait-on-time: not modelled */
	}
	return 0;
}

int sim_exec_send_en(struct sim_xctx *x)
{
	struct sim_qp *t = sim_qp_by_num(x->qp->dev, x->w->wait_en.obj_num);
	sim_time_t at = x->start + x->cost.busy;

	if (sim_enable_refused(x->qp, PRISM_OP_SEND_ENABLE) || !t ||
	    !(t->flags & SIM_QP_MANAGED_SEND))
		return PRISM_SYND_LOCAL_QP_OP_ERR;
	t->sq.en = sim_extend16(t->sq.en, x->w->wait_en.index & 0xffffu);
	sim_sq_set_limit(t);
	if (t->state == SIM_QPS_RTS) {
		uint32_t limit = sim_qp_sq_limit(t);

		if ((int32_t)(limit - t->sq.fetch) > 0)
			sim_sq_fetch_enabled(t, at, limit);
	} else if (t->state == SIM_QPS_ERR) {
		sim_qp_flush_new(t, at);
	}
	return 0;
}

int sim_exec_recv_en(struct sim_xctx *x)
{
	struct sim_qp *t = sim_qp_by_num(x->qp->dev, x->w->wait_en.obj_num);

	if (sim_enable_refused(x->qp, PRISM_OP_RECV_ENABLE) || !t ||
	    !(t->flags & SIM_QP_MANAGED_RECV) || !t->rq.n)
		return PRISM_SYND_LOCAL_QP_OP_ERR;
	t->rq.en = sim_extend16(t->rq.en, x->w->wait_en.index & 0xffffu);
	sim_progress_bump(x->qp->dev);
	return 0;
}
