/* SPDX-License-Identifier: MIT */
/*
 * tests/scenarios/test_redn_hash.c - RedN's hash-lookup chain on the sim.
 *
 * Owns: the end-to-end behaviour of the hand-written chain of
 * tests/support/redn_hash_chain.c: the value comes back on a key match and
 * nothing on a miss, over many seeded random requests, on one device and
 * across two; stock ("strict") firmware rejects the chain with a local QP
 * operation error (syndrome 0x02); and the virtual clock's prediction of a
 * 64-byte get under the cx5 profile against RedN's measured 5.7 us.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/cost_profile.h"
#include "sim/sim.h"
#include "tests/support/redn_hash_chain.h"

#define NBUCKETS  512
#define VALUE_LEN 64
#define BATCH     32

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static struct sim_dev *open_dev(uint32_t node, enum sim_fw_profile fw, uint64_t seed,
                                const struct sim_observer *obs)
{
	struct sim_dev_opts o = {.sz = sizeof(o),
	                         .seed = seed,
	                         .fw = fw,
	                         .hazard = SIM_HAZARD_FAIL,
	                         .node = node,
	                         .obs = obs};
	struct sim_dev *d = NULL;
	assert_int_equal(sim_dev_open(&o, &d), 0);
	return d;
}

struct rig {
	struct sim_dev *srv, *cli;
	struct sim_fabric *fab; /* two devices only */
	struct redn_hash *h;
};

static void rig_open(struct rig *r, bool two_devices, enum sim_fw_profile fw, uint64_t seed,
                     const struct sim_observer *srv_obs, const struct sim_observer *cli_obs)
{
	memset(r, 0, sizeof(*r));
	r->srv = open_dev(1, fw, seed, srv_obs);
	if (two_devices) {
		r->cli = open_dev(2, fw, seed + 1, cli_obs);
		assert_int_equal(sim_fabric_create(&r->fab), 0);
		assert_int_equal(sim_fabric_attach(r->fab, r->srv), 0);
		assert_int_equal(sim_fabric_attach(r->fab, r->cli), 0);
	} else {
		r->cli = r->srv;
	}
	struct redn_hash_cfg cfg = {
	    .nbuckets = NBUCKETS, .value_len = VALUE_LEN, .max_inflight = BATCH, .seed = seed};
	assert_int_equal(redn_hash_create(r->srv, r->cli, &cfg, &r->h), 0);
}

static int rig_run(struct rig *r)
{
	return r->fab ? sim_fabric_run(r->fab, 0) : sim_dev_run(r->srv, 0);
}

static void rig_close(struct rig *r)
{
	redn_hash_destroy(r->h);
	if (r->fab)
		sim_fabric_destroy(r->fab);
	if (r->cli != r->srv)
		sim_dev_close(r->cli);
	sim_dev_close(r->srv);
}

/* Run @n random gets (about half misses) in batches; check every reply. */
static void run_random_gets(struct rig *r, unsigned n, uint64_t seed, unsigned *hits_out)
{
	uint64_t s = seed | 1;
	unsigned done = 0, hits = 0;
	while (done < n) {
		unsigned batch = n - done < BATCH ? n - done : BATCH;
		bool expect_hit[BATCH];
		uint32_t bucket_of[BATCH], first_id = 0;
		for (unsigned i = 0; i < batch; i++) {
			uint32_t b = (uint32_t)(rng(&s) % NBUCKETS);
			uint8_t key[REDN_KEY_BYTES];
			memcpy(key, redn_hash_key(r->h, b), REDN_KEY_BYTES);
			expect_hit[i] = rng(&s) & 1;
			if (!expect_hit[i]) /* a different key, possibly in one byte only */
				key[rng(&s) % REDN_KEY_BYTES] ^= (uint8_t)(1u << (rng(&s) % 8));
			bucket_of[i] = b;
			uint32_t id;
			assert_int_equal(redn_hash_post_get(r->h, key, b, &id), 0);
			if (i == 0)
				first_id = id;
			assert_int_equal(id, first_id + i);
		}
		assert_int_equal(rig_run(r), 0);
		redn_hash_drained(r->h);

		bool seen[BATCH] = {false};
		struct redn_hash_reply rep;
		int rc;
		while ((rc = redn_hash_poll_reply(r->h, &rep)) == 1) {
			unsigned i = rep.req_id - first_id;
			assert_true(i < batch);
			if (!expect_hit[i])
				fail_msg("request %u (bucket %u) missed but got a reply",
				         rep.req_id, bucket_of[i]);
			assert_false(seen[i]);
			seen[i] = true;
			assert_memory_equal(rep.value, redn_hash_value(r->h, bucket_of[i]),
			                    VALUE_LEN);
			hits++;
		}
		assert_int_equal(rc, 0);
		for (unsigned i = 0; i < batch; i++)
			if (expect_hit[i] && !seen[i])
				fail_msg("request %u (bucket %u) matched but got no reply",
				         first_id + i, bucket_of[i]);
		struct prism_cqe cqe;
		assert_int_equal(redn_hash_poll_server_error(r->h, &cqe), 0);
		done += batch;
	}
	*hits_out = hits;
}

