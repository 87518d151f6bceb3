/* SPDX-License-Identifier: MIT */
/*
 * core/inst.c - a program instance per connection: create, post, re-arm,
 * detect errors, tear down.
 *
 * Posting follows the execution model of docs/chain-format.md: every queue
 * of the object becomes a QP (the conn queue connected to the client, each
 * worker connected to itself on this device), every CQ a CQ.  Invocation k
 * uses window k of each ring: template slot s goes to slot
 * (s + k * per_invocation) mod ring_slots, and the relocations are applied
 * with k (count kinds: k * stride + delta; client response address: slot
 * k mod depth).  With CPU re-arm `depth` windows are posted ahead; when
 * invocation k has produced its CQEs on every CQ, window k + depth is
 * posted.  Invocations whose windows hold WQEs back never overlap: each
 * window's entry is rung only once the one before it completed (serial).
 * A program that recycles its own queues is posted once.  A
 * recycled loop's lap queue (queues[].recycle) is re-posted like any queue,
 * into the same ring slots (its ring is one lap); after each invocation it
 * advances by the laps it ran, read back from its lap counter.
 *
 *   client --SEND--> conn.RQ (RECV scatters args into WQE fields)
 *                    ctl: WAIT conn.rcq -> SEND_EN w0 ... -> SEND_EN conn
 *                    conn.SQ: WRITE_IMM result --> client
 *
 * Owns: everything a connection allocates on the device (its protection
 * domain, region registrations and queue rights: inst_prot.c).
 * Must not: hand queue-memory keys to anyone but the program's own WQEs.
 */
#include <stdlib.h>
#include <string.h>

#include <prism/wqe.h>

#include "core/inst.h"
#include "util/byteorder.h"

#define INST_MAX_DEPTH 16u

static unsigned min_u(unsigned a, unsigned b)
{
	return a < b ? a : b;
}

/*
 * Does a SEND_EN of the chain enable only part of its target queue's window
 * (a barrier holds the rest back until the patches it waits for landed)?
 * Enables count producer indexes, so the next invocation's entry enable,
 * which counts past the end of this window, would release the held WQEs
 * early: the NIC may fetch them before their patches (docs/nic-model.md,
 * prefetch hazards).  Such invocations must not overlap (serial, below).
 * (The `put` of lib/chains/prism_ops.prism: two requests back to back
 * failed the connection.)
 */
static bool holds_back(const struct chainobj *o)
{
	for (uint32_t i = 0; i < o->n_relocs; i++) {
		const struct chainobj_reloc *r = &o->relocs[i];
		struct prism_ctrl_seg cs;

		/* the enable's counter, not the WQE's own index in its control
		 * segment (the first 16 bytes) */
		if (r->kind != CHAINOBJ_RELOC_SQ_COUNT || r->site.ring != CHAINOBJ_RING_SQ ||
		    r->site.offset < 16)
			continue;
		prism_ctrl_seg_unpack(o->queues[r->site.queue].sq[r->site.wqe].bytes, &cs);
		if (cs.opcode == PRISM_OP_SEND_ENABLE && r->delta != r->stride)
			return true;
	}
	return false;
}

/* Invocation windows to post ahead: as many as every ring (and @want, and
 * INST_MAX_DEPTH) holds, or 1 where posting the next window while one runs
 * is unsafe whatever the client sends. */
static unsigned ring_depth(const struct chainobj *o, unsigned want)
{
	unsigned d = want ? min_u(want, INST_MAX_DEPTH) : INST_MAX_DEPTH;

	/* With early exits (or a recycled loop's laps) invocation k+1's
	 * counters depend on k's run; a scratch image is re-applied between
	 * invocations only; a receive that scatters into scratch would
	 * overwrite, the moment a request arrives, what the running
	 * invocation still reads there. */
	if (o->n_exits || o->scratch_init_len)
		return 1;
	for (uint32_t q = 0; q < o->n_queues; q++)
		if (o->queues[q].recycle.max_laps)
			return 1;
	for (uint32_t i = 0; i < o->n_relocs; i++)
		if (o->relocs[i].site.ring == CHAINOBJ_RING_RQ &&
		    o->relocs[i].kind == CHAINOBJ_RELOC_SCRATCH_ADDR)
			return 1;
	for (uint32_t q = 0; q < o->n_queues; q++) {
		const struct chainobj_queue *qu = &o->queues[q];

		if (qu->sq_per_invocation)
			d = min_u(d, qu->sq_slots / qu->sq_per_invocation);
		if (qu->rq_per_invocation)
			d = min_u(d, qu->rq_slots / qu->rq_per_invocation);
	}
	for (uint32_t c = 0; c < o->n_cqs; c++)
		if (o->cqs[c].per_invocation)
			d = min_u(d, o->cqs[c].entries / o->cqs[c].per_invocation);
	return d ? d : 1;
}

/* Byte address of ring slot @slot of queue @q. */
static uint8_t *slot_ptr(struct core_inst *in, uint32_t q, enum chainobj_ring ring, uint32_t slot)
{
	const struct core_qp_info *qi = &in->qps[q].info;

	if (ring == CHAINOBJ_RING_SQ)
		return (uint8_t *)qi->buf + qi->sq_offset + (size_t)slot * PRISM_WQE_BB;
	return (uint8_t *)qi->buf + (size_t)slot * qi->rq_stride;
}

/* Counter base of queue @q's @ring in the invocation being posted. */
static uint64_t ring_base(const struct core_inst *in, uint32_t q, enum chainobj_ring ring)
{
	return ring == CHAINOBJ_RING_SQ ? in->base.sq[q] : in->base.rq[q];
}

