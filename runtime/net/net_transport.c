/* SPDX-License-Identifier: MIT */
/*
 * net/net_transport.c - the packet pump between a sim device and its
 * peers' devices, over TCP or over a shared-memory ring pair: the
 * transport object and its thread.
 *
 * Owns: creating and destroying a transport (it installs itself as the
 * device's wire), its log and wake-up eventfd, and the transport thread's
 * rounds: epoll over every link's descriptors (the hot rings of net_hot.c
 * first, their sleep flags set before it sleeps), the poll before a sleep
 * after a round that read a link, handing each event to the link's reader
 * or writer (net_link_rx.c, net_link_tx.c), the links xmit saw fail or the
 * device refused, and the run-to-completion pieces: the rx hook it calls
 * after it delivered, and the requests split off behind acknowledgements,
 * delivered after the hook ran on them.  net_link.h has the threads and
 * locks.
 *
 * Must not: block the device thread, create QPs, print.
 */
#include "net/net_link.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "net/net_ring.h"

void net_transport_log(struct net_transport *t, int level, const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	if (!t->opts.log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	t->opts.log(t->opts.log_ctx, level, msg);
}

void net_transport_wake(struct net_transport *t)
{
	uint64_t one = 1;
	ssize_t n = write(t->wakefd, &one, sizeof(one));

	(void)n;
}

/* Links the device pushed back on, and links that xmit saw fail. */
static void service_flagged(struct net_transport *t)
{
	uint32_t i;

	for (i = 0;; i++) {
		struct net_link *l = NULL;
		bool failing = false;

		pthread_mutex_lock(&t->lock);
		if (i >= t->nslots) {
			pthread_mutex_unlock(&t->lock);
			break;
		}
		if (t->slots[i] && (t->slots[i]->failing || t->slots[i]->rx_stalled)) {
			l = t->slots[i];
			failing = l->failing;
			l->failing = false;
			l->pins++;
		}
		pthread_mutex_unlock(&t->lock);
		if (!l)
			continue;
		pthread_mutex_lock(&l->rx_lock);
		if (failing) {
			char why[96];

			snprintf(why, sizeof(why), "send: %s", strerror(-l->tx_err));
			net_link_fail(l, l->tx_err, why);
		} else if (l->rx_stalled && !l->dead) {
			l->rx_stalled = false;
			pthread_mutex_lock(&t->lock);
			t->stalled--;
			pthread_mutex_unlock(&t->lock);
			/* still not reading a link paused for back-pressure */
			pthread_mutex_lock(&l->tx_lock);
			net_link_events(l);
			pthread_mutex_unlock(&l->tx_lock);
			net_link_deliver_records(l, false);
			if (!l->rx_stalled)
				net_link_on_readable(l, false, t->rx_scratch, false);
		}
		pthread_mutex_unlock(&l->rx_lock);
		net_link_unpin(l);
	}
}

/* Transport thread: what it delivered since @before reaches the owner's
 * hook (which runs the device and its host side to completion), then every
 * frame queued meanwhile leaves. */
static void run_hook(struct net_transport *t, uint64_t before)
{
	void (*fn)(void *) = NULL;
	void *ctx = NULL;

	if (__atomic_load_n(&t->delivered, __ATOMIC_RELAXED) != before) {
		pthread_mutex_lock(&t->lock);
		fn = t->rx_hook;
		ctx = t->rx_hook_ctx;
		t->in_hook = fn != NULL;
		pthread_mutex_unlock(&t->lock);
	}
	if (fn) {
		fn(ctx);
		pthread_mutex_lock(&t->lock);
		t->in_hook = false;
		pthread_cond_broadcast(&t->hook_idle);
		pthread_mutex_unlock(&t->lock);
	}
	net_transport_uncork(t);
}

/* Transport thread: the records split off behind acknowledgements (each
 * link at most once a round, so one link cannot hold the others up), then
 * the hook again. */
static void deliver_split(struct net_transport *t, struct net_link **split, unsigned n)
{
	uint64_t before = __atomic_load_n(&t->delivered, __ATOMIC_RELAXED);

	net_transport_cork(t);
	for (unsigned i = 0; i < n; i++) {
		struct net_link *l = split[i];

		bool closed;

		pthread_mutex_lock(&t->lock);
		closed = l->closed; /* by the hook: its QP may be gone */
		pthread_mutex_unlock(&t->lock);
		pthread_mutex_lock(&l->rx_lock);
		l->rx_split = false;
		if (!closed && !l->rx_stalled)
			net_link_deliver_records(l, false); /* a partial record stays */
		pthread_mutex_unlock(&l->rx_lock);
		net_link_unpin(l);
	}
	run_hook(t, before);
}

#define SPLIT_MAX 64u

/*
 * Transport thread, after a round that read a link (a ring, or a socket): a
 * closed-loop peer sends its next request a few microseconds after the
 * answer, so look at the epoll set without sleeping for up to the spin
 * budget (net_spin.h) before sleeping in it.  The rings' sleep flags are
 * set as usual (the peer signals, epoll sees it at once) and sockets are
 * level-triggered, so no wake-up can be lost; a stop is seen through the
 * wake eventfd.  Returns the events found (0: none).
 */
struct epoll_look {
	struct net_transport *t;
	struct epoll_event *evs;
	int max;
};

static int look_epoll(void *ctx)
{
	struct epoll_look *e = ctx;

	return epoll_wait(e->t->epfd, e->evs, e->max, 0);
}

static int spin_for_events(struct net_transport *t, struct epoll_event *evs, int max)
{
	uint32_t tried = net_spin_begin(&t->spin);
	struct epoll_look e = {t, evs, max};

	return tried ? net_spin_poll(&t->spin, tried, look_epoll, &e) : 0;
}

/* The events of a non-blocking epoll_wait after the @n taken from hot rings
 * in @evs, leaving out those the hot rings already gave.  Returns the
 * total. */
static int add_polled(struct net_transport *t, struct epoll_event *evs, int n, int max)
{
	int m = epoll_wait(t->epfd, evs + n, max - n, 0), total = n;

	for (int j = 0; j < m; j++) {
		int k;

		for (k = 0; k < n && evs[k].data.u64 != evs[n + j].data.u64; k++)
			;
		if (k == n)
			evs[total++] = evs[n + j];
	}
	return total;
}

static void *transport_thread(void *arg)
{
	struct net_transport *t = arg;
	struct epoll_event evs[64];
	struct net_link *split[SPLIT_MAX];
	bool data_round = false; /* the last round read a link */

	for (;;) {
		bool stop;
		unsigned stalled, nsplit = 0, kind;
		uint32_t ev;
		uint64_t before;
		int i, n;

		pthread_mutex_lock(&t->lock);
		stop = t->stop;
		stalled = t->stalled;
		pthread_mutex_unlock(&t->lock);
		if (stop)
			break;
		/* hot rings with bytes first, with whatever else is ready; when
		 * none has bytes, their flags are set before any sleep */
		n = net_hot_take(t, evs, 64);
		if (n > 0)
			n = add_polled(t, evs, n, 64);
		else
			n = net_hot_settle(t, evs, 64);
		if (n == 0 && data_round && !stalled)
			n = spin_for_events(t, evs, 64);
		if (n == 0)
			n = epoll_wait(t->epfd, evs, 64, stalled ? 1 : -1);
		if (n < 0 && errno != EINTR)
			break;
		data_round = false;
		before = __atomic_load_n(&t->delivered, __ATOMIC_RELAXED);
		net_transport_cork(t);
		for (i = 0; i < n; i++) {
			struct net_link *l;

			if (evs[i].data.u64 == WAKE_ID) {
				uint64_t v;
				ssize_t r = read(t->wakefd, &v, sizeof(v));

				(void)r;
				continue;
			}
			l = net_link_pin(t, evs[i].data.u64);
			if (!l)
				continue;
			kind = (unsigned)(evs[i].data.u64 >> ID_KIND_SHIFT) & 3u;
			ev = evs[i].events;
			/* bytes came: a ring's signal, or a socket's */
			data_round |= l->ring ? kind == FD_DATA : (ev & EPOLLIN) && !l->polled;
			if (l->ring && kind == FD_ROOM)
				ev = EPOLLOUT;
			else if (l->ring && kind == FD_MAIN) /* the setup socket: a hang-up */
				ev = EPOLLIN | EPOLLHUP;
			if (ev & EPOLLOUT)
				net_link_on_writable(l);
			if (ev & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP)) {
				pthread_mutex_lock(&l->rx_lock);
				net_link_on_readable(l, ev & (EPOLLHUP | EPOLLERR), t->rx_scratch,
				                     nsplit < SPLIT_MAX);
				pthread_mutex_unlock(&l->rx_lock);
			}
			if (l->rx_split) {
				split[nsplit++] = l; /* stays pinned */
				continue;
			}
			net_link_unpin(l);
		}
		pthread_mutex_lock(&t->lock);
		stop = t->flagged || t->stalled;
		t->flagged = false;
		pthread_mutex_unlock(&t->lock);
		if (stop)
			service_flagged(t);
		run_hook(t, before);
		if (nsplit)
			deliver_split(t, split, nsplit);
	}
	return NULL;
}

