/* SPDX-License-Identifier: MIT */
/*
 * test_runtime_local.c - the runtime end to end in one process (embedded
 * mode): a RedN-style hash get (tests/runtime/support/hashget_chain.c) is
 * written as YAML, opened, re-verified, loaded, instantiated per client
 * connection, invoked through prism_client and checked against the plain C
 * reference; plus the bad-input and lifecycle cases of issue 5 item 8.
 *
 * Every body runs once per backend of the list in main(): the sim; the mlx5
 * backend over the PRM-level emulator (tests/mlx5emu/), which must give the
 * same results through DEVX commands, umem rings and UAR doorbells; and the
 * mlx5 backend on a real device, when the machine has one (else every body
 * of that group skips, saying why, as tests/rules does).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <prism/prism.h>

#include "chain/chainobj.h"
#include "core/backend.h"
#include "core/client.h"
#include "core/core.h"
#include "tests/mlx5emu/mlx5emu.h"
#include "tests/runtime/support/hashget_chain.h"
#include "tests/support/backend_filter.h"

#define NB         256u
#define TABLE_SIZE (NB * (HG_BUCKET_BYTES + HG_VALUE_BYTES) + 4096u)

struct fx {
	struct prism_device *dev;
	struct prism_region *table;
	struct prism_program *prog;
	struct prism_server *srv;
	struct hg_table t;
	uint32_t keys[NB];
	char *yaml;
	size_t yaml_len;
	char last_log[512];
};

static struct fx *g_fx;

/* The backend under test: a device name, and what sets it up. */
struct backend {
	const char *group;  /* cmocka group name */
	const char *device; /* prism_device__open name */
	bool emulated;      /* mlx5 over the emulator */
	bool hardware;      /* a real mlx5 device: skip without one */
};
static const struct backend *g_be;

/* The test's fixture; no fixture means no hardware for this group: skip. */
static struct fx *fixture(void **state)
{
	if (!*state) {
		print_message("hw: skipped: no mlx5 RDMA device (rdma-core lists none)\n");
		skip();
	}
	return *state;
}

static void keep_log(enum prism_log_level level, const char *msg, void *ctx)
{
	struct fx *f = ctx;

	(void)level;
	snprintf(f->last_log, sizeof(f->last_log), "%s", msg);
	if (getenv("PRISM_TEST_LOG"))
		fprintf(stderr, "log: %s\n", msg);
}

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* @threaded: the sim NIC runs on its own thread (servers). */
static int setup_device(void **state, bool threaded)
{
	if (g_be->hardware) {
		char names[1][64];

		if (core_mlx5_device_names(names, 1) < 1) {
			*state = NULL; /* the body skips (cmocka cannot skip from a setup) */
			return 0;
		}
	}

	struct fx *f = calloc(1, sizeof(*f));
	struct chainobj *o;
	uint64_t s = 42;

	assert_non_null(f);
	prism_set_log_fn(keep_log, f, PRISM_LOG_DEBUG);
	PRISM_OPTS(prism_device_opts, dopts, .seed = 7, .threaded = threaded);
	f->dev = prism_device__open(g_be->device, &dopts);
	assert_non_null(f->dev);
	PRISM_OPTS(prism_region_opts, ropts, .access = PRISM_ACCESS_READ);
	f->table = prism_device__create_region(f->dev, "table", TABLE_SIZE, &ropts);
	assert_non_null(f->table);
	f->t = (struct hg_table){prism_region__addr(f->table), TABLE_SIZE, NB};
	for (uint32_t i = 0; i < NB; i++)
		f->keys[i] = (i % 5 == 4) ? 0 : (uint32_t)(rng(&s) & 0xffffff) | 1;
	hg_fill(&f->t, f->keys, (uintptr_t)f->t.mem, 99);

	o = hg_build(TABLE_SIZE);
	assert_non_null(o);
	assert_int_equal(chainobj_write_mem(o, 0, &f->yaml, &f->yaml_len, NULL), 0);
	chainobj_free(o);
	f->prog = prism_program__open_mem(f->yaml, f->yaml_len, NULL);
	assert_non_null(f->prog);
	assert_int_equal(prism_program__load(f->prog, f->dev), 0);
	PRISM_OPTS(prism_server_opts, sopts, .rearm = PRISM_REARM_CPU);
	f->srv = prism_server__create(f->dev, &sopts);
	assert_non_null(f->srv);
	assert_int_equal(prism_server__add_program(f->srv, f->prog), 0);
	g_fx = f;
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_device(state, false);
}

