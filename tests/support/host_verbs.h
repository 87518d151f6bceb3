/* SPDX-License-Identifier: MIT */
/*
 * tests/support/host_verbs.h - what a host driver does with a sim QP, for
 * tests and benchmarks: post send WQEs (through the codec) and receive WQEs
 * into queue memory, update doorbell records, ring doorbells, poll CQEs.
 *
 * Owns: host-side producer/consumer counters (struct hv_qp, struct hv_cq).
 * Must not: reach into the engine's internals; it uses only sim.h and the
 * memory layout sim.h documents (as mlx5 does).
 */
#ifndef PRISM_TESTS_HOST_VERBS_H
#define PRISM_TESTS_HOST_VERBS_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <prism/wqe.h>

#include "sim/sim.h"

struct hv_qp {
	struct sim_qp *qp;
	uint32_t qpn;
	uint8_t *sq;     /* send queue memory */
	uint32_t sq_bbs; /* power of two */
	uint32_t sq_pi;  /* producer counter, in BBs (absolute) */
	uint8_t *rq;     /* receive queue memory */
	uint32_t rq_n;   /* receive WQEs */
	uint32_t rq_stride;
	uint32_t rq_pi;
	volatile uint32_t *dbrec; /* [0] receive, [1] send counter (be32) */
};

struct hv_cq {
	struct sim_cq *cq;
	uint8_t *buf;
	uint32_t ncqe;
	uint32_t ci;              /* consumer counter (absolute) */
	volatile uint32_t *dbrec; /* [0] consumer index (be32) */
};

void hv_qp_init(struct hv_qp *h, struct sim_qp *qp, uint32_t sq_bbs, uint32_t rq_n);
void hv_cq_init(struct hv_cq *h, struct sim_cq *cq);

/*
 * Encode @w at the send producer counter (ctrl.wqe_index and ctrl.qpn are
 * filled in unless @keep_ctrl_ids), advance the counter, and publish it in
 * the doorbell record.  Returns the WQE's counter (>= 0) or a negative
 * codec error.  @slot_out (may be NULL) gets the WQE's address in memory.
 */
int64_t hv_post_send(struct hv_qp *h, struct prism_wqe *w, bool keep_ctrl_ids, uint8_t **slot_out);
/*
 * Re-posting WQEs whose bytes the caller already holds in place (a WQE of
 * the same shape posted one lap ago, changed fields rewritten): move the
 * send producer counter to @end, or the receive counter one WQE on (the
 * receive one lap ago had the same entries), without publishing them.
 * hv_publish_sq() / hv_publish_rq() then write the doorbell record once for
 * all of them, as a driver's post of a list of work requests does.  Inline:
 * a re-posting benchmark calls them for every WQE.
 */
static inline void hv_sq_advance(struct hv_qp *h, uint32_t end)
{
	h->sq_pi = end;
}
static inline void hv_rq_advance(struct hv_qp *h)
{
	h->rq_pi++;
}
/* Publish the send / receive producer counter in the doorbell record
 * (after the WQE stores). */
static inline void hv_publish_sq(struct hv_qp *h)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	h->dbrec[1] = htobe32(h->sq_pi & 0xffff);
}
static inline void hv_publish_rq(struct hv_qp *h)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	h->dbrec[0] = htobe32(h->rq_pi & 0xffff);
}
/* Ring the send doorbell (host-started queues; managed queues ignore it). */
int hv_ring(struct hv_qp *h);
/* Post one receive WQE with @n entries; returns its receive counter. */
int64_t hv_post_recv(struct hv_qp *h, const struct prism_sge *sge, unsigned n);
/* Poll one CQE: 1 and *@out filled, 0 when the CQ is empty, < 0 on a bad CQE. */
int hv_poll(struct hv_cq *h, struct prism_cqe *out);
/*
 * The CQE at the consumer counter (its 64 bytes, read in place) when
 * software owns it and its opcode is not INVALID, else NULL; hv_cq_pop()
 * then consumes it.  For a poller that reads only the fields it needs, as
 * a driver does (hv_poll decodes every field).  Inline: a polling
 * benchmark calls it for every reply.
 */
static inline const uint8_t *hv_cq_peek(const struct hv_cq *h)
{
	const uint8_t *cqe = h->buf + (size_t)(h->ci & (h->ncqe - 1)) * PRISM_CQE_BYTES;
	uint8_t op_own = __atomic_load_n(&cqe[63], __ATOMIC_ACQUIRE);

	if (!prism_cqe_sw_owned(op_own, h->ci, h->ncqe) || (op_own >> 4) == PRISM_CQE_INVALID)
		return NULL;
	return cqe;
}
/* Consume the CQE hv_cq_peek() returned: advance the consumer counter and
 * publish it in the CQ's doorbell record. */
static inline void hv_cq_pop(struct hv_cq *h)
{
	h->ci++;
	h->dbrec[0] = htobe32(h->ci & 0xffffff);
}

/* A decoded WQE skeleton with opcode and signaling set, everything else zero. */
void hv_wqe(struct prism_wqe *w, uint8_t opcode, bool signaled);
/* Address of the first byte of the WQE at counter @c. */
static inline uint8_t *hv_sq_slot(const struct hv_qp *h, uint32_t c)
{
	return h->sq + (size_t)(c & (h->sq_bbs - 1)) * PRISM_WQE_BB;
}

#endif /* PRISM_TESTS_HOST_VERBS_H */
