/* SPDX-License-Identifier: MIT */
/*
 * compiler/check.h - semantic checker of the front end.
 *
 * Owns: name resolution, types (width, byte order), constant folding,
 * struct layout, region use (read-only vs writable, which region each
 * pointer and access belongs to), taint from client parameters, loop
 * bounds and `break` placement.  Annotates the AST in place (see ast.h).
 *
 * Must not: lower, or know about WQEs.
 */
#ifndef PRISMC_CHECK_H
#define PRISMC_CHECK_H

#include "compiler/ast.h"
#include "compiler/diag.h"

/* Check and annotate `prog`.  Returns the number of errors reported to
 * `d` (0: prog->checked is set and every annotation in ast.h is valid). */
unsigned check_program(struct diag_ctx *d, struct ast_program *prog);

#endif /* PRISMC_CHECK_H */
