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
 * On a 4-byte place X is the 4-byte masked CAS (compare mask all ones): the
 * plain CAS verb has 8 bytes only.  On a 16-byte place (masks are then
 * run-time aggregates) X is the 16-byte masked CAS and the comparison one
 * carry of a 32-byte add (cas_order16).  32-byte places would need a
 * comparison wider than the 16-byte low half of the widest add.
 *
 * Must not: lower 32-byte places or run-time masks on 4/8 bytes (rejected
 * with the reason), or nest under a disjunction.
 */
#include <string.h>

#include "compiler/lower.h"

static uint64_t bswap(uint64_t k, unsigned w)
{
	uint64_t r = 0;
	for (unsigned i = 0; i < w; i++)
		r = r << 8 | ((k >> (8 * i)) & 0xff);
	return r;
}

/*
 * The masking CAS both mask helpers post: a masked CAS of `size` bytes
 * (opmod log2 `log`) on a zeroed scratch pair (re-zeroed at each re-arm),
 * returning its old value into a scratch block of the same size.  Sets *wo
 * to the pair's scratch offset; the caller fills the swap operand and mask.
 */
static struct ir_node *mask_cas(struct lower_ctx *c, uint32_t size, unsigned log, uint32_t *wo)
{
	static const uint8_t zero[32];
	struct ir_prog *p = c->p;

	*wo = ir_scratch_alloc(p, size, size);
	if (ir_scratch_init(p, *wo, zero, size) < 0)
		return NULL;
	struct ir_node *n = ir_append(p, c->lane, PRISM_OP_ATOMIC_MASKED_CS, IR_ROLE_GUARD);
	if (!n)
		return NULL;
	n->what = "compare: mask";
	n->asize = size;
	n->opmod = (uint8_t)PRISM_MASKED_OPMOD(log);
	n->raddr = ir_v(IR_V_SCRATCH_ADDR, 0, *wo);
	n->rkey = ir_v(IR_V_SCRATCH_RKEY, 0, 0);
	uint32_t result = ir_scratch_alloc(p, size, size);
	ir_sge_add(p, n, ir_v(IR_V_SCRATCH_ADDR, 0, result), size, ir_v(IR_V_SCRATCH_LKEY, 0, 0));
	return n;
}

/* v & m into a scratch word (a 16-byte masked CAS with swap [0 | v] and
 * swap mask [0 | m] on a zeroed pair): the masked value, big-endian. */
bool lower_mask_value(struct lower_ctx *c, const struct lval *v, uint64_t m, struct lval *out)
{
	struct ir_prog *p = c->p;
	uint32_t wo;
	struct ir_node *n = mask_cas(c, 16, 4, &wo);
	if (!n)
		return false;
	int id = n->id;
	/* the value's w bytes at the low end: big-endian, so they meet the
	 * last w bytes of the pair */
	uint32_t w = v->width ? v->width : 8;
	for (uint32_t i = 0; i < w; i++)
		n->swap_mask_bytes[16 - w + i] = (uint8_t)(m >> (8 * (w - 1 - i)));
	uint32_t swp = lower_field_off(PRISM_OP_ATOMIC_MASKED_CS, PRISM_FIELD_ATOMIC_SWAP, 16);
	if (!lower_deliver_for(c, v, id, swp + 16 - w, !v->be, id))
		return false;
	*out = (struct lval){.kind = LV_SCRATCH,
	                     .read = -1,
	                     .off = wo + 16 - w,
	                     .width = w,
	                     .be = true,
	                     .region = -1,
	                     .taint = v->taint,
	                     .field_writer = id};
	return !p->oom;
}

/* v & m for a 16-byte value and a run-time mask: a 32-byte masked CAS on a
 * zeroed pair, swap [0 | v], swap mask [0 | m]; the result is its low half. */
