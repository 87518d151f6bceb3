/* SPDX-License-Identifier: MIT */
/*
 * tests/cli/test_cli_server.c - `prismc show`, `call`, `post` and `remove`
 * against a running prismd (the binaries of this build), prismd's log of
 * installs, replacements, removals and refusals, and its start-up
 * strictness: a configured program that does not load stops it before
 * "ready".
 *
 * The served program returns one be64 cell of a region prismd fills from a
 * file, so a call's result is known.
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

#include "tests/cli/run_tool.h"
#include "tests/runtime/support/child_proc.h"

#ifndef TOOL_DIR
#define TOOL_DIR "build"
#endif

#define CELL_PRISM                                                                                 \
	"struct cell { v: be64; }\n"                                                               \
	"region cells: cell[4] readonly;\n"                                                        \
	"offload get(c: *cell in cells) -> be64 { return c.v; }\n"

#define CELL_PRISM2                                                                                \
	"struct cell { v: be64; }\n"                                                               \
	"region cells: cell[4] readonly;\n"                                                        \
	"offload get2(c: *cell in cells) -> be64 { return c.v; }\n"

static char dir[] = "/tmp/prism-cli-srv-XXXXXX";
static char cfg[128], post_sock[128], log_path[128], cell_src[128], cell_chain[128];

static void write_text(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

/*
 * Start prismd on @config with stderr to log_path; the port it serves on,
 * or 0 when it exited without "ready" (*@status then has its exit status).
 */
