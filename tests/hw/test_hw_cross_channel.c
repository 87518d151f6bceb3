/* SPDX-License-Identifier: MIT */
/*
 * tests/hw/test_hw_cross_channel.c - NIC-model rules for cross-channel
 * (managed) queues on a real ConnectX: a managed send queue runs what SEND_EN
 * enabled (or, rung, what its doorbell says: the tests never ring one where
 * only SEND_EN should start it), WAIT holds a queue until CQE number `index`
 * (0-based) of a CQ exists, RECV_EN enables receive WQEs.  One test per rule
 * of docs/nic-model.md, named after the rule (hw_<rule>).
 *
 * Cross-channel QPs cannot be created through upstream verbs: rdma-core's
 * ibv_create_qp_ex and mlx5dv_create_qp reject the cross-channel creation
 * flags that MLNX_OFED's experimental verbs had.  The route is DEVX
 * (CREATE_QP with qpc.cd_master / cd_slave_send / cd_slave_receive, the WQ
 * and doorbell record in umem), which needs the HCA capability `cd`;
 * hw_devx_qp.c does it.  Each test first reports precisely which step is
 * missing on this machine (no device, not mlx5, no DEVX, cd = 0, a DEVX
 * command refused, with the firmware's status and syndrome), and skips.
 *
 * Owns: the capability probe of these tests.  Must not: leave a device
 * setting changed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests/hw/hw_common.h"

/* Skips unless the device can make cross-channel QPs, saying why. */
static struct hw_env *cc_start(void **state, const char *rule)
{
	struct hw_env *e = *state;
	struct hw_mlx5_caps caps;

	if (e->why[0])
		HW_SKIP("%s", e->why);
	if (!e->is_mlx5)
		HW_SKIP("%s needs an mlx5 device with cross-channel queues (%s is not mlx5)", rule,
		        e->name);
	if (hw_mlx5_query_caps(e, &caps))
		HW_SKIP("%s needs DEVX to create cross-channel QPs; %s: %s", rule, e->name,
		        e->devx ? "QUERY_HCA_CAP failed"
		                : "mlx5dv_open_device(MLX5DV_CONTEXT_FLAGS_DEVX) failed");
	if (!caps.cd)
		HW_SKIP("%s: %s reports no cross-channel support (cmd_hca_cap.cd = 0)", rule,
		        e->name);
	return hw_start(state, HW_NEED_RAW, NULL);
}

/* Connects @x and @y to each other (or @x to itself when they are one). */
static void cc_link(struct hw_env *e, struct hw_xqp *x, struct hw_xqp *y)
{
	char why[200];

	if (hw_xqp_connect(e, x, y->q.qpn, why, sizeof(why)) ||
	    (x != y && hw_xqp_connect(e, y, x->q.qpn, why, sizeof(why))))
		HW_SKIP("%s: cannot connect cross-channel QPs: %s", e->name, why);
}

/* WAIT until CQE number @index (0-based) of CQ @cqn exists. */
static void wait_wqe(struct prism_wqe *w, uint32_t cqn, uint32_t index, bool signaled)
{
	hw_nop(w, signaled);
	w->ctrl.opcode = PRISM_OP_CQE_WAIT;
	w->ctrl.opmod = PRISM_WAIT_CQ;
	w->wait_en.obj_num = cqn;
	w->wait_en.index = index;
}

static void enable_wqe(struct prism_wqe *w, uint8_t opcode, uint32_t qpn, uint32_t index,
                       bool signaled)
{
	hw_nop(w, signaled);
	w->ctrl.opcode = opcode;
	w->wait_en.obj_num = qpn;
	w->wait_en.index = index;
}

/* Posts and rings one ENABLE on the master @m. */
static void cc_enable(struct hw_xqp *m, uint8_t opcode, uint32_t qpn, uint32_t index)
{
	struct prism_wqe w;

	enable_wqe(&w, opcode, qpn, index, false);
	hw_post(&m->q, &w);
	hw_ring(&m->q);
}

/* A short look for a CQE that must not come; absence is all it asserts. */
#define QUIET_MS 50

