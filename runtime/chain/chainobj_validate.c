/* SPDX-License-Identifier: MIT */
/*
 * chain/chainobj_validate.c - structural validation of a chain object.
 *
 * Owns: chainobj_validate(): after it returns 0, every index in the object
 * is in range, every template decodes with the codec and sits inside its
 * ring, every relocation and patch site lies inside its WQE, every patch
 * writer exists and is of the kind claimed, and every entry parameter is
 * exactly the receive scatter entries it says it lands in.  Code that walks
 * an object (writer, dump, loader) may rely on that.
 *
 * Must not: decide whether the program is safe to run (the security
 * verifier does that on top), allocate, or print.
 */
#include "chain/chainobj.h"
#include "chain/chainobj_diag.h"
#include "chain/chainobj_yaml.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <prism/wqe.h>

/*
 * The field being checked is recorded as a format and up to three indices,
 * and formatted only when an error is reported: validation runs on every
 * compile and every load, and formatting a path per field dominated it.
 */
struct vctx {
	const struct chainobj *o;
	struct diag_report *d;
	const char *pfmt; /* "queues[%u].sq[%u].hex" */
	unsigned parg[3];
	char path[128];
};

static inline void vpath3(struct vctx *v, const char *fmt, unsigned a, unsigned b, unsigned c)
{
	v->pfmt = fmt;
	v->parg[0] = a;
	v->parg[1] = b;
	v->parg[2] = c;
}

