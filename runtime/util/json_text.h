/* SPDX-License-Identifier: MIT */
/*
 * util/json_text.h - a JSON string (jansson) from any C string.
 *
 * Owns: json_hex (bytes as a hex string) and the one place that turns
 * text which may not be valid UTF-8 (a
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
#include <stdint.h>
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

/* A new reference to a JSON string of @n bytes at @p in hex, two lower-case
 * digits a byte ("00ff"); NULL only when out of memory. */
static inline json_t *json_hex(const uint8_t *p, size_t n)
{
	static const char digit[] = "0123456789abcdef";
	char *s = malloc(2 * n + 1);
	json_t *j;

	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		s[2 * i] = digit[p[i] >> 4];
		s[2 * i + 1] = digit[p[i] & 15];
	}
	s[2 * n] = 0;
	j = json_string(s);
	free(s);
	return j;
}

#endif /* PRISM_UTIL_JSON_TEXT_H */
