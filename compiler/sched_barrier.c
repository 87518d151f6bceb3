/* SPDX-License-Identifier: MIT */
/*
 * compiler/sched_barrier.c - barrier coalescing: the fewest doorbell-ordered
 * steps (WAIT + SEND_EN) that make every run-time patch safe.
 *
 * Owns: inserting WAIT / SEND_EN nodes into the lanes and the ctl queue,
 * choosing which nodes are signaled (CE) and which carry a fence bit.
 *
 *   ctl:  WAIT conn.rcq (args arrived) ─► SEND_EN w0 ─► SEND_EN w1 ...
 *   w0:   [seg 0] WAIT ─► SEND_EN w0 (through seg 1 + next barrier) [seg 1] ...
 *                 WAIT ─► SEND_EN conn (through the response WQEs anchored here)
 *
 * Rule (RedN 3.1, docs/contracts.md contract 3): a WQE that another WQE rewrites sits in
 * a managed queue and is enabled only after every one of its writers
 * completed.  Enables are prefix-based, so a barrier before node B enables
 * everything up to the next barrier.  Walking each lane in order and placing a
 * barrier only when a node has a writer that the previous barrier did not
 * wait for is interval stabbing by right end points, which is optimal: every
 * barrier we place is forced by a patch that no earlier barrier covers.  One
 * barrier waits once per CQ (on the latest completion it needs there), so
 * independent patches batch behind it.  Plain data dependencies cost a fence
 * bit inside a queue and a WAIT (no enable) across queues.
 *
 * Must not: move data nodes between queues or reorder them (sched_queues.c
 * and lowering decide that), or compute slots (layout.c).
 */
#include "compiler/sched.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct walk {
	struct ir_prog *p;
	int *done; /* per queue: highest data seq known complete, -1 none */
	/* per queue: highest seq known complete before the lane's latest
	 * enable: what a rewritten WQE may rely on (a WAIT placed for a data
	 * dependency after that enable does not stop the NIC prefetching) */
	int *en_done;
	int *waits; /* per queue: node to wait for in the pending barrier, -1 */
	int lane;   /* queue being rebuilt */
	int *out;   /* its new node order */
	unsigned nout;
	int last_en;         /* SEND_EN whose range ends at the next barrier, -1 */
	int first_en_target; /* node the entry enable must reach, -1 = end */
	int last_data;       /* id of the latest data node appended to out, -1 */
	/* the pending barrier waits only for READs/atomics of the lane itself:
	 * in a loop's queues a fenced SEND_EN may replace the WAIT when the
	 * program assumes fenced enables (nic model rule 3.15a) */
	bool fence_only;
};

static bool is_atomic_or_read(uint8_t op)
{
	return op == PRISM_OP_RDMA_READ || op == PRISM_OP_ATOMIC_CS || op == PRISM_OP_ATOMIC_FA ||
	       op == PRISM_OP_ATOMIC_MASKED_CS || op == PRISM_OP_ATOMIC_MASKED_FA;
}

static int push(struct walk *w, int id)
{
	w->out[w->nout++] = id;
	return id;
}

/* Note that `from` must be complete; returns true if a WAIT is needed (for a
 * patch: a barrier, when `from` is not known complete before the latest
 * enable). */
static bool need(struct walk *w, int from, bool patch)
{
	const struct ir_node *a = &w->p->nodes[from];
	if (patch && a->seq <= w->en_done[a->queue])
		return false;
	if (a->seq <= w->done[a->queue])
		return patch; /* waited for, but not before an enable yet */
	if (w->waits[a->queue] < 0 || w->p->nodes[w->waits[a->queue]].seq < a->seq)
		w->waits[a->queue] = from;
	if (a->queue == w->lane && !is_atomic_or_read(a->op))
		w->fence_only = false; /* other queues: fence_instead looks at waits */
	return true;
}

/* In a loop's queues (the halting queue and its continuation), may the
 * enable that follows the pending waits carry a fence instead?  Only when
 * the program assumes fenced enables (nic-model 3.15a: no public source;
 * by default the barrier is RedN's proven WAIT + SEND_EN) and every node
 * waited for is a READ/atomic of the lane: the fence then starts the
 * SEND_EN after all of them completed.  Returns the fence mode to put on
 * that enable and drops the pending wait (marking the lane done). */
static uint8_t fence_instead(struct walk *w)
{
	struct ir_prog *p = w->p;
	const struct ir_queue *lq = &p->queues[w->lane];
	bool ok = p->assume_fenced_enable && w->fence_only && (lq->halts || lq->no_entry);
	for (unsigned q = 0; ok && q < p->n_queues; q++)
		if (w->waits[q] >= 0 && (int)q != w->lane)
			ok = false;
	w->fence_only = true;
	if (!ok)
		return PRISM_FENCE_NONE;
	int a = w->waits[w->lane];
	if (a >= 0) {
		if (p->nodes[a].seq > w->done[w->lane])
			w->done[w->lane] = p->nodes[a].seq;
		w->waits[w->lane] = -1;
	}
	return PRISM_FENCE_SMALL_AND_FENCE;
}