static int vfail(struct vctx *v, enum chainobj_err kind, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int vfail(struct vctx *v, enum chainobj_err kind, unsigned line, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	snprintf(v->path, sizeof(v->path), v->pfmt ? v->pfmt : "", v->parg[0], v->parg[1],
	         v->parg[2]);
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return chainobj_diag_set(v->d, kind, line, 0, v->path, "%s", what);
}

#define VFAIL(v, kind, line, ...) vfail(v, kind, line, __VA_ARGS__)
/* VPATH(v, fmt[, up to three unsigned indices]) */
#define VPATH_(v, fmt, a, b, c, ...) vpath3(v, fmt, a, b, c)
#define VPATH(v, ...)                VPATH_(v, __VA_ARGS__, 0u, 0u, 0u)

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

static const char *ring_name(enum chainobj_ring r)
{
	return r == CHAINOBJ_RING_RQ ? "rq" : "sq";
}

/* ---- names ------------------------------------------------------------- */

/* Check a name and its uniqueness among @n earlier names at stride @stride. */
static int check_name(struct vctx *v, const char *name, unsigned line, const void *arr,
                      size_t stride, uint32_t n)
{
	if (!chainobj_name_ok(name))
		return VFAIL(v, CHAINOBJ_E_NAME, line, "invalid name '%.40s'", name ? name : "");
	for (uint32_t i = 0; i < n; i++) {
		const char *other = *(char *const *)((const char *)arr + i * stride);

		if (other && !strcmp(other, name))
			return VFAIL(v, CHAINOBJ_E_DUPLICATE, line, "duplicate name '%s'", name);
	}
	return 0;
}

/* ---- regions, CQs ------------------------------------------------------ */

#define ACC_ALL (CHAINOBJ_ACC_READ | CHAINOBJ_ACC_WRITE | CHAINOBJ_ACC_ATOMIC)

static int check_regions(struct vctx *v)
{
	const struct chainobj *o = v->o;

	if (o->n_regions > CHAINOBJ_MAX_REGIONS)
		return VPATH(v, "regions"), VFAIL(v, CHAINOBJ_E_RANGE, 0, "%u regions (max %u)",
		                                  o->n_regions, CHAINOBJ_MAX_REGIONS);
	for (uint32_t i = 0; i < o->n_regions; i++) {
		const struct chainobj_region *r = &o->regions[i];
		int rc;

		VPATH(v, "regions[%u].name", i);
		rc = check_name(v, r->name, r->line, o->regions, sizeof(*r), i);
		if (rc)
			return rc;
		VPATH(v, "regions[%u].size", i);
		if (!r->size || r->size > CHAINOBJ_MAX_REGION_SIZE)
			return VFAIL(v, CHAINOBJ_E_RANGE, r->line, "size %llu outside 1..%llu",
			             (unsigned long long)r->size,
			             (unsigned long long)CHAINOBJ_MAX_REGION_SIZE);
		VPATH(v, "regions[%u].access", i);
		if (!r->access || (r->access & ~ACC_ALL))
			return VFAIL(v, CHAINOBJ_E_RANGE, r->line, "access bits 0x%x invalid",
			             r->access);
	}
	return 0;
}

static int check_cqs(struct vctx *v)
{
	const struct chainobj *o = v->o;

	if (o->n_cqs > CHAINOBJ_MAX_CQS)
		return VPATH(v, "cqs"),
		       VFAIL(v, CHAINOBJ_E_RANGE, 0, "%u CQs (max %u)", o->n_cqs, CHAINOBJ_MAX_CQS);
	for (uint32_t i = 0; i < o->n_cqs; i++) {
		const struct chainobj_cq *c = &o->cqs[i];
		int rc;

		VPATH(v, "cqs[%u].name", i);
		rc = check_name(v, c->name, c->line, o->cqs, sizeof(*c), i);
		if (rc)
			return rc;
		VPATH(v, "cqs[%u].entries", i);
		if (!is_pow2(c->entries) || c->entries > CHAINOBJ_MAX_CQE)
			return VFAIL(v, CHAINOBJ_E_RING, c->line,
			             "%u entries: not a power of two in 1..%u", c->entries,
			             CHAINOBJ_MAX_CQE);
		VPATH(v, "cqs[%u].per-invocation", i);
		if (c->per_invocation > c->entries && !c->ignore_overrun)
			return VFAIL(v, CHAINOBJ_E_RING, c->line,
			             "%u CQEs per invocation overrun a %u-entry CQ "
			             "(set ignore-overrun)",
			             c->per_invocation, c->entries);
	}
	return 0;
}

/* ---- queues and templates ---------------------------------------------- */

static int check_note(struct vctx *v, const struct chainobj_wqe *w)
{
	if (!chainobj_note_ok(w->note))
		return VFAIL(v, CHAINOBJ_E_RANGE, w->line,
		             "note must be printable ASCII, at most %u bytes", CHAINOBJ_NOTE_MAX);
	return 0;
}

static int check_sq(struct vctx *v, uint32_t qi, const struct chainobj_queue *q)
{
	uint64_t next_free = 0; /* first BB after the previous template */

	if (q->n_sq > q->sq_slots)
		return VPATH(v, "queues[%u].sq", qi),
		       VFAIL(v, CHAINOBJ_E_RING, q->line, "%u templates do not fit %u slots",
		             q->n_sq, q->sq_slots);
	for (uint32_t i = 0; i < q->n_sq; i++) {
		const struct chainobj_wqe *w = &q->sq[i];
		struct prism_wqe dec;
		struct prism_wqe_diag wd = {0};
		uint64_t bbs;
		int n;

		VPATH(v, "queues[%u].sq[%u].hex", qi, i);
		if (!w->bytes || !w->len || w->len > PRISM_WQE_MAX_BYTES)
			return VFAIL(v, CHAINOBJ_E_WQE, w->line, "%u bytes: not a WQE (1..%u)",
			             w->len, PRISM_WQE_MAX_BYTES);
		n = prism_wqe_decode(w->bytes, w->len, &dec, &wd);
		if (n < 0)
			return VFAIL(v, CHAINOBJ_E_WQE, w->line, "byte %u: %s", wd.offset,
			             wd.msg[0] ? wd.msg : prism_wqe_strerror(n));
		if ((uint32_t)n != w->len)
			return VFAIL(v, CHAINOBJ_E_WQE, w->line,
			             "%u bytes given but the WQE's ds says %d", w->len, n);
		VPATH(v, "queues[%u].sq[%u].slot", qi, i);
		bbs = prism_wqe_bbs((unsigned)(w->len / PRISM_WQE_DS_BYTES));
		if (w->slot < next_free)
			return VFAIL(v, CHAINOBJ_E_RING, w->line,
			             "slot %u overlaps the previous template (next free slot %llu)",
			             w->slot, (unsigned long long)next_free);
		if ((uint64_t)w->slot + bbs > q->sq_slots)
			return VFAIL(v, CHAINOBJ_E_RING, w->line,
			             "slot %u + %llu BBs runs past the %u-slot ring", w->slot,
			             (unsigned long long)bbs, q->sq_slots);
		next_free = (uint64_t)w->slot + bbs;
		VPATH(v, "queues[%u].sq[%u].note", qi, i);
		if (check_note(v, w))
			return -EINVAL;
	}
	return 0;
}

static int check_rq(struct vctx *v, uint32_t qi, const struct chainobj_queue *q)
{
	uint32_t stride = q->rq_stride_ds * PRISM_WQE_DS_BYTES;

	if (q->n_rq > q->rq_slots)
		return VPATH(v, "queues[%u].rq", qi),
		       VFAIL(v, CHAINOBJ_E_RING, q->line, "%u templates do not fit %u slots",
		             q->n_rq, q->rq_slots);
	for (uint32_t i = 0; i < q->n_rq; i++) {
		const struct chainobj_wqe *w = &q->rq[i];
		struct prism_sge sge[PRISM_WQE_MAX_SGE];
		struct prism_wqe_diag wd = {0};
		int n;

		VPATH(v, "queues[%u].rq[%u].hex", qi, i);
		if (!w->bytes || w->len != stride)
			return VFAIL(v, CHAINOBJ_E_RING, w->line,
			             "%u bytes but the receive stride is %u", w->len, stride);
		n = prism_rwqe_decode(w->bytes, q->rq_stride_ds, sge, PRISM_WQE_MAX_SGE, &wd);
		if (n < 0)
			return VFAIL(v, CHAINOBJ_E_WQE, w->line, "byte %u: %s", wd.offset,
			             wd.msg[0] ? wd.msg : prism_wqe_strerror(n));
		VPATH(v, "queues[%u].rq[%u].slot", qi, i);
		if (w->slot >= q->rq_slots)
			return VFAIL(v, CHAINOBJ_E_RING, w->line,
			             "slot %u outside the %u-slot ring", w->slot, q->rq_slots);
		if (i && w->slot <= q->rq[i - 1].slot)
			return VFAIL(v, CHAINOBJ_E_RING, w->line,
			             "slot %u not after the previous template's slot %u", w->slot,
			             q->rq[i - 1].slot);
		VPATH(v, "queues[%u].rq[%u].note", qi, i);
		if (check_note(v, w))
			return -EINVAL;
	}
	return 0;
}

/* A recycled loop's lap queue: the ring is exactly its templates, the lap
 * counter is a WAIT count / SEND_EN index, its advances are dynamic. */
static int check_recycle(struct vctx *v, uint32_t qi, const struct chainobj_queue *q)
{
	const struct chainobj *o = v->o;
	const struct chainobj_recycle *r = &q->recycle;
	const struct chainobj_wqe *t;
	struct prism_wqe w;
	uint32_t end = 0, fo, fl;

	if (!r->max_laps)
		return 0;
	VPATH(v, "queues[%u].recycle", qi);
	if (o->schema < CHAINOBJ_SCHEMA_RECYCLE)
		return VFAIL(v, CHAINOBJ_E_VERSION, q->line, "a recycled queue needs schema %u",
		             CHAINOBJ_SCHEMA_RECYCLE);
	if (!q->managed_send || q->sq_per_invocation || q->rq_slots)
		return VFAIL(
		    v, CHAINOBJ_E_RING, q->line,
		    "a lap queue is managed, has no receive ring, and advances by its laps "
		    "only (sq-per-invocation 0)");
	for (uint32_t i = 0; i < q->n_sq; i++) {
		uint32_t e = q->sq[i].slot + prism_wqe_bbs(q->sq[i].len / PRISM_WQE_DS_BYTES);
		if (e > end)
			end = e;
	}
	if (end != q->sq_slots)
		return VFAIL(v, CHAINOBJ_E_RING, q->line,
		             "the lap's templates fill %u of the %u ring slots (a lap is exactly "
		             "the ring)",
		             end, q->sq_slots);
	if ((uint64_t)r->max_laps * q->sq_slots > 0xffffu)
		return VFAIL(v, CHAINOBJ_E_RANGE, q->line,
		             "%u laps of %u slots overflow the 16-bit SEND_EN index", r->max_laps,
		             q->sq_slots);
	VPATH(v, "queues[%u].recycle.counter-wqe", qi);
	t = chainobj_site_wqe(o, qi, CHAINOBJ_RING_SQ, r->counter_wqe);
	if (!t || prism_wqe_decode(t->bytes, t->len, &w, NULL) < 0 ||
	    (w.ctrl.opcode != PRISM_OP_SEND_ENABLE && w.ctrl.opcode != PRISM_OP_CQE_WAIT) ||
	    prism_wqe_field_offset(&w, PRISM_FIELD_WAIT_EN_INDEX, &fo, &fl) != 0 ||
	    fo != r->counter_offset || fl != 4)
		return VFAIL(v, CHAINOBJ_E_SITE, q->line,
		             "template %u byte %u is not a WAIT count or SEND_EN index",
		             r->counter_wqe, r->counter_offset);
	VPATH(v, "queues[%u].send-cq", qi);
	if (!o->cqs[q->send_cq].ignore_overrun || o->cqs[q->send_cq].per_invocation)
		return VFAIL(v, CHAINOBJ_E_RING, q->line,
		             "a lap queue's CQ ignores overrun and advances by its laps only");
	return 0;
}

static int check_queue(struct vctx *v, uint32_t qi)
{
	const struct chainobj *o = v->o;
	const struct chainobj_queue *q = &o->queues[qi];
	int rc;

	VPATH(v, "queues[%u].name", qi);
	rc = check_name(v, q->name, q->line, o->queues, sizeof(*q), qi);
	if (rc)
		return rc;
	VPATH(v, "queues[%u].role", qi);
	if ((unsigned)q->role > CHAINOBJ_ROLE_LANE)
		return VFAIL(v, CHAINOBJ_E_RANGE, q->line, "unknown role %u", (unsigned)q->role);
	VPATH(v, "queues[%u].lane", qi);
	if (q->role != CHAINOBJ_ROLE_LANE && q->lane)
		return VFAIL(v, CHAINOBJ_E_RANGE, q->line, "lane %u on a %s queue", q->lane,
		             chainobj_role_name(q->role));
	if (q->lane >= CHAINOBJ_MAX_QUEUES)
		return VFAIL(v, CHAINOBJ_E_RANGE, q->line, "lane %u (max %u)", q->lane,
		             CHAINOBJ_MAX_QUEUES - 1);
	VPATH(v, "queues[%u].sq-slots", qi);
	if (!is_pow2(q->sq_slots) || q->sq_slots > CHAINOBJ_MAX_RING)
		return VFAIL(v, CHAINOBJ_E_RING, q->line, "%u: not a power of two in 1..%u",
		             q->sq_slots, CHAINOBJ_MAX_RING);
	VPATH(v, "queues[%u].rq-slots", qi);
	if (q->rq_slots && (!is_pow2(q->rq_slots) || q->rq_slots > CHAINOBJ_MAX_RING))
		return VFAIL(v, CHAINOBJ_E_RING, q->line, "%u: not 0 or a power of two up to %u",
		             q->rq_slots, CHAINOBJ_MAX_RING);
	VPATH(v, "queues[%u].rq-stride-ds", qi);
	if (q->rq_slots &&
	    (!is_pow2(q->rq_stride_ds) || q->rq_stride_ds > CHAINOBJ_MAX_RQ_STRIDE_DS))
		return VFAIL(v, CHAINOBJ_E_RING, q->line, "%u: not a power of two in 1..%u",
		             q->rq_stride_ds, CHAINOBJ_MAX_RQ_STRIDE_DS);
	if (!q->rq_slots && q->rq_stride_ds)
		return VFAIL(v, CHAINOBJ_E_RING, q->line, "stride %u without a receive ring",
		             q->rq_stride_ds);
	VPATH(v, "queues[%u].send-cq", qi);
	if (q->send_cq >= o->n_cqs)
		return VFAIL(v, CHAINOBJ_E_NAME, q->line, "CQ index %u does not exist", q->send_cq);
	VPATH(v, "queues[%u].recv-cq", qi);
	if (q->recv_cq >= o->n_cqs)
		return VFAIL(v, CHAINOBJ_E_NAME, q->line, "CQ index %u does not exist", q->recv_cq);
	VPATH(v, "queues[%u].sq-per-invocation", qi);
	if (q->sq_per_invocation > q->sq_slots)
		return VFAIL(v, CHAINOBJ_E_RING, q->line, "%u exceeds the %u-slot ring",
		             q->sq_per_invocation, q->sq_slots);
	VPATH(v, "queues[%u].rq-per-invocation", qi);
	if (q->rq_per_invocation > q->rq_slots)
		return VFAIL(v, CHAINOBJ_E_RING, q->line, "%u exceeds the %u-slot ring",
		             q->rq_per_invocation, q->rq_slots);
	rc = check_sq(v, qi, q);
	if (!rc)
		rc = check_rq(v, qi, q);
	return rc ? rc : check_recycle(v, qi, q);
}

static int check_queues(struct vctx *v)
{
	const struct chainobj *o = v->o;

	if (o->n_queues > CHAINOBJ_MAX_QUEUES)
		return VPATH(v, "queues"), VFAIL(v, CHAINOBJ_E_RANGE, 0, "%u queues (max %u)",
		                                 o->n_queues, CHAINOBJ_MAX_QUEUES);
	for (uint32_t i = 0; i < o->n_queues; i++) {
		int rc = check_queue(v, i);

		if (rc)
			return rc;
	}
	return 0;
}

/* ---- sites ------------------------------------------------------------- */

/* A site must name an existing template and lie inside its bytes. */
static int check_site(struct vctx *v, const struct chainobj_site *s, unsigned line,
                      uint32_t max_width)
{
	const struct chainobj_wqe *w;

	if ((unsigned)s->ring > CHAINOBJ_RING_RQ)
		return VFAIL(v, CHAINOBJ_E_RANGE, line, "unknown ring %u", (unsigned)s->ring);
	if (s->queue >= v->o->n_queues)
		return VFAIL(v, CHAINOBJ_E_NAME, line, "queue index %u does not exist", s->queue);
	w = chainobj_site_wqe(v->o, s->queue, s->ring, s->wqe);
	if (!w)
		return VFAIL(v, CHAINOBJ_E_SITE, line, "queue '%s' has no %s WQE %u",
		             v->o->queues[s->queue].name, ring_name(s->ring), s->wqe);
	if (!s->width || s->width > max_width)
		return VFAIL(v, CHAINOBJ_E_RANGE, line, "width %u outside 1..%u", s->width,
		             max_width);
	if ((uint64_t)s->offset + s->width > w->len)
		return VFAIL(v, CHAINOBJ_E_SITE, line,
		             "bytes %u..%llu lie outside %s WQE %u of queue '%s' (%u bytes)",
		             s->offset, (unsigned long long)s->offset + s->width - 1,
		             ring_name(s->ring), s->wqe, v->o->queues[s->queue].name, w->len);
	return 0;
}

/* ---- patches ----------------------------------------------------------- */

/* What each patch kind requires of its writer. */
static const struct {
	enum chainobj_ring ring;
	uint8_t op1, op2; /* allowed writer opcodes (SQ kinds) */
	bool scatter;     /* names a scatter entry */
} patch_rule[CHAINOBJ_PATCH__COUNT] = {
    [CHAINOBJ_PATCH_READ_SCATTER] = {CHAINOBJ_RING_SQ, PRISM_OP_RDMA_READ, PRISM_OP_RDMA_READ,
                                     true},
    [CHAINOBJ_PATCH_RECV_SCATTER] = {CHAINOBJ_RING_RQ, 0, 0, true},
    [CHAINOBJ_PATCH_CAS] = {CHAINOBJ_RING_SQ, PRISM_OP_ATOMIC_CS, PRISM_OP_ATOMIC_CS, false},
    [CHAINOBJ_PATCH_FETCH_ADD] = {CHAINOBJ_RING_SQ, PRISM_OP_ATOMIC_FA, PRISM_OP_ATOMIC_FA, false},
    [CHAINOBJ_PATCH_MASKED_CAS] = {CHAINOBJ_RING_SQ, PRISM_OP_ATOMIC_MASKED_CS,
                                   PRISM_OP_ATOMIC_MASKED_CS, false},
    [CHAINOBJ_PATCH_MASKED_FETCH_ADD] = {CHAINOBJ_RING_SQ, PRISM_OP_ATOMIC_MASKED_FA,
                                         PRISM_OP_ATOMIC_MASKED_FA, false},
    [CHAINOBJ_PATCH_WRITE] = {CHAINOBJ_RING_SQ, PRISM_OP_RDMA_WRITE, PRISM_OP_RDMA_WRITE_IMM,
                              false},
};

static int check_patch_sq_writer(struct vctx *v, const struct chainobj_patch *p,
                                 const struct chainobj_wqe *w)
{
	struct prism_wqe dec;
	uint64_t total = 0;

	if (prism_wqe_decode(w->bytes, w->len, &dec, NULL) < 0)
		return VFAIL(v, CHAINOBJ_E_WQE, p->line, "writer does not decode");
	/* a guarded writer is judged in the form it runs in */
	if (dec.ctrl.opcode == PRISM_OP_NOP && dec.ctrl.ds > 1) {
		struct prism_wqe armed;
		if (chainobj_armed_decode(v->o, p->writer_queue, p->writer_wqe, &armed) > 0)
			dec = armed;
	}
	if (dec.ctrl.opcode != patch_rule[p->kind].op1 &&
	    dec.ctrl.opcode != patch_rule[p->kind].op2)
		return VFAIL(v, CHAINOBJ_E_PATCH, p->line, "a %s patch cannot be written by a %s",
		             chainobj_patch_kind_name(p->kind), prism_opcode_name(dec.ctrl.opcode));
	switch (p->kind) {
	case CHAINOBJ_PATCH_READ_SCATTER:
		if (p->writer_sge >= dec.num_sge)
			return VFAIL(v, CHAINOBJ_E_PATCH, p->line,
			             "writer has %u scatter entries, no entry %u", dec.num_sge,
			             p->writer_sge);
		if (dec.sge[p->writer_sge].byte_count != p->target.width)
			return VFAIL(v, CHAINOBJ_E_PATCH, p->line,
			             "scatter entry %u moves %u bytes, target is %u", p->writer_sge,
			             dec.sge[p->writer_sge].byte_count, p->target.width);
		return 0;
	case CHAINOBJ_PATCH_CAS:
	case CHAINOBJ_PATCH_FETCH_ADD:
	case CHAINOBJ_PATCH_MASKED_CAS:
	case CHAINOBJ_PATCH_MASKED_FETCH_ADD: {
		uint32_t size = dec.has_atomic ? dec.atomic.size : 8;

		if (p->target.width != size)
			return VFAIL(v, CHAINOBJ_E_PATCH, p->line,
			             "a %u-byte atomic cannot patch %u bytes", size,
			             p->target.width);
		return 0;
	}
	default: /* WRITE */
		if (dec.is_inline)
			total = dec.inline_len;
		for (unsigned i = 0; i < dec.num_sge; i++)
			total += dec.sge[i].byte_count;
		if (p->target.width > total)
			return VFAIL(v, CHAINOBJ_E_PATCH, p->line,
			             "writer moves %llu bytes, target is %u",
			             (unsigned long long)total, p->target.width);
		return 0;
	}
}

static int check_patch(struct vctx *v, uint32_t i)
{
	const struct chainobj *o = v->o;
	const struct chainobj_patch *p = &o->patches[i];
	const struct chainobj_wqe *w;
	int rc;

	VPATH(v, "patches[%u].kind", i);
	if ((unsigned)p->kind >= CHAINOBJ_PATCH__COUNT)
		return VFAIL(v, CHAINOBJ_E_RANGE, p->line, "unknown kind %u", (unsigned)p->kind);
	VPATH(v, "patches[%u].target", i);
	rc = check_site(v, &p->target, p->line, PRISM_WQE_MAX_BYTES);
	if (rc)
		return rc;
	VPATH(v, "patches[%u].writer", i);
	if ((unsigned)p->writer_ring > CHAINOBJ_RING_RQ)
		return VFAIL(v, CHAINOBJ_E_RANGE, p->line, "unknown ring %u",
		             (unsigned)p->writer_ring);
	if (p->writer_ring != patch_rule[p->kind].ring)
		return VFAIL(v, CHAINOBJ_E_PATCH, p->line, "a %s patch is written from the %s",
		             chainobj_patch_kind_name(p->kind),
		             ring_name(patch_rule[p->kind].ring));
	if (p->writer_queue >= o->n_queues)
		return VFAIL(v, CHAINOBJ_E_PATCH, p->line, "writer queue index %u does not exist",
		             p->writer_queue);
	w = chainobj_site_wqe(o, p->writer_queue, p->writer_ring, p->writer_wqe);
	if (!w)
		return VFAIL(v, CHAINOBJ_E_PATCH, p->line, "writer: queue '%s' has no %s WQE %u",
		             o->queues[p->writer_queue].name, ring_name(p->writer_ring),
		             p->writer_wqe);
	if (!patch_rule[p->kind].scatter && p->writer_sge)
		return VFAIL(v, CHAINOBJ_E_PATCH, p->line, "a %s patch names no scatter entry",
		             chainobj_patch_kind_name(p->kind));
	if (p->writer_ring == CHAINOBJ_RING_RQ) {
		const struct chainobj_queue *q = &o->queues[p->writer_queue];
		struct prism_sge sge[PRISM_WQE_MAX_SGE];
		int n = prism_rwqe_decode(w->bytes, q->rq_stride_ds, sge, PRISM_WQE_MAX_SGE, NULL);

		if (n < 0 || p->writer_sge >= (uint32_t)n)
			return VFAIL(v, CHAINOBJ_E_PATCH, p->line,
			             "receive WQE has %d scatter entries, no entry %u",
			             n < 0 ? 0 : n, p->writer_sge);
		if (sge[p->writer_sge].byte_count != p->target.width)
			return VFAIL(v, CHAINOBJ_E_PATCH, p->line,
			             "scatter entry %u moves %u bytes, target is %u", p->writer_sge,
			             sge[p->writer_sge].byte_count, p->target.width);
		return 0;
	}
	return check_patch_sq_writer(v, p, w);
}

/* ---- relocations ------------------------------------------------------- */

static uint64_t ring_bytes(const struct chainobj_queue *q, enum chainobj_ring ring)
{
	if (ring == CHAINOBJ_RING_RQ)
		return (uint64_t)q->rq_slots * q->rq_stride_ds * PRISM_WQE_DS_BYTES;
	return (uint64_t)q->sq_slots * PRISM_WQE_BB;
}

static int check_reloc(struct vctx *v, uint32_t i)
{
	const struct chainobj *o = v->o;
	const struct chainobj_reloc *r = &o->relocs[i];
	enum chainobj_ref ref;
	uint32_t limit = 0;
	uint64_t space = 0;
	int rc;

	VPATH(v, "relocs[%u].kind", i);
	if ((unsigned)r->kind >= CHAINOBJ_RELOC__COUNT)
		return VFAIL(v, CHAINOBJ_E_RANGE, r->line, "unknown kind %u", (unsigned)r->kind);
	VPATH(v, "relocs[%u].order", i);
	if ((unsigned)r->order > CHAINOBJ_ORDER_LITTLE)
		return VFAIL(v, CHAINOBJ_E_RANGE, r->line, "unknown byte order %u",
		             (unsigned)r->order);
	VPATH(v, "relocs[%u].site", i);
	rc = check_site(v, &r->site, r->line, 8);
	if (rc)
		return rc;
	VPATH(v, "relocs[%u].target", i);
	ref = chainobj_reloc_kind_ref(r->kind);
	limit = ref == CHAINOBJ_REF_QUEUE    ? o->n_queues
	        : ref == CHAINOBJ_REF_CQ     ? o->n_cqs
	        : ref == CHAINOBJ_REF_REGION ? o->n_regions
	                                     : 1;
	if (r->target >= limit)
		return VFAIL(v, CHAINOBJ_E_NAME, r->line, "%s target index %u does not exist",
		             chainobj_reloc_kind_name(r->kind), r->target);
	VPATH(v, "relocs[%u].ring", i);
	if (r->ring && r->kind != CHAINOBJ_RELOC_QBUF_ADDR)
		return VFAIL(v, CHAINOBJ_E_RANGE, r->line, "ring only applies to qbuf-addr");
	if ((unsigned)r->ring > CHAINOBJ_RING_RQ)
		return VFAIL(v, CHAINOBJ_E_RANGE, r->line, "unknown ring %u", r->ring);
	if (chainobj_reloc_kind_count_use(r->kind) == CHAINOBJ_COUNT_NO && (r->stride || r->delta))
		return VPATH(v, "relocs[%u].stride", i),
		       VFAIL(v, CHAINOBJ_E_RANGE, r->line,
		             "stride/delta only apply to counts and qbuf-addr");
	VPATH(v, "relocs[%u].addend", i);
	switch (r->kind) {
	case CHAINOBJ_RELOC_QBUF_ADDR:
		space = ring_bytes(&o->queues[r->target], (enum chainobj_ring)r->ring);
		break;
	case CHAINOBJ_RELOC_REGION_ADDR:
		space = o->regions[r->target].size;
		break;
	case CHAINOBJ_RELOC_SCRATCH_ADDR:
		space = o->scratch_size;
		break;
	case CHAINOBJ_RELOC_CLIENT_RESP_ADDR:
		space = o->response_size;
		break;
	case CHAINOBJ_RELOC_CQE_ADDR:
		space = PRISM_CQE_BYTES;
		break;
	default:
		if (r->addend)
			return VFAIL(v, CHAINOBJ_E_RANGE, r->line,
			             "addend only applies to address kinds");
		return 0;
	}
	if (r->addend >= space)
		return VFAIL(v, CHAINOBJ_E_RANGE, r->line,
		             "offset %llu outside the %llu-byte target",
		             (unsigned long long)r->addend, (unsigned long long)space);
	return 0;
}

/* Two relocations must not write the same byte. */
struct site_key {
	uint32_t queue, ring, wqe, offset, width, idx;
};

static int site_cmp(const void *a, const void *b)
{
	const struct site_key *x = a, *y = b;
	const uint32_t *px = &x->queue, *py = &y->queue;

	for (int i = 0; i < 4; i++)
		if (px[i] != py[i])
			return px[i] < py[i] ? -1 : 1;
	return 0;
}

static int check_reloc_overlap(struct vctx *v)
{
	const struct chainobj *o = v->o;
	struct site_key *k;
	int rc = 0;

	if (o->n_relocs < 2)
		return 0;
	k = calloc(o->n_relocs, sizeof(*k));
	if (!k)
		return VFAIL(v, CHAINOBJ_E_NOMEM, 0, "out of memory");
	for (uint32_t i = 0; i < o->n_relocs; i++) {
		const struct chainobj_site *s = &o->relocs[i].site;

		k[i] = (struct site_key){s->queue, s->ring, s->wqe, s->offset, s->width, i};
	}
	qsort(k, o->n_relocs, sizeof(*k), site_cmp);
	for (uint32_t i = 1; i < o->n_relocs; i++) {
		const struct site_key *a = &k[i - 1], *b = &k[i];

		if (a->queue == b->queue && a->ring == b->ring && a->wqe == b->wqe &&
		    (uint64_t)a->offset + a->width > b->offset) {
			uint32_t later = a->idx > b->idx ? a->idx : b->idx;

			VPATH(v, "relocs[%u].site", later);
			rc = VFAIL(v, CHAINOBJ_E_SITE, o->relocs[later].line,
			           "overlaps relocation %u", a->idx == later ? b->idx : a->idx);
			break;
		}
	}
	free(k);
	return rc;
}

/* ---- entries ----------------------------------------------------------- */

static int check_param(struct vctx *v, uint32_t ei, uint32_t pi)
{
	const struct chainobj *o = v->o;
	const struct chainobj_entry *e = &o->entries[ei];
	const struct chainobj_param *p = &e->params[pi];
	struct prism_sge sge[PRISM_WQE_MAX_SGE];
	const struct chainobj_wqe *w;
	uint64_t before = 0, inside = 0, bytes;
	int n, rc;

	VPATH(v, "entries[%u].params[%u].name", ei, pi);
	rc = check_name(v, p->name, p->line, e->params, sizeof(*p), pi);
	if (rc)
		return rc;
	VPATH(v, "entries[%u].params[%u].type", ei, pi);
	if ((unsigned)p->type > CHAINOBJ_PT_BYTES)
		return VFAIL(v, CHAINOBJ_E_RANGE, p->line, "unknown type %u", (unsigned)p->type);
	if (p->type == CHAINOBJ_PT_ADDR && (p->region >= o->n_regions || p->width != 8))
		return VFAIL(v, CHAINOBJ_E_PARAM, p->line,
		             "an address parameter is 8 bytes into a declared region");
	if (p->type != CHAINOBJ_PT_ADDR && p->region)
		return VFAIL(v, CHAINOBJ_E_PARAM, p->line, "only addresses name a region");
	VPATH(v, "entries[%u].params[%u].order", ei, pi);
	if ((unsigned)p->order > CHAINOBJ_ORDER_LITTLE)
		return VFAIL(v, CHAINOBJ_E_RANGE, p->line, "unknown byte order %u",
		             (unsigned)p->order);
	VPATH(v, "entries[%u].params[%u].copies", ei, pi);
	if (!p->copies || p->copies > PRISM_WQE_MAX_SGE)
		return VFAIL(v, CHAINOBJ_E_RANGE, p->line, "%u copies outside 1..%u", p->copies,
		             PRISM_WQE_MAX_SGE);
	bytes = (uint64_t)p->width * p->copies;
	VPATH(v, "entries[%u].params[%u].width", ei, pi);
	if (!p->width || (uint64_t)p->msg_offset + bytes > e->msg_size)
		return VFAIL(v, CHAINOBJ_E_PARAM, p->line,
		             "bytes %u+%llu do not fit the %u-byte message", p->msg_offset,
		             (unsigned long long)bytes, e->msg_size);
	VPATH(v, "entries[%u].params[%u].recv", ei, pi);
	if (p->queue >= o->n_queues)
		return VFAIL(v, CHAINOBJ_E_NAME, p->line, "queue index %u does not exist",
		             p->queue);
	w = chainobj_site_wqe(o, p->queue, CHAINOBJ_RING_RQ, p->rwqe);
	if (!w)
		return VFAIL(v, CHAINOBJ_E_PARAM, p->line, "queue '%s' has no receive WQE %u",
		             o->queues[p->queue].name, p->rwqe);
	n = prism_rwqe_decode(w->bytes, o->queues[p->queue].rq_stride_ds, sge, PRISM_WQE_MAX_SGE,
	                      NULL);
	if (n < 0 || !p->n_sge || (uint64_t)p->first_sge + p->n_sge > (uint64_t)n)
		return VFAIL(v, CHAINOBJ_E_PARAM, p->line,
		             "scatter entries %u+%u not in the receive WQE's %d", p->first_sge,
		             p->n_sge, n < 0 ? 0 : n);
	for (uint32_t i = 0; i < p->first_sge; i++)
		before += sge[i].byte_count;
	for (uint32_t i = p->first_sge; i < p->first_sge + p->n_sge; i++)
		inside += sge[i].byte_count;
	if (before != p->msg_offset || inside != bytes)
		return VFAIL(v, CHAINOBJ_E_PARAM, p->line,
		             "scatter entries %u+%u carry message bytes %llu+%llu, "
		             "the parameter is %u+%llu",
		             p->first_sge, p->n_sge, (unsigned long long)before,
		             (unsigned long long)inside, p->msg_offset, (unsigned long long)bytes);
	return 0;
}

static int check_entry(struct vctx *v, uint32_t ei)
{
	const struct chainobj *o = v->o;
	const struct chainobj_entry *e = &o->entries[ei];
	int rc;

	VPATH(v, "entries[%u].name", ei);
	rc = check_name(v, e->name, e->line, o->entries, sizeof(*e), ei);
	if (rc)
		return rc;
	VPATH(v, "entries[%u].message-size", ei);
	if (e->msg_size > CHAINOBJ_MAX_MSG)
		return VFAIL(v, CHAINOBJ_E_RANGE, e->line, "%u bytes (max %u)", e->msg_size,
		             CHAINOBJ_MAX_MSG);
	VPATH(v, "entries[%u].params", ei);
	if (e->n_params > CHAINOBJ_MAX_PARAMS)
		return VFAIL(v, CHAINOBJ_E_RANGE, e->line, "%u parameters (max %u)", e->n_params,
		             CHAINOBJ_MAX_PARAMS);
	for (uint32_t i = 0; i < e->n_params; i++) {
		rc = check_param(v, ei, i);
		if (rc)
			return rc;
	}
	for (uint32_t i = 0; i < e->n_results; i++) {
		const struct chainobj_result *r = &e->results[i];

		VPATH(v, "entries[%u].results[%u].name", ei, i);
		rc = check_name(v, r->name, r->line, e->results, sizeof(*r), i);
		if (rc)
			return rc;
		VPATH(v, "entries[%u].results[%u].order", ei, i);
		if ((unsigned)r->order > CHAINOBJ_ORDER_LITTLE)
			return VFAIL(v, CHAINOBJ_E_RANGE, r->line, "unknown byte order %u",
			             (unsigned)r->order);
		VPATH(v, "entries[%u].results[%u].width", ei, i);
		if (!r->width || (uint64_t)r->offset + r->width > o->response_size)
			return VFAIL(v, CHAINOBJ_E_RANGE, r->line,
			             "bytes %u+%u do not fit the %u-byte response", r->offset,
			             r->width, o->response_size);
	}
	return 0;
}

/* ---- early exits ------------------------------------------------------ */

static int check_exit(struct vctx *v, uint32_t i)
{
	const struct chainobj *o = v->o;
	const struct chainobj_exit *x = &o->exits[i];
	const struct chainobj_wqe *en;
	struct prism_wqe dec;

	VPATH(v, "exits[%u]", i);
	if (x->n_queues != o->n_queues || x->n_cqs != o->n_cqs || !x->sq_advance ||
	    !x->rq_advance || !x->cq_advance)
		return VFAIL(v, CHAINOBJ_E_EXIT, x->line,
		             "advances for %u queues and %u CQs, the object has %u and %u",
		             x->n_queues, x->n_cqs, o->n_queues, o->n_cqs);
	VPATH(v, "exits[%u].wqe", i);
	if (x->queue >= o->n_queues || !chainobj_site_wqe(o, x->queue, CHAINOBJ_RING_SQ, x->wqe))
		return VFAIL(v, CHAINOBJ_E_EXIT, x->line, "no SQ template %u in queue index %u",
		             x->wqe, x->queue);
	VPATH(v, "exits[%u].enable", i);
	en = chainobj_site_wqe(o, x->queue, CHAINOBJ_RING_SQ, x->enable);
	if (!en)
		return VFAIL(v, CHAINOBJ_E_EXIT, x->line, "no SQ template %u in queue index %u",
		             x->enable, x->queue);
	if (prism_wqe_decode(en->bytes, en->len, &dec, NULL) < 0 ||
	    dec.ctrl.opcode != PRISM_OP_SEND_ENABLE || x->enable <= x->wqe)
		return VFAIL(v, CHAINOBJ_E_EXIT, x->line,
		             "template %u is not a SEND_EN after the exit test %u", x->enable,
		             x->wqe);
	for (uint32_t q = 0; q < o->n_queues; q++) {
		VPATH(v, "exits[%u].sq[%u]", i, q);
		if (o->queues[q].recycle.max_laps &&
		    (x->sq_advance[q] || x->cq_advance[o->queues[q].send_cq]))
			return VFAIL(v, CHAINOBJ_E_EXIT, x->line,
			             "queue %s recycles: it advances by its laps, not by an exit",
			             o->queues[q].name);
		if (x->sq_advance[q] > o->queues[q].sq_slots)
			return VFAIL(v, CHAINOBJ_E_EXIT, x->line,
			             "advance %u exceeds the %u-slot ring", x->sq_advance[q],
			             o->queues[q].sq_slots);
		VPATH(v, "exits[%u].rq[%u]", i, q);
		if (x->rq_advance[q] > o->queues[q].rq_slots)
			return VFAIL(v, CHAINOBJ_E_EXIT, x->line,
			             "advance %u exceeds the %u-slot ring", x->rq_advance[q],
			             o->queues[q].rq_slots);
	}
	for (uint32_t c = 0; c < o->n_cqs; c++) {
		VPATH(v, "exits[%u].cq[%u]", i, c);
		if (x->cq_advance[c] > o->cqs[c].entries && !o->cqs[c].ignore_overrun)
			return VFAIL(v, CHAINOBJ_E_EXIT, x->line,
			             "advance %u overruns the %u-entry CQ", x->cq_advance[c],
			             o->cqs[c].entries);
	}
	return 0;
}

/* ---- summary ----------------------------------------------------------- */

static int check_summary(struct vctx *v)
{
	const struct chainobj *o = v->o;
	const struct chainobj_summary *s = &o->summary;

	if (s->n_loops > CHAINOBJ_MAX_LOOPS) {
		VPATH(v, "summary.loops");
		return VFAIL(v, CHAINOBJ_E_RANGE, 0, "%u loops (max %u)", s->n_loops,
		             CHAINOBJ_MAX_LOOPS);
	}
	for (uint32_t i = 0; i < s->n_loops; i++) {
		const struct chainobj_loop *l = &s->loops[i];
		int rc;

		VPATH(v, "summary.loops[%u].name", i);
		rc = check_name(v, l->name, l->line, s->loops, sizeof(*l), i);
		if (rc)
			return rc;
		VPATH(v, "summary.loops[%u].bound", i);
		if (!l->bound || l->bound > CHAINOBJ_MAX_CQE)
			return VFAIL(v, CHAINOBJ_E_RANGE, l->line, "bound %u outside 1..%u",
			             l->bound, CHAINOBJ_MAX_CQE);
	}
	for (uint32_t i = 0; i < s->n_touched; i++) {
		const struct chainobj_touch *t = &s->touched[i];

		VPATH(v, "summary.regions-touched[%u]", i);
		if (t->region >= o->n_regions)
			return VFAIL(v, CHAINOBJ_E_NAME, t->line, "region index %u does not exist",
			             t->region);
		/* (pigeonhole: this ends within n_regions + 1 entries) */
		for (uint32_t k = 0; k < i; k++)
			if (s->touched[k].region == t->region)
				return VFAIL(v, CHAINOBJ_E_DUPLICATE, t->line,
				             "region '%s' listed twice",
				             o->regions[t->region].name);
		if (!t->access || (t->access & ~o->regions[t->region].access)) {
			char has[32], wants[32];

			return VFAIL(
			    v, CHAINOBJ_E_RANGE, t->line,
			    "access %s beyond what region '%s' declares (%s)",
			    chainobj_access_words(t->access, wants, sizeof(wants)),
			    o->regions[t->region].name,
			    chainobj_access_words(o->regions[t->region].access, has, sizeof(has)));
		}
	}
	return 0;
}

/* ---- top level --------------------------------------------------------- */

int chainobj_validate(const struct chainobj *o, struct diag_report *diag)
{
	struct diag_report local;
	struct vctx v = {.o = o, .d = diag ? diag : &local};
	int rc;

	chainobj_diag_clear(v.d);
	if (!o)
		return chainobj_diag_set(v.d, CHAINOBJ_E_RANGE, 0, 0, "", "no object");
	if (o->schema < CHAINOBJ_SCHEMA_VERSION || o->schema > CHAINOBJ_SCHEMA_MAX)
		return VPATH(&v, "prism-chain"),
		       VFAIL(&v, CHAINOBJ_E_VERSION, 0, "schema %u (this build reads %u to %u)",
		             o->schema, CHAINOBJ_SCHEMA_VERSION, CHAINOBJ_SCHEMA_MAX);
	VPATH(&v, "program");
	if (!chainobj_name_ok(o->program))
		return VFAIL(&v, CHAINOBJ_E_NAME, 0, "invalid program name");
	VPATH(&v, "profile");
	if ((unsigned)o->profile > CHAINOBJ_PROFILE_STRICT)
		return VFAIL(&v, CHAINOBJ_E_RANGE, 0, "unknown profile %u", (unsigned)o->profile);
	VPATH(&v, "rearm");
	if ((unsigned)o->rearm > CHAINOBJ_REARM_NIC_RECYCLE)
		return VFAIL(&v, CHAINOBJ_E_RANGE, 0, "unknown re-arm mode %u", (unsigned)o->rearm);
	VPATH(&v, "assumes");
	if (o->assumes & ~CHAINOBJ_ASSUME_ALL)
		return VFAIL(&v, CHAINOBJ_E_RANGE, 0, "unknown assumption bits 0x%x",
		             o->assumes & ~CHAINOBJ_ASSUME_ALL);
	if (o->assumes && o->schema < CHAINOBJ_SCHEMA_ASSUME)
		return VFAIL(&v, CHAINOBJ_E_VERSION, 0, "assumptions need schema %u",
		             CHAINOBJ_SCHEMA_ASSUME);
	VPATH(&v, "scratch-size");
	if (o->scratch_size > CHAINOBJ_MAX_SCRATCH)
		return VFAIL(&v, CHAINOBJ_E_RANGE, 0, "%u bytes (max %u)", o->scratch_size,
		             CHAINOBJ_MAX_SCRATCH);
	VPATH(&v, "response-size");
	if (o->response_size > CHAINOBJ_MAX_MSG)
		return VFAIL(&v, CHAINOBJ_E_RANGE, 0, "%u bytes (max %u)", o->response_size,
		             CHAINOBJ_MAX_MSG);
	VPATH(&v, "scratch-init");
	if (o->scratch_init_len > o->scratch_size || (o->scratch_init_len && !o->scratch_init))
		return VFAIL(&v, CHAINOBJ_E_RANGE, 0,
		             "%u bytes do not fit the %u-byte scratch area", o->scratch_init_len,
		             o->scratch_size);
	rc = check_regions(&v);
	if (!rc)
		rc = check_cqs(&v);
	if (!rc)
		rc = check_queues(&v);
	if (!rc && o->n_entries > CHAINOBJ_MAX_ENTRIES) {
		VPATH(&v, "entries");
		rc = VFAIL(&v, CHAINOBJ_E_RANGE, 0, "%u entries (max %u)", o->n_entries,
		           CHAINOBJ_MAX_ENTRIES);
	}
	for (uint32_t i = 0; !rc && i < o->n_entries; i++)
		rc = check_entry(&v, i);
	for (uint32_t i = 0; !rc && i < o->n_patches; i++)
		rc = check_patch(&v, i);
	for (uint32_t i = 0; !rc && i < o->n_relocs; i++)
		rc = check_reloc(&v, i);
	if (!rc)
		rc = check_reloc_overlap(&v);
	for (uint32_t i = 0; !rc && i < o->n_exits; i++)
		rc = check_exit(&v, i);
	if (!rc)
		rc = check_summary(&v);
	return rc;
}
