/* SPDX-License-Identifier: MIT */
/*
 * sim/sim.h - the software RNIC ("sim"): its API.
 *
 * Owns: the sim's objects (device, memory regions, CQs, RC queue pairs), the
 * QP state machine entry points, doorbells, the two run modes (deterministic
 * and threaded), the wire between QPs (a packet-level interface that an
 * in-process fabric or a network transport implements), and the observer
 * interface (cost callback for the virtual clock, trace events, hazards).
 *
 * Memory model (docs/contracts.md contract 2): queue buffers, doorbell records and CQ
 * rings are ordinary host memory that the caller writes and reads exactly as
 * with mlx5: receive queue at offset 0 of the QP buffer, send queue after it;
 * doorbell record word 0 = receive counter, word 1 = send counter (be32, low
 * 16 bits); CQ doorbell record word 0 = consumer index (24 bits); CQEs are
 * 64 bytes with an owner bit.  The sim fetches WQE bytes from that memory and
 * parses them with the codec (prism/wqe.h) only.
 *
 * Must not: print, exit, or touch memory outside a registered region or the
 * queue/CQ memory it owns.  Internal structures live in sim_internal.h.
 *
 * Counters: send-queue counters (doorbell, SEND_EN index, ctrl wqe_index, CQE
 * wqe_counter) count 64-byte basic blocks, as mlx5 does; receive counters
 * count receive WQEs.  The sim extends the 16-bit wire values to 32 bits.
 * Virtual time is in picoseconds.
 */
#ifndef PRISM_SIM_H
#define PRISM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <prism/wqe.h>

struct sim_dev;
struct sim_pd;
struct sim_mr;
struct sim_cq;
struct sim_qp;
struct sim_pkt;

typedef uint64_t sim_time_t; /* virtual time, picoseconds */
#define SIM_US(x) ((sim_time_t)((x)*1000000.0))

/* Error codes: negative errno values, plus the sim's own range. */
enum sim_err {
	SIM_E_BASE = 4200,
	SIM_E_HAZARD = -(SIM_E_BASE + 1), /* a hazard under the fail policy */
	SIM_E_STATE = -(SIM_E_BASE + 2),  /* object in the wrong state */
	SIM_E_BUSY = -(SIM_E_BASE + 3),   /* threaded runner active / objects in use */
	SIM_E_LIMIT = -(SIM_E_BASE + 4),  /* step budget exhausted before idle */
};
const char *sim_strerror(int err);

/* ---- observer: cost model, trace, hazards ------------------------------ */

/* How a WQE was ordered behind its predecessors (RedN section 3.1, Fig. 2). */
enum sim_order {
	SIM_ORDER_HOST,       /* first WQE fetched after a host doorbell on an idle queue */
	SIM_ORDER_WQ,         /* prefetched behind the previous WQE (work-queue order) */
	SIM_ORDER_COMPLETION, /* started behind a WAIT (completion order) */
	SIM_ORDER_DOORBELL,   /* fetched on demand after an ENABLE (WAIT+ENABLE) */
};

struct sim_cost_query {
	uint32_t qpn;
	uint32_t wqe_counter; /* absolute, in basic blocks */
	uint8_t opcode;       /* enum prism_opcode */
	uint8_t opmod;
	enum prism_op_class cls;
	enum sim_order order;
	uint32_t bytes;              /* payload bytes moved (0 for ordering verbs) */
	bool loopback;               /* peer QP on the same device */
	uint32_t ds;                 /* WQE size in 16-byte units */
	uint8_t fence;               /* enum prism_fence */
	const struct prism_wqe *wqe; /* the decoded WQE (as fetched) */
};

/*
 * busy: how long the WQE occupies its processing unit (the next WQE of the
 * queue starts no earlier); latency: from start until the operation's effect
 * (response, completion) is visible.  latency >= busy.
 */
struct sim_cost {
	sim_time_t busy;
	sim_time_t latency;
};

