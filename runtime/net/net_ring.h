/* SPDX-License-Identifier: MIT */
/*
 * net/net_ring.h - a pair of shared-memory byte rings between two processes
 * on one host, carrying the same stream records as TCP (net_frame.h).
 *
 * Owns: one end of a ring pair: a sealed memfd holding a control page and
 * two single-producer/single-consumer byte rings (one per direction), an
 * eventfd per side for wake-ups, the setup socket the pair was passed over
 * (its hang-up says the peer is gone), and passing the three descriptors to
 * the peer over a Unix socket (SCM_RIGHTS).  The creator ("side 0")
 * produces into ring 0 and consumes ring 1; the side that received the
 * descriptors ("side 1") the other way round.
 *
 * The peer is not trusted.  The geometry (ring size, largest record) comes
 * from the caller, never from shared memory; the memfd must be sealed
 * against shrinking and growing and have exactly the expected size.  Every
 * index the peer writes is read once, checked against the ring size, and a
 * record is copied out of the ring into the caller's buffer before its
 * length prefix is parsed.  A peer that breaks the rules fails this ring
 * pair only (net_ring_error says why); a peer that only lies about its wake
 * flags or drains the eventfds delays its own traffic.
 *
 * Wake-ups: a consumer that is about to sleep sets a flag in the ring
 * header (net_ring_prepare_sleep); a producer signals the eventfd only when
 * that flag was set.  A producer that found the ring full sets another flag
 * and is signalled when the consumer freed space.
 *
 * Must not: decode packets (the transport does), create threads, print.
 * Not yet used by net_transport.c.
 */
#ifndef PRISM_NET_RING_H
#define PRISM_NET_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#define NET_RING_MIN_SIZE     4096u
#define NET_RING_MAX_SIZE     (4u << 20) /* bytes per direction: per pair 8 MiB + 4 KiB */
#define NET_RING_DEFAULT_SIZE (1u << 20)

struct net_ring;

/* The memfd's size for rings of @size bytes each. */
size_t net_ring_shm_bytes(uint32_t size);

/*
 * Side 0: make the memfd (sealed) and both eventfds.  @size: a power of two
 * in [NET_RING_MIN_SIZE, NET_RING_MAX_SIZE]; @max_pkt: the largest packet a
 * record may carry (record header + @max_pkt must fit in @size).  @sock: the
 * connected Unix socket the descriptors go over (net_ring_send); the ring
 * owns it from now on, also on failure.
 */
int net_ring_create(int sock, uint32_t size, uint32_t max_pkt, struct net_ring **out,
                    struct net_diag *diag);
/* Side 0: pass the memfd and both eventfds to the peer (one message). */
int net_ring_send(struct net_ring *r, struct net_diag *diag);
/*
 * Side 1: receive the descriptors over @sock (owned from now on, also on
 * failure) within @timeout_ms, check them (a sealed memfd of
 * net_ring_shm_bytes(@size), two eventfds, the header) and map the memfd.
 */
int net_ring_recv(int sock, uint32_t size, uint32_t max_pkt, int timeout_ms, struct net_ring **out,
                  struct net_diag *diag);
/* Unmaps, closes every descriptor (the peer sees the socket hang up). */
void net_ring_close(struct net_ring *r);

/*
 * Append one whole record of @len bytes (a net_record_encode record; its
 * packet must not exceed max_pkt).  Returns 0, -EAGAIN when the ring has no
 * room for it now (the peer signals the eventfd when it freed some), or the
 * ring's error.
 */
int net_ring_write(struct net_ring *r, const void *rec, size_t len);
/*
 * Take the next whole record into @buf (@cap >= record header + max_pkt):
 * returns its size, 0 when none is there, or the ring's error (the peer
 * broke the format: -EPROTO, reason in net_ring_error).
 */
int net_ring_read(struct net_ring *r, void *buf, size_t cap);

/*
 * Before sleeping on net_ring_fd: returns true (flag set) when nothing can
 * be read, false when a record is already there (flag cleared, no sleep).
 */
bool net_ring_prepare_sleep(struct net_ring *r);
/* Pollable: readable when the peer signalled (data or room). */
int net_ring_fd(const struct net_ring *r);
/* Consume a signal after net_ring_fd became readable. */
void net_ring_drain(struct net_ring *r);
/*
 * Block up to @timeout_ms (-1: forever) until the peer signals or hangs up.
 * Returns 1 when signalled or something can be read, 0 on timeout, -EPIPE
 * when the peer closed (the ring is failed).
 */
int net_ring_wait(struct net_ring *r, int timeout_ms);

/* 0 while usable; otherwise the negative error and *@why its reason. */
int net_ring_error(const struct net_ring *r, const char **why);

#endif /* PRISM_NET_RING_H */
