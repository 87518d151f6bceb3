/* SPDX-License-Identifier: MIT */
/*
 * mlx5/mlx5_dev.c - an mlx5 device as a NIC backend: open with DEVX, the
 * protection domain and its pdn, one UAR page and the EQ number that every
 * CQ and QP of the device uses, the completion event channel
 * (mlx5_event.c), memory regions, close; and the operations table
 * core_mlx5_backend.
 *
 * Recipe: rdma-core 44 mlx5dv.h (mlx5dv_open_device with
 * MLX5DV_CONTEXT_FLAGS_DEVX, mlx5dv_devx_alloc_uar, mlx5dv_devx_query_eqn,
 * mlx5dv_init_obj for the pdn), as rdma-core's own tests/mlx5_base.py
 * Mlx5DevxRcResources and DPDK drivers/common/mlx5 do it.
 *
 * Must not: call rdma-core except through mlx5_glue(); print.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5/mlx5_be.h"

#define MLX5_BE_PORT 1

void mlx5_be_log(struct mlx5_be_dev *dev, int level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!dev->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dev->log(dev->log_ctx, level, msg);
}

int mlx5_be_cmd_status(struct mlx5_be_dev *dev, const char *what, int rc, const void *out,
                       size_t outlen)
{
	unsigned status = (unsigned)mlx5_prm_get(out, outlen, 0, MLX5_PRM_OUT_STATUS);

	if (!rc && status == MLX5_PRM_STATUS_OK)
		return 0;
	mlx5_be_log(dev, PRISM_LOG_ERROR, "%s: %s (firmware status 0x%x, syndrome 0x%x)", what,
	            rc ? strerror(rc < 0 ? -rc : rc) : "refused", status,
	            (unsigned)mlx5_prm_get(out, outlen, 0, MLX5_PRM_OUT_SYNDROME));
	return -EIO;
}

_Static_assert((int)CORE_ACCESS_LOCAL_WRITE == IBV_ACCESS_LOCAL_WRITE &&
                   (int)CORE_ACCESS_REMOTE_WRITE == IBV_ACCESS_REMOTE_WRITE &&
                   (int)CORE_ACCESS_REMOTE_READ == IBV_ACCESS_REMOTE_READ &&
                   (int)CORE_ACCESS_REMOTE_ATOMIC == IBV_ACCESS_REMOTE_ATOMIC,
               "core access flags are ibv_access_flags");

static void dev_free(struct mlx5_be_dev *d)
{
	const struct mlx5_glue *g = d->g;

	mlx5_be_events_close(d);
	pthread_mutex_destroy(&d->ev_lock);
	if (d->uar)
		g->devx_free_uar(d->uar);
	if (d->pd)
		g->dealloc_pd(d->pd);
	if (d->ctx)
		g->close_device(d->ctx);
	free(d);
}

/* Find @name (NULL: the first mlx5 device) and open it with DEVX. */
static int open_ctx(struct mlx5_be_dev *d, const char *name)
{
	const struct mlx5_glue *g = d->g;
	struct mlx5dv_context_attr a = {.flags = MLX5DV_CONTEXT_FLAGS_DEVX};
	struct ibv_device **list;
	int n = 0, err = -ENODEV;

	list = g->get_device_list(&n);
	if (!list) {
		mlx5_be_log(d, PRISM_LOG_ERROR, "no RDMA devices: %s",
		            strerror(errno ? errno : ENODEV));
		return -ENODEV;
	}
	for (int i = 0; i < n; i++) {
		const char *dn = g->get_device_name(list[i]);

		if (name && strcmp(dn, name))
			continue;
		if (!g->dv_is_supported(list[i])) {
			if (name)
				mlx5_be_log(d, PRISM_LOG_ERROR, "%s is not an mlx5 device", dn);
			continue;
		}
		snprintf(d->name, sizeof(d->name), "%s", dn);
		d->ctx = g->dv_open_device(list[i], &a);
		if (!d->ctx) {
			err = -(errno ? errno : EOPNOTSUPP);
			mlx5_be_log(d, PRISM_LOG_ERROR, "%s: mlx5dv_open_device with DEVX: %s", dn,
			            strerror(-err));
		} else {
			err = 0;
		}
		break;
	}
	g->free_device_list(list);
	if (err == -ENODEV)
		mlx5_be_log(d, PRISM_LOG_ERROR, "no mlx5 device %s%s", name ? "named " : "",
		            name ? name : "");
	return err;
}

