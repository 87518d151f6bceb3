/* SPDX-License-Identifier: MIT */
/*
 * tests/runtime/support/hashget_chain.c - the hand-built RedN hash get as a
 * chain object (see hashget_chain.h for the picture).  Every WQE byte comes
 * from the codec; every field offset from prism_wqe_field_offset().
 */
#include <string.h>

#include <prism/wqe.h>

#include "tests/runtime/support/hashget_chain.h"

enum { Q_CTL, Q_CONN, Q_WORKER };
enum { CQ_CTL, CQ_CONN_S, CQ_CONN_R, CQ_WORKER };
enum { R1 = 0, R2 = 1 };        /* conn SQ templates */
enum { W_READ = 0, W_CAS = 1 }; /* worker SQ templates */

struct bld {
	struct chainobj *o;
	int err;
};

static uint32_t field_off(const struct prism_wqe *w, enum prism_wqe_field f)
{
	uint32_t off = 0, len = 0;

	prism_wqe_field_offset(w, f, &off, &len);
	return off;
}

static void add_wqe(struct bld *b, uint32_t q, uint32_t slot, const struct prism_wqe *w,
                    const char *note)
{
	uint8_t buf[PRISM_WQE_MAX_BB * PRISM_WQE_BB] = {0};
	int n = prism_wqe_encode(w, buf, sizeof(buf), NULL);

	if (n < 0 || !chainobj_queue_add_wqe(&b->o->queues[q], CHAINOBJ_RING_SQ, slot, buf,
	                                     (uint32_t)n, note))
		b->err = -1;
}

static void reloc(struct bld *b, uint32_t q, enum chainobj_ring ring, uint32_t wqe, uint32_t off,
                  uint32_t width, enum chainobj_reloc_kind kind, uint32_t target, uint32_t tring,
                  uint64_t addend, uint32_t stride, uint32_t delta)
{
	struct chainobj_reloc *r = chainobj_add_reloc(b->o);

	if (!r) {
		b->err = -1;
		return;
	}
	r->site = (struct chainobj_site){q, ring, wqe, off, width};
	r->kind = kind;
	r->order = CHAINOBJ_ORDER_BIG;
	r->target = target;
	r->ring = tring;
	r->addend = addend;
	r->stride = stride;
	r->delta = delta;
}

/* Declare that @wq/@wring/@ww (scatter entry @sge) rewrites bytes of another WQE. */
static void patch(struct bld *b, uint32_t q, uint32_t wqe, uint32_t off, uint32_t width,
                  enum chainobj_patch_kind kind, uint32_t wq, enum chainobj_ring wring, uint32_t ww,
                  uint32_t sge)
{
	struct chainobj_patch *p = chainobj_add_patch(b->o);

	if (!p) {
		b->err = -1;
		return;
	}
	p->target = (struct chainobj_site){q, CHAINOBJ_RING_SQ, wqe, off, width};
	p->kind = kind;
	p->writer_queue = wq;
	p->writer_ring = wring;
	p->writer_wqe = ww;
	p->writer_sge = sge;
}

static void wait_en(struct prism_wqe *w, uint8_t op)
{
	memset(w, 0, sizeof(*w));
	w->ctrl.opcode = op;
	w->has_wait_en = true;
}

/* ctl: WAIT conn.rcq, the request gate (wait-on-data on that CQE's opcode:
 * a flushed receive opens nothing), SEND_EN worker, WAIT worker.cq,
 * SEND_EN conn (5 BBs). */
