/* SPDX-License-Identifier: MIT */
/*
 * sim_mr.c - memory regions, the checks every engine access goes through,
 * and the one function through which the engine writes host memory.
 *
 * Owns: the MR table (key = slot << 8 | generation byte, lkey == rkey),
 * access and bounds checks (inline, in sim_internal.h: every WQE and
 * packet makes a few), and write attribution: a write that lands in a
 * send queue's buffer records its writer per 64-byte block and emits a
 * PATCH event, so a later hazard can name the WQE that wrote the bytes.
 *
 * Must not: let any address outside a registered region through.  Checks
 * are overflow-safe for every 64-bit addr/len a WQE can carry.
 */
#include <stdlib.h>

#include "sim/sim_internal.h"

static int grow(void **arr, uint32_t *cap, size_t elem)
{
	uint32_t ncap = *cap ? *cap * 2 : 16;
	void *n = realloc(*arr, ncap * elem);

	if (!n)
		return -ENOMEM;
	memset((char *)n + *cap * elem, 0, (ncap - *cap) * elem);
	*arr = n;
	*cap = ncap;
	return 0;
}

int sim_mr_reg(struct sim_dev *dev, void *addr, size_t len, unsigned access, struct sim_mr **out)
{
	struct sim_mr *mr;
	uint32_t slot;
	int rc = 0;

	if (!dev || !out || !addr || len == 0 || len > (1ull << 40) || (access & ~0xfu))
		return -EINVAL;
	/* IB: remote write/atomic need local write (ibv_reg_mr EINVAL) */
	if ((access & (SIM_ACCESS_REMOTE_WRITE | SIM_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & SIM_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	pthread_mutex_lock(&dev->lock);
	for (slot = 1; slot < dev->mrs_cap && dev->mrs[slot]; slot++)
		;
	if (slot >= dev->mrs_cap) {
		rc = grow((void **)&dev->mrs, &dev->mrs_cap, sizeof(*dev->mrs));
		if (rc)
			goto out;
	}
	if (slot >= (1u << 24)) {
		rc = -ENOSPC;
		goto out;
	}
	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		rc = -ENOMEM;
		goto out;
	}
	mr->dev = dev;
	mr->addr = addr;
	mr->len = len;
	mr->access = access;
	mr->slot = slot;
	dev->mr_gen = (uint8_t)(dev->mr_gen * 5u + 3u);
	mr->key = slot << 8 | dev->mr_gen;
	if (mr->key == PRISM_INVALID_LKEY)
		mr->key ^= 1;
	dev->mrs[slot] = mr;
	dev->nmrs++;
	*out = mr;
out:
	pthread_mutex_unlock(&dev->lock);
	return rc;
}

int sim_mr_dereg(struct sim_mr *mr)
{
	struct sim_dev *dev;

	if (!mr)
		return -EINVAL;
	dev = mr->dev;
	pthread_mutex_lock(&dev->lock);
	dev->mrs[mr->slot] = NULL;
	dev->nmrs--;
	pthread_mutex_unlock(&dev->lock);
	free(mr);
	return 0;
}

uint32_t sim_mr_lkey(const struct sim_mr *mr)
{
	return mr->key;
}

uint32_t sim_mr_rkey(const struct sim_mr *mr)
{
	return mr->key;
}

void sim_mr_destroy_all(struct sim_dev *dev)
{
	for (uint32_t i = 0; i < dev->mrs_cap; i++) {
		free(dev->mrs[i]);
		dev->mrs[i] = NULL;
	}
}

/* Index of the first send-queue range that ends above @a (dev->nsqr if
 * none): the range holding @a, or the next one above it.  The range the
 * last write landed in is tried first (RedN's patches go to a few queues),
 * then a binary search. */
static uint32_t sq_range_from(struct sim_dev *dev, uintptr_t a)
{
	uint32_t lo = 0, hi = dev->nsqr, h = dev->sqr_hint;

	if (h < hi && dev->sqr[h].lo <= a && a < dev->sqr[h].hi)
		return h;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (dev->sqr[mid].hi <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	dev->sqr_hint = lo;
	return lo;
}

static inline void attribute(struct sim_dev *dev, uintptr_t lo, uintptr_t hi, const uint8_t *src,
                             const struct sim_writer *w, sim_time_t t)
{
	const struct sim_sqrange *last = &dev->sqr[dev->sqr_hint];
	uintptr_t base = lo;

	/* most often wholly inside the queue the last write went to */
	if (dev->sqr_hint < dev->nsqr && last->lo <= lo && hi <= last->hi) {
		sim_sq_patch(last->qp, (uint32_t)(lo - last->lo), src, (uint32_t)(hi - lo), w, t);
		return;
	}

	for (uint32_t i = sq_range_from(dev, lo); lo < hi && i < dev->nsqr; i++) {
		struct sim_sqrange *r = &dev->sqr[i];
		uintptr_t end;

		if (r->lo >= hi)
			return; /* the next send queue starts above the write */
		if (r->lo > lo)
			lo = r->lo;
		end = hi < r->hi ? hi : r->hi;
		sim_sq_patch(r->qp, (uint32_t)(lo - r->lo), src + (lo - base), (uint32_t)(end - lo),
		             w, t);
		lo = end;
	}
}

/* memmove for the small writes a chain makes into its own WQEs (fields of
 * 1 to 16 bytes): every load before any store, so overlap is safe. */
static inline void move_small(uint8_t *d, const uint8_t *s, size_t n)
{
	if (n >= 8) {
		uint64_t a, b;

		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n >= 4) {
		uint32_t a, b;

		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		memcpy(d, &a, 4);
		memcpy(d + n - 4, &b, 4);
	} else {
		uint8_t a = s[0], b = s[n / 2], c = s[n - 1];

		d[0] = a;
		d[n / 2] = b;
		d[n - 1] = c;
	}
}

void sim_mem_read(void *dst, const uint8_t *src, size_t len)
{
	uint8_t *d = dst;
	size_t head = (size_t)(-(uintptr_t)src & 7u);

	if (head > len)
		head = len;
	for (size_t i = 0; i < head; i++)
		d[i] = __atomic_load_n(src + i, __ATOMIC_RELAXED);
	src += head;
	d += head;
	len -= head;
	for (; len >= 8; len -= 8, src += 8, d += 8) {
		uint64_t v = __atomic_load_n((const uint64_t *)(const void *)src, __ATOMIC_RELAXED);

		memcpy(d, &v, 8);
	}
	for (size_t i = 0; i < len; i++)
		d[i] = __atomic_load_n(src + i, __ATOMIC_RELAXED);
}

void sim_mem_write(struct sim_dev *dev, uint8_t *dst, const void *src, size_t len,
                   const struct sim_writer *w, sim_time_t t)
{
	uintptr_t lo = (uintptr_t)dst, hi = lo + len;

	if (len == 0)
		return;
	dev->wseq++;
	if (hi > dev->sqr_lo && lo < dev->sqr_hi)
		attribute(dev, lo, hi, src, w, t); /* before the bytes change */
	if (len <= 16)
		move_small(dst, src, len);
	else
		memmove(dst, src, len);
}
