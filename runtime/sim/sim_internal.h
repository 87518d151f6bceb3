/* SPDX-License-Identifier: MIT */
/*
 * sim/sim_internal.h - the software RNIC's internal structures and the
 * functions its files share.
 *
 * Owns: struct sim_dev / sim_mr / sim_cq / sim_qp and their parts (send
 * queue with its prefetch ring and outstanding ring, receive queue, the
 * writer map used to attribute hazards), the packet queue, and the
 * prototypes that link the engine's files.  Never installed.
 *
 * Hot paths: the checks made per WQE or per scheduler step (object lookups,
 * memory-region checks, the readiness of a queue's head, a WAIT on a CQ
 * count, the unchanged-bytes hazard check, fetch records, CQE writes) are
 * static inline here, and the per-packet ones (free list, packet queue,
 * sending) in sim/sim_pkt.h, included at the end; their rare cases stay out
 * of line in the file that owns the rule (the *_slow functions).  One run loop, sim_sched_steps,
 * inlines the scheduler step.  Engine changes are checked to leave every event of seeded runs
 * unchanged (tests/bench/sim_digest.c).
 *
 * Must not: be included outside runtime/sim (and the sim's own tests).
 *
 * Locking: every entry point of sim.h takes dev->lock (a mutex); the
 * engine's files below assume it is held.
 */
#ifndef PRISM_SIM_INTERNAL_H
#define PRISM_SIM_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdarg.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "sim/sim.h"
#include "util/byteorder.h"
#include "wqe/wqe_cqe_body.h"
#include "wqe/wqe_lean.h"

#define SIM_CACHE_LINE           64u
#define SIM_DEFAULT_PREFETCH_BBS 16u
#define SIM_WQE_MAX_BYTES        (PRISM_WQE_MAX_BB * PRISM_WQE_BB) /* a fetched copy's room */
/* Rows of a queue's fetched copies (sim_sq.pf_bytes): one line more than
 * the room, so that the first lines of the rows (all a one-BB WQE uses) do
 * not all fall in the same few cache sets. */
#define SIM_PF_ROW_BYTES (SIM_WQE_MAX_BYTES + SIM_CACHE_LINE)
#define SIM_MAX_MSG      (1u << 30) /* largest message (mlx5 max_msg_sz is 1 GiB) */

/* ---- memory regions ---------------------------------------------------- */

/* A protection domain (IBA 10.2.3): an MR's keys are valid only for QPs of
 * its PD, locally (lkey) and remotely (rkey). */
struct sim_pd {
	struct sim_dev *dev;
	uint32_t pdn;
	uint32_t users;               /* MRs and QPs in it */
	struct sim_pd *next, **prevp; /* dev->pds */
};

struct sim_mr {
	struct sim_dev *dev;
	struct sim_pd *pd;
	uint8_t *addr;
	size_t len;
	unsigned access;
	uint32_t key; /* lkey == rkey, as mlx5 does for plain MRs; random */
};

/* ---- CQs ---------------------------------------------------------------- */

struct sim_cq {
	struct sim_dev *dev;
	uint32_t cqn;
	uint32_t ncqe;
	bool ignore_overrun;
	bool overrun; /* CQ in error after an overrun */
	/* overrun, or the device has an event observer: every push takes
	 * sim_cq_push_slow */
	bool push_slow;
	bool ext_mem; /* buf and dbrec are the caller's (sim_cq_attr.ext_buf) */
	uint8_t *buf;
	volatile uint32_t *dbrec;
	uint32_t pi;          /* CQEs produced (absolute; WAIT compares its low 24 bits) */
	sim_time_t *times;    /* times[i % ncqe]: when CQE number i (0-based) was produced */
	sim_time_t last_time; /* production time of the latest CQE */
	uint32_t users;       /* QPs that use it */
	uint32_t slot;
	/* QP slots parked on a WAIT for this CQ: woken by its next CQE */
	uint32_t *waiters;
	uint32_t nwaiters, waiters_cap;
	/* completion events (sim_cq_arm): the next CQE queues this CQ once on
	 * its channel's list (ch), else on dev->ev_head, for
	 * sim_channel_take_events / sim_dev_take_events */
	bool armed, ev_queued;
	void *ev_ctx;
	struct sim_cq *ev_next;
	struct sim_channel *ch;
};

/* A completion channel (sim_channel.c): its CQs' events, and an eventfd
 * that is readable exactly while the list is not empty.  dev->lock. */
struct sim_channel {
	struct sim_dev *dev;
	struct sim_cq *ev_head;
	int fd;
	uint32_t ncqs; /* CQs attached */
};
/* dev->lock held: the first event on @ch's empty list makes its fd
 * readable; the list emptied makes it unreadable again. */
void sim_channel_signal(struct sim_channel *ch);
void sim_channel_drain(struct sim_channel *ch);

/* ---- send queue --------------------------------------------------------- */

/* A WQE copied into the NIC (one per prefetch slot). */
struct sim_fetched {
	uint32_t counter;     /* absolute BB counter of the WQE's first BB */
	uint16_t nbb;         /* BBs the WQE occupies (>= 1) */
	bool hazard;          /* a racing write was reported while it waited */
	enum sim_order order; /* how it was fetched */
	sim_time_t fetched_at;
	uint64_t wseq;      /* dev->wseq at fetch time */
	const uint8_t *mem; /* its first BB in the ring (what the hazard check compares) */
	/* the copy: this slot's row of sq->pf_bytes (PRISM_WQE_MAX_BB BBs,
	 * line-aligned), apart from the slots, which stay in cache; at least
	 * sim_fetched_len bytes (a one-BB WQE: its whole block) */
	uint8_t *bytes;
};
/* Bytes fetched of a WQE whose control segment says DS @ds (1 to 63): the
 * WQE's; a bad DS 0 fetches the control segment alone. */
static inline uint32_t sim_fetch_len(unsigned ds)
{
	return ds ? ds * PRISM_WQE_DS_BYTES : PRISM_WQE_DS_BYTES;
}
/* The bytes of @f that are its WQE (its copy never changes once fetched). */
static inline uint32_t sim_fetched_len(const struct sim_fetched *f)
{
	return sim_fetch_len(f->bytes[7] & 0x3fu);
}

/* The head WQE of a send queue decoded (by the codec, from its fetched
 * copy, when it becomes the head: sim_sq_decode_head).  Only the head is
 * ever evaluated or executed, so one per queue, where every readiness
 * check and the step find it in cache. */
struct sim_decoded {
	int rc;                               /* < 0: the codec rejected the bytes */
	const struct prism_opcode_info *info; /* of w.ctrl.opcode (rc >= 0 only) */
	struct prism_wqe w;
};

/* An executed WQE that has not completed yet (completions are in order).
 * What every WQE writes is in its first cache line; entries are aligned. */
struct __attribute__((aligned(SIM_CACHE_LINE))) sim_outst {
	uint32_t counter;
	uint32_t psn;
	uint32_t byte_count;
	uint8_t opcode;
	bool signaled;
	bool done;
	bool sent;                  /* has a request packet (ACK / response expected) */
	bool read_like;             /* READ or atomic: what fences wait for */
	bool rnr_able;              /* SEND / SEND_IMM / WRITE_IMM: may draw an RNR NAK */
	uint8_t syndrome;           /* 0 = success */
	bool req_lent;              /* see req */
	uint8_t nsge;               /* READ / atomic local scatter list (sge, below) */
	sim_time_t start, ready_at; /* ready_at: start + latency */
	sim_time_t done_at;
	/* kept for RNR retransmission until acknowledged: a copy, or (req_lent)
	 * the loopback request itself while it waits in this device's inbox
	 * (its box names this entry as lender: the delivery hands it back) */
	struct sim_pkt *req;
	/* dev->mr_gen when the scatter list passed its checks (set with nsge):
	 * while no MR has gone since, the checks would pass again (sim_mr_check
	 * is a function of the key, range, rights and PD, and only a
	 * deregistration changes what a key names) */
	uint64_t mr_gen;
	struct prism_sge sge[PRISM_WQE_MAX_SGE];
};

enum sim_block {
	SIM_BLOCK_NONE,
	SIM_BLOCK_WAIT_CQ, /* WAIT on a CQ count or on data */
	SIM_BLOCK_FENCE,   /* fence: outstanding READ/atomics */
	SIM_BLOCK_OUTST,   /* outstanding ring full */
	SIM_BLOCK_RNR,     /* waiting for the RNR timer, then retransmit */
};

