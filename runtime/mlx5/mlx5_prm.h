/* SPDX-License-Identifier: MIT */
/*
 * mlx5/mlx5_prm.h - the PRM (firmware command) fields the mlx5 backend
 * writes and reads, as one table: DEVX command layouts by bit offset.
 *
 * rdma-core 44 installs no mlx5_ifc.h, so prism keeps its own table instead
 * of copying a header.  Each row names the structure and field as the PRM,
 * Linux include/linux/mlx5/mlx5_ifc.h and DPDK drivers/common/mlx5/
 * mlx5_prm.h call them (`struct mlx5_ifc_<struct>_bits`, path through
 * nested structs with dots), so `make check-prm` (tools/check-prm.py) can
 * compare every row against Debian's DPDK source; rows whose structure that
 * header lacks are listed by it as unchecked.
 *
 * Bit numbering, as in the PRM: a structure is a run of big-endian 32-bit
 * dwords; bit offset 0 is the most significant bit of dword 0.
 *
 *   dword d = off / 32        bits  31 ............................. 0
 *                                   |<- off % 32 ->|<- width ->|      |
 *   value = (be32(dword d) >> (32 - off % 32 - width)) & mask(width)
 *
 * A 64-bit field takes two whole dwords (high first); a 128-bit field
 * (a GID) is 16 bytes in order.  Fields never straddle a dword otherwise.
 *
 * Owns: the table, get/set helpers that check widths, and a sticky-error
 * command builder.  Must not: call rdma-core (mlx5_glue.h does).
 */
#ifndef PRISM_MLX5_PRM_H
#define PRISM_MLX5_PRM_H

#include <stddef.h>
#include <stdint.h>

/*
 * X(id, struct, path, bit offset, width).  Sources: the PRM structures as
 * DPDK mlx5_prm.h (22.11) and Linux mlx5_ifc.h define them; command
 * opcodes and op_mods in MLX5_PRM_CMD below.  The atomic capability rows
 * come from Linux mlx5_ifc.h `mlx5_ifc_atomic_caps_bits` (DPDK 22.11 has no
 * such structure; check-prm reports them as unchecked).
 */
