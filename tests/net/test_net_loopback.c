/* SPDX-License-Identifier: MIT */
/*
 * tests/net/test_net_loopback.c - two software NICs talking over loopback
 * TCP: SEND/RECV (with immediate), WRITE (with immediate), READ, CAS,
 * FETCH_ADD, RNR and remote-access NAKs, a malformed packet, a client
 * process that vanishes mid-stream, a link under back-pressure, and links
 * moved onto a shared-memory ring pair (the same traffic; a peer that
 * breaks the ring or hangs up; a request behind an acknowledgement, held
 * for the rx hook or not), and a polled link's held ACK sent on request.  Each
 * failure must take down exactly one connection: the tests keep a second
 * connection between the same devices and check it still works.
 *
 * Must not: need root or a fixed port; measure time (CQE waits have a
 * generous deadline only so a bug fails instead of hanging).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>
#include <stdatomic.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/net_ring.h"
#include "tests/net/net_peer.h"
#include "tests/support/masked_atomic.h"
#include "tests/support/ring_peer.h"

#define WAIT_MS 10000
#define MEM     (1u << 21)

struct world {
	struct np_dev srv, cli;
	struct net_listener *l;
	int port;
};

static struct world W;

static int setup(void **state)
{
	(void)state;
	signal(SIGPIPE, SIG_IGN);
	if (np_dev_open(&W.srv, 1) || np_dev_open(&W.cli, 2))
		return -1;
	if (net_listen("127.0.0.1", NET_PORT_EPHEMERAL, &W.l, NULL))
		return -1;
	W.port = net_listener_port(W.l);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	net_listener_close(W.l);
	np_dev_close(&W.cli);
	np_dev_close(&W.srv);
	return 0;
}

struct dial_job {
	struct np_qp *q;
	int rc;
};

static void *dial_main(void *arg)
{
	struct dial_job *j = arg;

	j->rc = np_qp_dial(j->q, "127.0.0.1", W.port);
	return NULL;
}

static void open_pair(struct np_qp *s, struct np_qp *c)
{
	assert_int_equal(np_qp_open(s, &W.srv, MEM), 0);
	assert_int_equal(np_qp_open(c, &W.cli, MEM), 0);
}

static void connect_pair(struct np_qp *s, struct np_qp *c)
{
	struct dial_job j = {.q = c};
	pthread_t th;

	pthread_create(&th, NULL, dial_main, &j);
	assert_int_equal(np_qp_answer(s, W.l), 0);
	pthread_join(th, NULL);
	assert_int_equal(j.rc, 0);
	assert_int_equal(c->peer.qpn, s->qpn);
	assert_int_equal(s->peer.qpn, c->qpn);
	assert_int_equal(c->peer.regions[0].rkey, s->rkey);
}

/* A connected pair: @s on the server device, @c on the client device. */
static void make_pair(struct np_qp *s, struct np_qp *c)
{
	open_pair(s, c);
	connect_pair(s, c);
}

static struct prism_cqe expect_cqe(struct np_cq *cq)
{
	struct prism_cqe e;

	memset(&e, 0, sizeof(e));
	assert_int_equal(np_wait(cq, &e, WAIT_MS), 0);
	return e;
}

/* Poll the polled @link until @cq holds a CQE (WAIT_MS rounds at most):
 * that CQE.  Each poll waits up to 1 ms for bytes when @waits (a wait lets
 * held ACKs go), else reads without waiting and the thread sleeps 1 ms
 * between polls. */
static struct prism_cqe poll_for_cqe(struct net_link *link, struct np_cq *cq, bool waits)
{
	struct prism_cqe e;
	int rc = np_wait(cq, &e, 0);

	for (int i = 0; i < WAIT_MS && rc != 0; i++) {
		assert_true(net_link_poll(link, waits ? 1000 : 0) >= 0);
		rc = np_wait(cq, &e, 0);
		if (rc && !waits)
			usleep(1000);
	}
	assert_int_equal(rc, 0);
	return e;
}

static void expect_ok(struct np_cq *cq, uint8_t cqe_opcode)
{
	struct prism_cqe e = expect_cqe(cq);

	if (e.opcode != cqe_opcode)
		fail_msg("CQE %s (syndrome %s), expected %s", prism_cqe_opcode_name(e.opcode),
		         prism_cqe_syndrome_name(e.syndrome), prism_cqe_opcode_name(cqe_opcode));
}

/* Masked atomic of @size bytes; operands as the WQE carries them (big-endian). */
static void post_masked(struct np_qp *q, uint8_t opcode, unsigned size, uint64_t raddr,
                        uint32_t rkey, size_t loff, const uint8_t *swap, const uint8_t *cmp,
                        const uint8_t *smask, const uint8_t *cmask)
{
	struct prism_wqe w;

	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = opcode;
	w.ctrl.opmod = masked_atomic_opmod(size);
	w.ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_NONE, PRISM_CE_CQ_UPDATE, false);
	w.has_raddr = true;
	w.raddr.raddr = raddr;
	w.raddr.rkey = rkey;
	masked_atomic_fill(&w, size, swap, cmp, smask, cmask);
	w.num_sge = 1;
	w.sge[0] = (struct prism_sge){
	    .byte_count = size, .lkey = q->lkey, .addr = (uintptr_t)q->mem + loff};
	assert_int_equal(np_post(q, &w), 0);
}

static void wait_state(struct np_qp *q, int state)
{
	for (int i = 0; i < WAIT_MS && sim_qp_state(q->qp) != state; i++)
		usleep(1000);
	assert_int_equal(sim_qp_state(q->qp), state);
}

/* Masked atomics cross the link in prism's vendor opcodes (0xd2-0xd4). */
static void test_masked_atomics(void **state)
{
	uint8_t swap[16], cmp[16], sm[16], cm[16], before[16], want[16];
	uint8_t add[8] = {0, 0, 0, 1, 0, 0, 0, 1}, bnd[8] = {0x80, 0, 0, 0, 0x80, 0, 0, 0};
	uint64_t base, host = 0x00000000ffffffffull, got;
	struct np_qp s, c;

	(void)state;
	make_pair(&s, &c);
	base = c.peer.regions[0].addr;
	/* 16 bytes: compare under the mask (byte 0 differs outside it), swap the last byte */
	for (unsigned i = 0; i < 16; i++) {
		before[i] = (uint8_t)(0xa0 + i);
		swap[i] = 0xff;
		cmp[i] = before[i] ^ (i == 0 ? 0x0f : 0);
		cm[i] = i == 0 ? 0xf0 : 0xff;
		sm[i] = i == 15 ? 0xff : 0;
	}
	memcpy(s.mem + 256, before, 16);
	memcpy(want, before, 16);
	want[15] = 0xff;
	post_masked(&c, PRISM_OP_ATOMIC_MASKED_CS, 16, base + 256, s.rkey, 512, swap, cmp, sm, cm);
	expect_ok(&c.scq, PRISM_CQE_REQ);
	assert_memory_equal(s.mem + 256, want, 16);
	assert_memory_equal(c.mem + 512, before, 16); /* the original came back */
	/* 8 bytes, host-endian target: two 32-bit fields, no carry between them */
	memcpy(s.mem + 320, &host, 8);
	post_masked(&c, PRISM_OP_ATOMIC_MASKED_FA, 8, base + 320, s.rkey, 600, add, NULL, bnd,
	            NULL);
	expect_ok(&c.scq, PRISM_CQE_REQ);
	memcpy(&got, s.mem + 320, 8);
	assert_int_equal(got, 0x0000000100000000ull);
	memcpy(&got, c.mem + 600, 8);
	assert_int_equal(got, host);
	np_qp_close(&c);
	np_qp_close(&s);
}

