/* SPDX-License-Identifier: MIT */
/*
 * compiler/lower_loop.c - `while (c) bound N { ... }` and `break`, unrolled
 * (bounds above MAX_UNROLL and `bound N recycle` go to lower_recycle.c).
 *
 * Owns: unrolling (each iteration lowered with the locals' current values,
 * so `p = p.next` turns into a READ whose scatter writes the next READ's
 * raddr), loop exits, and the values of locals after the loop; where a loop
 * may stand: top level, a `parallel` lane (its exits enable the lane's own
 * continuation `w<k>c<n>`, joined before the response; a loop value may not
 * leave the lane), or the end of an `if (a == b)` arm (a skip CAS guarded
 * by the complement takes the first exit when the condition fails).
 *
 * An exit point (the loop condition at the top of each iteration, or a
 * `break` under `if (a == b)`) is a SEND_EN that normally enables the
 * queue's own next iteration.  One 16-byte masked CAS retargets it when
 * the exit condition holds: operand `a` sits in the SEND_EN's reserved
 * bytes 16-23, the CAS compares them (compare mask) and swaps bytes 24-31
 * (index and QPN: swap mask) to "enable the continuation queue":
 *
 *   w0:  READ p_i ─► CAS16 C_i ─► WAIT ─► SEND_EN w0 ─► C_i: SEND_EN w0 (next iteration)
 *                                                         └─(a == b)─► SEND_EN w0c (after the loop)
 *   w0c: code after the loop, then the responses' barrier
 *
 * No control-segment byte carries data, so exits work under both profiles.
 * The loop's queue halts at the exit taken (nothing enables it further);
 * the object lists every exit with the counters it leaves behind
 * (chainobj_exit) so the runtime re-posts the next invocation there.
 * 16- and 32-byte masked atomics are big-endian in memory (sim, PRM):
 * operand byte j meets target byte j, no reversal.
 *
 * Must not: place barriers (sched_barrier.c puts WAIT + SEND_EN before each
 * exit, which the CAS and the READ patch).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/lower.h"
#include "util/array.h"

#define EXIT_OPERAND_OFF 16u /* SEND_EN's reserved bytes 16-23 */
#define EXIT_MAX_BYTES   8u
#define MAX_UNROLL       64u

static bool snapshot(struct lower_ctx *c)
{
	struct lloop *l = c->loop;
	if (l->n_snap == l->cap_snap) {
		unsigned ncap = l->cap_snap ? l->cap_snap * 2 : 8;
		struct lval *ns = realloc(l->snap, (size_t)ncap * (c->nlocals + 1) * sizeof(*ns));
		if (!ns) {
			c->p->oom = true;
			return false;
		}
		l->snap = ns;
		bool *nb = realloc(l->snap_set, (size_t)ncap * (c->nlocals + 1) * sizeof(*nb));
		if (!nb) {
			c->p->oom = true;
			return false;
		}
		l->snap_set = nb;
		l->cap_snap = ncap;
	}
	size_t base = (size_t)l->n_snap * (c->nlocals + 1);
	memcpy(&l->snap[base], c->env, c->nlocals * sizeof(*c->env));
	memcpy(&l->snap_set[base], c->env_set, c->nlocals * sizeof(*c->env_set));
	l->n_snap++;
	return true;
}

/*
 * What every exit CAS on node @cid's SEND_EN shares: a 16-byte masked CAS on
 * the enable's bytes 16-31 whose swap half (bytes 8-15 of the operand, under
 * the swap mask) writes the continuation's WQE index and QPN, its old value
 * parked in scratch, and the CAS patch that makes it a control writer of
 * @cid carrying @taint.  The compare mask covers bytes [@at, @at + @len) of
 * the operand (@len 0: it always swaps).  @k is node @kid, just appended.
 */
