/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd_table.c - the list of prismc subcommands.
 *
 * Owns: registration.  To add a subcommand, write compiler/cmd_<name>.c
 * defining `const struct prismc_cmd cmd_<name>` and add one line
 * X(<name>) below.
 *
 * Must not: contain any subcommand's logic.
 */
#include <string.h>

#include "compiler/cmd.h"

#define PRISMC_COMMANDS(X)                                                                         \
	X(check)                                                                                   \
	X(compile)                                                                                 \
	X(dump)                                                                                    \
	X(run)                                                                                     \
	X(post)                                                                                    \
	X(call)                                                                                    \
	X(show)                                                                                    \
	X(remove)                                                                                  \
	X(devices)

#define PRISMC_X_DECLARE(name) extern const struct prismc_cmd cmd_##name;
PRISMC_COMMANDS(PRISMC_X_DECLARE)
#undef PRISMC_X_DECLARE

const struct prismc_cmd *const prismc_cmds[] = {
#define PRISMC_X_ENTRY(name) &cmd_##name,
    PRISMC_COMMANDS(PRISMC_X_ENTRY)
#undef PRISMC_X_ENTRY
};

const size_t prismc_ncmds = sizeof(prismc_cmds) / sizeof(prismc_cmds[0]);

const struct prismc_cmd *prismc_find_cmd(const char *name)
{
	for (size_t i = 0; i < prismc_ncmds; i++)
		if (strcmp(prismc_cmds[i]->name, name) == 0)
			return prismc_cmds[i];
	return NULL;
}
