/* SPDX-License-Identifier: MIT */
/*
 * sim_sched.c - the deterministic scheduler: one step runs one unit (a send
 * queue's head WQE, one inbound packet, or one line of a chaos READ).
 *
 * Owns: the choice of the next unit.  SIM_SCHED_VTIME takes the unit with
 * the earliest virtual start time (each send queue is a processing unit
 * with its own clock; a WQE starts at max(PU time, fetch time, time its
 * WAIT was satisfied)), ties broken by the seeded PRNG (one draw among all
 * the tied units); SIM_SCHED_RANDOM takes any runnable unit by the PRNG.
 * Same seed and inputs: same run.
 *
 * How: ready queues sit in a min-heap keyed by their start time
 * (dev->rdy); packets in the inbox, sorted (sim_wire.c), READ jobs in a short
 * list; a step compares the three heads.  A queue's readiness is
 * evaluated (sim_sq_ready) only right after its own step and when it was
 * woken (sim_sched_wake puts it on the dirty list: a fetch that gives it a
 * head WQE, a state change, a response that completes an entry it is
 * fenced or full on, an RNR NAK, a CQE that reaches its WAIT count, its
 * WAIT's CQ going away).  A ready queue gets its heap key; one that cannot
 * run until woken is parked (out of the heap, off the list; a WAIT on a CQ
 * count joins that CQ's waiter list).  RNR-blocked queues and WAITs on
 * data stay on the list (re-evaluated every step: outside progress and
 * memory the CPU writes wake nothing); sim_sq_readiness's answer says
 * which (SIM_RD_*).  So a step costs O(woken + log ready), not O(queues).
 * The run loop decides the common step itself (VTIME, no READ job: the
 * heap's root or the inbox's head, two queues tied at the root drawn as
 * pick_tied would; the one queue woken while the heap is empty, when it is
 * strictly earliest, without entering the heap); the rest goes through the
 * general pick.  A queue that stays strictly earliest, with a plain next
 * WQE (no WAIT, fence or RNR), nothing woken and the inbox later, runs that
 * WQE at once: a burst, the very step that would follow, without its pick
 * (step limits count its WQEs).
 *
 * Must not: execute anything itself (sim_exec.c, sim_wire.c do).
 */
#include <stdlib.h>

#include "sim/sim_internal.h"
#include "util/array.h"

/* ---- the ready heap (min by t) ------------------------------------------ */

static inline void rdy_put(struct sim_dev *dev, uint32_t i, struct sim_rdy e)
{
	dev->rdy[i] = e;
	e.qp->rdy_pos = i + 1;
}

static void rdy_up(struct sim_dev *dev, uint32_t i)
{
	struct sim_rdy e = dev->rdy[i];

	while (i) {
		uint32_t p = (i - 1) / 2;

		if (dev->rdy[p].t <= e.t)
			break;
		rdy_put(dev, i, dev->rdy[p]);
		i = p;
	}
	rdy_put(dev, i, e);
}

static void rdy_down(struct sim_dev *dev, uint32_t i)
{
	struct sim_rdy e = dev->rdy[i];
	uint32_t n = dev->nrdy;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && dev->rdy[c + 1].t < dev->rdy[c].t)
			c++;
		if (e.t <= dev->rdy[c].t)
			break;
		rdy_put(dev, i, dev->rdy[c]);
		i = c;
	}
	rdy_put(dev, i, e);
}

/* @qp is ready from @t on: insert it or move it.  (Inline checks first:
 * most moves keep the heap order.) */
static inline __attribute__((always_inline)) void rdy_set(struct sim_dev *dev, struct sim_qp *qp,
                                                          sim_time_t t)
{
	struct sim_rdy *h = dev->rdy;
	uint32_t i, c, n = dev->nrdy;
	sim_time_t old;

	if (!qp->rdy_pos) {
		i = dev->nrdy++;
		h[i] = (struct sim_rdy){.t = t, .qp = qp};
		qp->rdy_pos = i + 1;
		if (i && h[(i - 1) / 2].t > t)
			rdy_up(dev, i);
		return;
	}
	i = qp->rdy_pos - 1;
	old = h[i].t;
	h[i].t = t;
	if (t < old) {
		if (i && h[(i - 1) / 2].t > t)
			rdy_up(dev, i);
	} else if (t > old) {
		c = 2 * i + 1;
		if (c + 1 == n && h[c].t < t) {
			/* one child, the last entry: a swap (two queues) */
			rdy_put(dev, i, h[c]);
			rdy_put(dev, c, (struct sim_rdy){.t = t, .qp = qp});
		} else if (c < n && (h[c].t < t || (c + 1 < n && h[c + 1].t < t))) {
			rdy_down(dev, i);
		}
	}
}

