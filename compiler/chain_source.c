/* SPDX-License-Identifier: MIT */
/*
 * compiler/chain_source.c - a .prism or .chain path as chain-object bytes.
 *
 * Owns: the suffix rule (and, for standard input, the content rule) and the
 * compile-to-memory path used by `prismc run`, `post` and `call`.
 * Must not: verify .chain files itself (the runtime's loader does, always).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/chain_source.h"
#include "compiler/cmd.h"
#include "compiler/compile.h"
#include "compiler/frontend.h"

#define CHAIN_SOURCE_MAX (64u << 20)

bool chain_source_is_object(const char *text)
{
	while (*text == '#' || *text == '\n') {
		const char *nl = strchr(text, '\n');

		if (!nl)
			return false;
		text = nl + 1;
	}
	return !strncmp(text, "prism-chain:", 12);
}

static int compile_unit(struct frontend_unit *u, enum frontend_status st, const char *entry,
                        enum ir_profile firmware, char **yaml, size_t *len)
{
	struct chainobj *o = NULL;
	struct chainobj_diag cd;
	int rc;

	if (st == FRONTEND_OK) {
		struct compile_opts co = {.profile = firmware, .entry = entry};

		rc = compile_program(&u->diag, u->prog, &co, &o);
	} else {
		rc = st == FRONTEND_NOMEM ? PRISMC_EXIT_INTERNAL : PRISMC_EXIT_ERRORS;
	}
	diag_render(&u->diag, stderr);
	if (rc == PRISMC_EXIT_OK && chainobj_write_mem(o, 0, yaml, len, &cd)) {
		fprintf(stderr, "prismc: %s\n", cd.msg);
		rc = PRISMC_EXIT_INTERNAL;
	}
	chainobj_free(o);
	return rc;
}

int chain_source_load(const struct cli *c, const char *path, const char *entry,
                      enum ir_profile firmware, char **yaml, size_t *len)
{
	size_t pl = strlen(path);
	struct frontend_unit u;
	enum frontend_status st;
	char *text;
	size_t n;
	int rc;

	if (pl > 6 && !strcmp(path + pl - 6, ".chain"))
		return cli_read_all(c, path, CHAIN_SOURCE_MAX, yaml, len);
	if (!strcmp(path, "-")) {
		rc = cli_read_all(c, path, CHAIN_SOURCE_MAX, &text, &n);
		if (rc)
			return rc;
		if (chain_source_is_object(text)) {
			*yaml = text;
			*len = n;
			return PRISMC_EXIT_OK;
		}
		st = frontend_load_buffer(&u, "<stdin>", text, n, NULL);
		rc = compile_unit(&u, st, entry, firmware, yaml, len);
		frontend_fini(&u);
		free(text);
		return rc;
	}
	st = frontend_load(&u, path, NULL);
	if (st == FRONTEND_IO) {
		rc = cli_fail(c, cli_open_exit(u.io_error), "%s: %s", path, strerror(u.io_error));
		frontend_fini(&u);
		return rc;
	}
	rc = compile_unit(&u, st, entry, firmware, yaml, len);
	frontend_fini(&u);
	return rc;
}
