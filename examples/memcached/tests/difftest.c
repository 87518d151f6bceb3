/* SPDX-License-Identifier: MIT */
/*
 * prism-mc-difftest - offloaded gets against memcached's own answers while
 * writers change the keys.
 *
 *   prism-mc-difftest --servers=H:P [--seconds=N] [--keys=N] [--writers=N]
 *                     [--readers=N] [--lease-ms=MS] [--flush-race]
 *
 * Writers (each owning a slice of the keys) overwrite with new sizes,
 * delete, set with a 2-second TTL, touch, incr counters and now and then
 * flush_all.  Every operation takes a number from one global counter before
 * it starts; a set's value is "<key>#<version>;" repeated to a length that
 * depends on the version, so a torn, foreign or stale-freed byte shows.
 * Readers get random keys through the offload alone (prism_mc_get_offloaded)
 * and through TCP (memcached_get) and accept a value of version v only if
 *   - every byte is the pattern of (key, v) at the length of v;
 *   - v >= the last set of the key completed before the get started, and
 *     v > the last delete of the key and the last flush_all completed before it;
 *   - v <= the counter when the get returned;
 *   - v was not set with a TTL that had run out (plus memcached's clock
 *     granularity) before the get started, unless a touch made it permanent.
 * Counters: incr results read back must not go backwards.
 * --flush-race: no readers; every 5 ms a flush_all goes out while the
 * writers run (a set may straddle it), then the writers pause and every key
 * written since the previous pause must be, offloaded, a miss or memcached's
 * own value (a straddling set is flushed or not, but the offload must agree).
 * --lease-ms sets the client's lease (tests pass a tiny one to force every
 * round trip over it: then no offloaded value may be accepted).
 *
 * Prints gets, offloaded hits, fallbacks, lease rejections and wrong
 * results; exit status 1 on any wrong result (or, with a forced lease, any
 * accepted offloaded value), 2 usage.
 *
 * Owns: the workload and the validity rule; the gets are libprism-memcached's.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "examples/memcached/client/prism_memcached.h"

#define MAX_VAL  1500u
#define NCTR     8u
#define TTL_S    2
#define TTL_SLOP 1.6 /* seconds past the TTL a server may still hold it (1 s clock) */

struct key_state {
	_Atomic uint64_t set_floor, del_floor; /* versions of completed operations */
	_Atomic uint64_t exp_v;                /* version set with a TTL, 0: none */
	_Atomic double exp_at;                 /* when exp_v runs out (monotonic s) */
	_Atomic bool dirty;                    /* --flush-race: written since the last audit */
};

static struct {
	const char *servers;
	unsigned seconds, keys, writers, readers;
	double lease_ms;
	bool flush_race;
	struct key_state *ks;
	_Atomic uint64_t clock, flush_floor;
	_Atomic uint64_t ctr_floor[NCTR];
	_Atomic bool stop;
	pthread_rwlock_t flush_lock; /* flush_all alone: no set straddles it */
	_Atomic uint64_t gets, hits, tcp_hits, fallbacks, lease_rejects, wrong, writes;
} g = {
    .flush_lock =
        PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP, /* flushes wait for no stream of sets */
    .seconds = 5,
    .keys = 2000,
    .writers = 2,
    .readers = 2};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static unsigned val_len(uint64_t v)
{
	return 48 + (unsigned)(mix(v) % MAX_VAL); /* at least one whole "key#version;" */
}

static size_t make_value(char *out, unsigned k, uint64_t v)
{
	char unit[48];
	int n = snprintf(unit, sizeof(unit), "%u#%llu;", k, (unsigned long long)v);
	unsigned len = val_len(v);

	for (unsigned i = 0; i < len; i++)
		out[i] = unit[i % (unsigned)n];
	return len;
}

static memcached_st *connect_mc(void)
{
	memcached_st *m = memcached_create(NULL);
	memcached_server_st *l = memcached_servers_parse(g.servers);

	if (!m || !l || memcached_server_push(m, l) != MEMCACHED_SUCCESS) {
		fprintf(stderr, "prism-mc-difftest: bad --servers\n");
		exit(2);
	}
	memcached_server_list_free(l);
	return m;
}

