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

#include <stdint.h>

#include "net/net_diag.h"
#include "net/net_oob.h"

#define NET_PORT_EPHEMERAL   (-1) /* let the kernel pick (tests) */
#define NET_SETUP_TIMEOUT_MS 5000

struct net_listener;
struct net_pending;

/*
 * Listen on @host (NULL: every address) and @port (0: NET_DEFAULT_PORT,
 * NET_PORT_EPHEMERAL: any free port, see net_listener_port()).
 */
int net_listen(const char *host, int port, struct net_listener **out, struct net_diag *diag);
void net_listener_close(struct net_listener *l);
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
                        struct net_diag *diag);
const struct net_oob_params *net_pending_peer(const struct net_pending *p);
/* "10.0.0.2:40112" */
const char *net_pending_addr(const struct net_pending *p);
/* Send ACCEPT with @mine; on success *@fd is the connection's socket (now the
 * caller's) and @p is freed.  On failure @p is freed and the socket closed. */
int net_pending_accept(struct net_pending *p, const struct net_oob_params *mine, int *fd,
                       struct net_diag *diag);
/* Send REJECT with @err (negative errno) and @reason, close, free @p. */
void net_pending_reject(struct net_pending *p, int err, const char *reason);

/*
 * Client: connect to @host:@port (0 = default port), send CONNECT with @mine,
 * and wait for the answer; *@fd is the connected socket on success.
 */
int net_connect(const char *host, int port, const struct net_oob_params *mine,
                struct net_oob_params *peer, int timeout_ms, int *fd, struct net_diag *diag);

/* Non-blocking, TCP_NODELAY, close-on-exec. */
int net_sock_setup(int fd);

#endif /* PRISM_NET_SOCK_H */
