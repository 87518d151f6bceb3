/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/cmd_capture.h - run one prismc subcommand in-process, as a
 * user would from the shell, and keep what it wrote.
 *
 * Owns: building the argv, redirecting file descriptors 1 and 2 to
 * temporary files around the call, and reading them back.  Used by the
 * subcommands' end-to-end suites (test_cmd_run, test_cmd_dump).
 */
#ifndef PRISM_TESTS_CMD_CAPTURE_H
#define PRISM_TESTS_CMD_CAPTURE_H

#include <stdio.h>

#include "compiler/cmd.h"

struct cmd_result {
	int rc;    /* what cmd->run returned */
	char *out; /* everything written to stdout (NUL-terminated, malloc'd) */
	char *err; /* likewise stderr */
};

/* `prismc <cmd->name> ARG...` (the arguments NULL-terminated, at most 38). */
struct cmd_result cmd_capture(const struct prismc_cmd *cmd, const char *arg, ...);
void cmd_result_free(struct cmd_result *r);
/* The whole of @f from its start (malloc'd, NUL-terminated). */
char *cmd_read_all(FILE *f);

#endif /* PRISM_TESTS_CMD_CAPTURE_H */