/* Emit the pending WAITs (one per CQ) into the lane being rebuilt. */
static int flush_waits(struct walk *w)
{
	struct ir_prog *p = w->p;
	int emitted = 0;
	w->fence_only = true;
	for (unsigned q = 0; q < p->n_queues; q++) {
		int a = w->waits[q];
		if (a < 0)
			continue;
		/* Waiting on our own queue: wait on the latest data node instead,
		 * same cost, covers every node before it (CQEs are in order). */
		if ((int)q == w->lane && w->last_data >= 0 &&
		    p->nodes[w->last_data].seq > p->nodes[a].seq)
			a = w->last_data;
		p->nodes[a].signaled = true;
		struct ir_node *n = ir_append(p, (int)q == w->lane ? w->lane : w->lane,
		                              PRISM_OP_CQE_WAIT, IR_ROLE_BARRIER_WAIT);
		if (!n)
			return -1;
		/* ir_append put it at the end of the lane's list; we rebuild the
		 * order in w->out, so take it back out of the live list. */
		p->queues[w->lane].n--;
		n->we_index = ir_v(IR_V_SEND_CQE, a, 0);
		n->we_obj = ir_v(IR_V_SEND_CQN, (int)q, 0);
		n->what = "barrier wait";
		push(w, n->id);
		if (p->nodes[a].seq > w->done[q])
			w->done[q] = p->nodes[a].seq;
		w->waits[q] = -1;
		emitted++;
	}
	return emitted;
}

static int append_enable(struct walk *w, int target_queue, enum ir_role role)
{
	struct ir_prog *p = w->p;
	struct ir_node *n = ir_append(p, w->lane, PRISM_OP_SEND_ENABLE, role);
	if (!n)
		return -1;
	if (target_queue == w->lane) /* what it enables runs after the waits */
		memcpy(w->en_done, w->done, p->n_queues * sizeof(*w->done));
	p->queues[w->lane].n--;
	n->we_obj = ir_v(IR_V_QPN, target_queue, 0);
	n->what = target_queue == w->lane ? "barrier enable" : "enable response";
	return push(w, n->id);
}

/* Which nodes must complete before `id` starts: patches then data deps. */
static void collect(struct walk *w, int id, bool *need_enable)
{
	struct ir_prog *p = w->p;
	for (unsigned i = 0; i < p->n_patches; i++) {
		const struct ir_patch *pt = &p->patches[i];
		if (pt->target != id || pt->writer == IR_RECV)
			continue;
		if (need(w, pt->writer, true))
			*need_enable = true;
	}
	for (unsigned i = 0; i < p->n_deps; i++) {
		if (p->deps[i].to != id)
			continue;
		int from = p->deps[i].from;
		const struct ir_node *a = &p->nodes[from];
		if (a->queue == w->lane && p->nodes[id].queue == w->lane &&
		    p->nodes[id].op != PRISM_OP_SEND_ENABLE &&
		    p->nodes[id].op != PRISM_OP_CQE_WAIT) {
			/* same queue: a fence waits for earlier READs/atomics (PRM fence
			 * mode); plain writes are already WQ-ordered */
			if (a->seq > w->done[w->lane] && is_atomic_or_read(a->op))
				p->nodes[id].fence = PRISM_FENCE_SMALL_AND_FENCE;
			continue;
		}
		need(w, from, false);
	}
}

/* Enable the conn nodes anchored at lane-0 data position `anchor`. */
static int conn_barrier(struct walk *w, unsigned *ci, int anchor)
{
	struct ir_prog *p = w->p;
	struct ir_queue *cq = &p->queues[p->q_conn];
	int last = -1;
	bool dummy = false;
	while (*ci < cq->n && p->nodes[cq->nodes[*ci]].anchor <= anchor) {
		last = cq->nodes[*ci];
		collect(w, last, &dummy);
		(*ci)++;
	}
	if (last < 0)
		return 0;
	/* the conn queue's own earlier nodes need no wait: enables are prefix-based
	 * and conn executes in order */
	w->waits[p->q_conn] = -1;
	uint8_t fm = fence_instead(w);
	if (flush_waits(w) < 0)
		return -1;
	int en = append_enable(w, p->q_conn, IR_ROLE_BARRIER_EN);
	if (en < 0)
		return -1;
	p->nodes[en].fence = fm;
	p->nodes[en].we_index = ir_v(IR_V_ENABLE_THROUGH, last, 0);
	p->barriers++;
	return 0;
}

