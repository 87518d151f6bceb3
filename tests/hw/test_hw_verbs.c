/* SPDX-License-Identifier: MIT */
/*
 * tests/hw/test_hw_verbs.c - NIC-model rules for the data verbs on a real
 * RDMA device: NOP, WRITE, WRITE_IMM, SEND_IMM, RECV scatter (also into a
 * posted WQE), READ scatter, inline data, signaled vs unsignaled
 * completions, completion order and fences.  One test per rule of
 * docs/nic-model.md, named after the rule (hw_<rule>); each mirrors the
 * assertions of the software NIC's conformance test of the same rule
 * (tests/conformance/).
 *
 * Without an RDMA device every test skips with the reason.  On an mlx5
 * device the WQEs are the codec's bytes written into the real send queue.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests/hw/hw_common.h"

#define SRC(e)  ((uintptr_t)(e)->src)
#define DST(e)  ((uintptr_t)(e)->dst)
#define SKEY(e) ((e)->src_mr->lkey)
#define DKEY(e) ((e)->dst_mr->rkey)

/* rule nop-completes: a signaled NOP produces one requester CQE with its index */
static void hw_nop_completes(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_RAW, NULL);
	struct prism_wqe w;
	struct prism_cqe c;
	uint32_t idx;

	hw_nop(&w, true);
	idx = hw_post(&e->a, &w);
	hw_ring(&e->a);
	c = hw_expect(&e->a.scq);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_int_equal(c.wqe_counter, (uint16_t)idx);
	assert_int_equal(c.qpn, e->a.qpn);
	hw_expect_empty(&e->a.scq);
}

/* rule unsignaled-no-cqe: CE=0 WQEs complete silently; a later signaled one
 * reports its own index (mlx5dv.h MLX5_WQE_CTRL_CQ_UPDATE) */
static void hw_unsignaled_no_cqe(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, NULL);
	struct prism_wqe w;
	struct prism_cqe c;
	uint32_t last = 0;

	/* WRITEs rather than the conformance test's NOPs, so that the rule
	 * also runs on devices without raw posting */
	for (int i = 0; i < 5; i++) {
		hw_rw(&w, PRISM_OP_RDMA_WRITE, DST(e) + 8 * i, DKEY(e), SRC(e) + 8 * i, SKEY(e), 8,
		      i == 4);
		last = hw_post(&e->a, &w);
	}
	hw_ring(&e->a);
	c = hw_expect(&e->a.scq);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_int_equal(c.wqe_counter, (uint16_t)last);
	hw_expect_empty(&e->a.scq);
	/* the silent ones executed all the same */
	assert_memory_equal(e->dst, e->src, 40);
}

/* rule write-copies-bytes: WRITE moves the gathered bytes to raddr */
static void hw_write_copies_bytes(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, NULL);
	struct prism_wqe w;
	struct prism_cqe c;

	hw_rw(&w, PRISM_OP_RDMA_WRITE, DST(e) + 100, DKEY(e), SRC(e), SKEY(e), 300, true);
	hw_post(&e->a, &w);
	hw_ring(&e->a);
	c = hw_expect(&e->a.scq);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_memory_equal(e->dst + 100, e->src, 300);
	assert_int_equal(e->dst[99], 0);
	assert_int_equal(e->dst[400], 0);
}

/* rule write-imm-consumes-recv: WRITE_IMM writes and completes a receive
 * with the immediate (responder CQE opcode 1) */
static void hw_write_imm_consumes_recv(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, NULL);
	struct prism_wqe w;
	struct prism_cqe c;

	hw_post_recv(&e->b, NULL, 0); /* WRITE_IMM scatters nothing */
	hw_rw(&w, PRISM_OP_RDMA_WRITE_IMM, DST(e), DKEY(e), SRC(e), SKEY(e), 64, true);
	w.ctrl.imm = 0xabcd1234;
	hw_post(&e->a, &w);
	hw_ring(&e->a);
	c = hw_expect(&e->b.rcq);
	assert_int_equal(c.opcode, PRISM_CQE_RESP_WR_IMM);
	assert_int_equal(c.imm, 0xabcd1234);
	assert_int_equal(c.byte_count, 64);
	assert_int_equal(c.qpn, e->b.qpn);
	assert_memory_equal(e->dst, e->src, 64);
	c = hw_expect(&e->a.scq);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
}

/* rule send-imm-immediate: SEND_IMM delivers its immediate in the
 * responder's CQE (opcode 3), host order of the big-endian WQE field */
