/* SPDX-License-Identifier: MIT */
/*
 * tests/mlx5emu/mlx5emu_cmd.c - the emulator's firmware: DEVX commands as
 * PRM bytes in, PRM bytes out, carried out on the sim.
 *
 *   general cmd   QUERY_HCA_CAP (general and atomic blocks, current values)
 *   obj create    CREATE_CQ -> sim CQ over the command's umem ring and dbr
 *                 CREATE_QP -> sim QP over the command's umem WQ and dbr;
 *                 qpc.cd_master -> cross-channel, cd_slave_send -> managed
 *                 send queue, cd_slave_receive -> managed receive queue
 *   obj modify    RST2INIT_QP, INIT2RTR_QP, RTR2RTS_QP, 2ERR_QP, 2RST_QP
 *   obj destroy   the object's sim CQ / QP
 *
 * Every field is read through the same PRM table the backend writes with
 * (runtime/mlx5/mlx5_prm.h, checked against DPDK by make check-prm), and
 * every value the emulator does not model is refused, loudly.
 *
 * A managed send queue is the sim's managed queue, which SEND_EN runs
 * whatever its doorbell record says, as hardware does (hw-audit finding 3).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/mlx5emu/mlx5emu_internal.h"

#define GET(buf, len, base, f) mlx5_prm_get(buf, len, base, MLX5_PRM_##f)

/* Write status / syndrome into @out; BAD_* statuses also fail loudly. */
static int answer(void *out, size_t outlen, unsigned status, uint16_t opcode, const char *why)
{
	if (outlen >= MLX5_PRM_SHORT_BYTES) {
		memset(out, 0, MLX5_PRM_SHORT_BYTES);
		mlx5_prm_set(out, outlen, 0, MLX5_PRM_OUT_STATUS, status);
		mlx5_prm_set(out, outlen, 0, MLX5_PRM_OUT_SYNDROME,
		             status ? 0x6e000000u | opcode : 0);
	}
	if (status)
		return emu_fail(EIO, "command 0x%x: %s", opcode, why);
	return 0;
}

/* ---- QUERY_HCA_CAP -------------------------------------------------------- */

static void caps_general(uint8_t *cap)
{
	const size_t n = MLX5_PRM_CAP_BYTES;

	mlx5_prm_set(cap, n, 0, MLX5_PRM_CAP_ATOMIC, 1);
	mlx5_prm_set(cap, n, 0, MLX5_PRM_CAP_CQ_OI, !emu.o.no_cq_oi);
	mlx5_prm_set(cap, n, 0, MLX5_PRM_CAP_CD, !emu.o.no_cd);
	mlx5_prm_set(cap, n, 0, MLX5_PRM_CAP_WAIT_ON_DATA, !emu.o.no_wait_on_data);
	mlx5_prm_set(cap, n, 0, MLX5_PRM_CAP_WAIT_ON_TIME, 0);
	mlx5_prm_set(cap, n, 0, MLX5_PRM_CAP_LOG_MAX_QP_SZ, 15);
	mlx5_prm_set(cap, n, 0, MLX5_PRM_CAP_LOG_MAX_CQ_SZ, 22);
}

static void caps_atomic(uint8_t *cap)
{
	const size_t n = MLX5_PRM_CAP_BYTES;

	mlx5_prm_set(cap, n, 0, MLX5_PRM_ATOMIC_OPERATIONS,
	             MLX5_PRM_ATOMIC_OPS_CMP_SWAP | MLX5_PRM_ATOMIC_OPS_FETCH_ADD |
	                 MLX5_PRM_ATOMIC_OPS_MASKED_CMP_SWAP |
	                 MLX5_PRM_ATOMIC_OPS_MASKED_FETCH_ADD);
	mlx5_prm_set(cap, n, 0, MLX5_PRM_ATOMIC_SIZE_QP, emu.o.atomic_size_qp);
	mlx5_prm_set(cap, n, 0, MLX5_PRM_ATOMIC_REQ_8B_ENDIANNESS_MODE, emu.o.be_atomics ? 0 : 1);
}

