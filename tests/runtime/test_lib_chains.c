/* SPDX-License-Identifier: MIT */
/*
 * test_lib_chains.c - the offloads in lib/chains/, compiled by prismc, each
 * loaded per connection on a server process and invoked from this (client)
 * process over TCP, checked against plain C reference implementations over
 * 10,000 randomized invocations each, with hits, misses and collisions:
 *
 *   hash_get.prism  get           two buckets probed in one queue (RedN-Seq)
 *                   get_parallel  one queue per bucket (RedN-Parallel)
 *                   get, batched  more answers in flight than posted receives
 *                                 (the server's RNR retries across processes)
 *   list_find.prism find          walk until the key, bound 8
 *                   find_break    return + break inside the loop, circular end
 *                   find_long     the walk recycled (bound 1000: one lap re-run
 *                                 by the NIC; misses run all 1001 laps)
 *
 * The list walks also count which way out each invocation took (every loop
 * exit, the loop condition's, running to the bound): each is taken many
 * times, and each is followed by more invocations on the same connection,
 * which re-arm from where that exit left the rings.
 *
 * Backends (main): the sim, server in another process; and the mlx5 backend
 * over the PRM emulator (tests/mlx5emu/), server and client on two emulated
 * InfiniBand devices of this process (the emulator lives in one process),
 * still connected over TCP, with a quarter of the invocations.
 */
#include <errno.h>
#include <libgen.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <prism/prism.h>

#include "tests/mlx5emu/mlx5emu.h"
#include "tests/runtime/support/child_proc.h"
#include "tests/support/backend_filter.h"
#include "util/byteorder.h"

#define N_BUCKETS    65536u
#define BUCKET       16u
#define VALUE        64u
#define TABLE_BYTES  (N_BUCKETS * BUCKET)
#define VALUES_BYTES (4u << 20)
#define N_NODES      4096u
#define NODE         80u
#define NODES_BYTES  (N_NODES * NODE)
#define USED_BUCKETS 4096u /* buckets with a key; the rest are empty */
#define N_LISTS      256u
#define LIST_MAX     12u
#define INVOCATIONS  10000

static char prismc[512];
static char tmpdir[64];

/* The backend under test. */
struct backend {
	const char *group;
	const char *server_dev, *client_dev;
	bool emulated; /* mlx5 over the emulator: the server runs in this process */
	int scale;     /* invocations and thresholds divided by this */
};
static const struct backend *g_be;
#define N_INVOCATIONS (INVOCATIONS / g_be->scale)
#define AT_LEAST(n)   ((unsigned)(n) / (unsigned)g_be->scale)

/* ---- deterministic data, built the same way by server and client -------- */

static uint64_t rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Hash table: bucket i (i < USED_BUCKETS, every 16th slot) has a key and a value. */
static void fill_hash(uint8_t *table, uint8_t *values, uint64_t values_base)
{
	uint64_t s = 11;

	memset(table, 0, TABLE_BYTES);
	for (uint32_t i = 0; i < USED_BUCKETS; i++) {
		uint8_t *b = table + (size_t)(i * 16u) * BUCKET;
		uint8_t *v = values + (size_t)i * VALUE;

		put_be(b, 3, (rng(&s) & 0xfffffe) | 1); /* nonzero keys */
		put_be(b + 8, 8, values_base + (uint64_t)i * VALUE);
		for (uint32_t j = 0; j < VALUE; j += 8) {
			uint64_t r = rng(&s) | 1;

			memcpy(v + j, &r, 8);
		}
	}
}

