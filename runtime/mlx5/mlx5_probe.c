/* SPDX-License-Identifier: MIT */
/*
 * mlx5/mlx5_probe.c - which firmware profile the NIC runs, found out by
 * asking it: a signaled NOP whose control segment carries a wrong WQE index,
 * on a throw-away QP connected to itself.
 *
 *   completes (CQE opcode REQ)              relaxed: index checks are off
 *                                           (RedN's firmware change)
 *   REQ_ERR, syndrome LOCAL_QP_OP_ERR 0x02  strict: stock firmware
 *   nothing within the timeout, or else     unknown
 *
 * (PCX README "ignore wqe index check, so we can recycle wqes"; RedN §4;
 * tests/rules 4.1 strict-checks-wqe-index asserts the same on every backend.)  The
 * doorbell states the true index; only the WQE in the ring is wrong.
 *
 * Owns: the probe's objects, which it destroys before returning.
 * Must not: leave anything behind on the device, or wait unboundedly.
 */
#include <endian.h>
#include <sched.h>
#include <string.h>

#include <prism/wqe.h>

#include "mlx5/mlx5_be.h"
#include "util/clock.h"

#define PROBE_TIMEOUT_MS 200

/* Post the NOP on @qp and wait for its CQE in @ci. */
static enum mlx5_be_fw run_nop(struct mlx5_be_qp *qp, const struct core_qp_info *qi,
                               const struct core_cq_info *ci)
{
	struct prism_wqe w = {.ctrl = {.opcode = PRISM_OP_NOP,
	                               .wqe_index = 0x1234, /* the true index is 0 */
	                               .qpn = qi->qpn,
	                               .fm_ce_se = PRISM_CE_CQ_UPDATE << PRISM_CTRL_CE_SHIFT}};
	const volatile uint8_t *cqe = ci->buf;
	uint64_t deadline;
	struct prism_cqe c;

	if (prism_wqe_encode(&w, (uint8_t *)qi->buf + qi->sq_offset, PRISM_WQE_BB, NULL) <= 0)
		return MLX5_BE_FW_UNKNOWN;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	qi->dbrec[1] = htobe32(1);
	if (mlx5_be_ring_sq((struct core_be_qp *)qp))
		return MLX5_BE_FW_UNKNOWN;
	deadline = (uint64_t)util_now_ms() + PROBE_TIMEOUT_MS;
	while (!prism_cqe_sw_owned(__atomic_load_n(&cqe[63], __ATOMIC_ACQUIRE), 0, ci->ncqe)) {
		if ((uint64_t)util_now_ms() >= deadline)
			return MLX5_BE_FW_UNKNOWN;
		sched_yield();
	}
	if (prism_cqe_decode((const void *)cqe, &c, NULL))
		return MLX5_BE_FW_UNKNOWN;
	if (c.opcode == PRISM_CQE_REQ)
		return MLX5_BE_FW_RELAXED;
	if (c.opcode == PRISM_CQE_REQ_ERR && c.syndrome == PRISM_SYND_LOCAL_QP_OP_ERR)
		return MLX5_BE_FW_STRICT;
	return MLX5_BE_FW_UNKNOWN;
}

enum mlx5_be_fw mlx5_be_probe_fw(struct mlx5_be_dev *d)
{
	struct core_be_dev *dev = (struct core_be_dev *)d;
	struct core_cq_attr ca = {.ncqe = 4};
	struct core_cq_info ci;
	struct core_qp_info qi;
	struct core_be_cq *cq;
	struct core_be_qp *qp;
	struct core_qp_peer self = {.rnr_retry = 7, .retry_cnt = 7};
	enum mlx5_be_fw fw = MLX5_BE_FW_UNKNOWN;

	if (mlx5_be_create_cq(dev, &ca, &cq, &ci))
		return fw;
	struct core_qp_attr qa = {.send_cq = cq, .recv_cq = cq, .sq_bbs = 4};

	if (!mlx5_be_create_qp(dev, &qa, &qp, &qi)) {
		self.qpn = qi.qpn;
		self.lid = d->port_attr.lid;
		memcpy(self.gid, d->gid.raw, sizeof(self.gid));
		if (!mlx5_be_modify_qp(qp, CORE_QPS_INIT, NULL) &&
		    !mlx5_be_modify_qp(qp, CORE_QPS_RTR, &self) &&
		    !mlx5_be_modify_qp(qp, CORE_QPS_RTS, &self))
			fw = run_nop((struct mlx5_be_qp *)qp, &qi, &ci);
		mlx5_be_modify_qp(qp, CORE_QPS_ERR, NULL);
		mlx5_be_destroy_qp(qp);
	}
	mlx5_be_destroy_cq(cq);
	return fw;
}

const char *mlx5_be_fw_name(enum mlx5_be_fw fw)
{
	static const char *const names[] = {
	    [MLX5_BE_FW_UNKNOWN] = "unknown",
	    [MLX5_BE_FW_STRICT] = "strict",
	    [MLX5_BE_FW_RELAXED] = "relaxed",
	};

	return (unsigned)fw < sizeof(names) / sizeof(names[0]) ? names[fw] : "?";
}
