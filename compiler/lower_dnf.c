/* SPDX-License-Identifier: MIT */
/*
 * compiler/lower_dnf.c - conditions in disjunctive normal form: `!`, `||`
 * below the top level (inside `&&`, in an `if` inside an `if`), the `else`
 * of a disjunction or of a nested / `&&` condition (an `==` included), and
 * `else if` chains under the strict profile.
 *
 * Owns: turning an `if`'s condition, conjoined with the enclosing ones,
 * into a disjunction of conjunctions of carry terms, and handing it to the
 * guards as lcond chains (clauses linked by or_next, the comparisons of a
 * clause by and_next).  Every comparison is one or two carry terms
 * "X' > Y'" (lower_order.c): `a > b` is t0 = a > b wanted true, `a >= b`
 * is t0 = b > a wanted false, `a == b` is t0 = a > b and t1 = b > a both
 * wanted false, `a != b` either wanted true.  So `!` only flips what a
 * term is wanted to be, and De Morgan's laws do the rest:
 *
 *   !(a == b && c > d)  =  a > b  ||  b > a  ||  d >= c      (3 clauses)
 *   if (A) {X} else if (B) {Y} else {Z}:  X: A,  Y: !A && B,  Z: !A && !B
 *
 * Each effect is armed by one exact guard per clause (lower_order.c,
 * guard_disj): a later guard finds the effect armed and only rewrites the
 * same opcode.  A clause holding a term and its opposite is dropped, a
 * clause that contains another is absorbed.  The terms of one comparison
 * are computed once and shared by every clause and both arms.
 *
 * Must not: emit guards itself (lower_order.c does, per effect), place
 * barriers, or touch the conditions the other forms lower (lower_cond.c
 * keeps the cheaper RedN form for what it lowers).
 */
#include <stdlib.h>
#include <string.h>

#include "compiler/lower.h"

#define DNF_LEAVES  16 /* comparisons in one nest of `if`s */
#define DNF_CLAUSES 16 /* while building; a guarded effect takes DNF_GUARDED */
#define DNF_LITS    8  /* terms in one clause */
#define DNF_GUARDED 4  /* clauses one effect can be guarded by (guard_disj) */

/* One comparison of the nest: its carry terms, computed once. */
struct dnf_leaf {
	struct lcond base; /* kind EQ (two terms) or GT / GE (one term) */
	struct lorder own; /* the terms, unless an enclosing legacy `if` has them */
	struct lval vals[2], rvals[2];
	bool two; /* equality: t0 = lhs > rhs, t1 = rhs > lhs */
};

struct dnf_lit {
	uint8_t leaf, t;
	bool want; /* the term's wanted value: X' > Y' */
};

struct dnf {
	unsigned n;
	uint8_t len[DNF_CLAUSES];
	struct dnf_lit l[DNF_CLAUSES][DNF_LITS];
};

struct dnf_pool {
	struct dnf_leaf leaf[DNF_LEAVES];
	unsigned n;
};

/* The active condition of a DNF-lowered `if` (lower_dnf_top(c)). */
struct ldnf {
	struct dnf d;
	struct dnf_pool *pool;
	struct lcond conds[DNF_GUARDED * DNF_LITS];
};

/* ---- building -------------------------------------------------------------- */

static void dnf_true(struct dnf *d)
{
	d->n = 1;
	d->len[0] = 0;
}

enum add_result {
	ADD_OK,
	ADD_CONTRADICTS, /* the clause can never hold: drop it */
	ADD_FULL,
};

/* Add term x to clause k of d. */
static enum add_result clause_add(struct dnf *d, unsigned k, struct dnf_lit x,
                                  const struct dnf_pool *pool)
{
	for (unsigned i = 0; i < d->len[k]; i++) {
		struct dnf_lit *y = &d->l[k][i];
		if (y->leaf != x.leaf)
			continue;
		if (y->t == x.t)
			return y->want == x.want ? ADD_OK : ADD_CONTRADICTS;
		/* a > b and b > a never hold together */
		if (pool->leaf[x.leaf].two && y->want && x.want)
			return ADD_CONTRADICTS;
	}
	if (d->len[k] == DNF_LITS)
		return ADD_FULL;
	d->l[k][d->len[k]++] = x;
	return ADD_OK;
}

static bool clause_sub(const struct dnf *a, unsigned i, const struct dnf *b, unsigned j)
{
	for (unsigned x = 0; x < a->len[i]; x++) {
		bool in = false;
		for (unsigned y = 0; y < b->len[j] && !in; y++)
			in = !memcmp(&a->l[i][x], &b->l[j][y], sizeof(struct dnf_lit));
		if (!in)
			return false;
	}
	return true;
}

/* Drop clauses that contain another one (A || A && B == A). */
static void absorb(struct dnf *d)
{
	for (unsigned i = 0; i < d->n; i++)
		for (unsigned j = 0; j < d->n; j++) {
			if (i == j || !clause_sub(d, i, d, j))
				continue;
			if (d->len[i] == d->len[j] && j < i)
				continue; /* equal clauses: keep the first */
			d->len[j] = d->len[d->n - 1];
			memcpy(d->l[j], d->l[d->n - 1], sizeof(d->l[j]));
			d->n--;
			i = (unsigned)-1;
			break;
		}
}

struct builder {
	struct lower_ctx *c;
	struct dnf_pool *pool;
	bool full; /* a limit was hit (reported once) */
	struct src_loc loc;
	/* where the expression being built is evaluated: the enclosing
	 * condition, and the left operands of `&&` / `||` on the way down
	 * (they short-circuit); a cas runs only there */
	const struct dnf *ctx;
};

