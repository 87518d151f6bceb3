/* SPDX-License-Identifier: MIT */
/*
 * net/net_sock.c - listen, accept and connect for connection setup.
 *
 * Owns: the listening socket, pending (accepted, not yet answered)
 * connections and the client's connect with a deadline.  Name resolution
 * goes through getaddrinfo, so IPv4 and IPv6 both work.
 *
 * Must not: touch queues or the data path; print.
 */
#include "net/net_sock.h"
#include "net/net_pending.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/random.h>
#include <sys/un.h>
#include <unistd.h>

struct net_listener {
	int fd;
	int port;   /* 0 for a Unix socket */
	char *path; /* a Unix socket's path (unlinked at close) */
	bool local; /* a Unix socket: its clients' credentials are known */
	bool ring;  /* the ring socket (net_listen_ring) */
	char ring_name[NET_OOB_RING_NAME + 1];
};

int net_sock_setup(int fd)
{
	int one = 1, fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return -errno;
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		return -errno;
	return 0;
}

/* "10.0.0.2:40112" in @out, "10.0.0.2" in @host. */
int net_sock_setup_local(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static void addr_string(const struct sockaddr *sa, char *out, size_t cap, char *host_out,
                        size_t host_cap)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		port = ntohs(in->sin_port);
		snprintf(out, cap, "%s:%u", host, port);
		snprintf(host_out, host_cap, "%s", host);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		port = ntohs(in6->sin6_port);
		snprintf(out, cap, "[%s]:%u", host, port);
		snprintf(host_out, host_cap, "%s", host);
	} else {
		snprintf(out, cap, "?");
		snprintf(host_out, host_cap, "?");
	}
}

static int resolve(const char *host, int port, bool passive, struct addrinfo **res,
                   struct diag_report *diag)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
	char service[16];
	int rc;

	if (passive)
		hints.ai_flags = AI_PASSIVE;
	snprintf(service, sizeof(service), "%d", port);
	rc = getaddrinfo(host, service, &hints, res);
	if (rc)
		return diag_report_set(diag, NET_E_RESOLVE, "cannot resolve host '%s': %s",
		                       host ? host : "*", gai_strerror(rc));
	return 0;
}

int net_listen(const char *host, int port, struct net_listener **out, struct diag_report *diag)
{
	struct addrinfo *res, *ai;
	struct net_listener *l;
	int rc, fd = -1, one = 1, err = -EADDRNOTAVAIL;

	if (port == 0)
		port = NET_DEFAULT_PORT;
	if (port < NET_PORT_EPHEMERAL || port > 65535)
		return diag_report_set(diag, -EINVAL, "listen: port %d out of range", port);
	rc = resolve(host, port == NET_PORT_EPHEMERAL ? 0 : port, true, &res, diag);
	if (rc)
		return rc;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
		            ai->ai_protocol);
		if (fd < 0) {
			err = -errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 64) == 0)
			break;
		err = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return diag_report_set(diag, err, "listen on %s:%d: %s", host ? host : "*", port,
		                       strerror(-err));
	l = calloc(1, sizeof(*l));
	if (!l) {
		close(fd);
		return diag_report_set(diag, -ENOMEM, "listen: out of memory");
	}
	l->fd = fd;
	{
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);

		getsockname(fd, (struct sockaddr *)&ss, &sl);
		l->port = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
		                                   : ntohs(((struct sockaddr_in *)&ss)->sin_port);
	}
	*out = l;
	return 0;
}

int net_listen_unix(const char *path, struct net_listener **out, struct diag_report *diag)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct net_listener *l;
	int fd, err;

	if (!path || !*path || strlen(path) >= sizeof(sa.sun_path))
		return diag_report_set(diag, -EINVAL,
		                       "listen: Unix socket path '%s' is empty or too long",
		                       path ? path : "");
	strcpy(sa.sun_path, path);
	l = calloc(1, sizeof(*l));
	if (!l || !(l->path = strdup(path))) {
		free(l);
		return diag_report_set(diag, -ENOMEM, "listen: out of memory");
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		err = -errno;
		goto fail;
	}
	unlink(path); /* a stale socket of an earlier run */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 16) < 0) {
		err = -errno;
		close(fd);
		goto fail;
	}
	l->fd = fd;
	l->local = true;
	*out = l;
	return 0;
fail:
	free(l->path);
	free(l);
	return diag_report_set(diag, err, "listen on %s: %s", path, strerror(-err));
}

