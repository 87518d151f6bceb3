/* SPDX-License-Identifier: MIT */
/*
 * test_runtime_shards.c - a device with several NICs (prism_device_opts
 * .nic_threads): the server spreads its connections over them, each
 * connection's queues on one shard, the shared table reachable from all.
 *
 * Checked: options and limits; placement (least loaded shard, lowest index
 * among equals) in process and over TCP; RedN hash gets through every
 * shard against the plain C reference; one shard's failing connection
 * leaves the other connections of that shard and of the others working;
 * deterministic mode (no NIC or server threads) with two shards gives the
 * same results and virtual times for the same seed; a started server whose
 * progress loops run the NICs (prismd's set-up) and one whose NICs have
 * threads of their own, each with one loop per shard and one loop for all,
 * with clients on threads of their own (the NIC runs while the CPU
 * re-arms: the doorbell order of core/inst.c ring_doorbells matters).
 *
 * The bodies that do not depend on the sim's own options run again on mlx5
 * over the PRM emulator (one device context per NIC thread).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <prism/prism.h>

#include "chain/chainobj.h"
#include "core/client.h"
#include "tests/mlx5emu/mlx5emu.h"
#include "tests/runtime/support/hashget_chain.h"
#include "tests/support/backend_filter.h"

#define NB         256u
#define TABLE_SIZE (NB * (HG_BUCKET_BYTES + HG_VALUE_BYTES) + 4096u)

struct fx {
	struct prism_device *dev;
	struct prism_region *table;
	struct prism_program *prog;
	struct prism_server *srv;
	struct hg_table t;
	uint32_t keys[NB];
	char last_log[512];
};

static char *g_yaml;
static size_t g_yaml_len;
/* The group: the sim, or mlx5 over the emulator (server mlx5_0, TCP
 * clients mlx5_1; one device context per NIC thread). */
static bool g_emulated;

static void keep_log(enum prism_log_level level, const char *msg, void *ctx)
{
	struct fx *f = ctx;

	(void)level;
	if (f)
		snprintf(f->last_log, sizeof(f->last_log), "%s", msg);
	if (getenv("PRISM_TEST_LOG"))
		fprintf(stderr, "log: %s\n", msg);
}

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A hash-get server on a device of @nic NICs; @started: the server's
 * progress threads (@loops of them, 0: one per shard) poll and re-arm, and
 * run the NICs unless @threaded gives each NIC a thread of its own; else
 * the in-process clients drive everything. */
static struct fx *fx_open(unsigned nic, uint64_t seed, bool started, bool threaded, unsigned loops,
                          int port)
{
	struct fx *f = calloc(1, sizeof(*f));
	uint64_t s = 42;

	assert_non_null(f);
	prism_set_log_fn(keep_log, f, PRISM_LOG_DEBUG);
	PRISM_OPTS(prism_device_opts, dopts, .seed = seed, .nic_threads = nic,
	           .threaded = threaded);
	if (g_emulated)
		mlx5emu_install(
		    &(struct mlx5emu_opts){.relaxed_fw = true, .n_devices = 2, .seed = seed});
	f->dev = prism_device__open(g_emulated ? "mlx5_0" : "sim", &dopts);
	assert_non_null(f->dev);
	assert_int_equal(prism_device__nic_threads(f->dev), nic ? (int)nic : 1);
	PRISM_OPTS(prism_region_opts, ropts, .access = PRISM_ACCESS_READ);
	f->table = prism_device__create_region(f->dev, "table", TABLE_SIZE, &ropts);
	assert_non_null(f->table);
	f->t = (struct hg_table){prism_region__addr(f->table), TABLE_SIZE, NB};
	for (uint32_t i = 0; i < NB; i++)
		f->keys[i] = (i % 5 == 4) ? 0 : (uint32_t)(rng(&s) & 0xffffff) | 1;
	hg_fill(&f->t, f->keys, (uintptr_t)f->t.mem, 99);
	f->prog = prism_program__open_mem(g_yaml, g_yaml_len, NULL);
	assert_non_null(f->prog);
	assert_int_equal(prism_program__load(f->prog, f->dev), 0);
	PRISM_OPTS(prism_server_opts, sopts, .rearm = PRISM_REARM_CPU, .progress_threads = loops,
	           .host = "127.0.0.1", .port = port);
	f->srv = prism_server__create(f->dev, &sopts);
	assert_non_null(f->srv);
	assert_int_equal(prism_server__add_program(f->srv, f->prog), 0);
	if (started || port)
		assert_int_equal(prism_server__start(f->srv), 0);
	return f;
}

