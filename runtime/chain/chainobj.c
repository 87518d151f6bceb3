/* SPDX-License-Identifier: MIT */
/*
 * chain/chainobj.c - lifetime, builders, name tables and byte helpers of the
 * in-memory chain object.
 *
 * Owns: chainobj_new/free, the append helpers, name lookups, the kind/role
 * name tables (fed by the X-macro lists in chainobj.h) and the relocated
 * value store/load helpers.
 *
 * Must not: validate (chainobj_validate.c), serialise (chainobj_write.c),
 * parse (chainobj_read.c), or touch WQE bytes beyond copying them.
 */
#include "chain/chainobj.h"
#include "util/array.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const err_names[CHAINOBJ_E__COUNT] = {
#define CHAINOBJ_X_NAME(e, text) [CHAINOBJ_E_##e] = text,
    CHAINOBJ_ERRORS(CHAINOBJ_X_NAME)
#undef CHAINOBJ_X_NAME
};

static const char *const patch_names[CHAINOBJ_PATCH__COUNT] = {
#define CHAINOBJ_X_NAME(e, name) [CHAINOBJ_PATCH_##e] = name,
    CHAINOBJ_PATCH_KINDS(CHAINOBJ_X_NAME)
#undef CHAINOBJ_X_NAME
};

static const struct {
	const char *name;
	enum chainobj_ref ref;
	enum chainobj_count_use count;
} reloc_info[CHAINOBJ_RELOC__COUNT] = {
#define CHAINOBJ_X_INFO(e, nm, rf, cnt)                                                            \
	[CHAINOBJ_RELOC_##e] = {.name = nm, .ref = rf, .count = cnt},
    CHAINOBJ_RELOC_KINDS(CHAINOBJ_X_INFO)
#undef CHAINOBJ_X_INFO
};

static const char *const role_names[] = {
    [CHAINOBJ_ROLE_CONN] = "conn",
    [CHAINOBJ_ROLE_WORKER] = "worker",
    [CHAINOBJ_ROLE_LANE] = "lane",
};

static const char *const profile_names[] = {
    [CHAINOBJ_PROFILE_RELAXED] = "relaxed",
    [CHAINOBJ_PROFILE_STRICT] = "strict",
};

static const char *const rearm_names[] = {
    [CHAINOBJ_REARM_CPU_REPOST] = "cpu-repost",
    [CHAINOBJ_REARM_NIC_RECYCLE] = "nic-recycle",
};

static const char *const assume_names[] = {
#define CHAINOBJ_X_NAME(e, name) [CHAINOBJ_ASSUME_BIT_##e] = name,
    CHAINOBJ_ASSUMES(CHAINOBJ_X_NAME)
#undef CHAINOBJ_X_NAME
};

#define TABLE_NAME(tab, i)                                                                         \
	((size_t)(i) < sizeof(tab) / sizeof((tab)[0]) && (tab)[i] ? (tab)[i] : "?")

const char *chainobj_err_name(enum chainobj_err e)
{
	return TABLE_NAME(err_names, e);
}

const char *chainobj_patch_kind_name(enum chainobj_patch_kind k)
{
	return TABLE_NAME(patch_names, k);
}

const char *chainobj_reloc_kind_name(enum chainobj_reloc_kind k)
{
	return (unsigned)k < CHAINOBJ_RELOC__COUNT ? reloc_info[k].name : "?";
}

enum chainobj_ref chainobj_reloc_kind_ref(enum chainobj_reloc_kind k)
{
	return (unsigned)k < CHAINOBJ_RELOC__COUNT ? reloc_info[k].ref : CHAINOBJ_REF_NONE;
}

bool chainobj_reloc_kind_is_count(enum chainobj_reloc_kind k)
{
	return chainobj_reloc_kind_count_use(k) == CHAINOBJ_COUNT_YES;
}

enum chainobj_count_use chainobj_reloc_kind_count_use(enum chainobj_reloc_kind k)
{
	return (unsigned)k < CHAINOBJ_RELOC__COUNT ? reloc_info[k].count : CHAINOBJ_COUNT_NO;
}

const char *chainobj_role_name(enum chainobj_role r)
{
	return TABLE_NAME(role_names, r);
}

const char *chainobj_profile_name(enum chainobj_profile p)
{
	return TABLE_NAME(profile_names, p);
}

const char *chainobj_rearm_name(enum chainobj_rearm r)
{
	return TABLE_NAME(rearm_names, r);
}

const char *chainobj_assume_name(enum chainobj_assume_bit b)
{
	return TABLE_NAME(assume_names, b);
}

/* A copy through malloc (all of the object's memory comes from one allocator). */
static char *copy_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);

	if (p)
		memcpy(p, s, n);
	return p;
}

