/* SPDX-License-Identifier: MIT */
/*
 * wqe_decode_body.h - the send-WQE decoder body (internal): send-WQE bytes
 * -> struct prism_wqe, with validation.
 *
 * Owns: wqe_decode_body() and its shape decoders, every one inlined where
 * it is instantiated: prism_wqe_decode() (wqe_decode.c) with a diagnostic
 * record, and wqe_decode_engine() (wqe_lean.h), the software NIC's per-WQE
 * decode, with the constant NULL one (every failure is just its code, no
 * message argument computed) and @eng true (the fields the engine never
 * reads are not written: see wqe_engine_rest), inlined into the engine's
 * decode of a head WQE.  One body: the same reads, the same checks in the
 * same order and the same return value.
 *
 * The control segment is read first; its DS count bounds every later read
 * (and is itself bounded by @len), so no input can make the decoder read
 * outside [buf, buf + len).  Each shape then checks that DS matches
 * exactly the segments it implies.
 *
 * Lean by design: only the fields that the WQE's shape uses are written;
 * see "valid after decode" in <prism/wqe.h>.  No memset of the big arrays.
 *
 * Must not: execute anything, or accept a WQE it cannot re-encode; be
 * included outside runtime/wqe/ other than through wqe_lean.h.
 */
#ifndef PRISM_WQE_DECODE_BODY_H
#define PRISM_WQE_DECODE_BODY_H

#include <string.h>

#include "wqe_bytes.h"
#include "wqe_layout.h"

/*
 * A rejection: with a diagnostic record, through the cold recorder; in the
 * lean instantiation (@d the constant NULL) the code alone, so that no
 * message argument is even computed.
 */
#define FAIL(d, code, ...) ((d) ? wqe_diag_fail((d), (code), __VA_ARGS__) : (code))

/* Every helper below is inlined into both instantiations. */
#define DECODE_INLINE static inline __attribute__((always_inline))

DECODE_INLINE void get_raddr(const uint8_t *p, struct prism_raddr_seg *r, bool eng)
{
	r->raddr = get_be64(p);
	r->rkey = get_be32(p + 8);
	if (!eng)
		r->reserved = get_be32(p + 12);
}

/*
 * The data part starting at @off and running to the end of the WQE: either
 * one inline segment that fills it exactly, or whole data segments.  The
 * caller (decode_body) has cleared num_sge / is_inline / inline_len.
 * Inlined into each shape so that @off is a constant there.
 */
DECODE_INLINE int get_data_part(const uint8_t *buf, uint32_t off, uint32_t end, struct prism_wqe *w,
                                struct prism_wqe_diag *d)
{
	uint32_t rem = end - off;
	const uint8_t *p = buf + off;
	uint32_t word, n, i;

	if (rem == 0)
		return 0;
	word = get_be32(p);
	if (word & PRISM_INLINE_SEG) {
		uint32_t len = word & ~PRISM_INLINE_SEG;

		if (len > PRISM_WQE_MAX_INLINE)
			return FAIL(d, PRISM_WQE_E_INLINE, off, "inline length %u exceeds %u", len,
			            PRISM_WQE_MAX_INLINE);
		if (wqe_ds_of(WQE_INLINE_HDR + len) * 16u != rem)
			return FAIL(d, PRISM_WQE_E_DS, 7,
			            "inline segment of %u bytes takes %u DS, WQE leaves %u", len,
			            wqe_ds_of(WQE_INLINE_HDR + len), rem / 16u);
		w->is_inline = true;
		w->inline_len = len;
		memcpy(w->inline_data, p + WQE_INLINE_HDR, len);
		return 0;
	}
	n = rem / WQE_DATA_BYTES;
	if (n > PRISM_WQE_MAX_SGE)
		return FAIL(d, PRISM_WQE_E_SGE_COUNT, off,
		            "ds leaves room for %u data segments, at most %u", n,
		            PRISM_WQE_MAX_SGE);
	for (i = 0; i < n; i++, p += WQE_DATA_BYTES) {
		struct prism_sge *s = &w->sge[i];

		s->byte_count = i ? get_be32(p) : word;
		if (s->byte_count & PRISM_INLINE_SEG)
			return FAIL(d, PRISM_WQE_E_SEGMENT, off + i * WQE_DATA_BYTES,
			            "inline segment after %u data segment(s)", i);
		s->lkey = get_be32(p + 4);
		s->addr = get_be64(p + 8);
	}
	w->num_sge = (uint8_t)n;
	return 0;
}

DECODE_INLINE void clear_optional(struct prism_wqe *w, bool eng)
{
	w->has_raddr = false;
	if (!eng) {
		w->has_atomic = false;
		w->has_wait_en = false;
		w->has_wod = false;
	}
	w->num_sge = 0;
	w->is_inline = false;
	w->inline_len = 0;
}

/* Shape decoders: @end is ds * 16, already known to be within the buffer. */
DECODE_INLINE int dec_ctrl_only(const uint8_t *buf, uint32_t end, struct prism_wqe *w,
                                struct prism_wqe_diag *d)
{
	/* Bytes after a NOP's control segment are opaque (see the encoder). */
	return 0;
}

