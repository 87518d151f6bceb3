/* SPDX-License-Identifier: MIT */
/*
 * tests/net/net_peer.h - one end of a cross-process RDMA connection, for the
 * net tests, the multi-host tool and the benchmark: a threaded sim device
 * with its TCP transport, and RC QPs with a registered buffer each, driven
 * the way a host driver drives mlx5 (WQEs through the codec into queue
 * memory, doorbell records, owner-bit CQ polling).
 *
 * Owns: struct np_dev, struct np_qp and their host-side counters.
 * Must not: reach into the sim engine or the transport internals (sim.h,
 * net.h, core/backend.h only); use cmocka (the tool and the benchmark link
 * it too).
 * Every function returns 0 or a negative errno-style code.
 */
#ifndef PRISM_TESTS_NET_PEER_H
#define PRISM_TESTS_NET_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <prism/wqe.h>

#include "core/backend.h"
#include "net/net.h"
#include "net/net_frame.h"
#include "sim/sim.h"

/* A sim device with its TCP transport; or (np_dev_open_backend) a device of
 * a backend of the runtime's operations table (mlx5: real or emulated),
 * whose packets travel on its own fabric. */
struct np_dev {
	struct sim_dev *dev;
	struct net_transport *t;
	const struct core_backend_ops *ops;
	struct core_be_dev *be;
};

struct np_cq {
	struct sim_cq *cq;
	struct core_be_cq *bcq;
	uint8_t *buf; /* the ring */
	volatile uint32_t *dbrec;
	uint32_t n;
	uint32_t ci;
};

struct np_qp {
	struct np_dev *d;
	struct np_cq scq, rcq;
	struct sim_qp *qp;
	uint32_t qpn, psn;
	uint8_t *sq;
	uint32_t sq_bbs, sq_pi;
	uint32_t rq_n, rq_pi;
	uint8_t *mem; /* registered buffer: local and remote read/write/atomic */
	size_t mem_len;
	struct sim_mr *mr;
	uint32_t lkey, rkey;
	uint8_t rnr_retry; /* used at RTS; np_qp_open sets 7 (infinite) */
	int sndbuf;        /* SO_SNDBUF for the link socket (0 = kernel default) */
	struct net_link *link;
	struct net_oob_params peer; /* what the other side sent */
	int down_err;               /* set by the link's down callback */
	char down_why[256];
	/* the queue memory (either kind), and the backend's objects */
	uint8_t *rq;
	uint32_t rq_stride;
	volatile uint32_t *dbrec;
	struct core_be_qp *bqp;
	struct core_be_mr *bmr;
	int fd; /* backend device: the setup socket, open while connected (-1: none) */
};

/* A threaded sim device with node id @node and its transport. */
int np_dev_open(struct np_dev *d, uint32_t node);
/* ... with transport options (NULL = defaults). */
int np_dev_open_opts(struct np_dev *d, uint32_t node, const struct net_transport_opts *opts);
void np_dev_close(struct np_dev *d);
/* Device @name of backend @ops (e.g. core_mlx5_backend, "mlx5_2"). */
int np_dev_open_backend(struct np_dev *d, const struct core_backend_ops *ops, const char *name);

/* A QP with a @mem_len-byte buffer (page aligned, zeroed). */
int np_qp_open(struct np_qp *q, struct np_dev *d, size_t mem_len);
void np_qp_close(struct np_qp *q);
/* What this QP tells its peer: node, QPN, PSN, and its buffer as region 0. */
void np_qp_params(const struct np_qp *q, struct net_oob_params *out);
/* RTR/RTS against @peer, then carry the QP over @fd. */
int np_qp_connect(struct np_qp *q, int fd, const struct net_oob_params *peer);
/* The same over a ring pair (owned from now on; the sim only). */
int np_qp_connect_ring(struct np_qp *q, struct net_ring *ring, const struct net_oob_params *peer);

/* Client: connect to @host:@port and bring @q up. */
int np_qp_dial(struct np_qp *q, const char *host, int port);
/* Server: accept one client on @l and bring @q up. */
int np_qp_answer(struct np_qp *q, struct net_listener *l);

/* Post one WQE (counters, ctrl ids and doorbell record handled) and ring. */
int np_post(struct np_qp *q, struct prism_wqe *w);
/* Builders; local addresses are offsets into q->mem, remote ones absolute. */
int np_post_send(struct np_qp *q, uint8_t opcode, size_t loff, uint32_t len, uint32_t imm);
int np_post_rdma(struct np_qp *q, uint8_t opcode, uint64_t raddr, uint32_t rkey, size_t loff,
                 uint32_t len, uint32_t imm);
int np_post_atomic(struct np_qp *q, uint8_t opcode, uint64_t raddr, uint32_t rkey,
                   uint64_t swap_add, uint64_t compare, size_t loff);
int np_post_recv(struct np_qp *q, size_t loff, uint32_t len);

/* 1 and *@out when a CQE is there, 0 when not. */
int np_poll(struct np_cq *c, struct prism_cqe *out);
/* Wait up to @timeout_ms for a CQE: 0, or -ETIMEDOUT. */
int np_wait(struct np_cq *c, struct prism_cqe *out, int timeout_ms);

#endif /* PRISM_TESTS_NET_PEER_H */
