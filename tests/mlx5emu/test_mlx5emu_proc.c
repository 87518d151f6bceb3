/* SPDX-License-Identifier: MIT */
/*
 * test_mlx5emu_proc.c - prism's programs as processes on "mlx5 over the
 * emulator": each child runs with PRISM_MLX5_GLUE naming
 * libprism-mlx5emu.so (and PRISM_MLX5EMU its options), so its mlx5 backend
 * talks to an emulated ConnectX inside that process.
 *
 *   prismc devices   lists the emulated devices with what QUERY_HCA_CAP and
 *                    the firmware probe found; an object that refuses to
 *                    answer leaves no RDMA device, and the error says why;
 *   prism-demo       `--device mlx5_0`: the demo's gets through the mlx5
 *                    backend give the same answers as on the software NIC;
 *   prismc run       `--device mlx5_0`: the same return site and value as
 *                    on the software NIC;
 *   prismd           `device: mlx5_0` loads its configured program and
 *                    takes an install on its post socket; on a device
 *                    without relaxed firmware and host-endian atomics it
 *                    refuses the program, naming what is missing, and does
 *                    not start.
 *
 * Emulated NICs of two processes do not reach each other, so no client in
 * this process talks to prismd's connections (docs/backends.md).
 */
#include <libgen.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <prism/prism.h>

#include "chain/chainobj.h"
#include "tests/runtime/support/child_proc.h"
#include "tests/runtime/support/hashget_chain.h"

#define TABLE_SIZE (64u * (HG_BUCKET_BYTES + HG_VALUE_BYTES) + 4096u)

static char bin[512], emu_so[600], tmp[64], cfg_path[128], sock_path[128], post_path[128],
    chain_path[128], demo_chain[128];

/* In a child: the emulator for this process, with @opts. */
static void child_env(const char *opts)
{
	setenv("PRISM_MLX5_GLUE", emu_so, 1);
	setenv("PRISM_MLX5EMU", opts, 1);
}

/*
 * Run @argv with the emulator (@opts), its stdout and stderr into @out
 * (NUL-terminated, truncated to @cap); returns its exit status, -1 if it
 * did not exit.
 */