DECODE_INLINE int need_at_least(uint32_t end, uint32_t need, const struct prism_wqe *w,
                                const char *what, struct prism_wqe_diag *d)
{
	if (end >= need)
		return 0;
	return FAIL(d, PRISM_WQE_E_DS, 7, "ds=%u but %s needs at least %u (%s)", end / 16u,
	            prism_opcode_name(w->ctrl.opcode), need / 16u, what);
}

DECODE_INLINE int dec_raddr_data(const uint8_t *buf, uint32_t end, struct prism_wqe *w, bool eng,
                                 struct prism_wqe_diag *d)
{
	int rc = need_at_least(end, 32, w, "ctrl+raddr", d);

	if (rc)
		return rc;
	get_raddr(buf + 16, &w->raddr, eng);
	w->has_raddr = true;
	rc = get_data_part(buf, 32, end, w, d);
	if (rc == 0 && w->is_inline && w->ctrl.opcode == PRISM_OP_RDMA_READ)
		return FAIL(d, PRISM_WQE_E_INLINE, 32,
		            "RDMA_READ with an inline segment (a READ scatters)");
	return rc;
}

DECODE_INLINE int dec_data(const uint8_t *buf, uint32_t end, struct prism_wqe *w,
                           struct prism_wqe_diag *d)
{
	return get_data_part(buf, 16, end, w, d);
}

/* The one data segment an atomic returns its old value into. */
DECODE_INLINE int get_atomic_sge(const uint8_t *buf, uint32_t off, uint32_t end,
                                 struct prism_wqe *w, const char *layout, struct prism_wqe_diag *d)
{
	int rc;

	if (end != off + WQE_DATA_BYTES)
		return FAIL(d, PRISM_WQE_E_DS, 7, "ds=%u but %s needs %u (%s)", end / 16u,
		            prism_opcode_name(w->ctrl.opcode), off / 16u + 1u, layout);
	rc = get_data_part(buf, off, end, w, d);
	if (rc == 0 && w->is_inline)
		return FAIL(d, PRISM_WQE_E_SEGMENT, off,
		            "%s result segment is inline, must be a data segment",
		            prism_opcode_name(w->ctrl.opcode));
	return rc;
}

DECODE_INLINE int dec_raddr_atomic(const uint8_t *buf, uint32_t end, struct prism_wqe *w, bool eng,
                                   struct prism_wqe_diag *d)
{
	int rc = get_atomic_sge(buf, 48, end, w, "ctrl+raddr+atomic+data", d);

	if (rc)
		return rc;
	get_raddr(buf + 16, &w->raddr, eng);
	w->has_raddr = true;
	w->atomic.size = 8;
	w->atomic.swap = get_be64(buf + 32);
	w->atomic.compare = get_be64(buf + 40);
	w->atomic.swap_mask = 0;
	w->atomic.compare_mask = 0;
	if (!eng)
		w->has_atomic = true;
	return 0;
}

DECODE_INLINE uint64_t get_operand(const uint8_t *p, unsigned size, uint8_t *bytes)
{
	if (size == 4)
		return get_be32(p);
	if (size == 8)
		return get_be64(p);
	memcpy(bytes, p, size);
	return 0;
}

DECODE_INLINE int dec_raddr_masked(const uint8_t *buf, uint32_t end, struct prism_wqe *w, bool eng,
                                   struct prism_wqe_diag *d)
{
	struct prism_atomic_seg *a = &w->atomic;
	unsigned size = wqe_masked_size(w->ctrl.opmod); /* opmod already validated */
	uint32_t seg = wqe_masked_seg_bytes(w->ctrl.opcode, size);
	const uint8_t *p = buf + 32;
	int rc;

	rc = get_atomic_sge(buf, 32 + seg, end, w,
	                    w->ctrl.opcode == PRISM_OP_ATOMIC_MASKED_CS
	                        ? "ctrl+raddr+masked CAS operands+data"
	                        : "ctrl+raddr+masked FA operands+data",
	                    d);
	if (rc)
		return rc;
	get_raddr(buf + 16, &w->raddr, eng);
	w->has_raddr = true;
	a->size = (uint8_t)size;
	a->swap = get_operand(p, size, a->swap_bytes);
	if (w->ctrl.opcode == PRISM_OP_ATOMIC_MASKED_CS) {
		a->compare = get_operand(p + size, size, a->compare_bytes);
		a->swap_mask = get_operand(p + 2 * size, size, a->swap_mask_bytes);
		a->compare_mask = get_operand(p + 3 * size, size, a->compare_mask_bytes);
	} else {
		a->swap_mask = get_operand(p + size, size, a->swap_mask_bytes);
		a->compare = 0;
		a->compare_mask = 0;
	}
	if (!eng)
		w->has_atomic = true;
	return 0;
}

DECODE_INLINE int dec_wait_enable(const uint8_t *buf, uint32_t end, struct prism_wqe *w, bool eng,
                                  struct prism_wqe_diag *d)
{
	const uint8_t *p = buf + 16;

