/* SPDX-License-Identifier: MIT */
/*
 * sim_requester.c - the requester half of an RC QP: the outstanding ring
 * (executed WQEs waiting for their ACK / READ response / atomic response),
 * responses landing in local memory, in-order completions, NAKs turned into
 * error CQEs, and RNR NAK retry with go-back-N retransmission.
 *
 * Owns: everything between "request sent" and "CQE written" on the send
 * side.  An ACK is cumulative (it acknowledges every SEND / WRITE up to
 * its PSN); READs and atomics complete only by their responses.
 * Completions are in WQE order (IB RC); an unsignaled WQE completes
 * silently (CE bits), an error always writes a CQE (sim_qp_fail).
 *
 * Must not: execute WQEs or serve requests (sim_responder.c).
 */
#include "sim/sim_internal.h"

/* IB spec Table 45 (RNR NAK timer field), microseconds * 100. */
static const uint32_t rnr_timer_10us[32] = {
    65536, 1,    2,    3,    4,    6,     8,     12,    16,    24,    32,
    48,    64,   96,   128,  192,  256,   384,   512,   768,   1024,  1536,
    2048,  3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152,
};

/* Drops @o, the head entry. */
static inline void outst_pop_head(struct sim_qp *qp, struct sim_outst *o)
{
	struct sim_sq *sq = &qp->sq;

	if (o->rnr_able)
		sq->rnr_outst--;
	sim_outst_drop_req(qp->dev, o);
	/* an empty ring starts over at entry 0: a queue whose WQEs complete
	 * in their own step (ordering verbs) reuses one entry, in cache */
	sq->os_head = --sq->os_cnt ? (sq->os_head + 1) & (sq->os_cap - 1) : 0;
}

void sim_outst_pop(struct sim_qp *qp)
{
	outst_pop_head(qp, &qp->sq.os[qp->sq.os_head]);
}

/* A packet made an outstanding entry done: a queue parked on a fence or a
 * full ring may run (any done entry can clear a fence, not only the
 * oldest).  Entries done by the queue's own step need no wake: the
 * scheduler re-evaluates a queue after each of its own steps. */
static inline void done_by_packet(struct sim_qp *qp)
{
	if (qp->sq.block == SIM_BLOCK_FENCE || qp->sq.block == SIM_BLOCK_OUTST)
		sim_sched_wake(qp);
}

/* The CQE of a signaled entry done without error. */
void sim_outst_retire_cqe(struct sim_qp *qp, const struct sim_outst *o, sim_time_t t)
{
	struct prism_cqe c = {
	    .opcode = PRISM_CQE_REQ,
	    .wqe_opcode = o->opcode,
	    .wqe_counter = (uint16_t)o->counter,
	    .byte_count = o->byte_count,
	    .qpn = qp->qpn,
	};

	/* An overrun puts the CQ, not the QP, in error (rdma-core
	 * ibv_create_cq_ex(3); the kernel's CQ error event names the CQN): the
	 * CQE is lost, the queue goes on (sim choice: what hardware does to the
	 * QP is not stated). */
	(void)sim_cq_push(qp->scq, &c, t);
}

/* sim_outst_complete from @o, the head entry of a ring that holds one,
 * inline in the response path (its every packet).  sq->block stays as it
 * is: sim_sq_ready() sets it afresh whenever it is asked, and only park()
 * reads FENCE / OUTST, right after. */
static inline __attribute__((always_inline)) void complete_from(struct sim_qp *qp,
                                                                struct sim_outst *o)
{
	struct sim_sq *sq = &qp->sq;

	for (;;) {
		if (!o->done)
			return;
		if (o->syndrome) {
			/* errors are reported by the failure path, in order */
			if (qp->state != SIM_QPS_ERR)
				sim_qp_fail(qp, o->done_at);
			return;
		}
		sim_outst_retire(qp, o);
		outst_pop_head(qp, o);
		if (!sq->os_cnt)
			return;
		o = &sq->os[sq->os_head];
	}
}

void sim_outst_complete(struct sim_qp *qp)
{
	if (qp->sq.os_cnt)
		complete_from(qp, &qp->sq.os[qp->sq.os_head]);
}

