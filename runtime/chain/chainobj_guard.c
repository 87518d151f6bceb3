/* SPDX-License-Identifier: MIT */
/*
 * chain/chainobj_guard.c - the armed form of a guarded WQE in a chain object.
 *
 * A guarded effect (RedN Fig. 4) is posted as a NOP of its real size and
 * armed at run time by a CAS on its control word.  Both the structural
 * validator and the security verifier must judge such a WQE in the form it
 * runs in; this file finds the guard that arms it and decodes the template
 * again with the opmod and opcode that guard swaps in.
 *
 * Owns: chainobj_armed_decode.
 * Must not: validate or reject anything (callers decide what an armed form
 * means for them), or modify the object.
 */
#include "chain/chainobj.h"

#include <string.h>

#include <prism/wqe.h>

/*
 * Does the patch's writer swap ctrl bytes 0 (opmod) and 3 (opcode) in?
 * A plain CAS swaps the whole word (host-endian integer of ctrl bytes 0-7);
 * an 8-byte masked CAS arms only when its swap mask covers the opcode byte;
 * a 16-byte masked CAS (the wide exact guard) is big-endian: byte j of its
 * fields meets ctrl byte j.
 */
static bool guard_swap(const struct chainobj_patch *pt, const struct prism_wqe *g, uint8_t *opmod,
                       uint8_t *opcode)
{
	if (!g->has_atomic)
		return false;
	if (pt->kind == CHAINOBJ_PATCH_MASKED_CAS && g->atomic.size == 16 &&
	    g->atomic.swap_mask_bytes[3] == 0xff) {
		*opmod = g->atomic.swap_bytes[0];
		*opcode = g->atomic.swap_bytes[3];
		return true;
	}
	if (pt->kind == CHAINOBJ_PATCH_CAS ||
	    (pt->kind == CHAINOBJ_PATCH_MASKED_CAS && g->atomic.size == 8 &&
	     ((g->atomic.swap_mask >> 24) & 0xff) == 0xff)) {
		*opmod = (uint8_t)g->atomic.swap;
		*opcode = (uint8_t)(g->atomic.swap >> 24);
		return true;
	}
	return false;
}

int chainobj_armed_decode(const struct chainobj *o, uint32_t q, uint32_t i, struct prism_wqe *out)
{
	if (q >= o->n_queues || i >= o->queues[q].n_sq)
		return 0;
	const struct chainobj_wqe *t = &o->queues[q].sq[i];
	uint8_t buf[PRISM_WQE_MAX_BYTES];

	if (t->len > sizeof(buf))
		return 0;
	for (uint32_t k = 0; k < o->n_patches; k++) {
		const struct chainobj_patch *pt = &o->patches[k];
		struct prism_wqe g;
		uint8_t opmod, opcode;

		if (pt->target.ring != CHAINOBJ_RING_SQ || pt->target.queue != q ||
		    pt->target.wqe != i || pt->target.offset != 0 ||
		    pt->writer_ring != CHAINOBJ_RING_SQ || pt->writer_queue >= o->n_queues ||
		    pt->writer_wqe >= o->queues[pt->writer_queue].n_sq)
			continue;
		const struct chainobj_wqe *gw = &o->queues[pt->writer_queue].sq[pt->writer_wqe];
		if (prism_wqe_decode(gw->bytes, gw->len, &g, NULL) < 0 ||
		    !guard_swap(pt, &g, &opmod, &opcode))
			continue;
		memcpy(buf, t->bytes, t->len);
		buf[0] = opmod;
		buf[3] = opcode;
		if (prism_wqe_decode(buf, t->len, out, NULL) > 0)
			return 1;
		out->ctrl.opmod = opmod;
		out->ctrl.opcode = opcode;
		return -1;
	}
	return 0;
}
