/* SPDX-License-Identifier: MIT */
/*
 * compiler/lower_order.c - conditions built from carries: the order
 * comparisons `<` `>` `<=` `>=`, and every condition in the exact form
 * (profile strict, or an equality wider than the 3 QPN bytes).
 *
 * Owns: the carry term and the guards that test it (docs/ir.md, "Order
 * comparisons" and "Conditionals under strict").  A term compares X' > Y'
 * (unsigned, 1-8 bytes) on a 16-byte scratch pair S = [00 ff*7 | ff*8]:
 *
 *   MCAS16 S  compare-mask 0, swap 0, swap-mask [0 | Y']   S = [00 ff.. | ~Y']
 *   MFA16  S  add [0 | X'], no field boundary               S = [00 ff.. + c | X' + ~Y']
 *
 * X' + ~Y' = X' - Y' - 1 + 2^64 carries out of the low limb exactly when
 * X' > Y'; the carry turns S[0] from 00 into 01 and S[1..7] from ff into
 * 00.  So "carry set" is S[k] == 0 for k in 1..7, "carry clear" is S[0] == 0.
 *
 * Relaxed form (one order term): a READ copies S[1+j] into the j-th
 * guarded WQE's ctrl byte 4 (a QPN byte), and a masked CAS on that WQE
 * compares byte 4 and swaps in opmod, opcode and the exact QPN.
 *
 * Exact form (no data in the index or QPN bytes, stock firmware): the
 * guarded WQE is an exact NOP (index and QPN relocated, opmod and opcode
 * bytes 0x00).  A READ copies the term's zero-when-true byte (S[1] for
 * "carry set", S[0] for "carry clear") into the *compare field* of a masked
 * CAS on that WQE, at the position of ctrl byte 0 (opmod) or 3 (opcode):
 * both are 0x00 in the NOP, so the CAS matches exactly when every term
 * holds, and it swaps only the opcode and opmod bytes.  Equality is two
 * terms in one CAS (a == b: neither a > b nor b > a); `!=` is two CASes,
 * each arming on one term (a > b or b > a).
 *
 * Must not: place barriers (the READ rewrites a CAS in the lane; the
 * scheduler puts the barrier before it).
 */
#include <string.h>

#include "compiler/lower.h"
#include "util/byteorder.h"

#define CARRY_CTRL_OFF    4u                    /* relaxed: the QPN byte that carries it */
#define CARRY_RT_BITS     ((uint8_t)(7u << 4))  /* ctrl bytes 4-6 are run-time */
#define RELAXED_SWAP_MASK 0x00ffffffff0000ffull /* opmod, opcode, QPN */
#define EXACT_SWAP_MASK   0x00000000ff0000ffull /* opmod, opcode */
#define CARRY_BYTES       7u                    /* S bytes 1..7 */

/* Compute term t: is X' > Y' (operands given as condition operand
 * indices xi, yi).  Constants fold or move to the complemented side. */
static bool term_compute(struct lower_ctx *c, const struct lval *vals, int xi, int yi,
                         struct lterm *t)
{
	return lower_order_term(c, vals, xi, yi, t);
}

