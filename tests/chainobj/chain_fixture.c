/* SPDX-License-Identifier: MIT */
/*
 * chain_fixture.c - builds the RedN-hash-get-shaped test object through
 * the chain-object builders and the WQE codec.
 *
 * Owns: fixture_hashget().  Must not: hand-pack WQE bytes.
 */
#include "tests/chainobj/chain_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <prism/wqe.h>

static uint32_t field_off(const struct prism_wqe *w, enum prism_wqe_field f)
{
	uint32_t off = 0, len = 0;

	assert_int_equal(prism_wqe_field_offset(w, f, &off, &len), 0);
	return off;
}

static void add_sq(struct chainobj_queue *q, uint32_t slot, const struct prism_wqe *w,
                   const char *note)
{
	uint8_t buf[PRISM_WQE_MAX_BYTES];
	int n;

	memset(buf, 0, sizeof(buf));
	n = prism_wqe_encode(w, buf, sizeof(buf), NULL);
	assert_true(n > 0);
	assert_non_null(chainobj_queue_add_wqe(q, CHAINOBJ_RING_SQ, slot, buf, (uint32_t)n, note));
}

static void reloc(struct chainobj *o, uint32_t q, uint32_t wqe, uint32_t off, uint32_t width,
                  enum chainobj_reloc_kind kind, uint32_t target, uint64_t addend)
{
	struct chainobj_reloc *r = chainobj_add_reloc(o);

	assert_non_null(r);
	r->site = (struct chainobj_site){q, CHAINOBJ_RING_SQ, wqe, off, width};
	r->kind = kind;
	r->target = target;
	r->addend = addend;
	r->order = CHAINOBJ_ORDER_BIG;
}

static void patch(struct chainobj *o, uint32_t tq, uint32_t twqe, uint32_t off, uint32_t width,
                  enum chainobj_patch_kind kind, uint32_t wq, enum chainobj_ring wring,
                  uint32_t wwqe, uint32_t sge)
{
	struct chainobj_patch *p = chainobj_add_patch(o);

	assert_non_null(p);
	p->target = (struct chainobj_site){tq, CHAINOBJ_RING_SQ, twqe, off, width};
	p->kind = kind;
	p->writer_queue = wq;
	p->writer_ring = wring;
	p->writer_wqe = wwqe;
	p->writer_sge = sge;
}

enum { Q_CONN, Q_WORKER };
enum { CQ_CONN, CQ_WORKER };
enum { R_TABLE };

struct chainobj *fixture_hashget(void)
{
	struct chainobj *o = chainobj_new("hash_get");
	struct chainobj_queue *conn, *worker;
	struct chainobj_entry *e;
	struct chainobj_param *p;
	struct chainobj_result *res;
	struct prism_wqe resp, wait, rd, cas, en;
	struct prism_sge rsge[2] = {{3, 0, 0}, {8, 0, 0}};
	uint8_t rbuf[32];
	struct chainobj_loop *l;
	struct chainobj_touch *t;
	uint32_t off;

	assert_non_null(o);
	o->scratch_size = 64;
	o->response_size = 64;
	assert_non_null(
	    chainobj_add_region(o, "table", 1u << 20, CHAINOBJ_ACC_READ | CHAINOBJ_ACC_ATOMIC));
	assert_non_null(chainobj_add_cq(o, "conn_cq", 64));
	assert_non_null(chainobj_add_cq(o, "worker_cq", 64));
	o->cqs[CQ_CONN].per_invocation = 1;
	o->cqs[CQ_WORKER].per_invocation = 1;
	o->cqs[CQ_WORKER].ignore_overrun = true;

	conn = chainobj_add_queue(o, "conn", CHAINOBJ_ROLE_CONN);
	assert_non_null(conn);
	conn->managed_send = true;
	conn->sq_slots = 64;
	conn->rq_slots = 16;
	conn->rq_stride_ds = 2;
	conn->send_cq = CQ_CONN;
	conn->recv_cq = CQ_CONN;
	conn->sq_per_invocation = 1;
	conn->rq_per_invocation = 1;

