/* SPDX-License-Identifier: MIT */
/*
 * core/device.c - prism devices: listing, opening by name, closing.
 *
 * Owns: the table of backends the runtime knows (name -> ops table), the
 * struct prism_device lifetime with its shards (nic_threads backend
 * devices: node ids node + i, seeds seed + i, one cost observer each), and
 * serialised backend progress per shard.
 * Must not: know anything about a backend beyond its core_backend_ops;
 * regions, programs and connections live in their own files.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"
#include "core/device_sim.h"
#include "core/opts.h"
#include "net/net.h"

/*
 * Backends a device name can resolve to: "sim" (the default), "mlx5" (the
 * first mlx5 RDMA device), or the name of an RDMA device ("mlx5_0"), which
 * the mlx5 backend opens.
 */
static const struct {
	const char *name;
	const struct core_backend_ops *ops;
} backends[] = {
    {"sim", &core_sim_backend},
    {"mlx5", &core_mlx5_backend},
};

#define N_BACKENDS (sizeof(backends) / sizeof(backends[0]))

/* The names prism_list_devices() hands out: "sim", then every RDMA device. */
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static char listed[CORE_MAX_LISTED][CORE_NAME_MAX + 1];

PRISM_API int prism_list_devices(const char **names, size_t cap)
{
	char rdma[CORE_MAX_LISTED - 1][CORE_NAME_MAX + 1];
	int n = core_mlx5_device_names(rdma, CORE_MAX_LISTED - 1), total = 1;

	pthread_mutex_lock(&list_lock);
	snprintf(listed[0], sizeof(listed[0]), "sim");
	for (int i = 0; i < n; i++)
		snprintf(listed[total++], sizeof(listed[0]), "%.*s", (int)CORE_NAME_MAX, rdma[i]);
	for (int i = 0; i < total && (size_t)i < cap; i++)
		names[i] = listed[i];
	pthread_mutex_unlock(&list_lock);
	return total;
}

static uint64_t random_u64(void)
{
	uint64_t v = 0;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		v = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	}
	return v;
}

static void be_log(void *ctx, int level, const char *msg)
{
	struct prism_device *dev = ctx;

	core_log((enum prism_log_level)level, "device %s: %s", dev->name, msg);
}

/* Node id of shard @i: the device's, then the following ids (0 is never one). */
static uint32_t shard_node(uint32_t node, unsigned i)
{
	uint32_t n = node + i;

	return n < node ? n + 1 : n; /* wrapped past 0 */
}

/* Close shards [0, n) (their engines first: a trace observer outlives its engine). */
static void shards_close(struct prism_device *dev, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct core_shard *sh = &dev->shards[i];

		if (sh->transport)
			net_transport_destroy(sh->transport);
		if (sh->be)
			dev->ops->close(sh->be);
		core_sim_obs_destroy(sh->sim_obs);
		pthread_mutex_destroy(&sh->lock);
	}
}

/* Open shard @i from @base (the attributes shared by every shard). */
static int shard_open(struct prism_device *dev, unsigned i, const struct core_dev_attr *base,
                      const struct prism_device_opts *opts)
{
	struct core_shard *sh = &dev->shards[i];
	struct core_dev_attr attr = *base;
	int err;

	pthread_mutex_init(&sh->lock, NULL);
	sh->node = shard_node(dev->node, i);
	attr.node = sh->node;
	attr.seed = base->seed + i; /* shard 0 runs as an unsharded device does */
	if (dev->ops == &core_sim_backend) {
		err = core_sim_obs_create(CORE_OPT(opts, profile, "cx5"),
		                          CORE_OPT(opts, trace_path, NULL), sh->node, &sh->sim_obs);
		if (err)
			return err;
		attr.obs = core_sim_obs_get(sh->sim_obs);
	}
	err = dev->ops->open(&attr, &sh->be);
	if (err)
		core_err("device '%s': backend open failed (NIC thread %u): %s", dev->name, i,
		         prism_strerror(err));
	return err;
}

