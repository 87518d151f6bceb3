/* SPDX-License-Identifier: MIT */
/*
 * wqe_abi_check.c - compile-time proof that the codec matches rdma-core.
 *
 * Owns: a _Static_assert for every struct and constant that the installed
 * <infiniband/mlx5dv.h> defines and that <prism/wqe.h> or the codec mirrors:
 * segment sizes and field offsets (ctrl, data, raddr, atomic, inline, cqe64,
 * err_cqe), opcodes, CQE opcodes and syndromes, ctrl flags, MLX5_INVALID_LKEY,
 * MLX5_INLINE_SEG and MLX5_SEND_WQE_BB.  It is part of the library, so every
 * build checks it; it emits no code.
 *
 * Must not: contain code, or be the place where the codec gets its values
 * (the codec never includes mlx5dv.h; this file only compares).
 *
 * WAIT, SEND_EN, RECV_EN and the masked-atomic layouts are not in mlx5dv.h
 * (they come from DPDK's mlx5_prm.h and MLNX_OFED's libmlx5); the tests pin
 * them with golden byte images instead.
 */
#include <stddef.h>

#include <infiniband/mlx5dv.h>

#include <prism/wqe.h>

#include "wqe_layout.h"

/* Compared as plain integers: the two sides are different enum types. */
#define SAME(ours, theirs)                                                                         \
	_Static_assert((long long)(ours) == (long long)(theirs), #ours " != " #theirs)

/* Geometry. */
SAME(PRISM_WQE_BB, MLX5_SEND_WQE_BB);
SAME(1u << MLX5_SEND_WQE_SHIFT, PRISM_WQE_BB);
SAME(PRISM_INVALID_LKEY, MLX5_INVALID_LKEY);
SAME(PRISM_INLINE_SEG, MLX5_INLINE_SEG);

/* Segment sizes. */
SAME(WQE_CTRL_BYTES, sizeof(struct mlx5_wqe_ctrl_seg));
SAME(WQE_DATA_BYTES, sizeof(struct mlx5_wqe_data_seg));
SAME(WQE_RADDR_BYTES, sizeof(struct mlx5_wqe_raddr_seg));
SAME(WQE_ATOMIC_BYTES, sizeof(struct mlx5_wqe_atomic_seg));
SAME(WQE_INLINE_HDR, sizeof(struct mlx5_wqe_inl_data_seg));
SAME(PRISM_WQE_DS_BYTES, sizeof(struct mlx5_wqe_data_seg));
SAME(PRISM_CQE_BYTES, sizeof(struct mlx5_cqe64));
SAME(PRISM_CQE_BYTES, sizeof(struct mlx5_err_cqe));

/* Control segment: the offsets drawn in wqe_ctrl.c and used by the field table. */
SAME(0, offsetof(struct mlx5_wqe_ctrl_seg, opmod_idx_opcode));
SAME(4, offsetof(struct mlx5_wqe_ctrl_seg, qpn_ds));
SAME(8, offsetof(struct mlx5_wqe_ctrl_seg, signature));
SAME(9, offsetof(struct mlx5_wqe_ctrl_seg, dci_stream_channel_id));
SAME(11, offsetof(struct mlx5_wqe_ctrl_seg, fm_ce_se));
SAME(12, offsetof(struct mlx5_wqe_ctrl_seg, imm));

/* Data, raddr, atomic segments. */
SAME(0, offsetof(struct mlx5_wqe_data_seg, byte_count));
SAME(4, offsetof(struct mlx5_wqe_data_seg, lkey));
SAME(8, offsetof(struct mlx5_wqe_data_seg, addr));
SAME(0, offsetof(struct mlx5_wqe_raddr_seg, raddr));
SAME(8, offsetof(struct mlx5_wqe_raddr_seg, rkey));
SAME(12, offsetof(struct mlx5_wqe_raddr_seg, reserved));
SAME(0, offsetof(struct mlx5_wqe_atomic_seg, swap_add));
SAME(8, offsetof(struct mlx5_wqe_atomic_seg, compare));

/* 64-byte CQE, success and error views (offsets used in wqe_cqe.c). */
SAME(32, offsetof(struct mlx5_cqe64, srqn_uidx));
SAME(36, offsetof(struct mlx5_cqe64, imm_inval_pkey));
SAME(44, offsetof(struct mlx5_cqe64, byte_cnt));
SAME(48, offsetof(struct mlx5_cqe64, timestamp));
SAME(56, offsetof(struct mlx5_cqe64, sop_drop_qpn));
SAME(60, offsetof(struct mlx5_cqe64, wqe_counter));
SAME(62, offsetof(struct mlx5_cqe64, signature));
SAME(63, offsetof(struct mlx5_cqe64, op_own));
SAME(32, offsetof(struct mlx5_err_cqe, srqn));
SAME(54, offsetof(struct mlx5_err_cqe, vendor_err_synd));
SAME(55, offsetof(struct mlx5_err_cqe, syndrome));
SAME(56, offsetof(struct mlx5_err_cqe, s_wqe_opcode_qpn));
SAME(60, offsetof(struct mlx5_err_cqe, wqe_counter));
SAME(62, offsetof(struct mlx5_err_cqe, signature));
SAME(63, offsetof(struct mlx5_err_cqe, op_own));
SAME(1, MLX5_CQE_OWNER_MASK);

/* Send opcodes that mlx5dv.h defines (WAIT and the ENABLEs it does not). */
SAME(PRISM_OP_NOP, MLX5_OPCODE_NOP);
SAME(PRISM_OP_RDMA_WRITE, MLX5_OPCODE_RDMA_WRITE);
SAME(PRISM_OP_RDMA_WRITE_IMM, MLX5_OPCODE_RDMA_WRITE_IMM);
SAME(PRISM_OP_SEND, MLX5_OPCODE_SEND);
SAME(PRISM_OP_SEND_IMM, MLX5_OPCODE_SEND_IMM);
SAME(PRISM_OP_RDMA_READ, MLX5_OPCODE_RDMA_READ);
SAME(PRISM_OP_ATOMIC_CS, MLX5_OPCODE_ATOMIC_CS);
SAME(PRISM_OP_ATOMIC_FA, MLX5_OPCODE_ATOMIC_FA);
SAME(PRISM_OP_ATOMIC_MASKED_CS, MLX5_OPCODE_ATOMIC_MASKED_CS);
SAME(PRISM_OP_ATOMIC_MASKED_FA, MLX5_OPCODE_ATOMIC_MASKED_FA);

/* Control-segment flags. */
SAME(PRISM_CTRL_SE, MLX5_WQE_CTRL_SOLICITED);
SAME(PRISM_CE_CQ_UPDATE << PRISM_CTRL_CE_SHIFT, MLX5_WQE_CTRL_CQ_UPDATE);
SAME(PRISM_FENCE_INITIATOR_SMALL << PRISM_CTRL_FM_SHIFT, MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE);
SAME(PRISM_FENCE_SMALL_AND_FENCE << PRISM_CTRL_FM_SHIFT, MLX5_WQE_CTRL_FENCE);
SAME(PRISM_FM_CE_SE(PRISM_FENCE_SMALL_AND_FENCE, PRISM_CE_CQ_UPDATE, 1),
     MLX5_WQE_CTRL_FENCE | MLX5_WQE_CTRL_CQ_UPDATE | MLX5_WQE_CTRL_SOLICITED);

/* CQE opcodes. */
SAME(PRISM_CQE_REQ, MLX5_CQE_REQ);
SAME(PRISM_CQE_RESP_WR_IMM, MLX5_CQE_RESP_WR_IMM);
SAME(PRISM_CQE_RESP_SEND, MLX5_CQE_RESP_SEND);
SAME(PRISM_CQE_RESP_SEND_IMM, MLX5_CQE_RESP_SEND_IMM);
SAME(PRISM_CQE_REQ_ERR, MLX5_CQE_REQ_ERR);
SAME(PRISM_CQE_RESP_ERR, MLX5_CQE_RESP_ERR);
SAME(PRISM_CQE_INVALID, MLX5_CQE_INVALID);

/* CQE error syndromes. */
SAME(PRISM_SYND_LOCAL_LENGTH_ERR, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
SAME(PRISM_SYND_LOCAL_QP_OP_ERR, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
SAME(PRISM_SYND_LOCAL_PROT_ERR, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
SAME(PRISM_SYND_WR_FLUSH_ERR, MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
SAME(PRISM_SYND_MW_BIND_ERR, MLX5_CQE_SYNDROME_MW_BIND_ERR);
SAME(PRISM_SYND_BAD_RESP_ERR, MLX5_CQE_SYNDROME_BAD_RESP_ERR);
SAME(PRISM_SYND_LOCAL_ACCESS_ERR, MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR);
SAME(PRISM_SYND_REMOTE_INVAL_REQ_ERR, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
SAME(PRISM_SYND_REMOTE_ACCESS_ERR, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
SAME(PRISM_SYND_REMOTE_OP_ERR, MLX5_CQE_SYNDROME_REMOTE_OP_ERR);
SAME(PRISM_SYND_TRANSPORT_RETRY_EXC_ERR, MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
SAME(PRISM_SYND_RNR_RETRY_EXC_ERR, MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR);
SAME(PRISM_SYND_REMOTE_ABORTED_ERR, MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR);
