/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/test_fe_diag.c - front-end diagnostics: every message
 * pinned with its location and caret (diag_cases.h), several errors per
 * run, the JSON form, error limits, -Werror, messages without a location,
 * and the edit distance behind every "did you mean" hint.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compiler/spell.h"
#include "tests/compiler/fe_helpers.h"

struct diag_case {
	const char *name;
	int status;
	const char *src;
	const char *expect;
};

#include "tests/compiler/diag_cases.h"

#define NCASES (sizeof(diag_cases) / sizeof(diag_cases[0]))

static void test_pinned_case(void **state)
{
	const struct diag_case *dc = *state;
	struct frontend_unit u;
	char *text = NULL;
	enum frontend_status st = fe_run(&u, dc->src, &text);

	assert_non_null(text);
	if (strcmp(text, dc->expect) != 0)
		print_error("case %s:\n--- expected\n%s--- got\n%s", dc->name, dc->expect, text);
	assert_string_equal(text, dc->expect);
	assert_int_equal(st, dc->status);
	free(text);
	frontend_fini(&u);
}

/* The one edit distance of every hint: insertions, deletions, substitutions
 * and adjacent swaps cost 1 each; the closeness rule and its tie-break. */
static void test_spell(void **state)
{
	struct spell s;
	char hint[96];

	(void)state;
	assert_int_equal(spell_distance("check", "check"), 0);
	assert_int_equal(spell_distance("chek", "check"), 1);   /* insertion */
	assert_int_equal(spell_distance("checkk", "check"), 1); /* deletion */
	assert_int_equal(spell_distance("chuck", "check"), 1);  /* substitution */
	assert_int_equal(spell_distance("whlie", "while"), 1);  /* swap */
	assert_int_equal(spell_distance("", "abc"), 3);
	assert_int_equal(spell_distance("kitten", "sitting"), 3);

	spell_init(&s, "nxt");
	spell_consider(&s, "key");
	spell_consider(&s, "next");
	spell_consider(&s, "nxt"); /* the word itself is never suggested */
	assert_string_equal(spell_best(&s), "next");
	assert_string_equal(spell_hint(&s, hint, sizeof(hint)), "; did you mean 'next'?");

	/* one edit per three characters of the longer name, at most */
	spell_init(&s, "q");
	spell_consider(&s, "p");
	assert_null(spell_best(&s));
	assert_string_equal(spell_hint(&s, hint, sizeof(hint)), "");
	spell_init(&s, "ky");
	spell_consider(&s, "key");
	assert_string_equal(spell_best(&s), "key");
	spell_init(&s, "rgn");
	spell_consider(&s, "region");
	assert_null(spell_best(&s));

	/* a tie goes to the first candidate; a closer one replaces it */
	static const char *const cands[] = {"be32", "be64", "be62x", NULL};
	spell_init(&s, "be62");
	spell_consider_all(&s, cands);
	assert_string_equal(spell_best(&s), "be32");
	spell_consider(&s, "be62");
	assert_string_equal(spell_best(&s), "be32");
}

static void test_several_errors_one_run(void **state)
{
	static const char src[] = "struct n { k: be64; }\n"
	                          "region r: n[4] readonly;\n"
	                          "offload f(p: *n in r) {\n"
	                          "\tlet a = p.k\n"          /* missing ';' */
	                          "\tlet z = 1;\n"           /* untyped constant */
	                          "\tp.k = 1;\n"             /* read-only store */
	                          "\tlet b = q;\n"           /* unknown name */
	                          "\twhile (p.k == 1) { }\n" /* no bound */
	                          "\tbreak;\n"               /* outside loop */
	                          "\treturn p.k[.. 4];\n"    /* not an aggregate */
	                          "}\n";
	struct frontend_unit u;
	char *text = NULL;

	(void)state;
	assert_int_equal(fe_run(&u, src, &text), FRONTEND_ERRORS);
	assert_int_equal(u.diag.errors, 7);
	/* in source order; the parse goes on after the missing ';' as if it
	 * were there, so the next statement is checked too */
	const char *a = strstr(text, "t.prism:4:13: error: expected ';'");
	const char *a2 = strstr(text, "t.prism:5:6: error: cannot infer the type of 'z'");
	const char *b = strstr(text, "t.prism:6:2: error: store to read-only region 'r'");
	const char *c = strstr(text, "t.prism:7:10: error: unknown name 'q'");
	const char *d = strstr(text, "t.prism:8:2: error: 'while' needs an iteration bound");
	const char *e = strstr(text, "t.prism:9:2: error: 'break' outside a loop");
	const char *f = strstr(text, "t.prism:10:9: error: bounded read of be64");
	assert_true(a && a2 && b && c && d && e && f);
	assert_true(a < a2 && a2 < b && b < c && c < d && d < e && e < f);
	free(text);
	frontend_fini(&u);
}

static void test_several_syntax_errors(void **state)
{
	static const char src[] = "offload f(k: be64) {\n"
	                          "\tlet = 1;\n"
	                          "\tlet x: be64 = (k + ;\n"
	                          "}\n"
	                          "region r size 4 KiB;\n"
	                          "offload g(k: be64) { return k; }\n";
	struct frontend_unit u;
	char *text = NULL;

	(void)state;
	assert_int_equal(fe_run(&u, src, &text), FRONTEND_ERRORS);
	assert_int_equal(u.diag.errors, 3);
	assert_non_null(strstr(text, "t.prism:2:6: error: expected identifier, found '='"));
	assert_non_null(strstr(text, "t.prism:3:21: error: unexpected ';'"));
	assert_non_null(strstr(text, "t.prism:5:20: error: unexpected ';'"));
	/* the offload after the errors was still parsed */
	assert_non_null(ast_find_offload(u.prog, "g"));
	free(text);
	frontend_fini(&u);
}