int net_listen_ring(struct net_listener **out, struct diag_report *diag)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct net_listener *l;
	uint8_t rnd[8];
	size_t n;
	int fd;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return diag_report_set(diag, -errno, "ring socket: getrandom: %s", strerror(errno));
	l = calloc(1, sizeof(*l));
	if (!l)
		return diag_report_set(diag, -ENOMEM, "listen: out of memory");
	n = (size_t)snprintf(l->ring_name, sizeof(l->ring_name), "prism-ring-%d-", (int)getpid());
	for (unsigned i = 0; i < sizeof(rnd); i++)
		n += (size_t)snprintf(l->ring_name + n, sizeof(l->ring_name) - n, "%02x", rnd[i]);
	/* abstract: sun_path[0] is NUL, the name follows (no file, no unlink) */
	memcpy(sa.sun_path + 1, l->ring_name, n);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 ||
	    bind(fd, (struct sockaddr *)&sa,
	         (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) < 0 ||
	    listen(fd, 64) < 0) {
		int err = -errno;

		if (fd >= 0)
			close(fd);
		free(l);
		return diag_report_set(diag, err, "listen on the ring socket: %s", strerror(-err));
	}
	l->fd = fd;
	l->local = l->ring = true;
	*out = l;
	return 0;
}

const char *net_listener_ring_name(const struct net_listener *l)
{
	return l->ring ? l->ring_name : NULL;
}

void net_listener_close(struct net_listener *l)
{
	if (!l)
		return;
	close(l->fd);
	if (l->path)
		unlink(l->path);
	free(l->path);
	free(l);
}

bool net_listener_is_local(const struct net_listener *l)
{
	return l->local;
}

int net_listener_take(struct net_listener *l, struct net_pending **out, struct diag_report *diag)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct net_pending *p;
	int fd, rc;

	fd = accept4(l->fd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return diag_report_set(diag, -errno, "accept: %s", strerror(errno));
	p = calloc(1, sizeof(*p));
	if (!p) {
		close(fd);
		return diag_report_set(diag, -ENOMEM, "accept: out of memory");
	}
	p->fd = fd;
	p->ring = l->ring;
	if (l->local) {
		struct ucred cr;
		socklen_t cl = sizeof(cr);

		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) < 0) {
			rc = -errno;
			free(p);
			close(fd);
			return diag_report_set(diag, rc, "accept on %s: SO_PEERCRED: %s",
			                       l->path ? l->path : l->ring_name, strerror(-rc));
		}
		p->local = true;
		p->uid = cr.uid;
		p->pid = cr.pid;
		snprintf(p->addr, sizeof(p->addr), "local uid %u pid %d", cr.uid, (int)cr.pid);
		snprintf(p->host, sizeof(p->host), "local uid %u", cr.uid);
		*out = p;
		return 0;
	}
	addr_string((struct sockaddr *)&ss, p->addr, sizeof(p->addr), p->host, sizeof(p->host));
	p->same_host = net_sock_peer_is_local(fd);
	rc = net_sock_setup(fd);
	if (rc) {
		free(p);
		close(fd);
		return diag_report_set(diag, rc, "accept: socket options: %s", strerror(-rc));
	}
	*out = p;
	return 0;
}

int net_listener_fd(const struct net_listener *l)
{
	return l->fd;
}

int net_listener_port(const struct net_listener *l)
{
	return l->port;
}

void net_send_reject(int fd, int err, const char *reason)
{
	struct net_oob_msg m = {.type = NET_OOB_REJECT,
	                        .reject_errno = (uint32_t)(err < 0 ? -err : err)};
	uint8_t buf[NET_OOB_HDR_BYTES + 8 + NET_OOB_MAX_REASON];
	size_t n = reason ? strnlen(reason, NET_OOB_MAX_REASON) : 0;
	int len;
	ssize_t w;

	memcpy(m.reason, reason, n);
	m.reason[n] = '\0';
	len = net_oob_encode(&m, buf, sizeof(buf), NULL);
	/* A fresh socket's send buffer takes these few hundred bytes at once;
	 * a peer that filled it gets no REJECT rather than a wait. */
	if (len > 0)
		do
			w = send(fd, buf, (size_t)len, MSG_NOSIGNAL | MSG_DONTWAIT);
		while (w < 0 && errno == EINTR);
}

void net_reject_close(struct net_acceptor *a, int fd)
{
	char sink[512];
	int i;

	shutdown(fd, SHUT_WR);
	if (a) {
		net_acceptor_linger(a, fd);
		return;
	}
	/* closing with unread input sends a reset, which can destroy the REJECT
	 * before the peer reads it: read what is here first */
	for (i = 0; i < 64 && recv(fd, sink, sizeof(sink), MSG_DONTWAIT) > 0; i++)
		;
	close(fd);
}

