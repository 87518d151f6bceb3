/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/test_be_golden.c - golden tests: each construct compiled to
 * its exact WQE sequence, queue by queue (opcodes as posted: a guarded WQE
 * is a NOP until its CAS arms it), plus the bytes that make it work
 * (operand placement, compare/swap words, fences, signaled WQEs), and the
 * compile-time rejections with their reasons.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <prism/wqe.h>

#include "tests/compiler/be_helpers.h"

#define HDR                                                                                        \
	"struct bucket { key: be24; pad: u8[5]; value: *u8[64] in values; }\n"                     \
	"region table: bucket[1024] readonly;\n"                                                   \
	"region values size 65536 readonly;\n"                                                     \
	"struct ctr { n: le64; }\n"                                                                \
	"region counters: ctr[16] writable;\n"

static const char *src_if = HDR "offload get(key: be24, b: *bucket in table) -> u8[64] {\n"
                                "  if (b.key == key) { return *b.value; }\n}\n";

static const char *src_seq =
    HDR "offload get(key: be24, b1: *bucket in table, b2: *bucket in table) -> u8[64] {\n"
        "  if (b1.key == key) { return *b1.value; }\n"
        "  if (b2.key == key) { return *b2.value; }\n}\n";

static const char *src_par =
    HDR "offload get(key: be24, b1: *bucket in table, b2: *bucket in table) -> u8[64] {\n"
        "  parallel { if (b1.key == key) { return *b1.value; } }\n"
        "  || { if (b2.key == key) { return *b2.value; } }\n}\n";

static struct chainobj *compile_ok(const char *src, enum ir_profile prof)
{
	char *diag = NULL;
	struct chainobj *o = be_compile(src, NULL, prof, &diag);
	if (!o)
		fprintf(stderr, "unexpected compile failure:\n%s", diag ? diag : "");
	free(diag);
	assert_non_null(o);
	return o;
}

static struct prism_wqe decode(const struct chainobj *o, const char *q, unsigned i)
{
	struct prism_wqe w;
	struct prism_wqe_diag d;
	int qi = be_queue(o, q);
	assert_true(qi >= 0);
	assert_true(i < o->queues[qi].n_sq);
	assert_true(prism_wqe_decode(o->queues[qi].sq[i].bytes, o->queues[qi].sq[i].len, &w, &d) >
	            0);
	return w;
}

/* if (a == b) return v: RedN's `if` is 1 copy + 1 atomic + 3 ordering;
 * ours 1 + 1 + 2 in the lane (the entry barrier and the closing response
 * are per invocation, not per `if`). */
static void test_if_return_sequence(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok(src_if, IR_PROFILE_RELAXED);
	assert_string_equal(be_ops(o, "ctl"), "WAIT WAIT EN"); /* entry WAIT, request gate */
	assert_string_equal(be_ops(o, "w0"), "READ CAS WAIT EN");
	assert_string_equal(be_ops(o, "conn"), "NOP WRITE_IMM");
	/* the guard CAS waits for the READ that delivers its target operand */
	struct prism_wqe cas = decode(o, "w0", 1);
	assert_int_equal(prism_ctrl_fence(&cas.ctrl), PRISM_FENCE_SMALL_AND_FENCE);
	assert_int_equal(prism_ctrl_ce(&cas.ctrl), PRISM_CE_CQ_UPDATE);
	/* swap word = the armed response's ctrl bytes 0-7 as a host integer:
	 * low byte opmod, byte 3 the opcode WRITE_IMM, byte 7 its ds */
	struct prism_wqe resp = decode(o, "conn", 0);
	assert_int_equal((cas.atomic.swap >> 24) & 0xff, PRISM_OP_RDMA_WRITE_IMM);
	assert_int_equal((cas.atomic.swap >> 56) & 0xff, resp.ctrl.ds);
	assert_int_equal((cas.atomic.compare >> 24) & 0xff, PRISM_OP_NOP);
	/* the guarded response keeps its full size while it waits as a NOP */
	assert_int_equal(resp.ctrl.opcode, PRISM_OP_NOP);
	assert_int_equal(resp.ctrl.ds, 3);
	/* closing response: signaled, imm 0 */
	struct prism_wqe fin = decode(o, "conn", 1);
	assert_int_equal(prism_ctrl_ce(&fin.ctrl), PRISM_CE_CQ_UPDATE);
	assert_int_equal(fin.ctrl.imm, 0);
	chainobj_free(o);
}

