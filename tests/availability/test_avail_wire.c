/* SPDX-License-Identifier: MIT */
/*
 * tests/availability/test_avail_wire.c - the software NIC's and the
 * transport's own bounds, below the runtime (whose connections grant a
 * client no READ at all): a peer that is allowed to READ floods READs and
 * never reads the answers, on a device that also carries an honest pair.
 *
 * Checked: the flood is pushed back (the transport stops reading that link:
 * its sends block) or its QP alone fails; the device's and the process's
 * memory stay bounded; the honest pair on the same device completes its
 * round trips while the flood is held open.  (The NIC's completion events,
 * which the server's event-driven loop rests on, are rule 6.7 of
 * docs/nic-model.md in tests/rules.)
 *
 * Must not: assert on time (the waits only detect "stuck" and have
 * generous deadlines).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/net/net_peer.h"

#define MEM       (1u << 16)
#define READS_MAX 4000000u

static bool heap_bytes(uint64_t *out)
{
#if defined(__SANITIZE_ADDRESS__)
	(void)out;
	return false; /* ASan keeps freed memory in quarantine */
#else
	struct mallinfo2 mi = mallinfo2();

	*out = (uint64_t)mi.uordblks + (uint64_t)mi.hblkhd;
	return true;
#endif
}

/* 64-byte READs of @q's buffer until the link stops taking them (five
 * 200 ms waits for room with none) or drops; how many were sent. */
static unsigned flood(int fd, const struct np_qp *q, bool *dropped)
{
	static uint8_t buf[1024 * 64];
	unsigned sent = 0, stuck = 0;
	size_t len = 0, off = 0;

	*dropped = false;
	while (sent < READS_MAX && stuck < 5) {
		if (off == len) {
			len = off = 0;
			for (unsigned i = 0; i < 1024; i++) {
				struct net_pkt p = {.opcode = NET_OP_RDMA_READ_REQUEST,
				                    .pkey = NET_DEFAULT_PKEY,
				                    .dest_qpn = q->qpn,
				                    .psn = (sent + i) & NET_PSN_MASK,
				                    .reth = {(uintptr_t)q->mem, q->rkey, 64}};
				int n =
				    net_record_encode(&p, 0, buf + len, sizeof(buf) - len, NULL);

				assert_true(n > 0);
				len += (size_t)n;
			}
		}
		ssize_t n = send(fd, buf + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			off += (size_t)n;
			sent += off == len ? 1024 : 0;
			stuck = 0;
		} else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pf = {.fd = fd, .events = POLLOUT};

			stuck += poll(&pf, 1, 200) == 0;
		} else {
			*dropped = true;
			break;
		}
	}
	return sent;
}

static void test_read_flood_without_reading(void **state)
{
	struct np_dev srv, cli;
	struct np_qp s, c, a;
	struct net_oob_params ps, pc, pa = {.node = 77, .qpn = 0x4242};
	struct net_link_stats st;
	struct prism_cqe e;
	uint64_t heap0 = 0, heap = 0;
	bool counted, dropped;
	int sv[2], av[2];
	unsigned sent;

	(void)state;
	assert_int_equal(np_dev_open(&srv, 1), 0);
	assert_int_equal(np_dev_open(&cli, 2), 0);
	/* the honest pair */
	assert_int_equal(np_qp_open(&s, &srv, MEM), 0);
	assert_int_equal(np_qp_open(&c, &cli, MEM), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	np_qp_params(&s, &ps);
	np_qp_params(&c, &pc);
	assert_int_equal(np_qp_connect(&c, sv[0], &ps), 0);
	assert_int_equal(np_qp_connect(&s, sv[1], &pc), 0);
	/* the flooded QP: its peer is this test, which never reads */
	assert_int_equal(np_qp_open(&a, &srv, MEM), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, av), 0);
	assert_int_equal(np_qp_connect(&a, av[1], &pa), 0);
	counted = heap_bytes(&heap0);

	sent = flood(av[0], &a, &dropped);
	assert_true(sent < READS_MAX);
	net_link_stats(a.link, &st);
	/* pushed back: the device was told -EAGAIN and the link stopped reading */
	assert_true(dropped || st.tx_eagain > 0);
	/* the honest pair goes on while the flood is held open */
	for (int i = 0; i < 200; i++) {
		assert_int_equal(np_post_rdma(&c, PRISM_OP_RDMA_WRITE, ps.regions[0].addr,
		                              ps.regions[0].rkey, 0, 256, 0),
		                 0);
		assert_int_equal(np_wait(&c.scq, &e, 30000), 0);
		assert_int_equal(e.opcode, PRISM_CQE_REQ);
	}
	if (counted && heap_bytes(&heap) && heap > heap0 + (32u << 20))
		fail_msg("heap grew by %llu bytes under the flood",
		         (unsigned long long)(heap - heap0));
	close(av[0]);
	np_qp_close(&a);
	np_qp_close(&c);
	np_qp_close(&s);
	np_dev_close(&cli);
	np_dev_close(&srv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_read_flood_without_reading),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests_name("avail_wire", tests, NULL, NULL);
}
