/* SPDX-License-Identifier: MIT */
/*
 * tests/net/test_net_ring.c - the shared-memory ring pair: records both
 * ways, wrap-around, a full ring pushing back and waking its producer,
 * wake-ups only for a sleeping consumer, a hostile peer (garbage indices,
 * lengths, partial records, forged descriptors) failing only its own pair
 * while another pair keeps working, and a peer process that dies.
 *
 * Must not: time anything; every wait is bounded and asserted on.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <dirent.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "net/net_frame.h"
#include "net/net_ring.h"

#define SIZE    4096u
#define MAX_PKT 1024u
#define BUF     (NET_RECORD_HDR_BYTES + MAX_PKT)

struct pair {
	struct net_ring *a, *b; /* side 0, side 1 */
};

static void make_pair(struct pair *p, uint32_t size, uint32_t max_pkt)
{
	struct net_diag d = {0};
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(net_ring_create(sv[0], size, max_pkt, &p->a, &d), 0);
	assert_int_equal(net_ring_send(p->a, &d), 0);
	assert_int_equal(net_ring_recv(sv[1], size, max_pkt, 1000, &p->b, &d), 0);
}

static void free_pair(struct pair *p)
{
	net_ring_close(p->a);
	net_ring_close(p->b);
}

/* A record with a packet of @plen bytes, each (@seed + i). */
static size_t make_rec(uint8_t *buf, uint32_t plen, uint8_t seed)
{
	uint32_t be = htobe32(plen);
	uint64_t vt = htobe64(seed);

	memcpy(buf, &be, 4);
	memcpy(buf + 4, &vt, 8);
	for (uint32_t i = 0; i < plen; i++)
		buf[NET_RECORD_HDR_BYTES + i] = (uint8_t)(seed + i);
	return NET_RECORD_HDR_BYTES + plen;
}

static void expect_rec(struct net_ring *r, uint32_t plen, uint8_t seed)
{
	uint8_t want[BUF], got[BUF];
	size_t n = make_rec(want, plen, seed);

	assert_int_equal(net_ring_read(r, got, sizeof(got)), (int)n);
	assert_memory_equal(got, want, n);
}

static bool readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, 0) == 1;
}

static void test_both_directions(void **state)
{
	uint8_t rec[BUF], got[BUF];
	struct pair p;

	make_pair(&p, SIZE, MAX_PKT);
	assert_int_equal(net_ring_read(p.b, got, sizeof(got)), 0);
	assert_int_equal(net_ring_write(p.a, rec, make_rec(rec, 40, 1)), 0);
	assert_int_equal(net_ring_write(p.a, rec, make_rec(rec, 12, 2)), 0);
	assert_int_equal(net_ring_write(p.b, rec, make_rec(rec, MAX_PKT, 3)), 0);
	expect_rec(p.b, 40, 1);
	expect_rec(p.b, 12, 2);
	assert_int_equal(net_ring_read(p.b, got, sizeof(got)), 0);
	expect_rec(p.a, MAX_PKT, 3);
	assert_int_equal(net_ring_read(p.a, got, sizeof(got)), 0);
	/* too small, too big, a buffer too small for the largest record */
	assert_int_equal(net_ring_write(p.a, rec, NET_RECORD_HDR_BYTES + 11), -EMSGSIZE);
	assert_int_equal(net_ring_write(p.a, rec, BUF + 1), -EMSGSIZE);
	assert_int_equal(net_ring_read(p.a, got, BUF - 1), -EINVAL);
	assert_int_equal(net_ring_error(p.a, NULL), 0);
	assert_int_equal(net_ring_error(p.b, NULL), 0);
	free_pair(&p);
}