PRISM_API struct prism_device *prism_device__open(const char *name,
                                                  const struct prism_device_opts *opts)
{
	const struct core_backend_ops *ops = NULL;
	const char *be_name = NULL; /* the backend's device name (NULL: its first) */
	struct prism_device *dev;
	unsigned n_shards, opened = 0;
	const char *fw;
	int err;

	if ((err = CORE_OPTS_CHECK(opts, chaos))) {
		core_err("device_opts: %s", prism_strerror(err));
		return core_fail_ptr(err);
	}
	if (!name)
		name = "sim";
	for (size_t i = 0; i < N_BACKENDS; i++)
		if (!strcmp(backends[i].name, name))
			ops = backends[i].ops;
	if (!ops && core_mlx5_device_exists(name)) {
		ops = &core_mlx5_backend;
		be_name = name;
	}
	if (!ops) {
		const char *note = core_mlx5_note();

		core_err("device '%s': no such device (known: sim, mlx5 and the RDMA devices "
		         "prismc devices lists)%s%s",
		         name, note ? "; " : "", note ? note : "");
		return core_fail_ptr(-PRISM_E_NODEV);
	}
	fw = CORE_OPT(opts, firmware, "relaxed");
	if (strcmp(fw, "relaxed") && strcmp(fw, "strict")) {
		core_err("device '%s': firmware profile '%s' is neither 'relaxed' nor 'strict'",
		         name, fw);
		return core_fail_ptr(-PRISM_E_CONFIG);
	}
	n_shards = CORE_OPT(opts, nic_threads, 1u);
	if (n_shards > CORE_MAX_SHARDS) {
		core_err("device '%s': %u NIC threads; at most %u", name, n_shards,
		         CORE_MAX_SHARDS);
		return core_fail_ptr(-PRISM_E_CONFIG);
	}
	if (n_shards > 1 && CORE_OPT(opts, trace_path, NULL)) {
		core_err("device '%s': a trace follows one NIC thread: trace_path needs "
		         "nic_threads 1 (asked for %u)",
		         name, n_shards);
		return core_fail_ptr(-PRISM_E_CONFIG);
	}
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return core_fail_ptr(-ENOMEM);
	dev->shards = calloc(n_shards, sizeof(*dev->shards));
	if (!dev->shards) {
		free(dev);
		return core_fail_ptr(-ENOMEM);
	}
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	dev->ops = ops;
	dev->n_shards = n_shards;
	dev->threaded = CORE_OPT(opts, threaded, false);
	dev->node = CORE_OPT(opts, node, 0);
	while (!dev->node) /* unique enough among the processes of a test bed */
		dev->node = (uint32_t)random_u64();
	pthread_mutex_init(&dev->reg_lock, NULL);
	pthread_mutex_init(&dev->transport_lock, NULL);
	pthread_mutex_init(&dev->probe_lock, NULL);

	struct core_dev_attr attr = {
	    .sz = sizeof(attr),
	    .seed = CORE_OPT(opts, seed, 0),
	    .name = be_name,
	    .relaxed_fw = !strcmp(fw, "relaxed"),
	    .hazard_policy = CORE_OPT(opts, hazard_fail, false) ? 2 : 1,
	    .threaded = dev->threaded,
	    .chaos = CORE_OPT(opts, chaos, false),
	    .log = be_log,
	    .log_ctx = dev,
	};
	/* the probe's own backend device: same firmware and hazard policy,
	 * deterministic, no cost model or trace (its WQEs are nobody's events) */
	dev->probe_attr = attr;
	dev->probe_attr.threaded = false;
	dev->probe_attr.node = dev->node;
	for (; opened < n_shards; opened++)
		if ((err = shard_open(dev, opened, &attr, opts)))
			break;
	if (opened < n_shards) {
		shards_close(dev, opened + 1);
		pthread_mutex_destroy(&dev->probe_lock);
		pthread_mutex_destroy(&dev->reg_lock);
		pthread_mutex_destroy(&dev->transport_lock);
		free(dev->shards);
		free(dev);
		return core_fail_ptr(err < 0 ? err : -PRISM_E_BACKEND);
	}
	dev->be = dev->shards[0].be;
	return dev;
}

PRISM_API void prism_device__close(struct prism_device *dev)
{
	if (!dev)
		return;
	while (dev->regions) {
		struct prism_region *r = dev->regions;

		if (r->users)
			core_warn("device %s: region '%s' still used by %u program(s) at close",
			          dev->name, r->name, r->users);
		r->users = 0;
		prism_region__unregister(r);
	}
	shards_close(dev, dev->n_shards);
	pthread_mutex_destroy(&dev->probe_lock);
	pthread_mutex_destroy(&dev->transport_lock);
	pthread_mutex_destroy(&dev->reg_lock);
	free(dev->shards);
	free(dev);
}

