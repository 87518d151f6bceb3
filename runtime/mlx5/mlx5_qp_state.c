/* SPDX-License-Identifier: MIT */
/*
 * mlx5/mlx5_qp_state.c - RC QP state changes of a DEVX QP, as firmware
 * commands (ibv_modify_qp cannot be used on a DEVX object):
 *
 *   RESET --RST2INIT_QP--> INIT --INIT2RTR_QP--> RTR --RTR2RTS_QP--> RTS
 *   any   --2ERR_QP------> ERR       any --2RST_QP--> RESET
 *
 * RST2INIT: port, pkey index 0, the remote rights the QP's responder serves
 * (rre / rwe / rae from core_qp_attr.access).  INIT2RTR: path MTU, remote
 * QPN and PSN, min RNR NAK timer, responder resources, the atomic mode
 * (8-byte, or up to 32 bytes where the device's atomic_size_qp allows:
 * UCX rc_mlx5_devx.c, Linux MLX5_ATOMIC_MODE_*), and the address path:
 * InfiniBand by LID, RoCE by GID (grh, src_addr_index = GID index,
 * hop limit, UDP source port, the peer's MAC from an address handle), the
 * device's own address by force-loopback
 * (fl, as DPDK's mlx5_devx_cmd_modify_qp_state does for its loopback QPs).
 * RTR2RTS: send PSN, retry and RNR retry counts (7 = infinite), requester
 * resources, ACK timeout.
 *
 * Must not: call rdma-core except through mlx5_glue().
 */
#include <errno.h>
#include <string.h>

#include "mlx5/mlx5_be.h"

#define LOG_RA_MAX  4  /* 16 outstanding READs / atomics each way */
#define ACK_TIMEOUT 14 /* 4.096 us << 14 = 67 ms */
#define HOP_LIMIT   64
#define UDP_SPORT   0xc000 /* RoCE v2 source port (any in the dynamic range) */

static const struct {
	uint16_t opcode;
	enum mlx5_prm_field qpn, opt, qpc; /* opt, qpc: 0 = none */
	const char *name;
} cmds[] = {
    [CORE_QPS_INIT] = {MLX5_PRM_CMD_RST2INIT_QP, MLX5_PRM_RST2INIT_IN_QPN,
                       MLX5_PRM_RST2INIT_IN_OPT_PARAM_MASK, MLX5_PRM_RST2INIT_IN_QPC,
                       "RST2INIT_QP"},
    [CORE_QPS_RTR] = {MLX5_PRM_CMD_INIT2RTR_QP, MLX5_PRM_INIT2RTR_IN_QPN,
                      MLX5_PRM_INIT2RTR_IN_OPT_PARAM_MASK, MLX5_PRM_INIT2RTR_IN_QPC, "INIT2RTR_QP"},
    [CORE_QPS_RTS] = {MLX5_PRM_CMD_RTR2RTS_QP, MLX5_PRM_RTR2RTS_IN_QPN,
                      MLX5_PRM_RTR2RTS_IN_OPT_PARAM_MASK, MLX5_PRM_RTR2RTS_IN_QPC, "RTR2RTS_QP"},
    [CORE_QPS_ERR] = {MLX5_PRM_CMD_2ERR_QP, MLX5_PRM_QP_2RST_IN_QPN, 0, 0, "2ERR_QP"},
    [CORE_QPS_RESET] = {MLX5_PRM_CMD_2RST_QP, MLX5_PRM_QP_2RST_IN_QPN, 0, 0, "2RST_QP"},
};

static bool is_self(const struct mlx5_be_dev *d, const struct core_qp_peer *p)
{
	if (d->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET)
		return !memcmp(p->gid, d->gid.raw, 16);
	return p->lid == d->port_attr.lid;
}

/*
 * A RoCE peer's MAC, as the kernel resolves it for an address handle (UCX
 * uct_ib_mlx5_get_av: ibv_create_ah, then the AV of mlx5dv_init_obj AH).
 */
static int resolve_rmac(struct mlx5_be_dev *d, const uint8_t gid[16], uint8_t mac[6])
{
	struct ibv_ah_attr aa = {.is_global = 1, .port_num = d->port};
	struct mlx5dv_ah dvah = {0};
	struct mlx5dv_obj obj = {.ah = {.out = &dvah}};
	struct ibv_ah *ah;
	int err = 0;

	aa.grh.sgid_index = (uint8_t)d->gid_index;
	aa.grh.hop_limit = HOP_LIMIT;
	memcpy(aa.grh.dgid.raw, gid, 16);
	ah = d->g->create_ah(d->pd, &aa);
	obj.ah.in = ah;
	if (!ah || d->g->dv_init_obj(&obj, MLX5DV_OBJ_AH) || !dvah.av)
		err = -(errno ? errno : EHOSTUNREACH);
	else
		memcpy(mac, dvah.av->rmac, 6);
	if (ah)
		d->g->destroy_ah(ah);
	return err;
}

