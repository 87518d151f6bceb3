/* SPDX-License-Identifier: MIT */
/*
 * compiler/lower_cond.c - conditionals: `if (a == b) { effects }`.
 *
 * Owns: the guard CAS that arms each effect of a then-branch (RedN 3.3,
 * Fig. 4).  An effect X (a response, a store, an atomic) is posted as a NOP
 * of X's size; its control segment's QPN bytes hold operand `a`; a CAS on
 * X's ctrl bytes 0-7 compares them with "NOP + b + ds" and swaps in X's real
 * opcode word:
 *
 *   w0:   READ(a) ──scatter──► X.ctrl[4..6]        conn: X = NOP ─(armed)─► WRITE_IMM
 *         CAS X.ctrl  cmp = NOP|b|ds  swap = op|qpn|ds    ▲
 *         WAIT w0 ── SEND_EN conn ────────────────────────┘
 *
 * The CAS field holds be64(le64(ctrl bytes)) (8-byte atomics are
 * host-endian, reference/mlx5.md), so operand byte j at ctrl byte 4+j is
 * compared with byte 3-j of the compare field: `b` is delivered reversed.
 * Profile relaxed only: stock firmware checks the QPN bytes; under strict
 * the conditional is rejected with its reason (docs/ir.md, "profiles").
 *
 * Must not: place the barrier (sched_barrier.c does: X is patched, so it is
 * enabled only after the CAS and the READ completed).
 */
#include <string.h>

#include "compiler/lower.h"

/* Operand bytes in the control segment: the 3 QPN bytes (4..6). */
#define COND_CTRL_OFF   4u
#define COND_MAX_BYTES  3u
#define COND_RT_BITS(w) ((uint8_t)(((1u << (w)) - 1u) << COND_CTRL_OFF))
#define COND_MAX_ORDER  8u
/* ctrl bytes an order guard rewrites: opmod (0), opcode (3), QPN (4-6);
 * the index (1-2) and ds (7) are already exact */
#define ORDER_SWAP_MASK 0x00ffffffff0000ffull
#define ORDER_CARRY_BYTES 7u /* S bytes 1..7 */

/* Operand i (0 = lhs, 1 = rhs) of the active condition. */
static bool cond_value(struct lower_ctx *c, int i, struct lval *out)
{
	const struct lcond *cd = c->cond;
	if (cd->vals) {
		*out = cd->vals[i];
		return true;
	}
	return lower_value(c, i ? cd->rhs : cd->lhs, out);
}

/* The effect must come after its guards in the guard's own queue. */
static void move_after_guards(struct lower_ctx *c, int x)
{
	struct ir_prog *p = c->p;
	struct ir_queue *q = &p->queues[p->nodes[x].queue];
	if (p->nodes[x].queue != c->lane)
		return;
	unsigned from = (unsigned)p->nodes[x].pos;
	for (unsigned i = from; i + 1 < q->n; i++) {
		q->nodes[i] = q->nodes[i + 1];
		p->nodes[q->nodes[i]].pos = (int)i;
	}
	q->nodes[q->n - 1] = x;
	p->nodes[x].pos = (int)q->n - 1;
}

/* A CAS-like guard node on `target` bytes [off, off+len) (control patch). */
static struct ir_node *guard_node(struct lower_ctx *c, uint8_t op, uint8_t asize,
                                  struct ir_val raddr, struct ir_val rkey, const char *what,
                                  uint32_t result_len)
{
	struct ir_prog *p = c->p;
	struct ir_node *g = ir_append(p, c->lane, op, IR_ROLE_GUARD);
	if (!g)
		return NULL;
	g->what = what;
	g->loc = c->cond->loc;
	g->asize = asize;
	if (op == PRISM_OP_ATOMIC_MASKED_CS || op == PRISM_OP_ATOMIC_MASKED_FA)
		g->opmod = (uint8_t)PRISM_MASKED_OPMOD(asize == 16 ? 4 : 3);
	g->raddr = raddr;
	g->rkey = rkey;
	uint32_t result = ir_scratch_alloc(p, result_len, result_len);
	ir_sge_add(p, g, ir_v(IR_V_SCRATCH_ADDR, 0, result), result_len,
	           ir_v(IR_V_SCRATCH_LKEY, 0, 0));
	return g;
}

