/* SPDX-License-Identifier: MIT */
/*
 * tests/rules/rules_firmware.c - NIC-model rules for the firmware profiles
 * (section 4 of docs/nic-model.md): stock firmware checks the control
 * segment's WQE index and QPN, so a recycled ring fails at its second lap;
 * the relaxed profile (RedN's and PCX's firmware change) does not.  Each
 * body runs under both profiles where the rule states both outcomes.
 */
#include "tests/rules/rules.h"

/* A signaled NOP on a whose control segment carries @index and @qpn; the
 * doorbell states the true producer counter. */
static struct prism_cqe nop_with_ids(struct rx *x, uint16_t index, uint32_t qpn)
{
	struct prism_wqe w;

	hx_nop(&w, true);
	w.ctrl.wqe_index = index;
	w.ctrl.qpn = qpn;
	rx_post_raw(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	return rx_expect(x, &x->cq_a);
}

static void expect_profile(struct rx *x, struct prism_cqe c)
{
	if (x->relaxed_fw) {
		assert_int_equal(c.opcode, PRISM_CQE_REQ);
		return;
	}
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
	assert_true(rx_in_err(x, &x->a));
}

/* rule strict-checks-wqe-index: stock firmware fails a WQE whose control
 * segment index is not its position; the relaxed profile runs it */
static void r_strict_checks_wqe_index(struct rx *x)
{
	expect_profile(x, nop_with_ids(x, 77, x->a.qpn));
	rx_probes(x, "4.1");
}

/* rule strict-checks-qpn: stock firmware fails a WQE whose control segment
 * carries another QPN (RedN keeps data there: relaxed only) */
static void r_strict_checks_qpn(struct rx *x)
{
	expect_profile(x, nop_with_ids(x, 0, 0xabcdef));
	rx_probes(x, "4.2");
}

/* rule strict-firmware-rejects-recycling: under the strict profile the
 * second lap's WQE index no longer matches: local QP operation error */
static void r_strict_firmware_rejects_recycling(struct rx *x)
{
	struct prism_wqe w;
	struct prism_cqe c;

	for (int i = 0; i < 64; i++) {
		hx_nop(&w, false);
		rx_post(&x->b, &w);
	}
	hx_enable(&w, PRISM_OP_SEND_ENABLE, x->b.qpn, 65, false);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	c = rx_expect(x, &x->cq_b);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
	assert_int_equal(c.wqe_counter, 64);
	/* b is in ERR: the next WQE it is enabled to run is flushed */
	hx_enable(&w, PRISM_OP_SEND_ENABLE, x->b.qpn, 66, false);
	rx_post(&x->a, &w);
	rx_ring(x, &x->a);
	RX_RUN(x);
	c = rx_expect(x, &x->cq_b);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_WR_FLUSH_ERR);
	assert_int_equal(c.wqe_counter, 65);
}

static const struct rule rules[] = {
    RULE("4.1", "strict-checks-wqe-index", r_strict_checks_wqe_index, .fw = RULE_BOTH),
    RULE("4.2", "strict-checks-qpn", r_strict_checks_qpn, .fw = RULE_BOTH),
    RULE("4.3", "strict-firmware-rejects-recycling", r_strict_firmware_rejects_recycling,
         .fw = RULE_STRICT, .needs = RULE_NEEDS_XC, .flags_a = RX_XC, .flags_b = RX_MANAGED),
};
RULE_TABLE(rules_firmware, rules);
