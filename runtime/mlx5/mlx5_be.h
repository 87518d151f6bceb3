/* SPDX-License-Identifier: MIT */
/*
 * mlx5/mlx5_be.h - the mlx5 hardware backend's internal interface: its
 * objects and the files that implement core_mlx5_backend.
 *
 *   mlx5_caps.c       QUERY_HCA_CAP: cross-channel, wait-on-data, CQ overrun
 *                     ignore, atomic operations, sizes and 8-byte endianness
 *   mlx5_dev.c        open (mlx5dv_open_device with DEVX), PD, UAR, EQ,
 *                     memory regions, close; the operations table
 *   mlx5_queue.c      CQs and QPs as DEVX objects over umem buffers
 *   mlx5_qp_state.c   RST->INIT->RTR->RTS, ERR, RESET (DEVX modify commands)
 *   mlx5_post.c       doorbells: record + UAR for unmanaged queues only
 *   mlx5_event.c      completion events: a DEVX event channel, each CQ
 *                     subscribed to it, the CQ arm doorbell
 *   mlx5_probe.c      the firmware profile, by posting a NOP with a wrong index
 *
 * Every rdma-core call goes through mlx5_glue(); every PRM field through
 * the table of mlx5_prm.h.  Prefix mlx5_be_ (docs/naming.md).
 */
#ifndef PRISM_MLX5_BE_H
#define PRISM_MLX5_BE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <prism/prism.h>

#include "core/backend.h"
#include "mlx5/mlx5_glue.h"
#include "mlx5/mlx5_prm.h"

struct mlx5_be_caps {
	bool cd;           /* cmd_hca_cap.cd: cross-channel (WAIT / SEND_EN / cd_* QPs) */
	bool wait_on_data; /* cmd_hca_cap.wait_on_data: WAIT opmod 1 */
	bool wait_on_time;
	bool cq_oi; /* cmd_hca_cap.cq_oi: CQs may ignore overrun */
	bool atomic;
	uint8_t log_max_qp_sz, log_max_cq_sz;
	bool have_atomic_caps;   /* the atomic capability block answered */
	uint16_t atomic_ops;     /* MLX5_PRM_ATOMIC_OPS_* */
	uint16_t atomic_size_qp; /* bit n: 2^n-byte operands on RC QPs */
	uint8_t endianness_mode; /* 1: 8-byte atomics in host byte order */
};

/* Read both capability blocks; @why gets the reason on failure. */
int mlx5_be_query_caps(const struct mlx5_glue *g, struct ibv_context *ctx,
                       struct mlx5_be_caps *caps, char *why, size_t why_len);
/* Decode the blocks (also used by the emulator's tests). */
void mlx5_be_caps_decode(const uint8_t *general, const uint8_t *atomic, bool have_atomic,
                         struct mlx5_be_caps *caps);

/* What the firmware-profile probe found (mlx5_probe.c). */
enum mlx5_be_fw { MLX5_BE_FW_UNKNOWN, MLX5_BE_FW_STRICT, MLX5_BE_FW_RELAXED };

struct mlx5_be_dev {
	const struct mlx5_glue *g;
	char name[64];
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint32_t pdn;
	struct mlx5dv_devx_uar *uar;
	uint32_t eqn;
	uint8_t port;
	int gid_index;
	struct ibv_port_attr port_attr;
	union ibv_gid gid;
	struct mlx5_be_caps caps;
	bool relaxed_fw;    /* what the configuration says (used if the probe is inconclusive) */
	enum mlx5_be_fw fw; /* what the probe found */
	void (*log)(void *ctx, int level, const char *msg);
	void *log_ctx;
	/* Completion events (mlx5_event.c): the channel every CQ of this
	 * context is subscribed to (NULL: none, CQs polled), and the CQs by
	 * event cookie. */
	struct mlx5dv_devx_event_channel *evch;
	pthread_mutex_t ev_lock;
	struct mlx5_be_cq **ev_cqs; /* [slot]; NULL: free */
	uint32_t ev_cap, ev_gen;
};

