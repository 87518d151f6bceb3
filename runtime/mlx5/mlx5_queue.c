/* SPDX-License-Identifier: MIT */
/*
 * mlx5/mlx5_queue.c - CQs and RC QPs as DEVX objects.
 *
 * Upstream rdma-core 44 cannot create cross-channel QPs through verbs
 * (ibv_create_qp_ex / mlx5dv_create_qp reject the flags), so the QP is a
 * firmware CREATE_QP with qpc.cd_master / cd_slave_send / cd_slave_receive,
 * as DPDK's mlx5_devx_cmd_create_qp builds it.  Queue memory is ours: one
 * page-aligned allocation per object, registered as one umem, holding
 *
 *   CQ:  ncqe x 64-byte CQEs | pad to 64 | doorbell record (8 bytes)
 *   QP:  RQ (rq_wqes x stride) | SQ (sq_bbs x 64) | pad | dbrec [recv, send]
 *
 * and named in the command by umem id + offset (cq_umem_*, wq_umem_*,
 * dbr_umem_* / dbr_addr).  Every CQE starts invalid and hardware-owned
 * (op_own 0xf1), as DPDK's mlx5_cq_init does: firmware does not initialise
 * a DEVX CQ ring.
 *
 * Must not: call rdma-core except through mlx5_glue(); write a PRM field
 * other than through mlx5_prm.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <prism/wqe.h>

#include "mlx5/mlx5_be.h"

#define PAGE     4096u
#define DBR_SIZE 64u

static uint32_t log2u(uint32_t v)
{
	uint32_t l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

static bool pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

static int umem_buf_alloc(struct mlx5_be_dev *d, size_t ring, struct mlx5_be_umem_buf *ub)
{
	ub->dbr_at = (ring + DBR_SIZE - 1) & ~(size_t)(DBR_SIZE - 1);
	ub->len = (ub->dbr_at + DBR_SIZE + PAGE - 1) & ~(size_t)(PAGE - 1);
	ub->mem = aligned_alloc(PAGE, ub->len);
	if (!ub->mem)
		return -ENOMEM;
	memset(ub->mem, 0, ub->len);
	ub->umem = d->g->devx_umem_reg(d->ctx, ub->mem, ub->len, IBV_ACCESS_LOCAL_WRITE);
	if (!ub->umem) {
		int err = -(errno ? errno : ENOMEM);

		mlx5_be_log(d, PRISM_LOG_ERROR, "%s: mlx5dv_devx_umem_reg(%zu bytes): %s", d->name,
		            ub->len, strerror(-err));
		free(ub->mem);
		ub->mem = NULL;
		return err;
	}
	return 0;
}

static void umem_buf_free(struct mlx5_be_dev *d, struct mlx5_be_umem_buf *ub)
{
	if (ub->umem)
		d->g->devx_umem_dereg(ub->umem);
	free(ub->mem);
}

int mlx5_be_create_cq(struct core_be_dev *dev, const struct core_cq_attr *attr,
                      struct core_be_cq **out, struct core_cq_info *info)
{
	struct mlx5_be_dev *d = (struct mlx5_be_dev *)dev;
	const uint32_t cqc = mlx5_prm_off(MLX5_PRM_CREATE_CQ_IN_CQC);
	uint8_t cmd_out[MLX5_PRM_SHORT_BYTES] = {0};
	struct mlx5_prm_cmd c;
	struct mlx5_be_cq *cq;
	int err;

	if (!pow2(attr->ncqe) || attr->ncqe < 2 || log2u(attr->ncqe) > d->caps.log_max_cq_sz)
		return -EINVAL;
	if (attr->ignore_overrun && !d->caps.cq_oi) {
		mlx5_be_log(d, PRISM_LOG_ERROR,
		            "%s: CQ overrun ignore asked for, cmd_hca_cap.cq_oi is 0", d->name);
		return -EOPNOTSUPP;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return -ENOMEM;
	cq->dev = d;
	cq->ncqe = attr->ncqe;
	if ((err = umem_buf_alloc(d, (size_t)attr->ncqe * PRISM_CQE_BYTES, &cq->ub)))
		goto fail;
	for (uint32_t i = 0; i < attr->ncqe; i++)
		((uint8_t *)cq->ub.mem)[(size_t)i * PRISM_CQE_BYTES + 63] =
		    PRISM_CQE_INVALID << 4 | 1;

	mlx5_prm_cmd_init(&c, MLX5_PRM_CMD_CREATE_CQ, 0, MLX5_PRM_CQ_CMD_IN_BYTES);
	mlx5_prm_cmd_set(&c, cqc, MLX5_PRM_CQC_CQE_SZ, 0); /* 64-byte CQEs */
	mlx5_prm_cmd_set(&c, cqc, MLX5_PRM_CQC_OI, attr->ignore_overrun);
	mlx5_prm_cmd_set(&c, cqc, MLX5_PRM_CQC_LOG_CQ_SIZE, log2u(attr->ncqe));
	mlx5_prm_cmd_set(&c, cqc, MLX5_PRM_CQC_UAR_PAGE, d->uar->page_id);
	mlx5_prm_cmd_set(&c, cqc, MLX5_PRM_CQC_C_EQN, d->eqn);
	mlx5_prm_cmd_set(&c, cqc, MLX5_PRM_CQC_LOG_PAGE_SIZE, 0); /* 4 KiB pages: log - 12 */
	mlx5_prm_cmd_set(&c, cqc, MLX5_PRM_CQC_DBR_UMEM_VALID, 1);
	mlx5_prm_cmd_set(&c, cqc, MLX5_PRM_CQC_DBR_UMEM_ID, cq->ub.umem->umem_id);
	mlx5_prm_cmd_set(&c, cqc, MLX5_PRM_CQC_DBR_ADDR, cq->ub.dbr_at);
	mlx5_prm_cmd_set(&c, 0, MLX5_PRM_CREATE_CQ_IN_UMEM_VALID, 1);
	mlx5_prm_cmd_set(&c, 0, MLX5_PRM_CREATE_CQ_IN_UMEM_ID, cq->ub.umem->umem_id);
	mlx5_prm_cmd_set(&c, 0, MLX5_PRM_CREATE_CQ_IN_UMEM_OFFSET, 0);
	if ((err = c.err))
		goto fail;
	cq->obj = d->g->devx_obj_create(d->ctx, c.in, c.inlen, cmd_out, sizeof(cmd_out));
	if ((err = mlx5_be_cmd_status(d, "CREATE_CQ", cq->obj ? 0 : (errno ? errno : EIO), cmd_out,
	                              sizeof(cmd_out))))
		goto fail;
	cq->cqn = (uint32_t)mlx5_prm_get(cmd_out, sizeof(cmd_out), 0, MLX5_PRM_CREATE_CQ_OUT_CQN);
	if ((err = mlx5_be_events_add_cq(cq)))
		goto fail;
	info->cqn = cq->cqn;
	info->buf = cq->ub.mem;
	info->ncqe = cq->ncqe;
	info->dbrec = (volatile uint32_t *)((uint8_t *)cq->ub.mem + cq->ub.dbr_at);
	*out = (struct core_be_cq *)cq;
	return 0;