void net_transport_set_rx_hook(struct net_transport *t, void (*fn)(void *ctx), void *ctx)
{
	bool on_thread = t->running && pthread_equal(pthread_self(), t->thread);

	bool same;

	pthread_mutex_lock(&t->lock);
	same = t->rx_hook == fn && t->rx_hook_ctx == ctx;
	t->rx_hook = fn;
	t->rx_hook_ctx = ctx;
	while (!same && !on_thread && t->in_hook)
		pthread_cond_wait(&t->hook_idle, &t->lock);
	pthread_mutex_unlock(&t->lock);
}

static const struct sim_wire_ops transport_wire = {.xmit = net_transport_xmit};

int net_transport_create(struct sim_dev *dev, const struct net_transport_opts *opts,
                         struct net_transport **out, struct diag_report *diag)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = WAKE_ID};
	struct net_transport *t;
	int rc;

	if (!dev || !out)
		return diag_report_set(diag, -EINVAL, "transport: NULL device");
	if (opts && opts->sz > sizeof(*opts)) {
		const uint8_t *tail = (const uint8_t *)opts + sizeof(*opts);
		size_t i;

		for (i = 0; i < opts->sz - sizeof(*opts); i++)
			if (tail[i])
				return diag_report_set(
				    diag, -EINVAL,
				    "transport options: unknown nonzero field at byte %zu",
				    sizeof(*opts) + i);
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return diag_report_set(diag, -ENOMEM, "transport: out of memory");
	if (opts)
		memcpy(&t->opts, opts, opts->sz < sizeof(*opts) ? opts->sz : sizeof(*opts));
	t->opts.sz = sizeof(t->opts);
	if (!t->opts.max_pkt)
		t->opts.max_pkt = NET_DEFAULT_MAX_PKT;
	if (!t->opts.tx_buf)
		t->opts.tx_buf = NET_DEFAULT_TX_BUF;
	t->dev = dev;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->unpinned, NULL);
	pthread_cond_init(&t->hook_idle, NULL);
	net_spin_init(&t->spin, net_spin_cap_env());
	t->rx_scratch = malloc(RX_CHUNK);
	if (!t->rx_scratch) {
		free(t);
		return diag_report_set(diag, -ENOMEM, "transport: out of memory");
	}
	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	t->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (t->epfd < 0 || t->wakefd < 0 || epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->wakefd, &ev)) {
		rc = diag_report_set(diag, -errno, "transport: epoll/eventfd: %s", strerror(errno));
		goto fail;
	}
	rc = -pthread_create(&t->thread, NULL, transport_thread, t);
	if (rc) {
		diag_report_set(diag, rc, "transport: thread: %s", strerror(-rc));
		goto fail;
	}
	pthread_setname_np(t->thread, "prism-net");
	t->running = true;
	sim_dev_set_wire(dev, &transport_wire, t);
	*out = t;
	return 0;
fail:
	if (t->epfd >= 0)
		close(t->epfd);
	if (t->wakefd >= 0)
		close(t->wakefd);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->unpinned);
	pthread_cond_destroy(&t->hook_idle);
	free(t->rx_scratch);
	free(t);
	return rc;
}

void net_transport_destroy(struct net_transport *t)
{
	uint32_t i;

	if (!t)
		return;
	sim_dev_set_wire(t->dev, NULL, NULL);
	pthread_mutex_lock(&t->lock);
	t->stop = true;
	pthread_mutex_unlock(&t->lock);
	net_transport_wake(t);
	if (t->running)
		pthread_join(t->thread, NULL);
	for (i = 0; i < t->nslots; i++) {
		struct net_link *l = t->slots[i];

		if (!l)
			continue;
		net_link_unlink(t, l);
		net_link_free(l);
	}
	free(t->slots);
	free(t->hot);
	free(t->rx_scratch);
	close(t->epfd);
	close(t->wakefd);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->unpinned);
	pthread_cond_destroy(&t->hook_idle);
	free(t);
}
