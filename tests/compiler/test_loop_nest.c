/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/test_loop_nest.c - unrolled `while` loops inside
 * `parallel` lanes (RedN-Parallel: each lane its own queue, its loop exits
 * enable the lane's continuation queue, joined before the response) and
 * ending the arm of an `if` (the condition's complement takes the loop's
 * first exit).
 *
 * Owns: the golden WQE sequences (two list walks in two lanes, a walk in an
 * `if` arm), the rejections that stay (a loop value used outside its lane, a
 * recycled loop in a lane, a loop in an `else`, a nested or `cas` condition
 * or not last in its arm, a loop in a loop), and runs on the software NIC
 * (prefetch hazards fail; lanes under both profiles) against a C reference
 * with randomized lists and keys, covering an exit at every iteration, the
 * bound, both lanes and both outcomes of the `if` (every comparison); and
 * the loader's validator checking a guarded patch writer in its armed form.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/compiler/be_helpers.h"
#include "tests/compiler/be_sim.h"

#define HDR                                                                                        \
	"struct node { key: be24; pad: u8[5]; next: *node in nodes; val: le64; }\n"                \
	"struct ctr { n1: le64; n2: le64; n3: le64; }\n"                                           \
	"region nodes: node[64] readonly;\n"                                                       \
	"region counters: ctr[1] writable;\n"

enum { NODE = 24, NNODES = 16, BOUND = 3, CALLS = 300 };

/* Two walks, one per lane, each counting a hit in its own counter. */
static const char *src_two =
    HDR "offload two(k1: be24, h1: *node in nodes, k2: be24, h2: *node in nodes,\n"
        "            c: *ctr in counters) {\n"
        "  parallel {\n"
        "    let p = h1;\n"
        "    while (p.key != k1) bound 3 { p = p.next; }\n"
        "    if (p.key == k1) { fetch_add(c.n1, 1); }\n"
        "  } || {\n"
        "    let q = h2;\n"
        "    while (q.key != k2) bound 3 { q = q.next; }\n"
        "    if (q.key == k2) { fetch_add(c.n2, 1); }\n"
        "  }\n"
        "  fetch_add(c.n3, 1);\n"
        "}\n";

/* Only lane 1 loops; its continuation ends with the loop (the join waits
 * for the lane's marker NOP), and the main chain goes on after the join. */
static const char *src_one =
    HDR "offload one(k1: be24, h1: *node in nodes, k2: be24, h2: *node in nodes,\n"
        "            c: *ctr in counters) {\n"
        "  parallel {\n"
        "    if (h1.key == k1) { fetch_add(c.n1, 1); }\n"
        "  } || {\n"
        "    let q = h2;\n"
        "    while (q.key != k2) bound 3 { fetch_add(c.n2, 1); q = q.next; }\n"
        "  }\n"
        "  fetch_add(c.n3, 1);\n"
        "}\n";

static void test_two_lanes_golden(void **state)
{
	(void)state;
	struct chainobj *o = be_compile(src_two, NULL, IR_PROFILE_RELAXED, NULL);
	assert_non_null(o);
	/* each lane: the walk's iterations (READ, exit test, barrier WAIT and
	 * enable, exit enable), the phi's landing READs; its continuation queue tests the
	 * key once more and adds; the join waits for both continuations */
	/* lane 0 is the main chain: the staging READ of client arguments (they
	 * need more than 16 RECV entries), then per iteration the node READ,
	 * the exit test, its barrier (WAIT + SEND_EN, RedN's form) and the exit
	 * enable; the phi's landing
	 * READs; the fall-through's barrier and enable */
	assert_string_equal(be_ops(o, "w0"), "READ READ READ READ MCAS WAIT EN EN READ READ MCAS "
	                                     "WAIT EN EN READ READ MCAS WAIT EN EN READ WAIT EN");
	/* lane 0's continuation: the key test, the guarded add, the add after
	 * the parallel, then the join (a WAIT per lane continuation's CQ) and
	 * the response's enable */
	assert_string_equal(be_ops(o, "w0c0"), "READ CAS WAIT EN NOP MFA WAIT EN FA WAIT WAIT EN");
	/* lane 1: its first exit also waits for lane 0's staging READ (the
	 * second WAIT), which delivers the walk's start `h2` where the value
	 * after the loop lands: the later exits' landings must overwrite it */
	assert_string_equal(be_ops(o, "w1"), "READ MCAS WAIT WAIT EN EN READ READ MCAS WAIT EN EN "
	                                     "READ READ WAIT EN MCAS WAIT EN EN READ WAIT EN");
	/* lane 1's continuation: it waits for lane 0's staging READ (a WAIT
	 * before the barrier enable: the loop exit that enabled the queue did
	 * not) */
	assert_string_equal(be_ops(o, "w1c1"), "WAIT MFA EN READ WAIT EN CAS WAIT EN NOP");
	assert_string_equal(be_ops(o, "ctl"), "WAIT WAIT EN EN");
	assert_string_equal(be_ops(o, "conn"), "WRITE_IMM");
	/* each walk's exits are listed with their own queue */
	unsigned in_w0 = 0, in_w1 = 0;
	for (uint32_t i = 0; i < o->n_exits; i++) {
		in_w0 += o->exits[i].queue == (uint32_t)be_queue(o, "w0");
		in_w1 += o->exits[i].queue == (uint32_t)be_queue(o, "w1");
	}
	assert_int_equal(in_w0, BOUND);
	assert_int_equal(in_w1, BOUND);
	assert_int_equal(o->n_exits, 2 * BOUND);
	chainobj_free(o);
}

/* What stays rejected, at the loop with position and caret. */
static void expect_error(const char *body, const char *want)
{
	char src[2048];
	snprintf(src, sizeof(src),
	         HDR "offload f(k1: be24, h1: *node in nodes, c: *ctr in counters) {\n%s}\n", body);
	char *diag = NULL;
	struct chainobj *o = be_compile(src, NULL, IR_PROFILE_RELAXED, &diag);
	assert_null(o);
	assert_non_null(diag);
	if (!strstr(diag, want))
		fprintf(stderr, "want: %s\ngot: %s\n", want, diag);
	assert_non_null(strstr(diag, want));
	assert_non_null(strstr(diag, "^~~~~")); /* the caret under `while` */
	free(diag);
}

static void test_rejections(void **state)
{
	(void)state;
	/* the lane's loop value used after the join */
	expect_error("  let q = h1;\n"
	             "  parallel { fetch_add(c.n1, 1); } || {\n"
	             "    while (q.key != k1) bound 3 { q = q.next; }\n"
	             "  }\n"
	             "  if (q.key == k1) { fetch_add(c.n2, 1); }\n",
	             "t.prism:8:5: error: a value computed in this loop's `parallel` lane is used "
	             "outside the lane");
	/* a recycled loop in a lane */
	expect_error(
	    "  parallel { fetch_add(c.n1, 1); } || {\n"
	    "    let q = h1;\n"
	    "    while (q.key != k1) bound 100 { q = q.next; }\n"
	    "  }\n",
	    "t.prism:8:5: error: a recycled loop (`recycle`, or a bound above 64) is "
	    "lowered at the top level of an offload only, not in a `parallel` lane or an `if`");
	/* a loop in an `if` with an `else`, in a nested `if`, not last in its
	 * arm; a loop in a loop */
	const char *arm = "t.prism:8:5: error: a loop inside an `if` is lowered only as the last "
	                  "statement of an `if` without `else`";
	expect_error("  let q = h1;\n"
	             "  if (q.key == k1) {\n"
	             "    while (q.key != k1) bound 3 { q = q.next; }\n"
	             "  } else { fetch_add(c.n1, 1); }\n",
	             arm);
	expect_error("  let q = h1;\n"
	             "  if (q.key == k1) { if (k1 > q.key) {\n"
	             "    while (q.key != k1) bound 3 { q = q.next; }\n"
	             "  } }\n",
	             arm);
	expect_error("  let q = h1;\n"
	             "  if (q.key == k1) {\n"
	             "    while (q.key != k1) bound 3 { q = q.next; }\n"
	             "    fetch_add(c.n1, 1);\n"
	             "  }\n",
	             arm);
	/* a `cas` as the condition (not one comparison) */
	expect_error("  let q = h1;\n"
	             "  if (cas(c.n1, 0, 1)) {\n"
	             "    while (q.key != k1) bound 3 { q = q.next; }\n"
	             "  }\n",
	             arm);
	expect_error("  let q = h1;\n"
	             "  while (q.key != k1) bound 3 {\n"
	             "    while (q.key != k1) bound 3 { q = q.next; }\n"
	             "  }\n",
	             "t.prism:8:5: error: a loop inside a loop is not lowered");
}

/* ---- runs on the sim ---- */

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static unsigned key_of(unsigned n)
{
	return 0x100u + n;
}

/* A random ring over the 16 nodes (absolute next pointers). */
static void shuffle_ring(uint8_t *nodes, unsigned *next, uint64_t *seed)
{
	unsigned perm[NNODES];
	for (unsigned i = 0; i < NNODES; i++)
		perm[i] = i;
	for (unsigned i = NNODES - 1; i > 0; i--) {
		unsigned j = (unsigned)(rng(seed) % (i + 1));
		unsigned t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	uintptr_t base = (uintptr_t)nodes;
	for (unsigned i = 0; i < NNODES; i++) {
		unsigned n = perm[i], nx = perm[(i + 1) % NNODES];
		next[n] = nx;
		uint8_t *p = nodes + n * NODE;
		uint32_t k = key_of(n);
		p[0] = (uint8_t)(k >> 16);
		p[1] = (uint8_t)(k >> 8);
		p[2] = (uint8_t)k;
		uint64_t a = base + (uint64_t)nx * NODE;
		for (int j = 0; j < 8; j++)
			p[8 + j] = (uint8_t)(a >> (56 - 8 * j));
	}
}

/* The walk's reference: the iteration that exits (0..BOUND-1), BOUND when
 * the bound is reached; *hit: the key test after the loop holds. */
static unsigned walk(const unsigned *next, unsigned head, unsigned key, bool *hit)
{
	unsigned p = head;
	for (unsigned i = 0; i < BOUND; i++) {
		if (key_of(p) == key) {
			*hit = true;
			return i;
		}
		p = next[p];
	}
	*hit = key_of(p) == key;
	return BOUND;
}

/* A key `d` steps along the ring from `head` (d > BOUND+1 ... a miss). */
static unsigned key_at(const unsigned *next, unsigned head, unsigned d)
{
	if (d > BOUND + 1)
		return 0x999u;
	unsigned p = head;
	for (unsigned i = 0; i < d; i++)
		p = next[p];
	return key_of(p);
}

static uint64_t le64_at(const uint8_t *p)
{
	uint64_t v = 0;
	for (int k = 7; k >= 0; k--)
		v = v << 8 | p[k];
	return v;
}

static void run_on_sim(const char *src, bool two_walks, enum ir_profile prof)
{
	struct be_sim *s = be_sim_open(src, NULL, prof);
	assert_non_null(s);
	uint8_t *nodes = be_sim_region(s, "nodes");
	uint8_t *ctr = be_sim_region(s, "counters");
	assert_non_null(nodes);
	assert_non_null(ctr);
	uint64_t seed = two_walks ? 0x243f6a8885a308d3ull : 0x13198a2e03707344ull;
	unsigned next[NNODES];
	unsigned seen[2][BOUND + 2];
	memset(seen, 0, sizeof(seen));
	for (int i = 0; i < CALLS; i++) {
		shuffle_ring(nodes, next, &seed);
		unsigned h1 = (unsigned)(rng(&seed) % NNODES), h2 = (unsigned)(rng(&seed) % NNODES);
		unsigned k1 = key_at(next, h1, (unsigned)(rng(&seed) % (BOUND + 3)));
		unsigned k2 = key_at(next, h2, (unsigned)(rng(&seed) % (BOUND + 3)));
		memset(ctr, 0, 24);
		struct prism_arg args[5] = {{.name = "k1", .u64 = k1},
		                            {.name = "h1", .u64 = (uint64_t)h1 * NODE},
		                            {.name = "k2", .u64 = k2},
		                            {.name = "h2", .u64 = (uint64_t)h2 * NODE},
		                            {.name = "c", .u64 = 0}};
		assert_int_equal(be_sim_call(s, args, 5, NULL, 0, NULL), 0);
		bool hit1 = false, hit2 = false;
		unsigned x1 = walk(next, h1, k1, &hit1), x2 = walk(next, h2, k2, &hit2);
		uint64_t want1, want2;
		if (two_walks) {
			want1 = hit1;
			want2 = hit2;
			seen[0][hit1 || x1 < BOUND ? x1 : BOUND + 1]++;
		} else {
			want1 = key_of(h1) == k1;
			want2 = x2; /* one add per iteration that did not exit */
			seen[0][key_of(h1) == k1]++;
		}
		seen[1][hit2 || x2 < BOUND ? x2 : BOUND + 1]++;
		uint64_t n1 = le64_at(ctr), n2 = le64_at(ctr + 8), n3 = le64_at(ctr + 16);
		if (n1 != want1 || n2 != want2 || n3 != 1)
			fprintf(stderr,
			        "call %d: h1=%u k1=%#x h2=%u k2=%#x: got %llu %llu %llu, "
			        "want %llu %llu 1\n",
			        i, h1, k1, h2, k2, (unsigned long long)n1, (unsigned long long)n2,
			        (unsigned long long)n3, (unsigned long long)want1,
			        (unsigned long long)want2);
		assert_int_equal(n1, want1);
		assert_int_equal(n2, want2);
		assert_int_equal(n3, 1);
	}
	/* every exit, the bound with a hit (key at node BOUND) and a miss, in
	 * each walking lane */
	for (unsigned l = two_walks ? 0 : 1; l < 2; l++)
		for (unsigned x = 0; x < BOUND + 2; x++)
			assert_true(seen[l][x] > 0);
	if (!two_walks)
		assert_true(seen[0][0] > 0 && seen[0][1] > 0);
	be_sim_close(s);
}

static void test_two_walks_on_sim(void **state)
{
	(void)state;
	run_on_sim(src_two, true, IR_PROFILE_RELAXED);
	run_on_sim(src_two, true, IR_PROFILE_STRICT);
}

static void test_one_walk_on_sim(void **state)
{
	(void)state;
	run_on_sim(src_one, false, IR_PROFILE_RELAXED);
	run_on_sim(src_one, false, IR_PROFILE_STRICT);
}

/* A return in lane 1 after its loop (the response's guard runs in the
 * lane's continuation; the join waits for it), while lane 0 adds. */
static const char *src_ret =
    HDR "offload ret(k1: be24, h1: *node in nodes, c: *ctr in counters) -> le64 {\n"
        "  parallel {\n"
        "    fetch_add(c.n1, 1);\n"
        "  } || {\n"
        "    let q = h1;\n"
        "    while (q.key != k1) bound 3 { q = q.next; }\n"
        "    if (q.key == k1) { return q.val; }\n"
        "  }\n"
        "}\n";

static void test_return_in_lane_on_sim(void **state)
{
	(void)state;
	struct be_sim *s = be_sim_open(src_ret, NULL, IR_PROFILE_RELAXED);
	assert_non_null(s);
	uint8_t *nodes = be_sim_region(s, "nodes");
	uint8_t *ctr = be_sim_region(s, "counters");
	uint64_t seed = 0xa4093822299f31d0ull;
	unsigned next[NNODES], seen[BOUND + 2] = {0};
	for (int i = 0; i < CALLS; i++) {
		shuffle_ring(nodes, next, &seed);
		for (unsigned n = 0; n < NNODES; n++)
			for (int j = 0; j < 8; j++) /* val = 1000 + n, le64 */
				nodes[n * NODE + 16 + j] =
				    (uint8_t)((uint64_t)(1000u + n) >> (8 * j));
		unsigned h1 = (unsigned)(rng(&seed) % NNODES);
		unsigned k1 = key_at(next, h1, (unsigned)(rng(&seed) % (BOUND + 3)));
		memset(ctr, 0, 24);
		struct prism_arg args[3] = {{.name = "k1", .u64 = k1},
		                            {.name = "h1", .u64 = (uint64_t)h1 * NODE},
		                            {.name = "c", .u64 = 0}};
		uint8_t out[64];
		memset(out, 0, sizeof(out));
		uint32_t site = 99;
		assert_int_equal(be_sim_call(s, args, 3, out, sizeof(out), &site), 0);
		bool hit = false;
		unsigned x = walk(next, h1, k1, &hit);
		seen[hit || x < BOUND ? x : BOUND + 1]++;
		assert_int_equal(le64_at(ctr), 1);
		assert_int_equal(site, hit ? 1u : 0u);
		if (hit) {
			unsigned p = h1;
			while (key_of(p) != k1)
				p = next[p];
			assert_int_equal(le64_at(out + 16),
			                 1000u + p); /* the WRITE starts at the node */
		}
	}
	for (unsigned x = 0; x < BOUND + 2; x++)
		assert_true(seen[x] > 0);
	be_sim_close(s);
}

/* ---- a loop ending an `if` arm ---- */

#define ARM_SIG "offload arm(k1: be24, h1: *node in nodes, sel: be24, c: *ctr in counters) {\n"
#define ARM_BODY(cond)                                                                             \
	"  let q = h1;\n"                                                                          \
	"  if (" cond ") {\n"                                                                      \
	"    fetch_add(c.n1, 1);\n"                                                                \
	"    while (q.key != k1) bound 3 { fetch_add(c.n2, 1); q = q.next; }\n"                    \
	"  }\n"                                                                                    \
	"  fetch_add(c.n3, 1);\n"

static const char *src_arm_eq = HDR ARM_SIG ARM_BODY("sel == q.key") "}\n";

/* The arm's effects before the loop are guarded as usual; the loop's first
 * exit gets a second retargeting CAS, guarded by the complement (`!=`: it
 * is posted live and disarmed when the condition holds). */
static void test_arm_golden(void **state)
{
	(void)state;
	struct chainobj *o = be_compile(src_arm_eq, NULL, IR_PROFILE_RELAXED, NULL);
	assert_non_null(o);
	assert_string_equal(
	    be_ops(o, "w0"),
	    "READ CAS WAIT EN NOP READ READ MCAS WAIT EN CAS WAIT EN MCAS WAIT EN EN "
	    "MFA WAIT EN FA READ MCAS WAIT EN EN MFA WAIT EN FA READ MCAS WAIT EN EN "
	    "MFA WAIT EN FA WAIT EN");
	assert_string_equal(be_ops(o, "w0c0"), "MFA WAIT EN FA WAIT EN");
	chainobj_free(o);
	/* the positions below are those of the fenced form (no WAITs) */
	char src[4096];
	snprintf(src, sizeof(src), "assume fenced_enable;\n%s", src_arm_eq);
	o = be_compile(src, NULL, IR_PROFILE_RELAXED, NULL);
	assert_non_null(o);
	assert_string_equal(be_ops(o, "w0"),
	                    "READ CAS EN NOP READ READ MCAS EN CAS EN MCAS EN EN MFA EN FA READ "
	                    "MCAS EN EN MFA EN FA READ MCAS EN EN MFA EN FA WAIT EN");
	assert_string_equal(be_ops(o, "w0c0"), "MFA EN FA EN");
	/* w0 #10: the skip CAS on the first exit's SEND_EN (#12): compare mask
	 * 0, swap mask over the index and QPN words, like the exit test #6 */
	struct prism_wqe k;
	int w0 = be_queue(o, "w0");
	const struct chainobj_wqe *t = &o->queues[w0].sq[10];
	assert_true(prism_wqe_decode(t->bytes, t->len, &k, NULL) >= 0);
	assert_int_equal(k.ctrl.opcode, PRISM_OP_ATOMIC_MASKED_CS);
	assert_int_equal(k.atomic.size, 16);
	static const uint8_t zero[16] = {0};
	static const uint8_t smask[16] = {0,    0,    0,    0,    0,    0,    0,    0,
	                                  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	assert_memory_equal(k.atomic.compare_mask_bytes, zero, 16);
	assert_memory_equal(k.atomic.swap_mask_bytes, smask, 16);
	bool skip_patch = false;
	for (uint32_t i = 0; i < o->n_patches; i++)
		skip_patch |= o->patches[i].writer_queue == (uint32_t)w0 &&
		              o->patches[i].writer_wqe == 10 && o->patches[i].target.wqe == 12 &&
		              o->patches[i].target.offset == 16;
	assert_true(skip_patch);
	assert_int_equal(o->exits[0].enable, 12);
	chainobj_free(o);
}

struct arm_case {
	const char *src;
	enum ir_profile prof;
	bool (*holds)(unsigned sel, unsigned headkey);
};

static bool arm_eq(unsigned sel, unsigned hk)
{
	return sel == hk;
}

static bool arm_ne(unsigned sel, unsigned hk)
{
	return sel != hk;
}

static bool arm_gt(unsigned sel, unsigned hk)
{
	return sel > hk;
}

static bool arm_le(unsigned sel, unsigned hk)
{
	return sel <= hk;
}

static void run_arm(const struct arm_case *ac, bool in_lane)
{
	struct be_sim *s = be_sim_open(ac->src, NULL, ac->prof);
	assert_non_null(s);
	uint8_t *nodes = be_sim_region(s, "nodes");
	uint8_t *ctr = be_sim_region(s, "counters");
	uint64_t seed = 0x082efa98ec4e6c89ull ^ (uintptr_t)ac->src;
	unsigned next[NNODES], seen[2][BOUND + 2];
	memset(seen, 0, sizeof(seen));
	for (int i = 0; i < CALLS; i++) {
		shuffle_ring(nodes, next, &seed);
		unsigned h1 = (unsigned)(rng(&seed) % NNODES);
		unsigned k1 = key_at(next, h1, (unsigned)(rng(&seed) % (BOUND + 3)));
		unsigned sel =
		    key_of(h1) + (unsigned)(rng(&seed) % 3) - 1; /* below, equal, above */
		memset(ctr, 0, 24);
		struct prism_arg args[4] = {{.name = "k1", .u64 = k1},
		                            {.name = "h1", .u64 = (uint64_t)h1 * NODE},
		                            {.name = "sel", .u64 = sel},
		                            {.name = "c", .u64 = 0}};
		assert_int_equal(be_sim_call(s, args, 4, NULL, 0, NULL), 0);
		bool hit = false, run = ac->holds(sel, key_of(h1));
		unsigned x = walk(next, h1, k1, &hit);
		seen[run][hit || x < BOUND ? x : BOUND + 1]++;
		uint64_t n1 = le64_at(ctr), n2 = le64_at(ctr + 8), n3 = le64_at(ctr + 16);
		if (n1 != run || n2 != (run ? x : 0) || n3 != (in_lane ? 2u : 1u))
			fprintf(stderr, "%s: sel=%#x head=%#x k1=%#x: got %llu %llu %llu\n",
			        ac->src, sel, key_of(h1), k1, (unsigned long long)n1,
			        (unsigned long long)n2, (unsigned long long)n3);
		assert_int_equal(n1, run);
		assert_int_equal(n2, run ? x : 0);
		assert_int_equal(n3, in_lane ? 2 : 1);
	}
	/* both outcomes of the `if`; when it holds, every exit and the bound */
	for (unsigned x = 0; x < BOUND + 2; x++)
		assert_true(seen[1][x] > 0);
	unsigned skipped = 0;
	for (unsigned x = 0; x < BOUND + 2; x++)
		skipped += seen[0][x];
	assert_true(skipped > 0);
	be_sim_close(s);
}

static void test_arm_on_sim(void **state)
{
	(void)state;
	static const struct arm_case cases[] = {
	    {HDR ARM_SIG ARM_BODY("sel == q.key") "}\n", IR_PROFILE_RELAXED, arm_eq},
	    {HDR ARM_SIG ARM_BODY("q.key == sel") "}\n", IR_PROFILE_RELAXED, arm_eq},
	    {HDR ARM_SIG ARM_BODY("sel != q.key") "}\n", IR_PROFILE_RELAXED, arm_ne},
	    {HDR ARM_SIG ARM_BODY("sel > q.key") "}\n", IR_PROFILE_RELAXED, arm_gt},
	    {HDR ARM_SIG ARM_BODY("q.key >= sel") "}\n", IR_PROFILE_RELAXED, arm_le},
	    {HDR ARM_SIG ARM_BODY("sel == q.key") "}\n", IR_PROFILE_STRICT, arm_eq},
	    {HDR ARM_SIG ARM_BODY("sel != q.key") "}\n", IR_PROFILE_STRICT, arm_ne},
	    {HDR ARM_SIG ARM_BODY("sel > q.key") "}\n", IR_PROFILE_STRICT, arm_gt},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_arm(&cases[i], false);
}

/* The same arm in lane 1 of a `parallel` (lane 0 adds to n3 as well). */
static void test_arm_in_lane_on_sim(void **state)
{
	(void)state;
	static const struct arm_case lane = {
	    HDR ARM_SIG
	    "  parallel { fetch_add(c.n3, 1); } || {\n" ARM_BODY("sel == q.key") "  }\n}\n",
	    IR_PROFILE_RELAXED, arm_eq};
	run_arm(&lane, true);
}

/* Under an order comparison the skip CAS is posted as a NOP and armed by the
 * complement's guard: the loader's validator checks that patch writer in
 * its armed form, and rejects it once nothing arms it. */
static void test_arm_armed_writer_validated(void **state)
{
	(void)state;
	struct chainobj *o =
	    be_compile(HDR ARM_SIG ARM_BODY("sel > q.key") "}\n", NULL, IR_PROFILE_RELAXED, NULL);
	assert_non_null(o);
	struct chainobj_diag d;
	assert_int_equal(chainobj_validate(o, &d), 0);
	/* the skip CAS writes the first exit's SEND_EN (bytes 16-31) */
	const struct chainobj_patch *skip = NULL;
	for (uint32_t i = 0; i < o->n_patches; i++)
		if (o->patches[i].kind == CHAINOBJ_PATCH_MASKED_CAS &&
		    o->patches[i].target.queue == o->exits[0].queue &&
		    o->patches[i].target.wqe == o->exits[0].enable &&
		    o->patches[i].writer_wqe != o->exits[0].wqe)
			skip = &o->patches[i];
	assert_non_null(skip);
	const struct chainobj_wqe *k = &o->queues[skip->writer_queue].sq[skip->writer_wqe];
	struct prism_wqe kw;
	assert_true(prism_wqe_decode(k->bytes, k->len, &kw, NULL) >= 0);
	assert_int_equal(kw.ctrl.opcode, PRISM_OP_NOP); /* posted disarmed */
	/* move the guard's patch off the control word: nothing arms it now */
	unsigned moved = 0;
	for (uint32_t i = 0; i < o->n_patches; i++)
		if (o->patches[i].target.queue == skip->writer_queue &&
		    o->patches[i].target.wqe == skip->writer_wqe &&
		    o->patches[i].target.offset == 0) {
			o->patches[i].target.offset = 16;
			moved++;
		}
	assert_true(moved > 0);
	assert_int_not_equal(chainobj_validate(o, &d), 0);
	assert_non_null(strstr(d.msg, "cannot be written by a NOP"));
	chainobj_free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_two_lanes_golden),
	    cmocka_unit_test(test_two_walks_on_sim),
	    cmocka_unit_test(test_one_walk_on_sim),
	    cmocka_unit_test(test_return_in_lane_on_sim),
	    cmocka_unit_test(test_rejections),
	    cmocka_unit_test(test_arm_golden),
	    cmocka_unit_test(test_arm_on_sim),
	    cmocka_unit_test(test_arm_in_lane_on_sim),
	    cmocka_unit_test(test_arm_armed_writer_validated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
