/* SPDX-License-Identifier: MIT */
/*
 * net/net_link_tx.c - a link's transmit side.
 *
 * Owns: the device's xmit (frame a packet into the link's bounded buffer,
 * try one non-blocking send), sending over the link's carrier (a socket or
 * a ring; net_link_send hides which), the back-pressure (the device is told
 * -EAGAIN when the buffer is full and kicked once it drained below half;
 * the link stops being read meanwhile), write space (EPOLLOUT, a ring's
 * room signal), corking (a thread's frames leave at its uncork, one send
 * per link) and the plain ACKs a polled link holds for its next frame.
 *
 * Must not: block (xmit runs on the device's thread), call into the sim
 * from xmit, print.
 */
#include "net/net_link.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "net/net_frame.h"
#include "net/net_ring.h"

/*
 * Corking: while a thread has corked a transport, the frames its xmit
 * queues stay in their links' buffers and leave at uncork, one send per
 * link (an ACK and the answer that follows it in one run of the device
 * travel in one segment, and wake the peer once).
 */
#define CORK_MAX 32u
static __thread struct net_transport *tls_corked;
static __thread unsigned tls_cork_depth;      /* corks nest: the outermost sends */
static __thread uint32_t tls_dirty[CORK_MAX]; /* local QPNs with queued frames */
static __thread unsigned tls_ndirty;

/*
 * Send what the link's carrier takes now: bytes taken, or -EAGAIN (none:
 * wait for EPOLLOUT, or for the ring's room signal, which a short ring
 * write asked for), or another negative errno.
 */
