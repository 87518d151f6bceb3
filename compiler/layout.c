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
 * A WQE patched across one of its BB boundaries (a READ scattering 32
 * bytes into a WRITE's inline data at bytes 36..67) must not straddle the
 * ring's end: the loader wraps a patch address per BB (inst.c, qbuf-addr),
 * but one scatter entry writes its bytes linearly, while the NIC fetches the
 * WQE wrapped.  Such a queue is padded with NOPs so that each of those WQEs starts at a multiple
 * of A (the power of two at least its BBs, largest over the queue) and one
 * invocation advances the counter by a multiple of A; the ring is a
 * multiple of A too, so the WQE lies inside one aligned block of the ring.
 *
 * Must not: reorder nodes or insert any other than that padding.
 */
#include "compiler/sched.h"

#include <stdio.h>
#include <string.h>

/* Encode node n for its size (ds, BBs). */
static int node_size(struct ir_prog *p, const struct ir_queue *q, struct ir_node *n, char *err,
                     size_t errlen)
{
	struct prism_wqe w;
	uint8_t buf[PRISM_WQE_MAX_BYTES];
	struct prism_wqe_diag d;
	emit_node_wqe(p, n, &w);
	int len = prism_wqe_encode(&w, buf, sizeof(buf), &d);
	if (len < 0) {
		snprintf(err, errlen, "queue %s node n%d (%s): %s", q->name, n->id,
		         prism_opcode_name(n->op), d.msg);
		return -1;
	}
	n->ds = (uint32_t)len / PRISM_WQE_DS_BYTES;
	n->bbs = prism_wqe_bbs(n->ds);
	return 0;
}

/* The alignment node `id` needs: a power of two at least its BBs when a
 * patch's bytes cross one of its BB boundaries, else 1. */
static uint32_t patched_align(const struct ir_prog *p, int id)
{
	uint32_t a = 1;
	for (unsigned i = 0; i < p->n_patches; i++) {
		const struct ir_patch *pt = &p->patches[i];
		if (pt->target != id || !pt->len ||
		    pt->off / PRISM_WQE_BB == (pt->off + pt->len - 1) / PRISM_WQE_BB)
			continue;
		while (a < p->nodes[id].bbs)
			a <<= 1;
	}
	return a;
}

/* A NOP of `bbs` BBs (at most 15: its ds is 6 bits) at position pos of q. */
static bool insert_pad(struct ir_prog *p, unsigned qi, unsigned pos, uint32_t bbs)
{
	struct ir_node *pad = ir_insert(p, (int)qi, pos, PRISM_OP_NOP, IR_ROLE_DATA);
	if (!pad)
		return false;
	pad->what = "padding: a patched WQE never wraps the ring";
	pad->nop_ds = (uint8_t)(bbs * (PRISM_WQE_BB / PRISM_WQE_DS_BYTES));
	pad->ds = pad->nop_ds;
	pad->bbs = bbs;
	return true;
}

static uint32_t ring_for(uint32_t bbs)
{
	uint32_t ring = 64;
	while (ring < 2 * bbs && ring < (1u << 30))
		ring <<= 1;
	return ring;
}

/* Can a WQE patched across a BB boundary straddle the ring's end, laid out as
 * q is?  Invocation k puts a WQE of b BBs at (k * B + s) mod R: those are
 * the positions s mod g + j * g (g = gcd(B, R), R a power of two), the
 * highest R - g + s mod g, so it straddles for some k iff s mod g + b > g. */
static bool may_straddle(const struct ir_prog *p, const struct ir_queue *q)
{
	uint32_t total = 0;
	for (unsigned i = 0; i < q->n; i++)
		total += p->nodes[q->nodes[i]].bbs;
	uint32_t ring = ring_for(total), g = 1;
	while (g < ring && total % (2 * g) == 0)
		g <<= 1;
	if (total == 0)
		g = ring;
	for (unsigned i = 0, slot = 0; i < q->n; i++) {
		const struct ir_node *n = &p->nodes[q->nodes[i]];
		if (patched_align(p, q->nodes[i]) > 1 && slot % g + n->bbs > g)
			return true;
		slot += n->bbs;
	}
	return false;
}

/* Pad queue qi so that no WQE patched across a BB boundary straddles the
 * ring's end (see the top of the file). */
static int pad_patched(struct ir_prog *p, unsigned qi, char *err, size_t errlen)
{
	struct ir_queue *q = &p->queues[qi];
	uint32_t align = 1;
	for (unsigned i = 0; i < q->n; i++) {
		if (node_size(p, q, &p->nodes[q->nodes[i]], err, errlen) < 0)
			return -1;
		uint32_t a = patched_align(p, q->nodes[i]);
		align = a > align ? a : align;
	}
	if (align == 1 || q->lap)
		return 0; /* a lap's ring is exactly one lap, reused as a whole */
	if (!may_straddle(p, q))
		return 0;
	uint32_t slot = 0;
	for (unsigned i = 0; i <= q->n; i++) {
		bool end = i == q->n;
		if (!end && (patched_align(p, q->nodes[i]) == 1 || slot % align == 0)) {
			slot += p->nodes[q->nodes[i]].bbs;
			continue;
		}
		if (slot % align) {
			uint32_t gap = align - slot % align;
			if (gap > 15 || !insert_pad(p, qi, i, gap)) {
				snprintf(err, errlen, "queue %s: cannot pad %u BBs", q->name, gap);
				return -1;
			}
			slot += gap;
			i++;
		}
		if (!end)
			slot += p->nodes[q->nodes[i]].bbs;
	}
	return 0;
}

int layout_program(struct ir_prog *p, char *err, size_t errlen)
{
	for (unsigned qi = 0; qi < p->n_queues; qi++)
		if (pad_patched(p, qi, err, errlen) < 0)
			return -1;
	for (unsigned qi = 0; qi < p->n_queues; qi++) {
		struct ir_queue *q = &p->queues[qi];
		uint32_t slot = 0, sig = 0;
		for (unsigned i = 0; i < q->n; i++) {
			struct ir_node *n = &p->nodes[q->nodes[i]];
			n->pos = (int)i;
			if (node_size(p, q, n, err, errlen) < 0)
				return -1;
			n->slot = slot;
			slot += n->bbs;
			n->count = n->signaled ? ++sig : 0;
		}
		q->bbs = slot;
		q->signaled = sig;
		uint32_t ring = ring_for(slot);
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