/* Who last wrote a range of queue memory. */
enum sim_writer_kind {
	SIM_WRITER_HOST,   /* not written by the engine since the fetch (CPU) */
	SIM_WRITER_SQ,     /* a send WQE of a local QP (READ/atomic response) */
	SIM_WRITER_RQ,     /* a receive WQE's scatter (SEND arrived) */
	SIM_WRITER_REMOTE, /* a remote request (WRITE/atomic) executed here */
};

struct sim_writer {
	enum sim_writer_kind kind;
	uint32_t qpn;         /* local QP that performed the write */
	uint32_t wqe_counter; /* its send (BBs) or receive (entries) counter */
	uint8_t opcode;       /* send opcode of the writing WQE */
	uint32_t src_node;    /* REMOTE: requester's node and QP and WQE counter */
	uint32_t src_qpn;
	uint32_t src_wqe_counter;
	sim_time_t issued_at; /* when the writing operation was issued */
};

/*
 * A hazard: bytes of a fetched WQE changed after the fetch, either before it
 * executed (seen when it executes) or by a write that was issued before the
 * fetch and landed after it (seen when the write lands: the patch and the
 * fetch were unordered, so what ran depended on timing).
 */
struct sim_hazard {
	uint32_t qpn;         /* queue whose WQE changed */
	uint32_t wqe_counter; /* the changed WQE */
	uint32_t offset;      /* first changed byte, relative to the WQE start */
	uint32_t len;         /* from the first to the last changed byte */
	struct sim_writer writer;
	sim_time_t fetched_at;
	sim_time_t executed_at; /* when it executed, or when the racing write landed */
	bool executed;          /* the stale copy had already executed */
};

enum sim_event_kind {
#define SIM_EVENT_KINDS(X)                                                                         \
	X(DOORBELL)     /* host rang a send doorbell: counter = new producer */                    \
	X(FETCH)        /* a WQE's bytes were copied into the NIC */                               \
	X(EXEC_START)   /* execution began: t = start */                                           \
	X(EXEC_END)     /* execution finished on the PU: t = start + busy */                       \
	X(PATCH)        /* bytes of queue memory written by the engine (writer, offset, len) */    \
	X(HAZARD)       /* a fetched WQE changed before it executed (hazard) */                    \
	X(CQE)          /* a CQE was written: cqn, syndrome */                                     \
	X(QP_STATE)     /* a QP changed state */                                                   \
	X(PKT_TX)       /* a packet left a QP */                                                   \
	X(PKT_RX)       /* a packet was processed by a QP */                                       \
	X(WAIT_BLOCK)   /* a WAIT / wait-on-data found its condition false */                      \
	X(WAIT_RELEASE) /* ... and later true: t = release time */                                 \
	X(READ_LINE)    /* responder copied one cache line of a READ (offset, len) */
#define SIM_X_ENUM(n) SIM_EV_##n,
	SIM_EVENT_KINDS(SIM_X_ENUM)
#undef SIM_X_ENUM
};
const char *sim_event_name(enum sim_event_kind k);

struct sim_event {
	enum sim_event_kind kind;
	sim_time_t t;     /* virtual time of the event */
	sim_time_t t_end; /* EXEC_START/END: start + busy; otherwise = t */
	uint32_t qpn;
	uint32_t wqe_counter; /* send counter (BBs) or receive counter */
	uint8_t opcode;
	enum sim_order order;
	uint32_t bytes;
	/* PATCH: target queue's qpn and WQE (the fetched WQE covering the
	 * bytes, else the counter the slot holds next), send-queue byte offset
	 * and length; HAZARD: the hazard. */
	uint32_t target_qpn;
	uint32_t target_wqe_counter;
	uint32_t offset, len;
	struct sim_writer writer;
	const struct sim_hazard *hazard;
	/* CQE */
	uint32_t cqn;
	uint8_t cqe_opcode, syndrome;
	/* QP_STATE */
	int old_state, new_state;
	/* READ_LINE: host address of the line (an observer may write memory here,
	 * between lines, to model a concurrent CPU writer) */
	const void *addr;
	/* FETCH / EXEC_START: the decoded WQE as fetched (NULL if undecodable) */
	const struct prism_wqe *wqe;
	/* PKT_TX / PKT_RX */
	const struct sim_pkt *pkt;
};

