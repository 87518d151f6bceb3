/* SPDX-License-Identifier: MIT */
/*
 * bench_sim.c - how fast the software RNIC executes WQEs, and what its
 * virtual clock predicts against RedN's measurements.
 *
 * Host figures (wall clock, this machine), each the median of RUNS runs
 * with a baseline measured in the same run:
 *   - WQEs executed per CPU-second of the core that runs the NIC: in
 *     deterministic mode the caller's thread (its CPU time), in threaded
 *     mode the NIC thread (its own CPU-time clock), for NOP
 *     chains, 64-byte WRITE and READ, and CAS; hazard detection is on.
 *     CPU time, not wall time, so a loaded machine does not skew them.  Baselines: memcpy of the
 * same bytes, and the NOP chain (ratio = verb rate / NOP rate).
 *   - RedN hash gets per second in-process (the host re-posts the unrolled
 *     chain per request, as RedN does), vs the NOP WQE rate / 7 WQEs.
 * Virtual-clock figures (cx5 profile), next to RedN's numbers.
 *
 * Figures only: never fails on speed.  Owns: these measurements.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>

#include "sim/cost_profile.h"
#include "sim/sim.h"
#include "tests/support/host_verbs.h"
#include "tests/support/redn_hash_chain.h"
#include "tests/support/bench_stats.h"

#define RUNS  7
#define CHAIN 4096 /* WQEs per run */

/* CPU time of this thread: "per core" figures do not count time the OS gave
 * to other processes (deterministic mode runs everything on this thread). */
static double cpu_now(void)
{
	return bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
}

/*
 * The CPU-time clock of the core that runs @d's engine: this thread's in
 * deterministic mode, the NIC thread's in threaded mode (read directly: the
 * process clock minus this thread's lags by up to a scheduler tick for a
 * thread running on another CPU, far more than a 4,096-WQE chain takes).
 */
static clockid_t nic_clock(struct sim_dev *d, bool threaded)
{
	clockid_t c = CLOCK_THREAD_CPUTIME_ID;

	if (threaded)
		BENCH_CHECK(sim_dev_thread_cpu_clock(d, &c));
	return c;
}

struct rig {
	struct sim_dev *d;
	struct sim_cq *cq, *cq_r;
	struct sim_qp *a, *b;
	struct hv_qp ha;
	struct hv_cq hcq;
	uint8_t *src, *dst;
	struct sim_mr *mr_src, *mr_dst;
	bool threaded;
};

static void connect(struct sim_qp *x, struct sim_qp *y)
{
	struct sim_qp_mod m = {.state = SIM_QPS_INIT};
	BENCH_CHECK(sim_qp_modify(x, &m));
	m = (struct sim_qp_mod){.state = SIM_QPS_RTR, .peer_node = 1, .peer_qpn = sim_qp_num(y)};
	BENCH_CHECK(sim_qp_modify(x, &m));
	m = (struct sim_qp_mod){.state = SIM_QPS_RTS};
	BENCH_CHECK(sim_qp_modify(x, &m));
}

static void rig_open(struct rig *g, bool threaded, const struct sim_observer *obs)
{
	memset(g, 0, sizeof(*g));
	struct sim_dev_opts o = {.sz = sizeof(o),
	                         .seed = 1,
	                         .fw = SIM_FW_RELAXED,
	                         .hazard = SIM_HAZARD_FAIL,
	                         .node = 1,
	                         .obs = obs};
	BENCH_CHECK(sim_dev_open(&o, &g->d));
	struct sim_cq_attr ca = {.ncqe = 2 * CHAIN, .ignore_overrun = true};
	BENCH_CHECK(sim_cq_create(g->d, &ca, &g->cq));
	BENCH_CHECK(sim_cq_create(g->d, &ca, &g->cq_r));
	struct sim_qp_attr qa = {.access = SIM_ACCESS_REMOTE_ALL,
	                         .send_cq = g->cq,
	                         .recv_cq = g->cq_r,
	                         .sq_bbs = CHAIN,
	                         .rq_max_sge = 1,
	                         .flags = SIM_QP_CROSS_CHANNEL};
	BENCH_CHECK(sim_qp_create(g->d, &qa, &g->a));
	qa.flags = 0;
	qa.send_cq = g->cq_r;
	qa.sq_bbs = 1;
	BENCH_CHECK(sim_qp_create(g->d, &qa, &g->b));
	connect(g->a, g->b);
	connect(g->b, g->a);
	hv_qp_init(&g->ha, g->a, CHAIN, 0);
	hv_cq_init(&g->hcq, g->cq);
	if (posix_memalign((void **)&g->src, 4096, 64 * CHAIN) ||
	    posix_memalign((void **)&g->dst, 4096, 64 * CHAIN))
		bench_die("posix_memalign", -1);
	memset(g->src, 0x5a, 64 * CHAIN);
	memset(g->dst, 0, 64 * CHAIN);
	const unsigned all = SIM_ACCESS_LOCAL_WRITE | SIM_ACCESS_REMOTE_READ |
	                     SIM_ACCESS_REMOTE_WRITE | SIM_ACCESS_REMOTE_ATOMIC;
	BENCH_CHECK(sim_mr_reg(g->d, g->src, 64 * CHAIN, all, &g->mr_src));
	BENCH_CHECK(sim_mr_reg(g->d, g->dst, 64 * CHAIN, all, &g->mr_dst));
	g->threaded = threaded;
	if (threaded)
		BENCH_CHECK(sim_dev_start(g->d));
}

