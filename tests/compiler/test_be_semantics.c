/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/test_be_semantics.c - what docs/language.md says a program
 * computes, checked end to end: each case compiles a snippet, runs it on
 * the software NIC under both firmware profiles with many client values,
 * and compares every region byte, the return site and the returned bytes
 * with a C model of the same program.  One test per class of wrong answer
 * the back end once gave: stores across byte orders, loop conditions over
 * memory the body changes, `return` ending the invocation, the result
 * field, bounded reads through a loaded pointer, `else if (cas(..))`,
 * return sites in unrolled loops, little-endian pointer walks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/compiler/be_sim.h"

static const enum ir_profile profiles[] = {IR_PROFILE_RELAXED, IR_PROFILE_STRICT};
#define N_PROFILES (sizeof(profiles) / sizeof(profiles[0]))
#define CALLS      24

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void put_order(uint8_t *p, uint64_t v, unsigned w, bool be)
{
	for (unsigned i = 0; i < w; i++)
		p[i] = (uint8_t)(v >> (8 * (be ? w - 1 - i : i)));
}

static uint64_t get_order(const uint8_t *p, unsigned w, bool be)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < w; i++)
		v |= (uint64_t)p[i] << (8 * (be ? w - 1 - i : i));
	return v;
}

static struct be_sim *open_or_fail(const char *src, const char *entry, enum ir_profile prof)
{
	struct be_sim *s = be_sim_open(src, entry, prof);
	if (!s)
		fprintf(stderr, "[%s] does not compile or load:\n%s\n",
		        prof == IR_PROFILE_STRICT ? "strict" : "relaxed", src);
	assert_non_null(s);
	return s;
}

/* ---- W1: a store between byte orders converts ------------------------------ */

#define W1_STRUCT                                                                                  \
	"struct s { a: le16; b: be16; c: le32; d: be32; e: le48; f: be48; g: le64; h: be64;\n"     \
	"           n: le64 *s in r; m: *s in r; }\n"                                              \
	"region r: s[4] writable;\n"

static void test_store_converts_byte_order(void **state)
{
	(void)state;
	/* field k, stored from a parameter of the other byte order (k ^ 1) */
	static const struct {
		const char *field, *type;
		unsigned off, width;
		bool be;
	} f[] = {{"a", "be16", 0, 2, false},     {"b", "le16", 2, 2, true},
	         {"c", "be32", 4, 4, false},     {"d", "le32", 8, 4, true},
	         {"e", "be48", 12, 6, false},    {"f", "le48", 18, 6, true},
	         {"g", "be64", 24, 8, false},    {"h", "le64", 32, 8, true},
	         {"n", "*s in r", 40, 8, false}, {"m", "le64 *s in r", 48, 8, true}};
	for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
		char src[512];
		snprintf(src, sizeof(src),
		         W1_STRUCT "offload st(p: *s in r, x: %s) {\n  p.%s = x;\n}\n", f[k].type,
		         f[k].field);
		bool ptr = f[k].field[0] >= 'm';
		for (size_t pi = 0; pi < N_PROFILES; pi++) {
			struct be_sim *s = open_or_fail(src, NULL, profiles[pi]);
			uint8_t *r = be_sim_region(s, "r");
			uint64_t seed = 0x1234567 + k * 31 + pi;
			for (int i = 0; i < CALLS; i++) {
				uint64_t v = rnd(&seed);
				if (ptr)
					v = 64 * (1 + v % 3);
				else if (f[k].width < 8)
					v &= (1ull << (8 * f[k].width)) - 1;
				struct prism_arg args[2] = {{.name = "p", .u64 = 0},
				                            {.name = "x", .u64 = v}};
				memset(r, 0, 4 * 64);
				assert_int_equal(be_sim_call(s, args, 2, NULL, 0, NULL), 0);
				uint64_t want = ptr ? (uint64_t)(uintptr_t)r + v : v;
				uint64_t got = get_order(r + f[k].off, f[k].width, f[k].be);
				if (got != want)
					fprintf(stderr,
					        "p.%s = x (x: %s): stored %#llx, want %#llx\n",
					        f[k].field, f[k].type, (unsigned long long)got,
					        (unsigned long long)want);
				assert_int_equal(got, want);
			}
			be_sim_close(s);
		}
	}
}

