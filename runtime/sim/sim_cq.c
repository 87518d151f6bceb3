/* SPDX-License-Identifier: MIT */
/*
 * sim_cq.c - completion queues: the CQE ring in host memory, the owner bit,
 * the consumer-index doorbell record, overrun, and the completion count
 * that WAIT compares against.
 *
 * Owns: struct sim_cq.  The codec's encoder writes a CQE's first 63 bytes
 * straight into its ring slot (wqe_cqe_body.h), then op_own is stored with
 * release order, so a polling thread that sees the owner bit flip sees the
 * whole CQE (mlx5 rdma-core: mlx5_get_next_cqe).  That write, the push of
 * the data path, is inline (sim_cq_write / sim_cq_push in sim_internal.h);
 * its rare cases (overrun, the CQE event) are here, and so is the
 * completion event of an armed CQ, queued on its channel (sim_channel.c)
 * or its device's list: the data path pays one test of cq->armed.
 *
 * Must not: decide which CQEs exist (sim_requester.c / sim_responder.c /
 * sim_qp.c do).
 */
#include <stdlib.h>

#include "sim/sim_internal.h"
#include "util/array.h"

int sim_cq_create(struct sim_dev *dev, const struct sim_cq_attr *attr, struct sim_cq **out)
{
	struct sim_cq *cq;
	uint32_t slot;
	int rc = 0;

	if (!dev || !attr || !out || attr->ncqe < 2 || attr->ncqe > (1u << 22) ||
	    (attr->ncqe & (attr->ncqe - 1)) || !attr->ext_buf != !attr->ext_dbrec)
		return -EINVAL;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return -ENOMEM;
	cq->ext_mem = attr->ext_buf != NULL;
	cq->buf = cq->ext_mem ? attr->ext_buf
	                      : aligned_alloc(4096, ((size_t)attr->ncqe * PRISM_CQE_BYTES + 4095) &
	                                                ~(size_t)4095);
	cq->dbrec = cq->ext_mem ? attr->ext_dbrec : aligned_alloc(64, 64);
	cq->times = calloc(attr->ncqe, sizeof(*cq->times));
	if (!cq->buf || !cq->dbrec || !cq->times) {
		rc = -ENOMEM;
		goto fail;
	}
	/* rdma-core initializes every CQE as invalid and hardware-owned (a
	 * caller that brings its own ring does that itself, as on mlx5 DEVX) */
	for (uint32_t i = 0; i < attr->ncqe && !cq->ext_mem; i++) {
		memset(cq->buf + (size_t)i * PRISM_CQE_BYTES, 0, PRISM_CQE_BYTES);
		cq->buf[(size_t)i * PRISM_CQE_BYTES + 63] = PRISM_CQE_INVALID << 4 | 1;
	}
	if (!cq->ext_mem)
		memset((void *)cq->dbrec, 0, 64);
	cq->dev = dev;
	cq->ncqe = attr->ncqe;
	cq->ignore_overrun = attr->ignore_overrun;
	cq->push_slow = dev->obs.event != NULL;
	pthread_mutex_lock(&dev->lock);
	for (slot = 1; slot < dev->cqs_cap && dev->cqs[slot]; slot++)
		;
	if (!ARRAY_RESERVE(dev->cqs, dev->cqs_cap, (size_t)slot + 1)) {
		pthread_mutex_unlock(&dev->lock);
		rc = -ENOMEM;
		goto fail;
	}
	cq->slot = slot;
	cq->cqn = slot;
	dev->cqs[slot] = cq;
	dev->ncqs++;
	pthread_mutex_unlock(&dev->lock);
	*out = cq;
	return 0;
fail:
	free(cq->waiters);
	if (!cq->ext_mem) {
		free(cq->buf);
		free((void *)cq->dbrec);
	}
	free(cq->times);
	free(cq);
	return rc;
}

static void cq_free(struct sim_cq *cq)
{
	free(cq->waiters);
	if (!cq->ext_mem) {
		free(cq->buf);
		free((void *)cq->dbrec);
	}
	free(cq->times);
	free(cq);
}

/* dev->lock held: the list @cq's events go to. */
static struct sim_cq **cq_event_list(struct sim_cq *cq)
{
	return cq->ch ? &cq->ch->ev_head : &cq->dev->ev_head;
}

/* dev->lock held: queue @cq's event (once); a channel's first event wakes
 * its sleepers. */
static void cq_event(struct sim_cq *cq)
{
	struct sim_cq **head = cq_event_list(cq);

	cq->armed = false;
	if (cq->ev_queued)
		return;
	cq->ev_queued = true;
	cq->ev_next = *head;
	*head = cq;
	if (cq->ch && !cq->ev_next)
		sim_channel_signal(cq->ch);
}

/* dev->lock held: take @cq's event off its queue, if queued. */
static void cq_event_drop(struct sim_cq *cq)
{
	struct sim_cq **pp = cq_event_list(cq);

	if (!cq->ev_queued)
		return;
	while (*pp != cq)
		pp = &(*pp)->ev_next;
	*pp = cq->ev_next;
	cq->ev_queued = false;
	if (cq->ch && !cq->ch->ev_head)
		sim_channel_drain(cq->ch);
}

