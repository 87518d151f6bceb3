/* SPDX-License-Identifier: MIT */
/*
 * compiler/check.c - the checker: declarations, types and statements.
 *
 * Owns: the global symbol table (duplicate names), constant folding of
 * `const`s (with cycle detection), struct layout (packed, field offsets,
 * recursion by value rejected), region and free-list declarations,
 * parameter layout in the client's payload, block scopes and `let`
 * temporaries (scratch layout), `while` bounds, `break` placement,
 * `parallel` lanes (no nesting, no local written by two lanes), returns
 * (one result type per offload).  Expressions are in check_expr.c, taint
 * in check_taint.c.
 *
 * Must not: lower or know about WQEs.  Every error is reported once, at the
 * construct that is wrong; later uses of a broken value stay silent.
 */
#include "compiler/check.h"
#include "chain/chainobj.h"
#include "util/array.h"

#include <stdlib.h>
#include <string.h>

#include "compiler/check_internal.h"
#include "compiler/spell.h"

/* ---- Global symbols ------------------------------------------------------ */

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* Find `name` in an open-addressing table; returns its slot (empty or
 * matching). */
static struct check_sym *table_slot(struct check_sym *tab, size_t cap, const char *name)
{
	size_t i = (size_t)name_hash(name) & (cap - 1);

	while (tab[i].name && strcmp(tab[i].name, name) != 0)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static bool table_grow(struct check_sym **tab, size_t *cap, size_t n)
{
	if ((n + 1) * 2 <= *cap)
		return true;
	size_t ncap = *cap ? *cap * 2 : 64;
	struct check_sym *nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return false;
	for (size_t i = 0; i < *cap; i++)
		if ((*tab)[i].name)
			*table_slot(nt, ncap, (*tab)[i].name) = (*tab)[i];
	free(*tab);
	*tab = nt;
	*cap = ncap;
	return true;
}

static const char *const sym_kind_names[] = {
    [AST_SYM_NONE] = "name",       [AST_SYM_CONST] = "constant",     [AST_SYM_REGION] = "region",
    [AST_SYM_STRUCT] = "struct",   [AST_SYM_FREELIST] = "free list", [AST_SYM_OFFLOAD] = "offload",
    [AST_SYM_PARAM] = "parameter", [AST_SYM_LOCAL] = "variable",
};

/* Add a global; a duplicate is reported with a note at the first one. */
static void define(struct check_ctx *c, bool is_type, const char *name, enum ast_sym_kind kind,
                   void *node, struct src_loc loc)
{
	struct check_sym **tab = is_type ? &c->types : &c->syms;
	size_t *cap = is_type ? &c->tcap : &c->cap;
	size_t *n = is_type ? &c->ntypes : &c->nsyms;

	if (!table_grow(tab, cap, *n)) {
		c->oom = true;
		return;
	}
	struct check_sym *s = table_slot(*tab, *cap, name);
	if (s->name) {
		diag_error(c->d, loc, "redefinition of '%s'", name);
		diag_note(c->d, s->loc, "previous definition of %s '%s' is here",
		          sym_kind_names[s->kind], name);
		return;
	}
	*s = (struct check_sym){name, kind, node, loc};
	(*n)++;
}

struct check_sym *check_lookup_global(struct check_ctx *c, const char *name)
{
	struct check_sym *s;

	if (!c->cap)
		return NULL;
	s = table_slot(c->syms, c->cap, name);
	return s->name ? s : NULL;
}

struct check_sym *check_lookup_type(struct check_ctx *c, const char *name)
{
	struct check_sym *s;

