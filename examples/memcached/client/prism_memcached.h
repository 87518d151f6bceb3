/* SPDX-License-Identifier: MIT */
/*
 * prism_memcached.h - offloaded gets for libmemcached users.
 *
 * Owns: the public interface of libprism-memcached (pkg-config
 * prism-memcached).  Users keep their memcached_st for everything; they
 * attach the offload and swap memcached_get() for prism_mc_get(), which has
 * the same shape: it tries the NIC (a prism offload served by a memcached
 * built with --enable-prism, `-o prism=...`) and falls back to memcached_get()
 * for anything it cannot prove right (a miss, an item that is not indexed,
 * expired, too large, a wrong key, a round trip longer than half the lease).
 *
 *	memcached_st *memc = memcached("--SERVER=127.0.0.1:11211", ...);
 *	struct prism_mc *pm = prism_mc_attach(memc, NULL, &rc);
 *	char *v = prism_mc_get(pm, key, klen, &vlen, &flags, &rc);   // free(v)
 *
 * Must not: return a value the full-key, length and lease checks did not pass.
 */
#ifndef PRISM_MEMCACHED_H
#define PRISM_MEMCACHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libmemcached/memcached.h>

#ifdef __cplusplus
extern "C" {
#endif

struct prism_mc;

/*
 * Attach the offload of @memc's first server.  @offload: "host:port" of its
 * prism port, or NULL (the server's host and the port its `stats` report as
 * prism_port).  NULL on failure, with *@rc saying why (MEMCACHED_NOT_SUPPORTED:
 * the server has no offload).
 */
struct prism_mc *prism_mc_attach(memcached_st *memc, const char *offload, memcached_return_t *rc);
void prism_mc_detach(struct prism_mc *pm);

/* memcached_get()'s contract: a malloc'd, NUL-terminated value or NULL. */
char *prism_mc_get(struct prism_mc *pm, const char *key, size_t key_length, size_t *value_length,
                   uint32_t *flags, memcached_return_t *error);

/* The offload alone: MEMCACHED_SUCCESS with the value, or the reason it
 * would fall back (MEMCACHED_NOTFOUND: not offloaded; MEMCACHED_TIMEOUT:
 * lease exceeded three times in a row; MEMCACHED_FAILURE: rejected by a check).  @virt_ns: the
 * virtual-clock latency of the invocation (sim NICs), may be NULL. */
char *prism_mc_get_offloaded(struct prism_mc *pm, const char *key, size_t key_length,
                             size_t *value_length, uint32_t *flags, uint64_t *virt_ns,
                             memcached_return_t *error);

struct prism_mc_stats {
	uint64_t gets;          /* prism_mc_get calls */
	uint64_t offloaded;     /* answered by the NIC */
	uint64_t fallbacks;     /* answered by memcached_get */
	uint64_t misses;        /* no slot matched (not indexed, or no such key) */
	uint64_t rejected;      /* a slot matched but a check failed */
	uint64_t lease_rejects; /* the round trip exceeded half the lease */
	uint64_t expired;       /* the item's exptime had passed */
};

void prism_mc_get_stats(const struct prism_mc *pm, struct prism_mc_stats *st);

/* The lease the client enforces, in ms (half the server's); tests shrink it. */
void prism_mc_set_lease_ms(struct prism_mc *pm, double ms);

#ifdef __cplusplus
}
#endif

#endif
