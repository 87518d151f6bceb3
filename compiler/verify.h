/* SPDX-License-Identifier: MIT */
/*
 * compiler/verify.h - compile-time verifier checks (they need the IR or the
 * source); the object-level checks are in the library
 * (runtime/chain/chain_verify.h) and run on every compile too.
 *
 * Must not: duplicate the object-level checks.
 */
#ifndef PRISMC_VERIFY_H
#define PRISMC_VERIFY_H

#include <stddef.h>

#include "compiler/ir.h"
#include "runtime/chain/chainobj.h"

/* Every patch carrying client bytes lands in a field a client may fill.
 * 0, or -1 with the reason in `err`. */
int verify_taint(const struct ir_prog *p, const struct chainobj *o, char *err, size_t errlen);

#endif /* PRISMC_VERIFY_H */
