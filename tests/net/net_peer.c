/* SPDX-License-Identifier: MIT */
/*
 * tests/net/net_peer.c - host driver for one end of a cross-process RC
 * connection (see net_peer.h).
 *
 * Owns: device + transport bring-up, QP bring-up from OOB parameters,
 * posting through the codec, CQ polling.  Must not: use cmocka, print, or
 * touch engine internals.
 */
#include "tests/net/net_peer.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NP_NCQE   1024u
#define NP_SQ_BBS 1024u
#define NP_RQ     256u

int np_dev_open(struct np_dev *d, uint32_t node)
{
	return np_dev_open_opts(d, node, NULL);
}

int np_dev_open_opts(struct np_dev *d, uint32_t node, const struct net_transport_opts *opts)
{
	struct sim_dev_opts o = {.sz = sizeof(o), .seed = node, .fw = SIM_FW_RELAXED, .node = node};
	int rc;

	memset(d, 0, sizeof(*d));
	rc = sim_dev_open(&o, &d->dev);
	if (rc)
		return rc;
	rc = net_transport_create(d->dev, opts, &d->t, NULL);
	if (!rc)
		rc = sim_dev_start(d->dev);
	if (rc)
		np_dev_close(d);
	return rc;
}

int np_dev_open_backend(struct np_dev *d, const struct core_backend_ops *ops, const char *name)
{
	struct core_dev_attr a = {.sz = sizeof(a), .name = name, .relaxed_fw = true};

	memset(d, 0, sizeof(*d));
	d->ops = ops;
	return ops->open(&a, &d->be);
}

void np_dev_close(struct np_dev *d)
{
	if (d->be)
		d->ops->close(d->be);
	if (d->dev)
		sim_dev_stop(d->dev);
	net_transport_destroy(d->t);
	if (d->dev)
		sim_dev_close(d->dev);
	memset(d, 0, sizeof(*d));
}

/* np_qp_open on a backend device: MR, two CQs and an RC QP through the
 * operations table (default PD; every remote right). */
static int be_qp_open(struct np_qp *q)
{
	const struct core_backend_ops *ops = q->d->ops;
	struct core_cq_attr ca = {.ncqe = NP_NCQE};
	struct core_mr_info mi;
	struct core_cq_info si, ri;
	struct core_qp_info qi;
	int rc;

	rc = ops->reg_mr(q->d->be, NULL, q->mem, q->mem_len,
	                 CORE_ACCESS_LOCAL_WRITE | CORE_ACCESS_REMOTE_WRITE |
	                     CORE_ACCESS_REMOTE_READ | CORE_ACCESS_REMOTE_ATOMIC,
	                 &q->bmr, &mi);
	if (!rc)
		rc = ops->create_cq(q->d->be, &ca, &q->scq.bcq, &si);
	if (!rc)
		rc = ops->create_cq(q->d->be, &ca, &q->rcq.bcq, &ri);
	if (!rc) {
		struct core_qp_attr qa = {.send_cq = q->scq.bcq,
		                          .recv_cq = q->rcq.bcq,
		                          .sq_bbs = NP_SQ_BBS,
		                          .rq_wqes = NP_RQ,
		                          .rq_max_sge = 1,
		                          .access = CORE_ACCESS_REMOTE_READ |
		                                    CORE_ACCESS_REMOTE_WRITE |
		                                    CORE_ACCESS_REMOTE_ATOMIC};

		rc = ops->create_qp(q->d->be, &qa, &q->bqp, &qi);
	}
	if (rc) {
		np_qp_close(q);
		return rc;
	}
	q->lkey = mi.lkey;
	q->rkey = mi.rkey;
	q->qpn = qi.qpn;
	q->psn = (q->qpn * 2654435761u) & NET_PSN_MASK;
	q->sq = (uint8_t *)qi.buf + qi.sq_offset;
	q->sq_bbs = NP_SQ_BBS;
	q->rq_n = NP_RQ;
	q->rq = qi.buf;
	q->rq_stride = qi.rq_stride;
	q->dbrec = qi.dbrec;
	q->scq = (struct np_cq){.bcq = q->scq.bcq, .buf = si.buf, .dbrec = si.dbrec, .n = si.ncqe};
	q->rcq = (struct np_cq){.bcq = q->rcq.bcq, .buf = ri.buf, .dbrec = ri.dbrec, .n = ri.ncqe};
	q->rnr_retry = 7;
	return 0;
}