/* Operand placement: the bucket key lands in the response's QPN bytes (one
 * 3-byte scatter entry); the client key lands reversed in the CAS compare
 * field (three 1-byte RECV entries), because the field is be64 of a
 * host-endian integer. */
static void test_if_operand_placement(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok(src_if, IR_PROFILE_RELAXED);
	int conn = be_queue(o, "conn"), w0 = be_queue(o, "w0");
	unsigned recv_into_cas = 0, read_into_qpn = 0;
	for (uint32_t i = 0; i < o->n_patches; i++) {
		const struct chainobj_patch *p = &o->patches[i];
		if (p->kind == CHAINOBJ_PATCH_RECV_SCATTER && p->target.queue == (uint32_t)w0 &&
		    p->target.wqe == 1) {
			recv_into_cas++;
			assert_int_equal(p->target.width, 1);
			assert_true(p->target.offset >= 40 && p->target.offset < 44);
		}
		if (p->kind == CHAINOBJ_PATCH_READ_SCATTER && p->target.queue == (uint32_t)conn &&
		    p->target.wqe == 0 && p->target.offset == 4) {
			read_into_qpn++;
			assert_int_equal(p->target.width, 3);
		}
	}
	assert_int_equal(recv_into_cas, 3);
	assert_int_equal(read_into_qpn, 1);
	/* the client sends key (3 bytes) and the bucket address (8) */
	assert_int_equal(o->entries[0].msg_size, 11);
	chainobj_free(o);
}

/* Two sequential probes: the first `return` ends the invocation, so the
 * second probe is `else if` (a READ copies the first response's opcode byte
 * into the second's control index byte, which its guard compares with 0);
 * one barrier still enables both responses (RedN-Seq needs one per probe). */
static void test_two_buckets_one_barrier(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok(src_seq, IR_PROFILE_RELAXED);
	assert_string_equal(be_ops(o, "w0"), "READ CAS READ READ CAS WAIT EN");
	assert_string_equal(be_ops(o, "conn"), "NOP NOP WRITE_IMM");
	assert_int_equal(o->summary.barriers, 2); /* entry + responses */
	assert_int_equal(be_total_wqes(o), 13);   /* 12 + the request gate */
	/* only the last guard is signaled: CQEs arrive in order */
	struct prism_wqe c1 = decode(o, "w0", 1), c2 = decode(o, "w0", 4);
	assert_int_equal(prism_ctrl_ce(&c1.ctrl), PRISM_CE_NONE);
	assert_int_equal(prism_ctrl_ce(&c2.ctrl), PRISM_CE_CQ_UPDATE);
	chainobj_free(o);
}

/* RedN-Parallel: one lane per probe, joined by WAITs on both lane CQs. */
static void test_parallel_lanes(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok(src_par, IR_PROFILE_RELAXED);
	assert_string_equal(be_ops(o, "ctl"), "WAIT WAIT EN EN");
	assert_string_equal(be_ops(o, "w0"), "READ CAS WAIT WAIT EN");
	assert_string_equal(be_ops(o, "w1"), "READ CAS");
	assert_string_equal(be_ops(o, "conn"), "NOP NOP WRITE_IMM");
	int w1 = be_queue(o, "w1");
	assert_int_equal(o->queues[w1].role, CHAINOBJ_ROLE_LANE);
	assert_true(o->queues[w1].managed_send);
	chainobj_free(o);
}

/* Stores and atomics: a client value lands in a WRITE's inline data or an
 * atomic's operand field; constants sit in the template. */
