/* SPDX-License-Identifier: MIT */
/*
 * net/net_shm.c - ring offers, and fetching a ring pair over the ring
 * socket.
 *
 * Owns: the offer table (token, cookie, deadline; a lock, since offers are
 * made and claimed on the setup thread but destroyed by the owner), the
 * checks on a ring socket's client (uid, token compared in constant time,
 * one use), and the client's connect, token message and descriptor
 * receipt.
 *
 * Must not: block past its deadlines, print.
 */
#include "net/net_shm.h"
#include "net/net_diag.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "net/net_pending.h"
#include "util/clock.h"

struct offer {
	uint8_t token[NET_OOB_TOKEN_BYTES];
	uint64_t cookie;
	int64_t deadline_ms; /* 0: free */
};

struct net_ring_offers {
	pthread_mutex_t lock;
	char name[NET_OOB_RING_NAME + 1];
	uint32_t size;
	int timeout_ms;
	struct offer slot[NET_RING_MAX_OFFERS];
};

int net_ring_offers_create(const struct net_listener *ls, uint32_t size, int timeout_ms,
                           struct net_ring_offers **out, struct diag_report *diag)
{
	const char *name = ls ? net_listener_ring_name(ls) : NULL;
	struct net_ring_offers *o;

	if (!name || size < NET_RING_MIN_SIZE || size > NET_RING_MAX_SIZE || (size & (size - 1)))
		return diag_report_set(diag, -EINVAL, "ring offers: no ring socket, or size %u",
		                       size);
	o = calloc(1, sizeof(*o));
	if (!o)
		return diag_report_set(diag, -ENOMEM, "ring offers: out of memory");
	pthread_mutex_init(&o->lock, NULL);
	snprintf(o->name, sizeof(o->name), "%s", name);
	o->size = size;
	o->timeout_ms = timeout_ms > 0 ? timeout_ms : NET_SETUP_TIMEOUT_MS;
	*out = o;
	return 0;
}

void net_ring_offers_destroy(struct net_ring_offers *o)
{
	if (!o)
		return;
	pthread_mutex_destroy(&o->lock);
	free(o);
}

int net_ring_offer(struct net_ring_offers *o, uint64_t cookie, struct net_oob_ring *ring)
{
	int64_t now = util_now_ms();
	struct offer *f = NULL;

	pthread_mutex_lock(&o->lock);
	for (unsigned i = 0; i < NET_RING_MAX_OFFERS && !f; i++)
		if (o->slot[i].deadline_ms <= now) /* free, or expired */
			f = &o->slot[i];
	if (f && getrandom(f->token, sizeof(f->token), 0) != (ssize_t)sizeof(f->token))
		f = NULL;
	if (f) {
		f->cookie = cookie;
		f->deadline_ms = now + o->timeout_ms;
		ring->size = o->size;
		memcpy(ring->token, f->token, sizeof(ring->token));
		snprintf(ring->name, sizeof(ring->name), "%s", o->name);
	}
	pthread_mutex_unlock(&o->lock);
	return f ? 0 : -ENOSPC;
}

