/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/test_fe_parse.c - lexer and parser: literals and size
 * suffixes, comments, locations, precedence, statement shapes, types as
 * written, and robustness (NUL bytes, deep nesting, empty input).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compiler/parse.h"

static struct ast_program *parse(const char *src, struct diag_ctx *d)
{
	diag_init(d, "t.prism", src, strlen(src));
	return parse_buffer(d, "t.prism", src, strlen(src));
}

/* Parse `const X = <expr>;` and return the expression. */
static struct ast_expr *const_expr(const char *src, struct diag_ctx *d, struct ast_program **p)
{
	*p = parse(src, d);
	assert_non_null(*p);
	assert_int_equal(d->errors, 0);
	assert_non_null((*p)->consts);
	return (*p)->consts->expr;
}

static void test_integer_literals(void **state)
{
	static const struct {
		const char *src;
		uint64_t value;
	} cases[] = {
	    {"const X = 0;", 0},
	    {"const X = 4096;", 4096},
	    {"const X = 0x1f;", 0x1f},
	    {"const X = 0XFF;", 0xff},
	    {"const X = 0b1010;", 10},
	    {"const X = 1_000_000;", 1000000},
	    {"const X = 0xffff_ffff_ffff_ffff;", UINT64_MAX},
	    {"const X = 4 KiB;", 4096},
	    {"const X = 4KiB;", 4096},
	    {"const X = 1 MiB;", 1u << 20},
	    {"const X = 2 GiB;", 2ull << 30},
	    {"const X = 3 TiB;", 3ull << 40},
	    {"const X = 0x10 KiB;", 16384},
	    /* the short units prismd's configuration spells too (util/size.h) */
	    {"const X = 1M;", 1u << 20},
	    {"const X = 1 M;", 1u << 20},
	    {"const X = 4K;", 4096},
	    {"const X = 2 G;", 2ull << 30},
	    {"const X = 1T;", 1ull << 40},
	    {"const X = 0x100000;", 1u << 20},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct diag_ctx d;
		struct ast_program *p;
		struct ast_expr *e = const_expr(cases[i].src, &d, &p);

		assert_int_equal(e->kind, AST_EXPR_INT);
		assert_true(e->u.int_value == cases[i].value);
		ast_program_free(p);
		diag_fini(&d);
	}
}

static void test_comments_and_locations(void **state)
{
	struct diag_ctx d;
	struct ast_program *p = parse("// line comment\n"
	                              "/* block\n   comment */ const A = 1; /* x */\n"
	                              "\tconst   BEE = 2;",
	                              &d);

	(void)state;
	assert_int_equal(d.errors, 0);
	assert_int_equal(p->nconsts, 2);
	assert_int_equal(p->consts->loc.line, 3);
	assert_int_equal(p->consts->loc.col, 21);
	assert_int_equal(p->consts->loc.len, 1);
	assert_string_equal(p->consts->next->name, "BEE");
	assert_int_equal(p->consts->next->loc.line, 4);
	assert_int_equal(p->consts->next->loc.col, 10);
	assert_int_equal(p->consts->next->loc.len, 3);
	ast_program_free(p);
	diag_fini(&d);
}

/* 1 + 2 * 3 == 7 && 4 < 5 || false  ->  ((1 + (2*3)) == 7 && (4 < 5)) || false */
static void test_precedence(void **state)
{
	struct diag_ctx d;
	struct ast_program *p;
	struct ast_expr *e = const_expr("const X = 1 + 2 * 3 == 7 && 4 < 5 || false;", &d, &p);

	(void)state;
	assert_int_equal(e->kind, AST_EXPR_BINARY);
	assert_int_equal(e->u.binary.op, AST_BINOP_LOR);
	struct ast_expr *land = e->u.binary.lhs;
	assert_int_equal(land->u.binary.op, AST_BINOP_LAND);
	struct ast_expr *eq = land->u.binary.lhs;
	assert_int_equal(eq->u.binary.op, AST_BINOP_EQ);
	struct ast_expr *add = eq->u.binary.lhs;
	assert_int_equal(add->u.binary.op, AST_BINOP_ADD);
	assert_int_equal(add->u.binary.rhs->u.binary.op, AST_BINOP_MUL);
	assert_int_equal(land->u.binary.rhs->u.binary.op, AST_BINOP_LT);
	/* the binary node spans its operands; op_loc is the operator */
	assert_int_equal(add->loc.col, 11);
	assert_int_equal(add->loc.len, 9);
	assert_int_equal(add->u.binary.op_loc.col, 13);
	ast_program_free(p);
	diag_fini(&d);
}

