/* SPDX-License-Identifier: MIT */
/*
 * compiler/emit.c - IR after layout -> struct chainobj.
 *
 * Owns: turning each node into its template bytes through the codec
 * (prism_wqe_encode / prism_ctrl_seg_pack), one relocation per symbolic
 * field, the patch-site table, the RECV template and the entry point's
 * parameters (payload layout).
 *
 * A guarded effect is encoded as the WQE it becomes once armed, then its
 * control segment is re-packed with the template opcode (NOP): the codec
 * keeps ds > 1 on a NOP for exactly this (RedN Fig. 4).
 *
 * Must not: pack WQE bytes by hand, decide placement, or verify (verify*.c
 * and the library's chain_verify.c do that).
 */
#include "compiler/sched.h"

#include <stdio.h>
#include <string.h>

struct emitter {
	const struct ir_prog *p;
	struct chainobj *o;
	int *cq_of_queue; /* send CQ index per IR queue */
	int rcq;          /* conn receive CQ */
	char *err;
	size_t errlen;
	bool failed;
};

static void fail(struct emitter *e, const char *msg, int node)
{
	if (e->failed)
		return;
	e->failed = true;
	if (node >= 0)
		snprintf(e->err, e->errlen, "node n%d: %s", node, msg);
	else
		snprintf(e->err, e->errlen, "%s", msg);
}

/* Template value of a symbolic field (what invocation 0 with every base 0
 * would see); relocations supply the rest. */
static uint64_t tmpl_value(const struct ir_prog *p, const struct ir_val *v)
{
	switch (v->kind) {
	case IR_V_CONST:
	case IR_V_RUNTIME:
		return v->k;
	case IR_V_ENABLE_THROUGH: {
		const struct ir_node *a = &p->nodes[v->a];
		return a->slot + a->bbs + v->k; /* k: laps ahead, in BBs */
	}
	case IR_V_SEND_CQE: /* a WAIT posts the 0-based CQE number (rule 3.3) */
		return p->nodes[v->a].count - 1u;
	case IR_V_QUEUE_ENTRY: {
		if (p->queues[v->a].entry_end < 0)
			return 0; /* not scheduled yet (sizes only: lower_recycle.c) */
		const struct ir_node *a = &p->nodes[p->queues[v->a].entry_end];
		return a->slot + a->bbs;
	}
	case IR_V_RECV_CQE:
	case IR_V_RECV_CQE_ADDR:
		return v->k;
	case IR_V_CTRL_WORD: {
		const struct ir_node *a = &p->nodes[v->a];
		struct prism_ctrl_seg c = {.opcode = (uint8_t)v->k,
		                           .opmod = v->k == a->op ? a->opmod : 0,
		                           .wqe_index = (uint16_t)a->slot,
		                           .qpn = 0,
		                           .ds = (uint8_t)a->ds};
		uint8_t m[16];
		prism_ctrl_seg_pack(&c, m);
		uint64_t x = 0;
		for (int i = 7; i >= 0; i--) {
			uint8_t b = (v->rt_bytes >> i) & 1 ? 0 : m[i];
			x = (x << 8) | b; /* le64: m[0] is the low byte */
		}
		return x;
	}
	default:
		return 0;
	}
}

