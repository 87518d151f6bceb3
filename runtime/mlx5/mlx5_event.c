/* SPDX-License-Identifier: MIT */
/*
 * mlx5/mlx5_event.c - completion events on an mlx5 device, as the NIC
 * raises them for DEVX CQs: the backend's arm_cq and take_events.
 *
 *   open      one DEVX event channel per context, created with
 *             OMIT_EV_DATA (an event is its cookie; a CQ's events combine
 *             into one while unread) and made non-blocking;
 *   CQ        after CREATE_CQ, subscribed to the completion event (PRM event
 *             type 0) with cookie = generation << 32 | slot, so an event
 *             read after the CQ is gone, or after its slot was reused, is
 *             recognised and dropped;
 *   arm       the arm word `arm_sn << 28 | cmd << 24 | ci` (cmd 0: any next
 *             CQE) into doorbell record word 1, then one 64-bit write of
 *             [arm word, CQN] (big-endian) to the UAR page's CQ doorbell
 *             (offset 0x20).  The NIC raises one event once its producer
 *             counter passes ci: at once when CQEs past ci are already
 *             written, so a consumer that polls, then arms with its
 *             consumer index, never misses a CQE written in between;
 *   take      reads events until the channel is empty; each bumps its CQ's
 *             arm_sn and hands out the ctx the CQ was armed with.
 *
 * Sources: libmlx5 mlx5_arm_cq / mlx5_cq_event (rdma-core providers/mlx5/
 * cq.c: the arm word in dbrec[MLX5_CQ_ARM_DB = 1], the doorbell at
 * MLX5_CQ_DOORBELL, arm_sn + 1 per event); DPDK drivers/vdpa/mlx5/
 * mlx5_vdpa_event.c (mlx5_vdpa_cq_arm, and a DEVX CQ subscribed to
 * MLX5_EVENT_TYPE_COMP on an OMIT_EV_DATA channel made non-blocking);
 * rdma-core man pages mlx5dv_devx_create_event_channel(3),
 * mlx5dv_devx_subscribe_devx_event(3), mlx5dv_devx_get_event(3).
 *
 * Disarming (ctx NULL) rings nothing (a NIC cannot be disarmed): the CQ
 * forgets its owner, and an event that still arrives for it is dropped.
 * Without an event channel (a kernel without DEVX events) the device still
 * opens: an armed CQ is handed out by the next take_events, so every armed
 * connection is polled every pass, as without events.
 *
 * Must not: call rdma-core except through mlx5_glue(); block.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include <prism/wqe.h>

#include "mlx5/mlx5_be.h"

enum {
	EV_TYPE_COMP = 0x0,  /* PRM event type: completion (Linux MLX5_EVENT_TYPE_COMP) */
	CQ_DBR_ARM = 1,      /* doorbell record word 1: the arm word (libmlx5 MLX5_CQ_ARM_DB) */
	CQ_ARM_NEXT = 0x0,   /* arm word cmd: any next CQE (MLX5_CQ_DB_REQ_NOT) */
	CQ_DB_OFFSET = 0x20, /* the CQ doorbell in a UAR page (MLX5_CQ_DOORBELL) */
};

_Static_assert((int)CQ_DB_OFFSET == (int)MLX5_CQ_DOORBELL &&
                   (int)CQ_ARM_NEXT << 24 == (int)MLX5_CQ_DB_REQ_NOT,
               "the CQ doorbell as mlx5dv.h defines it");

