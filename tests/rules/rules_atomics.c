/* SPDX-License-Identifier: MIT */
/*
 * tests/rules/rules_atomics.c - NIC-model rules for the atomics (section 2
 * of docs/nic-model.md): CAS, FETCH_ADD, the 8-byte host-endian mode, the
 * masked atomics of 4/8/16/32 bytes, alignment and the REMOTE_ATOMIC right.
 * One body per rule, on every backend (rules.h).
 */
#include "tests/rules/rules.h"
#include "tests/support/masked_atomic.h"

static void run_one(struct rx *x, struct prism_wqe *w)
{
	rx_post(&x->a, w);
	rx_ring(x, &x->a);
	RX_RUN(x);
}

/* rule cas-swaps-on-equal: CAS stores swap iff target == compare, and
 * returns the old value either way */
static void r_cas_swaps_on_equal(struct rx *x)
{
	uint64_t *t = (uint64_t *)x->dst, *old = (uint64_t *)(x->dst + 64);
	struct prism_wqe w;

	*t = 5;
	hx_atomic(&w, PRISM_OP_ATOMIC_CS, (uintptr_t)t, x->dst_key, 9, 5, (uintptr_t)old,
	          x->dst_key, true);
	run_one(x, &w);
	assert_int_equal(*t, 9);
	assert_int_equal(*old, 5);
	assert_int_equal(rx_expect(x, &x->cq_a).opcode, PRISM_CQE_REQ);
	hx_atomic(&w, PRISM_OP_ATOMIC_CS, (uintptr_t)t, x->dst_key, 1, 5, (uintptr_t)old,
	          x->dst_key, true);
	run_one(x, &w);
	assert_int_equal(*t, 9); /* compare failed: unchanged */
	assert_int_equal(*old, 9);
}

/* rule fetch-add-adds: FETCH_ADD adds and returns the old value (wraps mod 2^64) */
static void r_fetch_add_adds(struct rx *x)
{
	uint64_t *t = (uint64_t *)x->dst, *old = (uint64_t *)(x->dst + 64);
	struct prism_wqe w;

	*t = UINT64_MAX;
	hx_atomic(&w, PRISM_OP_ATOMIC_FA, (uintptr_t)t, x->dst_key, 3, 0, (uintptr_t)old,
	          x->dst_key, true);
	run_one(x, &w);
	assert_int_equal(*t, 2);
	assert_int_equal(*old, UINT64_MAX);
}

/* rule atomic-8b-host-endian: an 8-byte atomic treats the target as a
 * host-order integer (mlx5 core: atomic_req_8B_endianness_mode = host),
 * while the WQE carries its operands big-endian */
static void r_atomic_8b_host_endian(struct rx *x)
{
	uint8_t *t = x->dst;
	uint64_t *old = (uint64_t *)(x->dst + 64);
	uint64_t host = 0x0102030405060708ull;
	struct prism_wqe w;
	uint8_t wqe[64];

	memcpy(t, &host, 8);
	hx_atomic(&w, PRISM_OP_ATOMIC_FA, (uintptr_t)t, x->dst_key, 1, 0, (uintptr_t)old,
	          x->dst_key, true);
	/* the operand is big-endian in the WQE bytes */
	w.ctrl.wqe_index = (uint16_t)x->a.pi;
	w.ctrl.qpn = x->a.qpn;
	assert_true(prism_wqe_encode(&w, wqe, sizeof(wqe), NULL) > 0);
	assert_int_equal(wqe[32 + 7], 1);
	run_one(x, &w);
	host += 1;
	assert_memory_equal(t, &host, 8); /* host order, +1 in the low byte */
}

static void masked_run(struct rx *x, uint8_t opcode, unsigned size, const uint8_t *swap,
                       const uint8_t *cmp, const uint8_t *smask, const uint8_t *cmask)
{
	struct prism_wqe w;
	struct prism_cqe c;

	hx_rw(&w, opcode, (uintptr_t)x->dst, x->dst_key, (uintptr_t)x->dst + 1024, x->dst_key, size,
	      true);
	w.ctrl.opmod = masked_atomic_opmod(size);
	masked_atomic_fill(&w, size, swap, cmp, smask, cmask);
	run_one(x, &w);
	c = rx_expect(x, &x->cq_a);
	assert_int_equal(c.syndrome, 0);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
}

/* rule masked-cas-compares-under-mask: masked CAS compares only the
 * compare_mask bits and swaps only the swap_mask bits, for 4/16/32-byte
 * big-endian operands */
