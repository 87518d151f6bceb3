/* SPDX-License-Identifier: MIT */
/*
 * tests/support/json_read.h - member lookups on documents parsed with
 * jansson (json_loadb), for tests that read back JSON the tools write.
 *
 * Owns: jget, jget_str, jget_num (a default when the member is missing or
 * not a number, so that two missing members never compare equal).
 */
#ifndef PRISM_TESTS_JSON_READ_H
#define PRISM_TESTS_JSON_READ_H

#include <jansson.h>

/* Member @key of object @j, or NULL. */
static inline json_t *jget(const json_t *j, const char *key)
{
	return json_object_get(j, key);
}

/* String member, or NULL. */
static inline const char *jget_str(const json_t *j, const char *key)
{
	return json_string_value(json_object_get(j, key));
}

/* Number member (integer or real), or @dflt. */
static inline double jget_num(const json_t *j, const char *key, double dflt)
{
	const json_t *v = json_object_get(j, key);

	return json_is_number(v) ? json_number_value(v) : dflt;
}

#endif /* PRISM_TESTS_JSON_READ_H */
