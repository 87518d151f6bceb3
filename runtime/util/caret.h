/* SPDX-License-Identifier: MIT */
/*
 * util/caret.h - the one printer of a source line with a caret under a
 * place in it (chibicc style), for every text input the project reads:
 * prismc's diagnostics (compiler/diag.c) and prismd's configuration
 * (tools/prismd/config.c).
 *
 *     let x = *p + 1
 *             ^~
 *
 * Owns: finding line N of a text and printing it, indented by four spaces,
 * with control bytes shown as spaces (tabs kept), then a caret line that
 * keeps the tabs of the source so the caret lines up under the column, and
 * `~` under the rest of the construct.
 *
 * Must not: print the `file:line:col: error: ...` header (each caller has
 * its own), allocate, or read outside the text it is given.
 */
#ifndef PRISM_UTIL_CARET_H
#define PRISM_UTIL_CARET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Find 1-based @line in the @len bytes at @src: its first byte in *@start
 * and its length in *@n (without the newline or a '\r' before it).  False
 * when @src is NULL, @line is 0 or the text has fewer lines.
 */
bool caret_source_line(const char *src, size_t len, unsigned line, const char **start, size_t *n);

/*
 * Print line @line of the text, then a caret under 1-based byte column @col
 * followed by `~` for the rest of @width bytes (0 or 1: the caret alone;
 * cut at the end of the line).  Prints nothing when the text has no such
 * line.
 */
void caret_print(FILE *out, const char *src, size_t len, unsigned line, unsigned col,
                 unsigned width);

#endif /* PRISM_UTIL_CARET_H */