static bool add_cas_patch(struct ir_prog *p, int writer, int target, uint32_t off, uint32_t len,
                          bool control, uint64_t taint)
{
	struct ir_patch pt = {.kind = IR_PATCH_CAS,
	                      .writer = writer,
	                      .writer_sge = 0,
	                      .target = target,
	                      .off = off,
	                      .len = len,
	                      .control = control,
	                      .taint = taint};
	return ir_add_patch(p, &pt) >= 0;
}

/*
 * a == b (arm) / a != b (disarm).  `==`: X posted as a NOP, the CAS
 * compares NOP|a|ds and swaps in op|qpn|ds.  `!=`: X posted live (its
 * opcode), operand a in its QPN bytes; the CAS compares op|a|ds and swaps
 * in NOP|qpn|ds, so X runs unless a == b.  One CAS per effect either way.
 */
static bool guard_eq(struct lower_ctx *c, int x, bool neg)
{
	const struct lcond *cd = c->cond;
	struct ir_prog *p = c->p;
	uint32_t w = cd->width;
	/* each guard reads its operands again: a READ's scatter places a byte
	 * once, so a second guard needs its own copy (get_read shares what it
	 * can) */
	struct lval ta, cb;
	if (!cond_value(c, 0, &ta) || !cond_value(c, 1, &cb))
		return false;
	/* target side (memory preferred: a READ scatter costs no RECV entry)
	 * goes into X's ctrl; compare side into the CAS's compare field */
	if (ta.kind == LV_PARAM && cb.kind == LV_MEM) {
		struct lval t = ta;
		ta = cb;
		cb = t;
	}
	struct ir_node *xn = ir_node(p, x);
	uint8_t xop = xn->op;
	xn->tmpl_op = neg ? xop : PRISM_OP_NOP;
	xn->role = xn->role == IR_ROLE_RESPONSE ? IR_ROLE_RESPONSE : IR_ROLE_EFFECT;
	xn->ctrl_rt_bytes |= COND_RT_BITS(w);
	int wa = lower_deliver(c, &ta, x, COND_CTRL_OFF, false);
	if (wa < -1)
		goto bad_operand;

	struct ir_node *g = guard_node(c, PRISM_OP_ATOMIC_CS, 0, ir_v(IR_V_NODE_ADDR, x, 0),
	                               ir_v(IR_V_QBUF_RKEY, p->nodes[x].queue, 0),
	                               neg ? "if: guard (disarm when equal)" : "if: guard", 8);
	if (!g)
		return false;
	int gid = g->id;
	g->compare = ir_v(IR_V_CTRL_WORD, x, neg ? xop : PRISM_OP_NOP);
	g->compare.rt_bytes = COND_RT_BITS(w);
	g->swap = ir_v(IR_V_CTRL_WORD, x, neg ? PRISM_OP_NOP : xop);
	if (!add_cas_patch(p, gid, x, 0, 8, true, ta.taint | cb.taint))
		return false;
	uint32_t cmp = lower_field_off(PRISM_OP_ATOMIC_CS, PRISM_FIELD_ATOMIC_COMPARE, 8);
	int wb = lower_deliver(c, &cb, gid, cmp + (COND_CTRL_OFF - w), true);
	if (wb < -1)
		goto bad_operand;
	/* the CAS compares bytes the READ writes: it runs after the READ */
	if (wa >= 0)
		ir_add_dep(p, wa, gid);
	return !p->oom;
bad_operand:
	lower_error(c, cd->loc,
	            "an `==`/`!=` operand must be a client parameter or a value read "
	            "from memory (comparing two constants is folded by the checker)");
	return false;
}

/* Big-endian bytes of the low `w` bytes of k at dst[0..w). */
static void put_be(uint8_t *dst, uint64_t k, uint32_t w)
{
	for (uint32_t i = 0; i < w; i++)
		dst[i] = (uint8_t)(k >> (8 * (w - 1 - i)));
}

/* A READ of S's carry bytes 1..7 (its scatter entries, one byte each,
 * are added per target). */
static int carry_read(struct lower_ctx *c, uint32_t s)
{
	struct ir_node *rd = ir_append(c->p, c->lane, PRISM_OP_RDMA_READ, IR_ROLE_GUARD);
	if (!rd)
		return -1;
	rd->what = "compare: carry";
	rd->loc = c->cond->loc;
	rd->raddr = ir_v(IR_V_SCRATCH_ADDR, 0, s + 1);
	rd->rkey = ir_v(IR_V_SCRATCH_RKEY, 0, 0);
	return rd->id;
}

