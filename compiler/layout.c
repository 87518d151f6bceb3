/* SPDX-License-Identifier: MIT */
/*
 * compiler/layout.c - layout of each queue into its ring.
 *
 * Owns: every node's size (ds from the codec, basic blocks) and slot (first
 * BB, relative to the invocation's base counter), every signaled node's
 * completion number on its queue's CQ, each queue's per-invocation advance
 * and CQE count, and ring sizes (a power of two holding two invocations, so
 * invocation k+1 can be posted while k runs; a recycled loop's lap queue:
 * exactly one lap).
 *
 * Slots are relative: invocation k of queue q starts at counter
 * base(q) + k * bbs(q); relocations (emit.c) carry (stride, delta) so the
 * runtime computes absolute SEND_EN / WAIT indices (RedN 3.4: absolute,
 * ever-growing counts).
 *
 * Must not: reorder nodes or insert any.
 */
#include "compiler/sched.h"

#include <stdio.h>
#include <string.h>

int layout_program(struct ir_prog *p, char *err, size_t errlen)
{
	for (unsigned qi = 0; qi < p->n_queues; qi++) {
		struct ir_queue *q = &p->queues[qi];
		uint32_t slot = 0, sig = 0;
		for (unsigned i = 0; i < q->n; i++) {
			struct ir_node *n = &p->nodes[q->nodes[i]];
			struct prism_wqe w;
			uint8_t buf[PRISM_WQE_MAX_BYTES];
			struct prism_wqe_diag d;
			n->pos = (int)i;
			emit_node_wqe(p, n, &w);
			int len = prism_wqe_encode(&w, buf, sizeof(buf), &d);
			if (len < 0) {
				snprintf(err, errlen, "queue %s node n%d (%s): %s", q->name, n->id,
				         prism_opcode_name(n->op), d.msg);
				return -1;
			}
			n->ds = (uint32_t)len / PRISM_WQE_DS_BYTES;
			n->bbs = prism_wqe_bbs(n->ds);
			n->slot = slot;
			slot += n->bbs;
			n->count = n->signaled ? ++sig : 0;
		}
		q->bbs = slot;
		q->signaled = sig;
		uint32_t ring = 64;
		while (ring < 2 * slot && ring < (1u << 30))
			ring <<= 1;
		if (q->lap) {
			/* a recycled loop's lap: the ring is exactly one lap (the
			 * lowering padded it), so every lap reuses the same slots */
			if (!slot || (slot & (slot - 1))) {
				snprintf(err, errlen,
				         "queue %s: a lap of %u BBs is not a power of two", q->name,
				         slot);
				return -1;
			}
			ring = slot;
		}
		q->ring = ring;
	}
	return 0;
}
