/* SPDX-License-Identifier: MIT */
/*
 * compiler/parse.c - the parse driver and the AST builders the grammar
 * actions call.
 *
 * Owns: running the reentrant flex scanner and the pure bison parser over
 * a buffer (parse_buffer, parse_file), the bracket stack the syntax error
 * messages use, and node construction: each builder allocates from the
 * program's arena, records allocation failure in ps->oom and tolerates
 * NULL children (left by error recovery or a failed allocation).
 *
 * Must not: resolve names or types, or report semantic errors (checker);
 * the only diagnostics here are I/O-independent syntax-level ones.
 */
#include "compiler/parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/parse_state.h"
#include "compiler/spell.h"
#include "parser.h"

/* flex's reentrant API (prefix parse_yy), declared here rather than via
 * the generated header so that this file does not depend on flex's. */
typedef void *parse_yyscan_t;
struct yy_buffer_state;
int parse_yylex_init_extra(struct parse_state *extra, parse_yyscan_t *scanner);
int parse_yylex_destroy(parse_yyscan_t scanner);
struct yy_buffer_state *parse_yy_scan_bytes(const char *bytes, int len, parse_yyscan_t scanner);

struct src_loc parse_loc(int first_line, int first_col, int last_line, int last_col)
{
	struct src_loc loc = {(uint32_t)first_line, (uint32_t)first_col, 1};

	if (first_line < 0 || first_col < 0)
		return SRC_LOC_NONE;
	if (last_line == first_line && last_col > first_col)
		loc.len = (uint32_t)(last_col - first_col);
	return loc;
}

/* Track brackets so a syntax error can name the one left open.  A closer
 * pops its opener; a mismatched closer is left to the parser to report. */
void parse_lex_bracket(struct parse_state *ps, char c, struct src_loc loc)
{
	if (c == '(' || c == '[' || c == '{') {
		if (ps->nbrackets < PARSE_MAX_BRACKETS)
			ps->brackets[ps->nbrackets] = (struct parse_bracket){c, loc};
		ps->nbrackets++;
		return;
	}
	if (ps->nbrackets == 0)
		return;
	if (ps->nbrackets > PARSE_MAX_BRACKETS) {
		ps->nbrackets--;
		return;
	}
	char open = ps->brackets[ps->nbrackets - 1].open;
	if ((c == ')' && open == '(') || (c == ']' && open == '[') || (c == '}' && open == '{'))
		ps->nbrackets--;
}

/* Allocation with the sticky OOM flag. */
static void *parse_alloc(struct parse_state *ps, size_t size)
{
	void *p = ast_alloc(ps->prog, size);

	if (!p)
		ps->oom = true;
	return p;
}

char *parse_ident(struct parse_state *ps, const char *text, size_t len)
{
	char *s = ast_strndup(ps->prog, text, len);

	if (!s)
		ps->oom = true;
	return s;
}

/* ---- Declarations -------------------------------------------------------- */

static void add_decl(struct parse_state *ps, enum ast_decl_kind kind, void *node)
{
	struct ast_decl *d = parse_alloc(ps, sizeof(*d));

	if (!d || !node)
		return;
	d->kind = kind;
	switch (kind) {
	case AST_DECL_CONST:
		d->u.cnst = node;
		break;
	case AST_DECL_STRUCT:
		d->u.strct = node;
		break;
	case AST_DECL_REGION:
		d->u.region = node;
		break;
	case AST_DECL_FREELIST:
		d->u.freelist = node;
		break;
	case AST_DECL_OFFLOAD:
		d->u.offload = node;
		break;
	}
	if (ps->decl_tail)
		ps->decl_tail->next = d;
	else
		ps->prog->decls = d;
	ps->decl_tail = d;
}

