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
 * first), or for a chain object the entry it must have
 * (chain_source_entry); @firmware: the firmware profile a .prism is
 * compiled for; @c names the subcommand in messages.  Returns an enum
 * prismc_exit (a missing file, or an --entry that names nothing, is a usage
 * error).
 */
int chain_source_load(const struct cli *c, const char *path, const char *entry,
                      enum ir_profile firmware, char **yaml, size_t *len);

struct chainobj;

/*
 * The entry of chain object @o (read from @path) that --entry @entry names
 * (NULL: the first), or -1 after a usage error on stderr naming the option,
 * the entries the object has and the closest spelling: "prismc run: --entry
 * gt: get.chain has no entry of that name; it has: get; did you mean 'get'?".
 */
int chain_source_entry(const struct cli *c, const char *path, const struct chainobj *o,
                       const char *entry);

/* Does @text start like a chain object ("prism-chain:" after comment
 * lines)?  How "-" (standard input) is told from .prism source. */
bool chain_source_is_object(const char *text);

#endif /* PRISMC_CHAIN_SOURCE_H */