int emu_general_cmd(struct ibv_context *ctx, const void *in, size_t inlen, void *out, size_t outlen)
{
	struct emu_ctx *c = (struct emu_ctx *)ctx;
	uint16_t op = (uint16_t)GET(in, inlen, 0, IN_OPCODE);
	uint16_t op_mod = (uint16_t)GET(in, inlen, 0, IN_OP_MOD);
	uint8_t *cap;

	if (!c->devx)
		return emu_fail(EOPNOTSUPP, "mlx5dv_devx_general_cmd on a context without DEVX");
	if (inlen < MLX5_PRM_SHORT_BYTES)
		return emu_fail(EINVAL, "general command: %zu input bytes", inlen);
	if (op != MLX5_PRM_CMD_QUERY_HCA_CAP)
		return answer(out, outlen, MLX5_PRM_STATUS_BAD_OP, op,
		              "general command not implemented by the emulator");
	if (outlen < MLX5_PRM_CAP_OUT_BYTES)
		return answer(out, outlen, MLX5_PRM_STATUS_BAD_PARAM, op,
		              "QUERY_HCA_CAP output shorter than the capability block");
	if (!(op_mod & MLX5_PRM_CAP_CURRENT))
		return answer(out, outlen, MLX5_PRM_STATUS_BAD_PARAM, op,
		              "QUERY_HCA_CAP of the maximum values: not emulated");
	answer(out, outlen, MLX5_PRM_STATUS_OK, op, NULL);
	cap = (uint8_t *)out + mlx5_prm_off(MLX5_PRM_CAP_OUT_CAPABILITY) / 8;
	memset(cap, 0, MLX5_PRM_CAP_BYTES);
	switch (op_mod >> 1) {
	case MLX5_PRM_CAP_TYPE_GENERAL:
		caps_general(cap);
		return 0;
	case MLX5_PRM_CAP_TYPE_ATOMIC:
		caps_atomic(cap);
		return 0;
	default:
		return answer(out, outlen, MLX5_PRM_STATUS_BAD_PARAM, op,
		              "QUERY_HCA_CAP: capability type not emulated");
	}
}

/* ---- objects --------------------------------------------------------------- */

/* @len bytes at umem @id + @off, or NULL (loudly) when they are not inside it. */
static void *umem_span(struct emu_ctx *c, uint32_t id, uint64_t off, uint64_t len, const char *what)
{
	struct emu_umem *u = emu_umem_find(c, id);

	if (!u) {
		emu_fail(EINVAL, "%s: umem id %u is not registered", what, id);
		return NULL;
	}
	if (off > u->size || len > u->size - off) {
		emu_fail(EINVAL, "%s: %llu bytes at offset %llu run past umem %u (%zu bytes)", what,
		         (unsigned long long)len, (unsigned long long)off, id, u->size);
		return NULL;
	}
	return u->addr + off;
}

static struct mlx5dv_devx_obj *obj_add(struct emu_ctx *c, enum emu_obj_kind k)
{
	struct mlx5dv_devx_obj *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->ctx = c;
	o->kind = k;
	return o;
}

static void obj_link(struct mlx5dv_devx_obj *o)
{
	pthread_mutex_lock(&emu.lock);
	o->next = o->ctx->objs;
	o->ctx->objs = o;
	pthread_mutex_unlock(&emu.lock);
}

static struct sim_cq *cq_by_num(struct emu_ctx *c, uint32_t cqn)
{
	struct mlx5dv_devx_obj *o;

	pthread_mutex_lock(&emu.lock);
	for (o = c->objs; o && !(o->kind == EMU_OBJ_CQ && o->num == cqn); o = o->next)
		;
	pthread_mutex_unlock(&emu.lock);
	return o ? o->cq : NULL;
}

