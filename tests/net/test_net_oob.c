/* SPDX-License-Identifier: MIT */
/*
 * tests/net/test_net_oob.c - connection setup: the setup messages' encoding
 * and validation, truncated and foreign exchanges, and listen / accept /
 * connect / reject over loopback TCP.
 *
 * Must not: need the sim, root, or a fixed free port (listeners use an
 * ephemeral port, except the one test of the default port, which skips
 * when 18515 is taken).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/net.h"

static struct net_oob_params sample_params(void)
{
	struct net_oob_params p = {
	    .node = 7,
	    .qpn = 0x000123,
	    .psn = 0xabcdef,
	    .max_pkt = 4096,
	    .lid = 0x1234,
	    .mtu = 5,
	    .gid = {0xfe, 0x80, [15] = 0x42},
	    .n_regions = 2,
	    .regions = {{.addr = 0x7f0000001000ull, .rkey = 0x11, .len = 4096},
	                {.addr = 0x2000, .rkey = 0x22, .len = 64}},
	    .blob_len = 5,
	    .blob = (uint8_t *)"hget",
	};

	return p;
}

static void test_round_trip(void **state)
{
	struct net_oob_msg m = {.type = NET_OOB_CONNECT}, d;
	static uint8_t buf[NET_OOB_MAX_MSG];
	int n;

	(void)state;
	m.params = sample_params();
	n = net_oob_encode(&m, buf, sizeof(buf), NULL);
	assert_int_equal(n, 12 + 44 + 2 * 16 + 5);
	assert_memory_equal(buf, "PRSM\x04\x01\x00\x00\x00\x00\x00\x51", 12);
	assert_int_equal(net_oob_decode(buf, (size_t)n, &d, NULL), 0);
	assert_int_equal(d.type, NET_OOB_CONNECT);
	assert_int_equal(d.params.node, 7);
	assert_int_equal(d.params.qpn, 0x123);
	assert_int_equal(d.params.psn, 0xabcdef);
	assert_int_equal(d.params.max_pkt, 4096);
	assert_int_equal(d.params.lid, 0x1234);
	assert_int_equal(d.params.mtu, 5);
	assert_int_equal(d.params.gid[0], 0xfe);
	assert_int_equal(d.params.gid[15], 0x42);
	assert_int_equal(d.params.n_regions, 2);
	assert_int_equal(d.params.regions[0].addr, 0x7f0000001000ull);
	assert_int_equal(d.params.regions[1].rkey, 0x22);
	assert_int_equal(d.params.blob_len, 5);
	assert_memory_equal(d.params.blob, "hget", 5);

	m.type = NET_OOB_REJECT;
	m.reject_errno = ENOENT;
	strcpy(m.reason, "no program 'hget'");
	n = net_oob_encode(&m, buf, sizeof(buf), NULL);
	assert_int_equal(n, 12 + 8 + 17);
	assert_int_equal(net_oob_decode(buf, (size_t)n, &d, NULL), 0);
	assert_int_equal(d.type, NET_OOB_REJECT);
	assert_int_equal(d.reject_errno, ENOENT);
	assert_string_equal(d.reason, "no program 'hget'");
}

static int encode_connect(uint8_t *buf)
{
	struct net_oob_msg m = {.type = NET_OOB_CONNECT};

	m.params = sample_params();
	return net_oob_encode(&m, buf, NET_OOB_MAX_MSG, NULL);
}

static void expect_decode(const uint8_t *buf, size_t len, int code, const char *needle)
{
	struct diag_report diag = {0};
	struct net_oob_msg m;

	assert_int_equal(net_oob_decode(buf, len, &m, &diag), code);
	assert_int_equal(diag.code, code);
	if (!strstr(diag.msg, needle))
		fail_msg("message \"%s\" lacks \"%s\"", diag.msg, needle);
}

static void test_decode_rejects(void **state)
{
	static uint8_t buf[NET_OOB_MAX_MSG + 64];
	int n = encode_connect(buf);

	(void)state;
	expect_decode(buf, 11, -EPROTO, "the header alone is 12");
	buf[0] = 'G';
	expect_decode(buf, (size_t)n, -EPROTO, "not a prism peer");
	buf[0] = 'P';
	buf[4] = 3; /* a peer whose requester takes one ACK per request */
	expect_decode(buf, (size_t)n, -EPROTONOSUPPORT, "version 3, this side speaks 4");
	buf[4] = 4;
	buf[5] = 9;
	expect_decode(buf, (size_t)n, -EPROTO, "unknown message type 9");
	buf[5] = 1;
	buf[7] = 1;
	expect_decode(buf, (size_t)n, -EPROTO, "reserved bytes 6-7");
	buf[7] = 0;
	expect_decode(buf, (size_t)n - 1, -EPROTO, "header says 81 body bytes, 80 present");
	/* body length beyond the limit is refused from the header alone */
	buf[9] = 0x20;
	expect_decode(buf, (size_t)n, -EPROTO, "body of 2097233 bytes exceeds the");
	buf[9] = 0;
	/* QPN wider than 24 bits */
	buf[12 + 4] = 1;
	expect_decode(buf, (size_t)n, -EPROTO, "QPN 0x1000123 does not fit 24 bits");
	buf[12 + 4] = 0;
	/* too many regions */
	buf[12 + 17] = 9;
	expect_decode(buf, (size_t)n, -EPROTO, "9 regions, at most 8");
	/* the body disagrees with its own counts */
	buf[12 + 17] = 1;
	expect_decode(buf, (size_t)n, -EPROTO, "need a 65-byte body, header says 81");
	buf[12 + 17] = 2;
	/* a CONNECT too short for its fixed part */
	buf[11] = 8;
	expect_decode(buf, 20, -EPROTO, "body of 8 bytes, CONNECT needs at least 44");
	buf[11] = 81;
	/* flags after the region count: unknown ones */
	buf[12 + 19] = 0x80;
	expect_decode(buf, (size_t)n, -EPROTO, "unknown flags 0x0080");
	/* the ring flag without the ring block's 64 bytes */
	buf[12 + 19] = NET_OOB_F_RING;
	expect_decode(buf, (size_t)n, -EPROTO, "a ring block and a 5-byte blob need a 145-byte");
	buf[12 + 19] = 0;
	/* MTU code and the reserved byte after it */
	buf[12 + 26] = 6;
	expect_decode(buf, (size_t)n, -EPROTO, "MTU code 6");
	buf[12 + 26] = 5;
	buf[12 + 27] = 1;
	expect_decode(buf, (size_t)n, -EPROTO, "reserved body byte 27");
	buf[12 + 27] = 0;
	assert_int_equal(net_oob_decode(buf, (size_t)n, &(struct net_oob_msg){0}, NULL), 0);
}