static void rig_close(struct rig *g)
{
	if (g->threaded)
		sim_dev_stop(g->d);
	sim_mr_dereg(g->mr_src);
	sim_mr_dereg(g->mr_dst);
	sim_qp_destroy(g->a);
	sim_qp_destroy(g->b);
	sim_cq_destroy(g->cq);
	sim_cq_destroy(g->cq_r);
	sim_dev_close(g->d);
	free(g->src);
	free(g->dst);
}

/* Post CHAIN WQEs of @op (the last one signaled). */
static void post_chain(struct rig *g, uint8_t op)
{
	for (unsigned i = 0; i < CHAIN; i++) {
		struct prism_wqe w;
		hv_wqe(&w, op, i == CHAIN - 1);
		uint64_t off = (uint64_t)i * 64;
		switch (op) {
		case PRISM_OP_RDMA_WRITE:
		case PRISM_OP_RDMA_READ:
			w.raddr.raddr = (uint64_t)(uintptr_t)g->dst + off;
			w.raddr.rkey = sim_mr_rkey(g->mr_dst);
			w.num_sge = 1;
			w.sge[0] = (struct prism_sge){.byte_count = 64,
			                              .lkey = sim_mr_lkey(g->mr_src),
			                              .addr = (uint64_t)(uintptr_t)g->src + off};
			break;
		case PRISM_OP_ATOMIC_CS:
			w.raddr.raddr = (uint64_t)(uintptr_t)g->dst + off;
			w.raddr.rkey = sim_mr_rkey(g->mr_dst);
			w.atomic.size = 8;
			w.atomic.compare = 0;
			w.atomic.swap = i;
			w.num_sge = 1;
			w.sge[0] = (struct prism_sge){.byte_count = 8,
			                              .lkey = sim_mr_lkey(g->mr_src),
			                              .addr = (uint64_t)(uintptr_t)g->src + off};
			break;
		default:
			break;
		}
		BENCH_CHECK(hv_post_send(&g->ha, &w, false, NULL));
	}
}

/* Execute one posted chain; returns CPU seconds of the NIC's core (posting
 * excluded) and the wall seconds in *@wall. */
static double run_chain(struct rig *g, uint8_t op, double *wall)
{
	struct prism_cqe c;
	post_chain(g, op);
	clockid_t clk = nic_clock(g->d, g->threaded);
	double w0 = bench_now(), t0 = bench_clock_s(clk);
	BENCH_CHECK(hv_ring(&g->ha));
	if (g->threaded) {
		int rc;
		while ((rc = hv_poll(&g->hcq, &c)) == 0)
			sched_yield();
		BENCH_CHECK(rc);
	} else {
		BENCH_CHECK(sim_dev_run(g->d, 0));
		if (hv_poll(&g->hcq, &c) != 1)
			bench_die("completion", -1);
	}
	double dt = bench_clock_s(clk) - t0;
	*wall = bench_now() - w0;
	if (c.opcode != PRISM_CQE_REQ)
		bench_die("chain completed in error", -c.syndrome);
	return dt;
}

