/* SPDX-License-Identifier: MIT */
/*
 * tests/mlx5emu/mlx5emu_event.c - completion events as the kernel and the
 * NIC deliver them for DEVX CQs: event channels, a CQ's subscription to its
 * completion event, and the CQ arm doorbell.
 *
 *   channel    mlx5dv_devx_create_event_channel with OMIT_EV_DATA (the only
 *              kind emulated): an event is the subscription's cookie, and a
 *              CQ's events combine into one while unread (mlx5dv_devx_get_
 *              event(3)); its fd is an eventfd, so fcntl works on it, but it
 *              never becomes readable (nothing here waits on it); reading an
 *              empty channel fails with EAGAIN, as a non-blocking read does;
 *   subscribe  a CQ of the same context, to event type 0 (completion) only;
 *   doorbell   8 bytes at UAR offset 0x20: be32 `arm_sn << 28 | cmd << 24 |
 *              ci`, be32 CQN.  cmd 0 (any next CQE) only; the doorbell
 *              record's arm word (word 1) must already hold the same value.
 *              The sim CQ is armed at ci (sim_cq_arm_ci): one event once its
 *              producer counter passes ci, at once if it already has.
 *
 * The sim queues a fired CQ on its device (one sim device serves every
 * context opened on an emulated device); reading a channel moves the sim's
 * queued CQs onto their own channels' lists first.  Lock order: emu.lock,
 * then the sim device's.
 *
 * Owns: channel objects.  Must not: parse DEVX commands (mlx5emu_cmd.c).
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "tests/mlx5emu/mlx5emu_internal.h"

enum { EV_TYPE_COMP = 0x0, CQ_DB_CMD_NEXT = 0x0 };

struct mlx5dv_devx_event_channel *emu_create_event_channel(struct ibv_context *ctx, int flags)
{
	struct emu_ctx *c = (struct emu_ctx *)ctx;
	struct emu_evch *ch;

	if (!c->devx) {
		emu_fail(EOPNOTSUPP, "mlx5dv_devx_create_event_channel on a context without DEVX");
		return NULL;
	}
	if (emu.o.no_events) {
		errno = EOPNOTSUPP; /* the kernel has no DEVX event channels */
		return NULL;
	}
	if (flags != MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA) {
		emu_fail(EOPNOTSUPP,
		         "mlx5dv_devx_create_event_channel: flags 0x%x (only OMIT_EV_DATA is "
		         "emulated)",
		         (unsigned)flags);
		return NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (!ch) {
		errno = ENOMEM;
		return NULL;
	}
	ch->pub.fd = eventfd(0, EFD_CLOEXEC);
	if (ch->pub.fd < 0) {
		free(ch);
		return NULL;
	}
	ch->ctx = c;
	ch->tail = &ch->head;
	pthread_mutex_lock(&emu.lock);
	ch->next = c->evchs;
	c->evchs = ch;
	pthread_mutex_unlock(&emu.lock);
	return &ch->pub;
}

