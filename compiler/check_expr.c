/* SPDX-License-Identifier: MIT */
/*
 * compiler/check_expr.c - the checker's expression rules.
 *
 * Owns: typing of every expression kind (one handler per kind, in a
 * table), constant folding, places (parameter / temporary / region
 * memory) and the region each memory access touches, width and byte-order
 * rules (comparisons and atomic operands must match exactly; assignments
 * may convert byte order, which the lowering does with a swapping
 * scatter), the builtins (cas, cas_gt, cas_lt, fetch_add, alloc) and
 * PRISM bounded reads `e[.. n]`.
 *
 * Must not: report an error about an operand whose own check failed (its
 * type is NULL: the error was already given).
 */
#include <stdio.h>
#include <string.h>

#include "compiler/check_internal.h"
#include "compiler/spell.h"

typedef struct ast_type *check_fn(struct check_ctx *c, struct ast_expr *e);

static bool is_int(const struct ast_type *t)
{
	return t && (t->kind == AST_TYPE_INT || t->kind == AST_TYPE_SCALAR);
}

static bool is_aggregate(const struct ast_type *t)
{
	return t && (t->kind == AST_TYPE_ARRAY || t->kind == AST_TYPE_STRUCT);
}

bool check_int_fits(uint64_t v, unsigned width)
{
	return width >= 8 || v < (1ull << (8 * width));
}

static const char *tname(const struct ast_type *t, char *buf, size_t size)
{
	return check_type_name(t, buf, size);
}

static struct ast_type *set_const(struct ast_expr *e, struct ast_type *t, uint64_t v)
{
	e->is_const = true;
	e->value = v;
	e->type = t;
	return t;
}

/* A u8[n] type from the arena (slices, untyped regions). */
static struct ast_type *byte_array(struct check_ctx *c, uint64_t n, struct src_loc loc)
{
	struct ast_type *t = ast_type_new(c->prog, AST_TYPE_ARRAY, loc);

	if (!t) {
		c->oom = true;
		return NULL;
	}
	t->elem = c->t_u8;
	t->count = n;
	t->size = n;
	return t;
}

/* ---- Leaves ------------------------------------------------------------ */

static struct ast_type *check_int_lit(struct check_ctx *c, struct ast_expr *e)
{
	return set_const(e, c->t_int, e->u.int_value);
}

static struct ast_type *check_bool_lit(struct check_ctx *c, struct ast_expr *e)
{
	return set_const(e, c->t_bool, e->u.bool_value);
}

bool check_fold_const(struct check_ctx *c, struct ast_const *k)
{
	size_t saved_scope = c->nscope;
	uint64_t v;

	if (k->resolved)
		return true;
	if (k->resolving) {
		diag_error(c->d, k->loc, "constant '%s' depends on itself", k->name);
		return false;
	}
	if (c->def_depth == AST_MAX_DEPTH) {
		diag_error(c->d, k->loc,
		           "constant '%s' is folded through more than %u other constants; "
		           "define it from fewer",
		           k->name, AST_MAX_DEPTH);
		k->resolved = true;
		k->value = 0;
		return false;
	}
	k->resolving = true;
	c->nscope = 0; /* a constant sees only globals */
	c->def_depth++;
	bool ok = check_const_value(c, k->expr, &v);
	c->def_depth--;
	c->nscope = saved_scope;
	k->resolving = false;
	if (!ok) {
		/* resolved with 0 so uses do not report it again */
		k->resolved = true;
		k->value = 0;
		return false;
	}
	k->value = v;
	k->resolved = true;
	return true;
}

static const char *const kind_words[] = {
    [AST_SYM_NONE] = "name",       [AST_SYM_CONST] = "constant",     [AST_SYM_REGION] = "region",
    [AST_SYM_STRUCT] = "struct",   [AST_SYM_FREELIST] = "free list", [AST_SYM_OFFLOAD] = "offload",
    [AST_SYM_PARAM] = "parameter", [AST_SYM_LOCAL] = "variable",
};

/* "unknown name 'X'", with the closest name in scope when there is one. */
static void unknown_name(struct check_ctx *c, struct src_loc loc, const char *name)
{
	struct spell s;
	char hint[SPELL_HINT_SIZE];

	spell_init(&s, name);
	check_spell_names(c, &s, CHECK_SPELL_KIND(AST_SYM_CONST) | CHECK_SPELL_KIND(AST_SYM_REGION),
	                  true);
	diag_error(c->d, loc, "unknown name '%s'%s", name, spell_hint(&s, hint, sizeof(hint)));
}