/* Steps 1-3 of an order guard: S, the complement, the add, the carry READ
 * (with no scatter entries yet). */
static bool order_carry(struct lower_ctx *c, bool gt, struct lorder *ord, uint64_t *taint_out)
{
	const struct lcond *cd = c->cond;
	struct ir_prog *p = c->p;
	uint32_t w = cd->width;
	struct lval xv, yv;
	if (!cond_value(c, gt ? 0 : 1, &xv) || !cond_value(c, gt ? 1 : 0, &yv))
		return false;
	uint64_t taint = xv.taint | yv.taint;
	/* a constant X' moves to the complemented side, where it costs no
	 * atomic: k > v  <=>  not (v > k - 1) */
	ord->flip = false;
	if (xv.kind == LV_CONST && yv.kind != LV_CONST) {
		if (xv.k == 0) {
			lower_error(c, cd->loc,
			            "this comparison is constant for unsigned integers (nothing "
			            "is below 0)");
			return false;
		}
		struct lval k = xv;
		k.k = xv.k - 1;
		xv = yv;
		yv = k;
		ord->flip = true;
	}
	for (int i = 0; i < 2; i++) {
		const struct lval *v = i ? &yv : &xv;
		if (v->kind == LV_CONST && w < 8 && (v->k >> (8 * w)) != 0) {
			lower_error(c, cd->loc, "the constant %llu does not fit the %u-byte operand",
			            (unsigned long long)v->k, w);
			return false;
		}
	}
	uint32_t s = ir_scratch_alloc(p, 16, 16);
	/* upper limb 0x00ffffffffffffff: the carry turns bytes 1-7 from 0xff
	 * into 0x00, so one READ feeds up to 7 guarded WQEs */
	uint8_t init[16];
	memset(init, 0xff, 16);
	init[0] = 0;
	if (yv.kind == LV_CONST)
		put_be(init + 8, ~yv.k, 8);
	if (ir_scratch_init(p, s, init, 16) < 0)
		return false;
	struct ir_val sa = ir_v(IR_V_SCRATCH_ADDR, 0, s), sk = ir_v(IR_V_SCRATCH_RKEY, 0, 0);
	int prev = -1;
	if (yv.kind != LV_CONST) {
		struct ir_node *n =
		    guard_node(c, PRISM_OP_ATOMIC_MASKED_CS, 16, sa, sk, "compare: complement", 16);
		if (!n)
			return false;
		int id = n->id;
		uint32_t smask = lower_field_off(PRISM_OP_ATOMIC_MASKED_CS,
		                                 PRISM_FIELD_ATOMIC_SWAP, 16) + 32;
		int wy = lower_deliver(c, &yv, id, smask + 16 - w, !yv.be);
		if (wy < -1)
			return false;
		if (wy >= 0)
			ir_add_dep(p, wy, id);
		prev = id;
	}
	struct ir_node *fa =
	    guard_node(c, PRISM_OP_ATOMIC_MASKED_FA, 16, sa, sk, "compare: add", 16);
	if (!fa)
		return false;
	int fid = fa->id;
	if (xv.kind == LV_CONST) {
		put_be(fa->swap_bytes + 16 - w, xv.k, w);
	} else {
		uint32_t add = lower_field_off(PRISM_OP_ATOMIC_MASKED_FA, PRISM_FIELD_ATOMIC_SWAP, 16);
		int wx = lower_deliver(c, &xv, fid, add + 16 - w, !xv.be);
		if (wx < -1)
			return false;
		if (wx >= 0)
			ir_add_dep(p, wx, fid);
	}
	if (prev >= 0)
		ir_add_dep(p, prev, fid);

	/* the carry bytes, one per target's ctrl byte 4 */
	int rid = carry_read(c, s);
	if (rid < 0)
		return false;
	ir_add_dep(p, fid, rid);
	ord->done = true;
	ord->lane = c->lane;
	ord->s = s;
	ord->carry_read = rid;
	ord->taint = taint;
	*taint_out = taint;
	return !p->oom;
}


