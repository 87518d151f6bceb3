/* SPDX-License-Identifier: MIT */
/*
 * tests/net/test_net_ring.c - the shared-memory ring pair: bytes both ways,
 * wrap-around, a full ring pushing back and waking its producer, wake-ups
 * only for a sleeping consumer, a stream between two threads that both
 * sleep, a hostile peer (garbage indices, forged descriptors) failing only
 * its own pair while another pair keeps working, the poll before a sleep
 * (caught without a signal, missed then asleep with no wake-up lost), garbage records stopped by
 * the record parser after the copy, and a peer process that dies.
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
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "net/net_frame.h"
#include "net/net_ring.h"
#include "net/net_spin.h"
#include "tests/support/ring_peer.h"
#include "tests/support/open_fds.h"
#include "util/fdpass.h"

#define SIZE 4096u

struct pair {
	struct net_ring *a, *b; /* side 0, side 1 */
};

static void make_pair(struct pair *p, uint32_t size)
{
	struct diag_report d = {0};
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(net_ring_create(sv[0], size, &p->a, &d), 0);
	assert_int_equal(net_ring_send(p->a, &d), 0);
	assert_int_equal(net_ring_recv(sv[1], size, 1000, &p->b, &d), 0);
}

static void free_pair(struct pair *p)
{
	net_ring_close(p->a);
	net_ring_close(p->b);
}

/* Byte @i of a test stream. */
static uint8_t pattern(uint64_t i)
{
	return (uint8_t)(i * 7 + (i >> 8));
}

static void fill(uint8_t *buf, uint64_t from, size_t len)
{
	for (size_t k = 0; k < len; k++)
		buf[k] = pattern(from + k);
}

/* Write @len pattern bytes starting at stream offset @from, all accepted. */
static void put(struct net_ring *r, uint64_t from, size_t len)
{
	uint8_t buf[SIZE];

	fill(buf, from, len);
	assert_int_equal(net_ring_write(r, buf, len), (int)len);
}

/* Read exactly @len bytes, which must be the pattern from @from. */
static void get(struct net_ring *r, uint64_t from, size_t len)
{
	uint8_t want[SIZE], got[SIZE];

	fill(want, from, len);
	assert_int_equal(net_ring_read(r, got, len), (int)len);
	assert_memory_equal(got, want, len);
}

static bool readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, 0) == 1;
}

static void test_both_directions(void **state)
{
	uint8_t got[SIZE];
	struct pair p;

	make_pair(&p, SIZE);
	assert_int_equal(net_ring_read(p.b, got, sizeof(got)), 0);
	put(p.a, 0, 40);
	put(p.a, 40, 12);
	put(p.b, 0, 1000);
	get(p.b, 0, 30); /* a read takes what fits in the buffer ... */
	assert_int_equal(net_ring_read(p.b, got, sizeof(got)), 22); /* ... then the rest */
	assert_int_equal(net_ring_read(p.b, got, sizeof(got)), 0);
	get(p.a, 0, 1000);
	assert_int_equal(net_ring_read(p.a, got, sizeof(got)), 0);
	assert_int_equal(net_ring_write(p.a, got, 0), 0);
	assert_int_equal(net_ring_error(p.a, NULL), 0);
	assert_int_equal(net_ring_error(p.b, NULL), 0);
	free_pair(&p);
}

static void test_wrap_around(void **state)
{
	struct pair p;
	uint64_t w = 0, r = 0;

	make_pair(&p, SIZE);
	/* 997- to 1003-byte writes read back in 3 uneven pieces: both sides
	 * straddle the ring's end at many offsets over 40 laps */
	for (unsigned i = 0; i < 170; i++) {
		size_t len = 997 + i % 7;

		put(p.a, w, len);
		w += len;
		get(p.b, r, 100 + i % 13);
		r += 100 + i % 13;
		get(p.b, r, len - 200);
		r += len - 200;
		get(p.b, r, w - r);
		r = w;
	}
	assert_true(w > 40 * SIZE);
	free_pair(&p);
}

