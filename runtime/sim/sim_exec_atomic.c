/* SPDX-License-Identifier: MIT */
/*
 * sim_exec_atomic.c - requester side of CAS, FETCH_ADD and the masked
 * atomics: check the one local data segment the old value returns into,
 * put the operands into an atomic request packet as their WQE bytes
 * (big-endian), and send it.  The responder computes (sim_atomic_math.c);
 * the old value lands when the atomic response arrives.
 *
 * Must not: compute the atomic or touch remote memory.
 */
#include <endian.h>

#include "sim/sim_internal.h"

/* An operand's WQE bytes: integers re-encoded big-endian, wide ones as is. */
static inline void operand(uint8_t *out, unsigned size, uint64_t v, const uint8_t *bytes)
{
	uint32_t v32;

	if (size == 8) {
		v = htobe64(v);
		memcpy(out, &v, 8);
	} else if (size == 4) {
		v32 = htobe32((uint32_t)v);
		memcpy(out, &v32, 4);
	} else if (size > 8) {
		memcpy(out, bytes, size);
	} else {
		for (unsigned i = size; i-- > 0; v >>= 8)
			out[i] = (uint8_t)v;
	}
}

int sim_exec_atomic(struct sim_xctx *x)
{
	const struct prism_wqe *w = x->w;
	const struct prism_atomic_seg *a = &w->atomic;
	struct sim_qp *qp = x->qp;
	const struct prism_sge *s = &w->sge[0];
	struct sim_pkt *p;
	uint8_t *dst;
	int synd;

	if (w->num_sge != 1 || w->is_inline)
		return PRISM_SYND_LOCAL_QP_OP_ERR;
	if (s->byte_count < a->size)
		return PRISM_SYND_LOCAL_LENGTH_ERR;
	synd = sim_mr_check_local(qp, SIM_MR_ATOMIC_DST, s->lkey, s->addr, a->size, &dst);
	if (synd)
		return synd;
	x->os->sge[0] = *s;
	x->os->sge[0].byte_count = a->size;
	x->os->nsge = 1;
	x->os->mr_gen = qp->dev->mr_gen;
	x->os->read_like = true;
	x->os->byte_count = a->size;
	p = sim_pkt_alloc(x->qp->dev, 0);
	if (!p)
		return PRISM_SYND_LOCAL_QP_OP_ERR;
	memset(p->swap, 0, sizeof(p->swap));
	memset(p->compare, 0, sizeof(p->compare));
	memset(p->swap_mask, 0, sizeof(p->swap_mask));
	memset(p->compare_mask, 0, sizeof(p->compare_mask));
	p->kind = SIM_PKT_ATOMIC_REQ;
	p->flags = SIM_PKT_ACKREQ;
	p->src_node = qp->dev->o.node;
	p->src_qpn = qp->qpn;
	p->dst_node = qp->peer_node;
	p->dst_qpn = qp->peer_qpn;
	p->psn = qp->next_psn;
	qp->next_psn = (qp->next_psn + 1) & 0xffffffu;
	p->wqe_counter = x->f->counter;
	p->opcode = w->ctrl.opcode;
	p->opmod = w->ctrl.opmod;
	p->atomic_size = a->size;
	p->raddr = w->raddr.raddr;
	p->rkey = w->raddr.rkey;
	p->len = a->size;
	if (a->size == 8) { /* CAS, FETCH_ADD and 8-byte masked: one test */
		operand(p->swap, 8, a->swap, NULL);
		operand(p->compare, 8, a->compare, NULL);
		operand(p->swap_mask, 8, a->swap_mask, NULL);
		operand(p->compare_mask, 8, a->compare_mask, NULL);
	} else {
		operand(p->swap, a->size, a->swap, a->swap_bytes);
		operand(p->compare, a->size, a->compare, a->compare_bytes);
		operand(p->swap_mask, a->size, a->swap_mask, a->swap_mask_bytes);
		operand(p->compare_mask, a->size, a->compare_mask, a->compare_mask_bytes);
	}
	p->t = x->start + x->cost.latency / 2;
	x->os->psn = p->psn;
	x->os->sent = true;
	return sim_send_request(qp, x->os, p);
}
