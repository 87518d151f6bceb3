/* SPDX-License-Identifier: MIT */
/*
 * tests/hw/hw_common.h - the harness of the hardware tests: one RDMA device,
 * a protection domain, a loopback RC QP pair connected to each other, memory
 * regions, and CQ polling with a timeout, behind one small API that posts
 * prism's decoded WQEs (struct prism_wqe) and returns decoded CQEs
 * (struct prism_cqe).
 *
 * Two posting paths, chosen per device:
 *   raw   (mlx5): the codec (prism/wqe.h) encodes the WQE, the bytes go
 *         straight into the real send queue found with mlx5dv_init_obj, the
 *         doorbell record and the UAR doorbell are written by hand, and CQEs
 *         are read from the CQ ring and decoded by the codec.  This is how a
 *         hardware test shows that the SAME BYTES the software NIC executes
 *         behave the same on a ConnectX.
 *   verbs (any device, rxe/siw included; or PRISM_HW_PATH=verbs): the WQE is
 *         translated into an ibv_send_wr and completions come from
 *         ibv_poll_cq, translated back (status -> mlx5 syndrome).
 *
 * Every test checks what it needs first and SKIPS (cmocka skip()) with a
 * printed reason when the machine cannot run it: no RDMA device, not an mlx5
 * device for raw WQE posting, a missing capability.
 *
 * Owns: device/PD/CQ/QP/MR lifetime for one test (everything hangs off
 * struct hw_env and is freed by hw_teardown).  Must not: pack WQE or CQE
 * bytes itself (the codec does), or assume a device exists.
 *
 * Environment:
 *   PRISM_HW_DEVICE      device name (default: the first one listed)
 *   PRISM_HW_PORT        port number (default 1)
 *   PRISM_HW_GID_INDEX   GID index for RoCE (default 0)
 *   PRISM_HW_PATH        "verbs" forces the verbs path on an mlx5 device
 *   PRISM_HW_TIMEOUT_MS  how long a poll waits for a CQE (default 2000)
 *   PRISM_HW_FW          "strict" (stock firmware, default) or "relaxed"
 *                        (after firmware-config/prism-fw relax)
 */
#ifndef PRISM_TESTS_HW_COMMON_H
#define PRISM_TESTS_HW_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include <prism/wqe.h>

enum hw_path {
	HW_PATH_RAW,   /* codec bytes into the mlx5 send queue */
	HW_PATH_VERBS, /* ibv_post_send / ibv_poll_cq */
};

/* What a test needs; hw_start() skips the test when the device lacks it. */
enum hw_need {
	HW_NEED_DEVICE = 0,       /* any RDMA device */
	HW_NEED_RAW = 1u << 0,    /* mlx5 raw WQE posting */
	HW_NEED_ATOMIC = 1u << 1, /* 8-byte CAS / FETCH_ADD in host-endian mode */
};

struct hw_cq {
	struct ibv_cq *cq;
	bool is_recv;        /* verbs path: errors here are responder errors */
	struct mlx5dv_cq dv; /* raw path */
	uint32_t ci;         /* raw path: consumer index */
};

struct hw_qp {
	struct hw_env *env;
	struct ibv_qp *qp;
	struct hw_cq scq, rcq;
	uint32_t qpn;
	uint32_t max_inline;  /* what ibv_create_qp granted */
	struct mlx5dv_qp dv;  /* raw path */
	uint32_t sq_pi;       /* producer counter in 64-byte basic blocks */
	uint32_t sq_ci;       /* BBs known complete: slots below sq_ci + ring size may be reused */
	uint32_t rq_pi;       /* receive producer counter, in WQEs */
	uint32_t last_bb;     /* first BB of the last posted WQE (its doorbell) */
	bool posted;          /* something posted since the last ring */
	struct ibv_mr *sq_mr; /* the send queue registered (hw_register_sq) */
	struct hw_verbs_queue *vq; /* verbs path: WRs posted but not yet rung */
};

