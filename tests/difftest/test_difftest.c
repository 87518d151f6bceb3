/* SPDX-License-Identifier: MIT */
/*
 * tests/difftest/test_difftest.c - the differential test in `make test`.
 *
 * Owns: a bounded campaign (DIFFTEST_PROGRAMS compared programs, 2000 by
 * default; `make test` runs 2000 in the plain build and 500 under
 * ASan+UBSan; fixed seed; the constructs of known compiler bugs left out, see
 * dt_gen.h) that must find no difference and no ill-typed program, and the
 * kept regression cases (tests/difftest/cases, one .prism and one .set each): the reference must
 * compute what each case says, and the NIC must agree unless the case names
 * a known bug.
 */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "tests/difftest/dt_campaign.h"
#include "tests/difftest/dt_run.h"

static void test_campaign(void **state)
{
	struct dt_campaign_opts o = {.seed = 1,
	                             .programs = dt_test_programs(),
	                             .allowed = dt_default_mask(),
	                             .relaxed = true,
	                             .strict = true,
	                             .show = 3,
	                             .out = stdout};
	struct dt_tally t;

	(void)state;
	o.max_generated = 20 * o.programs;
	assert_int_equal(dt_campaign(&o, &t), 0);
	assert_int_equal(t.bad, 0);
	assert_int_equal(t.diffs, 0);
	assert_true(t.compared >= o.programs);
}

static void test_cases(void **state)
{
	glob_t g;
	unsigned known = 0;

	(void)state;
	assert_int_equal(glob("tests/difftest/cases/*.prism", 0, NULL, &g), 0);
	assert_true(g.gl_pathc > 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char err[1024];
		bool diff;
		int rc = dt_case_run(g.gl_pathv[i], &diff, err, sizeof(err));

		if (rc)
			fprintf(stderr, "%s\n", err);
		assert_int_equal(rc, 0);
		if (diff)
			printf("difftest case %s: still differs (known bug)\n", g.gl_pathv[i]);
		known += diff;
	}
	printf("difftest cases: %zu run, %u still differ on a known bug\n", g.gl_pathc, known);
	globfree(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_campaign),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
