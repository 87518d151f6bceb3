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
 * return sites in unrolled loops, little-endian pointer walks, an `if`
 * whose arms write what its condition reads.
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

/* A return nested in an `if` arm, statements after the `if` and a second
 * return after them. */
static const char w3_nested_src[] = "struct s { k: be16; a: be64; b: be64; c: le64; }\n"
                                    "region r: s[4] writable;\n"
                                    "offload g(p: *s in r, k: be16, j: be16) -> be64 {\n"
                                    "  if (p.k == k) {\n"
                                    "    if (p.a > 5) { return p.a; }\n"
                                    "    p.c = 1;\n"
                                    "  } else {\n"
                                    "    p.c = 2;\n"
                                    "  }\n"
                                    "  if (p.k == j) { return p.b; }\n"
                                    "  p.b = 3;\n"
                                    "}\n"
                                    "offload h(p: *s in r, k: be16, j: be16) -> be64 {\n"
                                    "  if (p.k == k) { if (p.c == 5) { return p.a; } }\n"
                                    "  if (p.k == j) { return p.b; }\n"
                                    "  p.c = 7;\n"
                                    "}\n";

static void test_return_nested_ends_invocation(void **state)
{
	(void)state;
	for (int h = 0; h < 2; h++)
		for (size_t pi = 0; pi < N_PROFILES; pi++) {
			struct be_sim *s = open_or_fail(w3_nested_src, h ? "h" : "g", profiles[pi]);
			uint8_t *r = be_sim_region(s, "r");
			uint32_t roff = 0, rsize = 0;
			assert_int_equal(be_sim_result_field(s, &roff, &rsize), 0);
			uint64_t seed = 0xabcd + pi;
			unsigned seen[3] = {0};
			for (int i = 0; i < 3 * CALLS; i++) {
				uint64_t pk = rnd(&seed) % 2, k = rnd(&seed) % 2,
				         j = rnd(&seed) % 2;
				uint64_t a = rnd(&seed) % 10, b = rnd(&seed),
				         c0 = 4 + rnd(&seed) % 2;
				uint8_t img[26], want[26];
				put_order(img, pk, 2, true);
				put_order(img + 2, a, 8, true);
				put_order(img + 10, b, 8, true);
				put_order(img + 18, c0, 8, false);
				memcpy(r, img, sizeof(img));
				memcpy(want, img, sizeof(img));
				/* the C model */
				unsigned site = 0;
				uint64_t val = 0;
				if (h) {
					if (pk == k && c0 == 5)
						site = 1, val = a;
					else if (pk == j)
						site = 2, val = b;
					else
						put_order(want + 18, 7, 8, false);
				} else if (pk == k && a > 5) {
					site = 1, val = a;
				} else {
					put_order(want + 18, pk == k ? 1 : 2, 8, false);
					if (pk == j)
						site = 2, val = b;
					else
						put_order(want + 10, 3, 8, true);
				}
				struct prism_arg args[3] = {{.name = "p", .u64 = 0},
				                            {.name = "k", .u64 = k},
				                            {.name = "j", .u64 = j}};
				uint8_t out[64];
				uint32_t got_site = 99;
				assert_int_equal(
				    be_sim_call(s, args, 3, out, sizeof(out), &got_site), 0);
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

/* Sites are numbered in the order the returns are written, whichever arm
 * the lowering meets them in (here the second return is lowered first,
 * into the arm that does not return). */
static void test_return_sites_in_source_order(void **state)
{
	(void)state;
	static const char src[] = "struct s { k: be16; a: be64; b: be64; }\n"
	                          "region r: s[1] readonly;\n"
	                          "offload f(p: *s in r, k: be16) -> be64 {\n"
	                          "  if (p.k == k) { } else { return p.a; }\n"
	                          "  return p.b;\n"
	                          "}\n";
	for (size_t pi = 0; pi < N_PROFILES; pi++) {
		struct be_sim *s = open_or_fail(src, NULL, profiles[pi]);
		uint8_t *r = be_sim_region(s, "r");
		uint32_t roff = 0, rsize = 0;
		assert_int_equal(be_sim_result_field(s, &roff, &rsize), 0);
		put_order(r, 4, 2, true);
		put_order(r + 2, 0xaaaa, 8, true);
		put_order(r + 10, 0xbbbb, 8, true);
		for (uint64_t k = 3; k < 5; k++) {
			struct prism_arg args[2] = {{.name = "p", .u64 = 0},
			                            {.name = "k", .u64 = k}};
			uint8_t out[64];
			uint32_t site = 99;
			assert_int_equal(be_sim_call(s, args, 2, out, sizeof(out), &site), 0);
			assert_int_equal(site, k == 4 ? 2 : 1);
			assert_int_equal(get_order(out + roff, 8, true), k == 4 ? 0xbbbb : 0xaaaa);
		}
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

/* `||` and `&&` short-circuit: a cas on their right runs only where the
 * left operand lets the condition reach it. */
static void test_cas_short_circuit(void **state)
{
	(void)state;
	static const char *const bodies[] = {
	    "  if (cas(p.v, 5, 9) || cas(p.w, 5, 9)) { p.n = 1; }\n",
	    "  if (p.flag == k || cas(p.w, 5, 9)) { p.n = 1; }\n",
	    "  if (p.flag == k && cas(p.w, 5, 9)) { p.n = 1; }\n",
	};
	for (size_t bi = 0; bi < sizeof(bodies) / sizeof(bodies[0]); bi++) {
		char src[1024];
		snprintf(src, sizeof(src),
		         "struct l { flag: be16; pad: u8[6]; v: le64; w: le64; n: le64; }\n"
		         "region r: l[1] writable;\n"
		         "offload f(p: *l in r, k: be16) {\n%s}\n",
		         bodies[bi]);
		for (size_t pi = 0; pi < N_PROFILES; pi++) {
			struct be_sim *s = open_or_fail(src, NULL, profiles[pi]);
			uint8_t *r = be_sim_region(s, "r");
			uint64_t seed = 0x5c + 3 * bi + pi;
			for (int i = 0; i < CALLS; i++) {
				uint64_t flag = rnd(&seed) % 2, k = rnd(&seed) % 2;
				uint64_t v = 4 + rnd(&seed) % 2, w = 4 + rnd(&seed) % 2;
				uint8_t want[32];
				memset(want, 0, sizeof(want));
				put_order(want, flag, 2, true);
				put_order(want + 8, v, 8, false);
				put_order(want + 16, w, 8, false);
				memcpy(r, want, sizeof(want));
				/* the C model, left to right with short-circuit */
				bool hit;
				if (bi == 0)
					hit = v == 5 || w == 5;
				else if (bi == 1)
					hit = flag == k || w == 5;
				else
					hit = flag == k && w == 5;
				if (bi == 0 && v == 5)
					put_order(want + 8, 9, 8, false);
				else if ((bi == 0 || (bi == 1 && flag != k) ||
				          (bi == 2 && flag == k)) &&
				         w == 5)
					put_order(want + 16, 9, 8, false);
				if (hit)
					put_order(want + 24, 1, 8, false);
				struct prism_arg args[2] = {{.name = "p", .u64 = 0},
				                            {.name = "k", .u64 = k}};
				assert_int_equal(be_sim_call(s, args, 2, NULL, 0, NULL), 0);
				if (memcmp(r, want, sizeof(want)))
					fprintf(stderr, "%s[%s] flag %llu k %llu v %llu w %llu\n",
					        src,
					        profiles[pi] == IR_PROFILE_STRICT ? "strict"
					                                          : "relaxed",
					        (unsigned long long)flag, (unsigned long long)k,
					        (unsigned long long)v, (unsigned long long)w);
				assert_memory_equal(r, want, sizeof(want));
			}
			be_sim_close(s);
		}
	}
}

/* ---- an `if`'s condition is evaluated once, before either arm ------------- */

/* p = r[0], q = r[1]: a, b, k, j at 0, 2, 4, 6 (be16), c, d at 8, 9 (u8);
 * p.nx = q, q.nx = p (at 16) */
enum { F_A, F_B, F_K, F_J, F_C, F_D, F_N };
static const struct {
	unsigned off, width;
} once_f[F_N] = {{0, 2}, {2, 2}, {4, 2}, {6, 2}, {8, 1}, {9, 1}};

/* The C model of once_bodies[bi] on record p (q: the second record). */
static void once_model(size_t bi, uint64_t *p, uint64_t *q, uint64_t x)
{
	uint64_t *t = p[F_A] != x ? q : p;
	switch (bi) {
	case 0:
		if (p[F_A] != q[F_A])
			p[F_A] = q[F_A];
		else
			p[F_K] = x;
		break;
	case 1:
		if (p[F_A] != p[F_B])
			p[F_B] = p[F_A];
		else
			p[F_K] = 1;
		break;
	case 2:
		if (p[F_A] == x) {
			p[F_A] = p[F_B];
			p[F_K] = 1;
		} else {
			p[F_J] = 1;
		}
		break;
	case 3:
		if (p[F_A] != x) {
			p[F_A] = x;
			p[F_K] = 1;
		}
		break;
	case 4:
		if (p[F_C] != p[F_D]) {
			p[F_C] = p[F_D];
			p[F_K] = 1;
		} else {
			p[F_D] = 2;
			p[F_J] = 1;
		}
		break;
	case 5:
		if (p[F_A] < p[F_B]) {
			p[F_A] = p[F_B];
			p[F_K] = 1;
		} else {
			p[F_B] = p[F_A];
			p[F_J] = 1;
		}
		break;
	case 6:
		if (p[F_A] == x) {
			p[F_A] = p[F_B];
			p[F_K] = 1;
		} else if (p[F_B] != x) {
			p[F_B] = x;
			p[F_J] = 1;
		} else {
			p[F_A] = x;
			p[F_K] = 2;
		}
		break;
	case 7:
		if (p[F_A] == x && p[F_B] != p[F_K]) {
			p[F_B] = p[F_K];
			p[F_A] = 0;
			p[F_J] = 1;
		} else {
			p[F_J] = 2;
		}
		break;
	case 8:
		if (p[F_A] == x || p[F_B] == x) {
			p[F_A] = 3;
			p[F_B] = 3;
			p[F_K] = 1;
		} else {
			p[F_J] = 1;
		}
		break;
	case 9:
		if (!(p[F_A] == p[F_B])) {
			p[F_B] = p[F_A];
			p[F_K] = 1;
		} else {
			p[F_A] = 2;
			p[F_J] = 1;
		}
		break;
	case 10:
		if (p[F_A] == x)
			p[F_K] = 1;
		else if (p[F_B] != x)
			p[F_J] = 1;
		break;
	case 11:
		if (p[F_C] > p[F_D]) {
			p[F_D] = p[F_C];
			p[F_K] = 1;
		} else if (p[F_C] != p[F_D]) {
			p[F_C] = p[F_D];
			p[F_J] = 1;
		} else {
			p[F_C] = 0;
			p[F_J] = 2;
		}
		break;
	case 12:
		if (p[F_A] == x) {
			p[F_A] = 1;
		} else if (p[F_B] != x) {
			p[F_B] = x;
			p[F_K] = 1;
		} else if (p[F_C] != p[F_D]) {
			p[F_D] = p[F_C];
			p[F_J] = 1;
		}
		break;
	case 13:
		if (q[F_A] != x) {
			q[F_A] = x;
			p[F_K] = 1;
		} else {
			p[F_J] = 1;
		}
		break;
	case 14:
		if (t[F_B] != x) {
			t[F_B] = x;
			t[F_K] = 1;
		} else {
			t[F_J] = 1;
		}
		break;
	}
}

static const char *const once_bodies[] = {
    "  let t = q;\n"
    "  if (p.a != q.a) { p.a = t.a; } else { p.k = x; }\n",
    "  if (p.a != p.b) { p.b = p.a; } else { p.k = 1; }\n",
    "  if (p.a == x) { p.a = p.b; p.k = 1; } else { p.j = 1; }\n",
    "  if (p.a != x) { p.a = x; p.k = 1; }\n",
    "  if (p.c != p.d) { p.c = p.d; p.k = 1; } else { p.d = 2; p.j = 1; }\n",
    "  if (p.a < p.b) { p.a = p.b; p.k = 1; } else { p.b = p.a; p.j = 1; }\n",
    "  if (p.a == x) { p.a = p.b; p.k = 1; } else if (p.b != x) { p.b = x; p.j = 1; }\n"
    "  else { p.a = x; p.k = 2; }\n",
    "  if (p.a == x && p.b != p.k) { p.b = p.k; p.a = 0; p.j = 1; } else { p.j = 2; }\n",
    "  if (p.a == x || p.b == x) { p.a = 3; p.b = 3; p.k = 1; } else { p.j = 1; }\n",
    "  if (!(p.a == p.b)) { p.b = p.a; p.k = 1; } else { p.a = 2; p.j = 1; }\n",
    "  if (p.a == x) { p.k = 1; } else if (p.b != x) { p.j = 1; }\n",
    "  if (p.c > p.d) { p.d = p.c; p.k = 1; } else if (p.c != p.d) { p.c = p.d; p.j = 1; }\n"
    "  else { p.c = 0; p.j = 2; }\n",
    "  if (p.a == x) { p.a = 1; } else if (p.b != x) { p.b = x; p.k = 1; }\n"
    "  else if (p.c != p.d) { p.d = p.c; p.j = 1; }\n",
    "  if (p.nx.a != x) { p.nx.a = x; p.k = 1; } else { p.j = 1; }\n",
    "  let t = p;\n"
    "  while (t.a != x) bound 1 { t = t.nx; }\n"
    "  if (t.b != x) { t.b = x; t.k = 1; } else { t.j = 1; }\n",
};

/* Arms that write what their condition reads: the condition is tested once,
 * before either arm runs, so one arm runs and all of it. */
static void test_if_condition_evaluated_once(void **state)
{
	(void)state;
	for (size_t bi = 0; bi < sizeof(once_bodies) / sizeof(once_bodies[0]); bi++) {
		char src[1024];
		snprintf(src, sizeof(src),
		         "struct rec { a: be16; b: be16; k: be16; j: be16; c: u8; d: u8;\n"
		         "             pad: u8[6]; nx: *rec in r; }\n"
		         "region r: rec[2] writable;\n"
		         "offload f(p: *rec in r, q: *rec in r, x: be16) {\n%s}\n",
		         once_bodies[bi]);
		for (size_t pi = 0; pi < N_PROFILES; pi++) {
			struct be_sim *s = open_or_fail(src, NULL, profiles[pi]);
			uint8_t *r = be_sim_region(s, "r");
			uint64_t seed = 0x0ce + 13 * bi + pi;
			for (int i = 0; i < 2 * CALLS; i++) {
				uint64_t pv[F_N], qv[F_N], x = rnd(&seed) % 3;
				uint8_t want[48];
				memset(want, 0, sizeof(want));
				for (unsigned f = 0; f < F_N; f++) {
					pv[f] = rnd(&seed) % 3;
					qv[f] = rnd(&seed) % 3;
				}
				put_order(want + 16, (uint64_t)(uintptr_t)r + 24, 8, true);
				put_order(want + 40, (uint64_t)(uintptr_t)r, 8, true);
				uint64_t p0[F_N];
				memcpy(p0, pv, sizeof(p0));
				for (int pass = 0; pass < 2; pass++) {
					for (unsigned f = 0; f < F_N; f++) {
						put_order(want + once_f[f].off, pv[f],
						          once_f[f].width, true);
						put_order(want + 24 + once_f[f].off, qv[f],
						          once_f[f].width, true);
					}
					if (pass == 0) {
						memcpy(r, want, sizeof(want));
						once_model(bi, pv, qv, x);
					}
				}
				struct prism_arg args[3] = {{.name = "p", .u64 = 0},
				                            {.name = "q", .u64 = 24},
				                            {.name = "x", .u64 = x}};
				assert_int_equal(be_sim_call(s, args, 3, NULL, 0, NULL), 0);
				if (memcmp(r, want, sizeof(want))) {
					fprintf(stderr, "%s[%s] x %llu, p (a b k j c d) =", src,
					        profiles[pi] == IR_PROFILE_STRICT ? "strict"
					                                          : "relaxed",
					        (unsigned long long)x);
					for (unsigned f = 0; f < F_N; f++)
						fprintf(stderr, " %llu", (unsigned long long)p0[f]);
					fprintf(stderr, ", q.a %llu\n",
					        (unsigned long long)qv[F_A]);
				}
				assert_memory_equal(r, want, sizeof(want));
			}
			be_sim_close(s);
		}
	}
}

/* ---- W2: a loop condition over memory the body changes is read each time -- */

static void test_loop_condition_reread(void **state)
{
	(void)state;
	static const char src[] = "struct ctr { m: le64; n: le64; }\n"
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

/* ---- W5: a bounded read through a loaded pointer honours its length -------- */

static void test_bounded_read_through_pointer(void **state)
{
	(void)state;
	static const char src[] =
	    "struct bucket { key: be64; val: *u8[16] in values; len: be32; }\n"
	    "struct rec { pad: u8[4]; data: u8[16]; n: be16; }\n"
	    "region table: bucket[4] readonly;\n"
	    "region values: rec[4] readonly;\n"
	    "offload get(key: be64, b1: *bucket in table, b2: *bucket in table) -> u8[16] {\n"
	    "  parallel {\n"
	    "    if (b1.key == key) { return b1.val[.. b1.len]; }\n"
	    "  } || {\n"
	    "    if (b2.key == key) { return b2.val[.. b2.len]; }\n"
	    "  }\n"
	    "}\n"
	    "offload field(r: *rec in values) -> u8[16] {\n"
	    "  return r.data[.. r.n];\n"
	    "}\n"
	    "offload in_else(r: *rec in values, k: be16) -> u8[16] {\n"
	    "  if (r.n == k) { return r.data[.. 1]; } else { return r.data[.. r.n]; }\n"
	    "}\n";
	static const char *entries[] = {"get", "field", "in_else"};
	for (int entry = 0; entry < 3; entry++)
		for (size_t pi = 0; pi < N_PROFILES; pi++) {
			struct be_sim *s = open_or_fail(src, entries[entry], profiles[pi]);
			uint8_t *tb = be_sim_region(s, "table"), *vals = be_sim_region(s, "values");
			uint32_t roff = 0, rsize = 0;
			assert_int_equal(be_sim_result_field(s, &roff, &rsize), 0);
			assert_int_equal(rsize, 16);
			uint64_t seed = 0xb0b + pi;
			for (int i = 0; i < CALLS; i++) {
				for (int k = 0; k < 4 * 22; k++)
					vals[k] = (uint8_t)rnd(&seed);
				unsigned n =
				    (unsigned)(1 + rnd(&seed) % 24);     /* past the capacity too */
				unsigned v = (unsigned)(rnd(&seed) % 4); /* record of the value */
				unsigned b = (unsigned)(rnd(&seed) % 4); /* bucket probed first */
				uint8_t *data = vals + 22 * v + 4;
				memset(tb, 0, 4 * 20);
				for (int k = 0; k < 4; k++) {
					put_order(tb + 20 * k, 100 + (unsigned)k, 8, true);
					put_order(tb + 20 * k + 8, (uint64_t)(uintptr_t)data, 8,
					          true);
					put_order(tb + 20 * k + 16, n, 4, true);
				}
				put_order(vals + 22 * v + 20, n, 2, true);
				struct prism_arg args[3] = {
				    {.name = "key", .u64 = 100 + b},
				    {.name = "b1", .u64 = 20 * b},
				    {.name = "b2", .u64 = 20 * ((b + 1) % 4)}};
				unsigned k = (unsigned)(rnd(&seed) % 2 ? n : n + 1);
				if (entry) {
					args[0] = (struct prism_arg){.name = "r", .u64 = 22 * v};
					args[1] = (struct prism_arg){.name = "k", .u64 = k};
				}
				uint8_t out[64];
				uint32_t site = 99;
				size_t nargs = entry == 0 ? 3 : entry == 1 ? 1 : 2;
				int rc = be_sim_call(s, args, nargs, out, sizeof(out), &site);
				if (rc)
					fprintf(stderr, "%s [%s]: n %u: rc %d\n", entries[entry],
					        profiles[pi] == IR_PROFILE_STRICT ? "strict"
					                                          : "relaxed",
					        n, rc);
				assert_int_equal(rc, 0);
				/* the C model: min(n, 16) bytes of the record's data, the rest of
				 * the result zero */
				unsigned m = entry == 2 && n == k ? 1 : n < 16 ? n : 16;
				assert_int_equal(site, entry == 2 && n != k ? 2 : 1);
				assert_memory_equal(out + roff, data, m);
				for (unsigned z = m; z < 16; z++) /* not sent: zero */
					assert_int_equal(out[roff + z], 0);
			}
			be_sim_close(s);
		}
}

/* A bounded read of the node a walk stopped at (its clamp runs in the
 * loop's continuation queue). */
static void test_bounded_read_after_walk(void **state)
{
	(void)state;
	static const char src[] =
	    "struct rec { k: be64; nx: *rec in m; n: be16; vp: *u8[16] in m; }\n"
	    "region m: rec[8] readonly;\n"
	    "offload g(pk: be64, p: *rec in m) -> u8[16] {\n"
	    "  let t = p;\n"
	    "  while (t.k != pk) bound 2 { t = t.nx; }\n"
	    "  if (t.k == pk) { return t.vp[.. t.n]; }\n"
	    "}\n";
	for (size_t pi = 0; pi < N_PROFILES; pi++) {
		struct be_sim *s = open_or_fail(src, NULL, profiles[pi]);
		uint8_t *m = be_sim_region(s, "m");
		uint32_t roff = 0, rsize = 0;
		assert_int_equal(be_sim_result_field(s, &roff, &rsize), 0);
		for (int k = 0; k < 16; k++)
			m[128 + k] = (uint8_t)(0x40 + k);
		for (unsigned n = 0; n < 4; n++) { /* a ring of 4 nodes of 26 bytes */
			put_order(m + 26 * n, 10 + n, 8, true);
			put_order(m + 26 * n + 8, (uint64_t)(uintptr_t)(m + 26 * ((n + 1) % 4)), 8,
			          true);
			put_order(m + 26 * n + 16, 3 + 5 * n, 2, true);
			put_order(m + 26 * n + 18, (uint64_t)(uintptr_t)(m + 128), 8, true);
		}
		for (unsigned at = 0; at < 4; at++) {
			struct prism_arg args[2] = {{.name = "pk", .u64 = 10 + at},
			                            {.name = "p", .u64 = 0}};
			uint8_t out[64];
			uint32_t site = 99;
			assert_int_equal(be_sim_call(s, args, 2, out, sizeof(out), &site), 0);
			/* the C model: the key within 2 steps, min(n, 16) bytes */
			unsigned want = at <= 2 ? 1 : 0, len = 3 + 5 * at < 16 ? 3 + 5 * at : 16;
			assert_int_equal(site, want);
			if (want) {
				assert_memory_equal(out + roff, m + 128, len);
				for (unsigned z = len; z < 16; z++)
					assert_int_equal(out[roff + z], 0);
			}
		}
		be_sim_close(s);
	}
}

/* A length whose type cannot exceed the capacity (u8 against 255 bytes)
 * needs no clamp: the byte count is n as read. */
static void test_bounded_read_narrow_length(void **state)
{
	(void)state;
	static const char src[] = "struct rec { pad: u8[4]; data: u8[255]; n: u8; }\n"
	                          "region values: rec[2] readonly;\n"
	                          "offload f(r: *rec in values) -> u8[255] {\n"
	                          "  return r.data[.. r.n];\n"
	                          "}\n";
	for (size_t pi = 0; pi < N_PROFILES; pi++) {
		struct be_sim *s = open_or_fail(src, NULL, profiles[pi]);
		uint8_t *v = be_sim_region(s, "values");
		uint32_t roff = 0, rsize = 0;
		assert_int_equal(be_sim_result_field(s, &roff, &rsize), 0);
		uint64_t seed = 0x77 + pi;
		for (int i = 0; i < 8; i++) {
			for (int k = 0; k < 260; k++)
				v[k] = (uint8_t)rnd(&seed);
			unsigned n = v[259];
			struct prism_arg args[1] = {{.name = "r", .u64 = 0}};
			uint8_t out[512];
			uint32_t site = 99;
			assert_int_equal(be_sim_call(s, args, 1, out, sizeof(out), &site), 0);
			assert_int_equal(site, 1);
			assert_memory_equal(out + roff, v + 4, n);
			for (unsigned z = n; z < 255; z++)
				assert_int_equal(out[roff + z], 0);
		}
		be_sim_close(s);
	}
}

/* A length `n & M` with M at most the capacity is masked in place on the
 * byte count (no clamp: fewer WQEs than min(n, cap) needs); M above the
 * capacity still clamps.  Every form against the C model, with n's bits
 * above M set: through a pointer field (f) and of a field at an offset (g,
 * h: the mask runs before the offset add). */
static void test_bounded_read_masked_length(void **state)
{
	(void)state;
	static const char src[] = "struct rec { pad: u8[4]; data: u8[32]; n: be32; vp: *u8[32] in "
	                          "values; }\n"
	                          "region values: rec[2] readonly;\n"
	                          "offload f(r: *rec in values) -> u8[32] {\n"
	                          "  return r.vp[.. r.n & 31];\n"
	                          "}\n"
	                          "offload g(r: *rec in values) -> u8[32] {\n"
	                          "  return r.data[.. 15 & r.n];\n"
	                          "}\n"
	                          "offload h(r: *rec in values) -> u8[32] {\n"
	                          "  return r.data[.. r.n & 63];\n"
	                          "}\n"
	                          "offload clamped(r: *rec in values) -> u8[32] {\n"
	                          "  return r.data[.. r.n];\n"
	                          "}\n";
	static const char *entries[] = {"f", "g", "h"};
	static const unsigned masks[] = {31, 15, 63};
	struct chainobj *masked = be_compile(src, "f", IR_PROFILE_RELAXED, NULL);
	struct chainobj *clamped = be_compile(src, "clamped", IR_PROFILE_RELAXED, NULL);
	assert_non_null(masked);
	assert_non_null(clamped);
	assert_true(be_total_wqes(masked) < be_total_wqes(clamped));
	chainobj_free(masked);
	chainobj_free(clamped);
	for (int entry = 0; entry < 3; entry++)
		for (size_t pi = 0; pi < N_PROFILES; pi++) {
			struct be_sim *s = open_or_fail(src, entries[entry], profiles[pi]);
			uint8_t *v = be_sim_region(s, "values");
			uint32_t roff = 0, rsize = 0;
			assert_int_equal(be_sim_result_field(s, &roff, &rsize), 0);
			uint64_t seed = 0x3a5 + pi * 7 + (uint64_t)entry;
			for (int i = 0; i < CALLS; i++) {
				for (int k = 0; k < 96; k++)
					v[k] = (uint8_t)rnd(&seed);
				uint32_t n = (uint32_t)rnd(&seed);
				put_order(v + 36, n, 4, true);
				put_order(v + 40, (uint64_t)(uintptr_t)(v + 4), 8, true);
				struct prism_arg args[1] = {{.name = "r", .u64 = 0}};
				uint8_t out[64];
				uint32_t site = 99;
				assert_int_equal(be_sim_call(s, args, 1, out, sizeof(out), &site),
				                 0);
				assert_int_equal(site, 1);
				/* the C model: min(n & M, 32) bytes of data, the rest zero */
				unsigned m = n & masks[entry];
				if (m > 32)
					m = 32;
				assert_memory_equal(out + roff, v + 4, m);
				for (unsigned z = m; z < 32; z++)
					assert_int_equal(out[roff + z], 0);
			}
			be_sim_close(s);
		}
}

/* ---- stores through a pointer a walk computed ------------------------------- */

static void test_store_through_walked_pointer(void **state)
{
	(void)state;
	static const char src[] =
	    "struct nd { k: be64; nx: *nd in r; c: be16; pad: u8[6]; n: le64; }\n"
	    "region r: nd[4] writable;\n"
	    "offload f(q: *nd in r, pk: be64) -> be64 {\n"
	    "  let t = q;\n"
	    "  while (t.k != pk) bound 2 { t = t.nx; }\n"
	    "  t.n = 2;\n"
	    "  t.c = 3;\n"
	    "  return t.k;\n"
	    "}\n";
	for (size_t pi = 0; pi < N_PROFILES; pi++) {
		struct be_sim *s = open_or_fail(src, NULL, profiles[pi]);
		uint8_t *r = be_sim_region(s, "r");
		uint32_t roff = 0, rsize = 0;
		assert_int_equal(be_sim_result_field(s, &roff, &rsize), 0);
		for (unsigned at = 0; at < 3; at++) {
			uint8_t want[4 * 32];
			memset(want, 0, sizeof(want));
			for (unsigned n = 0; n < 4; n++) {
				put_order(want + 32 * n, 10 + n, 8, true);
				put_order(want + 32 * n + 8,
				          (uint64_t)(uintptr_t)(r + 32 * ((n + 1) % 4)), 8, true);
			}
			memcpy(r, want, sizeof(want));
			/* the C model: walk from node 0 at most 2 steps */
			unsigned t = 0;
			for (unsigned i = 0; i < 2 && 10 + t != 10 + at; i++)
				t = (t + 1) % 4;
			put_order(want + 32 * t + 24, 2, 8, false);
			put_order(want + 32 * t + 16, 3, 2, true);
			struct prism_arg args[2] = {{.name = "q", .u64 = 0},
			                            {.name = "pk", .u64 = 10 + at}};
			uint8_t out[64];
			uint32_t site = 99;
			assert_int_equal(be_sim_call(s, args, 2, out, sizeof(out), &site), 0);
			assert_memory_equal(r, want, sizeof(want));
			assert_int_equal(site, 1);
			assert_int_equal(get_order(out + roff, 8, true), 10 + t);
		}
		be_sim_close(s);
	}
}

/* ---- alloc under an `if` pops only when the branch runs --------------------- */

static void test_alloc_under_if(void **state)
{
	(void)state;
	static const char src[] = "struct object { version: le64; len: le64; }\n"
	                          "struct ctl { k: be16; }\n"
	                          "region heap size 4096 writable;\n"
	                          "region c: ctl[1] readonly;\n"
	                          "freelist objects: object in heap;\n"
	                          "offload put(p: *ctl in c, k: be16, v: le64) {\n"
	                          "  if (p.k == k) {\n"
	                          "    let buf = alloc(objects);\n"
	                          "    buf.len = v;\n"
	                          "  }\n"
	                          "}\n";
	for (size_t pi = 0; pi < N_PROFILES; pi++) {
		struct be_sim *s = open_or_fail(src, NULL, profiles[pi]);
		uint8_t *fl = be_sim_region(s, "objects"), *heap = be_sim_region(s, "heap");
		uint8_t *ctl = be_sim_region(s, "c");
		assert_non_null(fl);
		/* four posted buffers, the cursor at slot 0 */
		put_order(fl, (uint64_t)(uintptr_t)(fl + 8), 8, false);
		for (int k = 0; k < 4; k++)
			put_order(fl + 8 + 8 * k, (uint64_t)(uintptr_t)(heap + 256 * k), 8, true);
		memset(heap, 0, 1024);
		put_order(ctl, 3, 2, true);
		unsigned popped = 0;
		for (uint64_t k = 3; k < 6; k++) {
			struct prism_arg args[3] = {{.name = "p", .u64 = 0},
			                            {.name = "k", .u64 = k},
			                            {.name = "v", .u64 = 100 + k}};
			int rc = be_sim_call(s, args, 3, NULL, 0, NULL);
			if (rc)
				fprintf(stderr, "alloc under if [%s], k %llu: rc %d\n",
				        profiles[pi] == IR_PROFILE_STRICT ? "strict" : "relaxed",
				        (unsigned long long)k, rc);
			assert_int_equal(rc, 0);
			/* the C model: only k == 3 pops (slot 0) and stores */
			popped += k == 3;
			assert_int_equal(get_order(fl, 8, false),
			                 (uint64_t)(uintptr_t)(fl + 8 + 8 * popped));
		}
		assert_int_equal(get_order(heap + 8, 8, false), 103);
		assert_int_equal(get_order(heap + 256 + 8, 8, false), 0);
		be_sim_close(s);
	}
}

/* ---- two returns in parallel lanes: the later one answers, consistently ------ */

static void test_parallel_returns_later_wins(void **state)
{
	(void)state;
	static const char src[] =
	    "struct bucket { key: be64; val: *u8[16] in values; len: be32; }\n"
	    "region table: bucket[4] readonly;\n"
	    "region values size 64 readonly;\n"
	    "offload get(key: be64, b1: *bucket in table, b2: *bucket in table) -> u8[16] {\n"
	    "  parallel {\n"
	    "    if (b1.key == key) { return *b1.val; }\n"
	    "  } || {\n"
	    "    if (b2.key == key) { return b2.val[.. b2.len]; }\n"
	    "  }\n"
	    "}\n";
	for (size_t pi = 0; pi < N_PROFILES; pi++) {
		struct be_sim *s = open_or_fail(src, NULL, profiles[pi]);
		uint8_t *tb = be_sim_region(s, "table"), *vals = be_sim_region(s, "values");
		uint32_t roff = 0, rsize = 0;
		assert_int_equal(be_sim_result_field(s, &roff, &rsize), 0);
		for (int k = 0; k < 64; k++)
			vals[k] = (uint8_t)(k + 1);
		for (unsigned hit = 0; hit < 4; hit++) { /* bit 0: b1 holds the key, bit 1: b2 */
			for (int k = 0; k < 2; k++) {
				put_order(tb + 20 * k, (hit >> k & 1) ? 7 : 8 + k, 8, true);
				put_order(tb + 20 * k + 8, (uint64_t)(uintptr_t)(vals + 16 * k), 8,
				          true);
				put_order(tb + 20 * k + 16, 16, 4, true);
			}
			struct prism_arg args[3] = {{.name = "key", .u64 = 7},
			                            {.name = "b1", .u64 = 0},
			                            {.name = "b2", .u64 = 20}};
			uint8_t out[64];
			uint32_t site = 99;
			assert_int_equal(be_sim_call(s, args, 3, out, sizeof(out), &site), 0);
			/* both answer: the return written later (lane 1) is the result */
			unsigned want = hit & 2 ? 2 : hit & 1 ? 1 : 0;
			assert_int_equal(site, want);
			if (want)
				assert_memory_equal(out + roff, vals + 16 * (want - 1), 16);
		}
		be_sim_close(s);
	}
}

/* ---- what a return cannot be followed by -------------------------------------- */

static void test_after_returning_loop_rejected(void **state)
{
	(void)state;
	static const char src[] = "struct n { k: be16; pad: u8[6]; next: *n in r; v: be64; }\n"
	                          "region r: n[4] writable;\n"
	                          "offload f(key: be16, head: *n in r) -> be64 {\n"
	                          "  let p = head;\n"
	                          "  while (p.next != head) bound 4 {\n"
	                          "    if (p.k == key) { return p.v; }\n"
	                          "    p = p.next;\n"
	                          "  }\n"
	                          "  head.v = 1;\n"
	                          "}\n";
	char *diag = NULL;
	struct chainobj *o = be_compile(src, NULL, IR_PROFILE_RELAXED, &diag);
	assert_null(o);
	assert_non_null(diag);
	if (!strstr(diag, "t.prism:9:10: error: statements after a loop that may `return` are not "
	                  "lowered"))
		fprintf(stderr, "diagnostic was:\n%s", diag);
	assert_non_null(strstr(diag, "t.prism:9:10: error: statements after a loop that may "
	                             "`return` are not lowered"));
	free(diag);
}

static void test_after_returning_parallel_rejected(void **state)
{
	(void)state;
	static const char src[] = "struct n { k: be16; pad: u8[6]; next: *n in r; v: be64; }\n"
	                          "region r: n[4] writable;\n"
	                          "offload f(key: be16, a: *n in r, b: *n in r) -> be64 {\n"
	                          "  parallel {\n"
	                          "    if (a.k == key) { return a.v; }\n"
	                          "  } || {\n"
	                          "    b.v = 2;\n"
	                          "  }\n"
	                          "  a.v = 1;\n"
	                          "}\n";
	char *diag = NULL;
	struct chainobj *o = be_compile(src, NULL, IR_PROFILE_STRICT, &diag);
	assert_null(o);
	assert_non_null(diag);
	if (!strstr(diag, "t.prism:9:7: error: statements after a `parallel` that may `return` are "
	                  "not lowered (the NIC cannot tell them whether a return ran): move them "
	                  "before it, or into it\n"))
		fprintf(stderr, "diagnostic was:\n%s", diag);
	assert_non_null(strstr(diag, "t.prism:9:7: error: statements after a `parallel` that may "
	                             "`return` are not lowered (the NIC cannot tell them whether a "
	                             "return ran): move them before it, or into it\n"));
	assert_non_null(strstr(diag, "      ^"));
	free(diag);
}

/* A local the loop body sets to something not read from memory has no
 * bytes an exit could land after the loop. */
static void test_loop_local_not_from_memory_rejected(void **state)
{
	(void)state;
	static const char src[] = "struct n { k: be64; nx: *n in m; a: le64; }\n"
	                          "region m: n[8] writable;\n"
	                          "offload f(pk: be64, h: *n in m) -> le64 {\n"
	                          "  let t = h;\n"
	                          "  let x = t.a;\n"
	                          "  while (t.k != pk) bound 2 { t = t.nx; x = 5; }\n"
	                          "  t.a = x;\n"
	                          "  return t.a;\n"
	                          "}\n";
	static const char want[] =
	    "t.prism:6:10: error: a local that changes inside a loop is lowered when it holds "
	    "bytes read from memory at each exit\n"
	    "      while (t.k != pk) bound 2 { t = t.nx; x = 5; }\n"
	    "             ^~~~~~~~~\n";
	for (int prof = 0; prof < 2; prof++) {
		char *diag = NULL;
		struct chainobj *o =
		    be_compile(src, NULL, prof ? IR_PROFILE_STRICT : IR_PROFILE_RELAXED, &diag);
		assert_null(o);
		assert_non_null(diag);
		if (!strstr(diag, want))
			fprintf(stderr, "diagnostic was:\n%s", diag);
		assert_non_null(strstr(diag, want));
		free(diag);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_store_converts_byte_order),
	    cmocka_unit_test(test_return_ends_invocation),
	    cmocka_unit_test(test_return_nested_ends_invocation),
	    cmocka_unit_test(test_return_sites_in_source_order),
	    cmocka_unit_test(test_return_in_unrolled_loop_one_site),
	    cmocka_unit_test(test_le64_pointer_walk),
	    cmocka_unit_test(test_else_if_cas_runs_only_there),
	    cmocka_unit_test(test_cas_short_circuit),
	    cmocka_unit_test(test_if_condition_evaluated_once),
	    cmocka_unit_test(test_loop_condition_reread),
	    cmocka_unit_test(test_bounded_read_through_pointer),
	    cmocka_unit_test(test_bounded_read_after_walk),
	    cmocka_unit_test(test_bounded_read_narrow_length),
	    cmocka_unit_test(test_bounded_read_masked_length),
	    cmocka_unit_test(test_store_through_walked_pointer),
	    cmocka_unit_test(test_alloc_under_if),
	    cmocka_unit_test(test_parallel_returns_later_wins),
	    cmocka_unit_test(test_after_returning_loop_rejected),
	    cmocka_unit_test(test_after_returning_parallel_rejected),
	    cmocka_unit_test(test_loop_local_not_from_memory_rejected),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