/* Lists: list l is a circular list of 8..12 nodes starting at node l*LIST_MAX. */
static void fill_lists(uint8_t *nodes, uint64_t base)
{
	uint64_t s = 23;

	memset(nodes, 0, NODES_BYTES);
	for (uint32_t l = 0; l < N_LISTS; l++) {
		uint32_t len = 8 + (uint32_t)(rng(&s) % (LIST_MAX - 7));

		for (uint32_t k = 0; k < len; k++) {
			uint32_t n = l * LIST_MAX + k, nx = l * LIST_MAX + (k + 1) % len;
			uint8_t *p = nodes + (size_t)n * NODE;

			/* distinct within a list: the index rides in the low bits */
			put_be(p, 3, ((rng(&s) & 0xffff0) | k) & 0xffffff);
			put_be(p + 8, 8, base + (uint64_t)nx * NODE);
			for (uint32_t j = 16; j < NODE; j += 8) {
				uint64_t r = rng(&s) | 1;

				memcpy(p + j, &r, 8);
			}
		}
	}
}

/* ---- C references --------------------------------------------------------- */

/* Two-bucket get: the value of the first bucket holding @key, or NULL. */
static const uint8_t *ref_get(const uint8_t *table, const uint8_t *values, uint32_t key,
                              uint32_t b1, uint32_t b2, uint32_t *site)
{
	const uint32_t bs[2] = {b1, b2};

	for (int i = 0; i < 2; i++) {
		const uint8_t *b = table + (size_t)bs[i] * BUCKET;

		if (get_be(b, 3) == key) {
			*site = (uint32_t)i + 1;
			return values + get_be(b + 8, 8); /* values_base 0 in the client copy */
		}
	}
	*site = 0;
	return NULL;
}

static const uint8_t *node_at(const uint8_t *nodes, uint64_t off)
{
	return nodes + off;
}

/* while (p.key != key) bound 8 { p = p.next } if (p.key == key) return p.value */
static const uint8_t *ref_find(const uint8_t *nodes, uint32_t key, uint32_t head, int *stop)
{
	const uint8_t *p = node_at(nodes, (uint64_t)head * NODE);
	int i = 0;

	for (; i < 8 && get_be(p, 3) != key; i++)
		p = node_at(nodes, get_be(p + 8, 8));
	*stop = i; /* the exit taken (0..7), 8: the loop ran to its bound */
	return get_be(p, 3) == key ? p : NULL;
}

/* find_long: the same walk with bound 1000, recycled */
static const uint8_t *ref_find_long(const uint8_t *nodes, uint32_t key, uint32_t head, int *stop)
{
	const uint8_t *p = node_at(nodes, (uint64_t)head * NODE);
	int i = 0;

	for (; i < 1000 && get_be(p, 3) != key; i++)
		p = node_at(nodes, get_be(p + 8, 8));
	*stop = i < 8 ? i : 8; /* 8: walked further (a miss runs to the bound) */
	return get_be(p, 3) == key ? p : NULL;
}

/* while (p.next != head) bound 8 { if (p.key == key) { return p.value; break; } p = p.next } */
static const uint8_t *ref_find_break(const uint8_t *nodes, uint32_t key, uint32_t head, int *stop)
{
	uint64_t h = (uint64_t)head * NODE;
	const uint8_t *p = node_at(nodes, h);
	int i = 0;

	for (; i < 8 && get_be(p + 8, 8) != h; i++) {
		if (get_be(p, 3) == key) {
			*stop = 9 + i; /* the break in iteration i */
			return p;
		}
		p = node_at(nodes, get_be(p + 8, 8));
	}
	*stop = i; /* the loop condition's exit (0..7), 8: ran to its bound */
	return NULL;
}

/* ---- the server process --------------------------------------------------- */

static int compile(const char *src, const char *entry, char *out, size_t cap)
{
	char cmd[2048];

	snprintf(out, cap, "%s/%s.chain", tmpdir, entry);
	snprintf(cmd, sizeof(cmd), "%s compile %s --entry %s -o %s", prismc, src, entry, out);
	return system(cmd);
}

struct served {
	struct prism_device *dev;
	struct prism_server *srv;
	uint16_t port;
};

