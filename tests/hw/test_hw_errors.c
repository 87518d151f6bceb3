/* SPDX-License-Identifier: MIT */
/*
 * tests/hw/test_hw_errors.c - NIC-model rules for errors on a real RDMA
 * device: memory-region keys, bounds and access flags (remote access error
 * 0x13, local protection error 0x04), the QP moving to ERR, flushing of the
 * outstanding work (WR_FLUSH_ERR 0x05), RNR retries exceeded (0x16), and the
 * firmware's control-segment checks (WQE index and QPN: local QP operation
 * error 0x02 on stock firmware, none after firmware-config/prism-fw relax).
 * Syndromes are mlx5dv.h MLX5_CQE_SYNDROME_*.  One test per rule of
 * docs/nic-model.md, named after the rule (hw_<rule>).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "tests/hw/hw_common.h"

#define SRC(e) ((uintptr_t)(e)->src)
#define DST(e) ((uintptr_t)(e)->dst)

/* A key with the same MR index and another 8-bit key tag: never valid. */
static uint32_t wrong_key(uint32_t key)
{
	return key ^ 0x5a;
}

static void expect_error(struct hw_cq *cq, uint8_t cqe_opcode, uint8_t syndrome, int counter,
                         const char *what)
{
	struct prism_cqe c = hw_expect(cq);

	if (c.opcode != cqe_opcode || c.syndrome != syndrome)
		fail_msg("%s: expected %s %s, got %s %s (vendor syndrome 0x%02x)", what,
		         prism_cqe_opcode_name(cqe_opcode), hw_synd_name(syndrome),
		         prism_cqe_opcode_name(c.opcode), hw_synd_name(c.syndrome),
		         c.vendor_syndrome);
	if (counter >= 0)
		assert_int_equal(c.wqe_counter, (uint16_t)counter);
}

struct access_case {
	const char *what;
	uint8_t opcode;    /* WRITE or READ */
	bool wrong_rkey;   /* rkey with a wrong key tag */
	uint32_t offset;   /* remote offset into dst */
	int target_access; /* 0: the fully accessible dst MR; else a second MR of dst */
};

/* rule mr-remote-access-error: a remote key, bounds or access-flag violation
 * completes the requester's WQE with REMOTE_ACCESS_ERR (0x13) and moves its
 * QP to ERR; the target memory is untouched */
static void hw_mr_remote_access_error(void **state)
{
	static const struct access_case cases[] = {
	    {"WRITE with a wrong rkey", PRISM_OP_RDMA_WRITE, true, 0, 0},
	    {"WRITE past the end of the region", PRISM_OP_RDMA_WRITE, false, HW_BUF_BYTES - 4, 0},
	    {"WRITE into a region without remote write", PRISM_OP_RDMA_WRITE, false, 0,
	     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ},
	    {"READ from a region without remote read", PRISM_OP_RDMA_READ, false, 0,
	     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE},
	};
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, NULL);

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct access_case *k = &cases[i];
		uint32_t rkey = e->dst_mr->rkey;
		struct prism_wqe w;
		uint32_t idx;

		if (i)
			hw_repair(e, NULL);
		if (k->target_access)
			rkey = hw_reg(e, e->dst, HW_BUF_BYTES, k->target_access)->rkey;
		if (k->wrong_rkey)
			rkey = wrong_key(rkey);
		memset(e->dst, 0, HW_BUF_BYTES);
		/* WRITE src -> dst, READ dst -> src: the remote side is always dst */
		hw_rw(&w, k->opcode, DST(e) + k->offset, rkey, SRC(e), e->src_mr->lkey, 8, true);
		idx = hw_post(&e->a, &w);
		hw_ring(&e->a);
		expect_error(&e->a.scq, PRISM_CQE_REQ_ERR, PRISM_SYND_REMOTE_ACCESS_ERR, (int)idx,
		             k->what);
		assert_int_equal(hw_qp_state(&e->a), IBV_QPS_ERR);
		assert_int_equal(hw_qp_state(&e->b), IBV_QPS_ERR); /* responder class C */
		for (uint32_t b = k->offset; b < k->offset + 8 && b < HW_BUF_BYTES; b++)
			assert_int_equal(e->dst[b], 0);
	}
}

