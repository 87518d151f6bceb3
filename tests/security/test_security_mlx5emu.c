/* SPDX-License-Identifier: MIT */
/*
 * test_security_mlx5emu.c - the request gate on the mlx5 backend, over the
 * PRM-level emulator (tests/mlx5emu/): a server serving `put`
 * (lib/chains/prism_ops.prism, PRISM ALLOCATE) on an emulated ConnectX, and
 * clients on it.  The server's client-facing QP is moved to the error state
 * underneath the runtime, as the NIC does by itself when its client
 * provokes a remote access error or never acknowledges an answer; the
 * emulated NIC then flushes the posted receives (error CQEs, buffers
 * unwritten), each flush completion releases a pre-posted invocation's
 * entry WAIT, and the request gate (a wait-on-data on the receive CQE's
 * opcode) must hold every one: the free-list cursor and every region byte
 * stay as they were, and another client is served afterwards.
 *
 * SECEMU_PRISMC_FLAGS=" --no-request-gate" compiles `put` without the gate
 * (loaded with allow_ungated): the test then fails, most runs, with the
 * cursor moved by flushed receives (what the gate is for).
 */
#include <libgen.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <prism/prism.h>

#include "core/inst.h"
#include "core/server.h"
#include "tests/mlx5emu/mlx5emu.h"

#define N_OBJECTS 4096u
#define OBJ_BYTES 16u

static struct {
	char tmpdir[64];
	struct prism_device *sdev, *cdev;
	struct prism_server *srv;
	struct prism_region *all[8], *objects;
	unsigned n_all;
	char addr[32];
} S;

static struct prism_region *region(const char *name, uint64_t size, unsigned access)
{
	PRISM_OPTS(prism_region_opts, ro, .access = access);
	struct prism_region *r = prism_device__create_region(S.sdev, name, size, &ro);

	assert_non_null(r);
	S.all[S.n_all++] = r;
	return r;
}

static uint64_t cursor(void)
{
	uint64_t c;

	memcpy(&c, prism_region__addr(S.objects), 8);
	return c;
}

static int setup(void **state)
{
	const unsigned rw = PRISM_ACCESS_READ | PRISM_ACCESS_WRITE | PRISM_ACCESS_ATOMIC;
	PRISM_OPTS(prism_server_opts, sv, .port = PRISM_PORT_ANY, .host = "127.0.0.1");
	char self[512], cmd[1400], path[256];
	struct prism_region *heap;
	struct prism_program *p;
	ssize_t n;
	uint8_t *o;

	(void)state;
	if (getenv("PRISM_TEST_LOG"))
		prism_set_log_fn(prism_log_stderr, NULL, PRISM_LOG_DEBUG);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = 0;
	snprintf(S.tmpdir, sizeof(S.tmpdir), "/tmp/prism-secemu-XXXXXX");
	assert_non_null(mkdtemp(S.tmpdir));
	snprintf(path, sizeof(path), "%s/put.chain", S.tmpdir);
	/* prismc sits next to the tests directory: build/tests/x -> build/prismc */
	snprintf(cmd, sizeof(cmd),
	         "%s/../prismc compile lib/chains/prism_ops.prism --entry put%s -o %s",
	         dirname(self), getenv("SECEMU_PRISMC_FLAGS") ? getenv("SECEMU_PRISMC_FLAGS") : "",
	         path);
	assert_int_equal(system(cmd), 0);
	mlx5emu_install(&(struct mlx5emu_opts){.relaxed_fw = true});
	S.cdev = prism_device__open("mlx5_0", NULL);
	assert_non_null(S.cdev);
	PRISM_OPTS(prism_program_opts, po, .allow_ungated = getenv("SECEMU_PRISMC_FLAGS") != NULL);
	p = prism_program__open_file(path, &po);
	assert_non_null(p);
	unlink(path);
	rmdir(S.tmpdir);
	/* The backend's behaviour probe lets the emulated NIC run for a fixed
	 * 20 ms; on a loaded machine its thread may not run that soon, and a
	 * probe `put` relies on (send-en-bb-units) reads as unconfirmed.  A
	 * fresh open probes again. */
	for (int tries = 0;; tries++) {
		int rc;

		S.sdev = prism_device__open("mlx5_0", NULL);
		assert_non_null(S.sdev);
		S.n_all = 0;
		/* every region lib/chains/prism_ops.prism declares, at its size */
		heap = region("heap", 1u << 20, rw);
		region("meta", 2048, rw);
		region("locks", 1024, rw);
		region("ranges", 16384, PRISM_ACCESS_READ);
		region("values", 65536, PRISM_ACCESS_READ);
		S.objects = region("objects", 8 + N_OBJECTS * 8, rw);
		rc = prism_program__load(p, S.sdev);
		if (rc == 0)
			break;
		assert_int_equal(rc, -PRISM_E_ASSUME);
		assert_true(tries < 4);
		prism_device__close(S.sdev);
	}
	/* the free list: a le64 cursor, then be64 buffer pointers into heap */
	o = prism_region__addr(S.objects);
	for (uint32_t i = 0; i < N_OBJECTS; i++) {
		uint64_t b = __builtin_bswap64((uintptr_t)prism_region__addr(heap) + i * OBJ_BYTES);

		memcpy(o + 8 + (size_t)i * 8, &b, 8);
	}
	uint64_t c = (uintptr_t)o + 8;

	memcpy(o, &c, 8);
	S.srv = prism_server__create(S.sdev, &sv);
	assert_non_null(S.srv);
	assert_int_equal(prism_server__add_program(S.srv, p), 0);
	prism_program__close(p);
	assert_int_equal(prism_server__start(S.srv), 0);
	snprintf(S.addr, sizeof(S.addr), "127.0.0.1:%d", prism_server__port(S.srv));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	prism_server__destroy(S.srv);
	prism_device__close(S.cdev);
	prism_device__close(S.sdev);
	assert_int_equal(mlx5emu_finish(), 0);
	return 0;
}