/* Append `node` to a per-kind list given its head, tail and count. */
#define LIST_APPEND(head, tail, node, count)                                                       \
	do {                                                                                       \
		if (tail)                                                                          \
			(tail)->next = (node);                                                     \
		else                                                                               \
			(head) = (node);                                                           \
		(tail) = (node);                                                                   \
		(count)++;                                                                         \
	} while (0)

void parse_decl_const(struct parse_state *ps, const char *name, struct src_loc loc,
                      struct ast_expr *value)
{
	struct ast_const *c = parse_alloc(ps, sizeof(*c));

	if (!c || !name)
		return;
	*c = (struct ast_const){.name = name, .loc = loc, .expr = value};
	LIST_APPEND(ps->prog->consts, ps->const_tail, c, ps->prog->nconsts);
	add_decl(ps, AST_DECL_CONST, c);
}

/* assume = 'assume' IDENT ';' */
void parse_decl_assume(struct parse_state *ps, const char *name, struct src_loc loc)
{
	static const struct {
		const char *name;
		unsigned bit;
	} known[] = {{"fenced_enable", AST_ASSUME_FENCED_ENABLE}};

	if (!name)
		return;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(name, known[i].name)) {
			ps->prog->assumes |= known[i].bit;
			return;
		}
	struct spell sp;
	char hint[SPELL_HINT_SIZE];

	spell_init(&sp, name);
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		spell_consider(&sp, known[i].name);
	diag_error(ps->d, loc, "unknown assumption '%s' (known: fenced_enable)%s", name,
	           spell_hint(&sp, hint, sizeof(hint)));
}

void parse_decl_struct(struct parse_state *ps, const char *name, struct src_loc loc,
                       struct parse_fields fields)
{
	struct ast_struct *s = parse_alloc(ps, sizeof(*s));

	if (!s || !name)
		return;
	*s = (struct ast_struct){
	    .name = name, .loc = loc, .fields = fields.head, .nfields = fields.count};
	LIST_APPEND(ps->prog->structs, ps->struct_tail, s, ps->prog->nstructs);
	add_decl(ps, AST_DECL_STRUCT, s);
}

void parse_decl_region(struct parse_state *ps, const char *name, struct src_loc loc,
                       struct ast_type *type, struct ast_expr *size, bool writable)
{
	struct ast_region *r = parse_alloc(ps, sizeof(*r));

	if (!r || !name)
		return;
	*r = (struct ast_region){.name = name,
	                         .loc = loc,
	                         .type = type,
	                         .size_expr = size,
	                         .writable = writable,
	                         .index = ps->prog->nregions};
	LIST_APPEND(ps->prog->regions, ps->region_tail, r, ps->prog->nregions);
	add_decl(ps, AST_DECL_REGION, r);
}

void parse_decl_freelist(struct parse_state *ps, const char *name, struct src_loc loc,
                         struct ast_type *type, const char *region, struct src_loc region_loc)
{
	struct ast_freelist *f = parse_alloc(ps, sizeof(*f));

	if (!f || !name)
		return;
	*f = (struct ast_freelist){.name = name,
	                           .loc = loc,
	                           .type = type,
	                           .region_name = region,
	                           .region_loc = region_loc,
	                           .index = ps->prog->nfreelists};
	LIST_APPEND(ps->prog->freelists, ps->freelist_tail, f, ps->prog->nfreelists);
	add_decl(ps, AST_DECL_FREELIST, f);
}

void parse_decl_offload(struct parse_state *ps, const char *name, struct src_loc loc,
                        struct parse_params params, struct ast_type *ret, struct ast_stmt *body)
{
	struct ast_offload *o = parse_alloc(ps, sizeof(*o));

	if (!o || !name)
		return;
	*o = (struct ast_offload){.name = name,
	                          .loc = loc,
	                          .params = params.head,
	                          .nparams = params.count,
	                          .ret_type = ret,
	                          .body = body,
	                          .index = ps->prog->noffloads};
	LIST_APPEND(ps->prog->offloads, ps->offload_tail, o, ps->prog->noffloads);
	add_decl(ps, AST_DECL_OFFLOAD, o);
}

