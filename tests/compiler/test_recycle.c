/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/test_recycle.c - recycled loops (RedN 3.4) from source to
 * the software NIC: the lap's WQE sequence (golden), the object's `recycle`
 * entry, the language rules (automatic for bounds above the unroll limit,
 * `recycle` to force it, strict profile rejected, bodies it does not know
 * rejected), the verifier's lap rules (each rejection), and a recycled list
 * walk compiled and run through the runtime: thousands of randomized
 * lookups over lists longer than any unrolled loop, hits at every
 * position, misses, one connection (re-arm after every invocation).
 *
 * Owns: these checks.  The walk is lib/chains/list_find.prism's `find`
 * with a bound of 300.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <prism/prism.h>
#include <prism/wqe.h>

#include "runtime/chain/chain_verify.h"
#include "tests/compiler/be_helpers.h"
#include "util/byteorder.h"

#define NODE     80u
#define VALUE    64u
#define N_LISTS  12u
#define LIST_MAX 280u
#define BOUND    300u
#define UNROLLED 14u

#define WALK_PRELUDE                                                                               \
	"assume fenced_enable;\n"                                                                  \
	"struct node { key: be24; pad: u8[5]; next: *node in nodes; value: u8[64]; }\n"            \
	"region nodes: node[4096] readonly;\n"

static const char *walk_named(const char *name, unsigned bound, const char *recycle)
{
	static char buf[1024];
	snprintf(buf, sizeof(buf),
	         WALK_PRELUDE "offload %s(key: be24, head: *node in nodes) -> u8[64] {\n"
	                      "  let p = head;\n"
	                      "  while (p.key != key) bound %u%s {\n"
	                      "    p = p.next;\n"
	                      "  }\n"
	                      "  if (p.key == key) {\n"
	                      "    return p.value;\n"
	                      "  }\n"
	                      "}\n",
	         name, bound, recycle);
	return buf;
}

static const char *walk_src(unsigned bound, const char *recycle)
{
	return walk_named("find", bound, recycle);
}

static struct chainobj *compile_ok(const char *src, enum ir_profile prof)
{
	char *diag = NULL;
	struct chainobj *o = be_compile(src, NULL, prof, &diag);
	if (!o)
		fail_msg("compile failed:\n%s", diag ? diag : "");
	free(diag);
	return o;
}

static char *compile_err(const char *src, enum ir_profile prof)
{
	char *diag = NULL;
	struct chainobj *o = be_compile(src, NULL, prof, &diag);
	if (o) {
		chainobj_free(o);
		free(diag);
		fail_msg("compiled, expected an error");
	}
	assert_non_null(diag);
	return diag;
}

/* ---- lowering ---------------------------------------------------------------- */

/* The lap: keep p, walk READ, C's count, exit test, bound test, the
 * fenced enable of C (no WAIT: the fence orders it behind C's writers), the
 * next lap's enable count, C; one NOP pads it to 16 BBs. */
static void test_lap_golden(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok(walk_src(BOUND, ""), IR_PROFILE_RELAXED);
	assert_string_equal(be_ops(o, "w0r0"), "READ READ MFA MCAS MCAS EN MFA EN NOP");
	assert_string_equal(be_ops(o, "w0"), "EN");
	int q = be_queue(o, "w0r0");
	assert_true(q >= 0);
	const struct chainobj_queue *l = &o->queues[q];
	/* the lap's fenced enables are an assumption the object records */
	assert_int_equal(o->schema, CHAINOBJ_SCHEMA_ASSUME);
	assert_true(o->assumes & CHAINOBJ_ASSUME_FENCED_ENABLE);
	assert_int_equal(l->sq_slots, 16);
	assert_int_equal(l->sq_per_invocation, 0);
	assert_true(l->managed_send);
	assert_int_equal(l->recycle.max_laps, BOUND + 1);
	assert_int_equal(l->recycle.counter_wqe, 5);
	assert_int_equal(l->recycle.counter_offset, 24);
	assert_int_equal(l->recycle.cq_per_lap, 0); /* nothing signaled */
	assert_true(o->cqs[l->send_cq].ignore_overrun);
	assert_int_equal(o->cqs[l->send_cq].per_invocation, 0);
	/* the exit names C (retargeted by both tests), L advances by laps */
	assert_int_equal(o->n_exits, 1);
	assert_int_equal(o->exits[0].queue, (uint32_t)q);
	assert_int_equal(o->exits[0].wqe, 3);
	assert_int_equal(o->exits[0].enable, 7);
	assert_int_equal(o->exits[0].sq_advance[q], 0);
	/* per lap: 2 copies (keep p, walk), 4 atomics (two count advances,
	 * exit and bound tests), 2 ordering (the fenced SEND_EN, C) */
	unsigned copy = 0, atomic = 0, order = 0, nop = 0;
	for (uint32_t i = 0; i < l->n_sq; i++) {
		struct prism_wqe w;
		assert_true(prism_wqe_decode(l->sq[i].bytes, l->sq[i].len, &w, NULL) > 0);
		const struct prism_opcode_info *info = prism_opcode_info(w.ctrl.opcode);
		if (w.ctrl.opcode == PRISM_OP_NOP)
			nop++;
		else if (info->cls == PRISM_CLASS_ORDERING)
			order++;
		else if (info->cls == PRISM_CLASS_ATOMIC)
			atomic++;
		else
			copy++;
	}
	assert_int_equal(copy, 2);
	assert_int_equal(atomic, 4);
	assert_int_equal(order, 2);
	assert_int_equal(nop, 1);
	/* one NOP pads 10 BBs to the 16-BB ring */
	assert_int_equal(l->sq[l->n_sq - 1].slot, 10);
	assert_int_equal(l->sq[l->n_sq - 1].len, 6 * PRISM_WQE_BB);
	/* the in-lap enable and C are fenced; nothing in the lap is signaled */
	for (uint32_t i = 0; i < l->n_sq; i++) {
		struct prism_wqe w;
		assert_true(prism_wqe_decode(l->sq[i].bytes, l->sq[i].len, &w, NULL) > 0);
		if (i == 5 || i == 7)
			assert_int_equal(prism_ctrl_fence(&w.ctrl), PRISM_FENCE_SMALL_AND_FENCE);
		assert_int_equal(prism_ctrl_ce(&w.ctrl), PRISM_CE_NONE);
	}
	chainobj_free(o);
}

