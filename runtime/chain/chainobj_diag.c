/* SPDX-License-Identifier: MIT */
/*
 * chain/chainobj_diag.c - chain-object error messages and name checks.
 *
 * Owns: chainobj_diag_set/clear, identifier and note validation.
 * Must not: print, allocate, or know the schema.
 */
#include "chain/chainobj_diag.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void chainobj_diag_clear(struct diag_report *d)
{
	diag_report_clear(d);
}

int chainobj_diag_set(struct diag_report *d, enum chainobj_err kind, unsigned line, unsigned col,
                      const char *path, const char *fmt, ...)
{
	int rc = kind == CHAINOBJ_E_NOMEM ? -ENOMEM : kind == CHAINOBJ_E_IO ? -EIO : -EINVAL;
	char what[160];
	va_list ap;

	if (!d || d->code != CHAINOBJ_E_OK)
		return rc;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	d->line = line;
	d->col = col;
	snprintf(d->path, sizeof(d->path), "%s", path ? path : "");
	/* Truncation is acceptable: the message stays a bounded one-liner. */
	if (line && d->path[0])
		diag_report_set(d, kind, "line %u: %s: %s", line, d->path, what);
	else if (line)
		diag_report_set(d, kind, "line %u: %s", line, what);
	else if (d->path[0])
		diag_report_set(d, kind, "%s: %s", d->path, what);
	else
		diag_report_set(d, kind, "%s", what);
	return rc;
}

void chainobj_diag_set_line(struct diag_report *d, unsigned line, unsigned col)
{
	char old[sizeof(d->msg)];

	if (!d || d->code == CHAINOBJ_E_OK || d->line || !line)
		return;
	memcpy(old, d->msg, sizeof(old));
	d->line = line;
	d->col = col;
	diag_report_set(d, d->code, "line %u: %s", line, old);
}

bool chainobj_name_ok(const char *s)
{
	size_t n;

	if (!s || !s[0])
		return false;
	if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return false;
	for (n = 0; s[n]; n++) {
		char c = s[n];

		if (n >= CHAINOBJ_NAME_MAX)
			return false;
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return false;
	}
	return true;
}

bool chainobj_note_ok(const char *s)
{
	size_t n;

	if (!s)
		return true;
	for (n = 0; s[n]; n++)
		if (n >= CHAINOBJ_NOTE_MAX || (unsigned char)s[n] < 0x20 ||
		    (unsigned char)s[n] > 0x7e)
			return false;
	return true;
}
