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

/*
 * Fill *@yaml (malloc'd) and *@len.  @entry: offload to compile (NULL: the
 * first).  Returns an enum prismc_exit.
 */
int chain_source_load(const char *path, const char *entry, char **yaml, size_t *len);

#endif /* PRISMC_CHAIN_SOURCE_H */
