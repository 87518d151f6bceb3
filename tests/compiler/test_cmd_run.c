/* SPDX-License-Identifier: MIT */
/*
 * test_cmd_run.c - `prismc run` end to end: a pointer-following program
 * (lib/chains/hash_get.prism) run from the command line on the software NIC
 * and by the reference interpreter with the same images, which must print
 * the same lines; region images (typed stores, relocated pointers, errors);
 * the firmware and cost profile options.
 *
 * Owns: tests that call cmd_run.run() with an argv and capture stdout and
 * stderr through the file descriptors, and direct tests of run_image_set().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "compiler/cmd.h"
#include "tests/compiler/cmd_capture.h"
#include "compiler/run_image.h"

extern const struct prismc_cmd cmd_run, cmd_compile;

/* `prismc run ARGS...` (NULL-terminated), capturing stdout and stderr. */
#define run(...) cmd_capture(&cmd_run, __VA_ARGS__)

/* The two engines printed the same lines but the last (latency / reference). */
static void assert_same_but_last(const char *nic, const char *ref)
{
	char *c[2] = {strdup(nic), strdup(ref)};

	for (int i = 0; i < 2; i++) {
		char *nl;

		assert_non_null(c[i]);
		nl = strrchr(c[i], '\n');
		if (nl) {
			*nl = 0;
			nl = strrchr(c[i], '\n');
			if (nl)
				nl[1] = 0;
		}
	}
	assert_string_equal(c[0], c[1]);
	free(c[0]);
	free(c[1]);
}

#define HG "lib/chains/hash_get.prism"
/* bucket 4 (offset 64) holds key 0x42 and a pointer to byte 256 of values */
#define HG_IMAGE                                                                                   \
	"--arg", "key=0x42", "--arg", "b1=32", "--arg", "b2=64", "--set", "table+64=be24:0x42",    \
	    "--set", "table+72=be64:&values+256", "--set",                                         \
	    "values+256=hex:00112233445566778899aabbccddeeff"

static void test_hash_get_nic_and_reference_agree(void **state)
{
	static const char *firmware[] = {"relaxed", "strict"};

	(void)state;
	for (int f = 0; f < 2; f++) {
		struct cmd_result nic = run(HG, HG_IMAGE, "--firmware", firmware[f], NULL);
		struct cmd_result ref = run(HG, HG_IMAGE, "--reference", NULL);

		if (nic.rc)
			fprintf(stderr, "%s", nic.err);
		assert_int_equal(nic.rc, PRISMC_EXIT_OK);
		assert_int_equal(ref.rc, PRISMC_EXIT_OK);
		assert_non_null(strstr(nic.out, "  return site  2\n"));
		assert_non_null(
		    strstr(nic.out, "  value        00112233445566778899aabbccddeeff00"));
		assert_non_null(strstr(nic.out, "latency"));
		assert_non_null(strstr(ref.out, "computed by the reference interpreter"));
		assert_same_but_last(nic.out, ref.out);
		cmd_result_free(&nic);
		cmd_result_free(&ref);
	}
	/* the key nowhere: no return, on both */
	struct cmd_result nic = run(HG, "--arg", "key=7", "--arg", "b1=0", "--arg", "b2=16", NULL);
	struct cmd_result ref =
	    run(HG, "--arg", "key=7", "--arg", "b1=0", "--arg", "b2=16", "--reference", NULL);

	assert_int_equal(nic.rc, PRISMC_EXIT_OK);
	assert_int_equal(ref.rc, PRISMC_EXIT_OK);
	assert_non_null(strstr(nic.out, "finished without a return: no `return` ran"));
	assert_non_null(strstr(ref.out, "finished without a return: no `return` ran"));
	/* a miss has no value: nothing zero-filled is printed */
	assert_null(strstr(nic.out, "  value "));
	assert_null(strstr(ref.out, "  value "));
	cmd_result_free(&nic);
	cmd_result_free(&ref);
}