static bool exit_cas(struct lower_ctx *c, struct ir_node *k, int kid, int cid, unsigned at,
                     unsigned len, uint64_t taint)
{
	struct ir_prog *p = c->p;
	struct lloop *l = c->loop;

	k->asize = 16;
	k->opmod = (uint8_t)PRISM_MASKED_OPMOD(4);
	k->raddr = ir_v(IR_V_NODE_ADDR, cid, EXIT_OPERAND_OFF);
	k->rkey = ir_v(IR_V_QBUF_RKEY, c->lane, 0);
	memset(k->compare_mask_bytes, 0, sizeof(k->compare_mask_bytes));
	memset(k->compare_mask_bytes + at, 0xff, len);
	memset(k->swap_mask_bytes, 0, sizeof(k->swap_mask_bytes));
	memset(k->swap_mask_bytes + 8, 0xff, 8);
	k->swap_idx = ir_v(IR_V_QUEUE_ENTRY, l->cont_q, 0);
	k->swap_obj = ir_v(IR_V_QPN, l->cont_q, 0);
	uint32_t result = ir_scratch_alloc(p, 16, 16);
	ir_sge_add(p, k, ir_v(IR_V_SCRATCH_ADDR, 0, result), 16, ir_v(IR_V_SCRATCH_LKEY, 0, 0));
	struct ir_patch pt = {.kind = IR_PATCH_CAS,
	                      .writer = kid,
	                      .writer_sge = 0,
	                      .target = cid,
	                      .off = EXIT_OPERAND_OFF,
	                      .len = 16,
	                      .control = true,
	                      .taint = taint};
	return ir_add_patch(p, &pt) >= 0;
}

/* The loop ends an `if` arm: one more 16-byte masked CAS on the first
 * exit's SEND_EN, compare mask 0 (it always matches), swaps in the
 * continuation like the exit test; it is a guarded effect of the
 * complement of the arm's condition (lower_guard), so when the condition
 * is false the first exit is taken and no iteration runs. */
static bool skip_test(struct lower_ctx *c, int cid, struct src_loc loc)
{
	struct ir_prog *p = c->p;
	struct lloop *l = c->loop;
	struct ir_node *k = ir_append(p, c->lane, PRISM_OP_ATOMIC_MASKED_CS, IR_ROLE_DATA);
	if (!k)
		return false;
	int kid = k->id;
	k->what = "if: skip the loop (condition false)";
	k->loc = loc;
	k->loop = l->id;
	k->iter = 0;
	if (!exit_cas(c, k, kid, cid, 0, 0, 0)) /* compare mask 0: always swaps */
		return false;
	if (!lower_guard_push(c, l->skip, lower_dnf_top(c), loc))
		return false;
	bool ok = lower_guard(c, kid);
	lower_guard_pop(c, l->skip);
	c->eq_guard.cond = NULL; /* not a guard a `break` may reuse */
	return ok && !p->oom;
}

/* Exit the loop when lhs == rhs.  `via`: a relaxed `==` guard that
 * already compared them; its CAS returns the old control word of the
 * effect it guards, whose QPN bytes (4..) hold the memory-side operand, into
 * the SEND_EN's reserved bytes, and the exit test compares those bytes: no
 * second READ of the operand. */
static bool finish_exit(struct lower_ctx *c, int cid, int gid, struct src_loc loc);

/* The SEND_EN of the current iteration's exit point: it enables the next
 * iteration's queue entry until the exit's CAS retargets it. */
static struct ir_node *exit_enable(struct lower_ctx *c, struct src_loc loc)
{
	struct ir_node *cn = ir_append(c->p, c->lane, PRISM_OP_SEND_ENABLE, IR_ROLE_EXIT);

	if (!cn)
		return NULL;
	cn->we_obj = ir_v(IR_V_QPN, c->lane, 0);
	cn->what = "loop exit / next iteration";
	cn->loc = loc;
	cn->loop = c->loop->id;
	cn->iter = (int)c->loop->iter;
	return cn;
}

static bool exit_point(struct lower_ctx *c, const struct ast_expr *lhs, const struct ast_expr *rhs,
                       struct src_loc loc, const struct lguard_rec *via)
{
	struct ir_prog *p = c->p;
	struct lloop *l = c->loop;
	if (!snapshot(c))
		return false;
	if (lhs->is_const) { /* `0 == x`: the constant goes right, widths after */
		const struct ast_expr *t = lhs;
		lhs = rhs;
		rhs = t;
	}
	unsigned wl = lhs->type ? (unsigned)lhs->type->size : 0;
	unsigned wr = rhs->type ? (unsigned)rhs->type->size : 0;
	if (rhs->is_const)
		wr = wl; /* an integer literal takes the other operand's width */
	if (wl != wr || wl == 0 || wl > EXIT_MAX_BYTES || lhs->is_const) {
		lower_error(c, loc,
		            "a loop exit compares a run-time value with another of the same "
		            "width or a constant, at most %u bytes (they meet in a SEND_EN's 8 "
		            "reserved bytes)",
		            EXIT_MAX_BYTES);
		return false;
	}
	struct ir_node *cn = exit_enable(c, loc);
	if (!cn)
		return false;
	int cid = cn->id;