static struct mlx5dv_devx_obj *create_cq(struct emu_ctx *c, const void *in, size_t n, void *out,
                                         size_t outlen)
{
	const uint32_t cqc = mlx5_prm_off(MLX5_PRM_CREATE_CQ_IN_CQC);
	uint32_t log = (uint32_t)GET(in, n, cqc, CQC_LOG_CQ_SIZE);
	struct sim_cq_attr a = {.ncqe = 1u << log, .ignore_overrun = GET(in, n, cqc, CQC_OI)};
	const uint16_t op = MLX5_PRM_CMD_CREATE_CQ;
	struct mlx5dv_devx_obj *o;
	const char *bad = NULL;

	if (n < MLX5_PRM_CQ_CMD_IN_BYTES)
		bad = "input shorter than create_cq_in";
	else if (GET(in, n, cqc, CQC_CQE_SZ) != 0)
		bad = "cqc.cqe_sz: only 64-byte CQEs are emulated";
	else if (log < 1 || log > 22)
		bad = "cqc.log_cq_size out of range";
	else if (!emu_uar_page_known(c, (uint32_t)GET(in, n, cqc, CQC_UAR_PAGE)))
		bad = "cqc.uar_page is not a UAR of this context";
	else if (GET(in, n, cqc, CQC_C_EQN) != EMU_EQN)
		bad = "cqc.c_eqn is not the EQ mlx5dv_devx_query_eqn gave";
	else if (GET(in, n, cqc, CQC_LOG_PAGE_SIZE) != 0)
		bad = "cqc.log_page_size: only 4 KiB pages are emulated";
	else if (a.ignore_overrun && emu.o.no_cq_oi)
		bad = "cqc.oi set on a device without cq_oi";
	else if (!GET(in, n, 0, CREATE_CQ_IN_UMEM_VALID) || !GET(in, n, cqc, CQC_DBR_UMEM_VALID))
		bad = "ring and doorbell record must be umem (cq_umem_valid, dbr_umem_valid)";
	if (bad) {
		answer(out, outlen, MLX5_PRM_STATUS_BAD_PARAM, op, bad);
		return NULL;
	}
	a.ext_buf = umem_span(c, (uint32_t)GET(in, n, 0, CREATE_CQ_IN_UMEM_ID),
	                      GET(in, n, 0, CREATE_CQ_IN_UMEM_OFFSET),
	                      (uint64_t)a.ncqe * PRISM_CQE_BYTES, "CREATE_CQ ring");
	a.ext_dbrec = umem_span(c, (uint32_t)GET(in, n, cqc, CQC_DBR_UMEM_ID),
	                        GET(in, n, cqc, CQC_DBR_ADDR), 8, "CREATE_CQ doorbell record");
	if (!a.ext_buf || !a.ext_dbrec) {
		answer(out, outlen, MLX5_PRM_STATUS_BAD_PARAM, op, "umem range");
		return NULL;
	}
	if (!(o = obj_add(c, EMU_OBJ_CQ)) || sim_cq_create(c->sim, &a, &o->cq)) {
		free(o);
		answer(out, outlen, MLX5_PRM_STATUS_BAD_STATE, op, "the sim refused the CQ");
		return NULL;
	}
	o->num = sim_cq_num(o->cq);
	answer(out, outlen, MLX5_PRM_STATUS_OK, op, NULL);
	mlx5_prm_set(out, outlen, 0, MLX5_PRM_CREATE_CQ_OUT_CQN, o->num);
	obj_link(o);
	return o;
}

