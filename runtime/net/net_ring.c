/* SPDX-License-Identifier: MIT */
/*
 * net/net_ring.c - shared-memory byte rings between two local processes.
 *
 * Owns: making, sealing, passing, checking and mapping the ring pair's
 * memfd and eventfds, and the producer and consumer of each end.  Each end
 * keeps its own position (bytes produced, bytes consumed) in private memory
 * and only publishes it; what it reads of the peer's position is loaded
 * once and checked against its own and the ring size, and bytes leave the
 * ring only by a copy into the caller's buffer.  Any violation fails the
 * pair with a reason; every later call returns that error.
 *
 * Ordering: a producer copies the bytes, then publishes head (release);
 * the consumer loads head (acquire) before copying.  Sleep flags use full
 * fences on both sides (store flag, fence, re-check the index), so either
 * the sleeper sees the new index or the other side sees the flag.
 *
 * Must not: trust anything in the mapping, block (except net_ring_wait and
 * net_ring_recv's bounded wait), print.
 */
#include "net/net_ring.h"
#include "net/net_spin.h"
#include "util/fdpass.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NFDS            5u /* memfd, then per side a data and a room eventfd */
#define NEFD            4u
#define EFD(side, what) ((side)*2u + (what))
#define SETUP_MAGIC     0x50525346u /* "PRSF": the message that carries the fds */

struct net_ring {
	int sock, memfd, efd[NEFD];
	int waitfd;           /* net_ring_wait's epoll set (made at its first use), or -1 */
	struct net_spin spin; /* net_ring_wait's poll before it sleeps */
	unsigned side;
	uint8_t *map;
	size_t map_len;
	uint32_t size;

	/* the ring this end produces into, and the one it consumes */
	uint64_t *tx_head, *tx_tail, *rx_head, *rx_tail;
	uint32_t *tx_wait, *rx_sleep; /* flags this end sets */
	uint32_t *peer_wait, *peer_sleep;
	uint8_t *tx_data, *rx_data;
	uint64_t tx_pos;  /* bytes produced (private truth) */
	uint64_t tx_free; /* tail last published by the consumer, checked */
	uint64_t rx_pos;  /* bytes consumed (private truth) */

	int err;
	char why[160];
};

__attribute__((format(printf, 3, 4))) static int fail(struct net_ring *r, int err, const char *fmt,
                                                      ...)
{
	va_list ap;

	if (r->err)
		return r->err;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	r->err = err;
	return err;
}

static bool geometry_ok(uint32_t size)
{
	return size >= NET_RING_MIN_SIZE && size <= NET_RING_MAX_SIZE && !(size & (size - 1));
}

size_t net_ring_shm_bytes(uint32_t size)
{
	return NET_RING_CTL_BYTES + 2 * (size_t)size;
}

static void *field(uint8_t *map, unsigned dir, unsigned off)
{
	return map + NET_RING_DIR_OFF(dir) + off;
}

static void bind_side(struct net_ring *r)
{
	unsigned tx = r->side, rx = 1 - r->side;

	r->tx_head = field(r->map, tx, NET_RING_HEAD_OFF);
	r->tx_tail = field(r->map, tx, NET_RING_TAIL_OFF);
	r->tx_wait = field(r->map, tx, NET_RING_WAIT_OFF);
	r->peer_sleep = field(r->map, tx, NET_RING_SLEEP_OFF);
	r->rx_head = field(r->map, rx, NET_RING_HEAD_OFF);
	r->rx_tail = field(r->map, rx, NET_RING_TAIL_OFF);
	r->rx_sleep = field(r->map, rx, NET_RING_SLEEP_OFF);
	r->peer_wait = field(r->map, rx, NET_RING_WAIT_OFF);
	r->tx_data = r->map + NET_RING_CTL_BYTES + (size_t)tx * r->size;
	r->rx_data = r->map + NET_RING_CTL_BYTES + (size_t)rx * r->size;
}

/* A ring end of @size over @sock, nothing mapped yet; on failure @sock is
 * closed and @diag says why. */
