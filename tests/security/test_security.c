/* SPDX-License-Identifier: MIT */
/*
 * test_security.c - adversarial clients against a prism server over the
 * TCP transport (docs/security.md), one test per attack.  The server runs
 * lib/chains/prism_ops.prism's `publish` (cas_gt on a tagged word) and
 * `put` (PRISM ALLOCATE); a raw client (raw_client.h) speaks the transport
 * with its own RNIC and tries what a hostile host could: one-sided READ,
 * WRITE and atomics with every key it could know or guess, against an
 * undeclared region, a declared one, another connection's scratch and work
 * queues; and connecting and leaving without a request.  The attacks use
 * the exact keys and addresses, read from the server's internals, so they
 * fail because of what the NIC enforces, not because a key was unknown.
 * Each test asserts the attack failed, memory is unchanged, and an honest
 * client on another connection is still served correctly.
 *
 * Every attack runs on the sim (server, honest client and attacker on
 * three software NICs joined by the TCP transport) and on mlx5 over the
 * PRM emulator (three emulated ConnectX devices: the attacker drives a QP
 * of its own through the backend table; what stops it is what the mlx5
 * backend set up on the NIC: PDs, MR rights, QP rights).
 */
#include <errno.h>
#include <libgen.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <prism/prism.h>

#include "core/client.h"
#include "core/inst.h"
#include "core/server.h"
#include "sim/sim.h"
#include "tests/mlx5emu/mlx5emu.h"
#include "tests/security/raw_client.h"
#include "tests/support/backend_filter.h"

#define N_OBJECTS 4096u
#define OBJ_BYTES 16u
#define SLOT      5u /* the meta slot the honest client publishes to */

static struct {
	char tmpdir[64];
	char prismc[600];
	struct prism_device *sdev, *cdev;
	struct prism_server *srv;
	struct prism_region *meta, *objects, *secret;
	struct prism_region *all[8]; /* every region, for snapshots */
	unsigned n_all;
	int port;
	struct np_dev raw;
	struct prism_client *honest; /* publish, connected for the whole suite */
	uint32_t tag;                /* the honest client's latest tag */
	char *publish;               /* publish's compiled object (YAML) */
	size_t publish_len;
} S;

/* ---- server ---------------------------------------------------------------- */

static int compile_flags(const char *prismc, const char *entry, const char *flags, char *out,
                         size_t cap)
{
	char cmd[1400];

	snprintf(out, cap, "%s/%s.chain", S.tmpdir, entry);
	snprintf(cmd, sizeof(cmd), "%s compile lib/chains/prism_ops.prism --entry %s%s -o %s",
	         prismc, entry, flags, out);
	return system(cmd);
}

static int compile(const char *prismc, const char *entry, char *out, size_t cap)
{
	return compile_flags(prismc, entry, "", out, cap);
}

static struct prism_region *region(const char *name, uint64_t size, unsigned access)
{
	PRISM_OPTS(prism_region_opts, ro, .access = access);
	struct prism_region *r = prism_device__create_region(S.sdev, name, size, &ro);

	assert_non_null(r);
	assert_true(S.n_all < sizeof(S.all) / sizeof(S.all[0]));
	S.all[S.n_all++] = r;
	return r;
}

/* The freelist: a le64 cursor (address of the next free slot), then be64
 * buffer pointers into heap (docs/language.md, "Free lists"). */
static void fill_freelist(struct prism_region *heap)
{
	uint8_t *o = prism_region__addr(S.objects);
	uint64_t cursor = (uintptr_t)o + 8;

	memcpy(o, &cursor, 8);
	for (uint32_t i = 0; i < N_OBJECTS; i++) {
		uint64_t p = __builtin_bswap64((uintptr_t)prism_region__addr(heap) + i * OBJ_BYTES);

		memcpy(o + 8 + (size_t)i * 8, &p, 8);
	}
}

static uint64_t cursor(void)
{
	uint64_t c;

	memcpy(&c, prism_region__addr(S.objects), 8);
	return c;
}

static bool g_emulated; /* this group: mlx5 over the emulator */

