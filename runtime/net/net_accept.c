/* SPDX-License-Identifier: MIT */
/*
 * net/net_accept.c - the setup thread: accept, read CONNECTs without
 * blocking, enforce the setup limits, answer or hand over.
 *
 * Owns: the acceptor thread's poll loop over the listeners, an eventfd (stop),
 * the setups in progress (struct net_pending, each with its incremental
 * reader and deadline), the rejected sockets being drained ("lingering"),
 * and the reserve descriptor for accepting at the file-descriptor limit.
 * Everything but the stop flag and the counters is touched by the thread
 * alone, so the callback may answer (and so reject) on it without locks.
 * Must not: block (the only wait is poll; the callback's ACCEPT send has its
 * own short deadline), or interpret a CONNECT's blob.
 */
#include "net/net_accept.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/net_pending.h"
#include "util/clock.h"

#define LINGER_MS     2000 /* a rejected client has this long to read its REJECT */
#define MAX_LINGER    256  /* sockets drained at once; past this, closed at once */
#define ACCEPT_BURST  16   /* clients accepted per listener per pass */
#define RING_MAX_BODY 1024 /* a ring socket's CONNECT carries a token, no blob */

struct lingerer {
	int fd;
	int64_t deadline_ms;
};

struct net_acceptor {
	struct net_accept_opts o;
	struct net_listener *ls[3]; /* TCP, post socket, ring socket */
	int wakefd;
	int reserve; /* a descriptor kept free for a client at the fd limit */
	pthread_t thread;
	bool stop;

	struct net_pending *pending;
	unsigned n_pending;
	struct lingerer lingering[MAX_LINGER];
	unsigned n_linger;

	pthread_mutex_t st_lock;
	struct net_accept_stats st;
};

__attribute__((format(printf, 3, 4))) static void alog(struct net_acceptor *a, int level,
                                                       const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	if (!a->o.log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	a->o.log(a->o.ctx, level, msg);
}

static void count(struct net_acceptor *a, uint64_t *field)
{
	pthread_mutex_lock(&a->st_lock);
	(*field)++;
	pthread_mutex_unlock(&a->st_lock);
}

void net_acceptor_linger(struct net_acceptor *a, int fd)
{
	if (a->n_linger == MAX_LINGER) {
		close(fd);
		return;
	}
	a->lingering[a->n_linger++] = (struct lingerer){fd, util_now_ms() + LINGER_MS};
}

static unsigned from_host(const struct net_acceptor *a, const char *host)
{
	unsigned n = 0;

	for (const struct net_pending *p = a->pending; p; p = p->next)
		n += !strcmp(p->host, host);
	return n;
}

static void unlink_pending(struct net_acceptor *a, struct net_pending *p)
{
	struct net_pending **pp = &a->pending;

	while (*pp != p)
		pp = &(*pp)->next;
	*pp = p->next;
	p->next = NULL;
	a->n_pending--;
}

/* Refuse a setup in progress (or just accepted, not yet listed). */
static void refuse(struct net_acceptor *a, struct net_pending *p, int err, const char *why)
{
	alog(a, NET_LOG_INFO, "setup from %s refused: %s", p->addr, why);
	count(a, &a->st.refused);
	net_pending_reject(p, err, why);
}

/* At the fd limit: accept one client on the reserve descriptor to tell it so. */
static void accept_at_fd_limit(struct net_acceptor *a, struct net_listener *l)
{
	int fd;

	if (a->reserve < 0)
		return;
	close(a->reserve);
	a->reserve = -1;
	fd = accept4(net_listener_fd(l), NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd >= 0) {
		count(a, &a->st.fd_limit);
		count(a, &a->st.refused);
		net_send_reject(fd, -EMFILE, "server at its file descriptor limit; try later");
		net_reject_close(a, fd);
	}
	a->reserve = open("/dev/null", O_RDONLY | O_CLOEXEC); /* may fail until one closes */
}

static void accept_some(struct net_acceptor *a, struct net_listener *l)
{
	for (unsigned i = 0; i < ACCEPT_BURST; i++) {
		struct diag_report d = {0};
		struct net_pending *p;
		int rc = net_listener_take(l, &p, &d);

		if (rc == -EMFILE || rc == -ENFILE) {
			accept_at_fd_limit(a, l);
			return;
		}
		if (rc) {
			if (rc != -EAGAIN && rc != -EWOULDBLOCK && rc != -ECONNABORTED)
				alog(a, NET_LOG_WARN, "%s", d.msg);
			return;
		}
		p->acc = a;
		p->deadline_ms = util_now_ms() + a->o.setup_timeout_ms;
		p->rx.max_body = p->ring ? RING_MAX_BODY : p->local ? 0 : a->o.max_tcp_body;
		if (a->n_pending >= a->o.max_pending) {
			refuse(a, p, -EBUSY, "too many connection setups in progress; try later");
			continue;
		}
		if (from_host(a, p->host) >= a->o.max_pending_per_peer) {
			refuse(a, p, -EBUSY, "too many connection setups from this address");
			continue;
		}
		p->next = a->pending;
		a->pending = p;
		a->n_pending++;
	}
}

/* Read what a setup in progress has sent; answer it once complete. */
static void step_pending(struct net_acceptor *a, struct net_pending *p)
{
	struct diag_report d = {0};
	struct net_oob_msg m;
	int rc = net_oob_rx_step(&p->rx, p->fd, &m, &d);

	if (rc == 0)
		return;
	unlink_pending(a, p);
	net_oob_rx_free(&p->rx);
	if (rc < 0) {
		if (rc == -EPROTO || rc == -EPROTONOSUPPORT) {
			refuse(a, p, rc, d.msg);
		} else {
			alog(a, NET_LOG_INFO, "setup from %s failed: %s", p->addr, d.msg);
			close(p->fd);
			free(p);
		}
		return;
	}
	if (m.type != NET_OOB_CONNECT) {
		net_oob_params_release(&m.params);
		refuse(a, p, -EPROTO, "setup: expected CONNECT");
		return;
	}
	p->peer = m.params;
	count(a, &a->st.accepted);
	a->o.on_connect(a->o.ctx, p);
}

/* Drain lingering sockets; close those whose peer closed or whose time is up. */
static void step_linger(struct net_acceptor *a, unsigned i, bool readable, int64_t now)
{
	struct lingerer *g = &a->lingering[i];
	char sink[1024];
	ssize_t n = 1;

	while (readable && (n = recv(g->fd, sink, sizeof(sink), MSG_DONTWAIT)) > 0)
		;
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) ||
	    now >= g->deadline_ms) {
		close(g->fd);
		*g = a->lingering[--a->n_linger];
	}
}