/* Median WQEs/s over RUNS chains on one warm rig (one warm-up chain first);
 * the median wall-clock rate in *@wall_rate. */
static double chain_rate(bool threaded, uint8_t op, int runs, double *wall_rate)
{
	struct rig g;
	double x[RUNS * 64], wx[RUNS * 64], w;
	rig_open(&g, threaded, NULL);
	run_chain(&g, op, &w);
	for (int r = 0; r < runs; r++) {
		x[r] = CHAIN / run_chain(&g, op, &w);
		wx[r] = CHAIN / w;
	}
	*wall_rate = bench_median(wx, runs);
	struct sim_stats st;
	sim_dev_stats(g.d, &st);
	if (st.hazards)
		bench_die("hazard", -1);
	rig_close(&g);
	return bench_median(x, runs);
}

static double memcpy_rate(void)
{
	static uint8_t a[64 * CHAIN], b[64 * CHAIN];
	memset(a, 1, sizeof(a));
	double t0 = cpu_now();
	for (int rep = 0; rep < 16; rep++) {
		for (unsigned i = 0; i < CHAIN; i++)
			memcpy(b + 64 * i, a + 64 * ((i * 7 + rep) % CHAIN), 64);
		__asm__ volatile("" : : "r"(b) : "memory");
	}
	return 16.0 * CHAIN / (cpu_now() - t0);
}

/* @n connected QPs with nothing posted: the other connections of a server. */
static void add_idle_qps(struct sim_dev *d, unsigned n, struct sim_cq **cq, struct sim_qp ***qps)
{
	struct sim_cq_attr ca = {.ncqe = 64};
	BENCH_CHECK(sim_cq_create(d, &ca, cq));
	*qps = calloc(n ? n : 1, sizeof(**qps));
	if (!*qps)
		bench_die("calloc", -1);
	for (unsigned i = 0; i < n; i++) {
		struct sim_qp_attr qa = {.access = SIM_ACCESS_REMOTE_ALL,
		                         .send_cq = *cq,
		                         .recv_cq = *cq,
		                         .sq_bbs = 64,
		                         .rq_wqes = 16};
		BENCH_CHECK(sim_qp_create(d, &qa, &(*qps)[i]));
		struct sim_qp_mod m = {.state = SIM_QPS_INIT};
		BENCH_CHECK(sim_qp_modify((*qps)[i], &m));
		m = (struct sim_qp_mod){.state = SIM_QPS_RTR,
		                        .peer_node = sim_dev_node(d),
		                        .peer_qpn = sim_qp_num((*qps)[i])};
		BENCH_CHECK(sim_qp_modify((*qps)[i], &m));
		m = (struct sim_qp_mod){.state = SIM_QPS_RTS};
		BENCH_CHECK(sim_qp_modify((*qps)[i], &m));
	}
}

/* RedN hash gets per second, host posting included; @idle other connected
 * QPs on the server device (a server holding many connections). */
static double hash_rate_idle(bool threaded, unsigned gets, unsigned idle)
{
	struct sim_dev *d;
	struct sim_dev_opts o = {
	    .sz = sizeof(o), .seed = 1, .fw = SIM_FW_RELAXED, .hazard = SIM_HAZARD_FAIL, .node = 1};
	BENCH_CHECK(sim_dev_open(&o, &d));
	/* doorbells: rung once per batch below, not by every post */
	struct redn_hash_cfg cfg = {.nbuckets = 1024,
	                            .value_len = 64,
	                            .max_inflight = 64,
	                            .seed = 9,
	                            .defer_doorbells = true};
	struct redn_hash *h;
	struct sim_cq *idle_cq;
	struct sim_qp **idle_qps;
	add_idle_qps(d, idle, &idle_cq, &idle_qps);
	BENCH_CHECK(redn_hash_create(d, d, &cfg, &h));
	if (threaded)
		BENCH_CHECK(sim_dev_start(d));
	clockid_t clk = nic_clock(d, threaded);
	double t0 = bench_clock_s(clk);
	unsigned done = 0, b = 0;
	while (done < gets) {
		unsigned n = gets - done < 64 ? gets - done : 64;
		for (unsigned i = 0; i < n; i++, b = (b + 37) % 1024)
			BENCH_CHECK(redn_hash_post_get(h, redn_hash_key(h, b), b, NULL));
		BENCH_CHECK(redn_hash_ring(h)); /* one doorbell per queue per batch */
		if (!threaded)
			BENCH_CHECK(sim_dev_run(d, 0));
		struct redn_hash_reply r;
		for (unsigned got = 0; got < n;) {
			int rc = redn_hash_poll_reply(h, &r);
			BENCH_CHECK(rc);
			if (rc == 0 && threaded)
				sched_yield();
			got += (unsigned)rc;
		}
		redn_hash_drained(h);
		done += n;
	}
	double dt = bench_clock_s(clk) - t0;
	if (threaded)
		sim_dev_stop(d);
	redn_hash_destroy(h);
	for (unsigned i = 0; i < idle; i++)
		BENCH_CHECK(sim_qp_destroy(idle_qps[i]));
	free(idle_qps);
	BENCH_CHECK(sim_cq_destroy(idle_cq));
	sim_dev_close(d);
	return gets / dt;
}