/*
 * Unsigned order (docs/ir.md, "Order comparisons").  With X' and Y' chosen
 * so that the condition is "X' > Y'" (carry set) or "not Y'' > X''"
 * (carry clear), on a 16-byte scratch pair S = [0 (8 bytes) | 1s (8)]:
 *
 *   1 MCAS16 S  cmask 0, swap 0, smask [0 | Y']  -> S = [0 | ~Y']
 *   2 MFA16  S  add [0 | X'], no boundary        -> S = [carry | X' + ~Y']
 *   3 READ   S[7] (the carry byte)               -> X.ctrl byte 4 (a QPN byte)
 *   4 MCAS8  X.ctrl  cmask byte 4 = carry wanted, smask opmod|opcode|QPN
 *                    swap = X's real ctrl word   -> X armed
 *
 * X' + ~Y' = X' - Y' - 1 + 2^64 carries out of the low limb exactly when
 * X' > Y' (any width up to 8 bytes).  A constant Y' is complemented at
 * compile time into the scratch initial image (step 1 dropped); a constant
 * X' sits in the template.  16-byte masked atomics are big-endian in memory,
 * so operand byte j meets S byte j.
 */
static bool guard_order(struct lower_ctx *c, int x)
{
	const struct lcond *cd = c->cond;
	struct ir_prog *p = c->p;
	bool gt = cd->kind == LC_GT;
	struct lorder local = {.done = false, .carry_read = -1};
	struct lorder *ord = cd->ord ? cd->ord : &local;
	uint64_t taint = 0;
	if (!ord->done || ord->lane != c->lane) {
		if (!order_carry(c, gt, ord, &taint))
			return false;
	}
	int rid = ord->carry_read;
	if (p->nodes[rid].nsge >= ORDER_CARRY_BYTES) {
		/* every carry byte of this READ is taken: a second READ */
		int nid = carry_read(c, ord->s);
		if (nid < 0)
			return false;
		ir_add_dep(p, rid, nid);
		rid = ord->carry_read = nid;
	}
	taint = ord->taint;
	if (ir_scatter_into(p, rid, x, COND_CTRL_OFF, 1, taint) < 0)
		return false;

	struct ir_node *xn = ir_node(p, x);
	uint8_t xop = xn->op;
	xn->tmpl_op = PRISM_OP_NOP;
	xn->role = xn->role == IR_ROLE_RESPONSE ? IR_ROLE_RESPONSE : IR_ROLE_EFFECT;
	xn->ctrl_rt_bytes |= COND_RT_BITS(3);
	struct ir_node *g = guard_node(c, PRISM_OP_ATOMIC_MASKED_CS, 8, ir_v(IR_V_NODE_ADDR, x, 0),
	                               ir_v(IR_V_QBUF_RKEY, p->nodes[x].queue, 0),
	                               "if: guard (carry)", 8);
	if (!g)
		return false;
	int gid = g->id;
	/* carry byte 0x00 = X' > Y'; 0xff = not */
	bool want_carry = (cd->kind == LC_GT) != ord->flip;
	g->compare = IR_CONST(want_carry ? 0 : 0xffull << 32);
	g->compare_mask = IR_CONST(0xffull << 32);
	g->swap = ir_v(IR_V_CTRL_WORD, x, xop);
	g->swap_mask = IR_CONST(ORDER_SWAP_MASK);
	if (!add_cas_patch(p, gid, x, 0, 8, true, taint))
		return false;
	ir_add_dep(p, rid, gid);
	return !p->oom;
}

bool lower_guard(struct lower_ctx *c, int x)
{
	const struct lcond *cd = c->cond;
	if (!cd)
		return true;
	bool ok = cd->kind == LC_EQ || cd->kind == LC_NE ? guard_eq(c, x, cd->kind == LC_NE)
	                                                  : guard_order(c, x);
	if (ok)
		move_after_guards(c, x);
	return ok;
}

/* Map a comparison to the guard kind and operand order (lcond_kind). */
static const struct {
	enum lcond_kind kind;
	bool swap; /* lhs/rhs exchanged */
	bool order;
} cond_map[AST_BINOP_COUNT] = {
    [AST_BINOP_EQ] = {LC_EQ, false, false}, [AST_BINOP_NE] = {LC_NE, false, false},
    [AST_BINOP_GT] = {LC_GT, false, true},  [AST_BINOP_LT] = {LC_GT, true, true},
    [AST_BINOP_GE] = {LC_GE, false, true},  [AST_BINOP_LE] = {LC_GE, true, true},
};