	if (w->ctrl.opcode == PRISM_OP_CQE_WAIT && w->ctrl.opmod != PRISM_WAIT_CQ) {
		uint32_t cond;
		uint64_t va;

		if (end != 16 + WQE_WOD_BYTES)
			return FAIL(d, PRISM_WQE_E_DS, 7,
			            "ds=%u but CQE_WAIT opmod %u needs 3 (ctrl+wait-on-data)",
			            end / 16u, w->ctrl.opmod);
		cond = get_be32(p);
		if (cond & ~0x1fu)
			return FAIL(d, PRISM_WQE_E_SEGMENT, 16,
			            "wait condition word 0x%08x has bits above 4:0", cond);
		va = get_be64(p + 8);
		w->wod.cond = (uint8_t)cond;
		w->wod.lkey = get_be32(p + 4);
		w->wod.addr = va & ~(uint64_t)7;
		w->wod.fail_action = (uint8_t)(va & 7u);
		w->wod.value = get_be64(p + 16);
		w->wod.mask = get_be64(p + 24);
		if (!eng)
			w->has_wod = true;
		return 0;
	}
	if (end != 16 + WQE_WAIT_EN_BYTES)
		return FAIL(d, PRISM_WQE_E_DS, 7, "ds=%u but %s needs 2 (ctrl+%s)", end / 16u,
		            prism_opcode_name(w->ctrl.opcode),
		            w->ctrl.opcode == PRISM_OP_CQE_WAIT ? "wait" : "enable");
	w->wait_en.index = get_be32(p + 8);
	w->wait_en.obj_num = get_be32(p + 12);
	if (w->wait_en.obj_num > 0xffffffu)
		return FAIL(d, PRISM_WQE_E_SEGMENT, 28, "%s number 0x%08x does not fit 24 bits",
		            w->ctrl.opcode == PRISM_OP_CQE_WAIT ? "CQ" : "QP", w->wait_en.obj_num);
	if (!eng)
		w->has_wait_en = true;
	return 0;
}

/*
 * The decoder: @d is NULL (never written) or a diagnostic record; @eng (a
 * constant) leaves out the fields the engine never reads.  The shape
 * decoders are inlined into the switch, so each instantiation is one
 * function with constant offsets and no indirect call.
 */
DECODE_INLINE int wqe_decode_body(const uint8_t *buf, size_t len, struct prism_wqe *w, bool eng,
                                  struct prism_wqe_diag *d)
{
	const struct prism_opcode_info *info;
	enum prism_seg_shape shape;
	uint8_t opcode, opmod, ds;
	uint32_t end;
	int rc;

	if (len < WQE_CTRL_BYTES)
		return FAIL(d, PRISM_WQE_E_SHORT, 0, "%zu bytes, a control segment needs 16", len);
	/* what the checks read, taken from the bytes and the (constant) table
	 * before the stores into @w, which the compiler cannot tell apart
	 * from the table */
	opmod = buf[0];
	opcode = buf[3];
	ds = buf[7];
	info = &wqe_opcode_table[opcode];
	shape = info->shape;
	if (eng) {
		w->ctrl.opmod = opmod;
		w->ctrl.opcode = opcode;
		w->ctrl.fm_ce_se = buf[11];
	} else {
		wqe_ctrl_unpack(buf, &w->ctrl);
	}
	clear_optional(w, eng);
	if (!info->name)
		return FAIL(d, PRISM_WQE_E_OPCODE, 3, "unknown opcode 0x%02x", opcode);
	if (ds & 0xc0u)
		return FAIL(d, PRISM_WQE_E_DS, 7, "ds byte 0x%02x has reserved bits 7:6 set", ds);
	if (ds == 0)
		return FAIL(d, PRISM_WQE_E_DS, 7, "ds=0, the control segment alone is 1");
	end = ds * PRISM_WQE_DS_BYTES;
	if (end > len)
		return FAIL(d, PRISM_WQE_E_SHORT, (uint32_t)len,
		            "ds=%u (%u bytes) but only %zu bytes readable", ds, end, len);
	if (!wqe_shape_opmod_valid(shape, opcode, opmod))
		return FAIL(d, PRISM_WQE_E_OPMOD, 0, "opmod 0x%02x is not valid for %s", opmod,
		            info->name);
	switch (shape) {
	case PRISM_SHAPE_CTRL_ONLY:
		rc = dec_ctrl_only(buf, end, w, d);
		break;
	case PRISM_SHAPE_RADDR_DATA:
		rc = dec_raddr_data(buf, end, w, eng, d);
		break;
	case PRISM_SHAPE_DATA:
		rc = dec_data(buf, end, w, d);
		break;
	case PRISM_SHAPE_RADDR_ATOMIC:
		rc = dec_raddr_atomic(buf, end, w, eng, d);
		break;
	case PRISM_SHAPE_RADDR_MASKED:
		rc = dec_raddr_masked(buf, end, w, eng, d);
		break;
	case PRISM_SHAPE_WAIT_ENABLE:
	default: /* the opcode table has no other shape */
		rc = dec_wait_enable(buf, end, w, eng, d);
		break;
	}
	return rc < 0 ? rc : (int)end;
}

#endif /* PRISM_WQE_DECODE_BODY_H */