	if (!c->tcap)
		return NULL;
	s = table_slot(c->types, c->tcap, name);
	return s->name ? s : NULL;
}

/* ---- Block scopes ------------------------------------------------------- */

static void scope_push(struct check_ctx *c, const char *name, enum ast_sym_kind kind, void *node)
{
	if (!ARRAY_RESERVE(c->scope, c->scope_cap, c->nscope + 1)) {
		c->oom = true;
		return;
	}
	c->scope[c->nscope++] = (struct check_scope_ent){name, kind, node};
}

static size_t scope_open(struct check_ctx *c)
{
	return c->nscope;
}

static void scope_close(struct check_ctx *c, size_t mark)
{
	c->nscope = mark;
}

struct check_scope_ent *check_lookup_local(struct check_ctx *c, const char *name)
{
	for (size_t i = c->nscope; i-- > 0;)
		if (strcmp(c->scope[i].name, name) == 0)
			return &c->scope[i];
	return NULL;
}

/* ---- Suggestions for misspelled names ---------------------------------- */

void check_spell_names(struct check_ctx *c, struct spell *s, unsigned kinds, bool locals)
{
	/* innermost first, so that a tie goes to the nearest declaration */
	for (size_t i = locals ? c->nscope : 0; i-- > 0;)
		if (c->scope[i].kind != AST_SYM_NONE)
			spell_consider(s, c->scope[i].name);
	for (size_t i = 0; i < c->cap; i++)
		if (c->syms[i].name && (kinds & CHECK_SPELL_KIND(c->syms[i].kind)))
			spell_consider(s, c->syms[i].name);
}

void check_spell_types(struct check_ctx *c, struct spell *s)
{
	for (unsigned i = 0; i < AST_SCALAR_COUNT; i++)
		spell_consider(s, ast_scalar_table[i].spelling);
	for (size_t i = 0; i < c->tcap; i++)
		if (c->types[i].name)
			spell_consider(s, c->types[i].name);
}

/* "unknown region 'X'", with the closest region's name when there is one. */
static void unknown_region(struct check_ctx *c, struct src_loc loc, const char *name)
{
	struct spell s;
	char hint[SPELL_HINT_SIZE];

	spell_init(&s, name);
	check_spell_names(c, &s, CHECK_SPELL_KIND(AST_SYM_REGION), false);
	diag_error(c->d, loc, "unknown region '%s'%s", name, spell_hint(&s, hint, sizeof(hint)));
}

/* ---- Types ------------------------------------------------------------- */

const char *check_type_name(const struct ast_type *t, char *buf, size_t size)
{
	return ast_type_str(t, buf, size);
}

bool check_types_equal(const struct ast_type *a, const struct ast_type *b)
{
	if (a == b)
		return true;
	if (!a || !b || a->kind != b->kind)
		return false;
	switch (a->kind) {
	case AST_TYPE_SCALAR:
		return a->scalar == b->scalar;
	case AST_TYPE_ARRAY:
		return a->count == b->count && check_types_equal(a->elem, b->elem);
	case AST_TYPE_STRUCT:
		return a->strct == b->strct;
	case AST_TYPE_PTR:
		return a->scalar == b->scalar && a->region == b->region &&
		       check_types_equal(a->pointee, b->pointee);
	default:
		return true;
	}
}

void check_note_region(struct check_ctx *c, const struct ast_region *r)
{
	if (r)
		diag_note(c->d, r->loc, "region '%s' is declared %s here", r->name,
		          r->writable ? "writable" : "readonly");
}

static bool layout_struct(struct check_ctx *c, struct ast_struct *s);

/* "unknown type 'X'", with the closest type's name when there is one. */
static void unknown_type(struct check_ctx *c, const struct ast_type *t)
{
	struct spell s;
	char hint[SPELL_HINT_SIZE];

	spell_init(&s, t->name);
	check_spell_types(c, &s);
	diag_error(c->d, t->loc, "unknown type '%s'%s", t->name,
	           spell_hint(&s, hint, sizeof(hint)));
}

/* Resolve a type as written: struct names, region names, array counts,
 * sizes.  `need_size`: the type is stored by value here (a pointer's
 * pointee is not, so `next: *node in nodes` inside node is fine). */
bool check_resolve_type(struct check_ctx *c, struct ast_type *t, bool need_size)
{
	char buf[128];

	if (!t)
		return false;
	switch (t->kind) {
	case AST_TYPE_SCALAR:
		t->size = ast_scalar_table[t->scalar].bytes;
		return true;
	case AST_TYPE_NAMED: {
		struct check_sym *s = check_lookup_type(c, t->name);

		if (!s) {
			struct check_sym *g = check_lookup_global(c, t->name);

			if (g)
				diag_error(c->d, t->loc, "'%s' is a %s, not a type", t->name,
				           sym_kind_names[g->kind]);
			else
				unknown_type(c, t);
			return false;
		}
		t->kind = AST_TYPE_STRUCT;
		t->strct = s->node;
	}
		/* fall through */
	case AST_TYPE_STRUCT:
		if (!need_size)
			return true;
		if (!layout_struct(c, t->strct))
			return false;
		t->size = t->strct->size;
		return true;
	case AST_TYPE_ARRAY: {
		uint64_t n;

		if (!check_resolve_type(c, t->elem, true))
			return false;
		if (t->count_expr && !t->count) {
			if (!check_const_value(c, t->count_expr, &n))
				return false;
			if (n == 0) {
				diag_error(c->d, t->count_expr->loc,
				           "array length must be positive");
				return false;
			}
			t->count = n;
		}
		if (t->elem->size && t->count > UINT64_MAX / t->elem->size) {
			diag_error(c->d, t->loc, "array type %s is too large",
			           ast_type_str(t, buf, sizeof(buf)));
			return false;
		}
		t->size = t->elem->size * t->count;
		return true;
	}
	case AST_TYPE_PTR: {
		struct check_sym *r;
		bool ok = true;

		t->size = 8;
		if (ast_scalar_table[t->scalar].bytes != 8) {
			diag_error(c->d, t->loc,
			           "a pointer is stored in 8 bytes: write be64 or le64, not %s",
			           ast_scalar_table[t->scalar].spelling);
			ok = false;
		}
		if (!t->region) {
			r = t->region_name ? check_lookup_global(c, t->region_name) : NULL;
			if (!r || r->kind != AST_SYM_REGION) {
				if (r)
					diag_error(c->d, t->region_loc,
					           "'%s' is a %s, not a region", t->region_name,
					           sym_kind_names[r->kind]);
				else
					unknown_region(c, t->region_loc,
					               t->region_name ? t->region_name : "?");
				return false;
			}
			t->region = r->node;
		}
		if (!check_resolve_type(c, t->pointee, false))
			return false;
		return ok;
	}
	case AST_TYPE_VOID:
	case AST_TYPE_BOOL:
	case AST_TYPE_INT:
		return true;
	}
	return false;
}

/* Packed layout, fields in declaration order: the program describes the
 * server's existing memory, so there is no implicit padding. */
static bool layout_struct(struct check_ctx *c, struct ast_struct *s)
{
	uint64_t off = 0;
	bool ok = true;

	if (s->laid_out)
		return s->size != 0 || s->nfields == 0;
	if (s->laying_out) {
		diag_error(c->d, s->loc, "struct '%s' contains itself (use a pointer)", s->name);
		return false;
	}
	if (c->def_depth == AST_MAX_DEPTH) {
		diag_error(c->d, s->loc,
		           "struct '%s' holds structs by value more than %u levels deep; "
		           "use a pointer for some of them",
		           s->name, AST_MAX_DEPTH);
		s->laid_out = true;
		s->size = 0;
		return false;
	}
	s->laying_out = true;
	c->def_depth++;
	for (struct ast_field *f = s->fields; f; f = f->next) {
		for (struct ast_field *g = s->fields; g != f; g = g->next) {
			if (strcmp(g->name, f->name) == 0) {
				diag_error(c->d, f->loc, "duplicate field '%s' in struct '%s'",
				           f->name, s->name);
				diag_note(c->d, g->loc, "previous field '%s' is here", g->name);
				break;
			}
		}
		if (!check_resolve_type(c, f->type, true)) {
			ok = false;
			continue;
		}
		f->offset = off;
		if (off > UINT64_MAX - f->type->size) {
			diag_error(c->d, f->loc, "struct '%s' is too large", s->name);
			ok = false;
			break;
		}
		off += f->type->size;
	}
	if (ok && s->nfields == 0)
		diag_error(c->d, s->loc, "struct '%s' has no fields", s->name);
	c->def_depth--;
	s->laying_out = false;
	s->laid_out = true;
	s->size = ok ? off : 0;
	return ok && off > 0;
}

/* ---- Constants --------------------------------------------------------- */

bool check_const_value(struct check_ctx *c, struct ast_expr *e, uint64_t *out)
{
	struct ast_type *t = check_expr(c, e, CHECK_USE_VALUE);

	if (!t)
		return false;
	if (!e->is_const || (t->kind != AST_TYPE_INT && t->kind != AST_TYPE_SCALAR)) {
		diag_error(c->d, e->loc, "expected a constant integer expression");
		return false;
	}
	*out = e->value;
	return true;
}

/* ---- Declarations -------------------------------------------------------- */

static void check_region(struct check_ctx *c, struct ast_region *r)
{
	if (r->type) {
		if (check_resolve_type(c, r->type, true))
			r->size = r->type->size;
	} else if (r->size_expr) {
		uint64_t n;

		if (check_const_value(c, r->size_expr, &n)) {
			if (n == 0)
				diag_error(c->d, r->size_expr->loc, "region '%s' has size 0",
				           r->name);
			r->size = n;
		}
	}
	/* the chain object records a region's size, and takes at most 1 TiB */
	if (r->size > CHAINOBJ_MAX_REGION_SIZE)
		diag_error(c->d, r->size_expr ? r->size_expr->loc : r->loc,
		           "region '%s' is %llu bytes; a region holds at most 1 TiB", r->name,
		           (unsigned long long)r->size);
}

static void check_freelist(struct check_ctx *c, struct ast_freelist *f)
{
	struct check_sym *r = check_lookup_global(c, f->region_name);

	if (!r || r->kind != AST_SYM_REGION) {
		if (r)
			diag_error(c->d, f->region_loc, "'%s' is a %s, not a region",
			           f->region_name, sym_kind_names[r->kind]);
		else
			unknown_region(c, f->region_loc, f->region_name);
	} else {
		f->region = r->node;
		if (!f->region->writable) {
			diag_error(c->d, f->region_loc,
			           "free list '%s' allocates from read-only region '%s'", f->name,
			           f->region_name);
			check_note_region(c, f->region);
		}
	}
	if (!check_resolve_type(c, f->type, true))
		return;
	if (f->region && f->region->size && f->type->size > f->region->size)
		diag_error(c->d, f->loc,
		           "buffers of free list '%s' (%llu bytes) do not fit in region '%s' "
		           "(%llu bytes)",
		           f->name, (unsigned long long)f->type->size, f->region_name,
		           (unsigned long long)f->region->size);
}

/* ---- Statements ---------------------------------------------------------- */

static void check_block(struct check_ctx *c, struct ast_stmt *body);

static struct ast_local *new_local(struct check_ctx *c, struct ast_local *l)
{
	struct ast_offload *o = c->off;

