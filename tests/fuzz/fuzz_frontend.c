/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_frontend.c - libFuzzer target over the prismc front end.
 *
 * Property: any byte string goes through lexing, parsing, checking and both
 * diagnostic renderings without a crash, a leak or undefined behaviour
 * (docs/contracts.md contract 7: prismc never crashes on any input); a program that
 * checks clean has every expression typed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "compiler/frontend.h"

static void render(const struct frontend_unit *u)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	diag_render(&u->diag, f);
	diag_render_json(&u->diag, f);
	fclose(f);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frontend_unit u;
	enum frontend_status st;

	st = frontend_load_buffer(&u, "fuzz.prism", (const char *)data, size, NULL);
	if (st == FRONTEND_OK && (!u.prog || !u.prog->checked))
		abort(); /* a clean check must mark the program checked */
	if (st == FRONTEND_ERRORS && u.diag.errors == 0 && !u.diag.werror)
		abort(); /* errors status without an error message */
	render(&u);
	frontend_fini(&u);
	return 0;
}