static void test_full_ring_pushes_back(void **state)
{
	uint8_t buf[SIZE];
	struct pair p;

	make_pair(&p, SIZE);
	fill(buf, 0, SIZE);
	assert_int_equal(net_ring_write(p.a, buf, 3000), 3000);
	assert_false(readable(net_ring_room_fd(p.a)));
	/* a short write: what fits is taken, and room will be signalled */
	assert_int_equal(net_ring_write(p.a, buf + 3000, 2000), SIZE - 3000);
	assert_int_equal(net_ring_write(p.a, buf, 1), 0);
	assert_false(readable(net_ring_room_fd(p.a)));
	get(p.b, 0, 100);
	assert_true(readable(net_ring_room_fd(p.a)));
	assert_false(readable(net_ring_fd(p.a))); /* room is not data */
	net_ring_drain(net_ring_room_fd(p.a));
	put(p.a, SIZE, 100);
	get(p.b, 100, SIZE);
	/* nobody waited this time: no signal */
	assert_false(readable(net_ring_room_fd(p.a)));
	free_pair(&p);
}

static void test_wake_only_sleeping_consumer(void **state)
{
	struct pair p;

	make_pair(&p, SIZE);
	put(p.a, 0, 20);
	assert_false(readable(net_ring_fd(p.b)));  /* awake consumer: no syscall */
	assert_false(net_ring_prepare_sleep(p.b)); /* bytes wait: no sleep */
	get(p.b, 0, 20);
	assert_true(net_ring_prepare_sleep(p.b));
	put(p.a, 20, 20);
	assert_true(readable(net_ring_fd(p.b)));
	assert_false(readable(net_ring_room_fd(p.b)));
	net_ring_drain(net_ring_fd(p.b));
	assert_false(readable(net_ring_fd(p.b)));
	assert_int_equal(net_ring_wait(p.b, 1000000), 1); /* bytes wait */
	get(p.b, 20, 20);
	assert_int_equal(net_ring_wait(p.b, 0), 0); /* nothing: times out */
	/* the wait cleared its flag on return: no signal now */
	put(p.a, 40, 20);
	assert_false(readable(net_ring_fd(p.b)));
	free_pair(&p);
}

/* A wait beside another fd (a completion channel's): that fd readable ends
 * it with NET_RING_WOKE_ALSO and leaves the ring's bytes alone (no spin);
 * bytes end it with 1 whatever that fd says; neither: a timeout (0). */
static void test_wait_also(void **state)
{
	struct pair p;
	uint64_t one = 1;
	int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	(void)state;
	assert_true(efd >= 0);
	make_pair(&p, SIZE);
	net_ring_set_spin(p.b, 40, true);
	assert_int_equal(net_ring_wait_also(p.b, 1000, efd), 0); /* neither */
	assert_int_equal(net_ring_spin(p.b)->budget_us, 40);     /* no spin */
	assert_int_equal(write(efd, &one, sizeof(one)), (ssize_t)sizeof(one));
	assert_int_equal(net_ring_wait_also(p.b, 30000000, efd), NET_RING_WOKE_ALSO);
	put(p.a, 0, 20);
	assert_int_equal(net_ring_wait_also(p.b, 5000000, efd), 1); /* bytes */
	get(p.b, 0, 20);
	assert_int_equal(read(efd, &one, sizeof(one)), (ssize_t)sizeof(one));
	put(p.a, 20, 20);
	assert_int_equal(net_ring_wait_also(p.b, 5000000, efd), 1);
	get(p.b, 20, 20);
	assert_false(readable(net_ring_fd(p.b))); /* the wait cleared its flag */
	free_pair(&p);
	close(efd);
}

/* A poll that caught the bytes set no sleep flag (no signal was sent); one
 * that missed halves the budget and sleeps with the flag set, and the wait
 * clears it on return. */
static void test_spin_then_sleep(void **state)
{
	struct pair p;

	make_pair(&p, SIZE);
	net_ring_set_spin(p.b, 40, true);
	put(p.a, 0, 20);
	assert_int_equal(net_ring_wait(p.b, 1000000), 1); /* caught at once */
	assert_int_equal(net_ring_spin(p.b)->budget_us, 40);
	assert_false(readable(net_ring_fd(p.b)));
	get(p.b, 0, 20);
	assert_int_equal(net_ring_wait(p.b, 1000), 0); /* missed, then timed out */
	assert_int_equal(net_ring_spin(p.b)->budget_us, 20);
	put(p.a, 20, 20);
	assert_false(readable(net_ring_fd(p.b))); /* the flag is clear again */
	get(p.b, 20, 20);
	net_ring_set_spin(p.b, 0, true);
	assert_int_equal(net_ring_wait(p.b, 1000), 0); /* no poll: budget untouched */
	assert_int_equal(net_ring_spin(p.b)->budget_us, 0);
	free_pair(&p);
}

#define PINGS 3000u

/* The other end of test_spin_ping_pong: echo every byte, after a delay that
 * varies around the spin budget (none, a few microseconds, beyond it). */
