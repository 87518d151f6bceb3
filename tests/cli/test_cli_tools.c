/* SPDX-License-Identifier: MIT */
/*
 * tests/cli/test_cli_tools.c - the option conventions every tool shares
 * (tools/cli/cli.h, docs/prismc.md "Options and exit status"), checked on
 * the binaries of this build: prismc and each subcommand, prismd,
 * prism-perf, prism-fw.
 *
 * Per tool: --help and -h (exit 0, on stdout), --version and -V (exit 0,
 * "<tool> <version>"), an unknown option (exit 2, named).  Then
 * --opt=VALUE and --opt VALUE alike, a missing value named, '-' for
 * standard input wherever a file is read, a missing input file (exit 2,
 * "No such file or directory" with the path), a bad port (exit 2), an
 * unknown host (exit 3, one message naming it); prismd's configuration
 * errors with the line and a caret, a program that does not load at the
 * line that lists it.
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

#include "tests/cli/run_tool.h"

static const struct {
	const char *cmd;  /* how to run it */
	const char *name; /* what --version starts with */
} tools[] = {
    {"@/prismc", "prismc"},
    {"@/prismc check", "prismc"},
    {"@/prismc compile", "prismc"},
    {"@/prismc dump", "prismc"},
    {"@/prismc run", "prismc"},
    {"@/prismc post", "prismc"},
    {"@/prismc call", "prismc"},
    {"@/prismc show", "prismc"},
    {"@/prismc remove", "prismc"},
    {"@/prismc devices", "prismc"},
    {"@/prismd", "prismd"},
    {"@/prism-perf", "prism-perf"},
    {"firmware-config/prism-fw", "prism-fw"},
};

#define N_TOOLS (sizeof(tools) / sizeof(tools[0]))

/*
 * The per-tool matrix (help, version, unknown option) only parses a command
 * line and exits: under ASan, the leak check at each exit is most of its
 * cost, and the functional runs below keep it.
 */
#define MATRIX_ENV "ASAN_OPTIONS=detect_leaks=0"

static struct tool_out run_matrix(const char *tool, const char *args)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "%s %s", tool, args);
	return run_tool_env(MATRIX_ENV, cmd, NULL);
}

static void test_help_everywhere(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_TOOLS; i++) {
		for (int spelling = 0; spelling < 2; spelling++) {
			struct tool_out o = run_matrix(tools[i].cmd, spelling ? "-h" : "--help");

			TOOL_EXPECT(o, 0, out, tools[i].name);
			if (o.err[0])
				fail_msg("%s --help wrote to stderr: %s", tools[i].cmd, o.err);
			tool_out_free(&o);
		}
	}
}

static void test_version_everywhere(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_TOOLS; i++) {
		for (int spelling = 0; spelling < 2; spelling++) {
			struct tool_out o =
			    run_toolf("%s %s", tools[i].cmd, spelling ? "-V" : "--version");
			char want[64];

			snprintf(want, sizeof(want), "%s 0.", tools[i].name);
			TOOL_EXPECT(o, 0, out, want);
			assert_int_equal(tool_lines(o.out), 1);
			tool_out_free(&o);
		}
	}
}

static void test_unknown_option_named(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_TOOLS; i++) {
		struct tool_out o = run_matrix(tools[i].cmd, "--no-such-option=3 x");

		TOOL_EXPECT(o, 2, err, "option '--no-such-option");
		tool_out_free(&o);
	}
	/* a short one too */
	struct tool_out o = run_toolf("@/prismc compile -Q x.prism");

	TOOL_EXPECT(o, 2, err, "unknown option '-Q'");
	tool_out_free(&o);
}

/* @eq and @sp, one command with --opt=VALUE and with --opt VALUE, exit with
 * @code and print the same (standard output when @code is 0, else standard
 * error), which holds @want. */
static void same_either_way(const char *eq, const char *sp, int code, const char *want)
{
	struct tool_out a = run_tool(eq, NULL), b = run_tool(sp, NULL);

	if (code)
		TOOL_EXPECT(a, code, err, want);
	else
		TOOL_EXPECT(a, code, out, want);
	assert_string_equal(code ? a.err : a.out, code ? b.err : b.out);
	tool_out_free(&a);
	tool_out_free(&b);
}

