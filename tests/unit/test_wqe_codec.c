/* SPDX-License-Identifier: MIT */
/*
 * test_wqe_codec.c - the WQE codec against rdma-core's own builders, golden
 * byte images, round trips of every opcode and field at its limits, and
 * the decoder's error paths, and the engine's lean decode against the
 * full one on random bytes.
 *
 * Owns: unit tests of runtime/wqe (send WQEs).  Receive WQEs, CQEs, field
 * offsets and the printer are in test_wqe_misc.c.
 */
#include <endian.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/mlx5dv.h>

#include <prism/wqe.h>

#include "wqe/wqe_lean.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Encode, decode, and check the decoded form equals the input. */
static int round_trip(const struct prism_wqe *in, uint8_t *buf, struct prism_wqe *out)
{
	struct prism_wqe_diag diag = {0};
	int n = prism_wqe_encode(in, buf, PRISM_WQE_MAX_BYTES, &diag);
	int m;

	if (n < 0)
		print_error("encode: %s: %s\n", prism_wqe_strerror(n), diag.msg);
	assert_true(n > 0);
	assert_int_equal(n % 16, 0);
	memset(out, 0xa5, sizeof(*out)); /* stale bytes must not matter */
	m = prism_wqe_decode(buf, (size_t)n, out, &diag);
	if (m < 0)
		print_error("decode: %s: %s\n", prism_wqe_strerror(m), diag.msg);
	assert_int_equal(m, n);
	assert_int_equal(out->ctrl.ds, n / 16);
	return n;
}

/* ---- the opcode table ---- */

static void test_opcode_table(void **state)
{
	static const struct {
		uint8_t value;
		const char *name;
		enum prism_seg_shape shape;
		enum prism_op_class cls;
	} want[] = {
	    {0x00, "NOP", PRISM_SHAPE_CTRL_ONLY, PRISM_CLASS_ORDERING},
	    {0x08, "RDMA_WRITE", PRISM_SHAPE_RADDR_DATA, PRISM_CLASS_COPY},
	    {0x09, "RDMA_WRITE_IMM", PRISM_SHAPE_RADDR_DATA, PRISM_CLASS_COPY},
	    {0x0a, "SEND", PRISM_SHAPE_DATA, PRISM_CLASS_COPY},
	    {0x0b, "SEND_IMM", PRISM_SHAPE_DATA, PRISM_CLASS_COPY},
	    {0x0f, "CQE_WAIT", PRISM_SHAPE_WAIT_ENABLE, PRISM_CLASS_ORDERING},
	    {0x10, "RDMA_READ", PRISM_SHAPE_RADDR_DATA, PRISM_CLASS_COPY},
	    {0x11, "ATOMIC_CS", PRISM_SHAPE_RADDR_ATOMIC, PRISM_CLASS_ATOMIC},
	    {0x12, "ATOMIC_FA", PRISM_SHAPE_RADDR_ATOMIC, PRISM_CLASS_ATOMIC},
	    {0x14, "ATOMIC_MASKED_CS", PRISM_SHAPE_RADDR_MASKED, PRISM_CLASS_ATOMIC},
	    {0x15, "ATOMIC_MASKED_FA", PRISM_SHAPE_RADDR_MASKED, PRISM_CLASS_ATOMIC},
	    {0x16, "RECV_ENABLE", PRISM_SHAPE_WAIT_ENABLE, PRISM_CLASS_ORDERING},
	    {0x17, "SEND_ENABLE", PRISM_SHAPE_WAIT_ENABLE, PRISM_CLASS_ORDERING},
	};
	unsigned i, known = 0;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		const struct prism_opcode_info *info = prism_opcode_info(want[i].value);

		assert_non_null(info);
		assert_string_equal(info->name, want[i].name);
		assert_string_equal(prism_opcode_name(want[i].value), want[i].name);
		assert_int_equal(info->value, want[i].value);
		assert_int_equal(info->shape, want[i].shape);
		assert_int_equal(info->cls, want[i].cls);
		assert_non_null(info->mnemonic);
	}
	for (i = 0; i < 256; i++)
		known += prism_opcode_info((uint8_t)i) != NULL;
	assert_int_equal(known, ARRAY_SIZE(want));
	assert_null(prism_opcode_info(0x01));
	assert_string_equal(prism_opcode_name(0xff), "UNKNOWN");
	assert_string_equal(prism_op_class_name(PRISM_CLASS_ATOMIC), "atomic");
	assert_string_equal(prism_op_class_name((enum prism_op_class)7), "?");
}

/* ---- byte-for-byte against rdma-core's builders ---- */

