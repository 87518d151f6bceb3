/* SPDX-License-Identifier: MIT */
/*
 * net/net_link.c - a transport's link table and each link's life.
 *
 * Owns: the table (slots, by the id an epoll event carries, and a hash by
 * local QPN for the device's xmit), attaching a link carried by a TCP
 * socket or a ring pair, moving a fresh link from TCP to a ring, the epoll
 * events a link's descriptors ask for, pinning a link while a thread works
 * on it, its failure (only its QP goes to ERR, its owner's down callback
 * says why), closing and freeing it, and its stats and error.  net_link.h
 * has the threads and locks.
 *
 * Must not: create or modify QPs, call into the sim with a transport lock
 * held, print.
 */
#include "net/net_link.h"
#include "util/array.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/net_ring.h"

static unsigned bucket(uint32_t qpn)
{
	return (qpn ^ (qpn >> 8) ^ (qpn >> 16)) % HASH_BUCKETS;
}

/* t->lock held. */
struct net_link *net_link_lookup(struct net_transport *t, uint32_t qpn)
{
	struct net_link *l;

	for (l = t->hash[bucket(qpn)]; l; l = l->hnext)
		if (l->addr.local_qpn == qpn)
			return l;
	return NULL;
}

void net_link_free(struct net_link *l)
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
void net_link_events(struct net_link *l)
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

void net_link_epoll_del(struct net_link *l)
{
	epoll_ctl(l->t->epfd, EPOLL_CTL_DEL, l->fd, NULL);
	if (l->ring) {
		epoll_ctl(l->t->epfd, EPOLL_CTL_DEL, net_ring_fd(l->ring), NULL);
		epoll_ctl(l->t->epfd, EPOLL_CTL_DEL, net_ring_room_fd(l->ring), NULL);
	}
}

/* t->lock held: the link an epoll event names, or NULL when it was closed
 * since (a link in the table is not freed while t->lock is held). */
struct net_link *net_link_by_id(struct net_transport *t, uint64_t id)
{
	uint32_t slot = (uint32_t)id & ID_SLOT_MASK, gen = (uint32_t)(id >> 32);

	if (slot < t->nslots && t->slots[slot] && t->slots[slot]->gen == gen)
		return t->slots[slot];
	return NULL;
}

/* Pin the link an epoll event names, or NULL when it was closed since. */
struct net_link *net_link_pin(struct net_transport *t, uint64_t id)
{
	struct net_link *l;

	pthread_mutex_lock(&t->lock);
	l = net_link_by_id(t, id);
	if (l)
		l->pins++;
	pthread_mutex_unlock(&t->lock);
	return l;
}

void net_link_unpin(struct net_link *l)
{
	struct net_transport *t = l->t;
	bool do_free;

	pthread_mutex_lock(&t->lock);
	do_free = --l->pins == 0 && l->closed && !l->closer_waits;
	if (l->pins == 0)
		pthread_cond_broadcast(&t->unpinned);
	pthread_mutex_unlock(&t->lock);
	if (do_free)
		net_link_free(l);
}

/* Transport thread: the link is gone.  Only this link's QP fails. */
void net_link_fail(struct net_link *l, int err, const char *why)
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
	net_link_epoll_del(l);
	shutdown(l->fd, SHUT_RDWR); /* a ring's peer sees its setup socket hang up */
	if (l->rx_stalled) {
		l->rx_stalled = false;
		pthread_mutex_lock(&t->lock);
		t->stalled--;
		pthread_mutex_unlock(&t->lock);
	}
	net_transport_log(t, NET_LOG_WARN, "QP 0x%06x (peer node %u QP 0x%06x): link down: %s",
	                  l->addr.local_qpn, l->addr.peer_node, l->addr.peer_qpn, why);
	sim_qp_link_down(l->qp, PRISM_SYND_TRANSPORT_RETRY_EXC_ERR);
	if (l->cbs.down)
		l->cbs.down(l->cbs.ctx, l, err, why);
}

/* t->lock held: take @l out of the table and the hash. */
void net_link_unlink(struct net_transport *t, struct net_link *l)
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
	if (net_link_lookup(t, l->addr.local_qpn)) {
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
		net_link_unlink(t, l);
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
	net_link_epoll_del(l);
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
		net_transport_wake(t);
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
	net_link_unlink(t, l);
	net_link_epoll_del(l);
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
		ssize_t n = net_link_send(l, l->tx + l->tx_head, l->tx_len);

		if (n <= 0)
			break;
		l->tx_head += (size_t)n;
		l->tx_len -= (size_t)n;
	}
	pthread_mutex_unlock(&l->tx_lock);
	if (do_free)
		net_link_free(l);
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
