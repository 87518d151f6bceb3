/* SPDX-License-Identifier: MIT */
/*
 * util/clock.h - the monotonic clock in milliseconds, for deadlines and
 * back-off bounds (never for the wall-clock time of day).
 *
 * Owns: util_now_ms.  Must not: sleep or keep state.
 */
#ifndef PRISM_UTIL_CLOCK_H
#define PRISM_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Milliseconds of CLOCK_MONOTONIC. */
static inline int64_t util_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif /* PRISM_UTIL_CLOCK_H */
