/* SPDX-License-Identifier: MIT */
/*
 * tests/availability/bench_avail.c - a served client's latency and the
 * server's memory (docs/benchmarks.md, "Availability"), in three settings
 * on one in-process server over loopback TCP:
 *
 *   idle      the client alone (baseline);
 *   slow      a second client floods zero-length READs and never reads
 *             the responses (held open while the client is measured);
 *   idle-400  400 more connections that set up and then do nothing.
 *
 * For each: p50 / p99 of 2,000 gets (wall clock, one at a time), the
 * server process's heap in use (glibc) and resident set.  For the slow
 * reader also how many READs the server took before it stopped reading (or
 * dropped) it.
 */
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <prism/prism.h>

#include "chain/chainobj.h"
#include "core/proto.h"
#include "net/net.h"
#include "net/net_frame.h"
#include "tests/availability/avail_flood.h"
#include "tests/runtime/support/hashget_chain.h"
#include "tests/support/bench_stats.h"

#define NB         256u
#define TABLE_SIZE (NB * (HG_BUCKET_BYTES + HG_VALUE_BYTES) + 4096u)
#define GETS       2000
#define IDLE       400

static uint32_t keys[NB];

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static double heap_mb(void)
{
	struct mallinfo2 mi = mallinfo2();

	return (double)(mi.uordblks + mi.hblkhd) / 1048576.0;
}

static double rss_mb(void)
{
	unsigned long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%lu %lu", &size, &res) != 2)
			res = 0;
		fclose(f);
	}
	return (double)res * (double)sysconf(_SC_PAGESIZE) / 1048576.0;
}

/* @n gets; p50 and p99 in us; -1 when one failed. */
static int measure(struct prism_client *cl, const char *what)
{
	static double lat[GETS];

	for (int i = 0; i < GETS; i++) {
		uint8_t out[HG_RESULT_BYTES];
		struct prism_arg args[2];
		struct prism_call c;
		uint32_t b = (uint32_t)i % NB;
		double t0 = now_us();

		hg_get_call(&c, args, keys[b], b, out);
		if (prism_client__invoke(cl, &c, NULL)) {
			fprintf(stderr, "bench_avail: %s: get %d: %s\n", what, i,
			        prism_strerror(c.status));
			return -1;
		}
		lat[i] = now_us() - t0;
	}
	qsort(lat, GETS, sizeof(lat[0]), bench_cmp_double);
	printf("  %-9s p50 %7.1f us  p99 %8.1f us  heap %6.1f MB  rss %6.1f MB\n", what,
	       lat[GETS / 2], lat[GETS * 99 / 100], heap_mb(), rss_mb());
	return 0;
}

int main(void)
{
	struct prism_device *dev = prism_device__open("sim", NULL);
	struct prism_device *cdev = prism_device__open("sim", NULL);
	struct chainobj *o = hg_build(TABLE_SIZE);
	struct prism_region *table;
	struct prism_program *prog;
	struct prism_server *srv;
	struct prism_client *cl;
	struct hg_table t;
	char *yaml, addr[32];
	size_t yaml_len;
	uint64_t s = 42;
	int idle[IDLE], fd, rc = 1;
	struct net_oob_params peer;
	char why[256];
	bool dropped;

	if (!dev || !cdev || !o || chainobj_write_mem(o, 0, &yaml, &yaml_len, NULL))
		return 1;
	chainobj_free(o);
	for (uint32_t i = 0; i < NB; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		keys[i] = (uint32_t)(s & 0xffffff) | 1;
	}
	table = prism_device__create_region(dev, "table", TABLE_SIZE, NULL);
	t = (struct hg_table){prism_region__addr(table), TABLE_SIZE, NB};
	hg_fill(&t, keys, (uintptr_t)t.mem, 3);
	prog = prism_program__open_mem(yaml, yaml_len, NULL);
	PRISM_OPTS(prism_server_opts, so, .host = "127.0.0.1", .port = PRISM_PORT_ANY,
	           .rearm = PRISM_REARM_CPU, .max_conns_per_peer = IDLE + 8);
	srv = prism_server__create(dev, &so);
	if (!prog || !srv || prism_program__load(prog, dev) ||
	    prism_server__add_program(srv, prog) || prism_server__start(srv))
		return 1;
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", prism_server__port(srv));
	cl = prism_client__connect(cdev, addr, NULL);
	if (!cl)
		return 1;
	printf("availability: a served client's gets and the server's memory (one process)\n");
	if (measure(cl, "idle"))
		goto out;
	if (av_raw_connect_port(prism_server__port(srv), &fd, &peer, why, sizeof(why)))
		goto out;
	long sent = av_flood_reads(fd, peer.qpn, 0, 0, 0, 20000000ul, &dropped);

	printf("  slow reader: %ld zero-length READs taken, then %s\n", sent,
	       dropped ? "dropped" : "no longer read (its sends block)");
	if (measure(cl, "slow"))
		goto out;
	close(fd);
	for (int i = 0; i < IDLE; i++)
		if (av_raw_connect_port(prism_server__port(srv), &idle[i], &peer, why, sizeof(why)))
			goto out;
	if (measure(cl, "idle-400"))
		goto out;
	for (int i = 0; i < IDLE; i++)
		close(idle[i]);
	rc = 0;
out:
	prism_client__close(cl);
	prism_server__destroy(srv);
	prism_program__close(prog);
	prism_device__close(dev);
	prism_device__close(cdev);
	free(yaml);
	return rc;
}