static int setup(void **state)
{
	PRISM_OPTS(prism_device_opts, so, .threaded = true, .node = 700);
	PRISM_OPTS(prism_device_opts, co, .threaded = true, .node = 710);
	PRISM_OPTS(prism_server_opts, sv, .port = PRISM_PORT_ANY, .host = "127.0.0.1");
	char self[512], prismc[600], path[256];
	const unsigned rw = PRISM_ACCESS_READ | PRISM_ACCESS_WRITE | PRISM_ACCESS_ATOMIC;
	static const char *const entries[] = {"publish", "put"};
	struct prism_region *heap;
	ssize_t n;

	(void)state;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = 0;
	/* prismc sits next to the tests directory: build/tests/x -> build/prismc */
	snprintf(prismc, sizeof(prismc), "%s/../prismc", dirname(self));
	if (getenv("PRISMC"))
		snprintf(prismc, sizeof(prismc), "%s", getenv("PRISMC"));
	snprintf(S.prismc, sizeof(S.prismc), "%s", prismc);
	snprintf(S.tmpdir, sizeof(S.tmpdir), "/tmp/prism-security-XXXXXX");
	assert_non_null(mkdtemp(S.tmpdir));
	if (getenv("PRISM_TEST_LOG"))
		prism_set_log_fn(prism_log_stderr, NULL, PRISM_LOG_DEBUG);

	if (g_emulated) {
		mlx5emu_install(
		    &(struct mlx5emu_opts){.relaxed_fw = true, .n_devices = 3, .seed = 6});
		S.sdev = prism_device__open("mlx5_0", NULL);
		S.cdev = prism_device__open("mlx5_1", NULL);
	} else {
		S.sdev = prism_device__open("sim", &so);
		S.cdev = prism_device__open("sim", &co);
	}
	assert_non_null(S.sdev);
	assert_non_null(S.cdev);
	heap = region("heap", 1u << 20, rw);
	S.meta = region("meta", 2048, rw);
	region("locks", 1024, rw);
	region("ranges", 16384, PRISM_ACCESS_READ);
	region("values", 65536, PRISM_ACCESS_READ);
	S.objects = region("objects", 8 + N_OBJECTS * 8, rw);
	/* declared by no program: nobody may read it */
	S.secret = region("secret", 4096, rw);
	memset(prism_region__addr(S.secret), 0x5e, 4096);
	fill_freelist(heap);

	S.srv = prism_server__create(S.sdev, &sv);
	assert_non_null(S.srv);
	for (unsigned i = 0; i < 2; i++) {
		struct prism_program *p;

		assert_int_equal(compile(prismc, entries[i], path, sizeof(path)), 0);
		p = prism_program__open_file(path, NULL);
		assert_non_null(p);
		if (i == 0) {
			FILE *f = fopen(path, "rb");

			assert_non_null(f);
			assert_int_equal(fseek(f, 0, SEEK_END), 0);
			S.publish_len = (size_t)ftell(f);
			rewind(f);
			S.publish = malloc(S.publish_len);
			assert_non_null(S.publish);
			assert_int_equal(fread(S.publish, 1, S.publish_len, f), S.publish_len);
			fclose(f);
		}
		assert_int_equal(prism_program__load(p, S.sdev), 0);
		assert_int_equal(prism_server__add_program(S.srv, p), 0);
		prism_program__close(p);
		unlink(path);
	}
	assert_int_equal(prism_server__start(S.srv), 0);
	S.port = prism_server__port(S.srv);
	if (g_emulated)
		assert_int_equal(np_dev_open_backend(&S.raw, &core_mlx5_backend, "mlx5_2"), 0);
	else
		assert_int_equal(np_dev_open(&S.raw, 720), 0);

	PRISM_OPTS(prism_client_opts, cl, .program = "publish");
	char addr[32];

	snprintf(addr, sizeof(addr), "127.0.0.1:%d", S.port);
	S.honest = prism_client__connect(S.cdev, addr, &cl);
	assert_non_null(S.honest);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	prism_client__close(S.honest);
	np_dev_close(&S.raw);
	prism_server__destroy(S.srv);
	prism_device__close(S.cdev);
	prism_device__close(S.sdev);
	free(S.publish);
	rmdir(S.tmpdir);
	memset(&S, 0, sizeof(S)); /* the next group starts afresh */
	if (g_emulated)
		assert_int_equal(mlx5emu_finish(), 0);
	return 0;
}

/* ---- what the attacks aim at ------------------------------------------------- */

static uint64_t *meta_word(uint32_t slot)
{
	return (uint64_t *)prism_region__addr(S.meta) + slot;
}

/* The honest client publishes a newer tag to SLOT: the other clients are
 * served, and served correctly. */
static void honest_served(void)
{
	struct prism_arg args[2] = {
	    {.name = "s", .u64 = SLOT * 8},
	    {.name = "tagged", .u64 = ((uint64_t)++S.tag << 32) | 0x40},
	};
	PRISM_OPTS(prism_call, c, .entry = "publish", .args = args, .nargs = 2);

	assert_int_equal(prism_client__invoke(S.honest, &c, NULL), 0);
	assert_int_equal(*meta_word(SLOT), args[1].u64);
}

/* The server's instance serving the honest client (the victim). */
static struct core_inst *victim(void)
{
	struct core_server_shard *sh = &S.srv->shards[0];
	struct core_inst *in = NULL;

	pthread_mutex_lock(&sh->lock);
	for (struct core_conn *c = sh->conns; c; c = c->next)
		if (c->inst->peer.qpn == S.honest->qp_info.qpn)
			in = c->inst;
	pthread_mutex_unlock(&sh->lock);
	assert_non_null(in);
	return in;
}

static int region_index(const struct core_inst *in, const char *name)
{
	for (uint32_t r = 0; r < in->prog->obj->n_regions; r++)
		if (!strcmp(in->prog->obj->regions[r].name, name))
			return (int)r;
	fail_msg("region %s not declared", name);
	return -1;
}

static int worker_queue(const struct core_inst *in)
{
	for (uint32_t q = 0; q < in->prog->obj->n_queues; q++)
		if (in->prog->obj->queues[q].role == CHAINOBJ_ROLE_WORKER &&
		    in->prog->obj->queues[q].managed_send)
			return (int)q;
	fail_msg("no worker queue");
	return -1;
}

static void connect_raw(struct raw_client *c, const char *program)
{
	assert_int_equal(raw_connect(c, &S.raw, S.port, program), 0);
}

/* The NIC refused the request: a remote access error NAK, or, when the
 * server tore the failed connection down before its NAK left, the link's
 * end (transport retries exhausted).  Either way nothing was served. */
static void assert_access_error(const struct prism_cqe *e)
{
	assert_int_equal(e->opcode, PRISM_CQE_REQ_ERR);
	if (e->syndrome != PRISM_SYND_REMOTE_ACCESS_ERR &&
	    e->syndrome != PRISM_SYND_TRANSPORT_RETRY_EXC_ERR)
		fail_msg("syndrome 0x%x", e->syndrome);
}

/* One READ on a fresh connection (a refused request ends the connection,
 * as on an RNIC: the responder's QP goes to the error state). */
static void read_refused(uint64_t addr, uint32_t rkey, uint32_t len)
{
	struct raw_client a;
	struct prism_cqe e;

	connect_raw(&a, "publish");
	memset(a.q.mem + RAW_DATA_OFF, 0, len);
	assert_int_equal(raw_read(&a, addr, rkey, len, &e), 0);
	assert_access_error(&e);
	for (uint32_t i = 0; i < len; i++)
		assert_int_equal(a.q.mem[RAW_DATA_OFF + i], 0);
	raw_close(&a);
}

static void write_refused(uint64_t addr, uint32_t rkey, const void *src, uint32_t len)
{
	struct raw_client a;
	struct prism_cqe e;

	connect_raw(&a, "publish");
	assert_int_equal(raw_write(&a, addr, rkey, src, len, &e), 0);
	assert_access_error(&e);
	raw_close(&a);
}

/* ---- the attacks ------------------------------------------------------------- */

