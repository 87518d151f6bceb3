/* SPDX-License-Identifier: MIT */
/*
 * compiler/lower_mem.c - values, memory reads and indirection.
 *
 * Owns: turning expressions into deliverable values (client parameter bytes,
 * bytes a READ fetches, constants), one READ per dereferenced pointer (shared
 * by every field read through it), and delivering bytes into WQE fields:
 *
 *   client SEND ──RECV scatter──► READ.raddr          (parameter pointer)
 *   READ(node) ──scatter──► next READ.raddr           (p->next: indirection)
 *              ──scatter──► response.sge.addr         (value pointer)
 *              ──scatter──► guarded WQE ctrl bytes    (`if` operand)
 *
 * WQE address fields are big-endian; a le64 pointer is byte-swapped by
 * eight one-byte scatter entries in reverse order (docs/contracts.md, lowering cookbook).  A READ
 * always starts at the pointer itself (the NIC cannot add a field offset),
 * so bytes before the first field it needs land in a scratch sink.
 *
 * Must not: place barriers, or write any WQE byte (emit.c).
 */
#include <stdlib.h>
#include <string.h>

#include "compiler/lower.h"
#include "util/array.h"

uint32_t lower_field_off(uint8_t op, enum prism_wqe_field f, uint8_t asize)
{
	struct prism_wqe w;
	uint32_t off = 0, len = 0;
	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = op;
	w.atomic.size = asize;
	if (op == PRISM_OP_ATOMIC_MASKED_CS || op == PRISM_OP_ATOMIC_MASKED_FA)
		w.ctrl.opmod = (uint8_t)PRISM_MASKED_OPMOD(asize == 4    ? 2
		                                           : asize == 16 ? 4
		                                           : asize == 32 ? 5
		                                                         : 3);
	if (prism_wqe_field_offset(&w, f, &off, &len) != 0)
		return 0;
	return off;
}

static unsigned type_width(const struct ast_type *t)
{
	if (!t)
		return 0;
	return (unsigned)t->size;
}

static bool type_be(const struct ast_type *t)
{
	return !t || ast_type_order(t) != AST_ORDER_LE;
}

static int region_index(const struct ast_region *r)
{
	return r ? (int)r->index : -1;
}

void lower_after_writers(struct lower_ctx *c, int target, uint32_t off, uint32_t len, int reader)
{
	struct ir_prog *p = c->p;
	for (unsigned i = 0; i < p->n_patches; i++) {
		const struct ir_patch *pt = &p->patches[i];
		if (pt->target == target && pt->writer >= 0 && pt->writer != reader &&
		    off < pt->off + pt->len && pt->off < off + len)
			ir_add_dep(p, pt->writer, reader);
	}
	for (unsigned i = 0; i < c->n_reads; i++)
		for (unsigned k = 0; k < c->reads[i].n; k++) {
			const struct lpick *pk = &c->reads[i].picks[k];
			if (pk->target == target && off < pk->toff + pk->width &&
			    pk->toff < off + len)
				ir_add_dep(p, c->reads[i].node, reader);
		}
}

void lower_mem_written(struct lower_ctx *c)
{
	if (c->wrote_region >= 0)
		c->mem_epoch[c->wrote_region]++;
	c->wrote_region = -1;
}

/* A new READ through `ptr` (appended to the current lane). */
static int get_read_fresh(struct lower_ctx *c, const struct lval *ptr)
{
	if (!ARRAY_RESERVE(c->reads, c->cap_reads, c->n_reads + 1)) {
		c->p->oom = true;
		return -1;
	}
	struct ir_node *n = ir_append(c->p, c->lane, PRISM_OP_RDMA_READ, IR_ROLE_DATA);
	if (!n)
		return -1;
	int id = n->id;
	n->what = "read";
	n->raddr = ir_v(IR_V_RUNTIME, 0, 0);
	n->rkey = ir_v(IR_V_REGION_RKEY, ptr->region, 0);
	if (ptr->region >= 0)
		c->p->regions[ptr->region].access_used |= 1u; /* CHAINOBJ_ACC_READ */
	int idx = (int)c->n_reads++;
	struct lread *r = &c->reads[idx];
	memset(r, 0, sizeof(*r));
	r->node = id;
	r->lane = c->lane;
	r->epoch = ptr->region >= 0 ? c->mem_epoch[ptr->region] : 0;
	r->base = *ptr;
	r->base_kind = ptr->kind;
	r->base_param = ptr->param;
	r->base_poff = ptr->poff;
	r->base_read = ptr->read;
	r->base_off = ptr->off;
	/* the pointer lands in the READ's raddr (big-endian field) */
	if (!lower_delivered(lower_deliver(
	        c, ptr, id, lower_field_off(PRISM_OP_RDMA_READ, PRISM_FIELD_RADDR, 8), !ptr->be)))
		return -1;
	return idx;
}

/* Does READ `r` (in this lane, since the last write to memory) dereference
 * `ptr`? */
static bool read_through(const struct lower_ctx *c, const struct lread *r, const struct lval *ptr)
{
	if (r->lane != c->lane || r->base_kind != ptr->kind)
		return false;
	if (r->base.region >= 0 && r->epoch != c->mem_epoch[r->base.region])
		return false; /* its region was written since */
	switch (ptr->kind) {
	case LV_PARAM:
		return r->base_param == ptr->param && r->base_poff == ptr->poff;
	case LV_PHI:
		return r->base_read == ptr->phi;
	case LV_MEM:
	case LV_SCRATCH:
	case LV_FIELD:
		return r->base_read == ptr->read && r->base_off == ptr->off;
	default:
		return true;
	}
}

/* Find or create the READ that dereferences `ptr`, with no pick overlapping
 * [off, off+width) yet (a READ's scatter consumes each byte once). */
