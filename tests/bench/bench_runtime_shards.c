/* SPDX-License-Identifier: MIT */
/*
 * bench_runtime_shards.c - RedN hash gets per second through the runtime
 * (prism_server + in-process prism_clients) on a device with K NIC threads
 * (prism_device_opts.nic_threads), K = 1 and 2 (and a third K if asked),
 * each with K client threads, one connection each, which the server places
 * one per shard.  Three set-ups:
 *
 *   embedded: no server thread: each client thread drives its own shard
 *             (runs its NIC, polls and re-arms its connection), as
 *             bench_runtime's in-process figure does;
 *   served:   a started server with one progress loop per shard, which runs
 *             that shard's NIC and re-arms its connections (prismd's
 *             set-up); the client threads only post and poll;
 *   served-1: the same with one progress loop for every shard;
 *   threaded: NICs on threads of their own (prism_device_opts.threaded)
 *             and one progress loop per shard that polls and re-arms.
 *
 * Printed per set-up and K: wall (all gets / time from the common start to
 * the last thread's end, what this machine delivered, other jobs included)
 * with its ratio against K=1 of the same set-up measured in the same
 * round; and CPU: embedded: the sum over client threads of gets per
 * CPU-second of that thread (what K cores of their own would deliver);
 * served, threaded: gets per CPU-second of the whole process (every NIC,
 * progress and client thread; loops and NIC threads spin while there is
 * work).  Median of RUNS rounds; within a round every set-up and K
 * runs in turn, so a change of machine load hits all of them.
 *
 * `bench_runtime_shards [gets per thread [third K]]`.  Figures only: never
 * fails on speed; fails on a wrong or missing answer.  Owns: this
 * measurement.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <prism/prism.h>

#include "chain/chainobj.h"
#include "tests/runtime/support/hashget_chain.h"
#include "tests/support/bench_stats.h"

#define NB         256u
#define TABLE_SIZE (NB * (HG_BUCKET_BYTES + HG_VALUE_BYTES) + 4096u)
#define RUNS       5
#define BATCH      16
#define MAX_K      16

static uint32_t keys[NB];
static char *yaml;
static size_t yaml_len;

enum setup { EMBEDDED, SERVED, SERVED_ONE_LOOP, THREADED, N_SETUPS };

static const struct {
	const char *name;
	bool started;   /* the server's progress loops poll and re-arm */
	bool threaded;  /* NIC threads (else the loops run the NICs) */
	unsigned loops; /* progress threads; 0: one per shard */
} setups[N_SETUPS] = {
    [EMBEDDED] = {"embedded", false, false, 0},
    [SERVED] = {"served", true, false, 0},
    [SERVED_ONE_LOOP] = {"served-1", true, false, 1},
    [THREADED] = {"threaded", true, true, 0},
};

struct srv {
	struct prism_device *dev;
	struct prism_region *table;
	struct prism_program *prog;
	struct prism_server *srv;
	struct hg_table t;
};

static void srv_open(struct srv *s, enum setup su, unsigned k)
{
	PRISM_OPTS(prism_device_opts, d, .nic_threads = k, .threaded = setups[su].threaded);
	s->dev = prism_device__open("sim", &d);
	s->table = s->dev ? prism_device__create_region(s->dev, "table", TABLE_SIZE, NULL) : NULL;
	if (!s->table)
		bench_die("device and table", -1);
	s->t = (struct hg_table){prism_region__addr(s->table), TABLE_SIZE, NB};
	hg_fill(&s->t, keys, prism_region__nic_addr(s->table), 3);
	s->prog = prism_program__open_mem(yaml, yaml_len, NULL);
	PRISM_OPTS(prism_server_opts, so, .progress_threads = setups[su].loops);
	s->srv = s->prog ? prism_server__create(s->dev, &so) : NULL;
	if (!s->srv)
		bench_die("server", -1);
	BENCH_CHECK(prism_program__load(s->prog, s->dev));
	BENCH_CHECK(prism_server__add_program(s->srv, s->prog));
	if (setups[su].started)
		BENCH_CHECK(prism_server__start(s->srv));
}

static void srv_close(struct srv *s)
{
	prism_server__destroy(s->srv);
	prism_program__close(s->prog);
	prism_device__close(s->dev);
}

struct worker {
	struct srv *s;
	struct prism_client *cl;
	unsigned gets;
	pthread_barrier_t *start, *end;
	double cpu_s;
	pthread_t th;
};

