/* SPDX-License-Identifier: MIT */
/*
 * util/byteorder.h - the one set of byte-order loads and stores: big- and
 * little-endian integers of 2, 4 and 8 bytes, and of any width from 1 to 8
 * bytes, in byte buffers; and the big-endian 32-bit doorbell words the NIC
 * and the host share.
 *
 * Owns: turning host integers into wire or memory bytes and back, for the
 * codec, the compiler, the runtime, the tools and the tests.  Fixed-width
 * accesses go through memcpy, so unaligned buffers are fine and UBSan stays
 * quiet.
 *
 * Must not: be installed (an internal header), or hold anything but byte
 * order.
 */
#ifndef PRISM_UTIL_BYTEORDER_H
#define PRISM_UTIL_BYTEORDER_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

#define BYTEORDER_FIXED(bits)                                                                      \
	static inline uint##bits##_t get_be##bits(const void *p)                                   \
	{                                                                                          \
		uint##bits##_t v;                                                                  \
		memcpy(&v, p, sizeof(v));                                                          \
		return be##bits##toh(v);                                                           \
	}                                                                                          \
	static inline uint##bits##_t get_le##bits(const void *p)                                   \
	{                                                                                          \
		uint##bits##_t v;                                                                  \
		memcpy(&v, p, sizeof(v));                                                          \
		return le##bits##toh(v);                                                           \
	}                                                                                          \
	static inline void put_be##bits(void *p, uint##bits##_t v)                                 \
	{                                                                                          \
		v = htobe##bits(v);                                                                \
		memcpy(p, &v, sizeof(v));                                                          \
	}                                                                                          \
	static inline void put_le##bits(void *p, uint##bits##_t v)                                 \
	{                                                                                          \
		v = htole##bits(v);                                                                \
		memcpy(p, &v, sizeof(v));                                                          \
	}

BYTEORDER_FIXED(16)
BYTEORDER_FIXED(32)
BYTEORDER_FIXED(64)
#undef BYTEORDER_FIXED

/* The low @n (1..8) bytes of @v at @p, most significant first. */
static inline void put_be(void *p, unsigned n, uint64_t v)
{
	uint8_t *b = p;

	for (unsigned i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* The low @n (1..8) bytes of @v at @p, least significant first. */
static inline void put_le(void *p, unsigned n, uint64_t v)
{
	uint8_t *b = p;

	for (unsigned i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

/* @n (1..8) bytes at @p, most significant first. */
static inline uint64_t get_be(const void *p, unsigned n)
{
	const uint8_t *b = p;
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = v << 8 | b[i];
	return v;
}

/* @n (1..8) bytes at @p, least significant first. */
static inline uint64_t get_le(const void *p, unsigned n)
{
	const uint8_t *b = p;
	uint64_t v = 0;

	for (unsigned i = n; i-- > 0;)
		v = v << 8 | b[i];
	return v;
}

/* Either order, by flag (@be false: little-endian). */
static inline void put_order(void *p, unsigned n, uint64_t v, int be)
{
	if (be)
		put_be(p, n, v);
	else
		put_le(p, n, v);
}

static inline uint64_t get_order(const void *p, unsigned n, int be)
{
	return be ? get_be(p, n) : get_le(p, n);
}

/* A whole aligned big-endian 32-bit word shared with the NIC's thread
 * (doorbell records, WQE counters): one access, never torn; the load
 * acquires and the store releases, so what was written before a doorbell
 * is seen by whoever reads it. */
static inline uint32_t load_be32_shared(const volatile uint32_t *p)
{
	return be32toh(__atomic_load_n(p, __ATOMIC_ACQUIRE));
}

static inline void store_be32_shared(volatile uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, htobe32(v), __ATOMIC_RELEASE);
}

#endif /* PRISM_UTIL_BYTEORDER_H */