struct sim_observer {
	void *ctx;
	/* NULL: the flat default cost (sim_default_cost). */
	void (*cost)(void *ctx, const struct sim_cost_query *q, struct sim_cost *out);
	/* NULL: no events.  Called synchronously from the engine. */
	void (*event)(void *ctx, const struct sim_event *ev);
};

void sim_default_cost(void *ctx, const struct sim_cost_query *q, struct sim_cost *out);

/* ---- device ------------------------------------------------------------ */

enum sim_fw_profile {
	SIM_FW_STRICT,  /* ctrl wqe_index and qpn must match (stock firmware) */
	SIM_FW_RELAXED, /* checks off (RedN's firmware change) */
};

enum sim_hazard_policy {
	SIM_HAZARD_OFF,  /* no detection */
	SIM_HAZARD_WARN, /* report (event + log), execute the fetched bytes */
	SIM_HAZARD_FAIL, /* report, then fail the QP (LOCAL_QP_OP_ERR) */
};

enum sim_sched_policy {
	SIM_SCHED_VTIME,  /* earliest virtual time first, ties by the seeded PRNG */
	SIM_SCHED_RANDOM, /* any runnable unit, picked by the seeded PRNG */
};

enum sim_log_level { SIM_LOG_ERROR, SIM_LOG_WARN, SIM_LOG_INFO, SIM_LOG_DEBUG };
typedef void (*sim_log_fn)(void *ctx, enum sim_log_level lvl, const char *msg);

/* Size-prefixed: set .sz = sizeof(struct sim_dev_opts); zero = defaults. */
struct sim_dev_opts {
	size_t sz;
	uint64_t seed;
	enum sim_fw_profile fw;
	enum sim_hazard_policy hazard;
	enum sim_sched_policy sched;
	uint32_t prefetch_bbs; /* max BBs fetched ahead per send queue; 0 = 16 (at most 4096) */
	bool chaos;            /* READs served line by line, in seeded random order */
	uint32_t node;         /* this device's node id on the wire */
	const struct sim_observer *obs;
	sim_log_fn log;
	void *log_ctx;
};

int sim_dev_open(const struct sim_dev_opts *opts, struct sim_dev **out);
/* Stops the threaded runner, destroys every QP, CQ and MR still alive. */
void sim_dev_close(struct sim_dev *dev);
uint32_t sim_dev_node(const struct sim_dev *dev);
enum sim_fw_profile sim_dev_fw(const struct sim_dev *dev);
/* Do NIC threads run it (sim_dev_start), or does sim_dev_run? */
bool sim_dev_threaded(struct sim_dev *dev);

struct sim_stats {
	uint64_t wqes_executed;
	uint64_t fetches;
	uint64_t hazards;
	uint64_t cqes;
	uint64_t error_cqes;
	uint64_t pkts;
	uint64_t steps;
	sim_time_t vtime_max; /* latest virtual time any unit reached */
	uint64_t tx_dropped;  /* refused by the transport and not kept: a QP over
	                       * SIM_QP_TXQ_MAX (then failed), or no QP left */
};
void sim_dev_stats(struct sim_dev *dev, struct sim_stats *out);
/* The latest virtual time any unit reached (sim_stats.vtime_max), alone. */
sim_time_t sim_dev_now(struct sim_dev *dev);
/* Most recent hazard (false if none so far). */
bool sim_dev_last_hazard(struct sim_dev *dev, struct sim_hazard *out);

/* ---- memory regions ---------------------------------------------------- */