static void test_ctrl_matches_mlx5dv_set_ctrl_seg(void **state)
{
	static const struct prism_ctrl_seg cases[] = {
	    {.opcode = 0x08, .wqe_index = 1, .qpn = 0x12, .ds = 3, .fm_ce_se = 0x08},
	    {.opcode = 0x14,
	     .opmod = 0x09,
	     .wqe_index = 0xffff,
	     .qpn = 0xffffff,
	     .ds = 63,
	     .signature = 0xff,
	     .fm_ce_se = 0xff,
	     .imm = 0xffffffff},
	    {.opcode = 0x00, .wqe_index = 0x8001, .qpn = 0x800001, .ds = 1, .imm = 0x01020304},
	    {.opcode = 0x0f,
	     .opmod = 1,
	     .qpn = 0xabcdef,
	     .ds = 3,
	     .fm_ce_se = PRISM_FM_CE_SE(PRISM_FENCE_STRONG_ORDERING, PRISM_CE_CQ_UPDATE_EVENT, 1)},
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct prism_ctrl_seg *c = &cases[i];
		struct mlx5_wqe_ctrl_seg theirs;
		uint8_t ours[16];
		struct prism_ctrl_seg back;

		memset(&theirs, 0, sizeof(theirs));
		/* rdma-core takes imm already in wire order (a __be32). */
		mlx5dv_set_ctrl_seg(&theirs, c->wqe_index, c->opcode, c->opmod, c->qpn, c->fm_ce_se,
		                    c->ds, c->signature, htobe32(c->imm));
		prism_ctrl_seg_pack(c, ours);
		assert_memory_equal(ours, &theirs, 16);
		prism_ctrl_seg_unpack(&theirs, &back);
		assert_int_equal(back.opcode, c->opcode);
		assert_int_equal(back.opmod, c->opmod);
		assert_int_equal(back.wqe_index, c->wqe_index);
		assert_int_equal(back.qpn, c->qpn);
		assert_int_equal(back.ds, c->ds);
		assert_int_equal(back.signature, c->signature);
		assert_int_equal(back.dci_stream, c->dci_stream);
		assert_int_equal(back.fm_ce_se, c->fm_ce_se);
		assert_int_equal(back.imm, c->imm);
	}
}

static void test_write_matches_mlx5dv_builders(void **state)
{
	struct prism_wqe w = {0};
	uint8_t ours[PRISM_WQE_MAX_BYTES], theirs[64] = {0};
	struct mlx5_wqe_raddr_seg *raddr = (void *)(theirs + 16);
	int n;

	w.ctrl = (struct prism_ctrl_seg){.opcode = PRISM_OP_RDMA_WRITE,
	                                 .wqe_index = 7,
	                                 .qpn = 0x1234,
	                                 .fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE};
	w.raddr.raddr = 0x00007f0012345678ull;
	w.raddr.rkey = 0xdeadbeef;
	w.num_sge = 2;
	w.sge[0] = (struct prism_sge){.byte_count = 64, .lkey = 0x11, .addr = 0x1000};
	w.sge[1] = (struct prism_sge){.byte_count = 0x7fffffff, .lkey = 0x22, .addr = ~0ull};
	n = prism_wqe_encode(&w, ours, sizeof(ours), NULL);
	assert_int_equal(n, 64);

	mlx5dv_set_ctrl_seg((void *)theirs, 7, MLX5_OPCODE_RDMA_WRITE, 0, 0x1234,
	                    MLX5_WQE_CTRL_CQ_UPDATE, 4, 0, 0);
	raddr->raddr = htobe64(w.raddr.raddr);
	raddr->rkey = htobe32(w.raddr.rkey);
	mlx5dv_set_data_seg((void *)(theirs + 32), 64, 0x11, 0x1000);
	mlx5dv_set_data_seg((void *)(theirs + 48), 0x7fffffff, 0x22, UINTPTR_MAX);
	assert_memory_equal(ours, theirs, 64);
}

static void test_cas_matches_mlx5dv_structs(void **state)
{
	struct prism_wqe w = {0};
	uint8_t ours[PRISM_WQE_MAX_BYTES], theirs[64] = {0};
	struct mlx5_wqe_raddr_seg *raddr = (void *)(theirs + 16);
	struct mlx5_wqe_atomic_seg *aseg = (void *)(theirs + 32);

	w.ctrl = (struct prism_ctrl_seg){.opcode = PRISM_OP_ATOMIC_CS,
	                                 .wqe_index = 4,
	                                 .qpn = 0x11,
	                                 .fm_ce_se = MLX5_WQE_CTRL_FENCE | MLX5_WQE_CTRL_CQ_UPDATE};
	w.raddr = (struct prism_raddr_seg){.raddr = 0x2000, .rkey = 5};
	w.atomic = (struct prism_atomic_seg){
	    .size = 8, .swap = 0x0102030405060708ull, .compare = 0x1112131415161718ull};
	w.num_sge = 1;
	w.sge[0] = (struct prism_sge){.byte_count = 8, .lkey = 9, .addr = 0x3000};
	assert_int_equal(prism_wqe_encode(&w, ours, sizeof(ours), NULL), 64);

	mlx5dv_set_ctrl_seg((void *)theirs, 4, MLX5_OPCODE_ATOMIC_CS, 0, 0x11,
	                    MLX5_WQE_CTRL_FENCE | MLX5_WQE_CTRL_CQ_UPDATE, 4, 0, 0);
	raddr->raddr = htobe64(0x2000);
	raddr->rkey = htobe32(5);
	aseg->swap_add = htobe64(w.atomic.swap);
	aseg->compare = htobe64(w.atomic.compare);
	mlx5dv_set_data_seg((void *)(theirs + 48), 8, 9, 0x3000);
	assert_memory_equal(ours, theirs, 64);
}

