/* SPDX-License-Identifier: MIT */
/*
 * core/proto.c - byte encodings of the connection-setup messages.
 *
 * Owns: a bounded little-endian writer/reader pair and the field order of
 * core_hello / core_welcome.  Every decode checks lengths, counts and NUL
 * termination, so a hostile peer cannot make the reader overrun.
 * Must not: interpret the messages (server.c / client.c do).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <prism/prism.h>

#include "core/proto.h"

#define HELLO_MAGIC   0x50524831u /* "PRH1" */
#define WELCOME_MAGIC 0x50525731u /* "PRW1" */
#define LIST_MAGIC    0x50524c31u /* "PRL1" */

struct wr {
	uint8_t *p;
	size_t cap, len;
};

static void w_bytes(struct wr *w, const void *src, size_t n)
{
	if (w->len + n <= w->cap)
		memcpy(w->p + w->len, src, n);
	w->len += n;
}

static void w_u32(struct wr *w, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};

	w_bytes(w, b, 4);
}

static void w_u64(struct wr *w, uint64_t v)
{
	w_u32(w, (uint32_t)v);
	w_u32(w, (uint32_t)(v >> 32));
}

static void w_name(struct wr *w, const char *s)
{
	char buf[CORE_PROTO_NAME] = {0};

	strncpy(buf, s, CORE_PROTO_NAME - 1);
	w_bytes(w, buf, CORE_PROTO_NAME);
}

struct rd {
	const uint8_t *p;
	size_t len, off;
	int err;
};

static void r_bytes(struct rd *r, void *dst, size_t n)
{
	if (r->err || r->off + n > r->len) {
		r->err = -PRISM_E_PROTO;
		memset(dst, 0, n);
		return;
	}
	memcpy(dst, r->p + r->off, n);
	r->off += n;
}