static void rdy_del(struct sim_dev *dev, struct sim_qp *qp)
{
	uint32_t i = qp->rdy_pos - 1;

	qp->rdy_pos = 0;
	if (i == --dev->nrdy)
		return;
	rdy_put(dev, i, dev->rdy[dev->nrdy]);
	if (i && dev->rdy[(i - 1) / 2].t > dev->rdy[i].t)
		rdy_up(dev, i);
	else if (2 * i + 1 < dev->nrdy)
		rdy_down(dev, i);
}

/* rdy_del, in line for a heap of at most two (the last entry fills the
 * hole: nothing to sift). */
static inline __attribute__((always_inline)) void rdy_leave(struct sim_dev *dev, struct sim_qp *qp)
{
	uint32_t i = qp->rdy_pos - 1;

	if (dev->nrdy > 2) {
		rdy_del(dev, qp);
		return;
	}
	qp->rdy_pos = 0;
	if (i != --dev->nrdy) /* not the last: the root of two */
		rdy_put(dev, 0, dev->rdy[1]);
}

/*
 * The heap entries with time @t (the minimum), in preorder of the heap
 * (the same operations give the same heap, so the same order): entries
 * number @skip to @skip + @cap - 1 go to @out.  Returns how many there
 * are.  The entries equal to the minimum form a subtree at the root.
 */
static uint32_t rdy_ties(const struct sim_dev *dev, sim_time_t t, struct sim_qp **out,
                         uint32_t skip, uint32_t cap)
{
	const struct sim_rdy *h = dev->rdy;
	uint32_t stack[64], sp = 0, n = 0, i = 0, nrdy = dev->nrdy;

	if (!nrdy || h[0].t != t)
		return 0;
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1;
		bool lt = l < nrdy && h[l].t == t, rt = r < nrdy && h[r].t == t;

		if (n >= skip && n - skip < cap)
			out[n - skip] = h[i].qp;
		n++;
		/* preorder, left first; the stack holds at most one pending
		 * right sibling per level (< 33 entries) */
		if (lt) {
			if (rt)
				stack[sp++] = r;
			i = l;
		} else if (rt) {
			i = r;
		} else if (sp) {
			i = stack[--sp];
		} else {
			return n;
		}
	}
}

/* ---- parking ------------------------------------------------------------- */

/*
 * A queue that cannot run leaves the dirty set until sim_sched_wake() when
 * every change of its condition wakes it: not RTS (state changes), nothing
 * fetched (fetches, responses), a fence or a full outstanding ring (an
 * outstanding entry becoming done: by a packet, which wakes a fenced or
 * full queue (sim_requester.c), by the queue's own step (which makes it
 * dirty), or by a failure (a state change)), a WAIT on a CQ count (that
 * CQ's next CQE: the queue joins the CQ's waiter list here).  RNR and
 * wait-on-data stay dirty (re-evaluated every step: SIM_RD_POLL).  Returns
 * whether @qp, blocked on a WAIT on a CQ count, may leave the dirty set.
 */
static __attribute__((noinline)) bool waiters_grow(struct sim_cq *cq)
{
	return ARRAY_RESERVE(cq->waiters, cq->waiters_cap, cq->nwaiters + 1);
}

static inline __attribute__((always_inline)) bool park_on_cq(struct sim_qp *qp)
{
	struct sim_cq *cq = sim_cq_by_num(qp->dev, qp->sq.hd.w.wait_en.obj_num);

	if (!cq)
		return false; /* never: a WAIT on a missing CQ runs */
	if (qp->wait_cqn != cq->cqn) {
		if (cq->nwaiters == cq->waiters_cap && !waiters_grow(cq))
			return false; /* stays dirty: slower, still right */
		cq->waiters[cq->nwaiters++] = qp->slot;
		qp->wait_cqn = cq->cqn;
	}
	return true;
}