static void put(struct prism_client *cl)
{
	struct prism_arg args[2] = {{.name = "version", .u64 = 3}, {.name = "len", .u64 = 8}};
	PRISM_OPTS(prism_call, c, .entry = "put", .args = args, .nargs = 2);

	assert_int_equal(prism_client__invoke(cl, &c, NULL), 0);
}

static uint64_t conns_active(void)
{
	PRISM_OPTS(prism_server_stats, st);

	assert_int_equal(prism_server__stats(S.srv, &st), 0);
	return st.conns_active;
}

/* Move the server's client-facing QP of its only connection to ERR, as the
 * NIC does when that connection's client provokes an error. */
static void fail_conn_qp(void)
{
	struct core_server_shard *sh = &S.srv->shards[0];
	struct core_inst *in;

	/* the NIC answers by itself: the first answer can arrive before the
	 * setup thread has linked the connection into its shard */
	for (int i = 0; i < 5000 && !conns_active(); i++)
		usleep(1000);
	pthread_mutex_lock(&sh->lock);
	assert_non_null(sh->conns);
	assert_null(sh->conns->next);
	in = sh->conns->inst;
	assert_int_equal(
	    in->dev->ops->modify_qp(in->qps[in->prog->conn_queue].qp, CORE_QPS_ERR, NULL), 0);
	pthread_mutex_unlock(&sh->lock);
}

static void test_flush_runs_nothing_on_mlx5(void **state)
{
	PRISM_OPTS(prism_client_opts, co, .program = "put");
	uint8_t *before[8];
	struct prism_client *cl;
	uint64_t start = cursor();

	(void)state;
	for (int round = 0; round < 3; round++) {
		cl = prism_client__connect(S.cdev, S.addr, &co);
		assert_non_null(cl);
		put(cl); /* a real request: exactly one buffer */
		assert_int_equal(cursor(), start + 8);
		for (unsigned i = 0; i < S.n_all; i++) {
			before[i] = malloc(prism_region__size(S.all[i]));
			assert_non_null(before[i]);
			memcpy(before[i], prism_region__addr(S.all[i]),
			       prism_region__size(S.all[i]));
		}
		fail_conn_qp(); /* 15 or more posted receives flush */
		for (int i = 0; i < 5000 && conns_active(); i++)
			usleep(1000);
		assert_int_equal(conns_active(), 0);
		usleep(20000); /* anything a flush could still start would have run */
		assert_int_equal(cursor(), start + 8);
		for (unsigned i = 0; i < S.n_all; i++) {
			assert_memory_equal(before[i], prism_region__addr(S.all[i]),
			                    prism_region__size(S.all[i]));
			free(before[i]);
		}
		prism_client__close(cl);
		start = cursor();
	}
	/* another client is served correctly */
	cl = prism_client__connect(S.cdev, S.addr, &co);
	assert_non_null(cl);
	put(cl);
	assert_int_equal(cursor(), start + 8);
	prism_client__close(cl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flush_runs_nothing_on_mlx5),
	};

	return cmocka_run_group_tests_name("security (mlx5 over the emulator)", tests, setup,
	                                   teardown);
}
