/* SPDX-License-Identifier: MIT */
/*
 * prismd/config.c - reads server.yaml into struct prismd_config.
 *
 * Owns: the YAML walk (libyaml document API, for line/column marks), one
 * handler per key from a table, value parsing (sizes with suffixes,
 * host:port, access lists), the first-error message with the line and a
 * caret (util/caret.h), and the place of each program and region for later
 * reports.
 * Must not: touch devices, files other than the config itself, or print.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include <prism/prism.h>

#include "util/caret.h"
#include "util/size.h"
#include "tools/prismd/config.h"

struct cfg_ctx {
	yaml_document_t *doc;
	const char *origin;
	const char *text; /* the configuration, for the line under an error */
	size_t len;
	char *err;
	size_t errlen;
	struct prismd_config *cfg;
};

/*
 * "origin:line:col: sev: msg" (sev: error or note), then the line and a
 * caret under @pos (util/caret.h); without a position, "origin: sev: msg".  The message
 * quotes values from the file: control bytes in it are written as \n, \t
 * or \xHH so that it stays one line.
 */
__attribute__((format(printf, 7, 0))) static void render(FILE *out, const char *origin,
                                                         const char *text, size_t len,
                                                         struct prismd_pos pos, const char *sev,
                                                         const char *fmt, va_list ap)
{
	char msg[512];

	if (pos.line)
		fprintf(out, "%s:%u:%u: %s: ", origin, pos.line, pos.col, sev);
	else
		fprintf(out, "%s: %s: ", origin, sev);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
		if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\x%02x", *p);
		else
			fputc(*p, out);
	}
	fputc('\n', out);
	if (pos.line)
		caret_print(out, text, len, pos.line, pos.col, pos.len);
}

/* The place of node @n: its first line and column, and its width when it
 * stays on that line (a scalar, a flow mapping). */
static struct prismd_pos node_pos(const yaml_node_t *n)
{
	struct prismd_pos pos = {(unsigned)n->start_mark.line + 1,
	                         (unsigned)n->start_mark.column + 1, 1};

	if (n->end_mark.line == n->start_mark.line && n->end_mark.column > n->start_mark.column)
		pos.len = (unsigned)(n->end_mark.column - n->start_mark.column);
	return pos;
}

/* The first error, rendered into c->err (cut at errlen; without its last
 * newline). */
__attribute__((format(printf, 3, 0))) static int vfail_at(struct cfg_ctx *c, struct prismd_pos pos,
                                                          const char *fmt, va_list ap)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (f)
		render(f, c->origin, c->text, c->len, pos, "error", fmt, ap);
	if (!f || fclose(f) || !buf) {
		free(buf);
		snprintf(c->err, c->errlen, "%s: error: out of memory while reporting an error",
		         c->origin);
		return -ENOMEM;
	}
	if (n && buf[n - 1] == '\n')
		buf[--n] = 0;
	snprintf(c->err, c->errlen, "%s", buf);
	free(buf);
	return -PRISM_E_CONFIG;
}

__attribute__((format(printf, 3, 4))) static int fail_at(struct cfg_ctx *c, struct prismd_pos pos,
                                                         const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail_at(c, pos, fmt, ap);
	va_end(ap);
	return rc;
}

__attribute__((format(printf, 3, 4))) static int fail(struct cfg_ctx *c, const yaml_node_t *n,
                                                      const char *fmt, ...)
{
	struct prismd_pos pos = n ? node_pos(n) : (struct prismd_pos){0, 0, 0};
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail_at(c, pos, fmt, ap);
	va_end(ap);
	return rc;
}

static const char *scalar(struct cfg_ctx *c, const yaml_node_t *n, const char *key)
{
	if (n->type != YAML_SCALAR_NODE) {
		fail(c, n, "'%s' must be a scalar", key);
		return NULL;
	}
	return (const char *)n->data.scalar.value;
}

static int get_string(struct cfg_ctx *c, const yaml_node_t *n, const char *key, char **out)
{
	const char *s = scalar(c, n, key);

	if (!s)
		return -PRISM_E_CONFIG;
	if (!*s)
		return fail(c, n, "'%s' must not be empty", key);
	free(*out);
	*out = strdup(s);
	return *out ? 0 : -ENOMEM;
}

