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
#include "util/byteorder.h"

/* Operand bytes in the control segment: the 3 QPN bytes (4..6). */
#define COND_CTRL_OFF   4u
#define COND_MAX_BYTES  3u
#define COND_RT_BITS(w) ((uint8_t)(((1u << (w)) - 1u) << COND_CTRL_OFF))
#define COND_MAX_ORDER  8u

/* The capture of comparison operand e of an `if` being lowered, or NULL (a
 * loop condition: read again at each test). */
static struct lcapture *capture_of(struct lower_ctx *c, const struct ast_expr *e)
{
	for (unsigned i = c->n_caps; i-- > 0;)
		if (c->caps[i].e == e)
			return &c->caps[i];
	return NULL;
}

/* Operand i (0 = lhs, 1 = rhs) of the active condition.  Every guard of an
 * `if` lowers its operands again (a READ's scatter places a byte once); one
 * lowered after an arm wrote the operand's memory re-reads the bytes right
 * after the first guard's READ, so both arms test what was there before
 * either ran. */
bool lower_cond_value(struct lower_ctx *c, int i, struct lval *out)
{
	const struct lcond *cd = lower_cond_top(c);
	if (cd->vals) {
		*out = cd->vals[i];
		return true;
	}
	const struct ast_expr *e = i ? cd->rhs : cd->lhs;
	struct lcapture *cap = capture_of(c, e);
	if (cap && cap->have && cap->lane == c->lane && lower_mem_stale(c, &cap->v))
		return lower_mem_reread(c, &cap->v, cd->loc, out);
	if (!lower_cond_operand(c, e, out))
		return false;
	if (cap && !cap->have && out->kind == LV_MEM) {
		cap->have = true;
		cap->lane = c->lane;
		cap->v = *out;
	}
	return true;
}

bool lower_cond_operand(struct lower_ctx *c, const struct ast_expr *e, struct lval *out)
{
	const struct lcapture *cap = capture_of(c, e);
	const struct lcapture *view = c->snap_view;
	c->snap_view = cap && cap->n_saved ? cap : NULL;
	bool ok = lower_value(c, e, out);
	c->snap_view = view;
	return ok;
}

