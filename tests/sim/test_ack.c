/* SPDX-License-Identifier: MIT */
/*
 * tests/sim/test_ack.c - the requester's side of RC acknowledges (rule
 * ack-coalesced, docs/nic-model.md): one ACK acknowledges every SEND /
 * WRITE outstanding up to its PSN, in order, across the 24-bit PSN wrap; a
 * READ before it waits for its own response (an ACK never completes a
 * READ); a stale or duplicate ACK, and one for a PSN never sent, changes
 * nothing.  A READ / atomic response lands only into a scatter list still
 * registered when it arrives.  The responses come from the test, standing
 * in for the peer.
 *
 * Owns: these checks.  Must not: time anything.
 */
#include <errno.h>
#include <stdlib.h>

#include "tests/sim/sim_env.h"

#define PEER_NODE 2
#define PEER_QPN  9

/* The requests the device sent (the peer never answers on its own). */
struct sent {
	unsigned n;
	struct sim_pkt pkt[16];
};

static int capture(void *ctx, const struct sim_pkt *p)
{
	struct sent *s = ctx;

	assert_true(s->n < 16);
	s->pkt[s->n] = *p;
	s->pkt[s->n].payload = NULL; /* lives only for the call */
	s->n++;
	return 0;
}

static const struct sim_wire_ops capture_ops = {.xmit = capture};

struct fx {
	struct sim_dev *dev;
	struct hx_cq cq;
	struct hx_qp q;
	struct sent sent;
	uint8_t *buf; /* 4096 bytes: local data */
	uint32_t key;
};

/* A QP on node 1 connected to a peer on node 2; its first PSN @psn0. */
static struct fx *fx_make(uint32_t psn0)
{
	struct sim_dev_opts o = {.sz = sizeof(o), .seed = 1, .node = 1};
	struct fx *f = test_calloc(1, sizeof(*f));
	struct sim_qp_mod m = {.state = SIM_QPS_INIT};

	assert_int_equal(sim_dev_open(&o, &f->dev), 0);
	sim_dev_set_wire(f->dev, &capture_ops, &f->sent);
	hx_cq_init(&f->cq, f->dev, 16, false);
	hx_qp_init(&f->q, f->dev, &f->cq, &f->cq, 16, 4, 0);
	assert_int_equal(sim_qp_modify(f->q.qp, &m), 0);
	m.state = SIM_QPS_RTR;
	m.peer_node = PEER_NODE;
	m.peer_qpn = PEER_QPN;
	assert_int_equal(sim_qp_modify(f->q.qp, &m), 0);
	m.state = SIM_QPS_RTS;
	m.sq_psn = psn0;
	assert_int_equal(sim_qp_modify(f->q.qp, &m), 0);
	f->buf = aligned_alloc(4096, 4096);
	for (unsigned i = 0; i < 4096; i++)
		f->buf[i] = (uint8_t)i;
	f->key = hx_key(f->dev, f->buf, 4096, CONF_ALL);
	return f;
}

static void fx_free(struct fx *f)
{
	sim_dev_close(f->dev);
	free(f->buf);
	test_free(f);
}

static void post_write(struct fx *f, uint32_t off)
{
	struct prism_wqe w;

	hx_rw(&w, PRISM_OP_RDMA_WRITE, 0x1000 + off, 0x77, (uintptr_t)f->buf + off, f->key, 8,
	      true);
	hx_post(&f->q, &w);
}

static void post_send(struct fx *f)
{
	struct prism_wqe w;

	hx_send(&w, PRISM_OP_SEND, (uintptr_t)f->buf, f->key, 8, true);
	hx_post(&f->q, &w);
}

/* Rings, runs, and checks @n more requests left with consecutive PSNs. */
static void send_all(struct fx *f, unsigned n)
{
	unsigned first = f->sent.n;

	hx_ring(&f->q);
	assert_int_equal(sim_dev_run(f->dev, 0), 0);
	assert_int_equal(f->sent.n, first + n);
	for (unsigned i = first + 1; i < f->sent.n; i++)
		assert_int_equal(f->sent.pkt[i].psn, (f->sent.pkt[i - 1].psn + 1) & 0xffffffu);
}

