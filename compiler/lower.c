/* SPDX-License-Identifier: MIT */
/*
 * compiler/lower.c - lowering driver: offload -> chain IR.
 *
 * Owns: the IR program skeleton (regions, parameters), statement dispatch,
 * `parallel` lanes (RedN-Parallel: each lane its own managed queue, joined
 * before the response), the client payload layout (each parameter once per
 * RECV scatter entry group, in entry order), and the closing response.
 *
 *   ctl:  WAIT args ─► SEND_EN w0 ─► SEND_EN w1
 *   w0:   lane 0 ...  ──┐ join (WAITs) ─► SEND_EN conn ─► responses
 *   w1:   lane 1 ...  ──┘
 *
 * Must not: place barriers or compute slots.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/lower.h"
#include "chain/chainobj.h"

void lower_error(struct lower_ctx *c, struct src_loc loc, const char *fmt, ...)
{
	c->failed = true;
	if (c->quiet)
		return; /* a trial lowering (lower_offload): the real one reports */
	/* every rejection points into the source: a construct without a
	 * position of its own is reported at the statement being lowered, and
	 * outside any statement at the offload */
	if (loc.line == 0)
		loc = c->at.line ? c->at : c->off->loc;
	va_list ap;
	va_start(ap, fmt);
	diag_vreport(c->d, DIAG_ERROR, loc, fmt, ap);
	va_end(ap);
}

bool lower_guard_push(struct lower_ctx *c, const struct lcond *cd, const struct ldnf *dnf,
                      struct src_loc loc)
{
	if (c->n_guards == LOWER_GUARD_DEPTH) {
		lower_error(c, loc, "conditions nested more than %u deep are not lowered",
		            LOWER_GUARD_DEPTH);
		return false;
	}
	c->guards[c->n_guards++] =
	    (struct lguard_frame){.cond = cd, .dnf = dnf, .serial = ++c->guard_serial};
	return true;
}

void lower_guard_pop(struct lower_ctx *c, const struct lcond *cd)
{
	assert(c->n_guards && c->guards[c->n_guards - 1].cond == cd);
	(void)cd;
	c->n_guards--;
}

/*
 * parallel { A } || { B }: lane k lowered into queue w<k> (lane 0 goes on in
 * the main chain); responses made in a lane are anchored after the join:
 *
 *   ctl:  WAIT args ─► SEND_EN w0 ─► SEND_EN w1
 *   w0:   A ... ─┐ join: WAIT w0 CQ, WAIT w1 CQ ─► SEND_EN conn
 *   w1:   B ... ─┘
 */
static bool lower_parallel(struct lower_ctx *c, const struct ast_stmt *s)
{
	if (c->in_parallel || lower_cond_top(c)) {
		lower_error(c, s->loc, "`parallel` must be at the top level of an offload");
		return false;
	}
	/* lanes other than the main chain start at the invocation's entry, so
	 * their reads are not ordered after a store or atomic before the
	 * `parallel` */
	for (uint32_t r = 0; r <= c->p->n_regions; r++)
		if (c->mem_epoch[r]) {
			lower_error(
			    c, s->loc,
			    "`parallel` after a statement that writes memory is not lowered "
			    "(its lanes could read that memory before the write lands): move "
			    "the writes into the first lane or after the `parallel`");
			return false;
		}
	int saved = c->lane;
	c->in_parallel = true;
	bool ok = true;
	for (const struct ast_lane *ln = s->u.parallel.lanes; ln && ok; ln = ln->next) {
		/* lane 0 is the main chain where it stands now; lane k goes on
		 * where an earlier `parallel`'s lane k left it (past its loops) */
		int q = ln->index == 0 ? saved : ir_lane_queue(c->p, ln->index);
		if (q < 0)
			return false;
		while (c->p->queues[q].halts)
			q = c->p->queues[q].cont;
		c->lane = q;
		ok = lower_block(c, ln->body);
		if (ln->index == 0)
			saved = c->lane; /* a loop in lane 0 moved the main chain on */
	}
	c->lane = saved;
	c->in_parallel = false;
	if (ok && c->p->n_queues > CHAINOBJ_MAX_QUEUES) {
		lower_error(c, s->loc,
		            "with these lanes the program needs %u queues; a chain object holds at "
		            "most %u (fewer lanes)",
		            c->p->n_queues, CHAINOBJ_MAX_QUEUES);
		return false;
	}
	/* responses produced inside the lanes are enabled after the join */
	for (unsigned i = 0; i < c->n_deferred; i++)
		lower_anchor(c, c->deferred[i]);
	c->n_deferred = 0;
	return ok;
}