static struct mlx5dv_devx_obj *create_qp(struct emu_ctx *c, const void *in, size_t n, void *out,
                                         size_t outlen)
{
	const uint32_t qpc = mlx5_prm_off(MLX5_PRM_CREATE_QP_IN_QPC);
	const uint16_t op = MLX5_PRM_CMD_CREATE_QP;
	uint32_t rq_type = (uint32_t)GET(in, n, qpc, QPC_RQ_TYPE);
	uint32_t stride = 16u << GET(in, n, qpc, QPC_LOG_RQ_STRIDE);
	struct sim_qp_attr a = {
	    .send_cq = cq_by_num(c, (uint32_t)GET(in, n, qpc, QPC_CQN_SND)),
	    .recv_cq = cq_by_num(c, (uint32_t)GET(in, n, qpc, QPC_CQN_RCV)),
	    .sq_bbs = 1u << GET(in, n, qpc, QPC_LOG_SQ_SIZE),
	    .rq_wqes =
	        rq_type == MLX5_PRM_QPC_RQ_REGULAR ? 1u << GET(in, n, qpc, QPC_LOG_RQ_SIZE) : 0,
	    .rq_max_sge = stride / 16,
	};
	struct mlx5dv_devx_obj *o;
	const char *bad = NULL;
	uint8_t *wq;

	if (GET(in, n, qpc, QPC_CD_MASTER))
		a.flags |= SIM_QP_CROSS_CHANNEL;
	if (GET(in, n, qpc, QPC_CD_SLAVE_SEND))
		a.flags |= SIM_QP_MANAGED_SEND;
	if (GET(in, n, qpc, QPC_CD_SLAVE_RECEIVE))
		a.flags |= SIM_QP_MANAGED_RECV;
	if (n < MLX5_PRM_QP_CMD_IN_BYTES)
		bad = "input shorter than create_qp_in";
	else if (GET(in, n, qpc, QPC_ST) != MLX5_PRM_QPC_ST_RC)
		bad = "qpc.st: only RC QPs are emulated";
	else if (GET(in, n, qpc, QPC_PM_STATE) != MLX5_PRM_QPC_PM_MIGRATED)
		bad = "qpc.pm_state: only MIGRATED is emulated";
	else if (!(a.pd = emu_pd_by_pdn(c, (uint32_t)GET(in, n, qpc, QPC_PD))))
		bad = "qpc.pd is not a PD of this context";
	else if (!emu_uar_page_known(c, (uint32_t)GET(in, n, qpc, QPC_UAR_PAGE)))
		bad = "qpc.uar_page is not a UAR of this context";
	else if (!a.send_cq || !a.recv_cq)
		bad = "qpc.cqn_snd / cqn_rcv is not a CQ of this context";
	else if (rq_type != MLX5_PRM_QPC_RQ_REGULAR && rq_type != MLX5_PRM_QPC_RQ_ZERO_SIZE)
		bad = "qpc.rq_type: regular or zero-size RQs only";
	else if (a.rq_wqes && a.rq_max_sge > PRISM_WQE_MAX_SGE)
		bad = "qpc.log_rq_stride: more than 16 data segments";
	else if (GET(in, n, qpc, QPC_LOG_PAGE_SIZE) != 0)
		bad = "qpc.log_page_size: only 4 KiB pages are emulated";
	else if (!GET(in, n, 0, CREATE_QP_IN_UMEM_VALID) || !GET(in, n, qpc, QPC_DBR_UMEM_VALID))
		bad = "work queue and doorbell record must be umem (wq_umem_valid, dbr_umem_valid)";
	else if ((a.flags & (SIM_QP_MANAGED_SEND | SIM_QP_MANAGED_RECV | SIM_QP_CROSS_CHANNEL)) &&
	         emu.o.no_cd)
		bad = "qpc.cd_* set on a device without cross-channel (cmd_hca_cap.cd = 0)";
	if (bad) {
		answer(out, outlen, MLX5_PRM_STATUS_BAD_PARAM, op, bad);
		return NULL;
	}
	wq = umem_span(c, (uint32_t)GET(in, n, 0, CREATE_QP_IN_UMEM_ID),
	               GET(in, n, 0, CREATE_QP_IN_UMEM_OFFSET),
	               (uint64_t)a.rq_wqes * stride + (uint64_t)a.sq_bbs * PRISM_WQE_BB,
	               "CREATE_QP work queue");
	a.ext_buf = wq;
	a.ext_dbrec = umem_span(c, (uint32_t)GET(in, n, qpc, QPC_DBR_UMEM_ID),
	                        GET(in, n, qpc, QPC_DBR_ADDR), 8, "CREATE_QP doorbell record");
	if (!a.ext_buf || !a.ext_dbrec) {
		answer(out, outlen, MLX5_PRM_STATUS_BAD_PARAM, op, "umem range");
		return NULL;
	}
	if (!(o = obj_add(c, EMU_OBJ_QP)) || sim_qp_create(c->sim, &a, &o->qp)) {
		free(o);
		answer(out, outlen, MLX5_PRM_STATUS_BAD_STATE, op, "the sim refused the QP");
		return NULL;
	}
	o->num = sim_qp_num(o->qp);
	o->state = SIM_QPS_RESET;
	o->managed_send = a.flags & SIM_QP_MANAGED_SEND;
	answer(out, outlen, MLX5_PRM_STATUS_OK, op, NULL);
	mlx5_prm_set(out, outlen, 0, MLX5_PRM_CREATE_QP_OUT_QPN, o->num);
	obj_link(o);
	return o;
}

