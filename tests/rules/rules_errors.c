/* SPDX-License-Identifier: MIT */
/*
 * tests/rules/rules_errors.c - NIC-model rules for errors (sections 1, 2
 * and 5 of docs/nic-model.md): memory protection (local and remote, QP
 * access rights, protection domains), the QP moving to ERR with its other
 * WQEs flushed, malformed WQEs, RNR retry, short receives, isolation
 * between connections, and the QP state machine.  One body per rule, on
 * every backend (rules.h).
 */
#include "sim/sim.h"
#include "tests/rules/rules.h"

/* A new pair: a (the device's PD, every right) and b (in @pd, serving
 * @access), connected, each with its own CQ. */
static void fresh_pair(struct rx *x, struct rx_cq *ca, struct rx_cq *cb, struct rx_qp *a,
                       struct rx_qp *b, unsigned access, struct core_be_pd *pd)
{
	rx_cq(x, ca, 64, false);
	rx_cq(x, cb, 64, false);
	rx_qp(x, a, ca, ca, 64, 16, 0);
	rx_qp_prot(x, b, cb, cb, 64, 16, 0, pd, access);
	rx_pair(x, a, b);
}

/* rule mr-local-protection-error: a bad lkey or an address outside the MR
 * fails the WQE with a local protection error; nothing is sent */
static void r_mr_local_protection_error(struct rx *x)
{
	struct prism_wqe w;
	struct prism_cqe c;

	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)x->dst, x->dst_key, (uintptr_t)x->src + 4000,
	      x->src_key, 200, true); /* runs past the end of src */
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	c = rx_expect(x, &x->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_PROT_ERR);
	assert_int_equal(x->dst[0], 0);
	assert_true(rx_in_err(x, &x->a));
}

/* rule mr-remote-access-error: a bad rkey, an address out of bounds or a
 * missing access right gives the requester a remote access error; both QPs
 * move to ERR (IBA responder class C error) */
static void r_mr_remote_access_error(struct rx *x)
{
	uint8_t *ro = rx_buf(x, 64);
	uint32_t ro_key = rx_key(x, ro, 64, CORE_ACCESS_REMOTE_READ);

	for (int k = 0; k < 3; k++) {
		struct rx_cq ca, cb;
		struct rx_qp a, b;
		struct prism_wqe w;
		struct prism_cqe c;
		uint64_t raddr = k == 2 ? (uintptr_t)ro : (uintptr_t)x->dst + (k == 1 ? 4090 : 0);
		uint32_t rkey = k == 0 ? x->dst_key ^ 0x55 : k == 2 ? ro_key : x->dst_key;

		fresh_pair(x, &ca, &cb, &a, &b, RX_REMOTE_ALL, NULL);
		hx_rw(&w, PRISM_OP_RDMA_WRITE, raddr, rkey, (uintptr_t)x->src, x->src_key, 16,
		      true);
		rx_post(&a, &w);
		rx_ring(x, &a);
		RX_RUN(x);
		c = rx_expect(x, &ca);
		assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
		assert_int_equal(c.syndrome, PRISM_SYND_REMOTE_ACCESS_ERR);
		assert_true(rx_in_err(x, &a));
		assert_true(rx_in_err(x, &b));
		assert_int_equal(ro[0], 0);
		assert_int_equal(x->dst[0], 0);
	}
}

/* rule qp-access-rights: a responder serves an inbound READ, WRITE or
 * atomic only when its QP grants that right (qp_access_flags, mlx5 QPC
 * rre/rwe/rae), whatever the key; otherwise remote access error, both QPs
 * to ERR, memory untouched.  SENDs need no right. */
static void r_qp_access_rights(struct rx *x)
{
	static const struct {
		uint8_t op;
		unsigned missing;
	} cases[] = {
	    {PRISM_OP_RDMA_READ, CORE_ACCESS_REMOTE_READ},
	    {PRISM_OP_RDMA_WRITE, CORE_ACCESS_REMOTE_WRITE},
	    {PRISM_OP_ATOMIC_FA, CORE_ACCESS_REMOTE_ATOMIC},
	};

	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct rx_cq ca, cb;
		struct rx_qp a, b;
		struct prism_wqe w;
		struct prism_cqe c;

		/* b grants every right but the one the request needs */
		fresh_pair(x, &ca, &cb, &a, &b, RX_REMOTE_ALL & ~cases[k].missing, NULL);
		if (cases[k].op == PRISM_OP_ATOMIC_FA)
			hx_atomic(&w, cases[k].op, (uintptr_t)x->dst, x->dst_key, 1, 0,
			          (uintptr_t)x->src, x->src_key, true);
		else
			hx_rw(&w, cases[k].op, (uintptr_t)x->dst, x->dst_key, (uintptr_t)x->src,
			      x->src_key, 16, true);
		rx_post(&a, &w);
		rx_ring(x, &a);
		RX_RUN(x);
		c = rx_expect(x, &ca);
		assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
		assert_int_equal(c.syndrome, PRISM_SYND_REMOTE_ACCESS_ERR);
		assert_true(rx_in_err(x, &b));
		assert_int_equal(x->dst[0], 0);
	}
}

