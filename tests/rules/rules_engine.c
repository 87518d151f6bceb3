/* SPDX-License-Identifier: MIT */
/*
 * tests/rules/rules_engine.c - NIC-model rules about the software NIC's own
 * engine (section 6 of docs/nic-model.md, all SIM CHOICE): chaos mode
 * (READ lines copied out of order), the deterministic scheduler, the
 * virtual clock, the in-process fabric, a plugged-in transport with
 * back-pressure, stale packets for a reused QP number dropped, and the
 * threaded runner.  They are claims about the sim,
 * written against its API (sim.h), so they run on the sim backend only and
 * skip elsewhere with the reason (a NIC has none of these modes; the
 * emulator's device is a sim, but the rule is about the sim's modes, not
 * about what the mlx5 backend drives).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "tests/rules/rules.h"
#include "tests/sim/sim_env.h"

/* Between READ lines, a "CPU writer" replaces every byte of the object
 * with version 2 (the observer runs synchronously inside the engine). */
struct tear {
	uint8_t *obj;
	size_t len;
	int lines;
};

static void tear_event(void *ctx, const struct sim_event *ev)
{
	struct tear *t = ctx;

	if (ev->kind == SIM_EV_READ_LINE && ++t->lines == 2)
		memset(t->obj, 2, t->len);
}

static int read_versions(bool chaos, uint64_t seed, uint8_t *out)
{
	struct tear t = {0};
	struct sim_observer obs = {.ctx = &t, .event = tear_event};
	struct sim_dev_opts o = {.sz = sizeof(o), .seed = seed, .chaos = chaos, .obs = &obs};
	struct sim_dev *dev;
	struct hx_cq cq;
	struct hx_qp q;
	struct prism_wqe w;
	uint8_t *obj = aligned_alloc(64, 512);
	uint32_t key;
	int v1 = 0;

	assert_int_equal(sim_dev_open(&o, &dev), 0);
	memset(obj, 1, 512);
	t.obj = obj;
	t.len = 512;
	key = hx_key(dev, obj, 512, CONF_RW);
	hx_cq_init(&cq, dev, 16, false);
	hx_qp_init(&q, dev, &cq, &cq, 16, 0, 0);
	hx_pair(&q, &q);
	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)obj, key, (uintptr_t)out,
	      hx_key(dev, out, 512, CONF_RW), 512, true);
	hx_post(&q, &w);
	hx_ring(&q);
	assert_int_equal(sim_dev_run(dev, 0), 0);
	assert_int_equal(hx_expect(&cq).opcode, PRISM_CQE_REQ);
	for (int i = 0; i < 512; i += 64)
		v1 += out[i] == 1;
	sim_dev_close(dev);
	free(obj);
	return v1; /* lines of version 1 */
}

/* rule chaos-read-lines-unordered: in chaos mode a READ over several cache
 * lines copies them in a seeded random order, each line a separate step,
 * so a concurrent writer tears it (rdma-sync-tods25); without chaos a
 * READ is copied at once */
static void r_chaos_read_lines_unordered(struct rx *x)
{
	uint8_t *out = aligned_alloc(64, 512);
	bool torn_not_prefix = false;

	(void)x;
	for (uint64_t seed = 1; seed <= 8; seed++) {
		int v1 = read_versions(true, seed, out);
		bool prefix = true;

		assert_int_equal(v1, 2); /* exactly the two lines copied first are old */
		for (int i = 0; i < 512; i += 64)
			if (out[i] == 1 && i >= 128)
				prefix = false;
		torn_not_prefix |= !prefix; /* ... and they are not always lines 0, 1 */
	}
	assert_true(torn_not_prefix);
	assert_int_equal(read_versions(false, 1, out), 8);
	free(out);
}

/* A recorder of (kind, qpn, counter, t) for determinism and clock rules. */
struct rec {
	uint64_t hash;
	sim_time_t start[8];
	int nstart;
};

static void rec_event(void *ctx, const struct sim_event *ev)
{
	struct rec *r = ctx;

	r->hash = (r->hash ^ (uint64_t)ev->kind) * 0x100000001b3ull;
	r->hash = (r->hash ^ ev->qpn ^ (uint64_t)ev->wqe_counter << 24) * 0x100000001b3ull;
	r->hash = (r->hash ^ ev->t) * 0x100000001b3ull;
	if (ev->kind == SIM_EV_EXEC_START && r->nstart < 8)
		r->start[r->nstart++] = ev->t;
}