static double hash_rate(bool threaded, unsigned gets)
{
	return hash_rate_idle(threaded, gets, 0);
}

/* ---- virtual clock --------------------------------------------------------- */

struct vprobe {
	struct sim_cost_profile p;
	sim_time_t send_at, reply_at;
};

static void vcost(void *ctx, const struct sim_cost_query *q, struct sim_cost *out)
{
	sim_cost_profile_charge(&((struct vprobe *)ctx)->p, q, out);
}

static void vevent(void *ctx, const struct sim_event *ev)
{
	struct vprobe *v = ctx;
	if (ev->kind == SIM_EV_EXEC_START && ev->opcode == PRISM_OP_SEND && !v->send_at)
		v->send_at = ev->t;
	if (ev->kind == SIM_EV_CQE && ev->cqe_opcode == PRISM_CQE_RESP_WR_IMM && !v->reply_at)
		v->reply_at = ev->t;
}

/* Virtual time at which the @nth CQE of @cq was written. */
struct cqe_clock {
	struct sim_cost_profile p;
	uint32_t cqn, want, seen;
	sim_time_t at;
};

static void cc_cost(void *ctx, const struct sim_cost_query *q, struct sim_cost *out)
{
	sim_cost_profile_charge(&((struct cqe_clock *)ctx)->p, q, out);
}

static void cc_event(void *ctx, const struct sim_event *ev)
{
	struct cqe_clock *c = ctx;
	if (ev->kind == SIM_EV_CQE && ev->cqn == c->cqn && ++c->seen == c->want)
		c->at = ev->t;
}

/*
 * Fig. 7 / Fig. 8 on the engine: a chain of @n NOOPs (or one @op) on a
 * loopback QP, ordered by @mode, from the doorbell to the last CQE:
 *   WQ          NOP NOP ...                      one unmanaged QP
 *   COMPLETION  NOP (WAIT NOP) (WAIT NOP) ...    one cross-channel QP
 *   DOORBELL    managed QP M: NOP NOP ...; control QP C: SEN(M,1) (WAIT SEN(M,k)) ...
 */