/* An ACCEPT's ring block: the socket name and token round-trip; a name
 * that is not printable or not NUL-padded is refused. */
static void test_ring_block(void **state)
{
	struct net_oob_msg m = {.type = NET_OOB_ACCEPT}, d;
	static uint8_t buf[NET_OOB_MAX_MSG];
	struct diag_report diag;
	size_t name_at = 12 + 44 + 2 * 16 + 4 + 16;
	int n;

	(void)state;
	m.params = sample_params();
	m.params.flags = NET_OOB_F_RING;
	m.params.ring.size = 1u << 18;
	memset(m.params.ring.token, 0xa5, sizeof(m.params.ring.token));
	strcpy(m.params.ring.name, "prism-ring-42-0123456789abcdef");
	n = net_oob_encode(&m, buf, sizeof(buf), NULL);
	assert_int_equal(n, 12 + 44 + 2 * 16 + 64 + 5);
	assert_int_equal(net_oob_decode(buf, (size_t)n, &d, NULL), 0);
	assert_int_equal(d.params.flags, NET_OOB_F_RING);
	assert_int_equal(d.params.ring.size, 1u << 18);
	assert_memory_equal(d.params.ring.token, m.params.ring.token, NET_OOB_TOKEN_BYTES);
	assert_string_equal(d.params.ring.name, "prism-ring-42-0123456789abcdef");
	assert_memory_equal(d.params.blob, "hget", 5);

	buf[name_at + 3] = ' ';
	expect_decode(buf, (size_t)n, -EPROTO, "bad ring socket name");
	buf[name_at + 3] = 'm';
	buf[name_at + 40] = 'x'; /* after the terminating NUL */
	expect_decode(buf, (size_t)n, -EPROTO, "ring name not NUL-padded");
	buf[name_at + 40] = 0;
	memset(buf + name_at, 0, NET_OOB_RING_NAME); /* empty */
	expect_decode(buf, (size_t)n, -EPROTO, "bad ring socket name");

	strcpy(m.params.ring.name, "two words");
	assert_int_equal(net_oob_encode(&m, buf, sizeof(buf), &diag), -EINVAL);
}

