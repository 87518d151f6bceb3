/* SPDX-License-Identifier: MIT */
/*
 * net/net_link_rx.c - a link's receive side.
 *
 * Owns: reading the link's carrier (a socket or a ring: link_recv hides
 * which) into the reader's own buffer, decoding and validating the records
 * and handing them to the device, keeping what it could not hand over yet
 * (a partial record, records the device refused for now, requests split off
 * behind acknowledgements) in the link's own buffer, which exists only
 * while it holds something, and not reading a link whose device is pushed
 * back (back-pressure towards the peer).  The reader is the transport
 * thread, or a polled link's owner (net_link_poll.c), under rx_lock.
 *
 * Must not: call into the sim with a transport lock held, print.
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

#define RX_KEEP_ROUND 1024u      /* what keep_rest rounds a remainder up to */
#define RX_BUDGET     (1u << 20) /* bytes read from one link per event, for fairness */

/*
 * Read what the link's carrier holds: bytes read, 0 at the end of the
 * stream, -EAGAIN when nothing is there, or another negative errno.  An
 * empty ring is the end of the stream only after its peer hung up (@gone).
 * A ring read on the transport thread sets the sleep flag once it found
 * nothing (the peer signals the data eventfd after its next write); a
 * polled link's owner sets it when it waits (net_link_poll).
 */
static ssize_t link_recv(struct net_link *l, void *buf, size_t cap, bool gone)
{
	ssize_t n;

	if (!l->ring) {
		int flags = l->rx_block ? 0 : MSG_DONTWAIT;

		l->rx_block = false; /* only a wait's first read blocks */
		do
			n = recv(l->fd, buf, cap, flags);
		while (n < 0 && errno == EINTR && flags);
		if (n < 0) /* a blocking read's timeout, or a signal: nothing yet */
			return errno == EWOULDBLOCK || errno == EINTR ? -EAGAIN : -errno;
		return n;
	}
	for (;;) {
		n = net_ring_read(l->ring, buf, cap);
		if (n)
			return n;
		if (gone)
			return 0;
		/* a polled link's owner sets the flag when it waits; the
		 * transport thread when it is about to sleep */
		if (l->polled || net_hot_add(l) || net_ring_prepare_sleep(l->ring))
			return -EAGAIN;
	}
}

/* Hand the complete records at the start of @buf (@avail bytes) to the
 * device; returns the bytes they took (the rest: a partial record, or
 * records the device refused for now). */
static size_t deliver_from(struct net_link *l, const uint8_t *buf, size_t avail, bool may_split)
{
	bool after_ack = false, is_req;
	struct net_transport *t = l->t;
	uint8_t scratch[NET_SIMPKT_SCRATCH];
	struct diag_report fdiag;
	struct diag_report diag;
	struct net_pkt np;
	struct sim_pkt sp;
	size_t off = 0;
	uint64_t vtime;
	uint32_t len;
	int rc;

	while (!l->dead) {
		rc = net_record_peek(buf + off, avail - off, t->opts.max_pkt, &len, &vtime, &fdiag);
		if (rc == 1)
			break;
		if (rc < 0) {
			net_link_fail(l, -EPROTO, fdiag.msg);
			return off;
		}
		rc = net_frame_decode(buf + off + NET_RECORD_HDR_BYTES, len, &np, &fdiag);
		if (rc) {
			char why[sizeof(fdiag.msg) + 48];

			snprintf(why, sizeof(why), "malformed packet: %s", fdiag.msg);
			net_link_fail(l, -EPROTO, why);
			return off;
		}
		rc = net_simpkt_from_wire(&np, &l->addr, &sp, scratch, &diag);
		if (rc) {
			net_link_fail(l, -EPROTO, diag.msg);
			return off;
		}
		/* a request behind acknowledgements waits until the hook ran on
		 * them (the host's re-arm may depend on their completions),
		 * unless its window is known to be posted */
		is_req = net_opcode_info(np.opcode)->role == NET_ROLE_REQUEST;
		if (after_ack && may_split && is_req &&
		    l->rx_requests >= __atomic_load_n(&l->rx_ready, __ATOMIC_ACQUIRE)) {
			l->rx_split = true;
			l->stats.rx_splits++;
			break;
		}
		after_ack = np.opcode == NET_OP_ACKNOWLEDGE;
		sp.t = vtime;
		rc = sim_dev_deliver(t->dev, &sp);
		if (rc == -EAGAIN) {
			if (!l->rx_stalled) {
				l->rx_stalled = true;
				l->stats.rx_stalls++;
				pthread_mutex_lock(&l->tx_lock);
				net_link_events(l);
				pthread_mutex_unlock(&l->tx_lock);
				pthread_mutex_lock(&t->lock);
				t->stalled++;
				pthread_mutex_unlock(&t->lock);
			}
			break;
		}
		if (rc) {
			char why[64];

			snprintf(why, sizeof(why), "device refused a packet: error %d", rc);
			net_link_fail(l, rc, why);
			return off;
		}
		l->stats.rx_pkts++;
		l->rx_requests += is_req;
		l->stats.rx_bytes += len + NET_RECORD_HDR_BYTES;
		__atomic_add_fetch(&t->delivered, 1, __ATOMIC_RELAXED);
		off += NET_RECORD_HDR_BYTES + len;
	}
	return off;
}