static const struct lcond *to_conds(struct lower_ctx *c, struct ldnf *g, struct src_loc loc);

/* Does condition `e` call cas? */
static bool has_cas(const struct ast_expr *e)
{
	if (e->kind == AST_EXPR_CALL)
		return e->u.call.fn == AST_BUILTIN_CAS;
	if (e->kind == AST_EXPR_UNARY)
		return has_cas(e->u.unary.operand);
	if (e->kind == AST_EXPR_BINARY)
		return has_cas(e->u.binary.lhs) || has_cas(e->u.binary.rhs);
	return false;
}

static bool too_big(struct builder *b, const char *what, unsigned cap)
{
	if (!b->full)
		lower_error(b->c, b->loc,
		            "this condition needs more than %u %s in disjunctive normal form "
		            "(write it with fewer `||` under `&&` or `!`)",
		            cap, what);
	b->full = true;
	return false;
}

static bool dnf_or(struct builder *b, struct dnf *r, const struct dnf *x)
{
	for (unsigned i = 0; i < x->n; i++) {
		if (r->n == DNF_CLAUSES)
			return too_big(b, "clauses", DNF_CLAUSES);
		r->len[r->n] = x->len[i];
		memcpy(r->l[r->n], x->l[i], sizeof(r->l[0]));
		r->n++;
	}
	absorb(r);
	return true;
}

static bool dnf_and(struct builder *b, struct dnf *r, const struct dnf *x, const struct dnf *y)
{
	struct dnf *out = calloc(1, sizeof(*out));
	if (!out) {
		b->c->p->oom = true;
		return false;
	}
	for (unsigned i = 0; i < x->n; i++)
		for (unsigned j = 0; j < y->n; j++) {
			if (out->n == DNF_CLAUSES) {
				free(out);
				return too_big(b, "clauses", DNF_CLAUSES);
			}
			unsigned k = out->n;
			out->len[k] = 0;
			enum add_result res = ADD_OK;
			for (unsigned m = 0; m < x->len[i] && res == ADD_OK; m++)
				res = clause_add(out, k, x->l[i][m], b->pool);
			for (unsigned m = 0; m < y->len[j] && res == ADD_OK; m++)
				res = clause_add(out, k, y->l[j][m], b->pool);
			if (res == ADD_FULL) {
				free(out);
				return too_big(b, "carry terms in one clause", DNF_LITS);
			}
			if (res == ADD_OK)
				out->n++;
		}
	absorb(out);
	*r = *out;
	free(out);
	return true;
}

/* !x: the conjunction over x's clauses of the disjunction of their terms,
 * each wanted the other way. */
static bool dnf_not(struct builder *b, struct dnf *r, const struct dnf *x)
{
	struct dnf *acc = calloc(2, sizeof(*acc));
	if (!acc) {
		b->c->p->oom = true;
		return false;
	}
	struct dnf *alt = &acc[1];
	dnf_true(&acc[0]);
	bool ok = true;
	for (unsigned i = 0; i < x->n && ok; i++) {
		alt->n = 0;
		for (unsigned m = 0; m < x->len[i]; m++) {
			alt->len[alt->n] = 1;
			alt->l[alt->n][0] = x->l[i][m];
			alt->l[alt->n][0].want = !alt->l[alt->n][0].want;
			alt->n++;
		}
		ok = dnf_and(b, &acc[0], &acc[0], alt);
	}
	if (ok)
		*r = acc[0];
	free(acc);
	return ok;
}

/* Operands that are the same value wherever they appear in one nest:
 * client parameters and constants (a local may be reassigned and memory
 * stored to in between, so those are never merged). */
static bool same_value(const struct ast_expr *x, const struct ast_expr *y)
{
	if (x->is_const || y->is_const)
		return x->is_const && y->is_const && x->value == y->value;
	return x->kind == AST_EXPR_NAME && y->kind == AST_EXPR_NAME &&
	       x->u.name.sym == AST_SYM_PARAM && y->u.name.sym == AST_SYM_PARAM &&
	       x->u.name.target.param == y->u.name.target.param;
}

/* Term t of leaf lf compares X' > Y': an equality's t0 = lhs > rhs, t1 =
 * rhs > lhs; an order leaf's one term as its kind says. */
static void term_sides(const struct dnf_leaf *lf, unsigned t, const struct ast_expr **x,
                       const struct ast_expr **y)
{
	bool x_is_lhs = lf->two ? t == 0 : lf->base.kind == LC_GT;
	*x = x_is_lhs ? lf->base.lhs : lf->base.rhs;
	*y = x_is_lhs ? lf->base.rhs : lf->base.lhs;
}

/* An earlier leaf of the nest with term "x > y": its terms are computed once
 * for both (`if (a > b) .. else if (a == b)` tests a > b once). */
static bool find_term(const struct dnf_pool *pool, const struct lcond *cd, const struct ast_expr *x,
                      const struct ast_expr *y, struct dnf_lit *out)
{
	for (unsigned i = 0; i < pool->n; i++) {
		const struct dnf_leaf *lf = &pool->leaf[i];
		if (lf->base.vals || lf->base.ymask || lf->base.width != cd->width)
			continue;
		for (unsigned t = 0; t < (lf->two ? 2u : 1u); t++) {
			const struct ast_expr *lx, *ly;
			term_sides(lf, t, &lx, &ly);
			if (same_value(lx, x) && same_value(ly, y)) {
				*out = (struct dnf_lit){.leaf = (uint8_t)i, .t = (uint8_t)t};
				return true;
			}
		}
	}
	return false;
}

