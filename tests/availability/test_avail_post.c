/* SPDX-License-Identifier: MIT */
/*
 * tests/availability/test_avail_post.c - attacks on program installs, each
 * while a well-behaved client keeps getting correct answers:
 *
 *   - a post from a uid the server does not allow, and a post over TCP
 *     (anybody who can reach the port): refused, nothing installed, the
 *     served program untouched; an allowed uid installs, replaces and
 *     removes (existing connections keep theirs);
 *   - an oversized setup message on the post socket and on the TCP port:
 *     refused from its header, before the body is read;
 *   - more programs than the table holds: the one past the limit is refused.
 *
 * Must not: assert on time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "chain/chainobj.h"
#include "core/proto.h"
#include "tests/availability/avail_fx.h"

/* The hash get under another program name (a valid object: checksum and all). */
static char *renamed(const char *name, size_t *len)
{
	struct chainobj *o = hg_build(AV_TABLE_SIZE);
	char *yaml = NULL;

	assert_non_null(o);
	free(o->program);
	o->program = strdup(name);
	assert_int_equal(chainobj_write_mem(o, 0, &yaml, len, NULL), 0);
	chainobj_free(o);
	return yaml;
}

static struct prism_client *connect_to(struct av_fx *f, const char *program)
{
	PRISM_OPTS(prism_client_opts, co, .program = program);
	return prism_client__connect(f->cdev, f->addr, &co);
}

static void test_unauthorized_posts_refused(void **state)
{
	struct av_opts o = {.allow_post = true, .post_uid = (uint32_t)getuid() + 1};
	struct core_hello h = {.kind = CORE_HELLO_POST};
	struct net_oob_params mine = {0}, peer;
	struct diag_report d = {0};
	struct prism_client *v;
	struct av_fx f;
	uint8_t *blob;
	size_t n, len;
	char *evil = renamed("hash_get", &len);
	int fd;

	(void)state;
	av_open(&f, &o);
	v = av_victim(&f);
	/* our uid is not the allowed one: refused, with the reason */
	assert_int_equal(prism_post(f.post, evil, len, NULL), -PRISM_E_NET_REJECTED);
	assert_int_equal(prism_post_remove(f.post, "hash_get", NULL), -PRISM_E_NET_REJECTED);
	/* nor may it list what is installed */
	assert_int_equal(prism_post_list(f.post, NULL, 0, NULL), -PRISM_E_NET_REJECTED);
	av_gets(&f, v, 64, 1);
	/* a post over TCP is refused whoever sends it */
	n = core_hello_encode(&h, NULL, 0);
	blob = malloc(n + len);
	assert_non_null(blob);
	core_hello_encode(&h, blob, n);
	memcpy(blob + n, evil, len);
	mine.blob = blob;
	mine.blob_len = (uint32_t)(n + len);
	assert_int_equal(
	    net_connect("127.0.0.1", prism_server__port(f.srv), &mine, &peer, 10000, &fd, &d),
	    -ECONNREFUSED);
	assert_non_null(strstr(d.msg, "only on the server's local post socket"));
	free(blob);
	/* the served program is still the one served, new connections too */
	av_gets(&f, v, 64, 2);
	prism_client__close(v);
	v = av_victim(&f);
	av_gets(&f, v, 64, 3);
	prism_client__close(v);
	free(evil);
	av_close(&f);
}

