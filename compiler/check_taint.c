/* SPDX-License-Identifier: MIT */
/*
 * compiler/check_taint.c - which values derive from client parameters.
 *
 * Owns: expr->taint (bit i: the value depends on parameter i) and
 * expr->addr_tainted (a memory access whose address depends on a
 * parameter: it must use the key of the narrowest declared region and be
 * bounds-checked, docs/contracts.md contract 5), and ast_local.taint, computed as a
 * fixpoint over the offload body so loops and later assignments are
 * accounted for.  A value read through a tainted address is tainted too:
 * the client chose which bytes it is.
 *
 * Must not: report diagnostics (the checker did); it runs on a body whose
 * expression types are set (or NULL where an error was reported).
 */
#include "compiler/check_internal.h"

static uint64_t taint_expr(struct ast_expr *e);

/* Taint of the address of a place expression. */
static uint64_t addr_taint(struct ast_expr *base, bool through_ptr)
{
	if (!base)
		return 0;
	if (through_ptr)
		return base->taint; /* the pointer's value is the address */
	return base->addr_tainted ? base->taint : 0;
}

static uint64_t taint_expr(struct ast_expr *e)
{
	uint64_t t = 0, a = 0;

	if (!e)
		return 0;
	switch (e->kind) {
	case AST_EXPR_INT:
	case AST_EXPR_BOOL:
	case AST_EXPR_SIZEOF:
	case AST_EXPR_ERROR:
		break;
	case AST_EXPR_NAME:
		if (e->u.name.sym == AST_SYM_PARAM && e->u.name.target.param)
			t = 1ull << (e->u.name.target.param->index & 63);
		else if (e->u.name.sym == AST_SYM_LOCAL && e->u.name.target.local)
			t = e->u.name.target.local->taint;
		break;
	case AST_EXPR_UNARY:
		t = taint_expr(e->u.unary.operand);
		break;
	case AST_EXPR_BINARY:
		t = taint_expr(e->u.binary.lhs) | taint_expr(e->u.binary.rhs);
		break;
	case AST_EXPR_DEREF:
		t = a = taint_expr(e->u.deref.ptr);
		break;
	case AST_EXPR_FIELD:
		t = taint_expr(e->u.field.base);
		a = addr_taint(e->u.field.base, e->u.field.through_ptr);
		break;
	case AST_EXPR_INDEX: {
		uint64_t it = taint_expr(e->u.index.index);

		t = taint_expr(e->u.index.base) | it;
		a = addr_taint(e->u.index.base, e->u.index.through_ptr) | it;
		break;
	}
	case AST_EXPR_SLICE: {
		uint64_t lt = taint_expr(e->u.slice.len);

		t = taint_expr(e->u.slice.base) | lt;
		a = addr_taint(e->u.slice.base, e->u.slice.through_ptr);
		break;
	}
	case AST_EXPR_CALL:
		for (struct ast_expr *arg = e->u.call.args; arg; arg = arg->arg_next)
			if (e->u.call.fn != AST_BUILTIN_ALLOC)
				t |= taint_expr(arg);
		/* the result of an atomic is chosen by whoever chose its address
		 * or operands; alloc() returns a server buffer */
		break;
	}
	e->taint = t;
	e->addr_tainted = e->place == AST_PLACE_MEMORY && a != 0;
	return t;
}

/* The local a place expression writes into, if any (x, x.f, x[i]). */
static struct ast_local *written_local(struct ast_expr *e)
{
	while (e) {
		if (e->kind == AST_EXPR_NAME)
			return e->u.name.sym == AST_SYM_LOCAL ? e->u.name.target.local : NULL;
		if (e->kind == AST_EXPR_FIELD && !e->u.field.through_ptr)
			e = e->u.field.base;
		else if (e->kind == AST_EXPR_INDEX && !e->u.index.through_ptr)
			e = e->u.index.base;
		else
			return NULL;
	}
	return NULL;
}

/* One pass over a statement list; true if a local's taint grew. */
static bool taint_stmts(struct ast_stmt *s)
{
	bool changed = false;

	for (; s; s = s->next) {
		switch (s->kind) {
		case AST_STMT_LET: {
			struct ast_local *l = s->u.let.local;
			uint64_t t = taint_expr(s->u.let.init);

			if ((l->taint | t) != l->taint) {
				l->taint |= t;
				changed = true;
			}
			break;
		}
		case AST_STMT_ASSIGN: {
			struct ast_local *l;
			uint64_t t = taint_expr(s->u.assign.value);

			taint_expr(s->u.assign.target);
			l = s->u.assign.target->place == AST_PLACE_LOCAL
			        ? written_local(s->u.assign.target)
			        : NULL;
			if (l && (l->taint | t) != l->taint) {
				l->taint |= t;
				changed = true;
			}
			break;
		}
		case AST_STMT_EXPR:
			taint_expr(s->u.expr.expr);
			break;
		case AST_STMT_IF:
			taint_expr(s->u.if_.cond);
			changed |= taint_stmts(s->u.if_.then_body);
			changed |= taint_stmts(s->u.if_.else_body);
			break;
		case AST_STMT_WHILE:
			taint_expr(s->u.while_.cond);
			changed |= taint_stmts(s->u.while_.body);
			break;
		case AST_STMT_RETURN:
			taint_expr(s->u.return_.value);
			break;
		case AST_STMT_PARALLEL:
			for (struct ast_lane *l = s->u.parallel.lanes; l; l = l->next)
				changed |= taint_stmts(l->body);
			break;
		case AST_STMT_BLOCK:
			changed |= taint_stmts(s->u.block.body);
			break;
		case AST_STMT_BREAK:
			break;
		}
	}
	return changed;
}

void check_taint_offload(struct ast_offload *o)
{
	/* Taints only grow and are bounded by the parameter set: each extra
	 * pass adds at least one bit to some local, so this terminates. */
	while (taint_stmts(o->body))
		;
}