static void r_masked_cas_compares_under_mask(struct rx *x)
{
	static const unsigned sizes[] = {4, 16, 32};

	for (unsigned s = 0; s < 3; s++) {
		unsigned n = sizes[s];
		uint8_t swap[32], cmp[32], sm[32], cm[32], before[32], expect[32];

		for (unsigned i = 0; i < n; i++) {
			before[i] = (uint8_t)(0xa0 + i);
			swap[i] = 0xff;
			cmp[i] = before[i] ^ (i == 0 ? 0x0f : 0); /* differs outside the mask */
			cm[i] = i == 0 ? 0xf0 : 0xff;
			sm[i] = i == n - 1 ? 0xff : 0; /* swap only the last byte */
		}
		memcpy(x->dst, before, n);
		memcpy(expect, before, n);
		expect[n - 1] = 0xff;
		masked_run(x, PRISM_OP_ATOMIC_MASKED_CS, n, swap, cmp, sm, cm);
		assert_memory_equal(x->dst, expect, n);
		assert_memory_equal(x->dst + 1024, before, n); /* old value returned */
		/* a mismatch inside the mask leaves the target alone */
		cmp[1] ^= 1;
		masked_run(x, PRISM_OP_ATOMIC_MASKED_CS, n, swap, cmp, sm, cm);
		assert_memory_equal(x->dst, expect, n);
	}
}

/* rule masked-fa-field-boundaries: masked FETCH_ADD adds per field; no
 * carry crosses a boundary bit (the field's most significant bit) */
static void r_masked_fa_field_boundaries(struct rx *x)
{
	uint64_t host = 0x00000000ffffffffull, *t = (uint64_t *)x->dst;
	uint8_t add[8] = {0, 0, 0, 1, 0, 0, 0, 1}; /* +1 in each 32-bit half */
	uint8_t bnd[8] = {0x80, 0, 0, 0, 0x80, 0, 0, 0};
	uint8_t add16[16] = {0}, bnd16[16] = {0}, t16[16], want16[16];

	/* 8 bytes (host-endian target): the low half wraps, the high half
	 * gets its own +1, not the carry */
	memcpy(t, &host, 8);
	masked_run(x, PRISM_OP_ATOMIC_MASKED_FA, 8, add, NULL, bnd, NULL);
	assert_int_equal(*t, 0x0000000100000000ull);
	/* 16 bytes big-endian, one field: the carry crosses the 64-bit limb */
	memset(t16, 0, 16);
	memset(t16 + 8, 0xff, 8);
	add16[15] = 1;
	bnd16[0] = 0x80;
	memcpy(x->dst, t16, 16);
	memset(want16, 0, 16);
	want16[7] = 1;
	masked_run(x, PRISM_OP_ATOMIC_MASKED_FA, 16, add16, NULL, bnd16, NULL);
	assert_memory_equal(x->dst, want16, 16);
}

/* rule atomic-alignment: a misaligned atomic fails with a remote invalid
 * request error; the QP moves to ERR */
static void r_atomic_alignment(struct rx *x)
{
	struct prism_wqe w;
	struct prism_cqe c;

	hx_atomic(&w, PRISM_OP_ATOMIC_CS, (uintptr_t)x->dst + 4, x->dst_key, 1, 0,
	          (uintptr_t)x->dst + 64, x->dst_key, true);
	run_one(x, &w);
	c = rx_expect(x, &x->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_REMOTE_INVAL_REQ_ERR);
	assert_true(rx_in_err(x, &x->a));
}

/* rule atomic-needs-remote-atomic-access: an MR without REMOTE_ATOMIC
 * gives a remote access error */
static void r_atomic_needs_remote_atomic_access(struct rx *x)
{
	uint8_t *buf = rx_buf(x, 64);
	uint32_t key = rx_key(x, buf, 64, RX_RW);
	struct prism_wqe w;
	struct prism_cqe c;

	hx_atomic(&w, PRISM_OP_ATOMIC_FA, (uintptr_t)buf, key, 1, 0, (uintptr_t)x->dst, x->dst_key,
	          true);
	run_one(x, &w);
	c = rx_expect(x, &x->cq_a);
	assert_int_equal(c.syndrome, PRISM_SYND_REMOTE_ACCESS_ERR);
	assert_int_equal(buf[0], 0);
}

static const struct rule rules[] = {
    RULE("2.7", "cas-swaps-on-equal", r_cas_swaps_on_equal),
    RULE("2.8", "fetch-add-adds", r_fetch_add_adds),
    RULE("2.9", "atomic-8b-host-endian", r_atomic_8b_host_endian),
    RULE("2.10", "masked-cas-compares-under-mask", r_masked_cas_compares_under_mask,
         .needs = RULE_NEEDS_MASKED),
    RULE("2.11", "masked-fa-field-boundaries", r_masked_fa_field_boundaries,
         .needs = RULE_NEEDS_MASKED),
    RULE("2.12", "atomic-alignment", r_atomic_alignment),
    RULE("2.13", "atomic-needs-remote-atomic-access", r_atomic_needs_remote_atomic_access),
};
RULE_TABLE(rules_atomics, rules);