/* Bounds above the unroll limit recycle; `recycle` forces it; small
 * bounds stay unrolled. */
static void test_recycled_when(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok(walk_src(65, ""), IR_PROFILE_RELAXED);
	assert_true(be_queue(o, "w0r0") >= 0);
	chainobj_free(o);
	o = compile_ok(walk_src(8, " recycle"), IR_PROFILE_RELAXED);
	assert_true(be_queue(o, "w0r0") >= 0);
	assert_int_equal(o->queues[be_queue(o, "w0r0")].recycle.max_laps, 9);
	chainobj_free(o);
	o = compile_ok(walk_src(8, ""), IR_PROFILE_RELAXED);
	assert_int_equal(be_queue(o, "w0r0"), -1);
	assert_int_equal(o->queues[be_queue(o, "w0")].recycle.max_laps, 0);
	chainobj_free(o);
}

/* Without `assume fenced_enable;` the lap (fenced SEND_ENs) is refused;
 * an unrolled walk compiles to RedN's WAIT + SEND_EN and assumes nothing. */
static void test_needs_fenced_enable_assumption(void **state)
{
	(void)state;
	const char *src = walk_src(8, " recycle") + strlen("assume fenced_enable;\n");
	char *d = compile_err(src, IR_PROFILE_RELAXED);
	assert_non_null(strstr(d, "t.prism:5:3: error: a recycled loop's lap orders its SEND_ENs "
	                          "with fence bits"));
	assert_non_null(strstr(d, "declare `assume fenced_enable;`"));
	free(d);
	struct chainobj *o =
	    compile_ok(walk_src(8, "") + strlen("assume fenced_enable;\n"), IR_PROFILE_RELAXED);
	assert_false(o->assumes & CHAINOBJ_ASSUME_FENCED_ENABLE);
	chainobj_free(o);
	o = compile_ok(walk_src(8, ""), IR_PROFILE_RELAXED); /* the fenced form, assumed */
	assert_true(o->assumes & CHAINOBJ_ASSUME_FENCED_ENABLE);
	chainobj_free(o);
}

static void test_strict_rejected(void **state)
{
	(void)state;
	char *d = compile_err(walk_src(8, " recycle"), IR_PROFILE_STRICT);
	/* file:line:col of the `while`, the reason, and a caret */
	assert_non_null(
	    strstr(d, "t.prism:6:3: error: a recycled loop needs the relaxed firmware"));
	assert_non_null(strstr(d, "control-segment index then no longer matches"));
	assert_non_null(strstr(d, "drop `recycle` to unroll the loop"));
	assert_non_null(strstr(d, "^"));
	free(d);
	d = compile_err(walk_src(200, ""), IR_PROFILE_STRICT);
	assert_non_null(strstr(d, "needs the relaxed firmware profile"));
	assert_non_null(strstr(d, "a bound of at most 64 unrolls the loop"));
	free(d);
}

