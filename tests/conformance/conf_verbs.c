/* SPDX-License-Identifier: MIT */
/*
 * tests/conformance/conf_verbs.c - NIC-model rules for the data verbs:
 * NOP, WRITE, WRITE_IMM, SEND, SEND_IMM, RECV scatter, READ scatter, and
 * signaled vs unsignaled completions.  One test per rule of
 * docs/nic-model.md, named after the rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests/sim/sim_harness.h"

#define RW (SIM_ACCESS_LOCAL_WRITE | SIM_ACCESS_REMOTE_WRITE | SIM_ACCESS_REMOTE_READ)

struct env {
	struct sim_dev *dev;
	struct hx_cq cq_a, cq_b;
	struct hx_qp a, b;
	uint8_t src[4096], dst[4096];
	uint32_t src_key, dst_key;
};

static struct env *env_new(unsigned flags_a, unsigned flags_b)
{
	struct env *e = test_calloc(1, sizeof(*e));

	e->dev = hx_dev(1, SIM_FW_STRICT, SIM_HAZARD_WARN, false);
	hx_cq_init(&e->cq_a, e->dev, 64, false);
	hx_cq_init(&e->cq_b, e->dev, 64, false);
	hx_qp_init(&e->a, e->dev, &e->cq_a, &e->cq_a, 64, 16, flags_a);
	hx_qp_init(&e->b, e->dev, &e->cq_b, &e->cq_b, 64, 16, flags_b);
	hx_pair(&e->a, &e->b);
	for (unsigned i = 0; i < sizeof(e->src); i++)
		e->src[i] = (uint8_t)(i * 7 + 1);
	e->src_key = hx_key(e->dev, e->src, sizeof(e->src), RW);
	e->dst_key = hx_key(e->dev, e->dst, sizeof(e->dst), RW);
	return e;
}

static int setup(void **state)
{
	*state = env_new(0, 0);
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	sim_dev_close(e->dev);
	test_free(e);
	return 0;
}

/* rule nop-completes: a signaled NOP produces one requester CQE with its index */
static void test_nop_completes(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	struct prism_cqe c;
	uint32_t idx;

	hx_nop(&w, true);
	idx = hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	c = hx_expect(&e->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_int_equal(c.wqe_counter, idx);
	assert_int_equal(c.qpn, e->a.qpn);
}

/* rule unsignaled-no-cqe: CE=0 WQEs complete silently; a later signaled one
 * reports its own index (mlx5dv.h MLX5_WQE_CTRL_CQ_UPDATE) */
static void test_unsignaled_no_cqe(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	struct prism_cqe c;
	uint32_t last = 0;

	for (int i = 0; i < 5; i++) {
		hx_nop(&w, i == 4);
		last = hx_post(&e->a, &w);
	}
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	c = hx_expect(&e->cq_a);
	assert_int_equal(c.wqe_counter, last);
	assert_int_equal(hx_poll(&e->cq_a, &c), 0);
}

/* rule write-copies-bytes: WRITE moves the gathered bytes to raddr */
static void test_write_copies_bytes(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	struct prism_cqe c;

	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst + 100, e->dst_key, (uintptr_t)e->src,
	      e->src_key, 300, true);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	c = hx_expect(&e->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_memory_equal(e->dst + 100, e->src, 300);
	assert_int_equal(e->dst[99], 0);
	assert_int_equal(e->dst[400], 0);
}

/* rule write-imm-consumes-recv: WRITE_IMM writes and completes a receive
 * with the immediate (responder CQE opcode 1) */
static void test_write_imm_consumes_recv(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	struct prism_cqe c;
	struct prism_sge none = {.byte_count = 0, .lkey = e->dst_key, .addr = (uintptr_t)e->dst};

	hx_post_recv(&e->b, &none, 1);
	hx_rw(&w, PRISM_OP_RDMA_WRITE_IMM, (uintptr_t)e->dst, e->dst_key, (uintptr_t)e->src,
	      e->src_key, 64, true);
	w.ctrl.imm = 0xabcd1234;
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	c = hx_expect(&e->cq_b);
	assert_int_equal(c.opcode, PRISM_CQE_RESP_WR_IMM);
	assert_int_equal(c.imm, 0xabcd1234);
	assert_int_equal(c.byte_count, 64);
	assert_memory_equal(e->dst, e->src, 64);
	c = hx_expect(&e->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
}

/* rule recv-scatter: a SEND's payload is scattered over the receive's
 * entries in order (up to 16) */
static void test_recv_scatter(void **state)
{
	struct env *e = *state;
	struct prism_sge sge[16];
	struct prism_wqe w;
	struct prism_cqe c;

	for (int i = 0; i < 16; i++)
		sge[i] = (struct prism_sge){
		    .byte_count = 4, .lkey = e->dst_key, .addr = (uintptr_t)e->dst + 64 * i};
	hx_post_recv(&e->b, sge, 16);
	hx_send(&w, PRISM_OP_SEND_IMM, (uintptr_t)e->src, e->src_key, 64, true);
	w.ctrl.imm = 7;
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	c = hx_expect(&e->cq_b);
	assert_int_equal(c.opcode, PRISM_CQE_RESP_SEND_IMM);
	assert_int_equal(c.byte_count, 64);
	assert_int_equal(c.imm, 7);
	for (int i = 0; i < 16; i++)
		assert_memory_equal(e->dst + 64 * i, e->src + 4 * i, 4);
	assert_int_equal(e->dst[4], 0);
}

/* rule recv-scatter-into-wqe: a receive entry may point into send-queue
 * memory; the SEND's bytes rewrite a posted WQE (RedN section 3.2) */
static void test_recv_scatter_into_wqe(void **state)
{
	struct env *e = *state;
	struct prism_sge sge;
	struct prism_wqe w;
	uint8_t *slot;

	/* a NOP posted (not rung) on b; the receive rewrites its imm field */
	hx_nop(&w, true);
	slot = hx_slot(&e->b, hx_post(&e->b, &w));
	sge = (struct prism_sge){
	    .byte_count = 4, .lkey = sim_mr_lkey(e->b.sq_mr), .addr = (uintptr_t)slot + 12};
	hx_post_recv(&e->b, &sge, 1);
	memcpy(e->src, "\x11\x22\x33\x44", 4);
	hx_send(&w, PRISM_OP_SEND, (uintptr_t)e->src, e->src_key, 4, true);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_memory_equal(slot + 12, "\x11\x22\x33\x44", 4);
}

/* rule read-scatter: READ's data lands across its local scatter list */
static void test_read_scatter(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	struct prism_cqe c;

	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)e->src, e->src_key, 0, 0, 0, true);
	w.num_sge = 3;
	w.sge[0] = (struct prism_sge){8, e->dst_key, (uintptr_t)e->dst + 1000};
	w.sge[1] = (struct prism_sge){1, e->dst_key, (uintptr_t)e->dst + 10};
	w.sge[2] = (struct prism_sge){100, e->dst_key, (uintptr_t)e->dst + 2000};
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	c = hx_expect(&e->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_int_equal(c.byte_count, 109);
	assert_memory_equal(e->dst + 1000, e->src, 8);
	assert_int_equal(e->dst[10], e->src[8]);
	assert_memory_equal(e->dst + 2000, e->src + 9, 100);
}

/* rule inline-data: WRITE with inline data carries the WQE's own bytes */
static void test_inline_data(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;

	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst, e->dst_key, 0, 0, 0, true);
	w.num_sge = 0;
	w.is_inline = true;
	w.inline_len = 5;
	memcpy(w.inline_data, "hello", 5);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_memory_equal(e->dst, "hello", 5);
}