/* Is @qp still parked on a WAIT for a count @cq has not reached?  (What
 * sim_sq_ready would answer, without its side effects: none here.) */
static bool still_waiting(struct sim_qp *qp, struct sim_cq *cq)
{
	const struct sim_sq *sq = &qp->sq;
	sim_time_t t;

	/* the count first (the common answer: reached, wake); the head's
	 * fields are read whatever it is, and only a WAIT's count matters */
	if (sim_cq_reached(cq, sq->hd.w.wait_en.index & 0xffffffu, &t))
		return false;
	return qp->wait_cqn == cq->cqn && qp->state == SIM_QPS_RTS &&
	       sq->block == SIM_BLOCK_WAIT_CQ && sq->pf_cnt && sq->hd.rc >= 0 &&
	       sq->hd.w.ctrl.opcode == PRISM_OP_CQE_WAIT && sq->hd.w.ctrl.opmod == PRISM_WAIT_CQ &&
	       sq->hd.w.wait_en.obj_num == cq->cqn;
}

void sim_sched_wake_waiters(struct sim_cq *cq, bool all)
{
	struct sim_dev *dev = cq->dev;
	uint32_t keep = 0;

	for (uint32_t i = 0; i < cq->nwaiters; i++) {
		uint32_t slot = cq->waiters[i];
		struct sim_qp *qp = slot < dev->qps_cap ? dev->qps[slot] : NULL;

		if (!qp)
			continue; /* destroyed since */
		if (!all && still_waiting(qp, cq)) {
			cq->waiters[keep++] = slot; /* this CQE is not the awaited one */
			continue;
		}
		if (qp->wait_cqn == cq->cqn)
			qp->wait_cqn = 0;
		sim_sched_wake(qp);
	}
	cq->nwaiters = keep;
	if (all) /* a ready WAIT on this CQ now fails at another time */
		for (uint32_t i = 0; i < dev->nrdy; i++)
			sim_sched_wake(dev->rdy[i].qp);
}

int sim_sched_resize(struct sim_dev *dev, uint32_t old_cap)
{
	uint32_t n = dev->qps_cap ? dev->qps_cap : 1;
	struct sim_qp **d;
	struct sim_rdy *r;

	(void)old_cap;
	d = realloc(dev->dirty, n * sizeof(*d));
	if (!d)
		return -ENOMEM;
	dev->dirty = d;
	r = realloc(dev->rdy, n * sizeof(*r));
	if (!r)
		return -ENOMEM;
	dev->rdy = r;
	return 0;
}

void sim_sched_forget(struct sim_qp *qp)
{
	struct sim_dev *dev = qp->dev;

	if (qp->dirty) {
		uint32_t i = 0;

		while (dev->dirty[i] != qp)
			i++;
		memmove(dev->dirty + i, dev->dirty + i + 1,
		        (dev->ndirty - i - 1) * sizeof(*dev->dirty));
		dev->ndirty--;
		qp->dirty = false;
	}
	if (qp->rdy_pos)
		rdy_del(dev, qp);
}

/* ---- the step ------------------------------------------------------------ */

/* @qp's readiness is @v (sim_sq_readiness) from @t: a ready queue gets its
 * heap key; one that is not leaves the heap.  Returns whether it may leave
 * the dirty list (parked, or ready with a start time only a wake can
 * change). */
static inline __attribute__((always_inline)) bool settle(struct sim_dev *dev, struct sim_qp *qp,
                                                         unsigned v, sim_time_t t)
{
	if (v & SIM_RD_READY) {
		rdy_set(dev, qp, t);
		return !(v & SIM_RD_POLL);
	}
	if (qp->rdy_pos)
		rdy_leave(dev, qp);
	if (v == SIM_RD_WAIT_CQ)
		return park_on_cq(qp);
	return !(v & SIM_RD_POLL);
}

static inline __attribute__((always_inline)) bool evaluate(struct sim_dev *dev, struct sim_qp *qp)
{
	sim_time_t t; /* set with SIM_RD_READY, read only then */
	unsigned v = sim_sq_readiness(qp, &t);

	return settle(dev, qp, v, t);
}

/* Evaluates every dirty queue, in the order they were woken (the order of
 * the WAIT block/release events it may emit). */