static uint32_t ring_slots(const struct chainobj_queue *qu, enum chainobj_ring ring)
{
	return ring == CHAINOBJ_RING_SQ ? qu->sq_slots : qu->rq_slots;
}

/* Ring slot of template slot @slot of queue @q in the invocation being posted. */
static uint32_t window_slot(const struct core_inst *in, uint32_t q, enum chainobj_ring ring,
                            uint32_t slot)
{
	const struct chainobj_queue *qu = &in->prog->obj->queues[q];

	return (uint32_t)((ring_base(in, q, ring) + slot) % ring_slots(qu, ring));
}

/* The value relocation @r stores in the invocation being posted (number @k). */
static uint64_t reloc_value(struct core_inst *in, const struct chainobj_reloc *r, uint64_t k)
{
	switch (r->kind) {
	case CHAINOBJ_RELOC_QPN:
		return in->qps[r->target].info.qpn;
	case CHAINOBJ_RELOC_CQN:
		return in->cqs[r->target].info.cqn;
	case CHAINOBJ_RELOC_QBUF_ADDR: {
		/* WQE `delta` of this invocation in the target ring, byte `addend`
		 * (an addend of a whole slot or more counts slots too). */
		enum chainobj_ring ring = (enum chainobj_ring)r->ring;
		uint32_t unit =
		    ring == CHAINOBJ_RING_SQ ? PRISM_WQE_BB : in->qps[r->target].info.rq_stride;
		uint32_t idx = (uint32_t)(r->delta + r->addend / unit);

		return (uintptr_t)slot_ptr(in, r->target, ring,
		                           window_slot(in, r->target, ring, idx)) +
		       r->addend % unit;
	}
	case CHAINOBJ_RELOC_QBUF_LKEY:
		return in->qps[r->target].keys.lkey;
	case CHAINOBJ_RELOC_QBUF_RKEY:
		return in->qps[r->target].keys.rkey;
	case CHAINOBJ_RELOC_REGION_ADDR:
		return (uintptr_t)in->prog->regions[r->target]->addr + r->addend;
	case CHAINOBJ_RELOC_REGION_LKEY: /* this connection's registration of it */
		return in->regions[r->target].keys.lkey;
	case CHAINOBJ_RELOC_REGION_RKEY:
		return in->regions[r->target].keys.rkey;
	case CHAINOBJ_RELOC_SCRATCH_ADDR:
		return (uintptr_t)in->scratch + r->addend;
	case CHAINOBJ_RELOC_SCRATCH_LKEY:
		return in->scratch_keys.lkey;
	case CHAINOBJ_RELOC_SCRATCH_RKEY:
		return in->scratch_keys.rkey;
	case CHAINOBJ_RELOC_CLIENT_RESP_ADDR:
		return in->peer.resp_addr + r->addend + (k % in->depth) * in->peer.resp_stride;
	case CHAINOBJ_RELOC_CLIENT_RESP_RKEY:
		return in->peer.resp_rkey;
	case CHAINOBJ_RELOC_CLIENT_QPN:
		return in->peer.qpn;
	case CHAINOBJ_RELOC_SQ_COUNT:
		return (in->base.sq[r->target] + r->delta) & 0xffffu; /* ENABLE: 16 bits */
	case CHAINOBJ_RELOC_RQ_COUNT:
		return (in->base.rq[r->target] + r->delta) & 0xffffu;
	case CHAINOBJ_RELOC_CQ_COUNT:
		return (in->base.cq[r->target] + r->delta) & 0xffffffu; /* WAIT: 24 bits */
	case CHAINOBJ_RELOC_CQE_ADDR: {
		const struct core_cq_info *ci = &in->cqs[r->target].info;

		return (uintptr_t)ci->buf +
		       (size_t)((in->base.cq[r->target] + r->delta) & (ci->ncqe - 1u)) *
		           PRISM_CQE_BYTES +
		       r->addend;
	}
	case CHAINOBJ_RELOC_CQ_LKEY:
		return in->cqs[r->target].ring_keys.lkey;
	case CHAINOBJ_RELOC__COUNT:
		break;
	}
	return 0;
}

/* Does relocation kind @k store a different value in each window? */
static bool reloc_per_window(enum chainobj_reloc_kind k)
{
	return k == CHAINOBJ_RELOC_QBUF_ADDR || k == CHAINOBJ_RELOC_CLIENT_RESP_ADDR ||
	       k == CHAINOBJ_RELOC_SQ_COUNT || k == CHAINOBJ_RELOC_RQ_COUNT ||
	       k == CHAINOBJ_RELOC_CQ_COUNT || k == CHAINOBJ_RELOC_CQE_ADDR;
}

/* Byte offset of template @wqe of @ring in queue @q's image. */
static size_t image_offset(const struct chainobj_queue *qu, enum chainobj_ring ring, uint32_t wqe)
{
	size_t off = 0;

	if (ring == CHAINOBJ_RING_RQ)
		for (uint32_t i = 0; i < qu->n_sq; i++)
			off += qu->sq[i].len;
	for (uint32_t i = 0; i < wqe; i++)
		off += ring == CHAINOBJ_RING_SQ ? qu->sq[i].len : qu->rq[i].len;
	return off;
}

/* Build in->image and in->per_window (after the objects exist and the peer
 * is known: every value the image holds is final). */