int mlx5_be_events_open(struct mlx5_be_dev *d)
{
	int fl;

	d->evch = d->g->devx_create_event_channel(
	    d->ctx, MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA);
	if (!d->evch) { /* a kernel without DEVX events: every armed CQ polled */
		mlx5_be_log(d, PRISM_LOG_WARN,
		            "%s: no DEVX event channel (%s): connections are polled every pass",
		            d->name, strerror(errno ? errno : EOPNOTSUPP));
		return 0;
	}
	/* take_events never waits: reads answer EAGAIN when nothing is queued */
	fl = fcntl(d->evch->fd, F_GETFL);
	if (fl < 0 || fcntl(d->evch->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		int err = -errno;

		mlx5_be_log(d, PRISM_LOG_ERROR, "%s: event channel fd: %s", d->name,
		            strerror(-err));
		return err;
	}
	return 0;
}

void mlx5_be_events_close(struct mlx5_be_dev *d)
{
	if (d->evch)
		d->g->devx_destroy_event_channel(d->evch);
	d->evch = NULL;
	free(d->ev_cqs);
	d->ev_cqs = NULL;
}

int mlx5_be_events_add_cq(struct mlx5_be_cq *cq)
{
	struct mlx5_be_dev *d = cq->dev;
	uint16_t events[] = {EV_TYPE_COMP};
	uint32_t slot;
	uint64_t cookie;

	pthread_mutex_lock(&d->ev_lock);
	for (slot = 0; slot < d->ev_cap && d->ev_cqs[slot]; slot++)
		;
	if (slot == d->ev_cap) {
		uint32_t ncap = d->ev_cap ? 2 * d->ev_cap : 16;
		struct mlx5_be_cq **n = realloc(d->ev_cqs, ncap * sizeof(*n));

		if (!n) {
			pthread_mutex_unlock(&d->ev_lock);
			return -ENOMEM;
		}
		memset(n + d->ev_cap, 0, (ncap - d->ev_cap) * sizeof(*n));
		d->ev_cqs = n;
		d->ev_cap = ncap;
	}
	cq->ev_slot = slot;
	cq->ev_gen = ++d->ev_gen;
	d->ev_cqs[slot] = cq;
	cookie = (uint64_t)cq->ev_gen << 32 | slot;
	pthread_mutex_unlock(&d->ev_lock);
	if (d->evch &&
	    d->g->devx_subscribe_devx_event(d->evch, cq->obj, sizeof(events), events, cookie)) {
		int err = -(errno ? errno : EINVAL);

		mlx5_be_log(d, PRISM_LOG_ERROR,
		            "%s: CQ 0x%x: subscribing to its completion event: %s", d->name,
		            cq->cqn, strerror(-err));
		mlx5_be_events_del_cq(cq);
		return err;
	}
	return 0;
}

void mlx5_be_events_del_cq(struct mlx5_be_cq *cq)
{
	struct mlx5_be_dev *d = cq->dev;

	pthread_mutex_lock(&d->ev_lock);
	if (cq->ev_slot < d->ev_cap && d->ev_cqs[cq->ev_slot] == cq)
		d->ev_cqs[cq->ev_slot] = NULL;
	cq->ev_ctx = NULL;
	pthread_mutex_unlock(&d->ev_lock);
}

/*
 * The producer counter as far as the ring shows it, from what was seen
 * before: CQEs written for the lap they sit in.  It never runs past the
 * NIC's counter (at the NIC's counter the slot still holds the previous
 * lap's owner bit); after more than a lap unseen it can stay behind, which
 * only raises an event early.
 */
static uint32_t ring_producer(struct mlx5_be_cq *cq)
{
	for (uint32_t k = 0; k < cq->ncqe; k++) {
		const uint8_t *raw = (const uint8_t *)cq->ub.mem +
		                     (size_t)(cq->pi_seen & (cq->ncqe - 1)) * PRISM_CQE_BYTES;
		uint8_t op_own = __atomic_load_n(&raw[PRISM_CQE_BYTES - 1], __ATOMIC_ACQUIRE);

		if ((op_own >> 4) == PRISM_CQE_INVALID ||
		    !prism_cqe_sw_owned(op_own, cq->pi_seen, cq->ncqe))
			break;
		cq->pi_seen++;
	}
	return cq->pi_seen;
}

void mlx5_be_arm_cq(struct core_be_cq *ccq, void *ctx, bool check_consumed)
{
	struct mlx5_be_cq *cq = (struct mlx5_be_cq *)ccq;
	struct mlx5_be_dev *d = cq->dev;
	volatile uint32_t *dbrec = (volatile uint32_t *)((uint8_t *)cq->ub.mem + cq->ub.dbr_at);
	uint32_t ci, word, db[2];
	uint64_t bytes;

	pthread_mutex_lock(&d->ev_lock);
	cq->ev_ctx = ctx;
	cq->soft_armed = ctx && !d->evch; /* no channel: handed out at the next take */
	if (!ctx || !d->evch) {
		pthread_mutex_unlock(&d->ev_lock);
		return;
	}
	ci = check_consumed ? be32toh(__atomic_load_n(&dbrec[0], __ATOMIC_ACQUIRE))
	                    : ring_producer(cq);
	word = (cq->arm_sn & 3) << 28 | CQ_ARM_NEXT << 24 | (ci & 0xffffffu);
	__atomic_store_n(&dbrec[CQ_DBR_ARM], htobe32(word), __ATOMIC_RELEASE);
	/* the record before the doorbell (libmlx5: mmio_wc_start) */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	db[0] = htobe32(word);
	db[1] = htobe32(cq->cqn & 0xffffffu);
	memcpy(&bytes, db, sizeof(bytes));
	d->g->uar_write64((uint8_t *)d->uar->base_addr + CQ_DB_OFFSET, bytes);
	pthread_mutex_unlock(&d->ev_lock);
}

unsigned mlx5_be_take_events(struct core_be_dev *dev, void **ctx, unsigned max)
{
	struct mlx5_be_dev *d = (struct mlx5_be_dev *)dev;
	unsigned n = 0;

	if (!d->evch) { /* no channel: every armed CQ, as if it had an event */
		pthread_mutex_lock(&d->ev_lock);
		for (uint32_t i = 0; i < d->ev_cap && n < max; i++) {
			struct mlx5_be_cq *cq = d->ev_cqs[i];

			if (cq && cq->soft_armed && cq->ev_ctx) {
				cq->soft_armed = false;
				ctx[n++] = cq->ev_ctx;
			}
		}
		pthread_mutex_unlock(&d->ev_lock);
		return n;
	}
	while (n < max) {
		struct mlx5dv_devx_async_event_hdr hdr;
		uint32_t slot, gen;
		ssize_t got = d->g->devx_get_event(d->evch, &hdr, sizeof(hdr));

		if (got < (ssize_t)sizeof(hdr.cookie)) {
			if (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
				mlx5_be_log(d, PRISM_LOG_WARN, "%s: reading an event: %s", d->name,
				            strerror(errno));
			break;
		}
		slot = (uint32_t)hdr.cookie;
		gen = (uint32_t)(hdr.cookie >> 32);
		pthread_mutex_lock(&d->ev_lock);
		if (slot < d->ev_cap && d->ev_cqs[slot] && d->ev_cqs[slot]->ev_gen == gen) {
			struct mlx5_be_cq *cq = d->ev_cqs[slot];

			cq->arm_sn++;
			if (cq->ev_ctx)
				ctx[n++] = cq->ev_ctx;
		}
		pthread_mutex_unlock(&d->ev_lock);
	}
	return n;
}
