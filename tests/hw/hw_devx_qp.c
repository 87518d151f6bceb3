/* SPDX-License-Identifier: MIT */
/*
 * tests/hw/hw_devx_qp.c - cross-channel RC QPs created through DEVX, the
 * only upstream route to them (rdma-core's ibv_create_qp_ex and
 * mlx5dv_create_qp have no cross-channel flags).  The firmware commands
 * CREATE_QP, RST2INIT_QP, INIT2RTR_QP and RTR2RTS_QP are built by hand in the
 * layouts of Linux include/linux/mlx5/mlx5_ifc.h (struct mlx5_ifc_qpc_bits,
 * mlx5_ifc_ads_bits, create_qp_in, rst2init/init2rtr/rtr2rts_qp_in), the
 * way DPDK's mlx5_devx_cmd_create_qp / mlx5_devx_cmd_modify_qp_state do:
 *
 *   - work queue and doorbell record in DEVX umem (the receive queue at
 *     offset 0, the send queue right after it, as in any mlx5 QP);
 *   - a UAR page from mlx5dv_devx_alloc_uar for the doorbell;
 *   - send and receive CQs are ordinary verbs CQs (their CQN from
 *     mlx5dv_init_obj), polled raw by hw_raw.c;
 *   - qpc.cd_master / cd_slave_send / cd_slave_receive select the roles;
 *   - the pair is connected with primary_address_path.fl (force loopback),
 *     so no LID, GID or MAC is involved.
 *
 * The result is a struct hw_qp, so tests post the codec's bytes into it with
 * hw_post / hw_ring / hw_post_recv like any raw QP.
 *
 * Owns: the DEVX objects of these QPs.  Must not: touch QPs it did not make.
 */
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/hw/hw_common.h"

#define CMD_CREATE_QP   0x500
#define CMD_RST2INIT_QP 0x502
#define CMD_INIT2RTR_QP 0x503
#define CMD_RTR2RTS_QP  0x504
#define CMD_IN_BYTES    (0x880 / 8) /* create_qp_in / *_qp_in without PAS */
#define CMD_OUT_BYTES   16

/* command header (bits) */
#define IN_OPCODE         0x00 /* 16 */
#define IN_QPN            0x48 /* 24, modify commands */
#define IN_QPC            0xc0
#define IN_WQ_UMEM_OFFSET 0x800 /* 64, create_qp_in */
#define IN_WQ_UMEM_ID     0x840 /* 32 */
#define IN_WQ_UMEM_VALID  0x860 /* 1 */
#define OUT_QPN           0x48  /* 24, create_qp_out */

/* struct mlx5_ifc_qpc_bits (bits from the start of qpc) */
#define QPC_ST               0x08  /* 8: 0 = RC */
#define QPC_PM_STATE         0x13  /* 2: 3 = migrated */
#define QPC_PD               0x28  /* 24 */
#define QPC_MTU              0x40  /* 3 */
#define QPC_LOG_MSG_MAX      0x43  /* 5 */
#define QPC_LOG_RQ_SIZE      0x49  /* 4 */
#define QPC_LOG_RQ_STRIDE    0x4d  /* 3: log2(stride) - 4 */
#define QPC_LOG_SQ_SIZE      0x51  /* 4 */
#define QPC_UAR_PAGE         0x68  /* 24 */
#define QPC_REMOTE_QPN       0xa8  /* 24 */
#define QPC_PAP              0xc0  /* primary_address_path (mlx5_ifc_ads_bits) */
#define ADS_FL               0x00  /* 1: force loopback */
#define ADS_PKEY_INDEX       0x10  /* 16 */
#define ADS_ACK_TIMEOUT      0x40  /* 5 */
#define ADS_VHCA_PORT_NUM    0x128 /* 8 */
#define QPC_LOG_SRA_MAX      0x388 /* 3 */
#define QPC_RETRY_COUNT      0x38d /* 3 */
#define QPC_RNR_RETRY        0x390 /* 3 */
#define QPC_NEXT_SEND_PSN    0x3c8 /* 24 */
#define QPC_CQN_SND          0x3e8 /* 24 */
#define QPC_LOG_RRA_MAX      0x488 /* 3 */
#define QPC_RRE              0x490
#define QPC_RWE              0x491
#define QPC_CD_SLAVE_RECEIVE 0x49d
#define QPC_CD_SLAVE_SEND    0x49e
#define QPC_CD_MASTER        0x49f
#define QPC_MIN_RNR_NAK      0x4a3 /* 5 */
#define QPC_NEXT_RCV_PSN     0x4a8 /* 24 */
#define QPC_CQN_RCV          0x4e8 /* 24 */
#define QPC_DBR_ADDR         0x500 /* 64 */
#define QPC_DBR_UMEM_VALID   0x683
#define QPC_DBR_UMEM_ID      0x720 /* 32 */