static int build_image(struct core_inst *in)
{
	const struct chainobj *o = in->prog->obj;

	in->image = calloc(o->n_queues ? o->n_queues : 1, sizeof(*in->image));
	in->per_window = calloc(o->n_relocs ? o->n_relocs : 1, sizeof(*in->per_window));
	if (!in->image || !in->per_window)
		return -ENOMEM;
	for (uint32_t q = 0; q < o->n_queues; q++) {
		const struct chainobj_queue *qu = &o->queues[q];
		size_t len = image_offset(qu, CHAINOBJ_RING_RQ, qu->n_rq);
		uint8_t *p = in->image[q] = malloc(len ? len : 1);

		if (!p)
			return -ENOMEM;
		for (uint32_t i = 0; i < qu->n_sq; p += qu->sq[i].len, i++)
			memcpy(p, qu->sq[i].bytes, qu->sq[i].len);
		for (uint32_t i = 0; i < qu->n_rq; p += qu->rq[i].len, i++)
			memcpy(p, qu->rq[i].bytes, qu->rq[i].len);
	}
	for (uint32_t i = 0; i < o->n_relocs; i++) {
		const struct chainobj_reloc *r = &o->relocs[i];
		const struct chainobj_queue *qu = &o->queues[r->site.queue];
		size_t at;

		if (reloc_per_window((enum chainobj_reloc_kind)r->kind)) {
			in->per_window[in->n_per_window++] = i;
			continue;
		}
		at = image_offset(qu, (enum chainobj_ring)r->site.ring, r->site.wqe) +
		     r->site.offset;
		chainobj_put_uint(in->image[r->site.queue] + at, r->site.width, r->order,
		                  reloc_value(in, r, 0));
	}
	return 0;
}

/*
 * The CQE slot a request gate of window @k will read (a cqe-addr
 * relocation) is marked invalid before the window's receive is posted:
 * opcode 15, the owner bit (bit 0) kept, so rdma-core's ownership test is
 * unchanged.  The slot last held the CQE of an invocation that is over
 * (window k is posted only once invocation k - depth completed, and the
 * ring holds at least depth CQEs per invocation), so nothing still reads
 * it.  The gate then never finds an older invocation's successful
 * completion there, even where the NIC's wait-on-data could read the slot
 * before the CQE that released the WAIT in front of it is visible: a stale
 * read keeps the gate shut, it cannot open it.
 */
static void invalidate_gate_slots(struct core_inst *in, uint64_t k)
{
	const struct chainobj *o = in->prog->obj;

	for (uint32_t j = 0; j < in->n_per_window; j++) {
		const struct chainobj_reloc *r = &o->relocs[in->per_window[j]];
		uint8_t *op_own;

		if (r->kind != CHAINOBJ_RELOC_CQE_ADDR)
			continue;
		op_own =
		    (uint8_t *)(uintptr_t)(reloc_value(in, r, k) - r->addend) + PRISM_CQE_BYTES - 1;
		__atomic_store_n(op_own, (uint8_t)(PRISM_CQE_INVALID << 4 | (*op_own & 1u)),
		                 __ATOMIC_RELEASE);
	}
}

/* Slots from a window's base to its last template on @qu's @ring (at least
 * the per-invocation amount). */
static uint32_t window_end(const struct chainobj_queue *qu, enum chainobj_ring ring)
{
	uint32_t end = ring == CHAINOBJ_RING_SQ ? qu->sq_per_invocation : qu->rq_per_invocation;

	if (ring == CHAINOBJ_RING_SQ)
		for (uint32_t i = 0; i < qu->n_sq; i++) {
			uint32_t e =
			    qu->sq[i].slot + prism_wqe_bbs(qu->sq[i].len / PRISM_WQE_DS_BYTES);

			if (e > end)
				end = e;
		}
	else
		for (uint32_t i = 0; i < qu->n_rq; i++)
			if (qu->rq[i].slot + 1u > end)
				end = qu->rq[i].slot + 1u;
	return end;
}

/* Copy invocation @k's templates (the image) to their ring slots at the
 * current bases and apply the relocations that change per window. */
static void post_window(struct core_inst *in, uint64_t k)
{
	const struct chainobj *o = in->prog->obj;

	invalidate_gate_slots(in, k);

	for (uint32_t q = 0; q < o->n_queues; q++) {
		const struct chainobj_queue *qu = &o->queues[q];
		const uint8_t *src = in->image[q];

		/* A WQE may wrap around the end of the ring: copy it BB by BB. */
		for (uint32_t i = 0; i < qu->n_sq; src += qu->sq[i].len, i++)
			for (uint32_t off = 0; off < qu->sq[i].len; off += PRISM_WQE_BB) {
				uint32_t n = qu->sq[i].len - off;

				memcpy(slot_ptr(in, q, CHAINOBJ_RING_SQ,
				                window_slot(in, q, CHAINOBJ_RING_SQ,
				                            qu->sq[i].slot + off / PRISM_WQE_BB)),
				       src + off, n < PRISM_WQE_BB ? n : PRISM_WQE_BB);
			}
		for (uint32_t i = 0; i < qu->n_rq; src += qu->rq[i].len, i++)
			memcpy(slot_ptr(in, q, CHAINOBJ_RING_RQ,
			                window_slot(in, q, CHAINOBJ_RING_RQ, qu->rq[i].slot)),
			       src, qu->rq[i].len);
	}
	for (uint32_t j = 0; j < in->n_per_window; j++) {
		const struct chainobj_reloc *r = &o->relocs[in->per_window[j]];
		const struct chainobj_wqe *w =
		    chainobj_site_wqe(o, r->site.queue, r->site.ring, r->site.wqe);
		/* Fields sit inside 16-byte segments, never across a 64-byte BB. */
		uint32_t bb = r->site.ring == CHAINOBJ_RING_SQ ? r->site.offset / PRISM_WQE_BB : 0;
		uint32_t off = r->site.ring == CHAINOBJ_RING_SQ ? r->site.offset % PRISM_WQE_BB
		                                                : r->site.offset;
		uint8_t *p = slot_ptr(in, r->site.queue, r->site.ring,
		                      window_slot(in, r->site.queue, r->site.ring, w->slot + bb));

		chainobj_put_uint(p + off, r->site.width, r->order, reloc_value(in, r, k));
	}
	/* Producer counters: every template of this invocation is posted. */
	for (uint32_t q = 0; q < o->n_queues; q++) {
		const struct chainobj_queue *qu = &o->queues[q];
		uint64_t sq_end = window_end(qu, CHAINOBJ_RING_SQ);
		uint64_t rq_end = window_end(qu, CHAINOBJ_RING_RQ);

		if (in->base.sq[q] + sq_end > in->sq_pi[q])
			in->sq_pi[q] = in->base.sq[q] + sq_end;
		if (in->base.rq[q] + rq_end > in->rq_pi[q])
			in->rq_pi[q] = in->base.rq[q] + rq_end;
	}
}

