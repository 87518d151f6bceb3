/* SPDX-License-Identifier: MIT */
/*
 * test_mlx5emu.c - the PRM table's bit helpers, and the mlx5 backend
 * against the emulator at the level of single objects: capabilities read
 * through QUERY_HCA_CAP, a device without cross-channel refusing managed
 * QPs, commands the emulator does not implement failing loudly, and the
 * doorbell rule (unmanaged queues ring the UAR, managed ones never do),
 * completion events (event channel and CQ arm doorbell).
 */
#include <endian.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include <prism/prism.h>
#include <prism/wqe.h>

#include "chain/chainobj.h"
#include "core/client.h"
#include "mlx5/mlx5_be.h"
#include "tests/mlx5emu/mlx5emu.h"
#include "tests/runtime/support/hashget_chain.h"

static void test_prm_bits(void **state)
{
	uint8_t buf[MLX5_PRM_QP_CMD_IN_BYTES] = {0};
	const uint32_t qpc = mlx5_prm_off(MLX5_PRM_CREATE_QP_IN_QPC);
	uint8_t gid[16], back[16];

	(void)state;
	/* qpc.cd_master is bit 0x49f of the qpc, which starts at bit 0xc0 */
	assert_int_equal(mlx5_prm_set(buf, sizeof(buf), qpc, MLX5_PRM_QPC_CD_MASTER, 1), 0);
	assert_int_equal(buf[(0xc0 + 0x49f) / 8], 1u << (7 - (0xc0 + 0x49f) % 8));
	assert_int_equal(mlx5_prm_get(buf, sizeof(buf), qpc, MLX5_PRM_QPC_CD_MASTER), 1);
	assert_int_equal(mlx5_prm_get(buf, sizeof(buf), qpc, MLX5_PRM_QPC_CD_SLAVE_SEND), 0);
	/* 24-bit field: neighbours untouched, too-wide values refused */
	assert_int_equal(mlx5_prm_set(buf, sizeof(buf), qpc, MLX5_PRM_QPC_PD, 0xabcdef), 0);
	assert_int_equal(mlx5_prm_get(buf, sizeof(buf), qpc, MLX5_PRM_QPC_PD), 0xabcdef);
	assert_int_equal(buf[(0xc0 + 0x20) / 8], 0);
	assert_int_equal(mlx5_prm_set(buf, sizeof(buf), qpc, MLX5_PRM_QPC_PD, 0x1000000), -ERANGE);
	/* 64-bit and 128-bit fields */
	assert_int_equal(
	    mlx5_prm_set(buf, sizeof(buf), qpc, MLX5_PRM_QPC_DBR_ADDR, 0x1122334455667788), 0);
	assert_int_equal(buf[(0xc0 + 0x500) / 8], 0x11);
	assert_int_equal(mlx5_prm_get(buf, sizeof(buf), qpc, MLX5_PRM_QPC_DBR_ADDR),
	                 0x1122334455667788ull);
	for (int i = 0; i < 16; i++)
		gid[i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(mlx5_prm_set_bytes(buf, sizeof(buf), qpc, MLX5_PRM_QPC_PAP_RGID_RIP, gid),
	                 0);
	assert_int_equal(mlx5_prm_get_bytes(buf, sizeof(buf), qpc, MLX5_PRM_QPC_PAP_RGID_RIP, back),
	                 0);
	assert_memory_equal(gid, back, 16);
	/* past the buffer */
	assert_int_equal(mlx5_prm_set(buf, 16, qpc, MLX5_PRM_QPC_PD, 1), -ERANGE);
	assert_int_equal(mlx5_prm_get(buf, 16, qpc, MLX5_PRM_QPC_PD), 0);
}

static struct core_be_dev *open_emu(const struct mlx5emu_opts *o)
{
	struct core_dev_attr a = {.sz = sizeof(a), .name = "mlx5_0", .relaxed_fw = true};
	struct core_be_dev *dev = NULL;

	mlx5emu_install(o);
	assert_int_equal(core_mlx5_backend.open(&a, &dev), 0);
	return dev;
}

/* Close @dev and the emulator: the loud failures it counted. */
static unsigned close_emu(struct core_be_dev *dev)
{
	core_mlx5_backend.close(dev);
	return mlx5emu_finish();
}

static void test_caps_through_query_hca_cap(void **state)
{
	struct core_be_dev *dev;
	const struct mlx5_be_dev *d;

	(void)state;
	dev = open_emu(&(struct mlx5emu_opts){.atomic_size_qp = 8 | 16, .no_wait_on_data = true});
	d = (const struct mlx5_be_dev *)dev;
	assert_true(d->caps.cd);
	assert_false(d->caps.wait_on_data);
	assert_true(d->caps.cq_oi);
	assert_true(d->caps.have_atomic_caps);
	assert_int_equal(d->caps.atomic_size_qp, 8 | 16);
	assert_int_equal(d->caps.endianness_mode, 1);
	assert_int_equal(d->caps.atomic_ops & MLX5_PRM_ATOMIC_OPS_MASKED_CMP_SWAP,
	                 MLX5_PRM_ATOMIC_OPS_MASKED_CMP_SWAP);
	assert_int_equal(close_emu(dev), 0);
}

static void test_no_cross_channel_refuses_managed_qp(void **state)
{
	struct core_be_dev *dev = open_emu(&(struct mlx5emu_opts){.no_cd = true});
	struct core_cq_attr ca = {.ncqe = 16};
	struct core_be_cq *cq;
	struct core_cq_info ci;
	struct core_be_qp *qp;
	struct core_qp_info qi;

	(void)state;
	assert_int_equal(core_mlx5_backend.create_cq(dev, &ca, &cq, &ci), 0);
	struct core_qp_attr qa = {.send_cq = cq,
	                          .recv_cq = cq,
	                          .sq_bbs = 8,
	                          .flags = CORE_QP_CROSS_CHANNEL | CORE_QP_MANAGED_SEND};
	assert_int_equal(core_mlx5_backend.create_qp(dev, &qa, &qp, &qi), -EOPNOTSUPP);
	qa.flags = 0;
	assert_int_equal(core_mlx5_backend.create_qp(dev, &qa, &qp, &qi), 0);
	assert_int_equal(core_mlx5_backend.destroy_qp(qp), 0);
	assert_int_equal(core_mlx5_backend.destroy_cq(cq), 0);
	assert_int_equal(close_emu(dev), 0);
}

static void test_unimplemented_command_fails_loudly(void **state)
{
	struct core_be_dev *dev = open_emu(NULL);
	struct mlx5_be_dev *d = (struct mlx5_be_dev *)dev;
	uint8_t out[MLX5_PRM_SHORT_BYTES];
	struct mlx5_prm_cmd c;

	(void)state;
	mlx5_prm_cmd_init(&c, 0x600 /* a command the emulator lacks */, 0, MLX5_PRM_SHORT_BYTES);
	assert_null(d->g->devx_obj_create(d->ctx, c.in, c.inlen, out, sizeof(out)));
	assert_int_equal(mlx5_prm_get(out, sizeof(out), 0, MLX5_PRM_OUT_STATUS),
	                 MLX5_PRM_STATUS_BAD_OP);
	assert_int_equal(mlx5emu_errors(), 1);
	assert_non_null(strstr(mlx5emu_last_error(), "not implemented"));
	mlx5_prm_cmd_init(&c, MLX5_PRM_CMD_QUERY_HCA_CAP, 0x7 << 1 | 1, MLX5_PRM_SHORT_BYTES);
	{
		static uint8_t big[MLX5_PRM_CAP_OUT_BYTES];

		assert_int_not_equal(
		    d->g->devx_general_cmd(d->ctx, c.in, c.inlen, big, sizeof(big)), 0);
	}
	assert_int_equal(close_emu(dev), 2);
}

/* Post one signaled NOP and ring; @managed: the queue is a cd_slave_send
 * one.  The backend rings what it is asked to (not ringing a managed queue
 * is runtime/core's convention), and the doorbell starts either queue
 * (nic-model rule 3.5); the emulator counts the managed one apart. */
static void test_doorbell_starts_any_queue(void **state)
{
	struct core_be_dev *dev = open_emu(NULL);
	struct core_cq_attr ca = {.ncqe = 16};
	struct core_be_cq *cq;
	struct core_cq_info ci;

	(void)state;
	assert_int_equal(core_mlx5_backend.create_cq(dev, &ca, &cq, &ci), 0);
	for (int managed = 0; managed < 2; managed++) {
		struct core_qp_attr qa = {.send_cq = cq,
		                          .recv_cq = cq,
		                          .sq_bbs = 8,
		                          .flags = CORE_QP_CROSS_CHANNEL |
		                                   (managed ? CORE_QP_MANAGED_SEND : 0)};
		struct core_qp_peer self = {0};
		struct core_be_qp *qp;
		struct core_qp_info qi;
		struct prism_wqe w = {
		    .ctrl = {.opcode = PRISM_OP_NOP,
		             .fm_ce_se = PRISM_CE_CQ_UPDATE << PRISM_CTRL_CE_SHIFT}};
		uint64_t before = mlx5emu_doorbells(), before_managed = mlx5emu_managed_doorbells();

		assert_int_equal(core_mlx5_backend.create_qp(dev, &qa, &qp, &qi), 0);
		assert_int_equal(core_mlx5_backend.port_addr(dev, &self), 0);
		self.qpn = qi.qpn;
		self.rnr_retry = 7;
		assert_int_equal(core_mlx5_backend.modify_qp(qp, CORE_QPS_INIT, NULL), 0);
		assert_int_equal(core_mlx5_backend.modify_qp(qp, CORE_QPS_RTR, &self), 0);
		assert_int_equal(core_mlx5_backend.modify_qp(qp, CORE_QPS_RTS, &self), 0);
		w.ctrl.qpn = qi.qpn;
		assert_true(
		    prism_wqe_encode(&w, (uint8_t *)qi.buf + qi.sq_offset, PRISM_WQE_BB, NULL) > 0);
		qi.dbrec[1] = htobe32(1);
		assert_int_equal(core_mlx5_backend.ring_sq(qp), 0);
		assert_int_equal(mlx5emu_doorbells() - before, 1);
		assert_int_equal(mlx5emu_managed_doorbells() - before_managed, managed);
		/* the NOP ran: CQE number @managed of the shared CQ (2 s at most) */
		const volatile uint8_t *op_own =
		    (const volatile uint8_t *)ci.buf + 64 * managed + 63;
		for (int i = 0;
		     i < 2000 && (*op_own >> 4 == PRISM_CQE_INVALID ||
		                  !prism_cqe_sw_owned(*op_own, (uint32_t)managed, ci.ncqe));
		     i++)
			usleep(1000);
		assert_int_equal(*op_own >> 4, PRISM_CQE_REQ);
		assert_int_equal(core_mlx5_backend.modify_qp(qp, CORE_QPS_ERR, NULL), 0);
		assert_int_equal(core_mlx5_backend.destroy_qp(qp), 0);
	}
	assert_int_equal(core_mlx5_backend.destroy_cq(cq), 0);
	assert_int_equal(close_emu(dev), 0);
}

/* A self-connected unmanaged QP on @cq, in RTS. */
static struct core_be_qp *loop_qp(struct core_be_dev *dev, struct core_be_cq *cq,
                                  struct core_qp_info *qi)
{
	struct core_qp_attr qa = {.send_cq = cq, .recv_cq = cq, .sq_bbs = 8};
	struct core_qp_peer self = {0};
	struct core_be_qp *qp;

	assert_int_equal(core_mlx5_backend.create_qp(dev, &qa, &qp, qi), 0);
	assert_int_equal(core_mlx5_backend.port_addr(dev, &self), 0);
	self.qpn = qi->qpn;
	self.rnr_retry = 7;
	assert_int_equal(core_mlx5_backend.modify_qp(qp, CORE_QPS_INIT, NULL), 0);
	assert_int_equal(core_mlx5_backend.modify_qp(qp, CORE_QPS_RTR, &self), 0);
	assert_int_equal(core_mlx5_backend.modify_qp(qp, CORE_QPS_RTS, &self), 0);
	return qp;
}

/* Post signalled NOP number @n (from 0) and wait until the emulated NIC,
 * which runs by itself, has written its CQE. */
static void post_nop(struct core_be_qp *qp, const struct core_qp_info *qi,
                     const struct core_cq_info *ci, uint32_t n)
{
	struct prism_wqe w = {.ctrl = {.opcode = PRISM_OP_NOP,
	                               .wqe_index = (uint16_t)n,
	                               .qpn = qi->qpn,
	                               .fm_ce_se = PRISM_CE_CQ_UPDATE << PRISM_CTRL_CE_SHIFT}};
	const uint8_t *cqe = (const uint8_t *)ci->buf + (size_t)(n % ci->ncqe) * PRISM_CQE_BYTES;
	uint8_t *slot =
	    (uint8_t *)qi->buf + qi->sq_offset + (size_t)(n % qi->sq_bbs) * PRISM_WQE_BB;

	assert_true(prism_wqe_encode(&w, slot, PRISM_WQE_BB, NULL) > 0);
	qi->dbrec[1] = htobe32(n + 1);
	assert_int_equal(core_mlx5_backend.ring_sq(qp), 0);
	for (long i = 0; i < 100000000; i++) {
		uint8_t op_own = __atomic_load_n(&cqe[PRISM_CQE_BYTES - 1], __ATOMIC_ACQUIRE);

		if ((op_own >> 4) != PRISM_CQE_INVALID && prism_cqe_sw_owned(op_own, n, ci->ncqe))
			return;
		sched_yield();
	}
	fail_msg("NOP %u never completed", n);
}

static unsigned take(struct core_be_dev *dev, void **ev)
{
	return core_mlx5_backend.take_events(dev, ev, 8);
}

/* The arm word the backend last wrote to the CQ's doorbell record. */
static uint32_t arm_word(const struct core_cq_info *ci)
{
	return be32toh(ci->dbrec[1]);
}

/*
 * Completion events through the DEVX event channel and the CQ arm doorbell:
 * nothing before arming; an arm with CQEs past the consumer index raises
 * one event at once; otherwise the next CQE raises exactly one; no event
 * without a re-arm; arming for the next CQE only (a scanned CQ) ignores what
 * is already written; a disarmed CQ's event is dropped, and so is one of a
 * destroyed CQ; arm_sn counts the events taken.
 */
static void test_cq_events(void **state)
{
	struct core_be_dev *dev = open_emu(NULL);
	struct mlx5_be_dev *d = (struct mlx5_be_dev *)dev;
	struct core_cq_attr ca = {.ncqe = 16};
	struct core_be_cq *cq;
	struct core_cq_info ci;
	struct core_qp_info qi;
	struct core_be_qp *qp;
	int tag, other;
	void *ev[8];
	uint32_t n = 0;

	(void)state;
	assert_int_equal(core_mlx5_backend.create_cq(dev, &ca, &cq, &ci), 0);
	qp = loop_qp(dev, cq, &qi);

	/* a CQE before arming raises nothing */
	post_nop(qp, &qi, &ci, n++);
	assert_int_equal(take(dev, ev), 0);
	/* armed at the consumer index (0) with a CQE past it: one event, at once */
	core_mlx5_backend.arm_cq(cq, &tag, true);
	assert_int_equal(arm_word(&ci) & 0xffffffu, 0);
	assert_int_equal(take(dev, ev), 1);
	assert_ptr_equal(ev[0], &tag);
	assert_int_equal(take(dev, ev), 0);
	/* consumed: armed, nothing yet; the next CQE raises exactly one */
	ci.dbrec[0] = htobe32(n);
	core_mlx5_backend.arm_cq(cq, &tag, true);
	assert_int_equal(arm_word(&ci) >> 28, 1); /* arm_sn: one event taken */
	assert_int_equal(arm_word(&ci) & 0xffffffu, n);
	assert_int_equal(take(dev, ev), 0);
	post_nop(qp, &qi, &ci, n++);
	assert_int_equal(take(dev, ev), 1);
	assert_ptr_equal(ev[0], &tag);
	/* not re-armed: the next CQE raises nothing */
	post_nop(qp, &qi, &ci, n++);
	assert_int_equal(take(dev, ev), 0);
	/* for the next CQE only (consumer index ignored: 1, three written) */
	core_mlx5_backend.arm_cq(cq, &other, false);
	assert_int_equal(arm_word(&ci) & 0xffffffu, n);
	assert_int_equal(arm_word(&ci) >> 28, 2);
	assert_int_equal(take(dev, ev), 0);
	post_nop(qp, &qi, &ci, n++);
	assert_int_equal(take(dev, ev), 1);
	assert_ptr_equal(ev[0], &other);
	/* disarmed while armed: the NIC still raises it, the backend drops it */
	ci.dbrec[0] = htobe32(n);
	core_mlx5_backend.arm_cq(cq, &tag, true);
	core_mlx5_backend.arm_cq(cq, NULL, false);
	post_nop(qp, &qi, &ci, n++);
	assert_int_equal(take(dev, ev), 0);
	/* a ring lapped past (16 CQEs, 20 written): still one event per arm */
	while (n < 20)
		post_nop(qp, &qi, &ci, n++);
	ci.dbrec[0] = htobe32(n);
	core_mlx5_backend.arm_cq(cq, &tag, true);
	assert_int_equal(take(dev, ev), 0);
	post_nop(qp, &qi, &ci, n++);
	assert_int_equal(take(dev, ev), 1);
	/* an event queued for a CQ that is then destroyed is never handed out */
	core_mlx5_backend.arm_cq(cq, &tag, false);
	post_nop(qp, &qi, &ci, n++);
	assert_int_equal(core_mlx5_backend.modify_qp(qp, CORE_QPS_ERR, NULL), 0);
	assert_int_equal(core_mlx5_backend.destroy_qp(qp), 0);
	assert_int_equal(core_mlx5_backend.destroy_cq(cq), 0);
	assert_int_equal(take(dev, ev), 0);
	assert_int_equal(mlx5emu_errors(), 0);

	/* the emulator parses the doorbell: a solicited-only arm is not emulated */
	assert_int_equal(core_mlx5_backend.create_cq(dev, &ca, &cq, &ci), 0);
	{
		uint32_t db[2] = {htobe32(1u << 24), htobe32(((struct mlx5_be_cq *)cq)->cqn)};
		uint64_t bytes;

		ci.dbrec[1] = db[0];
		memcpy(&bytes, db, 8);
		d->g->uar_write64((uint8_t *)d->uar->base_addr + MLX5_CQ_DOORBELL, bytes);
		assert_int_equal(mlx5emu_errors(), 1);
		assert_non_null(strstr(mlx5emu_last_error(), "cmd 1"));
	}
	assert_int_equal(core_mlx5_backend.destroy_cq(cq), 0);
	close_emu(dev);
}

/* An interposer: the emulator's table with obj_create / obj_modify wrapped
 * to keep the last command's bytes (what mlx5_glue is for). */
static struct mlx5_glue spy;
static const struct mlx5_glue *spied;
static uint8_t last_in[MLX5_PRM_QP_CMD_IN_BYTES];
static size_t last_inlen;

static struct mlx5dv_devx_obj *spy_create(struct ibv_context *ctx, const void *in, size_t inlen,
                                          void *out, size_t outlen)
{
	last_inlen = inlen < sizeof(last_in) ? inlen : sizeof(last_in);
	memcpy(last_in, in, last_inlen);
	return spied->devx_obj_create(ctx, in, inlen, out, outlen);
}

static int spy_modify(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen, void *out,
                      size_t outlen)
{
	last_inlen = inlen < sizeof(last_in) ? inlen : sizeof(last_in);
	memcpy(last_in, in, last_inlen);
	return spied->devx_obj_modify(obj, in, inlen, out, outlen);
}

#define QPC(f) mlx5_prm_get(last_in, last_inlen, mlx5_prm_off(MLX5_PRM_CREATE_QP_IN_QPC), f)

/* The bytes of CREATE_QP and INIT2RTR_QP as the backend builds them. */
static void test_qp_command_bytes(void **state)
{
	struct core_dev_attr a = {.sz = sizeof(a), .name = "mlx5_0"};
	struct core_cq_attr ca = {.ncqe = 16, .ignore_overrun = true};
	struct core_be_dev *dev;
	struct core_be_cq *cq;
	struct core_cq_info ci;
	struct core_be_qp *qp;
	struct core_qp_info qi;
	struct core_qp_peer self = {.rnr_retry = 7, .retry_cnt = 7, .psn = 0x123456};

	(void)state;
	mlx5emu_install(NULL);
	spied = mlx5_glue();
	spy = *spied;
	spy.name = "spy";
	spy.devx_obj_create = spy_create;
	spy.devx_obj_modify = spy_modify;
	mlx5_glue_set(&spy);
	assert_int_equal(core_mlx5_backend.open(&a, &dev), 0);
	assert_int_equal(core_mlx5_backend.create_cq(dev, &ca, &cq, &ci), 0);
	assert_int_equal(mlx5_prm_get(last_in, last_inlen, 0, MLX5_PRM_IN_OPCODE),
	                 MLX5_PRM_CMD_CREATE_CQ);
	assert_int_equal(mlx5_prm_get(last_in, last_inlen, mlx5_prm_off(MLX5_PRM_CREATE_CQ_IN_CQC),
	                              MLX5_PRM_CQC_OI),
	                 1);
	assert_int_equal(mlx5_prm_get(last_in, last_inlen, mlx5_prm_off(MLX5_PRM_CREATE_CQ_IN_CQC),
	                              MLX5_PRM_CQC_LOG_CQ_SIZE),
	                 4);
	/* every CQE starts invalid and hardware-owned */
	assert_int_equal(((uint8_t *)ci.buf)[63], 0xf1);
	assert_int_equal(((uint8_t *)ci.buf)[15 * 64 + 63], 0xf1);

	struct core_qp_attr qa = {.send_cq = cq,
	                          .recv_cq = cq,
	                          .sq_bbs = 64,
	                          .rq_wqes = 8,
	                          .rq_max_sge = 3,
	                          .flags = CORE_QP_MANAGED_SEND,
	                          .access = CORE_ACCESS_REMOTE_READ | CORE_ACCESS_REMOTE_ATOMIC};
	assert_int_equal(core_mlx5_backend.create_qp(dev, &qa, &qp, &qi), 0);
	assert_int_equal(mlx5_prm_get(last_in, last_inlen, 0, MLX5_PRM_IN_OPCODE),
	                 MLX5_PRM_CMD_CREATE_QP);
	assert_int_equal(QPC(MLX5_PRM_QPC_ST), MLX5_PRM_QPC_ST_RC);
	assert_int_equal(QPC(MLX5_PRM_QPC_PM_STATE), MLX5_PRM_QPC_PM_MIGRATED);
	assert_int_equal(QPC(MLX5_PRM_QPC_CD_SLAVE_SEND), 1);
	assert_int_equal(QPC(MLX5_PRM_QPC_CD_MASTER), 0);
	assert_int_equal(QPC(MLX5_PRM_QPC_CD_SLAVE_RECEIVE), 0);
	assert_int_equal(QPC(MLX5_PRM_QPC_LOG_SQ_SIZE), 6);
	assert_int_equal(QPC(MLX5_PRM_QPC_LOG_RQ_SIZE), 3);
	assert_int_equal(QPC(MLX5_PRM_QPC_LOG_RQ_STRIDE), 2); /* 4 SGEs x 16 = 64 bytes */
	assert_int_equal(QPC(MLX5_PRM_QPC_RQ_TYPE), MLX5_PRM_QPC_RQ_REGULAR);
	assert_int_equal(QPC(MLX5_PRM_QPC_CQN_SND), ci.cqn);
	assert_int_equal(QPC(MLX5_PRM_QPC_DBR_UMEM_VALID), 1);
	/* the doorbell record follows the rings inside the same umem */
	assert_int_equal(QPC(MLX5_PRM_QPC_DBR_ADDR),
	                 (uint64_t)((uint8_t *)qi.dbrec - (uint8_t *)qi.buf));
	assert_int_equal(qi.sq_offset, 8 * 64);
	assert_int_equal(qi.rq_stride, 64);

	self.qpn = qi.qpn;
	assert_int_equal(core_mlx5_backend.port_addr(dev, &self), 0);
	assert_int_equal(core_mlx5_backend.modify_qp(qp, CORE_QPS_INIT, NULL), 0);
	/* the QP's remote rights, nothing more */
	assert_int_equal(QPC(MLX5_PRM_QPC_RRE), 1);
	assert_int_equal(QPC(MLX5_PRM_QPC_RWE), 0);
	assert_int_equal(QPC(MLX5_PRM_QPC_RAE), 1);
	assert_int_equal(core_mlx5_backend.modify_qp(qp, CORE_QPS_RTR, &self), 0);
	assert_int_equal(mlx5_prm_get(last_in, last_inlen, 0, MLX5_PRM_IN_OPCODE),
	                 MLX5_PRM_CMD_INIT2RTR_QP);
	assert_int_equal(QPC(MLX5_PRM_QPC_REMOTE_QPN), qi.qpn);
	assert_int_equal(QPC(MLX5_PRM_QPC_NEXT_RCV_PSN), 0x123456);
	assert_int_equal(QPC(MLX5_PRM_QPC_ATOMIC_MODE), MLX5_PRM_ATOMIC_MODE_32B);
	assert_int_equal(QPC(MLX5_PRM_QPC_PAP_FL), 1); /* itself: force loopback */
	assert_int_equal(QPC(MLX5_PRM_QPC_MTU), IBV_MTU_4096);
	/* the RTS step refuses to skip a state */
	assert_int_equal(core_mlx5_backend.modify_qp(qp, CORE_QPS_INIT, NULL), -EINVAL);
	assert_int_equal(core_mlx5_backend.modify_qp(qp, CORE_QPS_RTS, &self), 0);
	assert_int_equal(QPC(MLX5_PRM_QPC_RNR_RETRY), 7);
	assert_int_equal(QPC(MLX5_PRM_QPC_NEXT_SEND_PSN), 0x123456);
	assert_int_equal(core_mlx5_backend.destroy_qp(qp), 0);
	assert_int_equal(core_mlx5_backend.destroy_cq(cq), 0);
	assert_int_equal(close_emu(dev), 0);
}

static char last_log[512];

static void keep_log(enum prism_log_level level, const char *msg, void *ctx)
{
	(void)level, (void)ctx;
	snprintf(last_log, sizeof(last_log), "%s", msg);
}

/* The RedN hash get needs relaxed firmware and host-endian 8-byte CAS; the
 * firmware profile is what the backend's probe finds, not what was said. */
static void test_load_refused_naming_what_is_missing(void **state)
{
	struct chainobj *o = hg_build(4096);
	struct prism_program *prog;
	struct prism_device *dev;
	char *yaml;
	size_t len;

	(void)state;
	assert_non_null(o);
	assert_int_equal(chainobj_write_mem(o, 0, &yaml, &len, NULL), 0);
	chainobj_free(o);
	prism_set_log_fn(keep_log, NULL, PRISM_LOG_DEBUG);
	/* stock firmware in the NIC, though the device option says relaxed:
	 * the backend's probe finds out */
	mlx5emu_install(&(struct mlx5emu_opts){.be_atomics = true});
	dev = prism_device__open("mlx5_0", NULL);
	assert_non_null(dev);
	PRISM_OPTS(prism_region_opts, ropts, .access = PRISM_ACCESS_READ);
	assert_non_null(prism_device__create_region(dev, "table", 4096, &ropts));
	prog = prism_program__open_mem(yaml, len, NULL);
	assert_non_null(prog);
	assert_int_equal(prism_program__load(prog, dev), -PRISM_E_NOCAP);
	assert_non_null(strstr(last_log, "device mlx5_0 lacks"));
	assert_non_null(strstr(last_log, "relaxed firmware (probed: a NOP with a wrong WQE index "
	                                 "failed (LOCAL_QP_OP_ERR))"));
	assert_non_null(strstr(last_log, "host-endian 8-byte atomics"));
	prism_program__close(prog);
	prism_device__close(dev);
	assert_int_equal(mlx5emu_finish(), 0);
	/* the same program loads on a device that has both (the firmware
	 * profile found by the backend's probe) */
	mlx5emu_install(&(struct mlx5emu_opts){.relaxed_fw = true});
	dev = prism_device__open("mlx5_0", NULL);
	assert_non_null(dev);
	assert_non_null(prism_device__create_region(dev, "table", 4096, &ropts));
	prog = prism_program__open_mem(yaml, len, NULL);
	assert_int_equal(prism_program__load(prog, dev), 0);
	prism_program__close(prog);
	prism_device__close(dev);
	prism_set_log_fn(NULL, NULL, PRISM_LOG_WARN);
	free(yaml);
	assert_int_equal(mlx5emu_finish(), 0);
}

/* A hash-get server on one emulated device, listening on loopback TCP. */
struct tcp_fx {
	enum { NB = 64, TABLE = NB * (HG_BUCKET_BYTES + HG_VALUE_BYTES) + 4096 } sizes;
	struct prism_device *sdev, *cdev;
	struct prism_program *prog;
	struct prism_server *srv;
	struct hg_table t;
	uint32_t keys[NB];
	char addr[64];
	uint64_t managed; /* managed-queue doorbells after the load */
};

static void tcp_fx_start(struct tcp_fx *f, const struct mlx5emu_opts *eo, const char *sname,
                         const char *cname)
{
	struct chainobj *o = hg_build(TABLE);
	struct prism_region *r;
	char *yaml;
	size_t len;

	assert_non_null(o);
	assert_int_equal(chainobj_write_mem(o, 0, &yaml, &len, NULL), 0);
	chainobj_free(o);
	mlx5emu_install(eo);
	f->sdev = prism_device__open(sname, NULL);
	f->cdev = prism_device__open(cname, NULL);
	assert_non_null(f->sdev);
	assert_non_null(f->cdev);
	PRISM_OPTS(prism_region_opts, ropts, .access = PRISM_ACCESS_READ);
	r = prism_device__create_region(f->sdev, "table", TABLE, &ropts);
	assert_non_null(r);
	for (uint32_t i = 0; i < NB; i++)
		f->keys[i] = i % 3 ? (i * 0x9e3779u & 0xffffff) | 1 : 0;
	f->t = (struct hg_table){prism_region__addr(r), TABLE, NB};
	hg_fill(&f->t, f->keys, (uintptr_t)f->t.mem, 5);
	f->prog = prism_program__open_mem(yaml, len, NULL);
	free(yaml);
	assert_non_null(f->prog);
	assert_int_equal(prism_program__load(f->prog, f->sdev), 0);
	/* the load ran the behaviour probe, which rings a managed queue on
	 * purpose; from here on nothing may (libmlx5 NO_DOORBELL) */
	f->managed = mlx5emu_managed_doorbells();
	PRISM_OPTS(prism_server_opts, so, .port = PRISM_PORT_ANY, .host = "127.0.0.1");
	f->srv = prism_server__create(f->sdev, &so);
	assert_non_null(f->srv);
	assert_int_equal(prism_server__add_program(f->srv, f->prog), 0);
	assert_int_equal(prism_server__start(f->srv), 0);
	snprintf(f->addr, sizeof(f->addr), "127.0.0.1:%u", prism_server__port(f->srv));
}

static void tcp_fx_stop(struct tcp_fx *f)
{
	prism_server__destroy(f->srv);
	prism_program__close(f->prog);
	prism_device__close(f->cdev);
	prism_device__close(f->sdev);
	assert_int_equal(mlx5emu_finish(), 0);
}

/* @n gets through @cl, each checked against the C reference. */
static void tcp_fx_gets(struct tcp_fx *f, struct prism_client *cl, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint8_t out[HG_RESULT_BYTES], want[HG_VALUE_BYTES];
		struct prism_arg args[2];
		struct prism_call c;
		uint32_t b = i % NB, key = i % 2 ? f->keys[b] : 0x800000 | i;

		hg_get_call(&c, args, key ? key : 7, b, out);
		assert_int_equal(prism_client__invoke(cl, &c, NULL), 0);
		hg_reference(&f->t, b, key ? key : 7, want);
		assert_memory_equal(out, want, HG_VALUE_BYTES);
	}
}