static void test_wrap_around(void **state)
{
	uint8_t rec[BUF];
	struct pair p;

	make_pair(&p, SIZE, MAX_PKT);
	/* 1000-byte records against a 4096-byte ring: they straddle its end
	 * at every offset over 40 laps, header included */
	for (unsigned i = 0; i < 160; i++) {
		uint32_t plen = 988 - (i % 7);

		assert_int_equal(net_ring_write(p.a, rec, make_rec(rec, plen, (uint8_t)i)), 0);
		if (i % 3 == 2) {
			expect_rec(p.b, 988 - ((i - 2) % 7), (uint8_t)(i - 2));
			expect_rec(p.b, 988 - ((i - 1) % 7), (uint8_t)(i - 1));
			expect_rec(p.b, plen, (uint8_t)i);
		}
	}
	free_pair(&p);
}

static void test_full_ring_pushes_back(void **state)
{
	uint8_t rec[BUF];
	struct pair p;
	unsigned n = 0;

	make_pair(&p, SIZE, MAX_PKT);
	while (net_ring_write(p.a, rec, make_rec(rec, 500, (uint8_t)n)) == 0)
		n++;
	assert_int_equal(n, SIZE / 512); /* 8 records of 512 bytes fill it */
	assert_int_equal(net_ring_write(p.a, rec, make_rec(rec, 500, 99)), -EAGAIN);
	assert_false(readable(net_ring_fd(p.a)));
	/* the consumer frees one record: the waiting producer is signalled */
	expect_rec(p.b, 500, 0);
	assert_true(readable(net_ring_fd(p.a)));
	net_ring_drain(p.a);
	assert_int_equal(net_ring_write(p.a, rec, make_rec(rec, 500, (uint8_t)n)), 0);
	for (unsigned i = 1; i <= n; i++)
		expect_rec(p.b, 500, (uint8_t)i);
	/* nobody waited this time: no signal */
	assert_false(readable(net_ring_fd(p.a)));
	free_pair(&p);
}

static void test_wake_only_sleeping_consumer(void **state)
{
	uint8_t rec[BUF];
	struct pair p;

	make_pair(&p, SIZE, MAX_PKT);
	assert_int_equal(net_ring_write(p.a, rec, make_rec(rec, 20, 1)), 0);
	assert_false(readable(net_ring_fd(p.b)));  /* awake consumer: no syscall */
	assert_false(net_ring_prepare_sleep(p.b)); /* a record waits: no sleep */
	expect_rec(p.b, 20, 1);
	assert_true(net_ring_prepare_sleep(p.b));
	assert_int_equal(net_ring_write(p.a, rec, make_rec(rec, 20, 2)), 0);
	assert_true(readable(net_ring_fd(p.b)));
	net_ring_drain(p.b);
	assert_false(readable(net_ring_fd(p.b)));
	assert_int_equal(net_ring_wait(p.b, 1000), 1); /* a record waits */
	expect_rec(p.b, 20, 2);
	assert_int_equal(net_ring_wait(p.b, 0), 0); /* nothing: times out */
	/* the wait cleared its flag on return: no signal now */
	assert_int_equal(net_ring_write(p.a, rec, make_rec(rec, 20, 3)), 0);
	assert_false(readable(net_ring_fd(p.b)));
	free_pair(&p);
}

#define STREAM_RECS 20000u

/* Producer thread: STREAM_RECS records of varying sizes, sleeping on the
 * eventfd whenever the ring is full. */
static void *stream_producer(void *arg)
{
	struct net_ring *a = arg;
	uint8_t rec[BUF];
	uintptr_t stuck = 0;

	for (unsigned i = 0; i < STREAM_RECS; i++) {
		size_t n = make_rec(rec, 12 + i % 700, (uint8_t)i);
		int rc;

		while ((rc = net_ring_write(a, rec, n)) == -EAGAIN) {
			struct pollfd p = {.fd = net_ring_fd(a), .events = POLLIN};

			if (poll(&p, 1, 5000) != 1) {
				stuck++; /* a lost wake-up */
				break;
			}
			net_ring_drain(a);
		}
		if (rc && rc != -EAGAIN)
			return (void *)(uintptr_t)1;
	}
	return (void *)stuck;
}

