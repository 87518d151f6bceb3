/* SPDX-License-Identifier: MIT */
/*
 * wqe_print.c - one-line, objdump-style rendering of decoded WQEs and CQEs,
 * e.g.
 *   cas      idx=4 qpn=0x000011 ds=4 ce=cq fm=fence raddr=0x1000 rkey=0x5
 *            swap=0x... cmp=0x... sge[0x2000+8 lkey=0x4]
 * (one line; wrapped here).  The compiler's dump, the software NIC's trace
 * and prism-wqe-demo all print through it.
 *
 * Owns: prism_wqe_snprint, prism_cqe_snprint, and the comparison helper
 * prism_wqe_equal (it walks the same "valid after decode" rules).
 * Must not: write anywhere but the caller's buffer.
 */
#include <stdarg.h>
#include <stdio.h>

#include "wqe_layout.h"

/* snprintf-style appender: keeps counting after the buffer is full. */
struct line {
	char *out;
	size_t cap;
	size_t len;
};

__attribute__((format(printf, 2, 3))) static void put(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;
	size_t room = l->len < l->cap ? l->cap - l->len : 0;

	va_start(ap, fmt);
	n = vsnprintf(room ? l->out + l->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += (size_t)n;
}

static void put_hex(struct line *l, const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		put(l, "%02x", b[i]);
}

static const char *const ce_names[4] = {"none", "err", "cq", "cq+ev"};
static const char *const fence_names[8] = {"none",        "small", "fence", "strong",
                                           "small+fence", "fm5",   "fm6",   "fm7"};

static void put_ctrl(struct line *l, const struct prism_ctrl_seg *c)
{
	const struct prism_opcode_info *info = prism_opcode_info(c->opcode);

	if (info)
		put(l, "%-9s", info->mnemonic);
	else
		put(l, "op(0x%02x) ", c->opcode);
	put(l, " idx=%u qpn=0x%06x ds=%u", c->wqe_index, c->qpn, c->ds);
	if (c->opmod)
		put(l, " opmod=0x%02x", c->opmod);
	put(l, " ce=%s fm=%s", ce_names[prism_ctrl_ce(c)], fence_names[prism_ctrl_fence(c)]);
	if (prism_ctrl_se(c))
		put(l, " se");
	if (c->fm_ce_se & 0x11u)
		put(l, " fm_ce_se=0x%02x", c->fm_ce_se);
	if (c->signature)
		put(l, " sig=0x%02x", c->signature);
	if (c->dci_stream)
		put(l, " dci=0x%04x", c->dci_stream);
	if (c->imm || c->opcode == PRISM_OP_RDMA_WRITE_IMM || c->opcode == PRISM_OP_SEND_IMM)
		put(l, " imm=0x%08x", c->imm);
}

static void put_operand(struct line *l, const char *name, unsigned size, uint64_t v,
                        const uint8_t *bytes)
{
	put(l, " %s=0x", name);
	if (size <= 8)
		put(l, "%llx", (unsigned long long)v);
	else
		put_hex(l, bytes, size);
}

static void put_atomic(struct line *l, const struct prism_wqe *w)
{
	const struct prism_atomic_seg *a = &w->atomic;

	switch (w->ctrl.opcode) {
	case PRISM_OP_ATOMIC_CS:
		put(l, " swap=0x%llx cmp=0x%llx", (unsigned long long)a->swap,
		    (unsigned long long)a->compare);
		break;
	case PRISM_OP_ATOMIC_FA:
		put(l, " add=0x%llx", (unsigned long long)a->swap);
		if (a->compare)
			put(l, " cmp=0x%llx", (unsigned long long)a->compare);
		break;
	case PRISM_OP_ATOMIC_MASKED_CS:
		put(l, " size=%u", a->size);
		put_operand(l, "swap", a->size, a->swap, a->swap_bytes);
		put_operand(l, "cmp", a->size, a->compare, a->compare_bytes);
		put_operand(l, "swap_mask", a->size, a->swap_mask, a->swap_mask_bytes);
		put_operand(l, "cmp_mask", a->size, a->compare_mask, a->compare_mask_bytes);
		break;
	case PRISM_OP_ATOMIC_MASKED_FA:
		put(l, " size=%u", a->size);
		put_operand(l, "add", a->size, a->swap, a->swap_bytes);
		put_operand(l, "boundary", a->size, a->swap_mask, a->swap_mask_bytes);
		break;
	}
}

static void put_data(struct line *l, const struct prism_wqe *w)
{
	unsigned i;

	if (w->is_inline) {
		uint32_t shown = w->inline_len < 32 ? w->inline_len : 32;

		put(l, " inline[%u]=", w->inline_len);
		put_hex(l, w->inline_data, shown);
		if (shown < w->inline_len)
			put(l, "...");
		return;
	}
	for (i = 0; i < w->num_sge; i++)
		put(l, " sge[0x%llx+%u lkey=0x%x]", (unsigned long long)w->sge[i].addr,
		    w->sge[i].byte_count, w->sge[i].lkey);
}

static void put_wait_en(struct line *l, const struct prism_wqe *w)
{
	static const char *const conds[16] = {
	    "true",  "eq",    "gt",     "lt",     "cyc_gt", "cyc_lt", "cond6",  "cond7",
	    "cond8", "cond9", "cond10", "cond11", "cond12", "cond13", "cond14", "cond15"};

	if (w->has_wait_en) {
		if (w->ctrl.opcode == PRISM_OP_CQE_WAIT)
			put(l, " cq=0x%x cqe=%u", w->wait_en.obj_num,
			    w->wait_en.index); /* 0-based */
		else
			put(l, " %s=0x%x upto=%u",
			    w->ctrl.opcode == PRISM_OP_SEND_ENABLE ? "sq" : "rq",
			    w->wait_en.obj_num, w->wait_en.index);
	}
	if (w->has_wod)
		put(l, " %s%s%s lkey=0x%x addr=0x%llx fail=%u value=0x%llx mask=0x%llx",
		    w->ctrl.opmod == PRISM_WAIT_ON_TIME ? "time:" : "cond=",
		    conds[w->wod.cond & 0xfu], (w->wod.cond & PRISM_WOD_INVERT) ? "|inv" : "",
		    w->wod.lkey, (unsigned long long)w->wod.addr, w->wod.fail_action,
		    (unsigned long long)w->wod.value, (unsigned long long)w->wod.mask);
}

PRISM_API int prism_wqe_snprint(char *out, size_t cap, const struct prism_wqe *w, const void *raw,
                                size_t raw_len, unsigned flags)
{
	struct line l = {.out = out, .cap = out ? cap : 0, .len = 0};

	if (l.cap)
		out[0] = '\0';
	if (!w)
		return 0;
	put_ctrl(&l, &w->ctrl);
	if (w->has_raddr)
		put(&l, " raddr=0x%llx rkey=0x%x", (unsigned long long)w->raddr.raddr,
		    w->raddr.rkey);
	if (w->has_atomic)
		put_atomic(&l, w);
	put_wait_en(&l, w);
	put_data(&l, w);
	if ((flags & PRISM_PRINT_RAW) && raw) {
		size_t n = raw_len, i;

		if (w->ctrl.ds && n > w->ctrl.ds * PRISM_WQE_DS_BYTES)
			n = w->ctrl.ds * PRISM_WQE_DS_BYTES;
		put(&l, " |");
		for (i = 0; i < n; i += 4) {
			put(&l, " ");
			put_hex(&l, (const uint8_t *)raw + i, n - i < 4 ? n - i : 4);
		}
	}
	return (int)l.len;
}

PRISM_API int prism_cqe_snprint(char *out, size_t cap, const struct prism_cqe *c)
{
	struct line l = {.out = out, .cap = out ? cap : 0, .len = 0};

	if (l.cap)
		out[0] = '\0';
	if (!c)
		return 0;
	put(&l, "cqe %-13s owner=%u wqe=%u qpn=0x%06x", prism_cqe_opcode_name(c->opcode), c->owner,
	    c->wqe_counter, c->qpn);
	if (c->opcode == PRISM_CQE_REQ_ERR || c->opcode == PRISM_CQE_RESP_ERR)
		put(&l, " syndrome=0x%02x (%s) vendor=0x%02x wqe_op=%s", c->syndrome,
		    prism_cqe_syndrome_name(c->syndrome), c->vendor_syndrome,
		    prism_opcode_name(c->wqe_opcode));
	else
		put(&l, " bytes=%u imm=0x%08x", c->byte_count, c->imm);
	if (c->srqn_uidx)
		put(&l, " uidx=0x%x", c->srqn_uidx);
	if (c->timestamp)
		put(&l, " ts=%llu", (unsigned long long)c->timestamp);
	return (int)l.len;
}
