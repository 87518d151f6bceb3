/* SPDX-License-Identifier: MIT */
/*
 * compiler/prismc.c - main() of prismc: global options and dispatch.
 *
 *     prismc [--version] [--help] <command> [<args>]
 *     prismc help [<command>]
 *
 * Owns: the global options and finding the subcommand in the table
 * (compiler/cmd_table.c).  Exit codes are enum prismc_exit (cmd.h).
 *
 * Must not: know any subcommand's options.
 */
#include <stdio.h>
#include <string.h>

#include "compiler/cmd.h"
#include "compiler/spell.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: prismc [-V|--version] [-h|--help] <command> [<args>]\n"
	             "       prismc help <command>\n\n"
	             "Compile .prism offloads into chains of RDMA work requests.\n\n"
	             "commands:\n");
	for (size_t i = 0; i < prismc_ncmds; i++)
		fprintf(out, "  %-10s %s\n", prismc_cmds[i]->name, prismc_cmds[i]->summary);
	fprintf(out,
	        "\nexit status: 0 ok, 1 errors in the program (or a refused request), 2 usage\n"
	        "error (or no such input file), 3 I/O error, 4 internal error.\n"
	        "Run 'prismc <command> --help' for a command's options.\n");
}

static int unknown_command(const char *name)
{
	struct spell s;
	char hint[SPELL_HINT_SIZE];

	spell_init(&s, name);
	for (size_t i = 0; i < prismc_ncmds; i++)
		spell_consider(&s, prismc_cmds[i]->name);
	fprintf(stderr, "prismc: '%s' is not a command%s (see 'prismc --help')\n", name,
	        spell_hint(&s, hint, sizeof(hint)));
	return PRISMC_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const struct prismc_cmd *cmd;

	if (argc < 2) {
		usage(stderr);
		return PRISMC_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return PRISMC_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("prismc %s\n", cli_version());
		return PRISMC_EXIT_OK;
	}
	if (strcmp(argv[1], "help") == 0) {
		if (argc < 3) {
			usage(stdout);
			return PRISMC_EXIT_OK;
		}
		cmd = prismc_find_cmd(argv[2]);
		if (!cmd)
			return unknown_command(argv[2]);
		cmd->help(stdout);
		return PRISMC_EXIT_OK;
	}
	if (argv[1][0] == '-') {
		fprintf(stderr, "prismc: unknown option '%.*s'\nTry 'prismc --help'.\n",
		        (int)strcspn(argv[1], "="), argv[1]);
		return PRISMC_EXIT_USAGE;
	}
	cmd = prismc_find_cmd(argv[1]);
	if (!cmd)
		return unknown_command(argv[1]);
	return cmd->run(argc - 1, argv + 1);
}