static void test_reference_json_and_fault(void **state)
{
	(void)state;
	struct cmd_result r =
	    run(HG, HG_IMAGE, "--reference", "--json", "--entry", "get_parallel", NULL);

	assert_int_equal(r.rc, PRISMC_EXIT_OK);
	assert_non_null(
	    strstr(r.out, "{\"entry\":\"get_parallel\",\"status\":0,\"return_site\":2,"));
	assert_non_null(strstr(r.out, "\"reference\":true}"));
	cmd_result_free(&r);
	/* the bucket's pointer left at zero: outside region values */
	r = run(HG, "--arg", "key=0x42", "--arg", "b1=32", "--arg", "b2=64", "--set",
	        "table+64=be24:0x42", "--reference", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_ERRORS);
	assert_non_null(strstr(r.err, "invocation failed (reference)"));
	assert_non_null(strstr(r.err, "outside region 'values'"));
	cmd_result_free(&r);
}

/* Run-time arithmetic the reference computes at the operands' width. */
static void test_reference_arithmetic(void **state)
{
	char path[] = "/tmp/prism-run-XXXXXX.prism", save[] = "/tmp/prism-run-XXXXXX";
	int fd = mkstemps(path, 6), sfd = mkstemp(save);
	FILE *f;
	uint8_t m[10];

	(void)state;
	assert_true(fd >= 0 && sfd >= 0);
	close(sfd);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs("struct r { a: le64; b: be16; }\nregion m: r[2] writable;\n"
	      "offload f(p: *r in m, x: be16) { p.a = p.a + p.a + p.a; p.b = x + 0xffff; }\n",
	      f);
	fclose(f);
	char arg[64];

	snprintf(arg, sizeof(arg), "m=%s", save);
	struct cmd_result r = run(path, "--reference", "--arg", "p=0", "--arg", "x=3", "--set",
	                          "m+0=le64:0x5555555555555556", "--save", arg, NULL);

	assert_int_equal(r.rc, PRISMC_EXIT_OK);
	cmd_result_free(&r);
	f = fopen(save, "rb");
	assert_non_null(f);
	assert_int_equal(fread(m, 1, sizeof(m), f), sizeof(m));
	fclose(f);
	/* 3 x 0x5555555555555556 wraps to 2; 3 + 0xffff wraps to 2 in 16 bits */
	static const uint8_t want[10] = {2, 0, 0, 0, 0, 0, 0, 0, 0, 2};

	assert_memory_equal(m, want, sizeof(want));
	unlink(path);
	unlink(save);
}