/*
 * rule enable-needs-cross-channel: WAIT / SEND_EN on a QP created without the
 * cross-channel flag fail with a local QP operation error (0x02).  This one
 * needs no DEVX: an ordinary mlx5 QP is exactly such a QP; the SEND_EN's
 * bytes come from the codec.
 */
static void hw_enable_needs_cross_channel(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_RAW, NULL);
	struct prism_wqe w;
	struct prism_cqe c;

	enable_wqe(&w, PRISM_OP_SEND_ENABLE, e->b.qpn, 1, true);
	hw_post(&e->a, &w);
	hw_ring(&e->a);
	c = hw_expect(&e->a.scq);
	print_message("hw: %s: SEND_EN on a plain QP completed as %s %s\n", e->name,
	              prism_cqe_opcode_name(c.opcode), hw_synd_name(c.syndrome));
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
	assert_int_equal(hw_qp_state(&e->a), IBV_QPS_ERR);
}

/* rule managed-started-by-doorbell: a managed send queue nobody rang and
 * nothing enabled runs nothing; a host doorbell starts it (DPDK crypto GGA
 * rings its cd_slave_send QP) */
static void hw_managed_started_by_doorbell(void **state)
{
	struct hw_env *e = cc_start(state, "managed-started-by-doorbell");
	struct hw_xqp *m = hw_xqp_new(e, HW_XQP_MASTER);
	struct hw_xqp *s = hw_xqp_new(e, HW_XQP_MASTER | HW_XQP_MANAGED_SEND);
	struct prism_wqe w;
	struct prism_cqe c;
	uint32_t nop;

	cc_link(e, m, s);
	hw_nop(&w, true);
	nop = hw_post(&s->q, &w);
	assert_int_equal(hw_poll(&s->q.scq, &c, QUIET_MS), 0);
	/* not rung: a doorbell would start the managed queue (rule 3.5) */
	c = hw_expect(&s->q.scq);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_int_equal(c.wqe_counter, (uint16_t)nop);
}

/* rule wait-blocks-until-cqe-index: WAIT with index i holds its queue until
 * CQE number i (0-based) of the CQ exists: index 1 waits for the second CQE
 * of the plain pair's send CQ (MLNX_OFED libmlx5 wait index starts at -1) */
static void hw_wait_blocks_until_cqe_index(void **state)
{
	struct hw_env *e = cc_start(state, "wait-blocks-until-cqe-index");
	struct hw_xqp *m = hw_xqp_new(e, HW_XQP_MASTER);
	struct prism_wqe w;
	struct prism_cqe c;

	cc_link(e, m, m);
	wait_wqe(&w, e->a.scq.dv.cqn, 1, false);
	hw_post(&m->q, &w);
	hw_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst, e->dst_mr->rkey, (uintptr_t)e->src,
	      e->src_mr->lkey, 8, true);
	hw_post(&m->q, &w);
	hw_ring(&m->q);
	assert_int_equal(hw_poll(&m->q.scq, &c, QUIET_MS), 0);
	hw_nop(&w, true);
	hw_post(&e->a, &w);
	hw_ring(&e->a);
	assert_int_equal(hw_expect(&e->a.scq).opcode, PRISM_CQE_REQ);
	assert_int_equal(hw_poll(&m->q.scq, &c, QUIET_MS), 0); /* CQE number 0 only */
	assert_int_equal(e->dst[0], 0);
	hw_nop(&w, true);
	hw_post(&e->a, &w);
	hw_ring(&e->a);
	assert_int_equal(hw_expect(&e->a.scq).opcode, PRISM_CQE_REQ);
	assert_int_equal(hw_expect(&m->q.scq).opcode, PRISM_CQE_REQ);
	assert_memory_equal(e->dst, e->src, 8);
}

