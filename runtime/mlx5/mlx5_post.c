/* SPDX-License-Identifier: MIT */
/*
 * mlx5/mlx5_post.c - doorbells.  The caller (runtime/core) wrote the WQE
 * bytes with the codec and the doorbell record words itself (backend.h);
 * what is left is the UAR write that tells the NIC to look:
 *
 *   send queue             64-bit store to the UAR register of the first 8
 *                          control-segment bytes of the last new WQE, with
 *                          its true WQE index and QPN (rdma-core qp.c
 *                          post_send_db, DPDK mlx5_doorbell_ring)
 *   receive queue          nothing: the NIC reads dbrec[0] when a message
 *                          arrives (rdma-core mlx5_post_recv rings no UAR)
 *
 * A managed (cd_slave_send) send queue is rung too when the caller asks: a
 * doorbell starts it on hardware (DPDK's crypto GCM QP is started that way,
 * nic-model rule 3.5), as it does on the sim backend, so the rule and the
 * behaviour probe can ask a NIC.  Not ringing one is the caller's
 * convention (libmlx5 NO_DOORBELL): runtime/core never calls ring_sq for a
 * managed queue and never writes its doorbell record.
 *
 * The index and QPN are stated by us, not copied from the ring: a relaxed-
 * firmware chain keeps data in those bytes of a WQE that waits as a NOP.
 *
 * Must not: write WQE bytes or doorbell records.
 */
#include <endian.h>
#include <string.h>

#include <prism/wqe.h>

#include "mlx5/mlx5_be.h"

int mlx5_be_ring_sq(struct core_be_qp *cqp)
{
	struct mlx5_be_qp *qp = (struct mlx5_be_qp *)cqp;
	const uint8_t *sq = (const uint8_t *)qp->ub.mem + qp->sq_offset;
	volatile uint32_t *db = (volatile uint32_t *)((uint8_t *)qp->ub.mem + qp->ub.dbr_at);
	uint32_t pi = be32toh(db[1]) & 0xffffu, at = qp->sq_rung, last = at;
	uint32_t left = (pi - at) & 0xffffu;
	struct prism_ctrl_seg c;
	uint8_t ctrl[16];

	if (!left)
		return 0;
	/* Walk the new WQEs by their DS to find the last one's start (a DS
	 * that runs past the producer index ends the walk). */
	while (left) {
		uint32_t bbs;

		prism_ctrl_seg_unpack(sq + (size_t)(at & (qp->sq_bbs - 1)) * PRISM_WQE_BB, &c);
		bbs = prism_wqe_bbs(c.ds);
		bbs = bbs ? bbs : 1;
		bbs = bbs < left ? bbs : left;
		last = at;
		at = (at + bbs) & 0xffffu;
		left -= bbs;
	}
	prism_ctrl_seg_unpack(sq + (size_t)(last & (qp->sq_bbs - 1)) * PRISM_WQE_BB, &c);
	c.wqe_index = (uint16_t)last;
	c.qpn = qp->qpn;
	prism_ctrl_seg_pack(&c, ctrl);
	qp->sq_rung = pi;
	{
		uint64_t v;

		memcpy(&v, ctrl, 8);
		/* WQE bytes and dbrec before the doorbell (udma_to_device_barrier) */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		qp->dev->g->uar_write64(qp->dev->uar->reg_addr, v);
	}
	return 0;
}

int mlx5_be_ring_rq(struct core_be_qp *qp)
{
	(void)qp;
	return 0;
}
