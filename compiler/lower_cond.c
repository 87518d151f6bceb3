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
#include "compiler/lower.h"

/* Operand bytes in the control segment: the 3 QPN bytes (4..6). */
#define COND_CTRL_OFF   4u
#define COND_MAX_BYTES  3u
#define COND_RT_BITS(w) ((uint8_t)(((1u << (w)) - 1u) << COND_CTRL_OFF))

bool lower_guard(struct lower_ctx *c, int x)
{
	const struct lcond *cd = c->cond;
	if (!cd)
		return true;
	struct ir_prog *p = c->p;
	uint32_t w = cd->width;
	/* each guard reads its operands again: a READ's scatter places a byte
	 * once, so a second guard needs its own copy (get_read shares what it
	 * can) */
	struct lval ta, cb;
	if (!lower_value(c, cd->lhs, &ta) || !lower_value(c, cd->rhs, &cb))
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
	xn->tmpl_op = PRISM_OP_NOP;
	xn->role = xn->role == IR_ROLE_RESPONSE ? IR_ROLE_RESPONSE : IR_ROLE_EFFECT;
	xn->ctrl_rt_bytes |= COND_RT_BITS(w);
	int wa = lower_deliver(c, &ta, x, COND_CTRL_OFF, false);
	if (wa < -1)
		goto bad_operand;

	struct ir_node *g = ir_append(p, c->lane, PRISM_OP_ATOMIC_CS, IR_ROLE_GUARD);
	if (!g)
		return false;
	int gid = g->id;
	g->what = "if: guard";
	g->loc = cd->loc;
	g->raddr = ir_v(IR_V_NODE_ADDR, x, 0);
	g->rkey = ir_v(IR_V_QBUF_RKEY, p->nodes[x].queue, 0);
	g->compare = ir_v(IR_V_CTRL_WORD, x, PRISM_OP_NOP);
	g->compare.rt_bytes = COND_RT_BITS(w);
	g->swap = ir_v(IR_V_CTRL_WORD, x, xop);
	uint32_t result = ir_scratch_alloc(p, 8, 8);
	ir_sge_add(p, g, ir_v(IR_V_SCRATCH_ADDR, 0, result), 8, ir_v(IR_V_SCRATCH_LKEY, 0, 0));
	struct ir_patch pt = {.kind = IR_PATCH_CAS,
	                      .writer = gid,
	                      .writer_sge = 0,
	                      .target = x,
	                      .off = 0,
	                      .len = 8,
	                      .control = true,
	                      .taint = ta.taint | cb.taint};
	if (ir_add_patch(p, &pt) < 0)
		return false;
	uint32_t cmp = lower_field_off(PRISM_OP_ATOMIC_CS, PRISM_FIELD_ATOMIC_COMPARE, 8);
	int wb = lower_deliver(c, &cb, gid, cmp + (COND_CTRL_OFF - w), true);
	if (wb < -1)
		goto bad_operand;
	/* the CAS compares bytes the READ writes: it runs after the READ */
	if (wa >= 0)
		ir_add_dep(p, wa, gid);
	/* an effect in the guard's own queue must come after the guard */
	struct ir_queue *q = &p->queues[p->nodes[x].queue];
	if (p->nodes[x].queue == c->lane) {
		unsigned from = (unsigned)p->nodes[x].pos;
		for (unsigned i = from; i + 1 < q->n; i++) {
			q->nodes[i] = q->nodes[i + 1];
			p->nodes[q->nodes[i]].pos = (int)i;
		}
		q->nodes[q->n - 1] = x;
		p->nodes[x].pos = (int)q->n - 1;
	}
	return !p->oom;
bad_operand:
	lower_error(c, cd->loc,
	            "an `if` operand must be a client parameter or a value read "
	            "from memory (constants are not supported yet)");
	return false;
}

static bool cond_operands(struct lower_ctx *c, const struct ast_expr *e, struct lcond *cd)
{
	if (e->kind != AST_EXPR_BINARY || e->u.binary.op != AST_BINOP_EQ) {
		lower_error(c, e->loc,
		            "only `a == b` conditions are lowered (a CAS tests equality; `!=`, "
		            "`<`, `>` and `&&` need conditions this back end does not build yet)");
		return false;
	}
	const struct ast_expr *l = e->u.binary.lhs, *r = e->u.binary.rhs;
	unsigned wl = l->type ? (unsigned)l->type->size : 0;
	unsigned wr = r->type ? (unsigned)r->type->size : 0;
	if (l->is_const || r->is_const) {
		lower_error(c, e->loc,
		            "comparing with a constant is not lowered yet: compare a "
		            "client parameter with a value read from memory");
		return false;
	}
	if (wl != wr) {
		lower_error(c, e->loc, "operands of `==` have different widths (%u and %u bytes)",
		            wl, wr);
		return false;
	}
	cd->lhs = l;
	cd->rhs = r;
	cd->width = wl;
	if (cd->width > COND_MAX_BYTES || cd->width == 0) {
		lower_error(c, e->loc,
		            "a %u-byte operand does not fit the %u QPN bytes of a control segment "
		            "that a conditional CAS compares (RedN keeps a 24-bit key there); "
		            "declare the key be24",
		            cd->width, COND_MAX_BYTES);
		return false;
	}
	cd->loc = e->loc;
	return true;
}

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
	if (s->u.if_.has_else) {
		lower_error(c, s->loc,
		            "`else` is not lowered yet (the complement of a CAS "
		            "equality needs a second guard)");
		return false;
	}
	struct lcond cd;
	if (!cond_operands(c, s->u.if_.cond, &cd))
		return false;
	c->cond = &cd;
	bool ok = lower_block(c, s->u.if_.then_body);
	c->cond = NULL;
	return ok;
}
