/* SPDX-License-Identifier: MIT */
/*
 * test_chainobj_nomem.c - the chain-object reader, writer and builders
 * under allocation failure: every allocation in turn fails, and each time
 * the call reports -ENOMEM (or succeeds) and nothing leaks.
 *
 * Owns: a counting malloc/calloc/realloc/free replacement (glibc's
 * documented way to replace the allocator; libyaml and stdio allocate
 * through it too) and the failure sweeps.  The sanitizer build brings its
 * own allocator, so there the sweeps are skipped (ASan checks leaks there).
 */
#include <errno.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "chain/chainobj.h"
#include "tests/chainobj/chain_fixture.h"

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_OWN_ALLOCATOR 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_OWN_ALLOCATOR 0
#endif
#endif
#ifndef HAVE_OWN_ALLOCATOR
#define HAVE_OWN_ALLOCATOR 1
#endif

#if HAVE_OWN_ALLOCATOR
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t m);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t n);

static long fail_at = -1; /* index of the allocation that fails; -1: none */
static long calls;        /* allocations counted since arming */
static long live;         /* net allocations since arming */
static int armed;

/*
 * The blocks allocated through this replacement while armed, so that a
 * free of a block libc allocated internally (not every glibc allocation
 * goes through the public symbol) does not count.
 */
#define TRACK_SLOTS (1u << 16)
static void *tracked[TRACK_SLOTS];

static size_t slot_of(void *p)
{
	return ((uintptr_t)p >> 4) * 2654435761u % TRACK_SLOTS;
}

static void track(void *p)
{
	size_t i = slot_of(p);

	if (!p || !armed)
		return;
	while (tracked[i])
		i = (i + 1) % TRACK_SLOTS;
	tracked[i] = p;
	live++;
}

static bool untrack(void *p)
{
	size_t i = slot_of(p);

	if (!p)
		return false;
	for (size_t n = 0; n < TRACK_SLOTS && tracked[i]; n++, i = (i + 1) % TRACK_SLOTS)
		if (tracked[i] == p) {
			/* Re-insert the rest of the cluster so probing stays correct. */
			tracked[i] = NULL;
			live--;
			for (size_t j = (i + 1) % TRACK_SLOTS; tracked[j];
			     j = (j + 1) % TRACK_SLOTS) {
				void *q = tracked[j];

				tracked[j] = NULL;
				for (size_t k = slot_of(q);; k = (k + 1) % TRACK_SLOTS)
					if (!tracked[k]) {
						tracked[k] = q;
						break;
					}
			}
			return true;
		}
	return false;
}

static int should_fail(void)
{
	return armed && calls++ == fail_at;
}

void *malloc(size_t n)
{
	void *p;

	if (should_fail())
		return NULL;
	p = __libc_malloc(n);
	track(p);
	return p;
}

void *calloc(size_t n, size_t m)
{
	void *p;

	if (should_fail())
		return NULL;
	p = __libc_calloc(n, m);
	track(p);
	return p;
}

void *realloc(void *old, size_t n)
{
	void *p;

	if (should_fail())
		return NULL;
	p = __libc_realloc(old, n);
	if (p && (old ? untrack(old) : true))
		track(p); /* a block moved, or a new one */
	return p;
}

void free(void *p)
{
	untrack(p);
	__libc_free(p);
}

void *memalign(size_t align, size_t n)
{
	void *p = should_fail() ? NULL : __libc_memalign(align, n);

	track(p);
	return p;
}

void *aligned_alloc(size_t align, size_t n)
{
	return memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p = memalign(align, n);

	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

static void arm(long at)
{
	memset(tracked, 0, sizeof(tracked));
	fail_at = at;
	calls = 0;
	live = 0;
	armed = 1;
}

static void disarm(void)
{
	armed = 0;
}

static char *fixture_text(void)
{
	struct chainobj *o = fixture_hashget();
	char *text = NULL;
	size_t len = 0;

	assert_int_equal(chainobj_write_mem(o, 0, &text, &len, NULL), 0);
	chainobj_free(o);
	return text;
}

/*
 * Fail the 1st, 2nd, ... allocation of chainobj_read_mem, until a run makes
 * fewer allocations than the index (nothing failed).  libyaml absorbs a few
 * failures itself (the call then succeeds, correctly): every outcome must be
 * success or -ENOMEM, and nothing may leak either way.
 */
static void test_read_under_allocation_failure(void **state)
{
	char *text = fixture_text();
	size_t len = strlen(text);
	unsigned nomem = 0;
	long at;

	for (at = 0;; at++) {
		struct chainobj *o = NULL;
		struct diag_report d;
		int rc;

		arm(at);
		rc = chainobj_read_mem(text, len, &o, &d);
		if (rc == 0)
			chainobj_free(o);
		disarm();
		if (rc != 0 && rc != -ENOMEM)
			fail_msg("allocation %ld failing gave %d: %s", at, rc, d.msg);
		if (live != 0)
			fail_msg("allocation %ld failing leaked %ld blocks", at, live);
		if (calls <= at) { /* no allocation failed: the sweep is complete */
			assert_int_equal(rc, 0);
			break;
		}
		if (rc) {
			assert_null(o);
			assert_int_equal(d.code, CHAINOBJ_E_NOMEM);
			nomem++;
		}
	}
	/* Every allocation of the object and the parser was failed once; (nearly)
	 * every failure must surface as -ENOMEM rather than be lost. */
	if (at < 40 || nomem * 10 < (unsigned long)at * 9)
		fail_msg("%u of %ld allocation failures reported", nomem, at);
	free(text);
}

static void test_write_under_allocation_failure(void **state)
{
	struct chainobj *o = fixture_hashget();
	unsigned nomem = 0;

	for (long at = 0;; at++) {
		char *text = NULL;
		size_t len = 0;
		int rc;

		arm(at);
		rc = chainobj_write_mem(o, 0, &text, &len, NULL);
		free(text);
		disarm();
		assert_true(rc == 0 || rc == -ENOMEM);
		if (live != 0)
			fail_msg("allocation %ld failing leaked %ld blocks", at, live);
		if (calls <= at) {
			assert_int_equal(rc, 0);
			break;
		}
		if (rc) {
			assert_null(text);
			nomem++;
		}
	}
	assert_true(nomem > 0);
	chainobj_free(o);
}

static void test_builders_under_allocation_failure(void **state)
{
	for (long at = 0; at < 8; at++) {
		struct chainobj *o;
		struct chainobj_queue *q;
		uint8_t bytes[16] = {0};

		arm(at);
		o = chainobj_new("p");
		if (o) {
			q = chainobj_add_queue(o, "q", CHAINOBJ_ROLE_WORKER);
			if (q && !chainobj_queue_add_wqe(q, CHAINOBJ_RING_SQ, 0, bytes, 16, "n"))
				assert_int_equal(q->n_sq, 0);
			if (!chainobj_add_exit(o))
				assert_int_equal(o->n_exits, 0);
			if (chainobj_set_scratch_init(o, bytes, 8))
				assert_null(o->scratch_init);
		}
		chainobj_free(o);
		disarm();
		if (live != 0)
			fail_msg("allocation %ld failing leaked %ld blocks", at, live);
	}
}
#else
static void test_read_under_allocation_failure(void **state)
{
	skip();
}

static void test_write_under_allocation_failure(void **state)
{
	skip();
}

static void test_builders_under_allocation_failure(void **state)
{
	skip();
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_read_under_allocation_failure),
	    cmocka_unit_test(test_write_under_allocation_failure),
	    cmocka_unit_test(test_builders_under_allocation_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
