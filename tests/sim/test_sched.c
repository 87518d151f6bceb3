/* SPDX-License-Identifier: MIT */
/*
 * tests/sim/test_sched.c - the scheduler's bookkeeping, not a NIC rule:
 * queues that cannot run are parked and must come back exactly when they
 * can (a CQE or the awaited CQ going away, a fetch, a response), a ready
 * queue's cached start time must be re-evaluated when it can change, the
 * ready heap must hand out units in time order and survive queues going
 * away, ties are drawn by the seed, parked queues must not change the
 * seeded order, and the requester keeps requests wherever an RNR NAK can
 * make them go again (copies, or loopback requests lent while they wait in
 * the inbox: resent from there, and their sender may go away before they
 * arrive), and a loopback response due at its request's time is folded
 * into the request's step (VTIME), one due later is not, and the run ends
 * the same without an observer (where the fold skips the wire path).
 *
 * Owns: these checks.  Must not: time anything.
 */
#include <errno.h>
#include <stdlib.h>

#include "tests/sim/sim_env.h"

/* A WAIT on a CQ that no QP uses parks its queue; destroying that CQ must
 * wake it: the WAIT then runs and fails (no such CQ), it does not hang. */
static void test_parked_wait_wakes_when_cq_destroyed(void **state)
{
	struct env *e = env_make(SIM_FW_STRICT, SIM_HAZARD_FAIL, false, SIM_QP_CROSS_CHANNEL, 0);
	struct hx_cq other;
	struct prism_wqe w;
	struct prism_cqe c;

	(void)state;
	hx_cq_init(&other, e->dev, 4, false);
	hx_wait(&w, sim_cq_num(other.cq), 0, true);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(hx_poll(&e->cq_a, &c), 0); /* blocked */
	assert_int_equal(sim_cq_destroy(other.cq), 0);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	c = hx_expect(&e->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
	assert_int_equal(sim_qp_state(e->a.qp), SIM_QPS_ERR);
	env_teardown((void **)&e);
}

/* a: a WAIT for b's CQE number @count (0-based) on cq_b, then a signaled
 * 16-byte WRITE src -> dst; run (the WAIT parks). */
static void post_wait_then_write(struct env *e, uint32_t count)
{
	struct prism_wqe w;

	hx_wait(&w, sim_cq_num(e->cq_b.cq), count, false);
	hx_post(&e->a, &w);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst, e->dst_key, (uintptr_t)e->src, e->src_key,
	      16, true);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(e->dst[0], 0);
}

/* b: an 8-byte READ whose response completes it (a CQE on cq_b); run. */
static void run_read_on_b(struct env *e)
{
	struct prism_wqe w;

	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)e->src + 64, e->src_key, (uintptr_t)e->dst + 64,
	      e->dst_key, 8, true);
	hx_post(&e->b, &w);
	hx_ring(&e->b);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(hx_expect(&e->cq_b).opcode, PRISM_CQE_REQ);
}

/* A WAIT parked on a CQ wakes on that CQ's CQE even when the CQE comes
 * from a queue on the other side of a packet (a response completing). */
static void test_parked_wait_wakes_on_remote_completion(void **state)
{
	struct env *e = env_make(SIM_FW_STRICT, SIM_HAZARD_FAIL, false, SIM_QP_CROSS_CHANNEL, 0);

	(void)state;
	post_wait_then_write(e, 0);
	run_read_on_b(e);
	assert_int_equal(hx_expect(&e->cq_a).opcode, PRISM_CQE_REQ);
	assert_memory_equal(e->dst, e->src, 16);
	assert_memory_equal(e->dst + 64, e->src + 64, 8);
	env_teardown((void **)&e);
}

/* A lone WAIT parked for a CQ's second CQE stays parked through the first
 * (the waiter is kept) and wakes on the second. */
static void test_parked_wait_kept_until_its_count(void **state)
{
	struct env *e = env_make(SIM_FW_STRICT, SIM_HAZARD_FAIL, false, SIM_QP_CROSS_CHANNEL, 0);
	struct prism_cqe c;

	(void)state;
	post_wait_then_write(e, 1);
	run_read_on_b(e);
	assert_int_equal(hx_poll(&e->cq_a, &c), 0); /* still parked */
	assert_int_equal(e->dst[0], 0);
	run_read_on_b(e);
	assert_int_equal(hx_expect(&e->cq_a).opcode, PRISM_CQE_REQ);
	assert_memory_equal(e->dst, e->src, 16);
	env_teardown((void **)&e);
}

/* RNR NAK on a SEND: the WRITE and READ sent behind it were dropped by the
 * responder and must be sent again from the kept copies, in order. */
static void test_rnr_resends_requests_behind_send(void **state)
{
	struct env *e = env_make(SIM_FW_STRICT, SIM_HAZARD_FAIL, false, 0, 0);
	struct prism_sge sge = {.byte_count = 8, .lkey = e->dst_key, .addr = (uintptr_t)e->dst};
	struct prism_wqe w;

	(void)state;
	hx_send(&w, PRISM_OP_SEND, (uintptr_t)e->src, e->src_key, 8, true);
	hx_post(&e->a, &w);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst + 256, e->dst_key, (uintptr_t)e->src + 256,
	      e->src_key, 32, true);
	hx_post(&e->a, &w);
	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)e->src + 512, e->src_key, (uintptr_t)e->dst + 512,
	      e->dst_key, 16, true);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(sim_cq_count(e->cq_a.cq), 0); /* RNR: nothing completed */
	hx_post_recv(&e->b, &sge, 1);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	for (uint16_t i = 0; i < 3; i++) {
		struct prism_cqe c = hx_expect(&e->cq_a);

		assert_int_equal(c.opcode, PRISM_CQE_REQ);
		assert_int_equal(c.wqe_counter, i);
	}
	assert_memory_equal(e->dst, e->src, 8);
	assert_memory_equal(e->dst + 256, e->src + 256, 32);
	assert_memory_equal(e->dst + 512, e->src + 512, 16);
	env_teardown((void **)&e);
}

/* A fenced WQE behind outstanding READs parks its queue (block FENCE);
 * the READ responses must wake it, and it must then run after them: the
 * fenced WRITE sends what the READs landed. */
