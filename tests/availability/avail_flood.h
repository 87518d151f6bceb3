/* SPDX-License-Identifier: MIT */
/*
 * tests/availability/avail_flood.h - the attacker's side of the flood
 * tests and benchmark: a raw CONNECT to a server, then RDMA READ requests
 * pushed into the link without ever reading a response.
 *
 * Owns: av_raw_connect_port (CONNECT with a made-up hello, not a client)
 * and av_flood_reads.  Must not: assert (the benchmark links it without
 * cmocka): every failure is returned.
 */
#ifndef PRISM_TESTS_AVAIL_FLOOD_H
#define PRISM_TESTS_AVAIL_FLOOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/net.h"

/*
 * CONNECT to the server on loopback port @port as a raw peer (node 0x77, no
 * program, our QP 0x4242, PSN 0).  0 and the connected non-blocking @fd with
 * the server's answer in @peer (blob released), or the negative code with
 * the reason in @why (a REJECT: -ECONNREFUSED and its reason).
 */
int av_raw_connect_port(uint16_t port, int *fd, struct net_oob_params *peer, char *why, size_t cap);

/* READ requests of @len bytes at @va/@rkey (0, 0, 0: no RETH payload) to
 * QP @qpn, 1024 a batch, until the link stops taking them (five 200 ms
 * waits for room with none), @max were sent, or the peer drops us
 * (*@dropped: an error or hang-up on the socket).  Returns how many were sent, or -1 if a packet
 * could not be encoded. */
long av_flood_reads(int fd, uint32_t qpn, uint64_t va, uint32_t rkey, uint32_t len,
                    unsigned long max, bool *dropped);

#endif /* PRISM_TESTS_AVAIL_FLOOD_H */