/* Connection parameters of a pair (zero = default). */
struct hw_pair_opts {
	int rnr_retry;          /* requester's RNR retry count; default 7 (infinite) */
	int min_rnr_timer;      /* responder's RNR NAK timer code; default 1 */
	int retry_cnt;          /* transport retries; default 7 */
	bool rnr_set;           /* rnr_retry was given (0 is meaningful) */
	int cq_depth;           /* CQ entries asked for; default 256 */
	bool cq_ignore_overrun; /* IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN (cqc.oi) */
	int qp_access;          /* qp_access_flags at INIT when qp_access_set; default: all */
	bool qp_access_set;
};

/* Every access right (the harness's registrations and QPs). */
#define HW_ACCESS_ALL                                                                              \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |               \
	 IBV_ACCESS_REMOTE_ATOMIC)

#define HW_BUF_BYTES (64u * 1024u)

struct hw_env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr_ex attr;
	struct ibv_port_attr port;
	uint8_t port_num;
	int gid_index;
	union ibv_gid gid;
	char name[64];
	bool is_mlx5;
	bool devx;      /* opened with MLX5DV_CONTEXT_FLAGS_DEVX */
	int devx_errno; /* why not, when !devx on an mlx5 device */
	enum hw_path path;
	int timeout_ms;
	bool relaxed_fw;   /* PRISM_HW_FW=relaxed */
	struct hw_qp a, b; /* a loopback pair: a <-> b */
	bool have_pair;
	struct hw_qp c, d; /* a second pair (hw_second_pair) */
	bool have_pair2;
	struct hw_xqp *xq[4]; /* cross-channel QPs of this test (freed first) */
	unsigned n_xq;
	uint8_t *src, *dst; /* HW_BUF_BYTES each, page aligned, registered */
	struct ibv_mr *src_mr, *dst_mr;
	struct ibv_mr *extra_mr[8];
	unsigned n_extra_mr;
	char why[256]; /* skip reason from hw_setup, "" when usable */
};

/* cmocka fixtures: hw_setup opens the device or records why it cannot. */
int hw_setup(void **state);
int hw_teardown(void **state);

/*
 * First call of every test: skips (with the reason printed) unless the
 * device exists and has everything in @needs; then creates the loopback pair
 * with @opts (NULL for defaults) and the two registered buffers.
 */
struct hw_env *hw_start(void **state, unsigned needs, const struct hw_pair_opts *opts);

/* Prints "hw: skipped: <reason>" and skips the running test. */
void hw_print_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define HW_SKIP(...)                                                                               \
	do {                                                                                       \
		hw_print_skip(__VA_ARGS__);                                                        \
		skip();                                                                            \
	} while (0)

/* Destroys and re-creates the pair (a fresh pair after an error test). */
void hw_repair(struct hw_env *e, const struct hw_pair_opts *opts);
/* Creates the second loopback pair c <-> d (default options). */
void hw_second_pair(struct hw_env *e);
/* Creates @q (e->c or e->d only: the env frees them) in RESET. */
void hw_qp_new(struct hw_env *e, struct hw_qp *q);
/* One ibv_modify_qp transition to @to with the attributes the harness uses
 * (@peer: the remote QPN for RTR; @o may be NULL); 0 or an errno value. */
int hw_qp_modify(struct hw_env *e, struct hw_qp *q, enum ibv_qp_state to, uint32_t peer,
                 const struct hw_pair_opts *o);

/* A CQ polled raw (mlx5) or through verbs; hw_cq_destroy frees it. */
void hw_cq_create(struct hw_env *e, struct hw_cq *c, bool is_recv);
/* The same with @depth entries asked for and, if @ignore_overrun, created with
 * IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN (the test skips when the device refuses). */
void hw_cq_create_ex(struct hw_env *e, struct hw_cq *c, bool is_recv, int depth,
                     bool ignore_overrun);
void hw_cq_destroy(struct hw_cq *c);
/* A cross-channel QP with @roles owned by the env, or a skip with the
 * reason when the device cannot make one. */
struct hw_xqp *hw_xqp_new(struct hw_env *e, unsigned roles);