static void build_ctl(struct bld *b)
{
	struct prism_wqe w;
	uint32_t idx, obj;

	wait_en(&w, PRISM_OP_CQE_WAIT);
	idx = field_off(&w, PRISM_FIELD_WAIT_EN_INDEX);
	obj = field_off(&w, PRISM_FIELD_WAIT_EN_OBJ);
	add_wqe(b, Q_CTL, 0, &w, "args arrived");
	reloc(b, Q_CTL, CHAINOBJ_RING_SQ, 0, idx, 4, CHAINOBJ_RELOC_CQ_COUNT, CQ_CONN_R, 0, 0, 1,
	      0);
	reloc(b, Q_CTL, CHAINOBJ_RING_SQ, 0, obj, 4, CHAINOBJ_RELOC_CQN, CQ_CONN_R, 0, 0, 0, 0);
	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_CQE_WAIT;
	w.ctrl.opmod = PRISM_WAIT_ON_DATA;
	w.has_wod = true;
	w.wod = (struct prism_wod_seg){.cond = PRISM_WOD_EQUAL,
	                               .addr = CHAINOBJ_GATE_CQE_OFFSET,
	                               .value = CHAINOBJ_GATE_VALUE,
	                               .mask = CHAINOBJ_GATE_MASK};
	add_wqe(b, Q_CTL, 1, &w, "request gate");
	reloc(b, Q_CTL, CHAINOBJ_RING_SQ, 1, field_off(&w, PRISM_FIELD_WOD_ADDR), 8,
	      CHAINOBJ_RELOC_CQE_ADDR, CQ_CONN_R, 0, CHAINOBJ_GATE_CQE_OFFSET, 1, 0);
	reloc(b, Q_CTL, CHAINOBJ_RING_SQ, 1, field_off(&w, PRISM_FIELD_WOD_LKEY), 4,
	      CHAINOBJ_RELOC_CQ_LKEY, CQ_CONN_R, 0, 0, 0, 0);
	wait_en(&w, PRISM_OP_SEND_ENABLE);
	add_wqe(b, Q_CTL, 2, &w, "start the worker");
	reloc(b, Q_CTL, CHAINOBJ_RING_SQ, 2, idx, 4, CHAINOBJ_RELOC_SQ_COUNT, Q_WORKER, 0, 0, 2, 2);
	reloc(b, Q_CTL, CHAINOBJ_RING_SQ, 2, obj, 4, CHAINOBJ_RELOC_QPN, Q_WORKER, 0, 0, 0, 0);
	wait_en(&w, PRISM_OP_CQE_WAIT);
	add_wqe(b, Q_CTL, 3, &w, "worker done");
	reloc(b, Q_CTL, CHAINOBJ_RING_SQ, 3, idx, 4, CHAINOBJ_RELOC_CQ_COUNT, CQ_WORKER, 0, 0, 1,
	      0);
	reloc(b, Q_CTL, CHAINOBJ_RING_SQ, 3, obj, 4, CHAINOBJ_RELOC_CQN, CQ_WORKER, 0, 0, 0, 0);
	wait_en(&w, PRISM_OP_SEND_ENABLE);
	add_wqe(b, Q_CTL, 4, &w, "release the response");
	reloc(b, Q_CTL, CHAINOBJ_RING_SQ, 4, idx, 4, CHAINOBJ_RELOC_SQ_COUNT, Q_CONN, 0, 0, 2, 2);
	reloc(b, Q_CTL, CHAINOBJ_RING_SQ, 4, obj, 4, CHAINOBJ_RELOC_QPN, Q_CONN, 0, 0, 0, 0);
}

/* R1's control segment bytes 0..7 read as a host-endian (LE) u64, with @op. */
static uint64_t r1_ctrl_word(uint8_t op)
{
	struct prism_ctrl_seg c = {.opcode = op, .ds = 3};
	uint8_t raw[16];
	uint64_t v = 0;

	prism_ctrl_seg_pack(&c, raw);
	for (int i = 7; i >= 0; i--)
		v = v << 8 | raw[i];
	return v;
}

