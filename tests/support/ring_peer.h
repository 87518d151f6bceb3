/* SPDX-License-Identifier: MIT */
/*
 * tests/support/ring_peer.h - the far end of a shared-memory ring pair
 * (net/net_ring.h) held raw, for tests and fuzz targets that play a hostile
 * peer: the descriptors the creator passed, and the memfd mapped
 * read-write, so that a test can write any index or byte into it.
 *
 * Owns: a socket pair, the creator's end of the ring (side 0, a net_ring)
 * and the raw side 1 (struct ring_peer).  Must not: use a test framework
 * (fuzz targets link it too): failures are return values; validate what
 * it received the way net_ring_recv does (a hostile peer does not).
 */
#ifndef PRISM_TESTS_RING_PEER_H
#define PRISM_TESTS_RING_PEER_H

#include <stdint.h>

#include "net/net_ring.h"

/* What net_ring_send passes: the memfd, then four eventfds (side 0's data
 * and room, side 1's data and room). */
#define RING_PEER_FDS 5u

struct ring_peer {
	int sock;               /* the setup socket's far end; -1 once closed */
	int fds[RING_PEER_FDS]; /* as passed */
	uint32_t size;          /* bytes per direction */
	uint8_t *m;             /* the shared memory, net_ring_shm_bytes(size) */
};

/*
 * Create a ring pair of @size bytes per direction over a fresh Unix socket
 * pair: side 0 in *@ring (the caller closes it), side 1 taken raw into @p
 * (ring_peer_close).  Returns 0, or -1 with nothing left open.
 */
int ring_peer_open(uint32_t size, struct net_ring **ring, struct ring_peer *p);
/* Close the far end of the setup socket only: side 0 sees its peer hang up. */
void ring_peer_hang_up(struct ring_peer *p);
/* Unmap, close every descriptor and the socket. */
void ring_peer_close(struct ring_peer *p);

/* Ring @dir's index at @off (NET_RING_HEAD_OFF, NET_RING_TAIL_OFF, ...).
 * Side 1 produces ring 1 and consumes ring 0. */
static inline volatile uint64_t *ring_peer_index(const struct ring_peer *p, unsigned dir,
                                                 unsigned off)
{
	return (volatile uint64_t *)(p->m + NET_RING_DIR_OFF(dir) + off);
}

/* The bytes of ring @dir (byte n of its stream at n % size). */
static inline uint8_t *ring_peer_bytes(const struct ring_peer *p, unsigned dir)
{
	return p->m + NET_RING_CTL_BYTES + (uint64_t)dir * p->size;
}

#endif /* PRISM_TESTS_RING_PEER_H */
