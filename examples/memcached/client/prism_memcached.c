/* SPDX-License-Identifier: MIT */
/*
 * prism_memcached.c - libprism-memcached: offloaded gets with a libmemcached
 * fallback.
 *
 * Owns: attaching to a memcached's offload (its prism_* stats: index size,
 * hash seed, largest item, lease, clock), the client side of the get offload
 * (examples/memcached/memcached_get.prism: XXH3-64 fingerprint and two slots),
 * and every check that decides whether the returned bytes are this key's
 * current item (the item layout itself is mc_item.c's).
 *
 * Must not: accept bytes it cannot prove came from a live or quarantined item
 * of this key: the full key, the header's lengths against the bytes received,
 * the expiry time, and a round trip shorter than half the server's lease.
 */
#include "prism_memcached.h"
#include "mc_item.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <prism/prism.h>
#include <xxhash.h>

#define ALT_MUL 0x5bd1e995u

struct prism_mc {
	memcached_st *memc;
	struct prism_device *dev;
	struct prism_client *cl;
	uint64_t seed;
	uint32_t nslots, max_item;
	double lease_ms; /* what the client accepts: half the server's lease */
	int64_t process_started;
	int port;
	uint8_t *buf;
	struct prism_mc_stats st;
};

struct stat_ctx {
	struct prism_mc *pm;
	int seen;
};

static memcached_return_t stat_cb(const memcached_instance_st *server, const char *key,
                                  size_t key_length, const char *value, size_t value_length,
                                  void *context)
{
	struct stat_ctx *s = context;
	char k[64], v[64];

	(void)server;
	if (key_length >= sizeof(k) || value_length >= sizeof(v))
		return MEMCACHED_SUCCESS;
	memcpy(k, key, key_length);
	k[key_length] = '\0';
	memcpy(v, value, value_length);
	v[value_length] = '\0';
	if (!strcmp(k, "prism_index_slots"))
		s->pm->nslots = (uint32_t)strtoul(v, NULL, 10), s->seen |= 1;
	else if (!strcmp(k, "prism_seed"))
		s->pm->seed = strtoull(v, NULL, 10), s->seen |= 2;
	else if (!strcmp(k, "prism_max_item"))
		s->pm->max_item = (uint32_t)strtoul(v, NULL, 10), s->seen |= 4;
	else if (!strcmp(k, "prism_lease_ms"))
		s->pm->lease_ms = strtod(v, NULL) / 2, s->seen |= 8;
	else if (!strcmp(k, "prism_process_started"))
		s->pm->process_started = strtoll(v, NULL, 10), s->seen |= 16;
	else if (!strcmp(k, "prism_port"))
		s->pm->port = atoi(v), s->seen |= 32;
	return MEMCACHED_SUCCESS;
}

struct prism_mc *prism_mc_attach(memcached_st *memc, const char *offload, memcached_return_t *rc)
{
	struct prism_mc *pm = calloc(1, sizeof(*pm));
	struct stat_ctx s = {pm, 0};
	const memcached_instance_st *srv;
	char addr[300];
	memcached_return_t r;

	if (!pm) {
		*rc = MEMCACHED_MEMORY_ALLOCATION_FAILURE;
		return NULL;
	}
	pm->memc = memc;
	srv = memcached_server_instance_by_position(memc, 0);
	r = srv ? memcached_stat_execute(memc, NULL, stat_cb, &s) : MEMCACHED_NO_SERVERS;
	if (r != MEMCACHED_SUCCESS || s.seen != 63 || !pm->nslots ||
	    (pm->nslots & (pm->nslots - 1)) || pm->max_item < 64) {
		*rc = r != MEMCACHED_SUCCESS ? r : MEMCACHED_NOT_SUPPORTED;
		free(pm);
		return NULL;
	}
	if (offload)
		snprintf(addr, sizeof(addr), "%s", offload);
	else
		snprintf(addr, sizeof(addr), "%s:%d", memcached_server_name(srv), pm->port);
	pm->buf = malloc(pm->max_item);
	pm->dev = prism_device__open("sim", NULL);
	pm->cl = pm->dev ? prism_client__connect(pm->dev, addr, NULL) : NULL;
	if (!pm->buf || !pm->cl) {
		*rc = MEMCACHED_CONNECTION_FAILURE;
		prism_mc_detach(pm);
		return NULL;
	}
	*rc = MEMCACHED_SUCCESS;
	return pm;
}

void prism_mc_detach(struct prism_mc *pm)
{
	if (!pm)
		return;
	prism_client__close(pm->cl);
	prism_device__close(pm->dev);
	free(pm->buf);
	free(pm);
}

