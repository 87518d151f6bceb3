/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/cmd_capture.c - run one prismc subcommand and capture its
 * output (cmd_capture.h).
 */
#include "tests/compiler/cmd_capture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define CAPTURE_MAX_ARGS 40

char *cmd_read_all(FILE *f)
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

struct cmd_result cmd_capture(const struct prismc_cmd *cmd, const char *arg, ...)
{
	char *argv[CAPTURE_MAX_ARGS] = {(char *)cmd->name};
	int argc = 1, saved_out, saved_err;
	FILE *out = tmpfile(), *err = tmpfile();
	struct cmd_result r;
	va_list ap;

	assert_non_null(out);
	assert_non_null(err);
	va_start(ap, arg);
	for (const char *a = arg; a; a = va_arg(ap, const char *)) {
		assert_true(argc < CAPTURE_MAX_ARGS - 1);
		argv[argc++] = strdup(a); /* getopt may permute; the callers' strings stay */
	}
	va_end(ap);
	fflush(stdout);
	fflush(stderr);
	saved_out = dup(1);
	saved_err = dup(2);
	dup2(fileno(out), 1);
	dup2(fileno(err), 2);
	r.rc = cmd->run(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	r.out = cmd_read_all(out);
	r.err = cmd_read_all(err);
	fclose(out);
	fclose(err);
	for (int i = 1; i < argc; i++)
		free(argv[i]);
	return r;
}

void cmd_result_free(struct cmd_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}