static void test_parked_fence_wakes_on_read_response(void **state)
{
	struct env *e = env_make(SIM_FW_STRICT, SIM_HAZARD_FAIL, false, 0, 0);
	struct prism_wqe w;

	(void)state;
	for (int i = 0; i < 2; i++) {
		hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)e->src + 64 + 8 * i, e->src_key,
		      (uintptr_t)e->dst + 64 + 8 * i, e->dst_key, 8, true);
		hx_post(&e->a, &w);
	}
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst + 128, e->dst_key, (uintptr_t)e->dst + 64,
	      e->dst_key, 16, true);
	w.ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_SMALL_AND_FENCE, PRISM_CE_CQ_UPDATE, false);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	for (uint16_t i = 0; i < 3; i++) {
		struct prism_cqe c = hx_expect(&e->cq_a);

		assert_int_equal(c.opcode, PRISM_CQE_REQ);
		assert_int_equal(c.wqe_counter, i);
	}
	assert_memory_equal(e->dst + 128, e->src + 64, 16);
	env_teardown((void **)&e);
}

struct evsum {
	uint64_t h, n;
};

static void ev_hash(void *ctx, const struct sim_event *ev)
{
	struct evsum *s = ctx;
	uint64_t v[] = {ev->kind, ev->t, ev->qpn, ev->wqe_counter, ev->opcode, ev->cqn};

	if (ev->kind == SIM_EV_QP_STATE)
		return; /* setup: the idle QPs' own transitions */

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		s->h = (s->h ^ v[i]) * 0x100000001b3ull;
	s->n++;
}

/* Two busy QP pairs under the random scheduler, with @idle more connected
 * QPs (created after them, so the busy QPNs do not move). */
static struct evsum run_mix(uint64_t seed, unsigned idle)
{
	struct evsum s = {.h = 1469598103934665603ull};
	struct sim_observer obs = {.ctx = &s, .event = ev_hash};
	struct sim_dev_opts o = {.sz = sizeof(o),
	                         .seed = seed,
	                         .sched = SIM_SCHED_RANDOM,
	                         .hazard = SIM_HAZARD_FAIL,
	                         .node = 1,
	                         .obs = &obs};
	struct sim_dev *dev;
	struct hx_cq cq[2], icq;
	struct hx_qp q[4], *iq = calloc(idle ? idle : 1, sizeof(*iq));
	uint8_t *buf = aligned_alloc(4096, 8192);
	uint32_t key;
	struct prism_wqe w;

	assert_non_null(iq);
	assert_non_null(buf);
	memset(buf, 0x5a, 8192);
	assert_int_equal(sim_dev_open(&o, &dev), 0);
	hx_cq_init(&cq[0], dev, 256, true);
	hx_cq_init(&cq[1], dev, 256, true);
	for (int i = 0; i < 4; i++)
		hx_qp_init(&q[i], dev, &cq[i / 2], &cq[i / 2], 256, 16, 0);
	hx_pair(&q[0], &q[1]);
	hx_pair(&q[2], &q[3]);
	hx_cq_init(&icq, dev, 4, false);
	for (unsigned i = 0; i < idle; i++) {
		hx_qp_init(&iq[i], dev, &icq, &icq, 16, 0, 0);
		hx_pair(&iq[i], &iq[i]);
	}
	key = hx_key(dev, buf, 8192, CONF_ALL);
	for (int i = 0; i < 40; i++) {
		struct hx_qp *p = &q[(i % 2) * 2 + (i / 7) % 2];

		if (i % 3 == 0)
			hx_nop(&w, true);
		else
			hx_rw(&w, i % 3 == 1 ? PRISM_OP_RDMA_WRITE : PRISM_OP_RDMA_READ,
			      (uintptr_t)buf + 64 * (i % 32), key,
			      (uintptr_t)buf + 4096 + 64 * (i % 32), key, 64, true);
		hx_post(p, &w);
		if (i % 5 == 4)
			for (int k = 0; k < 4; k++)
				hx_ring(&q[k]);
	}
	for (int k = 0; k < 4; k++)
		hx_ring(&q[k]);
	assert_int_equal(sim_dev_run(dev, 0), 0);
	assert_int_equal(sim_cq_count(cq[0].cq) + sim_cq_count(cq[1].cq), 40);
	sim_dev_close(dev);
	free(buf);
	free(iq);
	return s;
}

/* Parked queues are never runnable, so the seeded choice among the
 * runnable ones, and every event, is the same with 300 idle QPs. */
static void test_idle_qps_do_not_change_the_order(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct evsum a = run_mix(seed, 0), b = run_mix(seed, 300);

		assert_true(a.n > 0);
		assert_int_equal(a.n, b.n);
		assert_int_equal(a.h, b.h);
	}
}

/* ---- loopback requests lent to their outstanding entries ------------ */

/*
 * A loopback request that an RNR NAK may make go again is not copied: its
 * outstanding entry points at the packet while it waits in the inbox and
 * takes it back on delivery.  These runs put the resend, and the entry's
 * end, while such packets are still queued.  Costs: WRITEs take 200 us to
 * arrive, everything else the flat default; RNR timer 10 us, 3 retries.
 */
struct lend {
	struct sim_dev *dev;
	struct hx_cq cq_a, cq_b;
	struct hx_qp a, b;
	uint8_t *src, *dst;
	uint32_t src_key, dst_key;
	uint32_t send_psn, tx_send, naks, write_tx, write_rx;
	bool queued_at_resend; /* a WRITE sent but not delivered at the resend */
};

static void lend_cost(void *ctx, const struct sim_cost_query *q, struct sim_cost *out)
{
	sim_default_cost(ctx, q, out);
	if (q->opcode == PRISM_OP_RDMA_WRITE)
		out->latency = SIM_US(400.0); /* the request arrives half-way */
}

static void lend_event(void *ctx, const struct sim_event *ev)
{
	struct lend *l = ctx;
	const struct sim_pkt *p = ev->pkt;

	if (ev->kind == SIM_EV_PKT_TX && p->src_qpn == l->a.qpn) {
		if (p->kind == SIM_PKT_SEND) {
			if (l->tx_send++ == 0)
				l->send_psn = p->psn;
			else if (l->write_tx > l->write_rx)
				l->queued_at_resend = true;
		} else if (p->kind == SIM_PKT_WRITE) {
			l->write_tx++;
		}
	} else if (ev->kind == SIM_EV_PKT_RX && p->dst_qpn == l->b.qpn &&
	           p->kind == SIM_PKT_WRITE) {
		l->write_rx++;
	} else if (ev->kind == SIM_EV_PKT_RX && p->dst_qpn == l->a.qpn && p->kind == SIM_PKT_NAK) {
		l->naks++;
	}
}