/* A region no program declares, with its own (device-wide) key. */
static void test_read_undeclared_region(void **state)
{
	(void)state;
	honest_served();
	read_refused((uintptr_t)prism_region__addr(S.secret), S.secret->keys.rkey, 64);
	honest_served();
}

/* A declared region, with the key the victim's own chain uses for it: the
 * client-facing queue serves no READ, whatever the key. */
static void test_read_declared_region(void **state)
{
	struct core_inst *in;

	(void)state;
	honest_served();
	in = victim();
	read_refused((uintptr_t)prism_region__addr(S.meta),
	             in->regions[region_index(in, "meta")].keys.rkey, 64);
	read_refused((uintptr_t)prism_region__addr(S.meta), S.meta->keys.rkey, 64);
	honest_served();
}

/* cas_gt keeps a tag from going back; a plain WRITE must not either. */
static void test_cas_gt_rollback_by_write(void **state)
{
	uint64_t old = (1ull << 32) | 0x40, now;
	struct core_inst *in;
	struct raw_client a;
	uint8_t msg[64] = {0};

	(void)state;
	honest_served();
	now = *meta_word(SLOT);
	in = victim();
	write_refused((uintptr_t)meta_word(SLOT), in->regions[region_index(in, "meta")].keys.rkey,
	              &old, 8);
	write_refused((uintptr_t)meta_word(SLOT), S.meta->keys.rkey, &old, 8);
	assert_int_equal(*meta_word(SLOT), now);
	/* through the program itself the older tag is refused by cas_gt */
	connect_raw(&a, "publish");
	for (uint32_t p = 0; p < a.w.entries[0].n_params; p++) {
		const struct core_param_desc *d = &a.w.entries[0].params[p];
		uint64_t v = d->type == CHAINOBJ_PT_ADDR ? d->region_base + SLOT * 8 : old;

		chainobj_put_uint(msg + d->msg_offset, d->width, (enum chainobj_order)d->order, v);
	}
	assert_int_equal(raw_invoke(&a, msg, a.w.entries[0].msg_size), 0);
	assert_int_equal(*meta_word(SLOT), now);
	raw_close(&a);
	honest_served();
}

/* Another connection's scratch area and work queue buffer. */
static void test_read_other_connection(void **state)
{
	struct core_inst *in;
	int w;

	(void)state;
	honest_served();
	in = victim();
	w = worker_queue(in);
	read_refused((uintptr_t)in->scratch, in->scratch_keys.rkey, 16);
	read_refused((uintptr_t)in->qps[w].info.buf + in->qps[w].info.sq_offset,
	             in->qps[w].keys.rkey, 64);
	honest_served();
}

/* Overwriting another connection's posted WQEs (to make its chain do
 * something else): refused, the ring unchanged, the victim still right. */
static void test_overwrite_work_queue(void **state)
{
	uint8_t junk[64], before[256];
	struct core_inst *in;
	uint8_t *ring;
	int w;

	(void)state;
	honest_served();
	in = victim();
	w = worker_queue(in);
	ring = (uint8_t *)in->qps[w].info.buf + in->qps[w].info.sq_offset;
	memset(junk, 0xff, sizeof(junk));
	/* the server re-arms the victim after its answer: wait until the ring
	 * holds still */
	memcpy(before, ring, sizeof(before));
	for (int i = 0; i < 100; i++) {
		usleep(20000);
		if (!memcmp(before, ring, sizeof(before)))
			break;
		memcpy(before, ring, sizeof(before));
	}
	write_refused((uintptr_t)ring, in->qps[w].keys.rkey, junk, sizeof(junk));
	write_refused((uintptr_t)ring + 64, in->qps[w].keys.rkey, junk, sizeof(junk));
	assert_memory_equal(ring, before, sizeof(before));
	honest_served();
}

/* Keys cannot be guessed from each other, and a guess buys nothing. */
static void test_guess_keys(void **state)
{
	struct sim_dev *dev;
	struct sim_mr *mr[64];
	uint32_t keys[64], again;
	uint8_t buf[64];
	unsigned same_step = 0;

	(void)state;
	if (g_emulated) /* an mlx5 NIC's keys are index << 8 | variant: nothing to check */
		goto guesses;
	assert_int_equal(
	    sim_dev_open(&(struct sim_dev_opts){.sz = sizeof(struct sim_dev_opts)}, &dev), 0);
	for (unsigned i = 0; i < 64; i++) {
		assert_int_equal(sim_mr_reg(dev, buf, sizeof(buf), 0, &mr[i]), 0);
		keys[i] = sim_mr_rkey(mr[i]);
		for (unsigned j = 0; j < i; j++)
			assert_int_not_equal(keys[i], keys[j]);
		if (i >= 2 && keys[i] - keys[i - 1] == keys[i - 1] - keys[i - 2])
			same_step++;
	}
	assert_true(same_step < 2); /* not a counter, not slot << 8 | generation */
	/* the same slot registered again gets an unrelated key */
	assert_int_equal(sim_mr_dereg(mr[10]), 0);
	assert_int_equal(sim_mr_reg(dev, buf, sizeof(buf), 0, &mr[10]), 0);
	again = sim_mr_rkey(mr[10]);
	assert_int_not_equal(again, keys[10]);
	assert_int_not_equal(again & 0xffffff00u, keys[10] & 0xffffff00u);
	sim_dev_close(dev);

guesses:
	/* the old scheme's keys (slot << 8 | gen) and a random one */
	honest_served();
	read_refused((uintptr_t)prism_region__addr(S.meta), 1u << 8 | 0x44, 8);
	read_refused((uintptr_t)prism_region__addr(S.meta), 2u << 8 | 0xd7, 8);
	read_refused((uintptr_t)prism_region__addr(S.meta), 0x6b8b4567u, 8);
	honest_served();
}

/* Wait until only the honest connection is left on the server. */
static void wait_reaped(void)
{
	for (int i = 0; i < 5000; i++) {
		PRISM_OPTS(prism_server_stats, st);

		assert_int_equal(prism_server__stats(S.srv, &st), 0);
		if (st.conns_active == 1)
			return;
		usleep(1000);
	}
	fail_msg("connections not reclaimed");
}