bool lower_order_term(struct lower_ctx *c, const struct lval *vals, int xi, int yi, struct lterm *t)
{
	const struct lcond *cd = lower_cond_top(c);
	struct ir_prog *p = c->p;
	uint32_t w = cd->width;
	struct lval xv = vals[xi], yv = vals[yi];
	for (int i = 0; i < 2; i++) {
		const struct lval *v = i ? &yv : &xv;
		if (v->kind == LV_CONST && w < 8 && (v->k >> (8 * w)) != 0) {
			lower_error(c, cd->loc,
			            "the constant %llu does not fit the %u-byte operand",
			            (unsigned long long)v->k, w);
			return false;
		}
	}
	memset(t, 0, sizeof(*t));
	t->carry_read = -1;
	t->fa = -1;
	t->done = true;
	t->lane = c->lane;
	t->taint = xv.taint | yv.taint;
	if (xv.kind == LV_CONST && (yv.kind == LV_CONST || xv.k == 0)) {
		/* 0 > v is false; k > k' is known */
		t->constant = true;
		t->kval = yv.kind == LV_CONST ? xv.k > yv.k : false;
		return true;
	}
	/* a constant X' moves to the complemented side, where it costs no
	 * atomic: k > v  <=>  not (v > k - 1) */
	if (xv.kind == LV_CONST && !cd->ymask) {
		struct lval k = xv;
		k.k = xv.k - 1;
		xv = yv;
		yv = k;
		t->flip = true;
	}
	/* the pair: 16 bytes for operands of up to 8, 32 (a 16-byte low half,
	 * 32-byte masked atomics) for up to 16 */
	uint32_t ps = w > 8 ? 32 : 16;
	uint8_t pop = (uint8_t)PRISM_MASKED_OPMOD(ps == 32 ? 5 : 4);
	uint32_t s = ir_scratch_alloc(p, ps, ps);
	uint8_t init[32];
	memset(init, 0xff, ps);
	init[0] = 0;
	if (yv.kind == LV_CONST)
		put_be64(init + ps - 8, ~(cd->ymask ? yv.k & cd->ymask : yv.k));
	if (ir_scratch_init(p, s, init, ps) < 0)
		return false;
	t->s = s;
	struct ir_val sa = ir_v(IR_V_SCRATCH_ADDR, 0, s), sk = ir_v(IR_V_SCRATCH_RKEY, 0, 0);
	int prev = -1;
	if (yv.kind != LV_CONST) {
		struct ir_node *n = lower_guard_node(c, PRISM_OP_ATOMIC_MASKED_CS, (uint8_t)ps, sa,
		                                     sk, "compare: complement", ps);
		if (!n)
			return false;
		int id = n->id;
		n->opmod = pop;
		/* swap 1s outside the mask: those bits stay 1 whatever Y' is,
		 * so S = ~(Y' & ymask) */
		if (cd->ymask)
			put_be64(n->swap_bytes + ps - 8, ~cd->ymask);
		uint32_t smask = lower_field_off(PRISM_OP_ATOMIC_MASKED_CS, PRISM_FIELD_ATOMIC_SWAP,
		                                 (uint8_t)ps) +
		                 2 * ps;
		if (!lower_deliver_for(c, &yv, id, smask + ps - w, !yv.be, id))
			return false;
		prev = id;
	}
	struct ir_node *fa =
	    lower_guard_node(c, PRISM_OP_ATOMIC_MASKED_FA, (uint8_t)ps, sa, sk, "compare: add", ps);
	if (!fa)
		return false;
	int fid = fa->id;
	fa->opmod = pop;
	if (xv.kind == LV_CONST) {
		put_be(fa->swap_bytes + ps - w, w, xv.k);
	} else {
		uint32_t add = lower_field_off(PRISM_OP_ATOMIC_MASKED_FA, PRISM_FIELD_ATOMIC_SWAP,
		                               (uint8_t)ps);
		if (!lower_deliver_for(c, &xv, fid, add + ps - w, !xv.be, fid))
			return false;
	}
	if (prev >= 0)
		ir_add_dep(p, prev, fid);
	t->fa = fid;
	return !p->oom;
}

/* Term i of the active condition, computed once per `if` and lane. */
static struct lterm *term(struct lower_ctx *c, const struct lval *vals, unsigned i,
                          struct lterm *local)
{
	const struct lcond *cd = lower_cond_top(c);
	struct lterm *t = cd->ord ? &cd->ord->t[i + cd->slot] : local;
	if (t->done && t->lane == c->lane)
		return t;
	/* order: t[0] = X' > Y' with (X', Y') = GT ? (lhs, rhs) : (rhs, lhs);
	 * equality: t[0] = lhs > rhs, t[1] = rhs > lhs */
	int xi, yi;
	if (cd->kind == LC_GT || cd->kind == LC_GE) {
		xi = cd->kind == LC_GT ? 0 : 1;
		yi = 1 - xi;
	} else {
		xi = (int)i;
		yi = 1 - (int)i;
	}
	return term_compute(c, vals, xi, yi, t) ? t : NULL;
}

/* A READ of one byte of S (appended, after the add completed). */
static int read_s(struct lower_ctx *c, const struct lterm *t, uint32_t byte)
{
	struct ir_node *rd = ir_append(c->p, c->lane, PRISM_OP_RDMA_READ, IR_ROLE_GUARD);
	if (!rd)
		return -1;
	int id = rd->id;
	rd->what = "compare: carry";
	rd->loc = lower_cond_top(c)->loc;
	rd->raddr = ir_v(IR_V_SCRATCH_ADDR, 0, t->s + byte);
	rd->rkey = ir_v(IR_V_SCRATCH_RKEY, 0, 0);
	ir_add_dep(c->p, t->fa, id);
	return id;
}

