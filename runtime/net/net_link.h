/* SPDX-License-Identifier: MIT */
/*
 * net/net_link.h - a transport's links and the state its files share
 * (internal to runtime/net: net_transport.c, net_link.c, net_link_tx.c,
 * net_link_rx.c, net_link_poll.c and net_hot.c).
 *
 * Owns: struct net_link (one QP pair's carrier, a TCP socket or a ring pair
 * of net_ring.h, with its transmit buffer and its receive state), struct
 * net_transport (the link table, the epoll set, the thread's state), the
 * ids its epoll events carry, and the calls those files make into one
 * another.
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
 * Must not: be used outside runtime/net.
 */
#ifndef PRISM_NET_LINK_H
#define PRISM_NET_LINK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "net/net_simpkt.h"
#include "net/net_spin.h"
#include "net/net_transport.h"

struct epoll_event;

#define WAKE_ID UINT64_MAX
/* An epoll event's id: link generation (32 bits), descriptor kind (2), slot (30). */
#define ID_SLOT_MASK  0x3fffffffu
#define ID_KIND_SHIFT 30
enum link_fd_kind {
	FD_MAIN, /* the TCP socket; a ring link's setup socket (its hang-up) */
	FD_DATA, /* ring link: bytes to read */
	FD_ROOM, /* ring link: room to write after a short write */
};
#define RX_CHUNK     (64u << 10) /* a reader's scratch buffer; one read's most */
#define HASH_BUCKETS 256u

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

static inline uint64_t link_id(const struct net_link *l)
{
	return ((uint64_t)l->gen << 32) | l->slot;
}

static inline uint64_t fd_id(const struct net_link *l, enum link_fd_kind kind)
{
	return link_id(l) | (uint64_t)kind << ID_KIND_SHIFT;
}

/* net_transport.c: the transport object and its thread. */
__attribute__((format(printf, 3, 4))) void net_transport_log(struct net_transport *t, int level,
                                                             const char *fmt, ...);
void net_transport_wake(struct net_transport *t);

/* net_link.c: the link table and a link's life.  t->lock held for lookup,
 * by_id and unlink. */
struct net_link *net_link_lookup(struct net_transport *t, uint32_t qpn);
struct net_link *net_link_by_id(struct net_transport *t, uint64_t id);
struct net_link *net_link_pin(struct net_transport *t, uint64_t id);
void net_link_unpin(struct net_link *l);
void net_link_unlink(struct net_transport *t, struct net_link *l);
void net_link_free(struct net_link *l);
void net_link_events(struct net_link *l);
void net_link_epoll_del(struct net_link *l);
void net_link_fail(struct net_link *l, int err, const char *why);

/* net_link_tx.c: transmitting. */
int net_transport_xmit(void *ctx, const struct sim_pkt *sp);
ssize_t net_link_send(struct net_link *l, const void *buf, size_t len);
void net_link_flush_or_flag(struct net_link *l);
void net_link_on_writable(struct net_link *l);

/* net_link_rx.c: receiving. */
void net_link_on_readable(struct net_link *l, bool gone, uint8_t *scratch, bool may_split);
void net_link_deliver_records(struct net_link *l, bool may_split);

/* net_hot.c: the transport thread's hot rings. */
bool net_hot_add(struct net_link *l);
int net_hot_take(struct net_transport *t, struct epoll_event *evs, int max);
int net_hot_settle(struct net_transport *t, struct epoll_event *evs, int max);

#endif /* PRISM_NET_LINK_H */
