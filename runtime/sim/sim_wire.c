/* SPDX-License-Identifier: MIT */
/*
 * sim_wire.c - the wire between QPs: packets, the device's inbound queue,
 * routing (loopback, in-process fabric, or a plugged-in transport), and
 * the in-process fabric that runs several devices together.
 *
 * Owns: struct sim_pkt memory (each packet in a box whose header names the
 * outstanding entry a loopback request is lent to; sim_wire_rx hands such a
 * request back instead of freeing it), the packet queue (virtual time, then
 * send order: one QP's packets leave in order and arrive in order; the free
 * list's and the queue's per-packet fast paths are inline in
 * sim_internal.h, their slow paths here), transport
 * back-pressure (-EAGAIN keeps a QP's packets in order in that QP's bounded
 * queue; other QPs keep sending; a QP whose queue overflows fails alone), and
 * dispatch of an arriving packet to the requester or responder half.
 *
 * Must not: interpret request semantics (sim_responder.c) or responses
 * (sim_requester.c).
 */
#include <stdlib.h>

#include "sim/sim_internal.h"

struct sim_fabric {
	struct sim_dev **devs;
	uint32_t n;
};

/*
 * Packet memory.  Every packet has room for at least SIM_PKT_SMALL payload
 * bytes, so any packet with a payload that small can be reused for any
 * other: a freed one goes on the freeing device's list (at most
 * SIM_PKT_POOL_MAX of them) and the next allocation takes it back, instead
 * of a malloc/free pair per packet (a RedN get sends 8 and keeps 4 copies).
 * The list's fast paths are inline (sim_internal.h); the rest is here.
 * Under ASan a pooled packet's header is poisoned until it is reused.
 */
struct sim_pkt *sim_pkt_alloc_slow(struct sim_dev *dev, uint32_t payload_len)
{
	struct sim_pkt_box *box;
	struct sim_pkt *p;

	if (dev && dev->pkt_free && payload_len <= SIM_PKT_SMALL)
		return sim_pkt_alloc(dev, payload_len);
	box = malloc(sizeof(*box) + (payload_len > SIM_PKT_SMALL ? payload_len : SIM_PKT_SMALL));
	if (!box)
		return NULL;
	box->lender = NULL;
	box->outside = 0;
	p = &box->pkt;
	/* The atomic operands (128 bytes) are read only in atomic requests,
	 * whose builder (sim_exec_atomic) zeroes them. */
	memset(p, 0, SIM_PKT_HDR_BYTES);
	p->payload_len = payload_len;
	p->payload = payload_len ? (uint8_t *)(p + 1) : NULL;
	return p;
}

struct sim_pkt *sim_pkt_clone(struct sim_dev *dev, const struct sim_pkt *src)
{
	struct sim_pkt *p;

	if (src->payload_len && !src->payload)
		return NULL;
	p = sim_pkt_alloc(dev, src->payload_len);
	if (!p)
		return NULL;
	if (src->kind == SIM_PKT_ATOMIC_REQ)
		*p = *src;
	else
		memcpy(p, src, SIM_PKT_HDR_BYTES);
	p->payload = src->payload_len ? (uint8_t *)(p + 1) : NULL;
	if (src->payload_len)
		memcpy(p->payload, src->payload, src->payload_len);
	return p;
}

void sim_pkt_free_slow(struct sim_dev *dev, struct sim_pkt *p)
{
	if (!p)
		return;
	if (sim_pkt_unpooled(dev, p)) {
		free(sim_pkt_box(p));
		return;
	}
	sim_pkt_free(dev, p);
}

void sim_pkt_pool_free(struct sim_dev *dev)
{
	while (dev->pkt_free) {
		struct sim_pkt *p = dev->pkt_free;

		dev->pkt_free = *sim_pkt_pool_link(p);
		sim_pkt_pool_unpoison(p);
		free(sim_pkt_box(p));
	}
	dev->npkt_free = 0;
}

/* ---- packet queue ------------------------------------------------------- */

/* Room for one entry behind the last, then the push: the live run slides
 * back to the array's start when that frees at least half of it (so a slide
 * moves fewer entries than the pushes since the last one), else the array
 * doubles. */
