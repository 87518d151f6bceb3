/* SPDX-License-Identifier: MIT */
/*
 * tests/firmware/test_prism_fw.c - firmware-config/prism-fw against a fake
 * sysfs tree and a fake register-access tool (tests/firmware/fake-mcra).
 *
 * Owns: the safety properties of prism-fw (no write without --yes, no write
 * to unsupported devices, values saved before relaxing, stock restore) and
 * its skip behaviour.  Must not: touch real hardware; it never runs the real
 * mstmcra.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct fw_env {
	char dir[64];
	char cmd_prefix[512];
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int run(const struct fw_env *e, const char *args, char *out, size_t cap)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "%s firmware-config/prism-fw %s 2>&1", e->cmd_prefix, args);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t n = fread(out, 1, cap - 1, p);
	out[n] = '\0';
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* One fake device per test: mlx5_0 at 0000:3b:00.0 with PCI id @devid. */
static int setup_env(void **state, const char *devid)
{
	struct fw_env *e = calloc(1, sizeof(*e));
	char path[256], cwd[256];
	assert_non_null(e);
	strcpy(e->dir, "/tmp/prism-fw-test-XXXXXX");
	assert_non_null(mkdtemp(e->dir));
	snprintf(path, sizeof(path), "%s/pci/0000:3b:00.0", e->dir);
	char mk[512];
	snprintf(mk, sizeof(mk), "mkdir -p %s %s/ib/mlx5_0 %s/state", path, e->dir, e->dir);
	assert_int_equal(system(mk), 0);
	snprintf(mk, sizeof(mk), "%s/device", path);
	char id[32];
	snprintf(id, sizeof(id), "%s\n", devid);
	write_file(mk, id);
	snprintf(mk, sizeof(mk), "%s/ib/mlx5_0/device", e->dir);
	assert_int_equal(symlink(path, mk), 0);
	snprintf(mk, sizeof(mk), "%s/regs", e->dir);
	write_file(mk, "");
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(e->cmd_prefix, sizeof(e->cmd_prefix),
	         "PRISM_FW_SYSFS=%s/ib PRISM_FW_STATE_DIR=%s/state "
	         "PRISM_FW_MCRA=%s/tests/firmware/fake-mcra FAKE_MCRA_REGS=%s/regs",
	         e->dir, e->dir, cwd, e->dir);
	*state = e;
	return 0;
}

static int setup_cx5(void **state)
{
	return setup_env(state, "0x1017");
}

static int setup_cx7(void **state)
{
	return setup_env(state, "0x1021");
}

static int setup_cx6dx(void **state)
{
	return setup_env(state, "0x101d");
}

static int teardown_env(void **state)
{
	struct fw_env *e = *state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", e->dir);
	assert_int_equal(system(cmd), 0);
	free(e);
	return 0;
}

static long count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	long n = 0;
	int c;
	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static void test_list_shows_model_and_support(void **state)
{
	char out[4096];
	assert_int_equal(run(*state, "list", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "mlx5_0"));
	assert_non_null(strstr(out, "0000:3b:00.0"));
	assert_non_null(strstr(out, "ConnectX-5"));
	assert_non_null(strstr(out, "relaxable=yes"));
}

static void test_relax_refuses_without_yes(void **state)
{
	struct fw_env *e = *state;
	char out[4096], log[128];
	assert_int_equal(run(e, "relax mlx5_0", out, sizeof(out)), 1);
	assert_non_null(strstr(out, "--yes"));
	snprintf(log, sizeof(log), "%s/regs.log", e->dir);
	assert_int_equal(count_lines(log), 0);
}

static void test_relax_saves_then_zeroes(void **state)
{
	struct fw_env *e = *state;
	char out[8192], path[256];
	snprintf(path, sizeof(path), "%s/regs", e->dir);
	/* Stock values in the first block, something else in the second. */
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	static const unsigned stock[6] = {0x0,        0xd03ffffc, 0xf5909280,
	                                  0x4c00267f, 0xffffffff, 0xf8563dff};
	for (int i = 0; i < 6; i++) {
		fprintf(f, "0000:3b:00.0 0x%x 0x%08x\n", 0x24908 + 4 * i, stock[i]);
		fprintf(f, "0000:3b:00.0 0x%x 0x%08x\n", 0x24928 + 4 * i, stock[i]);
	}
	fclose(f);

	assert_int_equal(run(e, "status mlx5_0", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "stock WQE checks"));

	assert_int_equal(run(e, "relax mlx5_0 --yes", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "saved current values"));
	assert_non_null(strstr(out, "WQE checks relaxed"));
	/* 12 writes, all zero. */
	snprintf(path, sizeof(path), "%s/regs.log", e->dir);
	assert_int_equal(count_lines(path), 12);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "grep -vc ' 0x00000000$' %s/regs.log | grep -qx 0", e->dir);
	assert_int_equal(system(cmd), 0);
	/* The saved file holds the stock values it found. */
	snprintf(cmd, sizeof(cmd), "grep -q '^0x2490c 0xd03ffffc$' %s/state/mlx5_0-*.saved",
	         e->dir);
	assert_int_equal(system(cmd), 0);

	/* restore with no file writes the stock values back. */
	assert_int_equal(run(e, "restore mlx5_0 --yes", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "stock WQE checks"));
	snprintf(cmd, sizeof(cmd), "grep -q '0000:3b:00.0 0x2493c 0xf8563dff' %s/regs", e->dir);
	assert_int_equal(system(cmd), 0);
}

