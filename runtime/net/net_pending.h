/* SPDX-License-Identifier: MIT */
/*
 * net/net_pending.h - a client whose setup is being read or answered
 * (internal to runtime/net: net_sock.c and net_accept.c).
 *
 * Owns: struct net_pending (the socket, who the peer is, the CONNECT read
 * so far) and the hand-over of a rejected socket to its acceptor, which
 * drains it before closing (so the REJECT is not lost to a reset).
 * Must not: be used outside runtime/net.
 */
#ifndef PRISM_NET_PENDING_H
#define PRISM_NET_PENDING_H

#include <stdbool.h>
#include <stdint.h>

#include "net/net_oob.h"

struct net_acceptor;

struct net_pending {
	int fd;
	char addr[64];  /* "10.0.0.2:40112", or "local uid 1000" */
	char host[64];  /* the address without the port: what per-peer limits count */
	bool local;     /* came in on a Unix socket: uid is the peer's (SO_PEERCRED) */
	bool ring;      /* on the ring socket (net_listen_ring) */
	bool same_host; /* TCP from an address of this host */
	uint32_t uid;
	int32_t pid;
	struct net_oob_params peer; /* the CONNECT, once read */
	struct net_oob_rx rx;
	int64_t deadline_ms;
	struct net_acceptor *acc; /* NULL: accepted by net_listener_accept */
	struct net_pending *next;
};

/* Take over @fd (REJECT sent, write side shut): read and drop what the peer
 * still sends until it closes or a deadline passes, then close. */
void net_acceptor_linger(struct net_acceptor *a, int fd);

/* Send a REJECT on non-blocking @fd without waiting for room. */
void net_send_reject(int fd, int err, const char *reason);
/* After a REJECT: shut the write side (FIN after the REJECT) and, with no
 * acceptor to linger, drop what input is already here before closing. */
void net_reject_close(struct net_acceptor *a, int fd);

#endif /* PRISM_NET_PENDING_H */
