/* SPDX-License-Identifier: MIT */
/*
 * compiler/parse_state.h - state shared by the lexer, the grammar actions
 * and the parse driver (internal to the parser; not used by other stages).
 *
 * Owns: struct parse_state (no globals: flex is reentrant and bison pure,
 * both reach it through their extra/param arguments), the open-bracket
 * stack behind "expected ')' (to close '(' at line 4)", and the AST
 * builder helpers the grammar actions call (compiler/parse.c).
 *
 * Must not: be included outside compiler/parse.c, lexer.l and parser.y.
 */
#ifndef PRISMC_PARSE_STATE_H
#define PRISMC_PARSE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/ast.h"
#include "compiler/diag.h"

#define PARSE_MAX_BRACKETS 256

struct parse_bracket {
	char open; /* '(', '[' or '{' */
	struct src_loc loc;
};

/* Lists built left-recursively by the grammar: head and tail. */
struct parse_stmts {
	struct ast_stmt *head, *tail;
};
struct parse_fields {
	struct ast_field *head, *tail;
	unsigned count;
};
struct parse_params {
	struct ast_param *head, *tail;
	unsigned count;
};
struct parse_lanes {
	struct ast_lane *head, *tail;
	unsigned count;
};
struct parse_args {
	struct ast_expr *head, *tail;
	unsigned count;
};

struct parse_state {
	struct diag_ctx *d;
	struct ast_program *prog;
	void *scanner; /* yyscan_t */
	bool oom;      /* an allocation failed: the parse result is dropped */

	/* Lexer position (1-based) and the end of the previous token, where
	 * "expected ';'" points when the next token is on a later line. */
	uint32_t line, col;
	struct src_loc prev_end;
	struct src_loc tok_loc; /* the token the lexer returned last */
	const char *tok_text;   /* its text (valid until the next token) */
	size_t tok_len;
	int tok_kind; /* 0 = end of input */
	/* The token before it (for "did you mean" on a misspelled keyword
	 * that was read as an identifier); its text is not NUL-terminated. */
	int prev_kind;
	const char *prev_text;
	size_t prev_len;

	/* Open brackets not yet closed, innermost last. */
	struct parse_bracket brackets[PARSE_MAX_BRACKETS];
	unsigned nbrackets; /* may exceed PARSE_MAX_BRACKETS: deeper ones untracked */

	/* Tails of the program's lists. */
	struct ast_decl *decl_tail;
	struct ast_const *const_tail;
	struct ast_struct *struct_tail;
	struct ast_region *region_tail;
	struct ast_freelist *freelist_tail;
	struct ast_offload *offload_tail;
};

/* Lexer side (compiler/lexer.l). */
void parse_lex_bracket(struct parse_state *ps, char c, struct src_loc loc);

/* Location of a token from bison's (first/last line/column) pair. */
struct src_loc parse_loc(int first_line, int first_col, int last_line, int last_col);

/* ---- Builders called by grammar actions (compiler/parse.c) ----
 * Each returns NULL only when an allocation failed (ps->oom is set). */
char *parse_ident(struct parse_state *ps, const char *text, size_t len);

void parse_decl_const(struct parse_state *ps, const char *name, struct src_loc loc,
                      struct ast_expr *value);
void parse_decl_struct(struct parse_state *ps, const char *name, struct src_loc loc,
                       struct parse_fields fields);
void parse_decl_region(struct parse_state *ps, const char *name, struct src_loc loc,
                       struct ast_type *type, struct ast_expr *size, bool writable);
void parse_decl_freelist(struct parse_state *ps, const char *name, struct src_loc loc,
                         struct ast_type *type, const char *region, struct src_loc region_loc);
/* `assume NAME;`: the program relies on unconfirmed NIC behaviour NAME. */
void parse_decl_assume(struct parse_state *ps, const char *name, struct src_loc loc);
void parse_decl_offload(struct parse_state *ps, const char *name, struct src_loc loc,
                        struct parse_params params, struct ast_type *ret, struct ast_stmt *body);

struct parse_fields parse_fields_add(struct parse_state *ps, struct parse_fields list,
                                     const char *name, struct src_loc loc, struct ast_type *type);
