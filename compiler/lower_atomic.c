/* SPDX-License-Identifier: MIT */
/*
 * compiler/lower_atomic.c - PRISM's enhanced compare-and-swap (SOSP '21
 * §3.3): cas_gt(place, v) stores v if v > *place, cas_lt if v < *place.
 *
 * Owns: lowering the statement form on an 8-byte place.  There is no such
 * verb, so it is a plain CAS guarded by an order comparison (lower_cond.c):
 *
 *   READ  *place ──scatter──► X.compare          (the snapshot `old`)
 *   READ  X.compare ─────────► the comparison's operand (same snapshot)
 *   complement / add / carry READ / masked CAS arming X   (docs/ir.md)
 *   X:    CAS place, compare = old, swap = v     (a NOP unless v > old)
 *
 * X compares with the very bytes the comparison used, so a writer that
 * changes *place between the READ and X makes X fail instead of storing a
 * value that is no longer greater: the store is atomic with respect to the
 * comparison (it may fail spuriously under contention, like one try of a
 * CAS loop).
 *
 * Must not: lower masked or 4/16/32-byte forms (rejected with the reason),
 * or nest inside another condition.
 */
#include "compiler/lower.h"

bool lower_cas_order(struct lower_ctx *c, const struct ast_expr *e)
{
	struct ir_prog *p = c->p;
	bool gt = e->u.call.fn == AST_BUILTIN_CAS_GT;
	const char *name = gt ? "cas_gt" : "cas_lt";
	const struct ast_expr *place = e->u.call.args;
	const struct ast_expr *v = place ? place->arg_next : NULL;
	if (!place || !v)
		return false;
	if (e->u.call.nargs > 2) {
		lower_error(c, e->loc,
		            "masked %s is not lowered yet (the comparison would need the masked "
		            "bits gathered into one integer)",
		            name);
		return false;
	}
	if (c->cond) {
		lower_error(c, e->loc,
		            "%s inside an `if` is not lowered yet (it needs chained guards)", name);
		return false;
	}
	if (c->p->profile == IR_PROFILE_STRICT) {
		lower_error(c, e->loc,
		            "profile strict: %s arms its CAS through the QPN bytes of the "
		            "control segment, which stock firmware checks; compile with --profile "
		            "relaxed",
		            name);
		return false;
	}
	unsigned w = place->type ? (unsigned)place->type->size : 0;
	if (w != 8) {
		lower_error(c, e->loc,
		            "%s is lowered on 8-byte places only (a plain CAS stores the value); "
		            "this place has %u bytes",
		            name, w);
		return false;
	}
	struct lval old, val;
	if (!lower_value(c, place, &old) || !lower_value(c, v, &val))
		return false;
	if (old.kind != LV_MEM) {
		lower_error(c, place->loc, "%s needs a place in region memory", name);
		return false;
	}

	/* X: the CAS that stores v, compare = old (from the READ) */
	struct ir_node *x = ir_append(p, c->lane, PRISM_OP_ATOMIC_CS, IR_ROLE_DATA);
	if (!x)
		return false;
	int xid = x->id;
	x->what = name;
	x->loc = e->loc;
	if (!lower_target_addr(c, place, xid, PRISM_OP_ATOMIC_CS))
		return false;
	uint32_t result = ir_scratch_alloc(p, 8, 8);
	ir_sge_add(p, &p->nodes[xid], ir_v(IR_V_SCRATCH_ADDR, 0, result), 8,
	           ir_v(IR_V_SCRATCH_LKEY, 0, 0));
	uint32_t cmp = lower_field_off(PRISM_OP_ATOMIC_CS, PRISM_FIELD_ATOMIC_COMPARE, 8);
	uint32_t swp = lower_field_off(PRISM_OP_ATOMIC_CS, PRISM_FIELD_ATOMIC_SWAP, 8);
	/* the fields hold be64 of the host-endian integer */
	p->nodes[xid].compare = ir_v(IR_V_RUNTIME, 0, 0);
	int wold = lower_deliver(c, &old, xid, cmp, !old.be);
	if (wold < 0)
		return false;
	if (val.kind == LV_CONST) {
		p->nodes[xid].swap = IR_CONST(val.k);
	} else {
		p->nodes[xid].swap = ir_v(IR_V_RUNTIME, 0, 0);
		if (lower_deliver(c, &val, xid, swp, !val.be) < -1)
			return false;
	}

	/* the comparison reads `old` back from X's compare field (big-endian
	 * integer there): the same snapshot X compares with */
	struct lval snap = {.kind = LV_FIELD,
	                    .read = xid,
	                    .off = cmp,
	                    .width = 8,
	                    .be = true,
	                    .region = -1,
	                    .taint = old.taint,
	                    .field_writer = wold};
	if (val.kind == LV_CONST)
		val.width = 8;
	struct lval vals[2];
	struct lorder ord = {.done = false, .carry_read = -1};
	struct lcond cd = {.lhs = gt ? v : place,
	                   .rhs = gt ? place : v,
	                   .kind = LC_GT,
	                   .ord = &ord,
	                   .vals = vals,
	                   .width = 8,
	                   .loc = e->loc};
	/* cas_gt: v > old; cas_lt: v < old = old > v */
	vals[0] = gt ? val : snap;
	vals[1] = gt ? snap : val;
	c->cond = &cd;
	bool ok = lower_guard(c, xid);
	c->cond = NULL;
	return ok && !p->oom;
}

