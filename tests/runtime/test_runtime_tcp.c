/* SPDX-License-Identifier: MIT */
/*
 * test_runtime_tcp.c - client and server in separate processes over the TCP
 * transport (IB-style framing, setup on a TCP port): the hash get checked
 * against the C reference from a client process, a client that vanishes
 * (its connection is reclaimed, others go on), `prism_post` installing a
 * program on a running server, and the carrier a client gets (a
 * shared-memory ring pair for this local server on the sim, unless TCP is
 * asked for by option or PRISM_TRANSPORT), and a client that pipelines
 * (batches up to the connection's depth) between closed-loop calls, and
 * a client whose sim device runs its NIC on a thread of its own (over TCP
 * and over a ring, the NIC thread's completion ends its wait: no wait
 * sleeps to its bound through one, core_client_waits).
 *
 * Every body runs once per backend of the list in main(): the sim, and the
 * mlx5 backend over the PRM-level emulator (tests/mlx5emu), each process
 * with its own emulated NIC, the NICs of all of them on one fabric (a
 * directory of the emulator's cross-process wire, mlx5emu_xwire.c).  On
 * mlx5 the TCP socket carries only the setup; a vanished client is noticed
 * by its setup socket closing.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <prism/prism.h>

#include "chain/chainobj.h"
#include "core/client.h"
#include "tests/runtime/support/child_proc.h"
#include "tests/runtime/support/fabric_dev.h"
#include "tests/runtime/support/hashget_chain.h"
#include "tests/support/backend_filter.h"

#define NB         256u
#define TABLE_SIZE (NB * (HG_BUCKET_BYTES + HG_VALUE_BYTES) + 4096u)
#define SEED       99

static uint32_t keys[NB];

/* The backend under test, and the emulator's fabric directory. */
struct backend {
	const char *group;
	const char *dev; /* device name in every process */
	bool emulated;   /* mlx5 over the emulator */
	unsigned gets;   /* invocations of the long body */
};
static const struct backend *g_be;
static char fabric[64];

/* This process's device (its own emulated NIC on the fabric, on mlx5). */
static struct prism_device *open_dev(void)
{
	return fabric_dev_open(g_be->dev, g_be->emulated, 3, fabric);
}

static void close_dev(struct prism_device *dev)
{
	fabric_dev_close(dev, g_be->emulated);
}

static void make_keys(void)
{
	uint64_t s = 42;

	for (uint32_t i = 0; i < NB; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		keys[i] = (i % 5 == 4) ? 0 : (uint32_t)(s & 0xffffff) | 1;
	}
}

static char *chain_yaml(size_t *len)
{
	struct chainobj *o = hg_build(TABLE_SIZE);
	char *text = NULL;

	if (!o || chainobj_write_mem(o, 0, &text, len, NULL))
		text = NULL;
	chainobj_free(o);
	return text;
}

/*
 * The server process: table, program (unless @post_only), server on any
 * port; writes the port to @fd, then serves until killed.  Never returns.
 */
static void server_main(int fd, bool post_only, const char *post_socket)
{
	struct prism_device *dev = open_dev();
	struct prism_region *r;
	struct prism_server *srv;
	struct hg_table t;
	uint16_t port;

	if (getenv("PRISM_TEST_LOG"))
		prism_set_log_fn(prism_log_stderr, NULL, PRISM_LOG_DEBUG);
	if (!dev)
		_exit(2);
	r = prism_device__create_region(dev, "table", TABLE_SIZE, NULL);
	if (!r)
		_exit(3);
	t = (struct hg_table){prism_region__addr(r), TABLE_SIZE, NB};
	hg_fill(&t, keys, (uintptr_t)t.mem, SEED);
	PRISM_OPTS(prism_server_opts, so, .port = PRISM_PORT_ANY, .host = "127.0.0.1",
	           .allow_post = true, .post_socket = post_socket);
	srv = prism_server__create(dev, &so);
	if (!srv)
		_exit(4);
	if (!post_only) {
		size_t len;
		char *yaml = chain_yaml(&len);
		struct prism_program *p = prism_program__open_mem(yaml, len, NULL);

		if (!p || prism_program__load(p, dev) || prism_server__add_program(srv, p))
			_exit(5);
		prism_program__close(p);
		free(yaml);
	}
	if (prism_server__start(srv))
		_exit(6);
	port = prism_server__port(srv);
	if (write(fd, &port, sizeof(port)) != sizeof(port))
		_exit(7);
	for (;;)
		pause();
}

struct srv_proc {
	pid_t pid;
	char addr[32];
	char post[108]; /* the server's post socket */
};