static int get_read(struct lower_ctx *c, const struct lval *ptr, uint32_t off, uint32_t width)
{
	for (unsigned i = 0; i < c->n_reads; i++) {
		struct lread *r = &c->reads[i];
		if (!read_through(c, r, ptr))
			continue;
		bool overlap = false;
		for (unsigned k = 0; k < r->n; k++)
			if (off < r->picks[k].off + r->picks[k].width &&
			    r->picks[k].off < off + width)
				overlap = true;
		if (!overlap)
			return (int)i;
	}
	return get_read_fresh(c, ptr);
}

/* The pick of an existing READ through `ptr` in this lane that lands
 * exactly [off, off+width) unreversed in a loop exit's reserved bytes (a
 * field nothing rewrites: the exit test swaps only bytes 24-31), when no
 * READ through `ptr` has those bytes free; *writer: that READ's node. */
static const struct lpick *landed_pick(struct lower_ctx *c, const struct lval *ptr, uint32_t off,
                                       uint32_t width, int *writer)
{
	const struct lpick *found = NULL;
	if (ptr->kind == LV_PHI)
		return NULL; /* one READ per use (lower_mem_lval) */
	for (unsigned i = 0; i < c->n_reads; i++) {
		struct lread *r = &c->reads[i];
		if (!read_through(c, r, ptr))
			continue;
		bool overlap = false;
		for (unsigned k = 0; k < r->n; k++) {
			const struct lpick *pk = &r->picks[k];
			if (off < pk->off + pk->width && pk->off < off + width) {
				overlap = true;
				if (!found && pk->off == off && pk->width == width &&
				    pk->target >= 0 && !pk->reverse &&
				    c->p->nodes[pk->target].role == IR_ROLE_EXIT) {
					found = pk;
					*writer = r->node;
				}
			}
		}
		if (!overlap)
			return NULL; /* a READ with the bytes free: pick them there */
	}
	return found;
}

/* A READ through a pointer known only after a loop (see LV_PHI). */
static int new_phi_read(struct lower_ctx *c, const struct lval *ptr)
{
	struct lval key = *ptr;
	key.read = ptr->phi; /* identity for get_read's search */
	return get_read(c, &key, 0, 0);
}

bool lower_mem_lval(struct lower_ctx *c, const struct lval *ptr, uint32_t off, uint32_t width,
                    struct lval *out)
{
	if (ptr->kind == LV_CONST) {
		lower_error(c, SRC_LOC_NONE, "dereferencing a constant address is not supported");
		return false;
	}
	if (ptr->kind == LV_PHI) {
		/* one READ per use: its raddr is written by every exit */
		memset(out, 0, sizeof(*out));
		out->kind = LV_MEM;
		out->read = new_phi_read(c, ptr);
		if (out->read < 0)
			return false;
		out->off = off;
		out->width = width;
		out->region = ptr->region;
		out->taint = ptr->taint;
		return true;
	}
	memset(out, 0, sizeof(*out));
	/* these exact bytes already land in a WQE field: copy them from there
	 * (one loopback READ right after the READ that lands them) rather than
	 * read the memory again, which also needs the pointer once more */
	int landed_writer = -1;
	const struct lpick *landed = landed_pick(c, ptr, off, width, &landed_writer);
	if (landed) {
		out->kind = LV_FIELD;
		out->read = landed->target;
		out->off = landed->toff;
		out->width = width;
		out->region = ptr->region;
		out->taint = ptr->taint | landed->taint;
		out->field_writer = landed_writer;
		return true;
	}
	out->kind = LV_MEM;
	out->read = get_read(c, ptr, off, width);
	if (out->read < 0)
		return false;
	out->off = off;
	out->width = width;
	out->region = ptr->region;
	out->taint = ptr->taint;
	return true;
}

bool lower_place(struct lower_ctx *c, const struct ast_expr *e, struct lval *ptr, uint32_t *off)
{
	switch (e->kind) {
	case AST_EXPR_DEREF:
		*off = 0;
		return lower_value(c, e->u.deref.ptr, ptr);
	case AST_EXPR_FIELD:
		if (e->u.field.through_ptr) {
			*off = (uint32_t)e->u.field.field->offset;
			return lower_value(c, e->u.field.base, ptr);
		}
		if (!lower_place(c, e->u.field.base, ptr, off))
			return false;
		*off += (uint32_t)e->u.field.field->offset;
		return true;
	case AST_EXPR_INDEX:
		if (!e->u.index.index->is_const) {
			lower_error(c, e->loc,
			            "index must be a constant (the NIC cannot add to "
			            "an address)");
			return false;
		}
		if (e->u.index.through_ptr) {
			*off = (uint32_t)(e->u.index.index->value * e->u.index.stride);
			return lower_value(c, e->u.index.base, ptr);
		}
		if (!lower_place(c, e->u.index.base, ptr, off))
			return false;
		*off += (uint32_t)(e->u.index.index->value * e->u.index.stride);
		return true;
	case AST_EXPR_SLICE:
		if (e->u.slice.through_ptr) { /* p[.. n]: the bytes p points to */
			*off = 0;
			return lower_value(c, e->u.slice.base, ptr);
		}
		return lower_place(c, e->u.slice.base, ptr, off);
	case AST_EXPR_NAME:
		if (e->u.name.sym == AST_SYM_REGION) {
			/* the reference reads a region by its name; no WQE pattern
			 * addresses one without a pointer */
			lower_error(c, e->loc,
			            "region '%s' is used by its name: the back end reaches a "
			            "region only through a pointer (declare a parameter `p: *T "
			            "in %s` and write `p`, `p.f` or `p[i]`)",
			            e->u.name.name, e->u.name.name);
			return false;
		}
		/* fall through */
	default:
		lower_error(c, e->loc, "not a memory location");
		return false;
	}
}

