/* SPDX-License-Identifier: MIT */
/*
 * core/backend.h - the NIC backend operations table.
 *
 * Owns: the small set of operations runtime/core needs from a NIC, as a
 * struct of function pointers.  The sim's adapter implements it
 * (runtime/core/sim_backend.c, on sim/sim.h), and so does the mlx5 backend
 * (libibverbs + mlx5dv + DEVX, runtime/mlx5/).
 *
 * Contract: the queue buffer, doorbell records and CQ rings a backend hands
 * out are host memory that the caller writes and reads exactly as with mlx5
 * (receive queue at offset 0 of the QP buffer, send queue after it; doorbell
 * record word 0 = receive counter, word 1 = send counter, be32; CQ doorbell
 * record word 0 = consumer index; 64-byte CQEs with an owner bit).  WQE and
 * CQE bytes are produced and parsed with prism/wqe.h.
 *
 * Must not: expose backend structures (handles are opaque), print, exit.
 * Every operation returns 0 or a negative error code.
 */
#ifndef PRISM_CORE_BACKEND_H
#define PRISM_CORE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <prism/wqe.h>

struct sim_observer;

/* Opaque handles; each backend defines what they point to. */
struct core_be_dev;
struct core_be_pd;
struct core_be_mr;
struct core_be_cq;
struct core_be_qp;

/* Access flags: the values of enum ibv_access_flags. */
enum core_access {
	CORE_ACCESS_LOCAL_WRITE = 1u << 0,
	CORE_ACCESS_REMOTE_WRITE = 1u << 1,
	CORE_ACCESS_REMOTE_READ = 1u << 2,
	CORE_ACCESS_REMOTE_ATOMIC = 1u << 3,
};

enum core_qp_state {
	CORE_QPS_RESET,
	CORE_QPS_INIT,
	CORE_QPS_RTR,
	CORE_QPS_RTS,
	CORE_QPS_ERR,
};

enum core_qp_flags {
	CORE_QP_CROSS_CHANNEL = 1u << 0,
	CORE_QP_MANAGED_SEND = 1u << 1,
	CORE_QP_MANAGED_RECV = 1u << 2,
	/* 1u << 3 unused: nothing bounds SEND_EN by the send doorbell record */
	CORE_QP_IGNORE_RQ_OVERFLOW = 1u << 4,
};

/* Size-prefixed options: .sz = sizeof; zero fields mean defaults. */
struct core_dev_attr {
	size_t sz;
	const char *name;               /* backend-specific device name ("mlx5_0"); NULL = first */
	uint64_t seed;                  /* sim: scheduler seed */
	bool relaxed_fw;                /* sim: relaxed firmware profile; mlx5: expected setting */
	int hazard_policy;              /* sim: enum sim_hazard_policy */
	bool chaos;                     /* sim: chaos mode */
	bool threaded;                  /* sim: run NIC threads in the background */
	uint32_t node;                  /* sim: node id on the wire */
	const struct sim_observer *obs; /* sim: cost model and trace hooks (sim/sim.h) */
	void (*log)(void *ctx, int level, const char *msg);
	void *log_ctx;
};

struct core_mr_info {
	uint32_t lkey, rkey;
};

struct core_cq_attr {
	uint32_t ncqe; /* power of two */
	bool ignore_overrun;
};

struct core_cq_info {
	uint32_t cqn;
	void *buf; /* ncqe 64-byte CQEs */
	uint32_t ncqe;
	volatile uint32_t *dbrec; /* [0]: be32 consumer index (24 bits) */
};

/* The CQE at consumer count @ci once the NIC wrote it (a valid opcode, the
 * owner bit software's for this pass of the ring), else NULL.  op_own is
 * read with acquire order: the body it returns is complete. */
static inline const uint8_t *core_cq_peek(const struct core_cq_info *cq, uint64_t ci)
{
	const uint8_t *raw =
	    (const uint8_t *)cq->buf + (size_t)(ci & (cq->ncqe - 1)) * PRISM_CQE_BYTES;
	uint8_t op_own = __atomic_load_n(&raw[PRISM_CQE_BYTES - 1], __ATOMIC_ACQUIRE);

	if ((op_own >> 4) == PRISM_CQE_INVALID ||
	    !prism_cqe_sw_owned(op_own, (uint32_t)ci, cq->ncqe))
		return NULL;
	return raw;
}

struct core_qp_attr {
	struct core_be_cq *send_cq, *recv_cq;
	uint32_t sq_bbs;       /* send queue size in 64-byte basic blocks, 2^n */
	uint32_t rq_wqes;      /* receive WQEs, 2^n, may be 0 */
	uint32_t rq_max_sge;   /* data segments per receive WQE */
	unsigned flags;        /* enum core_qp_flags */
	struct core_be_pd *pd; /* NULL: the device's default PD */
	/* Remote operations its responder serves: CORE_ACCESS_REMOTE_* (set
	 * as qp_access_flags at INIT; mlx5 QPC rre/rwe/rae).  0: SENDs only. */
	unsigned access;
};

struct core_qp_info {
	uint32_t qpn;
	void *buf; /* receive queue at 0, send queue at sq_offset */
	size_t buf_len;
	size_t sq_offset;
	uint32_t sq_bbs;
	uint32_t rq_wqes;
	uint32_t rq_stride;       /* bytes per receive WQE */
	volatile uint32_t *dbrec; /* [0] receive counter, [1] send counter (be32) */
};