static void fx_close(struct fx *f)
{
	prism_server__destroy(f->srv);
	prism_program__close(f->prog);
	prism_device__close(f->dev);
	free(f);
	prism_set_log_fn(NULL, NULL, PRISM_LOG_WARN);
	if (g_emulated)
		assert_int_equal(mlx5emu_finish(), 0);
}

/* Key for case @i: a hit, another bucket's key, or an absent key. */
static uint32_t pick(const struct fx *f, uint64_t *s, uint32_t *b)
{
	*b = (uint32_t)(rng(s) % NB);
	switch (rng(s) % 3) {
	case 0:
		if (f->keys[*b])
			return f->keys[*b];
		break;
	case 1:
		return f->keys[(*b + 1) % NB] ? f->keys[(*b + 1) % NB] : 7;
	}
	return (uint32_t)(rng(s) & 0xffffff) | 0x800000;
}

/* @n gets on @cl (batches of 8), each checked against the reference. */
static void check_gets(const struct fx *f, struct prism_client *cl, unsigned n, uint64_t seed)
{
	enum { B = 8 };
	uint64_t s = seed | 1;

	for (unsigned i = 0; i < n; i += B) {
		uint8_t out[B][HG_VALUE_BYTES + 8], want[HG_VALUE_BYTES];
		struct prism_arg args[B][2];
		struct prism_call c[B];
		uint32_t key[B], b[B];

		for (int j = 0; j < B; j++) {
			key[j] = pick(f, &s, &b[j]);
			hg_get_call(&c[j], args[j], key[j], b[j], out[j]);
		}
		if (prism_client__invoke_batch(cl, c, B, NULL) != B)
			fail_msg("batch at %u on shard %d: %s (%s)", i, prism_client__shard(cl),
			         prism_strerror(c[0].status), f->last_log);
		for (int j = 0; j < B; j++) {
			hg_reference(&f->t, b[j], key[j], want);
			if (memcmp(out[j], want, HG_VALUE_BYTES))
				fail_msg("get %u on shard %d: bucket %u key 0x%06x differs", i + j,
				         prism_client__shard(cl), b[j], key[j]);
		}
	}
}

static void test_device_options(void **state)
{
	struct prism_device *dev;
	static uint8_t mem[256];

	(void)state;
	dev = prism_device__open("sim", NULL);
	assert_non_null(dev);
	assert_int_equal(prism_device__nic_threads(dev), 1);
	prism_device__close(dev);
	PRISM_OPTS(prism_device_opts, many, .nic_threads = 65);
	assert_null(prism_device__open("sim", &many));
	assert_int_equal(errno, PRISM_E_CONFIG);
	PRISM_OPTS(prism_device_opts, traced, .nic_threads = 2, .trace_path = "/dev/null");
	assert_null(prism_device__open("sim", &traced));
	assert_int_equal(errno, PRISM_E_CONFIG);
	/* A caller built before nic_threads existed: one NIC. */
	PRISM_OPTS(prism_device_opts, old, .seed = 3);
	old.sz = offsetof(struct prism_device_opts, nic_threads);
	dev = prism_device__open("sim", &old);
	assert_non_null(dev);
	assert_int_equal(prism_device__nic_threads(dev), 1);
	prism_device__close(dev);
	/* Regions registered after open reach every shard; unregister frees all. */
	PRISM_OPTS(prism_device_opts, four, .nic_threads = 4);
	dev = prism_device__open("sim", &four);
	assert_non_null(dev);
	assert_int_equal(prism_device__nic_threads(dev), 4);
	struct prism_region *r = prism_device__register_region(dev, "m", mem, sizeof(mem), NULL);
	assert_non_null(r);
	assert_int_equal(prism_region__unregister(r), 0);
	assert_non_null(prism_device__register_region(dev, "m", mem, sizeof(mem), NULL));
	prism_device__close(dev); /* closes the region too */
}

