/* SPDX-License-Identifier: MIT */
/*
 * tests/hw/test_hw_atomics.c - NIC-model rules for atomics on a real RDMA
 * device: 8-byte CAS and FETCH_ADD in host-endian mode (the mlx5 core driver
 * sets atomic_req_8B_endianness_mode to host order, so the target's 8 bytes
 * are a host-order integer, and RedN's conditional compares a control
 * segment's first 8 bytes read that way), and the mlx5 extended (masked)
 * atomics.  Operands in the WQE are big-endian (the codec writes them).
 * One test per rule of docs/nic-model.md, named after the rule (hw_<rule>).
 */
#include <byteswap.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests/hw/hw_common.h"

#define DST(e) ((uintptr_t)(e)->dst)

/* result lands here (in dst, away from the targets) */
#define RESULT_OFF 1024

static uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void store64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* Runs one atomic from a to the word at dst + @off; returns its CQE. */
static struct prism_cqe run_atomic(struct hw_env *e, struct prism_wqe *w)
{
	struct prism_cqe c;

	hw_post(&e->a, w);
	hw_ring(&e->a);
	c = hw_expect(&e->a.scq);
	if (c.opcode != PRISM_CQE_REQ)
		fail_msg("%s completed as %s %s", prism_opcode_name(w->ctrl.opcode),
		         prism_cqe_opcode_name(c.opcode), hw_synd_name(c.syndrome));
	return c;
}

static void ctrl_bytes(uint8_t opcode, uint32_t qpn, uint8_t *out16)
{
	struct prism_ctrl_seg c = {.opcode = opcode, .wqe_index = 5, .qpn = qpn, .ds = 3};

	prism_ctrl_seg_pack(&c, out16);
}

/* rule cas-swaps-on-equal: CAS stores swap iff target == compare, and
 * returns the old value either way */
static void hw_cas_swaps_on_equal(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_ATOMIC, NULL);
	struct prism_wqe w;

	store64(e->dst, 5);
	hw_atomic(&w, PRISM_OP_ATOMIC_CS, DST(e), e->dst_mr->rkey, 9, 5, DST(e) + RESULT_OFF,
	          e->dst_mr->lkey, true);
	run_atomic(e, &w);
	assert_int_equal(load64(e->dst), 9);
	assert_int_equal(load64(e->dst + RESULT_OFF), 5);
	hw_atomic(&w, PRISM_OP_ATOMIC_CS, DST(e), e->dst_mr->rkey, 1, 5, DST(e) + RESULT_OFF,
	          e->dst_mr->lkey, true);
	run_atomic(e, &w);
	assert_int_equal(load64(e->dst), 9); /* compare failed: unchanged */
	assert_int_equal(load64(e->dst + RESULT_OFF), 9);
}

/* rule fetch-add-adds: FETCH_ADD adds and returns the old value (wraps mod 2^64) */
static void hw_fetch_add_adds(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_ATOMIC, NULL);
	struct prism_wqe w;

	store64(e->dst, UINT64_MAX);
	hw_atomic(&w, PRISM_OP_ATOMIC_FA, DST(e), e->dst_mr->rkey, 3, 0, DST(e) + RESULT_OFF,
	          e->dst_mr->lkey, true);
	run_atomic(e, &w);
	assert_int_equal(load64(e->dst), 2);
	assert_int_equal(load64(e->dst + RESULT_OFF), UINT64_MAX);
}

/*
 * rule atomic-8b-host-endian: an 8-byte atomic treats the target as a
 * host-order integer (mlx5 core: atomic_req_8B_endianness_mode = host) while
 * the WQE carries its operands big-endian.  Checked three ways: FETCH_ADD's
 * carry out of the low 32 bits lands in the high word; CAS with the
 * byte-swapped compare value (what a big-endian reading would need) does not
 * match; and RedN's conditional: the target is a NOP control segment,
 * compare = its first 8 bytes read as a host integer, swap = a WRITE control
 * segment's first 8 bytes, which then replace the NOP's.
 */