static struct lend *lend_make(void)
{
	struct lend *l = test_calloc(1, sizeof(*l));
	struct sim_dev_opts o = {.sz = sizeof(o), .seed = 1, .hazard = SIM_HAZARD_FAIL};
	static struct sim_observer obs;
	uint32_t node;

	obs = (struct sim_observer){.ctx = l, .cost = lend_cost, .event = lend_event};
	o.obs = &obs;
	assert_int_equal(sim_dev_open(&o, &l->dev), 0);
	node = sim_dev_node(l->dev);
	hx_cq_init(&l->cq_a, l->dev, 64, false);
	hx_cq_init(&l->cq_b, l->dev, 64, false);
	hx_qp_init(&l->a, l->dev, &l->cq_a, &l->cq_a, 64, 16, 0);
	hx_qp_init(&l->b, l->dev, &l->cq_b, &l->cq_b, 64, 16, 0);
	hx_connect(&l->a, node, l->b.qpn, 3, 1);
	hx_connect(&l->b, node, l->a.qpn, 3, 1);
	l->src = aligned_alloc(4096, 4096);
	l->dst = aligned_alloc(4096, 4096);
	for (unsigned i = 0; i < 4096; i++)
		l->src[i] = (uint8_t)(i * 11 + 5);
	memset(l->dst, 0, 4096);
	l->src_key = hx_key(l->dev, l->src, 4096, CONF_ALL);
	l->dst_key = hx_key(l->dev, l->dst, 4096, CONF_ALL);
	return l;
}

static void lend_free(struct lend *l)
{
	sim_dev_close(l->dev);
	free(l->src);
	free(l->dst);
	test_free(l);
}

/* a: SEND (8 bytes to dst), then four 32-byte WRITEs to dst + 256 * (i + 1). */
static void lend_post(struct lend *l)
{
	struct prism_wqe w;

	hx_send(&w, PRISM_OP_SEND, (uintptr_t)l->src, l->src_key, 8, true);
	hx_post(&l->a, &w);
	for (int i = 1; i <= 4; i++) {
		hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)l->dst + 256 * i, l->dst_key,
		      (uintptr_t)l->src + 256 * i, l->src_key, 32, true);
		hx_post(&l->a, &w);
	}
	hx_ring(&l->a);
}

/* Runs one step at a time until @stop says so (or the device is idle). */
static void run_until(struct lend *l, bool (*stop)(const struct lend *l))
{
	for (int i = 0; i < 10000 && !stop(l); i++) {
		int rc = sim_dev_run(l->dev, 1);

		assert_true(rc == 0 || rc == SIM_E_LIMIT);
	}
	assert_true(stop(l));
}

static bool got_nak(const struct lend *l)
{
	return l->naks > 0;
}

static bool writes_sent(const struct lend *l)
{
	return l->write_tx == 4;
}

/* RNR NAK on the SEND while the WRITEs behind it are still on their way:
 * the go-back-N resend clones them from the queued packets, the resent
 * copies overtake the originals, the entries complete and let go of the
 * originals, which arrive later, are dropped (old PSNs) and freed. */
static void test_rnr_resend_while_lent_requests_queued(void **state)
{
	struct lend *l = lend_make();
	struct prism_sge sge = {.byte_count = 8, .lkey = l->dst_key, .addr = (uintptr_t)l->dst};

	(void)state;
	lend_post(l);
	run_until(l, got_nak);
	assert_true(l->write_tx > l->write_rx); /* WRITEs queued behind the NAKed SEND */
	hx_post_recv(&l->b, &sge, 1);
	assert_int_equal(sim_dev_run(l->dev, 0), 0);
	assert_true(l->queued_at_resend); /* the resend ran while they were queued */
	assert_int_equal(l->tx_send, 2);
	/* the WRITEs sent before the NAK arrive twice (resent copy, then the
	 * original, dropped), those sent after the resend once */
	assert_true(l->write_rx > 4);
	for (uint16_t i = 0; i < 5; i++) {
		struct prism_cqe c = hx_expect(&l->cq_a);

		assert_int_equal(c.opcode, PRISM_CQE_REQ);
		assert_int_equal(c.wqe_counter, i);
	}
	assert_int_equal(hx_expect(&l->cq_b).opcode, PRISM_CQE_RESP_SEND);
	assert_int_equal(hx_poll(&l->cq_b, &(struct prism_cqe){0}), 0); /* received once */
	assert_memory_equal(l->dst, l->src, 8);
	for (int i = 1; i <= 4; i++)
		assert_memory_equal(l->dst + 256 * i, l->src + 256 * i, 32);
	assert_int_equal(sim_qp_state(l->a.qp), SIM_QPS_RTS);
	lend_free(l);
}

/* The sender goes away while its lent requests are queued: destroyed, or
 * moved to RESET; the requests still arrive (the receive is used), nothing
 * is freed twice or lost (ASan / valgrind). */
static void lend_sender_gone(bool destroy)
{
	struct lend *l = lend_make();
	struct prism_sge sge = {.byte_count = 8, .lkey = l->dst_key, .addr = (uintptr_t)l->dst};

	hx_post_recv(&l->b, &sge, 1);
	lend_post(l);
	run_until(l, writes_sent);
	assert_true(l->write_rx < 4);
	if (destroy) {
		assert_int_equal(sim_mr_dereg(l->a.sq_mr), 0);
		assert_int_equal(sim_qp_destroy(l->a.qp), 0);
	} else {
		struct sim_qp_mod m = {.state = SIM_QPS_RESET};

		assert_int_equal(sim_qp_modify(l->a.qp, &m), 0);
	}
	assert_int_equal(sim_dev_run(l->dev, 0), 0);
	assert_int_equal(l->write_rx, 4);
	assert_int_equal(hx_expect(&l->cq_b).opcode, PRISM_CQE_RESP_SEND);
	assert_memory_equal(l->dst, l->src, 8);
	for (int i = 1; i <= 4; i++)
		assert_memory_equal(l->dst + 256 * i, l->src + 256 * i, 32);
	lend_free(l);
}

static void test_lent_requests_outlive_destroyed_sender(void **state)
{
	(void)state;
	lend_sender_gone(true);
}

static void test_lent_requests_outlive_reset_sender(void **state)
{
	(void)state;
	lend_sender_gone(false);
}

/* ---- the ready heap ------------------------------------------------------ */

/* Records EXEC_START events; charges every WQE @busy_ps, or @long_ps of
 * latency for the WQEs of QP @long_qpn. */