static void *acceptor_thread(void *arg)
{
	struct net_acceptor *a = arg;
	unsigned cap = 0;
	struct pollfd *pf = NULL;
	struct net_pending **who = NULL;

	for (;;) {
		unsigned n = 0, n_ls = 0, np, i;
		int64_t now = util_now_ms(), next = now + 1000;
		bool stop;

		pthread_mutex_lock(&a->st_lock);
		stop = a->stop;
		a->st.pending = a->n_pending;
		a->st.lingering = a->n_linger;
		pthread_mutex_unlock(&a->st_lock);
		if (stop)
			break;
		if (cap < 4 + a->n_pending + a->n_linger) {
			unsigned c = 2 * (4 + a->n_pending + a->n_linger);
			struct pollfd *npf = realloc(pf, c * sizeof(*pf));
			struct net_pending **nw = npf ? realloc(who, c * sizeof(*who)) : NULL;

			if (npf)
				pf = npf;
			if (nw)
				who = nw;
			if (!npf || !nw) {
				struct timespec ts = {0, 10 * 1000 * 1000};

				nanosleep(&ts, NULL); /* out of memory: try again soon */
				continue;
			}
			cap = c;
		}
		pf[n++] = (struct pollfd){.fd = a->wakefd, .events = POLLIN};
		for (i = 0; i < 3; i++)
			if (a->ls[i])
				pf[n++] = (struct pollfd){.fd = net_listener_fd(a->ls[i]),
				                          .events = POLLIN};
		n_ls = n;
		for (struct net_pending *p = a->pending; p; p = p->next) {
			who[n] = p;
			pf[n++] = (struct pollfd){.fd = p->fd, .events = POLLIN};
			if (p->deadline_ms < next)
				next = p->deadline_ms;
		}
		np = n;
		for (i = 0; i < a->n_linger; i++) {
			pf[n++] = (struct pollfd){.fd = a->lingering[i].fd, .events = POLLIN};
			if (a->lingering[i].deadline_ms < next)
				next = a->lingering[i].deadline_ms;
		}
		if (poll(pf, n, next > now ? (int)(next - now) : 0) < 0 && errno != EINTR)
			break;
		now = util_now_ms();
		if (pf[0].revents & POLLIN) {
			uint64_t v;

			if (read(a->wakefd, &v, sizeof(v)) < 0 && errno != EAGAIN)
				break;
		}
		/* lingering sockets first (from the back: removal moves the last one) */
		for (i = n - np; i-- > 0;)
			step_linger(a, i, pf[np + i].revents != 0, now);
		for (i = n_ls; i < np; i++) {
			struct net_pending *p = who[i];

			if (pf[i].revents)
				step_pending(a, p);
			else if (now >= p->deadline_ms) {
				unlink_pending(a, p);
				refuse(a, p, -ETIMEDOUT, "setup not completed in time");
			}
		}
		for (i = 1; i < n_ls; i++)
			if (pf[i].revents & POLLIN) {
				unsigned li = 0;

				while (!a->ls[li] || pf[i].fd != net_listener_fd(a->ls[li]))
					li++;
				accept_some(a, a->ls[li]);
			}
	}
	free(pf);
	free(who);
	return NULL;
}