/* Connecting and leaving without a request runs nothing: the chain's entry
 * WAIT is not satisfied by the error completions of flushed receives. */
static void test_disconnect_runs_nothing(void **state)
{
	PRISM_OPTS(prism_client_opts, co, .program = "put");
	struct prism_arg args[2] = {{.name = "version", .u64 = 3}, {.name = "len", .u64 = 8}};
	PRISM_OPTS(prism_call, c, .entry = "put", .args = args, .nargs = 2);
	struct prism_client *cl;
	struct raw_client a;
	uint64_t before = cursor();
	char addr[32];

	(void)state;
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", S.port);
	for (int i = 0; i < 8; i++) {
		connect_raw(&a, "put");
		raw_close(&a);
		cl = prism_client__connect(S.cdev, addr, &co);
		assert_non_null(cl);
		prism_client__close(cl);
	}
	wait_reaped();
	assert_int_equal(cursor(), before);
	/* one request: exactly one buffer (checked before the client leaves:
	 * a connection whose last answer is never acknowledged is the
	 * limitation docs/security.md describes) */
	cl = prism_client__connect(S.cdev, addr, &co);
	assert_non_null(cl);
	assert_int_equal(prism_client__invoke(cl, &c, NULL), 0);
	assert_int_equal(cursor(), before + 8);
	prism_client__close(cl);
	wait_reaped();
	honest_served();
}

/* ---- flushed receives: a client fails its own connection ----------------- */

/* A copy of every region's bytes. */
struct snapshot {
	uint8_t *bytes[8];
};

static void snapshot_take(struct snapshot *sn)
{
	for (unsigned i = 0; i < S.n_all; i++) {
		size_t len = prism_region__size(S.all[i]);

		sn->bytes[i] = malloc(len);
		assert_non_null(sn->bytes[i]);
		memcpy(sn->bytes[i], prism_region__addr(S.all[i]), len);
	}
}

/* @r's bytes in @sn (to write the changes a test expects into them). */
static uint8_t *snapshot_bytes(struct snapshot *sn, const struct prism_region *r)
{
	for (unsigned i = 0; i < S.n_all; i++)
		if (S.all[i] == r)
			return sn->bytes[i];
	fail_msg("region %s not in the snapshot", prism_region__name(r));
	return NULL;
}

/* Every region byte is as in @sn, but the word the honest client publishes
 * to (honest_served checks that one itself). */
static void snapshot_check(struct snapshot *sn)
{
	for (unsigned i = 0; i < S.n_all; i++) {
		uint8_t *now = prism_region__addr(S.all[i]);

		if (S.all[i] == S.meta)
			memcpy(sn->bytes[i] + SLOT * 8, now + SLOT * 8, 8);
		if (memcmp(sn->bytes[i], now, prism_region__size(S.all[i])))
			fail_msg("region %u changed without a request", i);
		free(sn->bytes[i]);
	}
}

/* A well-formed `put` request (version 7, len 16) for @c's entry. */
static uint32_t put_request(const struct raw_client *c, uint8_t *msg)
{
	const struct core_entry_desc *e = &c->w.entries[0];

	for (uint32_t p = 0; p < e->n_params; p++) {
		const struct core_param_desc *d = &e->params[p];

		chainobj_put_uint(msg + d->msg_offset, d->width, (enum chainobj_order)d->order,
		                  p == 0 ? 7 : 16);
	}
	return e->msg_size;
}

/* A request of @c's entry with parameter k = @vals[k] (a pointer as the
 * absolute address the client library would compute, or any other), in
 * every copy the entry carries.  Returns its size. */
static uint32_t raw_request(const struct raw_client *c, const uint64_t *vals, uint8_t *msg)
{
	const struct core_entry_desc *e = &c->w.entries[0];

	for (uint32_t k = 0; k < e->n_params; k++) {
		const struct core_param_desc *d = &e->params[k];

		for (uint32_t n = 0; n < d->copies; n++)
			chainobj_put_uint(msg + d->msg_offset + (size_t)n * d->width, d->width,
			                  (enum chainobj_order)d->order, vals[k]);
	}
	return e->msg_size;
}

static void wait_cursor(uint64_t want)
{
	for (int i = 0; i < 5000 && cursor() != want; i++)
		usleep(1000);
	assert_int_equal(cursor(), want);
}

/*
 * The request gate (docs/security.md): a client makes its own connection's
 * QP fail on the server's NIC, so that the NIC completes every posted
 * receive with a flush error (receive buffers unwritten).  Each of those
 * completions releases the ctl queue's entry WAIT of a pre-posted `put`;
 * the gate behind it holds, so no `put` runs: the free-list cursor and
 * every region byte stay as they were, and the honest client is served
 * throughout.  Four connections to `put`, one after the other, each failed
 * by @fail_qp(client, i).
 */
static void flushed_connections(void (*fail_qp)(struct raw_client *a, int i))
{
	struct snapshot sn;
	uint64_t before = cursor();

	snapshot_take(&sn);
	for (int i = 0; i < 4; i++) {
		struct raw_client a;

		connect_raw(&a, "put");
		fail_qp(&a, i);
		honest_served();
		raw_close(&a);
	}
	wait_reaped();
	assert_int_equal(cursor(), before);
	snapshot_check(&sn);
	honest_served();
}

/* A READ (no right on the conn queue), then a WRITE_IMM. */
static void remote_access_error(struct raw_client *a, int i)
{
	struct prism_cqe e;

	if (i & 1)
		assert_int_equal(raw_write(a, (uintptr_t)prism_region__addr(S.objects),
		                           S.objects->keys.rkey, "x", 1, &e),
		                 0);
	else
		assert_int_equal(raw_read(a, (uintptr_t)prism_region__addr(S.objects),
		                          S.objects->keys.rkey, 8, &e),
		                 0);
	assert_access_error(&e);
}

static void test_flush_by_remote_access_error(void **state)
{
	(void)state;
	flushed_connections(remote_access_error);
}

/* A SEND longer than the request: the receive fails with a local length
 * error after the first bytes landed (the arguments are written, the
 * completion is an error), then the rest flush. */
