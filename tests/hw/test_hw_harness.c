/* SPDX-License-Identifier: MIT */
/*
 * tests/hw/test_hw_harness.c - the hardware harness's own logic, checked
 * without a device (so it runs everywhere): the raw mlx5 path on queue
 * memory laid out as mlx5dv_init_obj describes it (send-queue slots hold the
 * codec's bytes, the doorbell record and UAR word are right, receive WQEs
 * decode back, CQ polling honours the owner bit and 128-byte CQEs), the
 * verbs translation (WQE -> ibv_send_wr, ibv_wc -> CQE, status -> mlx5
 * syndrome as rdma-core's mlx5 provider maps it), and the DEVX capability
 * bit decoding.
 *
 * Owns: fake queue memory for these checks.  Must not: open a device.
 */
#include <endian.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/hw/hw_common.h"

#define SQ_BBS   16
#define RQ_N     8
#define RQ_DS    4
#define CQ_N     4
#define FAKE_QPN 0x1234u

struct fake {
	struct hw_env env;
	uint8_t sq[SQ_BBS * PRISM_WQE_BB] __attribute__((aligned(64)));
	uint8_t rq[RQ_N * RQ_DS * 16];
	__be32 dbrec[2];
	uint64_t uar;
	uint8_t cq[CQ_N * 128];
	__be32 cq_dbrec[2];
};