int np_qp_open(struct np_qp *q, struct np_dev *d, size_t mem_len)
{
	struct sim_cq_attr ca = {.ncqe = NP_NCQE};
	struct sim_qp_attr qa = {.access = SIM_ACCESS_REMOTE_ALL,
	                         .sq_bbs = NP_SQ_BBS,
	                         .rq_wqes = NP_RQ,
	                         .rq_max_sge = 1};
	int rc;

	memset(q, 0, sizeof(*q));
	q->d = d;
	q->fd = -1;
	q->mem_len = mem_len;
	q->mem = aligned_alloc(4096, (mem_len + 4095) & ~(size_t)4095);
	if (!q->mem)
		return -ENOMEM;
	memset(q->mem, 0, mem_len);
	if (d->be)
		return be_qp_open(q);
	rc = sim_mr_reg(d->dev, q->mem, mem_len,
	                SIM_ACCESS_LOCAL_WRITE | SIM_ACCESS_REMOTE_WRITE | SIM_ACCESS_REMOTE_READ |
	                    SIM_ACCESS_REMOTE_ATOMIC,
	                &q->mr);
	if (!rc)
		rc = sim_cq_create(d->dev, &ca, &q->scq.cq);
	if (!rc)
		rc = sim_cq_create(d->dev, &ca, &q->rcq.cq);
	if (rc) {
		np_qp_close(q);
		return rc;
	}
	qa.send_cq = q->scq.cq;
	qa.recv_cq = q->rcq.cq;
	rc = sim_qp_create(d->dev, &qa, &q->qp);
	if (rc) {
		np_qp_close(q);
		return rc;
	}
	q->lkey = sim_mr_lkey(q->mr);
	q->rkey = sim_mr_rkey(q->mr);
	q->qpn = sim_qp_num(q->qp);
	q->psn = (q->qpn * 2654435761u) & NET_PSN_MASK;
	q->sq = sim_qp_sq(q->qp);
	q->sq_bbs = NP_SQ_BBS;
	q->rq_n = NP_RQ;
	q->rq = sim_qp_buf(q->qp);
	q->rq_stride = sim_qp_rq_stride(q->qp);
	q->dbrec = sim_qp_dbrec(q->qp);
	q->scq.buf = sim_cq_buf(q->scq.cq);
	q->scq.dbrec = sim_cq_dbrec(q->scq.cq);
	q->scq.n = sim_cq_ncqe(q->scq.cq);
	q->rcq.buf = sim_cq_buf(q->rcq.cq);
	q->rcq.dbrec = sim_cq_dbrec(q->rcq.cq);
	q->rcq.n = sim_cq_ncqe(q->rcq.cq);
	q->rnr_retry = 7;
	return 0;
}

void np_qp_close(struct np_qp *q)
{
	if (q->d && q->d->be) {
		const struct core_backend_ops *ops = q->d->ops;

		if (q->bqp)
			ops->destroy_qp(q->bqp);
		if (q->scq.bcq)
			ops->destroy_cq(q->scq.bcq);
		if (q->rcq.bcq)
			ops->destroy_cq(q->rcq.bcq);
		if (q->bmr)
			ops->dereg_mr(q->bmr);
		if (q->fd >= 0)
			close(q->fd); /* the peer sees this end go */
		free(q->mem);
		memset(q, 0, sizeof(*q));
		return;
	}
	net_link_close(q->link);
	if (q->qp)
		sim_qp_destroy(q->qp);
	if (q->scq.cq)
		sim_cq_destroy(q->scq.cq);
	if (q->rcq.cq)
		sim_cq_destroy(q->rcq.cq);
	if (q->mr)
		sim_mr_dereg(q->mr);
	free(q->mem);
	memset(q, 0, sizeof(*q));
}

void np_qp_params(const struct np_qp *q, struct net_oob_params *out)
{
	memset(out, 0, sizeof(*out));
	if (q->d->be) { /* the port's LID, GID and MTU */
		struct core_qp_peer self = {0};

		q->d->ops->port_addr(q->d->be, &self);
		out->lid = self.lid;
		out->mtu = self.mtu;
		memcpy(out->gid, self.gid, sizeof(out->gid));
	} else {
		out->node = sim_dev_node(q->d->dev);
	}
	out->qpn = q->qpn;
	out->psn = q->psn;
	out->n_regions = 1;
	out->regions[0].addr = (uintptr_t)q->mem;
	out->regions[0].rkey = q->rkey;
	out->regions[0].len = (uint32_t)q->mem_len;
}

static void on_down(void *ctx, struct net_link *link, int err, const char *why)
{
	struct np_qp *q = ctx;

	(void)link;
	strncpy(q->down_why, why, sizeof(q->down_why) - 1);
	__atomic_store_n(&q->down_err, err, __ATOMIC_RELEASE);
}

