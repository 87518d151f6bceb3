/* SPDX-License-Identifier: MIT */
/*
 * sim/cost_profile.c - parse NIC cost profiles (YAML, libyaml).
 *
 * Owns: the profile schema as one table (key path, type, destination,
 * range), the walk over a libyaml document that fills a struct
 * sim_cost_profile, and the error messages (origin:line:col: ...).
 *
 * Must not: print, exit, or keep anything after returning; it knows nothing
 * about how the numbers are used (that is cost_model.c).
 */
#include "sim/cost_profile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#define PROFILE_MAX_BYTES (1u << 20)
#define PROFILE_MAX_DEPTH 2 /* root mapping, then one level of sections */

enum field_type {
	FT_UINT,
	FT_DOUBLE,
	FT_STRING,
};

struct field {
	const char *path; /* "latency_ns.nop" */
	enum field_type type;
	size_t off;
	size_t size; /* FT_STRING: capacity including the NUL */
	double min, max;
};

#define OFF(member) offsetof(struct sim_cost_profile, member)
#define F_UINT(path, member, lo, hi)                                                               \
	{                                                                                          \
		path, FT_UINT, OFF(member), 0, lo, hi                                              \
	}
#define F_NUM(path, member, lo, hi)                                                                \
	{                                                                                          \
		path, FT_DOUBLE, OFF(member), 0, lo, hi                                            \
	}
#define F_STR(path, member)                                                                        \
	{                                                                                          \
		path, FT_STRING, OFF(member), sizeof(((struct sim_cost_profile *)0)->member), 0, 0 \
	}