/* Keep @len bytes (a partial record, or records refused for now or split
 * off behind acknowledgements) in the link's own buffer, which exists only
 * while it holds something.  Sized to what it keeps (a read into it grows
 * it by RX_CHUNK): a request split off at every get costs a small
 * allocation, not a 64 KiB one that grows and trims the heap each time. */
static int keep_rest(struct net_link *l, const uint8_t *rest, size_t len)
{
	if (l->rx_cap < len) {
		size_t cap = (len + RX_KEEP_ROUND - 1) & ~(size_t)(RX_KEEP_ROUND - 1);
		uint8_t *p = realloc(l->rx, cap);

		if (!p)
			return -ENOMEM;
		l->rx = p;
		l->rx_cap = cap;
	}
	memmove(l->rx, rest, len);
	l->rx_len = len;
	return 0;
}

/* Deliver what the link's own buffer holds; free it once empty. */
void net_link_deliver_records(struct net_link *l, bool may_split)
{
	size_t off = deliver_from(l, l->rx, l->rx_len, may_split);

	if (off) {
		memmove(l->rx, l->rx + off, l->rx_len - off);
		l->rx_len -= off;
	}
	if (!l->rx_len) {
		free(l->rx);
		l->rx = NULL;
		l->rx_cap = 0;
	}
}

/*
 * Back-pressure towards a peer that does not read: while the device is told
 * -EAGAIN for this link, its requests are not read either (each would add a
 * response to the queue it does not drain), so they wait in the peer's
 * socket and the peer's sends block.  Other links are not affected.
 * Returns true when the link is paused.
 */
static bool pause_if_blocked(struct net_link *l)
{
	bool paused;

	pthread_mutex_lock(&l->tx_lock);
	if (l->blocked && !l->rx_paused) {
		l->rx_paused = true;
		net_link_events(l);
	}
	paused = l->rx_paused;
	pthread_mutex_unlock(&l->tx_lock);
	return paused;
}

/* rx_lock held.  @gone: the socket reported a hang-up or an error (a
 * paused link reads on, to see it fail, instead of being woken by it
 * forever).  @scratch: RX_CHUNK bytes of the reading thread's own. */
void net_link_on_readable(struct net_link *l, bool gone, uint8_t *scratch, bool may_split)
{
	size_t budget = RX_BUDGET;
	ssize_t n = 1;

	if (pause_if_blocked(l) && !gone)
		return;

	while (!l->dead && !l->rx_stalled && !l->rx_split && budget) {
		if (!l->rx_len) {
			/* the common case: whole records, read into the thread's
			 * buffer; only a remainder is kept by the link */
			n = link_recv(l, scratch, RX_CHUNK, gone);
			if (n > 0) {
				size_t off = deliver_from(l, scratch, (size_t)n, may_split);

				budget = budget > (size_t)n ? budget - (size_t)n : 0;
				if (!l->dead && off < (size_t)n &&
				    keep_rest(l, scratch + off, (size_t)n - off))
					net_link_fail(l, -ENOMEM,
					              "out of memory for the receive buffer");
				/* a short read emptied the socket: no second
				 * call to hear EAGAIN (epoll is level-triggered,
				 * a polled link is polled again); a ring reads
				 * on until it is empty and its sleep flag set */
				if ((size_t)n < RX_CHUNK && !gone && !l->ring)
					return;
				continue;
			}
		} else {
			if (l->rx_cap - l->rx_len < RX_CHUNK) {
				uint8_t *p = realloc(l->rx, l->rx_cap + RX_CHUNK);

				if (!p) {
					net_link_fail(l, -ENOMEM,
					              "out of memory for the receive buffer");
					return;
				}
				l->rx = p;
				l->rx_cap += RX_CHUNK;
			}
			size_t room = l->rx_cap - l->rx_len;

			n = link_recv(l, l->rx + l->rx_len, room, gone);
			if (n > 0) {
				l->rx_len += (size_t)n;
				budget = budget > (size_t)n ? budget - (size_t)n : 0;
				net_link_deliver_records(l, may_split);
				if ((size_t)n < room && !gone && !l->ring)
					return;
				continue;
			}
		}
		if (n == 0) {
			net_link_fail(l, -ECONNRESET,
			              l->rx_len
			                  ? "peer closed the connection in the middle of a packet"
			                  : "peer closed the connection");
			return;
		}
		if (n == -EAGAIN)
			return;
		if (l->ring) { /* the peer broke the ring, or hung up */
			const char *why;

			net_ring_error(l->ring, &why);
			net_link_fail(l, (int)n, why);
			return;
		}
		{
			char why[96];

			snprintf(why, sizeof(why), "receive: %s", strerror((int)-n));
			net_link_fail(l, (int)n, why);
		}
		return;
	}
	/* Left before the ring was empty (budget spent, records split off
	 * behind acknowledgements): no sleep flag was set.  The thread looks
	 * at the ring again next round (what was read waits in the link's
	 * buffer, delivered this round); without room in that list, set the
	 * flag now if the ring is empty, else no signal would come: wake this
	 * thread again. */
	if (l->ring && !l->dead && !l->polled && !l->rx_stalled && !net_hot_add(l) &&
	    !net_ring_prepare_sleep(l->ring))
		net_ring_poke(l->ring);
}
