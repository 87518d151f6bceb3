/* SPDX-License-Identifier: MIT */
/*
 * tests/availability/avail_flood.c - raw CONNECT and READ flood
 * (avail_flood.h).
 */
#include "tests/availability/avail_flood.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>

#include "core/proto.h"
#include "net/net_frame.h"

int av_raw_connect_port(uint16_t port, int *fd, struct net_oob_params *peer, char *why, size_t cap)
{
	struct core_hello h = {.kind = CORE_HELLO_CONNECT,
	                       .node = 0x77,
	                       .qpn = 0x4242,
	                       .resp_addr = 0x10000,
	                       .resp_rkey = 0x1234,
	                       .resp_slots = 16,
	                       .resp_stride = 128};
	/* on mlx5 over the emulator's fabric: the RoCE GID of node 0x77 */
	struct net_oob_params mine = {
	    .node = 0x77, .qpn = 0x4242, .gid = {[10] = 0xff, [11] = 0xff, [15] = 0x77}};
	struct diag_report d = {0};
	uint8_t blob[256];
	int rc;

	mine.blob_len = (uint32_t)core_hello_encode(&h, blob, sizeof(blob));
	mine.blob = blob;
	rc = net_connect("127.0.0.1", port, &mine, peer, 10000, fd, &d);
	if (rc)
		snprintf(why, cap, "%s", d.msg);
	else
		net_oob_params_release(peer);
	return rc;
}

long av_flood_reads(int fd, uint32_t qpn, uint64_t va, uint32_t rkey, uint32_t len,
                    unsigned long max, bool *dropped)
{
	static uint8_t buf[1024 * 64];
	unsigned long sent = 0;
	unsigned stuck = 0;
	size_t have = 0, off = 0;

	*dropped = false;
	while (sent < max && stuck < 5) {
		if (off == have) {
			have = off = 0;
			for (unsigned i = 0; i < 1024; i++) {
				struct net_pkt p = {.opcode = NET_OP_RDMA_READ_REQUEST,
				                    .pkey = NET_DEFAULT_PKEY,
				                    .dest_qpn = qpn,
				                    .psn = (uint32_t)(sent + i) & NET_PSN_MASK,
				                    .reth = {va, rkey, len}};
				int n =
				    net_record_encode(&p, 0, buf + have, sizeof(buf) - have, NULL);

				if (n <= 0)
					return -1;
				have += (size_t)n;
			}
		}
		ssize_t n = send(fd, buf + off, have - off, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			off += (size_t)n;
			sent += off == have ? 1024 : 0;
			stuck = 0;
		} else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pf = {.fd = fd, .events = POLLOUT};

			stuck += poll(&pf, 1, 200) == 0;
			if (pf.revents & (POLLERR | POLLHUP)) {
				*dropped = true;
				break;
			}
		} else { /* EPIPE / ECONNRESET: the server let go of us */
			*dropped = true;
			break;
		}
	}
	return (long)sent;
}