/*
 * A server on @sname and a client on @cname (two prism devices, as two
 * processes would have), connected over TCP: the setup exchange carries the
 * QPN, PSN, LID, GID and MTU, the TCP socket carries nothing else, and 300
 * gets run through the emulated NICs without a doorbell on a managed queue.
 */
static void tcp_gets(const struct mlx5emu_opts *eo, const char *sname, const char *cname)
{
	struct tcp_fx f;
	struct prism_client *cl;

	tcp_fx_start(&f, eo, sname, cname);
	cl = prism_client__connect(f.cdev, f.addr, NULL);
	assert_non_null(cl);
	tcp_fx_gets(&f, cl, 300);
	prism_client__close(cl);
	tcp_fx_stop(&f);
	assert_int_equal(mlx5emu_managed_doorbells(), f.managed);
}

/* A kernel without DEVX event channels: the device opens, connections are
 * polled every pass, and the gets are served. */
static void test_tcp_without_event_channel(void **state)
{
	(void)state;
	tcp_gets(&(struct mlx5emu_opts){.relaxed_fw = true, .n_devices = 2, .no_events = true},
	         "mlx5_0", "mlx5_1");
}

static uint64_t server_stat(struct prism_server *srv, bool polls)
{
	PRISM_OPTS(prism_server_stats, st);
	assert_int_equal(prism_server__stats(srv, &st), 0);
	return polls ? st.conn_polls : st.conns_active;
}

