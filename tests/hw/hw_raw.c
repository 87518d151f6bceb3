/* SPDX-License-Identifier: MIT */
/*
 * tests/hw/hw_raw.c - the raw mlx5 path: WQE bytes produced by prism's codec
 * written straight into a real send queue, doorbell record and UAR doorbell
 * written by hand, CQEs read from the CQ ring and decoded by the codec.
 *
 * This is what rdma-core's mlx5 provider does in mlx5_post_send and
 * mlx5_poll_cq (providers/mlx5/qp.c, cq.c), reduced to the steps the
 * software NIC models: the queue memory layout from mlx5dv_init_obj
 * (mlx5dv.h struct mlx5dv_qp / mlx5dv_cq), dbrec[MLX5_SND_DBR] = send
 * producer & 0xffff, dbrec[MLX5_RCV_DBR] = receive head & 0xffff, the first
 * 8 bytes of the last control segment written to bf.reg, a CQE owned by
 * software when its owner bit equals the consumer index's wrap bit.
 *
 * Owns: ring indices of the raw path.  Must not: build WQE or CQE bytes by
 * hand (prism_wqe_encode / prism_rwqe_encode / prism_cqe_decode do), or mix
 * with ibv_post_send / ibv_poll_cq on the same queues (libmlx5's own
 * counters would disagree with ours).
 */
#include <endian.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "tests/hw/hw_common.h"

/*
 * Ordering between our stores to queue memory, the doorbell record and the
 * UAR: rdma-core uses udma_to_device_barrier() and mmio_flush_writes(); a
 * full fence is stronger than both on every architecture and costs nothing
 * that a test would notice.
 */
static inline void hw_fence(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

int hw_raw_init_qp(struct hw_qp *q)
{
	struct mlx5dv_obj o;

	memset(&o, 0, sizeof(o));
	o.qp.in = q->qp;
	o.qp.out = &q->dv;
	if (mlx5dv_init_obj(&o, MLX5DV_OBJ_QP))
		return -1;
	/* the codec's basic block is the send queue's stride */
	return q->dv.sq.stride == PRISM_WQE_BB ? 0 : -1;
}

int hw_raw_init_cq(struct hw_cq *c)
{
	struct mlx5dv_obj o;

	memset(&o, 0, sizeof(o));
	o.cq.in = c->cq;
	o.cq.out = &c->dv;
	if (mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ))
		return -1;
	return c->dv.cqe_size == 64 || c->dv.cqe_size == 128 ? 0 : -1;
}

void hw_raw_post(struct hw_qp *q, const uint8_t *bytes, unsigned bbs)
{
	/* BB by BB: a WQE that reaches the end of the ring continues at slot 0 */
	for (unsigned i = 0; i < bbs; i++)
		memcpy(hw_sq_slot(q, q->sq_pi + i), bytes + (size_t)i * PRISM_WQE_BB, PRISM_WQE_BB);
}

void hw_raw_ring(struct hw_qp *q)
{
	struct prism_ctrl_seg c;
	uint8_t db[16];
	uint64_t word;

	hw_fence();
	q->dv.dbrec[MLX5_SND_DBR] = htobe32(q->sq_pi & 0xffffu);
	hw_fence();
	/*
	 * The doorbell is the first 8 bytes of the last WQE's control segment
	 * (mlx5_post_send).  Its index and QPN are the driver's word on where
	 * the producer is, so they are taken from our counters, not from the
	 * WQE: a test may post a WQE whose own index or QPN is deliberately
	 * wrong (the firmware-check tests, RedN's data-carrying NOPs).
	 */
	prism_ctrl_seg_unpack(hw_sq_slot(q, q->last_bb), &c);
	c.wqe_index = (uint16_t)q->last_bb;
	c.qpn = q->qpn;
	prism_ctrl_seg_pack(&c, db);
	memcpy(&word, db, sizeof(word));
	*(volatile uint64_t *)q->dv.bf.reg = word;
	hw_fence();
}

void hw_raw_post_recv(struct hw_qp *q, const struct prism_sge *sge, unsigned n)
{
	uint8_t *slot =
	    (uint8_t *)q->dv.rq.buf + (size_t)(q->rq_pi & (q->dv.rq.wqe_cnt - 1)) * q->dv.rq.stride;
	struct prism_wqe_diag d;
	int rc;

	rc = prism_rwqe_encode(sge, n, slot, q->dv.rq.stride / PRISM_WQE_DS_BYTES, &d);
	if (rc < 0)
		fail_msg("codec refused the receive WQE: %s", d.msg);
	hw_fence();
	q->dv.dbrec[MLX5_RCV_DBR] = htobe32((q->rq_pi + 1) & 0xffffu);
	hw_fence();
}

int hw_raw_peek(struct hw_cq *c, uint32_t slot, struct prism_cqe *out)
{
	uint8_t *cqe = (uint8_t *)c->dv.buf + (size_t)(slot & (c->dv.cqe_cnt - 1)) * c->dv.cqe_size;

	if (c->dv.cqe_size == 128)
		cqe += 64;
	if ((*(volatile uint8_t *)(cqe + 63) >> 4) == PRISM_CQE_INVALID)
		return -1;
	hw_fence();
	return prism_cqe_decode(cqe, out, NULL) ? -1 : 0;
}

int hw_raw_poll(struct hw_cq *c, struct prism_cqe *out)
{
	uint32_t n = c->dv.cqe_cnt;
	uint8_t *cqe = (uint8_t *)c->dv.buf + (size_t)(c->ci & (n - 1)) * c->dv.cqe_size;
	struct prism_wqe_diag d;
	uint8_t op_own;

	/* a 128-byte CQE carries the 64-byte CQE in its second half */
	if (c->dv.cqe_size == 128)
		cqe += 64;
	op_own = *(volatile uint8_t *)(cqe + 63);
	if ((op_own >> 4) == PRISM_CQE_INVALID || !prism_cqe_sw_owned(op_own, c->ci, n))
		return 0;
	hw_fence(); /* read the CQE only after seeing its owner bit */
	if (prism_cqe_decode(cqe, out, &d))
		fail_msg("codec refused a CQE from the device: %s", d.msg);
	c->ci++;
	hw_fence();
	c->dv.dbrec[0] = htobe32(c->ci & 0xffffffu);
	return 1;
}
