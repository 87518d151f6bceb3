/* SPDX-License-Identifier: MIT */
/*
 * tests/scenarios/test_recycled_loop.c - a loop built by WQ recycling
 * (RedN section 3.4): the CPU posts one ring of 16 WQEs once and rings one
 * doorbell; the NIC then runs the ring N times and stops on a `break`.
 *
 * Queue L (managed send, 16 BBs = one iteration) enables
 * itself segment by segment, so every WQE that the loop rewrites is fetched
 * only after the rewrite (doorbell order: WAIT + SEND_EN in between):
 *
 *   seg 1   s0  FETCH_ADD work += 1; old value -> s8's compare operand
 *           s1  masked FETCH_ADD (4 B, big-endian) s9.index  += 2   \  counts for
 *           s2  masked FETCH_ADD                   s10.index += 16   > this
 *           s3  masked FETCH_ADD                   s15.index += 16  /  iteration (signaled)
 *           s4  WAIT cqL >= 2i+1      (s0-s3 done)
 *           s5  SEND_EN L -> s10
 *   seg 2   s6  masked FETCH_ADD s4.index += 2   \  counts for the next
 *           s7  masked FETCH_ADD s5.index += 16  /  iteration's seg 1
 *           s8  CAS s15.ctrl: "SEND_EN ctrl" -> "NOP ctrl" if it equals the
 *               compare operand s0 wrote (the break test; signaled)
 *           s9  WAIT cqL >= 2i+2      (s6-s8 done)
 *           s10 SEND_EN L -> s15
 *   seg 3   s11-s14 NOP (the loop body's slot; pads the ring to 16)
 *           s15 SEND_EN L -> next iteration's s5   <- becomes a NOP: break
 *
 * The break test: s0 scatters the 8-byte host-order old value into the
 * big-endian compare field, so the CAS compares bswap64(old) with the
 * host-order control word T of s15; starting work at bswap64(T) - (N - 1)
 * makes the N-th iteration break.  Counts are advanced by 4-byte masked
 * FETCH_ADDs, whose operands are big-endian like the WQE's index fields.
 *
 * Owns: this chain and its checks (iterations, counter, CQ count, no
 * hazards; stock firmware rejects the recycled WQE with syndrome 0x02).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/cost_profile.h"
#include "sim/sim.h"
#include "tests/support/host_verbs.h"

#define RING 16

struct loop {
	struct sim_dev *d;
	struct sim_cq *cq_l, *cq_x;
	struct sim_qp *l, *l_r, *ctl, *ctl_r;
	struct hv_qp hl, hctl;
	struct sim_mr *mr_l, *mr_data;
	uint64_t *data; /* [0] work counter, [1..] scratch */
	uint64_t w0;
};

static void qp_connect(struct sim_qp *a, struct sim_qp *b)
{
	struct sim_qp_mod m = {.state = SIM_QPS_INIT};
	assert_int_equal(sim_qp_modify(a, &m), 0);
	m = (struct sim_qp_mod){.state = SIM_QPS_RTR, .peer_node = 1, .peer_qpn = sim_qp_num(b)};
	assert_int_equal(sim_qp_modify(a, &m), 0);
	m = (struct sim_qp_mod){.state = SIM_QPS_RTS};
	assert_int_equal(sim_qp_modify(a, &m), 0);
}

static uint8_t *slot(struct loop *lp, unsigned k)
{
	return hv_sq_slot(&lp->hl, k);
}

static uint64_t field_addr(struct loop *lp, unsigned k, const struct prism_wqe *shape,
                           enum prism_wqe_field f)
{
	uint32_t off, len;
	assert_int_equal(prism_wqe_field_offset(shape, f, &off, &len), 0);
	return (uint64_t)(uintptr_t)(slot(lp, k) + off);
}

/* A WAIT / SEND_EN shaped WQE, for field offsets. */
static struct prism_wqe wait_en_shape(uint8_t op)
{
	struct prism_wqe w;
	hv_wqe(&w, op, false);
	return w;
}

static void post(struct loop *lp, struct prism_wqe *w, unsigned expect_slot)
{
	int64_t c = hv_post_send(&lp->hl, w, false, NULL);
	assert_int_equal(c, expect_slot);
}

