/* SPDX-License-Identifier: MIT */
/*
 * net/net_transport.c - the packet pump between a sim device and its
 * peers' devices, over TCP or over a shared-memory ring pair.
 *
 * Owns: the transport thread (epoll over every link's descriptors plus an
 * eventfd for wake-ups), the two carriers a link may have (a TCP socket; a
 * ring pair of net_ring.h, whose data and room eventfds are edge-triggered
 * in the epoll set and whose setup socket reports the peer's hang-up;
 * link_send / link_recv hide which), moving a fresh link from TCP to a
 * ring, the link table (by local QPN, for the device's xmit), the
 * per-link transmit buffer with its back-pressure, and receiving: the
 * thread reads into one buffer of its own and hands whole records to the
 * device; a link keeps a buffer only while it holds a partial record (or
 * records the device refused for now), so an idle link holds none.  Also
 * the run-to-completion pieces: the rx hook the thread calls after it
 * delivered (a request behind acknowledgements is delivered after the hook
 * ran on them), corking (a thread's frames leave at its uncork, one send
 * per link), polled links (their owner reads the socket with
 * net_link_poll) and the plain ACKs a polled link holds for its next frame;
 * the polls before sleeps (the thread's after a round that read a link, a
 * polled link owner's in net_link_poll) and the hot rings (read empty, their
 * sleep flags set only before the thread sleeps).
 *
 * Threads and locks.  xmit runs on whichever thread runs the device: it
 * takes t->lock to find the link, then link->tx_lock, and never calls into
 * the sim.  Reading a socket and delivering its records happens under
 * link->rx_lock (the transport thread, or a polled link's owner).  The
 * transport thread calls the sim (deliver, kick, link_down), the hook and
 * the owner's callbacks with no transport lock held, so the sim may hold its
 * own locks while it calls xmit.  A link is pinned (t->lock) while a thread
 * works on it; net_link_close unlinks it and the last pin frees it.  Epoll
 * events carry a slot number and generation, so an event for a closed link
 * is ignored.
 *
 * Must not: block the device thread (xmit only appends and tries one
 * non-blocking send), create QPs, print.
 */
#include "net/net_transport.h"
#include "util/array.h"
#include "util/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/net_frame.h"
#include "net/net_ring.h"
#include "net/net_simpkt.h"
#include "net/net_spin.h"

#define WAKE_ID UINT64_MAX
/* A polled TCP link's owner waits this long or longer in recv itself. */
#define RECV_WAIT_MIN_US 20000
/* An epoll event's id: link generation (32 bits), descriptor kind (2), slot (30). */
#define ID_SLOT_MASK  0x3fffffffu
#define ID_KIND_SHIFT 30
enum link_fd_kind {
	FD_MAIN, /* the TCP socket; a ring link's setup socket (its hang-up) */
	FD_DATA, /* ring link: bytes to read */
	FD_ROOM, /* ring link: room to write after a short write */
};
#define RX_CHUNK      (64u << 10)
#define RX_KEEP_ROUND 1024u      /* what keep_rest rounds a remainder up to */
#define RX_BUDGET     (1u << 20) /* bytes read from one link per event, for fairness */
#define HASH_BUCKETS  256u

struct net_link {
	struct net_transport *t;
	int fd;                /* TCP socket, or the ring's setup socket */
	struct net_ring *ring; /* a ring link: the bytes travel here */
	uint32_t slot, gen;
	struct sim_qp *qp;
	struct net_simpkt_addr addr;
	uint32_t peer_max_pkt;
	struct net_link_cbs cbs;
	struct net_link *hnext; /* hash chain by local QPN */

	/* t->lock */
	unsigned pins;
	bool closed;       /* unlinked by net_link_close */
	bool closer_waits; /* net_link_close waits for the pins and frees it */
	bool failing;      /* the thread must fail it (tx error seen by xmit) */

	pthread_mutex_t tx_lock;
	uint8_t *tx;
	size_t tx_cap, tx_head, tx_len;
	bool out_armed;      /* EPOLLOUT requested */
	bool acks_held;      /* polled link: plain ACKs wait for the next flush */
	bool acks_now;       /* polled link: its owner said plain ACKs leave at once */
	size_t held_ack_len; /* > 0: the last record queued is a held ACK, this long */
	bool blocked;        /* the device was told -EAGAIN: kick when drained */
	bool rx_paused;      /* not reading while blocked: the peer is back-pressured */
	int tx_err;

	/* rx_lock: whoever reads the socket (the transport thread, or the
	 * owner of a polled link) */
	pthread_mutex_t rx_lock;
	bool polled;          /* the owner reads the socket (net_link_poll) */
	uint8_t *scratch;     /* RX_CHUNK bytes the owner reads into (polled) */
	struct net_spin spin; /* polled TCP link: the owner's poll before it sleeps */
	bool sock_blocks;     /* polled TCP link: the socket is blocking (every other
	                       * call passes MSG_DONTWAIT) */
	bool rx_block;        /* the next recv may block (the owner's long wait) */
	int rcvtimeo_us;      /* SO_RCVTIMEO last set on the socket (0: none) */
	uint8_t *rx;
	size_t rx_cap, rx_len;
	bool rx_stalled;
	bool rx_split;        /* records after acknowledgements wait for the hook */
	uint64_t rx_requests; /* request packets handed to the device */
	uint64_t rx_ready;    /* atomic: net_link_set_rx_ready */
	bool dead;
	int err;
	bool hot; /* a non-polled ring link in t->hot (the transport thread's) */
	struct net_link_stats stats;
};