	l->index = o->nlocals++;
	l->lane = c->par_depth ? (int)c->lane : -1;
	if (c->locals_tail)
		c->locals_tail->next = l;
	else
		o->locals = l;
	c->locals_tail = l;
	if (!ARRAY_RESERVE(c->lane_writes, c->lane_writes_cap, (size_t)l->index + 1)) {
		c->oom = true;
		return l;
	}
	return l;
}

/* Scratch bytes a local takes: its type, or 8 for a bool (a CAS result). */
static uint64_t local_bytes(const struct ast_local *l)
{
	if (!l->type || l->type->kind == AST_TYPE_BOOL)
		return 8;
	return l->type->size ? l->type->size : 8;
}

static void check_let(struct check_ctx *c, struct ast_stmt *s)
{
	struct ast_local *l = s->u.let.local;
	struct ast_type *init_t = NULL;
	bool ok = true;

	if (l->type)
		ok = check_resolve_type(c, l->type, true);
	if (s->u.let.init)
		init_t = check_expr(c, s->u.let.init, CHECK_USE_COPY);
	if (!l->type && init_t) {
		if (init_t->kind == AST_TYPE_INT) {
			diag_error(c->d, l->loc,
			           "cannot infer the type of '%s' from an integer constant; "
			           "write 'let %s: be64 = ...'",
			           l->name, l->name);
			ok = false;
		} else if (init_t->kind == AST_TYPE_VOID) {
			diag_error(c->d, s->u.let.init->loc, "expression has no value");
			ok = false;
		} else {
			l->type = init_t;
		}
	} else if (l->type && ok && init_t) {
		check_assignable(c, l->type, s->u.let.init, "initialization", true);
	}
	if (!l->type)
		l->type = NULL; /* broken: uses stay silent */
	/* Same-block duplicates are errors; shadowing a parameter too, since
	 * a parameter is the client's value and silently hiding it is a trap. */
	bool same_block = true;
	for (size_t i = c->nscope; i-- > 0;) {
		struct check_scope_ent *e = &c->scope[i];

		if (e->kind == AST_SYM_NONE) {
			same_block = false;
			continue;
		}
		if (strcmp(e->name, l->name) != 0 || (!same_block && e->kind != AST_SYM_PARAM))
			continue;
		if (e->kind == AST_SYM_PARAM) {
			diag_error(c->d, l->loc, "'%s' hides parameter '%s'", l->name, l->name);
			diag_note(c->d, ((struct ast_param *)e->node)->loc,
			          "parameter '%s' is declared here", l->name);
		} else {
			diag_error(c->d, l->loc, "redefinition of '%s'", l->name);
			diag_note(c->d, ((struct ast_local *)e->node)->loc,
			          "previous definition of '%s' is here", l->name);
		}
		break;
	}
	new_local(c, l);
	l->offset = c->off->scratch_size;
	c->off->scratch_size += (local_bytes(l) + 7) & ~(uint64_t)7;
	scope_push(c, l->name, AST_SYM_LOCAL, l);
}

/* Root of a place expression (the name its address derives from). */
static struct ast_expr *place_root(struct ast_expr *e)
{
	while (e) {
		switch (e->kind) {
		case AST_EXPR_FIELD:
			if (e->u.field.through_ptr)
				return NULL;
			e = e->u.field.base;
			break;
		case AST_EXPR_INDEX:
			if (e->u.index.through_ptr)
				return NULL;
			e = e->u.index.base;
			break;
		default:
			return e->kind == AST_EXPR_NAME ? e : NULL;
		}
	}
	return NULL;
}

/* A local written by two lanes of the same `parallel` races: the lanes run
 * on different queues with no order between them. */
static void note_lane_write(struct check_ctx *c, struct ast_local *l, struct src_loc loc)
{
	struct check_lane_write *w;

	if (!c->par_depth || !l || l->index >= c->lane_writes_cap)
		return;
	if (l->lane >= 0 && (unsigned)l->lane == c->lane)
		return; /* the lane's own temporary */
	w = &c->lane_writes[l->index];
	if (w->par_id == c->par_id && w->lane != c->lane) {
		diag_error(c->d, loc, "'%s' is assigned in lanes %u and %u of the same 'parallel'",
		           l->name, w->lane + 1, c->lane + 1);
		diag_note(c->d, w->loc, "lane %u assigns it here", w->lane + 1);
		return;
	}
	*w = (struct check_lane_write){c->par_id, c->lane, loc};
}

static void check_assign(struct check_ctx *c, struct ast_stmt *s)
{
	struct ast_expr *target = s->u.assign.target;
	struct ast_type *tt = check_expr(c, target, CHECK_USE_VALUE);
	struct ast_type *vt = check_expr(c, s->u.assign.value, CHECK_USE_COPY);
	struct ast_expr *root;

	if (!tt)
		return;
	switch (target->place) {
	case AST_PLACE_NONE:
		diag_error(c->d, target->loc, "cannot assign to this expression");
		return;
	case AST_PLACE_PARAM:
		root = place_root(target);
		diag_error(c->d, target->loc,
		           "cannot assign to parameter '%s' (parameters are "
		           "the client's read-only arguments)",
		           root ? root->u.name.name : "?");
		return;
	case AST_PLACE_MEMORY:
		if (target->region && !target->region->writable) {
			diag_error(c->d, target->loc, "store to read-only region '%s'",
			           target->region->name);
			check_note_region(c, target->region);
			return;
		}
		break;
	case AST_PLACE_LOCAL:
		root = place_root(target);
		if (root)
			note_lane_write(c, root->u.name.target.local, target->loc);
		break;
	}
	if (vt)
		check_assignable(c, tt, s->u.assign.value, "assignment", true);
}

static void check_cond(struct check_ctx *c, struct ast_expr *cond, const char *what)
{
	struct ast_type *t = check_expr(c, cond, CHECK_USE_VALUE);
	char buf[96];

	if (!t)
		return;
	if (t->kind != AST_TYPE_BOOL) {
		diag_error(c->d, cond->loc,
		           "%s condition must be a comparison or a boolean, not %s", what,
		           check_type_name(t, buf, sizeof(buf)));
		return;
	}
	if (cond->is_const)
		diag_warning(c->d, cond->loc, "%s condition is always %s", what,
		             cond->value ? "true" : "false");
}

static void check_while(struct check_ctx *c, struct ast_stmt *s)
{
	uint64_t bound = 0;

	check_cond(c, s->u.while_.cond, "loop");
	if (!s->u.while_.bound_expr) {
		diag_error(
		    c->d, s->loc,
		    "'while' needs an iteration bound: write 'while (cond) bound N { ... }'");
	} else if (check_const_value(c, s->u.while_.bound_expr, &bound)) {
		if (bound == 0)
			diag_error(c->d, s->u.while_.bound_expr->loc,
			           "loop bound must be at least 1");
		else if (bound > CHECK_MAX_LOOP_BOUND)
			diag_error(c->d, s->u.while_.bound_expr->loc,
			           "loop bound %llu exceeds the maximum of %u",
			           (unsigned long long)bound, CHECK_MAX_LOOP_BOUND);
		else
			s->u.while_.bound = bound;
	}
	s->u.while_.loop_id = c->off->nloops++;
	if (c->nloops < sizeof(c->loops) / sizeof(c->loops[0]))
		c->loops[c->nloops] = (struct check_loop){s, c->par_depth};
	c->nloops++;
	check_block(c, s->u.while_.body);
	c->nloops--;
}

static void check_break(struct check_ctx *c, struct ast_stmt *s)
{
	struct check_loop *l;

	if (c->nloops == 0) {
		diag_error(c->d, s->loc, "'break' outside a loop");
		return;
	}
	if (c->nloops > sizeof(c->loops) / sizeof(c->loops[0])) {
		diag_error(c->d, s->loc, "loops are nested too deeply");
		return;
	}
	l = &c->loops[c->nloops - 1];
	if (l->par_depth != c->par_depth) {
		diag_error(c->d, s->loc, "'break' cannot leave a 'parallel' lane");
		return;
	}
	s->u.break_.loop = l->stmt;
}

static void check_return(struct check_ctx *c, struct ast_stmt *s)
{
	struct ast_offload *o = c->off;
	struct ast_expr *v = s->u.return_.value;
	struct ast_type *t;
	char buf[96];

	if (!v) {
		if (o->ret_type && o->ret_type->kind != AST_TYPE_VOID)
			diag_error(c->d, s->loc, "'return' needs a value: offload '%s' returns %s",
			           o->name, check_type_name(o->ret_type, buf, sizeof(buf)));
		return;
	}
	t = check_expr(c, v, CHECK_USE_COPY);
	if (!t)
		return;
	if (t->kind == AST_TYPE_BOOL || t->kind == AST_TYPE_VOID || t->kind == AST_TYPE_INT) {
		if (t->kind == AST_TYPE_INT && o->ret_type) {
			check_assignable(c, o->ret_type, v, "return", false);
			return;
		}
		diag_error(c->d, v->loc,
		           "cannot return %s: return memory, a parameter or a temporary "
		           "(bytes for the client)",
		           check_type_name(t, buf, sizeof(buf)));
		return;
	}
	if (!o->ret_type) {
		o->ret_type = t; /* inferred from the first return */
		return;
	}
	if (o->ret_type->kind == AST_TYPE_VOID) {
		diag_error(c->d, v->loc, "offload '%s' returns no value", o->name);
		return;
	}
	check_assignable(c, o->ret_type, v, "return", true);
}

static void check_parallel(struct check_ctx *c, struct ast_stmt *s)
{
	unsigned saved_id = c->par_id, saved_lane = c->lane;

	if (c->par_depth) {
		diag_error(c->d, s->loc, "nested 'parallel' is not supported");
		return;
	}
	c->par_id = ++c->npar;
	c->par_depth++;
	for (struct ast_lane *l = s->u.parallel.lanes; l; l = l->next) {
		c->lane = l->index;
		check_block(c, l->body);
	}
	c->par_depth--;
	c->par_id = saved_id;
	c->lane = saved_lane;
}

static void check_stmt(struct check_ctx *c, struct ast_stmt *s)
{
	char buf[96];

	switch (s->kind) {
	case AST_STMT_LET:
		check_let(c, s);
		break;
	case AST_STMT_ASSIGN:
		check_assign(c, s);
		break;
	case AST_STMT_EXPR: {
		struct ast_type *t = check_expr(c, s->u.expr.expr, CHECK_USE_STMT);

		if (t && s->u.expr.expr->kind != AST_EXPR_CALL)
			diag_warning(c->d, s->u.expr.expr->loc, "expression result (%s) is unused",
			             check_type_name(t, buf, sizeof(buf)));
		break;
	}
	case AST_STMT_IF:
		check_cond(c, s->u.if_.cond, "'if'");
		check_block(c, s->u.if_.then_body);
		if (s->u.if_.else_body)
			check_block(c, s->u.if_.else_body);
		break;
	case AST_STMT_WHILE:
		check_while(c, s);
		break;
	case AST_STMT_BREAK:
		check_break(c, s);
		break;
	case AST_STMT_RETURN:
		check_return(c, s);
		break;
	case AST_STMT_PARALLEL:
		check_parallel(c, s);
		break;
	case AST_STMT_BLOCK:
		check_block(c, s->u.block.body);
		break;
	}
}

/* A block is a scope: its lets end with it. */
static void check_block(struct check_ctx *c, struct ast_stmt *body)
{
	size_t mark = scope_open(c);

	scope_push(c, "", AST_SYM_NONE, NULL);
	for (struct ast_stmt *s = body; s; s = s->next)
		check_stmt(c, s);
	scope_close(c, mark);
}

static void check_offload(struct check_ctx *c, struct ast_offload *o)
{
	uint64_t off = 0;
	char buf[96];

	c->off = o;
	c->locals_tail = NULL;
	c->nscope = 0;
	c->nloops = 0;
	c->par_depth = 0;
	c->npar = 0;
	if (c->lane_writes)
		memset(c->lane_writes, 0, c->lane_writes_cap * sizeof(*c->lane_writes));
	scope_push(c, "", AST_SYM_NONE, NULL);
	if (o->nparams > CHECK_MAX_PARAMS)
		diag_error(c->d, o->loc, "offload '%s' has %u parameters (at most %u)", o->name,
		           o->nparams, CHECK_MAX_PARAMS);
	for (struct ast_param *p = o->params; p; p = p->next) {
		for (struct ast_param *q = o->params; q != p; q = q->next) {
			if (strcmp(q->name, p->name) == 0) {
				diag_error(c->d, p->loc, "duplicate parameter '%s'", p->name);
				diag_note(c->d, q->loc, "previous parameter '%s' is here", q->name);
				break;
			}
		}
		if (check_resolve_type(c, p->type, true)) {
			p->offset = off;
			off += p->type->size;
		} else {
			p->type = NULL;
		}
		scope_push(c, p->name, AST_SYM_PARAM, p);
	}
	o->args_size = off;
	if (o->ret_type && !check_resolve_type(c, o->ret_type, true))
		o->ret_type = NULL;
	else if (o->ret_type && (o->ret_type->kind == AST_TYPE_PTR))
		diag_warning(c->d, o->ret_type->loc,
		             "offload '%s' returns a server address (%s) to the client", o->name,
		             check_type_name(o->ret_type, buf, sizeof(buf)));
	check_block(c, o->body);
	check_taint_offload(o);
	c->off = NULL;
}

/* ---- Program ----------------------------------------------------------- */

static void define_globals(struct check_ctx *c)
{
	struct ast_program *p = c->prog;
	unsigned regions = 0; /* a free list is a region of its own */

	for (struct ast_decl *d = p->decls; d; d = d->next) {
		if ((d->kind == AST_DECL_REGION || d->kind == AST_DECL_FREELIST) &&
		    ++regions == CHAINOBJ_MAX_REGIONS + 1)
			diag_error(c->d,
			           d->kind == AST_DECL_REGION ? d->u.region->loc
			                                      : d->u.freelist->loc,
			           "more than %u regions and free lists (a chain object holds at "
			           "most %u)",
			           CHAINOBJ_MAX_REGIONS, CHAINOBJ_MAX_REGIONS);
		switch (d->kind) {
		case AST_DECL_CONST:
			define(c, false, d->u.cnst->name, AST_SYM_CONST, d->u.cnst, d->u.cnst->loc);
			break;
		case AST_DECL_STRUCT:
			define(c, true, d->u.strct->name, AST_SYM_STRUCT, d->u.strct,
			       d->u.strct->loc);
			break;
		case AST_DECL_REGION:
			define(c, false, d->u.region->name, AST_SYM_REGION, d->u.region,
			       d->u.region->loc);
			break;
		case AST_DECL_FREELIST:
			define(c, false, d->u.freelist->name, AST_SYM_FREELIST, d->u.freelist,
			       d->u.freelist->loc);
			break;
		case AST_DECL_OFFLOAD:
			define(c, false, d->u.offload->name, AST_SYM_OFFLOAD, d->u.offload,
			       d->u.offload->loc);
			break;
		}
	}
}

unsigned check_program(struct diag_ctx *d, struct ast_program *prog)
{
	struct check_ctx c = {.d = d, .prog = prog};
	unsigned errors_before = diag_error_count(d);
	struct src_loc none = SRC_LOC_NONE;

	c.t_bool = ast_type_new(prog, AST_TYPE_BOOL, none);
	c.t_int = ast_type_new(prog, AST_TYPE_INT, none);
	c.t_void = ast_type_new(prog, AST_TYPE_VOID, none);
	c.t_u8 = ast_type_new(prog, AST_TYPE_SCALAR, none);
	if (!c.t_bool || !c.t_int || !c.t_void || !c.t_u8) {
		diag_error(d, none, "out of memory");
		return diag_error_count(d) - errors_before;
	}
	c.t_u8->scalar = AST_SCALAR_U8;
	c.t_u8->size = 1;

	define_globals(&c);
	for (struct ast_decl *dl = prog->decls; dl; dl = dl->next) {
		switch (dl->kind) {
		case AST_DECL_CONST:
			check_fold_const(&c, dl->u.cnst);
			break;
		case AST_DECL_STRUCT: {
			struct ast_struct *s = dl->u.strct;

			if (!s->laid_out)
				layout_struct(&c, s);
			break;
		}
		case AST_DECL_REGION:
			check_region(&c, dl->u.region);
			break;
		case AST_DECL_FREELIST:
			check_freelist(&c, dl->u.freelist);
			break;
		case AST_DECL_OFFLOAD:
			break;
		}
	}
	/* Offloads last: every declaration they use is resolved by now. */
	for (struct ast_offload *o = prog->offloads; o; o = o->next)
		check_offload(&c, o);
	if (prog->noffloads == 0 && diag_error_count(d) == 0)
		diag_warning(d, none, "program declares no offload");
	if (c.oom)
		diag_error(d, none, "out of memory");
	free(c.syms);
	free(c.types);
	free(c.scope);
	free(c.lane_writes);
	unsigned errors = diag_error_count(d) - errors_before;
	prog->checked = errors == 0;
	return errors;
}