static void test_unsupported_bodies_rejected(void **state)
{
	(void)state;
	static const struct {
		const char *body, *why;
	} cases[] = {
	    {"  while (p.key != key) bound 100 { p = p.next; p = p.next; }\n",
	     "the body must be the one statement"},
	    {"  while (p.key == key) bound 100 { p = p.next; }\n", "the condition is not"},
	    {"  while (p.key != key) bound 100 { p = head; }\n", "assign `p = p.next`"},
	    {"  while (p.next != p) bound 100 { p = p.next; }\n", "must not depend on it"},
	    {"  while (true) bound 100 { p = p.next; }\n", "`while (true)` needs the body"},
	    {"  while (true) bound 100 { if (p.key == key) { return p.value; break; } p = p.next; "
	     "}\n",
	     "`while (true)` needs the body"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char src[1024];
		snprintf(src, sizeof(src),
		         WALK_PRELUDE "offload find(key: be24, head: *node in nodes) -> u8[64] {\n"
		                      "  let p = head;\n%s"
		                      "  if (p.key == key) { return p.value; }\n}\n",
		         cases[i].body);
		char *d = compile_err(src, IR_PROFILE_RELAXED);
		if (!strstr(d, cases[i].why))
			fail_msg("case %zu: diagnostic was:\n%s", i, d);
		assert_non_null(strstr(d, "recycled loop is lowered for a pointer walk only"));
		free(d);
	}
	/* 4096 laps of 16 BBs do not fit the 16-bit index the bound test reads */
	char *d = compile_err(walk_src(4096, ""), IR_PROFILE_RELAXED);
	assert_non_null(strstr(d, "too large to recycle"));
	free(d);
}

/* Other walks of the same shape: the first node through a READ, a constant
 * key, the pointer field before the key field.  Each compiles and verifies. */
static void test_walk_variants(void **state)
{
	(void)state;
	static const char *const srcs[] = {
	    WALK_PRELUDE "offload f(key: be24, head: *node in nodes) -> u8[64] {\n"
	                 "  let p = head.next;\n"
	                 "  while (p.key != key) bound 100 { p = p.next; }\n"
	                 "  if (p.key == key) { return p.value; }\n}\n",
	    WALK_PRELUDE "offload f(head: *node in nodes) -> u8[64] {\n"
	                 "  let p = head;\n"
	                 "  while (p.key != 7) bound 100 { p = p.next; }\n"
	                 "  return p.value;\n}\n",
	    WALK_PRELUDE "offload f(key: be24, head: *node in nodes) -> u8[64] {\n"
	                 "  let p = head;\n"
	                 "  while (true) bound 100 { if (p.key == key) { break; } p = p.next; }\n"
	                 "  return p.value;\n}\n",
	    "assume fenced_enable;\n"
	    "struct node { next: *node in nodes; pad: u8[8]; key: be32; }\n"
	    "region nodes: node[64] readonly;\n"
	    "offload f(key: be32, head: *node in nodes) -> be32 {\n"
	    "  let p = head;\n"
	    "  while (key != p.key) bound 8 recycle { p = p.next; }\n"
	    "  return p.key;\n}\n",
	};
	for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++) {
		struct chainobj *o = compile_ok(srcs[i], IR_PROFILE_RELAXED);
		assert_true(be_queue(o, "w0r0") >= 0);
		chainobj_free(o);
	}
}

/* One recycled loop per offload: the runtime learns one exit and one lap
 * count per invocation. */
static void test_second_loop_rejected(void **state)
{
	(void)state;
	static const char *const loops[] = {
	    "  while (key != p.key) bound 100 { p = p.next; }\n"
	    "  while (p.key != key) bound 4 { p = p.next; }\n",
	    "  while (p.key != key) bound 4 { p = p.next; }\n"
	    "  while (p.key != key) bound 100 { p = p.next; }\n",
	    "  while (p.key != key) bound 100 { p = p.next; }\n"
	    "  while (p.key != key) bound 100 { p = p.next; }\n",
	};
	for (size_t i = 0; i < sizeof(loops) / sizeof(loops[0]); i++) {
		char src[1024];
		snprintf(src, sizeof(src),
		         WALK_PRELUDE "offload f(key: be24, head: *node in nodes) -> u8[64] {\n"
		                      "  let p = head;\n%s  return p.value;\n}\n",
		         loops[i]);
		char *d = compile_err(src, IR_PROFILE_RELAXED);
		if (!strstr(d, "must be the only loop of its offload"))
			fail_msg("case %zu: diagnostic was:\n%s", i, d);
		assert_non_null(strstr(d, "t.prism:7:3: error:"));
		free(d);
	}
}

/* ---- verifier: the lap rules ------------------------------------------------------ */

static struct chainobj_reloc *reloc_at(struct chainobj *o, uint32_t q, uint32_t wqe, uint32_t off)
{
	for (uint32_t i = 0; i < o->n_relocs; i++) {
		struct chainobj_reloc *r = &o->relocs[i];
		if (r->site.queue == q && r->site.ring == CHAINOBJ_RING_SQ && r->site.wqe == wqe &&
		    r->site.offset == off)
			return r;
	}
	return NULL;
}

/* Re-encode template (q, i) after @edit changed its decoded form. */
static void edit_wqe(struct chainobj *o, uint32_t q, uint32_t i, void (*edit)(struct prism_wqe *))
{
	struct chainobj_wqe *t = &o->queues[q].sq[i];
	struct prism_wqe w;
	assert_true(prism_wqe_decode(t->bytes, t->len, &w, NULL) > 0);
	edit(&w);
	uint8_t buf[PRISM_WQE_MAX_BYTES] = {0};
	assert_int_equal(prism_wqe_encode(&w, buf, sizeof(buf), NULL), (int)t->len);
	memcpy(t->bytes, buf, t->len);
}

