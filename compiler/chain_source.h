/* SPDX-License-Identifier: MIT */
/*
 * compiler/chain_source.h - "foo.prism or foo.chain" for the subcommands that
 * run, post or call programs.
 *
 * Owns: turning a path into chain-object YAML bytes: a .chain file is read
 * as is (the runtime re-verifies it); anything else is compiled (front end +
 * back end + verifier) exactly as `prismc compile` does.  "-" reads
 * standard input: a chain object when it starts like one ("prism-chain:"
 * after comments), else .prism source.
 * Must not: print anything but the compiler's diagnostics and file errors
 * (on stderr).
 */
#ifndef PRISMC_CHAIN_SOURCE_H
#define PRISMC_CHAIN_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "compiler/ir.h"

struct cli;

/*
 * Fill *@yaml (malloc'd) and *@len.  @entry: offload to compile (NULL: the
 * first); @firmware: the firmware profile a .prism is compiled for; @c
 * names the subcommand in messages.  Returns an enum prismc_exit (a missing
 * file is a usage error).
 */
int chain_source_load(const struct cli *c, const char *path, const char *entry,
                      enum ir_profile firmware, char **yaml, size_t *len);

/* Does @text start like a chain object ("prism-chain:" after comment
 * lines)?  How "-" (standard input) is told from .prism source. */
bool chain_source_is_object(const char *text);

#endif /* PRISMC_CHAIN_SOURCE_H */