/* @n gets in batches; every hit's first value byte checked. */
static void run_gets(struct worker *w, unsigned n, unsigned *b)
{
	uint8_t out[BATCH][HG_RESULT_BYTES], want[HG_VALUE_BYTES];
	struct prism_arg args[BATCH][2];
	struct prism_call c[BATCH];
	uint32_t bk[BATCH];

	for (unsigned i = 0; i < n; i += BATCH) {
		for (int j = 0; j < BATCH; j++, *b = (*b + 37) % NB) {
			bk[j] = *b;
			hg_get_call(&c[j], args[j], keys[*b] ? keys[*b] : 1, *b, out[j]);
		}
		if (prism_client__invoke_batch(w->cl, c, BATCH, NULL) != BATCH) {
			for (int j = 0; j < BATCH; j++)
				if (c[j].status)
					bench_die("a batch of gets", c[j].status);
		}
		for (int j = 0; j < BATCH; j += 7) {
			hg_reference(&w->s->t, bk[j], keys[bk[j]] ? keys[bk[j]] : 1, want);
			if (out[j][0] != want[0])
				bench_die("a get's value", -1);
		}
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned b = 0;
	double t0;

	run_gets(w, 4 * BATCH, &b); /* warm */
	pthread_barrier_wait(w->start);
	t0 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
	run_gets(w, w->gets, &b);
	w->cpu_s = bench_clock_s(CLOCK_THREAD_CPUTIME_ID) - t0;
	pthread_barrier_wait(w->end);
	return NULL;
}

static double process_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* One round of set-up @su with @k NIC threads and @k client threads:
 * aggregate gets per wall second; the CPU figure in *@cpu. */
static double round_k(enum setup su, unsigned k, unsigned gets, double *cpu)
{
	struct worker w[MAX_K];
	pthread_barrier_t start, end;
	struct srv s = {0};
	double t0, t1, c0, c1, sum = 0;

	srv_open(&s, su, k);
	pthread_barrier_init(&start, NULL, k + 1);
	pthread_barrier_init(&end, NULL, k + 1);
	for (unsigned i = 0; i < k; i++) {
		w[i] = (struct worker){.s = &s, .gets = gets, .start = &start, .end = &end};
		w[i].cl = prism_client__connect_local(s.srv, NULL);
		if (!w[i].cl || prism_client__shard(w[i].cl) != (int)i)
			bench_die("a client on its own shard", -1);
	}
	for (unsigned i = 0; i < k; i++)
		if (pthread_create(&w[i].th, NULL, worker_main, &w[i]))
			bench_die("pthread_create", -1);
	pthread_barrier_wait(&start);
	t0 = bench_now();
	c0 = process_cpu_s();
	pthread_barrier_wait(&end);
	t1 = bench_now();
	c1 = process_cpu_s();
	for (unsigned i = 0; i < k; i++) {
		pthread_join(w[i].th, NULL);
		sum += gets / w[i].cpu_s;
		prism_client__close(w[i].cl);
	}
	pthread_barrier_destroy(&start);
	pthread_barrier_destroy(&end);
	srv_close(&s);
	*cpu = setups[su].started ? (double)k * gets / (c1 - c0) : sum;
	return (double)k * gets / (t1 - t0);
}

int main(int argc, char **argv)
{
	unsigned gets = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 40000;
	unsigned k3 = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 0;
	unsigned ks[3] = {1, 2, k3}, nk = k3 > 2 && k3 <= MAX_K ? 3 : 2;
	static double wall[N_SETUPS][3][RUNS], cpu[N_SETUPS][3][RUNS];
	struct chainobj *o;
	uint64_t s = 42;

	gets = (gets + BATCH - 1) / BATCH * BATCH;
	if (!gets)
		gets = BATCH;
	prism_set_log_fn(prism_log_stderr, NULL,
	                 getenv("PRISM_BENCH_LOG") ? PRISM_LOG_DEBUG : PRISM_LOG_ERROR);
	for (uint32_t i = 0; i < NB; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		keys[i] = (uint32_t)(s & 0xffffff) | 1;
	}
	o = hg_build(TABLE_SIZE);
	if (!o || chainobj_write_mem(o, 0, &yaml, &yaml_len, NULL))
		bench_die("the hash get object", -1);
	chainobj_free(o);
	for (int r = 0; r < RUNS; r++)
		for (int su = 0; su < N_SETUPS; su++)
			for (unsigned i = 0; i < nk; i++)
				wall[su][i][r] =
				    round_k((enum setup)su, ks[i], gets, &cpu[su][i][r]);
	printf("bench_runtime_shards: RedN hash gets through prism_server, K NIC threads and K "
	       "in-process clients (one connection each, batches of %d), %u gets per client, "
	       "%ld online CPUs, median of %d rounds\n",
	       BATCH, gets, sysconf(_SC_NPROCESSORS_ONLN), RUNS);
	for (int su = 0; su < N_SETUPS; su++) {
		double base = bench_median(wall[su][0], RUNS),
		       cbase = bench_median(cpu[su][0], RUNS);

		for (unsigned i = 0; i < nk; i++) {
			double a = bench_median(wall[su][i], RUNS);
			double c = bench_median(cpu[su][i], RUNS);

			printf("  %-9s K=%-2u wall %6.3f M gets/s (x%.2f of K=1)   CPU %6.3f M "
			       "gets/%s-CPU-s (x%.2f of K=1)\n",
			       setups[su].name, ks[i], a / 1e6, a / base, c / 1e6,
			       setups[su].started ? "process" : "thread", c / cbase);
		}
	}
	free(yaml);
	return 0;
}
