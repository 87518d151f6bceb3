/* SPDX-License-Identifier: MIT */
/*
 * core/inst_prot.c - the protection of one program instance (connection):
 * its protection domain, the registrations of the program's regions in it,
 * the remote rights of each of its queues, and the teardown order.
 *
 * A connection's QPs, queue buffers, scratch and region registrations all
 * live in one PD of their own, so a key of this connection is honoured
 * only by this connection's QPs (docs/security.md).  The conn queue (the
 * only QP a client can reach) serves SENDs and nothing else: no remote
 * READ, WRITE or atomic right.  A worker (connected to itself) serves
 * exactly the kinds of request its own send templates issue, in their
 * armed form.  Regions are registered with the rights the program declares
 * for them, nothing more.
 *
 * Owns: core_inst_prot_*, core_inst_queue_access, core_inst_quiesce.
 * Must not: post WQEs or decide when an instance is torn down.
 */
#include <stdlib.h>

#include <prism/wqe.h>

#include "core/inst.h"

/* The backend access a region declaration needs: a READ of it is served by
 * a worker's responder (remote read); a write lands as a READ response or
 * RECV scatter (local write) or a loopback WRITE (remote write); an atomic
 * is served remotely and writes locally. */
static unsigned decl_access(uint32_t acc)
{
	unsigned b = 0;

	if (acc & CHAINOBJ_ACC_READ)
		b |= CORE_ACCESS_REMOTE_READ;
	if (acc & CHAINOBJ_ACC_WRITE)
		b |= CORE_ACCESS_LOCAL_WRITE | CORE_ACCESS_REMOTE_WRITE;
	if (acc & CHAINOBJ_ACC_ATOMIC)
		b |= CORE_ACCESS_LOCAL_WRITE | CORE_ACCESS_REMOTE_ATOMIC;
	return b;
}

/* The remote right a request of opcode @op needs at its responder. */
static unsigned op_right(uint8_t op)
{
	switch (op) {
	case PRISM_OP_RDMA_READ:
		return CORE_ACCESS_REMOTE_READ;
	case PRISM_OP_RDMA_WRITE:
	case PRISM_OP_RDMA_WRITE_IMM:
		return CORE_ACCESS_REMOTE_WRITE;
	case PRISM_OP_ATOMIC_CS:
	case PRISM_OP_ATOMIC_FA:
	case PRISM_OP_ATOMIC_MASKED_CS:
	case PRISM_OP_ATOMIC_MASKED_FA:
		return CORE_ACCESS_REMOTE_ATOMIC;
	default:
		return 0;
	}
}

unsigned core_inst_queue_access(const struct chainobj *o, uint32_t q)
{
	const struct chainobj_queue *qu = &o->queues[q];
	unsigned acc = 0;

	/* the conn queue's peer is the client: it serves its SENDs only */
	if (qu->role == CHAINOBJ_ROLE_CONN)
		return 0;
	/* a worker's peer is itself: it serves what its own WQEs request,
	 * guarded ones in the form their guard arms */
	for (uint32_t i = 0; i < qu->n_sq; i++) {
		const struct chainobj_wqe *t = &qu->sq[i];
		struct prism_wqe w;

		if (prism_wqe_decode(t->bytes, t->len, &w, NULL) > 0)
			acc |= op_right(w.ctrl.opcode);
		if (chainobj_armed_decode(o, q, i, &w) != 0)
			acc |= op_right(w.ctrl.opcode);
	}
	return acc;
}

int core_inst_prot_create(struct core_inst *in)
{
	const struct chainobj *o = in->prog->obj;
	const struct core_backend_ops *ops = in->dev->ops;
	int err;

	if ((err = ops->alloc_pd(in->be, &in->pd))) {
		core_err("conn %u: program '%s': protection domain: %s", in->id, in->prog->name,
		         prism_strerror(err));
		return err;
	}
	in->regions = calloc(o->n_regions ? o->n_regions : 1, sizeof(*in->regions));
	if (!in->regions)
		return -ENOMEM;
	for (uint32_t r = 0; r < o->n_regions; r++) {
		struct prism_region *reg = in->prog->regions[r];

		err = ops->reg_mr(in->be, in->pd, reg->addr, reg->len,
		                  decl_access(o->regions[r].access), &in->regions[r].mr,
		                  &in->regions[r].keys);
		if (err) {
			core_err("conn %u: program '%s': region '%s': registration: %s", in->id,
			         in->prog->name, o->regions[r].name, prism_strerror(err));
			return err;
		}
	}
	return 0;
}

void core_inst_prot_destroy(struct core_inst *in)
{
	const struct core_backend_ops *ops = in->dev->ops;
	int err;

	if (in->regions)
		for (uint32_t r = 0; r < in->prog->obj->n_regions; r++)
			if (in->regions[r].mr)
				ops->dereg_mr(in->regions[r].mr);
	free(in->regions);
	in->regions = NULL;
	if (in->pd && (err = ops->dealloc_pd(in->pd)))
		core_warn("conn %u: protection domain: %s", in->id, prism_strerror(err));
	in->pd = NULL;
}

/*
 * Stop the instance so that nothing of the program runs any more, in an
 * order that lets no flushed receive start an invocation: every queue but
 * the conn queue first (the ctl queue's WAIT for the next request is
 * flushed before the SEND_EN behind it can run; workers started by
 * nothing), then the conn queue, whose error state flushes the posted
 * receives with error completions that nothing waits on any more.
 */
void core_inst_quiesce(struct core_inst *in)
{
	const struct core_backend_ops *ops = in->dev->ops;
	const struct chainobj *o = in->prog->obj;

	if (!in->qps)
		return;
	for (uint32_t q = 0; q < o->n_queues; q++)
		if ((int)q != in->prog->conn_queue && in->qps[q].qp)
			ops->modify_qp(in->qps[q].qp, CORE_QPS_ERR, NULL);
	if (in->prog->conn_queue >= 0 && in->qps[in->prog->conn_queue].qp)
		ops->modify_qp(in->qps[in->prog->conn_queue].qp, CORE_QPS_ERR, NULL);
}
