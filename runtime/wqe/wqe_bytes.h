/* SPDX-License-Identifier: MIT */
/*
 * wqe_bytes.h - big-endian loads and stores for the codec (internal).
 *
 * Owns: the only place in the codec that turns host integers into wire
 * bytes and back.  Every access goes through memcpy, so unaligned WQE
 * buffers (a READ may scatter anywhere) are fine and UBSan stays quiet.
 *
 * Must not: be included outside runtime/wqe/ (it is not installed).
 */
#ifndef PRISM_WQE_BYTES_H
#define PRISM_WQE_BYTES_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t wqe_get_be16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return be16toh(v);
}

static inline uint32_t wqe_get_be32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

static inline uint64_t wqe_get_be64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

static inline void wqe_put_be16(uint8_t *p, uint16_t v)
{
	v = htobe16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void wqe_put_be32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void wqe_put_be64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, sizeof(v));
}

/* Round a byte count up to whole 16-byte DS units. */
static inline uint32_t wqe_ds_of(uint32_t bytes)
{
	return (bytes + 15u) / 16u;
}

#endif /* PRISM_WQE_BYTES_H */