/* conn SQ: R1 (NOP standing in for a 64-byte WRITE), R2 (WRITE_IMM 8 bytes). */
static void build_conn(struct bld *b, uint32_t *r1_qpn_off, uint32_t *r1_addr_off)
{
	uint8_t buf[2 * PRISM_WQE_BB] = {0};
	struct prism_wqe w;
	int n;

	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_RDMA_WRITE;
	w.has_raddr = true;
	w.num_sge = 1;
	w.sge[0].byte_count = HG_VALUE_BYTES;
	n = prism_wqe_encode(&w, buf, sizeof(buf), NULL);
	uint32_t raddr = field_off(&w, PRISM_FIELD_RADDR), rkey = field_off(&w, PRISM_FIELD_RKEY);
	uint32_t lkey = field_off(&w, PRISM_FIELD_SGE0_LKEY);
	*r1_addr_off = field_off(&w, PRISM_FIELD_SGE0_ADDR);
	*r1_qpn_off = field_off(&w, PRISM_FIELD_CTRL_QPN);
	/* Same bytes, opcode NOP with the WRITE's DS: the CAS flips it on a hit. */
	w.ctrl.opcode = PRISM_OP_NOP;
	w.ctrl.ds = (uint8_t)(n / 16);
	if (n < 0 || prism_wqe_encode(&w, buf, sizeof(buf), NULL) < 0 ||
	    !chainobj_queue_add_wqe(&b->o->queues[Q_CONN], CHAINOBJ_RING_SQ, 0, buf, (uint32_t)n,
	                            "hit: return the value"))
		b->err = -1;
	reloc(b, Q_CONN, CHAINOBJ_RING_SQ, R1, raddr, 8, CHAINOBJ_RELOC_CLIENT_RESP_ADDR, 0, 0, 0,
	      0, 0);
	reloc(b, Q_CONN, CHAINOBJ_RING_SQ, R1, rkey, 4, CHAINOBJ_RELOC_CLIENT_RESP_RKEY, 0, 0, 0, 0,
	      0);
	reloc(b, Q_CONN, CHAINOBJ_RING_SQ, R1, lkey, 4, CHAINOBJ_RELOC_REGION_LKEY, 0, 0, 0, 0, 0);

	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_RDMA_WRITE_IMM;
	w.ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_NONE, PRISM_CE_CQ_UPDATE, false);
	w.has_raddr = true;
	w.num_sge = 1;
	w.sge[0].byte_count = 8;
	add_wqe(b, Q_CONN, 1, &w, "answer: done marker");
	reloc(b, Q_CONN, CHAINOBJ_RING_SQ, R2, raddr, 8, CHAINOBJ_RELOC_CLIENT_RESP_ADDR, 0, 0,
	      HG_VALUE_BYTES, 0, 0);
	reloc(b, Q_CONN, CHAINOBJ_RING_SQ, R2, rkey, 4, CHAINOBJ_RELOC_CLIENT_RESP_RKEY, 0, 0, 0, 0,
	      0);
	reloc(b, Q_CONN, CHAINOBJ_RING_SQ, R2, lkey, 4, CHAINOBJ_RELOC_SCRATCH_LKEY, 0, 0, 0, 0, 0);
	reloc(b, Q_CONN, CHAINOBJ_RING_SQ, R2, *r1_addr_off, 8, CHAINOBJ_RELOC_SCRATCH_ADDR, 0, 0,
	      0, 0, 0);
}

