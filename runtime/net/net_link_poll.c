/* SPDX-License-Identifier: MIT */
/*
 * net/net_link_poll.c - polled links: the owner reads its link on its own
 * thread.
 *
 * Owns: making a link polled (the transport thread then only watches its
 * hang-ups and write space; a TCP link's socket becomes blocking), and the
 * owner's wait for bytes: its adaptive spin (net_spin.h; a socket is polled
 * by reading it), then a sleep on the ring's data eventfd, in recv itself
 * (a long wait on a TCP link: SO_RCVTIMEO), or in poll(2), beside one more
 * fd when asked; held ACKs leave before it sleeps.
 *
 * Must not: read a link that is not polled; print.
 */
#include "net/net_link.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "net/net_ring.h"
#include "net/net_spin.h"

#define RECV_WAIT_MIN_US 20000

int net_link_set_polled(struct net_link *l)
{
	uint8_t *scratch = malloc(RX_CHUNK);

	if (!scratch)
		return -ENOMEM;
	pthread_mutex_lock(&l->rx_lock);
	pthread_mutex_lock(&l->tx_lock);
	if (!l->polled) {
		int fl = l->ring ? -1 : fcntl(l->fd, F_GETFL);

		l->polled = true;
		l->scratch = scratch;
		scratch = NULL;
		net_link_events(l);
		/* the owner's long waits sleep in recv (read_polled); every
		 * other send and recv on the socket passes MSG_DONTWAIT */
		l->sock_blocks = fl >= 0 && fcntl(l->fd, F_SETFL, fl & ~O_NONBLOCK) == 0;
	}
	pthread_mutex_unlock(&l->tx_lock);
	pthread_mutex_unlock(&l->rx_lock);
	free(scratch);
	return 0;
}

/*
 * The owner of a polled link reads it: the packets delivered, or the link's
 * error once it failed.  @block_us > 0 (a TCP link whose socket blocks):
 * the first read waits up to that long for bytes, in one call, instead of a
 * poll(2) followed by the read.  The transport thread takes rx_lock only
 * for a hang-up or a failed send, which end that read at once.
 */
static int read_polled(struct net_link *l, bool gone, int block_us)
{
	uint64_t before;
	int n;

	pthread_mutex_lock(&l->rx_lock);
	before = l->stats.rx_pkts;
	if (block_us > 0 && !l->dead && l->rcvtimeo_us != block_us) {
		struct timeval tv = {block_us / 1000000, block_us % 1000000};

		if (setsockopt(l->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0)
			l->rcvtimeo_us = block_us;
		else
			block_us = 0;
	}
	l->rx_block = block_us > 0;
	if (!l->dead && l->polled)
		net_link_on_readable(l, gone, l->scratch, false);
	l->rx_block = false;
	n = l->dead ? (l->err < 0 ? l->err : -EPIPE) : (int)(l->stats.rx_pkts - before);
	pthread_mutex_unlock(&l->rx_lock);
	return n;
}

/*
 * The owner of a polled TCP link, before it sleeps in poll(2): a closed-loop
 * server answers a few microseconds after the request left, so read the
 * socket without sleeping for up to the spin budget (net_spin.h), and only
 * as the process's one waiter.  Each look is the read itself (one
 * non-blocking recv), so a catch costs no call beyond the one a sleep
 * would have been followed by.  Returns the packets delivered or the
 * link's error (a catch), 0 when the budget ran out.
 */
struct packets_look {
	struct net_link *l;
	int n; /* what read_polled returned */
};

/* One look is one read: packets, or the link's error, are a catch. */
static int look_packets(void *ctx)
{
	struct packets_look *p = ctx;

	p->n = read_polled(p->l, false, 0);
	return p->n != 0;
}

static int spin_for_packets(struct net_link *l, int timeout_us, bool alone)
{
	uint32_t tried = alone || l->spin.busy_ok ? net_spin_begin(&l->spin) : 0;
	struct packets_look p = {l, 0};

	if (!tried)
		return 0;
	if ((uint32_t)timeout_us < tried)
		tried = (uint32_t)timeout_us;
	net_spin_poll(&l->spin, tried, look_packets, &p);
	return p.n;
}

int net_link_poll(struct net_link *l, int timeout_us)
{
	return net_link_poll_also(l, timeout_us, -1, NULL);
}

int net_link_poll_also(struct net_link *l, int timeout_us, int also_fd, enum net_woke *woke)
{
	struct pollfd pfd[2] = {{.fd = l->fd, .events = POLLIN}, {.fd = also_fd, .events = POLLIN}};
	bool gone = false, paused, held;
	enum net_woke unused;
	int n;

	if (!woke)
		woke = &unused;
	*woke = NET_WOKE_LINK;
	pthread_mutex_lock(&l->tx_lock);
	paused = l->rx_paused;
	held = l->acks_held;
	pthread_mutex_unlock(&l->tx_lock);
	if (held && timeout_us > 0)
		net_link_flush_or_flag(l); /* the peer may wait for them while we sleep */
	if (timeout_us > 0) {
		struct timespec ts = {timeout_us / 1000000, (timeout_us % 1000000) * 1000L};

		/* a link the device or the peer pushes back on is not read:
		 * its bytes would only wake us again */
		if (paused || __atomic_load_n(&l->rx_stalled, __ATOMIC_RELAXED)) {
			*woke = NET_WOKE_NOTHING;
			if (also_fd < 0)
				nanosleep(&ts, NULL);
			else if (ppoll(&pfd[1], 1, &ts, NULL) > 0)
				*woke = NET_WOKE_ALSO;
			return 0;
		}
		if (l->ring) {
			/* sleeps on the data eventfd (the sleep flag set) and the
			 * setup socket's hang-up; a ring whose peer is gone
			 * fails, and the read below reports it */
			n = net_ring_wait_also(l->ring, timeout_us, also_fd);
			if (n == 0 || n == NET_RING_WOKE_ALSO) {
				*woke = n ? NET_WOKE_ALSO : NET_WOKE_NOTHING;
				return 0;
			}
		} else {
			/* no spin beside another fd: what it says comes without bytes */
			if (also_fd < 0) {
				n = spin_for_packets(l, timeout_us, net_spin_wait_enter() == 1);
				net_spin_wait_leave();
				if (n)
					return n;
				/* a long wait sleeps in the read itself (a socket's
				 * timeout counts in scheduler ticks: short waits
				 * poll) */
				if (l->sock_blocks && timeout_us >= RECV_WAIT_MIN_US) {
					n = read_polled(l, false, timeout_us);
					if (n == 0)
						*woke = NET_WOKE_NOTHING;
					return n;
				}
			}
			n = ppoll(pfd, also_fd >= 0 ? 2 : 1, &ts, NULL);
			if (n <= 0 || !pfd[0].revents) {
				*woke = n > 0 ? NET_WOKE_ALSO : NET_WOKE_NOTHING;
				if (n >= 0)
					return 0; /* a signal (n < 0) reads on */
			}
			gone = n > 0 && (pfd[0].revents & (POLLHUP | POLLERR));
		}
	}
	return read_polled(l, gone, 0);
}
