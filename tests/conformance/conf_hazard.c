/* SPDX-License-Identifier: MIT */
/*
 * tests/conformance/conf_hazard.c - NIC-model rules for prefetch and
 * hazards (a WQE modified after it was fetched and before it executed) and
 * for the firmware profiles (strict: ctrl WQE index and QPN checked).
 * One test per rule, named after it.
 */
#include "tests/conformance/conf_env.h"

#define XC      SIM_QP_CROSS_CHANNEL
#define MANAGED (SIM_QP_CROSS_CHANNEL | SIM_QP_MANAGED_SEND)

static int setup_fail(void **state)
{
	*state = env_make(SIM_FW_RELAXED, SIM_HAZARD_FAIL, false, XC, MANAGED);
	return 0;
}

static int setup_warn(void **state)
{
	*state = env_make(SIM_FW_RELAXED, SIM_HAZARD_WARN, false, XC, MANAGED);
	return 0;
}

/*
 * Posts on managed queue b a WQE with a WRITE's layout whose opcode byte
 * says NOP, and makes src hold the WRITE opcode: a READ from src into that
 * byte turns the NOP into a WRITE of 8 bytes src -> dst+256 (RedN Fig. 3/4).
 * Returns the address of the patched opcode byte.
 */
static uint8_t *post_patchable(struct env *e)
{
	struct prism_wqe w;
	uint32_t off, len;
	uint8_t *slot;

	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst + 256, e->dst_key, (uintptr_t)e->src,
	      e->src_key, 8, true);
	slot = hx_slot(&e->b, hx_post(&e->b, &w));
	assert_int_equal(prism_wqe_field_offset(&w, PRISM_FIELD_CTRL_OPCODE, &off, &len), 0);
	slot[off] = PRISM_OP_NOP;
	e->src[2048] = PRISM_OP_RDMA_WRITE;
	return slot + off;
}

/* READ the opcode byte from src into b's WQE on a (signaled) */
static void post_patch_read(struct env *e, uint8_t *opbyte)
{
	struct prism_wqe w;

	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)e->src + 2048, e->src_key, (uintptr_t)opbyte,
	      sim_mr_lkey(e->b.sq_mr), 1, true);
	hx_post(&e->a, &w);
}

/* rule hazard-missing-enable-barrier: READ-patch then SEND_EN without a
 * WAIT lets the managed queue fetch (and run) the WQE before the READ
 * lands; the patch raced the fetch.  The engine reports the hazard (queue,
 * WQE, bytes, writer) and, under the fail policy, fails the patched QP and
 * the run */
static void test_hazard_missing_enable_barrier(void **state)
{
	struct env *e = *state;
	struct sim_hazard h;
	struct prism_wqe w;
	uint8_t *opbyte = post_patchable(e);
	uint32_t read_ctr = e->a.sq_pi;

	post_patch_read(e, opbyte);
	hx_enable(&w, PRISM_OP_SEND_ENABLE, e->b.qpn, 1, false);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), SIM_E_HAZARD);
	assert_true(sim_dev_last_hazard(e->dev, &h));
	assert_int_equal(h.qpn, e->b.qpn);
	assert_int_equal(h.wqe_counter, 0);
	assert_int_equal(h.offset, (uint32_t)(opbyte - hx_slot(&e->b, 0)));
	assert_int_equal(h.len, 1);
	assert_int_equal(h.writer.kind, SIM_WRITER_SQ);
	assert_int_equal(h.writer.qpn, e->a.qpn);
	assert_int_equal(h.writer.wqe_counter, read_ctr);
	assert_int_equal(h.writer.opcode, PRISM_OP_RDMA_READ);
	assert_true(h.executed); /* the stale NOP already ran */
	assert_int_equal(sim_qp_state(e->b.qp), SIM_QPS_ERR);
	assert_int_equal(e->dst[256], 0);
}

/* rule hazard-executes-fetched-copy: under the warn policy the NIC runs the
 * bytes it fetched (the stale NOP), as hardware does */
static void test_hazard_executes_fetched_copy(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	uint8_t *opbyte = post_patchable(e);

	post_patch_read(e, opbyte);
	hx_enable(&w, PRISM_OP_SEND_ENABLE, e->b.qpn, 1, false);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_true(sim_dev_last_hazard(e->dev, NULL));
	assert_int_equal(hx_expect(&e->cq_b).opcode, PRISM_CQE_REQ);
	assert_int_equal(e->dst[256], 0);               /* the NOP ran */
	assert_int_equal(*opbyte, PRISM_OP_RDMA_WRITE); /* memory has the WRITE */
}