static int setup(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct hw_qp *q = &f->env.a;

	f->env.path = HW_PATH_RAW;
	f->env.is_mlx5 = true;
	snprintf(f->env.name, sizeof(f->env.name), "fake");
	q->env = &f->env;
	q->qpn = FAKE_QPN;
	q->dv.dbrec = f->dbrec;
	q->dv.sq.buf = f->sq;
	q->dv.sq.wqe_cnt = SQ_BBS;
	q->dv.sq.stride = PRISM_WQE_BB;
	q->dv.rq.buf = f->rq;
	q->dv.rq.wqe_cnt = RQ_N;
	q->dv.rq.stride = RQ_DS * 16;
	q->dv.bf.reg = &f->uar;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

static void fake_cq(struct fake *f, struct hw_cq *c, uint32_t cqe_size)
{
	memset(c, 0, sizeof(*c));
	c->dv.buf = f->cq;
	c->dv.dbrec = f->cq_dbrec;
	c->dv.cqe_cnt = CQ_N;
	c->dv.cqe_size = cqe_size;
	/* as the provider leaves a fresh CQ: every CQE invalid, owner 0 */
	for (unsigned i = 0; i < CQ_N; i++)
		f->cq[i * cqe_size + cqe_size - 1] = PRISM_CQE_INVALID << 4;
}

/* the WQE as the codec encodes it at @counter for the fake QP */
static int expected_bytes(struct prism_wqe w, uint32_t counter, uint8_t *out, size_t cap)
{
	memset(out, 0, cap);
	w.ctrl.wqe_index = (uint16_t)counter;
	w.ctrl.qpn = FAKE_QPN;
	return prism_wqe_encode(&w, out, cap, NULL);
}

static void raw_post_writes_codec_bytes(void **state)
{
	struct fake *f = *state;
	struct hw_qp *q = &f->env.a;
	uint8_t want[PRISM_WQE_MAX_BB * PRISM_WQE_BB];
	struct prism_wqe w, r;
	uint32_t c0, c1;
	uint64_t db;
	int n;

	hw_rw(&w, PRISM_OP_RDMA_WRITE, 0x1000, 5, 0x2000, 6, 64, true);
	c0 = hw_post(q, &w);
	n = expected_bytes(w, c0, want, sizeof(want));
	assert_int_equal(c0, 0);
	assert_memory_equal(hw_sq_slot(q, c0), want, (size_t)n);

	hw_rw(&r, PRISM_OP_RDMA_READ, 0x3000, 7, 0, 0, 0, false);
	r.num_sge = 3;
	r.sge[0] = (struct prism_sge){8, 8, 0x4000};
	r.sge[1] = (struct prism_sge){1, 8, 0x4100};
	r.sge[2] = (struct prism_sge){100, 8, 0x4200};
	c1 = hw_post(q, &r);
	assert_int_equal(c1, 1);
	n = expected_bytes(r, c1, want, sizeof(want));
	assert_int_equal(prism_wqe_bbs((unsigned)n / 16), 2); /* 5 DS: two BBs */
	assert_memory_equal(hw_sq_slot(q, 1), want, 64);
	assert_memory_equal(hw_sq_slot(q, 2), want + 64, (size_t)n - 64);
	assert_int_equal(q->sq_pi, 3);

	assert_int_equal(f->uar, 0); /* nothing rung yet */
	hw_ring(q);
	assert_int_equal(be32toh(f->dbrec[MLX5_SND_DBR]), 3);
	memcpy(&db, want, 8); /* the last WQE's first 8 control bytes */
	assert_int_equal(f->uar, db);
	assert_false(q->posted);
}

static void raw_doorbell_carries_true_index(void **state)
{
	struct fake *f = *state;
	struct hw_qp *q = &f->env.a;
	struct prism_ctrl_seg c;
	struct prism_wqe w;
	uint8_t db[16] = {0};

	hw_nop(&w, true);
	w.ctrl.wqe_index = 77;
	w.ctrl.qpn = 0xabcdef;
	hw_post_ex(q, &w, true);
	/* the slot keeps the deliberately wrong fields ... */
	prism_ctrl_seg_unpack(hw_sq_slot(q, 0), &c);
	assert_int_equal(c.wqe_index, 77);
	assert_int_equal(c.qpn, 0xabcdef);
	/* ... the doorbell states where the producer really is */
	hw_ring(q);
	memcpy(db, &f->uar, 8);
	prism_ctrl_seg_unpack(db, &c);
	assert_int_equal(c.wqe_index, 0);
	assert_int_equal(c.qpn, FAKE_QPN);
	assert_int_equal(c.opcode, PRISM_OP_NOP);
	assert_int_equal(c.ds, 1);
}

/* the cross-channel tests' WQEs (indices wider than 16/24 bits included)
 * go through the codec into the ring and decode back unchanged */
static void raw_post_ordering_wqes(void **state)
{
	struct fake *f = *state;
	struct hw_qp *q = &f->env.a;
	struct prism_wqe w, back;
	uint32_t c;

	hw_nop(&w, false);
	w.ctrl.opcode = PRISM_OP_CQE_WAIT;
	w.wait_en.obj_num = 0x77;
	w.wait_en.index = 0x5000001;
	c = hw_post(q, &w);
	assert_true(prism_wqe_decode(hw_sq_slot(q, c), PRISM_WQE_BB, &back, NULL) > 0);
	assert_int_equal(back.ctrl.opcode, PRISM_OP_CQE_WAIT);
	assert_int_equal(back.wait_en.obj_num, 0x77);
	assert_int_equal(back.wait_en.index & 0xffffff, 1);
	hw_nop(&w, true);
	w.ctrl.opcode = PRISM_OP_SEND_ENABLE;
	w.wait_en.obj_num = 0x99;
	w.wait_en.index = 0x10002;
	c = hw_post(q, &w);
	assert_true(prism_wqe_decode(hw_sq_slot(q, c), PRISM_WQE_BB, &back, NULL) > 0);
	assert_int_equal(back.ctrl.opcode, PRISM_OP_SEND_ENABLE);
	assert_int_equal(back.wait_en.obj_num, 0x99);
	assert_int_equal(back.wait_en.index & 0xffff, 2);
	assert_int_equal(back.ctrl.wqe_index, c);
	assert_int_equal(back.ctrl.qpn, FAKE_QPN);
}

/* masked atomics of every size the atomics suite posts encode (opmod from
 * the size) and occupy the BBs their segments need */
static void raw_post_masked_atomics(void **state)
{
	static const struct {
		uint8_t op;
		unsigned size, bbs;
	} cases[] = {
	    {PRISM_OP_ATOMIC_MASKED_CS, 4, 1},  {PRISM_OP_ATOMIC_MASKED_CS, 8, 2},
	    {PRISM_OP_ATOMIC_MASKED_CS, 16, 2}, {PRISM_OP_ATOMIC_MASKED_CS, 32, 3},
	    {PRISM_OP_ATOMIC_MASKED_FA, 8, 1},  {PRISM_OP_ATOMIC_MASKED_FA, 16, 2},
	};
	struct fake *f = *state;
	struct hw_qp *q = &f->env.a;

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct prism_wqe w, back;
		uint32_t c, before = q->sq_pi;

		hw_atomic(&w, cases[i].op, 0x1000, 5, 0, 0, 0x2000, 6, true);
		w.atomic.size = (uint8_t)cases[i].size;
		w.sge[0].byte_count = cases[i].size;
		memset(w.atomic.swap_bytes, 0xff, sizeof(w.atomic.swap_bytes));
		memset(w.atomic.swap_mask_bytes, 0x80, sizeof(w.atomic.swap_mask_bytes));
		c = hw_post(q, &w);
		assert_int_equal(q->sq_pi - before, cases[i].bbs);
		assert_true(prism_wqe_decode(hw_sq_slot(q, c), (size_t)cases[i].bbs * PRISM_WQE_BB,
		                             &back, NULL) > 0);
		assert_int_equal(back.ctrl.opcode, cases[i].op);
		assert_int_equal(back.atomic.size, cases[i].size);
		assert_int_equal(back.sge[0].byte_count, cases[i].size);
	}
}

