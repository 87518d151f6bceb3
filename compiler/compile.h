/* SPDX-License-Identifier: MIT */
/*
 * compiler/compile.h - the back-end pipeline as one call (compile.c):
 * lower -> sched_barriers -> layout -> emit -> verify.
 *
 * Must not: print except to `ir_out` when emit_ir is set; diagnostics go to
 * the diag context.
 */
#ifndef PRISMC_COMPILE_H
#define PRISMC_COMPILE_H

#include <stdbool.h>
#include <stdio.h>

#include "compiler/ast.h"
#include "compiler/diag.h"
#include "compiler/ir.h"
#include "runtime/chain/chainobj.h"

struct compile_opts {
	enum ir_profile profile;
	const char *entry; /* NULL: first offload */
	bool emit_ir;
	FILE *ir_out;
	bool no_request_gate; /* leave out the request gate (sched_barrier.c) */
};

/* Returns an enum prismc_exit value; *out owns the object on success. */
int compile_program(struct diag_ctx *d, const struct ast_program *prog,
                    const struct compile_opts *opts, struct chainobj **out);

/* The same from the IR on (tests build IR by hand). */
int compile_ir(struct diag_ctx *d, struct ir_prog *p, const char *entry, struct chainobj **out);

#endif /* PRISMC_COMPILE_H */