/* worker: READ the bucket into R1, CAS R1's control segment (2 BBs). */
static void build_worker(struct bld *b, uint32_t r1_qpn_off, uint32_t r1_addr_off,
                         uint32_t *read_raddr_off, uint32_t *cas_cmp_off)
{
	struct prism_wqe w;
	uint32_t sge0, sge1;

	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_RDMA_READ;
	w.has_raddr = true;
	w.num_sge = 2;
	w.sge[0].byte_count = HG_KEY_BYTES;
	w.sge[1].byte_count = 8;
	*read_raddr_off = field_off(&w, PRISM_FIELD_RADDR);
	sge0 = field_off(&w, PRISM_FIELD_SGE0_LKEY);
	sge1 = sge0 + 16;
	add_wqe(b, Q_WORKER, 0, &w, "bucket = table[addr]");
	reloc(b, Q_WORKER, CHAINOBJ_RING_SQ, W_READ, field_off(&w, PRISM_FIELD_RKEY), 4,
	      CHAINOBJ_RELOC_REGION_RKEY, 0, 0, 0, 0, 0);
	reloc(b, Q_WORKER, CHAINOBJ_RING_SQ, W_READ, sge0, 4, CHAINOBJ_RELOC_QBUF_LKEY, Q_CONN, 0,
	      0, 0, 0);
	reloc(b, Q_WORKER, CHAINOBJ_RING_SQ, W_READ, sge0 + 4, 8, CHAINOBJ_RELOC_QBUF_ADDR, Q_CONN,
	      CHAINOBJ_RING_SQ, R1 * PRISM_WQE_BB + r1_qpn_off, 0, 0);
	reloc(b, Q_WORKER, CHAINOBJ_RING_SQ, W_READ, sge1, 4, CHAINOBJ_RELOC_QBUF_LKEY, Q_CONN, 0,
	      0, 0, 0);
	reloc(b, Q_WORKER, CHAINOBJ_RING_SQ, W_READ, sge1 + 4, 8, CHAINOBJ_RELOC_QBUF_ADDR, Q_CONN,
	      CHAINOBJ_RING_SQ, R1 * PRISM_WQE_BB + r1_addr_off, 0, 0);

	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_ATOMIC_CS;
	/* The CAS must read R1 after the READ wrote it. */
	w.ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_SMALL_AND_FENCE, PRISM_CE_CQ_UPDATE, false);
	w.has_raddr = true;
	w.has_atomic = true;
	w.atomic.size = 8;
	w.atomic.compare = r1_ctrl_word(PRISM_OP_NOP);
	w.atomic.swap = r1_ctrl_word(PRISM_OP_RDMA_WRITE);
	w.num_sge = 1;
	w.sge[0].byte_count = 8;
	*cas_cmp_off = field_off(&w, PRISM_FIELD_ATOMIC_COMPARE);
	add_wqe(b, Q_WORKER, 1, &w, "if bucket.key == key");
	reloc(b, Q_WORKER, CHAINOBJ_RING_SQ, W_CAS, field_off(&w, PRISM_FIELD_RADDR), 8,
	      CHAINOBJ_RELOC_QBUF_ADDR, Q_CONN, CHAINOBJ_RING_SQ, R1 * PRISM_WQE_BB, 0, 0);
	reloc(b, Q_WORKER, CHAINOBJ_RING_SQ, W_CAS, field_off(&w, PRISM_FIELD_RKEY), 4,
	      CHAINOBJ_RELOC_QBUF_RKEY, Q_CONN, 0, 0, 0, 0);
	reloc(b, Q_WORKER, CHAINOBJ_RING_SQ, W_CAS, field_off(&w, PRISM_FIELD_SGE0_LKEY), 4,
	      CHAINOBJ_RELOC_SCRATCH_LKEY, 0, 0, 0, 0, 0);
	reloc(b, Q_WORKER, CHAINOBJ_RING_SQ, W_CAS, field_off(&w, PRISM_FIELD_SGE0_ADDR), 8,
	      CHAINOBJ_RELOC_SCRATCH_ADDR, 0, 0, 8, 0, 0);
}

