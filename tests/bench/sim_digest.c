/* SPDX-License-Identifier: MIT */
/*
 * sim_digest.c - a digest of everything the software RNIC does in seeded
 * RedN hash runs, so that an engine change meant to be invisible (a faster
 * scheduler step, a packet queue, a decode cache) can be checked to leave
 * the runs unchanged, not just deterministic: build the engine before and
 * after, run `sim_digest` with each, compare the lines.
 *
 * Each line: seed, scheduler, cost model, observer; 1,280 gets in batches
 * of 64 on one device.  With the event observer every event is hashed
 * (kind, times, QP, WQE counter, opcode, order, bytes, patch target and
 * range, writer, CQ, CQE opcode and syndrome, QP states, packet kind and PSN); without it only
 * what the device reports (final virtual time, WQEs, fetches, packets,
 * CQEs, hazards) and the replies.  Also a NOP chain, a WRITE/READ/CAS mix
 * and a chaos-mode run (256-byte READs served line by line), to cover the paths the get does not
 * take.
 *
 * Owns: this check.  Prints figures only; never fails on a mismatch (the
 * caller compares two outputs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cost_profile.h"
#include "sim/sim.h"
#include "tests/support/host_verbs.h"
#include "tests/support/redn_hash_chain.h"
#include "tests/support/bench_stats.h"

#define GETS  1280
#define BATCH 64

struct digest {
	uint64_t h, n;
	struct sim_cost_profile *p; /* NULL: flat default cost */
};

static void mix(struct digest *d, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8) {
		d->h ^= v & 0xff;
		d->h *= 0x100000001b3ull; /* FNV-1a */
	}
}

static void on_event(void *ctx, const struct sim_event *ev)
{
	struct digest *d = ctx;

	d->n++;
	mix(d, ev->kind);
	mix(d, ev->t);
	mix(d, ev->t_end);
	mix(d, ((uint64_t)ev->qpn << 32) | ev->wqe_counter);
	mix(d, ((uint64_t)ev->opcode << 32) | ev->order);
	mix(d, ev->bytes);
	mix(d, ((uint64_t)ev->target_qpn << 32) | ev->target_wqe_counter);
	mix(d, ((uint64_t)ev->offset << 32) | ev->len);
	mix(d, ((uint64_t)ev->writer.kind << 32) | ev->writer.qpn);
	mix(d, ((uint64_t)ev->writer.wqe_counter << 8) | ev->writer.opcode);
	mix(d, ev->writer.issued_at);
	mix(d, ((uint64_t)ev->cqn << 16) | ((uint64_t)ev->cqe_opcode << 8) | ev->syndrome);
	mix(d, ((uint64_t)(uint32_t)ev->old_state << 32) | (uint32_t)ev->new_state);
	if (ev->pkt)
		mix(d, ((uint64_t)ev->pkt->kind << 32) | ev->pkt->psn);
}

static void on_cost(void *ctx, const struct sim_cost_query *q, struct sim_cost *out)
{
	struct digest *d = ctx;

	if (d->p)
		sim_cost_profile_charge(d->p, q, out);
	else
		sim_default_cost(NULL, q, out);
}

static void print_stats(struct sim_dev *d, const struct digest *dg, uint64_t replies)
{
	struct sim_stats st;

	sim_dev_stats(d, &st);
	printf(" events %llu hash %016llx vtime %llu wqes %llu fetches %llu pkts %llu cqes %llu "
	       "hazards %llu replies %016llx\n",
	       (unsigned long long)dg->n, (unsigned long long)dg->h,
	       (unsigned long long)st.vtime_max, (unsigned long long)st.wqes_executed,
	       (unsigned long long)st.fetches, (unsigned long long)st.pkts,
	       (unsigned long long)st.cqes, (unsigned long long)st.hazards,
	       (unsigned long long)replies);
}