static bool same_token(const uint8_t *a, const uint8_t *b)
{
	uint8_t d = 0;

	for (unsigned i = 0; i < NET_OOB_TOKEN_BYTES; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}

/* Use up the live offer with @token: its cookie, or false. */
static bool claim(struct net_ring_offers *o, const uint8_t *token, uint64_t *cookie)
{
	int64_t now = util_now_ms();
	bool found = false;

	pthread_mutex_lock(&o->lock);
	for (unsigned i = 0; i < NET_RING_MAX_OFFERS; i++) {
		struct offer *f = &o->slot[i];
		bool hit = f->deadline_ms > now && same_token(f->token, token);

		if (hit && !found) {
			*cookie = f->cookie;
			f->deadline_ms = 0;
			found = true;
		}
	}
	pthread_mutex_unlock(&o->lock);
	return found;
}

int net_ring_serve(struct net_ring_offers *o, struct net_pending *p, uint64_t *cookie,
                   struct net_ring **ring, struct diag_report *diag)
{
	const struct net_oob_params *peer = &p->peer;
	struct net_ring *r;
	int rc;

	*ring = NULL;
	if (!p->ring) {
		rc = diag_report_set(diag, -EINVAL, "not a client of the ring socket");
		goto reject;
	}
	if (p->uid != geteuid()) {
		rc = diag_report_set(diag, -EPERM, "ring for uid %u refused: the server runs as %u",
		                     p->uid, (unsigned)geteuid());
		goto reject;
	}
	if (!(peer->flags & NET_OOB_F_RING) || peer->ring.size != o->size) {
		rc = diag_report_set(diag, -EPROTO, "ring request without a ring block for size %u",
		                     o->size);
		goto reject;
	}
	if (!claim(o, peer->ring.token, cookie)) {
		rc = diag_report_set(diag, -EACCES, "ring token unknown, used or expired");
		goto reject;
	}
	rc = net_ring_create(net_pending_take_fd(p), o->size, &r, diag);
	if (!rc)
		rc = net_ring_send(r, diag);
	if (rc) {
		net_ring_close(r);
		return rc;
	}
	*ring = r;
	return 0;
reject:
	net_pending_reject(p, rc, diag ? diag->msg : "ring refused");
	return rc;
}

/* A REJECT where descriptors were expected: its reason. */
static int read_reject(int s, int timeout_ms, struct diag_report *diag)
{
	struct net_oob_msg m;
	int rc = net_oob_recv(s, &m, timeout_ms, diag);

	if (rc)
		return rc;
	if (m.type != NET_OOB_REJECT) {
		net_oob_params_release(&m.params);
		return diag_report_set(diag, -EPROTO, "ring socket answered with a setup message");
	}
	/* a busy server says so apart, as on the setup socket (net_oob_client) */
	return diag_report_set(diag,
	                       m.reject_errno == EBUSY ? NET_E_BUSY
	                       : m.reject_errno        ? -(int)m.reject_errno
	                                               : -ECONNREFUSED,
	                       "ring refused by the server: %s", m.reason);
}

int net_ring_fetch(const struct net_oob_ring *offer, uint32_t node, int timeout_ms,
                   struct net_ring **out, struct diag_report *diag)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct net_oob_msg m = {.type = NET_OOB_CONNECT};
	size_t n = strnlen(offer->name, sizeof(offer->name));
	struct pollfd pfd;
	uint8_t magic[4];
	int s, rc;

	*out = NULL;
	if (!n || n >= sizeof(sa.sun_path) - 1)
		return diag_report_set(diag, -EINVAL, "ring socket name of %zu bytes", n);
	memcpy(sa.sun_path + 1, offer->name, n);
	/* non-blocking: a full backlog is a refusal (-EAGAIN), not a wait */
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0)
		return diag_report_set(diag, -errno, "ring socket: %s", strerror(errno));
	if (connect(s, (struct sockaddr *)&sa,
	            (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) < 0) {
		rc = -errno;
		close(s);
		return diag_report_set(diag, rc, "connect to ring socket %s: %s", offer->name,
		                       strerror(-rc));
	}
	m.params.node = node;
	m.params.flags = NET_OOB_F_RING;
	m.params.ring = *offer;
	rc = net_oob_send(s, &m, timeout_ms, diag);
	if (rc) {
		close(s);
		return rc;
	}
	/* the descriptors, or a REJECT saying why not */
	pfd = (struct pollfd){.fd = s, .events = POLLIN};
	if (poll(&pfd, 1, timeout_ms) > 0 &&
	    recv(s, magic, sizeof(magic), MSG_PEEK | MSG_DONTWAIT) == (ssize_t)sizeof(magic) &&
	    !memcmp(magic, "PRSM", 4)) {
		rc = read_reject(s, timeout_ms, diag);
		close(s);
		return rc;
	}
	return net_ring_recv(s, offer->size, timeout_ms, out, diag);
}