/* Whether condition @cd (its clauses and disjuncts) reads local @l. */
static bool cond_mentions(const struct lcond *cd, const struct ast_local *l)
{
	return cd && (lower_mentions_local(cd->lhs, l) || lower_mentions_local(cd->rhs, l) ||
	              cond_mentions(cd->and_next, l) || cond_mentions(cd->or_next, l));
}

/* The value local @l's home holds (its latest WRITE). */
static struct lval home_value(const struct lower_ctx *c, const struct ast_local *l)
{
	const struct lhome *h = &c->homes[l->index];
	const struct ast_type *t = l->type;
	return (struct lval){.kind = LV_SCRATCH,
	                     .read = -1,
	                     .off = h->off,
	                     .width = (uint32_t)t->size,
	                     .be = ast_type_order(t) != AST_ORDER_LE,
	                     .region =
	                         t->kind == AST_TYPE_PTR && t->region ? (int)t->region->index : -1,
	                     .taint = h->taint,
	                     .field_writer = h->writer};
}

bool lower_local_value(struct lower_ctx *c, const struct ast_local *l, struct src_loc loc,
                       struct lval *out)
{
	if (l->index >= c->nlocals || !c->env_set[l->index]) {
		lower_error(c, loc, "variable '%s' is used before it has a value", l->name);
		return false;
	}
	/* an operand of a condition being lowered again: as its `if` saw it */
	if (c->snap_view)
		for (unsigned i = 0; i < c->snap_view->n_saved; i++)
			if (c->snap_view->saved[i].local == l->index) {
				*out = c->snap_view->saved[i].v;
				return true;
			}
	struct llocal_scope *sc = &c->scopes[l->index];
	bool in_force = sc->mark < 0 || ((unsigned)sc->mark < c->n_guards &&
	                                 c->guards[sc->mark].serial == sc->serial);
	if (!in_force) {
		if (!c->homed[l->index]) {
			/* lower_offload lowers the offload again with a home for it */
			c->home_wanted[l->index] |= 1;
			c->failed = true;
			return false;
		}
		if (!c->homes[l->index].have) {
			lower_error(c, loc, "internal: '%s' has no home cell", l->name);
			return false;
		}
		c->env[l->index] = home_value(c, l);
		sc->mark = -1;
	}
	*out = c->env[l->index];
	return true;
}

bool lower_local_to_home(struct lower_ctx *c, unsigned index)
{
	if (index >= c->nlocals || !c->homed[index] || !c->homes[index].have)
		return false;
	for (const struct ast_local *l = c->off->locals; l; l = l->next)
		if (l->index == index && l->type) {
			c->env[index] = home_value(c, l);
			c->env_set[index] = true;
			c->scopes[index].mark = -1;
			return true;
		}
	return false;
}

/* The bytes of constant @k as a @w-byte value in the order @be. */
static void const_bytes(uint8_t *b, uint32_t w, bool be, uint64_t k)
{
	for (uint32_t j = 0; j < w; j++) {
		uint32_t sh = be ? w - 1 - j : j;
		b[j] = sh < 8 ? (uint8_t)(k >> (8 * sh)) : 0;
	}
}

/*
 * Local @l (it has a home) now holds @v: one WRITE per 64 bytes of inline
 * data stores it into the home's cell, in @l's byte order, guarded by the
 * condition in force (lower_guard), so the cell holds the value of the last
 * assignment that ran:
 *
 *   lane:  READ(v) ──scatter──► W.inline   [guard CAS on W.ctrl]
 *          W = WRITE inline [v] -> scratch H
 */