/* rule qp-access-rights: without the QP's right the responder refuses a
 * READ, WRITE or atomic whatever the key (qp_access_flags). */
static void hw_qp_access_rights(void **state)
{
	static const struct {
		const char *what;
		uint8_t opcode;
		int missing;
	} cases[] = {
	    {"READ on a QP without remote read", PRISM_OP_RDMA_READ, IBV_ACCESS_REMOTE_READ},
	    {"WRITE on a QP without remote write", PRISM_OP_RDMA_WRITE, IBV_ACCESS_REMOTE_WRITE},
	    {"atomic on a QP without remote atomic", PRISM_OP_ATOMIC_FA, IBV_ACCESS_REMOTE_ATOMIC},
	};
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, NULL);

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hw_pair_opts o = {.qp_access = HW_ACCESS_ALL & ~cases[i].missing,
		                         .qp_access_set = true};
		struct prism_wqe w;
		uint32_t idx;

		hw_repair(e, &o);
		memset(e->dst, 0, HW_BUF_BYTES);
		if (cases[i].opcode == PRISM_OP_ATOMIC_FA)
			hw_atomic(&w, cases[i].opcode, DST(e), e->dst_mr->rkey, 1, 0, SRC(e),
			          e->src_mr->lkey, true);
		else
			hw_rw(&w, cases[i].opcode, DST(e), e->dst_mr->rkey, SRC(e), e->src_mr->lkey,
			      8, true);
		idx = hw_post(&e->a, &w);
		hw_ring(&e->a);
		expect_error(&e->a.scq, PRISM_CQE_REQ_ERR, PRISM_SYND_REMOTE_ACCESS_ERR, (int)idx,
		             cases[i].what);
		assert_int_equal(hw_qp_state(&e->b), IBV_QPS_ERR);
		for (uint32_t b = 0; b < 8; b++)
			assert_int_equal(e->dst[b], 0);
	}
}

/* rule pd-keys: keys of another protection domain are refused, as an rkey
 * (remote access error) and as an lkey (local protection error). */
static void hw_pd_keys(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, NULL);
	struct ibv_pd *other = ibv_alloc_pd(e->ctx);
	struct ibv_mr *mr;
	struct prism_wqe w;
	uint32_t idx;

	assert_non_null(other);
	mr = ibv_reg_mr(other, e->dst, HW_BUF_BYTES, HW_ACCESS_ALL);
	assert_non_null(mr);
	memset(e->dst, 0, HW_BUF_BYTES);
	hw_rw(&w, PRISM_OP_RDMA_WRITE, DST(e), mr->rkey, SRC(e), e->src_mr->lkey, 8, true);
	idx = hw_post(&e->a, &w);
	hw_ring(&e->a);
	expect_error(&e->a.scq, PRISM_CQE_REQ_ERR, PRISM_SYND_REMOTE_ACCESS_ERR, (int)idx,
	             "WRITE with another PD's rkey");
	assert_int_equal(e->dst[0], 0);
	hw_repair(e, NULL);
	hw_rw(&w, PRISM_OP_RDMA_WRITE, SRC(e), e->src_mr->rkey, DST(e), mr->lkey, 8, true);
	idx = hw_post(&e->a, &w);
	hw_ring(&e->a);
	expect_error(&e->a.scq, PRISM_CQE_REQ_ERR, PRISM_SYND_LOCAL_PROT_ERR, (int)idx,
	             "WRITE gathering with another PD's lkey");
	assert_int_equal(ibv_dereg_mr(mr), 0);
	assert_int_equal(ibv_dealloc_pd(other), 0);
}

struct local_case {
	const char *what;
	uint8_t opcode;
	bool wrong_lkey;
	uint32_t offset;  /* local offset into src */
	int local_access; /* 0: the src MR; else a second MR of src */
};