#define MLX5_PRM_FIELDS(X)                                                                         \
	/* every command: the input header and the output status (PRM "Command Interface") */      \
	X(IN_OPCODE, "query_hca_cap_in", "opcode", 0x00, 0x10)                                     \
	X(IN_OP_MOD, "query_hca_cap_in", "op_mod", 0x30, 0x10)                                     \
	X(OUT_STATUS, "query_hca_cap_out", "status", 0x00, 0x08)                                   \
	X(OUT_SYNDROME, "query_hca_cap_out", "syndrome", 0x20, 0x20)                               \
	/* QUERY_HCA_CAP (0x100): the capability block follows the output header */                \
	X(CAP_OUT_CAPABILITY, "query_hca_cap_out", "capability", 0x80, 0x8000)                     \
	X(CAP_ATOMIC, "cmd_hca_cap", "atomic", 0x21e, 0x01)                                        \
	X(CAP_CQ_OI, "cmd_hca_cap", "cq_oi", 0x220, 0x01)                                          \
	X(CAP_CD, "cmd_hca_cap", "cd", 0x22c, 0x01)                                                \
	X(CAP_WAIT_ON_DATA, "cmd_hca_cap", "wait_on_data", 0x68b, 0x01)                            \
	X(CAP_WAIT_ON_TIME, "cmd_hca_cap", "wait_on_time", 0x68c, 0x01)                            \
	X(CAP_LOG_MAX_QP_SZ, "cmd_hca_cap", "log_max_qp_sz", 0x88, 0x08)                           \
	X(CAP_LOG_MAX_CQ_SZ, "cmd_hca_cap", "log_max_cq_sz", 0xc8, 0x08)                           \
	X(ATOMIC_REQ_8B_ENDIANNESS_MODE, "atomic_caps", "atomic_req_8B_endianness_mode", 0x40,     \
	  0x02)                                                                                    \
	X(ATOMIC_OPERATIONS, "atomic_caps", "atomic_operations", 0x90, 0x10)                       \
	X(ATOMIC_SIZE_QP, "atomic_caps", "atomic_size_qp", 0xb0, 0x10)                             \
	/* CREATE_CQ (0x400) */                                                                    \
	X(CREATE_CQ_IN_CQC, "create_cq_in", "cq_context", 0x80, 0x200)                             \
	X(CREATE_CQ_IN_UMEM_OFFSET, "create_cq_in", "cq_umem_offset", 0x280, 0x40)                 \
	X(CREATE_CQ_IN_UMEM_ID, "create_cq_in", "cq_umem_id", 0x2c0, 0x20)                         \
	X(CREATE_CQ_IN_UMEM_VALID, "create_cq_in", "cq_umem_valid", 0x2e0, 0x01)                   \
	X(CREATE_CQ_OUT_CQN, "create_cq_out", "cqn", 0x48, 0x18)                                   \
	X(CQC_DBR_UMEM_VALID, "cqc", "dbr_umem_valid", 0x06, 0x01)                                 \
	X(CQC_CQE_SZ, "cqc", "cqe_sz", 0x08, 0x03)                                                 \
	X(CQC_OI, "cqc", "oi", 0x0e, 0x01)                                                         \
	X(CQC_DBR_UMEM_ID, "cqc", "dbr_umem_id", 0x20, 0x20)                                       \
	X(CQC_LOG_CQ_SIZE, "cqc", "log_cq_size", 0x63, 0x05)                                       \
	X(CQC_UAR_PAGE, "cqc", "uar_page", 0x68, 0x18)                                             \
	X(CQC_C_EQN, "cqc", "c_eqn", 0xb8, 0x08)                                                   \
	X(CQC_LOG_PAGE_SIZE, "cqc", "log_page_size", 0xc3, 0x05)                                   \
	X(CQC_DBR_ADDR, "cqc", "dbr_addr", 0x1c0, 0x40)                                            \
	/* CREATE_QP (0x500); the modify commands share the header, qpn and qpc at 0xc0 */         \
	X(CREATE_QP_IN_QPC, "create_qp_in", "qpc", 0xc0, 0x740)                                    \
	X(CREATE_QP_IN_UMEM_OFFSET, "create_qp_in", "wq_umem_offset", 0x800, 0x40)                 \
	X(CREATE_QP_IN_UMEM_ID, "create_qp_in", "wq_umem_id", 0x840, 0x20)                         \
	X(CREATE_QP_IN_UMEM_VALID, "create_qp_in", "wq_umem_valid", 0x860, 0x01)                   \
	X(CREATE_QP_OUT_QPN, "create_qp_out", "qpn", 0x48, 0x18)                                   \
	X(RST2INIT_IN_QPN, "rst2init_qp_in", "qpn", 0x48, 0x18)                                    \
	X(RST2INIT_IN_OPT_PARAM_MASK, "rst2init_qp_in", "opt_param_mask", 0x80, 0x20)              \
	X(RST2INIT_IN_QPC, "rst2init_qp_in", "qpc", 0xc0, 0x740)                                   \
	X(INIT2RTR_IN_QPN, "init2rtr_qp_in", "qpn", 0x48, 0x18)                                    \
	X(INIT2RTR_IN_OPT_PARAM_MASK, "init2rtr_qp_in", "opt_param_mask", 0x80, 0x20)              \
	X(INIT2RTR_IN_QPC, "init2rtr_qp_in", "qpc", 0xc0, 0x740)                                   \
	X(RTR2RTS_IN_QPN, "rtr2rts_qp_in", "qpn", 0x48, 0x18)                                      \
	X(RTR2RTS_IN_OPT_PARAM_MASK, "rtr2rts_qp_in", "opt_param_mask", 0x80, 0x20)                \
	X(RTR2RTS_IN_QPC, "rtr2rts_qp_in", "qpc", 0xc0, 0x740)                                     \
	/* 2RST_QP (0x50a) and 2ERR_QP (0x507, same layout: Linux qp_2err_in) */                   \
	X(QP_2RST_IN_QPN, "2rst_qp_in", "qpn", 0x48, 0x18)                                         \
	X(QPC_STATE, "qpc", "state", 0x00, 0x04)                                                   \
	X(QPC_ST, "qpc", "st", 0x08, 0x08)                                                         \
	X(QPC_PM_STATE, "qpc", "pm_state", 0x13, 0x02)                                             \
	X(QPC_PD, "qpc", "pd", 0x28, 0x18)                                                         \
	X(QPC_MTU, "qpc", "mtu", 0x40, 0x03)                                                       \
	X(QPC_LOG_MSG_MAX, "qpc", "log_msg_max", 0x43, 0x05)                                       \
	X(QPC_LOG_RQ_SIZE, "qpc", "log_rq_size", 0x49, 0x04)                                       \
	X(QPC_LOG_RQ_STRIDE, "qpc", "log_rq_stride", 0x4d, 0x03)                                   \
	X(QPC_NO_SQ, "qpc", "no_sq", 0x50, 0x01)                                                   \
	X(QPC_LOG_SQ_SIZE, "qpc", "log_sq_size", 0x51, 0x04)                                       \
	X(QPC_UAR_PAGE, "qpc", "uar_page", 0x68, 0x18)                                             \
	X(QPC_LOG_PAGE_SIZE, "qpc", "log_page_size", 0xa3, 0x05)                                   \
	X(QPC_REMOTE_QPN, "qpc", "remote_qpn", 0xa8, 0x18)                                         \
	X(QPC_PAP_FL, "qpc", "primary_address_path.fl", 0xc0, 0x01)                                \
	X(QPC_PAP_PKEY_INDEX, "qpc", "primary_address_path.pkey_index", 0xd0, 0x10)                \
	X(QPC_PAP_GRH, "qpc", "primary_address_path.grh", 0xe8, 0x01)                              \
	X(QPC_PAP_RLID, "qpc", "primary_address_path.rlid", 0xf0, 0x10)                            \
	X(QPC_PAP_ACK_TIMEOUT, "qpc", "primary_address_path.ack_timeout", 0x100, 0x05)             \
	X(QPC_PAP_SRC_ADDR_INDEX, "qpc", "primary_address_path.src_addr_index", 0x108, 0x08)       \
	X(QPC_PAP_HOP_LIMIT, "qpc", "primary_address_path.hop_limit", 0x118, 0x08)                 \
	X(QPC_PAP_RGID_RIP, "qpc", "primary_address_path.rgid_rip", 0x140, 0x80)                   \
	X(QPC_PAP_UDP_SPORT, "qpc", "primary_address_path.udp_sport", 0x1d0, 0x10)                 \
	X(QPC_PAP_SL, "qpc", "primary_address_path.sl", 0x1e4, 0x04)                               \
	X(QPC_PAP_VHCA_PORT_NUM, "qpc", "primary_address_path.vhca_port_num", 0x1e8, 0x08)         \
	X(QPC_PAP_RMAC_47_32, "qpc", "primary_address_path.rmac_47_32", 0x1f0, 0x10)               \
	X(QPC_PAP_RMAC_31_0, "qpc", "primary_address_path.rmac_31_0", 0x200, 0x20)                 \
	X(QPC_LOG_ACK_REQ_FREQ, "qpc", "log_ack_req_freq", 0x380, 0x04)                            \
	X(QPC_LOG_SRA_MAX, "qpc", "log_sra_max", 0x388, 0x03)                                      \
	X(QPC_RETRY_COUNT, "qpc", "retry_count", 0x38d, 0x03)                                      \
	X(QPC_RNR_RETRY, "qpc", "rnr_retry", 0x390, 0x03)                                          \
	X(QPC_NEXT_SEND_PSN, "qpc", "next_send_psn", 0x3c8, 0x18)                                  \
	X(QPC_CQN_SND, "qpc", "cqn_snd", 0x3e8, 0x18)                                              \
	X(QPC_LOG_RRA_MAX, "qpc", "log_rra_max", 0x488, 0x03)                                      \
	X(QPC_ATOMIC_MODE, "qpc", "atomic_mode", 0x48c, 0x04)                                      \
	X(QPC_RRE, "qpc", "rre", 0x490, 0x01)                                                      \
	X(QPC_RWE, "qpc", "rwe", 0x491, 0x01)                                                      \
	X(QPC_RAE, "qpc", "rae", 0x492, 0x01)                                                      \
	X(QPC_CD_SLAVE_RECEIVE, "qpc", "cd_slave_receive", 0x49d, 0x01)                            \
	X(QPC_CD_SLAVE_SEND, "qpc", "cd_slave_send", 0x49e, 0x01)                                  \
	X(QPC_CD_MASTER, "qpc", "cd_master", 0x49f, 0x01)                                          \
	X(QPC_MIN_RNR_NAK, "qpc", "min_rnr_nak", 0x4a3, 0x05)                                      \
	X(QPC_NEXT_RCV_PSN, "qpc", "next_rcv_psn", 0x4a8, 0x18)                                    \
	X(QPC_CQN_RCV, "qpc", "cqn_rcv", 0x4e8, 0x18)                                              \
	X(QPC_DBR_ADDR, "qpc", "dbr_addr", 0x500, 0x40)                                            \
	X(QPC_RQ_TYPE, "qpc", "rq_type", 0x565, 0x03)                                              \
	X(QPC_DBR_UMEM_VALID, "qpc", "dbr_umem_valid", 0x683, 0x01)                                \
	X(QPC_DBR_UMEM_ID, "qpc", "dbr_umem_id", 0x720, 0x20)