/* The literals of comparison cd over terms already in the pool, if all are. */
static bool reuse_leaf(struct builder *b, const struct lcond *cd, struct dnf *r)
{
	if (cd->vals || cd->ymask)
		return false;
	const struct ast_expr *l = cd->lhs, *rr = cd->rhs;
	struct dnf_lit t0, t1;
	switch (cd->kind) {
	case LC_EQ:
	case LC_NE:
		if (!find_term(b->pool, cd, l, rr, &t0) || !find_term(b->pool, cd, rr, l, &t1))
			return false;
		t0.want = t1.want = cd->kind == LC_NE;
		if (cd->kind == LC_NE) {
			r->n = 2;
			r->len[0] = r->len[1] = 1;
			r->l[0][0] = t0;
			r->l[1][0] = t1;
		} else {
			r->n = 1;
			r->len[0] = 2;
			r->l[0][0] = t0;
			r->l[0][1] = t1;
		}
		return true;
	case LC_GT: /* lhs > rhs wanted */
	case LC_GE: /* rhs > lhs not wanted */
		if (!find_term(b->pool, cd, cd->kind == LC_GT ? l : rr, cd->kind == LC_GT ? rr : l,
		               &t0))
			return false;
		t0.want = cd->kind == LC_GT;
		r->n = 1;
		r->len[0] = 1;
		r->l[0][0] = t0;
		return true;
	}
	return false;
}

/* A new comparison leaf; its terms wanted as the comparison says. */
static bool leaf_dnf(struct builder *b, const struct lcond *cd, const struct lval *vals,
                     struct lorder *shared, struct dnf *r)
{
	if (!shared && !vals && reuse_leaf(b, cd, r))
		return true;
	if (b->pool->n == DNF_LEAVES) {
		lower_error(b->c, cd->loc, "more than %u comparisons in one nest of `if`s",
		            DNF_LEAVES);
		return false;
	}
	unsigned id = b->pool->n++;
	struct dnf_leaf *lf = &b->pool->leaf[id];
	memset(lf, 0, sizeof(*lf));
	lf->base = *cd;
	lf->base.and_next = lf->base.or_next = NULL;
	lf->base.chain = NULL;
	lf->base.slot = 0;
	lf->base.ord = shared ? shared : &lf->own;
	lf->two = cd->kind == LC_EQ || cd->kind == LC_NE;
	if (lf->two)
		lf->base.kind = LC_EQ;
	if (vals) {
		lf->vals[0] = vals[0];
		lf->vals[1] = vals[1];
		lf->rvals[0] = vals[1];
		lf->rvals[1] = vals[0];
		lf->base.vals = lf->vals;
	}
	struct dnf_lit t0 = {.leaf = (uint8_t)id, .t = 0}, t1 = {.leaf = (uint8_t)id, .t = 1};
	r->n = 1;
	switch (cd->kind) {
	case LC_EQ: /* neither a > b nor b > a */
		r->len[0] = 2;
		r->l[0][0] = t0;
		r->l[0][1] = t1;
		break;
	case LC_NE: /* a > b, or b > a */
		t0.want = t1.want = true;
		r->n = 2;
		r->len[0] = r->len[1] = 1;
		r->l[0][0] = t0;
		r->l[1][0] = t1;
		break;
	case LC_GT: /* t0 = lhs > rhs */
		t0.want = true;
		r->len[0] = 1;
		r->l[0][0] = t0;
		break;
	case LC_GE: /* t0 = rhs > lhs, wanted false */
		r->len[0] = 1;
		r->l[0][0] = t0;
		break;
	}
	return true;
}

/* Bytes [k, k + w) of an aggregate value. */
static bool value_part(const struct lval *v, uint32_t k, uint32_t w, struct lval *out)
{
	*out = *v;
	out->width = w;
	switch (v->kind) {
	case LV_MEM:
	case LV_SCRATCH:
	case LV_FIELD:
		out->off += k;
		return true;
	default:
		return false;
	}
}

#define WIDE_EQ_MAX 16u /* two 8-byte parts: 4 carry tests of the 5 a guard takes */

/*
 * `a == b` of aggregates of 9 to 16 bytes: the conjunction of the
 * equalities of their 8-byte parts (the carry terms compare at most 8
 * bytes); `!=` the disjunction.  Aggregates are byte strings, so each part
 * compares as a big-endian integer.
 */
