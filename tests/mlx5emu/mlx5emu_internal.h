/* SPDX-License-Identifier: MIT */
/*
 * tests/mlx5emu/mlx5emu_internal.h - the emulator's objects, shared by
 * mlx5emu.c (devices, contexts, PD, MR, umem, UAR, doorbells) and
 * mlx5emu_cmd.c (the DEVX commands).
 */
#ifndef PRISM_TESTS_MLX5EMU_INTERNAL_H
#define PRISM_TESTS_MLX5EMU_INTERNAL_H

#include <pthread.h>

#include "mlx5/mlx5_glue.h"
#include "mlx5/mlx5_prm.h"
#include "sim/sim.h"
#include "tests/mlx5emu/mlx5emu.h"

#define EMU_MAX_DEVS    4
#define EMU_EQN         7    /* the EQ number mlx5dv_devx_query_eqn answers */
#define EMU_CQ_DOORBELL 0x20 /* a UAR page's CQ doorbell (mlx5dv.h MLX5_CQ_DOORBELL) */

enum emu_obj_kind { EMU_OBJ_CQ, EMU_OBJ_QP };

struct emu_ctx;

/* mlx5dv.h declares the DEVX object opaque; this is the emulator's. */
struct mlx5dv_devx_obj {
	struct emu_ctx *ctx;
	enum emu_obj_kind kind;
	uint32_t num; /* CQN / QPN (the sim's) */
	struct sim_cq *cq;
	struct sim_qp *qp;
	int state;         /* QP: enum sim_qp_state as commanded */
	bool managed_send; /* QP: qpc.cd_slave_send */
	struct mlx5dv_devx_obj *next;
	/* CQ completion events (mlx5emu_event.c; emu.lock) */
	struct emu_evch *evch; /* subscribed to; NULL: none */
	uint64_t cookie;
	bool ev_queued; /* on evch's list (one per CQ while unread) */
	struct mlx5dv_devx_obj *ev_next;
};

/* A DEVX event channel (OMIT_EV_DATA): subscribed CQs with an unread event. */
struct emu_evch {
	struct mlx5dv_devx_event_channel pub;
	struct emu_ctx *ctx;
	struct mlx5dv_devx_obj *head, **tail;
	struct emu_evch *next;
};

struct emu_umem {
	struct mlx5dv_devx_umem pub;
	struct emu_ctx *ctx;
	uint8_t *addr;
	size_t size;
	struct emu_umem *next;
};

struct emu_uar {
	struct mlx5dv_devx_uar pub;
	struct emu_ctx *ctx;
	struct emu_uar *next;
};

struct emu_ctx {
	struct ibv_context pub; /* first: the backend holds &pub */
	unsigned dev_index;
	uint16_t lid;
	bool devx;
	struct sim_dev *sim;
	uint32_t next_umem_id, next_uar_page, next_pdn;
	struct emu_umem *umems;
	struct emu_pd *pd_list;
	struct emu_uar *uars;
	struct mlx5dv_devx_obj *objs;
	struct emu_evch *evchs;
	unsigned pds, mrs;
	struct emu_ctx *next;
};

struct emu_pd {
	struct ibv_pd pub;
	uint32_t pdn;
	struct sim_pd *sim; /* keys work only for QPs of the same PD */
	struct emu_pd *next;
};

struct emu_mr {
	struct ibv_mr pub;
	struct sim_mr *mr;
};

struct emu {
	pthread_mutex_t lock;
	struct mlx5emu_opts o;
	struct ibv_device devs[EMU_MAX_DEVS];
	/* One NIC per device, shared by every context opened on it (as a
	 * ConnectX is shared by the processes using it): its QPs reach each
	 * other whichever context made them. */
	struct sim_dev *nic[EMU_MAX_DEVS];
	unsigned nic_users[EMU_MAX_DEVS];
	/* The wire between the emulated NICs: all of them stay attached until
	 * the last context of any device closes (a fabric has no detach). */
	struct sim_fabric *fabric;
	unsigned users;
	struct emu_ctx *ctxs;
	unsigned errors;
	uint64_t doorbells;
	uint64_t managed_doorbells; /* of them, on cd_slave_send QPs */
	/* manual mode: what a run that a doorbell started returned (the
	 * first nonzero), for the next mlx5emu_run */
	int manual_rc;
	char last_error[512];
};

extern struct emu emu;

/* A loud failure: counted, kept, printed to stderr; sets errno = @err and
 * returns -@err. */
int emu_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct emu_umem *emu_umem_find(struct emu_ctx *c, uint32_t id);
bool emu_uar_page_known(struct emu_ctx *c, uint32_t page);
/* The sim PD of this context's PD @pdn, or NULL. */
struct sim_pd *emu_pd_by_pdn(struct emu_ctx *c, uint32_t pdn);
/* The emulated port's addresses: device i is node i + 1 on the sim's wire
 * (across processes, with a fabric directory: pid << 3 | (i + 1)), has LID
 * i + 1, GID ::ffff:10.0.0.(i + 1) (RoCE v2; across processes ::ffff:node)
 * or fe80::(i + 1) (IB), MAC 02:00:node (32 bits). */
uint32_t emu_node(unsigned dev_index);
void emu_gid(unsigned dev_index, uint8_t gid[16]);
void emu_mac(uint32_t node, uint8_t mac[6]);
/* The node whose port has GID @gid: 0, or -1 when no emulated port has it
 * (with a fabric directory: any GID of the form ::ffff:node). */
int emu_node_by_gid(const uint8_t gid[16], uint32_t *node);

/* mlx5emu_xwire.c: the wire to other processes' emulated NICs (a fabric
 * directory): device @i's packets for nodes outside this process go there.
 * emu.lock held. */
int emu_xwire_attach(unsigned i, struct sim_dev *s);
/* Stop taking packets from other processes (before the devices close). */
void emu_xwire_stop(void);

/* mlx5emu_cmd.c: the DEVX entry points. */
int emu_general_cmd(struct ibv_context *ctx, const void *in, size_t inlen, void *out,
                    size_t outlen);
struct mlx5dv_devx_obj *emu_obj_create(struct ibv_context *ctx, const void *in, size_t inlen,
                                       void *out, size_t outlen);
int emu_obj_modify(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen, void *out,
                   size_t outlen);
int emu_obj_destroy(struct mlx5dv_devx_obj *obj);

/* mlx5emu_event.c: event channels, subscriptions, the CQ arm doorbell. */
struct mlx5dv_devx_event_channel *emu_create_event_channel(struct ibv_context *ctx, int flags);
void emu_destroy_event_channel(struct mlx5dv_devx_event_channel *ch);
int emu_subscribe_devx_event(struct mlx5dv_devx_event_channel *ch, struct mlx5dv_devx_obj *obj,
                             uint16_t events_sz, uint16_t events_num[], uint64_t cookie);
ssize_t emu_get_event(struct mlx5dv_devx_event_channel *ch,
                      struct mlx5dv_devx_async_event_hdr *data, size_t len);
/* The 8 bytes written to a UAR page's CQ doorbell (offset 0x20) of @c. */
void emu_cq_doorbell(struct emu_ctx *c, uint64_t bytes);
/* emu.lock held: @o (a CQ being destroyed) leaves its channel's list. */
void emu_event_forget(struct mlx5dv_devx_obj *o);

#endif /* PRISM_TESTS_MLX5EMU_INTERNAL_H */
