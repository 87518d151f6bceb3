/* SPDX-License-Identifier: MIT */
/*
 * tests/availability/avail_fx.c - the availability suites' server, victim
 * and raw clients (avail_fx.h).
 *
 * Owns: building the hash-get server with the limits a test asks for, the
 * checked gets, the hand-made setup exchange.
 * Must not: measure time.
 */
#include "tests/availability/avail_fx.h"
#include "tests/availability/avail_flood.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "chain/chainobj.h"
#include "core/proto.h"
#include "tests/mlx5emu/mlx5emu.h"
#include "tests/support/backend_filter.h"

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void quiet_log(enum prism_log_level level, const char *msg, void *ctx)
{
	(void)level;
	(void)ctx;
	if (getenv("PRISM_TEST_LOG"))
		fprintf(stderr, "log: %s\n", msg);
}

const struct av_backend *av_be;
static char fabric[64];

static void emu_on(void)
{
	if (av_be->emulated)
		mlx5emu_install(&(struct mlx5emu_opts){
		    .relaxed_fw = true, .n_devices = 2, .seed = 8, .fabric_dir = fabric});
}

static void emu_off(void)
{
	if (av_be->emulated)
		assert_int_equal(mlx5emu_finish(), 0);
}

struct prism_device *av_open_client_dev(void)
{
	emu_on();
	return prism_device__open(av_be->emulated ? "mlx5_1" : "sim", NULL);
}

void av_close_client_dev(struct prism_device *dev)
{
	prism_device__close(dev);
	emu_off();
}

int av_run_groups(const char *suite, const struct CMUnitTest *tests, size_t n)
{
	static const struct av_backend backends[] = {
	    {"(sim)", false},
	    {"(mlx5 over the emulator)", true},
	};
	char group[128], cmd[128];
	int failed = 0;

	snprintf(fabric, sizeof(fabric), "/tmp/prism-avfabric-XXXXXX");
	if (!mkdtemp(fabric))
		return 1;
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		av_be = &backends[i];
		snprintf(group, sizeof(group), "%s %s", suite, av_be->group);
		if (!test_backend_selected(group))
			continue;
		failed += _cmocka_run_group_tests(group, tests, n, NULL, NULL);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", fabric);
	if (system(cmd))
		failed++;
	return failed;
}

void av_open(struct av_fx *f, const struct av_opts *o)
{
	struct chainobj *obj = hg_build(AV_TABLE_SIZE);
	uint64_t s = 42;

	memset(f, 0, sizeof(*f));
	prism_set_log_fn(quiet_log, NULL, PRISM_LOG_DEBUG);
	assert_non_null(obj);
	assert_int_equal(chainobj_write_mem(obj, 0, &f->yaml, &f->yaml_len, NULL), 0);
	chainobj_free(obj);
	emu_on();
	f->dev = prism_device__open(av_be->emulated ? "mlx5_0" : "sim", NULL);
	f->cdev = prism_device__open(av_be->emulated ? "mlx5_1" : "sim", NULL);
	assert_non_null(f->dev);
	assert_non_null(f->cdev);
	PRISM_OPTS(prism_region_opts, ro, .access = PRISM_ACCESS_READ);
	f->table = prism_device__create_region(f->dev, "table", AV_TABLE_SIZE, &ro);
	assert_non_null(f->table);
	f->t = (struct hg_table){prism_region__addr(f->table), AV_TABLE_SIZE, AV_NB};
	for (uint32_t i = 0; i < AV_NB; i++)
		f->keys[i] = (i % 5 == 4) ? 0 : (uint32_t)(rng(&s) & 0xffffff) | 1;
	hg_fill(&f->t, f->keys, (uintptr_t)f->t.mem, 99);
	snprintf(f->post, sizeof(f->post), "%s/prism-avail-%d.sock",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	PRISM_OPTS(prism_server_opts, so, .rearm = PRISM_REARM_CPU, .host = "127.0.0.1",
	           .port = PRISM_PORT_ANY, .max_conns_per_peer = o->max_conns_per_peer,
	           .max_setups_per_peer = o->max_setups_per_peer, .allow_post = o->allow_post,
	           .post_socket = o->allow_post ? f->post : NULL,
	           .post_uids = o->post_uid ? &o->post_uid : NULL,
	           .n_post_uids = o->post_uid ? 1 : 0);
	f->srv = prism_server__create(f->dev, &so);
	assert_non_null(f->srv);
	if (!o->no_program) {
		struct prism_program *p = prism_program__open_mem(f->yaml, f->yaml_len, NULL);

		assert_non_null(p);
		assert_int_equal(prism_program__load(p, f->dev), 0);
		assert_int_equal(prism_server__add_program(f->srv, p), 0);
		prism_program__close(p);
	}
	assert_int_equal(prism_server__start(f->srv), 0);
	snprintf(f->addr, sizeof(f->addr), "127.0.0.1:%u", prism_server__port(f->srv));
}

void av_close(struct av_fx *f)
{
	prism_server__destroy(f->srv);
	prism_device__close(f->dev);
	prism_device__close(f->cdev);
	emu_off();
	free(f->yaml);
	prism_set_log_fn(NULL, NULL, PRISM_LOG_WARN);
}

struct prism_client *av_victim(struct av_fx *f)
{
	struct prism_client *cl = prism_client__connect(f->cdev, f->addr, NULL);

	assert_non_null(cl);
	return cl;
}

void av_gets(struct av_fx *f, struct prism_client *cl, unsigned n, uint64_t seed)
{
	uint64_t s = seed | 1;

	for (unsigned i = 0; i < n; i++) {
		uint8_t out[HG_RESULT_BYTES], want[HG_VALUE_BYTES];
		struct prism_arg args[2];
		struct prism_call c;
		uint32_t b = (uint32_t)(rng(&s) % AV_NB), key = f->keys[b];

		hg_get_call(&c, args, key, b, out);
		if (prism_client__invoke(cl, &c, NULL))
			fail_msg("get %u of %u: %s", i, n, prism_strerror(c.status));
		hg_reference(&f->t, b, key, want);
		if (memcmp(out, want, HG_VALUE_BYTES))
			fail_msg("get %u: bucket %u key 0x%06x differs", i, b, key);
	}
}

int av_raw_connect(struct av_fx *f, int *fd, struct net_oob_params *peer, char *why, size_t cap)
{
	return av_raw_connect_port(prism_server__port(f->srv), fd, peer, why, cap);
}

int av_silent_socket(struct av_fx *f)
{
	struct sockaddr_in sa = {.sin_family = AF_INET,
	                         .sin_port = htons(prism_server__port(f->srv))};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	struct timeval tv = {.tv_sec = 30}; /* a bug fails the test instead of hanging it */

	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

int av_read_reject(int fd, char *reason, size_t cap)
{
	struct diag_report d = {0};
	struct net_oob_msg m;
	int rc = net_oob_recv(fd, &m, 30000, &d);

	if (rc)
		return rc;
	net_oob_params_release(&m.params);
	if (m.type != NET_OOB_REJECT)
		return -EPROTO;
	snprintf(reason, cap, "%s", m.reason);
	return 0;
}

bool av_heap_bytes(uint64_t *out)
{
#if defined(__SANITIZE_ADDRESS__)
	(void)out;
	return false; /* ASan's allocator keeps freed memory in quarantine */
#else
	struct mallinfo2 mi = mallinfo2();

	*out = (uint64_t)mi.uordblks + (uint64_t)mi.hblkhd;
	return true;
#endif
}
