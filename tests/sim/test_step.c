/* SPDX-License-Identifier: MIT */
/*
 * tests/sim/test_step.c - how a step completes an ordering verb, not a NIC
 * rule: on an empty outstanding ring it takes no entry (its completion
 * time and CQE are those the entry would have given), behind an
 * outstanding WQE it waits in the ring for its turn; either way it is done
 * at start + latency, and one that fails still reports its error through
 * the ring; a strong fence after one waits for that time.  An ENABLE refused by its executor (a QP
 * that is not cross-channel) is charged to the cost model as an error, not as the ENABLE it would
 * have been.  With the flat default cost: busy 0.17 us, latency 1 us, ordering verbs' latency =
 * busy.
 *
 * Owns: these checks.  Must not: time anything (virtual times only).
 */
#include "tests/sim/sim_env.h"

#define XC SIM_QP_CROSS_CHANNEL

/* CQE timestamps are in ns */
#define BUSY_NS 170u

static int setup(void **state)
{
	*state = env_make(SIM_FW_RELAXED, SIM_HAZARD_FAIL, false, XC, 0);
	return 0;
}

/* a: a signaled NOP on an empty ring (no entry), a signaled WRITE, a
 * signaled NOP behind it (an entry: completes after the WRITE), a WAIT for
 * the WRITE's CQE, an unsignaled NOP and a signaled NOP, again on an empty
 * ring.  CQEs in order, each at its right time. */
static void test_ordering_completions(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	struct prism_cqe c[4];
	uint64_t write_done;

	hx_nop(&w, true);
	hx_post(&e->a, &w); /* 0 */
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst, e->dst_key, (uintptr_t)e->src, e->src_key,
	      8, true);
	hx_post(&e->a, &w); /* 1 */
	hx_nop(&w, true);
	hx_post(&e->a, &w); /* 2: behind the WRITE */
	hx_wait(&w, sim_cq_num(e->cq_a.cq), 1, false);
	hx_post(&e->a, &w); /* 3: for the WRITE's CQE (a's second) */
	hx_nop(&w, false);
	hx_post(&e->a, &w); /* 4 */
	hx_nop(&w, true);
	hx_post(&e->a, &w); /* 5 */
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	for (int i = 0; i < 4; i++) {
		c[i] = hx_expect(&e->cq_a);
		assert_int_equal(c[i].opcode, PRISM_CQE_REQ);
	}
	assert_int_equal(hx_poll(&e->cq_a, &c[0]), 0); /* nothing else: the rest unsignaled */
	assert_memory_equal(e->dst, e->src, 8);
	assert_int_equal(c[0].wqe_counter, 0);
	assert_int_equal(c[1].wqe_counter, 1);
	assert_int_equal(c[2].wqe_counter, 2);
	assert_int_equal(c[3].wqe_counter, 5);
	assert_int_equal(c[0].timestamp, BUSY_NS); /* starts at 0 */
	/* the WRITE starts after the NOP, done no earlier than its latency */
	write_done = c[1].timestamp;
	assert_true(write_done >= BUSY_NS + 1000);
	/* the NOP behind it is done at its own start + busy, long before:
	 * its CQE comes after the WRITE's, at the same time */
	assert_int_equal(c[2].timestamp, write_done);
	/* the WAIT starts when the WRITE's CQE exists, then two NOPs */
	assert_int_equal(c[3].timestamp, write_done + 3 * BUSY_NS);
}

/* An ordering verb that fails on an empty ring (a WAIT on a CQ that does
 * not exist) still reports its error in order and fails the QP. */
static void test_ordering_error_on_empty_ring(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	struct prism_cqe c;

	hx_nop(&w, false);
	hx_post(&e->a, &w);
	hx_wait(&w, 0xabcd, 0, false); /* no such CQ: satisfied, fails when run */
	hx_post(&e->a, &w);
	hx_nop(&w, true);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	sim_dev_run(e->dev, 0);
	c = hx_expect(&e->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
	assert_int_equal(c.wqe_counter, 1);
	c = hx_expect(&e->cq_a); /* the NOP after it: flushed */
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_WR_FLUSH_ERR);
	assert_int_equal(c.wqe_counter, 2);
	assert_int_equal(sim_qp_state(e->a.qp), SIM_QPS_ERR);
}

/* The cost queries of a run: the last one per opcode. */
struct queries {
	struct sim_cost_query q[256];
	unsigned n[256];
};

