/* SPDX-License-Identifier: MIT */
/*
 * prism-demo - the hash-get offload end to end, as `make demo` runs it.
 *
 *   prism-demo [--device NAME] hash_get.chain
 *
 * 1. A server process (an application embedding the runtime) populates a
 *    two-choice hash table (RedN section 5.2: key in bucket h1 or h2, value
 *    behind a pointer), loads the compiled `get` offload and listens on TCP.
 * 2. This process connects as a client over TCP and performs gets: it prints
 *    a few results, then checks 10,000 random gets against the table.
 * 3. Latency on the virtual clock (cost profile cx5) next to RedN's measured
 *    5.7 us (64 B, Table 5), and a one-sided baseline measured in the same
 *    run: FaRM-style, a READ of the bucket then a READ of the value, issued by
 *    a client QP with the table's keys.  Both on one simulated device
 *    (client and server queues on the same sim NIC), so they are comparable.
 *
 * Owns: the demo's table layout and its report.  Uses prism.h for the
 * offload; the one-sided baseline needs raw verbs, so it uses the runtime's
 * internal backend table (runtime/core) the way the runtime does.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <prism/prism.h>
#include <prism/wqe.h>

#include "core/core.h"
#include "util/byteorder.h"

#define BUCKET 16u
#define VALUE  64u
#define N_KEYS 20000u
#define GETS   10000

struct table {
	uint8_t *buckets, *values;
	uint64_t nb, values_base;
	uint32_t keys[N_KEYS];
	uint32_t where[N_KEYS]; /* bucket index, or UINT32_MAX when not inserted */
};

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t h1(const struct table *t, uint32_t key)
{
	return (uint32_t)(mix(key) % t->nb);
}

static uint32_t h2(const struct table *t, uint32_t key)
{
	return (uint32_t)(mix(key ^ 0x5bd1e995u) % t->nb);
}

/* Insert N_KEYS keys (two choices, no displacement), values behind pointers. */
static void populate(struct table *t)
{
	uint64_t s = 2026;

	memset(t->buckets, 0, t->nb * BUCKET);
	for (uint32_t i = 0; i < N_KEYS; i++) {
		uint32_t key = (uint32_t)(mix(++s) & 0xfffffe) | 1, b;

		t->keys[i] = key;
		t->where[i] = UINT32_MAX;
		if (get_be(t->buckets + (size_t)h1(t, key) * BUCKET, 3) == key ||
		    get_be(t->buckets + (size_t)h2(t, key) * BUCKET, 3) == key) {
			t->keys[i] =
			    0x800000 | (uint32_t)i; /* a duplicate: ask for an absent key */
			continue;
		}
		b = h1(t, key);
		if (get_be(t->buckets + (size_t)b * BUCKET, 3))
			b = h2(t, key);
		if (get_be(t->buckets + (size_t)b * BUCKET, 3))
			continue; /* both taken: left out (a miss when asked for) */
		put_be(t->buckets + (size_t)b * BUCKET, 3, key);
		put_be(t->buckets + (size_t)b * BUCKET + 8, 8,
		       t->values_base + (uint64_t)i * VALUE);
		for (uint32_t j = 0; j < VALUE; j += 8) {
			uint64_t r = mix(s * 31 + j) | 1;

			memcpy(t->values + (size_t)i * VALUE + j, &r, 8);
		}
		t->where[i] = b;
	}
}

static int region_sizes(struct prism_program *p, uint64_t *table, uint64_t *values)
{
	for (int i = 0; i < prism_program__region_count(p); i++) {
		struct prism_region_info ri;

		prism_program__region(p, i, &ri);
		if (!strcmp(ri.name, "table"))
			*table = ri.size;
		else if (!strcmp(ri.name, "values"))
			*values = ri.size;
	}
	return *table && *values >= (uint64_t)N_KEYS * VALUE ? 0 : -1;
}

/* An embedded server: device, regions, table, program. */
struct server {
	struct prism_device *dev;
	struct prism_region *table, *values;
	struct prism_program *prog;
	struct prism_server *srv;
	struct table t;
};

static int server_open(struct server *s, const char *devname, const char *chain, int port)
{
	uint64_t tsz = 0, vsz = 0;

	s->dev = prism_device__open(devname, NULL);
	s->prog = prism_program__open_file(chain, NULL);
	if (!s->dev || !s->prog || region_sizes(s->prog, &tsz, &vsz))
		return -1;
	s->table = prism_device__create_region(s->dev, "table", tsz, NULL);
	s->values = prism_device__create_region(s->dev, "values", vsz, NULL);
	if (!s->table || !s->values)
		return -1;
	s->t.buckets = prism_region__addr(s->table);
	s->t.values = prism_region__addr(s->values);
	s->t.nb = tsz / BUCKET;
	s->t.values_base = prism_region__nic_addr(s->values);
	populate(&s->t);
	PRISM_OPTS(prism_server_opts, so, .host = "127.0.0.1", .port = port);
	s->srv = prism_server__create(s->dev, &so);
	if (!s->srv || prism_program__load(s->prog, s->dev) ||
	    prism_server__add_program(s->srv, s->prog))
		return -1;
	return 0;
}

