/* SPDX-License-Identifier: MIT */
/*
 * compiler/run_image.c - region images for `prismc run` (run_image.h).
 *
 * Must not: print; every failure is a message in the caller's buffer or
 * diagnostics context.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/run_image.h"
#include "chain/chainobj.h"
#include "util/hex.h"

static const struct interp_region *find(const struct interp_env *env, const char *name, size_t len)
{
	for (size_t i = 0; i < env->nregions; i++)
		if (strlen(env->regions[i].name) == len && !memcmp(env->regions[i].name, name, len))
			return &env->regions[i];
	return NULL;
}

/* "<what>: no region 'x'; the program declares: a, b" in @err. */
static int no_region(const struct interp_env *env, const char *what, const char *name, int len,
                     char *err, size_t errlen)
{
	size_t n = (size_t)snprintf(err, errlen, "%sno region '%.*s'; the program declares", what,
	                            len, name);

	for (size_t i = 0; i < env->nregions && n < errlen; i++)
		n += (size_t)snprintf(err + n, errlen - n, "%s %s", i ? "," : ":",
		                      env->regions[i].name);
	if (!env->nregions && n < errlen)
		snprintf(err + n, errlen - n, " none");
	return RUN_IMAGE_E_NAME;
}

/* Where in a specification a failure lies: @at->p, @at->len bytes. */
struct span {
	const char *p;
	size_t len;
};

#define AT(ptr, n) (*at = (struct span){(ptr), (size_t)(n)})

/* "REGION[+OFF]" up to @end: the region and the offset. */
static int region_offset(const struct interp_env *env, const char *s, const char *end,
                         const struct interp_region **r, uint64_t *off, char *err, size_t errlen,
                         struct span *at)
{
	const char *plus = memchr(s, '+', (size_t)(end - s));
	const char *name_end = plus ? plus : end;
	char *e;

	*r = find(env, s, (size_t)(name_end - s));
	if (!*r) {
		AT(s, name_end - s);
		return no_region(env, "", s, (int)(name_end - s), err, errlen);
	}
	*off = 0;
	if (plus) {
		errno = 0;
		*off = strtoull(plus + 1, &e, 0);
		/* strtoull takes blanks and a sign: an offset starts with a digit */
		if (errno || e != end || !isdigit((unsigned char)plus[1])) {
			AT(plus + 1, end - plus - 1);
			snprintf(err, errlen, "'%.*s' is not an offset", (int)(end - plus - 1),
			         plus + 1);
			return -1;
		}
	}
	return 0;
}

/* One specification; on failure *@at says which part of @spec is wrong. */
static int set_spec(const struct interp_env *env, const char *spec, char *err, size_t errlen,
                    struct span *at)
{
	const char *eq = strchr(spec, '='), *colon = eq ? strchr(eq, ':') : NULL;
	const struct interp_region *r;
	uint64_t off, v;
	enum ast_scalar sc;

	AT(spec, strlen(spec));
	if (!eq || !colon) {
		snprintf(err, errlen, "'%s': expected REGION[+OFF]=TYPE:VALUE", spec);
		return -1;
	}
	if (region_offset(env, spec, eq, &r, &off, err, errlen, at))
		return -1;
	const char *type = eq + 1, *val = colon + 1;
	size_t tlen = (size_t)(colon - type);

	AT(val, strlen(val));
	if (tlen == 3 && !memcmp(type, "hex", 3)) {
		size_t n = strlen(val);

		if (n % 2 || !n || off > r->size || n / 2 > r->size - off) {
			snprintf(err, errlen,
			         "'%s': %zu hex digits at offset %llu of '%s' (%llu bytes)", spec,
			         n, (unsigned long long)off, r->name, (unsigned long long)r->size);
			return -1;
		}
		if (hex_decode(val, n / 2, r->bytes + off)) {
			snprintf(err, errlen, "'%s': not hex", spec);
			return -1;
		}
		return 0;
	}
	if (!ast_scalar_lookup(type, tlen, &sc)) {
		AT(type, tlen);
		snprintf(err, errlen, "'%s': unknown type '%.*s' (a scalar such as be64, or hex)",
		         spec, (int)tlen, type);
		return -1;
	}
	const struct ast_scalar_info *si = &ast_scalar_table[sc];