static int get_bool(struct cfg_ctx *c, const yaml_node_t *n, const char *key, bool *out)
{
	const char *s = scalar(c, n, key);

	if (!s)
		return -PRISM_E_CONFIG;
	if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "on"))
		*out = true;
	else if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "off"))
		*out = false;
	else
		return fail(c, n, "'%s' must be true or false, not '%s'", key, s);
	return 0;
}

/* A size in the syntax .prism sources use too (util/size.h): 4096, 0x1000,
 * 4K, 4 KiB, 1M, 16 MiB, ... at most @max. */
static int get_size(struct cfg_ctx *c, const yaml_node_t *n, const char *key, uint64_t max,
                    uint64_t *out)
{
	const char *s = scalar(c, n, key);
	uint64_t v;

	if (!s)
		return -PRISM_E_CONFIG;
	switch (core_size_parse(s, strlen(s), &v)) {
	case CORE_SIZE_OK:
		break;
	case CORE_SIZE_RANGE:
		return fail(c, n, "'%s': '%s' is out of range", key, s);
	default:
		return fail(c, n, "'%s': '%s' is not a size (digits, then optionally %s)", key, s,
		            CORE_SIZE_UNITS);
	}
	if (v > max)
		return fail(c, n, "'%s': %s is larger than %llu", key, s, (unsigned long long)max);
	*out = v;
	return 0;
}

/* A count of 1 to @max (get_size's syntax). */
static int get_count(struct cfg_ctx *c, const yaml_node_t *n, const char *key, uint64_t max,
                     unsigned *out)
{
	uint64_t v;
	int err = get_size(c, n, key, max, &v);

	if (!err && !v)
		return fail(c, n, "'%s' must be at least 1", key);
	if (!err)
		*out = (unsigned)v;
	return err;
}

/* A Unix socket's path: at most 107 bytes (sockaddr_un's sun_path). */
static int get_socket_path(struct cfg_ctx *c, const yaml_node_t *n, const char *key, char **out)
{
	int err = get_string(c, n, key, out);

	if (!err && strlen(*out) >= 108)
		return fail(c, n, "'%s': a socket path is at most 107 bytes", key);
	return err;
}

int prismd_parse_hostport(const char *s, char **host, uint16_t *port)
{
	const char *colon = strrchr(s, ':');
	const char *p = colon ? colon + 1 : s;
	unsigned long v;
	char *end;

	*host = NULL;
	errno = 0;
	v = strtoul(p, &end, 10);
	if (!*p || *end || errno || v > 65535)
		return -EINVAL;
	if (colon && colon != s) {
		*host = strndup(s, (size_t)(colon - s));
		if (!*host)
			return -ENOMEM;
	}
	*port = (uint16_t)v;
	return 0;
}

/* ---- top-level keys ---------------------------------------------------- */

static int k_device(struct cfg_ctx *c, yaml_node_t *n)
{
	return get_string(c, n, "device", &c->cfg->device);
}

static int k_profile(struct cfg_ctx *c, yaml_node_t *n)
{
	return get_string(c, n, "profile", &c->cfg->profile);
}

static int k_firmware(struct cfg_ctx *c, yaml_node_t *n)
{
	int err = get_string(c, n, "firmware", &c->cfg->firmware);

	if (!err && strcmp(c->cfg->firmware, "relaxed") && strcmp(c->cfg->firmware, "strict"))
		return fail(c, n, "'firmware' must be relaxed or strict, not '%s'",
		            c->cfg->firmware);
	return err;
}

static int k_listen(struct cfg_ctx *c, yaml_node_t *n)
{
	const char *s = scalar(c, n, "listen");
	int err;

	if (!s)
		return -PRISM_E_CONFIG;
	free(c->cfg->host);
	c->cfg->host = NULL;
	uint16_t port;

	err = prismd_parse_hostport(s, &c->cfg->host, &port);
	if (err == -EINVAL)
		return fail(c, n, "'listen' must be host:port or port, not '%s'", s);
	c->cfg->port = port ? port : -1;
	return err;
}