bool lower_value(struct lower_ctx *c, const struct ast_expr *e, struct lval *out)
{
	memset(out, 0, sizeof(*out));
	out->region = -1;
	if (e->is_const) {
		out->kind = LV_CONST;
		out->k = e->value;
		out->width = type_width(e->type) ? type_width(e->type) : 8;
		out->be = true;
		return true;
	}
	if (e->kind == AST_EXPR_CALL && e->u.call.fn == AST_BUILTIN_ALLOC)
		return lower_alloc(c, e, out);
	if (e->kind == AST_EXPR_CALL && e->u.call.fn == AST_BUILTIN_FETCH_ADD) {
		/* a value used where it may be lowered more than once (a guard
		 * lowers its operands per guarded effect) would add twice */
		lower_error(c, e->loc,
		            "fetch_add's old value is used through a temporary: write `let old = "
		            "fetch_add(..);` and use `old`");
		return false;
	}
	if (e->kind == AST_EXPR_NAME && e->u.name.sym == AST_SYM_PARAM) {
		const struct ast_param *pa = e->u.name.target.param;
		out->kind = LV_PARAM;
		out->param = (int)pa->index;
		out->poff = 0;
		out->width = type_width(pa->type);
		out->be = type_be(pa->type);
		out->region =
		    region_index(pa->type->kind == AST_TYPE_PTR ? pa->type->region : NULL);
		out->taint = 1ull << pa->index;
		return true;
	}
	if (e->kind == AST_EXPR_NAME && e->u.name.sym == AST_SYM_LOCAL) {
		/* a `let` holds the value it was last given (reads are side-effect
		 * free: the back end shares or repeats the READ behind it) */
		return lower_local_value(c, e->u.name.target.local, e->loc, out);
	}
	if (e->place == AST_PLACE_MEMORY) {
		struct lval ptr;
		uint32_t off;
		if (!lower_place(c, e, &ptr, &off))
			return false;
		uint32_t w = type_width(e->type);
		if (!lower_mem_lval(c, &ptr, off, w, out))
			return false;
		out->be = type_be(e->type);
		out->taint |= e->taint;
		if (e->type && e->type->kind == AST_TYPE_PTR)
			out->region = region_index(e->type->region);
		return true;
	}
	if (e->kind == AST_EXPR_BINARY)
		return lower_arith(c, e, out);
	lower_error(c, e->loc,
	            "this expression has no WQE lowering yet (only parameters, "
	            "constants, memory reads, run-time `+ - & | ^` and atomics' old values "
	            "are values on the NIC)");
	return false;
}

static bool add_pick(struct lower_ctx *c, struct lread *r, const struct lpick *pk)
{
	if (!ARRAY_RESERVE(r->picks, r->cap, r->n + 1)) {
		c->p->oom = true;
		return false;
	}
	r->picks[r->n++] = *pk;
	return true;
}

/*
 * Staging: a RECV scatters each payload byte once and has 16 entries, so a
 * parameter needed in many fields arrives as several back-to-back copies
 * in one entry into scratch, and one READ of that scratch (first WQE of
 * lane 0, after the entry barrier) scatters each copy to its field:
 *
 *   RECV ──1 entry──► scratch[copy0 copy1 ...] ──READ──► field, field, ...
 */
#define STAGE_COPIES 15u /* copies per staging READ (16 entries, one reversal slack) */

/* A client parameter's bytes in scratch (one RECV entry, complete before
 * the chain starts): a value whose parts can be delivered one by one. */
bool lower_param_in_scratch(struct lower_ctx *c, const struct lval *v, struct lval *out)
{
	struct ir_prog *p = c->p;
	if (p->n_recv + 1 > IR_MAX_SGE) {
		lower_error(c, SRC_LOC_NONE,
		            "client arguments are needed in too many WQE fields (a RECV "
		            "scatters into at most %u places)",
		            IR_MAX_SGE);
		return false;
	}
	uint32_t off = ir_scratch_alloc(p, v->width, 8);
	if (ir_recv_into(p, v->param, 0, v->width, ir_v(IR_V_SCRATCH_ADDR, 0, off), -1, 0,
	                 v->taint) < 0)
		return false;
	*out = (struct lval){.kind = LV_SCRATCH,
	                     .read = -1,
	                     .off = off,
	                     .width = v->width,
	                     .be = v->be,
	                     .region = v->region,
	                     .taint = v->taint,
	                     .field_writer = -1};
	return !p->oom;
}

/* A READ of stage st's copies in scratch, at the start of lane 0 (the
 * RECV completed before any lane runs). */
static int stage_read(struct lower_ctx *c, struct lstage *st)
{
	struct ir_prog *p = c->p;
	struct ir_node *n = ir_insert(p, ir_lane_queue(p, 0), 0, PRISM_OP_RDMA_READ, IR_ROLE_DATA);
	if (!n)
		return -1;
	n->what = "stage client argument";
	n->raddr = ir_v(IR_V_SCRATCH_ADDR, 0, st->off);
	n->rkey = ir_v(IR_V_SCRATCH_RKEY, 0, 0);
	st->node = n->id;
	st->uses = 0;
	return n->id;
}

/*
 * A use of a client parameter past the RECV's entries: the parameter is
 * received (a few times) into scratch by one RECV entry, and READs of
 * those copies scatter them into the fields, one copy per use.  A READ
 * full (16 scatter entries, or every copy used), the next READ re-reads
 * the same copies: any number of uses, at most `cap` copies on the wire.
 */