static void test_store_and_atomics(void **state)
{
	(void)state;
	const char *src = HDR "offload bump(c: *ctr in counters, v: le64) {\n"
	                      "  c.n = v;\n  fetch_add(c.n, 1);\n}\n";
	struct chainobj *o = compile_ok(src, IR_PROFILE_RELAXED);
	assert_string_equal(be_ops(o, "w0"), "WRITE FA WAIT EN");
	assert_string_equal(be_ops(o, "conn"), "WRITE_IMM");
	struct prism_wqe fa = decode(o, "w0", 1);
	assert_int_equal(fa.atomic.swap, 1);
	struct prism_wqe wr = decode(o, "w0", 0);
	assert_true(wr.is_inline);
	assert_int_equal(wr.inline_len, 8);
	chainobj_free(o);
}

/* An le64 pointer is byte-swapped into the big-endian raddr by eight
 * one-byte RECV entries. */
static void test_le_pointer_swapped(void **state)
{
	(void)state;
	const char *src = HDR "offload bump(c: le64 *ctr in counters) {\n  fetch_add(c.n, 1);\n}\n";
	struct chainobj *o = compile_ok(src, IR_PROFILE_RELAXED);
	unsigned ones = 0;
	for (uint32_t i = 0; i < o->n_patches; i++)
		if (o->patches[i].kind == CHAINOBJ_PATCH_RECV_SCATTER &&
		    o->patches[i].target.width == 1)
			ones++;
	assert_int_equal(ones, 8);
	chainobj_free(o);
}

static const char *src_walk =
    "struct node { key: be24; pad: u8[5]; next: *node in nodes; value: u8[64]; }\n"
    "region nodes: node[4096] readonly;\n"
    "offload find(key: be24, head: *node in nodes) -> u8[64] {\n"
    "  let p = head;\n"
    "  while (p.key != key) bound 2 { p = p.next; }\n"
    "  if (p.key == key) { return p.value; }\n}\n";

/* An unrolled pointer walk with an exit per iteration: READ the node, test
 * the exit with a 16-byte masked CAS on the iteration's SEND_EN, barrier
 * (RedN's WAIT on the CAS's completion, then a SEND_EN), then that SEND_EN
 * either enables the next iteration or (retargeted) the code after the
 * loop, in its own queue.  With `assume fenced_enable;` the barrier is one
 * SEND_EN fenced behind the READ and the CAS (no WAIT). */