static void hw_send_imm_immediate(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, NULL);
	struct prism_sge sge = {.byte_count = 32, .lkey = e->dst_mr->lkey, .addr = DST(e)};
	struct prism_wqe w;
	struct prism_cqe c;

	hw_post_recv(&e->b, &sge, 1);
	hw_send(&w, PRISM_OP_SEND_IMM, SRC(e), SKEY(e), 32, true);
	w.ctrl.imm = 0x01020304;
	hw_post(&e->a, &w);
	hw_ring(&e->a);
	c = hw_expect(&e->b.rcq);
	assert_int_equal(c.opcode, PRISM_CQE_RESP_SEND_IMM);
	assert_int_equal(c.imm, 0x01020304);
	assert_int_equal(c.byte_count, 32);
	assert_memory_equal(e->dst, e->src, 32);
	assert_int_equal(hw_expect(&e->a.scq).opcode, PRISM_CQE_REQ);
}

/* rule recv-scatter: a SEND's payload is scattered over the receive's
 * entries in order (up to 16) */
static void hw_recv_scatter(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, NULL);
	struct prism_sge sge[16];
	struct prism_wqe w;
	struct prism_cqe c;

	if (e->attr.orig_attr.max_sge < 16)
		HW_SKIP("%s allows %d scatter entries per receive, the rule needs 16", e->name,
		        e->attr.orig_attr.max_sge);
	for (int i = 0; i < 16; i++)
		sge[i] = (struct prism_sge){
		    .byte_count = 4, .lkey = e->dst_mr->lkey, .addr = DST(e) + 64 * i};
	hw_post_recv(&e->b, sge, 16);
	hw_send(&w, PRISM_OP_SEND_IMM, SRC(e), SKEY(e), 64, true);
	w.ctrl.imm = 7;
	hw_post(&e->a, &w);
	hw_ring(&e->a);
	c = hw_expect(&e->b.rcq);
	assert_int_equal(c.opcode, PRISM_CQE_RESP_SEND_IMM);
	assert_int_equal(c.byte_count, 64);
	assert_int_equal(c.imm, 7);
	for (int i = 0; i < 16; i++)
		assert_memory_equal(e->dst + 64 * i, e->src + 4 * i, 4);
	assert_int_equal(e->dst[4], 0);
}

/* rule recv-scatter-into-wqe: a receive entry may point into send-queue
 * memory; the SEND's bytes rewrite a posted WQE (RedN section 3.2), and the
 * rewritten WQE then runs */
static void hw_recv_scatter_into_wqe(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_RAW, NULL);
	struct ibv_mr *sq_mr = hw_register_sq(&e->b);
	struct prism_sge sge;
	struct prism_wqe w;
	struct prism_cqe c;
	uint32_t nop;
	uint8_t *slot;

	/* a NOP posted (not rung) on b; the receive rewrites its imm field */
	hw_nop(&w, true);
	nop = hw_post(&e->b, &w);
	slot = hw_sq_slot(&e->b, nop);
	sge =
	    (struct prism_sge){.byte_count = 4, .lkey = sq_mr->lkey, .addr = (uintptr_t)slot + 12};
	hw_post_recv(&e->b, &sge, 1);
	memcpy(e->src, "\x11\x22\x33\x44", 4);
	hw_send(&w, PRISM_OP_SEND, SRC(e), SKEY(e), 4, true);
	hw_post(&e->a, &w);
	hw_ring(&e->a);
	c = hw_expect(&e->b.rcq);
	assert_int_equal(c.opcode, PRISM_CQE_RESP_SEND);
	assert_memory_equal(slot + 12, "\x11\x22\x33\x44", 4);
	hw_ring(&e->b);
	c = hw_expect(&e->b.scq);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_int_equal(c.wqe_counter, (uint16_t)nop);
}

/* rule read-scatter: READ's data lands across its local scatter list */
static void hw_read_scatter(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, NULL);
	uint32_t lkey = e->dst_mr->lkey;
	struct prism_wqe w;
	struct prism_cqe c;

	if (e->attr.orig_attr.max_sge < 3)
		HW_SKIP("%s allows %d gather entries, the rule needs 3", e->name,
		        e->attr.orig_attr.max_sge);
	hw_rw(&w, PRISM_OP_RDMA_READ, SRC(e), e->src_mr->rkey, 0, 0, 0, true);
	w.num_sge = 3;
	w.sge[0] = (struct prism_sge){8, lkey, DST(e) + 1000};
	w.sge[1] = (struct prism_sge){1, lkey, DST(e) + 10};
	w.sge[2] = (struct prism_sge){100, lkey, DST(e) + 2000};
	hw_post(&e->a, &w);
	hw_ring(&e->a);
	c = hw_expect(&e->a.scq);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_int_equal(c.byte_count, 109);
	assert_memory_equal(e->dst + 1000, e->src, 8);
	assert_int_equal(e->dst[10], e->src[8]);
	assert_memory_equal(e->dst + 2000, e->src + 9, 100);
}

