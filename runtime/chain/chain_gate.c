/* SPDX-License-Identifier: MIT */
/*
 * chain/chain_gate.c - does every invocation of an object wait for a real
 * request?  (chain_verify_request_gate, chain_verify.h.)
 *
 * An invocation starts when a WAIT on the conn queue's receive CQ is
 * released.  Any completion of that CQ releases it, a flushed receive's
 * too: a QP in the error state completes every posted receive with an
 * error CQE (opcode 14, syndrome WR_FLUSH_ERR) and writes nothing into its
 * buffer.  So each such WAIT must be followed, in its own queue and with
 * nothing in between, by the request gate (chainobj.h, CHAINOBJ_GATE_*): a
 * wait-on-data on the op_own word of exactly the CQE that WAIT waited for
 * (cqe-addr with the WAIT's stride and delta, cq-lkey of the same CQ)
 * that holds until the opcode says "responder SEND".  Neither WQE may be
 * the target of a patch.
 *
 * Owns: that check.  Reads WQEs only through the codec.
 * Must not: print, or modify the object.
 */
#include "chain/chain_verify.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <prism/wqe.h>

static bool why(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool why(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;

	if (buf && cap) {
		va_start(ap, fmt);
		vsnprintf(buf, cap, fmt, ap);
		va_end(ap);
	}
	return false;
}

static bool decode_sq(const struct chainobj *o, uint32_t q, uint32_t i, struct prism_wqe *w)
{
	const struct chainobj_wqe *t = &o->queues[q].sq[i];

	return prism_wqe_decode(t->bytes, t->len, w, NULL) > 0;
}

/* The relocation at byte @off of SQ template (@q, @i), or NULL. */
static const struct chainobj_reloc *reloc_at(const struct chainobj *o, uint32_t q, uint32_t i,
                                             uint32_t off)
{
	for (uint32_t r = 0; r < o->n_relocs; r++) {
		const struct chainobj_site *s = &o->relocs[r].site;

		if (s->queue == q && s->ring == CHAINOBJ_RING_SQ && s->wqe == i && s->offset == off)
			return &o->relocs[r];
	}
	return NULL;
}

static const struct chainobj_reloc *field_reloc(const struct chainobj *o, uint32_t q, uint32_t i,
                                                const struct prism_wqe *w, enum prism_wqe_field f)
{
	uint32_t off, len;

	if (prism_wqe_field_offset(w, f, &off, &len) != 0)
		return NULL;
	return reloc_at(o, q, i, off);
}

static bool patched(const struct chainobj *o, uint32_t q, uint32_t i)
{
	for (uint32_t p = 0; p < o->n_patches; p++) {
		const struct chainobj_site *t = &o->patches[p].target;

		if (t->queue == q && t->ring == CHAINOBJ_RING_SQ && t->wqe == i)
			return true;
	}
	return false;
}

/* Is SQ template (@q, @g) the gate of the WAIT (@q, @g - 1) whose count
 * relocation is @count, on CQ @cq? */
static bool is_gate(const struct chainobj *o, uint32_t q, uint32_t g, uint32_t cq,
                    const struct chainobj_reloc *count, char *msg, size_t cap)
{
	const char *qn = o->queues[q].name;
	const struct chainobj_reloc *ra, *rk;
	struct prism_wqe w;

	if (g >= o->queues[q].n_sq || !decode_sq(o, q, g, &w) ||
	    w.ctrl.opcode != PRISM_OP_CQE_WAIT || w.ctrl.opmod != PRISM_WAIT_ON_DATA)
		return why(msg, cap,
		           "queue %s wqe %u waits on the receive CQ '%s' with no request gate "
		           "after it",
		           qn, g - 1, o->cqs[cq].name);
	ra = field_reloc(o, q, g, &w, PRISM_FIELD_WOD_ADDR);
	rk = field_reloc(o, q, g, &w, PRISM_FIELD_WOD_LKEY);
	if (w.wod.cond != PRISM_WOD_EQUAL || w.wod.fail_action ||
	    w.wod.mask != CHAINOBJ_GATE_MASK || w.wod.value != CHAINOBJ_GATE_VALUE || !ra || !rk ||
	    ra->kind != CHAINOBJ_RELOC_CQE_ADDR || ra->site.width != 8 || ra->target != cq ||
	    ra->addend != CHAINOBJ_GATE_CQE_OFFSET || ra->stride != count->stride ||
	    ra->delta != count->delta || rk->kind != CHAINOBJ_RELOC_CQ_LKEY ||
	    rk->site.width != 4 || rk->target != cq)
		return why(msg, cap,
		           "queue %s wqe %u: the wait-on-data after the receive WAIT is not the "
		           "request gate on that WAIT's CQE",
		           qn, g);
	if (patched(o, q, g - 1) || patched(o, q, g))
		return why(msg, cap, "queue %s wqe %u: the request gate or its WAIT is patched", qn,
		           g);
	return true;
}

bool chain_verify_request_gate(const struct chainobj *o, char *msg, size_t cap)
{
	int conn = -1;
	uint32_t cq, waits = 0;

	/* a chain that re-arms itself is posted once: its gate would watch the
	 * CQE slot of invocation 0 for ever */
	if (o->rearm != CHAINOBJ_REARM_CPU_REPOST)
		return why(msg, cap, "a NIC-recycled chain cannot move its gate to each CQE");
	for (uint32_t q = 0; q < o->n_queues; q++)
		if (o->queues[q].role == CHAINOBJ_ROLE_CONN && o->queues[q].rq_slots)
			conn = (int)q;
	if (conn < 0)
		return why(msg, cap, "no client-facing queue with a receive queue");
	cq = o->queues[conn].recv_cq;
	/* every WAIT on the receive CQ: the CQN relocation names it */
	for (uint32_t r = 0; r < o->n_relocs; r++) {
		const struct chainobj_reloc *rl = &o->relocs[r], *count;
		uint32_t q = rl->site.queue, i = rl->site.wqe;
		struct prism_wqe w;

		if (rl->kind != CHAINOBJ_RELOC_CQN || rl->target != cq ||
		    rl->site.ring != CHAINOBJ_RING_SQ || !decode_sq(o, q, i, &w) ||
		    w.ctrl.opcode != PRISM_OP_CQE_WAIT || w.ctrl.opmod != PRISM_WAIT_CQ ||
		    field_reloc(o, q, i, &w, PRISM_FIELD_WAIT_EN_OBJ) != rl)
			continue;
		count = field_reloc(o, q, i, &w, PRISM_FIELD_WAIT_EN_INDEX);
		if (!count || count->kind != CHAINOBJ_RELOC_CQ_COUNT || count->target != cq)
			return why(msg, cap, "queue %s wqe %u: a WAIT on '%s' with no CQE number",
			           o->queues[q].name, i, o->cqs[cq].name);
		if (!is_gate(o, q, i + 1, cq, count, msg, cap))
			return false;
		waits++;
	}
	if (!waits)
		return why(msg, cap, "nothing waits on the receive CQ '%s'", o->cqs[cq].name);
	return true;
}
