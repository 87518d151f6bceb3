/* SPDX-License-Identifier: MIT */
/*
 * tests/conformance/conf_atomics.c - NIC-model rules for CAS, FETCH_ADD and
 * the masked atomics (4/8/16/32 bytes), host-endian 8-byte mode, and
 * atomic alignment.  One test per rule, named after it.
 */
#include "tests/conformance/conf_env.h"

static int setup(void **state)
{
	*state = env_make(SIM_FW_STRICT, SIM_HAZARD_WARN, false, 0, 0);
	return 0;
}

static void run_one(struct env *e, struct prism_wqe *w)
{
	hx_post(&e->a, w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
}

/* rule cas-swaps-on-equal: CAS stores swap iff target == compare, and
 * returns the old value either way */
static void test_cas_swaps_on_equal(void **state)
{
	struct env *e = *state;
	uint64_t *t = (uint64_t *)e->dst, *old = (uint64_t *)(e->dst + 64);
	struct prism_wqe w;

	*t = 5;
	hx_atomic(&w, PRISM_OP_ATOMIC_CS, (uintptr_t)t, e->dst_key, 9, 5, (uintptr_t)old,
	          e->dst_key, true);
	run_one(e, &w);
	assert_int_equal(*t, 9);
	assert_int_equal(*old, 5);
	assert_int_equal(hx_expect(&e->cq_a).opcode, PRISM_CQE_REQ);
	hx_atomic(&w, PRISM_OP_ATOMIC_CS, (uintptr_t)t, e->dst_key, 1, 5, (uintptr_t)old,
	          e->dst_key, true);
	run_one(e, &w);
	assert_int_equal(*t, 9); /* compare failed: unchanged */
	assert_int_equal(*old, 9);
}

/* rule fetch-add-adds: FETCH_ADD adds and returns the old value (wraps mod 2^64) */
static void test_fetch_add_adds(void **state)
{
	struct env *e = *state;
	uint64_t *t = (uint64_t *)e->dst, *old = (uint64_t *)(e->dst + 64);
	struct prism_wqe w;

	*t = UINT64_MAX;
	hx_atomic(&w, PRISM_OP_ATOMIC_FA, (uintptr_t)t, e->dst_key, 3, 0, (uintptr_t)old,
	          e->dst_key, true);
	run_one(e, &w);
	assert_int_equal(*t, 2);
	assert_int_equal(*old, UINT64_MAX);
}

/* rule atomic-8b-host-endian: an 8-byte atomic treats the target as a
 * host-order integer (mlx5 core: atomic_req_8B_endianness_mode = host),
 * while the WQE carries its operands big-endian */
static void test_atomic_8b_host_endian(void **state)
{
	struct env *e = *state;
	uint8_t *t = e->dst;
	uint64_t *old = (uint64_t *)(e->dst + 64);
	uint64_t host = 0x0102030405060708ull;
	struct prism_wqe w;
	uint8_t wqe[64];

	memcpy(t, &host, 8);
	hx_atomic(&w, PRISM_OP_ATOMIC_FA, (uintptr_t)t, e->dst_key, 1, 0, (uintptr_t)old,
	          e->dst_key, true);
	/* the operand is big-endian in the WQE bytes */
	w.ctrl.wqe_index = (uint16_t)e->a.sq_pi;
	w.ctrl.qpn = e->a.qpn;
	assert_true(prism_wqe_encode(&w, wqe, sizeof(wqe), NULL) > 0);
	assert_int_equal(wqe[32 + 7], 1);
	run_one(e, &w);
	host += 1;
	assert_memory_equal(t, &host, 8); /* host order, +1 in the low byte */
}

static void masked_run(struct env *e, uint8_t opcode, unsigned size, const uint8_t *swap,
                       const uint8_t *cmp, const uint8_t *smask, const uint8_t *cmask)
{
	struct prism_wqe w;
	unsigned lg = size == 4 ? 2 : size == 8 ? 3 : size == 16 ? 4 : 5;
	struct prism_atomic_seg *a = &w.atomic;
	struct prism_cqe c;

	hx_rw(&w, opcode, (uintptr_t)e->dst, e->dst_key, (uintptr_t)e->dst + 1024, e->dst_key, size,
	      true);
	w.ctrl.opmod = (uint8_t)PRISM_MASKED_OPMOD(lg);
	w.has_atomic = true;
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
	run_one(e, &w);
	c = hx_expect(&e->cq_a);
	assert_int_equal(c.syndrome, 0);
	assert_int_equal(c.opcode, PRISM_CQE_REQ);
}

/* rule masked-cas-compares-under-mask: masked CAS compares only the
 * compare_mask bits and swaps only the swap_mask bits, for 4/16/32-byte
 * big-endian operands */
static void test_masked_cas_compares_under_mask(void **state)
{
	struct env *e = *state;
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
		memcpy(e->dst, before, n);
		memcpy(expect, before, n);
		expect[n - 1] = 0xff;
		masked_run(e, PRISM_OP_ATOMIC_MASKED_CS, n, swap, cmp, sm, cm);
		assert_memory_equal(e->dst, expect, n);
		assert_memory_equal(e->dst + 1024, before, n); /* old value returned */
		/* a mismatch inside the mask leaves the target alone */
		cmp[1] ^= 1;
		masked_run(e, PRISM_OP_ATOMIC_MASKED_CS, n, swap, cmp, sm, cm);
		assert_memory_equal(e->dst, expect, n);
	}
}