static void no_fence(struct prism_wqe *w)
{
	w->ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_NONE, prism_ctrl_ce(&w->ctrl), false);
}

static void compare_whole_index(struct prism_wqe *w)
{
	w->atomic.compare_mask_bytes[8] = 0xff;
}

static void add_two_rings(struct prism_wqe *w)
{
	w->atomic.swap = 32;
}

static void add_nothing(struct prism_wqe *w)
{
	w->atomic.swap = 0;
}

static void expect_reject(struct chainobj *o, enum chain_verify_err err, const char *needle)
{
	struct chain_verify_report rep;
	assert_int_equal(chain_verify(o, 0, &rep), -EINVAL);
	if (rep.err != err || !strstr(rep.msg, needle))
		fail_msg("got %s: %s", chain_verify_err_name(rep.err), rep.msg);
}

/* Mutations of a verified lap, each of which must be rejected. */
static void unfence_c(struct chainobj *o, uint32_t q)
{
	/* C not fenced: the next lap's walk READ / SEND_EN may be fetched
	 * before the READ / FETCH_ADD that rewrite them completed */
	edit_wqe(o, q, 7, no_fence);
}

static void unfence_in_lap_enable(struct chainobj *o, uint32_t q)
{
	/* the in-lap enable of C not fenced (and no WAIT before it): C may be
	 * fetched before the walk READ and the tests rewrote it */
	edit_wqe(o, q, 5, no_fence);
}

static void widen_bound_compare(struct chainobj *o, uint32_t q)
{
	/* the bound test compares more than C's index: no bound */
	edit_wqe(o, q, 4, compare_whole_index);
}

static void bound_past_max(struct chainobj *o, uint32_t q)
{
	/* the bound test's lap is beyond the declared maximum */
	reloc_at(o, q, 4, 56)->delta += 16;
}

static void c_two_rings(struct chainobj *o, uint32_t q)
{
	/* C advances by two rings a lap: the bound test would skip its lap */
	edit_wqe(o, q, 2, add_two_rings);
}

static void counter_two_rings(struct chainobj *o, uint32_t q)
{
	/* the lap counter the runtime reads does not grow by a lap */
	edit_wqe(o, q, 6, add_two_rings);
}

static void cq_overrun_checked(struct chainobj *o, uint32_t q)
{
	/* overflow must be ignored on the lap's CQ */
	o->cqs[o->queues[q].send_cq].ignore_overrun = false;
}

static void lap_unmanaged(struct chainobj *o, uint32_t q)
{
	o->queues[q].managed_send = false;
}

/* The object's own consistency (chainobj_validate, run first). */
static void counter_on_walk_read(struct chainobj *o, uint32_t q)
{
	o->queues[q].recycle.counter_wqe = 1; /* the walk READ */
}

static void too_many_laps(struct chainobj *o, uint32_t q)
{
	o->queues[q].recycle.max_laps = 5000;
}

static void exit_advances_lap(struct chainobj *o, uint32_t q)
{
	o->exits[0].sq_advance[q] = 16;
}

static void static_lap_advance(struct chainobj *o, uint32_t q)
{
	o->queues[q].sq_per_invocation = 16;
}

static void schema_one(struct chainobj *o, uint32_t q)
{
	(void)q;
	o->schema = CHAINOBJ_SCHEMA_VERSION;
	o->assumes = 0;
}

static void short_padding(struct chainobj *o, uint32_t q)
{
	/* a shorter padding NOP: the lap no longer fills the ring */
	struct chainobj_queue *l = &o->queues[q];
	struct chainobj_wqe *t = &l->sq[l->n_sq - 1];
	struct prism_ctrl_seg cs;

	prism_ctrl_seg_unpack(t->bytes, &cs);
	cs.ds = 12;
	prism_ctrl_seg_pack(&cs, t->bytes);
	t->len = 12 * PRISM_WQE_DS_BYTES;
}

static void test_verifier_lap_rules(void **state)
{
	static const struct {
		void (*mutate)(struct chainobj *o, uint32_t q);
		enum chain_verify_err err;
		const char *needle;
	} cases[] = {
	    {unfence_c, CHAIN_VERIFY_E_LAP, "does not wait for (or fence behind) the writer"},
	    {unfence_in_lap_enable, CHAIN_VERIFY_E_LAP,
	     "in the same lap, but no SEND_EN between them"},
	    {widen_bound_compare, CHAIN_VERIFY_E_LAP, "without a bound test"},
	    {bound_past_max, CHAIN_VERIFY_E_LAP, "declares at most 301"},
	    {c_two_rings, CHAIN_VERIFY_E_LAP, "must advance by the ring"},
	    {counter_two_rings, CHAIN_VERIFY_E_LAP, "lap counter"},
	    {cq_overrun_checked, CHAIN_VERIFY_E_STRUCTURE, "ignores overrun"},
	    {lap_unmanaged, CHAIN_VERIFY_E_STRUCTURE, "a lap queue is managed"},
	    {counter_on_walk_read, CHAIN_VERIFY_E_STRUCTURE,
	     "is not a WAIT count or SEND_EN index"},
	    {too_many_laps, CHAIN_VERIFY_E_STRUCTURE, "overflow the 16-bit SEND_EN index"},
	    {exit_advances_lap, CHAIN_VERIFY_E_STRUCTURE, "advances by its laps, not by an exit"},
	    {static_lap_advance, CHAIN_VERIFY_E_STRUCTURE, "advances by its laps only"},
	    {schema_one, CHAIN_VERIFY_E_STRUCTURE, "needs schema 2"},
	    {short_padding, CHAIN_VERIFY_E_STRUCTURE, "fill 13 of the 16 ring slots"},
	};
	struct chain_verify_report rep;
	struct chainobj *o = compile_ok(walk_src(BOUND, ""), IR_PROFILE_RELAXED);
	uint32_t q = (uint32_t)be_queue(o, "w0r0");

	(void)state;
	assert_int_equal(chain_verify(o, 0, &rep), 0);
	chainobj_free(o);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		o = compile_ok(walk_src(BOUND, ""), IR_PROFILE_RELAXED);
		cases[i].mutate(o, q);
		expect_reject(o, cases[i].err, cases[i].needle);
		chainobj_free(o);
	}
}

