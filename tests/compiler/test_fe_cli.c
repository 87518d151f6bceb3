/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/test_fe_cli.c - the prismc binary: documented exit codes
 * (docs/prismc.md), --help on the tool and on `check`, `check --json`.
 * Runs the binary built for this tree (PRISMC_PATH, set by the Makefile).
 */
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

#ifndef PRISMC_PATH
#define PRISMC_PATH "build/prismc"
#endif

static char out_path[] = "/tmp/prismc-cli-XXXXXX";

/* Run `prismc <args>` with stdout+stderr to a temp file; returns the exit
 * status and the output (malloc'ed). */
static int run(const char *args, char **output)
{
	char cmd[1024];
	int fd = mkstemp(out_path);
	FILE *f;
	long n;

	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s %s >%s 2>&1", PRISMC_PATH, args, out_path);
	int st = system(cmd);
	assert_true(WIFEXITED(st));
	f = fopen(out_path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	*output = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(*output, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	unlink(out_path);
	strcpy(out_path, "/tmp/prismc-cli-XXXXXX");
	return WEXITSTATUS(st);
}

static char *write_temp(const char *text)
{
	char *path = strdup("/tmp/prismc-src-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void test_exit_ok(void **state)
{
	char *out;

	(void)state;
	assert_int_equal(run("check tests/prism/hash_get.prism tests/prism/list_find.prism", &out),
	                 0);
	assert_string_equal(out, "");
	free(out);
}

static void test_exit_errors(void **state)
{
	char *path = write_temp("offload f(k: be64) { return nope; }\n");
	char args[256], *out;

	(void)state;
	snprintf(args, sizeof(args), "check %s", path);
	assert_int_equal(run(args, &out), 1);
	assert_non_null(strstr(out, ":1:29: error: unknown name 'nope'\n"));
	assert_non_null(strstr(out, "1 error, 0 warnings\n"));
	free(out);
	unlink(path);
	free(path);
}

static void test_exit_usage(void **state)
{
	char *out;

	(void)state;
	assert_int_equal(run("", &out), 2);
	free(out);
	assert_int_equal(run("frobnicate", &out), 2);
	assert_non_null(
	    strstr(out, "prismc: 'frobnicate' is not a command (see 'prismc --help')\n"));
	free(out);
	assert_int_equal(run("chek x.prism", &out), 2);
	assert_non_null(strstr(
	    out, "prismc: 'chek' is not a command; did you mean 'check'? (see 'prismc --help')\n"));
	free(out);
	assert_int_equal(run("help dupm", &out), 2);
	assert_non_null(strstr(out, "'dupm' is not a command; did you mean 'dump'?"));
	free(out);
	assert_int_equal(run("check", &out), 2);
	assert_non_null(strstr(out, "no input files"));
	free(out);
	assert_int_equal(run("check --bogus x.prism", &out), 2);
	free(out);
	assert_int_equal(run("check --max-errors 0 x.prism", &out), 2);
	free(out);
}

static void test_exit_io(void **state)
{
	char *out;

	(void)state;
	/* a missing input file is a usage error (docs/prismc.md) */
	assert_int_equal(run("check /nonexistent/x.prism", &out), 2);
	assert_non_null(strstr(out, "/nonexistent/x.prism: error: cannot read file: No such file"));
	free(out);
	/* the most severe status wins when several files fail */
	assert_int_equal(run("check /nonexistent/x.prism tests/prism/hash_get.prism", &out), 2);
	free(out);
}

static void test_help(void **state)
{
	char *out;

	(void)state;
	assert_int_equal(run("--help", &out), 0);
	assert_non_null(strstr(out, "usage: prismc"));
	assert_non_null(strstr(out, "  check "));
	free(out);
	assert_int_equal(run("check --help", &out), 0);
	assert_non_null(strstr(out, "usage: prismc check"));
	free(out);
	assert_int_equal(run("help check", &out), 0);
	assert_non_null(strstr(out, "--json"));
	free(out);
	assert_int_equal(run("--version", &out), 0);
	assert_non_null(strstr(out, "prismc "));
	free(out);
}

static void test_json(void **state)
{
	char *path = write_temp("offload f(k: be64) {\n\tif (1 == 1) { return nope; }\n}\n");
	char args[256], *out, expect[512];

	(void)state;
	snprintf(args, sizeof(args), "check --json %s", path);
	assert_int_equal(run(args, &out), 1);
	snprintf(
	    expect, sizeof(expect),
	    "{\"diagnostics\":[{\"file\":\"%s\",\"line\":2,\"column\":6,\"length\":6,"
	    "\"severity\":\"warning\",\"message\":\"'if' condition is always true\"},"
	    "{\"file\":\"%s\",\"line\":2,\"column\":23,\"length\":4,\"severity\":\"error\","
	    "\"message\":\"unknown name 'nope'\"}],\"ok\":false,\"errors\":1,\"warnings\":1}\n",
	    path, path);
	assert_string_equal(out, expect);
	free(out);
	unlink(path);
	free(path);
}

static void test_werror_and_stdin(void **state)
{
	char *path = write_temp("region r size 8 writable;\n"
	                        "offload f(k: be64) { k == 1; return k; }\n");
	char args[256], *out;

	(void)state;
	snprintf(args, sizeof(args), "check --front-end-only %s", path);
	assert_int_equal(run(args, &out), 0);
	assert_non_null(strstr(out, "warning: expression result (bool) is unused"));
	free(out);
	snprintf(args, sizeof(args), "check --front-end-only -Werror %s", path);
	assert_int_equal(run(args, &out), 1);
	free(out);
	snprintf(args, sizeof(args), "check --front-end-only - < %s", path);
	assert_int_equal(run(args, &out), 0);
	assert_non_null(strstr(out, "<stdin>:2:22: warning"));
	free(out);
	unlink(path);
	free(path);
}

/* check runs the back end and the verifier on every offload: it rejects what
 * compile rejects, with the location, and --front-end-only stops before */
static void test_check_runs_back_end(void **state)
{
	char *path = write_temp("assume fenced_enable;\n"
	                        "struct node { key: be24; pad: u8[5]; next: *node in nodes; }\n"
	                        "region nodes: node[64] readonly;\n"
	                        "offload ok(key: be24, h: *node in nodes) {\n"
	                        "\tlet p = h;\n"
	                        "\twhile (p.key != key) bound 8 { p = p.next; }\n"
	                        "}\n"
	                        "offload walk(key: be24, h: *node in nodes) {\n"
	                        "\tlet p = h;\n"
	                        "\twhile (p.key != key) bound 100 recycle {\n"
	                        "\t\tp = p.next;\n"
	                        "\t\tp = p.next;\n"
	                        "\t}\n"
	                        "}\n");
	char args[256], *out;

	(void)state;
	snprintf(args, sizeof(args), "check --front-end-only %s", path);
	assert_int_equal(run(args, &out), 0);
	free(out);
	/* the second offload's body is not a walk the recycled lowering takes */
	snprintf(args, sizeof(args), "check %s", path);
	assert_int_equal(run(args, &out), 1);
	assert_non_null(strstr(out, ":11:5: error: a recycled loop is lowered for a pointer walk"));
	free(out);
	/* under strict the recycled loop itself is refused, at the while */
	snprintf(args, sizeof(args), "check --profile strict %s", path);
	assert_int_equal(run(args, &out), 1);
	assert_non_null(strstr(out, ":10:2: error: a recycled loop needs the relaxed firmware"));
	free(out);
	/* --firmware is the same option (--profile its older spelling) */
	snprintf(args, sizeof(args), "check --firmware strict %s", path);
	assert_int_equal(run(args, &out), 1);
	assert_non_null(strstr(out, ":10:2: error: a recycled loop needs the relaxed firmware"));
	free(out);
	snprintf(args, sizeof(args), "check --profile lax %s", path);
	assert_int_equal(run(args, &out), 2);
	free(out);
	unlink(path);
	free(path);
}

/* devices --probe: the software NIC's behaviour, one line per probe; the
 * firmware profile decides the control-segment checks */
static void test_devices_probe(void **state)
{
	char *out;

	(void)state;
	assert_int_equal(run("devices --probe", &out), 0);
	assert_non_null(strstr(out, "device sim: software RNIC"));
	assert_non_null(
	    strstr(out, "wait-cqe-index               yes    WAIT(1) held after 1 CQE"));
	assert_non_null(strstr(out, "send-en-past-dbrec           yes"));
	assert_non_null(strstr(out, "relaxed-wqe-index            yes"));
	free(out);
	assert_int_equal(run("devices --probe --firmware strict --json", &out), 0);
	assert_non_null(strstr(out, "\"relaxed-wqe-index\":{\"verdict\":\"no\""));
	free(out);
	assert_int_equal(run("devices --profile lax", &out), 2);
	free(out);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exit_ok),
	    cmocka_unit_test(test_exit_errors),
	    cmocka_unit_test(test_exit_usage),
	    cmocka_unit_test(test_exit_io),
	    cmocka_unit_test(test_help),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_werror_and_stdin),
	    cmocka_unit_test(test_check_runs_back_end),
	    cmocka_unit_test(test_devices_probe),
	};

	return cmocka_run_group_tests_name("prismc cli", tests, NULL, NULL);
}
