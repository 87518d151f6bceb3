/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd_opts.c - option values every subcommand spells the same way.
 *
 * Owns: prismc_firmware_arg() (--firmware, and its older spelling
 * --profile).  Must not: parse a command line (each subcommand does, with
 * tools/cli/cli.h, so its --help text stays next to its code).
 */
#include <stdio.h>
#include <string.h>

#include "compiler/cmd.h"

int prismc_firmware_arg(const struct cli *c, const char *val, enum ir_profile *out)
{
	if (!strcmp(val, "relaxed") || !strcmp(val, "strict")) {
		*out = val[0] == 'r' ? IR_PROFILE_RELAXED : IR_PROFILE_STRICT;
		return 0;
	}
	if (!strcmp(val, "cx5") || strchr(val, '.'))
		cli_usage(c,
		          "%s %s: '%s' is a cost profile (NIC timing model); the firmware "
		          "profile is relaxed or strict, the cost profile is given with --cost",
		          cli_opt(c), val, val);
	else
		cli_usage(c, "%s: unknown firmware profile '%s' (relaxed or strict)", cli_opt(c),
		          val);
	return -1;
}
