/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/test_fe_depth.c - no input overflows the front end's
 * stack: expressions, statements and types nested far past AST_MAX_DEPTH,
 * and constants or by-value structs defined through long chains, are
 * errors with a location, never a crash (the checker and the lowering
 * recurse over them).  Nesting at the limit is still accepted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/compiler/fe_helpers.h"

#define DEEP 40000u /* the size that overflowed an 8 MiB stack */

#define PRELUDE "struct s { a: be64; }\nregion m: s[4] writable;\n"

/* prefix, then `n` times `rep`, then `mid`, then `n` times `close`, then suffix */
static char *build(const char *prefix, const char *rep, unsigned n, const char *mid,
                   const char *close, const char *suffix)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	fputs(prefix, f);
	for (unsigned i = 0; i < n; i++)
		fputs(rep, f);
	fputs(mid, f);
	for (unsigned i = 0; i < n; i++)
		fputs(close, f);
	fputs(suffix, f);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* The front end rejects `src` with `message` among its diagnostics. */
static void expect_error(char *src, const char *message)
{
	struct frontend_unit u;
	char *text = NULL;

	assert_int_equal(fe_run(&u, src, &text), FRONTEND_ERRORS);
	if (!strstr(text, message))
		print_error("expected '%s' in:\n%.400s\n", message, text);
	assert_non_null(strstr(text, message));
	free(text);
	frontend_fini(&u);
	free(src);
}

static void expect_ok(char *src)
{
	struct frontend_unit u;
	char *text = NULL;

	assert_int_equal(fe_run(&u, src, &text), FRONTEND_OK);
	free(text);
	frontend_fini(&u);
	free(src);
}

static void test_long_sum(void **state)
{
	(void)state;
	expect_error(build("const A = 1", " + 1", DEEP, ";\n", "", ""),
	             "t.prism:1:11: error: expression nested more than 256 levels deep; split it "
	             "with `const` declarations or `let` temporaries");
	expect_ok(build("const A = 1", " + 1", 250, ";\n", "", ""));
}

static void test_prefix_and_postfix_chains(void **state)
{
	(void)state;
	expect_error(build("const A = ", "-", 9000, "1", "", ";\n"),
	             "expression nested more than 256 levels deep");
	expect_error(
	    build(PRELUDE "offload f(p: *s in m) -> be64 { return ", "*", 9000, "p", "", ".a; }\n"),
	    "expression nested more than 256 levels deep");
	/* right-nested operands: bison's own stack limit is reported first */
	expect_error(build("const A = ", "(1 + ", DEEP, "1", ")", ";\n"),
	             "error: program is nested too deeply");
}

static void test_nested_statements(void **state)
{
	(void)state;
	expect_error(build(PRELUDE "offload f(p: *s in m) { ", "{ ", 1000, "p.a = 1;", "}", "}\n"),
	             "statement nested more than 256 levels deep; flatten the nest");
	expect_error(
	    build(PRELUDE "offload f(p: *s in m) { ", "if (p.a == 1) { ", 1000, "", "}", "}\n"),
	    "statement nested more than 256 levels deep");
	expect_error(build(PRELUDE "offload f(p: *s in m) { if (p.a == 0) {} ",
	                   "else if (p.a == 1) {} ", DEEP, "", "", "}\n"),
	             "error: program is nested too deeply");
	expect_ok(build(PRELUDE "offload f(p: *s in m) { ", "{ ", 200, "p.a = 1;", "}", "}\n"));
}

static void test_nested_types(void **state)
{
	(void)state;
	expect_error(build("region m: u8", "[1]", DEEP, "", "", " writable;\n"),
	             "type nested more than 256 levels deep; name the inner types with `struct`");
}

static void test_definition_chains(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	for (unsigned i = 0; i < DEEP; i++)
		fprintf(f, "const A%u = A%u;\n", i, i + 1);
	fprintf(f, "const A%u = 1;\n", DEEP);
	assert_int_equal(fclose(f), 0);
	expect_error(text, "constant 'A256' is folded through more than 256 other constants");

	f = open_memstream(&text, &len);
	assert_non_null(f);
	for (unsigned i = 0; i < DEEP; i++)
		fprintf(f, "struct S%u { a: S%u; }\n", i, i + 1);
	fprintf(f, "struct S%u { a: u8; }\nregion m: S0[1] readonly;\n", DEEP);
	assert_int_equal(fclose(f), 0);
	expect_error(text, "struct 'S256' holds structs by value more than 256 levels deep");
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_long_sum),
	    cmocka_unit_test(test_prefix_and_postfix_chains),
	    cmocka_unit_test(test_nested_statements),
	    cmocka_unit_test(test_nested_types),
	    cmocka_unit_test(test_definition_chains),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