struct rec {
	uint32_t n;
	struct {
		sim_time_t t;
		uint32_t qpn;
		uint8_t opcode;
	} ev[4096];
	sim_time_t busy_ps, long_ps;
	uint32_t long_qpn;
	bool per_qp_busy; /* busy = busy_ps * (qpn % 5 + 1) */
};

static void rec_event(void *ctx, const struct sim_event *ev)
{
	struct rec *r = ctx;

	if (ev->kind != SIM_EV_EXEC_START || r->n == 4096)
		return;
	r->ev[r->n].t = ev->t;
	r->ev[r->n].qpn = ev->qpn;
	r->ev[r->n].opcode = ev->opcode;
	r->n++;
}

static void rec_cost(void *ctx, const struct sim_cost_query *q, struct sim_cost *out)
{
	struct rec *r = ctx;

	out->busy = r->per_qp_busy ? r->busy_ps * (q->qpn % 5 + 1) : r->busy_ps;
	out->latency = q->qpn == r->long_qpn ? r->long_ps : out->busy;
}

static struct sim_dev *rec_dev(struct rec *r, uint64_t seed, struct sim_observer *obs)
{
	struct sim_dev_opts o = {.sz = sizeof(o),
	                         .seed = seed,
	                         .sched = SIM_SCHED_VTIME,
	                         .hazard = SIM_HAZARD_FAIL,
	                         .node = 1,
	                         .obs = obs};
	struct sim_dev *dev;

	*obs = (struct sim_observer){.ctx = r, .cost = rec_cost, .event = rec_event};
	assert_int_equal(sim_dev_open(&o, &dev), 0);
	return dev;
}

/* Independent queues with different chain lengths and WQE costs: every
 * step takes the earliest unit, so the start times come out in order, and
 * every WQE runs (the heap's inserts, moves and removals keep it whole). */
static void test_independent_queues_start_in_time_order(void **state)
{
	enum { NQ = 96 };
	struct rec *r = test_calloc(1, sizeof(*r));
	struct sim_observer obs;
	struct sim_dev *dev;
	struct hx_cq cq;
	struct hx_qp *q = test_calloc(NQ, sizeof(*q));
	struct prism_wqe w;
	uint32_t posted = 0;

	(void)state;
	r->busy_ps = SIM_US(0.1);
	r->per_qp_busy = true;
	dev = rec_dev(r, 7, &obs);
	hx_cq_init(&cq, dev, 16, true);
	for (int i = 0; i < NQ; i++) {
		hx_qp_init(&q[i], dev, &cq, &cq, 64, 0, 0);
		hx_pair(&q[i], &q[i]);
	}
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < NQ; i++) {
			for (int k = 0; k < (i * 7 + round) % 11 + 1; k++) {
				hx_nop(&w, false);
				hx_post(&q[i], &w);
				posted++;
			}
			hx_ring(&q[i]);
		}
		assert_int_equal(sim_dev_run(dev, 0), 0);
	}
	assert_int_equal(r->n, posted);
	/* the second round's fetches happen at the host's time, after all
	 * of the first: one run of non-decreasing start times */
	for (uint32_t i = 1; i < r->n; i++)
		assert_true(r->ev[i].t >= r->ev[i - 1].t);
	sim_dev_close(dev);
	test_free(q);
	test_free(r);
}

/* Two queues whose first WQEs start at the same time: which runs first is
 * drawn by the seed (the same seed, the same draw; some seeds each way). */
static uint32_t first_of_tie(uint64_t seed, uint32_t *qpn_a)
{
	struct rec *r = test_calloc(1, sizeof(*r));
	struct sim_observer obs;
	struct sim_dev *dev;
	struct hx_cq cq;
	struct hx_qp a, b;
	struct prism_wqe w;
	uint32_t first;

	r->busy_ps = SIM_US(0.2);
	dev = rec_dev(r, seed, &obs);
	hx_cq_init(&cq, dev, 16, true);
	hx_qp_init(&a, dev, &cq, &cq, 64, 0, 0);
	hx_qp_init(&b, dev, &cq, &cq, 64, 0, 0);
	hx_pair(&a, &b);
	hx_nop(&w, false);
	hx_post(&a, &w);
	hx_nop(&w, false);
	hx_post(&b, &w);
	hx_ring(&a);
	hx_ring(&b);
	assert_int_equal(sim_dev_run(dev, 0), 0);
	assert_int_equal(r->n, 2);
	assert_int_equal(r->ev[0].t, r->ev[1].t);
	first = r->ev[0].qpn;
	*qpn_a = a.qpn;
	sim_dev_close(dev);
	test_free(r);
	return first;
}

static void test_ties_drawn_by_the_seed(void **state)
{
	unsigned a_first = 0;
	uint32_t qpn_a;

	(void)state;
	for (uint64_t seed = 1; seed <= 32; seed++) {
		uint32_t f = first_of_tie(seed, &qpn_a);

		assert_int_equal(f, first_of_tie(seed, &qpn_a));
		a_first += f == qpn_a;
	}
	assert_true(a_first > 0);
	assert_true(a_first < 32);
}

/* rec_event, plus each PKT_RX (opcode 0xff, the addressed QP). */
static void rec_event_rx(void *ctx, const struct sim_event *ev)
{
	struct rec *r = ctx;

	if (ev->kind == SIM_EV_PKT_RX && r->n < 4096) {
		r->ev[r->n].t = ev->t;
		r->ev[r->n].qpn = ev->qpn;
		r->ev[r->n].opcode = 0xff;
		r->n++;
		return;
	}
	rec_event(ctx, ev);
}

/*
 * One queue woken while no other is ready (the run loop may run it without
 * the heap), ready at the very time of the inbox's head: still a tie, drawn
 * by the seed.  w: a WAIT on n's first CQE, then a NOP; n: two NOPs (the
 * second signaled: its CQE at 2 busy); s: a WRITE to d whose request
 * arrives at half its 4-busy latency, 2 busy.  Returns whether the WAIT ran before
 * the request was taken (*@wait_t: the WAIT's start).
 */