static void raw_post_recv_codec_bytes(void **state)
{
	struct fake *f = *state;
	struct hw_qp *q = &f->env.a;
	struct prism_sge in[2] = {{16, 3, 0x5000}, {32, 4, 0x6000}}, out[RQ_DS];

	assert_int_equal(hw_post_recv(q, in, 2), 0);
	assert_int_equal(be32toh(f->dbrec[MLX5_RCV_DBR]), 1);
	assert_int_equal(prism_rwqe_decode(f->rq, RQ_DS, out, RQ_DS, NULL), 2);
	assert_memory_equal(out, in, sizeof(in));
	assert_int_equal(hw_post_recv(q, NULL, 0), 1);
	assert_int_equal(be32toh(f->dbrec[MLX5_RCV_DBR]), 2);
	assert_int_equal(prism_rwqe_decode(f->rq + RQ_DS * 16, RQ_DS, out, RQ_DS, NULL), 0);
}

static void put_cqe(struct fake *f, uint32_t cqe_size, uint32_t slot, uint16_t counter,
                    uint8_t owner)
{
	struct prism_cqe c = {.opcode = PRISM_CQE_REQ,
	                      .owner = owner,
	                      .wqe_counter = counter,
	                      .qpn = FAKE_QPN,
	                      .byte_count = 8};

	prism_cqe_encode(&c, f->cq + slot * cqe_size + (cqe_size - 64));
}

