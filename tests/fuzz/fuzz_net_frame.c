/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_net_frame.c - libFuzzer target for the net framing.
 *
 * Owns: three properties on arbitrary bytes: (1) the packet decoder never
 * reads out of bounds, and every packet it accepts re-encodes to exactly the
 * same bytes; (2) a byte stream split into length-prefixed records never
 * yields a record past the end; (3) the setup-message decoder accepts only
 * messages that re-encode to the same bytes; (4) the incremental setup
 * reader (net_oob_rx_step, the server's), fed the bytes in two pieces over
 * a socket, completes exactly when the whole-message decoder accepts the
 * bytes it consumed, with the same message.
 *
 * Must not: allocate per input beyond the fixed buffers.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "net/net_frame.h"
#include "net/net_oob.h"
#include "net/net_simpkt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t out[8192];

static void check_sim_mapping(const struct net_pkt *pkt)
{
	static const struct net_simpkt_addr addr = {
	    .local_node = 2, .local_qpn = 0, .peer_node = 1, .peer_qpn = 0x100};
	struct net_simpkt_addr a = addr;
	uint8_t s1[NET_SIMPKT_SCRATCH], s2[NET_SIMPKT_SCRATCH];
	struct diag_report diag = {0};
	struct sim_pkt sp;
	struct net_pkt back;

	a.local_qpn = pkt->dest_qpn; /* as if it arrived on the right link */
	if (net_simpkt_from_wire(pkt, &a, &sp, s1, &diag)) {
		if (diag.code >= 0 || diag.msg[0] == '\0')
			__builtin_trap();
		return;
	}
	if (net_simpkt_to_wire(&sp, &back, s2, &diag) || net_frame_size(&back, NULL) < 0)
		__builtin_trap();
	if (back.opcode != pkt->opcode && !(pkt->opcode == NET_OP_MASKED_ATOMIC_ACKNOWLEDGE &&
	                                    back.opcode == NET_OP_ATOMIC_ACKNOWLEDGE))
		__builtin_trap();
}

static void check_packet(const uint8_t *data, size_t size)
{
	struct diag_report diag;
	struct net_pkt pkt;
	char line[256];
	int n;

	if (net_frame_decode(data, size, &pkt, &diag) != 0) {
		if (diag.code >= 0 || diag.msg[0] == '\0')
			__builtin_trap();
		return;
	}
	n = net_frame_encode(&pkt, out, sizeof(out), &diag);
	if (n < 0 || (size_t)n != size || memcmp(out, data, size) != 0)
		__builtin_trap();
	net_pkt_snprint(line, sizeof(line), &pkt);
	check_sim_mapping(&pkt);
}

static void check_stream(const uint8_t *data, size_t size)
{
	size_t off = 0;
	uint32_t len;

	while (net_record_peek(data + off, size - off, 4096, &len, NULL, NULL) == 0) {
		if (off + NET_RECORD_HDR_BYTES + len > size)
			__builtin_trap();
		check_packet(data + off + NET_RECORD_HDR_BYTES, len);
		off += NET_RECORD_HDR_BYTES + len;
	}
}

static void check_oob(const uint8_t *data, size_t size)
{
	struct net_oob_msg m;
	int n;

	if (net_oob_decode(data, size, &m, NULL) != 0)
		return;
	n = net_oob_encode(&m, out, sizeof(out), NULL);
	/* a REJECT reason stops at its first NUL, so only compare what must match */
	if (n < 0 || (m.type != NET_OOB_REJECT && ((size_t)n != size || memcmp(out, data, size))))
		__builtin_trap();
}

static void drain(int fd)
{
	uint8_t sink[4096];

	while (recv(fd, sink, sizeof(sink), MSG_DONTWAIT) > 0)
		;
}

static void check_oob_rx(const uint8_t *data, size_t size)
{
	static int sv[2] = {-1, -1};
	struct net_oob_rx rx = {0};
	struct net_oob_msg m, whole;
	size_t cut = size ? data[0] % (size + 1) : 0;
	int rc;

	if (size > 65536 || (sv[0] < 0 && socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv)))
		return;
	if (send(sv[1], data, cut, 0) != (ssize_t)cut)
		__builtin_trap();
	rc = net_oob_rx_step(&rx, sv[0], &m, NULL);
	if (rc == 0) {
		if (send(sv[1], data + cut, size - cut, 0) != (ssize_t)(size - cut))
			__builtin_trap();
		rc = net_oob_rx_step(&rx, sv[0], &m, NULL);
	}
	if (rc == 1) {
		if (net_oob_decode(data, rx.got, &whole, NULL) || whole.type != m.type ||
		    whole.params.blob_len != m.params.blob_len ||
		    (m.params.blob_len &&
		     memcmp(whole.params.blob, m.params.blob, m.params.blob_len)))
			__builtin_trap();
		net_oob_params_release(&m.params);
	} else if (!net_oob_decode(data, size, &whole, NULL)) {
		__builtin_trap(); /* a whole, valid message the reader did not take */
	}
	net_oob_rx_free(&rx);
	drain(sv[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_packet(data, size);
	check_stream(data, size);
	check_oob(data, size);
	check_oob_rx(data, size);
	return 0;
}