/* Where recycled queue @q's lap counter sits in its ring (the lap is the
 * whole ring: every lap and invocation uses the same slots). */
static uint8_t *lap_counter(struct core_inst *in, uint32_t q)
{
	const struct chainobj_queue *qu = &in->prog->obj->queues[q];
	const struct chainobj_wqe *t = &qu->sq[qu->recycle.counter_wqe];
	uint32_t off = qu->recycle.counter_offset;

	return slot_ptr(in, q, CHAINOBJ_RING_SQ,
	                window_slot(in, q, CHAINOBJ_RING_SQ, t->slot + off / PRISM_WQE_BB)) +
	       off % PRISM_WQE_BB;
}

/* How much recycled queue @qu's lap counter grows per lap: a SEND_EN index
 * by the ring, a WAIT count by the CQEs the lap signals (the verifier
 * rejects a counter that does not grow). */
static uint32_t lap_growth(const struct chainobj_queue *qu)
{
	struct prism_ctrl_seg cs;

	prism_ctrl_seg_unpack(qu->sq[qu->recycle.counter_wqe].bytes, &cs);
	return cs.opcode == PRISM_OP_SEND_ENABLE ? qu->sq_slots : qu->recycle.cq_per_lap;
}

/*
 * After an invocation: how many laps each recycled queue ran (its counter
 * grew by the ring per lap), and their bases advanced by that many laps.
 * A counter that moved by anything else means the chain misbehaved: the
 * instance fails rather than re-post over a queue whose position it does not
 * know.
 */
static int lap_advance(struct core_inst *in)
{
	const struct chainobj *o = in->prog->obj;

	for (uint32_t q = 0; q < o->n_queues; q++) {
		const struct chainobj_queue *qu = &o->queues[q];
		uint32_t now, laps, growth;

		if (!qu->recycle.max_laps)
			continue;
		growth = lap_growth(qu);
		now = (uint32_t)chainobj_get_uint(lap_counter(in, q), 4, CHAINOBJ_ORDER_BIG);
		laps = growth ? (now - in->lap_start[q]) / growth : 0;
		if (!growth || (now - in->lap_start[q]) % growth || !laps ||
		    laps > qu->recycle.max_laps) {
			core_warn("conn %u: program '%s': queue '%s': lap counter moved from %u to "
			          "%u (%u a lap, at most %u laps)",
			          in->id, in->prog->name, qu->name, in->lap_start[q], now, growth,
			          qu->recycle.max_laps);
			return -PRISM_E_CONN;
		}
		core_dbg("conn %u: queue '%s' ran %u laps", in->id, qu->name, laps);
		in->base.sq[q] += (uint64_t)laps * qu->sq_slots;
		in->base.cq[qu->send_cq] += (uint64_t)laps * qu->recycle.cq_per_lap;
		in->cqs[qu->send_cq].consumed += (uint64_t)laps * qu->recycle.cq_per_lap;
	}
	return 0;
}

/* A recycled queue's send CQ is never consumed (a long loop laps the ring
 * many times between two polls; its CQEs are counted by laps), but an error
 * completion anywhere in it fails the instance: errors are final, and each
 * instance has CQs of its own. */
static int scan_lap_cq(struct core_inst *in, uint32_t c)
{
	const struct core_inst_cq *cq = &in->cqs[c];

	for (uint32_t i = 0; i < cq->info.ncqe; i++) {
		const uint8_t *raw = (const uint8_t *)cq->info.buf + (size_t)i * PRISM_CQE_BYTES;
		uint8_t op = __atomic_load_n(&raw[PRISM_CQE_BYTES - 1], __ATOMIC_ACQUIRE) >> 4;
		struct prism_cqe cqe;

		if (op != PRISM_CQE_REQ_ERR && op != PRISM_CQE_RESP_ERR)
			continue;
		if (prism_cqe_decode(raw, &cqe, NULL) == 0)
			core_warn("conn %u: program '%s': CQ '%s': error completion on QP 0x%x "
			          "WQE %u: %s",
			          in->id, in->prog->name, in->prog->obj->cqs[c].name, cqe.qpn,
			          cqe.wqe_counter, prism_cqe_syndrome_name(cqe.syndrome));
		return in->error = -PRISM_E_CONN;
	}
	return 0;
}

/* A recycled queue's send CQ. */
static bool lap_cq(const struct chainobj *o, uint32_t c)
{
	for (uint32_t q = 0; q < o->n_queues; q++)
		if (o->queues[q].recycle.max_laps && o->queues[q].send_cq == c)
			return true;
	return false;
}

/* Advance the bases by the per-invocation amounts or by exit @e's.  @also:
 * further exits taken in the same invocation (loops of other queues, e.g.
 * one per `parallel` lane): each sets its own halting queue's SQ and CQ. */