static void test_placement_least_loaded(void **state)
{
	struct fx *f = fx_open(3, 7, false, false, 0, 0);
	struct prism_client *cl[6];
	struct prism_shard_stats ss = {.sz = sizeof(ss)};
	struct prism_server_stats st = {.sz = sizeof(st)};

	(void)state;
	for (int i = 0; i < 6; i++) {
		cl[i] = prism_client__connect_local(f->srv, NULL);
		assert_non_null(cl[i]);
		assert_int_equal(prism_client__shard(cl[i]), i % 3);
	}
	for (unsigned s = 0; s < 3; s++) {
		assert_int_equal(prism_server__shard_stats(f->srv, s, &ss), 0);
		assert_int_equal(ss.conns_active, 2);
	}
	assert_int_equal(prism_server__shard_stats(f->srv, 3, &ss), -EINVAL);
	assert_int_equal(prism_server__stats(f->srv, &st), 0);
	assert_int_equal(st.shards, 3);
	assert_int_equal(st.conns_active, 6);
	/* Shard 1 loses both: the next two connections go there. */
	prism_client__close(cl[1]);
	prism_client__close(cl[4]);
	cl[1] = prism_client__connect_local(f->srv, NULL);
	cl[4] = prism_client__connect_local(f->srv, NULL);
	assert_int_equal(prism_client__shard(cl[1]), 1);
	assert_int_equal(prism_client__shard(cl[4]), 1);
	for (int i = 0; i < 6; i++)
		prism_client__close(cl[i]);
	fx_close(f);
}

static void test_gets_through_every_shard(void **state)
{
	struct fx *f = fx_open(2, 7, false, false, 0, 0);
	struct prism_client *cl[4];
	struct prism_shard_stats ss = {.sz = sizeof(ss)};

	(void)state;
	for (int i = 0; i < 4; i++) {
		cl[i] = prism_client__connect_local(f->srv, NULL);
		assert_non_null(cl[i]);
	}
	/* Interleaved: every shard's connections have work at once. */
	for (int round = 0; round < 4; round++)
		for (int i = 0; i < 4; i++)
			check_gets(f, cl[i], 400, (uint64_t)(round * 4 + i + 1) * 0x9e37);
	for (unsigned s = 0; s < 2; s++) {
		assert_int_equal(prism_server__shard_stats(f->srv, s, &ss), 0);
		assert_int_equal(ss.conns_active, 2);
		/* a NIC that runs by itself answers before the last completion is
		 * polled: up to one batch per connection not counted yet */
		if (g_emulated)
			assert_in_range(ss.invocations, 2 * 4 * 400 - 2 * 8, 2 * 4 * 400);
		else
			assert_int_equal(ss.invocations, 2 * 4 * 400);
	}
	for (int i = 0; i < 4; i++)
		prism_client__close(cl[i]);
	fx_close(f);
}

/* A 64-byte message into the 11-byte receive: that connection's RECV fails. */
static void break_connection(struct prism_client *bad)
{
	uint8_t junk[64] = {0};
	struct prism_call c = {.sz = sizeof(c)};

	assert_int_equal(core_client_send_raw(bad, junk, sizeof(junk), &c), 0);
	assert_true(core_client_wait(bad, bad->sent - 1, 2000) < 0);
}