static void server_close(struct server *s)
{
	prism_server__destroy(s->srv);
	prism_program__close(s->prog);
	prism_device__close(s->dev);
}

static int get(struct prism_client *cl, const struct table *t, uint32_t key, uint8_t *out,
               struct prism_call *c, struct prism_arg args[3])
{
	args[0] = (struct prism_arg){.name = "key", .u64 = key};
	args[1] = (struct prism_arg){.name = "b1", .u64 = (uint64_t)h1(t, key) * BUCKET};
	args[2] = (struct prism_arg){.name = "b2", .u64 = (uint64_t)h2(t, key) * BUCKET};
	*c = (struct prism_call){.sz = sizeof(*c),
	                         .entry = "get",
	                         .args = args,
	                         .nargs = 3,
	                         .result = out,
	                         .result_cap = VALUE};
	return prism_client__invoke(cl, c, NULL);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double median_us(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n ? (double)v[n / 2] / 1000.0 : 0.0;
}

/* ---- one-sided baseline: READ bucket, then READ value (FaRM, Pilaf) ------- */

struct onesided {
	struct prism_device *dev;
	struct core_be_cq *cq;
	struct core_cq_info cqi;
	struct core_be_qp *a, *b;
	struct core_qp_info ai, bi;
	uint8_t buf[256];
	struct core_be_mr *mr;
	struct core_mr_info keys;
	uint64_t pi, ci;
};

static int os_open(struct onesided *o, struct prism_device *dev)
{
	const struct core_backend_ops *ops = dev->ops;
	struct core_cq_attr ca = {.ncqe = 64};
	struct core_qp_attr qa = {.sq_bbs = 64, .rq_wqes = 0, .access = CORE_ACCESS_REMOTE_READ};
	int err;

	o->dev = dev;
	if ((err = ops->create_cq(dev->be, &ca, &o->cq, &o->cqi)))
		return err;
	qa.send_cq = qa.recv_cq = o->cq;
	if ((err = ops->create_qp(dev->be, &qa, &o->a, &o->ai)) ||
	    (err = ops->create_qp(dev->be, &qa, &o->b, &o->bi)) ||
	    (err = ops->reg_mr(dev->be, NULL, o->buf, sizeof(o->buf), CORE_ACCESS_LOCAL_WRITE,
	                       &o->mr, &o->keys)))
		return err;
	struct core_qp_peer pa = {
	    .node = dev->node, .qpn = o->bi.qpn, .rnr_retry = 7, .retry_cnt = 7};
	struct core_qp_peer pb = {
	    .node = dev->node, .qpn = o->ai.qpn, .rnr_retry = 7, .retry_cnt = 7};
	if ((err = ops->modify_qp(o->a, CORE_QPS_INIT, NULL)) ||
	    (err = ops->modify_qp(o->a, CORE_QPS_RTR, &pa)) ||
	    (err = ops->modify_qp(o->a, CORE_QPS_RTS, &pa)) ||
	    (err = ops->modify_qp(o->b, CORE_QPS_INIT, NULL)) ||
	    (err = ops->modify_qp(o->b, CORE_QPS_RTR, &pb)) ||
	    (err = ops->modify_qp(o->b, CORE_QPS_RTS, &pb)))
		return err;
	return 0;
}

static void os_close(struct onesided *o)
{
	const struct core_backend_ops *ops = o->dev->ops;

	if (o->mr)
		ops->dereg_mr(o->mr);
	if (o->a)
		ops->destroy_qp(o->a);
	if (o->b)
		ops->destroy_qp(o->b);
	if (o->cq)
		ops->destroy_cq(o->cq);
}

/* One signaled READ of @len bytes at @raddr into buf; returns its CQE timestamp (ns). */
static int os_read(struct onesided *o, uint64_t raddr, uint32_t rkey, uint32_t len, uint64_t *ts)
{
	struct prism_wqe w = {0};
	uint8_t *slot = (uint8_t *)o->ai.buf + o->ai.sq_offset + (o->pi % o->ai.sq_bbs) * 64;

	w.ctrl.opcode = PRISM_OP_RDMA_READ;
	w.ctrl.wqe_index = (uint16_t)o->pi;
	w.ctrl.qpn = o->ai.qpn;
	w.ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_NONE, PRISM_CE_CQ_UPDATE, false);
	w.has_raddr = true;
	w.raddr = (struct prism_raddr_seg){.raddr = raddr, .rkey = rkey};
	w.num_sge = 1;
	w.sge[0] =
	    (struct prism_sge){.byte_count = len, .lkey = o->keys.lkey, .addr = (uintptr_t)o->buf};
	if (prism_wqe_encode(&w, slot, 64, NULL) < 0)
		return -EINVAL;
	o->pi++;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	o->ai.dbrec[1] = __builtin_bswap32((uint32_t)(o->pi & 0xffff));
	o->dev->ops->ring_sq(o->a);
	for (int spins = 0; spins < 1000000; spins++) {
		const uint8_t *raw = (const uint8_t *)o->cqi.buf + (o->ci % o->cqi.ncqe) * 64;
		struct prism_cqe c;

		core_dev_progress(o->dev);
		if ((raw[63] >> 4) == PRISM_CQE_INVALID ||
		    !prism_cqe_sw_owned(raw[63], (uint32_t)o->ci, o->cqi.ncqe))
			continue;
		prism_cqe_decode(raw, &c, NULL);
		o->ci++;
		o->cqi.dbrec[0] = __builtin_bswap32((uint32_t)(o->ci & 0xffffff));
		*ts = c.timestamp;
		return c.opcode == PRISM_CQE_REQ ? 0 : -EIO;
	}
	return -ETIMEDOUT;
}