void emit_node_wqe(const struct ir_prog *p, const struct ir_node *n, struct prism_wqe *w)
{
	memset(w, 0, sizeof(*w));
	w->ctrl.opcode = n->op;
	w->ctrl.opmod = n->opmod;
	w->ctrl.wqe_index = (uint16_t)n->slot;
	w->ctrl.fm_ce_se = prism_fm_ce_se((enum prism_fence)n->fence,
	                                  n->signaled ? PRISM_CE_CQ_UPDATE : PRISM_CE_NONE, false);
	w->ctrl.imm = n->imm;
	if (n->op == PRISM_OP_NOP && n->nop_ds)
		w->ctrl.ds = n->nop_ds; /* the codec keeps a NOP's ds */
	w->raddr.raddr = tmpl_value(p, &n->raddr);
	w->raddr.rkey = (uint32_t)tmpl_value(p, &n->rkey);
	w->atomic.size = n->asize;
	w->atomic.swap = tmpl_value(p, &n->swap);
	w->atomic.compare = tmpl_value(p, &n->compare);
	w->atomic.swap_mask = tmpl_value(p, &n->swap_mask);
	w->atomic.compare_mask = tmpl_value(p, &n->compare_mask);
	memcpy(w->atomic.swap_bytes, n->swap_bytes, 32);
	memcpy(w->atomic.compare_bytes, n->compare_bytes, 32);
	memcpy(w->atomic.swap_mask_bytes, n->swap_mask_bytes, 32);
	memcpy(w->atomic.compare_mask_bytes, n->compare_mask_bytes, 32);
	if (n->swap_idx.kind != IR_V_NONE) {
		uint32_t idx = (uint32_t)tmpl_value(p, &n->swap_idx);
		uint32_t obj = (uint32_t)tmpl_value(p, &n->swap_obj);
		for (int i = 0; i < 4; i++) {
			w->atomic.swap_bytes[8 + i] = (uint8_t)(idx >> (24 - 8 * i));
			w->atomic.swap_bytes[12 + i] = (uint8_t)(obj >> (24 - 8 * i));
		}
	}
	if (n->cmp_idx.kind != IR_V_NONE) {
		uint32_t idx = (uint32_t)tmpl_value(p, &n->cmp_idx);
		for (int i = 0; i < 4; i++)
			w->atomic.compare_bytes[8 + i] = (uint8_t)(idx >> (24 - 8 * i));
	}
	w->wait_en.index = (uint32_t)tmpl_value(p, &n->we_index);
	w->wait_en.obj_num = (uint32_t)tmpl_value(p, &n->we_obj) & 0xffffffu;
	if (n->op == PRISM_OP_CQE_WAIT && n->opmod == PRISM_WAIT_ON_DATA) {
		w->has_wod = true;
		w->wod.cond = n->wod_cond;
		w->wod.addr = tmpl_value(p, &n->wod_addr);
		w->wod.lkey = (uint32_t)tmpl_value(p, &n->wod_key);
		w->wod.value = n->wod_value;
		w->wod.mask = n->wod_mask;
	}
	w->num_sge = n->nsge;
	for (unsigned i = 0; i < n->nsge; i++) {
		w->sge[i].addr = tmpl_value(p, &n->sge[i].addr);
		w->sge[i].byte_count = n->sge[i].len;
		w->sge[i].lkey = (uint32_t)tmpl_value(p, &n->sge[i].key);
	}
	w->is_inline = n->is_inline;
	w->inline_len = n->inline_len;
	memcpy(w->inline_data, n->inline_data, sizeof(n->inline_data));
}

/* ---- relocations ------------------------------------------------------------ */

