/* SPDX-License-Identifier: MIT */
/*
 * wqe_layout.h - segment sizes and the shape rules shared by the encoder,
 * the decoder and the field-offset table (internal).
 *
 * Owns: how many bytes each segment kind takes on the wire and how a masked
 * atomic's opmod maps to its operand size (docs/wqe-format.md).  Keeping
 * these in one place is what makes prism_wqe_field_offset() agree with the
 * encoder byte for byte.  Also the control-segment unpack and the opcode
 * table as the decoder reads them inline (its hot path).
 *
 * Must not: be included outside runtime/wqe/ (the engine gets it only through
 * wqe_lean.h, whose inline decode needs it).
 */
#ifndef PRISM_WQE_LAYOUT_H
#define PRISM_WQE_LAYOUT_H

#include <stdarg.h>
#include <stdint.h>

#include <prism/wqe.h>

#include "wqe_bytes.h"

enum {
	WQE_CTRL_BYTES = 16,    /* struct mlx5_wqe_ctrl_seg */
	WQE_RADDR_BYTES = 16,   /* struct mlx5_wqe_raddr_seg */
	WQE_ATOMIC_BYTES = 16,  /* struct mlx5_wqe_atomic_seg */
	WQE_DATA_BYTES = 16,    /* struct mlx5_wqe_data_seg */
	WQE_WAIT_EN_BYTES = 16, /* DPDK struct mlx5_wqe_qseg */
	WQE_WOD_BYTES = 32,     /* DPDK struct mlx5_wqe_wseg */
	WQE_INLINE_HDR = 4,     /* struct mlx5_wqe_inl_data_seg */
	WQE_OPMOD_MASKED_BASE = 0x08,
};

/*
 * Operand size in bytes of a masked atomic with this opmod (0x08 | (log2 - 2)),
 * or 0 when @opmod is not one of 0x08..0x0b.
 */
static inline unsigned wqe_masked_size(uint8_t opmod)
{
	if ((opmod & 0xfcu) != WQE_OPMOD_MASKED_BASE)
		return 0;
	return 4u << (opmod & 3u);
}

static inline uint8_t wqe_masked_opmod(unsigned size)
{
	switch (size) {
	case 4:
		return PRISM_MASKED_OPMOD(2);
	case 8:
		return PRISM_MASKED_OPMOD(3);
	case 16:
		return PRISM_MASKED_OPMOD(4);
	case 32:
		return PRISM_MASKED_OPMOD(5);
	default:
		return 0;
	}
}

/*
 * Wire bytes of the masked-atomic segment, padded to 16: masked CAS carries
 * swap, compare, swap_mask, compare_mask (4 operands); masked FA carries
 * add and field_boundary (2 operands).
 */
static inline uint32_t wqe_masked_seg_bytes(uint8_t opcode, unsigned size)
{
	unsigned n = opcode == PRISM_OP_ATOMIC_MASKED_CS ? 4u : 2u;

	return (n * size + 15u) & ~15u;
}

/* Is @opmod meaningful for the known opcode @opcode, of shape @shape? */
static inline int wqe_shape_opmod_valid(enum prism_seg_shape shape, uint8_t opcode, uint8_t opmod)
{
	if (shape == PRISM_SHAPE_RADDR_MASKED)
		return wqe_masked_size(opmod) != 0;
	if (opcode == PRISM_OP_CQE_WAIT)
		return opmod <= PRISM_WAIT_ON_TIME;
	return opmod == 0;
}

/* Is @opmod meaningful for the opcode described by @info? */
static inline int wqe_opmod_valid(const struct prism_opcode_info *info, uint8_t opmod)
{
	return wqe_shape_opmod_valid(info->shape, info->value, opmod);
}

/* Indexed by opcode value; an unknown opcode's entry has no name
 * (wqe_opcode.c).  The decoder reads it directly: one load per WQE. */
extern const struct prism_opcode_info wqe_opcode_table[256];

/* The 16-byte control segment -> struct prism_ctrl_seg (prism_ctrl_seg_unpack
 * and the decoder share it; inline on the decoder's hot path). */
static inline void wqe_ctrl_unpack(const uint8_t *p, struct prism_ctrl_seg *c)
{
	uint32_t w0 = get_be32(p);
	uint32_t w1 = get_be32(p + 4);

	c->opmod = (uint8_t)(w0 >> 24);
	c->wqe_index = (uint16_t)(w0 >> 8);
	c->opcode = (uint8_t)w0;
	c->qpn = w1 >> 8;
	c->ds = (uint8_t)w1; /* raw byte: the decoder rejects bits 7:6 */
	c->signature = p[8];
	c->dci_stream = get_be16(p + 9);
	c->fm_ce_se = p[11];
	c->imm = get_be32(p + 12);
}

/* Record the first failure in @diag (may be NULL) and return @code. */
int wqe_diag_fail(struct prism_wqe_diag *diag, int code, uint32_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), cold));

#endif /* PRISM_WQE_LAYOUT_H */
