/* SPDX-License-Identifier: MIT */
/*
 * net/net_sock.h - TCP sockets for connection setup: listen, accept, connect.
 *
 * Owns: the listening socket (default port 18515, as perftest), accepting a
 * client and reading its CONNECT ("pending" connection), answering it with
 * ACCEPT or REJECT, and the client's connect + exchange.  Every socket it
 * hands out is non-blocking, close-on-exec, with TCP_NODELAY.
 *
 * Must not: create queues (the runtime core does, between accept and
 * answer), or run the data path (net_transport.h).
 */
#ifndef PRISM_NET_SOCK_H
#define PRISM_NET_SOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "net/net_diag.h"
#include "net/net_oob.h"

#define NET_PORT_EPHEMERAL   (-1) /* let the kernel pick (tests) */
#define NET_SETUP_TIMEOUT_MS 5000
#define NET_ACCEPT_SEND_MS   1000 /* an ACCEPT the peer does not take by then is dropped */

struct net_listener;
struct net_pending;

/*
 * Listen on @host (NULL: every address) and @port (0: NET_DEFAULT_PORT,
 * NET_PORT_EPHEMERAL: any free port, see net_listener_port()).
 */
int net_listen(const char *host, int port, struct net_listener **out, struct diag_report *diag);
/*
 * Listen on the Unix stream socket @path (a stale one is replaced; removed
 * at close).  Its clients are identified by their uid (SO_PEERCRED), which
 * the owner checks (net_pending_local_uid): what may be done only locally,
 * by whom (installing programs), comes in here.
 */
int net_listen_unix(const char *path, struct net_listener **out, struct diag_report *diag);
/*
 * Listen on a fresh abstract Unix socket ("prism-ring-<pid>-<random>", see
 * net_listener_ring_name) for clients that fetch a ring pair (net_shm.h);
 * its clients' uid and pid come from SO_PEERCRED.
 */
int net_listen_ring(struct net_listener **out, struct diag_report *diag);
const char *net_listener_ring_name(const struct net_listener *l); /* NULL: not one */
void net_listener_close(struct net_listener *l);
bool net_listener_is_local(const struct net_listener *l);
/*
 * Accept one waiting client without reading anything (non-blocking; -EAGAIN
 * when none).  Its setup is read by net_accept.c.
 */
int net_listener_take(struct net_listener *l, struct net_pending **out, struct diag_report *diag);
int net_listener_fd(const struct net_listener *l); /* pollable: readable = a client waits */
int net_listener_port(const struct net_listener *l);

/*
 * Accept one client and read its CONNECT within @timeout_ms.  A client whose
 * setup is malformed or of another version is answered with REJECT (when
 * it can still be reached), closed, and reported here (-EPROTO /
 * -EPROTONOSUPPORT); the listener stays usable.  The CONNECT is read on the
 * caller's thread: a client that connects and then sends slowly holds the
 * caller up to @timeout_ms, so a server with many clients calls this from a
 * thread of its own (poll net_listener_fd first).
 */
int net_listener_accept(struct net_listener *l, int timeout_ms, struct net_pending **out,
                        struct diag_report *diag);
const struct net_oob_params *net_pending_peer(const struct net_pending *p);
/* "10.0.0.2:40112" */
const char *net_pending_addr(const struct net_pending *p);
/* "10.0.0.2": the peer as per-peer limits count it ("local uid N" on a Unix socket) */
const char *net_pending_host(const struct net_pending *p);
/* True, with the peer's uid, for a client of the post socket. */
bool net_pending_local_uid(const struct net_pending *p, uint32_t *uid);
/* A client of the ring socket (its credentials: net_pending_local_cred). */
bool net_pending_is_ring(const struct net_pending *p);
/* A TCP client from an address of this host (loopback, or ours). */
bool net_pending_same_host(const struct net_pending *p);
/* Free @p without answering; its socket is the caller's. */
int net_pending_take_fd(struct net_pending *p);
/* The same, with the peer's pid (SO_PEERCRED) for logs. */
bool net_pending_local_cred(const struct net_pending *p, uint32_t *uid, int32_t *pid);
/* Send ACCEPT with @mine; on success *@fd is the connection's socket (now the
 * caller's) and @p is freed.  On failure @p is freed and the socket closed. */
int net_pending_accept(struct net_pending *p, const struct net_oob_params *mine, int *fd,
                       struct diag_report *diag);
/* Send REJECT with @err (negative errno) and @reason, free @p.  The socket
 * is shut for writing and drained before it is closed (a close with unread
 * input would reset the connection and could destroy the REJECT). */
void net_pending_reject(struct net_pending *p, int err, const char *reason);

/*
 * Client: connect to @host:@port (0 = default port), send CONNECT with @mine,
 * and wait for the answer; *@fd is the connected socket on success.  A ring
 * offer (NET_OOB_F_RING_OFFER) is dropped from the CONNECT when the server
 * is not on this host.
 */
int net_connect(const char *host, int port, const struct net_oob_params *mine,
                struct net_oob_params *peer, int timeout_ms, int *fd, struct diag_report *diag);

/* Client of a Unix socket (net_listen_unix): same exchange as net_connect. */
int net_connect_unix(const char *path, const struct net_oob_params *mine,
                     struct net_oob_params *peer, int timeout_ms, int *fd,
                     struct diag_report *diag);

/* Is the peer of connected @fd on this host (loopback, or our own address)? */
bool net_sock_peer_is_local(int fd);

/* Non-blocking, TCP_NODELAY, close-on-exec. */
int net_sock_setup(int fd);
/* Non-blocking (a Unix socket). */
int net_sock_setup_local(int fd);

#endif /* PRISM_NET_SOCK_H */
