/* SPDX-License-Identifier: MIT */
/*
 * compiler/parse.h - entry points of the front end's parser.
 *
 * Owns: turning .prism source text into an AST (compiler/ast.h), with
 * syntax errors reported to a diag context.  The grammar itself is in
 * compiler/parser.y (bison, pure) and compiler/lexer.l (flex, reentrant).
 *
 * Must not: do semantic analysis (names, types, regions, taint: that is
 * compiler/check.c).
 */
#ifndef PRISMC_PARSE_H
#define PRISMC_PARSE_H

#include <stddef.h>

#include "compiler/ast.h"
#include "compiler/diag.h"

/*
 * Parse `len` bytes of `src` (need not be NUL-terminated; may contain NUL
 * bytes, which are reported as errors).  `file` is the name used in
 * messages.  Returns the program (possibly partial, when syntax errors
 * were reported to `d`), or NULL only on allocation failure.  The caller
 * frees it with ast_program_free().  `d` must stay pointed at `src` for
 * rendering carets (diag_set_source).
 */
struct ast_program *parse_buffer(struct diag_ctx *d, const char *file, const char *src, size_t len);

/*
 * Read and parse `path` ("-": standard input, named "<stdin>").  On success *src_out receives the
 * file's text (malloc'ed; the caller frees it after rendering diagnostics) and d is pointed at it.
 * Returns NULL and sets *io_error (errno value) if the file cannot be read.
 */
struct ast_program *parse_file(struct diag_ctx *d, const char *path, char **src_out, int *io_error);

#endif /* PRISMC_PARSE_H */