int net_listener_accept(struct net_listener *l, int timeout_ms, struct net_pending **out,
                        struct diag_report *diag)
{
	struct pollfd pfd = {.fd = l->fd, .events = POLLIN};
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct net_oob_msg m;
	struct net_pending *p;
	char addr[64];
	int fd, rc;

	do
		rc = poll(&pfd, 1, timeout_ms);
	while (rc < 0 && errno == EINTR);
	if (rc == 0)
		return diag_report_set(diag, -ETIMEDOUT, "accept: no client within %d ms",
		                       timeout_ms);
	if (rc < 0)
		return diag_report_set(diag, -errno, "accept: poll: %s", strerror(errno));
	char host[64];

	fd = accept4(l->fd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return diag_report_set(diag, -errno, "accept: %s", strerror(errno));
	addr_string((struct sockaddr *)&ss, addr, sizeof(addr), host, sizeof(host));
	rc = net_sock_setup(fd);
	if (!rc)
		rc = net_oob_recv(fd, &m, timeout_ms, diag);
	if (!rc && m.type != NET_OOB_CONNECT) {
		net_oob_params_release(&m.params);
		rc = diag_report_set(diag, -EPROTO, "setup: expected CONNECT, got type %d",
		                     (int)m.type);
	}
	if (rc) {
		char why[sizeof(diag->msg)];

		snprintf(why, sizeof(why), "%s", diag ? diag->msg : strerror(-rc));
		if (rc == -EPROTO || rc == -EPROTONOSUPPORT) {
			net_send_reject(fd, rc, why);
			net_reject_close(NULL, fd);
		} else {
			close(fd);
		}
		return diag_report_set(diag, rc, "client %s: %s", addr, why);
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		net_oob_params_release(&m.params);
		net_send_reject(fd, -ENOMEM, "server out of memory");
		net_reject_close(NULL, fd);
		return diag_report_set(diag, -ENOMEM, "accept: out of memory");
	}
	p->fd = fd;
	p->peer = m.params;
	snprintf(p->addr, sizeof(p->addr), "%s", addr);
	snprintf(p->host, sizeof(p->host), "%s", host);
	*out = p;
	return 0;
}

const struct net_oob_params *net_pending_peer(const struct net_pending *p)
{
	return &p->peer;
}

const char *net_pending_addr(const struct net_pending *p)
{
	return p->addr;
}

const char *net_pending_host(const struct net_pending *p)
{
	return p->host;
}

bool net_pending_is_ring(const struct net_pending *p)
{
	return p->ring;
}

bool net_pending_same_host(const struct net_pending *p)
{
	return p->same_host;
}

int net_pending_take_fd(struct net_pending *p)
{
	int fd = p->fd;

	net_oob_params_release(&p->peer);
	net_oob_rx_free(&p->rx);
	free(p);
	return fd;
}

bool net_pending_local_uid(const struct net_pending *p, uint32_t *uid)
{
	if (p->local && !p->ring)
		*uid = p->uid;
	return p->local;
}

bool net_pending_local_cred(const struct net_pending *p, uint32_t *uid, int32_t *pid)
{
	if (p->local) {
		*uid = p->uid;
		*pid = p->pid;
	}
	return p->local;
}

int net_pending_accept(struct net_pending *p, const struct net_oob_params *mine, int *fd,
                       struct diag_report *diag)
{
	struct net_oob_msg m = {.type = NET_OOB_ACCEPT};
	int rc;

	m.params = *mine;
	rc = net_oob_send(p->fd, &m, NET_ACCEPT_SEND_MS, diag);
	if (rc) {
		close(p->fd);
	} else {
		*fd = p->fd;
	}
	net_oob_params_release(&p->peer);
	net_oob_rx_free(&p->rx);
	free(p);
	return rc;
}

void net_pending_reject(struct net_pending *p, int err, const char *reason)
{
	if (!p)
		return;
	net_send_reject(p->fd, err, reason);
	net_reject_close(p->acc, p->fd);
	net_oob_params_release(&p->peer);
	net_oob_rx_free(&p->rx);
	free(p);
}

static int connect_one(const struct addrinfo *ai, int timeout_ms, int *out)
{
	struct pollfd pfd;
	socklen_t sl = sizeof(int);
	int fd, rc, soerr = 0;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
	if (fd < 0)
		return -errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS) {
		rc = -errno;
		close(fd);
		return rc;
	}
	pfd.fd = fd;
	pfd.events = POLLOUT;
	do
		rc = poll(&pfd, 1, timeout_ms);
	while (rc < 0 && errno == EINTR);
	if (rc <= 0) {
		close(fd);
		return rc == 0 ? -ETIMEDOUT : -errno;
	}
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
	if (soerr) {
		close(fd);
		return -soerr;
	}
	rc = net_sock_setup(fd);
	if (rc) {
		close(fd);
		return rc;
	}
	*out = fd;
	return 0;
}