/* Note the comparison operands of condition e (lower_cond_value). */
static bool capture_operands(struct lower_ctx *c, const struct ast_expr *e)
{
	if (e->kind == AST_EXPR_UNARY)
		return capture_operands(c, e->u.unary.operand);
	if (e->kind != AST_EXPR_BINARY)
		return true; /* a cas: its old value is in scratch */
	if (e->u.binary.op == AST_BINOP_LAND || e->u.binary.op == AST_BINOP_LOR)
		return capture_operands(c, e->u.binary.lhs) && capture_operands(c, e->u.binary.rhs);
	const struct ast_expr *ops[2] = {e->u.binary.lhs, e->u.binary.rhs};
	for (int k = 0; k < 2; k++) {
		if (ops[k]->is_const)
			continue;
		if (c->n_caps == LOWER_CAPTURES) {
			lower_error(c, e->loc,
			            "conditions of nested `if`s hold more than %u operands (not "
			            "lowered)",
			            LOWER_CAPTURES);
			return false;
		}
		c->caps[c->n_caps++] = (struct lcapture){.e = ops[k], .lane = -1};
	}
	return true;
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
struct ir_node *lower_guard_node(struct lower_ctx *c, uint8_t op, uint8_t asize,
                                 struct ir_val raddr, struct ir_val rkey, const char *what,
                                 uint32_t result_len)
{
	struct ir_prog *p = c->p;
	struct ir_node *g = ir_append(p, c->lane, op, IR_ROLE_GUARD);
	if (!g)
		return NULL;
	g->what = what;
	g->loc = lower_cond_top(c)->loc;
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

bool lower_cas_patch(struct ir_prog *p, int writer, int target, uint32_t off, uint32_t len,
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

/* Index bytes 1-2 carry earlier arms' opcodes in an else-if chain. */
#define CHAIN_RT_BITS 0x06u

/* READ the opcode byte of an earlier arm's status WQE into X's ctrl byte
 * `byte` (after that arm's guard ran). */
int lower_status_read(struct lower_ctx *c, const struct lstatus *st, int x, unsigned byte)
{
	struct ir_prog *p = c->p;
	struct ir_node *rd = ir_append(p, c->lane, PRISM_OP_RDMA_READ, IR_ROLE_GUARD);
	if (!rd)
		return -1;
	int rid = rd->id;
	rd->what = "else if: did an earlier arm run";
	rd->loc = lower_cond_top(c)->loc;
	rd->raddr = ir_v(IR_V_NODE_ADDR, st->node, 3);
	rd->rkey = ir_v(IR_V_QBUF_RKEY, p->nodes[st->node].queue, 0);
	if (ir_scatter_into(p, rid, x, byte, 1, 0) < 0)
		return -1;
	p->nodes[x].ctrl_rt_bytes |= CHAIN_RT_BITS;
	if (st->guard >= 0) /* an arm whose condition always holds has no guard */
		ir_add_dep(p, st->guard, rid);
	return rid;
}

void lower_record_status(struct lower_ctx *c, int x, int guard)
{
	struct lchain *ch = lower_cond_top(c)->chain;
	if (!ch || ch->have_self)
		return;
	ch->self = (struct lstatus){.node = x, .guard = guard, .op = c->p->nodes[x].op};
	ch->have_self = true;
}

/* Disarm live X (opcode and opmod swapped for a NOP's) when an earlier arm
 * of the chain ran: one status READ and masked CAS per earlier arm.  The
 * last CAS, -1 when there is none, -2 on failure. */
static int disarm_if_ran(struct lower_ctx *c, int x)
{
	const struct lcond *cd = lower_cond_top(c);
	struct ir_prog *p = c->p;
	int last = -1;
	for (unsigned k = 0; k < cd->chain->n_prev; k++) {
		const struct lstatus *st = &cd->chain->prev[k];
		int rid = lower_status_read(c, st, x, 1 + k);
		if (rid < 0)
			return -2;
		struct ir_node *g = lower_guard_node(
		    c, PRISM_OP_ATOMIC_MASKED_CS, 8, ir_v(IR_V_NODE_ADDR, x, 0),
		    ir_v(IR_V_QBUF_RKEY, p->nodes[x].queue, 0), "else: disarm when an arm ran", 8);
		if (!g)
			return -2;
		int gid = g->id;
		unsigned sh = 8 * (1 + k);
		g->compare = IR_CONST((uint64_t)st->op << sh);
		g->compare_mask = IR_CONST(0xffull << sh);
		g->swap = ir_v(IR_V_CTRL_WORD, x, PRISM_OP_NOP);
		g->swap_mask = IR_CONST(0xff0000ffull);
		if (!lower_cas_patch(p, gid, x, 0, 8, true, 0))
			return -2;
		ir_add_dep(p, rid, gid);
		last = gid;
	}
	return p->oom ? -2 : last;
}

/* An arm whose condition always holds: X stays live; in a chain it is
 * disarmed when an earlier arm ran, as a closing `else` is, and later arms
 * see that it ran. */
bool lower_guard_always(struct lower_ctx *c, int x)
{
	const struct lcond *cd = lower_cond_top(c);
	int last = -1;

	if (!cd || !cd->chain)
		return true;
	if (cd->chain->n_prev) {
		struct ir_node *xn = ir_node(c->p, x);
		xn->role = xn->role == IR_ROLE_RESPONSE ? IR_ROLE_RESPONSE : IR_ROLE_EFFECT;
		last = disarm_if_ran(c, x);
		if (last < -1)
			return false;
	}
	lower_record_status(c, x, last);
	return !c->p->oom;
}

/* The closing `else` of a chain: X is posted live and disarmed when an
 * earlier arm ran. */
static bool guard_final_else(struct lower_ctx *c, int x)
{
	struct ir_node *xn = ir_node(c->p, x);
	xn->role = xn->role == IR_ROLE_RESPONSE ? IR_ROLE_RESPONSE : IR_ROLE_EFFECT;
	return disarm_if_ran(c, x) >= -1;
}

/*
 * a == b (arm) / a != b (disarm).  `==`: X posted as a NOP, the CAS
 * compares NOP|a|ds and swaps in op|qpn|ds.  `!=`: X posted live (its
 * opcode), operand a in its QPN bytes; the CAS compares op|a|ds and swaps
 * in NOP|qpn|ds, so X runs unless a == b.  One CAS per effect either way.
 */
static bool guard_eq(struct lower_ctx *c, int x, bool neg)
{
	const struct lcond *cd = lower_cond_top(c);
	struct ir_prog *p = c->p;
	uint32_t w = cd->width;
	/* each guard reads its operands again: a READ's scatter places a byte
	 * once, so a second guard needs its own copy (get_read shares what it
	 * can) */
	struct lval ta, cb;
	if (!lower_cond_value(c, 0, &ta) || !lower_cond_value(c, 1, &cb))
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
	struct ldeliv da = lower_deliver(c, &ta, x, COND_CTRL_OFF, false);
	if (!lower_delivered(da))
		goto bad_operand;

	/* earlier arms of an else-if chain: their opcode bytes into X's index
	 * bytes, which the CAS compares with 0 (the NOP): armed only if none ran.
	 * Under `!=` a failed compare leaves X live, so there the earlier arms
	 * disarm it by CASes of their own, as for a closing `else` */
	int excl[2];
	unsigned nex = cd->chain ? cd->chain->n_prev : 0;
	bool disarm = neg && nex;
	if (disarm)
		nex = 0;
	for (unsigned k = 0; k < nex; k++) {
		excl[k] = lower_status_read(c, &cd->chain->prev[k], x, 1 + k);
		if (excl[k] < 0)
			return false;
	}
	struct ir_node *g =
	    lower_guard_node(c, PRISM_OP_ATOMIC_CS, 0, ir_v(IR_V_NODE_ADDR, x, 0),
	                     ir_v(IR_V_QBUF_RKEY, p->nodes[x].queue, 0),
	                     neg ? "if: guard (disarm when equal)" : "if: guard", 8);
	if (!g)
		return false;
	int gid = g->id;
	g->compare = ir_v(IR_V_CTRL_WORD, x, neg ? xop : PRISM_OP_NOP);
	g->compare.rt_bytes = COND_RT_BITS(w) | (nex ? CHAIN_RT_BITS : 0);
	if (disarm)
		g->compare.rt_bytes |= CHAIN_RT_BITS;
	for (unsigned k = 0; k < nex; k++)
		ir_add_dep(p, excl[k], gid);
	g->swap = ir_v(IR_V_CTRL_WORD, x, neg ? PRISM_OP_NOP : xop);
	if (!lower_cas_patch(p, gid, x, 0, 8, true, ta.taint | cb.taint))
		return false;
	uint32_t cmp = lower_field_off(PRISM_OP_ATOMIC_CS, PRISM_FIELD_ATOMIC_COMPARE, 8);
	if (!lower_delivered(lower_deliver(c, &cb, gid, cmp + (COND_CTRL_OFF - w), true)))
		goto bad_operand;
	/* the CAS compares bytes the READ writes: it runs after the READ */
	if (da.kind == LD_NODE)
		ir_add_dep(p, da.writer, gid);
	int last = gid;
	if (disarm) {
		/* later arms read X's opcode after the last CAS on it */
		last = disarm_if_ran(c, x);
		if (last < 0)
			return false;
	}
	lower_record_status(c, x, last);
	if (!neg && nex == 0)
		c->eq_guard =
		    (struct lguard_rec){.cond = cd, .guard = gid, .cmp = cb, .taint = ta.taint};
	return !p->oom;
bad_operand:
	lower_error(c, cd->loc,
	            "an `==`/`!=` operand must be a client parameter or a value read "
	            "from memory (comparing two constants is folded by the checker)");
	return false;
}

/* The cheap RedN form for narrow equality under relaxed. */
static bool narrow_eq_form(const struct lower_ctx *c, const struct lcond *cd)
{
	return (cd->kind == LC_EQ || cd->kind == LC_NE) && c->p->profile == IR_PROFILE_RELAXED &&
	       cd->width <= COND_MAX_BYTES && !cd->lhs->is_const && !cd->rhs->is_const &&
	       !cd->vals && !cd->and_next && !cd->or_next;
}

bool lower_guard(struct lower_ctx *c, int x)
{
	/* the top frame's condition (its chain carries the enclosing ones) is
	 * lowered again for x: not after a local it reads was assigned */
	if (c->n_guards && c->guards[c->n_guards - 1].stale) {
		lower_error(c, c->at,
		            "'%s' is assigned under a condition that reads it, and this effect is "
		            "guarded by that condition, which is evaluated again for it and would "
		            "see the new value: assign another local",
		            c->guards[c->n_guards - 1].stale);
		return false;
	}
	const struct lcond *cd = lower_cond_top(c);
	if (!cd) {
		/* after the READs that patch its address or operands, which were
		 * lowered after it was appended (`p.e = q.e`, `*p = *q`) */
		move_after_guards(c, x);
		return true;
	}
	if (cd->chain && cd->chain->final_else) {
		bool fine = guard_final_else(c, x);
		if (fine)
			move_after_guards(c, x);
		return fine;
	}
	/* the cheap RedN form for narrow equality under relaxed; carries for
	 * everything else (lower_order.c) */
	bool narrow_eq = narrow_eq_form(c, cd);
	bool ok = narrow_eq ? guard_eq(c, x, cd->kind == LC_NE) : lower_guard_order(c, x);
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

bool lower_cond_operands(struct lower_ctx *c, const struct ast_expr *e, struct lcond *cd)
{
	if (e->kind != AST_EXPR_BINARY ||
	    (e->u.binary.op != AST_BINOP_EQ && e->u.binary.op != AST_BINOP_NE &&
	     !cond_map[e->u.binary.op].order)) {
		lower_error(
		    c, e->loc,
		    "a condition is a comparison (`==`, `!=`, `<`, `>`, `<=`, `>=`), a cas, "
		    "or `&&`, `||` and `!` of them");
		return false;
	}
	const struct ast_expr *l = e->u.binary.lhs, *r = e->u.binary.rhs;
	unsigned wl = l->type ? (unsigned)l->type->size : 0;
	unsigned wr = r->type ? (unsigned)r->type->size : 0;
	bool order = cond_map[e->u.binary.op].order;
	if (l->is_const && !r->is_const)
		wl = wr; /* an integer literal takes the other operand's width */
	if (r->is_const && !l->is_const)
		wr = wl;
	if (wl != wr) {
		lower_error(c, e->loc, "operands of `%s` have different widths (%u and %u bytes)",
		            ast_binop_spelling[e->u.binary.op], wl, wr);
		return false;
	}
	bool sw = cond_map[e->u.binary.op].swap;
	cd->kind = cond_map[e->u.binary.op].kind;
	cd->ord = NULL;
	cd->slot = 0;
	cd->vals = NULL;
	cd->ymask = 0;
	cd->chain = NULL;
	cd->and_next = NULL;
	cd->or_next = NULL;
	cd->lhs = sw ? r : l;
	cd->rhs = sw ? l : r;
	cd->width = wl;
	cd->loc = e->loc;
	(void)order;
	if (cd->width == 0 || cd->width > COND_MAX_ORDER) {
		lower_error(c, e->loc,
		            "a comparison takes integers of 1 to %u bytes (the difference is "
		            "formed in a 16-byte masked FETCH_ADD), not %u",
		            COND_MAX_ORDER, cd->width);
		return false;
	}
	return true;
}

/*
 * if (cas(place, expect, new)): the CAS runs unconditionally; it swapped
 * exactly when the value it returned equals `expect`.  That value lands in
 * scratch; the condition is `old == expect` in the exact form (8 bytes:
 * lower_order.c), read from scratch after the CAS completed.
 */
/*
 * A masked cas of 4 or 16 bytes as a condition.  Whether it swapped is
 * whether (old & m) == (expect & m), which one more masked CAS decides on
 * a scratch block holding the returned `old` and a marker word M:
 *
 *   X:  masked CAS place ──returned old──► B[0..w)
 *   MK: masked CAS B (16 or 32 bytes) compare [expect | 0] mask [m | 0],
 *       swap M := ff 00 00 00 00 00 00 00  (M starts as 00 ff ff ff ff ff ff ff)
 *
 * M then has the shape of a carry term's pair (lower_order.c): M[0] is 0
 * exactly when it did not swap, M[1..7] exactly when it did, so the guards
 * test it like any term.  The masks may be run-time values (aggregates).
 */
static bool cas_marker(struct lower_ctx *c, const struct ast_expr *e, unsigned w, struct lcond *cd)
{
	struct ir_prog *p = c->p;
	const struct ast_expr *place = e->u.call.args;
	const struct ast_expr *expect = place->arg_next;
	const struct ast_expr *cmask = expect->arg_next->arg_next;
	bool le = ast_type_order(place->type) == AST_ORDER_LE;
	unsigned msize = w == 4 ? 16 : 32, moff = w == 4 ? 8 : 16;
	if (c->n_cas_terms == sizeof(c->cas_terms) / sizeof(c->cas_terms[0])) {
		lower_error(c, e->loc, "too many cas conditions in one offload");
		return false;
	}
	uint32_t blk = ir_scratch_alloc(p, msize, msize);
	uint8_t init[32] = {0};
	memset(init + moff + 1, 0xff, 7);
	if (ir_scratch_init(p, blk, init, msize) < 0)
		return false;
	uint32_t result = 0;
	int xid = lower_cas_node(c, e, &result);
	if (xid < 0)
		return false;
	p->nodes[xid].sge[0].addr = ir_v(IR_V_SCRATCH_ADDR, 0, blk);
	uint8_t op = PRISM_OP_ATOMIC_MASKED_CS;
	struct ir_node *mk = ir_append(p, c->lane, op, IR_ROLE_GUARD);
	if (!mk)
		return false;
	int mid = mk->id;
	mk->what = "cas: did it swap";
	mk->loc = e->loc;
	mk->asize = (uint8_t)msize;
	mk->opmod = (uint8_t)PRISM_MASKED_OPMOD(msize == 16 ? 4 : 5);
	mk->raddr = ir_v(IR_V_SCRATCH_ADDR, 0, blk);
	mk->rkey = ir_v(IR_V_SCRATCH_RKEY, 0, 0);
	uint32_t junk = ir_scratch_alloc(p, msize, msize);
	ir_sge_add(p, mk, ir_v(IR_V_SCRATCH_ADDR, 0, junk), msize, ir_v(IR_V_SCRATCH_LKEY, 0, 0));
	mk->swap_bytes[moff] = 0xff;
	memset(mk->swap_mask_bytes + moff, 0xff, 8);
	uint32_t base = lower_field_off(op, PRISM_FIELD_ATOMIC_SWAP, (uint8_t)msize);
	/* compare = base + msize, compare mask = base + 3 * msize */
	const struct ast_expr *ops[2] = {expect, cmask};
	uint64_t taint = 0;
	for (int i = 0; i < 2; i++) {
		struct lval v;
		if (!lower_value(c, ops[i], &v))
			return false;
		uint8_t *bytes = i ? p->nodes[mid].compare_mask_bytes : p->nodes[mid].compare_bytes;
		if (v.kind == LV_CONST) {
			put_order(bytes, w, v.k, !le); /* the place's memory order */
			continue;
		}
		taint |= v.taint;
		if (!lower_deliver_for(c, &v, mid, base + (i ? 3 : 1) * msize, false, mid))
			return false;
	}
	ir_add_dep(p, xid, mid);
	struct lorder *ord = &c->cas_terms[c->n_cas_terms++];
	memset(ord, 0, sizeof(*ord));
	ord->t[0] = (struct lterm){.done = true,
	                           .lane = c->lane,
	                           .s = blk + moff,
	                           .fa = mid,
	                           .carry_read = -1,
	                           .taint = taint | place->taint};
	memset(cd, 0, sizeof(*cd));
	cd->lhs = place;
	cd->rhs = expect;
	cd->kind = LC_GT; /* "it swapped": the marker's term wanted set */
	cd->ord = ord;
	cd->width = 8;
	cd->loc = e->loc;
	lower_mem_written(c); /* the CAS wrote: later reads read again */
	return !p->oom;
}

bool lower_cas_condition(struct lower_ctx *c, const struct ast_expr *e, struct lcond *cd,
                         struct lval *vals)
{
	const struct ast_expr *place = e->u.call.args;
	const struct ast_expr *expect = place->arg_next;
	bool masked = e->u.call.nargs == 5;
	uint64_t cm = 0;
	if (masked) {
		/* success compares only the compare-mask bits: (old & m) == (expect & m) */
		struct lval mv;
		unsigned w = place->type ? (unsigned)place->type->size : 0;
		if (w == 4 || w == 16)
			return cas_marker(c, e, w, cd);
		if (w != 8) {
			lower_error(
			    c, e->loc,
			    "a masked cas is lowered as a condition on 4, 8 and 16-byte "
			    "places, not %u (the marker CAS holds the returned value and 16 "
			    "more bytes: at most 32)",
			    w);
			return false;
		}
		if (!lower_value(c, expect->arg_next->arg_next, &mv))
			return false;
		if (mv.kind != LV_CONST) {
			lower_error(
			    c, e->loc,
			    "a masked cas used as a condition needs a constant compare mask");
			return false;
		}
		cm = mv.k;
	}
	uint32_t result = 0;
	int id = lower_cas_node(c, e, &result);
	if (id < 0)
		return false;
	if (!lower_value(c, expect, &vals[1]))
		return false;
	vals[0] = (struct lval){.kind = LV_SCRATCH,
	                        .read = -1,
	                        .off = result,
	                        .width = 8,
	                        .be = ast_type_order(place->type) != AST_ORDER_LE,
	                        .region = -1,
	                        .taint = vals[1].taint,
	                        .field_writer = id};
	if (vals[1].kind == LV_CONST)
		vals[1].width = 8;
	if (masked) {
		/* X' masked explicitly, Y' by the complement (ymask) */
		if (!lower_mask_value(c, &vals[0], cm, &vals[0]))
			return false;
		if (vals[1].kind == LV_CONST)
			vals[1].k &= cm;
		else if (!lower_mask_value(c, &vals[1], cm, &vals[1]))
			return false;
	}
	lower_mem_written(c); /* the CAS wrote: later reads read again */
	memset(cd, 0, sizeof(*cd));
	cd->ymask = masked ? cm : 0;
	cd->lhs = place;
	cd->rhs = expect;
	cd->kind = LC_EQ;
	cd->width = 8;
	cd->vals = vals;
	cd->loc = e->loc;
	return true;
}

/*
 * if (A) {X} else if (B) {Y} [else if (C) {..}] [else {Z}] under relaxed, each
 * condition a narrow `==`.  Arm k runs iff its condition holds and no earlier
 * arm ran: a READ copies each earlier arm's first effect's opcode byte (NOP
 * or its real opcode once armed) into the arm's control index bytes 1-2,
 * which its guard CAS compares with 0.  The closing else is posted live and
 * disarmed by one masked CAS per earlier arm that ran.  Up to three
 * conditional arms (two index bytes).
 */
static bool lower_if_chain(struct lower_ctx *c, const struct ast_stmt *s)
{
	struct lchain ch;
	memset(&ch, 0, sizeof(ch));
	const struct ast_stmt *cur = s;
	for (;;) {
		struct lcond cd;
		if (!lower_cond_operands(c, cur->u.if_.cond, &cd))
			return false;
		if (c->p->profile != IR_PROFILE_RELAXED) {
			lower_error(
			    c, cur->u.if_.cond->loc,
			    "profile strict: `else if` carries the earlier arms' outcome in "
			    "the control index bytes, which stock firmware checks; compile "
			    "with --profile relaxed");
			return false;
		}
		ch.have_self = false;
		cd.chain = &ch;
		if (!lower_guard_push(c, &cd, NULL, cd.loc))
			return false;
		bool ok = lower_block(c, cur->u.if_.then_body);
		lower_guard_pop(c, &cd);
		if (!ok)
			return false;
		const struct ast_stmt *next = cur->u.if_.has_else ? cur->u.if_.else_body : NULL;
		if (!next)
			return true;
		if (!ch.have_self) {
			lower_error(
			    c, cur->loc,
			    "an arm followed by `else` must have an effect (later arms test "
			    "whether it ran)");
			return false;
		}
		if (ch.n_prev == 2) {
			lower_error(
			    c, next->loc,
			    "an `if / else if` chain has at most three conditions (the earlier "
			    "arms' outcomes ride in the two control index bytes)");
			return false;
		}
		ch.prev[ch.n_prev++] = ch.self;
		if (next->kind == AST_STMT_IF) {
			cur = next;
			continue;
		}
		struct lcond fe;
		memset(&fe, 0, sizeof(fe));
		ch.final_else = true;
		fe.chain = &ch;
		fe.loc = next->loc;
		fe.kind = LC_NE;
		if (!lower_guard_push(c, &fe, NULL, fe.loc))
			return false;
		ok = lower_block(c, next);
		lower_guard_pop(c, &fe);
		return ok;
	}
}

/* The negation of a condition (the `else` arm). */
static const enum lcond_kind cond_negate[] = {
    [LC_EQ] = LC_NE,
    [LC_NE] = LC_EQ,
};

static bool conj_operands(struct lower_ctx *c, const struct ast_expr *e, struct lcond *cds,
                          unsigned *n, unsigned cap);

/*
 * A conjunction: `if (a && b)`, or an `if` inside an `if` (the inner
 * condition and every enclosing one).  Every effect is guarded by all the
 * clauses' carry terms in one exact guard (lower_order.c).  An `else` is
 * lowered when the inner condition is one order comparison (its complement
 * is one term too) and there is no `&&` at this level.
 */
static bool lower_if_conj(struct lower_ctx *c, const struct ast_stmt *s)
{
	const struct lcond *outer = lower_cond_top(c);
	if (outer && !lower_conjoinable(outer)) {
		lower_error(
		    c, s->loc,
		    "an `if` inside an `else if` arm, an `else`, or under `!=` is not lowered "
		    "(its guard would need a disjunction)");
		return false;
	}
	struct lcond cds[4];
	struct lorder ords[4];
	unsigned n = 0;
	memset(cds, 0, sizeof(cds));
	memset(ords, 0, sizeof(ords));
	const struct ast_expr *ce = s->u.if_.cond;
	if (ce->kind == AST_EXPR_CALL) {
		lower_error(c, ce->loc, "a cas inside a nested condition is not lowered");
		return false;
	}
	if (!conj_operands(c, ce, cds, &n, 4))
		return false;
	/* `!=` (a disjunction of two carry terms) is lowered by lower_dnf.c */
	for (unsigned i = 0; i < n; i++)
		cds[i].ord = &ords[i];
	cds[n - 1].and_next = outer;
	if (!lower_guard_push(c, &cds[0], lower_dnf_top(c), s->loc))
		return false;
	bool ok = lower_block(c, s->u.if_.then_body);
	lower_guard_pop(c, &cds[0]);
	if (!ok || !s->u.if_.has_else)
		return ok;
	const struct ast_stmt *els = s->u.if_.else_body;
	if (n != 1 || (cds[0].kind != LC_GT && cds[0].kind != LC_GE) || els->kind == AST_STMT_IF) {
		lower_error(c, els->loc,
		            "an `else` of a nested or `&&` condition is lowered only for one order "
		            "comparison (the complement of `==` or of a conjunction is a "
		            "disjunction)");
		return false;
	}
	struct lcond ne = cds[0];
	ne.kind = cds[0].kind == LC_GT ? LC_GE : LC_GT;
	ne.lhs = cds[0].rhs;
	ne.rhs = cds[0].lhs;
	ne.and_next = outer;
	if (!lower_guard_push(c, &ne, lower_dnf_top(c), els->loc))
		return false;
	ok = lower_block(c, els);
	lower_guard_pop(c, &ne);
	return ok;
}

/* `a && b && ...`: clauses into cds[*n..], linked by and_next. */
static bool conj_operands(struct lower_ctx *c, const struct ast_expr *e, struct lcond *cds,
                          unsigned *n, unsigned cap)
{
	if (e->kind == AST_EXPR_BINARY && e->u.binary.op == AST_BINOP_LAND)
		return conj_operands(c, e->u.binary.lhs, cds, n, cap) &&
		       conj_operands(c, e->u.binary.rhs, cds, n, cap);
	if (*n == cap) {
		lower_error(c, e->loc, "a conjunction of more than %u comparisons is not lowered",
		            cap);
		return false;
	}
	if (!lower_cond_operands(c, e, &cds[*n]))
		return false;
	if (*n)
		cds[*n - 1].and_next = &cds[*n];
	(*n)++;
	return true;
}

/* Which clause a nested `if` may conjoin with: not an else-if chain arm,
 * not a disjunction. */
bool lower_conjoinable(const struct lcond *cd)
{
	for (; cd; cd = cd->and_next)
		if (cd->chain || cd->kind == LC_NE || cd->or_next)
			return false;
	return true;
}

/*
 * `if (A || B ...)` at the top level, each clause a comparison or an `&&` of
 * comparisons: one exact guard per clause (lower_order.c).  Its `else` is
 * the conjunction of the clauses' complements, lowered when every clause is
 * one order comparison.
 */
static bool lower_if_disj(struct lower_ctx *c, const struct ast_stmt *s)
{
	struct lcond cds[8];
	struct lorder ords[8];
	const struct ast_expr *clauses[4];
	unsigned nc = 0, n = 0;
	memset(cds, 0, sizeof(cds));
	memset(ords, 0, sizeof(ords));
	/* flatten the || tree, left to right */
	const struct ast_expr *stack[8];
	unsigned sp = 0;
	stack[sp++] = s->u.if_.cond;
	while (sp) {
		const struct ast_expr *e = stack[--sp];
		if (e->kind == AST_EXPR_BINARY && e->u.binary.op == AST_BINOP_LOR) {
			if (sp + 2 > 8) {
				lower_error(c, e->loc,
				            "a disjunction of more than 4 clauses is not lowered");
				return false;
			}
			stack[sp++] = e->u.binary.rhs;
			stack[sp++] = e->u.binary.lhs;
			continue;
		}
		if (nc == 4) {
			lower_error(c, e->loc,
			            "a disjunction of more than 4 clauses is not lowered");
			return false;
		}
		clauses[nc++] = e;
	}
	struct lcond *heads[4];
	for (unsigned i = 0; i < nc; i++) {
		unsigned first = n;
		if (!conj_operands(c, clauses[i], cds, &n, 8))
			return false;
		if (first)
			cds[first - 1].and_next = NULL; /* the previous clause ended there */
		heads[i] = &cds[first];
		if (i)
			heads[i - 1]->or_next = heads[i];
	}
	for (unsigned i = 0; i < n; i++)
		cds[i].ord = &ords[i];
	if (!lower_guard_push(c, heads[0], NULL, s->loc))
		return false;
	bool ok = lower_block(c, s->u.if_.then_body);
	lower_guard_pop(c, heads[0]);
	if (!ok || !s->u.if_.has_else)
		return ok;
	const struct ast_stmt *els = s->u.if_.else_body;
	struct lcond neg[4];
	for (unsigned i = 0; i < nc; i++) {
		const struct lcond *h = heads[i];
		if (h->and_next || (h->kind != LC_GT && h->kind != LC_GE) ||
		    els->kind == AST_STMT_IF) {
			lower_error(
			    c, els->loc,
			    "the `else` of `||` is lowered only when every clause is one order "
			    "comparison (its complement is then one conjunction)");
			return false;
		}
		neg[i] = *h;
		neg[i].kind = h->kind == LC_GT ? LC_GE : LC_GT;
		neg[i].lhs = h->rhs;
		neg[i].rhs = h->lhs;
		neg[i].or_next = NULL;
		neg[i].and_next = i + 1 < nc ? &neg[i + 1] : NULL;
	}
	if (!lower_guard_push(c, &neg[0], NULL, els->loc))
		return false;
	ok = lower_block(c, els);
	lower_guard_pop(c, &neg[0]);
	return ok;
}

/*
 * if (cond) { T } [else { E }]: every effect X of T is guarded by cond, every
 * effect of E by its complement; no WQE of its own.  The form per condition:
 *
 *   a == b / a != b (relaxed, 1-3 bytes)   READ a ─► X.ctrl[4..6]; CAS X.ctrl (above)
 *   a > b, a >= b (order, any profile)    carry term (lower_order.c) ─► exact guard on X
 *   else if chains (relaxed ==)          + READ of earlier arms' status (lower_if_chain)
 *   &&, nested if, ||                    lower_if_conj / lower_if_disj
 *   !, || inside &&, any other else      lower_dnf.c (one exact guard per clause)
 *   cas(...)                             the CAS, then `old == expect` as a term
 */
static bool lower_if_once(struct lower_ctx *c, const struct ast_stmt *s);

bool lower_if(struct lower_ctx *c, const struct ast_stmt *s)
{
	/* every `else if` condition too: an arm's guards re-read its own
	 * condition after the arm's effects as well */
	unsigned n_caps = c->n_caps;
	bool ok = true;
	for (const struct ast_stmt *cur = s; ok && cur && cur->kind == AST_STMT_IF;
	     cur = cur->u.if_.has_else ? cur->u.if_.else_body : NULL)
		ok = capture_operands(c, cur->u.if_.cond);
	ok = ok && lower_if_once(c, s);
	c->n_caps = n_caps;
	return ok;
}

static bool lower_if_once(struct lower_ctx *c, const struct ast_stmt *s)
{
	c->eq_guard.cond = NULL; /* a guard of an earlier `if` (or iteration) */
	if (lower_dnf_wanted(c, s))
		return lower_if_dnf(c, s);
	const struct ast_expr *ce0 = s->u.if_.cond;
	if (!lower_cond_top(c) && ce0->kind == AST_EXPR_BINARY && ce0->u.binary.op == AST_BINOP_LOR)
		return lower_if_disj(c, s);
	bool conj = ce0->kind == AST_EXPR_BINARY && ce0->u.binary.op == AST_BINOP_LAND;
	if (lower_cond_top(c) || conj)
		return lower_if_conj(c, s);
	const struct ast_stmt *els = s->u.if_.has_else ? s->u.if_.else_body : NULL;
	if (els && els->kind == AST_STMT_IF)
		return lower_if_chain(c, s);
	struct lcond cd;
	struct lorder ord;
	struct lval vals[2];
	memset(&ord, 0, sizeof(ord));
	const struct ast_expr *ce = s->u.if_.cond;
	if (ce->kind == AST_EXPR_CALL && ce->u.call.fn == AST_BUILTIN_CAS) {
		if (!lower_cas_condition(c, ce, &cd, vals))
			return false;
	} else if (!lower_cond_operands(c, ce, &cd)) {
		return false;
	}
	if (!cd.ord) /* a masked cas condition comes with its term */
		cd.ord = &ord;
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
	if (!lower_guard_push(c, &cd, NULL, s->loc))
		return false;
	/* a loop may end this arm when there is no `else` (lower_loop.c: the
	 * complement skips it) */
	c->arm_cond = els || cd.vals ? NULL : &cd;
	c->arm_neg = &ne;
	bool ok = lower_block(c, s->u.if_.then_body);
	lower_guard_pop(c, &cd);
	c->arm_cond = c->arm_neg = NULL;
	if (!ok || !els)
		return ok;
	if (!lower_guard_push(c, &ne, NULL, els->loc))
		return false;
	ok = lower_block(c, els);
	lower_guard_pop(c, &ne);
	return ok;
}
