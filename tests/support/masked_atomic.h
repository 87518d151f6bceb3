/* SPDX-License-Identifier: MIT */
/*
 * tests/support/masked_atomic.h - fill a WQE's masked-atomic segment from
 * operand bytes, for the tests that post masked CAS / FETCH_ADD by hand.
 *
 * Owns: the one mapping from operand byte strings (big-endian, as the WQE
 * carries them) to struct prism_atomic_seg, and the opmod for an operand
 * size.  Must not: post or check anything.
 */
#ifndef PRISM_TESTS_MASKED_ATOMIC_H
#define PRISM_TESTS_MASKED_ATOMIC_H

#include <stdint.h>
#include <string.h>

#include <prism/wqe.h>

/* The masked-atomic opmod of a @size-byte operand (4, 8, 16 or 32). */
static inline uint8_t masked_atomic_opmod(unsigned size)
{
	return (uint8_t)PRISM_MASKED_OPMOD(size == 4 ? 2u : size == 8 ? 3u : size == 16 ? 4u : 5u);
}

/* Set @w's atomic segment: @size-byte operands; @cmp and @cmask may be NULL
 * (FETCH_ADD), then they stay zero. */
static inline void masked_atomic_fill(struct prism_wqe *w, unsigned size, const uint8_t *swap,
                                      const uint8_t *cmp, const uint8_t *smask,
                                      const uint8_t *cmask)
{
	struct prism_atomic_seg *a = &w->atomic;

	w->has_atomic = true;
	a->size = (uint8_t)size;
	if (size <= 8) {
		uint64_t v[4] = {0};
		const uint8_t *src[4] = {swap, cmp, smask, cmask};

		for (int k = 0; k < 4; k++)
			for (unsigned i = 0; src[k] && i < size; i++)
				v[k] = v[k] << 8 | src[k][i];
		a->swap = v[0];
		a->compare = v[1];
		a->swap_mask = v[2];
		a->compare_mask = v[3];
	} else {
		memcpy(a->swap_bytes, swap, size);
		if (cmp)
			memcpy(a->compare_bytes, cmp, size);
		memcpy(a->swap_mask_bytes, smask, size);
		if (cmask)
			memcpy(a->compare_mask_bytes, cmask, size);
	}
}

#endif /* PRISM_TESTS_MASKED_ATOMIC_H */
