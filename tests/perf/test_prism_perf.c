/* SPDX-License-Identifier: MIT */
/*
 * test_prism_perf.c - prism-perf end to end: a server process and client
 * runs over loopback for every workload (read, write, send, and get with the
 * compiled lib/chains/hash_get.prism), short durations, --json output whose
 * fields must parse, be ordered (t_min <= p50 <= p99 <= p99.9 <= t_max) and
 * show a rate above zero; then the usage errors (exit 2, the option named)
 * and a message-size mismatch between the sides (exit 1, said why).
 *
 * Checks what the tool reports, never how fast it is.
 */
#include <libgen.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/runtime/support/child_proc.h"

static char perf[600], prismc[600], chain[128];
static char dir[64] = "/tmp/prism-perf-test-XXXXXX";
static unsigned port;

/* Run `prism-perf ARGS 2>&1`; its output in @out, its exit status returned. */
static int run_perf(char *out, size_t cap, const char *fmt, ...)
{
	char args[512], cmd[1200];
	size_t n = 0;
	va_list ap;
	FILE *p;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", perf, args);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (n + 1 < cap && fgets(out + n, (int)(cap - n), p))
		n += strlen(out + n);
	out[n] = 0;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The number after "\"KEY\":" in @json; fails the test when absent. */
static double field(const char *json, const char *key)
{
	char pat[64];
	const char *p;
	double v;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(json, pat);
	assert_non_null(p);
	assert_int_equal(sscanf(p + strlen(pat), "%lf", &v), 1);
	return v;
}

static void check_json(const char *out, const char *workload, double bytes)
{
	char want[64];

	snprintf(want, sizeof(want), "{\"workload\":\"%s\"", workload);
	assert_non_null(strstr(out, want));
	assert_true(field(out, "ops") > 0);
	assert_true(field(out, "errors") == 0);
	assert_true(field(out, "rate_ops_per_s") > 0);
	assert_true(field(out, "bytes") == bytes);
	assert_true(field(out, "t_min_us") > 0);
	assert_true(field(out, "t_min_us") <= field(out, "p50_us"));
	assert_true(field(out, "p50_us") <= field(out, "p99_us"));
	assert_true(field(out, "p99_us") <= field(out, "p99_9_us"));
	assert_true(field(out, "p99_9_us") <= field(out, "t_max_us"));
}

static int start_server(void **state)
{
	int p[2];
	pid_t pid;
	FILE *f;
	char line[256], cmd[1400];

	(void)state;
	/* the transport is chosen by --transport in these tests, not inherited */
	unsetenv("PRISM_TRANSPORT");
	assert_non_null(mkdtemp(dir));
	snprintf(chain, sizeof(chain), "%s/hg.chain", dir);
	snprintf(cmd, sizeof(cmd), "%s compile lib/chains/hash_get.prism -o %s", prismc, chain);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(pipe(p), 0);
	pid = child_fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(p[1], 1);
		execl(perf, perf, "--port=0", "--bind", "127.0.0.1", "--chain", chain,
		      (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_int_equal(
	    sscanf(line, "prism-perf: serving read write send get:get on port %u", &port), 1);
	return 0;
}

static int stop_server(void **state)
{
	char cmd[128];

	child_reap_all();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : child_teardown(state);
}

static void test_read_write_send_latency(void **state)
{
	static const char *const ws[] = {"read", "write", "send"};
	char out[4096];

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(run_perf(out, sizeof(out),
		                          "-w %s --duration=0.3 -p %u --json 127.0.0.1", ws[i],
		                          port),
		                 0);
		check_json(out, ws[i], 64);
	}
}

static void test_bandwidth_connections_depth(void **state)
{
	char out[4096];

	(void)state;
	assert_int_equal(run_perf(out, sizeof(out),
	                          "--workload write --connections 2 --depth=8 -D 0.3 -p %u -J "
	                          "127.0.0.1",
	                          port),
	                 0);
	check_json(out, "write", 64);
	assert_true(field(out, "connections") == 2 && field(out, "depth") == 8);
	assert_true(field(out, "bw_mb_per_s") > 0);
	/* every sample is a batch of 8: ops = 8 * samples */
	assert_true(field(out, "ops") == 8 * field(out, "samples"));
}

/* --transport picks what carries the client's packets; the result names it. */
static void test_transport_choice(void **state)
{
	static const char *const kinds[] = {"tcp", "shm"};
	char out[4096], want[64];

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(run_perf(out, sizeof(out),
		                          "-w read --transport %s -D 0.2 -p %u --json 127.0.0.1",
		                          kinds[i], port),
		                 0);
		check_json(out, "read", 64);
		snprintf(want, sizeof(want), "\"transport\":\"%s\"", kinds[i]);
		assert_non_null(strstr(out, want));
	}
	assert_int_equal(run_perf(out, sizeof(out), "--transport udp -p %u 127.0.0.1", port), 2);
}

static void test_offloaded_get(void **state)
{
	char out[4096];

	(void)state;
	assert_int_equal(run_perf(out, sizeof(out),
	                          "-w get -c %s -e get -a key=0x123 -a b1=0 -a b2=16 -D 0.3 -p %u "
	                          "--json 127.0.0.1",
	                          chain, port),
	                 0);
	check_json(out, "get", 64); /* the entry's u8[64] result */
	/* the table text output has the same figures */
	assert_int_equal(run_perf(out, sizeof(out),
	                          "-w get -c %s -a key=1 -a b1=0 -a b2=0 -D 0.2 -p %u 127.0.0.1",
	                          chain, port),
	                 0);
	assert_non_null(strstr(out, "t_min[us]"));
	assert_non_null(strstr(out, "p99.9[us]"));
	/* a missing argument is a failed run that says which */
	assert_int_equal(
	    run_perf(out, sizeof(out), "-w get -c %s -a key=1 -D 0.2 -p %u 127.0.0.1", chain, port),
	    1);
	assert_non_null(strstr(out, "missing argument b1"));
}

static void test_size_mismatch(void **state)
{
	char out[4096];

	(void)state;
	assert_int_equal(run_perf(out, sizeof(out), "-w read -s 128 -D 0.2 -p %u 127.0.0.1", port),
	                 1);
	assert_non_null(strstr(out, "64-byte messages"));
}

static void test_usage(void **state)
{
	char out[4096];

	(void)state;
	assert_int_equal(run_perf(out, sizeof(out), "--bogus 127.0.0.1"), 2);
	assert_non_null(strstr(out, "unknown option '--bogus'"));
	assert_int_equal(run_perf(out, sizeof(out), "--depth=0 127.0.0.1"), 2);
	assert_non_null(strstr(out, "--depth: '0'"));
	assert_int_equal(run_perf(out, sizeof(out), "--workload=nop 127.0.0.1"), 2);
	assert_int_equal(run_perf(out, sizeof(out), "-w get 127.0.0.1"), 2);
	assert_non_null(strstr(out, "needs --chain"));
	assert_int_equal(run_perf(out, sizeof(out), "-s"), 2);
	assert_non_null(strstr(out, "'-s' needs a value"));
	assert_int_equal(run_perf(out, sizeof(out), "--help"), 0);
	assert_non_null(strstr(out, "--connections"));
	assert_int_equal(run_perf(out, sizeof(out), "--version"), 0);
	assert_non_null(strstr(out, "prism-perf "));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_read_write_send_latency),
	    cmocka_unit_test(test_bandwidth_connections_depth),
	    cmocka_unit_test(test_transport_choice),
	    cmocka_unit_test(test_offloaded_get),
	    cmocka_unit_test(test_size_mismatch),
	    cmocka_unit_test(test_usage),
	};
	char self[512], *bin;

	(void)argc;
	signal(SIGPIPE, SIG_IGN);
	/* build/tests/x -> build/prism-perf, build/prismc */
	snprintf(self, sizeof(self), "%s", argv[0]);
	bin = dirname(self);
	snprintf(perf, sizeof(perf), "%s/../prism-perf", bin);
	snprintf(prismc, sizeof(prismc), "%s/../prismc", bin);
	return cmocka_run_group_tests(tests, start_server, stop_server);
}
