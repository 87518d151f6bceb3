/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/test_cas_order_disj.c - cas_gt / cas_lt whose guard is a
 * disjunction: under `||`, in an `else` of `&&` or of an order comparison,
 * in `else if` arms, `!` pushed in.  The back end guards the enhanced CAS
 * with one exact guard per clause of the condition in disjunctive normal
 * form, each conjoined with the CAS's own carry term.
 *
 * Owns: each program compiled under both firmware profiles, run on the
 * software NIC and by the reference interpreter over the same random cells
 * and arguments (tests/difftest/dt_run.c compares the region's bytes, the
 * return site and the returned bytes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/difftest/dt_run.h"

#define HDR                                                                                        \
	"struct ctr { n: be64; k: be64; j: be64; w: be32; x: be32; }\n"                            \
	"region r: ctr[2] writable;\n"                                                             \
	"offload f(p: *ctr in r, v: be64, a: be64, u: be32) -> be64 {\n"

enum { RUNS = 8 }; /* random inputs per program and profile (dt_test_runs) */

static const char *const bodies[] = {
    "if (p.k == a || p.j == a) { cas_gt(p.n, v); }\n",
    "if (p.k < a || p.k > a) { cas_lt(p.n, v); } else { p.j = 7; }\n",
    "if (p.k == a && p.j == 1) { p.j = 4; } else { cas_gt(p.n, v); }\n",
    "if (p.k == a) { p.j = 7; } else if (p.j == a) { cas_gt(p.n, v); }\n",
    "if (p.k == a) { p.j = 7; } else if (p.j == a) { p.k = 9; } else { cas_lt(p.n, v); }\n",
    "if (p.k < a) { cas_gt(p.n, v); } else { cas_lt(p.n, v); }\n",
    "if (!(p.k > a && p.j < a)) { cas_gt(p.w, u); }\n",
    "if (p.k == 1 && (p.j == a || p.n == a)) { cas_lt(p.x, u, 65535, 4294967295); }\n",
};

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static bool run_body(const char *body, enum ir_profile prof, uint64_t seed)
{
	char src[1024];
	snprintf(src, sizeof(src), HDR "%sreturn p.n;\n}\n", body);
	for (unsigned r = 0, n = dt_test_runs(RUNS); r < n; r++) {
		char sets[5][48];
		const char *setp[5];
		snprintf(sets[0], sizeof(sets[0]), "r+0=be64:%u", (unsigned)(rng(&seed) % 6));
		snprintf(sets[1], sizeof(sets[1]), "r+8=be64:%u", (unsigned)(rng(&seed) % 4));
		snprintf(sets[2], sizeof(sets[2]), "r+16=be64:%u", (unsigned)(rng(&seed) % 4));
		snprintf(sets[3], sizeof(sets[3]), "r+24=be32:%u", (unsigned)(rng(&seed) % 6));
		snprintf(sets[4], sizeof(sets[4]), "r+28=be32:%u",
		         (unsigned)(rng(&seed) % 0x30000));
		for (unsigned i = 0; i < 5; i++)
			setp[i] = sets[i];
		struct dt_arg args[] = {
		    {"p", 0},
		    {"v", rng(&seed) % 6},
		    {"a", rng(&seed) % 4},
		    {"u", rng(&seed) % 0x30000},
		};
		struct dt_input in = {
		    .src = src, .sets = setp, .nsets = 5, .args = args, .nargs = 4};
		struct dt_report rep;
		if (dt_run(&in, prof, &rep) != DT_SAME) {
			print_message("%s(%s, run %u): %s: %s\n", body, dt_profile_name(prof), r,
			              rep.kind, rep.what);
			return false;
		}
	}
	return true;
}

static void test_cas_order_under_disjunction(void **state)
{
	(void)state;
	unsigned failed = 0;
	for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		failed += !run_body(bodies[i], IR_PROFILE_RELAXED, 0x9e3779b97f4a7c15ull + i);
		failed += !run_body(bodies[i], IR_PROFILE_STRICT, 0x51ed270b27a4d3c1ull + i);
	}
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cas_order_under_disjunction),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