static void refresh(struct sim_dev *dev)
{
	uint32_t keep = 0, n = dev->ndirty;

	for (uint32_t i = 0; i < n; i++) {
		struct sim_qp *qp = dev->dirty[i];

		if (evaluate(dev, qp))
			qp->dirty = false;
		else
			dev->dirty[keep++] = qp;
	}
	dev->ndirty = keep;
}

enum unit_kind { UNIT_SQ, UNIT_PKT, UNIT_JOB };

struct pick {
	enum unit_kind kind;
	void *ptr;
	sim_time_t t;
};

/* SIM_SCHED_RANDOM: any runnable unit, uniformly (ready queues in heap
 * order, then the inbox head, then the READ jobs). */
static bool pick_random(struct sim_dev *dev, struct pick *b)
{
	uint32_t n = dev->nrdy + (dev->inbox.n ? 1 : 0), r;
	struct sim_readjob *j;

	for (j = dev->jobs; j; j = j->next)
		n++;
	if (!n)
		return false;
	r = n > 1 ? (uint32_t)(sim_rand(dev) % n) : 0;
	if (r < dev->nrdy) {
		*b = (struct pick){UNIT_SQ, dev->rdy[r].qp, dev->rdy[r].t};
		return true;
	}
	r -= dev->nrdy;
	if (dev->inbox.n && r-- == 0) {
		*b = (struct pick){UNIT_PKT, dev->inbox.front->p, dev->inbox.front->t};
		return true;
	}
	for (j = dev->jobs; r; j = j->next)
		r--;
	*b = (struct pick){UNIT_JOB, j, j->t};
	return true;
}

/* SIM_SCHED_VTIME with ties: one of the units at the earliest time @t,
 * drawn by the PRNG (queues in rdy_ties order, then the inbox head, then
 * the READ jobs in list order). */
static void pick_tied(struct sim_dev *dev, struct pick *b)
{
	struct sim_qp *q[16];
	uint32_t nq = rdy_ties(dev, b->t, q, 0, 16), n, r;
	bool pkt = dev->inbox.n && dev->inbox.front->t == b->t;
	struct sim_readjob *j;

	n = nq + pkt;
	for (j = dev->jobs; j; j = j->next)
		n += j->t == b->t;
	r = (uint32_t)(sim_rand(dev) % n);
	if (r < nq) {
		if (r >= 16) { /* past those collected: walk again */
			rdy_ties(dev, b->t, q, r, 1);
			r = 0;
		}
		b->kind = UNIT_SQ;
		b->ptr = q[r];
		return;
	}
	r -= nq;
	if (pkt && r-- == 0) {
		b->kind = UNIT_PKT;
		b->ptr = dev->inbox.front->p;
		return;
	}
	for (j = dev->jobs;; j = j->next)
		if (j->t == b->t && r-- == 0)
			break;
	b->kind = UNIT_JOB;
	b->ptr = j;
}

/* SIM_SCHED_VTIME, no READ job, the inbox later than the heap's root: the
 * root's queue, or one of two tied at the root's time (the draw pick_tied
 * would make, without its walk); NULL when more are tied. */
static inline __attribute__((always_inline)) struct sim_qp *
pick_root(struct sim_dev *dev, const struct sim_rdy *h, uint32_t n)
{
	sim_time_t t = h[0].t;
	uint32_t c, o;

	if ((n < 2 || h[1].t != t) && (n < 3 || h[2].t != t))
		return h[0].qp;
	c = h[1].t == t ? 1 : 2;
	o = 3 - c;
	if ((o < n && h[o].t == t) || (2 * c + 1 < n && h[2 * c + 1].t == t) ||
	    (2 * c + 2 < n && h[2 * c + 2].t == t))
		return NULL;
	return sim_rand(dev) % 2 ? h[c].qp : h[0].qp;
}