static void key_name(char *buf, size_t cap, unsigned k)
{
	snprintf(buf, cap, "dt:%u", k);
}

/* flush_all, then the counters again (called with every other writer out). */
static void flush_all(memcached_st *m)
{
	uint64_t f = ++g.clock;

	memcached_flush(m, 0);
	g.flush_floor = f;
	for (unsigned c = 0; c < NCTR; c++) {
		char ck[16];

		snprintf(ck, sizeof(ck), "ctr:%u", c);
		g.ctr_floor[c] = 0;
		memcached_set(m, ck, strlen(ck), "0", 1, 0, 0);
	}
	g.writes++;
}

static void *writer(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	memcached_st *m = connect_mc();
	char key[32], *val = malloc(MAX_VAL + 64);
	uint64_t s = mix(id + 77);

	while (!g.stop) {
		unsigned k = (unsigned)(mix(++s) % g.keys);
		unsigned op = (unsigned)(mix(++s) % 100);
		struct key_state *ks;

		k -= k % g.writers;
		k += id; /* this writer's slice */
		if (k >= g.keys)
			continue;
		ks = &g.ks[k];
		key_name(key, sizeof(key), k);
		if (op >= 96 && op < 97 && g.flush_race)
			continue; /* main() flushes */
		if (op >= 96 && op < 97) {
			if (id == 0 && (mix(s) % 40) == 0) {
				pthread_rwlock_wrlock(&g.flush_lock);
				flush_all(m);
				pthread_rwlock_unlock(&g.flush_lock);
			}
			continue;
		}
		pthread_rwlock_rdlock(&g.flush_lock);
		if (op < 60 || op >= 97) {
			bool ttl = op >= 97;
			uint64_t v = ++g.clock;
			size_t n = make_value(val, k, v);

			if (memcached_set(m, key, strlen(key), val, n, ttl ? TTL_S : 0, 0) ==
			    MEMCACHED_SUCCESS) {
				if (ttl) {
					ks->exp_at = now_s() + TTL_S;
					ks->exp_v = v;
				} else if (ks->exp_v) {
					ks->exp_v = 0;
				}
				ks->set_floor = v;
			}
		} else if (op < 75) {
			uint64_t d = ++g.clock;

			memcached_delete(m, key, strlen(key), 0);
			ks->del_floor = d;
		} else if (op < 85) {
			if (memcached_touch(m, key, strlen(key), 0) == MEMCACHED_SUCCESS)
				ks->exp_v = 0; /* permanent now */
		} else if (op < 96) {
			unsigned c = id % NCTR;
			uint64_t nv = 0;
			char ck[16];

			snprintf(ck, sizeof(ck), "ctr:%u", c);
			if (memcached_increment(m, ck, strlen(ck), 1, &nv) == MEMCACHED_SUCCESS)
				g.ctr_floor[c] = nv > g.ctr_floor[c] ? nv : g.ctr_floor[c];
		}
		ks->dirty = true;
		pthread_rwlock_unlock(&g.flush_lock);
		g.writes++;
	}
	free(val);
	memcached_free(m);
	return NULL;
}

/* Is @v (@n bytes) a value of key @k that a get over [@t0, now] may see? */
static bool valid(unsigned k, const char *v, size_t n, uint64_t set_floor, uint64_t del_floor,
                  uint64_t flush_floor, uint64_t exp_v, double exp_at, double t0)
{
	unsigned long long ver = 0;
	unsigned kk = 0;
	char want[MAX_VAL + 64];

	if (sscanf(v, "%u#%llu;", &kk, &ver) != 2 || kk != k)
		return false;
	if (n != make_value(want, k, ver) || memcmp(v, want, n))
		return false; /* torn, foreign or truncated */
	if (ver < set_floor || ver <= del_floor || ver <= flush_floor || ver > g.clock)
		return false; /* stale or from the future */
	if (exp_v == ver && t0 > exp_at + TTL_SLOP)
		return false; /* expired */
	return true;
}