static int be_open(const struct core_dev_attr *attr, struct core_be_dev **out)
{
	struct mlx5_be_dev *d = calloc(1, sizeof(*d));
	struct mlx5dv_pd dvpd = {0};
	struct mlx5dv_obj obj = {.pd = {.out = &dvpd}};
	char why[256] = "";
	int err;

	if (!d)
		return -ENOMEM;
	d->g = mlx5_glue();
	d->port = MLX5_BE_PORT;
	pthread_mutex_init(&d->ev_lock, NULL);
	if (attr) {
		d->log = attr->log;
		d->log_ctx = attr->log_ctx;
		d->relaxed_fw = attr->relaxed_fw;
	}
	if (mlx5_glue_note())
		mlx5_be_log(d, PRISM_LOG_WARN, "%s", mlx5_glue_note());
	if ((err = open_ctx(d, attr ? attr->name : NULL)))
		goto fail;
	if ((err = mlx5_be_query_caps(d->g, d->ctx, &d->caps, why, sizeof(why)))) {
		mlx5_be_log(d, PRISM_LOG_ERROR, "%s: %s", d->name, why);
		goto fail;
	}
	if (d->g->query_port(d->ctx, d->port, &d->port_attr) ||
	    d->g->query_gid(d->ctx, d->port, d->gid_index, &d->gid)) {
		err = -(errno ? errno : EIO);
		mlx5_be_log(d, PRISM_LOG_ERROR, "%s: port %u: %s", d->name, d->port,
		            strerror(-err));
		goto fail;
	}
	d->pd = d->g->alloc_pd(d->ctx);
	obj.pd.in = d->pd;
	if (!d->pd || d->g->dv_init_obj(&obj, MLX5DV_OBJ_PD)) {
		err = -(errno ? errno : ENOMEM);
		mlx5_be_log(d, PRISM_LOG_ERROR, "%s: protection domain: %s", d->name,
		            strerror(-err));
		goto fail;
	}
	d->pdn = dvpd.pdn;
	/* Non-cached UAR: each doorbell is one uncached 64-bit store (no BlueFlame). */
	d->uar = d->g->devx_alloc_uar(d->ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	if (!d->uar || d->g->devx_query_eqn(d->ctx, 0, &d->eqn)) {
		err = -(errno ? errno : ENOMEM);
		mlx5_be_log(d, PRISM_LOG_ERROR, "%s: %s: %s", d->name,
		            d->uar ? "EQ number" : "UAR page", strerror(-err));
		goto fail;
	}
	if ((err = mlx5_be_events_open(d)))
		goto fail;
	/* The firmware profile, by asking the NIC (mlx5_probe.c). */
	d->fw = mlx5_be_probe_fw(d);
	if (d->fw != MLX5_BE_FW_UNKNOWN && (d->fw == MLX5_BE_FW_RELAXED) != d->relaxed_fw)
		mlx5_be_log(d, PRISM_LOG_WARN, "%s: configured as %s firmware, the probe found %s",
		            d->name, d->relaxed_fw ? "relaxed" : "strict", mlx5_be_fw_name(d->fw));
	*out = (struct core_be_dev *)d;
	return 0;
fail:
	dev_free(d);
	return err;
}

static void be_close(struct core_be_dev *dev)
{
	if (dev)
		dev_free((struct mlx5_be_dev *)dev);
}

/* A protection domain and its pdn (DEVX objects name it by the pdn). */
static int be_alloc_pd(struct core_be_dev *dev, struct core_be_pd **out)
{
	struct mlx5_be_dev *d = (struct mlx5_be_dev *)dev;
	struct mlx5_be_pd *p = calloc(1, sizeof(*p));
	struct mlx5dv_pd dvpd = {0};
	struct mlx5dv_obj obj = {.pd = {.out = &dvpd}};
	int err;

	if (!p)
		return -ENOMEM;
	p->dev = d;
	p->pd = d->g->alloc_pd(d->ctx);
	obj.pd.in = p->pd;
	if (!p->pd || d->g->dv_init_obj(&obj, MLX5DV_OBJ_PD)) {
		err = -(errno ? errno : ENOMEM);
		mlx5_be_log(d, PRISM_LOG_ERROR, "%s: protection domain: %s", d->name,
		            strerror(-err));
		if (p->pd)
			d->g->dealloc_pd(p->pd);
		free(p);
		return err;
	}
	p->pdn = dvpd.pdn;
	*out = (struct core_be_pd *)p;
	return 0;
}

static int be_dealloc_pd(struct core_be_pd *pd)
{
	struct mlx5_be_pd *p = (struct mlx5_be_pd *)pd;
	int rc = p->dev->g->dealloc_pd(p->pd);

	if (rc)
		return -(rc > 0 ? rc : EBUSY);
	free(p);
	return 0;
}

static int be_reg_mr(struct core_be_dev *dev, struct core_be_pd *pd, void *addr, size_t len,
                     unsigned access, struct core_be_mr **out, struct core_mr_info *info)
{
	struct mlx5_be_dev *d = (struct mlx5_be_dev *)dev;
	struct mlx5_be_mr *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->dev = d;
	m->mr = d->g->reg_mr(pd ? ((struct mlx5_be_pd *)pd)->pd : d->pd, addr, len, (int)access);
	if (!m->mr) {
		int err = -(errno ? errno : EINVAL);

		mlx5_be_log(d, PRISM_LOG_ERROR, "%s: ibv_reg_mr(%zu bytes, access 0x%x): %s",
		            d->name, len, access, strerror(-err));
		free(m);
		return err;
	}
	info->lkey = m->mr->lkey;
	info->rkey = m->mr->rkey;
	*out = (struct core_be_mr *)m;
	return 0;
}

static int be_dereg_mr(struct core_be_mr *mr)
{
	struct mlx5_be_mr *m = (struct mlx5_be_mr *)mr;
	int rc = m->dev->g->dereg_mr(m->mr);

	if (rc)
		return -(rc > 0 ? rc : EBUSY);
	free(m);
	return 0;
}

static int be_port_addr(struct core_be_dev *dev, struct core_qp_peer *self)
{
	struct mlx5_be_dev *d = (struct mlx5_be_dev *)dev;

	self->lid = d->port_attr.lid;
	self->mtu = (uint8_t)d->port_attr.active_mtu;
	memcpy(self->gid, d->gid.raw, sizeof(self->gid));
	return 0;
}

static int be_caps(struct core_be_dev *dev, struct core_caps *out)
{
	const struct mlx5_be_dev *d = (const struct mlx5_be_dev *)dev;
	const struct mlx5_be_caps *c = &d->caps;
	bool masked = c->atomic_ops & MLX5_PRM_ATOMIC_OPS_MASKED_CMP_SWAP;

	*out = (struct core_caps){
	    .cross_channel = c->cd,
	    .wait_on_data = c->wait_on_data,
	    /* the probe's answer wins; unknown: what the configuration says */
	    .relaxed_fw = d->fw == MLX5_BE_FW_UNKNOWN ? d->relaxed_fw : d->fw == MLX5_BE_FW_RELAXED,
	    .atomic_8b_host = c->have_atomic_caps && c->endianness_mode == 1,
	    .masked_sizes = masked ? (uint8_t)(c->atomic_size_qp & (4 | 8 | 16 | 32)) : 0,
	};
	if (d->fw == MLX5_BE_FW_UNKNOWN)
		snprintf(out->fw_note, sizeof(out->fw_note),
		         "probe inconclusive; as configured (firmware option)");
	else
		snprintf(out->fw_note, sizeof(out->fw_note),
		         "probed: a NOP with a wrong WQE index %s",
		         d->fw == MLX5_BE_FW_RELAXED ? "completed" : "failed (LOCAL_QP_OP_ERR)");
	return 0;
}

const struct core_backend_ops core_mlx5_backend = {
    .name = "mlx5",
    .open = be_open,
    .close = be_close,
    .alloc_pd = be_alloc_pd,
    .dealloc_pd = be_dealloc_pd,
    .reg_mr = be_reg_mr,
    .dereg_mr = be_dereg_mr,
    .create_cq = mlx5_be_create_cq,
    .destroy_cq = mlx5_be_destroy_cq,
    .create_qp = mlx5_be_create_qp,
    .destroy_qp = mlx5_be_destroy_qp,
    .modify_qp = mlx5_be_modify_qp,
    .ring_sq = mlx5_be_ring_sq,
    .ring_rq = mlx5_be_ring_rq,
    .progress = NULL, /* the NIC runs by itself */
    .now_ns = NULL,
    .arm_cq = mlx5_be_arm_cq,
    .take_events = mlx5_be_take_events,
    .port_addr = be_port_addr,
    .caps = be_caps,
};

int core_mlx5_device_names(char (*names)[64], int cap)
{
	const struct mlx5_glue *g = mlx5_glue();
	struct ibv_device **list;
	int n = 0, out = 0;

	list = g->get_device_list(&n);
	if (!list)
		return 0;
	for (int i = 0; i < n && out < cap; i++)
		if (g->dv_is_supported(list[i]))
			snprintf(names[out++], 64, "%s", g->get_device_name(list[i]));
	g->free_device_list(list);
	return out;
}

const char *core_mlx5_note(void)
{
	return mlx5_glue_note();
}

bool core_mlx5_device_exists(const char *name)
{
	char names[16][64];
	int n = core_mlx5_device_names(names, 16);

	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}
