/* SPDX-License-Identifier: MIT */
/*
 * prism-memcslap - a get load generator shaped like memcslap --test=get.
 *
 *   prism-memcslap --servers=H:P [--offload] [--concurrency=N]
 *                  [--execute-number=N] [--keys=N] [--value-size=N] [--no-load]
 *
 * Stores --keys keys of --value-size bytes through libmemcached (unless
 * --no-load), then runs --concurrency threads, each with its own connection
 * (and its own offload connection with --offload), each doing
 * --execute-number gets of random keys in a closed loop (one get in flight
 * per connection), every value checked.  Connections are made, one after the
 * other, and used for one get each before the clock starts, so both modes
 * time only gets.  Prints gets/s, the offloaded / fallback counts, wall-clock
 * latency percentiles (p50, p99, p99.9) and, for offloaded gets, the
 * virtual-clock median.
 *
 * Owns: the load loop and its report.  Exit status 0, 1 if a value was wrong
 * or a get failed, 2 usage.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <prism/prism.h>

#include "prism_memcached.h"

struct cfg {
	const char *servers;
	bool offload, load;
	unsigned conc, keys, vsize;
	unsigned long gets;
};

struct worker {
	const struct cfg *cfg;
	memcached_st *memc;
	struct prism_mc *pm; /* --offload: this connection's offload */
	pthread_barrier_t *start;
	unsigned id;
	uint64_t *lat_ns, *virt_ns;
	size_t nvirt;
	unsigned long wrong;
	struct prism_mc_stats st;
	pthread_t t;
};

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Key i's value: its own name repeated (any foreign byte shows). */
static void fill(char *v, unsigned len, const char *key)
{
	size_t kl = strlen(key);

	for (unsigned i = 0; i < len; i++)
		v[i] = key[i % kl];
}