/* rule wait-index-24-bit: WAIT compares only 24 bits of its index */
static void hw_wait_index_24_bit(void **state)
{
	struct hw_env *e = cc_start(state, "wait-index-24-bit");
	struct hw_xqp *m = hw_xqp_new(e, HW_XQP_MASTER);
	struct prism_wqe w;

	cc_link(e, m, m);
	hw_nop(&w, true);
	hw_post(&e->a, &w);
	hw_ring(&e->a);
	assert_int_equal(hw_expect(&e->a.scq).opcode, PRISM_CQE_REQ);
	wait_wqe(&w, e->a.scq.dv.cqn, 0x5000000, true); /* == CQE number 0 in 24 bits */
	hw_post(&m->q, &w);
	hw_ring(&m->q);
	assert_int_equal(hw_expect(&m->q.scq).opcode, PRISM_CQE_REQ);
}

/*
 * rule wait-on-data: WAIT opmod 1 holds its queue until the masked 8-byte
 * word meets the condition.  Needs the wait_on_data capability (ConnectX-6
 * Dx and later).  The sim compares the word big-endian; this test writes the
 * awaited value in that order and first checks that a byte outside the mask
 * does not release the queue, so a NIC that reads the word in another order
 * fails here (and says so) instead of passing by luck.
 */
static void hw_wait_on_data(void **state)
{
	struct hw_env *e = cc_start(state, "wait-on-data");
	struct hw_mlx5_caps caps;
	struct hw_xqp *m;
	struct prism_wqe w;
	struct prism_cqe c;
	volatile uint8_t *word = e->dst + 64;

	if (hw_mlx5_query_caps(e, &caps) || !caps.wait_on_data)
		HW_SKIP("wait-on-data: %s reports no wait_on_data capability", e->name);
	m = hw_xqp_new(e, HW_XQP_MASTER);
	cc_link(e, m, m);
	memset(e->dst, 0, 128);
	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_CQE_WAIT;
	w.ctrl.opmod = PRISM_WAIT_ON_DATA;
	w.has_wod = true;
	w.wod.cond = PRISM_WOD_EQUAL;
	w.wod.lkey = e->dst_mr->lkey;
	w.wod.addr = (uintptr_t)word;
	w.wod.value = 0x0000000000000700ull;
	w.wod.mask = 0x000000000000ff00ull;
	hw_post(&m->q, &w);
	hw_nop(&w, true);
	hw_post(&m->q, &w);
	hw_ring(&m->q);
	assert_int_equal(hw_poll(&m->q.scq, &c, QUIET_MS), 0); /* 0 != 7: holds */
	word[7] = 0x07;                                        /* outside the mask */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	assert_int_equal(hw_poll(&m->q.scq, &c, QUIET_MS), 0);
	word[6] = 0x07; /* the awaited value, big-endian */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	c = hw_expect(&m->q.scq);
	print_message("hw: %s: wait-on-data released as %s %s\n", e->name,
	              prism_cqe_opcode_name(c.opcode), hw_synd_name(c.syndrome));
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
}

/* rule send-en-absolute-index: SEND_EN's index is an absolute 16-bit
 * producer count: WQEs below it run, the rest wait */
static void hw_send_en_absolute_index(void **state)
{
	struct hw_env *e = cc_start(state, "send-en-absolute-index");
	struct hw_xqp *m = hw_xqp_new(e, HW_XQP_MASTER);
	struct hw_xqp *s = hw_xqp_new(e, HW_XQP_MASTER | HW_XQP_MANAGED_SEND);
	struct prism_wqe w;
	struct prism_cqe c;

	cc_link(e, m, s);
	for (int i = 0; i < 3; i++) {
		hw_nop(&w, true);
		hw_post(&s->q, &w);
	}
	/* not rung: a doorbell would start the managed queue (rule 3.5) */
	cc_enable(m, PRISM_OP_SEND_ENABLE, s->q.qpn, 0x10002); /* 2 in 16 bits */
	assert_int_equal(hw_expect(&s->q.scq).wqe_counter, 0);
	assert_int_equal(hw_expect(&s->q.scq).wqe_counter, 1);
	assert_int_equal(hw_poll(&s->q.scq, &c, QUIET_MS), 0);
	cc_enable(m, PRISM_OP_SEND_ENABLE, s->q.qpn, 3);
	assert_int_equal(hw_expect(&s->q.scq).wqe_counter, 2);
}