enum sim_access {
	SIM_ACCESS_LOCAL_WRITE = 1u << 0, /* values of enum ibv_access_flags */
	SIM_ACCESS_REMOTE_WRITE = 1u << 1,
	SIM_ACCESS_REMOTE_READ = 1u << 2,
	SIM_ACCESS_REMOTE_ATOMIC = 1u << 3,
	/* every remote right (a QP's access: loopback queues, test fixtures) */
	SIM_ACCESS_REMOTE_ALL =
	    SIM_ACCESS_REMOTE_WRITE | SIM_ACCESS_REMOTE_READ | SIM_ACCESS_REMOTE_ATOMIC,
};

/*
 * Protection domains (IBA 10.2.3, ibv_alloc_pd): an MR's keys are honoured
 * only by QPs of the same PD, for their own WQEs' local accesses and for
 * the requests their responder serves.  Every device has a default PD,
 * which sim_mr_reg and a QP created without one use.
 */
int sim_pd_alloc(struct sim_dev *dev, struct sim_pd **out);
int sim_pd_dealloc(struct sim_pd *pd); /* SIM_E_BUSY while an MR or QP is in it */
uint32_t sim_pd_num(const struct sim_pd *pd);

/* Keys are drawn from getrandom(2): unrelated to the MR's slot or to the
 * keys before it (lkey == rkey, never 0 or PRISM_INVALID_LKEY). */
int sim_mr_reg(struct sim_dev *dev, void *addr, size_t len, unsigned access, struct sim_mr **out);
int sim_mr_reg_pd(struct sim_pd *pd, void *addr, size_t len, unsigned access, struct sim_mr **out);
int sim_mr_dereg(struct sim_mr *mr);
uint32_t sim_mr_lkey(const struct sim_mr *mr);
uint32_t sim_mr_rkey(const struct sim_mr *mr);

/* ---- completion queues ------------------------------------------------- */

struct sim_cq_attr {
	uint32_t ncqe;       /* power of two */
	bool ignore_overrun; /* IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN / cqc.oi */
	/* Optional: the ring (ncqe x 64 bytes) and doorbell record (8 bytes)
	 * in the caller's memory, as a device uses the buffers a driver gave it
	 * (the mlx5 emulator's umem).  The sim neither initialises nor frees
	 * them; the caller keeps them alive until sim_cq_destroy. */
	void *ext_buf;
	volatile uint32_t *ext_dbrec;
};

int sim_cq_create(struct sim_dev *dev, const struct sim_cq_attr *attr, struct sim_cq **out);
int sim_cq_destroy(struct sim_cq *cq); /* SIM_E_BUSY while a QP uses it */
uint32_t sim_cq_num(const struct sim_cq *cq);
void *sim_cq_buf(const struct sim_cq *cq);                /* ncqe * 64 bytes */
volatile uint32_t *sim_cq_dbrec(const struct sim_cq *cq); /* [0] = be32 consumer index */
uint32_t sim_cq_ncqe(const struct sim_cq *cq);
/* Completions the CQ has produced so far (what WAIT compares against). */
uint32_t sim_cq_count(struct sim_cq *cq);
/* Is the CQ in error (an overrun without IGNORE_OVERRUN)?  It then writes
 * no further CQE (rule cq-overrun-errors-cq). */
bool sim_cq_in_error(struct sim_cq *cq);
/*
 * Completion events, as ibv_req_notify_cq and a completion channel: the
 * next CQE written to an armed CQ disarms it and queues it, with @ctx, on
 * its device's event list.  With @check_consumed, a CQ that already holds
 * CQEs past its consumer index (dbrec[0]) is queued at once instead (so a
 * consumer that polled, then arms, never misses a CQE written between).
 * A NULL @ctx disarms the CQ and takes an event of it still queued off the
 * list.  Thread-safe.
 */
void sim_cq_arm(struct sim_cq *cq, void *ctx, bool check_consumed);
/* Arm as an mlx5 CQ arm doorbell does: queued at once if the CQ has
 * produced CQEs past consumer counter @ci (24 bits), else armed. */
void sim_cq_arm_ci(struct sim_cq *cq, void *ctx, uint32_t ci);
/* Take up to @max queued events (their ctx) off @dev's list; how many.  A
 * destroyed CQ's event is dropped.  Thread-safe. */
