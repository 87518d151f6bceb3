/* SPDX-License-Identifier: MIT */
/*
 * tests/hw/hw_devx.c - mlx5 capabilities that plain verbs does not report,
 * read with the firmware command QUERY_HCA_CAP through DEVX
 * (mlx5dv_devx_general_cmd): cross-channel (cmd_hca_cap.cd), wait-on-data /
 * wait-on-time, and the atomic capabilities (extended = masked atomics, the
 * operand sizes allowed on RC QPs, the 8-byte endianness mode).
 *
 * Bit offsets are those of Linux include/linux/mlx5/mlx5_ifc.h
 * (struct mlx5_ifc_cmd_hca_cap_bits, mlx5_ifc_atomic_caps_bits): offsets
 * count bits from the most significant bit of the first big-endian dword.
 *
 *   query_hca_cap_in  (16 bytes):  dword 0 = opcode << 16, dword 1 = op_mod
 *   query_hca_cap_out (16 + 4096): byte 0 status, dword 1 syndrome, the
 *                                  capability structure from byte 16
 *   op_mod = capability type << 1 | 1 (current values)
 *
 * Owns: decoding those bits.  Must not: change any device setting.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "tests/hw/hw_common.h"

#define CMD_QUERY_HCA_CAP 0x100
#define CAP_GENERAL       0x0 /* MLX5_CAP_GENERAL */
#define CAP_ATOMIC        0x3 /* MLX5_CAP_ATOMIC */
#define CAP_CURRENT       0x1 /* HCA_CAP_OPMOD_GET_CUR */
#define CAP_BYTES         4096

/* struct mlx5_ifc_cmd_hca_cap_bits */
#define GEN_CD           0x22c
#define GEN_WAIT_ON_DATA 0x68b
#define GEN_WAIT_ON_TIME 0x68c
/* struct mlx5_ifc_atomic_caps_bits */
#define ATOMIC_ENDIANNESS_MODE 0x40 /* 2 bits; 1 = host endianness */
#define ATOMIC_OPERATIONS      0x90 /* 16 bits */
#define ATOMIC_SIZE_QP         0xb0 /* 16 bits */

uint32_t hw_cap_bits(const uint8_t *cap, unsigned off, unsigned width)
{
	uint32_t dw;

	memcpy(&dw, cap + (off / 32) * 4, 4);
	dw = be32toh(dw);
	return (dw >> (32 - off % 32 - width)) & (width == 32 ? ~0u : (1u << width) - 1);
}

static int query_cap(struct ibv_context *ctx, unsigned type, uint8_t *cap)
{
	uint32_t in[4] = {0};
	uint8_t out[16 + CAP_BYTES];

	memset(out, 0, sizeof(out));
	in[0] = htobe32(CMD_QUERY_HCA_CAP << 16);
	in[1] = htobe32(type << 1 | CAP_CURRENT);
	if (mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out, sizeof(out)))
		return errno ? -errno : -EIO;
	if (out[0] != 0)
		return -EREMOTEIO; /* firmware status; its syndrome is dword 1 */
	memcpy(cap, out + 16, CAP_BYTES);
	return 0;
}

void hw_mlx5_caps_decode(const uint8_t *general, const uint8_t *atomic, struct hw_mlx5_caps *caps)
{
	caps->cd = hw_cap_bits(general, GEN_CD, 1);
	caps->wait_on_data = hw_cap_bits(general, GEN_WAIT_ON_DATA, 1);
	caps->wait_on_time = hw_cap_bits(general, GEN_WAIT_ON_TIME, 1);
	caps->endianness_mode = (uint8_t)hw_cap_bits(atomic, ATOMIC_ENDIANNESS_MODE, 2);
	caps->atomic_ops = (uint16_t)hw_cap_bits(atomic, ATOMIC_OPERATIONS, 16);
	caps->atomic_size_qp = (uint16_t)hw_cap_bits(atomic, ATOMIC_SIZE_QP, 16);
}

int hw_mlx5_query_caps(struct hw_env *e, struct hw_mlx5_caps *caps)
{
	static uint8_t general[CAP_BYTES], atomic[CAP_BYTES];
	int rc;

	memset(caps, 0, sizeof(*caps));
	if (!e->is_mlx5)
		return caps->err = -ENODEV;
	if (!e->devx)
		return caps->err = -(e->devx_errno ? e->devx_errno : EOPNOTSUPP);
	rc = query_cap(e->ctx, CAP_GENERAL, general);
	if (!rc)
		rc = query_cap(e->ctx, CAP_ATOMIC, atomic);
	if (rc)
		return caps->err = rc;
	hw_mlx5_caps_decode(general, atomic, caps);
	caps->queried = true;
	return 0;
}