static int setup_threaded(void **state)
{
	return setup_device(state, true);
}

static int teardown(void **state)
{
	struct fx *f = *state;

	if (!f) /* setup skipped (no hardware) */
		return 0;

	prism_server__destroy(f->srv);
	prism_program__close(f->prog);
	prism_device__close(f->dev);
	free(f->yaml);
	free(f);
	prism_set_log_fn(NULL, NULL, PRISM_LOG_WARN);
	return 0;
}

/* Key for a random case: hit, miss on an empty bucket, or collision. */
static uint32_t pick(struct fx *f, uint64_t *s, uint32_t *b, int *kind)
{
	*b = (uint32_t)(rng(s) % NB);
	*kind = (int)(rng(s) % 3);
	if (*kind == 0 && f->keys[*b])
		return f->keys[*b]; /* hit */
	if (*kind == 1)
		return f->keys[(*b + 1) % NB] ? f->keys[(*b + 1) % NB] : 7; /* another's key */
	*kind = 2;
	return (uint32_t)(rng(s) & 0xffffff) | 0x800000; /* absent key */
}

static void test_hash_get_matches_reference(void **state)
{
	struct fx *f = fixture(state);
	struct prism_client *cl;
	uint64_t s = 1234;
	unsigned hits = 0, misses = 0;

	PRISM_OPTS(prism_client_opts, copts, .program = "hash_get");
	cl = prism_client__connect_local(f->srv, &copts);
	assert_non_null(cl);
	assert_int_equal(prism_client__find_entry(cl, "get"), 0);
	assert_int_equal(prism_client__param_count(cl, 0), 2);
	for (unsigned i = 0; i < 10000; i++) {
		uint8_t out[HG_VALUE_BYTES + 8], want[HG_VALUE_BYTES];
		struct prism_arg args[2];
		struct prism_call c;
		uint32_t b;
		int kind;
		uint32_t key = pick(f, &s, &b, &kind);

		hg_get_call(&c, args, key, b, out);
		memset(out, 0xee, sizeof(out));
		int rc = prism_client__invoke(cl, &c, NULL);
		if (rc)
			fail_msg("invocation %u: %s (%s)", i, prism_strerror(rc), f->last_log);
		hg_reference(&f->t, b, key, want);
		if (memcmp(out, want, HG_VALUE_BYTES))
			fail_msg("invocation %u: bucket %u key 0x%06x: result differs", i, b, key);
		if (want[0] | want[1] | want[2] | want[3])
			hits++;
		else
			misses++;
	}
	assert_true(hits > 2000 && misses > 2000);
	struct prism_server_stats st = {.sz = sizeof(st)};
	assert_int_equal(prism_server__stats(f->srv, &st), 0);
	/* The server counts an invocation when its loop polls the completion;
	 * a NIC that runs by itself (mlx5) may answer the client first, so the
	 * last one may still be uncounted there. */
	assert_true(st.invocations >= (g_be->emulated ? 9999u : 10000u));
	assert_int_equal(st.conns_active, 1);
	prism_client__close(cl);
}

static void test_batch(void **state)
{
	struct fx *f = fixture(state);
	struct prism_client *cl = prism_client__connect_local(f->srv, NULL);
	enum { N = 40 };
	struct prism_call calls[N];
	struct prism_arg args[N][2];
	uint8_t out[N][HG_VALUE_BYTES + 8], want[HG_VALUE_BYTES];
	uint32_t key[N], b[N];
	uint64_t s = 77;

	assert_non_null(cl);
	for (int i = 0; i < N; i++) {
		int kind;

		key[i] = pick(f, &s, &b[i], &kind);
		hg_get_call(&calls[i], args[i], key[i], b[i], out[i]);
	}
	assert_int_equal(prism_client__invoke_batch(cl, calls, N, NULL), N);
	for (int i = 0; i < N; i++) {
		assert_int_equal(calls[i].status, 0);
		hg_reference(&f->t, b[i], key[i], want);
		assert_memory_equal(out[i], want, HG_VALUE_BYTES);
	}
	prism_client__close(cl);
}