/* ---- Lists ------------------------------------------------------------- */

struct parse_fields parse_fields_add(struct parse_state *ps, struct parse_fields list,
                                     const char *name, struct src_loc loc, struct ast_type *type)
{
	struct ast_field *f = parse_alloc(ps, sizeof(*f));

	if (!f || !name)
		return list;
	*f = (struct ast_field){.name = name, .loc = loc, .type = type};
	LIST_APPEND(list.head, list.tail, f, list.count);
	return list;
}

struct parse_params parse_params_add(struct parse_state *ps, struct parse_params list,
                                     const char *name, struct src_loc loc, struct ast_type *type)
{
	struct ast_param *p = parse_alloc(ps, sizeof(*p));

	if (!p || !name)
		return list;
	*p = (struct ast_param){.name = name, .loc = loc, .type = type, .index = list.count};
	LIST_APPEND(list.head, list.tail, p, list.count);
	return list;
}

struct parse_stmts parse_stmts_add(struct parse_stmts list, struct ast_stmt *s)
{
	unsigned unused = 0;

	if (!s)
		return list;
	LIST_APPEND(list.head, list.tail, s, unused);
	(void)unused;
	return list;
}

struct parse_lanes parse_lanes_add(struct parse_state *ps, struct parse_lanes list,
                                   struct ast_stmt *body, struct src_loc loc)
{
	struct ast_lane *l = parse_alloc(ps, sizeof(*l));

	if (!l)
		return list;
	*l = (struct ast_lane){.loc = loc, .body = body, .index = list.count};
	LIST_APPEND(list.head, list.tail, l, list.count);
	return list;
}

struct parse_args parse_args_add(struct parse_args list, struct ast_expr *e)
{
	if (!e)
		return list;
	if (list.tail)
		list.tail->arg_next = e;
	else
		list.head = e;
	list.tail = e;
	list.count++;
	return list;
}

/* ---- Nesting depth ------------------------------------------------------- */

/* Depth given to a construct replaced for being too deep: its parents are
 * too deep as well, and are replaced without a second message. */
#define DEPTH_DROPPED (AST_MAX_DEPTH + 2u)

static uint32_t max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/* True when a node of depth `d` is too deep; the first level past the limit
 * is reported (at that node), deeper ones were already. */
static bool too_deep(struct parse_state *ps, uint32_t d, struct src_loc loc, const char *what,
                     const char *instead)
{
	if (d <= AST_MAX_DEPTH)
		return false;
	if (d == AST_MAX_DEPTH + 1)
		diag_error(ps->d, loc, "%s nested more than %u levels deep; %s", what,
		           AST_MAX_DEPTH, instead);
	return true;
}

static uint32_t expr_depth(const struct ast_expr *e)
{
	return e ? e->depth : 0;
}

/* Record e's depth (1 + its deepest operand's); a tree too deep becomes
 * an error node the checker skips. */
static struct ast_expr *nest_expr(struct parse_state *ps, struct ast_expr *e, uint32_t below)
{
	if (!e)
		return NULL;
	e->depth = below + 1;
	if (too_deep(ps, e->depth, e->loc, "expression",
	             "split it with `const` declarations or `let` temporaries")) {
		e->kind = AST_EXPR_ERROR;
		memset(&e->u, 0, sizeof(e->u));
		e->depth = DEPTH_DROPPED;
	}
	return e;
}

static struct ast_type *nest_type(struct parse_state *ps, struct ast_type *t, uint32_t below)
{
	t->depth = below + 1;
	if (too_deep(ps, t->depth, t->loc, "type", "name the inner types with `struct`")) {
		t->kind = AST_TYPE_SCALAR;
		t->scalar = AST_SCALAR_U8;
		t->elem = t->pointee = NULL;
		t->count_expr = NULL;
		t->depth = DEPTH_DROPPED;
	}
	return t;
}