static bool build_wide_eq(struct builder *b, const struct ast_expr *e, bool neg, struct dnf *r)
{
	struct lower_ctx *c = b->c;
	const struct ast_expr *l = e->u.binary.lhs, *rr = e->u.binary.rhs;
	uint32_t w = (uint32_t)l->type->size;
	if (w > WIDE_EQ_MAX) {
		lower_error(c, e->loc,
		            "`%s` compares aggregates of at most %u bytes (each 8-byte part is two "
		            "carry tests, and one guard takes five), not %u; compare at most 16 "
		            "bytes of them (the fields that tell them apart)",
		            ast_binop_spelling[e->u.binary.op], WIDE_EQ_MAX, w);
		return false;
	}
	struct lval lv, rv;
	if (!lower_value(c, l, &lv) || !lower_value(c, rr, &rv))
		return false;
	/* a RECV entry takes a parameter's bytes from its start: in parts,
	 * it is read from scratch */
	if ((lv.kind == LV_PARAM && !lower_param_in_scratch(c, &lv, &lv)) ||
	    (rv.kind == LV_PARAM && !lower_param_in_scratch(c, &rv, &rv)))
		return false;
	bool eq = (e->u.binary.op == AST_BINOP_EQ) != neg;
	struct dnf *part = calloc(1, sizeof(*part));
	if (!part) {
		c->p->oom = true;
		return false;
	}
	bool ok = true;
	if (eq)
		dnf_true(r);
	else
		r->n = 0;
	for (uint32_t k = 0; k < w && ok; k += 8) {
		uint32_t pw = w - k < 8 ? w - k : 8;
		struct lval vals[2];
		if (!value_part(&lv, k, pw, &vals[0]) || !value_part(&rv, k, pw, &vals[1])) {
			lower_error(c, e->loc,
			            "an aggregate compared here must be a parameter or in memory "
			            "(a value a loop leaves cannot be split in parts)");
			ok = false;
			break;
		}
		struct lcond cd = {
		    .lhs = l, .rhs = rr, .kind = eq ? LC_EQ : LC_NE, .width = pw, .loc = e->loc};
		ok = leaf_dnf(b, &cd, vals, NULL, part) &&
		     (eq ? dnf_and(b, r, r, part) : dnf_or(b, r, part));
	}
	free(part);
	return ok;
}

/* `==` / `!=` of operands wider than a carry term takes. */
static bool wide_eq(const struct ast_expr *e)
{
	return e->kind == AST_EXPR_BINARY &&
	       (e->u.binary.op == AST_BINOP_EQ || e->u.binary.op == AST_BINOP_NE) &&
	       e->u.binary.lhs->type && e->u.binary.lhs->type->size > 8 &&
	       !e->u.binary.lhs->is_const;
}

static bool build(struct builder *b, const struct ast_expr *e, bool neg, struct dnf *r)
{
	struct lower_ctx *c = b->c;
	if (wide_eq(e))
		return build_wide_eq(b, e, neg, r);
	if (e->is_const) {
		if ((e->value != 0) != neg)
			dnf_true(r);
		else
			r->n = 0;
		return true;
	}
	if (e->kind == AST_EXPR_UNARY && e->u.unary.op == AST_UNOP_NOT)
		return build(b, e->u.unary.operand, !neg, r);
	if (e->kind == AST_EXPR_BINARY &&
	    (e->u.binary.op == AST_BINOP_LAND || e->u.binary.op == AST_BINOP_LOR)) {
		struct dnf *y = calloc(1, sizeof(*y));
		if (!y) {
			c->p->oom = true;
			return false;
		}
		bool land = e->u.binary.op == AST_BINOP_LAND;
		bool conj = land != neg;
		bool ok = build(b, e->u.binary.lhs, neg, r);
		if (ok && has_cas(e->u.binary.rhs)) {
			/* the right operand runs only where `&&`'s left one holds
			 * (`||`'s fails): a cas in it is guarded by that */
			struct dnf *ctx = calloc(2, sizeof(*ctx));
			const struct dnf *saved = b->ctx;
			ok = ctx != NULL;
			if (!ok)
				c->p->oom = true;
			else if (land == neg) /* r is !lhs under `&&`, lhs under `||` */
				ok = dnf_not(b, &ctx[1], r);
			else
				ctx[1] = *r;
			if (ok && saved)
				ok = dnf_and(b, &ctx[0], saved, &ctx[1]);
			else if (ok)
				ctx[0] = ctx[1];
			b->ctx = &ctx[0];
			ok = ok && build(b, e->u.binary.rhs, neg, y);
			b->ctx = saved;
			free(ctx);
		} else if (ok) {
			ok = build(b, e->u.binary.rhs, neg, y);
		}
		if (ok)
			ok = conj ? dnf_and(b, r, r, y) : dnf_or(b, r, y);
		free(y);
		return ok;
	}
	struct lcond cd;
	struct lval vals[2];
	memset(&cd, 0, sizeof(cd));
	bool is_cas = e->kind == AST_EXPR_CALL && e->u.call.fn == AST_BUILTIN_CAS;
	if (is_cas) {
		/* the CAS runs where the condition reaches it (lower_cas_node
		 * guards it by the active guard) */
		struct ldnf *g = calloc(1, sizeof(*g));
		if (!g) {
			c->p->oom = true;
			return false;
		}
		if (b->ctx)
			g->d = *b->ctx;
		else
			dnf_true(&g->d);
		g->pool = b->pool;
		bool failed = c->failed;
		const struct lcond *at = to_conds(c, g, e->loc);
		bool ok = (at || c->failed == failed) && lower_guard_push(c, at, g, e->loc);
		if (ok) {
			ok = lower_cas_condition(c, e, &cd, vals);
			lower_guard_pop(c, at);
		}
		free(g);
		if (!ok)
			return false;
	} else if (!lower_cond_operands(c, e, &cd)) {
		return false;
	}
	/* a masked cas of 4/16 bytes comes with its term computed (cd.ord) */
	if (!leaf_dnf(b, &cd, is_cas && cd.vals ? vals : NULL, cd.ord, r))
		return false;
	return neg ? dnf_not(b, r, r) : true;
}