/* The WAIT form of the lap (WAIT for the bound test's CQE, then an unfenced
 * SEND_EN of C; what the compiler emitted before the fenced enable, kept as
 * a fuzz seed) is still accepted, and rejected when its WAIT does not cover
 * C's writers. */
#define WAIT_FORM_LAP "tests/fuzz/seeds/fuzz_chainobj/recycled_walk.chain"

static void test_verifier_wait_form(void **state)
{
	(void)state;
	struct chainobj *o = NULL;
	struct diag_report d;
	struct chain_verify_report rep;
	assert_int_equal(chainobj_read_file(WAIT_FORM_LAP, &o, &d), 0);
	int q = be_queue(o, "w0r0");
	assert_true(q >= 0);
	assert_int_equal(o->queues[q].recycle.cq_per_lap, 1);
	struct prism_wqe w;
	const struct chainobj_wqe *t = &o->queues[q].sq[5];
	assert_true(prism_wqe_decode(t->bytes, t->len, &w, NULL) > 0);
	assert_int_equal(w.ctrl.opcode, PRISM_OP_CQE_WAIT);
	t = &o->queues[q].sq[6];
	assert_true(prism_wqe_decode(t->bytes, t->len, &w, NULL) > 0);
	assert_int_equal(w.ctrl.opcode, PRISM_OP_SEND_ENABLE);
	assert_int_equal(prism_ctrl_fence(&w.ctrl), PRISM_FENCE_NONE);
	assert_int_equal(chain_verify(o, 0, &rep), 0);
	/* the WAIT's count as the lap counter: it grows by cq-per-lap */
	o->queues[q].recycle.counter_wqe = 5;
	assert_int_equal(chain_verify(o, 0, &rep), 0);
	/* a WAIT count that does not grow (a lap that signals nothing) cannot
	 * count laps */
	o->queues[q].recycle.cq_per_lap = 0;
	edit_wqe(o, (uint32_t)q, 7, add_nothing);
	expect_reject(o, CHAIN_VERIFY_E_LAP, "lap counter");
	chainobj_free(o);

	/* the WAIT counts nothing of this lap: C may be fetched before its
	 * writers completed */
	assert_int_equal(chainobj_read_file(WAIT_FORM_LAP, &o, &d), 0);
	reloc_at(o, (uint32_t)q, 5, 24)->delta = UINT32_MAX; /* CQE number -1 */
	expect_reject(o, CHAIN_VERIFY_E_LAP, "in the same lap, but no SEND_EN between them");
	chainobj_free(o);
}

/* The object round-trips through YAML (schema 3: a lap with its assumption)
 * and the loader verifies it. */
static void test_object_round_trip(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok(walk_src(BOUND, ""), IR_PROFILE_RELAXED), *back = NULL;
	char *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;
	struct diag_report d;
	assert_int_equal(chainobj_write_mem(o, 0, &a, &la, NULL), 0);
	assert_non_null(strstr(a, "prism-chain: 3\n"));
	assert_non_null(strstr(a, "assumes: [fenced-enable, send-en-bb-units]\n"));
	assert_non_null(strstr(a, "recycle: {max-laps: 301, counter-wqe: 5, counter-offset: 24, "
	                          "cq-per-lap: 0}"));
	assert_int_equal(chainobj_read_mem(a, la, &back, &d), 0);
	assert_int_equal(chainobj_write_mem(back, 0, &b, &lb, NULL), 0);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	struct chain_verify_report rep;
	assert_int_equal(chain_verify(back, 0, &rep), 0);
	free(a);
	free(b);
	chainobj_free(o);
	chainobj_free(back);
}

/* ---- end to end ------------------------------------------------------------------ */

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct walk_fx {
	struct prism_device *dev;
	struct prism_region *nodes;
	struct prism_program *prog, *unrolled, *from_next, *brk;
	struct prism_server *srv;
	uint8_t *mem;
	uint64_t base;
	uint32_t len[N_LISTS];
};