/* Deepest statement of a list. */
static uint32_t list_depth(const struct ast_stmt *s)
{
	uint32_t d = 0;

	for (; s; s = s->next)
		d = max_u32(d, s->depth);
	return d;
}

/* A statement too deep becomes an empty block. */
static struct ast_stmt *nest_stmt(struct parse_state *ps, struct ast_stmt *s, uint32_t below)
{
	if (!s)
		return NULL;
	s->depth = below + 1;
	if (too_deep(ps, s->depth, s->loc, "statement",
	             "flatten the nest of blocks, `if`s and loops")) {
		s->kind = AST_STMT_BLOCK;
		memset(&s->u, 0, sizeof(s->u));
		s->depth = DEPTH_DROPPED;
	}
	return s;
}

/* ---- Types ------------------------------------------------------------- */

struct ast_type *parse_type_name(struct parse_state *ps, const char *name, struct src_loc loc)
{
	enum ast_scalar sc;
	struct ast_type *t;

	if (name && ast_scalar_lookup(name, strlen(name), &sc)) {
		t = ast_type_new(ps->prog, AST_TYPE_SCALAR, loc);
		if (t)
			t->scalar = sc;
	} else {
		t = ast_type_new(ps->prog, AST_TYPE_NAMED, loc);
		if (t)
			t->name = name;
	}
	if (!t)
		ps->oom = true;
	return t;
}

struct ast_type *parse_type_array(struct parse_state *ps, struct ast_type *elem,
                                  struct ast_expr *count, struct src_loc loc)
{
	struct ast_type *t = ast_type_new(ps->prog, AST_TYPE_ARRAY, loc);

	if (!t) {
		ps->oom = true;
		return NULL;
	}
	t->elem = elem;
	t->count_expr = count;
	return nest_type(ps, t, max_u32(elem ? elem->depth : 0, expr_depth(count)));
}

/* `[repr] '*' pointee 'in' region`: the representation defaults to be64,
 * the form a WQE address field takes directly.  A representation that is
 * not a scalar is reported by the checker (kept in t->name). */
struct ast_type *parse_type_ptr(struct parse_state *ps, const char *repr, struct src_loc repr_loc,
                                struct ast_type *pointee, const char *region,
                                struct src_loc region_loc, struct src_loc loc)
{
	struct ast_type *t = ast_type_new(ps->prog, AST_TYPE_PTR, loc);

	if (!t) {
		ps->oom = true;
		return NULL;
	}
	t->scalar = AST_SCALAR_BE64;
	if (repr) {
		enum ast_scalar sc;

		if (ast_scalar_lookup(repr, strlen(repr), &sc))
			t->scalar = sc;
		else
			diag_error(
			    ps->d, repr_loc,
			    "pointer representation '%s' is not a scalar type (e.g. be64, le64)",
			    repr);
	}
	t->pointee = pointee;
	t->region_name = region;
	t->region_loc = region_loc;
	return nest_type(ps, t, pointee ? pointee->depth : 0);
}

/* ---- Statements ---------------------------------------------------------- */

static struct ast_stmt *new_stmt(struct parse_state *ps, enum ast_stmt_kind kind,
                                 struct src_loc loc)
{
	struct ast_stmt *s = ast_stmt_new(ps->prog, kind, loc);

	if (!s)
		ps->oom = true;
	return s;
}

struct ast_stmt *parse_stmt_let(struct parse_state *ps, const char *name, struct src_loc name_loc,
                                struct ast_type *type, struct ast_expr *init, struct src_loc loc)
{
	struct ast_stmt *s = new_stmt(ps, AST_STMT_LET, loc);
	struct ast_local *l = parse_alloc(ps, sizeof(*l));

	if (!s || !l)
		return NULL;
	*l = (struct ast_local){.name = name, .loc = name_loc, .type = type, .lane = -1};
	s->u.let.local = l;
	s->u.let.init = init;
	return s;
}

