/* SPDX-License-Identifier: MIT */
/*
 * sim_exec_copy.c - requester side of the copy verbs: WRITE, WRITE_IMM,
 * SEND, SEND_IMM (gather from local memory or inline data into one request
 * packet) and READ (check the local scatter list, send a READ request; the
 * data lands when the response arrives, sim_requester.c).
 *
 * Owns: gather, local key/bounds checks of the requester, the request
 * packets of these verbs.  Must not: touch remote memory (the responder
 * does, sim_responder.c) or block.
 */
#include "sim/sim_internal.h"

static const enum sim_pkt_kind pkt_of[256] = {
    [PRISM_OP_RDMA_WRITE] = SIM_PKT_WRITE,   [PRISM_OP_RDMA_WRITE_IMM] = SIM_PKT_WRITE_IMM,
    [PRISM_OP_SEND] = SIM_PKT_SEND,          [PRISM_OP_SEND_IMM] = SIM_PKT_SEND_IMM,
    [PRISM_OP_RDMA_READ] = SIM_PKT_READ_REQ,
};

static inline __attribute__((always_inline)) void fill_hdr(struct sim_xctx *x, struct sim_pkt *p)
{
	struct sim_qp *qp = x->qp;

	p->kind = pkt_of[x->w->ctrl.opcode];
	p->flags = SIM_PKT_ACKREQ | (prism_ctrl_se(&x->w->ctrl) ? SIM_PKT_SE : 0);
	p->src_node = qp->dev->o.node;
	p->src_qpn = qp->qpn;
	p->dst_node = qp->peer_node;
	p->dst_qpn = qp->peer_qpn;
	p->psn = qp->next_psn;
	qp->next_psn = (qp->next_psn + 1) & 0xffffffu;
	p->wqe_counter = x->f->counter;
	p->opcode = x->w->ctrl.opcode;
	p->imm = get_be32(x->f->bytes + 12); /* the engine's decode leaves it out */
	/* the request reaches the responder half-way through the latency */
	p->t = x->start + x->cost.latency / 2;
	x->os->psn = p->psn;
	x->os->sent = true;
}

int sim_exec_write(struct sim_xctx *x)
{
	const struct prism_wqe *w = x->w;
	struct sim_dev *dev = x->qp->dev;
	uint64_t total = 0;
	struct sim_pkt *p;
	uint8_t *src[PRISM_WQE_MAX_SGE];
	int synd;

	if (w->is_inline) {
		total = w->inline_len;
	} else {
		for (unsigned i = 0; i < w->num_sge; i++) {
			const struct prism_sge *s = &w->sge[i];

			synd = sim_mr_check_local(x->qp, SIM_MR_GATHER, s->lkey, s->addr,
			                          s->byte_count, &src[i]);
			if (synd)
				return synd;
			total += s->byte_count;
		}
	}
	if (total > SIM_MAX_MSG)
		return PRISM_SYND_LOCAL_LENGTH_ERR;
	p = sim_pkt_alloc(dev, (uint32_t)total);
	if (!p)
		return PRISM_SYND_LOCAL_QP_OP_ERR; /* out of memory: fail the QP, not the engine */
	if (w->is_inline) {
		if (w->inline_len) /* an empty message has no payload buffer */
			sim_copy_bytes(p->payload, w->inline_data, w->inline_len);
	} else {
		uint32_t off = 0;

		for (unsigned i = 0; i < w->num_sge; i++) {
			if (w->sge[i].byte_count)
				sim_mem_read(p->payload + off, src[i], w->sge[i].byte_count);
			off += w->sge[i].byte_count;
		}
	}
	fill_hdr(x, p);
	if (w->has_raddr) {
		p->raddr = w->raddr.raddr;
		p->rkey = w->raddr.rkey;
	}
	p->len = (uint32_t)total;
	x->os->byte_count = (uint32_t)total;
	x->os->rnr_able = p->kind != SIM_PKT_WRITE; /* it consumes a receive */
	return sim_send_request(x->qp, x->os, p);
}

int sim_exec_read(struct sim_xctx *x)
{
	const struct prism_wqe *w = x->w;
	uint64_t total = 0;
	struct sim_pkt *p;
	uint8_t *dst;
	int synd;

	for (unsigned i = 0; i < w->num_sge; i++) {
		const struct prism_sge *s = &w->sge[i];

		synd = sim_mr_check_local(x->qp, SIM_MR_READ_DST, s->lkey, s->addr, s->byte_count,
		                          &dst);
		if (synd)
			return synd;
		total += s->byte_count;
		x->os->sge[i] = *s;
	}
	if (total > SIM_MAX_MSG)
		return PRISM_SYND_LOCAL_LENGTH_ERR;
	x->os->nsge = w->num_sge;
	x->os->mr_gen = x->qp->dev->mr_gen;
	x->os->read_like = true;
	p = sim_pkt_alloc(x->qp->dev, 0);
	if (!p)
		return PRISM_SYND_LOCAL_QP_OP_ERR;
	fill_hdr(x, p);
	p->raddr = w->raddr.raddr;
	p->rkey = w->raddr.rkey;
	p->len = (uint32_t)total;
	x->os->byte_count = (uint32_t)total;
	return sim_send_request(x->qp, x->os, p);
}