static void test_encode_rejects(void **state)
{
	struct net_oob_msg m = {.type = NET_OOB_ACCEPT};
	struct diag_report diag;
	static uint8_t buf[NET_OOB_MAX_MSG];

	(void)state;
	m.params = sample_params();
	m.params.psn = 1u << 24;
	assert_int_equal(net_oob_encode(&m, buf, sizeof(buf), &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "PSN"));
	m.params = sample_params();
	m.params.blob_len = NET_OOB_MAX_BLOB + 1;
	assert_int_equal(net_oob_encode(&m, buf, sizeof(buf), &diag), -EINVAL);
	m.params = sample_params();
	assert_int_equal(net_oob_encode(&m, buf, 20, &diag), -ENOSPC);
}

/* A .chain object travels in the blob: far more than one socket buffer. */
static void test_big_blob(void **state)
{
	struct net_oob_params srv = {.qpn = 5}, mine = sample_params(), peer = {0};
	static uint8_t big[NET_OOB_MAX_BLOB];
	struct net_listener *l;
	struct net_pending *p;
	struct diag_report diag;
	pid_t pid;
	int fd, status;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 13 + (i >> 8));
	assert_int_equal(net_listen("127.0.0.1", NET_PORT_EPHEMERAL, &l, &diag), 0);
	srv.blob = big;
	srv.blob_len = sizeof(big);
	mine.blob = big;
	mine.blob_len = sizeof(big);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int rc =
		    net_connect("127.0.0.1", net_listener_port(l), &mine, &peer, 10000, &fd, &diag);

		if (rc || peer.blob_len != sizeof(big) || memcmp(peer.blob, big, sizeof(big)))
			_exit(1);
		net_oob_params_release(&peer);
		close(fd);
		_exit(0);
	}
	assert_int_equal(net_listener_accept(l, 10000, &p, &diag), 0);
	assert_int_equal(net_pending_peer(p)->blob_len, sizeof(big));
	assert_memory_equal(net_pending_peer(p)->blob, big, sizeof(big));
	assert_int_equal(net_pending_accept(p, &srv, &fd, &diag), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(fd);
	net_listener_close(l);
	/* one byte more than the limit is refused before anything is sent */
	{
		struct net_oob_msg m = {.type = NET_OOB_CONNECT, .params = mine};
		static uint8_t out[NET_OOB_MAX_MSG];

		m.params.blob_len = NET_OOB_MAX_BLOB + 1;
		assert_int_equal(net_oob_encode(&m, out, sizeof(out), &diag), -EINVAL);
		assert_non_null(strstr(diag.msg, "blob of 1048577 bytes, at most 1048576"));
	}
}

static void test_truncated_exchange(void **state)
{
	static uint8_t buf[NET_OOB_MAX_MSG];
	struct diag_report diag = {0};
	struct net_oob_msg m;
	int sv[2], n = encode_connect(buf);

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	assert_int_equal(write(sv[0], buf, 7), 7);
	close(sv[0]);
	assert_int_equal(net_oob_recv(sv[1], &m, 5000, &diag), -EPROTO);
	assert_non_null(strstr(diag.msg, "truncated: peer closed after 7 of 12 header bytes"));
	close(sv[1]);

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	assert_int_equal(write(sv[0], buf, (size_t)n - 3), n - 3);
	close(sv[0]);
	assert_int_equal(net_oob_recv(sv[1], &m, 5000, &diag), -EPROTO);
	assert_non_null(strstr(diag.msg, "after 78 of 81 body bytes"));
	close(sv[1]);

	/* nothing arrives: the deadline ends the wait */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	assert_int_equal(net_oob_recv(sv[1], &m, 20, &diag), -ETIMEDOUT);
	assert_non_null(strstr(diag.msg, "timed out after 0 of 12 header bytes"));
	close(sv[0]);
	close(sv[1]);
}

struct client_job {
	int port;
	struct net_oob_params mine, peer;
	int rc, fd;
	struct diag_report diag;
};

static void *client_main(void *arg)
{
	struct client_job *j = arg;

	j->rc = net_connect("127.0.0.1", j->port, &j->mine, &j->peer, 5000, &j->fd, &j->diag);
	return NULL;
}

