/* SPDX-License-Identifier: MIT */
/*
 * tests/conformance/conf_errors.c - NIC-model rules for errors: memory
 * protection (local and remote), the QP moving to ERR with its other WQEs
 * flushed, malformed WQEs, RNR retry, short receives, isolation between
 * connections, and the QP state machine.  One test per rule, named after
 * it (hw-tests' names where they exist).
 */
#include <errno.h>

#include "tests/conformance/conf_env.h"

static int setup(void **state)
{
	*state = env_make(SIM_FW_STRICT, SIM_HAZARD_WARN, false, 0, 0);
	return 0;
}

static void ring_run(struct env *e)
{
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
}

/* rule mr-local-protection-error: a bad lkey or an address outside the MR
 * fails the WQE with a local protection error; nothing is sent */
static void test_mr_local_protection_error(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	struct prism_cqe c;

	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst, e->dst_key, (uintptr_t)e->src + 4000,
	      e->src_key, 200, true); /* runs past the end of src */
	hx_post(&e->a, &w);
	ring_run(e);
	c = hx_expect(&e->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_PROT_ERR);
	assert_int_equal(e->dst[0], 0);
	assert_int_equal(sim_qp_state(e->a.qp), SIM_QPS_ERR);
}

/* rule mr-remote-access-error: a bad rkey, an address out of bounds or a
 * missing access right gives the requester a remote access error; both QPs
 * move to ERR (IBA responder class C error) */
static void test_mr_remote_access_error(void **state)
{
	static const int cases = 3;

	for (int k = 0; k < cases; k++) {
		struct env *e = env_make(SIM_FW_STRICT, SIM_HAZARD_WARN, false, 0, 0);
		uint8_t ro[64] = {0};
		uint32_t ro_key = hx_key(e->dev, ro, sizeof(ro), SIM_ACCESS_REMOTE_READ);
		struct prism_wqe w;
		struct prism_cqe c;
		uint64_t raddr = k == 2 ? (uintptr_t)ro : (uintptr_t)e->dst + (k == 1 ? 4090 : 0);
		uint32_t rkey = k == 0 ? e->dst_key ^ 0x55 : k == 2 ? ro_key : e->dst_key;

		hx_rw(&w, PRISM_OP_RDMA_WRITE, raddr, rkey, (uintptr_t)e->src, e->src_key, 16,
		      true);
		hx_post(&e->a, &w);
		ring_run(e);
		c = hx_expect(&e->cq_a);
		assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
		assert_int_equal(c.syndrome, PRISM_SYND_REMOTE_ACCESS_ERR);
		assert_int_equal(sim_qp_state(e->a.qp), SIM_QPS_ERR);
		assert_int_equal(sim_qp_state(e->b.qp), SIM_QPS_ERR);
		assert_int_equal(ro[0], 0);
		env_free(e);
	}
	(void)state;
}

/* rule qp-access-rights: a responder serves an inbound READ, WRITE or
 * atomic only when its QP grants that right (qp_access_flags, mlx5 QPC
 * rre/rwe/rae), whatever the key; otherwise remote access error, both QPs
 * to ERR, memory untouched.  SENDs need no right. */
