/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_sim_acks.c - libFuzzer target: a hostile peer's responses
 * to the software RNIC's requester (rule ack-coalesced, docs/nic-model.md):
 * ACKs, NAKs, READ and atomic responses with any PSN, in any order, for a
 * QP with requests of every kind outstanding.
 *
 * Input: bytes 0-2 the QP's first PSN (big-endian, 24 bits), byte 3 the
 * number of WQEs (low 4 bits) and its RNR retry count (bits 4-6), one byte
 * per WQE (its kind: WRITE, SEND, READ, CAS, NOP; bit 7: signaled), then
 * 4-byte responses: kind (low 2 bits: ACK, NAK, READ response, atomic
 * response), NAK syndrome / payload length (the rest), and a signed 16-bit
 * PSN offset from the first PSN.  The device runs after each one.
 *
 * Checks: nothing crashes (ASan/UBSan), each run ends within its step
 * budget, nothing outside the registered page is written, and the send
 * CQEs come in WQE order.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <prism/wqe.h>

#include "sim/sim.h"

#define PAGE      4096u
#define SQ_BBS    64u
#define PEER_NODE 2u
#define PEER_QPN  9u

static int drop(void *ctx, const struct sim_pkt *p)
{
	(void)ctx;
	(void)p;
	return 0; /* the peer answers only what the input says */
}

static const struct sim_wire_ops drop_ops = {.xmit = drop};

/* One WQE of kind @k (see the top comment) at BB counter *@pi. */
static void post(struct sim_qp *qp, uint8_t *page, uint32_t key, uint8_t k, uint32_t *pi)
{
	uint8_t buf[PRISM_WQE_MAX_BB * 64];
	struct prism_wqe w;
	int len;

	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = (uint8_t[]){PRISM_OP_RDMA_WRITE, PRISM_OP_SEND, PRISM_OP_RDMA_READ,
	                            PRISM_OP_ATOMIC_CS, PRISM_OP_NOP}[(k & 0x7f) % 5];
	w.ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_NONE,
	                                 (k & 0x80) ? PRISM_CE_CQ_UPDATE : PRISM_CE_NONE, false);
	w.ctrl.wqe_index = (uint16_t)*pi;
	w.ctrl.qpn = sim_qp_num(qp);
	if (w.ctrl.opcode != PRISM_OP_NOP) {
		w.num_sge = 1;
		w.sge[0] = (struct prism_sge){
		    .byte_count = 8, .lkey = key, .addr = (uintptr_t)page + 64u * (*pi % 32)};
	}
	if (w.ctrl.opcode != PRISM_OP_NOP && w.ctrl.opcode != PRISM_OP_SEND) {
		w.has_raddr = true;
		w.raddr.raddr = 0x1000;
		w.raddr.rkey = 0x77;
	}
	if (w.ctrl.opcode == PRISM_OP_ATOMIC_CS) {
		w.has_atomic = true;
		w.atomic.size = 8;
	}
	len = prism_wqe_encode(&w, buf, sizeof(buf), NULL);
	if (len <= 0)
		abort();
	for (uint32_t i = 0; i < prism_wqe_bbs((unsigned)len / 16); i++)
		memcpy((uint8_t *)sim_qp_sq(qp) + ((*pi)++ % SQ_BBS) * 64, buf + i * 64, 64);
}

/* The send CQEs written so far come in WQE order (@last: the counter of
 * the last one seen, -1 before any). */
