/* SPDX-License-Identifier: MIT */
/*
 * tests/hw/hw_verbs.c - the verbs path: a decoded prism WQE translated into
 * an ibv_send_wr, completions from ibv_poll_cq translated back into the
 * decoded CQE form (status -> mlx5 syndrome, opcode -> mlx5 CQE opcode).
 *
 * It lets the plain-verbs rules run on any RDMA device (rxe, siw, non-mlx5
 * hardware) with the same test bodies as the raw path.  The translation
 * follows rdma-core's mlx5 provider in reverse (providers/mlx5/cq.c
 * mlx5_handle_error_cqe maps syndromes to ibv_wc_status; qp.c maps
 * IBV_SEND_* flags to the control segment's fm_ce_se byte).
 *
 * Owns: the queue of WRs posted but not yet rung.  Must not: pretend to
 * support a WQE that verbs cannot express (NOP, masked atomics, WAIT,
 * SEND_EN, RECV_EN): hw_verbs_post returns -ENOTSUP and the test skips.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/hw/hw_common.h"

#define VQ_MAX 64

struct hw_verbs_queue {
	unsigned n;
	struct ibv_send_wr wr[VQ_MAX];
	struct ibv_sge sge[VQ_MAX][PRISM_WQE_MAX_SGE];
	uint8_t inl[VQ_MAX][PRISM_WQE_MAX_INLINE]; /* inline bytes live until ring */
};

/* prism opcode -> verbs opcode; .ok false: no verbs equivalent. */
static const struct {
	bool ok;
	enum ibv_wr_opcode op;
} verbs_op[256] = {
    [PRISM_OP_RDMA_WRITE] = {true, IBV_WR_RDMA_WRITE},
    [PRISM_OP_RDMA_WRITE_IMM] = {true, IBV_WR_RDMA_WRITE_WITH_IMM},
    [PRISM_OP_SEND] = {true, IBV_WR_SEND},
    [PRISM_OP_SEND_IMM] = {true, IBV_WR_SEND_WITH_IMM},
    [PRISM_OP_RDMA_READ] = {true, IBV_WR_RDMA_READ},
    [PRISM_OP_ATOMIC_CS] = {true, IBV_WR_ATOMIC_CMP_AND_SWP},
    [PRISM_OP_ATOMIC_FA] = {true, IBV_WR_ATOMIC_FETCH_AND_ADD},
};

/* ibv_wc_status -> mlx5 CQE syndrome (the inverse of mlx5_handle_error_cqe). */
static const uint8_t status_synd[] = {
    [IBV_WC_LOC_LEN_ERR] = PRISM_SYND_LOCAL_LENGTH_ERR,
    [IBV_WC_LOC_QP_OP_ERR] = PRISM_SYND_LOCAL_QP_OP_ERR,
    [IBV_WC_LOC_PROT_ERR] = PRISM_SYND_LOCAL_PROT_ERR,
    [IBV_WC_WR_FLUSH_ERR] = PRISM_SYND_WR_FLUSH_ERR,
    [IBV_WC_MW_BIND_ERR] = PRISM_SYND_MW_BIND_ERR,
    [IBV_WC_BAD_RESP_ERR] = PRISM_SYND_BAD_RESP_ERR,
    [IBV_WC_LOC_ACCESS_ERR] = PRISM_SYND_LOCAL_ACCESS_ERR,
    [IBV_WC_REM_INV_REQ_ERR] = PRISM_SYND_REMOTE_INVAL_REQ_ERR,
    [IBV_WC_REM_ACCESS_ERR] = PRISM_SYND_REMOTE_ACCESS_ERR,
    [IBV_WC_REM_OP_ERR] = PRISM_SYND_REMOTE_OP_ERR,
    [IBV_WC_RETRY_EXC_ERR] = PRISM_SYND_TRANSPORT_RETRY_EXC_ERR,
    [IBV_WC_RNR_RETRY_EXC_ERR] = PRISM_SYND_RNR_RETRY_EXC_ERR,
    [IBV_WC_REM_ABORT_ERR] = PRISM_SYND_REMOTE_ABORTED_ERR,
};

int hw_verbs_init(struct hw_qp *q)
{
	q->vq = calloc(1, sizeof(*q->vq));
	return q->vq ? 0 : -ENOMEM;
}

void hw_verbs_free(struct hw_qp *q)
{
	free(q->vq);
	q->vq = NULL;
}

static unsigned send_flags(const struct prism_wqe *w)
{
	unsigned f = 0;

	if (prism_ctrl_ce(&w->ctrl) >= PRISM_CE_CQ_UPDATE)
		f |= IBV_SEND_SIGNALED;
	if (prism_ctrl_fence(&w->ctrl) != PRISM_FENCE_NONE)
		f |= IBV_SEND_FENCE;
	if (prism_ctrl_se(&w->ctrl))
		f |= IBV_SEND_SOLICITED;
	if (w->is_inline)
		f |= IBV_SEND_INLINE;
	return f;
}