struct net_transport {
	struct sim_dev *dev;
	struct net_transport_opts opts;
	int epfd, wakefd;
	pthread_t thread;
	bool running;

	pthread_mutex_t lock;
	pthread_cond_t unpinned;
	bool stop;
	struct net_link **slots;
	uint32_t nslots;
	struct net_link *hash[HASH_BUCKETS];
	unsigned stalled;    /* links with rx_stalled */
	uint8_t *rx_scratch; /* RX_CHUNK bytes: the thread reads every link into it */
	bool flagged;        /* some link has failing set */
	uint32_t next_gen;
	uint64_t delivered;         /* packets handed to the device, by anyone */
	void (*rx_hook)(void *ctx); /* run on the thread after it delivered */
	void *rx_hook_ctx;
	bool in_hook;
	pthread_cond_t hook_idle;
	struct net_spin spin; /* the thread's poll after a round that read a link */
	/* The thread's: ring links it read empty and has not yet set the sleep
	 * flag of (their data-event ids); it looks at their heads each round
	 * and sets their flags only before it sleeps, so that a peer writing
	 * while the thread is busy makes no system call to wake it. */
	uint64_t *hot;
	uint32_t nhot, hot_cap;
};

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

__attribute__((format(printf, 3, 4))) static void tlog(struct net_transport *t, int level,
                                                       const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	if (!t->opts.log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	t->opts.log(t->opts.log_ctx, level, msg);
}

static void wake(struct net_transport *t)
{
	uint64_t one = 1;
	ssize_t n = write(t->wakefd, &one, sizeof(one));

	(void)n;
}

static uint64_t link_id(const struct net_link *l)
{
	return ((uint64_t)l->gen << 32) | l->slot;
}

static uint64_t fd_id(const struct net_link *l, enum link_fd_kind kind)
{
	return link_id(l) | (uint64_t)kind << ID_KIND_SHIFT;
}

static unsigned bucket(uint32_t qpn)
{
	return (qpn ^ (qpn >> 8) ^ (qpn >> 16)) % HASH_BUCKETS;
}

/* t->lock held. */
static struct net_link *lookup_qpn(struct net_transport *t, uint32_t qpn)
{
	struct net_link *l;

	for (l = t->hash[bucket(qpn)]; l; l = l->hnext)
		if (l->addr.local_qpn == qpn)
			return l;
	return NULL;
}

static void link_free(struct net_link *l)
{
	if (l->ring)
		net_ring_close(l->ring); /* the setup socket with it */
	else
		close(l->fd);
	pthread_mutex_destroy(&l->tx_lock);
	pthread_mutex_destroy(&l->rx_lock);
	free(l->tx);
	free(l->rx);
	free(l->scratch);
	free(l);
}

/* The epoll events a link wants besides EPOLLOUT: none while the device
 * pushes back (its bytes wait in the peer's socket); hang-ups only when its
 * owner reads it. */
static uint32_t rx_events(const struct net_link *l)
{
	if (l->rx_stalled || l->rx_paused)
		return 0;
	return l->polled ? EPOLLRDHUP : EPOLLIN | EPOLLRDHUP;
}

/*
 * tx_lock held: the epoll events of @l's descriptors, for its state now.  A
 * ring link's eventfds are edge-triggered (never drained by this thread:
 * each write of the peer is an edge); its setup socket reports hang-ups
 * only.
 */
static void link_events(struct net_link *l)
{
	struct net_transport *t = l->t;
	struct epoll_event ev = {.data.u64 = fd_id(l, FD_MAIN)};

	if (!l->ring) {
		ev.events = rx_events(l) | (l->out_armed ? EPOLLOUT : 0);
		epoll_ctl(t->epfd, EPOLL_CTL_MOD, l->fd, &ev);
		return;
	}
	ev.events = rx_events(l) & EPOLLIN ? EPOLLIN | EPOLLET : 0;
	ev.data.u64 = fd_id(l, FD_DATA);
	epoll_ctl(t->epfd, EPOLL_CTL_MOD, net_ring_fd(l->ring), &ev);
	ev.events = l->out_armed ? EPOLLIN | EPOLLET : 0;
	ev.data.u64 = fd_id(l, FD_ROOM);
	epoll_ctl(t->epfd, EPOLL_CTL_MOD, net_ring_room_fd(l->ring), &ev);
}

/* t->lock held: put @l's descriptors in the epoll set (0 or -errno). */
static int link_epoll_add(struct net_link *l)
{
	struct net_transport *t = l->t;
	struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.u64 = fd_id(l, FD_MAIN)};

	if (!l->ring)
		return epoll_ctl(t->epfd, EPOLL_CTL_ADD, l->fd, &ev) ? -errno : 0;
	ev.events = EPOLLRDHUP;
	if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, l->fd, &ev))
		return -errno;
	ev = (struct epoll_event){.events = EPOLLIN | EPOLLET, .data.u64 = fd_id(l, FD_DATA)};
	if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, net_ring_fd(l->ring), &ev))
		goto fail;
	ev = (struct epoll_event){.events = 0, .data.u64 = fd_id(l, FD_ROOM)};
	if (!epoll_ctl(t->epfd, EPOLL_CTL_ADD, net_ring_room_fd(l->ring), &ev))
		return 0;
	epoll_ctl(t->epfd, EPOLL_CTL_DEL, net_ring_fd(l->ring), NULL);
