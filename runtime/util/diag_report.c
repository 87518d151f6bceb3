/* SPDX-License-Identifier: MIT */
/*
 * util/diag_report.c - filling struct diag_report (diag_report.h).
 */
#include "util/diag_report.h"

#include <stdio.h>
#include <string.h>

int diag_report_vset(struct diag_report *d, int code, const char *fmt, va_list ap)
{
	int n;

	if (!d)
		return code;
	d->code = code;
	n = vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	if (n >= (int)sizeof(d->msg))
		d->msg[sizeof(d->msg) - 2] = '~';
	return code;
}

int diag_report_set(struct diag_report *d, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_report_vset(d, code, fmt, ap);
	va_end(ap);
	return code;
}

/* Hot: the frame decoder clears a report per frame, so only the fields and
 * the two strings' first bytes are reset, not the 400-byte buffers. */
void diag_report_clear(struct diag_report *d)
{
	if (!d)
		return;
	d->code = 0;
	d->line = 0;
	d->col = 0;
	d->offset = 0;
	d->path[0] = '\0';
	d->msg[0] = '\0';
}
