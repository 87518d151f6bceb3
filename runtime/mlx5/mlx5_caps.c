/* SPDX-License-Identifier: MIT */
/*
 * mlx5/mlx5_caps.c - what the device can do, read with the firmware
 * command QUERY_HCA_CAP through DEVX (mlx5dv_devx_general_cmd): the general
 * block (cross-channel `cd`, `wait_on_data`, `cq_oi`, `atomic`, queue size
 * limits) and the atomic block (operations, operand sizes on RC QPs, and
 * `atomic_req_8B_endianness_mode`, which the Linux mlx5 core driver sets to
 * host endianness when the device supports it: drivers/net/ethernet/
 * mellanox/mlx5/core/main.c handle_hca_cap_atomic).
 *
 * Owns: building the two queries and decoding their answers.
 * Must not: change any device setting (SET_HCA_CAP is the kernel's).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5/mlx5_be.h"

void mlx5_be_caps_decode(const uint8_t *general, const uint8_t *atomic, bool have_atomic,
                         struct mlx5_be_caps *caps)
{
	const size_t n = MLX5_PRM_CAP_BYTES;

	memset(caps, 0, sizeof(*caps));
	caps->cd = mlx5_prm_get(general, n, 0, MLX5_PRM_CAP_CD);
	caps->wait_on_data = mlx5_prm_get(general, n, 0, MLX5_PRM_CAP_WAIT_ON_DATA);
	caps->wait_on_time = mlx5_prm_get(general, n, 0, MLX5_PRM_CAP_WAIT_ON_TIME);
	caps->cq_oi = mlx5_prm_get(general, n, 0, MLX5_PRM_CAP_CQ_OI);
	caps->atomic = mlx5_prm_get(general, n, 0, MLX5_PRM_CAP_ATOMIC);
	caps->log_max_qp_sz = (uint8_t)mlx5_prm_get(general, n, 0, MLX5_PRM_CAP_LOG_MAX_QP_SZ);
	caps->log_max_cq_sz = (uint8_t)mlx5_prm_get(general, n, 0, MLX5_PRM_CAP_LOG_MAX_CQ_SZ);
	caps->have_atomic_caps = have_atomic && caps->atomic;
	if (!caps->have_atomic_caps)
		return;
	caps->atomic_ops = (uint16_t)mlx5_prm_get(atomic, n, 0, MLX5_PRM_ATOMIC_OPERATIONS);
	caps->atomic_size_qp = (uint16_t)mlx5_prm_get(atomic, n, 0, MLX5_PRM_ATOMIC_SIZE_QP);
	caps->endianness_mode =
	    (uint8_t)mlx5_prm_get(atomic, n, 0, MLX5_PRM_ATOMIC_REQ_8B_ENDIANNESS_MODE);
}

/* One QUERY_HCA_CAP of @type (current values) into @cap (4 KiB). */
static int query(const struct mlx5_glue *g, struct ibv_context *ctx, unsigned type, uint8_t *cap,
                 char *why, size_t why_len)
{
	struct mlx5_prm_cmd c;
	uint8_t *out = calloc(1, MLX5_PRM_CAP_OUT_BYTES);
	int rc;

	if (!out)
		return -ENOMEM;
	mlx5_prm_cmd_init(&c, MLX5_PRM_CMD_QUERY_HCA_CAP,
	                  (uint16_t)(type << 1 | MLX5_PRM_CAP_CURRENT), MLX5_PRM_SHORT_BYTES);
	rc = c.err ? c.err : g->devx_general_cmd(ctx, c.in, c.inlen, out, MLX5_PRM_CAP_OUT_BYTES);
	if (rc) {
		rc = rc < 0 ? rc : -(errno ? errno : EIO);
		snprintf(
		    why, why_len, "QUERY_HCA_CAP(type %u) refused: %s (status 0x%x, syndrome 0x%x)",
		    type, strerror(-rc),
		    (unsigned)mlx5_prm_get(out, MLX5_PRM_CAP_OUT_BYTES, 0, MLX5_PRM_OUT_STATUS),
		    (unsigned)mlx5_prm_get(out, MLX5_PRM_CAP_OUT_BYTES, 0, MLX5_PRM_OUT_SYNDROME));
	} else {
		memcpy(cap, out + mlx5_prm_off(MLX5_PRM_CAP_OUT_CAPABILITY) / 8,
		       MLX5_PRM_CAP_BYTES);
	}
	free(out);
	return rc;
}

int mlx5_be_query_caps(const struct mlx5_glue *g, struct ibv_context *ctx,
                       struct mlx5_be_caps *caps, char *why, size_t why_len)
{
	uint8_t *general = calloc(2, MLX5_PRM_CAP_BYTES), *atomic;
	int rc;

	if (!general)
		return -ENOMEM;
	atomic = general + MLX5_PRM_CAP_BYTES;
	rc = query(g, ctx, MLX5_PRM_CAP_TYPE_GENERAL, general, why, why_len);
	if (!rc) {
		/* The atomic block exists only where cmd_hca_cap.atomic is set. */
		bool have = mlx5_prm_get(general, MLX5_PRM_CAP_BYTES, 0, MLX5_PRM_CAP_ATOMIC) &&
		            !query(g, ctx, MLX5_PRM_CAP_TYPE_ATOMIC, atomic, why, why_len);

		mlx5_be_caps_decode(general, atomic, have, caps);
	}
	free(general);
	return rc;
}
