/* SPDX-License-Identifier: MIT */
/*
 * tests/sim/test_fetch.c - the fetch path's two ways of reading a WQE, not
 * a NIC rule: a WQE that fits before the end of the ring is copied and
 * checked in place, one that wraps to the ring's start is copied and
 * compared in two parts.  Both must run the bytes that are in memory and
 * report a hazard when those bytes change between fetch and execution,
 * at the right offset inside the WQE.
 *
 * Owns: these checks.  Must not: time anything.
 */
#include "tests/conformance/conf_env.h"

#define XC   SIM_QP_CROSS_CHANNEL
#define RING 64 /* env_make's send queues: 64 BBs */

static int setup(void **state)
{
	*state = env_make(SIM_FW_RELAXED, SIM_HAZARD_FAIL, false, XC, 0);
	return 0;
}

/* Fills a's ring up to @ctr with unsignaled NOPs and runs them. */
static void advance_to(struct env *e, uint32_t ctr)
{
	struct prism_wqe w;

	while (e->a.sq_pi < ctr) {
		hx_nop(&w, false);
		hx_post(&e->a, &w);
	}
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
}

/* A WRITE of three 8-byte pieces of src to dst: 80 bytes, two BBs. */
static void write3(struct env *e, struct prism_wqe *w)
{
	hx_rw(w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst, e->dst_key, (uintptr_t)e->src, e->src_key,
	      8, true);
	w->num_sge = 3;
	for (int i = 1; i < 3; i++)
		w->sge[i] = (struct prism_sge){
		    .byte_count = 8, .lkey = e->src_key, .addr = (uintptr_t)e->src + 64 * i};
}

/* Byte offset, inside the WQE, of data segment @i's address (little
 * end: the last byte of the big-endian field). */
static uint32_t sge_addr_low_byte(unsigned i)
{
	return 32 + 16 * i + 15;
}

/* A two-BB WRITE posted at the last BB of the ring runs its bytes. */
static void test_wrapped_wqe_runs(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;

	advance_to(e, RING - 1);
	write3(e, &w);
	assert_int_equal(hx_post(&e->a, &w), RING - 1);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(hx_expect(&e->cq_a).opcode, PRISM_CQE_REQ);
	assert_memory_equal(e->dst, e->src, 8);
	assert_memory_equal(e->dst + 8, e->src + 64, 8);
	assert_memory_equal(e->dst + 16, e->src + 128, 8);
	assert_false(sim_dev_last_hazard(e->dev, NULL));
}

/*
 * Holds a's queue with a WAIT on b's CQ, posts @w behind it (fetched by the
 * doorbell), lets the host edit byte @at of @w, then releases the WAIT.
 * Returns the counter @w was posted at.
 */
static uint32_t post_edit_release(struct env *e, struct prism_wqe *w, uint32_t at)
{
	struct prism_wqe x;
	uint32_t ctr;

	hx_wait(&x, sim_cq_num(e->cq_b.cq), 1, false);
	hx_post(&e->a, &x);
	ctr = hx_post(&e->a, w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(hx_poll(&e->cq_a, &(struct prism_cqe){0}), 0); /* held */
	hx_slot(&e->a, ctr + at / 64)[at % 64] ^= 0x40;
	hx_nop(&x, true);
	hx_post(&e->b, &x);
	hx_ring(&e->b);
	return ctr;
}

static void expect_host_hazard(struct env *e, uint32_t ctr, uint32_t at)
{
	struct sim_hazard h;

	assert_int_equal(sim_dev_run(e->dev, 0), SIM_E_HAZARD);
	assert_true(sim_dev_last_hazard(e->dev, &h));
	assert_int_equal(h.qpn, e->a.qpn);
	assert_int_equal(h.wqe_counter, ctr);
	assert_int_equal(h.offset, at);
	assert_int_equal(h.len, 1);
	assert_int_equal(h.writer.kind, SIM_WRITER_HOST);
	assert_false(h.executed);
	assert_int_equal(sim_qp_state(e->a.qp), SIM_QPS_ERR);
	assert_int_equal(e->dst[16], 0); /* the WRITE did not run */
}

/* Bytes changed after the fetch, WQE inside the ring: a hazard. */
static void test_hazard_in_place(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	uint32_t ctr, at = sge_addr_low_byte(2);

	write3(e, &w);
	ctr = post_edit_release(e, &w, at);
	assert_int_equal(ctr, 1);
	expect_host_hazard(e, ctr, at);
}

/* The same when the WQE wraps and the edit lands after the wrap. */
static void test_hazard_after_wrap(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	uint32_t ctr, at = sge_addr_low_byte(2); /* byte 79: in the second BB */

	advance_to(e, RING - 2); /* the WAIT takes BB 62, the WRITE 63 and 0 */
	write3(e, &w);
	ctr = post_edit_release(e, &w, at);
	assert_int_equal(ctr, RING - 1);
	expect_host_hazard(e, ctr, at);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_wrapped_wqe_runs, setup, env_teardown),
	    cmocka_unit_test_setup_teardown(test_hazard_in_place, setup, env_teardown),
	    cmocka_unit_test_setup_teardown(test_hazard_after_wrap, setup, env_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
