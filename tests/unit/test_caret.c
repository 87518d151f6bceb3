/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_caret.c - util/caret: the source line and the caret under
 * a column, shared by prismc's diagnostics and prismd's configuration.
 *
 * Owns: the line lookup at the edges of a text (first and last line, no
 * final newline, CRLF, past the end) and the caret line: tabs kept so it
 * lines up, control bytes shown as spaces, `~` cut at the end of the line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/caret.h"

/* caret_print of @src into a string (malloc'd). */
static char *printed(const char *src, unsigned line, unsigned col, unsigned width)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	assert_non_null(f);
	caret_print(f, src, src ? strlen(src) : 0, line, col, width);
	assert_int_equal(fclose(f), 0);
	return out;
}

static void expect(const char *src, unsigned line, unsigned col, unsigned width, const char *want)
{
	char *got = printed(src, line, col, width);

	if (strcmp(got, want))
		fail_msg("line %u col %u width %u: got\n%s\nwant\n%s", line, col, width, got, want);
	free(got);
}

static void test_source_line(void **state)
{
	static const char text[] = "one\r\ntwo\n\nlast";
	const char *start;
	size_t n;

	(void)state;
	assert_true(caret_source_line(text, strlen(text), 1, &start, &n));
	assert_int_equal(n, 3); /* without the \r */
	assert_memory_equal(start, "one", 3);
	assert_true(caret_source_line(text, strlen(text), 2, &start, &n));
	assert_memory_equal(start, "two", n);
	assert_true(caret_source_line(text, strlen(text), 3, &start, &n));
	assert_int_equal(n, 0);
	assert_true(caret_source_line(text, strlen(text), 4, &start, &n));
	assert_int_equal(n, 4); /* no final newline */
	assert_false(caret_source_line(text, strlen(text), 5, &start, &n));
	assert_false(caret_source_line(text, strlen(text), 0, &start, &n));
	assert_false(caret_source_line(NULL, 0, 1, &start, &n));
	/* a text that ends in a newline has an empty line after it */
	assert_true(caret_source_line("a\n", 2, 2, &start, &n));
	assert_int_equal(n, 0);
}

static void test_caret_line(void **state)
{
	(void)state;
	expect("let x = *p\n", 1, 9, 2, "    let x = *p\n            ^~\n");
	/* width 0 and 1: the caret alone */
	expect("abc\n", 1, 2, 0, "    abc\n     ^\n");
	expect("abc\n", 1, 2, 1, "    abc\n     ^\n");
	/* tabs are kept under the line so the caret lines up */
	expect("\tx\t= 1\n", 1, 4, 1, "    \tx\t= 1\n    \t \t^\n");
	/* control bytes are shown as spaces */
	expect("a\001b\177c\n", 1, 5, 1, "    a b c\n        ^\n");
	/* `~` stops at the end of the line; a column past it puts the caret there */
	expect("abc\n", 1, 2, 10, "    abc\n     ^~\n");
	expect("abc\n", 1, 9, 3, "    abc\n       ^\n");
	/* the second line of a CRLF text */
	expect("a\r\nbcd\r\n", 2, 2, 2, "    bcd\n     ^~\n");
	/* no such line, no text: nothing */
	expect("abc\n", 3, 1, 1, "");
	expect("abc\n", 0, 1, 1, "");
	expect(NULL, 1, 1, 1, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_source_line),
	    cmocka_unit_test(test_caret_line),
	};

	return cmocka_run_group_tests_name("util_caret", tests, NULL, NULL);
}