static struct ast_type *check_name(struct check_ctx *c, struct ast_expr *e)
{
	const char *name = e->u.name.name;
	struct check_scope_ent *l = check_lookup_local(c, name);
	struct check_sym *g;

	if (l) {
		e->u.name.sym = l->kind;
		e->u.name.target.any = l->node;
		if (l->kind == AST_SYM_PARAM) {
			e->place = AST_PLACE_PARAM;
			e->type = e->u.name.target.param->type;
		} else {
			e->place = AST_PLACE_LOCAL;
			e->type = e->u.name.target.local->type;
		}
		if (e->type && e->type->kind == AST_TYPE_PTR)
			e->region = e->type->region;
		return e->type;
	}
	g = check_lookup_global(c, name);
	if (!g) {
		if (check_lookup_type(c, name))
			diag_error(c->d, e->loc, "'%s' is a struct, not a value", name);
		else
			unknown_name(c, e->loc, name);
		return NULL;
	}
	e->u.name.sym = g->kind;
	e->u.name.target.any = g->node;
	switch (g->kind) {
	case AST_SYM_CONST: {
		struct ast_const *k = g->node;

		if (!check_fold_const(c, k))
			return NULL;
		return set_const(e, c->t_int, k->value);
	}
	case AST_SYM_REGION: {
		struct ast_region *r = g->node;

		e->place = AST_PLACE_MEMORY;
		e->region = r;
		if (r->type)
			e->type = r->type->size ? r->type : NULL;
		else
			e->type = r->size ? byte_array(c, r->size, r->loc) : NULL;
		return e->type;
	}
	case AST_SYM_FREELIST:
		diag_error(c->d, e->loc, "free list '%s' can only be used as alloc(%s)", name,
		           name);
		return NULL;
	default:
		diag_error(c->d, e->loc, "'%s' is %s %s, not a value", name,
		           g->kind == AST_SYM_OFFLOAD ? "an" : "a", kind_words[g->kind]);
		return NULL;
	}
}

static struct ast_type *check_sizeof(struct check_ctx *c, struct ast_expr *e)
{
	struct ast_type *t = e->u.size_of.type;

	if (!check_resolve_type(c, t, true))
		return NULL;
	return set_const(e, c->t_int, t->size);
}

/* ---- Operators ----------------------------------------------------------- */

/* The common type of two integer operands of `op`, or NULL after an
 * error.  A constant adapts to the other side if it fits. */
static struct ast_type *int_common(struct check_ctx *c, struct ast_expr *e, struct ast_expr *l,
                                   struct ast_expr *r, const char *op)
{
	struct ast_type *lt = l->type, *rt = r->type;
	char b1[96], b2[96];

	if (lt->kind == AST_TYPE_INT && rt->kind == AST_TYPE_INT)
		return c->t_int;
	if (lt->kind == AST_TYPE_INT || rt->kind == AST_TYPE_INT) {
		struct ast_expr *k = lt->kind == AST_TYPE_INT ? l : r;
		struct ast_type *t = lt->kind == AST_TYPE_INT ? rt : lt;

		if (!check_int_fits(k->value, ast_type_width(t))) {
			diag_error(c->d, k->loc, "constant 0x%llx does not fit in %s",
			           (unsigned long long)k->value, tname(t, b1, sizeof(b1)));
			return NULL;
		}
		return t;
	}
	if (lt->size != rt->size) {
		diag_error(c->d, e->u.binary.op_loc,
		           "operands of '%s' have different widths (%s and %s)", op,
		           tname(lt, b1, sizeof(b1)), tname(rt, b2, sizeof(b2)));
		return NULL;
	}
	if (ast_type_order(lt) != ast_type_order(rt)) {
		diag_error(c->d, e->u.binary.op_loc,
		           "operands of '%s' have different byte orders (%s and %s)", op,
		           tname(lt, b1, sizeof(b1)), tname(rt, b2, sizeof(b2)));
		return NULL;
	}
	return lt;
}