static void test_left_associative_and_unary(void **state)
{
	struct diag_ctx d;
	struct ast_program *p;
	struct ast_expr *e = const_expr("const X = 10 - 3 - -2;", &d, &p);

	(void)state;
	/* (10 - 3) - (-2) */
	assert_int_equal(e->u.binary.op, AST_BINOP_SUB);
	assert_int_equal(e->u.binary.lhs->kind, AST_EXPR_BINARY);
	assert_int_equal(e->u.binary.rhs->kind, AST_EXPR_UNARY);
	assert_int_equal(e->u.binary.rhs->u.unary.op, AST_UNOP_NEG);
	ast_program_free(p);
	diag_fini(&d);
}

static const char shapes[] = "struct n { k: be64; next: le64 *n in r; v: u8[4][2]; }\n"
                             "region r: n[8] writable;\n"
                             "region s size 1 MiB readonly;\n"
                             "freelist fl: u8[64] in r;\n"
                             "offload f(a: be64, b: *n in r,) -> u8[4] {\n"
                             "  let x = b.next;\n"
                             "  let y: be64;\n"
                             "  x.k = a;\n"
                             "  if (a == 1) { } else if (a == 2) { } else { break; }\n"
                             "  while (x.k != a) bound 4 { x = x.next; }\n"
                             "  parallel { return b.v[0]; } || { } || { return *b[.. 3]; }\n"
                             "  cas(b.k, 1, 2);\n"
                             "  { return; }\n"
                             "}\n";

static void test_declaration_shapes(void **state)
{
	struct diag_ctx d;
	struct ast_program *p = parse(shapes, &d);

	(void)state;
	assert_int_equal(d.errors, 0);
	assert_int_equal(p->nstructs, 1);
	assert_int_equal(p->nregions, 2);
	assert_int_equal(p->nfreelists, 1);
	assert_int_equal(p->noffloads, 1);

	struct ast_field *next = p->structs->fields->next;
	assert_int_equal(next->type->kind, AST_TYPE_PTR);
	assert_int_equal(next->type->scalar, AST_SCALAR_LE64);
	assert_string_equal(next->type->region_name, "r");
	struct ast_type *v = next->next->type; /* u8[4][2]: array of 2 u8[4] */
	assert_int_equal(v->kind, AST_TYPE_ARRAY);
	assert_int_equal(v->elem->kind, AST_TYPE_ARRAY);
	assert_int_equal(v->elem->elem->scalar, AST_SCALAR_U8);

	assert_true(p->regions->writable);
	assert_non_null(p->regions->type);
	assert_false(p->regions->next->writable);
	assert_non_null(p->regions->next->size_expr);
	assert_string_equal(p->freelists->region_name, "r");

	/* declarations in source order */
	static const enum ast_decl_kind order[] = {
	    AST_DECL_STRUCT, AST_DECL_REGION, AST_DECL_REGION, AST_DECL_FREELIST, AST_DECL_OFFLOAD};
	struct ast_decl *dl = p->decls;
	for (size_t i = 0; i < 5; i++, dl = dl->next)
		assert_int_equal(dl->kind, order[i]);
	assert_null(dl);
	ast_program_free(p);
	diag_fini(&d);
}