/* rule doorbell-order-no-hazard: READ, WAIT on its completion, then
 * SEND_EN (doorbell order, RedN Fig. 2b): the patched WRITE runs */
static void test_doorbell_order_no_hazard(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	uint8_t *opbyte = post_patchable(e);

	post_patch_read(e, opbyte);
	hx_wait(&w, sim_cq_num(e->cq_a.cq), 0, false);
	hx_post(&e->a, &w);
	hx_enable(&w, PRISM_OP_SEND_ENABLE, e->b.qpn, 1, false);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_false(sim_dev_last_hazard(e->dev, NULL));
	assert_int_equal(hx_expect(&e->cq_b).opcode, PRISM_CQE_REQ);
	assert_memory_equal(e->dst + 256, e->src, 8);
}

/* rule fence-orders-enable: READ, then a SEND_EN with the fence bit and no
 * WAIT (the compiler's fenced barrier): the fence holds the SEND_EN until the
 * READ landed, so the patched WRITE is fetched and runs with the new bytes */
static void test_fence_orders_enable(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	uint8_t *opbyte = post_patchable(e);

	post_patch_read(e, opbyte);
	hx_enable(&w, PRISM_OP_SEND_ENABLE, e->b.qpn, 1, false);
	w.ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_SMALL_AND_FENCE, PRISM_CE_NONE, false);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_false(sim_dev_last_hazard(e->dev, NULL));
	assert_int_equal(hx_expect(&e->cq_b).opcode, PRISM_CQE_REQ);
	assert_memory_equal(e->dst + 256, e->src, 8);
}

/* rule unmanaged-prefetch-on-doorbell: an unmanaged queue fetches every
 * posted WQE when its doorbell rings; a host write afterwards is a hazard
 * attributed to the host */
static void test_unmanaged_prefetch_on_doorbell(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	struct sim_hazard h;
	uint8_t *slot;

	hx_wait(&w, sim_cq_num(e->cq_b.cq), 0, false); /* holds the queue */
	hx_post(&e->a, &w);
	hx_nop(&w, true);
	slot = hx_slot(&e->a, hx_post(&e->a, &w));
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	slot[12] ^= 0xff; /* the host edits the fetched NOP's immediate */
	hx_nop(&w, true);
	hx_post(&e->b, &w);
	hx_enable(&w, PRISM_OP_SEND_ENABLE, e->b.qpn, e->b.sq_pi, false);
	/* b is managed: start it from a third queue */
	{
		struct hx_qp c;

		hx_qp_init(&c, e->dev, &e->cq_a, &e->cq_a, 4, 0, XC);
		hx_pair(&c, &c);
		hx_post(&c, &w);
		hx_ring(&c);
	}
	assert_int_equal(sim_dev_run(e->dev, 0), SIM_E_HAZARD);
	assert_true(sim_dev_last_hazard(e->dev, &h));
	assert_int_equal(h.qpn, e->a.qpn);
	assert_int_equal(h.wqe_counter, 1);
	assert_int_equal(h.offset, 12);
	assert_int_equal(h.writer.kind, SIM_WRITER_HOST);
}

/* rule managed-no-prefetch-before-enable: bytes of a managed queue may
 * change freely until the ENABLE runs (no hazard) */
static void test_managed_no_prefetch_before_enable(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	uint8_t *opbyte = post_patchable(e);

	*opbyte = PRISM_OP_RDMA_WRITE; /* host patch before any ENABLE */
	hx_enable(&w, PRISM_OP_SEND_ENABLE, e->b.qpn, 1, false);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_false(sim_dev_last_hazard(e->dev, NULL));
	assert_memory_equal(e->dst + 256, e->src, 8);
}

/* rule hazard-recv-scatter-attributed: a receive scatter into a WQE that
 * is fetched but waiting is reported at execute time with the receive WQE
 * as the writer */