void emu_destroy_event_channel(struct mlx5dv_devx_event_channel *pub)
{
	struct emu_evch *ch = (struct emu_evch *)pub, **pp;

	pthread_mutex_lock(&emu.lock);
	/* the subscriptions over it end with it */
	for (struct mlx5dv_devx_obj *o = ch->ctx->objs; o; o = o->next)
		if (o->evch == ch) {
			o->evch = NULL;
			o->ev_queued = false;
		}
	for (pp = &ch->ctx->evchs; *pp && *pp != ch; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = ch->next;
	pthread_mutex_unlock(&emu.lock);
	close(ch->pub.fd);
	free(ch);
}

int emu_subscribe_devx_event(struct mlx5dv_devx_event_channel *pub, struct mlx5dv_devx_obj *obj,
                             uint16_t events_sz, uint16_t events_num[], uint64_t cookie)
{
	struct emu_evch *ch = (struct emu_evch *)pub;

	if (!obj || obj->kind != EMU_OBJ_CQ || obj->ctx != ch->ctx)
		return emu_fail(EINVAL, "mlx5dv_devx_subscribe_devx_event: not a CQ of the "
		                        "channel's context (only CQ completion events are "
		                        "emulated)");
	if (events_sz != sizeof(uint16_t) || events_num[0] != EV_TYPE_COMP)
		return emu_fail(EINVAL,
		                "mlx5dv_devx_subscribe_devx_event: %u bytes of event numbers, "
		                "first %u (only the completion event, 0, is emulated)",
		                events_sz, events_sz ? events_num[0] : 0);
	pthread_mutex_lock(&emu.lock);
	if (obj->evch) {
		pthread_mutex_unlock(&emu.lock);
		return emu_fail(EEXIST,
		                "mlx5dv_devx_subscribe_devx_event: CQ 0x%x subscribed "
		                "already",
		                obj->num);
	}
	obj->evch = ch;
	obj->cookie = cookie;
	pthread_mutex_unlock(&emu.lock);
	return 0;
}

/* emu.lock held: @o onto its channel's list, unless it is there already. */
static void ev_queue(struct mlx5dv_devx_obj *o)
{
	if (!o->evch || o->ev_queued)
		return;
	o->ev_queued = true;
	o->ev_next = NULL;
	*o->evch->tail = o;
	o->evch->tail = &o->ev_next;
}

void emu_event_forget(struct mlx5dv_devx_obj *o)
{
	struct emu_evch *ch = o->evch;
	struct mlx5dv_devx_obj **pp;

	if (!ch || !o->ev_queued)
		return;
	for (pp = &ch->head; *pp && *pp != o; pp = &(*pp)->ev_next)
		;
	if (*pp)
		*pp = o->ev_next;
	if (ch->tail == &o->ev_next)
		ch->tail = pp;
	o->ev_queued = false;
}

ssize_t emu_get_event(struct mlx5dv_devx_event_channel *pub,
                      struct mlx5dv_devx_async_event_hdr *data, size_t len)
{
	struct emu_evch *ch = (struct emu_evch *)pub;
	struct mlx5dv_devx_obj *o;
	void *fired[64];
	unsigned n;

	if (len < sizeof(data->cookie))
		return emu_fail(EINVAL, "mlx5dv_devx_get_event: %zu bytes (the cookie needs 8)",
		                len);
	pthread_mutex_lock(&emu.lock);
	do {
		n = sim_dev_take_events(ch->ctx->sim, fired, 64);
		for (unsigned i = 0; i < n; i++)
			ev_queue(fired[i]);
	} while (n == 64);
	o = ch->head;
	if (o) {
		ch->head = o->ev_next;
		if (!ch->head)
			ch->tail = &ch->head;
		o->ev_queued = false;
		data->cookie = o->cookie;
	}
	pthread_mutex_unlock(&emu.lock);
	if (!o) {
		errno = EAGAIN;
		return -1;
	}
	return (ssize_t)sizeof(data->cookie);
}

void emu_cq_doorbell(struct emu_ctx *c, uint64_t bytes)
{
	uint32_t db[2], word, cqn, ci, rec;
	struct mlx5dv_devx_obj *o;

	memcpy(db, &bytes, sizeof(db));
	word = be32toh(db[0]);
	cqn = be32toh(db[1]);
	ci = word & 0xffffffu;
	if ((word >> 30) || ((word >> 24) & 0xf) != CQ_DB_CMD_NEXT || (cqn >> 24)) {
		emu_fail(EINVAL,
		         "CQ doorbell 0x%08x 0x%08x: cmd %u (only 0, any next CQE, is emulated) or "
		         "reserved bits set",
		         word, cqn, (word >> 24) & 0xf);
		return;
	}
	pthread_mutex_lock(&emu.lock);
	for (o = c->objs; o && !(o->kind == EMU_OBJ_CQ && o->num == cqn); o = o->next)
		;
	pthread_mutex_unlock(&emu.lock);
	if (!o) {
		emu_fail(EINVAL, "CQ doorbell for CQN 0x%x, no such CQ on this context", cqn);
		return;
	}
	rec = be32toh(__atomic_load_n(&sim_cq_dbrec(o->cq)[1], __ATOMIC_ACQUIRE));
	if (rec != word) {
		emu_fail(EINVAL,
		         "CQ 0x%x armed with 0x%08x, its doorbell record's arm word holds 0x%08x "
		         "(written after the doorbell?)",
		         cqn, word, rec);
		return;
	}
	if (!o->evch) {
		emu_fail(EINVAL, "CQ 0x%x armed without a subscription to its completion event",
		         cqn);
		return;
	}
	__atomic_add_fetch(&emu.doorbells, 1, __ATOMIC_RELAXED);
	sim_cq_arm_ci(o->cq, o, ci);
}
