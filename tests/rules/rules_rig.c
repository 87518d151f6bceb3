/* SPDX-License-Identifier: MIT */
/*
 * tests/rules/rules_rig.c - the host side of the rules (rules.h): CQs, QPs,
 * memory regions and protection domains made through the backend
 * operations table, WQEs encoded by the codec into the send ring, doorbell
 * record and doorbell, receive WQEs, CQEs polled by owner bit, and letting
 * the NIC run.
 *
 * Owns: the objects it creates (freed by rx_free, called by the suite's
 * teardown).  Must not: know which backend it drives beyond rx_backend.
 */
#include <stdlib.h>
#include <time.h>

#include "tests/rules/rules.h"

/* A real NIC runs by itself: how long "nothing happened" is watched, and
 * how long an expected CQE is waited for. */
#define RX_HW_SETTLE_MS 50
#define RX_HW_EXPECT_MS 2000

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

int rx_run(struct rx *x)
{
	if (x->be->run)
		return x->be->run(x);
	sleep_ms(RX_HW_SETTLE_MS);
	return 0;
}

struct sim_dev *rx_sim(struct rx *x)
{
	return x->be->sim ? x->be->sim(x) : NULL;
}

void rx_cq(struct rx *x, struct rx_cq *c, uint32_t ncqe, bool ignore_overrun)
{
	struct core_cq_attr a = {.ncqe = ncqe, .ignore_overrun = ignore_overrun};

	memset(c, 0, sizeof(*c));
	assert_true(x->n_cqs < RX_MAX_CQS);
	assert_int_equal(x->ops->create_cq(x->dev, &a, &c->cq, &c->info), 0);
	x->cqs[x->n_cqs++] = c->cq;
}

void rx_qp_prot(struct rx *x, struct rx_qp *q, struct rx_cq *scq, struct rx_cq *rcq,
                uint32_t sq_bbs, uint32_t rq, unsigned flags, struct core_be_pd *pd,
                unsigned access)
{
	struct core_qp_attr a = {.send_cq = scq->cq,
	                         .recv_cq = rcq->cq,
	                         .sq_bbs = sq_bbs,
	                         .rq_wqes = rq,
	                         .rq_max_sge = 16,
	                         .flags = flags,
	                         .pd = pd,
	                         .access = access};

	memset(q, 0, sizeof(*q));
	assert_true(x->n_qps < RX_MAX_QPS);
	assert_int_equal(x->ops->create_qp(x->dev, &a, &q->qp, &q->info), 0);
	x->qps[x->n_qps++] = q->qp;
	q->scq = scq;
	q->rcq = rcq;
	q->qpn = q->info.qpn;
	q->key = rx_key_pd(x, pd, q->info.buf, q->info.buf_len, RX_ALL);
}

void rx_qp(struct rx *x, struct rx_qp *q, struct rx_cq *scq, struct rx_cq *rcq, uint32_t sq_bbs,
           uint32_t rq, unsigned flags)
{
	rx_qp_prot(x, q, scq, rcq, sq_bbs, rq, flags, NULL, RX_REMOTE_ALL);
}

struct core_qp_peer rx_peer(struct rx *x, uint32_t peer_qpn, uint8_t rnr_retry)
{
	struct core_qp_peer p = {.node = x->node,
	                         .qpn = peer_qpn,
	                         .rnr_retry = rnr_retry,
	                         .min_rnr_timer = 1,
	                         .retry_cnt = 7};

	/* every QP of a rule is on one device: its own address is the peer's */
	if (x->ops->port_addr)
		assert_int_equal(x->ops->port_addr(x->dev, &p), 0);
	p.qpn = peer_qpn;
	return p;
}

void rx_connect(struct rx *x, struct rx_qp *q, uint32_t peer_qpn, uint8_t rnr_retry,
                uint8_t min_rnr_timer)
{
	struct core_qp_peer p = rx_peer(x, peer_qpn, rnr_retry);

	p.min_rnr_timer = min_rnr_timer;
	assert_int_equal(x->ops->modify_qp(q->qp, CORE_QPS_INIT, NULL), 0);
	assert_int_equal(x->ops->modify_qp(q->qp, CORE_QPS_RTR, &p), 0);
	assert_int_equal(x->ops->modify_qp(q->qp, CORE_QPS_RTS, &p), 0);
}

void rx_pair(struct rx *x, struct rx_qp *a, struct rx_qp *b)
{
	rx_connect(x, a, b->qpn, 7, 1);
	if (a != b)
		rx_connect(x, b, a->qpn, 7, 1);
}

uint32_t rx_key_pd(struct rx *x, struct core_be_pd *pd, void *addr, size_t len, unsigned access)
{
	struct core_mr_info info;

	assert_true(x->n_mrs < RX_MAX_MRS);
	assert_int_equal(x->ops->reg_mr(x->dev, pd, addr, len, access, &x->mrs[x->n_mrs], &info),
	                 0);
	x->n_mrs++;
	/* mlx5 memory keys serve as both (rdma-core mlx5_reg_mr); the sim's too */
	assert_int_equal(info.lkey, info.rkey);
	return info.lkey;
}