static void *reader(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	memcached_st *m = connect_mc();
	memcached_return_t rc;
	struct prism_mc *pm = prism_mc_attach(m, NULL, &rc);
	uint64_t s = mix(id + 1000);
	char key[32];

	if (!pm) {
		fprintf(stderr, "prism-mc-difftest: no offload: %s\n", memcached_strerror(m, rc));
		g.wrong++;
		memcached_free(m);
		return NULL;
	}
	if (g.lease_ms > 0)
		prism_mc_set_lease_ms(pm, g.lease_ms);
	while (!g.stop) {
		unsigned k = (unsigned)(mix(++s) % g.keys);
		struct key_state *ks = &g.ks[k];
		uint64_t sf = ks->set_floor, df = ks->del_floor, ff = g.flush_floor;
		uint64_t ev = ks->exp_v;
		double ea = ks->exp_at, t0 = now_s();
		size_t n = 0;
		uint32_t flags;
		char *v;

		key_name(key, sizeof(key), k);
		v = prism_mc_get_offloaded(pm, key, strlen(key), &n, &flags, NULL, &rc);
		g.gets++;
		if (v) {
			g.hits++;
			if (g.lease_ms > 0 && g.lease_ms < 0.01)
				g.wrong++; /* a forced lease overrun must never be accepted */
			else if (!valid(k, v, n, sf, df, ff, ev, ea, t0)) {
				fprintf(stderr, "WRONG offloaded %s: %.40s (%zu bytes)\n", key, v,
				        n);
				g.wrong++;
			}
			free(v);
		} else {
			if (rc == MEMCACHED_TIMEOUT)
				g.lease_rejects++;
			g.fallbacks++;
		}
		/* The same rule for memcached's own answer (checks the checker). */
		v = memcached_get(m, key, strlen(key), &n, &flags, &rc);
		if (v) {
			g.tcp_hits++;
			if (!valid(k, v, n, sf, df, ff, ev, ea, t0)) {
				fprintf(stderr, "WRONG tcp %s: %.40s (%zu bytes)\n", key, v, n);
				g.wrong++;
			}
			free(v);
		}
		/* Counters never go backwards (a flush resets them: skip then). */
		unsigned c = (unsigned)(s % NCTR);
		char ck[16];
		uint64_t floor = g.ctr_floor[c], f0 = g.flush_floor;

		snprintf(ck, sizeof(ck), "ctr:%u", c);
		v = prism_mc_get_offloaded(pm, ck, strlen(ck), &n, &flags, NULL, &rc);
		if (v) {
			if (g.flush_floor == f0 && strtoull(v, NULL, 10) < floor &&
			    !(g.lease_ms > 0 && g.lease_ms < 0.01)) {
				fprintf(stderr, "WRONG counter %s: %s < %llu\n", ck, v,
				        (unsigned long long)floor);
				g.wrong++;
			}
			free(v);
		}
	}
	prism_mc_detach(pm);
	memcached_free(m);
	return NULL;
}

/* --flush-race, with every writer paused: each key written since the last
 * audit is answered by the offload as memcached answers it (or missed); the
 * number of disagreements. */
static unsigned long audit(memcached_st *m, struct prism_mc *pm)
{
	memcached_return_t rc;
	unsigned long bad = 0;

	for (unsigned k = 0; k < g.keys; k++) {
		char key[32], *v, *t;
		size_t n = 0, tn = 0;
		uint32_t flags;

		if (!g.ks[k].dirty)
			continue;
		g.ks[k].dirty = false;
		key_name(key, sizeof(key), k);
		v = prism_mc_get_offloaded(pm, key, strlen(key), &n, &flags, NULL, &rc);
		g.gets++;
		if (!v) {
			g.fallbacks++;
			continue;
		}
		g.hits++;
		t = memcached_get(m, key, strlen(key), &tn, &flags, &rc);
		if (!t || tn != n || memcmp(t, v, n)) {
			fprintf(stderr,
			        "WRONG offloaded %s after the writers stopped: %.40s; tcp %s\n",
			        key, v, t ? t : "(miss)");
			bad++;
		}
		free(t);
		free(v);
	}
	return bad;
}