static void long_send(struct raw_client *a, int i)
{
	static uint8_t big[2048];
	struct prism_cqe e;
	uint32_t n = put_request(a, big);

	assert_int_equal(raw_send(a, i & 1 ? PRISM_OP_SEND_IMM : PRISM_OP_SEND, big,
	                          n + 64 * (uint32_t)(i + 1), &e),
	                 0);
	assert_int_equal(e.opcode, PRISM_CQE_REQ_ERR);
}

static void test_flush_by_long_send(void **state)
{
	(void)state;
	flushed_connections(long_send);
}

/* One real request whose answer is never acknowledged (the client posts
 * no receive: receiver-not-ready, retried forever), then the client
 * leaves: the server's QP fails with the answer in flight (retries
 * exhausted) and flushes the other receives.  Exactly the real request
 * ran. */
static void test_flush_by_unacknowledged_answer(void **state)
{
	uint8_t msg[256] = {0};
	struct snapshot sn;
	uint64_t before = cursor();

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct raw_client a;
		struct prism_cqe e;

		assert_int_equal(raw_connect_recvs(&a, &S.raw, S.port, "put", 0), 0);
		assert_int_equal(raw_send(&a, PRISM_OP_SEND, msg, put_request(&a, msg), &e), 0);
		assert_int_equal(e.opcode, PRISM_CQE_REQ);
		wait_cursor(before + 8 * (uint64_t)(i + 1));
		honest_served(); /* while the answer hangs */
		snapshot_take(&sn);
		raw_close(&a);
		wait_reaped();
		assert_int_equal(cursor(), before + 8 * (uint64_t)(i + 1));
		snapshot_check(&sn);
	}
	honest_served();
}

/* A SEND shorter than the request still is one: the gate opens, exactly
 * one `put` runs (the fields the SEND did not reach keep the template's
 * values), and the connection stays served. */
static void test_short_send_is_a_request(void **state)
{
	uint8_t msg[256] = {0};
	struct raw_client a;
	struct prism_cqe e;
	uint64_t before = cursor();

	(void)state;
	connect_raw(&a, "put");
	put_request(&a, msg);
	assert_int_equal(raw_send(&a, PRISM_OP_SEND, msg, 1, &e), 0);
	assert_int_equal(e.opcode, PRISM_CQE_REQ);
	wait_cursor(before + 8);
	assert_int_equal(raw_invoke(&a, msg, put_request(&a, msg)), 0);
	wait_cursor(before + 16);
	raw_close(&a);
	wait_reaped();
	assert_int_equal(cursor(), before + 16);
	honest_served();
}

/* ---- crafted transport records (sim: the link is the setup's TCP socket) -- */

/* The server failed the link: it closes the socket (after what it had
 * sent), within RAW_WAIT_MS. */
static void assert_link_closed(int fd)
{
	struct pollfd pf = {.fd = fd, .events = POLLIN};
	char buf[4096];

	for (;;) {
		assert_int_equal(poll(&pf, 1, RAW_WAIT_MS), 1);
		if (read(fd, buf, sizeof(buf)) <= 0)
			return; /* end of stream, or reset */
	}
}

/* A record naming a queue other than the link's own: another connection's
 * client-facing queue (a request in its name), another connection's worker
 * queue (which grants loopback READ and WRITE on its own ring).  The
 * transport binds each link to one QP and stamps the source from the link,
 * so the record fails the attacker's link; nothing reaches either queue. */
static void test_records_for_other_queues(void **state)
{
	uint8_t before[256], junk[64], msg[CHAINOBJ_MAX_MSG] = {0};
	uint64_t tag_before;
	struct core_inst *in;
	uint8_t *ring;
	int w, conn = -1;

	(void)state;
	if (g_emulated)
		skip(); /* the emulated NICs have a fabric of their own, not the socket */
	honest_served();
	in = victim();
	w = worker_queue(in);
	for (uint32_t q = 0; q < in->prog->obj->n_queues; q++)
		if (in->prog->obj->queues[q].role == CHAINOBJ_ROLE_CONN)
			conn = (int)q;
	assert_true(conn >= 0);
	ring = (uint8_t *)in->qps[w].info.buf + in->qps[w].info.sq_offset;
	memcpy(before, ring, sizeof(before));
	for (int i = 0; i < 100; i++) { /* the re-arm after the answer */
		usleep(20000);
		if (!memcmp(before, ring, sizeof(before)))
			break;
		memcpy(before, ring, sizeof(before));
	}
	tag_before = *meta_word(SLOT);
	memset(junk, 0xff, sizeof(junk));
	struct net_pkt pkts[] = {
	    {.opcode = NET_OP_SEND_ONLY, .dest_qpn = in->qps[conn].info.qpn, .payload = msg},
	    {.opcode = NET_OP_RDMA_READ_REQUEST,
	     .dest_qpn = in->qps[w].info.qpn,
	     .reth = {(uintptr_t)ring, in->qps[w].keys.rkey, 64}},
	    {.opcode = NET_OP_RDMA_WRITE_ONLY,
	     .dest_qpn = in->qps[w].info.qpn,
	     .reth = {(uintptr_t)ring, in->qps[w].keys.rkey, sizeof(junk)},
	     .payload = junk,
	     .payload_len = sizeof(junk)},
	};
	for (size_t i = 0; i < sizeof(pkts) / sizeof(pkts[0]); i++) {
		struct raw_client a;
		int fd;

		assert_int_equal(raw_setup(&a, &S.raw, S.port, "publish", &fd), 0);
		/* a request that would publish a tag newer than any the honest
		 * client uses, were it taken */
		const uint64_t vals[2] = {(uintptr_t)meta_word(SLOT), 0x7fffffff00000040ull};

		pkts[0].payload_len = raw_request(&a, vals, msg);
		assert_int_equal(raw_inject(fd, &pkts[i]), 0);
		assert_link_closed(fd);
		close(fd);
		raw_close(&a);
	}
	assert_memory_equal(ring, before, sizeof(before));
	assert_int_equal(*meta_word(SLOT), tag_before);
	honest_served();
}