static void test_inline_matches_mlx5dv_layout(void **state)
{
	struct prism_wqe w = {0};
	uint8_t ours[PRISM_WQE_MAX_BYTES];
	struct mlx5_wqe_inl_data_seg inl;
	int n;

	w.ctrl.opcode = PRISM_OP_SEND;
	w.is_inline = true;
	w.inline_len = 13;
	memcpy(w.inline_data, "hello, prism!", 13);
	memset(ours, 0xee, sizeof(ours));
	n = prism_wqe_encode(&w, ours, sizeof(ours), NULL);
	assert_int_equal(n, 16 + 32); /* 4 + 13 bytes -> 2 DS */
	inl.byte_count = htobe32(13 | MLX5_INLINE_SEG);
	assert_memory_equal(ours + 16, &inl, sizeof(inl));
	assert_memory_equal(ours + 20, "hello, prism!", 13);
	for (unsigned i = 33; i < 48; i++)
		assert_int_equal(ours[i], 0); /* padded with zeros */
	assert_int_equal(ours[48], 0xee);     /* nothing written past ds*16 */
}

/* ---- golden images (WAIT, SEND_EN, masked CAS: not in mlx5dv.h) ---- */

static void expect_golden(const struct prism_wqe *w, const uint8_t *golden, size_t len)
{
	uint8_t buf[PRISM_WQE_MAX_BYTES];
	struct prism_wqe back;
	int n = prism_wqe_encode(w, buf, sizeof(buf), NULL);

	assert_int_equal(n, (int)len);
	assert_memory_equal(buf, golden, len);
	assert_int_equal(prism_wqe_decode(golden, len, &back, NULL), (int)len);
	assert_true(prism_wqe_equal(&back, &(struct prism_wqe){0}) == false);
	n = prism_wqe_encode(&back, buf, sizeof(buf), NULL);
	assert_memory_equal(buf, golden, len);
}

static void test_golden_wait(void **state)
{
	/* WAIT for CQ 0x2a to reach 6 completions; WQE 5 of QP 0x101; signaled. */
	static const uint8_t golden[32] = {
	    0x00, 0x00, 0x05, 0x0f, 0x00, 0x01, 0x01, 0x02, /* opmod 0, idx 5, WAIT; qpn, ds 2 */
	    0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, /* CE = CQ update */
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* reserved */
	    0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x2a, /* count 6, CQN 0x2a */
	};
	struct prism_wqe w = {0};

	w.ctrl = (struct prism_ctrl_seg){.opcode = PRISM_OP_CQE_WAIT,
	                                 .wqe_index = 5,
	                                 .qpn = 0x101,
	                                 .fm_ce_se = PRISM_FM_CE_SE(0, PRISM_CE_CQ_UPDATE, 0)};
	w.wait_en = (struct prism_wait_en_seg){.index = 6, .obj_num = 0x2a};
	expect_golden(&w, golden, sizeof(golden));
}

static void test_golden_send_en(void **state)
{
	/* SEND_EN: let QP 0x0b7 run up to WQE 0x1234, from WQE 0xfffe of QP 0x42. */
	static const uint8_t golden[32] = {
	    0x00, 0xff, 0xfe, 0x17, 0x00, 0x00, 0x42, 0x02, /* idx 0xfffe, SEND_EN; ds 2 */
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* unsignaled */
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* reserved */
	    0x00, 0x00, 0x12, 0x34, 0x00, 0x00, 0x00, 0xb7, /* max index, QPN */
	};
	struct prism_wqe w = {0};

	w.ctrl = (struct prism_ctrl_seg){
	    .opcode = PRISM_OP_SEND_ENABLE, .wqe_index = 0xfffe, .qpn = 0x42};
	w.wait_en = (struct prism_wait_en_seg){.index = 0x1234, .obj_num = 0xb7};
	expect_golden(&w, golden, sizeof(golden));
}

static void test_golden_masked_cas8(void **state)
{
	/*
	 * Masked CAS, 8 bytes (opmod 0x09): compare only the opcode byte of a
	 * WQE's first word and swap only that byte, the "if" of RedN/PRISM.
	 */
	static const uint8_t golden[80] = {
	    0x09, 0x00, 0x03, 0x14, 0x00, 0x00, 0x07, 0x05, /* opmod 9, idx 3; ds 5 */
	    0x00, 0x00, 0x00, 0x88, 0x00, 0x00, 0x00, 0x00, /* fence + CQ update */
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x40, /* raddr 0x10040 */
	    0x00, 0x00, 0x00, 0x77, 0x00, 0x00, 0x00, 0x00, /* rkey 0x77 */
	    0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x00, /* swap: WRITE_IMM opcode */
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* compare: NOP opcode */
	    0x00, 0x00, 0x00, 0xff, 0x00, 0x00, 0x00, 0x00, /* swap mask */
	    0x00, 0x00, 0x00, 0xff, 0x00, 0x00, 0x00, 0x00, /* compare mask */
	    0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x03, /* 8 bytes back, lkey 3 */
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x50, 0x00, /* into 0x5000 */
	};
	struct prism_wqe w = {0};

	w.ctrl = (struct prism_ctrl_seg){
	    .opcode = PRISM_OP_ATOMIC_MASKED_CS,
	    .wqe_index = 3,
	    .qpn = 7,
	    .fm_ce_se = PRISM_FM_CE_SE(PRISM_FENCE_SMALL_AND_FENCE, PRISM_CE_CQ_UPDATE, 0)};
	w.raddr = (struct prism_raddr_seg){.raddr = 0x10040, .rkey = 0x77};
	w.atomic = (struct prism_atomic_seg){.size = 8,
	                                     .swap = 0x0000000900000000ull,
	                                     .compare = 0,
	                                     .swap_mask = 0x000000ff00000000ull,
	                                     .compare_mask = 0x000000ff00000000ull};
	w.num_sge = 1;
	w.sge[0] = (struct prism_sge){.byte_count = 8, .lkey = 3, .addr = 0x5000};
	expect_golden(&w, golden, sizeof(golden));
}