/* SIM_SCHED_VTIME: the unit with the earliest start time. */
static inline __attribute__((always_inline)) bool pick_vtime(struct sim_dev *dev, struct pick *b)
{
	uint32_t n = dev->nrdy, ties;
	struct sim_readjob *j;

	if (__builtin_expect(!dev->jobs, 1)) {
		/* the common case: no READ jobs, one earliest unit */
		if (n && (!dev->inbox.n || dev->rdy[0].t < dev->inbox.front->t)) {
			struct sim_qp *qp = pick_root(dev, dev->rdy, n);

			*b = (struct pick){UNIT_SQ, qp, dev->rdy[0].t};
			if (!qp)
				pick_tied(dev, b);
			return true;
		}
		if (dev->inbox.n && (!n || dev->inbox.front->t < dev->rdy[0].t)) {
			*b = (struct pick){UNIT_PKT, dev->inbox.front->p, dev->inbox.front->t};
			return true;
		}
	}
	/* general: the earliest of the three, then count the ties */
	ties = 0;
	if (n) {
		*b = (struct pick){UNIT_SQ, dev->rdy[0].qp, dev->rdy[0].t};
		ties = 1;
	}
	if (dev->inbox.n) {
		if (!ties || dev->inbox.front->t < b->t) {
			*b = (struct pick){UNIT_PKT, dev->inbox.front->p, dev->inbox.front->t};
			ties = 1;
		} else if (dev->inbox.front->t == b->t) {
			ties++;
		}
	}
	for (j = dev->jobs; j; j = j->next) {
		if (!ties || j->t < b->t) {
			*b = (struct pick){UNIT_JOB, j, j->t};
			ties = 1;
		} else if (j->t == b->t) {
			ties++;
		}
	}
	if (!ties)
		return false;
	if (ties > 1 || (n > 1 && dev->rdy[0].t == b->t &&
	                 (dev->rdy[1].t == b->t || (n > 2 && dev->rdy[2].t == b->t))))
		pick_tied(dev, b);
	return true;
}

/*
 * After a step of @qp, the heap's earliest (its key not updated yet),
 * whose next WQE is a plain one (SIM_RD_PLAIN) ready from @t: may it
 * run at once?  Only when that is what the next step would pick without a
 * draw: nothing in the inbox at or before @t, @t strictly earlier than the
 * other queues, no READ job, @vtime (SIM_SCHED_VTIME), nothing else woken.
 * (Deliveries from other threads wait for the burst's end, at most
 * SIM_BURST WQEs.)
 */
static inline __attribute__((always_inline)) bool burst_on(struct sim_dev *dev, struct sim_qp *qp,
                                                           sim_time_t t, bool vtime)
{
	const struct sim_rdy *h = dev->rdy;
	uint32_t n = dev->nrdy;

	if ((dev->inbox.n && dev->inbox.front->t <= t) || __builtin_expect(dev->jobs || !vtime, 0))
		return false;
	/* the heap's root, the others later; or (take_woken) outside the
	 * heap, all of it later */
	if (qp->rdy_pos ? qp->rdy_pos != 1 || (n > 1 && h[1].t <= t) || (n > 2 && h[2].t <= t)
	                : n && h[0].t <= t)
		return false;
	if (dev->ndirty) {
		if (dev->ndirty > 1 || dev->dirty[0] != qp)
			return false;
		dev->ndirty = 0; /* woken by its own fetch: evaluated here */
		qp->dirty = false;
	}
	return true;
}

#define SIM_BURST 64 /* WQEs a queue may run back to back in one step */

/* Runs the head WQE of @qp, picked at @t, and whatever burst follows (at
 * most @left WQEs, @left > 0; @vtime: burst_on's), then settles it.
 * Returns the WQEs run.
 * @qp may be out of the heap while it runs (take_woken; the heap's only
 * entry, taken out): nothing a step calls reads the heap, and settling it
 * into an empty heap leaves the heap its key update or delete would. */
static inline __attribute__((always_inline)) uint64_t
run_sq(struct sim_dev *dev, struct sim_qp *qp, sim_time_t t, uint64_t left, bool vtime)
{
	sim_time_t next; /* set with SIM_RD_READY, read only then */
	uint64_t n = 0;
	unsigned v;

	for (;;) {
		n++;
		sim_sq_step(qp, t);
		v = sim_sq_readiness(qp, &next);
		if (v != (SIM_RD_READY | SIM_RD_PLAIN) || n > SIM_BURST || n >= left ||
		    !burst_on(dev, qp, next, vtime))
			break;
		t = next; /* its heap key stays (too early) until it stops */
	}
	/* its head, time or block changed: evaluated at once (what it woke is
	 * evaluated at the next step) */
	if (!settle(dev, qp, v, next))
		sim_sched_wake(qp);
	return n;
}

static inline __attribute__((always_inline)) uint64_t run_pkt(struct sim_dev *dev)
{
	sim_wire_rx(dev, sim_pktq_pop(&dev->inbox));
	return 1;
}

