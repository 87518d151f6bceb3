/* SPDX-License-Identifier: MIT */
/*
 * wqe_cqe.c - 64-byte CQEs (struct mlx5_cqe64 / struct mlx5_err_cqe):
 *
 *   0 .. 31  reserved for RC (L2/L3 info, TMH)        32 be32 srqn / user index
 *   36 be32 immediate        40..43 app bytes         44 be32 byte count
 *   48 be64 timestamp        56 be32 sop_drop_qpn     60 be16 wqe_counter
 *   62 u8 signature          63 u8 op_own: opcode 7:4, format 3:2, SE 1, owner 0
 *   error CQEs reuse 54 vendor syndrome, 55 syndrome, 56 s_wqe_opcode.
 *
 * Owns: CQE encode (its body: wqe_cqe_body.h) / decode and the CQE opcode
 * and syndrome names.
 * Must not: know CQ rings beyond the owner-bit rule in <prism/wqe.h>.
 */
#include "wqe_bytes.h"
#include "wqe_cqe_body.h"
#include "wqe_layout.h"

/* CQE opcodes a prism CQ may hold; the rest are reserved here. */
static const char *const cqe_opcode_names[16] = {
    [PRISM_CQE_REQ] = "REQ",
    [PRISM_CQE_RESP_WR_IMM] = "RESP_WR_IMM",
    [PRISM_CQE_RESP_SEND] = "RESP_SEND",
    [PRISM_CQE_RESP_SEND_IMM] = "RESP_SEND_IMM",
    [PRISM_CQE_REQ_ERR] = "REQ_ERR",
    [PRISM_CQE_RESP_ERR] = "RESP_ERR",
    [PRISM_CQE_INVALID] = "INVALID",
};

static const char *const syndrome_names[256] = {
    [PRISM_SYND_LOCAL_LENGTH_ERR] = "local length error",
    [PRISM_SYND_LOCAL_QP_OP_ERR] = "local QP operation error",
    [PRISM_SYND_LOCAL_PROT_ERR] = "local protection error",
    [PRISM_SYND_WR_FLUSH_ERR] = "WR flushed",
    [PRISM_SYND_MW_BIND_ERR] = "memory window bind error",
    [PRISM_SYND_BAD_RESP_ERR] = "bad response",
    [PRISM_SYND_LOCAL_ACCESS_ERR] = "local access error",
    [PRISM_SYND_REMOTE_INVAL_REQ_ERR] = "remote invalid request",
    [PRISM_SYND_REMOTE_ACCESS_ERR] = "remote access error",
    [PRISM_SYND_REMOTE_OP_ERR] = "remote operation error",
    [PRISM_SYND_TRANSPORT_RETRY_EXC_ERR] = "transport retry counter exceeded",
    [PRISM_SYND_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
    [PRISM_SYND_REMOTE_ABORTED_ERR] = "remote aborted",
};

PRISM_API const char *prism_cqe_opcode_name(uint8_t opcode)
{
	if (opcode >= 16 || !cqe_opcode_names[opcode])
		return "RESERVED";
	return cqe_opcode_names[opcode];
}

PRISM_API const char *prism_cqe_syndrome_name(uint8_t syndrome)
{
	return syndrome_names[syndrome] ? syndrome_names[syndrome] : "unknown syndrome";
}

static bool cqe_is_error(uint8_t opcode)
{
	return opcode == PRISM_CQE_REQ_ERR || opcode == PRISM_CQE_RESP_ERR;
}

PRISM_API uint8_t prism_cqe_encode_body(const struct prism_cqe *c, void *out64)
{
	return wqe_cqe_encode_body(c, out64);
}

PRISM_API void prism_cqe_encode(const struct prism_cqe *c, void *out64)
{
	uint8_t *p = out64;

	p[PRISM_CQE_BYTES - 1] = prism_cqe_encode_body(c, p);
}

PRISM_API int prism_cqe_decode(const void *in64, struct prism_cqe *c, struct prism_wqe_diag *diag)
{
	const uint8_t *p = in64;
	uint8_t op_own;

	if (!in64 || !c)
		return wqe_diag_fail(diag, PRISM_WQE_E_ARG, 0, "NULL CQE");
	op_own = p[63];
	c->opcode = op_own >> 4;
	c->owner = op_own & 1u;
	if (!cqe_opcode_names[c->opcode])
		return wqe_diag_fail(diag, PRISM_WQE_E_OPCODE, 63, "reserved CQE opcode %u",
		                     c->opcode);
	c->srqn_uidx = get_be32(p + 32);
	c->wqe_counter = get_be16(p + 60);
	c->signature = p[62];
	if (cqe_is_error(c->opcode)) {
		c->vendor_syndrome = p[54];
		c->syndrome = p[55];
		c->wqe_opcode = p[56];
		c->qpn = get_be32(p + 56) & 0xffffffu;
		c->imm = 0;
		c->byte_count = 0;
		c->timestamp = 0;
	} else {
		c->vendor_syndrome = 0;
		c->syndrome = 0;
		c->wqe_opcode = 0;
		c->imm = get_be32(p + 36);
		c->byte_count = get_be32(p + 44);
		c->timestamp = get_be64(p + 48);
		c->qpn = get_be32(p + 56) & 0xffffffu;
	}
	return 0;
}
