/* SPDX-License-Identifier: MIT */
/*
 * chain/chainobj_read.c - the YAML reader of chain objects (schemas 1, 2).
 *
 * Owns: chainobj_read_mem / chainobj_read_file.  libyaml parses the text
 * into a node tree; this file walks it against the schema (every mapping
 * has a fixed key set: unknown, duplicate and missing keys are errors;
 * every scalar has a type and a range), builds a struct chainobj with the
 * builder helpers, recording each element's line, then runs
 * chainobj_validate() and checks the content checksum.  Every rejection
 * names the line and the field ("line 42: queues[1].sq[3].hex: ...").
 *
 * Must not: trust anything in the text (sizes, counts, indices, hex), read
 * past the buffer, crash, leak, or print.  Anchors and aliases are
 * rejected: a compiled object never needs them and they would let one node
 * stand for many.
 */
#include "chain/chainobj.h"
#include "chain/chainobj_diag.h"
#include "chain/chainobj_yaml.h"
#include "util/hex.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include <prism/wqe.h>

#define READ_MAX_BYTES (16u << 20) /* largest object text accepted */

struct rctx {
	yaml_document_t *doc;
	struct diag_report *d;
	struct chainobj *o;
	uint32_t version; /* prism-chain: of the text being read */
};

static unsigned node_line(const yaml_node_t *n)
{
	return n ? (unsigned)n->start_mark.line + 1 : 0;
}

static unsigned node_col(const yaml_node_t *n)
{
	return n ? (unsigned)n->start_mark.column + 1 : 0;
}

#define RFAIL(r, kind, node, path, ...)                                                            \
	chainobj_diag_set((r)->d, kind, node_line(node), node_col(node), path, __VA_ARGS__)
#define NOMEM(r) chainobj_diag_set((r)->d, CHAINOBJ_E_NOMEM, 0, 0, "", "out of memory")

/* ---- node access ------------------------------------------------------- */

static yaml_node_t *node_at(struct rctx *r, yaml_node_item_t id)
{
	return yaml_document_get_node(r->doc, id);
}

static const char *type_word(const yaml_node_t *n)
{
	switch (n ? n->type : YAML_NO_NODE) {
	case YAML_SCALAR_NODE:
		return "a scalar";
	case YAML_SEQUENCE_NODE:
		return "a sequence";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

/* The key set of one mapping of the schema. */
struct key {
	const char *name;
	bool required;
};

#define MAX_KEYS 16

/*
 * Match the keys of mapping @n against @keys (@nk of them); vals[i] gets the
 * value node of keys[i] or NULL.  Unknown, duplicate, non-scalar and missing
 * required keys are errors.
 */
static int map_fields(struct rctx *r, yaml_node_t *n, const char *path, const struct key *keys,
                      size_t nk, yaml_node_t **vals)
{
	memset(vals, 0, nk * sizeof(*vals));
	if (!n || n->type != YAML_MAPPING_NODE)
		return RFAIL(r, CHAINOBJ_E_TYPE, n, path, "expected a mapping, found %s",
		             type_word(n));
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = node_at(r, p->key);
		size_t i;

		if (!k || k->type != YAML_SCALAR_NODE)
			return RFAIL(r, CHAINOBJ_E_TYPE, k ? k : n, path,
			             "expected a scalar key, found %s", type_word(k));
		for (i = 0; i < nk; i++)
			if (strlen(keys[i].name) == k->data.scalar.length &&
			    !memcmp(keys[i].name, k->data.scalar.value, k->data.scalar.length))
				break;
		if (i == nk)
			return RFAIL(r, CHAINOBJ_E_UNKNOWN_KEY, k, path, "unknown key '%.*s'",
			             (int)(k->data.scalar.length > 40 ? 40 : k->data.scalar.length),
			             (const char *)k->data.scalar.value);
		if (vals[i])
			return RFAIL(r, CHAINOBJ_E_DUPLICATE, k, path, "duplicate key '%s'",
			             keys[i].name);
		vals[i] = node_at(r, p->value);
		if (!vals[i])
			return RFAIL(r, CHAINOBJ_E_SYNTAX, k, path, "key '%s' has no value",
			             keys[i].name);
	}
	for (size_t i = 0; i < nk; i++)
		if (keys[i].required && !vals[i])
			return RFAIL(r, CHAINOBJ_E_MISSING_KEY, n, path, "missing key '%s'",
			             keys[i].name);
	return 0;
}

/* Scalar text (not NUL-terminated) of @n, or an error. */
static int scalar(struct rctx *r, yaml_node_t *n, const char *path, const char **s, size_t *len)
{
	*s = "";
	*len = 0;
	if (!n || n->type != YAML_SCALAR_NODE)
		return RFAIL(r, CHAINOBJ_E_TYPE, n, path, "expected a scalar, found %s",
		             type_word(n));
	*s = (const char *)n->data.scalar.value;
	*len = n->data.scalar.length;
	return 0;
}

/* Unsigned integer: decimal or 0x-hex, no sign, no spaces. */
static int read_u64(struct rctx *r, yaml_node_t *n, const char *path, uint64_t min, uint64_t max,
                    uint64_t *out)
{
	const char *s;
	size_t len, i = 0;
	unsigned base = 10;
	uint64_t v = 0;
	int rc = scalar(r, n, path, &s, &len);

	if (rc)
		return rc;
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		return RFAIL(r, CHAINOBJ_E_TYPE, n, path, "expected an unsigned integer");
	for (; i < len; i++) {
		unsigned dgt;
		char c = s[i];

		if (c >= '0' && c <= '9')
			dgt = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			dgt = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			dgt = (unsigned)(c - 'A' + 10);
		else
			return RFAIL(r, CHAINOBJ_E_TYPE, n, path,
			             "expected an unsigned integer, found '%.*s'",
			             (int)(len > 40 ? 40 : len), s);
		if (v > (UINT64_MAX - dgt) / base)
			return RFAIL(r, CHAINOBJ_E_OVERFLOW, n, path, "'%.*s' overflows 64 bits",
			             (int)(len > 40 ? 40 : len), s);
		v = v * base + dgt;
	}
	if (v < min || v > max)
		return RFAIL(r, CHAINOBJ_E_RANGE, n, path,
		             "%" PRIu64 " outside %" PRIu64 "..%" PRIu64, v, min, max);
	*out = v;
	return 0;
}

static int read_u32(struct rctx *r, yaml_node_t *n, const char *path, uint32_t min, uint32_t max,
                    uint32_t *out)
{
	uint64_t v = 0;
	int rc = read_u64(r, n, path, min, max, &v);

	if (!rc)
		*out = (uint32_t)v;
	return rc;
}

/* Optional u32: absent keeps *out as is. */
static int opt_u32(struct rctx *r, yaml_node_t *n, const char *path, uint32_t max, uint32_t *out)
{
	return n ? read_u32(r, n, path, 0, max, out) : 0;
}

static int read_bool(struct rctx *r, yaml_node_t *n, const char *path, bool *out)
{
	const char *s;
	size_t len;
	int rc = scalar(r, n, path, &s, &len);

	if (rc)
		return rc;
	if (len == 4 && !memcmp(s, "true", 4))
		*out = true;
	else if (len == 5 && !memcmp(s, "false", 5))
		*out = false;
	else
		return RFAIL(r, CHAINOBJ_E_TYPE, n, path, "expected true or false");
	return 0;
}

static int read_keyword(struct rctx *r, yaml_node_t *n, const char *path, enum chainobj_kwset set,
                        int *out)
{
	const char *s;
	size_t len;
	int rc = scalar(r, n, path, &s, &len), v;

	if (rc)
		return rc;
	v = chainobj_yaml_keyword(set, s, len);
	if (v < 0)
		return RFAIL(r, CHAINOBJ_E_RANGE, n, path, "unknown value '%.*s' (expected %s)",
		             (int)(len > 40 ? 40 : len), s, chainobj_yaml_keywords(set));
	*out = v;
	return 0;
}

/* An identifier, copied into @buf (CHAINOBJ_NAME_MAX + 1 bytes). */
static int read_name(struct rctx *r, yaml_node_t *n, const char *path, char *buf)
{
	const char *s;
	size_t len;
	int rc = scalar(r, n, path, &s, &len);

	if (rc)
		return rc;
	if (len > CHAINOBJ_NAME_MAX || memchr(s, 0, len))
		return RFAIL(r, CHAINOBJ_E_NAME, n, path, "invalid name (at most %u characters)",
		             CHAINOBJ_NAME_MAX);
	memcpy(buf, s, len);
	buf[len] = 0;
	if (!chainobj_name_ok(buf))
		return RFAIL(r, CHAINOBJ_E_NAME, n, path, "invalid name '%s'", buf);
	return 0;
}

/* A name that must refer to an element read earlier. */
enum ref_kind { REF_QUEUE, REF_CQ, REF_REGION };

static int read_ref(struct rctx *r, yaml_node_t *n, const char *path, enum ref_kind kind,
                    uint32_t *out)
{
	static const char *const what[] = {"queue", "CQ", "region"};
	char name[CHAINOBJ_NAME_MAX + 1];
	int rc = read_name(r, n, path, name), idx;

	if (rc)
		return rc;
	idx = kind == REF_QUEUE ? chainobj_find_queue(r->o, name)
	      : kind == REF_CQ  ? chainobj_find_cq(r->o, name)
	                        : chainobj_find_region(r->o, name);
	if (idx < 0)
		return RFAIL(r, CHAINOBJ_E_NAME, n, path, "no %s named '%s'", what[kind], name);
	*out = (uint32_t)idx;
	return 0;
}

/* A sequence of keywords of @set, each a bit index, none twice. */
static int read_bits(struct rctx *r, yaml_node_t *n, const char *path, enum chainobj_kwset set,
                     uint32_t *out)
{
	*out = 0;
	if (!n || n->type != YAML_SEQUENCE_NODE)
		return RFAIL(r, CHAINOBJ_E_TYPE, n, path, "expected a sequence, found %s",
		             type_word(n));
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		int bit, rc = read_keyword(r, node_at(r, *it), path, set, &bit);

		if (rc)
			return rc;
		if (*out & (1u << bit))
			return RFAIL(r, CHAINOBJ_E_DUPLICATE, node_at(r, *it), path,
			             "'%s' listed twice", chainobj_yaml_word(set, bit));
		*out |= 1u << bit;
	}
	return 0;
}