struct ast_stmt *parse_stmt_assign(struct parse_state *ps, struct ast_expr *target,
                                   struct ast_expr *value, struct src_loc loc)
{
	struct ast_stmt *s = new_stmt(ps, AST_STMT_ASSIGN, loc);

	if (s) {
		s->u.assign.target = target;
		s->u.assign.value = value;
	}
	return s;
}

struct ast_stmt *parse_stmt_expr(struct parse_state *ps, struct ast_expr *e, struct src_loc loc)
{
	struct ast_stmt *s = new_stmt(ps, AST_STMT_EXPR, loc);

	if (s)
		s->u.expr.expr = e;
	return s;
}

struct ast_stmt *parse_stmt_if(struct parse_state *ps, struct ast_expr *cond,
                               struct ast_stmt *then_body, struct ast_stmt *else_body,
                               bool has_else, struct src_loc loc)
{
	struct ast_stmt *s = new_stmt(ps, AST_STMT_IF, loc);

	if (s) {
		s->u.if_.cond = cond;
		s->u.if_.then_body = then_body;
		s->u.if_.else_body = else_body;
		s->u.if_.has_else = has_else;
	}
	return nest_stmt(ps, s, max_u32(list_depth(then_body), list_depth(else_body)));
}

struct ast_stmt *parse_stmt_while(struct parse_state *ps, struct ast_expr *cond,
                                  struct ast_expr *bound, struct ast_stmt *body, struct src_loc loc)
{
	struct ast_stmt *s = new_stmt(ps, AST_STMT_WHILE, loc);

	if (s) {
		s->u.while_.cond = cond;
		s->u.while_.bound_expr = bound;
		s->u.while_.body = body;
	}
	return nest_stmt(ps, s, list_depth(body));
}

struct ast_stmt *parse_stmt_simple(struct parse_state *ps, enum ast_stmt_kind kind,
                                   struct src_loc loc)
{
	return new_stmt(ps, kind, loc);
}

struct ast_stmt *parse_stmt_return(struct parse_state *ps, struct ast_expr *value,
                                   struct src_loc loc)
{
	struct ast_stmt *s = new_stmt(ps, AST_STMT_RETURN, loc);

	if (s)
		s->u.return_.value = value;
	return s;
}

struct ast_stmt *parse_stmt_parallel(struct parse_state *ps, struct parse_lanes lanes,
                                     struct src_loc loc)
{
	struct ast_stmt *s = new_stmt(ps, AST_STMT_PARALLEL, loc);

	uint32_t below = 0;

	for (const struct ast_lane *l = lanes.head; l; l = l->next)
		below = max_u32(below, list_depth(l->body));
	if (s) {
		s->u.parallel.lanes = lanes.head;
		s->u.parallel.nlanes = lanes.count;
	}
	return nest_stmt(ps, s, below);
}

struct ast_stmt *parse_stmt_block(struct parse_state *ps, struct ast_stmt *body, struct src_loc loc)
{
	struct ast_stmt *s = new_stmt(ps, AST_STMT_BLOCK, loc);

	if (s)
		s->u.block.body = body;
	return nest_stmt(ps, s, list_depth(body));
}

/* ---- Expressions --------------------------------------------------------- */

static struct ast_expr *new_expr(struct parse_state *ps, enum ast_expr_kind kind,
                                 struct src_loc loc)
{
	struct ast_expr *e = ast_expr_new(ps->prog, kind, loc);

	if (!e)
		ps->oom = true;
	return e;
}

struct ast_expr *parse_expr_int(struct parse_state *ps, uint64_t v, struct src_loc loc)
{
	struct ast_expr *e = new_expr(ps, AST_EXPR_INT, loc);

	if (e)
		e->u.int_value = v;
	return e;
}

struct ast_expr *parse_expr_bool(struct parse_state *ps, bool v, struct src_loc loc)
{
	struct ast_expr *e = new_expr(ps, AST_EXPR_BOOL, loc);