unsigned sim_dev_take_events(struct sim_dev *dev, void **ctx, unsigned max);
/*
 * Completion channels, as ibv_create_comp_channel: a CQ attached to one
 * (sim_cq_set_channel; NULL: back to its device's list) queues its events
 * there instead, and the channel's fd (an eventfd; poll it for POLLIN) is
 * readable exactly while events are queued, whichever thread wrote the
 * CQE (a NIC thread included).  A consumer arms with check_consumed after
 * it polled the CQ, then sleeps on the fd: a CQE written between makes
 * the fd readable at once.  sim_channel_take_events takes the events (the
 * fd is unreadable again once none is left).  A channel outlives its
 * CQs: destroying it returns SIM_E_BUSY while CQs are attached; it may
 * outlive its device (it then holds nothing).  Thread-safe.
 */
struct sim_channel;
int sim_channel_create(struct sim_dev *dev, struct sim_channel **out);
int sim_channel_destroy(struct sim_channel *ch);
int sim_channel_fd(const struct sim_channel *ch);
unsigned sim_channel_take_events(struct sim_channel *ch, void **ctx, unsigned max);
int sim_cq_set_channel(struct sim_cq *cq, struct sim_channel *ch);

/* ---- queue pairs ------------------------------------------------------- */

enum sim_qp_state { SIM_QPS_RESET, SIM_QPS_INIT, SIM_QPS_RTR, SIM_QPS_RTS, SIM_QPS_ERR };
const char *sim_qp_state_name(int s);

enum sim_qp_flags {
	SIM_QP_CROSS_CHANNEL = 1u << 0, /* may post SEND_EN / RECV_EN (WAIT: any QP) */
	SIM_QP_MANAGED_SEND = 1u << 1,  /* only SEND_EN starts the send queue */
	SIM_QP_MANAGED_RECV = 1u << 2,  /* only RECV_EN makes receives usable */
	/* 1u << 3 is unused: no NIC bounds SEND_EN by the send doorbell record
	 * (IGNORE_SQ_OVERFLOW is a libmlx5 post-time check, not a QP setting) */
	SIM_QP_IGNORE_RQ_OVERFLOW = 1u << 4, /* RECV_EN is not bounded by dbrec[0] */
};

struct sim_qp_attr {
	struct sim_cq *send_cq, *recv_cq;
	uint32_t sq_bbs;     /* send queue size in 64-byte BBs, power of two */
	uint32_t rq_wqes;    /* receive WQEs, power of two (0: no receive queue) */
	uint32_t rq_max_sge; /* data segments per receive WQE, 1..16, rounded up to 2^n */
	unsigned flags;      /* enum sim_qp_flags */
	struct sim_pd *pd;   /* NULL: the device's default PD */
	/* The remote operations its responder serves (qp_access_flags, mlx5
	 * QPC rre/rwe/rae): SIM_ACCESS_REMOTE_READ/WRITE/ATOMIC.  0 (as an
	 * ibv QP's default): SENDs only; an inbound READ, WRITE or atomic is
	 * NAKed with a remote access error. */
	unsigned access;
	/* Optional: queue memory (receive queue then send queue, as laid out
	 * above) and doorbell record (8 bytes) in the caller's memory, which the
	 * sim neither clears nor frees (see sim_cq_attr.ext_buf). */
	void *ext_buf;
	volatile uint32_t *ext_dbrec;
};

int sim_qp_create(struct sim_dev *dev, const struct sim_qp_attr *attr, struct sim_qp **out);
int sim_qp_destroy(struct sim_qp *qp);
uint32_t sim_qp_num(const struct sim_qp *qp);
void *sim_qp_buf(const struct sim_qp *qp); /* receive queue at 0, send queue after */
size_t sim_qp_buf_len(const struct sim_qp *qp);
void *sim_qp_sq(const struct sim_qp *qp);                 /* = buf + rq_wqes * rq_stride */
uint32_t sim_qp_rq_stride(const struct sim_qp *qp);       /* bytes per receive WQE */
volatile uint32_t *sim_qp_dbrec(const struct sim_qp *qp); /* [0] recv, [1] send, be32 */
int sim_qp_state(const struct sim_qp *qp);