/* Every halting queue whose exits lead (through continuations) to `lane`. */
static void mark_loops_before(const struct ir_prog *p, int lane, int *done)
{
	for (unsigned i = 0; i < p->n_queues; i++) {
		if (!p->queues[i].halts)
			continue;
		int q = (int)i;
		for (unsigned hops = 0; hops < p->n_queues && p->queues[q].halts; hops++) {
			q = p->queues[q].cont;
			if (q == lane) {
				done[i] = INT32_MAX;
				break;
			}
		}
	}
}

static int schedule_lane(struct ir_prog *p, int lane, int *done, int *waits, int *first_end)
{
	struct ir_queue *q = &p->queues[lane];
	unsigned n = q->n;
	int *orig = malloc((n + 1) * sizeof(int));
	int *en_done = malloc(p->n_queues * sizeof(int));
	/* worst case: every node gets one WAIT per queue, an enable, plus conn
	 * barriers */
	size_t cap =
	    (size_t)(n + 1) * (p->n_queues + 3) + p->queues[p->q_conn].n * (p->n_queues + 2) + 8;
	int *out = malloc(cap * sizeof(int));
	if (!orig || !out || !en_done) {
		free(orig);
		free(out);
		free(en_done);
		p->oom = true;
		return -1;
	}
	if (n)
		memcpy(orig, q->nodes, n * sizeof(int));
	for (unsigned i = 0; i < n; i++)
		p->nodes[orig[i]].seq = (int)i;
	struct walk w = {.p = p,
	                 .done = done,
	                 .waits = waits,
	                 .en_done = en_done,
	                 .lane = lane,
	                 .out = out,
	                 .last_en = -1,
	                 .first_en_target = -1,
	                 .last_data = -1,
	                 .fence_only = true};
	for (unsigned i = 0; i < p->n_queues; i++) {
		done[i] = -1;
		waits[i] = -1;
	}
	/* the entry barrier waited for the RECV: RECV patches are satisfied.  A
	 * continuation queue runs after a loop exit, which waited for its own
	 * iteration; writers in iterations after the exit never run, so the
	 * halting queue counts as complete, and so do the queues whose loops led
	 * to it (not a loop of another `parallel` lane: it may still run). */
	if (q->no_entry)
		mark_loops_before(p, lane, done);
	memcpy(en_done, done, p->n_queues * sizeof(*done));
	bool lane0 = lane == p->q_main;
	unsigned ci = 0;
	int rc = 0;
	for (unsigned i = 0; i <= n && rc == 0; i++) {
		/* responses are enabled together at the end of lane 0: one barrier
		 * for every response (each waits for its guard anyway, and the
		 * closing response waits for every lane) */
		if (lane0 && i == n && (rc = conn_barrier(&w, &ci, INT32_MAX)) < 0)
			break;
		if (i == n)
			break;
		int id = orig[i];
		bool need_en = false;
		collect(&w, id, &need_en);
		if (need_en) {
			uint8_t fm = fence_instead(&w);
			if (flush_waits(&w) < 0) {
				rc = -1;
				break;
			}
			int en = append_enable(&w, lane, IR_ROLE_BARRIER_EN);
			if (en < 0) {
				rc = -1;
				break;
			}
			p->nodes[en].fence = fm;
			/* the previous enable's range ends with this barrier */
			if (w.last_en >= 0)
				p->nodes[w.last_en].we_index = ir_v(IR_V_ENABLE_THROUGH, en, 0);
			else
				w.first_en_target = en;
			w.last_en = en;
			p->barriers++;
		} else if (flush_waits(&w) < 0) {
			rc = -1;
			break;
		}
		push(&w, id);
		w.last_data = id;
		/* a loop exit (SEND_EN self, retargeted by a CAS when the loop
		 * ends): the barrier before it enables through it, and it enables
		 * through the next barrier */
		const struct ir_node *xn = &p->nodes[id];
		if (xn->role == IR_ROLE_EXIT && xn->op == PRISM_OP_SEND_ENABLE &&
		    xn->we_obj.kind == IR_V_QPN && xn->we_obj.a == lane) {
			if (w.last_en >= 0)
				p->nodes[w.last_en].we_index = ir_v(IR_V_ENABLE_THROUGH, id, 0);
			else
				w.first_en_target = id;
			w.last_en = id;
			memcpy(en_done, done, p->n_queues * sizeof(*done));
		}
	}
	if (rc == 0) {
		int last = w.nout ? w.out[w.nout - 1] : -1;
		if (w.last_en >= 0)
			p->nodes[w.last_en].we_index = ir_v(IR_V_ENABLE_THROUGH, last, 0);
		*first_end = w.first_en_target >= 0 ? w.first_en_target : last;
		free(q->nodes);
		q->nodes = out;
		q->n = w.nout;
		q->cap = (unsigned)cap;
		for (unsigned i = 0; i < q->n; i++)
			p->nodes[q->nodes[i]].pos = (int)i;
	} else {
		free(out);
	}
	free(orig);
	free(en_done);
	return rc;
}