static int read_access(struct rctx *r, yaml_node_t *n, const char *path, uint32_t *out)
{
	return read_bits(r, n, path, CHAINOBJ_KW_ACCESS, out);
}

/* Iterate the items of an optional sequence: absent means empty. */
static int seq_items(struct rctx *r, yaml_node_t *n, const char *path, yaml_node_item_t **start,
                     yaml_node_item_t **top)
{
	*start = *top = NULL;
	if (!n)
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return RFAIL(r, CHAINOBJ_E_TYPE, n, path, "expected a sequence, found %s",
		             type_word(n));
	*start = n->data.sequence.items.start;
	*top = n->data.sequence.items.top;
	return 0;
}

/* Append the hex digits of one scalar (spaces allowed between bytes). */
static int hex_scalar(struct rctx *r, yaml_node_t *n, const char *path, uint8_t *buf, uint32_t cap,
                      uint32_t *len)
{
	const char *s;
	size_t slen;
	int rc = scalar(r, n, path, &s, &slen);

	if (rc)
		return rc;
	for (size_t i = 0; i < slen;) {
		int hi, lo;

		if (s[i] == ' ') {
			i++;
			continue;
		}
		hi = hex_digit(s[i]);
		lo = i + 1 < slen ? hex_digit(s[i + 1]) : -1;
		if (hi < 0 || lo < 0)
			return RFAIL(r, CHAINOBJ_E_TYPE, n, path,
			             "not hex bytes at character %zu of '%.*s'", i + 1,
			             (int)(slen > 48 ? 48 : slen), s);
		if (*len >= cap)
			return RFAIL(r, CHAINOBJ_E_RANGE, n, path, "more than %u bytes of WQE",
			             cap);
		buf[(*len)++] = (uint8_t)(hi << 4 | lo);
		i += 2;
	}
	return 0;
}

/* WQE bytes: a sequence of hex lines, or one hex scalar. */
static int read_hex(struct rctx *r, yaml_node_t *n, const char *path, uint8_t *buf, uint32_t cap,
                    uint32_t *len)
{
	*len = 0;
	if (n && n->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top; it++) {
			int rc = hex_scalar(r, node_at(r, *it), path, buf, cap, len);

			if (rc)
				return rc;
		}
	} else {
		int rc = hex_scalar(r, n, path, buf, cap, len);

		if (rc)
			return rc;
	}
	if (!*len)
		return RFAIL(r, CHAINOBJ_E_WQE, n, path, "no WQE bytes");
	return 0;
}

/* ---- sections ---------------------------------------------------------- */

static int read_regions(struct rctx *r, yaml_node_t *n)
{
	static const struct key keys[] = {{"name", true}, {"size", true}, {"access", true}};
	yaml_node_item_t *it, *top;
	char path[128];
	uint32_t i = 0;
	int rc = seq_items(r, n, "regions", &it, &top);

	for (; !rc && it < top; it++, i++) {
		yaml_node_t *m = node_at(r, *it), *v[3];
		char name[CHAINOBJ_NAME_MAX + 1];
		struct chainobj_region *reg;
		uint64_t size = 0;
		uint32_t acc = 0;

		if (i >= CHAINOBJ_MAX_REGIONS)
			return RFAIL(r, CHAINOBJ_E_RANGE, m, "regions", "more than %u regions",
			             CHAINOBJ_MAX_REGIONS);
		snprintf(path, sizeof(path), "regions[%u]", i);
		rc = map_fields(r, m, path, keys, 3, v);
		if (!rc)
			rc = read_name(r, v[0],
			               (snprintf(path, sizeof(path), "regions[%u].name", i), path),
			               name);
		if (!rc)
			rc = read_u64(r, v[1],
			              (snprintf(path, sizeof(path), "regions[%u].size", i), path),
			              1, CHAINOBJ_MAX_REGION_SIZE, &size);
		if (!rc)
			rc = read_access(
			    r, v[2], (snprintf(path, sizeof(path), "regions[%u].access", i), path),
			    &acc);
		if (rc)
			return rc;
		reg = chainobj_add_region(r->o, name, size, acc);
		if (!reg)
			return NOMEM(r);
		reg->line = node_line(m);
	}
	return rc;
}

static int read_cqs(struct rctx *r, yaml_node_t *n)
{
	static const struct key keys[] = {
	    {"name", true}, {"entries", true}, {"ignore-overrun", true}, {"per-invocation", true}};
	yaml_node_item_t *it, *top;
	char path[128];
	uint32_t i = 0;
	int rc = seq_items(r, n, "cqs", &it, &top);

	for (; !rc && it < top; it++, i++) {
		yaml_node_t *m = node_at(r, *it), *v[4];
		char name[CHAINOBJ_NAME_MAX + 1];
		struct chainobj_cq *cq;
		uint32_t entries = 0, per = 0;
		bool ign = false;

		if (i >= CHAINOBJ_MAX_CQS)
			return RFAIL(r, CHAINOBJ_E_RANGE, m, "cqs", "more than %u CQs",
			             CHAINOBJ_MAX_CQS);
		snprintf(path, sizeof(path), "cqs[%u]", i);
		rc = map_fields(r, m, path, keys, 4, v);
		if (!rc)
			rc = read_name(
			    r, v[0], (snprintf(path, sizeof(path), "cqs[%u].name", i), path), name);
		if (!rc)
			rc = read_u32(r, v[1],
			              (snprintf(path, sizeof(path), "cqs[%u].entries", i), path), 1,
			              CHAINOBJ_MAX_CQE, &entries);
		if (!rc)
			rc = read_bool(
			    r, v[2],
			    (snprintf(path, sizeof(path), "cqs[%u].ignore-overrun", i), path),
			    &ign);
		if (!rc)
			rc = read_u32(
			    r, v[3],
			    (snprintf(path, sizeof(path), "cqs[%u].per-invocation", i), path), 0,
			    CHAINOBJ_MAX_CQE, &per);
		if (rc)
			return rc;
		cq = chainobj_add_cq(r->o, name, entries);
		if (!cq)
			return NOMEM(r);
		cq->ignore_overrun = ign;
		cq->per_invocation = per;
		cq->line = node_line(m);
	}
	return rc;
}

