/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd_opts.c - option values every subcommand spells the same way.
 *
 * Owns: prismc_wants_help() and prismc_firmware_arg() (--firmware, and its
 * older spelling --profile).  Must not: parse a command line (each subcommand does, so its
 * --help text stays next to its code).
 */
#include <stdio.h>
#include <string.h>

#include "compiler/cmd.h"

int prismc_firmware_arg(const char *cmd, const char *opt, const char *val, enum ir_profile *out)
{
	if (!strcmp(val, "relaxed") || !strcmp(val, "strict")) {
		*out = val[0] == 'r' ? IR_PROFILE_RELAXED : IR_PROFILE_STRICT;
		return 0;
	}
	if (!strcmp(val, "cx5") || strchr(val, '.'))
		fprintf(stderr,
		        "prismc %s: %s %s: '%s' is a cost profile (NIC timing model); the firmware "
		        "profile is relaxed or strict, the cost profile is given with --cost\n",
		        cmd, opt, val, val);
	else
		fprintf(stderr,
		        "prismc %s: %s: unknown firmware profile '%s' (relaxed or strict)\n", cmd,
		        opt, val);
	return -1;
}

int prismc_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return 0;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return 1;
	}
	return 0;
}
