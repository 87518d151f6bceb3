/* SPDX-License-Identifier: MIT */
/*
 * util/caret.c - a source line and a caret under a column (util/caret.h).
 *
 * Owns: the line lookup and the two printed lines.
 * Must not: allocate, or print anything but those two lines.
 */
#include "util/caret.h"

#include <string.h>

bool caret_source_line(const char *src, size_t len, unsigned line, const char **start, size_t *n)
{
	const char *p = src, *end = src + len;

	if (!src || line == 0)
		return false;
	for (unsigned l = 1; l < line; l++) {
		p = memchr(p, '\n', (size_t)(end - p));
		if (!p)
			return false;
		p++;
	}
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	*start = p;
	*n = (size_t)((nl ? nl : end) - p);
	if (*n && p[*n - 1] == '\r')
		(*n)--;
	return true;
}

void caret_print(FILE *out, const char *src, size_t len, unsigned line, unsigned col,
                 unsigned width)
{
	const char *text;
	size_t n;

	if (!caret_source_line(src, len, line, &text, &n))
		return;
	fputs("    ", out);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];
		fputc(c == '\t' || (c >= 0x20 && c != 0x7f) ? c : ' ', out);
	}
	fputs("\n    ", out);
	size_t at = col ? col - 1 : 0;
	for (size_t i = 0; i < at && i < n; i++)
		fputc(text[i] == '\t' ? '\t' : ' ', out);
	fputc('^', out);
	for (size_t i = 1; i < width && at + i < n; i++)
		fputc('~', out);
	fputc('\n', out);
}