static void advance(struct core_inst *in, const struct chainobj_exit *e,
                    const struct chainobj_exit *const *also, uint32_t n_also)
{
	const struct chainobj *o = in->prog->obj;
	uint64_t sq[CHAINOBJ_MAX_QUEUES], cq[CHAINOBJ_MAX_QUEUES];

	for (uint32_t q = 0; q < o->n_queues && q < CHAINOBJ_MAX_QUEUES; q++) {
		sq[q] = e ? e->sq_advance[q] : o->queues[q].sq_per_invocation;
		in->base.rq[q] += e ? e->rq_advance[q] : o->queues[q].rq_per_invocation;
	}
	for (uint32_t c = 0; c < o->n_cqs && c < CHAINOBJ_MAX_QUEUES; c++)
		cq[c] = e ? e->cq_advance[c] : o->cqs[c].per_invocation;
	for (uint32_t k = 0; k < n_also; k++) {
		const struct chainobj_exit *x = also[k];
		uint32_t c = o->queues[x->queue].send_cq;

		sq[x->queue] = x->sq_advance[x->queue];
		if (c < o->n_cqs && c < CHAINOBJ_MAX_QUEUES)
			cq[c] = x->cq_advance[c];
	}
	for (uint32_t q = 0; q < o->n_queues && q < CHAINOBJ_MAX_QUEUES; q++)
		in->base.sq[q] += sq[q];
	for (uint32_t c = 0; c < o->n_cqs && c < CHAINOBJ_MAX_QUEUES; c++)
		in->base.cq[c] += cq[c];
}

/* Post the next invocation window (number in->posted) and advance. */
static void post_next(struct core_inst *in)
{
	const struct chainobj *o = in->prog->obj;

	if (o->scratch_init_len) /* depth 1: no invocation is running now */
		memcpy(in->scratch, o->scratch_init, o->scratch_init_len);
	post_window(in, in->posted++);
	for (uint32_t q = 0; q < o->n_queues; q++)
		if (o->queues[q].recycle.max_laps)
			in->lap_start[q] =
			    (uint32_t)chainobj_get_uint(lap_counter(in, q), 4, CHAINOBJ_ORDER_BIG);
	if (!o->n_exits && !in->laps)
		advance(in, NULL, NULL, 0); /* bases of the next window, known in advance */
}

/*
 * Write the producer counters into the doorbell records, then ring.  A
 * managed send queue's record is never written and the queue never rung:
 * a doorbell would start it at once (docs/nic-model.md,
 * managed-started-by-doorbell), and only SEND_EN from the chain may; what
 * SEND_EN runs does not depend on the record (send-en-past-doorbell-record;
 * MLNX_OFED libmlx5 skips both for MANAGED_SEND QPs).  Every WQE byte of
 * the window, managed queues' included, is written before any queue is
 * rung: once a queue runs, the chain may ENABLE another queue at once.
 *
 * A serial instance rings its unmanaged send queues (the entry) only up to
 * the end of the first invocation not completed: the windows after it keep
 * their receives posted, so their requests land, but their entries wait
 * until the CPU saw the invocation before them complete.  Nothing else can
 * start a window: its managed queues are enabled only by its own entry.
 */