static void test_qp_access_rights(void **state)
{
	static const struct {
		uint8_t op;
		unsigned missing;
	} cases[] = {
	    {PRISM_OP_RDMA_READ, SIM_ACCESS_REMOTE_READ},
	    {PRISM_OP_RDMA_WRITE, SIM_ACCESS_REMOTE_WRITE},
	    {PRISM_OP_ATOMIC_FA, SIM_ACCESS_REMOTE_ATOMIC},
	};

	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct env *e = env_make(SIM_FW_STRICT, SIM_HAZARD_WARN, false, 0, 0);
		struct hx_cq cq, cqa;
		struct hx_qp a, b;
		struct prism_wqe w;
		struct prism_cqe c;

		/* b again, granting every right but the one the request needs */
		hx_cq_init(&cq, e->dev, 64, false);
		hx_cq_init(&cqa, e->dev, 64, false);
		hx_qp_init(&a, e->dev, &cqa, &cqa, 64, 16, 0);
		hx_qp_init_prot(&b, e->dev, &cq, &cq, 64, 16, 0, NULL,
		                SIM_ACCESS_REMOTE_ALL & ~cases[k].missing);
		hx_pair(&a, &b);
		if (cases[k].op == PRISM_OP_ATOMIC_FA)
			hx_atomic(&w, cases[k].op, (uintptr_t)e->dst, e->dst_key, 1, 0,
			          (uintptr_t)e->src, e->src_key, true);
		else
			hx_rw(&w, cases[k].op, (uintptr_t)e->dst, e->dst_key, (uintptr_t)e->src,
			      e->src_key, 16, true);
		hx_post(&a, &w);
		hx_ring(&a);
		assert_int_equal(sim_dev_run(e->dev, 0), 0);
		c = hx_expect(&cqa);
		assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
		assert_int_equal(c.syndrome, PRISM_SYND_REMOTE_ACCESS_ERR);
		assert_int_equal(sim_qp_state(b.qp), SIM_QPS_ERR);
		assert_int_equal(e->dst[0], 0);
		env_free(e);
	}
	(void)state;
}

/* rule pd-keys: an MR's keys are honoured only by QPs of its protection
 * domain: an rkey of another PD is a remote access error at the
 * responder, an lkey of another PD a local protection error; an MR of the
 * responder's own PD works, and a PD in use cannot be freed. */
static void test_pd_keys(void **state)
{
	struct env *e = env_make(SIM_FW_STRICT, SIM_HAZARD_WARN, false, 0, 0);
	struct sim_pd *p1, *p2;
	struct sim_mr *in_p1, *in_p2;
	struct hx_cq cq, cqa;
	struct hx_qp a, b;
	struct prism_wqe w;
	struct prism_cqe c;

	(void)state;
	assert_int_equal(sim_pd_alloc(e->dev, &p1), 0);
	assert_int_equal(sim_pd_alloc(e->dev, &p2), 0);
	assert_int_not_equal(sim_pd_num(p1), sim_pd_num(p2));
	hx_cq_init(&cq, e->dev, 64, false);
	hx_cq_init(&cqa, e->dev, 64, false);
	hx_qp_init(&a, e->dev, &cqa, &cqa, 64, 16, 0);
	hx_qp_init_prot(&b, e->dev, &cq, &cq, 64, 16, 0, p1, SIM_ACCESS_REMOTE_ALL);
	hx_pair(&a, &b);
	assert_int_equal(sim_mr_reg_pd(p1, e->dst, 64, CONF_ALL, &in_p1), 0);
	assert_int_equal(sim_mr_reg_pd(p2, e->dst + 64, 64, CONF_ALL, &in_p2), 0);
	/* the responder's PD: served */
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst, sim_mr_rkey(in_p1), (uintptr_t)e->src,
	      e->src_key, 8, true);
	hx_post(&a, &w);
	hx_ring(&a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	c = hx_expect(&cqa);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_memory_equal(e->dst, e->src, 8);
	/* another PD's rkey, in bounds and with every right: refused */
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst + 64, sim_mr_rkey(in_p2),
	      (uintptr_t)e->src, e->src_key, 8, true);
	hx_post(&a, &w);
	hx_ring(&a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	c = hx_expect(&cqa);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_REMOTE_ACCESS_ERR);
	assert_int_equal(e->dst[64], 0);
	assert_int_equal(sim_qp_state(b.qp), SIM_QPS_ERR);
	assert_int_equal(sim_pd_dealloc(p1), SIM_E_BUSY);
	env_free(e);

	/* an lkey of another PD in a local SGE */
	e = env_make(SIM_FW_STRICT, SIM_HAZARD_WARN, false, 0, 0);
	assert_int_equal(sim_pd_alloc(e->dev, &p2), 0);
	assert_int_equal(sim_mr_reg_pd(p2, e->src, 64, CONF_ALL, &in_p2), 0);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst, e->dst_key, (uintptr_t)e->src,
	      sim_mr_lkey(in_p2), 8, true);
	hx_post(&e->a, &w);
	ring_run(e);
	c = hx_expect(&e->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_PROT_ERR);
	assert_int_equal(e->dst[0], 0);
	assert_int_equal(sim_mr_dereg(in_p2), 0);
	assert_int_equal(sim_pd_dealloc(p2), 0);
	env_free(e);
}