#define XQP_RQ_WQES  16u
#define XQP_RQ_DS    4u /* 64-byte receive WQEs: up to 4 entries */
#define XQP_SQ_BBS   64u
#define XQP_WQ_BYTES 8192u /* RQ (1 KiB) + SQ (4 KiB), in whole pages */

void hw_set_bits(uint8_t *buf, unsigned off, unsigned width, uint64_t v)
{
	for (unsigned i = 0; i < width; i++) {
		unsigned bit = off + i;
		uint8_t m = (uint8_t)(0x80u >> (bit % 8));

		if ((v >> (width - 1 - i)) & 1)
			buf[bit / 8] |= m;
		else
			buf[bit / 8] &= (uint8_t)~m;
	}
}

static void qpc_set(uint8_t *in, unsigned off, unsigned width, uint64_t v)
{
	hw_set_bits(in, IN_QPC + off, width, v);
}

static unsigned log2u(unsigned v)
{
	unsigned l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

void hw_xqp_build_create(uint8_t *in, const struct hw_xqp_params *p)
{
	memset(in, 0, CMD_IN_BYTES);
	hw_set_bits(in, IN_OPCODE, 16, CMD_CREATE_QP);
	qpc_set(in, QPC_ST, 8, 0);
	qpc_set(in, QPC_PM_STATE, 2, 3);
	qpc_set(in, QPC_PD, 24, p->pdn);
	qpc_set(in, QPC_UAR_PAGE, 24, p->uar_page);
	qpc_set(in, QPC_LOG_SQ_SIZE, 4, log2u(p->sq_bbs));
	qpc_set(in, QPC_LOG_RQ_SIZE, 4, log2u(p->rq_wqes));
	qpc_set(in, QPC_LOG_RQ_STRIDE, 3, log2u(p->rq_stride) - 4);
	qpc_set(in, QPC_CQN_SND, 24, p->cqn_snd);
	qpc_set(in, QPC_CQN_RCV, 24, p->cqn_rcv);
	qpc_set(in, QPC_CD_MASTER, 1, !!(p->roles & HW_XQP_MASTER));
	qpc_set(in, QPC_CD_SLAVE_SEND, 1, !!(p->roles & HW_XQP_MANAGED_SEND));
	qpc_set(in, QPC_CD_SLAVE_RECEIVE, 1, !!(p->roles & HW_XQP_MANAGED_RECV));
	qpc_set(in, QPC_DBR_UMEM_VALID, 1, 1);
	qpc_set(in, QPC_DBR_UMEM_ID, 32, p->dbr_umem_id);
	qpc_set(in, QPC_DBR_ADDR, 64, 0);
	hw_set_bits(in, IN_WQ_UMEM_OFFSET, 64, 0);
	hw_set_bits(in, IN_WQ_UMEM_ID, 32, p->wq_umem_id);
	hw_set_bits(in, IN_WQ_UMEM_VALID, 1, 1);
}

/* The qpc fields each state transition sets (DPDK mlx5_devx_cmd_modify_qp_state). */
static void fill_rst2init(uint8_t *in, const struct hw_xqp_params *p)
{
	qpc_set(in, QPC_PM_STATE, 2, 3);
	qpc_set(in, QPC_PAP + ADS_PKEY_INDEX, 16, 0);
	qpc_set(in, QPC_RRE, 1, 1);
	qpc_set(in, QPC_RWE, 1, 1);
}

static void fill_init2rtr(uint8_t *in, const struct hw_xqp_params *p)
{
	qpc_set(in, QPC_PAP + ADS_FL, 1, 1);
	qpc_set(in, QPC_MTU, 3, p->mtu);
	qpc_set(in, QPC_LOG_MSG_MAX, 5, 30);
	qpc_set(in, QPC_REMOTE_QPN, 24, p->remote_qpn);
	qpc_set(in, QPC_NEXT_RCV_PSN, 24, 0);
	qpc_set(in, QPC_MIN_RNR_NAK, 5, 1);
	qpc_set(in, QPC_LOG_RRA_MAX, 3, 3);
}

static void fill_rtr2rts(uint8_t *in, const struct hw_xqp_params *p)
{
	qpc_set(in, QPC_PAP + ADS_ACK_TIMEOUT, 5, 14);
	qpc_set(in, QPC_RETRY_COUNT, 3, 7);
	qpc_set(in, QPC_RNR_RETRY, 3, 7);
	qpc_set(in, QPC_NEXT_SEND_PSN, 24, 0);
	qpc_set(in, QPC_LOG_SRA_MAX, 3, 3);
}

static const struct {
	unsigned opcode;
	const char *name;
	void (*fill)(uint8_t *in, const struct hw_xqp_params *p);
} transitions[] = {
    {CMD_RST2INIT_QP, "DEVX RST2INIT_QP", fill_rst2init},
    {CMD_INIT2RTR_QP, "DEVX INIT2RTR_QP", fill_init2rtr},
    {CMD_RTR2RTS_QP, "DEVX RTR2RTS_QP", fill_rtr2rts},
};

int hw_xqp_build_modify(uint8_t *in, unsigned step, uint32_t qpn, const struct hw_xqp_params *p)
{
	if (step >= sizeof(transitions) / sizeof(transitions[0]))
		return -EINVAL;
	memset(in, 0, CMD_IN_BYTES);
	hw_set_bits(in, IN_OPCODE, 16, transitions[step].opcode);
	hw_set_bits(in, IN_QPN, 24, qpn);
	qpc_set(in, QPC_PAP + ADS_VHCA_PORT_NUM, 8, p->port);
	transitions[step].fill(in, p);
	return 0;
}

static int say(char *why, size_t n, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int say(char *why, size_t n, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return rc;
}

static int cmd_failed(char *why, size_t n, const char *what, const uint8_t *out, int err)
{
	uint32_t synd;

	memcpy(&synd, out + 4, 4);
	if (out[0])
		return say(why, n, -EREMOTEIO, "%s failed: firmware status 0x%02x, syndrome 0x%08x",
		           what, out[0], be32toh(synd));
	return say(why, n, -(err ? err : EIO), "%s failed: %s", what, strerror(err ? err : EIO));
}

int hw_xqp_create(struct hw_env *e, struct hw_xqp *x, unsigned roles, char *why, size_t n)
{
	uint8_t in[CMD_IN_BYTES], out[CMD_OUT_BYTES] = {0};
	struct hw_xqp_params p = {.roles = roles,
	                          .sq_bbs = XQP_SQ_BBS,
	                          .rq_wqes = XQP_RQ_WQES,
	                          .rq_stride = XQP_RQ_DS * 16};
	struct mlx5dv_pd dvpd;
	struct mlx5dv_obj o;
	struct hw_qp *q = &x->q;

	memset(x, 0, sizeof(*x));
	q->env = e;
	hw_cq_create(e, &q->scq, false);
	hw_cq_create(e, &q->rcq, true);
	x->uar = mlx5dv_devx_alloc_uar(e->ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	if (!x->uar)
		x->uar = mlx5dv_devx_alloc_uar(e->ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
	if (!x->uar)
		return say(why, n, -EIO, "mlx5dv_devx_alloc_uar: %s", strerror(errno));
	if (posix_memalign(&x->wq, 4096, XQP_WQ_BYTES) || posix_memalign(&x->db, 4096, 4096))
		return say(why, n, -ENOMEM, "out of memory");
	memset(x->wq, 0, XQP_WQ_BYTES);
	memset(x->db, 0, 4096);
	x->wq_umem = mlx5dv_devx_umem_reg(e->ctx, x->wq, XQP_WQ_BYTES, IBV_ACCESS_LOCAL_WRITE);
	x->db_umem = mlx5dv_devx_umem_reg(e->ctx, x->db, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!x->wq_umem || !x->db_umem)
		return say(why, n, -EIO, "mlx5dv_devx_umem_reg: %s", strerror(errno));
	memset(&o, 0, sizeof(o));
	o.pd.in = e->pd;
	o.pd.out = &dvpd;
	if (mlx5dv_init_obj(&o, MLX5DV_OBJ_PD))
		return say(why, n, -EIO, "mlx5dv_init_obj(PD) failed");
	p.pdn = dvpd.pdn;
	p.uar_page = x->uar->page_id;
	p.cqn_snd = q->scq.dv.cqn;
	p.cqn_rcv = q->rcq.dv.cqn;
	p.wq_umem_id = x->wq_umem->umem_id;
	p.dbr_umem_id = x->db_umem->umem_id;
	hw_xqp_build_create(in, &p);
	x->obj = mlx5dv_devx_obj_create(e->ctx, in, sizeof(in), out, sizeof(out));
	if (!x->obj)
		return cmd_failed(why, n, "DEVX CREATE_QP (cross-channel)", out, errno);
	q->qpn = (uint32_t)hw_cap_bits(out, OUT_QPN, 24);
	q->dv.dbrec = x->db;
	q->dv.rq.buf = x->wq;
	q->dv.rq.wqe_cnt = XQP_RQ_WQES;
	q->dv.rq.stride = XQP_RQ_DS * 16;
	q->dv.sq.buf = (uint8_t *)x->wq + XQP_RQ_WQES * XQP_RQ_DS * 16;
	q->dv.sq.wqe_cnt = XQP_SQ_BBS;
	q->dv.sq.stride = PRISM_WQE_BB;
	q->dv.bf.reg = x->uar->reg_addr;
	return 0;
}

int hw_xqp_connect(struct hw_env *e, struct hw_xqp *x, uint32_t remote_qpn, char *why, size_t n)
{
	struct hw_xqp_params p = {
	    .port = e->port_num, .mtu = (unsigned)e->port.active_mtu, .remote_qpn = remote_qpn};
	uint8_t in[CMD_IN_BYTES], out[CMD_OUT_BYTES];

	for (unsigned i = 0; i < sizeof(transitions) / sizeof(transitions[0]); i++) {
		memset(out, 0, sizeof(out));
		hw_xqp_build_modify(in, i, x->q.qpn, &p);
		if (mlx5dv_devx_obj_modify(x->obj, in, sizeof(in), out, sizeof(out)))
			return cmd_failed(why, n, transitions[i].name, out, errno);
	}
	return 0;
}

void hw_xqp_destroy(struct hw_xqp *x)
{
	if (x->q.sq_mr) /* hw_register_sq: before the umem goes */
		ibv_dereg_mr(x->q.sq_mr);
	if (x->obj)
		mlx5dv_devx_obj_destroy(x->obj);
	if (x->wq_umem)
		mlx5dv_devx_umem_dereg(x->wq_umem);
	if (x->db_umem)
		mlx5dv_devx_umem_dereg(x->db_umem);
	if (x->uar)
		mlx5dv_devx_free_uar(x->uar);
	free(x->wq);
	free(x->db);
	hw_cq_destroy(&x->q.scq);
	hw_cq_destroy(&x->q.rcq);
	memset(x, 0, sizeof(*x));
}