static int stage_param(struct lower_ctx *c, const struct lval *v, int target, uint32_t toff,
                       bool reverse)
{
	struct ir_prog *p = c->p;
	struct lstage *st = NULL;
	unsigned need = reverse ? v->width : 1;
	for (unsigned i = 0; i < c->n_stages; i++)
		if (c->stages[i].param == v->param)
			st = &c->stages[i];
	if (!st) {
		/* copies the payload already carries for direct uses */
		uint32_t direct = 0;
		for (unsigned i = 0; i < p->n_recv; i++)
			if (p->recv[i].param == v->param)
				direct += p->recv[i].len;
		direct = v->width ? direct / v->width : 0;
		if (c->n_stages == sizeof(c->stages) / sizeof(c->stages[0]) ||
		    p->n_recv >= IR_MAX_SGE || direct >= IR_MAX_SGE) {
			lower_error(c, SRC_LOC_NONE,
			            "client arguments are needed in too many WQE fields (a RECV "
			            "scatters into at most %u places, staging included)",
			            IR_MAX_SGE);
			return -1;
		}
		st = &c->stages[c->n_stages++];
		st->param = v->param;
		st->width = v->width;
		st->copies = 0;
		st->cap = IR_MAX_SGE - direct < STAGE_COPIES ? IR_MAX_SGE - direct : STAGE_COPIES;
		st->off = ir_scratch_alloc(p, STAGE_COPIES * v->width, 8);
		st->recv = ir_recv_into(p, v->param, 0, 0, ir_v(IR_V_SCRATCH_ADDR, 0, st->off), -1,
		                        0, v->taint);
		if (st->recv < 0 || stage_read(c, st) < 0)
			return -1;
	}
	if (st->uses == st->cap || p->nodes[st->node].nsge + need > IR_MAX_SGE) {
		if (stage_read(c, st) < 0)
			return -1;
	}
	/* this READ's next copy; the payload carries as many as a READ uses */
	if (++st->uses > st->copies) {
		st->copies = st->uses;
		p->recv[st->recv].len += v->width;
	}
	if (reverse) {
		for (uint32_t j = 0; j < v->width; j++)
			if (ir_scatter_into(p, st->node, target, toff + v->width - 1 - j, 1,
			                    v->taint) < 0)
				return -1;
	} else if (ir_scatter_into(p, st->node, target, toff, v->width, v->taint) < 0) {
		return -1;
	}
	return st->node;
}

/* Make READ `n` copy the bytes picked by `pk` (queue memory) into `target`
 * at `toff`, byte-reversed when `reverse`.  Returns its id or -1. */
static int fill_copy_read(struct ir_prog *p, struct ir_node *n, const struct lpick *pk, int target,
                          uint32_t toff, bool reverse, uint64_t taint)
{
	int id = n->id;
	n->what = "copy a landed value";
	n->raddr = ir_v(IR_V_NODE_ADDR, pk->target, pk->toff);
	n->rkey = ir_v(IR_V_QBUF_RKEY, p->nodes[pk->target].queue, 0);
	if (reverse) {
		for (uint32_t j = 0; j < pk->width; j++)
			if (ir_scatter_into(p, id, target, toff + pk->width - 1 - j, 1, taint) < 0)
				return -1;
	} else if (ir_scatter_into(p, id, target, toff, pk->width, taint) < 0) {
		return -1;
	}
	return id;
}

/* Copy bytes that READ `from` already scattered into a WQE field: a
 * loopback READ of that field (queue memory), right after `from`. */
static int copy_read(struct lower_ctx *c, int from, const struct lpick *pk, int target,
                     uint32_t toff, bool reverse, uint64_t taint)
{
	struct ir_prog *p = c->p;
	int q = p->nodes[from].queue;
	struct ir_node *n =
	    ir_insert(p, q, (unsigned)p->nodes[from].pos + 1, PRISM_OP_RDMA_READ, IR_ROLE_DATA);
	if (!n)
		return -1;
	int id = fill_copy_read(p, n, pk, target, toff, reverse, taint);
	if (id < 0)
		return id;
	/* it reads what `from` writes */
	ir_add_dep(p, from, id);
	return id;
}

/* Copy bytes that already landed in a WQE field, appended to the current
 * lane (after a loop: the exits that wrote them ran before this lane). */
static int copy_landed(struct lower_ctx *c, const struct lpick *pk, int target, uint32_t toff,
                       bool reverse, uint64_t taint, int after)
{
	struct ir_prog *p = c->p;
	/* right after the writer of the landed bytes when given (one barrier
	 * then covers every WQE the copies rewrite), else before its target
	 * when the target is already in this lane */
	struct ir_node *n;
	if (after >= 0 && p->nodes[after].queue == c->lane)
		n = ir_insert(p, c->lane, (unsigned)p->nodes[after].pos + 1, PRISM_OP_RDMA_READ,
		              IR_ROLE_DATA);
	else if (p->nodes[target].queue == c->lane)
		n = ir_insert(p, c->lane, (unsigned)p->nodes[target].pos, PRISM_OP_RDMA_READ,
		              IR_ROLE_DATA);
	else
		n = ir_append(p, c->lane, PRISM_OP_RDMA_READ, IR_ROLE_DATA);
	if (!n)
		return -1;
	return fill_copy_read(p, n, pk, target, toff, reverse, taint);
}