static bool home_write(struct lower_ctx *c, const struct ast_local *l, const struct lval *v,
                       struct src_loc loc)
{
	struct ir_prog *p = c->p;
	struct lhome *h = &c->homes[l->index];
	uint32_t w = (uint32_t)l->type->size;
	uint32_t cap = sizeof(p->nodes[0].inline_data);
	bool be = ast_type_order(l->type) != AST_ORDER_LE;
	struct lval val = *v;
	if (!h->have) {
		h->off = ir_scratch_alloc(p, w, 8);
		h->have = true;
		h->writer = -1;
	}
	if (w > cap) {
		/* in parts: a value that can be split at an offset */
		if (val.kind == LV_PARAM && !lower_param_in_scratch(c, &val, &val))
			return false;
		if (val.kind != LV_MEM && val.kind != LV_SCRATCH && val.kind != LV_FIELD &&
		    val.kind != LV_CONST) {
			lower_error(
			    c, loc,
			    "'%s' (%u bytes) is assigned under a condition and read where it "
			    "may not hold; a local of more than %u bytes is kept then only "
			    "when it holds a parameter or a value in memory",
			    l->name, w, cap);
			return false;
		}
	}
	uint32_t inl = lower_field_off(PRISM_OP_RDMA_WRITE, PRISM_FIELD_RADDR, 8) + 16 + 4;
	bool swap = w > 1 && w <= 8 && val.width == w && val.be != be;
	int last = -1;
	for (uint32_t k = 0; k < w; k += cap) {
		struct ir_node *n = ir_append(p, c->lane, PRISM_OP_RDMA_WRITE, IR_ROLE_DATA);
		if (!n)
			return false;
		int id = n->id;
		uint32_t pw = w - k < cap ? w - k : cap;
		n->what = "keep a local (assigned under a condition)";
		n->loc = loc;
		n->raddr = ir_v(IR_V_SCRATCH_ADDR, 0, h->off + k);
		n->rkey = ir_v(IR_V_SCRATCH_RKEY, 0, 0);
		n->is_inline = true;
		n->inline_len = pw;
		if (val.kind == LV_CONST) {
			if (k == 0)
				const_bytes(n->inline_data, pw, be, val.k);
		} else {
			struct lval part = val;
			if (w > cap) {
				part.off += k;
				part.width = pw;
			}
			if (!lower_delivered(lower_deliver(c, &part, id, inl, swap)))
				return false;
		}
		if (!lower_guard(c, id))
			return false;
		last = id;
	}
	h->writer = last;
	h->taint |= v->taint;
	return !p->oom;
}

/* Conditions being lowered that read local @l keep the value it has now
 * (before an arm assigns it): a guard lowers its condition again for each
 * effect it guards, and every guard of an `if` tests the values from
 * before either arm ran.  False with *room false when a capture has no room
 * for it (the frames that read it are then marked stale, as before). */
static bool save_for_captures(struct lower_ctx *c, const struct ast_local *l, struct src_loc loc,
                              bool *room)
{
	*room = true;
	for (unsigned i = 0; i < c->n_caps; i++) {
		struct lcapture *cap = &c->caps[i];
		if (!lower_mentions_local(cap->e, l))
			continue;
		bool have = false;
		for (unsigned k = 0; k < cap->n_saved; k++)
			have |= cap->saved[k].local == l->index;
		if (have)
			continue;
		if (cap->n_saved == LOWER_CAP_SAVED) {
			*room = false;
			continue;
		}
		struct lval v;
		const struct lcapture *view = c->snap_view;
		c->snap_view = NULL;
		bool ok = lower_local_value(c, l, loc, &v);
		c->snap_view = view;
		if (!ok)
			return false;
		cap->saved[cap->n_saved++] = (struct lsaved){.local = l->index, .v = v};
	}
	return true;
}

bool lower_assign_local(struct lower_ctx *c, const struct ast_local *l, const struct lval *v,
                        struct src_loc loc)
{
	bool room = true;
	if (l->index >= c->nlocals) {
		lower_error(c, loc, "variable '%s' out of range", l->name);
		return false;
	}
	if (c->env_set[l->index] && !save_for_captures(c, l, loc, &room))
		return false;
	if (c->homed[l->index] && !home_write(c, l, v, loc))
		return false;
	c->env[l->index] = *v;
	c->env_set[l->index] = true;
	/* under a guard pushed since its scope began: x holds v only there */
	struct llocal_scope *sc = &c->scopes[l->index];
	unsigned base = sc->base;
	if (c->loop && c->loop->body_depth > base)
		base = c->loop->body_depth;
	/* a guard lowers its condition again for each effect it guards: one
	 * whose operand could not keep the earlier value would read the new
	 * one (lower_guard refuses an effect under such a frame) */
	if (!room)
		for (unsigned d = c->n_guards; d > sc->base; d--)
			if (cond_mentions(c->guards[d - 1].cond, l))
				c->guards[d - 1].stale = l->name;
	sc->mark = -1;
	for (unsigned d = c->n_guards; d > base; d--)
		if (c->guards[d - 1].cond && !c->guards[d - 1].cont) {
			sc->mark = (int)(d - 1);
			sc->serial = c->guards[d - 1].serial;
			sc->at = loc;
			c->home_wanted[l->index] |= 2;
			break;
		}
	return true;
}