/* A misaligned atomic: NAK invalid request -> REMOTE_INVAL_REQ_ERR at the requester. */
static void test_invalid_request_nak(void **state)
{
	struct np_qp s, c;
	struct prism_cqe e;

	(void)state;
	make_pair(&s, &c);
	assert_int_equal(
	    np_post_atomic(&c, PRISM_OP_ATOMIC_FA, c.peer.regions[0].addr + 3, s.rkey, 1, 0, 0), 0);
	e = expect_cqe(&c.scq);
	assert_int_equal(e.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(e.syndrome, PRISM_SYND_REMOTE_INVAL_REQ_ERR);
	wait_state(&c, SIM_QPS_ERR);
	np_qp_close(&c);
	np_qp_close(&s);
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 31 + (i >> 9));
}

/* A SEND/RECV round on a pair that must be healthy. */
static void ping(struct np_qp *s, struct np_qp *c, uint8_t seed)
{
	struct prism_cqe e;

	assert_int_equal(np_post_recv(s, 0, 256), 0);
	fill(c->mem + 4096, 100, seed);
	assert_int_equal(np_post_send(c, PRISM_OP_SEND, 4096, 100, 0), 0);
	expect_ok(&c->scq, PRISM_CQE_REQ);
	e = expect_cqe(&s->rcq);
	assert_int_equal(e.opcode, PRISM_CQE_RESP_SEND);
	assert_int_equal(e.byte_count, 100);
	assert_memory_equal(s->mem, c->mem + 4096, 100);
}

static void test_send_recv(void **state)
{
	struct np_qp s, c;
	struct prism_cqe e;

	(void)state;
	make_pair(&s, &c);
	ping(&s, &c, 1);
	/* with immediate, and the receive posted only after the SEND (RNR, retried) */
	fill(c.mem, 333, 9);
	assert_int_equal(np_post_send(&c, PRISM_OP_SEND_IMM, 0, 333, 0xfeedf00d), 0);
	assert_int_equal(np_post_recv(&s, 8192, 512), 0);
	expect_ok(&c.scq, PRISM_CQE_REQ);
	e = expect_cqe(&s.rcq);
	assert_int_equal(e.opcode, PRISM_CQE_RESP_SEND_IMM);
	assert_int_equal(e.imm, 0xfeedf00d);
	assert_int_equal(e.byte_count, 333);
	assert_memory_equal(s.mem + 8192, c.mem, 333);
	/* and back the other way */
	assert_int_equal(np_post_recv(&c, 65536, 64), 0);
	fill(s.mem + 100, 64, 3);
	assert_int_equal(np_post_send(&s, PRISM_OP_SEND, 100, 64, 0), 0);
	expect_ok(&s.scq, PRISM_CQE_REQ);
	expect_ok(&c.rcq, PRISM_CQE_RESP_SEND);
	assert_memory_equal(c.mem + 65536, s.mem + 100, 64);
	np_qp_close(&c);
	np_qp_close(&s);
}

static void test_write(void **state)
{
	struct np_qp s, c;
	struct prism_cqe e;
	uint64_t base;

	(void)state;
	make_pair(&s, &c);
	base = c.peer.regions[0].addr;
	fill(c.mem, 4096, 5);
	assert_int_equal(np_post_rdma(&c, PRISM_OP_RDMA_WRITE, base + 1000, s.rkey, 0, 4096, 0), 0);
	expect_ok(&c.scq, PRISM_CQE_REQ);
	assert_memory_equal(s.mem + 1000, c.mem, 4096);
	/* WRITE_IMM lands the data and consumes a receive for the immediate */
	assert_int_equal(np_post_recv(&s, 0, 0), 0);
	fill(c.mem + 8192, 77, 6);
	assert_int_equal(
	    np_post_rdma(&c, PRISM_OP_RDMA_WRITE_IMM, base + 20000, s.rkey, 8192, 77, 0x1234), 0);
	expect_ok(&c.scq, PRISM_CQE_REQ);
	e = expect_cqe(&s.rcq);
	assert_int_equal(e.opcode, PRISM_CQE_RESP_WR_IMM);
	assert_int_equal(e.imm, 0x1234);
	assert_memory_equal(s.mem + 20000, c.mem + 8192, 77);
	np_qp_close(&c);
	np_qp_close(&s);
}

static void test_read(void **state)
{
	struct np_qp s, c;
	uint64_t base;

	(void)state;
	make_pair(&s, &c);
	base = c.peer.regions[0].addr;
	fill(s.mem, MEM, 11);
	assert_int_equal(np_post_rdma(&c, PRISM_OP_RDMA_READ, base + 64, s.rkey, 128, 4096, 0), 0);
	expect_ok(&c.scq, PRISM_CQE_REQ);
	assert_memory_equal(c.mem + 128, s.mem + 64, 4096);
	/* one READ larger than the transport's transmit buffer (1 MiB > 256 KiB) */
	assert_int_equal(np_post_rdma(&c, PRISM_OP_RDMA_READ, base, s.rkey, 0, 1u << 20, 0), 0);
	expect_ok(&c.scq, PRISM_CQE_REQ);
	assert_memory_equal(c.mem, s.mem, 1u << 20);
	np_qp_close(&c);
	np_qp_close(&s);
}