fail:;
	int err = -errno;

	epoll_ctl(t->epfd, EPOLL_CTL_DEL, l->fd, NULL);
	return err;
}

static void link_epoll_del(struct net_link *l)
{
	epoll_ctl(l->t->epfd, EPOLL_CTL_DEL, l->fd, NULL);
	if (l->ring) {
		epoll_ctl(l->t->epfd, EPOLL_CTL_DEL, net_ring_fd(l->ring), NULL);
		epoll_ctl(l->t->epfd, EPOLL_CTL_DEL, net_ring_room_fd(l->ring), NULL);
	}
}

/*
 * The transport thread read @l's ring empty: instead of setting its sleep
 * flag now, it looks at the ring's head again each round while it works and
 * sets the flag before it sleeps (settle_hot).  False when the list has no
 * room: the caller sets the flag itself.
 */
static bool hot_add(struct net_link *l)
{
	struct net_transport *t = l->t;

	if (l->hot)
		return true;
	if (!ARRAY_RESERVE(t->hot, t->hot_cap, (size_t)t->nhot + 1))
		return false;
	t->hot[t->nhot++] = fd_id(l, FD_DATA);
	l->hot = true;
	return true;
}

/*
 * Send what the link's carrier takes now: bytes taken, or -EAGAIN (none:
 * wait for EPOLLOUT, or for the ring's room signal, which a short ring
 * write asked for), or another negative errno.
 */
static ssize_t link_send(struct net_link *l, const void *buf, size_t len)
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
		if (l->polled || hot_add(l) || net_ring_prepare_sleep(l->ring))
			return -EAGAIN;
	}
}

/* t->lock held: the link an epoll event names, or NULL when it was closed
 * since (a link in the table is not freed while t->lock is held). */
static struct net_link *by_id_locked(struct net_transport *t, uint64_t id)
{
	uint32_t slot = (uint32_t)id & ID_SLOT_MASK, gen = (uint32_t)(id >> 32);

	if (slot < t->nslots && t->slots[slot] && t->slots[slot]->gen == gen)
		return t->slots[slot];
	return NULL;
}

/* Pin the link an epoll event names, or NULL when it was closed since. */
static struct net_link *pin(struct net_transport *t, uint64_t id)
{
	struct net_link *l;

	pthread_mutex_lock(&t->lock);
	l = by_id_locked(t, id);
	if (l)
		l->pins++;
	pthread_mutex_unlock(&t->lock);
	return l;
}

static void unpin(struct net_link *l)
{
	struct net_transport *t = l->t;
	bool do_free;

	pthread_mutex_lock(&t->lock);
	do_free = --l->pins == 0 && l->closed && !l->closer_waits;
	if (l->pins == 0)
		pthread_cond_broadcast(&t->unpinned);
	pthread_mutex_unlock(&t->lock);
	if (do_free)
		link_free(l);
}

/* tx_lock held: ask epoll for (or stop asking for) writability. */
static void arm_out(struct net_link *l, bool on)
{
	if (l->out_armed == on)
		return;
	l->out_armed = on;
	link_events(l);
}

/* tx_lock held: write what the carrier takes.  0, or a negative errno. */
static int flush_locked(struct net_link *l)
{
	l->held_ack_len = 0; /* what is queued may leave from here on */
	while (l->tx_len) {
		ssize_t n = link_send(l, l->tx + l->tx_head, l->tx_len);

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
		link_events(l);
		if (l->ring && !l->polled)
			net_ring_poke(l->ring); /* no sleep flag was set: read on */
	}
	return kick;
}

/* Flush @l's queued frames; a failure is left for the thread to act on, as
 * an xmit's is.  Takes tx_lock; t->lock must not be held. */
static void flush_or_flag(struct net_link *l)
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
		wake(t);
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
 * request behind them (deliver_from), as if they had come first.  A held ACK
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
static int transport_xmit(void *ctx, const struct sim_pkt *sp)
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
		tlog(t, NET_LOG_ERROR, "QP 0x%06x: cannot frame packet: %s", sp->src_qpn, diag.msg);
		return rc;
	}
	size = net_frame_size(&np, &fd);
	if (size < 0) {
		tlog(t, NET_LOG_ERROR, "QP 0x%06x: cannot frame packet: %s", sp->src_qpn, fd.msg);
		return -EINVAL;
	}

	pthread_mutex_lock(&t->lock);
	l = lookup_qpn(t, sp->src_qpn);
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
		tlog(t, NET_LOG_ERROR, "QP 0x%06x: %d-byte %s exceeds the peer's %u-byte limit",
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
			wake(t);
			return -EPIPE;
		}
	}
out:
	pthread_mutex_unlock(&l->tx_lock);
	return rc;
}

static const struct sim_wire_ops transport_wire = {.xmit = transport_xmit};