/* `let x = e` / `x = e`: x now names e's value (no WQE: values move only
 * when a field needs them; a local with a home is also written there). */
static bool set_local(struct lower_ctx *c, const struct ast_local *l, const struct ast_expr *e)
{
	struct lval v;
	if (l->index >= c->nlocals) {
		lower_error(c, e->loc, "variable '%s' out of range", l->name);
		return false;
	}
	bool fa = e->kind == AST_EXPR_CALL && e->u.call.fn == AST_BUILTIN_FETCH_ADD;
	if (fa ? !lower_fetch_add_value(c, e, &v) : !lower_value(c, e, &v))
		return false;
	return lower_assign_local(c, l, &v, e->loc);
}

static bool lower_stmt_kind(struct lower_ctx *c, const struct ast_stmt *s);

/* Lower one statement, with its position as the one lower_error falls
 * back to. */
static bool lower_stmt(struct lower_ctx *c, const struct ast_stmt *s)
{
	struct src_loc outer = c->at;

	if (s->loc.line)
		c->at = s->loc;
	bool ok = lower_stmt_kind(c, s);
	c->at = outer;
	return ok;
}

static bool lower_stmt_kind(struct lower_ctx *c, const struct ast_stmt *s)
{
	c->last_was_return = false;
	switch (s->kind) {
	case AST_STMT_LET:
		if (s->u.let.local->index < c->nlocals)
			c->scopes[s->u.let.local->index] =
			    (struct llocal_scope){.base = c->n_guards, .mark = -1};
		if (!s->u.let.init) {
			/* a temporary starts as zeros (the reference's rule); a
			 * local with a home gets them written, its cell keeping the
			 * previous invocation's bytes otherwise */
			const struct ast_local *l = s->u.let.local;
			if (l->index >= c->nlocals || !c->homed[l->index] || !l->type)
				return true;
			struct lval zero = {.kind = LV_CONST,
			                    .width = (uint32_t)l->type->size,
			                    .be = true,
			                    .region = -1};
			return lower_assign_local(c, l, &zero, s->loc);
		}
		return set_local(c, s->u.let.local, s->u.let.init);
	case AST_STMT_ASSIGN:
		if (s->u.assign.target->kind == AST_EXPR_NAME &&
		    s->u.assign.target->u.name.sym == AST_SYM_LOCAL)
			return set_local(c, s->u.assign.target->u.name.target.local,
			                 s->u.assign.value);
		return lower_store(c, s);
	case AST_STMT_EXPR:
		return lower_call_stmt(c, s->u.expr.expr);
	case AST_STMT_IF:
		return lower_if(c, s);
	case AST_STMT_RETURN:
		return lower_return(c, s);
	case AST_STMT_PARALLEL:
		return lower_parallel(c, s);
	case AST_STMT_BLOCK:
		return lower_block(c, s->u.block.body);
	case AST_STMT_WHILE:
		return lower_while(c, s);
	case AST_STMT_BREAK:
		return lower_break(c, s);
	}
	return false;
}

/* ---- `return` ends the invocation ---------------------------------------------
 *
 * The NIC has no jump: every WQE of the chain is posted and either runs or is
 * guarded off.  So a statement that may `return`, followed by statements R,
 * is lowered with R under "it did not return":
 *
 *   if (C) { T } else { E }  R      =>   if (C) { T  R } else { E  R }
 *   return e;  R                    =>   return e;        (R never runs)
 *
 * R is left out of an arm that always returns, so `if (C) { return a; } R`
 * guards R by !C, and of two returns at most one is armed per invocation.
 * A return inside a loop also leaves the loop (lower_return); statements
 * after such a loop, or after a `parallel` whose lanes may return, are
 * rejected (nothing on the NIC could tell them that a return ran).
 */

static bool stmt_may_return(const struct ast_stmt *s);

static bool list_may_return(const struct ast_stmt *s)
{
	for (; s; s = s->next)
		if (stmt_may_return(s))
			return true;
	return false;
}

