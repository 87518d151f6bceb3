/* SPDX-License-Identifier: MIT */
/*
 * tests/rules/rules_xc.c - NIC-model rules for cross-channel queues
 * (section 3 of docs/nic-model.md): managed send queues started by SEND_EN
 * (16-bit absolute index, past the doorbell record) or by a doorbell no
 * driver rings, the cross-channel role, recycling, RECV_EN, and patching a
 * managed queue's WQEs before its ENABLE.  One body per rule, on every
 * backend (rules.h); the behaviour probe's verdicts are checked with the
 * rule they report on.
 */
#include "sim/sim.h"
#include "tests/rules/rules.h"

/* rule managed-started-by-doorbell: a managed send queue nobody rang and
 * nothing enabled runs nothing; a host doorbell starts it like any queue
 * (DPDK crypto GGA rings its cd_slave_send QP); drivers never ring one */
static void r_managed_started_by_doorbell(struct rx *x)
{
	struct prism_wqe w;

	hx_nop(&w, true);
	rx_post(&x->b, &w);
	RX_RUN(x);
	assert_int_equal(rx_count(&x->cq_b), 0); /* posted, not started */
	rx_ring(x, &x->b);
	RX_RUN(x);
	assert_int_equal(rx_expect(x, &x->cq_b).opcode, PRISM_CQE_REQ);
	rx_probes(x, "3.5");
}

/* rule send-en-absolute-index: SEND_EN's index is an absolute 16-bit
 * producer count: WQEs below it run, the rest wait */
static void r_send_en_absolute_index(struct rx *x)
{
	struct prism_wqe w;

	for (int i = 0; i < 3; i++) {
		hx_nop(&w, true);
		rx_post(&x->b, &w);
	}
	hx_enable(&w, PRISM_OP_SEND_ENABLE, x->b.qpn, 0x10002, false); /* 2 in 16 bits */
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	assert_int_equal(rx_count(&x->cq_b), 2);
	hx_enable(&w, PRISM_OP_SEND_ENABLE, x->b.qpn, 3, false);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	assert_int_equal(rx_count(&x->cq_b), 3);
	rx_probes(x, "3.6");
}

/* rule enable-needs-cross-channel: SEND_EN on a QP created without the
 * cross-channel flag fails with a local QP operation error (sim choice:
 * only software checks are public); WAIT needs no role (DPDK Tx SQs) */