enum mlx5_prm_field {
#define MLX5_PRM_X_ENUM(id, st, path, off, w) MLX5_PRM_##id,
	MLX5_PRM_FIELDS(MLX5_PRM_X_ENUM)
#undef MLX5_PRM_X_ENUM
	    MLX5_PRM__COUNT
};

struct mlx5_prm_field_info {
	const char *st;   /* DPDK/Linux struct mlx5_ifc_<st>_bits */
	const char *path; /* field, through nested structs with dots */
	uint32_t off;     /* bit offset inside st */
	uint32_t width;   /* bits */
};

const struct mlx5_prm_field_info *mlx5_prm_field(enum mlx5_prm_field f);

/*
 * Command opcodes, op_mods and constants (PRM; DPDK mlx5_prm.h enum
 * mlx5_cmd_op and the qpc/cqc value enums; Linux mlx5_ifc.h).
 */
enum {
	MLX5_PRM_CMD_QUERY_HCA_CAP = 0x100,
	MLX5_PRM_CMD_CREATE_CQ = 0x400,
	MLX5_PRM_CMD_DESTROY_CQ = 0x401,
	MLX5_PRM_CMD_CREATE_QP = 0x500,
	MLX5_PRM_CMD_DESTROY_QP = 0x501,
	MLX5_PRM_CMD_RST2INIT_QP = 0x502,
	MLX5_PRM_CMD_INIT2RTR_QP = 0x503,
	MLX5_PRM_CMD_RTR2RTS_QP = 0x504,
	MLX5_PRM_CMD_2ERR_QP = 0x507,
	MLX5_PRM_CMD_2RST_QP = 0x50a,