/* Registers @len bytes at @addr with @access; the env frees it. */
struct ibv_mr *hw_reg(struct hw_env *e, void *addr, size_t len, int access);
/* Registers the send queue of @q (raw path only) for local and remote
 * access: RECV scatter and READ may then rewrite posted WQEs (RedN). */
struct ibv_mr *hw_register_sq(struct hw_qp *q);
/* Address of the send-queue slot holding counter @counter (raw path). */
uint8_t *hw_sq_slot(struct hw_qp *q, uint32_t counter);

/*
 * Posts @w at the producer counter: fills ctrl.wqe_index and ctrl.qpn
 * unless @keep_ctrl, encodes with the codec (raw) or translates (verbs).
 * Returns the WQE's counter (BBs, as in a CQE's wqe_counter).  Fails the
 * test when the WQE cannot be posted; skips it when the verbs path has no
 * equivalent of the opcode.
 */
uint32_t hw_post_ex(struct hw_qp *q, struct prism_wqe *w, bool keep_ctrl);
static inline uint32_t hw_post(struct hw_qp *q, struct prism_wqe *w)
{
	return hw_post_ex(q, w, false);
}
/* Rings the send doorbell for everything posted since the last ring. */
void hw_ring(struct hw_qp *q);
/* Posts a receive WQE with @n scatter entries; returns its counter. */
uint32_t hw_post_recv(struct hw_qp *q, const struct prism_sge *sge, unsigned n);

/* 1 with a CQE in *out, 0 when none arrived within the timeout. */
int hw_poll(struct hw_cq *c, struct prism_cqe *out, int timeout_ms);
/* Exactly one CQE within the timeout, or the test fails. */
struct prism_cqe hw_expect(struct hw_cq *c);
/* Fails the test when a CQE is already there (no waiting). */
void hw_expect_empty(struct hw_cq *c);
/* The QP's state as the device reports it (ibv_query_qp). */
enum ibv_qp_state hw_qp_state(struct hw_qp *q);

/* Decoded-WQE builders (the same shapes the sim's conformance tests use). */
void hw_nop(struct prism_wqe *w, bool signaled);
void hw_rw(struct prism_wqe *w, uint8_t opcode, uint64_t raddr, uint32_t rkey, uint64_t laddr,
           uint32_t lkey, uint32_t len, bool signaled);
void hw_send(struct prism_wqe *w, uint8_t opcode, uint64_t laddr, uint32_t lkey, uint32_t len,
             bool signaled);
void hw_atomic(struct prism_wqe *w, uint8_t opcode, uint64_t raddr, uint32_t rkey, uint64_t swap,
               uint64_t compare, uint64_t laddr, uint32_t lkey, bool signaled);

/* The syndrome's name, for messages. */
const char *hw_synd_name(uint8_t syndrome);

/* ---- raw mlx5 path (hw_raw.c) ---- */
int hw_raw_init_qp(struct hw_qp *q);
int hw_raw_init_cq(struct hw_cq *c);
void hw_raw_post(struct hw_qp *q, const uint8_t *bytes, unsigned bbs);
void hw_raw_ring(struct hw_qp *q);
void hw_raw_post_recv(struct hw_qp *q, const struct prism_sge *sge, unsigned n);
int hw_raw_poll(struct hw_cq *c, struct prism_cqe *out);
/* Decodes ring slot @slot as it is, owner bit or not; -1 for an invalid CQE. */
int hw_raw_peek(struct hw_cq *c, uint32_t slot, struct prism_cqe *out);

/* ---- verbs path (hw_verbs.c) ---- */
struct hw_verbs_queue;
int hw_verbs_init(struct hw_qp *q);
void hw_verbs_free(struct hw_qp *q);
/* Posts the queued WRs as one list (the verbs form of a doorbell). */
int hw_verbs_ring(struct hw_qp *q);
/* Queues @w; 0, or -ENOTSUP when the opcode has no verbs equivalent. */
int hw_verbs_post(struct hw_qp *q, const struct prism_wqe *w, uint32_t counter);
int hw_verbs_post_recv(struct hw_qp *q, const struct prism_sge *sge, unsigned n, uint32_t counter);
int hw_verbs_poll(struct hw_cq *c, struct prism_cqe *out);
/* The translations themselves (also unit-tested without a device). */
int hw_verbs_translate(const struct prism_wqe *w, uint32_t counter, struct ibv_send_wr *wr,
                       struct ibv_sge *sge, uint8_t *inl);
