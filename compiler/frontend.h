/* SPDX-License-Identifier: MIT */
/*
 * compiler/frontend.h - the front end as one call: read, parse, check.
 *
 * Owns: struct frontend_unit (one source file: its text, diagnostics and
 * checked AST), used by `prismc check`, `prismc compile` and tests, and
 * finding the offload a command line names in it.
 *
 * Must not: print (callers render unit->diag as text or JSON).
 */
#ifndef PRISMC_FRONTEND_H
#define PRISMC_FRONTEND_H

#include <stdbool.h>
#include <stddef.h>

#include "compiler/ast.h"
#include "compiler/diag.h"

struct frontend_opts {
	bool werror;         /* warnings count as errors */
	unsigned max_errors; /* 0: the diag default (100) */
};

struct frontend_unit {
	struct diag_ctx diag;
	char *src;                /* file text (owned) */
	struct ast_program *prog; /* NULL after an I/O error or OOM */
	int io_error;             /* errno of a failed read, else 0 */
};

enum frontend_status {
	FRONTEND_OK = 0,     /* parsed and checked without errors */
	FRONTEND_ERRORS = 1, /* errors reported in unit->diag */
	FRONTEND_IO = 3,     /* unit->io_error says why the file was unreadable */
	FRONTEND_NOMEM = 4,
};

/* Parse and check `path` ("-" = stdin).  Always call frontend_fini. */
enum frontend_status frontend_load(struct frontend_unit *u, const char *path,
                                   const struct frontend_opts *opts);
/* The same for an in-memory source (not copied: must outlive the unit). */
enum frontend_status frontend_load_buffer(struct frontend_unit *u, const char *name,
                                          const char *src, size_t len,
                                          const struct frontend_opts *opts);
void frontend_fini(struct frontend_unit *u);

/*
 * The offload that command-line option @option ("--entry") names: @name,
 * or the first the program declares when @name is NULL.  NULL when there
 * is none, with an error in @d (no source position: the name is not in
 * the file) naming the option, the offloads the program declares and the
 * closest spelling: "--entry get_paralel: no offload of that name; the
 * program declares: get, get_parallel; did you mean 'get_parallel'?".
 */
const struct ast_offload *frontend_entry(struct diag_ctx *d, const struct ast_program *prog,
                                         const char *option, const char *name);

#endif /* PRISMC_FRONTEND_H */
