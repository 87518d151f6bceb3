/* SPDX-License-Identifier: MIT */
/*
 * tests/scenarios/test_redn_hash_threads.c - several software NICs in one
 * process, each driven by its own thread, as bench_sim_cores runs them.
 *
 * Owns: the claim that devices share nothing: RedN hash services on four
 * devices, run at the same time on four threads, each give the very run
 * (every event, final virtual time, replies) that the same device gives
 * alone; every get returns its bucket's value.  A data race between
 * devices (a shared pool, a static buffer, a shared PRNG) would show up as
 * a different event stream or a wrong value.
 *
 * Must not: time anything.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sim/sim.h"
#include "tests/support/redn_hash_chain.h"

#define NDEV      4
#define GETS      1024
#define BATCH     64
#define NBUCKETS  256
#define VALUE_LEN 64

struct run {
	uint64_t seed;
	/* results */
	uint64_t events, hash, vtime, wqes;
	unsigned hits, wrong;
	int rc; /* first failure, 0 if none */
};

static void mix(uint64_t *h, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8) {
		*h ^= v & 0xff;
		*h *= 0x100000001b3ull; /* FNV-1a */
	}
}

static void on_event(void *ctx, const struct sim_event *ev)
{
	struct run *r = ctx;

	r->events++;
	mix(&r->hash, ev->kind);
	mix(&r->hash, ev->t);
	mix(&r->hash, ev->t_end);
	mix(&r->hash, ((uint64_t)ev->qpn << 32) | ev->wqe_counter);
	mix(&r->hash, ((uint64_t)ev->opcode << 32) | ev->bytes);
	mix(&r->hash, ((uint64_t)ev->target_qpn << 32) | ev->offset);
	mix(&r->hash, ((uint64_t)ev->cqn << 16) | ((uint64_t)ev->cqe_opcode << 8) | ev->syndrome);
}

#define STEP(x)                                                                                    \
	do {                                                                                       \
		int rc_ = (x);                                                                     \
		if (rc_ < 0) {                                                                     \
			r->rc = rc_;                                                               \
			goto out;                                                                  \
		}                                                                                  \
	} while (0)

/* One device, its own service and client: GETS gets (every seventh key
 * is asked in the wrong bucket: a miss).  Thread-safe: touches only @r
 * and what it creates. */
static void *run_device(void *arg)
{
	struct run *r = arg;
	struct sim_observer obs = {.ctx = r, .event = on_event};
	struct sim_dev_opts o = {.sz = sizeof(o),
	                         .seed = r->seed,
	                         .fw = SIM_FW_RELAXED,
	                         .hazard = SIM_HAZARD_FAIL,
	                         .node = 1,
	                         .obs = &obs};
	struct redn_hash_cfg cfg = {.nbuckets = NBUCKETS,
	                            .value_len = VALUE_LEN,
	                            .max_inflight = BATCH,
	                            .seed = 100 + r->seed,
	                            .defer_doorbells = true,
	                            .check_patches = true};
	struct sim_dev *d = NULL;
	struct redn_hash *h = NULL;
	uint32_t b = (uint32_t)r->seed;
	struct sim_stats st;

	r->hash = 0xcbf29ce484222325ull;
	STEP(sim_dev_open(&o, &d));
	STEP(redn_hash_create(d, d, &cfg, &h));
	for (unsigned done = 0; done < GETS; done += BATCH) {
		uint32_t bucket[BATCH], id[BATCH];
		bool miss[BATCH];
		struct redn_hash_reply rep;
		int rc;

		for (unsigned i = 0; i < BATCH; i++, b = (b * 5 + 3) % NBUCKETS) {
			miss[i] = (done + i) % 7 == 0;
			bucket[i] = b;
			STEP(redn_hash_post_get(
			    h, redn_hash_key(h, miss[i] ? (b + 1) % NBUCKETS : b), b, &id[i]));
		}
		STEP(redn_hash_ring(h));
		STEP(sim_dev_run(d, 0));
		while ((rc = redn_hash_poll_reply(h, &rep)) == 1) {
			unsigned i;

			for (i = 0; i < BATCH && id[i] != rep.req_id; i++)
				;
			if (i == BATCH || miss[i] || !rep.value ||
			    memcmp(rep.value, redn_hash_value(h, bucket[i]), VALUE_LEN) != 0)
				r->wrong++;
			else
				r->hits++;
			mix(&r->hash, rep.req_id);
		}
		STEP(rc);
		redn_hash_drained(h);
	}
	sim_dev_stats(d, &st);
	r->vtime = st.vtime_max;
	r->wqes = st.wqes_executed;
out:
	redn_hash_destroy(h);
	sim_dev_close(d);
	return NULL;
}

static void test_devices_on_threads_run_as_alone(void **state)
{
	struct run alone[NDEV], together[NDEV];
	pthread_t th[NDEV];

	(void)state;
	for (int i = 0; i < NDEV; i++) {
		alone[i] = (struct run){.seed = (uint64_t)i + 1};
		together[i] = alone[i];
		run_device(&alone[i]);
		assert_int_equal(alone[i].rc, 0);
	}
	for (int i = 0; i < NDEV; i++)
		assert_int_equal(pthread_create(&th[i], NULL, run_device, &together[i]), 0);
	for (int i = 0; i < NDEV; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	for (int i = 0; i < NDEV; i++) {
		unsigned misses = 0;

		for (unsigned g = 0; g < GETS; g++)
			misses += g % 7 == 0;
		assert_int_equal(together[i].rc, 0);
		assert_int_equal(together[i].wrong, 0);
		assert_int_equal(together[i].hits, GETS - misses);
		assert_true(together[i].events > 0);
		assert_int_equal(together[i].events, alone[i].events);
		assert_int_equal(together[i].hash, alone[i].hash);
		assert_int_equal(together[i].vtime, alone[i].vtime);
		assert_int_equal(together[i].wqes, alone[i].wqes);
		assert_int_equal(together[i].hits, alone[i].hits);
	}
	/* different seeds make different runs: the comparison above can fail */
	assert_true(alone[0].hash != alone[1].hash);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_devices_on_threads_run_as_alone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