/* The enclosing condition of a legacy `if` (lower_cond.c), as a DNF. */
static bool from_legacy(struct builder *b, const struct lcond *top, struct dnf *r)
{
	r->n = 0;
	struct dnf *cl = calloc(2, sizeof(*cl));
	if (!cl) {
		b->c->p->oom = true;
		return false;
	}
	bool ok = true;
	for (const struct lcond *h = top; h && ok; h = h->or_next) {
		dnf_true(&cl[0]);
		for (const struct lcond *l = h; l && ok; l = l->and_next) {
			if (l->chain) {
				lower_error(
				    b->c, b->loc,
				    "an `if` inside an `else if` arm is not lowered (the arm's "
				    "guard tests the earlier arms' outcome)");
				ok = false;
				break;
			}
			ok = leaf_dnf(b, l, l->vals, l->ord, &cl[1]) &&
			     dnf_and(b, &cl[0], &cl[0], &cl[1]);
		}
		if (ok)
			ok = dnf_or(b, r, &cl[0]);
	}
	free(cl);
	return ok;
}

/* ---- handing it to the guards --------------------------------------------------- */

/* The lcond of term lit: "X' > Y'" as `X > Y` (wanted true) or `Y >= X`. */
static void lit_cond(const struct dnf_pool *pool, struct dnf_lit x, struct lcond *out)
{
	const struct dnf_leaf *lf = &pool->leaf[x.leaf];
	*out = lf->base;
	bool x_is_lhs = lf->two ? x.t == 0 : lf->base.kind == LC_GT;
	const struct ast_expr *xe, *ye;
	term_sides(lf, x.t, &xe, &ye);
	out->slot = x.t;
	if (x.want) {
		out->kind = LC_GT;
		out->lhs = xe;
		out->rhs = ye;
		if (lf->base.vals)
			out->vals = x_is_lhs ? lf->vals : lf->rvals;
	} else {
		out->kind = LC_GE;
		out->lhs = ye;
		out->rhs = xe;
		if (lf->base.vals)
			out->vals = x_is_lhs ? lf->rvals : lf->vals;
	}
}

/* The guards' view of d: lconds in g->conds, the first one returned
 * (NULL: always true). */
static const struct lcond *to_conds(struct lower_ctx *c, struct ldnf *g, struct src_loc loc)
{
	const struct dnf *d = &g->d;
	const struct dnf_pool *pool = g->pool;
	if (d->n == 1 && d->len[0] == 0)
		return NULL;
	/* a lone `!=` keeps its own form (one CAS under relaxed) */
	if (d->n == 2 && d->len[0] == 1 && d->len[1] == 1 && d->l[0][0].leaf == d->l[1][0].leaf &&
	    pool->leaf[d->l[0][0].leaf].two && d->l[0][0].want && d->l[1][0].want &&
	    d->l[0][0].t != d->l[1][0].t) {
		g->conds[0] = pool->leaf[d->l[0][0].leaf].base;
		g->conds[0].kind = LC_NE;
		return &g->conds[0];
	}
	if (d->n > DNF_GUARDED) {
		lower_error(c, loc,
		            "this condition is a disjunction of %u clauses; an effect is guarded "
		            "by at most %u (one exact guard each)",
		            d->n, DNF_GUARDED);
		return NULL;
	}
	/* one exact guard tests at most 5 terms (a 16-byte masked CAS on the
	 * NOP's opmod, opcode, signature and reserved bytes, lower_order.c) */
	enum { CAP = 5 };
	for (unsigned k = 0; k < d->n; k++)
		if (d->len[k] > CAP) {
			lower_error(c, loc,
			            "one way this condition holds (with the enclosing and earlier "
			            "conditions) needs %u carry tests in one guard, which takes at "
			            "most %u (the NOP's opmod, opcode, signature and reserved "
			            "control bytes)",
			            d->len[k], (unsigned)CAP);
			return NULL;
		}
	unsigned n = 0;
	struct lcond *prev_head = NULL;
	for (unsigned k = 0; k < d->n; k++) {
		struct lcond *head = NULL, *prev = NULL;
		bool used[DNF_LITS] = {false};
		for (unsigned i = 0; i < d->len[k]; i++) {
			if (used[i])
				continue;
			struct dnf_lit x = d->l[k][i];
			struct lcond *cd = &g->conds[n++];
			lit_cond(pool, x, cd);
			/* both terms of an equality wanted false: the `==` itself */
			for (unsigned j = i + 1; j < d->len[k]; j++) {
				struct dnf_lit y = d->l[k][j];
				if (y.leaf == x.leaf && !y.want && !x.want && y.t != x.t) {
					*cd = pool->leaf[x.leaf].base;
					used[j] = true;
				}
			}
			cd->and_next = NULL;
			cd->or_next = NULL;
			if (prev)
				prev->and_next = cd;
			else
				head = cd;
			prev = cd;
		}
		if (prev_head)
			prev_head->or_next = head;
		prev_head = head;
	}
	return &g->conds[0];
}

/*
 * Long `else if` chains.  Arm k runs under outer && !C1 && .. && !Ck-1 && Ck;
 * each complement multiplies the clauses (`!(a == b)` is two), so a chain
 * of three `==` and an `else` needs 8 guards per effect.  Instead, when the
 * complements would multiply past DNF_GUARDED, the chain keeps one marker
 * pair R in scratch (the shape of a carry term, lower_order.c: starts
 * "false", 00 ff ff ff ff ff ff ff): after each arm's body a WRITE guarded
 * like that body stores "true" (ff 00 ..) into R, and the rest of the chain
 * runs under outer && !R, one term, however long the chain:
 *
 *   lane: [guards] body(A)  WRITE R := ran [guarded by A]
 *         [guards] body(B)  WRITE R := ran [guarded by !R && B]  ...
 *         [guards] body(else)              [guarded by !R]
 *
 * R is re-initialised at each re-arm (scratch-init).  Each arm's read of R
 * is a leaf of its own, written by the latest WRITE (a carry read is never
 * shared across writes).
 */
