/* SPDX-License-Identifier: MIT */
/*
 * wqe_equal.c - compare two decoded WQEs field by field.
 *
 * Owns: prism_wqe_equal().  It looks only at the fields that are valid
 * after prism_wqe_decode() (see <prism/wqe.h>), so stale bytes in unused
 * parts of a struct prism_wqe never make two equal WQEs differ.
 * Must not: touch wire bytes.
 */
#include <string.h>

#include "wqe_layout.h"

static bool ctrl_equal(const struct prism_ctrl_seg *a, const struct prism_ctrl_seg *b)
{
	return a->opcode == b->opcode && a->opmod == b->opmod && a->wqe_index == b->wqe_index &&
	       a->qpn == b->qpn && a->ds == b->ds && a->signature == b->signature &&
	       a->dci_stream == b->dci_stream && a->fm_ce_se == b->fm_ce_se && a->imm == b->imm;
}

static bool operand_equal(unsigned size, uint64_t x, uint64_t y, const uint8_t *bx,
                          const uint8_t *by)
{
	return size <= 8 ? x == y : memcmp(bx, by, size) == 0;
}

static bool atomic_equal(uint8_t opcode, const struct prism_atomic_seg *a,
                         const struct prism_atomic_seg *b)
{
	unsigned n = a->size;

	if (a->size != b->size)
		return false;
	if (opcode == PRISM_OP_ATOMIC_CS || opcode == PRISM_OP_ATOMIC_FA)
		return a->swap == b->swap && a->compare == b->compare;
	if (!operand_equal(n, a->swap, b->swap, a->swap_bytes, b->swap_bytes) ||
	    !operand_equal(n, a->swap_mask, b->swap_mask, a->swap_mask_bytes, b->swap_mask_bytes))
		return false;
	if (opcode != PRISM_OP_ATOMIC_MASKED_CS)
		return true;
	return operand_equal(n, a->compare, b->compare, a->compare_bytes, b->compare_bytes) &&
	       operand_equal(n, a->compare_mask, b->compare_mask, a->compare_mask_bytes,
	                     b->compare_mask_bytes);
}

PRISM_API bool prism_wqe_equal(const struct prism_wqe *a, const struct prism_wqe *b)
{
	unsigned i;

	if (!ctrl_equal(&a->ctrl, &b->ctrl) || a->has_raddr != b->has_raddr ||
	    a->has_atomic != b->has_atomic || a->has_wait_en != b->has_wait_en ||
	    a->has_wod != b->has_wod || a->is_inline != b->is_inline || a->num_sge != b->num_sge)
		return false;
	if (a->has_raddr && (a->raddr.raddr != b->raddr.raddr || a->raddr.rkey != b->raddr.rkey ||
	                     a->raddr.reserved != b->raddr.reserved))
		return false;
	if (a->has_atomic && !atomic_equal(a->ctrl.opcode, &a->atomic, &b->atomic))
		return false;
	if (a->has_wait_en &&
	    (a->wait_en.index != b->wait_en.index || a->wait_en.obj_num != b->wait_en.obj_num))
		return false;
	if (a->has_wod && (a->wod.cond != b->wod.cond || a->wod.lkey != b->wod.lkey ||
	                   a->wod.addr != b->wod.addr || a->wod.fail_action != b->wod.fail_action ||
	                   a->wod.value != b->wod.value || a->wod.mask != b->wod.mask))
		return false;
	if (a->is_inline)
		return a->inline_len == b->inline_len &&
		       memcmp(a->inline_data, b->inline_data, a->inline_len) == 0;
	for (i = 0; i < a->num_sge && i < PRISM_WQE_MAX_SGE; i++)
		if (a->sge[i].byte_count != b->sge[i].byte_count ||
		    a->sge[i].lkey != b->sge[i].lkey || a->sge[i].addr != b->sge[i].addr)
			return false;
	return true;
}
