/* SPDX-License-Identifier: MIT */
/*
 * compiler/chain_source.c - a .prism or .chain path as chain-object bytes.
 *
 * Owns: the suffix rule and the compile-to-memory path used by `prismc run`
 * and `prismc post`.
 * Must not: verify .chain files itself (the runtime's loader does, always).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/chain_source.h"
#include "compiler/cmd.h"
#include "compiler/compile.h"
#include "compiler/frontend.h"

static int read_all(const char *path, char **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f) {
		fprintf(stderr, "prismc: %s: %s\n", path, strerror(errno));
		return PRISMC_EXIT_IO;
	}
	for (;;) {
		if (n == cap) {
			char *nb = cap < (64u << 20) ? realloc(buf, cap ? cap * 2 : 65536) : NULL;

			if (!nb) {
				free(buf);
				fclose(f);
				fprintf(stderr, "prismc: %s: too large\n", path);
				return PRISMC_EXIT_IO;
			}
			buf = nb;
			cap = cap ? cap * 2 : 65536;
		}
		size_t got = fread(buf + n, 1, cap - n, f);

		if (!got)
			break;
		n += got;
	}
	fclose(f);
	*out = buf;
	*len = n;
	return PRISMC_EXIT_OK;
}

int chain_source_load(const char *path, const char *entry, enum ir_profile firmware, char **yaml,
                      size_t *len)
{
	size_t pl = strlen(path);
	struct frontend_unit u;
	struct chainobj *o = NULL;
	struct diag_report cd;
	enum frontend_status st;
	int rc;

	if (pl > 6 && !strcmp(path + pl - 6, ".chain"))
		return read_all(path, yaml, len);
	st = frontend_load(&u, path, NULL);
	if (st == FRONTEND_IO) {
		fprintf(stderr, "prismc: %s: %s\n", path, strerror(u.io_error));
		frontend_fini(&u);
		return PRISMC_EXIT_IO;
	}
	if (st == FRONTEND_OK) {
		struct compile_opts co = {.profile = firmware, .entry = entry};

		rc = compile_program(&u.diag, u.prog, &co, &o);
	} else {
		rc = st == FRONTEND_NOMEM ? PRISMC_EXIT_INTERNAL : PRISMC_EXIT_ERRORS;
	}
	diag_render(&u.diag, stderr);
	if (rc == PRISMC_EXIT_OK && chainobj_write_mem(o, 0, yaml, len, &cd)) {
		fprintf(stderr, "prismc: %s\n", cd.msg);
		rc = PRISMC_EXIT_INTERNAL;
	}
	chainobj_free(o);
	frontend_fini(&u);
	return rc;
}
