/* SPDX-License-Identifier: MIT */
/*
 * net/net_shm.h - setting up a ring pair (net_ring.h) for a connection
 * between two processes on one host, after its TCP setup exchange.
 *
 * Owns: the server's ring offers (a bounded table of one-time tokens, each
 * naming one connection, with a deadline), answering a client of the ring
 * socket (same uid as the server, a live token: the ring pair is made and
 * its descriptors passed), and the client's side (connect to the ring
 * socket the ACCEPT named, present the token, receive the descriptors).
 *
 * The sequence: the client's CONNECT over TCP offers a ring
 * (NET_OOB_F_RING_OFFER, only towards a server on this host); the server
 * answers ACCEPT with a ring block (net_ring_offer: its ring socket's name,
 * the ring size and a token from getrandom) and attaches the TCP link as
 * usual; the client connects to the ring socket and sends a CONNECT with
 * the token (net_ring_fetch); the server checks it (net_ring_serve), makes
 * the ring pair, passes it, and moves the connection's link onto it
 * (net_link_use_ring).  A token is good once, for its connection only,
 * until its deadline; any failure leaves the connection on TCP.
 *
 * Must not: know what a connection is beyond the caller's cookie; print.
 */
#ifndef PRISM_NET_SHM_H
#define PRISM_NET_SHM_H

#include <stdint.h>

#include "net/net_diag.h"
#include "net/net_oob.h"
#include "net/net_ring.h"
#include "net/net_sock.h"

#define NET_RING_DEFAULT_SIZE (256u << 10) /* bytes per direction */
#define NET_RING_MAX_OFFERS   64u          /* tokens outstanding at once */

struct net_ring_offers;

/* Offers of rings of @size bytes per direction on ring socket @ls. */
int net_ring_offers_create(const struct net_listener *ls, uint32_t size, int timeout_ms,
                           struct net_ring_offers **out, struct diag_report *diag);
void net_ring_offers_destroy(struct net_ring_offers *o);

/*
 * A fresh one-time token for the connection the caller knows as @cookie,
 * into @ring (the ACCEPT's ring block).  -ENOSPC: NET_RING_MAX_OFFERS are
 * outstanding (the connection stays on TCP).
 */
int net_ring_offer(struct net_ring_offers *o, uint64_t cookie, struct net_oob_ring *ring);

/*
 * Server: answer @p, a CONNECT on the ring socket (freed here).  From the
 * server's own uid, with a live token (then used up): the ring pair is
 * made and passed; *@ring (the caller's) and *@cookie say for which
 * connection.  Otherwise a REJECT and the reason in @diag.
 */
int net_ring_serve(struct net_ring_offers *o, struct net_pending *p, uint64_t *cookie,
                   struct net_ring **ring, struct diag_report *diag);

/*
 * Client: fetch the ring pair that @offer (an ACCEPT's ring block)
 * describes, presenting its token with @node (our node id) within
 * @timeout_ms.
 */
int net_ring_fetch(const struct net_oob_ring *offer, uint32_t node, int timeout_ms,
                   struct net_ring **out, struct diag_report *diag);

#endif /* PRISM_NET_SHM_H */