	struct lval ta, cb;
	uint32_t at = 0; /* where the operand sits in the reserved bytes */
	int wa;
	if (via) {
		/* the guard's returned word lands in bytes 16-23 */
		at = 4;
		cb = via->cmp;
		memset(&ta, 0, sizeof(ta));
		ta.taint = via->taint;
		struct ir_node *gn = &p->nodes[via->guard];
		gn->sge[0].addr = ir_v(IR_V_NODE_ADDR, cid, EXIT_OPERAND_OFF);
		gn->sge[0].key = ir_v(IR_V_QBUF_LKEY, c->lane, 0);
		struct ir_patch rp = {.kind = IR_PATCH_ATOMIC_RESULT,
		                      .writer = via->guard,
		                      .writer_sge = 0,
		                      .target = cid,
		                      .off = EXIT_OPERAND_OFF,
		                      .len = 8,
		                      .taint = via->taint};
		if (ir_add_patch(p, &rp) < 0)
			return false;
		wa = via->guard;
	} else {
		if (!lower_cond_operand(c, lhs, &ta) || !lower_cond_operand(c, rhs, &cb))
			return false;
		if (ta.kind == LV_PARAM && cb.kind != LV_PARAM && cb.kind != LV_CONST) {
			struct lval t = ta;
			ta = cb;
			cb = t;
		}
		struct ldeliv da = lower_deliver(c, &ta, cid, EXIT_OPERAND_OFF, false);
		if (!lower_delivered(da))
			return false;
		wa = da.writer;
	}

	struct ir_node *g = ir_append(p, c->lane, PRISM_OP_ATOMIC_MASKED_CS, IR_ROLE_GUARD);
	if (!g)
		return false;
	int gid = g->id;
	g->what = "loop exit test";
	g->loc = loc;
	g->loop = l->id;
	g->iter = (int)l->iter;
	if (!exit_cas(c, g, gid, cid, at, wl, ta.taint | cb.taint))
		return false;
	uint32_t cmp = lower_field_off(PRISM_OP_ATOMIC_MASKED_CS, PRISM_FIELD_ATOMIC_COMPARE, 16);
	/* the CAS compares bytes: an operand of the other byte order (an
	 * `le64 *T` pointer against a big-endian one) lands reversed */
	bool swap = !via && cb.width > 1 && cb.width == ta.width && cb.be != ta.be;
	if (cb.kind == LV_CONST) {
		/* the constant as the other operand's bytes in memory */
		for (unsigned j = 0; j < wl; j++)
			g->compare_bytes[at + j] =
			    (uint8_t)(cb.k >> (8 * (ta.be ? wl - 1 - j : j)));
	} else if (!lower_delivered(lower_deliver(c, &cb, gid, cmp + at, swap))) {
		return false;
	}
	if (wa >= 0)
		ir_add_dep(p, wa, gid);
	return finish_exit(c, cid, gid, loc);
}

/*
 * `while (a < b)` (or `>`, `<=`, `>=`; `a == b` is `a >= b && b >= a`, two
 * of these exits): each iteration computes the carry
 * term of the comparison in a fresh scratch pair (lower_order.c: a masked
 * CAS for the complement, a masked FETCH_ADD), a READ copies its carry byte
 * (0x00: X' > Y', 0xff: not) into the exit's reserved bytes, and the exit
 * CAS compares that one byte with the value meaning "the condition fails":
 *
 *   w0: CAS16 S := ~Y' ─► FA16 S += X' ─► READ S[1] ─► C_i.rsvd ─► CAS16 C_i ─► C_i: SEND_EN
 */
