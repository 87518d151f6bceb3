/* SPDX-License-Identifier: MIT */
/*
 * net/net_hot.c - the transport thread's hot rings.
 *
 * Owns: the list of ring links the thread read empty and has not yet set
 * the sleep flag of.  It looks at their heads each round (a ring that holds
 * bytes becomes a data event) and sets their flags only before it sleeps,
 * so that a peer writing while the thread is busy makes no system call to
 * wake it.
 *
 * Must not: be used from any thread but the transport thread; read a ring.
 */
#include "net/net_link.h"
#include "util/array.h"

#include <pthread.h>
#include <sys/epoll.h>

#include "net/net_ring.h"

/* Rings looked at each round at most: the look costs a load per ring, and a
 * thread that never sleeps never empties the list, so past this a ring read
 * empty has its flag set at once (a write to it then costs its peer a
 * signal), and a round costs the same whatever the number of idle rings. */
#define NET_HOT_MAX 64

/*
 * The transport thread read @l's ring empty: instead of setting its sleep
 * flag now, it looks at the ring's head again each round while it works and
 * sets the flag before it sleeps (net_hot_settle).  False when the list has no
 * room: the caller sets the flag itself.
 */
bool net_hot_add(struct net_link *l)
{
	struct net_transport *t = l->t;

	if (l->hot)
		return true;
	if (t->nhot >= NET_HOT_MAX || !ARRAY_RESERVE(t->hot, t->hot_cap, (size_t)t->nhot + 1))
		return false;
	t->hot[t->nhot++] = fd_id(l, FD_DATA);
	l->hot = true;
	return true;
}

/*
 * Transport thread: the hot rings (net_hot_add) that hold bytes now become data
 * events in @evs (at most @max); the others stay hot.  Returns the events.
 */
int net_hot_take(struct net_transport *t, struct epoll_event *evs, int max)
{
	uint32_t i, keep = 0;
	int n = 0;

	if (!t->nhot)
		return 0;
	pthread_mutex_lock(&t->lock); /* one look for the whole list */
	for (i = 0; i < t->nhot; i++) {
		uint64_t id = t->hot[i];
		struct net_link *l = net_link_by_id(t, id);

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
int net_hot_settle(struct net_transport *t, struct epoll_event *evs, int max)
{
	int n = 0;

	if (!t->nhot)
		return 0;
	pthread_mutex_lock(&t->lock);
	for (uint32_t i = 0; i < t->nhot; i++) {
		struct net_link *l = net_link_by_id(t, t->hot[i]);

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