/* A second READ of READ `ri`'s base, placed right after it in its queue. */
static int dup_read(struct lower_ctx *c, int ri, uint32_t off, uint32_t width)
{
	/* an existing sibling without overlap will do */
	struct lread *r0 = &c->reads[ri];
	int node0 = r0->node;
	int lane0 = r0->lane;
	for (unsigned i = 0; i < c->n_reads; i++) {
		struct lread *r = &c->reads[i];
		if ((int)i == ri || r->lane != r0->lane || r->epoch != r0->epoch ||
		    r->base_kind != r0->base_kind || r->base_param != r0->base_param ||
		    r->base_poff != r0->base_poff || r->base_read != r0->base_read ||
		    r->base_off != r0->base_off)
			continue;
		bool overlap = false;
		for (unsigned k = 0; k < r->n; k++)
			if (off < r->picks[k].off + r->picks[k].width &&
			    r->picks[k].off < off + width)
				overlap = true;
		if (!overlap)
			return (int)i;
	}
	int saved = c->lane;
	struct lval base = r0->base;
	struct ir_prog *p = c->p;
	c->lane = lane0;
	unsigned first_new = p->n_nodes;
	int ni = get_read_fresh(c, &base);
	c->lane = saved;
	if (ni < 0)
		return -1;
	/* get_read appended it; move it right after the original READ unless a
	 * WQE that delivers its raddr (a copy of the pointer) came after that
	 * READ too */
	struct ir_queue *q = &p->queues[lane0];
	int id = c->reads[ni].node;
	bool movable = q->nodes[q->n - 1] == id;
	for (unsigned i = (unsigned)p->nodes[node0].pos + 1; movable && i + 1 < q->n; i++)
		movable = q->nodes[i] < (int)first_new;
	if (movable) {
		unsigned at = (unsigned)p->nodes[node0].pos + 1;
		for (unsigned i = q->n - 1; i > at; i--) {
			q->nodes[i] = q->nodes[i - 1];
			p->nodes[q->nodes[i]].pos = (int)i;
		}
		q->nodes[at] = id;
		p->nodes[id].pos = (int)at;
		/* it reads the memory as the original READ does */
		c->reads[ni].epoch = c->reads[ri].epoch;
	}
	return ni;
}

bool lower_mem_stale(const struct lower_ctx *c, const struct lval *v)
{
	while (v->kind == LV_MEM) {
		const struct lread *r = &c->reads[v->read];
		if (r->base.region >= 0 && r->epoch != c->mem_epoch[r->base.region])
			return true;
		v = &r->base;
	}
	return false;
}

bool lower_mem_reread(struct lower_ctx *c, const struct lval *v, struct src_loc loc,
                      struct lval *out)
{
	unsigned epoch = c->reads[v->read].epoch;
	int ri = dup_read(c, v->read, v->off, v->width);
	if (ri < 0)
		return false;
	if (c->reads[ri].epoch != epoch) {
		/* its pointer is delivered by WQEs of its own: not placeable
		 * before the effects lowered since */
		lower_error(c, loc,
		            "an arm writes memory this condition reads, and the condition's "
		            "pointer is copied on the NIC: the value read before the arm "
		            "cannot be read again (not lowered)");
		return false;
	}
	*out = *v;
	out->read = ri;
	return true;
}

/* The delivery by node `id` (-1: it failed). */
static struct ldeliv by_node(int id)
{
	return (struct ldeliv){.kind = id >= 0 ? LD_NODE : LD_FAILED, .writer = id};
}

static const struct ldeliv ld_failed = {.kind = LD_FAILED, .writer = -1};

/*
 * A READ at position `pos` of queue `q` that copies `width` bytes from where
 * `src` says they are (a WQE field, or scratch when src->target < 0) into
 * `target` at `toff`, byte-reversed when `reverse`.  Returns its id or -1.
 */
static int copy_at(struct lower_ctx *c, int q, unsigned pos, const struct lpick *src,
                   uint32_t width, int target, uint32_t toff, bool reverse, uint64_t taint,
                   const char *what)
{
	struct ir_prog *p = c->p;
	struct ir_node *n = ir_insert(p, q, pos, PRISM_OP_RDMA_READ, IR_ROLE_DATA);
	if (!n)
		return -1;
	int id = n->id;
	n->what = what;
	if (src->target >= 0) {
		n->raddr = ir_v(IR_V_NODE_ADDR, src->target, src->toff);
		n->rkey = ir_v(IR_V_QBUF_RKEY, p->nodes[src->target].queue, 0);
	} else {
		n->raddr = ir_v(IR_V_SCRATCH_ADDR, 0, src->toff);
		n->rkey = ir_v(IR_V_SCRATCH_RKEY, 0, 0);
	}
	for (uint32_t j = 0; j < (reverse ? width : 1); j++) {
		uint32_t len = reverse ? 1 : width;
		uint32_t to = reverse ? toff + width - 1 - j : toff;
		if (ir_scatter_into(p, id, target, to, len, taint) < 0)
			return -1;
	}
	return id;
}

/* Where READ `v->read` places v's bytes whole (a WQE field), in *src; else
 * it also scatters them to scratch from now on.  False (with an error) when
 * they overlap other bytes the READ places. */
static bool landed_or_scratch(struct lower_ctx *c, const struct lval *v, struct src_loc loc,
                              struct lpick *src)
{
	struct lread *r = &c->reads[v->read];
	for (unsigned k = 0; k < r->n; k++) {
		const struct lpick *pk = &r->picks[k];
		if (pk->off == v->off && pk->width == v->width && pk->target >= 0) {
			*src = *pk;
			return true;
		}
		if (v->off < pk->off + pk->width && pk->off < v->off + v->width) {
			lower_error(c, loc, "a loop phi's bytes overlap other bytes of their READ");
			return false;
		}
	}
	/* not landed anywhere yet: the READ also scatters them to scratch */
	*src = (struct lpick){.off = v->off,
	                      .width = v->width,
	                      .target = -1,
	                      .toff = ir_scratch_alloc(c->p, v->width, 8),
	                      .taint = v->taint};
	return add_pick(c, r, src);
}

/*
 * One input of a loop phi (lower_loop.c, merge_locals): its bytes must land
 * only when the exit before it was not taken, so the writer is a copy READ
 * placed right after that exit's enable `after` (the first WQE only a lane
 * that went on runs), and the input's own exit enable `before` waits for it.
 * The copy reads the bytes where they already landed in a WQE field, or
 * from scratch, where the READ that fetched them also scatters them.
 */