ssize_t net_link_send(struct net_link *l, const void *buf, size_t len)
{
	ssize_t n;

	if (l->ring) {
		n = net_ring_write(l->ring, buf, len);
		return n ? n : -EAGAIN;
	}
	do
		n = send(l->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return n ? n : -EPIPE;
}

/* tx_lock held: ask epoll for (or stop asking for) writability. */
static void arm_out(struct net_link *l, bool on)
{
	if (l->out_armed == on)
		return;
	l->out_armed = on;
	net_link_events(l);
}

/* tx_lock held: write what the carrier takes.  0, or a negative errno. */
static int flush_locked(struct net_link *l)
{
	l->held_ack_len = 0; /* what is queued may leave from here on */
	while (l->tx_len) {
		ssize_t n = net_link_send(l, l->tx + l->tx_head, l->tx_len);

		if (n > 0) {
			l->tx_head += (size_t)n;
			l->tx_len -= (size_t)n;
			continue;
		}
		if (n == -EAGAIN) {
			arm_out(l, true);
			return 0;
		}
		return (int)n;
	}
	l->tx_head = 0;
	l->acks_held = false;
	arm_out(l, false);
	return 0;
}

/*
 * tx_lock held, after a flush: a link whose device was told -EAGAIN and
 * that has drained below half its buffer takes packets again (and is read
 * again if it was paused for it).  True: kick the device.
 */
static bool unblock_locked(struct net_link *l)
{
	bool kick = false;

	if (l->blocked && l->tx_len < l->t->opts.tx_buf / 2) {
		l->blocked = false;
		kick = true;
	}
	if (!l->blocked && l->rx_paused) {
		l->rx_paused = false;
		net_link_events(l);
		if (l->ring && !l->polled)
			net_ring_poke(l->ring); /* no sleep flag was set: read on */
	}
	return kick;
}

/* Flush @l's queued frames; a failure is left for the thread to act on, as
 * an xmit's is.  Takes tx_lock; t->lock must not be held. */
void net_link_flush_or_flag(struct net_link *l)
{
	struct net_transport *t = l->t;
	bool kick = false;
	int rc = 0;

	pthread_mutex_lock(&l->tx_lock);
	if (!l->out_armed && !l->tx_err && l->tx_len)
		rc = flush_locked(l);
	if (rc)
		l->tx_err = rc;
	else
		kick = unblock_locked(l); /* no EPOLLOUT may come to do it */
	pthread_mutex_unlock(&l->tx_lock);
	if (kick)
		sim_dev_kick(t->dev);
	if (rc) {
		pthread_mutex_lock(&t->lock);
		l->failing = true;
		t->flagged = true;
		pthread_mutex_unlock(&t->lock);
		net_transport_wake(t);
	}
}

/*
 * A plain ACK on a polled link (a client's) waits for the link's next flush:
 * its owner's next request, so that one segment carries both and the peer
 * wakes once, or its next sleep in net_link_poll, whichever comes first (a
 * NIC coalesces ACKs too), unless the owner said they leave at once
 * (net_link_hold_acks: between two calls of a connection whose server
 * re-arms after each one).  NAKs and every other frame leave at once.  The
 * receiving transport runs its hook on the ACKs before it delivers the
 * request behind them (net_link_rx.c), as if they had come first.  A held ACK
 * that another held ACK follows is dropped: an ACK acknowledges every
 * request up to its PSN (rule ack-coalesced, docs/nic-model.md), and
 * nothing was queued between them.
 */
static bool ack_to_hold(const struct net_link *l, const struct net_pkt *np)
{
	return l->polled && np->opcode == NET_OP_ACKNOWLEDGE &&
	       net_aeth_type(np->aeth.syndrome) == NET_AETH_ACK;
}

/* tx_lock held: room for @need more bytes after the queued ones. */
static int tx_reserve(struct net_link *l, size_t need)
{
	size_t want;
	uint8_t *p;

	if (l->tx_head && l->tx_head + l->tx_len + need > l->tx_cap) {
		memmove(l->tx, l->tx + l->tx_head, l->tx_len);
		l->tx_head = 0;
	}
	if (l->tx_head + l->tx_len + need <= l->tx_cap)
		return 0;
	want = l->tx_len + need;
	p = realloc(l->tx, want);
	if (!p)
		return -ENOMEM;
	l->tx = p;
	l->tx_cap = want;
	return 0;
}

/* The device's wire: a packet from a local QP to its peer. */
int net_transport_xmit(void *ctx, const struct sim_pkt *sp)
{
	struct net_transport *t = ctx;
	uint8_t scratch[NET_SIMPKT_SCRATCH];
	struct diag_report fd;
	struct diag_report diag;
	struct net_pkt np;
	struct net_link *l;
	size_t at;
	bool hold;
	int size, rc;

	rc = net_simpkt_to_wire(sp, &np, scratch, &diag);
	if (rc) {
		net_transport_log(t, NET_LOG_ERROR, "QP 0x%06x: cannot frame packet: %s",
		                  sp->src_qpn, diag.msg);
		return rc;
	}
	size = net_frame_size(&np, &fd);
	if (size < 0) {
		net_transport_log(t, NET_LOG_ERROR, "QP 0x%06x: cannot frame packet: %s",
		                  sp->src_qpn, fd.msg);
		return -EINVAL;
	}

	pthread_mutex_lock(&t->lock);
	l = net_link_lookup(t, sp->src_qpn);
	if (l)
		pthread_mutex_lock(&l->tx_lock);
	pthread_mutex_unlock(&t->lock);
	if (!l)
		return -EPIPE;

	if (l->tx_err || l->dead) {
		rc = -EPIPE;
		goto out;
	}
	if ((uint32_t)size > l->peer_max_pkt) {
		net_transport_log(
		    t, NET_LOG_ERROR, "QP 0x%06x: %d-byte %s exceeds the peer's %u-byte limit",
		    l->addr.local_qpn, size, net_opcode_name(np.opcode), l->peer_max_pkt);
		rc = -EMSGSIZE;
		goto out;
	}
	if (l->tx_len && l->tx_len + (size_t)size + NET_RECORD_HDR_BYTES > t->opts.tx_buf) {
		l->blocked = true;
		l->stats.tx_eagain++;
		rc = -EAGAIN;
		goto out;
	}
	rc = tx_reserve(l, (size_t)size + NET_RECORD_HDR_BYTES);
	if (rc)
		goto out;
	hold = !l->out_armed && !l->acks_now && ack_to_hold(l, &np);
	at = hold ? l->tx_len - l->held_ack_len : l->tx_len; /* over the held ACK */
	size = net_record_encode(&np, sp->t, l->tx + l->tx_head + at, l->tx_cap - l->tx_head - at,
	                         &fd);
	if (size < 0) {
		rc = -EINVAL;
		goto out;
	}
	if (at < l->tx_len) {
		l->stats.tx_acks_coalesced++;
		l->stats.tx_bytes -= l->tx_len - at;
	}
	l->tx_len = at + (size_t)size;
	l->held_ack_len = hold ? (size_t)size : 0;
	l->stats.tx_pkts++;
	l->stats.tx_bytes += (uint64_t)size;
	if (hold) {
		l->acks_held = true;
	} else if (!l->out_armed && tls_corked == t && tls_ndirty < CORK_MAX) {
		unsigned i;

		for (i = 0; i < tls_ndirty && tls_dirty[i] != l->addr.local_qpn; i++)
			;
		if (i == tls_ndirty)
			tls_dirty[tls_ndirty++] = l->addr.local_qpn;
	} else if (!l->out_armed) {
		rc = flush_locked(l);
		if (rc) {
			l->tx_err = rc;
			pthread_mutex_unlock(&l->tx_lock);
			pthread_mutex_lock(&t->lock);
			l->failing = true;
			t->flagged = true;
			pthread_mutex_unlock(&t->lock);
			net_transport_wake(t);
			return -EPIPE;
		}
	}
out:
	pthread_mutex_unlock(&l->tx_lock);
	return rc;
}

void net_link_on_writable(struct net_link *l)
{
	bool kick = false;
	int rc;

	pthread_mutex_lock(&l->tx_lock);
	rc = flush_locked(l);
	if (!rc)
		kick = unblock_locked(l);
	pthread_mutex_unlock(&l->tx_lock);
	if (rc) {
		char why[96];

		snprintf(why, sizeof(why), "send: %s", strerror(-rc));
		pthread_mutex_lock(&l->rx_lock);
		net_link_fail(l, rc, why);
		pthread_mutex_unlock(&l->rx_lock);
		return;
	}
	if (kick)
		sim_dev_kick(l->t->dev);
}

void net_transport_cork(struct net_transport *t)
{
	if (tls_corked == t) {
		tls_cork_depth++;
		return;
	}
	if (tls_corked) { /* another transport's frames leave first */
		tls_cork_depth = 1;
		net_transport_uncork(tls_corked);
	}
	tls_corked = t;
	tls_cork_depth = 1;
}

void net_transport_uncork(struct net_transport *t)
{
	if (tls_corked != t || --tls_cork_depth)
		return;
	tls_corked = NULL;
	for (unsigned i = 0; i < tls_ndirty; i++) {
		struct net_link *l;

		pthread_mutex_lock(&t->lock);
		l = net_link_lookup(t, tls_dirty[i]);
		if (l)
			l->pins++; /* net_link_close waits for it */
		pthread_mutex_unlock(&t->lock);
		if (!l)
			continue;
		net_link_flush_or_flag(l);
		net_link_unpin(l);
	}
	tls_ndirty = 0;
}

void net_link_hold_acks(struct net_link *l, bool hold)
{
	bool held;

	pthread_mutex_lock(&l->tx_lock);
	l->acks_now = !hold;
	held = l->acks_held;
	pthread_mutex_unlock(&l->tx_lock);
	if (!hold && held)
		net_link_flush_or_flag(l);
}