static double fig_chain_us(enum sim_order mode, uint8_t op, unsigned n)
{
	struct cqe_clock cc = {0};
	sim_cost_profile_builtin("cx5", &cc.p, NULL);
	struct sim_observer obs = {.ctx = &cc, .cost = cc_cost, .event = cc_event};
	struct rig g;
	rig_open(&g, false, &obs);
	struct prism_wqe w;
	cc.cqn = sim_cq_num(g.cq);
	cc.want = n;
	if (mode == SIM_ORDER_DOORBELL) {
		/* g.a becomes the control queue; M is a fresh managed QP */
		struct sim_qp *m, *mr;
		struct sim_cq *cqm;
		struct sim_cq_attr ca = {.ncqe = 64, .ignore_overrun = true};
		BENCH_CHECK(sim_cq_create(g.d, &ca, &cqm));
		struct sim_qp_attr qa = {.access = SIM_ACCESS_REMOTE_ALL,
		                         .send_cq = cqm,
		                         .recv_cq = g.cq_r,
		                         .sq_bbs = 64,
		                         .rq_max_sge = 1,
		                         .flags = SIM_QP_CROSS_CHANNEL | SIM_QP_MANAGED_SEND};
		BENCH_CHECK(sim_qp_create(g.d, &qa, &m));
		qa.flags = 0;
		qa.sq_bbs = 1;
		BENCH_CHECK(sim_qp_create(g.d, &qa, &mr));
		connect(m, mr);
		connect(mr, m);
		struct hv_qp hm;
		hv_qp_init(&hm, m, 64, 0);
		for (unsigned i = 0; i < n; i++) {
			hv_wqe(&w, PRISM_OP_NOP, true);
			BENCH_CHECK(hv_post_send(&hm, &w, false, NULL));
		}
		cc.cqn = sim_cq_num(cqm);
		for (unsigned i = 0; i < n; i++) {
			if (i) {
				hv_wqe(&w, PRISM_OP_CQE_WAIT, false);
				w.wait_en.index = i - 1; /* CQE number i - 1: NOP i - 1 done */
				w.wait_en.obj_num = sim_cq_num(cqm);
				BENCH_CHECK(hv_post_send(&g.ha, &w, false, NULL));
			}
			hv_wqe(&w, PRISM_OP_SEND_ENABLE, false);
			w.wait_en.index = i + 1;
			w.wait_en.obj_num = sim_qp_num(m);
			BENCH_CHECK(hv_post_send(&g.ha, &w, false, NULL));
		}
		BENCH_CHECK(hv_ring(&g.ha));
		BENCH_CHECK(sim_dev_run(g.d, 0));
		sim_qp_destroy(m);
		sim_qp_destroy(mr);
		sim_cq_destroy(cqm);
	} else {
		for (unsigned i = 0; i < n; i++) {
			if (i && mode == SIM_ORDER_COMPLETION) {
				hv_wqe(&w, PRISM_OP_CQE_WAIT, false);
				w.wait_en.index = i - 1; /* the previous WQE's CQE */
				w.wait_en.obj_num = sim_cq_num(g.cq);
				BENCH_CHECK(hv_post_send(&g.ha, &w, false, NULL));
			}
			hv_wqe(&w, op, true);
			if (op != PRISM_OP_NOP) {
				w.raddr.raddr = (uint64_t)(uintptr_t)g.dst;
				w.raddr.rkey = sim_mr_rkey(g.mr_dst);
				w.atomic.size = 8;
				w.num_sge = 1;
				w.sge[0] = (struct prism_sge){.byte_count =
				                                  op == PRISM_OP_ATOMIC_CS ? 8 : 64,
				                              .lkey = sim_mr_lkey(g.mr_src),
				                              .addr = (uint64_t)(uintptr_t)g.src};
			}
			BENCH_CHECK(hv_post_send(&g.ha, &w, false, NULL));
		}
		BENCH_CHECK(hv_ring(&g.ha));
		BENCH_CHECK(sim_dev_run(g.d, 0));
	}
	rig_close(&g);
	if (cc.seen < cc.want)
		bench_die("virtual chain did not complete", -1);
	return (double)cc.at / 1e6;
}

/*
 * RedN's `if` (Table 2: 1 copy + 1 atomic + 3 ordering WRs), @k of them back
 * to back, virtual ifs per second:
 *   W (managed)    CAS R_i.ctrl: NOP -> WRITE when the operand matches
 *   C (host)       SEN(W, CAS_i)  WAIT(W's CQ, i)  SEN(Q, R_i)
 *   Q (managed)    R_i: a WRITE of 8 bytes (or the NOP it was posted as)
 */
