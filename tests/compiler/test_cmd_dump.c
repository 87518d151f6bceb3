/* SPDX-License-Identifier: MIT */
/*
 * test_cmd_dump.c - the `prismc dump` subcommand end to end: options, exit
 * codes, error messages, .chain and .prism inputs.
 *
 * Owns: tests that call cmd_dump.run() with an argv and capture what it
 * writes to stdout and stderr (through the file descriptors, as a user
 * would see it).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "compiler/cmd.h"
#include "tests/compiler/cmd_capture.h"
#include "chain/chainobj.h"
#include "tests/chainobj/chain_fixture.h"

extern const struct prismc_cmd cmd_dump;

/* `prismc dump ARGS...` (NULL-terminated), capturing stdout and stderr. */
#define run(...) cmd_capture(&cmd_dump, __VA_ARGS__)

/* The fixture written as a .chain file; returns its path (static). */
static const char *fixture_file(const char *find, const char *repl)
{
	static char path[64];
	struct chainobj *o = fixture_hashget();
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int fd;

	assert_int_equal(chainobj_write_mem(o, 0, &text, &len, NULL), 0);
	chainobj_free(o);
	snprintf(path, sizeof(path), "/tmp/prism-dump-XXXXXX.chain");
	fd = mkstemps(path, 6);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	if (find) {
		char *at = strstr(text, find);

		assert_non_null(at);
		fwrite(text, 1, (size_t)(at - text), f);
		fputs(repl, f);
		fputs(at + strlen(find), f);
	} else {
		fputs(text, f);
	}
	fclose(f);
	free(text);
	return path;
}

static void test_dump_chain_file(void **state)
{
	const char *path = fixture_file(NULL, NULL);
	struct cmd_result r = run(path, NULL);

	assert_int_equal(r.rc, PRISMC_EXIT_OK);
	assert_non_null(strstr(r.out, "program hash_get: schema 1"));
	assert_non_null(strstr(r.out, "<- worker#2 cas [0..7]"));
	assert_string_equal(r.err, "");
	cmd_result_free(&r);
	r = run("--stats", path, NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_OK);
	assert_non_null(strstr(r.out, "predicted latency (cx5, sequential model): 3.09 us"));
	cmd_result_free(&r);
	r = run("--json", "--raw", path, NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_OK);
	assert_memory_equal(r.out, "{\"schema\":1,\"program\":\"hash_get\"", 32);
	cmd_result_free(&r);
	r = run(path, "--dot", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_OK);
	assert_memory_equal(r.out, "digraph \"hash_get\" {", 20);
	cmd_result_free(&r);
	unlink(path);
}

static void test_dump_rejects_tampered_chain(void **state)
{
	const char *path = fixture_file("sq-slots: 64", "sq-slots: 63");
	struct cmd_result r = run(path, NULL);
	char want[128];

	assert_int_equal(r.rc, PRISMC_EXIT_ERRORS);
	assert_string_equal(r.out, "");
	snprintf(want, sizeof(want), "%s:", path);
	assert_memory_equal(r.err, want, strlen(want));
	assert_non_null(strstr(r.err, ": error: queues[0].sq-slots: 63: not a power of two"));
	cmd_result_free(&r);
	unlink(path);
}