/* Circular lists of 65..LIST_MAX nodes, keys distinct within a list. */
static void fill(struct walk_fx *f)
{
	uint64_t s = 99;
	memset(f->mem, 0, (size_t)N_LISTS * LIST_MAX * NODE);
	for (uint32_t l = 0; l < N_LISTS; l++) {
		uint32_t len = 65 + (uint32_t)(rng(&s) % (LIST_MAX - 64));
		f->len[l] = len;
		for (uint32_t k = 0; k < len; k++) {
			uint32_t n = l * LIST_MAX + k, nx = l * LIST_MAX + (k + 1) % len;
			uint8_t *p = f->mem + (size_t)n * NODE;
			put_be(p, 3, ((rng(&s) & 0xffe00) | k) & 0xffffff);
			put_be(p + 8, 8, f->base + (uint64_t)nx * NODE);
			for (uint32_t j = 16; j < NODE; j += 8) {
				uint64_t r = rng(&s) | 1;
				memcpy(p + j, &r, 8);
			}
		}
	}
}

/* while (p.key != key) bound N { p = p.next } if (p.key == key) return p.value */
static const uint8_t *ref_find(const struct walk_fx *f, unsigned bound, uint32_t key, uint32_t head,
                               unsigned *steps)
{
	const uint8_t *p = f->mem + (size_t)head * NODE;
	unsigned i = 0;
	for (; i < bound && get_be(p, 3) != key; i++)
		p = f->mem + (get_be(p + 8, 8) - f->base);
	*steps = i;
	return get_be(p, 3) == key ? p : NULL;
}

/* Compile, write as YAML, open (the loader verifies again) and load. */
static struct prism_program *load(struct prism_device *dev, const char *src)
{
	struct chainobj *o = compile_ok(src, IR_PROFILE_RELAXED);
	char *yaml = NULL;
	size_t len = 0;
	assert_int_equal(chainobj_write_mem(o, 0, &yaml, &len, NULL), 0);
	chainobj_free(o);
	struct prism_program *p = prism_program__open_mem(yaml, len, NULL);
	free(yaml);
	assert_non_null(p);
	assert_int_equal(prism_program__load(p, dev), 0);
	return p;
}

static int walk_setup(void **state)
{
	static struct walk_fx f;
	memset(&f, 0, sizeof(f));
	if (getenv("PRISM_TEST_DEBUG"))
		prism_set_log_fn(prism_log_stderr, NULL, PRISM_LOG_DEBUG);
	PRISM_OPTS(prism_device_opts, dopts, .seed = 5, .hazard_fail = true);
	f.dev = prism_device__open("sim", &dopts);
	assert_non_null(f.dev);
	PRISM_OPTS(prism_region_opts, ropts, .access = PRISM_ACCESS_READ);
	f.nodes = prism_device__create_region(f.dev, "nodes", 4096 * NODE, &ropts);
	assert_non_null(f.nodes);
	f.mem = prism_region__addr(f.nodes);
	f.base = (uintptr_t)f.mem;
	fill(&f);
	f.prog = load(f.dev, walk_src(BOUND, ""));
	f.unrolled = load(f.dev, walk_named("unrolled", UNROLLED, ""));
	PRISM_OPTS(prism_server_opts, sopts, .rearm = PRISM_REARM_CPU);
	f.srv = prism_server__create(f.dev, &sopts);
	assert_non_null(f.srv);
	assert_int_equal(prism_server__add_program(f.srv, f.prog), 0);
	assert_int_equal(prism_server__add_program(f.srv, f.unrolled), 0);
	f.from_next = load(f.dev, WALK_PRELUDE
	                   "offload from_next(key: be24, head: *node in nodes) -> u8[64] {\n"
	                   "  let p = head.next;\n"
	                   "  while (p.key != key) bound 300 { p = p.next; }\n"
	                   "  if (p.key == key) { return p.value; }\n}\n");
	assert_int_equal(prism_server__add_program(f.srv, f.from_next), 0);
	f.brk = load(f.dev, WALK_PRELUDE
	             "offload find_brk(key: be24, head: *node in nodes) -> u8[64] {\n"
	             "  let p = head;\n"
	             "  while (true) bound 300 { if (p.key == key) { break; } p = p.next; }\n"
	             "  if (p.key == key) { return p.value; }\n}\n");
	assert_int_equal(prism_server__add_program(f.srv, f.brk), 0);
	*state = &f;
	return 0;
}

static int walk_teardown(void **state)
{
	struct walk_fx *f = *state;
	prism_server__destroy(f->srv);
	prism_program__close(f->prog);
	prism_program__close(f->unrolled);
	prism_program__close(f->from_next);
	prism_program__close(f->brk);
	prism_device__close(f->dev);
	return 0;
}

static uint64_t lookup_entry(struct walk_fx *f, struct prism_client *cl, const char *entry,
                             uint32_t key, uint32_t head, unsigned i, unsigned *steps, bool *hit);

