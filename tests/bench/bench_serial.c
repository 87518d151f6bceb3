/* SPDX-License-Identifier: MIT */
/*
 * bench_serial.c - the latency of a program whose invocations run one at a
 * time (docs/runtime-api.md, "Serial programs"): lib/chains/prism_ops.prism's
 * `put`, whose barriers hold WQEs back, so that the server re-arms the
 * entry of each invocation only after the one before it completed.  Beside
 * it `publish` of the same file, which pipelines, as the baseline of the
 * same client, server and carrier.
 *
 * Closed loop, one call in flight, per-call wall-clock percentiles, in
 * three setups of one process:
 *   local:     client in-process (prism_client__connect_local) on the
 *              server's sim device, the server's progress loop running;
 *   tcp, shm:  server device threaded (prism_device_opts.threaded), the
 *              client on a device of its own that it runs itself, over
 *              TCP loopback and over a shared-memory ring pair.
 *
 * usage: bench_serial [CALLS [GAP_US]]   (default 3000 calls per setup and
 * program, back to back; GAP_US: the client pauses that long before each
 * call, so that the server's threads have gone to sleep when it comes)
 * prismc is found next to this program (build/prismc) or in $PRISMC.
 */
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <prism/prism.h>

#include "tests/support/bench_stats.h"

#define N_OBJECTS 4096u /* the size prism_ops.prism declares for "objects" */
#define OBJ_BYTES 16u

struct setup {
	const char *name;
	bool local;
	enum prism_transport transport;
};

static const struct setup setups[] = {
    {"local", true, PRISM_TRANSPORT_AUTO},
    {"tcp", false, PRISM_TRANSPORT_TCP},
    {"shm", false, PRISM_TRANSPORT_SHM},
};

static const char *const entries[] = {"put", "publish"};
static unsigned gap_us; /* the client's pause between two calls */

struct server {
	struct prism_device *dev;
	struct prism_region *heap, *objects;
	struct prism_server *srv;
};

static struct prism_region *region(struct prism_device *dev, const char *name, size_t size,
                                   unsigned access)
{
	PRISM_OPTS(prism_region_opts, ro, .access = access);
	struct prism_region *r = prism_device__create_region(dev, name, size, &ro);

	if (!r)
		bench_die(name, -1);
	memset(prism_region__addr(r), 0, size);
	return r;
}

/* The freelist `put` pops: a cursor, then N_OBJECTS big-endian addresses. */
static void fill_freelist(struct server *s)
{
	uint8_t *o = prism_region__addr(s->objects);
	uint64_t cursor = (uintptr_t)o + 8;

	memcpy(o, &cursor, 8);
	for (uint32_t i = 0; i < N_OBJECTS; i++) {
		uint64_t p = __builtin_bswap64((uintptr_t)prism_region__addr(s->heap) +
		                               (uint64_t)i * OBJ_BYTES);

		memcpy(o + 8 + (size_t)i * 8, &p, 8);
	}
}

static void compile(const char *prismc, const char *entry, char *out, size_t cap)
{
	char cmd[PATH_MAX * 2 + 128];

	snprintf(out, cap, "%s/prism-bench-serial-%d-%s.chain",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid(), entry);
	snprintf(cmd, sizeof(cmd), "%s compile lib/chains/prism_ops.prism --entry %s -o %s", prismc,
	         entry, out);
	if (system(cmd))
		bench_die(cmd, -1);
}

static void server_open(struct server *s, bool threaded, const char *prismc)
{
	const unsigned rw = PRISM_ACCESS_READ | PRISM_ACCESS_WRITE | PRISM_ACCESS_ATOMIC;
	PRISM_OPTS(prism_device_opts, dopts, .threaded = threaded);
	PRISM_OPTS(prism_server_opts, sopts, .port = PRISM_PORT_ANY, .host = "127.0.0.1");
	char path[PATH_MAX];

	s->dev = prism_device__open("sim", &dopts);
	if (!s->dev)
		bench_die("prism_device__open", -1);
	s->heap = region(s->dev, "heap", 1u << 20, rw);
	region(s->dev, "meta", 2048, rw);
	region(s->dev, "locks", 1024, rw);
	region(s->dev, "ranges", 16384, PRISM_ACCESS_READ);
	region(s->dev, "values", 65536, PRISM_ACCESS_READ);
	s->objects = region(s->dev, "objects", 8 + (size_t)N_OBJECTS * 8, rw);
	s->srv = prism_server__create(s->dev, &sopts);
	if (!s->srv)
		bench_die("prism_server__create", -1);
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		struct prism_program *p;

		compile(prismc, entries[i], path, sizeof(path));
		p = prism_program__open_file(path, NULL);
		unlink(path);
		if (!p)
			bench_die("prism_program__open_file", -1);
		BENCH_CHECK(prism_program__load(p, s->dev));
		BENCH_CHECK(prism_server__add_program(s->srv, p));
		prism_program__close(p);
	}
	BENCH_CHECK(prism_server__start(s->srv));
}