/*
 * A started server on a threaded NIC: the NIC, the server's progress loop
 * (re-arming windows) and the client thread (sending the next requests the
 * moment answers arrive) all run at once.  A new request used to be able to
 * run the control queue's fresh window and ENABLE the worker before the
 * worker's doorbell record counted that window: the worker never ran and
 * the invocation timed out after a few thousand gets.  Batches of 16 over
 * 20,000 gets, every answer checked.
 */
static void test_threaded_nic_started_server(void **state)
{
	struct fx *f = fixture(state);
	struct prism_client *cl;
	enum { B = 16, GETS = 20000 };
	struct prism_call calls[B];
	struct prism_arg args[B][2];
	uint8_t out[B][HG_VALUE_BYTES + 8], want[HG_VALUE_BYTES];
	uint32_t key[B], b[B];
	uint64_t s = 4242;

	assert_int_equal(prism_server__start(f->srv), 0);
	cl = prism_client__connect_local(f->srv, NULL);
	assert_non_null(cl);
	for (int done = 0; done < GETS; done += B) {
		for (int i = 0; i < B; i++) {
			int kind;

			key[i] = pick(f, &s, &b[i], &kind);
			hg_get_call(&calls[i], args[i], key[i], b[i], out[i]);
		}
		if (prism_client__invoke_batch(cl, calls, B, NULL) != B)
			fail_msg("batch at get %d: %s", done, prism_strerror(calls[B - 1].status));
		for (int i = 0; i < B; i++) {
			hg_reference(&f->t, b[i], key[i], want);
			assert_memory_equal(out[i], want, HG_VALUE_BYTES);
		}
	}
	prism_client__close(cl);
}

static void test_bad_arguments_rejected_client_side(void **state)
{
	struct fx *f = fixture(state);
	struct prism_client *cl = prism_client__connect_local(f->srv, NULL);
	uint8_t out[HG_VALUE_BYTES + 8];
	struct prism_arg args[2];
	struct prism_call c;

	assert_non_null(cl);
	hg_get_call(&c, args, 0x1000000, 0, out); /* 25-bit key into a 3-byte parameter */
	assert_int_equal(prism_client__invoke(cl, &c, NULL), -PRISM_E_ARGS);
	hg_get_call(&c, args, 1, 0, out);
	args[1].u64 = TABLE_SIZE; /* offset past the region */
	assert_int_equal(prism_client__invoke(cl, &c, NULL), -PRISM_E_ARGS);
	hg_get_call(&c, args, 1, 0, out);
	args[1].name = "adr";
	assert_int_equal(prism_client__invoke(cl, &c, NULL), -PRISM_E_ARGS);
	hg_get_call(&c, args, 1, 0, out);
	c.entry = "put";
	assert_int_equal(prism_client__invoke(cl, &c, NULL), -PRISM_E_NOENTRY);
	/* Still usable. */
	hg_get_call(&c, args, f->keys[0] ? f->keys[0] : 5, 0, out);
	assert_int_equal(prism_client__invoke(cl, &c, NULL), 0);
	prism_client__close(cl);
}

/* One good client keeps working while another misbehaves. */
static void check_good_client(struct fx *f, struct prism_client *good)
{
	uint8_t out[HG_VALUE_BYTES + 8], want[HG_VALUE_BYTES];
	struct prism_arg args[2];
	struct prism_call c;

	for (uint32_t b = 0; b < 8; b++) {
		hg_get_call(&c, args, f->keys[b] ? f->keys[b] : 3, b, out);
		assert_int_equal(prism_client__invoke(good, &c, NULL), 0);
		hg_reference(&f->t, b, f->keys[b] ? f->keys[b] : 3, want);
		assert_memory_equal(out, want, HG_VALUE_BYTES);
	}
}

