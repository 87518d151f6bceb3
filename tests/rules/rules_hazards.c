/* SPDX-License-Identifier: MIT */
/*
 * tests/rules/rules_hazards.c - NIC-model rules that only the software NIC's
 * hazard detector can show (section 3 of docs/nic-model.md): a WQE changed
 * after the NIC fetched it and before it ran.  They run on the sim and on
 * the mlx5 backend over the emulator (whose NIC is the sim, asked through
 * rx_sim); a real NIC shows no fetch point, so they skip there, saying so.
 */
#include "sim/sim.h"
#include "tests/rules/rules.h"

/* rule unmanaged-prefetch-on-doorbell: an unmanaged queue fetches every
 * posted WQE when its doorbell rings; a host write afterwards is a hazard
 * attributed to the host */
static void r_unmanaged_prefetch_on_doorbell(struct rx *x)
{
	struct prism_wqe w;
	struct sim_hazard h;
	struct rx_qp c;
	uint8_t *slot;

	hx_wait(&w, x->cq_b.info.cqn, 0, false); /* holds the queue */
	rx_post(&x->a, &w);
	hx_nop(&w, true);
	slot = rx_slot(&x->a, rx_post(&x->a, &w));
	rx_ring(x, &x->a);
	RX_RUN(x);
	slot[12] ^= 0xff; /* the host edits the fetched NOP's immediate */
	hx_nop(&w, true);
	rx_post(&x->b, &w);
	hx_enable(&w, PRISM_OP_SEND_ENABLE, x->b.qpn, x->b.pi, false);
	/* b is managed: start it from a third queue */
	rx_qp(x, &c, &x->cq_a, &x->cq_a, 4, 0, RX_XC);
	rx_pair(x, &c, &c);
	rx_post(&c, &w);
	rx_ring(x, &c);
	assert_int_equal(rx_run(x), SIM_E_HAZARD);
	assert_true(sim_dev_last_hazard(rx_sim(x), &h));
	assert_int_equal(h.qpn, x->a.qpn);
	assert_int_equal(h.wqe_counter, 1);
	assert_int_equal(h.offset, 12);
	assert_int_equal(h.writer.kind, SIM_WRITER_HOST);
}

/* rule hazard-missing-enable-barrier: READ-patch then SEND_EN without a
 * WAIT lets the managed queue fetch (and run) the WQE before the READ
 * lands; the patch raced the fetch.  The engine reports the hazard (queue,
 * WQE, bytes, writer) and, under the fail policy, fails the patched QP and
 * the run */
static void r_hazard_missing_enable_barrier(struct rx *x)
{
	struct sim_hazard h;
	struct prism_wqe w;
	uint8_t *opbyte = rx_post_patchable(x);
	uint32_t read_ctr = x->a.pi;

	rx_post_patch_read(x, opbyte);
	hx_enable(&w, PRISM_OP_SEND_ENABLE, x->b.qpn, 1, false);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	assert_int_equal(rx_run(x), SIM_E_HAZARD);
	assert_true(sim_dev_last_hazard(rx_sim(x), &h));
	assert_int_equal(h.qpn, x->b.qpn);
	assert_int_equal(h.wqe_counter, 0);
	assert_int_equal(h.offset, (uint32_t)(opbyte - rx_slot(&x->b, 0)));
	assert_int_equal(h.len, 1);
	assert_int_equal(h.writer.kind, SIM_WRITER_SQ);
	assert_int_equal(h.writer.qpn, x->a.qpn);
	assert_int_equal(h.writer.wqe_counter, read_ctr);
	assert_int_equal(h.writer.opcode, PRISM_OP_RDMA_READ);
	assert_true(h.executed); /* the stale NOP already ran */
	assert_true(rx_in_err(x, &x->b));
	assert_int_equal(x->dst[256], 0);
}

/* rule hazard-executes-fetched-copy: under the warn policy the NIC runs the
 * bytes it fetched (the stale NOP), as hardware does */