static void r_enable_needs_cross_channel(struct rx *x)
{
	struct prism_wqe w;
	struct prism_cqe c;

	hx_nop(&w, true);
	rx_post(&x->a, &w);
	hx_wait(&w, x->cq_a.info.cqn, 0, true);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	assert_int_equal(rx_expect(x, &x->cq_a).opcode, PRISM_CQE_REQ); /* the NOP */
	assert_int_equal(rx_expect(x, &x->cq_a).opcode, PRISM_CQE_REQ); /* the WAIT */
	hx_enable(&w, PRISM_OP_SEND_ENABLE, x->b.qpn, 1, true);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	c = rx_expect(x, &x->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
	rx_probes(x, "3.7");
}

/* rule send-en-past-doorbell-record: SEND_EN runs a managed queue up to its
 * index whatever the queue's doorbell record says (drivers never write a
 * managed queue's record: MLNX_OFED libmlx5 NO_DOORBELL, DPDK crypto GGA) */
static void r_send_en_past_doorbell_record(struct rx *x)
{
	struct prism_wqe w;

	for (int i = 0; i < 3; i++) {
		hx_nop(&w, true);
		rx_post(&x->b, &w);
	}
	x->b.info.dbrec[1] = 0; /* the record counts nothing */
	hx_enable(&w, PRISM_OP_SEND_ENABLE, x->b.qpn, 3, false);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	assert_int_equal(rx_count(&x->cq_b), 3);
	rx_probes(x, "3.8");
}

/* rule recycle-wraps-queue: an ENABLE past the posted WQEs re-executes the
 * ring (RedN section 3.4, WQ recycling) */
static void r_recycle_wraps_queue(struct rx *x)
{
	struct prism_wqe w;

	for (int i = 0; i < 64; i++) { /* fill the 64-BB ring */
		hx_nop(&w, i % 16 == 15);
		rx_post(&x->b, &w);
	}
	hx_enable(&w, PRISM_OP_SEND_ENABLE, x->b.qpn, 64 * 3, false);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	assert_int_equal(rx_count(&x->cq_b), 12); /* 3 laps x 4 signaled */
	/* still in RTS: a fourth lap runs too */
	hx_enable(&w, PRISM_OP_SEND_ENABLE, x->b.qpn, 64 * 4, false);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	assert_int_equal(rx_count(&x->cq_b), 16);
	for (int i = 0; i < 16; i++)
		assert_int_equal(rx_expect(x, &x->cq_b).opcode, PRISM_CQE_REQ);
}

/* rule recv-en-makes-receive-usable: a managed receive queue accepts a
 * SEND only after RECV_EN; until then the sender sees RNR */
static void r_recv_en_makes_receive_usable(struct rx *x)
{
	struct prism_sge sge = {.byte_count = 8, .lkey = x->dst_key, .addr = (uintptr_t)x->dst};
	struct prism_wqe w;
	struct rx_qp c;

	rx_post_recv(x, &x->b, &sge, 1);
	hx_send(&w, PRISM_OP_SEND, (uintptr_t)x->src, x->src_key, 8, true);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	assert_int_equal(x->dst[0], 0); /* RNR, retrying (rnr_retry 7) */
	assert_int_equal(rx_count(&x->cq_b), 0);
	/* a's queue is stalled behind the RNR'd SEND: enable from a third QP */
	rx_qp(x, &c, &x->cq_a, &x->cq_a, 4, 0, RX_XC);
	rx_pair(x, &c, &c);
	hx_enable(&w, PRISM_OP_RECV_ENABLE, x->b.qpn, 1, false);
	rx_post(&c, &w);
	rx_ring(x, &c);
	RX_RUN(x);
	assert_memory_equal(x->dst, x->src, 8);
	assert_int_equal(rx_expect(x, &x->cq_b).opcode, PRISM_CQE_RESP_SEND);
}

/* The software NIC saw no hazard (a NIC cannot say: nothing to ask). */
static void no_hazard(struct rx *x)
{
	struct sim_dev *s = rx_sim(x);

	if (s)
		assert_false(sim_dev_last_hazard(s, NULL));
}

/* rule managed-no-prefetch-before-enable: bytes of a managed queue may
 * change freely until the ENABLE runs (no hazard) */
static void r_managed_no_prefetch_before_enable(struct rx *x)
{
	struct prism_wqe w;
	uint8_t *opbyte = rx_post_patchable(x);

	*opbyte = PRISM_OP_RDMA_WRITE; /* host patch before any ENABLE */
	hx_enable(&w, PRISM_OP_SEND_ENABLE, x->b.qpn, 1, false);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	no_hazard(x);
	assert_memory_equal(x->dst + 256, x->src, 8);
}

/* rule doorbell-order-no-hazard: READ, WAIT on its completion, then
 * SEND_EN (doorbell order, RedN Fig. 2b): the patched WRITE runs */
static void r_doorbell_order_no_hazard(struct rx *x)
{
	struct prism_wqe w;
	uint8_t *opbyte = rx_post_patchable(x);

	rx_post_patch_read(x, opbyte);
	hx_wait(&w, x->cq_a.info.cqn, 0, false);
	rx_post(&x->a, &w);
	hx_enable(&w, PRISM_OP_SEND_ENABLE, x->b.qpn, 1, false);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	no_hazard(x);
	assert_int_equal(rx_expect(x, &x->cq_b).opcode, PRISM_CQE_REQ);
	assert_memory_equal(x->dst + 256, x->src, 8);
}

/* rule fence-orders-enable: READ, then a SEND_EN with the fence bit and no
 * WAIT (the compiler's fenced barrier): the fence holds the SEND_EN until the
 * READ landed, so the patched WRITE is fetched and runs with the new bytes */
static void r_fence_orders_enable(struct rx *x)
{
	struct prism_wqe w;
	uint8_t *opbyte = rx_post_patchable(x);

	rx_post_patch_read(x, opbyte);
	hx_enable(&w, PRISM_OP_SEND_ENABLE, x->b.qpn, 1, false);
	w.ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_SMALL_AND_FENCE, PRISM_CE_NONE, false);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	no_hazard(x);
	assert_int_equal(rx_expect(x, &x->cq_b).opcode, PRISM_CQE_REQ);
	assert_memory_equal(x->dst + 256, x->src, 8);
	rx_probes(x, "3.15a");
}

static const struct rule rules[] = {
    RULE("3.5", "managed-started-by-doorbell", r_managed_started_by_doorbell, .fw = RULE_BOTH,
         .needs = RULE_NEEDS_XC, .flags_a = RX_XC, .flags_b = RX_MANAGED),
    RULE("3.6", "send-en-absolute-index", r_send_en_absolute_index, .fw = RULE_BOTH,
         .needs = RULE_NEEDS_XC, .flags_a = RX_XC, .flags_b = RX_MANAGED),
    RULE("3.7", "enable-needs-cross-channel", r_enable_needs_cross_channel, .fw = RULE_BOTH,
         .needs = RULE_NEEDS_XC, .flags_b = RX_MANAGED),
    RULE("3.8", "send-en-past-doorbell-record", r_send_en_past_doorbell_record, .fw = RULE_BOTH,
         .needs = RULE_NEEDS_XC, .flags_a = RX_XC, .flags_b = RX_MANAGED),
    RULE("3.9", "recycle-wraps-queue", r_recycle_wraps_queue, .fw = RULE_RELAXED,
         .needs = RULE_NEEDS_XC, .flags_a = RX_XC, .flags_b = RX_MANAGED),
    RULE("3.10", "recv-en-makes-receive-usable", r_recv_en_makes_receive_usable,
         .needs = RULE_NEEDS_XC, .flags_a = RX_XC, .flags_b = CORE_QP_MANAGED_RECV),
    RULE("3.12", "managed-no-prefetch-before-enable", r_managed_no_prefetch_before_enable,
         .fw = RULE_BOTH, .needs = RULE_NEEDS_XC, .flags_a = RX_XC, .flags_b = RX_MANAGED),
    RULE("3.15", "doorbell-order-no-hazard", r_doorbell_order_no_hazard, .fw = RULE_BOTH,
         .needs = RULE_NEEDS_XC | RULE_HAZARD_FAIL, .flags_a = RX_XC, .flags_b = RX_MANAGED),
    RULE("3.15a", "fence-orders-enable", r_fence_orders_enable, .fw = RULE_BOTH,
         .needs = RULE_NEEDS_XC | RULE_HAZARD_FAIL, .flags_a = RX_XC, .flags_b = RX_MANAGED),
};
RULE_TABLE(rules_xc, rules);
