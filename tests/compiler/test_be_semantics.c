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

static __attribute__((unused)) void put_order(uint8_t *p, uint64_t v, unsigned w, bool be)
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_store_converts_byte_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