/* The le64 version of the object the free list's slot @slot_addr names. */
static uint64_t object_version(uint64_t slot_addr)
{
	uint64_t obj, v;

	memcpy(&obj, (void *)(uintptr_t)slot_addr, 8);
	memcpy(&v, (void *)(uintptr_t)__builtin_bswap64(obj), 8);
	return v;
}

static void wait_version(uint64_t slot_addr, uint64_t want)
{
	for (int i = 0; i < 5000 && object_version(slot_addr) != want; i++)
		usleep(1000);
	assert_int_equal(object_version(slot_addr), want);
}

/* A raw client of `put` that injects its packets on its own socket: its
 * three requests write versions 100, 101 and 102. */
struct put_versions {
	struct raw_client a;
	int fd;
	uint8_t msg[3][64]; /* the requests, len bytes each */
	uint32_t len;
	uint64_t before; /* the free-list cursor before it */
};

/* Skips on the emulator: its NICs have a fabric of their own, not the
 * socket. */
static void open_put_versions(struct put_versions *v)
{
	if (g_emulated)
		skip();
	memset(v->msg, 0, sizeof(v->msg));
	v->before = cursor();
	assert_int_equal(raw_setup(&v->a, &S.raw, S.port, "put", &v->fd), 0);
	v->len = put_request(&v->a, v->msg[0]);
	for (int i = 0; i < 3; i++) {
		memcpy(v->msg[i], v->msg[0], v->len);
		chainobj_put_uint(v->msg[i] + v->a.w.entries[0].params[0].msg_offset, 8,
		                  CHAINOBJ_ORDER_LITTLE, 100 + (uint64_t)i);
	}
}

static void close_put_versions(struct put_versions *v)
{
	close(v->fd);
	raw_close(&v->a);
	wait_reaped();
}

/* An ACK with @psn from @v's client. */
static void inject_ack(const struct put_versions *v, uint32_t psn)
{
	struct net_pkt ack = {
	    .opcode = NET_OP_ACKNOWLEDGE,
	    .dest_qpn = v->a.w.qpn,
	    .psn = psn,
	    .aeth = {.syndrome = net_aeth_syndrome(NET_AETH_ACK, NET_AETH_CREDITS_INVALID)},
	};

	assert_int_equal(raw_inject(v->fd, &ack), 0);
}

/* @v's request @m (version 100 + @m) with @psn, in one SEND that asks for
 * an ACK. */
static void inject_request(const struct put_versions *v, uint32_t psn, int m)
{
	struct net_pkt p = {.opcode = NET_OP_SEND_ONLY,
	                    .flags = NET_PKT_ACKREQ,
	                    .dest_qpn = v->a.w.qpn,
	                    .psn = psn,
	                    .payload = v->msg[m],
	                    .payload_len = v->len};

	assert_int_equal(raw_inject(v->fd, &p), 0);
}

/* Requests replayed with a PSN the connection already used, or sent ahead
 * of the expected one, run nothing: only the requests in sequence do (each
 * `put` writes its own version into the buffer it pops, so a replay that
 * ran would show as a wrong version in the second buffer).  The client
 * acknowledges the first answer before its next request in sequence, as
 * any client does: `put`'s invocations do not overlap, so the next one
 * starts only once the server saw the one before it complete. */
static void test_replayed_and_early_psns(void **state)
{
	struct put_versions v;

	(void)state;
	open_put_versions(&v);
	/* PSN 0 (version 100); once it ran: PSN 0 again (101), PSN 5 (101),
	 * PSN 1 (102).  (One request at a time, as the setup answer's
	 * `inflight` of 1 says: `put` does not pipeline.) */
	const struct {
		uint32_t psn;
		int m;
	} seq[] = {{0, 0}, {0, 1}, {5, 1}, {1, 2}};
	assert_int_equal(v.a.w.inflight, 1);
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		if (seq[i].psn == 1)
			inject_ack(&v, 0); /* the first answer */
		inject_request(&v, seq[i].psn, seq[i].m);
		if (i == 0) {
			wait_cursor(v.before + 8);
			wait_version(v.before, 100);
		}
	}
	wait_cursor(v.before + 16);
	wait_version(v.before + 8, 102);
	close_put_versions(&v);
	assert_int_equal(cursor(), v.before + 16);
	assert_int_equal(object_version(v.before), 100);
	honest_served();
}

/* ACKs with odd PSNs from the client (before its first request, beyond
 * what the server sent, half the PSN space away, replayed) acknowledge at
 * most the server's own answers on that connection: each request in
 * sequence (behind the ACK of the answer before it, as `put` needs) still
 * runs exactly once, and the others are served. */
static void test_acks_with_odd_psns(void **state)
{
	static const uint32_t acks[3][4] = {
	    {0x7fffff, 0xffffff, 3, 0}, /* before any request */
	    {0x800000, 0xfffffe, 2, 1}, /* after one answer */
	    {0, 0, 1, 1},               /* replayed */
	};
	struct put_versions v;

	(void)state;
	open_put_versions(&v);
	for (int i = 0; i < 3; i++) {
		for (int k = 0; k < 4; k++)
			inject_ack(&v, acks[i][k]);
		if (i > 0)
			inject_ack(&v, (uint32_t)i - 1); /* the answer before */
		inject_request(&v, (uint32_t)i, i);
		wait_cursor(v.before + 8 * (uint64_t)(i + 1));
		wait_version(v.before + 8 * (uint64_t)i, 100 + (uint64_t)i);
	}
	honest_served();
	close_put_versions(&v);
	assert_int_equal(cursor(), v.before + 24);
	honest_served();
}

/* A batch of `put`s from an honest client: the server says `put` does not
 * pipeline (a barrier in its window holds WQEs back, which the next
 * window's entry enable would release), so the client sends them one
 * after the other and each pops its own buffer.  (They were sent back to
 * back once, and the connection failed on a prefetch hazard.) */