static void address_path(struct mlx5_prm_cmd *c, uint32_t qpc, const struct mlx5_be_dev *d,
                         const struct core_qp_peer *p, const uint8_t rmac[6])
{
	mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_PAP_VHCA_PORT_NUM, d->port);
	if (is_self(d, p)) {
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_PAP_FL, 1);
		return;
	}
	if (d->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET) {
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_PAP_GRH, 1);
		if (mlx5_prm_set_bytes(c->in, c->inlen, qpc, MLX5_PRM_QPC_PAP_RGID_RIP, p->gid) &&
		    !c->err)
			c->err = -ERANGE;
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_PAP_SRC_ADDR_INDEX, (uint64_t)d->gid_index);
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_PAP_HOP_LIMIT, HOP_LIMIT);
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_PAP_UDP_SPORT, UDP_SPORT);
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_PAP_RMAC_47_32,
		                 (uint32_t)rmac[0] << 8 | rmac[1]);
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_PAP_RMAC_31_0,
		                 (uint32_t)rmac[2] << 24 | (uint32_t)rmac[3] << 16 |
		                     (uint32_t)rmac[4] << 8 | rmac[5]);
	} else {
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_PAP_RLID, p->lid);
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_PAP_SL, 0);
	}
}

static void fill(struct mlx5_prm_cmd *c, uint32_t qpc, const struct mlx5_be_qp *qp,
                 enum core_qp_state to, const struct core_qp_peer *p, const uint8_t rmac[6])
{
	const struct mlx5_be_dev *d = qp->dev;

	switch (to) {
	case CORE_QPS_INIT:
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_PM_STATE, MLX5_PRM_QPC_PM_MIGRATED);
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_PAP_VHCA_PORT_NUM, d->port);
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_PAP_PKEY_INDEX, 0);
		/* the remote rights the responder serves (qp_access_flags) */
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_RRE,
		                 !!(qp->access & CORE_ACCESS_REMOTE_READ));
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_RWE,
		                 !!(qp->access & CORE_ACCESS_REMOTE_WRITE));
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_RAE,
		                 !!(qp->access & CORE_ACCESS_REMOTE_ATOMIC));
		break;
	case CORE_QPS_RTR:
		/* path MTU: the smaller of the two ports' (enum ibv_mtu = PRM mtu codes) */
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_MTU,
		                 p->mtu && p->mtu < (unsigned)d->port_attr.active_mtu
		                     ? p->mtu
		                     : (unsigned)d->port_attr.active_mtu);
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_LOG_MSG_MAX, 30);
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_REMOTE_QPN, p->qpn & 0xffffffu);
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_NEXT_RCV_PSN, p->psn & 0xffffffu);
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_MIN_RNR_NAK, p->min_rnr_timer & 0x1fu);
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_LOG_RRA_MAX, LOG_RA_MAX);
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_ATOMIC_MODE,
		                 d->caps.atomic_size_qp & 32u ? MLX5_PRM_ATOMIC_MODE_32B
		                                              : MLX5_PRM_ATOMIC_MODE_8B);
		address_path(c, qpc, d, p, rmac);
		break;
	case CORE_QPS_RTS:
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_NEXT_SEND_PSN, p->psn & 0xffffffu);
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_RETRY_COUNT, p->retry_cnt & 7u);
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_RNR_RETRY, p->rnr_retry & 7u);
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_LOG_SRA_MAX, LOG_RA_MAX);
		mlx5_prm_cmd_set(c, qpc, MLX5_PRM_QPC_PAP_ACK_TIMEOUT, ACK_TIMEOUT);
		break;
	default:
		break;
	}
}

int mlx5_be_modify_qp(struct core_be_qp *cqp, enum core_qp_state state,
                      const struct core_qp_peer *peer)
{
	struct mlx5_be_qp *qp = (struct mlx5_be_qp *)cqp;
	struct mlx5_be_dev *d = qp->dev;
	uint8_t out[MLX5_PRM_SHORT_BYTES] = {0};
	struct mlx5_prm_cmd c;
	uint8_t rmac[6] = {0};
	int rc;

	if ((unsigned)state > CORE_QPS_ERR || !cmds[state].opcode)
		return -EINVAL;
	if ((state == CORE_QPS_RTR || state == CORE_QPS_RTS) && !peer)
		return -EINVAL;
	/* IBA 10.3.1: only RESET->INIT->RTR->RTS in order, ERR and RESET from anywhere */
	if ((state == CORE_QPS_INIT && qp->state != CORE_QPS_RESET) ||
	    (state == CORE_QPS_RTR && qp->state != CORE_QPS_INIT) ||
	    (state == CORE_QPS_RTS && qp->state != CORE_QPS_RTR))
		return -EINVAL;
	if (state == CORE_QPS_RTR && d->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET &&
	    !is_self(d, peer) && (rc = resolve_rmac(d, peer->gid, rmac))) {
		mlx5_be_log(d, PRISM_LOG_ERROR,
		            "%s: QP 0x%x: no route to the RoCE peer's GID (address handle: %s)",
		            d->name, qp->qpn, strerror(-rc));
		return rc;
	}
	mlx5_prm_cmd_init(&c, cmds[state].opcode, 0,
	                  cmds[state].qpc ? MLX5_PRM_QP_CMD_IN_BYTES : MLX5_PRM_SHORT_BYTES);
	mlx5_prm_cmd_set(&c, 0, cmds[state].qpn, qp->qpn);
	if (cmds[state].qpc)
		fill(&c, mlx5_prm_off(cmds[state].qpc), qp, state, peer, rmac);
	if (c.err)
		return c.err;
	rc = d->g->devx_obj_modify(qp->obj, c.in, c.inlen, out, sizeof(out));
	if ((rc = mlx5_be_cmd_status(d, cmds[state].name, rc, out, sizeof(out))))
		return rc;
	qp->state = state;
	if (state == CORE_QPS_RESET)
		qp->sq_rung = 0;
	return 0;
}