static void r_hazard_executes_fetched_copy(struct rx *x)
{
	struct prism_wqe w;
	uint8_t *opbyte = rx_post_patchable(x);

	rx_post_patch_read(x, opbyte);
	hx_enable(&w, PRISM_OP_SEND_ENABLE, x->b.qpn, 1, false);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	assert_true(sim_dev_last_hazard(rx_sim(x), NULL));
	assert_int_equal(rx_expect(x, &x->cq_b).opcode, PRISM_CQE_REQ);
	assert_int_equal(x->dst[256], 0);               /* the NOP ran */
	assert_int_equal(*opbyte, PRISM_OP_RDMA_WRITE); /* memory has the WRITE */
}

/* rule hazard-recv-scatter-attributed: a receive scatter into a WQE that
 * is fetched but waiting is reported at execute time with the receive WQE
 * as the writer */
static void r_hazard_recv_scatter_attributed(struct rx *x)
{
	struct prism_wqe w;
	struct prism_sge sge;
	struct sim_hazard h;
	uint8_t *slot;
	uint32_t nop;

	/* b: WAIT (on a's CQ) then a NOP; both fetched when b's doorbell rings */
	hx_wait(&w, x->cq_a.info.cqn, 0, false);
	rx_post(&x->b, &w);
	hx_nop(&w, true);
	nop = rx_post(&x->b, &w);
	slot = rx_slot(&x->b, nop);
	rx_ring(x, &x->b);
	RX_RUN(x);
	/* a SEND from a scatters into the waiting NOP's immediate */
	sge = (struct prism_sge){.byte_count = 4, .lkey = x->b.key, .addr = (uintptr_t)slot + 12};
	rx_post_recv(x, &x->b, &sge, 1);
	hx_send(&w, PRISM_OP_SEND, (uintptr_t)x->src, x->src_key, 4, true);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	assert_true(sim_dev_last_hazard(rx_sim(x), &h));
	assert_int_equal(h.qpn, x->b.qpn);
	assert_int_equal(h.wqe_counter, nop);
	assert_int_equal(h.offset, 12);
	assert_int_equal(h.len, 4);
	assert_int_equal(h.writer.kind, SIM_WRITER_RQ);
	assert_int_equal(h.writer.qpn, x->b.qpn);
	assert_int_equal(h.writer.wqe_counter, 0);
	assert_int_equal(h.writer.src_qpn, x->a.qpn);
}

#define NO_FETCH_POINT "the hazard detector is the software NIC's: a NIC shows no fetch point"

static const struct rule rules[] = {
    RULE("3.11", "unmanaged-prefetch-on-doorbell", r_unmanaged_prefetch_on_doorbell,
         .fw = RULE_RELAXED, .needs = RULE_NEEDS_SIM | RULE_NEEDS_XC | RULE_HAZARD_FAIL,
         .flags_a = RX_XC, .flags_b = RX_MANAGED, .why_not = NO_FETCH_POINT),
    RULE("3.13", "hazard-missing-enable-barrier", r_hazard_missing_enable_barrier,
         .fw = RULE_RELAXED, .needs = RULE_NEEDS_SIM | RULE_NEEDS_XC | RULE_HAZARD_FAIL,
         .flags_a = RX_XC, .flags_b = RX_MANAGED, .why_not = NO_FETCH_POINT),
    RULE("3.14", "hazard-executes-fetched-copy", r_hazard_executes_fetched_copy, .fw = RULE_RELAXED,
         .needs = RULE_NEEDS_SIM | RULE_NEEDS_XC, .flags_a = RX_XC, .flags_b = RX_MANAGED,
         .why_not = "which bytes run depends on when a NIC fetched them, a race a "
                    "NIC does not report"),
    RULE("3.16", "hazard-recv-scatter-attributed", r_hazard_recv_scatter_attributed,
         .fw = RULE_RELAXED, .needs = RULE_NEEDS_SIM | RULE_NEEDS_XC, .flags_a = RX_XC,
         .flags_b = RX_XC, .why_not = NO_FETCH_POINT),
};
RULE_TABLE(rules_hazards, rules);