/* One get of key @k; true when the value is key @k's. */
static bool get_one(struct worker *w, unsigned k, char *want, uint64_t *vns)
{
	const struct cfg *c = w->cfg;
	memcached_return_t rc;
	char key[32], *v;
	size_t len = 0;
	uint32_t flags;
	bool ok;

	snprintf(key, sizeof(key), "key:%08u", k);
	*vns = 0;
	v = w->pm ? prism_mc_get_offloaded(w->pm, key, strlen(key), &len, &flags, vns, &rc) : NULL;
	if (v) {
		w->st.offloaded++;
	} else {
		if (w->pm)
			w->st.fallbacks++;
		v = memcached_get(w->memc, key, strlen(key), &len, &flags, &rc);
	}
	fill(want, c->vsize, key);
	ok = v && len == c->vsize && !memcmp(v, want, len);
	free(v);
	return ok;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	const struct cfg *c = w->cfg;
	char *want = malloc(c->vsize);
	uint64_t s = 0x9e3779b97f4a7c15ull * (w->id + 1), vns;
	struct prism_mc_stats base = {0}, st;

	/* libmemcached connects at the first get: not on the clock */
	if (!want || !get_one(w, (unsigned)(mix(s - 1) % c->keys), want, &vns))
		w->wrong++;
	w->st = (struct prism_mc_stats){0};
	if (w->pm)
		prism_mc_get_stats(w->pm, &base);
	pthread_barrier_wait(w->start);
	for (unsigned long i = 0; i < c->gets && want; i++) {
		unsigned k = (unsigned)(mix(s + i) % c->keys);
		uint64_t t0 = mono_ns();
		size_t off = w->st.offloaded;

		if (!get_one(w, k, want, &vns))
			w->wrong++;
		w->lat_ns[i] = mono_ns() - t0;
		if (w->st.offloaded > off)
			w->virt_ns[w->nvirt++] = vns;
	}
	if (w->pm) {
		prism_mc_get_stats(w->pm, &st);
		w->st.misses = st.misses - base.misses;
		w->st.rejected = st.rejected - base.rejected;
		w->st.lease_rejects = st.lease_rejects - base.lease_rejects;
	}
	free(want);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double pct_us(const uint64_t *v, size_t n, double p)
{
	return n ? (double)v[(size_t)((double)(n - 1) * p)] / 1000.0 : 0.0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"servers", required_argument, NULL, 's'},
	    {"offload", no_argument, NULL, 'o'},
	    {"concurrency", required_argument, NULL, 'c'},
	    {"execute-number", required_argument, NULL, 'n'},
	    {"keys", required_argument, NULL, 'k'},
	    {"value-size", required_argument, NULL, 'z'},
	    {"no-load", no_argument, NULL, 'L'},
	    {NULL, 0, NULL, 0},
	};
	struct cfg c = {.conc = 1, .gets = 10000, .keys = 1000, .vsize = 64, .load = true};
	memcached_st *memc;
	memcached_server_st *list;
	struct worker *w;
	uint64_t *all, *virt, t0, t1;
	size_t n = 0, nv = 0;
	unsigned long wrong = 0;
	struct prism_mc_stats tot = {0};
	pthread_barrier_t start;
	int opt;

	while ((opt = getopt_long(argc, argv, "s:c:n:", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			c.servers = optarg;
			break;
		case 'o':
			c.offload = true;
			break;
		case 'c':
			c.conc = (unsigned)atoi(optarg);
			break;
		case 'n':
			c.gets = strtoul(optarg, NULL, 10);
			break;
		case 'k':
			c.keys = (unsigned)atoi(optarg);
			break;
		case 'z':
			c.vsize = (unsigned)atoi(optarg);
			break;
		case 'L':
			c.load = false;
			break;
		default:
			fprintf(stderr, "usage: prism-memcslap --servers=H:P [--offload] "
			                "[--concurrency=N] [--execute-number=N] [--keys=N] "
			                "[--value-size=N] [--no-load]\n");
			return 2;
		}
	}
	prism_set_log_fn(prism_log_stderr, NULL, PRISM_LOG_WARN); /* why an attach failed */
	if (!c.servers || !c.conc || !c.keys || !c.gets || c.conc > 256)
		return fprintf(stderr, "prism-memcslap: --servers needed, counts > 0\n"), 2;
	memc = memcached_create(NULL);
	list = memcached_servers_parse(c.servers);
	if (!memc || !list || memcached_server_push(memc, list) != MEMCACHED_SUCCESS)
		return fprintf(stderr, "prism-memcslap: bad --servers\n"), 2;
	memcached_server_list_free(list);
	if (c.load) {
		char key[32], *v = malloc(c.vsize);

		for (unsigned k = 0; k < c.keys; k++) {
			snprintf(key, sizeof(key), "key:%08u", k);
			fill(v, c.vsize, key);
			if (memcached_set(memc, key, strlen(key), v, c.vsize, 0, 0) !=
			    MEMCACHED_SUCCESS)
				return fprintf(stderr, "prism-memcslap: set failed\n"), 1;
		}
		free(v);
	}
	w = calloc(c.conc, sizeof(*w));
	all = malloc(sizeof(*all) * c.gets * c.conc);
	virt = malloc(sizeof(*virt) * c.gets * c.conc);
	if (!w || !all || !virt || pthread_barrier_init(&start, NULL, c.conc + 1))
		return fprintf(stderr, "prism-memcslap: out of memory\n"), 1;
	for (unsigned i = 0; i < c.conc; i++) {
		memcached_return_t rc;

		w[i] = (struct worker){.cfg = &c, .id = i, .start = &start};
		w[i].memc = memcached_clone(NULL, memc);
		w[i].lat_ns = malloc(sizeof(uint64_t) * c.gets);
		w[i].virt_ns = malloc(sizeof(uint64_t) * c.gets);
		if (!w[i].memc || !w[i].lat_ns || !w[i].virt_ns)
			return fprintf(stderr, "prism-memcslap: out of memory\n"), 1;
		/* One after the other: a server limits the setups in progress
		 * from one address. */
		if (c.offload && !(w[i].pm = prism_mc_attach(w[i].memc, NULL, &rc)))
			return fprintf(stderr, "prism-memcslap: no offload: %s\n",
			               memcached_strerror(w[i].memc, rc)),
			       1;
	}
	for (unsigned i = 0; i < c.conc; i++)
		if (pthread_create(&w[i].t, NULL, run, &w[i]))
			return fprintf(stderr, "prism-memcslap: cannot start a thread\n"), 1;
	pthread_barrier_wait(&start);
	t0 = mono_ns();
	for (unsigned i = 0; i < c.conc; i++)
		pthread_join(w[i].t, NULL);
	t1 = mono_ns();
	for (unsigned i = 0; i < c.conc; i++) {
		memcpy(all + n, w[i].lat_ns, sizeof(uint64_t) * c.gets);
		n += c.gets;
		memcpy(virt + nv, w[i].virt_ns, sizeof(uint64_t) * w[i].nvirt);
		nv += w[i].nvirt;
		wrong += w[i].wrong;
		tot.offloaded += w[i].st.offloaded;
		tot.fallbacks += w[i].st.fallbacks;
		tot.misses += w[i].st.misses;
		tot.rejected += w[i].st.rejected;
		tot.lease_rejects += w[i].st.lease_rejects;
		free(w[i].lat_ns);
		free(w[i].virt_ns);
		prism_mc_detach(w[i].pm);
		memcached_free(w[i].memc);
	}
	qsort(all, n, sizeof(*all), cmp_u64);
	qsort(virt, nv, sizeof(*virt), cmp_u64);
	printf("prism-memcslap: %s gets, %u connections, %u keys of %u bytes\n",
	       c.offload ? "offloaded" : "ordinary", c.conc, c.keys, c.vsize);
	printf("  %zu gets in %.3f s: %.0f gets/s; wrong %lu\n", n, (double)(t1 - t0) / 1e9,
	       (double)n / ((double)(t1 - t0) / 1e9), wrong);
	printf("  offloaded %llu, fallback %llu (not offloaded %llu, rejected %llu, lease %llu)\n",
	       (unsigned long long)tot.offloaded, (unsigned long long)tot.fallbacks,
	       (unsigned long long)tot.misses, (unsigned long long)tot.rejected,
	       (unsigned long long)tot.lease_rejects);
	printf("  latency wall: p50 %.1f us, p99 %.1f us, p99.9 %.1f us\n", pct_us(all, n, 0.5),
	       pct_us(all, n, 0.99), pct_us(all, n, 0.999));
	if (nv)
		printf("  latency virtual clock (offloaded, cx5): p50 %.2f us, p99 %.2f us\n",
		       pct_us(virt, nv, 0.5), pct_us(virt, nv, 0.99));
	free(all);
	free(virt);
	free(w);
	memcached_free(memc);
	return wrong ? 1 : 0;
}