static bool mask_value16(struct lower_ctx *c, const struct lval *v, const struct lval *m,
                         struct lval *out)
{
	struct ir_prog *p = c->p;
	uint32_t wo;
	struct ir_node *n = mask_cas(c, 32, 5, &wo);
	if (!n)
		return false;
	int id = n->id;
	uint32_t swp = lower_field_off(PRISM_OP_ATOMIC_MASKED_CS, PRISM_FIELD_ATOMIC_SWAP, 32);
	const struct lval *ops[2] = {v, m};
	for (int i = 0; i < 2; i++) {
		if (!lower_deliver_for(c, ops[i], id, swp + (i ? 64 : 0) + 16, false, id))
			return false;
	}
	*out = (struct lval){.kind = LV_SCRATCH,
	                     .read = -1,
	                     .off = wo + 16,
	                     .width = 16,
	                     .be = true,
	                     .region = -1,
	                     .taint = v->taint | m->taint,
	                     .field_writer = id};
	return !p->oom;
}

/*
 * cas_gt / cas_lt on a 16-byte place (both masks, aggregates: run-time
 * values).  X is the 16-byte masked CAS: compare = the snapshot (mask all
 * ones), swap = v, swap mask; the comparison (v & m) > (old & m) masks both
 * sides with a 32-byte masked CAS each and compares them as one 16-byte carry
 * term (a 32-byte pair, lower_order.c).  16-byte atomics are big-endian:
 * operand bytes land as they are.
 */
static bool cas_order16(struct lower_ctx *c, const struct ast_expr *e, bool gt)
{
	struct ir_prog *p = c->p;
	const struct ast_expr *place = e->u.call.args, *v = place->arg_next;
	const struct ast_expr *cme = v->arg_next, *sme = cme->arg_next;
	const struct lcond *outer = lower_cond_top(c);
	struct lval old, val, cm, sm;
	if (!lower_value(c, place, &old) || !lower_value(c, v, &val) || !lower_value(c, cme, &cm) ||
	    !lower_value(c, sme, &sm))
		return false;
	if (old.kind != LV_MEM) {
		lower_error(c, place->loc, "%s needs a place in region memory",
		            gt ? "cas_gt" : "cas_lt");
		return false;
	}
	uint8_t op = PRISM_OP_ATOMIC_MASKED_CS;
	struct ir_node *x = ir_append(p, c->lane, op, IR_ROLE_DATA);
	if (!x)
		return false;
	int xid = x->id;
	x->what = gt ? "cas_gt" : "cas_lt";
	x->loc = e->loc;
	x->asize = 16;
	x->opmod = (uint8_t)PRISM_MASKED_OPMOD(4);
	memset(x->compare_mask_bytes, 0xff, 16);
	if (!lower_target_addr(c, place, xid, op))
		return false;
	uint32_t result = ir_scratch_alloc(p, 16, 16);
	ir_sge_add(p, &p->nodes[xid], ir_v(IR_V_SCRATCH_ADDR, 0, result), 16,
	           ir_v(IR_V_SCRATCH_LKEY, 0, 0));
	uint32_t base = lower_field_off(op, PRISM_FIELD_ATOMIC_SWAP, 16);
	struct ldeliv dold = lower_deliver(c, &old, xid, base + 16, false);
	if (dold.kind != LD_NODE)
		return false;
	int wold = dold.writer;
	if (!lower_delivered(lower_deliver(c, &val, xid, base, false)) ||
	    !lower_delivered(lower_deliver(c, &sm, xid, base + 32, false)))
		return false;
	struct lval snap = {.kind = LV_FIELD,
	                    .read = xid,
	                    .off = base + 16,
	                    .width = 16,
	                    .be = true,
	                    .region = -1,
	                    .taint = old.taint,
	                    .field_writer = wold};
	struct lval xv, yv;
	if (!mask_value16(c, gt ? &val : &snap, &cm, &xv) ||
	    !mask_value16(c, gt ? &snap : &val, &cm, &yv))
		return false;
	struct lval vals[2] = {xv, yv};
	struct lorder ord;
	memset(&ord, 0, sizeof(ord));
	struct lcond cd = {.lhs = gt ? v : place,
	                   .rhs = gt ? place : v,
	                   .kind = LC_GT,
	                   .ord = &ord,
	                   .vals = vals,
	                   .and_next = outer,
	                   .width = 16,
	                   .loc = e->loc};
	if (!lower_guard_push(c, &cd, lower_dnf_top(c), e->loc))
		return false;
	bool ok = lower_guard(c, xid);
	lower_guard_pop(c, &cd);
	return ok && !p->oom;
}

