/* SPDX-License-Identifier: MIT */
/*
 * tests/support/host_verbs.c - host-side posting and polling on sim QPs.
 *
 * Owns: producer/consumer counters, WQE placement in the ring (a WQE that
 * would cross the end of the ring is written in two parts, as mlx5 does),
 * doorbell records.  Must not: build WQE bytes by hand (the codec does).
 */
#include "tests/support/host_verbs.h"

#include <arpa/inet.h>
#include <stddef.h>
#include <string.h>

void hv_qp_init(struct hv_qp *h, struct sim_qp *qp, uint32_t sq_bbs, uint32_t rq_n)
{
	memset(h, 0, sizeof(*h));
	h->qp = qp;
	h->qpn = sim_qp_num(qp);
	h->sq = sim_qp_sq(qp);
	h->sq_bbs = sq_bbs;
	h->rq = sim_qp_buf(qp);
	h->rq_n = rq_n;
	h->rq_stride = sim_qp_rq_stride(qp);
	h->dbrec = sim_qp_dbrec(qp);
}

void hv_cq_init(struct hv_cq *h, struct sim_cq *cq)
{
	h->cq = cq;
	h->buf = sim_cq_buf(cq);
	h->ncqe = sim_cq_ncqe(cq);
	h->ci = 0;
	h->dbrec = sim_cq_dbrec(cq);
}

void hv_wqe(struct prism_wqe *w, uint8_t opcode, bool signaled)
{
	/* the header fields only: the encoder reads num_sge entries and
	 * inline_len bytes, never the rest of the big arrays */
	memset(w, 0, offsetof(struct prism_wqe, sge));
	memset(w->sge, 0, 2 * sizeof(w->sge[0]));
	w->is_inline = false;
	w->inline_len = 0;
	w->ctrl.opcode = opcode;
	w->ctrl.fm_ce_se =
	    prism_fm_ce_se(PRISM_FENCE_NONE, signaled ? PRISM_CE_CQ_UPDATE : PRISM_CE_NONE, false);
}

int64_t hv_post_send(struct hv_qp *h, struct prism_wqe *w, bool keep_ctrl_ids, uint8_t **slot_out)
{
	uint32_t c = h->sq_pi;
	uint32_t first = c & (h->sq_bbs - 1);
	uint8_t *slot = h->sq + (size_t)first * PRISM_WQE_BB;
	size_t room = (size_t)(h->sq_bbs - first) * PRISM_WQE_BB;
	int n;

	if (!keep_ctrl_ids) {
		w->ctrl.wqe_index = (uint16_t)c;
		w->ctrl.qpn = h->qpn;
	}
	/* Encode in place when the WQE fits before the end of the ring (the
	 * codec leaves the rest of the slot alone and writes nothing on error). */
	n = prism_wqe_encode(w, slot, room < PRISM_WQE_MAX_BYTES ? room : PRISM_WQE_MAX_BYTES,
	                     NULL);
	if (n == PRISM_WQE_E_SHORT) {
		/* it wraps: encode aside, copy in two parts, as mlx5 does */
		uint8_t tmp[PRISM_WQE_MAX_BB * PRISM_WQE_BB];
		n = prism_wqe_encode(w, tmp, sizeof(tmp), NULL);
		if (n < 0)
			return n;
		size_t bytes =
		    (size_t)prism_wqe_bbs((unsigned)n / PRISM_WQE_DS_BYTES) * PRISM_WQE_BB;
		memcpy(slot, tmp, room);
		memcpy(h->sq, tmp + room, bytes - room);
	} else if (n < 0) {
		return n;
	}
	h->sq_pi = c + prism_wqe_bbs((unsigned)n / PRISM_WQE_DS_BYTES);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	h->dbrec[1] = htonl(h->sq_pi & 0xffff);
	if (slot_out)
		*slot_out = slot;
	return c;
}

int hv_ring(struct hv_qp *h)
{
	return sim_qp_ring_sq_doorbell(h->qp);
}

int64_t hv_post_recv(struct hv_qp *h, const struct prism_sge *sge, unsigned n)
{
	uint32_t c = h->rq_pi;
	uint8_t *slot = h->rq + (size_t)(c & (h->rq_n - 1)) * h->rq_stride;
	int rc = prism_rwqe_encode(sge, n, slot, h->rq_stride / PRISM_WQE_DS_BYTES, NULL);
	if (rc < 0)
		return rc;
	h->rq_pi = c + 1;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	h->dbrec[0] = htonl(h->rq_pi & 0xffff);
	/* no receive doorbell: the NIC reads dbrec[0] when a message arrives
	 * (sim.h); ringing only wakes parked RNR retries sooner */
	return c;
}

int hv_poll(struct hv_cq *h, struct prism_cqe *out)
{
	const uint8_t *cqe = hv_cq_peek(h);

	if (!cqe)
		return 0;
	int rc = prism_cqe_decode(cqe, out, NULL);
	if (rc < 0)
		return rc;
	hv_cq_pop(h);
	return 1;
}
