/* SPDX-License-Identifier: MIT */
/*
 * bench_sim_cores.c - RedN hash gets per second in one process on several
 * cores: K software NICs (devices), each with its own lookup service and
 * client, each driven by its own thread (post a batch, run the device in
 * deterministic mode, poll the replies), all started together.
 *
 * Independent connections on different devices share nothing in the
 * engine (no global state, one lock per device), so the aggregate should
 * grow with K up to the number of free cores.  Printed, for K = 1, 2 and
 * the number of online CPUs, each with its ratio against K = 1 measured in
 * the same run:
 *   - wall: all gets / wall-clock time from the common start to the last
 *     thread's end (what this machine delivered, other jobs included);
 *   - CPU: the sum over threads of gets per CPU-second of that thread
 *     (what K cores of their own would deliver; on a machine shared with
 *     other jobs the wall figure cannot show it, as bench_sim's per-core
 *     figures are CPU-time rates for the same reason).
 * Median of RUNS rounds; within a round the K values run in turn, so a
 * change of machine load hits all of them.
 *
 * `bench_sim_cores [gets per thread [max K]]`.  Figures only: never fails
 * on speed.  Owns: this measurement.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim/sim.h"
#include "tests/support/redn_hash_chain.h"
#include "tests/support/bench_stats.h"

#define RUNS  5
#define BATCH 64
#define MAX_K 64

struct worker {
	pthread_t th;
	unsigned id, gets;
	pthread_barrier_t *start, *end;
	double cpu_s; /* this thread's CPU time for the timed gets */
};

/* @n gets on @h in batches, replies checked against the table. */
static void run_gets(struct sim_dev *d, struct redn_hash *h, unsigned n, unsigned *b)
{
	for (unsigned done = 0; done < n;) {
		unsigned k = n - done < BATCH ? n - done : BATCH;
		struct redn_hash_reply r;
		unsigned got = 0;
		int rc;

		for (unsigned i = 0; i < k; i++, *b = (*b + 37) % 1024)
			BENCH_CHECK(redn_hash_post_get(h, redn_hash_key(h, *b), *b, NULL));
		BENCH_CHECK(redn_hash_ring(h));
		BENCH_CHECK(sim_dev_run(d, 0));
		while ((rc = redn_hash_poll_reply(h, &r)) == 1) {
			if (!r.value)
				bench_die("a get missed", -1);
			got++;
		}
		BENCH_CHECK(rc);
		if (got != k)
			bench_die("replies", (int)got);
		redn_hash_drained(h);
		done += k;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct sim_dev_opts o = {.sz = sizeof(o),
	                         .seed = 1 + w->id,
	                         .fw = SIM_FW_RELAXED,
	                         .hazard = SIM_HAZARD_FAIL,
	                         .node = 1};
	struct redn_hash_cfg cfg = {.nbuckets = 1024,
	                            .value_len = 64,
	                            .max_inflight = BATCH,
	                            .seed = 9 + w->id,
	                            .defer_doorbells = true};
	struct sim_dev *d;
	struct redn_hash *h;
	unsigned b = 0;
	double t0;

	BENCH_CHECK(sim_dev_open(&o, &d));
	BENCH_CHECK(redn_hash_create(d, d, &cfg, &h));
	run_gets(d, h, 4 * BATCH, &b); /* warm: rings full, patching in place */
	pthread_barrier_wait(w->start);
	t0 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
	run_gets(d, h, w->gets, &b);
	w->cpu_s = bench_clock_s(CLOCK_THREAD_CPUTIME_ID) - t0;
	pthread_barrier_wait(w->end);
	redn_hash_destroy(h);
	sim_dev_close(d);
	return NULL;
}

/* One round with @k threads: aggregate gets per wall second; the sum of
 * the threads' gets per CPU-second in *@per_cpu. */
static double round_k(unsigned k, unsigned gets, double *per_cpu)
{
	struct worker w[MAX_K];
	pthread_barrier_t start, end;
	double t0, t1, sum = 0;

	pthread_barrier_init(&start, NULL, k + 1);
	pthread_barrier_init(&end, NULL, k + 1);
	for (unsigned i = 0; i < k; i++) {
		w[i] = (struct worker){.id = i, .gets = gets, .start = &start, .end = &end};
		if (pthread_create(&w[i].th, NULL, worker_main, &w[i]))
			bench_die("pthread_create", -1);
	}
	pthread_barrier_wait(&start);
	t0 = bench_clock_s(CLOCK_MONOTONIC);
	pthread_barrier_wait(&end);
	t1 = bench_clock_s(CLOCK_MONOTONIC);
	for (unsigned i = 0; i < k; i++) {
		pthread_join(w[i].th, NULL);
		sum += gets / w[i].cpu_s;
	}
	pthread_barrier_destroy(&start);
	pthread_barrier_destroy(&end);
	*per_cpu = sum;
	return (double)k * gets / (t1 - t0);
}

int main(int argc, char **argv)
{
	unsigned gets = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 100000;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned kmax =
	    argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : (unsigned)(ncpu > 0 ? ncpu : 1);
	unsigned ks[3] = {1, 2, kmax}, nk = 0;
	double agg[3][RUNS], cpu[3][RUNS];

	if (!gets)
		gets = 1;
	if (kmax < 1 || kmax > MAX_K)
		kmax = kmax < 1 ? 1 : MAX_K;
	ks[2] = kmax;
	for (unsigned i = 0; i < 3; i++)
		if (ks[i] <= kmax && (nk == 0 || ks[i] > ks[nk - 1]))
			ks[nk++] = ks[i];
	for (int r = 0; r < RUNS; r++)
		for (unsigned i = 0; i < nk; i++)
			agg[i][r] = round_k(ks[i], gets, &cpu[i][r]);
	printf("RedN hash gets, one device and one thread per core, %u gets per thread, %ld "
	       "online CPUs, median of %d rounds\n",
	       gets, ncpu, RUNS);
	double base = bench_median(agg[0], RUNS), cbase = bench_median(cpu[0], RUNS);
	for (unsigned i = 0; i < nk; i++) {
		double a = bench_median(agg[i], RUNS), c = bench_median(cpu[i], RUNS);

		printf("  K=%-3u wall %7.3f M gets/s (x%.2f of K=1)   CPU %7.3f M gets/CPU-s "
		       "(x%.2f of K=1; %.3f per thread)\n",
		       ks[i], a / 1e6, a / base, c / 1e6, c / cbase, c / ks[i] / 1e6);
	}
	return 0;
}
