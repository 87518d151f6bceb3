/* SPDX-License-Identifier: MIT */
/*
 * compiler/frontend.c - read + parse + check, for the subcommands.
 *
 * Owns: the order of the front-end stages and what counts as failure
 * (errors stop before checking only when parsing produced no program).
 *
 * Must not: print or exit.
 */
#include "compiler/frontend.h"

#include <errno.h>
#include <string.h>
#include <stdlib.h>

#include "compiler/check.h"
#include "compiler/parse.h"
#include "compiler/spell.h"

static void unit_init(struct frontend_unit *u, const char *name, const struct frontend_opts *opts)
{
	memset(u, 0, sizeof(*u));
	diag_init(&u->diag, name, NULL, 0);
	if (opts) {
		u->diag.werror = opts->werror;
		u->diag.max_errors = opts->max_errors;
	}
}

/* Check even after syntax errors: the parser's error recovery leaves a
 * well-formed (partial) tree, and semantic errors elsewhere in the file
 * are worth reporting in the same run. */
static enum frontend_status finish(struct frontend_unit *u)
{
	if (!u->prog)
		return FRONTEND_NOMEM;
	check_program(&u->diag, u->prog);
	diag_sort(&u->diag);
	if (u->diag.oom)
		return FRONTEND_NOMEM;
	return diag_has_errors(&u->diag) ? FRONTEND_ERRORS : FRONTEND_OK;
}

enum frontend_status frontend_load(struct frontend_unit *u, const char *path,
                                   const struct frontend_opts *opts)
{
	unit_init(u, path, opts);
	u->prog = parse_file(&u->diag, path, &u->src, &u->io_error);
	if (!u->prog && u->io_error && u->io_error != ENOMEM)
		return FRONTEND_IO;
	return finish(u);
}

enum frontend_status frontend_load_buffer(struct frontend_unit *u, const char *name,
                                          const char *src, size_t len,
                                          const struct frontend_opts *opts)
{
	unit_init(u, name, opts);
	u->prog = parse_buffer(&u->diag, name, src, len);
	return finish(u);
}

void frontend_fini(struct frontend_unit *u)
{
	ast_program_free(u->prog);
	diag_fini(&u->diag);
	free(u->src);
	memset(u, 0, sizeof(*u));
}

const struct ast_offload *frontend_entry(struct diag_ctx *d, const struct ast_program *prog,
                                         const char *option, const char *name)
{
	const struct ast_offload *off = name ? ast_find_offload(prog, name) : prog->offloads;
	char list[256] = "", hint[SPELL_HINT_SIZE];
	struct spell s;
	size_t n = 0;

	if (off)
		return off;
	if (!name) {
		diag_error(d, SRC_LOC_NONE, "the program declares no offload");
		return NULL;
	}
	spell_init(&s, name);
	for (off = prog->offloads; off; off = off->next) {
		spell_consider(&s, off->name);
		if (n < sizeof(list))
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "",
			                      off->name);
	}
	diag_error(d, SRC_LOC_NONE, "%s %s: no offload of that name; the program declares%s%s%s",
	           option, name, prog->offloads ? ": " : " none", list,
	           spell_hint(&s, hint, sizeof(hint)));
	return NULL;
}
