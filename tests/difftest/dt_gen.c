/* SPDX-License-Identifier: MIT */
/*
 * tests/difftest/dt_gen.c - random well-typed programs (dt_gen.h).
 *
 * A program is a tree of statements (text leaves, if, while, parallel) and
 * conditions (comparison / cas leaves under && || !), built from the fixed
 * prelude's names so that every leaf type-checks.  Lanes never race: lane 0
 * touches region m through p, q and the walk pointer t, lane 1 region w
 * through r.  Returns stand only in tail positions (nothing runs after
 * them on any path) unless RET_EARLY is allowed, and one program returns
 * one field shape unless RET_MIXED is.
 *
 * Must not: run anything (dt_run.c does).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain/chainobj.h"
#include "tests/difftest/dt_gen.h"

const struct dt_construct_info dt_constructs[DT_NCONSTRUCTS] = {
#define DT_X_INFO(id, name, known) [DT_##id] = {#id, name, known},
    DT_CONSTRUCTS(DT_X_INFO)
#undef DT_X_INFO
};

#define BIT(c) ((dt_mask)1 << (c))

dt_mask dt_default_mask(void)
{
	dt_mask m = 0;

	for (int c = 0; c < DT_NCONSTRUCTS; c++)
		if (!dt_constructs[c].known)
			m |= BIT(c);
	return m;
}

bool dt_parse_construct(const char *s, dt_mask *bits)
{
	*bits = 0;
	for (int c = 0; c < DT_NCONSTRUCTS; c++)
		if (!strcmp(s, dt_constructs[c].id) ||
		    (dt_constructs[c].known && !strcmp(s, dt_constructs[c].known)))
			*bits |= BIT(c);
	return *bits != 0;
}

/* ---- the fixed prelude ------------------------------------------------- */

#define REC_SIZE 96
#define M_RECS   8
#define W_RECS   4
#define FL_SLOTS 8

static const char prelude[] =
    "struct rec {\n"
    "\tk: be64; j: be64; a: le64; b: be32; c: le32; d: be16; e: le16; f: u8; g: be24;\n"
    "\th: be48; i: le48; nx: *rec in m; lx: le64 *rec in m; v: u8[16]; n: be16;\n"
    "\tvp: *u8[16] in m; pad: u8[2];\n"
    "}\n"
    "region m: rec[8] writable;\n"
    "region w: rec[4] writable;\n"
    "freelist fl: rec in m;\n"
    "offload f(pk: be64, pa: le64, pb: be32, pc: le32, pd: be16, pe: le16, pf: u8, pg: be24,\n"
    "          ph: be48, pi: le48, p: *rec in m, q: *rec in m, r: *rec in w)";

/* The scalar fields of struct rec, each with the parameter of its type and
 * the parameter of the same width in the other byte order (NULL: none). */
static const struct field {
	const char *name;
	unsigned off, width;
	bool le;
	const char *param, *cross;
} fields[] = {
    {"k", 0, 8, false, "pk", "pa"},  {"j", 8, 8, false, "pk", "pa"},
    {"a", 16, 8, true, "pa", "pk"},  {"b", 24, 4, false, "pb", "pc"},
    {"c", 28, 4, true, "pc", "pb"},  {"d", 32, 2, false, "pd", "pe"},
    {"e", 34, 2, true, "pe", "pd"},  {"f", 36, 1, false, "pf", NULL},
    {"g", 37, 3, false, "pg", NULL}, {"h", 40, 6, false, "ph", "pi"},
    {"i", 46, 6, true, "pi", "ph"},  {"n", 84, 2, false, "pd", "pe"},
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))
#define OFF_NX  52
#define OFF_LX  60
#define OFF_V   68
#define OFF_VP  86

static const struct param {
	const char *name;
	unsigned width;
	bool le;
} params[] = {
    {"pk", 8, false}, {"pa", 8, true},  {"pb", 4, false}, {"pc", 4, true},  {"pd", 2, false},
    {"pe", 2, true},  {"pf", 1, false}, {"pg", 3, false}, {"ph", 6, false}, {"pi", 6, true},
};
#define NPARAMS (sizeof(params) / sizeof(params[0]))

/* ---- the program tree ---------------------------------------------------- */

struct gx {
	char op; /* 0: leaf; '&', '|', '!' */
	const char *leaf;
	struct gx *l, *r;
};

enum gs_kind { GS_TEXT, GS_IF, GS_WHILE, GS_PAR };

struct gs {
	enum gs_kind kind;
	const char *text; /* TEXT: the statement; WHILE: "bound N [recycle]" */
	struct gx *cond;
	struct gs *a, *b; /* IF: then, else (else_if: b is one IF); WHILE: body */
	struct gs *lanes[2];
	bool else_if;
	struct gs *next;
};

struct blk {
	struct blk *next;
	max_align_t data[];
};

#define MAX_SETS 64

struct dt_prog {
	struct blk *pool;
	bool oom;
	struct gs *body;
	const char *ret; /* " -> be64", " -> u8[16]" or "" */
	dt_mask used;
	const char *sets[MAX_SETS];
	size_t nsets;
	struct dt_arg args[NPARAMS + 3];
	size_t nargs;
};

static void *palloc(struct dt_prog *p, size_t n)
{
	struct blk *b = calloc(1, sizeof(*b) + n);

	if (!b) {
		p->oom = true;
		return NULL;
	}
	b->next = p->pool;
	p->pool = b;
	return b->data;
}

