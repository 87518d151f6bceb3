/* SPDX-License-Identifier: MIT */
/*
 * sim/sim_pkt.h - the packet paths the engine's files share: the device's
 * packet free list, the packet queue, and sending (sim_wire.c owns them).
 *
 * Hot paths (one allocation, free, push, pop and send per packet) are
 * static inline here; their rare cases stay out of line in sim_wire.c.
 *
 * Must not: be included except through sim/sim_internal.h (it needs the
 * structures defined there).  Never installed.
 */
#ifndef PRISM_SIM_PKT_H
#define PRISM_SIM_PKT_H

#ifndef PRISM_SIM_INTERNAL_H
#error "include sim/sim_internal.h"
#endif

/* Packets come from @dev's free list (@dev NULL: plain malloc, for callers
 * without dev->lock) and go back to the list of the device that frees them
 * (NULL: free()).  A packet may be freed by another device than the one
 * that allocated it (fabric).  The list's fast paths are inline below. */
#define SIM_PKT_HDR_BYTES offsetof(struct sim_pkt, swap) /* header before the atomic operands */
#define SIM_PKT_POOL_MAX  4096u
/* Packets delivered from outside (plain malloc) stay in the list only while
 * it is shorter than this: otherwise a device whose NIC takes few packets
 * from its list would keep every delivered one, growing its heap (a
 * syscall a page) until the list is full. */
#define SIM_PKT_POOL_OUTSIDE 64u
_Static_assert(SIM_PKT_POOL_OUTSIDE < SIM_PKT_POOL_MAX, "sim_pkt_unpooled's order of tests");
#if defined(__SANITIZE_ADDRESS__)
#define SIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIM_ASAN 1
#endif
#endif
#ifdef SIM_ASAN
#include <sanitizer/asan_interface.h>
#define sim_pkt_pool_poison(p)   ASAN_POISON_MEMORY_REGION((p), sizeof(struct sim_pkt))
#define sim_pkt_pool_unpoison(p) ASAN_UNPOISON_MEMORY_REGION((p), sizeof(struct sim_pkt))
#else
#define sim_pkt_pool_poison(p)   ((void)(p))
#define sim_pkt_pool_unpoison(p) ((void)(p))
#endif
static inline struct sim_pkt_box *sim_pkt_box(struct sim_pkt *p)
{
	return (struct sim_pkt_box *)(void *)((char *)p - offsetof(struct sim_pkt_box, pkt));
}
/* The free list's link lives in the payload area (never poisoned). */
static inline struct sim_pkt **sim_pkt_pool_link(struct sim_pkt *p)
{
	return (struct sim_pkt **)(void *)(p + 1);
}
struct sim_pkt *sim_pkt_alloc_slow(struct sim_dev *dev, uint32_t payload_len);
void sim_pkt_free_slow(struct sim_dev *dev, struct sim_pkt *p);
static inline struct sim_pkt *sim_pkt_alloc(struct sim_dev *dev, uint32_t payload_len)
{
	struct sim_pkt *p;

	if (!dev || !dev->pkt_free || payload_len > SIM_PKT_SMALL)
		return sim_pkt_alloc_slow(dev, payload_len);
	p = dev->pkt_free;
	dev->pkt_free = *sim_pkt_pool_link(p);
	dev->npkt_free--;
	sim_pkt_pool_unpoison(p);
	sim_pkt_box(p)->lender = NULL;
	sim_pkt_box(p)->outside = 0;
	/* The atomic operands (128 bytes) are read only in atomic requests,
	 * whose builder (sim_exec_atomic) zeroes them. */
	memset(p, 0, SIM_PKT_HDR_BYTES);
	p->payload_len = payload_len;
	p->payload = payload_len ? (uint8_t *)(p + 1) : NULL;
	return p;
}
/* The packet of @qp's response to @req (@payload_len bytes), to be sent at
 * once: the device's fold packet when @req is a loopback request being
 * served in VTIME mode and the response is due at its time (@qp sent
 * nothing later, and queued nothing in the inbox at that time that may still
 * wait there: one QP's packets arrive in order, rule 6.5), else one from the
 * free list. */