static double if_rate_mops(unsigned k)
{
	struct cqe_clock cc = {0};
	sim_cost_profile_builtin("cx5", &cc.p, NULL);
	struct sim_observer obs = {.ctx = &cc, .cost = cc_cost, .event = NULL};
	struct rig g;
	rig_open(&g, false, &obs); /* g.a is C; its peer g.b serves the verbs */
	struct sim_cq *cqw, *cqq;
	struct sim_cq_attr ca = {.ncqe = 1024, .ignore_overrun = true};
	BENCH_CHECK(sim_cq_create(g.d, &ca, &cqw));
	BENCH_CHECK(sim_cq_create(g.d, &ca, &cqq));
	struct sim_qp *w, *q, *peer;
	struct sim_qp_attr qa = {.access = SIM_ACCESS_REMOTE_ALL,
	                         .send_cq = cqw,
	                         .recv_cq = g.cq_r,
	                         .sq_bbs = 1024,
	                         .rq_max_sge = 1,
	                         .flags = SIM_QP_CROSS_CHANNEL | SIM_QP_MANAGED_SEND};
	BENCH_CHECK(sim_qp_create(g.d, &qa, &w));
	qa.send_cq = cqq;
	BENCH_CHECK(sim_qp_create(g.d, &qa, &q));
	qa.flags = 0;
	qa.sq_bbs = 1;
	BENCH_CHECK(sim_qp_create(g.d, &qa, &peer));
	connect(w, peer);
	connect(q, peer);
	connect(peer, w);
	struct sim_mr *mr_q;
	BENCH_CHECK(sim_mr_reg(
	    g.d, sim_qp_buf(q), sim_qp_buf_len(q),
	    SIM_ACCESS_LOCAL_WRITE | SIM_ACCESS_REMOTE_ATOMIC | SIM_ACCESS_REMOTE_WRITE, &mr_q));
	struct hv_qp hw, hq;
	hv_qp_init(&hw, w, 1024, 0);
	hv_qp_init(&hq, q, 1024, 0);
	struct prism_wqe x;
	for (unsigned i = 0; i < k; i++) {
		/* R_i: a WRITE posted as a NOP */
		hv_wqe(&x, PRISM_OP_RDMA_WRITE, false);
		x.raddr.raddr = (uint64_t)(uintptr_t)g.dst;
		x.raddr.rkey = sim_mr_rkey(g.mr_dst);
		x.num_sge = 1;
		x.sge[0] = (struct prism_sge){.byte_count = 8,
		                              .lkey = sim_mr_lkey(g.mr_src),
		                              .addr = (uint64_t)(uintptr_t)g.src};
		uint8_t *r;
		BENCH_CHECK(hv_post_send(&hq, &x, false, &r));
		struct prism_ctrl_seg wr, nop;
		prism_ctrl_seg_unpack(r, &wr);
		nop = wr;
		nop.opcode = PRISM_OP_NOP;
		prism_ctrl_seg_pack(&nop, r);
		uint8_t b[16];
		uint64_t vw, vn;
		prism_ctrl_seg_pack(&wr, b);
		memcpy(&vw, b, 8);
		prism_ctrl_seg_pack(&nop, b);
		memcpy(&vn, b, 8);
		/* CAS_i: the condition holds on even i */
		hv_wqe(&x, PRISM_OP_ATOMIC_CS, true);
		x.raddr.raddr = (uint64_t)(uintptr_t)r;
		x.raddr.rkey = sim_mr_rkey(mr_q);
		x.atomic.size = 8;
		x.atomic.compare = i % 2 ? vn + 1 : vn;
		x.atomic.swap = vw;
		x.num_sge = 1;
		x.sge[0] = (struct prism_sge){.byte_count = 8,
		                              .lkey = sim_mr_lkey(g.mr_dst),
		                              .addr = (uint64_t)(uintptr_t)g.dst};
		BENCH_CHECK(hv_post_send(&hw, &x, false, NULL));
		struct {
			uint8_t op;
			uint32_t index, obj;
		} c3[3] = {{PRISM_OP_SEND_ENABLE, hw.sq_pi, sim_qp_num(w)},
		           {PRISM_OP_CQE_WAIT, i, sim_cq_num(cqw)},
		           {PRISM_OP_SEND_ENABLE, hq.sq_pi, sim_qp_num(q)}};
		for (int j = 0; j < 3; j++) {
			hv_wqe(&x, c3[j].op, false);
			x.wait_en.index = c3[j].index;
			x.wait_en.obj_num = c3[j].obj;
			BENCH_CHECK(hv_post_send(&g.ha, &x, false, NULL));
		}
	}
	BENCH_CHECK(hv_ring(&g.ha));
	BENCH_CHECK(sim_dev_run(g.d, 0));
	struct sim_stats st;
	sim_dev_stats(g.d, &st);
	sim_mr_dereg(mr_q);
	sim_qp_destroy(w);
	sim_qp_destroy(q);
	sim_qp_destroy(peer);
	sim_cq_destroy(cqw);
	sim_cq_destroy(cqq);
	rig_close(&g);
	return k / ((double)st.vtime_max / 1e6);
}