/*
 * The runtime on mlx5 with completion events and the setup socket watched:
 * idle connections are armed, not polled; a client whose setup socket
 * closes (as when its process dies) is torn down while the others go on;
 * and a client whose server is gone learns it from the socket, not from a
 * timeout.
 */
static void test_tcp_events_and_dead_peers(void **state)
{
	enum { NCL = 6 };
	struct prism_client *cl[NCL];
	struct tcp_fx f;
	uint64_t polls;
	uint8_t out[HG_RESULT_BYTES];
	struct prism_arg args[2];
	struct prism_call c;

	(void)state;
	tcp_fx_start(&f, &(struct mlx5emu_opts){.relaxed_fw = true, .n_devices = 2}, "mlx5_0",
	             "mlx5_1");
	for (int i = 0; i < NCL; i++) {
		cl[i] = prism_client__connect(f.cdev, f.addr, NULL);
		assert_non_null(cl[i]);
		tcp_fx_gets(&f, cl[i], 20);
	}
	/* quiet: each connection is armed and costs no poll (without events
	 * every progress pass would poll all six, and the count never rests);
	 * a late completion may still wake one, so wait for a quiet 50 ms */
	bool quiet = false;

	for (int i = 0; i < 100 && !quiet; i++) {
		polls = server_stat(f.srv, true);
		usleep(50 * 1000);
		quiet = server_stat(f.srv, true) == polls;
	}
	assert_true(quiet);
	/* a request wakes its connection (the answer may reach the client
	 * before the server polls the completion) */
	tcp_fx_gets(&f, cl[3], 1);
	for (int i = 0; i < 10000 && server_stat(f.srv, true) == polls; i++)
		usleep(1000);
	assert_true(server_stat(f.srv, true) > polls);

	/* client 0's setup socket closes: the server tears its connection down */
	assert_int_equal(server_stat(f.srv, false), NCL);
	assert_int_equal(shutdown(cl[0]->net_fd, SHUT_RDWR), 0);
	for (int i = 0; i < 10000 && server_stat(f.srv, false) == NCL; i++)
		usleep(1000);
	assert_int_equal(server_stat(f.srv, false), NCL - 1);
	for (int i = 1; i < NCL; i++)
		tcp_fx_gets(&f, cl[i], 10);

	/* the server goes: a client's next invocation fails as PEER_GONE */
	prism_server__destroy(f.srv);
	f.srv = NULL;
	hg_get_call(&c, args, f.keys[1], 1, out);
	assert_int_equal(prism_client__invoke(cl[1], &c, NULL), -PRISM_E_NET_PEER_GONE);
	for (int i = 0; i < NCL; i++)
		prism_client__close(cl[i]);
	tcp_fx_stop(&f);
}