/* rule mr-local-protection-error: a local key, bounds or access violation in
 * the WQE's own gather/scatter list completes it with LOCAL_PROT_ERR (0x04)
 * and moves the QP to ERR */
static void hw_mr_local_protection_error(void **state)
{
	static const struct local_case cases[] = {
	    {"WRITE gathering with a wrong lkey", PRISM_OP_RDMA_WRITE, true, 0, 0},
	    {"WRITE gathering past the end of the region", PRISM_OP_RDMA_WRITE, false,
	     HW_BUF_BYTES - 4, 0},
	    {"READ scattering into a region without local write", PRISM_OP_RDMA_READ, false, 0,
	     IBV_ACCESS_REMOTE_READ},
	};
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, NULL);

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct local_case *k = &cases[i];
		uint32_t lkey = e->src_mr->lkey;
		struct prism_wqe w;
		uint32_t idx;

		if (i)
			hw_repair(e, NULL);
		if (k->local_access)
			lkey = hw_reg(e, e->src, HW_BUF_BYTES, k->local_access)->lkey;
		if (k->wrong_lkey)
			lkey = wrong_key(lkey);
		hw_rw(&w, k->opcode, DST(e), e->dst_mr->rkey, SRC(e) + k->offset, lkey, 8, true);
		idx = hw_post(&e->a, &w);
		hw_ring(&e->a);
		expect_error(&e->a.scq, PRISM_CQE_REQ_ERR, PRISM_SYND_LOCAL_PROT_ERR, (int)idx,
		             k->what);
		assert_int_equal(hw_qp_state(&e->a), IBV_QPS_ERR);
	}
}

/* rule qp-error-flushes: after an error every later WQE, signaled or not,
 * and every posted receive completes with WR_FLUSH_ERR (0x05), in order and
 * without executing; WQEs posted while in ERR are flushed too.  The failing
 * WQE is unsignaled: errors always complete. */
static void hw_qp_error_flushes(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, NULL);
	struct prism_sge sge = {.byte_count = 64, .lkey = e->dst_mr->lkey, .addr = DST(e) + 4096};
	static const uint8_t zero[64];
	struct prism_wqe w;
	uint32_t bad, n1, n2;

	hw_post_recv(&e->a, &sge, 1);
	hw_rw(&w, PRISM_OP_RDMA_WRITE, DST(e), e->dst_mr->rkey, SRC(e), wrong_key(e->src_mr->lkey),
	      8, false);
	bad = hw_post(&e->a, &w);
	hw_rw(&w, PRISM_OP_RDMA_WRITE, DST(e) + 64, e->dst_mr->rkey, SRC(e), e->src_mr->lkey, 64,
	      false);
	n1 = hw_post(&e->a, &w);
	hw_rw(&w, PRISM_OP_RDMA_WRITE, DST(e) + 128, e->dst_mr->rkey, SRC(e), e->src_mr->lkey, 64,
	      true);
	n2 = hw_post(&e->a, &w);
	hw_ring(&e->a);
	expect_error(&e->a.scq, PRISM_CQE_REQ_ERR, PRISM_SYND_LOCAL_PROT_ERR, (int)bad,
	             "unsignaled WRITE with a wrong lkey");
	expect_error(&e->a.scq, PRISM_CQE_REQ_ERR, PRISM_SYND_WR_FLUSH_ERR, (int)n1,
	             "the unsignaled WRITE behind it");
	expect_error(&e->a.scq, PRISM_CQE_REQ_ERR, PRISM_SYND_WR_FLUSH_ERR, (int)n2,
	             "the signaled WRITE behind it");
	expect_error(&e->a.rcq, PRISM_CQE_RESP_ERR, PRISM_SYND_WR_FLUSH_ERR, -1,
	             "the posted receive");
	assert_memory_equal(e->dst + 64, zero, 64);
	assert_memory_equal(e->dst + 128, zero, 64);
	assert_memory_equal(e->dst + 4096, zero, 64);
	/* posted while in ERR: flushed as well */
	hw_rw(&w, PRISM_OP_RDMA_WRITE, DST(e) + 192, e->dst_mr->rkey, SRC(e), e->src_mr->lkey, 8,
	      false);
	n1 = hw_post(&e->a, &w);
	hw_ring(&e->a);
	expect_error(&e->a.scq, PRISM_CQE_REQ_ERR, PRISM_SYND_WR_FLUSH_ERR, (int)n1,
	             "a WRITE posted in ERR");
	assert_memory_equal(e->dst + 192, zero, 8);
	hw_expect_empty(&e->a.scq);
}