/* Fill the regions, compile and load every program, start: 0 or an exit code. */
static int serve_open(const char *device, struct served *out)
{
	static const struct {
		const char *src, *entry;
	} progs[] = {
	    {"lib/chains/hash_get.prism", "get"},
	    {"lib/chains/hash_get.prism", "get_parallel"},
	    {"lib/chains/list_find.prism", "find"},
	    {"lib/chains/list_find.prism", "find_break"},
	    {"lib/chains/list_find_long.prism", "find_long"},
	};
	struct prism_device *dev = prism_device__open(device, NULL);
	struct prism_region *table, *values, *nodes;
	struct prism_server *srv;

	if (getenv("PRISM_TEST_LOG"))
		prism_set_log_fn(prism_log_stderr, NULL,
		                 getenv("PRISM_TEST_DEBUG") ? PRISM_LOG_DEBUG : PRISM_LOG_INFO);
	if (!dev)
		return 2;
	out->dev = dev;
	table = prism_device__create_region(dev, "table", TABLE_BYTES, NULL);
	values = prism_device__create_region(dev, "values", VALUES_BYTES, NULL);
	nodes = prism_device__create_region(dev, "nodes", NODES_BYTES, NULL);
	if (!table || !values || !nodes)
		return 3;
	fill_hash(prism_region__addr(table), prism_region__addr(values),
	          (uintptr_t)prism_region__addr(values));
	fill_lists(prism_region__addr(nodes), (uintptr_t)prism_region__addr(nodes));
	PRISM_OPTS(prism_server_opts, so, .host = "127.0.0.1", .port = PRISM_PORT_ANY);
	srv = prism_server__create(dev, &so);
	if (!srv)
		return 4;
	out->srv = srv;
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		PRISM_OPTS(prism_program_opts, po, .name = progs[i].entry);
		char path[256];
		struct prism_program *p;

		if (compile(progs[i].src, progs[i].entry, path, sizeof(path)))
			return 5;
		p = prism_program__open_file(path, &po);
		if (!p || prism_program__load(p, dev) || prism_server__add_program(srv, p)) {
			prism_program__close(p);
			return 6;
		}
		prism_program__close(p);
	}
	if (prism_server__start(srv))
		return 7;
	out->port = prism_server__port(srv);
	return 0;
}

static void serve_close(struct served *s)
{
	prism_server__destroy(s->srv);
	prism_device__close(s->dev);
	memset(s, 0, sizeof(*s));
}

/* The server process (sim). */
static void serve(int fd)
{
	struct served s = {0};
	int rc = serve_open("sim", &s);

	if (rc)
		_exit(rc);
	if (write(fd, &s.port, sizeof(s.port)) != sizeof(s.port))
		_exit(8);
	for (;;)
		pause();
}

/* ---- the client (this process) -------------------------------------------- */

struct fx {
	pid_t server;
	struct served local; /* the in-process server (emulated backend) */
	char addr[32];
	struct prism_device *dev;
	uint8_t *table, *values, *nodes; /* the client's copies, pointers as offsets */
};

static int setup(void **state)
{
	static struct fx f;
	int p[2];
	uint16_t port = 0;

	if (g_be->emulated) {
		int rc = serve_open(g_be->server_dev, &f.local);

		if (rc) {
			serve_close(&f.local);
			fail_msg("in-process server did not start (step %d)", rc);
		}
		port = f.local.port;
		goto client;
	}
	assert_int_equal(pipe(p), 0);
	f.server = child_fork(); /* dies with this process, its prismc runs too */
	assert_true(f.server >= 0);
	if (f.server == 0) {
		close(p[0]);
		serve(p[1]);
	}
	close(p[1]);
	ssize_t got = read(p[0], &port, sizeof(port));
	close(p[0]);
	if (got != (ssize_t)sizeof(port))
		fail_msg("server process did not start (compile or load failed, status 0x%x)",
		         child_kill(f.server));
client:
	snprintf(f.addr, sizeof(f.addr), "127.0.0.1:%u", port);
	f.table = malloc(TABLE_BYTES);
	f.values = malloc(VALUES_BYTES);
	f.nodes = malloc(NODES_BYTES);
	assert_true(f.table && f.values && f.nodes);
	fill_hash(f.table, f.values, 0);
	fill_lists(f.nodes, 0);
	f.dev = prism_device__open(g_be->client_dev, NULL);
	assert_non_null(f.dev);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	if (!f)
		return 0;
	prism_device__close(f->dev);
	if (g_be->emulated)
		serve_close(&f->local);
	else
		child_kill(f->server);
	free(f->table);
	free(f->values);
	free(f->nodes);
	return 0;
}