static void test_failure_stays_on_its_connection(void **state)
{
	struct fx *f = fx_open(2, 7, false, false, 0, 0);
	struct prism_client *a0, *a1, *b0, *b1, *bad;
	struct prism_shard_stats ss = {.sz = sizeof(ss)};
	struct prism_server_stats st = {.sz = sizeof(st)};

	(void)state;
	a0 = prism_client__connect_local(f->srv, NULL);
	a1 = prism_client__connect_local(f->srv, NULL);
	b0 = prism_client__connect_local(f->srv, NULL);
	bad = prism_client__connect_local(f->srv, NULL);
	assert_non_null(a0);
	assert_non_null(a1);
	assert_non_null(b0);
	assert_non_null(bad);
	assert_int_equal(prism_client__shard(bad), 1);
	check_gets(f, a0, 64, 1);
	check_gets(f, a1, 64, 2);
	break_connection(bad);
	/* The other connection of shard 1 and those of shard 0 still answer. */
	check_gets(f, a1, 200, 3);
	check_gets(f, a0, 200, 4);
	check_gets(f, b0, 200, 5);
	assert_int_equal(prism_server__shard_stats(f->srv, 1, &ss), 0);
	assert_int_equal(ss.conns_active, 1);
	assert_int_equal(prism_server__stats(f->srv, &st), 0);
	assert_int_equal(st.conns_failed, 1);
	assert_int_equal(st.conns_active, 3);
	prism_client__close(bad);
	/* A new connection takes the freed place and works. */
	b1 = prism_client__connect_local(f->srv, NULL);
	assert_non_null(b1);
	assert_int_equal(prism_client__shard(b1), 1);
	check_gets(f, b1, 200, 6);
	/* Now on shard 0: shard 1 is not disturbed either. */
	break_connection(b0);
	check_gets(f, a1, 200, 7);
	check_gets(f, b1, 200, 8);
	check_gets(f, a0, 200, 9);
	prism_client__close(a0);
	prism_client__close(a1);
	prism_client__close(b0);
	prism_client__close(b1);
	fx_close(f);
}

/* One deterministic run: results and virtual latencies of 4 clients on 2 shards. */
struct det_trace {
	uint8_t out[4 * 96][HG_VALUE_BYTES];
	uint64_t virt[4 * 96];
	uint64_t dev_ns;
};

static void det_run(uint64_t seed, struct det_trace *tr)
{
	struct fx *f = fx_open(2, seed, false, false, 0, 0);
	struct prism_client *cl[4];
	uint64_t s = 99;
	unsigned n = 0;

	for (int i = 0; i < 4; i++) {
		cl[i] = prism_client__connect_local(f->srv, NULL);
		assert_non_null(cl[i]);
	}
	for (int round = 0; round < 12; round++) {
		for (int i = 0; i < 4; i++) {
			enum { B = 8 };
			uint8_t out[B][HG_VALUE_BYTES + 8];
			struct prism_arg args[B][2];
			struct prism_call c[B];

			for (int j = 0; j < B; j++) {
				uint32_t b, key = pick(f, &s, &b);

				hg_get_call(&c[j], args[j], key, b, out[j]);
			}
			assert_int_equal(prism_client__invoke_batch(cl[i], c, B, NULL), B);
			for (int j = 0; j < B; j++, n++) {
				memcpy(tr->out[n], out[j], HG_VALUE_BYTES);
				tr->virt[n] = c[j].virt_ns;
			}
		}
	}
	tr->dev_ns = prism_device__virt_ns(f->dev);
	for (int i = 0; i < 4; i++)
		prism_client__close(cl[i]);
	fx_close(f);
}

static void test_deterministic_with_two_shards(void **state)
{
	struct det_trace *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	det_run(1234, a);
	det_run(1234, b);
	assert_true(a->dev_ns > 0);
	assert_true(a->virt[0] > 0);
	assert_memory_equal(a->out, b->out, sizeof(a->out));
	assert_memory_equal(a->virt, b->virt, sizeof(a->virt));
	assert_int_equal(a->dev_ns, b->dev_ns);
	free(a);
	free(b);
}

struct worker {
	const struct fx *f;
	struct prism_client *cl;
	uint64_t seed;
	int failed;
	pthread_t th;
};

static void *worker_main(void *arg)
{
	enum { B = 4 };
	struct worker *w = arg;
	uint64_t s = w->seed;

	/* cmocka's asserts are not for other threads: count, check in main.
	 * Batches keep invocations in flight while the server re-arms. */
	for (unsigned i = 0; i < 1500; i += B) {
		uint8_t out[B][HG_VALUE_BYTES + 8], want[HG_VALUE_BYTES];
		struct prism_arg args[B][2];
		struct prism_call c[B];
		uint32_t b[B], key[B];

		for (int j = 0; j < B; j++) {
			key[j] = pick(w->f, &s, &b[j]);
			hg_get_call(&c[j], args[j], key[j], b[j], out[j]);
		}
		if (prism_client__invoke_batch(w->cl, c, B, NULL) != B) {
			w->failed++;
			break; /* a stalled connection stays stalled */
		}
		for (int j = 0; j < B; j++) {
			hg_reference(&w->f->t, b[j], key[j], want);
			w->failed += memcmp(out[j], want, HG_VALUE_BYTES) != 0;
		}
	}
	return NULL;
}