/* Connect @q to @peer; its packets go over @fd, or @ring (sim only). */
static int connect_qp(struct np_qp *q, int fd, struct net_ring *ring,
                      const struct net_oob_params *peer)
{
	struct net_link_cbs cbs = {.down = on_down, .ctx = q};
	struct sim_qp_mod m = {.state = SIM_QPS_INIT};
	int rc;

	q->peer = *peer;
	q->peer.blob = NULL;
	q->peer.blob_len = 0;
	if (q->bqp) { /* its own fabric; the socket stays open, as a client's does */
		const struct core_backend_ops *ops = q->d->ops;
		struct core_qp_peer p = {.qpn = peer->qpn,
		                         .lid = peer->lid,
		                         .psn = peer->psn,
		                         .min_rnr_timer = 1,
		                         .rnr_retry = q->rnr_retry,
		                         .retry_cnt = 7,
		                         .mtu = peer->mtu};

		memcpy(p.gid, peer->gid, sizeof(p.gid));
		rc = ops->modify_qp(q->bqp, CORE_QPS_INIT, NULL);
		if (!rc)
			rc = ops->modify_qp(q->bqp, CORE_QPS_RTR, &p);
		p.psn = q->psn;
		if (!rc)
			rc = ops->modify_qp(q->bqp, CORE_QPS_RTS, &p);
		if (rc)
			close(fd);
		else
			q->fd = fd;
		return rc;
	}
	rc = sim_qp_modify(q->qp, &m);
	m.state = SIM_QPS_RTR;
	m.peer_node = net_peer_node(q->d->dev, peer);
	m.peer_qpn = peer->qpn;
	m.rq_psn = peer->psn;
	m.min_rnr_timer = 1;
	if (!rc)
		rc = sim_qp_modify(q->qp, &m);
	m.state = SIM_QPS_RTS;
	m.sq_psn = q->psn;
	m.rnr_retry = q->rnr_retry;
	m.retry_cnt = 7;
	if (!rc)
		rc = sim_qp_modify(q->qp, &m);
	if (!rc && q->sndbuf && !ring)
		rc = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &q->sndbuf, sizeof(q->sndbuf)) ? -errno
		                                                                          : 0;
	if (!rc && ring)
		return net_transport_attach_ring(q->d->t, ring, q->qp, peer, &cbs, &q->link, NULL);
	if (!rc)
		rc = net_transport_attach(q->d->t, fd, q->qp, peer, &cbs, &q->link, NULL);
	if (rc && ring)
		net_ring_close(ring);
	else if (rc)
		close(fd);
	return rc;
}

int np_qp_connect(struct np_qp *q, int fd, const struct net_oob_params *peer)
{
	return connect_qp(q, fd, NULL, peer);
}

int np_qp_connect_ring(struct np_qp *q, struct net_ring *ring, const struct net_oob_params *peer)
{
	if (q->bqp) {
		net_ring_close(ring);
		return -EOPNOTSUPP;
	}
	return connect_qp(q, net_ring_sock(ring), ring, peer);
}

int np_qp_dial(struct np_qp *q, const char *host, int port)
{
	struct net_oob_params mine, peer;
	int fd, rc;

	np_qp_params(q, &mine);
	rc = net_connect(host, port, &mine, &peer, NET_SETUP_TIMEOUT_MS, &fd, NULL);
	if (rc)
		return rc;
	rc = np_qp_connect(q, fd, &peer);
	net_oob_params_release(&peer);
	return rc;
}

int np_qp_answer(struct np_qp *q, struct net_listener *l)
{
	struct net_oob_params mine, peer;
	struct net_pending *p;
	int fd, rc;

	rc = net_listener_accept(l, NET_SETUP_TIMEOUT_MS, &p, NULL);
	if (rc)
		return rc;
	peer = *net_pending_peer(p);
	peer.blob = NULL;
	peer.blob_len = 0;
	np_qp_params(q, &mine);
	rc = net_pending_accept(p, &mine, &fd, NULL);
	if (rc)
		return rc;
	return np_qp_connect(q, fd, &peer);
}

int np_post(struct np_qp *q, struct prism_wqe *w)
{
	uint8_t buf[PRISM_WQE_MAX_BB * 64];
	uint32_t c = q->sq_pi, nbb, i;
	int len;

	w->ctrl.wqe_index = (uint16_t)c;
	w->ctrl.qpn = q->qpn;
	if (!prism_ctrl_ce(&w->ctrl))
		w->ctrl.fm_ce_se |= (uint8_t)(PRISM_CE_CQ_UPDATE << PRISM_CTRL_CE_SHIFT);
	memset(buf, 0, sizeof(buf));
	len = prism_wqe_encode(w, buf, sizeof(buf), NULL);
	if (len < 0)
		return -EINVAL;
	nbb = prism_wqe_bbs((unsigned)len / 16);
	for (i = 0; i < nbb; i++)
		memcpy(q->sq + (size_t)((c + i) & (q->sq_bbs - 1)) * 64, buf + i * 64, 64);
	q->sq_pi += nbb;
	__atomic_store_n(&q->dbrec[1], __builtin_bswap32(q->sq_pi & 0xffff), __ATOMIC_RELEASE);
	return q->bqp ? q->d->ops->ring_sq(q->bqp) : sim_qp_ring_sq_doorbell(q->qp);
}