static bool cond_operands(struct lower_ctx *c, const struct ast_expr *e, struct lcond *cd)
{
	if (e->kind != AST_EXPR_BINARY || (e->u.binary.op != AST_BINOP_EQ &&
	                                   e->u.binary.op != AST_BINOP_NE &&
	                                   !cond_map[e->u.binary.op].order)) {
		lower_error(c, e->loc,
		            "only comparisons `==`, `!=`, `<`, `>`, `<=`, `>=` are lowered as "
		            "conditions (`&&`, `||`, `!` and booleans need chained guards, which "
		            "this back end does not build yet)");
		return false;
	}
	const struct ast_expr *l = e->u.binary.lhs, *r = e->u.binary.rhs;
	unsigned wl = l->type ? (unsigned)l->type->size : 0;
	unsigned wr = r->type ? (unsigned)r->type->size : 0;
	bool order = cond_map[e->u.binary.op].order;
	if (!order && (l->is_const || r->is_const)) {
		lower_error(c, e->loc,
		            "comparing with a constant by `==`/`!=` is not lowered yet: compare a "
		            "client parameter with a value read from memory");
		return false;
	}
	if (order && l->is_const && !r->is_const)
		wl = wr; /* an integer literal takes the other operand's width */
	if (order && r->is_const && !l->is_const)
		wr = wl;
	if (wl != wr) {
		lower_error(c, e->loc, "operands of `%s` have different widths (%u and %u bytes)",
		            ast_binop_spelling[e->u.binary.op], wl, wr);
		return false;
	}
	bool sw = cond_map[e->u.binary.op].swap;
	cd->kind = cond_map[e->u.binary.op].kind;
	cd->ord = NULL;
	cd->vals = NULL;
	cd->lhs = sw ? r : l;
	cd->rhs = sw ? l : r;
	cd->width = wl;
	cd->loc = e->loc;
	if (order) {
		if (cd->width == 0 || cd->width > COND_MAX_ORDER) {
			lower_error(c, e->loc,
			            "an order comparison takes integers of 1 to %u bytes (the "
			            "difference is formed in a 16-byte masked FETCH_ADD), not %u",
			            COND_MAX_ORDER, cd->width);
			return false;
		}
		return true;
	}
	if (cd->width > COND_MAX_BYTES || cd->width == 0) {
		lower_error(c, e->loc,
		            "a %u-byte operand does not fit the %u QPN bytes of a control segment "
		            "that a conditional CAS compares (RedN keeps a 24-bit key there); "
		            "declare the key be24",
		            cd->width, COND_MAX_BYTES);
		return false;
	}
	return true;
}

/* The negation of a condition (the `else` arm). */
static const enum lcond_kind cond_negate[] = {
    [LC_EQ] = LC_NE,
    [LC_NE] = LC_EQ,
};

bool lower_if(struct lower_ctx *c, const struct ast_stmt *s)
{
	if (c->p->profile == IR_PROFILE_STRICT) {
		lower_error(c, s->loc,
		            "profile strict: an `if` on run-time values needs an operand in the "
		            "control segment's index/QPN bytes, which stock firmware checks; "
		            "compile with --profile relaxed (RedN firmware setting)");
		return false;
	}
	if (c->cond) {
		lower_error(c, s->loc, "nested `if` is not lowered yet (it needs chained guards)");
		return false;
	}
	const struct ast_stmt *els = s->u.if_.has_else ? s->u.if_.else_body : NULL;
	if (els && els->kind == AST_STMT_IF) {
		lower_error(c, els->loc,
		            "`else if` is not lowered yet (the second condition needs a guard "
		            "chained after the first one's complement)");
		return false;
	}
	struct lcond cd;
	struct lorder ord = {.done = false, .carry_read = -1};
	if (!cond_operands(c, s->u.if_.cond, &cd))
		return false;
	cd.ord = &ord;
	c->cond = &cd;
	bool ok = lower_block(c, s->u.if_.then_body);
	c->cond = NULL;
	if (!ok || !els)
		return ok;
	/* else: the same operands, the complementary guard.  a > b negates to
	 * b >= a (GT <-> GE with the operands exchanged) */
	struct lcond ne = cd;
	if (cd.kind == LC_GT || cd.kind == LC_GE) {
		ne.kind = cd.kind == LC_GT ? LC_GE : LC_GT;
		ne.lhs = cd.rhs;
		ne.rhs = cd.lhs;
	} else {
		ne.kind = cond_negate[cd.kind];
	}
	c->cond = &ne;
	ok = lower_block(c, els);
	c->cond = NULL;
	return ok;
}
