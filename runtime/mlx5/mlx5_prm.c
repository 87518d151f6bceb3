/* SPDX-License-Identifier: MIT */
/*
 * mlx5/mlx5_prm.c - the PRM field table (mlx5_prm.h) and its bit helpers.
 *
 * Owns: turning (field, value) into big-endian bits of a command buffer and
 * back, with width and bounds checks.  Must not: know what a command means.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "mlx5/mlx5_prm.h"
#include "util/byteorder.h"

static const struct mlx5_prm_field_info fields[MLX5_PRM__COUNT] = {
#define MLX5_PRM_X_ROW(id, s, p, o, w) [MLX5_PRM_##id] = {.st = s, .path = p, .off = o, .width = w},
    MLX5_PRM_FIELDS(MLX5_PRM_X_ROW)
#undef MLX5_PRM_X_ROW
};

const struct mlx5_prm_field_info *mlx5_prm_field(enum mlx5_prm_field f)
{
	return (unsigned)f < MLX5_PRM__COUNT ? &fields[f] : NULL;
}

uint32_t mlx5_prm_off(enum mlx5_prm_field f)
{
	return fields[f].off;
}

/* The field's first byte and whether [byte, byte + n) fits in @len. */
static bool span(size_t len, uint32_t bit, uint32_t nbytes, size_t *byte)
{
	*byte = bit / 8;
	return *byte + nbytes <= len;
}

int mlx5_prm_set(void *buf, size_t len, uint32_t base, enum mlx5_prm_field f, uint64_t v)
{
	const struct mlx5_prm_field_info *fi = mlx5_prm_field(f);
	uint32_t bit, w;
	uint8_t *p = buf;
	size_t at;

	if (!fi)
		return -ERANGE;
	bit = base + fi->off;
	w = fi->width;
	if (w == 64) {
		if (bit % 32 || !span(len, bit, 8, &at))
			return -ERANGE;
		put_be64(p + at, v);
		return 0;
	}
	if (w > 32 || (bit % 32) + w > 32 || (w < 64 && v >> w))
		return -ERANGE;
	if (!span(len, bit - bit % 32, 4, &at))
		return -ERANGE;
	{
		uint32_t shift = 32 - bit % 32 - w;
		uint32_t mask = (w == 32 ? ~0u : (1u << w) - 1) << shift;
		uint32_t dw = get_be32(p + at);

		put_be32(p + at, (dw & ~mask) | ((uint32_t)v << shift));
	}
	return 0;
}

uint64_t mlx5_prm_get(const void *buf, size_t len, uint32_t base, enum mlx5_prm_field f)
{
	const struct mlx5_prm_field_info *fi = mlx5_prm_field(f);
	const uint8_t *p = buf;
	uint32_t bit, w;
	size_t at;

	if (!fi)
		return 0;
	bit = base + fi->off;
	w = fi->width;
	if (w == 64)
		return bit % 32 == 0 && span(len, bit, 8, &at) ? get_be64(p + at) : 0;
	if (w > 32 || (bit % 32) + w > 32 || !span(len, bit - bit % 32, 4, &at))
		return 0;
	return (get_be32(p + at) >> (32 - bit % 32 - w)) & (w == 32 ? ~0u : (1u << w) - 1);
}

int mlx5_prm_set_bytes(void *buf, size_t len, uint32_t base, enum mlx5_prm_field f,
                       const uint8_t src[16])
{
	const struct mlx5_prm_field_info *fi = mlx5_prm_field(f);
	size_t at;

	if (!fi || fi->width != 128 || (base + fi->off) % 8 || !span(len, base + fi->off, 16, &at))
		return -ERANGE;
	memcpy((uint8_t *)buf + at, src, 16);
	return 0;
}

int mlx5_prm_get_bytes(const void *buf, size_t len, uint32_t base, enum mlx5_prm_field f,
                       uint8_t dst[16])
{
	const struct mlx5_prm_field_info *fi = mlx5_prm_field(f);
	size_t at;

	if (!fi || fi->width != 128 || (base + fi->off) % 8 || !span(len, base + fi->off, 16, &at))
		return -ERANGE;
	memcpy(dst, (const uint8_t *)buf + at, 16);
	return 0;
}

void mlx5_prm_cmd_init(struct mlx5_prm_cmd *c, uint16_t opcode, uint16_t op_mod, size_t inlen)
{
	memset(c, 0, sizeof(*c));
	c->inlen = inlen <= sizeof(c->in) ? inlen : sizeof(c->in);
	c->err = inlen <= sizeof(c->in) ? 0 : -ERANGE;
	mlx5_prm_cmd_set(c, 0, MLX5_PRM_IN_OPCODE, opcode);
	mlx5_prm_cmd_set(c, 0, MLX5_PRM_IN_OP_MOD, op_mod);
}

void mlx5_prm_cmd_set(struct mlx5_prm_cmd *c, uint32_t base, enum mlx5_prm_field f, uint64_t v)
{
	int err = mlx5_prm_set(c->in, c->inlen, base, f, v);

	if (err && !c->err)
		c->err = err;
}
