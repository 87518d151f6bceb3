/* SPDX-License-Identifier: MIT */
/*
 * net/net_ring.h - a pair of shared-memory byte rings between two processes
 * on one host: a byte stream each way, as a TCP connection is, so that the
 * stream records of net_frame.h can travel over it unchanged.
 *
 * Owns: one end of a ring pair: a sealed memfd holding a control page and
 * two single-producer/single-consumer byte rings (one per direction), two
 * eventfds per side (data to read, room to write), the setup socket the
 * pair was passed over (its hang-up says the peer is gone), and passing the
 * five descriptors to the peer over a Unix socket (SCM_RIGHTS).  The
 * creator ("side 0") produces into ring 0 and consumes ring 1; the side
 * that received the descriptors ("side 1") the other way round.
 *
 * The peer is not trusted.  The ring size comes from the caller, never from
 * shared memory; the memfd must be sealed against shrinking and growing and
 * have exactly the expected size.  Every index the peer writes is read
 * once and checked against this end's own position and the ring size, and
 * bytes leave the ring only by a copy into the caller's buffer (what they
 * mean, record lengths included, is checked there by the caller, as for
 * bytes from a socket).  A peer that breaks the rules fails this ring pair
 * only (net_ring_error says why); a peer that only lies about its wake
 * flags or drains the eventfds delays its own traffic.
 *
 * Wake-ups: a consumer that is about to sleep sets a flag in the ring
 * header (net_ring_prepare_sleep); a producer signals the data eventfd only
 * when that flag was set.  A producer that found too little room sets
 * another flag and is signalled on its room eventfd once the consumer
 * freed some.
 *
 * Must not: parse what it carries, create threads, print.  The transport
 * (net_transport.h) carries a link over it (a ring link), net_shm.c sets
 * pairs up.
 */
#ifndef PRISM_NET_RING_H
#define PRISM_NET_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct net_spin;

#include "net/net_diag.h"

/*
 * Shared layout (native byte order: both ends run on one host).  The
 * control page holds a header (magic, version, ring size) and per ring a
 * block of four 64-byte lines: head (bytes ever produced, the producer's),
 * tail (bytes ever consumed, the consumer's), the consumer's sleep flag and
 * the producer's wait-for-space flag.  Ring d's bytes start at
 * NET_RING_CTL_BYTES + d * size; byte n of the stream lives at n % size.
 */
#define NET_RING_MAGIC      0x50525352u /* "PRSR" */
#define NET_RING_VERSION    1u
#define NET_RING_CTL_BYTES  4096u
#define NET_RING_DIR_OFF(d) (64u + (d)*256u)
#define NET_RING_HEAD_OFF   0u
#define NET_RING_TAIL_OFF   64u
#define NET_RING_SLEEP_OFF  128u
#define NET_RING_WAIT_OFF   192u

#define NET_RING_MIN_SIZE 4096u
#define NET_RING_MAX_SIZE (4u << 20) /* bytes per direction: per pair 8 MiB + 4 KiB */

struct net_ring;

/* The memfd's size for rings of @size bytes each. */
size_t net_ring_shm_bytes(uint32_t size);

/*
 * Side 0: make the memfd (sealed) and the four eventfds.  @size: bytes per
 * direction, a power of two in [NET_RING_MIN_SIZE, NET_RING_MAX_SIZE].
 * @sock: the connected Unix socket the descriptors go over (net_ring_send),
 * carrying nothing else before them; the ring owns it from now on, also on
 * failure.
 */
int net_ring_create(int sock, uint32_t size, struct net_ring **out, struct diag_report *diag);
/* Side 0: pass the memfd and the eventfds to the peer (one message). */
int net_ring_send(struct net_ring *r, struct diag_report *diag);
/*
 * Side 1: receive the descriptors over @sock (owned from now on, also on
 * failure) within @timeout_ms, check them (a sealed memfd of
 * net_ring_shm_bytes(@size), four eventfds, the header) and map the memfd.
 */
int net_ring_recv(int sock, uint32_t size, int timeout_ms, struct net_ring **out,
                  struct diag_report *diag);
/* Unmaps, closes every descriptor (the peer sees the socket hang up). */
void net_ring_close(struct net_ring *r);

/*
 * Copy up to @len bytes of @buf into the ring.  Returns the bytes taken (0
 * when it is full; whenever fewer than @len were taken, the room eventfd is
 * signalled once the peer freed some), or the ring's error (-EPROTO: the
 * peer broke the protocol, reason in net_ring_error).
 */
int net_ring_write(struct net_ring *r, const void *buf, size_t len);
/*
 * Copy up to @cap bytes out of the ring into @buf.  Returns the bytes
 * copied (0: nothing there), or the ring's error.
 */
int net_ring_read(struct net_ring *r, void *buf, size_t cap);

/*
 * Before sleeping on net_ring_fd: returns true (flag set) when nothing can
 * be read, false when bytes are already there (flag cleared, no sleep).
 */
bool net_ring_prepare_sleep(struct net_ring *r);
/* Without touching the sleep flag: true when bytes wait to be read, or
 * the ring failed (a read reports it). */
bool net_ring_pending(struct net_ring *r);
/* Pollable: readable when the peer signalled bytes to read. */
int net_ring_fd(const struct net_ring *r);
/* Pollable: readable when the peer signalled room after a short write. */
int net_ring_room_fd(const struct net_ring *r);
/* Consume a signal after one of the two became readable. */
void net_ring_drain(int fd);
/*
 * Make this end's data descriptor readable: a consumer that stopped reading
 * without setting its sleep flag (a budget, back-pressure) is woken to
 * read on.
 */
void net_ring_poke(struct net_ring *r);
/* The setup socket: its hang-up (POLLRDHUP) says the peer is gone. */
int net_ring_sock(const struct net_ring *r);
/*
 * Block up to @timeout_us (-1: forever) until bytes can be read or the peer
 * hangs up.  Polls the ring first for its adaptive spin budget
 * (net_spin.h; only while no other link wait of the process, a ring's or a
 * polled socket's, is in progress; a hang-up is seen once that poll gave up), then sleeps with
 * the sleep flag set.  Returns 1 when signalled or bytes are there, 0 on
 * timeout, -EPIPE when the peer closed (the ring is failed).
 */
int net_ring_wait(struct net_ring *r, int timeout_us);
/* ... or until @also_fd (another fd the caller sleeps on, -1: none) is
 * readable: then NET_RING_WOKE_ALSO, unless the ring was signalled too (1).
 * No spin before it sleeps. */
#define NET_RING_WOKE_ALSO 2
int net_ring_wait_also(struct net_ring *r, int timeout_us, int also_fd);
/* Replace the spin cap net_ring_wait polls with (PRISM_SPIN_US at creation;
 * 0: sleep at once), restarting its budget at the cap; @busy_ok: poll even
 * while every CPU of the machine is busy (tests). */
void net_ring_set_spin(struct net_ring *r, uint32_t cap_us, bool busy_ok);
/* net_ring_wait's spin state, to look at. */
const struct net_spin *net_ring_spin(const struct net_ring *r);

/* 0 while usable; otherwise the negative error and *@why its reason. */
int net_ring_error(const struct net_ring *r, const char **why);

#endif /* PRISM_NET_RING_H */