static void check_cqes(struct sim_cq *cq, uint32_t *ci, int32_t *last)
{
	uint32_t ncqe = sim_cq_ncqe(cq);

	for (;;) {
		uint8_t *cqe = (uint8_t *)sim_cq_buf(cq) + (size_t)(*ci & (ncqe - 1)) * 64;
		uint8_t op_own = __atomic_load_n(&cqe[63], __ATOMIC_ACQUIRE);
		struct prism_cqe c;

		if ((op_own >> 4) == PRISM_CQE_INVALID || !prism_cqe_sw_owned(op_own, *ci, ncqe))
			return;
		if (prism_cqe_decode(cqe, &c, NULL))
			abort();
		(*ci)++;
		if ((int32_t)c.wqe_counter <= *last)
			abort(); /* completions out of WQE order */
		*last = (int32_t)c.wqe_counter;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_dev_opts o = {.sz = sizeof(o), .seed = 1, .node = 1};
	struct sim_cq_attr ca = {.ncqe = 64, .ignore_overrun = true};
	struct sim_qp_attr qa = {
	    .access = SIM_ACCESS_REMOTE_ALL, .sq_bbs = SQ_BBS, .rq_wqes = 4, .rq_max_sge = 1};
	struct sim_qp_mod m = {.state = SIM_QPS_INIT};
	uint8_t payload[64], *arena;
	struct sim_dev *dev;
	struct sim_cq *cq;
	struct sim_qp *qp;
	struct sim_mr *mr;
	uint32_t psn0, n, pi = 0, ci = 0;
	int32_t last = -1;
	size_t at;

	if (size < 4)
		return 0;
	psn0 = ((uint32_t)data[0] << 16) | ((uint32_t)data[1] << 8) | data[2];
	n = data[3] & 15;
	if (size < 4 + n || sim_dev_open(&o, &dev))
		return 0;
	sim_dev_set_wire(dev, &drop_ops, NULL);
	arena = aligned_alloc(PAGE, 3 * PAGE);
	memset(arena, 0x5a, 3 * PAGE);
	if (sim_mr_reg(dev, arena + PAGE, PAGE, SIM_ACCESS_LOCAL_WRITE, &mr) ||
	    sim_cq_create(dev, &ca, &cq))
		goto out;
	qa.send_cq = qa.recv_cq = cq;
	if (sim_qp_create(dev, &qa, &qp))
		goto out;
	sim_qp_modify(qp, &m);
	m.state = SIM_QPS_RTR;
	m.peer_node = PEER_NODE;
	m.peer_qpn = PEER_QPN;
	sim_qp_modify(qp, &m);
	m.state = SIM_QPS_RTS;
	m.sq_psn = psn0;
	m.rnr_retry = (data[3] >> 4) & 7;
	sim_qp_modify(qp, &m);
	for (uint32_t i = 0; i < n; i++)
		post(qp, arena + PAGE, sim_mr_lkey(mr), data[4 + i], &pi);
	__atomic_store_n(&sim_qp_dbrec(qp)[1], __builtin_bswap32(pi & 0xffff), __ATOMIC_RELEASE);
	sim_qp_ring_sq_doorbell(qp);
	sim_dev_run(dev, 20000);
	memset(payload, 0xc3, sizeof(payload));
	for (at = 4 + n; at + 4 <= size; at += 4) {
		const uint8_t *r = data + at;
		struct sim_pkt p = {
		    .kind = (enum sim_pkt_kind[]){SIM_PKT_ACK, SIM_PKT_NAK, SIM_PKT_READ_RESP,
		                                  SIM_PKT_ATOMIC_RESP}[r[0] & 3],
		    .src_node = PEER_NODE,
		    .src_qpn = PEER_QPN,
		    .dst_node = 1,
		    .dst_qpn = sim_qp_num(qp),
		    .psn = (psn0 + (uint32_t)(int32_t)(int16_t)((r[1] << 8) | r[2])) & 0xffffffu,
		    .syndrome = r[0] >> 2,
		    .rnr_timer = r[3] & 31,
		    .payload = payload,
		    .payload_len = (r[0] >> 2) % (sizeof(payload) + 1),
		};

		if (sim_dev_deliver(dev, &p))
			break;
		sim_dev_run(dev, 20000);
		check_cqes(cq, &ci, &last);
	}
	for (unsigned i = 0; i < PAGE; i++)
		if (arena[i] != 0x5a || arena[2 * PAGE + i] != 0x5a)
			abort(); /* written outside every registered region */
out:
	sim_dev_close(dev);
	free(arena);
	return 0;
}
