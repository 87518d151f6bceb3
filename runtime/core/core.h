/* SPDX-License-Identifier: MIT */
/*
 * core/core.h - the runtime core's internal objects (behind prism.h).
 *
 * Owns: the layouts of struct prism_device and struct prism_region, the
 * device's shards (one backend device, so one NIC thread, each; regions are
 * registered on every shard), the per-shard lock that serialises backend
 * progress, and the helpers the loader, server and client share (errno at
 * the API boundary, name checks).
 *
 * Must not: be installed or included by anything outside runtime/ and the
 * runtime's tests; know a backend's internals (only core/backend.h).
 */
#ifndef CORE_CORE_H
#define CORE_CORE_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <prism/prism.h>
#include <prism/wqe.h>

#include "core/backend.h"
#include "core/log.h"
#include "core/probe.h"

#define CORE_NAME_MAX 63u

/* A region's registration on shards 1..n-1 (shard 0's is r->mr / r->keys). */
struct core_region_shard {
	struct core_be_mr *mr;
	struct core_mr_info keys;
};

struct prism_region {
	struct prism_device *dev;
	struct prism_region *next;
	char name[CORE_NAME_MAX + 1];
	void *addr;
	uint64_t nic_addr; /* the address WQEs use: addr, or prismd's mapping */
	size_t len;
	unsigned access;       /* enum prism_access */
	int fd;                /* memfd of a created region, else -1 */
	bool mapped;           /* we mmap'ed addr (created / adopted regions) */
	unsigned users;        /* loaded programs bound to it */
	struct core_be_mr *mr; /* shard 0 */
	struct core_mr_info keys;
	struct core_region_shard *more; /* [dev->n_shards - 1]: the other shards */
};

struct core_sim_obs;
struct net_transport;

/*
 * One NIC of a device (prism_device_opts.nic_threads): its own backend
 * device, so its own NIC thread (threaded) or its own progress calls
 * (deterministic), its own node id, queues and transport.  A connection's
 * queues live wholly on one shard; regions are registered on every shard
 * at the same address (each shard has its own keys for them).
 */
struct core_shard {
	struct core_be_dev *be;
	uint32_t node;                   /* sim node id of this shard on the wire */
	struct core_sim_obs *sim_obs;    /* sim: cost profile observer */
	struct net_transport *transport; /* created at the first TCP connection */
	pthread_mutex_t lock;            /* serialises progress() */
};

#define CORE_MAX_SHARDS 64u
/* Device names prism_list_devices() reports at most (sim + RDMA devices). */
#define CORE_MAX_LISTED 16

struct prism_device {
	char name[32];
	const struct core_backend_ops *ops;
	struct core_be_dev *be; /* shard 0's (the device's own, for tools and tests) */
	bool threaded;          /* backend runs by itself: no progress() calls */
	uint32_t node;          /* sim node id of shard 0 (shard i: node + i) */
	unsigned n_shards;      /* NIC threads, >= 1 */
	struct core_shard *shards;
	unsigned next_shard; /* clients over TCP: round robin */
	pthread_mutex_t transport_lock;
	pthread_mutex_t reg_lock; /* the region list */
	struct prism_region *regions;
	/* the behaviour probe (core/probe.h), run on a backend device of its
	 * own opened with probe_attr, once, when a program first needs it */
	struct core_dev_attr probe_attr;
	pthread_mutex_t probe_lock;
	bool probed;
	struct core_probe_report probe;
};

/* Return @err (negative) as NULL + errno at the API boundary. */
static inline void *core_fail_ptr(int err)
{
	errno = err < 0 ? -err : err;
	return NULL;
}

/* Letters, digits, '_', '-', '.'; not empty; at most CORE_NAME_MAX bytes. */
bool core_name_valid(const char *name);

/* The device's behaviour probe report, run on first use (0 or an error). */
int core_dev_probe(struct prism_device *dev, const struct core_probe_report **out);

/* Backend progress of every shard in turn (no-op for self-running backends). */
int core_dev_progress(struct prism_device *dev);
/* Backend progress of shard @shard under its lock. */
int core_shard_progress(struct prism_device *dev, unsigned shard);
/* A peer on shard @shard itself (node id equal): fill its lid/gid from the
 * backend (port_addr) so that hardware can route to it.  0 or an error. */
int core_shard_self_addr(struct prism_device *dev, unsigned shard, struct core_qp_peer *peer);
/* Shard @shard's own RC address (lid, gid, mtu; zeros on the sim) for the setup exchange. */
void core_shard_addr(struct prism_device *dev, unsigned shard, uint16_t *lid, uint8_t *mtu,
                     uint8_t gid[16]);
/* The sim backend: connections over TCP carry its packets (runtime/net transport);
 * an RDMA NIC carries its own, TCP only sets the connection up. */
static inline bool core_dev_is_sim(const struct prism_device *dev)
{
	return dev->ops == &core_sim_backend;
}
/* Virtual clock of shard @shard in ns (0 on hardware). */
uint64_t core_shard_now_ns(const struct prism_device *dev, unsigned shard);

/* Keys of region @r on shard @shard. */
static inline const struct core_mr_info *core_region_keys(const struct prism_region *r,
                                                          unsigned shard)
{
	return shard ? &r->more[shard - 1].keys : &r->keys;
}

/* enum prism_access -> enum core_access (remote + local write as needed). */
unsigned core_access_to_backend(unsigned prism_access);

/* Region lookup under the registry lock; NULL when absent. */
struct prism_region *core_region_find(struct prism_device *dev, const char *name);

/*
 * Register @len bytes at @addr that this library maps (memfd @fd, owned
 * by the region from now on: closed and unmapped on unregister).
 */
struct prism_region *core_region_adopt(struct prism_device *dev, const char *name, int fd,
                                       void *addr, size_t len, unsigned access);

/* Shard @shard's TCP transport, created on first use (server_net.c); NULL on failure. */
struct net_transport *core_dev_transport(struct prism_device *dev, unsigned shard);

/* memfd helpers (core/memfd.c). */
/*
 * Take @r out of its device's name table, so that a region of the same name
 * can be registered (an application restarted under prismd sharing its
 * regions again).  Programs loaded on it keep it; prism_region__unregister
 * frees it once none does.
 */
void core_region_retire(struct prism_region *r);
/* Does a loaded program still use @r? */
bool core_region_in_use(struct prism_region *r);
int core_memfd_create(const char *name, size_t len, int *fd_out, void **addr_out);
/* Map a memfd another process sent; -PRISM_E_UNSEALED unless it is sealed
 * against shrinking (F_SEAL_SHRINK). */
int core_memfd_map(int fd, size_t *len_out, void **addr_out);

#endif /* CORE_CORE_H */