/* conn RQ: one RECV, key -> CAS compare bytes 1..3, addr -> READ raddr. */
static void build_recv(struct bld *b, uint32_t read_raddr_off, uint32_t cas_cmp_off)
{
	struct prism_sge sge[2] = {{.byte_count = HG_KEY_BYTES}, {.byte_count = 8}};
	uint8_t buf[32] = {0};
	struct chainobj_entry *e;
	struct chainobj_param *p;

	if (prism_rwqe_encode(sge, 2, buf, 2, NULL) < 0 ||
	    !chainobj_queue_add_wqe(&b->o->queues[Q_CONN], CHAINOBJ_RING_RQ, 0, buf, 32,
	                            "arguments"))
		b->err = -1;
	/* rwqe data segment i: byte_count at 16i, lkey at 16i+4, addr at 16i+8. */
	reloc(b, Q_CONN, CHAINOBJ_RING_RQ, 0, 4, 4, CHAINOBJ_RELOC_QBUF_LKEY, Q_WORKER, 0, 0, 0, 0);
	reloc(b, Q_CONN, CHAINOBJ_RING_RQ, 0, 8, 8, CHAINOBJ_RELOC_QBUF_ADDR, Q_WORKER,
	      CHAINOBJ_RING_SQ, W_CAS * PRISM_WQE_BB + cas_cmp_off + 1, 0, 0);
	reloc(b, Q_CONN, CHAINOBJ_RING_RQ, 0, 20, 4, CHAINOBJ_RELOC_QBUF_LKEY, Q_WORKER, 0, 0, 0,
	      0);
	reloc(b, Q_CONN, CHAINOBJ_RING_RQ, 0, 24, 8, CHAINOBJ_RELOC_QBUF_ADDR, Q_WORKER,
	      CHAINOBJ_RING_SQ, W_READ * PRISM_WQE_BB + read_raddr_off, 0, 0);

	e = chainobj_add_entry(b->o, "get");
	if (!e) {
		b->err = -1;
		return;
	}
	e->msg_size = HG_KEY_BYTES + 8;
	p = chainobj_entry_add_param(e, "key");
	if (p)
		*p = (struct chainobj_param){.name = p->name,
		                             .type = CHAINOBJ_PT_UINT,
		                             .width = HG_KEY_BYTES,
		                             .order = CHAINOBJ_ORDER_LITTLE,
		                             .msg_offset = 0,
		                             .copies = 1,
		                             .queue = Q_CONN,
		                             .rwqe = 0,
		                             .first_sge = 0,
		                             .n_sge = 1};
	p = chainobj_entry_add_param(e, "addr");
	if (p)
		*p = (struct chainobj_param){.name = p->name,
		                             .type = CHAINOBJ_PT_ADDR,
		                             .width = 8,
		                             .order = CHAINOBJ_ORDER_BIG,
		                             .region = 0,
		                             .msg_offset = HG_KEY_BYTES,
		                             .copies = 1,
		                             .queue = Q_CONN,
		                             .rwqe = 0,
		                             .first_sge = 1,
		                             .n_sge = 1};
	struct chainobj_result *r = chainobj_entry_add_result(e, "value");
	if (!p || !r)
		b->err = -1;
	else
		r->width = HG_VALUE_BYTES;
}

struct chainobj *hg_build(uint64_t table_size)
{
	struct bld b = {.o = chainobj_new("hash_get")};
	uint32_t r1_qpn, r1_addr, read_raddr, cas_cmp;
	struct chainobj_queue *q;
	struct chainobj_cq *c;