static uint64_t run_mix(uint64_t seed, enum sim_sched_policy pol)
{
	struct rec r = {.hash = 0xcbf29ce484222325ull};
	struct sim_observer obs = {.ctx = &r, .event = rec_event};
	struct sim_dev_opts o = {.sz = sizeof(o), .seed = seed, .sched = pol, .obs = &obs};
	struct sim_dev *dev;
	struct hx_cq cq;
	struct hx_qp q[4];
	uint8_t *buf = aligned_alloc(4096, 4096);
	uint32_t key;

	memset(buf, 0, 4096);
	assert_int_equal(sim_dev_open(&o, &dev), 0);
	key = hx_key(dev, buf, 4096, CONF_ALL);
	hx_cq_init(&cq, dev, 256, true);
	for (int i = 0; i < 4; i++)
		hx_qp_init(&q[i], dev, &cq, &cq, 64, 0, 0);
	hx_pair(&q[0], &q[1]);
	hx_pair(&q[2], &q[3]);
	for (int i = 0; i < 4; i++) {
		for (int k = 0; k < 8; k++) {
			struct prism_wqe w;

			if (k % 2)
				hx_atomic(&w, PRISM_OP_ATOMIC_FA, (uintptr_t)buf, key, 1, 0,
				          (uintptr_t)buf + 64 + 8 * i, key, true);
			else
				hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)buf + 1024 + 64 * i, key,
				      (uintptr_t)buf, key, 8, k == 6);
			hx_post(&q[i], &w);
		}
		hx_ring(&q[i]);
	}
	assert_int_equal(sim_dev_run(dev, 0), 0);
	sim_dev_close(dev);
	free(buf);
	return r.hash;
}

/* rule deterministic-seed: the same seed and inputs give the same run,
 * event for event (both scheduler policies) */
static void r_deterministic_seed(struct rx *x)
{
	(void)x;
	assert_true(run_mix(7, SIM_SCHED_VTIME) == run_mix(7, SIM_SCHED_VTIME));
	assert_true(run_mix(7, SIM_SCHED_RANDOM) == run_mix(7, SIM_SCHED_RANDOM));
	assert_true(run_mix(3, SIM_SCHED_RANDOM) != run_mix(4, SIM_SCHED_RANDOM) ||
	            run_mix(3, SIM_SCHED_RANDOM) != run_mix(5, SIM_SCHED_RANDOM));
}

static void fixed_cost(void *ctx, const struct sim_cost_query *q, struct sim_cost *out)
{
	(void)ctx;
	(void)q;
	out->busy = 100;
	out->latency = 1000;
}

/* rule virtual-clock-start-time: a WQE starts at max(its PU's time, the
 * time its dependency was satisfied); the PU is busy for the cost's busy
 * part, the effect lands after its latency */
static void r_virtual_clock_start_time(struct rx *x)
{
	struct rec r = {0};
	struct sim_observer obs = {.ctx = &r, .cost = fixed_cost, .event = rec_event};
	struct sim_dev_opts o = {.sz = sizeof(o), .obs = &obs};
	struct sim_dev *dev;
	struct hx_cq cq;
	struct hx_qp a, b;
	struct prism_wqe w;

	(void)x;
	assert_int_equal(sim_dev_open(&o, &dev), 0);
	hx_cq_init(&cq, dev, 16, false);
	hx_qp_init(&a, dev, &cq, &cq, 16, 0, SIM_QP_CROSS_CHANNEL);
	hx_qp_init(&b, dev, &cq, &cq, 16, 0, SIM_QP_CROSS_CHANNEL);
	hx_pair(&a, &a);
	hx_pair(&b, &b);
	hx_nop(&w, true); /* a: NOP at 0, CQE at 0 + 1000 */
	hx_post(&a, &w);
	hx_nop(&w, false); /* a: NOP at 100 (PU busy 100) */
	hx_post(&a, &w);
	hx_ring(&a);
	hx_wait(&w, sim_cq_num(cq.cq), 0, false); /* b: WAIT satisfied at 1000 */
	hx_post(&b, &w);
	hx_nop(&w, false); /* b: starts at 1000 + 100 */
	hx_post(&b, &w);
	hx_ring(&b);
	assert_int_equal(sim_dev_run(dev, 0), 0);
	assert_int_equal(r.nstart, 4);
	/* order of starts is by virtual time: 0, 100, 1000, 1100 */
	assert_int_equal(r.start[0], 0);
	assert_int_equal(r.start[1], 100);
	assert_int_equal(r.start[2], 1000);
	assert_int_equal(r.start[3], 1100);
	sim_dev_close(dev);
}