static void virtual_microbenchmarks(void)
{
	static const struct {
		const char *name;
		uint8_t op;
		double redn_us;
	} fig7[] = {{"NOOP", PRISM_OP_NOP, 1.21},
	            {"WRITE 64 B", PRISM_OP_RDMA_WRITE, 1.6},
	            {"READ 64 B", PRISM_OP_RDMA_READ, 1.8},
	            {"CAS", PRISM_OP_ATOMIC_CS, 1.8}};
	for (size_t i = 0; i < sizeof(fig7) / sizeof(fig7[0]); i++) {
		double us = fig_chain_us(SIM_ORDER_WQ, fig7[i].op, 1);
		printf("  Fig. 7 %-12s         predicted %6.2f us   RedN %5.2f us   (x%.2f)\n",
		       fig7[i].name, us, fig7[i].redn_us, us / fig7[i].redn_us);
	}
	static const struct {
		enum sim_order mode;
		const char *name;
		double slope;
	} fig8[] = {{SIM_ORDER_WQ, "WQ order", 0.17},
	            {SIM_ORDER_COMPLETION, "completion order", 0.19},
	            {SIM_ORDER_DOORBELL, "doorbell order", 0.54}};
	for (size_t i = 0; i < sizeof(fig8) / sizeof(fig8[0]); i++) {
		double one = fig_chain_us(fig8[i].mode, PRISM_OP_NOP, 1);
		double eight = fig_chain_us(fig8[i].mode, PRISM_OP_NOP, 8);
		double slope = (eight - one) / 7;
		printf("  Fig. 8 8 NOOPs, %-16s predicted %6.2f us   RedN %5.2f us   "
		       "(+%.2f us/WR vs +%.2f)\n",
		       fig8[i].name, eight, 1.21 + 7 * fig8[i].slope, slope, fig8[i].slope);
	}
}

/* Virtual latency of one get across two nodes, and virtual time per get when
 * @n gets are posted back to back on one device. */
static void hash_virtual(double *lat_us, double *per_get_us)
{
	struct vprobe vs = {0}, vc = {0};
	sim_cost_profile_builtin("cx5", &vs.p, NULL);
	vc.p = vs.p;
	struct sim_observer os = {.ctx = &vs, .cost = vcost, .event = NULL};
	struct sim_observer oc = {.ctx = &vc, .cost = vcost, .event = vevent};
	struct sim_dev *s, *c;
	struct sim_dev_opts o = {
	    .sz = sizeof(o), .seed = 1, .fw = SIM_FW_RELAXED, .node = 1, .obs = &os};
	BENCH_CHECK(sim_dev_open(&o, &s));
	o.node = 2;
	o.obs = &oc;
	BENCH_CHECK(sim_dev_open(&o, &c));
	struct sim_fabric *f;
	BENCH_CHECK(sim_fabric_create(&f));
	BENCH_CHECK(sim_fabric_attach(f, s));
	BENCH_CHECK(sim_fabric_attach(f, c));
	struct redn_hash_cfg cfg = {.nbuckets = 64, .value_len = 64, .max_inflight = 64, .seed = 2};
	struct redn_hash *h;
	BENCH_CHECK(redn_hash_create(s, c, &cfg, &h));
	BENCH_CHECK(redn_hash_post_get(h, redn_hash_key(h, 1), 1, NULL));
	BENCH_CHECK(sim_fabric_run(f, 0));
	*lat_us = (double)(vc.reply_at - vc.send_at) / 1e6;
	/* 64 gets back to back: virtual time per get */
	redn_hash_drained(h);
	struct sim_stats st0, st1;
	sim_dev_stats(s, &st0);
	for (unsigned i = 0; i < 64; i++)
		BENCH_CHECK(redn_hash_post_get(h, redn_hash_key(h, i), i, NULL));
	BENCH_CHECK(sim_fabric_run(f, 0));
	sim_dev_stats(s, &st1);
	*per_get_us = (double)(st1.vtime_max - st0.vtime_max) / 1e6 / 64;
	redn_hash_destroy(h);
	sim_fabric_destroy(f);
	sim_dev_close(c);
	sim_dev_close(s);
}