/* Constant folding; false after reporting overflow or division by 0. */
static bool fold(struct check_ctx *c, struct ast_expr *e, uint64_t a, uint64_t b, uint64_t *out)
{
	enum ast_binop op = e->u.binary.op;

	switch (op) {
	case AST_BINOP_ADD:
		if (a > UINT64_MAX - b)
			goto overflow;
		*out = a + b;
		return true;
	case AST_BINOP_SUB:
		*out = a - b; /* wraps: 0 - 1 is all ones, as in C */
		return true;
	case AST_BINOP_MUL:
		if (a && b > UINT64_MAX / a)
			goto overflow;
		*out = a * b;
		return true;
	case AST_BINOP_DIV:
	case AST_BINOP_MOD:
		if (b == 0) {
			diag_error(c->d, e->u.binary.op_loc, "division by zero");
			return false;
		}
		*out = op == AST_BINOP_DIV ? a / b : a % b;
		return true;
	case AST_BINOP_AND:
		*out = a & b;
		return true;
	case AST_BINOP_OR:
		*out = a | b;
		return true;
	case AST_BINOP_XOR:
		*out = a ^ b;
		return true;
	case AST_BINOP_SHL:
		if (b >= 64 || (a && (a << b) >> b != a))
			goto overflow;
		*out = a << b;
		return true;
	case AST_BINOP_SHR:
		*out = b >= 64 ? 0 : a >> b;
		return true;
	case AST_BINOP_EQ:
		*out = a == b;
		return true;
	case AST_BINOP_NE:
		*out = a != b;
		return true;
	case AST_BINOP_LT:
		*out = a < b;
		return true;
	case AST_BINOP_GT:
		*out = a > b;
		return true;
	case AST_BINOP_LE:
		*out = a <= b;
		return true;
	case AST_BINOP_GE:
		*out = a >= b;
		return true;
	case AST_BINOP_LAND:
		*out = a && b;
		return true;
	case AST_BINOP_LOR:
		*out = a || b;
		return true;
	case AST_BINOP_COUNT:
		break;
	}
	return false;
overflow:
	diag_error(c->d, e->u.binary.op_loc, "constant expression overflows 64 bits");
	return false;
}

enum binop_class {
	BINOP_ARITH,      /* + - & | ^ : runtime allowed */
	BINOP_CONST_ONLY, /* * / % << >> : the NIC cannot compute them */
	BINOP_EQUALITY,   /* == != */
	BINOP_ORDER,      /* < > <= >= */
	BINOP_LOGIC,      /* && || */
};

static const enum binop_class binop_classes[AST_BINOP_COUNT] = {
    [AST_BINOP_ADD] = BINOP_ARITH,      [AST_BINOP_SUB] = BINOP_ARITH,
    [AST_BINOP_MUL] = BINOP_CONST_ONLY, [AST_BINOP_DIV] = BINOP_CONST_ONLY,
    [AST_BINOP_MOD] = BINOP_CONST_ONLY, [AST_BINOP_AND] = BINOP_ARITH,
    [AST_BINOP_OR] = BINOP_ARITH,       [AST_BINOP_XOR] = BINOP_ARITH,
    [AST_BINOP_SHL] = BINOP_CONST_ONLY, [AST_BINOP_SHR] = BINOP_CONST_ONLY,
    [AST_BINOP_EQ] = BINOP_EQUALITY,    [AST_BINOP_NE] = BINOP_EQUALITY,
    [AST_BINOP_LT] = BINOP_ORDER,       [AST_BINOP_GT] = BINOP_ORDER,
    [AST_BINOP_LE] = BINOP_ORDER,       [AST_BINOP_GE] = BINOP_ORDER,
    [AST_BINOP_LAND] = BINOP_LOGIC,     [AST_BINOP_LOR] = BINOP_LOGIC,
};

/* Operands of a comparison: integers of one width and byte order,
 * pointers into one region (== and != only), or aggregates of one type
 * (== and != only, compared bytewise). */
static bool comparable(struct check_ctx *c, struct ast_expr *e, const char *op, bool equality)
{
	struct ast_expr *l = e->u.binary.lhs, *r = e->u.binary.rhs;
	struct ast_type *lt = l->type, *rt = r->type;
	char b1[96], b2[96];

	if (is_int(lt) && is_int(rt))
		return int_common(c, e, l, r, op) != NULL;
	if (lt->kind == AST_TYPE_PTR && rt->kind == AST_TYPE_PTR && equality) {
		if (lt->region != rt->region) {
			diag_error(c->d, e->u.binary.op_loc,
			           "comparison of pointers into different regions ('%s' and '%s')",
			           lt->region->name, rt->region->name);
			return false;
		}
		return true;
	}
	if (is_aggregate(lt) && equality && check_types_equal(lt, rt))
		return true;
	diag_error(c->d, e->u.binary.op_loc, "cannot compare %s with %s using '%s'",
	           tname(lt, b1, sizeof(b1)), tname(rt, b2, sizeof(b2)), op);
	return false;
}

