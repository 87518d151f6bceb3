/* SPDX-License-Identifier: MIT */
/*
 * test_wqe_misc.c - receive WQEs, CQEs, patchable field offsets and the
 * one-line printer of the WQE codec.
 *
 * Owns: unit tests for everything in runtime/wqe except send-WQE
 * encode/decode (test_wqe_codec.c).
 */
#include <endian.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/mlx5dv.h>

#include <prism/wqe.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- receive WQEs ---- */

static void test_rwqe_round_trip_with_terminator(void **state)
{
	struct prism_sge in[3] = {
	    {.byte_count = 3, .lkey = 0x10, .addr = 0x1000},
	    {.byte_count = 8, .lkey = 0x11, .addr = 0x2008},
	    {.byte_count = 0x7fffffff, .lkey = 0xffffffff, .addr = ~0ull},
	};
	struct prism_sge out[16];
	uint8_t buf[8 * 16];
	struct mlx5_wqe_data_seg want;

	memset(buf, 0x77, sizeof(buf));
	assert_int_equal(prism_rwqe_encode(in, 3, buf, 8, NULL), 128);
	/* each entry is exactly rdma-core's data segment */
	mlx5dv_set_data_seg(&want, 8, 0x11, 0x2008);
	assert_memory_equal(buf + 16, &want, 16);
	/* a short list ends with MLX5_INVALID_LKEY */
	mlx5dv_set_data_seg(&want, 0, MLX5_INVALID_LKEY, 0);
	assert_memory_equal(buf + 48, &want, 16);
	assert_int_equal(buf[64], 0x77); /* the rest is not touched */
	assert_int_equal(prism_rwqe_decode(buf, 8, out, 16, NULL), 3);
	assert_memory_equal(out, in, sizeof(in));
}

static void test_rwqe_full_stride_and_errors(void **state)
{
	struct prism_sge in[16], out[16];
	uint8_t buf[32 * 16];
	struct prism_wqe_diag diag = {0};
	unsigned i;

	for (i = 0; i < 16; i++)
		in[i] = (struct prism_sge){.byte_count = i + 1, .lkey = 0x200 + i, .addr = 64 * i};
	/* a full stride has no terminator */
	assert_int_equal(prism_rwqe_encode(in, 16, buf, 16, NULL), 256);
	assert_int_equal(prism_rwqe_decode(buf, 16, out, 16, NULL), 16);
	assert_memory_equal(out, in, sizeof(in));
	assert_int_equal(prism_rwqe_decode(buf, 16, out, 15, &diag), PRISM_WQE_E_SGE_COUNT);
	assert_int_equal(diag.offset, 15 * 16);

	assert_int_equal(prism_rwqe_encode(in, 3, buf, 2, &diag), PRISM_WQE_E_SGE_COUNT);
	assert_int_equal(prism_rwqe_encode(in, 17, buf, 32, &diag), PRISM_WQE_E_SGE_COUNT);
	assert_int_equal(prism_rwqe_encode(in, 1, buf, 0, &diag), PRISM_WQE_E_ARG);
	in[0].lkey = PRISM_INVALID_LKEY;
	assert_int_equal(prism_rwqe_encode(in, 1, buf, 2, &diag), PRISM_WQE_E_RANGE);
	in[0].lkey = 1;
	in[0].byte_count = 0x80000000u;
	assert_int_equal(prism_rwqe_encode(in, 1, buf, 2, &diag), PRISM_WQE_E_RANGE);

	/* an empty list is just the terminator */
	assert_int_equal(prism_rwqe_encode(NULL, 0, buf, 1, NULL), 16);
	assert_int_equal(prism_rwqe_decode(buf, 1, out, 16, NULL), 0);
	/* bit 31 of a receive byte count is an error, not a length */
	memset(buf, 0, 16);
	buf[0] = 0x80;
	assert_int_equal(prism_rwqe_decode(buf, 1, out, 16, &diag), PRISM_WQE_E_SEGMENT);
}