static int ring_new(int sock, uint32_t size, struct net_ring **out, struct diag_report *diag)
{
	struct net_ring *r;

	if (!geometry_ok(size)) {
		close(sock);
		return diag_report_set(diag, -EINVAL, "ring: size %u (a power of two in [%u, %u])",
		                       size, NET_RING_MIN_SIZE, NET_RING_MAX_SIZE);
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		close(sock);
		return diag_report_set(diag, -ENOMEM, "ring: out of memory");
	}
	r->sock = sock;
	r->memfd = -1;
	r->waitfd = -1;
	net_spin_init(&r->spin, net_spin_cap_env());
	for (unsigned i = 0; i < NEFD; i++)
		r->efd[i] = -1;
	r->size = size;
	r->map = MAP_FAILED;
	r->map_len = net_ring_shm_bytes(size);
	*out = r;
	return 0;
}

void net_ring_close(struct net_ring *r)
{
	if (!r)
		return;
	if (r->map != MAP_FAILED)
		munmap(r->map, r->map_len);
	if (r->memfd >= 0)
		close(r->memfd);
	for (unsigned i = 0; i < NEFD; i++)
		if (r->efd[i] >= 0)
			close(r->efd[i]);
	if (r->sock >= 0)
		close(r->sock);
	if (r->waitfd >= 0)
		close(r->waitfd);
	free(r);
}

static int map_it(struct net_ring *r, struct diag_report *diag)
{
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, r->memfd, 0);
	if (r->map == MAP_FAILED)
		return diag_report_set(diag, -errno, "ring: mmap of %zu bytes: %s", r->map_len,
		                       strerror(errno));
	bind_side(r);
	return 0;
}

int net_ring_create(int sock, uint32_t size, struct net_ring **out, struct diag_report *diag)
{
	struct net_ring *r;
	uint32_t *hdr;
	int rc;

	*out = NULL;
	rc = ring_new(sock, size, &r, diag);
	if (rc)
		return rc;
	r->memfd = fdpass_memfd_create("prism-ring", r->map_len);
	if (r->memfd < 0) {
		rc = diag_report_set(diag, r->memfd, "ring: memfd of %zu bytes: %s", r->map_len,
		                     strerror(-r->memfd));
		goto err;
	}
	for (unsigned i = 0; i < NEFD; i++) {
		r->efd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (r->efd[i] < 0) {
			rc = diag_report_set(diag, -errno, "ring: eventfd: %s", strerror(errno));
			goto err;
		}
	}
	rc = map_it(r, diag);
	if (rc)
		goto err;
	hdr = (uint32_t *)r->map;
	hdr[0] = NET_RING_MAGIC;
	hdr[1] = NET_RING_VERSION;
	hdr[2] = size;
	*out = r;
	return 0;
err:
	net_ring_close(r);
	return rc;
}

int net_ring_send(struct net_ring *r, struct diag_report *diag)
{
	uint32_t body[2] = {htobe32(SETUP_MAGIC), htobe32(r->size)};
	int fds[NFDS] = {r->memfd, r->efd[0], r->efd[1], r->efd[2], r->efd[3]};
	int rc;

	if (r->side != 0)
		return diag_report_set(diag, -EINVAL, "ring: only its creator passes it");
	rc = fdpass_send(r->sock, body, sizeof(body), fds, NFDS);
	if (rc)
		return diag_report_set(diag, rc, "ring: passing its descriptors: %s",
		                       rc == -EIO ? "short send" : strerror(-rc));
	return 0;
}

/* An eventfd, as the kernel names its anonymous inode. */
static bool is_eventfd(int fd)
{
	char path[64], name[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, name, sizeof(name) - 1);
	if (n < 0)
		return false;
	name[n] = '\0';
	return strcmp(name, "anon_inode:[eventfd]") == 0;
}