static int read_wqes(struct rctx *r, yaml_node_t *n, uint32_t qi, enum chainobj_ring ring)
{
	static const struct key keys[] = {{"slot", true}, {"hex", true}, {"note", false}};
	const char *rn = chainobj_yaml_ring_name(ring);
	uint32_t cap = ring == CHAINOBJ_RING_SQ ? PRISM_WQE_MAX_BYTES
	                                        : CHAINOBJ_MAX_RQ_STRIDE_DS * PRISM_WQE_DS_BYTES;
	uint8_t buf[PRISM_WQE_MAX_BYTES];
	yaml_node_item_t *it, *top;
	char path[128];
	uint32_t i = 0;
	int rc;

	snprintf(path, sizeof(path), "queues[%u].%s", qi, rn);
	rc = seq_items(r, n, path, &it, &top);
	for (; !rc && it < top; it++, i++) {
		yaml_node_t *m = node_at(r, *it), *v[3];
		char note[CHAINOBJ_NOTE_MAX + 1];
		struct chainobj_wqe *w;
		uint32_t slot = 0, len = 0;

		if (i >= CHAINOBJ_MAX_RING)
			return RFAIL(r, CHAINOBJ_E_RING, m, path, "more than %u templates",
			             CHAINOBJ_MAX_RING);
		snprintf(path, sizeof(path), "queues[%u].%s[%u]", qi, rn, i);
		rc = map_fields(r, m, path, keys, 3, v);
		if (!rc)
			rc = read_u32(
			    r, v[0],
			    (snprintf(path, sizeof(path), "queues[%u].%s[%u].slot", qi, rn, i),
			     path),
			    0, CHAINOBJ_MAX_RING - 1, &slot);
		if (!rc)
			rc = read_hex(
			    r, v[1],
			    (snprintf(path, sizeof(path), "queues[%u].%s[%u].hex", qi, rn, i),
			     path),
			    buf, cap, &len);
		if (!rc && v[2]) {
			const char *s;
			size_t sl;

			snprintf(path, sizeof(path), "queues[%u].%s[%u].note", qi, rn, i);
			rc = scalar(r, v[2], path, &s, &sl);
			if (!rc && (sl > CHAINOBJ_NOTE_MAX || memchr(s, 0, sl)))
				rc = RFAIL(r, CHAINOBJ_E_RANGE, v[2], path,
				           "longer than %u bytes or not text", CHAINOBJ_NOTE_MAX);
			if (!rc) {
				memcpy(note, s, sl);
				note[sl] = 0;
				if (!chainobj_note_ok(note))
					rc = RFAIL(r, CHAINOBJ_E_RANGE, v[2], path,
					           "not printable ASCII");
			}
		}
		if (rc)
			return rc;
		w = chainobj_queue_add_wqe(&r->o->queues[qi], ring, slot, buf, len,
		                           v[2] ? note : NULL);
		if (!w)
			return NOMEM(r);
		w->line = node_line(m);
	}
	return rc;
}

/* queues[i].recycle (schema 2): a recycled loop's lap queue. */
static int read_recycle(struct rctx *r, yaml_node_t *m, uint32_t qi,
                        struct chainobj_recycle *rc_out)
{
	static const struct key keys[] = {{"max-laps", true},
	                                  {"counter-wqe", true},
	                                  {"counter-offset", true},
	                                  {"cq-per-lap", true}};
	yaml_node_t *v[4];
	char path[128];
	int rc;

#define RP(field) (snprintf(path, sizeof(path), "queues[%u].recycle" field, qi), path)
	if (r->version < CHAINOBJ_SCHEMA_RECYCLE)
		return RFAIL(r, CHAINOBJ_E_VERSION, m, RP(""), "'recycle' needs prism-chain: %u",
		             CHAINOBJ_SCHEMA_RECYCLE);
	rc = map_fields(r, m, RP(""), keys, 4, v);
	if (!rc)
		rc = read_u32(r, v[0], RP(".max-laps"), 1, CHAINOBJ_MAX_RING, &rc_out->max_laps);
	if (!rc)
		rc = read_u32(r, v[1], RP(".counter-wqe"), 0, CHAINOBJ_MAX_RING - 1,
		              &rc_out->counter_wqe);
	if (!rc)
		rc = read_u32(r, v[2], RP(".counter-offset"), 0, 4 * PRISM_WQE_BB,
		              &rc_out->counter_offset);
	if (!rc)
		rc = read_u32(r, v[3], RP(".cq-per-lap"), 0, CHAINOBJ_MAX_CQE, &rc_out->cq_per_lap);
#undef RP
	return rc;
}

static int read_queue(struct rctx *r, yaml_node_t *m, uint32_t qi)
{
	enum {
		K_NAME,
		K_ROLE,
		K_LANE,
		K_MSEND,
		K_MRECV,
		K_SQS,
		K_RQS,
		K_STRIDE,
		K_SCQ,
		K_RCQ,
		K_SQPI,
		K_RQPI,
		K_RECYCLE,
		K_SQ,
		K_RQ,
		K__N
	};
	static const struct key keys[K__N] = {
	    [K_NAME] = {"name", true},
	    [K_ROLE] = {"role", true},
	    [K_LANE] = {"lane", false},
	    [K_MSEND] = {"managed-send", true},
	    [K_MRECV] = {"managed-recv", true},
	    [K_SQS] = {"sq-slots", true},
	    [K_RQS] = {"rq-slots", true},
	    [K_STRIDE] = {"rq-stride-ds", true},
	    [K_SCQ] = {"send-cq", true},
	    [K_RCQ] = {"recv-cq", true},
	    [K_SQPI] = {"sq-per-invocation", true},
	    [K_RQPI] = {"rq-per-invocation", true},
	    [K_RECYCLE] = {"recycle", false},
	    [K_SQ] = {"sq", false},
	    [K_RQ] = {"rq", false},
	};
	yaml_node_t *v[K__N];
	char name[CHAINOBJ_NAME_MAX + 1], path[128];
	struct chainobj_queue *q;
	int role = 0, rc;

#define QP(field) (snprintf(path, sizeof(path), "queues[%u]." field, qi), path)
	snprintf(path, sizeof(path), "queues[%u]", qi);
	rc = map_fields(r, m, path, keys, K__N, v);
	if (!rc)
		rc = read_name(r, v[K_NAME], QP("name"), name);
	if (!rc && chainobj_find_queue(r->o, name) >= 0)
		rc = RFAIL(r, CHAINOBJ_E_DUPLICATE, v[K_NAME], QP("name"),
		           "duplicate queue name '%s'", name);
	if (!rc)
		rc = read_keyword(r, v[K_ROLE], QP("role"), CHAINOBJ_KW_ROLE, &role);
	if (rc)
		return rc;
	q = chainobj_add_queue(r->o, name, (enum chainobj_role)role);
	if (!q)
		return NOMEM(r);
	q->line = node_line(m);
	if (role == CHAINOBJ_ROLE_LANE && !v[K_LANE])
		return RFAIL(r, CHAINOBJ_E_MISSING_KEY, m, QP("lane"), "a lane queue needs 'lane'");
	rc = opt_u32(r, v[K_LANE], QP("lane"), CHAINOBJ_MAX_QUEUES - 1, &q->lane);
	if (!rc)
		rc = read_bool(r, v[K_MSEND], QP("managed-send"), &q->managed_send);
	if (!rc)
		rc = read_bool(r, v[K_MRECV], QP("managed-recv"), &q->managed_recv);
	if (!rc)
		rc = read_u32(r, v[K_SQS], QP("sq-slots"), 1, CHAINOBJ_MAX_RING, &q->sq_slots);
	if (!rc)
		rc = read_u32(r, v[K_RQS], QP("rq-slots"), 0, CHAINOBJ_MAX_RING, &q->rq_slots);
	if (!rc)
		rc = read_u32(r, v[K_STRIDE], QP("rq-stride-ds"), 0, CHAINOBJ_MAX_RQ_STRIDE_DS,
		              &q->rq_stride_ds);
	if (!rc)
		rc = read_ref(r, v[K_SCQ], QP("send-cq"), REF_CQ, &q->send_cq);
	if (!rc)
		rc = read_ref(r, v[K_RCQ], QP("recv-cq"), REF_CQ, &q->recv_cq);
	if (!rc)
		rc = read_u32(r, v[K_SQPI], QP("sq-per-invocation"), 0, CHAINOBJ_MAX_RING,
		              &q->sq_per_invocation);
	if (!rc)
		rc = read_u32(r, v[K_RQPI], QP("rq-per-invocation"), 0, CHAINOBJ_MAX_RING,
		              &q->rq_per_invocation);
	if (!rc && v[K_RECYCLE])
		rc = read_recycle(r, v[K_RECYCLE], qi, &q->recycle);
#undef QP
	/* q may move when the queue array grows; templates are added by index. */
	if (!rc)
		rc = read_wqes(r, v[K_SQ], qi, CHAINOBJ_RING_SQ);
	if (!rc)
		rc = read_wqes(r, v[K_RQ], qi, CHAINOBJ_RING_RQ);
	return rc;
}