static struct ast_type *check_binary(struct check_ctx *c, struct ast_expr *e)
{
	struct ast_expr *l = e->u.binary.lhs, *r = e->u.binary.rhs;
	enum ast_binop op = e->u.binary.op;
	const char *sp = ast_binop_spelling[op];
	struct ast_type *lt = check_expr(c, l, CHECK_USE_VALUE);
	struct ast_type *rt = check_expr(c, r, CHECK_USE_VALUE);
	struct ast_type *t = NULL;
	char buf[96];
	uint64_t v;

	if (!lt || !rt)
		return NULL;
	switch (binop_classes[op]) {
	case BINOP_LOGIC:
		if (lt->kind != AST_TYPE_BOOL || rt->kind != AST_TYPE_BOOL) {
			struct ast_expr *bad = lt->kind != AST_TYPE_BOOL ? l : r;

			diag_error(c->d, bad->loc, "operand of '%s' must be a boolean, not %s", sp,
			           tname(bad->type, buf, sizeof(buf)));
			return NULL;
		}
		t = c->t_bool;
		break;
	case BINOP_EQUALITY:
	case BINOP_ORDER:
		if (!comparable(c, e, sp, binop_classes[op] == BINOP_EQUALITY))
			return NULL;
		t = c->t_bool;
		break;
	case BINOP_CONST_ONLY:
	case BINOP_ARITH:
		if (!is_int(lt) || !is_int(rt)) {
			struct ast_expr *bad = !is_int(lt) ? l : r;

			if (bad->type->kind == AST_TYPE_PTR && binop_classes[op] == BINOP_ARITH)
				diag_error(c->d, e->u.binary.op_loc,
				           "pointer arithmetic is not supported; use indexing "
				           "(p[i]) or fields (p.f)");
			else
				diag_error(c->d, bad->loc,
				           "operand of '%s' must be an integer, not %s", sp,
				           tname(bad->type, buf, sizeof(buf)));
			return NULL;
		}
		if (binop_classes[op] == BINOP_CONST_ONLY && !(l->is_const && r->is_const)) {
			diag_error(c->d, e->u.binary.op_loc,
			           "operator '%s' needs constant operands (the NIC cannot compute "
			           "it)",
			           sp);
			return NULL;
		}
		t = int_common(c, e, l, r, sp);
		if (!t)
			return NULL;
		break;
	}
	e->type = t;
	if (l->is_const && r->is_const) {
		if (!fold(c, e, l->value, r->value, &v))
			return NULL;
		if (t->kind == AST_TYPE_SCALAR && !check_int_fits(v, ast_type_width(t))) {
			diag_error(c->d, e->u.binary.op_loc, "constant result does not fit in %s",
			           tname(t, buf, sizeof(buf)));
			return NULL;
		}
		set_const(e, t, v);
	}
	return t;
}

static struct ast_type *check_unary(struct check_ctx *c, struct ast_expr *e)
{
	struct ast_expr *o = e->u.unary.operand;
	struct ast_type *t = check_expr(c, o, CHECK_USE_VALUE);
	const char *sp = ast_unop_spelling[e->u.unary.op];
	char buf[96];

	if (!t)
		return NULL;
	if (e->u.unary.op == AST_UNOP_NOT) {
		if (t->kind != AST_TYPE_BOOL) {
			diag_error(c->d, o->loc, "operand of '!' must be a boolean, not %s",
			           tname(t, buf, sizeof(buf)));
			return NULL;
		}
		e->type = t;
		if (o->is_const)
			set_const(e, t, !o->value);
		return t;
	}
	if (!is_int(t)) {
		diag_error(c->d, o->loc, "operand of '%s' must be an integer, not %s", sp,
		           tname(t, buf, sizeof(buf)));
		return NULL;
	}
	if (!o->is_const) {
		diag_error(c->d, e->loc,
		           "operator '%s' needs a constant operand (the NIC cannot compute it)",
		           sp);
		return NULL;
	}
	uint64_t v = e->u.unary.op == AST_UNOP_NEG ? (uint64_t)0 - o->value : ~o->value;
	if (t->kind == AST_TYPE_SCALAR && ast_type_width(t) < 8)
		v &= (1ull << (8 * ast_type_width(t))) - 1;
	return set_const(e, t, v);
}

/* ---- Memory access ------------------------------------------------------ */