static int k_control(struct cfg_ctx *c, yaml_node_t *n)
{
	return get_socket_path(c, n, "control", &c->cfg->control);
}

static int k_rearm(struct cfg_ctx *c, yaml_node_t *n)
{
	static const char *const names[] = {
	    [PRISM_REARM_AUTO] = "auto",
	    [PRISM_REARM_CPU] = "cpu",
	    [PRISM_REARM_NIC] = "nic",
	};
	const char *s = scalar(c, n, "rearm");

	if (!s)
		return -PRISM_E_CONFIG;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i])) {
			c->cfg->rearm = (int)i;
			return 0;
		}
	}
	return fail(c, n, "'rearm' must be auto, cpu or nic, not '%s'", s);
}

static int k_max_conns(struct cfg_ctx *c, yaml_node_t *n)
{
	return get_count(c, n, "max-connections", 1u << 20, &c->cfg->max_conns);
}

static int k_nic_threads(struct cfg_ctx *c, yaml_node_t *n)
{
	return get_count(c, n, "nic-threads", PRISMD_MAX_NIC_THREADS, &c->cfg->nic_threads);
}

static int k_allow_post(struct cfg_ctx *c, yaml_node_t *n)
{
	return get_bool(c, n, "allow-post", &c->cfg->allow_post);
}

static int k_post_socket(struct cfg_ctx *c, yaml_node_t *n)
{
	return get_socket_path(c, n, "post-socket", &c->cfg->post_socket);
}

static int k_post_uids(struct cfg_ctx *c, yaml_node_t *n)
{
	struct prismd_config *cfg = c->cfg;

	if (n->type != YAML_SEQUENCE_NODE)
		return fail(c, n, "'post-uids' must be a list of user ids");
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		yaml_node_t *e = yaml_document_get_node(c->doc, *it);
		uint64_t v;
		int err;

		if (cfg->n_post_uids == PRISMD_MAX_POST_UIDS)
			return fail(c, e, "more than %d post-uids", PRISMD_MAX_POST_UIDS);
		err = get_size(c, e, "post-uids", UINT32_MAX - 1, &v);
		if (err)
			return err;
		cfg->post_uids[cfg->n_post_uids++] = (uint32_t)v;
	}
	if (!cfg->n_post_uids)
		return fail(c, n, "'post-uids' is empty (leave it out for prismd's own uid)");
	return 0;
}

static int k_max_conns_per_peer(struct cfg_ctx *c, yaml_node_t *n)
{
	return get_count(c, n, "max-connections-per-peer", 1u << 20, &c->cfg->max_conns_per_peer);
}

/* ---- regions ------------------------------------------------------------ */

static const struct {
	const char *name;
	unsigned bit;
} access_names[] = {
    {"read", PRISM_ACCESS_READ},
    {"write", PRISM_ACCESS_WRITE},
    {"atomic", PRISM_ACCESS_ATOMIC},
};

static int get_access(struct cfg_ctx *c, yaml_node_t *n, unsigned *out)
{
	*out = 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return fail(c, n, "'access' must be a list such as [read, write, atomic]");
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		yaml_node_t *e = yaml_document_get_node(c->doc, *it);
		const char *s = scalar(c, e, "access");
		size_t i;

		if (!s)
			return -PRISM_E_CONFIG;
		for (i = 0; i < sizeof(access_names) / sizeof(access_names[0]); i++)
			if (!strcmp(s, access_names[i].name))
				break;
		if (i == sizeof(access_names) / sizeof(access_names[0]))
			return fail(c, e, "unknown access '%s' (read, write or atomic)", s);
		*out |= access_names[i].bit;
	}
	return 0;
}

/* The keys of a region entry, each allowed once. */
enum region_key { RK_NAME, RK_SIZE, RK_ACCESS, RK_FILE, RK_SHARED, RK__COUNT };