static bool stmt_may_return(const struct ast_stmt *s)
{
	switch (s->kind) {
	case AST_STMT_RETURN:
		return true;
	case AST_STMT_IF:
		return list_may_return(s->u.if_.then_body) ||
		       (s->u.if_.has_else && list_may_return(s->u.if_.else_body));
	case AST_STMT_BLOCK:
		return list_may_return(s->u.block.body);
	case AST_STMT_WHILE:
		return list_may_return(s->u.while_.body);
	case AST_STMT_PARALLEL:
		for (const struct ast_lane *ln = s->u.parallel.lanes; ln; ln = ln->next)
			if (list_may_return(ln->body))
				return true;
		return false;
	default:
		return false;
	}
}

static bool stmt_always_returns(const struct ast_stmt *s);

static bool list_always_returns(const struct ast_stmt *s)
{
	for (; s; s = s->next)
		if (stmt_always_returns(s))
			return true;
	return false;
}

static bool stmt_always_returns(const struct ast_stmt *s)
{
	switch (s->kind) {
	case AST_STMT_RETURN:
		return true;
	case AST_STMT_IF:
		return s->u.if_.has_else && list_always_returns(s->u.if_.then_body) &&
		       list_always_returns(s->u.if_.else_body);
	case AST_STMT_BLOCK:
		return list_always_returns(s->u.block.body);
	default:
		return false;
	}
}

/* A statement node the lowering makes up (freed with the context). */
static struct ast_stmt *synth_stmt(struct lower_ctx *c, const struct ast_stmt *from)
{
	struct lsynth *n = calloc(1, sizeof(*n));
	if (!n) {
		c->p->oom = true;
		return NULL;
	}
	n->next = c->synth;
	c->synth = n;
	n->s = *from;
	n->s.next = NULL;
	return &n->s;
}

/* The statement list `body` followed by `rest` (rest left out when body
 * always returns), as one BLOCK statement at `loc`. */
static struct ast_stmt *synth_then(struct lower_ctx *c, const struct ast_stmt *body,
                                   const struct ast_stmt *rest, struct src_loc loc)
{
	struct ast_stmt blk = {.kind = AST_STMT_BLOCK, .loc = loc};
	struct ast_stmt *b = synth_stmt(c, &blk);
	if (!b)
		return NULL;
	if (list_always_returns(body) || !rest) {
		b->u.block.body = (struct ast_stmt *)body;
		return b;
	}
	struct ast_stmt **tail = &b->u.block.body;
	for (const struct ast_stmt *s = body; s; s = s->next) {
		*tail = synth_stmt(c, s);
		if (!*tail)
			return NULL;
		tail = &(*tail)->next;
	}
	*tail = (struct ast_stmt *)rest;
	return b;
}

/* No statement of `s` holds other statements. */
static bool flat(const struct ast_stmt *s)
{
	for (; s; s = s->next)
		if (s->kind == AST_STMT_IF || s->kind == AST_STMT_WHILE ||
		    s->kind == AST_STMT_BLOCK || s->kind == AST_STMT_PARALLEL)
			return false;
	return true;
}

/* `s` may return and `rest` follows it: lower both, rest only where `s`
 * did not return. */
static bool lower_then_rest(struct lower_ctx *c, const struct ast_stmt *s,
                            const struct ast_stmt *rest)
{
	switch (s->kind) {
	case AST_STMT_RETURN:
		return lower_stmt(c, s); /* rest never runs */
	case AST_STMT_BLOCK: {
		struct ast_stmt *b = synth_then(c, s->u.block.body, rest, s->loc);
		return b && lower_block(c, b->u.block.body);
	}
	case AST_STMT_IF: {
		struct ast_stmt *n = synth_stmt(c, s);
		if (!n)
			return false;
		const struct ast_stmt *els = s->u.if_.has_else ? s->u.if_.else_body : NULL;
		n->u.if_.then_body = synth_then(c, s->u.if_.then_body, rest, s->loc);
		/* `if (A) { return a; } if (B) { .. }` is `if (A) {..} else if (B) {..}`
		 * (the cheap relaxed chain takes arms of plain statements) */
		bool chain =
		    !els && rest->kind == AST_STMT_IF && !rest->next && flat(s->u.if_.then_body);
		n->u.if_.else_body =
		    chain ? (struct ast_stmt *)rest : synth_then(c, els, rest, rest->loc);
		n->u.if_.has_else = true;
		if (!n->u.if_.then_body || !n->u.if_.else_body)
			return false;
		/* the arm that goes on where the other always returns */
		const struct ast_stmt *cont = NULL;
		if (list_always_returns(s->u.if_.then_body) && !chain)
			cont = n->u.if_.else_body;
		else if (els && list_always_returns(els))
			cont = n->u.if_.then_body;
		if (cont && c->n_cont_arms < LOWER_GUARD_DEPTH)
			c->cont_arms[c->n_cont_arms++] = cont;
		return lower_stmt(c, n);
	}
	default:
		if (!lower_stmt(c, s)) /* its own rejection first */
			return false;
		lower_error(c, rest->loc,
		            "statements after a %s that may `return` are not lowered (the NIC "
		            "cannot tell them whether a return ran): move them before it, or "
		            "into it",
		            s->kind == AST_STMT_WHILE ? "loop" : "`parallel`");
		return false;
	}
}