/* --opt=VALUE and --opt VALUE mean the same; a missing value is named. */
static void test_opt_equals_and_space(void **state)
{
	struct tool_out a;

	(void)state;
	same_either_way(
	    "@/prismc compile --entry=get_parallel lib/chains/hash_get.prism --output=-",
	    "@/prismc compile --entry get_parallel lib/chains/hash_get.prism --output -", 0,
	    "program: get_parallel");
	same_either_way("@/prismc dump --stats --entry=get_parallel lib/chains/hash_get.prism",
	                "@/prismc dump --stats --entry get_parallel lib/chains/hash_get.prism", 0,
	                "get_parallel");
	same_either_way("@/prismd --config=/nonexistent/p.yaml",
	                "@/prismd --config /nonexistent/p.yaml", 2, "/nonexistent/p.yaml");
	same_either_way("@/prism-perf --depth=0 127.0.0.1", "@/prism-perf --depth 0 127.0.0.1", 2,
	                "--depth: '0'");
	a = run_toolf("@/prismc run lib/chains/hash_get.prism --entry");
	TOOL_EXPECT(a, 2, err, "option '--entry' needs a value");
	tool_out_free(&a);
	a = run_toolf("@/prismc show --json=yes --server x");
	TOOL_EXPECT(a, 2, err, "option '--json' takes no value");
	tool_out_free(&a);
}

/* '-' reads standard input wherever a file is read. */
static void test_stdin_dash(void **state)
{
	char *chain = tool_temp_file(".chain", "");
	struct tool_out o;
	char cmd[256];

	(void)state;
	o = run_tool_in("lib/chains/hash_get.prism", "@/prismc check -");
	TOOL_EXPECT(o, 0, err, "");
	tool_out_free(&o);
	o = run_tool_in("lib/chains/hash_get.prism", "@/prismc compile - -o -");
	TOOL_EXPECT(o, 0, out, "prism-chain:");
	tool_out_free(&o);
	/* a compiled object on stdin */
	snprintf(cmd, sizeof(cmd), "@/prismc compile lib/chains/hash_get.prism -o %s", chain);
	o = run_toolf("%s", cmd);
	TOOL_EXPECT(o, 0, err, "");
	tool_out_free(&o);
	o = run_tool_in(chain, "@/prismc dump --stats -");
	TOOL_EXPECT(o, 0, out, "get");
	tool_out_free(&o);
	/* ... and source */
	o = run_tool_in("lib/chains/hash_get.prism", "@/prismc dump --stats -");
	TOOL_EXPECT(o, 0, out, "get");
	tool_out_free(&o);
	o = run_tool_in("tests/prism/cas_gt.prism",
	                "@/prismc run - --entry raise --arg s=0 --arg mark=5 --json");
	TOOL_EXPECT(o, 0, out, "\"entry\":\"raise\"");
	tool_out_free(&o);
	/* region contents and --set specifications from stdin (cas_gt's raise:
	 * slot 0 holds 3 from stdin, so a mark of 2 leaves it at 3; zeros
	 * would have become 2) */
	{
		char *img = tool_temp_file(".bin", "\x03");
		char *sets = tool_temp_file(".set", "meta+0=le64:3 # the old mark\n");

		char *saved = tool_temp_file(".out", "");
		unsigned char first = 0;
		FILE *f;

		o = run_tool_in(
		    img,
		    "@/prismc run tests/prism/cas_gt.prism --entry raise --region meta=- "
		    "--arg s=0 --arg mark=2 --save meta=%s",
		    saved);
		TOOL_EXPECT(o, 0, out, "entry raise");
		tool_out_free(&o);
		f = fopen(saved, "rb");
		assert_non_null(f);
		assert_int_equal(fread(&first, 1, 1, f), 1);
		fclose(f);
		assert_int_equal(first, 3); /* 3 from stdin stays: 2 is not greater */
		unlink(saved);
		free(saved);
		o = run_tool_in(sets,
		                "@/prismc run tests/prism/cas_gt.prism --entry raise --set-file - "
		                "--arg s=0 --arg mark=2 --json");
		TOOL_EXPECT(o, 0, out, "\"entry\":\"raise\"");
		tool_out_free(&o);
		unlink(img);
		unlink(sets);
		free(img);
		free(sets);
	}
	/* prism-perf reads the object of --chain - once, for every connection */
	snprintf(cmd, sizeof(cmd), "@/prism-perf -w get --chain - -e nope -p 1 127.0.0.1");
	o = run_tool_in(chain, "%s", cmd);
	TOOL_EXPECT(o, 1, err,
	            "prism-perf: --entry nope: <stdin> has no entry of that name; it has: get\n");
	tool_out_free(&o);
	o = run_tool_in("/dev/null", "@/prismd --config -");
	TOOL_EXPECT(o, 1, err, "<stdin>: error: empty configuration");
	tool_out_free(&o);
	unlink(chain);
	free(chain);
}