static int ring_doorbells(struct core_inst *in)
{
	const struct chainobj *o = in->prog->obj;
	const struct core_backend_ops *ops = in->dev->ops;
	int err;

	/* WQE bytes before the doorbell records (mlx5: udma_to_device_barrier). */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (uint32_t q = 0; q < o->n_queues; q++) {
		const struct chainobj_queue *qu = &o->queues[q];
		volatile uint32_t *db = in->qps[q].info.dbrec;
		uint64_t sq_pi = in->sq_pi[q];

		if (in->serial) { /* no exits (depth > 1): window k starts at k * per */
			uint64_t entry_end = in->completed * qu->sq_per_invocation +
			                     window_end(qu, CHAINOBJ_RING_SQ);

			sq_pi = sq_pi < entry_end ? sq_pi : entry_end;
		}
		store_be32_shared(&db[0], (uint32_t)(in->rq_pi[q] & 0xffffu));
		if (!qu->managed_send)
			store_be32_shared(&db[1], (uint32_t)(sq_pi & 0xffffu));
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (uint32_t q = 0; q < o->n_queues; q++) {
		const struct chainobj_queue *qu = &o->queues[q];

		if (qu->n_rq && (err = ops->ring_rq(in->qps[q].qp)))
			return err;
		if (qu->n_sq && !qu->managed_send && (err = ops->ring_sq(in->qps[q].qp)))
			return err;
	}
	return 0;
}

uint32_t core_inst_conn_qpn(const struct core_inst *in)
{
	return in->qps[in->prog->conn_queue].info.qpn;
}

/* @remote: the client's address for the connection's queue (NULL: a queue
 * of this instance, on this shard). */
static int qp_to_rts(struct core_inst *in, uint32_t q, uint32_t node, uint32_t qpn,
                     const struct core_peer *remote)
{
	const struct core_backend_ops *ops = in->dev->ops;
	struct core_qp_peer peer = {
	    .node = node,
	    .qpn = qpn,
	    .rnr_retry = 7,
	    .min_rnr_timer = 1,
	    .retry_cnt = 7,
	};
	int err;

	if (remote) {
		peer.lid = remote->lid;
		peer.mtu = remote->mtu;
		memcpy(peer.gid, remote->gid, sizeof(peer.gid));
	}

	if ((err = core_shard_self_addr(in->dev, in->shard, &peer)) ||
	    (err = ops->modify_qp(in->qps[q].qp, CORE_QPS_INIT, NULL)) ||
	    (err = ops->modify_qp(in->qps[q].qp, CORE_QPS_RTR, &peer)) ||
	    (err = ops->modify_qp(in->qps[q].qp, CORE_QPS_RTS, &peer)))
		return err;
	return 0;
}

/* Register, in the connection's PD and for local reads only, the ring of
 * every CQ a wait-on-data of the program watches (a cq-lkey relocation
 * names it): the request gate reads the receive CQE's opcode there
 * (docs/security.md, "The request gate").  No remote right: no peer can
 * read or write a ring. */
static int register_watched_rings(struct core_inst *in)
{
	const struct chainobj *o = in->prog->obj;
	const struct core_backend_ops *ops = in->dev->ops;

	for (uint32_t i = 0; i < o->n_relocs; i++) {
		const struct chainobj_reloc *r = &o->relocs[i];
		struct core_inst_cq *cq;
		int err;

		if (r->kind != CHAINOBJ_RELOC_CQ_LKEY)
			continue;
		cq = &in->cqs[r->target]; /* the validator bounds a CQ target */
		if (cq->ring_mr)
			continue;
		err = ops->reg_mr(in->be, in->pd, cq->info.buf,
		                  (size_t)cq->info.ncqe * PRISM_CQE_BYTES, 0, &cq->ring_mr,
		                  &cq->ring_keys);
		if (err) {
			core_err("conn %u: program '%s': CQ '%s': ring registration: %s", in->id,
			         in->prog->name, o->cqs[r->target].name, prism_strerror(err));
			return err;
		}
	}
	return 0;
}

static int create_objects(struct core_inst *in)
{
	const struct chainobj *o = in->prog->obj;
	const struct core_backend_ops *ops = in->dev->ops;
	const unsigned qacc = CORE_ACCESS_LOCAL_WRITE | CORE_ACCESS_REMOTE_READ |
	                      CORE_ACCESS_REMOTE_WRITE | CORE_ACCESS_REMOTE_ATOMIC;
	int err;

	if ((err = core_inst_prot_create(in)))
		return err;
	for (uint32_t c = 0; c < o->n_cqs; c++) {
		struct core_cq_attr a = {
		    .ncqe = o->cqs[c].entries,
		    .ignore_overrun = o->cqs[c].ignore_overrun,
		};

		err = ops->create_cq(in->be, &a, &in->cqs[c].cq, &in->cqs[c].info);
		if (err) {
			core_err("conn %u: program '%s': CQ '%s': %s", in->id, in->prog->name,
			         o->cqs[c].name, prism_strerror(err));
			return err;
		}
		in->mem_bytes += (size_t)in->cqs[c].info.ncqe * PRISM_CQE_BYTES;
	}
	if ((err = register_watched_rings(in)))
		return err;
	for (uint32_t q = 0; q < o->n_queues; q++) {
		const struct chainobj_queue *qu = &o->queues[q];
		struct core_qp_attr a = {
		    .send_cq = in->cqs[qu->send_cq].cq,
		    .recv_cq = in->cqs[qu->recv_cq].cq,
		    .sq_bbs = qu->sq_slots,
		    .rq_wqes = qu->rq_slots,
		    .rq_max_sge = qu->rq_slots ? qu->rq_stride_ds : 0,
		    .flags = CORE_QP_CROSS_CHANNEL,
		    .pd = in->pd,
		    .access = core_inst_queue_access(o, q),
		};

		if (qu->managed_send)
			a.flags |= CORE_QP_MANAGED_SEND;
		if (qu->managed_recv)
			a.flags |= CORE_QP_MANAGED_RECV;
		if (!in->cpu_rearm)
			a.flags |= CORE_QP_IGNORE_RQ_OVERFLOW;
		err = ops->create_qp(in->be, &a, &in->qps[q].qp, &in->qps[q].info);
		if (err) {
			core_err("conn %u: program '%s': queue '%s': %s", in->id, in->prog->name,
			         qu->name, prism_strerror(err));
			return err;
		}
		if (qu->rq_slots && in->qps[q].info.rq_stride != qu->rq_stride_ds * 16u) {
			core_err("conn %u: program '%s': queue '%s': device receive stride %u, "
			         "object expects %u",
			         in->id, in->prog->name, qu->name, in->qps[q].info.rq_stride,
			         qu->rq_stride_ds * 16u);
			return -PRISM_E_RELOC;
		}
		in->mem_bytes += in->qps[q].info.buf_len;
		err = ops->reg_mr(in->be, in->pd, in->qps[q].info.buf, in->qps[q].info.buf_len,
		                  qacc, &in->qps[q].mr, &in->qps[q].keys);
		if (err)
			return err;
	}
	in->scratch_len = o->scratch_size ? o->scratch_size : 64;
	in->scratch = aligned_alloc(64, (in->scratch_len + 63) & ~(size_t)63);
	if (!in->scratch)
		return -ENOMEM;
	memset(in->scratch, 0, in->scratch_len);
	in->mem_bytes += in->scratch_len;
	return ops->reg_mr(in->be, in->pd, in->scratch, in->scratch_len, qacc, &in->scratch_mr,
	                   &in->scratch_keys);
}

int core_inst_create(struct prism_program *prog, unsigned shard, uint32_t id,
                     const struct core_peer *peer, enum prism_rearm rearm, unsigned want_depth,
                     struct core_inst **out)
{
	const struct chainobj *o = prog->obj;
	bool nic_program = o->rearm == CHAINOBJ_REARM_NIC_RECYCLE;
	struct core_inst *in;
	int err;

	if ((rearm == PRISM_REARM_NIC && !nic_program) ||
	    (rearm == PRISM_REARM_CPU && nic_program)) {
		core_err("conn %u: program '%s' re-arms with %s; the server wants %s", id,
		         prog->name, chainobj_rearm_name(o->rearm),
		         rearm == PRISM_REARM_NIC ? "NIC recycling" : "CPU re-posting");
		return -PRISM_E_REARM;
	}
	in = calloc(1, sizeof(*in));
	if (!in)
		return -ENOMEM;
	in->prog = prog;
	in->dev = prog->dev;
	in->shard = shard;
	in->be = prog->dev->shards[shard].be;
	in->id = id;
	in->peer = *peer;
	if (!in->peer.resp_stride)
		in->peer.resp_stride = o->response_size;
	in->cpu_rearm = !nic_program;
	for (uint32_t q = 0; q < o->n_queues; q++)
		in->laps |= o->queues[q].recycle.max_laps != 0;
	in->depth = in->cpu_rearm ? ring_depth(o, want_depth) : 1;
	if (peer->resp_slots && in->depth > peer->resp_slots)
		in->depth = peer->resp_slots;
	in->serial = in->depth > 1 && holds_back(o);
	in->inflight = in->serial ? 1 : in->depth;
	in->cqs = calloc(o->n_cqs ? o->n_cqs : 1, sizeof(*in->cqs));
	in->qps = calloc(o->n_queues ? o->n_queues : 1, sizeof(*in->qps));
	core_program_get(prog);
	if (!in->cqs || !in->qps) {
		err = -ENOMEM;
		goto fail;
	}
	if ((err = create_objects(in)))
		goto fail;
	for (uint32_t q = 0; q < o->n_queues; q++) {
		bool conn = (int)q == prog->conn_queue;

		err = qp_to_rts(in, q, conn ? peer->node : in->dev->shards[shard].node,
		                conn ? peer->qpn : in->qps[q].info.qpn, conn ? peer : NULL);
		if (err) {
			core_err("conn %u: queue '%s': cannot connect: %s", id, o->queues[q].name,
			         prism_strerror(err));
			goto fail;
		}
	}
	in->base.sq = calloc(o->n_queues ? o->n_queues : 1, sizeof(uint64_t));
	in->base.rq = calloc(o->n_queues ? o->n_queues : 1, sizeof(uint64_t));
	in->base.cq = calloc(o->n_cqs ? o->n_cqs : 1, sizeof(uint64_t));
	in->sq_pi = calloc(o->n_queues ? o->n_queues : 1, sizeof(uint64_t));
	in->rq_pi = calloc(o->n_queues ? o->n_queues : 1, sizeof(uint64_t));
	in->inv_start = calloc(o->n_cqs ? o->n_cqs : 1, sizeof(uint64_t));
	in->lap_start = calloc(o->n_queues ? o->n_queues : 1, sizeof(uint32_t));
	if (!in->base.sq || !in->base.rq || !in->base.cq || !in->sq_pi || !in->rq_pi ||
	    !in->inv_start || !in->lap_start) {
		err = -ENOMEM;
		goto fail;
	}
	if ((err = build_image(in)))
		goto fail;
	while (in->posted < in->depth)
		post_next(in);
	if ((err = ring_doorbells(in)))
		goto fail;
	core_dbg("conn %u: program '%s': %u queues, depth %u, %zu bytes, %s re-arm", id, prog->name,
	         o->n_queues, in->depth, in->mem_bytes, in->cpu_rearm ? "CPU" : "NIC");
	*out = in;
	return 0;
fail:
	core_inst_destroy(in);
	return err;
}

/* Consume the CQEs a CQ has produced; an error CQE fails the instance. */
static int poll_cq(struct core_inst *in, uint32_t c)
{
	struct core_inst_cq *cq = &in->cqs[c];

	for (;;) {
		const uint8_t *raw = core_cq_peek(&cq->info, cq->consumed);
		struct prism_cqe cqe;

		if (!raw)
			return 0;
		if (prism_cqe_decode(raw, &cqe, NULL) == 0 &&
		    (cqe.opcode == PRISM_CQE_REQ_ERR || cqe.opcode == PRISM_CQE_RESP_ERR)) {
			core_warn("conn %u: program '%s': CQ '%s': error completion on QP 0x%x WQE "
			          "%u: %s",
			          in->id, in->prog->name, in->prog->obj->cqs[c].name, cqe.qpn,
			          cqe.wqe_counter, prism_cqe_syndrome_name(cqe.syndrome));
			in->error = -PRISM_E_CONN;
		}
		cq->consumed++;
		cq->last_counter = cqe.wqe_counter;
		cq->last_qpn = cqe.qpn;
		store_be32_shared(&cq->info.dbrec[0], (uint32_t)(cq->consumed & 0xffffffu));
		if (in->error)
			return in->error;
	}
}

/*
 * The exit the invocation took.  An exit's test is a masked CAS that, only
 * when the exit is taken, swaps the continuation queue's index and QPN into
 * the exit's SEND_EN (exits[].enable); a test that fails writes nothing.  So
 * the enable, read back from the ring once the invocation is over (the join
 * ran after it), names another queue exactly when its exit was taken.  NULL:
 * no enable was retargeted, the loop ran to its bound (fall-through, the
 * per-invocation advances).  Neither completion counts nor the last
 * completion can tell the last exit from the fall-through.
 */
static const struct chainobj_exit *taken_exit(const struct core_inst *in, uint32_t from,
                                              uint32_t *at)
{
	const struct chainobj *o = in->prog->obj;

	for (uint32_t e = from; e < o->n_exits; e++) {
		const struct chainobj_exit *x = &o->exits[e];
		const struct chainobj_queue *qu = &o->queues[x->queue];
		const struct chainobj_wqe *t = &qu->sq[x->enable];
		uint32_t slot = (uint32_t)((in->base.sq[x->queue] + t->slot) % qu->sq_slots);
		uint8_t bytes[PRISM_WQE_BB * 4];
		struct prism_wqe w;

		if (t->len > sizeof(bytes) || slot + prism_wqe_bbs(t->len / 16) > qu->sq_slots)
			continue; /* the validator keeps templates inside the ring */
		memcpy(bytes, slot_ptr((struct core_inst *)in, x->queue, CHAINOBJ_RING_SQ, slot),
		       t->len);
		if (prism_wqe_decode(bytes, t->len, &w, NULL) < 0 || !w.has_wait_en)
			continue;
		if ((w.wait_en.obj_num & 0xffffffu) != in->qps[x->queue].info.qpn) {
			*at = e;
			return x;
		}
	}
	return NULL;
}

bool core_inst_arm(struct core_inst *in, void *ctx)
{
	const struct core_backend_ops *ops = in->dev->ops;
	const struct chainobj *o = in->prog->obj;

	if (!ops->arm_cq)
		return false;
	/* a lap CQ is scanned, never consumed: its consumer index says nothing */
	for (uint32_t c = 0; c < o->n_cqs; c++)
		ops->arm_cq(in->cqs[c].cq, ctx, !lap_cq(o, c));
	return true;
}

void core_inst_disarm(struct core_inst *in)
{
	const struct core_backend_ops *ops = in->dev->ops;

	if (!ops->arm_cq)
		return;
	for (uint32_t c = 0; c < in->prog->obj->n_cqs; c++)
		ops->arm_cq(in->cqs[c].cq, NULL, false);
}

int core_inst_poll(struct core_inst *in)
{
	const struct chainobj *o = in->prog->obj;
	uint32_t ccq = o->queues[in->prog->conn_queue].send_cq;
	uint32_t per = o->cqs[ccq].per_invocation ? o->cqs[ccq].per_invocation : 1;
	uint64_t done, before = in->completed;
	int err;

	if (in->error)
		return in->error;
	/* The conn queue's last response ends an invocation (docs/chain-format.md,
	 * "Re-arm"); the lanes' CQEs were all produced before it (the join). */
	if ((err = poll_cq(in, ccq)))
		return err;
	for (uint32_t c = 0; c < o->n_cqs; c++)
		if (c != ccq && (err = lap_cq(o, c) ? scan_lap_cq(in, c) : poll_cq(in, c)))
			return err;
	done = in->cqs[ccq].consumed / per;
	if (done <= in->completed)
		return 0;
	if (!in->cpu_rearm) {
		in->completed = done;
		return (int)(done - before);
	}
	if (o->n_exits || in->laps) { /* depth 1: exactly one invocation finished */
		uint32_t at = 0, n_also = 0;
		const struct chainobj_exit *x = taken_exit(in, 0, &at);
		/* one exit per loop at most; loops in other queues (parallel
		 * lanes, loops one after another) may each have taken one */
		const struct chainobj_exit *also[CHAINOBJ_MAX_QUEUES];
		for (const struct chainobj_exit *y = x; y && n_also < CHAINOBJ_MAX_QUEUES;) {
			y = taken_exit(in, at + 1, &at);
			if (y)
				also[n_also++] = y;
		}
		char deltas[160] = "";

		for (uint32_t c = 0, n = 0; c < o->n_cqs && n < sizeof(deltas) - 12; c++)
			n += (uint32_t)snprintf(
			    deltas + n, sizeof(deltas) - n, " %llu",
			    (unsigned long long)(in->cqs[c].consumed - in->inv_start[c]));
		core_dbg("conn %u: invocation %llu ended by %s (CQEs:%s)", in->id,
		         (unsigned long long)in->completed,
		         x ? "an early exit" : "the fall-through", deltas);
		if ((err = lap_advance(in))) {
			in->error = err;
			return err;
		}
		advance(in, x, also, n_also);
		for (uint32_t c = 0; c < o->n_cqs; c++)
			in->inv_start[c] = in->cqs[c].consumed;
	}
	in->completed = done;
	while (in->posted < in->completed + in->depth)
		post_next(in);
	if ((err = ring_doorbells(in))) {
		in->error = err;
		return err;
	}
	return (int)(done - before);
}

void core_inst_destroy(struct core_inst *in)
{
	const struct core_backend_ops *ops;
	const struct chainobj *o;

	if (!in)
		return;
	ops = in->dev->ops;
	o = in->prog->obj;
	core_inst_quiesce(in);
	if (in->qps) {
		for (uint32_t q = 0; q < o->n_queues; q++) {
			if (in->qps[q].mr)
				ops->dereg_mr(in->qps[q].mr);
			if (in->qps[q].qp)
				ops->destroy_qp(in->qps[q].qp);
		}
	}
	if (in->cqs)
		for (uint32_t c = 0; c < o->n_cqs; c++) {
			if (in->cqs[c].ring_mr)
				ops->dereg_mr(in->cqs[c].ring_mr);
			if (in->cqs[c].cq)
				ops->destroy_cq(in->cqs[c].cq);
		}
	if (in->scratch_mr)
		ops->dereg_mr(in->scratch_mr);
	core_inst_prot_destroy(in);
	free(in->scratch);
	free(in->base.sq);
	free(in->base.rq);
	free(in->base.cq);
	free(in->sq_pi);
	free(in->rq_pi);
	free(in->inv_start);
	free(in->lap_start);
	if (in->image)
		for (uint32_t q = 0; q < o->n_queues; q++)
			free(in->image[q]);
	free(in->image);
	free(in->per_window);
	free(in->qps);
	free(in->cqs);
	core_program_put(in->prog);
	free(in);
}