/* Masked FETCH_ADD of @add on the big-endian 32-bit index of slot @k. */
static void post_count_add(struct loop *lp, unsigned at, unsigned k, uint8_t target_op,
                           uint32_t add, bool signaled)
{
	struct prism_wqe shape = wait_en_shape(target_op), w;
	hv_wqe(&w, PRISM_OP_ATOMIC_MASKED_FA, signaled);
	w.ctrl.opmod = PRISM_MASKED_OPMOD(2);
	w.raddr.raddr = field_addr(lp, k, &shape, PRISM_FIELD_WAIT_EN_INDEX);
	w.raddr.rkey = sim_mr_rkey(lp->mr_l);
	w.atomic.size = 4;
	w.atomic.swap = add;    /* the addend */
	w.atomic.swap_mask = 0; /* one 32-bit field */
	w.num_sge = 1;
	w.sge[0] = (struct prism_sge){.byte_count = 4,
	                              .lkey = sim_mr_lkey(lp->mr_data),
	                              .addr = (uint64_t)(uintptr_t)&lp->data[1 + at]};
	post(lp, &w, at);
}

static void post_wait_en(struct loop *lp, unsigned at, uint8_t op, uint32_t index, uint32_t obj)
{
	struct prism_wqe w;
	hv_wqe(&w, op, false);
	w.wait_en.index = index;
	w.wait_en.obj_num = obj;
	post(lp, &w, at);
}

static uint64_t ctrl_word(const uint8_t *wqe_bytes)
{
	uint64_t v;
	memcpy(&v, wqe_bytes, 8); /* what an 8-byte host-endian atomic sees */
	return v;
}