/* Transport thread: the link is gone.  Only this link's QP fails. */
static void link_fail(struct net_link *l, int err, const char *why)
{
	struct net_transport *t = l->t;

	if (l->dead)
		return;
	l->dead = true;
	l->err = err;
	pthread_mutex_lock(&l->tx_lock);
	if (!l->tx_err)
		l->tx_err = err;
	pthread_mutex_unlock(&l->tx_lock);
	link_epoll_del(l);
	shutdown(l->fd, SHUT_RDWR); /* a ring's peer sees its setup socket hang up */
	if (l->rx_stalled) {
		l->rx_stalled = false;
		pthread_mutex_lock(&t->lock);
		t->stalled--;
		pthread_mutex_unlock(&t->lock);
	}
	tlog(t, NET_LOG_WARN, "QP 0x%06x (peer node %u QP 0x%06x): link down: %s",
	     l->addr.local_qpn, l->addr.peer_node, l->addr.peer_qpn, why);
	sim_qp_link_down(l->qp, PRISM_SYND_TRANSPORT_RETRY_EXC_ERR);
	if (l->cbs.down)
		l->cbs.down(l->cbs.ctx, l, err, why);
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
			link_fail(l, -EPROTO, fdiag.msg);
			return off;
		}
		rc = net_frame_decode(buf + off + NET_RECORD_HDR_BYTES, len, &np, &fdiag);
		if (rc) {
			char why[sizeof(fdiag.msg) + 48];

			snprintf(why, sizeof(why), "malformed packet: %s", fdiag.msg);
			link_fail(l, -EPROTO, why);
			return off;
		}
		rc = net_simpkt_from_wire(&np, &l->addr, &sp, scratch, &diag);
		if (rc) {
			link_fail(l, -EPROTO, diag.msg);
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
				link_events(l);
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
			link_fail(l, rc, why);
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
static void deliver_records(struct net_link *l, bool may_split)
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
		link_events(l);
	}
	paused = l->rx_paused;
	pthread_mutex_unlock(&l->tx_lock);
	return paused;
}

/* rx_lock held.  @gone: the socket reported a hang-up or an error (a
 * paused link reads on, to see it fail, instead of being woken by it
 * forever).  @scratch: RX_CHUNK bytes of the reading thread's own. */
static void on_readable(struct net_link *l, bool gone, uint8_t *scratch, bool may_split)
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
					link_fail(l, -ENOMEM,
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
					link_fail(l, -ENOMEM,
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
				deliver_records(l, may_split);
				if ((size_t)n < room && !gone && !l->ring)
					return;
				continue;
			}
		}
		if (n == 0) {
			link_fail(l, -ECONNRESET,
			          l->rx_len ? "peer closed the connection in the middle of a packet"
			                    : "peer closed the connection");
			return;
		}
		if (n == -EAGAIN)
			return;
		if (l->ring) { /* the peer broke the ring, or hung up */
			const char *why;

			net_ring_error(l->ring, &why);
			link_fail(l, (int)n, why);
			return;
		}
		{
			char why[96];

			snprintf(why, sizeof(why), "receive: %s", strerror((int)-n));
			link_fail(l, (int)n, why);
		}
		return;
	}
	/* Left before the ring was empty (budget spent, records split off
	 * behind acknowledgements): no sleep flag was set.  The thread looks
	 * at the ring again next round (what was read waits in the link's
	 * buffer, delivered this round); without room in that list, set the
	 * flag now if the ring is empty, else no signal would come: wake this
	 * thread again. */
	if (l->ring && !l->dead && !l->polled && !l->rx_stalled && !hot_add(l) &&
	    !net_ring_prepare_sleep(l->ring))
		net_ring_poke(l->ring);
}

static void on_writable(struct net_link *l)
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
		link_fail(l, rc, why);
		pthread_mutex_unlock(&l->rx_lock);
		return;
	}
	if (kick)
		sim_dev_kick(l->t->dev);
}

/* Links the device pushed back on, and links that xmit saw fail. */
static void service_flagged(struct net_transport *t)
{
	uint32_t i;

	for (i = 0;; i++) {
		struct net_link *l = NULL;
		bool failing = false;

		pthread_mutex_lock(&t->lock);
		if (i >= t->nslots) {
			pthread_mutex_unlock(&t->lock);
			break;
		}
		if (t->slots[i] && (t->slots[i]->failing || t->slots[i]->rx_stalled)) {
			l = t->slots[i];
			failing = l->failing;
			l->failing = false;
			l->pins++;
		}
		pthread_mutex_unlock(&t->lock);
		if (!l)
			continue;
		pthread_mutex_lock(&l->rx_lock);
		if (failing) {
			char why[96];

			snprintf(why, sizeof(why), "send: %s", strerror(-l->tx_err));
			link_fail(l, l->tx_err, why);
		} else if (l->rx_stalled && !l->dead) {
			l->rx_stalled = false;
			pthread_mutex_lock(&t->lock);
			t->stalled--;
			pthread_mutex_unlock(&t->lock);
			/* still not reading a link paused for back-pressure */
			pthread_mutex_lock(&l->tx_lock);
			link_events(l);
			pthread_mutex_unlock(&l->tx_lock);
			deliver_records(l, false);
			if (!l->rx_stalled)
				on_readable(l, false, t->rx_scratch, false);
		}
		pthread_mutex_unlock(&l->rx_lock);
		unpin(l);
	}
}

/* Transport thread: what it delivered since @before reaches the owner's
 * hook (which runs the device and its host side to completion), then every
 * frame queued meanwhile leaves. */
static void run_hook(struct net_transport *t, uint64_t before)
{
	void (*fn)(void *) = NULL;
	void *ctx = NULL;

	if (__atomic_load_n(&t->delivered, __ATOMIC_RELAXED) != before) {
		pthread_mutex_lock(&t->lock);
		fn = t->rx_hook;
		ctx = t->rx_hook_ctx;
		t->in_hook = fn != NULL;
		pthread_mutex_unlock(&t->lock);
	}
	if (fn) {
		fn(ctx);
		pthread_mutex_lock(&t->lock);
		t->in_hook = false;
		pthread_cond_broadcast(&t->hook_idle);
		pthread_mutex_unlock(&t->lock);
	}
	net_transport_uncork(t);
}