static struct prism_client *connect_to(struct fx *f, const char *prog)
{
	PRISM_OPTS(prism_client_opts, co, .program = prog);
	struct prism_client *cl = prism_client__connect(f->dev, f->addr, &co);

	assert_non_null(cl);
	return cl;
}

static void run_hash(struct fx *f, const char *entry)
{
	struct prism_client *cl = connect_to(f, entry);
	uint64_t s = 1000 + strlen(entry);
	unsigned hit1 = 0, hit2 = 0, miss = 0;

	for (int i = 0; i < N_INVOCATIONS; i++) {
		uint32_t used = (uint32_t)(rng(&s) % USED_BUCKETS) * 16u;
		uint32_t other = (uint32_t)(rng(&s) % N_BUCKETS);
		uint32_t b1 = used, b2 = other, key, site;
		uint8_t out[VALUE], zero[VALUE] = {0};

		switch (rng(&s) % 4) {
		case 0: /* hit in the first bucket */
			key = (uint32_t)get_be(f->table + (size_t)b1 * BUCKET, 3);
			break;
		case 1: /* hit in the second bucket (collision in the first) */
			b1 = other, b2 = used;
			key = (uint32_t)get_be(f->table + (size_t)b2 * BUCKET, 3);
			break;
		case 2: /* miss: a key in neither bucket */
			key = (uint32_t)(rng(&s) & 0xfffffe) | 1;
			break;
		default: /* miss on empty buckets, key 0 never stored except in empty ones */
			key = (uint32_t)(rng(&s) & 0xfffffe) | 1;
			b1 = used + 1, b2 = used + 2;
			break;
		}
		struct prism_arg args[3] = {{.name = "key", .u64 = key},
		                            {.name = "b1", .u64 = (uint64_t)b1 * BUCKET},
		                            {.name = "b2", .u64 = (uint64_t)b2 * BUCKET}};
		struct prism_call c = {.sz = sizeof(c),
		                       .entry = entry,
		                       .args = args,
		                       .nargs = 3,
		                       .result = out,
		                       .result_cap = sizeof(out)};
		int rc = prism_client__invoke(cl, &c, NULL);

		if (rc)
			fail_msg("%s #%d: %s", entry, i, prism_strerror(rc));
		const uint8_t *want = ref_get(f->table, f->values, key, b1, b2, &site);
		/* In parallel both lanes may answer when both buckets hold the key. */
		bool both = site == 1 && get_be(f->table + (size_t)b2 * BUCKET, 3) == key;
		if (c.ret_site != site && !(both && !strcmp(entry, "get_parallel")))
			fail_msg("%s #%d: key 0x%06x buckets %u,%u: return site %u, reference %u",
			         entry, i, key, b1, b2, c.ret_site, site);
		if (memcmp(out, want ? want : zero, VALUE))
			fail_msg("%s #%d: value differs from the reference", entry, i);
		hit1 += site == 1, hit2 += site == 2, miss += site == 0;
	}
	assert_true(hit1 > AT_LEAST(1000) && hit2 > AT_LEAST(1000) && miss > AT_LEAST(1000));
	prism_client__close(cl);
}

/*
 * Batches of the parallel get with both buckets the same used bucket: both
 * lanes' returns fire (in `get` the first return ends the invocation), so
 * every invocation answers three times (return, return, end) and a batch
 * has more answers in flight than the client keeps receives posted.  The
 * server's answers then meet RNR NAKs and wait for the client's re-posted
 * receives, which happen in another process: the server must retry them on
 * its own (an RNR timer), or the batch never completes.
 */