static bool const_arg(struct lower_ctx *c, const struct ast_expr *a, uint64_t *k)
{
	struct lval v;
	if (!lower_value(c, a, &v))
		return false;
	if (v.kind != LV_CONST) {
		lower_error(c, a->loc, "the masks of cas_gt / cas_lt are constants");
		return false;
	}
	*k = v.k;
	return true;
}

#define MAX_DISJ 4 /* clauses an effect's guard takes (lower_order.c, guard_disj) */

/* A disjunction in normal form (clauses linked by or_next), each clause a
 * conjunction of comparisons the carry guard conjoins with more terms: not
 * an else-if chain's arm, no `!=` (the DNF splits those into clauses). */
static bool disj_of_conjunctions(const struct lcond *cd)
{
	if (!cd->or_next)
		return false;
	for (const struct lcond *cl = cd; cl; cl = cl->or_next)
		for (const struct lcond *t = cl; t; t = t->and_next)
			if (t->chain || t->kind == LC_NE || (t != cl && t->or_next))
				return false;
	return true;
}

/*
 * cas_gt(place, v [, masks]) / cas_lt: the enhanced CAS (PRISM 3.3) as a
 * masked CAS guarded by the comparison of its own returned old value:
 *
 *   lane:  READ place ──old──► X.compare
 *          carry term v > old (cas_lt: old > v) ─► exact guard on X
 *          X = CAS place, compare old, swap v (masked: v's swap-mask bits)
 *
 * X swaps only if the place still holds the old value the term compared.
 */