static void reloc(struct emitter *e, uint32_t queue, enum chainobj_ring ring, uint32_t wqe,
                  uint32_t off, uint32_t width, enum chainobj_order order, const struct ir_val *v)
{
	const struct ir_prog *p = e->p;
	struct chainobj_reloc r;
	memset(&r, 0, sizeof(r));
	r.site.queue = queue;
	r.site.ring = ring;
	r.site.wqe = wqe;
	r.site.offset = off;
	r.site.width = width;
	r.order = order;
	switch (v->kind) {
	case IR_V_NONE:
	case IR_V_CONST:
	case IR_V_RUNTIME:
	case IR_V_CTRL_WORD:
		return;
	case IR_V_REGION_ADDR:
		r.kind = CHAINOBJ_RELOC_REGION_ADDR;
		r.target = (uint32_t)v->a;
		r.addend = v->k;
		break;
	case IR_V_REGION_LKEY:
		r.kind = CHAINOBJ_RELOC_REGION_LKEY;
		r.target = (uint32_t)v->a;
		break;
	case IR_V_REGION_RKEY:
		r.kind = CHAINOBJ_RELOC_REGION_RKEY;
		r.target = (uint32_t)v->a;
		break;
	case IR_V_SCRATCH_ADDR:
		r.kind = CHAINOBJ_RELOC_SCRATCH_ADDR;
		r.addend = v->k;
		break;
	case IR_V_SCRATCH_LKEY:
		r.kind = CHAINOBJ_RELOC_SCRATCH_LKEY;
		break;
	case IR_V_SCRATCH_RKEY:
		r.kind = CHAINOBJ_RELOC_SCRATCH_RKEY;
		break;
	case IR_V_NODE_ADDR: {
		const struct ir_node *a = &p->nodes[v->a];
		r.kind = CHAINOBJ_RELOC_QBUF_ADDR;
		r.target = (uint32_t)a->queue;
		r.ring = CHAINOBJ_RING_SQ;
		r.addend = v->k;
		r.stride = p->queues[a->queue].bbs;
		r.delta = a->slot;
		break;
	}
	case IR_V_QBUF_LKEY:
		r.kind = CHAINOBJ_RELOC_QBUF_LKEY;
		r.target = (uint32_t)v->a;
		break;
	case IR_V_QBUF_RKEY:
		r.kind = CHAINOBJ_RELOC_QBUF_RKEY;
		r.target = (uint32_t)v->a;
		break;
	case IR_V_RESP_ADDR:
		r.kind = CHAINOBJ_RELOC_CLIENT_RESP_ADDR;
		r.addend = v->k;
		break;
	case IR_V_RESP_RKEY:
		r.kind = CHAINOBJ_RELOC_CLIENT_RESP_RKEY;
		break;
	case IR_V_QPN:
		r.kind = CHAINOBJ_RELOC_QPN;
		r.target = (uint32_t)v->a;
		break;
	case IR_V_SEND_CQN:
		r.kind = CHAINOBJ_RELOC_CQN;
		r.target = (uint32_t)e->cq_of_queue[v->a];
		break;
	case IR_V_RECV_CQN:
		r.kind = CHAINOBJ_RELOC_CQN;
		r.target = (uint32_t)e->rcq;
		break;
	case IR_V_QUEUE_ENTRY:
	case IR_V_ENABLE_THROUGH: {
		const struct ir_node *a =
		    &p->nodes[v->kind == IR_V_QUEUE_ENTRY ? p->queues[v->a].entry_end : v->a];
		r.kind = CHAINOBJ_RELOC_SQ_COUNT;
		r.target = (uint32_t)a->queue;
		r.stride = p->queues[a->queue].bbs;
		r.delta = a->slot + a->bbs + (v->kind == IR_V_ENABLE_THROUGH ? (uint32_t)v->k : 0);
		break;
	}
	case IR_V_SEND_CQE: {
		/* node a's CQE is completion number count (1-based) of the
		 * invocation, so its 0-based number is count - 1 */
		const struct ir_node *a = &p->nodes[v->a];
		r.kind = CHAINOBJ_RELOC_CQ_COUNT;
		r.target = (uint32_t)e->cq_of_queue[a->queue];
		r.stride = p->queues[a->queue].signaled;
		r.delta = a->count - 1u;
		break;
	}
	case IR_V_RECV_CQE:
		r.kind = CHAINOBJ_RELOC_CQ_COUNT;
		r.target = (uint32_t)e->rcq;
		r.stride = 1;
		r.delta = (uint32_t)v->k;
		break;
	case IR_V_RECV_CQE_ADDR: /* the CQE the entry WAIT waits for (delta 0) */
		r.kind = CHAINOBJ_RELOC_CQE_ADDR;
		r.target = (uint32_t)e->rcq;
		r.stride = 1;
		r.addend = v->k;
		break;
	case IR_V_RECV_CQ_LKEY:
		r.kind = CHAINOBJ_RELOC_CQ_LKEY;
		r.target = (uint32_t)e->rcq;
		break;
	default:
		fail(e, "unknown value kind", -1);
		return;
	}
	struct chainobj_reloc *dst = chainobj_add_reloc(e->o);
	if (!dst) {
		fail(e, "out of memory", -1);
		return;
	}
	*dst = r;
}

/* Relocations for a CTRL_WORD operand stored in an 8-byte atomic field at
 * `off`: the field holds be64(le64(ctrl bytes 0-7)), so ctrl byte i sits at
 * field byte 7-i; the index (ctrl bytes 1-2, big-endian) reads as a
 * little-endian 16-bit value at off+5, the QPN (ctrl bytes 4-6) as a
 * little-endian 24-bit value at off+1. */