static void *ponger(void *arg)
{
	struct net_ring *a = arg;

	for (unsigned i = 0; i < PINGS; i++) {
		uint8_t c;
		int n;

		while ((n = net_ring_read(a, &c, 1)) == 0)
			if (net_ring_wait(a, 5000000) != 1)
				return (void *)(uintptr_t)1; /* a lost wake-up */
		if (n != 1 || c != (uint8_t)i)
			return (void *)(uintptr_t)2;
		if (i % 3)
			usleep(i % 7 ? i % 13 : 80 + i % 50);
		if (net_ring_write(a, &c, 1) != 1)
			return (void *)(uintptr_t)3;
	}
	return NULL;
}

/* Both ends poll, then sleep, while the answers come before, around and
 * after the end of the poll: no wake-up is lost (one would show as a 5 s
 * timeout), and the budget adapts within its cap. */
static void test_spin_ping_pong(void **state)
{
	struct pair p;
	pthread_t th;
	void *res;

	make_pair(&p, SIZE);
	net_ring_set_spin(p.a, 30, true);
	net_ring_set_spin(p.b, 30, true);
	assert_int_equal(pthread_create(&th, NULL, ponger, p.a), 0);
	for (unsigned i = 0; i < PINGS; i++) {
		uint8_t c = (uint8_t)i;
		int n;

		assert_int_equal(net_ring_write(p.b, &c, 1), 1);
		while ((n = net_ring_read(p.b, &c, 1)) == 0)
			assert_int_equal(net_ring_wait(p.b, 5000000), 1);
		assert_int_equal(n, 1);
		assert_int_equal(c, (uint8_t)i);
		assert_true(net_ring_spin(p.b)->budget_us <= 30);
	}
	assert_int_equal(pthread_join(th, &res), 0);
	assert_null(res);
	free_pair(&p);
}

#define STREAM_BYTES (8u << 20)

/* Producer thread: STREAM_BYTES pattern bytes in writes of varying sizes,
 * sleeping on the room eventfd whenever a write fell short. */
static void *stream_producer(void *arg)
{
	struct net_ring *a = arg;
	uint8_t buf[2048];
	uint64_t w = 0;

	for (unsigned i = 0; w < STREAM_BYTES; i++) {
		size_t len = 1 + (i * 131) % sizeof(buf);
		int n;

		if (len > STREAM_BYTES - w)
			len = STREAM_BYTES - w;
		fill(buf, w, len);
		n = net_ring_write(a, buf, len);
		if (n < 0)
			return (void *)(uintptr_t)1;
		w += (uint64_t)n;
		if ((size_t)n < len) {
			struct pollfd pf = {.fd = net_ring_room_fd(a), .events = POLLIN};

			if (poll(&pf, 1, 5000) != 1)
				return (void *)(uintptr_t)2; /* a lost wake-up */
			net_ring_drain(pf.fd);
		}
	}
	return NULL;
}

/* Both ends sleep as much as they can: every byte arrives in order and
 * neither side misses a wake-up (a lost one shows as a 5 s timeout). */
static void test_stream_between_threads(void **state)
{
	uint8_t got[3000], want[3000];
	struct pair p;
	uint64_t r = 0;
	pthread_t th;
	void *res;

	make_pair(&p, SIZE);
	assert_int_equal(pthread_create(&th, NULL, stream_producer, p.a), 0);
	for (unsigned i = 0; r < STREAM_BYTES; i++) {
		int n = net_ring_read(p.b, got, 1 + (i * 97) % sizeof(got));

		assert_true(n >= 0);
		if (n == 0) {
			assert_int_equal(net_ring_wait(p.b, 5000000), 1);
			continue;
		}
		fill(want, r, (size_t)n);
		assert_memory_equal(got, want, (size_t)n);
		r += (uint64_t)n;
	}
	assert_int_equal(pthread_join(th, &res), 0);
	assert_null(res);
	free_pair(&p);
}

enum attack { BIG_HEAD, BACK_HEAD, HUGE_HEAD, TAIL_PAST, TAIL_BACK };

/* The hostile side 1 holds its end raw (tests/support/ring_peer.h): ring 1
 * is what it produces and a consumes, ring 0 the other way round. */