static int read_queues(struct rctx *r, yaml_node_t *n)
{
	yaml_node_item_t *it, *top;
	uint32_t i = 0;
	int rc = seq_items(r, n, "queues", &it, &top);

	for (; !rc && it < top; it++, i++) {
		if (i >= CHAINOBJ_MAX_QUEUES)
			return RFAIL(r, CHAINOBJ_E_RANGE, node_at(r, *it), "queues",
			             "more than %u queues", CHAINOBJ_MAX_QUEUES);
		rc = read_queue(r, node_at(r, *it), i);
	}
	return rc;
}

static int read_param(struct rctx *r, yaml_node_t *m, struct chainobj_entry *e, uint32_t ei,
                      uint32_t pi)
{
	enum { K_NAME, K_TYPE, K_REGION, K_WIDTH, K_ORDER, K_OFFSET, K_COPIES, K_RECV, K__N };
	static const struct key keys[K__N] = {
	    [K_NAME] = {"name", true},      [K_TYPE] = {"type", true},
	    [K_REGION] = {"region", false}, [K_WIDTH] = {"width", true},
	    [K_ORDER] = {"order", true},    [K_OFFSET] = {"offset", true},
	    [K_COPIES] = {"copies", false}, [K_RECV] = {"recv", true},
	};
	static const struct key rkeys[] = {
	    {"queue", true}, {"wqe", true}, {"sge", true}, {"count", true}};
	yaml_node_t *v[K__N], *rv[4];
	char name[CHAINOBJ_NAME_MAX + 1], path[128];
	struct chainobj_param *p;
	int type = 0, order = 0, rc;

#define PP(field) (snprintf(path, sizeof(path), "entries[%u].params[%u]" field, ei, pi), path)
	rc = map_fields(r, m, PP(""), keys, K__N, v);
	if (!rc)
		rc = read_name(r, v[K_NAME], PP(".name"), name);
	if (!rc)
		rc = read_keyword(r, v[K_TYPE], PP(".type"), CHAINOBJ_KW_PTYPE, &type);
	if (!rc)
		rc = read_keyword(r, v[K_ORDER], PP(".order"), CHAINOBJ_KW_ORDER, &order);
	if (!rc && (type == CHAINOBJ_PT_ADDR) != (v[K_REGION] != NULL))
		rc = RFAIL(
		    r, type == CHAINOBJ_PT_ADDR ? CHAINOBJ_E_MISSING_KEY : CHAINOBJ_E_UNKNOWN_KEY,
		    m, PP(".region"), "'region' goes with type addr, and only with it");
	if (rc)
		return rc;
	p = chainobj_entry_add_param(e, name);
	if (!p)
		return NOMEM(r);
	p->line = node_line(m);
	p->type = (enum chainobj_ptype)type;
	p->order = (enum chainobj_order)order;
	if (v[K_REGION])
		rc = read_ref(r, v[K_REGION], PP(".region"), REF_REGION, &p->region);
	if (!rc)
		rc = read_u32(r, v[K_WIDTH], PP(".width"), 1, CHAINOBJ_MAX_MSG, &p->width);
	if (!rc)
		rc = read_u32(r, v[K_OFFSET], PP(".offset"), 0, CHAINOBJ_MAX_MSG, &p->msg_offset);
	if (!rc && v[K_COPIES])
		rc = read_u32(r, v[K_COPIES], PP(".copies"), 1, PRISM_WQE_MAX_SGE, &p->copies);
	if (!rc)
		rc = map_fields(r, v[K_RECV], PP(".recv"), rkeys, 4, rv);
	if (!rc)
		rc = read_ref(r, rv[0], PP(".recv.queue"), REF_QUEUE, &p->queue);
	if (!rc)
		rc = read_u32(r, rv[1], PP(".recv.wqe"), 0, CHAINOBJ_MAX_RING - 1, &p->rwqe);
	if (!rc)
		rc = read_u32(r, rv[2], PP(".recv.sge"), 0, PRISM_WQE_MAX_SGE - 1, &p->first_sge);
	if (!rc)
		rc = read_u32(r, rv[3], PP(".recv.count"), 1, PRISM_WQE_MAX_SGE, &p->n_sge);
#undef PP
	return rc;
}

static int read_result(struct rctx *r, yaml_node_t *m, struct chainobj_entry *e, uint32_t ei,
                       uint32_t ri)
{
	static const struct key keys[] = {
	    {"name", true}, {"width", true}, {"order", true}, {"offset", true}};
	yaml_node_t *v[4];
	char name[CHAINOBJ_NAME_MAX + 1], path[128];
	struct chainobj_result *res;
	int order = 0, rc;

#define RP(field) (snprintf(path, sizeof(path), "entries[%u].results[%u]" field, ei, ri), path)
	rc = map_fields(r, m, RP(""), keys, 4, v);
	if (!rc)
		rc = read_name(r, v[0], RP(".name"), name);
	if (!rc)
		rc = read_keyword(r, v[2], RP(".order"), CHAINOBJ_KW_ORDER, &order);
	if (rc)
		return rc;
	res = chainobj_entry_add_result(e, name);
	if (!res)
		return NOMEM(r);
	res->line = node_line(m);
	res->order = (enum chainobj_order)order;
	rc = read_u32(r, v[1], RP(".width"), 1, CHAINOBJ_MAX_MSG, &res->width);
	if (!rc)
		rc = read_u32(r, v[3], RP(".offset"), 0, CHAINOBJ_MAX_MSG, &res->offset);
#undef RP
	return rc;
}