struct chain_mark {
	uint32_t s; /* the pair R in scratch */
	int writer; /* the latest WRITE of R */
	int lane;
	struct dnf outer; /* the chain's enclosing condition */
};

/* Clauses of DNF(e) (neg: of !e), as lower_dnf builds them, at most 2^20. */
static unsigned est_clauses(const struct ast_expr *e, bool neg)
{
	if (e->is_const)
		return 1;
	if (e->kind == AST_EXPR_UNARY && e->u.unary.op == AST_UNOP_NOT)
		return est_clauses(e->u.unary.operand, !neg);
	if (e->kind == AST_EXPR_BINARY &&
	    (e->u.binary.op == AST_BINOP_LAND || e->u.binary.op == AST_BINOP_LOR)) {
		unsigned l = est_clauses(e->u.binary.lhs, neg);
		unsigned r = est_clauses(e->u.binary.rhs, neg);
		bool conj = (e->u.binary.op == AST_BINOP_LAND) != neg;
		uint64_t n = conj ? (uint64_t)l * r : (uint64_t)l + r;
		return n > (1u << 20) ? 1u << 20 : (unsigned)n;
	}
	bool two = e->kind == AST_EXPR_CALL ||
	           (e->kind == AST_EXPR_BINARY &&
	            (e->u.binary.op == AST_BINOP_EQ || e->u.binary.op == AST_BINOP_NE));
	bool ne = e->kind == AST_EXPR_BINARY && e->u.binary.op == AST_BINOP_NE;
	return two && (ne != neg) ? 2 : 1;
}

/* Would the complements of chain s multiply past what one effect takes? */
static bool chain_needs_mark(const struct ast_stmt *s, unsigned outer)
{
	uint64_t n = outer;
	for (const struct ast_stmt *cur = s; cur && cur->kind == AST_STMT_IF && cur->u.if_.has_else;
	     cur = cur->u.if_.else_body) {
		n *= est_clauses(cur->u.if_.cond, true);
		if (n > DNF_GUARDED)
			return true;
	}
	return false;
}

/* After an arm's body, under its guard: R := ran. */
static bool mark_ran(struct lower_ctx *c, struct chain_mark *mk, struct src_loc loc)
{
	struct ir_prog *p = c->p;
	struct ir_node *w = ir_append(p, c->lane, PRISM_OP_RDMA_WRITE, IR_ROLE_DATA);
	if (!w)
		return false;
	int id = w->id;
	w->what = "else if: an arm ran";
	w->loc = loc;
	w->raddr = ir_v(IR_V_SCRATCH_ADDR, 0, mk->s);
	w->rkey = ir_v(IR_V_SCRATCH_RKEY, 0, 0);
	w->is_inline = true;
	w->inline_len = 8;
	memset(w->inline_data, 0, 8);
	w->inline_data[0] = 0xff;
	if (!lower_guard(c, id))
		return false;
	mk->writer = id;
	mk->lane = c->lane;
	return !p->oom;
}

/* !R as read after the latest WRITE: a leaf of its own (its term done). */
static bool mark_not_ran(struct builder *b, const struct chain_mark *mk, const struct ast_stmt *s,
                         struct dnf *r)
{
	if (b->pool->n == DNF_LEAVES) {
		lower_error(b->c, s->loc, "more than %u comparisons in one nest of `if`s",
		            DNF_LEAVES);
		return false;
	}
	unsigned id = b->pool->n++;
	struct dnf_leaf *lf = &b->pool->leaf[id];
	memset(lf, 0, sizeof(*lf));
	lf->base.kind = LC_GT; /* "an arm ran" */
	lf->base.lhs = lf->base.rhs = s->u.if_.cond;
	lf->base.width = 8;
	lf->base.loc = s->u.if_.cond->loc;
	lf->base.ord = &lf->own;
	lf->own.t[0] = (struct lterm){
	    .done = true, .lane = mk->lane, .s = mk->s, .fa = mk->writer, .carry_read = -1};
	r->n = 1;
	r->len[0] = 1;
	r->l[0][0] = (struct dnf_lit){.leaf = (uint8_t)id, .t = 0, .want = false};
	return true;
}

/* Lower `block` under d (conjoined with nothing more); with mk, then
 * record that it ran. */
static bool lower_under(struct lower_ctx *c, struct ldnf *g, const struct ast_stmt *block,
                        struct src_loc loc, struct chain_mark *mk)
{
	if (g->d.n == 0) {
		lower_error(c, loc,
		            "this branch can never run (its condition contradicts the enclosing "
		            "or earlier ones): remove it");
		return false;
	}
	bool failed = c->failed;
	const struct lcond *cd = to_conds(c, g, loc);
	if (!cd && c->failed && !failed)
		return false;
	if (!lower_guard_push(c, cd, g, loc))
		return false;
	bool ok = lower_block(c, block);
	if (ok && mk)
		ok = mark_ran(c, mk, loc);
	lower_guard_pop(c, cd);
	return ok;
}

static bool if_dnf(struct lower_ctx *c, const struct ast_stmt *s, struct chain_mark *mk);