/*
 * The request is kept only where an RNR NAK can make it go again (go-back-N
 * resends from the NAKed PSN on): for a SEND / SEND_IMM / WRITE_IMM (its
 * executor sets @os->rnr_able, clear in a fresh entry: sim_exec_write knows
 * the kind it sends), and for anything sent while one of those is
 * outstanding.
 *
 * A request to another node is copied (the peer device or the transport
 * owns what was sent).  A loopback request is lent instead of copied: the
 * entry points at the packet while it waits in this device's own inbox
 * (req_lent; the packet's box names the entry), a resend clones it from
 * there, and its delivery hands it back to the entry instead of freeing
 * it (sim_wire_rx).  An entry that lets go first (completed, flushed,
 * reset, QP destroyed: sim_outst_drop_req) clears the box, and the delivery
 * frees the packet as any other.  Nothing changes a request once it is
 * sent (the responder only reads it; a resend sets the time on its own
 * clone), so the entry holds the bytes a copy would have held.
 */
int sim_send_request(struct sim_qp *qp, struct sim_outst *os, struct sim_pkt *p)
{
	struct sim_sq *sq = &qp->sq;

	if (os->rnr_able)
		sq->rnr_outst++;
	if (sq->rnr_outst) {
		if (p->dst_node == qp->dev->o.node) {
			os->req = p;
			os->req_lent = true;
			sim_pkt_box(p)->lender = os;
		} else {
			os->req = sim_pkt_clone(qp->dev, p);
			if (!os->req) {
				sim_pkt_free(qp->dev, p);
				return PRISM_SYND_LOCAL_QP_OP_ERR;
			}
		}
	}
	if (sim_wire_xmit(qp, p) < 0) {
		if (os->req_lent) { /* the wire freed it (its box is reset on reuse) */
			os->req = NULL;
			os->req_lent = false;
		}
		return PRISM_SYND_TRANSPORT_RETRY_EXC_ERR; /* link gone */
	}
	return 0;
}

/* The sent entry with PSN @psn (*@pos: its ring position), or NULL: none
 * (a stale or duplicate response, or a PSN never sent).  Sent entries hold
 * consecutive PSNs in ring order, so this is also the window check. */
static struct sim_outst *find_psn(const struct sim_qp *qp, uint32_t psn, uint32_t *pos)
{
	const struct sim_sq *sq = &qp->sq;
	struct sim_outst *o = &sq->os[sq->os_head];

	*pos = 0;
	if (sq->os_cnt && o->sent && o->psn == psn)
		return o; /* the oldest: responses come in order */
	for (uint32_t i = 1; i < sq->os_cnt; i++) {
		o = sim_outst_at(sq, i);
		if (o->sent && o->psn == psn) {
			*pos = i;
			return o;
		}
	}
	return NULL;
}

/* READ / atomic response data into the local scatter list, at @t (when
 * @o is done). */
static uint8_t land(struct sim_qp *qp, struct sim_outst *o, const struct sim_pkt *p, sim_time_t t)
{
	uint32_t off = 0;
	/* the list passed these checks when it was sent (sim_exec_read /
	 * sim_exec_atomic, for its whole byte counts): unless an MR went away
	 * since, they pass again */
	bool checked = o->mr_gen == qp->dev->mr_gen;

	for (unsigned i = 0; i < o->nsge && off < p->payload_len; i++) {
		uint32_t n = o->sge[i].byte_count;
		uint8_t *dst = (uint8_t *)(uintptr_t)o->sge[i].addr;

		if (n > p->payload_len - off)
			n = p->payload_len - off;
		if (!checked && sim_mr_check_local(qp, SIM_MR_READ_DST, o->sge[i].lkey,
		                                   o->sge[i].addr, n, &dst))
			return PRISM_SYND_LOCAL_PROT_ERR;
		sim_mem_write_result(qp, dst, p->payload + off, n, o, t);
		off += n;
	}
	return 0;
}

static void on_rnr(struct sim_qp *qp, struct sim_outst *o, const struct sim_pkt *p)
{
	struct sim_sq *sq = &qp->sq;
	sim_time_t wait = (sim_time_t)rnr_timer_10us[p->rnr_timer & 31] * 10 * 1000000ull;

	if (qp->rnr_retry != 7) {
		if (sq->rnr_left == 0) {
			o->done = true;
			o->syndrome = PRISM_SYND_RNR_RETRY_EXC_ERR;
			o->done_at = p->t;
			done_by_packet(qp);
			sim_outst_complete(qp);
			return;
		}
		sq->rnr_left--;
	}
	sq->block = SIM_BLOCK_RNR;
	sim_sched_wake(qp); /* a parked (idle) queue has a retransmission to run */
	sq->rnr_psn = p->psn;
	sq->rnr_at = p->t + wait;
	/* an infinite retry waits for outside progress instead of spinning */
	sq->rnr_parked = qp->rnr_retry == 7;
	if (sq->rnr_parked)
		__atomic_add_fetch(&qp->dev->rnr_parks, 1, __ATOMIC_RELAXED);
	sq->rnr_mark = __atomic_load_n(&qp->dev->outside_progress, __ATOMIC_RELAXED);
}