/* rule bad-wqe-local-qp-op-error: an unknown opcode or a DS that does not
 * fit the segments fails with a local QP operation error (0x02); nothing is
 * written.  The WQE is the codec's WRITE with its control segment re-packed
 * (opcode 0x05, or ds = 1) in the ring before the doorbell. */
static void hw_bad_wqe_local_qp_op_error(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_RAW, NULL);

	for (int k = 0; k < 2; k++) {
		struct prism_ctrl_seg ctrl;
		struct prism_wqe w;
		uint8_t *slot;
		uint32_t idx;

		if (k)
			hw_repair(e, NULL);
		memset(e->dst, 0, 64);
		hw_rw(&w, PRISM_OP_RDMA_WRITE, DST(e), e->dst_mr->rkey, SRC(e), e->src_mr->lkey, 8,
		      true);
		idx = hw_post(&e->a, &w);
		slot = hw_sq_slot(&e->a, idx);
		prism_ctrl_seg_unpack(slot, &ctrl);
		if (k == 0)
			ctrl.opcode = 0x05; /* not an opcode */
		else
			ctrl.ds = 1; /* WRITE needs its raddr segment */
		prism_ctrl_seg_pack(&ctrl, slot);
		hw_ring(&e->a);
		expect_error(&e->a.scq, PRISM_CQE_REQ_ERR, PRISM_SYND_LOCAL_QP_OP_ERR, -1,
		             k == 0 ? "opcode 0x05" : "a WRITE with ds = 1");
		assert_int_equal(e->dst[0], 0);
	}
}

/* rule recv-too-short: a SEND longer than the receive fails the receive with
 * a local length error (responder, 0x01) and the requester with a remote
 * invalid request error (0x12) */
static void hw_recv_too_short(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, NULL);
	struct prism_sge sge = {.byte_count = 11, .lkey = e->dst_mr->lkey, .addr = DST(e)};
	struct prism_wqe w;

	hw_post_recv(&e->b, &sge, 1);
	hw_send(&w, PRISM_OP_SEND, SRC(e), e->src_mr->lkey, 64, true);
	hw_post(&e->a, &w);
	hw_ring(&e->a);
	expect_error(&e->b.rcq, PRISM_CQE_RESP_ERR, PRISM_SYND_LOCAL_LENGTH_ERR, -1,
	             "the 11-byte receive");
	expect_error(&e->a.scq, PRISM_CQE_REQ_ERR, PRISM_SYND_REMOTE_INVAL_REQ_ERR, -1,
	             "the 64-byte SEND");
}

/* rule error-isolation: one connection's error leaves other QPs running */
static void hw_error_isolation(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, NULL);
	struct prism_wqe w;

	hw_second_pair(e);
	hw_rw(&w, PRISM_OP_RDMA_WRITE, DST(e), wrong_key(e->dst_mr->rkey), SRC(e), e->src_mr->lkey,
	      8, true);
	hw_post(&e->a, &w);
	hw_ring(&e->a);
	hw_rw(&w, PRISM_OP_RDMA_WRITE, DST(e) + 64, e->dst_mr->rkey, SRC(e), e->src_mr->lkey, 8,
	      true);
	hw_post(&e->c, &w);
	hw_ring(&e->c);
	expect_error(&e->a.scq, PRISM_CQE_REQ_ERR, PRISM_SYND_REMOTE_ACCESS_ERR, -1,
	             "WRITE with a wrong rkey");
	assert_int_equal(hw_expect(&e->c.scq).opcode, PRISM_CQE_REQ);
	assert_int_equal(hw_qp_state(&e->a), IBV_QPS_ERR);
	assert_int_equal(hw_qp_state(&e->c), IBV_QPS_RTS);
	assert_int_equal(hw_qp_state(&e->d), IBV_QPS_RTS);
	assert_memory_equal(e->dst + 64, e->src, 8);
}