	if (!b.o)
		return NULL;
	b.o->scratch_size = 64;
	b.o->response_size = HG_VALUE_BYTES + 8;
	if (!chainobj_add_region(b.o, "table", table_size, CHAINOBJ_ACC_READ))
		goto fail;
	static const struct {
		const char *name;
		uint32_t per;
	} cqs[] = {{"ctl_cq", 0}, {"conn_scq", 1}, {"conn_rcq", 1}, {"worker_cq", 1}};
	for (unsigned i = 0; i < 4; i++) {
		if (!(c = chainobj_add_cq(b.o, cqs[i].name, 64)))
			goto fail;
		c->per_invocation = cqs[i].per;
		c->ignore_overrun = i == CQ_CTL;
	}
	if (!(q = chainobj_add_queue(b.o, "ctl", CHAINOBJ_ROLE_WORKER)))
		goto fail;
	*q = (struct chainobj_queue){.name = q->name,
	                             .role = CHAINOBJ_ROLE_WORKER,
	                             .sq_slots = 64,
	                             .send_cq = CQ_CTL,
	                             .recv_cq = CQ_CTL,
	                             .sq_per_invocation = 5};
	if (!(q = chainobj_add_queue(b.o, "conn", CHAINOBJ_ROLE_CONN)))
		goto fail;
	*q = (struct chainobj_queue){.name = q->name,
	                             .role = CHAINOBJ_ROLE_CONN,
	                             .managed_send = true,
	                             .sq_slots = 64,
	                             .rq_slots = 16,
	                             .rq_stride_ds = 2,
	                             .send_cq = CQ_CONN_S,
	                             .recv_cq = CQ_CONN_R,
	                             .sq_per_invocation = 2,
	                             .rq_per_invocation = 1};
	if (!(q = chainobj_add_queue(b.o, "worker", CHAINOBJ_ROLE_WORKER)))
		goto fail;
	*q = (struct chainobj_queue){.name = q->name,
	                             .role = CHAINOBJ_ROLE_WORKER,
	                             .managed_send = true,
	                             .sq_slots = 64,
	                             .send_cq = CQ_WORKER,
	                             .recv_cq = CQ_WORKER,
	                             .sq_per_invocation = 2};
	build_ctl(&b);
	build_conn(&b, &r1_qpn, &r1_addr);
	build_worker(&b, r1_qpn, r1_addr, &read_raddr, &cas_cmp);
	build_recv(&b, read_raddr, cas_cmp);
	patch(&b, Q_WORKER, W_CAS, cas_cmp + 1, HG_KEY_BYTES, CHAINOBJ_PATCH_RECV_SCATTER, Q_CONN,
	      CHAINOBJ_RING_RQ, 0, 0);
	patch(&b, Q_WORKER, W_READ, read_raddr, 8, CHAINOBJ_PATCH_RECV_SCATTER, Q_CONN,
	      CHAINOBJ_RING_RQ, 0, 1);
	patch(&b, Q_CONN, R1, r1_qpn, HG_KEY_BYTES, CHAINOBJ_PATCH_READ_SCATTER, Q_WORKER,
	      CHAINOBJ_RING_SQ, W_READ, 0);
	patch(&b, Q_CONN, R1, r1_addr, 8, CHAINOBJ_PATCH_READ_SCATTER, Q_WORKER, CHAINOBJ_RING_SQ,
	      W_READ, 1);
	patch(&b, Q_CONN, R1, 0, 8, CHAINOBJ_PATCH_CAS, Q_WORKER, CHAINOBJ_RING_SQ, W_CAS, 0);
	b.o->summary.verified = true;
	b.o->summary.wr_per_invocation = 10;
	b.o->summary.barriers = 2;
	struct chainobj_touch *t = chainobj_add_touch(b.o);
	if (b.err || !t)
		goto fail;
	t->region = 0;
	t->access = CHAINOBJ_ACC_READ;
	return b.o;
fail:
	chainobj_free(b.o);
	return NULL;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void hg_fill(struct hg_table *t, const uint32_t *keys, uint64_t base, uint64_t seed)
{
	uint64_t values = (uint64_t)t->nb * HG_BUCKET_BYTES;

	memset(t->mem, 0, t->size);
	for (uint32_t i = 0; i < t->nb; i++) {
		uint8_t *bk = t->mem + (size_t)i * HG_BUCKET_BYTES;
		uint8_t *val = t->mem + values + (size_t)i * HG_VALUE_BYTES;
		uint64_t va = base + values + (uint64_t)i * HG_VALUE_BYTES;

		bk[0] = (uint8_t)(keys[i] >> 16);
		bk[1] = (uint8_t)(keys[i] >> 8);
		bk[2] = (uint8_t)keys[i];
		for (int j = 0; j < 8; j++)
			bk[3 + j] = (uint8_t)(va >> (56 - 8 * j));
		for (uint32_t j = 0; j < HG_VALUE_BYTES; j += 8) {
			uint64_t r = splitmix(&seed) | 1; /* never all zero */

			memcpy(val + j, &r, 8);
		}
	}
}

void hg_reference(const struct hg_table *t, uint32_t b, uint32_t key, uint8_t out[HG_VALUE_BYTES])
{
	const uint8_t *bk = t->mem + (size_t)b * HG_BUCKET_BYTES;
	uint32_t stored = (uint32_t)bk[0] << 16 | (uint32_t)bk[1] << 8 | bk[2];

	memset(out, 0, HG_VALUE_BYTES);
	if (stored == key)
		memcpy(out, t->mem + (size_t)t->nb * HG_BUCKET_BYTES + (size_t)b * HG_VALUE_BYTES,
		       HG_VALUE_BYTES);
}

void hg_get_call(struct prism_call *c, struct prism_arg args[2], uint32_t key, uint32_t b,
                 uint8_t *out)
{
	args[0] = (struct prism_arg){.name = "key", .u64 = key};
	args[1] = (struct prism_arg){.name = "addr", .u64 = (uint64_t)b * HG_BUCKET_BYTES};
	*c = (struct prism_call){.sz = sizeof(*c),
	                         .entry = "get",
	                         .args = args,
	                         .nargs = 2,
	                         .result = out,
	                         .result_cap = HG_RESULT_BYTES};
}
