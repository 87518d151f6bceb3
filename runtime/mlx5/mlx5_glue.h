/* SPDX-License-Identifier: MIT */
/*
 * mlx5/mlx5_glue.h - every rdma-core entry point the mlx5 backend calls, as
 * one table of function pointers (DPDK's mlx5_glue does the same).
 *
 * The backend calls rdma-core only through mlx5_glue(): by default the
 * table of mlx5_glue.c, which calls libibverbs and libmlx5.  A test
 * installs another table with mlx5_glue_set() before opening a device, to
 * interpose on any call; the PRM emulator (tests/mlx5emu/) installs one
 * that answers every call itself.  The doorbell store to the UAR page is an
 * entry too (uar_write64), so an emulator sees the doorbells the backend
 * rings.
 *
 * Must not: hold state, or add behaviour of its own.
 */
#ifndef PRISM_MLX5_GLUE_H
#define PRISM_MLX5_GLUE_H

#include <stdint.h>
#include <sys/types.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

struct mlx5_glue {
	const char *name; /* "rdma-core", or the interposer's name */

	struct ibv_device **(*get_device_list)(int *num);
	void (*free_device_list)(struct ibv_device **list);
	const char *(*get_device_name)(struct ibv_device *dev);
	bool (*dv_is_supported)(struct ibv_device *dev);
	struct ibv_context *(*dv_open_device)(struct ibv_device *dev,
	                                      struct mlx5dv_context_attr *attr);
	int (*close_device)(struct ibv_context *ctx);
	int (*query_port)(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr);
	int (*query_gid)(struct ibv_context *ctx, uint8_t port, int index, union ibv_gid *gid);

	struct ibv_pd *(*alloc_pd)(struct ibv_context *ctx);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dv_init_obj)(struct mlx5dv_obj *obj, uint64_t obj_type);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t len, int access);
	/* Address handles: only to learn a RoCE peer's MAC (mlx5dv_init_obj AH). */
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
	int (*destroy_ah)(struct ibv_ah *ah);
	int (*dereg_mr)(struct ibv_mr *mr);

	int (*devx_general_cmd)(struct ibv_context *ctx, const void *in, size_t inlen, void *out,
	                        size_t outlen);
	struct mlx5dv_devx_umem *(*devx_umem_reg)(struct ibv_context *ctx, void *addr, size_t size,
	                                          uint32_t access);
	int (*devx_umem_dereg)(struct mlx5dv_devx_umem *umem);
	struct mlx5dv_devx_uar *(*devx_alloc_uar)(struct ibv_context *ctx, uint32_t flags);
	void (*devx_free_uar)(struct mlx5dv_devx_uar *uar);
	int (*devx_query_eqn)(struct ibv_context *ctx, uint32_t vector, uint32_t *eqn);
	struct mlx5dv_devx_obj *(*devx_obj_create)(struct ibv_context *ctx, const void *in,
	                                           size_t inlen, void *out, size_t outlen);
	int (*devx_obj_modify)(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen, void *out,
	                       size_t outlen);
	int (*devx_obj_destroy)(struct mlx5dv_devx_obj *obj);

	/* Completion events: a DEVX event channel, a CQ's subscription to its
	 * completion event (event number 0), and reading one event. */
	struct mlx5dv_devx_event_channel *(*devx_create_event_channel)(struct ibv_context *ctx,
	                                                               int flags);
	void (*devx_destroy_event_channel)(struct mlx5dv_devx_event_channel *ch);
	int (*devx_subscribe_devx_event)(struct mlx5dv_devx_event_channel *ch,
	                                 struct mlx5dv_devx_obj *obj, uint16_t events_sz,
	                                 uint16_t events_num[], uint64_t cookie);
	ssize_t (*devx_get_event)(struct mlx5dv_devx_event_channel *ch,
	                          struct mlx5dv_devx_async_event_hdr *data, size_t len);

	/* A doorbell: one 64-bit store of 8 bytes (already in memory order) to
	 * a UAR register: the first 8 control-segment bytes to the send
	 * doorbell register, or a CQ arm word and CQN to the CQ doorbell. */
	void (*uar_write64)(void *reg, uint64_t bytes);
};

/*
 * The table in use; never NULL.  On first use, PRISM_MLX5_GLUE (read with
 * secure_getenv, so never in a set-user-ID program) may name a shared
 * object that answers the calls instead of rdma-core: it is loaded with
 * dlopen and its function
 *
 *     const struct mlx5_glue *prism_mlx5_glue_interposer(size_t table_size)
 *
 * gives its table (NULL: it refuses this table size, built against another
 * prism).  This is how tests run prismd, prismc or prism-demo as processes
 * over the PRM emulator (tests/mlx5emu, docs/backends.md).  If the variable
 * is set but the object cannot be used, the table is one whose device list
 * is empty, never rdma-core's: what was asked for is not silently replaced.
 */
const struct mlx5_glue *mlx5_glue(void);
/* NULL, or a sentence on the table PRISM_MLX5_GLUE installed (or why it
 * could not), for the device's log. */
const char *mlx5_glue_note(void);
/* Install @g (NULL: back to rdma-core).  Only while no mlx5 device is open. */
void mlx5_glue_set(const struct mlx5_glue *g);
/* The rdma-core table. */
extern const struct mlx5_glue mlx5_glue_rdma;

#endif /* PRISM_MLX5_GLUE_H */