static void test_restore_rejects_malformed_file(void **state)
{
	struct fw_env *e = *state;
	char out[4096], path[256], args[512];
	snprintf(path, sizeof(path), "%s/bad.saved", e->dir);
	write_file(path, "0x24908 0x0\nnot-an-address 7\n");
	snprintf(args, sizeof(args), "restore mlx5_0 --yes %s", path);
	assert_int_equal(run(e, args, out, sizeof(out)), 1);
	assert_non_null(strstr(out, "malformed line"));
}

static void test_unsupported_model_is_never_written(void **state)
{
	struct fw_env *e = *state;
	char out[4096], log[128];
	assert_int_equal(run(e, "relax mlx5_0 --yes", out, sizeof(out)), 1);
	assert_non_null(strstr(out, "ConnectX-7"));
	snprintf(log, sizeof(log), "%s/regs.log", e->dir);
	assert_int_equal(count_lines(log), 0);
}

/* The sources name only ConnectX-5 and ConnectX-6 for the registers. */
static void test_cx6dx_is_never_written(void **state)
{
	struct fw_env *e = *state;
	char out[4096], log[128];
	assert_int_equal(run(e, "list", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "relaxable=no"));
	assert_int_equal(run(e, "relax mlx5_0 --yes", out, sizeof(out)), 1);
	assert_non_null(strstr(out, "ConnectX-6 Dx"));
	snprintf(log, sizeof(log), "%s/regs.log", e->dir);
	assert_int_equal(count_lines(log), 0);
}

static void test_unknown_device_is_an_error(void **state)
{
	char out[4096];
	assert_int_equal(run(*state, "status mlx5_9", out, sizeof(out)), 1);
	assert_non_null(strstr(out, "no RDMA device 'mlx5_9'"));
}

static void test_help_version_and_bad_command(void **state)
{
	char out[4096];
	assert_int_equal(run(*state, "--help", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "prism-fw relax"));
	assert_int_equal(run(*state, "--version", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "prism-fw 0."));
	assert_int_equal(run(*state, "frobnicate", out, sizeof(out)), 2);
	assert_non_null(strstr(out, "unknown command 'frobnicate'"));
}

static void test_no_sysfs_skips(void **state)
{
	(void)state;
	char out[4096];
	FILE *p =
	    popen("PRISM_FW_SYSFS=/nonexistent-prism firmware-config/prism-fw list 2>&1", "r");
	assert_non_null(p);
	size_t n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	int st = pclose(p);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 77);
	assert_non_null(strstr(out, "SKIP"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_list_shows_model_and_support, setup_cx5,
	                                    teardown_env),
	    cmocka_unit_test_setup_teardown(test_relax_refuses_without_yes, setup_cx5,
	                                    teardown_env),
	    cmocka_unit_test_setup_teardown(test_relax_saves_then_zeroes, setup_cx5, teardown_env),
	    cmocka_unit_test_setup_teardown(test_restore_rejects_malformed_file, setup_cx5,
	                                    teardown_env),
	    cmocka_unit_test_setup_teardown(test_unsupported_model_is_never_written, setup_cx7,
	                                    teardown_env),
	    cmocka_unit_test_setup_teardown(test_cx6dx_is_never_written, setup_cx6dx, teardown_env),
	    cmocka_unit_test_setup_teardown(test_unknown_device_is_an_error, setup_cx5,
	                                    teardown_env),
	    cmocka_unit_test_setup_teardown(test_help_version_and_bad_command, setup_cx5,
	                                    teardown_env),
	    cmocka_unit_test(test_no_sysfs_skips),
	};
	return cmocka_run_group_tests_name("prism-fw", tests, NULL, NULL);
}