	if (e)
		e->u.bool_value = v;
	return e;
}

struct ast_expr *parse_expr_name(struct parse_state *ps, const char *name, struct src_loc loc)
{
	struct ast_expr *e = new_expr(ps, AST_EXPR_NAME, loc);

	if (e)
		e->u.name.name = name;
	return e;
}

struct ast_expr *parse_expr_unary(struct parse_state *ps, enum ast_unop op,
                                  struct ast_expr *operand, struct src_loc loc)
{
	struct ast_expr *e = new_expr(ps, AST_EXPR_UNARY, loc);

	if (e) {
		e->u.unary.op = op;
		e->u.unary.operand = operand;
	}
	return nest_expr(ps, e, expr_depth(operand));
}

/* A binary expression spans both operands; its operator location is kept
 * for messages about the operator itself. */
struct ast_expr *parse_expr_binary(struct parse_state *ps, struct src_loc loc, enum ast_binop op,
                                   struct ast_expr *lhs, struct ast_expr *rhs,
                                   struct src_loc op_loc)
{
	struct ast_expr *e = new_expr(ps, AST_EXPR_BINARY, loc);

	if (e) {
		e->u.binary.op = op;
		e->u.binary.lhs = lhs;
		e->u.binary.rhs = rhs;
		e->u.binary.op_loc = op_loc;
	}
	return nest_expr(ps, e, max_u32(expr_depth(lhs), expr_depth(rhs)));
}

struct ast_expr *parse_expr_deref(struct parse_state *ps, struct ast_expr *ptr, struct src_loc loc)
{
	struct ast_expr *e = new_expr(ps, AST_EXPR_DEREF, loc);

	if (e)
		e->u.deref.ptr = ptr;
	return nest_expr(ps, e, expr_depth(ptr));
}

struct ast_expr *parse_expr_field(struct parse_state *ps, struct ast_expr *base, const char *name,
                                  struct src_loc name_loc, struct src_loc loc)
{
	struct ast_expr *e = new_expr(ps, AST_EXPR_FIELD, loc);

	if (e) {
		e->u.field.base = base;
		e->u.field.name = name;
		e->u.field.name_loc = name_loc;
	}
	return nest_expr(ps, e, expr_depth(base));
}

struct ast_expr *parse_expr_index(struct parse_state *ps, struct ast_expr *base,
                                  struct ast_expr *index, struct src_loc loc)
{
	struct ast_expr *e = new_expr(ps, AST_EXPR_INDEX, loc);

	if (e) {
		e->u.index.base = base;
		e->u.index.index = index;
	}
	return nest_expr(ps, e, max_u32(expr_depth(base), expr_depth(index)));
}

struct ast_expr *parse_expr_slice(struct parse_state *ps, struct ast_expr *base,
                                  struct ast_expr *len, struct src_loc loc)
{
	struct ast_expr *e = new_expr(ps, AST_EXPR_SLICE, loc);

	if (e) {
		e->u.slice.base = base;
		e->u.slice.len = len;
	}
	return nest_expr(ps, e, max_u32(expr_depth(base), expr_depth(len)));
}

/* Calls name a builtin; an unknown name is a syntax-level error here so
 * the checker only ever sees valid builtins. */
struct ast_expr *parse_expr_call(struct parse_state *ps, const char *name, struct src_loc name_loc,
                                 struct parse_args args, struct src_loc loc)
{
	struct ast_expr *e;
	unsigned fn;

