/* SPDX-License-Identifier: MIT */
/*
 * chain/chain_verify.c - object-level verifier (see chain_verify.h).
 *
 * Owns the checks; reads WQEs only through the codec.  Facts it relies on:
 *   - a managed queue fetches a WQE only once a SEND_EN covering its counter
 *     executed (RedN 3.1; docs/contracts.md contract 3), so "enabled after the writer
 *     completed" = the first SEND_EN whose range covers the WQE comes after,
 *     in its own queue, a WAIT on the writer's CQ for a CQE number at or
 *     after the writer's (CQEs of one queue arrive in order);
 *   - the entry WAIT on the connection's receive CQ orders every RECV scatter.
 * Counts and enable ranges are read from the SQ_COUNT / CQ_COUNT relocation
 * deltas (per-invocation offsets), so the check holds for every invocation.
 *
 * Must not: print, exit, or modify the object except in fill_summary.
 */
#include "chain/chain_verify.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <prism/wqe.h>

static const char *const err_names[CHAIN_VERIFY_E__COUNT] = {
#define CHAIN_VERIFY_X_NAME(e, text) [CHAIN_VERIFY_E_##e] = text,
    CHAIN_VERIFY_ERRORS(CHAIN_VERIFY_X_NAME)
#undef CHAIN_VERIFY_X_NAME
};

const char *chain_verify_err_name(enum chain_verify_err e)
{
	return (unsigned)e < CHAIN_VERIFY_E__COUNT ? err_names[e] : "?";
}