fail:
	if (cq->obj)
		d->g->devx_obj_destroy(cq->obj);
	umem_buf_free(d, &cq->ub);
	free(cq);
	return err;
}

int mlx5_be_destroy_cq(struct core_be_cq *ccq)
{
	struct mlx5_be_cq *cq = (struct mlx5_be_cq *)ccq;
	int rc;

	/* from here on an event of it is dropped (refused destroy included:
	 * its owner is going away) */
	mlx5_be_events_del_cq(cq);
	rc = cq->dev->g->devx_obj_destroy(cq->obj);
	if (rc)
		return -(rc > 0 ? rc : EBUSY);
	umem_buf_free(cq->dev, &cq->ub);
	free(cq);
	return 0;
}

/* qpc fields of CREATE_QP: type, sizes, PD, UAR, CQs, cross-channel role. */
static void qp_context(struct mlx5_prm_cmd *c, const struct mlx5_be_qp *qp,
                       const struct core_qp_attr *attr)
{
	const struct mlx5_be_dev *d = qp->dev;
	const uint32_t qpc = mlx5_prm_off(MLX5_PRM_CREATE_QP_IN_QPC);

	mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_ST, MLX5_PRM_QPC_ST_RC);
	mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_PM_STATE, MLX5_PRM_QPC_PM_MIGRATED);
	mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_PD,
	                 attr->pd ? ((const struct mlx5_be_pd *)attr->pd)->pdn : d->pdn);
	mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_UAR_PAGE, d->uar->page_id);
	mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_LOG_SQ_SIZE, log2u(qp->sq_bbs));
	if (qp->rq_wqes) {
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_RQ_TYPE, MLX5_PRM_QPC_RQ_REGULAR);
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_LOG_RQ_SIZE, log2u(qp->rq_wqes));
		/* stride = 16 << log_rq_stride bytes (rdma-core tests/mlx5_base.py) */
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_LOG_RQ_STRIDE, log2u(qp->rq_stride) - 4);
	} else {
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_RQ_TYPE, MLX5_PRM_QPC_RQ_ZERO_SIZE);
	}
	mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_CQN_SND,
	                 ((const struct mlx5_be_cq *)attr->send_cq)->cqn);
	mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_CQN_RCV,
	                 ((const struct mlx5_be_cq *)attr->recv_cq)->cqn);
	mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_LOG_PAGE_SIZE, 0);
	mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_CD_MASTER, !!(attr->flags & CORE_QP_CROSS_CHANNEL));
	mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_CD_SLAVE_SEND,
	                 !!(attr->flags & CORE_QP_MANAGED_SEND));
	mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_CD_SLAVE_RECEIVE,
	                 !!(attr->flags & CORE_QP_MANAGED_RECV));
	mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_DBR_UMEM_VALID, 1);
	mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_DBR_UMEM_ID, qp->ub.umem->umem_id);
	mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_DBR_ADDR, qp->ub.dbr_at);
	mlx5_prm_cmd_set(c, 0, MLX5_PRM_CREATE_QP_IN_UMEM_VALID, 1);
	mlx5_prm_cmd_set(c, 0, MLX5_PRM_CREATE_QP_IN_UMEM_ID, qp->ub.umem->umem_id);
	mlx5_prm_cmd_set(c, 0, MLX5_PRM_CREATE_QP_IN_UMEM_OFFSET, 0);
}