/*
 * The request gate after the entry WAIT (docs/chain-format.md, "Request
 * gate"): the WAIT is released by any completion of the conn queue's
 * receive, a flushed one included (a QP in error completes its posted
 * receives with opcode 14 and writes nothing into their buffers), so the
 * invocation also waits on the data of the CQE that released it: its
 * op_own byte must say "responder SEND" (opcode 2 or 3).  Only a request
 * the client really sent opens it; a flush leaves the ctl queue parked
 * there until the connection is torn down.
 */
static int append_request_gate(struct ir_prog *p)
{
	struct ir_node *g = ir_append(p, p->q_ctl, PRISM_OP_CQE_WAIT, IR_ROLE_BARRIER_WAIT);

	if (!g)
		return -1;
	g->opmod = PRISM_WAIT_ON_DATA;
	g->wod_cond = PRISM_WOD_EQUAL;
	g->wod_addr = ir_v(IR_V_RECV_CQE_ADDR, p->q_conn, CHAINOBJ_GATE_CQE_OFFSET);
	g->wod_key = ir_v(IR_V_RECV_CQ_LKEY, p->q_conn, 0);
	g->wod_value = CHAINOBJ_GATE_VALUE;
	g->wod_mask = CHAINOBJ_GATE_MASK;
	g->what = "entry: request gate (a real SEND, not a flush)";
	return 0;
}

int sched_barriers(struct ir_prog *p)
{
	int *done = malloc(p->n_queues * sizeof(int));
	int *waits = malloc(p->n_queues * sizeof(int));
	int *first = malloc(p->n_queues * sizeof(int));
	if (!done || !waits || !first) {
		free(done);
		free(waits);
		free(first);
		p->oom = true;
		return -1;
	}
	/* every data node gets its seq number (its position before barriers
	 * go in) up front: a WAIT in one lane compares nodes of lanes not
	 * scheduled yet (the join, a guard of a response in lane 1) */
	struct ir_queue *cq = &p->queues[p->q_conn];
	for (unsigned q = 0; q < p->n_queues; q++)
		for (unsigned i = 0; i < p->queues[q].n; i++)
			p->nodes[p->queues[q].nodes[i]].seq = (int)i;
	p->barriers = 0;
	int rc = 0;
	unsigned nq = p->n_queues;
	for (unsigned l = 0; l < nq && rc == 0; l++) {
		first[l] = -1;
		if (p->queues[l].role != IR_Q_LANE)
			continue;
		if (p->queues[l].lap) {
			/* a recycled loop's lap: its barriers are part of the lap
			 * (lower_recycle.c); lane 0 enables it */
			p->queues[l].entry_end = p->queues[l].lap_counter;
			continue;
		}
		if (p->queues[l].n == 0 && !((int)l == p->q_main && cq->n))
			continue;
		rc = schedule_lane(p, (int)l, done, waits, &first[l]);
		p->queues[l].entry_end = first[l];
		if (p->queues[l].no_entry)
			first[l] = -1; /* enabled by its loop's exits, not by ctl */
	}
	/* entry barrier on ctl: wait for the arguments, enable each lane */
	if (rc == 0) {
		struct ir_node *wt =
		    ir_append(p, p->q_ctl, PRISM_OP_CQE_WAIT, IR_ROLE_BARRIER_WAIT);
		if (!wt) {
			rc = -1;
		} else {
			wt->we_index = ir_v(IR_V_RECV_CQE, p->q_conn, 0);
			wt->we_obj = ir_v(IR_V_RECV_CQN, p->q_conn, 0);
			wt->what = "entry: arguments arrived";
			if (p->request_gate && append_request_gate(p) < 0)
				rc = -1;
		}
		for (unsigned l = 0; l < nq && rc == 0; l++) {
			if (first[l] < 0)
				continue;
			struct ir_node *en =
			    ir_append(p, p->q_ctl, PRISM_OP_SEND_ENABLE, IR_ROLE_BARRIER_EN);
			if (!en) {
				rc = -1;
				break;
			}
			en->we_obj = ir_v(IR_V_QPN, (int)l, 0);
			en->we_index = ir_v(IR_V_ENABLE_THROUGH, first[l], 0);
			en->what = "entry: enable lane";
		}
		if (rc == 0)
			p->barriers++;
	}
	free(done);
	free(waits);
	free(first);
	return p->oom ? -1 : rc;
}
