/* SPDX-License-Identifier: MIT */
/*
 * sim_atomic_math.c - the arithmetic of CAS, FETCH_ADD and the masked
 * (extended) atomics on 4, 8, 16 and 32 bytes.
 *
 * Owns: operand byte order and the operations.  8-byte operands follow the
 * host-endian mode that the mlx5 core driver configures
 * (atomic_req_8B_endianness_mode): the target's 8 bytes are a host-order
 * integer.  4-, 16- and 32-byte masked operands are big-endian in memory
 * (network order).  Operands always arrive as their WQE bytes (big-endian).
 *
 * Masked CAS: if ((target ^ compare) & compare_mask) == 0 then
 *   target = (target & ~swap_mask) | (swap & swap_mask).
 * Masked FETCH_ADD: swap = the addend, swap_mask = field boundaries (a set
 * bit marks the most significant bit of a field; no carry crosses it).
 *
 * The 8-byte CAS / FETCH_ADD, the hash chains' one atomic, is
 * sim_atomic_apply in sim_internal.h (inline in the responder); it calls
 * sim_atomic_apply_limbs here for the rest.
 *
 * Must not: check keys, bounds or alignment (the responder does first).
 */
#include <endian.h>

#include "sim/sim_internal.h"

#define LIMBS 4 /* 32 bytes */

/* Big-endian bytes -> little-endian limbs (limb 0 = least significant). */
static void to_limbs(const uint8_t *b, unsigned size, uint64_t *l)
{
	if (size == 4) {
		l[0] = get_be32(b);
		return;
	}
	for (unsigned k = 0; k < size / 8; k++)
		l[k] = get_be64(b + size - 8 * (k + 1));
}

static void from_limbs(const uint64_t *l, unsigned size, uint8_t *b)
{
	if (size == 4) {
		put_be32(b, (uint32_t)l[0]);
		return;
	}
	for (unsigned k = 0; k < size / 8; k++)
		put_be64(b + size - 8 * (k + 1), l[k]);
}

/* The target as limbs: host order for 8 bytes, big-endian otherwise. */
static void target_load(const uint8_t *t, unsigned size, uint64_t *l)
{
	if (size == 8)
		memcpy(&l[0], t, 8);
	else
		to_limbs(t, size, l);
}

static void target_store(uint8_t *t, unsigned size, const uint64_t *l)
{
	if (size == 8)
		memcpy(t, &l[0], 8);
	else
		from_limbs(l, size, t);
}

/*
 * a + b where no carry leaves a bit set in @boundary: clear the boundary
 * bits, add (carries stop at the cleared MSBs), then put the MSBs back as
 * a ^ b ^ carry-in, which the addition already left at those positions.
 */
uint64_t sim_masked_add64(uint64_t a, uint64_t b, uint64_t boundary)
{
	uint64_t low = (a & ~boundary) + (b & ~boundary);

	return low ^ ((a ^ b) & boundary);
}

static void masked_add(unsigned size, uint64_t *t, const uint64_t *add, const uint64_t *bnd)
{
	unsigned n = size == 4 ? 1 : size / 8;
	uint64_t carry = 0;

	for (unsigned k = 0; k < n; k++) {
		uint64_t b = bnd[k], top = size == 4 ? (1ull << 31) : (1ull << 63);
		uint64_t a0 = t[k], b0 = add[k];
		uint64_t low = (a0 & ~b) + (b0 & ~b);
		uint64_t sum = low + carry;
		uint64_t r = sum ^ ((a0 ^ b0) & b);
		bool out;

		/* carry out of the limb: only when its top bit is not a boundary */
		if (size == 4) {
			out = false;
			r &= 0xffffffffull;
		} else if (b & top) {
			out = false;
		} else {
			out = low < (a0 & ~b) || sum < low;
		}
		t[k] = r;
		carry = out;
	}
}

void sim_atomic_apply_limbs(uint8_t opcode, unsigned size, const uint8_t *target,
                            const uint8_t *swap, const uint8_t *compare, const uint8_t *swap_mask,
                            const uint8_t *compare_mask, uint8_t *orig, uint8_t *result)
{
	uint64_t t[LIMBS], s[LIMBS], c[LIMBS], sm[LIMBS], cm[LIMBS];
	unsigned n = size == 4 ? 1 : size / 8;
	bool eq = true;

	memset(t, 0, sizeof(t));
	memset(s, 0, sizeof(s));
	memset(c, 0, sizeof(c));
	memset(sm, 0, sizeof(sm));
	memset(cm, 0, sizeof(cm));
	memcpy(orig, target, size);
	target_load(target, size, t);
	to_limbs(swap, size, s);
	to_limbs(compare, size, c);
	to_limbs(swap_mask, size, sm);
	to_limbs(compare_mask, size, cm);
	switch (opcode) {
	case PRISM_OP_ATOMIC_CS:
		if (t[0] == c[0])
			t[0] = s[0];
		break;
	case PRISM_OP_ATOMIC_FA:
		t[0] += s[0];
		break;
	case PRISM_OP_ATOMIC_MASKED_CS:
		for (unsigned k = 0; k < n; k++)
			eq = eq && ((t[k] ^ c[k]) & cm[k]) == 0;
		if (eq)
			for (unsigned k = 0; k < n; k++)
				t[k] = (t[k] & ~sm[k]) | (s[k] & sm[k]);
		break;
	case PRISM_OP_ATOMIC_MASKED_FA:
		masked_add(size, t, s, sm);
		break;
	default:
		break;
	}
	target_store(result, size, t);
}