/* rule pd-keys: an MR's keys are honoured only by QPs of its protection
 * domain: an rkey of another PD is a remote access error at the
 * responder, an lkey of another PD a local protection error; an MR of the
 * responder's own PD works, and a PD in use cannot be freed. */
static void r_pd_keys(struct rx *x)
{
	struct core_be_pd *p1 = rx_pd(x), *p2 = rx_pd(x);
	uint32_t in_p1 = rx_key_pd(x, p1, x->dst, 64, RX_ALL);
	uint32_t in_p2 = rx_key_pd(x, p2, x->dst + 64, 64, RX_ALL);
	uint32_t src_p2 = rx_key_pd(x, p2, x->src, 64, RX_ALL);
	struct rx_cq ca, cb;
	struct rx_qp a, b;
	struct prism_wqe w;
	struct prism_cqe c;

	/* b in p1, a in the device's PD */
	fresh_pair(x, &ca, &cb, &a, &b, RX_REMOTE_ALL, p1);
	/* the responder's PD: served */
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)x->dst, in_p1, (uintptr_t)x->src, x->src_key, 8,
	      true);
	rx_post(&a, &w);
	rx_ring(x, &a);
	RX_RUN(x);
	c = rx_expect(x, &ca);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_memory_equal(x->dst, x->src, 8);
	/* another PD's rkey, in bounds and with every right: refused */
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)x->dst + 64, in_p2, (uintptr_t)x->src, x->src_key,
	      8, true);
	rx_post(&a, &w);
	rx_ring(x, &a);
	RX_RUN(x);
	c = rx_expect(x, &ca);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_REMOTE_ACCESS_ERR);
	assert_int_equal(x->dst[64], 0);
	assert_true(rx_in_err(x, &b));
	/* a PD with memory in it cannot be freed (ibv_dealloc_pd: EBUSY) */
	assert_int_not_equal(x->ops->dealloc_pd(p1), 0);

	/* an lkey of another PD in a local data segment (fixture QP a: the
	 * device's PD) */
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)x->dst + 128, x->dst_key, (uintptr_t)x->src,
	      src_p2, 8, true);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	c = rx_expect(x, &x->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_PROT_ERR);
	assert_int_equal(x->dst[128], 0);
}

/* rule qp-error-flushes: after an error every later WQE, signaled or not,
 * and every posted receive completes with WR_FLUSH_ERR, in order */
static void r_qp_error_flushes(struct rx *x)
{
	struct prism_sge sge = {.byte_count = 8, .lkey = x->dst_key, .addr = (uintptr_t)x->dst};
	struct prism_wqe w;
	struct prism_cqe c;
	uint32_t bad, n1, n2;

	rx_post_recv(x, &x->a, &sge, 1);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)x->dst, x->dst_key, (uintptr_t)x->src, 0x12345, 8,
	      false); /* bad lkey, unsignaled: errors always complete */
	bad = rx_post(&x->a, &w);
	hx_nop(&w, false);
	n1 = rx_post(&x->a, &w);
	hx_nop(&w, true);
	n2 = rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	c = rx_expect(x, &x->cq_a);
	assert_int_equal(c.wqe_counter, bad);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_PROT_ERR);
	c = rx_expect(x, &x->cq_a);
	assert_int_equal(c.wqe_counter, n1);
	assert_int_equal(c.syndrome, PRISM_SYND_WR_FLUSH_ERR);
	c = rx_expect(x, &x->cq_a);
	assert_int_equal(c.wqe_counter, n2);
	assert_int_equal(c.syndrome, PRISM_SYND_WR_FLUSH_ERR);
	c = rx_expect(x, &x->cq_a); /* the posted receive */
	assert_int_equal(c.opcode, PRISM_CQE_RESP_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_WR_FLUSH_ERR);
	/* WQEs posted in ERR are flushed too */
	hx_nop(&w, false);
	n1 = rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	c = rx_expect(x, &x->cq_a);
	assert_int_equal(c.wqe_counter, n1);
	assert_int_equal(c.syndrome, PRISM_SYND_WR_FLUSH_ERR);
}

