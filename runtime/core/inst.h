/* SPDX-License-Identifier: MIT */
/*
 * core/inst.h - one program instance per client connection.
 *
 * Owns: struct core_inst: the backend CQs and QPs a connection's copy of a
 * program runs on, the memory registrations of its queue buffers and
 * scratch area, posting invocation windows (templates + relocations), CQ
 * polling that detects completed invocations and error CQEs, CPU re-arm
 * (recycled loops' lap queues included: they advance by the laps run), and
 * teardown.
 *
 * Must not: talk to the client (server.c / the transport do), decide when a
 * connection is torn down (the server does), or hand out queue-memory keys.
 */
#ifndef CORE_INST_H
#define CORE_INST_H

#include "core/program.h"

/* Where the connection's client lives and where its responses go. */
struct core_peer {
	uint32_t node;      /* sim node id of the client's device */
	uint32_t qpn;       /* the client's QP */
	uint64_t resp_addr; /* response buffer: depth slots of response_size bytes */
	uint32_t resp_rkey;
	uint32_t resp_slots;  /* slots the client's buffer has */
	uint32_t resp_stride; /* bytes per slot (>= the program's response_size) */
	uint16_t lid;         /* RDMA NIC: where the client's QP is (setup exchange) */
	uint8_t mtu;
	uint8_t gid[16];
};

struct core_inst_cq {
	struct core_be_cq *cq;
	struct core_cq_info info;
	uint64_t consumed;     /* CQEs polled so far (absolute) */
	uint16_t last_counter; /* WQE counter and QP of the latest CQE (exit detection) */
	uint32_t last_qpn;
	/* The ring registered for local reads when a wait-on-data of the
	 * program watches it (the request gate: cqe-addr / cq-lkey); a slot
	 * is marked invalid before the window that watches it is posted. */
	struct core_be_mr *ring_mr;
	struct core_mr_info ring_keys;
};

struct core_inst_qp {
	struct core_be_qp *qp;
	struct core_qp_info info;
	struct core_be_mr *mr; /* the queue buffer, for QBUF_* relocations */
	struct core_mr_info keys;
};

/* The connection's own registration of a program region (in its PD). */
struct core_inst_region {
	struct core_be_mr *mr;
	struct core_mr_info keys;
};

struct core_inst {
	struct prism_program *prog;
	struct prism_device *dev;
	unsigned shard;         /* the device shard every queue of it lives on */
	struct core_be_dev *be; /* that shard's backend device */
	uint32_t id;            /* connection number (for messages) */
	struct core_peer peer;
	struct core_be_pd *pd;            /* every QP and MR below is in it */
	struct core_inst_region *regions; /* [n_regions] */
	struct core_inst_cq *cqs;
	struct core_inst_qp *qps;
	void *scratch;
	size_t scratch_len;
	struct core_be_mr *scratch_mr;
	struct core_mr_info scratch_keys;
	unsigned depth;    /* invocations posted ahead */
	unsigned inflight; /* invocations a client may send ahead (the welcome's) */
	/* Invocations must not overlap on the NIC (a window holds WQEs back
	 * behind a barrier, which the next window's entry enable would
	 * release): windows are posted ahead, but each one's entry is rung only
	 * once the invocation before it completed (ring_doorbells), whatever
	 * the client sends. */
	bool serial;
	bool cpu_rearm; /* false: the program recycles its queues on the NIC */
	struct {
		uint64_t *sq, *rq; /* [n_queues] counter bases of the next window to post */
		uint64_t *cq;      /* [n_cqs] */
	} base;
	uint64_t *sq_pi, *rq_pi; /* [n_queues] producer counters posted so far */
	uint64_t *inv_start;     /* [n_cqs] CQEs consumed when the running invocation began */
	uint32_t *lap_start;     /* [n_queues] recycled queues: lap counter as posted */
	bool laps;               /* some queue recycles (a loop's laps; depth 1) */
	uint64_t posted;         /* invocation windows posted (next k) */
	uint64_t completed;      /* invocations finished */
	int error;               /* first error (negative) */
	size_t mem_bytes;        /* queue + CQ + scratch bytes of this instance */
	/* The templates with every relocation whose value is the same in all
	 * windows (QPNs, CQNs, keys, region and scratch addresses) applied once:
	 * [n_queues] pointers to that queue's SQ templates then its RQ
	 * templates, back to back in template order.  A window copies them and
	 * applies only the relocations in per_window (counts, ring addresses,
	 * the client's response slot). */
	uint8_t **image;
	uint32_t *per_window; /* relocation indices */
	uint32_t n_per_window;
};

/*
 * Create the instance's CQs and QPs on device shard @shard, connect the
 * conn queue to @peer and every worker to itself, post the first
 * invocation windows and ring the doorbells.  @want_depth 0: as many as
 * the rings allow (at most 16).
 */
int core_inst_create(struct prism_program *prog, unsigned shard, uint32_t id,
                     const struct core_peer *peer, enum prism_rearm rearm, unsigned want_depth,
                     struct core_inst **out);

/* Connect the conn queue to the client (after the peer's QPN is known). */
int core_inst_connect(struct core_inst *in, const struct core_peer *peer);

/* QPN of the conn queue (what the client connects to). */
uint32_t core_inst_conn_qpn(const struct core_inst *in);

/*
 * Poll the CQs: count completed invocations, re-post windows (CPU re-arm).
 * Returns the number of invocations completed by this call, or a negative
 * code once an error CQE was seen (the instance is then dead: destroy it).
 */
int core_inst_poll(struct core_inst *in);
/*
 * Ask for a completion event (carrying @ctx) on every CQ of @in: after a
 * poll, so that an idle connection costs nothing until its next CQE.
 * False when the backend has no events (the caller polls every time).
 */
bool core_inst_arm(struct core_inst *in, void *ctx);
/* Disarm every CQ of @in and drop its queued events (before @in's owner is
 * freed: no later event may carry a pointer to it). */
void core_inst_disarm(struct core_inst *in);

void core_inst_destroy(struct core_inst *in);

/* inst_prot.c: the instance's protection domain and region registrations
 * (create: 0 or negative; destroy: after every QP and MR of it is gone),
 * the remote rights queue @q of @o serves, and the teardown order. */
int core_inst_prot_create(struct core_inst *in);
void core_inst_prot_destroy(struct core_inst *in);
unsigned core_inst_queue_access(const struct chainobj *o, uint32_t q);
void core_inst_quiesce(struct core_inst *in);

#endif /* CORE_INST_H */