static void test_hash_chain_10000_random_gets(void **state)
{
	(void)state;
	struct rig r;
	rig_open(&r, false, SIM_FW_RELAXED, 42, NULL, NULL);
	unsigned hits;
	run_random_gets(&r, 10000, 0x5eed, &hits);
	assert_true(hits > 4000 && hits < 6000); /* both paths exercised */
	struct sim_stats st;
	sim_dev_stats(r.srv, &st);
	assert_int_equal(st.hazards, 0);
	assert_true(st.wqes_executed >= 10000ull * REDN_HASH_SERVER_WQES);
	rig_close(&r);
}

static void test_hash_chain_across_two_nodes(void **state)
{
	(void)state;
	struct rig r;
	rig_open(&r, true, SIM_FW_RELAXED, 7, NULL, NULL);
	unsigned hits;
	run_random_gets(&r, 2000, 0xfeed, &hits);
	assert_true(hits > 800 && hits < 1200);
	rig_close(&r);
}

/* Stock firmware checks the response WQE's QPN: it holds the key while it
 * waits as a NOP, so a miss fails with a local QP operation error. */
static void test_hash_chain_strict_firmware_fails(void **state)
{
	(void)state;
	struct rig r;
	rig_open(&r, false, SIM_FW_STRICT, 3, NULL, NULL);
	uint8_t key[REDN_KEY_BYTES];
	memcpy(key, redn_hash_key(r.h, 5), REDN_KEY_BYTES);
	key[0] ^= 0x40; /* a miss */
	assert_int_equal(redn_hash_post_get(r.h, key, 5, NULL), 0);
	rig_run(&r);
	struct prism_cqe cqe;
	assert_int_equal(redn_hash_poll_server_error(r.h, &cqe), 1);
	assert_int_equal(cqe.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(cqe.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
	struct redn_hash_reply rep;
	assert_int_equal(redn_hash_poll_reply(r.h, &rep), 0);
	rig_close(&r);
}

/* ---- virtual clock vs RedN's measurement (validation target) ------------ */

struct clock_probe {
	struct sim_cost_profile profile;
	uint32_t send_qpn;     /* client QP */
	uint32_t reply_cqn;    /* client receive CQ */
	sim_time_t send_at;    /* client SEND starts executing */
	sim_time_t replied_at; /* client receive CQE written */
	struct sim_observer obs;
};

static void probe_cost(void *ctx, const struct sim_cost_query *q, struct sim_cost *out)
{
	struct clock_probe *p = ctx;
	sim_cost_profile_charge(&p->profile, q, out);
}

static void probe_event(void *ctx, const struct sim_event *ev)
{
	struct clock_probe *p = ctx;
	if (ev->kind == SIM_EV_EXEC_START && ev->opcode == PRISM_OP_SEND && !p->send_at)
		p->send_at = ev->t;
	if (ev->kind == SIM_EV_CQE && ev->cqe_opcode == PRISM_CQE_RESP_WR_IMM)
		p->replied_at = ev->t;
}

/* Predicted latency of one 64-byte get (client SEND -> value at client), ps. */
sim_time_t redn_hash_predicted_get_ps(void);
sim_time_t redn_hash_predicted_get_ps(void)
{
	struct clock_probe srv = {0}, cli = {0};
	assert_int_equal(sim_cost_profile_builtin("cx5", &srv.profile, NULL), 0);
	cli.profile = srv.profile;
	srv.obs = (struct sim_observer){
	    .ctx = &srv.profile, .cost = sim_cost_profile_observer_cost, .event = NULL};
	cli.obs = (struct sim_observer){.ctx = &cli, .cost = probe_cost, .event = probe_event};
	struct rig r;
	rig_open(&r, true, SIM_FW_RELAXED, 11, &srv.obs, &cli.obs);
	const uint8_t *key = redn_hash_key(r.h, 9);
	assert_int_equal(redn_hash_post_get(r.h, key, 9, NULL), 0);
	assert_int_equal(rig_run(&r), 0);
	struct redn_hash_reply rep;
	assert_int_equal(redn_hash_poll_reply(r.h, &rep), 1);
	rig_close(&r);
	assert_true(cli.replied_at > cli.send_at);
	return cli.replied_at - cli.send_at;
}

static void test_hash_get_latency_vs_redn(void **state)
{
	(void)state;
	sim_time_t ps = redn_hash_predicted_get_ps();
	double us = (double)ps / 1e6;
	print_message(
	    "RedN hash get, 64 B, cx5 profile: predicted %.2f us (RedN measured 5.7 us)\n", us);
	/*
	 * A validation target, not an input: the gap is reported in
	 * docs/benchmarks.md.  The test bounds only plausibility (0.5x-1.5x):
	 * the chain has 7 WRs on the server, 4 of them on the critical path with
	 * a doorbell-ordered fetch, so anything outside is a broken clock.
	 */
	assert_true(us > 5.7 * 0.5 && us < 5.7 * 1.5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hash_chain_10000_random_gets),
	    cmocka_unit_test(test_hash_chain_across_two_nodes),
	    cmocka_unit_test(test_hash_chain_strict_firmware_fails),
	    cmocka_unit_test(test_hash_get_latency_vs_redn),
	};
	return cmocka_run_group_tests_name("scenario_redn_hash", tests, NULL, NULL);
}
