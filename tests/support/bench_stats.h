/* SPDX-License-Identifier: MIT */
/*
 * tests/support/bench_stats.h - what every benchmark program shares: clocks,
 * the median of a set of runs, and failing loudly on a setup error.
 *
 * Owns: bench_clock_s, bench_now, bench_median, bench_die, BENCH_CHECK.
 * Must not: time anything itself or decide how many runs a benchmark makes.
 */
#ifndef PRISM_TESTS_BENCH_STATS_H
#define PRISM_TESTS_BENCH_STATS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Seconds on clock `id` (CLOCK_MONOTONIC, or a CPU-time clock). */
static inline double bench_clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wall-clock seconds (monotonic). */
static inline double bench_now(void)
{
	return bench_clock_s(CLOCK_MONOTONIC);
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of v[0..n) (sorts v in place). */
static inline double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	return v[n / 2];
}

/* A benchmark whose setup fails prints what failed and exits: its figures
 * would be meaningless. */
static inline void bench_die(const char *what, int rc)
{
	fprintf(stderr, "%s: %s failed (%d)\n", program_invocation_short_name, what, rc);
	exit(1);
}

#define BENCH_CHECK(x)                                                                             \
	do {                                                                                       \
		int rc_ = (x);                                                                     \
		if (rc_ < 0)                                                                       \
			bench_die(#x, rc_);                                                        \
	} while (0)

#endif