static inline struct sim_pkt *sim_reply_alloc(struct sim_qp *qp, const struct sim_pkt *req,
                                              uint32_t payload_len)
{
	struct sim_dev *dev = qp->dev;
	struct sim_pkt *p;

	/* inbox_after is at most last_tx_t + 1 (set with it, which only
	 * grows): it can keep the fold only when @qp last sent at req->t */
	if (dev->fold_state != SIM_FOLD_OPEN || payload_len > SIM_PKT_SMALL ||
	    (qp->last_tx_t >= req->t && (qp->last_tx_t > req->t || qp->inbox_after > req->t)))
		return sim_pkt_alloc(dev, payload_len);
	dev->fold_state = SIM_FOLD_TAKEN;
	p = &dev->fold.box.pkt;
	/* its header, stale until then, is written by respond() (whole
	 * with an observer; without one what its readers read) */
	p->payload_len = payload_len;
	p->payload = payload_len ? dev->fold.room : NULL;
	return p;
}
/* Does @p go back to free() rather than onto @dev's list? */
static inline bool sim_pkt_unpooled(const struct sim_dev *dev, struct sim_pkt *p)
{
	/* SIM_PKT_POOL_OUTSIDE < SIM_PKT_POOL_MAX: one compare while the list is short */
	return !dev || p->payload_len > SIM_PKT_SMALL ||
	       (dev->npkt_free >= SIM_PKT_POOL_OUTSIDE &&
	        (sim_pkt_box(p)->outside || dev->npkt_free >= SIM_PKT_POOL_MAX));
}
static inline void sim_pkt_free(struct sim_dev *dev, struct sim_pkt *p)
{
	if (!p || sim_pkt_unpooled(dev, p)) {
		sim_pkt_free_slow(dev, p);
		return;
	}
	*sim_pkt_pool_link(p) = dev->pkt_free;
	dev->pkt_free = p;
	dev->npkt_free++;
	sim_pkt_pool_poison(p);
}
/* Entry @o lets go of its request: a lent one (still in the inbox) is only
 * forgotten, its delivery frees it; a copy is freed. */
static inline void sim_outst_drop_req(struct sim_dev *dev, struct sim_outst *o)
{
	if (!o->req)
		return; /* nothing kept (req_lent implies a request) */
	if (o->req_lent)
		sim_pkt_box(o->req)->lender = NULL;
	else
		sim_pkt_free(dev, o->req);
	o->req = NULL;
	o->req_lent = false;
}
struct sim_pkt *sim_pkt_clone(struct sim_dev *dev, const struct sim_pkt *p);
void sim_pkt_pool_free(struct sim_dev *dev);
/* The packet queue (struct sim_pktq): push and pop inline, one each per
 * packet; pushes that must move entries or make room go out of line. */
int sim_pktq_push_slow(struct sim_pktq *q, struct sim_pkt *p); /* 0 or -ENOMEM */
static inline int sim_pktq_push(struct sim_pktq *q, struct sim_pkt *p)
{
	uint32_t n = q->n;

	if (__builtin_expect(n == q->room || (n && q->front[n - 1].t > p->t), 0))
		return sim_pktq_push_slow(q, p);
	q->front[n] = (struct sim_pktq_ent){.t = p->t, .p = p};
	q->n = n + 1;
	return 0;
}
static inline struct sim_pkt *sim_pktq_peek(struct sim_pktq *q)
{
	return q->n ? q->front->p : NULL;
}
static inline struct sim_pkt *sim_pktq_pop(struct sim_pktq *q)
{
	if (!q->n)
		return NULL;
	q->n--;
	q->room--;
	return q->front++->p;
}
void sim_pktq_free(struct sim_pktq *q);
/* Sends @p (takes ownership), from @src (p->src_qpn): loopback into the
 * inbox, or the transport.  The folded response (sim_reply_alloc) is not
 * sent anywhere: sim_wire_rx takes it right after its request.  Without an
 * observer (no PKT_TX event) a loopback send is inline here: @src's send
 * time, the count, and the inbox. */
int sim_wire_xmit_any(struct sim_qp *src, struct sim_pkt *p);
/* One QP's packets leave in order: @p no earlier than @src's last. */
static inline void sim_wire_sent(struct sim_dev *dev, struct sim_qp *src, struct sim_pkt *p)
{
	if (p->t < src->last_tx_t)
		p->t = src->last_tx_t;
	src->last_tx_t = p->t;
	dev->st.pkts++;
}
/* @p to this device itself: into its inbox, or (the folded response) to be
 * taken in this step. */
static inline int sim_wire_loopback(struct sim_dev *dev, struct sim_qp *src, struct sim_pkt *p)
{
	int rc;

	if (p == &dev->fold.box.pkt)
		return 0;
	src->inbox_after = p->t + 1;
	rc = sim_pktq_push(&dev->inbox, p);
	if (rc)
		sim_pkt_free(dev, p);
	return rc;
}
static inline int sim_wire_xmit(struct sim_qp *src, struct sim_pkt *p)
{
	struct sim_dev *dev = src->dev;

	if (p->dst_node != dev->quiet_dst) /* another node, or an observer */
		return sim_wire_xmit_any(src, p);
	sim_wire_sent(dev, src, p);
	return sim_wire_loopback(dev, src, p);
}
/* Processes one inbound packet. */
void sim_wire_rx(struct sim_dev *dev, struct sim_pkt *p);
void sim_inbox_drain_async(struct sim_dev *dev);
/* Frees the packets @qp holds back and takes it off dev->tx_held (dev->lock). */
void sim_qp_txq_drop(struct sim_qp *qp);
void sim_progress_bump(struct sim_dev *dev);

#endif /* PRISM_SIM_PKT_H */
