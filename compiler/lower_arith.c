/* SPDX-License-Identifier: MIT */
/*
 * compiler/lower_arith.c - run-time `+ - & | ^` on integers of 1 to 8 bytes.
 *
 * Owns: computing a binary arithmetic or bitwise expression into a 16-byte
 * scratch cell S with 16-byte masked atomics, which are big-endian in
 * memory (reference/mlx5.md): the operands sit in S's low w bytes, S[16-w..16),
 * and the result is an LV_SCRATCH value there (big-endian; a store into a
 * little-endian place swaps it, like any value).  A masked CAS with compare
 * mask 0 always swaps: new = (old & ~swap_mask) | (swap & swap_mask).
 *
 *   S := a      masked CAS  swap = a,  swap mask = ones      (a constant: the initial image)
 *   a | b       S := a;  masked CAS  swap = ones, swap mask = b
 *   a & b       T := ~b (T starts all ones: swap 0, swap mask b);
 *               S := a;  READ T ─► swap mask;  masked CAS swap 0   (clears where b is 0)
 *   a + b       S := a;  masked FETCH_ADD add = b
 *   a ^ b       S := a;  masked FETCH_ADD add = b, carry boundary at every bit
 *   a - b       S := ~b; masked FETCH_ADD add = a; masked FETCH_ADD add = 1
 *               (b constant: S := a; add = -b)
 *
 * Each result is read only after its last atomic completed (field_writer).
 * The checker folds constant expressions; `* / % << >>` stay constant-only.
 *
 * Must not: place barriers (the atomics whose fields READs or RECVs fill
 * get theirs from sched_barrier.c).
 */
#include <string.h>

#include "compiler/lower.h"

#define CELL 16u /* a 16-byte masked atomic's operand */

struct arith {
	struct lower_ctx *c;
	const struct ast_expr *e;
	uint32_t w;     /* operand bytes */
	int last;       /* the latest atomic on the cell, or -1 */
	uint64_t taint; /* of the operands */
};

static void put_low(uint8_t *field, uint64_t k, uint32_t w)
{
	for (uint32_t i = 0; i < w; i++)
		field[CELL - 1 - i] = (uint8_t)(k >> (8 * i));
}

static uint64_t ones(uint32_t w)
{
	return w >= 8 ? ~0ull : (1ull << (8 * w)) - 1;
}

/* A 16-byte scratch cell with initial value k in its low w bytes. */
static bool new_cell(struct arith *a, uint64_t k, bool all_ones, uint32_t *cell)
{
	struct ir_prog *p = a->c->p;
	uint8_t init[CELL];
	memset(init, 0, sizeof(init));
	put_low(init, all_ones ? ones(a->w) : k, a->w);
	*cell = ir_scratch_alloc(p, CELL, CELL);
	return ir_scratch_init(p, *cell, init, CELL) >= 0;
}

/* A 16-byte masked atomic on `cell`, after the previous one. */
static struct ir_node *cell_op(struct arith *a, uint8_t op, uint32_t cell, const char *what)
{
	struct ir_prog *p = a->c->p;
	struct ir_node *n = ir_append(p, a->c->lane, op, IR_ROLE_DATA);
	if (!n)
		return NULL;
	n->what = what;
	n->loc = a->e->loc;
	n->asize = CELL;
	n->opmod = (uint8_t)PRISM_MASKED_OPMOD(4);
	n->raddr = ir_v(IR_V_SCRATCH_ADDR, 0, cell);
	n->rkey = ir_v(IR_V_SCRATCH_RKEY, 0, 0);
	uint32_t junk = ir_scratch_alloc(p, CELL, CELL);
	ir_sge_add(p, n, ir_v(IR_V_SCRATCH_ADDR, 0, junk), CELL, ir_v(IR_V_SCRATCH_LKEY, 0, 0));
	return n;
}

/* Field `f` (bytes of operand field at `field_off`, the template `bytes`)
 * of node id gets v: a constant into the template, else delivered. */
static bool operand(struct arith *a, int id, uint8_t *bytes, uint32_t field_off,
                    const struct lval *v)
{
	if (v->kind == LV_CONST) {
		put_low(bytes, v->k, a->w);
		return true;
	}
	a->taint |= v->taint;
	return lower_deliver_for(a->c, v, id, field_off + CELL - a->w, !v->be, id);
}

static void chain(struct arith *a, int id)
{
	if (a->last >= 0)
		ir_add_dep(a->c->p, a->last, id);
	a->last = id;
}

static uint32_t field(uint8_t op, enum prism_wqe_field f)
{
	return lower_field_off(op, f, CELL);
}

/* cell := v (a masked CAS; a constant is the cell's initial image). */
static bool cell_set(struct arith *a, const struct lval *v, uint32_t *cell)
{
	if (!new_cell(a, v->kind == LV_CONST ? v->k : 0, false, cell))
		return false;
	if (v->kind == LV_CONST)
		return true;
	uint8_t op = PRISM_OP_ATOMIC_MASKED_CS;
	struct ir_node *n = cell_op(a, op, *cell, "arith: operand");
	if (!n)
		return false;
	int id = n->id;
	put_low(n->swap_mask_bytes, ones(a->w), a->w);
	if (!operand(a, id, a->c->p->nodes[id].swap_bytes, field(op, PRISM_FIELD_ATOMIC_SWAP), v))
		return false;
	chain(a, id);
	return true;
}