static void reloc_ctrl_word(struct emitter *e, uint32_t q, uint32_t wqe, uint32_t off,
                            const struct ir_val *v)
{
	const struct ir_node *a = &e->p->nodes[v->a];
	if (!(v->rt_bytes & 0x06)) {
		struct ir_val idx = {.kind = IR_V_ENABLE_THROUGH, .a = v->a};
		/* the index is the target's own slot, not its end: emit as count */
		struct chainobj_reloc *r = chainobj_add_reloc(e->o);
		if (!r) {
			fail(e, "out of memory", -1);
			return;
		}
		memset(r, 0, sizeof(*r));
		r->site = (struct chainobj_site){q, CHAINOBJ_RING_SQ, wqe, off + 5, 2};
		r->kind = CHAINOBJ_RELOC_SQ_COUNT;
		r->order = CHAINOBJ_ORDER_LITTLE;
		r->target = (uint32_t)a->queue;
		r->stride = e->p->queues[a->queue].bbs;
		r->delta = a->slot;
		(void)idx;
	}
	if (!(v->rt_bytes & 0x70)) {
		struct ir_val qpn = ir_v(IR_V_QPN, a->queue, 0);
		reloc(e, q, CHAINOBJ_RING_SQ, wqe, off + 1, 3, CHAINOBJ_ORDER_LITTLE, &qpn);
	}
}

static void reloc_field(struct emitter *e, uint32_t q, uint32_t wqe, const struct prism_wqe *w,
                        enum prism_wqe_field field, uint32_t extra, uint32_t width,
                        const struct ir_val *v)
{
	uint32_t off, len;
	if (v->kind == IR_V_NONE || v->kind == IR_V_CONST || v->kind == IR_V_RUNTIME)
		return;
	if (prism_wqe_field_offset(w, field, &off, &len) != 0) {
		fail(e, "field not present in this WQE shape", -1);
		return;
	}
	if (v->kind == IR_V_CTRL_WORD) {
		reloc_ctrl_word(e, q, wqe, off + extra, v);
		return;
	}
	reloc(e, q, CHAINOBJ_RING_SQ, wqe, off + extra, width ? width : len, CHAINOBJ_ORDER_BIG, v);
}