static bool woken_before_tied_packet(uint64_t seed, sim_time_t *wait_t)
{
	struct sim_dev_opts o = {.sz = sizeof(o),
	                         .seed = seed,
	                         .sched = SIM_SCHED_VTIME,
	                         .hazard = SIM_HAZARD_FAIL,
	                         .node = 1};
	struct rec *r = test_calloc(1, sizeof(*r));
	uint8_t *buf = aligned_alloc(4096, 4096);
	struct sim_observer obs;
	struct sim_dev *dev;
	struct hx_cq cq, ncq;
	struct hx_qp w, n, s, d;
	struct prism_wqe x;
	uint32_t key;
	int wait_at = -1, rx_at = -1;

	assert_non_null(buf);
	r->busy_ps = SIM_US(0.2);
	r->long_ps = SIM_US(0.8);
	obs = (struct sim_observer){.ctx = r, .cost = rec_cost, .event = rec_event_rx};
	o.obs = &obs;
	assert_int_equal(sim_dev_open(&o, &dev), 0);
	hx_cq_init(&cq, dev, 16, true);
	hx_cq_init(&ncq, dev, 16, true);
	hx_qp_init(&w, dev, &cq, &cq, 64, 0, 0);
	hx_qp_init(&n, dev, &ncq, &ncq, 64, 0, 0);
	hx_qp_init(&s, dev, &cq, &cq, 64, 0, 0);
	hx_qp_init(&d, dev, &cq, &cq, 64, 0, 0);
	hx_pair(&w, &w);
	hx_pair(&n, &n);
	hx_pair(&s, &d);
	r->long_qpn = s.qpn;
	key = hx_key(dev, buf, 4096, CONF_ALL);
	hx_wait(&x, sim_cq_num(ncq.cq), 0, false);
	hx_post(&w, &x);
	hx_nop(&x, false);
	hx_post(&w, &x);
	hx_nop(&x, false);
	hx_post(&n, &x);
	hx_nop(&x, true);
	hx_post(&n, &x);
	hx_rw(&x, PRISM_OP_RDMA_WRITE, (uintptr_t)buf + 64, key, (uintptr_t)buf, key, 8, false);
	hx_post(&s, &x);
	hx_ring(&w);
	hx_ring(&n);
	hx_ring(&s);
	assert_int_equal(sim_dev_run(dev, 0), 0);
	for (uint32_t i = 0; i < r->n; i++) {
		if (r->ev[i].opcode == 0xff && r->ev[i].qpn == d.qpn && rx_at < 0)
			rx_at = (int)i;
		if (r->ev[i].opcode == PRISM_OP_CQE_WAIT)
			wait_at = (int)i;
	}
	assert_true(wait_at >= 0 && rx_at >= 0);
	assert_int_equal(r->ev[rx_at].t, r->ev[wait_at].t); /* the tie */
	*wait_t = r->ev[wait_at].t;
	sim_dev_close(dev);
	free(buf);
	test_free(r);
	return wait_at < rx_at;
}

static void test_woken_queue_tied_with_packet_drawn(void **state)
{
	unsigned wait_first = 0;
	sim_time_t t0, t;

	(void)state;
	for (uint64_t seed = 1; seed <= 32; seed++) {
		bool f = woken_before_tied_packet(seed, &t0);

		assert_int_equal(f, woken_before_tied_packet(seed, &t));
		assert_int_equal(t, t0);
		wait_first += f;
	}
	assert_true(wait_first > 0);
	assert_true(wait_first < 32);
}

/*
 * A WAIT found satisfied keeps its start time (the CQE's time) in the
 * ready heap.  If its CQ goes away before it runs, it runs and fails at
 * once, no longer held to that CQE's time: the CQ's destruction must wake
 * ready queues too, not only the parked waiters.
 */