/* The schema (docs/cost-model.md).  Every field is required. */
static const struct field fields[] = {
    F_UINT("schema", schema, 1, 1),
    F_STR("name", name),
    F_STR("description", description),
    F_UINT("processing_units", processing_units, 1, 1024),
#define X_LAT(v, key) F_NUM("latency_ns." key, latency_ns[SIM_VERB_##v], 1, 1e9),
    SIM_VERB_CLASSES(X_LAT)
#undef X_LAT
        F_NUM("latency_ns.network", network_ns, 0, 1e9),
    F_NUM("chain_ns.wq", chain_ns[SIM_ORDER_WQ], 0, 1e9),
    F_NUM("chain_ns.completion", chain_ns[SIM_ORDER_COMPLETION], 0, 1e9),
    F_NUM("chain_ns.doorbell", chain_ns[SIM_ORDER_DOORBELL], 0, 1e9),
    F_NUM("chain_ns.ordering_verb", ordering_verb_ns, 0, 1e9),
#define X_TPUT(v, key) F_NUM("throughput_mops." key, throughput_mops[SIM_VERB_##v], 1e-6, 1e6),
    SIM_VERB_CLASSES(X_TPUT)
#undef X_TPUT
        F_UINT("payload.free_bytes", payload_free_bytes, 0, 1u << 30),
    F_NUM("payload.gbps", payload_gbps, 1e-3, 1e6),
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

struct parse_ctx {
	const char *origin;
	yaml_document_t *doc;
	struct sim_cost_profile *out;
	struct diag_report *diag;
	bool seen[NFIELDS];
	yaml_mark_t section_mark[NFIELDS]; /* where each field's section began */
	bool section_seen[NFIELDS];
};

/* Record the (first) failure; always returns -EINVAL-style @code. */
__attribute__((format(printf, 5, 6))) static int fail(struct diag_report *diag, const char *origin,
                                                      int code, const yaml_mark_t *mark,
                                                      const char *fmt, ...)
{
	if (!diag)
		return code;
	char what[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	diag->line = mark ? (unsigned)mark->line + 1 : 0;
	diag->col = mark ? (unsigned)mark->column + 1 : 0;
	if (mark)
		return diag_report_set(diag, code, "%s:%u:%u: %s", origin, diag->line, diag->col,
		                       what);
	return diag_report_set(diag, code, "%s: %s", origin, what);
}

static int find_field(const char *path)
{
	for (size_t i = 0; i < NFIELDS; i++)
		if (strcmp(fields[i].path, path) == 0)
			return (int)i;
	return -1;
}

/* Is @prefix ("latency_ns") the section of some field? */
static bool is_section(const char *prefix)
{
	size_t n = strlen(prefix);
	for (size_t i = 0; i < NFIELDS; i++)
		if (strncmp(fields[i].path, prefix, n) == 0 && fields[i].path[n] == '.')
			return true;
	return false;
}

static const char *scalar_text(const yaml_node_t *node)
{
	return (const char *)node->data.scalar.value;
}

static int store_scalar(struct parse_ctx *c, int fi, const yaml_node_t *val)
{
	const struct field *f = &fields[fi];
	const char *text = scalar_text(val);
	char *dst = (char *)c->out + f->off;

	if (val->type != YAML_SCALAR_NODE)
		return fail(c->diag, c->origin, -EINVAL, &val->start_mark,
		            "'%s' must be a single value, not a %s", f->path,
		            val->type == YAML_MAPPING_NODE ? "mapping" : "list");
	if (f->type == FT_STRING) {
		size_t n = val->data.scalar.length;
		if (n == 0 || n >= f->size)
			return fail(c->diag, c->origin, -EINVAL, &val->start_mark,
			            "'%s' must be 1 to %zu characters", f->path, f->size - 1);
		memcpy(dst, text, n);
		dst[n] = '\0';
		return 0;
	}
	if (val->data.scalar.style != YAML_PLAIN_SCALAR_STYLE || val->data.scalar.length == 0)
		return fail(c->diag, c->origin, -EINVAL, &val->start_mark,
		            "'%s' must be a plain number", f->path);
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (*end != '\0' || errno != 0 || !isfinite(v))
		return fail(c->diag, c->origin, -EINVAL, &val->start_mark,
		            "'%s': '%s' is not a number", f->path, text);
	if (v < f->min || v > f->max)
		return fail(c->diag, c->origin, -EINVAL, &val->start_mark,
		            "'%s' = %s is out of range [%g, %g]", f->path, text, f->min, f->max);
	if (f->type == FT_UINT) {
		if (v != floor(v))
			return fail(c->diag, c->origin, -EINVAL, &val->start_mark,
			            "'%s' must be a whole number, not %s", f->path, text);
		unsigned u = (unsigned)v;
		memcpy(dst, &u, sizeof(u));
		return 0;
	}
	memcpy(dst, &v, sizeof(v));
	return 0;
}

static int walk_mapping(struct parse_ctx *c, const yaml_node_t *map, const char *prefix, int depth)
{
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const yaml_node_t *key = yaml_document_get_node(c->doc, p->key);
		const yaml_node_t *val = yaml_document_get_node(c->doc, p->value);
		if (!key || !val)
			return fail(c->diag, c->origin, -EINVAL, &map->start_mark,
			            "malformed mapping");
		if (key->type != YAML_SCALAR_NODE)
			return fail(c->diag, c->origin, -EINVAL, &key->start_mark,
			            "keys must be plain names");
		char path[96];
		int n = snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "",
		                 scalar_text(key));
		if (n < 0 || (size_t)n >= sizeof(path))
			return fail(c->diag, c->origin, -EINVAL, &key->start_mark, "key too long");
		if (val->type == YAML_MAPPING_NODE) {
			if (depth + 1 >= PROFILE_MAX_DEPTH || !is_section(path))
				return fail(c->diag, c->origin, -EINVAL, &key->start_mark,
				            "unknown section '%s'", path);
			for (size_t i = 0; i < NFIELDS; i++) {
				size_t pl = strlen(path);
				if (strncmp(fields[i].path, path, pl) == 0 &&
				    fields[i].path[pl] == '.') {
					if (c->section_seen[i])
						return fail(c->diag, c->origin, -EINVAL,
						            &key->start_mark,
						            "duplicate section '%s'", path);
					c->section_seen[i] = true;
					c->section_mark[i] = key->start_mark;
				}
			}
			int rc = walk_mapping(c, val, path, depth + 1);
			if (rc)
				return rc;
			continue;
		}
		int fi = find_field(path);
		if (fi < 0) {
			if (*prefix)
				return fail(c->diag, c->origin, -EINVAL, &key->start_mark,
				            "unknown key '%s' in '%s'", scalar_text(key), prefix);
			return fail(c->diag, c->origin, -EINVAL, &key->start_mark,
			            "unknown key '%s'", scalar_text(key));
		}
		if (c->seen[fi])
			return fail(c->diag, c->origin, -EINVAL, &key->start_mark,
			            "duplicate key '%s'", path);
		c->seen[fi] = true;
		int rc = store_scalar(c, fi, val);
		if (rc)
			return rc;
	}
	return 0;
}