/* rule inline-data: an empty inline segment is a zero-length WRITE: it
 * completes and writes nothing (found by fuzz_sim_exec under UBSan) */
static void test_inline_data_empty(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	struct prism_cqe c;

	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst, e->dst_key, 0, 0, 0, true);
	w.num_sge = 0;
	w.is_inline = true;
	w.inline_len = 0;
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	c = hx_expect(&e->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_int_equal(c.byte_count, 0);
	assert_int_equal(e->dst[0], 0);
}

/* rule completions-in-order: CQEs of one send queue come in WQE order even
 * when a later WQE finishes first (a NOP behind a READ) */
static void test_completions_in_order(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	uint32_t r, n;

	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)e->src, e->src_key, (uintptr_t)e->dst, e->dst_key,
	      64, true);
	r = hx_post(&e->a, &w);
	hx_nop(&w, true);
	n = hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(hx_expect(&e->cq_a).wqe_counter, r);
	assert_int_equal(hx_expect(&e->cq_a).wqe_counter, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_nop_completes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unsignaled_no_cqe, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_write_copies_bytes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_write_imm_consumes_recv, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_recv_scatter, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_recv_scatter_into_wqe, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_read_scatter, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_inline_data, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_inline_data_empty, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_completions_in_order, setup, teardown),
	};

	return cmocka_run_group_tests_name("conf_verbs", tests, NULL, NULL);
}
