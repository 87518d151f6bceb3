/* SPDX-License-Identifier: MIT */
/*
 * util/json_text.h - a JSON string (jansson) from any C string.
 *
 * Owns: the one place that turns text which may not be valid UTF-8 (a
 * source line, a path, a name read from a file) into a JSON string:
 * jansson refuses invalid UTF-8, so each byte of 0x80 and above is then
 * replaced by '?' and the rest kept.  Everything else about JSON (escaping,
 * numbers, layout) is jansson's.
 *
 * Must not: be installed (internal), or write JSON itself.
 */
#ifndef PRISM_UTIL_JSON_TEXT_H
#define PRISM_UTIL_JSON_TEXT_H

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* A new reference to a JSON string of @s (NULL: ""); NULL only when out
 * of memory. */
static inline json_t *json_text(const char *s)
{
	json_t *j = json_string(s ? s : "");
	char *c;

	if (j || !s || !(c = strdup(s)))
		return j;
	for (char *p = c; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(c);
	free(c);
	return j;
}

#endif /* PRISM_UTIL_JSON_TEXT_H */