static void test_ready_wait_rewoken_when_cq_destroyed(void **state)
{
	struct rec *r = test_calloc(1, sizeof(*r));
	struct sim_observer obs;
	struct sim_dev *dev;
	struct hx_cq cq, x;
	struct hx_qp a, b, c, peer;
	struct prism_wqe w;
	struct prism_cqe e;
	sim_time_t wait_start = UINT64_MAX;

	(void)state;
	r->busy_ps = SIM_US(0.1);
	r->long_ps = SIM_US(10);
	dev = rec_dev(r, 3, &obs);
	hx_cq_init(&cq, dev, 64, true);
	hx_cq_init(&x, dev, 16, true);
	hx_qp_init(&a, dev, &cq, &cq, 64, 0, SIM_QP_CROSS_CHANNEL);
	hx_qp_init(&b, dev, &x, &x, 64, 0, 0);
	hx_qp_init(&c, dev, &cq, &cq, 64, 0, 0);
	hx_qp_init(&peer, dev, &cq, &cq, 64, 0, 0);
	hx_pair(&a, &peer);
	hx_pair(&b, &b);
	hx_pair(&c, &c);
	r->long_qpn = b.qpn;
	hx_wait(&w, sim_cq_num(x.cq), 0, true); /* a: WAIT for b's CQE */
	hx_post(&a, &w);
	hx_nop(&w, true); /* b: its CQE lands 10 us after it starts */
	hx_post(&b, &w);
	for (int k = 0; k < 40; k++) { /* c: 4 us of work meanwhile */
		hx_nop(&w, false);
		hx_post(&c, &w);
	}
	hx_ring(&a);
	hx_ring(&b);
	hx_ring(&c);
	while (sim_cq_count(x.cq) == 0)
		assert_int_equal(sim_dev_run(dev, 1), SIM_E_LIMIT);
	/* a is satisfied from 10 us on; c's next WQEs are earlier */
	assert_int_equal(sim_dev_run(dev, 2), SIM_E_LIMIT);
	for (uint32_t i = 0; i < r->n; i++)
		assert_int_not_equal(r->ev[i].qpn, a.qpn);
	assert_int_equal(sim_qp_destroy(b.qp), 0);
	assert_int_equal(sim_cq_destroy(x.cq), 0);
	assert_int_equal(sim_dev_run(dev, 0), 0);
	for (uint32_t i = 0; i < r->n; i++)
		if (r->ev[i].qpn == a.qpn)
			wait_start = r->ev[i].t;
	assert_true(wait_start < SIM_US(10));
	assert_int_equal(hx_poll(&cq, &e), 1);
	assert_int_equal(e.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(e.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
	sim_dev_close(dev);
	test_free(r);
}

/* A queue destroyed while it is ready (in the heap): the others go on, in
 * time order, and every WQE of theirs runs. */
static void test_queue_destroyed_while_ready(void **state)
{
	enum { NQ = 9 };
	struct rec *r = test_calloc(1, sizeof(*r));
	struct sim_observer obs;
	struct sim_dev *dev;
	struct hx_cq cq;
	struct hx_qp q[NQ];
	struct prism_wqe w;
	uint32_t before, after = 0;

	(void)state;
	r->busy_ps = SIM_US(0.1);
	r->per_qp_busy = true;
	dev = rec_dev(r, 5, &obs);
	hx_cq_init(&cq, dev, 16, true);
	for (int i = 0; i < NQ; i++) {
		hx_qp_init(&q[i], dev, &cq, &cq, 64, 0, 0);
		hx_pair(&q[i], &q[i]);
		for (int k = 0; k < 20; k++) {
			hx_nop(&w, false);
			hx_post(&q[i], &w);
		}
		hx_ring(&q[i]);
	}
	assert_int_equal(sim_dev_run(dev, 30), SIM_E_LIMIT);
	for (uint32_t i = 0; i < r->n; i++)
		after += r->ev[i].qpn == q[4].qpn;
	assert_true(after > 0 && after < 20); /* q[4] is mid-chain: ready */
	assert_int_equal(sim_qp_destroy(q[4].qp), 0);
	before = r->n;
	assert_int_equal(sim_dev_run(dev, 0), 0);
	assert_int_equal(r->n - before, (NQ - 1) * 20 - (before - after));
	for (uint32_t i = before; i < r->n; i++) {
		assert_int_not_equal(r->ev[i].qpn, q[4].qpn);
		if (i > before)
			assert_true(r->ev[i].t >= r->ev[i - 1].t);
	}
	sim_dev_close(dev);
	test_free(r);
}

/* A ready queue (in the heap, its start time cached) that the host moves
 * to ERR must leave the heap: the state change wakes it.  Its remaining
 * WQEs are flushed, none of them runs; the other queue is unaffected. */
static void test_ready_queue_moved_to_err_stops(void **state)
{
	struct rec *r = test_calloc(1, sizeof(*r));
	struct sim_observer obs;
	struct sim_dev *dev;
	struct hx_cq cq, cq_b;
	struct hx_qp a, b;
	struct prism_wqe w;
	struct prism_cqe e;
	struct sim_qp_mod err = {.state = SIM_QPS_ERR};
	uint32_t ran_a = 0, ran_b = 0, flushed = 0;

	(void)state;
	r->busy_ps = SIM_US(0.1);
	dev = rec_dev(r, 11, &obs);
	hx_cq_init(&cq, dev, 64, false);
	hx_cq_init(&cq_b, dev, 64, false);
	hx_qp_init(&a, dev, &cq, &cq, 64, 0, 0);
	hx_qp_init(&b, dev, &cq_b, &cq_b, 64, 0, 0);
	hx_pair(&a, &a);
	hx_pair(&b, &b);
	for (int k = 0; k < 10; k++) {
		hx_nop(&w, true);
		hx_post(&a, &w);
		hx_nop(&w, true);
		hx_post(&b, &w);
	}
	hx_ring(&a);
	hx_ring(&b);
	assert_int_equal(sim_dev_run(dev, 6), SIM_E_LIMIT);
	for (uint32_t i = 0; i < r->n; i++)
		ran_a += r->ev[i].qpn == a.qpn;
	assert_true(ran_a > 0 && ran_a < 10); /* a is ready, mid-chain */
	assert_int_equal(sim_qp_modify(a.qp, &err), 0);
	assert_int_equal(sim_dev_run(dev, 0), 0);
	ran_a = 0;
	for (uint32_t i = 0; i < r->n; i++) {
		ran_a += r->ev[i].qpn == a.qpn;
		ran_b += r->ev[i].qpn == b.qpn;
	}
	assert_int_equal(ran_b, 10);
	while (hx_poll(&cq, &e) == 1)
		flushed += e.opcode == PRISM_CQE_REQ_ERR && e.syndrome == PRISM_SYND_WR_FLUSH_ERR;
	assert_int_equal(flushed, 10 - ran_a);
	assert_true(ran_a < 10);
	sim_dev_close(dev);
	test_free(r);
}

/* ---- loopback fold ------------------------------------------------------ */

/* The packets' events of a run: kind (TX / RX), time, packet kind. */
struct pktlog {
	uint32_t n;
	struct {
		enum sim_event_kind k;
		sim_time_t t;
		enum sim_pkt_kind pk;
	} ev[64];
};

static void pktlog_event(void *ctx, const struct sim_event *ev)
{
	struct pktlog *l = ctx;

	if ((ev->kind != SIM_EV_PKT_TX && ev->kind != SIM_EV_PKT_RX) || l->n == 64)
		return;
	l->ev[l->n].k = ev->kind;
	l->ev[l->n].t = ev->t;
	l->ev[l->n].pk = ev->pkt->kind;
	l->n++;
}

/* Runs @dev to idle one unit at a time; returns the units. */
static unsigned run_units(struct sim_dev *dev)
{
	unsigned n = 0;
	int rc;

	while ((rc = sim_dev_run(dev, 1)) == SIM_E_LIMIT)
		n++;
	assert_int_equal(rc, 0);
	return n;
}

/* A loopback pair a, b on a device with the flat cost, @sched, logging
 * packets into @l; @buf: 4096 registered bytes (*@key). */
static struct sim_dev *fold_dev(enum sim_sched_policy sched, struct pktlog *l,
                                struct sim_observer *obs, struct hx_cq *cq, struct hx_qp *a,
                                struct hx_qp *b, uint8_t *buf, uint32_t *key)
{
	struct sim_dev_opts o = {.sz = sizeof(o),
	                         .seed = 3,
	                         .sched = sched,
	                         .hazard = SIM_HAZARD_FAIL,
	                         .node = 1,
	                         .obs = obs};
	struct sim_dev *dev;

	*obs = (struct sim_observer){.ctx = l, .cost = sim_default_cost, .event = pktlog_event};
	assert_int_equal(sim_dev_open(&o, &dev), 0);
	hx_cq_init(cq, dev, 16, false);
	hx_qp_init(a, dev, cq, cq, 64, 4, 0);
	hx_qp_init(b, dev, cq, cq, 64, 4, 0);
	hx_pair(a, b);
	for (int i = 0; i < 4096; i++)
		buf[i] = (uint8_t)(i * 13 + 5);
	*key = hx_key(dev, buf, 4096, CONF_ALL);
	return dev;
}

/* A loopback READ: in VTIME mode its response, due at the request's own
 * time (half the flat latency), is taken in the request's step (2 units),
 * with the events and times it has as a queued packet (RANDOM: 3 units). */
static void test_loopback_response_folded(void **state)
{
	(void)state;
	for (int random = 0; random < 2; random++) {
		struct pktlog *l = test_calloc(1, sizeof(*l));
		uint8_t *buf = aligned_alloc(4096, 4096);
		struct sim_observer obs;
		struct hx_cq cq;
		struct hx_qp a, b;
		struct prism_wqe w;
		struct prism_cqe c;
		struct sim_dev *dev;
		uint32_t key;

		assert_non_null(buf);
		dev = fold_dev(random ? SIM_SCHED_RANDOM : SIM_SCHED_VTIME, l, &obs, &cq, &a, &b,
		               buf, &key);
		hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)buf + 64, key, (uintptr_t)buf + 1024, key,
		      16, true);
		hx_post(&a, &w);
		hx_ring(&a);
		assert_int_equal(run_units(dev), random ? 3u : 2u);
		assert_memory_equal(buf + 1024, buf + 64, 16);
		c = hx_expect(&cq);
		assert_int_equal(c.opcode, PRISM_CQE_REQ);
		assert_int_equal(c.byte_count, 16);
		assert_int_equal(l->n, 4);
		for (uint32_t i = 0; i < 4; i++) {
			assert_int_equal(l->ev[i].k, i % 2 ? SIM_EV_PKT_RX : SIM_EV_PKT_TX);
			assert_int_equal(l->ev[i].pk, i < 2 ? SIM_PKT_READ_REQ : SIM_PKT_READ_RESP);
			assert_int_equal(l->ev[i].t, SIM_US(0.5));
		}
		sim_dev_close(dev);
		free(buf);
		test_free(l);
	}
}