static __attribute__((noinline)) int pktq_push_no_room(struct sim_pktq *q, struct sim_pkt *p)
{
	size_t off = q->cap ? (size_t)(q->front - q->e) : 0;
	struct sim_pktq_ent *e = q->e;
	uint32_t cap = q->cap;

	if (q->n >= cap / 2) {
		cap = cap ? cap * 2 : 64;
		e = realloc(q->e, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
	}
	memmove(e, e + off, q->n * sizeof(*e));
	q->e = e;
	q->cap = cap;
	q->front = e;
	q->room = cap;
	return sim_pktq_push_slow(q, p);
}

/* The inline push's rare cases (sim_internal.h): a packet earlier than the
 * last one (not in fifo mode), or no slot behind the last entry.  The
 * earlier packet goes before the front when it is earlier than all and a
 * slot is free there (a reply at the time of the packet just taken: one
 * push in four of a RedN get), else behind the last entry not later than
 * it, the later ones moving up one slot. */
int sim_pktq_push_slow(struct sim_pktq *q, struct sim_pkt *p)
{
	struct sim_pktq_ent *f = q->front;
	sim_time_t t = p->t;
	uint32_t i = q->n;

	if (!q->fifo && i && t < f[0].t && f != q->e) {
		/* earlier than all (a reply at the time of the packet just
		 * taken): into the slot before the front */
		q->front = f - 1;
		q->front->t = t;
		q->front->p = p;
		q->n++;
		q->room++;
		return 0;
	}
	if (i == q->room)
		return pktq_push_no_room(q, p);
	if (!q->fifo)
		for (; i && f[i - 1].t > t; i--)
			f[i] = f[i - 1];
	f[i] = (struct sim_pktq_ent){.t = t, .p = p};
	q->n++;
	return 0;
}

void sim_pktq_free(struct sim_pktq *q)
{
	free(q->e);
	q->e = q->front = NULL;
	q->n = q->room = q->cap = 0;
}

/* ---- routing ------------------------------------------------------------ */

static struct sim_dev *fabric_dev(struct sim_fabric *f, uint32_t node)
{
	for (uint32_t i = 0; i < f->n; i++)
		if (f->devs[i]->o.node == node)
			return f->devs[i];
	return NULL;
}

/* Hands an owned packet to another device's asynchronous inbox. */
static int enqueue_async(struct sim_dev *dev, struct sim_pkt *p)
{
	int rc;

	sim_pkt_box(p)->outside = 1 + __atomic_load_n(&dev->qp_births, __ATOMIC_ACQUIRE);
	pthread_mutex_lock(&dev->inbox_lock);
	rc = sim_pktq_push(&dev->rx_async, p);
	pthread_mutex_unlock(&dev->inbox_lock);
	if (rc) {
		sim_pkt_free(NULL, p); /* @dev's lock is not held here */
		return rc;
	}
	sim_thread_wake(dev);
	return 0;
}

/* PKT_TX / PKT_RX (out of line: only with an event observer). */
static __attribute__((noinline)) void emit_pkt(struct sim_dev *dev, enum sim_event_kind k,
                                               uint32_t qpn, const struct sim_pkt *p)
{
	struct sim_event ev = {
	    .kind = k,
	    .t = p->t,
	    .t_end = p->t,
	    .qpn = qpn,
	    .wqe_counter = p->wqe_counter,
	    .opcode = p->opcode,
	    .bytes = p->payload_len,
	    .pkt = p,
	};

	sim_emit(dev, &ev);
}

/* Queue @p behind @qp's refused packets, listing @qp as holding some.  A
 * queue at SIM_QP_TXQ_MAX marks the QP for failure (the next drain fails
 * it: not here, deep inside the send of one of its own WQEs or responses)
 * and drops the packet. */
static int txq_hold(struct sim_dev *dev, struct sim_qp *qp, struct sim_pkt *p)
{
	int rc;

	if (qp->tx_overflow || qp->txq.n >= SIM_QP_TXQ_MAX) {
		qp->tx_overflow = true;
		dev->st.tx_dropped++;
		sim_pkt_free(dev, p);
		return 0;
	}
	qp->txq.fifo = true;
	rc = sim_pktq_push(&qp->txq, p);
	if (rc) {
		sim_pkt_free(dev, p);
		return rc;
	}
	if (!qp->tx_listed) {
		qp->tx_listed = true;
		qp->tx_next = dev->tx_held;
		dev->tx_held = qp;
	}
	return 0;
}

/* Hands @p to the transport.  Back-pressure (-EAGAIN) is per QP: the
 * refused packet waits in its source QP's queue, in order, and other QPs
 * keep sending. */
static int wire_send(struct sim_dev *dev, struct sim_qp *src, struct sim_pkt *p)
{
	int rc;

	if (src->txq.n || src->tx_overflow) /* order behind refused packets */
		return txq_hold(dev, src, p);
	rc = dev->wire->xmit(dev->wire_ctx, p);
	if (rc == -EAGAIN)
		return txq_hold(dev, src, p);
	sim_pkt_free(dev, p);
	return rc < 0 ? rc : 0;
}

int sim_wire_xmit_any(struct sim_qp *src, struct sim_pkt *p)
{
	struct sim_dev *dev = src->dev, *peer;

	sim_wire_sent(dev, src, p);
	if (dev->obs.event) {
		/* out of line: only with an observer */
		emit_pkt(dev, SIM_EV_PKT_TX, p->src_qpn, p);
	}
	if (p->dst_node == dev->o.node)
		return sim_wire_loopback(dev, src, p);
	if (dev->fabric && (peer = fabric_dev(dev->fabric, p->dst_node)))
		return enqueue_async(peer, p);
	if (!dev->wire) {
		sim_pkt_free(dev, p);
		return -EHOSTUNREACH;
	}
	return wire_send(dev, src, p);
}

void sim_qp_txq_drop(struct sim_qp *qp)
{
	struct sim_dev *dev = qp->dev;
	struct sim_pkt *p;

	if (qp->tx_listed) {
		struct sim_qp **pp = &dev->tx_held;

		while (*pp != qp)
			pp = &(*pp)->tx_next;
		*pp = qp->tx_next;
		qp->tx_listed = false;
	}
	while ((p = sim_pktq_pop(&qp->txq)))
		sim_pkt_free(dev, p);
	sim_pktq_free(&qp->txq);
}

/* Retries the packets the transport refused, QP by QP (called every step
 * while some are held); fails a QP whose queue overflowed. */
static void txq_flush(struct sim_dev *dev)
{
	struct sim_qp **pp = &dev->tx_held;

	while (*pp) {
		struct sim_qp *qp = *pp;
		struct sim_pkt *p;

		while (!qp->tx_overflow && (p = sim_pktq_peek(&qp->txq))) {
			if (dev->wire && dev->wire->xmit(dev->wire_ctx, p) == -EAGAIN)
				break;
			sim_pkt_free(dev, sim_pktq_pop(&qp->txq));
		}
		if (qp->txq.n && !qp->tx_overflow) {
			pp = &qp->tx_next;
			continue;
		}
		*pp = qp->tx_next;
		qp->tx_listed = false;
		if (qp->tx_overflow) {
			/* its peer stopped reading: this QP alone fails */
			qp->tx_overflow = false;
			sim_qp_txq_drop(qp);
			sim_qp_fail(qp, dev->now);
		}
	}
}

static bool is_response(enum sim_pkt_kind k)
{
	return k == SIM_PKT_ACK || k == SIM_PKT_NAK || k == SIM_PKT_READ_RESP ||
	       k == SIM_PKT_ATOMIC_RESP;
}

/* Hands @p to the half of the QP it addresses.  A loopback request served
 * in VTIME mode may fold its response (sim_reply_alloc). */
static inline void rx_dispatch(struct sim_dev *dev, struct sim_pkt *p)
{
	struct sim_qp *qp = sim_qp_by_num(dev, p->dst_qpn);

	sim_advance_now(dev, p->t);
	if (dev->obs.event)
		emit_pkt(dev, SIM_EV_PKT_RX, p->dst_qpn, p);
	/* RC: a QP takes packets only from the QP it is connected to, and
	 * only those that arrived after it was created; a packet from outside
	 * must be of a kind this device knows (its own packets are) */
	if (!qp || qp->peer_node != p->src_node || qp->peer_qpn != p->src_qpn ||
	    (sim_pkt_box(p)->outside &&
	     ((unsigned)p->kind > SIM_PKT_ATOMIC_RESP || qp->birth >= sim_pkt_box(p)->outside)))
		return;
	if (is_response(p->kind)) {
		sim_requester_rx(qp, p);
	} else if (p->src_node == dev->fold_src) { /* loopback, VTIME mode */
		dev->fold_state = SIM_FOLD_OPEN;   /* sim_wire_rx closes it */
		sim_responder_rx(qp, p);
	} else {
		sim_responder_rx(qp, p);
	}
}

/*
 * The folded response (built by this device's responder, so a response and
 * not from outside): rx_dispatch less the checks that cannot fail for it,
 * and less the clock: it is due at its request's time (sim_reply_alloc
 * folds only when its QP sent nothing later), which rx_dispatch reached.
 * With an observer, rx_dispatch itself (its PKT_RX event).
 */
static inline void fold_dispatch(struct sim_dev *dev)
{
	struct sim_pkt *p = &dev->fold.box.pkt;
	struct sim_qp *qp;

	if (dev->obs.event) {
		rx_dispatch(dev, p);
		return;
	}
	qp = sim_qp_by_num(dev, p->dst_qpn);
	if (qp && qp->peer_node == p->src_node && qp->peer_qpn == p->src_qpn)
		sim_requester_rx(qp, p);
}

/*
 * One inbound packet.  A loopback request's response due at the request's
 * own time (VTIME mode) is folded: it is not queued as a unit of its own
 * but taken right after the request, in this step.  The old order among
 * units at that same time was a PRNG draw; the folded response simply goes
 * first.  Its virtual times, its PKT_TX / PKT_RX events and its count are
 * those it had as a queued packet.
 */
void sim_wire_rx(struct sim_dev *dev, struct sim_pkt *p)
{
	struct sim_outst *lender;
	int fold;

	rx_dispatch(dev, p);
	/* a loopback request lent to its outstanding entry goes back to it
	 * (read after the dispatch: an entry flushed meanwhile let go of it) */
	lender = sim_pkt_box(p)->lender;
	if (lender) {
		lender->req_lent = false; /* the entry owns it now */
		sim_pkt_box(p)->lender = NULL;
	} else {
		sim_pkt_free(dev, p);
	}
	fold = dev->fold_state;
	dev->fold_state = SIM_FOLD_NONE;
	if (fold == SIM_FOLD_TAKEN)
		fold_dispatch(dev);
}

void sim_inbox_drain_async(struct sim_dev *dev)
{
	struct sim_pkt *p;

	if (dev->tx_held)
		txq_flush(dev);
	if (!__atomic_load_n(&dev->rx_async.n, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&dev->inbox_lock);
	/* a bounded ingress: what does not fit waits in rx_async, and a full
	 * rx_async pushes back on the transport (sim_dev_deliver) */
	while (dev->inbox.n < SIM_INGRESS_MAX && (p = sim_pktq_pop(&dev->rx_async))) {
		if (sim_pktq_push(&dev->inbox, p))
			sim_pkt_free(dev, p);
	}
	pthread_mutex_unlock(&dev->inbox_lock);
}

void sim_dev_set_wire(struct sim_dev *dev, const struct sim_wire_ops *ops, void *ctx)
{
	pthread_mutex_lock(&dev->lock);
	dev->wire = ops;
	dev->wire_ctx = ctx;
	pthread_mutex_unlock(&dev->lock);
}

int sim_dev_deliver(struct sim_dev *dev, const struct sim_pkt *pkt)
{
	struct sim_pkt *p;

	if (!dev || !pkt || (pkt->payload_len && !pkt->payload) || pkt->payload_len > SIM_MAX_MSG)
		return -EINVAL;
	/* the NIC's receive buffer is finite: past it the sender waits (the
	 * transport stops reading that link for a while) */
	if (__atomic_load_n(&dev->rx_async.n, __ATOMIC_RELAXED) >= SIM_INGRESS_MAX)
		return -EAGAIN;
	p = sim_pkt_clone(NULL, pkt); /* no dev->lock: plain malloc */
	if (!p)
		return -ENOMEM;
	return enqueue_async(dev, p);
}

void sim_dev_kick(struct sim_dev *dev)
{
	__atomic_add_fetch(&dev->outside_progress, 1, __ATOMIC_RELAXED);
	sim_thread_wake(dev);
}

uint64_t sim_dev_rnr_parks(struct sim_dev *dev)
{
	return __atomic_load_n(&dev->rnr_parks, __ATOMIC_RELAXED);
}

/* Something that may have made receives usable happened: parked infinite
 * RNR retries on this device (and on every device of its fabric) retry. */
void sim_progress_bump(struct sim_dev *dev)
{
	if (!dev->fabric) {
		__atomic_add_fetch(&dev->outside_progress, 1, __ATOMIC_RELAXED);
		return;
	}
	for (uint32_t i = 0; i < dev->fabric->n; i++)
		__atomic_add_fetch(&dev->fabric->devs[i]->outside_progress, 1, __ATOMIC_RELAXED);
}

/* ---- in-process fabric -------------------------------------------------- */

int sim_fabric_create(struct sim_fabric **out)
{
	if (!out)
		return -EINVAL;
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void sim_fabric_destroy(struct sim_fabric *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->n; i++)
		f->devs[i]->fabric = NULL;
	free(f->devs);
	free(f);
}

int sim_fabric_attach(struct sim_fabric *f, struct sim_dev *dev)
{
	struct sim_dev **n;

	if (!f || !dev || dev->fabric || fabric_dev(f, dev->o.node))
		return -EINVAL;
	n = realloc(f->devs, (f->n + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	f->devs = n;
	f->devs[f->n++] = dev;
	dev->fabric = f;
	return 0;
}

int sim_fabric_run(struct sim_fabric *f, uint64_t max_steps)
{
	bool progress = true;
	int rc = 0, r;

	if (!f)
		return -EINVAL;
	while (progress) {
		progress = false;
		for (uint32_t i = 0; i < f->n; i++) {
			uint64_t before_steps = f->devs[i]->st.steps;

			r = sim_dev_run(f->devs[i], max_steps);
			if (r && !rc)
				rc = r;
			if (r && r != SIM_E_HAZARD)
				return r;
			if (f->devs[i]->st.steps != before_steps)
				progress = true;
		}
		/* packets still waiting in an inbox mean more work */
		for (uint32_t i = 0; i < f->n && !progress; i++)
			progress = f->devs[i]->rx_async.n != 0;
	}
	return rc;
}
