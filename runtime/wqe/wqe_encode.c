/* SPDX-License-Identifier: MIT */
/*
 * wqe_encode.c - struct prism_wqe -> send-WQE bytes.
 *
 * Owns: prism_wqe_encode().  The opcode's shape (from the X-macro table)
 * picks one body encoder; each first checks every field against its wire
 * width and the buffer against the size it will write, and only then
 * writes, so a failed encode leaves @buf untouched.
 *
 * Must not: decode, or know about queues; the has_* flags of the input are
 * not consulted (the opcode and opmod decide which segments exist).
 */
#include "wqe_bytes.h"
#include "wqe_layout.h"

/* Size in bytes of the data part (gather list or inline) of @w. */
static int data_part_bytes(const struct prism_wqe *w, uint32_t off, struct prism_wqe_diag *d)
{
	unsigned i;

	if (w->is_inline) {
		if (w->inline_len > PRISM_WQE_MAX_INLINE)
			return wqe_diag_fail(d, PRISM_WQE_E_INLINE, off,
			                     "inline length %u exceeds %u", w->inline_len,
			                     PRISM_WQE_MAX_INLINE);
		return (int)(wqe_ds_of(WQE_INLINE_HDR + w->inline_len) * 16u);
	}
	if (w->num_sge > PRISM_WQE_MAX_SGE)
		return wqe_diag_fail(d, PRISM_WQE_E_SGE_COUNT, off, "%u gather entries, at most %u",
		                     w->num_sge, PRISM_WQE_MAX_SGE);
	for (i = 0; i < w->num_sge; i++)
		if (w->sge[i].byte_count & PRISM_INLINE_SEG)
			return wqe_diag_fail(d, PRISM_WQE_E_RANGE, off + 16u * i,
			                     "sge[%u] byte_count 0x%x does not fit 31 bits", i,
			                     w->sge[i].byte_count);
	return (int)(w->num_sge * WQE_DATA_BYTES);
}

static void put_data_part(const struct prism_wqe *w, uint8_t *p)
{
	unsigned i;

	if (w->is_inline) {
		uint32_t padded = wqe_ds_of(WQE_INLINE_HDR + w->inline_len) * 16u;

		put_be32(p, w->inline_len | PRISM_INLINE_SEG);
		memcpy(p + WQE_INLINE_HDR, w->inline_data, w->inline_len);
		memset(p + WQE_INLINE_HDR + w->inline_len, 0,
		       padded - WQE_INLINE_HDR - w->inline_len);
		return;
	}
	for (i = 0; i < w->num_sge; i++, p += WQE_DATA_BYTES) {
		put_be32(p, w->sge[i].byte_count);
		put_be32(p + 4, w->sge[i].lkey);
		put_be64(p + 8, w->sge[i].addr);
	}
}

static void put_raddr(const struct prism_raddr_seg *r, uint8_t *p)
{
	put_be64(p, r->raddr);
	put_be32(p + 8, r->rkey);
	put_be32(p + 12, r->reserved);
}

/* One atomic operand of @size bytes, big-endian on the wire. */
static void put_operand(uint8_t *p, unsigned size, uint64_t v, const uint8_t *bytes)
{
	if (size == 4)
		put_be32(p, (uint32_t)v);
	else if (size == 8)
		put_be64(p, v);
	else
		memcpy(p, bytes, size);
}

/*
 * Body sizes: each returns the bytes after the control segment, or a
 * negative error.  @opmod is in/out: masked atomics derive it from the size.
 */
static int body_ctrl_only(const struct prism_wqe *w, uint8_t *opmod, struct prism_wqe_diag *d)
{
	/*
	 * A NOP keeps the DS of the WQE it stands in for (RedN's conditional
	 * turns a NOP into a WRITE_IMM by CAS on bytes 0-7, DS included), so
	 * ctrl.ds is honoured here; the bytes after the control segment are
	 * the caller's and are not written.
	 */
	if (w->ctrl.ds > PRISM_WQE_MAX_DS)
		return wqe_diag_fail(d, PRISM_WQE_E_RANGE, 7, "ds %u does not fit 6 bits",
		                     w->ctrl.ds);
	return w->ctrl.ds > 1 ? (int)((w->ctrl.ds - 1u) * 16u) : 0;
}

static int body_raddr_data(const struct prism_wqe *w, uint8_t *opmod, struct prism_wqe_diag *d)
{
	int n;

	if (w->ctrl.opcode == PRISM_OP_RDMA_READ && w->is_inline)
		return wqe_diag_fail(d, PRISM_WQE_E_INLINE, 32,
		                     "RDMA_READ scatters into memory; it cannot carry inline data");
	n = data_part_bytes(w, 32, d);
	return n < 0 ? n : n + WQE_RADDR_BYTES;
}

static int body_data(const struct prism_wqe *w, uint8_t *opmod, struct prism_wqe_diag *d)
{
	return data_part_bytes(w, 16, d);
}