static void hostile_case(enum attack what, const char *reason)
{
	uint8_t buf[SIZE];
	struct ring_peer h;
	struct net_ring *a;
	struct pair good;
	const char *why;
	int rc;

	make_pair(&good, SIZE);
	assert_int_equal(ring_peer_open(SIZE, &a, &h), 0);
	switch (what) {
	case BIG_HEAD: /* more than the ring holds */
		*ring_peer_index(&h, 1, NET_RING_HEAD_OFF) = SIZE + 1;
		break;
	case BACK_HEAD: /* behind what a consumed */
		*ring_peer_index(&h, 1, NET_RING_HEAD_OFF) = 100;
		assert_int_equal(net_ring_read(a, buf, 100), 100);
		*ring_peer_index(&h, 1, NET_RING_HEAD_OFF) = 99;
		break;
	case HUGE_HEAD:
		*ring_peer_index(&h, 1, NET_RING_HEAD_OFF) = UINT64_MAX - 5;
		break;
	case TAIL_PAST: /* consumed more than a produced */
		put(a, 0, 32);
		*ring_peer_index(&h, 0, NET_RING_TAIL_OFF) = 33;
		break;
	case TAIL_BACK: /* consumed, then un-consumed */
		put(a, 0, 32);
		*ring_peer_index(&h, 0, NET_RING_TAIL_OFF) = 32;
		put(a, 32, 10);
		*ring_peer_index(&h, 0, NET_RING_TAIL_OFF) = 31;
		break;
	}
	if (what == TAIL_PAST || what == TAIL_BACK)
		rc = net_ring_write(a, buf, 20);
	else
		rc = net_ring_read(a, buf, sizeof(buf));
	assert_int_equal(rc, -EPROTO);
	assert_int_equal(net_ring_error(a, &why), -EPROTO);
	assert_non_null(strstr(why, reason));
	/* failed for good: the next calls say so too */
	assert_int_equal(net_ring_read(a, buf, sizeof(buf)), -EPROTO);
	assert_int_equal(net_ring_write(a, buf, 20), -EPROTO);
	assert_int_equal(net_ring_wait(a, 0), -EPROTO);
	assert_false(net_ring_prepare_sleep(a));

	/* the other pair is untouched */
	put(good.a, 0, 30);
	get(good.b, 0, 30);
	put(good.b, 0, 31);
	get(good.a, 0, 31);

	net_ring_close(a);
	ring_peer_close(&h);
	free_pair(&good);
}

static void test_hostile_indices(void **state)
{
	hostile_case(BIG_HEAD, "producer index 4097 outside [0, 4096]");
	hostile_case(BACK_HEAD, "producer index 99 outside [100, 4196]");
	hostile_case(HUGE_HEAD, "producer index");
	hostile_case(TAIL_PAST, "consumer index 33 outside [0, 32]");
	hostile_case(TAIL_BACK, "consumer index 31 outside [32, 42]");
}

/* Garbage published within the rules is handed over as bytes, in a private
 * copy, where the record parser (the transport's) stops it. */
static void test_garbage_records_stop_at_the_parser(void **state)
{
	uint8_t buf[SIZE];
	struct diag_report fd;
	struct ring_peer h;
	struct net_ring *a;
	uint32_t plen;
	int n;

	assert_int_equal(ring_peer_open(SIZE, &a, &h), 0);
	/* a record header announcing 1 GiB, then 20 bytes */
	memset(ring_peer_bytes(&h, 1), 0xee, 32);
	memcpy(ring_peer_bytes(&h, 1), &(uint32_t){htobe32(1u << 30)}, 4);
	*ring_peer_index(&h, 1, NET_RING_HEAD_OFF) = 32;
	n = net_ring_read(a, buf, sizeof(buf));
	assert_int_equal(n, 32);
	/* the peer rewrites the ring after the copy: the copy does not change */
	memset(ring_peer_bytes(&h, 1), 0, 32);
	assert_int_equal(net_record_peek(buf, (size_t)n, 65536, &plen, NULL, &fd),
	                 NET_FRAME_E_TOO_BIG);
	assert_int_equal(net_ring_error(a, NULL), 0); /* the ring kept its rules */
	net_ring_close(a);
	ring_peer_close(&h);
}

/* Send @nfds descriptors with a well-formed body, as a hostile creator. */
static void forge(int sock, const int *fds, unsigned nfds, uint32_t size)
{
	uint32_t body[2] = {htobe32(0x50525346u), htobe32(size)};

	assert_int_equal(fdpass_send(sock, body, sizeof(body), fds, nfds), 0);
}