/* Progress loops running; clients on their own threads. */
static void run_served(bool threaded, unsigned loops)
{
	struct fx *f = fx_open(2, 7, true, threaded, loops, 0);
	struct worker w[4];
	struct prism_shard_stats ss = {.sz = sizeof(ss)};

	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){.f = f, .seed = (uint64_t)i * 77 + 5};
		w[i].cl = prism_client__connect_local(f->srv, NULL);
		assert_non_null(w[i].cl);
		assert_int_equal(prism_client__shard(w[i].cl), i % 2);
	}
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&w[i].th, NULL, worker_main, &w[i]), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(w[i].th, NULL);
	for (int i = 0; i < 4; i++)
		if (w[i].failed)
			fail_msg("client %d (shard %d): %d failed or wrong gets (%s)", i, i % 2,
			         w[i].failed, f->last_log);
	/* A client sees its answer before the loop polls the completion. */
	for (unsigned s = 0; s < 2; s++) {
		for (int spin = 0; spin < 5000; spin++) {
			struct timespec ts = {0, 1000 * 1000};

			assert_int_equal(prism_server__shard_stats(f->srv, s, &ss), 0);
			if (ss.invocations >= 2 * 1500)
				break;
			nanosleep(&ts, NULL);
		}
		assert_int_equal(ss.invocations, 2 * 1500);
	}
	for (int i = 0; i < 4; i++)
		prism_client__close(w[i].cl);
	fx_close(f);
}

static void test_served_loop_per_shard(void **state)
{
	(void)state;
	run_served(false, 0);
}

static void test_served_one_loop_for_all(void **state)
{
	(void)state;
	run_served(false, 1);
}

static void test_nic_threads_loop_per_shard(void **state)
{
	(void)state;
	run_served(true, 0);
}

static void test_nic_threads_one_loop_for_all(void **state)
{
	(void)state;
	run_served(true, 1);
}

/* Over TCP: connections alternate between the shards, a client that goes
 * away is torn down on its shard only. */
static void test_tcp_clients_on_shards(void **state)
{
	struct fx *f = fx_open(2, 7, false, false, 0, PRISM_PORT_ANY);
	struct prism_device *cdev = prism_device__open(g_emulated ? "mlx5_1" : "sim", NULL);
	struct prism_client *cl[3];
	struct prism_shard_stats ss = {.sz = sizeof(ss)};
	char addr[32];

	(void)state;
	assert_non_null(cdev);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", prism_server__port(f->srv));
	for (int i = 0; i < 3; i++) {
		cl[i] = prism_client__connect(cdev, addr, NULL);
		assert_non_null(cl[i]);
		check_gets(f, cl[i], 64, (uint64_t)i + 11);
	}
	assert_int_equal(prism_server__shard_stats(f->srv, 0, &ss), 0);
	assert_int_equal(ss.conns_total, 2);
	assert_int_equal(prism_server__shard_stats(f->srv, 1, &ss), 0);
	assert_int_equal(ss.conns_total, 1);
	prism_client__close(cl[1]);               /* shard 1's only connection */
	for (int spin = 0; spin < 2000; spin++) { /* until the server noticed */
		struct timespec ts = {0, 1000 * 1000};

		prism_server__shard_stats(f->srv, 1, &ss);
		if (!ss.conns_active)
			break;
		nanosleep(&ts, NULL);
	}
	assert_int_equal(ss.conns_active, 0);
	check_gets(f, cl[0], 200, 21);
	check_gets(f, cl[2], 200, 22);
	/* The next one fills shard 1 again. */
	cl[1] = prism_client__connect(cdev, addr, NULL);
	assert_non_null(cl[1]);
	check_gets(f, cl[1], 64, 23);
	assert_int_equal(prism_server__shard_stats(f->srv, 1, &ss), 0);
	assert_int_equal(ss.conns_active, 1);
	for (int i = 0; i < 3; i++)
		prism_client__close(cl[i]);
	prism_device__close(cdev);
	fx_close(f);
}

