/* SPDX-License-Identifier: MIT */
/*
 * wqe_field.c - where a patchable field lives inside an encoded WQE.
 *
 * Owns: prism_wqe_field_offset() and the field names.  The compiler uses it
 * to aim RECV/READ scatter entries and CAS targets at WQE fields; the sim
 * uses it to name what a write into a WQE touched.  Offsets follow the same
 * segment order as wqe_encode.c (ctrl, raddr, atomic, data | wait/enable).
 *
 * Must not: read or write WQE bytes.
 */
#include "wqe_layout.h"

struct field_row {
	const char *name;
	uint32_t off; /* offset within its segment */
	uint32_t len;
	enum {
		SEG_CTRL,
		SEG_RADDR,
		SEG_SWAP,
		SEG_COMPARE,
		SEG_SGE0,
		SEG_WAIT_EN,
		SEG_WOD,
		SEG_INLINE
	} seg;
};

static const struct field_row fields[PRISM_FIELD__COUNT] = {
    [PRISM_FIELD_CTRL_OPCODE] = {"ctrl.opcode", 3, 1, SEG_CTRL},
    [PRISM_FIELD_CTRL_WORD0] = {"ctrl.opmod_idx_opcode", 0, 4, SEG_CTRL},
    [PRISM_FIELD_CTRL_QPN] = {"ctrl.qpn", 4, 3, SEG_CTRL},
    [PRISM_FIELD_CTRL_DS] = {"ctrl.ds", 7, 1, SEG_CTRL},
    [PRISM_FIELD_CTRL_FM_CE_SE] = {"ctrl.fm_ce_se", 11, 1, SEG_CTRL},
    [PRISM_FIELD_CTRL_IMM] = {"ctrl.imm", 12, 4, SEG_CTRL},
    [PRISM_FIELD_RADDR] = {"raddr.addr", 0, 8, SEG_RADDR},
    [PRISM_FIELD_RKEY] = {"raddr.rkey", 8, 4, SEG_RADDR},
    [PRISM_FIELD_ATOMIC_SWAP] = {"atomic.swap", 0, 0, SEG_SWAP},
    [PRISM_FIELD_ATOMIC_COMPARE] = {"atomic.compare", 0, 0, SEG_COMPARE},
    [PRISM_FIELD_SGE0_LEN] = {"sge0.byte_count", 0, 4, SEG_SGE0},
    [PRISM_FIELD_SGE0_LKEY] = {"sge0.lkey", 4, 4, SEG_SGE0},
    [PRISM_FIELD_SGE0_ADDR] = {"sge0.addr", 8, 8, SEG_SGE0},
    [PRISM_FIELD_WAIT_EN_INDEX] = {"wait_en.index", 8, 4, SEG_WAIT_EN},
    [PRISM_FIELD_WAIT_EN_OBJ] = {"wait_en.obj_num", 12, 4, SEG_WAIT_EN},
    /* after the inline segment's 4-byte byte_count | PRISM_INLINE_SEG word */
    [PRISM_FIELD_INLINE_DATA] = {"inline.data", WQE_INLINE_HDR, 0, SEG_INLINE},
    [PRISM_FIELD_CTRL_WQE_INDEX] = {"ctrl.wqe_index", 1, 2, SEG_CTRL},
    [PRISM_FIELD_WOD_LKEY] = {"wod.lkey", 4, 4, SEG_WOD},
    [PRISM_FIELD_WOD_ADDR] = {"wod.addr", 8, 8, SEG_WOD},
    [PRISM_FIELD_WOD_VALUE] = {"wod.value", 16, 8, SEG_WOD},
    [PRISM_FIELD_WOD_MASK] = {"wod.mask", 24, 8, SEG_WOD},
};

PRISM_API const char *prism_wqe_field_name(enum prism_wqe_field field)
{
	if ((unsigned)field >= PRISM_FIELD__COUNT)
		return "?";
	return fields[field].name;
}