static int deliver_after_exit(struct lower_ctx *c, const struct lval *v, int target, uint32_t toff,
                              bool reverse, int after, int before)
{
	struct ir_prog *p = c->p;
	if (v->kind != LV_MEM) {
		lower_error(c, p->nodes[after].loc,
		            "a local that changes inside a loop is lowered when it holds bytes "
		            "read from memory at each exit");
		return -1;
	}
	struct lpick src;
	if (!landed_or_scratch(c, v, p->nodes[after].loc, &src))
		return -1;
	int rnode = c->reads[v->read].node;
	int q = p->nodes[after].queue;
	unsigned pos = (unsigned)p->nodes[after].pos + 1;
	/* a READ of the iteration's body (`x = t.k;` after `t = t.nx;`) runs
	 * after the exit's enable: the copy goes after it */
	if (p->nodes[rnode].queue == q && p->nodes[rnode].pos >= (int)pos)
		pos = (unsigned)p->nodes[rnode].pos + 1;
	if (p->nodes[before].queue == q && (int)pos > p->nodes[before].pos) {
		lower_error(c, p->nodes[after].loc,
		            "a local that changes inside a loop is lowered when its bytes are read "
		            "before the loop's next exit test");
		return -1;
	}
	int id = copy_at(c, q, pos, &src, v->width, target, toff, reverse != src.reverse, v->taint,
	                 "land a loop value (exit not taken)");
	if (id < 0)
		return -1;
	ir_add_dep(p, rnode, id);
	ir_add_dep(p, id, before);
	return id;
}

/*
 * A phi's first input: the value the local held when the loop began (exit 0
 * keeps it).  The later inputs land inside the loop, so this one must land
 * before them: a copy its delivery would append where the use is (after the
 * loop: a value a previous loop left in a WQE field or in scratch, an
 * atomic's old value) is placed instead right before the loop's first exit
 * enable `before`, which waits for it.  Values that land from the RECV or
 * from a READ that ran before the loop are delivered as any use is.
 */
static struct ldeliv deliver_at_entry(struct lower_ctx *c, const struct lval *v, int target,
                                      uint32_t toff, bool reverse, int before)
{
	struct ir_prog *p = c->p;
	struct lpick src = {.target = -1};
	int writer = -1;
	bool src_reverse = false;
	switch (v->kind) {
	case LV_PHI: {
		const struct lphi *ih = &c->phis[v->phi];
		if (ih->landed_copy >= 0) {
			src.toff = ih->landed_scratch;
			writer = ih->landed_copy;
		} else if (ih->landed_target >= 0) {
			src.target = ih->landed_target;
			src.toff = ih->landed_toff;
		} else {
			/* its own inputs land around its own (earlier) loop, now:
			 * waiting for a use inside a later lane would land it after
			 * this loop */
			bool flushing = c->flushing;
			c->flushing = true;
			struct ldeliv d = lower_deliver(c, v, target, toff, reverse);
			c->flushing = flushing;
			return d;
		}
		src_reverse = ih->landed_reverse;
		break;
	}
	case LV_SCRATCH:
		src.toff = v->off;
		writer = v->field_writer;
		break;
	case LV_FIELD:
		src.target = v->read;
		src.toff = v->off;
		writer = v->field_writer;
		break;
	case LV_MEM: {
		const struct lread *r = &c->reads[v->read];
		bool overlap = false;
		for (unsigned k = 0; k < r->n; k++)
			if (v->off < r->picks[k].off + r->picks[k].width &&
			    r->picks[k].off < v->off + v->width)
				overlap = true;
		if (!overlap)
			break; /* one more pick of the READ, which ran before the loop */
		if (!landed_or_scratch(c, v, p->nodes[before].loc, &src))
			return ld_failed;
		src_reverse = src.reverse;
		writer = c->reads[v->read].node;
		break;
	}
	default:
		break;
	}
	if (v->kind == LV_PARAM || v->kind == LV_CONST || (v->kind == LV_MEM && writer < 0)) {
		struct ldeliv d = lower_deliver(c, v, target, toff, reverse);
		if (d.kind == LD_NODE)
			ir_add_dep(p, d.writer, before);
		return d;
	}
	int id = copy_at(c, p->nodes[before].queue, (unsigned)p->nodes[before].pos, &src, v->width,
	                 target, toff, reverse != src_reverse, v->taint,
	                 "land a loop value (loop entry)");
	if (id < 0)
		return ld_failed;
	if (writer >= 0)
		ir_add_dep(p, writer, id);
	ir_add_dep(p, id, before);
	return by_node(id);
}

/* The uses of phi `phi` that waited for it to land copy it from there. */
static bool copy_waiting(struct lower_ctx *c, int phi, uint32_t width)
{
	struct lphi *ph = &c->phis[phi];
	struct lpick pk = {.off = 0,
	                   .width = width,
	                   .target = ph->landed_target,
	                   .toff = ph->landed_toff,
	                   .reverse = ph->landed_reverse};
	unsigned n = ph->n_waiting;
	ph->n_waiting = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct lphi_use *u = &c->phis[phi].waiting[i];
		if (copy_landed(c, &pk, u->target, u->toff, u->reverse != pk.reverse, u->taint,
		                -1) < 0)
			return false;
	}
	return true;
}

