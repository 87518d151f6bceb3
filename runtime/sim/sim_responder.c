/* SPDX-License-Identifier: MIT */
/*
 * sim_responder.c - the responder half of an RC QP: serves request packets
 * (SEND/WRITE(+imm) into memory, a posted receive's scatter list, READ,
 * atomics), answers with ACK / NAK / READ response / atomic response, and
 * serves READs line by line in chaos mode.
 *
 * Owns: remote access checks (the QP's rights, then the key's PD, rights
 * and bounds: IB remote access error), receive
 * consumption (RNR NAK when none is usable), receive CQEs, PSN order with
 * go-back-N after an RNR NAK, and the responder's own error path: a NAK for
 * the requester and, as IBA 9.9.3 / the RC responder error classes say, the
 * responder QP moves to ERR (with an error CQE only when a receive WQE was
 * consumed).
 *
 * Must not: touch memory outside a registered region (every access goes
 * through sim_mr_check_* and sim_mem_write_rx).
 */
#include <stdlib.h>

#include "sim/sim_internal.h"
#include "wqe/wqe_rwqe_body.h"

/* The response to @req (@p: its packet, or NULL for one without payload).
 * Inline: a served request's answer is the responder's every call. */
static inline __attribute__((always_inline)) void respond(struct sim_qp *qp,
                                                          const struct sim_pkt *req,
                                                          enum sim_pkt_kind kind, uint8_t synd,
                                                          struct sim_pkt *p)
{
	struct sim_dev *dev = qp->dev;

	if (!p)
		p = sim_reply_alloc(qp, req, 0);
	if (!p)
		return; /* out of memory: the requester's WQE stays outstanding */
	if (p == &dev->fold.box.pkt && !dev->obs.event) {
		/* Folded (sim_reply_alloc), no observer: nothing reads a field
		 * of its header that is not written here: the dispatch reads the
		 * source and the destination QP, the requester the kind, PSN,
		 * time and payload, and in a NAK the syndrome and RNR timer.
		 * It is due at its request's time, and sending it is its count
		 * and this QP's send time (sim_wire_sent: folded only when the
		 * QP sent nothing later). */
		p->kind = kind;
		p->src_node = dev->o.node;
		p->src_qpn = qp->qpn;
		p->dst_qpn = req->src_qpn;
		p->psn = req->psn;
		if (kind == SIM_PKT_NAK) {
			p->syndrome = synd;
			p->rnr_timer = qp->min_rnr_timer;
		}
		p->t = req->t;
		qp->last_tx_t = req->t;
		dev->st.pkts++;
		return;
	}
	if (p == &dev->fold.box.pkt) /* folded, observed: whole, as a fresh packet */
		memset(p, 0, SIM_PKT_HDR_BYTES);
	p->kind = kind;
	p->src_node = dev->o.node;
	p->src_qpn = qp->qpn;
	p->dst_qpn = req->src_qpn;
	p->psn = req->psn;
	p->syndrome = synd;
	p->rnr_timer = qp->min_rnr_timer;
	p->dst_node = req->src_node;
	p->msn = qp->msn;
	p->wqe_counter = req->wqe_counter;
	p->opcode = req->opcode;
	p->t = req->t; /* sent at once */
	sim_wire_xmit(qp, p);
}

/* A NAK (out of line: errors and RNR). */
static __attribute__((noinline)) void respond_nak(struct sim_qp *qp, const struct sim_pkt *req,
                                                  uint8_t synd)
{
	respond(qp, req, SIM_PKT_NAK, synd, NULL);
}

/* The receive CQE of receive WQE rq.head, for @req.  Out of line, its
 * arguments as they are (noipa: a copy taking the fields it reads would
 * pass some of them on the stack). */
static __attribute__((noipa)) void resp_cqe(struct sim_qp *qp, uint8_t op, uint8_t synd,
                                            const struct sim_pkt *req, uint32_t bytes)
{
	struct prism_cqe c = {
	    .opcode = op,
	    .syndrome = synd,
	    .wqe_counter = (uint16_t)qp->rq.head,
	    .byte_count = bytes,
	    .qpn = qp->qpn,
	    .imm = req->imm,
	};

	sim_cq_push(qp->rcq, &c, req->t);
}

