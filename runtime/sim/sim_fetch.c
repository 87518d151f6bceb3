/* SPDX-License-Identifier: MIT */
/*
 * sim_fetch.c - send-queue doorbells, WQE prefetch and hazard detection.
 *
 * Owns: when a send queue may fetch (RedN section 3.1: an unmanaged queue
 * once its doorbell rang, a managed queue as soon as an ENABLE executes),
 * the copy of a WQE's bytes into the NIC (decoded once, by the codec, when
 * it becomes its queue's head: sim_sq_decode_head), and the check at
 * execute time that those bytes still match memory.  A
 * mismatch is a hazard: the NIC executes the fetched (stale) copy, as
 * hardware does; the report names the queue, WQE, bytes and last writer.
 *
 * Must not: execute WQEs.  The hot path does no allocation.
 */
#include <stdlib.h>

#include "sim/sim_internal.h"

/* Copies @len bytes of the send queue ring starting at BB counter @ctr. */
static void ring_copy(const struct sim_sq *sq, uint32_t ctr, uint8_t *dst, uint32_t len)
{
	size_t ring = (size_t)sq->nbb * PRISM_WQE_BB;
	size_t off = (size_t)(ctr & (sq->nbb - 1)) * PRISM_WQE_BB;
	size_t first = ring - off < len ? ring - off : len;

	memcpy(dst, sq->buf + off, first);
	if (first < len)
		memcpy(dst + first, sq->buf, len - first);
}

/* FETCH, with the WQE decoded for the observer (out of line: only with
 * one; the engine itself decodes a WQE when it becomes the head). */
static __attribute__((noinline)) void emit_fetch(struct sim_qp *qp, const struct sim_fetched *f,
                                                 sim_time_t t)
{
	struct prism_wqe w;
	struct sim_event ev = {
	    .kind = SIM_EV_FETCH,
	    .t = t,
	    .t_end = t,
	    .qpn = qp->qpn,
	    .wqe_counter = f->counter,
	    .opcode = f->bytes[3],
	    .order = f->order,
	    .bytes = sim_fetched_len(f),
	    .wqe = prism_wqe_decode(f->bytes, sim_fetched_len(f), &w, NULL) < 0 ? NULL : &w,
	};

	sim_emit(qp->dev, &ev);
}

void sim_sq_fetch_upto(struct sim_qp *qp, sim_time_t t, enum sim_order first_order, uint32_t limit)
{
	struct sim_dev *dev = qp->dev;
	struct sim_sq *sq = &qp->sq;
	uint32_t fetch = sq->fetch, cnt = sq->pf_cnt, mask = sq->nbb - 1;
	uint32_t slot = sim_wrap(sq->pf_head + cnt, sq->pf_cap);
	/* Fetch while below both the limit and the window (pf_max_bbs BBs from
	 * the head).  The window in BBs also bounds the entries: every WQE
	 * takes at least one BB and pf_cap is at least pf_max_bbs, so fetch -
	 * head < pf_max_bbs implies cnt < pf_cap. */
	uint32_t stop = sq->head + sq->pf_max_bbs;
	uint64_t wseq = dev->wseq;
	bool was_empty = cnt == 0;
	/* the first WQE fetched into an empty window takes @first_order (an
	 * empty window starts at the head: fetch == head) */
	enum sim_order rest = first_order == SIM_ORDER_DOORBELL ? SIM_ORDER_DOORBELL : SIM_ORDER_WQ;
	enum sim_order order = was_empty ? first_order : rest;

	if ((int32_t)(limit - stop) < 0)
		stop = limit;
	while ((int32_t)(stop - fetch) > 0) {
		struct sim_fetched *f = &sq->pf[slot];
		const uint8_t *src = sq->buf + (size_t)(fetch & mask) * PRISM_WQE_BB;
		unsigned ds = src[7] & 0x3fu; /* mlx5_wqe_ctrl_seg.qpn_ds low 6 bits */

		if (ds <= PRISM_WQE_BB / PRISM_WQE_DS_BYTES) {
			/* one BB: wholly below the limit, since fetch is;
			 * copied as the whole block (a fixed-size copy; the
			 * bytes past its length are never read) */
			memcpy(f->bytes, src, PRISM_WQE_BB);
			sim_sq_fetched(sq, f, fetch, src, 1, t, order, wseq);
		} else {
			unsigned nbb = prism_wqe_bbs(ds);
			uint32_t len = sim_fetch_len(ds);

			if ((int32_t)(limit - (fetch + nbb)) < 0)
				break; /* the WQE is not wholly posted / enabled yet */
			if ((fetch & mask) + nbb <= sq->nbb)
				memcpy(f->bytes, src, len); /* does not wrap */
			else
				ring_copy(sq, fetch, f->bytes, len);
			sim_sq_fetched(sq, f, fetch, src, nbb, t, order, wseq);
		}
		order = rest;
		fetch += f->nbb;
		cnt++;
		slot = slot + 1 == sq->pf_cap ? 0 : slot + 1;
		dev->st.fetches++;
		if (dev->obs.event) {
			sq->fetch = fetch; /* the observer may look */
			sq->pf_cnt = cnt;
			emit_fetch(qp, f, t);
		}
	}
	sq->fetch = fetch;
	sq->pf_cnt = cnt;
	/* an idle queue may have been parked: it has a head WQE now */
	if (was_empty && cnt) {
		sim_sq_decode_head(qp);
		sim_sched_wake(qp);
	}
}

