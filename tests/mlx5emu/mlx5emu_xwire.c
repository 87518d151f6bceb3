/* SPDX-License-Identifier: MIT */
/*
 * tests/mlx5emu/mlx5emu_xwire.c - the wire between emulated NICs of
 * different processes, so that a server process (prismd, a test's child)
 * and a client process both on "mlx5 over the emulator" reach each other as
 * two hosts on one RoCE fabric do.
 *
 * Each emulated device of a process with a fabric directory (mlx5emu_opts.
 * fabric_dir) binds a datagram Unix socket there named after its node id
 * (n<node>), and becomes the sim wire of its software NIC: a packet for a
 * node outside the process (the node is in the peer's GID, emu_node_by_gid)
 * is sent, as one datagram, to that node's socket; a receive thread hands
 * the datagrams that arrive to the device (sim_dev_deliver).  Devices of the
 * same process still meet on the in-process fabric.
 *
 * A datagram is a header (magic, sizeof(struct sim_pkt)), the packet struct
 * with its payload pointer cleared, then the payload: both ends must be the
 * same build (the test binary and libprism-mlx5emu.so of one tree).  A node
 * with no socket (its process is gone) fails the sending QP, as a NIC's
 * retries running out do; a full socket buffer is back-pressure (-EAGAIN).
 * The receive thread also fires the NICs' RNR timer every millisecond: a
 * peer that re-posts its receives does it on its own NIC, in its own
 * process, which this process's NICs never see.
 *
 * Owns: the sockets and the receive thread.  Must not: touch QPs.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "tests/mlx5emu/mlx5emu_internal.h"

#define XW_MAGIC 0x78776972u /* "xwir" */
#define XW_MAX   (256u << 10)

struct xw_hdr {
	uint32_t magic, pkt_size;
	struct sim_pkt pkt; /* payload follows */
};

static struct {
	int fd[EMU_MAX_DEVS]; /* bound sockets; 0: none (never fd 0 here) */
	struct sim_dev *dev[EMU_MAX_DEVS];
	pthread_t thread;
	bool running;
	int stop;
} xw;

static void node_path(uint32_t node, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/n%u", emu.o.fabric_dir, node);
}

static int xw_xmit(void *ctx, const struct sim_pkt *p)
{
	unsigned i = (unsigned)(uintptr_t)ctx;
	size_t len = sizeof(struct xw_hdr) + p->payload_len;
	struct sockaddr_un to;
	struct xw_hdr *h;
	ssize_t sent;
	int err;

	if (len > XW_MAX) {
		emu_fail(EMSGSIZE, "cross-process wire: a %u-byte message (at most %u)",
		         p->payload_len, XW_MAX - (unsigned)sizeof(struct xw_hdr));
		return -EPIPE;
	}
	h = malloc(len);
	if (!h)
		return -EAGAIN;
	h->magic = XW_MAGIC;
	h->pkt_size = sizeof(struct sim_pkt);
	h->pkt = *p;
	h->pkt.payload = NULL;
	if (p->payload_len)
		memcpy(h + 1, p->payload, p->payload_len);
	node_path(p->dst_node, &to);
	sent = sendto(xw.fd[i], h, len, MSG_DONTWAIT, (struct sockaddr *)&to, sizeof(to));
	err = errno;
	free(h);
	if (sent == (ssize_t)len)
		return 0;
	if (err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS)
		return -EAGAIN;
	return -EPIPE; /* no such node (its process is gone) */
}

static const struct sim_wire_ops xw_ops = {.xmit = xw_xmit};

/* One datagram from device @i's socket to its NIC. */
static void xw_take(unsigned i, uint8_t *buf)
{
	struct xw_hdr *h = (struct xw_hdr *)buf;
	ssize_t n = recv(xw.fd[i], buf, XW_MAX, MSG_DONTWAIT);
	struct sim_pkt p;

	if (n < 0)
		return;
	if ((size_t)n < sizeof(*h) || h->magic != XW_MAGIC ||
	    h->pkt_size != sizeof(struct sim_pkt) || h->pkt.payload_len != n - sizeof(*h)) {
		emu_fail(EPROTO,
		         "cross-process wire: a %zd-byte datagram that is no packet of "
		         "this build",
		         n);
		return;
	}
	p = h->pkt;
	p.payload = p.payload_len ? buf + sizeof(*h) : NULL;
	while (!__atomic_load_n(&xw.stop, __ATOMIC_ACQUIRE) &&
	       sim_dev_deliver(xw.dev[i], &p) == -EAGAIN)
		usleep(50); /* the NIC's ingress is full: the sender waits */
}

static void *xw_thread(void *arg)
{
	uint8_t *buf = malloc(XW_MAX);

	(void)arg;
	while (buf && !__atomic_load_n(&xw.stop, __ATOMIC_ACQUIRE)) {
		struct pollfd pf[EMU_MAX_DEVS];
		unsigned n = 0, at[EMU_MAX_DEVS];

		pthread_mutex_lock(&emu.lock);
		for (unsigned i = 0; i < EMU_MAX_DEVS; i++)
			if (xw.fd[i] > 0) {
				pf[n] = (struct pollfd){.fd = xw.fd[i], .events = POLLIN};
				at[n++] = i;
			}
		pthread_mutex_unlock(&emu.lock);
		if (poll(pf, n, 1) > 0) {
			for (unsigned k = 0; k < n; k++)
				if (pf[k].revents & POLLIN)
					xw_take(at[k], buf);
		}
		/* the RNR timer of each NIC (see the top comment) */
		for (unsigned k = 0; k < n; k++)
			sim_dev_kick(xw.dev[at[k]]);
	}
	free(buf);
	return NULL;
}

int emu_xwire_attach(unsigned i, struct sim_dev *s)
{
	struct sockaddr_un sa;
	int fd, sz = 4 << 20;

	node_path(emu_node(i), &sa);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	unlink(sa.sun_path); /* a node id of a process that died */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = -errno;

		close(fd);
		return emu_fail(-err, "cross-process wire: bind %s: %s", sa.sun_path,
		                strerror(-err));
	}
	xw.fd[i] = fd;
	xw.dev[i] = s;
	sim_dev_set_wire(s, &xw_ops, (void *)(uintptr_t)i);
	if (!xw.running) {
		xw.stop = 0;
		if (pthread_create(&xw.thread, NULL, xw_thread, NULL))
			return emu_fail(EAGAIN, "cross-process wire: no receive thread");
		xw.running = true;
	}
	return 0;
}

void emu_xwire_stop(void)
{
	if (xw.running) {
		__atomic_store_n(&xw.stop, 1, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&emu.lock); /* the thread takes it to list sockets */
		pthread_join(xw.thread, NULL);
		pthread_mutex_lock(&emu.lock);
		xw.running = false;
	}
	for (unsigned i = 0; i < EMU_MAX_DEVS; i++) {
		struct sockaddr_un sa;

		if (xw.fd[i] <= 0)
			continue;
		node_path(emu_node(i), &sa);
		unlink(sa.sun_path);
		close(xw.fd[i]);
		xw.fd[i] = 0;
		if (xw.dev[i])
			sim_dev_set_wire(xw.dev[i], NULL, NULL);
		xw.dev[i] = NULL;
	}
}