/* Transition arguments (ibv_modify_qp); fields beyond the state are read on
 * the transitions that take them (RTR: peer; RTS: retry counts). */
struct sim_qp_mod {
	int state;             /* enum sim_qp_state */
	uint32_t peer_node;    /* RTR */
	uint32_t peer_qpn;     /* RTR */
	uint8_t rnr_retry;     /* RTS: 0..7, 7 = infinite */
	uint8_t min_rnr_timer; /* RTR: IB encoding 0..31 (0 = 655.36 ms) */
	uint8_t retry_cnt;     /* RTS: transport retries (the sim's wire is lossless) */
	uint32_t sq_psn;       /* RTS: first PSN this QP sends (24 bits) */
	uint32_t rq_psn;       /* RTR: first PSN expected from the peer */
	/* INIT: replace the remote rights the responder serves (qp_access_flags
	 * at RST2INIT, mlx5 QPC rre/rwe/rae; the mlx5 emulator sets them here). */
	bool set_access;
	unsigned access;
};
int sim_qp_modify(struct sim_qp *qp, const struct sim_qp_mod *mod);

/* The host wrote WQEs and updated dbrec[1]: the send queue may fetch up to it. */
int sim_qp_ring_sq_doorbell(struct sim_qp *qp);
/* The host posted receives (dbrec[0]).  The sim reads dbrec[0] whenever it
 * needs a receive; this call wakes requesters parked on an infinite RNR
 * retry (rnr_retry 7), which otherwise wait for the next outside event. */
int sim_qp_ring_rq_doorbell(struct sim_qp *qp);

/* ---- run modes --------------------------------------------------------- */

/*
 * Deterministic mode: execute on the caller's thread until no unit is
 * runnable (WQEs, packets, READ jobs), or @max_steps steps (0 = no limit,
 * returns SIM_E_LIMIT when hit).  Same seed, same inputs: same execution.
 * Returns 0, SIM_E_HAZARD (fail policy and a hazard happened) or an error.
 */
int sim_dev_run(struct sim_dev *dev, uint64_t max_steps);
/* Threaded mode: a NIC thread runs the scheduler in the background. */
int sim_dev_start(struct sim_dev *dev);
int sim_dev_stop(struct sim_dev *dev);
/* Threaded mode: the CPU-time clock of the NIC thread (for clock_gettime),
 * so that a caller can charge the engine's work to the core that did it.
 * -EINVAL when @dev has no NIC thread running. */
int sim_dev_thread_cpu_clock(struct sim_dev *dev, clockid_t *clock);

/* ---- the wire ---------------------------------------------------------- */

enum sim_pkt_kind {
#define SIM_PKT_KINDS(X)                                                                           \
	X(SEND) /* request: payload, consumes a receive */                                         \
	X(SEND_IMM)                                                                                \
	X(WRITE)       /* request: raddr, rkey, payload */                                         \
	X(WRITE_IMM)   /* also consumes a receive */                                               \
	X(READ_REQ)    /* request: raddr, rkey, len */                                             \
	X(ATOMIC_REQ)  /* request: opcode/opmod, raddr, rkey, operands */                          \
	X(ACK)         /* response: WQE done */                                                    \
	X(NAK)         /* response: syndrome (RNR, remote access, invalid request...) */           \
	X(READ_RESP)   /* response: payload */                                                     \
	X(ATOMIC_RESP) /* response: original value */
#define SIM_X_ENUM(n) SIM_PKT_##n,
	SIM_PKT_KINDS(SIM_X_ENUM)
#undef SIM_X_ENUM
};
const char *sim_pkt_kind_name(enum sim_pkt_kind k);

#define SIM_PKT_SE     (1u << 0) /* solicited event */
#define SIM_PKT_ACKREQ (1u << 1) /* ack requested */

