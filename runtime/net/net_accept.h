/* SPDX-License-Identifier: MIT */
/*
 * net/net_accept.h - connection setup on a thread of its own.
 *
 * Owns: a thread that accepts clients of a TCP listener and (optionally) a
 * local Unix socket listener and a ring socket (net_shm.h), reads their CONNECT without blocking
 * (any number of setups at once, each with a deadline), and hands each complete CONNECT to the
 * owner's callback, which answers it (net_pending_accept or net_pending_reject).  Limits: setups in
 * progress in all and per peer address, the body size of a CONNECT from TCP; a client past a limit,
 * a malformed or late setup, and a client accepted when the process is out of file descriptors (one
 * descriptor is kept in reserve for it) get a REJECT, after which the socket is shut for writing
 * and drained until the client closes, so that no reset destroys the REJECT.  Nothing here ever
 * runs on a loop that serves data. Must not: know what a CONNECT asks for (the callback does).
 */
#ifndef PRISM_NET_ACCEPT_H
#define PRISM_NET_ACCEPT_H

#include <stdint.h>

#include "net/net_sock.h"

struct net_acceptor;

struct net_accept_opts {
	unsigned max_pending;          /* setups in progress (0: 64) */
	unsigned max_pending_per_peer; /* from one address (0: 8) */
	uint32_t max_tcp_body;         /* CONNECT body from TCP (0: 64 KiB) */
	int setup_timeout_ms;          /* 0: NET_SETUP_TIMEOUT_MS */
	/* A complete CONNECT (net_pending_peer): answer it before returning. */
	void (*on_connect)(void *ctx, struct net_pending *p);
	void (*log)(void *ctx, int level, const char *msg); /* enum net_log_level */
	void *ctx;
};

/* Serve @tcp, @local (the post socket) and @ring (the ring socket); any
 * may be NULL, all stay the caller's. */
int net_acceptor_start(struct net_listener *tcp, struct net_listener *local,
                       struct net_listener *ring, const struct net_accept_opts *opts,
                       struct net_acceptor **out, struct diag_report *diag);
/* Stop the thread; setups in progress are dropped. */
void net_acceptor_stop(struct net_acceptor *a);

struct net_accept_stats {
	uint64_t accepted;  /* setups handed to on_connect */
	uint64_t refused;   /* REJECTs for a limit, a timeout, a malformed CONNECT */
	uint64_t fd_limit;  /* clients accepted on the reserve descriptor */
	unsigned pending;   /* setups in progress now */
	unsigned lingering; /* rejected sockets being drained now */
};
void net_acceptor_stats(struct net_acceptor *a, struct net_accept_stats *out);

#endif /* PRISM_NET_ACCEPT_H */
