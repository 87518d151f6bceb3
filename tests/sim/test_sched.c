/* SPDX-License-Identifier: MIT */
/*
 * tests/sim/test_sched.c - the scheduler's bookkeeping, not a NIC rule:
 * queues that cannot run are parked off the candidate set and must come
 * back exactly when they can (a CQE or the awaited CQ going away, a fetch,
 * a response), parked queues must not change the seeded order, and the
 * requester keeps requests wherever an RNR NAK can make them go again
 * (copies, or loopback requests lent while they wait in the inbox: resent
 * from there, and their sender may go away before they arrive).
 *
 * Owns: these checks.  Must not: time anything.
 */
#include <errno.h>
#include <stdlib.h>

#include "tests/conformance/conf_env.h"

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
	hx_wait(&w, sim_cq_num(other.cq), 1, true);
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

/* A WAIT parked on a CQ wakes on that CQ's CQE even when the CQE comes
 * from a queue on the other side of a packet (a response completing). */
static void test_parked_wait_wakes_on_remote_completion(void **state)
{
	struct env *e = env_make(SIM_FW_STRICT, SIM_HAZARD_FAIL, false, SIM_QP_CROSS_CHANNEL, 0);
	struct prism_wqe w;

	(void)state;
	/* a: WAIT for b's first completion, then a WRITE */
	hx_wait(&w, sim_cq_num(e->cq_b.cq), 1, false);
	hx_post(&e->a, &w);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst, e->dst_key, (uintptr_t)e->src, e->src_key,
	      16, true);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(e->dst[0], 0);
	/* b: a READ whose response completes it (CQE on cq_b) */
	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)e->src + 64, e->src_key, (uintptr_t)e->dst + 64,
	      e->dst_key, 8, true);
	hx_post(&e->b, &w);
	hx_ring(&e->b);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(hx_expect(&e->cq_b).opcode, PRISM_CQE_REQ);
	assert_int_equal(hx_expect(&e->cq_a).opcode, PRISM_CQE_REQ);
	assert_memory_equal(e->dst, e->src, 16);
	assert_memory_equal(e->dst + 64, e->src + 64, 8);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parked_wait_wakes_when_cq_destroyed),
	    cmocka_unit_test(test_parked_wait_wakes_on_remote_completion),
	    cmocka_unit_test(test_rnr_resends_requests_behind_send),
	    cmocka_unit_test(test_parked_fence_wakes_on_read_response),
	    cmocka_unit_test(test_idle_qps_do_not_change_the_order),
	    cmocka_unit_test(test_rnr_resend_while_lent_requests_queued),
	    cmocka_unit_test(test_lent_requests_outlive_destroyed_sender),
	    cmocka_unit_test(test_lent_requests_outlive_reset_sender),
	};

	return cmocka_run_group_tests_name("sim_sched", tests, NULL, NULL);
}