static int read_entries(struct rctx *r, yaml_node_t *n)
{
	static const struct key keys[] = {
	    {"name", true}, {"message-size", true}, {"params", true}, {"results", false}};
	yaml_node_item_t *it, *top;
	char path[128];
	uint32_t i = 0;
	int rc = seq_items(r, n, "entries", &it, &top);

	for (; !rc && it < top; it++, i++) {
		yaml_node_t *m = node_at(r, *it), *v[4];
		char name[CHAINOBJ_NAME_MAX + 1];
		struct chainobj_entry *e;
		yaml_node_item_t *pit, *ptop;
		uint32_t k;

		if (i >= CHAINOBJ_MAX_ENTRIES)
			return RFAIL(r, CHAINOBJ_E_RANGE, m, "entries", "more than %u entries",
			             CHAINOBJ_MAX_ENTRIES);
		snprintf(path, sizeof(path), "entries[%u]", i);
		rc = map_fields(r, m, path, keys, 4, v);
		if (!rc)
			rc = read_name(r, v[0],
			               (snprintf(path, sizeof(path), "entries[%u].name", i), path),
			               name);
		if (rc)
			return rc;
		e = chainobj_add_entry(r->o, name);
		if (!e)
			return NOMEM(r);
		e->line = node_line(m);
		rc = read_u32(r, v[1],
		              (snprintf(path, sizeof(path), "entries[%u].message-size", i), path),
		              0, CHAINOBJ_MAX_MSG, &e->msg_size);
		snprintf(path, sizeof(path), "entries[%u].params", i);
		if (!rc)
			rc = seq_items(r, v[2], path, &pit, &ptop);
		for (k = 0; !rc && pit < ptop; pit++, k++) {
			if (k >= CHAINOBJ_MAX_PARAMS)
				return RFAIL(r, CHAINOBJ_E_RANGE, node_at(r, *pit), path,
				             "more than %u parameters", CHAINOBJ_MAX_PARAMS);
			rc = read_param(r, node_at(r, *pit), e, i, k);
		}
		snprintf(path, sizeof(path), "entries[%u].results", i);
		if (!rc)
			rc = seq_items(r, v[3], path, &pit, &ptop);
		for (k = 0; !rc && pit < ptop; pit++, k++) {
			if (k >= CHAINOBJ_MAX_PARAMS)
				return RFAIL(r, CHAINOBJ_E_RANGE, node_at(r, *pit), path,
				             "more than %u results", CHAINOBJ_MAX_PARAMS);
			rc = read_result(r, node_at(r, *pit), e, i, k);
		}
	}
	return rc;
}

static int read_site(struct rctx *r, yaml_node_t *n, const char *path, struct chainobj_site *s)
{
	static const struct key keys[] = {
	    {"queue", true}, {"ring", true}, {"wqe", true}, {"offset", true}, {"width", true}};
	yaml_node_t *v[5];
	char p[160];
	int ring = 0;
	int rc = map_fields(r, n, path, keys, 5, v);

#define SP(field) (snprintf(p, sizeof(p), "%s." field, path), p)
	if (!rc)
		rc = read_ref(r, v[0], SP("queue"), REF_QUEUE, &s->queue);
	if (!rc)
		rc = read_keyword(r, v[1], SP("ring"), CHAINOBJ_KW_RING, &ring);
	if (!rc)
		rc = read_u32(r, v[2], SP("wqe"), 0, CHAINOBJ_MAX_RING - 1, &s->wqe);
	if (!rc)
		rc = read_u32(r, v[3], SP("offset"), 0, PRISM_WQE_MAX_BYTES - 1, &s->offset);
	if (!rc)
		rc = read_u32(r, v[4], SP("width"), 1, PRISM_WQE_MAX_BYTES, &s->width);
#undef SP
	s->ring = (enum chainobj_ring)ring;
	return rc;
}

static int read_patches(struct rctx *r, yaml_node_t *n)
{
	static const struct key keys[] = {{"target", true}, {"kind", true}, {"writer", true}};
	static const struct key wkeys[] = {
	    {"queue", true}, {"ring", true}, {"wqe", true}, {"sge", true}};
	yaml_node_item_t *it, *top;
	char path[128];
	uint32_t i = 0;
	int rc = seq_items(r, n, "patches", &it, &top);

	for (; !rc && it < top; it++, i++) {
		yaml_node_t *m = node_at(r, *it), *v[3], *wv[4];
		struct chainobj_patch *p = chainobj_add_patch(r->o);
		int kind = 0, ring = 0;

		if (!p)
			return NOMEM(r);
		p->line = node_line(m);
#define PP(field) (snprintf(path, sizeof(path), "patches[%u]" field, i), path)
		rc = map_fields(r, m, PP(""), keys, 3, v);
		if (!rc)
			rc = read_site(r, v[0], PP(".target"), &p->target);
		if (!rc)
			rc = read_keyword(r, v[1], PP(".kind"), CHAINOBJ_KW_PATCH, &kind);
		if (!rc)
			rc = map_fields(r, v[2], PP(".writer"), wkeys, 4, wv);
		if (!rc)
			rc = read_ref(r, wv[0], PP(".writer.queue"), REF_QUEUE, &p->writer_queue);
		if (!rc)
			rc = read_keyword(r, wv[1], PP(".writer.ring"), CHAINOBJ_KW_RING, &ring);
		if (!rc)
			rc = read_u32(r, wv[2], PP(".writer.wqe"), 0, CHAINOBJ_MAX_RING - 1,
			              &p->writer_wqe);
		if (!rc)
			rc = read_u32(r, wv[3], PP(".writer.sge"), 0, PRISM_WQE_MAX_SGE - 1,
			              &p->writer_sge);
#undef PP
		p->kind = (enum chainobj_patch_kind)kind;
		p->writer_ring = (enum chainobj_ring)ring;
	}
	return rc;
}