/* Atomics return the old value into exactly one local data segment. */
static int check_atomic_sge(const struct prism_wqe *w, uint32_t off, struct prism_wqe_diag *d)
{
	if (w->is_inline)
		return wqe_diag_fail(d, PRISM_WQE_E_INLINE, off,
		                     "%s needs a data segment for the old value, not inline data",
		                     prism_opcode_name(w->ctrl.opcode));
	if (w->num_sge != 1)
		return wqe_diag_fail(d, PRISM_WQE_E_SGE_COUNT, off,
		                     "%s takes exactly 1 data segment, got %u",
		                     prism_opcode_name(w->ctrl.opcode), w->num_sge);
	return data_part_bytes(w, off, d);
}

static int body_raddr_atomic(const struct prism_wqe *w, uint8_t *opmod, struct prism_wqe_diag *d)
{
	int n;

	if (w->atomic.size != 0 && w->atomic.size != 8)
		return wqe_diag_fail(d, PRISM_WQE_E_SEGMENT, 32,
		                     "%s operates on 8 bytes, atomic.size is %u",
		                     prism_opcode_name(w->ctrl.opcode), w->atomic.size);
	n = check_atomic_sge(w, 48, d);
	return n < 0 ? n : n + WQE_RADDR_BYTES + WQE_ATOMIC_BYTES;
}

static int body_raddr_masked(const struct prism_wqe *w, uint8_t *opmod, struct prism_wqe_diag *d)
{
	unsigned size = w->atomic.size;
	uint32_t seg;
	int n;

	if (size == 0)
		size = wqe_masked_size(*opmod);
	if (!wqe_masked_opmod(size))
		return wqe_diag_fail(d, PRISM_WQE_E_SEGMENT, 32,
		                     "masked atomic size %u (opmod 0x%02x): must be 4, 8, 16 or 32",
		                     w->atomic.size, *opmod);
	if (*opmod != 0 && *opmod != wqe_masked_opmod(size))
		return wqe_diag_fail(d, PRISM_WQE_E_OPMOD, 0,
		                     "opmod 0x%02x does not match masked atomic size %u (0x%02x)",
		                     *opmod, size, wqe_masked_opmod(size));
	*opmod = wqe_masked_opmod(size);
	if (size == 4 && ((w->atomic.swap | w->atomic.swap_mask) >> 32 ||
	                  (w->ctrl.opcode == PRISM_OP_ATOMIC_MASKED_CS &&
	                   (w->atomic.compare | w->atomic.compare_mask) >> 32)))
		return wqe_diag_fail(d, PRISM_WQE_E_RANGE, 32,
		                     "4-byte masked atomic operand does not fit 32 bits");
	seg = wqe_masked_seg_bytes(w->ctrl.opcode, size);
	n = check_atomic_sge(w, 32 + seg, d);
	return n < 0 ? n : (int)(n + WQE_RADDR_BYTES + seg);
}

static int body_wait_enable(const struct prism_wqe *w, uint8_t *opmod, struct prism_wqe_diag *d)
{
	if (w->ctrl.opcode == PRISM_OP_CQE_WAIT && *opmod != PRISM_WAIT_CQ) {
		if (w->wod.cond & ~0x1fu)
			return wqe_diag_fail(d, PRISM_WQE_E_RANGE, 16,
			                     "wait condition 0x%x does not fit 5 bits",
			                     w->wod.cond);
		if ((w->wod.addr & 7u) || w->wod.fail_action > 7)
			return wqe_diag_fail(
			    d, PRISM_WQE_E_RANGE, 24,
			    "wait-on-data address 0x%llx must be 8-byte aligned and "
			    "fail_action %u fit 3 bits",
			    (unsigned long long)w->wod.addr, w->wod.fail_action);
		return WQE_WOD_BYTES;
	}
	if (w->wait_en.obj_num > 0xffffffu)
		return wqe_diag_fail(
		    d, PRISM_WQE_E_RANGE, 28, "%s number 0x%x does not fit 24 bits",
		    w->ctrl.opcode == PRISM_OP_CQE_WAIT ? "CQ" : "QP", w->wait_en.obj_num);
	return WQE_WAIT_EN_BYTES;
}

/* Body writers: called only after the matching size check succeeded. */
static void put_ctrl_only(const struct prism_wqe *w, uint8_t opmod, uint8_t *p)
{
}

static void put_raddr_data(const struct prism_wqe *w, uint8_t opmod, uint8_t *p)
{
	put_raddr(&w->raddr, p);
	put_data_part(w, p + WQE_RADDR_BYTES);
}

static void put_data(const struct prism_wqe *w, uint8_t opmod, uint8_t *p)
{
	put_data_part(w, p);
}

static void put_raddr_atomic(const struct prism_wqe *w, uint8_t opmod, uint8_t *p)
{
	put_raddr(&w->raddr, p);
	put_be64(p + 16, w->atomic.swap);
	put_be64(p + 24, w->atomic.compare);
	put_data_part(w, p + 32);
}