/* rule qp-error-flushes: after an error every later WQE, signaled or not,
 * and every posted receive completes with WR_FLUSH_ERR, in order */
static void test_qp_error_flushes(void **state)
{
	struct env *e = *state;
	struct prism_sge sge = {.byte_count = 8, .lkey = e->dst_key, .addr = (uintptr_t)e->dst};
	struct prism_wqe w;
	struct prism_cqe c;
	uint32_t bad, n1, n2;

	hx_post_recv(&e->a, &sge, 1);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst, e->dst_key, (uintptr_t)e->src, 0x12345, 8,
	      false); /* bad lkey, unsignaled: errors always complete */
	bad = hx_post(&e->a, &w);
	hx_nop(&w, false);
	n1 = hx_post(&e->a, &w);
	hx_nop(&w, true);
	n2 = hx_post(&e->a, &w);
	ring_run(e);
	c = hx_expect(&e->cq_a);
	assert_int_equal(c.wqe_counter, bad);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_PROT_ERR);
	c = hx_expect(&e->cq_a);
	assert_int_equal(c.wqe_counter, n1);
	assert_int_equal(c.syndrome, PRISM_SYND_WR_FLUSH_ERR);
	c = hx_expect(&e->cq_a);
	assert_int_equal(c.wqe_counter, n2);
	assert_int_equal(c.syndrome, PRISM_SYND_WR_FLUSH_ERR);
	c = hx_expect(&e->cq_a); /* the posted receive */
	assert_int_equal(c.opcode, PRISM_CQE_RESP_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_WR_FLUSH_ERR);
	/* WQEs posted in ERR are flushed too */
	hx_nop(&w, false);
	n1 = hx_post(&e->a, &w);
	ring_run(e);
	c = hx_expect(&e->cq_a);
	assert_int_equal(c.wqe_counter, n1);
	assert_int_equal(c.syndrome, PRISM_SYND_WR_FLUSH_ERR);
}

/* rule bad-wqe-local-qp-op-error: an unknown opcode or a DS that does not
 * fit the segments fails with a local QP operation error */
static void test_bad_wqe_local_qp_op_error(void **state)
{
	for (int k = 0; k < 2; k++) {
		struct env *e = env_make(SIM_FW_STRICT, SIM_HAZARD_WARN, false, 0, 0);
		struct prism_ctrl_seg ctrl;
		struct prism_wqe w;
		struct prism_cqe c;
		uint8_t *slot;

		hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst, e->dst_key, (uintptr_t)e->src,
		      e->src_key, 8, true);
		slot = hx_slot(&e->a, hx_post(&e->a, &w));
		prism_ctrl_seg_unpack(slot, &ctrl);
		if (k == 0)
			ctrl.opcode = 0x05; /* not an opcode */
		else
			ctrl.ds = 1; /* WRITE needs its raddr segment */
		prism_ctrl_seg_pack(&ctrl, slot);
		ring_run(e);
		c = hx_expect(&e->cq_a);
		assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
		assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
		assert_int_equal(e->dst[0], 0);
		env_free(e);
	}
	(void)state;
}

/* rule rnr-retry-exceeded: a SEND with no posted receive is retried
 * rnr_retry times, then fails with RNR_RETRY_EXC_ERR */