/* An else-if arm: earlier arms' opcode bytes into X's index bytes 1-2
 * (READs before the guard); *mask: the compare-mask bits that test them
 * for 0 (no earlier arm ran). */
static bool chain_reads(struct lower_ctx *c, int x, int *excl, uint64_t *mask)
{
	const struct lchain *ch = lower_cond_top(c)->chain;
	unsigned n = ch ? ch->n_prev : 0;
	*mask = 0;
	for (unsigned k = 0; k < n; k++) {
		excl[k] = lower_status_read(c, &ch->prev[k], x, 1 + k);
		if (excl[k] < 0)
			return false;
		*mask |= 0xffull << (8 * (1 + k));
	}
	return true;
}

static void chain_deps(struct lower_ctx *c, const int *excl, int guard)
{
	const struct lchain *ch = lower_cond_top(c)->chain;
	for (unsigned k = 0; ch && k < ch->n_prev; k++)
		ir_add_dep(c->p, excl[k], guard);
}

static void make_nop(struct ir_prog *p, int x, bool relaxed)
{
	struct ir_node *xn = ir_node(p, x);
	xn->tmpl_op = PRISM_OP_NOP;
	xn->role = xn->role == IR_ROLE_RESPONSE ? IR_ROLE_RESPONSE : IR_ROLE_EFFECT;
	if (relaxed)
		xn->ctrl_rt_bytes |= CARRY_RT_BITS;
}

/* Relaxed form: one order term, the carry byte in X's ctrl byte 4. */
static bool guard_relaxed(struct lower_ctx *c, int x, struct lterm *t, bool want_gt)
{
	struct ir_prog *p = c->p;
	int rid = t->carry_read;
	if (rid < 0 || p->nodes[rid].nsge >= CARRY_BYTES) {
		int nid = read_s(c, t, 1);
		if (nid < 0)
			return false;
		if (rid >= 0)
			ir_add_dep(p, rid, nid);
		rid = t->carry_read = nid;
	}
	if (ir_scatter_into(p, rid, x, CARRY_CTRL_OFF, 1, t->taint) < 0)
		return false;
	uint8_t xop = p->nodes[x].op;
	make_nop(p, x, true);
	int excl[2];
	uint64_t xmask = 0;
	if (!chain_reads(c, x, excl, &xmask))
		return false;
	struct ir_node *g =
	    lower_guard_node(c, PRISM_OP_ATOMIC_MASKED_CS, 8, ir_v(IR_V_NODE_ADDR, x, 0),
	                     ir_v(IR_V_QBUF_RKEY, p->nodes[x].queue, 0), "if: guard (carry)", 8);
	if (!g)
		return false;
	int gid = g->id;
	/* carry byte 0x00 = X' > Y'; 0xff = not */
	bool want_carry = want_gt != t->flip;
	g->compare = IR_CONST(want_carry ? 0 : 0xffull << 32);
	g->compare_mask = IR_CONST(0xffull << 32 | xmask);
	chain_deps(c, excl, gid);
	g->swap = ir_v(IR_V_CTRL_WORD, x, xop);
	g->swap_mask = IR_CONST(RELAXED_SWAP_MASK | (xmask ? 0xffff00ull : 0));
	lower_record_status(c, x, gid);
	if (!lower_cas_patch(p, gid, x, 0, 8, true, t->taint))
		return false;
	ir_add_dep(p, rid, gid);
	return !p->oom;
}

/*
 * Exact form: one masked CAS arming the NOP X when every term in `ts`
 * has its wanted value.  Term k's zero-when-true byte lands in the CAS's
 * compare field at ctrl byte 0 (k = 0) or 3 (k = 1).
 */
/*
 * More terms than the 8-byte guard takes (2 under strict, 4 under relaxed):
 * one 16-byte masked CAS on X's whole control segment.  16-byte atomics
 * are big-endian in memory, so compare-field byte j meets ctrl byte j; the
 * zero-when-wanted bytes go to the NOP's opmod and opcode bytes (0, 3) and
 * to its signature and reserved bytes (8, 9, 10), which every template
 * holds at 0 and nothing ever writes.  It swaps opmod and opcode only:
 * index and QPN are never touched, so this is exact under strict too.
 */