static void test_batch_of_puts(void **state)
{
	PRISM_OPTS(prism_client_opts, co, .program = "put");
	struct prism_call calls[3];
	struct prism_arg args[3][2];
	struct prism_client *cl;
	uint64_t before = cursor();
	char addr[32];

	(void)state;
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", S.port);
	cl = prism_client__connect(S.cdev, addr, &co);
	assert_non_null(cl);
	for (int i = 0; i < 3; i++) {
		args[i][0] = (struct prism_arg){.name = "version", .u64 = 200 + (uint64_t)i};
		args[i][1] = (struct prism_arg){.name = "len", .u64 = 16};
		calls[i] = (struct prism_call){
		    .sz = sizeof(calls[i]), .entry = "put", .args = args[i], .nargs = 2};
	}
	assert_int_equal(prism_client__invoke_batch(cl, calls, 3, NULL), 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(object_version(before + 8 * (uint64_t)i), 200 + (uint64_t)i);
	assert_int_equal(cursor(), before + 24);
	prism_client__close(cl);
	honest_served();
}

/* The software NIC behind the server (hazards are counted there). */
static struct sim_dev *server_sim(void)
{
	return g_emulated ? mlx5emu_sim(0) : sim_backend_dev(S.srv->dev->shards[0].be);
}

/*
 * A client that ignores its connection's `inflight` (1 for `put`: a barrier
 * in its window holds WQEs back until their patches land) and sends at once
 * more requests than the server has windows posted.  The server keeps the
 * windows from overlapping on the NIC: a window's entry starts only once
 * the invocation before it completed, so the next entry enable cannot
 * release WQEs the previous window still holds (which the NIC would fetch
 * before their patches land: a prefetch hazard, stale WQEs executed).  A
 * request past the posted windows meets receiver-not-ready and is retried
 * by the client's NIC.  So each request runs whole, in order, with a buffer
 * of its own; the NIC reports no hazard and no error completion; no region
 * byte changes but those buffers and the cursor; no connection fails; the
 * attacker is served and the honest client too.  (Before, three of them ran at once: the NIC
 * reported hazards, executed a READ fetched before its address landed, and the attacker's
 * connection failed.)
 */
static void test_requests_past_inflight(void **state)
{
	enum { N = RAW_SLOTS };
	uint8_t msg[64] = {0}, burst[N * 64];
	const struct prism_region *heap = S.all[0]; /* region("heap") came first */
	struct sim_stats st0, st1;
	uint64_t before = cursor();
	struct raw_client a;
	struct snapshot sn;
	uint32_t len;
	PRISM_OPTS(prism_server_stats, ss0);
	PRISM_OPTS(prism_server_stats, ss1);

	(void)state;
	honest_served();
	connect_raw(&a, "put");
	assert_int_equal(a.w.inflight, 1);
	assert_true(a.w.depth >= 2 && a.w.depth < N); /* N is past the posted windows */
	len = put_request(&a, msg);
	assert_true(len <= sizeof(msg));
	for (int i = 0; i < N; i++) {
		chainobj_put_uint(msg + a.w.entries[0].params[0].msg_offset, 8,
		                  CHAINOBJ_ORDER_LITTLE, 300 + (uint64_t)i);
		memcpy(burst + (size_t)i * len, msg, len);
	}
	snapshot_take(&sn);
	assert_int_equal(prism_server__stats(S.srv, &ss0), 0);
	sim_dev_stats(server_sim(), &st0);
	assert_int_equal(raw_invoke_burst(&a, burst, len, N), 0);
	sim_dev_stats(server_sim(), &st1);
	assert_int_equal(st1.hazards, st0.hazards);
	assert_int_equal(st1.error_cqes, st0.error_cqes);
	wait_cursor(before + 8 * N);
	for (int i = 0; i < N; i++) {
		uint64_t slot = before + 8 * (uint64_t)i, obj, want[2] = {300 + (uint64_t)i, 16};

		memcpy(&obj, (void *)(uintptr_t)slot, 8);
		obj = __builtin_bswap64(obj);
		assert_memory_equal((void *)(uintptr_t)obj, want, 16);
		/* the only heap bytes that may change */
		memcpy(snapshot_bytes(&sn, heap) + (obj - (uintptr_t)prism_region__addr(heap)),
		       want, 16);
	}
	memcpy(snapshot_bytes(&sn, S.objects), prism_region__addr(S.objects), 8); /* cursor */
	honest_served();
	snapshot_check(&sn);
	assert_int_equal(prism_server__stats(S.srv, &ss1), 0);
	assert_int_equal(ss1.conns_failed, ss0.conns_failed);
	raw_close(&a);
	wait_reaped();
	honest_served();
}

/* Pointer arguments the client library would refuse, sent raw: into a
 * region no program declares, into a declared region other than the
 * parameter's, just before and past the parameter's region, across its
 * end, misaligned for the atomic.  The pointer's region key bounds the
 * access on the NIC and a misaligned atomic is an invalid request
 * (docs/language.md, "Memory"): each request fails its connection and no
 * byte of any region changes. */
static void test_pointer_arguments_outside_their_region(void **state)
{
	const uint64_t meta = (uintptr_t)prism_region__addr(S.meta);
	const uint64_t size = prism_region__size(S.meta);
	const uint64_t bad[] = {
	    (uintptr_t)prism_region__addr(S.secret),
	    (uintptr_t)prism_region__addr(S.objects) + 8,
	    meta - 8,
	    meta + size,
	    meta + size - 4,
	    meta + size - 12, /* misaligned; zeros there: the tag is greater, the swap runs */
	};
	struct snapshot sn;

	(void)state;
	honest_served();
	snapshot_take(&sn);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t msg[CHAINOBJ_MAX_MSG] = {0};
		struct raw_client a;
		struct prism_cqe e;

		connect_raw(&a, "publish");
		const uint64_t vals[2] = {bad[i], 0x7fffffff00000040ull};

		assert_int_equal(raw_send(&a, PRISM_OP_SEND, msg, raw_request(&a, vals, msg), &e),
		                 0);
		/* taken, or the server failed the connection before it acknowledged */
		if (e.opcode != PRISM_CQE_REQ)
			assert_int_equal(e.syndrome, PRISM_SYND_TRANSPORT_RETRY_EXC_ERR);
		wait_reaped(); /* the server tore the connection down */
		raw_close(&a);
	}
	snapshot_check(&sn);
	honest_served();
}

