/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_net_ring.c - libFuzzer target for the shared-memory ring
 * consumer (and producer) facing a hostile peer.
 *
 * Owns: one ring pair per input whose side 1 is played by the input: it
 * writes raw bytes into the ring it produces, sets that ring's head and the
 * other ring's tail to values near the honest ones, and lets side 0 read
 * and write.  Properties: every record side 0 returns is exactly the bytes
 * at its position in the ring, its length prefix is within the limit, and
 * once side 0 reports an error (with a reason) it keeps reporting it.
 *
 * Must not: keep state between inputs.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/net_frame.h"
#include "net/net_ring.h"

#define SIZE    4096u
#define MAX_PKT 512u
#define BUF     (NET_RECORD_HDR_BYTES + MAX_PKT)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct hostile {
	uint8_t *m;
	int fds[3];
};

static int take(int sock, struct hostile *h)
{
	uint32_t body[2];
	union {
		char buf[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {.iov_base = body, .iov_len = sizeof(body)};
	struct msghdr msg = {.msg_iov = &iov,
	                     .msg_iovlen = 1,
	                     .msg_control = ctl.buf,
	                     .msg_controllen = sizeof(ctl)};
	void *m;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != (ssize_t)sizeof(body) || !CMSG_FIRSTHDR(&msg))
		return -1;
	memcpy(h->fds, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof(h->fds));
	m = mmap(NULL, net_ring_shm_bytes(SIZE), PROT_READ | PROT_WRITE, MAP_SHARED, h->fds[0], 0);
	if (m == MAP_FAILED)
		return -1;
	h->m = m;
	return 0;
}

static uint64_t *idx(struct hostile *h, unsigned dir, unsigned off)
{
	return (uint64_t *)(h->m + NET_RING_DIR_OFF(dir) + off);
}

static void check_read(struct net_ring *a, struct hostile *h, uint64_t *pos)
{
	const uint8_t *ring = h->m + NET_RING_CTL_BYTES + SIZE;
	uint8_t got[BUF];
	uint32_t plen;
	int rc = net_ring_read(a, got, sizeof(got));

	if (rc <= 0)
		return;
	memcpy(&plen, got, 4);
	if ((size_t)rc > BUF || be32toh(plen) > MAX_PKT ||
	    (size_t)rc != NET_RECORD_HDR_BYTES + be32toh(plen))
		__builtin_trap();
	for (int i = 0; i < rc; i++)
		if (got[i] != ring[(*pos + (uint64_t)i) % SIZE])
			__builtin_trap();
	*pos += (uint64_t)rc;
	if (*idx(h, 1, NET_RING_TAIL_OFF) != *pos)
		__builtin_trap(); /* the consumer published what it consumed */
}

static void run(struct net_ring *a, struct hostile *h, const uint8_t *data, size_t size)
{
	uint8_t *ring = h->m + NET_RING_CTL_BYTES + SIZE;
	uint8_t rec[BUF] = {0};
	uint64_t pos = 0, head = 0;
	size_t i = 0;

	while (i + 3 <= size) {
		uint8_t op = data[i];
		uint16_t arg = (uint16_t)(data[i + 1] | data[i + 2] << 8);
		size_t n;

		i += 3;
		switch (op % 5) {
		case 0: /* publish: head moves by arg (mostly forward) */
			head += (int16_t)arg;
			*idx(h, 1, NET_RING_HEAD_OFF) = head;
			break;
		case 1: /* raw bytes at ring offset arg */
			n = size - i < 64 ? size - i : 64;
			for (size_t k = 0; k < n; k++)
				ring[(arg + k) % SIZE] = data[i + k];
			i += n;
			break;
		case 2: /* a well-formed record header at the write position */
			rec[0] = rec[1] = 0;
			rec[2] = (uint8_t)(arg >> 8);
			rec[3] = (uint8_t)arg;
			for (size_t k = 0; k < NET_RECORD_HDR_BYTES; k++)
				ring[(head + k) % SIZE] = rec[k];
			break;
		case 3:
			check_read(a, h, &pos);
			break;
		case 4: /* the consumer of side 0's ring lies, then side 0 writes */
			*idx(h, 0, NET_RING_TAIL_OFF) =
			    *idx(h, 0, NET_RING_HEAD_OFF) - (uint64_t)(int16_t)arg;
			memcpy(rec, &(uint32_t){htobe32(12 + arg % 100)}, 4);
			(void)net_ring_write(a, rec, NET_RECORD_HDR_BYTES + 12 + arg % 100);
			break;
		}
		if (net_ring_error(a, NULL)) {
			const char *why;
			int err = net_ring_error(a, &why);

			if (!why[0] || net_ring_read(a, rec, sizeof(rec)) != err ||
			    net_ring_write(a, rec, 40) != err)
				__builtin_trap();
			return;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hostile h = {.m = NULL};
	struct net_ring *a;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 0;
	if (net_ring_create(sv[0], SIZE, MAX_PKT, &a, NULL)) {
		close(sv[1]);
		return 0;
	}
	if (!net_ring_send(a, NULL) && !take(sv[1], &h)) {
		run(a, &h, data, size);
		munmap(h.m, net_ring_shm_bytes(SIZE));
		for (unsigned k = 0; k < 3; k++)
			close(h.fds[k]);
	}
	net_ring_close(a);
	close(sv[1]);
	return 0;
}