static void test_rnr_retry_exceeded(void **state)
{
	struct env *e = test_calloc(1, sizeof(*e));
	struct prism_wqe w;
	struct prism_cqe c;
	struct sim_stats st;

	(void)state;
	test_free(e);
	e = env_make(SIM_FW_STRICT, SIM_HAZARD_WARN, false, 0, 0);
	/* reconnect a with rnr_retry 3 */
	{
		struct sim_qp_mod m = {.state = SIM_QPS_RESET};

		assert_int_equal(sim_qp_modify(e->a.qp, &m), 0);
		e->a.sq_pi = 0;
		hx_connect(&e->a, sim_dev_node(e->dev), e->b.qpn, 3, 1);
	}
	hx_send(&w, PRISM_OP_SEND, (uintptr_t)e->src, e->src_key, 8, true);
	hx_post(&e->a, &w);
	ring_run(e);
	c = hx_expect(&e->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_RNR_RETRY_EXC_ERR);
	sim_dev_stats(e->dev, &st);
	assert_int_equal(st.pkts, 2 * (1 + 3));               /* 4 SENDs, 4 RNR NAKs */
	assert_int_equal(sim_qp_state(e->b.qp), SIM_QPS_RTS); /* RNR does not fail b */
	env_free(e);
}

/* rule rnr-infinite-waits-for-recv: with rnr_retry 7 the SEND waits until
 * a receive is posted, then lands */
static void test_rnr_infinite_waits_for_recv(void **state)
{
	struct env *e = *state;
	struct prism_sge sge = {.byte_count = 8, .lkey = e->dst_key, .addr = (uintptr_t)e->dst};
	struct prism_wqe w;

	hx_send(&w, PRISM_OP_SEND, (uintptr_t)e->src, e->src_key, 8, true);
	hx_post(&e->a, &w);
	ring_run(e);
	assert_int_equal(sim_cq_count(e->cq_a.cq), 0);
	hx_post_recv(&e->b, &sge, 1);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(hx_expect(&e->cq_a).opcode, PRISM_CQE_REQ);
	assert_int_equal(hx_expect(&e->cq_b).opcode, PRISM_CQE_RESP_SEND);
	assert_memory_equal(e->dst, e->src, 8);
}

/* rule send-imm-immediate: SEND_IMM delivers its immediate in the receive
 * CQE (opcode 3) */
static void test_send_imm_immediate(void **state)
{
	struct env *e = *state;
	struct prism_sge sge = {.byte_count = 8, .lkey = e->dst_key, .addr = (uintptr_t)e->dst};
	struct prism_wqe w;
	struct prism_cqe c;

	hx_post_recv(&e->b, &sge, 1);
	hx_send(&w, PRISM_OP_SEND_IMM, (uintptr_t)e->src, e->src_key, 8, true);
	w.ctrl.imm = 0xfeedbeef;
	hx_post(&e->a, &w);
	ring_run(e);
	c = hx_expect(&e->cq_b);
	assert_int_equal(c.opcode, PRISM_CQE_RESP_SEND_IMM);
	assert_int_equal(c.imm, 0xfeedbeef);
	assert_int_equal(c.qpn, e->b.qpn);
}

/* rule recv-too-short: a SEND longer than the receive fails the receive
 * with a local length error and the requester with remote invalid request */
static void test_recv_too_short(void **state)
{
	struct env *e = *state;
	struct prism_sge sge = {.byte_count = 11, .lkey = e->dst_key, .addr = (uintptr_t)e->dst};
	struct prism_wqe w;
	struct prism_cqe c;

	hx_post_recv(&e->b, &sge, 1);
	hx_send(&w, PRISM_OP_SEND, (uintptr_t)e->src, e->src_key, 64, true);
	hx_post(&e->a, &w);
	ring_run(e);
	c = hx_expect(&e->cq_b);
	assert_int_equal(c.opcode, PRISM_CQE_RESP_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_LENGTH_ERR);
	c = hx_expect(&e->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_REMOTE_INVAL_REQ_ERR);
}