static int run(const char *opts, char *const argv[], char *out, size_t cap)
{
	int p[2], st;
	size_t n = 0;
	ssize_t got;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = child_fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		child_env(opts);
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while ((got = read(p[0], out + n, cap - 1 - n)) > 0 && n + (size_t)got < cap - 1)
		n += (size_t)got;
	if (got > 0)
		n += (size_t)got;
	out[n] = 0;
	close(p[0]);
	st = child_wait(pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_prismc_devices(void **state)
{
	char prismc[600], out[8192];
	char *argv[] = {prismc, "devices", NULL};

	(void)state;
	snprintf(prismc, sizeof(prismc), "%s/prismc", bin);
	assert_int_equal(run("relaxed,devices=2", argv, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "device sim:"));
	assert_non_null(strstr(out, "device mlx5_0: mlx5 NIC"));
	assert_non_null(strstr(out, "device mlx5_1: mlx5 NIC"));
	assert_non_null(strstr(out, "firmware relaxed (probed: a NOP with a wrong WQE index "
	                            "completed)"));
	/* what QUERY_HCA_CAP answers is what is listed */
	assert_int_equal(run("no-cd,no-wait-on-data", argv, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "device mlx5_0: mlx5 NIC"));
	assert_non_null(strstr(out, "cross-channel no, wait-on-data no"));
	assert_null(strstr(out, "mlx5_1"));
}

/* PRISM_MLX5_GLUE naming an object that cannot answer: no RDMA device at
 * all (never the real rdma-core instead), and the error says why. */
static void test_unusable_interposer(void **state)
{
	char prismc[600], out[8192];
	char *devices[] = {prismc, "devices", NULL};
	char *argv[] = {prismc,    "run",   "lib/chains/hash_get.prism",
	                "--entry", "get",   "--arg",
	                "key=1",   "--arg", "b1=0",
	                "--arg",   "b2=16", "--device",
	                "mlx5_0",  NULL};

	(void)state;
	snprintf(prismc, sizeof(prismc), "%s/prismc", bin);
	/* an option the emulator does not know refuses its table */
	assert_int_equal(run("bogus", devices, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "device sim:"));
	assert_null(strstr(out, "mlx5_0"));
	assert_int_not_equal(run("bogus", argv, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "unknown option 'bogus'"));
	assert_non_null(strstr(out, "its prism_mlx5_glue_interposer refused"));
	assert_non_null(strstr(out, "(no RDMA device used)"));
}

/* The demo's answers through the mlx5 backend are the software NIC's. */
static void test_demo_on_emulated_device(void **state)
{
	char prismc[600], demo[600], out[8192];
	char *compile[] = {prismc,     "compile", "lib/chains/hash_get.prism",
	                   "--entry",  "get",     "-o",
	                   demo_chain, NULL};
	char *argv[] = {demo, "--device", "mlx5_0", demo_chain, NULL};

	(void)state;
	snprintf(prismc, sizeof(prismc), "%s/prismc", bin);
	snprintf(demo, sizeof(demo), "%s/prism-demo", bin);
	assert_int_equal(run("", compile, out, sizeof(out)), 0);
	if (run("relaxed", argv, out, sizeof(out)) != 0)
		fail_msg("prism-demo --device mlx5_0 failed:\n%s", out);
	/* the six gets the software NIC's demo prints (same table, same seed) */
	assert_non_null(strstr(out, "get(0xd4ecdf) -> 5b5e728757c5bffb... (bucket 1)"));
	assert_non_null(strstr(out, "get(0x5d5845) -> edcbdfae3e923077... (bucket 1)"));
	assert_non_null(strstr(out, "get(0x123457) -> miss"));
	assert_non_null(strstr(out, "10000 gets checked against the table: 0 wrong (9738 hits, "
	                            "262 misses)"));
}

/* `prismc run --device mlx5_0` answers what it answers on the software NIC. */
static void test_prismc_run_on_emulated_device(void **state)
{
	char prismc[600], out[8192], sim[8192];
	char *argv[] = {prismc,
	                "run",
	                "lib/chains/hash_get.prism",
	                "--entry",
	                "get",
	                "--arg",
	                "key=0x42",
	                "--arg",
	                "b1=32",
	                "--arg",
	                "b2=64",
	                "--set",
	                "table+64=be24:0x42",
	                "--set",
	                "table+72=be64:&values+256",
	                "--set",
	                "values+256=be64:0x1122334455667788",
	                "--device",
	                "mlx5_0",
	                NULL};
	const size_t n_args = sizeof(argv) / sizeof(argv[0]);
	char *ret, *val;

	(void)state;
	snprintf(prismc, sizeof(prismc), "%s/prismc", bin);
	if (run("relaxed", argv, out, sizeof(out)) != 0)
		fail_msg("prismc run --device mlx5_0 failed:\n%s", out);
	argv[n_args - 3] = NULL; /* the same without --device: the software NIC */
	assert_int_equal(run("relaxed", argv, sim, sizeof(sim)), 0);
	ret = strstr(out, "return site  2");
	val = strstr(out, "value        1122334455667788");
	assert_non_null(ret);
	assert_non_null(val);
	assert_non_null(strstr(sim, "return site  2"));
	assert_non_null(strstr(sim, "value        1122334455667788"));
}

static void write_config(void)
{
	FILE *f = fopen(cfg_path, "w");

	assert_non_null(f);
	fprintf(f,
	        "device: mlx5_0\nfirmware: relaxed\nlisten: 127.0.0.1:0\ncontrol: %s\n"
	        "allow-post: true\npost-socket: %s\n"
	        "regions:\n  - {name: table, size: %u, access: [read]}\nprograms:\n  - %s\n",
	        sock_path, post_path, TABLE_SIZE, chain_path);
	fclose(f);
}

/* Start prismd on the emulated device (@opts); its pid once ready, or -1
 * with its output in @out when it exited instead. */
static pid_t start_prismd(const char *opts, char *out, size_t cap)
{
	char prismd[600], line[512];
	size_t n = 0;
	int p[2];
	pid_t pid;
	FILE *f;

	snprintf(prismd, sizeof(prismd), "%s/prismd", bin);
	assert_int_equal(pipe(p), 0);
	pid = child_fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		child_env(opts);
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		execl(prismd, prismd, "--config", cfg_path, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	out[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "prismd: ready", 13)) {
			fclose(f);
			return pid;
		}
		n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s", line);
		if (n >= cap)
			n = cap - 1;
	}
	fclose(f);
	child_wait(pid);
	return -1;
}

static void test_prismd_on_emulated_device(void **state)
{
	char out[8192], *yaml;
	struct chainobj *o = hg_build(TABLE_SIZE);
	size_t len;
	pid_t d;

	(void)state;
	write_config();
	d = start_prismd("relaxed", out, sizeof(out));
	if (d < 0)
		fail_msg("prismd on mlx5_0 did not start:\n%s", out);
	/* an install (a replacement of the configured program) on its socket */
	assert_non_null(o);
	assert_int_equal(chainobj_write_mem(o, 0, &yaml, &len, NULL), 0);
	chainobj_free(o);
	PRISM_OPTS(prism_post_opts, po, .timeout_ms = 20000);
	assert_int_equal(prism_post(post_path, yaml, len, &po), 0);
	child_kill(d);
	free(yaml);
	/* stock firmware, big-endian 8-byte atomics: the configured program is
	 * refused, naming what lacks, and prismd does not start */
	assert_int_equal(start_prismd("be-atomics", out, sizeof(out)), -1);
	if (!strstr(out, "device mlx5_0 lacks") || !strstr(out, "relaxed firmware (probed") ||
	    !strstr(out, "host-endian 8-byte atomics"))
		fail_msg("prismd's refusal does not name what is missing:\n%s", out);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_prismc_devices, child_teardown),
	    cmocka_unit_test_teardown(test_unusable_interposer, child_teardown),
	    cmocka_unit_test_teardown(test_demo_on_emulated_device, child_teardown),
	    cmocka_unit_test_teardown(test_prismc_run_on_emulated_device, child_teardown),
	    cmocka_unit_test_teardown(test_prismd_on_emulated_device, child_teardown),
	};
	struct chainobj *o;
	char self[512], cmd[128];
	char *yaml;
	size_t len;
	FILE *f;
	int rc;

	(void)argc;
	snprintf(self, sizeof(self), "%s", argv[0]);
	snprintf(bin, sizeof(bin), "%s/..", dirname(self));
	snprintf(emu_so, sizeof(emu_so), "%s/libprism-mlx5emu.so", bin);
	snprintf(tmp, sizeof(tmp), "/tmp/prism-emuproc-XXXXXX");
	if (!mkdtemp(tmp))
		return 1;
	snprintf(cfg_path, sizeof(cfg_path), "%s/server.yaml", tmp);
	snprintf(sock_path, sizeof(sock_path), "%s/ctl.sock", tmp);
	snprintf(post_path, sizeof(post_path), "%s/post.sock", tmp);
	snprintf(chain_path, sizeof(chain_path), "%s/hg.chain", tmp);
	snprintf(demo_chain, sizeof(demo_chain), "%s/hash_get.chain", tmp);
	o = hg_build(TABLE_SIZE);
	if (!o || chainobj_write_mem(o, 0, &yaml, &len, NULL))
		return 1;
	chainobj_free(o);
	f = fopen(chain_path, "wb");
	if (!f || fwrite(yaml, 1, len, f) != len)
		return 1;
	fclose(f);
	free(yaml);
	signal(SIGPIPE, SIG_IGN);
	rc = cmocka_run_group_tests_name("mlx5emu_proc", tests, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	if (system(cmd))
		rc = rc ? rc : 1;
	return rc;
}