static void test_atomics(void **state)
{
	struct np_qp s, c;
	uint64_t base, v = 100, got;

	(void)state;
	make_pair(&s, &c);
	base = c.peer.regions[0].addr;
	memcpy(s.mem + 64, &v, 8);
	/* CAS that matches */
	assert_int_equal(np_post_atomic(&c, PRISM_OP_ATOMIC_CS, base + 64, s.rkey, 555, 100, 0), 0);
	expect_ok(&c.scq, PRISM_CQE_REQ);
	memcpy(&got, c.mem, 8);
	assert_int_equal(got, 100);
	memcpy(&got, s.mem + 64, 8);
	assert_int_equal(got, 555);
	/* CAS that does not */
	assert_int_equal(np_post_atomic(&c, PRISM_OP_ATOMIC_CS, base + 64, s.rkey, 1, 100, 8), 0);
	expect_ok(&c.scq, PRISM_CQE_REQ);
	memcpy(&got, c.mem + 8, 8);
	assert_int_equal(got, 555);
	memcpy(&got, s.mem + 64, 8);
	assert_int_equal(got, 555);
	/* FETCH_ADD, twice */
	assert_int_equal(np_post_atomic(&c, PRISM_OP_ATOMIC_FA, base + 64, s.rkey, 45, 0, 16), 0);
	assert_int_equal(
	    np_post_atomic(&c, PRISM_OP_ATOMIC_FA, base + 64, s.rkey, 1ull << 40, 0, 24), 0);
	expect_ok(&c.scq, PRISM_CQE_REQ);
	expect_ok(&c.scq, PRISM_CQE_REQ);
	memcpy(&got, c.mem + 16, 8);
	assert_int_equal(got, 555);
	memcpy(&got, c.mem + 24, 8);
	assert_int_equal(got, 600);
	memcpy(&got, s.mem + 64, 8);
	assert_int_equal(got, 600 + (1ull << 40));
	np_qp_close(&c);
	np_qp_close(&s);
}

/* A WRITE with a bad rkey: the requester gets a remote-access error CQE and
 * its QP goes to ERR; another connection is untouched. */
