/* SPDX-License-Identifier: MIT */
/*
 * wqe_bytes.h - byte-level helpers of the codec (internal): the byte order
 * of wire fields (util/byteorder.h, the project's one set) and DS units.
 *
 * Must not: be included outside runtime/wqe/ (it is not installed; the engine
 * gets it only through wqe_lean.h, whose inline decode needs it).
 */
#ifndef PRISM_WQE_BYTES_H
#define PRISM_WQE_BYTES_H

#include <stdint.h>

#include "util/byteorder.h"

/* Round a byte count up to whole 16-byte DS units. */
static inline uint32_t wqe_ds_of(uint32_t bytes)
{
	return (bytes + 15u) / 16u;
}

#endif /* PRISM_WQE_BYTES_H */