bool lower_flush_phis(struct lower_ctx *c)
{
	c->flushing = true;
	for (unsigned i = 0; i < c->n_phis; i++) {
		struct lphi *ph = &c->phis[i];
		if (ph->landed_target >= 0 || ph->n_waiting == 0)
			continue;
		/* no use inside the lane: land it at the first waiting use */
		struct lphi_use u = ph->waiting[0];
		memmove(&ph->waiting[0], &ph->waiting[1], (ph->n_waiting - 1) * sizeof(u));
		ph->n_waiting--;
		struct lval v = {.kind = LV_PHI, .phi = (int)i, .be = ph->be, .taint = u.taint};
		v.width = ph->n ? ph->in[0].width : 0;
		if (lower_deliver(c, &v, u.target, u.toff, u.reverse).kind == LD_FAILED)
			return false;
	}
	c->flushing = false;
	return !c->p->oom;
}

struct ldeliv lower_deliver(struct lower_ctx *c, const struct lval *v, int target, uint32_t toff,
                            bool reverse)
{
	struct ir_prog *p = c->p;
	switch (v->kind) {
	case LV_PARAM: {
		unsigned need = reverse ? v->width : 1;
		/* keep RECV entries for the parameters still to come: past the
		 * reserve, a use is staged (below) */
		if (p->n_recv + need > IR_MAX_SGE - c->recv_reserve)
			return by_node(stage_param(c, v, target, toff, reverse));
		if (reverse) {
			for (uint32_t j = 0; j < v->width; j++)
				if (ir_recv_into(
				        p, v->param, 0, 1,
				        ir_v(IR_V_NODE_ADDR, target, toff + v->width - 1 - j),
				        target, toff + v->width - 1 - j, v->taint) < 0)
					goto too_many;
		} else if (ir_recv_into(p, v->param, 0, v->width,
		                        ir_v(IR_V_NODE_ADDR, target, toff), target, toff,
		                        v->taint) < 0) {
			goto too_many;
		}
		return (struct ldeliv){.kind = LD_RECV, .writer = -1};
	}
	case LV_MEM: {
		int ri = v->read;
		struct lread *r = &c->reads[ri];
		bool overlap = false;
		for (unsigned k = 0; k < r->n; k++)
			if (v->off < r->picks[k].off + r->picks[k].width &&
			    r->picks[k].off < v->off + v->width)
				overlap = true;
		if (overlap) {
			/* a READ places each byte once.  If these exact bytes already
			 * land in a WQE field, copy them from there (one loopback READ
			 * of queue memory); else read them again */
			for (unsigned k = 0; k < r->n; k++) {
				const struct lpick *pk = &r->picks[k];
				if (pk->off == v->off && pk->width == v->width && pk->target >= 0)
					return by_node(copy_read(c, r->node, pk, target, toff,
					                         reverse != pk->reverse, v->taint));
			}
			ri = dup_read(c, ri, v->off, v->width);
			if (ri < 0)
				return ld_failed;
			r = &c->reads[ri];
		}
		struct lpick pk = {.off = v->off,
		                   .width = v->width,
		                   .target = target,
		                   .toff = toff,
		                   .reverse = reverse,
		                   .taint = v->taint};
		if (!add_pick(c, r, &pk))
			return ld_failed;
		return by_node(r->node);
	}
	case LV_PHI: {
		struct lphi *ph = &c->phis[v->phi];
		if (ph->landed_copy >= 0) {
			struct lval sv = {.kind = LV_SCRATCH,
			                  .read = -1,
			                  .off = ph->landed_scratch,
			                  .width = v->width,
			                  .be = v->be,
			                  .region = v->region,
			                  .taint = v->taint,
			                  .field_writer = ph->landed_copy};
			return lower_deliver(c, &sv, target, toff, reverse != ph->landed_reverse);
		}
		if (ph->landed_target >= 0) {
			/* delivered once already: copy it from where it landed (one
			 * READ after the loop instead of one per exit) */
			struct lpick pk = {.off = 0,
			                   .width = v->width,
			                   .target = ph->landed_target,
			                   .toff = ph->landed_toff,
			                   .reverse = ph->landed_reverse};
			return by_node(copy_landed(c, &pk, target, toff,
			                           reverse != ph->landed_reverse, v->taint, -1));
		}
		/* a use outside the lane (a response on conn, enabled at the end
		 * anyway) waits for a use inside it: landing the value in a WQE the
		 * lane executes spares that WQE a copy and the barrier before it,
		 * while the outside use's copy needs none */
		if (p->nodes[target].queue != c->lane && !c->flushing &&
		    ph->n_waiting < sizeof(ph->waiting) / sizeof(ph->waiting[0])) {
			ph->waiting[ph->n_waiting++] = (struct lphi_use){
			    .target = target, .toff = toff, .reverse = reverse, .taint = v->taint};
			return (struct ldeliv){.kind = LD_SEVERAL, .writer = -1};
		}
		enum ldeliv_kind last = LD_CONST;
		for (unsigned i = 0; i < ph->n; i++) {
			struct lval in = c->phis[v->phi].in[i];
			struct ldeliv w;
			if (ph->after[i] >= 0 && i &&
			    !memcmp(&in, &c->phis[v->phi].in[i - 1], sizeof(in)))
				continue; /* already there: the previous exit's writer */
			/* the exits may hold it in different byte orders (a be64
			 * `head` and the le64 `next` fields a walk follows): each
			 * lands in the order of the phi (v->be) */
			bool rev = reverse != (in.width > 1 && in.be != ph->be);
			if (ph->after[i] >= 0)
				w = by_node(deliver_after_exit(c, &in, target, toff, rev,
				                               ph->after[i], ph->before[i]));
			else
				w = deliver_at_entry(c, &in, target, toff, rev, ph->before[i]);
			if (w.kind == LD_FAILED)
				return w;
			last = w.kind;
			ph = &c->phis[v->phi];
		}
		ph->landed_target = target;
		ph->landed_toff = toff;
		ph->landed_reverse = reverse;
		if (!copy_waiting(c, v->phi, v->width))
			return ld_failed;
		/* several writers: no single dependency to record */
		return (struct ldeliv){.kind = last == LD_CONST ? LD_CONST : LD_SEVERAL,
		                       .writer = -1};
	}
	case LV_SCRATCH: {
		/* one READ of the scratch bytes into the field */
		struct ir_node *n;
		if (v->field_writer >= 0 && p->nodes[v->field_writer].queue == c->lane)
			n = ir_insert(p, c->lane, (unsigned)p->nodes[v->field_writer].pos + 1,
			              PRISM_OP_RDMA_READ, IR_ROLE_DATA);
		else if (p->nodes[target].queue == c->lane) /* written elsewhere (a
		                                                recycled loop's lap) */
			n = ir_insert(p, c->lane, (unsigned)p->nodes[target].pos,
			              PRISM_OP_RDMA_READ, IR_ROLE_DATA);
		else
			n = ir_append(p, c->lane, PRISM_OP_RDMA_READ, IR_ROLE_DATA);
		if (!n)
			return ld_failed;
		int id = n->id;
		n->what = "copy a returned value";
		n->raddr = ir_v(IR_V_SCRATCH_ADDR, 0, v->off);
		n->rkey = ir_v(IR_V_SCRATCH_RKEY, 0, 0);
		for (uint32_t j = 0; j < (reverse ? v->width : 1); j++) {
			uint32_t len = reverse ? 1 : v->width;
			uint32_t to = reverse ? toff + v->width - 1 - j : toff;
			if (ir_scatter_into(p, id, target, to, len, v->taint) < 0)
				return ld_failed;
		}
		if (v->field_writer >= 0)
			ir_add_dep(p, v->field_writer, id);
		return by_node(id);
	}
	case LV_FIELD: {
		struct lpick pk = {.off = 0,
		                   .width = v->width,
		                   .target = v->read,
		                   .toff = v->off,
		                   .reverse = false};
		int id = copy_landed(c, &pk, target, toff, reverse, v->taint, v->field_writer);
		if (id >= 0 && v->field_writer >= 0)
			ir_add_dep(c->p, v->field_writer, id);
		return by_node(id);
	}
	case LV_CONST:
	default:
		return (struct ldeliv){.kind = LD_CONST, .writer = -1};
	}
too_many:
	lower_error(c, SRC_LOC_NONE,
	            "client arguments must land in more than %u places: a RECV scatters into at "
	            "most %u WQE fields",
	            IR_MAX_SGE, IR_MAX_SGE);
	return ld_failed;
}