void sim_sq_fetch_enabled(struct sim_qp *qp, sim_time_t t, uint32_t limit)
{
	struct sim_sq *sq = &qp->sq;
	struct sim_dev *dev = qp->dev;
	uint32_t fetch = sq->fetch, slot = sq->pf_head, cnt = 0, mask = sq->nbb - 1;
	uint32_t stop = sq->head + sq->pf_max_bbs;

	if (sq->pf_cnt || dev->obs.event) {
		sim_sq_fetch_upto(qp, t, SIM_ORDER_DOORBELL, limit);
		return;
	}
	/* an empty window starts at the head (fetch == head) and at pf_head */
	if ((int32_t)(limit - stop) < 0)
		stop = limit;
	do {
		struct sim_fetched *f = &sq->pf[slot];
		const uint8_t *src = sq->buf + (size_t)(fetch & mask) * PRISM_WQE_BB;
		unsigned ds = src[7] & 0x3fu;

		if (ds > PRISM_WQE_BB / PRISM_WQE_DS_BYTES)
			break; /* longer: sim_sq_fetch_upto goes on from here */
		memcpy(f->bytes, src, PRISM_WQE_BB); /* the whole block, as there */
		sim_sq_fetched(sq, f, fetch, src, 1, t, SIM_ORDER_DOORBELL, dev->wseq);
		fetch++;
		cnt++;
		slot = slot + 1 == sq->pf_cap ? 0 : slot + 1;
	} while ((int32_t)(stop - fetch) > 0);
	sq->fetch = fetch;
	sq->pf_cnt = cnt;
	dev->st.fetches += cnt;
	if (cnt) { /* the queue may have been parked: it has a head now */
		sim_sq_decode_head(qp);
		sim_sched_wake(qp);
	}
	if ((int32_t)(stop - fetch) > 0)
		sim_sq_fetch_upto(qp, t, SIM_ORDER_DOORBELL, limit);
}

void sim_sq_drop_fetched(struct sim_qp *qp)
{
	qp->sq.pf_head = 0;
	qp->sq.pf_cnt = 0;
	qp->sq.fetch = qp->sq.head;
}

/* First and last differing byte of @f against memory; false if equal. */
static bool diff_range(const struct sim_sq *sq, const struct sim_fetched *f, uint32_t *lo,
                       uint32_t *hi)
{
	uint8_t now[PRISM_WQE_MAX_BB * PRISM_WQE_BB];
	size_t ring = (size_t)sq->nbb * PRISM_WQE_BB;
	size_t off = (size_t)(f->counter & (sq->nbb - 1)) * PRISM_WQE_BB;
	uint32_t len = sim_fetched_len(f), i, j;

	if (off + len <= ring) {
		if (memcmp(sq->buf + off, f->bytes, len) == 0)
			return false;
		memcpy(now, sq->buf + off, len);
	} else {
		ring_copy(sq, f->counter, now, len);
		if (memcmp(now, f->bytes, len) == 0)
			return false;
	}
	for (i = 0; i < len && now[i] == f->bytes[i]; i++)
		;
	for (j = len; j > i && now[j - 1] == f->bytes[j - 1]; j--)
		;
	*lo = i;
	*hi = j;
	return true;
}

static const char *const writer_names[] = {
    [SIM_WRITER_HOST] = "host",
    [SIM_WRITER_SQ] = "send WQE",
    [SIM_WRITER_RQ] = "receive WQE",
    [SIM_WRITER_REMOTE] = "remote request",
};

