/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_compile.c - libFuzzer target over the whole of prismc's
 * compile: front end, lowering, scheduling, layout, emission and the
 * verifier, under both firmware profiles.
 *
 * Property: a program the front end accepts either compiles to an object
 * or is rejected with errors that each name a source position
 * (docs/language.md, "What the back end rejects"); nothing crashes, leaks
 * or runs into undefined behaviour on the way.  (The front end's own
 * property is fuzz_frontend's; its seeds serve here too.)
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "compiler/compile.h"
#include "compiler/frontend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frontend_unit u;

	/* a file without an offload is refused as a whole, without a position */
	if (frontend_load_buffer(&u, "fuzz.prism", (const char *)data, size, NULL) != FRONTEND_OK ||
	    !u.prog->offloads) {
		frontend_fini(&u);
		return 0;
	}
	for (int k = 0; k < 2; k++) {
		struct compile_opts co = {.profile = k ? IR_PROFILE_STRICT : IR_PROFILE_RELAXED};
		struct chainobj *obj = NULL;
		size_t before = u.diag.count;

		if (compile_program(&u.diag, u.prog, &co, &obj) == 0) {
			chainobj_free(obj);
			continue;
		}
		for (size_t i = before; i < u.diag.count; i++)
			if (u.diag.items[i].severity == DIAG_ERROR && !u.diag.items[i].loc.line &&
			    !u.diag.oom)
				abort(); /* a rejection without a position */
	}
	frontend_fini(&u);
	return 0;
}