/* rule bad-wqe-local-qp-op-error: an unknown opcode or a DS that does not
 * fit the segments fails with a local QP operation error */
static void r_bad_wqe_local_qp_op_error(struct rx *x)
{
	for (int k = 0; k < 2; k++) {
		struct prism_ctrl_seg ctrl;
		struct rx_cq ca, cb;
		struct rx_qp a, b;
		struct prism_wqe w;
		struct prism_cqe c;
		uint8_t *slot;

		fresh_pair(x, &ca, &cb, &a, &b, RX_REMOTE_ALL, NULL);
		hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)x->dst, x->dst_key, (uintptr_t)x->src,
		      x->src_key, 8, true);
		slot = rx_slot(&a, rx_post(&a, &w));
		prism_ctrl_seg_unpack(slot, &ctrl);
		if (k == 0)
			ctrl.opcode = 0x05; /* not an opcode */
		else
			ctrl.ds = 1; /* WRITE needs its raddr segment */
		prism_ctrl_seg_pack(&ctrl, slot);
		rx_ring(x, &a);
		RX_RUN(x);
		c = rx_expect(x, &ca);
		assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
		assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
		assert_int_equal(x->dst[0], 0);
	}
}

/* rule rnr-retry-exceeded: a SEND with no posted receive is retried
 * rnr_retry times, then fails with RNR_RETRY_EXC_ERR */
static void r_rnr_retry_exceeded(struct rx *x)
{
	struct sim_dev *s = rx_sim(x);
	struct sim_stats st0, st;
	struct prism_wqe w;
	struct prism_cqe c;

	/* reconnect a with rnr_retry 3 */
	assert_int_equal(x->ops->modify_qp(x->a.qp, CORE_QPS_RESET, NULL), 0);
	x->a.pi = 0;
	rx_connect(x, &x->a, x->b.qpn, 3, 1);
	if (s)
		sim_dev_stats(s, &st0);
	hx_send(&w, PRISM_OP_SEND, (uintptr_t)x->src, x->src_key, 8, true);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	c = rx_expect(x, &x->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_RNR_RETRY_EXC_ERR);
	if (s) { /* the software NIC counts its packets: 4 SENDs, 4 RNR NAKs */
		sim_dev_stats(s, &st);
		assert_int_equal(st.pkts - st0.pkts, 2 * (1 + 3));
	}
	assert_false(rx_in_err(x, &x->b));       /* RNR does not fail b */
	assert_int_equal(rx_count(&x->cq_b), 1); /* the NOP rx_in_err posted */
}

/* rule rnr-infinite-waits-for-recv: with rnr_retry 7 the SEND waits until
 * a receive is posted, then lands */
static void r_rnr_infinite_waits_for_recv(struct rx *x)
{
	struct prism_sge sge = {.byte_count = 8, .lkey = x->dst_key, .addr = (uintptr_t)x->dst};
	struct prism_wqe w;

	hx_send(&w, PRISM_OP_SEND, (uintptr_t)x->src, x->src_key, 8, true);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	assert_int_equal(rx_count(&x->cq_a), 0);
	rx_post_recv(x, &x->b, &sge, 1);
	RX_RUN(x);
	assert_int_equal(rx_expect(x, &x->cq_a).opcode, PRISM_CQE_REQ);
	assert_int_equal(rx_expect(x, &x->cq_b).opcode, PRISM_CQE_RESP_SEND);
	assert_memory_equal(x->dst, x->src, 8);
}

/* rule recv-too-short: a SEND longer than the receive fails the receive
 * with a local length error and the requester with remote invalid request */
static void r_recv_too_short(struct rx *x)
{
	struct prism_sge sge = {.byte_count = 11, .lkey = x->dst_key, .addr = (uintptr_t)x->dst};
	struct prism_wqe w;
	struct prism_cqe c;

	rx_post_recv(x, &x->b, &sge, 1);
	hx_send(&w, PRISM_OP_SEND, (uintptr_t)x->src, x->src_key, 64, true);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	c = rx_expect(x, &x->cq_b);
	assert_int_equal(c.opcode, PRISM_CQE_RESP_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_LENGTH_ERR);
	c = rx_expect(x, &x->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_REMOTE_INVAL_REQ_ERR);
}