/* ---- lifetime ---------------------------------------------------------- */

struct chainobj *chainobj_new(const char *program)
{
	struct chainobj *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->schema = CHAINOBJ_SCHEMA_VERSION;
	o->profile = CHAINOBJ_PROFILE_RELAXED;
	o->rearm = CHAINOBJ_REARM_CPU_REPOST;
	if (program) {
		o->program = copy_str(program);
		if (!o->program) {
			free(o);
			return NULL;
		}
	}
	return o;
}

static void free_wqes(struct chainobj_wqe *w, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		free(w[i].bytes);
		free(w[i].note);
	}
	free(w);
}

void chainobj_free(struct chainobj *o)
{
	if (!o)
		return;
	for (uint32_t i = 0; i < o->n_entries; i++) {
		struct chainobj_entry *e = &o->entries[i];

		for (uint32_t j = 0; j < e->n_params; j++)
			free(e->params[j].name);
		for (uint32_t j = 0; j < e->n_results; j++)
			free(e->results[j].name);
		free(e->params);
		free(e->results);
		free(e->name);
	}
	free(o->entries);
	for (uint32_t i = 0; i < o->n_regions; i++)
		free(o->regions[i].name);
	free(o->regions);
	for (uint32_t i = 0; i < o->n_cqs; i++)
		free(o->cqs[i].name);
	free(o->cqs);
	for (uint32_t i = 0; i < o->n_queues; i++) {
		struct chainobj_queue *q = &o->queues[i];

		free_wqes(q->sq, q->n_sq);
		free_wqes(q->rq, q->n_rq);
		free(q->name);
	}
	free(o->queues);
	free(o->patches);
	free(o->relocs);
	for (uint32_t i = 0; i < o->n_exits; i++) {
		free(o->exits[i].sq_advance);
		free(o->exits[i].rq_advance);
		free(o->exits[i].cq_advance);
	}
	free(o->exits);
	free(o->scratch_init);
	for (uint32_t i = 0; i < o->summary.n_loops; i++)
		free(o->summary.loops[i].name);
	free(o->summary.loops);
	free(o->summary.touched);
	free(o->program);
	free(o);
}

/* ---- append helpers ---------------------------------------------------- */

/*
 * Grow *@arr (of *@n elements of @size bytes) by one zeroed element.  The
 * capacity follows from the count (ARRAY_MIN_CAP, doubled as needed), so no
 * separate field is needed.  Returns the new element or NULL (array
 * unchanged).
 */
static void *grow(void **arr, uint32_t *n, size_t size)
{
	uint32_t count = *n;
	size_t cap = 0;
	void *p;

	if (count == UINT32_MAX)
		return NULL;
	if (count)
		for (cap = ARRAY_MIN_CAP; cap < count; cap *= 2)
			;
	p = array_grow(*arr, &cap, (size_t)count + 1, size, UINT32_MAX);
	if (!p)
		return NULL;
	*arr = p;
	memset((char *)p + (size_t)count * size, 0, size); /* an undone append left bytes */
	*n = count + 1;
	return (char *)p + (size_t)count * size;
}

