/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd.h - prismc subcommands: the descriptor each one exports and
 * the exit codes they share (documented in docs/prismc.md).
 *
 * Owns: struct prismc_cmd and enum prismc_exit.  A subcommand lives in
 * compiler/cmd_<name>.c, defines `const struct prismc_cmd cmd_<name>`, and
 * is registered by one line in compiler/cmd_table.c.
 *
 * Must not: hold option parsing (each subcommand parses its own with
 * tools/cli/cli.h, so its --help text stays next to its options).
 */
#ifndef PRISMC_CMD_H
#define PRISMC_CMD_H

#include <stddef.h>
#include <stdio.h>

#include "compiler/ir.h"
#include "tools/cli/cli.h"

/* The exit codes every prism tool shares (tools/cli/cli.h). */
enum prismc_exit {
	PRISMC_EXIT_OK = CLI_EXIT_OK,             /* success (warnings allowed) */
	PRISMC_EXIT_ERRORS = CLI_EXIT_ERRORS,     /* program errors (syntax, type, verifier) */
	PRISMC_EXIT_USAGE = CLI_EXIT_USAGE,       /* bad command line, missing input file */
	PRISMC_EXIT_IO = CLI_EXIT_IO,             /* a file could not be read or written */
	PRISMC_EXIT_INTERNAL = CLI_EXIT_INTERNAL, /* out of memory or an internal failure */
};

struct prismc_cmd {
	const char *name;
	const char *summary; /* one line for `prismc --help` */
	/* argv[0] is the subcommand name; returns an enum prismc_exit. */
	int (*run)(int argc, char **argv);
	/* Full help for `prismc <name> --help` / `prismc help <name>`. */
	void (*help)(FILE *out);
};

/* The table (compiler/cmd_table.c), in the order `--help` lists it. */
extern const struct prismc_cmd *const prismc_cmds[];
extern const size_t prismc_ncmds;

/* Find a subcommand by name (NULL if none). */
const struct prismc_cmd *prismc_find_cmd(const char *name);

/*
 * The value of --firmware (or its older spelling --profile), the same in
 * every subcommand: "relaxed" or "strict" into *@out and 0; otherwise a
 * usage message naming the option (a cost profile such as "cx5" is
 * pointed to --cost) and -1.
 */
int prismc_firmware_arg(const struct cli *c, const char *val, enum ir_profile *out);

#endif /* PRISMC_CMD_H */