/* rule send-en-past-doorbell-record: SEND_EN runs a managed queue up to its
 * index whatever the queue's doorbell record says (MLNX_OFED libmlx5 never
 * writes a managed queue's record; DPDK leaves it stale) */
static void hw_send_en_past_doorbell_record(void **state)
{
	struct hw_env *e = cc_start(state, "send-en-past-doorbell-record");
	struct hw_xqp *m = hw_xqp_new(e, HW_XQP_MASTER);
	struct hw_xqp *s = hw_xqp_new(e, HW_XQP_MASTER | HW_XQP_MANAGED_SEND);
	struct prism_wqe w;
	struct prism_cqe c;

	cc_link(e, m, s);
	for (int i = 0; i < 2; i++) {
		hw_nop(&w, true);
		hw_post(&s->q, &w);
	}
	s->q.dv.dbrec[MLX5_SND_DBR] = 0; /* the record counts nothing */
	cc_enable(m, PRISM_OP_SEND_ENABLE, s->q.qpn, 2);
	assert_int_equal(hw_expect(&s->q.scq).wqe_counter, 0);
	assert_int_equal(hw_expect(&s->q.scq).wqe_counter, 1);
	assert_int_equal(hw_poll(&s->q.scq, &c, QUIET_MS), 0);
}

/*
 * IGNORE_SQ_OVERFLOW is not a NIC setting: in MLNX_OFED's libmlx5 (and
 * libmlx4) it only turns off post_send's own ring-overflow check
 * (mlx5_wq_overflow); no qpc field exists for it.  The raw path has no such
 * check, so the recycling rules need nothing but a managed queue: the ring
 * is filled once and SEND_EN runs it for more laps.  The second lap runs
 * WQEs whose control-segment index is stale, so the firmware profile
 * decides which of the two rules the device can show.
 */
static struct hw_env *recycle_start(void **state, const char *rule, bool want_relaxed)
{
	struct hw_env *e = cc_start(state, rule);

	if (want_relaxed && !e->relaxed_fw)
		HW_SKIP("%s: the second lap runs WQEs with stale control-segment indices, which "
		        "only relaxed firmware accepts (firmware-config/prism-fw relax, then "
		        "PRISM_HW_FW=relaxed)",
		        rule);
	if (!want_relaxed && e->relaxed_fw)
		HW_SKIP("%s: needs stock (strict) firmware; PRISM_HW_FW=relaxed", rule);
	return e;
}

/* rule recycle-wraps-queue: an ENABLE past the posted WQEs re-executes the
 * ring (RedN section 3.4, WQ recycling): 64 NOPs fill the 64-BB ring, every
 * 16th signaled; SEND_EN 192 runs three laps: 12 CQEs, no error */
static void hw_recycle_wraps_queue(void **state)
{
	struct hw_env *e = recycle_start(state, "recycle-wraps-queue", true);
	struct hw_xqp *m = hw_xqp_new(e, HW_XQP_MASTER);
	struct hw_xqp *s = hw_xqp_new(e, HW_XQP_MASTER | HW_XQP_MANAGED_SEND);
	struct prism_wqe w;
	struct prism_cqe c;

	cc_link(e, m, s);
	assert_int_equal(s->q.dv.sq.wqe_cnt, 64);
	for (int i = 0; i < 64; i++) {
		hw_nop(&w, i % 16 == 15);
		hw_post(&s->q, &w);
	}
	/* not rung: a doorbell would start the managed queue (rule 3.5) */
	cc_enable(m, PRISM_OP_SEND_ENABLE, s->q.qpn, 64 * 3);
	for (int i = 0; i < 12; i++) {
		c = hw_expect(&s->q.scq);
		if (c.opcode != PRISM_CQE_REQ)
			fail_msg("lap %d: %s %s", i / 4 + 1, prism_cqe_opcode_name(c.opcode),
			         hw_synd_name(c.syndrome));
	}
	assert_int_equal(hw_poll(&s->q.scq, &c, QUIET_MS), 0);
}

/* rule strict-firmware-rejects-recycling: under stock firmware the second
 * lap's WQE index no longer matches: local QP operation error at counter 64 */