static void wqe_base(struct prism_wqe *w, uint8_t opcode, uint32_t imm)
{
	memset(w, 0, sizeof(*w));
	w->ctrl.opcode = opcode;
	w->ctrl.imm = imm;
	w->ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_NONE, PRISM_CE_CQ_UPDATE, false);
}

int np_post_send(struct np_qp *q, uint8_t opcode, size_t loff, uint32_t len, uint32_t imm)
{
	struct prism_wqe w;

	wqe_base(&w, opcode, imm);
	w.num_sge = 1;
	w.sge[0] = (struct prism_sge){
	    .byte_count = len, .lkey = q->lkey, .addr = (uintptr_t)q->mem + loff};
	return np_post(q, &w);
}

int np_post_rdma(struct np_qp *q, uint8_t opcode, uint64_t raddr, uint32_t rkey, size_t loff,
                 uint32_t len, uint32_t imm)
{
	struct prism_wqe w;

	wqe_base(&w, opcode, imm);
	w.has_raddr = true;
	w.raddr.raddr = raddr;
	w.raddr.rkey = rkey;
	w.num_sge = 1;
	w.sge[0] = (struct prism_sge){
	    .byte_count = len, .lkey = q->lkey, .addr = (uintptr_t)q->mem + loff};
	return np_post(q, &w);
}

int np_post_atomic(struct np_qp *q, uint8_t opcode, uint64_t raddr, uint32_t rkey,
                   uint64_t swap_add, uint64_t compare, size_t loff)
{
	struct prism_wqe w;

	wqe_base(&w, opcode, 0);
	w.has_raddr = true;
	w.raddr.raddr = raddr;
	w.raddr.rkey = rkey;
	w.has_atomic = true;
	w.atomic.size = 8;
	w.atomic.swap = swap_add;
	w.atomic.compare = compare;
	w.num_sge = 1;
	w.sge[0] =
	    (struct prism_sge){.byte_count = 8, .lkey = q->lkey, .addr = (uintptr_t)q->mem + loff};
	return np_post(q, &w);
}

int np_post_recv(struct np_qp *q, size_t loff, uint32_t len)
{
	struct prism_sge sge = {
	    .byte_count = len, .lkey = q->lkey, .addr = (uintptr_t)q->mem + loff};
	uint32_t stride = q->rq_stride;
	uint8_t *slot = q->rq + (size_t)(q->rq_pi & (q->rq_n - 1)) * stride;

	if (prism_rwqe_encode(&sge, 1, slot, stride / 16, NULL) < 0)
		return -EINVAL;
	q->rq_pi++;
	__atomic_store_n(&q->dbrec[0], __builtin_bswap32(q->rq_pi & 0xffff), __ATOMIC_RELEASE);
	return q->bqp ? q->d->ops->ring_rq(q->bqp) : sim_qp_ring_rq_doorbell(q->qp);
}

int np_poll(struct np_cq *c, struct prism_cqe *out)
{
	uint32_t n = c->n;
	uint8_t *cqe = c->buf + (size_t)(c->ci & (n - 1)) * 64;
	uint8_t op_own = __atomic_load_n(&cqe[63], __ATOMIC_ACQUIRE);

	if ((op_own >> 4) == PRISM_CQE_INVALID || !prism_cqe_sw_owned(op_own, c->ci, n))
		return 0;
	if (prism_cqe_decode(cqe, out, NULL))
		return -EPROTO;
	c->ci++;
	__atomic_store_n(&c->dbrec[0], __builtin_bswap32(c->ci & 0xffffff), __ATOMIC_RELEASE);
	return 1;
}

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int np_wait(struct np_cq *c, struct prism_cqe *out, int timeout_ms)
{
	int64_t deadline = now_us() + (int64_t)timeout_ms * 1000;
	unsigned spins = 0;
	int rc;

	while ((rc = np_poll(c, out)) == 0) {
		if ((++spins & 1023) == 0 && now_us() > deadline)
			return -ETIMEDOUT;
		if ((spins & 63) == 0)
			sched_yield();
	}
	return rc < 0 ? rc : 0;
}