static void test_golden_wait_on_data(void **state)
{
	static const uint8_t golden[48] = {
	    0x01, 0x00, 0x09, 0x0f, 0x00, 0x00, 0x05, 0x03, /* opmod 1 (data), idx 9; ds 3 */
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x44, /* EQUAL|INVERT, lkey 0x44 */
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x02, /* va 0x8000, action 2 */
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, /* value */
	    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* mask */
	};
	struct prism_wqe w = {0};

	w.ctrl = (struct prism_ctrl_seg){
	    .opcode = PRISM_OP_CQE_WAIT, .opmod = PRISM_WAIT_ON_DATA, .wqe_index = 9, .qpn = 5};
	w.wod = (struct prism_wod_seg){.cond = PRISM_WOD_EQUAL | PRISM_WOD_INVERT,
	                               .lkey = 0x44,
	                               .addr = 0x8000,
	                               .fail_action = 2,
	                               .value = 1,
	                               .mask = ~0ull};
	expect_golden(&w, golden, sizeof(golden));
}

/* ---- round trips of every opcode, fields at their limits ---- */

static void fill_ctrl_limits(struct prism_wqe *w, uint8_t opcode, unsigned variant)
{
	w->ctrl.opcode = opcode;
	w->ctrl.wqe_index = variant ? 0xffff : 0;
	w->ctrl.qpn = variant ? 0xffffff : 0;
	w->ctrl.signature = variant ? 0xff : 0;
	w->ctrl.dci_stream = variant ? 0xffff : 0;
	w->ctrl.fm_ce_se = variant ? 0xff : 0;
	w->ctrl.imm = variant ? 0xffffffff : 0;
}

static void test_round_trip_every_opcode(void **state)
{
	static const uint8_t opcodes[] = {0x00, 0x08, 0x09, 0x0a, 0x0b, 0x0f, 0x10,
	                                  0x11, 0x12, 0x14, 0x15, 0x16, 0x17};
	uint8_t buf[PRISM_WQE_MAX_BYTES];
	unsigned i, variant;

	for (i = 0; i < ARRAY_SIZE(opcodes); i++) {
		for (variant = 0; variant < 2; variant++) {
			struct prism_wqe w = {0}, back;
			const struct prism_opcode_info *info = prism_opcode_info(opcodes[i]);
			uint64_t big = variant ? ~0ull : 0;

			fill_ctrl_limits(&w, opcodes[i], variant);
			w.raddr = (struct prism_raddr_seg){big, (uint32_t)big, (uint32_t)big};
			w.wait_en =
			    (struct prism_wait_en_seg){(uint32_t)big, variant ? 0xffffff : 0};
			if (info->cls == PRISM_CLASS_ATOMIC) {
				w.atomic.size = 8;
				w.atomic.swap = big;
				w.atomic.compare = big ^ 0x5555;
				w.atomic.swap_mask =
				    info->shape == PRISM_SHAPE_RADDR_MASKED ? big : 0;
				w.atomic.compare_mask =
				    opcodes[i] == PRISM_OP_ATOMIC_MASKED_CS ? big : 0;
				if (opcodes[i] == PRISM_OP_ATOMIC_MASKED_FA)
					w.atomic.compare = 0;
				w.num_sge = 1;
				w.sge[0] =
				    (struct prism_sge){0x7fffffff * variant, (uint32_t)big, big};
			} else if (info->shape == PRISM_SHAPE_RADDR_DATA ||
			           info->shape == PRISM_SHAPE_DATA) {
				w.num_sge = variant ? PRISM_WQE_MAX_SGE : 0;
				for (unsigned s = 0; s < w.num_sge; s++)
					w.sge[s] = (struct prism_sge){0x7fffffff - s, ~s, big - s};
			}
			round_trip(&w, buf, &back);
			/* what decode must report: the encoder fills in ds and opmod */
			w.ctrl.ds = back.ctrl.ds;
			if (info->shape == PRISM_SHAPE_RADDR_MASKED)
				assert_int_equal(back.ctrl.opmod, PRISM_MASKED_OPMOD(3));
			w.ctrl.opmod = back.ctrl.opmod;
			w.has_raddr = info->shape == PRISM_SHAPE_RADDR_DATA ||
			              info->cls == PRISM_CLASS_ATOMIC;
			w.has_atomic = info->cls == PRISM_CLASS_ATOMIC;
			w.has_wait_en = info->shape == PRISM_SHAPE_WAIT_ENABLE;
			assert_true(prism_wqe_equal(&w, &back));
			assert_int_equal(back.ctrl.opcode, opcodes[i]);
			assert_int_equal(back.ctrl.qpn, w.ctrl.qpn);
			assert_int_equal(back.ctrl.imm, w.ctrl.imm);
		}
	}
}