	if (!name)
		return NULL;
	for (fn = 0; fn < AST_BUILTIN_COUNT; fn++)
		if (strcmp(ast_builtin_table[fn].spelling, name) == 0)
			break;
	if (fn == AST_BUILTIN_COUNT) {
		/* A misspelled keyword that takes a '(' reads as a call too. */
		static const char *const paren_keywords[] = {"if", "while", "sizeof", NULL};
		struct spell sp;
		char hint[SPELL_HINT_SIZE];

		spell_init(&sp, name);
		for (fn = 0; fn < AST_BUILTIN_COUNT; fn++)
			spell_consider(&sp, ast_builtin_table[fn].spelling);
		spell_consider_all(&sp, paren_keywords);
		diag_error(ps->d, name_loc,
		           "unknown operation '%s' (expected cas, cas_gt, cas_lt, fetch_add or "
		           "alloc)%s",
		           name, spell_hint(&sp, hint, sizeof(hint)));
		/* keep parsing; the checker skips it silently */
		return new_expr(ps, AST_EXPR_ERROR, loc);
	}
	e = new_expr(ps, AST_EXPR_CALL, loc);
	if (e) {
		e->u.call.fn = (enum ast_builtin)fn;
		e->u.call.name_loc = name_loc;
		e->u.call.args = args.head;
		e->u.call.nargs = args.count;
	}
	uint32_t below = 0;

	for (const struct ast_expr *a = args.head; a; a = a->arg_next)
		below = max_u32(below, a->depth);
	return nest_expr(ps, e, below);
}

struct ast_expr *parse_expr_sizeof(struct parse_state *ps, struct ast_type *type,
                                   struct src_loc loc)
{
	struct ast_expr *e = new_expr(ps, AST_EXPR_SIZEOF, loc);

	if (e)
		e->u.size_of.type = type;
	return nest_expr(ps, e, type ? type->depth : 0);
}

/* ---- Driver ------------------------------------------------------------ */

struct ast_program *parse_buffer(struct diag_ctx *d, const char *file, const char *src, size_t len)
{
	struct parse_state ps = {.d = d, .line = 1, .col = 1};
	parse_yyscan_t scanner = NULL;

	diag_set_source(d, file, src, len);
	if (len > (size_t)INT32_MAX) {
		diag_error(d, SRC_LOC_NONE, "input is too large (%zu bytes)", len);
		len = 0;
	}
	ps.prog = ast_program_new(file);
	if (!ps.prog)
		return NULL;
	if (parse_yylex_init_extra(&ps, &scanner) != 0) {
		ast_program_free(ps.prog);
		return NULL;
	}
	ps.scanner = scanner;
	if (!parse_yy_scan_bytes(src ? src : "", (int)len, scanner)) {
		parse_yylex_destroy(scanner);
		ast_program_free(ps.prog);
		return NULL;
	}
	parse_run(&ps, scanner);
	parse_yylex_destroy(scanner);
	if (ps.oom) {
		ast_program_free(ps.prog);
		return NULL;
	}
	return ps.prog;
}

struct ast_program *parse_file(struct diag_ctx *d, const char *path, char **src_out, int *io_error)
{
	bool is_stdin = strcmp(path, "-") == 0;
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;

	*src_out = NULL;
	*io_error = 0;
	if (!f) {
		*io_error = errno;
		return NULL;
	}
	for (;;) {
		if (cap - len < 4096) {
			size_t ncap = cap ? cap * 2 : 16384;
			char *nbuf = realloc(buf, ncap);

			if (!nbuf) {
				*io_error = ENOMEM;
				goto fail;
			}
			buf = nbuf;
			cap = ncap;
		}
		size_t n = fread(buf + len, 1, cap - len - 1, f);

		len += n;
		if (n == 0) {
			if (ferror(f)) {
				*io_error = errno ? errno : EIO;
				goto fail;
			}
			break;
		}
	}
	if (!is_stdin)
		fclose(f);
	buf[len] = '\0';
	struct ast_program *prog = parse_buffer(d, is_stdin ? "<stdin>" : path, buf, len);
	if (!prog) {
		free(buf);
		*io_error = ENOMEM;
		return NULL;
	}
	*src_out = buf;
	return prog;
fail:
	if (!is_stdin)
		fclose(f);
	free(buf);
	return NULL;
}