/* Append an element named with a copy of @name; undo the append on ENOMEM. */
#define APPEND_NAMED(arrp, np, namep, elem)                                                        \
	do {                                                                                       \
		elem = grow((void **)(arrp), (np), sizeof(**(arrp)));                              \
		if (!elem)                                                                         \
			return NULL;                                                               \
		if (namep) {                                                                       \
			elem->name = copy_str(namep);                                              \
			if (!elem->name) {                                                         \
				(*(np))--;                                                         \
				return NULL;                                                       \
			}                                                                          \
		}                                                                                  \
	} while (0)

struct chainobj_region *chainobj_add_region(struct chainobj *o, const char *name, uint64_t size,
                                            uint32_t access)
{
	struct chainobj_region *r;

	APPEND_NAMED(&o->regions, &o->n_regions, name, r);
	r->size = size;
	r->access = access;
	return r;
}

struct chainobj_cq *chainobj_add_cq(struct chainobj *o, const char *name, uint32_t entries)
{
	struct chainobj_cq *c;

	APPEND_NAMED(&o->cqs, &o->n_cqs, name, c);
	c->entries = entries;
	return c;
}

struct chainobj_queue *chainobj_add_queue(struct chainobj *o, const char *name,
                                          enum chainobj_role role)
{
	struct chainobj_queue *q;

	APPEND_NAMED(&o->queues, &o->n_queues, name, q);
	q->role = role;
	return q;
}

struct chainobj_wqe *chainobj_queue_add_wqe(struct chainobj_queue *q, enum chainobj_ring ring,
                                            uint32_t slot, const void *bytes, uint32_t len,
                                            const char *note)
{
	struct chainobj_wqe **arr = ring == CHAINOBJ_RING_RQ ? &q->rq : &q->sq;
	uint32_t *n = ring == CHAINOBJ_RING_RQ ? &q->n_rq : &q->n_sq;
	uint8_t *copy = malloc(len ? len : 1);
	char *note_copy = note ? copy_str(note) : NULL;
	struct chainobj_wqe *w;

	if (!copy || (note && !note_copy)) {
		free(copy);
		free(note_copy);
		return NULL;
	}
	w = grow((void **)arr, n, sizeof(**arr));
	if (!w) {
		free(copy);
		free(note_copy);
		return NULL;
	}
	if (len)
		memcpy(copy, bytes, len);
	w->slot = slot;
	w->len = len;
	w->bytes = copy;
	w->note = note_copy;
	return w;
}

struct chainobj_entry *chainobj_add_entry(struct chainobj *o, const char *name)
{
	struct chainobj_entry *e;

	APPEND_NAMED(&o->entries, &o->n_entries, name, e);
	return e;
}

struct chainobj_param *chainobj_entry_add_param(struct chainobj_entry *e, const char *name)
{
	struct chainobj_param *p;

	APPEND_NAMED(&e->params, &e->n_params, name, p);
	p->copies = 1;
	return p;
}

struct chainobj_result *chainobj_entry_add_result(struct chainobj_entry *e, const char *name)
{
	struct chainobj_result *r;

	APPEND_NAMED(&e->results, &e->n_results, name, r);
	return r;
}

struct chainobj_patch *chainobj_add_patch(struct chainobj *o)
{
	return grow((void **)&o->patches, &o->n_patches, sizeof(*o->patches));
}

struct chainobj_reloc *chainobj_add_reloc(struct chainobj *o)
{
	return grow((void **)&o->relocs, &o->n_relocs, sizeof(*o->relocs));
}

struct chainobj_loop *chainobj_add_loop(struct chainobj *o, const char *name)
{
	struct chainobj_loop *l;

	APPEND_NAMED(&o->summary.loops, &o->summary.n_loops, name, l);
	return l;
}

struct chainobj_touch *chainobj_add_touch(struct chainobj *o)
{
	return grow((void **)&o->summary.touched, &o->summary.n_touched,
	            sizeof(*o->summary.touched));
}