/* Type a pointee for use by value (its size must be known). */
static struct ast_type *pointee_of(struct check_ctx *c, struct ast_type *p)
{
	if (!check_resolve_type(c, p->pointee, true))
		return NULL;
	return p->pointee;
}

static struct ast_type *check_deref(struct check_ctx *c, struct ast_expr *e)
{
	struct ast_expr *p = e->u.deref.ptr;
	struct ast_type *t = check_expr(c, p, CHECK_USE_VALUE);
	char buf[96];

	if (!t)
		return NULL;
	if (t->kind != AST_TYPE_PTR) {
		diag_error(c->d, e->loc, "cannot dereference %s (not a pointer)",
		           tname(t, buf, sizeof(buf)));
		return NULL;
	}
	e->place = AST_PLACE_MEMORY;
	e->region = t->region;
	return e->type = pointee_of(c, t);
}

/* Base of a field/index/slice: a place holding an aggregate, or a pointer
 * to one (auto-dereferenced: `b.key` for `(*b).key`).  Returns the
 * aggregate's type and fills place/region of `e`. */
static struct ast_type *aggregate_base(struct check_ctx *c, struct ast_expr *e,
                                       struct ast_expr *base, bool *through_ptr)
{
	struct ast_type *t = base->type;

	*through_ptr = false;
	if (t->kind == AST_TYPE_PTR) {
		*through_ptr = true;
		e->place = AST_PLACE_MEMORY;
		e->region = t->region;
		return pointee_of(c, t);
	}
	e->place = base->place;
	e->region = base->place == AST_PLACE_MEMORY ? base->region : NULL;
	return t;
}

static struct ast_type *check_field(struct check_ctx *c, struct ast_expr *e)
{
	struct ast_expr *base = e->u.field.base;
	struct ast_type *t = check_expr(c, base, CHECK_USE_VALUE);
	char buf[96];

	if (!t)
		return NULL;
	t = aggregate_base(c, e, base, &e->u.field.through_ptr);
	if (!t)
		return NULL;
	if (t->kind != AST_TYPE_STRUCT) {
		diag_error(c->d, e->u.field.name_loc,
		           "cannot access field '%s' of %s (not a struct)", e->u.field.name,
		           tname(base->type, buf, sizeof(buf)));
		return NULL;
	}
	for (struct ast_field *f = t->strct->fields; f; f = f->next) {
		if (strcmp(f->name, e->u.field.name) == 0) {
			e->u.field.field = f;
			return e->type = f->type;
		}
	}
	struct spell s;
	char hint[SPELL_HINT_SIZE];

	spell_init(&s, e->u.field.name);
	for (struct ast_field *f = t->strct->fields; f; f = f->next)
		spell_consider(&s, f->name);
	diag_error(c->d, e->u.field.name_loc, "no field '%s' in struct '%s'%s", e->u.field.name,
	           t->strct->name, spell_hint(&s, hint, sizeof(hint)));
	diag_note(c->d, t->strct->loc, "struct '%s' is declared here", t->strct->name);
	return NULL;
}

static struct ast_type *check_index(struct check_ctx *c, struct ast_expr *e)
{
	struct ast_expr *base = e->u.index.base, *idx = e->u.index.index;
	struct ast_type *t = check_expr(c, base, CHECK_USE_VALUE);
	struct ast_type *it = check_expr(c, idx, CHECK_USE_VALUE);
	char buf[96];

	if (!t || !it)
		return NULL;
	t = aggregate_base(c, e, base, &e->u.index.through_ptr);
	if (!t)
		return NULL;
	if (t->kind != AST_TYPE_ARRAY) {
		diag_error(c->d, e->loc, "cannot index %s (not an array)",
		           tname(base->type, buf, sizeof(buf)));
		return NULL;
	}
	if (!is_int(it)) {
		diag_error(c->d, idx->loc, "array index must be an integer, not %s",
		           tname(it, buf, sizeof(buf)));
		return NULL;
	}
	if (idx->is_const && idx->value >= t->count) {
		diag_error(c->d, idx->loc, "index %llu is out of bounds for %s",
		           (unsigned long long)idx->value, tname(t, buf, sizeof(buf)));
		return NULL;
	}
	e->u.index.stride = t->elem->size;
	return e->type = t->elem;
}

/* PRISM's bounded read: `e[.. n]` reads min(n, capacity) bytes of e. */
static struct ast_type *check_slice(struct check_ctx *c, struct ast_expr *e)
{
	struct ast_expr *base = e->u.slice.base, *len = e->u.slice.len;
	struct ast_type *t = check_expr(c, base, CHECK_USE_VALUE);
	struct ast_type *lt = check_expr(c, len, CHECK_USE_VALUE);
	char buf[96];