/* Number the returns of `s` in the order they are written (then before
 * else, lanes in order), whatever order the lowering meets them in. */
static bool number_returns(struct lower_ctx *c, const struct ast_stmt *s)
{
	for (; s; s = s->next) {
		bool ok = true;
		switch (s->kind) {
		case AST_STMT_RETURN:
			ok = lower_return_site(c, s->loc) != 0;
			break;
		case AST_STMT_IF:
			ok = number_returns(c, s->u.if_.then_body) &&
			     (!s->u.if_.has_else || number_returns(c, s->u.if_.else_body));
			break;
		case AST_STMT_BLOCK:
			ok = number_returns(c, s->u.block.body);
			break;
		case AST_STMT_WHILE:
			ok = number_returns(c, s->u.while_.body);
			break;
		case AST_STMT_PARALLEL:
			for (const struct ast_lane *ln = s->u.parallel.lanes; ln && ok;
			     ln = ln->next)
				ok = number_returns(c, ln->body);
			break;
		default:
			break;
		}
		if (!ok)
			return false;
	}
	return true;
}

/* A statement list, in order, into the current lane (no WQE of its own;
 * see above for statements after one that may return). */
bool lower_block(struct lower_ctx *c, const struct ast_stmt *s)
{
	for (unsigned i = 0; i < c->n_cont_arms && c->n_guards; i++)
		if (c->cont_arms[i] == s)
			c->guards[c->n_guards - 1].cont = true;
	for (; s; s = s->next) {
		if (s->next && stmt_may_return(s))
			return lower_then_rest(c, s, s->next);
		if (!lower_stmt(c, s))
			return false;
	}
	return true;
}

/* Payload layout: entries grouped by parameter, in parameter order. */
/* Where parameter @index is declared (the offload if not found). */
static struct src_loc param_loc(const struct lower_ctx *c, unsigned index)
{
	for (const struct ast_param *pa = c->off->params; pa; pa = pa->next)
		if (pa->index == index)
			return pa->loc;
	return c->off->loc;
}