static void test_profile_options(void **state)
{
	(void)state;
	struct cmd_result r = run(HG, "--profile", "cx5", NULL);

	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	assert_non_null(strstr(r.err, "'cx5' is a cost profile"));
	assert_non_null(strstr(r.err, "--cost"));
	cmd_result_free(&r);
	r = run(HG, "--firmware", "fast", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	assert_non_null(strstr(r.err, "unknown firmware profile 'fast'"));
	cmd_result_free(&r);
	r = run(HG, HG_IMAGE, "--profile", "strict", "--cost", "cx5", "--json", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_OK);
	assert_non_null(strstr(r.out, "\"profile\":\"cx5\""));
	cmd_result_free(&r);
	r = run("x.chain", "--reference", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	assert_non_null(strstr(r.err, "give the .prism file"));
	cmd_result_free(&r);
}

static void test_device_option(void **state)
{
	(void)state;
	struct cmd_result r = run(HG, HG_IMAGE, "--device", "sim", NULL);

	assert_int_equal(r.rc, PRISMC_EXIT_OK);
	assert_non_null(strstr(r.out, "00112233445566778899aabbccddeeff"));
	cmd_result_free(&r);
	r = run(HG, HG_IMAGE, "--device", "mlx5_99", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_ERRORS);
	assert_non_null(strstr(r.err, "'mlx5_99'"));
	cmd_result_free(&r);
}

static void test_set_errors(void **state)
{
	static const char *bad[][2] = {
	    {"nowhere+0=be64:1", "no region 'nowhere'"},
	    {"table+0=be17:1", "unknown type 'be17'"},
	    {"table+0=be16:0x10000", "is not a be16"},
	    {"table+0=be32:&values+0", "a pointer is stored as be64 or le64"},
	    {"table+0=be64:&values+4194304", "outside 'values'"},
	    {"table+1048575=be64:1", "outside 'table'"},
	    {"table+0=hex:abc", "hex digits"},
	    {"table", "expected REGION[+OFF]=TYPE:VALUE"},
	    /* strtoull takes a sign and blanks: "-1" is not all ones */
	    {"table+0=be64:-1", "'-1' is not a be64"},
	    {"table+-8=u8:1", "'-8' is not an offset"},
	    {"table+ 8=u8:1", "' 8' is not an offset"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cmd_result r = run(HG, "--reference", "--set", bad[i][0], NULL);

		assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
		if (!strstr(r.err, bad[i][1]))
			fprintf(stderr, "--set %s: %s", bad[i][0], r.err);
		assert_non_null(strstr(r.err, bad[i][1]));
		cmd_result_free(&r);
	}
	struct cmd_result r = run(HG, "--reference", "--arg", "key=-1", NULL);

	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	assert_non_null(strstr(r.err, "--arg key: '-1' is not an integer"));
	cmd_result_free(&r);
}

/* Pointers are relocated in the byte order asked for; --save writes the
 * bytes out; a set file is read line by line with comments. */
static void test_image_relocation(void **state)
{
	uint8_t a[32] = {0}, b[16] = {0};
	struct interp_region regs[2] = {{"a", 0x1000, a, sizeof(a)}, {"b", 0x20000, b, sizeof(b)}};
	struct interp_env env = {regs, 2};
	char err[256], path[] = "/tmp/prism-set-XXXXXX";
	int fd;

	(void)state;
	assert_int_equal(run_image_set(&env, "a+0=be64:&b+3", err, sizeof(err)), 0);
	assert_int_equal(run_image_set(&env, "a+8=le64:&b", err, sizeof(err)), 0);
	assert_int_equal(run_image_set(&env, "a+16=le16:0x1234", err, sizeof(err)), 0);
	assert_int_equal(run_image_set(&env, "b+0=hex:a0b1", err, sizeof(err)), 0);
	static const uint8_t want_a[18] = {0, 0, 0, 0, 0, 2, 0, 3,    0,
	                                   0, 2, 0, 0, 0, 0, 0, 0x34, 0x12};

	assert_memory_equal(a, want_a, sizeof(want_a));
	assert_int_equal(b[0], 0xa0);
	assert_int_equal(b[1], 0xb1);
	static const char ok[] = "# images\n  b+4=u8:7   # a byte\n\nb+5=be16:0x0102\n";
	struct diag_ctx d;

	diag_init(&d, "s.set", ok, strlen(ok));
	assert_int_equal(run_image_set_text(&env, ok, strlen(ok), &d), 0);
	assert_int_equal(d.errors, 0);
	diag_fini(&d);
	assert_int_equal(b[4], 7);
	assert_int_equal(b[5], 1);
	assert_int_equal(b[6], 2);
	static const char bad[] = "b+0=u8:1\nb+99=u8:1\n";

	diag_init(&d, "s.set", bad, strlen(bad));
	assert_int_equal(run_image_set_text(&env, bad, strlen(bad), &d), -1);
	assert_int_equal(d.errors, 1);
	assert_int_equal(d.items[0].loc.line, 2);
	assert_int_equal(d.items[0].loc.col, 1);
	diag_fini(&d);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(run_image_save(&env, "b", path, err, sizeof(err)), 0);
	memset(b, 0, sizeof(b));
	assert_int_equal(run_image_load(&env, "b", path, err, sizeof(err)), 0);
	assert_int_equal(b[0], 1);
	assert_int_equal(run_image_load(&env, "a", path, err, sizeof(err)), 0);
	assert_int_equal(run_image_load(&env, "nowhere", path, err, sizeof(err)), RUN_IMAGE_E_NAME);
	assert_non_null(strstr(err, "no region 'nowhere'; the program declares: a, b"));
	unlink(path);
}

/* A source file in /tmp with @text; returns its path (static, one at a time). */
static const char *temp_source(const char *text)
{
	static char path[64];
	int fd;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/prism-run-XXXXXX.prism");
	fd = mkstemps(path, 6);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* An le64 result is a number; a store without a return says so; on both
 * engines, which still print the same lines. */
/* A wrong line of a set file is reported at its line and column, with the
 * line and a caret under the part that is wrong (the one diagnostics
 * format of prismc); an --entry that names nothing says so, naming the
 * option, what there is and the closest spelling, for a .prism source and
 * for a chain object alike (usage errors). */
static void test_names_from_files_and_options(void **state)
{
	static const struct {
		const char *line, *want;
	} cases[] = {
	    {"  tabel+8=be64:1   # x",
	     ":2:3: error: no region 'tabel'; the program declares: table, values\n"
	     "      tabel+8=be64:1   # x\n"
	     "      ^~~~~\n"},
	    {"table+0=bx64:1", ":2:9: error: 'table+0=bx64:1': unknown type 'bx64' (a scalar such "
	                       "as be64, or hex)\n    table+0=bx64:1\n            ^~~~\n"},
	    {"table+0x=u8:1", ":2:7: error: '0x' is not an offset\n"},
	    {"table+0=be16:0x10000",
	     ":2:14: error: 'table+0=be16:0x10000': '0x10000' is not a be16\n"
	     "    table+0=be16:0x10000\n                 ^~~~~~~\n"},
	    {"table+0=be64:&vals+8", ":2:15: error: no region 'vals'; the program declares: table, "
	                             "values\n"},
	};
	char path[64] = "/tmp/prism-set-XXXXXX", want[512];
	struct cmd_result r;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fd = mkstemp(path);
		FILE *f = fdopen(fd, "w");

		assert_non_null(f);
		fprintf(f, "table+0=be64:5\n%s\n", cases[i].line);
		fclose(f);
		r = run(HG, "--set-file", path, "--arg", "key=1", "--arg", "b1=0", "--arg", "b2=0",
		        NULL);
		assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
		snprintf(want, sizeof(want), "%s%s", path, cases[i].want);
		if (!strstr(r.err, want))
			fail_msg("case %zu: wanted\n%s\ngot\n%s", i, want, r.err);
		cmd_result_free(&r);
		unlink(path);
		strcpy(path, "/tmp/prism-set-XXXXXX");
	}

	/* --entry: the reference, the NIC, a chain object */
	r = run(HG, "--reference", "--entry", "get_paralel", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	assert_non_null(strstr(r.err, HG ": error: --entry get_paralel: no offload of that name; "
	                                 "the program declares: get, get_parallel; did you mean "
	                                 "'get_parallel'?\n"));
	cmd_result_free(&r);
	r = run(HG, "--entry", "nope", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	assert_non_null(strstr(r.err, "--entry nope: no offload of that name; the program "
	                              "declares: get, get_parallel\n"));
	cmd_result_free(&r);
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	strcat(path, ".chain");
	r = cmd_capture(&cmd_compile, HG, "-o", path, NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_OK);
	cmd_result_free(&r);
	r = run(path, "--entry", "gt", "--json", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	snprintf(want, sizeof(want),
	         "{\"error\":\"--entry gt: %s has no entry of that name; it has: get; did you "
	         "mean 'get'?\",\"exit_status\":2}",
	         path);
	assert_non_null(strstr(r.out, want));
	cmd_result_free(&r);
	/* the entry named is the one invoked (it was the first, whatever --entry said) */
	r = run(path, "--entry", "get", HG_IMAGE, NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_OK);
	cmd_result_free(&r);
	unlink(path);
	path[strlen(path) - 6] = 0;
	unlink(path);
}

static void test_results_in_plain_words(void **state)
{
	const char *src = temp_source("struct r { a: le64; b: be16; }\n"
	                              "region m: r[2] writable;\n"
	                              "offload get(p: *r in m) -> le64 { return p.a; }\n"
	                              "offload put(p: *r in m, x: le64) { p.a = x; }\n");

	(void)state;
	struct cmd_result nic =
	    run(src, "--entry", "get", "--arg", "p=0", "--set", "m+0=le64:300", NULL);
	struct cmd_result ref = run(src, "--entry", "get", "--arg", "p=0", "--set", "m+0=le64:300",
	                            "--reference", NULL);

	assert_int_equal(nic.rc, PRISMC_EXIT_OK);
	assert_int_equal(ref.rc, PRISMC_EXIT_OK);
	assert_non_null(strstr(nic.out, "  value        300 (0x12c)\n"));
	assert_same_but_last(nic.out, ref.out);
	cmd_result_free(&nic);
	cmd_result_free(&ref);
	nic = run(src, "--entry", "get", "--arg", "p=0", "--set", "m+0=le64:300", "--json", NULL);
	assert_non_null(strstr(nic.out, "\"results\":{\"value\":300},\"returned\":true"));
	cmd_result_free(&nic);
	nic = run(src, "--entry", "put", "--arg", "p=0", "--arg", "x=5", NULL);
	ref = run(src, "--entry", "put", "--arg", "p=0", "--arg", "x=5", "--reference", NULL);
	assert_int_equal(nic.rc, PRISMC_EXIT_OK);
	assert_int_equal(ref.rc, PRISMC_EXIT_OK);
	assert_non_null(strstr(nic.out, "entry put: ran to the end (it returns nothing)\n"));
	assert_non_null(strstr(ref.out, "entry put: ran to the end (it returns nothing)\n"));
	assert_null(strstr(nic.out, "no match"));
	assert_null(strstr(nic.out, "  value "));
	cmd_result_free(&nic);
	cmd_result_free(&ref);
	unlink(src);
}

/* A region name the program does not declare: usage, with the names it does. */
static void test_region_name_typo(void **state)
{
	static const char *opt[] = {"--region", "--save"};

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct cmd_result r = run(HG, HG_IMAGE, opt[i], "tabel=/dev/null", NULL);

		assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
		assert_non_null(
		    strstr(r.err, "no region 'tabel'; the program declares: table, values"));
		cmd_result_free(&r);
	}
	struct cmd_result r = run(HG, "--reference", "--set", "tabel+0=u8:1", NULL);

	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	assert_non_null(strstr(r.err, "no region 'tabel'; the program declares: table, values"));
	cmd_result_free(&r);
}

/* --json: a failure is one JSON object on stdout too. */
static void test_json_failures(void **state)
{
	static const struct {
		const char *engine, *opt, *val, *error;
		int rc;
	} cases[] = {
	    {"--firmware=relaxed", "--region", "tabel=/dev/null", "no region 'tabel'",
	     PRISMC_EXIT_USAGE},
	    {"--reference", "--arg", "nokey=1", "no parameter 'nokey'", PRISMC_EXIT_USAGE},
	    /* the option parser's own messages reach the JSON object too */
	    {"--reference", "--bogus", "x", "unknown option '--bogus'", PRISMC_EXIT_USAGE},
	    {"--reference", "--set", "nonsense", "expected REGION[+OFF]=TYPE:VALUE",
	     PRISMC_EXIT_USAGE},
	    /* a missing input file is a usage error, as for the program (prismc.md) */
	    {"--reference", "--region", "table=/nonexistent/table.bin", "No such file",
	     PRISMC_EXIT_USAGE},
	    {"--firmware=relaxed", "--region", "table=/", "/", PRISMC_EXIT_IO},
	    /* the bucket's pointer left at zero: outside region values */
	    {"--reference", "--set", "table+64=be24:0x42", "outside region 'values'",
	     PRISMC_EXIT_ERRORS},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cmd_result r =
		    run(HG, "--json", cases[i].engine, "--arg", "key=0x42", "--arg", "b1=32",
		        "--arg", "b2=64", cases[i].opt, cases[i].val, NULL);
		json_error_t jerr;
		json_t *doc = json_loads(r.out, 0, &jerr);

		assert_int_equal(r.rc, cases[i].rc);
		if (!doc)
			fprintf(stderr, "not JSON (%s): %s", jerr.text, r.out);
		assert_non_null(doc);
		const char *msg = json_string_value(json_object_get(doc, "error"));

		assert_non_null(msg);
		assert_non_null(strstr(msg, cases[i].error));
		assert_int_equal(json_integer_value(json_object_get(doc, "exit_status")),
		                 cases[i].rc);
		json_decref(doc);
		cmd_result_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hash_get_nic_and_reference_agree),
	    cmocka_unit_test(test_reference_json_and_fault),
	    cmocka_unit_test(test_reference_arithmetic),
	    cmocka_unit_test(test_profile_options),
	    cmocka_unit_test(test_device_option),
	    cmocka_unit_test(test_set_errors),
	    cmocka_unit_test(test_image_relocation),
	    cmocka_unit_test(test_results_in_plain_words),
	    cmocka_unit_test(test_names_from_files_and_options),
	    cmocka_unit_test(test_region_name_typo),
	    cmocka_unit_test(test_json_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