int sim_cq_set_channel(struct sim_cq *cq, struct sim_channel *ch)
{
	struct sim_dev *dev;
	bool queued;

	if (!cq || (ch && ch->dev != cq->dev))
		return -EINVAL;
	dev = cq->dev;
	pthread_mutex_lock(&dev->lock);
	queued = cq->ev_queued;
	cq_event_drop(cq);
	if (cq->ch)
		cq->ch->ncqs--;
	cq->ch = ch;
	if (ch)
		ch->ncqs++;
	if (queued) /* an event queued on the old list moves along */
		cq_event(cq);
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

/* dev->lock held: arm @cq; @ci < 0: for the next CQE only. */
static void cq_arm_locked(struct sim_cq *cq, void *ctx, int64_t ci)
{
	cq->ev_ctx = ctx;
	if (!ctx) {
		cq->armed = false;
		cq_event_drop(cq);
	} else if (ci >= 0 && ((cq->pi - (uint32_t)ci) & 0xffffffu))
		cq_event(cq);
	else
		cq->armed = true;
}

void sim_cq_arm(struct sim_cq *cq, void *ctx, bool check_consumed)
{
	struct sim_dev *dev = cq->dev;

	pthread_mutex_lock(&dev->lock);
	cq_arm_locked(cq, ctx, check_consumed ? (int64_t)load_be32_shared(cq->dbrec) : -1);
	pthread_mutex_unlock(&dev->lock);
}

void sim_cq_arm_ci(struct sim_cq *cq, void *ctx, uint32_t ci)
{
	struct sim_dev *dev = cq->dev;

	pthread_mutex_lock(&dev->lock);
	cq_arm_locked(cq, ctx, (int64_t)(ci & 0xffffffu));
	pthread_mutex_unlock(&dev->lock);
}

unsigned sim_dev_take_events(struct sim_dev *dev, void **ctx, unsigned max)
{
	unsigned n = 0;

	pthread_mutex_lock(&dev->lock);
	while (n < max && dev->ev_head) {
		struct sim_cq *cq = dev->ev_head;

		dev->ev_head = cq->ev_next;
		cq->ev_queued = false;
		ctx[n++] = cq->ev_ctx;
	}
	pthread_mutex_unlock(&dev->lock);
	return n;
}

void sim_cq_fire(struct sim_cq *cq)
{
	cq_event(cq);
}

int sim_cq_destroy(struct sim_cq *cq)
{
	struct sim_dev *dev;

	if (!cq)
		return -EINVAL;
	dev = cq->dev;
	pthread_mutex_lock(&dev->lock);
	if (cq->users) {
		pthread_mutex_unlock(&dev->lock);
		return SIM_E_BUSY;
	}
	dev->cqs[cq->slot] = NULL;
	dev->ncqs--;
	sim_sched_wake_waiters(cq, true); /* a WAIT on a missing CQ runs (and fails) */
	cq_event_drop(cq);
	if (cq->ch)
		cq->ch->ncqs--;
	pthread_mutex_unlock(&dev->lock);
	cq_free(cq);
	return 0;
}

void sim_cq_destroy_all(struct sim_dev *dev)
{
	dev->ev_head = NULL;
	for (uint32_t i = 0; i < dev->cqs_cap; i++) {
		if (dev->cqs[i] && dev->cqs[i]->ch) { /* a channel outliving them */
			dev->cqs[i]->ch->ev_head = NULL;
			dev->cqs[i]->ch->ncqs = 0;
			sim_channel_drain(dev->cqs[i]->ch);
		}
		if (dev->cqs[i])
			cq_free(dev->cqs[i]);
		dev->cqs[i] = NULL;
	}
}

uint32_t sim_cq_num(const struct sim_cq *cq)
{
	return cq->cqn;
}
void *sim_cq_buf(const struct sim_cq *cq)
{
	return cq->buf;
}
volatile uint32_t *sim_cq_dbrec(const struct sim_cq *cq)
{
	return cq->dbrec;
}
uint32_t sim_cq_ncqe(const struct sim_cq *cq)
{
	return cq->ncqe;
}

bool sim_cq_in_error(struct sim_cq *cq)
{
	bool e;

	pthread_mutex_lock(&cq->dev->lock);
	e = cq->overrun;
	pthread_mutex_unlock(&cq->dev->lock);
	return e;
}

uint32_t sim_cq_count(struct sim_cq *cq)
{
	uint32_t n;

	pthread_mutex_lock(&cq->dev->lock);
	n = cq->pi;
	pthread_mutex_unlock(&cq->dev->lock);
	return n;
}

/* The CQE event (out of line: only with an event observer). */
static __attribute__((noinline)) void emit_cqe(struct sim_cq *cq, const struct prism_cqe *c,
                                               sim_time_t t)
{
	struct sim_event ev = {
	    .kind = SIM_EV_CQE,
	    .t = t,
	    .t_end = t,
	    .qpn = c->qpn,
	    .wqe_counter = c->wqe_counter,
	    .opcode = c->wqe_opcode,
	    .cqn = cq->cqn,
	    .cqe_opcode = c->opcode,
	    .syndrome = c->syndrome,
	};

	sim_emit(cq->dev, &ev);
}

/* sim_cq_push's rare cases: a CQ in error or overrun (the CQE is lost), or
 * an event observer (the CQE event). */
int sim_cq_push_slow(struct sim_cq *cq, struct prism_cqe *c, sim_time_t t)
{
	struct sim_dev *dev = cq->dev;
	uint32_t ci = load_be32_shared(cq->dbrec) & 0xffffffu;

	if (cq->overrun)
		return -ENOSPC;
	if (!cq->ignore_overrun && ((cq->pi - ci) & 0xffffffu) >= cq->ncqe) {
		cq->overrun = cq->push_slow = true;
		sim_log(dev, SIM_LOG_ERROR, "cq %u: overrun (producer %u, consumer %u)", cq->cqn,
		        cq->pi, ci);
		return -ENOSPC;
	}
	sim_cq_write(cq, c, t);
	if (dev->obs.event)
		emit_cqe(cq, c, cq->last_time);
	return 0;
}