static void start_server(struct srv_proc *s, bool post_only)
{
	int p[2];
	uint16_t port = 0;

	assert_int_equal(pipe(p), 0);
	snprintf(s->post, sizeof(s->post), "%s/prism-test-post-%d.sock",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	s->pid = child_fork(); /* never outlives the test, even a failed one */
	assert_true(s->pid >= 0);
	if (s->pid == 0) {
		close(p[0]);
		server_main(p[1], post_only, s->post);
	}
	close(p[1]);
	ssize_t got = read(p[0], &port, sizeof(port));
	close(p[0]);
	if (got != (ssize_t)sizeof(port))
		fail_msg("server process did not start (exit status 0x%x)", child_kill(s->pid));
	snprintf(s->addr, sizeof(s->addr), "127.0.0.1:%u", port);
}

static void stop_server(struct srv_proc *s)
{
	child_kill(s->pid);
}

static int get(struct prism_client *cl, uint32_t key, uint32_t b, uint8_t out[HG_VALUE_BYTES + 8])
{
	struct prism_arg args[2];
	struct prism_call c;

	hg_get_call(&c, args, key, b, out);
	return prism_client__invoke(cl, &c, NULL);
}

static void test_hash_get_from_another_process(void **state)
{
	static uint8_t local[TABLE_SIZE];
	struct hg_table ref = {local, TABLE_SIZE, NB};
	struct srv_proc s;
	struct prism_device *dev;
	struct prism_client *cl;
	uint64_t rs = 5;
	unsigned hits = 0;

	(void)state;
	hg_fill(&ref, keys, 0, SEED); /* same keys and values; pointers do not matter */
	start_server(&s, false);
	dev = open_dev();
	assert_non_null(dev);
	cl = prism_client__connect(dev, s.addr, NULL);
	assert_non_null(cl);
	for (unsigned i = 0; i < g_be->gets; i++) {
		uint8_t out[HG_VALUE_BYTES + 8], want[HG_VALUE_BYTES];
		uint32_t b, key;

		rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
		b = (uint32_t)(rs % NB);
		switch ((rs >> 20) % 3) {
		case 0: /* hit (or a miss on an empty bucket) */
			key = keys[b] ? keys[b] : 9;
			break;
		case 1: /* collision: another bucket's key */
			key = keys[(b + 3) % NB] ? keys[(b + 3) % NB] : 11;
			break;
		default: /* absent */
			key = (uint32_t)(rs >> 32) & 0xffffff;
			break;
		}
		int rc = get(cl, key, b, out);
		if (rc)
			fail_msg("invocation %u: %s", i, prism_strerror(rc));
		hg_reference(&ref, b, key, want);
		if (memcmp(out, want, HG_VALUE_BYTES))
			fail_msg("invocation %u: bucket %u key 0x%06x differs", i, b, key);
		hits += want[0] != 0;
	}
	assert_true(hits > g_be->gets / 10);
	prism_client__close(cl);
	close_dev(dev);
	stop_server(&s);
}

/* A client process killed mid-session: the server reclaims its connection and
 * keeps serving the others. */
static void test_client_vanishes(void **state)
{
	struct srv_proc s;
	struct prism_device *dev;
	struct prism_client *cl;
	uint8_t out[HG_VALUE_BYTES + 8];
	pid_t victim;

	(void)state;
	start_server(&s, false);
	victim = child_fork();
	assert_true(victim >= 0);
	if (victim == 0) {
		struct prism_device *d = open_dev();
		struct prism_client *c = d ? prism_client__connect(d, s.addr, NULL) : NULL;

		if (!c)
			_exit(1);
		/* invoke until killed; a failed invocation ends it (no spinning) */
		while (get(c, keys[0], 0, out) == 0)
			;
		_exit(2);
	}
	usleep(300 * 1000);
	child_kill(victim);
	dev = open_dev();
	assert_non_null(dev);
	for (int round = 0; round < 3; round++) {
		cl = prism_client__connect(dev, s.addr, NULL);
		assert_non_null(cl);
		for (uint32_t b = 0; b < 50; b++)
			assert_int_equal(get(cl, keys[b] ? keys[b] : 1, b, out), 0);
		prism_client__close(cl);
	}
	close_dev(dev);
	stop_server(&s);
}

static void test_post_installs_program(void **state)
{
	struct srv_proc s;
	struct prism_device *dev;
	struct prism_client *cl;
	uint8_t out[HG_VALUE_BYTES + 8];
	size_t len;
	char *yaml;

	(void)state;
	start_server(&s, true);
	dev = open_dev();
	assert_non_null(dev);
	/* Nothing installed yet: the connection is refused. */
	assert_null(prism_client__connect(dev, s.addr, NULL));
	yaml = chain_yaml(&len);
	assert_non_null(yaml);
	/* A tampered object is rejected by the server, nothing installed. */
	char *bad = strdup(yaml);
	char *p = strstr(bad, "sq-slots: 64");
	assert_non_null(p);
	p[10] = '3';
	assert_int_not_equal(prism_post(s.post, bad, len, NULL), 0);
	assert_null(prism_client__connect(dev, s.addr, NULL));
	free(bad);
	assert_int_equal(prism_post(s.post, yaml, len, NULL), 0);
	cl = prism_client__connect(dev, s.addr, NULL);
	assert_non_null(cl);
	assert_int_equal(get(cl, keys[1], 1, out), 0);
	assert_int_not_equal(out[0] | out[1] | out[2] | out[3], 0);
	prism_client__close(cl);
	free(yaml);
	close_dev(dev);
	stop_server(&s);
}

/*
 * A pipelining client (batches of 16 calls in flight, the connection's
 * depth) and closed-loop calls on the same connection, over the carrier the
 * client gets by default: the server delivers a request behind the
 * acknowledgements it came with in one run when its window is posted, and
 * holds it for a run on them when not; every answer must be right either
 * way.
 */
static void test_pipelined_and_closed_loop(void **state)
{
	static uint8_t local[TABLE_SIZE];
	struct hg_table ref = {local, TABLE_SIZE, NB};
	uint8_t out[16][HG_VALUE_BYTES + 8], want[HG_VALUE_BYTES];
	struct prism_arg args[16][2];
	struct prism_call calls[16];
	uint32_t bs[16];
	struct prism_device *dev;
	struct prism_client *cl;
	struct srv_proc s;
	unsigned rounds = g_be->gets / 64;

	(void)state;
	hg_fill(&ref, keys, 0, SEED);
	start_server(&s, false);
	dev = open_dev();
	assert_non_null(dev);
	cl = prism_client__connect(dev, s.addr, NULL);
	assert_non_null(cl);
	for (unsigned r = 0; r < rounds; r++) {
		size_t n = 1 + r % 16; /* batches of every size up to the depth */

		for (size_t i = 0; i < n; i++) {
			bs[i] = (r * 7u + (uint32_t)i * 13u) % NB;
			hg_get_call(&calls[i], args[i], keys[bs[i]] ? keys[bs[i]] : 5, bs[i],
			            out[i]);
		}
		assert_int_equal(prism_client__invoke_batch(cl, calls, n, NULL), (int)n);
		for (size_t i = 0; i < n; i++) {
			hg_reference(&ref, bs[i], keys[bs[i]] ? keys[bs[i]] : 5, want);
			if (memcmp(out[i], want, HG_VALUE_BYTES))
				fail_msg("round %u call %zu: bucket %u differs", r, i, bs[i]);
		}
		/* then closed-loop calls, one in flight */
		for (uint32_t i = 0; i < 4; i++) {
			uint32_t b = (r * 5u + i) % NB;

			assert_int_equal(get(cl, keys[b] ? keys[b] : 5, b, out[0]), 0);
			hg_reference(&ref, b, keys[b] ? keys[b] : 5, want);
			if (memcmp(out[0], want, HG_VALUE_BYTES))
				fail_msg("round %u single %u: bucket %u differs", r, i, b);
		}
	}
	prism_client__close(cl);
	close_dev(dev);
	stop_server(&s);
}

/* Which carrier a client gets; every one of them serves gets. */
static void test_transport_choice(void **state)
{
	enum prism_transport want_auto =
	    g_be->emulated ? PRISM_TRANSPORT_AUTO : PRISM_TRANSPORT_SHM;
	enum prism_transport want_tcp = g_be->emulated ? PRISM_TRANSPORT_AUTO : PRISM_TRANSPORT_TCP;
	char *env = getenv("PRISM_TRANSPORT") ? strdup(getenv("PRISM_TRANSPORT")) : NULL;
	uint8_t out[HG_VALUE_BYTES + 8];
	struct prism_client *cl[4];
	struct prism_device *dev;
	struct srv_proc s;

	(void)state;
	unsetenv("PRISM_TRANSPORT"); /* the server process too: it offers rings */
	start_server(&s, false);
	dev = open_dev();
	assert_non_null(dev);
	PRISM_OPTS(prism_client_opts, tcp, .transport = PRISM_TRANSPORT_TCP);
	cl[0] = prism_client__connect(dev, s.addr, NULL);
	cl[1] = prism_client__connect(dev, s.addr, &tcp);
	setenv("PRISM_TRANSPORT", "tcp", 1);
	cl[2] = prism_client__connect(dev, s.addr, NULL);
	setenv("PRISM_TRANSPORT", "shm", 1);
	cl[3] = prism_client__connect(dev, s.addr, &tcp); /* the option wins */
	unsetenv("PRISM_TRANSPORT");
	for (int i = 0; i < 4; i++) {
		assert_non_null(cl[i]);
		assert_int_equal(prism_client__transport(cl[i]), i ? want_tcp : want_auto);
		for (uint32_t b = 0; b < 20; b++)
			assert_int_equal(get(cl[i], keys[b] ? keys[b] : 1, b, out), 0);
	}
	for (int i = 0; i < 4; i++)
		prism_client__close(cl[i]);
	close_dev(dev);
	stop_server(&s);
	if (env)
		setenv("PRISM_TRANSPORT", env, 1);
	free(env);
}

/*
 * A client whose sim device runs its NIC on a thread of its own, over TCP
 * and over a ring: the answer the client reads off its link is handed to
 * that thread, and the completion it writes must end the client's wait
 * (not the wait's bound running out).  20 calls of either carrier take far
 * below a second where each call would take one wait bound (100 ms) more.
 */
static void test_threaded_client_device(void **state)
{
	static const enum prism_transport carriers[] = {PRISM_TRANSPORT_TCP, PRISM_TRANSPORT_SHM};
	PRISM_OPTS(prism_device_opts, dopts, .threaded = true);
	char *env = getenv("PRISM_TRANSPORT") ? strdup(getenv("PRISM_TRANSPORT")) : NULL;
	uint8_t out[HG_VALUE_BYTES + 8];
	struct prism_device *dev;
	struct srv_proc s;

	(void)state;
	if (g_be->emulated) {
		free(env);
		skip(); /* a threaded NIC is a sim option */
	}
	/* each carrier is forced by the client's option; the server process
	 * must not inherit a PRISM_TRANSPORT that stops it offering rings */
	unsetenv("PRISM_TRANSPORT");
	start_server(&s, false);
	dev = prism_device__open("sim", &dopts);
	assert_non_null(dev);
	for (size_t i = 0; i < sizeof(carriers) / sizeof(carriers[0]); i++) {
		PRISM_OPTS(prism_client_opts, copts, .transport = carriers[i]);
		struct prism_client *cl = prism_client__connect(dev, s.addr, &copts);
		uint32_t b = 0;

		assert_non_null(cl);
		assert_int_equal(prism_client__transport(cl), carriers[i]);
		/* 20 calls, and on (at most 1000) until the NIC thread's CQE
		 * ended a wait (one it wrote before this thread looked needs no
		 * wait at all) or a wait slept through one */
		for (; b < 20 || (!cl->waits.channel && !cl->waits.missed && b < 1000); b++)
			assert_int_equal(get(cl, keys[b % NB] ? keys[b % NB] : 1, b % NB, out), 0);
		/* no wait slept through a completion: the channel ended them */
		assert_int_equal(cl->waits.missed, 0);
		assert_true(cl->waits.channel > 0);
		prism_client__close(cl);
	}
	prism_device__close(dev);
	stop_server(&s);
	if (env)
		setenv("PRISM_TRANSPORT", env, 1);
	free(env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    /* the teardown kills and reaps the test's processes, failed or not */
	    cmocka_unit_test_teardown(test_hash_get_from_another_process, child_teardown),
	    cmocka_unit_test_teardown(test_client_vanishes, child_teardown),
	    cmocka_unit_test_teardown(test_post_installs_program, child_teardown),
	    cmocka_unit_test_teardown(test_transport_choice, child_teardown),
	    cmocka_unit_test_teardown(test_pipelined_and_closed_loop, child_teardown),
	    cmocka_unit_test_teardown(test_threaded_client_device, child_teardown),
	};

	static const struct backend backends[] = {
	    {"runtime_tcp (sim)", "sim", false, 10000},
	    {"runtime_tcp (mlx5 over the emulator)", "mlx5_0", true, 2000},
	};
	char cmd[128];
	int failed = 0;

	make_keys();
	if (getenv("PRISM_TEST_LOG"))
		prism_set_log_fn(prism_log_stderr, NULL, PRISM_LOG_DEBUG);
	signal(SIGPIPE, SIG_IGN);
	if (getenv("PRISM_TEST_ONLY"))
		cmocka_set_test_filter(getenv("PRISM_TEST_ONLY"));
	snprintf(fabric, sizeof(fabric), "/tmp/prism-fabric-XXXXXX");
	if (!mkdtemp(fabric))
		return 1;
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		g_be = &backends[i];
		if (!test_backend_selected(g_be->group))
			continue;
		failed += _cmocka_run_group_tests(g_be->group, tests,
		                                  sizeof(tests) / sizeof(tests[0]), NULL, NULL);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", fabric);
	if (system(cmd))
		failed++;
	return failed;
}