struct parse_params parse_params_add(struct parse_state *ps, struct parse_params list,
                                     const char *name, struct src_loc loc, struct ast_type *type);
struct parse_stmts parse_stmts_add(struct parse_stmts list, struct ast_stmt *s);
struct parse_lanes parse_lanes_add(struct parse_state *ps, struct parse_lanes list,
                                   struct ast_stmt *body, struct src_loc loc);
struct parse_args parse_args_add(struct parse_args list, struct ast_expr *e);

struct ast_type *parse_type_name(struct parse_state *ps, const char *name, struct src_loc loc);
struct ast_type *parse_type_array(struct parse_state *ps, struct ast_type *elem,
                                  struct ast_expr *count, struct src_loc loc);
struct ast_type *parse_type_ptr(struct parse_state *ps, const char *repr, struct src_loc repr_loc,
                                struct ast_type *pointee, const char *region,
                                struct src_loc region_loc, struct src_loc loc);

struct ast_stmt *parse_stmt_let(struct parse_state *ps, const char *name, struct src_loc name_loc,
                                struct ast_type *type, struct ast_expr *init, struct src_loc loc);
struct ast_stmt *parse_stmt_assign(struct parse_state *ps, struct ast_expr *target,
                                   struct ast_expr *value, struct src_loc loc);
struct ast_stmt *parse_stmt_expr(struct parse_state *ps, struct ast_expr *e, struct src_loc loc);
struct ast_stmt *parse_stmt_if(struct parse_state *ps, struct ast_expr *cond,
                               struct ast_stmt *then_body, struct ast_stmt *else_body,
                               bool has_else, struct src_loc loc);
struct ast_stmt *parse_stmt_while(struct parse_state *ps, struct ast_expr *cond,
                                  struct ast_expr *bound, struct ast_stmt *body,
                                  struct src_loc loc);
struct ast_stmt *parse_stmt_simple(struct parse_state *ps, enum ast_stmt_kind kind,
                                   struct src_loc loc);
struct ast_stmt *parse_stmt_return(struct parse_state *ps, struct ast_expr *value,
                                   struct src_loc loc);
struct ast_stmt *parse_stmt_parallel(struct parse_state *ps, struct parse_lanes lanes,
                                     struct src_loc loc);
struct ast_stmt *parse_stmt_block(struct parse_state *ps, struct ast_stmt *body,
                                  struct src_loc loc);

struct ast_expr *parse_expr_int(struct parse_state *ps, uint64_t v, struct src_loc loc);
struct ast_expr *parse_expr_bool(struct parse_state *ps, bool v, struct src_loc loc);
struct ast_expr *parse_expr_name(struct parse_state *ps, const char *name, struct src_loc loc);
struct ast_expr *parse_expr_unary(struct parse_state *ps, enum ast_unop op,
                                  struct ast_expr *operand, struct src_loc loc);
struct ast_expr *parse_expr_binary(struct parse_state *ps, struct src_loc loc, enum ast_binop op,
                                   struct ast_expr *lhs, struct ast_expr *rhs,
                                   struct src_loc op_loc);
struct ast_expr *parse_expr_deref(struct parse_state *ps, struct ast_expr *ptr, struct src_loc loc);
struct ast_expr *parse_expr_field(struct parse_state *ps, struct ast_expr *base, const char *name,
                                  struct src_loc name_loc, struct src_loc loc);
struct ast_expr *parse_expr_index(struct parse_state *ps, struct ast_expr *base,
                                  struct ast_expr *index, struct src_loc loc);
struct ast_expr *parse_expr_slice(struct parse_state *ps, struct ast_expr *base,
                                  struct ast_expr *len, struct src_loc loc);
struct ast_expr *parse_expr_call(struct parse_state *ps, const char *name, struct src_loc name_loc,
                                 struct parse_args args, struct src_loc loc);
struct ast_expr *parse_expr_sizeof(struct parse_state *ps, struct ast_type *type,
                                   struct src_loc loc);

#endif /* PRISMC_PARSE_STATE_H */