/* Transport thread: the records split off behind acknowledgements (each
 * link at most once a round, so one link cannot hold the others up), then
 * the hook again. */
static void deliver_split(struct net_transport *t, struct net_link **split, unsigned n)
{
	uint64_t before = __atomic_load_n(&t->delivered, __ATOMIC_RELAXED);

	net_transport_cork(t);
	for (unsigned i = 0; i < n; i++) {
		struct net_link *l = split[i];

		bool closed;

		pthread_mutex_lock(&t->lock);
		closed = l->closed; /* by the hook: its QP may be gone */
		pthread_mutex_unlock(&t->lock);
		pthread_mutex_lock(&l->rx_lock);
		l->rx_split = false;
		if (!closed && !l->rx_stalled)
			deliver_records(l, false); /* a partial record stays */
		pthread_mutex_unlock(&l->rx_lock);
		unpin(l);
	}
	run_hook(t, before);
}

#define SPLIT_MAX 64u

/*
 * Transport thread, after a round that read a link (a ring, or a socket): a
 * closed-loop peer sends its next request a few microseconds after the
 * answer, so look at the epoll set without sleeping for up to the spin
 * budget (net_spin.h) before sleeping in it.  The rings' sleep flags are
 * set as usual (the peer signals, epoll sees it at once) and sockets are
 * level-triggered, so no wake-up can be lost; a stop is seen through the
 * wake eventfd.  Returns the events found (0: none).
 */
static int spin_for_events(struct net_transport *t, struct epoll_event *evs, int max)
{
	uint32_t tried = net_spin_begin(&t->spin);
	uint64_t t0, now;
	int n;

	if (!tried)
		return 0;
	t0 = util_now_us();
	now = t0;
	do {
		n = epoll_wait(t->epfd, evs, max, 0);
		if (n != 0) {
			net_spin_end(&t->spin, tried, n > 0, (uint32_t)(now - t0));
			return n;
		}
		net_spin_relax();
		now = util_now_us();
	} while (now - t0 < tried);
	net_spin_end(&t->spin, tried, false, tried);
	return 0;
}

/*
 * Transport thread: the hot rings (hot_add) that hold bytes now become data
 * events in @evs (at most @max); the others stay hot.  Returns the events.
 */
static int take_hot(struct net_transport *t, struct epoll_event *evs, int max)
{
	uint32_t i, keep = 0;
	int n = 0;

	if (!t->nhot)
		return 0;
	pthread_mutex_lock(&t->lock); /* one look for the whole list */
	for (i = 0; i < t->nhot; i++) {
		uint64_t id = t->hot[i];
		struct net_link *l = by_id_locked(t, id);

		if (!l)
			continue; /* closed since */
		if (l->dead || (n < max && net_ring_pending(l->ring))) {
			l->hot = false; /* a dead link is dropped; a read makes it hot again */
			if (!l->dead)
				evs[n++] = (struct epoll_event){.events = EPOLLIN, .data.u64 = id};
		} else {
			t->hot[keep++] = id;
		}
	}
	pthread_mutex_unlock(&t->lock);
	t->nhot = keep;
	return n;
}

/*
 * Transport thread, before it sleeps: set the sleep flag of every hot ring
 * (its peer signals its next write); a ring that got bytes meanwhile
 * becomes a data event in @evs instead (or is poked, past @max).  Empties
 * the list.  Returns the events.
 */
static int settle_hot(struct net_transport *t, struct epoll_event *evs, int max)
{
	int n = 0;

	if (!t->nhot)
		return 0;
	pthread_mutex_lock(&t->lock);
	for (uint32_t i = 0; i < t->nhot; i++) {
		struct net_link *l = by_id_locked(t, t->hot[i]);

		if (!l)
			continue;
		l->hot = false;
		if (!l->dead && !net_ring_prepare_sleep(l->ring)) {
			if (n < max)
				evs[n++] =
				    (struct epoll_event){.events = EPOLLIN, .data.u64 = t->hot[i]};
			else
				net_ring_poke(l->ring);
		}
	}
	pthread_mutex_unlock(&t->lock);
	t->nhot = 0;
	return n;
}

/* The events of a non-blocking epoll_wait after the @n taken from hot rings
 * in @evs, leaving out those the hot rings already gave.  Returns the
 * total. */
static int add_polled(struct net_transport *t, struct epoll_event *evs, int n, int max)
{
	int m = epoll_wait(t->epfd, evs + n, max - n, 0), total = n;

	for (int j = 0; j < m; j++) {
		int k;

		for (k = 0; k < n && evs[k].data.u64 != evs[n + j].data.u64; k++)
			;
		if (k == n)
			evs[total++] = evs[n + j];
	}
	return total;
}

