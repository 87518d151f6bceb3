/* SPDX-License-Identifier: MIT */
/*
 * tests/support/json_mini.h - a small strict JSON parser for tests.
 *
 * Owns: parsing a complete JSON text (RFC 8259) into a tree the tests can
 * query (object member lookup, array iteration).  Used to read back the
 * Chrome trace files the sim writes.  Must not: be used by the library.
 */
#ifndef PRISM_TESTS_JSON_MINI_H
#define PRISM_TESTS_JSON_MINI_H

#include <stdbool.h>
#include <stddef.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
	enum json_type type;
	bool boolean;
	double number;
	char *string;        /* JSON_STRING (decoded, NUL-terminated) */
	char **keys;         /* JSON_OBJECT: member names */
	struct json **items; /* JSON_ARRAY elements or JSON_OBJECT values */
	size_t n;
};

/* Parse @len bytes; NULL on any syntax error (with a message in @err). */
struct json *json_parse(const char *text, size_t len, char *err, size_t errlen);
void json_free(struct json *j);
/* Member @key of object @j, or NULL. */
const struct json *json_get(const struct json *j, const char *key);
/* String member or NULL; number member or @dflt. */
const char *json_get_str(const struct json *j, const char *key);
double json_get_num(const struct json *j, const char *key, double dflt);

#endif /* PRISM_TESTS_JSON_MINI_H */