/* ---- W3, W4: `return` ends the invocation; the result field ---------------- */

static const char w3_src[] = "struct s { k: be16; a: be64; b: be64; c: le64; }\n"
                             "region r: s[4] writable;\n"
                             "offload f(p: *s in r, k: be16, j: be16) -> be64 {\n"
                             "  if (p.k == k) { return p.a; }\n"
                             "  p.c = 7;\n"
                             "  if (p.k == j) { return p.b; }\n"
                             "  p.c = 9;\n"
                             "}\n";

static void test_return_ends_invocation(void **state)
{
	(void)state;
	for (size_t pi = 0; pi < N_PROFILES; pi++) {
		struct be_sim *s = open_or_fail(w3_src, NULL, profiles[pi]);
		uint8_t *r = be_sim_region(s, "r");
		uint32_t roff = 0, rsize = 0;
		assert_int_equal(be_sim_result_field(s, &roff, &rsize), 0);
		assert_int_equal(rsize, 8); /* `-> be64`, whichever field each return reads */
		uint64_t seed = 0xfeed + pi;
		unsigned seen[3] = {0};
		for (int i = 0; i < 3 * CALLS; i++) {
			uint64_t pk = rnd(&seed) % 3, k = rnd(&seed) % 3, j = rnd(&seed) % 3;
			uint64_t a = rnd(&seed), b = rnd(&seed), c0 = rnd(&seed);
			uint8_t img[26], want[26];
			put_order(img, pk, 2, true);
			put_order(img + 2, a, 8, true);
			put_order(img + 10, b, 8, true);
			put_order(img + 18, c0, 8, false);
			memcpy(r, img, sizeof(img));
			/* the C model */
			memcpy(want, img, sizeof(img));
			unsigned site = 0;
			uint64_t val = 0;
			if (pk == k) {
				site = 1, val = a;
			} else {
				put_order(want + 18, 7, 8, false);
				if (pk == j)
					site = 2, val = b;
				else
					put_order(want + 18, 9, 8, false);
			}
			struct prism_arg args[3] = {{.name = "p", .u64 = 0},
			                            {.name = "k", .u64 = k},
			                            {.name = "j", .u64 = j}};
			uint8_t out[64];
			uint32_t got_site = 99;
			memset(out, 0xee, sizeof(out));
			assert_int_equal(be_sim_call(s, args, 3, out, sizeof(out), &got_site), 0);
			assert_memory_equal(r, want, sizeof(want));
			assert_int_equal(got_site, site);
			if (site)
				assert_int_equal(get_order(out + roff, 8, true), val);
			seen[site]++;
		}
		for (int k = 0; k < 3; k++)
			assert_true(seen[k] >= 5);
		be_sim_close(s);
	}
}

/* ---- W7, W8: a return inside an unrolled walk; le64 next pointers ----------- */

/* A walk on a ring of 4 nodes; `next` in the given byte order, the head a
 * parameter of its own order.  `brk`: the key test (a return) inside the
 * body, the loop ending at the node whose next is the head; else the loop
 * condition is the key test and the return follows the loop. */