/* rule cq-owner-bit-wraps: the owner bit flips on each pass over the CQ
 * ring; software owns a CQE when it matches the consumer's pass.  Signaled
 * NOPs one by one over more than two passes of the real CQ. */
static void hw_cq_owner_bit_wraps(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_RAW, NULL);
	uint32_t n = e->a.scq.dv.cqe_cnt;

	for (uint32_t i = 0; i < 2 * n + 3; i++) {
		struct prism_wqe w;
		struct prism_cqe c;

		hw_nop(&w, true);
		hw_post(&e->a, &w);
		hw_ring(&e->a);
		c = hw_expect(&e->a.scq);
		assert_int_equal(c.opcode, PRISM_CQE_REQ);
		assert_int_equal(c.wqe_counter, (uint16_t)i);
		assert_int_equal(c.owner, (i / n) & 1);
		e->a.sq_ci = e->a.sq_pi; /* completed: its slot may be reused */
		hw_expect_empty(&e->a.scq);
	}
}

/* Posts @n signaled NOPs on a and rings once; none is polled. */
static void post_nops(struct hw_env *e, uint32_t n)
{
	struct prism_wqe w;

	if (n > e->a.dv.sq.wqe_cnt)
		HW_SKIP("%s: the CQ holds %u CQEs, more than the send queue can overrun it with",
		        e->name, e->a.scq.dv.cqe_cnt);
	for (uint32_t i = 0; i < n; i++) {
		hw_nop(&w, true);
		hw_post(&e->a, &w);
	}
	hw_ring(&e->a);
}

/* rule cq-overrun-errors-cq: without IGNORE_OVERRUN a CQE that finds the
 * ring full is lost and the CQ enters error (rdma-core ibv_create_cq_ex(3);
 * the kernel's CQ error event): twice the CQ's depth in signaled NOPs, none
 * polled; then the ring holds at most its depth, and a NOP posted after it
 * is consumed produces no CQE.  What happens to the QP is not asserted (no
 * source states it). */
#define QUIET_MS 50 /* a short look for a CQE that must not come */

static void hw_cq_overrun_errors_cq(void **state)
{
	const struct hw_pair_opts opts = {.cq_depth = 4};
	struct hw_env *e = hw_start(state, HW_NEED_RAW, &opts);
	struct timespec ms = {0, 1000000};
	struct prism_cqe c;
	struct prism_wqe w;
	unsigned n = 0;

	post_nops(e, 2 * e->a.scq.dv.cqe_cnt + 2);
	for (int waited = 0; waited < e->timeout_ms / 10; waited++)
		nanosleep(&ms, NULL);
	while (n <= e->a.scq.dv.cqe_cnt && hw_poll(&e->a.scq, &c, QUIET_MS) == 1)
		n++;
	assert_true(n <= e->a.scq.dv.cqe_cnt);
	hw_nop(&w, true);
	hw_post(&e->a, &w);
	hw_ring(&e->a);
	assert_int_equal(hw_poll(&e->a.scq, &c, QUIET_MS), 0);
}

/* rule cq-ignore-overrun: with IGNORE_OVERRUN the CQ keeps producing over
 * unconsumed entries: after twice its depth in signaled NOPs, none polled,
 * the last CQE sits in its slot with that pass's owner bit, and the QP is
 * still in RTS */
