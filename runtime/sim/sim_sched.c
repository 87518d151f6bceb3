/* SPDX-License-Identifier: MIT */
/*
 * sim_sched.c - the deterministic scheduler: one step runs one unit (a send
 * queue's head WQE, one inbound packet, or one line of a chaos READ).
 *
 * Owns: the choice of the next unit.  SIM_SCHED_VTIME takes the unit with
 * the earliest virtual start time (each send queue is a processing unit
 * with its own clock; a WQE starts at max(PU time, fetch time, time its
 * WAIT was satisfied)), ties broken by the seeded PRNG; SIM_SCHED_RANDOM
 * takes any runnable unit by the PRNG.  Same seed and inputs: same run.
 * Only candidate queues are asked (dev->cand, in slot order): a queue that
 * is idle, not RTS or WAITing on a CQ count is parked and woken exactly
 * when that can change, so a step costs O(active queues), not O(QPs).
 *
 * Must not: execute anything itself (sim_exec.c, sim_wire.c do).
 */
#include <stdlib.h>

#include "sim/sim_internal.h"

enum unit_kind { UNIT_SQ, UNIT_PKT, UNIT_JOB };

#define SIM_BURST 64 /* WQEs a PU may run back to back in one step */

struct pick {
	enum unit_kind kind;
	void *ptr;
	sim_time_t t;
	sim_time_t t2; /* earliest time of any other unit */
	uint32_t ties;
	bool any;
};

static inline __attribute__((always_inline)) void
consider(struct sim_dev *dev, struct pick *b, enum unit_kind k, void *ptr, sim_time_t t)
{
	bool take;

	if (b->any) {
		sim_time_t loser = t < b->t ? b->t : t;

		if (loser < b->t2)
			b->t2 = loser;
	}
	if (!b->any) {
		take = true;
		b->ties = 1;
	} else if (dev->o.sched == SIM_SCHED_RANDOM) {
		b->ties++;
		take = sim_rand(dev) % b->ties == 0; /* reservoir sampling */
	} else if (t < b->t) {
		take = true;
		b->ties = 1;
	} else if (t == b->t) {
		b->ties++;
		take = sim_rand(dev) % b->ties == 0;
	} else {
		take = false;
	}
	if (take) {
		b->kind = k;
		b->ptr = ptr;
		b->t = t;
		b->any = true;
	}
}

/*
 * Runs @qp's head WQE at @t, then keeps running the queue while it stays
 * strictly earlier than every other unit (@t2) and touches nothing another
 * unit could depend on (dev->epoch: packets, CQEs, memory writes, ENABLEs,
 * QP states).  The result equals one step per WQE; it only skips rescans.
 */
static void sq_burst(struct sim_dev *dev, struct sim_qp *qp, sim_time_t t, sim_time_t t2)
{
	for (int n = 0;; n++) {
		uint64_t epoch = dev->epoch;

		sim_sq_step(qp, t);
		if (n == SIM_BURST || dev->o.sched != SIM_SCHED_VTIME || dev->epoch != epoch ||
		    !sim_sq_ready(qp, &t) || t >= t2)
			return;
		dev->st.steps++;
	}
}

/*
 * After sim_sq_ready() said no: can @qp leave the candidate set until
 * sim_sched_wake()?  Only for conditions whose every change wakes it: not
 * RTS (state changes), nothing fetched (fetches, responses), a WAIT on a
 * CQ count (that CQ's next CQE), a fence or a full outstanding ring (an
 * outstanding entry becoming done: by a packet, which wakes a fenced or
 * full queue (sim_requester.c), by the queue's own step (it is running, so
 * a candidate), or by a failure (a state change)).  RNR and wait-on-data
 * stay candidates (re-evaluated every step).
 */