static const char *const region_keys[RK__COUNT] = {
    [RK_NAME] = "name",
    [RK_SIZE] = "size",
    [RK_ACCESS] = "access",
    [RK_FILE] = "file",
    [RK_SHARED] = "shared-by-app",
};

/*
 * One region.  A key given twice, and 'file' with 'shared-by-app' (the
 * contents come from one or the other), are errors at the second key.
 * 'size' may be left out with 'file': the file's length.
 */
static int region_entry(struct cfg_ctx *c, yaml_node_t *n)
{
	struct prismd_config *cfg = c->cfg;
	yaml_node_t *seen[RK__COUNT] = {0};
	struct prismd_region_cfg *r;
	int err;

	if (n->type != YAML_MAPPING_NODE)
		return fail(c, n, "each region must be a mapping with name and size");
	if (cfg->n_regions == PRISMD_MAX_REGIONS)
		return fail(c, n, "more than %d regions", PRISMD_MAX_REGIONS);
	r = &cfg->regions[cfg->n_regions++];
	r->access = PRISM_ACCESS_READ;
	r->pos = node_pos(n);
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
		const char *key = scalar(c, k, "key");
		unsigned rk;

		if (!key)
			return -PRISM_E_CONFIG;
		for (rk = 0; rk < RK__COUNT && strcmp(key, region_keys[rk]); rk++)
			;
		if (rk == RK__COUNT)
			return fail(c, k,
			            "unknown region key '%s' (name, size, access, file, "
			            "shared-by-app)",
			            key);
		if (seen[rk])
			return fail(c, k, "region key '%s' given twice (first at line %zu)", key,
			            seen[rk]->start_mark.line + 1);
		seen[rk] = k;
		if ((rk == RK_FILE && seen[RK_SHARED]) || (rk == RK_SHARED && seen[RK_FILE]))
			return fail(
			    c, k,
			    "'file' and 'shared-by-app' contradict each other (the contents "
			    "come from a file or from the application, not both)");
		switch (rk) {
		case RK_NAME:
			err = get_string(c, v, key, &r->name);
			break;
		case RK_SIZE:
			err = get_size(c, v, key, 1ull << 40, &r->size);
			if (!err && !r->size)
				err = fail(c, v, "'size' must not be 0");
			break;
		case RK_ACCESS:
			err = get_access(c, v, &r->access);
			break;
		case RK_FILE:
			r->file_pos = node_pos(v);
			err = get_string(c, v, key, &r->file);
			break;
		default:
			err = get_bool(c, v, key, &r->shared_by_app);
			break;
		}
		if (err)
			return err;
	}
	if (!r->name)
		return fail(c, n, "region without a name");
	for (size_t i = 0; i + 1 < cfg->n_regions; i++)
		if (!strcmp(cfg->regions[i].name, r->name))
			return fail(c, n, "region '%s' declared twice", r->name);
	if (!r->size && !r->file)
		return fail(c, n, "region '%s' needs a size (or a file to take it from)", r->name);
	return 0;
}

static int k_regions(struct cfg_ctx *c, yaml_node_t *n)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return fail(c, n, "'regions' must be a list");
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		int err = region_entry(c, yaml_document_get_node(c->doc, *it));

		if (err)
			return err;
	}
	return 0;
}

static int k_programs(struct cfg_ctx *c, yaml_node_t *n)
{
	struct prismd_config *cfg = c->cfg;

	if (n->type != YAML_SEQUENCE_NODE)
		return fail(c, n, "'programs' must be a list of .chain paths");
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		yaml_node_t *e = yaml_document_get_node(c->doc, *it);
		char *path = NULL;
		int err;

		if (cfg->n_programs == PRISMD_MAX_PROGRAMS)
			return fail(c, e, "more than %d programs", PRISMD_MAX_PROGRAMS);
		err = get_string(c, e, "programs", &path);
		if (err)
			return err;
		cfg->program_pos[cfg->n_programs] = node_pos(e);
		cfg->programs[cfg->n_programs++] = path;
	}
	return 0;
}