int net_acceptor_start(struct net_listener *tcp, struct net_listener *local,
                       struct net_listener *ring, const struct net_accept_opts *opts,
                       struct net_acceptor **out, struct diag_report *diag)
{
	struct net_acceptor *a;
	int rc;

	if (!opts || !opts->on_connect || !out || (!tcp && !local && !ring))
		return diag_report_set(diag, -EINVAL, "acceptor: no listener or no callback");
	a = calloc(1, sizeof(*a));
	if (!a)
		return diag_report_set(diag, -ENOMEM, "acceptor: out of memory");
	a->o = *opts;
	if (!a->o.max_pending)
		a->o.max_pending = 64;
	if (!a->o.max_pending_per_peer)
		a->o.max_pending_per_peer = 8;
	if (!a->o.max_tcp_body)
		a->o.max_tcp_body = 64u << 10;
	if (!a->o.setup_timeout_ms)
		a->o.setup_timeout_ms = NET_SETUP_TIMEOUT_MS;
	a->ls[0] = tcp;
	a->ls[1] = local;
	a->ls[2] = ring;
	pthread_mutex_init(&a->st_lock, NULL);
	a->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	a->reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (a->wakefd < 0 || a->reserve < 0) {
		rc = diag_report_set(diag, -errno, "acceptor: %s", strerror(errno));
		goto fail;
	}
	rc = -pthread_create(&a->thread, NULL, acceptor_thread, a);
	if (rc) {
		diag_report_set(diag, rc, "acceptor: thread: %s", strerror(-rc));
		goto fail;
	}
	*out = a;
	return 0;
fail:
	if (a->wakefd >= 0)
		close(a->wakefd);
	if (a->reserve >= 0)
		close(a->reserve);
	pthread_mutex_destroy(&a->st_lock);
	free(a);
	return rc;
}

void net_acceptor_stop(struct net_acceptor *a)
{
	uint64_t one = 1;

	if (!a)
		return;
	pthread_mutex_lock(&a->st_lock);
	a->stop = true;
	pthread_mutex_unlock(&a->st_lock);
	if (write(a->wakefd, &one, sizeof(one)) < 0) {
		/* the eventfd cannot be full: nothing else writes it */
	}
	pthread_join(a->thread, NULL);
	while (a->pending) {
		struct net_pending *p = a->pending;

		a->pending = p->next;
		net_oob_rx_free(&p->rx);
		net_oob_params_release(&p->peer);
		close(p->fd);
		free(p);
	}
	for (unsigned i = 0; i < a->n_linger; i++)
		close(a->lingering[i].fd);
	close(a->wakefd);
	if (a->reserve >= 0)
		close(a->reserve);
	pthread_mutex_destroy(&a->st_lock);
	free(a);
}

void net_acceptor_stats(struct net_acceptor *a, struct net_accept_stats *out)
{
	pthread_mutex_lock(&a->st_lock);
	*out = a->st;
	pthread_mutex_unlock(&a->st_lock);
}