/* A missing input file: exit 2, "path: No such file or directory". */
static void test_missing_file(void **state)
{
	static const char *const cmds[] = {
	    "@/prismc check /nonexistent/x.prism",
	    "@/prismc compile /nonexistent/x.prism -o /dev/null",
	    "@/prismc dump /nonexistent/x.prism",
	    "@/prismc dump /nonexistent/x.chain",
	    "@/prismc run /nonexistent/x.chain",
	    "@/prismc run /nonexistent/x.prism",
	    "@/prismc post /nonexistent/x.chain --server /nonexistent/post.sock",
	    "@/prismd --config /nonexistent/x.yaml",
	    "firmware-config/prism-fw restore mlx5_0 --yes /nonexistent/x.saved",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		struct tool_out o = run_toolf("%s", cmds[i]);

		TOOL_EXPECT(o, 2, err, "/nonexistent/x.");
		TOOL_EXPECT(o, 2, err, "No such file or directory");
		if (strstr(o.err, "Input/output error"))
			fail_msg("%s: %s", cmds[i], o.err);
		tool_out_free(&o);
	}
	/* one that exists but cannot be read is an I/O error (3) */
	struct tool_out o = run_toolf("@/prismd --config /");

	TOOL_EXPECT(o, 3, err, "/: error: Is a directory");
	tool_out_free(&o);
	o = run_toolf("@/prismc compile / -o /dev/null");
	TOOL_EXPECT(o, 3, err, "/: Is a directory");
	tool_out_free(&o);
}

/* prismd @flags --config on a temporary file holding @text; its path in
 * *@yaml (the caller frees it and removes the file). */
static struct tool_out prismd_on(const char *flags, const char *text, char **yaml)
{
	*yaml = tool_temp_file(".yaml", text);
	return run_toolf("@/prismd %s --config %s", flags, *yaml);
}

/* Fail the test unless @o exited with @code and its standard error holds
 * the text @fmt formats. */
__attribute__((format(printf, 3, 4))) static void expect_err(const struct tool_out *o, int code,
                                                             const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	TOOL_EXPECT(*o, code, err, text);
}

static void done_with(struct tool_out *o, char *yaml)
{
	tool_out_free(o);
	unlink(yaml);
	free(yaml);
}

/*
 * prismd's errors about its configuration, as prismc's about a source: the
 * place, the line and a caret.  A configured program that does not load
 * (its file is missing; a region it uses is not configured) is reported at
 * the line that lists it, and prismd does not start (exit 3).
 */
