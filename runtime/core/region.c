/* SPDX-License-Identifier: MIT */
/*
 * core/region.c - named memory regions of a device.
 *
 * Owns: the per-device registry of named regions, their registration with
 * the backend (each region its own MR, so its keys bound exactly that
 * region: docs/contracts.md contract 5) on every shard of the device, memfd-backed
 * created regions, and the use count that keeps a region alive while a
 * loaded program is bound to it.
 * Must not: know about programs or connections beyond the use count.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/core.h"
#include "core/opts.h"

unsigned core_access_to_backend(unsigned a)
{
	unsigned b = CORE_ACCESS_LOCAL_WRITE;

	if (a & PRISM_ACCESS_READ)
		b |= CORE_ACCESS_REMOTE_READ;
	if (a & PRISM_ACCESS_WRITE)
		b |= CORE_ACCESS_REMOTE_WRITE;
	if (a & PRISM_ACCESS_ATOMIC)
		b |= CORE_ACCESS_REMOTE_ATOMIC;
	return b;
}

struct prism_region *core_region_find(struct prism_device *dev, const char *name)
{
	struct prism_region *r;

	pthread_mutex_lock(&dev->reg_lock);
	for (r = dev->regions; r; r = r->next)
		if (!strcmp(r->name, name))
			break;
	pthread_mutex_unlock(&dev->reg_lock);
	return r;
}

/* Deregister @r on shards [0, n). */
static void deregister_shards(struct prism_region *r, unsigned n)
{
	const struct core_backend_ops *ops = r->dev->ops;
	int err = 0;

	for (unsigned i = 0; i < n; i++) {
		int e = ops->dereg_mr(i ? r->more[i - 1].mr : r->mr);

		err = err ? err : e;
	}
	if (err)
		core_warn("region '%s': deregistration: %s", r->name, prism_strerror(err));
	free(r->more);
	r->more = NULL;
}

/*
 * Register @r on every shard of its device, in the shard's default
 * protection domain: a check that the NIC takes the memory, and the keys
 * the application's own one-sided paths use (the demo's baseline).  No
 * connection's QP is in that PD: each connection registers the region
 * again in its own PD with the program's declared rights (inst_prot.c), so
 * these keys reach nothing a client can address.
 */
static int register_shards(struct prism_device *dev, struct prism_region *r)
{
	unsigned acc = core_access_to_backend(r->access), i;
	int err;

	if (dev->n_shards > 1 && !(r->more = calloc(dev->n_shards - 1, sizeof(*r->more))))
		return -ENOMEM;
	for (i = 0; i < dev->n_shards; i++) {
		struct core_be_mr **mr = i ? &r->more[i - 1].mr : &r->mr;
		struct core_mr_info *keys = i ? &r->more[i - 1].keys : &r->keys;

		if ((err =
		         dev->ops->reg_mr(dev->shards[i].be, NULL, r->addr, r->len, acc, mr, keys)))
			break;
	}
	if (i < dev->n_shards) {
		deregister_shards(r, i);
		return err;
	}
	return 0;
}

/* Common path: validate, register with the backend, link.  0 or negative. */
static int region_add(struct prism_device *dev, const char *name, void *addr, size_t len,
                      unsigned access, int fd, bool mapped, struct prism_region **out)
{
	struct prism_region *r;
	int err;

	if (!dev || !addr || !len)
		return -EINVAL;
	if (!core_name_valid(name)) {
		core_err("region: invalid name '%s'", name ? name : "(null)");
		return -EINVAL;
	}
	if (access & ~(unsigned)(PRISM_ACCESS_READ | PRISM_ACCESS_WRITE | PRISM_ACCESS_ATOMIC)) {
		core_err("region '%s': unknown access bits 0x%x", name, access);
		return -EINVAL;
	}
	if (!access)
		access = PRISM_ACCESS_READ;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->dev = dev;
	r->addr = addr;
	r->nic_addr = (uintptr_t)addr;
	r->len = len;
	r->access = access;
	r->fd = fd;
	r->mapped = mapped;

	pthread_mutex_lock(&dev->reg_lock);
	for (struct prism_region *o = dev->regions; o; o = o->next) {
		if (!strcmp(o->name, name)) {
			pthread_mutex_unlock(&dev->reg_lock);
			core_err("region '%s': already registered on device %s", name, dev->name);
			free(r);
			return -PRISM_E_EXISTS;
		}
	}
	err = register_shards(dev, r);
	if (err) {
		pthread_mutex_unlock(&dev->reg_lock);
		core_err("region '%s': registration failed: %s", name, prism_strerror(err));
		free(r);
		return err;
	}
	r->next = dev->regions;
	dev->regions = r;
	pthread_mutex_unlock(&dev->reg_lock);
	core_dbg("region '%s': %zu bytes at %p, lkey 0x%x rkey 0x%x", name, len, addr, r->keys.lkey,
	         r->keys.rkey);
	*out = r;
	return 0;
}