static bool exit_order(struct lower_ctx *c, struct lcond cd, struct src_loc loc)
{
	struct ir_prog *p = c->p;
	struct lloop *l = c->loop;
	struct lval vals[2];
	if (!lower_cond_operand(c, cd.lhs, &vals[0]) || !lower_cond_operand(c, cd.rhs, &vals[1]))
		return false;
	if (vals[0].kind == LV_CONST)
		vals[0].width = cd.width;
	if (vals[1].kind == LV_CONST)
		vals[1].width = cd.width;
	/* GT: t0 = lhs > rhs wanted true; GE: t0 = rhs > lhs wanted false */
	int xi = cd.kind == LC_GT ? 0 : 1;
	bool want = cd.kind == LC_GT;
	struct lterm t;
	if (!lower_guard_push(c, &cd, lower_dnf_top(c), loc))
		return false;
	bool ok = lower_order_term(c, vals, xi, 1 - xi, &t);
	lower_guard_pop(c, &cd);
	if (!ok)
		return false;
	if (t.constant && t.kval == want) {
		/* never fails (`x >= 0`, half of `x == 0`, of `0 != x`'s exits):
		 * this test never leaves, so it needs no exit */
		return true;
	}
	if (t.constant) {
		lower_error(c, loc,
		            "this test leaves the loop whatever the operands (unsigned "
		            "integers): remove the loop, or write the loop without the `break` "
		            "or `return` it guards");
		return false;
	}
	want ^= t.flip;
	if (!snapshot(c))
		return false;
	struct ir_node *cn = exit_enable(c, loc);
	if (!cn)
		return false;
	int cid = cn->id;
	struct ir_node *rd = ir_append(p, c->lane, PRISM_OP_RDMA_READ, IR_ROLE_GUARD);
	if (!rd)
		return false;
	int rid = rd->id;
	rd->what = "loop exit: carry";
	rd->loc = loc;
	rd->raddr = ir_v(IR_V_SCRATCH_ADDR, 0, t.s + 1);
	rd->rkey = ir_v(IR_V_SCRATCH_RKEY, 0, 0);
	if (ir_scatter_into(p, rid, cid, EXIT_OPERAND_OFF, 1, t.taint) < 0)
		return false;
	ir_add_dep(p, t.fa, rid);
	struct ir_node *g = ir_append(p, c->lane, PRISM_OP_ATOMIC_MASKED_CS, IR_ROLE_GUARD);
	if (!g)
		return false;
	int gid = g->id;
	g->what = "loop exit test";
	g->loc = loc;
	g->loop = l->id;
	g->iter = (int)l->iter;
	if (!exit_cas(c, g, gid, cid, 0, 1, t.taint))
		return false;
	/* exit when the term is not what the condition wants */
	g->compare_bytes[0] = want ? 0xff : 0x00;
	ir_add_dep(p, rid, gid);
	return finish_exit(c, cid, gid, loc);
}

/* The end of an exit point: the skip test of a loop ending an `if` arm,
 * the exit enable after its CASes, the exit recorded. */
static bool finish_exit(struct lower_ctx *c, int cid, int gid, struct src_loc loc)
{
	struct ir_prog *p = c->p;
	struct lloop *l = c->loop;
	if (l->skip && l->n_snap == 1 && !skip_test(c, cid, loc)) /* the first exit */
		return false;
	/* order: operand READs, the CAS(es), then the exit enable */
	struct ir_queue *q = &p->queues[c->lane];
	unsigned from = (unsigned)p->nodes[cid].pos;
	for (unsigned i = from; i + 1 < q->n; i++) {
		q->nodes[i] = q->nodes[i + 1];
		p->nodes[q->nodes[i]].pos = (int)i;
	}
	q->nodes[q->n - 1] = cid;
	p->nodes[cid].pos = (int)q->n - 1;
	return ir_add_exit(p, gid, cid, l->id, (int)l->iter) >= 0 && !p->oom;
}

/* Conditions an unrolled loop's exit tests lower: a comparison, or `&&`
 * of them (one exit per way the condition fails), `!` pushed inward
 * (`!(a < b)` is `a >= b`, `!(A || B)` is `!A && !B`). */
static bool loop_cond_lowered(const struct ast_expr *e, bool neg)
{
	if (e->kind == AST_EXPR_UNARY && e->u.unary.op == AST_UNOP_NOT)
		return loop_cond_lowered(e->u.unary.operand, !neg);
	if (e->kind != AST_EXPR_BINARY)
		return false;
	switch (e->u.binary.op) {
	case AST_BINOP_LAND:
	case AST_BINOP_LOR:
		/* a conjunction once De Morgan's laws moved `!` inward */
		return (e->u.binary.op == AST_BINOP_LAND) != neg &&
		       loop_cond_lowered(e->u.binary.lhs, neg) &&
		       loop_cond_lowered(e->u.binary.rhs, neg);
	case AST_BINOP_EQ:
	case AST_BINOP_NE:
	case AST_BINOP_LT:
	case AST_BINOP_GT:
	case AST_BINOP_LE:
	case AST_BINOP_GE:
		return true;
	default:
		return false;
	}
}

