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
 * a known bug.  And --save's directory: checked before a campaign starts,
 * by dt_campaign and by the difftest tool (which runs here, next to the
 * tests directory).
 */
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* A --save DIR that is missing or no directory stops the campaign before
 * its first program (a run of hours would otherwise drop every difference
 * it found); nothing is created. */
static void test_save_dir_checked(void **state)
{
	char dir[] = "/tmp/prism-difftest-XXXXXX", missing[64], file[64], self[512], cmd[1024];
	char out[512] = "";
	struct dt_campaign_opts o = {.seed = 1,
	                             .programs = 1,
	                             .max_generated = 20,
	                             .allowed = dt_default_mask(),
	                             .relaxed = true};
	struct dt_tally t;
	ssize_t n;
	FILE *f;
	int st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(missing, sizeof(missing), "%s/none", dir);
	snprintf(file, sizeof(file), "%s/file", dir);
	f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(dt_save_dir_check(dir), 0);
	assert_int_equal(dt_save_dir_check(missing), -ENOENT);
	assert_int_equal(dt_save_dir_check(file), -ENOTDIR);

	o.save_dir = missing;
	assert_int_equal(dt_campaign(&o, &t), -ENOENT);
	assert_int_equal(t.generated, 0);
	o.save_dir = file;
	assert_int_equal(dt_campaign(&o, &t), -ENOTDIR);
	assert_int_equal(t.generated, 0);

	/* the tool: usage error, naming the option and the reason */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = 0;
	snprintf(cmd, sizeof(cmd), "%s/../difftest --programs 1 --reduce --save %s 2>&1",
	         dirname(self), missing);
	f = popen(cmd, "r");
	assert_non_null(f);
	n = (ssize_t)fread(out, 1, sizeof(out) - 1, f);
	out[n > 0 ? n : 0] = 0;
	st = pclose(f);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 2);
	snprintf(cmd, sizeof(cmd), "difftest: --save %s: No such file or directory", missing);
	if (!strstr(out, cmd))
		fail_msg("difftest said: %s", out);
	assert_int_equal(access(missing, F_OK), -1);

	unlink(file);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_campaign),
	    cmocka_unit_test(test_save_dir_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