static void emit_node(struct emitter *e, struct chainobj_queue *cq, uint32_t qi, uint32_t wqe,
                      const struct ir_node *n)
{
	const struct ir_prog *p = e->p;
	struct prism_wqe w;
	uint8_t buf[PRISM_WQE_MAX_BYTES];
	struct prism_wqe_diag d;
	emit_node_wqe(p, n, &w);
	memset(buf, 0, sizeof(buf));
	int len = prism_wqe_encode(&w, buf, sizeof(buf), &d);
	if (len < 0) {
		fail(e, d.msg, n->id);
		return;
	}
	struct prism_ctrl_seg c;
	prism_ctrl_seg_unpack(buf, &c);
	if (n->tmpl_op != n->op) {
		/* a guarded WQE waits as a plain NOP: its guard swaps in the
		 * opcode and the opmod (masked atomics) */
		c.opcode = n->tmpl_op;
		c.opmod = 0;
	}
	if (n->ctrl_rt_bytes & 0x06)
		c.wqe_index = 0;
	if (n->ctrl_rt_bytes & 0x70)
		c.qpn = 0;
	prism_ctrl_seg_pack(&c, buf);
	if (!chainobj_queue_add_wqe(cq, CHAINOBJ_RING_SQ, n->slot, buf, (uint32_t)len, n->what)) {
		fail(e, "out of memory", -1);
		return;
	}
	/* ctrl index and QPN: exact under both profiles unless an operand rides
	 * there (relaxed `if`) */
	if (!(n->ctrl_rt_bytes & 0x06)) {
		struct chainobj_reloc *r = chainobj_add_reloc(e->o);
		if (!r) {
			fail(e, "out of memory", -1);
			return;
		}
		memset(r, 0, sizeof(*r));
		r->site = (struct chainobj_site){qi, CHAINOBJ_RING_SQ, wqe, 1, 2};
		r->kind = CHAINOBJ_RELOC_SQ_COUNT;
		r->order = CHAINOBJ_ORDER_BIG;
		r->target = qi;
		r->stride = p->queues[qi].bbs;
		r->delta = n->slot;
	}
	if (!(n->ctrl_rt_bytes & 0x70)) {
		struct ir_val qpn = ir_v(IR_V_QPN, (int)qi, 0);
		reloc(e, qi, CHAINOBJ_RING_SQ, wqe, 4, 3, CHAINOBJ_ORDER_BIG, &qpn);
	}
	const struct prism_opcode_info *info = prism_opcode_info(n->op);
	if (!info)
		return;
	switch (info->shape) {
	case PRISM_SHAPE_RADDR_DATA:
	case PRISM_SHAPE_RADDR_ATOMIC:
	case PRISM_SHAPE_RADDR_MASKED:
		reloc_field(e, qi, wqe, &w, PRISM_FIELD_RADDR, 0, 8, &n->raddr);
		reloc_field(e, qi, wqe, &w, PRISM_FIELD_RKEY, 0, 4, &n->rkey);
		break;
	default:
		break;
	}
	if (info->shape == PRISM_SHAPE_RADDR_ATOMIC ||
	    (info->shape == PRISM_SHAPE_RADDR_MASKED && n->asize == 8)) {
		reloc_field(e, qi, wqe, &w, PRISM_FIELD_ATOMIC_SWAP, 0, 8, &n->swap);
		reloc_field(e, qi, wqe, &w, PRISM_FIELD_ATOMIC_COMPARE, 0, 8, &n->compare);
	}
	if (n->swap_idx.kind != IR_V_NONE) {
		reloc_field(e, qi, wqe, &w, PRISM_FIELD_ATOMIC_SWAP, 8, 4, &n->swap_idx);
		reloc_field(e, qi, wqe, &w, PRISM_FIELD_ATOMIC_SWAP, 12, 4, &n->swap_obj);
	}
	if (n->cmp_idx.kind != IR_V_NONE)
		reloc_field(e, qi, wqe, &w, PRISM_FIELD_ATOMIC_COMPARE, 8, 4, &n->cmp_idx);
	if (info->shape == PRISM_SHAPE_WAIT_ENABLE) {
		reloc_field(e, qi, wqe, &w, PRISM_FIELD_WAIT_EN_INDEX, 0, 4, &n->we_index);
		reloc_field(e, qi, wqe, &w, PRISM_FIELD_WAIT_EN_OBJ, 0, 4, &n->we_obj);
		reloc_field(e, qi, wqe, &w, PRISM_FIELD_WOD_ADDR, 0, 8, &n->wod_addr);
		reloc_field(e, qi, wqe, &w, PRISM_FIELD_WOD_LKEY, 0, 4, &n->wod_key);
	}
	if (!n->is_inline) {
		for (unsigned s = 0; s < n->nsge; s++) {
			reloc_field(e, qi, wqe, &w, PRISM_FIELD_SGE0_ADDR, 16 * s, 8,
			            &n->sge[s].addr);
			reloc_field(e, qi, wqe, &w, PRISM_FIELD_SGE0_LKEY, 16 * s, 4,
			            &n->sge[s].key);
		}
	}
}

static enum chainobj_patch_kind patch_kind(const struct ir_prog *p, const struct ir_patch *pt)
{
	uint8_t op = pt->writer >= 0 ? p->nodes[pt->writer].op : 0;
	switch (pt->kind) {
	case IR_PATCH_RECV_SCATTER:
		return CHAINOBJ_PATCH_RECV_SCATTER;
	case IR_PATCH_READ_SCATTER:
		return CHAINOBJ_PATCH_READ_SCATTER;
	case IR_PATCH_WRITE:
		return CHAINOBJ_PATCH_WRITE;
	case IR_PATCH_ATOMIC_RESULT:
	case IR_PATCH_CAS:
	default:
		if (op == PRISM_OP_ATOMIC_FA)
			return CHAINOBJ_PATCH_FETCH_ADD;
		if (op == PRISM_OP_ATOMIC_MASKED_CS)
			return CHAINOBJ_PATCH_MASKED_CAS;
		if (op == PRISM_OP_ATOMIC_MASKED_FA)
			return CHAINOBJ_PATCH_MASKED_FETCH_ADD;
		return CHAINOBJ_PATCH_CAS;
	}
}

static uint32_t pow2_at_least(uint32_t x, uint32_t min)
{
	uint32_t r = min;
	while (r < x)
		r <<= 1;
	return r;
}

