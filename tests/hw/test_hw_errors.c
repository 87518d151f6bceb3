/* SPDX-License-Identifier: MIT */
/*
 * tests/hw/test_hw_errors.c - NIC-model rules for errors on a real RDMA
 * device: memory-region keys, bounds and access flags (remote access error
 * 0x13, local protection error 0x04), the QP moving to ERR, flushing of the
 * outstanding work (WR_FLUSH_ERR 0x05), RNR retries exceeded (0x16), and the
 * firmware's control-segment checks (WQE index and QPN: local QP operation
 * error 0x02 on stock firmware, none after firmware-config/prism-fw relax).
 * Syndromes are mlx5dv.h MLX5_CQE_SYNDROME_*.  One test per rule of
 * docs/nic-model.md, named after the rule (hw_<rule>).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests/hw/hw_common.h"

#define SRC(e) ((uintptr_t)(e)->src)
#define DST(e) ((uintptr_t)(e)->dst)

/* A key with the same MR index and another 8-bit key tag: never valid. */
static uint32_t wrong_key(uint32_t key)
{
	return key ^ 0x5a;
}

static void expect_error(struct hw_cq *cq, uint8_t cqe_opcode, uint8_t syndrome, int counter,
                         const char *what)
{
	struct prism_cqe c = hw_expect(cq);

	if (c.opcode != cqe_opcode || c.syndrome != syndrome)
		fail_msg("%s: expected %s %s, got %s %s (vendor syndrome 0x%02x)", what,
		         prism_cqe_opcode_name(cqe_opcode), hw_synd_name(syndrome),
		         prism_cqe_opcode_name(c.opcode), hw_synd_name(c.syndrome),
		         c.vendor_syndrome);
	if (counter >= 0)
		assert_int_equal(c.wqe_counter, (uint16_t)counter);
}

struct access_case {
	const char *what;
	uint8_t opcode;    /* WRITE or READ */
	bool wrong_rkey;   /* rkey with a wrong key tag */
	uint32_t offset;   /* remote offset into dst */
	int target_access; /* 0: the fully accessible dst MR; else a second MR of dst */
};

/* rule mr-remote-access-error: a remote key, bounds or access-flag violation
 * completes the requester's WQE with REMOTE_ACCESS_ERR (0x13) and moves its
 * QP to ERR; the target memory is untouched */
static void hw_mr_remote_access_error(void **state)
{
	static const struct access_case cases[] = {
	    {"WRITE with a wrong rkey", PRISM_OP_RDMA_WRITE, true, 0, 0},
	    {"WRITE past the end of the region", PRISM_OP_RDMA_WRITE, false, HW_BUF_BYTES - 4, 0},
	    {"WRITE into a region without remote write", PRISM_OP_RDMA_WRITE, false, 0,
	     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ},
	    {"READ from a region without remote read", PRISM_OP_RDMA_READ, false, 0,
	     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE},
	};
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, NULL);

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct access_case *k = &cases[i];
		uint32_t rkey = e->dst_mr->rkey;
		struct prism_wqe w;
		uint32_t idx;

		if (i)
			hw_repair(e, NULL);
		if (k->target_access)
			rkey = hw_reg(e, e->dst, HW_BUF_BYTES, k->target_access)->rkey;
		if (k->wrong_rkey)
			rkey = wrong_key(rkey);
		memset(e->dst, 0, HW_BUF_BYTES);
		/* WRITE src -> dst, READ dst -> src: the remote side is always dst */
		hw_rw(&w, k->opcode, DST(e) + k->offset, rkey, SRC(e), e->src_mr->lkey, 8, true);
		idx = hw_post(&e->a, &w);
		hw_ring(&e->a);
		expect_error(&e->a.scq, PRISM_CQE_REQ_ERR, PRISM_SYND_REMOTE_ACCESS_ERR, (int)idx,
		             k->what);
		assert_int_equal(hw_qp_state(&e->a), IBV_QPS_ERR);
		for (uint32_t b = k->offset; b < k->offset + 8 && b < HW_BUF_BYTES; b++)
			assert_int_equal(e->dst[b], 0);
	}
}

struct local_case {
	const char *what;
	uint8_t opcode;
	bool wrong_lkey;
	uint32_t offset;  /* local offset into src */
	int local_access; /* 0: the src MR; else a second MR of src */
};