	/* QUERY_HCA_CAP op_mod = type << 1 | current (1) */
	MLX5_PRM_CAP_TYPE_GENERAL = 0x0,
	MLX5_PRM_CAP_TYPE_ATOMIC = 0x3,
	MLX5_PRM_CAP_CURRENT = 0x1,
	MLX5_PRM_CAP_BYTES = 0x1000, /* capability block */

	MLX5_PRM_QPC_ST_RC = 0x0,
	MLX5_PRM_QPC_PM_MIGRATED = 0x3,
	MLX5_PRM_QPC_RQ_REGULAR = 0x0,
	MLX5_PRM_QPC_RQ_ZERO_SIZE = 0x3,
	/* qpc.atomic_mode (Linux MLX5_ATOMIC_MODE_*): IB-compatible 8 B = 1,
	 * 8 B = 3, up to 16 B = 4, up to 32 B = 5 */
	MLX5_PRM_ATOMIC_MODE_8B = 0x3,
	MLX5_PRM_ATOMIC_MODE_32B = 0x5,
	/* opt_param_mask bits (Linux MLX5_QP_OPTPAR_*) */
	MLX5_PRM_OPTPAR_RRE = 1u << 1,
	MLX5_PRM_OPTPAR_RAE = 1u << 2,
	MLX5_PRM_OPTPAR_RWE = 1u << 3,
	/* atomic_caps.atomic_operations bits (Linux MLX5_ATOMIC_OPS_*) */
	MLX5_PRM_ATOMIC_OPS_CMP_SWAP = 1u << 0,
	MLX5_PRM_ATOMIC_OPS_FETCH_ADD = 1u << 1,
	MLX5_PRM_ATOMIC_OPS_MASKED_CMP_SWAP = 1u << 2,
	MLX5_PRM_ATOMIC_OPS_MASKED_FETCH_ADD = 1u << 3,
	/* command output status: 0 ok; 0x02 bad op; 0x03 bad param; 0x04 bad sys state */
	MLX5_PRM_STATUS_OK = 0x0,
	MLX5_PRM_STATUS_BAD_OP = 0x2,
	MLX5_PRM_STATUS_BAD_PARAM = 0x3,
	MLX5_PRM_STATUS_BAD_STATE = 0x4,
};

