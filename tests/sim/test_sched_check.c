/* SPDX-License-Identifier: MIT */
/*
 * tests/sim/test_sched_check.c - the scheduler trusts a queue's cached
 * readiness (in the ready heap or parked, with its start time) until
 * something wakes it.  These runs go one step at a time and, after every
 * step, ask every queue afresh (sim_sched_check): a change of readiness
 * that no wake reported fails here, on the step that made it, instead of
 * as a reordered or hung run somewhere else.  Workloads: the RedN hash
 * get (WAITs on CQ counts, ENABLEs, a receive scatter into a send queue, a
 * fenced WRITE) under both schedulers and both cost models, and a verb mix
 * with fences, full outstanding rings, RNR retries and chaos-mode READs.
 * Runs of several steps between the checks (slices) let the run loop take
 * its fast paths (a queue's burst of WQEs, a step decided without a pick)
 * and check the state they leave; a WAIT on data stays polled, and a
 * memory write alone releases it.
 *
 * Owns: these checks.  Must not: time anything.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/cost_profile.h"
#include "sim/sim_internal.h"
#include "tests/sim/sim_env.h"
#include "tests/support/redn_hash_chain.h"

/* Runs @dev to idle one step at a time (@sliced: runs of 1, 2, 3, 5, 8, 13
 * and 64 steps in turn), checking the scheduler after each run; returns the
 * units run (dev->st.steps). */
static unsigned run_checked_sliced(struct sim_dev *dev, bool sliced)
{
	static const unsigned slices[] = {1, 2, 3, 5, 8, 13, 64};
	unsigned steps = 0, runs = 0;
	struct sim_stats st;
	uint64_t before;
	uint32_t bad;
	int rc, chk;

	do {
		unsigned n = sliced ? slices[runs % (sizeof(slices) / sizeof(slices[0]))] : 1;

		sim_dev_stats(dev, &st);
		before = st.steps;
		rc = sim_dev_run(dev, n);
		assert_true(rc == 0 || rc == SIM_E_LIMIT);
		chk = sim_sched_check(dev, &bad);
		if (chk)
			fail_msg("run %u (after step %u): scheduler state of qp %u is stale (%d)",
			         runs, steps, bad, chk);
		sim_dev_stats(dev, &st);
		steps += (unsigned)(st.steps - before);
		runs++;
	} while (rc == SIM_E_LIMIT);
	return steps;
}

static unsigned run_checked(struct sim_dev *dev)
{
	return run_checked_sliced(dev, false);
}

static void redn_checked(uint64_t seed, enum sim_sched_policy sched, bool cx5, bool sliced)
{
	struct sim_cost_profile prof;
	struct diag_report diag;
	struct sim_observer obs = {0};
	struct sim_dev_opts o = {.sz = sizeof(o),
	                         .seed = seed,
	                         .sched = sched,
	                         .fw = SIM_FW_RELAXED,
	                         .hazard = SIM_HAZARD_FAIL,
	                         .node = 1};
	struct redn_hash_cfg cfg = {
	    .nbuckets = 64, .value_len = 64, .max_inflight = 16, .seed = seed};
	struct sim_dev *dev;
	struct redn_hash *h;
	unsigned replies = 0;

	if (cx5) {
		assert_int_equal(sim_cost_profile_builtin("cx5", &prof, &diag), 0);
		obs = (struct sim_observer){.ctx = &prof, .cost = sim_cost_profile_observer_cost};
		o.obs = &obs;
	}
	assert_int_equal(sim_dev_open(&o, &dev), 0);
	assert_int_equal(redn_hash_create(dev, dev, &cfg, &h), 0);
	for (int batch = 0; batch < 6; batch++) {
		struct redn_hash_reply rep;

		for (uint32_t i = 0; i < 16; i++) {
			uint32_t b = (uint32_t)((batch * 16 + i) * 7 % 64);

			assert_int_equal(redn_hash_post_get(h, redn_hash_key(h, b), b, NULL), 0);
		}
		/* a get is 16 units, 12 in VTIME mode (its 4 loopback
		 * responses are folded into their requests' steps) */
		assert_true(run_checked_sliced(dev, sliced) >=
		            16 * (sched == SIM_SCHED_VTIME ? 12 : 16));
		redn_hash_drained(h);
		while (redn_hash_poll_reply(h, &rep) == 1)
			replies++;
	}
	assert_int_equal(replies, 6 * 16);
	redn_hash_destroy(h);
	sim_dev_close(dev);
}

static void test_redn_get_vtime_flat(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 3; seed++)
		redn_checked(seed, SIM_SCHED_VTIME, false, false);
}

static void test_redn_get_vtime_cx5(void **state)
{
	(void)state;
	redn_checked(4, SIM_SCHED_VTIME, true, false);
}

static void test_redn_get_random(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 2; seed++)
		redn_checked(seed, SIM_SCHED_RANDOM, seed == 2, false);
}

/* Bursts and unpicked steps between the checks. */
static void test_redn_get_sliced(void **state)
{
	(void)state;
	redn_checked(5, SIM_SCHED_VTIME, false, true);
	redn_checked(6, SIM_SCHED_VTIME, true, true);
	redn_checked(7, SIM_SCHED_RANDOM, false, true);
}

/*
 * A WAIT on data, then a NOP: the WAIT is asked again at every step (only
 * the CPU changes the word it watches), so it must stay on the dirty list
 * and run once the word holds the value; a parked WAIT would be caught
 * here as stale.  A second queue's NOPs keep the device stepping meanwhile.
 */