/*
 * SIM_SCHED_VTIME, one queue woken: refresh() for it.  When the heap is
 * empty, no READ job waits and it is ready (no poll) strictly before the
 * inbox's head, it is the next unit (the pick would take the heap's only
 * entry, no draw): it is returned (*@t: its start) to run at once without
 * entering the heap (its insert before the step and its delete or key
 * update after it would leave the heap as its insert after the step does:
 * nothing else is in it).  NULL when it was only evaluated.
 */
static inline __attribute__((always_inline)) struct sim_qp *take_woken(struct sim_dev *dev,
                                                                       sim_time_t *t)
{
	struct sim_qp *qp = dev->dirty[0];
	unsigned v = sim_sq_readiness(qp, t) & ~SIM_RD_PLAIN;

	if (__builtin_expect(v == SIM_RD_READY && !dev->nrdy && !dev->jobs &&
	                         (!dev->inbox.n || *t < dev->inbox.front->t),
	                     1)) {
		dev->ndirty = 0;
		qp->dirty = false;
		return qp;
	}
	if (settle(dev, qp, v, *t)) {
		dev->ndirty = 0;
		qp->dirty = false;
	}
	return NULL;
}

/* A step the run loop's common case does not cover (SIM_SCHED_RANDOM, READ
 * jobs, a tie): pick, then run (at most @left units, @left > 0).  Returns
 * the units run, 0 when none is runnable. */
static __attribute__((noinline)) uint64_t sched_step_picked(struct sim_dev *dev, uint64_t left)
{
	bool vtime = dev->o.sched == SIM_SCHED_VTIME;
	struct pick b;

	if (!(vtime ? pick_vtime(dev, &b) : pick_random(dev, &b)))
		return 0;
	switch (b.kind) {
	case UNIT_SQ:
		return run_sq(dev, b.ptr, b.t, left, vtime);
	case UNIT_PKT:
		return run_pkt(dev);
	case UNIT_JOB:
		if (sim_readjob_step(dev, b.ptr)) {
			struct sim_readjob **pp = &dev->jobs;

			while (*pp != b.ptr)
				pp = &(*pp)->next;
			*pp = ((struct sim_readjob *)b.ptr)->next;
			sim_readjob_free(dev, b.ptr);
		}
		break;
	}
	return 1;
}

/* Each step: deliveries from other threads, the woken queues' readiness,
 * one unit (sched_step_picked).  SIM_SCHED_RANDOM's loop; returns the
 * units run, at most @left. */
static __attribute__((noinline)) uint64_t sched_steps_picked(struct sim_dev *dev, uint64_t left)
{
	uint64_t start = left, ran;

	while (left) {
		if (dev->tx_held || __atomic_load_n(&dev->rx_async.n, __ATOMIC_ACQUIRE))
			sim_inbox_drain_async(dev);
		if (dev->ndirty)
			refresh(dev);
		ran = sched_step_picked(dev, left);
		if (!ran)
			break;
		left -= ran;
	}
	return start - left;
}

/*
 * Counts units in dev->st.steps (kept in a register while it runs: nothing
 * a step calls reads it): a burst counts as the WQEs it ran.  Each step:
 * deliveries from other threads, then the woken queues' readiness, then
 * one unit (or a burst).  SIM_SCHED_RANDOM runs sched_steps_picked's loop;
 * in this one (SIM_SCHED_VTIME) the common case, no READ jobs and one
 * earliest unit (the heap's root, the one woken queue while the heap is
 * empty, or the inbox's head; no tie), is decided here; the rest by
 * sched_step_picked.  A queue's step is inlined once (run:): two
 * copies of run_sq doubled the loop's code and its instruction-cache
 * misses.
 */
