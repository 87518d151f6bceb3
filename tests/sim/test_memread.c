/* SPDX-License-Identifier: MIT */
/*
 * tests/sim/test_memread.c - sim_mem_read, the copy the engine uses for every
 * read of registered memory (READ responses, gathers, 8-byte atomics):
 *   - it copies exactly the bytes asked for, for every source alignment and
 *     every length up to three words past a line, and writes nothing else;
 *   - while another thread stores whole aligned words (a memcached writer
 *     publishing an index slot), every aligned word it returns is one of the
 *     values stored, never a mix of two (the check can only fail, never time);
 *   - the bounds check every access makes (sim_mr_in_bounds) lets through
 *     exactly the ranges inside the MR, for addresses below its start and
 *     lengths that wrap too, and a range that wraps cannot be registered.
 *
 * Owns: these checks.  Must not: time anything.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sim/sim_internal.h"

static void test_copies_every_alignment_and_length(void **state)
{
	uint8_t src[160] __attribute__((aligned(8))), dst[160];

	(void)state;
	for (unsigned i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 37 + 11);
	for (unsigned off = 0; off < 8; off++) {
		for (unsigned len = 0; len <= 88; len++) {
			memset(dst, 0xa5, sizeof(dst));
			sim_mem_read(dst + 1, src + off, len);
			assert_int_equal(dst[0], 0xa5);
			if (len)
				assert_memory_equal(dst + 1, src + off, len);
			for (unsigned k = 1 + len; k < sizeof(dst); k++)
				assert_int_equal(dst[k], 0xa5);
		}
	}
}

#define WORDS  64
#define ROUNDS 20000

static uint64_t shared[WORDS] __attribute__((aligned(64)));
static volatile bool stop;

static const uint64_t PAT_A = 0x1111111111111111ull, PAT_B = 0xeeeeeeeeeeeeeeeeull;

static void *writer(void *arg)
{
	(void)arg;
	for (uint64_t n = 0; !stop; n++)
		for (unsigned i = 0; i < WORDS; i++)
			__atomic_store_n(&shared[i], (n + i) & 1 ? PAT_A : PAT_B, __ATOMIC_RELAXED);
	return NULL;
}

static void test_whole_words_under_concurrent_stores(void **state)
{
	uint64_t copy[WORDS];
	pthread_t t;

	(void)state;
	for (unsigned i = 0; i < WORDS; i++)
		shared[i] = PAT_A;
	stop = false;
	assert_int_equal(pthread_create(&t, NULL, writer, NULL), 0);
	for (unsigned r = 0; r < ROUNDS; r++) {
		sim_mem_read(copy, (const uint8_t *)shared, sizeof(shared));
		for (unsigned i = 0; i < WORDS; i++)
			if (copy[i] != PAT_A && copy[i] != PAT_B)
				fail_msg("round %u word %u: torn value 0x%016llx", r, i,
				         (unsigned long long)copy[i]);
	}
	stop = true;
	pthread_join(t, NULL);
}

static void test_mr_bounds(void **state)
{
	static uint8_t buf[256];
	uint64_t lo = (uint64_t)(uintptr_t)(buf + 64);
	struct sim_dev_opts o = {0};
	struct sim_dev *dev;
	struct sim_mr *mr, *bad;

	(void)state;
	assert_int_equal(sim_dev_open(&o, &dev), 0);
	assert_int_equal(sim_mr_reg(dev, buf + 64, 128, SIM_ACCESS_LOCAL_WRITE, &mr), 0);
	assert_true(sim_mr_in_bounds(mr, lo, 128));
	assert_true(sim_mr_in_bounds(mr, lo + 127, 1));
	assert_true(sim_mr_in_bounds(mr, lo + 128, 0));
	assert_false(sim_mr_in_bounds(mr, lo, 129));
	assert_false(sim_mr_in_bounds(mr, lo + 128, 1));
	assert_false(sim_mr_in_bounds(mr, lo - 1, 1));
	assert_false(sim_mr_in_bounds(mr, lo - 1, 2));
	assert_false(sim_mr_in_bounds(mr, 0, lo + 1));
	assert_false(sim_mr_in_bounds(mr, lo + 8, UINT64_MAX));
	assert_false(sim_mr_in_bounds(mr, UINT64_MAX, 2));
	/* the last bytes of the address space: the range would wrap */
	assert_int_equal(sim_mr_reg(dev, (void *)(UINTPTR_MAX - 63), 128, 0, &bad), -EINVAL);
	assert_int_equal(sim_mr_dereg(mr), 0);
	sim_dev_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_copies_every_alignment_and_length),
	    cmocka_unit_test(test_whole_words_under_concurrent_stores),
	    cmocka_unit_test(test_mr_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