static void lookup(struct walk_fx *f, struct prism_client *cl, uint32_t key, uint32_t head,
                   unsigned i, unsigned *steps, bool *hit)
{
	lookup_entry(f, cl, "find", key, head, i, steps, hit);
}

/* One invocation checked against the reference; its virtual-clock time. */
static uint64_t lookup_entry(struct walk_fx *f, struct prism_client *cl, const char *entry,
                             uint32_t key, uint32_t head, unsigned i, unsigned *steps, bool *hit)
{
	uint8_t out[NODE], zero[NODE] = {0};
	memset(out, 0, sizeof(out));
	struct prism_arg args[2] = {{.name = "key", .u64 = key},
	                            {.name = "head", .u64 = (uint64_t)head * NODE}};
	struct prism_call c = {.sz = sizeof(c),
	                       .entry = entry,
	                       .args = args,
	                       .nargs = 2,
	                       .result = out,
	                       .result_cap = sizeof(out)};
	int rc = prism_client__invoke(cl, &c, NULL);
	if (rc)
		fail_msg("%s #%u key 0x%06x head %u: %s", entry, i, key, head, prism_strerror(rc));
	const uint8_t *want =
	    ref_find(f, !strcmp(entry, "unrolled") ? UNROLLED : BOUND, key, head, steps);
	if ((c.ret_site != 0) != (want != NULL))
		fail_msg("#%u key 0x%06x head %u: %s, reference %s after %u steps", i, key, head,
		         c.ret_site ? "found" : "not found", want ? "found" : "not", *steps);
	if (want && memcmp(out + 16, want + 16, VALUE))
		fail_msg("#%u key 0x%06x head %u: value differs from the reference", i, key, head);
	if (!want && memcmp(out, zero, VALUE))
		fail_msg("#%u: a miss returned bytes", i);
	*hit = want != NULL;
	return c.virt_ns;
}

/* Every position of two lists from their heads, then random lookups. */
static void test_walk_matches_reference(void **state)
{
	struct walk_fx *f = *state;
	PRISM_OPTS(prism_client_opts, co, .program = "find");
	struct prism_client *cl = prism_client__connect_local(f->srv, &co);
	assert_non_null(cl);
	unsigned hits = 0, misses = 0, far = 0, steps;
	bool hit;
	for (uint32_t l = 0; l < 2; l++)
		for (uint32_t k = 0; k < f->len[l]; k++) {
			uint32_t n = l * LIST_MAX + k;
			lookup(f, cl, (uint32_t)get_be(f->mem + (size_t)n * NODE, 3), l * LIST_MAX,
			       k, &steps, &hit);
			assert_true(hit);
			assert_int_equal(steps, k);
		}
	uint64_t s = 4242;
	for (unsigned i = 0; i < 3000; i++) {
		uint32_t l = (uint32_t)(rng(&s) % N_LISTS);
		uint32_t head = l * LIST_MAX + (uint32_t)(rng(&s) % f->len[l]);
		uint32_t pick = l * LIST_MAX + (uint32_t)(rng(&s) % f->len[l]);
		uint32_t key = (rng(&s) % 4) ? (uint32_t)get_be(f->mem + (size_t)pick * NODE, 3)
		                             : (uint32_t)(rng(&s) & 0xffffff);
		lookup(f, cl, key, head, i, &steps, &hit);
		hits += hit;
		misses += !hit;
		far += steps > 64;
	}
	assert_true(hits > 1500 && misses > 300);
	assert_true(far > 500); /* beyond any unrolled loop */
	prism_client__close(cl);
	/* the same walk written with a break */
	PRISM_OPTS(prism_client_opts, cb, .program = "find_brk");
	cl = prism_client__connect_local(f->srv, &cb);
	assert_non_null(cl);
	hits = misses = 0;
	for (unsigned i = 0; i < 500; i++) {
		uint32_t l = (uint32_t)(rng(&s) % N_LISTS);
		uint32_t head = l * LIST_MAX + (uint32_t)(rng(&s) % f->len[l]);
		uint32_t pick = l * LIST_MAX + (uint32_t)(rng(&s) % f->len[l]);
		uint32_t key = (rng(&s) % 4) ? (uint32_t)get_be(f->mem + (size_t)pick * NODE, 3)
		                             : (uint32_t)(rng(&s) & 0xffffff);
		lookup_entry(f, cl, "find_brk", key, head, i, &steps, &hit);
		hits += hit;
		misses += !hit;
	}
	assert_true(hits > 250 && misses > 50);
	prism_client__close(cl);
}

/* The virtual clock's cost of one more iteration: recycled lap against an
 * unrolled iteration, on the same walks (hits after 2 and 12 steps; an
 * unrolled walk compiles up to bound 14: the client key is needed in every
 * iteration and a payload carries a parameter at most 16 times). */
