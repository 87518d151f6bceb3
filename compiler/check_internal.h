/* SPDX-License-Identifier: MIT */
/*
 * compiler/check_internal.h - state shared by the checker's files.
 *
 * Owns: struct check_ctx (global symbol table, block scopes, the loop and
 * parallel-lane context of the statement being checked) and the helpers
 * the declaration/statement checker (check.c), the expression checker
 * (check_expr.c) and the taint pass (check_taint.c) share.
 *
 * Must not: be included outside the checker.
 */
#ifndef PRISMC_CHECK_INTERNAL_H
#define PRISMC_CHECK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/ast.h"
#include "compiler/diag.h"

/* Largest `while` bound: an unrolled loop costs WQEs per iteration. */
#define CHECK_MAX_LOOP_BOUND 4096u
/* Most parameters: taint is a 64-bit set, one bit per parameter. */
#define CHECK_MAX_PARAMS 64u

/* A global name (const, struct, region, free list, offload). */
struct check_sym {
	const char *name;
	enum ast_sym_kind kind;
	void *node;
	struct src_loc loc;
};

/* A name visible in the current block: a parameter or a local. */
struct check_scope_ent {
	const char *name;
	enum ast_sym_kind kind; /* PARAM or LOCAL; NONE marks a block start */
	void *node;
};

/* Which `parallel` lane last assigned a local declared outside it. */
struct check_lane_write {
	unsigned par_id; /* 0: none */
	unsigned lane;
	struct src_loc loc;
};

struct check_loop {
	struct ast_stmt *stmt;
	unsigned par_depth; /* parallel nesting when the loop was entered */
};

struct check_ctx {
	struct diag_ctx *d;
	struct ast_program *prog;

	/* Globals: open addressing, power-of-two capacity. */
	struct check_sym *syms;
	size_t nsyms, cap;
	/* Types: separate namespace (structs). */
	struct check_sym *types;
	size_t ntypes, tcap;

	/* Block scopes of the offload being checked. */
	struct check_scope_ent *scope;
	size_t nscope, scope_cap;

	struct ast_offload *off;
	struct ast_local *locals_tail;
	struct check_loop loops[64];
	unsigned nloops;    /* depth (may exceed 64: deeper untracked) */
	unsigned par_depth; /* >0 inside a parallel lane */
	unsigned par_id;    /* id of the innermost parallel (1-based) */
	unsigned lane;      /* lane index inside it */
	unsigned npar;
	struct check_lane_write *lane_writes; /* by local index */
	size_t lane_writes_cap;
	bool oom;
	/* Constants being folded and structs being laid out, one inside the
	 * other (bounded like the parser's nesting: both recurse). */
	unsigned def_depth;

	/* Shared types. */
	struct ast_type *t_bool, *t_int, *t_void, *t_u8;
};

/* check.c */
struct spell;
/* Offer to @s the names a misspelled one may have meant: every local and
 * parameter in scope and every global of one of the @kinds (a bit per
 * enum ast_sym_kind; see CHECK_SPELL_KIND); the struct names and scalar
 * types for check_spell_types. */
#define CHECK_SPELL_KIND(k) (1u << (k))
void check_spell_names(struct check_ctx *c, struct spell *s, unsigned kinds, bool locals);
void check_spell_types(struct check_ctx *c, struct spell *s);
struct check_sym *check_lookup_global(struct check_ctx *c, const char *name);
struct check_scope_ent *check_lookup_local(struct check_ctx *c, const char *name);
struct check_sym *check_lookup_type(struct check_ctx *c, const char *name);
bool check_resolve_type(struct check_ctx *c, struct ast_type *t, bool need_size);
bool check_const_value(struct check_ctx *c, struct ast_expr *e, uint64_t *out);
bool check_types_equal(const struct ast_type *a, const struct ast_type *b);
const char *check_type_name(const struct ast_type *t, char *buf, size_t size);
void check_note_region(struct check_ctx *c, const struct ast_region *r);

/* check_expr.c */
enum check_use {
	CHECK_USE_VALUE, /* an ordinary operand */
	CHECK_USE_COPY,  /* value of a let/assignment/return: a slice is allowed */
	CHECK_USE_STMT,  /* expression statement: the result may be dropped */
};
struct ast_type *check_expr(struct check_ctx *c, struct ast_expr *e, enum check_use use);
/* Can a value `e` (already checked) be stored into a place of type `to`?
 * Reports an error mentioning `what` ("assignment", "return", ...) and
 * returns false if not.  `convert_order`: same-width scalars of another
 * byte order are accepted (the lowering swaps bytes). */
bool check_assignable(struct check_ctx *c, const struct ast_type *to, struct ast_expr *e,
                      const char *what, bool convert_order);
bool check_int_fits(uint64_t v, unsigned width);
/* Fold a `const` declaration (once; cycles are reported). */
bool check_fold_const(struct check_ctx *c, struct ast_const *k);

/* check_taint.c: fixpoint of taint over the offload's locals; fills
 * expr->taint and expr->addr_tainted everywhere in the body. */
void check_taint_offload(struct ast_offload *o);

#endif /* PRISMC_CHECK_INTERNAL_H */
