/* SPDX-License-Identifier: MIT */
/*
 * tests/rules/rules_ordering.c - NIC-model rules for ordering within and
 * between queues (section 3 of docs/nic-model.md): WAIT on a 0-based CQE
 * number, compared in 24 bits; wait-on-data; a WRITE passing an earlier
 * READ; a queue's requests executed in order at the responder; the fence.  One body per rule, on
 * every backend (rules.h).
 */
#include "tests/rules/rules.h"

/* rule wait-blocks-until-cqe-index: WAIT with index i holds its queue until
 * CQE number i (0-based) of the CQ exists: index 1 waits for the second CQE
 * (MLNX_OFED libmlx5 wait index starts at -1; PCX posts cmpl_cnt - 1) */
static void r_wait_blocks_until_cqe_index(struct rx *x)
{
	struct prism_wqe w;

	hx_wait(&w, x->cq_b.info.cqn, 1, false);
	rx_post(&x->a, &w);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)x->dst, x->dst_key, (uintptr_t)x->src, x->src_key,
	      8, true);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	assert_int_equal(x->dst[0], 0); /* no CQE yet: waiting */
	hx_nop(&w, true);
	rx_post(&x->b, &w);
	rx_ring(x, &x->b);
	RX_RUN(x);
	assert_int_equal(rx_count(&x->cq_b), 1);
	assert_int_equal(x->dst[0], 0); /* CQE number 0 exists, number 1 not yet */
	hx_nop(&w, true);
	rx_post(&x->b, &w);
	rx_ring(x, &x->b);
	RX_RUN(x);
	assert_memory_equal(x->dst, x->src, 8);
	assert_int_equal(rx_expect(x, &x->cq_a).opcode, PRISM_CQE_REQ);
	rx_probes(x, "3.3");
}

/* rule wait-index-24-bit: WAIT compares only 24 bits of its index */
static void r_wait_index_24_bit(struct rx *x)
{
	struct prism_wqe w;

	hx_nop(&w, true);
	rx_post(&x->b, &w);
	rx_ring(x, &x->b);
	hx_wait(&w, x->cq_b.info.cqn, 0x5000000, true); /* == 0 in 24 bits */
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	assert_int_equal(rx_expect(x, &x->cq_a).opcode, PRISM_CQE_REQ);
}

/* rule read-not-ordered-before-write: a WRITE posted after a READ on the
 * same queue may gather before the READ's data lands (RedN section 3.1:
 * writes may pass earlier non-writes) */
static void r_read_not_ordered_before_write(struct rx *x)
{
	struct prism_wqe w;

	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)x->src, x->src_key, (uintptr_t)x->dst, x->dst_key,
	      8, false);
	rx_post(&x->a, &w);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)x->dst + 512, x->dst_key, (uintptr_t)x->dst,
	      x->dst_key, 8, true);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	assert_memory_equal(x->dst, x->src, 8);
	assert_int_equal(x->dst[512], 0); /* the WRITE copied the old bytes */
}

/* rule responder-executes-in-order: one queue's requests are executed by the
 * responder in posting (PSN) order, so a later WRITE lands after an earlier
 * one and a later READ reads what an earlier WRITE placed, without a fence
 * (IBA ch. 9.5; the fence only holds WQEs behind READs and atomics) */
static void r_responder_executes_in_order(struct rx *x)
{
	struct prism_wqe w;

	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)x->dst + 256, x->dst_key, (uintptr_t)x->src,
	      x->src_key, 8, false);
	rx_post(&x->a, &w);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)x->dst + 256, x->dst_key, (uintptr_t)x->src + 8,
	      x->src_key, 8, false);
	rx_post(&x->a, &w);
	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)x->dst + 256, x->dst_key, (uintptr_t)x->dst + 512,
	      x->dst_key, 8, true);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	assert_int_equal(rx_expect(x, &x->cq_a).opcode, PRISM_CQE_REQ);
	assert_memory_equal(x->dst + 256, x->src + 8, 8); /* the second WRITE landed last */
	assert_memory_equal(x->dst + 512, x->src + 8, 8); /* the READ saw it */
}

/* rule fence-waits-for-read: a fenced WQE starts only after earlier READs
 * and atomics completed (mlx5dv.h MLX5_WQE_CTRL_FENCE) */
static void r_fence_waits_for_read(struct rx *x)
{
	struct prism_wqe w;

	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)x->src, x->src_key, (uintptr_t)x->dst, x->dst_key,
	      8, false);
	rx_post(&x->a, &w);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)x->dst + 512, x->dst_key, (uintptr_t)x->dst,
	      x->dst_key, 8, true);
	w.ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_SMALL_AND_FENCE, PRISM_CE_CQ_UPDATE, false);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	assert_memory_equal(x->dst + 512, x->src, 8);
}

/* rule wait-on-data: WAIT opmod 1 holds its queue until (mem & mask) meets
 * the condition against (value & mask); the word is big-endian (sim choice) */
static void r_wait_on_data(struct rx *x)
{
	struct prism_wqe w;

	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_CQE_WAIT;
	w.ctrl.opmod = PRISM_WAIT_ON_DATA;
	w.has_wod = true;
	w.wod.cond = PRISM_WOD_EQUAL;
	w.wod.lkey = x->dst_key;
	w.wod.addr = (uintptr_t)x->dst + 64;
	w.wod.value = 0x0000000000000700ull;
	w.wod.mask = 0x000000000000ff00ull;
	rx_post(&x->a, &w);
	hx_nop(&w, true);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	assert_int_equal(rx_count(&x->cq_a), 0);
	x->dst[64 + 6] = 0x07; /* the CPU writes the awaited value (big-endian) */
	x->dst[64 + 7] = 0x99; /* outside the mask */
	RX_RUN(x);
	assert_int_equal(rx_expect(x, &x->cq_a).opcode, PRISM_CQE_REQ);
}

static const struct rule rules[] = {
    RULE("3.1", "read-not-ordered-before-write", r_read_not_ordered_before_write,
         .needs = RULE_NEEDS_DETERM, .flags_a = RX_XC, .flags_b = RX_XC,
         .why_not = "a WRITE *may* pass an earlier READ: the sim always lets it (the worst "
                    "case), a NIC may or may not, so nothing can be asserted on one"),
    RULE("3.1a", "responder-executes-in-order", r_responder_executes_in_order, .flags_a = RX_XC,
         .flags_b = RX_XC),
    RULE("3.2", "fence-waits-for-read", r_fence_waits_for_read, .flags_a = RX_XC, .flags_b = RX_XC),
    RULE("3.3", "wait-blocks-until-cqe-index", r_wait_blocks_until_cqe_index, .fw = RULE_BOTH,
         .needs = RULE_NEEDS_XC, .flags_a = RX_XC, .flags_b = RX_XC),
    RULE("3.4", "wait-index-24-bit", r_wait_index_24_bit, .needs = RULE_NEEDS_XC, .flags_a = RX_XC,
         .flags_b = RX_XC),
    RULE("3.4a", "wait-on-data", r_wait_on_data, .needs = RULE_NEEDS_WOD, .flags_a = RX_XC,
         .flags_b = RX_XC),
};
RULE_TABLE(rules_ordering, rules);