static void redn_run(uint64_t seed, enum sim_sched_policy sched, struct sim_cost_profile *p,
                     bool observe)
{
	struct digest dg = {.h = 0xcbf29ce484222325ull, .p = p};
	struct sim_observer obs = {.ctx = &dg, .cost = on_cost, .event = on_event};
	struct sim_observer cost_only = {.ctx = &dg, .cost = on_cost};
	struct sim_dev_opts o = {.sz = sizeof(o),
	                         .seed = seed,
	                         .fw = SIM_FW_RELAXED,
	                         .hazard = SIM_HAZARD_FAIL,
	                         .sched = sched,
	                         .node = 1,
	                         .obs = observe ? &obs
	                                : p     ? &cost_only
	                                        : NULL};
	struct redn_hash_cfg cfg = {.nbuckets = 256,
	                            .value_len = 64,
	                            .max_inflight = BATCH,
	                            .seed = 9 + seed,
	                            .defer_doorbells = true};
	struct digest replies = {.h = 0xcbf29ce484222325ull};
	struct sim_dev *d;
	struct redn_hash *h;
	unsigned b = 0;

	BENCH_CHECK(sim_dev_open(&o, &d));
	BENCH_CHECK(redn_hash_create(d, d, &cfg, &h));
	for (unsigned done = 0; done < GETS; done += BATCH) {
		struct redn_hash_reply r;
		int rc;

		/* every fifth get asks a bucket for its neighbour's key: a miss */
		for (unsigned i = 0; i < BATCH; i++, b = (b + 37) % 256)
			BENCH_CHECK(redn_hash_post_get(
			    h, redn_hash_key(h, b % 5 ? b : (b + 1) % 256), b, NULL));
		BENCH_CHECK(redn_hash_ring(h));
		BENCH_CHECK(sim_dev_run(d, 0));
		while ((rc = redn_hash_poll_reply(h, &r)) == 1) {
			mix(&replies, r.req_id);
			mix(&replies, r.value ? r.value[0] : 0xffff);
		}
		BENCH_CHECK(rc);
		redn_hash_drained(h);
	}
	printf("redn seed %llu %s %s %s:", (unsigned long long)seed,
	       sched == SIM_SCHED_VTIME ? "vtime" : "random", p ? "cx5" : "flat",
	       observe ? "events" : "quiet");
	print_stats(d, &dg, replies.h);
	redn_hash_destroy(h);
	sim_dev_close(d);
}