static int forged_recv(const int *fds, unsigned nfds, uint32_t size, const char *reason)
{
	struct diag_report d = {0};
	struct net_ring *r = NULL;
	int sv[2], rc;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	forge(sv[0], fds, nfds, size);
	rc = net_ring_recv(sv[1], SIZE, 1000, &r, &d);
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
	int e[4], pipefd[2];
	int unsealed = sealed_memfd(len, 0), small = sealed_memfd(len - 4096, all);
	int good = sealed_memfd(len, all), nohdr = sealed_memfd(len, all); /* no header */
	unsigned before;

	for (unsigned i = 0; i < 4; i++)
		e[i] = eventfd(0, EFD_CLOEXEC);
	assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
	before = open_fds();
#define FIVE(m) ((int[]){(m), e[0], e[1], e[2], e[3]})
	assert_int_equal(forged_recv(FIVE(unsealed), 5, SIZE, "not a sealed memfd"), -EPROTO);
	assert_int_equal(forged_recv(FIVE(small), 5, SIZE, "expected"), -EPROTO);
	assert_int_equal(forged_recv(FIVE(pipefd[0]), 5, SIZE, "not a sealed memfd"), -EPROTO);
	assert_int_equal(
	    forged_recv((int[]){good, e[0], e[1], e[2], pipefd[1]}, 5, SIZE, "no eventfd"),
	    -EPROTO);
	assert_int_equal(forged_recv(FIVE(nohdr), 5, SIZE, "header magic"), -EPROTO);
	assert_int_equal(forged_recv(FIVE(good), 2, SIZE, "2 descriptors"), -EPROTO);
	assert_int_equal(
	    forged_recv((int[]){good, e[0], e[1], e[2], e[3], e[0]}, 6, SIZE, "6 descriptors"),
	    -EPROTO);
	assert_int_equal(forged_recv(NULL, 0, SIZE, "0 descriptors"), -EPROTO);
	assert_int_equal(forged_recv(FIVE(good), 5, 2 * SIZE, "for size 8192"), -EPROTO);
#undef FIVE
	/* every descriptor received was closed again */
	assert_int_equal(open_fds(), before);
	for (unsigned i = 0; i < 4; i++)
		close(e[i]);
	close(pipefd[0]);
	close(pipefd[1]);
	close(unsealed);
	close(small);
	close(good);
	close(nohdr);
}

static void test_bad_geometry(void **state)
{
	struct diag_report d = {0};
	struct net_ring *r;
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(net_ring_create(sv[0], 5000, &r, &d), -EINVAL);
	assert_null(r);
	assert_int_equal(net_ring_recv(sv[1], 2048, 0, &r, &d), -EINVAL);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(net_ring_create(sv[0], NET_RING_MAX_SIZE * 2, &r, &d), -EINVAL);
	/* its peer gone before sending anything */
	assert_int_equal(net_ring_recv(sv[1], SIZE, 1000, &r, &d), -EPIPE);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(net_ring_recv(sv[1], SIZE, 0, &r, &d), -ETIMEDOUT);
	close(sv[0]);
}

static void test_peer_dies(void **state)
{
	struct diag_report d = {0};
	uint8_t buf[64];
	struct net_ring *a;
	const char *why;
	pid_t pid;
	int sv[2], status;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(net_ring_create(sv[0], SIZE, &a, &d), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct net_ring *b;

		net_ring_close(a);
		fill(buf, 0, sizeof(buf));
		if (net_ring_recv(sv[1], SIZE, 5000, &b, NULL) ||
		    net_ring_write(b, buf, sizeof(buf)) != (int)sizeof(buf))
			_exit(1);
		_exit(0); /* dies without closing anything */
	}
	close(sv[1]);
	assert_int_equal(net_ring_send(a, &d), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* what it wrote before it died is still delivered, then the hang-up */
	assert_int_equal(net_ring_wait(a, 5000000), 1);
	get(a, 0, sizeof(buf));
	assert_int_equal(net_ring_wait(a, 5000000), -EPIPE);
	assert_int_equal(net_ring_error(a, &why), -EPIPE);
	assert_non_null(strstr(why, "closed"));
	assert_int_equal(net_ring_read(a, buf, sizeof(buf)), -EPIPE);
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
	    cmocka_unit_test(test_spin_then_sleep),
	    cmocka_unit_test(test_wait_also),
	    cmocka_unit_test(test_spin_ping_pong),
	    cmocka_unit_test(test_hostile_indices),
	    cmocka_unit_test(test_garbage_records_stop_at_the_parser),
	    cmocka_unit_test(test_forged_descriptors),
	    cmocka_unit_test(test_bad_geometry),
	    cmocka_unit_test(test_peer_dies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
