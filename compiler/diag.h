/* SPDX-License-Identifier: MIT */
/*
 * compiler/diag.h - diagnostics of prismc (errors, warnings, notes).
 *
 * Owns: the source buffer registry used to print a line and a caret, the
 * list of collected diagnostics, and their rendering as text
 * (`file:line:col: error: message`, source line, caret — chibicc style) or
 * as JSON (the line and caret printed by util/caret.h, which prismd's
 * configuration errors share).  Used by every stage: parser, checker,
 * lowering, verifier.
 *
 * Must not: exit, abort, or print on its own while collecting.  Rendering
 * happens only when the caller asks (diag_render / diag_render_json).
 */
#ifndef PRISMC_DIAG_H
#define PRISMC_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/* A source position: 1-based line and column (in bytes), and the length
 * in bytes of the construct the caret should underline (0 or 1 = a single
 * caret).  line == 0 means "no location". */
struct src_loc {
	uint32_t line;
	uint32_t col;
	uint32_t len;
};

#define SRC_LOC_NONE ((struct src_loc){0, 0, 0})

enum diag_severity {
	DIAG_ERROR,
	DIAG_WARNING,
	DIAG_NOTE,
};

/* One diagnostic.  Notes that belong to an error follow it in the list
 * with severity DIAG_NOTE (like gcc/clang). */
struct diag {
	enum diag_severity severity;
	struct src_loc loc; /* line 0: not attached to a source location */
	char *message;
};

struct diag_ctx {
	const char *file; /* name printed in messages (not owned) */
	const char *src;  /* the source text (not owned; may be NULL) */
	size_t src_len;
	struct diag *items; /* collected diagnostics, in report order */
	size_t count, cap;
	unsigned errors, warnings;
	unsigned max_errors; /* stop recording errors after this many (0 = 100) */
	bool truncated;      /* max_errors reached: later errors dropped */
	bool drop_notes;     /* the last error was dropped: drop its notes */
	bool oom;            /* an allocation failed; some messages lost */
	bool werror;         /* warnings count as errors */
};

/* Start a context for `file` (its text `src` of `len` bytes, used for
 * printing source lines; may be NULL). */
void diag_init(struct diag_ctx *d, const char *file, const char *src, size_t len);
/* Free the collected messages. */
void diag_fini(struct diag_ctx *d);
/* Point the context at a (new) source text. */
void diag_set_source(struct diag_ctx *d, const char *file, const char *src, size_t len);

/* Record a diagnostic.  `loc` may be SRC_LOC_NONE (e.g. verifier errors on
 * a whole program, I/O errors). */
void diag_error(struct diag_ctx *d, struct src_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_warning(struct diag_ctx *d, struct src_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_note(struct diag_ctx *d, struct src_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_vreport(struct diag_ctx *d, enum diag_severity sev, struct src_loc loc, const char *fmt,
                  va_list ap);

/* Put diagnostics in source order (stable; a note stays with the error or
 * warning it follows; messages without a location go last). */
void diag_sort(struct diag_ctx *d);

/* Errors so far (warnings included when werror). */
unsigned diag_error_count(const struct diag_ctx *d);
bool diag_has_errors(const struct diag_ctx *d);

/* Print every diagnostic as text: "file:line:col: error: msg", the source
 * line and a caret line; then nothing else (summary is the caller's). */
void diag_render(const struct diag_ctx *d, FILE *out);
/* Print one diagnostic as text (used by diag_render). */
void diag_render_one(const struct diag_ctx *d, const struct diag *g, FILE *out);
/* Append every diagnostic to the JSON array @list as an object
 * {"file":..,"line":..,"column":..,"length":..,"severity":"error","message":..}
 * (no line/column/length without a location); returns @list (NULL stays
 * NULL). */
json_t *diag_json(const struct diag_ctx *d, json_t *list);
/* The same objects as one JSON array and a newline on @out. */
void diag_render_json(const struct diag_ctx *d, FILE *out);

/* Name of a severity ("error", "warning", "note"). */
const char *diag_severity_name(enum diag_severity sev);

#endif /* PRISMC_DIAG_H */