static void test_round_trip_masked_sizes(void **state)
{
	static const unsigned sizes[] = {4, 8, 16, 32};
	static const uint8_t ops[] = {PRISM_OP_ATOMIC_MASKED_CS, PRISM_OP_ATOMIC_MASKED_FA};
	/* ds = ctrl + raddr + operands (padded) + data */
	static const unsigned want_ds[2][4] = {{4, 5, 7, 11}, {4, 4, 5, 7}};
	uint8_t buf[PRISM_WQE_MAX_BYTES];
	unsigned s, o, k;

	for (o = 0; o < 2; o++) {
		for (s = 0; s < 4; s++) {
			struct prism_wqe w = {0}, back;
			unsigned size = sizes[s];
			uint64_t lim = size == 4 ? 0xffffffffull : ~0ull;

			w.ctrl.opcode = ops[o];
			w.atomic.size = (uint8_t)size;
			w.atomic.swap = lim;
			w.atomic.swap_mask = lim - 1;
			if (ops[o] == PRISM_OP_ATOMIC_MASKED_CS) {
				w.atomic.compare = lim - 2;
				w.atomic.compare_mask = 1;
			}
			for (k = 0; k < 32; k++) {
				w.atomic.swap_bytes[k] = (uint8_t)(k + 1);
				w.atomic.compare_bytes[k] = (uint8_t)(0x40 + k);
				w.atomic.swap_mask_bytes[k] = (uint8_t)(0x80 + k);
				w.atomic.compare_mask_bytes[k] = (uint8_t)(0xc0 + k);
			}
			w.num_sge = 1;
			w.sge[0] = (struct prism_sge){size, 1, 0x100};
			assert_int_equal(round_trip(&w, buf, &back), (int)want_ds[o][s] * 16);
			assert_int_equal(back.ctrl.opmod, PRISM_MASKED_OPMOD(__builtin_ctz(size)));
			assert_int_equal(back.atomic.size, size);
			w.ctrl.opmod = back.ctrl.opmod;
			w.ctrl.ds = back.ctrl.ds;
			w.has_raddr = w.has_atomic = true;
			assert_true(prism_wqe_equal(&w, &back));
			if (size == 16 && ops[o] == PRISM_OP_ATOMIC_MASKED_CS) {
				/* all of swap, then compare, then swap_mask, then compare_mask */
				assert_memory_equal(buf + 32, w.atomic.swap_bytes, 16);
				assert_memory_equal(buf + 48, w.atomic.compare_bytes, 16);
				assert_memory_equal(buf + 64, w.atomic.swap_mask_bytes, 16);
				assert_memory_equal(buf + 80, w.atomic.compare_mask_bytes, 16);
			}
		}
	}
}

static void test_round_trip_inline_limits(void **state)
{
	static const uint32_t lens[] = {0, 1, 12, 13, 28, 100, PRISM_WQE_MAX_INLINE};
	uint8_t buf[PRISM_WQE_MAX_BYTES];
	unsigned i, k;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		struct prism_wqe w = {0}, back;

		w.ctrl.opcode = i & 1 ? PRISM_OP_RDMA_WRITE_IMM : PRISM_OP_SEND_IMM;
		w.ctrl.imm = 0xcafe0000 + i;
		w.is_inline = true;
		w.inline_len = lens[i];
		for (k = 0; k < lens[i]; k++)
			w.inline_data[k] = (uint8_t)(k * 7 + i);
		round_trip(&w, buf, &back);
		assert_true(back.is_inline);
		assert_int_equal(back.inline_len, lens[i]);
		assert_memory_equal(back.inline_data, w.inline_data, lens[i]);
	}
}

static void test_nop_keeps_ds(void **state)
{
	/* RedN's response WQE waits as a NOP with the WRITE_IMM's DS. */
	uint8_t buf[PRISM_WQE_MAX_BYTES];
	struct prism_wqe w = {0}, back;

	w.ctrl.opcode = PRISM_OP_NOP;
	w.ctrl.ds = 3;
	assert_int_equal(prism_wqe_encode(&w, buf, sizeof(buf), NULL), 48);
	assert_int_equal(prism_wqe_decode(buf, 48, &back, NULL), 48);
	assert_int_equal(back.ctrl.ds, 3);
	w.ctrl.ds = 0;
	assert_int_equal(prism_wqe_encode(&w, buf, sizeof(buf), NULL), 16);
}

static void test_round_trip_wait_on_time_and_recv_enable(void **state)
{
	uint8_t buf[PRISM_WQE_MAX_BYTES];
	struct prism_wqe w = {0}, back;

	/* wait on time: the wait-on-data segment with lkey/va 0 and the time in value */
	w.ctrl.opcode = PRISM_OP_CQE_WAIT;
	w.ctrl.opmod = PRISM_WAIT_ON_TIME;
	w.wod = (struct prism_wod_seg){
	    .cond = PRISM_WOD_CYCLIC_SMALLER, .value = 0x0000000100000200ull, .mask = ~0ull};
	assert_int_equal(round_trip(&w, buf, &back), 48);
	assert_true(back.has_wod);
	assert_false(back.has_wait_en);
	assert_int_equal(back.ctrl.opmod, PRISM_WAIT_ON_TIME);
	assert_int_equal(back.wod.cond, PRISM_WOD_CYCLIC_SMALLER);
	assert_int_equal(back.wod.value, w.wod.value);

	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_RECV_ENABLE;
	w.wait_en = (struct prism_wait_en_seg){.index = 0xffffffff, .obj_num = 0xffffff};
	assert_int_equal(round_trip(&w, buf, &back), 32);
	assert_true(back.has_wait_en);
	assert_int_equal(back.wait_en.index, 0xffffffff);
	assert_int_equal(back.wait_en.obj_num, 0xffffff);
}