/* rule fabric-two-devices: QPs on two devices of an in-process fabric
 * talk through the packet wire */
static void r_fabric_two_devices(struct rx *x)
{
	struct sim_dev_opts o1 = {.sz = sizeof(o1), .node = 1}, o2 = {.sz = sizeof(o2), .node = 2};
	struct sim_dev *d1, *d2;
	struct sim_fabric *f;
	struct hx_cq c1, c2;
	struct hx_qp q1, q2;
	struct prism_wqe w;
	uint8_t *src = aligned_alloc(64, 64), *dst = aligned_alloc(64, 64);
	uint64_t *cnt = (uint64_t *)dst;

	(void)x;
	memset(src, 0xab, 64);
	memset(dst, 0, 64);
	assert_int_equal(sim_dev_open(&o1, &d1), 0);
	assert_int_equal(sim_dev_open(&o2, &d2), 0);
	assert_int_equal(sim_fabric_create(&f), 0);
	assert_int_equal(sim_fabric_attach(f, d1), 0);
	assert_int_equal(sim_fabric_attach(f, d2), 0);
	hx_cq_init(&c1, d1, 16, false);
	hx_cq_init(&c2, d2, 16, false);
	hx_qp_init(&q1, d1, &c1, &c1, 16, 4, 0);
	hx_qp_init(&q2, d2, &c2, &c2, 16, 4, 0);
	hx_connect(&q1, 2, q2.qpn, 7, 1);
	hx_connect(&q2, 1, q1.qpn, 7, 1);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)dst + 8, hx_key(d2, dst, 64, CONF_ALL),
	      (uintptr_t)src, hx_key(d1, src, 64, CONF_ALL), 16, true);
	hx_post(&q1, &w);
	hx_atomic(&w, PRISM_OP_ATOMIC_FA, (uintptr_t)cnt, w.raddr.rkey, 5, 0, (uintptr_t)src + 32,
	          w.sge[0].lkey, true);
	hx_post(&q1, &w);
	hx_ring(&q1);
	assert_int_equal(sim_fabric_run(f, 0), 0);
	assert_int_equal(hx_expect(&c1).opcode, PRISM_CQE_REQ);
	assert_int_equal(hx_expect(&c1).opcode, PRISM_CQE_REQ);
	assert_memory_equal(dst + 8, src, 16);
	assert_int_equal(*cnt, 5);
	sim_fabric_destroy(f);
	sim_dev_close(d1);
	sim_dev_close(d2);
	free(src);
	free(dst);
}

/* A transport that refuses every other packet (-EAGAIN) and parks the
 * rest for the test to deliver. */
struct fake_wire {
	struct sim_pkt *held[64];
	uint8_t payload[64][256];
	int n, calls;
};

static int fake_xmit(void *ctx, const struct sim_pkt *p)
{
	struct fake_wire *fw = ctx;

	if (fw->calls++ % 2 == 0)
		return -EAGAIN;
	assert_true(fw->n < 64 && p->payload_len <= 256);
	fw->held[fw->n] = test_malloc(sizeof(*p));
	*fw->held[fw->n] = *p;
	if (p->payload_len)
		memcpy(fw->payload[fw->n], p->payload, p->payload_len);
	fw->held[fw->n]->payload = fw->payload[fw->n];
	fw->n++;
	return 0;
}

static const struct sim_wire_ops fake_ops = {.xmit = fake_xmit};

/* rule transport-back-pressure: a transport may refuse a packet (-EAGAIN);
 * the device keeps it and the packets of a QP still leave in order */