static const char *pfmt(struct dt_prog *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static const char *pfmt(struct dt_prog *p, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *s;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = palloc(p, (size_t)n + 1);
	if (!s)
		return "";
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

void dt_prog_free(struct dt_prog *p)
{
	if (!p)
		return;
	for (struct blk *b = p->pool, *n; b; b = n) {
		n = b->next;
		free(b);
	}
	free(p);
}

/* ---- generation ------------------------------------------------------------ */

enum ret_shape { RS_NONE, RS_VOID, RS_K, RS_V, RS_VSLICE, RS_VPSLICE, RS_VPDEREF };

struct g {
	struct dt_prog *p;
	uint64_t s;
	dt_mask allow;
	int lane;           /* -1: not in a lane; 0 or 1 */
	bool have_t;        /* `let t = ...;` opens the body */
	bool recycle;       /* the program's one loop is recycled */
	bool walked;        /* a walk has moved t */
	bool atomic_in_arm; /* an atomic was generated inside an if arm */
	unsigned loops, locals, params_used;
	enum ret_shape ret;
	int depth;
};

static uint64_t rnd(struct g *g)
{
	g->s ^= g->s >> 12;
	g->s ^= g->s << 25;
	g->s ^= g->s >> 27;
	return g->s * 0x2545f4914f6cdd1dull;
}

static unsigned below(struct g *g, unsigned n)
{
	return (unsigned)(rnd(g) % n);
}

static bool chance(struct g *g, unsigned percent)
{
	return below(g, 100) < percent;
}

/* Use construct @c if allowed (and record it). */
static bool want(struct g *g, enum dt_construct c, unsigned percent)
{
	if (!(g->allow & BIT(c)) || !chance(g, percent))
		return false;
	g->p->used |= BIT(c);
	return true;
}

static void use(struct g *g, enum dt_construct c)
{
	g->p->used |= BIT(c);
}

static struct gs *node(struct g *g, enum gs_kind k, const char *text)
{
	struct gs *s = palloc(g->p, sizeof(*s));

	if (s) {
		s->kind = k;
		s->text = text;
	}
	return s;
}

static struct gx *xleaf(struct g *g, const char *leaf)
{
	struct gx *x = palloc(g->p, sizeof(*x));

	if (x)
		x->leaf = leaf;
	return x;
}

static struct gx *xop(struct g *g, char op, struct gx *l, struct gx *r)
{
	struct gx *x = palloc(g->p, sizeof(*x));

	if (x) {
		x->op = op;
		x->l = l;
		x->r = r;
	}
	return x;
}

/* A pointer to access in the current lane. */
static const char *ptr(struct g *g)
{
	if (g->lane == 1)
		return "r";
	unsigned n = g->have_t ? 3 : 2;

	if (g->lane < 0)
		n++; /* r too */
	switch (below(g, n)) {
	case 0:
		return "p";
	case 1:
		return "q";
	case 2:
		return g->have_t ? "t" : "r";
	default:
		return "r";
	}
}

/* A pointer to store through: after a walk, t only with WALK_THEN_STORE. */
static const char *store_ptr(struct g *g)
{
	for (;;) {
		const char *P = ptr(g);

		if (strcmp(P, "t") || !g->walked)
			return P;
		if (want(g, DT_WALK_THEN_STORE, 100))
			return P;
	}
}

static const struct field *any_field(struct g *g)
{
	return &fields[below(g, NFIELDS)];
}

static uint64_t small_or_max(struct g *g, unsigned width)
{
	static const uint64_t small[] = {0, 1, 2, 3, 5, 7, 100};
	uint64_t max = width >= 8 ? ~0ull : (1ull << (8 * width)) - 1;

	switch (below(g, 4)) {
	case 0:
		return max;
	case 1:
		return rnd(g) & max;
	default:
		return small[below(g, 7)] & max;
	}
}

static const char *leaf_cmp(struct g *g)
{
	static const char *const ops[] = {"==", "!=", "<", ">", "<=", ">="};
	const struct field *f = any_field(g);
	const char *op = ops[below(g, 6)];
	const char *P = ptr(g);

	use(g, DT_COND_CMP);
	switch (below(g, 3)) {
	case 0:
		return pfmt(g->p, "%s.%s %s %llu", P, f->name, op,
		            (unsigned long long)small_or_max(g, f->width));
	case 1: {
		const char *Q = ptr(g);

		return pfmt(g->p, "%s.%s %s %s.%s", P, f->name, op, Q, f->name);
	}
	default:
		g->params_used++;
		return pfmt(g->p, "%s.%s %s %s", P, f->name, op, f->param);
	}
}

static const char *leaf_cas(struct g *g)
{
	const char *P = ptr(g);

	bool param = chance(g, 40);
	const char *f = chance(g, 50) ? "a" : "k";
	char expect[24];

	if (param)
		g->params_used++;
	snprintf(expect, sizeof(expect), "%llu", (unsigned long long)small_or_max(g, 8));
	return pfmt(g->p, "cas(%s.%s, %s, %llu)", P, f, param ? (*f == 'a' ? "pa" : "pk") : expect,
	            (unsigned long long)small_or_max(g, 8));
}

/* A condition; @cas_first: a cas may be its first operand evaluated. */
static struct gx *gen_cond(struct g *g, int depth, bool cas_first)
{
	if (depth > 0 && chance(g, 45)) {
		unsigned k = below(g, 3);

		if (k == 0 && want(g, DT_COND_NOT, 100))
			return xop(g, '!', gen_cond(g, depth - 1, cas_first), NULL);
		if (k != 0) {
			enum dt_construct c = k == 1 ? DT_COND_AND : DT_COND_OR;

			if (want(g, c, 100)) {
				struct gx *l = gen_cond(g, depth - 1, cas_first);
				/* the right operand runs only when the left leaves the
				 * outcome open */
				struct gx *r =
				    gen_cond(g, depth - 1, (g->allow & BIT(DT_CAS_ELSE)) != 0);

				return xop(g, k == 1 ? '&' : '|', l, r);
			}
		}
	}
	if (want(g, DT_COND_AGG, 3))
		return xleaf(g, pfmt(g->p, "%s.v == %s.v", ptr(g), ptr(g)));
	if (want(g, DT_COND_CAS, cas_first ? 15 : 0)) {
		if (!cas_first || g->lane == 1)
			use(g, DT_CAS_ELSE);
		return xleaf(g, leaf_cas(g));
	}
	return xleaf(g, leaf_cmp(g));
}

static struct gs *append(struct gs *list, struct gs *s)
{
	if (!s)
		return list;
	if (!list)
		return s;
	struct gs *l = list;

	while (l->next)
		l = l->next;
	l->next = s;
	return list;
}

static struct gs *text(struct g *g, const char *t)
{
	return node(g, GS_TEXT, t);
}

/* One statement with an effect (or a few that belong together). */
static struct gs *gen_effect(struct g *g)
{
	const char *P = store_ptr(g);
	const struct field *f = any_field(g);

	switch (below(g, 10)) {
	case 0:
		if (want(g, DT_ATOMIC_FA, 100)) {
			g->atomic_in_arm |= g->depth > 0;
			if (chance(g, 50)) {
				g->params_used++;
				return text(g, pfmt(g->p, "fetch_add(%s.a, pa);", P));
			}
			return text(g, pfmt(g->p, "fetch_add(%s.a, %u);", P, 1 + below(g, 3)));
		}
		break;
	case 1:
		if (want(g, DT_ATOMIC_FA_OLD, 20)) {
			g->atomic_in_arm |= g->depth > 0;
			unsigned n = ++g->locals;
			struct gs *s = text(g, pfmt(g->p, "let o%u = fetch_add(%s.a, 1);", n, P));

			return append(s, text(g, pfmt(g->p, "%s.a = o%u;", store_ptr(g), n)));
		}
		break;
	case 2:
		if (want(g, DT_ATOMIC_CAS, 100)) {
			g->atomic_in_arm |= g->depth > 0;
			g->params_used++;
			if (chance(g, 50))
				return text(g, pfmt(g->p, "cas(%s.a, pa, %llu);", P,
				                    (unsigned long long)small_or_max(g, 8)));
			return text(g, pfmt(g->p, "cas(%s.k, %llu, pk);", P,
			                    (unsigned long long)small_or_max(g, 8)));
		}
		break;
	case 3:
		if (want(g, DT_ATOMIC_CAS_GT, 100)) {
			g->atomic_in_arm |= g->depth > 0;
			const char *fn = chance(g, 50) ? "cas_gt" : "cas_lt";

			g->params_used++;
			switch (below(g, 3)) {
			case 0:
				return text(g, pfmt(g->p, "%s(%s.a, pa);", fn, P));
			case 1:
				return text(g, pfmt(g->p, "%s(%s.c, pc);", fn, P));
			default:
				return text(g, pfmt(g->p, "%s(%s.k, pk);", fn, P));
			}
		}
		break;
	case 4:
		if (g->lane != 1 && (g->depth == 0 || want(g, DT_ALLOC_GUARDED, 100)) &&
		    want(g, DT_ALLOC, 40)) {
			unsigned n = ++g->locals;
			struct gs *s = text(g, pfmt(g->p, "let b%u = alloc(fl);", n));

			s = append(s, text(g, pfmt(g->p, "b%u.%s = %llu;", n, f->name,
			                           (unsigned long long)small_or_max(g, f->width))));
			return append(s, text(g, pfmt(g->p, "%s.nx = b%u;", P, n)));
		}
		break;
	case 5:
		if ((g->depth == 0 || !g->atomic_in_arm || want(g, DT_READ_AFTER_ATOMIC, 100)) &&
		    want(g, DT_LET_COPY, 60)) {
			unsigned n = ++g->locals;
			struct gs *s = text(g, pfmt(g->p, "let s%u = %s.%s;", n, P, f->name));

			return append(
			    s, text(g, pfmt(g->p, "%s.%s = s%u;", store_ptr(g), f->name, n)));
		}
		break;
	case 6:
		if (g->lane != 1 && want(g, DT_STORE_PTR, 60)) {
			bool le = chance(g, 50) && (g->allow & BIT(DT_STORE_CROSS));

			if (le)
				use(g, DT_STORE_CROSS);
			return text(g, pfmt(g->p, "%s.%s = %s;", P, le ? "lx" : "nx",
			                    chance(g, 50) ? "p" : "q"));
		}
		break;
	case 7:
		if (f->cross && want(g, DT_STORE_CROSS, 100)) {
			g->params_used++;
			return text(g, pfmt(g->p, "%s.%s = %s;", P, f->name, f->cross));
		}
		break;
	case 8:
		if (want(g, DT_STORE_LOADED, 12))
			return text(g, pfmt(g->p, "%s.%s = %s.%s;", P, f->name, ptr(g), f->name));
		if (want(g, DT_STORE_ARITH, 12)) {
			static const char ops[] = "+-&|^";

			g->params_used++;
			return text(g, pfmt(g->p, "%s.%s = %s %c %llu;", P, f->name, f->param,
			                    ops[below(g, 5)],
			                    (unsigned long long)small_or_max(g, f->width)));
		}
		break;
	case 9:
		/* t names the other pointer where the arm ran: reads here see it,
		 * reads after the `if` its home (lower.c, lhome) */
		if (g->have_t && g->depth > 0 && g->lane != 1 && want(g, DT_LET_ARM, 30))
			return append(text(g, pfmt(g->p, "t = %s;", chance(g, 50) ? "p" : "q")),
			              text(g, pfmt(g->p, "t.%s = %llu;", f->name,
			                           (unsigned long long)small_or_max(g, f->width))));
		break;
	default:
		break;
	}
	if (want(g, DT_STORE_SAME, 60)) {
		g->params_used++;
		return text(g, pfmt(g->p, "%s.%s = %s;", P, f->name, f->param));
	}
	use(g, DT_STORE_CONST);
	return text(g, pfmt(g->p, "%s.%s = %llu;", P, f->name,
	                    (unsigned long long)small_or_max(g, f->width)));
}

/* A field of the same type as @f (itself or another one). */
static const struct field *same_type(struct g *g, const struct field *f)
{
	for (unsigned tries = 0; tries < 4; tries++) {
		const struct field *o = any_field(g);

		if (o->width == f->width && o->le == f->le)
			return o;
	}
	return f;
}

static const char *ret_text(struct g *g)
{
	const char *P = ptr(g);
	enum ret_shape r = g->ret;

	/* another field of the same type: k and j, or v and what vp points to
	 * (not a bounded read, which is W5's) */
	if (r == RS_K && want(g, DT_RET_SWAP, 15))
		return pfmt(g->p, "return %s.a;", P); /* le64 as the be64 result */
	if (g->allow & BIT(DT_RET_MIXED) && chance(g, 30) && (r == RS_K || r == RS_V)) {
		use(g, DT_RET_MIXED);
		if (r == RS_K)
			return pfmt(g->p, "return %s.j;", P);
		r = RS_VPDEREF;
	}
	switch (r) {
	case RS_VOID:
		return "return;";
	case RS_K:
		return pfmt(g->p, "return %s.k;", P);
	case RS_V:
		return pfmt(g->p, "return %s.v;", P);
	case RS_VSLICE:
	case RS_VPSLICE:
		/* a mask at most the capacity (16) is applied in place, a wider
		 * one is computed and clamped */
		if (want(g, DT_RET_SLICE_MASK, 30))
			return pfmt(g->p, "return %s.%s[.. %s.n & %u];", P,
			            r == RS_VSLICE ? "v" : "vp", P, (1u << below(g, 6)) - 1u);
		return pfmt(g->p, "return %s.%s[.. %s.n];", P, r == RS_VSLICE ? "v" : "vp", P);
	default:
		return pfmt(g->p, "return *%s.vp;", P);
	}
}

static struct gs *gen_list(struct g *g, unsigned n, bool tail);

static bool cond_has_ne(const struct gx *x)
{
	if (!x)
		return false;
	if (!x->op)
		return strstr(x->leaf, "!=") != NULL;
	/* `!` turns `==` into `!=` */
	return cond_has_ne(x->l) || cond_has_ne(x->r) || (x->op == '!' && x->l && !x->l->op);
}

static struct gs *gen_if(struct g *g, bool tail)
{
	struct gs *s = node(g, GS_IF, NULL);
	bool ret_arm = tail && g->ret != RS_NONE && want(g, DT_RET_ARM, 60);

	if (!s)
		return NULL;
	if (g->depth)
		use(g, DT_IF_NESTED);
	g->depth++;
	s->cond = gen_cond(g, 2, true);
	/* an arm that ends with a return has no return before it */
	s->a = gen_list(g, 1 + (below(g, 4) == 0), tail && !ret_arm);
	if (ret_arm)
		s->a = append(s->a, text(g, ret_text(g)));
	bool ne = cond_has_ne(s->cond);

	if ((!ne || (g->allow & BIT(DT_ELSE_IF_NE))) && want(g, DT_ELSE_IF, 25)) {
		if (ne)
			use(g, DT_ELSE_IF_NE);
		struct gs *e = node(g, GS_IF, NULL);

		if (e) {
			bool r = ret_arm && chance(g, 50);

			if (want(g, DT_CAS_ELSE, 40)) {
				/* W6's shape: the cas of an else-if runs only when the
				 * first arm did not */
				use(g, DT_COND_CAS);
				e->cond = xleaf(g, leaf_cas(g));
			} else {
				e->cond = gen_cond(g, 1, (g->allow & BIT(DT_CAS_ELSE)) != 0);
				/* N4 also when the else-if's own condition has != */
				for (int k = 0; k < 8 && cond_has_ne(e->cond) &&
				                !(g->allow & BIT(DT_ELSE_IF_NE));
				     k++)
					e->cond =
					    gen_cond(g, 1, (g->allow & BIT(DT_CAS_ELSE)) != 0);
				if (cond_has_ne(e->cond)) {
					if (!(g->allow & BIT(DT_ELSE_IF_NE)))
						e->cond = xleaf(g, "p.f == 0");
					else
						use(g, DT_ELSE_IF_NE);
				}
			}
			e->a = gen_list(g, 1, tail && !r);
			if (r)
				e->a = append(e->a, text(g, ret_text(g)));
			if (chance(g, 50))
				e->b = gen_list(g, 1, tail);
		}
		s->b = e;
		s->else_if = true;
	} else if (want(g, DT_IF_ELSE, 35)) {
		bool r = ret_arm && chance(g, 50);

		s->b = gen_list(g, 1 + (below(g, 4) == 0), tail && !r);
		if (r)
			s->b = append(s->b, text(g, ret_text(g)));
	}
	g->depth--;
	return s;
}

static const char *walk_key(struct g *g, unsigned *bound)
{
	if (chance(g, 50)) {
		g->params_used++;
		*bound = 1 + below(g, 2);
		return "pk";
	}
	*bound = 1 + below(g, g->recycle ? 10 : 8);
	return pfmt(g->p, "%llu", (unsigned long long)small_or_max(g, 8));
}

/* `while (t.k != KEY) bound N { t = t.nx; }` and its variants. */
static struct gs *gen_loop_other(struct g *g, bool over_t);
static struct gs *gen_walk(struct g *g, bool tail)
{
	unsigned bound;

	if (g->walked && !want(g, DT_WALK_TWICE, 100))
		return gen_effect(g);
	const char *key = walk_key(g, &bound);
	bool le = want(g, DT_WALK_LE, 40);
	const char *next = le ? "lx" : "nx";
	struct gs *w = node(g, GS_WHILE, NULL);
	struct gs *value = NULL, *after = NULL; /* LOOP_VALUE's let, its store */

	if (!w)
		return NULL;
	if (!le)
		use(g, DT_WALK_BE);
	g->loops++;
	w->text = pfmt(g->p, "bound %u%s", bound, g->recycle ? " recycle" : "");
	if (g->recycle)
		use(g, DT_WALK_RECYCLE);
	if (want(g, DT_WALK_BREAK, 30)) {
		struct gs *brk = node(g, GS_IF, NULL);

		w->cond = xleaf(g, "true");
		if (brk) {
			brk->cond = xleaf(g, pfmt(g->p, "t.k == %s", key));
			brk->a = text(g, "break;");
		}
		w->a = append(brk, text(g, pfmt(g->p, "t = t.%s;", next)));
	} else {
		w->cond = xleaf(g, pfmt(g->p, "t.k != %s", key));
		w->a = text(g, pfmt(g->p, "t = t.%s;", next));
		if (!g->recycle && want(g, DT_LOOP_VALUE, 20)) {
			/* a local besides t that changes in the body, read after
			 * t moved: the key itself, or a counter after an atomic's
			 * old value */
			unsigned n = ++g->locals;
			bool fa = chance(g, 40);

			if (fa) {
				use(g, DT_ATOMIC_FA_OLD);
				g->params_used++;
			}
			value = text(
			    g,
			    pfmt(g->p, fa ? "let x%u = fetch_add(t.a, 1);" : "let x%u = t.k;", n));
			w->cond = xleaf(g, pfmt(g->p, "x%u != %s", n, fa ? "pa" : key));
			w->a =
			    append(w->a, text(g, pfmt(g->p, fa ? "x%u = t.a;" : "x%u = t.k;", n)));
			if (chance(g, 50))
				after = text(
				    g, pfmt(g->p, "%s.%s = x%u;", store_ptr(g), fa ? "a" : "j", n));
		}
		if (!g->recycle && g->ret != RS_NONE && g->ret != RS_VOID &&
		    want(g, DT_RET_LOOP, 40)) {
			struct gs *r = node(g, GS_IF, NULL);

			if (r) {
				r->cond = xleaf(g, "t.j == pk");
				r->a = text(g, ret_text(g));
				r->next = w->a;
				w->a = r;
			}
		}
	}
	/* a local the body assigns under an `if`: read by the next iteration
	 * and after the loop (its home) */
	if (!g->recycle && want(g, DT_LET_MERGE_LOOP, 50)) {
		const struct field *f = any_field(g);
		unsigned n = ++g->locals;
		struct gs *i = node(g, GS_IF, NULL);
		static const char *const ops[] = {"==", "!=", "<", ">", "<=", ">="};

		value = append(value, text(g, pfmt(g->p, "let y%u = %s.%s;", n, ptr(g), f->name)));
		if (i) {
			const struct field *c = any_field(g);

			i->cond = xleaf(g, pfmt(g->p, "t.%s %s %llu", c->name, ops[below(g, 6)],
			                        (unsigned long long)small_or_max(g, c->width)));
			i->a = text(g, pfmt(g->p, "y%u = t.%s;", n, same_type(g, f)->name));
			if (chance(g, 40))
				i->b =
				    text(g, pfmt(g->p, "y%u = %s.%s;", n, chance(g, 50) ? "p" : "q",
				                 same_type(g, f)->name));
			/* the read of the previous iteration's value first */
			struct gs *rd = text(
			    g, pfmt(g->p, "%s.%s = y%u;", chance(g, 50) ? "p" : "q", f->name, n));
			w->a = append(append(rd, i), w->a);
			/* the loop's own test reads it too: an exit on its home */
			if (chance(g, 30) && w->cond && !w->cond->op &&
			    strcmp(w->cond->leaf, "true"))
				w->cond = xop(
				    g, '&', w->cond,
				    xleaf(g,
				          pfmt(g->p, "y%u %s %llu", n, chance(g, 50) ? "!=" : "<",
				               (unsigned long long)small_or_max(g, f->width))));
		}
		after = append(after, text(g, pfmt(g->p, "%s.%s = y%u;", chance(g, 50) ? "p" : "q",
		                                   f->name, n)));
	}
	g->walked = true;
	/* N3's class: a second walk (its start is where this one stopped,
	 * whichever exit that was), or a loop over the node found */
	if (!g->recycle && want(g, DT_WALK_TWICE, 25)) {
		w->next = append(after, gen_walk(g, tail));
		return append(value, w);
	}
	if (!g->recycle && want(g, DT_LOOP_AFTER_WALK, 15)) {
		w->next = append(after, gen_loop_other(g, true));
		return append(value, w);
	}
	/* what the walk found, used after it */
	if (tail && g->ret != RS_NONE && chance(g, 60)) {
		struct gs *i = node(g, GS_IF, NULL);

		if (i) {
			i->cond = xleaf(g, pfmt(g->p, "t.k == %s", key));
			i->a = text(g, g->ret == RS_K      ? "return t.k;"
			               : g->ret == RS_VOID ? "return;"
			                                   : "return t.v;");
			use(g, DT_RET_ARM);
		}
		w->next = i;
	} else if (want(g, DT_WALK_THEN_STORE, 50)) {
		const struct field *f = any_field(g);

		w->next = text(g, pfmt(g->p, "t.%s = %llu;", f->name,
		                       (unsigned long long)small_or_max(g, f->width)));
	}
	w->next = append(after, w->next);
	return append(value, w);
}

/* A loop over a field of p or q: its body changes the field (LOOP_MUTATE)
 * or another one (LOOP_PLAIN). */
static struct gs *gen_loop_other(struct g *g, bool over_t)
{
	const char *P = over_t ? "t" : chance(g, 50) ? "p" : "q";

	if (!over_t && g->walked && want(g, DT_LOOP_AFTER_WALK, 40))
		P = "t";
	struct gs *w = node(g, GS_WHILE, NULL);

	if (!w)
		return NULL;
	g->loops++;
	g->params_used++;
	w->text = pfmt(g->p, "bound %u", 1 + below(g, 4));
	if (want(g, DT_LOOP_MUTATE, 50)) {
		w->cond = xleaf(g, pfmt(g->p, "%s.a != pa", P));
		w->a = text(g, pfmt(g->p, "fetch_add(%s.a, 1);", P));
		return w;
	}
	use(g, DT_LOOP_PLAIN);
	w->cond = xleaf(g, pfmt(g->p, "%s.d != pd", P));
	w->a = text(g, pfmt(g->p, "%s.b = %llu;", P, (unsigned long long)small_or_max(g, 4)));
	return w;
}

static struct gs *gen_loop(struct g *g, bool tail)
{
	if (g->loops && g->recycle)
		return gen_effect(g);
	if (g->have_t && chance(g, 70))
		return gen_walk(g, tail);
	if (g->recycle)
		return gen_effect(g);
	return gen_loop_other(g, false);
}

static struct gs *gen_par(struct g *g, bool tail)
{
	struct gs *s = node(g, GS_PAR, NULL);

	if (!s)
		return NULL;
	use(g, DT_PARALLEL);
	g->lane = 0;
	s->lanes[0] = gen_list(g, 1 + below(g, 2), tail);
	g->lane = 1;
	s->lanes[1] = gen_list(g, 1 + below(g, 2), false);
	g->lane = -1;
	return s;
}

/*
 * A local assigned under a condition and read where it may not hold:
 *
 *   let vN = P.f;
 *   if (C) { vN = Q.g; ... } [else { vN = R.h; | S.f = vN; ... }]
 *   T.f = vN;
 *
 * C may read vN itself (LET_COND_SELF: the arm's later effects and the
 * else are guarded by the value from before the arm).
 */
static struct gs *gen_merge(struct g *g, bool tail)
{
	const struct field *f = any_field(g);
	unsigned n = ++g->locals;
	struct gs *s = text(g, pfmt(g->p, "let v%u = %s.%s;", n, ptr(g), f->name));
	struct gs *i = node(g, GS_IF, NULL);
	static const char *const ops[] = {"==", "!=", "<", ">", "<=", ">="};

	if (!i)
		return s;
	g->depth++;
	if (want(g, DT_LET_COND_SELF, 35)) {
		if (chance(g, 50)) {
			g->params_used++;
			i->cond = xleaf(g, pfmt(g->p, "v%u %s %s", n, ops[below(g, 6)], f->param));
		} else {
			i->cond = xleaf(g, pfmt(g->p, "v%u %s %llu", n, ops[below(g, 6)],
			                        (unsigned long long)small_or_max(g, f->width)));
		}
	} else {
		i->cond = gen_cond(g, 1, true);
	}
	struct gs *set = text(g, pfmt(g->p, "v%u = %s.%s;", n, ptr(g), same_type(g, f)->name));
	/* effects before and after the assignment: the later ones are guarded
	 * by the condition as it was before the arm */
	i->a = append(chance(g, 30) ? gen_effect(g) : NULL, set);
	if (chance(g, 60))
		i->a = append(i->a, chance(g, 50) ? gen_effect(g)
		                                  : text(g, pfmt(g->p, "%s.%s = v%u;", store_ptr(g),
		                                                 f->name, n)));
	if (want(g, DT_IF_ELSE, 50)) {
		switch (below(g, 3)) {
		case 0:
			i->b =
			    text(g, pfmt(g->p, "v%u = %s.%s;", n, ptr(g), same_type(g, f)->name));
			break;
		case 1:
			i->b = text(g, pfmt(g->p, "%s.%s = v%u;", store_ptr(g), f->name, n));
			break;
		default:
			i->b = gen_effect(g);
			break;
		}
	}
	g->depth--;
	(void)tail;
	return append(append(s, i), text(g, pfmt(g->p, "%s.%s = v%u;", store_ptr(g), f->name, n)));
}

static struct gs *gen_stmt(struct g *g, bool tail)
{
	unsigned k = below(g, 10);

	if (g->depth < 2 && want(g, DT_LET_MERGE, 8))
		return gen_merge(g, tail);

	if (k < 3 && (g->depth == 0 || (g->depth < 2 && (g->allow & BIT(DT_IF_NESTED)))))
		return gen_if(g, tail);
	if (g->depth == 0 && g->lane != 1 && k < 5 &&
	    (g->allow &
	     (BIT(DT_WALK_BE) | BIT(DT_WALK_LE) | BIT(DT_LOOP_PLAIN) | BIT(DT_LOOP_MUTATE)))) {
		if (g->lane < 0 && g->have_t && want(g, DT_LOOP_UNDER_IF, 20)) {
			struct gs *i = node(g, GS_IF, NULL);

			if (i) {
				i->cond = xleaf(g, leaf_cmp(g));
				g->depth++;
				i->a = gen_loop(g, false);
				g->depth--;
			}
			return i;
		}
		return gen_loop(g, tail);
	}
	/* lane 1 never returns: two lanes that both return race */
	if (g->ret != RS_NONE && g->lane != 1 && want(g, DT_RET_EARLY, 15)) {
		struct gs *i = node(g, GS_IF, NULL);

		if (i) {
			i->cond = gen_cond(g, 1, true);
			i->a = text(g, ret_text(g));
		}
		return i;
	}
	return gen_effect(g);
}

/* @n statements; @tail: nothing runs after the list (returns may end it). */
static struct gs *gen_list(struct g *g, unsigned n, bool tail)
{
	struct gs *list = NULL;

	for (unsigned i = 0; i < n && !g->p->oom; i++)
		list = append(list, gen_stmt(g, tail && i + 1 == n));
	return list;
}

/* ---- images and arguments ------------------------------------------------- */

static void put(uint8_t *b, unsigned width, bool le, uint64_t v)
{
	chainobj_put_uint(b, width, le ? CHAINOBJ_ORDER_LITTLE : CHAINOBJ_ORDER_BIG, v);
}

static void add_set(struct g *g, const char *s)
{
	if (g->p->nsets < MAX_SETS)
		g->p->sets[g->p->nsets++] = s;
}

static const char *hex(struct g *g, const uint8_t *b, size_t n)
{
	char *s = palloc(g->p, 2 * n + 1);

	if (!s)
		return "";
	for (size_t i = 0; i < n; i++)
		snprintf(s + 2 * i, 3, "%02x", b[i]);
	return s;
}

static void gen_region(struct g *g, const char *name, unsigned recs, const uint64_t *pv)
{
	for (unsigned r = 0; r < recs; r++) {
		uint8_t rec[REC_SIZE] = {0};

		for (size_t i = 0; i < NFIELDS; i++) {
			const struct field *f = &fields[i];
			uint64_t v, max = f->width >= 8 ? ~0ull : (1ull << (8 * f->width)) - 1;
			size_t pi = 0;

			while (strcmp(params[pi].name, f->param))
				pi++;
			switch (below(g, 10)) {
			case 0:
			case 1:
			case 2:
			case 3:
				v = pv[pi];
				break;
			case 4:
			case 5:
				/* near the parameter: order comparisons and loops that
				 * count towards it stop early */
				v = (pv[pi] +
				     (chance(g, 50) ? 1 + below(g, 2) : max - below(g, 3))) &
				    max;
				break;
			default:
				v = small_or_max(g, f->width);
				break;
			}
			if (!strcmp(f->name, "n"))
				v = below(g, 20);
			/* a few steps below pa: a loop counting a up to pa stops early */
			if (!strcmp(f->name, "a") && chance(g, 40))
				v = (pv[pi] - below(g, 4)) & max;
			put(rec + f->off, f->width, f->le, v);
		}
		for (unsigned i = 0; i < 16; i++)
			rec[OFF_V + i] = (uint8_t)(chance(g, 70) ? i : rnd(g));
		add_set(g, pfmt(g->p, "%s+%u=hex:%s", name, r * REC_SIZE, hex(g, rec, REC_SIZE)));
		add_set(g, pfmt(g->p, "%s+%u=be64:&m+%u", name, r * REC_SIZE + OFF_NX,
		                below(g, M_RECS) * REC_SIZE));
		add_set(g, pfmt(g->p, "%s+%u=le64:&m+%u", name, r * REC_SIZE + OFF_LX,
		                below(g, M_RECS) * REC_SIZE));
		add_set(g, pfmt(g->p, "%s+%u=be64:&m+%u", name, r * REC_SIZE + OFF_VP,
		                below(g, M_RECS * REC_SIZE - 16)));
	}
}

static void gen_inputs(struct g *g)
{
	uint64_t pv[NPARAMS];
	struct dt_prog *p = g->p;

	for (size_t i = 0; i < NPARAMS; i++) {
		pv[i] = small_or_max(g, params[i].width);
		p->args[p->nargs++] = (struct dt_arg){params[i].name, pv[i]};
	}
	p->args[p->nargs++] = (struct dt_arg){"p", below(g, M_RECS) * REC_SIZE};
	p->args[p->nargs++] = (struct dt_arg){"q", below(g, M_RECS) * REC_SIZE};
	p->args[p->nargs++] = (struct dt_arg){"r", below(g, W_RECS) * REC_SIZE};
	gen_region(g, "m", M_RECS, pv);
	gen_region(g, "w", W_RECS, pv);
	/* the free list: cursor at the first slot, FL_SLOTS buffers in m */
	add_set(g, "fl+0=le64:&fl+8");
	for (unsigned i = 0; i < FL_SLOTS; i++)
		add_set(g, pfmt(g->p, "fl+%u=be64:&m+%u", 8 + 8 * i, below(g, M_RECS) * REC_SIZE));
}

struct dt_prog *dt_gen(uint64_t seed, dt_mask allowed)
{
	struct dt_prog *p = calloc(1, sizeof(*p));
	struct g g = {.p = p, .s = seed * 0x9e3779b97f4a7c15ull + 1, .allow = allowed, .lane = -1};

	if (!p)
		return NULL;
	for (int i = 0; i < 4; i++)
		rnd(&g);
	/* the return shape */
	switch (below(&g, 8)) {
	case 0:
	case 1:
		g.ret = RS_NONE;
		break;
	case 2:
	case 3:
	case 4:
		g.ret = RS_K;
		break;
	case 5:
		g.ret = RS_V;
		break;
	default:
		g.ret = chance(&g, 50) ? RS_VSLICE : chance(&g, 50) ? RS_VPSLICE : RS_VPDEREF;
		break;
	}
	if (g.ret == RS_NONE && want(&g, DT_RET_VOID, 30))
		g.ret = RS_VOID;
	if ((g.ret == RS_VSLICE && !want(&g, DT_RET_SLICE, 100)) ||
	    (g.ret >= RS_VPSLICE && !want(&g, DT_RET_SLICE_PTR, 100)))
		g.ret = RS_V;
	p->ret = g.ret == RS_K ? " -> be64" : g.ret >= RS_V ? " -> u8[16]" : "";
	g.have_t = chance(&g, 55) && (allowed & (BIT(DT_WALK_BE) | BIT(DT_WALK_LE)));
	g.recycle = g.have_t && want(&g, DT_WALK_RECYCLE, 20);
	if (g.have_t)
		p->body = text(&g, chance(&g, 50) ? "let t = p;" : "let t = q;");
	unsigned n = 1 + below(&g, 3) / 2;
	/* a return as the last statement: then nothing before it returns */
	bool ret_tail = g.ret != RS_NONE && chance(&g, 50) && want(&g, DT_RET_TAIL, 100);

	if (!ret_tail && want(&g, DT_PARALLEL, 12)) {
		if (n > 1 && want(&g, DT_PAR_AFTER_EFFECTS, 100))
			p->body = append(p->body, gen_list(&g, n - 1, false));
		p->body = append(p->body, gen_par(&g, true));
	} else {
		p->body = append(p->body, gen_list(&g, n, !ret_tail));
	}
	if (ret_tail)
		p->body = append(p->body, text(&g, ret_text(&g)));
	gen_inputs(&g);
	if (p->oom) {
		dt_prog_free(p);
		return NULL;
	}
	return p;
}

/* ---- printing -------------------------------------------------------------- */

struct out {
	char *buf;
	size_t len;
	FILE *f;
};

static void print_cond(FILE *f, const struct gx *x, bool top)
{
	if (!x->op) {
		fputs(x->leaf, f);
		return;
	}
	if (x->op == '!') {
		fputs("!(", f);
		print_cond(f, x->l, true);
		fputs(")", f);
		return;
	}
	if (!top)
		fputs("(", f);
	print_cond(f, x->l, false);
	fputs(x->op == '&' ? " && " : " || ", f);
	print_cond(f, x->r, false);
	if (!top)
		fputs(")", f);
}

static void print_list(FILE *f, const struct gs *s, int ind);

static void print_if(FILE *f, const struct gs *s, int ind)
{
	fputs("if (", f);
	print_cond(f, s->cond, true);
	fputs(") {\n", f);
	print_list(f, s->a, ind + 1);
	fprintf(f, "%*s}", ind * 4, "");
	if (s->b && s->else_if && s->b->kind == GS_IF && !s->b->next) {
		fputs(" else ", f);
		print_if(f, s->b, ind);
		return;
	}
	if (s->b || s->else_if) {
		fputs(" else {\n", f);
		print_list(f, s->b, ind + 1);
		fprintf(f, "%*s}", ind * 4, "");
	}
}

static void print_list(FILE *f, const struct gs *s, int ind)
{
	for (; s; s = s->next) {
		fprintf(f, "%*s", ind * 4, "");
		switch (s->kind) {
		case GS_TEXT:
			fputs(s->text, f);
			break;
		case GS_IF:
			print_if(f, s, ind);
			break;
		case GS_WHILE:
			fputs("while (", f);
			print_cond(f, s->cond, true);
			fprintf(f, ") %s {\n", s->text);
			print_list(f, s->a, ind + 1);
			fprintf(f, "%*s}", ind * 4, "");
			break;
		case GS_PAR:
			fputs("parallel {\n", f);
			print_list(f, s->lanes[0], ind + 1);
			fprintf(f, "%*s} || {\n", ind * 4, "");
			print_list(f, s->lanes[1], ind + 1);
			fprintf(f, "%*s}", ind * 4, "");
			break;
		}
		fputs("\n", f);
	}
}

char *dt_prog_source(const struct dt_prog *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fprintf(f, "%s%s {\n", prelude, p->ret);
	print_list(f, p->body, 1);
	fputs("}\n", f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

dt_mask dt_prog_constructs(const struct dt_prog *p)
{
	return p->used;
}

size_t dt_prog_sets(const struct dt_prog *p, const char *const **sets)
{
	*sets = p->sets;
	return p->nsets;
}

size_t dt_prog_args(const struct dt_prog *p, const struct dt_arg **args)
{
	*args = p->args;
	return p->nargs;
}

/* ---- reduction --------------------------------------------------------------- */

static struct gx *clone_x(struct dt_prog *p, const struct gx *x)
{
	struct gx *c;

	if (!x)
		return NULL;
	c = palloc(p, sizeof(*c));
	if (!c)
		return NULL;
	*c = *x;
	if (x->leaf)
		c->leaf = pfmt(p, "%s", x->leaf);
	c->l = clone_x(p, x->l);
	c->r = clone_x(p, x->r);
	return c;
}

static struct gs *clone_s(struct dt_prog *p, const struct gs *s)
{
	struct gs *c;

	if (!s)
		return NULL;
	c = palloc(p, sizeof(*c));
	if (!c)
		return NULL;
	*c = *s;
	if (s->text)
		c->text = pfmt(p, "%s", s->text);
	c->cond = clone_x(p, s->cond);
	c->a = clone_s(p, s->a);
	c->b = clone_s(p, s->b);
	c->lanes[0] = clone_s(p, s->lanes[0]);
	c->lanes[1] = clone_s(p, s->lanes[1]);
	c->next = clone_s(p, s->next);
	return c;
}

/* Replace *@link's node by the list @with (spliced before its successor). */
static void splice(struct gs **link, struct gs *with)
{
	struct gs *after = (*link)->next;

	if (!with) {
		*link = after;
		return;
	}
	*link = with;
	while (with->next)
		with = with->next;
	with->next = after;
}

/*
 * Edits of a condition: keep one operand of && / ||, drop a !.  Counts
 * down *@k; applies the edit (when @apply) at zero.  True once applied.
 */
static bool edit_x(struct gx **link, size_t *k, bool apply)
{
	struct gx *x = *link;

	if (!x || !x->op)
		return false;
	unsigned n = x->op == '!' ? 1 : 2;

	for (unsigned i = 0; i < n; i++) {
		if (*k == 0) {
			if (apply)
				*link = i ? x->r : x->l;
			return true;
		}
		(*k)--;
	}
	return edit_x(&x->l, k, apply) || edit_x(&x->r, k, apply);
}

static bool edit_s(struct gs **link, size_t *k, bool apply)
{
	for (; *link; link = &(*link)->next) {
		struct gs *s = *link;
		struct gs *alts[4] = {NULL};
		unsigned nalt = 0;

		/* delete it, or replace it by one of its lists */
		if (*k == 0) {
			if (apply)
				*link = s->next;
			return true;
		}
		(*k)--;
		if (s->kind == GS_IF || s->kind == GS_WHILE) {
			alts[nalt++] = s->a;
			if (s->kind == GS_IF && s->b)
				alts[nalt++] = s->b;
		} else if (s->kind == GS_PAR) {
			alts[nalt++] = s->lanes[0];
			alts[nalt++] = s->lanes[1];
		}
		for (unsigned i = 0; i < nalt; i++) {
			if (*k == 0) {
				if (apply)
					splice(link, alts[i]);
				return true;
			}
			(*k)--;
		}
		if (s->kind == GS_IF && s->b) {
			if (*k == 0) {
				if (apply) {
					s->b = NULL;
					s->else_if = false;
				}
				return true;
			}
			(*k)--;
		}
		if (edit_x(&s->cond, k, apply) || edit_s(&s->a, k, apply) ||
		    edit_s(&s->b, k, apply) || edit_s(&s->lanes[0], k, apply) ||
		    edit_s(&s->lanes[1], k, apply))
			return true;
	}
	return false;
}

static bool may_return(const struct gs *s)
{
	for (; s; s = s->next)
		if ((s->kind == GS_TEXT && !strncmp(s->text, "return", 6)) || may_return(s->a) ||
		    may_return(s->b) || may_return(s->lanes[0]) || may_return(s->lanes[1]))
			return true;
	return false;
}

static bool tail_returns(const struct gs *s)
{
	for (; s; s = s->next) {
		bool r = (s->kind == GS_TEXT && !strncmp(s->text, "return", 6)) ||
		         may_return(s->a) || may_return(s->b) || may_return(s->lanes[0]) ||
		         may_return(s->lanes[1]);

		if (r && s->next)
			return false;
		/* a loop body runs again after its return: not a tail */
		if (s->kind == GS_WHILE && may_return(s->a))
			return false;
		if (!tail_returns(s->a) || !tail_returns(s->b) || !tail_returns(s->lanes[0]) ||
		    !tail_returns(s->lanes[1]))
			return false;
	}
	return true;
}

bool dt_prog_tail_returns(const struct dt_prog *p)
{
	return tail_returns(p->body);
}

size_t dt_prog_edits(const struct dt_prog *p)
{
	size_t k = (size_t)-1;
	struct gs *body = p->body;

	edit_s(&body, &k, false);
	return (size_t)-1 - k;
}

struct dt_prog *dt_prog_edit(const struct dt_prog *p, size_t k)
{
	struct dt_prog *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->ret = p->ret;
	c->used = p->used;
	c->body = clone_s(c, p->body);
	for (size_t i = 0; i < p->nsets; i++)
		c->sets[i] = pfmt(c, "%s", p->sets[i]);
	c->nsets = p->nsets;
	memcpy(c->args, p->args, sizeof(c->args));
	c->nargs = p->nargs;
	if (c->oom || !edit_s(&c->body, &k, true)) {
		dt_prog_free(c);
		return NULL;
	}
	return c;
}