/* The decoder's hot-path contract: fields the shape does not use are not written. */
static void test_decode_is_lean(void **state)
{
	uint8_t buf[PRISM_WQE_MAX_BYTES];
	struct prism_wqe w = {0}, back;

	w.ctrl.opcode = PRISM_OP_SEND_ENABLE;
	w.wait_en.index = 3;
	assert_int_equal(prism_wqe_encode(&w, buf, sizeof(buf), NULL), 32);
	memset(&back, 0xa5, sizeof(back));
	assert_int_equal(prism_wqe_decode(buf, 32, &back, NULL), 32);
	assert_int_equal(back.inline_data[0], 0xa5);
	assert_int_equal(back.inline_data[PRISM_WQE_MAX_INLINE - 1], 0xa5);
	assert_int_equal(back.sge[0].lkey, 0xa5a5a5a5);
	assert_int_equal(back.atomic.swap_bytes[0], 0xa5);
	/* ... while everything that is valid after decode is set */
	assert_int_equal(back.num_sge, 0);
	assert_false(back.is_inline);
	assert_int_equal(back.inline_len, 0);
	assert_false(back.has_raddr);
	assert_false(back.has_atomic);
	assert_false(back.has_wod);
	assert_true(back.has_wait_en);
}

/* ---- encoder range checks ---- */

static void expect_encode_error(const struct prism_wqe *w, int code)
{
	uint8_t buf[PRISM_WQE_MAX_BYTES], before[PRISM_WQE_MAX_BYTES];
	struct prism_wqe_diag diag = {0};

	memset(buf, 0x3c, sizeof(buf));
	memcpy(before, buf, sizeof(buf));
	assert_int_equal(prism_wqe_encode(w, buf, sizeof(buf), &diag), code);
	assert_int_equal(diag.code, code);
	assert_true(diag.msg[0] != '\0');
	assert_memory_equal(buf, before, sizeof(buf)); /* untouched on failure */
}

static void test_encode_rejects_out_of_range(void **state)
{
	struct prism_wqe w = {0};

	w.ctrl.opcode = 0x01;
	expect_encode_error(&w, PRISM_WQE_E_OPCODE);
	w.ctrl.opcode = PRISM_OP_RDMA_WRITE;
	w.ctrl.qpn = 0x1000000;
	expect_encode_error(&w, PRISM_WQE_E_RANGE);
	w.ctrl.qpn = 0;
	w.ctrl.opmod = 1;
	expect_encode_error(&w, PRISM_WQE_E_OPMOD);
	w.ctrl.opmod = 0;
	w.num_sge = PRISM_WQE_MAX_SGE + 1;
	expect_encode_error(&w, PRISM_WQE_E_SGE_COUNT);
	w.num_sge = 1;
	w.sge[0].byte_count = 0x80000000u;
	expect_encode_error(&w, PRISM_WQE_E_RANGE);
	w.num_sge = 0;
	w.is_inline = true;
	w.inline_len = PRISM_WQE_MAX_INLINE + 1;
	expect_encode_error(&w, PRISM_WQE_E_INLINE);
	w.ctrl.opcode = PRISM_OP_RDMA_READ;
	w.inline_len = 8;
	expect_encode_error(&w, PRISM_WQE_E_INLINE);

	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_ATOMIC_CS;
	expect_encode_error(&w, PRISM_WQE_E_SGE_COUNT); /* needs its result segment */
	w.num_sge = 1;
	w.atomic.size = 4;
	expect_encode_error(&w, PRISM_WQE_E_SEGMENT);
	w.ctrl.opcode = PRISM_OP_ATOMIC_MASKED_CS;
	w.atomic.swap = 0x100000000ull;
	expect_encode_error(&w, PRISM_WQE_E_RANGE);
	w.atomic.swap = 0;
	w.atomic.size = 12;
	expect_encode_error(&w, PRISM_WQE_E_SEGMENT);
	w.atomic.size = 8;
	w.ctrl.opmod = PRISM_MASKED_OPMOD(2); /* says 4 bytes */
	expect_encode_error(&w, PRISM_WQE_E_OPMOD);

	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_SEND_ENABLE;
	w.wait_en.obj_num = 0x1000000;
	expect_encode_error(&w, PRISM_WQE_E_RANGE);
	w.ctrl.opcode = PRISM_OP_CQE_WAIT;
	w.wait_en.obj_num = 0;
	w.ctrl.opmod = 3;
	expect_encode_error(&w, PRISM_WQE_E_OPMOD);
	w.ctrl.opmod = PRISM_WAIT_ON_DATA;
	w.wod.addr = 0x1001;
	expect_encode_error(&w, PRISM_WQE_E_RANGE);
	w.wod.addr = 0x1000;
	w.wod.cond = 0x20;
	expect_encode_error(&w, PRISM_WQE_E_RANGE);
	w.ctrl.opcode = PRISM_OP_NOP;
	w.ctrl.opmod = 0;
	w.ctrl.ds = 64;
	expect_encode_error(&w, PRISM_WQE_E_RANGE);

	assert_int_equal(prism_wqe_encode(NULL, (uint8_t[16]){0}, 16, NULL), PRISM_WQE_E_ARG);
}

static void test_encode_short_buffer(void **state)
{
	struct prism_wqe w = {0};
	uint8_t buf[64];

	w.ctrl.opcode = PRISM_OP_RDMA_WRITE;
	w.num_sge = 3; /* 5 DS = 80 bytes */
	assert_int_equal(prism_wqe_encode(&w, buf, sizeof(buf), NULL), PRISM_WQE_E_SHORT);
	w.num_sge = 2;
	assert_int_equal(prism_wqe_encode(&w, buf, sizeof(buf), NULL), 64);
}

/* ---- decoder validation ---- */