/* Responder-side failure: NAK the requester, move this QP to ERR. */
static void resp_fail(struct sim_qp *qp, const struct sim_pkt *req, uint8_t nak_synd)
{
	respond_nak(qp, req, nak_synd);
	sim_log(qp->dev, SIM_LOG_WARN, "qp %u: request psn %u from qp %u: %s", qp->qpn, req->psn,
	        req->src_qpn, prism_cqe_syndrome_name(nak_synd));
	sim_qp_fail(qp, req->t);
}

/* Is a receive WQE usable (else RNR)?  Reads the host's doorbell record. */
static inline bool rq_ready(struct sim_qp *qp)
{
	return qp->rq.n && (int32_t)(sim_qp_rq_limit(qp) - qp->rq.head) > 0;
}

/*
 * Consumes the next usable receive WQE: scatters @data (may be NULL for a
 * WRITE_IMM) and writes the receive CQE.  Returns 0, -EAGAIN when no
 * receive is usable (RNR; not asked when @ready), or a syndrome > 0 for the
 * responder's CQE.  Inline into serve_send and serve_write (whose @data and
 * @cqe_op fold), as they are into the dispatch: one call per request packet.
 */
static inline __attribute__((always_inline)) int consume_recv(struct sim_qp *qp,
                                                              const struct sim_pkt *p,
                                                              const uint8_t *data, uint32_t len,
                                                              uint8_t cqe_op, bool ready)
{
	struct sim_rq *rq = &qp->rq;
	struct prism_sge sge[PRISM_WQE_MAX_SGE];
	uint32_t off = 0;
	unsigned bad;
	int n;

	if (!ready && !rq_ready(qp))
		return -EAGAIN;
	/* rq->max_sge is 1..PRISM_WQE_MAX_SGE (sim_qp_create) */
	n = wqe_rwqe_decode_body(rq->buf + (size_t)(rq->head & (rq->n - 1)) * rq->stride,
	                         rq->max_sge, sge, PRISM_WQE_MAX_SGE, &bad);
	if (n < 0)
		return PRISM_SYND_LOCAL_QP_OP_ERR;
	if (data) {
		for (int i = 0; i < n && off < len; i++) {
			uint32_t k = sge[i].byte_count < len - off ? sge[i].byte_count : len - off;
			uint8_t *dst;

			if (sim_mr_check_local(qp, SIM_MR_RECV_DST, sge[i].lkey, sge[i].addr, k,
			                       &dst))
				return PRISM_SYND_LOCAL_PROT_ERR;
			sim_mem_write_rx(qp, dst, data + off, k, p, SIM_WRITER_RQ);
			off += k;
		}
		if (off < len)
			return PRISM_SYND_LOCAL_LENGTH_ERR;
	}
	resp_cqe(qp, cqe_op, 0, p, len);
	rq->head++;
	return 0;
}

/* A receive-side failure consumes the receive WQE with an error CQE. */
static void recv_fail(struct sim_qp *qp, const struct sim_pkt *p, int synd)
{
	resp_cqe(qp, PRISM_CQE_RESP_ERR, (uint8_t)synd, p, 0);
	qp->rq.head++;
	resp_fail(qp, p,
	          synd == PRISM_SYND_LOCAL_LENGTH_ERR ? PRISM_SYND_REMOTE_INVAL_REQ_ERR
	                                              : PRISM_SYND_REMOTE_OP_ERR);
}

static bool rnr(struct sim_qp *qp, const struct sim_pkt *p)
{
	respond_nak(qp, p, PRISM_SYND_RNR_RETRY_EXC_ERR);
	return false;
}

static inline __attribute__((always_inline)) bool serve_send(struct sim_qp *qp,
                                                             const struct sim_pkt *p)
{
	int rc = consume_recv(
	    qp, p, p->payload, p->payload_len,
	    p->kind == SIM_PKT_SEND_IMM ? PRISM_CQE_RESP_SEND_IMM : PRISM_CQE_RESP_SEND, false);

	if (rc == -EAGAIN)
		return rnr(qp, p);
	if (rc > 0) {
		recv_fail(qp, p, rc);
		return false;
	}
	respond(qp, p, SIM_PKT_ACK, 0, NULL);
	return true;
}