static void server_close(struct server *s)
{
	prism_server__destroy(s->srv);
	prism_device__close(s->dev);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* @calls closed-loop calls of @entry; prints p50 and p99 in microseconds. */
static void run(const struct setup *su, struct server *s, struct prism_device *cdev,
                const char *entry, unsigned calls)
{
	PRISM_OPTS(prism_client_opts, copts, .program = entry, .transport = su->transport);
	uint64_t *lat = calloc(calls, sizeof(*lat));
	struct prism_client *cl;
	char addr[32];

	if (!lat)
		bench_die("calloc", -1);
	fill_freelist(s);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", prism_server__port(s->srv));
	cl = su->local ? prism_client__connect_local(s->srv, &copts)
	               : prism_client__connect(cdev, addr, &copts);
	if (!cl)
		bench_die("connect", -1);
	for (unsigned i = 0; i < calls + 100; i++) {
		bool put = !strcmp(entry, "put");
		/* put(version, len); publish(s: slot i % 256, tagged: a newer tag each time) */
		struct prism_arg args[2] = {
		    {.name = put ? "version" : "s", .u64 = put ? i : 8u * (i % 256)},
		    {.name = put ? "len" : "tagged", .u64 = put ? 16 : (uint64_t)(i + 1) << 32},
		};
		struct prism_call c = {.sz = sizeof(c), .entry = entry, .args = args, .nargs = 2};
		double t0;

		if (gap_us)
			usleep(gap_us);
		t0 = bench_now();
		BENCH_CHECK(prism_client__invoke(cl, &c, NULL));
		if (i >= 100) /* the first 100 warm up */
			lat[i - 100] = (uint64_t)((bench_now() - t0) * 1e9);
	}
	prism_client__close(cl);
	qsort(lat, calls, sizeof(*lat), cmp_u64);
	printf("setup=%s program=%s calls=%u p50_us=%.1f p99_us=%.1f\n", su->name, entry, calls,
	       (double)lat[calls / 2] / 1e3, (double)lat[(size_t)calls * 99 / 100] / 1e3);
	fflush(stdout);
	free(lat);
}

int main(int argc, char **argv)
{
	unsigned calls = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 3000;

	gap_us = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 0;
	char self[PATH_MAX], prismc[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0 || calls == 0 || calls > N_OBJECTS - 100) {
		fprintf(stderr, "usage: bench_serial [CALLS] (1..%u)\n", N_OBJECTS - 100);
		return 2;
	}
	self[n] = 0;
	if (getenv("PRISM_TEST_LOG"))
		prism_set_log_fn(prism_log_stderr, NULL, PRISM_LOG_DEBUG);
	snprintf(prismc, sizeof(prismc), "%s/prismc", dirname(self));
	if (getenv("PRISMC"))
		snprintf(prismc, sizeof(prismc), "%s", getenv("PRISMC"));
	printf("bench_serial: closed loop, one call in flight, %u us between calls; put "
	       "(serial) and publish (one window) of lib/chains/prism_ops.prism\n",
	       gap_us);
	for (size_t i = 0; i < sizeof(setups) / sizeof(setups[0]); i++) {
		const struct setup *su = &setups[i];
		struct prism_device *cdev = NULL;
		struct server s;

		server_open(&s, !su->local, prismc);
		if (!su->local && !(cdev = prism_device__open("sim", NULL)))
			bench_die("prism_device__open", -1);
		for (size_t e = 0; e < sizeof(entries) / sizeof(entries[0]); e++)
			run(su, &s, cdev, entries[e], calls);
		prism_device__close(cdev);
		server_close(&s);
	}
	return 0;
}