static const struct {
	const char *key;
	int (*fn)(struct cfg_ctx *c, yaml_node_t *n);
} top_keys[] = {
    {"device", k_device},
    {"profile", k_profile},
    {"firmware", k_firmware},
    {"listen", k_listen},
    {"control", k_control},
    {"rearm", k_rearm},
    {"max-connections", k_max_conns},
    {"nic-threads", k_nic_threads},
    {"allow-post", k_allow_post},
    {"post-socket", k_post_socket},
    {"post-uids", k_post_uids},
    {"max-connections-per-peer", k_max_conns_per_peer},
    {"regions", k_regions},
    {"programs", k_programs},
};

#define N_TOP (sizeof(top_keys) / sizeof(top_keys[0]))

static int walk(struct cfg_ctx *c)
{
	yaml_node_t *root = yaml_document_get_root_node(c->doc);
	bool seen[N_TOP] = {0};

	if (!root)
		return fail(c, NULL, "empty configuration");
	if (root->type != YAML_MAPPING_NODE)
		return fail(c, root, "the configuration must be a mapping of keys");
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
		const char *key = scalar(c, k, "key");
		size_t i;
		int err;

		if (!key)
			return -PRISM_E_CONFIG;
		for (i = 0; i < N_TOP; i++)
			if (!strcmp(key, top_keys[i].key))
				break;
		if (i == N_TOP)
			return fail(
			    c, k,
			    "unknown key '%s' (device, profile, firmware, listen, control, "
			    "rearm, max-connections, max-connections-per-peer, nic-threads, "
			    "allow-post, post-socket, regions, programs)",
			    key);
		if (seen[i])
			return fail(c, k, "key '%s' given twice", key);
		seen[i] = true;
		err = top_keys[i].fn(c, v);
		if (err)
			return err;
	}
	if (c->cfg->allow_post && !c->cfg->post_socket)
		return fail(c, root,
		            "'allow-post' needs 'post-socket' (programs are installed only over a "
		            "local socket)");
	return 0;
}

static int set_defaults(struct prismd_config *cfg)
{
	if (!cfg->device && !(cfg->device = strdup("sim")))
		return -ENOMEM;
	if (!cfg->profile && !(cfg->profile = strdup("cx5")))
		return -ENOMEM;
	if (!cfg->firmware && !(cfg->firmware = strdup("relaxed")))
		return -ENOMEM;
	if (!cfg->port)
		cfg->port = 18515;
	if (!cfg->max_conns)
		cfg->max_conns = 4096;
	if (!cfg->nic_threads)
		cfg->nic_threads = 1;
	return 0;
}

/*
 * libyaml refused the text.  A scanner or parser error has a mark; a reader
 * error (bytes that are not UTF-8, a NUL) has only a byte offset: its line
 * and column (in characters, as libyaml's marks) are counted here.
 */
static int syntax_error(struct cfg_ctx *c, const yaml_parser_t *parser)
{
	struct prismd_pos pos = {(unsigned)parser->problem_mark.line + 1,
	                         (unsigned)parser->problem_mark.column + 1, 1};
	const char *what = parser->problem ? parser->problem : "YAML syntax error";

	if (parser->error != YAML_READER_ERROR)
		return fail_at(c, pos, "%s", what);
	pos.line = pos.col = 1;
	for (size_t i = 0; i < parser->problem_offset && i < c->len; i++) {
		if (c->text[i] == '\n') {
			pos.line++;
			pos.col = 1;
		} else if (((unsigned char)c->text[i] & 0xc0) != 0x80) {
			pos.col++; /* not a UTF-8 continuation byte: a new character */
		}
	}
	if (parser->problem_value >= 0)
		return fail_at(c, pos, "%s (byte 0x%02x)", what, (unsigned)parser->problem_value);
	return fail_at(c, pos, "%s", what);
}

/* A copy of the text and its name, for reports that come after the parse
 * (prismd_config_report). */
static int keep_text(struct prismd_config *cfg, const char *text, size_t len, const char *origin)
{
	cfg->origin = strdup(origin);
	cfg->text = malloc(len ? len : 1);
	if (!cfg->origin || !cfg->text)
		return -ENOMEM;
	if (len)
		memcpy(cfg->text, text, len);
	cfg->text_len = len;
	return 0;
}