static void hw_strict_firmware_rejects_recycling(void **state)
{
	struct hw_env *e = recycle_start(state, "strict-firmware-rejects-recycling", false);
	struct hw_xqp *m = hw_xqp_new(e, HW_XQP_MASTER);
	struct hw_xqp *s = hw_xqp_new(e, HW_XQP_MASTER | HW_XQP_MANAGED_SEND);
	struct prism_wqe w;
	struct prism_cqe c;

	cc_link(e, m, s);
	assert_int_equal(s->q.dv.sq.wqe_cnt, 64);
	for (int i = 0; i < 64; i++) {
		hw_nop(&w, false);
		hw_post(&s->q, &w);
	}
	/* not rung: a doorbell would start the managed queue (rule 3.5) */
	cc_enable(m, PRISM_OP_SEND_ENABLE, s->q.qpn, 65);
	c = hw_expect(&s->q.scq);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
	assert_int_equal(c.wqe_counter, 64);
}

/* rule recv-en-makes-receive-usable: a managed receive queue accepts a SEND
 * only after RECV_EN; until then the sender sees RNR (and retries) */
static void hw_recv_en_makes_receive_usable(void **state)
{
	struct hw_env *e = cc_start(state, "recv-en-makes-receive-usable");
	struct hw_xqp *a = hw_xqp_new(e, HW_XQP_MASTER);
	struct hw_xqp *b = hw_xqp_new(e, HW_XQP_MASTER | HW_XQP_MANAGED_RECV);
	struct hw_xqp *c = hw_xqp_new(e, HW_XQP_MASTER);
	struct prism_sge sge = {
	    .byte_count = 8, .lkey = e->dst_mr->lkey, .addr = (uintptr_t)e->dst};
	struct prism_wqe w;
	struct prism_cqe cqe;

	cc_link(e, a, b);
	cc_link(e, c, c);
	hw_post_recv(&b->q, &sge, 1);
	hw_send(&w, PRISM_OP_SEND, (uintptr_t)e->src, e->src_mr->lkey, 8, true);
	hw_post(&a->q, &w);
	hw_ring(&a->q);
	assert_int_equal(hw_poll(&b->q.rcq, &cqe, QUIET_MS), 0);
	assert_int_equal(e->dst[0], 0); /* RNR, retrying (rnr_retry 7) */
	/* a's queue is stalled behind the RNR'd SEND: enable from a third QP */
	cc_enable(c, PRISM_OP_RECV_ENABLE, b->q.qpn, 1);
	cqe = hw_expect(&b->q.rcq);
	assert_int_equal(cqe.opcode, PRISM_CQE_RESP_SEND);
	assert_memory_equal(e->dst, e->src, 8);
	assert_int_equal(hw_expect(&a->q.scq).opcode, PRISM_CQE_REQ);
}

/* rule managed-no-prefetch-before-enable: bytes of a managed queue may
 * change freely until the ENABLE runs: a WRITE posted and rung as a NOP
 * (its opcode byte cleared), then patched back by the host before the
 * SEND_EN, runs as the WRITE */
static void hw_managed_no_prefetch_before_enable(void **state)
{
	struct hw_env *e = cc_start(state, "managed-no-prefetch-before-enable");
	struct hw_xqp *m = hw_xqp_new(e, HW_XQP_MASTER);
	struct hw_xqp *s = hw_xqp_new(e, HW_XQP_MASTER | HW_XQP_MANAGED_SEND);
	uint32_t off = 0, len = 0;
	struct prism_wqe w;
	uint8_t *slot;

	cc_link(e, m, s);
	hw_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst + 256, e->dst_mr->rkey, (uintptr_t)e->src,
	      e->src_mr->lkey, 8, true);
	slot = hw_sq_slot(&s->q, hw_post(&s->q, &w));
	assert_int_equal(prism_wqe_field_offset(&w, PRISM_FIELD_CTRL_OPCODE, &off, &len), 0);
	slot[off] = PRISM_OP_NOP; /* what the queue holds when its doorbell rings */
	/* not rung: a doorbell would start the managed queue (rule 3.5) */
	slot[off] = PRISM_OP_RDMA_WRITE; /* host patch before any ENABLE */
	cc_enable(m, PRISM_OP_SEND_ENABLE, s->q.qpn, 1);
	assert_int_equal(hw_expect(&s->q.scq).opcode, PRISM_CQE_REQ);
	assert_memory_equal(e->dst + 256, e->src, 8);
}