static bool park(struct sim_qp *qp)
{
	struct sim_sq *sq = &qp->sq;
	const struct sim_fetched *f;
	struct sim_cq *cq;

	if (qp->state != SIM_QPS_RTS)
		return true;
	if (sq->block == SIM_BLOCK_RNR)
		return false;
	if (!sq->pf_cnt)
		return true;
	if (sq->block == SIM_BLOCK_FENCE || sq->block == SIM_BLOCK_OUTST)
		return true; /* sim_outst_complete wakes it */
	f = &sq->pf[sq->pf_head];
	if (sq->block != SIM_BLOCK_WAIT_CQ || f->decode_rc < 0 ||
	    f->w.ctrl.opmod != PRISM_WAIT_CQ ||
	    !(cq = sim_cq_by_num(qp->dev, f->w.wait_en.obj_num)))
		return false;
	if (qp->wait_cqn != cq->cqn) {
		if (cq->nwaiters == cq->waiters_cap) {
			uint32_t ncap = cq->waiters_cap ? cq->waiters_cap * 2 : 4;
			uint32_t *n = realloc(cq->waiters, ncap * sizeof(*n));

			if (!n)
				return false; /* stays a candidate: slower, still right */
			cq->waiters = n;
			cq->waiters_cap = ncap;
		}
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
	const struct sim_fetched *f;
	sim_time_t t;

	if (qp->wait_cqn != cq->cqn || qp->state != SIM_QPS_RTS || sq->block != SIM_BLOCK_WAIT_CQ ||
	    !sq->pf_cnt)
		return false;
	f = &sq->pf[sq->pf_head];
	return f->decode_rc >= 0 && f->w.ctrl.opcode == PRISM_OP_CQE_WAIT &&
	       f->w.ctrl.opmod == PRISM_WAIT_CQ && f->w.wait_en.obj_num == cq->cqn &&
	       !sim_cq_reached(cq, f->w.wait_en.index & 0xffffffu, &t);
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
}

int sim_sched_resize(struct sim_dev *dev, uint32_t old_cap)
{
	uint32_t ow = (old_cap + 63) / 64, nw = (dev->qps_cap + 63) / 64;
	uint32_t os = (ow + 63) / 64, ns = (nw + 63) / 64;
	uint64_t *c, *sum;

	c = realloc(dev->cand, (nw ? nw : 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	memset(c + ow, 0, (nw - ow) * sizeof(*c));
	dev->cand = c;
	sum = realloc(dev->cand_sum, (ns ? ns : 1) * sizeof(*sum));
	if (!sum)
		return -ENOMEM;
	memset(sum + os, 0, (ns - os) * sizeof(*sum));
	dev->cand_sum = sum;
	return 0;
}

/* Offers every candidate queue that is ready to @b, in slot order, and
 * parks the ones that cannot run until woken. */
static inline __attribute__((always_inline)) void scan_queues(struct sim_dev *dev, struct pick *b)
{
	uint32_t ns = (dev->qps_cap + 4095) / 4096;
	sim_time_t t;

	for (uint32_t s = 0; s < ns; s++) {
		uint64_t words = dev->cand_sum[s];

		while (words) {
			uint32_t w = s * 64 + (uint32_t)__builtin_ctzll(words);
			uint64_t bits = dev->cand[w];

			words &= words - 1;
			while (bits) {
				uint32_t slot = w * 64 + (uint32_t)__builtin_ctzll(bits);
				struct sim_qp *qp = dev->qps[slot];

				bits &= bits - 1;
				if (qp && sim_sq_ready(qp, &t))
					consider(dev, b, UNIT_SQ, qp, t);
				else if (!qp || park(qp))
					dev->cand[w] &= ~(1ull << (slot % 64));
			}
			if (!dev->cand[w])
				dev->cand_sum[s] &= ~(1ull << (w % 64));
		}
	}
}

/* One step; inlined into the run loop (sim_sched_steps), whose registers
 * then carry over from step to step. */
static inline __attribute__((always_inline)) bool sched_step(struct sim_dev *dev)
{
	struct pick b = {.any = false, .t2 = UINT64_MAX};

	if (dev->txq.n || __atomic_load_n(&dev->rx_async.n, __ATOMIC_ACQUIRE))
		sim_inbox_drain_async(dev);
	/* candidates in slot order: the same units, in the same order, as a
	 * scan of every QP (the parked ones would all say "not ready") */
	scan_queues(dev, &b);
	if (dev->inbox.n) /* sim_pktq_peek */
		consider(dev, &b, UNIT_PKT, dev->inbox.e[0].p, dev->inbox.e[0].t);
	for (struct sim_readjob *j = dev->jobs; j; j = j->next)
		consider(dev, &b, UNIT_JOB, j, j->t);
	if (!b.any)
		return false;
	dev->st.steps++;
	switch (b.kind) {
	case UNIT_SQ:
		sq_burst(dev, b.ptr, b.t, b.t2);
		break;
	case UNIT_PKT:
		sim_wire_rx(dev, sim_pktq_pop(&dev->inbox));
		break;
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
	return true;
}

uint64_t sim_sched_steps(struct sim_dev *dev, uint64_t max_steps)
{
	uint64_t n = 0;

	while ((!max_steps || n < max_steps) && sched_step(dev))
		n++;
	return n;
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