static int check_fds(struct net_ring *r, struct diag_report *diag)
{
	const uint32_t *hdr;
	size_t len;
	int rc;

	rc = fdpass_memfd_check(r->memfd, FDPASS_SEALS, &len);
	if (rc == -EPERM)
		return diag_report_set(diag, -EPROTO,
		                       "ring: the shared memory is not a sealed memfd");
	if (rc)
		return diag_report_set(diag, rc, "ring: the shared memory: %s", strerror(-rc));
	if (len != r->map_len)
		return diag_report_set(diag, -EPROTO,
		                       "ring: shared memory of %zu bytes, expected %zu", len,
		                       r->map_len);
	for (unsigned i = 0; i < NEFD; i++)
		if (!is_eventfd(r->efd[i]) || fcntl(r->efd[i], F_SETFL, O_NONBLOCK))
			return diag_report_set(diag, -EPROTO,
			                       "ring: wake-up descriptor %u is no eventfd", i);
	rc = map_it(r, diag);
	if (rc)
		return rc;
	hdr = (const uint32_t *)r->map;
	if (hdr[0] != NET_RING_MAGIC || hdr[1] != NET_RING_VERSION || hdr[2] != r->size)
		return diag_report_set(
		    diag, -EPROTO, "ring: header magic %#x version %u size %u, expected %#x %u %u",
		    hdr[0], hdr[1], hdr[2], NET_RING_MAGIC, NET_RING_VERSION, r->size);
	return 0;
}

static int recv_fds(struct net_ring *r, int timeout_ms, struct diag_report *diag)
{
	uint32_t body[2];
	struct pollfd pfd = {.fd = r->sock, .events = POLLIN};
	unsigned nfds;
	ssize_t n;
	int fds[NFDS], trunc;

	if (poll(&pfd, 1, timeout_ms) <= 0)
		return diag_report_set(diag, -ETIMEDOUT, "ring: no descriptors within %d ms",
		                       timeout_ms);
	n = fdpass_recv(r->sock, body, sizeof(body), MSG_DONTWAIT, fds, NFDS, &nfds, &trunc);
	if (n < 0)
		return diag_report_set(diag, (int)n, "ring: receiving descriptors: %s",
		                       strerror((int)-n));
	if (n == 0) {
		for (unsigned i = 0; i < nfds && i < NFDS; i++)
			close(fds[i]);
		return diag_report_set(diag, -EPIPE,
		                       "ring: the peer closed before passing descriptors");
	}
	if (nfds == NFDS) {
		r->memfd = fds[0];
		for (unsigned i = 0; i < NEFD; i++)
			r->efd[i] = fds[1 + i];
	} else {
		for (unsigned i = 0; i < nfds && i < NFDS; i++)
			close(fds[i]);
	}
	if (n != (ssize_t)sizeof(body) || trunc || nfds != NFDS)
		return diag_report_set(diag, -EPROTO,
		                       "ring: malformed descriptor message (%zd bytes, %u "
		                       "descriptors)",
		                       n, nfds);
	if (be32toh(body[0]) != SETUP_MAGIC || be32toh(body[1]) != r->size)
		return diag_report_set(diag, -EPROTO,
		                       "ring: descriptor message for size %u, expected %u",
		                       be32toh(body[1]), r->size);
	return check_fds(r, diag);
}

int net_ring_recv(int sock, uint32_t size, int timeout_ms, struct net_ring **out,
                  struct diag_report *diag)
{
	struct net_ring *r;
	int rc;

	*out = NULL;
	rc = ring_new(sock, size, &r, diag);
	if (rc)
		return rc;
	r->side = 1;
	rc = recv_fds(r, timeout_ms, diag);
	if (rc) {
		net_ring_close(r);
		return rc;
	}
	/* Positions start at zero whatever the creator left in the indices. */
	*out = r;
	return 0;
}

static void notify(int fd)
{
	uint64_t one = 1;
	ssize_t n = write(fd, &one, sizeof(one));

	(void)n; /* a full counter has signalled already */
}

/* Room left in the ring this end produces into, checking the consumer's
 * published tail: it never moves back and never passes what was produced. */
static int tx_room(struct net_ring *r, uint64_t *room)
{
	uint64_t tail = __atomic_load_n(r->tx_tail, __ATOMIC_ACQUIRE);

	if (tail - r->tx_free > r->tx_pos - r->tx_free)
		return fail(r, -EPROTO, "ring: peer consumer index %llu outside [%llu, %llu]",
		            (unsigned long long)tail, (unsigned long long)r->tx_free,
		            (unsigned long long)r->tx_pos);
	r->tx_free = tail;
	*room = r->size - (r->tx_pos - tail);
	return 0;
}

