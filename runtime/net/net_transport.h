/* SPDX-License-Identifier: MIT */
/*
 * net/net_transport.h - a sim device's wire, carried over TCP or, between
 * processes on one host, over a shared-memory ring pair (net_ring.h).
 *
 * Owns: one transport per sim device (it installs itself as the device's
 * wire with sim_dev_set_wire), one thread per transport running epoll over
 * its links, and one link per QP pair (one TCP connection or one ring pair
 * each; the same records travel over both).  The
 * thread can run the device to completion itself (rx hook), and a link's
 * owner can read its socket on its own thread (polled links), so that a
 * packet wakes one thread, not two.  Outgoing
 * packets are framed (net_frame.h) into a bounded per-link buffer; when it
 * is full the device is told -EAGAIN and kicked once the socket drained
 * (back-pressure).  Incoming packets are decoded, validated and handed to
 * the device with sim_dev_deliver.  A link whose peer vanishes or sends a
 * malformed packet fails alone: its QP goes to ERR (sim_qp_link_down), the
 * owner's down callback says why, other links keep running.
 *
 * Must not: create or modify QPs (the owner does, with the OOB parameters);
 * block the device's thread; print (messages go to the log callback).
 *
 * Behind it: net_transport.c (the transport and its thread), net_link.c
 * (the link table), net_link_tx.c, net_link_rx.c, net_link_poll.c and
 * net_hot.c, which share net_link.h.
 */
#ifndef PRISM_NET_TRANSPORT_H
#define PRISM_NET_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "net/net_diag.h"
#include "net/net_oob.h"
#include "sim/sim.h"

struct net_transport;
struct net_link;

#define NET_DEFAULT_MAX_PKT ((16u << 20) + 64u) /* 16 MiB payload + headers */
#define NET_DEFAULT_TX_BUF  (256u << 10)

/* Size-prefixed: .sz = sizeof(struct net_transport_opts); zero = default. */
struct net_transport_opts {
	size_t sz;
	uint32_t max_pkt; /* largest packet accepted from a peer */
	uint32_t tx_buf;  /* bytes queued per link before the device sees -EAGAIN */
	void (*log)(void *ctx, int level, const char *msg);
	void *log_ctx;
};

struct net_link_cbs {
	/* Called once, on the transport thread, after the link's QP went to ERR. */
	void (*down)(void *ctx, struct net_link *link, int err, const char *why);
	void *ctx;
};

struct net_link_stats {
	uint64_t tx_pkts, tx_bytes, rx_pkts, rx_bytes;
	uint64_t tx_eagain;         /* times the device was pushed back */
	uint64_t rx_stalls;         /* times the device refused a packet for a while */
	uint64_t rx_splits;         /* requests behind acknowledgements held for the rx hook */
	uint64_t tx_acks_coalesced; /* held ACKs a later one replaced (in tx_pkts, never sent) */
};

int net_transport_create(struct sim_dev *dev, const struct net_transport_opts *opts,
                         struct net_transport **out, struct diag_report *diag);
/* Closes every link still attached (without calling their down callbacks). */
void net_transport_destroy(struct net_transport *t);

/*
 * The node id a local QP uses for a peer described by @peer (sim_qp_mod
 * .peer_node at RTR): the peer's own node id, unless it equals the local
 * device's, in which case a stand-in that is not (the sim must never route
 * a remote peer to its own loopback path).
 */
uint32_t net_peer_node(const struct sim_dev *dev, const struct net_oob_params *peer);

/*
 * Carry @qp's packets over @fd (a connected socket after the OOB exchange;
 * the link owns it from now on).  Attach after the QP reached RTR with
 * peer_node = net_peer_node(dev, peer); bytes the peer sent before are
 * waiting in the socket.
 */
int net_transport_attach(struct net_transport *t, int fd, struct sim_qp *qp,
                         const struct net_oob_params *peer, const struct net_link_cbs *cbs,
                         struct net_link **out, struct diag_report *diag);
struct net_ring;

/*
 * The same over a ring pair (net_ring.h; owned from now on, also on
 * failure): its data and room eventfds and its setup socket join the
 * transport's epoll set.  A peer that breaks the ring fails this link only.
 */