uint8_t hw_verbs_syndrome(enum ibv_wc_status status);
void hw_verbs_wc_to_cqe(const struct ibv_wc *wc, bool is_recv, struct prism_cqe *out);

/* ---- cross-channel QPs through DEVX (hw_devx_qp.c) ---- */
enum hw_xqp_role {
	HW_XQP_MASTER = 1u << 0,       /* qpc.cd_master: may post WAIT / SEND_EN / RECV_EN */
	HW_XQP_MANAGED_SEND = 1u << 1, /* qpc.cd_slave_send: only SEND_EN starts its SQ */
	HW_XQP_MANAGED_RECV = 1u << 2, /* qpc.cd_slave_receive: RECV_EN enables its RQ */
};

struct hw_xqp_params {
	unsigned roles;
	uint32_t pdn, uar_page, cqn_snd, cqn_rcv, wq_umem_id, dbr_umem_id;
	unsigned sq_bbs, rq_wqes, rq_stride;
	unsigned port, mtu;
	uint32_t remote_qpn;
};

struct hw_xqp {
	struct hw_qp q; /* post / ring / poll exactly as for any raw QP */
	struct mlx5dv_devx_obj *obj;
	struct mlx5dv_devx_umem *wq_umem, *db_umem;
	struct mlx5dv_devx_uar *uar;
	void *wq, *db;
};

/* 0, or a negative errno with the precise reason in @why. */
int hw_xqp_create(struct hw_env *e, struct hw_xqp *x, unsigned roles, char *why, size_t n);
/* RST -> INIT -> RTR -> RTS, force-loopback to @remote_qpn. */
int hw_xqp_connect(struct hw_env *e, struct hw_xqp *x, uint32_t remote_qpn, char *why, size_t n);
void hw_xqp_destroy(struct hw_xqp *x);
/* The firmware commands (unit-tested): CREATE_QP, and transition @step
 * 0 RST2INIT, 1 INIT2RTR, 2 RTR2RTS. */
void hw_xqp_build_create(uint8_t *in, const struct hw_xqp_params *p);
int hw_xqp_build_modify(uint8_t *in, unsigned step, uint32_t qpn, const struct hw_xqp_params *p);
#define HW_XQP_CMD_BYTES (0x880 / 8)
/* Sets @width bits at mlx5_ifc bit offset @off (inverse of hw_cap_bits). */
void hw_set_bits(uint8_t *buf, unsigned off, unsigned width, uint64_t v);

/* ---- mlx5 device capabilities through DEVX (hw_devx.c) ---- */
struct hw_mlx5_caps {
	bool queried; /* QUERY_HCA_CAP answered */
	int err;      /* -errno when not */
	bool cd;      /* cross-channel (cmd_hca_cap.cd) */
	bool wait_on_data, wait_on_time;
	uint16_t atomic_ops;     /* atomic_caps.atomic_operations */
	uint16_t atomic_size_qp; /* bit n: 2^n-byte atomics on RC QPs */
	uint8_t endianness_mode; /* atomic_req_8B_endianness_mode */
};
/* Queries the general and atomic capabilities (needs a DEVX context). */
int hw_mlx5_query_caps(struct hw_env *e, struct hw_mlx5_caps *caps);
/* Decodes the two capability structures (QUERY_HCA_CAP output from byte 16). */
void hw_mlx5_caps_decode(const uint8_t *general, const uint8_t *atomic, struct hw_mlx5_caps *caps);
/* @width bits at mlx5_ifc bit offset @off (from the MSB of big-endian dword 0). */
uint32_t hw_cap_bits(const uint8_t *cap, unsigned off, unsigned width);

#endif /* PRISM_TESTS_HW_COMMON_H */