static void check_owner_bit(struct fake *f, uint32_t cqe_size)
{
	struct prism_cqe out;
	struct hw_cq cq;

	fake_cq(f, &cq, cqe_size);
	assert_int_equal(hw_raw_poll(&cq, &out), 0); /* fresh: all invalid */
	assert_int_equal(hw_raw_peek(&cq, 0, &out), -1);
	for (uint16_t i = 0; i < CQ_N; i++) {
		put_cqe(f, cqe_size, i, i, 0); /* first pass: owner 0 */
		assert_int_equal(hw_raw_poll(&cq, &out), 1);
		assert_int_equal(out.wqe_counter, i);
		assert_int_equal(out.qpn, FAKE_QPN);
		assert_int_equal(be32toh(f->cq_dbrec[0]), i + 1u);
	}
	/* wrapped: slot 0 still holds the old owner-0 CQE, not ours yet */
	assert_int_equal(hw_raw_poll(&cq, &out), 0);
	assert_int_equal(hw_raw_peek(&cq, CQ_N, &out), 0); /* peek ignores the owner bit */
	assert_int_equal(out.wqe_counter, 0);
	assert_int_equal(out.owner, 0);
	put_cqe(f, cqe_size, 0, 4, 1);
	assert_int_equal(hw_raw_poll(&cq, &out), 1);
	assert_int_equal(out.wqe_counter, 4);
	assert_int_equal(cq.ci, 5);
}

static void raw_poll_follows_owner_bit(void **state)
{
	check_owner_bit(*state, 64);
}

static void raw_poll_reads_128_byte_cqes(void **state)
{
	check_owner_bit(*state, 128);
}

static void verbs_translates_write_imm(void **state)
{
	struct prism_wqe w;
	struct ibv_send_wr wr;
	struct ibv_sge sge[PRISM_WQE_MAX_SGE];
	uint8_t inl[PRISM_WQE_MAX_INLINE];

	hw_rw(&w, PRISM_OP_RDMA_WRITE_IMM, 0x1000, 5, 0x2000, 6, 64, true);
	w.ctrl.imm = 0xabcd1234;
	w.ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_SMALL_AND_FENCE, PRISM_CE_CQ_UPDATE, true);
	assert_int_equal(hw_verbs_translate(&w, 9, &wr, sge, inl), 0);
	assert_int_equal(wr.opcode, IBV_WR_RDMA_WRITE_WITH_IMM);
	assert_int_equal(wr.wr_id, 9);
	assert_int_equal(wr.send_flags, IBV_SEND_SIGNALED | IBV_SEND_FENCE | IBV_SEND_SOLICITED);
	assert_int_equal(wr.imm_data, htobe32(0xabcd1234));
	assert_int_equal(wr.wr.rdma.remote_addr, 0x1000);
	assert_int_equal(wr.wr.rdma.rkey, 5);
	assert_int_equal(wr.num_sge, 1);
	assert_int_equal(sge[0].addr, 0x2000);
	assert_int_equal(sge[0].length, 64);
	assert_int_equal(sge[0].lkey, 6);

	/* unsignaled inline WRITE: the bytes are copied, the flag set */
	hw_rw(&w, PRISM_OP_RDMA_WRITE, 0x1000, 5, 0, 0, 0, false);
	w.num_sge = 0;
	w.is_inline = true;
	w.inline_len = 5;
	memcpy(w.inline_data, "hello", 5);
	assert_int_equal(hw_verbs_translate(&w, 10, &wr, sge, inl), 0);
	assert_int_equal(wr.send_flags, IBV_SEND_INLINE);
	assert_int_equal(sge[0].addr, (uintptr_t)inl);
	assert_memory_equal(inl, "hello", 5);
}

static void verbs_translates_atomics(void **state)
{
	struct prism_wqe w;
	struct ibv_send_wr wr;
	struct ibv_sge sge[PRISM_WQE_MAX_SGE];
	uint8_t inl[8];

	hw_atomic(&w, PRISM_OP_ATOMIC_CS, 0x1000, 5, 9, 5, 0x2000, 6, true);
	assert_int_equal(hw_verbs_translate(&w, 0, &wr, sge, inl), 0);
	assert_int_equal(wr.opcode, IBV_WR_ATOMIC_CMP_AND_SWP);
	assert_int_equal(wr.wr.atomic.compare_add, 5);
	assert_int_equal(wr.wr.atomic.swap, 9);
	assert_int_equal(wr.wr.atomic.remote_addr, 0x1000);
	hw_atomic(&w, PRISM_OP_ATOMIC_FA, 0x1000, 5, 3, 0, 0x2000, 6, true);
	assert_int_equal(hw_verbs_translate(&w, 0, &wr, sge, inl), 0);
	assert_int_equal(wr.opcode, IBV_WR_ATOMIC_FETCH_AND_ADD);
	assert_int_equal(wr.wr.atomic.compare_add, 3);
}