bool lower_cas_order(struct lower_ctx *c, const struct ast_expr *e)
{
	struct ir_prog *p = c->p;
	bool gt = e->u.call.fn == AST_BUILTIN_CAS_GT;
	const char *name = gt ? "cas_gt" : "cas_lt";
	const struct ast_expr *place = e->u.call.args;
	const struct ast_expr *v = place ? place->arg_next : NULL;
	if (!place || !v)
		return false;
	bool masked = e->u.call.nargs == 4;
	const struct lcond *outer = lower_cond_top(c);
	if (outer && !lower_conjoinable(outer) && !disj_of_conjunctions(outer)) {
		lower_error(c, e->loc,
		            "%s under a condition that is one `!=` (an `if (a != b)` arm, or the "
		            "`else` of `if (a == b)`) is not lowered: its guard would need the two "
		            "ways `!=` holds as a disjunction of its own; write the condition as "
		            "`a < b || a > b`",
		            name);
		return false;
	}
	unsigned w = place->type ? (unsigned)place->type->size : 0;
	if (w == 16 && masked)
		return cas_order16(c, e, gt);
	if (w != 8 && w != 4) {
		lower_error(c, e->loc,
		            "%s is lowered on 4-, 8- and 16-byte places (the comparison is one "
		            "carry of a 16- or 32-byte add); this place has %u bytes",
		            name, w);
		return false;
	}
	uint64_t cm = ~0ull, sm = ~0ull;
	if (masked &&
	    (!const_arg(c, v->arg_next, &cm) || !const_arg(c, v->arg_next->arg_next, &sm)))
		return false;
	bool be = ast_type_order(place->type) != AST_ORDER_LE;
	struct lval old, val;
	if (!lower_value(c, place, &old) || !lower_value(c, v, &val))
		return false;
	if (old.kind != LV_MEM) {
		lower_error(c, place->loc, "%s needs a place in region memory", name);
		return false;
	}

	/* X: the CAS that stores v, compare = old (from the READ); masked: only
	 * the swap-mask bits of v replace old's.  A 4-byte place has no plain
	 * CAS: the 4-byte masked one, compare mask all ones, big-endian fields
	 * (operand bytes land as they are; a constant of a little-endian place
	 * is byte-swapped) */
	bool narrow = w == 4;
	uint64_t ones = narrow ? 0xffffffffull : ~0ull;
	if (narrow) {
		cm &= ones;
		sm &= ones;
	}
	uint8_t op = masked || narrow ? PRISM_OP_ATOMIC_MASKED_CS : PRISM_OP_ATOMIC_CS;
	struct ir_node *x = ir_append(p, c->lane, op, IR_ROLE_DATA);
	if (!x)
		return false;
	int xid = x->id;
	x->what = name;
	x->loc = e->loc;
	if (op == PRISM_OP_ATOMIC_MASKED_CS) {
		x->asize = (uint8_t)w;
		x->opmod = (uint8_t)PRISM_MASKED_OPMOD(narrow ? 2 : 3);
		x->compare_mask = IR_CONST(ones);
		x->swap_mask =
		    IR_CONST(narrow ? (be ? sm : bswap(sm, 4)) : (be ? bswap(sm, 8) : sm));
	}
	if (!lower_target_addr(c, place, xid, op))
		return false;
	uint32_t result = ir_scratch_alloc(p, w, 8);
	ir_sge_add(p, &p->nodes[xid], ir_v(IR_V_SCRATCH_ADDR, 0, result), w,
	           ir_v(IR_V_SCRATCH_LKEY, 0, 0));
	uint8_t fsz = op == PRISM_OP_ATOMIC_MASKED_CS ? (uint8_t)w : 8;
	uint32_t cmp = lower_field_off(op, PRISM_FIELD_ATOMIC_COMPARE, fsz);
	uint32_t swp = lower_field_off(op, PRISM_FIELD_ATOMIC_SWAP, fsz);
	/* 8 bytes: the fields hold be64 of the host-endian integer of the
	 * memory bytes, so operand bytes (memory order) land reversed; 4 bytes:
	 * as they are */
	p->nodes[xid].compare = ir_v(IR_V_RUNTIME, 0, 0);
	struct ldeliv dold = lower_deliver(c, &old, xid, cmp, !narrow);
	if (dold.kind != LD_NODE)
		return false;
	int wold = dold.writer;
	if (val.kind == LV_CONST) {
		p->nodes[xid].swap = IR_CONST(narrow ? (be ? val.k : bswap(val.k, 4))
		                                     : (be ? bswap(val.k, 8) : val.k));
	} else {
		p->nodes[xid].swap = ir_v(IR_V_RUNTIME, 0, 0);
		if (!lower_delivered(lower_deliver(c, &val, xid, swp, !narrow)))
			return false;
	}

	/* the comparison reads `old` back from X's compare field: the same
	 * snapshot X compares with.  8 bytes: the memory bytes reversed there
	 * (big-endian for a little-endian place and vice versa); 4: as is */
	struct lval snap = {.kind = LV_FIELD,
	                    .read = xid,
	                    .off = cmp,
	                    .width = w,
	                    .be = narrow ? be : !be,
	                    .region = -1,
	                    .taint = old.taint,
	                    .field_writer = wold};
	if (val.kind == LV_CONST)
		val.width = w;
	/* cas_gt: v & cm > old & cm; cas_lt: old & cm > v & cm.  Y' is masked
	 * by the complement; X' by a masked CAS into scratch (or folded) */
	struct lval xv = gt ? val : snap, yv = gt ? snap : val;
	if (masked) {
		if (xv.kind == LV_CONST)
			xv.k &= cm;
		else if (!lower_mask_value(c, &xv, cm, &xv))
			return false;
	}
	struct lval vals[2] = {xv, yv};
	struct lorder ord;
	memset(&ord, 0, sizeof(ord));
	struct lcond cd = {.lhs = gt ? v : place,
	                   .rhs = gt ? place : v,
	                   .kind = LC_GT,
	                   .ord = &ord,
	                   .vals = vals,
	                   .ymask = masked ? cm : 0,
	                   .and_next = outer, /* inside an `if`: both must hold */
	                   .width = w,
	                   .loc = e->loc};
	/* under a disjunction C1 || C2 ...: (C1 && term) || (C2 && term) ...,
	 * one exact guard per clause, the term computed once (shared ord) */
	struct lcond per[MAX_DISJ];
	unsigned n = 0;
	if (outer && outer->or_next) {
		for (const struct lcond *cl = outer; cl; cl = cl->or_next) {
			if (n == MAX_DISJ) {
				lower_error(c, e->loc,
				            "%s under a disjunction of more than %u clauses is not "
				            "lowered",
				            name, MAX_DISJ);
				return false;
			}
			per[n] = cd;
			per[n].and_next = cl;
			per[n].or_next = NULL;
			if (n)
				per[n - 1].or_next = &per[n];
			n++;
		}
	}
	const struct lcond *top = n ? &per[0] : &cd;
	if (!lower_guard_push(c, top, lower_dnf_top(c), e->loc))
		return false;
	bool ok = lower_guard(c, xid);
	lower_guard_pop(c, top);
	return ok && !p->oom;
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
	return lower_cas_node(c, e, NULL) >= 0;
}