int core_dev_probe(struct prism_device *dev, const struct core_probe_report **out)
{
	struct core_be_dev *be = NULL;
	int err = 0;

	pthread_mutex_lock(&dev->probe_lock);
	if (!dev->probed) {
		err = dev->ops->open(&dev->probe_attr, &be);
		if (!err) {
			memset(&dev->probe, 0, sizeof(dev->probe));
			err = core_probe_run(dev->ops, be, dev->probe_attr.node, CORE_PROBE__COUNT,
			                     &dev->probe);
			dev->ops->close(be);
		}
		dev->probed = !err;
		for (unsigned i = 0; !err && i < CORE_PROBE__COUNT; i++)
			core_dbg("device %s: probe %s: %s (%s)", dev->name,
			         core_probe_name((enum core_probe_id)i),
			         core_probe_verdict_name(dev->probe.v[i]), dev->probe.detail[i]);
	}
	pthread_mutex_unlock(&dev->probe_lock);
	if (err)
		core_err("device %s: behaviour probe failed: %s", dev->name, prism_strerror(err));
	*out = &dev->probe;
	return err;
}

PRISM_API const char *prism_device__name(const struct prism_device *dev)
{
	return dev ? dev->name : NULL;
}

PRISM_API const char *prism_device__profile(const struct prism_device *dev)
{
	return dev && dev->shards[0].sim_obs ? core_sim_obs_profile(dev->shards[0].sim_obs) : NULL;
}

uint64_t core_shard_now_ns(const struct prism_device *dev, unsigned shard)
{
	if (!dev->ops->now_ns)
		return 0;
	return dev->ops->now_ns(dev->shards[shard].be);
}

PRISM_API uint64_t prism_device__virt_ns(const struct prism_device *dev)
{
	uint64_t t = 0;

	if (!dev)
		return 0;
	for (unsigned i = 0; i < dev->n_shards; i++) {
		uint64_t s = core_shard_now_ns(dev, i);

		t = s > t ? s : t;
	}
	return t;
}

PRISM_API int prism_device__nic_threads(const struct prism_device *dev)
{
	return dev ? (int)dev->n_shards : -EINVAL;
}

int core_shard_progress(struct prism_device *dev, unsigned shard)
{
	struct core_shard *sh = &dev->shards[shard];
	struct net_transport *t;
	int err;

	if (dev->threaded || !dev->ops->progress)
		return 0;
	/* what the run sends to remote peers leaves at its end, one system
	 * call per link */
	t = __atomic_load_n(&sh->transport, __ATOMIC_ACQUIRE);
	if (t)
		net_transport_cork(t);
	pthread_mutex_lock(&sh->lock);
	err = dev->ops->progress(sh->be);
	pthread_mutex_unlock(&sh->lock);
	if (t)
		net_transport_uncork(t);
	return err;
}

int core_shard_self_addr(struct prism_device *dev, unsigned shard, struct core_qp_peer *peer)
{
	if (peer->node != dev->shards[shard].node || !dev->ops->port_addr)
		return 0;
	return dev->ops->port_addr(dev->shards[shard].be, peer);
}

void core_shard_addr(struct prism_device *dev, unsigned shard, uint16_t *lid, uint8_t *mtu,
                     uint8_t gid[16])
{
	struct core_qp_peer self = {0};

	if (dev->ops->port_addr)
		dev->ops->port_addr(dev->shards[shard].be, &self);
	*lid = self.lid;
	*mtu = self.mtu;
	memcpy(gid, self.gid, 16);
}

int core_dev_progress(struct prism_device *dev)
{
	int err = 0;

	/* In shard order: one thread driving a device runs it the same way each time. */
	for (unsigned i = 0; i < dev->n_shards && !err; i++)
		err = core_shard_progress(dev, i);
	return err;
}

bool core_name_valid(const char *name)
{
	size_t n = 0;

	if (!name || !*name)
		return false;
	for (const char *p = name; *p; p++, n++) {
		char c = *p;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.'))
			return false;
	}
	return n <= CORE_NAME_MAX;
}
