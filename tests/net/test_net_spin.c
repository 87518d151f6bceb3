/* SPDX-License-Identifier: MIT */
/*
 * tests/net/test_net_spin.c - the adaptive poll budget of net_spin.h: a
 * catch keeps or grows the budget up to the cap, a miss halves it down to
 * 0, a budget of 0 polls again only every NET_SPIN_RETRY-th wait (a missed
 * retry stays at 0), a cap of 0 never polls, PRISM_SPIN_US parsing, and
 * the process-wide count of pollers being released, and the poll loop
 * (net_spin_poll) passing its look's answer on.
 *
 * Must not: time anything (the only polls last a microsecond, and only
 * their answers are checked).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "net/net_spin.h"

static void test_catch_keeps_and_grows(void **state)
{
	struct net_spin s;

	net_spin_init(&s, 40);
	s.busy_ok = true;                         /* the arithmetic, whatever the machine runs */
	assert_int_equal(net_spin_begin(&s), 40); /* starts at the cap */
	net_spin_end(&s, 40, true, 3);
	assert_int_equal(net_spin_begin(&s), 40); /* a catch keeps it */
	net_spin_end(&s, 40, false, 40);
	assert_int_equal(net_spin_begin(&s), 20);
	net_spin_end(&s, 20, false, 20);
	assert_int_equal(net_spin_begin(&s), 10);
	net_spin_end(&s, 10, true, 9); /* caught late: twice what it took */
	assert_int_equal(net_spin_begin(&s), 19);
	net_spin_end(&s, 19, true, 15);
	assert_int_equal(net_spin_begin(&s), 31);
	net_spin_end(&s, 31, true, 25); /* past half the cap: the cap */
	assert_int_equal(net_spin_begin(&s), 40);
	net_spin_end(&s, 40, true, 0);
}

static void test_miss_halves_to_zero_then_retries(void **state)
{
	static const uint32_t halves[] = {40, 20, 10, 5, 2, 1};
	struct net_spin s;
	unsigned i;

	net_spin_init(&s, 40);
	s.busy_ok = true;
	for (i = 0; i < sizeof(halves) / sizeof(halves[0]); i++) {
		assert_int_equal(net_spin_begin(&s), halves[i]);
		net_spin_end(&s, halves[i], false, halves[i]);
	}
	/* at 0: sleep at once, except every NET_SPIN_RETRY-th wait */
	for (i = 1; i < NET_SPIN_RETRY; i++)
		assert_int_equal(net_spin_begin(&s), 0);
	assert_int_equal(net_spin_begin(&s), 40);
	net_spin_end(&s, 40, false, 40); /* a missed retry stays at 0 */
	for (i = 1; i < NET_SPIN_RETRY; i++)
		assert_int_equal(net_spin_begin(&s), 0);
	assert_int_equal(net_spin_begin(&s), 40);
	net_spin_end(&s, 40, true, 4); /* a caught retry polls again */
	assert_int_equal(net_spin_begin(&s), 40);
	net_spin_end(&s, 40, true, 4);
}

static void test_cap_zero_never_polls(void **state)
{
	struct net_spin s;

	net_spin_init(&s, 0);
	for (unsigned i = 0; i < 4 * NET_SPIN_RETRY; i++)
		assert_int_equal(net_spin_begin(&s), 0);
	s.busy_ok = true;
	for (unsigned i = 0; i < 4 * NET_SPIN_RETRY; i++)
		assert_int_equal(net_spin_begin(&s), 0);
	net_spin_init(&s, NET_SPIN_MAX_US + 1);
	assert_int_equal(s.cap_us, NET_SPIN_MAX_US);
}

/* Every begin that answered a budget releases its place at its end: the
 * pollers' count never fills up. */
static void test_pollers_released(void **state)
{
	struct net_spin a, b;

	net_spin_init(&a, 8);
	net_spin_init(&b, 8);
	a.busy_ok = b.busy_ok = true;
	for (unsigned i = 0; i < 1000; i++) {
		uint32_t x = net_spin_begin(&a);

		assert_int_equal(x, 8);
		net_spin_end(&a, x, true, 1);
		x = net_spin_begin(&b);
		assert_int_equal(x, 8);
		net_spin_end(&b, x, true, 1);
	}
}

struct look {
	unsigned calls, catch_at;
	int answer;
};

static int look(void *ctx)
{
	struct look *k = ctx;

	return ++k->calls >= k->catch_at ? k->answer : 0;
}

static void test_poll_passes_the_look_on(void **state)
{
	struct look caught = {.catch_at = 3, .answer = 7}, failed = {.catch_at = 1, .answer = -3};
	struct look never = {.catch_at = UINT32_MAX};
	struct net_spin s;

	net_spin_init(&s, 40);
	s.busy_ok = true;
	assert_int_equal(net_spin_begin(&s), 40);
	/* the catch must not race the clock (a loaded machine may take its 40 us
	 * before the third look): the poll is given 10 s, a bound that only stops
	 * a hang; the budget it keeps is still capped at 40 */
	assert_int_equal(net_spin_poll(&s, 10 * 1000 * 1000, look, &caught), 7);
	assert_int_equal(caught.calls, 3);
	assert_int_equal(net_spin_begin(&s), 40); /* a catch keeps the budget */
	/* a negative answer stops the poll at once, as a miss */
	assert_int_equal(net_spin_poll(&s, 40, look, &failed), -3);
	assert_int_equal(failed.calls, 1);
	assert_int_equal(net_spin_begin(&s), 20);
	/* nothing came: the time ran out, a miss */
	assert_int_equal(net_spin_poll(&s, 1, look, &never), 0);
	assert_true(never.calls >= 1);
	assert_int_equal(net_spin_begin(&s), 10);
	net_spin_end(&s, 10, true, 0);
	(void)state;
}

static void test_env(void **state)
{
	assert_int_equal(setenv("PRISM_SPIN_US", "0", 1), 0);
	assert_int_equal(net_spin_cap_env(), 0);
	assert_int_equal(setenv("PRISM_SPIN_US", "17", 1), 0);
	assert_int_equal(net_spin_cap_env(), 17);
	assert_int_equal(setenv("PRISM_SPIN_US", "999999", 1), 0);
	assert_int_equal(net_spin_cap_env(), NET_SPIN_MAX_US);
	assert_int_equal(setenv("PRISM_SPIN_US", "12x", 1), 0);
	assert_int_equal(net_spin_cap_env(), NET_SPIN_DEFAULT_US);
	assert_int_equal(setenv("PRISM_SPIN_US", "-3", 1), 0);
	assert_int_equal(net_spin_cap_env(), NET_SPIN_DEFAULT_US);
	assert_int_equal(unsetenv("PRISM_SPIN_US"), 0);
	assert_int_equal(net_spin_cap_env(), NET_SPIN_DEFAULT_US);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_catch_keeps_and_grows),
	    cmocka_unit_test(test_miss_halves_to_zero_then_retries),
	    cmocka_unit_test(test_cap_zero_never_polls),
	    cmocka_unit_test(test_pollers_released),
	    cmocka_unit_test(test_poll_passes_the_look_on),
	    cmocka_unit_test(test_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
