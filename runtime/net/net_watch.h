/* SPDX-License-Identifier: MIT */
/*
 * net/net_watch.h - noticing that the peer of a connection set up over TCP
 * is gone, when the data travels elsewhere (an RDMA NIC's fabric).
 *
 * An RC connection on an RDMA NIC says nothing while idle: a client that
 * died leaves its server-side queues waiting forever.  As rdma_cm keeps its
 * connection, the setup socket stays open for the connection's life, and
 * the peer closing it (its process exits or is killed: the kernel closes
 * it) or the socket failing is the sign.
 *
 * Owns: one thread running epoll over the watched sockets; each socket,
 * from net_watch_add on (closed by net_watch_remove).  Bytes a peer sends
 * on a watched socket are read and dropped (the setup protocol has none).
 * Must not: block on a callback (it runs on the watch thread under the
 * watch's lock, so it only marks its owner); print.
 */
#ifndef PRISM_NET_WATCH_H
#define PRISM_NET_WATCH_H

#include "net/net_diag.h"

struct net_watch;
struct net_watched;

/* @why: "the peer closed the setup connection", or the socket's error. */
typedef void (*net_watch_down_fn)(void *ctx, const char *why);

int net_watch_create(struct net_watch **out, struct diag_report *diag);
/* Every socket still watched is closed, without its callback. */
void net_watch_destroy(struct net_watch *w);
/* Watch @fd (the watch owns it from now on, failure included): @down runs
 * once, on the watch thread, when the peer is gone. */
int net_watch_add(struct net_watch *w, int fd, net_watch_down_fn down, void *ctx,
                  struct net_watched **out, struct diag_report *diag);
/* Stop watching and close the socket; once it returns, @down has returned
 * or will never run. */
void net_watch_remove(struct net_watched *x);

#endif /* PRISM_NET_WATCH_H */