static void test_wrong_size_only_that_connection_fails(void **state)
{
	struct fx *f = fixture(state);
	struct prism_client *good = prism_client__connect_local(f->srv, NULL);
	struct prism_client *bad = prism_client__connect_local(f->srv, NULL);
	uint8_t junk[64] = {0};
	struct prism_call c = {.sz = sizeof(c)};

	assert_non_null(good);
	assert_non_null(bad);
	check_good_client(f, good);
	/* 64 bytes into an 11-byte receive: the server's RECV fails (length error). */
	assert_int_equal(core_client_send_raw(bad, junk, sizeof(junk), &c), 0);
	int rc = core_client_wait(bad, 0, 2000);
	assert_true(rc < 0);
	check_good_client(f, good);
	struct prism_server_stats st = {.sz = sizeof(st)};
	prism_server__stats(f->srv, &st);
	assert_int_equal(st.conns_active, 1);
	assert_true(st.conns_failed >= 1);
	prism_client__close(bad);
	prism_client__close(good);
}

static void test_hostile_address_stays_in_region(void **state)
{
	struct fx *f = fixture(state);
	struct prism_client *good = prism_client__connect_local(f->srv, NULL);
	struct prism_client *bad = prism_client__connect_local(f->srv, NULL);
	/* Server memory the program never declared: a bucket that would match,
	 * pointing at a secret value. */
	static uint8_t bucket[HG_BUCKET_BYTES], secret[HG_VALUE_BYTES];
	uint8_t msg[11], zero[HG_VALUE_BYTES] = {0};
	struct prism_call c = {.sz = sizeof(c)};
	uint8_t out[HG_VALUE_BYTES + 8];
	uint64_t a = (uintptr_t)bucket, v = (uintptr_t)secret;

	assert_non_null(good);
	assert_non_null(bad);
	memset(secret, 0x5e, sizeof(secret));
	bucket[0] = 0x12, bucket[1] = 0x34, bucket[2] = 0x56;
	for (int i = 0; i < 8; i++)
		bucket[3 + i] = (uint8_t)(v >> (56 - 8 * i));
	msg[0] = 0x56, msg[1] = 0x34, msg[2] = 0x12; /* key 0x123456, little-endian */
	for (int i = 0; i < 8; i++)
		msg[3 + i] = (uint8_t)(a >> (56 - 8 * i));
	c.result = out;
	c.result_cap = sizeof(out);
	memset(out, 0, sizeof(out));
	assert_int_equal(core_client_send_raw(bad, msg, sizeof(msg), &c), 0);
	core_client_wait(bad, 0, 2000);
	/* Whatever came back, it is not the secret: the READ used the table's key. */
	assert_memory_equal(out, zero, HG_VALUE_BYTES);
	assert_memory_not_equal(out, secret, 8);
	check_good_client(f, good);
	struct prism_server_stats st = {.sz = sizeof(st)};
	prism_server__stats(f->srv, &st);
	assert_true(st.conns_failed >= 1); /* the remote access error tore it down */
	assert_int_equal(st.conns_active, 1);
	prism_client__close(bad);
	prism_client__close(good);
}

static void test_connect_disconnect_cycles(void **state)
{
	struct fx *f = fixture(state);
	struct prism_server_stats st = {.sz = sizeof(st)};

	for (int i = 0; i < 1000; i++) {
		struct prism_client *cl = prism_client__connect_local(f->srv, NULL);

		assert_non_null(cl);
		if (i % 100 == 0)
			check_good_client(f, cl);
		prism_client__close(cl);
	}
	prism_server__stats(f->srv, &st);
	assert_int_equal(st.conns_active, 0);
	assert_true(st.bytes_per_conn > 0);
}