/* ---- CQEs ---- */

static void test_cqe_success_layout_matches_mlx5_cqe64(void **state)
{
	struct prism_cqe c = {.opcode = PRISM_CQE_RESP_SEND_IMM,
	                      .owner = 1,
	                      .wqe_counter = 0xbeef,
	                      .byte_count = 0x12345678,
	                      .qpn = 0xabcdef,
	                      .imm = 0xcafebabe,
	                      .srqn_uidx = 0x00112233,
	                      .timestamp = 0x0102030405060708ull,
	                      .signature = 0x5a};
	struct mlx5_cqe64 cqe;
	struct prism_cqe back;

	prism_cqe_encode(&c, &cqe);
	assert_int_equal(mlx5dv_get_cqe_opcode(&cqe), MLX5_CQE_RESP_SEND_IMM);
	assert_int_equal(mlx5dv_get_cqe_owner(&cqe), 1);
	assert_int_equal(be16toh(cqe.wqe_counter), 0xbeef);
	assert_int_equal(be32toh(cqe.byte_cnt), 0x12345678);
	assert_int_equal(be32toh(cqe.sop_drop_qpn) & 0xffffff, 0xabcdef);
	assert_int_equal(be32toh(cqe.imm_inval_pkey), 0xcafebabe);
	assert_int_equal(be32toh(cqe.srqn_uidx), 0x00112233);
	assert_int_equal(be64toh(cqe.timestamp), 0x0102030405060708ull);
	assert_int_equal(cqe.signature, 0x5a);

	assert_int_equal(prism_cqe_decode(&cqe, &back, NULL), 0);
	assert_int_equal(back.opcode, c.opcode);
	assert_int_equal(back.owner, 1);
	assert_int_equal(back.wqe_counter, c.wqe_counter);
	assert_int_equal(back.byte_count, c.byte_count);
	assert_int_equal(back.qpn, c.qpn);
	assert_int_equal(back.imm, c.imm);
	assert_int_equal(back.srqn_uidx, c.srqn_uidx);
	assert_int_equal(back.timestamp, c.timestamp);
	assert_int_equal(back.signature, c.signature);
	assert_int_equal(back.syndrome, 0);
}