void prism_mc_set_lease_ms(struct prism_mc *pm, double ms)
{
	pm->lease_ms = ms;
}

void prism_mc_get_stats(const struct prism_mc *pm, struct prism_mc_stats *st)
{
	*st = pm->st;
}

static double mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The value of @key in the @n bytes the NIC returned, or NULL (rejected). */
static char *check_item(struct prism_mc *pm, const uint8_t *it, size_t n, const char *key,
                        size_t klen, size_t *vlen, uint32_t *flags, memcached_return_t *error)
{
	struct mc_item_view iv;
	char *v;

	*error = MEMCACHED_FAILURE;
	if (mc_item_parse(it, n, &iv) || iv.nkey != klen || memcmp(iv.key, key, klen))
		return NULL;
	if (iv.exptime && (int64_t)iv.exptime <= (int64_t)time(NULL) - pm->process_started + 1) {
		pm->st.expired++;
		*error = MEMCACHED_NOTFOUND;
		return NULL;
	}
	if (!(v = malloc(iv.nvalue + 1))) {
		*error = MEMCACHED_MEMORY_ALLOCATION_FAILURE;
		return NULL;
	}
	memcpy(v, iv.value, iv.nvalue);
	v[iv.nvalue] = '\0';
	*vlen = iv.nvalue;
	if (flags)
		*flags = iv.client_flags;
	*error = MEMCACHED_SUCCESS;
	return v;
}

/* One offloaded get: the value, or NULL with *error (MEMCACHED_TIMEOUT: the
 * round trip outlasted the lease). */
static char *get_once(struct prism_mc *pm, const char *key, size_t key_length, size_t *value_length,
                      uint32_t *flags, uint64_t *virt_ns, memcached_return_t *error)
{
	uint64_t h = XXH3_64bits_withSeed(key, key_length, pm->seed);
	uint32_t fp = (uint32_t)(h >> 40) ? (uint32_t)(h >> 40) : 1;
	uint32_t b1 = (uint32_t)h & (pm->nslots - 1), b2 = (b1 ^ (fp * ALT_MUL)) & (pm->nslots - 1);
	struct prism_arg args[3] = {
	    {.name = "fp", .u64 = fp},
	    {.name = "s1", .u64 = (uint64_t)b1 * 16},
	    {.name = "s2", .u64 = (uint64_t)b2 * 16},
	};
	struct prism_call c = {.sz = sizeof(c),
	                       .entry = "get",
	                       .args = args,
	                       .nargs = 3,
	                       .result = pm->buf,
	                       .result_cap = pm->max_item};
	double t0 = mono_ms(), dt;
	int err = prism_client__invoke(pm->cl, &c, NULL);

	dt = mono_ms() - t0;
	if (virt_ns)
		*virt_ns = c.virt_ns;
	if (err) {
		*error = MEMCACHED_CONNECTION_FAILURE;
		return NULL;
	}
	if (!c.ret_site) {
		pm->st.misses++;
		*error = MEMCACHED_NOTFOUND;
		return NULL;
	}
	if (dt >= pm->lease_ms) {
		/* The item may have been freed and reused while we read it. */
		pm->st.lease_rejects++;
		*error = MEMCACHED_TIMEOUT;
		return NULL;
	}
	char *v = check_item(pm, pm->buf, c.ret_len, key, key_length, value_length, flags, error);
	if (!v && *error == MEMCACHED_FAILURE)
		pm->st.rejected++;
	return v;
}

/* A round trip over the lease says nothing about the item, only that its
 * bytes cannot be trusted: ask the offload again (a stalled client, or a
 * daemon whose memcached is gone, then still gets its answer offloaded). */
#define LEASE_TRIES 3

char *prism_mc_get_offloaded(struct prism_mc *pm, const char *key, size_t key_length,
                             size_t *value_length, uint32_t *flags, uint64_t *virt_ns,
                             memcached_return_t *error)
{
	char *v = NULL;

	for (int i = 0; i < LEASE_TRIES; i++) {
		v = get_once(pm, key, key_length, value_length, flags, virt_ns, error);
		if (v || *error != MEMCACHED_TIMEOUT)
			break;
	}
	return v;
}

char *prism_mc_get(struct prism_mc *pm, const char *key, size_t key_length, size_t *value_length,
                   uint32_t *flags, memcached_return_t *error)
{
	char *v;

	pm->st.gets++;
	v = prism_mc_get_offloaded(pm, key, key_length, value_length, flags, NULL, error);
	if (v) {
		pm->st.offloaded++;
		return v;
	}
	pm->st.fallbacks++;
	return memcached_get(pm->memc, key, key_length, value_length, flags, error);
}
