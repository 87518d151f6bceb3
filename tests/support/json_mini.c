/* SPDX-License-Identifier: MIT */
/*
 * tests/support/json_mini.c - a small strict JSON parser for tests.
 *
 * Owns: recursive-descent parsing of RFC 8259 JSON (no extensions: no
 * trailing commas, no comments, no NaN), with a depth limit.  Must not: be
 * linked into the library.
 */
#include "tests/support/json_mini.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH 64

struct parser {
	const char *p, *end;
	char *err;
	size_t errlen;
	bool failed;
};

static void perr(struct parser *ps, const char *what)
{
	if (!ps->failed && ps->err)
		snprintf(ps->err, ps->errlen, "%s at byte %zu", what, (size_t)(ps->end - ps->p));
	ps->failed = true;
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static struct json *new_node(enum json_type t)
{
	struct json *j = calloc(1, sizeof(*j));
	if (j)
		j->type = t;
	return j;
}

static struct json *parse_value(struct parser *ps, int depth);

static char *parse_string_raw(struct parser *ps)
{
	if (ps->p >= ps->end || *ps->p != '"') {
		perr(ps, "expected string");
		return NULL;
	}
	ps->p++;
	size_t cap = 16, n = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	while (ps->p < ps->end && *ps->p != '"') {
		unsigned char c = (unsigned char)*ps->p++;
		if (c < 0x20) {
			perr(ps, "control character in string");
			free(s);
			return NULL;
		}
		if (c == '\\') {
			if (ps->p >= ps->end)
				break;
			char e = *ps->p++;
			const char *map = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
			const char *m = strchr(map, e);
			if (e && m) {
				c = (unsigned char)to[m - map];
			} else if (e == 'u' && ps->end - ps->p >= 4) {
				char hex[5] = {ps->p[0], ps->p[1], ps->p[2], ps->p[3], 0};
				char *endp;
				unsigned long v = strtoul(hex, &endp, 16);
				if (*endp) {
					perr(ps, "bad \\u escape");
					free(s);
					return NULL;
				}
				ps->p += 4;
				c = v < 0x80 ? (unsigned char)v : '?';
			} else {
				perr(ps, "bad escape");
				free(s);
				return NULL;
			}
		}
		if (n + 2 > cap) {
			char *t = realloc(s, cap *= 2);
			if (!t) {
				free(s);
				return NULL;
			}
			s = t;
		}
		s[n++] = (char)c;
	}
	if (ps->p >= ps->end) {
		perr(ps, "unterminated string");
		free(s);
		return NULL;
	}
	ps->p++;
	s[n] = '\0';
	return s;
}

static bool push(struct json *j, char *key, struct json *v)
{
	struct json **items = realloc(j->items, (j->n + 1) * sizeof(*items));
	if (!items)
		return false;
	j->items = items;
	if (j->type == JSON_OBJECT) {
		char **keys = realloc(j->keys, (j->n + 1) * sizeof(*keys));
		if (!keys)
			return false;
		j->keys = keys;
		j->keys[j->n] = key;
	}
	j->items[j->n++] = v;
	return true;
}

static struct json *parse_container(struct parser *ps, int depth, bool object)
{
	struct json *j = new_node(object ? JSON_OBJECT : JSON_ARRAY);
	if (!j)
		return NULL;
	ps->p++;
	skip_ws(ps);
	char close = object ? '}' : ']';
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return j;
	}
	for (;;) {
		char *key = NULL;
		skip_ws(ps);
		if (object) {
			key = parse_string_raw(ps);
			if (!key)
				break;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				perr(ps, "expected ':'");
				free(key);
				break;
			}
			ps->p++;
		}
		struct json *v = parse_value(ps, depth + 1);
		if (!v || !push(j, key, v)) {
			free(key);
			json_free(v);
			break;
		}
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			return j;
		}
		perr(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
		break;
	}
	json_free(j);
	return NULL;
}

static struct json *parse_value(struct parser *ps, int depth)
{
	if (depth > JSON_MAX_DEPTH) {
		perr(ps, "too deep");
		return NULL;
	}
	skip_ws(ps);
	if (ps->p >= ps->end) {
		perr(ps, "unexpected end");
		return NULL;
	}
	char c = *ps->p;
	if (c == '{' || c == '[')
		return parse_container(ps, depth, c == '{');
	if (c == '"') {
		char *s = parse_string_raw(ps);
		if (!s)
			return NULL;
		struct json *j = new_node(JSON_STRING);
		if (!j) {
			free(s);
			return NULL;
		}
		j->string = s;
		return j;
	}
	static const struct {
		const char *word;
		enum json_type t;
		bool b;
	} words[] = {
	    {"true", JSON_BOOL, true}, {"false", JSON_BOOL, false}, {"null", JSON_NULL, false}};
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(words[i].word);
		if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, words[i].word, n) == 0) {
			ps->p += n;
			struct json *j = new_node(words[i].t);
			if (j)
				j->boolean = words[i].b;
			return j;
		}
	}
	/* number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
	const char *q = ps->p;
	if (q < ps->end && *q == '-')
		q++;
	if (q >= ps->end || *q < '0' || *q > '9') {
		perr(ps, "unexpected character");
		return NULL;
	}
	if (*q == '0')
		q++;
	else
		while (q < ps->end && *q >= '0' && *q <= '9')
			q++;
	if (q < ps->end && *q == '.') {
		q++;
		if (q >= ps->end || *q < '0' || *q > '9') {
			perr(ps, "bad fraction");
			return NULL;
		}
		while (q < ps->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < ps->end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < ps->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= ps->end || *q < '0' || *q > '9') {
			perr(ps, "bad exponent");
			return NULL;
		}
		while (q < ps->end && *q >= '0' && *q <= '9')
			q++;
	}
	char buf[64];
	size_t n = (size_t)(q - ps->p);
	if (n >= sizeof(buf)) {
		perr(ps, "number too long");
		return NULL;
	}
	memcpy(buf, ps->p, n);
	buf[n] = '\0';
	ps->p = q;
	struct json *j = new_node(JSON_NUMBER);
	if (j)
		j->number = strtod(buf, NULL);
	return j;
}

struct json *json_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct parser ps = {.p = text, .end = text + len, .err = err, .errlen = errlen};
	if (err && errlen)
		err[0] = '\0';
	struct json *j = parse_value(&ps, 0);
	if (j) {
		skip_ws(&ps);
		if (ps.p != ps.end) {
			perr(&ps, "trailing bytes");
			json_free(j);
			return NULL;
		}
	}
	return j;
}

void json_free(struct json *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++) {
		json_free(j->items[i]);
		if (j->keys)
			free(j->keys[i]);
	}
	free(j->items);
	free(j->keys);
	free(j->string);
	free(j);
}

const struct json *json_get(const struct json *j, const char *key)
{
	if (!j || j->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < j->n; i++)
		if (strcmp(j->keys[i], key) == 0)
			return j->items[i];
	return NULL;
}

const char *json_get_str(const struct json *j, const char *key)
{
	const struct json *v = json_get(j, key);
	return v && v->type == JSON_STRING ? v->string : NULL;
}

double json_get_num(const struct json *j, const char *key, double dflt)
{
	const struct json *v = json_get(j, key);
	return v && v->type == JSON_NUMBER ? v->number : dflt;
}