static inline __attribute__((always_inline)) bool serve_write(struct sim_qp *qp,
                                                              const struct sim_pkt *p)
{
	uint8_t *dst;
	int rc;

	if (sim_mr_check_remote(qp, SIM_MR_SERVE_WRITE, p->rkey, p->raddr, p->payload_len, &dst)) {
		resp_fail(qp, p, PRISM_SYND_REMOTE_ACCESS_ERR);
		return false;
	}
	/* WRITE_IMM needs a receive: check before any byte lands (RNR) */
	if (p->kind == SIM_PKT_WRITE_IMM && !rq_ready(qp))
		return rnr(qp, p);
	sim_mem_write_rx(qp, dst, p->payload, p->payload_len, p, SIM_WRITER_REMOTE);
	if (p->kind == SIM_PKT_WRITE_IMM) {
		/* The receive stays usable: its limit only grows (the doorbell
		 * record is extended forward, RECV_EN raises rq->en), and reading
		 * the record again tells something new only when this write
		 * changed it. */
		uintptr_t db = (uintptr_t)qp->dbrec, lo = (uintptr_t)dst;
		bool ready = lo >= db + 4 || lo + p->payload_len <= db;

		rc = consume_recv(qp, p, NULL, p->payload_len, PRISM_CQE_RESP_WR_IMM, ready);
		if (rc > 0) {
			recv_fail(qp, p, rc);
			return false;
		}
	}
	respond(qp, p, SIM_PKT_ACK, 0, NULL);
	return true;
}

static bool serve_atomic(struct sim_qp *qp, const struct sim_pkt *p)
{
	unsigned size = p->atomic_size;
	uint8_t result[32];
	struct sim_pkt *r;
	uint8_t *dst;

	if ((size != 4 && size != 8 && size != 16 && size != 32) ||
	    ((p->opcode == PRISM_OP_ATOMIC_CS || p->opcode == PRISM_OP_ATOMIC_FA) && size != 8) ||
	    (p->raddr & (size - 1))) {
		resp_fail(qp, p, PRISM_SYND_REMOTE_INVAL_REQ_ERR); /* misaligned / bad size */
		return false;
	}
	if (sim_mr_check_remote(qp, SIM_MR_SERVE_ATOMIC, p->rkey, p->raddr, size, &dst)) {
		resp_fail(qp, p, PRISM_SYND_REMOTE_ACCESS_ERR);
		return false;
	}
	r = sim_reply_alloc(qp, p, size);
	if (!r)
		return false;
	sim_atomic_apply(p->opcode, size, dst, p->swap, p->compare, p->swap_mask, p->compare_mask,
	                 r->payload, result);
	sim_mem_write_rx(qp, dst, result, size, p, SIM_WRITER_REMOTE);
	respond(qp, p, SIM_PKT_ATOMIC_RESP, 0, r);
	return true;
}

/* ---- READ: whole, or line by line (chaos) ------------------------------ */

static void job_line(struct sim_dev *dev, struct sim_readjob *j, uint32_t line)
{
	uintptr_t base = (uintptr_t)j->src & ~(uintptr_t)(SIM_CACHE_LINE - 1);
	uintptr_t lo = base + (uintptr_t)line * SIM_CACHE_LINE, hi = lo + SIM_CACHE_LINE;
	uintptr_t s = (uintptr_t)j->src, e = s + j->resp->payload_len;

	if (lo < s)
		lo = s;
	if (hi > e)
		hi = e;
	sim_mem_read(j->resp->payload + (lo - s), (const uint8_t *)lo, hi - lo);
	if (dev->obs.event) {
		struct sim_event ev = {
		    .kind = SIM_EV_READ_LINE,
		    .t = j->t,
		    .t_end = j->t,
		    .qpn = j->qpn,
		    .offset = (uint32_t)(lo - s),
		    .len = (uint32_t)(hi - lo),
		    .addr = (const void *)lo,
		};
		sim_emit(dev, &ev);
	}
}

static void job_free(struct sim_readjob *j)
{
	free(j->order);
	free(j);
}

/* One line of a chaos READ; true when the job finished (and was freed). */
bool sim_readjob_step(struct sim_dev *dev, struct sim_readjob *j)
{
	struct sim_qp *qp = sim_qp_by_num(dev, j->qpn);

	if (!qp || qp->state == SIM_QPS_ERR || qp->state == SIM_QPS_RESET) {
		sim_pkt_free(dev, j->resp);
		j->resp = NULL;
		return true;
	}
	job_line(dev, j, j->order[j->done++]);
	j->t += j->step + (sim_rand(dev) % (j->step + 1));
	if (j->done < j->nlines)
		return false;
	j->resp->t = j->t;
	sim_wire_xmit(qp, j->resp);
	j->resp = NULL;
	return true;
}

