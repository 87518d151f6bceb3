/* SPDX-License-Identifier: MIT */
/*
 * compiler/diag.c - collecting and rendering prismc diagnostics.
 *
 * Owns: the diagnostic list of a diag_ctx, the text format
 *
 *     foo.prism:4:12: error: expected ';'
 *         let x = *p
 *                   ^
 *
 * (chibicc style: the source line, then a caret under the column, with
 * `~` under the rest of the construct) and the JSON format of
 * `prismc check --json`.  The source line and the caret come from
 * util/caret.h, shared with prismd's configuration errors.
 *
 * Must not: print while collecting, exit, or keep pointers into freed
 * memory (messages are copied).
 */
#include "compiler/diag.h"
#include "util/array.h"
#include "util/caret.h"

#include <stdlib.h>
#include <string.h>

#include "util/json_text.h"

#define DIAG_DEFAULT_MAX_ERRORS 100u

static const char *const severity_names[] = {
    [DIAG_ERROR] = "error",
    [DIAG_WARNING] = "warning",
    [DIAG_NOTE] = "note",
};

const char *diag_severity_name(enum diag_severity sev)
{
	if ((unsigned)sev >= sizeof(severity_names) / sizeof(severity_names[0]))
		return "unknown";
	return severity_names[sev];
}

void diag_init(struct diag_ctx *d, const char *file, const char *src, size_t len)
{
	memset(d, 0, sizeof(*d));
	diag_set_source(d, file, src, len);
}

void diag_set_source(struct diag_ctx *d, const char *file, const char *src, size_t len)
{
	d->file = file ? file : "<input>";
	d->src = src;
	d->src_len = src ? len : 0;
}

void diag_fini(struct diag_ctx *d)
{
	for (size_t i = 0; i < d->count; i++)
		free(d->items[i].message);
	free(d->items);
	d->items = NULL;
	d->count = d->cap = 0;
}

static bool diag_push(struct diag_ctx *d, enum diag_severity sev, struct src_loc loc, char *msg)
{
	if (!ARRAY_RESERVE(d->items, d->cap, d->count + 1))
		return false;
	d->items[d->count++] = (struct diag){.severity = sev, .loc = loc, .message = msg};
	return true;
}

void diag_vreport(struct diag_ctx *d, enum diag_severity sev, struct src_loc loc, const char *fmt,
                  va_list ap)
{
	unsigned max = d->max_errors ? d->max_errors : DIAG_DEFAULT_MAX_ERRORS;
	bool is_error = sev == DIAG_ERROR || (sev == DIAG_WARNING && d->werror);
	char *msg = NULL;

	/* Notes attach to the previous diagnostic: drop them with it. */
	if (sev == DIAG_NOTE && d->drop_notes)
		return;
	if (is_error && d->errors >= max) {
		d->truncated = true;
		d->drop_notes = true;
		if (sev == DIAG_ERROR)
			d->errors++;
		else
			d->warnings++;
		return;
	}
	if (sev == DIAG_ERROR)
		d->errors++;
	else if (sev == DIAG_WARNING)
		d->warnings++;
	if (sev != DIAG_NOTE)
		d->drop_notes = false;
	if (vasprintf(&msg, fmt, ap) < 0) {
		d->oom = true;
		return;
	}
	if (!diag_push(d, sev, loc, msg)) {
		free(msg);
		d->oom = true;
	}
}

void diag_error(struct diag_ctx *d, struct src_loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vreport(d, DIAG_ERROR, loc, fmt, ap);
	va_end(ap);
}

void diag_warning(struct diag_ctx *d, struct src_loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vreport(d, DIAG_WARNING, loc, fmt, ap);
	va_end(ap);
}

void diag_note(struct diag_ctx *d, struct src_loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vreport(d, DIAG_NOTE, loc, fmt, ap);
	va_end(ap);
}

struct diag_group {
	size_t start, len, seq;
	uint32_t line, col;
};

static int group_cmp(const void *a, const void *b)
{
	const struct diag_group *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void diag_sort(struct diag_ctx *d)
{
	struct diag_group *groups;
	struct diag *items;
	size_t ng = 0, k = 0;

	if (d->count < 2)
		return;
	groups = malloc(d->count * sizeof(*groups));
	items = malloc(d->count * sizeof(*items));
	if (!groups || !items) {
		free(groups);
		free(items);
		return; /* unsorted is still correct */
	}
	for (size_t i = 0; i < d->count; i++) {
		if (d->items[i].severity == DIAG_NOTE && ng > 0) {
			groups[ng - 1].len++;
			continue;
		}
		uint32_t line = d->items[i].loc.line ? d->items[i].loc.line : UINT32_MAX;
		groups[ng] = (struct diag_group){i, 1, ng, line, d->items[i].loc.col};
		ng++;
	}
	qsort(groups, ng, sizeof(*groups), group_cmp);
	for (size_t g = 0; g < ng; g++)
		for (size_t j = 0; j < groups[g].len; j++)
			items[k++] = d->items[groups[g].start + j];
	memcpy(d->items, items, d->count * sizeof(*items));
	free(items);
	free(groups);
}

unsigned diag_error_count(const struct diag_ctx *d)
{
	return d->errors + (d->werror ? d->warnings : 0);
}

bool diag_has_errors(const struct diag_ctx *d)
{
	return diag_error_count(d) > 0;
}

void diag_render_one(const struct diag_ctx *d, const struct diag *g, FILE *out)
{
	if (g->loc.line)
		fprintf(out, "%s:%u:%u: %s: %s\n", d->file, g->loc.line, g->loc.col,
		        diag_severity_name(g->severity), g->message);
	else
		fprintf(out, "%s: %s: %s\n", d->file, diag_severity_name(g->severity), g->message);
	if (g->loc.line)
		caret_print(out, d->src, d->src_len, g->loc.line, g->loc.col, g->loc.len);
}

void diag_render(const struct diag_ctx *d, FILE *out)
{
	for (size_t i = 0; i < d->count; i++)
		diag_render_one(d, &d->items[i], out);
	if (d->errors > (d->max_errors ? d->max_errors : DIAG_DEFAULT_MAX_ERRORS))
		fprintf(out, "%s: note: too many errors, %u not shown\n", d->file,
		        d->errors - (d->max_errors ? d->max_errors : DIAG_DEFAULT_MAX_ERRORS));
	if (d->oom)
		fprintf(out, "%s: note: out of memory: some diagnostics were lost\n", d->file);
}

json_t *diag_json(const struct diag_ctx *d, json_t *list)
{
	for (size_t i = 0; list && i < d->count; i++) {
		const struct diag *g = &d->items[i];
		json_t *o = json_object();

		json_object_set_new(o, "file", json_text(d->file));
		if (g->loc.line) {
			json_object_set_new(o, "line", json_integer(g->loc.line));
			json_object_set_new(o, "column", json_integer(g->loc.col));
			json_object_set_new(o, "length", json_integer(g->loc.len ? g->loc.len : 1));
		}
		json_object_set_new(o, "severity", json_string(diag_severity_name(g->severity)));
		json_object_set_new(o, "message", json_text(g->message));
		json_array_append_new(list, o);
	}
	return list;
}

void diag_render_json(const struct diag_ctx *d, FILE *out)
{
	json_t *list = diag_json(d, json_array());

	json_dumpf(list, out, JSON_COMPACT);
	fputc('\n', out);
	json_decref(list);
}