/* Per 64-byte block of a send queue: the last engine write (written by
 * patches), and apart (16 bytes, written by every fetch) the last fetch. */
struct sim_bb_state {
	uint64_t wseq;       /* dev->wseq of the last engine write */
	struct sim_writer w; /* its writer */
};
struct sim_bb_fetch {
	sim_time_t t; /* when (0 for a block never fetched) */
	uint32_t ctr; /* counter of the WQE last fetched over this block */
};

struct sim_sq {
	uint8_t *buf;
	uint32_t nbb;   /* power of two */
	uint32_t pi;    /* host producer counter at the last doorbell (from dbrec[1]) */
	uint32_t en;    /* managed: enabled limit (SEND_EN) */
	uint32_t limit; /* sim_qp_sq_limit (sim_sq_set_limit at every change of pi / en) */
	uint32_t fetch; /* next BB counter to fetch */
	uint32_t head;  /* next BB counter to execute */
	/* prefetch ring (pf_cap: a power of two, at least pf_max_bbs); hd:
	 * pf[pf_head] decoded, while pf_cnt */
	struct sim_fetched *pf;
	uint8_t *pf_bytes;
	uint32_t pf_cap, pf_head, pf_cnt;
	struct sim_decoded hd;
	uint32_t pf_max_bbs;
	/* outstanding ring (os_cap: a power of two) */
	struct sim_outst *os;
	uint32_t os_cap, os_head, os_cnt;
	/* per-BB last engine writer and last fetch */
	struct sim_bb_state *bbs;
	struct sim_bb_fetch *bbf;
	/* processing unit */
	sim_time_t t;     /* PU virtual time: next WQE starts no earlier */
	sim_time_t dep_t; /* time the current WQE's dependency was satisfied */
	enum sim_block block;
	bool after_wait;    /* the previous WQE was a WAIT: completion order (kept only
	                     * where a cost query reads it: dev->cost_query) */
	sim_time_t rdone_t; /* latest completion time of a READ/atomic (fences) */
	sim_time_t done_t;  /* latest completion time of any WQE (strong ordering) */
	bool rnr_parked;    /* infinite RNR retry waiting for outside progress */
	uint64_t rnr_mark;  /* dev->outside_progress when parked */
	sim_time_t rnr_at;  /* RNR: retransmit time */
	uint32_t rnr_outst; /* entries of the outstanding ring with rnr_able */
	uint32_t rnr_psn;
	uint8_t rnr_left;
};

struct sim_rq {
	uint8_t *buf;
	uint32_t n;      /* WQEs, power of two */
	uint32_t stride; /* bytes per WQE */
	uint32_t max_sge;
	uint32_t pi;   /* host producer (extended from dbrec[0]) */
	uint32_t en;   /* managed: RECV_EN limit */
	uint32_t head; /* next receive to consume */
};

/* Packets in the order they are to be processed: by time t, then push
 * order (stable), or by push order alone (fifo).  A sorted run inside one
 * array: the live entries are front[0 .. n-1], front lies inside e[0 ..
 * cap-1] and room counts the slots from front to the array's end.  Pop takes
 * front[0]; push puts a packet behind the last entry when none is later (the
 * common case: packets leave in time order), before the front when it is
 * earlier than all and a popped slot is there (a reply at the time of the
 * packet just taken), else moves the later ones up one slot.  The array
 * slides back to its start or doubles only when the run reaches its end.
 * The keys sit next to the pointers: ordering compares without loading
 * packets. */
struct sim_pktq_ent {
	sim_time_t t; /* = p->t when pushed */
	struct sim_pkt *p;
};
struct sim_pktq {
	struct sim_pktq_ent *front; /* earliest entry (valid when n) */
	uint32_t n;                 /* live entries */
	struct sim_pktq_ent *e;
	uint32_t cap;
	/* slots from front to the end of e: not next to n, whose decrement a
	 * pop's would join in one vector subtraction (longer code) */
	uint32_t room;
	bool fifo;
};

/* What an engine access of registered memory is for (sim_mr_check): each
 * needs its rights (sim_mr_use_need) and has its own memo in the QP, since
 * a QP's verbs of one kind mostly name the same MR (RedN's worker reads into
 * one queue, swaps into one scratch word, serves one table). */
enum sim_mr_use {
	SIM_MR_GATHER,       /* WRITE / SEND source: no right */
	SIM_MR_WAIT,         /* WAIT on data: the word, no right */
	SIM_MR_READ_DST,     /* READ response scatter: LOCAL_WRITE */
	SIM_MR_ATOMIC_DST,   /* atomic result: LOCAL_WRITE */
	SIM_MR_RECV_DST,     /* receive scatter: LOCAL_WRITE */
	SIM_MR_SERVE_READ,   /* an inbound READ: REMOTE_READ */
	SIM_MR_SERVE_WRITE,  /* an inbound WRITE: REMOTE_WRITE */
	SIM_MR_SERVE_ATOMIC, /* an inbound atomic: REMOTE_ATOMIC */
	SIM_MR_NUSES
};

static inline unsigned sim_mr_use_need(enum sim_mr_use use)
{
	switch (use) {
	case SIM_MR_READ_DST:
	case SIM_MR_ATOMIC_DST:
	case SIM_MR_RECV_DST:
		return SIM_ACCESS_LOCAL_WRITE;
	case SIM_MR_SERVE_READ:
		return SIM_ACCESS_REMOTE_READ;
	case SIM_MR_SERVE_WRITE:
		return SIM_ACCESS_REMOTE_WRITE;
	case SIM_MR_SERVE_ATOMIC:
		return SIM_ACCESS_REMOTE_ATOMIC;
	default:
		return 0;
	}
}

/* The last MR a QP's checks of one use found granted (sim_mr_check): its
 * key and range.  An MR's fields and a QP's PD never change, so the memo
 * holds until the MR goes (sim_mr_dereg clears every memo naming it).  An
 * empty memo (a fresh QP's) has key 0, never an MR's, and an empty range,
 * so it lets nothing through. */
struct sim_mr_memo {
	uint32_t key;
	uint64_t base, len;
};

struct sim_qp {
	struct sim_dev *dev;
	uint32_t qpn;
	uint32_t slot;
	uint64_t birth; /* dev->qp_births when it was created (sim_pkt_box.outside) */
	int state;
	unsigned flags;
	struct sim_pd *pd;
	unsigned access; /* remote rights it serves: SIM_ACCESS_REMOTE_* (QPC rre/rwe/rae) */
	struct sim_cq *scq, *rcq;
	bool ext_mem; /* buf and dbrec are the caller's (sim_qp_attr.ext_buf) */
	uint8_t *buf;
	size_t buf_len;
	volatile uint32_t *dbrec;
	struct sim_sq sq;
	struct sim_rq rq;
	/* connection */
	uint32_t peer_node, peer_qpn;
	uint8_t rnr_retry, min_rnr_timer, retry_cnt;
	uint32_t next_psn; /* requester: next PSN to send */
	uint32_t exp_psn;  /* responder: next PSN expected */
	uint32_t msn;
	sim_time_t last_tx_t; /* packets of one QP leave in order (never decreases) */
	/* 1 + the time of its latest packet queued in the device's inbox: a
	 * response due before it is not folded, so that it cannot pass a
	 * packet of this QP still waiting there (sim_reply_alloc).  Set with
	 * last_tx_t, so at most last_tx_t + 1. */
	sim_time_t inbox_after;
	uint32_t wait_cqn; /* CQ whose waiter list holds this QP (0: none) */
	uint32_t rdy_pos;  /* scheduler: 1 + index in dev->rdy, 0: not ready */
	bool dirty;        /* scheduler: in dev->dirty */
	/* packets the transport refused (-EAGAIN), in order (sim_wire.c) */
	struct sim_pktq txq;
	struct sim_qp *tx_next; /* in dev->tx_held while txq holds packets */
	bool tx_listed;
	bool tx_overflow; /* txq reached SIM_QP_TXQ_MAX: fail the QP */
	struct sim_mr_memo mr_memo[SIM_MR_NUSES];
};

/* Packets one QP may hold back while its peer does not read (a response per
 * request of a client that stopped reading): past this the QP goes to the
 * error state alone, as a NIC's pause-storm watchdog disables a port that
 * never drains, instead of the device's memory growing without bound. */
#define SIM_QP_TXQ_MAX 4096u