int mlx5_be_create_qp(struct core_be_dev *dev, const struct core_qp_attr *attr,
                      struct core_be_qp **out, struct core_qp_info *info)
{
	struct mlx5_be_dev *d = (struct mlx5_be_dev *)dev;
	uint8_t cmd_out[MLX5_PRM_SHORT_BYTES] = {0};
	uint32_t sge = 1;
	struct mlx5_prm_cmd c;
	struct mlx5_be_qp *qp;
	int err;

	if (!attr->send_cq || !attr->recv_cq || !pow2(attr->sq_bbs) || attr->sq_bbs > (1u << 15) ||
	    (attr->rq_wqes && !pow2(attr->rq_wqes)) || attr->rq_wqes > (1u << 15) ||
	    attr->rq_max_sge > PRISM_WQE_MAX_SGE || (attr->flags & ~0x1fu) ||
	    (attr->access & ~(unsigned)(CORE_ACCESS_REMOTE_READ | CORE_ACCESS_REMOTE_WRITE |
	                                CORE_ACCESS_REMOTE_ATOMIC)))
		return -EINVAL;
	if ((attr->flags & (CORE_QP_CROSS_CHANNEL | CORE_QP_MANAGED_SEND | CORE_QP_MANAGED_RECV)) &&
	    !d->caps.cd) {
		mlx5_be_log(d, PRISM_LOG_ERROR,
		            "%s: cross-channel QP asked for, cmd_hca_cap.cd is 0", d->name);
		return -EOPNOTSUPP;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return -ENOMEM;
	while (sge < attr->rq_max_sge)
		sge <<= 1;
	qp->dev = d;
	qp->flags = attr->flags;
	qp->access = attr->access;
	qp->sq_bbs = attr->sq_bbs;
	qp->rq_wqes = attr->rq_wqes;
	qp->rq_stride = sge * 16u;
	qp->sq_offset = (size_t)qp->rq_wqes * qp->rq_stride;
	qp->state = CORE_QPS_RESET;
	if ((err = umem_buf_alloc(d, qp->sq_offset + (size_t)qp->sq_bbs * PRISM_WQE_BB, &qp->ub)))
		goto fail;
	mlx5_prm_cmd_init(&c, MLX5_PRM_CMD_CREATE_QP, 0, MLX5_PRM_QP_CMD_IN_BYTES);
	qp_context(&c, qp, attr);
	if ((err = c.err))
		goto fail;
	qp->obj = d->g->devx_obj_create(d->ctx, c.in, c.inlen, cmd_out, sizeof(cmd_out));
	if ((err = mlx5_be_cmd_status(d, "CREATE_QP", qp->obj ? 0 : (errno ? errno : EIO), cmd_out,
	                              sizeof(cmd_out))))
		goto fail;
	qp->qpn = (uint32_t)mlx5_prm_get(cmd_out, sizeof(cmd_out), 0, MLX5_PRM_CREATE_QP_OUT_QPN);
	info->qpn = qp->qpn;
	info->buf = qp->ub.mem;
	info->buf_len = qp->sq_offset + (size_t)qp->sq_bbs * PRISM_WQE_BB;
	info->sq_offset = qp->sq_offset;
	info->sq_bbs = qp->sq_bbs;
	info->rq_wqes = qp->rq_wqes;
	info->rq_stride = qp->rq_stride;
	info->dbrec = (volatile uint32_t *)((uint8_t *)qp->ub.mem + qp->ub.dbr_at);
	*out = (struct core_be_qp *)qp;
	return 0;
fail:
	if (qp->obj)
		d->g->devx_obj_destroy(qp->obj);
	umem_buf_free(d, &qp->ub);
	free(qp);
	return err;
}

int mlx5_be_destroy_qp(struct core_be_qp *cqp)
{
	struct mlx5_be_qp *qp = (struct mlx5_be_qp *)cqp;
	int rc = qp->dev->g->devx_obj_destroy(qp->obj);

	if (rc)
		return -(rc > 0 ? rc : EBUSY);
	umem_buf_free(qp->dev, &qp->ub);
	free(qp);
	return 0;
}