/* Two contexts of one device: the QPs reach each other by force-loopback. */
static void test_tcp_same_device(void **state)
{
	(void)state;
	tcp_gets(&(struct mlx5emu_opts){.relaxed_fw = true}, "mlx5_0", "mlx5_0");
}

/* InfiniBand: the server's QP reaches the client's by its LID, and back. */
static void test_tcp_two_devices_ib(void **state)
{
	(void)state;
	tcp_gets(&(struct mlx5emu_opts){.relaxed_fw = true, .n_devices = 2}, "mlx5_0", "mlx5_1");
}

/* RoCE: by GID, with the MAC an address handle resolves (checked by the
 * emulator against the GID's port). */
static void test_tcp_two_devices_roce(void **state)
{
	(void)state;
	tcp_gets(&(struct mlx5emu_opts){.relaxed_fw = true, .n_devices = 2, .roce = true}, "mlx5_0",
	         "mlx5_1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prm_bits),
	    cmocka_unit_test(test_caps_through_query_hca_cap),
	    cmocka_unit_test(test_no_cross_channel_refuses_managed_qp),
	    cmocka_unit_test(test_unimplemented_command_fails_loudly),
	    cmocka_unit_test(test_doorbell_starts_any_queue),
	    cmocka_unit_test(test_cq_events),
	    cmocka_unit_test(test_load_refused_naming_what_is_missing),
	    cmocka_unit_test(test_tcp_same_device),
	    cmocka_unit_test(test_tcp_two_devices_ib),
	    cmocka_unit_test(test_tcp_two_devices_roce),
	    cmocka_unit_test(test_tcp_events_and_dead_peers),
	    cmocka_unit_test(test_tcp_without_event_channel),
	    cmocka_unit_test(test_qp_command_bytes),
	};

	return cmocka_run_group_tests_name("mlx5emu", tests, NULL, NULL);
}