static uint64_t bswap(uint64_t k, unsigned w)
{
	uint64_t r = 0;
	for (unsigned i = 0; i < w; i++)
		r = r << 8 | ((k >> (8 * i)) & 0xff);
	return r;
}

/*
 * cas(place, expect, new [, cmp_mask, swap_mask]): plain CAS (8 bytes, no
 * masks) or mlx5 masked CAS (4, 8, 16, 32 bytes).  Operands are in the
 * place's byte order (the checker enforces it).  What the NIC compares:
 *   - 8 bytes: the target read as a host (little-endian) integer; each
 *     field holds be64 of that integer, so an operand's bytes (in memory
 *     order) land reversed, and a constant of a big-endian place is
 *     byte-swapped;
 *   - 4, 16, 32 bytes: big-endian in memory, fields in memory order: the
 *     bytes land as they are; a constant of a little-endian 4-byte place is
 *     byte-swapped.
 * 16/32-byte operands are aggregates (no constants wider than 8 bytes).
 */
bool lower_cas_stmt(struct lower_ctx *c, const struct ast_expr *e)
{
	struct ir_prog *p = c->p;
	const struct ast_expr *args[5] = {0};
	unsigned n = 0;
	for (const struct ast_expr *a = e->u.call.args; a && n < 5; a = a->arg_next)
		args[n++] = a;
	bool masked = n == 5;
	if (n != 3 && n != 5) {
		lower_error(c, e->loc, "cas takes 3 or 5 arguments");
		return false;
	}
	const struct ast_expr *place = args[0];
	unsigned w = place->type ? (unsigned)place->type->size : 0;
	if (!masked && w != 8) {
		lower_error(c, e->loc,
		            "a cas without masks is the 8-byte verb; this place has %u bytes (give "
		            "both masks for a masked cas of 4, 16 or 32 bytes)",
		            w);
		return false;
	}
	if (w != 4 && w != 8 && w != 16 && w != 32) {
		lower_error(c, e->loc, "a masked cas works on 4, 8, 16 or 32 bytes, not %u", w);
		return false;
	}
	bool le = ast_type_order(place->type) == AST_ORDER_LE;
	uint8_t op = masked ? PRISM_OP_ATOMIC_MASKED_CS : PRISM_OP_ATOMIC_CS;
	struct ir_node *x = ir_append(p, c->lane, op, IR_ROLE_DATA);
	if (!x)
		return false;
	int id = x->id;
	x->what = masked ? "masked cas" : "cas";
	x->loc = e->loc;
	if (masked) {
		x->asize = (uint8_t)w;
		x->opmod = (uint8_t)PRISM_MASKED_OPMOD(w == 4 ? 2 : w == 8 ? 3 : w == 16 ? 4 : 5);
	}
	if (!lower_target_addr(c, place, id, op))
		return false;
	uint32_t result = ir_scratch_alloc(p, w, w > 8 ? 16 : 8);
	ir_sge_add(p, &p->nodes[id], ir_v(IR_V_SCRATCH_ADDR, 0, result), w,
	           ir_v(IR_V_SCRATCH_LKEY, 0, 0));
	uint32_t base = lower_field_off(op, PRISM_FIELD_ATOMIC_SWAP, masked ? (uint8_t)w : 8);
	/* argument -> field: expect = compare (base + w), new = swap (base),
	 * cmp_mask = base + 3w, swap_mask = base + 2w */
	static const unsigned arg_field[5] = {0, 1, 0, 3, 2};
	for (unsigned i = 1; i < n; i++) {
		struct lval v;
		if (!lower_value(c, args[i], &v))
			return false;
		struct ir_node *xn = &p->nodes[id];
		unsigned f = arg_field[i];
		struct ir_val *dst = f == 0   ? &xn->swap
		                     : f == 1 ? &xn->compare
		                     : f == 2 ? &xn->swap_mask
		                              : &xn->compare_mask;
		uint8_t *bytes = f == 0   ? xn->swap_bytes
		                 : f == 1 ? xn->compare_bytes
		                 : f == 2 ? xn->swap_mask_bytes
		                          : xn->compare_mask_bytes;
		if (v.kind == LV_CONST) {
			if (w > 8) {
				lower_error(c, args[i]->loc,
				            "a %u-byte cas takes aggregate operands, not constants", w);
				return false;
			}
			uint64_t k = v.k;
			if (w < 8 && (k >> (8 * w)) != 0) {
				lower_error(c, args[i]->loc, "the constant does not fit %u bytes", w);
				return false;
			}
			/* the integer the NIC sees for these memory bytes */
			if ((w == 8 && !le) || (w == 4 && le))
				k = bswap(k, w);
			*dst = IR_CONST(k);
			(void)bytes;
			continue;
		}
		if (v.width != w) {
			lower_error(c, args[i]->loc, "cas operands have the place's %u bytes", w);
			return false;
		}
		*dst = ir_v(IR_V_RUNTIME, 0, 0);
		if (lower_deliver(c, &v, id, base + f * w, w == 8) < -1)
			return false;
	}
	return lower_guard(c, id);
}

