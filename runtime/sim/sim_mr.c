/* SPDX-License-Identifier: MIT */
/*
 * sim_mr.c - memory regions, the checks every engine access goes through,
 * and the engine's writes of host memory (sim_mem_write_rx /
 * sim_mem_write_result, inline in sim_internal.h, send a write that may
 * land in a send queue here).
 *
 * Owns: protection domains, the MR table (an open-addressing hash keyed by
 * the MR's key; keys come from getrandom(2), lkey == rkey), access and
 * bounds checks (inline, in sim_internal.h: every WQE and packet makes a
 * few; they also check the PD and, for remote access, the QP's rights)
 * with each QP's key memos (per use: the key last granted, and its range;
 * filled here, cleared here when the MR goes),
 * and write attribution: a write that lands in a send queue's buffer
 * records its writer (built from the request or outstanding entry only
 * then) in each 64-byte block that holds a fetched WQE not yet run and
 * emits a PATCH event, so a later hazard can name the WQE that wrote the
 * bytes.
 *
 * Must not: let any address outside a registered region through, or a key
 * through for a QP of another PD.  Checks are overflow-safe for every
 * 64-bit addr/len a WQE can carry.
 */
#include <stdlib.h>
#include <sys/random.h>

#include "sim/sim_internal.h"

/* ---- protection domains ------------------------------------------------- */

static int pd_new(struct sim_dev *dev, struct sim_pd **out)
{
	struct sim_pd *pd = calloc(1, sizeof(*pd));

	if (!pd)
		return -ENOMEM;
	pd->dev = dev;
	pd->pdn = ++dev->next_pdn;
	pd->next = dev->pds;
	if (dev->pds)
		dev->pds->prevp = &pd->next;
	pd->prevp = &dev->pds;
	dev->pds = pd;
	*out = pd;
	return 0;
}

int sim_pd_alloc(struct sim_dev *dev, struct sim_pd **out)
{
	int rc;

	if (!dev || !out)
		return -EINVAL;
	pthread_mutex_lock(&dev->lock);
	rc = pd_new(dev, out);
	pthread_mutex_unlock(&dev->lock);
	return rc;
}

int sim_pd_dealloc(struct sim_pd *pd)
{
	struct sim_dev *dev;

	if (!pd || pd == pd->dev->pd0)
		return -EINVAL;
	dev = pd->dev;
	pthread_mutex_lock(&dev->lock);
	if (pd->users) {
		pthread_mutex_unlock(&dev->lock);
		return SIM_E_BUSY; /* ibv_dealloc_pd: EBUSY */
	}
	*pd->prevp = pd->next;
	if (pd->next)
		pd->next->prevp = pd->prevp;
	pthread_mutex_unlock(&dev->lock);
	free(pd);
	return 0;
}

uint32_t sim_pd_num(const struct sim_pd *pd)
{
	return pd->pdn;
}

void sim_pd_destroy_all(struct sim_dev *dev)
{
	while (dev->pds) {
		struct sim_pd *pd = dev->pds;

		dev->pds = pd->next;
		free(pd);
	}
	dev->pd0 = NULL;
}

/* ---- memory regions ----------------------------------------------------- */