int net_connect_unix(const char *path, const struct net_oob_params *mine,
                     struct net_oob_params *peer, int timeout_ms, int *fd, struct diag_report *diag)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char why[sizeof(diag->msg)];
	int s, rc;

	if (!path || !mine || !peer || !fd)
		return diag_report_set(diag, -EINVAL, "connect: NULL argument");
	if (!*path || strlen(path) >= sizeof(sa.sun_path))
		return diag_report_set(diag, -EINVAL,
		                       "connect: Unix socket path '%s' is empty or too long", path);
	strcpy(sa.sun_path, path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return diag_report_set(diag, -errno, "connect %s: %s", path, strerror(errno));
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		close(s);
		return diag_report_set(diag, rc, "connect %s: %s", path, strerror(-rc));
	}
	rc = net_sock_setup_local(s);
	if (!rc)
		rc = net_oob_client(s, mine, peer, timeout_ms, diag);
	if (rc) {
		close(s);
		snprintf(why, sizeof(why), "%s", diag ? diag->msg : strerror(-rc));
		return diag_report_set(diag, rc, "connect %s: %s", path, why);
	}
	*fd = s;
	return 0;
}

bool net_sock_peer_is_local(int fd)
{
	struct sockaddr_storage me, peer;
	socklen_t ml = sizeof(me), pl = sizeof(peer);

	if (getsockname(fd, (struct sockaddr *)&me, &ml) ||
	    getpeername(fd, (struct sockaddr *)&peer, &pl) || me.ss_family != peer.ss_family)
		return false;
	if (peer.ss_family == AF_INET) {
		const struct sockaddr_in *a = (const void *)&me, *b = (const void *)&peer;

		return (ntohl(b->sin_addr.s_addr) >> 24) == 127 ||
		       a->sin_addr.s_addr == b->sin_addr.s_addr;
	}
	if (peer.ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const void *)&me, *b = (const void *)&peer;

		return IN6_IS_ADDR_LOOPBACK(&b->sin6_addr) ||
		       !memcmp(&a->sin6_addr, &b->sin6_addr, sizeof(a->sin6_addr));
	}
	return peer.ss_family == AF_UNIX;
}

int net_connect(const char *host, int port, const struct net_oob_params *mine,
                struct net_oob_params *peer, int timeout_ms, int *fd, struct diag_report *diag)
{
	struct addrinfo *res, *ai;
	char why[sizeof(diag->msg)];
	int rc, s = -1, err = -EHOSTUNREACH;

	if (!host || !mine || !peer || !fd)
		return diag_report_set(diag, -EINVAL, "connect: NULL argument");
	if (port == 0)
		port = NET_DEFAULT_PORT;
	if (port < 1 || port > 65535)
		return diag_report_set(diag, -EINVAL, "connect: port %d out of range", port);
	rc = resolve(host, port, false, &res, diag);
	if (rc)
		return rc;
	for (ai = res; ai && s < 0; ai = ai->ai_next) {
		err = connect_one(ai, timeout_ms, &s);
		if (err)
			s = -1;
	}
	freeaddrinfo(res);
	if (s < 0)
		return diag_report_set(diag, err, "connect %s:%d: %s", host, port, strerror(-err));
	if ((mine->flags & NET_OOB_F_RING_OFFER) && !net_sock_peer_is_local(s)) {
		/* a ring pair needs a peer on this host */
		struct net_oob_params m = *mine;

		m.flags &= (uint16_t)~NET_OOB_F_RING_OFFER;
		rc = net_oob_client(s, &m, peer, timeout_ms, diag);
	} else {
		rc = net_oob_client(s, mine, peer, timeout_ms, diag);
	}
	if (rc) {
		close(s);
		snprintf(why, sizeof(why), "%s", diag ? diag->msg : strerror(-rc));
		return diag_report_set(diag, rc, "connect %s:%d: %s", host, port, why);
	}
	*fd = s;
	return 0;
}
