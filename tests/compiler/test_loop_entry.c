/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/test_loop_entry.c - loops whose start depends on an
 * earlier loop: a second walk from where the first stopped, a loop over the
 * node a walk found, a walk over memory a loop changed, in `if` arms and
 * `parallel` lanes too (N3 of the differential test: the value a local held
 * when the second loop began was copied after that loop, over the value of
 * the exit taken); and locals besides the walked pointer that the body
 * reloads (their bytes landed before the body's READ fetched them).
 *
 * Owns: each program compiled under both firmware profiles, run on the
 * software NIC and by the reference interpreter over the same random lists
 * and arguments (tests/difftest/dt_run.c compares every region's bytes, the
 * return site and the returned bytes); the keys are drawn so that each
 * walk stops at every iteration and at its bound.
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
	"struct node { k: be64; nx: *node in m; lx: le64 *node in m; a: le64; v: be64; }\n"        \
	"region m: node[8] writable;\n"                                                            \
	"offload f(pk: be64, pa: le64, h: *node in m) -> be64 {\n"

enum {
	NODE = 40,
	NNODES = 8,
	RUNS = 12
}; /* random inputs per program and profile (dt_test_runs) */

struct lcase {
	const char *name, *body;
};

static const struct lcase cases[] = {
    {"walk, walk", "let t = h;\n"
                   "while (t.k != pk) bound 2 { t = t.nx; }\n"
                   "while (t.k != pk) bound 1 { t = t.nx; }\n"
                   "return t.v;\n"},
    {"le64 walk, be64 walk", "let t = h;\n"
                             "while (t.k != pk) bound 2 { t = t.lx; }\n"
                             "while (t.k != pk) bound 2 { t = t.nx; }\n"
                             "return t.v;\n"},
    {"three walks", "let t = h;\n"
                    "while (t.k != pk) bound 1 { t = t.nx; }\n"
                    "while (t.k != pk) bound 2 { t = t.lx; }\n"
                    "while (t.k != 3) bound 1 { t = t.nx; }\n"
                    "return t.v;\n"},
    {"walk, store through it, walk", "let t = h;\n"
                                     "while (t.k != pk) bound 2 { t = t.nx; }\n"
                                     "t.a = 9;\n"
                                     "while (t.k != pk) bound 2 { t = t.nx; }\n"
                                     "return t.v;\n"},
    {"break walk, walk", "let t = h;\n"
                         "while (true) bound 2 { if (t.k == pk) { break; } t = t.nx; }\n"
                         "while (t.k != pk) bound 2 { t = t.lx; }\n"
                         "return t.k;\n"},
    {"walk, loop over the node found", "let t = h;\n"
                                       "while (t.k != pk) bound 2 { t = t.nx; }\n"
                                       "while (t.a != pa) bound 3 { fetch_add(t.a, 1); }\n"
                                       "return t.v;\n"},
    {"walk, atomic, walk", "let t = h;\n"
                           "while (t.k != pk) bound 2 { t = t.nx; }\n"
                           "fetch_add(t.a, 1);\n"
                           "while (t.k != pk) bound 1 { t = t.lx; }\n"
                           "return t.v;\n"},
    {"walk from the node after the one found", "let t = h;\n"
                                               "while (t.k != pk) bound 2 { t = t.nx; }\n"
                                               "let u = t.lx;\n"
                                               "while (u.k != pk) bound 2 { u = u.nx; }\n"
                                               "return u.v;\n"},
    {"loop changes links, walk reads them",
     "while (h.a != pa) bound 2 { fetch_add(h.a, 1); h.nx = h.lx; }\n"
     "let t = h;\n"
     "while (t.k != pk) bound 2 { t = t.nx; }\n"
     "return t.v;\n"},
    {"walk, if, walk", "let t = h;\n"
                       "while (t.k != pk) bound 1 { t = t.nx; }\n"
                       "if (t.a == pa) { t.v = 5; }\n"
                       "while (t.k != pk) bound 2 { t = t.nx; }\n"
                       "return t.v;\n"},
    /* a local other than the walked pointer that changes in the loop, read
     * after the pointer moved (its bytes land after the body's READ) */
    {"value local read in the body", "let x = h.k;\n"
                                     "let t = h;\n"
                                     "while (x != pk) bound 2 { t = t.nx; x = t.k; }\n"
                                     "h.v = x;\n"
                                     "return t.v;\n"},
    {"atomic's old value, then a value local", "let x = fetch_add(h.a, 1);\n"
                                               "let t = h;\n"
                                               "while (x != pa) bound 2 { t = t.lx; x = t.a; }\n"
                                               "t.v = x;\n"
                                               "return t.v;\n"},
    {"value local after a walk", "let t = h;\n"
                                 "while (t.k != pk) bound 1 { t = t.nx; }\n"
                                 "let x = t.a;\n"
                                 "while (x != pa) bound 2 { t = t.nx; x = t.a; }\n"
                                 "return t.v;\n"},
    {"walk, walk, the value sent by five returns", "let t = h;\n"
                                                   "while (t.k != pk) bound 2 { t = t.nx; }\n"
                                                   "while (t.k != pk) bound 1 { t = t.lx; }\n"
                                                   "if (h.a == 0) { return t.v; }\n"
                                                   "if (h.a == 1) { return t.v; }\n"
                                                   "if (h.a == 2) { return t.v; }\n"
                                                   "if (h.a == 3) { return t.v; }\n"
                                                   "return t.v;\n"},
    {"walk in an if arm after a walk",
     "let t = h;\n"
     "while (t.k != pk) bound 2 { t = t.nx; }\n"
     "if (t.a == pa) { while (t.k != 3) bound 2 { fetch_add(t.a, 1); t = t.nx; } }\n"},
    {"walk after a walk in an if arm",
     "let t = h;\n"
     "if (h.a == pa) { while (t.k != pk) bound 2 { t = t.nx; } }\n"},
    {"second walk in a lane", "parallel {\n"
                              "  let t = h;\n"
                              "  while (t.k != pk) bound 2 { t = t.nx; }\n"
                              "  while (t.k != 3) bound 2 { t = t.lx; }\n"
                              "  t.a = 7;\n"
                              "} || {\n"
                              "  let u = h;\n"
                              "  while (u.k != 4) bound 1 { u = u.lx; }\n"
                              "  while (u.k != pk) bound 2 { u = u.nx; }\n"
                              "  u.v = 9;\n"
                              "}\n"},
    {"value local, value local", "let t = h;\n"
                                 "let x = t.k;\n"
                                 "while (x != pk) bound 2 { t = t.nx; x = t.k; }\n"
                                 "while (x != 3) bound 2 { t = t.lx; x = t.k; }\n"
                                 "h.v = x;\n"
                                 "return t.v;\n"},
    {"walk with break, store, walk with break",
     "let t = h;\n"
     "while (true) bound 3 { if (t.k == pk) { break; } t = t.nx; }\n"
     "t.a = 1;\n"
     "while (true) bound 2 { if (t.k == 2) { break; } t = t.lx; }\n"
     "return t.v;\n"},
    {"walk, let copy of t, walk the copy", "let t = h;\n"
                                           "while (t.k != pk) bound 2 { t = t.nx; }\n"
                                           "let u = t;\n"
                                           "while (u.k != 2) bound 2 { u = u.lx; }\n"
                                           "t.a = 3;\n"
                                           "return u.v;\n"},
};

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Random lists over the 8 nodes: keys 1..5 (a key appears at several
 * depths or nowhere), both next pointers random, small counters. */
static bool run_case(const struct lcase *lc, enum ir_profile prof, uint64_t seed)
{
	char src[2048];
	snprintf(src, sizeof(src), HDR "%s}\n", lc->body);
	char sets[NNODES * 5][64];
	const char *setp[NNODES * 5];
	for (unsigned r = 0, n = dt_test_runs(RUNS); r < n; r++) {
		size_t ns = 0;
		for (unsigned i = 0; i < NNODES; i++) {
			unsigned o = i * NODE;
			snprintf(sets[ns++], sizeof(sets[0]), "m+%u=be64:%u", o,
			         (unsigned)(1 + rng(&seed) % 5));
			snprintf(sets[ns++], sizeof(sets[0]), "m+%u=be64:&m+%u", o + 8,
			         (unsigned)(rng(&seed) % NNODES) * NODE);
			snprintf(sets[ns++], sizeof(sets[0]), "m+%u=le64:&m+%u", o + 16,
			         (unsigned)(rng(&seed) % NNODES) * NODE);
			snprintf(sets[ns++], sizeof(sets[0]), "m+%u=le64:%u", o + 24,
			         (unsigned)(rng(&seed) % 4));
			snprintf(sets[ns++], sizeof(sets[0]), "m+%u=be64:%u", o + 32, 100 + i);
		}
		for (size_t i = 0; i < ns; i++)
			setp[i] = sets[i];
		struct dt_arg args[] = {
		    {"pk", 1 + rng(&seed) % 5},
		    {"pa", rng(&seed) % 6},
		    {"h", (rng(&seed) % NNODES) * NODE},
		};
		struct dt_input in = {
		    .src = src, .sets = setp, .nsets = ns, .args = args, .nargs = 3};
		struct dt_report rep;
		enum dt_outcome o = dt_run(&in, prof, &rep);
		if (o != DT_SAME) {
			print_message("%s (%s, run %u: pk=%llu pa=%llu h=%llu): %s: %s\n", lc->name,
			              dt_profile_name(prof), r, (unsigned long long)args[0].value,
			              (unsigned long long)args[1].value,
			              (unsigned long long)args[2].value, rep.kind, rep.what);
			return false;
		}
	}
	return true;
}

static void test_loop_after_loop(void **state)
{
	(void)state;
	unsigned failed = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		failed += !run_case(&cases[i], IR_PROFILE_RELAXED, 0x9e3779b97f4a7c15ull + i);
		failed += !run_case(&cases[i], IR_PROFILE_STRICT, 0x51ed270b27a4d3c1ull + i);
	}
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_loop_after_loop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