static void run_hash_batches(struct fx *f, const char *entry)
{
	enum { BATCH = 16 };
	const int rounds = 200 / g_be->scale;
	struct prism_client *cl = connect_to(f, entry);
	struct prism_call calls[BATCH];
	struct prism_arg args[BATCH][3];
	uint8_t out[BATCH][VALUE];
	uint64_t s = 3000 + strlen(entry);

	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < BATCH; i++) {
			uint32_t b = (uint32_t)(rng(&s) % USED_BUCKETS) * 16u;
			uint32_t key = (uint32_t)get_be(f->table + (size_t)b * BUCKET, 3);

			args[i][0] = (struct prism_arg){.name = "key", .u64 = key};
			args[i][1] = (struct prism_arg){.name = "b1", .u64 = (uint64_t)b * BUCKET};
			args[i][2] = (struct prism_arg){.name = "b2", .u64 = (uint64_t)b * BUCKET};
			calls[i] = (struct prism_call){.sz = sizeof(calls[i]),
			                               .entry = entry,
			                               .args = args[i],
			                               .nargs = 3,
			                               .result = out[i],
			                               .result_cap = VALUE};
		}
		int ok = prism_client__invoke_batch(cl, calls, BATCH, NULL);

		for (int i = 0; i < BATCH; i++) {
			uint32_t site;
			const uint8_t *want = ref_get(f->table, f->values, (uint32_t)args[i][0].u64,
			                              (uint32_t)(args[i][1].u64 / BUCKET),
			                              (uint32_t)(args[i][2].u64 / BUCKET), &site);

			if (calls[i].status)
				fail_msg("%s batch %d call %d: %s (%d of %d succeeded)", entry, r,
				         i, prism_strerror(calls[i].status), ok, BATCH);
			if (!want || memcmp(out[i], want, VALUE))
				fail_msg("%s batch %d call %d: value differs from the reference",
				         entry, r, i);
		}
	}
	prism_client__close(cl);
}

static void run_list(struct fx *f, const char *entry)
{
	struct prism_client *cl = connect_to(f, entry);
	bool brk = !strcmp(entry, "find_break"), lng = !strcmp(entry, "find_long");
	/* a recycled miss runs 1001 laps: fewer invocations keep the run short */
	int invocations = lng ? N_INVOCATIONS / 10 : N_INVOCATIONS;
	uint64_t s = 2000 + strlen(entry);
	unsigned hits = 0, misses = 0, stops[17] = {0};

	for (int i = 0; i < invocations; i++) {
		uint32_t l = (uint32_t)(rng(&s) % N_LISTS);
		uint32_t head = l * LIST_MAX + (uint32_t)(rng(&s) % 8); /* any node of the ring */
		uint32_t pick = l * LIST_MAX + (uint32_t)(rng(&s) % LIST_MAX);
		uint32_t key = (rng(&s) % 4) ? (uint32_t)get_be(f->nodes + (size_t)pick * NODE, 3)
		                             : (uint32_t)(rng(&s) & 0xffffff);
		uint8_t out[NODE], zero[NODE] = {0};
		struct prism_arg args[2] = {{.name = "key", .u64 = key},
		                            {.name = "head", .u64 = (uint64_t)head * NODE}};
		struct prism_call c = {.sz = sizeof(c),
		                       .entry = entry,
		                       .args = args,
		                       .nargs = 2,
		                       .result = out,
		                       .result_cap = sizeof(out)};
		int rc = prism_client__invoke(cl, &c, NULL);

		if (rc)
			fail_msg("%s #%d: %s", entry, i, prism_strerror(rc));
		int stop;
		const uint8_t *want = brk   ? ref_find_break(f->nodes, key, head, &stop)
		                      : lng ? ref_find_long(f->nodes, key, head, &stop)
		                            : ref_find(f->nodes, key, head, &stop);
		if ((c.ret_site != 0) != (want != NULL))
			fail_msg("%s #%d: key 0x%06x head %u: %s, reference %s", entry, i, key,
			         head, c.ret_site ? "found" : "not found", want ? "found" : "not");
		/* The value field (bytes 16..79 of the node): the response WRITE
		 * starts at the node, so the value sits at offset 16 of the
		 * response (the object's result entry says so). */
		if (want && memcmp(out + 16, want + 16, VALUE))
			fail_msg("%s #%d: value differs from the reference", entry, i);
		if (!want && memcmp(out, zero, VALUE))
			fail_msg("%s #%d: a miss returned bytes", entry, i);
		hits += want != NULL, misses += want == NULL;
		stops[stop]++;
	}
	if (lng) { /* hits at every node of a list, misses after 1001 laps */
		assert_true(hits > AT_LEAST(100) && misses > AT_LEAST(100));
		for (int k = 0; k < 8; k++)
			assert_true(stops[k] > AT_LEAST(5));
		prism_client__close(cl);
		return;
	}
	assert_true(hits > AT_LEAST(1000) && misses > AT_LEAST(1000));
	/* Every way out was taken many times, each followed by more
	 * invocations (re-arm after each exit): find's eight exits and its
	 * fall-through; find_break's breaks in iterations 0..7, its loop
	 * condition's exit (lists of 8 nodes) and its fall-through. */
	for (int k = 0; k <= 8; k++)
		if (!brk || k >= 7)
			assert_true(stops[k] > AT_LEAST(50));
	for (int k = 9; brk && k <= 16; k++)
		assert_true(stops[k] > AT_LEAST(50));
	prism_client__close(cl);
}