uint32_t rx_key(struct rx *x, void *addr, size_t len, unsigned access)
{
	return rx_key_pd(x, NULL, addr, len, access);
}

struct core_be_pd *rx_pd(struct rx *x)
{
	assert_true(x->n_pds < RX_MAX_PDS);
	assert_int_equal(x->ops->alloc_pd(x->dev, &x->pds[x->n_pds]), 0);
	return x->pds[x->n_pds++];
}

void *rx_buf(struct rx *x, size_t len)
{
	void *p = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);

	assert_non_null(p);
	assert_true(x->n_bufs < RX_MAX_MRS);
	memset(p, 0, len);
	x->bufs[x->n_bufs++] = p;
	return p;
}

uint8_t *rx_slot(struct rx_qp *q, uint32_t counter)
{
	return (uint8_t *)q->info.buf + q->info.sq_offset +
	       (size_t)(counter & (q->info.sq_bbs - 1)) * 64;
}

uint32_t rx_post_raw(struct rx_qp *q, const struct prism_wqe *w)
{
	uint8_t buf[PRISM_WQE_MAX_BB * 64];
	uint32_t c = q->pi;
	int len;

	memset(buf, 0, sizeof(buf));
	len = prism_wqe_encode(w, buf, sizeof(buf), NULL);
	assert_true(len > 0);
	unsigned nbb = prism_wqe_bbs((unsigned)len / 16);
	for (uint32_t i = 0; i < nbb; i++)
		memcpy(rx_slot(q, c + i), buf + i * 64, 64);
	q->pi += nbb;
	return c;
}

uint32_t rx_post(struct rx_qp *q, struct prism_wqe *w)
{
	w->ctrl.wqe_index = (uint16_t)q->pi;
	w->ctrl.qpn = q->qpn;
	return rx_post_raw(q, w);
}

void rx_ring(struct rx *x, struct rx_qp *q)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&q->info.dbrec[1], __builtin_bswap32(q->pi & 0xffff), __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	assert_int_equal(x->ops->ring_sq(q->qp), 0);
}

uint32_t rx_post_recv(struct rx *x, struct rx_qp *q, const struct prism_sge *sge, unsigned n)
{
	uint32_t stride = q->info.rq_stride, c = q->rq_pi;
	uint8_t *slot = (uint8_t *)q->info.buf + (size_t)(c & (q->info.rq_wqes - 1)) * stride;

	assert_true(prism_rwqe_encode(sge, n, slot, stride / 16, NULL) >= 0);
	q->rq_pi++;
	__atomic_store_n(&q->info.dbrec[0], __builtin_bswap32(q->rq_pi & 0xffff), __ATOMIC_RELEASE);
	assert_int_equal(x->ops->ring_rq(q->qp), 0);
	return c;
}

static const uint8_t *cqe_at(struct rx_cq *c, uint32_t counter)
{
	return (const uint8_t *)c->info.buf + (size_t)(counter & (c->info.ncqe - 1)) * 64;
}

static bool owned(struct rx_cq *c, uint32_t counter)
{
	uint8_t op_own = __atomic_load_n(&cqe_at(c, counter)[63], __ATOMIC_ACQUIRE);

	return (op_own >> 4) != PRISM_CQE_INVALID &&
	       prism_cqe_sw_owned(op_own, counter, c->info.ncqe);
}

int rx_poll(struct rx_cq *c, struct prism_cqe *out)
{
	if (!owned(c, c->ci))
		return 0;
	assert_int_equal(prism_cqe_decode(cqe_at(c, c->ci), out, NULL), 0);
	c->ci++;
	__atomic_store_n(&c->info.dbrec[0], __builtin_bswap32(c->ci & 0xffffff), __ATOMIC_RELEASE);
	return 1;
}

struct prism_cqe rx_expect(struct rx *x, struct rx_cq *c)
{
	struct prism_cqe e;
	unsigned waited = 0;

	memset(&e, 0, sizeof(e));
	while (!rx_poll(c, &e)) {
		if (x->be->run || waited >= RX_HW_EXPECT_MS)
			fail_msg("no CQE on CQ %u (consumer at %u)", c->info.cqn, c->ci);
		sleep_ms(1);
		waited++;
	}
	return e;
}

uint32_t rx_count(struct rx_cq *c)
{
	uint32_t n = c->ci;

	while (n - c->ci < c->info.ncqe && owned(c, n))
		n++;
	return n;
}

bool rx_in_err(struct rx *x, struct rx_qp *q)
{
	struct prism_wqe w;
	struct prism_cqe c;

	while (rx_poll(q->scq, &c)) /* what the body left unread */
		;
	hx_nop(&w, true);
	rx_post(q, &w);
	rx_ring(x, q);
	(void)rx_run(x);
	c = rx_expect(x, q->scq);
	if (c.opcode == PRISM_CQE_REQ)
		return false;
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_WR_FLUSH_ERR);
	return true;
}