static void loop_build(struct loop *lp, enum sim_fw_profile fw, unsigned n_iter,
                       const struct sim_observer *obs)
{
	memset(lp, 0, sizeof(*lp));
	struct sim_dev_opts o = {.sz = sizeof(o),
	                         .seed = 17,
	                         .fw = fw,
	                         .hazard = SIM_HAZARD_FAIL,
	                         .node = 1,
	                         .obs = obs};
	assert_int_equal(sim_dev_open(&o, &lp->d), 0);
	struct sim_cq_attr ca = {.ncqe = 64, .ignore_overrun = true};
	assert_int_equal(sim_cq_create(lp->d, &ca, &lp->cq_l), 0);
	assert_int_equal(sim_cq_create(lp->d, &ca, &lp->cq_x), 0);
	struct sim_qp_attr qa = {.access = SIM_ACCESS_REMOTE_ALL,
	                         .send_cq = lp->cq_l,
	                         .recv_cq = lp->cq_x,
	                         .sq_bbs = RING,
	                         .rq_max_sge = 1,
	                         .flags = SIM_QP_CROSS_CHANNEL | SIM_QP_MANAGED_SEND};
	assert_int_equal(sim_qp_create(lp->d, &qa, &lp->l), 0);
	qa = (struct sim_qp_attr){.access = SIM_ACCESS_REMOTE_ALL,
	                          .send_cq = lp->cq_x,
	                          .recv_cq = lp->cq_x,
	                          .sq_bbs = 4,
	                          .rq_max_sge = 1,
	                          .flags = SIM_QP_CROSS_CHANNEL};
	assert_int_equal(sim_qp_create(lp->d, &qa, &lp->l_r), 0);
	assert_int_equal(sim_qp_create(lp->d, &qa, &lp->ctl), 0);
	assert_int_equal(sim_qp_create(lp->d, &qa, &lp->ctl_r), 0);
	qp_connect(lp->l, lp->l_r);
	qp_connect(lp->l_r, lp->l);
	qp_connect(lp->ctl, lp->ctl_r);
	qp_connect(lp->ctl_r, lp->ctl);
	hv_qp_init(&lp->hl, lp->l, RING, 0);
	hv_qp_init(&lp->hctl, lp->ctl, 4, 0);
	const unsigned all = SIM_ACCESS_LOCAL_WRITE | SIM_ACCESS_REMOTE_WRITE |
	                     SIM_ACCESS_REMOTE_READ | SIM_ACCESS_REMOTE_ATOMIC;
	assert_int_equal(
	    sim_mr_reg(lp->d, sim_qp_buf(lp->l), sim_qp_buf_len(lp->l), all, &lp->mr_l), 0);
	assert_int_equal(posix_memalign((void **)&lp->data, 64, 64 * 8), 0);
	memset(lp->data, 0, 64 * 8);
	assert_int_equal(sim_mr_reg(lp->d, lp->data, 64 * 8, all, &lp->mr_data), 0);

	uint32_t cqn = sim_cq_num(lp->cq_l), qpn = sim_qp_num(lp->l);
	struct prism_wqe w, cas_shape;
	hv_wqe(&cas_shape, PRISM_OP_ATOMIC_CS, false);
	cas_shape.atomic.size = 8;

	/* seg 1 */
	hv_wqe(&w, PRISM_OP_ATOMIC_FA, false);
	w.raddr.raddr = (uint64_t)(uintptr_t)&lp->data[0];
	w.raddr.rkey = sim_mr_rkey(lp->mr_data);
	w.atomic.size = 8;
	w.atomic.swap = 1;
	w.num_sge = 1;
	w.sge[0] =
	    (struct prism_sge){.byte_count = 8,
	                       .lkey = sim_mr_lkey(lp->mr_l),
	                       .addr = field_addr(lp, 8, &cas_shape, PRISM_FIELD_ATOMIC_COMPARE)};
	post(lp, &w, 0);
	post_count_add(lp, 1, 9, PRISM_OP_CQE_WAIT, 2, false);
	post_count_add(lp, 2, 10, PRISM_OP_SEND_ENABLE, RING, false);
	post_count_add(lp, 3, 15, PRISM_OP_SEND_ENABLE, RING, true);
	post_wait_en(lp, 4, PRISM_OP_CQE_WAIT, 0, cqn);
	post_wait_en(lp, 5, PRISM_OP_SEND_ENABLE, 11, qpn);
	/* seg 2 */
	post_count_add(lp, 6, 4, PRISM_OP_CQE_WAIT, 2, false);
	post_count_add(lp, 7, 5, PRISM_OP_SEND_ENABLE, RING, false);
	hv_wqe(&w, PRISM_OP_ATOMIC_CS, true);
	w.raddr.raddr = (uint64_t)(uintptr_t)slot(lp, 15);
	w.raddr.rkey = sim_mr_rkey(lp->mr_l);
	w.atomic.size = 8;
	w.atomic.compare = 0; /* written by s0 each iteration */
	w.atomic.swap = 0;    /* set below, once s15 exists */
	w.num_sge = 1;
	w.sge[0] = (struct prism_sge){.byte_count = 8,
	                              .lkey = sim_mr_lkey(lp->mr_data),
	                              .addr = (uint64_t)(uintptr_t)&lp->data[40]};
	struct prism_wqe cas = w;
	post(lp, &w, 8);
	post_wait_en(lp, 9, PRISM_OP_CQE_WAIT, UINT32_MAX, cqn); /* CQE -1; +2 by s1 before use */
	post_wait_en(lp, 10, PRISM_OP_SEND_ENABLE, 0, qpn);      /* +16 by s2 */
	/* seg 3 */
	for (unsigned k = 11; k < 15; k++) {
		hv_wqe(&w, PRISM_OP_NOP, false);
		post(lp, &w, k);
	}
	post_wait_en(lp, 15, PRISM_OP_SEND_ENABLE, 6, qpn); /* +16 by s3 */

	/* the break: s8 swaps s15's control word for the same word with NOP */
	uint64_t t = ctrl_word(slot(lp, 15));
	struct prism_ctrl_seg c;
	prism_ctrl_seg_unpack(slot(lp, 15), &c);
	c.opcode = PRISM_OP_NOP;
	uint8_t nop_ctrl[16];
	prism_ctrl_seg_pack(&c, nop_ctrl);
	cas.atomic.swap = ctrl_word(nop_ctrl);
	cas.ctrl.wqe_index = 8;
	cas.ctrl.qpn = qpn;
	uint8_t buf[64];
	assert_true(prism_wqe_encode(&cas, buf, sizeof(buf), NULL) > 0);
	memcpy(slot(lp, 8), buf, 64);
	lp->w0 = __builtin_bswap64(t) - (n_iter - 1);
	lp->data[0] = lp->w0;

	/* the one host doorbell: ctl enables L's first segment */
	hv_wqe(&w, PRISM_OP_SEND_ENABLE, false);
	w.wait_en.index = 6;
	w.wait_en.obj_num = qpn;
	assert_true(hv_post_send(&lp->hctl, &w, false, NULL) >= 0);
	assert_int_equal(hv_ring(&lp->hctl), 0);
}

