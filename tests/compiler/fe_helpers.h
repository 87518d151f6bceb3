/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/fe_helpers.h - running the front end on a string in tests.
 *
 * Owns: fe_run(), which parses and checks a source text and returns the
 * rendered diagnostics (exactly what `prismc check` prints) and the unit.
 */
#ifndef PRISM_TESTS_FE_HELPERS_H
#define PRISM_TESTS_FE_HELPERS_H

#include "compiler/frontend.h"

/* Parse + check `src` as file "t.prism".  *text receives the rendered
 * diagnostics (malloc'ed, "" if none).  The unit must be finished with
 * frontend_fini(). */
enum frontend_status fe_run(struct frontend_unit *u, const char *src, char **text);

/* Same, rendering as JSON. */
char *fe_json(const struct frontend_unit *u);

/* Find an offload's first statement of a given kind, depth-first. */
struct ast_stmt *fe_find_stmt(struct ast_stmt *body, enum ast_stmt_kind kind);

#endif