	if (!t || !lt)
		return NULL;
	t = aggregate_base(c, e, base, &e->u.slice.through_ptr);
	if (!t)
		return NULL;
	if (!is_aggregate(t) || e->place == AST_PLACE_NONE) {
		diag_error(c->d, e->loc,
		           "bounded read of %s: expected an array, a struct or a "
		           "pointer to one",
		           tname(base->type, buf, sizeof(buf)));
		return NULL;
	}
	if (!is_int(lt)) {
		diag_error(c->d, len->loc, "length of a bounded read must be an integer, not %s",
		           tname(lt, buf, sizeof(buf)));
		return NULL;
	}
	if (len->is_const && (len->value == 0 || len->value > t->size)) {
		diag_error(c->d, len->loc, "bounded read length %llu is outside 1..%llu (%s)",
		           (unsigned long long)len->value, (unsigned long long)t->size,
		           tname(t, buf, sizeof(buf)));
		return NULL;
	}
	if (!len->is_const && ast_type_order(lt) == AST_ORDER_LE) {
		diag_error(c->d, len->loc,
		           "length of a bounded read must be big-endian (it becomes a WQE byte "
		           "count), not %s",
		           tname(lt, buf, sizeof(buf)));
		return NULL;
	}
	e->u.slice.capacity = t->size;
	return e->type = byte_array(c, t->size, e->loc);
}

/* ---- Builtins ------------------------------------------------------------ */

/* The memory operand of an atomic: a place in a writable region. */
static struct ast_type *atomic_place(struct check_ctx *c, struct ast_expr *call, struct ast_expr *p)
{
	const char *fn = ast_builtin_table[call->u.call.fn].spelling;
	struct ast_type *t = check_expr(c, p, CHECK_USE_VALUE);

	if (!t)
		return NULL;
	if (p->place != AST_PLACE_MEMORY) {
		diag_error(c->d, p->loc,
		           "%s needs a memory location (a dereference, field or element of region "
		           "memory)",
		           fn);
		return NULL;
	}
	if (p->region && !p->region->writable) {
		diag_error(c->d, p->loc, "%s on read-only region '%s'", fn, p->region->name);
		check_note_region(c, p->region);
		return NULL;
	}
	return t;
}

static struct ast_type *check_cas(struct check_ctx *c, struct ast_expr *e)
{
	enum ast_builtin fn = e->u.call.fn;
	const char *name = ast_builtin_table[fn].spelling;
	struct ast_expr *p = e->u.call.args, *a;
	struct ast_type *t = atomic_place(c, e, p);
	bool ok = t != NULL;
	unsigned nops = fn == AST_BUILTIN_CAS ? 2 : 1; /* operands before the masks */
	char buf[96];
	unsigned i = 0;

	if (t && t->size != 4 && t->size != 8 && t->size != 16 && t->size != 32) {
		diag_error(c->d, p->loc, "%s operates on 4, 8, 16 or 32 bytes, not %llu (%s)", name,
		           (unsigned long long)t->size, tname(t, buf, sizeof(buf)));
		ok = false;
	}
	if (ok && fn != AST_BUILTIN_CAS && t->kind != AST_TYPE_SCALAR &&
	    e->u.call.nargs != 1 + nops + 2) {
		diag_error(c->d, p->loc,
		           "%s on %s compares numerically: give cmp_mask and swap_mask to select "
		           "the compared and swapped bytes",
		           name, tname(t, buf, sizeof(buf)));
		ok = false;
	}
	/* place, operands, then optionally both masks (never one alone) */
	if (ok && e->u.call.nargs != 1 + nops && e->u.call.nargs != 1 + nops + 2) {
		diag_error(c->d, e->u.call.name_loc,
		           "%s takes a location, %u operand%s and optionally cmp_mask and "
		           "swap_mask (%u arguments given)",
		           name, nops, nops == 1 ? "" : "s", e->u.call.nargs);
		ok = false;
	}
	for (a = p->arg_next; a; a = a->arg_next, i++) {
		if (!check_expr(c, a, CHECK_USE_VALUE) || !t || !ok)
			continue;
		if (is_aggregate(t) && a->type->kind == AST_TYPE_INT) {
			diag_error(c->d, a->loc,
			           "%s operand for %s must be %llu bytes, not a "
			           "constant",
			           name, tname(t, buf, sizeof(buf)), (unsigned long long)t->size);
			continue;
		}
		check_assignable(c, t, a, i < nops ? "cas operand" : "cas mask", false);
	}
	e->type = c->t_bool;
	return ok ? c->t_bool : NULL;
}