static void test_json(void **state)
{
	static const char src[] = "offload f(k: be64) {\n\treturn \"x\";\n}\n";
	struct frontend_unit u;
	char *text = NULL, *json;

	(void)state;
	assert_int_equal(fe_run(&u, src, &text), FRONTEND_ERRORS);
	json = fe_json(&u);
	assert_string_equal(json, "[{\"file\":\"t.prism\",\"line\":2,\"column\":9,\"length\":1,"
	                          "\"severity\":\"error\",\"message\":\"invalid character "
	                          "'\\\"'\"},"
	                          "{\"file\":\"t.prism\",\"line\":2,\"column\":10,\"length\":1,"
	                          "\"severity\":\"error\",\"message\":\"unknown name 'x'\"},"
	                          "{\"file\":\"t.prism\",\"line\":2,\"column\":11,\"length\":1,"
	                          "\"severity\":\"error\",\"message\":\"invalid character "
	                          "'\\\"'\"}]\n");
	free(json);
	free(text);
	frontend_fini(&u);
}

static void test_max_errors(void **state)
{
	struct frontend_opts o = {.max_errors = 2};
	static const char src[] = "offload f(k: be64) { let a = x1; let b = x2; let c = x3; }\n";
	struct frontend_unit u;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(frontend_load_buffer(&u, "t.prism", src, strlen(src), &o),
	                 FRONTEND_ERRORS);
	assert_int_equal(u.diag.count, 2);
	assert_int_equal(u.diag.errors, 3);
	assert_true(u.diag.truncated);
	f = open_memstream(&text, &len);
	diag_render(&u.diag, f);
	fclose(f);
	assert_non_null(strstr(text, "t.prism: note: too many errors, 1 not shown\n"));
	free(text);
	frontend_fini(&u);
}

static void test_werror(void **state)
{
	struct frontend_opts o = {.werror = true};
	static const char src[] = "region r size 8 writable;\n"
	                          "offload f(k: be64) { if (1 == 1) { return k; } }\n";
	struct frontend_unit u;

	(void)state;
	assert_int_equal(frontend_load_buffer(&u, "t.prism", src, strlen(src), NULL), FRONTEND_OK);
	assert_int_equal(u.diag.warnings, 1);
	frontend_fini(&u);
	assert_int_equal(frontend_load_buffer(&u, "t.prism", src, strlen(src), &o),
	                 FRONTEND_ERRORS);
	frontend_fini(&u);
}

/* The verifier reports errors about a whole program: no location. */
static void test_error_without_location(void **state)
{
	struct diag_ctx d;
	char *text = NULL, *json = NULL;
	size_t len = 0, jlen = 0;
	FILE *f;

	(void)state;
	diag_init(&d, "x.prism", "abc\n", 4);
	diag_error(&d, SRC_LOC_NONE, "WR budget of %u exceeded", 64u);
	diag_note(&d, (struct src_loc){1, 2, 2}, "here");
	assert_int_equal(diag_error_count(&d), 1);
	f = open_memstream(&text, &len);
	diag_render(&d, f);
	fclose(f);
	assert_string_equal(text, "x.prism: error: WR budget of 64 exceeded\n"
	                          "x.prism:1:2: note: here\n"
	                          "    abc\n"
	                          "     ^~\n");
	f = open_memstream(&json, &jlen);
	diag_render_json(&d, f);
	fclose(f);
	assert_non_null(strstr(json, "{\"file\":\"x.prism\",\"severity\":\"error\""));
	free(text);
	free(json);
	diag_fini(&d);
}

/* Tabs in the source line are kept so the caret lines up. */
static void test_caret_with_tabs(void **state)
{
	struct diag_ctx d;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	diag_init(&d, "x.prism", "\t\tfoo bar\r\nnext", 15);
	diag_warning(&d, (struct src_loc){1, 7, 3}, "w");
	f = open_memstream(&text, &len);
	diag_render(&d, f);
	fclose(f);
	assert_string_equal(text, "x.prism:1:7: warning: w\n"
	                          "    \t\tfoo bar\n"
	                          "    \t\t    ^~~\n");
	free(text);
	diag_fini(&d);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
	    cmocka_unit_test(test_spell),
	    cmocka_unit_test(test_several_errors_one_run),
	    cmocka_unit_test(test_several_syntax_errors),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_max_errors),
	    cmocka_unit_test(test_werror),
	    cmocka_unit_test(test_error_without_location),
	    cmocka_unit_test(test_caret_with_tabs),
	};
	size_t n = NCASES + sizeof(fixed) / sizeof(fixed[0]);
	struct CMUnitTest *tests = calloc(n, sizeof(*tests));
	int rc;

	if (!tests)
		return 1;
	for (size_t i = 0; i < NCASES; i++)
		tests[i] = (struct CMUnitTest){.name = diag_cases[i].name,
		                               .test_func = test_pinned_case,
		                               .initial_state = (void *)&diag_cases[i]};
	memcpy(tests + NCASES, fixed, sizeof(fixed));
	rc = _cmocka_run_group_tests("frontend diagnostics", tests, n, NULL, NULL);
	free(tests);
	return rc;
}