/* Packets from outside (sim_dev_deliver) a device holds before it is
 * processed: this many waiting to enter the inbox, this many in it.  A full
 * device answers -EAGAIN, and the transport stops reading the link that
 * brought the packet for a while: a flood of requests waits in its sender's
 * socket, not in this process. */
#define SIM_INGRESS_MAX 1024u

/* ---- packets ------------------------------------------------------------ */

#define SIM_PKT_SMALL 256u /* payload room of every packet */
/* Every packet the device allocates sits in a box whose header names the
 * outstanding entry it is lent to (sim_send_request), NULL otherwise; the
 * payload room follows the packet (p + 1) as before. */
struct sim_pkt_box {
	struct sim_outst *lender;
	/* A packet from another device (enqueue_async): 1 + the QPs this
	 * device had created when it arrived; 0 for its own.  A QP created
	 * after that is not its addressee, though it may have inherited the
	 * addressee's number (sim_wire_rx drops it, as a NIC drops a packet
	 * for a QP that does not exist when it arrives). */
	uint64_t outside;
	struct sim_pkt pkt;
};
/* A READ being served by a responder (line by line in chaos mode). */
struct sim_readjob {
	struct sim_pkt *resp; /* the response under construction */
	const uint8_t *src;
	uint32_t nlines, done;
	uint32_t *order; /* line order (chaos: a seeded permutation) */
	sim_time_t t, step;
	uint32_t qpn;
	struct sim_readjob *next;
};

/* ---- device ------------------------------------------------------------- */

struct sim_dev {
	struct sim_dev_opts o;
	struct sim_observer obs; /* copy; cost never NULL */
	/* A cost model or an event observer reads the per-WQE cost query;
	 * without either the flat default cost is charged directly. */
	bool cost_query;
	/* Neither a cost query nor stock firmware's checks: sim_sq_step's
	 * plain copy, which tests for none of them per WQE. */
	bool step_plain;
	/* prism_opcode_info() of every opcode, looked up once (a fetch reads
	 * it for every WQE) */
	const struct prism_opcode_info *op_info[256];
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool threaded, stopping;
	uint64_t wakes;     /* bumped by every wake-up request (threaded mode) */
	uint64_t qp_births; /* QPs created so far (atomic: read without the lock) */
	uint64_t rng;
	/* protection domains; pd0 holds what is registered without one */
	struct sim_pd *pds, *pd0;
	uint32_t next_pdn;
	/* MRs: an open-addressing table keyed by the (random) key, linear
	 * probing, at most half full (sim_mr.c) */
	struct sim_mr **mrs;
	uint32_t nmrs, mrs_cap;
	uint64_t mr_gen; /* MRs deregistered so far (sim_outst.mr_gen) */
	/* CQs and QPs: slot tables, index 0 unused so no number is 0 */
	struct sim_cq **cqs;
	uint32_t ncqs, cqs_cap;
	struct sim_qp **qps;
	uint32_t nqps, qps_cap;
	/* scheduler (sim_sched.c).  dirty: the queues whose readiness must be
	 * (re-)evaluated before the next pick (qp->dirty set), added by
	 * sim_sched_wake (a fetch, a state change, a response, a CQE on a CQ
	 * it WAITs on).  rdy: min-heap by start time of the queues found
	 * ready (qp->rdy_pos), so a step pops the earliest unit instead of
	 * asking every queue. */
	struct sim_qp **dirty;
	uint32_t ndirty;
	struct sim_rdy {
		sim_time_t t;
		struct sim_qp *qp;
	} * rdy;
	uint32_t nrdy;
	/* send-queue ranges sorted by start, for write attribution */
	struct sim_sqrange {
		uintptr_t lo, hi;
		struct sim_qp *qp;
	} * sqr;
	uint32_t nsqr;
	/* range of the last attributed write (a guess), always < nsqr where a
	 * write can reach attribution (nsqr 0: sqr_lo > sqr_hi, none can) */
	uint32_t sqr_hint;
	uintptr_t sqr_lo, sqr_hi;
	uint64_t wseq;
	/* packets waiting to be processed, READ jobs */
	struct sim_pktq inbox;
	pthread_mutex_t inbox_lock; /* sim_dev_deliver from transport threads */
	struct sim_pktq rx_async;   /* delivered from outside, moved into inbox */
	struct sim_qp *tx_held;     /* QPs whose txq holds refused packets */
	struct sim_cq *ev_head;     /* CQs with a completion event (sim_cq_arm) */
	struct sim_readjob *jobs;
	/* Loopback fold (sim_wire.c): while a request from one of this
	 * device's own QPs is served in VTIME mode (fold_state OPEN), a
	 * response due at the request's own time is built in fold
	 * (sim_reply_alloc), never queued, and taken by the requester in the
	 * same step (TAKEN). */
	enum { SIM_FOLD_NONE, SIM_FOLD_OPEN, SIM_FOLD_TAKEN } fold_state;
	/* the source node of the requests that may fold: o.node in VTIME
	 * mode, else 1 << 32 (no node: none) */
	uint64_t fold_src;
	/* the destination node of the packets sent in line (sim_wire_xmit):
	 * o.node without an event observer, else 1 << 32 (none) */
	uint64_t quiet_dst;
	struct sim_pkt *pkt_free; /* free list (linked through the payload area) */
	uint32_t npkt_free;
	const struct sim_wire_ops *wire;
	void *wire_ctx;
	struct sim_fabric *fabric;
	/* the folded response's packet (header, then its payload room) */
	struct {
		struct sim_pkt_box box;
		uint8_t room[SIM_PKT_SMALL];
	} fold;
	/* results */
	struct sim_stats st;
	bool has_hazard;
	struct sim_hazard last_hazard;
	bool hazard_failed;
	sim_time_t now;            /* latest virtual time (host actions happen here) */
	uint64_t outside_progress; /* doorbells, deliveries, kicks */
	uint64_t rnr_parks;        /* infinite RNR retries parked so far */
};