static void loop_free(struct loop *lp)
{
	sim_mr_dereg(lp->mr_l);
	sim_mr_dereg(lp->mr_data);
	sim_qp_destroy(lp->l);
	sim_qp_destroy(lp->l_r);
	sim_qp_destroy(lp->ctl);
	sim_qp_destroy(lp->ctl_r);
	sim_cq_destroy(lp->cq_l);
	sim_cq_destroy(lp->cq_x);
	sim_dev_close(lp->d);
	free(lp->data);
}

static void test_recycled_loop_runs_n_iterations_and_breaks(void **state)
{
	(void)state;
	const unsigned ns[] = {1, 2, 3, 17, 250, 1000};
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		struct loop lp;
		loop_build(&lp, SIM_FW_RELAXED, ns[i], NULL);
		int rc = sim_dev_run(lp.d, 0);
		if (rc)
			fail_msg("N=%u: run returned %d (%s)", ns[i], rc, sim_strerror(rc));
		if (lp.data[0] - lp.w0 != ns[i])
			fail_msg("N=%u: the loop ran %llu iterations", ns[i],
			         (unsigned long long)(lp.data[0] - lp.w0));
		assert_int_equal(sim_cq_count(lp.cq_l), 2 * ns[i]);
		struct sim_stats st;
		sim_dev_stats(lp.d, &st);
		assert_int_equal(st.hazards, 0);
		assert_int_equal(st.error_cqes, 0);
		/* 16 WQEs per iteration on L, plus the host's one SEND_EN */
		assert_int_equal(st.wqes_executed, (uint64_t)RING * ns[i] + 1);
		struct prism_ctrl_seg c;
		prism_ctrl_seg_unpack(slot(&lp, 15), &c);
		assert_int_equal(c.opcode, PRISM_OP_NOP); /* the break fired */
		/* the counts advanced by big-endian masked FETCH_ADDs */
		struct prism_wqe en;
		assert_true(prism_wqe_decode(slot(&lp, 10), 64, &en, NULL) > 0);
		assert_int_equal(en.wait_en.index, (uint32_t)RING * ns[i]);
		loop_free(&lp);
	}
}

/* Stock firmware checks the WQE index: the first recycled WQE fails. */
static void test_recycled_loop_strict_firmware_fails(void **state)
{
	(void)state;
	struct loop lp;
	loop_build(&lp, SIM_FW_STRICT, 5, NULL);
	sim_dev_run(lp.d, 0);
	assert_int_equal(lp.data[0] - lp.w0, 1); /* only the first pass ran */
	struct hv_cq h;
	hv_cq_init(&h, lp.cq_l);
	struct prism_cqe cqe;
	bool err = false;
	while (hv_poll(&h, &cqe) == 1)
		if (cqe.opcode == PRISM_CQE_REQ_ERR) {
			assert_int_equal(cqe.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
			assert_int_equal(cqe.wqe_counter, RING); /* s0 of the 2nd pass */
			err = true;
			break;
		}
	assert_true(err);
	loop_free(&lp);
}

/* The virtual clock's iteration rate (cx5); RedN's recycled while is 0.3 M/s
 * with 9 WRs per iteration, this loop has 16. */
static void test_recycled_loop_virtual_rate(void **state)
{
	(void)state;
	struct sim_cost_profile p;
	assert_int_equal(sim_cost_profile_builtin("cx5", &p, NULL), 0);
	struct sim_observer obs = {.ctx = &p, .cost = sim_cost_profile_observer_cost};
	struct loop lp;
	loop_build(&lp, SIM_FW_RELAXED, 200, &obs);
	assert_int_equal(sim_dev_run(lp.d, 0), 0);
	struct sim_stats st;
	sim_dev_stats(lp.d, &st);
	double us_per_iter = (double)st.vtime_max / 1e6 / 200;
	print_message("recycled loop, 16 WRs per iteration, cx5: %.2f us per iteration "
	              "(%.2f M iterations/s; RedN recycled while, 9 WRs: 0.3 M/s)\n",
	              us_per_iter, 1.0 / us_per_iter);
	assert_true(us_per_iter > 1.0 && us_per_iter < 20.0);
	loop_free(&lp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_recycled_loop_runs_n_iterations_and_breaks),
	    cmocka_unit_test(test_recycled_loop_strict_firmware_fails),
	    cmocka_unit_test(test_recycled_loop_virtual_rate),
	};
	return cmocka_run_group_tests_name("scenario_recycled_loop", tests, NULL, NULL);
}
