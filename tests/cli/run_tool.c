/* SPDX-License-Identifier: MIT */
/*
 * tests/cli/run_tool.c - run a built tool, capture status, stdout, stderr
 * (run_tool.h).
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

#ifndef TOOL_DIR
#define TOOL_DIR "build"
#endif

char *tool_read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

char *tool_temp_file(const char *suffix, const char *text)
{
	char *path = malloc(64);
	int fd;

	assert_non_null(path);
	snprintf(path, 64, "/tmp/prism-cli-XXXXXX%s", suffix);
	fd = mkstemps(path, (int)strlen(suffix));
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

struct tool_out run_tool(const char *cmd, const char *stdin_path)
{
	return run_tool_env("", cmd, stdin_path);
}

static struct tool_out run_tool_va(const char *stdin_path, const char *fmt, va_list ap)
{
	char cmd[1024];

	assert_true(vsnprintf(cmd, sizeof(cmd), fmt, ap) < (int)sizeof(cmd));
	return run_tool(cmd, stdin_path);
}

struct tool_out run_toolf(const char *fmt, ...)
{
	struct tool_out o;
	va_list ap;

	va_start(ap, fmt);
	o = run_tool_va(NULL, fmt, ap);
	va_end(ap);
	return o;
}

struct tool_out run_tool_in(const char *stdin_path, const char *fmt, ...)
{
	struct tool_out o;
	va_list ap;

	va_start(ap, fmt);
	o = run_tool_va(stdin_path, fmt, ap);
	va_end(ap);
	return o;
}

struct tool_out run_tool_env(const char *env, const char *cmd, const char *stdin_path)
{
	char out_path[] = "/tmp/prism-cli-out-XXXXXX", err_path[] = "/tmp/prism-cli-err-XXXXXX";
	struct tool_out o = {0};
	size_t len = strlen(env) + strlen(cmd) + 512;
	char *line = malloc(len);
	int fo = mkstemp(out_path), fe = mkstemp(err_path), st;

	assert_true(fo >= 0 && fe >= 0 && line);
	close(fo);
	close(fe);
	if (!strncmp(cmd, "@/", 2))
		snprintf(line, len, "%s %s/%s <%s >%s 2>%s", env, TOOL_DIR, cmd + 2,
		         stdin_path ? stdin_path : "/dev/null", out_path, err_path);
	else
		snprintf(line, len, "%s %s <%s >%s 2>%s", env, cmd,
		         stdin_path ? stdin_path : "/dev/null", out_path, err_path);
	st = system(line);
	assert_true(st != -1);
	o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	o.out = tool_read_file(out_path);
	o.err = tool_read_file(err_path);
	unlink(out_path);
	unlink(err_path);
	free(line);
	return o;
}

void tool_out_free(struct tool_out *o)
{
	free(o->out);
	free(o->err);
	o->out = o->err = NULL;
}

int tool_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}
