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

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct net_listener {
	int fd;
	int port;
};

struct net_pending {
	int fd;
	char addr[64];
	struct net_oob_params peer;
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

static void addr_string(const struct sockaddr *sa, char *out, size_t cap)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		port = ntohs(in->sin_port);
		snprintf(out, cap, "%s:%u", host, port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		port = ntohs(in6->sin6_port);
		snprintf(out, cap, "[%s]:%u", host, port);
	} else {
		snprintf(out, cap, "?");
	}
}

static int resolve(const char *host, int port, bool passive, struct addrinfo **res,
                   struct net_diag *diag)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
	char service[16];
	int rc;

	if (passive)
		hints.ai_flags = AI_PASSIVE;
	snprintf(service, sizeof(service), "%d", port);
	rc = getaddrinfo(host, service, &hints, res);
	if (rc)
		return net_diagf(diag, -EHOSTUNREACH, "resolve %s:%d: %s", host ? host : "*", port,
		                 gai_strerror(rc));
	return 0;
}

int net_listen(const char *host, int port, struct net_listener **out, struct net_diag *diag)
{
	struct addrinfo *res, *ai;
	struct net_listener *l;
	int rc, fd = -1, one = 1, err = -EADDRNOTAVAIL;

	if (port == 0)
		port = NET_DEFAULT_PORT;
	if (port < NET_PORT_EPHEMERAL || port > 65535)
		return net_diagf(diag, -EINVAL, "listen: port %d out of range", port);
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
		return net_diagf(diag, err, "listen on %s:%d: %s", host ? host : "*", port,
		                 strerror(-err));
	l = calloc(1, sizeof(*l));
	if (!l) {
		close(fd);
		return net_diagf(diag, -ENOMEM, "listen: out of memory");
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

void net_listener_close(struct net_listener *l)
{
	if (!l)
		return;
	close(l->fd);
	free(l);
}

int net_listener_fd(const struct net_listener *l)
{
	return l->fd;
}

int net_listener_port(const struct net_listener *l)
{
	return l->port;
}

static void send_reject(int fd, int err, const char *reason)
{
	struct net_oob_msg m = {.type = NET_OOB_REJECT,
	                        .reject_errno = (uint32_t)(err < 0 ? -err : err)};

	size_t n = reason ? strnlen(reason, NET_OOB_MAX_REASON) : 0;

	memcpy(m.reason, reason, n);
	m.reason[n] = '\0';
	net_oob_send(fd, &m, 1000, NULL);
}

int net_listener_accept(struct net_listener *l, int timeout_ms, struct net_pending **out,
                        struct net_diag *diag)
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
		return net_diagf(diag, -ETIMEDOUT, "accept: no client within %d ms", timeout_ms);
	if (rc < 0)
		return net_diagf(diag, -errno, "accept: poll: %s", strerror(errno));
	fd = accept4(l->fd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return net_diagf(diag, -errno, "accept: %s", strerror(errno));
	addr_string((struct sockaddr *)&ss, addr, sizeof(addr));
	rc = net_sock_setup(fd);
	if (!rc)
		rc = net_oob_recv(fd, &m, timeout_ms, diag);
	if (!rc && m.type != NET_OOB_CONNECT) {
		net_oob_params_release(&m.params);
		rc = net_diagf(diag, -EPROTO, "setup: expected CONNECT, got type %d", (int)m.type);
	}
	if (rc) {
		char why[sizeof(diag->msg)];

		snprintf(why, sizeof(why), "%s", diag ? diag->msg : strerror(-rc));
		if (rc == -EPROTO || rc == -EPROTONOSUPPORT)
			send_reject(fd, rc, why);
		close(fd);
		return net_diagf(diag, rc, "client %s: %s", addr, why);
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		net_oob_params_release(&m.params);
		send_reject(fd, -ENOMEM, "server out of memory");
		close(fd);
		return net_diagf(diag, -ENOMEM, "accept: out of memory");
	}
	p->fd = fd;
	p->peer = m.params;
	snprintf(p->addr, sizeof(p->addr), "%s", addr);
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

int net_pending_accept(struct net_pending *p, const struct net_oob_params *mine, int *fd,
                       struct net_diag *diag)
{
	struct net_oob_msg m = {.type = NET_OOB_ACCEPT};
	int rc;

	m.params = *mine;
	rc = net_oob_send(p->fd, &m, NET_SETUP_TIMEOUT_MS, diag);
	if (rc) {
		close(p->fd);
	} else {
		*fd = p->fd;
	}
	net_oob_params_release(&p->peer);
	free(p);
	return rc;
}

void net_pending_reject(struct net_pending *p, int err, const char *reason)
{
	if (!p)
		return;
	send_reject(p->fd, err, reason);
	close(p->fd);
	net_oob_params_release(&p->peer);
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

int net_connect(const char *host, int port, const struct net_oob_params *mine,
                struct net_oob_params *peer, int timeout_ms, int *fd, struct net_diag *diag)
{
	struct addrinfo *res, *ai;
	char why[sizeof(diag->msg)];
	int rc, s = -1, err = -EHOSTUNREACH;

	if (!host || !mine || !peer || !fd)
		return net_diagf(diag, -EINVAL, "connect: NULL argument");
	if (port == 0)
		port = NET_DEFAULT_PORT;
	if (port < 1 || port > 65535)
		return net_diagf(diag, -EINVAL, "connect: port %d out of range", port);
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
		return net_diagf(diag, err, "connect %s:%d: %s", host, port, strerror(-err));
	rc = net_oob_client(s, mine, peer, timeout_ms, diag);
	if (rc) {
		close(s);
		snprintf(why, sizeof(why), "%s", diag ? diag->msg : strerror(-rc));
		return net_diagf(diag, rc, "connect %s:%d: %s", host, port, why);
	}
	*fd = s;
	return 0;
}