static void emit_recv(struct emitter *e, struct chainobj_queue *cq, uint32_t qconn)
{
	const struct ir_prog *p = e->p;
	struct prism_sge sge[IR_MAX_SGE];
	unsigned n = p->n_recv;
	for (unsigned i = 0; i < n; i++) {
		sge[i].byte_count = p->recv[i].len;
		sge[i].lkey = 0;
		sge[i].addr = tmpl_value(p, &p->recv[i].dst);
	}
	unsigned stride_ds = pow2_at_least(n ? n : 1, 1);
	uint8_t buf[IR_MAX_SGE * 16];
	memset(buf, 0, sizeof(buf));
	struct prism_wqe_diag d;
	int len = prism_rwqe_encode(sge, n, buf, stride_ds, &d);
	if (len < 0) {
		fail(e, d.msg, -1);
		return;
	}
	cq->rq_slots = 64;
	cq->rq_stride_ds = stride_ds;
	cq->rq_per_invocation = 1;
	if (!chainobj_queue_add_wqe(cq, CHAINOBJ_RING_RQ, 0, buf, (uint32_t)len,
	                            "arguments: client payload -> WQE fields")) {
		fail(e, "out of memory", -1);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct ir_val *dst = &p->recv[i].dst;
		reloc(e, qconn, CHAINOBJ_RING_RQ, 0, 16 * i + 8, 8, CHAINOBJ_ORDER_BIG, dst);
		struct ir_val key = dst->kind == IR_V_NODE_ADDR
		                        ? ir_v(IR_V_QBUF_LKEY, p->nodes[dst->a].queue, 0)
		                        : ir_v(IR_V_SCRATCH_LKEY, 0, 0);
		reloc(e, qconn, CHAINOBJ_RING_RQ, 0, 16 * i + 4, 4, CHAINOBJ_ORDER_BIG, &key);
	}
}

static void emit_entry(struct emitter *e, const char *entry, uint32_t qconn)
{
	const struct ir_prog *p = e->p;
	struct chainobj_entry *en = chainobj_add_entry(e->o, entry ? entry : "main");
	if (!en) {
		fail(e, "out of memory", -1);
		return;
	}
	en->msg_size = p->msg_size;
	for (unsigned i = 0; i < p->n_params; i++) {
		const struct ir_param *ip = &p->params[i];
		struct chainobj_param *cp = chainobj_entry_add_param(en, ip->name);
		if (!cp) {
			fail(e, "out of memory", -1);
			return;
		}
		/* wider than an integer: an aggregate (u8[16]), sent as bytes */
		cp->type = ip->region >= 0 ? CHAINOBJ_PT_ADDR
		           : ip->width > 8 ? CHAINOBJ_PT_BYTES
		                           : CHAINOBJ_PT_UINT;
		cp->width = ip->width;
		cp->order = ip->big_endian ? CHAINOBJ_ORDER_BIG : CHAINOBJ_ORDER_LITTLE;
		cp->region = ip->region >= 0 ? (uint32_t)ip->region : 0;
		cp->msg_offset = ip->msg_off;
		cp->queue = qconn;
		cp->rwqe = 0;
		unsigned first = IR_MAX_SGE, cnt = 0;
		for (unsigned s = 0; s < p->n_recv; s++) {
			if (p->recv[s].param != (int)i)
				continue;
			if (first == IR_MAX_SGE)
				first = s;
			cnt++;
		}
		cp->copies = ip->copies ? ip->copies : 1;
		cp->first_sge = first == IR_MAX_SGE ? 0 : first;
		cp->n_sge = cnt;
	}
	if (p->resp_size) {
		struct chainobj_result *r = chainobj_entry_add_result(en, "value");
		if (!r) {
			fail(e, "out of memory", -1);
			return;
		}
		/* every return's value lies at result_off (lower_effects.c) */
		r->width = p->result_width;
		r->order = CHAINOBJ_ORDER_BIG;
		r->offset = p->result_off;
	}
}

/* An early exit: the halting queue stops after the exit's enable; every
 * other queue and CQ advances by its full per-invocation amount. */