/* A response due later than its request (its responder QP already sent a
 * packet due later: one QP's packets leave in order) is not folded: it
 * waits in the inbox for its time.  a READs from b at 0 (request due at
 * 0.5); b runs a NOP at 0, then a WRITE to a at 0.17 (request due at 0.67),
 * so the READ response leaves b at 0.67, a unit of its own after the
 * WRITE's request, whose ACK (a sent nothing later) is folded: 6 units. */
static void test_loopback_response_due_later_queued(void **state)
{
	struct pktlog *l = test_calloc(1, sizeof(*l));
	uint8_t *buf = aligned_alloc(4096, 4096);
	struct sim_observer obs;
	struct hx_cq cq;
	struct hx_qp a, b;
	struct prism_wqe w;
	struct sim_dev *dev;
	uint32_t key, resp_rx = 0;

	(void)state;
	assert_non_null(buf);
	dev = fold_dev(SIM_SCHED_VTIME, l, &obs, &cq, &a, &b, buf, &key);
	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)buf + 64, key, (uintptr_t)buf + 1024, key, 16,
	      true);
	hx_post(&a, &w);
	hx_nop(&w, false);
	hx_post(&b, &w);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)buf + 2048, key, (uintptr_t)buf + 128, key, 8,
	      true);
	hx_post(&b, &w);
	hx_ring(&a);
	hx_ring(&b);
	assert_int_equal(run_units(dev), 6);
	assert_memory_equal(buf + 1024, buf + 64, 16);
	assert_memory_equal(buf + 2048, buf + 128, 8);
	for (uint32_t i = 0; i < l->n; i++)
		if (l->ev[i].k == SIM_EV_PKT_RX && l->ev[i].pk == SIM_PKT_READ_RESP) {
			assert_int_equal(l->ev[i].t, SIM_US(0.17) + SIM_US(0.5));
			resp_rx++;
		}
	assert_int_equal(resp_rx, 1);
	assert_int_equal(l->n, 8);
	sim_dev_close(dev);
	free(buf);
	test_free(l);
}

/* A folded response does not pass a packet its QP queued earlier for the
 * same instant (one QP's packets arrive in order, rule 6.5).  a READs one
 * byte of b into buf+1024 at 0, then FETCH_ADDs with its old value landing
 * on buf+1024..1031 at 0.17 (request due at 0.67); b runs a NOP, then a
 * WRITE at 0.17 (request due at 0.67), so the READ's response is held to
 * 0.67 and queued.  The FETCH_ADD's response, also due at 0.67, must land
 * after it: buf+1024 ends with the old value, not the READ's byte. */
static void test_loopback_fold_keeps_response_order(void **state)
{
	struct pktlog *l = test_calloc(1, sizeof(*l));
	uint8_t *buf = aligned_alloc(4096, 4096);
	struct sim_observer obs;
	struct hx_cq cq;
	struct hx_qp a, b;
	struct prism_wqe w;
	struct sim_dev *dev;
	uint64_t old, now;
	uint32_t key;

	(void)state;
	assert_non_null(buf);
	dev = fold_dev(SIM_SCHED_VTIME, l, &obs, &cq, &a, &b, buf, &key);
	memcpy(&old, buf + 3072, 8);
	assert_int_not_equal(buf[64], (uint8_t)old);
	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)buf + 64, key, (uintptr_t)buf + 1024, key, 1,
	      false);
	hx_post(&a, &w);
	hx_atomic(&w, PRISM_OP_ATOMIC_FA, (uintptr_t)buf + 3072, key, 1, 0, (uintptr_t)buf + 1024,
	          key, true);
	hx_post(&a, &w);
	hx_nop(&w, false);
	hx_post(&b, &w);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)buf + 2048, key, (uintptr_t)buf + 128, key, 8,
	      true);
	hx_post(&b, &w);
	hx_ring(&a);
	hx_ring(&b);
	run_units(dev);
	assert_memory_equal(buf + 1024, &old, 8);
	memcpy(&now, buf + 3072, 8);
	assert_int_equal(now, old + 1);
	sim_dev_close(dev);
	free(buf);
	test_free(l);
}

/* What a fold run leaves: every CQE (with its timestamp), the device's
 * figures and the bytes it wrote. */
struct fold_outcome {
	struct prism_cqe c[32];
	uint32_t n;
	struct sim_stats st;
	uint8_t mem[4096];
	uint32_t tx; /* PKT_TX events (observed run) */
};

/* a: a signaled NOP on its empty ring, a READ, a CAS, a SEND to b (a
 * receive is posted), a WRITE, then a SEND that finds no receive (RNR NAK,
 * folded too; the retry waits for outside progress: a receive posted
 * afterwards). */