/* rule masked-fa-field-boundaries: masked FETCH_ADD adds per field; no
 * carry crosses a boundary bit (the field's most significant bit) */
static void test_masked_fa_field_boundaries(void **state)
{
	struct env *e = *state;
	uint64_t host = 0x00000000ffffffffull, *t = (uint64_t *)e->dst;
	uint8_t add[8] = {0, 0, 0, 1, 0, 0, 0, 1}; /* +1 in each 32-bit half */
	uint8_t bnd[8] = {0x80, 0, 0, 0, 0x80, 0, 0, 0};
	uint8_t add16[16] = {0}, bnd16[16] = {0}, t16[16], want16[16];

	/* 8 bytes (host-endian target): the low half wraps, the high half
	 * gets its own +1, not the carry */
	memcpy(t, &host, 8);
	masked_run(e, PRISM_OP_ATOMIC_MASKED_FA, 8, add, NULL, bnd, NULL);
	assert_int_equal(*t, 0x0000000100000000ull);
	/* 16 bytes big-endian, one field: the carry crosses the 64-bit limb */
	memset(t16, 0, 16);
	memset(t16 + 8, 0xff, 8);
	add16[15] = 1;
	bnd16[0] = 0x80;
	memcpy(e->dst, t16, 16);
	memset(want16, 0, 16);
	want16[7] = 1;
	masked_run(e, PRISM_OP_ATOMIC_MASKED_FA, 16, add16, NULL, bnd16, NULL);
	assert_memory_equal(e->dst, want16, 16);
}

/* rule atomic-alignment: a misaligned atomic fails with a remote invalid
 * request error; the QP moves to ERR */
static void test_atomic_alignment(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	struct prism_cqe c;

	hx_atomic(&w, PRISM_OP_ATOMIC_CS, (uintptr_t)e->dst + 4, e->dst_key, 1, 0,
	          (uintptr_t)e->dst + 64, e->dst_key, true);
	run_one(e, &w);
	c = hx_expect(&e->cq_a);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_REMOTE_INVAL_REQ_ERR);
	assert_int_equal(sim_qp_state(e->a.qp), SIM_QPS_ERR);
}

/* rule atomic-needs-remote-atomic-access: an MR without REMOTE_ATOMIC
 * gives a remote access error */
static void test_atomic_needs_remote_atomic_access(void **state)
{
	struct env *e = *state;
	uint8_t buf[64] __attribute__((aligned(8))) = {0};
	uint32_t key = hx_key(e->dev, buf, sizeof(buf), CONF_RW);
	struct prism_wqe w;
	struct prism_cqe c;

	hx_atomic(&w, PRISM_OP_ATOMIC_FA, (uintptr_t)buf, key, 1, 0, (uintptr_t)e->dst, e->dst_key,
	          true);
	run_one(e, &w);
	c = hx_expect(&e->cq_a);
	assert_int_equal(c.syndrome, PRISM_SYND_REMOTE_ACCESS_ERR);
	assert_int_equal(buf[0], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_cas_swaps_on_equal, setup, env_teardown),
	    cmocka_unit_test_setup_teardown(test_fetch_add_adds, setup, env_teardown),
	    cmocka_unit_test_setup_teardown(test_atomic_8b_host_endian, setup, env_teardown),
	    cmocka_unit_test_setup_teardown(test_masked_cas_compares_under_mask, setup,
	                                    env_teardown),
	    cmocka_unit_test_setup_teardown(test_masked_fa_field_boundaries, setup, env_teardown),
	    cmocka_unit_test_setup_teardown(test_atomic_alignment, setup, env_teardown),
	    cmocka_unit_test_setup_teardown(test_atomic_needs_remote_atomic_access, setup,
	                                    env_teardown),
	};

	return cmocka_run_group_tests_name("conf_atomics", tests, NULL, NULL);
}