static void copy_in(struct net_ring *r, uint64_t pos, const uint8_t *src, size_t len)
{
	size_t at = pos & (r->size - 1), first = r->size - at < len ? r->size - at : len;

	memcpy(r->tx_data + at, src, first);
	memcpy(r->tx_data, src + first, len - first);
}

static void copy_out(struct net_ring *r, uint64_t pos, uint8_t *dst, size_t len)
{
	size_t at = pos & (r->size - 1), first = r->size - at < len ? r->size - at : len;

	memcpy(dst, r->rx_data + at, first);
	memcpy(dst + first, r->rx_data, len - first);
}

int net_ring_write(struct net_ring *r, const void *buf, size_t len)
{
	uint64_t room;
	size_t n;
	int rc;

	if (r->err)
		return r->err;
	rc = tx_room(r, &room);
	if (rc)
		return rc;
	if (room < len) {
		/* ask for a signal when room appears, then look again */
		__atomic_store_n(r->tx_wait, 1, __ATOMIC_SEQ_CST);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		rc = tx_room(r, &room);
		if (rc)
			return rc;
		if (room >= len)
			__atomic_store_n(r->tx_wait, 0, __ATOMIC_RELAXED);
	}
	n = room < len ? (size_t)room : len;
	if (n == 0)
		return 0;
	copy_in(r, r->tx_pos, buf, n);
	r->tx_pos += n;
	__atomic_store_n(r->tx_head, r->tx_pos, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_exchange_n(r->peer_sleep, 0, __ATOMIC_SEQ_CST))
		notify(r->efd[EFD(1 - r->side, 0)]);
	return (int)n;
}

/* Bytes published and not yet consumed, checking the producer's head. */
static int rx_avail(struct net_ring *r, uint64_t *avail)
{
	uint64_t head = __atomic_load_n(r->rx_head, __ATOMIC_ACQUIRE);

	if (head - r->rx_pos > r->size)
		return fail(r, -EPROTO, "ring: peer producer index %llu outside [%llu, %llu]",
		            (unsigned long long)head, (unsigned long long)r->rx_pos,
		            (unsigned long long)(r->rx_pos + r->size));
	*avail = head - r->rx_pos;
	return 0;
}

int net_ring_read(struct net_ring *r, void *buf, size_t cap)
{
	uint64_t avail = 0;
	size_t n;
	int rc;

	if (r->err)
		return r->err;
	rc = rx_avail(r, &avail);
	if (rc)
		return rc;
	n = avail < cap ? (size_t)avail : cap;
	if (n == 0)
		return 0;
	copy_out(r, r->rx_pos, buf, n);
	r->rx_pos += n;
	__atomic_store_n(r->rx_tail, r->rx_pos, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_exchange_n(r->peer_wait, 0, __ATOMIC_SEQ_CST))
		notify(r->efd[EFD(1 - r->side, 1)]);
	return (int)n;
}

bool net_ring_prepare_sleep(struct net_ring *r)
{
	uint64_t avail = 0;

	if (r->err)
		return false;
	__atomic_store_n(r->rx_sleep, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (rx_avail(r, &avail) || avail) {
		__atomic_store_n(r->rx_sleep, 0, __ATOMIC_RELAXED);
		return false;
	}
	return true;
}

bool net_ring_pending(struct net_ring *r)
{
	uint64_t avail = 0;

	return r->err || rx_avail(r, &avail) || avail;
}

int net_ring_fd(const struct net_ring *r)
{
	return r->efd[EFD(r->side, 0)];
}

int net_ring_room_fd(const struct net_ring *r)
{
	return r->efd[EFD(r->side, 1)];
}

void net_ring_drain(int fd)
{
	uint64_t v;
	ssize_t n = read(fd, &v, sizeof(v));

	(void)n; /* EAGAIN: nothing (the peer holds this eventfd too and may read it) */
}

void net_ring_poke(struct net_ring *r)
{
	notify(net_ring_fd(r));
}

int net_ring_sock(const struct net_ring *r)
{
	return r->sock;
}

/*
 * The wait's epoll set: the data eventfd edge-triggered (each signal of the
 * peer is an edge, so the counter is never read: one system call a wait)
 * and the setup socket's hang-up.
 */
static int wait_set(struct net_ring *r)
{
	struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.u32 = 0};

	if (r->waitfd >= 0)
		return 0;
	r->waitfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->waitfd < 0 || epoll_ctl(r->waitfd, EPOLL_CTL_ADD, net_ring_fd(r), &ev))
		return fail(r, -errno, "ring: epoll: %s", strerror(errno));
	ev = (struct epoll_event){.events = EPOLLRDHUP, .data.u32 = 1};
	if (epoll_ctl(r->waitfd, EPOLL_CTL_ADD, r->sock, &ev))
		return fail(r, -errno, "ring: epoll: %s", strerror(errno));
	return 0;
}