static void expect_decode_error(const uint8_t *bytes, size_t len, int code, uint32_t offset)
{
	struct prism_wqe w;
	struct prism_wqe_diag diag = {0};

	assert_int_equal(prism_wqe_decode(bytes, len, &w, &diag), code);
	assert_int_equal(diag.code, code);
	assert_int_equal(diag.offset, offset);
	assert_true(strlen(diag.msg) > 10);
}

static void test_decode_errors(void **state)
{
	uint8_t b[128];
	struct prism_wqe w = {0};

	/* a valid CAS to mutate */
	w.ctrl.opcode = PRISM_OP_ATOMIC_CS;
	w.num_sge = 1;
	assert_int_equal(prism_wqe_encode(&w, b, sizeof(b), NULL), 64);

	expect_decode_error(b, 15, PRISM_WQE_E_SHORT, 0);
	expect_decode_error(b, 63, PRISM_WQE_E_SHORT, 63);
	b[3] = 0x13; /* no such opcode */
	expect_decode_error(b, 64, PRISM_WQE_E_OPCODE, 3);
	b[3] = PRISM_OP_ATOMIC_CS;
	b[0] = 0x08; /* opmod of a masked atomic on a plain CAS */
	expect_decode_error(b, 64, PRISM_WQE_E_OPMOD, 0);
	b[0] = 0;
	b[7] = 3; /* ds too small for ctrl+raddr+atomic+data */
	expect_decode_error(b, 64, PRISM_WQE_E_DS, 7);
	b[7] = 0;
	expect_decode_error(b, 64, PRISM_WQE_E_DS, 7);
	b[7] = 0x44; /* reserved bits */
	expect_decode_error(b, 128, PRISM_WQE_E_DS, 7);
	b[7] = 4;
	b[48] = 0x80; /* inline result segment */
	expect_decode_error(b, 64, PRISM_WQE_E_SEGMENT, 48);
	b[48] = 0;
	assert_int_equal(prism_wqe_decode(b, 64, &w, NULL), 64);

	/* WRITE: inline that does not fill the DS it claims */
	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_RDMA_WRITE;
	w.is_inline = true;
	w.inline_len = 40; /* 3 DS of inline */
	assert_int_equal(prism_wqe_encode(&w, b, sizeof(b), NULL), 80);
	b[35] = 60; /* now claims 4 DS */
	expect_decode_error(b, 80, PRISM_WQE_E_DS, 7);
	b[32] = 0x80 | 0x7f; /* absurd length */
	expect_decode_error(b, 80, PRISM_WQE_E_INLINE, 32);

	/* a data segment after an inline-flagged one */
	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_SEND;
	w.num_sge = 3;
	assert_int_equal(prism_wqe_encode(&w, b, sizeof(b), NULL), 64);
	b[32] = 0x80;
	expect_decode_error(b, 64, PRISM_WQE_E_SEGMENT, 32);

	/* too many data segments */
	memset(b, 0, sizeof(b));
	b[3] = PRISM_OP_SEND;
	b[7] = 18; /* ctrl + 17 data segments */
	{
		uint8_t big[18 * 16] = {0};

		memcpy(big, b, 16);
		expect_decode_error(big, sizeof(big), PRISM_WQE_E_SGE_COUNT, 16);
	}

	/* WAIT / ENABLE sizes and numbers */
	memset(b, 0, sizeof(b));
	b[3] = PRISM_OP_SEND_ENABLE;
	b[7] = 3;
	expect_decode_error(b, 48, PRISM_WQE_E_DS, 7);
	b[7] = 2;
	b[28] = 1; /* QPN wider than 24 bits */
	expect_decode_error(b, 32, PRISM_WQE_E_SEGMENT, 28);
	b[28] = 0;
	b[3] = PRISM_OP_CQE_WAIT;
	b[0] = PRISM_WAIT_ON_DATA;
	expect_decode_error(b, 48, PRISM_WQE_E_DS, 7);
	b[7] = 3;
	b[16] = 1; /* condition word above bit 4 */
	expect_decode_error(b, 48, PRISM_WQE_E_SEGMENT, 16);
	b[0] = 3;
	expect_decode_error(b, 48, PRISM_WQE_E_OPMOD, 0);

	/* READ with inline */
	memset(b, 0, sizeof(b));
	b[3] = PRISM_OP_RDMA_READ;
	b[7] = 3;
	b[32] = 0x80;
	b[35] = 4;
	expect_decode_error(b, 48, PRISM_WQE_E_INLINE, 32);

	assert_int_equal(prism_wqe_decode(NULL, 64, &w, NULL), PRISM_WQE_E_ARG);
}

/* ---- the lean decode (the software NIC's) against the full one ---- */

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Random WQE-like bytes: mostly a known opcode with a plausible opmod and
 * ds, data segments that are sometimes inline headers, read through a
 * length that is sometimes short; the rest raw noise.
 */