/* rule inline-data: WRITE with inline data carries the WQE's own bytes */
static void hw_inline_data(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, NULL);
	struct prism_wqe w;
	struct prism_cqe c;

	if (e->path == HW_PATH_VERBS && e->a.max_inline < 5)
		HW_SKIP("%s: the QP takes no inline data (max_inline_data %u)", e->name,
		        e->a.max_inline);
	hw_rw(&w, PRISM_OP_RDMA_WRITE, DST(e), DKEY(e), 0, 0, 0, true);
	w.num_sge = 0;
	w.is_inline = true;
	w.inline_len = 5;
	memcpy(w.inline_data, "hello", 5);
	hw_post(&e->a, &w);
	hw_ring(&e->a);
	c = hw_expect(&e->a.scq);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_memory_equal(e->dst, "hello", 5);
	assert_int_equal(e->dst[5], 0);
}

/* rule completions-in-order: CQEs of one send queue come in WQE order even
 * when a later WQE finishes first (a small WRITE behind a 32 KiB READ) */
static void hw_completions_in_order(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, NULL);
	struct prism_wqe w;
	uint32_t r, n;

	hw_rw(&w, PRISM_OP_RDMA_READ, SRC(e), e->src_mr->rkey, DST(e), e->dst_mr->lkey, 32768,
	      true);
	r = hw_post(&e->a, &w);
	hw_rw(&w, PRISM_OP_RDMA_WRITE, DST(e) + 40000, DKEY(e), SRC(e), SKEY(e), 8, true);
	n = hw_post(&e->a, &w);
	hw_ring(&e->a);
	assert_int_equal(hw_expect(&e->a.scq).wqe_counter, (uint16_t)r);
	assert_int_equal(hw_expect(&e->a.scq).wqe_counter, (uint16_t)n);
}

/*
 * rule fence-waits-for-read: a fenced WQE starts only after the earlier
 * READs of its queue completed.  A READ fills dst, a fenced WRITE copies dst
 * onward; without the fence the WRITE could gather dst before the READ's data
 * landed.  Raw path: each fence mode that orders after READs (mlx5dv.h
 * MLX5_WQE_CTRL_FENCE, the PRM's fence and strong ordering); verbs path:
 * IBV_SEND_FENCE.
 */
static void hw_fence_waits_for_read(void **state)
{
	static const enum prism_fence modes[] = {
	    PRISM_FENCE_SMALL_AND_FENCE,
	    PRISM_FENCE_FENCE,
	    PRISM_FENCE_STRONG_ORDERING,
	};
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, NULL);
	const uint32_t len = 32768;
	unsigned n = e->path == HW_PATH_RAW ? 3 : 1;

	for (unsigned m = 0; m < n; m++) {
		struct prism_wqe w;

		memset(e->dst, 0, len);
		memset(e->src + len, 0, len);
		/* READ src[0, len) -> dst[0, len) */
		hw_rw(&w, PRISM_OP_RDMA_READ, SRC(e), e->src_mr->rkey, DST(e), e->dst_mr->lkey, len,
		      false);
		hw_post(&e->a, &w);
		/* fenced WRITE dst[0, len) -> src[len, 2 len) */
		hw_rw(&w, PRISM_OP_RDMA_WRITE, SRC(e) + len, e->src_mr->rkey, DST(e),
		      e->dst_mr->lkey, len, true);
		w.ctrl.fm_ce_se = prism_fm_ce_se(modes[m], PRISM_CE_CQ_UPDATE, false);
		hw_post(&e->a, &w);
		hw_ring(&e->a);
		assert_int_equal(hw_expect(&e->a.scq).opcode, PRISM_CQE_REQ);
		assert_memory_equal(e->src + len, e->src, len);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(hw_nop_completes, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_unsignaled_no_cqe, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_write_copies_bytes, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_write_imm_consumes_recv, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_send_imm_immediate, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_recv_scatter, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_recv_scatter_into_wqe, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_read_scatter, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_inline_data, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_completions_in_order, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_fence_waits_for_read, hw_setup, hw_teardown),
	};

	return cmocka_run_group_tests_name("test_hw_verbs", tests, NULL, NULL);
}