int lower_cas_node(struct lower_ctx *c, const struct ast_expr *e, uint32_t *result_off)
{
	struct ir_prog *p = c->p;
	const struct ast_expr *args[5] = {0};
	unsigned n = 0;
	for (const struct ast_expr *a = e->u.call.args; a && n < 5; a = a->arg_next)
		args[n++] = a;
	bool masked = n == 5;
	if (n != 3 && n != 5) {
		lower_error(c, e->loc, "cas takes 3 or 5 arguments");
		return -1;
	}
	const struct ast_expr *place = args[0];
	unsigned w = place->type ? (unsigned)place->type->size : 0;
	if (!masked && w != 8) {
		lower_error(c, e->loc,
		            "a cas without masks is the 8-byte verb; this place has %u bytes (give "
		            "both masks for a masked cas of 4, 16 or 32 bytes)",
		            w);
		return -1;
	}
	if (w != 4 && w != 8 && w != 16 && w != 32) {
		lower_error(c, e->loc, "a masked cas works on 4, 8, 16 or 32 bytes, not %u", w);
		return -1;
	}
	bool le = ast_type_order(place->type) == AST_ORDER_LE;
	uint8_t op = masked ? PRISM_OP_ATOMIC_MASKED_CS : PRISM_OP_ATOMIC_CS;
	struct ir_node *x = ir_append(p, c->lane, op, IR_ROLE_DATA);
	if (!x)
		return -1;
	int id = x->id;
	x->what = masked ? "masked cas" : "cas";
	x->loc = e->loc;
	if (masked) {
		x->asize = (uint8_t)w;
		x->opmod = (uint8_t)PRISM_MASKED_OPMOD(w == 4 ? 2 : w == 8 ? 3 : w == 16 ? 4 : 5);
	}
	if (!lower_target_addr(c, place, id, op))
		return -1;
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
			return -1;
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
				            "a %u-byte cas takes aggregate operands, not constants",
				            w);
				return -1;
			}
			uint64_t k = v.k;
			if (w < 8 && (k >> (8 * w)) != 0) {
				lower_error(c, args[i]->loc, "the constant does not fit %u bytes",
				            w);
				return -1;
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
			return -1;
		}
		*dst = ir_v(IR_V_RUNTIME, 0, 0);
		if (!lower_delivered(lower_deliver(c, &v, id, base + f * w, w == 8)))
			return -1;
	}
	if (result_off)
		*result_off = result;
	return lower_guard(c, id) ? id : -1;
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
	/* inside an `if`, only a taken branch pops: the FETCH_ADD is guarded
	 * (before anything is placed after it) */
	if (!lower_guard(c, fid))
		return false;
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
	/* ... and the READ of the slot (its address is what the FETCH_ADD
	 * returned, nothing when it did not run) */
	if (lower_cond_top(c) && out->kind == LV_MEM && !lower_guard(c, c->reads[out->read].node))
		return false;
	/* the slot holds a be64 pointer into the list's buffer region */
	out->be = true;
	out->region = (int)fl->region->index;
	return true;
}