/* Where a QP connects (RTR) and how it retries (RTS). */
struct core_qp_peer {
	uint32_t node; /* sim: peer's node id; mlx5: unused (use gid/lid) */
	uint32_t qpn;
	uint16_t lid;
	uint8_t gid[16];
	uint32_t psn;
	uint8_t rnr_retry; /* 7 = infinite */
	uint8_t min_rnr_timer;
	uint8_t retry_cnt;
	uint8_t mtu; /* path MTU, enum ibv_mtu (1..5); 0: the port's own */
};

/* What a device can run (program loading refuses what it lacks). */
struct core_caps {
	bool cross_channel;   /* WAIT / SEND_EN / RECV_EN, managed queues */
	bool wait_on_data;    /* WAIT opmod 1 */
	bool relaxed_fw;      /* control-segment WQE index / QPN checks off */
	bool atomic_8b_host;  /* 8-byte atomics in host byte order */
	uint8_t masked_sizes; /* masked atomics on 4/8/16/32-byte operands: those bits */
	char fw_note[96];     /* where relaxed_fw comes from */
};

struct core_backend_ops {
	const char *name; /* "sim", "mlx5" */

	int (*open)(const struct core_dev_attr *attr, struct core_be_dev **out);
	void (*close)(struct core_be_dev *dev);

	/* Protection domains: an MR's keys work only for QPs of its PD. */
	int (*alloc_pd)(struct core_be_dev *dev, struct core_be_pd **out);
	int (*dealloc_pd)(struct core_be_pd *pd);

	/* @pd NULL: the device's default PD. */
	int (*reg_mr)(struct core_be_dev *dev, struct core_be_pd *pd, void *addr, size_t len,
	              unsigned access, struct core_be_mr **out, struct core_mr_info *info);
	int (*dereg_mr)(struct core_be_mr *mr);

	int (*create_cq)(struct core_be_dev *dev, const struct core_cq_attr *attr,
	                 struct core_be_cq **out, struct core_cq_info *info);
	int (*destroy_cq)(struct core_be_cq *cq);

	int (*create_qp)(struct core_be_dev *dev, const struct core_qp_attr *attr,
	                 struct core_be_qp **out, struct core_qp_info *info);
	int (*destroy_qp)(struct core_be_qp *qp);
	/* RESET->INIT->RTR (peer used)->RTS (retry counts used), any->ERR, any->RESET. */
	int (*modify_qp)(struct core_be_qp *qp, enum core_qp_state state,
	                 const struct core_qp_peer *peer);

	/* The caller updated dbrec[1] after writing WQEs: start the send queue. */
	int (*ring_sq)(struct core_be_qp *qp);
	/* The caller updated dbrec[0] after writing receive WQEs. */
	int (*ring_rq)(struct core_be_qp *qp);

	/*
	 * Make progress without background threads (sim deterministic mode:
	 * run until idle); a backend whose NIC runs by itself sets it NULL.
	 */
	int (*progress)(struct core_be_dev *dev);

	/* Device clock in ns (sim: latest virtual time; mlx5: NULL). */
	uint64_t (*now_ns)(struct core_be_dev *dev);

	/*
	 * Completion events (ibv_req_notify_cq + a completion channel; NULL:
	 * none, the caller polls every CQ).  arm_cq: the next CQE of @cq
	 * queues an event carrying @ctx; with @check_consumed, CQEs already
	 * past the consumer index (dbrec[0]) queue it at once; a NULL @ctx
	 * disarms @cq and drops an event of it still queued, so that no later
	 * take_events hands out the ctx of an owner being torn down.
	 * take_events: up to @max queued events' ctx; how many.
	 */
	void (*arm_cq)(struct core_be_cq *cq, void *ctx, bool check_consumed);
	unsigned (*take_events)(struct core_be_dev *dev, void **ctx, unsigned max);

	/* This device's own address (lid, gid) for a peer on the same device
	 * (mlx5: the port's LID and GID; NULL where node ids suffice). */
	int (*port_addr)(struct core_be_dev *dev, struct core_qp_peer *self);

	/* What the device can run. */
	int (*caps)(struct core_be_dev *dev, struct core_caps *out);
};

/* The sim backend's table (runtime/core/sim_backend.c, on sim/sim.h). */
extern const struct core_backend_ops core_sim_backend;
struct sim_dev;
struct sim_qp;
struct sim_cq;
/* The sim objects behind the sim backend's handles (for the net transport
 * and a client's completion channel). */
struct sim_dev *sim_backend_dev(struct core_be_dev *dev);
struct sim_qp *sim_backend_qp(struct core_be_qp *qp);
struct sim_cq *sim_backend_cq(struct core_be_cq *cq);

/* The mlx5 backend's table (runtime/mlx5/mlx5_dev.c): rdma-core, DEVX. */
extern const struct core_backend_ops core_mlx5_backend;
/* Names (at most 63 bytes) of the RDMA devices the mlx5 backend can open,
 * at most @cap of them; returns how many were written. */
int core_mlx5_device_names(char (*names)[64], int cap);
bool core_mlx5_device_exists(const char *name);
/* NULL, or what PRISM_MLX5_GLUE did to the mlx5 backend's rdma-core calls
 * (answered by a test emulator, or the object it names unusable). */
const char *core_mlx5_note(void);

#endif /* PRISM_CORE_BACKEND_H */