static void hw_cq_ignore_overrun(void **state)
{
	const struct hw_pair_opts opts = {.cq_depth = 4, .cq_ignore_overrun = true};
	struct hw_env *e = hw_start(state, HW_NEED_RAW, &opts);
	uint32_t n = e->a.scq.dv.cqe_cnt, last = 2 * n + 1;
	struct prism_cqe c = {0};
	int waited = 0;

	post_nops(e, last + 1);
	while (waited < e->timeout_ms &&
	       (hw_raw_peek(&e->a.scq, last, &c) || c.wqe_counter != last)) {
		struct timespec ms = {0, 1000000};

		nanosleep(&ms, NULL);
		waited++;
	}
	assert_int_equal(hw_raw_peek(&e->a.scq, last, &c), 0);
	assert_int_equal(c.wqe_counter, last);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_int_equal(c.owner, (last / n) & 1);
	assert_int_equal(hw_qp_state(&e->a), IBV_QPS_RTS);
}

/* rule rnr-retry-exceeded: a SEND that finds no posted RECV, with
 * rnr_retry = 0, completes with RNR_RETRY_EXC_ERR (0x16); its QP goes to ERR */
static void hw_rnr_retry_exceeded(void **state)
{
	const struct hw_pair_opts opts = {.rnr_set = true, .rnr_retry = 0, .min_rnr_timer = 1};
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, &opts);
	struct prism_wqe w;
	uint32_t idx;

	hw_send(&w, PRISM_OP_SEND, SRC(e), e->src_mr->lkey, 8, true);
	idx = hw_post(&e->a, &w);
	hw_ring(&e->a);
	expect_error(&e->a.scq, PRISM_CQE_REQ_ERR, PRISM_SYND_RNR_RETRY_EXC_ERR, (int)idx,
	             "SEND without a posted RECV");
	assert_int_equal(hw_qp_state(&e->a), IBV_QPS_ERR);
	assert_int_equal(hw_qp_state(&e->b), IBV_QPS_RTS); /* RNR does not fail b */
	hw_expect_empty(&e->b.rcq);
}

/* rule rnr-infinite-waits-for-recv: with rnr_retry = 7 (infinite) a SEND
 * that finds no RECV keeps retrying and completes once one is posted */
static void hw_rnr_infinite_waits_for_recv(void **state)
{
	const struct hw_pair_opts opts = {.rnr_set = true, .rnr_retry = 7, .min_rnr_timer = 1};
	struct hw_env *e = hw_start(state, HW_NEED_DEVICE, &opts);
	struct prism_sge sge = {.byte_count = 64, .lkey = e->dst_mr->lkey, .addr = DST(e)};
	struct prism_wqe w;
	struct prism_cqe c;
	uint32_t idx;

	hw_send(&w, PRISM_OP_SEND, SRC(e), e->src_mr->lkey, 64, true);
	idx = hw_post(&e->a, &w);
	hw_ring(&e->a);
	/* nothing can complete it yet, however long we look */
	assert_int_equal(hw_poll(&e->a.scq, &c, 50), 0);
	hw_post_recv(&e->b, &sge, 1);
	c = hw_expect(&e->b.rcq);
	assert_int_equal(c.opcode, PRISM_CQE_RESP_SEND);
	assert_int_equal(c.byte_count, 64);
	assert_memory_equal(e->dst, e->src, 64);
	c = hw_expect(&e->a.scq);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_int_equal(c.wqe_counter, (uint16_t)idx);
}

/* rule qp-state-machine: RESET->INIT->RTR->RTS in order; a QP below RTS does
 * not send; any state may go to ERR or RESET (ERR->RTS is refused).  A NOP
 * rung while the QP is in INIT runs only once it reaches RTS (the doorbell
 * is rung again there: the producer count in the doorbell record is what
 * the NIC reads). */
