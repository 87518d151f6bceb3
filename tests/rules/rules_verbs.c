/* SPDX-License-Identifier: MIT */
/*
 * tests/rules/rules_verbs.c - NIC-model rules for the data verbs (sections
 * 1 and 2 of docs/nic-model.md): NOP, WRITE, inline data, WRITE_IMM, SEND,
 * SEND_IMM, receive scatter (into data and into a posted WQE), READ
 * scatter, signaled vs unsignaled completions, completion order.  One body
 * per rule, on every backend (rules.h).
 */
#include "tests/rules/rules.h"

/* rule nop-completes: a signaled NOP produces one requester CQE with its index */
static void r_nop_completes(struct rx *x)
{
	struct prism_wqe w;
	struct prism_cqe c;
	uint32_t idx;

	hx_nop(&w, true);
	idx = rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	c = rx_expect(x, &x->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_int_equal(c.wqe_counter, idx);
	assert_int_equal(c.qpn, x->a.qpn);
}

/* rule unsignaled-no-cqe: CE=0 WQEs complete silently; a later signaled one
 * reports its own index (mlx5dv.h MLX5_WQE_CTRL_CQ_UPDATE) */
static void r_unsignaled_no_cqe(struct rx *x)
{
	struct prism_wqe w;
	struct prism_cqe c;
	uint32_t last = 0;

	for (int i = 0; i < 5; i++) {
		hx_nop(&w, i == 4);
		last = rx_post(&x->a, &w);
	}
	rx_ring(x, &x->a);
	RX_RUN(x);
	c = rx_expect(x, &x->cq_a);
	assert_int_equal(c.wqe_counter, last);
	assert_int_equal(rx_poll(&x->cq_a, &c), 0);
}

/* rule write-copies-bytes: WRITE moves the gathered bytes to raddr */
static void r_write_copies_bytes(struct rx *x)
{
	struct prism_wqe w;
	struct prism_cqe c;

	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)x->dst + 100, x->dst_key, (uintptr_t)x->src,
	      x->src_key, 300, true);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	c = rx_expect(x, &x->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_memory_equal(x->dst + 100, x->src, 300);
	assert_int_equal(x->dst[99], 0);
	assert_int_equal(x->dst[400], 0);
}

/* rule write-imm-consumes-recv: WRITE_IMM writes and completes a receive
 * with the immediate (responder CQE opcode 1) */
static void r_write_imm_consumes_recv(struct rx *x)
{
	struct prism_wqe w;
	struct prism_cqe c;
	struct prism_sge none = {.byte_count = 0, .lkey = x->dst_key, .addr = (uintptr_t)x->dst};

	rx_post_recv(x, &x->b, &none, 1);
	hx_rw(&w, PRISM_OP_RDMA_WRITE_IMM, (uintptr_t)x->dst, x->dst_key, (uintptr_t)x->src,
	      x->src_key, 64, true);
	w.ctrl.imm = 0xabcd1234;
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	c = rx_expect(x, &x->cq_b);
	assert_int_equal(c.opcode, PRISM_CQE_RESP_WR_IMM);
	assert_int_equal(c.imm, 0xabcd1234);
	assert_int_equal(c.byte_count, 64);
	assert_memory_equal(x->dst, x->src, 64);
	c = rx_expect(x, &x->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
}

/* rule recv-scatter: a SEND's payload is scattered over the receive's
 * entries in order (up to 16) */
static void r_recv_scatter(struct rx *x)
{
	struct prism_sge sge[16];
	struct prism_wqe w;
	struct prism_cqe c;

	for (int i = 0; i < 16; i++)
		sge[i] = (struct prism_sge){
		    .byte_count = 4, .lkey = x->dst_key, .addr = (uintptr_t)x->dst + 64 * i};
	rx_post_recv(x, &x->b, sge, 16);
	hx_send(&w, PRISM_OP_SEND_IMM, (uintptr_t)x->src, x->src_key, 64, true);
	w.ctrl.imm = 7;
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	c = rx_expect(x, &x->cq_b);
	assert_int_equal(c.opcode, PRISM_CQE_RESP_SEND_IMM);
	assert_int_equal(c.byte_count, 64);
	assert_int_equal(c.imm, 7);
	for (int i = 0; i < 16; i++)
		assert_memory_equal(x->dst + 64 * i, x->src + 4 * i, 4);
	assert_int_equal(x->dst[4], 0);
}

/* rule recv-scatter-into-wqe: a receive entry may point into send-queue
 * memory; the SEND's bytes rewrite a posted WQE (RedN section 3.2) */
static void r_recv_scatter_into_wqe(struct rx *x)
{
	struct prism_sge sge;
	struct prism_wqe w;
	uint8_t *slot;

	/* a NOP posted (not rung) on b; the receive rewrites its imm field */
	hx_nop(&w, true);
	slot = rx_slot(&x->b, rx_post(&x->b, &w));
	sge = (struct prism_sge){.byte_count = 4, .lkey = x->b.key, .addr = (uintptr_t)slot + 12};
	rx_post_recv(x, &x->b, &sge, 1);
	memcpy(x->src, "\x11\x22\x33\x44", 4);
	hx_send(&w, PRISM_OP_SEND, (uintptr_t)x->src, x->src_key, 4, true);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	assert_memory_equal(slot + 12, "\x11\x22\x33\x44", 4);
}

/* rule read-scatter: READ's data lands across its local scatter list */
static void r_read_scatter(struct rx *x)
{
	struct prism_wqe w;
	struct prism_cqe c;

	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)x->src, x->src_key, 0, 0, 0, true);
	w.num_sge = 3;
	w.sge[0] = (struct prism_sge){8, x->dst_key, (uintptr_t)x->dst + 1000};
	w.sge[1] = (struct prism_sge){1, x->dst_key, (uintptr_t)x->dst + 10};
	w.sge[2] = (struct prism_sge){100, x->dst_key, (uintptr_t)x->dst + 2000};
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	c = rx_expect(x, &x->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_int_equal(c.byte_count, 109);
	assert_memory_equal(x->dst + 1000, x->src, 8);
	assert_int_equal(x->dst[10], x->src[8]);
	assert_memory_equal(x->dst + 2000, x->src + 9, 100);
}