/* The exits of loop condition e (neg: of !e) at the top of an iteration:
 * leave when any conjunct fails. */
static bool loop_exits(struct lower_ctx *c, const struct ast_expr *e, bool neg)
{
	if (e->kind == AST_EXPR_UNARY)
		return loop_exits(c, e->u.unary.operand, !neg);
	enum ast_binop op = e->u.binary.op;
	if (op == AST_BINOP_LAND || op == AST_BINOP_LOR)
		return loop_exits(c, e->u.binary.lhs, neg) && loop_exits(c, e->u.binary.rhs, neg);
	struct lcond cd;
	if (!lower_cond_operands(c, e, &cd))
		return false;
	if (neg) {
		/* the complement: == <-> !=, a > b <-> b >= a */
		if (cd.kind == LC_EQ || cd.kind == LC_NE) {
			cd.kind = cd.kind == LC_EQ ? LC_NE : LC_EQ;
		} else {
			const struct ast_expr *t = cd.lhs;
			cd.kind = cd.kind == LC_GT ? LC_GE : LC_GT;
			cd.lhs = cd.rhs;
			cd.rhs = t;
		}
	}
	if (cd.kind == LC_NE)
		return exit_point(c, cd.lhs, cd.rhs, e->loc, NULL);
	if (cd.kind != LC_EQ)
		return exit_order(c, cd, e->loc);
	/* a == b: a >= b and b >= a */
	struct lcond ge = cd, le = cd;
	ge.kind = le.kind = LC_GE;
	le.lhs = cd.rhs;
	le.rhs = cd.lhs;
	return exit_order(c, ge, e->loc) && exit_order(c, le, e->loc);
}

/*
 * Leave the loop where the active `a == b` guard holds: one more exit point
 * in this iteration (reusing the guard's returned control word under
 * relaxed):
 *
 *   w0:  ... CAS16 E ─► WAIT ─► E: SEND_EN w0 (rest of the iteration)
 *                               └─(a == b)─► SEND_EN w0c (after the loop)
 */
/* An exit taken when comparison cd holds: `==` is one exit point, `>` and
 * `>=` an order exit on the complement (exit_order leaves when its
 * condition fails), `!=` two of those. */
static bool exit_when(struct lower_ctx *c, const struct lcond *cd, struct src_loc loc)
{
	struct lcond k = *cd;
	k.ord = NULL;
	k.slot = 0;
	k.and_next = k.or_next = NULL;
	switch (cd->kind) {
	case LC_EQ:
		return exit_point(c, cd->lhs, cd->rhs, loc, NULL);
	case LC_NE: {
		struct lcond gt = k;
		gt.kind = LC_GT;
		if (!exit_when(c, &gt, loc))
			return false;
		gt.lhs = cd->rhs;
		gt.rhs = cd->lhs;
		return exit_when(c, &gt, loc);
	}
	case LC_GT: /* l > r holds: leave unless r >= l */
	case LC_GE: /* l >= r holds: leave unless r > l */
		k.kind = cd->kind == LC_GT ? LC_GE : LC_GT;
		k.lhs = cd->rhs;
		k.rhs = cd->lhs;
		return exit_order(c, k, loc);
	}
	return false;
}

bool lower_leave_loop(struct lower_ctx *c, struct src_loc loc, const char *what)
{
	const struct lcond *cd = lower_cond_top(c);
	if (!cd) {
		lower_error(c, loc,
		            "an unconditional `%s` ends the loop in its first "
		            "iteration: write the loop without it",
		            what);
		return false;
	}
	for (const struct lcond *h = cd; h; h = h->or_next)
		if (h->chain || h->and_next || h->vals) {
			lower_error(c, loc,
			            "`%s` is lowered under a condition that holds when one of its "
			            "comparisons does (a comparison, or `||` of them): under `&&`, "
			            "an `else if` arm or a cas, the loop would leave only when "
			            "several tests hold, which no single exit test sees",
			            what);
			return false;
		}
	if (cd->kind == LC_EQ && !cd->or_next) {
		/* one exit, reusing a relaxed guard's compare when it has one */
		const struct lguard_rec *g = &c->eq_guard;
		bool reuse = g->cond == cd && c->p->nodes[g->guard].queue == c->lane;
		return exit_point(c, cd->lhs, cd->rhs, loc, reuse ? g : NULL);
	}
	/* a disjunction: one exit per comparison, taken when it holds */
	for (const struct lcond *h = cd; h; h = h->or_next)
		if (!exit_when(c, h, loc))
			return false;
	return true;
}

