/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd.h - prismc subcommands: the descriptor each one exports and
 * the exit codes they share (documented in docs/prismc.md).
 *
 * Owns: struct prismc_cmd and enum prismc_exit.  A subcommand lives in
 * compiler/cmd_<name>.c, defines `const struct prismc_cmd cmd_<name>`, and
 * is registered by one line in compiler/cmd_table.c.
 *
 * Must not: hold option parsing shared between subcommands (each parses
 * its own, so --help texts stay next to their code).
 */
#ifndef PRISMC_CMD_H
#define PRISMC_CMD_H

#include <stddef.h>
#include <stdio.h>

#include "compiler/ir.h"

enum prismc_exit {
	PRISMC_EXIT_OK = 0,       /* success: no errors (warnings allowed) */
	PRISMC_EXIT_ERRORS = 1,   /* the program has errors (syntax, type, verifier) */
	PRISMC_EXIT_USAGE = 2,    /* bad command line */
	PRISMC_EXIT_IO = 3,       /* a file could not be read or written */
	PRISMC_EXIT_INTERNAL = 4, /* out of memory or an internal failure */
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

/* True if argv holds -h/--help before any "--"; subcommands use it to
 * answer --help before parsing anything else. */
int prismc_wants_help(int argc, char **argv);

/*
 * The value of --firmware (or its older spelling --profile), the same in
 * every subcommand: "relaxed" or "strict" into *@out and 0; otherwise a
 * message naming @cmd and @opt on stderr (a cost profile such as "cx5"
 * is pointed to --cost) and -1.
 */
int prismc_firmware_arg(const char *cmd, const char *opt, const char *val, enum ir_profile *out);

#endif /* PRISMC_CMD_H */