static void report(struct sim_qp *qp, uint32_t counter, uint8_t opcode, uint32_t lo, uint32_t hi,
                   const struct sim_writer *w, sim_time_t fetched_at, bool executed, sim_time_t t)
{
	struct sim_dev *dev = qp->dev;
	struct sim_hazard *h = &dev->last_hazard;

	memset(h, 0, sizeof(*h));
	h->qpn = qp->qpn;
	h->wqe_counter = counter;
	h->offset = lo;
	h->len = hi - lo;
	h->writer = *w;
	h->fetched_at = fetched_at;
	h->executed = executed;
	h->executed_at = t;
	dev->has_hazard = true;
	dev->st.hazards++;
	if (dev->obs.event) {
		struct sim_event ev = {
		    .kind = SIM_EV_HAZARD,
		    .t = t,
		    .t_end = t,
		    .qpn = qp->qpn,
		    .wqe_counter = counter,
		    .opcode = opcode,
		    .offset = lo,
		    .len = hi - lo,
		    .writer = *w,
		    .hazard = h,
		};
		sim_emit(dev, &ev);
	}
	sim_log(dev, dev->o.hazard == SIM_HAZARD_FAIL ? SIM_LOG_ERROR : SIM_LOG_WARN,
	        "qp %u: WQE %u: hazard: bytes %u..%u changed after fetch%s by %s (qp %u WQE %u)",
	        qp->qpn, counter, lo, hi - 1, executed ? " (stale copy already ran)" : "",
	        writer_names[w->kind], w->qpn, w->wqe_counter);
}

void sim_sq_decode_full(struct sim_sq *sq, const struct sim_fetched *f)
{
	sq->hd.rc = prism_wqe_decode(f->bytes, sim_fetched_len(f), &sq->hd.w, NULL);
}

/* The fetched-but-not-executed WQE at @counter, or NULL. */
static struct sim_fetched *fetched_at_counter(struct sim_sq *sq, uint32_t counter)
{
	for (uint32_t i = 0; i < sq->pf_cnt; i++) {
		struct sim_fetched *f = &sq->pf[sim_wrap(sq->pf_head + i, sq->pf_cap)];

		if (f->counter == counter)
			return f;
	}
	return NULL;
}

/* A patch issued before the fetch that lands after it raced the fetch:
 * what ran depended on timing.  Reports it if the bytes of block @b that
 * the patch rewrites change; true when reported. */
bool sim_sq_patch_race(struct sim_qp *qp, uint32_t b, uint32_t off, const uint8_t *src,
                       uint32_t len, const struct sim_writer *w, sim_time_t t)
{
	struct sim_dev *dev = qp->dev;
	struct sim_sq *sq = &qp->sq;
	const struct sim_bb_fetch *st = &sq->bbf[b];
	uint32_t b0 = off / PRISM_WQE_BB, b1 = (off + len - 1) / PRISM_WQE_BB;
	uint32_t lo = b == b0 ? off : b * PRISM_WQE_BB;
	uint32_t hi = b == b1 ? off + len : (b + 1) * PRISM_WQE_BB;
	uint32_t first, wqe_off;
	struct sim_fetched *f;

	while (lo < hi && sq->buf[lo] == src[lo - off])
		lo++;
	while (hi > lo && sq->buf[hi - 1] == src[hi - 1 - off])
		hi--;
	if (lo == hi)
		return false; /* same bytes: nothing changes */
	first = st->ctr & (sq->nbb - 1);
	wqe_off = ((b - first) & (sq->nbb - 1)) * PRISM_WQE_BB;
	f = fetched_at_counter(sq, st->ctr);
	report(qp, st->ctr, sq->buf[first * PRISM_WQE_BB + 3], wqe_off + lo - b * PRISM_WQE_BB,
	       wqe_off + hi - b * PRISM_WQE_BB, w, st->t, !f, t);
	if (f) {
		f->hazard = true; /* the policy applies when it executes */
	} else if (dev->o.hazard == SIM_HAZARD_FAIL) {
		dev->hazard_failed = true;
		sim_qp_fail(qp, t);
	}
	return true;
}

/* Does block @b lie in a fetched WQE that has not run?  Its fetch record
 * names the WQE last fetched over it (a block never fetched names counter
 * 0: the WQE found must also cover the block). */
static bool pending_over(struct sim_sq *sq, uint32_t b)
{
	const struct sim_fetched *f = fetched_at_counter(sq, sq->bbf[b].ctr);

	return f && ((b - f->counter) & (sq->nbb - 1)) < f->nbb;
}