/* A hello naming a program the server does not offer, or none while it
 * offers several, is refused at setup; the server goes on. */
static void test_hello_for_missing_program(void **state)
{
	struct raw_client a;

	(void)state;
	assert_true(raw_connect(&a, &S.raw, S.port, "nosuch") < 0);
	assert_true(raw_connect(&a, &S.raw, S.port, "") < 0);
	honest_served();
}

/* An object compiled without the request gate (for a device without
 * wait-on-data) is refused, unless the application asks for it. */
static void test_ungated_object_refused(void **state)
{
	PRISM_OPTS(prism_program_opts, po, .allow_ungated = true);
	struct prism_program *p;
	char path[256];

	(void)state;
	assert_int_equal(compile_flags(S.prismc, "put", " --no-request-gate", path, sizeof(path)),
	                 0);
	p = prism_program__open_file(path, NULL);
	assert_non_null(p);
	assert_int_equal(prism_program__load(p, S.sdev), -PRISM_E_UNGATED);
	prism_program__close(p);
	p = prism_program__open_file(path, &po);
	assert_non_null(p);
	assert_int_equal(prism_program__load(p, S.sdev), 0);
	prism_program__close(p);
	unlink(path);
	honest_served();
}

/* The welcome tells a client what to send, never a key or a region it
 * cannot name. */
static void test_welcome_publishes_no_keys(void **state)
{
	struct raw_client a;

	(void)state;
	connect_raw(&a, "publish");
	assert_int_equal(a.oob_regions, 0); /* the transport's setup answer: no memory */
	for (uint32_t e = 0; e < a.w.n_entries; e++)
		for (uint32_t p = 0; p < a.w.entries[e].n_params; p++) {
			const struct core_param_desc *d = &a.w.entries[e].params[p];

			if (d->type != CHAINOBJ_PT_ADDR) {
				assert_int_equal(d->region_base, 0);
				assert_int_equal(d->region_size, 0);
			} else {
				assert_int_equal(d->region_base,
				                 (uintptr_t)prism_region__addr(S.meta));
			}
		}
	raw_close(&a);
	honest_served();
}

/* A forged object (consistent checksum and all) whose receive scatters the
 * client's bytes into a read-only region: the loader refuses it, so no
 * connection can ever get it. */
static void test_tampered_object_not_loaded(void **state)
{
	struct chainobj *o;
	struct diag_report d;
	struct prism_program *p;
	char *text;
	size_t len;
	int ranges = -1;

	(void)state;
	assert_int_equal(chainobj_read_mem(S.publish, S.publish_len, &o, &d), 0);
	for (uint32_t r = 0; r < o->n_regions; r++)
		if (!strcmp(o->regions[r].name, "ranges"))
			ranges = (int)r;
	assert_true(ranges >= 0);
	assert_false(o->regions[ranges].access & CHAINOBJ_ACC_WRITE);
	for (uint32_t i = 0; i < o->n_relocs; i++) {
		struct chainobj_reloc *r = &o->relocs[i];

		if (o->queues[r->site.queue].role != CHAINOBJ_ROLE_CONN ||
		    r->site.ring != CHAINOBJ_RING_RQ || r->site.wqe != 0)
			continue;
		if (r->site.offset == 8) {
			*r = (struct chainobj_reloc){.site = r->site,
			                             .kind = CHAINOBJ_RELOC_REGION_ADDR,
			                             .target = (uint32_t)ranges};
		} else if (r->site.offset == 4) {
			*r = (struct chainobj_reloc){.site = r->site,
			                             .kind = CHAINOBJ_RELOC_REGION_LKEY,
			                             .target = (uint32_t)ranges};
		}
	}
	assert_int_equal(chainobj_write_mem(o, 0, &text, &len, &d), 0);
	chainobj_free(o);
	/* the untouched object loads; the forged one does not */
	p = prism_program__open_mem(S.publish, S.publish_len, NULL);
	assert_non_null(p);
	assert_int_equal(prism_program__load(p, S.sdev), 0);
	prism_program__close(p);
	p = prism_program__open_mem(text, len, NULL);
	assert_non_null(p); /* well formed: the verifier is what refuses it */
	assert_int_equal(prism_program__load(p, S.sdev), -PRISM_E_VERIFY);
	prism_program__close(p);
	free(text);
	honest_served();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_read_undeclared_region),
	    cmocka_unit_test(test_read_declared_region),
	    cmocka_unit_test(test_cas_gt_rollback_by_write),
	    cmocka_unit_test(test_read_other_connection),
	    cmocka_unit_test(test_overwrite_work_queue),
	    cmocka_unit_test(test_guess_keys),
	    cmocka_unit_test(test_disconnect_runs_nothing),
	    cmocka_unit_test(test_flush_by_remote_access_error),
	    cmocka_unit_test(test_flush_by_long_send),
	    cmocka_unit_test(test_flush_by_unacknowledged_answer),
	    cmocka_unit_test(test_short_send_is_a_request),
	    cmocka_unit_test(test_records_for_other_queues),
	    cmocka_unit_test(test_replayed_and_early_psns),
	    cmocka_unit_test(test_acks_with_odd_psns),
	    cmocka_unit_test(test_hello_for_missing_program),
	    cmocka_unit_test(test_pointer_arguments_outside_their_region),
	    cmocka_unit_test(test_batch_of_puts),
	    cmocka_unit_test(test_requests_past_inflight),
	    cmocka_unit_test(test_ungated_object_refused),
	    cmocka_unit_test(test_welcome_publishes_no_keys),
	    cmocka_unit_test(test_tampered_object_not_loaded),
	};

	int failed = 0;

	for (int emulated = 0; emulated < 2; emulated++) {
		const char *group =
		    emulated ? "security (mlx5 over the emulator)" : "security (sim)";

		if (!test_backend_selected(group))
			continue;
		g_emulated = emulated;
		failed += _cmocka_run_group_tests(group, tests, sizeof(tests) / sizeof(tests[0]),
		                                  setup, teardown);
	}
	return failed;
}
