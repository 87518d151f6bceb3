/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_net_ring.c - libFuzzer target for the shared-memory ring
 * consumer (and producer) facing a hostile peer.
 *
 * Owns: one ring pair per input whose side 1 (held raw,
 * tests/support/ring_peer.h) is played by the input: it
 * writes raw bytes into the ring it produces, sets that ring's head and the
 * other ring's tail to values near the honest ones, and lets side 0 read
 * and write.  Properties: a read returns no more than the buffer holds and
 * than was validly published, exactly the bytes at its position in the
 * ring, and publishes what it consumed; a write never takes more than it
 * was given or than the ring had room for by the tail it accepted; once
 * side 0 reports an error (with a reason) it keeps reporting it.
 *
 * Must not: keep state between inputs.
 */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/net_ring.h"
#include "tests/support/ring_peer.h"

#define SIZE 4096u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_read(struct net_ring *a, struct ring_peer *h, uint64_t *pos, size_t cap)
{
	const uint8_t *ring = ring_peer_bytes(h, 1);
	uint64_t head = *ring_peer_index(h, 1, NET_RING_HEAD_OFF);
	static uint8_t got[SIZE + 1];
	int n = net_ring_read(a, got, cap);

	if ((n < 0) != (head - *pos > SIZE))
		__builtin_trap(); /* a valid head refused, or an invalid one taken */
	if (n < 0)
		return;
	if ((uint64_t)n != (head - *pos < cap ? head - *pos : cap))
		__builtin_trap();
	for (int i = 0; i < n; i++)
		if (got[i] != ring[(*pos + (uint64_t)i) % SIZE])
			__builtin_trap();
	*pos += (uint64_t)n;
	if (*ring_peer_index(h, 1, NET_RING_TAIL_OFF) != *pos)
		__builtin_trap(); /* the consumer published what it consumed */
}

/* @free: the last tail side 0 accepted; a tail is valid when it is neither
 * behind that nor past what side 0 produced. */
static void check_write(struct net_ring *a, struct ring_peer *h, uint64_t *free, uint64_t tail,
                        size_t len)
{
	static uint8_t buf[2 * SIZE];
	uint64_t head = *ring_peer_index(h, 0, NET_RING_HEAD_OFF), room = SIZE - (head - tail);
	bool valid = tail - *free <= head - *free;
	int n;

	*ring_peer_index(h, 0, NET_RING_TAIL_OFF) = tail;
	n = net_ring_write(a, buf, len);
	if ((n < 0) != !valid)
		__builtin_trap();
	if (n < 0)
		return;
	if ((uint64_t)n != (room < len ? room : len) ||
	    *ring_peer_index(h, 0, NET_RING_HEAD_OFF) != head + (uint64_t)n)
		__builtin_trap();
	*free = tail;
}

static void run(struct net_ring *a, struct ring_peer *h, const uint8_t *data, size_t size)
{
	uint8_t *ring = ring_peer_bytes(h, 1);
	uint64_t pos = 0, head = 0, free0 = 0, tail0;
	size_t i = 0;

	while (i + 3 <= size) {
		uint8_t op = data[i];
		uint16_t arg = (uint16_t)(data[i + 1] | data[i + 2] << 8);
		size_t n;

		i += 3;
		switch (op % 4) {
		case 0: /* publish: head moves by arg, forward or back */
			head += (uint64_t)(int64_t)(int16_t)arg;
			*ring_peer_index(h, 1, NET_RING_HEAD_OFF) = head;
			break;
		case 1: /* raw bytes at ring offset arg */
			n = size - i < 64 ? size - i : 64;
			for (size_t k = 0; k < n; k++)
				ring[(arg + k) % SIZE] = data[i + k];
			i += n;
			break;
		case 2:
			check_read(a, h, &pos, 1 + arg % (SIZE + 1));
			break;
		case 3: /* the consumer of side 0's ring moves its tail, side 0 writes */
			tail0 = *ring_peer_index(h, 0, NET_RING_TAIL_OFF);
			check_write(a, h, &free0,
			            tail0 + (uint64_t)(int64_t)(int8_t)(arg & 0xff) * 16,
			            (size_t)(arg >> 8) * 32);
			break;
		}
		if (net_ring_error(a, NULL)) {
			const char *why;
			int err = net_ring_error(a, &why);

			if (!why[0] || net_ring_read(a, ring, 1) != err ||
			    net_ring_write(a, ring, 1) != err)
				__builtin_trap();
			return;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ring_peer h;
	struct net_ring *a;

	if (ring_peer_open(SIZE, &a, &h))
		return 0;
	run(a, &h, data, size);
	net_ring_close(a);
	ring_peer_close(&h);
	return 0;
}