/* cell := ~v, the cell starting all ones: swap 0 under swap mask v. */
static bool cell_not(struct arith *a, const struct lval *v, uint32_t *cell)
{
	if (v->kind == LV_CONST)
		return new_cell(a, ~v->k & ones(a->w), false, cell);
	if (!new_cell(a, 0, true, cell))
		return false;
	uint8_t op = PRISM_OP_ATOMIC_MASKED_CS;
	struct ir_node *n = cell_op(a, op, *cell, "arith: complement");
	if (!n)
		return false;
	int id = n->id;
	if (!operand(a, id, a->c->p->nodes[id].swap_mask_bytes,
	             field(op, PRISM_FIELD_ATOMIC_SWAP) + 2 * CELL, v))
		return false;
	chain(a, id);
	return true;
}

/* cell += v (boundary: a carry boundary at every bit, i.e. xor). */
static bool cell_add(struct arith *a, uint32_t cell, const struct lval *v, bool xor_bits)
{
	uint8_t op = PRISM_OP_ATOMIC_MASKED_FA;
	struct ir_node *n = cell_op(a, op, cell, xor_bits ? "arith: xor" : "arith: add");
	if (!n)
		return false;
	int id = n->id;
	if (xor_bits)
		memset(n->swap_mask_bytes, 0xff, CELL);
	if (!operand(a, id, a->c->p->nodes[id].swap_bytes, field(op, PRISM_FIELD_ATOMIC_SWAP), v))
		return false;
	chain(a, id);
	return true;
}

/* cell: swap `k` (all ones or 0) under the swap mask v (or a cell's bytes). */
static bool cell_mask(struct arith *a, uint32_t cell, bool set, const struct lval *v)
{
	uint8_t op = PRISM_OP_ATOMIC_MASKED_CS;
	struct ir_node *n = cell_op(a, op, cell, set ? "arith: or" : "arith: and");
	if (!n)
		return false;
	int id = n->id;
	if (set)
		put_low(n->swap_bytes, ones(a->w), a->w);
	if (!operand(a, id, a->c->p->nodes[id].swap_mask_bytes,
	             field(op, PRISM_FIELD_ATOMIC_SWAP) + 2 * CELL, v))
		return false;
	chain(a, id);
	return true;
}

static struct lval cell_value(const struct arith *a, uint32_t cell)
{
	return (struct lval){.kind = LV_SCRATCH,
	                     .read = -1,
	                     .off = cell + CELL - a->w,
	                     .width = a->w,
	                     .be = true,
	                     .region = -1,
	                     .taint = a->taint,
	                     .field_writer = a->last};
}

bool lower_arith(struct lower_ctx *c, const struct ast_expr *e, struct lval *out)
{
	struct arith a = {.c = c, .e = e, .w = e->type ? (uint32_t)e->type->size : 0, .last = -1};
	enum ast_binop op = e->u.binary.op;
	if (a.w == 0 || a.w > 8 || e->type->kind != AST_TYPE_SCALAR) {
		lower_error(c, e->loc,
		            "run-time `%s` takes integers of 1 to 8 bytes (16-byte masked atomics "
		            "compute it)",
		            ast_binop_spelling[op]);
		return false;
	}
	struct lval x, y;
	if (!lower_value(c, e->u.binary.lhs, &x) || !lower_value(c, e->u.binary.rhs, &y))
		return false;
	uint32_t s, t;
	bool ok;
	switch (op) {
	case AST_BINOP_ADD:
	case AST_BINOP_XOR:
		if (x.kind == LV_CONST) { /* commutative: the constant as the addend */
			struct lval k = x;
			x = y;
			y = k;
		}
		ok = cell_set(&a, &x, &s) && cell_add(&a, s, &y, op == AST_BINOP_XOR);
		break;
	case AST_BINOP_OR:
		if (x.kind == LV_CONST) {
			struct lval k = x;
			x = y;
			y = k;
		}
		ok = cell_set(&a, &x, &s) && cell_mask(&a, s, true, &y);
		break;
	case AST_BINOP_AND: {
		if (x.kind == LV_CONST) {
			struct lval k = x;
			x = y;
			y = k;
		}
		/* clear where y is 0: the swap mask is ~y */
		struct lval ny;
		if (y.kind == LV_CONST) {
			ny = y;
			ny.k = ~y.k & ones(a.w);
		} else {
			ok = cell_not(&a, &y, &t);
			if (!ok)
				break;
			ny = cell_value(&a, t);
		}
		ok = cell_set(&a, &x, &s) && cell_mask(&a, s, false, &ny);
		break;
	}
	case AST_BINOP_SUB:
		if (y.kind == LV_CONST) {
			struct lval k = y;
			k.k = (0 - y.k) & ones(a.w);
			ok = cell_set(&a, &x, &s) && cell_add(&a, s, &k, false);
		} else {
			struct lval one = {.kind = LV_CONST, .k = 1, .width = a.w, .be = true};
			ok = cell_not(&a, &y, &s) && cell_add(&a, s, &x, false) &&
			     cell_add(&a, s, &one, false);
		}
		break;
	default:
		lower_error(c, e->loc,
		            "run-time `%s` has no NIC verb (write it with constants only, which "
		            "the checker folds)",
		            ast_binop_spelling[op]);
		return false;
	}
	if (!ok)
		return false;
	*out = cell_value(&a, s);
	out->taint |= e->taint;
	return !c->p->oom;
}