static void hw_atomic_8b_host_endian(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_ATOMIC, NULL);
	uint64_t host = 0x01020304ffffffffull, nop64, wr64;
	uint8_t nop[16], wr[16];
	struct prism_wqe w;

	store64(e->dst, host);
	hw_atomic(&w, PRISM_OP_ATOMIC_FA, DST(e), e->dst_mr->rkey, 1, 0, DST(e) + RESULT_OFF,
	          e->dst_mr->lkey, true);
	run_atomic(e, &w);
	assert_int_equal(load64(e->dst), host + 1);
	assert_int_equal(load64(e->dst + RESULT_OFF), host);

	ctrl_bytes(PRISM_OP_NOP, 0x123456, nop);
	ctrl_bytes(PRISM_OP_RDMA_WRITE, 0x123456, wr);
	nop64 = load64(nop);
	wr64 = load64(wr);
	memcpy(e->dst + 64, nop, 16);
	hw_atomic(&w, PRISM_OP_ATOMIC_CS, DST(e) + 64, e->dst_mr->rkey, wr64, bswap_64(nop64),
	          DST(e) + RESULT_OFF, e->dst_mr->lkey, true);
	run_atomic(e, &w);
	assert_memory_equal(e->dst + 64, nop, 16);
	assert_int_equal(load64(e->dst + RESULT_OFF), nop64);

	hw_atomic(&w, PRISM_OP_ATOMIC_CS, DST(e) + 64, e->dst_mr->rkey, wr64, nop64,
	          DST(e) + RESULT_OFF, e->dst_mr->lkey, true);
	run_atomic(e, &w);
	assert_memory_equal(e->dst + 64, wr, 8);
	assert_memory_equal(e->dst + 72, nop + 8, 8); /* only 8 bytes change */
	assert_int_equal(load64(e->dst + RESULT_OFF), nop64);
}

/* Extended atomics need an mlx5 device that reports them (QUERY_HCA_CAP). */
#define EXT_CMP_SWAP  (1u << 2) /* MLX5_ATOMIC_OPS_EXTENDED_CMP_SWAP */
#define EXT_FETCH_ADD (1u << 3) /* MLX5_ATOMIC_OPS_EXTENDED_FETCH_ADD */

/* Skips unless the device does extended atomics of @op_bit on at least one
 * of @sizes (bit n of the mask: 2^n bytes); returns the usable sizes. */
static unsigned need_masked(struct hw_env *e, unsigned op_bit, unsigned sizes)
{
	struct hw_mlx5_caps caps;
	int rc = hw_mlx5_query_caps(e, &caps);

	if (rc == -ENODEV)
		HW_SKIP("needs an mlx5 device: masked atomics");
	if (rc)
		HW_SKIP("%s: cannot read the atomic capabilities through DEVX "
		        "(QUERY_HCA_CAP): %s",
		        e->name, strerror(-rc));
	if (!(caps.atomic_ops & op_bit))
		HW_SKIP("%s does not support extended %s (atomic_operations 0x%x)", e->name,
		        op_bit == EXT_CMP_SWAP ? "compare-and-swap" : "fetch-and-add",
		        caps.atomic_ops);
	if (!(caps.atomic_size_qp & sizes))
		HW_SKIP("%s: none of the operand sizes 0x%x on RC QPs (atomic_size_qp 0x%x)",
		        e->name, sizes, caps.atomic_size_qp);
	for (unsigned n = 4; n <= 32; n *= 2)
		if ((sizes & n) && !(caps.atomic_size_qp & n))
			print_message(
			    "hw: %s: no %u-byte masked atomics; that size is not tested\n", e->name,
			    n);
	return caps.atomic_size_qp & sizes;
}

/*
 * One masked atomic of @size bytes on dst[0, size), the old value to
 * dst + RESULT_OFF.  Operands are given as their big-endian bytes (as the
 * conformance test gives them); NULL compare operands for FETCH_ADD.
 */
static void masked_run(struct hw_env *e, uint8_t opcode, unsigned size, const uint8_t *swap,
                       const uint8_t *cmp, const uint8_t *smask, const uint8_t *cmask)
{
	struct prism_atomic_seg *a;
	struct prism_wqe w;

	hw_atomic(&w, opcode, DST(e), e->dst_mr->rkey, 0, 0, DST(e) + RESULT_OFF, e->dst_mr->lkey,
	          true);
	w.sge[0].byte_count = size;
	a = &w.atomic;
	a->size = (uint8_t)size;
	if (size <= 8) {
		const uint8_t *src[4] = {swap, cmp, smask, cmask};
		uint64_t v[4] = {0};

		for (int k = 0; k < 4; k++)
			for (unsigned i = 0; src[k] && i < size; i++)
				v[k] = v[k] << 8 | src[k][i];
		a->swap = v[0];
		a->compare = v[1];
		a->swap_mask = v[2];
		a->compare_mask = v[3];
	} else {
		memcpy(a->swap_bytes, swap, size);
		memcpy(a->swap_mask_bytes, smask, size);
		if (cmp)
			memcpy(a->compare_bytes, cmp, size);
		if (cmask)
			memcpy(a->compare_mask_bytes, cmask, size);
	}
	run_atomic(e, &w);
}

/*
 * rule masked-cas-compares-under-mask: masked CAS compares only the
 * compare_mask bits and swaps only the swap_mask bits, for 4/16/32-byte
 * big-endian operands (the conformance test's cases), plus the 8-byte case
 * whose target is a host-order integer; the old value comes back.
 */