static void *transport_thread(void *arg)
{
	struct net_transport *t = arg;
	struct epoll_event evs[64];
	struct net_link *split[SPLIT_MAX];
	bool data_round = false; /* the last round read a link */

	for (;;) {
		bool stop;
		unsigned stalled, nsplit = 0, kind;
		uint32_t ev;
		uint64_t before;
		int i, n;

		pthread_mutex_lock(&t->lock);
		stop = t->stop;
		stalled = t->stalled;
		pthread_mutex_unlock(&t->lock);
		if (stop)
			break;
		/* hot rings with bytes first, with whatever else is ready; when
		 * none has bytes, their flags are set before any sleep */
		n = take_hot(t, evs, 64);
		if (n > 0)
			n = add_polled(t, evs, n, 64);
		else
			n = settle_hot(t, evs, 64);
		if (n == 0 && data_round && !stalled)
			n = spin_for_events(t, evs, 64);
		if (n == 0)
			n = epoll_wait(t->epfd, evs, 64, stalled ? 1 : -1);
		if (n < 0 && errno != EINTR)
			break;
		data_round = false;
		before = __atomic_load_n(&t->delivered, __ATOMIC_RELAXED);
		net_transport_cork(t);
		for (i = 0; i < n; i++) {
			struct net_link *l;

			if (evs[i].data.u64 == WAKE_ID) {
				uint64_t v;
				ssize_t r = read(t->wakefd, &v, sizeof(v));

				(void)r;
				continue;
			}
			l = pin(t, evs[i].data.u64);
			if (!l)
				continue;
			kind = (unsigned)(evs[i].data.u64 >> ID_KIND_SHIFT) & 3u;
			ev = evs[i].events;
			/* bytes came: a ring's signal, or a socket's */
			data_round |= l->ring ? kind == FD_DATA : (ev & EPOLLIN) && !l->polled;
			if (l->ring && kind == FD_ROOM)
				ev = EPOLLOUT;
			else if (l->ring && kind == FD_MAIN) /* the setup socket: a hang-up */
				ev = EPOLLIN | EPOLLHUP;
			if (ev & EPOLLOUT)
				on_writable(l);
			if (ev & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP)) {
				pthread_mutex_lock(&l->rx_lock);
				on_readable(l, ev & (EPOLLHUP | EPOLLERR), t->rx_scratch,
				            nsplit < SPLIT_MAX);
				pthread_mutex_unlock(&l->rx_lock);
			}
			if (l->rx_split) {
				split[nsplit++] = l; /* stays pinned */
				continue;
			}
			unpin(l);
		}
		pthread_mutex_lock(&t->lock);
		stop = t->flagged || t->stalled;
		t->flagged = false;
		pthread_mutex_unlock(&t->lock);
		if (stop)
			service_flagged(t);
		run_hook(t, before);
		if (nsplit)
			deliver_split(t, split, nsplit);
	}
	return NULL;
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
		l = lookup_qpn(t, tls_dirty[i]);
		if (l)
			l->pins++; /* net_link_close waits for it */
		pthread_mutex_unlock(&t->lock);
		if (!l)
			continue;
		flush_or_flag(l);
		unpin(l);
	}
	tls_ndirty = 0;
}

void net_transport_set_rx_hook(struct net_transport *t, void (*fn)(void *ctx), void *ctx)
{
	bool on_thread = t->running && pthread_equal(pthread_self(), t->thread);

	bool same;

	pthread_mutex_lock(&t->lock);
	same = t->rx_hook == fn && t->rx_hook_ctx == ctx;
	t->rx_hook = fn;
	t->rx_hook_ctx = ctx;
	while (!same && !on_thread && t->in_hook)
		pthread_cond_wait(&t->hook_idle, &t->lock);
	pthread_mutex_unlock(&t->lock);
}

int net_transport_create(struct sim_dev *dev, const struct net_transport_opts *opts,
                         struct net_transport **out, struct diag_report *diag)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = WAKE_ID};
	struct net_transport *t;
	int rc;

	if (!dev || !out)
		return diag_report_set(diag, -EINVAL, "transport: NULL device");
	if (opts && opts->sz > sizeof(*opts)) {
		const uint8_t *tail = (const uint8_t *)opts + sizeof(*opts);
		size_t i;

		for (i = 0; i < opts->sz - sizeof(*opts); i++)
			if (tail[i])
				return diag_report_set(
				    diag, -EINVAL,
				    "transport options: unknown nonzero field at byte %zu",
				    sizeof(*opts) + i);
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return diag_report_set(diag, -ENOMEM, "transport: out of memory");
	if (opts)
		memcpy(&t->opts, opts, opts->sz < sizeof(*opts) ? opts->sz : sizeof(*opts));
	t->opts.sz = sizeof(t->opts);
	if (!t->opts.max_pkt)
		t->opts.max_pkt = NET_DEFAULT_MAX_PKT;
	if (!t->opts.tx_buf)
		t->opts.tx_buf = NET_DEFAULT_TX_BUF;
	t->dev = dev;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->unpinned, NULL);
	pthread_cond_init(&t->hook_idle, NULL);
	net_spin_init(&t->spin, net_spin_cap_env());
	t->rx_scratch = malloc(RX_CHUNK);
	if (!t->rx_scratch) {
		free(t);
		return diag_report_set(diag, -ENOMEM, "transport: out of memory");
	}
	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	t->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (t->epfd < 0 || t->wakefd < 0 || epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->wakefd, &ev)) {
		rc = diag_report_set(diag, -errno, "transport: epoll/eventfd: %s", strerror(errno));
		goto fail;
	}
	rc = -pthread_create(&t->thread, NULL, transport_thread, t);
	if (rc) {
		diag_report_set(diag, rc, "transport: thread: %s", strerror(-rc));
		goto fail;
	}
	pthread_setname_np(t->thread, "prism-net");
	t->running = true;
	sim_dev_set_wire(dev, &transport_wire, t);
	*out = t;
	return 0;