/* Both ends sleep as much as they can: every record arrives in order and
 * neither side misses a wake-up (a lost one shows as a 5 s timeout). */
static void test_stream_between_threads(void **state)
{
	struct pair p;
	pthread_t th;
	void *res;

	make_pair(&p, SIZE, MAX_PKT);
	assert_int_equal(pthread_create(&th, NULL, stream_producer, p.a), 0);
	for (unsigned i = 0; i < STREAM_RECS; i++) {
		uint8_t want[BUF], got[BUF];
		size_t n = make_rec(want, 12 + i % 700, (uint8_t)i);
		int rc;

		while ((rc = net_ring_read(p.b, got, sizeof(got))) == 0)
			assert_int_equal(net_ring_wait(p.b, 5000), 1);
		assert_int_equal(rc, (int)n);
		assert_memory_equal(got, want, n);
	}
	assert_int_equal(pthread_join(th, &res), 0);
	assert_null(res);
	free_pair(&p);
}

/* The hostile side 1: take the raw descriptors and map the memory. */
static uint8_t *hostile_recv(int sock, int *memfd, int *efd0, int *efd1)
{
	uint32_t body[2];
	union {
		char buf[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {.iov_base = body, .iov_len = sizeof(body)};
	struct msghdr msg = {.msg_iov = &iov,
	                     .msg_iovlen = 1,
	                     .msg_control = ctl.buf,
	                     .msg_controllen = sizeof(ctl)};
	int fds[3];
	void *m;

	assert_int_equal(recvmsg(sock, &msg, MSG_CMSG_CLOEXEC), (ssize_t)sizeof(body));
	memcpy(fds, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof(fds));
	*memfd = fds[0];
	*efd0 = fds[1];
	*efd1 = fds[2];
	m = mmap(NULL, net_ring_shm_bytes(SIZE), PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	assert_true(m != MAP_FAILED);
	return m;
}

static uint64_t *hfield(uint8_t *m, unsigned dir, unsigned off)
{
	return (uint64_t *)(m + NET_RING_DIR_OFF(dir) + off);
}

enum attack { BIG_HEAD, BACK_HEAD, PARTIAL_HDR, BAD_LEN, SHORT_BODY, BAD_TAIL };

static void hostile_case(enum attack what, const char *reason)
{
	uint8_t rec[BUF], got[BUF], *m;
	struct net_diag d = {0};
	struct net_ring *a;
	struct pair good;
	const char *why;
	int sv[2], memfd, e0, e1, rc;

	make_pair(&good, SIZE, MAX_PKT);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(net_ring_create(sv[0], SIZE, MAX_PKT, &a, &d), 0);
	assert_int_equal(net_ring_send(a, &d), 0);
	m = hostile_recv(sv[1], &memfd, &e0, &e1);

	/* ring 1 is what the hostile side produces, a consumes */
	switch (what) {
	case BIG_HEAD:
		*hfield(m, 1, NET_RING_HEAD_OFF) = SIZE + 1;
		break;
	case BACK_HEAD:
		*hfield(m, 1, NET_RING_HEAD_OFF) = UINT64_MAX - 5;
		break;
	case PARTIAL_HDR:
		*hfield(m, 1, NET_RING_HEAD_OFF) = 5;
		break;
	case BAD_LEN:
		make_rec(m + NET_RING_CTL_BYTES + SIZE, 20, 0);
		memcpy(m + NET_RING_CTL_BYTES + SIZE, &(uint32_t){htobe32(MAX_PKT + 1)}, 4);
		*hfield(m, 1, NET_RING_HEAD_OFF) = 32;
		break;
	case SHORT_BODY:
		make_rec(m + NET_RING_CTL_BYTES + SIZE, 100, 0);
		*hfield(m, 1, NET_RING_HEAD_OFF) = 50;
		break;
	case BAD_TAIL:
		assert_int_equal(net_ring_write(a, rec, make_rec(rec, 20, 0)), 0);
		*hfield(m, 0, NET_RING_TAIL_OFF) = 33; /* past the 32 bytes produced */
		break;
	}
	if (what == BAD_TAIL)
		rc = net_ring_write(a, rec, make_rec(rec, 20, 1));
	else
		rc = net_ring_read(a, got, sizeof(got));
	assert_int_equal(rc, -EPROTO);
	assert_int_equal(net_ring_error(a, &why), -EPROTO);
	assert_non_null(strstr(why, reason));
	/* failed for good: the next calls say so too */
	assert_int_equal(net_ring_read(a, got, sizeof(got)), -EPROTO);
	assert_int_equal(net_ring_write(a, rec, make_rec(rec, 20, 2)), -EPROTO);
	assert_int_equal(net_ring_wait(a, 0), -EPROTO);

	/* the other pair is untouched */
	assert_int_equal(net_ring_write(good.a, rec, make_rec(rec, 30, 7)), 0);
	expect_rec(good.b, 30, 7);
	assert_int_equal(net_ring_write(good.b, rec, make_rec(rec, 31, 8)), 0);
	expect_rec(good.a, 31, 8);

	net_ring_close(a);
	munmap(m, net_ring_shm_bytes(SIZE));
	close(memfd);
	close(e0);
	close(e1);
	close(sv[1]);
	free_pair(&good);
}

static void test_hostile_indices_and_lengths(void **state)
{
	hostile_case(BIG_HEAD, "producer index");
	hostile_case(BACK_HEAD, "producer index");
	hostile_case(PARTIAL_HDR, "a record header needs");
	hostile_case(BAD_LEN, "exceeds the limit");
	hostile_case(SHORT_BODY, "record of 112 bytes, 50 published");
	hostile_case(BAD_TAIL, "consumer index 33");
}

static unsigned open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* Send @nfds descriptors with a well-formed body, as a hostile creator. */
static void forge(int sock, const int *fds, unsigned nfds, uint32_t size)
{
	uint32_t body[2] = {htobe32(0x50525346u), htobe32(size)};
	union {
		char buf[CMSG_SPACE(8 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {.iov_base = body, .iov_len = sizeof(body)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *c;

	memset(&ctl, 0, sizeof(ctl));
	if (nfds) {
		msg.msg_control = ctl.buf;
		msg.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	assert_int_equal(sendmsg(sock, &msg, 0), (ssize_t)sizeof(body));
}

static int forged_recv(const int *fds, unsigned nfds, uint32_t size, const char *reason)
{
	struct net_diag d = {0};
	struct net_ring *r = NULL;
	int sv[2], rc;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	forge(sv[0], fds, nfds, size);
	rc = net_ring_recv(sv[1], SIZE, MAX_PKT, 1000, &r, &d);
	assert_null(r);
	assert_non_null(strstr(d.msg, reason));
	close(sv[0]);
	return rc;
}

static int sealed_memfd(size_t len, unsigned seals)
{
	int fd = memfd_create("t", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)len), 0);
	if (seals)
		assert_int_equal(fcntl(fd, F_ADD_SEALS, seals), 0);
	return fd;
}

static void test_forged_descriptors(void **state)
{
	const unsigned all = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;
	size_t len = net_ring_shm_bytes(SIZE);
	int e0 = eventfd(0, EFD_CLOEXEC), e1 = eventfd(0, EFD_CLOEXEC), pipefd[2];
	int unsealed = sealed_memfd(len, 0), small = sealed_memfd(len - 4096, all);
	int good = sealed_memfd(len, all), nohdr;
	unsigned before;

	assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
	nohdr = sealed_memfd(len, all); /* right size and seals, no header */
	before = open_fds();
	assert_int_equal(forged_recv((int[]){unsealed, e0, e1}, 3, SIZE, "not a sealed memfd"),
	                 -EPROTO);
	assert_int_equal(forged_recv((int[]){small, e0, e1}, 3, SIZE, "expected"), -EPROTO);
	assert_int_equal(forged_recv((int[]){pipefd[0], e0, e1}, 3, SIZE, "not a sealed memfd"),
	                 -EPROTO);
	assert_int_equal(forged_recv((int[]){good, e0, pipefd[1]}, 3, SIZE, "no eventfd"), -EPROTO);
	assert_int_equal(forged_recv((int[]){nohdr, e0, e1}, 3, SIZE, "header magic"), -EPROTO);
	assert_int_equal(forged_recv((int[]){good, e0}, 2, SIZE, "2 descriptors"), -EPROTO);
	assert_int_equal(forged_recv((int[]){good, e0, e1, e1}, 4, SIZE, "4 descriptors"), -EPROTO);
	assert_int_equal(forged_recv(NULL, 0, SIZE, "0 descriptors"), -EPROTO);
	assert_int_equal(forged_recv((int[]){good, e0, e1}, 3, 2 * SIZE, "for size 8192"), -EPROTO);
	/* every descriptor received was closed again */
	assert_int_equal(open_fds(), before);
	close(e0);
	close(e1);
	close(pipefd[0]);
	close(pipefd[1]);
	close(unsealed);
	close(small);
	close(good);
	close(nohdr);
}

static void test_bad_geometry(void **state)
{
	struct net_diag d = {0};
	struct net_ring *r;
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(net_ring_create(sv[0], 5000, 100, &r, &d), -EINVAL);
	assert_null(r);
	assert_int_equal(net_ring_recv(sv[1], SIZE, SIZE, 0, &r, &d), -EINVAL); /* no room */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(net_ring_create(sv[0], NET_RING_MAX_SIZE * 2, 100, &r, &d), -EINVAL);
	/* its peer gone before sending anything */
	assert_int_equal(net_ring_recv(sv[1], SIZE, 100, 1000, &r, &d), -EPIPE);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(net_ring_recv(sv[1], SIZE, 100, 0, &r, &d), -ETIMEDOUT);
	close(sv[0]);
}

static void test_peer_dies(void **state)
{
	struct net_diag d = {0};
	uint8_t rec[BUF], got[BUF];
	struct net_ring *a;
	const char *why;
	pid_t pid;
	int sv[2], status;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(net_ring_create(sv[0], SIZE, MAX_PKT, &a, &d), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct net_ring *b;

		net_ring_close(a);
		if (net_ring_recv(sv[1], SIZE, MAX_PKT, 5000, &b, NULL) ||
		    net_ring_write(b, rec, make_rec(rec, 64, 9)))
			_exit(1);
		_exit(0); /* dies without closing anything */
	}
	close(sv[1]);
	assert_int_equal(net_ring_send(a, &d), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* what it wrote before it died is still delivered, then the hang-up */
	assert_int_equal(net_ring_wait(a, 5000), 1);
	expect_rec(a, 64, 9);
	assert_int_equal(net_ring_wait(a, 5000), -EPIPE);
	assert_int_equal(net_ring_error(a, &why), -EPIPE);
	assert_non_null(strstr(why, "closed"));
	assert_int_equal(net_ring_read(a, got, sizeof(got)), -EPIPE);
	net_ring_close(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_both_directions),
	    cmocka_unit_test(test_wrap_around),
	    cmocka_unit_test(test_full_ring_pushes_back),
	    cmocka_unit_test(test_wake_only_sleeping_consumer),
	    cmocka_unit_test(test_stream_between_threads),
	    cmocka_unit_test(test_hostile_indices_and_lengths),
	    cmocka_unit_test(test_forged_descriptors),
	    cmocka_unit_test(test_bad_geometry),
	    cmocka_unit_test(test_peer_dies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