static void r_transport_back_pressure(struct rx *x)
{
	struct sim_dev_opts o1 = {.sz = sizeof(o1), .node = 1}, o2 = {.sz = sizeof(o2), .node = 2};
	struct fake_wire fw = {0}, back = {0};
	struct sim_dev *d1, *d2;
	struct hx_cq c1, c2;
	struct hx_qp q1, q2;
	struct prism_wqe w;
	uint8_t *src = aligned_alloc(64, 64), *dst = aligned_alloc(64, 64);
	uint32_t skey, dkey;

	(void)x;
	memset(dst, 0, 64);
	for (int i = 0; i < 64; i++)
		src[i] = (uint8_t)i;
	assert_int_equal(sim_dev_open(&o1, &d1), 0);
	assert_int_equal(sim_dev_open(&o2, &d2), 0);
	sim_dev_set_wire(d1, &fake_ops, &fw);
	sim_dev_set_wire(d2, &fake_ops, &back);
	hx_cq_init(&c1, d1, 16, false);
	hx_cq_init(&c2, d2, 16, false);
	hx_qp_init(&q1, d1, &c1, &c1, 16, 4, 0);
	hx_qp_init(&q2, d2, &c2, &c2, 16, 4, 0);
	hx_connect(&q1, 2, q2.qpn, 7, 1);
	hx_connect(&q2, 1, q1.qpn, 7, 1);
	skey = hx_key(d1, src, 64, CONF_ALL);
	dkey = hx_key(d2, dst, 64, CONF_ALL);
	for (int i = 0; i < 4; i++) {
		hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)dst + 16 * i, dkey,
		      (uintptr_t)src + 16 * i, skey, 16, true);
		hx_post(&q1, &w);
	}
	hx_ring(&q1);
	for (int round = 0; round < 16 && fw.n < 4; round++) {
		sim_dev_kick(d1);
		assert_int_equal(sim_dev_run(d1, 0), 0);
	}
	assert_int_equal(fw.n, 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(fw.held[i]->kind, SIM_PKT_WRITE);
		assert_int_equal(fw.held[i]->psn, (uint32_t)i); /* in order */
		assert_int_equal(sim_dev_deliver(d2, fw.held[i]), 0);
		test_free(fw.held[i]);
	}
	for (int round = 0; round < 16 && back.n < 4; round++) {
		sim_dev_kick(d2);
		assert_int_equal(sim_dev_run(d2, 0), 0);
	}
	assert_memory_equal(dst, src, 64);
	assert_int_equal(back.n, 4); /* four ACKs */
	for (int i = 0; i < 4; i++) {
		assert_int_equal(back.held[i]->kind, SIM_PKT_ACK);
		assert_int_equal(sim_dev_deliver(d1, back.held[i]), 0);
		test_free(back.held[i]);
	}
	assert_int_equal(sim_dev_run(d1, 0), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(hx_expect(&c1).wqe_counter, i);
	sim_dev_close(d1);
	sim_dev_close(d2);
	free(src);
	free(dst);
}

/* rule stale-packet-dropped: a packet from another device that arrived for
 * a QP number is not taken by a QP created after it arrived, though that
 * QP reuses the number and is connected to the same peer (a NIC drops a
 * packet for a QP that does not exist; the sim reuses QP numbers at once) */
static void r_stale_packet_dropped(struct rx *x)
{
	struct sim_dev_opts o1 = {.sz = sizeof(o1), .node = 1}, o2 = {.sz = sizeof(o2), .node = 2};
	struct fake_wire fw = {0}, back = {0};
	struct sim_dev *d1, *d2;
	struct hx_cq c1, c2;
	struct hx_qp q1, q2;
	struct prism_wqe w;
	uint8_t *src = aligned_alloc(64, 64), *dst = aligned_alloc(64, 64);
	uint32_t skey, dkey, old_qpn;

	(void)x;
	memset(dst, 0, 64);
	memset(src, 0x5a, 64);
	assert_int_equal(sim_dev_open(&o1, &d1), 0);
	assert_int_equal(sim_dev_open(&o2, &d2), 0);
	sim_dev_set_wire(d1, &fake_ops, &fw);
	sim_dev_set_wire(d2, &fake_ops, &back);
	hx_cq_init(&c1, d1, 16, false);
	hx_cq_init(&c2, d2, 16, false);
	hx_qp_init(&q1, d1, &c1, &c1, 16, 4, 0);
	hx_qp_init(&q2, d2, &c2, &c2, 16, 4, 0);
	hx_connect(&q1, 2, q2.qpn, 7, 1);
	hx_connect(&q2, 1, q1.qpn, 7, 1);
	skey = hx_key(d1, src, 64, CONF_ALL);
	dkey = hx_key(d2, dst, 64, CONF_ALL);
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)dst, dkey, (uintptr_t)src, skey, 16, true);
	hx_post(&q1, &w);
	hx_ring(&q1);
	for (int round = 0; round < 16 && fw.n < 1; round++) {
		sim_dev_kick(d1);
		assert_int_equal(sim_dev_run(d1, 0), 0);
	}
	assert_int_equal(fw.n, 1);
	/* the WRITE arrives; before d2 runs, its QP goes and another takes
	 * its number, connected to the same peer at the same PSN */
	assert_int_equal(sim_dev_deliver(d2, fw.held[0]), 0);
	test_free(fw.held[0]);
	old_qpn = q2.qpn;
	assert_int_equal(sim_mr_dereg(q2.sq_mr), 0);
	assert_int_equal(sim_qp_destroy(q2.qp), 0);
	hx_qp_init(&q2, d2, &c2, &c2, 16, 4, 0);
	assert_int_equal(q2.qpn, old_qpn);
	hx_connect(&q2, 1, q1.qpn, 7, 1);
	for (int round = 0; round < 4; round++) {
		sim_dev_kick(d2);
		assert_int_equal(sim_dev_run(d2, 0), 0);
	}
	assert_int_equal(dst[0], 0); /* not written */
	assert_int_equal(back.n, 0); /* nothing answered */
	sim_dev_close(d1);
	sim_dev_close(d2);
	free(src);
	free(dst);
}