/* rule mr-local-protection-error: a local key, bounds or access violation in
 * the WQE's own gather/scatter list completes it with LOCAL_PROT_ERR (0x04)
 * and moves the QP to ERR */
static void hw_mr_local_protection_error(void **state)
{
	static const struct local_case cases[] = {
	    {"WRITE gathering with a wrong lkey", PRISM_OP_RDMA_WRITE, true, 0, 0},
	    {"WRITE gathering past the end of the region", PRISM_OP_RDMA_WRITE, false,
	     HW_BUF_BYTES - 4, 0},
	    {"READ scattering into a region without local write", PRISM_OP_RDMA_READ, false, 0,
	     IBV_ACCESS_REMOTE_READ},
	};
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, NULL);

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct local_case *k = &cases[i];
		uint32_t lkey = e->src_mr->lkey;
		struct prism_wqe w;
		uint32_t idx;

		if (i)
			hw_repair(e, NULL);
		if (k->local_access)
			lkey = hw_reg(e, e->src, HW_BUF_BYTES, k->local_access)->lkey;
		if (k->wrong_lkey)
			lkey = wrong_key(lkey);
		hw_rw(&w, k->opcode, DST(e), e->dst_mr->rkey, SRC(e) + k->offset, lkey, 8, true);
		idx = hw_post(&e->a, &w);
		hw_ring(&e->a);
		expect_error(&e->a.scq, PRISM_CQE_REQ_ERR, PRISM_SYND_LOCAL_PROT_ERR, (int)idx,
		             k->what);
		assert_int_equal(hw_qp_state(&e->a), IBV_QPS_ERR);
	}
}

/* rule qp-error-flushes: after an error CQE every outstanding WQE of the QP,
 * send and receive, completes with WR_FLUSH_ERR (0x05) in order, without
 * executing */
static void hw_qp_error_flushes(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, NULL);
	struct prism_sge sge = {.byte_count = 64, .lkey = e->dst_mr->lkey, .addr = DST(e) + 4096};
	static const uint8_t zero[64];
	struct prism_wqe w;
	uint32_t bad, w1, w2;

	hw_post_recv(&e->a, &sge, 1);
	hw_rw(&w, PRISM_OP_RDMA_WRITE, DST(e), wrong_key(e->dst_mr->rkey), SRC(e), e->src_mr->lkey,
	      8, true);
	bad = hw_post(&e->a, &w);
	hw_rw(&w, PRISM_OP_RDMA_WRITE, DST(e) + 64, e->dst_mr->rkey, SRC(e), e->src_mr->lkey, 64,
	      true);
	w1 = hw_post(&e->a, &w);
	hw_rw(&w, PRISM_OP_RDMA_WRITE, DST(e) + 128, e->dst_mr->rkey, SRC(e), e->src_mr->lkey, 64,
	      true);
	w2 = hw_post(&e->a, &w);
	hw_ring(&e->a);
	expect_error(&e->a.scq, PRISM_CQE_REQ_ERR, PRISM_SYND_REMOTE_ACCESS_ERR, (int)bad,
	             "WRITE with a wrong rkey");
	expect_error(&e->a.scq, PRISM_CQE_REQ_ERR, PRISM_SYND_WR_FLUSH_ERR, (int)w1,
	             "the WRITE behind it");
	expect_error(&e->a.scq, PRISM_CQE_REQ_ERR, PRISM_SYND_WR_FLUSH_ERR, (int)w2,
	             "the second WRITE behind it");
	expect_error(&e->a.rcq, PRISM_CQE_RESP_ERR, PRISM_SYND_WR_FLUSH_ERR, -1,
	             "the posted receive");
	assert_memory_equal(e->dst + 64, zero, 64);
	assert_memory_equal(e->dst + 128, zero, 64);
	assert_memory_equal(e->dst + 4096, zero, 64);
	hw_expect_empty(&e->a.scq);
}

/* rule rnr-retry-exceeded: a SEND that finds no posted RECV, with
 * rnr_retry = 0, completes with RNR_RETRY_EXC_ERR (0x16); its QP goes to ERR */
static void hw_rnr_retry_exceeded(void **state)
{
	const struct hw_pair_opts opts = {.rnr_set = true, .rnr_retry = 0, .min_rnr_timer = 1};
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, &opts);
	struct prism_wqe w;
	uint32_t idx;

	hw_send(&w, PRISM_OP_SEND, SRC(e), e->src_mr->lkey, 8, true);
	idx = hw_post(&e->a, &w);
	hw_ring(&e->a);
	expect_error(&e->a.scq, PRISM_CQE_REQ_ERR, PRISM_SYND_RNR_RETRY_EXC_ERR, (int)idx,
	             "SEND without a posted RECV");
	assert_int_equal(hw_qp_state(&e->a), IBV_QPS_ERR);
	hw_expect_empty(&e->b.rcq);
}

