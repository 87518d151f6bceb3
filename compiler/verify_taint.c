/* SPDX-License-Identifier: MIT */
/*
 * compiler/verify_taint.c - compile-time check of where client values go.
 *
 * Owns: the source-level half of docs/contracts.md contract 5 that the object alone
 * cannot show.  The loader's verifier sees RECV scatters; a client value
 * staged through scratch and fanned out by a READ looks, in the object,
 * like any other READ.  The IR still knows: every patch carries the taint
 * (client parameters) of the bytes it moves, so every tainted patch must
 * land in a field a client may fill (chain_verify_client_field_ok, the
 * same rule the loader applies to RECV scatters).
 *
 * Must not: repeat the object-level checks (runtime/chain/chain_verify.c).
 */
#include "compiler/verify.h"

#include <stdio.h>

#include "compiler/sched.h"
#include "chain/chain_verify.h"

int verify_taint(const struct ir_prog *p, const struct chainobj *o, char *err, size_t errlen)
{
	for (unsigned i = 0; i < p->n_patches; i++) {
		const struct ir_patch *pt = &p->patches[i];
		if (!pt->taint || pt->control)
			continue;
		const struct ir_node *t = &p->nodes[pt->target];
		struct prism_wqe w;
		emit_node_wqe(p, t, &w); /* the shape it executes with (armed) */
		w.ctrl.ds = (uint8_t)t->ds;
		if (chain_verify_client_field_ok(o, &w, pt->off, pt->len))
			continue;
		snprintf(err, errlen,
		         "client parameter bytes (taint %#llx) reach bytes %u..%u of %s (%s), "
		         "which is not an address, operand or data field",
		         (unsigned long long)pt->taint, pt->off, pt->off + pt->len - 1,
		         prism_opcode_name(t->op), t->what ? t->what : "?");
		return -1;
	}
	return 0;
}