/* --flush-race: flush_all among the writers' sets, then an audit, until
 * --seconds have passed. */
static void flush_rounds(void)
{
	memcached_st *m = connect_mc();
	memcached_return_t rc;
	struct prism_mc *pm = prism_mc_attach(m, NULL, &rc);
	struct timespec before = {0, 5 * 1000 * 1000}, after = {0, 2 * 1000 * 1000};
	double end = now_s() + g.seconds;

	if (!pm) {
		fprintf(stderr, "prism-mc-difftest: no offload: %s\n", memcached_strerror(m, rc));
		g.wrong++;
		memcached_free(m);
		return;
	}
	while (now_s() < end) {
		nanosleep(&before, NULL);
		memcached_flush(m, 0); /* no lock: sets straddle it */
		g.writes++;
		nanosleep(&after, NULL);
		pthread_rwlock_wrlock(&g.flush_lock);
		g.wrong += audit(m, pm);
		pthread_rwlock_unlock(&g.flush_lock);
	}
	prism_mc_detach(pm);
	memcached_free(m);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"servers", required_argument, NULL, 's'}, {"seconds", required_argument, NULL, 't'},
	    {"keys", required_argument, NULL, 'k'},    {"writers", required_argument, NULL, 'w'},
	    {"readers", required_argument, NULL, 'r'}, {"lease-ms", required_argument, NULL, 'l'},
	    {"flush-race", no_argument, NULL, 'f'},    {NULL, 0, NULL, 0},
	};
	pthread_t t[64];
	unsigned nt = 0;
	int o;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 's':
			g.servers = optarg;
			break;
		case 't':
			g.seconds = (unsigned)atoi(optarg);
			break;
		case 'k':
			g.keys = (unsigned)atoi(optarg);
			break;
		case 'w':
			g.writers = (unsigned)atoi(optarg);
			break;
		case 'r':
			g.readers = (unsigned)atoi(optarg);
			break;
		case 'l':
			g.lease_ms = atof(optarg);
			break;
		case 'f':
			g.flush_race = true;
			break;
		default:
			return 2;
		}
	}
	if (!g.servers || !g.keys || !g.writers || !g.readers || g.writers + g.readers > 64) {
		fprintf(stderr, "usage: prism-mc-difftest --servers=H:P [--seconds=N] [--keys=N] "
		                "[--writers=N] [--readers=N] [--lease-ms=MS] [--flush-race]\n");
		return 2;
	}
	g.ks = calloc(g.keys, sizeof(*g.ks));
	{
		memcached_st *m = connect_mc();

		memcached_flush(m, 0);
		for (unsigned c = 0; c < NCTR; c++) {
			char ck[16];

			snprintf(ck, sizeof(ck), "ctr:%u", c);
			memcached_set(m, ck, strlen(ck), "0", 1, 0, 0);
		}
		memcached_free(m);
	}
	for (unsigned i = 0; i < g.writers; i++)
		pthread_create(&t[nt++], NULL, writer, (void *)(uintptr_t)i);
	for (unsigned i = 0; i < g.readers && !g.flush_race; i++)
		pthread_create(&t[nt++], NULL, reader, (void *)(uintptr_t)i);
	struct timespec d = {(time_t)g.seconds, 0};
	if (g.flush_race)
		flush_rounds();
	else
		nanosleep(&d, NULL);
	g.stop = true;
	for (unsigned i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	printf("prism-mc-difftest: %llu writes; %llu offloaded gets: %llu hits, %llu fell back "
	       "(%llu lease rejections); %llu TCP hits; %llu wrong\n",
	       (unsigned long long)g.writes, (unsigned long long)g.gets, (unsigned long long)g.hits,
	       (unsigned long long)g.fallbacks, (unsigned long long)g.lease_rejects,
	       (unsigned long long)g.tcp_hits, (unsigned long long)g.wrong);
	free(g.ks);
	return g.wrong ? 1 : 0;
}