PRISM_API struct prism_region *prism_device__register_region(struct prism_device *dev,
                                                             const char *name, void *addr,
                                                             size_t len,
                                                             const struct prism_region_opts *opts)
{
	struct prism_region *r;
	int err;

	if ((err = CORE_OPTS_CHECK(opts, access)))
		return core_fail_ptr(err);
	err = region_add(dev, name, addr, len, CORE_OPT(opts, access, 0), -1, false, &r);
	return err ? core_fail_ptr(err) : r;
}

struct prism_region *core_region_adopt(struct prism_device *dev, const char *name, int fd,
                                       void *addr, size_t len, unsigned access)
{
	struct prism_region *r;
	int err = region_add(dev, name, addr, len, access, fd, true, &r);

	return err ? core_fail_ptr(err) : r;
}

PRISM_API struct prism_region *prism_device__create_region(struct prism_device *dev,
                                                           const char *name, size_t len,
                                                           const struct prism_region_opts *opts)
{
	struct prism_region *r;
	void *addr;
	int fd, err;

	if ((err = CORE_OPTS_CHECK(opts, access)))
		return core_fail_ptr(err);
	if (!dev || !len)
		return core_fail_ptr(-EINVAL);
	if (!core_name_valid(name)) {
		core_err("region: invalid name '%s'", name ? name : "(null)");
		return core_fail_ptr(-EINVAL);
	}
	err = core_memfd_create(name, len, &fd, &addr);
	if (err) {
		core_err("region '%s': memfd of %zu bytes: %s", name, len, prism_strerror(err));
		return core_fail_ptr(err);
	}
	err = region_add(dev, name, addr, len, CORE_OPT(opts, access, 0), fd, true, &r);
	if (err) {
		munmap(addr, len);
		close(fd);
		return core_fail_ptr(err);
	}
	return r;
}

PRISM_API struct prism_region *prism_device__find_region(struct prism_device *dev, const char *name)
{
	struct prism_region *r;

	if (!dev || !name)
		return core_fail_ptr(-EINVAL);
	r = core_region_find(dev, name);
	return r ? r : core_fail_ptr(-ENOENT);
}

void core_region_retire(struct prism_region *r)
{
	struct prism_region **pp;

	pthread_mutex_lock(&r->dev->reg_lock);
	for (pp = &r->dev->regions; *pp && *pp != r; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = r->next;
	r->next = NULL;
	pthread_mutex_unlock(&r->dev->reg_lock);
}

bool core_region_in_use(struct prism_region *r)
{
	bool used;

	pthread_mutex_lock(&r->dev->reg_lock);
	used = r->users != 0;
	pthread_mutex_unlock(&r->dev->reg_lock);
	return used;
}

PRISM_API int prism_region__unregister(struct prism_region *r)
{
	struct prism_device *dev;
	struct prism_region **pp;

	if (!r)
		return -EINVAL;
	dev = r->dev;
	pthread_mutex_lock(&dev->reg_lock);
	if (r->users) {
		pthread_mutex_unlock(&dev->reg_lock);
		core_err("region '%s': still used by %u loaded program(s)", r->name, r->users);
		return -PRISM_E_BUSY;
	}
	for (pp = &dev->regions; *pp && *pp != r; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = r->next;
	pthread_mutex_unlock(&dev->reg_lock);
	deregister_shards(r, dev->n_shards);
	if (r->mapped)
		munmap(r->addr, r->len);
	if (r->fd >= 0)
		close(r->fd);
	free(r);
	return 0;
}

PRISM_API const char *prism_region__name(const struct prism_region *r)
{
	return r ? r->name : NULL;
}

PRISM_API void *prism_region__addr(const struct prism_region *r)
{
	return r ? r->addr : NULL;
}

PRISM_API uint64_t prism_region__nic_addr(const struct prism_region *r)
{
	return r ? r->nic_addr : 0;
}

PRISM_API size_t prism_region__size(const struct prism_region *r)
{
	return r ? r->len : 0;
}

PRISM_API int prism_region__fd(const struct prism_region *r)
{
	return r && r->fd >= 0 ? r->fd : -EBADF;
}
