/* SPDX-License-Identifier: MIT */
/*
 * wqe_rwqe_body.h - the receive-WQE decoder body (internal to the library:
 * not installed, not exported), inline so that the software NIC compiles it
 * into its receive path.
 *
 * Owns: the one decode of a receive WQE's data segments (layout in
 * wqe_rwqe.c); prism_rwqe_decode() is this function plus its argument
 * checks and diagnostics.
 *
 * Must not: be called with a NULL @p or @sge, or @stride_ds outside
 * 1..PRISM_WQE_MAX_DS (the caller checked them).
 */
#ifndef PRISM_WQE_RWQE_BODY_H
#define PRISM_WQE_RWQE_BODY_H

#include <stdint.h>

#include <prism/wqe.h>

#include "util/byteorder.h"

/* The entries before the terminator (or all @stride_ds), at most @max:
 * their number, or PRISM_WQE_E_SEGMENT (a byte count with bit 31 set) or
 * PRISM_WQE_E_SGE_COUNT (too many entries), *@bad the entry's index. */
static inline int wqe_rwqe_decode_body(const uint8_t *p, unsigned stride_ds, struct prism_sge *sge,
                                       unsigned max, unsigned *bad)
{
	unsigned i;

	for (i = 0; i < stride_ds; i++, p += 16) {
		uint32_t lkey = get_be32(p + 4);
		uint32_t count;

		if (lkey == PRISM_INVALID_LKEY)
			break;
		count = get_be32(p);
		*bad = i;
		if (count & PRISM_INLINE_SEG)
			return PRISM_WQE_E_SEGMENT;
		if (i >= max || i >= PRISM_WQE_MAX_SGE)
			return PRISM_WQE_E_SGE_COUNT;
		sge[i].byte_count = count;
		sge[i].lkey = lkey;
		sge[i].addr = get_be64(p + 8);
	}
	return (int)i;
}

#endif /* PRISM_WQE_RWQE_BODY_H */
