/* SPDX-License-Identifier: MIT */
/*
 * tests/support/ring_peer.c - a ring pair whose side 1 is held raw.
 *
 * Owns: receiving the descriptors net_ring_send passes (one message,
 * util/fdpass.h) and mapping the memfd.  Must not: check them (that is
 * net_ring_recv's job, and what the tests attack).
 */
#include "tests/support/ring_peer.h"

#include "util/fdpass.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

static int take(struct ring_peer *p)
{
	uint32_t body[2];
	unsigned nfds;
	int trunc;
	void *m;

	if (fdpass_recv(p->sock, body, sizeof(body), 0, p->fds, RING_PEER_FDS, &nfds, &trunc) !=
	        (ssize_t)sizeof(body) ||
	    nfds != RING_PEER_FDS)
		return -1;
	m = mmap(NULL, net_ring_shm_bytes(p->size), PROT_READ | PROT_WRITE, MAP_SHARED, p->fds[0],
	         0);
	if (m == MAP_FAILED)
		return -1;
	p->m = m;
	return 0;
}

int ring_peer_open(uint32_t size, struct net_ring **ring, struct ring_peer *p)
{
	int sv[2];

	memset(p, 0, sizeof(*p));
	p->sock = -1;
	for (unsigned i = 0; i < RING_PEER_FDS; i++)
		p->fds[i] = -1;
	p->size = size;
	*ring = NULL;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -1;
	p->sock = sv[1];
	if (net_ring_create(sv[0], size, ring, NULL)) { /* it owns sv[0] */
		*ring = NULL;
		ring_peer_close(p);
		return -1;
	}
	if (net_ring_send(*ring, NULL) || take(p)) {
		net_ring_close(*ring);
		*ring = NULL;
		ring_peer_close(p);
		return -1;
	}
	return 0;
}

void ring_peer_hang_up(struct ring_peer *p)
{
	if (p->sock >= 0)
		close(p->sock);
	p->sock = -1;
}

void ring_peer_close(struct ring_peer *p)
{
	if (p->m)
		munmap(p->m, net_ring_shm_bytes(p->size));
	p->m = NULL;
	for (unsigned i = 0; i < RING_PEER_FDS; i++)
		if (p->fds[i] >= 0)
			close(p->fds[i]);
	for (unsigned i = 0; i < RING_PEER_FDS; i++)
		p->fds[i] = -1;
	ring_peer_hang_up(p);
}
