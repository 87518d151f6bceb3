/* SPDX-License-Identifier: MIT */
/*
 * util/clock.h - the monotonic clock in nanoseconds, microseconds and
 * milliseconds, for deadlines, back-off bounds, poll budgets and measured
 * intervals (never for the wall-clock time of day).
 *
 * Owns: util_now_ns, util_now_us, util_now_ms.  Must not: sleep or keep
 * state.
 */
#ifndef PRISM_UTIL_CLOCK_H
#define PRISM_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Nanoseconds of CLOCK_MONOTONIC. */
static inline uint64_t util_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Microseconds of CLOCK_MONOTONIC. */
static inline uint64_t util_now_us(void)
{
	return util_now_ns() / 1000u;
}

/* Milliseconds of CLOCK_MONOTONIC (signed, so deadlines subtract). */
static inline int64_t util_now_ms(void)
{
	return (int64_t)(util_now_ns() / 1000000u);
}

#endif /* PRISM_UTIL_CLOCK_H */