static void test_remote_access_nak(void **state)
{
	struct np_qp s, c, s2, c2;
	struct prism_cqe e;
	uint64_t base;

	(void)state;
	make_pair(&s, &c);
	make_pair(&s2, &c2);
	base = c.peer.regions[0].addr;
	assert_int_equal(np_post_rdma(&c, PRISM_OP_RDMA_WRITE, base, s.rkey ^ 0x5a5a00, 0, 64, 0),
	                 0);
	e = expect_cqe(&c.scq);
	assert_int_equal(e.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(e.syndrome, PRISM_SYND_REMOTE_ACCESS_ERR);
	wait_state(&c, SIM_QPS_ERR);
	/* out of bounds READ on the second pair's region: same syndrome, on that pair */
	assert_int_equal(np_post_rdma(&c2, PRISM_OP_RDMA_READ, c2.peer.regions[0].addr + MEM - 8,
	                              s2.rkey, 0, 64, 0),
	                 0);
	e = expect_cqe(&c2.scq);
	assert_int_equal(e.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(e.syndrome, PRISM_SYND_REMOTE_ACCESS_ERR);
	wait_state(&c2, SIM_QPS_ERR);
	np_qp_close(&c2);
	np_qp_close(&s2);
	/* a fresh third connection still works, and the links stayed up */
	make_pair(&s2, &c2);
	ping(&s2, &c2, 4);
	assert_int_equal(net_link_error(c.link), 0);
	np_qp_close(&c2);
	np_qp_close(&s2);
	np_qp_close(&c);
	np_qp_close(&s);
}

/* A SEND with no receive and no RNR retries left: RNR retry exceeded. */
static void test_rnr_exceeded(void **state)
{
	struct np_qp s, c, s2, c2;
	struct prism_cqe e;

	(void)state;
	make_pair(&s2, &c2);
	open_pair(&s, &c);
	c.rnr_retry = 0;
	connect_pair(&s, &c);
	fill(c.mem, 8, 1);
	assert_int_equal(np_post_send(&c, PRISM_OP_SEND, 0, 8, 0), 0);
	e = expect_cqe(&c.scq);
	assert_int_equal(e.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(e.syndrome, PRISM_SYND_RNR_RETRY_EXC_ERR);
	wait_state(&c, SIM_QPS_ERR);
	ping(&s2, &c2, 2);
	np_qp_close(&c);
	np_qp_close(&s);
	np_qp_close(&c2);
	np_qp_close(&s2);
}

struct raw_job {
	const void *bytes;
	size_t len;
	int rc;
};

/* Set up properly, send @bytes, then hold the socket until the server drops it. */
static void *raw_main(void *arg)
{
	struct raw_job *j = arg;
	struct net_oob_params mine = {.node = 9, .qpn = 0x77, .psn = 1}, peer;
	char buf[64];
	int fd;

	j->rc = net_connect("127.0.0.1", W.port, &mine, &peer, WAIT_MS, &fd, NULL);
	if (j->rc)
		return NULL;
	net_oob_params_release(&peer);
	if (write(fd, j->bytes, j->len) != (ssize_t)j->len)
		j->rc = -EIO;
	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		ssize_t n;

		if (poll(&pfd, 1, WAIT_MS) <= 0)
			break;
		n = read(fd, buf, sizeof(buf));
		if (n == 0 || (n < 0 && errno != EAGAIN))
			break;
	}
	close(fd);
	return NULL;
}

/* A peer that sends garbage after the setup exchange loses only its link. */
static void test_malformed_packet(void **state)
{
	static const uint8_t bad[] = {
	    0,    0,    0,    12,   0, 0, 0, 0, 0, 0, 0, 0, /* record: 12 bytes, vtime 0 */
	    0x04, 0x03, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, /* SEND_ONLY with TVer 3 */
	};
	struct raw_job j = {.bytes = bad, .len = sizeof(bad)};
	struct np_qp s, s2, c2;
	pthread_t th;

	(void)state;
	make_pair(&s2, &c2);
	assert_int_equal(np_qp_open(&s, &W.srv, MEM), 0);
	pthread_create(&th, NULL, raw_main, &j);
	assert_int_equal(np_qp_answer(&s, W.l), 0);
	pthread_join(th, NULL);
	assert_int_equal(j.rc, 0);
	for (int i = 0; i < WAIT_MS && !__atomic_load_n(&s.down_err, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	assert_int_equal(s.down_err, -EPROTO);
	if (!strstr(s.down_why, "malformed packet: BTH byte 1: TVer 3"))
		fail_msg("down reason: %s", s.down_why);
	assert_int_equal(net_link_error(s.link), -EPROTO);
	ping(&s2, &c2, 3);
	np_qp_close(&s);
	np_qp_close(&c2);
	np_qp_close(&s2);
}

/* A polled link is read only by its owner: every packet of a READ's answer
 * comes in through net_link_poll on this thread, none through the transport
 * thread, and the answer is whole. */
static void test_polled_link(void **state)
{
	struct net_link_stats st;
	struct prism_cqe e;
	struct np_qp s, c;
	uint64_t polled = 0;
	bool done = false;

	(void)state;
	make_pair(&s, &c);
	assert_int_equal(net_link_set_polled(c.link), 0);
	fill(s.mem, MEM, 5);
	for (int round = 0; round < 2; round++) {
		size_t len = round ? 1u << 20 : 4096; /* one socket read, then many */

		done = false;
		assert_int_equal(np_post_rdma(&c, PRISM_OP_RDMA_READ, c.peer.regions[0].addr,
		                              s.rkey, 0, (uint32_t)len, 0),
		                 0);
		for (int i = 0; i < WAIT_MS && !done; i++) {
			int n = net_link_poll(c.link, 1000);

			assert_true(n >= 0);
			polled += (uint64_t)n;
			done = np_wait(&c.scq, &e, 0) == 0;
		}
		assert_true(done);
		assert_int_equal(e.opcode, PRISM_CQE_REQ);
		assert_memory_equal(c.mem, s.mem, len);
	}
	net_link_stats(c.link, &st);
	assert_true(polled >= 2); /* at least one answer per READ */
	assert_int_equal(st.rx_pkts, polled);
	/* a SEND to the polled side: its plain ACK is held for the owner's next
	 * frame or its next wait, which lets it go, so the sender completes */
	assert_int_equal(np_post_recv(&c, 0, 256), 0);
	fill(s.mem + 8192, 100, 3);
	assert_int_equal(np_post_send(&s, PRISM_OP_SEND, 8192, 100, 0), 0);
	e = poll_for_cqe(c.link, &c.rcq, true);
	assert_int_equal(e.opcode, PRISM_CQE_RESP_SEND);
	assert_memory_equal(c.mem, s.mem + 8192, 100);
	e = poll_for_cqe(c.link, &s.scq, true);
	assert_int_equal(e.opcode, PRISM_CQE_REQ);
	np_qp_close(&c);
	np_qp_close(&s);
}

static void *close_later(void *arg)
{
	usleep(20000);
	np_qp_close(arg);
	return NULL;
}

/* A polled TCP link's long wait (20 ms or more) sleeps in the read itself:
 * it returns with the answer, read whole, and with the link's error when
 * the peer hangs up while the owner sleeps (not at the wait's bound). */
static void test_polled_link_long_wait(void **state)
{
	struct prism_cqe e;
	struct np_qp s, c;
	pthread_t th;
	bool done = false;
	int n = 0;

	(void)state;
	make_pair(&s, &c);
	assert_int_equal(net_link_set_polled(c.link), 0);
	fill(s.mem, MEM, 6);
	assert_int_equal(
	    np_post_rdma(&c, PRISM_OP_RDMA_READ, c.peer.regions[0].addr, s.rkey, 0, 1u << 20, 0),
	    0);
	for (int i = 0; i < WAIT_MS && !done; i++) {
		assert_true(net_link_poll(c.link, 100000) >= 0);
		done = np_wait(&c.scq, &e, 0) == 0;
	}
	assert_true(done);
	assert_int_equal(e.opcode, PRISM_CQE_REQ);
	assert_memory_equal(c.mem, s.mem, 1u << 20);
	assert_int_equal(pthread_create(&th, NULL, close_later, &s), 0);
	for (int i = 0; i < 10 && n == 0; i++)
		n = net_link_poll(c.link, 60 * 1000 * 1000); /* far beyond the test's run */
	assert_true(n < 0);
	assert_int_equal(net_link_error(c.link), n);
	pthread_join(th, NULL);
	np_qp_close(&c);
}

/* A hostile peer of a polled link: garbage in the stream fails that link
 * alone, on the owner's thread, with the parser's reason. */
static void test_polled_link_garbage(void **state)
{
	static const uint8_t junk[] = {0,    0,    0,    24,   0, 0, 0, 0, 0, 0, 0, 0,
	                               0xee, 0xff, 0x13, 0x37, 1, 2, 3, 4, 5, 6, 7, 8,
	                               9,    10,   11,   12,   0, 0, 0, 0, 0, 0, 0, 0};
	struct net_oob_params peer = {.node = 77, .qpn = 0x4242};
	struct np_qp a, s2, c2;
	int sv[2], n = 0;

	(void)state;
	make_pair(&s2, &c2);
	assert_int_equal(np_qp_open(&a, &W.srv, MEM), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	assert_int_equal(np_qp_connect(&a, sv[1], &peer), 0);
	assert_int_equal(net_link_set_polled(a.link), 0);
	assert_int_equal(write(sv[0], junk, sizeof(junk)), (ssize_t)sizeof(junk));
	for (int i = 0; i < WAIT_MS && n == 0; i++)
		n = net_link_poll(a.link, 1000);
	assert_int_equal(n, -EPROTO);
	assert_int_equal(a.down_err, -EPROTO);
	if (!strstr(a.down_why, "malformed packet"))
		fail_msg("down reason: %s", a.down_why);
	assert_int_equal(net_link_poll(a.link, 0), -EPROTO); /* stays down */
	ping(&s2, &c2, 9);
	close(sv[0]);
	np_qp_close(&a);
	np_qp_close(&c2);
	np_qp_close(&s2);
}

static int run_child_client(int port, int phase_fd)
{
	struct np_dev d;
	struct np_qp c;
	char go;

	if (np_dev_open(&d, 3) || np_qp_open(&c, &d, 1u << 16))
		return 10;
	if (np_qp_dial(&c, "127.0.0.1", port))
		return 11;
	fill(c.mem, 64, 42);
	if (np_post_send(&c, PRISM_OP_SEND, 0, 64, 0))
		return 12;
	{
		struct prism_cqe e;

		if (np_wait(&c.scq, &e, WAIT_MS) || e.opcode != PRISM_CQE_REQ)
			return 13;
	}
	/* tell the parent we are mid-stream, then wait to be told to vanish */
	if (write(phase_fd, "s", 1) != 1 || read(phase_fd, &go, 1) != 1)
		return 14;
	/* vanish: no goodbye, no cleanup; the kernel closes the socket */
	_exit(0);
}

static void test_client_vanishes(void **state)
{
	struct np_qp s, s2, c2;
	struct prism_cqe e;
	int sv[2], status;
	pid_t pid;
	char ch;

	(void)state;
	make_pair(&s2, &c2);
	assert_int_equal(np_qp_open(&s, &W.srv, MEM), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(sv[0]);
		_exit(run_child_client(W.port, sv[1]));
	}
	close(sv[1]);
	assert_int_equal(np_post_recv(&s, 0, 256), 0);
	assert_int_equal(np_qp_answer(&s, W.l), 0);
	e = expect_cqe(&s.rcq);
	assert_int_equal(e.opcode, PRISM_CQE_RESP_SEND);
	assert_int_equal(e.byte_count, 64);
	assert_int_equal(read(sv[0], &ch, 1), 1);
	/* a receive is outstanding when the client dies */
	assert_int_equal(np_post_recv(&s, 4096, 256), 0);
	assert_int_equal(write(sv[0], "x", 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(sv[0]);

	for (int i = 0; i < WAIT_MS && !__atomic_load_n(&s.down_err, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	assert_int_equal(s.down_err, -ECONNRESET);
	assert_non_null(strstr(s.down_why, "peer closed the connection"));
	/* nothing was in flight: as a NIC, which notices a dead peer only
	 * when it sends, the QP stays and its receive stays posted ... */
	assert_int_equal(sim_qp_state(s.qp), SIM_QPS_RTS);
	assert_int_equal(np_poll(&s.rcq, &e), 0);
	/* ... until its owner moves it to ERR: then it is flushed */
	assert_int_equal(sim_qp_modify(s.qp, &(struct sim_qp_mod){.state = SIM_QPS_ERR}), 0);
	e = expect_cqe(&s.rcq);
	assert_int_equal(e.opcode, PRISM_CQE_RESP_ERR);
	assert_int_equal(e.syndrome, PRISM_SYND_WR_FLUSH_ERR);
	/* the other connection keeps working */
	assert_int_equal(sim_qp_state(s2.qp), SIM_QPS_RTS);
	ping(&s2, &c2, 8);
	np_qp_close(&s);
	np_qp_close(&c2);
	np_qp_close(&s2);
}

/* Byte relay between two stream sockets; holds everything until released. */
struct relay {
	int a, b;
	volatile int open; /* 0: hold, 1: pump, 2: stop */
};

static void *relay_main(void *arg)
{
	struct relay *r = arg;
	static char buf[65536];

	while (__atomic_load_n(&r->open, __ATOMIC_ACQUIRE) == 0)
		usleep(1000);
	while (__atomic_load_n(&r->open, __ATOMIC_ACQUIRE) == 1) {
		struct pollfd p[2] = {{.fd = r->a, .events = POLLIN},
		                      {.fd = r->b, .events = POLLIN}};

		if (poll(p, 2, 10) <= 0)
			continue;
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (!(p[i].revents & POLLIN))
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			for (ssize_t off = 0, w; n > 0 && off<n; off += w> 0 ? w : 0) {
				struct pollfd q = {.fd = i ? r->a : r->b, .events = POLLOUT};

				w = write(q.fd, buf + off, (size_t)(n - off));
				if (w < 0 && errno != EAGAIN)
					return NULL;
				if (w < 0)
					poll(&q, 1, 10);
			}
		}
	}
	return NULL;
}

/* A sender faster than the path to its peer: the transport pushes back
 * (-EAGAIN), the device holds the packets and resumes on the kick; nothing
 * is lost or reordered.  A relay that holds the bytes until the sender has
 * been pushed back makes that deterministic. */
static void test_back_pressure(void **state)
{
	struct net_transport_opts o = {.sz = sizeof(o), .tx_buf = 4096};
	struct net_oob_params ps, pc;
	struct relay r = {0};
	struct np_dev small;
	struct np_qp s, c;
	struct net_link_stats st;
	struct prism_cqe e;
	int sv1[2], sv2[2];
	pthread_t th;
	const unsigned n = 48, len = 32768;

	(void)state;
	assert_int_equal(np_dev_open_opts(&small, 4, &o), 0);
	assert_int_equal(np_qp_open(&s, &W.srv, MEM), 0);
	assert_int_equal(np_qp_open(&c, &small, MEM), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv1), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv2), 0);
	r.a = sv1[1];
	r.b = sv2[0];
	pthread_create(&th, NULL, relay_main, &r);
	np_qp_params(&s, &ps);
	np_qp_params(&c, &pc);
	assert_int_equal(np_qp_connect(&c, sv1[0], &ps), 0);
	assert_int_equal(np_qp_connect(&s, sv2[1], &pc), 0);

	fill(c.mem, MEM, 21);
	/* 48 WRITEs of 32 KiB at once, each to its own place, then a SEND behind them */
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(np_post_rdma(&c, PRISM_OP_RDMA_WRITE,
		                              (uintptr_t)s.mem + (uint64_t)i * len, s.rkey,
		                              (size_t)i * len, len, 0),
		                 0);
	assert_int_equal(np_post_recv(&s, MEM - 64, 64), 0);
	assert_int_equal(np_post_send(&c, PRISM_OP_SEND, 0, 64, 0), 0);
	for (int i = 0; i < WAIT_MS; i++) {
		net_link_stats(c.link, &st);
		if (st.tx_eagain)
			break;
		usleep(1000);
	}
	assert_true(st.tx_eagain > 0);
	assert_int_equal(np_poll(&c.scq, &e), 0); /* nothing got through yet */
	__atomic_store_n(&r.open, 1, __ATOMIC_RELEASE);
	for (unsigned i = 0; i <= n; i++) {
		e = expect_cqe(&c.scq);
		assert_int_equal(e.opcode, PRISM_CQE_REQ);
	}
	expect_ok(&s.rcq, PRISM_CQE_RESP_SEND);
	assert_memory_equal(s.mem, c.mem, (size_t)n * len);
	net_link_stats(c.link, &st);
	assert_int_equal(st.tx_pkts, n + 1);
	__atomic_store_n(&r.open, 2, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	np_qp_close(&c);
	np_qp_close(&s);
	np_dev_close(&small);
	close(sv1[1]);
	close(sv2[0]);
}

#define RING 4096u /* small: a 1 MiB READ wraps it and waits for room often */

static void wait_down(struct np_qp *q, int err, const char *why)
{
	for (int i = 0; i < WAIT_MS && !__atomic_load_n(&q->down_err, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	assert_int_equal(q->down_err, err);
	if (!strstr(q->down_why, why))
		fail_msg("down reason: %s", q->down_why);
}

/* A pair whose packets travel over one ring pair. */
static void ring_pair(struct np_qp *s, struct np_qp *c)
{
	struct net_oob_params ps, pc;
	struct net_ring *a, *b;
	int sv[2];

	open_pair(s, c);
	np_qp_params(s, &ps);
	np_qp_params(c, &pc);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(net_ring_create(sv[0], RING, &a, NULL), 0);
	assert_int_equal(net_ring_send(a, NULL), 0);
	assert_int_equal(net_ring_recv(sv[1], RING, WAIT_MS, &b, NULL), 0);
	assert_int_equal(np_qp_connect_ring(s, a, &pc), 0);
	assert_int_equal(np_qp_connect_ring(c, b, &ps), 0);
}

/* The transport's traffic over a ring pair: SEND, a READ and a WRITE far
 * larger than the ring (wrap-around, room waits, back-pressure), then the
 * client's side polled by its owner; a link in use stays where it is. */
static void test_ring_link(void **state)
{
	struct net_link_stats st;
	struct net_ring *r;
	struct prism_cqe e;
	struct np_qp s, c;
	int sv[2];

	(void)state;
	ring_pair(&s, &c);
	ping(&s, &c, 1);
	fill(s.mem, MEM, 7);
	assert_int_equal(
	    np_post_rdma(&c, PRISM_OP_RDMA_READ, c.peer.regions[0].addr, s.rkey, 0, 1u << 20, 0),
	    0);
	expect_ok(&c.scq, PRISM_CQE_REQ);
	assert_memory_equal(c.mem, s.mem, 1u << 20);
	fill(c.mem, MEM, 8);
	assert_int_equal(
	    np_post_rdma(&c, PRISM_OP_RDMA_WRITE, c.peer.regions[0].addr, s.rkey, 0, 1u << 20, 0),
	    0);
	expect_ok(&c.scq, PRISM_CQE_REQ);
	assert_memory_equal(s.mem, c.mem, 1u << 20);
	net_link_stats(s.link, &st);
	assert_true(st.rx_pkts >= 3);
	assert_int_equal(net_link_error(s.link), 0);

	/* polled: the owner waits on the ring's data eventfd */
	assert_int_equal(net_link_set_polled(c.link), 0);
	fill(s.mem, MEM, 9);
	assert_int_equal(
	    np_post_rdma(&c, PRISM_OP_RDMA_READ, c.peer.regions[0].addr, s.rkey, 0, 1u << 20, 0),
	    0);
	e = poll_for_cqe(c.link, &c.scq, true);
	assert_int_equal(e.opcode, PRISM_CQE_REQ);
	assert_memory_equal(c.mem, s.mem, 1u << 20);

	/* a link already on a ring (or polled, or in use) is not moved */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	close(sv[1]);
	assert_int_equal(net_ring_create(sv[0], RING, &r, NULL), 0);
	assert_int_equal(net_link_use_ring(s.link, r, NULL), -EBUSY);
	np_qp_close(&c);
	np_qp_close(&s);
}

/* Polled client: the server's SEND is answered with a plain ACK that the
 * client holds; its own SEND then carries it, in one ring write. */
static void ack_then_request(struct np_qp *s, struct np_qp *c, uint8_t seed)
{
	struct net_link_stats st;
	struct prism_cqe e;
	uint64_t tx0;

	net_link_stats(c->link, &st);
	tx0 = st.tx_pkts;
	assert_int_equal(np_post_recv(c, 0, 256), 0);
	fill(s->mem + 8192, 64, seed);
	assert_int_equal(np_post_send(s, PRISM_OP_SEND, 8192, 64, 0), 0);
	e = poll_for_cqe(c->link, &c->rcq, true);
	assert_int_equal(e.opcode, PRISM_CQE_RESP_SEND);
	/* the ACK is queued and held (no poll with a wait lets it go) */
	for (int i = 0; i < WAIT_MS && st.tx_pkts == tx0; i++) {
		usleep(1000);
		net_link_stats(c->link, &st);
	}
	assert_int_equal(st.tx_pkts, tx0 + 1);
	assert_int_not_equal(np_wait(&s->scq, &e, 0), 0); /* held */
	assert_int_equal(np_post_recv(s, 0, 256), 0);
	fill(c->mem + 4096, 100, seed);
	assert_int_equal(np_post_send(c, PRISM_OP_SEND, 4096, 100, 0), 0);
	expect_ok(&s->scq, PRISM_CQE_REQ); /* the held ACK arrived */
	e = expect_cqe(&s->rcq);
	assert_int_equal(e.opcode, PRISM_CQE_RESP_SEND);
	assert_memory_equal(s->mem, c->mem + 4096, 100);
	poll_for_cqe(c->link, &c->scq, true); /* the client's SEND completed */
}

/* Polled client on the pair @make_pair_fn connects: two SENDs from the
 * server are answered with two plain ACKs, both held; the second replaces
 * the first (it acknowledges both SENDs), and the client's own SEND carries
 * it: the server's SENDs complete in order, from one ACK. */
static void two_acks_then_request(void (*make_pair_fn)(struct np_qp *, struct np_qp *))
{
	struct net_link_stats st, sst;
	struct np_qp srv, cli, *s = &srv, *c = &cli;
	struct prism_cqe e;
	uint64_t tx0, srx0;
	unsigned got = 0;

	make_pair_fn(s, c);
	assert_int_equal(net_link_set_polled(c->link), 0);
	net_link_stats(c->link, &st);
	net_link_stats(s->link, &sst);
	tx0 = st.tx_pkts;
	srx0 = sst.rx_pkts;
	assert_int_equal(st.tx_acks_coalesced, 0);
	assert_int_equal(np_post_recv(c, 0, 256), 0);
	assert_int_equal(np_post_recv(c, 256, 256), 0);
	fill(s->mem + 8192, 128, 7);
	assert_int_equal(np_post_send(s, PRISM_OP_SEND, 8192, 64, 0), 0);
	assert_int_equal(np_post_send(s, PRISM_OP_SEND, 8192 + 64, 64, 0), 0);
	/* reads without a wait: nothing lets the held ACKs go */
	for (int i = 0; i < WAIT_MS * 10 && got < 2; i++) {
		assert_true(net_link_poll(c->link, 0) >= 0);
		if (np_wait(&c->rcq, &e, 0) == 0) {
			assert_int_equal(e.opcode, PRISM_CQE_RESP_SEND);
			got++;
		} else {
			usleep(100);
		}
	}
	assert_int_equal(got, 2);
	for (int i = 0; i < WAIT_MS && st.tx_pkts < tx0 + 2; i++) {
		usleep(1000);
		net_link_stats(c->link, &st);
	}
	assert_int_equal(st.tx_pkts, tx0 + 2);
	assert_int_equal(st.tx_acks_coalesced, 1);
	assert_int_not_equal(np_wait(&s->scq, &e, 0), 0); /* held */
	assert_int_equal(np_post_recv(s, 0, 256), 0);
	fill(c->mem + 4096, 100, 8);
	assert_int_equal(np_post_send(c, PRISM_OP_SEND, 4096, 100, 0), 0);
	expect_ok(&s->scq, PRISM_CQE_REQ); /* both SENDs, from one ACK */
	expect_ok(&s->scq, PRISM_CQE_REQ);
	e = expect_cqe(&s->rcq);
	assert_int_equal(e.opcode, PRISM_CQE_RESP_SEND);
	net_link_stats(s->link, &sst);
	assert_int_equal(sst.rx_pkts, srx0 + 2); /* the ACK and the SEND */
	e = poll_for_cqe(c->link, &c->scq, true);
	assert_int_equal(e.opcode, PRISM_CQE_REQ);
	assert_int_equal(net_link_error(s->link), 0);
	np_qp_close(c);
	np_qp_close(s);
}

static void test_held_acks_coalesced(void **state)
{
	(void)state;
	two_acks_then_request(make_pair);
}

static void test_held_acks_coalesced_ring(void **state)
{
	(void)state;
	two_acks_then_request(ring_pair);
}

/* Polled client: a held ACK leaves when the owner stops holding them
 * (net_link_hold_acks), without a frame of its own to carry it, and so does
 * the next one, sent by its NIC thread (the owner of a connection whose
 * server re-arms after each invocation, between two calls). */
static void test_held_ack_flushed(void **state)
{
	struct net_link_stats st;
	struct prism_cqe e;
	struct np_qp s, c;
	uint64_t tx0;

	(void)state;
	make_pair(&s, &c);
	assert_int_equal(net_link_set_polled(c.link), 0);
	net_link_hold_acks(c.link, true); /* the default */
	net_link_stats(c.link, &st);
	tx0 = st.tx_pkts;
	assert_int_equal(np_post_recv(&c, 0, 256), 0);
	fill(s.mem + 8192, 64, 9);
	assert_int_equal(np_post_send(&s, PRISM_OP_SEND, 8192, 64, 0), 0);
	e = poll_for_cqe(c.link, &c.rcq, false);
	for (int i = 0; i < WAIT_MS && st.tx_pkts == tx0; i++) {
		usleep(1000);
		net_link_stats(c.link, &st);
	}
	assert_int_equal(st.tx_pkts, tx0 + 1);
	assert_int_not_equal(np_wait(&s.scq, &e, 0), 0); /* held */
	net_link_hold_acks(c.link, false);
	expect_ok(&s.scq, PRISM_CQE_REQ); /* the ACK arrived on its own */
	/* the next SEND's ACK is not held: reads without a wait suffice */
	assert_int_equal(np_post_recv(&c, 256, 256), 0);
	assert_int_equal(np_post_send(&s, PRISM_OP_SEND, 8192, 64, 0), 0);
	e = poll_for_cqe(c.link, &c.rcq, false);
	expect_ok(&s.scq, PRISM_CQE_REQ);
	assert_int_equal(net_link_error(s.link), 0);
	np_qp_close(&c);
	np_qp_close(&s);
}

/* A request behind acknowledgements in one read waits for the rx hook to
 * have run on them, unless its owner said the request's window is posted
 * (net_link_set_rx_ready): then both are delivered in one run. */
static void test_request_behind_ack(void **state)
{
	struct net_link_stats st;
	struct np_qp s, c;

	(void)state;
	ring_pair(&s, &c);
	assert_int_equal(net_link_set_polled(c.link), 0);
	ack_then_request(&s, &c, 1);
	net_link_stats(s.link, &st);
	assert_int_equal(st.rx_splits, 1); /* no window known: it waited */
	/* windows for the first 3 requests: the 2nd goes with its ACK */
	net_link_set_rx_ready(s.link, 3);
	ack_then_request(&s, &c, 2);
	net_link_stats(s.link, &st);
	assert_int_equal(st.rx_splits, 1);
	/* two requests came: the 3rd has a window too, the 4th waits again */
	ack_then_request(&s, &c, 3);
	ack_then_request(&s, &c, 4);
	net_link_stats(s.link, &st);
	assert_int_equal(st.rx_splits, 2);
	assert_int_equal(net_link_error(s.link), 0);
	np_qp_close(&c);
	np_qp_close(&s);
}

struct setup_only {
	struct np_qp *q;
	struct net_oob_params peer;
	int fd, rc;
};

/* The client's setup exchange only: its socket is kept, nothing attached. */
static void *setup_only_main(void *arg)
{
	struct setup_only *j = arg;
	struct net_oob_params mine;

	np_qp_params(j->q, &mine);
	j->rc = net_connect("127.0.0.1", W.port, &mine, &j->peer, WAIT_MS, &j->fd, NULL);
	return NULL;
}

/* A fresh TCP link moved onto a ring pair, as a server's is after its local
 * client fetched the pair: the traffic follows onto the ring. */
static void test_link_moves_to_ring(void **state)
{
	struct net_ring *a, *b;
	struct np_qp s, c;
	struct setup_only j = {.q = &c};
	pthread_t th;
	int sv[2];

	(void)state;
	open_pair(&s, &c);
	pthread_create(&th, NULL, setup_only_main, &j);
	assert_int_equal(np_qp_answer(&s, W.l), 0);
	pthread_join(th, NULL);
	assert_int_equal(j.rc, 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(net_ring_create(sv[0], RING, &a, NULL), 0);
	assert_int_equal(net_ring_send(a, NULL), 0);
	assert_int_equal(net_ring_recv(sv[1], RING, WAIT_MS, &b, NULL), 0);
	assert_int_equal(np_qp_connect_ring(&c, b, &j.peer), 0);
	/* a request sent before the move waits in the ring, and is read once
	 * the link moved (no wake-up was asked for then) */
	assert_int_equal(np_post_recv(&s, 0, 256), 0);
	fill(c.mem + 4096, 100, 4);
	assert_int_equal(np_post_send(&c, PRISM_OP_SEND, 4096, 100, 0), 0);
	assert_int_equal(net_link_use_ring(s.link, a, NULL), 0);
	expect_ok(&c.scq, PRISM_CQE_REQ);
	assert_int_equal(expect_cqe(&s.rcq).opcode, PRISM_CQE_RESP_SEND);
	assert_memory_equal(s.mem, c.mem + 4096, 100);
	net_oob_params_release(&j.peer);
	close(j.fd); /* the server closed its end already: nothing fails */
	fill(s.mem, MEM, 6);
	assert_int_equal(
	    np_post_rdma(&c, PRISM_OP_RDMA_READ, c.peer.regions[0].addr, s.rkey, 0, 65536, 0), 0);
	expect_ok(&c.scq, PRISM_CQE_REQ);
	assert_memory_equal(c.mem, s.mem, 65536);
	assert_int_equal(net_link_error(s.link), 0);
	np_qp_close(&c);
	np_qp_close(&s);
}

/* Connect @s over a ring pair whose other end @h holds raw. */
static void raw_ring(struct np_qp *s, struct ring_peer *h)
{
	struct net_ring *a;

	assert_int_equal(ring_peer_open(RING, &a, h), 0);
	assert_int_equal(
	    np_qp_connect_ring(s, a, &(struct net_oob_params){.node = 77, .qpn = 0x4242}), 0);
}

/* A peer that breaks the ring (an index out of range), one that writes
 * garbage records into it and one that hangs up: each fails its own link
 * only. */
static void test_ring_hostile_peer(void **state)
{
	static const uint8_t junk[] = {0,    0,    0,    24,   0, 0, 0, 0, 0, 0, 0, 0,
	                               0xee, 0xff, 0x13, 0x37, 1, 2, 3, 4, 5, 6, 7, 8,
	                               9,    10,   11,   12,   0, 0, 0, 0, 0, 0, 0, 0};
	struct np_qp s, s2, c2;
	struct ring_peer h;
	uint64_t one = 1;

	(void)state;
	ring_pair(&s2, &c2);
	for (int round = 0; round < 3; round++) {
		assert_int_equal(np_qp_open(&s, &W.srv, MEM), 0);
		raw_ring(&s, &h);
		if (round == 0) { /* ring 1 is the raw end's: a head far ahead */
			*ring_peer_index(&h, 1, NET_RING_HEAD_OFF) = 1ull << 40;
			assert_int_equal(write(h.fds[1], &one, sizeof(one)), (ssize_t)sizeof(one));
			wait_down(&s, -EPROTO, "peer producer index");
		} else if (round == 1) {
			memcpy(ring_peer_bytes(&h, 1), junk, sizeof(junk));
			__atomic_store_n(ring_peer_index(&h, 1, NET_RING_HEAD_OFF),
			                 (uint64_t)sizeof(junk), __ATOMIC_RELEASE);
			assert_int_equal(write(h.fds[1], &one, sizeof(one)), (ssize_t)sizeof(one));
			wait_down(&s, -EPROTO, "malformed packet");
		} else {
			ring_peer_hang_up(&h);
			wait_down(&s, -ECONNRESET, "peer closed the connection");
		}
		assert_int_equal(net_link_error(s.link), s.down_err);
		ping(&s2, &c2, (uint8_t)round);
		ring_peer_close(&h);
		np_qp_close(&s);
	}
	np_qp_close(&c2);
	np_qp_close(&s2);
}

/* The rx hook of test_ring_flag_set_before_sleep: holds the transport
 * thread busy until the test lets it go. */
static atomic_int hook_calls, hook_release;

static void busy_hook(void *ctx)
{
	(void)ctx;
	atomic_fetch_add(&hook_calls, 1);
	for (int i = 0; i < WAIT_MS && !atomic_load(&hook_release); i++)
		usleep(1000);
}

/* The raw peer @h writes one ACK record for @s's QP (outside its window:
 * taken and ignored) at stream position @pos into ring 1, signalling the
 * data eventfd only when the consumer's sleep flag was set, as a producer
 * does.  Returns the new position. */
static uint64_t peer_write_ack(struct ring_peer *h, const struct np_qp *s, uint64_t pos)
{
	struct net_pkt np = {.opcode = NET_OP_ACKNOWLEDGE,
	                     .pkey = 0xffff,
	                     .dest_qpn = s->qpn,
	                     .psn = 0x123456,
	                     .aeth = {.syndrome = 0x1f}};
	uint32_t *flag = (uint32_t *)(h->m + NET_RING_DIR_OFF(1) + NET_RING_SLEEP_OFF);
	uint8_t rec[64];
	uint64_t one = 1;
	int n = net_record_encode(&np, 0, rec, sizeof(rec), NULL);

	assert_true(n > 0);
	memcpy(ring_peer_bytes(h, 1) + pos, rec, (size_t)n);
	__atomic_store_n(ring_peer_index(h, 1, NET_RING_HEAD_OFF), pos + (uint64_t)n,
	                 __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_exchange_n(flag, 0, __ATOMIC_SEQ_CST))
		assert_int_equal(write(h->fds[1], &one, sizeof(one)), (ssize_t)sizeof(one));
	return pos + (uint64_t)n;
}

static void wait_rx_pkts(struct np_qp *s, uint64_t want)
{
	struct net_link_stats st;

	net_link_stats(s->link, &st);
	for (int i = 0; i < WAIT_MS && st.rx_pkts < want; i++) {
		usleep(1000);
		net_link_stats(s->link, &st);
	}
	assert_int_equal(st.rx_pkts, want);
}

/* The transport thread sets a ring's sleep flag only before it sleeps: an
 * idle thread's ring is flagged (the peer's next write signals it), a busy
 * thread's is not (the peer writes without a system call), and a write
 * that came unsignalled while it was busy is still read. */
static void test_ring_flag_set_before_sleep(void **state)
{
	struct np_qp s;
	struct ring_peer h;
	uint32_t *flag;
	uint64_t pos = 0;

	(void)state;
	assert_int_equal(np_qp_open(&s, &W.srv, MEM), 0);
	raw_ring(&s, &h);
	flag = (uint32_t *)(h.m + NET_RING_DIR_OFF(1) + NET_RING_SLEEP_OFF);
	for (int i = 0; i < WAIT_MS && !__atomic_load_n(flag, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	assert_int_equal(__atomic_load_n(flag, __ATOMIC_ACQUIRE), 1); /* idle */

	atomic_store(&hook_calls, 0);
	atomic_store(&hook_release, 0);
	net_transport_set_rx_hook(W.srv.t, busy_hook, NULL);
	pos = peer_write_ack(&h, &s, pos); /* signalled: wakes the thread */
	for (int i = 0; i < WAIT_MS && !atomic_load(&hook_calls); i++)
		usleep(1000);
	assert_int_equal(atomic_load(&hook_calls), 1);
	/* busy in the hook, the ring read empty: not flagged */
	assert_int_equal(__atomic_load_n(flag, __ATOMIC_ACQUIRE), 0);
	pos = peer_write_ack(&h, &s, pos); /* no signal */
	atomic_store(&hook_release, 1);
	wait_rx_pkts(&s, 2);
	for (int i = 0; i < WAIT_MS && !__atomic_load_n(flag, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	assert_int_equal(__atomic_load_n(flag, __ATOMIC_ACQUIRE), 1); /* idle again */
	net_transport_set_rx_hook(W.srv.t, NULL, NULL);
	pos = peer_write_ack(&h, &s, pos); /* signalled again */
	wait_rx_pkts(&s, 3);
	assert_int_equal(net_link_error(s.link), 0);
	ring_peer_close(&h);
	np_qp_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_send_recv),
	    cmocka_unit_test(test_write),
	    cmocka_unit_test(test_read),
	    cmocka_unit_test(test_atomics),
	    cmocka_unit_test(test_masked_atomics),
	    cmocka_unit_test(test_remote_access_nak),
	    cmocka_unit_test(test_invalid_request_nak),
	    cmocka_unit_test(test_rnr_exceeded),
	    cmocka_unit_test(test_malformed_packet),
	    cmocka_unit_test(test_polled_link),
	    cmocka_unit_test(test_ring_flag_set_before_sleep),
	    cmocka_unit_test(test_polled_link_long_wait),
	    cmocka_unit_test(test_polled_link_garbage),
	    cmocka_unit_test(test_held_acks_coalesced),
	    cmocka_unit_test(test_held_acks_coalesced_ring),
	    cmocka_unit_test(test_held_ack_flushed),
	    cmocka_unit_test(test_client_vanishes),
	    cmocka_unit_test(test_back_pressure),
	    cmocka_unit_test(test_ring_link),
	    cmocka_unit_test(test_ring_hostile_peer),
	    cmocka_unit_test(test_link_moves_to_ring),
	    cmocka_unit_test(test_request_behind_ack),
	};

	return cmocka_run_group_tests_name("net_loopback", tests, setup, teardown);
}