bool lower_break(struct lower_ctx *c, const struct ast_stmt *s)
{
	if (!c->loop) {
		lower_error(c, s->loc, "`break` outside a loop");
		return false;
	}
	return lower_leave_loop(c, s->loc, "break");
}

/* After the loop each local holds its value at the exit taken: one value
 * if every exit agrees, else a phi.  Every exit's value lands in the same
 * sink, in exit order: exit e's value after exit e-1's enable (only a lane
 * that did not take exit e-1 gets there) and before exit e's own enable, so
 * the sink holds the value of the exit taken (lower_mem.c, LV_PHI). */
static bool merge_locals(struct lower_ctx *c)
{
	struct lloop *l = c->loop;
	struct ir_prog *p = c->p;
	/* snapshot e belongs to the loop's exit e; the last one to the
	 * fall-through */
	int *halts = calloc(l->n_snap + 1, sizeof(*halts));
	unsigned nh = 0;
	if (!halts) {
		p->oom = true;
		return false;
	}
	for (unsigned x = 0; x < p->n_exits; x++)
		if (p->exits[x].loop == l->id && nh < l->n_snap)
			halts[nh++] = p->exits[x].halt;
	if (nh + 1 != l->n_snap || l->fall_enable < 0) {
		free(halts);
		lower_error(c, p->loops[l->id].loc, "internal: loop exits and snapshots disagree");
		return false;
	}
	halts[nh] = l->fall_enable;
	bool ok = true;
	for (unsigned j = 0; j < c->nlocals && ok; j++) {
		bool all = true, any = false;
		const struct lval *first = NULL;
		for (unsigned e = 0; e < l->n_snap; e++) {
			size_t at = (size_t)e * (c->nlocals + 1) + j;
			if (!l->snap_set[at]) {
				all = false;
				continue;
			}
			any = true;
			if (!first)
				first = &l->snap[at];
			else if (memcmp(first, &l->snap[at], sizeof(*first)) != 0)
				all = false;
		}
		if (!any)
			continue;
		if (all && first) {
			c->env[j] = *first;
			continue;
		}
		/* a local with a home: the cell holds its value at the exit taken */
		if (lower_local_to_home(c, j))
			continue;
		if (!ARRAY_RESERVE(c->phis, c->cap_phis, c->n_phis + 1)) {
			c->p->oom = true;
			return false;
		}
		struct lphi *ph = &c->phis[c->n_phis];
		memset(ph, 0, sizeof(*ph));
		ph->landed_target = -1;
		ph->landed_copy = -1;
		ph->in = calloc(l->n_snap, sizeof(*ph->in));
		ph->after = calloc(l->n_snap, sizeof(*ph->after));
		ph->before = calloc(l->n_snap, sizeof(*ph->before));
		c->n_phis++; /* freed with the context from here on */
		if (!ph->in || !ph->after || !ph->before) {
			c->p->oom = true;
			ok = false;
			break;
		}
		struct lval v = {.kind = LV_PHI, .phi = (int)c->n_phis - 1};
		for (unsigned e = 0; e < l->n_snap; e++) {
			size_t at = (size_t)e * (c->nlocals + 1) + j;
			if (!l->snap_set[at])
				continue;
			ph->after[ph->n] = e ? halts[e - 1] : -1;
			ph->before[ph->n] = halts[e];
			ph->in[ph->n++] = l->snap[at];
			v.width = l->snap[at].width;
			v.be = l->snap[at].be;
			v.region = l->snap[at].region;
			v.taint |= l->snap[at].taint;
		}
		c->phis[v.phi].be = v.be;
		c->env[j] = v;
		c->env_set[j] = true;
	}
	free(halts);
	return ok;
}

/*
 * while (cond) bound N { body }, unrolled N times in the current queue, each
 * iteration behind an exit point testing cond; the code after the loop goes
 * to a continuation queue that every exit (and the fall-through) enables:
 *
 *   w0:   exit_0 body_0 exit_1 body_1 ... body_N-1 SEND_EN w0c
 *   w0c:  after the loop
 */