static bool layout_payload(struct lower_ctx *c)
{
	struct ir_prog *p = c->p;
	struct ir_recv_sge sorted[IR_MAX_SGE];
	unsigned n = 0;
	/* patches name RECV entries by index: remap them */
	int remap[IR_MAX_SGE];
	uint32_t off = 0;
	/* a parameter the body never uses is still part of the payload (the
	 * client sends every parameter): its bytes land in a scratch sink */
	for (unsigned pi = 0; pi < p->n_params; pi++) {
		bool used = false;
		for (unsigned i = 0; i < p->n_recv; i++)
			used |= p->recv[i].param == (int)pi;
		if (used)
			continue;
		uint32_t sink = ir_scratch_alloc(p, p->params[pi].width, 8);
		if (ir_recv_into(p, (int)pi, 0, p->params[pi].width,
		                 ir_v(IR_V_SCRATCH_ADDR, 0, sink), -1, 0, 1ull << pi) < 0) {
			lower_error(c, param_loc(c, pi),
			            "client arguments need more than %u receive scatter entries",
			            IR_MAX_SGE);
			return false;
		}
	}
	for (unsigned pi = 0; pi < p->n_params; pi++) {
		p->params[pi].msg_off = off;
		uint32_t bytes = 0;
		for (unsigned i = 0; i < p->n_recv; i++) {
			if (p->recv[i].param != (int)pi)
				continue;
			remap[i] = (int)n;
			sorted[n] = p->recv[i];
			sorted[n].msg_off = off + bytes;
			bytes += p->recv[i].len;
			n++;
		}
		p->params[pi].copies = p->params[pi].width ? bytes / p->params[pi].width : 0;
		if (p->params[pi].copies > IR_MAX_SGE) {
			lower_error(
			    c, param_loc(c, pi),
			    "parameter '%s' is needed in %u WQE fields; a client payload "
			    "carries a parameter at most %u times (each use of a client value "
			    "needs its own copy: a RECV or READ scatter places a byte once)",
			    p->params[pi].name, p->params[pi].copies, IR_MAX_SGE);
			return false;
		}
		off += bytes;
		if (off > CHAINOBJ_MAX_MSG) {
			lower_error(
			    c, param_loc(c, pi),
			    "the request needs %u bytes up to parameter '%s' (with the copies "
			    "its uses need); a client SEND carries at most %u",
			    off, p->params[pi].name, CHAINOBJ_MAX_MSG);
			return false;
		}
	}
	memcpy(p->recv, sorted, n * sizeof(sorted[0]));
	p->n_recv = n;
	for (unsigned i = 0; i < p->n_patches; i++)
		if (p->patches[i].writer == IR_RECV)
			p->patches[i].writer_sge = remap[p->patches[i].writer_sge];
	p->msg_size = off;
	return true;
}

/* One lowering of `off`.  `recv_reserve`: RECV entries kept back for the
 * parameters still to come (past it, a use is staged); `quiet`: report no
 * diagnostics (a trial). */
static struct ir_prog *lower_attempt(struct diag_ctx *d, const struct ast_program *prog,
                                     const struct ast_offload *off, enum ir_profile profile,
                                     unsigned recv_reserve, bool quiet, const bool *homed,
                                     uint8_t *wanted)
{
	struct ir_prog *p = ir_prog_new(off->name, profile);
	if (!p) {
		d->oom = true;
		return NULL;
	}
	p->loc = off->loc;
	struct lower_ctx c = {
	    .p = p, .d = d, .prog = prog, .off = off, .recv_reserve = recv_reserve, .quiet = quiet};
	c.lane = ir_lane_queue(p, 0);
	c.nlocals = off->nlocals;
	c.env = calloc(off->nlocals + 1, sizeof(*c.env));
	c.env_set = calloc(off->nlocals + 1, sizeof(*c.env_set));
	c.scopes = calloc(off->nlocals + 1, sizeof(*c.scopes));
	c.homes = calloc(off->nlocals + 1, sizeof(*c.homes));
	c.homed = homed;
	c.home_wanted = wanted;
	if (!c.env || !c.env_set || !c.scopes || !c.homes) {
		free(c.env);
		free(c.env_set);
		free(c.scopes);
		free(c.homes);
		ir_prog_free(p);
		d->oom = true;
		return NULL;
	}
	for (const struct ast_region *r = prog->regions; r; r = r->next)
		ir_add_region(p, r->name, r->size, r->writable);
	/* each free list is a region of its own: cursor + slots (lower_atomic.c) */
	for (const struct ast_freelist *fl = prog->freelists; fl; fl = fl->next)
		ir_add_region(p, fl->name, 8 + 8 * (uint64_t)LOWER_FREELIST_SLOTS, true);
	p->params = calloc(off->nparams ? off->nparams : 1, sizeof(*p->params));
	c.mem_epoch = calloc(p->n_regions + 1, sizeof(*c.mem_epoch));
	c.wrote_region = -1;
	if (!p->params || !c.mem_epoch) {
		free(c.mem_epoch);
		free(c.env);
		free(c.env_set);
		free(c.scopes);
		free(c.homes);
		ir_prog_free(p);
		d->oom = true;
		return NULL;
	}
	for (const struct ast_param *pa = off->params; pa; pa = pa->next) {
		struct ir_param *ip = &p->params[pa->index];
		ip->name = pa->name;
		ip->width = (uint32_t)pa->type->size;
		ip->big_endian = ast_type_order(pa->type) != AST_ORDER_LE;
		ip->region = pa->type->kind == AST_TYPE_PTR && pa->type->region
		                 ? (int)pa->type->region->index
		                 : -1;
	}
	p->n_params = off->nparams;
	p->result_le = off->ret_type && ast_type_order(off->ret_type) == AST_ORDER_LE;
	bool ok = number_returns(&c, off->body) && lower_block(&c, off->body) &&
	          lower_flush_phis(&c) && lower_final_response(&c) && lower_finish_reads(&c) &&
	          lower_check_loop_escapes(&c) && layout_payload(&c);
	for (unsigned i = 0; i < c.n_reads; i++)
		free(c.reads[i].picks);
	free(c.reads);
	free(c.deferred);
	free(c.env);
	free(c.env_set);
	free(c.scopes);
	free(c.homes);
	for (unsigned i = 0; i < c.n_phis; i++) {
		free(c.phis[i].in);
		free(c.phis[i].after);
		free(c.phis[i].before);
	}
	free(c.phis);
	while (c.synth) {
		struct lsynth *n = c.synth;
		c.synth = n->next;
		free(n);
	}
	free(c.sites);
	free(c.results);
	free(c.mem_epoch);
	if (!ok || c.failed || p->oom) {
		if (p->oom)
			d->oom = true;
		ir_prog_free(p);
		return NULL;
	}
	return p;
}

