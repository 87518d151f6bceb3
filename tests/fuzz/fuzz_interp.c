/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_interp.c - libFuzzer target over the reference
 * interpreter and the region-image specifications of `prismc run`.
 *
 * Input: a .prism program; its lines of the form `//!set SPEC` are also
 * applied as `--set` specifications.  Property: for a program that checks
 * clean, every offload runs in the interpreter over zeroed images (regions
 * and free lists up to 64 KiB; larger programs are only checked) and
 * arguments made of the input's bytes without a crash, a leak, undefined
 * behaviour or an endless loop, and a run that does not fault returns a
 * site within the program's returns; a bad specification is an error
 * message, never a crash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/frontend.h"
#include "compiler/interp.h"
#include "compiler/run_image.h"

#define MAX_REGIONS 8
#define MAX_BYTES   (64u << 10)

static void apply_sets(const struct interp_env *env, const uint8_t *data, size_t size)
{
	char line[512], err[256];

	for (size_t i = 0; i + 7 < size; i++) {
		if ((i && data[i - 1] != '\n') || memcmp(data + i, "//!set ", 7))
			continue;
		size_t n = 0;

		for (size_t j = i + 7; j < size && data[j] != '\n' && n + 1 < sizeof(line); j++)
			line[n++] = (char)data[j];
		line[n] = 0;
		if (run_image_set(env, line, err, sizeof(err)) && !err[0])
			abort(); /* a failure always says why */
	}
}

static void run_offloads(const struct ast_program *prog, const uint8_t *data, size_t size)
{
	struct interp_region regs[MAX_REGIONS];
	struct interp_env env = {.regions = regs};

	for (const struct ast_region *r = prog->regions; r; r = r->next) {
		if (env.nregions == MAX_REGIONS || r->size > MAX_BYTES)
			goto out;
		regs[env.nregions] =
		    (struct interp_region){r->name, 0x10000u * (env.nregions + 1),
		                           calloc(1, r->size ? r->size : 1), r->size};
		if (!regs[env.nregions++].bytes)
			goto out;
	}
	for (const struct ast_freelist *fl = prog->freelists; fl; fl = fl->next) {
		if (env.nregions == MAX_REGIONS)
			goto out;
		regs[env.nregions] =
		    (struct interp_region){fl->name, 0x10000u * (env.nregions + 1),
		                           calloc(1, INTERP_FREELIST_BYTES), INTERP_FREELIST_BYTES};
		if (!regs[env.nregions++].bytes)
			goto out;
	}
	apply_sets(&env, data, size);
	for (const struct ast_offload *off = prog->offloads; off; off = off->next) {
		uint8_t *args = calloc(1, off->args_size ? off->args_size : 1);
		struct interp_result res;
		unsigned nrets = 0;

		if (!args)
			break;
		for (uint64_t i = 0; i < off->args_size; i++)
			args[i] = size ? data[i % size] : 0;
		for (size_t i = 0; i + 6 < size; i++)
			nrets += !memcmp(data + i, "return", 6);
		if (!interp_run(prog, off, args, &env, &res)) {
			if (res.ok && res.ret_site > nrets)
				abort();
			if (!res.ok && !res.error[0])
				abort();
			interp_result_free(&res);
		}
		free(args);
	}
out:
	for (size_t i = 0; i < env.nregions; i++)
		free(regs[i].bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frontend_unit u;

	if (frontend_load_buffer(&u, "fuzz.prism", (const char *)data, size, NULL) == FRONTEND_OK)
		run_offloads(u.prog, data, size);
	frontend_fini(&u);
	return 0;
}