static void test_statement_shapes(void **state)
{
	struct diag_ctx d;
	struct ast_program *p = parse(shapes, &d);
	static const enum ast_stmt_kind kinds[] = {
	    AST_STMT_LET,   AST_STMT_LET,      AST_STMT_ASSIGN, AST_STMT_IF,
	    AST_STMT_WHILE, AST_STMT_PARALLEL, AST_STMT_EXPR,   AST_STMT_BLOCK,
	};
	struct ast_offload *o;
	struct ast_stmt *s;

	(void)state;
	o = p->offloads;
	assert_int_equal(o->nparams, 2);
	assert_non_null(o->ret_type);
	s = o->body;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++, s = s->next) {
		assert_non_null(s);
		assert_int_equal(s->kind, kinds[i]);
	}
	assert_null(s);

	s = o->body->next; /* let y: be64; */
	assert_null(s->u.let.init);
	assert_int_equal(s->u.let.local->type->scalar, AST_SCALAR_BE64);

	/* if / else if / else: else_body is one IF whose else_body is one BLOCK */
	s = o->body->next->next->next;
	assert_true(s->u.if_.has_else);
	assert_int_equal(s->u.if_.else_body->kind, AST_STMT_IF);
	assert_int_equal(s->u.if_.else_body->u.if_.else_body->kind, AST_STMT_BLOCK);
	assert_int_equal(s->u.if_.else_body->u.if_.else_body->u.block.body->kind, AST_STMT_BREAK);

	s = s->next; /* while */
	assert_non_null(s->u.while_.bound_expr);
	assert_int_equal(s->u.while_.bound_expr->u.int_value, 4);

	s = s->next; /* parallel with three lanes, the middle one empty */
	assert_int_equal(s->u.parallel.nlanes, 3);
	assert_null(s->u.parallel.lanes->next->body);
	struct ast_expr *ret = s->u.parallel.lanes->next->next->body->u.return_.value;
	assert_int_equal(ret->kind, AST_EXPR_DEREF);
	assert_int_equal(ret->u.deref.ptr->kind, AST_EXPR_SLICE); /* *(b[.. 3]) */

	s = s->next; /* cas(b.k, 1, 2) */
	assert_int_equal(s->u.expr.expr->kind, AST_EXPR_CALL);
	assert_int_equal(s->u.expr.expr->u.call.fn, AST_BUILTIN_CAS);
	assert_int_equal(s->u.expr.expr->u.call.nargs, 3);
	assert_int_equal(s->u.expr.expr->u.call.args->kind, AST_EXPR_FIELD);
	ast_program_free(p);
	diag_fini(&d);
}

/* Error recovery: every broken statement is reported, the rest parsed. */
static void test_recovery_keeps_going(void **state)
{
	struct diag_ctx d;
	struct ast_program *p = parse("offload a(k: be64) { let = ; return k; }\n"
	                              "offload b(k: be64) { if (k == ) { } return k; }\n"
	                              "offload c(k: be64) { return k }\n"
	                              "offload d(k: be64) { return k; }\n",
	                              &d);

	(void)state;
	assert_non_null(p);
	assert_int_equal(d.errors, 3);
	assert_non_null(ast_find_offload(p, "a"));
	assert_non_null(ast_find_offload(p, "d"));
	ast_program_free(p);
	diag_fini(&d);
}

static void test_robust_inputs(void **state)
{
	static const char nul[] = "const A = 1;\0const B = 2;";
	struct diag_ctx d;
	struct ast_program *p;

	(void)state;
	/* empty input */
	p = parse("", &d);
	assert_non_null(p);
	assert_int_equal(d.errors, 0);
	assert_null(p->decls);
	ast_program_free(p);
	diag_fini(&d);

	/* a NUL byte is an invalid byte, not the end of the input */
	diag_init(&d, "t.prism", nul, sizeof(nul) - 1);
	p = parse_buffer(&d, "t.prism", nul, sizeof(nul) - 1);
	assert_non_null(p);
	assert_int_equal(d.errors, 1);
	assert_string_equal(d.items[0].message, "invalid byte 0x00");
	assert_int_equal(p->nconsts, 2);
	ast_program_free(p);
	diag_fini(&d);

	/* nesting deeper than the parser stack: one error, no crash */
	size_t n = 30000;
	char *deep = malloc(n + 32);
	assert_non_null(deep);
	strcpy(deep, "const X = ");
	memset(deep + 10, '(', n);
	strcpy(deep + 10 + n, "1;");
	p = parse(deep, &d);
	assert_non_null(p);
	assert_int_equal(d.errors, 1);
	assert_string_equal(d.items[0].message, "program is nested too deeply");
	ast_program_free(p);
	diag_fini(&d);
	free(deep);
}

static void test_parse_file_errors(void **state)
{
	struct diag_ctx d;
	char *src = NULL;
	int err = 0;

	(void)state;
	diag_init(&d, NULL, NULL, 0);
	assert_null(parse_file(&d, "/nonexistent/dir/x.prism", &src, &err));
	assert_int_equal(err, 2 /* ENOENT */);
	assert_null(src);
	diag_fini(&d);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_integer_literals),
	    cmocka_unit_test(test_comments_and_locations),
	    cmocka_unit_test(test_precedence),
	    cmocka_unit_test(test_left_associative_and_unary),
	    cmocka_unit_test(test_declaration_shapes),
	    cmocka_unit_test(test_statement_shapes),
	    cmocka_unit_test(test_recovery_keeps_going),
	    cmocka_unit_test(test_robust_inputs),
	    cmocka_unit_test(test_parse_file_errors),
	};

	return cmocka_run_group_tests_name("frontend parser", tests, NULL, NULL);
}