	if (val[0] == '&') {
		const struct interp_region *t;
		uint64_t toff;

		if (si->bytes != 8) {
			AT(type, tlen);
			snprintf(err, errlen, "'%s': a pointer is stored as be64 or le64", spec);
			return -1;
		}
		if (region_offset(env, val + 1, val + strlen(val), &t, &toff, err, errlen, at))
			return -1;
		if (toff >= t->size) {
			snprintf(err, errlen, "'%s': offset %llu is outside '%s' (%llu bytes)",
			         spec, (unsigned long long)toff, t->name,
			         (unsigned long long)t->size);
			return -1;
		}
		v = t->addr + toff;
	} else {
		char *e;

		errno = 0;
		v = strtoull(val, &e, 0);
		if (errno || *e || !isdigit((unsigned char)*val) ||
		    (si->bytes < 8 && v >> (8 * si->bytes))) {
			snprintf(err, errlen, "'%s': '%s' is not a %s", spec, val, si->spelling);
			return -1;
		}
	}
	if (off > r->size || si->bytes > r->size - off) {
		AT(spec, eq - spec);
		snprintf(err, errlen, "'%s': %u bytes at offset %llu are outside '%s' (%llu bytes)",
		         spec, si->bytes, (unsigned long long)off, r->name,
		         (unsigned long long)r->size);
		return -1;
	}
	chainobj_put_uint(r->bytes + off, si->bytes,
	                  si->order == AST_ORDER_LE ? CHAINOBJ_ORDER_LITTLE : CHAINOBJ_ORDER_BIG,
	                  v);
	return 0;
}

int run_image_set(const struct interp_env *env, const char *spec, char *err, size_t errlen)
{
	struct span at;

	return set_spec(env, spec, err, errlen, &at);
}

int run_image_set_text(const struct interp_env *env, const char *text, size_t len,
                       struct diag_ctx *d)
{
	const char *end = text + len, *next;
	uint32_t line = 0;

	for (const char *l0 = text; l0 < end; l0 = next) {
		const char *nl = memchr(l0, '\n', (size_t)(end - l0)), *le = nl ? nl : end;
		const char *hash = memchr(l0, '#', (size_t)(le - l0)), *s = l0,
		           *e = hash ? hash : le;
		char spec[1024], msg[256];
		struct span at;

		next = nl ? nl + 1 : end;
		line++;
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		if (s == e)
			continue;
		if ((size_t)(e - s) >= sizeof(spec)) {
			diag_error(d, (struct src_loc){line, (uint32_t)(s - l0) + 1, 1},
			           "a line longer than %zu bytes", sizeof(spec) - 1);
			return -1;
		}
		memcpy(spec, s, (size_t)(e - s));
		spec[e - s] = 0;
		if (set_spec(env, spec, msg, sizeof(msg), &at)) {
			uint32_t col = (uint32_t)(s - l0) + (uint32_t)(at.p - spec) + 1;

			diag_error(d, (struct src_loc){line, col, (uint32_t)(at.len ? at.len : 1)},
			           "%s", msg);
			return -1;
		}
	}
	return 0;
}

int run_image_load(const struct interp_env *env, const char *name, const char *path, char *err,
                   size_t errlen)
{
	const struct interp_region *r = find(env, name, strlen(name));
	FILE *f;

	if (!r)
		return no_region(env, "--region: ", name, (int)strlen(name), err, errlen);
	f = strcmp(path, "-") ? fopen(path, "rb") : stdin; /* '-': standard input */
	if (!f) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return e == ENOENT ? RUN_IMAGE_E_MISSING : -1;
	}
	size_t got = fread(r->bytes, 1, r->size, f);
	bool larger = fgetc(f) != EOF;
	int e = ferror(f) ? errno : 0; /* a directory opens, and fails here (EISDIR) */

	if (f != stdin)
		fclose(f);
	(void)got;
	if (e) {
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -1;
	}
	if (larger) {
		snprintf(err, errlen, "%s is larger than region '%s' (%llu bytes)", path, name,
		         (unsigned long long)r->size);
		return -1;
	}
	return 0;
}

int run_image_save(const struct interp_env *env, const char *name, const char *path, char *err,
                   size_t errlen)
{
	const struct interp_region *r = find(env, name, strlen(name));
	FILE *f;

	if (!r)
		return no_region(env, "--save: ", name, (int)strlen(name), err, errlen);
	f = fopen(path, "wb");
	if (!f || fwrite(r->bytes, 1, r->size, f) != r->size) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	if (fclose(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