static void test_connect_accept(void **state)
{
	struct net_oob_params srv = {.node = 1, .qpn = 0x42, .psn = 77};
	struct client_job job = {.mine = sample_params()};
	struct net_listener *l;
	struct net_pending *p;
	struct diag_report diag;
	pthread_t th;
	int fd = -1;

	(void)state;
	assert_int_equal(net_listen("127.0.0.1", NET_PORT_EPHEMERAL, &l, &diag), 0);
	job.port = net_listener_port(l);
	assert_true(job.port > 0);
	pthread_create(&th, NULL, client_main, &job);
	assert_int_equal(net_listener_accept(l, 5000, &p, &diag), 0);
	assert_int_equal(net_pending_peer(p)->qpn, 0x123);
	assert_int_equal(net_pending_peer(p)->regions[0].rkey, 0x11);
	assert_memory_equal(net_pending_peer(p)->blob, "hget", 5);
	assert_non_null(strstr(net_pending_addr(p), "127.0.0.1:"));
	assert_int_equal(net_pending_accept(p, &srv, &fd, &diag), 0);
	pthread_join(th, NULL);
	assert_int_equal(job.rc, 0);
	assert_int_equal(job.peer.qpn, 0x42);
	assert_int_equal(job.peer.psn, 77);
	assert_int_equal(job.peer.node, 1);
	/* the same socket now carries data */
	assert_int_equal(write(job.fd, "x", 1), 1);
	{
		char c = 0;
		struct net_oob_msg m;

		/* a stray byte is not a setup message: times out waiting for the rest */
		assert_int_equal(net_oob_recv(fd, &m, 20, &diag), -ETIMEDOUT);
		(void)c;
	}
	close(job.fd);
	close(fd);
	net_listener_close(l);
}

struct client6_job {
	int port, rc, fd;
	struct net_oob_params mine, peer;
};

static void *client6_main(void *arg)
{
	struct client6_job *j = arg;

	j->rc = net_connect("::1", j->port, &j->mine, &j->peer, 5000, &j->fd, NULL);
	return NULL;
}

/* The same exchange over IPv6 (skipped where the host has no ::1). */
static void test_connect_ipv6(void **state)
{
	struct client6_job job = {.mine = sample_params()};
	struct net_oob_params srv = {.qpn = 0x66};
	struct net_listener *l;
	struct net_pending *p;
	pthread_t th;
	int fd;

	(void)state;
	if (net_listen("::1", NET_PORT_EPHEMERAL, &l, NULL))
		skip();
	job.port = net_listener_port(l);
	pthread_create(&th, NULL, client6_main, &job);
	assert_int_equal(net_listener_accept(l, 5000, &p, NULL), 0);
	assert_non_null(strstr(net_pending_addr(p), "[::1]:"));
	assert_int_equal(net_pending_accept(p, &srv, &fd, NULL), 0);
	pthread_join(th, NULL);
	assert_int_equal(job.rc, 0);
	assert_int_equal(job.peer.qpn, 0x66);
	close(fd);
	close(job.fd);
	net_listener_close(l);
}

/* A REJECT reaches the client with its reason: -ECONNREFUSED, or
 * NET_E_BUSY when its code is EBUSY (the client may try again). */
static void reject_case(int err, const char *why, int want)
{
	struct client_job job = {.mine = sample_params()};
	struct net_listener *l;
	struct net_pending *p;
	struct diag_report diag;
	pthread_t th;

	assert_int_equal(net_listen("127.0.0.1", NET_PORT_EPHEMERAL, &l, &diag), 0);
	job.port = net_listener_port(l);
	pthread_create(&th, NULL, client_main, &job);
	assert_int_equal(net_listener_accept(l, 5000, &p, &diag), 0);
	net_pending_reject(p, err, why);
	pthread_join(th, NULL);
	assert_int_equal(job.rc, want);
	assert_non_null(strstr(job.diag.msg, why));
	assert_non_null(strstr(job.diag.msg, "127.0.0.1:"));
	net_listener_close(l);
}

static void test_reject_reaches_client(void **state)
{
	(void)state;
	reject_case(-ENOENT, "no program 'hget' on this server", -ECONNREFUSED);
	reject_case(-EBUSY, "too many connection setups from this address", NET_E_BUSY);
	reject_case(-EMFILE, "server at its file descriptor limit; try later", -ECONNREFUSED);
}

/* A raw client that sends @bytes and reads the server's answer. */
struct raw_job {
	int port;
	const void *bytes;
	size_t len;
	struct net_oob_msg answer;
	int rc;
};

