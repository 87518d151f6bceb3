/* SPDX-License-Identifier: MIT */
/*
 * tests/rules/rules_cq.c - NIC-model rules for completion queues (section
 * 1 of docs/nic-model.md): the owner bit's pass parity, overrun putting the
 * CQ in error, overrun-ignore; and completion events (section 6).  One body
 * per rule, on every backend (rules.h).
 */
#include "tests/rules/rules.h"

/* A 4-entry CQ (@oi: overrun ignored) and a QP connected to itself on it. */
static void small_cq(struct rx *x, struct rx_cq *cq, struct rx_qp *q, bool oi)
{
	rx_cq(x, cq, 4, oi);
	rx_qp(x, q, cq, cq, 16, 0, 0);
	rx_pair(x, q, q);
}

static void post_nops(struct rx *x, struct rx_qp *q, int n)
{
	struct prism_wqe w;

	for (int i = 0; i < n; i++) {
		hx_nop(&w, true);
		rx_post(q, &w);
	}
	rx_ring(x, q);
	RX_RUN(x);
}

/* The CQE in slot @slot of @cq, whoever owns it. */
static struct prism_cqe cqe_in_slot(struct rx_cq *cq, uint32_t slot)
{
	struct prism_cqe c;

	assert_int_equal(
	    prism_cqe_decode((const uint8_t *)cq->info.buf + (size_t)slot * 64, &c, NULL), 0);
	return c;
}

/* rule cq-owner-bit-wraps: the owner bit flips on each pass over the ring;
 * software owns a CQE when it matches the consumer's pass (mlx5 owner bit) */
static void r_cq_owner_bit_wraps(struct rx *x)
{
	struct rx_cq cq;
	struct rx_qp q;

	small_cq(x, &cq, &q, false);
	for (uint32_t i = 0; i < 11; i++) {
		struct prism_cqe c;

		post_nops(x, &q, 1);
		c = rx_expect(x, &cq);
		assert_int_equal(c.wqe_counter, i);
		assert_int_equal(c.owner, (i / 4) & 1);
		assert_int_equal(rx_poll(&cq, &c), 0);
	}
}

/* rule cq-overrun-errors-cq: without IGNORE_OVERRUN a CQE that finds the
 * ring full is lost and the CQ (not the QP) enters error: it writes no
 * further CQE, even once consumed (rdma-core ibv_create_cq_ex(3); kernel
 * CQ error event).  The QP's fate is a sim choice: not asserted. */
static void r_cq_overrun_errors_cq(struct rx *x)
{
	struct rx_cq cq;
	struct rx_qp q;
	struct prism_cqe c;

	small_cq(x, &cq, &q, false);
	post_nops(x, &q, 6);
	assert_int_equal(rx_count(&cq), 4); /* the ring holds its depth, no more */
	for (uint32_t i = 0; i < 4; i++) {  /* the first four, in order */
		c = rx_expect(x, &cq);
		assert_int_equal(c.wqe_counter, i);
	}
	post_nops(x, &q, 1); /* consumed: still no new CQE */
	assert_int_equal(rx_poll(&cq, &c), 0);
}

/* rule cq-ignore-overrun: with IGNORE_OVERRUN the CQ keeps producing (and
 * counting, for WAIT) over unconsumed entries: what recycled loops need */
static void r_cq_ignore_overrun(struct rx *x)
{
	struct rx_cq cq;
	struct rx_qp q;
	struct prism_cqe c;

	small_cq(x, &cq, &q, true);
	post_nops(x, &q, 10);
	/* CQE 9 lies in slot 9 % 4 with its pass's owner bit; 8 before it */
	c = cqe_in_slot(&cq, 1);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
	assert_int_equal(c.wqe_counter, 9);
	assert_int_equal(c.owner, (9 / 4) & 1);
	assert_int_equal(cqe_in_slot(&cq, 0).wqe_counter, 8);
	post_nops(x, &q, 1); /* the QP and the CQ go on: CQE 10 in slot 2 */
	c = cqe_in_slot(&cq, 2);
	assert_int_equal(c.wqe_counter, 10);
	assert_int_equal(c.owner, (10 / 4) & 1);
}

/* Post a signaled NOP on the fixture's a and let it run (its CQE unread). */
static void nop_on_a(struct rx *x)
{
	uint32_t before = rx_count(&x->cq_a);

	post_nops(x, &x->a, 1);
	assert_int_equal(rx_count(&x->cq_a), before + 1);
}

static unsigned take(struct rx *x, void **ctx)
{
	return x->ops->take_events(x->dev, ctx, 4);
}

/* rule cq-events: an armed CQ queues one completion event, carrying the
 * consumer's context, at its next CQE, and is then disarmed; arming with
 * the consumer-index check over CQEs not yet consumed queues it at once;
 * disarming drops an event still queued (ibv_req_notify_cq,
 * ibv_get_cq_event) */
static void r_cq_events(struct rx *x)
{
	void *ctx[4];
	int tag;

	x->ops->arm_cq(x->cq_a.cq, &tag, true);
	assert_int_equal(take(x, ctx), 0); /* nothing yet */
	nop_on_a(x);
	assert_int_equal(take(x, ctx), 1);
	assert_ptr_equal(ctx[0], &tag);
	assert_int_equal(take(x, ctx), 0); /* once */
	rx_expect(x, &x->cq_a);
	nop_on_a(x); /* not armed: no event */
	assert_int_equal(take(x, ctx), 0);
	/* that CQE is not consumed: arming without the check waits for the
	 * next one, arming with it fires at once */
	x->ops->arm_cq(x->cq_a.cq, &tag, false);
	assert_int_equal(take(x, ctx), 0);
	x->ops->arm_cq(x->cq_a.cq, &tag, true);
	assert_int_equal(take(x, ctx), 1);
	assert_ptr_equal(ctx[0], &tag);
	rx_expect(x, &x->cq_a);
	/* a NULL context disarms and drops the event still queued */
	x->ops->arm_cq(x->cq_a.cq, &tag, false);
	nop_on_a(x);
	x->ops->arm_cq(x->cq_a.cq, NULL, false);
	assert_int_equal(take(x, ctx), 0);
	nop_on_a(x);
	assert_int_equal(take(x, ctx), 0);
}

static const struct rule rules[] = {
    RULE("1.8", "cq-owner-bit-wraps", r_cq_owner_bit_wraps),
    RULE("1.9", "cq-overrun-errors-cq", r_cq_overrun_errors_cq),
    RULE("1.10", "cq-ignore-overrun", r_cq_ignore_overrun),
    RULE("6.7", "cq-events", r_cq_events, .needs = RULE_NEEDS_EVENTS),
};
RULE_TABLE(rules_cq, rules);
