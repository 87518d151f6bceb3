/* SPDX-License-Identifier: MIT */
/*
 * compiler/compile.c - the back-end pipeline (see compile.h).
 *
 * Owns: pass order and turning pass failures into diagnostics; the verifier
 * runs on every compile and its summary goes into the object.
 *
 * Must not: contain pass logic.
 */
#include "compiler/compile.h"

#include "compiler/cmd.h"
#include "compiler/frontend.h"
#include "compiler/lower.h"
#include "compiler/sched.h"
#include "compiler/verify.h"
#include "chain/chain_verify.h"

#include <stdlib.h>

int compile_ir(struct diag_ctx *d, struct ir_prog *p, const char *entry, struct chainobj **out)
{
	char err[256];
	*out = NULL;
	if (sched_barriers(p) < 0)
		return PRISMC_EXIT_INTERNAL;
	if (layout_program(p, err, sizeof(err)) < 0) {
		diag_error(d, p->loc, "layout: %s", err);
		return PRISMC_EXIT_ERRORS;
	}
	struct chainobj *o = emit_chainobj(p, entry, err, sizeof(err));
	if (!o) {
		diag_error(d, p->loc, "emit: %s", err);
		return PRISMC_EXIT_ERRORS;
	}
	/* the object says what NIC behaviour it relies on, where it does */
	o->assumes = chain_verify_assumes(o);
	if ((o->assumes & CHAINOBJ_ASSUME_FENCED_ENABLE) && !p->assume_fenced_enable) {
		diag_error(d, p->loc, "emit: a fenced SEND_EN without `assume fenced_enable;`");
		chainobj_free(o);
		return PRISMC_EXIT_INTERNAL;
	}
	if (o->assumes)
		o->schema = CHAINOBJ_SCHEMA_ASSUME;
	if (verify_taint(p, o, err, sizeof(err)) != 0) {
		diag_error(d, p->loc, "verifier: %s", err);
		chainobj_free(o);
		return PRISMC_EXIT_ERRORS;
	}
	struct chain_verify_report rep;
	int rc = chain_verify_fill_summary(o, 0, &rep);
	if (rc != 0) {
		diag_error(d, p->loc, "verifier: %s", rep.msg);
		chainobj_free(o);
		return PRISMC_EXIT_ERRORS;
	}
	*out = o;
	return PRISMC_EXIT_OK;
}

int compile_program(struct diag_ctx *d, const struct ast_program *prog,
                    const struct compile_opts *opts, struct chainobj **out)
{
	*out = NULL;
	const struct ast_offload *off = frontend_entry(d, prog, "--entry", opts->entry);
	if (!off) /* a name from the command line is a usage error */
		return opts->entry ? PRISMC_EXIT_USAGE : PRISMC_EXIT_ERRORS;
	struct ir_prog *p = lower_offload(d, prog, off, opts->profile);
	if (!p)
		return d->oom ? PRISMC_EXIT_INTERNAL : PRISMC_EXIT_ERRORS;
	p->assume_fenced_enable = prog->assumes & AST_ASSUME_FENCED_ENABLE;
	p->request_gate = !opts->no_request_gate;
	int rc = compile_ir(d, p, off->name, out);
	if (opts->emit_ir && opts->ir_out) { /* also on failure: it shows why */
		size_t need = ir_snprint(p, NULL, 0) + 1;
		char *buf = malloc(need);
		if (buf) {
			ir_snprint(p, buf, need);
			fputs(buf, opts->ir_out);
			free(buf);
		}
	}
	ir_prog_free(p);
	return rc;
}
