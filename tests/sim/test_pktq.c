/* SPDX-License-Identifier: MIT */
/*
 * tests/sim/test_pktq.c - the packet queue (struct sim_pktq) that holds a
 * device's inbox, its deliveries from other threads and its packets the
 * transport refused: pops must come out in (time, push order) order, the
 * order a sort of every pushed packet by that key gives (the seeded event
 * streams depend on it), for pushes in time order, out of order, with
 * ties, interleaved with pops, earlier than every waiting packet; in fifo
 * mode in push order alone; across the array sliding back to its start
 * and growing.
 *
 * Owns: these checks.  Must not: time anything.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "sim/sim_internal.h"

#define NPKT 4096

/* A reference queue: every pushed packet with its push number; pop takes
 * the least (t, push number), by a scan. */
struct ref {
	struct sim_pkt *p[NPKT];
	uint64_t seq[NPKT];
	uint32_t n;
	uint64_t next_seq;
	bool fifo;
};

static void ref_push(struct ref *r, struct sim_pkt *p)
{
	r->p[r->n] = p;
	r->seq[r->n++] = r->next_seq++;
}

static struct sim_pkt *ref_pop(struct ref *r)
{
	uint32_t best = 0;
	struct sim_pkt *p;

	if (!r->n)
		return NULL;
	for (uint32_t i = 1; i < r->n; i++) {
		bool earlier = r->fifo || r->p[i]->t == r->p[best]->t ? r->seq[i] < r->seq[best]
		                                                      : r->p[i]->t < r->p[best]->t;
		if (earlier)
			best = i;
	}
	p = r->p[best];
	r->p[best] = r->p[--r->n];
	r->seq[best] = r->seq[r->n];
	return p;
}

static uint64_t rng_next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

struct fixture {
	struct sim_pkt pkts[NPKT];
	struct ref ref;
	struct sim_pktq q;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	*state = f;
	return f ? 0 : -1;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	sim_pktq_free(&f->q);
	free(f);
	return 0;
}

/* Pushes packet @i at time @t into both queues. */
static void push_both(struct fixture *f, uint32_t i, sim_time_t t)
{
	f->pkts[i].t = t;
	assert_int_equal(sim_pktq_push(&f->q, &f->pkts[i]), 0);
	ref_push(&f->ref, &f->pkts[i]);
}

/* Pops one from both: the same packet, and the queue's count agrees. */
static void pop_both(struct fixture *f)
{
	struct sim_pkt *want = ref_pop(&f->ref);

	if (want)
		assert_ptr_equal(sim_pktq_peek(&f->q), want);
	assert_ptr_equal(sim_pktq_pop(&f->q), want);
	assert_int_equal(f->q.n, f->ref.n);
	if (f->q.n)
		assert_true(f->q.front->p == sim_pktq_peek(&f->q));
}

/* Random times from a small range (many ties, many out-of-order pushes),
 * pops interleaved at random, then drained: same order as the reference,
 * for several seeds and both modes. */
static void run_random(struct fixture *f, bool fifo, uint64_t seed, uint32_t tmax,
                       uint32_t pop_per_8)
{
	uint32_t pushed = 0;

	f->q.fifo = f->ref.fifo = fifo;
	while (pushed < NPKT) {
		if (f->ref.n && rng_next(&seed) % 8 < pop_per_8)
			pop_both(f);
		else
			push_both(f, pushed++, rng_next(&seed) % tmax);
	}
	while (f->ref.n)
		pop_both(f);
	assert_null(sim_pktq_pop(&f->q));
}

static void test_random_matches_sort(void **state)
{
	struct fixture *f = *state;

	for (uint64_t seed = 1; seed <= 8; seed++) {
		run_random(f, false, seed, seed % 2 ? 16 : 100000, 3 + seed % 3);
		f->ref.next_seq = 0;
	}
}

static void test_fifo_keeps_push_order(void **state)
{
	struct fixture *f = *state;

	run_random(f, true, 7, 1000, 3);
}

/* Out-of-order pushes land behind the last packet not later than them;
 * equal times keep push order. */
static void test_out_of_order_and_ties(void **state)
{
	static const sim_time_t t[] = {10, 20, 30, 15, 20, 5, 30, 10, 40, 0};
	static const uint32_t want[] = {9, 5, 0, 7, 3, 1, 4, 2, 6, 8};
	struct fixture *f = *state;

	for (uint32_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		push_both(f, i, t[i]);
	for (uint32_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_ptr_equal(sim_pktq_pop(&f->q), &f->pkts[want[i]]);
	assert_null(sim_pktq_pop(&f->q));
}

/* After pops, a packet earlier than every waiting one takes the slot before
 * the front (a reply at the time of the packet just taken); one at the
 * front's own time still goes behind it. */
static void test_earlier_than_all_after_pop(void **state)
{
	struct fixture *f = *state;
	const struct sim_pktq_ent *front;

	push_both(f, 0, 10);
	push_both(f, 6, 11);
	push_both(f, 1, 20);
	push_both(f, 2, 30);
	assert_ptr_equal(sim_pktq_pop(&f->q), &f->pkts[0]);
	assert_ptr_equal(sim_pktq_pop(&f->q), &f->pkts[6]);
	front = f->q.front; /* two free slots before it */
	push_both(f, 3, 15);
	assert_ptr_equal(f->q.front, front - 1); /* nothing moved */
	push_both(f, 4, 15);                     /* a tie: behind the first 15 */
	push_both(f, 5, 12);
	assert_ptr_equal(f->q.front, front - 2);
	assert_ptr_equal(sim_pktq_pop(&f->q), &f->pkts[5]);
	assert_ptr_equal(sim_pktq_pop(&f->q), &f->pkts[3]);
	assert_ptr_equal(sim_pktq_pop(&f->q), &f->pkts[4]);
	assert_ptr_equal(sim_pktq_pop(&f->q), &f->pkts[1]);
	assert_ptr_equal(sim_pktq_pop(&f->q), &f->pkts[2]);
	assert_null(sim_pktq_pop(&f->q));
}

/* A short queue running many times through the array slides back to its
 * start instead of growing, and keeps its order across each slide. */
static void test_slides_without_growing(void **state)
{
	struct fixture *f = *state;
	uint64_t seed = 3;
	uint32_t cap;

	push_both(f, 0, 0);
	cap = f->q.cap;
	assert_true(cap > 0);
	for (uint32_t i = 1; i < NPKT; i++) {
		/* about three waiting, times mostly rising, some out of order */
		push_both(f, i, i * 4 + rng_next(&seed) % 10);
		if (f->ref.n > 3)
			pop_both(f);
	}
	assert_int_equal(f->q.cap, cap); /* slid, never grew */
	while (f->ref.n)
		pop_both(f);
}

/* A queue that fills its array grows (doubling), with the live run at any
 * offset, in order; descending times move every entry at every push. */
static void test_grows_in_order(void **state)
{
	struct fixture *f = *state;
	uint32_t i;

	/* move the front away from the array's start first */
	for (i = 0; i < 40; i++)
		push_both(f, i, 1000000 + i);
	for (uint32_t k = 0; k < 30; k++)
		pop_both(f);
	for (; i < 1040; i++)
		push_both(f, i, 2000000 - i); /* each earlier than all before */
	assert_true(f->q.cap >= f->q.n);
	assert_int_equal(f->q.n, 1010);
	while (f->ref.n)
		pop_both(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_random_matches_sort, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fifo_keeps_push_order, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_out_of_order_and_ties, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_earlier_than_all_after_pop, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_slides_without_growing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_grows_in_order, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