static unsigned start_prismd(const char *config, pid_t *pid, int *status)
{
	char prismd[256], line[256];
	unsigned port = 0;
	int p[2];
	FILE *out;

	snprintf(prismd, sizeof(prismd), "%s/prismd", TOOL_DIR);
	assert_int_equal(pipe(p), 0);
	*pid = child_fork();
	assert_true(*pid >= 0);
	if (*pid == 0) {
		FILE *log = fopen(log_path, "w");

		dup2(p[1], 1);
		dup2(fileno(log), 2);
		close(p[0]);
		execl(prismd, prismd, "--config", config, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	out = fdopen(p[0], "r");
	while (fgets(line, sizeof(line), out))
		if (sscanf(line, "prismd: ready port=%u", &port) == 1)
			break;
	fclose(out);
	if (!port) {
		int st = child_wait(*pid);

		*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	}
	return port;
}

static void write_config(const char *program)
{
	char text[1024];
	int n = snprintf(text, sizeof(text),
	                 "device: sim\nlisten: 127.0.0.1:0\nallow-post: true\n"
	                 "post-socket: %s\nregions:\n  - {name: cells, file: %s/cells.bin}\n"
	                 "programs:\n  - %s\n",
	                 post_sock, dir, program);

	write_text(cfg, text, (size_t)n);
}

/* show, call, post (replace, from stdin), remove, and prismd's log. */
static void test_manage_running_server(void **state)
{
	char expect[128], *log;
	struct tool_out o;
	unsigned port;
	pid_t pid;
	int st;

	(void)state;
	write_config(cell_chain);
	port = start_prismd(cfg, &pid, &st);
	assert_true(port > 0);

	o = run_toolf("@/prismc show --server %s", post_sock);
	TOOL_EXPECT(o, 0, out, "get  entries get\n\tregions cells 32B r--\n\tinstalled ");
	TOOL_EXPECT(o, 0, out, "pid -1  object ");
	TOOL_EXPECT(o, 0, out, "connections 0 live, 0 total  invocations 0\n");
	tool_out_free(&o);

	/* cell 1 (offset 8) holds 0x1122334455667701 */
	o = run_toolf("@/prismc call --server 127.0.0.1:%u --arg c=8", port);
	TOOL_EXPECT(o, 0, out,
	            "entry get: returned\n  return site  1\n  value        1122334455667701\n");
	TOOL_EXPECT(o, 0, out, "us wall clock");
	tool_out_free(&o);
	o = run_toolf("@/prismc call -s 127.0.0.1:%u -e get -a c=16 --count=3 --json", port);
	TOOL_EXPECT(o, 0, out,
	            "{\"entry\":\"get\",\"status\":0,\"return_site\":1,\"results\":{\"value\":"
	            "\"1122334455667702\"},\"returned\":true,\"latency_ns\":");
	tool_out_free(&o);
	o = run_toolf("@/prismc call -s 127.0.0.1:%u --arg cell=8", port);
	TOOL_EXPECT(o, 2, err, "no parameter 'cell'; it takes: c");
	tool_out_free(&o);
	o = run_toolf("@/prismc call -s 127.0.0.1:%u --program nope --json", port);
	TOOL_EXPECT(o, 1, out, "\"error\":");
	tool_out_free(&o);
	o = run_toolf("@/prismc show --server %s --json get", post_sock);
	TOOL_EXPECT(o, 0, out,
	            "[{\"name\":\"get\",\"entries\":[\"get\"],\"regions\":[{\"name\":\"cells\","
	            "\"size\":32,\"access\":[\"read\"]}]");
	/* three connections (the one with a bad --arg too); of the four
	 * invocations, the server may not see the last answer of a connection
	 * acknowledged when its client closes right after it */
	TOOL_EXPECT(o, 0, out, "\"conns_active\":0,\"conns_total\":3,\"invocations\":");
	{
		unsigned long inv = strtoul(strstr(o.out, "\"invocations\":") + 14, NULL, 10);

		assert_true(inv >= 2 && inv <= 4);
	}
	tool_out_free(&o);

	/* replace it from standard input (a .prism source); the log says who */
	{
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "@/prismc post - --server %s", post_sock);
		o = run_tool(cmd, cell_src);
	}
	TOOL_EXPECT(o, 0, out, "installed on");
	tool_out_free(&o);
	o = run_toolf("@/prismc show --server %s", post_sock);
	TOOL_EXPECT(o, 0, out, "connections 0 live, 0 total  invocations 0\n");
	assert_null(strstr(o.out, "pid -1"));
	tool_out_free(&o);
	/* a second program: a call must name one */
	{
		char cmd[256], *src = tool_temp_file(".prism", CELL_PRISM2);

		snprintf(cmd, sizeof(cmd), "@/prismc post %s --server %s", src, post_sock);
		o = run_tool(cmd, NULL);
		TOOL_EXPECT(o, 0, out, "installed on");
		tool_out_free(&o);
		unlink(src);
		free(src);
	}
	o = run_toolf("@/prismc call -s 127.0.0.1:%u -a c=0", port);
	TOOL_EXPECT(o, 1, err, "the client named no program and the server has 2: name one");
	assert_int_equal(tool_lines(o.err), 1);
	tool_out_free(&o);
	o = run_toolf("@/prismc call -s 127.0.0.1:%u --program=get2 -a c=24", port);
	TOOL_EXPECT(o, 0, out,
	            "entry get2: returned\n  return site  1\n  value        1122334455667703\n");
	tool_out_free(&o);
	o = run_toolf("@/prismc remove get2 -s %s", post_sock);
	TOOL_EXPECT(o, 0, out, "removed");
	tool_out_free(&o);

	o = run_toolf("@/prismc remove get --server=%s", post_sock);
	TOOL_EXPECT(o, 0, out, "program 'get' removed");
	tool_out_free(&o);
	o = run_toolf("@/prismc remove get --server %s", post_sock);
	TOOL_EXPECT(o, 1, err, "no such program on the server");
	assert_int_equal(tool_lines(o.err), 1);
	assert_null(strstr(o.err, "Unknown error"));
	tool_out_free(&o);
	o = run_toolf("@/prismc show --server %s --json", post_sock);
	TOOL_EXPECT(o, 0, out, "[]\n");
	tool_out_free(&o);
	/* a program the server cannot load is refused, with the loader's reason,
	 * in one line here and one in the server's log */
	o = run_toolf("@/prismc post lib/chains/hash_get.prism --server %s", post_sock);
	TOOL_EXPECT(o, 1, err,
	            "program 'get': region 'table' (1048576 bytes, declared at line 11 of the "
	            "object) is not registered on device sim\n");
	assert_int_equal(tool_lines(o.err), 1);
	tool_out_free(&o);

	child_kill(pid);
	log = tool_read_file(log_path);
	snprintf(expect, sizeof(expect), "program 'get' replaced by uid %u pid ",
	         (unsigned)geteuid());
	if (!strstr(log, "program 'get' installed by uid") && !strstr(log, expect))
		fail_msg("no install line in prismd's log:\n%s", log);
	assert_non_null(strstr(log, "-byte object, 1 entry)"));
	snprintf(expect, sizeof(expect), "program 'get' removed by uid %u pid ",
	         (unsigned)geteuid());
	assert_non_null(strstr(log, expect));
	assert_non_null(strstr(log, "removal from local uid"));
	assert_non_null(strstr(log, "refused: program 'get': no such program on the server"));
	assert_non_null(strstr(log, "install from local uid"));
	assert_non_null(strstr(log, " refused: program 'get': region 'table' (1048576 bytes, "
	                            "declared at line 11 of the object) is not registered"));
	assert_null(strstr(log, "prism: error:")); /* the refusal's line says it all */
	free(log);
}

/* prismd does not start (no "ready", non-zero) when a configured program
 * does not load. */
static void test_prismd_strict_programs(void **state)
{
	char path[160], *log;
	unsigned port;
	pid_t pid;
	int st = -1;

	(void)state;
	snprintf(path, sizeof(path), "%s/missing.chain", dir);
	write_config(path);
	port = start_prismd(cfg, &pid, &st);
	assert_int_equal(port, 0);
	assert_int_equal(st, 3);
	log = tool_read_file(log_path);
	/* one report, at the line that lists it: the line, a caret, then why
	 * prismd stops; nothing from the library besides */
	assert_non_null(strstr(log, "p.yaml:8:5: error: program file '"));
	assert_non_null(strstr(log, "missing.chain': No such file or directory\n"));
	assert_null(strstr(log, "prism: error:"));
	assert_int_equal(tool_lines(log), 4);
	assert_non_null(strstr(log, "\nprismd: a configured program did not load; not starting\n"));
	free(log);

	/* a program whose region nobody provides (hash_get needs 'table') */
	snprintf(path, sizeof(path), "%s/hg.chain", dir);
	{
		struct tool_out o =
		    run_toolf("@/prismc compile lib/chains/hash_get.prism -o %s", path);

		assert_int_equal(o.status, 0);
		tool_out_free(&o);
	}
	write_config(path);
	port = start_prismd(cfg, &pid, &st);
	assert_int_equal(port, 0);
	assert_int_equal(st, 3);
	log = tool_read_file(log_path);
	assert_non_null(strstr(log, "p.yaml:8:5: error: program 'get': region 'table' (1048576 "
	                            "bytes) is not registered on device sim (declare it under "
	                            "'regions')\n"));
	assert_null(strstr(log, "prism: error:"));
	assert_int_equal(tool_lines(log), 4);
	free(log);
}

static int setup(void **state)
{
	uint8_t cells[32];
	struct tool_out o;

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(cfg, sizeof(cfg), "%s/p.yaml", dir);
	snprintf(post_sock, sizeof(post_sock), "%s/post.sock", dir);
	snprintf(log_path, sizeof(log_path), "%s/prismd.log", dir);
	snprintf(cell_src, sizeof(cell_src), "%s/cell.prism", dir);
	snprintf(cell_chain, sizeof(cell_chain), "%s/cell.chain", dir);
	for (int i = 0; i < 4; i++)
		for (int b = 0; b < 8; b++)
			cells[8 * i + b] =
			    (uint8_t)((0x1122334455667700ull + (uint64_t)i) >> (56 - 8 * b));
	write_text(cell_src, CELL_PRISM, strlen(CELL_PRISM));
	{
		char path[160];

		snprintf(path, sizeof(path), "%s/cells.bin", dir);
		write_text(path, cells, sizeof(cells));
	}
	o = run_toolf("@/prismc compile %s -o %s", cell_src, cell_chain);
	if (o.status)
		return -1;
	tool_out_free(&o);
	return 0;
}

static int teardown(void **state)
{
	char cmd[160];

	(void)state;
	child_reap_all();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_manage_running_server, child_teardown),
	    cmocka_unit_test_teardown(test_prismd_strict_programs, child_teardown),
	};

	return cmocka_run_group_tests_name("cli_server", tests, setup, teardown);
}