static void hw_masked_cas_compares_under_mask(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_RAW, NULL);
	unsigned sizes = need_masked(e, EXT_CMP_SWAP, 4 | 8 | 16 | 32);

	for (unsigned n = 4; n <= 32; n *= 2) {
		uint8_t swap[32], cmp[32], sm[32], cm[32], before[32], expect[32];

		if (!(sizes & n) || n == 8)
			continue;
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
		assert_memory_equal(e->dst + RESULT_OFF, before, n);
		/* a mismatch inside the mask leaves the target alone */
		cmp[1] ^= 1;
		masked_run(e, PRISM_OP_ATOMIC_MASKED_CS, n, swap, cmp, sm, cm);
		assert_memory_equal(e->dst, expect, n);
	}
	if (sizes & 8) {
		/* host-order target: compare the low 32 bits, swap the top and
		 * bottom bytes (operands as big-endian bytes of the integers) */
		static const uint8_t cmp8[8] = {0x99, 0x99, 0x99, 0x99, 0x55, 0x66, 0x77, 0x88};
		static const uint8_t cm8[8] = {0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
		static const uint8_t swap8[8] = {0xaa, 0, 0, 0, 0, 0, 0, 0xbb};
		static const uint8_t sm8[8] = {0xff, 0, 0, 0, 0, 0, 0, 0xff};

		store64(e->dst, 0x1122334455667788ull);
		masked_run(e, PRISM_OP_ATOMIC_MASKED_CS, 8, swap8, cmp8, sm8, cm8);
		assert_int_equal(load64(e->dst), 0xaa223344556677bbull);
		assert_int_equal(load64(e->dst + RESULT_OFF), 0x1122334455667788ull);
	}
}

/* rule masked-fa-field-boundaries: masked FETCH_ADD adds per field; no
 * carry crosses a boundary bit (the field's most significant bit) */
static void hw_masked_fa_field_boundaries(void **state)
{
	static const uint8_t add[8] = {0, 0, 0, 1, 0, 0, 0, 1}; /* +1 in each 32-bit half */
	static const uint8_t bnd[8] = {0x80, 0, 0, 0, 0x80, 0, 0, 0};
	struct hw_env *e = hw_start(state, HW_NEED_RAW, NULL);
	unsigned sizes = need_masked(e, EXT_FETCH_ADD, 8 | 16);
	uint8_t add16[16] = {0}, bnd16[16] = {0}, t16[16], want16[16];

	if (sizes & 8) {
		/* 8 bytes (host-endian target): the low half wraps, the high
		 * half gets its own +1, not the carry */
		store64(e->dst, 0x00000000ffffffffull);
		masked_run(e, PRISM_OP_ATOMIC_MASKED_FA, 8, add, NULL, bnd, NULL);
		assert_int_equal(load64(e->dst), 0x0000000100000000ull);
		assert_int_equal(load64(e->dst + RESULT_OFF), 0x00000000ffffffffull);
	}
	if (sizes & 16) {
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
		assert_memory_equal(e->dst + RESULT_OFF, t16, 16);
	}
}

/* rule atomic-alignment: a misaligned atomic fails with a remote invalid
 * request error; the QP moves to ERR */
static void hw_atomic_alignment(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_ATOMIC, NULL);
	struct prism_wqe w;
	struct prism_cqe c;

	hw_atomic(&w, PRISM_OP_ATOMIC_CS, DST(e) + 4, e->dst_mr->rkey, 1, 0, DST(e) + RESULT_OFF,
	          e->dst_mr->lkey, true);
	hw_post(&e->a, &w);
	hw_ring(&e->a);
	c = hw_expect(&e->a.scq);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_REMOTE_INVAL_REQ_ERR);
	assert_int_equal(hw_qp_state(&e->a), IBV_QPS_ERR);
}

/* rule atomic-needs-remote-atomic-access: an MR without REMOTE_ATOMIC
 * gives a remote access error */
static void hw_atomic_needs_remote_atomic_access(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_ATOMIC, NULL);
	struct ibv_mr *mr =
	    hw_reg(e, e->dst + 4096, 64,
	           IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	struct prism_wqe w;
	struct prism_cqe c;

	hw_atomic(&w, PRISM_OP_ATOMIC_FA, DST(e) + 4096, mr->rkey, 1, 0, DST(e) + RESULT_OFF,
	          e->dst_mr->lkey, true);
	hw_post(&e->a, &w);
	hw_ring(&e->a);
	c = hw_expect(&e->a.scq);
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_REMOTE_ACCESS_ERR);
	assert_int_equal(e->dst[4096], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(hw_cas_swaps_on_equal, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_fetch_add_adds, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_atomic_8b_host_endian, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_masked_cas_compares_under_mask, hw_setup,
	                                    hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_masked_fa_field_boundaries, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_atomic_alignment, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_atomic_needs_remote_atomic_access, hw_setup,
	                                    hw_teardown),
	};

	return cmocka_run_group_tests_name("test_hw_atomics", tests, NULL, NULL);
}
