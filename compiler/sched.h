/* SPDX-License-Identifier: MIT */
/*
 * compiler/sched.h - back-end passes after lowering: barrier coalescing
 * (sched_barrier.c), layout into rings (layout.c) and emission of the chain
 * object (emit.c).
 *
 * Must not: see the AST.
 */
#ifndef PRISMC_SCHED_H
#define PRISMC_SCHED_H

#include "compiler/ir.h"
#include "runtime/chain/chainobj.h"

/* Insert WAIT / SEND_EN barriers, signal and fence bits. 0 or -1 (ENOMEM). */
int sched_barriers(struct ir_prog *p);

/*
 * Give every node its size (ds, BBs) and slot, every queue its per-invocation
 * advance, CQE count and ring size, every signaled node its completion count.
 * 0, or -1 with a message in `err` (a node that does not encode).
 */
int layout_program(struct ir_prog *p, char *err, size_t errlen);

/* Build the chain object (templates through the codec, relocations, patch
 * sites, entry point).  NULL on failure with a message in `err`. */
struct chainobj *emit_chainobj(const struct ir_prog *p, const char *entry, char *err,
                               size_t errlen);

/* Fill the codec's decoded form of node `n` with placeholder values for
 * symbolic fields (used for sizes and by emit). */
void emit_node_wqe(const struct ir_prog *p, const struct ir_node *n, struct prism_wqe *w);

#endif /* PRISMC_SCHED_H */