static void test_hazard_recv_scatter_attributed(void **state)
{
	struct env *e = env_make(SIM_FW_RELAXED, SIM_HAZARD_WARN, false, XC, XC);
	struct prism_wqe w;
	struct prism_sge sge;
	struct sim_hazard h;
	uint8_t *slot;
	uint32_t nop;

	(void)state;
	/* b: WAIT (on a's CQ) then a NOP; both fetched when b's doorbell rings */
	hx_wait(&w, sim_cq_num(e->cq_a.cq), 0, false);
	hx_post(&e->b, &w);
	hx_nop(&w, true);
	nop = hx_post(&e->b, &w);
	slot = hx_slot(&e->b, nop);
	hx_ring(&e->b);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	/* a SEND from a scatters into the waiting NOP's immediate */
	sge = (struct prism_sge){
	    .byte_count = 4, .lkey = sim_mr_lkey(e->b.sq_mr), .addr = (uintptr_t)slot + 12};
	hx_post_recv(&e->b, &sge, 1);
	hx_send(&w, PRISM_OP_SEND, (uintptr_t)e->src, e->src_key, 4, true);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_true(sim_dev_last_hazard(e->dev, &h));
	assert_int_equal(h.qpn, e->b.qpn);
	assert_int_equal(h.wqe_counter, nop);
	assert_int_equal(h.offset, 12);
	assert_int_equal(h.len, 4);
	assert_int_equal(h.writer.kind, SIM_WRITER_RQ);
	assert_int_equal(h.writer.qpn, e->b.qpn);
	assert_int_equal(h.writer.wqe_counter, 0);
	assert_int_equal(h.writer.src_qpn, e->a.qpn);
	env_free(e);
}

static void post_with_ids(struct env *e, uint16_t index, uint32_t qpn)
{
	struct prism_wqe w;
	uint8_t *slot;

	hx_nop(&w, true);
	slot = hx_slot(&e->a, hx_post(&e->a, &w));
	w.ctrl.wqe_index = index;
	w.ctrl.qpn = qpn;
	assert_true(prism_wqe_encode(&w, slot, 64, NULL) > 0);
	hx_ring(&e->a);
}

/* rule strict-checks-wqe-index: stock firmware fails a WQE whose control
 * segment index is not its position; the relaxed profile runs it */
static void test_strict_checks_wqe_index(void **state)
{
	struct env *s = env_make(SIM_FW_STRICT, SIM_HAZARD_WARN, false, 0, 0);
	struct env *r = env_make(SIM_FW_RELAXED, SIM_HAZARD_WARN, false, 0, 0);
	struct prism_cqe c;

	post_with_ids(s, 77, s->a.qpn);
	assert_int_equal(sim_dev_run(s->dev, 0), 0);
	c = hx_expect(&s->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
	post_with_ids(r, 77, r->a.qpn);
	assert_int_equal(sim_dev_run(r->dev, 0), 0);
	assert_int_equal(hx_expect(&r->cq_a).opcode, PRISM_CQE_REQ);
	env_free(s);
	env_free(r);
	(void)state;
}

/* rule strict-checks-qpn: stock firmware fails a WQE whose control segment
 * carries another QPN (RedN keeps data there: relaxed only) */
static void test_strict_checks_qpn(void **state)
{
	struct env *s = env_make(SIM_FW_STRICT, SIM_HAZARD_WARN, false, 0, 0);
	struct env *r = env_make(SIM_FW_RELAXED, SIM_HAZARD_WARN, false, 0, 0);
	struct prism_cqe c;

	post_with_ids(s, 0, 0xabcdef);
	assert_int_equal(sim_dev_run(s->dev, 0), 0);
	c = hx_expect(&s->cq_a);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
	post_with_ids(r, 0, 0xabcdef);
	assert_int_equal(sim_dev_run(r->dev, 0), 0);
	assert_int_equal(hx_expect(&r->cq_a).opcode, PRISM_CQE_REQ);
	env_free(s);
	env_free(r);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_hazard_missing_enable_barrier, setup_fail,
	                                    env_teardown),
	    cmocka_unit_test_setup_teardown(test_hazard_executes_fetched_copy, setup_warn,
	                                    env_teardown),
	    cmocka_unit_test_setup_teardown(test_doorbell_order_no_hazard, setup_fail,
	                                    env_teardown),
	    cmocka_unit_test_setup_teardown(test_fence_orders_enable, setup_fail, env_teardown),
	    cmocka_unit_test_setup_teardown(test_unmanaged_prefetch_on_doorbell, setup_fail,
	                                    env_teardown),
	    cmocka_unit_test_setup_teardown(test_managed_no_prefetch_before_enable, setup_fail,
	                                    env_teardown),
	    cmocka_unit_test(test_hazard_recv_scatter_attributed),
	    cmocka_unit_test(test_strict_checks_wqe_index),
	    cmocka_unit_test(test_strict_checks_qpn),
	};

	return cmocka_run_group_tests_name("conf_hazard", tests, NULL, NULL);
}