#define WIDE_TESTS 5u
static bool arm_exact16(struct lower_ctx *c, int x, uint8_t xop, const int *rids, struct lterm **ts,
                        unsigned n)
{
	struct ir_prog *p = c->p;
	static const unsigned ctrl_byte[WIDE_TESTS] = {0, 3, 8, 9, 10};
	if (lower_cond_top(c)->chain) {
		lower_error(c, lower_cond_top(c)->loc,
		            "an `else if` arm tests at most 4 carry terms (its earlier arms' "
		            "outcomes ride in the index bytes)");
		return false;
	}
	struct ir_node *g = lower_guard_node(
	    c, PRISM_OP_ATOMIC_MASKED_CS, 16, ir_v(IR_V_NODE_ADDR, x, 0),
	    ir_v(IR_V_QBUF_RKEY, p->nodes[x].queue, 0), "if: guard (exact, wide)", 16);
	if (!g)
		return false;
	int gid = g->id;
	uint64_t taint = 0;
	uint32_t cmp = lower_field_off(PRISM_OP_ATOMIC_MASKED_CS, PRISM_FIELD_ATOMIC_COMPARE, 16);
	for (unsigned k = 0; k < n; k++) {
		if (ir_scatter_into(p, rids[k], gid, cmp + ctrl_byte[k], 1, ts[k]->taint) < 0)
			return false;
		taint |= ts[k]->taint;
	}
	g = &p->nodes[gid];
	for (unsigned k = 0; k < n; k++)
		g->compare_mask_bytes[ctrl_byte[k]] = 0xff;
	g->swap_bytes[0] = p->nodes[x].opmod;
	g->swap_bytes[3] = xop;
	g->swap_mask_bytes[0] = 0xff;
	g->swap_mask_bytes[3] = 0xff;
	lower_record_status(c, x, gid);
	return lower_cas_patch(p, gid, x, 0, 16, true, taint) && !p->oom;
}

static bool arm_exact(struct lower_ctx *c, int x, uint8_t xop, struct lterm **ts,
                      const bool *want_gt, unsigned n)
{
	struct ir_prog *p = c->p;
	unsigned narrow = p->profile == IR_PROFILE_STRICT ? 2 : 4;
	/* the READs first: each rewrites the CAS that follows them */
	int rids[WIDE_TESTS];
	for (unsigned k = 0; k < n; k++) {
		bool want_carry = want_gt[k] != ts[k]->flip;
		rids[k] = read_s(c, ts[k], want_carry ? 1 : 0);
		if (rids[k] < 0)
			return false;
	}
	if (n > narrow)
		return arm_exact16(c, x, xop, rids, ts, n);
	int excl[2];
	uint64_t xmask = 0;
	if (!chain_reads(c, x, excl, &xmask))
		return false;
	struct ir_node *g =
	    lower_guard_node(c, PRISM_OP_ATOMIC_MASKED_CS, 8, ir_v(IR_V_NODE_ADDR, x, 0),
	                     ir_v(IR_V_QBUF_RKEY, p->nodes[x].queue, 0), "if: guard (exact)", 8);
	if (!g)
		return false;
	int gid = g->id;
	chain_deps(c, excl, gid);
	/* NOP bytes that are 0x00: opmod, opcode; under relaxed (no chain)
	 * also the index bytes, which the template then holds at 0 */
	static const unsigned ctrl_byte[4] = {0, 3, 1, 2};
	if (n > 2)
		p->nodes[x].ctrl_rt_bytes |= 0x06; /* restored by the swap below */
	uint64_t cmask = xmask, taint = 0;
	uint32_t cmp = lower_field_off(PRISM_OP_ATOMIC_MASKED_CS, PRISM_FIELD_ATOMIC_COMPARE, 8);
	for (unsigned k = 0; k < n; k++) {
		/* the field is be64 of the host-endian ctrl word: ctrl byte b
		 * sits at field byte 7 - b */
		if (ir_scatter_into(p, rids[k], gid, cmp + 7 - ctrl_byte[k], 1, ts[k]->taint) < 0)
			return false;
		cmask |= 0xffull << (8 * ctrl_byte[k]);
		taint |= ts[k]->taint;
	}
	g = &p->nodes[gid];
	g->compare = ir_v(IR_V_RUNTIME, 0, 0);
	g->compare_mask = IR_CONST(cmask);
	g->swap = ir_v(IR_V_CTRL_WORD, x, xop);
	/* relaxed chains: also restore the index bytes the status READs wrote */
	g->swap_mask = IR_CONST(EXACT_SWAP_MASK | (xmask || n > 2 ? 0xffff00ull : 0));
	lower_record_status(c, x, gid);
	return lower_cas_patch(p, gid, x, 0, 8, true, taint) && !p->oom;
}

