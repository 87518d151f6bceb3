/* SPDX-License-Identifier: MIT */
/*
 * tests/sim/sim_harness.h - a host driver for sim tests: what rdma-core's
 * mlx5 provider does with a QP, on the sim's queue memory.  Posts WQEs
 * encoded by the codec, receive WQEs, updates doorbell records, rings
 * doorbells, polls CQEs by the owner bit.
 *
 * Owns: host-side counters (struct hx_qp, struct hx_cq).  Must not: reach
 * into the engine; it uses sim.h and the mlx5 memory layout only.
 */
#ifndef PRISM_TESTS_SIM_HARNESS_H
#define PRISM_TESTS_SIM_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include <prism/wqe.h>

#include "sim/sim.h"

struct hx_cq {
	struct sim_cq *cq;
	uint32_t ci;
};

struct hx_qp {
	struct sim_qp *qp;
	struct sim_dev *dev;
	struct hx_cq *scq, *rcq;
	uint32_t qpn;
	uint32_t sq_bbs, sq_pi; /* BB counter */
	uint32_t rq_n, rq_pi;
	uint8_t *sq;
	struct sim_mr *sq_mr; /* the send queue registered (RedN: chains rewrite WQEs) */
};

/* A device with @seed and profile; hazard policy warn unless @fail. */
struct sim_dev *hx_dev(uint64_t seed, enum sim_fw_profile fw, enum sim_hazard_policy hz,
                       bool chaos);
void hx_cq_init(struct hx_cq *c, struct sim_dev *dev, uint32_t ncqe, bool ignore_overrun);
void hx_qp_init(struct hx_qp *q, struct sim_dev *dev, struct hx_cq *scq, struct hx_cq *rcq,
                uint32_t sq_bbs, uint32_t rq_n, unsigned flags);
/* ... in protection domain @pd (NULL: the default) serving @access
 * (SIM_ACCESS_REMOTE_*); hx_qp_init: the default PD, every right. */
void hx_qp_init_prot(struct hx_qp *q, struct sim_dev *dev, struct hx_cq *scq, struct hx_cq *rcq,
                     uint32_t sq_bbs, uint32_t rq_n, unsigned flags, struct sim_pd *pd,
                     unsigned access);
/* RESET->INIT->RTR->RTS, connected to @peer_qpn on @peer_node. */
void hx_connect(struct hx_qp *q, uint32_t peer_node, uint32_t peer_qpn, uint8_t rnr_retry,
                uint8_t min_rnr_timer);
/* Connects two QPs of the same device to each other (loopback). */
void hx_pair(struct hx_qp *a, struct hx_qp *b);
/* Encodes @w at the producer counter (wqe_index and qpn filled in),
 * advances it and writes dbrec[1].  Returns the WQE's counter. */
uint32_t hx_post(struct hx_qp *q, struct prism_wqe *w);
void hx_ring(struct hx_qp *q);
uint32_t hx_post_recv(struct hx_qp *q, const struct prism_sge *sge, unsigned n);
/* 1: a CQE in *out; 0: empty. */
int hx_poll(struct hx_cq *c, struct prism_cqe *out);
/* Polls exactly one CQE (fails the test if none). */
struct prism_cqe hx_expect(struct hx_cq *c);
uint8_t *hx_slot(struct hx_qp *q, uint32_t counter);
uint32_t hx_key(struct sim_dev *dev, void *addr, size_t len, unsigned access);

/* WQE builders (decoded form; hx_post encodes). */
void hx_nop(struct prism_wqe *w, bool signaled);
void hx_rw(struct prism_wqe *w, uint8_t opcode, uint64_t raddr, uint32_t rkey, uint64_t laddr,
           uint32_t lkey, uint32_t len, bool signaled);
void hx_send(struct prism_wqe *w, uint8_t opcode, uint64_t laddr, uint32_t lkey, uint32_t len,
             bool signaled);
void hx_atomic(struct prism_wqe *w, uint8_t opcode, uint64_t raddr, uint32_t rkey, uint64_t swap,
               uint64_t compare, uint64_t laddr, uint32_t lkey, bool signaled);
/* WAIT until CQE number @index (0-based, 24-bit cyclic) of CQ @cqn exists. */
void hx_wait(struct prism_wqe *w, uint32_t cqn, uint32_t index, bool signaled);
void hx_enable(struct prism_wqe *w, uint8_t opcode, uint32_t qpn, uint32_t index, bool signaled);

#endif /* PRISM_TESTS_SIM_HARNESS_H */