static void test_loop_walk_sequence(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok(src_walk, IR_PROFILE_RELAXED);
	assert_string_equal(be_ops(o, "ctl"), "WAIT WAIT EN"); /* entry WAIT, request gate */
	/* p after the loop lands in the response by a READ that only a lane
	 * that did not exit runs (after each exit's enable, and before the
	 * fall-through's, behind a barrier) */
	assert_string_equal(be_ops(o, "w0"),
	                    "READ MCAS WAIT EN EN READ READ MCAS WAIT EN EN READ WAIT EN");
	assert_false(o->assumes & CHAINOBJ_ASSUME_FENCED_ENABLE);
	chainobj_free(o);
	char src[1024];
	snprintf(src, sizeof(src), "assume fenced_enable;\n%s", src_walk);
	o = compile_ok(src, IR_PROFILE_RELAXED);
	assert_string_equal(be_ops(o, "w0"), "READ MCAS EN EN READ READ MCAS EN EN READ WAIT EN");
	assert_true(o->assumes & CHAINOBJ_ASSUME_FENCED_ENABLE);
	/* p lands in the READ of p.key after the loop (a WQE that lane runs: no
	 * copy, no barrier before it); the response copies it from there */
	assert_string_equal(be_ops(o, "w0c0"), "READ READ CAS EN");
	assert_string_equal(be_ops(o, "conn"), "NOP WRITE_IMM");
	/* the exit test compares 3 key bytes and swaps the enable's index and
	 * QPN words (bytes 24-31 of the SEND_EN it targets) */
	struct prism_wqe g = decode(o, "w0", 1);
	assert_int_equal(g.atomic.size, 16);
	static const uint8_t cmask[16] = {0xff, 0xff, 0xff};
	static const uint8_t smask[16] = {0,    0,    0,    0,    0,    0,    0,    0,
	                                  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	assert_memory_equal(g.atomic.compare_mask_bytes, cmask, 16);
	assert_memory_equal(g.atomic.swap_mask_bytes, smask, 16);
	/* the loop's queue halts at an exit: the object lists both exits with
	 * the counters they leave behind */
	assert_int_equal(o->n_exits, 2);
	int w0 = be_queue(o, "w0");
	const struct chainobj_exit *x0 = &o->exits[0];
	assert_int_equal(x0->queue, (uint32_t)w0);
	assert_int_equal(x0->wqe, 1);    /* the exit test */
	assert_int_equal(x0->enable, 3); /* the SEND_EN it retargets: the exit's signal */
	assert_true(x0->sq_advance[w0] < o->queues[w0].sq_per_invocation);
	assert_int_equal(x0->sq_advance[w0], o->queues[w0].sq[3].slot + 1);
	assert_int_equal(o->exits[1].wqe, 6);
	assert_int_equal(o->exits[1].enable, 8);
	/* `return p.value` WRITEs the node from p: the value sits at 16 */
	assert_int_equal(o->n_entries, 1);
	assert_int_equal(o->entries[0].n_results, 1);
	assert_int_equal(o->entries[0].results[0].offset, 16);
	assert_int_equal(o->entries[0].results[0].width, 64);
	assert_int_equal(o->response_size, 80);
	chainobj_free(o);
}

/* The walk with `return; break;` under `if (p.key == key)` (RedN's
 * "+break"), 2 iterations.  Per iteration: one READ of the node, two copies
 * of `next` from where it landed (the loop test's SEND_EN reserved bytes)
 * into the next READ's address and the next response's gather address, the
 * loop test, its barrier and exit, the response's guard, the break test,
 * its barrier and exit.  The break needs no second READ of the key: the
 * guard CAS returns the response's old control word (the key in its QPN
 * bytes) into the break's SEND_EN, whose test compares bytes 4-6 of it. */
static const char *src_walk_break =
    "struct node { key: be24; pad: u8[5]; next: *node in nodes; value: u8[64]; }\n"
    "region nodes: node[64] readonly;\n"
    "offload f(key: be24, head: *node in nodes) -> u8[64] {\n"
    "  let p = head;\n"
    "  while (p.next != head) bound 2 {\n"
    "    if (p.key == key) { return p.value; break; }\n"
    "    p = p.next;\n  }\n}\n";

static void test_loop_break_sequence(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok(src_walk_break, IR_PROFILE_RELAXED);
	/* (the last iteration's `p = p.next` has no use: no copies) */
	assert_string_equal(be_ops(o, "w0"), "READ READ READ MCAS WAIT EN EN CAS MCAS WAIT EN EN "
	                                     "READ MCAS WAIT EN EN CAS MCAS WAIT EN EN EN");
	chainobj_free(o);
	/* the positions below are those of the fenced form (no WAITs) */
	char src[1024];
	snprintf(src, sizeof(src), "assume fenced_enable;\n%s", src_walk_break);
	o = compile_ok(src, IR_PROFILE_RELAXED);
	assert_string_equal(be_ops(o, "w0"), "READ READ READ MCAS EN EN CAS MCAS EN EN "
	                                     "READ MCAS EN EN CAS MCAS EN EN EN");
	assert_string_equal(be_ops(o, "conn"), "NOP NOP WRITE_IMM");
	int w0 = be_queue(o, "w0");
	/* the guard (w0 #6) returns into the break's SEND_EN (#9) bytes
	 * 16-23; the break test (#7) compares bytes 4-6 of that word */
	const struct chainobj_patch *ret = NULL;
	for (uint32_t i = 0; i < o->n_patches; i++) {
		const struct chainobj_patch *pt = &o->patches[i];
		if (pt->writer_queue == (uint32_t)w0 && pt->writer_wqe == 6 &&
		    pt->target.queue == (uint32_t)w0)
			ret = pt;
	}
	assert_non_null(ret);
	assert_int_equal(ret->target.wqe, 9);
	assert_int_equal(ret->target.offset, 16);
	assert_int_equal(ret->target.width, 8);
	struct prism_wqe brk = decode(o, "w0", 7);
	assert_int_equal(brk.atomic.size, 16);
	static const uint8_t cmask[16] = {0, 0, 0, 0, 0xff, 0xff, 0xff};
	assert_memory_equal(brk.atomic.compare_mask_bytes, cmask, 16);
	/* the copies read the loop test's SEND_EN (#5) bytes 16-23 */
	for (unsigned i = 1; i <= 2; i++) {
		struct prism_wqe cp = decode(o, "w0", i);
		assert_int_equal(cp.ctrl.opcode, PRISM_OP_RDMA_READ);
		assert_int_equal(cp.num_sge, 1);
		assert_int_equal(cp.sge[0].byte_count, 8);
	}
	assert_int_equal(o->n_exits, 4);
	chainobj_free(o);
}

/* Both list walks of lib/chains compile and verify. */
static void test_lib_list_find_compiles(void **state)
{
	(void)state;
	FILE *f = fopen("lib/chains/list_find.prism", "r");
	assert_non_null(f);
	char buf[8192];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (int i = 0; i < 2; i++) {
		char *diag = NULL;
		struct chainobj *o =
		    be_compile(buf, i ? "find_break" : "find", IR_PROFILE_RELAXED, &diag);
		if (!o)
			fprintf(stderr, "%s", diag ? diag : "");
		free(diag);
		assert_non_null(o);
		assert_true(o->summary.verified);
		assert_true(o->n_exits >= 8);
		chainobj_free(o);
	}
}

static void expect_error(const char *src, enum ir_profile prof, const char *needle)
{
	char *diag = NULL;
	struct chainobj *o = be_compile(src, NULL, prof, &diag);
	assert_null(o);
	assert_non_null(diag);
	if (!strstr(diag, needle))
		fprintf(stderr, "diagnostic was:\n%s", diag);
	assert_non_null(strstr(diag, needle));
	free(diag);
}

/* A bound above the unroll limit recycles the loop; a body the recycled
 * lowering does not know is rejected with the reason, not miscompiled. */
static void test_reject_loop_bound_too_large(void **state)
{
	(void)state;
	expect_error("assume fenced_enable;\n"
	             "struct node { key: be24; pad: u8[5]; next: *node in nodes; value: u8[64]; }\n"
	             "region nodes: node[4096] readonly;\n"
	             "offload f(key: be24, head: *node in nodes) -> u8[64] {\n"
	             "  let p = head;\n"
	             "  while (p.next != head) bound 100 {\n"
	             "    if (p.key == key) { return p.value; break; }\n"
	             "    p = p.next;\n"
	             "  }\n}\n",
	             IR_PROFILE_RELAXED, "recycled loop is lowered for a pointer walk only");
}

/* A loop in an `if` with an `else` is not lowered: rejected with the
 * reason (a loop ending an `if` arm: tests/compiler/test_loop_nest.c). */
static void test_reject_loop_in_if(void **state)
{
	(void)state;
	expect_error("struct node { key: be24; pad: u8[5]; next: *node in nodes; value: u8[64]; }\n"
	             "region nodes: node[4096] readonly;\n"
	             "offload f(key: be24, head: *node in nodes) -> u8[64] {\n"
	             "  let p = head;\n"
	             "  if (p.key == key) { while (p.key != key) bound 2 { p = p.next; } }\n"
	             "  else { return p.value; }\n}\n",
	             IR_PROFILE_RELAXED, "an `if` without `else`");
}

/* Under strict an `if` is built from carries (test_be_cond.c): the guarded
 * response is an exact NOP, its QPN and index relocated like any WQE. */
static void test_reject_strict_if(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok(src_if, IR_PROFILE_STRICT);
	int conn = be_queue(o, "conn");
	unsigned qpn_relocs = 0;
	for (uint32_t i = 0; i < o->n_relocs; i++)
		if (o->relocs[i].site.queue == (uint32_t)conn &&
		    o->relocs[i].site.ring == CHAINOBJ_RING_SQ && o->relocs[i].site.wqe == 0 &&
		    o->relocs[i].kind == CHAINOBJ_RELOC_QPN && o->relocs[i].site.offset == 4)
			qpn_relocs++;
	assert_int_equal(qpn_relocs, 1);
	chainobj_free(o);
}

static void test_reject_wide_operand(void **state)
{
	(void)state;
	expect_error(
	    "struct b { key: u8[24]; v: *u8[8] in vals; }\nregion t: b[4] readonly;\n"
	    "region vals size 64 readonly;\n"
	    "offload g(k: u8[24], p: *b in t) -> u8[8] { if (p.key == k) { return *p.v; } }\n",
	    IR_PROFILE_RELAXED, "compares aggregates of at most 16 bytes");
}

/* A store to a field after offset 0 behind a pointer: the pointer lands
 * in the WRITE's raddr, a 16-byte masked FETCH_ADD on [raddr | rkey] adds
 * the field offset (big-endian, like the field), then the WRITE runs. */
static void test_field_store_offset(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok("struct s { a: le64; b: le64; }\nregion r: s[4] writable;\n"
	                                "offload f(p: *s in r, v: le64) { p.b = v; }\n",
	                                IR_PROFILE_RELAXED);
	assert_string_equal(be_ops(o, "w0"), "MFA WAIT EN WRITE WAIT EN");
	struct prism_wqe fa = decode(o, "w0", 0);
	assert_int_equal(fa.atomic.size, 16);
	static const uint8_t add[16] = {0, 0, 0, 0, 0, 0, 0, 8};
	static const uint8_t zero[16];
	assert_memory_equal(fa.atomic.swap_bytes, add, 16);
	assert_memory_equal(fa.atomic.swap_mask_bytes, zero, 16); /* no field boundary */
	/* it targets the WRITE's raddr (queue memory, byte 16 of wqe 3) */
	int w0 = be_queue(o, "w0");
	unsigned hits = 0;
	for (uint32_t i = 0; i < o->n_patches; i++) {
		const struct chainobj_patch *p = &o->patches[i];
		if (p->kind == CHAINOBJ_PATCH_MASKED_FETCH_ADD && p->writer_wqe == 0 &&
		    p->target.queue == (uint32_t)w0 && p->target.wqe == 3) {
			assert_int_equal(p->target.offset, 16);
			assert_int_equal(p->target.width, 16);
			hits++;
		}
	}
	assert_int_equal(hits, 1);
	chainobj_free(o);
}

static void test_reject_readonly_store(void **state)
{
	(void)state;
	expect_error(HDR "offload f(b: *bucket in table, k: be24) { b.key = k; }\n",
	             IR_PROFILE_RELAXED, "error");
}

/* A parameter the body never uses is still in the payload: its bytes land
 * in a scratch sink (the object stays valid, the client ABI uniform). */
static void test_unused_parameter(void **state)
{
	(void)state;
	struct chainobj *o =
	    compile_ok("struct s { a: le64; }\nregion r: s[4] writable;\n"
	               "offload f(a: le64, unused: le64, p: *s in r) { p.a = a; }\n",
	               IR_PROFILE_RELAXED);
	assert_int_equal(o->entries[0].n_params, 3);
	assert_int_equal(o->entries[0].params[1].copies, 1);
	assert_int_equal(o->entries[0].params[1].n_sge, 1);
	assert_int_equal(o->entries[0].msg_size, 24);
	chainobj_free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_if_return_sequence),
	    cmocka_unit_test(test_unused_parameter),
	    cmocka_unit_test(test_if_operand_placement),
	    cmocka_unit_test(test_two_buckets_one_barrier),
	    cmocka_unit_test(test_parallel_lanes),
	    cmocka_unit_test(test_store_and_atomics),
	    cmocka_unit_test(test_le_pointer_swapped),
	    cmocka_unit_test(test_loop_walk_sequence),
	    cmocka_unit_test(test_loop_break_sequence),
	    cmocka_unit_test(test_lib_list_find_compiles),
	    cmocka_unit_test(test_reject_loop_bound_too_large),
	    cmocka_unit_test(test_reject_loop_in_if),
	    cmocka_unit_test(test_reject_strict_if),
	    cmocka_unit_test(test_reject_wide_operand),
	    cmocka_unit_test(test_field_store_offset),
	    cmocka_unit_test(test_reject_readonly_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