/* rule error-isolation: one connection's error leaves other QPs running */
static void test_error_isolation(void **state)
{
	struct env *e = *state;
	struct hx_cq cq;
	struct hx_qp c, d;
	struct prism_wqe w;

	hx_cq_init(&cq, e->dev, 64, false);
	hx_qp_init(&c, e->dev, &cq, &cq, 16, 4, 0);
	hx_qp_init(&d, e->dev, &cq, &cq, 16, 4, 0);
	hx_pair(&c, &d);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst, 0xdead00, (uintptr_t)e->src, e->src_key,
	      8, true);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst + 64, e->dst_key, (uintptr_t)e->src,
	      e->src_key, 8, true);
	hx_post(&c, &w);
	hx_ring(&c);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(sim_qp_state(e->a.qp), SIM_QPS_ERR);
	assert_int_equal(sim_qp_state(c.qp), SIM_QPS_RTS);
	assert_int_equal(sim_qp_state(d.qp), SIM_QPS_RTS);
	assert_int_equal(hx_expect(&cq).opcode, PRISM_CQE_REQ);
	assert_memory_equal(e->dst + 64, e->src, 8);
}

/* rule qp-state-machine: RESET->INIT->RTR->RTS in order; a QP below RTS
 * does not send; any state may go to ERR or RESET */
static void test_qp_state_machine(void **state)
{
	struct env *e = *state;
	struct hx_cq cq;
	struct hx_qp q;
	struct prism_wqe w;
	struct sim_qp_mod m = {.state = SIM_QPS_RTS};

	hx_cq_init(&cq, e->dev, 16, false);
	hx_qp_init(&q, e->dev, &cq, &cq, 16, 4, 0);
	assert_int_equal(sim_qp_modify(q.qp, &m), -EINVAL); /* RESET -> RTS */
	m.state = SIM_QPS_INIT;
	assert_int_equal(sim_qp_modify(q.qp, &m), 0);
	hx_nop(&w, true);
	hx_post(&q, &w);
	hx_ring(&q);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(hx_poll(&cq, &(struct prism_cqe){0}), 0); /* INIT: nothing runs */
	m.state = SIM_QPS_RTR;
	m.peer_qpn = q.qpn;
	assert_int_equal(sim_qp_modify(q.qp, &m), 0);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(hx_poll(&cq, &(struct prism_cqe){0}), 0); /* RTR: no sends */
	m.state = SIM_QPS_RTS;
	assert_int_equal(sim_qp_modify(q.qp, &m), 0);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(hx_expect(&cq).opcode, PRISM_CQE_REQ);
	m.state = SIM_QPS_ERR;
	assert_int_equal(sim_qp_modify(q.qp, &m), 0);
	m.state = SIM_QPS_RTS;
	assert_int_equal(sim_qp_modify(q.qp, &m), -EINVAL); /* ERR -> RTS */
	m.state = SIM_QPS_RESET;
	assert_int_equal(sim_qp_modify(q.qp, &m), 0);
	assert_int_equal(sim_qp_state(q.qp), SIM_QPS_RESET);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_mr_local_protection_error, setup, env_teardown),
	    cmocka_unit_test(test_mr_remote_access_error),
	    cmocka_unit_test(test_qp_access_rights),
	    cmocka_unit_test(test_pd_keys),
	    cmocka_unit_test_setup_teardown(test_qp_error_flushes, setup, env_teardown),
	    cmocka_unit_test(test_bad_wqe_local_qp_op_error),
	    cmocka_unit_test(test_rnr_retry_exceeded),
	    cmocka_unit_test_setup_teardown(test_rnr_infinite_waits_for_recv, setup, env_teardown),
	    cmocka_unit_test_setup_teardown(test_send_imm_immediate, setup, env_teardown),
	    cmocka_unit_test_setup_teardown(test_recv_too_short, setup, env_teardown),
	    cmocka_unit_test_setup_teardown(test_error_isolation, setup, env_teardown),
	    cmocka_unit_test_setup_teardown(test_qp_state_machine, setup, env_teardown),
	};

	return cmocka_run_group_tests_name("conf_errors", tests, NULL, NULL);
}