fail:
	if (t->epfd >= 0)
		close(t->epfd);
	if (t->wakefd >= 0)
		close(t->wakefd);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->unpinned);
	pthread_cond_destroy(&t->hook_idle);
	free(t->rx_scratch);
	free(t);
	return rc;
}

/* t->lock held: take @l out of the table and the hash. */
static void unlink_locked(struct net_transport *t, struct net_link *l)
{
	struct net_link **pp;

	for (pp = &t->hash[bucket(l->addr.local_qpn)]; *pp; pp = &(*pp)->hnext)
		if (*pp == l) {
			*pp = l->hnext;
			break;
		}
	t->slots[l->slot] = NULL;
	if (l->rx_stalled)
		t->stalled--;
	l->closed = true;
}

void net_transport_destroy(struct net_transport *t)
{
	uint32_t i;

	if (!t)
		return;
	sim_dev_set_wire(t->dev, NULL, NULL);
	pthread_mutex_lock(&t->lock);
	t->stop = true;
	pthread_mutex_unlock(&t->lock);
	wake(t);
	if (t->running)
		pthread_join(t->thread, NULL);
	for (i = 0; i < t->nslots; i++) {
		struct net_link *l = t->slots[i];

		if (!l)
			continue;
		unlink_locked(t, l);
		link_free(l);
	}
	free(t->slots);
	free(t->hot);
	free(t->rx_scratch);
	close(t->epfd);
	close(t->wakefd);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->unpinned);
	pthread_cond_destroy(&t->hook_idle);
	free(t);
}

uint32_t net_peer_node(const struct sim_dev *dev, const struct net_oob_params *peer)
{
	uint32_t local = sim_dev_node(dev);

	return peer->node != local ? peer->node : local ^ 0x80000000u;
}

/* Attach a link carried by @fd, or by @ring (whose setup socket is @fd). */
static int attach(struct net_transport *t, int fd, struct net_ring *ring, struct sim_qp *qp,
                  const struct net_oob_params *peer, const struct net_link_cbs *cbs,
                  struct net_link **out, struct diag_report *diag)
{
	struct net_link *l;
	uint32_t slot;
	int err;

	l = calloc(1, sizeof(*l));
	if (!l)
		return diag_report_set(diag, -ENOMEM, "attach: out of memory");
	l->t = t;
	l->fd = fd;
	l->ring = ring;
	l->qp = qp;
	l->addr.local_node = sim_dev_node(t->dev);
	l->addr.local_qpn = sim_qp_num(qp);
	l->addr.peer_node = net_peer_node(t->dev, peer);
	l->addr.peer_qpn = peer->qpn;
	l->peer_max_pkt = peer->max_pkt ? peer->max_pkt : NET_DEFAULT_MAX_PKT;
	net_spin_init(&l->spin, net_spin_cap_env());
	if (cbs)
		l->cbs = *cbs;
	pthread_mutex_init(&l->tx_lock, NULL);
	pthread_mutex_init(&l->rx_lock, NULL);

	pthread_mutex_lock(&t->lock);
	if (lookup_qpn(t, l->addr.local_qpn)) {
		err = diag_report_set(diag, -EEXIST, "attach: QP 0x%06x already has a link",
		                      sim_qp_num(qp));
		goto fail;
	}
	for (slot = 0; slot < t->nslots && t->slots[slot]; slot++)
		;
	if (slot > ID_SLOT_MASK) {
		err = diag_report_set(diag, -ENOSPC, "attach: too many links");
		goto fail;
	}
	if (slot == t->nslots && !ARRAY_RESERVE(t->slots, t->nslots, (size_t)slot + 1)) {
		err = diag_report_set(diag, -ENOMEM, "attach: out of memory");
		goto fail;
	}
	l->slot = slot;
	l->gen = ++t->next_gen;
	t->slots[slot] = l;
	l->hnext = t->hash[bucket(l->addr.local_qpn)];
	t->hash[bucket(l->addr.local_qpn)] = l;
	err = link_epoll_add(l);
	if (err) {
		unlink_locked(t, l);
		diag_report_set(diag, err, "attach: epoll: %s", strerror(-err));
		goto fail;
	}
	pthread_mutex_unlock(&t->lock);
	/* bytes the peer wrote before the link existed raised no signal */
	if (ring)
		net_ring_poke(ring);
	*out = l;
	return 0;
fail:
	pthread_mutex_unlock(&t->lock);
	pthread_mutex_destroy(&l->tx_lock);
	pthread_mutex_destroy(&l->rx_lock);
	free(l);
	return err;
}

int net_transport_attach(struct net_transport *t, int fd, struct sim_qp *qp,
                         const struct net_oob_params *peer, const struct net_link_cbs *cbs,
                         struct net_link **out, struct diag_report *diag)
{
	if (!t || fd < 0 || !qp || !peer || !out)
		return diag_report_set(diag, -EINVAL, "attach: NULL argument");
	return attach(t, fd, NULL, qp, peer, cbs, out, diag);
}

int net_transport_attach_ring(struct net_transport *t, struct net_ring *ring, struct sim_qp *qp,
                              const struct net_oob_params *peer, const struct net_link_cbs *cbs,
                              struct net_link **out, struct diag_report *diag)
{
	int err;

	if (!t || !ring || !qp || !peer || !out) {
		net_ring_close(ring);
		return diag_report_set(diag, -EINVAL, "attach: NULL argument");
	}
	err = attach(t, net_ring_sock(ring), ring, qp, peer, cbs, out, diag);
	if (err)
		net_ring_close(ring);
	return err;
}