static void emit_exit(struct emitter *e, const struct ir_exit *x, const int *cqmap)
{
	const struct ir_prog *p = e->p;
	struct chainobj_exit *ex = chainobj_add_exit(e->o);
	if (!ex) {
		fail(e, "out of memory", -1);
		return;
	}
	const struct ir_node *id = &p->nodes[x->response];
	const struct ir_node *halt = &p->nodes[x->halt];
	ex->queue = (uint32_t)id->queue;
	ex->wqe = (uint32_t)id->pos;
	ex->enable = (uint32_t)halt->pos;
	if (halt->queue != id->queue) {
		fail(e, "loop exit test and its enable in different queues", -1);
		return;
	}
	for (unsigned q = 0; q < p->n_queues && q < ex->n_queues; q++) {
		ex->sq_advance[q] = p->queues[q].bbs;
		ex->rq_advance[q] = e->o->queues[q].rq_per_invocation;
		ex->cq_advance[cqmap[q]] = p->queues[q].signaled;
	}
	if (e->rcq >= 0 && (uint32_t)e->rcq < ex->n_cqs)
		ex->cq_advance[e->rcq] = 1;
	const struct ir_queue *hq = &p->queues[halt->queue];
	ex->sq_advance[halt->queue] = halt->slot + halt->bbs;
	uint32_t sig = 0;
	for (unsigned i = 0; i < hq->n; i++) {
		const struct ir_node *n = &p->nodes[hq->nodes[i]];
		if (n->slot > halt->slot)
			break;
		if (n->signaled)
			sig = n->count;
	}
	ex->cq_advance[cqmap[halt->queue]] = sig;
	/* a lap queue advances by laps x ring, known at run time
	 * (chainobj_recycle) */
	for (unsigned q = 0; q < p->n_queues && q < ex->n_queues; q++)
		if (p->queues[q].lap) {
			ex->sq_advance[q] = 0;
			ex->cq_advance[cqmap[q]] = 0;
		}
}

