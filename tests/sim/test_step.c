/* SPDX-License-Identifier: MIT */
/*
 * tests/sim/test_step.c - how a step completes an ordering verb, not a NIC
 * rule: on an empty outstanding ring it takes no entry (its completion
 * time and CQE are those the entry would have given), behind an
 * outstanding WQE it waits in the ring for its turn; either way it is done
 * at start + latency, and one that fails still reports its error through
 * the ring; a strong fence after one waits for that time.  An ENABLE
 * refused by its executor (a QP that is not cross-channel) is charged to
 * the cost model as an error, not as the ENABLE it would have been.  With
 * the flat default cost: busy 0.17 us, latency 1 us, ordering verbs'
 * latency = busy.  The chains run three ways: the step's plain copy (no
 * cost model or observer, relaxed firmware), stock firmware, an observer;
 * each must end as stated.
 *
 * Owns: these checks.  Must not: time anything (virtual times only).
 */
#include "tests/sim/sim_env.h"

/* CQE timestamps are in ns */
#define BUSY_NS 170u

/* How the device runs the step: its plain copy (no cost query, relaxed
 * firmware), with stock firmware's checks, or with an observer (the cost
 * query and events).  Every test below must end the same in each. */
enum mode { PLAIN, STRICT, OBSERVED, MODES };

/* QP a (cross-channel) paired with b on one device, one CQ each. */
struct rig {
	struct sim_dev *dev;
	struct hx_cq cq_a, cq_b;
	struct hx_qp a, b;
	uint8_t *src, *dst;
	uint32_t src_key, dst_key;
	unsigned events;
};

static void count_event(void *ctx, const struct sim_event *ev)
{
	(void)ev;
	(*(unsigned *)ctx)++;
}

static struct rig *rig_open(enum mode m)
{
	struct rig *r = test_calloc(1, sizeof(*r));
	struct sim_observer obs = {.ctx = &r->events, .event = count_event};
	struct sim_dev_opts o = {.sz = sizeof(o),
	                         .seed = 2,
	                         .fw = m == STRICT ? SIM_FW_STRICT : SIM_FW_RELAXED,
	                         .hazard = SIM_HAZARD_FAIL,
	                         .obs = m == OBSERVED ? &obs : NULL};

	assert_int_equal(sim_dev_open(&o, &r->dev), 0);
	r->src = test_calloc(1, 64);
	r->dst = test_calloc(1, 64);
	for (unsigned i = 0; i < 64; i++)
		r->src[i] = (uint8_t)(i + 1);
	hx_cq_init(&r->cq_a, r->dev, 64, false);
	hx_cq_init(&r->cq_b, r->dev, 64, false);
	hx_qp_init(&r->a, r->dev, &r->cq_a, &r->cq_a, 64, 16, SIM_QP_CROSS_CHANNEL);
	hx_qp_init(&r->b, r->dev, &r->cq_b, &r->cq_b, 64, 16, 0);
	hx_pair(&r->a, &r->b);
	r->src_key = hx_key(r->dev, r->src, 64, CONF_ALL);
	r->dst_key = hx_key(r->dev, r->dst, 64, CONF_ALL);
	return r;
}

static void rig_close(struct rig *r, enum mode m)
{
	assert_true(m == OBSERVED ? r->events > 0 : r->events == 0);
	sim_dev_close(r->dev);
	test_free(r->src);
	test_free(r->dst);
	test_free(r);
}

/* a: a signaled NOP on an empty ring (no entry), a signaled WRITE, a
 * signaled NOP behind it (an entry: completes after the WRITE), a WAIT for
 * the WRITE's CQE, an unsignaled NOP and a signaled NOP, again on an empty
 * ring.  CQEs in order, each at its right time. */
static void ordering_completions(enum mode m)
{
	struct rig *r = rig_open(m);
	struct prism_wqe w;
	struct prism_cqe c[4];
	uint64_t write_done;

	hx_nop(&w, true);
	hx_post(&r->a, &w); /* 0 */
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)r->dst, r->dst_key, (uintptr_t)r->src, r->src_key,
	      8, true);
	hx_post(&r->a, &w); /* 1 */
	hx_nop(&w, true);
	hx_post(&r->a, &w); /* 2: behind the WRITE */
	hx_wait(&w, sim_cq_num(r->cq_a.cq), 1, false);
	hx_post(&r->a, &w); /* 3: for the WRITE's CQE (a's second) */
	hx_nop(&w, false);
	hx_post(&r->a, &w); /* 4 */
	hx_nop(&w, true);
	hx_post(&r->a, &w); /* 5 */
	hx_ring(&r->a);
	assert_int_equal(sim_dev_run(r->dev, 0), 0);
	for (int i = 0; i < 4; i++) {
		c[i] = hx_expect(&r->cq_a);
		assert_int_equal(c[i].opcode, PRISM_CQE_REQ);
	}
	assert_int_equal(hx_poll(&r->cq_a, &c[0]), 0); /* nothing else: the rest unsignaled */
	assert_memory_equal(r->dst, r->src, 8);
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
	rig_close(r, m);
}
static void test_ordering_completions(void **state)
{
	(void)state;
	for (enum mode m = PLAIN; m < MODES; m++)
		ordering_completions(m);
}

/* An ordering verb that fails on an empty ring (a WAIT on a CQ that does
 * not exist) still reports its error in order and fails the QP. */
static void ordering_error_on_empty_ring(enum mode m)
{
	struct rig *r = rig_open(m);
	struct prism_wqe w;
	struct prism_cqe c;

	hx_nop(&w, false);
	hx_post(&r->a, &w);
	hx_wait(&w, 0xabcd, 0, false); /* no such CQ: satisfied, fails when run */
	hx_post(&r->a, &w);
	hx_nop(&w, true);
	hx_post(&r->a, &w);
	hx_ring(&r->a);
	sim_dev_run(r->dev, 0);
	c = hx_expect(&r->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
	assert_int_equal(c.wqe_counter, 1);
	c = hx_expect(&r->cq_a); /* the NOP after it: flushed */
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_WR_FLUSH_ERR);
	assert_int_equal(c.wqe_counter, 2);
	assert_int_equal(sim_qp_state(r->a.qp), SIM_QPS_ERR);
	rig_close(r, m);
}
static void test_ordering_error_on_empty_ring(void **state)
{
	(void)state;
	for (enum mode m = PLAIN; m < MODES; m++)
		ordering_error_on_empty_ring(m);
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
	    cmocka_unit_test(test_ordering_completions),
	    cmocka_unit_test(test_ordering_error_on_empty_ring),
	    cmocka_unit_test(test_refused_enable_charged_as_error),
	    cmocka_unit_test(test_strong_fence_after_lone_ordering),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