static void test_cqe_error_layout_matches_mlx5_err_cqe(void **state)
{
	struct prism_cqe c = {.opcode = PRISM_CQE_REQ_ERR,
	                      .owner = 0,
	                      .wqe_counter = 7,
	                      .qpn = 0x000102,
	                      .syndrome = PRISM_SYND_REMOTE_ACCESS_ERR,
	                      .vendor_syndrome = 0x88,
	                      .wqe_opcode = PRISM_OP_RDMA_READ};
	struct mlx5_err_cqe ecqe;
	struct prism_cqe back;

	prism_cqe_encode(&c, &ecqe);
	assert_int_equal(ecqe.op_own >> 4, MLX5_CQE_REQ_ERR);
	assert_int_equal(ecqe.syndrome, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
	assert_int_equal(ecqe.vendor_err_synd, 0x88);
	assert_int_equal(be32toh(ecqe.s_wqe_opcode_qpn), (0x10u << 24) | 0x102);
	assert_int_equal(be16toh(ecqe.wqe_counter), 7);
	assert_int_equal(prism_cqe_decode(&ecqe, &back, NULL), 0);
	assert_int_equal(back.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(back.syndrome, PRISM_SYND_REMOTE_ACCESS_ERR);
	assert_int_equal(back.vendor_syndrome, 0x88);
	assert_int_equal(back.wqe_opcode, PRISM_OP_RDMA_READ);
	assert_int_equal(back.qpn, 0x102);
	assert_string_equal(prism_cqe_syndrome_name(back.syndrome), "remote access error");
	assert_string_equal(prism_cqe_syndrome_name(0x99), "unknown syndrome");
}

/* The body encoder writes exactly bytes 0..62 that prism_cqe_encode writes
 * (over a dirty slot), leaves byte 63 alone and returns it. */
static void test_cqe_encode_body_matches_encode(void **state)
{
	static const struct prism_cqe cases[] = {
	    {.opcode = PRISM_CQE_REQ,
	     .owner = 1,
	     .wqe_opcode = PRISM_OP_RDMA_WRITE,
	     .wqe_counter = 0x1234,
	     .byte_count = 64,
	     .qpn = 0x1abcdef, /* bits above 24 dropped */
	     .timestamp = 0x0102030405060708ull},
	    {.opcode = PRISM_CQE_RESP_SEND_IMM,
	     .owner = 0,
	     .wqe_counter = 0xffff,
	     .byte_count = 0xdeadbeef,
	     .qpn = 0x42,
	     .imm = 0xcafebabe,
	     .srqn_uidx = 0x00112233,
	     .timestamp = 0xfedcba9876543210ull,
	     .signature = 0x5a},
	    {.opcode = PRISM_CQE_REQ_ERR,
	     .owner = 1,
	     .syndrome = PRISM_SYND_LOCAL_QP_OP_ERR,
	     .vendor_syndrome = 0x51,
	     .wqe_opcode = PRISM_OP_ATOMIC_CS,
	     .wqe_counter = 9,
	     .byte_count = 77, /* not encoded in an error CQE */
	     .qpn = 0x777,
	     .timestamp = 123},
	    {.opcode = PRISM_CQE_RESP_ERR,
	     .owner = 3, /* only bit 0 is the owner */
	     .syndrome = PRISM_SYND_REMOTE_ACCESS_ERR,
	     .qpn = 0xffffff},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint8_t want[64], got[64];
		uint8_t op_own;

		memset(want, 0xa5, sizeof(want));
		memset(got, 0x5a, sizeof(got));
		prism_cqe_encode(&cases[i], want);
		op_own = prism_cqe_encode_body(&cases[i], got);
		assert_memory_equal(got, want, 63);
		assert_int_equal(got[63], 0x5a); /* the caller stores op_own */
		assert_int_equal(op_own, want[63]);
		assert_int_equal(op_own >> 4, cases[i].opcode);
		assert_int_equal(op_own & 1u, cases[i].owner & 1u);
	}
}

static void test_cqe_reserved_opcode_and_owner(void **state)
{
	uint8_t raw[64] = {0};
	struct prism_cqe c;
	struct prism_wqe_diag diag = {0};

	raw[63] = 0x71; /* opcode 7 is reserved here */
	assert_int_equal(prism_cqe_decode(raw, &c, &diag), PRISM_WQE_E_OPCODE);
	assert_int_equal(diag.offset, 63);
	assert_string_equal(prism_cqe_opcode_name(7), "RESERVED");
	raw[63] = 0xf1; /* INVALID, as a fresh CQ is initialised */
	assert_int_equal(prism_cqe_decode(raw, &c, NULL), 0);
	assert_string_equal(prism_cqe_opcode_name(c.opcode), "INVALID");

	/* software owns CQE ci when the owner bit equals the wrap parity */
	assert_true(prism_cqe_sw_owned(0x00, 3, 8));
	assert_false(prism_cqe_sw_owned(0x01, 3, 8));
	assert_true(prism_cqe_sw_owned(0x01, 8 + 3, 8));
	assert_false(prism_cqe_sw_owned(0x00, 8 + 3, 8));
}

/* ---- field offsets ---- */

/* Encode @w, overwrite @field with 0xff bytes, decode, and return the result. */
static void poke_field(const struct prism_wqe *w, enum prism_wqe_field f, struct prism_wqe *out)
{
	uint8_t buf[PRISM_WQE_MAX_BYTES];
	uint32_t off, len;
	int n = prism_wqe_encode(w, buf, sizeof(buf), NULL);

	assert_true(n > 0);
	assert_int_equal(prism_wqe_field_offset(w, f, &off, &len), 0);
	assert_true(off + len <= (uint32_t)n);
	memset(buf + off, 0xff, len);
	assert_int_equal(prism_wqe_decode(buf, (size_t)n, out, NULL), n);
}

static void test_field_offsets_hit_their_fields(void **state)
{
	struct prism_wqe w = {0}, out;
	uint32_t off, len;

	w.ctrl.opcode = PRISM_OP_RDMA_READ;
	w.num_sge = 2;
	poke_field(&w, PRISM_FIELD_RADDR, &out);
	assert_int_equal(out.raddr.raddr, ~0ull);
	poke_field(&w, PRISM_FIELD_RKEY, &out);
	assert_int_equal(out.raddr.rkey, 0xffffffff);
	poke_field(&w, PRISM_FIELD_SGE0_ADDR, &out);
	assert_int_equal(out.sge[0].addr, ~0ull);
	assert_int_equal(out.sge[1].addr, 0);
	poke_field(&w, PRISM_FIELD_SGE0_LKEY, &out);
	assert_int_equal(out.sge[0].lkey, 0xffffffff);
	poke_field(&w, PRISM_FIELD_CTRL_QPN, &out);
	assert_int_equal(out.ctrl.qpn, 0xffffff);
	poke_field(&w, PRISM_FIELD_CTRL_IMM, &out);
	assert_int_equal(out.ctrl.imm, 0xffffffff);
	poke_field(&w, PRISM_FIELD_CTRL_FM_CE_SE, &out);
	assert_int_equal(out.ctrl.fm_ce_se, 0xff);

	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_ATOMIC_CS;
	w.num_sge = 1;
	poke_field(&w, PRISM_FIELD_ATOMIC_COMPARE, &out);
	assert_int_equal(out.atomic.compare, ~0ull);
	assert_int_equal(out.atomic.swap, 0);
	poke_field(&w, PRISM_FIELD_SGE0_ADDR, &out);
	assert_int_equal(out.sge[0].addr, ~0ull);

	w.ctrl.opcode = PRISM_OP_ATOMIC_MASKED_CS;
	w.atomic.size = 4;
	poke_field(&w, PRISM_FIELD_ATOMIC_COMPARE, &out);
	assert_int_equal(out.atomic.compare, 0xffffffff);
	assert_int_equal(out.atomic.swap_mask, 0);
	w.atomic.size = 32;
	assert_int_equal(prism_wqe_field_offset(&w, PRISM_FIELD_ATOMIC_COMPARE, &off, &len), 0);
	assert_int_equal(off, 64);
	assert_int_equal(len, 32);
	assert_int_equal(prism_wqe_field_offset(&w, PRISM_FIELD_SGE0_ADDR, &off, &len), 0);
	assert_int_equal(off, 32 + 128 + 8);

	w.ctrl.opcode = PRISM_OP_ATOMIC_MASKED_FA;
	assert_int_equal(prism_wqe_field_offset(&w, PRISM_FIELD_ATOMIC_COMPARE, &off, &len),
	                 PRISM_WQE_E_ARG);

	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_SEND_ENABLE;
	poke_field(&w, PRISM_FIELD_WAIT_EN_INDEX, &out);
	assert_int_equal(out.wait_en.index, 0xffffffff);
	assert_int_equal(prism_wqe_field_offset(&w, PRISM_FIELD_RADDR, &off, &len),
	                 PRISM_WQE_E_ARG);
	assert_int_equal(prism_wqe_field_offset(&w, PRISM_FIELD_WAIT_EN_OBJ, &off, &len), 0);
	assert_int_equal(off, 28);

	w.ctrl.opcode = PRISM_OP_SEND;
	w.num_sge = 1;
	assert_int_equal(prism_wqe_field_offset(&w, PRISM_FIELD_SGE0_LEN, &off, &len), 0);
	assert_int_equal(off, 16);
	assert_int_equal(prism_wqe_field_offset(&w, PRISM_FIELD__COUNT, &off, &len),
	                 PRISM_WQE_E_ARG);
	assert_string_equal(prism_wqe_field_name(PRISM_FIELD_CTRL_QPN), "ctrl.qpn");
	assert_string_equal(prism_wqe_field_name(PRISM_FIELD__COUNT), "?");
}

/* Inline data sits after the inline segment's byte-count word: writing the
 * field's bytes in place changes exactly the payload the decoder returns. */
static void test_field_offset_inline_data(void **state)
{
	static const enum prism_opcode ops[] = {PRISM_OP_SEND, PRISM_OP_RDMA_WRITE_IMM};
	struct prism_wqe w, out;
	uint8_t buf[128];
	uint32_t off, len;

	(void)state;
	for (unsigned k = 0; k < 2; k++) {
		memset(&w, 0, sizeof(w));
		w.ctrl.opcode = ops[k];
		w.ctrl.ds = 0;
		w.has_raddr = ops[k] != PRISM_OP_SEND;
		w.is_inline = true;
		w.inline_len = 11;
		for (unsigned i = 0; i < w.inline_len; i++)
			w.inline_data[i] = (uint8_t)(i + 1);
		assert_true(prism_wqe_encode(&w, buf, sizeof(buf), NULL) > 0);
		assert_int_equal(prism_wqe_field_offset(&w, PRISM_FIELD_INLINE_DATA, &off, &len),
		                 0);
		assert_int_equal(off, ops[k] == PRISM_OP_SEND ? 20 : 36);
		assert_int_equal(len, 11);
		assert_memory_equal(buf + off, w.inline_data, len);
		for (unsigned i = 0; i < len; i++)
			buf[off + i] = (uint8_t)(0xa0 + i);
		assert_true(prism_wqe_decode(buf, sizeof(buf), &out, NULL) > 0);
		assert_true(out.is_inline);
		assert_int_equal(out.inline_len, 11);
		for (unsigned i = 0; i < len; i++)
			assert_int_equal(out.inline_data[i], 0xa0 + i);
	}
	/* no inline data: a gather list, a READ, an atomic */
	w.is_inline = false;
	assert_int_equal(prism_wqe_field_offset(&w, PRISM_FIELD_INLINE_DATA, &off, &len),
	                 PRISM_WQE_E_ARG);
	w.is_inline = true;
	w.ctrl.opcode = PRISM_OP_RDMA_READ;
	assert_int_equal(prism_wqe_field_offset(&w, PRISM_FIELD_INLINE_DATA, &off, &len),
	                 PRISM_WQE_E_ARG);
	w.ctrl.opcode = PRISM_OP_ATOMIC_CS;
	assert_int_equal(prism_wqe_field_offset(&w, PRISM_FIELD_INLINE_DATA, &off, &len),
	                 PRISM_WQE_E_ARG);
}

/* The WQE index field is bytes 1-2 of the control segment, big-endian. */
static void test_field_offset_wqe_index(void **state)
{
	struct prism_wqe w = {0};
	struct prism_ctrl_seg c;
	uint8_t buf[16];
	uint32_t off, len;

	(void)state;
	w.ctrl.opcode = PRISM_OP_RDMA_READ;
	w.ctrl.opmod = 0x5a;
	w.ctrl.wqe_index = 0x1234;
	w.ctrl.qpn = 0xabcdef;
	w.ctrl.ds = 3;
	prism_ctrl_seg_pack(&w.ctrl, buf);
	assert_int_equal(prism_wqe_field_offset(&w, PRISM_FIELD_CTRL_WQE_INDEX, &off, &len), 0);
	assert_int_equal(off, 1);
	assert_int_equal(len, 2);
	buf[off] = 0xbe;
	buf[off + 1] = 0xef;
	prism_ctrl_seg_unpack(buf, &c);
	assert_int_equal(c.wqe_index, 0xbeef);
	assert_int_equal(c.opmod, 0x5a);
	assert_int_equal(c.opcode, PRISM_OP_RDMA_READ);
	assert_int_equal(c.qpn, 0xabcdef);
	assert_int_equal(c.ds, 3);
}

static void test_field_names_complete(void **state)
{
	unsigned f;

	for (f = 0; f < PRISM_FIELD__COUNT; f++) {
		assert_non_null(prism_wqe_field_name((enum prism_wqe_field)f));
		assert_string_not_equal(prism_wqe_field_name((enum prism_wqe_field)f), "?");
	}
}

/* ---- printer ---- */

static void test_print_write_line(void **state)
{
	struct prism_wqe w = {0};
	uint8_t buf[64];
	char line[512];
	int n, full;

	w.ctrl = (struct prism_ctrl_seg){
	    .opcode = PRISM_OP_RDMA_WRITE_IMM,
	    .wqe_index = 3,
	    .qpn = 0x102,
	    .fm_ce_se = PRISM_FM_CE_SE(PRISM_FENCE_NONE, PRISM_CE_CQ_UPDATE, 0),
	    .imm = 0x2a};
	w.raddr = (struct prism_raddr_seg){.raddr = 0x1000, .rkey = 0x5};
	w.num_sge = 1;
	w.sge[0] = (struct prism_sge){.byte_count = 64, .lkey = 0x4, .addr = 0x2000};
	assert_int_equal(prism_wqe_encode(&w, buf, sizeof(buf), NULL), 48);
	assert_int_equal(prism_wqe_decode(buf, 48, &w, NULL), 48);
	n = prism_wqe_snprint(line, sizeof(line), &w, NULL, 0, 0);
	assert_int_equal(n, (int)strlen(line));
	assert_string_equal(line, "write_imm idx=3 qpn=0x000102 ds=3 ce=cq fm=none imm=0x0000002a "
	                          "raddr=0x1000 rkey=0x5 sge[0x2000+64 lkey=0x4]");
	full = n;
	n = prism_wqe_snprint(line, sizeof(line), &w, buf, sizeof(buf), PRISM_PRINT_RAW);
	assert_true(n > full);
	assert_non_null(strstr(line, " | 00000309 00010203 00000008 0000002a 00000000 00001000"));
	/* raw bytes stop at ds*16 even when more are given */
	assert_null(strstr(line, "00000000 00000000 00000000 00000000 00000000"));
	/* snprintf semantics: truncates, NUL-terminates, returns the full length */
	assert_int_equal(prism_wqe_snprint(line, 10, &w, NULL, 0, 0), full);
	assert_int_equal(strlen(line), 9);
	assert_int_equal(prism_wqe_snprint(NULL, 0, &w, NULL, 0, 0), full);
}

static void test_print_every_shape(void **state)
{
	struct prism_wqe w = {0};
	char line[512];

	w.ctrl.opcode = PRISM_OP_CQE_WAIT;
	w.ctrl.ds = 2;
	w.has_wait_en = true;
	w.wait_en = (struct prism_wait_en_seg){.index = 6, .obj_num = 0x2a};
	prism_wqe_snprint(line, sizeof(line), &w, NULL, 0, 0);
	assert_string_equal(line,
	                    "wait      idx=0 qpn=0x000000 ds=2 ce=none fm=none cq=0x2a cqe=6");

	w.ctrl.opcode = PRISM_OP_SEND_ENABLE;
	w.ctrl.fm_ce_se = PRISM_FM_CE_SE(PRISM_FENCE_SMALL_AND_FENCE, PRISM_CE_CQ_UPDATE_EVENT, 1);
	prism_wqe_snprint(line, sizeof(line), &w, NULL, 0, 0);
	assert_string_equal(line, "send_en   idx=0 qpn=0x000000 ds=2 ce=cq+ev fm=small+fence se "
	                          "sq=0x2a upto=6");

	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_ATOMIC_MASKED_CS;
	w.ctrl.opmod = 0x0a;
	w.has_atomic = w.has_raddr = true;
	w.atomic.size = 16;
	memset(w.atomic.swap_bytes, 0x11, 16);
	w.num_sge = 1;
	prism_wqe_snprint(line, sizeof(line), &w, NULL, 0, 0);
	assert_non_null(strstr(line, "mcas      idx=0 qpn=0x000000 ds=0 opmod=0x0a"));
	assert_non_null(
	    strstr(line, " size=16 swap=0x11111111111111111111111111111111 cmp=0x0000"));

	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_SEND;
	w.is_inline = true;
	w.inline_len = 3;
	memcpy(w.inline_data, "abc", 3);
	prism_wqe_snprint(line, sizeof(line), &w, NULL, 0, 0);
	assert_non_null(strstr(line, "inline[3]=616263"));

	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_CQE_WAIT;
	w.ctrl.opmod = PRISM_WAIT_ON_DATA;
	w.has_wod = true;
	w.wod = (struct prism_wod_seg){.cond = PRISM_WOD_EQUAL | PRISM_WOD_INVERT, .addr = 0x40};
	prism_wqe_snprint(line, sizeof(line), &w, NULL, 0, 0);
	assert_non_null(strstr(line, "cond=eq|inv lkey=0x0 addr=0x40"));

	w.ctrl.opcode = 0x33;
	prism_wqe_snprint(line, sizeof(line), &w, NULL, 0, 0);
	assert_non_null(strstr(line, "op(0x33)"));
}

static void test_print_cqe(void **state)
{
	struct prism_cqe c = {.opcode = PRISM_CQE_REQ_ERR,
	                      .owner = 1,
	                      .wqe_counter = 9,
	                      .qpn = 0x12,
	                      .syndrome = PRISM_SYND_LOCAL_PROT_ERR,
	                      .wqe_opcode = PRISM_OP_RDMA_WRITE};
	char line[256];

	prism_cqe_snprint(line, sizeof(line), &c);
	assert_string_equal(line, "cqe REQ_ERR       owner=1 wqe=9 qpn=0x000012 syndrome=0x04 "
	                          "(local protection error) vendor=0x00 wqe_op=RDMA_WRITE");
	c = (struct prism_cqe){.opcode = PRISM_CQE_REQ, .wqe_counter = 1, .byte_count = 8};
	prism_cqe_snprint(line, sizeof(line), &c);
	assert_string_equal(line,
	                    "cqe REQ           owner=0 wqe=1 qpn=0x000000 bytes=8 imm=0x00000000");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rwqe_round_trip_with_terminator),
	    cmocka_unit_test(test_rwqe_full_stride_and_errors),
	    cmocka_unit_test(test_cqe_success_layout_matches_mlx5_cqe64),
	    cmocka_unit_test(test_cqe_error_layout_matches_mlx5_err_cqe),
	    cmocka_unit_test(test_cqe_encode_body_matches_encode),
	    cmocka_unit_test(test_cqe_reserved_opcode_and_owner),
	    cmocka_unit_test(test_field_offsets_hit_their_fields),
	    cmocka_unit_test(test_field_offset_inline_data),
	    cmocka_unit_test(test_field_offset_wqe_index),
	    cmocka_unit_test(test_field_names_complete),
	    cmocka_unit_test(test_print_write_line),
	    cmocka_unit_test(test_print_every_shape),
	    cmocka_unit_test(test_print_cqe),
	};

	return cmocka_run_group_tests_name("wqe_misc", tests, NULL, NULL);
}