/* render() at @pos of the kept text. */
__attribute__((format(printf, 5, 0))) static void render_kept(const struct prismd_config *cfg,
                                                              struct prismd_pos pos, FILE *out,
                                                              const char *sev, const char *fmt,
                                                              va_list ap)
{
	render(out, cfg->origin ? cfg->origin : "<config>", cfg->text, cfg->text_len, pos, sev, fmt,
	       ap);
}

void prismd_config_report(const struct prismd_config *cfg, struct prismd_pos pos, FILE *out,
                          const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	render_kept(cfg, pos, out, "error", fmt, ap);
	va_end(ap);
}

void prismd_config_note(const struct prismd_config *cfg, struct prismd_pos pos, FILE *out,
                        const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	render_kept(cfg, pos, out, "note", fmt, ap);
	va_end(ap);
}

const char *prismd_access_words(unsigned access, char *buf, size_t n)
{
	size_t used = 0;

	if (!n)
		return buf;
	buf[0] = 0;
	for (size_t i = 0; i < sizeof(access_names) / sizeof(access_names[0]); i++) {
		if (!(access & access_names[i].bit))
			continue;
		int w =
		    snprintf(buf + used, n - used, "%s%s", used ? ", " : "", access_names[i].name);

		if (w < 0 || (size_t)w >= n - used) {
			buf[used] = 0; /* whole words only */
			break;
		}
		used += (size_t)w;
	}
	if (!access)
		snprintf(buf, n, "none");
	return buf;
}

int prismd_config_parse(const char *text, size_t len, const char *origin, struct prismd_config *cfg,
                        char *err, size_t errlen)
{
	struct cfg_ctx c = {
	    .origin = origin, .text = text, .len = len, .err = err, .errlen = errlen, .cfg = cfg};
	yaml_parser_t parser;
	yaml_document_t doc;
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	if (errlen)
		err[0] = 0;
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		rc = syntax_error(&c, &parser);
		yaml_parser_delete(&parser);
		return rc;
	}
	c.doc = &doc;
	rc = walk(&c);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (!rc)
		rc = set_defaults(cfg);
	if (!rc)
		rc = keep_text(cfg, text, len, origin);
	if (rc)
		prismd_config_free(cfg);
	return rc;
}

int prismd_config_load(const char *path, struct prismd_config *cfg, char *err, size_t errlen)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "%s: error: %s", path, strerror(-rc));
		return rc;
	}
	for (;;) {
		if (len == cap) {
			char *nb;

			if (cap >= (1u << 20)) {
				if (f != stdin)
					fclose(f);
				free(buf);
				snprintf(err, errlen, "%s: error: larger than 1 MiB", path);
				return -PRISM_E_CONFIG;
			}
			cap = cap ? cap * 2 : 4096;
			nb = realloc(buf, cap);
			if (!nb) {
				if (f != stdin)
					fclose(f);
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		size_t got = fread(buf + len, 1, cap - len, f);

		if (!got)
			break;
		len += got;
	}
	rc = ferror(f) ? -(errno ? errno : EIO) : 0;
	if (f != stdin)
		fclose(f);
	if (rc) { /* a directory, a device error */
		snprintf(err, errlen, "%s: error: %s", path, strerror(-rc));
		free(buf);
		return rc;
	}
	rc = prismd_config_parse(buf, len, strcmp(path, "-") ? path : "<stdin>", cfg, err, errlen);
	free(buf);
	return rc;
}

void prismd_config_free(struct prismd_config *cfg)
{
	free(cfg->device);
	free(cfg->profile);
	free(cfg->firmware);
	free(cfg->host);
	free(cfg->control);
	free(cfg->post_socket);
	for (size_t i = 0; i < cfg->n_regions; i++) {
		free(cfg->regions[i].name);
		free(cfg->regions[i].file);
	}
	for (size_t i = 0; i < cfg->n_programs; i++)
		free(cfg->programs[i]);
	free(cfg->origin);
	free(cfg->text);
	memset(cfg, 0, sizeof(*cfg));
}
