/* SPDX-License-Identifier: MIT */
/*
 * core/sim_backend.c - the sim as a NIC backend: core_sim_backend, the
 * operations table of core/backend.h implemented on sim/sim.h (it lives in
 * core, next to backend.h, so that the sim depends on nothing above it).
 *
 * Owns: the mapping of backend handles to sim objects (the handles are the
 * sim objects themselves, cast) and of core's attributes to the sim's.
 * Must not: add behaviour; everything it does is a sim.h call.
 */
#include <errno.h>
#include <stdio.h>

#include "core/backend.h"
#include "sim/sim.h"

static int be_open(const struct core_dev_attr *attr, struct core_be_dev **out)
{
	struct sim_dev_opts o = {.sz = sizeof(o)};
	struct sim_dev *dev;
	int rc;

	if (attr) {
		o.seed = attr->seed;
		o.fw = attr->relaxed_fw ? SIM_FW_RELAXED : SIM_FW_STRICT;
		if (attr->hazard_policy < SIM_HAZARD_OFF || attr->hazard_policy > SIM_HAZARD_FAIL)
			return -EINVAL;
		o.hazard = (enum sim_hazard_policy)attr->hazard_policy;
		o.chaos = attr->chaos;
		o.node = attr->node;
		o.obs = attr->obs;
		o.log = (sim_log_fn)(void (*)(void))attr->log;
		o.log_ctx = attr->log_ctx;
	}
	rc = sim_dev_open(&o, &dev);
	if (rc)
		return rc;
	if (attr && attr->threaded) {
		rc = sim_dev_start(dev);
		if (rc) {
			sim_dev_close(dev);
			return rc;
		}
	}
	*out = (struct core_be_dev *)dev;
	return 0;
}

static void be_close(struct core_be_dev *dev)
{
	sim_dev_close((struct sim_dev *)dev);
}

static int be_alloc_pd(struct core_be_dev *dev, struct core_be_pd **out)
{
	return sim_pd_alloc((struct sim_dev *)dev, (struct sim_pd **)out);
}

static int be_dealloc_pd(struct core_be_pd *pd)
{
	return sim_pd_dealloc((struct sim_pd *)pd);
}

static int be_reg_mr(struct core_be_dev *dev, struct core_be_pd *pd, void *addr, size_t len,
                     unsigned access, struct core_be_mr **out, struct core_mr_info *info)
{
	struct sim_mr *mr;
	int rc = pd ? sim_mr_reg_pd((struct sim_pd *)pd, addr, len, access, &mr)
	            : sim_mr_reg((struct sim_dev *)dev, addr, len, access, &mr);

	if (rc)
		return rc;
	info->lkey = sim_mr_lkey(mr);
	info->rkey = sim_mr_rkey(mr);
	*out = (struct core_be_mr *)mr;
	return 0;
}

static int be_dereg_mr(struct core_be_mr *mr)
{
	return sim_mr_dereg((struct sim_mr *)mr);
}

static int be_create_cq(struct core_be_dev *dev, const struct core_cq_attr *attr,
                        struct core_be_cq **out, struct core_cq_info *info)
{
	struct sim_cq_attr a = {.ncqe = attr->ncqe, .ignore_overrun = attr->ignore_overrun};
	struct sim_cq *cq;
	int rc = sim_cq_create((struct sim_dev *)dev, &a, &cq);

	if (rc)
		return rc;
	info->cqn = sim_cq_num(cq);
	info->buf = sim_cq_buf(cq);
	info->ncqe = sim_cq_ncqe(cq);
	info->dbrec = sim_cq_dbrec(cq);
	*out = (struct core_be_cq *)cq;
	return 0;
}

static int be_destroy_cq(struct core_be_cq *cq)
{
	return sim_cq_destroy((struct sim_cq *)cq);
}

/* core and sim use the same bit values for the QP flags */
_Static_assert((int)CORE_QP_CROSS_CHANNEL == (int)SIM_QP_CROSS_CHANNEL &&
                   (int)CORE_QP_MANAGED_SEND == (int)SIM_QP_MANAGED_SEND &&
                   (int)CORE_QP_MANAGED_RECV == (int)SIM_QP_MANAGED_RECV &&
                   (int)CORE_QP_IGNORE_RQ_OVERFLOW == (int)SIM_QP_IGNORE_RQ_OVERFLOW,
               "QP flag values");
_Static_assert((int)CORE_ACCESS_LOCAL_WRITE == (int)SIM_ACCESS_LOCAL_WRITE &&
                   (int)CORE_ACCESS_REMOTE_WRITE == (int)SIM_ACCESS_REMOTE_WRITE &&
                   (int)CORE_ACCESS_REMOTE_READ == (int)SIM_ACCESS_REMOTE_READ &&
                   (int)CORE_ACCESS_REMOTE_ATOMIC == (int)SIM_ACCESS_REMOTE_ATOMIC,
               "access flag values");