/* Offset of the first data segment, or 0 when the shape has none. */
static uint32_t sge0_offset(const struct prism_opcode_info *info, unsigned masked_size)
{
	switch (info->shape) {
	case PRISM_SHAPE_RADDR_DATA:
		return 32;
	case PRISM_SHAPE_DATA:
		return 16;
	case PRISM_SHAPE_RADDR_ATOMIC:
		return 48;
	case PRISM_SHAPE_RADDR_MASKED:
		return 32 + wqe_masked_seg_bytes(info->value, masked_size);
	default:
		return 0;
	}
}

PRISM_API int prism_wqe_field_offset(const struct prism_wqe *w, enum prism_wqe_field field,
                                     uint32_t *offset, uint32_t *len)
{
	const struct prism_opcode_info *info;
	const struct field_row *row;
	unsigned msize = 0;
	uint32_t base;

	if (!w || !offset || !len || (unsigned)field >= PRISM_FIELD__COUNT)
		return PRISM_WQE_E_ARG;
	info = prism_opcode_info(w->ctrl.opcode);
	if (!info)
		return PRISM_WQE_E_OPCODE;
	if (info->shape == PRISM_SHAPE_RADDR_MASKED) {
		msize = wqe_masked_size(w->ctrl.opmod);
		if (!msize)
			msize = w->atomic.size;
		if (!wqe_masked_opmod(msize))
			return PRISM_WQE_E_OPMOD;
	}
	row = &fields[field];
	*len = row->len;
	switch (row->seg) {
	case SEG_CTRL:
		base = 0;
		break;
	case SEG_RADDR:
		if (info->shape != PRISM_SHAPE_RADDR_DATA &&
		    info->shape != PRISM_SHAPE_RADDR_ATOMIC &&
		    info->shape != PRISM_SHAPE_RADDR_MASKED)
			return PRISM_WQE_E_ARG;
		base = 16;
		break;
	case SEG_SWAP:
	case SEG_COMPARE:
		if (info->shape == PRISM_SHAPE_RADDR_ATOMIC) {
			base = row->seg == SEG_SWAP ? 32 : 40;
			*len = 8;
		} else if (info->shape == PRISM_SHAPE_RADDR_MASKED) {
			if (row->seg == SEG_COMPARE && info->value != PRISM_OP_ATOMIC_MASKED_CS)
				return PRISM_WQE_E_ARG; /* masked FA has no compare operand */
			base = 32 + (row->seg == SEG_SWAP ? 0 : msize);
			*len = msize;
		} else {
			return PRISM_WQE_E_ARG;
		}
		break;
	case SEG_SGE0:
		base = sge0_offset(info, msize);
		if (!base)
			return PRISM_WQE_E_ARG;
		break;
	case SEG_WAIT_EN:
		if (info->shape != PRISM_SHAPE_WAIT_ENABLE ||
		    (info->value == PRISM_OP_CQE_WAIT && w->ctrl.opmod != PRISM_WAIT_CQ))
			return PRISM_WQE_E_ARG;
		base = 16;
		break;
	case SEG_WOD:
		if (info->value != PRISM_OP_CQE_WAIT || w->ctrl.opmod != PRISM_WAIT_ON_DATA)
			return PRISM_WQE_E_ARG;
		base = 16;
		break;
	case SEG_INLINE:
		/* the data part of a WRITE/SEND shape holds inline data in
		 * place of its scatter list */
		if (!w->is_inline || w->inline_len > PRISM_WQE_MAX_INLINE ||
		    (info->shape != PRISM_SHAPE_RADDR_DATA && info->shape != PRISM_SHAPE_DATA) ||
		    info->value == PRISM_OP_RDMA_READ)
			return PRISM_WQE_E_ARG;
		base = sge0_offset(info, msize);
		*len = w->inline_len;
		break;
	default:
		return PRISM_WQE_E_ARG;
	}
	*offset = base + row->off;
	return 0;
}