static struct ast_type *check_fetch_add(struct check_ctx *c, struct ast_expr *e)
{
	struct ast_expr *p = e->u.call.args, *delta = p->arg_next;
	struct ast_type *t = atomic_place(c, e, p);
	struct ast_type *dt = check_expr(c, delta, CHECK_USE_VALUE);
	char buf[96];

	if (!t || !dt)
		return NULL;
	if (t->kind != AST_TYPE_SCALAR || (t->size != 4 && t->size != 8)) {
		diag_error(c->d, p->loc, "fetch_add operates on 4- or 8-byte integers, not %s",
		           tname(t, buf, sizeof(buf)));
		return NULL;
	}
	/* 8-byte atomics add in host order, 4-byte (masked) ones big-endian */
	if (t->size == 8 && ast_type_order(t) == AST_ORDER_BE)
		diag_warning(c->d, p->loc,
		             "fetch_add on %s: the NIC adds in host (little-endian) byte order",
		             tname(t, buf, sizeof(buf)));
	if (t->size == 4 && ast_type_order(t) == AST_ORDER_LE)
		diag_warning(c->d, p->loc,
		             "fetch_add on %s: the NIC adds 4-byte operands in big-endian order",
		             tname(t, buf, sizeof(buf)));
	if (!check_assignable(c, t, delta, "fetch_add operand", false))
		return NULL;
	return e->type = t;
}

static struct ast_type *check_alloc(struct check_ctx *c, struct ast_expr *e)
{
	struct ast_expr *a = e->u.call.args;
	struct check_sym *s = NULL;
	struct ast_freelist *f;
	struct ast_type *t;

	if (a->kind != AST_EXPR_NAME || !(s = check_lookup_global(c, a->u.name.name)) ||
	    s->kind != AST_SYM_FREELIST || check_lookup_local(c, a->u.name.name)) {
		struct spell sp;
		char hint[SPELL_HINT_SIZE];

		spell_init(&sp, a->kind == AST_EXPR_NAME && !s ? a->u.name.name : NULL);
		check_spell_names(c, &sp, CHECK_SPELL_KIND(AST_SYM_FREELIST), false);
		diag_error(c->d, a->loc, "alloc() takes the name of a free list%s",
		           spell_hint(&sp, hint, sizeof(hint)));
		return NULL;
	}
	f = s->node;
	if (!f->region || !f->type || !f->type->size)
		return NULL; /* declaration already reported */
	t = ast_type_new(c->prog, AST_TYPE_PTR, e->loc);
	if (!t) {
		c->oom = true;
		return NULL;
	}
	t->scalar = AST_SCALAR_BE64;
	t->size = 8;
	t->pointee = f->type;
	t->region = f->region;
	t->region_name = f->region->name;
	a->u.name.sym = AST_SYM_FREELIST;
	a->u.name.target.freelist = f;
	a->type = t;
	e->u.call.freelist = f;
	e->region = f->region;
	return e->type = t;
}

static check_fn *const builtin_checks[AST_BUILTIN_COUNT] = {
    [AST_BUILTIN_CAS] = check_cas,     [AST_BUILTIN_CAS_GT] = check_cas,
    [AST_BUILTIN_CAS_LT] = check_cas,  [AST_BUILTIN_FETCH_ADD] = check_fetch_add,
    [AST_BUILTIN_ALLOC] = check_alloc,
};

static struct ast_type *check_call(struct check_ctx *c, struct ast_expr *e)
{
	const struct ast_builtin_info *b = &ast_builtin_table[e->u.call.fn];

	if (e->u.call.nargs < b->min_args || e->u.call.nargs > b->max_args) {
		if (b->min_args == b->max_args)
			diag_error(c->d, e->u.call.name_loc, "%s() takes %u argument%s, not %u",
			           b->spelling, b->min_args, b->min_args == 1 ? "" : "s",
			           e->u.call.nargs);
		else
			diag_error(c->d, e->u.call.name_loc,
			           "%s() takes %u to %u arguments, not %u", b->spelling,
			           b->min_args, b->max_args, e->u.call.nargs);
		for (struct ast_expr *a = e->u.call.args; a; a = a->arg_next)
			if (e->u.call.fn != AST_BUILTIN_ALLOC)
				check_expr(c, a, CHECK_USE_VALUE);
		return NULL;
	}
	return builtin_checks[e->u.call.fn](c, e);
}