uint64_t sim_sched_steps(struct sim_dev *dev, uint64_t max_steps)
{
	uint64_t left = max_steps ? max_steps : UINT64_MAX, ran;
	struct sim_qp *qp;
	sim_time_t t;

	if (__builtin_expect(dev->o.sched != SIM_SCHED_VTIME, 0)) {
		left -= sched_steps_picked(dev, left);
		goto out;
	}
	while (left) {
		if (__builtin_expect(
		        dev->tx_held || __atomic_load_n(&dev->rx_async.n, __ATOMIC_ACQUIRE), 0))
			sim_inbox_drain_async(dev);
		if (dev->ndirty) {
			if (dev->ndirty == 1) {
				qp = take_woken(dev, &t);
				if (qp)
					goto run;
			} else {
				refresh(dev);
			}
		}
		if (__builtin_expect(!dev->jobs, 1)) {
			const struct sim_rdy *h = dev->rdy;
			uint32_t n = dev->nrdy;

			if (!n) {
				if (__builtin_expect(!dev->inbox.n, 0))
					break;
				left -= run_pkt(dev);
				continue;
			}
			if (!dev->inbox.n || h[0].t < dev->inbox.front->t) {
				t = h[0].t;
				if (n == 1) { /* out of the heap (run_sq) */
					qp = h[0].qp;
					dev->nrdy = 0;
					qp->rdy_pos = 0;
					goto run;
				}
				qp = pick_root(dev, h, n);
				if (qp)
					goto run;
			} else if (dev->inbox.front->t < h[0].t) {
				left -= run_pkt(dev);
				continue;
			}
		}
		ran = sched_step_picked(dev, left);
		if (!ran)
			break;
		left -= ran;
		continue;
	run:
		left -= run_sq(dev, qp, t, left, true);
	}
out:
	ran = (max_steps ? max_steps : UINT64_MAX) - left;
	dev->st.steps += ran;
	return ran;
}

int sim_sched_check(struct sim_dev *dev, uint32_t *bad_qpn)
{
	uint32_t ndirty = 0;
	int rc = 0;

	*bad_qpn = 0;
	pthread_mutex_lock(&dev->lock);
	for (uint32_t i = 0; i < dev->nrdy && !rc; i++) {
		const struct sim_rdy *e = &dev->rdy[i];

		if (e->qp->rdy_pos != i + 1 || dev->qps[e->qp->slot] != e->qp ||
		    (i && dev->rdy[(i - 1) / 2].t > e->t)) {
			*bad_qpn = e->qp->qpn;
			rc = -EPROTO; /* the heap itself */
		}
	}
	for (uint32_t i = 0; i < dev->ndirty && !rc; i++)
		if (!dev->dirty[i]->dirty)
			rc = -EPROTO;
	for (uint32_t slot = 0; slot < dev->qps_cap && !rc; slot++) {
		struct sim_qp *qp = dev->qps[slot];
		const struct sim_fetched *f;
		sim_time_t t = 0;
		bool ready, wait;

		if (!qp)
			continue;
		ndirty += qp->dirty;
		if (qp->dirty)
			continue; /* evaluated before the next pick */
		f = qp->sq.pf_cnt ? &qp->sq.pf[qp->sq.pf_head] : NULL;
		wait = f && qp->sq.hd.rc >= 0 && qp->sq.hd.w.ctrl.opcode == PRISM_OP_CQE_WAIT;
		ready = sim_sq_ready(qp, &t);
		/* a WAIT keeps the time its CQE came (the CQ's time ring may
		 * since say "long ago": 0) */
		if (ready != (qp->rdy_pos != 0) ||
		    (ready &&
		     (wait ? t > dev->rdy[qp->rdy_pos - 1].t : t != dev->rdy[qp->rdy_pos - 1].t))) {
			*bad_qpn = qp->qpn;
			rc = -ESTALE;
		}
	}
	if (!rc && ndirty != dev->ndirty)
		rc = -EPROTO;
	pthread_mutex_unlock(&dev->lock);
	return rc;
}

void sim_unpark_all(struct sim_dev *dev)
{
	for (uint32_t i = 0; i < dev->qps_cap; i++)
		if (dev->qps[i])
			dev->qps[i]->sq.rnr_parked = false;
}

int sim_dev_run(struct sim_dev *dev, uint64_t max_steps)
{
	int rc = 0;

	if (!dev)
		return -EINVAL;
	pthread_mutex_lock(&dev->lock);
	if (dev->threaded) {
		pthread_mutex_unlock(&dev->lock);
		return SIM_E_BUSY;
	}
	dev->hazard_failed = false;
	if (sim_sched_steps(dev, max_steps) == max_steps && max_steps)
		rc = SIM_E_LIMIT; /* stopped by the limit, maybe with work left */
	if (!rc && dev->hazard_failed)
		rc = SIM_E_HAZARD;
	pthread_mutex_unlock(&dev->lock);
	return rc;
}