static void test_tampered_object_rejected(void **state)
{
	struct fx *f = fixture(state);
	char *copy = malloc(f->yaml_len + 1);
	char *p;

	assert_non_null(copy);
	memcpy(copy, f->yaml, f->yaml_len);
	copy[f->yaml_len] = 0;
	/* Widen the READ's scatter: an edit a naive attacker would try. */
	p = strstr(copy, "wr-per-invocation: 10");
	assert_non_null(p);
	p[20] = '1';
	errno = 0;
	assert_null(prism_program__open_mem(copy, f->yaml_len, NULL));
	assert_int_equal(errno, PRISM_E_FORMAT);
	assert_non_null(strstr(f->last_log, "checksum"));
	/* Garbage and truncation. */
	assert_null(prism_program__open_mem("prism-chain: [", 14, NULL));
	assert_null(prism_program__open_mem(f->yaml, f->yaml_len / 2, NULL));
	free(copy);
}

/* A chain whose WQEs rely on a fenced SEND_EN (a recycled lap) loads on a
 * device whose behaviour probe confirmed it (the sim's), and is refused on
 * one whose probe did not (a stand-in for a NIC that says no). */
static void test_load_refuses_unconfirmed_assumption(void **state)
{
	struct fx *f = fixture(state);
	static uint8_t nodes[327680];
	struct prism_device *dev[2];

	for (int i = 0; i < 2; i++) {
		dev[i] = prism_device__open(NULL, NULL);
		assert_non_null(dev[i]);
		PRISM_OPTS(prism_region_opts, ro, .access = PRISM_ACCESS_READ);
		assert_non_null(
		    prism_device__register_region(dev[i], "nodes", nodes, sizeof(nodes), &ro));
	}
	dev[1]->probed = true; /* the probe ran, and said no */
	dev[1]->probe.v[CORE_PROBE_FENCED_ENABLE] = CORE_PROBE_NO;
	snprintf(dev[1]->probe.detail[CORE_PROBE_FENCED_ENABLE], sizeof(dev[1]->probe.detail[0]),
	         "the enabled WRITE carried its old bytes");
	dev[1]->probe.v[CORE_PROBE_SEND_EN_BB_UNITS] = CORE_PROBE_YES;
	for (int i = 0; i < 2; i++) {
		/* a seed compiled before the request gate existed */
		PRISM_OPTS(prism_program_opts, po, .allow_ungated = true);
		struct prism_program *prog = prism_program__open_file(
		    "tests/fuzz/seeds/fuzz_chainobj/recycled_walk_fenced.chain", &po);
		assert_non_null(prog);
		assert_int_equal(prism_program__load(prog, dev[i]), i ? -PRISM_E_ASSUME : 0);
		if (i)
			assert_non_null(strstr(f->last_log,
			                       "it assumes fenced-enable, which device sim "
			                       "does not confirm (the enabled WRITE carried "
			                       "its old bytes)"));
		prism_program__close(prog);
		prism_device__close(dev[i]);
	}
}

static void test_load_needs_regions(void **state)
{
	struct fx *f = fixture(state);
	struct prism_device *dev = prism_device__open(NULL, NULL);
	struct prism_program *prog = prism_program__open_mem(f->yaml, f->yaml_len, NULL);
	static uint8_t small[64];

	char path[] = "/tmp/prism-load-XXXXXX", want[160];
	const char *decl = strstr(f->yaml, "\n  - {name: table,");
	unsigned line = 2; /* the line after the newline found */
	struct prism_program *from_file;
	FILE *out;
	int fd;

	assert_non_null(dev);
	assert_non_null(prog);
	assert_non_null(decl);
	for (const char *c = f->yaml; c < decl; c++)
		line += *c == '\n';
	assert_int_equal(prism_program__load(prog, dev), -PRISM_E_NOREGION);
	/* the region is named with where the object declares it */
	snprintf(want, sizeof(want),
	         "region 'table' (%u bytes, declared at line %u of the object) "
	         "is not registered on device sim",
	         TABLE_SIZE, line);
	if (!strstr(f->last_log, want))
		fail_msg("wanted \"%s\", got \"%s\"", want, f->last_log);
	fd = mkstemp(path);
	out = fdopen(fd, "w");
	assert_non_null(out);
	assert_int_equal(fwrite(f->yaml, 1, f->yaml_len, out), f->yaml_len);
	fclose(out);
	from_file = prism_program__open_file(path, NULL);
	assert_non_null(from_file);
	assert_int_equal(prism_program__load(from_file, dev), -PRISM_E_NOREGION);
	snprintf(want, sizeof(want), "(%u bytes, declared at %s:%u)", TABLE_SIZE, path, line);
	if (!strstr(f->last_log, want))
		fail_msg("wanted \"%s\", got \"%s\"", want, f->last_log);
	prism_program__close(from_file);
	unlink(path);
	PRISM_OPTS(prism_region_opts, ro, .access = PRISM_ACCESS_WRITE | PRISM_ACCESS_ATOMIC);
	assert_non_null(prism_device__register_region(dev, "table", small, sizeof(small), &ro));
	assert_int_equal(prism_program__load(prog, dev), -PRISM_E_REGION);
	/* the access masks are named, not printed as numbers */
	assert_non_null(strstr(f->last_log, "is 64 bytes with access write|atomic; the program "
	                                    "declares"));
	assert_non_null(strstr(f->last_log, "bytes with access read, declared at line"));
	prism_program__close(prog);
	prism_device__close(dev);
}