/* Outcome of folding one clause's terms. */
enum clause_fold {
	CLAUSE_LIVE,   /* live terms to test */
	CLAUSE_ALWAYS, /* holds whatever the values */
	CLAUSE_NEVER,  /* can never hold */
	CLAUSE_ERROR,
};

/* The terms of the active condition (lower_cond_top(c), one clause) with what each
 * must be; constant terms folded.  *any: the clause is a disjunction (`!=`). */
static enum clause_fold clause_terms(struct lower_ctx *c, struct lterm *local, struct lterm **live,
                                     bool *lwant, unsigned *nl, bool *any)
{
	const struct lcond *cd = lower_cond_top(c);
	bool equality = cd->kind == LC_EQ || cd->kind == LC_NE;
	unsigned nt = equality ? 2 : 1;
	struct lterm *ts[2] = {NULL, NULL};
	/* both operands before any delivery: a value needed by both terms
	 * then shares its READ (the second use copies or re-reads right after
	 * it), so one barrier can cover both terms' atomics */
	struct lval vals[2];
	bool need = !cd->ord;
	for (unsigned i = 0; i < nt && !need; i++)
		need = !cd->ord->t[i + cd->slot].done || cd->ord->t[i + cd->slot].lane != c->lane;
	if (need && (!lower_cond_value(c, 0, &vals[0]) || !lower_cond_value(c, 1, &vals[1])))
		return CLAUSE_ERROR;
	for (unsigned i = 0; i < nt; i++) {
		ts[i] = term(c, vals, i, &local[i]);
		if (!ts[i])
			return CLAUSE_ERROR;
	}
	/* what each term must be: order GT: X' > Y'; GE: not (Y'' > X'');
	 * EQ: neither; NE: either */
	bool want[2] = {cd->kind == LC_GT || cd->kind == LC_NE, cd->kind == LC_NE};
	*any = cd->kind == LC_NE;
	*nl = 0;
	for (unsigned i = 0; i < nt; i++) {
		if (!ts[i]->constant) {
			live[*nl] = ts[i];
			lwant[(*nl)++] = want[i];
			continue;
		}
		bool holds = ts[i]->kval == want[i];
		if (*any && holds)
			return CLAUSE_ALWAYS;
		if (!*any && !holds)
			return CLAUSE_NEVER;
	}
	if (*nl == 0)
		return *any ? CLAUSE_NEVER : CLAUSE_ALWAYS;
	return CLAUSE_LIVE;
}

/* The live terms of the conjunction starting at `first` (clauses linked by
 * and_next), folded.  Reports an error for a disjunction inside it. */
static enum clause_fold conj_terms(struct lower_ctx *c, const struct lcond *first,
                                   struct lterm *local, struct lterm **live, bool *lwant,
                                   unsigned *nl)
{
	enum clause_fold res = CLAUSE_LIVE;
	*nl = 0;
	for (const struct lcond *cl = first; cl && res != CLAUSE_ERROR; cl = cl->and_next) {
		if (*nl + 2 > 8) {
			lower_error(c, cl->loc, "a conjunction of more than 8 carry tests");
			res = CLAUSE_ERROR;
			break;
		}
		if (!lower_guard_push(c, cl, lower_dnf_top(c), cl->loc)) {
			res = CLAUSE_ERROR;
			break;
		}
		unsigned n = 0;
		bool any = false;
		enum clause_fold f =
		    clause_terms(c, &local[*nl], &live[*nl], &lwant[*nl], &n, &any);
		lower_guard_pop(c, cl);
		if (f == CLAUSE_ERROR) {
			res = CLAUSE_ERROR;
		} else if (f == CLAUSE_NEVER) {
			res = CLAUSE_NEVER;
		} else if (f == CLAUSE_LIVE) {
			if (any && n > 1) {
				lower_error(c, cl->loc,
				            "`!=` inside a conjunction is not lowered (it is a "
				            "disjunction of two carry terms)");
				res = CLAUSE_ERROR;
			}
			*nl += n;
		}
	}
	if (res == CLAUSE_LIVE && *nl == 0)
		res = CLAUSE_ALWAYS;
	return res;
}

static unsigned guard_capacity(const struct ir_prog *p)
{
	(void)p;
	return WIDE_TESTS; /* the 16-byte guard (arm_exact16) */
}