/* rule rnr-infinite-waits-for-recv: with rnr_retry = 7 (infinite) a SEND
 * that finds no RECV keeps retrying and completes once one is posted */
static void hw_rnr_infinite_waits_for_recv(void **state)
{
	const struct hw_pair_opts opts = {.rnr_set = true, .rnr_retry = 7, .min_rnr_timer = 1};
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, &opts);
	struct prism_sge sge = {.byte_count = 64, .lkey = e->dst_mr->lkey, .addr = DST(e)};
	struct prism_wqe w;
	struct prism_cqe c;
	uint32_t idx;

	hw_send(&w, PRISM_OP_SEND, SRC(e), e->src_mr->lkey, 64, true);
	idx = hw_post(&e->a, &w);
	hw_ring(&e->a);
	/* nothing can complete it yet, however long we look */
	assert_int_equal(hw_poll(&e->a.scq, &c, 50), 0);
	hw_post_recv(&e->b, &sge, 1);
	c = hw_expect(&e->b.rcq);
	assert_int_equal(c.opcode, PRISM_CQE_RESP_SEND);
	assert_int_equal(c.byte_count, 64);
	assert_memory_equal(e->dst, e->src, 64);
	c = hw_expect(&e->a.scq);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_int_equal(c.wqe_counter, (uint16_t)idx);
}

/*
 * Posts a signaled NOP whose control segment carries a wrong WQE index or a
 * wrong QPN (the doorbell itself is correct), and checks the firmware
 * profile: strict (stock) firmware fails it with LOCAL_QP_OP_ERR (0x02),
 * relaxed firmware (PRISM_HW_FW=relaxed, after prism-fw relax) runs it.
 */
static void check_ctrl_field(void **state, bool bad_index)
{
	struct hw_env *e = hw_start(state, HW_NEED_RAW, NULL);
	const char *field = bad_index ? "WQE index" : "QPN";
	struct prism_wqe w;
	struct prism_cqe c;

	hw_nop(&w, true);
	w.ctrl.wqe_index = (uint16_t)(e->a.sq_pi + (bad_index ? 3 : 0));
	w.ctrl.qpn = bad_index ? e->a.qpn : e->a.qpn ^ 0x5a5a;
	hw_post_ex(&e->a, &w, true);
	hw_ring(&e->a);
	c = hw_expect(&e->a.scq);
	print_message("hw: %s: a NOP with a wrong %s completed as %s %s\n", e->name, field,
	              prism_cqe_opcode_name(c.opcode), hw_synd_name(c.syndrome));
	if (e->relaxed_fw) {
		if (c.opcode != PRISM_CQE_REQ)
			fail_msg("PRISM_HW_FW=relaxed, but the firmware checks the %s (%s): run "
			         "firmware-config/prism-fw relax, or unset PRISM_HW_FW",
			         field, hw_synd_name(c.syndrome));
		return;
	}
	if (c.opcode == PRISM_CQE_REQ)
		fail_msg("the firmware ignores the %s: it is relaxed; set PRISM_HW_FW=relaxed "
		         "to test that profile",
		         field);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
	assert_int_equal(hw_qp_state(&e->a), IBV_QPS_ERR);
}

/* rule strict-checks-wqe-index: stock firmware fails a WQE whose control
 * segment index is not its position (RedN section 4; PCX); relaxed runs it */
static void hw_strict_checks_wqe_index(void **state)
{
	check_ctrl_field(state, true);
}

/* rule strict-checks-qpn: stock firmware fails a WQE whose control segment
 * carries another QPN (RedN keeps data there: relaxed only) */
static void hw_strict_checks_qpn(void **state)
{
	check_ctrl_field(state, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(hw_mr_remote_access_error, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_mr_local_protection_error, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_qp_error_flushes, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_rnr_retry_exceeded, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_rnr_infinite_waits_for_recv, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_strict_checks_wqe_index, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_strict_checks_qpn, hw_setup, hw_teardown),
	};

	return cmocka_run_group_tests_name("test_hw_errors", tests, NULL, NULL);
}