static void test_region_registry(void **state)
{
	struct fx *f = fixture(state);
	static uint8_t mem[128];
	struct prism_region *r;

	assert_null(prism_device__register_region(f->dev, "table", mem, sizeof(mem), NULL));
	assert_int_equal(errno, PRISM_E_EXISTS);
	assert_null(prism_device__register_region(f->dev, "bad name", mem, sizeof(mem), NULL));
	assert_int_equal(errno, EINVAL);
	r = prism_device__register_region(f->dev, "scratch2", mem, sizeof(mem), NULL);
	assert_non_null(r);
	assert_ptr_equal(prism_device__find_region(f->dev, "scratch2"), r);
	assert_int_equal(prism_region__fd(r), -EBADF);
	assert_true(prism_region__fd(f->table) >= 0);
	/* The loaded program holds the table. */
	assert_int_equal(prism_region__unregister(f->table), -PRISM_E_BUSY);
	assert_int_equal(prism_region__unregister(r), 0);
	assert_null(prism_device__find_region(f->dev, "scratch2"));
}

static void test_devices(void **state)
{
	const char *names[4];

	(void)state;
	assert_true(prism_list_devices(names, 4) >= 1);
	assert_string_equal(names[0], "sim");
	assert_null(prism_device__open("mlx9_9", NULL));
	assert_int_equal(errno, PRISM_E_NODEV);
	PRISM_OPTS(prism_device_opts, o, .firmware = "lenient");
	assert_null(prism_device__open("sim", &o));
	assert_int_equal(errno, PRISM_E_CONFIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_devices),
	    cmocka_unit_test_setup_teardown(test_region_registry, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_hash_get_matches_reference, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_batch, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_threaded_nic_started_server, setup_threaded,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_bad_arguments_rejected_client_side, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_wrong_size_only_that_connection_fails, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_hostile_address_stays_in_region, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_connect_disconnect_cycles, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tampered_object_rejected, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_load_needs_regions, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_load_refuses_unconfirmed_assumption, setup,
	                                    teardown),
	};

	static const struct backend backends[] = {
	    {"runtime_local (sim)", "sim", false, false},
	    {"runtime_local (mlx5 over the emulator)", "mlx5_0", true, false},
	    {"runtime_local (mlx5 hardware)", "mlx5", false, true},
	};
	int failed = 0;

	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		g_be = &backends[i];
		if (!test_backend_selected(g_be->group))
			continue;
		if (g_be->emulated)
			mlx5emu_install(&(struct mlx5emu_opts){.relaxed_fw = true, .seed = 7});
		failed += _cmocka_run_group_tests(g_be->group, tests,
		                                  sizeof(tests) / sizeof(tests[0]), NULL, NULL);
		if (g_be->emulated && mlx5emu_finish())
			failed++; /* each failure is on stderr */
	}
	return failed;
}