static void hw_qp_state_machine(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_RAW, NULL);
	struct hw_qp *q = &e->c;
	struct prism_wqe w;
	struct prism_cqe c;

	hw_qp_new(e, q);
	assert_int_not_equal(hw_qp_modify(e, q, IBV_QPS_RTS, q->qpn, NULL), 0); /* RESET->RTS */
	assert_int_equal(hw_qp_state(q), IBV_QPS_RESET);
	assert_int_equal(hw_qp_modify(e, q, IBV_QPS_INIT, q->qpn, NULL), 0);
	hw_nop(&w, true);
	hw_post(q, &w);
	hw_ring(q);
	assert_int_equal(hw_poll(&q->scq, &c, 50), 0); /* INIT: nothing runs */
	assert_int_equal(hw_qp_modify(e, q, IBV_QPS_RTR, q->qpn, NULL), 0);
	assert_int_equal(hw_poll(&q->scq, &c, 50), 0); /* RTR: no sends */
	assert_int_equal(hw_qp_modify(e, q, IBV_QPS_RTS, q->qpn, NULL), 0);
	hw_raw_ring(q);
	c = hw_expect(&q->scq);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_int_equal(c.wqe_counter, 0);
	assert_int_equal(hw_qp_modify(e, q, IBV_QPS_ERR, q->qpn, NULL), 0);
	assert_int_not_equal(hw_qp_modify(e, q, IBV_QPS_RTS, q->qpn, NULL), 0); /* ERR->RTS */
	assert_int_equal(hw_qp_modify(e, q, IBV_QPS_RESET, q->qpn, NULL), 0);
	assert_int_equal(hw_qp_state(q), IBV_QPS_RESET);
}

/*
 * Posts a signaled NOP whose control segment carries a wrong WQE index or a
 * wrong QPN (the doorbell itself is correct), and checks the firmware
 * profile: strict (stock) firmware fails it with LOCAL_QP_OP_ERR (0x02),
 * relaxed firmware (PRISM_HW_FW=relaxed, after prism-fw relax) runs it.
 */
static void check_ctrl_field(void **state, bool bad_index)
{
	struct hw_env *e = hw_start(state, HW_NEED_RAW, NULL);
	const char *field = bad_index ? "WQE index" : "QPN";
	struct prism_wqe w;
	struct prism_cqe c;

	hw_nop(&w, true);
	w.ctrl.wqe_index = (uint16_t)(e->a.sq_pi + (bad_index ? 3 : 0));
	w.ctrl.qpn = bad_index ? e->a.qpn : e->a.qpn ^ 0x5a5a;
	hw_post_ex(&e->a, &w, true);
	hw_ring(&e->a);
	c = hw_expect(&e->a.scq);
	print_message("hw: %s: a NOP with a wrong %s completed as %s %s\n", e->name, field,
	              prism_cqe_opcode_name(c.opcode), hw_synd_name(c.syndrome));
	if (e->relaxed_fw) {
		if (c.opcode != PRISM_CQE_REQ)
			fail_msg("PRISM_HW_FW=relaxed, but the firmware checks the %s (%s): run "
			         "firmware-config/prism-fw relax, or unset PRISM_HW_FW",
			         field, hw_synd_name(c.syndrome));
		return;
	}
	if (c.opcode == PRISM_CQE_REQ)
		fail_msg("the firmware ignores the %s: it is relaxed; set PRISM_HW_FW=relaxed "
		         "to test that profile",
		         field);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
	assert_int_equal(hw_qp_state(&e->a), IBV_QPS_ERR);
}

/* rule strict-checks-wqe-index: stock firmware fails a WQE whose control
 * segment index is not its position (RedN section 4; PCX); relaxed runs it */
static void hw_strict_checks_wqe_index(void **state)
{
	check_ctrl_field(state, true);
}

/* rule strict-checks-qpn: stock firmware fails a WQE whose control segment
 * carries another QPN (RedN keeps data there: relaxed only) */
static void hw_strict_checks_qpn(void **state)
{
	check_ctrl_field(state, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(hw_mr_remote_access_error, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_qp_access_rights, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_pd_keys, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_mr_local_protection_error, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_qp_error_flushes, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_bad_wqe_local_qp_op_error, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_recv_too_short, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_error_isolation, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_cq_owner_bit_wraps, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_cq_overrun_errors_cq, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_cq_ignore_overrun, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_rnr_retry_exceeded, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_rnr_infinite_waits_for_recv, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_qp_state_machine, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_strict_checks_wqe_index, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_strict_checks_qpn, hw_setup, hw_teardown),
	};

	return cmocka_run_group_tests_name("test_hw_errors", tests, NULL, NULL);
}
