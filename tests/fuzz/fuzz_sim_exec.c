/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_sim_exec.c - libFuzzer target: random WQE bytes executed
 * by the software RNIC.
 *
 * Input: byte 0 configures the device (bit 0 relaxed firmware, bits 1-2
 * hazard policy mod 3, bit 3 chaos, bit 4 random scheduler, bits 5-7 seed),
 * byte 1 a's RNR retry count (bits 0-2) and send producer counter (bits
 * 3-7), byte 2 b's receive (bits 0-2) and send (bits 3-7) producer
 * counters, then raw bytes for a's send queue (16 BBs), b's managed send
 * queue (8 BBs) and b's receive queue (4 WQEs of 4 data segments).  WQEs
 * the codec can decode get their addresses and keys relocated into a
 * registered page when the input asks for it (an address whose top byte is 0xAA:
 * arena + low 12 bits; a key whose top byte is 0xAA: its low bit picks the queue
 * memory key, else the arena's), their control segment's QPN when it is
 * 0xAAAAAA (the queue's own), and a WAIT's CQN or an ENABLE's QPN when it
 * is 0xAAAAAA (the CQ; b, the managed queue), and are re-encoded through
 * the codec; the rest stay raw.
 *
 * Seeds (tests/fuzz/seeds/fuzz_sim_exec/), each a valid run: write_read (a
 * WRITE and a READ back into the page), atomics (CAS, FETCH_ADD and an
 * 8-byte masked CAS on one word), send_recv (a SEND into b's posted
 * receive), enable_wait (a signalled WRITE, a WAIT for its CQE, then a
 * SEND_EN of b's WRITE: a RedN step), and enable_wait_chaos (the same with
 * relaxed firmware, chaos and the random scheduler).
 *
 * Checks: nothing crashes (ASan/UBSan), the run ends within its step
 * budget, and the unregistered guard pages around the registered page are
 * never written.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

#define PAGE 4096u

struct rig {
	uint8_t *arena; /* guard | registered page | guard */
	uint32_t key, qkey;
	uint32_t cqn, b_qpn; /* what a WAIT and an ENABLE of 0xAAAAAA name */
};

static void relocate_addr(const struct rig *r, uint64_t *a)
{
	if ((*a >> 56) == 0xAA)
		*a = (uint64_t)(uintptr_t)(r->arena + PAGE) + (*a & (PAGE - 1));
}

static void relocate_key(const struct rig *r, uint32_t *k)
{
	if ((*k >> 24) == 0xAA)
		*k = (*k & 1) ? r->qkey : r->key;
}

/* Copies @n raw BBs into @sq, relocating WQEs the codec can decode. */
static void load_queue(const struct rig *r, uint8_t *sq, unsigned nbb, const uint8_t *in,
                       size_t len, uint32_t qpn)
{
	struct prism_wqe w;
	unsigned bb = 0;

	memset(sq, 0, (size_t)nbb * 64);
	memcpy(sq, in, len < (size_t)nbb * 64 ? len : (size_t)nbb * 64);
	while (bb < nbb) {
		uint8_t *p = sq + (size_t)bb * 64;
		int rc = prism_wqe_decode(p, (size_t)(nbb - bb) * 64, &w, NULL);
		unsigned used;

		if (rc <= 0) {
			bb++;
			continue;
		}
		used = prism_wqe_bbs((unsigned)rc / 16);
		if (w.has_raddr) {
			relocate_addr(r, &w.raddr.raddr);
			relocate_key(r, &w.raddr.rkey);
		}
		for (unsigned i = 0; i < w.num_sge; i++) {
			relocate_addr(r, &w.sge[i].addr);
			relocate_key(r, &w.sge[i].lkey);
		}
		if (w.has_wod) {
			relocate_addr(r, &w.wod.addr);
			relocate_key(r, &w.wod.lkey);
		}
		if (w.ctrl.qpn == 0xAAAAAA)
			w.ctrl.qpn = qpn;
		if (w.has_wait_en && w.wait_en.obj_num == 0xAAAAAA)
			w.wait_en.obj_num = w.ctrl.opcode == PRISM_OP_CQE_WAIT ? r->cqn : r->b_qpn;
		prism_wqe_encode(&w, p, (size_t)(nbb - bb) * 64, NULL);
		bb += used;
	}
}

/* Copies raw receive WQEs into @rq, relocating the data segments of those
 * the codec can decode. */
static void load_rq(const struct rig *r, uint8_t *rq, unsigned n, unsigned stride,
                    const uint8_t *in, size_t len)
{
	struct prism_sge sge[16];

	memcpy(rq, in, len < (size_t)n * stride ? len : (size_t)n * stride);
	for (unsigned i = 0; i < n; i++) {
		uint8_t *p = rq + (size_t)i * stride;
		int got = prism_rwqe_decode(p, stride / 16, sge, 16, NULL);

		if (got <= 0)
			continue;
		for (int j = 0; j < got; j++) {
			relocate_addr(r, &sge[j].addr);
			relocate_key(r, &sge[j].lkey);
		}
		prism_rwqe_encode(sge, (unsigned)got, p, stride / 16, NULL);
	}
}

static void set_dbrec(struct sim_qp *qp, unsigned word, uint32_t v)
{
	__atomic_store_n(&sim_qp_dbrec(qp)[word], __builtin_bswap32(v & 0xffff), __ATOMIC_RELEASE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_dev_opts o = {.sz = sizeof(o)};
	struct sim_dev *dev;
	struct sim_cq *cq;
	struct sim_qp *a, *b;
	struct sim_mr *mr, *qmr;
	struct rig r;
	struct sim_cq_attr ca = {.ncqe = 64, .ignore_overrun = true};
	struct sim_qp_attr qa = {
	    .access = SIM_ACCESS_REMOTE_ALL, .sq_bbs = 16, .rq_wqes = 4, .rq_max_sge = 4};
	struct sim_qp_attr qb = {
	    .access = SIM_ACCESS_REMOTE_ALL, .sq_bbs = 8, .rq_wqes = 4, .rq_max_sge = 4};
	struct sim_qp_mod m = {0};
	const uint8_t *p;
	size_t left;

	if (size < 3)
		return 0;
	o.fw = (data[0] & 1) ? SIM_FW_RELAXED : SIM_FW_STRICT;
	o.hazard = (enum sim_hazard_policy)((data[0] >> 1) % 3);
	o.chaos = data[0] & 8;
	o.sched = (data[0] & 16) ? SIM_SCHED_RANDOM : SIM_SCHED_VTIME;
	o.seed = data[0] >> 5;
	o.prefetch_bbs = 4;
	if (sim_dev_open(&o, &dev))
		return 0;
	r.arena = aligned_alloc(PAGE, 3 * PAGE);
	memset(r.arena, 0x5a, 3 * PAGE);
	sim_mr_reg(dev, r.arena + PAGE, PAGE,
	           SIM_ACCESS_LOCAL_WRITE | SIM_ACCESS_REMOTE_WRITE | SIM_ACCESS_REMOTE_READ |
	               SIM_ACCESS_REMOTE_ATOMIC,
	           &mr);
	r.key = sim_mr_lkey(mr);
	sim_cq_create(dev, &ca, &cq);
	qa.send_cq = qa.recv_cq = qb.send_cq = qb.recv_cq = cq;
	qa.flags = SIM_QP_CROSS_CHANNEL;
	qb.flags = SIM_QP_CROSS_CHANNEL | SIM_QP_MANAGED_SEND;
	if (sim_qp_create(dev, &qa, &a) || sim_qp_create(dev, &qb, &b))
		goto out;
	sim_mr_reg(dev, sim_qp_buf(b), sim_qp_buf_len(b),
	           SIM_ACCESS_LOCAL_WRITE | SIM_ACCESS_REMOTE_WRITE | SIM_ACCESS_REMOTE_READ |
	               SIM_ACCESS_REMOTE_ATOMIC,
	           &qmr);
	r.qkey = sim_mr_lkey(qmr);
	r.cqn = sim_cq_num(cq);
	r.b_qpn = sim_qp_num(b);
	p = data + 3;
	left = size - 3;
	load_queue(&r, sim_qp_sq(a), 16, p, left, sim_qp_num(a));
	p += left < 1024 ? left : 1024;
	left -= left < 1024 ? left : 1024;
	load_queue(&r, sim_qp_sq(b), 8, p, left, sim_qp_num(b));
	p += left < 512 ? left : 512;
	left -= left < 512 ? left : 512;
	load_rq(&r, sim_qp_buf(b), 4, sim_qp_rq_stride(b), p, left);
	for (int i = 0; i < 2; i++) {
		struct sim_qp *q = i ? b : a;

		m = (struct sim_qp_mod){.state = SIM_QPS_INIT};
		sim_qp_modify(q, &m);
		m.state = SIM_QPS_RTR;
		m.peer_qpn = sim_qp_num(i ? a : b);
		sim_qp_modify(q, &m);
		m.state = SIM_QPS_RTS;
		m.rnr_retry = data[1] & 7;
		sim_qp_modify(q, &m);
	}
	set_dbrec(b, 0, data[2] & 7);
	set_dbrec(b, 1, data[2] >> 3);
	set_dbrec(a, 1, data[1] >> 3);
	sim_qp_ring_rq_doorbell(b);
	sim_qp_ring_sq_doorbell(a);
	sim_qp_ring_sq_doorbell(b);
	sim_dev_run(dev, 20000);
	for (unsigned i = 0; i < PAGE; i++)
		if (r.arena[i] != 0x5a || r.arena[2 * PAGE + i] != 0x5a)
			abort(); /* the engine wrote outside every registered region */
out:
	sim_dev_close(dev);
	free(r.arena);
	return 0;
}