void sim_readjobs_free(struct sim_dev *dev)
{
	while (dev->jobs) {
		struct sim_readjob *j = dev->jobs;

		dev->jobs = j->next;
		sim_pkt_free(dev, j->resp);
		job_free(j);
	}
}

void sim_readjob_free(struct sim_dev *dev, struct sim_readjob *j)
{
	sim_pkt_free(dev, j->resp);
	job_free(j);
}

static bool serve_read(struct sim_qp *qp, const struct sim_pkt *p)
{
	struct sim_dev *dev = qp->dev;
	struct sim_readjob *j;
	struct sim_pkt *r;
	uint8_t *src;
	uint32_t nlines;

	if (p->len > SIM_MAX_MSG ||
	    sim_mr_check_remote(qp, SIM_MR_SERVE_READ, p->rkey, p->raddr, p->len, &src)) {
		resp_fail(qp, p, PRISM_SYND_REMOTE_ACCESS_ERR);
		return false;
	}
	/* chaos mode only: the lines the READ spans */
	nlines = !dev->o.chaos || !p->len
	             ? 0
	             : (uint32_t)((((uintptr_t)src + p->len - 1) / SIM_CACHE_LINE) -
	                          ((uintptr_t)src / SIM_CACHE_LINE) + 1);
	if (nlines <= 1) {
		r = sim_reply_alloc(qp, p, p->len); /* sent at once */
		if (!r)
			return false;
		if (p->len)
			sim_mem_read(r->payload, src, p->len);
		respond(qp, p, SIM_PKT_READ_RESP, 0, r);
		return true;
	}
	/* chaos: lines in a seeded random order, each its own scheduling step
	 * (rdma-sync-tods25: one READ has no address order) */
	r = sim_pkt_alloc(dev, p->len);
	if (!r)
		return false;
	r->t = p->t;
	j = calloc(1, sizeof(*j));
	if (j)
		j->order = malloc(nlines * sizeof(*j->order));
	if (!j || !j->order) {
		free(j);
		sim_pkt_free(dev, r);
		return false;
	}
	for (uint32_t i = 0; i < nlines; i++)
		j->order[i] = i;
	for (uint32_t i = nlines - 1; i > 0; i--) {
		uint32_t k = (uint32_t)(sim_rand(dev) % (i + 1)), tmp = j->order[i];

		j->order[i] = j->order[k];
		j->order[k] = tmp;
	}
	/* fill in the response header now; the payload fills line by line */
	r->kind = SIM_PKT_READ_RESP;
	r->src_node = dev->o.node;
	r->src_qpn = qp->qpn;
	r->dst_node = p->src_node;
	r->dst_qpn = p->src_qpn;
	r->psn = p->psn;
	r->msn = qp->msn;
	r->wqe_counter = p->wqe_counter;
	r->opcode = p->opcode;
	j->resp = r;
	j->src = src;
	j->nlines = nlines;
	j->t = p->t;
	j->step = SIM_US(0.02);
	j->qpn = qp->qpn;
	j->next = dev->jobs;
	dev->jobs = j;
	return true;
}

void sim_responder_rx(struct sim_qp *qp, struct sim_pkt *p)
{
	bool ok;

	if (qp->state != SIM_QPS_RTR && qp->state != SIM_QPS_RTS)
		return; /* RESET/INIT/ERR: inbound requests are dropped */
	if (p->psn != qp->exp_psn)
		return; /* go-back-N after an RNR NAK: wait for the expected PSN */
	switch (p->kind) {
	case SIM_PKT_SEND:
	case SIM_PKT_SEND_IMM:
		ok = serve_send(qp, p);
		break;
	case SIM_PKT_WRITE:
	case SIM_PKT_WRITE_IMM:
		ok = serve_write(qp, p);
		break;
	case SIM_PKT_READ_REQ:
		ok = serve_read(qp, p);
		break;
	case SIM_PKT_ATOMIC_REQ:
		ok = serve_atomic(qp, p);
		break;
	default:
		return;
	}
	if (ok) {
		qp->exp_psn = (qp->exp_psn + 1) & 0xffffffu;
		qp->msn = (qp->msn + 1) & 0xffffffu;
	}
}