void net_ring_set_spin(struct net_ring *r, uint32_t cap_us, bool busy_ok)
{
	net_spin_init(&r->spin, cap_us);
	r->spin.busy_ok = busy_ok;
}

const struct net_spin *net_ring_spin(const struct net_ring *r)
{
	return &r->spin;
}

/*
 * Poll the producer's head for up to the spin budget (and @timeout_us)
 * without the sleep flag set: the peer does not signal meanwhile, and the
 * caller sets the flag and looks again before it sleeps, so a write that
 * lands after the last look here is not lost.  True when bytes came.
 */
static int ring_has_bytes(void *ctx)
{
	struct net_ring *r = ctx;

	return __atomic_load_n(r->rx_head, __ATOMIC_ACQUIRE) != r->rx_pos;
}

static bool spin_for_bytes(struct net_ring *r, int timeout_us, bool alone)
{
	uint32_t tried;

	tried = timeout_us && (alone || r->spin.busy_ok) ? net_spin_begin(&r->spin) : 0;
	if (!tried)
		return false;
	if (timeout_us > 0 && (uint32_t)timeout_us < tried)
		tried = (uint32_t)timeout_us;
	return net_spin_poll(&r->spin, tried, ring_has_bytes, r) > 0;
}

static int ring_wait(struct net_ring *r, int timeout_us, int also_fd, bool alone)
{
	struct timespec ts = {timeout_us / 1000000, (timeout_us % 1000000) * 1000L};
	struct epoll_event ev[2];
	bool gone = false;
	int n;

	if (r->err || wait_set(r))
		return r->err;
	/* no spin beside another fd: what that fd says comes without bytes */
	if (also_fd < 0 && spin_for_bytes(r, timeout_us, alone))
		return 1;
	if (!net_ring_prepare_sleep(r))
		return r->err ? r->err : 1;
	if (also_fd >= 0) {
		struct pollfd p[2] = {{.fd = r->waitfd, .events = POLLIN},
		                      {.fd = also_fd, .events = POLLIN}};

		do
			n = ppoll(p, 2, timeout_us < 0 ? NULL : &ts, NULL);
		while (n < 0 && errno == EINTR);
		if (n <= 0 || !(p[0].revents & POLLIN)) {
			__atomic_store_n(r->rx_sleep, 0, __ATOMIC_RELAXED);
			if (n < 0)
				return fail(r, -errno, "ring: poll: %s", strerror(errno));
			return n ? NET_RING_WOKE_ALSO : 0;
		}
		timeout_us = 0; /* the ring's events are there now: collect them */
		ts = (struct timespec){0, 0};
	}
	do
		n = epoll_pwait2(r->waitfd, ev, 2, timeout_us < 0 ? NULL : &ts, NULL);
	while (n < 0 && errno == EINTR);
	__atomic_store_n(r->rx_sleep, 0, __ATOMIC_RELAXED);
	if (n < 0)
		return fail(r, -errno, "ring: epoll_wait: %s", strerror(errno));
	for (int i = 0; i < n; i++)
		gone |= ev[i].data.u32 == 1;
	if (gone)
		return fail(r, -EPIPE, "ring: the peer closed its end");
	return n > 0;
}

int net_ring_wait(struct net_ring *r, int timeout_us)
{
	return net_ring_wait_also(r, timeout_us, -1);
}

int net_ring_wait_also(struct net_ring *r, int timeout_us, int also_fd)
{
	int rc;

	rc = ring_wait(r, timeout_us, also_fd, net_spin_wait_enter() == 1);
	net_spin_wait_leave();
	return rc;
}

int net_ring_error(const struct net_ring *r, const char **why)
{
	if (why)
		*why = r->err ? r->why : "";
	return r->err;
}