/* A program with an atomic region on several NICs: the server says what
 * sharding does not give (atomics across NICs); on one NIC it says nothing. */
static void test_atomic_region_warned_when_sharded(void **state)
{
	struct chainobj *o = hg_build(TABLE_SIZE);
	char *yaml;
	size_t len;

	(void)state;
	assert_non_null(o);
	o->regions[0].access |= CHAINOBJ_ACC_ATOMIC;
	assert_int_equal(chainobj_write_mem(o, 0, &yaml, &len, NULL), 0);
	chainobj_free(o);
	for (unsigned nic = 1; nic <= 2; nic++) {
		struct fx *f = calloc(1, sizeof(*f));

		assert_non_null(f);
		prism_set_log_fn(keep_log, f, PRISM_LOG_DEBUG);
		PRISM_OPTS(prism_device_opts, dopts, .nic_threads = nic);
		f->dev = prism_device__open("sim", &dopts);
		assert_non_null(f->dev);
		PRISM_OPTS(prism_region_opts, ropts,
		           .access = PRISM_ACCESS_READ | PRISM_ACCESS_ATOMIC);
		assert_non_null(prism_device__create_region(f->dev, "table", TABLE_SIZE, &ropts));
		f->prog = prism_program__open_mem(yaml, len, NULL);
		assert_non_null(f->prog);
		assert_int_equal(prism_program__load(f->prog, f->dev), 0);
		f->srv = prism_server__create(f->dev, NULL);
		assert_non_null(f->srv);
		f->last_log[0] = 0;
		assert_int_equal(prism_server__add_program(f->srv, f->prog), 0);
		if (nic == 1)
			assert_null(strstr(f->last_log, "not atomic"));
		else
			assert_non_null(strstr(f->last_log, "not atomic with each other"));
		fx_close(f);
	}
	free(yaml);
}

static int group_setup(void **state)
{
	struct chainobj *o = hg_build(TABLE_SIZE);

	(void)state;
	if (!o || chainobj_write_mem(o, 0, &g_yaml, &g_yaml_len, NULL))
		return -1;
	chainobj_free(o);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	free(g_yaml);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_device_options),
	    cmocka_unit_test(test_placement_least_loaded),
	    cmocka_unit_test(test_gets_through_every_shard),
	    cmocka_unit_test(test_failure_stays_on_its_connection),
	    cmocka_unit_test(test_deterministic_with_two_shards),
	    cmocka_unit_test(test_served_loop_per_shard),
	    cmocka_unit_test(test_served_one_loop_for_all),
	    cmocka_unit_test(test_nic_threads_loop_per_shard),
	    cmocka_unit_test(test_nic_threads_one_loop_for_all),
	    cmocka_unit_test(test_tcp_clients_on_shards),
	    cmocka_unit_test(test_atomic_region_warned_when_sharded),
	};

	/* on mlx5 over the emulator: what does not depend on the sim's options
	 * (deterministic mode, NIC threads of the sim, its seed) */
	const struct CMUnitTest mlx5_tests[] = {
	    cmocka_unit_test(test_placement_least_loaded),
	    cmocka_unit_test(test_gets_through_every_shard),
	    cmocka_unit_test(test_failure_stays_on_its_connection),
	    cmocka_unit_test(test_served_loop_per_shard),
	    cmocka_unit_test(test_served_one_loop_for_all),
	    cmocka_unit_test(test_tcp_clients_on_shards),
	};
	int failed = 0;

	if (test_backend_selected("runtime_shards (sim)"))
		failed += _cmocka_run_group_tests("runtime_shards (sim)", tests,
		                                  sizeof(tests) / sizeof(tests[0]), group_setup,
		                                  group_teardown);
	g_emulated = true;
	if (test_backend_selected("runtime_shards (mlx5 over the emulator)"))
		failed += _cmocka_run_group_tests(
		    "runtime_shards (mlx5 over the emulator)", mlx5_tests,
		    sizeof(mlx5_tests) / sizeof(mlx5_tests[0]), group_setup, group_teardown);
	return failed;
}