static void walk_case(const char *next_order, const char *head_order, bool brk)
{
	char src[1024];
	snprintf(src, sizeof(src),
	         "struct n { k: be16; pad: u8[6]; next: %s *n in r; v: be64; }\n"
	         "region r: n[4] readonly;\n"
	         "offload f(key: be16, head: %s *n in r) -> be64 {\n"
	         "  let p = head;\n"
	         "%s"
	         "}\n",
	         next_order, head_order,
	         brk ? "  while (p.next != head) bound 4 {\n"
	               "    if (p.k == key) { return p.v; }\n"
	               "    p = p.next;\n"
	               "  }\n"
	             : "  while (p.k != key) bound 4 {\n"
	               "    p = p.next;\n"
	               "  }\n"
	               "  if (p.k == key) { return p.v; }\n");
	bool le = !strcmp(next_order, "le64");
	for (size_t pi = 0; pi < N_PROFILES; pi++) {
		struct be_sim *s = open_or_fail(src, NULL, profiles[pi]);
		uint8_t *r = be_sim_region(s, "r");
		uint32_t roff = 0, rsize = 0;
		assert_int_equal(be_sim_result_field(s, &roff, &rsize), 0);
		assert_int_equal(rsize, 8);
		for (int at = 0; at <= 4; at++) {
			/* a ring of 4 nodes starting at node 2; the key at node (2 + at) % 4 */
			for (int n = 0; n < 4; n++) {
				uint8_t *q = r + 24 * n;
				put_order(q, 0x100u + (unsigned)n, 2, true);
				put_order(q + 8, (uint64_t)(uintptr_t)(r + 24 * ((n + 1) % 4)), 8,
				          !le);
				put_order(q + 16, 0xabc000u + (unsigned)n, 8, true);
			}
			int node = (2 + at) % 4;
			struct prism_arg args[2] = {
			    {.name = "key", .u64 = at < 4 ? 0x100u + (unsigned)node : 0x999u},
			    {.name = "head", .u64 = 24 * 2}};
			uint8_t out[64];
			uint32_t site = 99;
			int rc = be_sim_call(s, args, 2, out, sizeof(out), &site);
			/* the C model: with the key test in the body, the condition
			 * stops the walk at the node whose next is the head (step 3)
			 * before its key is tested */
			bool found = at < (brk ? 3 : 4);
			if (rc || site != (found ? 1u : 0u))
				fprintf(stderr, "%s [%s]: key at step %d: rc %d, site %u\n", src,
				        profiles[pi] == IR_PROFILE_STRICT ? "strict" : "relaxed",
				        at, rc, site);
			assert_int_equal(rc, 0);
			if (found) {
				assert_int_equal(site, 1); /* one `return` written: site 1 */
				assert_int_equal(get_order(out + roff, 8, true),
				                 0xabc000u + (unsigned)node);
			} else {
				assert_int_equal(site, 0);
			}
		}
		be_sim_close(s);
	}
}

static void test_return_in_unrolled_loop_one_site(void **state)
{
	(void)state;
	walk_case("", "", true);
}

static void test_le64_pointer_walk(void **state)
{
	(void)state;
	static const char *orders[] = {"", "le64"};
	for (int n = 0; n < 2; n++)
		for (int h = 0; h < 2; h++)
			for (int brk = 0; brk < 2; brk++)
				walk_case(orders[n], orders[h], brk);
}

/* ---- W6: the cas of an `else if` runs only when no earlier arm ran --------- */

static const char *const w6_bodies[] = {
    "  if (p.flag == k) { p.n = 1; } else if (cas(p.v, 5, 9)) { p.n = 2; } else { p.n = 3; }\n",
    "  if (p.flag == k) { p.n = 1; } else if (cas(p.v, 5, 9)) { p.n = 2; }\n",
    "  if (p.flag > k) { p.n = 1; } else if (cas(p.v, 5, 9)) { p.n = 2; } else { p.n = 3; }\n",
    "  if (p.flag == k) { return p.v; }\n  if (cas(p.v, 5, 9)) { p.n = 2; }\n",
};