void sim_sq_emit_patch(struct sim_qp *qp, uint32_t off, uint32_t len, const struct sim_writer *w,
                       sim_time_t t)
{
	struct sim_sq *sq = &qp->sq;
	uint32_t b0 = off / PRISM_WQE_BB;
	struct sim_event ev = {
	    .kind = SIM_EV_PATCH,
	    .t = t,
	    .t_end = t,
	    .qpn = w->qpn,
	    .wqe_counter = w->wqe_counter,
	    .opcode = w->opcode,
	    .target_qpn = qp->qpn,
	    .target_wqe_counter = pending_over(sq, b0)
	                              ? sq->bbf[b0].ctr
	                              : sq->fetch + ((b0 - sq->fetch) & (sq->nbb - 1)),
	    .offset = off,
	    .len = len,
	    .writer = *w,
	};

	sim_emit(qp->dev, &ev);
}

bool sim_sq_hazard_check_slow(struct sim_qp *qp, struct sim_fetched *f, sim_time_t t)
{
	struct sim_dev *dev = qp->dev;
	struct sim_sq *sq = &qp->sq;
	struct sim_bb_state *bs;
	struct sim_writer host = {.kind = SIM_WRITER_HOST};
	uint32_t lo, hi, bb;

	if (!f->hazard) {
		if (!diff_range(sq, f, &lo, &hi))
			return false;
		bb = ((f->counter & (sq->nbb - 1)) + lo / PRISM_WQE_BB) & (sq->nbb - 1);
		bs = &sq->bbs[bb];
		report(qp, f->counter, f->bytes[3], lo, hi, bs->wseq > f->wseq ? &bs->w : &host,
		       f->fetched_at, false, t);
	}
	if (dev->o.hazard == SIM_HAZARD_FAIL) {
		dev->hazard_failed = true;
		return true;
	}
	return false;
}

static int range_cmp(const void *a, const void *b)
{
	const struct sim_sqrange *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

void sim_sqrange_rebuild(struct sim_dev *dev)
{
	uint32_t n = 0;
	struct sim_sqrange *r = realloc(dev->sqr, (dev->nqps + 1) * sizeof(*r));

	if (!r)
		return; /* keep the old table: attribution only, never safety */
	dev->sqr = r;
	dev->sqr_lo = UINTPTR_MAX;
	dev->sqr_hi = 0;
	for (uint32_t i = 0; i < dev->qps_cap; i++) {
		struct sim_qp *qp = dev->qps[i];

		if (!qp)
			continue;
		r[n].lo = (uintptr_t)qp->sq.buf;
		r[n].hi = r[n].lo + (size_t)qp->sq.nbb * PRISM_WQE_BB;
		r[n].qp = qp;
		if (r[n].lo < dev->sqr_lo)
			dev->sqr_lo = r[n].lo;
		if (r[n].hi > dev->sqr_hi)
			dev->sqr_hi = r[n].hi;
		n++;
	}
	qsort(r, n, sizeof(*r), range_cmp);
	dev->nsqr = n;
	dev->sqr_hint = 0; /* a range, if there is one: else no write is attributed */
}

int sim_qp_ring_sq_doorbell(struct sim_qp *qp)
{
	struct sim_dev *dev;
	struct sim_sq *sq;

	if (!qp)
		return -EINVAL;
	dev = qp->dev;
	pthread_mutex_lock(&dev->lock);
	sq = &qp->sq;
	sq->pi = sim_extend16(sq->pi, load_be32_shared(&qp->dbrec[1]) & 0xffffu);
	sim_sq_set_limit(qp);
	if (dev->obs.event) {
		struct sim_event ev = {
		    .kind = SIM_EV_DOORBELL,
		    .t = dev->now,
		    .t_end = dev->now,
		    .qpn = qp->qpn,
		    .wqe_counter = sq->pi,
		};
		sim_emit(dev, &ev);
	}
	if (qp->state == SIM_QPS_ERR)
		sim_qp_flush_new(qp, dev->now);
	else /* managed or not: a doorbell starts the queue (DPDK crypto GGA) */
		sim_sq_fetch(qp, dev->now, SIM_ORDER_HOST);
	pthread_mutex_unlock(&dev->lock);
	sim_thread_wake(dev);
	return 0;
}

int sim_qp_ring_rq_doorbell(struct sim_qp *qp)
{
	if (!qp)
		return -EINVAL;
	pthread_mutex_lock(&qp->dev->lock);
	sim_progress_bump(qp->dev);
	pthread_mutex_unlock(&qp->dev->lock);
	sim_thread_wake(qp->dev);
	return 0;
}