struct mlx5_be_pd {
	struct mlx5_be_dev *dev;
	struct ibv_pd *pd;
	uint32_t pdn;
};

struct mlx5_be_mr {
	struct mlx5_be_dev *dev;
	struct ibv_mr *mr;
};

/* Queue memory registered as one umem: the ring(s), then the doorbell record. */
struct mlx5_be_umem_buf {
	void *mem;
	size_t len;    /* whole allocation (pages) */
	size_t dbr_at; /* doorbell record offset */
	struct mlx5dv_devx_umem *umem;
};

struct mlx5_be_cq {
	struct mlx5_be_dev *dev;
	struct mlx5_be_umem_buf ub;
	struct mlx5dv_devx_obj *obj;
	uint32_t cqn, ncqe;
	/* events (dev->ev_lock): cookie = ev_gen << 32 | ev_slot */
	uint32_t ev_slot, ev_gen;
	uint32_t arm_sn;  /* + 1 per event taken (libmlx5 mlx5_cq_event) */
	uint32_t pi_seen; /* CQEs known written (arming for the next CQE only) */
	void *ev_ctx;     /* the armed owner; NULL: disarmed */
	bool soft_armed;  /* no event channel: hand ev_ctx out at the next take */
};

struct mlx5_be_qp {
	struct mlx5_be_dev *dev;
	struct mlx5_be_umem_buf ub;
	struct mlx5dv_devx_obj *obj;
	uint32_t qpn;
	unsigned flags;  /* enum core_qp_flags */
	unsigned access; /* CORE_ACCESS_REMOTE_*: rre / rwe / rae at RST2INIT */
	uint32_t sq_bbs, rq_wqes, rq_stride;
	size_t sq_offset;
	enum core_qp_state state;
	uint32_t sq_rung; /* send counter up to which the doorbell was rung */
};

/* @level: enum prism_log_level (through the device's log callback). */
void mlx5_be_log(struct mlx5_be_dev *dev, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Run a DEVX command's output check: 0, or -EIO after logging status/syndrome. */
int mlx5_be_cmd_status(struct mlx5_be_dev *dev, const char *what, int rc, const void *out,
                       size_t outlen);

int mlx5_be_create_cq(struct core_be_dev *dev, const struct core_cq_attr *attr,
                      struct core_be_cq **out, struct core_cq_info *info);
int mlx5_be_destroy_cq(struct core_be_cq *cq);
int mlx5_be_create_qp(struct core_be_dev *dev, const struct core_qp_attr *attr,
                      struct core_be_qp **out, struct core_qp_info *info);
int mlx5_be_destroy_qp(struct core_be_qp *qp);
int mlx5_be_modify_qp(struct core_be_qp *qp, enum core_qp_state state,
                      const struct core_qp_peer *peer);
int mlx5_be_ring_sq(struct core_be_qp *qp);
int mlx5_be_ring_rq(struct core_be_qp *qp);
enum mlx5_be_fw mlx5_be_probe_fw(struct mlx5_be_dev *d);

/* mlx5_event.c */
int mlx5_be_events_open(struct mlx5_be_dev *d);
void mlx5_be_events_close(struct mlx5_be_dev *d);
/* Subscribe @cq (created) to the channel; forget it before destroying. */
int mlx5_be_events_add_cq(struct mlx5_be_cq *cq);
void mlx5_be_events_del_cq(struct mlx5_be_cq *cq);
void mlx5_be_arm_cq(struct core_be_cq *cq, void *ctx, bool check_consumed);
unsigned mlx5_be_take_events(struct core_be_dev *dev, void **ctx, unsigned max);
const char *mlx5_be_fw_name(enum mlx5_be_fw fw);

#endif /* PRISM_MLX5_BE_H */