int hw_verbs_translate(const struct prism_wqe *w, uint32_t counter, struct ibv_send_wr *wr,
                       struct ibv_sge *sge, uint8_t *inl)
{
	if (!verbs_op[w->ctrl.opcode].ok || w->ctrl.opmod)
		return -ENOTSUP;
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = counter; /* comes back as the CQE's wqe_counter */
	wr->opcode = verbs_op[w->ctrl.opcode].op;
	wr->send_flags = send_flags(w);
	wr->imm_data = htobe32(w->ctrl.imm);
	wr->sg_list = sge;
	if (w->is_inline) {
		memcpy(inl, w->inline_data, w->inline_len);
		sge[0] = (struct ibv_sge){.addr = (uintptr_t)inl, .length = w->inline_len};
		wr->num_sge = 1;
	} else {
		for (unsigned i = 0; i < w->num_sge; i++)
			sge[i] = (struct ibv_sge){.addr = w->sge[i].addr,
			                          .length = w->sge[i].byte_count,
			                          .lkey = w->sge[i].lkey};
		wr->num_sge = w->num_sge;
	}
	if (w->ctrl.opcode == PRISM_OP_ATOMIC_CS || w->ctrl.opcode == PRISM_OP_ATOMIC_FA) {
		wr->wr.atomic.remote_addr = w->raddr.raddr;
		wr->wr.atomic.rkey = w->raddr.rkey;
		/* CAS: compare_add = compare; FETCH_ADD: compare_add = the addend */
		wr->wr.atomic.compare_add =
		    w->ctrl.opcode == PRISM_OP_ATOMIC_CS ? w->atomic.compare : w->atomic.swap;
		wr->wr.atomic.swap = w->atomic.swap;
	} else {
		wr->wr.rdma.remote_addr = w->raddr.raddr;
		wr->wr.rdma.rkey = w->raddr.rkey;
	}
	return 0;
}

int hw_verbs_post(struct hw_qp *q, const struct prism_wqe *w, uint32_t counter)
{
	struct hw_verbs_queue *vq = q->vq;
	int rc;

	if (vq->n == VQ_MAX)
		return -ENOSPC;
	rc = hw_verbs_translate(w, counter, &vq->wr[vq->n], vq->sge[vq->n], vq->inl[vq->n]);
	if (rc)
		return rc;
	if (vq->n > 0)
		vq->wr[vq->n - 1].next = &vq->wr[vq->n];
	vq->n++;
	return 0;
}

int hw_verbs_ring(struct hw_qp *q)
{
	struct ibv_send_wr *bad = NULL;
	int rc;

	if (q->vq->n == 0)
		return 0;
	rc = ibv_post_send(q->qp, &q->vq->wr[0], &bad);
	q->vq->n = 0;
	return rc ? -rc : 0;
}

int hw_verbs_post_recv(struct hw_qp *q, const struct prism_sge *sge, unsigned n, uint32_t counter)
{
	struct ibv_sge s[PRISM_WQE_MAX_SGE];
	struct ibv_recv_wr wr = {.wr_id = counter, .sg_list = s, .num_sge = (int)n};
	struct ibv_recv_wr *bad = NULL;
	int rc;

	if (n > PRISM_WQE_MAX_SGE)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		s[i] = (struct ibv_sge){
		    .addr = sge[i].addr, .length = sge[i].byte_count, .lkey = sge[i].lkey};
	rc = ibv_post_recv(q->qp, &wr, &bad);
	return rc ? -rc : 0;
}

static uint8_t recv_opcode(const struct ibv_wc *wc)
{
	if (wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM)
		return PRISM_CQE_RESP_WR_IMM;
	return (wc->wc_flags & IBV_WC_WITH_IMM) ? PRISM_CQE_RESP_SEND_IMM : PRISM_CQE_RESP_SEND;
}

uint8_t hw_verbs_syndrome(enum ibv_wc_status status)
{
	return (unsigned)status < sizeof(status_synd) ? status_synd[status] : 0;
}

void hw_verbs_wc_to_cqe(const struct ibv_wc *wc, bool is_recv, struct prism_cqe *out)
{
	memset(out, 0, sizeof(*out));
	out->wqe_counter = (uint16_t)wc->wr_id;
	out->qpn = wc->qp_num;
	out->byte_count = wc->byte_len;
	if (wc->status != IBV_WC_SUCCESS) {
		/* wc.opcode is undefined on error: the CQ tells the side */
		out->opcode = is_recv ? PRISM_CQE_RESP_ERR : PRISM_CQE_REQ_ERR;
		out->syndrome = hw_verbs_syndrome(wc->status);
		out->vendor_syndrome = (uint8_t)wc->vendor_err;
		return;
	}
	if (is_recv) {
		out->opcode = recv_opcode(wc);
		if (wc->wc_flags & IBV_WC_WITH_IMM)
			out->imm = be32toh(wc->imm_data);
	} else {
		out->opcode = PRISM_CQE_REQ;
	}
}

int hw_verbs_poll(struct hw_cq *c, struct prism_cqe *out)
{
	struct ibv_wc wc;
	int n = ibv_poll_cq(c->cq, 1, &wc);

	if (n <= 0)
		return n;
	hw_verbs_wc_to_cqe(&wc, c->is_recv, out);
	return 1;
}