bool lower_deliver_for(struct lower_ctx *c, const struct lval *v, int target, uint32_t toff,
                       bool reverse, int reader)
{
	struct ldeliv d = lower_deliver(c, v, target, toff, reverse);
	if (d.kind == LD_NODE)
		ir_add_dep(c->p, d.writer, reader);
	return lower_delivered(d);
}

static int cmp_pick(const void *a, const void *b)
{
	const struct lpick *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

bool lower_finish_reads(struct lower_ctx *c)
{
	struct ir_prog *p = c->p;
	/* one junk sink, as large as the largest gap any READ skips */
	uint32_t junk = 0;
	for (unsigned i = 0; i < c->n_reads; i++) {
		struct lread *r = &c->reads[i];
		if (r->n) /* qsort's base must not be NULL, even for 0 elements */
			qsort(r->picks, r->n, sizeof(*r->picks), cmp_pick);
		uint32_t cur = 0;
		for (unsigned k = 0; k < r->n; k++) {
			if (r->picks[k].off > cur && r->picks[k].off - cur > junk)
				junk = r->picks[k].off - cur;
			cur = r->picks[k].off + r->picks[k].width;
		}
	}
	uint32_t junk_off = junk ? ir_scratch_alloc(p, junk, 8) : 0;
	for (unsigned i = 0; i < c->n_reads; i++) {
		struct lread *r = &c->reads[i];
		int id = r->node;
		uint32_t cur = 0;
		for (unsigned k = 0; k < r->n; k++) {
			const struct lpick *pk = &r->picks[k];
			unsigned need = (pk->off > cur) + (pk->reverse ? pk->width : 1);
			if (p->nodes[id].nsge + need > IR_MAX_SGE) {
				lower_error(c, p->nodes[id].loc,
				            "a READ would need more than %u scatter entries",
				            IR_MAX_SGE);
				return false;
			}
			if (pk->off > cur)
				ir_sge_add(p, &p->nodes[id], ir_v(IR_V_SCRATCH_ADDR, 0, junk_off),
				           pk->off - cur, ir_v(IR_V_SCRATCH_LKEY, 0, 0));
			for (uint32_t j = 0; j < (pk->reverse ? pk->width : 1); j++) {
				uint32_t len = pk->reverse ? 1 : pk->width;
				uint32_t to = pk->reverse ? pk->toff + pk->width - 1 - j : pk->toff;
				if (pk->target < 0) {
					ir_sge_add(p, &p->nodes[id], ir_v(IR_V_SCRATCH_ADDR, 0, to),
					           len, ir_v(IR_V_SCRATCH_LKEY, 0, 0));
				} else if (ir_scatter_into(p, id, pk->target, to, len, pk->taint) <
				           0) {
					return false;
				}
			}
			cur = pk->off + pk->width;
		}
		if (r->n == 0) {
			/* a READ nobody consumes: fetch one byte into the sink */
			ir_sge_add(p, &p->nodes[id], ir_v(IR_V_SCRATCH_ADDR, 0, junk_off), 1,
			           ir_v(IR_V_SCRATCH_LKEY, 0, 0));
			if (!junk)
				p->scratch_size = p->scratch_size < 8 ? 8 : p->scratch_size;
		}
		free(r->picks);
		r->picks = NULL;
	}
	return !p->oom;
}