static void test_authorized_post_replaces_and_removes(void **state)
{
	struct av_opts o = {.allow_post = true, .no_program = true};
	struct prism_client *v, *w;
	struct av_fx f;
	size_t len;
	char *other = renamed("other_get", &len);

	(void)state;
	av_open(&f, &o);
	assert_null(prism_client__connect(f.cdev, f.addr, NULL)); /* nothing served */
	assert_int_equal(prism_post(f.post, f.yaml, f.yaml_len, NULL), 0);
	v = av_victim(&f);
	av_gets(&f, v, 64, 4);
	assert_int_equal(prism_post(f.post, f.yaml, f.yaml_len, NULL), 0); /* replace */
	assert_int_equal(prism_post(f.post, other, len, NULL), 0);
	{
		/* both listed, the poster named (uid and pid, this process) */
		struct prism_installed l[4] = {{.sz = sizeof(l[0])}};

		assert_int_equal(prism_post_list(f.post, l, 4, NULL), 2);
		for (int i = 0; i < 2; i++) {
			assert_true(!strcmp(l[i].name, "hash_get") ||
			            !strcmp(l[i].name, "other_get"));
			assert_int_equal(l[i].installed_uid, geteuid());
			assert_int_equal(l[i].installed_pid, getpid());
			assert_int_equal(l[i].object_bytes, l[i].name[0] == 'h' ? f.yaml_len : len);
			assert_int_equal(l[i].n_entries, 1);
		}
		/* a smaller array: the count, the first one filled */
		memset(l, 0, sizeof(l));
		l[0].sz = sizeof(l[0]);
		assert_int_equal(prism_post_list(f.post, l, 1, NULL), 2);
		assert_true(l[0].name[0]);
		assert_false(l[1].name[0]);
	}
	w = connect_to(&f, "other_get");
	assert_non_null(w);
	av_gets(&f, w, 16, 5);
	assert_int_equal(prism_post_remove(f.post, "hash_get", NULL), 0);
	assert_int_equal(prism_post_remove(f.post, "hash_get", NULL), -PRISM_E_NET_REJECTED);
	assert_null(connect_to(&f, "hash_get"));
	av_gets(&f, v, 64, 6); /* its connection keeps the program it has */
	prism_client__close(w);
	prism_client__close(v);
	free(other);
	av_close(&f);
}

/* A setup header announcing @body bytes, on @fd; then the REJECT's reason. */
static void expect_header_refused(int fd, uint32_t body, const char *want)
{
	uint8_t hdr[NET_OOB_HDR_BYTES] = {'P', 'R', 'S', 'M', NET_OOB_VERSION, NET_OOB_CONNECT};
	struct timeval tv = {.tv_sec = 30};
	char reason[256];

	hdr[8] = (uint8_t)(body >> 24);
	hdr[9] = (uint8_t)(body >> 16);
	hdr[10] = (uint8_t)(body >> 8);
	hdr[11] = (uint8_t)body;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_int_equal(send(fd, hdr, sizeof(hdr), MSG_NOSIGNAL), (ssize_t)sizeof(hdr));
	assert_int_equal(av_read_reject(fd, reason, sizeof(reason)), 0);
	if (!strstr(reason, want))
		fail_msg("REJECT reason \"%s\", want \"%s\"", reason, want);
	close(fd);
}

static void test_oversized_and_overcount_posts_refused(void **state)
{
	struct av_opts o = {.allow_post = true};
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct prism_client *v;
	struct av_fx f;
	unsigned installed = 1, i;
	int fd, rc = 0;

	(void)state;
	av_open(&f, &o);
	v = av_victim(&f);
	/* 2 GB announced on the post socket, 100 KB on the TCP port */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f.post);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	expect_header_refused(fd, 2000000000u, "exceeds the");
	av_gets(&f, v, 32, 7);
	expect_header_refused(av_silent_socket(&f), 100000u, "exceeds this listener's");
	av_gets(&f, v, 32, 8);
	/* programs up to the table's size, then refused */
	for (i = 0; i < 100 && !rc; i++) {
		char name[32];
		size_t len;
		char *y;

		snprintf(name, sizeof(name), "get_%u", i);
		y = renamed(name, &len);
		rc = prism_post(f.post, y, len, NULL);
		installed += !rc;
		free(y);
	}
	assert_int_equal(rc, -PRISM_E_NET_REJECTED);
	assert_true(installed < 100);
	av_gets(&f, v, 64, 9);
	prism_client__close(v);
	av_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_unauthorized_posts_refused),
	    cmocka_unit_test(test_authorized_post_replaces_and_removes),
	    cmocka_unit_test(test_oversized_and_overcount_posts_refused),
	};

	signal(SIGPIPE, SIG_IGN);
	return av_run_groups("avail_post", tests, sizeof(tests) / sizeof(tests[0]));
}