/* One packet = one whole message ("ONLY" opcodes).  Requests and their
 * responses carry the requester's PSN. */
struct sim_pkt {
	enum sim_pkt_kind kind;
	uint8_t flags; /* SIM_PKT_* */
	uint32_t src_node, src_qpn;
	uint32_t dst_node, dst_qpn;
	uint32_t psn;         /* 24 bits: one per request message */
	uint32_t msn;         /* responses: responder's message sequence number */
	uint32_t wqe_counter; /* requester's WQE counter (attribution only; may be 0) */
	sim_time_t t;         /* virtual arrival time at the destination */
	uint8_t syndrome;     /* NAK: enum prism_cqe_syndrome */
	uint8_t rnr_timer;    /* RNR NAK: responder's min_rnr_timer (IB encoding) */
	uint8_t opcode;       /* ATOMIC_REQ: ATOMIC_CS/FA/MASKED_*; requests: WQE opcode */
	uint8_t opmod;
	uint8_t atomic_size; /* 4, 8, 16, 32 */
	uint32_t imm;        /* host order */
	uint64_t raddr;
	uint32_t rkey;
	uint32_t len; /* READ_REQ: bytes requested */
	/* ATOMIC_REQ: operands in wire byte order (big-endian) for 4/16/32 B,
	 * host order for 8 B (the host-endian mode), as the codec decodes them. */
	uint8_t swap[32], compare[32], swap_mask[32], compare_mask[32];
	uint32_t payload_len;
	uint8_t *payload; /* SEND/WRITE/READ_RESP/ATOMIC_RESP bytes */
};

/*
 * A transport: @xmit takes a packet for another node (it must copy what it
 * keeps; the payload pointer lives only for the call).  Packets to the
 * device's own node never reach @xmit (loopback).  -EAGAIN: back-pressure,
 * the device keeps the packet and retries on its next step or after
 * sim_dev_kick(); -EPIPE: the link is gone, the sending QP fails.
 */
struct sim_wire_ops {
	int (*xmit)(void *ctx, const struct sim_pkt *pkt);
};
void sim_dev_set_wire(struct sim_dev *dev, const struct sim_wire_ops *ops, void *ctx);
/* A transport hands the device a packet that arrived for it (copied).
 * Thread-safe: enqueues and wakes the NIC thread in threaded mode.  -EAGAIN:
 * the device's ingress is full (SIM_INGRESS_MAX packets wait); offer the
 * packet again later. */
int sim_dev_deliver(struct sim_dev *dev, const struct sim_pkt *pkt);
/* The transport can take packets again after -EAGAIN.  Thread-safe. */
void sim_dev_kick(struct sim_dev *dev);
/* How many times a send parked on an infinite RNR retry (it waits for
 * outside progress: a delivery or sim_dev_kick()); a count that moved tells
 * a transport's owner to keep an RNR timer running.  Thread-safe. */
uint64_t sim_dev_rnr_parks(struct sim_dev *dev);
/* The link under @qp died.  Requests in flight complete with @syndrome
 * (e.g. TRANSPORT_RETRY_EXC), @qp moves to ERR and the rest is flushed, as
 * when a NIC's retries run out.  With no request in flight @qp stays as it
 * is (a NIC notices a dead peer only when it sends): its owner tears it
 * down, and a request posted meanwhile fails at the wire. */
int sim_qp_link_down(struct sim_qp *qp, uint8_t syndrome);

/* In-process fabric: several devices in one process, and a joint run. */
struct sim_fabric;
int sim_fabric_create(struct sim_fabric **out);
void sim_fabric_destroy(struct sim_fabric *f);
/* Attaches @dev (its node id must be unique in the fabric). */
int sim_fabric_attach(struct sim_fabric *f, struct sim_dev *dev);
/* Runs every attached device in deterministic mode until all are idle. */
int sim_fabric_run(struct sim_fabric *f, uint64_t max_steps);

#endif /* PRISM_SIM_H */