static void test_else_if_cas_runs_only_there(void **state)
{
	(void)state;
	for (size_t b = 0; b < sizeof(w6_bodies) / sizeof(w6_bodies[0]); b++) {
		char src[1024];
		snprintf(src, sizeof(src),
		         "struct l { flag: be16; pad: u8[6]; v: le64; n: le64; }\n"
		         "region r: l[2] writable;\n"
		         "offload f(p: *l in r, k: be16) {\n%s}\n",
		         w6_bodies[b]);
		bool gt = b == 2, has_else = b == 0 || b == 2, ret = b == 3;
		for (size_t pi = 0; pi < N_PROFILES; pi++) {
			struct be_sim *s = open_or_fail(src, NULL, profiles[pi]);
			uint8_t *r = be_sim_region(s, "r");
			uint64_t seed = 0xc0ffee + 7 * b + pi;
			for (int i = 0; i < CALLS; i++) {
				uint64_t flag = rnd(&seed) % 3, k = rnd(&seed) % 3,
				         v = 4 + rnd(&seed) % 3;
				uint8_t want[24];
				memset(want, 0, sizeof(want));
				put_order(want, flag, 2, true);
				put_order(want + 8, v, 8, false);
				put_order(want + 16, 77, 8, false);
				memcpy(r, want, sizeof(want));
				/* the C model */
				unsigned site = 0;
				if (gt ? flag > k : flag == k) {
					if (ret)
						site = 1;
					else
						put_order(want + 16, 1, 8, false);
				} else if (v == 5) {
					put_order(want + 8, 9, 8, false);
					put_order(want + 16, 2, 8, false);
				} else if (has_else) {
					put_order(want + 16, 3, 8, false);
				}
				struct prism_arg args[2] = {{.name = "p", .u64 = 0},
				                            {.name = "k", .u64 = k}};
				uint8_t out[64];
				uint32_t got_site = 99;
				assert_int_equal(
				    be_sim_call(s, args, 2, out, sizeof(out), &got_site), 0);
				if (memcmp(r, want, sizeof(want)) || got_site != site)
					fprintf(stderr, "%s[%s] flag %llu k %llu v %llu: site %u\n",
					        src,
					        profiles[pi] == IR_PROFILE_STRICT ? "strict"
					                                          : "relaxed",
					        (unsigned long long)flag, (unsigned long long)k,
					        (unsigned long long)v, got_site);
				assert_memory_equal(r, want, sizeof(want));
				assert_int_equal(got_site, site);
			}
			be_sim_close(s);
		}
	}
}

/* ---- W2: a loop condition over memory the body changes is read each time -- */

static void test_loop_condition_reread(void **state)
{
	(void)state;
	static const char src[] =
	    "struct ctr { m: le64; n: le64; }\n"
	    "region r: ctr[2] writable;\n"
	    "offload f(c: *ctr in r, lim: le64) {\n"
	    "  while (c.m != lim) bound 6 { fetch_add(c.m, 1); }\n"
	    "}\n"
	    "offload g(c: *ctr in r, lim: le64) {\n"
	    "  while (c.m != lim) bound 4 { c.m = lim; fetch_add(c.n, 1); }\n"
	    "}\n";
	for (int entry = 0; entry < 2; entry++)
		for (size_t pi = 0; pi < N_PROFILES; pi++) {
			struct be_sim *s = open_or_fail(src, entry ? "g" : "f", profiles[pi]);
			uint8_t *r = be_sim_region(s, "r");
			for (uint64_t m0 = 0; m0 < 4; m0++)
				for (uint64_t lim = 0; lim < 9; lim += 2) {
					put_order(r, m0, 8, false);
					put_order(r + 8, 0, 8, false);
					struct prism_arg args[2] = {{.name = "c", .u64 = 0},
					                            {.name = "lim", .u64 = lim}};
					assert_int_equal(be_sim_call(s, args, 2, NULL, 0, NULL), 0);
					/* the C model */
					uint64_t m = m0, n = 0;
					for (int i = 0; i < (entry ? 4 : 6) && m != lim; i++) {
						if (entry)
							m = lim, n++;
						else
							m++;
					}
					uint64_t gm = get_order(r, 8, false),
					         gn = get_order(r + 8, 8, false);
					if (gm != m || gn != n)
						fprintf(
						    stderr,
						    "%s [%s] m0 %llu lim %llu: m %llu n %llu\n",
						    entry ? "g" : "f",
						    profiles[pi] == IR_PROFILE_STRICT ? "strict"
						                                      : "relaxed",
						    (unsigned long long)m0, (unsigned long long)lim,
						    (unsigned long long)gm, (unsigned long long)gn);
					assert_int_equal(gm, m);
					assert_int_equal(gn, n);
				}
			be_sim_close(s);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_store_converts_byte_order),
	    cmocka_unit_test(test_return_ends_invocation),
	    cmocka_unit_test(test_return_in_unrolled_loop_one_site),
	    cmocka_unit_test(test_le64_pointer_walk),
	    cmocka_unit_test(test_else_if_cas_runs_only_there),
	    cmocka_unit_test(test_loop_condition_reread),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
