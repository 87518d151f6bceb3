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
 * eight one-byte scatter entries in reverse order (DESIGN cookbook).  A READ
 * always starts at the pointer itself (the NIC cannot add a field offset),
 * so bytes before the first field it needs land in a scratch sink.
 *
 * Must not: place barriers, or write any WQE byte (emit.c).
 */
#include <stdlib.h>
#include <string.h>

#include "compiler/lower.h"

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

/* Find or create the READ that dereferences `ptr`, with no pick overlapping
 * [off, off+width) yet (a READ's scatter consumes each byte once). */
static int get_read(struct lower_ctx *c, const struct lval *ptr, uint32_t off, uint32_t width)
{
	for (unsigned i = 0; i < c->n_reads; i++) {
		struct lread *r = &c->reads[i];
		if (r->lane != c->lane || r->base_kind != ptr->kind)
			continue;
		if (ptr->kind == LV_PARAM &&
		    (r->base_param != ptr->param || r->base_poff != ptr->poff))
			continue;
		if (ptr->kind == LV_MEM && (r->base_read != ptr->read || r->base_off != ptr->off))
			continue;
		bool overlap = false;
		for (unsigned k = 0; k < r->n; k++)
			if (off < r->picks[k].off + r->picks[k].width &&
			    r->picks[k].off < off + width)
				overlap = true;
		if (!overlap)
			return (int)i;
	}
	if (c->n_reads == c->cap_reads) {
		unsigned ncap = c->cap_reads ? c->cap_reads * 2 : 16;
		struct lread *nr = realloc(c->reads, ncap * sizeof(*nr));
		if (!nr) {
			c->p->oom = true;
			return -1;
		}
		c->reads = nr;
		c->cap_reads = ncap;
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
	r->base_kind = ptr->kind;
	r->base_param = ptr->param;
	r->base_poff = ptr->poff;
	r->base_read = ptr->read;
	r->base_off = ptr->off;
	/* the pointer lands in the READ's raddr (big-endian field) */
	if (lower_deliver(c, ptr, id, lower_field_off(PRISM_OP_RDMA_READ, PRISM_FIELD_RADDR, 8),
	                  !ptr->be) < -1)
		return -1;
	return idx;
}

bool lower_mem_lval(struct lower_ctx *c, const struct lval *ptr, uint32_t off, uint32_t width,
                    struct lval *out)
{
	if (ptr->kind == LV_CONST) {
		lower_error(c, SRC_LOC_NONE, "dereferencing a constant address is not supported");
		return false;
	}
	memset(out, 0, sizeof(*out));
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
		if (!lower_place(c, e->u.slice.base, ptr, off))
			return false;
		return true;
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
		/* a `let` is a name for its initializer, re-read where used: reads
		 * are side-effect free and the back end shares the READ */
		const struct ast_local *l = e->u.name.target.local;
		const struct ast_stmt *def = NULL;
		/* find its defining LET in the offload body (depth-first) */
		const struct ast_stmt *stack[64];
		int sp = 0;
		if (c->off->body)
			stack[sp++] = c->off->body;
		while (sp > 0 && !def) {
			const struct ast_stmt *s = stack[--sp];
			for (; s && !def; s = s->next) {
				if (s->kind == AST_STMT_LET && s->u.let.local == l)
					def = s;
				else if (s->kind == AST_STMT_IF && sp < 62) {
					if (s->u.if_.then_body)
						stack[sp++] = s->u.if_.then_body;
					if (s->u.if_.else_body)
						stack[sp++] = s->u.if_.else_body;
				} else if (s->kind == AST_STMT_BLOCK && sp < 63 && s->u.block.body)
					stack[sp++] = s->u.block.body;
				else if (s->kind == AST_STMT_PARALLEL)
					for (const struct ast_lane *ln = s->u.parallel.lanes;
					     ln && sp < 63; ln = ln->next)
						stack[sp++] = ln->body;
			}
		}
		if (!def || !def->u.let.init) {
			lower_error(c, e->loc,
			            "variable '%s' has no initializer the back end can "
			            "substitute",
			            l->name);
			return false;
		}
		return lower_value(c, def->u.let.init, out);
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
	lower_error(c, e->loc,
	            "this expression has no WQE lowering yet (only parameters, "
	            "constants and memory reads are values on the NIC)");
	return false;
}

static bool add_pick(struct lower_ctx *c, struct lread *r, const struct lpick *pk)
{
	if (r->n == r->cap) {
		unsigned ncap = r->cap ? r->cap * 2 : 4;
		struct lpick *np = realloc(r->picks, ncap * sizeof(*np));
		if (!np) {
			c->p->oom = true;
			return false;
		}
		r->picks = np;
		r->cap = ncap;
	}
	r->picks[r->n++] = *pk;
	return true;
}

int lower_deliver(struct lower_ctx *c, const struct lval *v, int target, uint32_t toff,
                  bool reverse)
{
	struct ir_prog *p = c->p;
	switch (v->kind) {
	case LV_PARAM:
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
		return IR_RECV;
	case LV_MEM: {
		struct lread *r = &c->reads[v->read];
		struct lpick pk = {.off = v->off,
		                   .width = v->width,
		                   .target = target,
		                   .toff = toff,
		                   .reverse = reverse,
		                   .taint = v->taint};
		if (!add_pick(c, r, &pk))
			return -3;
		return r->node;
	}
	case LV_CONST:
	default:
		return -2;
	}
too_many:
	lower_error(c, SRC_LOC_NONE,
	            "client arguments must land in more than %u places: a RECV scatters into at "
	            "most %u WQE fields",
	            IR_MAX_SGE, IR_MAX_SGE);
	return -3;
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