/*
 * alloc(list): PRISM ALLOCATE (§3.2).  A free list is a region of its own,
 * named after the list (docs/ir.md, "Free lists"):
 *
 *   offset 0   le64 cursor: the address of the next free slot
 *   offset 8   slots: be64 pointers to buffers in the list's region
 *
 * The server posts buffers by writing slot pointers and pointing the cursor
 * at the first posted slot.  The chain pops one:
 *
 *   FETCH_ADD cursor += 8  ──returned value──► scratch T       (le64 address)
 *   READ T (8 one-byte entries, reversed) ──► READ2.raddr      (big-endian)
 *   READ2 the slot (list key)  ──scatter──► wherever the buffer pointer is used
 *
 * A cursor past the last slot makes READ2 fail its key's bounds check (a
 * remote access error), so an empty list stops the chain instead of reading
 * outside the list.  The result is the buffer pointer (`*T in R`).
 */
bool lower_alloc(struct lower_ctx *c, const struct ast_expr *e, struct lval *out)
{
	struct ir_prog *p = c->p;
	const struct ast_freelist *fl = e->u.call.freelist;
	if (!fl || !fl->region) {
		lower_error(c, e->loc, "alloc needs a declared free list");
		return false;
	}
	int list = -1;
	for (unsigned i = 0; i < p->n_regions; i++)
		if (p->regions[i].name == fl->name)
			list = (int)i;
	if (list < 0) {
		lower_error(c, e->loc, "free list '%s' has no region", fl->name);
		return false;
	}
	struct ir_node *fa = ir_append(p, c->lane, PRISM_OP_ATOMIC_FA, IR_ROLE_DATA);
	if (!fa)
		return false;
	int fid = fa->id;
	fa->what = "alloc: pop the cursor";
	fa->loc = e->loc;
	fa->raddr = ir_v(IR_V_REGION_ADDR, list, 0);
	fa->rkey = ir_v(IR_V_REGION_RKEY, list, 0);
	fa->swap = IR_CONST(8);
	p->regions[list].access_used |= 4u | 1u; /* atomic, read */
	uint32_t t = ir_scratch_alloc(p, 8, 8);
	ir_sge_add(p, fa, ir_v(IR_V_SCRATCH_ADDR, 0, t), 8, ir_v(IR_V_SCRATCH_LKEY, 0, 0));
	/* the slot address: a pointer into the list region, held in scratch */
	struct lval slot = {.kind = LV_SCRATCH,
	                    .read = -1,
	                    .off = t,
	                    .width = 8,
	                    .be = false,
	                    .region = list,
	                    .field_writer = fid};
	if (!lower_mem_lval(c, &slot, 0, 8, out))
		return false;
	/* the slot holds a be64 pointer into the list's buffer region */
	out->be = true;
	out->region = (int)fl->region->index;
	return true;
}