bool lower_while(struct lower_ctx *c, const struct ast_stmt *s)
{
	struct ir_prog *p = c->p;
	if (c->loop) {
		lower_error(c, s->loc,
		            "a loop inside a loop is not lowered (unroll the inner one by hand, or "
		            "make it the continuation of the outer loop)");
		return false;
	}
	/* a loop ending the arm of `if (a OP b) { ... }` (no `else`, one
	 * comparison): the complement retargets its first exit */
	const struct lcond *skip = NULL;
	if (lower_cond_top(c)) {
		if (lower_cond_top(c) != c->arm_cond || s->next) {
			lower_error(
			    c, s->loc,
			    "a loop inside an `if` is lowered only as the last statement of "
			    "an `if` without `else` whose condition is one comparison (not "
			    "in an `else`, an `else if`, a nested `if`, `&&`, `||` or `!`)");
			return false;
		}
		skip = c->arm_neg;
	}
	uint64_t n = s->u.while_.bound;
	/* `bound N recycle`, or too many iterations to unroll: one lap re-run
	 * by the NIC (lower_recycle.c) */
	if (s->u.while_.recycle || n > MAX_UNROLL) {
		if (c->in_parallel || skip) {
			lower_error(
			    c, s->loc,
			    "a recycled loop (`recycle`, or a bound above %u) is lowered at "
			    "the top level of an offload only, not in a `parallel` lane or an "
			    "`if`",
			    MAX_UNROLL);
			return false;
		}
		return lower_recycle(c, s);
	}
	for (unsigned i = 0; i < p->n_queues; i++)
		if (p->queues[i].lap) {
			lower_error(
			    c, s->loc,
			    "a loop after a recycled loop: a recycled loop must be the only "
			    "loop of its offload");
			return false;
		}
	const struct ast_expr *cond = s->u.while_.cond;
	bool cond_exit = true;
	if (cond->is_const) {
		if (!cond->value)
			return true; /* while (false) */
		cond_exit = false;
		if (skip) {
			lower_error(c, cond->loc,
			            "a loop inside an `if` needs its condition as `a != b` (its "
			            "first exit, before the first iteration, is where the `if` "
			            "skips the loop)");
			return false;
		}
	} else if (!loop_cond_lowered(cond, false)) {
		lower_error(c, cond->loc,
		            "a loop condition is a comparison, an `&&` of comparisons (`!` pushed "
		            "in: `!(a || b)` is `!a && !b`), or `true` (each way it fails is one "
		            "exit test); a loop that runs while either of two conditions holds is "
		            "not lowered (it would exit only when both fail, which no single exit "
		            "test sees)");
		return false;
	} else if (skip && (cond->kind != AST_EXPR_BINARY || cond->u.binary.op != AST_BINOP_NE)) {
		lower_error(c, cond->loc,
		            "a loop inside an `if` needs its condition as `a != b` (its "
		            "first exit, before the first iteration, is where the `if` "
		            "skips the loop)");
		return false;
	}
	/* the continuation of lane k's loop: `w<k>c<loop>` (a lane of its own
	 * in a `parallel`: joined before the response like its lane) */
	char name[16];
	unsigned lane_no = p->queues[c->lane].lane;
	snprintf(name, sizeof(name), "w%uc%u", lane_no, p->n_loops);
	int cq = ir_add_queue(p, name, IR_Q_LANE, lane_no, true);
	if (cq < 0)
		return false;
	p->queues[cq].no_entry = true;
	p->queues[c->lane].halts = true;
	p->queues[c->lane].cont = cq;
	struct lloop l = {.cont_q = cq, .fall_enable = -1, .skip = skip};
	/* the body runs only when the loop runs: its effects are not guarded */
	l.id = ir_add_loop(p, (uint32_t)n, s->loc);
	if (l.id < 0)
		return false;
	const struct lcond *outer_arm = c->arm_cond;
	if (!lower_guard_push(c, NULL, lower_dnf_top(c), s->loc))
		return false;
	l.body_depth = c->n_guards;
	c->arm_cond = NULL;
	c->loop = &l;
	unsigned before = p->queues[c->lane].n;
	bool ok = true;
	for (unsigned i = 0; i < n && ok; i++) {
		l.iter = i;
		if (cond_exit)
			ok = loop_exits(c, cond, false);
		if (ok)
			ok = lower_block(c, s->u.while_.body);
	}
	if (ok) {
		/* fall through after the last iteration: enable the continuation
		 * once everything the lane did completed */
		ok = snapshot(c);
		struct ir_queue *q = &p->queues[c->lane];
		int last = -1;
		for (unsigned i = q->n; i-- > 0;) {
			const struct prism_opcode_info *info =
			    prism_opcode_info(p->nodes[q->nodes[i]].op);
			if (info && info->cls != PRISM_CLASS_ORDERING) {
				last = q->nodes[i];
				break;
			}
		}
		struct ir_node *en =
		    ok ? ir_append(p, c->lane, PRISM_OP_SEND_ENABLE, IR_ROLE_EXIT) : NULL;
		if (!en) {
			ok = false;
		} else {
			int eid = en->id;
			en->we_obj = ir_v(IR_V_QPN, cq, 0);
			en->we_index = ir_v(IR_V_QUEUE_ENTRY, cq, 0);
			en->what = "loop done: enable what follows";
			l.fall_enable = eid;
			if (last >= 0)
				ir_add_dep(p, last, eid);
		}
	}
	p->loops[l.id].wr_per_iter = n ? (p->queues[c->lane].n - before) / (uint32_t)n : 0;
	if (ok)
		ok = merge_locals(c);
	free(l.snap);
	free(l.snap_set);
	c->loop = NULL;
	lower_guard_pop(c, NULL);
	c->arm_cond = outer_arm;
	if (c->lane == p->q_main)
		p->q_main = cq;
	c->lane = cq;
	return ok && !p->oom;
}

