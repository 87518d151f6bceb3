/* SPDX-License-Identifier: MIT */
/*
 * mlx5/mlx5_glue.c - the rdma-core entry-point table (mlx5_glue.h): the
 * only file of prism that calls libibverbs and libmlx5.
 *
 * Owns: the table of direct calls, and which table is in use (a test's,
 * installed with mlx5_glue_set; or one PRISM_MLX5_GLUE names).
 * Must not: add behaviour; each entry is the rdma-core call of its name.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "mlx5/mlx5_glue.h"

static const struct mlx5_glue *current;

static const char *glue_get_device_name(struct ibv_device *dev)
{
	return ibv_get_device_name(dev);
}

static int glue_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr)
{
	return ibv_query_port(ctx, port, attr); /* a macro in verbs.h */
}

static struct ibv_mr *glue_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	return ibv_reg_mr(pd, addr, len, access); /* a macro in verbs.h */
}

/*
 * The UAR doorbell: one 64-bit store, so the NIC never sees half of it
 * (rdma-core providers/mlx5 mmio_write64_be; DPDK mlx5_doorbell_ring), then a
 * store fence so the write leaves the write-combining buffer.
 */
static void glue_uar_write64(void *reg, uint64_t bytes)
{
	*(volatile uint64_t *)reg = bytes;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static struct mlx5dv_devx_event_channel *glue_create_event_channel(struct ibv_context *ctx,
                                                                   int flags)
{
	return mlx5dv_devx_create_event_channel(ctx,
	                                        (enum mlx5dv_devx_create_event_channel_flags)flags);
}

const struct mlx5_glue mlx5_glue_rdma = {
    .name = "rdma-core",
    .get_device_list = ibv_get_device_list,
    .free_device_list = ibv_free_device_list,
    .get_device_name = glue_get_device_name,
    .dv_is_supported = mlx5dv_is_supported,
    .dv_open_device = mlx5dv_open_device,
    .close_device = ibv_close_device,
    .query_port = glue_query_port,
    .query_gid = ibv_query_gid,
    .alloc_pd = ibv_alloc_pd,
    .dealloc_pd = ibv_dealloc_pd,
    .dv_init_obj = mlx5dv_init_obj,
    .reg_mr = glue_reg_mr,
    .create_ah = ibv_create_ah,
    .destroy_ah = ibv_destroy_ah,
    .dereg_mr = ibv_dereg_mr,
    .devx_general_cmd = mlx5dv_devx_general_cmd,
    .devx_umem_reg = mlx5dv_devx_umem_reg,
    .devx_umem_dereg = mlx5dv_devx_umem_dereg,
    .devx_alloc_uar = mlx5dv_devx_alloc_uar,
    .devx_free_uar = mlx5dv_devx_free_uar,
    .devx_query_eqn = mlx5dv_devx_query_eqn,
    .devx_obj_create = mlx5dv_devx_obj_create,
    .devx_obj_modify = mlx5dv_devx_obj_modify,
    .devx_obj_destroy = mlx5dv_devx_obj_destroy,
    .devx_create_event_channel = glue_create_event_channel,
    .devx_destroy_event_channel = mlx5dv_devx_destroy_event_channel,
    .devx_subscribe_devx_event = mlx5dv_devx_subscribe_devx_event,
    .devx_get_event = mlx5dv_devx_get_event,
    .uar_write64 = glue_uar_write64,
};

/* ---- PRISM_MLX5_GLUE: an interposer named by the environment -------- */

static const struct mlx5_glue *from_env;
static char env_note[512];
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static struct ibv_device **none_get_device_list(int *num)
{
	static struct ibv_device *empty[1];

	if (num)
		*num = 0;
	return empty;
}

static void none_free_device_list(struct ibv_device **list)
{
	(void)list;
}

/* PRISM_MLX5_GLUE set, its object unusable: no devices at all. */
static const struct mlx5_glue glue_none = {
    .name = "none (PRISM_MLX5_GLUE failed)",
    .get_device_list = none_get_device_list,
    .free_device_list = none_free_device_list,
};

static void load_env(void)
{
	const char *path = secure_getenv("PRISM_MLX5_GLUE");
	const struct mlx5_glue *(*get)(size_t);
	void *h;

	if (!path || !*path)
		return;
	from_env = &glue_none;
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(env_note, sizeof(env_note), "PRISM_MLX5_GLUE=%s: %s (no RDMA device used)",
		         path, dlerror());
		return;
	}
	*(void **)&get = dlsym(h, "prism_mlx5_glue_interposer");
	if (!get || !get(sizeof(struct mlx5_glue))) {
		snprintf(
		    env_note, sizeof(env_note), "PRISM_MLX5_GLUE=%s: %s (no RDMA device used)",
		    path,
		    get ? "its prism_mlx5_glue_interposer refused (another prism's table size, "
		          "or its own options)"
		        : "no prism_mlx5_glue_interposer in it");
		return;
	}
	from_env = get(sizeof(struct mlx5_glue));
	snprintf(env_note, sizeof(env_note),
	         "rdma-core calls answered by '%s' from %s (PRISM_MLX5_GLUE), not by a NIC",
	         from_env->name, path);
}

const char *mlx5_glue_note(void)
{
	pthread_once(&env_once, load_env);
	return env_note[0] ? env_note : NULL;
}

const struct mlx5_glue *mlx5_glue(void)
{
	const struct mlx5_glue *g = __atomic_load_n(&current, __ATOMIC_ACQUIRE);

	if (g)
		return g;
	pthread_once(&env_once, load_env);
	return from_env ? from_env : &mlx5_glue_rdma;
}

void mlx5_glue_set(const struct mlx5_glue *g)
{
	__atomic_store_n(&current, g, __ATOMIC_RELEASE);
}