/* Doubles the key table (at most half full after an insert).  Lock held. */
static int mrs_grow(struct sim_dev *dev)
{
	uint32_t ncap = dev->mrs_cap ? dev->mrs_cap * 2 : 64;
	struct sim_mr **n;

	if (ncap > (1u << 26))
		return -ENOSPC;
	n = calloc(ncap, sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (uint32_t i = 0; i < dev->mrs_cap; i++) {
		struct sim_mr *mr = dev->mrs[i];
		uint32_t j;

		if (!mr)
			continue;
		for (j = sim_mr_hash(mr->key, ncap); n[j]; j = (j + 1) & (ncap - 1))
			;
		n[j] = mr;
	}
	free(dev->mrs);
	dev->mrs = n;
	dev->mrs_cap = ncap;
	return 0;
}

/* The device's default PD and its MR key table: the table exists from here
 * on, so a lookup need not ask (sim_mr_by_key). */
int sim_pd_init(struct sim_dev *dev)
{
	int rc = mrs_grow(dev);

	if (rc)
		return rc;
	rc = pd_new(dev, &dev->pd0);
	if (rc) {
		free(dev->mrs);
		dev->mrs = NULL;
		dev->mrs_cap = 0;
	}
	return rc;
}

/* A fresh key: random, unused, never 0 or the invalid lkey.  Lock held. */
static int new_key(struct sim_dev *dev, uint32_t *out)
{
	uint32_t k;

	do {
		ssize_t n = getrandom(&k, sizeof(k), 0);

		if (n < 0 && errno != EINTR)
			return -errno;
		if (n != (ssize_t)sizeof(k))
			k = 0;
	} while (k == 0 || k == PRISM_INVALID_LKEY || sim_mr_by_key(dev, k));
	*out = k;
	return 0;
}

int sim_mr_reg_pd(struct sim_pd *pd, void *addr, size_t len, unsigned access, struct sim_mr **out)
{
	struct sim_dev *dev;
	struct sim_mr *mr;
	uint32_t i, key = 0;
	int rc = 0;

	/* [addr, addr + len) does not wrap: sim_mr_in_bounds relies on it */
	if (!pd || !out || !addr || len == 0 || len > (1ull << 40) || (access & ~0xfu) ||
	    (uintptr_t)addr + len < (uintptr_t)addr)
		return -EINVAL;
	/* IB: remote write/atomic need local write (ibv_reg_mr EINVAL) */
	if ((access & (SIM_ACCESS_REMOTE_WRITE | SIM_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & SIM_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	dev = pd->dev;
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return -ENOMEM;
	pthread_mutex_lock(&dev->lock);
	if ((dev->nmrs + 1) * 2 > dev->mrs_cap && (rc = mrs_grow(dev)))
		goto out;
	if ((rc = new_key(dev, &key)))
		goto out;
	mr->dev = dev;
	mr->pd = pd;
	mr->addr = addr;
	mr->len = len;
	mr->access = access;
	mr->key = key;
	for (i = sim_mr_hash(key, dev->mrs_cap); dev->mrs[i]; i = (i + 1) & (dev->mrs_cap - 1))
		;
	dev->mrs[i] = mr;
	dev->nmrs++;
	pd->users++;
	*out = mr;
	mr = NULL;
out:
	pthread_mutex_unlock(&dev->lock);
	free(mr);
	return rc;
}

int sim_mr_reg(struct sim_dev *dev, void *addr, size_t len, unsigned access, struct sim_mr **out)
{
	if (!dev)
		return -EINVAL;
	return sim_mr_reg_pd(dev->pd0, addr, len, access, out);
}

/* Removes @mr from the key table, shifting back the entries its slot
 * displaced (linear probing without tombstones).  Lock held. */
static void mrs_remove(struct sim_dev *dev, const struct sim_mr *mr)
{
	uint32_t mask = dev->mrs_cap - 1, i = sim_mr_hash(mr->key, dev->mrs_cap), j;

	while (dev->mrs[i] != mr)
		i = (i + 1) & mask;
	for (j = (i + 1) & mask; dev->mrs[j]; j = (j + 1) & mask) {
		uint32_t h = sim_mr_hash(dev->mrs[j]->key, dev->mrs_cap);

		/* dev->mrs[j] may move into the hole at i unless its home h
		 * lies cyclically in (i, j] */
		if (((j - h) & mask) >= ((j - i) & mask)) {
			dev->mrs[i] = dev->mrs[j];
			i = j;
		}
	}
	dev->mrs[i] = NULL;
}

bool sim_mr_memo_fill(struct sim_qp *qp, enum sim_mr_use use, uint32_t key)
{
	const struct sim_mr *mr = sim_mr_by_key(qp->dev, key);
	unsigned need = sim_mr_use_need(use);

	if (!mr || mr->pd != qp->pd || (mr->access & need) != need)
		return false;
	qp->mr_memo[use] =
	    (struct sim_mr_memo){.key = key, .base = (uint64_t)(uintptr_t)mr->addr, .len = mr->len};
	return true;
}

/* @mr is going: no QP's memo may name it any more.  Lock held. */
static void memos_forget(struct sim_dev *dev, const struct sim_mr *mr)
{
	for (uint32_t i = 0; i < dev->qps_cap; i++) {
		struct sim_qp *qp = dev->qps[i];

		for (unsigned u = 0; qp && u < SIM_MR_NUSES; u++)
			if (qp->mr_memo[u].key == mr->key)
				qp->mr_memo[u] = (struct sim_mr_memo){0};
	}
}

int sim_mr_dereg(struct sim_mr *mr)
{
	struct sim_dev *dev;

	if (!mr)
		return -EINVAL;
	dev = mr->dev;
	pthread_mutex_lock(&dev->lock);
	mrs_remove(dev, mr);
	memos_forget(dev, mr);
	dev->nmrs--;
	dev->mr_gen++;
	mr->pd->users--;
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
	dev->nmrs = 0;
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
	if (lo < dev->nsqr) /* the hint always names a range */
		dev->sqr_hint = lo;
	return lo;
}

static inline void attribute(struct sim_dev *dev, uintptr_t lo, uintptr_t hi, const uint8_t *src,
                             const struct sim_writer *w, sim_time_t t)
{
	const struct sim_sqrange *last = &dev->sqr[dev->sqr_hint];
	uintptr_t base = lo;

	/* most often wholly inside the queue the last write went to */
	if (last->lo <= lo && hi <= last->hi) {
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

/* Every other case of a write into send-queue memory (a write across
 * blocks or queues, or outside any, an event observer, a possible race):
 * attributed before the bytes change (out of line: the quick path saves no
 * registers). */
static __attribute__((noinline)) void write_sq_slow(struct sim_dev *dev, uint8_t *dst,
                                                    const void *src, size_t len,
                                                    const struct sim_writer *w, sim_time_t t)
{
	attribute(dev, (uintptr_t)dst, (uintptr_t)dst + len, src, w, t);
	sim_copy_bytes(dst, src, len);
}

/* The writer of the bytes of request @p that @qp received: its receive
 * scatter (SIM_WRITER_RQ: rq.head is still its receive WQE) or its inbound
 * WRITE / atomic (SIM_WRITER_REMOTE). */
static inline void writer_rx(const struct sim_qp *qp, const struct sim_pkt *p,
                             enum sim_writer_kind kind, struct sim_writer *w)
{
	*w = (struct sim_writer){
	    .kind = kind,
	    .qpn = qp->qpn,
	    .wqe_counter = kind == SIM_WRITER_RQ ? qp->rq.head : 0,
	    .opcode = p->opcode,
	    .src_node = p->src_node,
	    .src_qpn = p->src_qpn,
	    .src_wqe_counter = p->wqe_counter,
	    .issued_at = p->t, /* arrival: the issue time is not on the wire */
	};
}

/* The writer of @qp's READ / atomic @o's response data. */
static inline void writer_result(const struct sim_qp *qp, const struct sim_outst *o,
                                 struct sim_writer *w)
{
	*w = (struct sim_writer){
	    .kind = SIM_WRITER_SQ,
	    .qpn = qp->qpn,
	    .wqe_counter = o->counter,
	    .opcode = o->opcode,
	    .issued_at = o->start,
	};
}

void sim_mem_write_sq_rx(struct sim_qp *qp, uint8_t *dst, const void *src, size_t len,
                         const struct sim_pkt *p, enum sim_writer_kind kind)
{
	struct sim_bb_state *rec;
	struct sim_writer w;

	if (!sim_mem_write_one_block(qp->dev, (uintptr_t)dst, len, NULL, &rec)) {
		writer_rx(qp, p, kind, &w);
		write_sq_slow(qp->dev, dst, src, len, &w, p->t);
		return;
	}
	if (rec) {
		rec->wseq = qp->dev->wseq;
		writer_rx(qp, p, kind, &rec->w);
	}
	sim_copy_bytes(dst, src, len);
}

void sim_mem_write_sq_result(struct sim_qp *qp, uint8_t *dst, const void *src, size_t len,
                             const struct sim_outst *o, sim_time_t t)
{
	struct sim_bb_state *rec;
	struct sim_writer w;

	if (!sim_mem_write_one_block(qp->dev, (uintptr_t)dst, len, o, &rec)) {
		writer_result(qp, o, &w);
		write_sq_slow(qp->dev, dst, src, len, &w, t);
		return;
	}
	if (rec) {
		rec->wseq = qp->dev->wseq;
		writer_result(qp, o, &rec->w);
	}
	sim_copy_bytes(dst, src, len);
}