/* sim_dev.c */
void sim_log(struct sim_dev *dev, enum sim_log_level lvl, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void sim_emit(struct sim_dev *dev, const struct sim_event *ev);

/* The flat default cost (sim_default_cost) of a WQE of class @cls. */
static inline void sim_default_cost_of(enum prism_op_class cls, struct sim_cost *out)
{
	out->busy = SIM_US(0.17);
	out->latency = cls == PRISM_CLASS_ORDERING ? out->busy : SIM_US(1.0);
}
/* splitmix64: small, seedable, good enough to pick among units (inline: the
 * scheduler draws one per two-way pick). */
static inline uint64_t sim_rand(struct sim_dev *dev)
{
	uint64_t z = (dev->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
/* dev->now only grows, from 0, here: it is also the stats' vtime_max
 * (sim_dev_stats fills that in). */
static inline void sim_advance_now(struct sim_dev *dev, sim_time_t t)
{
	if (__builtin_expect(t > dev->now, 1)) /* time mostly moves on */
		dev->now = t;
}

/* sim_mr.c: checked memory access (below, inline).  Each returns 0 and the
 * host pointer, or a CQE syndrome (> 0) saying why the access is not
 * allowed. */
static inline int sim_mr_check_local(struct sim_qp *qp, enum sim_mr_use use, uint32_t lkey,
                                     uint64_t addr, uint64_t len, uint8_t **host);
static inline int sim_mr_check_remote(struct sim_qp *qp, enum sim_mr_use use, uint32_t rkey,
                                      uint64_t addr, uint64_t len, uint8_t **host);
/* memmove for the small writes a chain makes into its own WQEs (fields of
 * 1 to 16 bytes): every load before any store, so overlap is safe. */
static inline void sim_move_small(uint8_t *d, const uint8_t *s, size_t n)
{
	if (n >= 8) {
		uint64_t a, b;

		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n >= 4) {
		uint32_t a, b;

		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		memcpy(d, &a, 4);
		memcpy(d + n - 4, &b, 4);
	} else {
		uint8_t a = s[0], b = s[n / 2], c = s[n - 1];

		d[0] = a;
		d[n / 2] = b;
		d[n - 1] = c;
	}
}

/* The bytes of an engine write (any overlap: memmove semantics). */
static inline void sim_copy_bytes(uint8_t *dst, const void *src, size_t len)
{
	if (len <= 16)
		sim_move_small(dst, src, len);
	else
		memmove(dst, src, len);
}

/* Every engine read of registered memory an application may be writing at
 * the same time (READ responses, gathers): each aligned 8-byte word is read
 * with one atomic load, as a NIC's DMA reads whole words, so a word stored by
 * a single aligned store is never seen half old, half new (and the race is
 * one the C memory model defines).  Inline: a read is a few words, and the
 * atomic executor's 8-byte read folds to one load. */
static inline void sim_mem_read(void *dst, const uint8_t *src, size_t len)
{
	uint8_t *d = dst;
	size_t head = (size_t)(-(uintptr_t)src & 7u), words;

	if (head > len)
		head = len;
	for (size_t i = 0; i < head; i++)
		d[i] = __atomic_load_n(src + i, __ATOMIC_RELAXED);
	src += head;
	d += head;
	len -= head;
	words = len & ~(size_t)7;
	for (size_t i = 0; i < words; i += 8) {
		uint64_t v =
		    __atomic_load_n((const uint64_t *)(const void *)(src + i), __ATOMIC_RELAXED);

		memcpy(d + i, &v, 8);
	}
	for (size_t i = words; i < len; i++)
		d[i] = __atomic_load_n(src + i, __ATOMIC_RELAXED);
}
void sim_mr_destroy_all(struct sim_dev *dev);
/* sim_mr.c: the device's default PD (sim_dev_open) and every PD at close. */
int sim_pd_init(struct sim_dev *dev);
void sim_pd_destroy_all(struct sim_dev *dev);

/* sim_cq.c */
/* Writes one CQE (in order of the calls), with its owner bit and
 * timestamp.  Returns 0 or -ENOSPC (overrun).  Inline: the write itself
 * (sim_cq_write); an overrun, a CQ in error or an event observer go through
 * sim_cq_push_slow (sim_cq.c). */
int sim_cq_push_slow(struct sim_cq *cq, struct prism_cqe *c, sim_time_t t);
/* Queue an armed CQ's completion event (out of line: rare on the data path). */
void sim_cq_fire(struct sim_cq *cq);
void sim_sched_wake_waiters(struct sim_cq *cq, bool all); /* sim_sched.c */
/* The common wake-up in line, else false (defined with sim_sched_wake). */
static inline bool sim_sched_wake_lone(struct sim_cq *cq);
/* The CQE into its slot (room checked): the body, then op_own with release
 * order, so a poller that sees the owner bit flip sees the whole CQE
 * (mlx5 rdma-core: mlx5_get_next_cqe); then its time, the count, the WAITs
 * and the completion event it releases. */
static inline void sim_cq_write(struct sim_cq *cq, struct prism_cqe *c, sim_time_t t)
{
	uint32_t idx = cq->pi & (cq->ncqe - 1);
	uint8_t *slot = cq->buf + (size_t)idx * PRISM_CQE_BYTES;
	uint8_t op_own;

	if (t < cq->last_time)
		t = cq->last_time; /* a CQ produces in order */
	c->owner = (cq->pi & cq->ncqe) ? 1 : 0;
	c->timestamp = t / 1000; /* ns */
	op_own = wqe_cqe_encode_body(c, slot);
	__atomic_store_n(&slot[PRISM_CQE_BYTES - 1], op_own, __ATOMIC_RELEASE);
	cq->times[idx] = t;
	cq->last_time = t;
	cq->pi++;
	if (cq->nwaiters && !sim_sched_wake_lone(cq))
		sim_sched_wake_waiters(cq, false);
	if (cq->armed)
		sim_cq_fire(cq);
	cq->dev->st.cqes++;
	if (c->opcode == PRISM_CQE_REQ_ERR || c->opcode == PRISM_CQE_RESP_ERR)
		cq->dev->st.error_cqes++;
}
static inline int sim_cq_push(struct sim_cq *cq, const struct prism_cqe *c, sim_time_t t)
{
	uint32_t ci = load_be32_shared(cq->dbrec) & 0xffffffu;
	struct prism_cqe w = *c; /* copies: the caller's CQE stays in registers */

	if (cq->push_slow || (!cq->ignore_overrun && ((cq->pi - ci) & 0xffffffu) >= cq->ncqe)) {
		struct prism_cqe s = *c;

		return sim_cq_push_slow(cq, &s, t);
	}
	sim_cq_write(cq, &w, t);
	return 0;
}
/* Does CQE number @index (0-based, 24-bit, cyclic) exist?  *t: when it was
 * produced (0: too long ago to remember).  This is the WAIT threshold: a
 * WAIT with index i releases once the CQ's (i+1)-th CQE exists (MLNX_OFED
 * libmlx5 starts each CQ's wait index at -1 and posts wait_index + count;
 * PCX posts cmpl_cnt - 1; docs/nic-model.md rule wait-blocks-until-cqe). */
static inline bool sim_cq_reached(struct sim_cq *cq, uint32_t index, sim_time_t *t)
{
	uint32_t ahead = (cq->pi - 1u - index) & 0xffffffu; /* CQEs after number @index */

	if (ahead >= 0x800000u)
		return false; /* CQE number @index is still in the future */
	*t = ahead >= cq->ncqe ? 0 : cq->times[index & (cq->ncqe - 1)];
	return true;
}
static inline struct sim_cq *sim_cq_by_num(struct sim_dev *dev, uint32_t cqn)
{
	return cqn && cqn < dev->cqs_cap ? dev->cqs[cqn] : NULL;
}
void sim_cq_destroy_all(struct sim_dev *dev);

/* sim_qp.c */
#define SIM_QPN_BASE 0x10u /* QPN of slot 0 */
static inline struct sim_qp *sim_qp_by_num(struct sim_dev *dev, uint32_t qpn)
{
	/* a QPN below the base wraps past any table size (QPNs are 24 bits:
	 * the table stays far below 2^32 slots), so one compare */
	uint32_t slot = qpn - SIM_QPN_BASE;

	return slot < dev->qps_cap ? dev->qps[slot] : NULL;
}
/* Moves @qp to ERR: outstanding WQEs complete in order (done ones with their
 * syndrome, the rest flushed), then every fetched/posted WQE is flushed. */
void sim_qp_fail(struct sim_qp *qp, sim_time_t t);
/* ERR QP: flush WQEs posted after the failure (host doorbell). */
void sim_qp_flush_new(struct sim_qp *qp, sim_time_t t);
void sim_qp_set_state(struct sim_qp *qp, int state, sim_time_t t);
void sim_qp_destroy_all(struct sim_dev *dev);

/* sim_fetch.c */
/* Fetches every WQE now allowed (up to the prefetch window): sim_sq_fetch
 * (inline, after sim_qp_sq_limit below) returns at once when the queue is
 * not RTS or nothing is posted / enabled past what was fetched (the common
 * case right after a step); otherwise sim_sq_fetch_upto copies up to
 * @limit (the value sim_qp_sq_limit just returned) and decodes the first
 * WQE fetched into an empty window (the others when they become the head). */
void sim_sq_fetch_upto(struct sim_qp *qp, sim_time_t t, enum sim_order first_order, uint32_t limit);
/* sim_sq_fetch_upto for an ENABLE (SIM_ORDER_DOORBELL) up to @limit, past
 * sq->fetch: one-BB WQEs fetched into an empty window of a device without
 * an event observer take a short path (ENABLE targets are idle queues). */
void sim_sq_fetch_enabled(struct sim_qp *qp, sim_time_t t, uint32_t limit);
/* Decodes the head WQE's fetched copy into sq->hd: called whenever a
 * fetched WQE becomes the head (fetched into an empty window, or the head
 * before it executed).  The copy never changes once fetched, so this is the
 * decode the fetch itself would have made.  Only the fields the engine
 * reads (wqe_decode_engine, of the copy's own DS bytes: wqe_decode_fetched),
 * unless a cost model or an event observer is there: they are handed the
 * whole WQE (out of line, prism_wqe_decode). */
void sim_sq_decode_full(struct sim_sq *sq, const struct sim_fetched *f);
/* @full: dev->cost_query, where the caller knows it (sim_sq_step's plain
 * copy: false) */
static inline __attribute__((always_inline)) void sim_sq_decode_as(struct sim_qp *qp, bool full)
{
	struct sim_sq *sq = &qp->sq;
	const struct sim_fetched *f = &sq->pf[sq->pf_head];

	if (full)
		sim_sq_decode_full(sq, f);
	else
		sq->hd.rc = wqe_decode_fetched(f->bytes, &sq->hd.w);
	sq->hd.info = sq->hd.rc < 0 ? NULL : qp->dev->op_info[sq->hd.w.ctrl.opcode];
}
static inline __attribute__((always_inline)) void sim_sq_decode_head(struct sim_qp *qp)
{
	sim_sq_decode_as(qp, qp->dev->cost_query);
}
/* Do the 64 bytes at @mem and at @copy (line-aligned: a fetched copy's
 * row) match?  Four 16-byte compares where SSE2 is there. */
static inline bool sim_bb_match(const uint8_t *mem, const uint8_t *copy)
{
#ifdef __SSE2__
	const __m128i *m = (const __m128i *)(const void *)mem;
	const __m128i *c = (const __m128i *)(const void *)copy;
	__m128i e01 = _mm_and_si128(_mm_cmpeq_epi8(_mm_loadu_si128(m), c[0]),
	                            _mm_cmpeq_epi8(_mm_loadu_si128(m + 1), c[1]));
	__m128i e23 = _mm_and_si128(_mm_cmpeq_epi8(_mm_loadu_si128(m + 2), c[2]),
	                            _mm_cmpeq_epi8(_mm_loadu_si128(m + 3), c[3]));

	return _mm_movemask_epi8(_mm_and_si128(e01, e23)) == 0xffff;
#else
	return memcmp(mem, copy, PRISM_WQE_BB) == 0;
#endif
}
/* Compares a fetched WQE with memory; reports a hazard.  Returns true when
 * the fail policy says the WQE must not execute.  The common case, a WQE
 * nobody changed, is decided inline: a one-BB WQE (it never wraps) by its
 * whole block (equal there is equal over its length), a longer one that
 * does not wrap by its bytes; the rest, and every mismatch, out of line
 * (which compares the WQE's exact bytes). */
bool sim_sq_hazard_check_slow(struct sim_qp *qp, struct sim_fetched *f, sim_time_t t);
static inline bool sim_sq_hazard_check(struct sim_qp *qp, struct sim_fetched *f, sim_time_t t)
{
	const struct sim_sq *sq = &qp->sq;
	const uint8_t *mem = f->mem;

	/* the common case first: nothing changed (then the mode does not matter) */
	if (__builtin_expect(!f->hazard && f->nbb == 1, 1)) {
		if (__builtin_expect(sim_bb_match(mem, f->bytes), 1))
			return false;
	} else if (!f->hazard && (f->counter & (sq->nbb - 1)) + f->nbb <= sq->nbb &&
	           memcmp(mem, f->bytes, sim_fetched_len(f)) == 0) {
		return false;
	}
	if (qp->dev->o.hazard == SIM_HAZARD_OFF)
		return false;
	return sim_sq_hazard_check_slow(qp, f, t);
}
void sim_sq_drop_fetched(struct sim_qp *qp);
/* An engine write of @len bytes of @src is about to land at send-queue
 * offset @off of @qp: record the writer, report a racing patch (inline: the
 * writer recorded per block; the race compare and the event out of line). */
bool sim_sq_patch_race(struct sim_qp *qp, uint32_t b, uint32_t off, const uint8_t *src,
                       uint32_t len, const struct sim_writer *w, sim_time_t t);
void sim_sq_emit_patch(struct sim_qp *qp, uint32_t off, uint32_t len, const struct sim_writer *w,
                       sim_time_t t);
/* Does block @b hold a fetched WQE that has not run (the window [head,
 * fetch))?  Only there is a write's record ever read: the hazard check
 * reports the last write to a block after the fetch of the WQE being
 * checked (bbs.wseq > f->wseq), and a WQE fetched after a write has a
 * larger f->wseq; so a write elsewhere leaves the block's record as it is. */
static inline bool sim_sq_bb_pending(const struct sim_sq *sq, uint32_t b)
{
	return ((b - sq->head) & (sq->nbb - 1)) < sq->fetch - sq->head;
}
static inline void sim_sq_patch(struct sim_qp *qp, uint32_t off, const uint8_t *src, uint32_t len,
                                const struct sim_writer *w, sim_time_t t)
{
	struct sim_dev *dev = qp->dev;
	struct sim_sq *sq = &qp->sq;
	uint32_t b0 = off / PRISM_WQE_BB, b1 = (off + len - 1) / PRISM_WQE_BB;
	/* Only local READ/atomic results have an issue time on this device's
	 * clock; remote writes and receive scatters are checked when the WQE
	 * runs (sim_sq_hazard_check). */
	bool may_race = dev->o.hazard != SIM_HAZARD_OFF && w->kind == SIM_WRITER_SQ;

	for (uint32_t b = b0;; b++) {
		if (sim_sq_bb_pending(sq, b)) {
			sq->bbs[b].wseq = dev->wseq;
			sq->bbs[b].w = *w;
		}
		if (may_race && sq->bbf[b].t > w->issued_at &&
		    sim_sq_patch_race(qp, b, off, src, len, w, t))
			may_race = false; /* one report per patch */
		if (b == b1)
			break;
	}
	if (dev->obs.event)
		sim_sq_emit_patch(qp, off, len, w, t);
}
struct sim_pkt;
/* Writes that may land in send-queue memory (sim_mr.c, out of line): every
 * case but the common one (sim_mem_write_common): attributed, then copied.
 * The writer record is built only where a block keeps one, from the QP and
 * what the write carries: the request @p (a receive scatter, SIM_WRITER_RQ,
 * the QP's rq.head not yet past its WQE; an inbound WRITE or atomic,
 * SIM_WRITER_REMOTE) or the outstanding entry @o of a local READ / atomic
 * (SIM_WRITER_SQ). */
void sim_mem_write_sq_rx(struct sim_qp *qp, uint8_t *dst, const void *src, size_t len,
                         const struct sim_pkt *p, enum sim_writer_kind kind);
void sim_mem_write_sq_result(struct sim_qp *qp, uint8_t *dst, const void *src, size_t len,
                             const struct sim_outst *o, sim_time_t t);
/* A write of [@lo, @lo + @len) that lies in one block of the queue the last
 * write went to (dev->sqr_hint), with no event observer, and (a local READ /
 * atomic result @o) not racing a fetch: a block fetched after @o was issued
 * (bbf.t > o->start; a block never fetched has t 0) is a race.  True for
 * such a write, with the block's writer record in *@rec, or NULL where no
 * fetched WQE could report it (sim_sq_bb_pending); false for every other
 * write into send-queue memory (sim_mr.c's write_sq_slow). */
static inline __attribute__((always_inline)) bool sim_mem_write_one_block(struct sim_dev *dev,
                                                                          uintptr_t lo, size_t len,
                                                                          const struct sim_outst *o,
                                                                          struct sim_bb_state **rec)
{
	const struct sim_sqrange *r = &dev->sqr[dev->sqr_hint];
	struct sim_sq *sq;
	uint32_t b;

	if (lo < r->lo || lo + len > r->hi || dev->obs.event ||
	    (lo - r->lo) % PRISM_WQE_BB + len > PRISM_WQE_BB)
		return false;
	sq = &r->qp->sq;
	b = (uint32_t)((lo - r->lo) / PRISM_WQE_BB);
	if (o && dev->o.hazard != SIM_HAZARD_OFF && sq->bbf[b].t > o->start)
		return false;
	*rec = sim_sq_bb_pending(sq, b) ? &sq->bbs[b] : NULL;
	return true;
}
/* The common engine write, decided in line: outside send-queue memory, or
 * a one-block write (sim_mem_write_one_block) with no writer record to
 * keep.  Counts the write (dev->wseq). */
static inline bool sim_mem_write_common(struct sim_dev *dev, uintptr_t lo, size_t len,
                                        const struct sim_outst *o)
{
	struct sim_bb_state *rec;

	dev->wseq++;
	if (lo + len <= dev->sqr_lo || lo >= dev->sqr_hi)
		return true;
	return sim_mem_write_one_block(dev, lo, len, o, &rec) && !rec;
}
/* Every engine write of host memory is one of these two: copies, and
 * attributes the write when it lands in send-queue memory (PATCH event,
 * writer map).  sim_mem_write_rx: the bytes of request @p that QP @qp
 * received (@kind SIM_WRITER_RQ: its receive scatter; SIM_WRITER_REMOTE:
 * its WRITE / atomic), at its arrival p->t. */
static inline __attribute__((always_inline)) void sim_mem_write_rx(struct sim_qp *qp, uint8_t *dst,
                                                                   const void *src, size_t len,
                                                                   const struct sim_pkt *p,
                                                                   enum sim_writer_kind kind)
{
	if (len == 0)
		return;
	if (sim_mem_write_common(qp->dev, (uintptr_t)dst, len, NULL))
		sim_copy_bytes(dst, src, len);
	else
		sim_mem_write_sq_rx(qp, dst, src, len, p, kind);
}
/* The response data of @qp's READ / atomic @o, landing at @t. */
static inline __attribute__((always_inline)) void
sim_mem_write_result(struct sim_qp *qp, uint8_t *dst, const void *src, size_t len,
                     const struct sim_outst *o, sim_time_t t)
{
	if (len == 0)
		return;
	if (sim_mem_write_common(qp->dev, (uintptr_t)dst, len, o))
		sim_copy_bytes(dst, src, len);
	else
		sim_mem_write_sq_result(qp, dst, src, len, o, t);
}
void sim_sqrange_rebuild(struct sim_dev *dev);

/* sim_exec.c: executes the head WQE of @qp's send queue (one step) at
 * @start; sim_sq_ready() said so when the queue was last woken. */
void sim_sq_step(struct sim_qp *qp, sim_time_t start);
/* Is the head WQE of @qp runnable, and from when?  (Evaluates WAITs.)  The
 * scheduler asks a queue after each of its steps and wakes.  The answer
 * also says whether only a sim_sched_wake can change it (the scheduler then
 * parks the queue): SIM_RD_READY is set when runnable from *@t, with
 * SIM_RD_PLAIN for a plain head (fetched, no WAIT, fence, RNR or decode
 * error: a burst may run it); SIM_RD_POLL when it may change without a
 * wake (an RNR retry, a WAIT on data); SIM_RD_WAIT_CQ (not runnable) is a
 * WAIT on a CQ count, which that CQ's next CQE wakes; 0: not runnable until
 * a wake (not RTS, nothing fetched, fence, full outstanding ring). */
enum { SIM_RD_READY = 1, SIM_RD_POLL = 2, SIM_RD_WAIT_CQ = 4, SIM_RD_PLAIN = 8 };
static inline unsigned sim_sq_readiness(struct sim_qp *qp, sim_time_t *t);
static inline bool sim_sq_ready(struct sim_qp *qp, sim_time_t *t)
{
	return (sim_sq_readiness(qp, t) & SIM_RD_READY) != 0;
}

/* Per-verb executors (sim_exec_*.c).  They return 0 when the WQE executed
 * (possibly with a request in flight) or > 0, a CQE syndrome for a local
 * error.  They never block: readiness is decided before (sim_sq_ready). */
struct sim_xctx {
	struct sim_qp *qp;
	struct sim_fetched *f;
	const struct prism_wqe *w;
	struct sim_outst *os; /* the WQE's entry (ordering verbs: may be NULL, unused) */
	sim_time_t start;
	struct sim_cost cost;
};
typedef int (*sim_exec_fn)(struct sim_xctx *x);
/* SEND_EN / RECV_EN need a cross-channel QP (qpc.cd_master).  Only software
 * checks for this are public (MLNX_OFED libmlx5), so the error is a sim
 * choice; WAIT runs on any send queue (DPDK posts it on plain Tx SQs, UCC on
 * plain RC QPs): rule enable-needs-cross-channel.  Checked first by their
 * executors (a local QP operation error, before anything else). */
static inline bool sim_enable_refused(const struct sim_qp *qp, uint8_t opcode)
{
	return (opcode == PRISM_OP_SEND_ENABLE || opcode == PRISM_OP_RECV_ENABLE) &&
	       !(qp->flags & SIM_QP_CROSS_CHANNEL);
}
int sim_exec_nop(struct sim_xctx *x);
int sim_exec_wait(struct sim_xctx *x);
int sim_exec_send_en(struct sim_xctx *x);
int sim_exec_recv_en(struct sim_xctx *x);
int sim_exec_write(struct sim_xctx *x); /* WRITE, WRITE_IMM, SEND, SEND_IMM */
int sim_exec_read(struct sim_xctx *x);
int sim_exec_atomic(struct sim_xctx *x);
/*
 * Pre-check the WAIT of a head WQE (no side effects): is it satisfied, and
 * since when (*t)?  Malformed WAITs (no such CQ, bad key, wait-on-time)
 * count as satisfied so that they execute and fail with an error CQE
 * instead of blocking forever.  A WAIT on a CQ count is decided inline;
 * the others in sim_exec_ordering.c.
 */
bool sim_wait_satisfied_slow(struct sim_qp *qp, const struct prism_wqe *w, sim_time_t *t);
static inline bool sim_wait_satisfied(struct sim_qp *qp, const struct prism_wqe *w, sim_time_t *t)
{
	struct sim_cq *cq;

	if (w->ctrl.opmod != PRISM_WAIT_CQ)
		return sim_wait_satisfied_slow(qp, w, t);
	*t = 0;
	cq = sim_cq_by_num(qp->dev, w->wait_en.obj_num);
	return !cq || sim_cq_reached(cq, w->wait_en.index & 0xffffffu, t);
}

/* sim_exec.c: the rare parts of sim_sq_readiness, out of line.  An RNR
 * retry's readiness (always SIM_RD_POLL: a parked infinite retry waits for
 * outside progress, which wakes nothing); the fence scan of a non-empty
 * outstanding ring (*t: when the last entry the fence waits for completed);
 * the WAIT_BLOCK / WAIT_RELEASE event of the head WQE for an observer. */
unsigned sim_sq_rnr_ready(struct sim_qp *qp, sim_time_t *t);
bool sim_sq_fence_scan(struct sim_qp *qp, bool strong, sim_time_t *t);
void sim_sq_emit_wait(struct sim_qp *qp, enum sim_event_kind k, sim_time_t t);
/* One pass over the head's state, the common case (a plain head) first.
 * A fence holds a WQE until earlier READs/atomics (or, for strong ordering,
 * everything) completed (mlx5dv.h MLX5_WQE_CTRL_*FENCE): clear at once on
 * an empty outstanding ring, else scanned.  Inline: the scheduler asks
 * after every step and wake. */
static inline __attribute__((always_inline)) unsigned sim_sq_readiness(struct sim_qp *qp,
                                                                       sim_time_t *t)
{
	struct sim_sq *sq = &qp->sq;
	const struct prism_ctrl_seg *c = &sq->hd.w.ctrl;
	const struct sim_fetched *f;
	sim_time_t t0, dep;
	unsigned poll = 0;

	if (__builtin_expect(qp->state != SIM_QPS_RTS, 0))
		return 0;
	if (__builtin_expect(sq->block == SIM_BLOCK_RNR, 0))
		return sim_sq_rnr_ready(qp, t);
	if (!sq->pf_cnt)
		return 0; /* nothing fetched */
	if (__builtin_expect(sq->os_cnt == sq->os_cap, 0)) {
		sq->block = SIM_BLOCK_OUTST; /* every WQE, even a bad one, takes an entry */
		return 0;
	}
	f = &sq->pf[sq->pf_head];
	t0 = sq->t > f->fetched_at ? sq->t : f->fetched_at;
	if (__builtin_expect(sq->hd.rc >= 0 && !(c->fm_ce_se & PRISM_CTRL_FM_MASK) &&
	                         c->opcode != PRISM_OP_CQE_WAIT,
	                     1)) {
		sq->block = SIM_BLOCK_NONE;
		*t = t0;
		return SIM_RD_READY | SIM_RD_PLAIN;
	}
	if (sq->hd.rc < 0) {
		*t = t0;
		return SIM_RD_READY; /* executes as an error */
	}
	if (c->fm_ce_se & PRISM_CTRL_FM_MASK) {
		bool strong = prism_ctrl_fence(c) == PRISM_FENCE_STRONG_ORDERING;

		dep = strong ? sq->done_t : sq->rdone_t;
		if (sq->os_cnt) {
			const struct sim_outst *o = &sq->os[sq->os_head]; /* the oldest */

			/* it holds the fence (sim_sq_fence_scan's first verdict) */
			if (((strong || o->read_like) && !o->done) ||
			    !sim_sq_fence_scan(qp, strong, &dep)) {
				sq->block = SIM_BLOCK_FENCE;
				return 0;
			}
		}
		if (dep > t0)
			t0 = dep;
	}
	if (c->opcode == PRISM_OP_CQE_WAIT) {
		/* a WAIT on data watches memory the CPU writes: polled */
		poll = c->opmod == PRISM_WAIT_CQ ? 0 : SIM_RD_POLL;
		if (!sim_wait_satisfied(qp, &sq->hd.w, &dep)) {
			if (sq->block != SIM_BLOCK_WAIT_CQ) {
				sq->block = SIM_BLOCK_WAIT_CQ;
				if (qp->dev->obs.event)
					sim_sq_emit_wait(qp, SIM_EV_WAIT_BLOCK, t0);
			}
			return poll ? poll : SIM_RD_WAIT_CQ;
		}
		if (dep > t0)
			t0 = dep;
		if (sq->block == SIM_BLOCK_WAIT_CQ && qp->dev->obs.event)
			sim_sq_emit_wait(qp, SIM_EV_WAIT_RELEASE, t0);
	}
	sq->block = SIM_BLOCK_NONE;
	*t = t0;
	return SIM_RD_READY | poll;
}

/* sim_atomic_math.c: the masked atomics and the 4-, 16- and 32-byte operands
 * (as limbs; see sim_atomic_apply). */
void sim_atomic_apply_limbs(uint8_t opcode, unsigned size, const uint8_t *target,
                            const uint8_t *swap, const uint8_t *compare, const uint8_t *swap_mask,
                            const uint8_t *compare_mask, uint8_t *orig, uint8_t *result);
/* The responder's atomic arithmetic on @size bytes at @target (already
 * bounds-checked, aligned): @orig receives the old bytes, @result the new.
 * The 8-byte CAS / FETCH_ADD (one host-order word, no masks) is inline in
 * the responder; the rest is sim_atomic_math.c's. */
static inline void sim_atomic_apply(uint8_t opcode, unsigned size, const uint8_t *target,
                                    const uint8_t *swap, const uint8_t *compare,
                                    const uint8_t *swap_mask, const uint8_t *compare_mask,
                                    uint8_t *orig, uint8_t *result)
{
	uint64_t tv;

	if (size != 8 || (opcode != PRISM_OP_ATOMIC_CS && opcode != PRISM_OP_ATOMIC_FA)) {
		sim_atomic_apply_limbs(opcode, size, target, swap, compare, swap_mask, compare_mask,
		                       orig, result);
		return;
	}
	/* one load: the word a CPU may be storing (an aligned target is one
	 * word; one in an MR that starts unaligned, sim_mem_read's bytes) */
	if (!((uintptr_t)target & 7u))
		tv = __atomic_load_n((const uint64_t *)(const void *)target, __ATOMIC_RELAXED);
	else
		sim_mem_read(&tv, target, 8);
	memcpy(orig, &tv, 8);
	if (opcode == PRISM_OP_ATOMIC_FA)
		tv += get_be64(swap);
	else if (tv == get_be64(compare))
		tv = get_be64(swap);
	memcpy(result, &tv, 8);
}
uint64_t sim_masked_add64(uint64_t a, uint64_t b, uint64_t boundary);

/* sim_requester.c (sim_outst_push, once per WQE, is inline below) */
/* Drops the head entry of the outstanding ring (sim_outst_drop_req). */
void sim_outst_pop(struct sim_qp *qp);
void sim_outst_complete(struct sim_qp *qp); /* emits CQEs of done entries in order */
/* Completes @o, the oldest entry, done without error: completion times and
 * its CQE when signaled.  sim_outst_complete retires done entries in order
 * (an ordering verb that ran on an empty ring takes no entry: sim_sq_step
 * completes it the same way, and fills one only for its CQE).  Inline: the CQE (out
 * of line, sim_outst_retire_cqe) is the rare part, most entries of a chain
 * being unsignaled. */
void sim_outst_retire_cqe(struct sim_qp *qp, const struct sim_outst *o, sim_time_t t);
static inline void sim_outst_retire(struct sim_qp *qp, const struct sim_outst *o)
{
	struct sim_sq *sq = &qp->sq;
	sim_time_t t = o->done_at > o->ready_at ? o->done_at : o->ready_at;

	if (t > sq->done_t)
		sq->done_t = t;
	if (o->read_like && t > sq->rdone_t)
		sq->rdone_t = t;
	if (o->signaled)
		sim_outst_retire_cqe(qp, o, t);
}
void sim_requester_rx(struct sim_qp *qp, struct sim_pkt *p);
void sim_requester_rnr_resend(struct sim_qp *qp);
/* Sends a request for the outstanding entry @os (keeps it for an RNR resend:
 * lent while it waits in this device's own inbox, else a copy), with
 * os->rnr_able set when the request consumes a receive. */
int sim_send_request(struct sim_qp *qp, struct sim_outst *os, struct sim_pkt *p);

/* sim_responder.c */
void sim_responder_rx(struct sim_qp *qp, struct sim_pkt *p);
bool sim_readjob_step(struct sim_dev *dev, struct sim_readjob *j);
void sim_readjob_free(struct sim_dev *dev, struct sim_readjob *j);
void sim_readjobs_free(struct sim_dev *dev);

/* sim_sched.c */
/* Up to @max_steps scheduling steps (0: until nothing is runnable); returns
 * how many ran (fewer than @max_steps: nothing is runnable). */
uint64_t sim_sched_steps(struct sim_dev *dev, uint64_t max_steps);
void sim_unpark_all(struct sim_dev *dev);
/* Grows the scheduler's dirty list and heap to dev->qps_cap QPs (0 or
 * -ENOMEM). */
int sim_sched_resize(struct sim_dev *dev, uint32_t old_cap);
/* @qp goes away: drops it from the scheduler. */
void sim_sched_forget(struct sim_qp *qp);
/* For tests, between runs (takes dev->lock): asks every queue that is not
 * waiting to be evaluated whether it is runnable and from when, and
 * compares with what the scheduler keeps (heap membership, start time).
 * 0; -ESTALE: queue *@bad_qpn changed without a wake; -EPROTO: the heap or
 * the dirty list is broken.  Asking has no side effects when they agree. */
int sim_sched_check(struct sim_dev *dev, uint32_t *bad_qpn);
/* The CQ produced a CQE: parked waiters whose count it reached may run
 * (@all: the CQ goes away, every waiter runs). */
void sim_sched_wake_waiters(struct sim_cq *cq, bool all);
/* Something that may change whether @qp's send queue is runnable, or from
 * when, happened: the scheduler re-evaluates it before its next pick.  A
 * queue's cached ready time is trusted until then, so every such change
 * must wake it. */
static inline void sim_sched_wake(struct sim_qp *qp)
{
	if (!qp->dirty) {
		qp->dirty = true;
		qp->dev->dirty[qp->dev->ndirty++] = qp;
	}
}
/* The common case of a CQE's wake-up, in line (no call): @cq's one waiter,
 * whose count the new CQE reached, wakes and leaves the list (what
 * sim_sched_wake_waiters does for it).  Returns false, changing nothing,
 * for any other list. */
static inline bool sim_sched_wake_lone(struct sim_cq *cq)
{
	struct sim_dev *dev = cq->dev;
	struct sim_qp *qp;
	uint32_t slot;
	sim_time_t t;

	if (cq->nwaiters != 1)
		return false;
	slot = cq->waiters[0];
	qp = slot < dev->qps_cap ? dev->qps[slot] : NULL;
	if (!qp || !sim_cq_reached(cq, qp->sq.hd.w.wait_en.index & 0xffffffu, &t))
		return false;
	if (qp->wait_cqn == cq->cqn)
		qp->wait_cqn = 0;
	sim_sched_wake(qp);
	cq->nwaiters = 0;
	return true;
}

/* sim_thread.c */
int sim_thread_start(struct sim_dev *dev);
int sim_thread_stop(struct sim_dev *dev);
void sim_thread_wake(struct sim_dev *dev);

/* helpers */
/* @i modulo @cap for @i < 2 * @cap (ring index arithmetic without a
 * division: head < cap and offset <= cap). */
static inline uint32_t sim_wrap(uint32_t i, uint32_t cap)
{
	return i >= cap ? i - cap : i;
}
/* The outstanding entry @i places after the oldest (@i <= os_cnt): os_cap is
 * a power of two (sim_qp_create sizes it), so the ring wraps by mask. */
static inline struct sim_outst *sim_outst_at(const struct sim_sq *sq, uint32_t i)
{
	return &sq->os[(sq->os_head + i) & (sq->os_cap - 1)];
}
/* The entry the next push takes, not yet counted, with what its completion
 * reads (sim_outst_retire) cleared (the caller has checked there is room:
 * sim_sq_ready). */
static inline struct sim_outst *sim_outst_next(struct sim_qp *qp)
{
	struct sim_sq *sq = &qp->sq;
	struct sim_outst *o = sim_outst_at(sq, sq->os_cnt);

	o->done = o->read_like = false;
	o->byte_count = 0;
	o->done_at = 0;
	return o;
}
/* Clears what a request and its answer fill in entry @o. */
static inline void sim_outst_clear_req(struct sim_outst *o)
{
	o->sent = o->rnr_able = false;
	o->syndrome = 0;
	o->nsge = 0;
	o->psn = 0;
	o->req = NULL;
	o->req_lent = false;
}
/* Takes the next outstanding entry of @qp's send queue, all of its state
 * cleared. */
static inline struct sim_outst *sim_outst_push(struct sim_qp *qp)
{
	struct sim_outst *o = sim_outst_next(qp);

	sim_outst_clear_req(o);
	qp->sq.os_cnt++;
	return o;
}
/* Extends a 16-bit wire counter to 32 bits around @cur (forward only). */
static inline uint32_t sim_extend16(uint32_t cur, uint32_t v16)
{
	uint32_t d = (v16 - cur) & 0xffffu;

	return d < 0x8000u ? cur + d : cur;
}

/* How far the send queue may be fetched (absolute BB counter).  A managed
 * queue runs up to the later of its SEND_EN index and its last doorbell:
 * SEND_EN is not bounded by the doorbell record, which drivers never write
 * for a managed queue (rule send-en-past-doorbell-record), and a doorbell
 * starts a managed queue like any other (rule managed-started-by-doorbell;
 * drivers simply never ring one). */
static inline uint32_t sim_qp_sq_limit(const struct sim_qp *qp)
{
	return qp->sq.limit;
}
/* Every change of sq->pi or sq->en (doorbell, SEND_EN, reset) recomputes
 * the limit here, where the rule is. */
static inline void sim_sq_set_limit(struct sim_qp *qp)
{
	struct sim_sq *sq = &qp->sq;

	if (!(qp->flags & SIM_QP_MANAGED_SEND))
		sq->limit = sq->pi;
	else
		sq->limit = (int32_t)(sq->en - sq->pi) > 0 ? sq->en : sq->pi;
}
/* Records in @f (its bytes already copied) and in the per-BB fetch records
 * the fetch at @t of the WQE of @nbb BBs at BB counter @fetch (first BB at
 * @src in the ring). */
static inline void sim_sq_fetched(struct sim_sq *sq, struct sim_fetched *f, uint32_t fetch,
                                  const uint8_t *src, unsigned nbb, sim_time_t t,
                                  enum sim_order order, uint64_t wseq)
{
	f->counter = fetch;
	f->mem = src;
	f->nbb = (uint16_t)nbb;
	f->order = order;
	f->fetched_at = t;
	f->wseq = wseq;
	f->hazard = false;
	for (unsigned b = 0; b < nbb; b++)
		sq->bbf[(fetch + b) & (sq->nbb - 1)] = (struct sim_bb_fetch){.t = t, .ctr = fetch};
}
static inline void sim_sq_fetch(struct sim_qp *qp, sim_time_t t, enum sim_order first_order)
{
	uint32_t limit;

	if (qp->state != SIM_QPS_RTS)
		return;
	limit = sim_qp_sq_limit(qp);
	if ((int32_t)(limit - qp->sq.fetch) <= 0)
		return; /* nothing posted / enabled beyond what was fetched */
	sim_sq_fetch_upto(qp, t, first_order, limit);
}
/* How far receives may be consumed (absolute receive counter). */
static inline uint32_t sim_qp_rq_limit(struct sim_qp *qp)
{
	struct sim_rq *rq = &qp->rq;

	rq->pi = sim_extend16(rq->pi, load_be32_shared(&qp->dbrec[0]) & 0xffffu);
	if (!(qp->flags & SIM_QP_MANAGED_RECV))
		return rq->pi;
	if (qp->flags & SIM_QP_IGNORE_RQ_OVERFLOW)
		return rq->en;
	return (int32_t)(rq->en - rq->pi) < 0 ? rq->en : rq->pi;
}
/* ---- checked memory access (sim_mr.c owns the MR table) ---------------- */

/* Slot of @key's probe sequence start (keys are random: a multiplicative
 * mix only spreads the low bits a small table uses). */
static inline uint32_t sim_mr_hash(uint32_t key, uint32_t cap)
{
	return (uint32_t)((key * 0x9e3779b1u) >> 7) & (cap - 1);
}

static inline struct sim_mr *sim_mr_by_key(struct sim_dev *dev, uint32_t key)
{
	uint32_t i;

	/* the table exists from sim_pd_init on */
	for (i = sim_mr_hash(key, dev->mrs_cap); dev->mrs[i]; i = (i + 1) & (dev->mrs_cap - 1))
		if (dev->mrs[i]->key == key)
			return dev->mrs[i];
	return NULL;
}

/* [addr, addr + len) inside [base, base + size), overflow-safe for any
 * 64-bit addr/len.  An @addr below @base wraps the offset past @size (an
 * MR's own range does not wrap: sim_mr_reg_pd refuses it), and an end past
 * 2^64 carries: without a carry, off + len <= size says both off <= size
 * and len <= size - off. */
static inline bool sim_range_in(uint64_t base, uint64_t size, uint64_t addr, uint64_t len)
{
	uint64_t end;

	if (__builtin_add_overflow(addr - base, len, &end))
		return false;
	return end <= size;
}

static inline bool sim_mr_in_bounds(const struct sim_mr *mr, uint64_t addr, uint64_t len)
{
	return sim_range_in((uint64_t)(uintptr_t)mr->addr, mr->len, addr, len);
}

/* sim_mr.c: fills @qp's memo of @use with the MR @key names if it is of
 * @qp's protection domain (IBA 10.6.3.1: an L_Key / R_Key is valid only
 * for QPs of the MR's PD) with the rights @use needs; false (memo
 * unchanged) if there is none. */
bool sim_mr_memo_fill(struct sim_qp *qp, enum sim_mr_use use, uint32_t key);

/* The key must name an MR granted to @qp for @use (above; a key the QP
 * used last for it is not looked up again), with the range in bounds. */
static inline int sim_mr_check(struct sim_qp *qp, enum sim_mr_use use, uint32_t key, uint64_t addr,
                               uint64_t len, uint8_t **host, uint8_t synd)
{
	const struct sim_mr_memo *m = &qp->mr_memo[use];

	if (len == 0) {
		*host = NULL;
		return 0;
	}
	if (__builtin_expect(m->key != key, 0) && !sim_mr_memo_fill(qp, use, key))
		return synd;
	if (!sim_range_in(m->base, m->len, addr, len))
		return synd;
	*host = (uint8_t *)(uintptr_t)addr;
	return 0;
}

/* Local access: a bad lkey, another PD, missing LOCAL_WRITE (for a
 * scatter) or bounds -> local protection error. */
static inline int sim_mr_check_local(struct sim_qp *qp, enum sim_mr_use use, uint32_t lkey,
                                     uint64_t addr, uint64_t len, uint8_t **host)
{
	return sim_mr_check(qp, use, lkey, addr, len, host, PRISM_SYND_LOCAL_PROT_ERR);
}

/* Remote access (responder @qp): the QP must grant the operation's right
 * (IBA 9.7.5.1.3 / 10.6.3.1: qp_access_flags, mlx5 QPC rre/rwe/rae) and
 * the rkey must pass the checks above; anything wrong -> remote access
 * error. */
static inline int sim_mr_check_remote(struct sim_qp *qp, enum sim_mr_use use, uint32_t rkey,
                                      uint64_t addr, uint64_t len, uint8_t **host)
{
	unsigned need = sim_mr_use_need(use);

	if ((qp->access & need) != need)
		return PRISM_SYND_REMOTE_ACCESS_ERR;
	return sim_mr_check(qp, use, rkey, addr, len, host, PRISM_SYND_REMOTE_ACCESS_ERR);
}

/* The packet paths (sim_wire.c): free list, packet queue, sending. */
#include "sim/sim_pkt.h"

#endif /* PRISM_SIM_INTERNAL_H */