/* Bytes of the commands' inputs and outputs (size of each struct). */
#define MLX5_PRM_QP_CMD_IN_BYTES (0x880 / 8) /* create_qp_in / rst2init... / rtr2rts_qp_in */
#define MLX5_PRM_CQ_CMD_IN_BYTES (0x880 / 8) /* create_cq_in */
#define MLX5_PRM_SHORT_BYTES     (0x80 / 8)  /* 2rst/2err in; every short out */
#define MLX5_PRM_CAP_OUT_BYTES   (0x80 / 8 + MLX5_PRM_CAP_BYTES)

/*
 * Read / write field @f of the structure at @buf + @base bits (@base: the
 * offset of a nested structure, e.g. the qpc inside a command; 0 for a
 * field of the outer structure).  @len is @buf's size in bytes.
 * set: 0, or -ERANGE when @v does not fit the field or the field lies past
 * @len.  get: the value (0 past @len, where *ok, if given, becomes 0).
 */
int mlx5_prm_set(void *buf, size_t len, uint32_t base, enum mlx5_prm_field f, uint64_t v);
uint64_t mlx5_prm_get(const void *buf, size_t len, uint32_t base, enum mlx5_prm_field f);
/* 128-bit fields (GIDs): 16 bytes in order. */
int mlx5_prm_set_bytes(void *buf, size_t len, uint32_t base, enum mlx5_prm_field f,
                       const uint8_t src[16]);
int mlx5_prm_get_bytes(const void *buf, size_t len, uint32_t base, enum mlx5_prm_field f,
                       uint8_t dst[16]);
/* Bit offset of a nested structure (its row's offset). */
uint32_t mlx5_prm_off(enum mlx5_prm_field f);

/*
 * A command under construction: the first failing set is kept in err (a
 * sticky error, like rdma-core's wr_start / wr_complete), so a builder sets
 * every field and checks once.
 */
struct mlx5_prm_cmd {
	uint8_t in[MLX5_PRM_QP_CMD_IN_BYTES];
	size_t inlen;
	int err;
};

void mlx5_prm_cmd_init(struct mlx5_prm_cmd *c, uint16_t opcode, uint16_t op_mod, size_t inlen);
void mlx5_prm_cmd_set(struct mlx5_prm_cmd *c, uint32_t base, enum mlx5_prm_field f, uint64_t v);

#endif /* PRISM_MLX5_PRM_H */