/* FaRM-style get of a key in its first bucket: READ bucket, READ value. */
static int os_get(struct onesided *o, struct server *s, uint32_t key, uint64_t *ns)
{
	uint64_t t0 = prism_device__virt_ns(o->dev), t1;
	uint32_t b = h1(&s->t, key);
	uint64_t vaddr;
	int err;

	err = os_read(o, prism_region__nic_addr(s->table) + (uint64_t)b * BUCKET,
	              s->table->keys.rkey, BUCKET, &t1);
	if (err)
		return err;
	if (get_be(o->buf, 3) != key)
		return -ENOENT;
	vaddr = get_be(o->buf + 8, 8);
	err = os_read(o, vaddr, s->values->keys.rkey, VALUE, &t1);
	*ns = t1 - t0;
	return err;
}

/* ---- the report ------------------------------------------------------------ */

static void print_value(const uint8_t *v)
{
	for (int i = 0; i < 8; i++)
		printf("%02x", v[i]);
	printf("...");
}

static int client_part(const char *devname, const char *addr, const struct table *ref)
{
	struct prism_device *dev = prism_device__open(devname, NULL);
	struct prism_client *cl = dev ? prism_client__connect(dev, addr, NULL) : NULL;
	struct timespec a, b;
	unsigned bad = 0, hits = 0;

	if (!cl) {
		fprintf(stderr, "prism-demo: cannot connect to %s\n", addr);
		prism_device__close(dev);
		return -1;
	}
	if (strcmp(devname, "sim"))
		printf("\n== client on %s -> server on %s, set up over TCP (%s)\n", devname,
		       devname, addr);
	else
		printf("\n== client process -> server process over TCP (%s)\n", addr);
	for (uint32_t i = 0; i < 6; i++) {
		uint32_t k = i < 5 ? ref->keys[i * 97] : 0x123457;
		uint8_t out[VALUE];
		struct prism_call c;
		struct prism_arg args[3];
		int rc = get(cl, ref, k, out, &c, args);

		printf("  get(0x%06x) -> ", k);
		if (rc)
			printf("error: %s\n", prism_strerror(rc));
		else if (!c.ret_site)
			printf("miss\n");
		else {
			print_value(out);
			printf(" (bucket %u)\n", c.ret_site);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < GETS; i++) {
		uint32_t idx = (uint32_t)(mix((uint64_t)i * 7919) % N_KEYS);
		uint32_t k = ref->keys[idx];
		uint8_t out[VALUE];
		struct prism_call c;
		struct prism_arg args[3];

		if (get(cl, ref, k, out, &c, args)) {
			bad++;
			continue;
		}
		bool stored = ref->where[idx] != UINT32_MAX;

		if (stored != (c.ret_site != 0) ||
		    (stored && memcmp(out, ref->values + (size_t)idx * VALUE, VALUE)))
			bad++;
		hits += stored;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("  %d gets checked against the table: %u wrong (%u hits, %u misses); "
	       "%.0f gets/s wall clock\n",
	       GETS, bad, hits, GETS - hits, GETS / secs);
	prism_client__close(cl);
	prism_device__close(dev);
	return bad ? -1 : 0;
}

static int latency_part(const char *chain)
{
	struct server s = {0};
	struct onesided o = {0};
	struct prism_client *cl;
	static uint64_t off[GETS], one[GETS];
	size_t noff = 0, none = 0;
	int rc = -1;

	if (server_open(&s, "sim", chain, 0) || !(cl = prism_client__connect_local(s.srv, NULL)))
		goto out;
	if (os_open(&o, s.dev))
		goto out_cl;
	for (uint32_t i = 0; i < N_KEYS && noff < 2000; i++) {
		uint8_t out[VALUE];
		struct prism_call c;
		struct prism_arg args[3];
		uint32_t k = s.t.keys[i];
		uint64_t ns;

		if (s.t.where[i] != h1(&s.t, k))
			continue; /* RedN's 5.7 us: found in the first bucket, no collision */
		if (!get(cl, &s.t, k, out, &c, args) && c.ret_site == 1)
			off[noff++] = c.virt_ns;
		if (!os_get(&o, &s, k, &ns))
			one[none++] = ns;
	}
	printf("\n== latency on the virtual clock (cost profile %s), value 64 B, key in bucket 1\n",
	       prism_device__profile(s.dev));
	printf("  prism offload get (one round trip, 2 buckets)  %6.2f us  (median of %zu)\n",
	       median_us(off, noff), noff);
	printf("  RedN measured (NSDI'22 Table 5, ConnectX-5)    %6.2f us\n", 5.7);
	printf("  one-sided baseline: READ bucket + READ value   %6.2f us  (median of %zu, "
	       "FaRM-style)\n",
	       median_us(one, none), none);
	rc = noff && none ? 0 : -1;
	os_close(&o);
out_cl:
	prism_client__close(cl);
out:
	server_close(&s);
	return rc;
}

/*
 * On an RDMA device (`--device mlx5_0`) the server runs in this process (its
 * NIC serves it by itself) and the client connects to it over TCP on the
 * same device; the virtual clock is the software NIC's, so the latency part
 * is not run.
 */
static int rdma_demo(const char *devname, const char *chain)
{
	struct server s = {0};
	char addr[32];
	int rc;

	if (server_open(&s, devname, chain, PRISM_PORT_ANY) || prism_server__start(s.srv)) {
		fprintf(stderr, "prism-demo: cannot serve on %s\n", devname);
		server_close(&s);
		return 1;
	}
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", prism_server__port(s.srv));
	printf("== server on %s: %llu buckets, %u keys, offload '%s' on port %u\n", devname,
	       (unsigned long long)s.t.nb, N_KEYS, prism_program__name(s.prog),
	       prism_server__port(s.srv));
	rc = client_part(devname, addr, &s.t);
	printf("\n(latency on the virtual clock: the software NIC only)\n");
	server_close(&s);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	int p[2], st, rc;
	uint16_t port = 0;
	pid_t srv;
	char addr[32];
	const char *devname = "sim";

	if (argc == 4 && !strcmp(argv[1], "--device")) {
		devname = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: prism-demo [--device NAME] hash_get.chain\n");
		return 2;
	}
	prism_set_log_fn(prism_log_stderr, NULL, PRISM_LOG_ERROR);
	signal(SIGPIPE, SIG_IGN);
	if (strcmp(devname, "sim"))
		return rdma_demo(devname, argv[1]);
	if (pipe(p))
		return 3;
	srv = fork();
	if (srv == 0) {
		struct server s = {0};

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[0]);
		if (server_open(&s, "sim", argv[1], PRISM_PORT_ANY) || prism_server__start(s.srv))
			_exit(1);
		port = prism_server__port(s.srv);
		printf("== server process %d: %llu buckets, %u keys, offload '%s' on port %u\n",
		       (int)getpid(), (unsigned long long)s.t.nb, N_KEYS,
		       prism_program__name(s.prog), port);
		fflush(stdout);
		if (write(p[1], &port, sizeof(port)) != sizeof(port))
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &port, sizeof(port)) != sizeof(port)) {
		fprintf(stderr, "prism-demo: the server did not start\n");
		return 1;
	}
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);

	/* The client rebuilds the same table (same seed) as its reference. */
	struct table ref = {0};
	uint64_t tsz = 0, vsz = 0;
	struct prism_program *prog = prism_program__open_file(argv[1], NULL);

	if (!prog || region_sizes(prog, &tsz, &vsz))
		return 1;
	prism_program__close(prog);
	ref.nb = tsz / BUCKET;
	ref.buckets = calloc(1, tsz);
	ref.values = calloc(1, vsz);
	if (!ref.buckets || !ref.values)
		return 1;
	populate(&ref);
	rc = client_part("sim", addr, &ref);
	kill(srv, SIGKILL);
	waitpid(srv, &st, 0);
	if (!rc)
		rc = latency_part(argv[1]);
	free(ref.buckets);
	free(ref.values);
	return rc ? 1 : 0;
}