/* The peer answers: a response of @kind with @psn, after every request. */
static void answer(struct fx *f, enum sim_pkt_kind kind, uint32_t psn, uint8_t *payload,
                   uint32_t len)
{
	struct sim_pkt p = {
	    .kind = kind,
	    .src_node = PEER_NODE,
	    .src_qpn = PEER_QPN,
	    .dst_node = 1,
	    .dst_qpn = f->q.qpn,
	    .psn = psn,
	    .t = f->sent.pkt[f->sent.n - 1].t + 1000,
	    .payload = payload,
	    .payload_len = len,
	};

	assert_int_equal(sim_dev_deliver(f->dev, &p), 0);
	assert_int_equal(sim_dev_run(f->dev, 0), 0);
}

/* The next CQE: WQE @counter completed without error. */
static void expect_ok(struct fx *f, uint32_t counter)
{
	struct prism_cqe c = hx_expect(&f->cq);

	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_int_equal(c.wqe_counter, counter);
}

static void expect_none(struct fx *f)
{
	struct prism_cqe c;

	assert_int_equal(hx_poll(&f->cq, &c), 0);
	assert_int_equal(sim_qp_state(f->q.qp), SIM_QPS_RTS);
}

/* One ACK for the last of four WRITEs / SENDs, whose PSNs wrap past
 * 0xffffff, completes all four, in WQE order, each as its own ACK would. */
static void test_coalesced_ack_completes_in_order(void **state)
{
	struct fx *f = fx_make(0xfffffe);

	(void)state;
	post_write(f, 0);
	post_send(f);
	post_write(f, 8);
	post_send(f);
	send_all(f, 4);
	assert_int_equal(f->sent.pkt[0].psn, 0xfffffe);
	assert_int_equal(f->sent.pkt[3].psn, 1);
	expect_none(f);
	answer(f, SIM_PKT_ACK, 0xffffff, NULL, 0); /* the first two */
	expect_ok(f, 0);
	expect_ok(f, 1);
	expect_none(f);
	answer(f, SIM_PKT_ACK, 1, NULL, 0); /* the last two */
	expect_ok(f, 2);
	expect_ok(f, 3);
	expect_none(f);
	fx_free(f);
}

/* An ACK past a READ with no response yet acknowledges the WRITE before
 * the READ; the WRITE after it completes only once the READ's response has
 * landed (completions in order).  An ACK with the READ's own PSN completes
 * nothing: only a READ response does. */
static void test_ack_past_unanswered_read(void **state)
{
	struct fx *f = fx_make(100);
	uint8_t data[16];
	struct prism_wqe w;

	(void)state;
	memset(data, 0xa5, sizeof(data));
	post_write(f, 0);
	hx_rw(&w, PRISM_OP_RDMA_READ, 0x2000, 0x77, (uintptr_t)f->buf + 1024, f->key, 16, true);
	hx_post(&f->q, &w);
	post_write(f, 8);
	send_all(f, 3);
	assert_int_equal(f->sent.pkt[1].kind, SIM_PKT_READ_REQ);
	answer(f, SIM_PKT_ACK, 102, NULL, 0);
	expect_ok(f, 0);
	expect_none(f); /* the READ waits, and the WRITE behind it */
	answer(f, SIM_PKT_ACK, 101, NULL, 0);
	expect_none(f);
	assert_int_equal(f->buf[1024], 0); /* untouched: buf[i] = i */
	answer(f, SIM_PKT_READ_RESP, 101, data, sizeof(data));
	expect_ok(f, 1);
	expect_ok(f, 2);
	expect_none(f);
	assert_memory_equal(f->buf + 1024, data, sizeof(data));
	fx_free(f);
}

/* An ACK for a PSN already acknowledged changes nothing; neither does one
 * after everything completed. */
static void test_stale_ack_ignored(void **state)
{
	struct fx *f = fx_make(0);

	(void)state;
	post_write(f, 0);
	post_write(f, 8);
	send_all(f, 2);
	answer(f, SIM_PKT_ACK, 0, NULL, 0);
	expect_ok(f, 0);
	answer(f, SIM_PKT_ACK, 0, NULL, 0); /* duplicate */
	expect_none(f);
	answer(f, SIM_PKT_ACK, 0xffffff, NULL, 0); /* before the window */
	expect_none(f);
	answer(f, SIM_PKT_ACK, 1, NULL, 0);
	expect_ok(f, 1);
	answer(f, SIM_PKT_ACK, 1, NULL, 0); /* nothing outstanding */
	expect_none(f);
	post_write(f, 16); /* the QP goes on */
	send_all(f, 1);
	answer(f, SIM_PKT_ACK, 2, NULL, 0);
	expect_ok(f, 2);
	fx_free(f);
}