static int read_relocs(struct rctx *r, yaml_node_t *n)
{
	enum { K_SITE, K_KIND, K_TARGET, K_RING, K_ADDEND, K_STRIDE, K_DELTA, K_ORDER, K__N };
	static const struct key keys[K__N] = {
	    [K_SITE] = {"site", true},      [K_KIND] = {"kind", true},
	    [K_TARGET] = {"target", false}, [K_RING] = {"ring", false},
	    [K_ADDEND] = {"addend", false}, [K_STRIDE] = {"stride", false},
	    [K_DELTA] = {"delta", false},   [K_ORDER] = {"order", true},
	};
	yaml_node_item_t *it, *top;
	char path[128];
	uint32_t i = 0;
	int rc = seq_items(r, n, "relocs", &it, &top);

	for (; !rc && it < top; it++, i++) {
		yaml_node_t *m = node_at(r, *it), *v[K__N];
		struct chainobj_reloc *rl = chainobj_add_reloc(r->o);
		int kind = 0, order = 0, ring = 0;
		enum chainobj_ref ref;
		enum chainobj_count_use count;

		if (!rl)
			return NOMEM(r);
		rl->line = node_line(m);
#define RP(field) (snprintf(path, sizeof(path), "relocs[%u]" field, i), path)
		rc = map_fields(r, m, RP(""), keys, K__N, v);
		if (!rc)
			rc = read_site(r, v[K_SITE], RP(".site"), &rl->site);
		if (!rc)
			rc = read_keyword(r, v[K_KIND], RP(".kind"), CHAINOBJ_KW_RELOC, &kind);
		if (!rc)
			rc = read_keyword(r, v[K_ORDER], RP(".order"), CHAINOBJ_KW_ORDER, &order);
		if (rc)
			return rc;
		rl->kind = (enum chainobj_reloc_kind)kind;
		rl->order = (enum chainobj_order)order;
		ref = chainobj_reloc_kind_ref(rl->kind);
		count = chainobj_reloc_kind_count_use(rl->kind);
		if ((ref != CHAINOBJ_REF_NONE) != (v[K_TARGET] != NULL))
			return RFAIL(
			    r, v[K_TARGET] ? CHAINOBJ_E_UNKNOWN_KEY : CHAINOBJ_E_MISSING_KEY,
			    v[K_TARGET] ? v[K_TARGET] : m, RP(".target"),
			    "a %s relocation %s a target", chainobj_reloc_kind_name(rl->kind),
			    ref != CHAINOBJ_REF_NONE ? "needs" : "takes no");
		if ((rl->kind == CHAINOBJ_RELOC_QBUF_ADDR) != (v[K_RING] != NULL))
			return RFAIL(r, v[K_RING] ? CHAINOBJ_E_UNKNOWN_KEY : CHAINOBJ_E_MISSING_KEY,
			             v[K_RING] ? v[K_RING] : m, RP(".ring"),
			             "'ring' goes with qbuf-addr, and only with it");
		if (count == CHAINOBJ_COUNT_NO && (v[K_STRIDE] || v[K_DELTA]))
			return RFAIL(r, CHAINOBJ_E_UNKNOWN_KEY,
			             v[K_STRIDE] ? v[K_STRIDE] : v[K_DELTA], RP(".stride"),
			             "stride/delta only go with counts and qbuf-addr");
		if (count != CHAINOBJ_COUNT_NO && (!v[K_STRIDE] != !v[K_DELTA]))
			return RFAIL(r, CHAINOBJ_E_MISSING_KEY, m, RP(".stride"),
			             "stride and delta go together");
		if (count == CHAINOBJ_COUNT_YES && !v[K_STRIDE])
			return RFAIL(r, CHAINOBJ_E_MISSING_KEY, m, RP(".stride"),
			             "a count relocation needs stride and delta");
		if (ref == CHAINOBJ_REF_QUEUE)
			rc = read_ref(r, v[K_TARGET], RP(".target"), REF_QUEUE, &rl->target);
		else if (ref == CHAINOBJ_REF_CQ)
			rc = read_ref(r, v[K_TARGET], RP(".target"), REF_CQ, &rl->target);
		else if (ref == CHAINOBJ_REF_REGION)
			rc = read_ref(r, v[K_TARGET], RP(".target"), REF_REGION, &rl->target);
		if (!rc && v[K_RING]) {
			rc = read_keyword(r, v[K_RING], RP(".ring"), CHAINOBJ_KW_RING, &ring);
			rl->ring = (uint32_t)ring;
		}
		if (!rc && v[K_ADDEND])
			rc = read_u64(r, v[K_ADDEND], RP(".addend"), 0, UINT64_MAX, &rl->addend);
		if (!rc)
			rc = opt_u32(r, v[K_STRIDE], RP(".stride"), CHAINOBJ_MAX_CQE, &rl->stride);
		if (!rc)
			rc = opt_u32(r, v[K_DELTA], RP(".delta"), CHAINOBJ_MAX_CQE, &rl->delta);
#undef RP
	}
	return rc;
}

/* A flow sequence of exactly @n counts, each at most @max. */
static int read_counts(struct rctx *r, yaml_node_t *n, const char *path, uint32_t *out,
                       uint32_t count, uint32_t max)
{
	yaml_node_item_t *it, *top;
	uint32_t i = 0;
	int rc;

	if (!n)
		return RFAIL(r, CHAINOBJ_E_MISSING_KEY, n, path, "missing");
	rc = seq_items(r, n, path, &it, &top);
	for (; !rc && it < top; it++, i++) {
		if (i >= count)
			return RFAIL(r, CHAINOBJ_E_EXIT, n, path, "more than %u values", count);
		rc = read_u32(r, node_at(r, *it), path, 0, max, &out[i]);
	}
	if (!rc && i != count)
		return RFAIL(r, CHAINOBJ_E_EXIT, n, path, "%u values, expected one per %s (%u)", i,
		             path[strlen(path) - 2] == 'c' ? "CQ" : "queue", count);
	return rc;
}

static int read_exits(struct rctx *r, yaml_node_t *n)
{
	static const struct key keys[] = {{"queue", true}, {"wqe", true}, {"enable", true},
	                                  {"sq", true},    {"rq", true},  {"cq", true}};
	yaml_node_item_t *it, *top;
	char path[128];
	uint32_t i = 0;
	int rc = seq_items(r, n, "exits", &it, &top);

	for (; !rc && it < top; it++, i++) {
		yaml_node_t *m = node_at(r, *it), *v[6];
		struct chainobj_exit *x;

		if (i >= CHAINOBJ_MAX_RING)
			return RFAIL(r, CHAINOBJ_E_RANGE, m, "exits", "more than %u exits",
			             CHAINOBJ_MAX_RING);
		x = chainobj_add_exit(r->o);
		if (!x)
			return NOMEM(r);
		x->line = node_line(m);
#define XP(field) (snprintf(path, sizeof(path), "exits[%u]" field, i), path)
		rc = map_fields(r, m, XP(""), keys, 6, v);
		if (!rc)
			rc = read_ref(r, v[0], XP(".queue"), REF_QUEUE, &x->queue);
		if (!rc)
			rc = read_u32(r, v[1], XP(".wqe"), 0, CHAINOBJ_MAX_RING - 1, &x->wqe);
		if (!rc)
			rc = read_u32(r, v[2], XP(".enable"), 0, CHAINOBJ_MAX_RING - 1, &x->enable);
		if (!rc)
			rc = read_counts(r, v[3], XP(".sq"), x->sq_advance, x->n_queues,
			                 CHAINOBJ_MAX_RING);
		if (!rc)
			rc = read_counts(r, v[4], XP(".rq"), x->rq_advance, x->n_queues,
			                 CHAINOBJ_MAX_RING);
		if (!rc)
			rc = read_counts(r, v[5], XP(".cq"), x->cq_advance, x->n_cqs,
			                 CHAINOBJ_MAX_CQE);
#undef XP
	}
	return rc;
}

static int read_summary(struct rctx *r, yaml_node_t *n)
{
	static const struct key keys[] = {{"verified", true},
	                                  {"wr-per-invocation", true},
	                                  {"barriers", true},
	                                  {"loops", false},
	                                  {"regions-touched", false}};
	static const struct key lkeys[] = {
	    {"name", true}, {"bound", true}, {"wr-per-iteration", true}};
	static const struct key tkeys[] = {{"region", true}, {"access", true}};
	struct chainobj_summary *s = &r->o->summary;
	yaml_node_item_t *it, *top;
	yaml_node_t *v[5];
	char path[128];
	uint32_t i;
	int rc = map_fields(r, n, "summary", keys, 5, v);

	if (!rc)
		rc = read_bool(r, v[0], "summary.verified", &s->verified);
	if (!rc)
		rc = read_u32(r, v[1], "summary.wr-per-invocation", 0, UINT32_MAX,
		              &s->wr_per_invocation);
	if (!rc)
		rc = read_u32(r, v[2], "summary.barriers", 0, UINT32_MAX, &s->barriers);
	if (!rc)
		rc = seq_items(r, v[3], "summary.loops", &it, &top);
	for (i = 0; !rc && it < top; it++, i++) {
		yaml_node_t *m = node_at(r, *it), *lv[3];
		char name[CHAINOBJ_NAME_MAX + 1];
		struct chainobj_loop *l;

		if (i >= CHAINOBJ_MAX_LOOPS)
			return RFAIL(r, CHAINOBJ_E_RANGE, m, "summary.loops", "more than %u loops",
			             CHAINOBJ_MAX_LOOPS);
#define LP(field) (snprintf(path, sizeof(path), "summary.loops[%u]" field, i), path)
		rc = map_fields(r, m, LP(""), lkeys, 3, lv);
		if (!rc)
			rc = read_name(r, lv[0], LP(".name"), name);
		if (rc)
			return rc;
		l = chainobj_add_loop(r->o, name);
		if (!l)
			return NOMEM(r);
		l->line = node_line(m);
		rc = read_u32(r, lv[1], LP(".bound"), 1, CHAINOBJ_MAX_CQE, &l->bound);
		if (!rc)
			rc = read_u32(r, lv[2], LP(".wr-per-iteration"), 0, UINT32_MAX,
			              &l->wr_per_iteration);
#undef LP
	}
	if (!rc)
		rc = seq_items(r, v[4], "summary.regions-touched", &it, &top);
	for (i = 0; !rc && it < top; it++, i++) {
		yaml_node_t *m = node_at(r, *it), *tv[2];
		struct chainobj_touch *t;

		if (i >= CHAINOBJ_MAX_REGIONS)
			return RFAIL(r, CHAINOBJ_E_RANGE, m, "summary.regions-touched",
			             "more than %u entries", CHAINOBJ_MAX_REGIONS);
		snprintf(path, sizeof(path), "summary.regions-touched[%u]", i);
		t = chainobj_add_touch(r->o);
		if (!t)
			return NOMEM(r);
		t->line = node_line(m);
		rc = map_fields(r, m, path, tkeys, 2, tv);
		if (!rc)
			rc = read_ref(r, tv[0], path, REF_REGION, &t->region);
		if (!rc)
			rc = read_access(r, tv[1], path, &t->access);
	}
	return rc;
}