static bool too_many_tests(struct lower_ctx *c, const struct lcond *cd, unsigned nl)
{
	unsigned cap = guard_capacity(c->p);
	if (nl <= cap)
		return false;
	lower_error(c, cd->loc,
	            "this conjunction needs %u carry tests; one guard takes at most %u (the NOP's "
	            "opmod, opcode, signature and reserved control bytes)",
	            nl, cap);
	return true;
}

static bool never_true(struct lower_ctx *c, const struct lcond *cd)
{
	lower_error(c, cd->loc,
	            "this condition is never true for unsigned integers (nothing is below 0): "
	            "remove the branch");
	return false;
}

/* A conjunction (`&&`, an `if` inside an `if`): every clause's terms in
 * one exact guard. */
static bool guard_conj(struct lower_ctx *c, int x)
{
	const struct lcond *top = lower_cond_top(c);
	struct ir_prog *p = c->p;
	uint8_t xop = p->nodes[x].op;
	struct lterm local[8];
	struct lterm *live[8];
	bool lwant[8];
	unsigned nl = 0;
	memset(local, 0, sizeof(local));
	switch (conj_terms(c, top, local, live, lwant, &nl)) {
	case CLAUSE_ERROR:
		return false;
	case CLAUSE_NEVER:
		return never_true(c, top);
	case CLAUSE_ALWAYS:
		return lower_guard_always(c, x);
	case CLAUSE_LIVE:
		break;
	}
	if (too_many_tests(c, top, nl))
		return false;
	make_nop(p, x, false);
	return arm_exact(c, x, xop, live, lwant, nl);
}

/* A disjunction (`||` of comparisons or conjunctions): one exact guard per
 * clause, each able to arm X (a later one finds X armed and fails). */
static bool guard_disj(struct lower_ctx *c, int x)
{
	const struct lcond *top = lower_cond_top(c);
	struct ir_prog *p = c->p;
	uint8_t xop = p->nodes[x].op;
	static struct lterm local[4][8];
	struct lterm *live[4][8];
	bool lwant[4][8];
	unsigned nl[4], na = 0;
	bool always = false;
	memset(local, 0, sizeof(local));
	for (const struct lcond *cl = top; cl; cl = cl->or_next) {
		if (na == 4) {
			lower_error(c, cl->loc,
			            "a disjunction of more than 4 clauses is not lowered");
			return false;
		}
		switch (conj_terms(c, cl, local[na], live[na], lwant[na], &nl[na])) {
		case CLAUSE_ERROR:
			return false;
		case CLAUSE_NEVER:
			continue;
		case CLAUSE_ALWAYS:
			always = true;
			continue;
		case CLAUSE_LIVE:
			break;
		}
		if (too_many_tests(c, cl, nl[na]))
			return false;
		na++;
	}
	if (always)
		return true; /* X stays as posted */
	if (na == 0)
		return never_true(c, top);
	make_nop(p, x, false);
	for (unsigned k = 0; k < na; k++)
		if (!arm_exact(c, x, xop, live[k], lwant[k], nl[k]))
			return false;
	return true;
}

bool lower_guard_order(struct lower_ctx *c, int x)
{
	const struct lcond *cd = lower_cond_top(c);
	struct ir_prog *p = c->p;
	if (cd->or_next)
		return guard_disj(c, x);
	if (cd->and_next)
		return guard_conj(c, x);
	bool exact = p->profile == IR_PROFILE_STRICT || cd->kind == LC_EQ || cd->kind == LC_NE;
	uint8_t xop = p->nodes[x].op;
	struct lterm local[2];
	memset(local, 0, sizeof(local));
	struct lterm *live[2];
	bool lwant[2];
	unsigned nl = 0;
	bool any = false;
	switch (clause_terms(c, local, live, lwant, &nl, &any)) {
	case CLAUSE_ERROR:
		return false;
	case CLAUSE_ALWAYS:
		return lower_guard_always(c, x); /* X stays as posted */
	case CLAUSE_NEVER:
		lower_error(c, cd->loc,
		            "this condition is never true for unsigned integers (nothing is below "
		            "0): remove the branch");
		return false;
	case CLAUSE_LIVE:
		break;
	}
	if (!exact)
		return guard_relaxed(c, x, live[0], lwant[0]);
	make_nop(p, x, false);
	if (any) {
		for (unsigned k = 0; k < nl; k++)
			if (!arm_exact(c, x, xop, &live[k], &lwant[k], 1))
				return false;
		return true;
	}
	return arm_exact(c, x, xop, live, lwant, nl);
}
