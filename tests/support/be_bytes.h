/* SPDX-License-Identifier: MIT */
/*
 * tests/support/be_bytes.h - big-endian integers of 1 to 8 bytes in test
 * buffers (node keys, pointers and values as the chains read them).
 *
 * Owns: be_put, be_get.
 */
#ifndef PRISM_TESTS_BE_BYTES_H
#define PRISM_TESTS_BE_BYTES_H

#include <stdint.h>

/* Store the low n bytes of v at p, most significant first. */
static inline void be_put(uint8_t *p, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* Load n bytes at p, most significant first. */
static inline uint64_t be_get(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

#endif
