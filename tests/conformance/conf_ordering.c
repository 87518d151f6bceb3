/* SPDX-License-Identifier: MIT */
/*
 * tests/conformance/conf_ordering.c - NIC-model rules for ordering: WAIT on
 * a 0-based CQE number (24-bit), fences, READ vs later WRITE, managed queues
 * (started by SEND_EN / RECV_EN, 16-bit absolute indices, or by a doorbell
 * no driver rings), recycling.  One test per rule, named after it.
 */
#include "tests/conformance/conf_env.h"

#define XC      SIM_QP_CROSS_CHANNEL
#define MANAGED (SIM_QP_CROSS_CHANNEL | SIM_QP_MANAGED_SEND)

static int setup_xc(void **state)
{
	*state = env_make(SIM_FW_STRICT, SIM_HAZARD_WARN, false, XC, XC);
	return 0;
}

static int setup_managed_b(void **state)
{
	*state = env_make(SIM_FW_RELAXED, SIM_HAZARD_FAIL, false, XC, MANAGED);
	return 0;
}

static int setup_recycle_b_strict(void **state)
{
	*state = env_make(SIM_FW_STRICT, SIM_HAZARD_FAIL, false, XC, MANAGED);
	return 0;
}

/* rule wait-blocks-until-cqe-index: WAIT with index i holds its queue until
 * CQE number i (0-based) of the CQ exists: index 1 waits for the second CQE
 * (MLNX_OFED libmlx5 wait index starts at -1; PCX posts cmpl_cnt - 1) */
static void test_wait_blocks_until_cqe_index(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;

	hx_wait(&w, sim_cq_num(e->cq_b.cq), 1, false);
	hx_post(&e->a, &w);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst, e->dst_key, (uintptr_t)e->src, e->src_key,
	      8, true);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(e->dst[0], 0); /* no CQE yet: waiting */
	hx_nop(&w, true);
	hx_post(&e->b, &w);
	hx_ring(&e->b);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(sim_cq_count(e->cq_b.cq), 1);
	assert_int_equal(e->dst[0], 0); /* CQE number 0 exists, number 1 not yet */
	hx_nop(&w, true);
	hx_post(&e->b, &w);
	hx_ring(&e->b);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_memory_equal(e->dst, e->src, 8);
	assert_int_equal(hx_expect(&e->cq_a).opcode, PRISM_CQE_REQ);
}

/* rule wait-index-24-bit: WAIT compares only 24 bits of its index */
static void test_wait_index_24_bit(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;

	hx_nop(&w, true);
	hx_post(&e->b, &w);
	hx_ring(&e->b);
	hx_wait(&w, sim_cq_num(e->cq_b.cq), 0x5000000, true); /* == 0 in 24 bits */
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(hx_expect(&e->cq_a).opcode, PRISM_CQE_REQ);
}

/* rule read-not-ordered-before-write: a WRITE posted after a READ on the
 * same queue may gather before the READ's data lands (RedN section 3.1:
 * writes may pass earlier non-writes) */
static void test_read_not_ordered_before_write(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;

	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)e->src, e->src_key, (uintptr_t)e->dst, e->dst_key,
	      8, false);
	hx_post(&e->a, &w);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst + 512, e->dst_key, (uintptr_t)e->dst,
	      e->dst_key, 8, true);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_memory_equal(e->dst, e->src, 8);
	assert_int_equal(e->dst[512], 0); /* the WRITE copied the old bytes */
}

/* rule fence-waits-for-read: a fenced WQE starts only after earlier READs
 * and atomics completed (mlx5dv.h MLX5_WQE_CTRL_FENCE) */
static void test_fence_waits_for_read(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;

	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)e->src, e->src_key, (uintptr_t)e->dst, e->dst_key,
	      8, false);
	hx_post(&e->a, &w);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst + 512, e->dst_key, (uintptr_t)e->dst,
	      e->dst_key, 8, true);
	w.ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_SMALL_AND_FENCE, PRISM_CE_CQ_UPDATE, false);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_memory_equal(e->dst + 512, e->src, 8);
}