/*
 * An `if` whose condition (conjoined with the enclosing ones) goes through
 * disjunctive normal form.  Each effect X of an arm gets one exact guard per
 * clause (lower_order.c), the carry terms computed once for both arms:
 *
 *   terms:  MCAS complement ─► MFA add ─► READ carry ─► ... (per comparison)
 *   X:      NOP template ◄─ MCAS16 clause 1 ◄─ MCAS16 clause 2 ...
 */
bool lower_if_dnf(struct lower_ctx *c, const struct ast_stmt *s)
{
	return if_dnf(c, s, NULL);
}

/* An `if` (an arm of chain mk, or NULL) in disjunctive normal form. */
static bool if_dnf(struct lower_ctx *c, const struct ast_stmt *s, struct chain_mark *mk)
{
	struct chain_mark own_mk;
	struct ldnf *g = calloc(3, sizeof(*g));
	struct dnf *cond = calloc(1, sizeof(*cond));
	struct dnf_pool *own = NULL;
	struct builder b = {.c = c, .loc = s->u.if_.cond->loc};
	bool ok = g && cond;
	if (ok && lower_dnf_top(c)) {
		b.pool = lower_dnf_top(c)->pool;
		g[2].d = lower_dnf_top(c)->d;
	} else if (ok) {
		own = calloc(1, sizeof(*own));
		b.pool = own;
		ok = own != NULL;
		if (ok && lower_cond_top(c))
			ok = from_legacy(&b, lower_cond_top(c), &g[2].d);
		else if (ok)
			dnf_true(&g[2].d);
	}
	if (!ok && (!g || !cond || !own))
		c->p->oom = true;
	/* then: outer && cond; else: outer && !cond.  A cas in the condition
	 * runs only where the condition is evaluated: under the enclosing
	 * condition (which holds the earlier arms' complement in an `else if`)
	 * and the operands of `&&` / `||` before it */
	b.ctx = ok ? &g[2].d : NULL;
	if (ok)
		ok = build(&b, s->u.if_.cond, false, cond);
	if (ok && !mk && s->u.if_.has_else && chain_needs_mark(s, g[2].d.n)) {
		static const uint8_t not_ran[8] = {0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
		own_mk = (struct chain_mark){.s = ir_scratch_alloc(c->p, 8, 8), .outer = g[2].d};
		ok = ir_scratch_init(c->p, own_mk.s, not_ran, 8) >= 0;
		mk = &own_mk;
	}
	for (int arm = 0; ok && arm < 2; arm++) {
		g[arm].pool = b.pool;
		if (arm == 1 && !s->u.if_.has_else)
			break;
		struct dnf *t = cond;
		if (arm == 1) {
			t = calloc(1, sizeof(*t));
			ok = t && (mk ? mark_not_ran(&b, mk, s, t) : dnf_not(&b, t, cond));
			if (!t)
				c->p->oom = true;
		}
		if (ok)
			ok = dnf_and(&b, &g[arm].d, arm && mk ? &mk->outer : &g[2].d, t);
		if (arm == 1)
			free(t);
		if (!ok)
			break;
		const struct ast_stmt *body = arm ? s->u.if_.else_body : s->u.if_.then_body;
		struct src_loc loc = arm ? body->loc : s->u.if_.cond->loc;
		if (arm == 1 && body->kind == AST_STMT_IF) {
			/* else if: the next `if` conjoins with "outer && !cond" */
			ok = lower_guard_push(c, NULL, &g[1], loc);
			if (ok) {
				ok = if_dnf(c, body, mk);
				lower_guard_pop(c, NULL);
			}
		} else {
			/* a chain's arm followed by another records that it ran */
			bool more = arm == 0 && s->u.if_.has_else;
			ok = lower_under(c, &g[arm], body, loc, more ? mk : NULL);
		}
	}
	free(cond);
	free(g);
	free(own);
	return ok && !c->p->oom;
}

/* ---- when lower_cond.c hands an `if` over ------------------------------------------ */

static bool has_op(const struct ast_expr *e, int unop, int binop, bool below)
{
	if (!e)
		return false;
	if (e->kind == AST_EXPR_UNARY)
		return (unop >= 0 && e->u.unary.op == (enum ast_unop)unop) ||
		       has_op(e->u.unary.operand, unop, binop, true);
	if (e->kind != AST_EXPR_BINARY)
		return false;
	if (binop >= 0 && e->u.binary.op == (enum ast_binop)binop && below)
		return true;
	bool logic = e->u.binary.op == AST_BINOP_LAND || e->u.binary.op == AST_BINOP_LOR;
	bool deeper = below || e->u.binary.op == AST_BINOP_LAND;
	return logic && (has_op(e->u.binary.lhs, unop, binop, deeper) ||
	                 has_op(e->u.binary.rhs, unop, binop, deeper));
}

static bool is_order(const struct ast_expr *e)
{
	return e->kind == AST_EXPR_BINARY &&
	       (e->u.binary.op == AST_BINOP_GT || e->u.binary.op == AST_BINOP_LT ||
	        e->u.binary.op == AST_BINOP_GE || e->u.binary.op == AST_BINOP_LE);
}

/* Every clause of a top-level `||` is one order comparison. */
static bool disj_of_orders(const struct ast_expr *e)
{
	if (e->kind == AST_EXPR_BINARY && e->u.binary.op == AST_BINOP_LOR)
		return disj_of_orders(e->u.binary.lhs) && disj_of_orders(e->u.binary.rhs);
	return is_order(e);
}

/* A leaf of the `&&` / `||` tree of e is a `!=` or a cas: the forms of
 * lower_cond.c take neither inside a conjunction or disjunction. */
static bool logic_has_ne_or_cas(const struct ast_expr *e)
{
	if (e->kind == AST_EXPR_CALL || wide_eq(e))
		return true;
	if (e->kind != AST_EXPR_BINARY)
		return false;
	if (e->u.binary.op == AST_BINOP_LAND || e->u.binary.op == AST_BINOP_LOR)
		return logic_has_ne_or_cas(e->u.binary.lhs) || logic_has_ne_or_cas(e->u.binary.rhs);
	return e->u.binary.op == AST_BINOP_NE;
}

/* A statement list holds an `if` (at any depth; AST_MAX_DEPTH bounds it). */
static bool has_if(const struct ast_stmt *s)
{
	for (; s; s = s->next) {
		switch (s->kind) {
		case AST_STMT_IF:
			return true;
		case AST_STMT_WHILE:
			if (has_if(s->u.while_.body))
				return true;
			break;
		case AST_STMT_BLOCK:
			if (has_if(s->u.block.body))
				return true;
			break;
		case AST_STMT_PARALLEL:
			for (const struct ast_lane *l = s->u.parallel.lanes; l; l = l->next)
				if (has_if(l->body))
					return true;
			break;
		default:
			break;
		}
	}
	return false;
}

/* A statement list holds a cas_gt / cas_lt statement (at any depth of
 * `if`s and blocks). */
static bool has_cas_order(const struct ast_stmt *s)
{
	for (; s; s = s->next) {
		switch (s->kind) {
		case AST_STMT_EXPR: {
			const struct ast_expr *e = s->u.expr.expr;
			if (e->kind == AST_EXPR_CALL && (e->u.call.fn == AST_BUILTIN_CAS_GT ||
			                                 e->u.call.fn == AST_BUILTIN_CAS_LT))
				return true;
			break;
		}
		case AST_STMT_IF:
			if (has_cas_order(s->u.if_.then_body) || has_cas_order(s->u.if_.else_body))
				return true;
			break;
		case AST_STMT_BLOCK:
			if (has_cas_order(s->u.block.body))
				return true;
			break;
		default:
			break;
		}
	}
	return false;
}

/* The status-byte form of a relaxed `else if` chain (lower_cond.c) takes
 * plain comparisons of at most 8 bytes (an aggregate `==` is a conjunction
 * of its parts), three arms before the last one (its index bytes hold two
 * earlier arms' outcomes) and no `if` inside an arm. */
static bool status_chain(const struct ast_stmt *s)
{
	unsigned n = 0;
	const struct ast_stmt *cur = s;
	for (; cur && cur->kind == AST_STMT_IF;
	     cur = cur->u.if_.has_else ? cur->u.if_.else_body : NULL) {
		const struct ast_expr *ce = cur->u.if_.cond;
		if (++n > 3 || ce->kind != AST_EXPR_BINARY || ce->u.binary.op == AST_BINOP_LAND ||
		    ce->u.binary.op == AST_BINOP_LOR || wide_eq(ce) || has_if(cur->u.if_.then_body))
			return false;
	}
	return !cur || (n < 3 && !has_if(cur));
}

static bool in_chain(const struct lcond *cd)
{
	for (const struct lcond *h = cd; h; h = h->or_next)
		for (const struct lcond *l = h; l; l = l->and_next)
			if (l->chain)
				return true;
	return false;
}

bool lower_dnf_wanted(const struct lower_ctx *c, const struct ast_stmt *s)
{
	const struct ast_expr *e = s->u.if_.cond;
	if (lower_dnf_top(c))
		return true; /* an `if` inside one lowered here */
	if (lower_cond_top(c) && in_chain(lower_cond_top(c)))
		return false; /* lower_cond.c reports it */
	if (has_op(e, AST_UNOP_NOT, -1, false) || has_op(e, -1, AST_BINOP_LOR, false))
		return true; /* `!`, or `||` inside `&&` */
	bool lor = e->kind == AST_EXPR_BINARY && e->u.binary.op == AST_BINOP_LOR;
	bool land = e->kind == AST_EXPR_BINARY && e->u.binary.op == AST_BINOP_LAND;
	bool call = e->kind == AST_EXPR_CALL;
	if ((lor || land || lower_cond_top(c)) && logic_has_ne_or_cas(e))
		return true; /* `!=` or a cas under `&&` / `||` or an enclosing `if` */
	if (wide_eq(e))
		return true; /* aggregates: a conjunction of their 8-byte parts */
	if (lower_cond_top(c) && (lor || call || !lower_conjoinable(lower_cond_top(c))))
		return true;
	/* a cas_gt / cas_lt whose guard is a disjunction (under `!=`, in an
	 * `else` or `else if` arm): one exact guard per clause */
	if ((logic_has_ne_or_cas(e) && !call && has_cas_order(s->u.if_.then_body)) ||
	    (s->u.if_.has_else && has_cas_order(s->u.if_.else_body)))
		return true;
	if (!s->u.if_.has_else)
		return false;
	const struct ast_stmt *els = s->u.if_.else_body;
	if (els->kind == AST_STMT_IF) {
		/* relaxed top-level chains of plain comparisons keep their status
		 * bytes (lower_cond.c) */
		if (lower_cond_top(c) || c->p->profile == IR_PROFILE_STRICT)
			return true;
		return !status_chain(s);
	}
	if (lor)
		return !disj_of_orders(e);
	if (lower_cond_top(c) || land)
		return !is_order(e);
	return false;
}