static void test_walk_cost_per_iteration(void **state)
{
	struct walk_fx *f = *state;
	static const char *const entries[2] = {"find", "unrolled"};
	double per[2];
	for (int e = 0; e < 2; e++) {
		PRISM_OPTS(prism_client_opts, co, .program = entries[e]);
		struct prism_client *cl = prism_client__connect_local(f->srv, &co);
		assert_non_null(cl);
		uint64_t t[2] = {0, 0};
		const unsigned at[2] = {2, 12};
		for (int j = 0; j < 2; j++)
			for (uint32_t l = 0; l < N_LISTS; l++) {
				unsigned steps;
				bool hit;
				uint32_t n = l * LIST_MAX + at[j];
				t[j] += lookup_entry(f, cl, entries[e],
				                     (uint32_t)get_be(f->mem + (size_t)n * NODE, 3),
				                     l * LIST_MAX, l, &steps, &hit);
				assert_true(hit);
				assert_int_equal(steps, at[j]);
			}
		per[e] = (double)(t[1] - t[0]) / N_LISTS / (at[1] - at[0]) / 1000.0;
		prism_client__close(cl);
	}
	print_message("list walk, cx5 virtual clock, per iteration: recycled %.2f us, "
	              "unrolled %.2f us\n",
	              per[0], per[1]);
	assert_true(per[0] > 0 && per[1] > 0);
}

/* The first node through a READ on lane 0 (`let p = head.next`): that READ
 * rewrites the lap's walk READ before lane 0 enables the first lap. */
static void test_walk_from_next(void **state)
{
	struct walk_fx *f = *state;
	PRISM_OPTS(prism_client_opts, co, .program = "from_next");
	struct prism_client *cl = prism_client__connect_local(f->srv, &co);
	assert_non_null(cl);
	uint64_t s = 77;
	unsigned hits = 0;
	for (unsigned i = 0; i < 500; i++) {
		uint32_t l = (uint32_t)(rng(&s) % N_LISTS);
		uint32_t head = l * LIST_MAX + (uint32_t)(rng(&s) % f->len[l]);
		uint32_t pick = l * LIST_MAX + (uint32_t)(rng(&s) % f->len[l]);
		uint32_t key = (uint32_t)get_be(f->mem + (size_t)pick * NODE, 3);
		uint8_t out[NODE];
		struct prism_arg args[2] = {{.name = "key", .u64 = key},
		                            {.name = "head", .u64 = (uint64_t)head * NODE}};
		struct prism_call c = {.sz = sizeof(c),
		                       .entry = "from_next",
		                       .args = args,
		                       .nargs = 2,
		                       .result = out,
		                       .result_cap = sizeof(out)};
		assert_int_equal(prism_client__invoke(cl, &c, NULL), 0);
		/* the reference: start at head's successor */
		uint32_t next =
		    (uint32_t)((get_be(f->mem + (size_t)head * NODE + 8, 8) - f->base) / NODE);
		unsigned steps;
		const uint8_t *want = ref_find(f, BOUND, key, next, &steps);
		if ((c.ret_site != 0) != (want != NULL) ||
		    (want && memcmp(out + 16, want + 16, VALUE)))
			fail_msg("#%u key 0x%06x head %u: differs from the reference", i, key,
			         head);
		hits += want != NULL;
	}
	assert_int_equal(hits, 500); /* every key is on its circular list */
	prism_client__close(cl);
}

/* A walk off the region (a zero next pointer) fails its lap with a remote
 * access error: the invocation fails at once (the runtime scans the lap's
 * CQ for error completions), it does not time out. */
static void test_walk_bad_pointer_fails(void **state)
{
	struct walk_fx *f = *state;
	PRISM_OPTS(prism_client_opts, co, .program = "find", .timeout_ms = 60000);
	struct prism_client *cl = prism_client__connect_local(f->srv, &co);
	assert_non_null(cl);
	uint8_t out[NODE];
	struct prism_arg args[2] = {{.name = "key", .u64 = 5},
	                            {.name = "head", .u64 = (uint64_t)4000 * NODE}};
	struct prism_call c = {.sz = sizeof(c),
	                       .entry = "find",
	                       .args = args,
	                       .nargs = 2,
	                       .result = out,
	                       .result_cap = sizeof(out)};
	assert_int_equal(prism_client__invoke(cl, &c, NULL), -PRISM_E_CONN);
	prism_client__close(cl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lap_golden),
	    cmocka_unit_test(test_recycled_when),
	    cmocka_unit_test(test_strict_rejected),
	    cmocka_unit_test(test_unsupported_bodies_rejected),
	    cmocka_unit_test(test_walk_variants),
	    cmocka_unit_test(test_second_loop_rejected),
	    cmocka_unit_test(test_verifier_lap_rules),
	    cmocka_unit_test(test_verifier_wait_form),
	    cmocka_unit_test(test_needs_fenced_enable_assumption),
	    cmocka_unit_test(test_object_round_trip),
	    cmocka_unit_test_setup_teardown(test_walk_matches_reference, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_walk_cost_per_iteration, walk_setup,
	                                    walk_teardown),
	    cmocka_unit_test_setup_teardown(test_walk_bad_pointer_fails, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_walk_from_next, walk_setup, walk_teardown),
	};
	return cmocka_run_group_tests_name("recycle", tests, NULL, NULL);
}
