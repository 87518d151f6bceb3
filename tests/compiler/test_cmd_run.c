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

#include "compiler/cmd.h"
#include "compiler/run_image.h"

extern const struct prismc_cmd cmd_run;

struct run_result {
	int rc;
	char *out, *err;
};

static char *read_all(FILE *f)
{
	long n;
	char *buf;

	fflush(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	assert_true(n >= 0);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	rewind(f);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	return buf;
}

/* `prismc run ARGS...` (NULL-terminated), capturing fds 1 and 2. */
static struct run_result run(const char *arg, ...)
{
	char *argv[40] = {"run"};
	int argc = 1, saved_out, saved_err;
	FILE *out = tmpfile(), *err = tmpfile();
	struct run_result r;
	va_list ap;

	assert_non_null(out);
	assert_non_null(err);
	va_start(ap, arg);
	for (const char *a = arg; a && argc < 39; a = va_arg(ap, const char *))
		argv[argc++] = strdup(a);
	va_end(ap);
	fflush(stdout);
	fflush(stderr);
	saved_out = dup(1);
	saved_err = dup(2);
	dup2(fileno(out), 1);
	dup2(fileno(err), 2);
	r.rc = cmd_run.run(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	r.out = read_all(out);
	r.err = read_all(err);
	fclose(out);
	fclose(err);
	for (int i = 1; i < argc; i++)
		free(argv[i]);
	return r;
}

static void release(struct run_result *r)
{
	free(r->out);
	free(r->err);
}

/* Everything before the last line (latency / reference). */
static char *without_last_line(const char *s)
{
	char *c = strdup(s);
	char *nl;

	assert_non_null(c);
	nl = strrchr(c, '\n');
	if (nl) {
		*nl = 0;
		nl = strrchr(c, '\n');
		if (nl)
			nl[1] = 0;
	}
	return c;
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
		struct run_result nic = run(HG, HG_IMAGE, "--firmware", firmware[f], NULL);
		struct run_result ref = run(HG, HG_IMAGE, "--reference", NULL);

		if (nic.rc)
			fprintf(stderr, "%s", nic.err);
		assert_int_equal(nic.rc, PRISMC_EXIT_OK);
		assert_int_equal(ref.rc, PRISMC_EXIT_OK);
		assert_non_null(strstr(nic.out, "  return site  2\n"));
		assert_non_null(
		    strstr(nic.out, "  value        00112233445566778899aabbccddeeff00"));
		assert_non_null(strstr(nic.out, "latency"));
		assert_non_null(strstr(ref.out, "computed by the reference interpreter"));
		char *a = without_last_line(nic.out), *b = without_last_line(ref.out);

		assert_string_equal(a, b);
		free(a);
		free(b);
		release(&nic);
		release(&ref);
	}
	/* the key nowhere: no return, on both */
	struct run_result nic = run(HG, "--arg", "key=7", "--arg", "b1=0", "--arg", "b2=16", NULL);
	struct run_result ref =
	    run(HG, "--arg", "key=7", "--arg", "b1=0", "--arg", "b2=16", "--reference", NULL);

	assert_int_equal(nic.rc, PRISMC_EXIT_OK);
	assert_int_equal(ref.rc, PRISMC_EXIT_OK);
	assert_non_null(strstr(nic.out, "finished without a return"));
	assert_non_null(strstr(ref.out, "finished without a return"));
	release(&nic);
	release(&ref);
}

static void test_reference_json_and_fault(void **state)
{
	(void)state;
	struct run_result r =
	    run(HG, HG_IMAGE, "--reference", "--json", "--entry", "get_parallel", NULL);

	assert_int_equal(r.rc, PRISMC_EXIT_OK);
	assert_non_null(
	    strstr(r.out, "{\"entry\":\"get_parallel\",\"status\":0,\"return_site\":2,"));
	assert_non_null(strstr(r.out, "\"reference\":true}"));
	release(&r);
	/* the bucket's pointer left at zero: outside region values */
	r = run(HG, "--arg", "key=0x42", "--arg", "b1=32", "--arg", "b2=64", "--set",
	        "table+64=be24:0x42", "--reference", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_ERRORS);
	assert_non_null(strstr(r.err, "invocation failed (reference)"));
	assert_non_null(strstr(r.err, "outside region 'values'"));
	release(&r);
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
	struct run_result r = run(path, "--reference", "--arg", "p=0", "--arg", "x=3", "--set",
	                          "m+0=le64:0x5555555555555556", "--save", arg, NULL);

	assert_int_equal(r.rc, PRISMC_EXIT_OK);
	release(&r);
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
	struct run_result r = run(HG, "--profile", "cx5", NULL);

	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	assert_non_null(strstr(r.err, "'cx5' is a cost profile"));
	assert_non_null(strstr(r.err, "--cost"));
	release(&r);
	r = run(HG, "--firmware", "fast", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	assert_non_null(strstr(r.err, "unknown firmware profile 'fast'"));
	release(&r);
	r = run(HG, HG_IMAGE, "--profile", "strict", "--cost", "cx5", "--json", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_OK);
	assert_non_null(strstr(r.out, "\"profile\":\"cx5\""));
	release(&r);
	r = run("x.chain", "--reference", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
	assert_non_null(strstr(r.err, "give the .prism file"));
	release(&r);
}

static void test_device_option(void **state)
{
	(void)state;
	struct run_result r = run(HG, HG_IMAGE, "--device", "sim", NULL);

	assert_int_equal(r.rc, PRISMC_EXIT_OK);
	assert_non_null(strstr(r.out, "00112233445566778899aabbccddeeff"));
	release(&r);
	r = run(HG, HG_IMAGE, "--device", "mlx5_99", NULL);
	assert_int_equal(r.rc, PRISMC_EXIT_ERRORS);
	assert_non_null(strstr(r.err, "'mlx5_99'"));
	release(&r);
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
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct run_result r = run(HG, "--reference", "--set", bad[i][0], NULL);

		assert_int_equal(r.rc, PRISMC_EXIT_USAGE);
		if (!strstr(r.err, bad[i][1]))
			fprintf(stderr, "--set %s: %s", bad[i][0], r.err);
		assert_non_null(strstr(r.err, bad[i][1]));
		release(&r);
	}
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
	FILE *f;

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
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs("# images\n  b+4=u8:7   # a byte\n\nb+5=be16:0x0102\n", f);
	fclose(f);
	assert_int_equal(run_image_set_file(&env, path, err, sizeof(err)), 0);
	assert_int_equal(b[4], 7);
	assert_int_equal(b[5], 1);
	assert_int_equal(b[6], 2);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("b+0=u8:1\nb+99=u8:1\n", f);
	fclose(f);
	assert_int_equal(run_image_set_file(&env, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":2: "));
	assert_int_equal(run_image_save(&env, "b", path, err, sizeof(err)), 0);
	memset(b, 0, sizeof(b));
	assert_int_equal(run_image_load(&env, "b", path, err, sizeof(err)), 0);
	assert_int_equal(b[0], 1);
	assert_int_equal(run_image_load(&env, "a", path, err, sizeof(err)), 0);
	assert_int_equal(run_image_load(&env, "nowhere", path, err, sizeof(err)), -1);
	unlink(path);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