static size_t random_wqe(uint64_t *s, uint8_t *b, size_t cap)
{
	static const uint8_t ops[] = {
	    PRISM_OP_NOP,
	    PRISM_OP_RDMA_WRITE,
	    PRISM_OP_RDMA_WRITE_IMM,
	    PRISM_OP_SEND,
	    PRISM_OP_SEND_IMM,
	    PRISM_OP_CQE_WAIT,
	    PRISM_OP_RDMA_READ,
	    PRISM_OP_ATOMIC_CS,
	    PRISM_OP_ATOMIC_FA,
	    PRISM_OP_ATOMIC_MASKED_CS,
	    PRISM_OP_ATOMIC_MASKED_FA,
	    PRISM_OP_RECV_ENABLE,
	    PRISM_OP_SEND_ENABLE,
	};
	uint64_t r = rng_next(s);
	size_t len;

	for (size_t i = 0; i < cap; i++)
		b[i] = (uint8_t)rng_next(s);
	if (r % 8 == 0)
		return (size_t)(rng_next(s) % (cap + 1)); /* noise */
	b[3] = ops[(r >> 3) % ARRAY_SIZE(ops)];
	b[0] = (r >> 8) % 4 ? 0 : (uint8_t)((r >> 10) % 12);
	b[7] = (uint8_t)(1 + (r >> 14) % 8);
	if ((r >> 17) % 16 == 0)
		b[7] |= 0x40;
	for (unsigned off = 16; off + 16 <= cap; off += 16) {
		uint64_t q = rng_next(s);

		if (q % 3 == 0) /* an inline header with a small length */
			b[off] = 0x80, b[off + 1] = 0, b[off + 2] = (uint8_t)((q >> 2) % 2),
			b[off + 3] = (uint8_t)(q >> 8);
		else if (q % 3 == 1) /* a data segment */
			b[off] &= 0x7f;
		if ((q >> 16) % 2) /* a plausible WAIT / ENABLE object number */
			b[off + 12] = 0;
		if ((q >> 17) % 2) /* a wait-on-data condition word */
			b[off] = b[off + 1] = b[off + 2] = 0, b[off + 3] &= 0x1f;
	}
	len = (size_t)b[7] * 16u;
	if (len > cap || (r >> 21) % 8 == 0)
		len = (size_t)(rng_next(s) % (cap + 1));
	return len;
}

/* The engine's decode: same return value over every input, and the same
 * bytes written (both start from the same stale pattern) once the fields it
 * leaves alone (wqe_engine_rest) are copied over: the two are one body,
 * this keeps them so.  The decode of a fetched copy (wqe_decode_fetched,
 * whatever follows the WQE's own DS bytes) is the engine's decode of those
 * bytes. */
static void test_lean_decode_agrees(void **state)
{
	static struct prism_wqe full, lean, fetched;
	uint8_t b[PRISM_WQE_MAX_BYTES], row[PRISM_WQE_MAX_BYTES];
	uint64_t s = 0x9e3779b97f4a7c15ull;
	unsigned ok = 0, bad = 0;

	for (unsigned i = 0; i < 20000; i++) {
		size_t len = random_wqe(&s, b, 16u * (1u + i % 12u));
		struct prism_wqe_diag diag = {0};
		uint32_t own;
		int n;

		memset(&full, (int)(i & 0xff), sizeof(full));
		memset(&lean, (int)(i & 0xff), sizeof(lean));
		n = prism_wqe_decode(b, len, &full, &diag);
		assert_int_equal(wqe_decode_engine(b, (uint32_t)len, &lean), n);
		wqe_engine_rest(&lean, &full);
		assert_memory_equal(&full, &lean, sizeof(full));

		memset(row, (int)(0xa5 ^ i), sizeof(row));
		memcpy(row, b, len);
		own = (row[7] & 0x3fu) ? (row[7] & 0x3fu) * 16u : 16u;
		memset(&lean, (int)(i & 0xff), sizeof(lean));
		memset(&fetched, (int)(i & 0xff), sizeof(fetched));
		assert_int_equal(wqe_decode_fetched(row, &fetched),
		                 wqe_decode_engine(row, own, &lean));
		assert_memory_equal(&fetched, &lean, sizeof(lean));
		if (n < 0)
			bad++;
		else
			ok++;
	}
	/* both outcomes are exercised, not just one */
	assert_true(ok > 2000);
	assert_true(bad > 2000);
}

static void test_strerror(void **state)
{
	assert_string_equal(prism_wqe_strerror(PRISM_WQE_E_DS),
	                    "DS count inconsistent with the segments");
	assert_string_equal(prism_wqe_strerror(-1000), "unknown codec error");
	assert_string_equal(prism_wqe_strerror(5), "unknown codec error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_opcode_table),
	    cmocka_unit_test(test_ctrl_matches_mlx5dv_set_ctrl_seg),
	    cmocka_unit_test(test_write_matches_mlx5dv_builders),
	    cmocka_unit_test(test_cas_matches_mlx5dv_structs),
	    cmocka_unit_test(test_inline_matches_mlx5dv_layout),
	    cmocka_unit_test(test_golden_wait),
	    cmocka_unit_test(test_golden_send_en),
	    cmocka_unit_test(test_golden_masked_cas8),
	    cmocka_unit_test(test_golden_wait_on_data),
	    cmocka_unit_test(test_round_trip_every_opcode),
	    cmocka_unit_test(test_round_trip_masked_sizes),
	    cmocka_unit_test(test_round_trip_inline_limits),
	    cmocka_unit_test(test_nop_keeps_ds),
	    cmocka_unit_test(test_round_trip_wait_on_time_and_recv_enable),
	    cmocka_unit_test(test_decode_is_lean),
	    cmocka_unit_test(test_encode_rejects_out_of_range),
	    cmocka_unit_test(test_encode_short_buffer),
	    cmocka_unit_test(test_decode_errors),
	    cmocka_unit_test(test_lean_decode_agrees),
	    cmocka_unit_test(test_strerror),
	};

	return cmocka_run_group_tests_name("wqe_codec", tests, NULL, NULL);
}