/* When @o is done, its response having arrived at @t: not before it was
 * ready. */
static inline sim_time_t done_time(const struct sim_outst *o, sim_time_t t)
{
	return t > o->ready_at ? t : o->ready_at;
}

/* @o is done at @done_at (done_time; @synd 0: success; else its error
 * syndrome). */
static inline void mark_done(struct sim_qp *qp, struct sim_outst *o, uint8_t synd,
                             sim_time_t done_at)
{
	o->done = true;
	o->syndrome = synd;
	o->done_at = done_at;
	sim_advance_now(qp->dev, done_at);
}

/* An ACK acknowledges @o (done at @t) if it is a sent SEND / WRITE not yet
 * done (on_ack). */
static inline bool ack_entry(struct sim_qp *qp, struct sim_outst *o, sim_time_t t)
{
	if (!o->sent || o->done || o->read_like)
		return false;
	mark_done(qp, o, 0, done_time(o, t));
	return true;
}

/*
 * An ACK is cumulative (IBA ch. 9.7.5, coalesced acknowledges; rule
 * ack-coalesced in docs/nic-model.md): the ACK with PSN n acknowledges every
 * SEND / WRITE still outstanding with PSN up to n (ring positions 0..@pos),
 * as if each had its own.  A READ or atomic is never acknowledged by an ACK,
 * only by its response: one before n with no response yet stays waiting for
 * it (the sim's wire loses nothing; a chaos-mode READ is answered after the
 * ACKs of later requests), and so do the completions behind it (in order).
 * Returns how many entries the ACK completed (0: a duplicate).  @last: the
 * entry at @pos, the ACK's own.
 */
static uint32_t on_ack(struct sim_qp *qp, struct sim_outst *last, uint32_t pos, sim_time_t t)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < pos; i++)
		n += ack_entry(qp, sim_outst_at(&qp->sq, i), t);
	return n + ack_entry(qp, last, t);
}

void sim_requester_rx(struct sim_qp *qp, struct sim_pkt *p)
{
	struct sim_outst *o;
	uint8_t synd = 0;
	sim_time_t t;
	uint32_t pos;

	if (qp->state != SIM_QPS_RTS)
		return; /* responses to an ERR/RESET QP are dropped */
	o = find_psn(qp, p->psn, &pos);
	if (!o)
		return; /* stale, duplicate, or never sent */
	if (p->kind == SIM_PKT_ACK) {
		if (!on_ack(qp, o, pos, p->t))
			return; /* duplicate, or the PSN of an unanswered READ / atomic */
		qp->sq.rnr_left = qp->rnr_retry;
		done_by_packet(qp);
		/* returns at once while the head is open */
		complete_from(qp, pos ? &qp->sq.os[qp->sq.os_head] : o);
		return;
	}
	if (o->done)
		return; /* duplicate */
	t = done_time(o, p->t);
	switch (p->kind) {
	case SIM_PKT_NAK:
		if (p->syndrome == PRISM_SYND_RNR_RETRY_EXC_ERR) {
			on_rnr(qp, o, p);
			return;
		}
		synd = p->syndrome;
		break;
	case SIM_PKT_READ_RESP:
	case SIM_PKT_ATOMIC_RESP:
		synd = land(qp, o, p, t);
		break;
	default:
		return; /* rx_dispatch hands over responses only */
	}
	qp->sq.rnr_left = qp->rnr_retry;
	mark_done(qp, o, synd, t);
	done_by_packet(qp);
	if (!pos) /* else an older entry is still open */
		complete_from(qp, o);
}

/* Go-back-N after an RNR NAK: resend every unacknowledged request from the
 * NAKed PSN on (the responder dropped them). */
void sim_requester_rnr_resend(struct sim_qp *qp)
{
	struct sim_sq *sq = &qp->sq;

	sq->block = SIM_BLOCK_NONE;
	for (uint32_t i = 0; i < sq->os_cnt; i++) {
		struct sim_outst *o = sim_outst_at(sq, i);
		struct sim_pkt *p;

		if (!o->sent || o->done || ((o->psn - sq->rnr_psn) & 0x800000u) || !o->req)
			continue;
		p = sim_pkt_clone(qp->dev, o->req);
		if (!p)
			continue;
		p->t = sq->t;
		if (sim_wire_xmit(qp, p) < 0) {
			o->done = true;
			o->syndrome = PRISM_SYND_TRANSPORT_RETRY_EXC_ERR;
			o->done_at = sq->t;
			sim_outst_complete(qp);
			return;
		}
	}
}