static void record_cost(void *ctx, const struct sim_cost_query *q, struct sim_cost *out)
{
	struct queries *r = ctx;

	r->q[q->opcode] = *q;
	r->n[q->opcode]++;
	sim_default_cost(NULL, q, out);
}

/* @opcode (SEND_EN or RECV_EN), fenced and signaled, on a QP that is not
 * cross-channel: refused by its executor with a local QP operation error,
 * and charged as one (ordering class, no fence, not loopback). */
static void refused_enable(uint8_t opcode)
{
	struct queries *r = test_calloc(1, sizeof(*r));
	struct sim_observer obs = {.ctx = r, .cost = record_cost};
	struct sim_dev_opts o = {.sz = sizeof(o), .seed = 3, .obs = &obs};
	struct sim_dev *dev;
	struct hx_cq cq;
	struct hx_qp a, b;
	struct prism_wqe w;
	struct prism_cqe c;

	assert_int_equal(sim_dev_open(&o, &dev), 0);
	hx_cq_init(&cq, dev, 16, false);
	hx_qp_init(&a, dev, &cq, &cq, 16, 4, 0);
	hx_qp_init(&b, dev, &cq, &cq, 16, 4, SIM_QP_MANAGED_SEND | SIM_QP_MANAGED_RECV);
	hx_pair(&a, &b);
	hx_enable(&w, opcode, b.qpn, 1, true);
	w.ctrl.fm_ce_se |= PRISM_FENCE_STRONG_ORDERING << PRISM_CTRL_FM_SHIFT;
	hx_post(&a, &w);
	hx_ring(&a);
	sim_dev_run(dev, 0);
	c = hx_expect(&cq);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
	assert_int_equal(r->n[opcode], 1);
	assert_int_equal(r->q[opcode].cls, PRISM_CLASS_ORDERING);
	assert_int_equal(r->q[opcode].fence, 0);
	assert_false(r->q[opcode].loopback);
	assert_non_null(r->q[opcode].wqe); /* it decoded: only the executor refused it */
	sim_dev_close(dev);
	test_free(r);
}
static void test_refused_enable_charged_as_error(void **state)
{
	(void)state;
	refused_enable(PRISM_OP_SEND_ENABLE);
	refused_enable(PRISM_OP_RECV_ENABLE);
}

/* A NOP of a long latency (5 us; busy as the default) and a strongly
 * fenced NOP after it: the fence waits for the first one's completion,
 * though it took no entry (empty ring). */
static void slow_nop_cost(void *ctx, const struct sim_cost_query *q, struct sim_cost *out)
{
	sim_default_cost(ctx, q, out);
	if (q->opcode == PRISM_OP_NOP && !q->fence)
		out->latency = SIM_US(5);
}
static void test_strong_fence_after_lone_ordering(void **state)
{
	struct sim_observer obs = {.cost = slow_nop_cost};
	struct sim_dev_opts o = {.sz = sizeof(o), .seed = 4, .obs = &obs};
	struct sim_dev *dev;
	struct hx_cq cq;
	struct hx_qp a, b;
	struct prism_wqe w;
	struct prism_cqe c;

	(void)state;
	assert_int_equal(sim_dev_open(&o, &dev), 0);
	hx_cq_init(&cq, dev, 16, false);
	hx_qp_init(&a, dev, &cq, &cq, 16, 4, 0);
	hx_qp_init(&b, dev, &cq, &cq, 16, 4, 0);
	hx_pair(&a, &b);
	hx_nop(&w, false);
	hx_post(&a, &w);
	hx_nop(&w, true);
	w.ctrl.fm_ce_se |= PRISM_FENCE_STRONG_ORDERING << PRISM_CTRL_FM_SHIFT;
	hx_post(&a, &w);
	hx_ring(&a);
	assert_int_equal(sim_dev_run(dev, 0), 0);
	c = hx_expect(&cq);
	assert_int_equal(c.wqe_counter, 1);
	assert_int_equal(c.timestamp, 5000 + BUSY_NS); /* starts when the first is done */
	sim_dev_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_ordering_completions, setup, env_teardown),
	    cmocka_unit_test_setup_teardown(test_ordering_error_on_empty_ring, setup, env_teardown),
	    cmocka_unit_test(test_refused_enable_charged_as_error),
	    cmocka_unit_test(test_strong_fence_after_lone_ordering),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
