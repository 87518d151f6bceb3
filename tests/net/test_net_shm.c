/* SPDX-License-Identifier: MIT */
/*
 * tests/net/test_net_shm.c - fetching a ring pair over the ring socket
 * (net_shm.c): the token of a connection gets its pair once; a wrong,
 * used or expired token, another uid, and a full offer table are refused,
 * and the refusal says why.
 *
 * Must not: need root (the other-uid case skips without it) or measure
 * time (the expiry case waits past a 1 ms deadline).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/net.h"

#define WAIT_MS 10000
#define SIZE    4096u

/* The server side: a ring socket, its offers, the setup thread. */
struct srv {
	struct net_listener *ls;
	struct net_ring_offers *o;
	struct net_acceptor *a;
	pthread_mutex_t lock;
	struct net_ring *ring; /* the last pair served */
	uint64_t cookie;
	int err;
	char why[256];
};

static void on_connect(void *ctx, struct net_pending *p)
{
	struct srv *s = ctx;
	struct diag_report d = {0};
	struct net_ring *r = NULL;
	uint64_t cookie = 0;
	int err = net_ring_serve(s->o, p, &cookie, &r, &d);

	pthread_mutex_lock(&s->lock);
	net_ring_close(s->ring);
	s->ring = r;
	s->cookie = cookie;
	s->err = err;
	snprintf(s->why, sizeof(s->why), "%s", d.msg);
	pthread_mutex_unlock(&s->lock);
}

static void srv_start(struct srv *s, int timeout_ms)
{
	struct net_accept_opts ao = {.on_connect = on_connect, .ctx = s};

	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	assert_int_equal(net_listen_ring(&s->ls, NULL), 0);
	assert_non_null(net_listener_ring_name(s->ls));
	assert_int_equal(net_ring_offers_create(s->ls, SIZE, timeout_ms, &s->o, NULL), 0);
	assert_int_equal(net_acceptor_start(NULL, NULL, s->ls, &ao, &s->a, NULL), 0);
}

static void srv_stop(struct srv *s)
{
	net_acceptor_stop(s->a);
	net_ring_offers_destroy(s->o);
	net_listener_close(s->ls);
	net_ring_close(s->ring);
	pthread_mutex_destroy(&s->lock);
}

/* Fetch with @offer; on refusal the message must hold @why. */
static int fetch(const struct net_oob_ring *offer, const char *why, struct net_ring **out)
{
	struct diag_report d = {0};
	int rc = net_ring_fetch(offer, 5, WAIT_MS, out, &d);

	if (rc && why && !strstr(d.msg, why))
		fail_msg("refusal \"%s\" lacks \"%s\"", d.msg, why);
	return rc;
}

/* The pair served for the last fetch (waits for the setup thread). */
static struct net_ring *served(struct srv *s, uint64_t *cookie)
{
	struct net_ring *r = NULL;

	for (int i = 0; i < WAIT_MS && !r; i++) {
		pthread_mutex_lock(&s->lock);
		r = s->ring;
		s->ring = NULL;
		*cookie = s->cookie;
		pthread_mutex_unlock(&s->lock);
		if (!r)
			usleep(1000);
	}
	return r;
}

static void test_token_fetches_its_pair_once(void **state)
{
	struct net_oob_ring offer, other;
	struct net_ring *mine, *theirs;
	uint8_t buf[8] = {0};
	uint64_t cookie;
	struct srv s;

	(void)state;
	srv_start(&s, 0);
	assert_int_equal(net_ring_offer(s.o, 41, &other), 0);
	assert_int_equal(net_ring_offer(s.o, 42, &offer), 0);
	assert_int_equal(offer.size, SIZE);
	assert_memory_not_equal(offer.token, other.token, NET_OOB_TOKEN_BYTES);
	assert_int_equal(fetch(&offer, NULL, &mine), 0);
	theirs = served(&s, &cookie);
	assert_non_null(theirs);
	assert_int_equal(cookie, 42); /* the pair is for this token's connection */
	/* the two ends are one pair */
	assert_int_equal(net_ring_write(theirs, "ring!", 5), 5);
	assert_int_equal(net_ring_read(mine, buf, sizeof(buf)), 5);
	assert_memory_equal(buf, "ring!", 5);
	net_ring_close(mine);
	net_ring_close(theirs);

	/* used up */
	assert_int_equal(fetch(&offer, "token unknown, used or expired", &mine), -EACCES);
	/* one bit off */
	other.token[7] ^= 1;
	assert_int_equal(fetch(&other, "token unknown, used or expired", &mine), -EACCES);
	other.token[7] ^= 1;
	/* the right size only */
	other.size = SIZE * 2;
	assert_int_equal(fetch(&other, "ring block for size 4096", &mine), -EPROTO);
	other.size = SIZE;
	assert_int_equal(fetch(&other, NULL, &mine), 0);
	net_ring_close(mine);
	srv_stop(&s);
}

static void test_expired_and_full(void **state)
{
	struct net_oob_ring offer, extra;
	struct net_ring *r;
	struct srv s;

	(void)state;
	srv_start(&s, 1);
	assert_int_equal(net_ring_offer(s.o, 1, &offer), 0);
	usleep(20 * 1000);
	assert_int_equal(fetch(&offer, "token unknown, used or expired", &r), -EACCES);
	srv_stop(&s);

	srv_start(&s, 0);
	for (unsigned i = 0; i < NET_RING_MAX_OFFERS; i++)
		assert_int_equal(net_ring_offer(s.o, i, &offer), 0);
	assert_int_equal(net_ring_offer(s.o, 99, &extra), -ENOSPC);
	/* a used offer frees its place */
	assert_int_equal(fetch(&offer, NULL, &r), 0);
	net_ring_close(r);
	assert_int_equal(net_ring_offer(s.o, 99, &extra), 0);
	srv_stop(&s);
}

/* Another uid with a live token is refused, and the token stays good for
 * the uid it was made for. */
static void test_other_uid_refused(void **state)
{
	struct net_oob_ring offer;
	struct net_ring *r;
	struct srv s;
	pid_t pid;
	int st;

	(void)state;
	if (geteuid() != 0)
		skip(); /* needs to become another uid */
	srv_start(&s, 0);
	assert_int_equal(net_ring_offer(s.o, 7, &offer), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct diag_report d = {0};
		int rc = setgid(65534) || setuid(65534)
		             ? -1
		             : net_ring_fetch(&offer, 5, WAIT_MS, &r, &d);

		_exit(rc == -EPERM && strstr(d.msg, "ring for uid 65534 refused") ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(fetch(&offer, NULL, &r), 0);
	net_ring_close(r);
	srv_stop(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_token_fetches_its_pair_once),
	    cmocka_unit_test(test_expired_and_full),
	    cmocka_unit_test(test_other_uid_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
