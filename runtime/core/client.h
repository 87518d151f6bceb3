/* SPDX-License-Identifier: MIT */
/*
 * core/client.h - the client object behind prism_client (internal).
 *
 * Owns: struct prism_client: the client's own RC QP and CQs on its device,
 * the registered argument and response buffers, the connection description
 * the server sent (entry points, parameter layout), the in-flight window.
 * Must not: be used outside runtime/core and the runtime's tests.
 */
#ifndef CORE_CLIENT_H
#define CORE_CLIENT_H

struct net_oob_params;
struct sim_channel;

#include "core/proto.h"
#include "core/server.h"

#define CORE_CLIENT_SLOTS      16u              /* invocations in flight at most */
#define CORE_CLIENT_SLOT_BYTES CHAINOBJ_MAX_MSG /* response slot size (>= response_size) */
#define CORE_CLIENT_SQ_BBS     64u
#define CORE_CLIENT_CQE        64u

/*
 * How the waits of a client on a threaded device ended (core_client_net_
 * wait_cqe; read by the runtime's tests): the NIC thread writes the
 * completion that ends a call, so a wait that slept its whole bound with
 * that completion already written is a lost wake-up.
 */
struct core_client_waits {
	uint64_t link;    /* packets read off the link, or its failure */
	uint64_t channel; /* the response CQ's completion channel fired */
	uint64_t bound;   /* neither: slept their bound (or a signal ended them) */
	uint64_t missed;  /* of those, ones whose response CQ held a CQE meanwhile */
};

struct prism_client {
	struct prism_device *dev;
	unsigned shard;            /* the device shard our queues live on */
	struct prism_server *srv;  /* in-process: the server we poll when it has no thread */
	uint32_t conn_id;          /* in-process: our connection on that server (ids start at 1) */
	struct net_link *link;     /* over TCP or a ring pair */
	bool link_polled;          /* this thread reads the link's socket or ring */
	unsigned net_wait_us;      /* the first wait of the next core_client_wait */
	uint64_t parks_seen;       /* the device's RNR park count at the last look */
	struct sim_channel *cq_ch; /* polled link, threaded device: rcq's completion channel */
	struct core_client_waits waits; /* cq_ch: how its waits ended */
	enum prism_transport transport; /* asked for (opts, PRISM_TRANSPORT) */
	struct net_ring *ring;          /* fetched, until attached */
	bool on_ring;                   /* the link is a ring pair */
	int net_fd; /* setup socket until attached (kept open beside a ring), else -1 */
	struct net_oob_params *net_peer; /* the server's setup answer until attached */
	int link_down;
	struct core_welcome w;
	uint32_t peer_node;
	struct core_qp_peer peer_addr; /* the server QP's lid / gid / mtu (over TCP) */
	int timeout_ms;

	struct core_be_cq *scq, *rcq;
	struct core_cq_info scq_info, rcq_info;
	struct core_be_qp *qp;
	struct core_qp_info qp_info;
	uint8_t *msg;  /* CORE_CLIENT_SLOTS * CHAINOBJ_MAX_MSG */
	uint8_t *resp; /* CORE_CLIENT_SLOTS * CORE_CLIENT_SLOT_BYTES */
	struct core_be_mr *msg_mr, *resp_mr;
	struct core_mr_info msg_keys, resp_keys;

	uint64_t sq_pi; /* BBs posted on our send queue */
	uint64_t rq_pi; /* receives posted */
	uint64_t scq_ci, rcq_ci;
	uint64_t sent;                                  /* invocations sent */
	uint64_t answered;                              /* responses received */
	struct prism_call *inflight[CORE_CLIENT_SLOTS]; /* by k % depth; NULL after a timeout */
	uint64_t t_sent[CORE_CLIENT_SLOTS];             /* device virtual time at send (ns) */
	int error;
};

/* Create the QP, CQs and buffers and fill @h (program name, QP, buffers). */
int core_client_setup(struct prism_client *cl, const char *program, struct core_hello *h);
/* Connect our QP to the server's conn queue described in cl->w; post receives. */
int core_client_finish(struct prism_client *cl);

/* Send raw message bytes as invocation k (tests: wrong sizes, hostile args). */
int core_client_send_raw(struct prism_client *cl, const void *msg, size_t len,
                         struct prism_call *call);
/* Wait until call @k answered or failed (deadline in ms since epoch of CLOCK_MONOTONIC). */
int core_client_wait(struct prism_client *cl, uint64_t k, int timeout_ms);

/* Transport glue (client_net.c). */
int core_client_net_connect(struct prism_client *cl, const char *addr, struct core_hello *h);
int core_client_net_attach(struct prism_client *cl);
void core_client_net_kick(struct prism_client *cl);
/* Polled link: how many times a send of our device parked on an RNR NAK so far. */
uint64_t core_client_net_parks(struct prism_client *cl);
/* An RDMA NIC's connection: has the server closed the setup socket (its
 * process died)?  One poll(2), without waiting. */
bool core_client_net_peer_gone(struct prism_client *cl);
/* Polled link: wait up to @timeout_us for the server's packets and hand them
 * to the device (net_link_poll). */
int core_client_net_wait(struct prism_client *cl, int timeout_us);
/* Polled link on a threaded device (cl->cq_ch): arm the response CQ, then
 * wait as core_client_net_wait does and also until the NIC thread writes a
 * CQE to it (or wrote one the last poll did not consume); counted in
 * cl->waits. */
int core_client_net_wait_cqe(struct prism_client *cl, int timeout_us);
/* Polled link: hold ACKs for the next request (@hold), or send them at once. */
void core_client_net_hold_acks(struct prism_client *cl, bool hold);
void core_client_net_close(struct prism_client *cl);

#endif /* CORE_CLIENT_H */
