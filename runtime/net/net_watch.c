/* SPDX-License-Identifier: MIT */
/*
 * net/net_watch.c - the watch thread (net_watch.h): epoll over the watched
 * sockets for hang-up, error or end of stream, and an eventfd to stop it.
 *
 * Each watched socket sits in a slot; epoll carries generation << 32 | slot,
 * so an event read after the socket was removed (and its slot reused) is
 * recognised under the lock and dropped.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/net_watch.h"

#define WAKE_KEY UINT64_MAX

struct net_watched {
	struct net_watch *w;
	int fd;
	uint32_t slot, gen;
	bool fired;
	net_watch_down_fn down;
	void *ctx;
};

struct net_watch {
	int ep, wake;
	pthread_t thread;
	pthread_mutex_t lock; /* slots, and every callback */
	struct net_watched **slots;
	uint32_t cap, gen;
};

/* Lock held: is @x's peer gone?  @why says how. */
static bool peer_gone(struct net_watched *x, uint32_t events, const char **why)
{
	char buf[256];
	ssize_t n;

	if (events & EPOLLIN) {
		while ((n = recv(x->fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
			; /* the setup protocol sends nothing more: dropped */
		if (n == 0) {
			*why = "the peer closed the setup connection";
			return true;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			*why = strerror(errno);
			return true;
		}
	}
	if (events & (EPOLLHUP | EPOLLERR | EPOLLRDHUP)) {
		int err = 0;
		socklen_t len = sizeof(err);

		getsockopt(x->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		*why = err ? strerror(err) : "the peer closed the setup connection";
		return true;
	}
	return false;
}

static void *watch_thread(void *arg)
{
	struct net_watch *w = arg;
	struct epoll_event ev[32];

	for (;;) {
		int n = epoll_wait(w->ep, ev, 32, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return NULL;
		pthread_mutex_lock(&w->lock);
		for (int i = 0; i < n; i++) {
			uint64_t key = ev[i].data.u64;
			uint32_t slot = (uint32_t)key;
			struct net_watched *x;
			const char *why = NULL;

			if (key == WAKE_KEY) {
				pthread_mutex_unlock(&w->lock);
				return NULL;
			}
			x = slot < w->cap ? w->slots[slot] : NULL;
			if (!x || x->gen != (uint32_t)(key >> 32) || x->fired ||
			    !peer_gone(x, ev[i].events, &why))
				continue;
			x->fired = true;
			epoll_ctl(w->ep, EPOLL_CTL_DEL, x->fd, NULL);
			x->down(x->ctx, why);
		}
		pthread_mutex_unlock(&w->lock);
	}
}

int net_watch_create(struct net_watch **out, struct diag_report *diag)
{
	struct net_watch *w = calloc(1, sizeof(*w));
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = WAKE_KEY};
	int err;

	if (!w)
		return diag_report_set(diag, -ENOMEM, "setup watch: out of memory");
	w->ep = epoll_create1(EPOLL_CLOEXEC);
	w->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->ep < 0 || w->wake < 0 || epoll_ctl(w->ep, EPOLL_CTL_ADD, w->wake, &ev)) {
		err = -errno;
		goto fail;
	}
	pthread_mutex_init(&w->lock, NULL);
	if ((err = -pthread_create(&w->thread, NULL, watch_thread, w))) {
		pthread_mutex_destroy(&w->lock);
		goto fail;
	}
	*out = w;
	return 0;
fail:
	if (w->ep >= 0)
		close(w->ep);
	if (w->wake >= 0)
		close(w->wake);
	free(w);
	return diag_report_set(diag, err, "setup watch: %s", strerror(-err));
}

void net_watch_destroy(struct net_watch *w)
{
	if (!w)
		return;
	if (eventfd_write(w->wake, 1) == 0)
		pthread_join(w->thread, NULL);
	for (uint32_t i = 0; i < w->cap; i++)
		if (w->slots[i]) {
			close(w->slots[i]->fd);
			free(w->slots[i]);
		}
	free(w->slots);
	pthread_mutex_destroy(&w->lock);
	close(w->ep);
	close(w->wake);
	free(w);
}

int net_watch_add(struct net_watch *w, int fd, net_watch_down_fn down, void *ctx,
                  struct net_watched **out, struct diag_report *diag)
{
	struct net_watched *x = calloc(1, sizeof(*x));
	struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP};
	uint32_t slot;
	int err = -ENOMEM;

	if (!x)
		goto fail;
	*x = (struct net_watched){.w = w, .fd = fd, .down = down, .ctx = ctx};
	pthread_mutex_lock(&w->lock);
	for (slot = 0; slot < w->cap && w->slots[slot]; slot++)
		;
	if (slot == w->cap) {
		uint32_t ncap = w->cap ? 2 * w->cap : 16;
		struct net_watched **n = realloc(w->slots, ncap * sizeof(*n));

		if (!n) {
			pthread_mutex_unlock(&w->lock);
			goto fail;
		}
		memset(n + w->cap, 0, (ncap - w->cap) * sizeof(*n));
		w->slots = n;
		w->cap = ncap;
	}
	x->slot = slot;
	x->gen = ++w->gen;
	ev.data.u64 = (uint64_t)x->gen << 32 | slot;
	if (epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev)) {
		err = -errno;
		pthread_mutex_unlock(&w->lock);
		goto fail;
	}
	w->slots[slot] = x;
	pthread_mutex_unlock(&w->lock);
	*out = x;
	return 0;
fail:
	free(x);
	close(fd);
	return diag_report_set(diag, err, "setup watch: %s", strerror(-err));
}

void net_watch_remove(struct net_watched *x)
{
	struct net_watch *w;

	if (!x)
		return;
	w = x->w;
	pthread_mutex_lock(&w->lock);
	if (!x->fired)
		epoll_ctl(w->ep, EPOLL_CTL_DEL, x->fd, NULL);
	w->slots[x->slot] = NULL;
	pthread_mutex_unlock(&w->lock);
	close(x->fd);
	free(x);
}