/* rule error-isolation: one connection's error leaves other QPs running */
static void r_error_isolation(struct rx *x)
{
	struct rx_cq cq;
	struct rx_qp c, d;
	struct prism_wqe w;

	rx_cq(x, &cq, 64, false);
	rx_qp(x, &c, &cq, &cq, 16, 4, 0);
	rx_qp(x, &d, &cq, &cq, 16, 4, 0);
	rx_pair(x, &c, &d);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)x->dst, 0xdead00, (uintptr_t)x->src, x->src_key,
	      8, true);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)x->dst + 64, x->dst_key, (uintptr_t)x->src,
	      x->src_key, 8, true);
	rx_post(&c, &w);
	rx_ring(x, &c);
	RX_RUN(x);
	assert_int_equal(rx_expect(x, &cq).opcode, PRISM_CQE_REQ);
	assert_memory_equal(x->dst + 64, x->src, 8);
	assert_true(rx_in_err(x, &x->a));
	assert_false(rx_in_err(x, &c));
	assert_false(rx_in_err(x, &d));
}

/* rule qp-state-machine: RESET->INIT->RTR->RTS in order; a QP below RTS
 * does not send; any state may go to ERR or RESET */
static void r_qp_state_machine(struct rx *x)
{
	struct rx_cq cq;
	struct rx_qp q;
	struct prism_wqe w;
	struct core_qp_peer p;

	rx_cq(x, &cq, 16, false);
	rx_qp(x, &q, &cq, &cq, 16, 4, 0);
	p = rx_peer(x, q.qpn, 7);
	assert_int_not_equal(x->ops->modify_qp(q.qp, CORE_QPS_RTS, &p), 0); /* RESET -> RTS */
	assert_int_equal(x->ops->modify_qp(q.qp, CORE_QPS_INIT, NULL), 0);
	hx_nop(&w, true);
	rx_post(&q, &w);
	rx_ring(x, &q);
	RX_RUN(x);
	assert_int_equal(rx_count(&cq), 0); /* INIT: nothing runs */
	assert_int_equal(x->ops->modify_qp(q.qp, CORE_QPS_RTR, &p), 0);
	RX_RUN(x);
	assert_int_equal(rx_count(&cq), 0); /* RTR: no sends */
	assert_int_equal(x->ops->modify_qp(q.qp, CORE_QPS_RTS, &p), 0);
	rx_ring(x, &q); /* the doorbell rung in INIT is not remembered by every NIC */
	RX_RUN(x);
	assert_int_equal(rx_expect(x, &cq).opcode, PRISM_CQE_REQ);
	assert_int_equal(x->ops->modify_qp(q.qp, CORE_QPS_ERR, NULL), 0);
	assert_int_not_equal(x->ops->modify_qp(q.qp, CORE_QPS_RTS, &p), 0); /* ERR -> RTS */
	assert_int_equal(x->ops->modify_qp(q.qp, CORE_QPS_RESET, NULL), 0);
	/* RESET forgot the connection: it can be set up again */
	q.pi = 0;
	rx_connect(x, &q, q.qpn, 7, 1);
	assert_false(rx_in_err(x, &q));
}

static const struct rule rules[] = {
    RULE("1.3", "mr-local-protection-error", r_mr_local_protection_error),
    RULE("1.4", "mr-remote-access-error", r_mr_remote_access_error),
    RULE("1.11", "qp-access-rights", r_qp_access_rights),
    RULE("1.12", "pd-keys", r_pd_keys),
    RULE("2.5", "recv-too-short", r_recv_too_short),
    RULE("5.1", "qp-error-flushes", r_qp_error_flushes),
    RULE("5.2", "bad-wqe-local-qp-op-error", r_bad_wqe_local_qp_op_error),
    RULE("5.3", "rnr-retry-exceeded", r_rnr_retry_exceeded),
    RULE("5.4", "rnr-infinite-waits-for-recv", r_rnr_infinite_waits_for_recv),
    RULE("5.5", "error-isolation", r_error_isolation),
    RULE("5.6", "qp-state-machine", r_qp_state_machine),
};
RULE_TABLE(rules_errors, rules);
