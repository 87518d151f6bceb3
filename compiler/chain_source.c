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
#include "compiler/spell.h"

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
	struct diag_report cd;
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

int chain_source_entry(const struct cli *c, const char *path, const struct chainobj *o,
                       const char *entry)
{
	char list[256] = "", hint[SPELL_HINT_SIZE];
	struct spell s;
	size_t n = 0;

	if (!entry)
		return o->n_entries ? 0 : -1;
	spell_init(&s, entry);
	for (uint32_t i = 0; i < o->n_entries; i++) {
		if (!strcmp(o->entries[i].name, entry))
			return (int)i;
		spell_consider(&s, o->entries[i].name);
		if (n < sizeof(list))
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
			                      o->entries[i].name);
	}
	cli_fail(c, PRISMC_EXIT_USAGE, "--entry %s: %s has no entry of that name; it has%s%s%s",
	         entry, path, o->n_entries ? ": " : " none", list,
	         spell_hint(&s, hint, sizeof(hint)));
	return -1;
}

/* A chain object and an --entry: the entry must be there. */
static int object_entry(const struct cli *c, const char *path, const char *text, size_t len,
                        const char *entry)
{
	struct chainobj *o = NULL;
	struct diag_report d;
	int rc;

	if (!entry)
		return PRISMC_EXIT_OK; /* the loader reads and judges the object */
	if (chainobj_read_mem(text, len, &o, &d))
		return PRISMC_EXIT_OK; /* ditto: its error, with its position */
	rc = chain_source_entry(c, path, o, entry) < 0 ? PRISMC_EXIT_USAGE : PRISMC_EXIT_OK;
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

	if (pl > 6 && !strcmp(path + pl - 6, ".chain")) {
		rc = cli_read_all(c, path, CHAIN_SOURCE_MAX, yaml, len);
		if (!rc && (rc = object_entry(c, path, *yaml, *len, entry))) {
			free(*yaml);
			*yaml = NULL;
		}
		return rc;
	}
	if (!strcmp(path, "-")) {
		rc = cli_read_all(c, path, CHAIN_SOURCE_MAX, &text, &n);
		if (rc)
			return rc;
		if (chain_source_is_object(text)) {
			rc = object_entry(c, "<stdin>", text, n, entry);
			if (rc) {
				free(text);
				return rc;
			}
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