static void verbs_refuses_what_verbs_cannot_say(void **state)
{
	static const uint8_t ops[] = {
	    PRISM_OP_NOP,      PRISM_OP_ATOMIC_MASKED_CS, PRISM_OP_ATOMIC_MASKED_FA,
	    PRISM_OP_CQE_WAIT, PRISM_OP_SEND_ENABLE,      PRISM_OP_RECV_ENABLE};
	struct prism_wqe w;
	struct ibv_send_wr wr;
	struct ibv_sge sge[PRISM_WQE_MAX_SGE];
	uint8_t inl[8];

	for (unsigned i = 0; i < sizeof(ops); i++) {
		hw_nop(&w, true);
		w.ctrl.opcode = ops[i];
		assert_int_equal(hw_verbs_translate(&w, 0, &wr, sge, inl), -ENOTSUP);
	}
}

/* rdma-core providers/mlx5/cq.c mlx5_handle_error_cqe, read backwards */
static void verbs_status_maps_to_mlx5_syndrome(void **state)
{
	static const struct {
		enum ibv_wc_status st;
		uint8_t synd;
	} map[] = {
	    {IBV_WC_LOC_LEN_ERR, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR},
	    {IBV_WC_LOC_QP_OP_ERR, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR},
	    {IBV_WC_LOC_PROT_ERR, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR},
	    {IBV_WC_WR_FLUSH_ERR, MLX5_CQE_SYNDROME_WR_FLUSH_ERR},
	    {IBV_WC_MW_BIND_ERR, MLX5_CQE_SYNDROME_MW_BIND_ERR},
	    {IBV_WC_BAD_RESP_ERR, MLX5_CQE_SYNDROME_BAD_RESP_ERR},
	    {IBV_WC_LOC_ACCESS_ERR, MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR},
	    {IBV_WC_REM_INV_REQ_ERR, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR},
	    {IBV_WC_REM_ACCESS_ERR, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR},
	    {IBV_WC_REM_OP_ERR, MLX5_CQE_SYNDROME_REMOTE_OP_ERR},
	    {IBV_WC_RETRY_EXC_ERR, MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR},
	    {IBV_WC_RNR_RETRY_EXC_ERR, MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR},
	    {IBV_WC_REM_ABORT_ERR, MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR},
	};
	struct ibv_wc wc;
	struct prism_cqe c;

	for (unsigned i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		assert_int_equal(hw_verbs_syndrome(map[i].st), map[i].synd);
	memset(&wc, 0, sizeof(wc));
	wc.status = IBV_WC_WR_FLUSH_ERR;
	wc.wr_id = 0x10003;
	hw_verbs_wc_to_cqe(&wc, true, &c);
	assert_int_equal(c.opcode, PRISM_CQE_RESP_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_WR_FLUSH_ERR);
	assert_int_equal(c.wqe_counter, 3);
	memset(&wc, 0, sizeof(wc));
	wc.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
	wc.wc_flags = IBV_WC_WITH_IMM;
	wc.imm_data = htobe32(0xabcd1234);
	wc.byte_len = 64;
	hw_verbs_wc_to_cqe(&wc, true, &c);
	assert_int_equal(c.opcode, PRISM_CQE_RESP_WR_IMM);
	assert_int_equal(c.imm, 0xabcd1234);
	assert_int_equal(c.byte_count, 64);
	wc.opcode = IBV_WC_RECV;
	hw_verbs_wc_to_cqe(&wc, true, &c);
	assert_int_equal(c.opcode, PRISM_CQE_RESP_SEND_IMM);
	wc.wc_flags = 0;
	hw_verbs_wc_to_cqe(&wc, true, &c);
	assert_int_equal(c.opcode, PRISM_CQE_RESP_SEND);
}

static void set_bits(uint8_t *cap, unsigned off, unsigned width, uint32_t v)
{
	for (unsigned i = 0; i < width; i++) {
		unsigned bit = off + i;

		if (v >> (width - 1 - i) & 1)
			cap[bit / 8] |= (uint8_t)(0x80u >> (bit % 8));
	}
}

/* mlx5_ifc.h: cmd_hca_cap.cd at 0x22c; atomic_caps at 0x40 / 0x90 / 0xb0 */
static void devx_caps_decode_ifc_offsets(void **state)
{
	static uint8_t gen[4096], atom[4096];
	struct hw_mlx5_caps caps;

	memset(&caps, 0, sizeof(caps));
	hw_mlx5_caps_decode(gen, atom, &caps);
	assert_false(caps.cd);
	assert_int_equal(caps.atomic_ops, 0);
	set_bits(gen, 0x22c, 1, 1);
	set_bits(gen, 0x22d, 1, 1); /* the neighbour (reserved) must not leak in */
	set_bits(gen, 0x68c, 1, 1);
	set_bits(atom, 0x40, 2, 1);
	set_bits(atom, 0x90, 16, 0x000f);
	set_bits(atom, 0xb0, 16, 0x0038);
	hw_mlx5_caps_decode(gen, atom, &caps);
	assert_true(caps.cd);
	assert_false(caps.wait_on_data);
	assert_true(caps.wait_on_time);
	assert_int_equal(caps.endianness_mode, 1);
	assert_int_equal(caps.atomic_ops, 0x000f);
	assert_int_equal(caps.atomic_size_qp, 0x0038);
	/* bit 0x22c is bit 19 of big-endian dword 17 */
	assert_int_equal(gen[0x22c / 8], 0x0c);
	assert_int_equal(hw_cap_bits(gen, 0x220, 16), 0x000c);
}

/*
 * The DEVX commands, against byte positions worked out by hand from
 * mlx5_ifc.h's reserved_at_<bit> names: qpc starts at bit 0xc0 of the
 * command; cd_master is qpc bit 0x49f (reserved_at_4a0 follows it), so
 * command bit 0x55f: byte 0xab, mask 0x01.
 */
static void devx_create_qp_fields(void **state)
{
	struct hw_xqp_params p = {.roles = HW_XQP_MASTER | HW_XQP_MANAGED_SEND,
	                          .pdn = 0x123456,
	                          .uar_page = 0x42,
	                          .cqn_snd = 0xabc,
	                          .cqn_rcv = 0xdef,
	                          .wq_umem_id = 0x11223344,
	                          .dbr_umem_id = 0x55667788,
	                          .sq_bbs = 64,
	                          .rq_wqes = 16,
	                          .rq_stride = 64};
	uint8_t in[HW_XQP_CMD_BYTES];

	hw_xqp_build_create(in, &p);
	assert_int_equal(in[0] << 8 | in[1], 0x500);                  /* CREATE_QP */
	assert_int_equal(in[0xab] & 0x07, 0x01 | 0x02);               /* cd_master, cd_slave_send */
	assert_int_equal(hw_cap_bits(in, 0xc0 + 0x28, 24), 0x123456); /* pd */
	assert_int_equal(in[0xc0 / 8 + 0x28 / 8], 0x12);
	assert_int_equal(hw_cap_bits(in, 0xc0 + 0x51, 4), 6);    /* log_sq_size */
	assert_int_equal(hw_cap_bits(in, 0xc0 + 0x49, 4), 4);    /* log_rq_size */
	assert_int_equal(hw_cap_bits(in, 0xc0 + 0x4d, 3), 2);    /* 64 = 16 << 2 */
	assert_int_equal(in[0xc0 / 8 + 0x3e8 / 8 + 2], 0xbc);    /* cqn_snd low byte */
	assert_int_equal(in[0xc0 / 8 + 0x4e8 / 8 + 2], 0xef);    /* cqn_rcv low byte */
	assert_int_equal(in[0xc0 / 8 + 0x683 / 8] & 0x10, 0x10); /* dbr_umem_valid */
	assert_int_equal(in[0xfc], 0x55);                        /* dbr_umem_id */
	assert_int_equal(in[0x108], 0x11);                       /* wq_umem_id */
	assert_int_equal(in[0x10c] & 0x80, 0x80);                /* wq_umem_valid */
	p.roles = HW_XQP_MASTER | HW_XQP_MANAGED_RECV;
	hw_xqp_build_create(in, &p);
	assert_int_equal(in[0xab] & 0x07, 0x01 | 0x04);
}

static void devx_modify_qp_fields(void **state)
{
	struct hw_xqp_params p = {.port = 1, .mtu = 3, .remote_qpn = 0x00beef};
	uint8_t in[HW_XQP_CMD_BYTES];

	assert_int_equal(hw_xqp_build_modify(in, 1, 0x000123, &p), 0);
	assert_int_equal(in[0] << 8 | in[1], 0x503); /* INIT2RTR_QP */
	assert_int_equal(in[11], 0x23);              /* qpn, bits 0x48.. */
	assert_int_equal(in[0x30] & 0x80, 0x80);     /* primary_address_path.fl */
	assert_int_equal(in[0x2f], 0xef);            /* remote_qpn low byte */
	assert_int_equal(in[0x2e], 0xbe);
	assert_int_equal(hw_cap_bits(in, 0xc0 + 0x40, 3), 3); /* mtu */
	assert_int_equal(in[0x18 + 0x18 + 0x25], 1);          /* pap.vhca_port_num */
	assert_int_equal(hw_xqp_build_modify(in, 0, 0x123, &p), 0);
	assert_int_equal(in[0] << 8 | in[1], 0x502);
	assert_int_equal(in[0x18 + 0x92] & 0xc0, 0xc0); /* rre, rwe */
	assert_int_equal(hw_xqp_build_modify(in, 2, 0x123, &p), 0);
	assert_int_equal(in[0] << 8 | in[1], 0x504);
	assert_int_equal(hw_cap_bits(in, 0xc0 + 0x390, 3), 7); /* rnr_retry */
	assert_int_equal(hw_xqp_build_modify(in, 3, 0x123, &p), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(raw_post_writes_codec_bytes, setup, teardown),
	    cmocka_unit_test_setup_teardown(raw_doorbell_carries_true_index, setup, teardown),
	    cmocka_unit_test_setup_teardown(raw_post_ordering_wqes, setup, teardown),
	    cmocka_unit_test_setup_teardown(raw_post_masked_atomics, setup, teardown),
	    cmocka_unit_test_setup_teardown(raw_post_recv_codec_bytes, setup, teardown),
	    cmocka_unit_test_setup_teardown(raw_poll_follows_owner_bit, setup, teardown),
	    cmocka_unit_test_setup_teardown(raw_poll_reads_128_byte_cqes, setup, teardown),
	    cmocka_unit_test(verbs_translates_write_imm),
	    cmocka_unit_test(verbs_translates_atomics),
	    cmocka_unit_test(verbs_refuses_what_verbs_cannot_say),
	    cmocka_unit_test(verbs_status_maps_to_mlx5_syndrome),
	    cmocka_unit_test(devx_caps_decode_ifc_offsets),
	    cmocka_unit_test(devx_create_qp_fields),
	    cmocka_unit_test(devx_modify_qp_fields),
	};

	return cmocka_run_group_tests_name("test_hw_harness", tests, NULL, NULL);
}
