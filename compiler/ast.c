/* SPDX-License-Identifier: MIT */
/*
 * compiler/ast.c - AST arena, node constructors and small type helpers.
 *
 * Owns: the memory of a parsed program (a chain of arena blocks, freed at
 * once), the scalar/builtin/operator name tables, and type printing.
 *
 * Must not: check or transform programs.
 */
#include "compiler/ast.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct ast_scalar_info ast_scalar_table[AST_SCALAR_COUNT] = {
#define AST_X_INFO(id, spelling, bytes, order) [AST_SCALAR_##id] = {spelling, bytes, order},
    AST_SCALARS(AST_X_INFO)
#undef AST_X_INFO
};

const struct ast_builtin_info ast_builtin_table[AST_BUILTIN_COUNT] = {
#define AST_X_INFO(id, spelling, min, max) [AST_BUILTIN_##id] = {spelling, min, max},
    AST_BUILTINS(AST_X_INFO)
#undef AST_X_INFO
};

const char *const ast_binop_spelling[AST_BINOP_COUNT] = {
#define AST_X_INFO(id, spelling) [AST_BINOP_##id] = spelling,
    AST_BINOPS(AST_X_INFO)
#undef AST_X_INFO
};

const char *const ast_unop_spelling[AST_UNOP_COUNT] = {
    [AST_UNOP_NEG] = "-",
    [AST_UNOP_NOT] = "!",
    [AST_UNOP_BITNOT] = "~",
};

bool ast_scalar_lookup(const char *name, size_t len, enum ast_scalar *out)
{
	for (unsigned i = 0; i < AST_SCALAR_COUNT; i++) {
		const char *s = ast_scalar_table[i].spelling;

		if (strlen(s) == len && memcmp(s, name, len) == 0) {
			*out = (enum ast_scalar)i;
			return true;
		}
	}
	return false;
}

/* ---- Arena: blocks of at least 16 KiB, bump allocation ---------------- */

struct ast_arena_block {
	struct ast_arena_block *prev;
	size_t used, size;
	max_align_t data[];
};

struct ast_arena {
	struct ast_arena_block *top;
};

#define AST_ARENA_BLOCK (16u * 1024u)

