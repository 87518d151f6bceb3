/* SPDX-License-Identifier: MIT */
/*
 * tests/sim/test_channel.c - completion channels (sim_channel_*): the fd of
 * a channel becomes readable when an armed CQ attached to it receives a
 * CQE written by the NIC thread, and not before; a CQE that lands between
 * the consumer's last poll and its arm, or between its arm and its sleep,
 * still wakes it (ibv_req_notify_cq + ibv_get_cq_event, no lost wake-up);
 * taking the events makes the fd unreadable again; a channel cannot be
 * destroyed under its CQs.
 *
 * Owns: these checks.  Must not: time anything (the only bounds are
 * generous ones on a sleep that must end).
 */
#include <poll.h>

#include "tests/sim/sim_env.h"

#define SLEEP_BOUND_MS 10000 /* a wake that must come: generous */

/* Is the channel's fd readable after @ms (0: now)? */
static bool readable(struct sim_channel *ch, int ms)
{
	struct pollfd p = {.fd = sim_channel_fd(ch), .events = POLLIN};
	int n = poll(&p, 1, ms);

	assert_true(n >= 0);
	return n > 0 && (p.revents & POLLIN);
}

/* A signaled NOP on a, rung: the NIC thread writes its CQE. */
static void post_nop(struct env *e)
{
	struct prism_wqe w;

	hx_nop(&w, true);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
}

/* Waits (bounded) until cq_a has produced @n CQEs in all. */
static void await_count(struct env *e, uint32_t n)
{
	for (int i = 0; i < SLEEP_BOUND_MS && sim_cq_count(e->cq_a.cq) < n; i++)
		poll(NULL, 0, 1);
	assert_int_equal(sim_cq_count(e->cq_a.cq), n);
}

static int setup(void **state)
{
	struct env *e = env_make(SIM_FW_STRICT, SIM_HAZARD_WARN, false, 0, 0);

	assert_int_equal(sim_dev_start(e->dev), 0);
	*state = e;
	return 0;
}

/* Armed, asleep: the NIC thread's CQE wakes the sleeper, with the ctx. */
static void test_wakes_on_nic_cqe(void **state)
{
	struct env *e = *state;
	struct sim_channel *ch;
	void *ctx[4];
	int tag;

	assert_int_equal(sim_channel_create(e->dev, &ch), 0);
	assert_int_equal(sim_cq_set_channel(e->cq_a.cq, ch), 0);
	sim_cq_arm(e->cq_a.cq, &tag, true);
	assert_false(readable(ch, 0)); /* nothing written yet */
	assert_int_equal(sim_channel_take_events(ch, ctx, 4), 0);
	post_nop(e);
	assert_true(readable(ch, SLEEP_BOUND_MS));
	assert_int_equal(sim_cq_count(e->cq_a.cq), 1); /* woken by that CQE */
	/* the event went to the channel, not to the device's list */
	assert_int_equal(sim_dev_take_events(e->dev, ctx, 4), 0);
	assert_int_equal(sim_channel_take_events(ch, ctx, 4), 1);
	assert_ptr_equal(ctx[0], &tag);
	assert_false(readable(ch, 0)); /* taken: unreadable again */
	hx_expect(&e->cq_a);

	/* disarmed by its event: the next CQE wakes nobody */
	post_nop(e);
	await_count(e, 2);
	assert_false(readable(ch, 0));
	hx_expect(&e->cq_a);

	/* busy while attached; detached, it goes */
	assert_int_equal(sim_channel_destroy(ch), SIM_E_BUSY);
	assert_int_equal(sim_cq_set_channel(e->cq_a.cq, NULL), 0);
	assert_int_equal(sim_channel_destroy(ch), 0);
}

/* The consumer's order: poll the CQ, arm, check again, sleep.  A CQE
 * written after the poll but before the arm makes the arm fire at once; one
 * written after the arm but before the sleep leaves the fd readable, so
 * the sleep returns at once.  Either way nothing is lost. */
static void test_no_lost_wakeup(void **state)
{
	struct env *e = *state;
	struct sim_channel *ch;
	struct prism_cqe c;
	void *ctx[4];
	int tag;

	assert_int_equal(sim_channel_create(e->dev, &ch), 0);
	assert_int_equal(sim_cq_set_channel(e->cq_a.cq, ch), 0);

	/* CQE between the poll and the arm */
	assert_int_equal(hx_poll(&e->cq_a, &c), 0); /* the consumer saw nothing */
	post_nop(e);
	await_count(e, 1);             /* ... and the NIC thread wrote it since */
	assert_false(readable(ch, 0)); /* not armed: no event */
	sim_cq_arm(e->cq_a.cq, &tag, true);
	assert_true(readable(ch, 0)); /* the arm saw the unconsumed CQE */
	assert_int_equal(sim_channel_take_events(ch, ctx, 4), 1);
	hx_expect(&e->cq_a);

	/* CQE between the arm and the sleep */
	sim_cq_arm(e->cq_a.cq, &tag, true);
	assert_false(readable(ch, 0));
	post_nop(e);
	await_count(e, 2);
	assert_true(readable(ch, 0)); /* the sleep would return at once */
	assert_int_equal(sim_channel_take_events(ch, ctx, 4), 1);
	assert_ptr_equal(ctx[0], &tag);
	hx_expect(&e->cq_a);

	/* an event still queued when the CQ leaves its channel moves with it;
	 * a disarm drops it */
	sim_cq_arm(e->cq_a.cq, &tag, true);
	post_nop(e);
	assert_true(readable(ch, SLEEP_BOUND_MS));
	assert_int_equal(sim_cq_set_channel(e->cq_a.cq, NULL), 0);
	assert_false(readable(ch, 0));
	assert_int_equal(sim_dev_take_events(e->dev, ctx, 4), 1);
	assert_ptr_equal(ctx[0], &tag);
	hx_expect(&e->cq_a);
	assert_int_equal(sim_cq_set_channel(e->cq_a.cq, ch), 0);
	sim_cq_arm(e->cq_a.cq, &tag, true);
	post_nop(e);
	assert_true(readable(ch, SLEEP_BOUND_MS));
	sim_cq_arm(e->cq_a.cq, NULL, false);
	assert_false(readable(ch, 0));
	hx_expect(&e->cq_a);
	assert_int_equal(sim_cq_set_channel(e->cq_a.cq, NULL), 0);
	assert_int_equal(sim_channel_destroy(ch), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_wakes_on_nic_cqe, setup, env_teardown),
	    cmocka_unit_test_setup_teardown(test_no_lost_wakeup, setup, env_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