struct chainobj *emit_chainobj(const struct ir_prog *p, const char *entry, char *err, size_t errlen)
{
	struct chainobj *o = chainobj_new(p->name ? p->name : "program");
	int cqmap[CHAINOBJ_MAX_QUEUES];
	struct emitter e = {
	    .p = p, .o = o, .cq_of_queue = cqmap, .rcq = -1, .err = err, .errlen = errlen};
	if (!o) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (p->n_queues > CHAINOBJ_MAX_QUEUES) {
		snprintf(err, errlen, "%u queues exceed the object limit %u", p->n_queues,
		         CHAINOBJ_MAX_QUEUES);
		chainobj_free(o);
		return NULL;
	}
	o->profile =
	    p->profile == IR_PROFILE_STRICT ? CHAINOBJ_PROFILE_STRICT : CHAINOBJ_PROFILE_RELAXED;
	o->rearm = CHAINOBJ_REARM_CPU_REPOST;
	o->scratch_size = p->scratch_size;
	if (p->scratch_init_len &&
	    chainobj_set_scratch_init(o, p->scratch_init, p->scratch_init_len) < 0)
		fail(&e, "out of memory", -1);
	o->response_size = p->resp_size;
	for (unsigned i = 0; i < p->n_regions; i++) {
		const struct ir_region *r = &p->regions[i];
		uint32_t acc = CHAINOBJ_ACC_READ;
		if (r->writable)
			acc |= CHAINOBJ_ACC_WRITE | CHAINOBJ_ACC_ATOMIC;
		if (!chainobj_add_region(o, r->name, r->size ? r->size : 1, acc))
			fail(&e, "out of memory", -1);
	}
	/* one send CQ per queue, plus the connection's receive CQ */
	for (unsigned i = 0; i < p->n_queues && !e.failed; i++) {
		char name[40];
		snprintf(name, sizeof(name), "%s_scq", p->queues[i].name);
		uint32_t ent = pow2_at_least(p->queues[i].signaled * 4 + 4, 16);
		struct chainobj_cq *c = chainobj_add_cq(o, name, ent);
		if (!c) {
			fail(&e, "out of memory", -1);
			break;
		}
		c->ignore_overrun = true;
		c->per_invocation = p->queues[i].lap ? 0 : p->queues[i].signaled;
		cqmap[i] = (int)o->n_cqs - 1;
	}
	if (!e.failed) {
		struct chainobj_cq *c = chainobj_add_cq(o, "conn_rcq", 16);
		if (!c) {
			fail(&e, "out of memory", -1);
		} else {
			c->ignore_overrun = true;
			c->per_invocation = 1;
			e.rcq = (int)o->n_cqs - 1;
		}
	}
	for (unsigned qi = 0; qi < p->n_queues && !e.failed; qi++) {
		const struct ir_queue *q = &p->queues[qi];
		enum chainobj_role role = q->role == IR_Q_CONN ? CHAINOBJ_ROLE_CONN
		                          : q->role == IR_Q_LANE && q->lane > 0
		                              ? CHAINOBJ_ROLE_LANE
		                              : CHAINOBJ_ROLE_WORKER;
		struct chainobj_queue *cq = chainobj_add_queue(o, q->name, role);
		if (!cq) {
			fail(&e, "out of memory", -1);
			break;
		}
		cq->lane = q->lane;
		cq->managed_send = q->managed;
		cq->managed_recv = false;
		cq->sq_slots = q->ring;
		cq->sq_per_invocation = q->lap ? 0 : q->bbs;
		if (q->lap) {
			const struct ir_node *cn = &p->nodes[q->lap_counter];
			cq->recycle.max_laps = q->lap_bound;
			cq->recycle.counter_wqe = (uint32_t)cn->pos;
			struct prism_wqe cw;
			uint32_t fo = 0, fl = 0;
			emit_node_wqe(p, cn, &cw);
			if (prism_wqe_field_offset(&cw, PRISM_FIELD_WAIT_EN_INDEX, &fo, &fl) != 0)
				fail(&e, "lap counter is not a WAIT / SEND_EN", cn->id);
			cq->recycle.counter_offset = fo;
			cq->recycle.cq_per_lap = q->signaled;
			o->schema = CHAINOBJ_SCHEMA_RECYCLE;
		}
		cq->send_cq = (uint32_t)cqmap[qi];
		cq->recv_cq = q->role == IR_Q_CONN ? (uint32_t)e.rcq : (uint32_t)cqmap[qi];
		for (unsigned i = 0; i < q->n && !e.failed; i++)
			emit_node(&e, &o->queues[qi], qi, i, &p->nodes[q->nodes[i]]);
		if (q->role == IR_Q_CONN && !e.failed)
			emit_recv(&e, &o->queues[qi], qi);
	}
	for (unsigned i = 0; i < p->n_patches && !e.failed; i++) {
		const struct ir_patch *pt = &p->patches[i];
		const struct ir_node *t = &p->nodes[pt->target];
		struct chainobj_patch *cp = chainobj_add_patch(o);
		if (!cp) {
			fail(&e, "out of memory", -1);
			break;
		}
		cp->target = (struct chainobj_site){(uint32_t)t->queue, CHAINOBJ_RING_SQ,
		                                    (uint32_t)t->pos, pt->off, pt->len};
		cp->kind = patch_kind(p, pt);
		if (pt->writer == IR_RECV) {
			cp->writer_queue = (uint32_t)p->q_conn;
			cp->writer_ring = CHAINOBJ_RING_RQ;
			cp->writer_wqe = 0;
		} else {
			const struct ir_node *wn = &p->nodes[pt->writer];
			cp->writer_queue = (uint32_t)wn->queue;
			cp->writer_ring = CHAINOBJ_RING_SQ;
			cp->writer_wqe = (uint32_t)wn->pos;
		}
		cp->writer_sge = pt->writer_sge > 0 ? (uint32_t)pt->writer_sge : 0;
	}
	if (!e.failed)
		emit_entry(&e, entry, (uint32_t)p->q_conn);
	for (unsigned i = 0; i < p->n_exits && !e.failed; i++)
		emit_exit(&e, &p->exits[i], cqmap);
	for (unsigned i = 0; i < p->n_loops && !e.failed; i++) {
		char name[32];
		snprintf(name, sizeof(name), "loop%u", i);
		struct chainobj_loop *l = chainobj_add_loop(o, name);
		if (!l) {
			fail(&e, "out of memory", -1);
			break;
		}
		l->bound = p->loops[i].bound;
		l->wr_per_iteration = p->loops[i].wr_per_iter;
		/* scheduled: the distance between two consecutive exits of the
		 * loop (barriers included) */
		int a = -1, b = -1;
		for (unsigned x = 0; x < p->n_exits; x++) {
			if (p->exits[x].loop != (int)i)
				continue;
			if (a < 0)
				a = p->exits[x].halt;
			else if (b < 0)
				b = p->exits[x].halt;
		}
		if (a >= 0 && b >= 0 && p->nodes[b].queue == p->nodes[a].queue &&
		    p->nodes[b].pos > p->nodes[a].pos)
			l->wr_per_iteration = (uint32_t)(p->nodes[b].pos - p->nodes[a].pos);
	}
	if (e.failed) {
		chainobj_free(o);
		return NULL;
	}
	return o;
}