/*
 * A WRITE on a managed queue is rung with its opcode byte set to NOP; the
 * master READs the WRITE opcode into that byte (the send queue is
 * registered, as RedN registers its queues), then enables the queue, either
 * behind a WAIT for the READ's CQE (`fenced` false) or with the fence bit on
 * the SEND_EN and no WAIT (`fenced` true).  Either way the WQE that the READ
 * patched must run with the new bytes.
 */
static void patched_write_runs(void **state, const char *rule, bool fenced)
{
	struct hw_env *e = cc_start(state, rule);
	struct hw_xqp *m = hw_xqp_new(e, HW_XQP_MASTER);
	struct hw_xqp *s = hw_xqp_new(e, HW_XQP_MASTER | HW_XQP_MANAGED_SEND);
	struct ibv_mr *sq_mr = hw_register_sq(&s->q);
	uint32_t off = 0, len = 0;
	struct prism_wqe w;
	uint8_t *slot;

	cc_link(e, m, s);
	hw_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst + 256, e->dst_mr->rkey, (uintptr_t)e->src,
	      e->src_mr->lkey, 8, true);
	slot = hw_sq_slot(&s->q, hw_post(&s->q, &w));
	assert_int_equal(prism_wqe_field_offset(&w, PRISM_FIELD_CTRL_OPCODE, &off, &len), 0);
	slot[off] = PRISM_OP_NOP;
	/* not rung: a doorbell would start the managed queue (rule 3.5) */
	e->src[2048] = PRISM_OP_RDMA_WRITE;
	hw_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)e->src + 2048, e->src_mr->rkey,
	      (uintptr_t)slot + off, sq_mr->lkey, 1, true);
	hw_post(&m->q, &w);
	if (!fenced) {
		wait_wqe(&w, m->q.scq.dv.cqn, 0, false); /* CQE number 0: the READ */
		hw_post(&m->q, &w);
	}
	enable_wqe(&w, PRISM_OP_SEND_ENABLE, s->q.qpn, 1, false);
	if (fenced)
		w.ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_SMALL_AND_FENCE, PRISM_CE_NONE, false);
	hw_post(&m->q, &w);
	hw_ring(&m->q);
	assert_int_equal(hw_expect(&m->q.scq).opcode, PRISM_CQE_REQ); /* the READ */
	assert_int_equal(hw_expect(&s->q.scq).opcode, PRISM_CQE_REQ);
	assert_int_equal(slot[off], PRISM_OP_RDMA_WRITE);
	assert_memory_equal(e->dst + 256, e->src, 8);
}

/* rule doorbell-order-no-hazard: READ, WAIT on its completion, then SEND_EN
 * (doorbell order, RedN Fig. 2b) */
static void hw_doorbell_order_no_hazard(void **state)
{
	patched_write_runs(state, "doorbell-order-no-hazard", false);
}

/* rule fence-orders-enable: READ, then a fenced SEND_EN with no WAIT (the
 * barrier prismc emits when every writer is a READ/atomic of the enabling
 * queue) */
static void hw_fence_orders_enable(void **state)
{
	patched_write_runs(state, "fence-orders-enable", true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(hw_enable_needs_cross_channel, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_managed_started_by_doorbell, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_wait_blocks_until_cqe_index, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_wait_index_24_bit, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_wait_on_data, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_send_en_absolute_index, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_send_en_past_doorbell_record, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_recycle_wraps_queue, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_strict_firmware_rejects_recycling, hw_setup,
	                                    hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_recv_en_makes_receive_usable, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_managed_no_prefetch_before_enable, hw_setup,
	                                    hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_doorbell_order_no_hazard, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_fence_orders_enable, hw_setup, hw_teardown),
	};

	return cmocka_run_group_tests_name("test_hw_cross_channel", tests, NULL, NULL);
}
