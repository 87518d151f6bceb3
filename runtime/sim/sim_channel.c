/* SPDX-License-Identifier: MIT */
/*
 * sim_channel.c - completion channels, as ibv_create_comp_channel: a list
 * of the completion events of the CQs attached to it (sim_cq_set_channel)
 * and an eventfd that is readable exactly while that list is not empty,
 * so that a consumer can sleep in poll(2) until the NIC thread writes a
 * CQE to a CQ it armed (ibv_get_cq_event).
 *
 * Owns: struct sim_channel and its eventfd.  The list is kept under
 * dev->lock; the fd is written when the list gains its first event and
 * read back to zero when the list empties, both under that lock, so its
 * state never disagrees with the list's.
 *
 * Must not: queue events (sim_cq.c decides when an armed CQ fires).
 */
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "sim/sim_internal.h"

int sim_channel_create(struct sim_dev *dev, struct sim_channel **out)
{
	struct sim_channel *ch;

	if (!dev || !out)
		return -EINVAL;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return -ENOMEM;
	ch->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ch->fd < 0) {
		int err = -errno;

		free(ch);
		return err;
	}
	ch->dev = dev;
	*out = ch;
	return 0;
}

int sim_channel_destroy(struct sim_channel *ch)
{
	struct sim_dev *dev;

	if (!ch)
		return 0;
	dev = ch->dev;
	pthread_mutex_lock(&dev->lock);
	if (ch->ncqs) {
		pthread_mutex_unlock(&dev->lock);
		return SIM_E_BUSY;
	}
	pthread_mutex_unlock(&dev->lock);
	close(ch->fd);
	free(ch);
	return 0;
}

int sim_channel_fd(const struct sim_channel *ch)
{
	return ch->fd;
}

unsigned sim_channel_take_events(struct sim_channel *ch, void **ctx, unsigned max)
{
	unsigned n = 0;

	pthread_mutex_lock(&ch->dev->lock);
	while (n < max && ch->ev_head) {
		struct sim_cq *cq = ch->ev_head;

		ch->ev_head = cq->ev_next;
		cq->ev_queued = false;
		ctx[n++] = cq->ev_ctx;
	}
	if (n && !ch->ev_head)
		sim_channel_drain(ch);
	pthread_mutex_unlock(&ch->dev->lock);
	return n;
}

void sim_channel_signal(struct sim_channel *ch)
{
	uint64_t one = 1;

	/* cannot fail short of a counter at 2^64 - 2: one write per empty
	 * list, one read back when it empties */
	if (write(ch->fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		sim_log(ch->dev, SIM_LOG_ERROR, "completion channel: eventfd write failed");
}

void sim_channel_drain(struct sim_channel *ch)
{
	uint64_t v;

	/* EAGAIN: already zero */
	if (read(ch->fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		sim_log(ch->dev, SIM_LOG_ERROR, "completion channel: eventfd read failed");
}