static void test_dump_usage_and_io_errors(void **state)
{
	struct cmd_result r = run(NULL);

	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	assert_non_null(strstr(r.err, "prismc dump: no input file\nTry 'prismc dump --help'."));
	cmd_result_free(&r);
	r = run("--bogus", "x.chain", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	assert_non_null(strstr(r.err, "unknown option '--bogus'"));
	cmd_result_free(&r);
	r = run("--dot", "--json", "x.chain", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	cmd_result_free(&r);
	r = run("a.chain", "b.chain", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	cmd_result_free(&r);
	r = run("--profile", "fast", "a.prism", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	cmd_result_free(&r);
	/* a missing input file is a usage error; an unreadable one is I/O */
	r = run("/nonexistent/x.chain", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	assert_non_null(strstr(r.err, "/nonexistent/x.chain: No such file or directory"));
	cmd_result_free(&r);
	r = run("/", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_IO);
	assert_non_null(strstr(r.err, "/: Is a directory"));
	cmd_result_free(&r);
}

/* A .prism source goes through the whole pipeline first. */
static void test_dump_prism_source(void **state)
{
	struct cmd_result r = run("lib/chains/hash_get.prism", NULL);

	assert_int_equal(r.rc, PRISMC_EXIT_OK);
	assert_non_null(strstr(r.out, "\nqueue conn (conn, managed send"));
	assert_non_null(strstr(r.out, "recv-scatter"));
	assert_non_null(strstr(r.out, "verifier: verified"));
	cmd_result_free(&r);
	r = run("--stats", "--profile", "relaxed", "--entry", "get", "lib/chains/hash_get.prism",
	        NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_OK);
	assert_non_null(strstr(r.out, "predicted latency (cx5"));
	cmd_result_free(&r);
	/* the cost profile by name or as a YAML file; --firmware is --profile */
	r = run("--stats", "--firmware", "strict", "--cost", "profiles/cx5.yaml",
	        "lib/chains/hash_get.prism", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_OK);
	assert_non_null(strstr(r.out, "predicted latency (cx5"));
	cmd_result_free(&r);
	/* an --entry that names nothing: a usage error naming the option, in a
	 * source and in a chain object (it was ignored there) */
	r = run("--entry", "gett", "lib/chains/hash_get.prism", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	assert_non_null(strstr(r.err, "lib/chains/hash_get.prism: error: --entry gett: no offload "
	                              "of that name; the program declares: get, get_parallel; "
	                              "did you mean 'get'?\n"));
	cmd_result_free(&r);
	const char *chain = fixture_file(NULL, NULL);
	char want[256];

	r = run("--entry", "put", chain, NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	snprintf(want, sizeof(want),
	         "prismc dump: --entry put: %s has no entry of that name; it has: get\n", chain);
	assert_non_null(strstr(r.err, want));
	assert_string_equal(r.out, "");
	cmd_result_free(&r);
	r = run("--entry", "get", chain, NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_OK);
	cmd_result_free(&r);
	unlink(chain);
	r = run("--stats", "--cost", "nope", "lib/chains/hash_get.prism", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	assert_non_null(strstr(r.err, "prismc dump: --cost nope: "));
	cmd_result_free(&r);
	r = run("--stats", "--firmware", "cx5", "lib/chains/hash_get.prism", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	assert_non_null(strstr(r.err, "is a cost profile"));
	cmd_result_free(&r);
}

/*
 * The picture of a compiled program (not the hand-built fixture:
 * tests/compiler/golden/hash_get.chain is `prismc compile
 * lib/chains/hash_get.prism`, kept as an object so that the picture does not
 * move with the back end): pinned to a golden file (regenerate with
 * PRISM_UPDATE_GOLDEN=1 and review), and every ENABLE arrow leaves its own
 * queue's cluster (`q<N>_s<i>`): an ENABLE starts another queue, never the
 * head of the sender's own.
 */
static void test_dump_dot_compiled_enables(void **state)
{
	static const char *golden = "tests/compiler/golden/hash_get.compiled.dot";
	struct cmd_result r = run("--dot", "tests/compiler/golden/hash_get.chain", NULL);
	unsigned enables = 0;

	assert_int_equal(r.rc, PRISMC_EXIT_OK);
	for (const char *l = r.out; (l = strstr(l, "label=\"enable\"")); l++) {
		const char *start = l;
		unsigned from_q, to_q;

		while (start > r.out && start[-1] != '\n')
			start--;
		assert_int_equal(sscanf(start, "  q%u_%*[sr]%*u -> q%u_", &from_q, &to_q), 2);
		assert_int_not_equal(from_q, to_q);
		enables++;
	}
	assert_true(enables >= 2);
	if (getenv("PRISM_UPDATE_GOLDEN")) {
		FILE *f = fopen(golden, "w");

		assert_non_null(f);
		fputs(r.out, f);
		fclose(f);
	}
	FILE *f = fopen(golden, "r");

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	char *want = cmd_read_all(f);

	fclose(f);
	if (strcmp(r.out, want))
		print_error("%s differs; got:\n%s\n", golden, r.out);
	assert_string_equal(r.out, want);
	free(want);
	cmd_result_free(&r);
}

static void test_dump_prism_with_errors(void **state)
{
	char path[] = "/tmp/prism-dump-bad-XXXXXX.prism";
	int fd = mkstemps(path, 6);
	struct cmd_result r;

	assert_true(fd >= 0);
	assert_true(write(fd, "offload (", 9) == 9);
	close(fd);
	r = run(path, NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_ERRORS);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "error"));
	cmd_result_free(&r);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dump_chain_file),
	    cmocka_unit_test(test_dump_rejects_tampered_chain),
	    cmocka_unit_test(test_dump_usage_and_io_errors),
	    cmocka_unit_test(test_dump_prism_source),
	    cmocka_unit_test(test_dump_prism_with_errors),
	    cmocka_unit_test(test_dump_dot_compiled_enables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