struct mlx5dv_devx_obj *emu_obj_create(struct ibv_context *ctx, const void *in, size_t inlen,
                                       void *out, size_t outlen)
{
	struct emu_ctx *c = (struct emu_ctx *)ctx;
	uint16_t op = (uint16_t)GET(in, inlen, 0, IN_OPCODE);

	if (!c->devx) {
		emu_fail(EOPNOTSUPP, "mlx5dv_devx_obj_create on a context without DEVX");
		return NULL;
	}
	switch (op) {
	case MLX5_PRM_CMD_CREATE_CQ:
		return create_cq(c, in, inlen, out, outlen);
	case MLX5_PRM_CMD_CREATE_QP:
		return create_qp(c, in, inlen, out, outlen);
	default:
		answer(out, outlen, MLX5_PRM_STATUS_BAD_OP, op,
		       "object-creating command not implemented by the emulator");
		return NULL;
	}
}

/* ---- QP state commands ----------------------------------------------------- */

static const struct {
	uint16_t op;
	int from, to; /* from -1: any state */
	enum mlx5_prm_field qpn, qpc;
} transitions[] = {
    {MLX5_PRM_CMD_RST2INIT_QP, SIM_QPS_RESET, SIM_QPS_INIT, MLX5_PRM_RST2INIT_IN_QPN,
     MLX5_PRM_RST2INIT_IN_QPC},
    {MLX5_PRM_CMD_INIT2RTR_QP, SIM_QPS_INIT, SIM_QPS_RTR, MLX5_PRM_INIT2RTR_IN_QPN,
     MLX5_PRM_INIT2RTR_IN_QPC},
    {MLX5_PRM_CMD_RTR2RTS_QP, SIM_QPS_RTR, SIM_QPS_RTS, MLX5_PRM_RTR2RTS_IN_QPN,
     MLX5_PRM_RTR2RTS_IN_QPC},
    {MLX5_PRM_CMD_2ERR_QP, -1, SIM_QPS_ERR, MLX5_PRM_QP_2RST_IN_QPN, 0},
    {MLX5_PRM_CMD_2RST_QP, -1, SIM_QPS_RESET, MLX5_PRM_QP_2RST_IN_QPN, 0},
};

/*
 * INIT2RTR's address path, to an emulated device (its sim node is its LID):
 * force loopback (this device); InfiniBand: the remote LID; RoCE: the remote
 * GID, with the MAC its address handle gives (grh, rgid_rip, rmac_*).
 */
static const char *rtr_path(struct emu_ctx *c, const void *in, size_t n, uint32_t qpc,
                            struct sim_qp_mod *m)
{
	uint32_t rlid = (uint32_t)GET(in, n, qpc, QPC_PAP_RLID);

	if (GET(in, n, qpc, QPC_PAP_VHCA_PORT_NUM) != 1)
		return "primary_address_path.vhca_port_num: the device has port 1";
	if (GET(in, n, qpc, QPC_PAP_FL)) {
		m->peer_node = sim_dev_node(c->sim);
	} else if (!emu.o.roce) {
		if (GET(in, n, qpc, QPC_PAP_GRH) || rlid < 1 || rlid > emu.o.n_devices)
			return "address path: no emulated InfiniBand port has that LID (rlid), or "
			       "a GRH on the emulated subnet";
		m->peer_node = rlid;
	} else {
		uint8_t gid[16], mac[6];
		uint32_t node = 0;

		mlx5_prm_get_bytes(in, n, qpc, MLX5_PRM_QPC_PAP_RGID_RIP, gid);
		if (!GET(in, n, qpc, QPC_PAP_GRH) || emu_node_by_gid(gid, &node))
			return "address path: RoCE needs grh and the GID (rgid_rip) of an emulated "
			       "port";
		emu_mac(node, mac);
		if (GET(in, n, qpc, QPC_PAP_RMAC_47_32) != ((uint32_t)mac[0] << 8 | mac[1]) ||
		    GET(in, n, qpc, QPC_PAP_RMAC_31_0) !=
		        ((uint32_t)mac[2] << 24 | (uint32_t)mac[3] << 16 | (uint32_t)mac[4] << 8 |
		         mac[5]))
			return "address path: rmac is not the MAC of the port with that GID";
		m->peer_node = node;
	}
	m->peer_qpn = (uint32_t)GET(in, n, qpc, QPC_REMOTE_QPN);
	m->rq_psn = (uint32_t)GET(in, n, qpc, QPC_NEXT_RCV_PSN);
	m->min_rnr_timer = (uint8_t)GET(in, n, qpc, QPC_MIN_RNR_NAK);
	if (GET(in, n, qpc, QPC_ATOMIC_MODE) != MLX5_PRM_ATOMIC_MODE_8B &&
	    GET(in, n, qpc, QPC_ATOMIC_MODE) != MLX5_PRM_ATOMIC_MODE_32B)
		return "qpc.atomic_mode: 3 (8 bytes) or 5 (up to 32 bytes) expected";
	if (GET(in, n, qpc, QPC_ATOMIC_MODE) == MLX5_PRM_ATOMIC_MODE_32B &&
	    !(emu.o.atomic_size_qp & 32))
		return "qpc.atomic_mode 5 on a device without 32-byte atomics";
	return NULL;
}