bool lower_join_loop_lanes(struct lower_ctx *c)
{
	struct ir_prog *p = c->p;
	for (unsigned q = 0; q < p->n_queues; q++) {
		const struct ir_queue *qq = &p->queues[q];
		if (qq->role != IR_Q_LANE || !qq->no_entry || qq->lap || qq->halts || qq->n ||
		    (int)q == p->q_main)
			continue;
		struct ir_node *n = ir_append(p, (int)q, PRISM_OP_NOP, IR_ROLE_DATA);
		if (!n)
			return false;
		n->what = "lane done (the join waits for it)";
	}
	return !p->oom;
}

/* Does queue `t` run only after queue `h`'s loop ended (t is h, one of the
 * continuations its exits lead to, or conn when that chain is the main
 * one, whose end enables the responses)? */
static bool after_loop_queue(const struct ir_prog *p, int h, int t)
{
	bool main_chain = false;
	for (int q = h;; q = p->queues[q].cont) {
		if (q == t)
			return true;
		main_chain |= q == p->q_main;
		if (!p->queues[q].halts)
			break;
	}
	return main_chain && t == p->q_conn;
}

/* A node before its queue's first exit runs in every invocation (e.g. the
 * staging READ of client arguments at the head of lane 0). */
static bool before_exits(const struct ir_prog *p, int node)
{
	const struct ir_node *n = &p->nodes[node];
	for (unsigned x = 0; x < p->n_exits; x++) {
		const struct ir_node *h = &p->nodes[p->exits[x].halt];
		if (h->queue == n->queue && h->pos <= n->pos)
			return false;
	}
	return true;
}

static struct src_loc loop_loc_of_queue(const struct ir_prog *p, int q)
{
	for (unsigned x = 0; x < p->n_exits; x++)
		if (p->nodes[p->exits[x].halt].queue == q && p->exits[x].loop >= 0)
			return p->loops[p->exits[x].loop].loc;
	return SRC_LOC_NONE;
}

bool lower_check_loop_escapes(struct lower_ctx *c)
{
	const struct ir_prog *p = c->p;
	for (unsigned i = 0; i < p->n_patches + p->n_deps; i++) {
		int from, to;
		if (i < p->n_patches) {
			if (p->patches[i].writer == IR_RECV)
				continue;
			from = p->patches[i].writer;
			to = p->patches[i].target;
		} else {
			from = p->deps[i - p->n_patches].from;
			to = p->deps[i - p->n_patches].to;
		}
		int h = p->nodes[from].queue;
		if (!p->queues[h].halts || p->queues[h].lap ||
		    after_loop_queue(p, h, p->nodes[to].queue) || before_exits(p, from))
			continue;
		lower_error(c, loop_loc_of_queue(p, h),
		            "a value computed in this loop's `parallel` lane is used outside the "
		            "lane (%s): not lowered; use it in the same lane, after the loop",
		            p->nodes[to].what ? p->nodes[to].what : "a WQE of another queue");
		return false;
	}
	return true;
}