/* An ACK for a PSN never sent (the next one, or one half the PSN space
 * away) acknowledges nothing: the requests sent still wait for theirs. */
static void test_ack_beyond_sent_ignored(void **state)
{
	struct fx *f = fx_make(0xfffffe);

	(void)state;
	post_write(f, 0);
	post_write(f, 8);
	send_all(f, 2);
	answer(f, SIM_PKT_ACK, 0, NULL, 0); /* the next PSN, after the wrap */
	expect_none(f);
	answer(f, SIM_PKT_ACK, 0x7ffffe, NULL, 0);
	expect_none(f);
	answer(f, SIM_PKT_ACK, 0xffffff, NULL, 0);
	expect_ok(f, 0);
	expect_ok(f, 1);
	expect_none(f);
	fx_free(f);
}

/* A READ (or atomic) response lands only where its scatter list is still
 * registered when it arrives: @gone_own deregisters the list's own MR
 * while the request is out (the WQE fails with a local protection error
 * and no byte lands), else another MR (the list is still good and the
 * data lands). */
static void read_after_dereg(bool gone_own, uint8_t opcode)
{
	struct fx *f = fx_make(50);
	uint8_t *lbuf = aligned_alloc(64, 64), *other = aligned_alloc(64, 64);
	uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	struct sim_mr *lmr, *omr;
	struct prism_wqe w;

	memset(lbuf, 0x5a, 64);
	assert_int_equal(sim_mr_reg(f->dev, lbuf, 64, CONF_ALL, &lmr), 0);
	assert_int_equal(sim_mr_reg(f->dev, other, 64, CONF_ALL, &omr), 0);
	if (opcode == PRISM_OP_RDMA_READ)
		hx_rw(&w, opcode, 0x2000, 0x77, (uintptr_t)lbuf + 8, sim_mr_lkey(lmr), 8, true);
	else
		hx_atomic(&w, opcode, 0x2000, 0x77, 1, 0, (uintptr_t)lbuf + 8, sim_mr_lkey(lmr),
		          true);
	hx_post(&f->q, &w);
	send_all(f, 1);
	assert_int_equal(sim_mr_dereg(gone_own ? lmr : omr), 0);
	answer(f, opcode == PRISM_OP_RDMA_READ ? SIM_PKT_READ_RESP : SIM_PKT_ATOMIC_RESP, 50, data,
	       sizeof(data));
	if (gone_own) {
		struct prism_cqe c = hx_expect(&f->cq);

		assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
		assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_PROT_ERR);
		assert_int_equal(c.wqe_counter, 0);
		assert_int_equal(lbuf[8], 0x5a);
		assert_int_equal(sim_mr_dereg(omr), 0);
	} else {
		expect_ok(f, 0);
		expect_none(f);
		assert_memory_equal(lbuf + 8, data, sizeof(data));
		assert_int_equal(sim_mr_dereg(lmr), 0);
	}
	fx_free(f);
	free(lbuf);
	free(other);
}

static void test_read_lands_after_other_dereg(void **state)
{
	(void)state;
	read_after_dereg(false, PRISM_OP_RDMA_READ);
	read_after_dereg(false, PRISM_OP_ATOMIC_CS);
}

static void test_read_fails_after_own_dereg(void **state)
{
	(void)state;
	read_after_dereg(true, PRISM_OP_RDMA_READ);
	read_after_dereg(true, PRISM_OP_ATOMIC_CS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_coalesced_ack_completes_in_order),
	    cmocka_unit_test(test_ack_past_unanswered_read),
	    cmocka_unit_test(test_stale_ack_ignored),
	    cmocka_unit_test(test_ack_beyond_sent_ignored),
	    cmocka_unit_test(test_read_lands_after_other_dereg),
	    cmocka_unit_test(test_read_fails_after_own_dereg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