/* rule managed-started-by-doorbell: a managed send queue nobody rang and
 * nothing enabled runs nothing; a host doorbell starts it like any queue
 * (DPDK crypto GGA rings its cd_slave_send QP); drivers never ring one */
static void test_managed_started_by_doorbell(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;

	hx_nop(&w, true);
	hx_post(&e->b, &w);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(sim_cq_count(e->cq_b.cq), 0); /* posted, not started */
	hx_ring(&e->b);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(hx_expect(&e->cq_b).opcode, PRISM_CQE_REQ);
}

/* rule send-en-absolute-index: SEND_EN's index is an absolute 16-bit
 * producer count: WQEs below it run, the rest wait */
static void test_send_en_absolute_index(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;

	for (int i = 0; i < 3; i++) {
		hx_nop(&w, true);
		hx_post(&e->b, &w);
	}
	hx_enable(&w, PRISM_OP_SEND_ENABLE, e->b.qpn, 0x10002, false); /* 2 in 16 bits */
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(sim_cq_count(e->cq_b.cq), 2);
	hx_enable(&w, PRISM_OP_SEND_ENABLE, e->b.qpn, 3, false);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(sim_cq_count(e->cq_b.cq), 3);
}

/* rule enable-needs-cross-channel: SEND_EN on a QP created without the
 * cross-channel flag fails with a local QP operation error (sim choice:
 * only software checks are public); WAIT needs no role (DPDK Tx SQs) */