/* ---- Dispatch ----------------------------------------------------------- */

/* An expression the parser already reported (e.g. an unknown operation). */
static struct ast_type *check_error_expr(struct check_ctx *c, struct ast_expr *e)
{
	(void)c;
	(void)e;
	return NULL;
}

static check_fn *const expr_checks[] = {
    [AST_EXPR_ERROR] = check_error_expr, [AST_EXPR_INT] = check_int_lit,
    [AST_EXPR_BOOL] = check_bool_lit,    [AST_EXPR_NAME] = check_name,
    [AST_EXPR_UNARY] = check_unary,      [AST_EXPR_BINARY] = check_binary,
    [AST_EXPR_DEREF] = check_deref,      [AST_EXPR_FIELD] = check_field,
    [AST_EXPR_INDEX] = check_index,      [AST_EXPR_SLICE] = check_slice,
    [AST_EXPR_CALL] = check_call,        [AST_EXPR_SIZEOF] = check_sizeof,
};

struct ast_type *check_expr(struct check_ctx *c, struct ast_expr *e, enum check_use use)
{
	struct ast_type *t;

	if (!e)
		return NULL;
	e->type = NULL;
	e->is_const = false;
	e->place = AST_PLACE_NONE;
	e->region = NULL;
	t = expr_checks[e->kind](c, e);
	e->type = t;
	if (!t)
		return NULL;
	if (e->kind == AST_EXPR_SLICE && use != CHECK_USE_COPY) {
		diag_error(c->d, e->loc,
		           "a bounded read (e[.. n]) can only be returned, assigned or stored");
		e->type = NULL;
		return NULL;
	}
	if (t->kind == AST_TYPE_PTR && !e->region)
		e->region = t->region;
	return t;
}

/* ---- Assignment compatibility ------------------------------------------- */

bool check_assignable(struct check_ctx *c, const struct ast_type *to, struct ast_expr *e,
                      const char *what, bool convert_order)
{
	const struct ast_type *from = e->type;
	char b1[96], b2[96];

	if (!from || !to)
		return true; /* already reported */
	if (from->kind == AST_TYPE_INT && to->kind == AST_TYPE_SCALAR) {
		if (check_int_fits(e->value, ast_type_width(to)))
			return true;
		diag_error(c->d, e->loc, "constant 0x%llx does not fit in %s (%s)",
		           (unsigned long long)e->value, tname(to, b1, sizeof(b1)), what);
		return false;
	}
	if (from->kind == AST_TYPE_SCALAR && to->kind == AST_TYPE_SCALAR) {
		if (from->size != to->size) {
			diag_error(c->d, e->loc, "width mismatch in %s: %s value for a %s place",
			           what, tname(from, b1, sizeof(b1)), tname(to, b2, sizeof(b2)));
			return false;
		}
		if (!convert_order && ast_type_order(from) != ast_type_order(to)) {
			diag_error(c->d, e->loc,
			           "byte order mismatch in %s: %s value for a %s place", what,
			           tname(from, b1, sizeof(b1)), tname(to, b2, sizeof(b2)));
			return false;
		}
		return true;
	}
	if (from->kind == AST_TYPE_PTR && to->kind == AST_TYPE_PTR) {
		if (from->region != to->region) {
			diag_error(c->d, e->loc,
			           "%s of a pointer into region '%s' where region '%s' is expected",
			           what, from->region ? from->region->name : "?",
			           to->region ? to->region->name : "?");
			return false;
		}
		if (check_types_equal(from->pointee, to->pointee) &&
		    (convert_order || from->scalar == to->scalar))
			return true;
	}
	if (is_aggregate(from) && is_aggregate(to)) {
		/* a bounded read fits if its capacity does; other aggregates are
		 * copied bytewise and must have the same size */
		if (e->kind == AST_EXPR_SLICE ? from->size <= to->size : from->size == to->size)
			return true;
		diag_error(c->d, e->loc, "size mismatch in %s: %s (%llu bytes) for %s (%llu bytes)",
		           what, tname(from, b1, sizeof(b1)), (unsigned long long)from->size,
		           tname(to, b2, sizeof(b2)), (unsigned long long)to->size);
		return false;
	}
	diag_error(c->d, e->loc, "type mismatch in %s: %s value for a %s place", what,
	           tname(from, b1, sizeof(b1)), tname(to, b2, sizeof(b2)));
	return false;
}