static void *raw_main(void *arg)
{
	struct raw_job *j = arg;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)j->port)};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) || write(fd, j->bytes, j->len) < 0) {
		j->rc = -errno;
		close(fd);
		return NULL;
	}
	j->rc = net_oob_recv(fd, &j->answer, 5000, NULL);
	close(fd);
	return NULL;
}

static void run_raw(struct net_listener *l, struct raw_job *job, int expect, const char *needle)
{
	struct net_pending *p = NULL;
	struct diag_report diag = {0};
	pthread_t th;

	job->port = net_listener_port(l);
	pthread_create(&th, NULL, raw_main, job);
	assert_int_equal(net_listener_accept(l, 5000, &p, &diag), expect);
	assert_null(p);
	if (!strstr(diag.msg, needle))
		fail_msg("message \"%s\" lacks \"%s\"", diag.msg, needle);
	pthread_join(th, NULL);
	/* the foreign client was told why, in a REJECT */
	assert_int_equal(job->rc, 0);
	assert_int_equal(job->answer.type, NET_OOB_REJECT);
	assert_int_equal(job->answer.reject_errno, (uint32_t)-expect);
	assert_non_null(strstr(job->answer.reason, needle));
}

static void test_foreign_clients(void **state)
{
	static const char http[] = "GET / HTTP/1.0\r\n\r\n";
	static uint8_t v2[NET_OOB_MAX_MSG];
	struct net_listener *l;
	struct raw_job job = {.bytes = http, .len = sizeof(http) - 1};
	int n;

	(void)state;
	assert_int_equal(net_listen("127.0.0.1", NET_PORT_EPHEMERAL, &l, NULL), 0);
	run_raw(l, &job, -EPROTO, "not a prism peer");
	n = encode_connect(v2);
	v2[4] = 1;
	job = (struct raw_job){.bytes = v2, .len = (size_t)n};
	run_raw(l, &job, -EPROTONOSUPPORT, "version 1");
	/* the listener still serves a proper client afterwards */
	{
		struct client_job cj = {.mine = sample_params(), .port = net_listener_port(l)};
		struct net_oob_params srv = {.qpn = 9};
		struct net_pending *p;
		pthread_t th;
		int fd;

		pthread_create(&th, NULL, client_main, &cj);
		assert_int_equal(net_listener_accept(l, 5000, &p, NULL), 0);
		assert_int_equal(net_pending_accept(p, &srv, &fd, NULL), 0);
		pthread_join(th, NULL);
		assert_int_equal(cj.rc, 0);
		assert_int_equal(cj.peer.qpn, 9);
		close(fd);
		close(cj.fd);
	}
	net_listener_close(l);
}

static void test_connect_refused_and_default_port(void **state)
{
	struct net_oob_params mine = sample_params(), peer;
	struct net_listener *l;
	struct diag_report diag;
	int fd, port, rc;

	(void)state;
	/* find a port nobody listens on */
	assert_int_equal(net_listen("127.0.0.1", NET_PORT_EPHEMERAL, &l, NULL), 0);
	port = net_listener_port(l);
	net_listener_close(l);
	rc = net_connect("127.0.0.1", port, &mine, &peer, 5000, &fd, &diag);
	assert_int_equal(rc, -ECONNREFUSED);
	assert_non_null(strstr(diag.msg, "connect 127.0.0.1:"));

	rc = net_listen("127.0.0.1", 0, &l, &diag);
	if (rc == -EADDRINUSE)
		skip();
	assert_int_equal(rc, 0);
	assert_int_equal(net_listener_port(l), NET_DEFAULT_PORT);
	assert_int_equal(NET_DEFAULT_PORT, 18515);
	net_listener_close(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_decode_rejects),
	    cmocka_unit_test(test_ring_block),
	    cmocka_unit_test(test_encode_rejects),
	    cmocka_unit_test(test_truncated_exchange),
	    cmocka_unit_test(test_big_blob),
	    cmocka_unit_test(test_connect_accept),
	    cmocka_unit_test(test_connect_ipv6),
	    cmocka_unit_test(test_reject_reaches_client),
	    cmocka_unit_test(test_foreign_clients),
	    cmocka_unit_test(test_connect_refused_and_default_port),
	};

	return cmocka_run_group_tests_name("net_oob", tests, NULL, NULL);
}