/* ---- top level --------------------------------------------------------- */

enum {
	T_VERSION,
	T_PROGRAM,
	T_PROFILE,
	T_REARM,
	T_ASSUMES,
	T_SCRATCH,
	T_RESPONSE,
	T_SCRATCH_INIT,
	T_CHECKSUM,
	T_REGIONS,
	T_CQS,
	T_QUEUES,
	T_ENTRIES,
	T_PATCHES,
	T_RELOCS,
	T_EXITS,
	T_SUMMARY,
	T__N
};

static const struct key top_keys[T__N] = {
    [T_VERSION] = {"prism-chain", true},
    [T_PROGRAM] = {"program", true},
    [T_PROFILE] = {"profile", true},
    [T_REARM] = {"rearm", true},
    [T_ASSUMES] = {"assumes", false},
    [T_SCRATCH] = {"scratch-size", true},
    [T_RESPONSE] = {"response-size", true},
    [T_SCRATCH_INIT] = {"scratch-init", false},
    [T_CHECKSUM] = {"checksum", false},
    [T_REGIONS] = {"regions", true},
    [T_CQS] = {"cqs", true},
    [T_QUEUES] = {"queues", true},
    [T_ENTRIES] = {"entries", true},
    [T_PATCHES] = {"patches", true},
    [T_RELOCS] = {"relocs", true},
    [T_EXITS] = {"exits", false},
    [T_SUMMARY] = {"summary", true},
};

static int read_checksum(struct rctx *r, yaml_node_t *n, uint64_t *sum)
{
	static const char prefix[] = "fnv1a64:";
	const char *s;
	size_t len;
	uint64_t v = 0;
	int rc = scalar(r, n, "checksum", &s, &len);

	if (rc)
		return rc;
	if (len != sizeof(prefix) - 1 + 16 || memcmp(s, prefix, sizeof(prefix) - 1))
		return RFAIL(r, CHAINOBJ_E_TYPE, n, "checksum",
		             "expected \"fnv1a64:\" and 16 hex digits");
	for (size_t i = sizeof(prefix) - 1; i < len; i++) {
		int h = hex_digit(s[i]);

		if (h < 0)
			return RFAIL(r, CHAINOBJ_E_TYPE, n, "checksum",
			             "expected \"fnv1a64:\" and 16 hex digits");
		v = v << 4 | (uint64_t)h;
	}
	*sum = v;
	return 0;
}

/* Object-level fields carry no line of their own: point at their key's value. */
static void locate_top_error(struct rctx *r, yaml_node_t **v)
{
	size_t len = strcspn(r->d->path, ".[");

	for (size_t i = 0; i < T__N; i++)
		if (v[i] && strlen(top_keys[i].name) == len &&
		    !memcmp(top_keys[i].name, r->d->path, len)) {
			chainobj_diag_set_line(r->d, node_line(v[i]), node_col(v[i]));
			return;
		}
}

static int read_scratch_init(struct rctx *r, yaml_node_t *n)
{
	uint8_t *buf = malloc(CHAINOBJ_MAX_SCRATCH);
	uint32_t len = 0;
	int rc;

	if (!buf)
		return NOMEM(r);
	rc = read_hex(r, n, "scratch-init", buf, CHAINOBJ_MAX_SCRATCH, &len);
	if (!rc && chainobj_set_scratch_init(r->o, buf, len))
		rc = NOMEM(r);
	free(buf);
	return rc;
}

static int read_top(struct rctx *r, yaml_node_t *root)
{
	yaml_node_t *v[T__N];
	char name[CHAINOBJ_NAME_MAX + 1];
	uint32_t version = 0;
	uint64_t sum = 0;
	int profile = 0, rearm = 0;
	int rc;

	/* The version decides how to read the rest: check it before the key set. */
	if (root && root->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
		     p < root->data.mapping.pairs.top; p++) {
			yaml_node_t *k = node_at(r, p->key);
			uint64_t ver = 0;

			if (!k || k->type != YAML_SCALAR_NODE || k->data.scalar.length != 11 ||
			    memcmp(k->data.scalar.value, "prism-chain", 11))
				continue;
			rc = read_u64(r, node_at(r, p->value), "prism-chain", 0, UINT32_MAX, &ver);
			if (rc)
				return rc;
			if (ver < CHAINOBJ_SCHEMA_VERSION || ver > CHAINOBJ_SCHEMA_MAX)
				return RFAIL(
				    r, CHAINOBJ_E_VERSION, node_at(r, p->value), "prism-chain",
				    "schema version %" PRIu64 " (this build reads %u to %u)", ver,
				    CHAINOBJ_SCHEMA_VERSION, CHAINOBJ_SCHEMA_MAX);
		}
	}
	rc = map_fields(r, root, "", top_keys, T__N, v);
	if (!rc)
		rc = read_u32(r, v[T_VERSION], "prism-chain", CHAINOBJ_SCHEMA_VERSION,
		              CHAINOBJ_SCHEMA_MAX, &version);
	if (!rc)
		rc = read_name(r, v[T_PROGRAM], "program", name);
	if (rc)
		return rc;
	r->o = chainobj_new(name);
	if (!r->o)
		return NOMEM(r);
	r->o->schema = version;
	r->version = version;
	rc = read_keyword(r, v[T_PROFILE], "profile", CHAINOBJ_KW_PROFILE, &profile);
	if (!rc)
		rc = read_keyword(r, v[T_REARM], "rearm", CHAINOBJ_KW_REARM, &rearm);
	r->o->profile = (enum chainobj_profile)profile;
	r->o->rearm = (enum chainobj_rearm)rearm;
	if (!rc && v[T_ASSUMES]) {
		if (version < CHAINOBJ_SCHEMA_ASSUME)
			return RFAIL(r, CHAINOBJ_E_VERSION, v[T_ASSUMES], "assumes",
			             "'assumes' needs prism-chain: %u", CHAINOBJ_SCHEMA_ASSUME);
		rc = read_bits(r, v[T_ASSUMES], "assumes", CHAINOBJ_KW_ASSUME, &r->o->assumes);
	}
	if (!rc)
		rc = read_u32(r, v[T_SCRATCH], "scratch-size", 0, CHAINOBJ_MAX_SCRATCH,
		              &r->o->scratch_size);
	if (!rc)
		rc = read_u32(r, v[T_RESPONSE], "response-size", 0, CHAINOBJ_MAX_MSG,
		              &r->o->response_size);
	if (!rc && v[T_SCRATCH_INIT])
		rc = read_scratch_init(r, v[T_SCRATCH_INIT]);
	if (!rc && v[T_CHECKSUM])
		rc = read_checksum(r, v[T_CHECKSUM], &sum);
	if (!rc)
		rc = read_regions(r, v[T_REGIONS]);
	if (!rc)
		rc = read_cqs(r, v[T_CQS]);
	if (!rc)
		rc = read_queues(r, v[T_QUEUES]);
	if (!rc)
		rc = read_entries(r, v[T_ENTRIES]);
	if (!rc)
		rc = read_patches(r, v[T_PATCHES]);
	if (!rc)
		rc = read_relocs(r, v[T_RELOCS]);
	if (!rc)
		rc = read_exits(r, v[T_EXITS]);
	if (!rc)
		rc = read_summary(r, v[T_SUMMARY]);
	if (!rc) {
		rc = chainobj_validate(r->o, r->d);
		if (rc)
			locate_top_error(r, v);
	}
	if (!rc && v[T_CHECKSUM]) {
		uint64_t actual = chainobj_checksum(r->o);

		if (!actual)
			return NOMEM(r);
		if (actual != sum)
			return RFAIL(r, CHAINOBJ_E_CHECKSUM, v[T_CHECKSUM], "checksum",
			             "content checksum %016" PRIx64 " does not match the recorded "
			             "%016" PRIx64 " (object edited or damaged)",
			             actual, sum);
	}
	return rc;
}