/* rule inline-data: WRITE with inline data carries the WQE's own bytes */
static void r_inline_data(struct rx *x)
{
	struct prism_wqe w;
	struct prism_cqe c;

	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)x->dst, x->dst_key, 0, 0, 0, true);
	w.num_sge = 0;
	w.is_inline = true;
	w.inline_len = 5;
	memcpy(w.inline_data, "hello", 5);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	assert_memory_equal(x->dst, "hello", 5);
	assert_int_equal(rx_expect(x, &x->cq_a).opcode, PRISM_CQE_REQ);

	/* an empty inline segment is a zero-length WRITE: it completes and
	 * writes nothing (found by fuzz_sim_exec under UBSan) */
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)x->dst + 64, x->dst_key, 0, 0, 0, true);
	w.num_sge = 0;
	w.is_inline = true;
	w.inline_len = 0;
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	c = rx_expect(x, &x->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_int_equal(c.byte_count, 0);
	assert_int_equal(x->dst[64], 0);
}

/* rule completions-in-order: CQEs of one send queue come in WQE order even
 * when a later WQE finishes first (a NOP behind a READ) */
static void r_completions_in_order(struct rx *x)
{
	struct prism_wqe w;
	uint32_t r, n;

	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)x->src, x->src_key, (uintptr_t)x->dst, x->dst_key,
	      64, true);
	r = rx_post(&x->a, &w);
	hx_nop(&w, true);
	n = rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	assert_int_equal(rx_expect(x, &x->cq_a).wqe_counter, r);
	assert_int_equal(rx_expect(x, &x->cq_a).wqe_counter, n);
}

/* rule send-imm-immediate: SEND_IMM delivers its immediate in the receive
 * CQE (opcode 3) */
static void r_send_imm_immediate(struct rx *x)
{
	struct prism_sge sge = {.byte_count = 8, .lkey = x->dst_key, .addr = (uintptr_t)x->dst};
	struct prism_wqe w;
	struct prism_cqe c;

	rx_post_recv(x, &x->b, &sge, 1);
	hx_send(&w, PRISM_OP_SEND_IMM, (uintptr_t)x->src, x->src_key, 8, true);
	w.ctrl.imm = 0xfeedbeef;
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	c = rx_expect(x, &x->cq_b);
	assert_int_equal(c.opcode, PRISM_CQE_RESP_SEND_IMM);
	assert_int_equal(c.imm, 0xfeedbeef);
	assert_int_equal(c.qpn, x->b.qpn);
}

static const struct rule rules[] = {
    RULE("1.1", "write-copies-bytes", r_write_copies_bytes),
    RULE("1.2", "inline-data", r_inline_data),
    RULE("1.5", "completions-in-order", r_completions_in_order),
    RULE("1.6", "unsignaled-no-cqe", r_unsignaled_no_cqe),
    RULE("1.7", "nop-completes", r_nop_completes),
    RULE("2.1", "write-imm-consumes-recv", r_write_imm_consumes_recv),
    RULE("2.2", "send-imm-immediate", r_send_imm_immediate),
    RULE("2.3", "recv-scatter", r_recv_scatter),
    RULE("2.4", "recv-scatter-into-wqe", r_recv_scatter_into_wqe),
    RULE("2.6", "read-scatter", r_read_scatter),
};
RULE_TABLE(rules_verbs, rules);