void *ast_alloc(struct ast_program *prog, size_t size)
{
	struct ast_arena *a = prog->arena;
	struct ast_arena_block *b = a->top;
	size_t align = sizeof(max_align_t);

	size = (size + align - 1) & ~(align - 1);
	if (!b || b->size - b->used < size) {
		size_t bytes = size > AST_ARENA_BLOCK ? size : AST_ARENA_BLOCK;

		b = malloc(sizeof(*b) + bytes);
		if (!b)
			return NULL;
		b->prev = a->top;
		b->used = 0;
		b->size = bytes;
		a->top = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += size;
	memset(p, 0, size);
	return p;
}

char *ast_strndup(struct ast_program *prog, const char *s, size_t len)
{
	char *p = ast_alloc(prog, len + 1);

	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

struct ast_program *ast_program_new(const char *file)
{
	struct ast_program *prog = calloc(1, sizeof(*prog));

	if (!prog)
		return NULL;
	prog->arena = calloc(1, sizeof(*prog->arena));
	if (!prog->arena) {
		free(prog);
		return NULL;
	}
	if (file) {
		prog->file = ast_strndup(prog, file, strlen(file));
		if (!prog->file) {
			ast_program_free(prog);
			return NULL;
		}
	}
	return prog;
}

void ast_program_free(struct ast_program *prog)
{
	if (!prog)
		return;
	if (prog->arena) {
		struct ast_arena_block *b = prog->arena->top;

		while (b) {
			struct ast_arena_block *prev = b->prev;

			free(b);
			b = prev;
		}
		free(prog->arena);
	}
	free(prog);
}

struct ast_expr *ast_expr_new(struct ast_program *prog, enum ast_expr_kind kind, struct src_loc loc)
{
	struct ast_expr *e = ast_alloc(prog, sizeof(*e));

	if (e) {
		e->kind = kind;
		e->loc = loc;
	}
	return e;
}

struct ast_stmt *ast_stmt_new(struct ast_program *prog, enum ast_stmt_kind kind, struct src_loc loc)
{
	struct ast_stmt *s = ast_alloc(prog, sizeof(*s));

	if (s) {
		s->kind = kind;
		s->loc = loc;
	}
	return s;
}

struct ast_type *ast_type_new(struct ast_program *prog, enum ast_type_kind kind, struct src_loc loc)
{
	struct ast_type *t = ast_alloc(prog, sizeof(*t));

	if (t) {
		t->kind = kind;
		t->loc = loc;
	}
	return t;
}

struct ast_offload *ast_find_offload(const struct ast_program *prog, const char *name)
{
	for (struct ast_offload *o = prog->offloads; o; o = o->next)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

struct ast_region *ast_find_region(const struct ast_program *prog, const char *name)
{
	for (struct ast_region *r = prog->regions; r; r = r->next)
		if (strcmp(r->name, name) == 0)
			return r;
	return NULL;
}

enum ast_order ast_type_order(const struct ast_type *t)
{
	if (t && (t->kind == AST_TYPE_SCALAR || t->kind == AST_TYPE_PTR))
		return ast_scalar_table[t->scalar].order;
	return AST_ORDER_NONE;
}

unsigned ast_type_width(const struct ast_type *t)
{
	if (t && (t->kind == AST_TYPE_SCALAR || t->kind == AST_TYPE_PTR))
		return ast_scalar_table[t->scalar].bytes;
	return 0;
}

/* Append to buf at *pos, never past size (output is truncated, always
 * NUL-terminated). */
static void put(char *buf, size_t size, size_t *pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t size, size_t *pos, const char *fmt, ...)
{
	va_list ap;

	if (*pos >= size)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *pos, size - *pos, fmt, ap);
	va_end(ap);
	if (n > 0)
		*pos += (size_t)n;
}

static void type_str(const struct ast_type *t, char *buf, size_t size, size_t *pos, int depth)
{
	if (!t) {
		put(buf, size, pos, "?");
		return;
	}
	if (depth > 8) {
		put(buf, size, pos, "...");
		return;
	}
	switch (t->kind) {
	case AST_TYPE_VOID:
		put(buf, size, pos, "void");
		break;
	case AST_TYPE_BOOL:
		put(buf, size, pos, "bool");
		break;
	case AST_TYPE_INT:
		put(buf, size, pos, "integer constant");
		break;
	case AST_TYPE_SCALAR:
		put(buf, size, pos, "%s", ast_scalar_table[t->scalar].spelling);
		break;
	case AST_TYPE_ARRAY:
		type_str(t->elem, buf, size, pos, depth + 1);
		if (t->count_expr && !t->count)
			put(buf, size, pos, "[...]");
		else
			put(buf, size, pos, "[%llu]", (unsigned long long)t->count);
		break;
	case AST_TYPE_STRUCT:
		put(buf, size, pos, "%s", t->strct ? t->strct->name : "?");
		break;
	case AST_TYPE_NAMED:
		put(buf, size, pos, "%s", t->name ? t->name : "?");
		break;
	case AST_TYPE_PTR:
		if (t->scalar != AST_SCALAR_BE64)
			put(buf, size, pos, "%s ", ast_scalar_table[t->scalar].spelling);
		put(buf, size, pos, "*");
		type_str(t->pointee, buf, size, pos, depth + 1);
		if (t->region_name)
			put(buf, size, pos, " in %s", t->region_name);
		break;
	}
}

const char *ast_type_str(const struct ast_type *t, char *buf, size_t size)
{
	size_t pos = 0;

	if (!size)
		return buf;
	buf[0] = '\0';
	type_str(t, buf, size, &pos, 0);
	return buf;
}