/* rule threaded-mode: a background NIC thread executes what the host posts;
 * the host sees CQEs by polling memory */
static void r_threaded_mode(struct rx *x)
{
	struct env *e = env_make(SIM_FW_STRICT, SIM_HAZARD_WARN, false, 0, 0);
	struct prism_wqe w;
	struct prism_cqe c;
	long spins = 0;
	clockid_t nic;
	struct timespec ts;

	assert_int_equal(sim_dev_thread_cpu_clock(e->dev, &nic), -EINVAL); /* no thread yet */
	assert_int_equal(sim_dev_start(e->dev), 0);
	assert_int_equal(sim_dev_run(e->dev, 0), SIM_E_BUSY);
	assert_int_equal(sim_dev_thread_cpu_clock(e->dev, &nic), 0);
	for (int i = 0; i < 100; i++) {
		hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst + 8 * (i % 64), e->dst_key,
		      (uintptr_t)e->src + 8 * (i % 64), e->src_key, 8, true);
		hx_post(&e->a, &w);
		hx_ring(&e->a);
		/* bounded: a hung engine fails the test instead of hanging it */
		while (!hx_poll(&e->cq_a, &c) && spins++ < 2000000000L)
			sched_yield();
		assert_int_equal(c.opcode, PRISM_CQE_REQ);
		assert_int_equal(c.wqe_counter, i);
	}
	/* the NIC thread's own CPU clock has charged it for that work */
	assert_int_equal(clock_gettime(nic, &ts), 0);
	assert_true(ts.tv_sec > 0 || ts.tv_nsec > 0);
	assert_int_equal(sim_dev_stop(e->dev), 0);
	assert_int_equal(sim_dev_thread_cpu_clock(e->dev, &nic), -EINVAL);
	assert_memory_equal(e->dst, e->src, 512);
	env_free(e);
	(void)x;
}

#define ENGINE(why) .needs = RULE_NEEDS_SIM_ENGINE, .why_not = "the software NIC's " why

static const struct rule rules[] = {
    RULE("6.1", "chaos-read-lines-unordered", r_chaos_read_lines_unordered,
         ENGINE("chaos mode: a NIC's READ order cannot be chosen or stepped")),
    RULE("6.2", "deterministic-seed", r_deterministic_seed,
         ENGINE("seeded scheduler: a NIC has no seed")),
    RULE("6.3", "virtual-clock-start-time", r_virtual_clock_start_time,
         ENGINE("virtual clock and cost callback: a NIC has neither")),
    RULE("6.4", "fabric-two-devices", r_fabric_two_devices,
         ENGINE("in-process wire (its packets): purely wire-level, no device shows them")),
    RULE("6.5", "transport-back-pressure", r_transport_back_pressure,
         ENGINE("plugged-in transport: purely wire-level, no device shows it")),
    RULE("6.5a", "stale-packet-dropped", r_stale_packet_dropped,
         ENGINE("QP numbering and its wire: purely wire-level, no device shows it")),
    RULE("6.6", "threaded-mode", r_threaded_mode,
         ENGINE("threaded runner (its NIC thread's start and stop)")),
};
RULE_TABLE(rules_engine, rules);