	/* The response: a WRITE_IMM template, then the NOP control segment over it. */
	memset(&resp, 0, sizeof(resp));
	resp.ctrl.opcode = PRISM_OP_RDMA_WRITE_IMM;
	resp.ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_NONE, PRISM_CE_CQ_UPDATE, false);
	resp.num_sge = 1;
	resp.sge[0] = (struct prism_sge){.byte_count = 64};
	{
		uint8_t buf[PRISM_WQE_MAX_BYTES] = {0};
		int n = prism_wqe_encode(&resp, buf, sizeof(buf), NULL), m;
		struct prism_wqe nop;

		assert_int_equal(n, 48);
		memset(&nop, 0, sizeof(nop));
		nop.ctrl.opcode = PRISM_OP_NOP;
		nop.ctrl.ds = 3;
		nop.ctrl.fm_ce_se = resp.ctrl.fm_ce_se;
		m = prism_wqe_encode(&nop, buf, sizeof(buf), NULL);
		assert_int_equal(m, 48);
		assert_non_null(chainobj_queue_add_wqe(conn, CHAINOBJ_RING_SQ, 0, buf, 48,
		                                       "hash_get.prism:9 return value"));
	}
	assert_int_equal(prism_rwqe_encode(rsge, 2, rbuf, 2, NULL), 32);
	assert_non_null(chainobj_queue_add_wqe(conn, CHAINOBJ_RING_RQ, 0, rbuf, 32, NULL));

	worker = chainobj_add_queue(o, "worker", CHAINOBJ_ROLE_WORKER);
	assert_non_null(worker);
	conn = &o->queues[Q_CONN];
	worker->managed_send = true;
	worker->sq_slots = 64;
	worker->send_cq = CQ_WORKER;
	worker->recv_cq = CQ_WORKER;
	worker->sq_per_invocation = 4;

	memset(&wait, 0, sizeof(wait));
	wait.ctrl.opcode = PRISM_OP_CQE_WAIT;
	wait.wait_en.index = 0;
	add_sq(worker, 0, &wait, "hash_get.prism:3 args arrive");

	memset(&rd, 0, sizeof(rd));
	rd.ctrl.opcode = PRISM_OP_RDMA_READ;
	rd.ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_NONE, PRISM_CE_CQ_UPDATE, false);
	rd.num_sge = 2;
	rd.sge[0] = (struct prism_sge){.byte_count = 3};
	rd.sge[1] = (struct prism_sge){.byte_count = 8};
	add_sq(worker, 1, &rd, "hash_get.prism:5 bucket = table[addr]");

	memset(&cas, 0, sizeof(cas));
	cas.ctrl.opcode = PRISM_OP_ATOMIC_CS;
	cas.ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_SMALL_AND_FENCE, PRISM_CE_CQ_UPDATE, false);
	cas.atomic.size = 8;
	cas.atomic.compare = 0x0000000300000000ull;
	cas.atomic.swap = 0x0000000300000009ull;
	cas.num_sge = 1;
	cas.sge[0] = (struct prism_sge){.byte_count = 8};
	add_sq(worker, 2, &cas, "hash_get.prism:6 if bucket.key == key");

	memset(&en, 0, sizeof(en));
	en.ctrl.opcode = PRISM_OP_SEND_ENABLE;
	en.wait_en.index = 1;
	add_sq(worker, 3, &en, NULL);

	/* Entry point: get(key: bytes[3], addr: addr in table). */
	e = chainobj_add_entry(o, "get");
	assert_non_null(e);
	e->msg_size = 11;
	p = chainobj_entry_add_param(e, "key");
	assert_non_null(p);
	*p = (struct chainobj_param){.name = p->name,
	                             .type = CHAINOBJ_PT_BYTES,
	                             .width = 3,
	                             .queue = Q_CONN,
	                             .first_sge = 0,
	                             .n_sge = 1,
	                             .copies = 1};
	p = chainobj_entry_add_param(e, "addr");
	assert_non_null(p);
	*p = (struct chainobj_param){.name = p->name,
	                             .type = CHAINOBJ_PT_ADDR,
	                             .width = 8,
	                             .region = R_TABLE,
	                             .msg_offset = 3,
	                             .queue = Q_CONN,
	                             .first_sge = 1,
	                             .n_sge = 1,
	                             .copies = 1};
	res = chainobj_entry_add_result(e, "value");
	assert_non_null(res);
	res->width = 64;

	/* Patch sites. */
	off = field_off(&cas, PRISM_FIELD_ATOMIC_COMPARE);
	patch(o, Q_WORKER, 2, off + 1, 3, CHAINOBJ_PATCH_RECV_SCATTER, Q_CONN, CHAINOBJ_RING_RQ, 0,
	      0);
	patch(o, Q_WORKER, 1, field_off(&rd, PRISM_FIELD_RADDR), 8, CHAINOBJ_PATCH_RECV_SCATTER,
	      Q_CONN, CHAINOBJ_RING_RQ, 0, 1);
	patch(o, Q_CONN, 0, field_off(&resp, PRISM_FIELD_CTRL_QPN), 3, CHAINOBJ_PATCH_READ_SCATTER,
	      Q_WORKER, CHAINOBJ_RING_SQ, 1, 0);
	patch(o, Q_CONN, 0, field_off(&resp, PRISM_FIELD_SGE0_ADDR), 8, CHAINOBJ_PATCH_READ_SCATTER,
	      Q_WORKER, CHAINOBJ_RING_SQ, 1, 1);
	patch(o, Q_CONN, 0, 0, 8, CHAINOBJ_PATCH_CAS, Q_WORKER, CHAINOBJ_RING_SQ, 2, 0);

	/* Relocations: the receive scatter targets are queue-buffer addresses. */
	{
		struct chainobj_reloc *r;

		for (uint32_t s = 0; s < 2; s++) {
			r = chainobj_add_reloc(o);
			assert_non_null(r);
			r->site =
			    (struct chainobj_site){Q_CONN, CHAINOBJ_RING_RQ, 0, 16 * s + 8, 8};
			r->kind = CHAINOBJ_RELOC_QBUF_ADDR;
			r->target = Q_WORKER;
			r->ring = CHAINOBJ_RING_SQ;
			if (s == 0) { /* the CAS of invocation k: slot from the count */
				r->addend = off + 1;
				r->stride = 4;
				r->delta = 2;
			} else {
				r->addend = 1 * 64 + 16;
			}
			r = chainobj_add_reloc(o);
			assert_non_null(r);
			r->site =
			    (struct chainobj_site){Q_CONN, CHAINOBJ_RING_RQ, 0, 16 * s + 4, 4};
			r->kind = CHAINOBJ_RELOC_QBUF_LKEY;
			r->target = Q_WORKER;
		}
		r = chainobj_add_reloc(o);
		assert_non_null(r);
		r->site = (struct chainobj_site){Q_WORKER, CHAINOBJ_RING_SQ, 0,
		                                 field_off(&wait, PRISM_FIELD_WAIT_EN_INDEX), 4};
		r->kind = CHAINOBJ_RELOC_CQ_COUNT;
		r->target = CQ_CONN;
		r->stride = 1;
		r->delta = 0; /* receive CQE number k */
		r = chainobj_add_reloc(o);
		assert_non_null(r);
		r->site = (struct chainobj_site){Q_WORKER, CHAINOBJ_RING_SQ, 3,
		                                 field_off(&en, PRISM_FIELD_WAIT_EN_INDEX), 4};
		r->kind = CHAINOBJ_RELOC_SQ_COUNT;
		r->target = Q_CONN;
		r->stride = 1;
		r->delta = 1;
	}
	reloc(o, Q_WORKER, 0, field_off(&wait, PRISM_FIELD_WAIT_EN_OBJ), 4, CHAINOBJ_RELOC_CQN,
	      CQ_CONN, 0);
	reloc(o, Q_WORKER, 1, field_off(&rd, PRISM_FIELD_RKEY), 4, CHAINOBJ_RELOC_REGION_RKEY,
	      R_TABLE, 0);
	reloc(o, Q_WORKER, 1, field_off(&rd, PRISM_FIELD_SGE0_ADDR), 8, CHAINOBJ_RELOC_QBUF_ADDR,
	      Q_CONN, field_off(&resp, PRISM_FIELD_CTRL_QPN));
	o->relocs[o->n_relocs - 1].ring = CHAINOBJ_RING_SQ;
	reloc(o, Q_WORKER, 1, field_off(&rd, PRISM_FIELD_SGE0_LKEY), 4, CHAINOBJ_RELOC_QBUF_LKEY,
	      Q_CONN, 0);
	reloc(o, Q_WORKER, 2, field_off(&cas, PRISM_FIELD_RADDR), 8, CHAINOBJ_RELOC_QBUF_ADDR,
	      Q_CONN, 0);
	o->relocs[o->n_relocs - 1].ring = CHAINOBJ_RING_SQ;
	reloc(o, Q_WORKER, 2, field_off(&cas, PRISM_FIELD_RKEY), 4, CHAINOBJ_RELOC_QBUF_RKEY,
	      Q_CONN, 0);
	reloc(o, Q_WORKER, 2, field_off(&cas, PRISM_FIELD_SGE0_ADDR), 8,
	      CHAINOBJ_RELOC_SCRATCH_ADDR, 0, 0);
	reloc(o, Q_WORKER, 2, field_off(&cas, PRISM_FIELD_SGE0_LKEY), 4,
	      CHAINOBJ_RELOC_SCRATCH_LKEY, 0, 0);
	reloc(o, Q_WORKER, 3, field_off(&en, PRISM_FIELD_WAIT_EN_OBJ), 4, CHAINOBJ_RELOC_QPN,
	      Q_CONN, 0);
	reloc(o, Q_CONN, 0, field_off(&resp, PRISM_FIELD_RADDR), 8, CHAINOBJ_RELOC_CLIENT_RESP_ADDR,
	      0, 0);
	reloc(o, Q_CONN, 0, field_off(&resp, PRISM_FIELD_RKEY), 4, CHAINOBJ_RELOC_CLIENT_RESP_RKEY,
	      0, 0);
	reloc(o, Q_CONN, 0, field_off(&resp, PRISM_FIELD_SGE0_LKEY), 4, CHAINOBJ_RELOC_REGION_LKEY,
	      R_TABLE, 0);

	{
		static const uint8_t sentinel[8] = {0, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef};
		struct chainobj_exit *x;

		assert_int_equal(chainobj_set_scratch_init(o, sentinel, sizeof(sentinel)), 0);
		x = chainobj_add_exit(o); /* key mismatch: the response never runs */
		assert_non_null(x);
		x->queue = Q_WORKER;
		x->wqe = 2;
		x->enable = 3;
		x->sq_advance[Q_CONN] = 0;
		x->sq_advance[Q_WORKER] = 3;
		x->rq_advance[Q_CONN] = 1;
		x->cq_advance[CQ_CONN] = 1;
		x->cq_advance[CQ_WORKER] = 1;
	}
	o->summary.verified = true;
	o->summary.wr_per_invocation = 6;
	o->summary.barriers = 2;
	l = chainobj_add_loop(o, "probe");
	assert_non_null(l);
	l->bound = 1;
	l->wr_per_iteration = 3;
	t = chainobj_add_touch(o);
	assert_non_null(t);
	t->region = R_TABLE;
	t->access = CHAINOBJ_ACC_READ;
	return o;
}
