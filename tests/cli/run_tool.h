/* SPDX-License-Identifier: MIT */
/*
 * tests/cli/run_tool.h - run a tool of this build tree through the shell and
 * capture its exit status, standard output and standard error apart.
 *
 * Must not: be used from more than one thread (one set of temp files).
 */
#ifndef PRISM_TESTS_RUN_TOOL_H
#define PRISM_TESTS_RUN_TOOL_H

/* The tool's output and status; free with tool_out_free. */
struct tool_out {
	int status; /* exit status, or -1 when killed by a signal */
	char *out;  /* standard output */
	char *err;  /* standard error */
};

/*
 * Run `@cmd` (a shell command line; "@/" at its start names this build
 * tree's directory, TOOL_DIR) with standard input from @stdin_path
 * (NULL: /dev/null).  Asserts the shell ran.
 */
struct tool_out run_tool(const char *cmd, const char *stdin_path);
/* The same with @env ("NAME=VALUE ...") set for the command. */
struct tool_out run_tool_env(const char *env, const char *cmd, const char *stdin_path);
/* run_tool with the command line formatted from @fmt (up to 1 KiB),
 * standard input from /dev/null or from @stdin_path. */
struct tool_out run_toolf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
struct tool_out run_tool_in(const char *stdin_path, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void tool_out_free(struct tool_out *o);
/* A temporary file holding @text; the path is malloc'd. */
char *tool_temp_file(const char *suffix, const char *text);
/* The whole of file @path, NUL-terminated (malloc'd; asserts it exists). */
char *tool_read_file(const char *path);
/* How many lines @s holds. */
int tool_lines(const char *s);

/* Fail the test unless @o exited with @code and its @stream (out or err)
 * holds @text; the message shows both streams. */
#define TOOL_EXPECT(o, code, stream, text)                                                         \
	do {                                                                                       \
		if ((o).status != (code) || !strstr((o).stream, (text)))                           \
			fail_msg("%s:%d: status %d (want %d), " #stream " lacks \"%s\":\n"         \
			         "stdout: %s\nstderr: %s",                                         \
			         __FILE__, __LINE__, (o).status, (code), (text), (o).out,          \
			         (o).err);                                                         \
	} while (0)

#endif