_Static_assert((int)CORE_QPS_RESET == SIM_QPS_RESET && (int)CORE_QPS_INIT == SIM_QPS_INIT &&
                   (int)CORE_QPS_RTR == SIM_QPS_RTR && (int)CORE_QPS_RTS == SIM_QPS_RTS &&
                   (int)CORE_QPS_ERR == SIM_QPS_ERR,
               "QP state values");

static int be_create_qp(struct core_be_dev *dev, const struct core_qp_attr *attr,
                        struct core_be_qp **out, struct core_qp_info *info)
{
	struct sim_qp_attr a = {
	    .send_cq = (struct sim_cq *)attr->send_cq,
	    .recv_cq = (struct sim_cq *)attr->recv_cq,
	    .sq_bbs = attr->sq_bbs,
	    .rq_wqes = attr->rq_wqes,
	    .rq_max_sge = attr->rq_max_sge,
	    .flags = attr->flags,
	    .pd = (struct sim_pd *)attr->pd,
	    .access = attr->access,
	};
	struct sim_qp *qp;
	int rc = sim_qp_create((struct sim_dev *)dev, &a, &qp);

	if (rc)
		return rc;
	info->qpn = sim_qp_num(qp);
	info->buf = sim_qp_buf(qp);
	info->buf_len = sim_qp_buf_len(qp);
	info->sq_offset = (size_t)((uint8_t *)sim_qp_sq(qp) - (uint8_t *)sim_qp_buf(qp));
	info->sq_bbs = attr->sq_bbs;
	info->rq_wqes = attr->rq_wqes;
	info->rq_stride = sim_qp_rq_stride(qp);
	info->dbrec = sim_qp_dbrec(qp);
	*out = (struct core_be_qp *)qp;
	return 0;
}

static int be_destroy_qp(struct core_be_qp *qp)
{
	return sim_qp_destroy((struct sim_qp *)qp);
}

static int be_modify_qp(struct core_be_qp *qp, enum core_qp_state state,
                        const struct core_qp_peer *peer)
{
	struct sim_qp_mod m = {.state = (int)state};

	if (peer) {
		m.peer_node = peer->node;
		m.peer_qpn = peer->qpn;
		m.rnr_retry = peer->rnr_retry;
		m.min_rnr_timer = peer->min_rnr_timer;
		m.retry_cnt = peer->retry_cnt;
		m.sq_psn = peer->psn;
		m.rq_psn = peer->psn;
	}
	return sim_qp_modify((struct sim_qp *)qp, &m);
}

static int be_ring_sq(struct core_be_qp *qp)
{
	return sim_qp_ring_sq_doorbell((struct sim_qp *)qp);
}

static int be_ring_rq(struct core_be_qp *qp)
{
	return sim_qp_ring_rq_doorbell((struct sim_qp *)qp);
}

static int be_progress(struct core_be_dev *dev)
{
	struct sim_dev *d = (struct sim_dev *)dev;

	return sim_dev_threaded(d) ? 0 : sim_dev_run(d, 0);
}

static uint64_t be_now_ns(struct core_be_dev *dev)
{
	return sim_dev_now((struct sim_dev *)dev) / 1000;
}

/* The sim implements every verb of the NIC model in both firmware profiles. */
static int be_caps(struct core_be_dev *dev, struct core_caps *out)
{
	struct sim_dev *d = (struct sim_dev *)dev;

	*out = (struct core_caps){.cross_channel = true,
	                          .wait_on_data = true,
	                          .relaxed_fw = sim_dev_fw(d) == SIM_FW_RELAXED,
	                          .atomic_8b_host = true,
	                          .masked_sizes = 4 | 8 | 16 | 32};
	snprintf(out->fw_note, sizeof(out->fw_note), "the device's firmware option");
	return 0;
}

static void be_arm_cq(struct core_be_cq *cq, void *ctx, bool check_consumed)
{
	sim_cq_arm((struct sim_cq *)cq, ctx, check_consumed);
}

static unsigned be_take_events(struct core_be_dev *dev, void **ctx, unsigned max)
{
	return sim_dev_take_events((struct sim_dev *)dev, ctx, max);
}

const struct core_backend_ops core_sim_backend = {
    .name = "sim",
    .open = be_open,
    .close = be_close,
    .alloc_pd = be_alloc_pd,
    .dealloc_pd = be_dealloc_pd,
    .reg_mr = be_reg_mr,
    .dereg_mr = be_dereg_mr,
    .create_cq = be_create_cq,
    .destroy_cq = be_destroy_cq,
    .create_qp = be_create_qp,
    .destroy_qp = be_destroy_qp,
    .modify_qp = be_modify_qp,
    .ring_sq = be_ring_sq,
    .ring_rq = be_ring_rq,
    .progress = be_progress,
    .now_ns = be_now_ns,
    .caps = be_caps,
    .arm_cq = be_arm_cq,
    .take_events = be_take_events,
};

struct sim_dev *sim_backend_dev(struct core_be_dev *dev)
{
	return (struct sim_dev *)dev;
}

struct sim_qp *sim_backend_qp(struct core_be_qp *qp)
{
	return (struct sim_qp *)qp;
}

struct sim_cq *sim_backend_cq(struct core_be_cq *cq)
{
	return (struct sim_cq *)cq;
}