static uint32_t r_u32(struct rd *r)
{
	uint8_t b[4];

	r_bytes(r, b, 4);
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t r_u64(struct rd *r)
{
	uint64_t lo = r_u32(r);

	return lo | (uint64_t)r_u32(r) << 32;
}

static void r_name(struct rd *r, char *dst)
{
	r_bytes(r, dst, CORE_PROTO_NAME);
	if (dst[CORE_PROTO_NAME - 1])
		r->err = -PRISM_E_PROTO;
	dst[CORE_PROTO_NAME - 1] = 0;
}

size_t core_hello_encode(const struct core_hello *h, uint8_t *buf, size_t cap)
{
	struct wr w = {buf, cap, 0};

	w_u32(&w, HELLO_MAGIC);
	w_u32(&w, CORE_PROTO_VERSION);
	w_u32(&w, h->kind);
	w_name(&w, h->program);
	w_u32(&w, h->node);
	w_u32(&w, h->qpn);
	w_u64(&w, h->resp_addr);
	w_u32(&w, h->resp_rkey);
	w_u32(&w, h->resp_slots);
	w_u32(&w, h->resp_stride);
	return w.len;
}

int core_hello_decode(const uint8_t *buf, size_t len, struct core_hello *h)
{
	struct rd r = {buf, len, 0, 0};

	memset(h, 0, sizeof(*h));
	if (r_u32(&r) != HELLO_MAGIC || r_u32(&r) != CORE_PROTO_VERSION)
		return -PRISM_E_PROTO;
	h->kind = r_u32(&r);
	r_name(&r, h->program);
	h->node = r_u32(&r);
	h->qpn = r_u32(&r);
	h->resp_addr = r_u64(&r);
	h->resp_rkey = r_u32(&r);
	h->resp_slots = r_u32(&r);
	h->resp_stride = r_u32(&r);
	if (!r.err && h->kind != CORE_HELLO_CONNECT && h->kind != CORE_HELLO_POST &&
	    h->kind != CORE_HELLO_REMOVE && h->kind != CORE_HELLO_LIST)
		return -PRISM_E_PROTO;
	return r.err;
}

size_t core_welcome_encode(const struct core_welcome *m, uint8_t *buf, size_t cap)
{
	struct wr w = {buf, cap, 0};

	w_u32(&w, WELCOME_MAGIC);
	w_u32(&w, CORE_PROTO_VERSION);
	w_u32(&w, (uint32_t)m->status);
	w_u32(&w, m->node);
	w_u32(&w, m->qpn);
	w_u32(&w, m->depth);
	w_u32(&w, m->response_size);
	w_u32(&w, m->inflight);
	w_u32(&w, m->final_imm);
	w_name(&w, m->program);
	w_u32(&w, m->n_entries);
	for (uint32_t e = 0; e < m->n_entries; e++) {
		const struct core_entry_desc *en = &m->entries[e];

		w_name(&w, en->name);
		w_u32(&w, en->msg_size);
		w_u32(&w, en->n_params);
		w_u32(&w, en->n_results);
		for (uint32_t i = 0; i < en->n_params; i++) {
			const struct core_param_desc *p = &en->params[i];

			w_name(&w, p->name);
			w_u32(&w, p->type);
			w_u32(&w, p->width);
			w_u32(&w, p->order);
			w_u32(&w, p->msg_offset);
			w_u32(&w, p->copies);
			w_u64(&w, p->region_base);
			w_u64(&w, p->region_size);
		}
		for (uint32_t i = 0; i < en->n_results; i++) {
			const struct core_result_desc *res = &en->results[i];

			w_name(&w, res->name);
			w_u32(&w, res->width);
			w_u32(&w, res->order);
			w_u32(&w, res->offset);
		}
	}
	return w.len;
}

int core_welcome_decode(const uint8_t *buf, size_t len, struct core_welcome *m)
{
	struct rd r = {buf, len, 0, 0};

	memset(m, 0, sizeof(*m));
	if (r_u32(&r) != WELCOME_MAGIC || r_u32(&r) != CORE_PROTO_VERSION)
		return -PRISM_E_PROTO;
	m->status = (int32_t)r_u32(&r);
	m->node = r_u32(&r);
	m->qpn = r_u32(&r);
	m->depth = r_u32(&r);
	m->response_size = r_u32(&r);
	m->inflight = r_u32(&r);
	m->final_imm = r_u32(&r);
	r_name(&r, m->program);
	m->n_entries = r_u32(&r);
	if (r.err || m->n_entries > CHAINOBJ_MAX_ENTRIES || m->response_size > CHAINOBJ_MAX_MSG ||
	    (m->status == 0 &&
	     (!m->depth || m->depth > 1024 || !m->inflight || m->inflight > m->depth)))
		return -PRISM_E_PROTO;
	if (!m->n_entries)
		return 0;
	m->entries = calloc(m->n_entries, sizeof(*m->entries));
	if (!m->entries)
		return -ENOMEM;
	for (uint32_t e = 0; e < m->n_entries && !r.err; e++) {
		struct core_entry_desc *en = &m->entries[e];

		r_name(&r, en->name);
		en->msg_size = r_u32(&r);
		en->n_params = r_u32(&r);
		en->n_results = r_u32(&r);
		if (en->n_params > CHAINOBJ_MAX_PARAMS || en->n_results > CHAINOBJ_MAX_PARAMS ||
		    en->msg_size > CHAINOBJ_MAX_MSG) {
			r.err = -PRISM_E_PROTO;
			break;
		}
		for (uint32_t i = 0; i < en->n_params; i++) {
			struct core_param_desc *p = &en->params[i];

			r_name(&r, p->name);
			p->type = r_u32(&r);
			p->width = r_u32(&r);
			p->order = r_u32(&r);
			p->msg_offset = r_u32(&r);
			p->copies = r_u32(&r);
			p->region_base = r_u64(&r);
			p->region_size = r_u64(&r);
			/* The client writes copies * width bytes at msg_offset. */
			if (!p->width || p->width > CHAINOBJ_MAX_MSG || !p->copies ||
			    p->copies > CHAINOBJ_MAX_MSG ||
			    (uint64_t)p->msg_offset + (uint64_t)p->copies * p->width > en->msg_size)
				r.err = -PRISM_E_PROTO;
		}
		for (uint32_t i = 0; i < en->n_results; i++) {
			struct core_result_desc *res = &en->results[i];

			r_name(&r, res->name);
			res->width = r_u32(&r);
			res->order = r_u32(&r);
			res->offset = r_u32(&r);
			if ((uint64_t)res->offset + res->width > m->response_size)
				r.err = -PRISM_E_PROTO;
		}
	}
	if (r.err)
		core_welcome_free(m);
	return r.err;
}

void core_welcome_free(struct core_welcome *m)
{
	free(m->entries);
	m->entries = NULL;
	m->n_entries = 0;
}

/* One program of a listing; counts are bounded by the arrays. */
size_t core_list_encode(const struct prism_installed *l, unsigned n, uint8_t *buf, size_t cap)
{
	struct wr w = {buf, cap, 0};

	w_u32(&w, LIST_MAGIC);
	w_u32(&w, n);
	for (unsigned i = 0; i < n; i++) {
		const struct prism_installed *p = &l[i];
		uint32_t ne = p->n_entries < PRISM_LIST_ENTRIES ? p->n_entries : PRISM_LIST_ENTRIES;
		uint32_t nr = p->n_regions < PRISM_LIST_REGIONS ? p->n_regions : PRISM_LIST_REGIONS;

		w_name(&w, p->name);
		w_u32(&w, p->n_entries);
		for (uint32_t e = 0; e < ne; e++)
			w_name(&w, p->entries[e]);
		w_u32(&w, p->n_regions);
		for (uint32_t r = 0; r < nr; r++) {
			w_name(&w, p->regions[r].name);
			w_u64(&w, p->regions[r].size);
			w_u32(&w, p->regions[r].access);
		}
		w_u64(&w, p->object_bytes);
		w_u64(&w, (uint64_t)p->installed_at);
		w_u32(&w, p->installed_uid);
		w_u32(&w, (uint32_t)p->installed_pid);
		w_u64(&w, p->conns_active);
		w_u64(&w, p->conns_total);
		w_u64(&w, p->invocations);
	}
	return w.len;
}

int core_list_decode(const uint8_t *buf, size_t len, void *out, size_t cap, size_t stride,
                     unsigned *total)
{
	struct rd r = {buf, len, 0, 0};
	uint32_t n;

	if (r_u32(&r) != LIST_MAGIC)
		return -PRISM_E_PROTO;
	n = r_u32(&r);
	if (r.err || n > 4096)
		return -PRISM_E_PROTO;
	for (uint32_t i = 0; i < n && !r.err; i++) {
		struct prism_installed p;
		uint32_t ne, nr;

		memset(&p, 0, sizeof(p)); /* padding too: the caller gets these bytes */

		r_name(&r, p.name);
		p.n_entries = r_u32(&r);
		ne = p.n_entries < PRISM_LIST_ENTRIES ? p.n_entries : PRISM_LIST_ENTRIES;
		for (uint32_t e = 0; e < ne; e++)
			r_name(&r, p.entries[e]);
		p.n_regions = r_u32(&r);
		nr = p.n_regions < PRISM_LIST_REGIONS ? p.n_regions : PRISM_LIST_REGIONS;
		for (uint32_t k = 0; k < nr; k++) {
			r_name(&r, p.regions[k].name);
			p.regions[k].size = r_u64(&r);
			p.regions[k].access = r_u32(&r);
		}
		p.object_bytes = r_u64(&r);
		p.installed_at = (int64_t)r_u64(&r);
		p.installed_uid = r_u32(&r);
		p.installed_pid = (int32_t)r_u32(&r);
		p.conns_active = r_u64(&r);
		p.conns_total = r_u64(&r);
		p.invocations = r_u64(&r);
		if (!r.err && i < cap) {
			size_t keep = stride < sizeof(p) ? stride : sizeof(p);

			p.sz = stride;
			memcpy((uint8_t *)out + i * stride, &p, keep);
		}
	}
	if (r.err || r.off != r.len)
		return -PRISM_E_PROTO;
	*total = n;
	return 0;
}