static void test_prismd_config_places(void **state)
{
	char *chain = tool_temp_file(".chain", "");
	char text[512], *yaml;
	struct tool_out o;

	(void)state;
	o = run_toolf("@/prismc compile lib/chains/hash_get.prism -o %s", chain);
	TOOL_EXPECT(o, 0, err, "");
	tool_out_free(&o);
	snprintf(text, sizeof(text),
	         "device: sim\n"
	         "listen: 127.0.0.1:0\n"
	         "regions:\n"
	         "  - {name: other, size: 4K}\n"
	         "programs:\n"
	         "  - /nonexistent/gone.chain\n"
	         "  - %s\n",
	         chain);
	o = prismd_on("--quiet", text, &yaml);
	expect_err(&o, 3,
	           "%s:6:5: error: program file '/nonexistent/gone.chain': No such file or "
	           "directory\n"
	           "      - /nonexistent/gone.chain\n"
	           "        ^~~~~~~~~~~~~~~~~~~~~~~\n",
	           yaml);
	expect_err(&o, 3,
	           "%s:7:5: error: program 'get': region 'table' (1048576 bytes) is not registered "
	           "on device sim (declare it under 'regions')\n"
	           "      - %s\n"
	           "        ^~~",
	           yaml, chain);
	/* each failure is that one report (3 lines), not the library's line as
	 * well; then why prismd stops */
	assert_null(strstr(o.err, "prism: error:"));
	assert_int_equal(tool_lines(o.err), 7);
	TOOL_EXPECT(o, 3, err, "~\nprismd: a configured program did not load; not starting\n");
	tool_out_free(&o);
	/* the same from standard input */
	o = run_tool_in(yaml, "@/prismd --config -");
	TOOL_EXPECT(o, 3, err, "<stdin>:6:5: error: program file '/nonexistent/gone.chain'");
	done_with(&o, yaml);
	/* a region smaller than the program declares: the program's line, then a
	 * note at the region's entry */
	snprintf(text, sizeof(text),
	         "device: sim\n"
	         "listen: 127.0.0.1:0\n"
	         "regions:\n"
	         "  - {name: table, size: 4K, access: [read]}\n"
	         "  - {name: values, size: 4M}\n"
	         "programs: [%s]\n",
	         chain);
	o = prismd_on("--quiet", text, &yaml);
	expect_err(&o, 3,
	           "%s:6:12: error: program 'get': region 'table' is 4096 bytes with access read; "
	           "the program declares 1048576 bytes with access read\n"
	           "    programs: [%s]\n"
	           "               ^~~",
	           yaml, chain);
	expect_err(&o, 3,
	           "%s:4:5: note: region 'table' is configured here\n"
	           "      - {name: table, size: 4K, access: [read]}\n"
	           "        ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n",
	           yaml);
	done_with(&o, yaml);
	/* an object the reader rejects: its reason, at the line that lists it */
	{
		char *bad = tool_temp_file(".chain", "format: [\n");

		snprintf(text, sizeof(text),
		         "device: sim\nlisten: 127.0.0.1:0\nprograms:\n  - %s\n", bad);
		o = prismd_on("", text, &yaml);
		expect_err(&o, 3, "%s:4:5: error: program file '%s': rejected: line 2: ", yaml,
		           bad);
		assert_null(strstr(o.err, "prism: error:"));
		assert_int_equal(tool_lines(o.err), 4);
		done_with(&o, yaml);
		unlink(bad);
		free(bad);
	}
	/* a region's file that is not there: at its 'file' value */
	o = prismd_on("--quiet",
	              "device: sim\n"
	              "listen: 127.0.0.1:0\n"
	              "regions:\n"
	              "  - {name: t, file: /nonexistent/t.bin}\n",
	              &yaml);
	expect_err(&o, 3,
	           "%s:4:21: error: region 't': file '/nonexistent/t.bin': No such file or "
	           "directory\n"
	           "      - {name: t, file: /nonexistent/t.bin}\n"
	           "                        ^~~~~~~~~~~~~~~~~~\n",
	           yaml);
	done_with(&o, yaml);
	/* a syntax error: libyaml's place, the line, the caret */
	o = prismd_on("", "device: sim\n  listen: 1\n", &yaml);
	expect_err(&o, 1,
	           "%s:2:9: error: mapping values are not allowed in this context\n"
	           "      listen: 1\n"
	           "            ^\n",
	           yaml);
	done_with(&o, yaml);
	unlink(chain);
	free(chain);
}

/* A bad port is a usage error; an unknown host is named with the
 * resolver's reason, once. */
static void test_ports_and_hosts(void **state)
{
	struct tool_out o;

	(void)state;
	o = run_toolf("@/prismc call --server 127.0.0.1:99999");
	TOOL_EXPECT(o, 2, err, "'99999' is not a TCP port");
	tool_out_free(&o);
	o = run_toolf("@/prismc call -s 127.0.0.1:0");
	TOOL_EXPECT(o, 2, err, "'0' is not a TCP port");
	tool_out_free(&o);
	o = run_toolf("@/prism-perf --port 70000 127.0.0.1");
	TOOL_EXPECT(o, 2, err, "'70000' is not a TCP port");
	tool_out_free(&o);
	o = run_toolf("@/prismc call --server 'no such host!:18515' --timeout 2000");
	TOOL_EXPECT(o, 3, err, "cannot resolve host 'no such host!'");
	assert_int_equal(tool_lines(o.err), 1);
	assert_null(strstr(o.err, "No route to host"));
	tool_out_free(&o);
	/* nothing listens on port 1: one line naming the address */
	o = run_toolf("@/prismc call --server 127.0.0.1:1");
	TOOL_EXPECT(o, 3, err, "127.0.0.1:1");
	assert_int_equal(tool_lines(o.err), 1);
	tool_out_free(&o);
	/* a server socket that is not there: one line, no prism code through strerror */
	o = run_toolf("@/prismc post lib/chains/hash_get.prism --server /nonexistent/post.sock");
	TOOL_EXPECT(o, 3, err, "/nonexistent/post.sock");
	assert_int_equal(tool_lines(o.err), 1);
	assert_null(strstr(o.err, "Unknown error"));
	tool_out_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_help_everywhere),
	    cmocka_unit_test(test_version_everywhere),
	    cmocka_unit_test(test_unknown_option_named),
	    cmocka_unit_test(test_opt_equals_and_space),
	    cmocka_unit_test(test_stdin_dash),
	    cmocka_unit_test(test_missing_file),
	    cmocka_unit_test(test_prismd_config_places),
	    cmocka_unit_test(test_ports_and_hosts),
	};

	return cmocka_run_group_tests_name("cli_tools", tests, NULL, NULL);
}
