/* SPDX-License-Identifier: MIT */
/*
 * core/device.c - prism devices: listing, opening by name, closing.
 *
 * Owns: the table of backends the runtime knows (name -> ops table), the
 * struct prism_device lifetime, and serialised backend progress.
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

/* Backends a device name can resolve to; "sim" is the default. */
static const struct {
	const char *name;
	const struct core_backend_ops *ops;
} backends[] = {
    {"sim", &core_sim_backend},
};

#define N_BACKENDS (sizeof(backends) / sizeof(backends[0]))

PRISM_API int prism_list_devices(const char **names, size_t cap)
{
	for (size_t i = 0; i < N_BACKENDS && i < cap; i++)
		names[i] = backends[i].name;
	return (int)N_BACKENDS;
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

PRISM_API struct prism_device *prism_device__open(const char *name,
                                                  const struct prism_device_opts *opts)
{
	const struct core_backend_ops *ops = NULL;
	struct prism_device *dev;
	const char *fw;
	int err;

	if ((err = CORE_OPTS_CHECK(opts, trace_path))) {
		core_err("device_opts: %s", prism_strerror(err));
		return core_fail_ptr(err);
	}
	if (!name)
		name = "sim";
	for (size_t i = 0; i < N_BACKENDS; i++)
		if (!strcmp(backends[i].name, name))
			ops = backends[i].ops;
	if (!ops) {
		core_err("device '%s': no such device (known: sim)", name);
		return core_fail_ptr(-PRISM_E_NODEV);
	}
	fw = CORE_OPT(opts, firmware, "relaxed");
	if (strcmp(fw, "relaxed") && strcmp(fw, "strict")) {
		core_err("device '%s': firmware profile '%s' is neither 'relaxed' nor 'strict'",
		         name, fw);
		return core_fail_ptr(-PRISM_E_CONFIG);
	}
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return core_fail_ptr(-ENOMEM);
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	dev->ops = ops;
	dev->threaded = CORE_OPT(opts, threaded, false);
	dev->node = CORE_OPT(opts, node, 0);
	while (!dev->node) /* unique enough among the processes of a test bed */
		dev->node = (uint32_t)random_u64();
	pthread_mutex_init(&dev->lock, NULL);
	pthread_mutex_init(&dev->reg_lock, NULL);

	struct core_dev_attr attr = {
	    .sz = sizeof(attr),
	    .seed = CORE_OPT(opts, seed, 0),
	    .relaxed_fw = !strcmp(fw, "relaxed"),
	    .hazard_policy = CORE_OPT(opts, hazard_fail, false) ? 2 : 1,
	    .threaded = dev->threaded,
	    .node = dev->node,
	    .log = be_log,
	    .log_ctx = dev,
	};
	pthread_mutex_init(&dev->transport_lock, NULL);
	if (ops == &core_sim_backend) {
		err =
		    core_sim_obs_create(CORE_OPT(opts, profile, "cx5"),
		                        CORE_OPT(opts, trace_path, NULL), dev->node, &dev->sim_obs);
		if (err)
			goto fail;
		attr.obs = core_sim_obs_get(dev->sim_obs);
	}
	err = ops->open(&attr, &dev->be);
	if (err) {
		core_err("device '%s': backend open failed: %s", name, prism_strerror(err));
		goto fail;
	}
	return dev;
fail:
	core_sim_obs_destroy(dev->sim_obs);
	pthread_mutex_destroy(&dev->lock);
	pthread_mutex_destroy(&dev->reg_lock);
	pthread_mutex_destroy(&dev->transport_lock);
	free(dev);
	return core_fail_ptr(err < 0 ? err : -PRISM_E_BACKEND);
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
	if (dev->transport)
		net_transport_destroy(dev->transport);
	dev->ops->close(dev->be); /* the trace observer outlives the engine */
	core_sim_obs_destroy(dev->sim_obs);
	pthread_mutex_destroy(&dev->transport_lock);
	pthread_mutex_destroy(&dev->lock);
	pthread_mutex_destroy(&dev->reg_lock);
	free(dev);
}

PRISM_API const char *prism_device__name(const struct prism_device *dev)
{
	return dev ? dev->name : NULL;
}

PRISM_API const char *prism_device__profile(const struct prism_device *dev)
{
	return dev && dev->sim_obs ? core_sim_obs_profile(dev->sim_obs) : NULL;
}

PRISM_API uint64_t prism_device__virt_ns(const struct prism_device *dev)
{
	if (!dev || !dev->ops->now_ns)
		return 0;
	return dev->ops->now_ns(dev->be);
}

int core_dev_progress(struct prism_device *dev)
{
	int err;

	if (dev->threaded || !dev->ops->progress)
		return 0;
	pthread_mutex_lock(&dev->lock);
	err = dev->ops->progress(dev->be);
	pthread_mutex_unlock(&dev->lock);
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