int main(int argc, char **argv)
{
	/* `bench_sim nop|write|read|cas|hash [gets]` runs one one-core workload, for
	 * profiling (perf, callgrind) */
	static const struct {
		const char *arg;
		uint8_t op;
	} one[] = {{"nop", PRISM_OP_NOP},
	           {"write", PRISM_OP_RDMA_WRITE},
	           {"read", PRISM_OP_RDMA_READ},
	           {"cas", PRISM_OP_ATOMIC_CS}};
	for (size_t i = 0; argc > 1 && i < sizeof(one) / sizeof(one[0]); i++) {
		if (strcmp(argv[1], one[i].arg) != 0)
			continue;
		double w;
		printf("one core %s: %.2f M WQEs/s\n", one[i].arg,
		       chain_rate(false, one[i].op, RUNS * 16, &w) / 1e6);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "thash") == 0) {
		printf("threaded RedN get: %.3f M gets/s\n", hash_rate(true, 100000) / 1e6);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "hash") == 0) {
		/* `bench_sim hash [gets [idle QPs]]`: fewer gets for callgrind */
		unsigned gets = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 100000;
		unsigned idle = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 0;
		printf("one core RedN get, %u idle QPs: %.3f M gets/s\n", idle,
		       hash_rate_idle(false, gets ? gets : 1, idle) / 1e6);
		return 0;
	}
	static const struct {
		const char *name;
		uint8_t op;
	} verbs[] = {{"NOP", PRISM_OP_NOP},
	             {"WRITE 64 B", PRISM_OP_RDMA_WRITE},
	             {"READ 64 B", PRISM_OP_RDMA_READ},
	             {"CAS", PRISM_OP_ATOMIC_CS}};
	printf(
	    "sim WQE execution rate, chains of %u WQEs, hazard detection on, median of %d runs\n",
	    CHAIN, RUNS);
	double cp[RUNS];
	for (int r = 0; r < RUNS; r++)
		cp[r] = memcpy_rate();
	double mc = bench_median(cp, RUNS);
	printf("  baseline memcpy of 64 B:            %8.2f M copies/s\n", mc / 1e6);
	for (int mode = 0; mode < 2; mode++) {
		bool threaded = mode == 1;
		double nop = 0;
		for (size_t v = 0; v < sizeof(verbs) / sizeof(verbs[0]); v++) {
			double wall, m = chain_rate(threaded, verbs[v].op, RUNS, &wall);
			if (v == 0)
				nop = m;
			printf("  %-11s %-12s %8.2f M WQEs/s   x%.2f of NOP   x%.3f of memcpy   "
			       "(wall %.2f M/s)\n",
			       threaded ? "threaded" : "one core", verbs[v].name, m / 1e6, m / nop,
			       m / mc, wall / 1e6);
		}
		double x[RUNS];
		for (int r = 0; r < RUNS; r++)
			x[r] = hash_rate(threaded, 4096);
		double m = bench_median(x, RUNS);
		printf("  %-11s %-12s %8.3f M gets/s   (%.2f M server WQEs/s; x%.2f of NOP rate)\n",
		       threaded ? "threaded" : "one core", "RedN get", m / 1e6,
		       m * REDN_HASH_SERVER_WQES / 1e6, m * REDN_HASH_SERVER_WQES / nop);
		if (!threaded) {
			for (int r = 0; r < RUNS; r++)
				x[r] = hash_rate_idle(false, 4096, 1000);
			double mi = bench_median(x, RUNS);
			printf("  %-11s %-12s %8.3f M gets/s   (1,000 other connected QPs on the "
			       "device: x%.2f of the above)\n",
			       "one core", "RedN get", mi / 1e6, mi / m);
		}
	}
	double lat, per;
	hash_virtual(&lat, &per);
	printf("virtual clock, cx5 profile, vs RedN (NSDI'22) on ConnectX-5:\n");
	virtual_microbenchmarks();
	printf("  hash get 64 B latency       predicted %6.2f us   RedN %5.2f us   (x%.2f)\n", lat,
	       5.7, lat / 5.7);
	printf("  hash gets, one chain        predicted %6.3f M/s  RedN %5.3f M/s  (x%.2f)\n",
	       1.0 / per, 0.5, (1.0 / per) / 0.5);
	double ifs = if_rate_mops(256);
	printf("  if construct, one chain     predicted %6.3f M/s  RedN %5.3f M/s  (x%.2f)\n", ifs,
	       0.7, ifs / 0.7);
	return 0;
}