/* A loopback pair running @n WQEs of a NOP / WRITE / READ / CAS mix. */
static void verb_run(uint64_t seed, bool chaos)
{
	struct digest dg = {.h = 0xcbf29ce484222325ull};
	struct sim_observer obs = {.ctx = &dg, .cost = on_cost, .event = on_event};
	struct sim_dev_opts o = {.sz = sizeof(o),
	                         .seed = seed,
	                         .fw = SIM_FW_RELAXED,
	                         .hazard = SIM_HAZARD_WARN,
	                         .chaos = chaos,
	                         .node = 1,
	                         .obs = &obs};
	const unsigned n = 512, all = SIM_ACCESS_LOCAL_WRITE | SIM_ACCESS_REMOTE_READ |
	                              SIM_ACCESS_REMOTE_WRITE | SIM_ACCESS_REMOTE_ATOMIC;
	static const uint8_t ops[] = {PRISM_OP_NOP, PRISM_OP_RDMA_WRITE, PRISM_OP_RDMA_READ,
	                              PRISM_OP_ATOMIC_CS};
	struct sim_dev *d;
	struct sim_cq *cq, *cq2;
	struct sim_qp *a, *bq;
	struct sim_mr *mr;
	struct hv_qp ha;
	uint8_t *mem;

	BENCH_CHECK(sim_dev_open(&o, &d));
	struct sim_cq_attr ca = {.ncqe = 1024, .ignore_overrun = true};
	BENCH_CHECK(sim_cq_create(d, &ca, &cq));
	BENCH_CHECK(sim_cq_create(d, &ca, &cq2));
	struct sim_qp_attr qa = {.access = SIM_ACCESS_REMOTE_ALL,
	                         .send_cq = cq,
	                         .recv_cq = cq2,
	                         .sq_bbs = 1024,
	                         .rq_max_sge = 1};
	BENCH_CHECK(sim_qp_create(d, &qa, &a));
	qa.send_cq = cq2;
	BENCH_CHECK(sim_qp_create(d, &qa, &bq));
	struct sim_qp *pair[2][2] = {{a, bq}, {bq, a}};
	for (int i = 0; i < 2; i++) {
		struct sim_qp_mod m = {.state = SIM_QPS_INIT};
		BENCH_CHECK(sim_qp_modify(pair[i][0], &m));
		m = (struct sim_qp_mod){
		    .state = SIM_QPS_RTR, .peer_node = 1, .peer_qpn = sim_qp_num(pair[i][1])};
		BENCH_CHECK(sim_qp_modify(pair[i][0], &m));
		m = (struct sim_qp_mod){.state = SIM_QPS_RTS};
		BENCH_CHECK(sim_qp_modify(pair[i][0], &m));
	}
	if (posix_memalign((void **)&mem, 4096, 2 * 256 * n))
		bench_die("posix_memalign", -1);
	for (unsigned i = 0; i < 2 * 256 * n; i++)
		mem[i] = (uint8_t)(i * 7);
	BENCH_CHECK(sim_mr_reg(d, mem, 2 * 256 * n, all, &mr));
	hv_qp_init(&ha, a, 1024, 0);
	for (unsigned i = 0; i < n; i++) {
		struct prism_wqe w;
		uint8_t op = ops[(i * 5 + seed) % 4];

		hv_wqe(&w, op, i % 3 == 0 || i == n - 1);
		if (i % 11 == 0) /* some fenced WQEs */
			w.ctrl.fm_ce_se |= PRISM_FM_CE_SE(PRISM_FENCE_SMALL_AND_FENCE, 0, 0);
		if (op != PRISM_OP_NOP) {
			w.raddr.raddr = (uint64_t)(uintptr_t)mem + 256 * n + 256 * (i % n);
			w.raddr.rkey = sim_mr_rkey(mr);
			w.atomic.size = 8;
			w.atomic.compare = 0;
			w.atomic.swap = i;
			w.num_sge = 1;
			w.sge[0] =
			    (struct prism_sge){.byte_count = op == PRISM_OP_ATOMIC_CS ? 8 : 256,
			                       .lkey = sim_mr_lkey(mr),
			                       .addr = (uint64_t)(uintptr_t)mem + 256 * i};
		}
		BENCH_CHECK(hv_post_send(&ha, &w, false, NULL));
	}
	BENCH_CHECK(hv_ring(&ha));
	BENCH_CHECK(sim_dev_run(d, 0));
	printf("verbs seed %llu %s:", (unsigned long long)seed, chaos ? "chaos" : "plain");
	print_stats(d, &dg, 0);
	sim_mr_dereg(mr);
	sim_qp_destroy(a);
	sim_qp_destroy(bq);
	sim_cq_destroy(cq);
	sim_cq_destroy(cq2);
	sim_dev_close(d);
	free(mem);
}

int main(void)
{
	struct sim_cost_profile cx5;

	if (sim_cost_profile_builtin("cx5", &cx5, NULL) < 0)
		bench_die("cx5 profile", -1);
	for (uint64_t seed = 1; seed <= 3; seed++) {
		for (int s = 0; s < 2; s++) {
			enum sim_sched_policy sched = s ? SIM_SCHED_RANDOM : SIM_SCHED_VTIME;

			redn_run(seed, sched, NULL, true);
			redn_run(seed, sched, &cx5, true);
			redn_run(seed, sched, NULL, false);
			redn_run(seed, sched, &cx5, false);
		}
		verb_run(seed, false);
		verb_run(seed, true);
	}
	return 0;
}