int net_transport_attach_ring(struct net_transport *t, struct net_ring *ring, struct sim_qp *qp,
                              const struct net_oob_params *peer, const struct net_link_cbs *cbs,
                              struct net_link **out, struct diag_report *diag);
/*
 * Move a TCP link that has carried nothing yet (nothing queued, nothing
 * partly received, not polled) to @ring (owned from now on, also on
 * failure); its socket is closed.  -EBUSY: the link is in use and stays on
 * TCP.  The server side of a ring set up after the TCP exchange
 * (net_shm.h).
 */
int net_link_use_ring(struct net_link *link, struct net_ring *ring, struct diag_report *diag);

/*
 * Run-to-completion on the transport thread: after each round of socket
 * events in which it handed packets to the device, the thread calls @fn
 * (NULL: none), which runs the device and its host side (re-arming
 * receives); the frames that produces leave when it returns, one send per
 * link.  Setting a different hook waits until a running one returned (unless
 * called from the hook itself).
 */
void net_transport_set_rx_hook(struct net_transport *t, void (*fn)(void *ctx), void *ctx);

/*
 * While the calling thread has @t corked, frames the device queues from this
 * thread stay in their links' buffers; uncork sends each link's in one
 * system call.  A thread that runs the device inline corks around the run.
 * Corks nest (the outermost uncork sends).
 */
void net_transport_cork(struct net_transport *t);
void net_transport_uncork(struct net_transport *t);

/*
 * The link's owner reads its socket or ring (net_link_poll) on its own
 * thread, the one that runs the device and polls for the answer: the
 * transport thread stops reading it and only watches hang-ups and write
 * space.  A TCP link's socket becomes blocking (for the owner's long waits);
 * the transport's own sends and reads never block.
 */
int net_link_set_polled(struct net_link *link);
/*
 * Polled link: wait up to @timeout_us (0: do not wait) for bytes (a ring:
 * on its data eventfd, its sleep flag set), read what the socket or ring
 * holds and hand its packets to the device.  Before it sleeps it polls for
 * its adaptive spin budget (net_spin.h; only while no other link wait of
 * the process is in progress; a socket is polled by reading it).  A TCP
 * link's wait of 20 ms or more then sleeps in the read itself (the socket is
 * made blocking when the link becomes polled; the transport passes
 * MSG_DONTWAIT everywhere else).  Returns the packets handed over, or the
 * negative error that took the link down.
 */
int net_link_poll(struct net_link *link, int timeout_us);
/* ... sleeping also until @also_fd (-1: none; e.g. a completion channel's
 * fd) is readable, which ends the wait as a timeout would.  @woke (may be
 * NULL) says what ended the wait: the link (its bytes, its hang-up, its
 * ring's signal, or no wait at all: it was read), @also_fd (the link was
 * not read), or nothing (the timeout, or a signal). */
enum net_woke { NET_WOKE_NOTHING, NET_WOKE_LINK, NET_WOKE_ALSO };
int net_link_poll_also(struct net_link *link, int timeout_us, int also_fd, enum net_woke *woke);
/*
 * Polled link: do plain ACKs wait for the owner's next frame or its next
 * wait (@hold, the default), or leave at once (those held too)?  For an
 * owner that knows no frame of its own follows soon while the peer waits
 * for them: a server that re-arms after each invocation, between two calls.
 */
void net_link_hold_acks(struct net_link *link, bool hold);

/*
 * The owner's device has receive windows posted for the link's first @n
 * request messages (a server re-arming with its CPU: the windows posted so
 * far).  A request that comes behind acknowledgements in one read waits
 * until the rx hook ran on them (their completions may re-arm the window
 * it needs), unless fewer than @n request packets came over the link
 * before it: then its window is posted already, and it is delivered with
 * them, in the same run of the device.  Counting packets, not messages,
 * errs towards waiting.  Never set (0): every such request waits.  Any
 * thread; @n only grows.
 */
void net_link_set_rx_ready(struct net_link *link, uint64_t n);

/* Detach and free; the socket is closed.  Safe from the down callback. */
void net_link_close(struct net_link *link);
void net_link_stats(struct net_link *link, struct net_link_stats *out);
/* 0 while up; the negative error that took it down otherwise. */
int net_link_error(struct net_link *link);

#endif /* PRISM_NET_TRANSPORT_H */
