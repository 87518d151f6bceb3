/* SPDX-License-Identifier: MIT */
/*
 * tests/sim/sim_harness.c - the host driver of sim_harness.h.
 *
 * Owns: posting (through the codec) and polling.  Must not: touch engine
 * internals.  Failures abort the test through cmocka asserts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/sim/sim_harness.h"

struct sim_dev *hx_dev(uint64_t seed, enum sim_fw_profile fw, enum sim_hazard_policy hz, bool chaos)
{
	struct sim_dev_opts o = {
	    .sz = sizeof(o), .seed = seed, .fw = fw, .hazard = hz, .chaos = chaos};
	struct sim_dev *dev = NULL;

	assert_int_equal(sim_dev_open(&o, &dev), 0);
	return dev;
}

void hx_cq_init(struct hx_cq *c, struct sim_dev *dev, uint32_t ncqe, bool ignore_overrun)
{
	struct sim_cq_attr a = {.ncqe = ncqe, .ignore_overrun = ignore_overrun};

	memset(c, 0, sizeof(*c));
	assert_int_equal(sim_cq_create(dev, &a, &c->cq), 0);
}

void hx_qp_init_prot(struct hx_qp *q, struct sim_dev *dev, struct hx_cq *scq, struct hx_cq *rcq,
                     uint32_t sq_bbs, uint32_t rq_n, unsigned flags, struct sim_pd *pd,
                     unsigned access)
{
	const unsigned all = SIM_ACCESS_LOCAL_WRITE | SIM_ACCESS_REMOTE_ALL;
	struct sim_qp_attr a = {
	    .access = access,
	    .pd = pd,
	    .send_cq = scq->cq,
	    .recv_cq = rcq->cq,
	    .sq_bbs = sq_bbs,
	    .rq_wqes = rq_n,
	    .rq_max_sge = 16,
	    .flags = flags,
	};

	memset(q, 0, sizeof(*q));
	assert_int_equal(sim_qp_create(dev, &a, &q->qp), 0);
	q->dev = dev;
	q->scq = scq;
	q->rcq = rcq;
	q->qpn = sim_qp_num(q->qp);
	q->sq_bbs = sq_bbs;
	q->rq_n = rq_n;
	q->sq = sim_qp_sq(q->qp);
	assert_int_equal(pd ? sim_mr_reg_pd(pd, q->sq, (size_t)sq_bbs * 64, all, &q->sq_mr)
	                    : sim_mr_reg(dev, q->sq, (size_t)sq_bbs * 64, all, &q->sq_mr),
	                 0);
}

void hx_qp_init(struct hx_qp *q, struct sim_dev *dev, struct hx_cq *scq, struct hx_cq *rcq,
                uint32_t sq_bbs, uint32_t rq_n, unsigned flags)
{
	hx_qp_init_prot(q, dev, scq, rcq, sq_bbs, rq_n, flags, NULL, SIM_ACCESS_REMOTE_ALL);
}

void hx_connect(struct hx_qp *q, uint32_t peer_node, uint32_t peer_qpn, uint8_t rnr_retry,
                uint8_t min_rnr_timer)
{
	struct sim_qp_mod m = {.state = SIM_QPS_INIT};

	assert_int_equal(sim_qp_modify(q->qp, &m), 0);
	m.state = SIM_QPS_RTR;
	m.peer_node = peer_node;
	m.peer_qpn = peer_qpn;
	m.min_rnr_timer = min_rnr_timer;
	assert_int_equal(sim_qp_modify(q->qp, &m), 0);
	m.state = SIM_QPS_RTS;
	m.rnr_retry = rnr_retry;
	assert_int_equal(sim_qp_modify(q->qp, &m), 0);
}

void hx_pair(struct hx_qp *a, struct hx_qp *b)
{
	uint32_t node = sim_dev_node(a->dev);

	hx_connect(a, node, b->qpn, 7, 1);
	if (a != b)
		hx_connect(b, node, a->qpn, 7, 1);
}

uint8_t *hx_slot(struct hx_qp *q, uint32_t counter)
{
	return q->sq + (size_t)(counter & (q->sq_bbs - 1)) * 64;
}

uint32_t hx_post(struct hx_qp *q, struct prism_wqe *w)
{
	uint8_t buf[PRISM_WQE_MAX_BB * 64];
	uint32_t c = q->sq_pi, nbb, off;
	int len;

	w->ctrl.wqe_index = (uint16_t)c;
	w->ctrl.qpn = q->qpn;
	memset(buf, 0, sizeof(buf));
	len = prism_wqe_encode(w, buf, sizeof(buf), NULL);
	assert_true(len > 0);
	nbb = prism_wqe_bbs((unsigned)len / 16);
	for (uint32_t i = 0; i < nbb; i++) {
		off = ((c + i) & (q->sq_bbs - 1)) * 64;
		memcpy(q->sq + off, buf + i * 64, 64);
	}
	q->sq_pi += nbb;
	__atomic_store_n(&sim_qp_dbrec(q->qp)[1], __builtin_bswap32(q->sq_pi & 0xffff),
	                 __ATOMIC_RELEASE);
	return c;
}

void hx_ring(struct hx_qp *q)
{
	assert_int_equal(sim_qp_ring_sq_doorbell(q->qp), 0);
}

uint32_t hx_post_recv(struct hx_qp *q, const struct prism_sge *sge, unsigned n)
{
	uint32_t stride = sim_qp_rq_stride(q->qp), c = q->rq_pi;
	uint8_t *slot = (uint8_t *)sim_qp_buf(q->qp) + (size_t)(c & (q->rq_n - 1)) * stride;

	assert_true(prism_rwqe_encode(sge, n, slot, stride / 16, NULL) >= 0);
	q->rq_pi++;
	__atomic_store_n(&sim_qp_dbrec(q->qp)[0], __builtin_bswap32(q->rq_pi & 0xffff),
	                 __ATOMIC_RELEASE);
	assert_int_equal(sim_qp_ring_rq_doorbell(q->qp), 0);
	return c;
}

int hx_poll(struct hx_cq *c, struct prism_cqe *out)
{
	uint32_t n = sim_cq_ncqe(c->cq);
	uint8_t *cqe = (uint8_t *)sim_cq_buf(c->cq) + (size_t)(c->ci & (n - 1)) * 64;
	uint8_t op_own = __atomic_load_n(&cqe[63], __ATOMIC_ACQUIRE);

	if ((op_own >> 4) == PRISM_CQE_INVALID || !prism_cqe_sw_owned(op_own, c->ci, n))
		return 0;
	assert_int_equal(prism_cqe_decode(cqe, out, NULL), 0);
	c->ci++;
	__atomic_store_n(&sim_cq_dbrec(c->cq)[0], __builtin_bswap32(c->ci & 0xffffff),
	                 __ATOMIC_RELEASE);
	return 1;
}

struct prism_cqe hx_expect(struct hx_cq *c)
{
	struct prism_cqe e;

	memset(&e, 0, sizeof(e));
	assert_int_equal(hx_poll(c, &e), 1);
	return e;
}

uint32_t hx_key(struct sim_dev *dev, void *addr, size_t len, unsigned access)
{
	struct sim_mr *mr;

	assert_int_equal(sim_mr_reg(dev, addr, len, access, &mr), 0);
	return sim_mr_lkey(mr);
}

static void base(struct prism_wqe *w, uint8_t opcode, bool signaled)
{
	memset(w, 0, sizeof(*w));
	w->ctrl.opcode = opcode;
	w->ctrl.fm_ce_se =
	    prism_fm_ce_se(PRISM_FENCE_NONE, signaled ? PRISM_CE_CQ_UPDATE : PRISM_CE_NONE, false);
}

void hx_nop(struct prism_wqe *w, bool signaled)
{
	base(w, PRISM_OP_NOP, signaled);
}

void hx_rw(struct prism_wqe *w, uint8_t opcode, uint64_t raddr, uint32_t rkey, uint64_t laddr,
           uint32_t lkey, uint32_t len, bool signaled)
{
	base(w, opcode, signaled);
	w->has_raddr = true;
	w->raddr.raddr = raddr;
	w->raddr.rkey = rkey;
	w->num_sge = 1;
	w->sge[0] = (struct prism_sge){.byte_count = len, .lkey = lkey, .addr = laddr};
}

void hx_send(struct prism_wqe *w, uint8_t opcode, uint64_t laddr, uint32_t lkey, uint32_t len,
             bool signaled)
{
	base(w, opcode, signaled);
	w->num_sge = 1;
	w->sge[0] = (struct prism_sge){.byte_count = len, .lkey = lkey, .addr = laddr};
}

void hx_atomic(struct prism_wqe *w, uint8_t opcode, uint64_t raddr, uint32_t rkey, uint64_t swap,
               uint64_t compare, uint64_t laddr, uint32_t lkey, bool signaled)
{
	hx_rw(w, opcode, raddr, rkey, laddr, lkey, 8, signaled);
	w->has_atomic = true;
	w->atomic.size = 8;
	w->atomic.swap = swap;
	w->atomic.compare = compare;
}

void hx_wait(struct prism_wqe *w, uint32_t cqn, uint32_t index, bool signaled)
{
	base(w, PRISM_OP_CQE_WAIT, signaled);
	w->has_wait_en = true;
	w->wait_en.index = index;
	w->wait_en.obj_num = cqn;
}

void hx_enable(struct prism_wqe *w, uint8_t opcode, uint32_t qpn, uint32_t index, bool signaled)
{
	base(w, opcode, signaled);
	w->has_wait_en = true;
	w->wait_en.index = index;
	w->wait_en.obj_num = qpn;
}