static void test_enable_needs_cross_channel(void **state)
{
	struct env *e = env_make(SIM_FW_STRICT, SIM_HAZARD_WARN, false, 0, MANAGED);
	struct prism_wqe w;
	struct prism_cqe c;

	hx_nop(&w, true);
	hx_post(&e->a, &w);
	hx_wait(&w, sim_cq_num(e->cq_a.cq), 0, true);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(hx_expect(&e->cq_a).opcode, PRISM_CQE_REQ); /* the NOP */
	assert_int_equal(hx_expect(&e->cq_a).opcode, PRISM_CQE_REQ); /* the WAIT */
	hx_enable(&w, PRISM_OP_SEND_ENABLE, e->b.qpn, 1, true);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	c = hx_expect(&e->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
	env_free(e);
	(void)state;
}

/* rule send-en-past-doorbell-record: SEND_EN runs a managed queue up to its
 * index whatever the queue's doorbell record says (drivers never write a
 * managed queue's record: MLNX_OFED libmlx5 NO_DOORBELL, DPDK crypto GGA) */
static void test_send_en_past_doorbell_record(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;

	for (int i = 0; i < 3; i++) {
		hx_nop(&w, true);
		hx_post(&e->b, &w);
	}
	sim_qp_dbrec(e->b.qp)[1] = 0; /* the record counts nothing */
	hx_enable(&w, PRISM_OP_SEND_ENABLE, e->b.qpn, 3, false);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(sim_cq_count(e->cq_b.cq), 3);
}

/* rule recycle-wraps-queue: an ENABLE past the posted WQEs re-executes the
 * ring (RedN section 3.4, WQ recycling) */
static void test_recycle_wraps_queue(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;

	for (int i = 0; i < 64; i++) { /* fill the 64-BB ring */
		hx_nop(&w, i % 16 == 15);
		hx_post(&e->b, &w);
	}
	hx_enable(&w, PRISM_OP_SEND_ENABLE, e->b.qpn, 64 * 3, false);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(sim_cq_count(e->cq_b.cq), 12); /* 3 laps x 4 signaled */
	assert_int_equal(sim_qp_state(e->b.qp), SIM_QPS_RTS);
}

/* rule strict-firmware-rejects-recycling: under the strict profile the
 * second lap's WQE index no longer matches: local QP operation error */
static void test_strict_firmware_rejects_recycling(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	struct prism_cqe c;

	for (int i = 0; i < 64; i++) {
		hx_nop(&w, false);
		hx_post(&e->b, &w);
	}
	hx_enable(&w, PRISM_OP_SEND_ENABLE, e->b.qpn, 65, false);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	c = hx_expect(&e->cq_b);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
	assert_int_equal(c.wqe_counter, 64);
	assert_int_equal(sim_qp_state(e->b.qp), SIM_QPS_ERR);
}

/* rule recv-en-makes-receive-usable: a managed receive queue accepts a
 * SEND only after RECV_EN; until then the sender sees RNR */
static void test_recv_en_makes_receive_usable(void **state)
{
	struct env *e = env_make(SIM_FW_STRICT, SIM_HAZARD_WARN, false, XC, SIM_QP_MANAGED_RECV);
	struct prism_sge sge = {.byte_count = 8, .lkey = e->dst_key, .addr = (uintptr_t)e->dst};
	struct prism_wqe w;
	struct hx_qp c;

	hx_post_recv(&e->b, &sge, 1);
	hx_send(&w, PRISM_OP_SEND, (uintptr_t)e->src, e->src_key, 8, true);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(e->dst[0], 0); /* RNR, retrying (rnr_retry 7) */
	assert_int_equal(sim_cq_count(e->cq_b.cq), 0);
	/* a's queue is stalled behind the RNR'd SEND: enable from a third QP */
	hx_qp_init(&c, e->dev, &e->cq_a, &e->cq_a, 4, 0, XC);
	hx_pair(&c, &c);
	hx_enable(&w, PRISM_OP_RECV_ENABLE, e->b.qpn, 1, false);
	hx_post(&c, &w);
	hx_ring(&c);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_memory_equal(e->dst, e->src, 8);
	assert_int_equal(hx_expect(&e->cq_b).opcode, PRISM_CQE_RESP_SEND);
	env_free(e);
	(void)state;
}

/* rule wait-on-data: WAIT opmod 1 holds its queue until (mem & mask) meets
 * the condition against (value & mask); the word is big-endian (sim choice) */
static void test_wait_on_data(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;

	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_CQE_WAIT;
	w.ctrl.opmod = PRISM_WAIT_ON_DATA;
	w.has_wod = true;
	w.wod.cond = PRISM_WOD_EQUAL;
	w.wod.lkey = e->dst_key;
	w.wod.addr = (uintptr_t)e->dst + 64;
	w.wod.value = 0x0000000000000700ull;
	w.wod.mask = 0x000000000000ff00ull;
	hx_post(&e->a, &w);
	hx_nop(&w, true);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(sim_cq_count(e->cq_a.cq), 0);
	e->dst[64 + 6] = 0x07; /* the CPU writes the awaited value (big-endian) */
	e->dst[64 + 7] = 0x99; /* outside the mask */
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(hx_expect(&e->cq_a).opcode, PRISM_CQE_REQ);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_wait_blocks_until_cqe_index, setup_xc,
	                                    env_teardown),
	    cmocka_unit_test_setup_teardown(test_wait_index_24_bit, setup_xc, env_teardown),
	    cmocka_unit_test_setup_teardown(test_read_not_ordered_before_write, setup_xc,
	                                    env_teardown),
	    cmocka_unit_test_setup_teardown(test_fence_waits_for_read, setup_xc, env_teardown),
	    cmocka_unit_test_setup_teardown(test_managed_started_by_doorbell, setup_managed_b,
	                                    env_teardown),
	    cmocka_unit_test_setup_teardown(test_send_en_absolute_index, setup_managed_b,
	                                    env_teardown),
	    cmocka_unit_test(test_enable_needs_cross_channel),
	    cmocka_unit_test_setup_teardown(test_send_en_past_doorbell_record, setup_managed_b,
	                                    env_teardown),
	    cmocka_unit_test_setup_teardown(test_recycle_wraps_queue, setup_managed_b,
	                                    env_teardown),
	    cmocka_unit_test_setup_teardown(test_strict_firmware_rejects_recycling,
	                                    setup_recycle_b_strict, env_teardown),
	    cmocka_unit_test(test_recv_en_makes_receive_usable),
	    cmocka_unit_test_setup_teardown(test_wait_on_data, setup_xc, env_teardown),
	};

	return cmocka_run_group_tests_name("conf_ordering", tests, NULL, NULL);
}