static void fold_run(bool observe, struct fold_outcome *out)
{
	struct pktlog *l = test_calloc(1, sizeof(*l));
	uint8_t *buf = aligned_alloc(4096, 4096);
	struct sim_observer obs;
	struct sim_dev_opts o = {.sz = sizeof(o),
	                         .seed = 3,
	                         .sched = SIM_SCHED_VTIME,
	                         .hazard = SIM_HAZARD_FAIL,
	                         .node = 1,
	                         .obs = observe ? &obs : NULL};
	struct prism_sge sge;
	struct hx_cq cq;
	struct hx_qp a, b;
	struct prism_wqe w;
	struct sim_dev *dev;
	uint32_t key;

	assert_non_null(buf);
	obs = (struct sim_observer){.ctx = l, .cost = sim_default_cost, .event = pktlog_event};
	assert_int_equal(sim_dev_open(&o, &dev), 0);
	hx_cq_init(&cq, dev, 64, false);
	hx_qp_init(&a, dev, &cq, &cq, 64, 4, 0);
	hx_qp_init(&b, dev, &cq, &cq, 64, 4, 0);
	hx_pair(&a, &b);
	for (int i = 0; i < 4096; i++)
		buf[i] = (uint8_t)(i * 13 + 5);
	key = hx_key(dev, buf, 4096, CONF_ALL);
	sge = (struct prism_sge){.byte_count = 64, .lkey = key, .addr = (uintptr_t)buf + 3584};
	hx_post_recv(&b, &sge, 1);
	hx_nop(&w, true);
	hx_post(&a, &w);
	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)buf + 64, key, (uintptr_t)buf + 1024, key, 16,
	      true);
	hx_post(&a, &w);
	hx_atomic(&w, PRISM_OP_ATOMIC_CS, (uintptr_t)buf + 3072, key, 7, 0, (uintptr_t)buf + 1040,
	          key, true);
	hx_post(&a, &w);
	hx_send(&w, PRISM_OP_SEND, (uintptr_t)buf + 256, key, 24, true);
	hx_post(&a, &w);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)buf + 2048, key, (uintptr_t)buf + 128, key, 8,
	      true);
	hx_post(&a, &w);
	hx_send(&w, PRISM_OP_SEND, (uintptr_t)buf + 512, key, 8, true);
	hx_post(&a, &w);
	hx_ring(&a);
	assert_int_equal(sim_dev_run(dev, 0), 0);
	sge.addr = (uintptr_t)buf + 3712;
	hx_post_recv(&b, &sge, 1);
	assert_int_equal(sim_dev_run(dev, 0), 0);
	for (out->n = 0; out->n < 32 && hx_poll(&cq, &out->c[out->n]) == 1; out->n++)
		;
	sim_dev_stats(dev, &out->st);
	assert_int_equal(sim_dev_now(dev), out->st.vtime_max);
	memcpy(out->mem, buf, sizeof(out->mem));
	out->tx = 0;
	for (uint32_t i = 0; i < l->n; i++)
		out->tx += l->ev[i].k == SIM_EV_PKT_TX;
	sim_dev_close(dev);
	free(buf);
	test_free(l);
}

/* Without an observer a folded response skips the wire path (no PKT_TX /
 * PKT_RX to report) and an ordering verb on an empty ring takes no ring
 * entry: the run must end exactly as the observed one, where both go the
 * long way (CQEs and their times, figures, memory). */
static void test_fold_without_observer_matches(void **state)
{
	struct fold_outcome *quiet = test_calloc(1, sizeof(*quiet));
	struct fold_outcome *seen = test_calloc(1, sizeof(*seen));

	(void)state;
	fold_run(false, quiet);
	fold_run(true, seen);
	assert_int_equal(quiet->n, 8); /* 6 on a, 2 receives on b */
	assert_int_equal(quiet->n, seen->n);
	for (uint32_t i = 0; i < quiet->n; i++) {
		assert_int_equal(quiet->c[i].opcode, seen->c[i].opcode);
		assert_int_equal(quiet->c[i].syndrome, seen->c[i].syndrome);
		assert_int_equal(quiet->c[i].wqe_counter, seen->c[i].wqe_counter);
		assert_int_equal(quiet->c[i].byte_count, seen->c[i].byte_count);
		assert_int_equal(quiet->c[i].qpn, seen->c[i].qpn);
		assert_int_equal(quiet->c[i].timestamp, seen->c[i].timestamp);
	}
	assert_int_equal(quiet->c[0].opcode, PRISM_CQE_REQ); /* the NOP, first */
	assert_int_equal(quiet->c[0].wqe_counter, 0);
	assert_int_equal(quiet->st.pkts, seen->st.pkts);
	assert_int_equal(seen->tx, seen->st.pkts);
	assert_int_equal(quiet->st.cqes, seen->st.cqes);
	assert_int_equal(quiet->st.error_cqes, 0);
	assert_int_equal(quiet->st.wqes_executed, seen->st.wqes_executed);
	assert_int_equal(quiet->st.steps, seen->st.steps);
	assert_int_equal(quiet->st.vtime_max, seen->st.vtime_max);
	/* responses were folded (fewer units than WQEs plus packets) */
	assert_true(quiet->st.steps < quiet->st.wqes_executed + quiet->st.pkts);
	assert_memory_equal(quiet->mem, seen->mem, sizeof(quiet->mem));
	test_free(quiet);
	test_free(seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parked_wait_wakes_when_cq_destroyed),
	    cmocka_unit_test(test_parked_wait_wakes_on_remote_completion),
	    cmocka_unit_test(test_parked_wait_kept_until_its_count),
	    cmocka_unit_test(test_rnr_resends_requests_behind_send),
	    cmocka_unit_test(test_parked_fence_wakes_on_read_response),
	    cmocka_unit_test(test_idle_qps_do_not_change_the_order),
	    cmocka_unit_test(test_rnr_resend_while_lent_requests_queued),
	    cmocka_unit_test(test_lent_requests_outlive_destroyed_sender),
	    cmocka_unit_test(test_lent_requests_outlive_reset_sender),
	    cmocka_unit_test(test_independent_queues_start_in_time_order),
	    cmocka_unit_test(test_ties_drawn_by_the_seed),
	    cmocka_unit_test(test_woken_queue_tied_with_packet_drawn),
	    cmocka_unit_test(test_ready_wait_rewoken_when_cq_destroyed),
	    cmocka_unit_test(test_queue_destroyed_while_ready),
	    cmocka_unit_test(test_ready_queue_moved_to_err_stops),
	    cmocka_unit_test(test_loopback_response_folded),
	    cmocka_unit_test(test_loopback_response_due_later_queued),
	    cmocka_unit_test(test_loopback_fold_keeps_response_order),
	    cmocka_unit_test(test_fold_without_observer_matches),
	};

	return cmocka_run_group_tests_name("sim_sched", tests, NULL, NULL);
}