static void test_get(void **state)
{
	run_hash(*state, "get");
}

static void test_get_parallel(void **state)
{
	run_hash(*state, "get_parallel");
}

static void test_get_batches_both_buckets(void **state)
{
	run_hash_batches(*state, "get_parallel");
}

static void test_find(void **state)
{
	run_list(*state, "find");
}

static void test_find_break(void **state)
{
	run_list(*state, "find_break");
}

static void test_find_long(void **state)
{
	run_list(*state, "find_long");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_get),
	    cmocka_unit_test(test_get_parallel),
	    cmocka_unit_test(test_get_batches_both_buckets),
	    cmocka_unit_test(test_find),
	    cmocka_unit_test(test_find_break),
	    cmocka_unit_test(test_find_long),
	};
	char self[512];

	(void)argc;
	/* prismc sits next to the tests directory: build/tests/x -> build/prismc. */
	snprintf(self, sizeof(self), "%s", argv[0]);
	snprintf(prismc, sizeof(prismc), "%s/../prismc", dirname(self));
	if (getenv("PRISMC"))
		snprintf(prismc, sizeof(prismc), "%s", getenv("PRISMC"));
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/prism-libchains-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	signal(SIGPIPE, SIG_IGN);
	if (getenv("PRISM_TEST_ONLY"))
		cmocka_set_test_filter(getenv("PRISM_TEST_ONLY"));
	static const struct backend backends[] = {
	    {"lib_chains (sim)", "sim", "sim", false, 1},
	    {"lib_chains (mlx5 over the emulator)", "mlx5_0", "mlx5_1", true, 4},
	};
	int rc = 0;

	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		g_be = &backends[i];
		if (!test_backend_selected(g_be->group))
			continue;
		if (g_be->emulated)
			mlx5emu_install(&(struct mlx5emu_opts){.relaxed_fw = true, .n_devices = 2});
		rc += _cmocka_run_group_tests(g_be->group, tests, sizeof(tests) / sizeof(tests[0]),
		                              setup, teardown);
		if (g_be->emulated && mlx5emu_finish())
			rc++; /* each failure is on stderr */
	}
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		rc = rc ? rc : 1;
	return rc;
}