static int check_complete(struct parse_ctx *c, const yaml_node_t *root)
{
	for (size_t i = 0; i < NFIELDS; i++) {
		if (c->seen[i])
			continue;
		const char *dot = strchr(fields[i].path, '.');
		if (dot && c->section_seen[i])
			return fail(c->diag, c->origin, -EINVAL, &c->section_mark[i],
			            "missing field '%s' in section '%.*s'", fields[i].path,
			            (int)(dot - fields[i].path), fields[i].path);
		return fail(c->diag, c->origin, -EINVAL, &root->start_mark, "missing field '%s'",
		            fields[i].path);
	}
	return 0;
}

static int yaml_failure(const yaml_parser_t *parser, const char *origin, struct diag_report *diag)
{
	if (parser->error == YAML_MEMORY_ERROR)
		return fail(diag, origin, -ENOMEM, NULL, "out of memory");
	const yaml_mark_t *mark = &parser->problem_mark;
	if (parser->context)
		return fail(diag, origin, -EINVAL, mark, "bad YAML: %s %s",
		            parser->problem ? parser->problem : "error", parser->context);
	return fail(diag, origin, -EINVAL, mark, "bad YAML: %s",
	            parser->problem ? parser->problem : "error");
}

int sim_cost_profile_parse(const char *text, size_t len, const char *origin,
                           struct sim_cost_profile *out, struct diag_report *diag)
{
	if (diag)
		memset(diag, 0, sizeof(*diag));
	if (!origin)
		origin = "<profile>";
	if (!text || !out)
		return fail(diag, origin, -EINVAL, NULL, "no profile text");
	if (len > PROFILE_MAX_BYTES)
		return fail(diag, origin, -EINVAL, NULL, "profile larger than %u bytes",
		            PROFILE_MAX_BYTES);

	yaml_parser_t parser;
	yaml_document_t doc;
	if (!yaml_parser_initialize(&parser))
		return fail(diag, origin, -ENOMEM, NULL, "out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		int rc = yaml_failure(&parser, origin, diag);
		yaml_parser_delete(&parser);
		return rc;
	}

	struct sim_cost_profile p;
	memset(&p, 0, sizeof(p));
	struct parse_ctx c = {.origin = origin, .doc = &doc, .out = &p, .diag = diag};
	int rc;
	const yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (!root) {
		rc = fail(diag, origin, -EINVAL, NULL, "empty profile");
	} else if (root->type != YAML_MAPPING_NODE) {
		rc = fail(diag, origin, -EINVAL, &root->start_mark,
		          "a profile is a mapping of keys to values");
	} else {
		rc = walk_mapping(&c, root, "", 0);
		if (!rc)
			rc = check_complete(&c, root);
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (rc)
		return rc;

	p.chain_ns[SIM_ORDER_HOST] = p.latency_ns[SIM_VERB_NOP];
	*out = p;
	return 0;
}

int sim_cost_profile_load_file(const char *path, struct sim_cost_profile *out,
                               struct diag_report *diag)
{
	if (diag)
		memset(diag, 0, sizeof(*diag));
	if (!path)
		return fail(diag, "<profile>", -EINVAL, NULL, "no path");
	FILE *f = fopen(path, "rb");
	if (!f) {
		int e = errno;
		return fail(diag, path, -e, NULL, "cannot open: %s", strerror(e));
	}
	char *buf = malloc(PROFILE_MAX_BYTES + 1);
	if (!buf) {
		fclose(f);
		return fail(diag, path, -ENOMEM, NULL, "out of memory");
	}
	size_t n = fread(buf, 1, PROFILE_MAX_BYTES + 1, f);
	int rd_err = ferror(f);
	fclose(f);
	int rc;
	if (rd_err)
		rc = fail(diag, path, -EIO, NULL, "read error");
	else
		rc = sim_cost_profile_parse(buf, n, path, out, diag);
	free(buf);
	return rc;
}