int net_link_use_ring(struct net_link *l, struct net_ring *ring, struct diag_report *diag)
{
	struct net_transport *t = l->t;
	bool ok = false, flag = false;
	int err = 0, old = l->fd;

	pthread_mutex_lock(&l->rx_lock);
	pthread_mutex_lock(&t->lock);
	pthread_mutex_lock(&l->tx_lock);
	if (l->ring || l->dead || l->closed || l->tx_err || l->tx_len || l->rx_len ||
	    l->rx_stalled || l->rx_paused || l->polled) {
		err = diag_report_set(diag, -EBUSY, "QP 0x%06x: its link is in use",
		                      l->addr.local_qpn);
		goto out;
	}
	link_epoll_del(l);
	l->fd = net_ring_sock(ring);
	l->ring = ring;
	l->out_armed = false;
	l->gen = ++t->next_gen; /* events already fetched for the socket are stale */
	err = link_epoll_add(l);
	if (err) {
		diag_report_set(diag, err, "QP 0x%06x: epoll: %s", l->addr.local_qpn,
		                strerror(-err));
		l->ring = NULL;
		l->fd = old;
		l->gen = ++t->next_gen;
		if (link_epoll_add(l)) { /* cannot even go back: fail it */
			l->tx_err = err;
			l->failing = flag = t->flagged = true;
		}
		goto out;
	}
	ok = true;
out:
	pthread_mutex_unlock(&l->tx_lock);
	pthread_mutex_unlock(&t->lock);
	pthread_mutex_unlock(&l->rx_lock);
	if (ok) {
		close(old);
		net_ring_poke(ring); /* bytes written before the switch raised no signal */
	} else {
		net_ring_close(ring);
	}
	if (flag)
		wake(t);
	return err;
}

void net_link_close(struct net_link *l)
{
	struct net_transport *t;
	bool on_thread, do_free;

	if (!l)
		return;
	t = l->t;
	on_thread = t->running && pthread_equal(pthread_self(), t->thread);
	pthread_mutex_lock(&t->lock);
	unlink_locked(t, l);
	link_epoll_del(l);
	/* on the transport thread (a down callback) the link is pinned by the
	 * thread itself: the last unpin frees it */
	l->closer_waits = !on_thread;
	if (!on_thread)
		while (l->pins)
			pthread_cond_wait(&t->unpinned, &t->lock);
	do_free = l->pins == 0;
	pthread_mutex_unlock(&t->lock);
	/* an xmit that found the link before it was unlinked finishes first;
	 * what is still queued (a polled link's held ACKs) gets one
	 * non-blocking try, so that a peer is not left waiting for them */
	pthread_mutex_lock(&l->tx_lock);
	while (l->tx_len && !l->tx_err && !l->dead) {
		ssize_t n = link_send(l, l->tx + l->tx_head, l->tx_len);

		if (n <= 0)
			break;
		l->tx_head += (size_t)n;
		l->tx_len -= (size_t)n;
	}
	pthread_mutex_unlock(&l->tx_lock);
	if (do_free)
		link_free(l);
}

void net_link_stats(struct net_link *l, struct net_link_stats *out)
{
	pthread_mutex_lock(&l->tx_lock);
	*out = l->stats;
	pthread_mutex_unlock(&l->tx_lock);
}

int net_link_error(struct net_link *l)
{
	int err;

	pthread_mutex_lock(&l->tx_lock);
	err = l->dead ? l->err : l->tx_err;
	pthread_mutex_unlock(&l->tx_lock);
	return err;
}

void net_link_set_rx_ready(struct net_link *l, uint64_t n)
{
	__atomic_store_n(&l->rx_ready, n, __ATOMIC_RELEASE);
}

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
		link_events(l);
		/* the owner's long waits sleep in recv (read_polled); every
		 * other send and recv on the socket passes MSG_DONTWAIT */
		l->sock_blocks = fl >= 0 && fcntl(l->fd, F_SETFL, fl & ~O_NONBLOCK) == 0;
	}
	pthread_mutex_unlock(&l->tx_lock);
	pthread_mutex_unlock(&l->rx_lock);
	free(scratch);
	return 0;
}

void net_link_hold_acks(struct net_link *l, bool hold)
{
	bool held;

	pthread_mutex_lock(&l->tx_lock);
	l->acks_now = !hold;
	held = l->acks_held;
	pthread_mutex_unlock(&l->tx_lock);
	if (!hold && held)
		flush_or_flag(l);
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
		on_readable(l, gone, l->scratch, false);
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
static int spin_for_packets(struct net_link *l, int timeout_us, bool alone)
{
	uint32_t tried = alone || l->spin.busy_ok ? net_spin_begin(&l->spin) : 0;
	uint64_t t0, now;
	int n;

	if (!tried)
		return 0;
	if ((uint32_t)timeout_us < tried)
		tried = (uint32_t)timeout_us;
	t0 = util_now_us();
	now = t0;
	do {
		n = read_polled(l, false, 0);
		if (n) {
			net_spin_end(&l->spin, tried, true, (uint32_t)(now - t0));
			return n;
		}
		net_spin_relax();
		now = util_now_us();
	} while (now - t0 < tried);
	net_spin_end(&l->spin, tried, false, tried);
	return 0;
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
		flush_or_flag(l); /* the peer may wait for them while we sleep */
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