/*
 * Bound the flow nesting ([ and {) before libyaml sees the text: its scanner
 * (0.2.5) has no nesting limit and takes quadratic time on deep flow
 * collections (200000 '[' took two minutes).  A chain object nests flow
 * collections at most three deep; quoted scalars and comments are skipped.
 */
#define READ_MAX_FLOW_DEPTH 16u

static int check_flow_depth(struct rctx *r, const char *t, size_t len)
{
	unsigned depth = 0, line = 1, col = 0;
	char quote = 0;
	bool comment = false;

	for (size_t i = 0; i < len; i++) {
		char c = t[i];

		col++;
		if (c == '\n') {
			line++;
			col = 0;
			comment = false;
			continue;
		}
		if (comment)
			continue;
		if (quote) {
			if (quote == '"' && c == '\\')
				i++, col++; /* skip the escaped character */
			else if (c == quote)
				quote = 0;
			continue;
		}
		if (c == '"' || c == '\'')
			quote = c;
		else if (c == '#' && (i == 0 || t[i - 1] == ' ' || t[i - 1] == '\t'))
			comment = true;
		else if (c == '[' || c == '{') {
			if (++depth > READ_MAX_FLOW_DEPTH)
				return chainobj_diag_set(r->d, CHAINOBJ_E_SYNTAX, line, col, "",
				                         "flow collections nested deeper than %u",
				                         READ_MAX_FLOW_DEPTH);
		} else if ((c == ']' || c == '}') && depth) {
			depth--;
		}
	}
	return 0;
}

/*
 * First pass over the event stream: exactly one document, no anchors, no
 * aliases.  Syntax errors surface here with libyaml's position.
 */
static int prescan(struct rctx *r, const void *text, size_t len)
{
	yaml_parser_t parser;
	int rc = 0, docs = 0;

	if (!yaml_parser_initialize(&parser))
		return NOMEM(r);
	yaml_parser_set_input_string(&parser, text, len);
	for (;;) {
		yaml_event_t ev;
		const yaml_char_t *anchor = NULL;

		if (!yaml_parser_parse(&parser, &ev)) {
			rc = chainobj_diag_set(
			    r->d,
			    parser.error == YAML_MEMORY_ERROR ? CHAINOBJ_E_NOMEM
			                                      : CHAINOBJ_E_SYNTAX,
			    (unsigned)parser.problem_mark.line + 1,
			    (unsigned)parser.problem_mark.column + 1, "", "%s%s%s",
			    parser.problem ? parser.problem : "YAML error",
			    parser.context ? " " : "", parser.context ? parser.context : "");
			break;
		}
		if (ev.type == YAML_ALIAS_EVENT)
			anchor = ev.data.alias.anchor;
		else if (ev.type == YAML_SCALAR_EVENT)
			anchor = ev.data.scalar.anchor;
		else if (ev.type == YAML_SEQUENCE_START_EVENT)
			anchor = ev.data.sequence_start.anchor;
		else if (ev.type == YAML_MAPPING_START_EVENT)
			anchor = ev.data.mapping_start.anchor;
		if (anchor)
			rc = chainobj_diag_set(r->d, CHAINOBJ_E_SYNTAX,
			                       (unsigned)ev.start_mark.line + 1,
			                       (unsigned)ev.start_mark.column + 1, "",
			                       "anchors and aliases are not allowed");
		else if (ev.type == YAML_DOCUMENT_START_EVENT && ++docs > 1)
			rc = chainobj_diag_set(
			    r->d, CHAINOBJ_E_SYNTAX, (unsigned)ev.start_mark.line + 1,
			    (unsigned)ev.start_mark.column + 1, "", "more than one YAML document");
		bool end = ev.type == YAML_STREAM_END_EVENT;

		yaml_event_delete(&ev);
		if (rc || end)
			break;
	}
	yaml_parser_delete(&parser);
	if (!rc && !docs)
		rc = chainobj_diag_set(r->d, CHAINOBJ_E_SYNTAX, 1, 1, "", "no YAML document");
	return rc;
}

int chainobj_read_mem(const void *text, size_t len, struct chainobj **out, struct diag_report *diag)
{
	struct diag_report local;
	struct rctx r = {.d = diag ? diag : &local};
	yaml_parser_t parser;
	yaml_document_t doc;
	int rc;

	*out = NULL;
	chainobj_diag_clear(r.d);
	if (!text && len)
		return chainobj_diag_set(r.d, CHAINOBJ_E_IO, 0, 0, "", "no input");
	if (len > READ_MAX_BYTES)
		return chainobj_diag_set(r.d, CHAINOBJ_E_RANGE, 0, 0, "",
		                         "object of %zu bytes exceeds %u", len, READ_MAX_BYTES);
	rc = check_flow_depth(&r, text ? text : "", len);
	if (!rc)
		rc = prescan(&r, text ? text : "", len);
	if (rc)
		return rc;
	if (!yaml_parser_initialize(&parser))
		return chainobj_diag_set(r.d, CHAINOBJ_E_NOMEM, 0, 0, "", "out of memory");
	yaml_parser_set_input_string(&parser, text ? text : (const void *)"", len);
	if (!yaml_parser_load(&parser, &doc)) {
		rc = chainobj_diag_set(
		    r.d, parser.error == YAML_MEMORY_ERROR ? CHAINOBJ_E_NOMEM : CHAINOBJ_E_SYNTAX,
		    (unsigned)parser.problem_mark.line + 1,
		    (unsigned)parser.problem_mark.column + 1, "", "%s",
		    parser.problem ? parser.problem : "YAML error");
		yaml_parser_delete(&parser);
		return rc;
	}
	r.doc = &doc;
	rc = read_top(&r, yaml_document_get_root_node(&doc));
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (rc) {
		chainobj_free(r.o);
		return rc;
	}
	*out = r.o;
	return 0;
}

int chainobj_read_file(const char *path, struct chainobj **out, struct diag_report *diag)
{
	FILE *f;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc;

	*out = NULL;
	chainobj_diag_clear(diag);
	f = fopen(path, "rb");
	if (!f) {
		/* the open's own errno (ENOENT: "No such file or directory"),
		 * not a generic -EIO */
		int err = errno;

		chainobj_diag_set(diag, CHAINOBJ_E_IO, 0, 0, "", "%s: %s", path, strerror(err));
		return -err;
	}
	for (;;) {
		size_t n;

		if (len == cap) {
			char *nb;

			if (cap >= READ_MAX_BYTES + 1)
				break;
			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return chainobj_diag_set(diag, CHAINOBJ_E_NOMEM, 0, 0, "",
				                         "out of memory");
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return chainobj_diag_set(diag, CHAINOBJ_E_IO, 0, 0, "", "%s: read error", path);
	}
	fclose(f);
	rc = chainobj_read_mem(buf, len, out, diag);
	free(buf);
	return rc;
}