static void test_wait_on_data_polled(void **state)
{
	struct env *e = env_make(SIM_FW_STRICT, SIM_HAZARD_FAIL, false, 0, 0);
	struct prism_wqe w;
	struct prism_cqe c;
	unsigned cqes = 0;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_CQE_WAIT;
	w.ctrl.opmod = PRISM_WAIT_ON_DATA;
	w.ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_NONE, PRISM_CE_CQ_UPDATE, false);
	w.has_wod = true;
	w.wod.cond = PRISM_WOD_EQUAL;
	w.wod.lkey = e->dst_key;
	w.wod.addr = (uintptr_t)e->dst + 64;
	w.wod.value = 0x0700;
	w.wod.mask = 0xff00;
	hx_post(&e->a, &w);
	hx_nop(&w, true);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	for (int i = 0; i < 8; i++) {
		hx_nop(&w, true);
		hx_post(&e->b, &w);
	}
	hx_ring(&e->b);
	run_checked_sliced(e->dev, true);
	assert_int_equal(hx_poll(&e->cq_a, &c), 0); /* still waiting */
	e->dst[64 + 6] = 0x07;                      /* the awaited value (big-endian) */
	run_checked(e->dev);
	while (hx_poll(&e->cq_a, &c) == 1) {
		assert_int_equal(c.opcode, PRISM_CQE_REQ);
		cqes++;
	}
	assert_int_equal(cqes, 2);
	env_teardown((void **)&e);
}

/*
 * A verb mix on a loopback pair: READs behind which fenced WRITEs wait,
 * more WQEs than the outstanding ring holds, SENDs that draw RNR NAKs until
 * receives are posted, and (chaos mode) READs served line by line.
 */
static void mix_checked(bool chaos)
{
	struct env *e = env_make(SIM_FW_STRICT, SIM_HAZARD_FAIL, chaos, 0, 0);
	struct prism_sge sge = {.byte_count = 8, .lkey = e->dst_key, .addr = (uintptr_t)e->dst};
	struct prism_wqe w;
	struct prism_cqe c;
	unsigned cqes = 0;

	for (int i = 0; i < 40; i++) {
		uint32_t off = 64u * (uint32_t)(i % 32);

		switch (i % 5) {
		case 0:
			hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)e->src + off, e->src_key,
			      (uintptr_t)e->dst + 2048 + off % 1024, e->dst_key, 256, true);
			break;
		case 1:
			hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst + 3072 + off % 512,
			      e->dst_key, (uintptr_t)e->src + off, e->src_key, 32, true);
			w.ctrl.fm_ce_se =
			    prism_fm_ce_se(PRISM_FENCE_SMALL_AND_FENCE, PRISM_CE_CQ_UPDATE, false);
			break;
		case 2:
			hx_send(&w, PRISM_OP_SEND, (uintptr_t)e->src + off, e->src_key, 8, true);
			break;
		default:
			hx_nop(&w, true);
			break;
		}
		hx_post(&e->a, &w);
		if (i % 8 == 7)
			hx_ring(&e->a);
	}
	hx_ring(&e->a);
	run_checked(e->dev); /* the first SEND draws an RNR NAK: the rest waits */
	for (int i = 0; i < 8; i++)
		hx_post_recv(&e->b, &sge, 1);
	run_checked(e->dev);
	while (hx_poll(&e->cq_a, &c) == 1) {
		assert_int_equal(c.opcode, PRISM_CQE_REQ);
		cqes++;
	}
	assert_int_equal(cqes, 40);
	env_teardown((void **)&e);
}

static void test_verb_mix(void **state)
{
	(void)state;
	mix_checked(false);
}

static void test_verb_mix_chaos(void **state)
{
	(void)state;
	mix_checked(true);
}

/*
 * One queue alone, fetching one basic block at a time: every step empties
 * its prefetch window and refills it, which wakes the queue itself, and
 * (in runs of several steps) it runs its NOPs as a burst that takes that
 * wake off the dirty list.  Checked after every run.
 */
static void test_burst_fetch_one_bb(void **state)
{
	struct sim_dev_opts o = {.sz = sizeof(o),
	                         .seed = 3,
	                         .fw = SIM_FW_STRICT,
	                         .hazard = SIM_HAZARD_FAIL,
	                         .prefetch_bbs = 1};
	struct sim_dev *dev;
	struct hx_cq cq;
	struct hx_qp a, b;
	struct prism_wqe w;
	struct prism_cqe c;
	unsigned cqes = 0;

	(void)state;
	assert_int_equal(sim_dev_open(&o, &dev), 0);
	hx_cq_init(&cq, dev, 64, false);
	hx_qp_init(&a, dev, &cq, &cq, 64, 0, 0);
	hx_qp_init(&b, dev, &cq, &cq, 64, 0, 0);
	hx_pair(&a, &b);
	for (int i = 0; i < 48; i++) {
		hx_nop(&w, i % 3 == 0);
		hx_post(&a, &w);
	}
	hx_ring(&a);
	assert_true(run_checked_sliced(dev, true) >= 48);
	while (hx_poll(&cq, &c) == 1) {
		assert_int_equal(c.opcode, PRISM_CQE_REQ);
		cqes++;
	}
	assert_int_equal(cqes, 16);
	sim_dev_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_redn_get_vtime_flat),
	    cmocka_unit_test(test_redn_get_vtime_cx5),
	    cmocka_unit_test(test_redn_get_random),
	    cmocka_unit_test(test_redn_get_sliced),
	    cmocka_unit_test(test_verb_mix),
	    cmocka_unit_test(test_verb_mix_chaos),
	    cmocka_unit_test(test_wait_on_data_polled),
	    cmocka_unit_test(test_burst_fetch_one_bb),
	};

	return cmocka_run_group_tests_name("sim_sched_check", tests, NULL, NULL);
}