static int reject(struct chain_verify_report *rep, enum chain_verify_err e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int reject(struct chain_verify_report *rep, enum chain_verify_err e, const char *fmt, ...)
{
	va_list ap;
	char detail[200];
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	rep->err = e;
	snprintf(rep->msg, sizeof(rep->msg), "%s: %s", err_names[e], detail);
	return -EINVAL;
}

struct decoded {
	struct prism_wqe w;
	uint32_t count; /* 1-based completion number when signaled, else 0 */
};

struct vctx {
	const struct chainobj *o;
	struct decoded **d; /* per queue, per SQ template */
	/* relocations sorted by site, for binary search (a linear scan per
	 * lookup would make verification quadratic) */
	const struct chainobj_reloc **sorted;
	uint32_t nsorted;
	/* every enable of the object (collect_enables) */
	struct enable *ens;
	uint32_t n_ens;
};

static int site_cmp(uint32_t q, uint32_t ring, uint32_t wqe, uint32_t off,
                    const struct chainobj_reloc *r)
{
	if (q != r->site.queue)
		return q < r->site.queue ? -1 : 1;
	if (ring != (uint32_t)r->site.ring)
		return ring < (uint32_t)r->site.ring ? -1 : 1;
	if (wqe != r->site.wqe)
		return wqe < r->site.wqe ? -1 : 1;
	if (off != r->site.offset)
		return off < r->site.offset ? -1 : 1;
	return 0;
}

static int reloc_sort_cmp(const void *a, const void *b)
{
	const struct chainobj_reloc *x = *(const struct chainobj_reloc *const *)a;
	return site_cmp(x->site.queue, x->site.ring, x->site.wqe, x->site.offset,
	                *(const struct chainobj_reloc *const *)b);
}

/* The relocation whose site starts at (q, ring, wqe, off), or NULL. */
static const struct chainobj_reloc *reloc_at(const struct vctx *v, uint32_t q,
                                             enum chainobj_ring ring, uint32_t wqe, uint32_t off)
{
	uint32_t lo = 0, hi = v->nsorted;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = site_cmp(q, ring, wqe, off, v->sorted[mid]);
		if (c == 0)
			return v->sorted[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static uint32_t field_off(const struct prism_wqe *w, enum prism_wqe_field f)
{
	uint32_t off = 0, len = 0;
	if (prism_wqe_field_offset(w, f, &off, &len) != 0)
		return UINT32_MAX;
	return off;
}

/* Does a WAIT at (q, before position `pos`) guarantee writer (wq, ww) completed? */
static bool waited(const struct vctx *v, uint32_t q, uint32_t pos, uint32_t wq, uint32_t ww,
                   bool writer_is_recv)
{
	const struct chainobj *o = v->o;
	/* completion number that covers the writer: the first signaled WQE at or
	 * after it in its queue */
	uint32_t need = 0;
	if (!writer_is_recv) {
		for (uint32_t i = ww; i < o->queues[wq].n_sq; i++)
			if (v->d[wq][i].count) {
				need = v->d[wq][i].count;
				break;
			}
		if (!need)
			return false;
	}
	uint32_t cq = writer_is_recv ? o->queues[wq].recv_cq : o->queues[wq].send_cq;
	for (uint32_t i = 0; i < pos; i++) {
		const struct prism_wqe *w = &v->d[q][i].w;
		if (w->ctrl.opcode != PRISM_OP_CQE_WAIT)
			continue;
		uint32_t io = field_off(w, PRISM_FIELD_WAIT_EN_INDEX);
		uint32_t oo = field_off(w, PRISM_FIELD_WAIT_EN_OBJ);
		const struct chainobj_reloc *ri = reloc_at(v, q, CHAINOBJ_RING_SQ, i, io);
		const struct chainobj_reloc *ro = reloc_at(v, q, CHAINOBJ_RING_SQ, i, oo);
		if (!ri || !ro || ri->kind != CHAINOBJ_RELOC_CQ_COUNT ||
		    ro->kind != CHAINOBJ_RELOC_CQN || ro->target != cq || ri->target != cq)
			continue;
		/* a WAIT for a later WQE of its own queue never fires */
		if (!writer_is_recv && wq == q && ww >= i)
			continue;
		/* the WAIT's index is a 0-based CQE number (rule 3.3): it
		 * releases once completion number delta + 1 exists */
		if (writer_is_recv || ri->delta + 1u >= need)
			return true;
	}
	/* a queue's own earlier WAITs are not the only source: an enable chain
	 * from another queue is checked by the caller on that queue */
	return false;
}

/* An enable that may make WQEs of a queue fetchable: a SEND_EN template,
 * or a SEND_EN that a masked CAS may retarget (a loop exit). */
struct enable {
	uint32_t tq;     /* the queue it enables */
	uint32_t q, pos; /* the SEND_EN WQE */
	uint32_t delta;  /* range end (SQ counter, per-invocation offset) */
	bool retarget;   /* the range comes from a CAS's swap operand */
};

static bool enable_of_template(const struct vctx *v, uint32_t q, uint32_t i, struct enable *en)
{
	const struct prism_wqe *w = &v->d[q][i].w;
	if (w->ctrl.opcode != PRISM_OP_SEND_ENABLE)
		return false;
	const struct chainobj_reloc *ri =
	    reloc_at(v, q, CHAINOBJ_RING_SQ, i, field_off(w, PRISM_FIELD_WAIT_EN_INDEX));
	const struct chainobj_reloc *ro =
	    reloc_at(v, q, CHAINOBJ_RING_SQ, i, field_off(w, PRISM_FIELD_WAIT_EN_OBJ));
	if (!ri || !ro || ri->kind != CHAINOBJ_RELOC_SQ_COUNT || ro->kind != CHAINOBJ_RELOC_QPN ||
	    ri->target != ro->target)
		return false;
	*en = (struct enable){ro->target, q, i, ri->delta, false};
	return true;
}

static bool enable_of_retarget(const struct vctx *v, uint32_t q, uint32_t i, struct enable *en)
{
	const struct chainobj *o = v->o;
	const struct prism_wqe *w = &v->d[q][i].w;
	if (w->ctrl.opcode != PRISM_OP_ATOMIC_MASKED_CS || w->atomic.size != 16)
		return false;
	uint32_t so = field_off(w, PRISM_FIELD_ATOMIC_SWAP);
	if (so == UINT32_MAX)
		return false;
	const struct chainobj_reloc *ri = reloc_at(v, q, CHAINOBJ_RING_SQ, i, so + 8);
	const struct chainobj_reloc *ro = reloc_at(v, q, CHAINOBJ_RING_SQ, i, so + 12);
	if (!ri || !ro || ri->kind != CHAINOBJ_RELOC_SQ_COUNT || ro->kind != CHAINOBJ_RELOC_QPN ||
	    ri->target != ro->target)
		return false;
	for (uint32_t k = 0; k < o->n_patches; k++) {
		const struct chainobj_patch *pt = &o->patches[k];
		if (pt->writer_ring != CHAINOBJ_RING_SQ || pt->writer_queue != q ||
		    pt->writer_wqe != i || pt->target.ring != CHAINOBJ_RING_SQ)
			continue;
		const struct prism_wqe *t = &v->d[pt->target.queue][pt->target.wqe].w;
		if (t->ctrl.opcode != PRISM_OP_SEND_ENABLE)
			continue;
		*en =
		    (struct enable){ro->target, pt->target.queue, pt->target.wqe, ri->delta, true};
		return true;
	}
	return false;
}

/* Every enable of the object, once (the checks below look them up often). */
static int collect_enables(struct vctx *v)
{
	const struct chainobj *o = v->o;
	uint32_t total = 0;
	for (uint32_t q = 0; q < o->n_queues; q++)
		total += o->queues[q].n_sq;
	v->ens = malloc((total ? total : 1) * sizeof(*v->ens));
	if (!v->ens)
		return -ENOMEM;
	v->n_ens = 0;
	for (uint32_t q = 0; q < o->n_queues; q++)
		for (uint32_t i = 0; i < o->queues[q].n_sq; i++) {
			struct enable en;
			if (enable_of_template(v, q, i, &en) || enable_of_retarget(v, q, i, &en))
				v->ens[v->n_ens++] = en;
		}
	return 0;
}

/* Every enable of queue `tq` whose range first covers `slot` (several when
 * different loop exits enable the same code).  Returns how many. */
/* A recycled queue's lap-closing enable: a SEND_EN of the lap queue in the
 * lap queue whose range ends at or before its own slot, i.e. in the next lap.
 * It enables laps 1 and later only, which follow lap 0 (the lap rule,
 * check_lap_patch, orders writers against it). */
static bool wrap_enable(const struct vctx *v, const struct enable *en)
{
	const struct chainobj_queue *q = &v->o->queues[en->tq];
	return !en->retarget && en->q == en->tq && q->recycle.max_laps &&
	       en->delta <= q->sq[en->pos].slot;
}

static unsigned first_enables(const struct vctx *v, uint32_t tq, uint32_t slot, struct enable *out,
                              unsigned max)
{
	uint32_t best = UINT32_MAX;
	unsigned n = 0;
	for (uint32_t k = 0; k < v->n_ens; k++)
		if (v->ens[k].tq == tq && v->ens[k].delta > slot && v->ens[k].delta < best &&
		    !wrap_enable(v, &v->ens[k]))
			best = v->ens[k].delta;
	for (uint32_t k = 0; k < v->n_ens && n < max; k++)
		if (v->ens[k].tq == tq && v->ens[k].delta == best && !wrap_enable(v, &v->ens[k]))
			out[n++] = v->ens[k];
	return n;
}

/* A writer after a retargeted exit enable, in the exit's own queue, never
 * runs when that exit is taken, provided nothing else enables the queue
 * past the exit. */
static bool skipped_by_exit(const struct vctx *v, const struct enable *en, uint32_t wq, uint32_t ww)
{
	const struct chainobj *o = v->o;
	if (!en->retarget || wq != en->q || ww <= en->pos)
		return false;
	const struct chainobj_wqe *x = &o->queues[en->q].sq[en->pos];
	uint32_t end = x->slot + prism_wqe_bbs(v->d[en->q][en->pos].w.ctrl.ds);
	for (uint32_t k = 0; k < v->n_ens; k++) {
		const struct enable *other = &v->ens[k];
		if (other->retarget || other->tq != en->q)
			continue;
		if (other->q == en->q && other->pos >= en->pos)
			continue; /* reachable only through the exit */
		if (other->delta > end)
			return false;
	}
	return true;
}

/*
 * Does enable `en` execute only after writer (wq, ww) completed?  Either a
 * WAIT before it in its own queue covers the writer, or it is fenced behind a
 * READ/atomic writer of its own queue, or the writer never
 * runs when `en` is a taken loop exit, or every enable that let `en`'s own
 * queue reach it does (a chain of barriers: ctl's entry WAIT on the RECV
 * orders every later step).
 */
static bool fenced_after(const struct vctx *v, uint32_t q, uint32_t en, uint32_t w);

static bool ordered_after(const struct vctx *v, const struct enable *en, uint32_t wq, uint32_t ww,
                          bool recv, unsigned depth)
{
	if (waited(v, en->q, en->pos, wq, ww, recv))
		return true;
	if (!recv && wq == en->q && fenced_after(v, wq, en->pos, ww))
		return true;
	if (!recv && skipped_by_exit(v, en, wq, ww))
		return true;
	if (depth >= 512 || (!recv && wq == en->q && ww >= en->pos))
		return false;
	const struct chainobj *o = v->o;
	if (!o->queues[en->q].managed_send)
		return false; /* started by the host doorbell: nothing before it */
	struct enable up[16];
	unsigned n = first_enables(v, en->q, o->queues[en->q].sq[en->pos].slot, up, 16);
	if (n == 0)
		return false;
	for (unsigned k = 0; k < n; k++)
		if (!ordered_after(v, &up[k], wq, ww, recv, depth + 1))
			return false;
	return true;
}

/* The WQE as it executes once armed: a NOP template with ds > 1 that a CAS
 * on its control word turns into the swap word's opcode (RedN Fig. 4). */
static struct prism_wqe armed_view(const struct vctx *v, uint32_t q, uint32_t i)
{
	struct prism_wqe w = v->d[q][i].w;
	if (w.ctrl.opcode != PRISM_OP_NOP || w.ctrl.ds <= 1)
		return w;
	/* decoded again with the armed opcode and opmod, so its segments
	 * (inline data, addresses) are seen as they run */
	struct prism_wqe armed = w;
	return chainobj_armed_decode(v->o, q, i, &armed) != 0 ? armed : w;
}

/* May client bytes fill [off, off+len) of this WQE? */
static bool client_field_ok(const struct chainobj *o, const struct prism_wqe *w, uint32_t off,
                            uint32_t len)
{
	static const enum prism_wqe_field allowed[] = {
	    PRISM_FIELD_RADDR,
	    PRISM_FIELD_ATOMIC_SWAP,
	    PRISM_FIELD_ATOMIC_COMPARE,
	    PRISM_FIELD_SGE0_ADDR,
	};
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		uint32_t fo, fl;
		if (prism_wqe_field_offset(w, allowed[i], &fo, &fl) == 0 && off >= fo &&
		    off + len <= fo + fl)
			return true;
	}
	/* the masks of a masked CAS (an order comparison complements an
	 * operand by using it as the swap mask): they follow swap and compare */
	if (w->ctrl.opcode == PRISM_OP_ATOMIC_MASKED_CS) {
		uint32_t so, sl;
		if (prism_wqe_field_offset(w, PRISM_FIELD_ATOMIC_SWAP, &so, &sl) == 0 &&
		    off >= so + 2 * sl && off + len <= so + 4 * sl)
			return true;
	}
	/* the QPN bytes of a control segment (relaxed conditional operand) */
	if (o->profile == CHAINOBJ_PROFILE_RELAXED && off >= 4 && off + len <= 7)
		return true;
	/* a SEND_EN's reserved bytes 16-23: the NIC ignores them; a loop exit's
	 * CAS compares its operand there (lower_loop.c) */
	if (w->ctrl.opcode == PRISM_OP_SEND_ENABLE && off >= 16 && off + len <= 24)
		return true;
	/* the byte count of a response (a bounded read `e[.. n]`, n read through
	 * a client pointer): the lkey bounds what it reads to the value's region,
	 * the client's response key what it writes to the client's own buffer,
	 * and prismc clamps it to the capacity (lower_effects.c) */
	if (w->ctrl.opcode == PRISM_OP_RDMA_WRITE_IMM) {
		uint32_t lo, ll;
		if (prism_wqe_field_offset(w, PRISM_FIELD_SGE0_LEN, &lo, &ll) == 0 && off >= lo &&
		    off + len <= lo + ll)
			return true;
	}
	/* inline data of a WRITE */
	if (w->is_inline && w->ctrl.opcode == PRISM_OP_RDMA_WRITE) {
		uint32_t ro = field_off(w, PRISM_FIELD_RADDR);
		if (ro != UINT32_MAX && off >= ro + 20 && off + len <= ro + 20 + w->inline_len)
			return true;
	}
	return false;
}

bool chain_verify_client_field_ok(const struct chainobj *o, const struct prism_wqe *w, uint32_t off,
                                  uint32_t len)
{
	return client_field_ok(o, w, off, len);
}

/* The key field that goes with a client-filled address field. */
static int key_for(const struct vctx *v, uint32_t q, uint32_t wqe, const struct prism_wqe *w,
                   uint32_t off, const struct chainobj_param *param,
                   struct chain_verify_report *rep)
{
	const struct chainobj *o = v->o;
	uint32_t ra = field_off(w, PRISM_FIELD_RADDR);
	uint32_t sa = field_off(w, PRISM_FIELD_SGE0_ADDR);
	uint32_t key_off;
	enum chainobj_reloc_kind want;
	if (ra != UINT32_MAX && off >= ra && off < ra + 8) {
		key_off = field_off(w, PRISM_FIELD_RKEY);
		want = CHAINOBJ_RELOC_REGION_RKEY;
	} else if (sa != UINT32_MAX && !w->is_inline && off >= sa && (off - sa) % 16 < 8) {
		/* (inline data has no scatter entries: its bytes are no address) */
		key_off = off - (off - sa) % 16 - 4;
		want = CHAINOBJ_RELOC_REGION_LKEY;
	} else {
		return 0; /* not an address field */
	}
	const struct chainobj_reloc *r = reloc_at(v, q, CHAINOBJ_RING_SQ, wqe, key_off);
	if (!r || r->kind != want)
		return reject(rep, CHAIN_VERIFY_E_CLIENT_KEY,
		              "queue %s wqe %u: client address at byte %u is used with a key "
		              "that is not a region key",
		              o->queues[q].name, wqe, off);
	if (param && param->type == CHAINOBJ_PT_ADDR && r->target != param->region)
		return reject(rep, CHAIN_VERIFY_E_CLIENT_KEY,
		              "queue %s wqe %u: parameter '%s' points into region %s but the "
		              "access uses region %s's key",
		              o->queues[q].name, wqe, param->name, o->regions[param->region].name,
		              o->regions[r->target].name);
	return 0;
}

static const struct chainobj_param *param_of_sge(const struct chainobj *o, uint32_t sge)
{
	for (uint32_t e = 0; e < o->n_entries; e++)
		for (uint32_t i = 0; i < o->entries[e].n_params; i++) {
			const struct chainobj_param *p = &o->entries[e].params[i];
			if (sge >= p->first_sge && sge < p->first_sge + p->n_sge)
				return p;
		}
	return NULL;
}

/* ---- recycled loops ----------------------------------------------------- */

static bool fenced(const struct prism_wqe *w)
{
	enum prism_fence f = prism_ctrl_fence(&w->ctrl);
	return f == PRISM_FENCE_FENCE || f == PRISM_FENCE_STRONG_ORDERING ||
	       f == PRISM_FENCE_SMALL_AND_FENCE;
}

static bool read_or_atomic(uint8_t op)
{
	const struct prism_opcode_info *info = prism_opcode_info(op);

	return op == PRISM_OP_RDMA_READ || (info && info->cls == PRISM_CLASS_ATOMIC);
}

/*
 * Does enable @en of queue @q start only after WQE @w of the same queue
 * completed because of its fence?  A fenced WQE starts after the earlier
 * READs/atomics of its queue (nic model rules 3.2 and 3.15a).  A NOP template
 * armed into an atomic writes nothing unless armed, so its armed form counts.
 */
static bool fenced_after(const struct vctx *v, uint32_t q, uint32_t en, uint32_t w)
{
	return w < en && fenced(&v->d[q][en].w) && read_or_atomic(armed_view(v, q, w).ctrl.opcode);
}

/* The lap-closing enable of recycled queue q (exactly one), or -1. */
static int lap_close(const struct vctx *v, uint32_t q)
{
	int found = -1;
	for (uint32_t k = 0; k < v->n_ens; k++) {
		if (v->ens[k].tq != q || !wrap_enable(v, &v->ens[k]))
			continue;
		if (found >= 0)
			return -1;
		found = (int)k;
	}
	return found;
}

/* Enable @en of queue L starts only after its earlier writer @w of L
 * completed: it is fenced and @w is a READ/atomic, or a WAIT between them
 * covers @w. */
static bool after_writer(const struct vctx *v, uint32_t L, uint32_t en, uint32_t w)
{
	return fenced_after(v, L, en, w) || waited(v, L, en, L, w, false);
}

/*
 * A patch whose writer and target are both in recycled queue L runs every
 * lap, and the template order says little: the write of lap j is for the
 * next fetch of the target after it.  That fetch is
 *   - a target below the lap-closing enable's range end (the head of the
 *     lap): the next lap's, by the closing enable C.  The target must have
 *     run already in this lap (at or before the writer), and C must start
 *     after the writer completed: C fenced behind a READ/atomic writer, or
 *     a WAIT between them covering it;
 *   - any other target: this lap's, by the in-lap SEND_EN of L that first
 *     covers it; that enable must lie between writer and target and start
 *     after the writer completed: fenced behind a READ/atomic writer (nic
 *     model rule 3.2: a fenced WQE starts after the earlier READs/atomics of
 *     its queue), or after a WAIT covering the writer.
 */
static int check_lap_patch(const struct vctx *v, const struct chainobj_patch *pt,
                           struct chain_verify_report *rep)
{
	const struct chainobj *o = v->o;
	uint32_t L = pt->target.queue, t = pt->target.wqe, w = pt->writer_wqe;
	const struct chainobj_queue *q = &o->queues[L];
	int ci = lap_close(v, L);
	if (ci < 0)
		return reject(rep, CHAIN_VERIFY_E_LAP,
		              "queue %s recycles but has no single lap-closing SEND_EN", q->name);
	const struct enable *c = &v->ens[ci];
	uint32_t tslot = q->sq[t].slot;
	if (tslot < c->delta) {
		bool ok = t <= w && w < c->pos && after_writer(v, L, c->pos, w);
		if (!ok)
			return reject(
			    rep, CHAIN_VERIFY_E_LAP,
			    "queue %s wqe %u is rewritten by wqe %u for the next lap, but "
			    "%s",
			    q->name, t, w,
			    t > w ? "it runs after its writer in the same lap, from a "
			            "segment fetched before the writer ran"
			          : "the lap-closing SEND_EN does not wait for (or fence "
			            "behind) the writer");
		return 0;
	}
	struct enable e = {0};
	bool have = false;
	for (uint32_t k = 0; k < v->n_ens; k++) {
		const struct enable *x = &v->ens[k];
		if (x->tq != L || x->q != L || x->retarget || wrap_enable(v, x) ||
		    x->delta <= tslot)
			continue;
		if (!have || x->delta < e.delta) {
			e = *x;
			have = true;
		}
	}
	if (!have || !(w < e.pos && e.pos < t) || !after_writer(v, L, e.pos, w))
		return reject(rep, CHAIN_VERIFY_E_LAP,
		              "queue %s wqe %u is rewritten by wqe %u in the same lap, but no "
		              "SEND_EN between them enables it after the writer completed "
		              "(fenced behind it, or after a WAIT for it)",
		              q->name, t, w);
	return 0;
}

/* The addend of a 4-byte masked FETCH_ADD in @q that writes bytes
 * [off, off+4) of template @t, with its position; false if none or several. */
static bool lap_adder(const struct vctx *v, uint32_t q, uint32_t t, uint32_t off, uint32_t *add,
                      uint32_t *pos)
{
	const struct chainobj *o = v->o;
	unsigned n = 0;
	for (uint32_t k = 0; k < o->n_patches; k++) {
		const struct chainobj_patch *pt = &o->patches[k];
		if (pt->target.queue != q || pt->target.ring != CHAINOBJ_RING_SQ ||
		    pt->target.wqe != t || pt->target.offset >= off + 4 ||
		    pt->target.offset + pt->target.width <= off)
			continue;
		if (pt->kind == CHAINOBJ_PATCH_MASKED_CAS && pt->writer_ring == CHAINOBJ_RING_SQ &&
		    pt->writer_queue == q)
			continue; /* a retargeting test: checked by the caller */
		const struct prism_wqe *wr = &v->d[pt->writer_queue][pt->writer_wqe].w;
		if (pt->kind != CHAINOBJ_PATCH_MASKED_FETCH_ADD || pt->writer_queue != q ||
		    pt->writer_ring != CHAINOBJ_RING_SQ || pt->target.offset != off ||
		    pt->target.width != 4 || wr->atomic.size != 4 || wr->atomic.swap_mask != 0)
			return false; /* anything else writing the counter */
		*add = (uint32_t)wr->atomic.swap;
		*pos = pt->writer_wqe;
		n++;
	}
	return n == 1;
}

/*
 * A recycled queue must stop on the NIC: its lap-closing enable C grows by
 * the ring every lap (one masked FETCH_ADD, nothing else writes its index),
 * and a 16-byte masked CAS in the lap, before C, compares C's index with
 * the value of lap `max-laps` and retargets C out of the queue then.  The
 * lap counter the runtime reads grows every lap: by the ring (a SEND_EN
 * index) or by `cq-per-lap`, not 0 (a WAIT count; a lap that signals
 * nothing cannot count its laps with one).
 */
static int check_lap_queue(const struct vctx *v, uint32_t L, struct chain_verify_report *rep)
{
	const struct chainobj *o = v->o;
	const struct chainobj_queue *q = &o->queues[L];
	int ci = lap_close(v, L);
	if (ci < 0)
		return reject(rep, CHAIN_VERIFY_E_LAP,
		              "queue %s recycles but has no single lap-closing SEND_EN", q->name);
	const struct enable *c = &v->ens[ci];
	uint32_t io = field_off(&v->d[L][c->pos].w, PRISM_FIELD_WAIT_EN_INDEX);
	const struct chainobj_reloc *r0 = reloc_at(v, L, CHAINOBJ_RING_SQ, c->pos, io);
	uint32_t add = 0, apos = 0;
	if (!r0 || r0->kind != CHAINOBJ_RELOC_SQ_COUNT || r0->target != L ||
	    !lap_adder(v, L, c->pos, io, &add, &apos) || add != q->sq_slots || apos >= c->pos)
		return reject(rep, CHAIN_VERIFY_E_LAP,
		              "queue %s: the lap-closing SEND_EN (wqe %u) must advance by the ring "
		              "(%u) once per lap, before it runs, and by nothing else",
		              q->name, c->pos, q->sq_slots);
	const struct prism_wqe *cw = &v->d[L][q->recycle.counter_wqe].w;
	uint32_t co = field_off(cw, PRISM_FIELD_WAIT_EN_INDEX), cpos = 0;
	if (!lap_adder(v, L, q->recycle.counter_wqe, co, &add, &cpos) || add == 0 ||
	    (cw->ctrl.opcode == PRISM_OP_SEND_ENABLE ? add != q->sq_slots
	                                             : add != q->recycle.cq_per_lap))
		return reject(rep, CHAIN_VERIFY_E_LAP,
		              "queue %s: the lap counter (wqe %u) does not grow by one lap's "
		              "amount (not 0) every lap",
		              q->name, q->recycle.counter_wqe);
	/* the bound test */
	for (uint32_t k = 0; k < o->n_patches; k++) {
		const struct chainobj_patch *pt = &o->patches[k];
		if (pt->kind != CHAINOBJ_PATCH_MASKED_CAS || pt->writer_ring != CHAINOBJ_RING_SQ ||
		    pt->writer_queue != L || pt->target.queue != L || pt->target.wqe != c->pos ||
		    pt->target.offset != 16 || pt->target.width != 16 || pt->writer_wqe <= apos ||
		    pt->writer_wqe >= c->pos)
			continue;
		const struct prism_wqe *g = &v->d[L][pt->writer_wqe].w;
		struct enable out;
		if (g->atomic.size != 16 || !enable_of_retarget(v, L, pt->writer_wqe, &out) ||
		    out.tq == L)
			continue;
		/* compares exactly C's index bytes (low 16 bits) */
		static const uint8_t want[16] = {[10] = 0xff, [11] = 0xff};
		if (memcmp(g->atomic.compare_mask_bytes, want, 16) != 0)
			continue;
		uint32_t cmpo = field_off(g, PRISM_FIELD_ATOMIC_COMPARE);
		const struct chainobj_reloc *rb =
		    reloc_at(v, L, CHAINOBJ_RING_SQ, pt->writer_wqe, cmpo + 8);
		if (!rb || rb->kind != CHAINOBJ_RELOC_SQ_COUNT || rb->target != L ||
		    rb->delta <= r0->delta || (rb->delta - r0->delta) % q->sq_slots)
			continue;
		uint32_t laps = (rb->delta - r0->delta) / q->sq_slots;
		if (laps > q->recycle.max_laps)
			return reject(rep, CHAIN_VERIFY_E_LAP,
			              "queue %s: the bound test stops after %u laps, the object "
			              "declares at most %u",
			              q->name, laps, q->recycle.max_laps);
		return 0;
	}
	return reject(rep, CHAIN_VERIFY_E_LAP,
	              "queue %s recycles without a bound test (a masked CAS that retargets its "
	              "lap-closing SEND_EN out of the queue when its index reaches the last "
	              "lap's)",
	              q->name);
}

static int check_patches(const struct vctx *v, struct chain_verify_report *rep)
{
	const struct chainobj *o = v->o;
	for (uint32_t i = 0; i < o->n_patches; i++) {
		const struct chainobj_patch *pt = &o->patches[i];
		uint32_t tq = pt->target.queue, tw = pt->target.wqe;
		if (pt->target.ring != CHAINOBJ_RING_SQ)
			continue;
		const struct chainobj_queue *q = &o->queues[tq];
		if (q->recycle.max_laps && pt->writer_ring == CHAINOBJ_RING_SQ &&
		    pt->writer_queue == tq) {
			int rc = check_lap_patch(v, pt, rep);
			if (rc)
				return rc;
			continue;
		}
		const struct chainobj_wqe *t = &q->sq[tw];
		if (!q->managed_send)
			return reject(rep, CHAIN_VERIFY_E_UNMANAGED_PATCH,
			              "queue %s wqe %u is rewritten at run time (%s) but the queue "
			              "is not managed: the NIC may prefetch it",
			              q->name, tw, chainobj_patch_kind_name(pt->kind));
		struct enable ens[64];
		unsigned nen = first_enables(v, tq, t->slot, ens, 64);
		if (nen == 0)
			return reject(rep, CHAIN_VERIFY_E_NO_ENABLE,
			              "queue %s wqe %u (slot %u) is never enabled", q->name, tw,
			              t->slot);
		bool recv = pt->writer_ring == CHAINOBJ_RING_RQ;
		for (unsigned k = 0; k < nen; k++) {
			if (ordered_after(v, &ens[k], pt->writer_queue, pt->writer_wqe, recv, 0))
				continue;
			return reject(
			    rep, CHAIN_VERIFY_E_PREFETCH,
			    "queue %s wqe %u is rewritten by %s %s wqe %u, but the "
			    "SEND_EN at %s wqe %u%s that enables it does not wait for that "
			    "writer's completion",
			    q->name, tw, chainobj_patch_kind_name(pt->kind),
			    o->queues[pt->writer_queue].name, pt->writer_wqe,
			    o->queues[ens[k].q].name, ens[k].pos,
			    ens[k].retarget ? " (as a loop exit)" : "");
		}
		/* client bytes: only declared fields, with region keys */
		if (recv) {
			struct prism_wqe armed = armed_view(v, tq, tw);
			const struct prism_wqe *w = &armed;
			if (!client_field_ok(o, w, pt->target.offset, pt->target.width))
				return reject(
				    rep, CHAIN_VERIFY_E_CLIENT_FIELD,
				    "queue %s wqe %u (%s): client bytes land at bytes "
				    "%u..%u, which is not an address, operand or data field",
				    q->name, tw, prism_opcode_name(w->ctrl.opcode),
				    pt->target.offset, pt->target.offset + pt->target.width - 1);
			int rc = key_for(v, tq, tw, w, pt->target.offset,
			                 param_of_sge(o, pt->writer_sge), rep);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/*
 * Client bytes that travel further: the RECV may fill scratch (staged
 * arguments) or WQE fields, and a READ of that memory (or an atomic on
 * scratch with a client operand) moves them on.  Taint is tracked per byte
 * of scratch and of every SQ template, to a fixpoint; a READ scatter that
 * carries tainted bytes into queue memory must land in a field a client may
 * fill, with a region key, exactly like a RECV scatter (check_patches).
 */
struct taint {
	uint8_t *scratch;
	uint32_t scratch_len;
	uint8_t **wqe; /* per queue: bytes of every template, back to back */
	uint32_t **base;
};

static bool taint_any(const uint8_t *m, uint32_t len, uint64_t off, uint64_t n)
{
	for (uint64_t i = off; i < off + n && i < len; i++)
		if (m[i])
			return true;
	return false;
}

static bool taint_set(uint8_t *m, uint32_t len, uint64_t off, uint64_t n)
{
	bool changed = false;
	for (uint64_t i = off; i < off + n && i < len; i++) {
		changed |= !m[i];
		m[i] = 1;
	}
	return changed;
}

/* Template bytes a QBUF_ADDR relocation points at: queue, wqe, offset. */
static bool qbuf_source(const struct chainobj *o, const struct chainobj_reloc *r, uint32_t *wqe)
{
	if (r->target >= o->n_queues || r->ring != CHAINOBJ_RING_SQ)
		return false;
	const struct chainobj_queue *q = &o->queues[r->target];
	for (uint32_t j = 0; j < q->n_sq; j++)
		if (q->sq[j].slot == r->delta && r->addend < q->sq[j].len) {
			*wqe = j;
			return true;
		}
	return false;
}

static uint8_t *wqe_map(struct taint *t, uint32_t q, uint32_t w)
{
	return t->wqe[q] + t->base[q][w];
}

static int taint_pass(const struct vctx *v, struct taint *t, bool *changed,
                      struct chain_verify_report *rep)
{
	const struct chainobj *o = v->o;
	for (uint32_t q = 0; q < o->n_queues; q++) {
		for (uint32_t i = 0; i < o->queues[q].n_sq; i++) {
			const struct prism_wqe *w = &v->d[q][i].w;
			uint8_t op = w->ctrl.opcode;
			uint32_t ro = field_off(w, PRISM_FIELD_RADDR);
			if (ro == UINT32_MAX)
				continue;
			const struct chainobj_reloc *r = reloc_at(v, q, CHAINOBJ_RING_SQ, i, ro);
			if (!r)
				continue;
			const uint8_t *src = NULL;
			uint32_t src_len = 0;
			uint64_t src_off = r->addend;
			uint32_t sw;
			if (r->kind == CHAINOBJ_RELOC_SCRATCH_ADDR) {
				src = t->scratch;
				src_len = t->scratch_len;
			} else if (r->kind == CHAINOBJ_RELOC_QBUF_ADDR && qbuf_source(o, r, &sw)) {
				src = wqe_map(t, r->target, sw);
				src_len = o->queues[r->target].sq[sw].len;
			} else {
				continue;
			}
			if (op != PRISM_OP_RDMA_READ) {
				/* an atomic on scratch with a client operand: its
				 * target bytes become client data */
				if (r->kind != CHAINOBJ_RELOC_SCRATCH_ADDR || !w->has_atomic)
					continue;
				const uint8_t *me = wqe_map(t, q, i);
				if (taint_any(me, o->queues[q].sq[i].len, ro + 16,
				              o->queues[q].sq[i].len))
					*changed |= taint_set(t->scratch, t->scratch_len, r->addend,
					                      w->atomic.size ? w->atomic.size : 8);
				continue;
			}
			uint64_t d = 0;
			for (uint32_t k = 0; k < w->num_sge; k++) {
				uint32_t len = w->sge[k].byte_count;
				bool hot = taint_any(src, src_len, src_off + d, len);
				d += len;
				if (!hot)
					continue;
				uint32_t so = field_off(w, PRISM_FIELD_SGE0_ADDR) + 16 * k;
				const struct chainobj_reloc *dr =
				    reloc_at(v, q, CHAINOBJ_RING_SQ, i, so);
				if (dr && dr->kind == CHAINOBJ_RELOC_SCRATCH_ADDR) {
					*changed |=
					    taint_set(t->scratch, t->scratch_len, dr->addend, len);
					continue;
				}
				bool declared = false;
				for (uint32_t pi = 0; pi < o->n_patches; pi++) {
					const struct chainobj_patch *pt = &o->patches[pi];
					if (pt->writer_ring != CHAINOBJ_RING_SQ ||
					    pt->writer_queue != q || pt->writer_wqe != i ||
					    pt->writer_sge != k ||
					    pt->target.ring != CHAINOBJ_RING_SQ)
						continue;
					declared = true;
					uint32_t tq = pt->target.queue, tw = pt->target.wqe;
					struct prism_wqe armed = armed_view(v, tq, tw);
					if (!client_field_ok(o, &armed, pt->target.offset,
					                     pt->target.width))
						return reject(
						    rep, CHAIN_VERIFY_E_CLIENT_FIELD,
						    "queue %s wqe %u (%s): client bytes copied by "
						    "queue %s wqe %u land at bytes %u..%u, which "
						    "is "
						    "not an address, operand or data field",
						    o->queues[tq].name, tw,
						    prism_opcode_name(armed.ctrl.opcode),
						    o->queues[q].name, i, pt->target.offset,
						    pt->target.offset + pt->target.width - 1);
					int rc = key_for(v, tq, tw, &armed, pt->target.offset, NULL,
					                 rep);
					if (rc)
						return rc;
					*changed |=
					    taint_set(wqe_map(t, tq, tw), o->queues[tq].sq[tw].len,
					              pt->target.offset, pt->target.width);
				}
				/* client bytes into queue memory without a patch site */
				if (!declared && dr && dr->kind == CHAINOBJ_RELOC_QBUF_ADDR)
					return reject(
					    rep, CHAIN_VERIFY_E_HIDDEN_PATCH,
					    "queue %s wqe %u entry %u copies client bytes "
					    "into queue %s memory without a patch site",
					    o->queues[q].name, i, k, o->queues[dr->target].name);
			}
		}
	}
	return 0;
}

static int check_client_copies(const struct vctx *v, struct chain_verify_report *rep)
{
	const struct chainobj *o = v->o;
	struct taint t = {.scratch_len = o->scratch_size};
	int rc = 0;
	t.scratch = calloc(o->scratch_size ? o->scratch_size : 1, 1);
	t.wqe = calloc(o->n_queues ? o->n_queues : 1, sizeof(*t.wqe));
	t.base = calloc(o->n_queues ? o->n_queues : 1, sizeof(*t.base));
	if (!t.scratch || !t.wqe || !t.base) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t q = 0; q < o->n_queues; q++) {
		const struct chainobj_queue *cq = &o->queues[q];
		uint32_t total = 0;
		t.base[q] = calloc(cq->n_sq ? cq->n_sq : 1, sizeof(**t.base));
		if (!t.base[q]) {
			rc = -ENOMEM;
			goto out;
		}
		for (uint32_t i = 0; i < cq->n_sq; i++) {
			t.base[q][i] = total;
			total += cq->sq[i].len;
		}
		t.wqe[q] = calloc(total ? total : 1, 1);
		if (!t.wqe[q]) {
			rc = -ENOMEM;
			goto out;
		}
	}
	/* seeds: RECV scatters into scratch and into WQE fields */
	for (uint32_t q = 0; q < o->n_queues; q++)
		for (uint32_t ri = 0; ri < o->queues[q].n_rq; ri++) {
			const struct chainobj_wqe *rw = &o->queues[q].rq[ri];
			for (uint32_t s = 0; s < 16 && 16 * s + 16 <= rw->len; s++) {
				const struct chainobj_reloc *r =
				    reloc_at(v, q, CHAINOBJ_RING_RQ, ri, 16 * s + 8);
				if (!r || r->kind != CHAINOBJ_RELOC_SCRATCH_ADDR)
					continue;
				const uint8_t *b = rw->bytes + 16 * s;
				uint32_t len = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
				               (uint32_t)b[2] << 8 | b[3];
				taint_set(t.scratch, t.scratch_len, r->addend, len);
			}
		}
	for (uint32_t i = 0; i < o->n_patches; i++) {
		const struct chainobj_patch *pt = &o->patches[i];
		if (pt->writer_ring == CHAINOBJ_RING_RQ && pt->target.ring == CHAINOBJ_RING_SQ)
			taint_set(wqe_map(&t, pt->target.queue, pt->target.wqe),
			          o->queues[pt->target.queue].sq[pt->target.wqe].len,
			          pt->target.offset, pt->target.width);
	}
	/* every pass taints at least one more byte or stops */
	for (unsigned pass = 0; pass < 64 && rc == 0; pass++) {
		bool changed = false;
		rc = taint_pass(v, &t, &changed, rep);
		if (!changed)
			break;
	}
out:
	for (uint32_t q = 0; t.wqe && t.base && q < o->n_queues; q++) {
		free(t.wqe[q]);
		free(t.base[q]);
	}
	free(t.wqe);
	free(t.base);
	free(t.scratch);
	return rc;
}

/* Every receive scatter into queue memory must be a declared patch. */
/*
 * Where receive entry @s of @ri (queue @qi) lands in queue memory, as its
 * qbuf-addr relocation @r places it: the template of ring r->ring of queue
 * r->target covering window byte delta * unit + addend, and the offset in
 * it.  False when no template covers it.
 */
static bool recv_landing(const struct chainobj *o, const struct chainobj_reloc *r, uint32_t *wqe,
                         uint32_t *off)
{
	const struct chainobj_queue *t = &o->queues[r->target];
	bool sq = r->ring == CHAINOBJ_RING_SQ;
	uint64_t unit = sq ? PRISM_WQE_BB : t->rq_stride_ds * 16u;
	uint64_t pos = (uint64_t)r->delta * unit + r->addend;
	uint32_t n = sq ? t->n_sq : t->n_rq;

	for (uint32_t j = 0; j < n; j++) {
		const struct chainobj_wqe *w = sq ? &t->sq[j] : &t->rq[j];
		uint64_t lo = (uint64_t)w->slot * unit;

		if (pos >= lo && pos < lo + w->len) {
			*wqe = j;
			*off = (uint32_t)(pos - lo);
			return true;
		}
	}
	return false;
}

/* A declared recv-scatter patch of exactly these bytes by this entry?
 * (@wqe UINT32_MAX: any patch of this entry into r->target's memory.) */
static bool recv_declared(const struct chainobj *o, uint32_t qi, uint32_t ri, uint32_t s,
                          const struct chainobj_reloc *r, uint32_t wqe, uint32_t off, uint32_t len)
{
	for (uint32_t i = 0; i < o->n_patches; i++) {
		const struct chainobj_patch *pt = &o->patches[i];

		if (pt->writer_ring != CHAINOBJ_RING_RQ || pt->writer_queue != qi ||
		    pt->writer_wqe != ri || pt->writer_sge != s || pt->target.queue != r->target)
			continue;
		if (wqe == UINT32_MAX)
			return true;
		if (pt->kind == CHAINOBJ_PATCH_RECV_SCATTER && pt->target.ring == r->ring &&
		    pt->target.wqe == wqe && pt->target.offset == off && pt->target.width == len)
			return true;
	}
	return false;
}

/*
 * Every byte a receive scatters is client-controlled.  Each entry that
 * carries bytes must land exactly where the object says: in queue memory,
 * on a declared recv-scatter site of the same WQE, offset and width (whose
 * field check_patches judged); in a region the program declares writable,
 * inside it; or in scratch, inside it.  Its lkey must be the key of that
 * same memory.  A fixed address or any other relocation is refused.
 */
static int check_recv_entry(const struct vctx *v, uint32_t qi, uint32_t ri, uint32_t s,
                            uint32_t len, struct chain_verify_report *rep)
{
	const struct chainobj *o = v->o;
	const char *qn = o->queues[qi].name;
	const struct chainobj_reloc *r = reloc_at(v, qi, CHAINOBJ_RING_RQ, ri, 16 * s + 8);
	const struct chainobj_reloc *k = reloc_at(v, qi, CHAINOBJ_RING_RQ, ri, 16 * s + 4);
	enum chainobj_reloc_kind key = CHAINOBJ_RELOC__COUNT;
	uint32_t wqe, off;

	if (!r || r->site.width != 8)
		return reject(rep, CHAIN_VERIFY_E_RECV_TARGET,
		              "queue %s receive %u entry %u: its address is not relocated", qn, ri,
		              s);
	switch (r->kind) {
	case CHAINOBJ_RELOC_QBUF_ADDR:
		if (!recv_declared(o, qi, ri, s, r, UINT32_MAX, 0, 0))
			return reject(rep, CHAIN_VERIFY_E_HIDDEN_PATCH,
			              "queue %s receive %u entry %u scatters into queue %s memory "
			              "without a patch site",
			              qn, ri, s, o->queues[r->target].name);
		if (!recv_landing(o, r, &wqe, &off) ||
		    !recv_declared(o, qi, ri, s, r, wqe, off, len))
			return reject(rep, CHAIN_VERIFY_E_RECV_TARGET,
			              "queue %s receive %u entry %u: its %u bytes land in queue %s "
			              "memory at no declared recv-scatter site of that width",
			              qn, ri, s, len, o->queues[r->target].name);
		key = CHAINOBJ_RELOC_QBUF_LKEY;
		break;
	case CHAINOBJ_RELOC_REGION_ADDR:
		if (!(o->regions[r->target].access & CHAINOBJ_ACC_WRITE) ||
		    r->addend > o->regions[r->target].size ||
		    len > o->regions[r->target].size - r->addend)
			return reject(
			    rep, CHAIN_VERIFY_E_RECV_TARGET,
			    "queue %s receive %u entry %u: its %u bytes land in region %s "
			    "at %llu, which is %s",
			    qn, ri, s, len, o->regions[r->target].name,
			    (unsigned long long)r->addend,
			    o->regions[r->target].access & CHAINOBJ_ACC_WRITE
			        ? "outside it"
			        : "not declared writable");
		key = CHAINOBJ_RELOC_REGION_LKEY;
		break;
	case CHAINOBJ_RELOC_SCRATCH_ADDR:
		if (r->addend > o->scratch_size || len > o->scratch_size - r->addend)
			return reject(rep, CHAIN_VERIFY_E_RECV_TARGET,
			              "queue %s receive %u entry %u: its %u bytes at scratch %llu "
			              "run past the scratch area",
			              qn, ri, s, len, (unsigned long long)r->addend);
		key = CHAINOBJ_RELOC_SCRATCH_LKEY;
		break;
	default:
		return reject(rep, CHAIN_VERIFY_E_RECV_TARGET,
		              "queue %s receive %u entry %u: client bytes go to a %s address", qn,
		              ri, s, chainobj_reloc_kind_name(r->kind));
	}
	if (!k || k->kind != key || k->site.width != 4 ||
	    (key != CHAINOBJ_RELOC_SCRATCH_LKEY && k->target != r->target))
		return reject(rep, CHAIN_VERIFY_E_RECV_TARGET,
		              "queue %s receive %u entry %u: its lkey is not the key of the memory "
		              "its address names",
		              qn, ri, s);
	return 0;
}

static int check_recv(const struct vctx *v, struct chain_verify_report *rep)
{
	const struct chainobj *o = v->o;

	for (uint32_t qi = 0; qi < o->n_queues; qi++) {
		const struct chainobj_queue *q = &o->queues[qi];

		for (uint32_t ri = 0; ri < q->n_rq; ri++) {
			struct prism_sge sge[PRISM_WQE_MAX_SGE];
			int n = prism_rwqe_decode(q->rq[ri].bytes, q->rq_stride_ds, sge,
			                          PRISM_WQE_MAX_SGE, NULL);

			if (n < 0)
				return reject(rep, CHAIN_VERIFY_E_STRUCTURE,
				              "queue %s receive %u does not decode", q->name, ri);
			for (int s = 0; s < n; s++) {
				int rc;

				if (sge[s].byte_count == 0)
					continue;
				rc = check_recv_entry(v, qi, ri, (uint32_t)s, sge[s].byte_count,
				                      rep);
				if (rc)
					return rc;
			}
		}
	}
	return 0;
}

static int run(const struct chainobj *o, uint32_t budget, struct chain_verify_report *rep)
{
	struct vctx v = {.o = o};
	struct diag_report cd;
	int rc = 0;
	if (chainobj_validate(o, &cd) != 0)
		return reject(rep, CHAIN_VERIFY_E_STRUCTURE, "%s", cd.msg);
	v.d = calloc(o->n_queues ? o->n_queues : 1, sizeof(*v.d));
	const struct chainobj_reloc **sorted =
	    malloc((o->n_relocs ? o->n_relocs : 1) * sizeof(*sorted));
	if (!v.d || !sorted) {
		free(v.d);
		free(sorted);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < o->n_relocs; i++)
		sorted[i] = &o->relocs[i];
	qsort(sorted, o->n_relocs, sizeof(*sorted), reloc_sort_cmp);
	v.sorted = sorted;
	v.nsorted = o->n_relocs;
	uint32_t total = 0;
	for (uint32_t q = 0; q < o->n_queues && rc == 0; q++) {
		const struct chainobj_queue *cq = &o->queues[q];
		v.d[q] = calloc(cq->n_sq ? cq->n_sq : 1, sizeof(**v.d));
		if (!v.d[q]) {
			rc = -ENOMEM;
			break;
		}
		uint32_t sig = 0;
		for (uint32_t i = 0; i < cq->n_sq; i++) {
			struct prism_wqe_diag d;
			if (prism_wqe_decode(cq->sq[i].bytes, cq->sq[i].len, &v.d[q][i].w, &d) <
			    0) {
				rc = reject(rep, CHAIN_VERIFY_E_STRUCTURE, "queue %s wqe %u: %s",
				            cq->name, i, d.msg);
				break;
			}
			if (prism_ctrl_ce(&v.d[q][i].w.ctrl) >= PRISM_CE_CQ_UPDATE)
				v.d[q][i].count = ++sig;
			if (v.d[q][i].w.ctrl.opcode == PRISM_OP_SEND_ENABLE)
				rep->barriers++;
		}
		total += cq->n_sq * (cq->recycle.max_laps ? cq->recycle.max_laps : 1);
		if (rc == 0 &&
		    (cq->sq_per_invocation > cq->sq_slots || cq->rq_per_invocation > cq->rq_slots))
			rc = reject(rep, CHAIN_VERIFY_E_RING,
			            "queue %s needs %u send slots per invocation, its ring has %u",
			            cq->name, cq->sq_per_invocation, cq->sq_slots);
	}
	if (rc == 0 && total > budget)
		rc = reject(rep, CHAIN_VERIFY_E_BUDGET, "%u WQEs per invocation, budget %u", total,
		            budget);
	rep->wr_per_invocation = total;
	if (rc == 0)
		rc = collect_enables(&v);
	for (uint32_t q = 0; q < o->n_queues && rc == 0; q++)
		if (o->queues[q].recycle.max_laps)
			rc = check_lap_queue(&v, q, rep);
	if (rc == 0)
		rc = check_patches(&v, rep);
	if (rc == 0)
		rc = check_recv(&v, rep);
	if (rc == 0)
		rc = check_client_copies(&v, rep);
	for (uint32_t i = 0; i < o->n_relocs; i++) {
		const struct chainobj_reloc *r = &o->relocs[i];
		if (chainobj_reloc_kind_ref(r->kind) == CHAINOBJ_REF_REGION && r->target < 32)
			rep->regions_touched |= 1u << r->target;
	}
	for (uint32_t q = 0; q < o->n_queues; q++)
		free(v.d[q]);
	free(v.d);
	free(v.ens);
	free(sorted);
	return rc;
}

uint32_t chain_verify_assumes(const struct chainobj *o)
{
	uint32_t a = 0;

	for (uint32_t q = 0; q < o->n_queues; q++)
		for (uint32_t i = 0; i < o->queues[q].n_sq; i++) {
			const struct chainobj_wqe *t = &o->queues[q].sq[i];
			struct prism_wqe w;

			if (o->queues[q].managed_send && t->len > PRISM_WQE_BB)
				a |= CHAINOBJ_ASSUME_SEND_EN_BB_UNITS;
			if (prism_wqe_decode(t->bytes, t->len, &w, NULL) > 0 &&
			    (w.ctrl.opcode == PRISM_OP_SEND_ENABLE ||
			     w.ctrl.opcode == PRISM_OP_RECV_ENABLE) &&
			    prism_ctrl_fence(&w.ctrl) != PRISM_FENCE_NONE)
				a |= CHAINOBJ_ASSUME_FENCED_ENABLE;
		}
	return a;
}

int chain_verify(const struct chainobj *o, uint32_t wr_budget, struct chain_verify_report *rep)
{
	memset(rep, 0, sizeof(*rep));
	if (!o)
		return reject(rep, CHAIN_VERIFY_E_STRUCTURE, "no object");
	return run(o, wr_budget ? wr_budget : CHAIN_VERIFY_WR_BUDGET, rep);
}

int chain_verify_fill_summary(struct chainobj *o, uint32_t wr_budget,
                              struct chain_verify_report *rep)
{
	int rc = chain_verify(o, wr_budget, rep);
	if (rc)
		return rc;
	o->summary.verified = true;
	o->summary.wr_per_invocation = rep->wr_per_invocation;
	o->summary.barriers = rep->barriers;
	for (uint32_t r = 0; r < o->n_regions && r < 32; r++) {
		if (!(rep->regions_touched & (1u << r)))
			continue;
		struct chainobj_touch *t = chainobj_add_touch(o);
		if (!t)
			return -ENOMEM;
		t->region = r;
		t->access = o->regions[r].access;
	}
	return 0;
}