static void put_raddr_masked(const struct prism_wqe *w, uint8_t opmod, uint8_t *p)
{
	const struct prism_atomic_seg *a = &w->atomic;
	unsigned size = wqe_masked_size(opmod);
	uint32_t seg = wqe_masked_seg_bytes(w->ctrl.opcode, size);

	put_raddr(&w->raddr, p);
	p += WQE_RADDR_BYTES;
	memset(p, 0, seg);
	put_operand(p, size, a->swap, a->swap_bytes);
	if (w->ctrl.opcode == PRISM_OP_ATOMIC_MASKED_CS) {
		put_operand(p + size, size, a->compare, a->compare_bytes);
		put_operand(p + 2 * size, size, a->swap_mask, a->swap_mask_bytes);
		put_operand(p + 3 * size, size, a->compare_mask, a->compare_mask_bytes);
	} else {
		/* masked FA: the add operand, then the field boundary */
		put_operand(p + size, size, a->swap_mask, a->swap_mask_bytes);
	}
	put_data_part(w, p + seg);
}

static void put_wait_enable(const struct prism_wqe *w, uint8_t opmod, uint8_t *p)
{
	if (w->ctrl.opcode == PRISM_OP_CQE_WAIT && opmod != PRISM_WAIT_CQ) {
		put_be32(p, w->wod.cond);
		put_be32(p + 4, w->wod.lkey);
		put_be64(p + 8, w->wod.addr | w->wod.fail_action);
		put_be64(p + 16, w->wod.value);
		put_be64(p + 24, w->wod.mask);
		return;
	}
	memset(p, 0, 8);
	put_be32(p + 8, w->wait_en.index);
	put_be32(p + 12, w->wait_en.obj_num);
}

/* One row per segment shape: how big its body is, and how to write it. */
static const struct {
	int (*size)(const struct prism_wqe *w, uint8_t *opmod, struct prism_wqe_diag *d);
	void (*put)(const struct prism_wqe *w, uint8_t opmod, uint8_t *p);
} shape_encoders[] = {
    [PRISM_SHAPE_CTRL_ONLY] = {body_ctrl_only, put_ctrl_only},
    [PRISM_SHAPE_RADDR_DATA] = {body_raddr_data, put_raddr_data},
    [PRISM_SHAPE_DATA] = {body_data, put_data},
    [PRISM_SHAPE_RADDR_ATOMIC] = {body_raddr_atomic, put_raddr_atomic},
    [PRISM_SHAPE_RADDR_MASKED] = {body_raddr_masked, put_raddr_masked},
    [PRISM_SHAPE_WAIT_ENABLE] = {body_wait_enable, put_wait_enable},
};

PRISM_API int prism_wqe_encode(const struct prism_wqe *w, void *buf, size_t cap,
                               struct prism_wqe_diag *diag)
{
	const struct prism_opcode_info *info;
	struct prism_ctrl_seg ctrl;
	uint8_t opmod;
	uint32_t bytes;
	int body;

	if (!w || !buf)
		return wqe_diag_fail(diag, PRISM_WQE_E_ARG, 0, "NULL WQE or buffer");
	info = prism_opcode_info(w->ctrl.opcode);
	if (!info)
		return wqe_diag_fail(diag, PRISM_WQE_E_OPCODE, 3, "unknown opcode 0x%02x",
		                     w->ctrl.opcode);
	opmod = w->ctrl.opmod;
	if (info->shape != PRISM_SHAPE_RADDR_MASKED || opmod != 0) {
		if (!wqe_opmod_valid(info, opmod))
			return wqe_diag_fail(diag, PRISM_WQE_E_OPMOD, 0,
			                     "opmod 0x%02x is not valid for %s", opmod, info->name);
	}
	if (w->ctrl.qpn > 0xffffffu)
		return wqe_diag_fail(diag, PRISM_WQE_E_RANGE, 4, "qpn 0x%x does not fit 24 bits",
		                     w->ctrl.qpn);
	body = shape_encoders[info->shape].size(w, &opmod, diag);
	if (body < 0)
		return body;
	bytes = WQE_CTRL_BYTES + (uint32_t)body;
	if (bytes > PRISM_WQE_MAX_BYTES)
		return wqe_diag_fail(diag, PRISM_WQE_E_DS, 7,
		                     "%s needs %u bytes, ds tops out at %u", info->name, bytes,
		                     PRISM_WQE_MAX_BYTES);
	if (bytes > cap)
		return wqe_diag_fail(diag, PRISM_WQE_E_SHORT, (uint32_t)cap,
		                     "%s needs %u bytes, buffer holds %zu", info->name, bytes, cap);

	ctrl = w->ctrl;
	ctrl.opmod = opmod;
	ctrl.ds = (uint8_t)(bytes / PRISM_WQE_DS_BYTES);
	prism_ctrl_seg_pack(&ctrl, buf);
	shape_encoders[info->shape].put(w, opmod, (uint8_t *)buf + WQE_CTRL_BYTES);
	return (int)bytes;
}