struct chainobj_exit *chainobj_add_exit(struct chainobj *o)
{
	uint32_t nq = o->n_queues ? o->n_queues : 1, nc = o->n_cqs ? o->n_cqs : 1;
	uint32_t *sq = calloc(nq, sizeof(*sq)), *rq = calloc(nq, sizeof(*rq));
	uint32_t *cq = calloc(nc, sizeof(*cq));
	struct chainobj_exit *x = NULL;

	if (sq && rq && cq)
		x = grow((void **)&o->exits, &o->n_exits, sizeof(*o->exits));
	if (!x) {
		free(sq);
		free(rq);
		free(cq);
		return NULL;
	}
	x->n_queues = o->n_queues;
	x->n_cqs = o->n_cqs;
	x->sq_advance = sq;
	x->rq_advance = rq;
	x->cq_advance = cq;
	return x;
}

int chainobj_set_scratch_init(struct chainobj *o, const void *bytes, uint32_t len)
{
	uint8_t *copy = NULL;

	if (len) {
		copy = malloc(len);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, bytes, len);
	}
	free(o->scratch_init);
	o->scratch_init = copy;
	o->scratch_init_len = len;
	return 0;
}

/* ---- lookups ----------------------------------------------------------- */

#define FIND_BY_NAME(arr, n, key)                                                                  \
	do {                                                                                       \
		for (uint32_t i_ = 0; key && i_ < (n); i_++)                                       \
			if ((arr)[i_].name && !strcmp((arr)[i_].name, key))                        \
				return (int)i_;                                                    \
		return -1;                                                                         \
	} while (0)

int chainobj_find_queue(const struct chainobj *o, const char *name)
{
	FIND_BY_NAME(o->queues, o->n_queues, name);
}

int chainobj_find_cq(const struct chainobj *o, const char *name)
{
	FIND_BY_NAME(o->cqs, o->n_cqs, name);
}

int chainobj_find_region(const struct chainobj *o, const char *name)
{
	FIND_BY_NAME(o->regions, o->n_regions, name);
}

const struct chainobj_wqe *chainobj_site_wqe(const struct chainobj *o, uint32_t queue,
                                             enum chainobj_ring ring, uint32_t wqe)
{
	const struct chainobj_queue *q;

	if (queue >= o->n_queues)
		return NULL;
	q = &o->queues[queue];
	if (ring == CHAINOBJ_RING_SQ)
		return wqe < q->n_sq ? &q->sq[wqe] : NULL;
	if (ring == CHAINOBJ_RING_RQ)
		return wqe < q->n_rq ? &q->rq[wqe] : NULL;
	return NULL;
}

/* ---- relocated values -------------------------------------------------- */

void chainobj_put_uint(uint8_t *p, uint32_t width, enum chainobj_order order, uint64_t value)
{
	uint64_t v;

	if (width > 8)
		width = 8;
	/* The low @width bytes of @value in @order: the last @width bytes of
	 * its big-endian image, or the first of its little-endian one.  The
	 * common widths are fixed-size copies (one store each): the runtime
	 * relocates every re-armed window with these. */
	v = order == CHAINOBJ_ORDER_LITTLE ? htole64(value) : htobe64(value);
	const uint8_t *src = (const uint8_t *)&v + (order == CHAINOBJ_ORDER_LITTLE ? 0 : 8 - width);

	switch (width) {
	case 2:
		memcpy(p, src, 2);
		break;
	case 4:
		memcpy(p, src, 4);
		break;
	case 8:
		memcpy(p, src, 8);
		break;
	default:
		memcpy(p, src, width);
		break;
	}
}

uint64_t chainobj_get_uint(const uint8_t *p, uint32_t width, enum chainobj_order order)
{
	uint64_t v = 0;

	if (width > 8)
		width = 8;
	for (uint32_t i = 0; i < width; i++) {
		uint8_t b = order == CHAINOBJ_ORDER_LITTLE ? p[i] : p[width - 1 - i];

		v |= (uint64_t)b << (8 * i);
	}
	return v;
}