int emu_obj_modify(struct mlx5dv_devx_obj *o, const void *in, size_t n, void *out, size_t outlen)
{
	uint16_t op = (uint16_t)GET(in, n, 0, IN_OPCODE);
	struct sim_qp_mod m = {0};
	const char *bad = NULL;
	unsigned i;
	uint32_t qpc;

	for (i = 0; i < sizeof(transitions) / sizeof(transitions[0]); i++)
		if (transitions[i].op == op)
			break;
	if (i == sizeof(transitions) / sizeof(transitions[0]) || o->kind != EMU_OBJ_QP)
		return answer(out, outlen, MLX5_PRM_STATUS_BAD_OP, op,
		              "modify command not implemented by the emulator for this object");
	qpc = transitions[i].qpc ? mlx5_prm_off(transitions[i].qpc) : 0;
	if (n < (transitions[i].qpc ? MLX5_PRM_QP_CMD_IN_BYTES : MLX5_PRM_SHORT_BYTES))
		bad = "input shorter than the command";
	else if (mlx5_prm_get(in, n, 0, transitions[i].qpn) != o->num)
		bad = "qpn is not this object's QP";
	else if (transitions[i].from >= 0 && o->state != transitions[i].from)
		bad = "QP is not in the state this command leaves";
	if (!bad) {
		m.state = transitions[i].to;
		switch (transitions[i].to) {
		case SIM_QPS_INIT:
			if (GET(in, n, qpc, QPC_PM_STATE) != MLX5_PRM_QPC_PM_MIGRATED)
				bad = "qpc.pm_state: MIGRATED expected";
			/* the remote rights the responder serves */
			m.set_access = true;
			m.access = (GET(in, n, qpc, QPC_RRE) ? SIM_ACCESS_REMOTE_READ : 0) |
			           (GET(in, n, qpc, QPC_RWE) ? SIM_ACCESS_REMOTE_WRITE : 0) |
			           (GET(in, n, qpc, QPC_RAE) ? SIM_ACCESS_REMOTE_ATOMIC : 0);
			break;
		case SIM_QPS_RTR:
			bad = rtr_path(o->ctx, in, n, qpc, &m);
			break;
		case SIM_QPS_RTS:
			m.sq_psn = (uint32_t)GET(in, n, qpc, QPC_NEXT_SEND_PSN);
			m.retry_cnt = (uint8_t)GET(in, n, qpc, QPC_RETRY_COUNT);
			m.rnr_retry = (uint8_t)GET(in, n, qpc, QPC_RNR_RETRY);
			break;
		default:
			break;
		}
	}
	if (bad)
		return answer(out, outlen, MLX5_PRM_STATUS_BAD_PARAM, op, bad);
	if (sim_qp_modify(o->qp, &m))
		return answer(out, outlen, MLX5_PRM_STATUS_BAD_STATE, op, "the sim refused it");
	o->state = m.state;
	return answer(out, outlen, MLX5_PRM_STATUS_OK, op, NULL);
}

int emu_obj_destroy(struct mlx5dv_devx_obj *o)
{
	struct mlx5dv_devx_obj **pp;
	int rc = o->kind == EMU_OBJ_QP ? sim_qp_destroy(o->qp) : sim_cq_destroy(o->cq);

	if (rc)
		return emu_fail(EBUSY, "destroy %s 0x%x: the sim refused (%d)",
		                o->kind == EMU_OBJ_QP ? "QP" : "CQ", o->num, rc);
	pthread_mutex_lock(&emu.lock);
	emu_event_forget(o); /* its event, read off the sim already, is gone */
	for (pp = &o->ctx->objs; *pp && *pp != o; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = o->next;
	pthread_mutex_unlock(&emu.lock);
	free(o);
	return 0;
}