/*
 * Staging a client argument costs a READ, so the first lowering keeps no
 * RECV entries in reserve: when every use fits in the RECV's 16 entries
 * nothing is staged.  If that runs out of entries (or fails for any
 * reason) the program is lowered again with a few entries in reserve for
 * staging, and at last with every use staged (each parameter one RECV
 * entry, at most 16 parameters: always enough), reporting.
 *
 * A local read where the condition of its assignment may not hold needs a
 * home (lhome).  The lowering that meets such a read asks for one and
 * stops, and the same attempt runs again with it (each retry adds a home,
 * so at most one per local).  A lowering that fails before it meets the
 * read (an `else if` arm whose only effect would be that WRITE) runs again
 * with a home for every local assigned under a condition.  The attempts are
 * quiet; when none succeeds, the last one runs again to report why, with
 * only the homes reads asked for (not the speculative ones).
 */
struct ir_prog *lower_offload(struct diag_ctx *d, const struct ast_program *prog,
                              const struct ast_offload *off, enum ir_profile profile)
{
	static const unsigned reserve[] = {0, LOWER_RECV_RESERVE, IR_MAX_SGE};
	unsigned n = off->nlocals + 1;
	/* homes reads asked for, locals assigned under a condition, and the
	 * homes an attempt gets (asked, or speculatively every candidate) */
	bool *asked = calloc(3 * n, sizeof(*asked));
	bool *cand = asked ? asked + n : NULL, *use = asked ? asked + 2 * n : NULL;
	uint8_t *wanted = calloc(n, sizeof(*wanted));
	struct ir_prog *p = NULL;
	if (!asked || !wanted) {
		free(asked);
		free(wanted);
		d->oom = true;
		return NULL;
	}
	for (unsigned r = 0; r < sizeof(reserve) / sizeof(reserve[0]) && !p && !d->oom; r++) {
		bool spec = false;
		for (;;) {
			bool more = false, grew = false;
			for (unsigned i = 0; i < off->nlocals; i++)
				use[i] = asked[i] || (spec && cand[i]);
			p = lower_attempt(d, prog, off, profile, reserve[r], true, use, wanted);
			for (unsigned i = 0; i < off->nlocals; i++) {
				grew |= (wanted[i] & 1) && !use[i];
				asked[i] |= wanted[i] & 1;
				cand[i] |= (wanted[i] & 2) != 0;
				more |= cand[i] && !asked[i];
				wanted[i] = 0;
			}
			if (p || d->oom)
				break;
			if (grew)
				continue;
			if (spec || !more)
				break;
			spec = true;
		}
	}
	if (!p && !d->oom) {
		p = lower_attempt(d, prog, off, profile, IR_MAX_SGE, false, asked, wanted);
		/* it stopped at a read that only a speculative home served,
		 * reporting nothing: report with every candidate's home */
		bool silent = false;
		for (unsigned i = 0; i < off->nlocals; i++) {
			silent |= wanted[i] & 1;
			use[i] = asked[i] || cand[i] || (wanted[i] & 1);
			wanted[i] = 0;
		}
		if (!p && !d->oom && silent)
			p = lower_attempt(d, prog, off, profile, IR_MAX_SGE, false, use, wanted);
	}
	free(asked);
	free(wanted);
	return p;
}
