/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/fe_helpers.c - see fe_helpers.h.
 */
#include "tests/compiler/fe_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum frontend_status fe_run(struct frontend_unit *u, const char *src, char **text)
{
	enum frontend_status st = frontend_load_buffer(u, "t.prism", src, strlen(src), NULL);
	size_t len = 0;
	FILE *f = open_memstream(text, &len);

	if (f) {
		diag_render(&u->diag, f);
		fclose(f);
	}
	return st;
}

char *fe_json(const struct frontend_unit *u)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f) {
		diag_render_json(&u->diag, f);
		fclose(f);
	}
	return text;
}

struct ast_stmt *fe_find_stmt(struct ast_stmt *s, enum ast_stmt_kind kind)
{
	for (; s; s = s->next) {
		struct ast_stmt *r = NULL;

		if (s->kind == kind)
			return s;
		switch (s->kind) {
		case AST_STMT_IF:
			r = fe_find_stmt(s->u.if_.then_body, kind);
			if (!r)
				r = fe_find_stmt(s->u.if_.else_body, kind);
			break;
		case AST_STMT_WHILE:
			r = fe_find_stmt(s->u.while_.body, kind);
			break;
		case AST_STMT_BLOCK:
			r = fe_find_stmt(s->u.block.body, kind);
			break;
		case AST_STMT_PARALLEL:
			for (struct ast_lane *l = s->u.parallel.lanes; l && !r; l = l->next)
				r = fe_find_stmt(l->body, kind);
			break;
		default:
			break;
		}
		if (r)
			return r;
	}
	return NULL;
}
