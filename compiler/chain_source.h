/* SPDX-License-Identifier: MIT */
/*
 * compiler/chain_source.h - "foo.prism or foo.chain" for the subcommands that
 * run or post programs (run, post).
 *
 * Owns: turning a path into chain-object YAML bytes: a .chain file is read
 * as is (the runtime re-verifies it); anything else is compiled (front end +
 * back end + verifier) exactly as `prismc compile` does.
 * Must not: print anything but the compiler's diagnostics (on stderr).
 */
#ifndef PRISMC_CHAIN_SOURCE_H
#define PRISMC_CHAIN_SOURCE_H

#include <stddef.h>

#include "compiler/ir.h"

/*
 * Fill *@yaml (malloc'd) and *@len.  @entry: offload to compile (NULL: the
 * first); @firmware: the firmware profile a .prism is compiled for.
 * Returns an enum prismc_exit.
 */
int chain_source_load(const char *path, const char *entry, enum ir_profile firmware, char **yaml,
                      size_t *len);

#endif /* PRISMC_CHAIN_SOURCE_H */
