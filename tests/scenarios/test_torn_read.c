/* SPDX-License-Identifier: MIT */
/*
 * tests/scenarios/test_torn_read.c - the torn-read experiment of
 * rdma-sync-tods25 (Fig. 1b) in chaos mode.
 *
 * A writer QP keeps rewriting a 512-byte object (8 cache lines) with RDMA
 * WRITEs while a reader QP READs it.  In chaos mode the NIC serves a READ
 * line by line in random order, interleaved with other work (sync-rules 2).
 *   1. One READ validated by header == footer returns objects that pass the
 *      check and are still torn (seen at least once over seeded trials).
 *   2. The version protocol (sync-rules 10: READ version, WAIT, READ data,
 *      WAIT, READ version again; odd = writer active) never accepts a torn
 *      object, and does reject some reads (so writers did overlap).
 *
 * Owns: both experiments.  Must not: use the host CPU as a writer; all
 * writes are RDMA WRITEs executed by the sim.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/sim.h"
#include "tests/support/host_verbs.h"

#define OBJ_BYTES 512
#define WORDS     (OBJ_BYTES / 8)
#define VERSIONS  6 /* writes per trial */

struct rig {
	struct sim_dev *d;
	struct sim_cq *cq_r, *cq_w, *cq_x;
	struct sim_qp *r, *rr, *w, *wr;
	struct hv_qp hr, hw;
	struct hv_cq hcq_r;
	uint64_t *obj, *dst, *src, *ver;
	struct sim_mr *mr_obj, *mr_dst, *mr_src;
};

static void *zal(size_t n)
{
	void *p = NULL;
	assert_int_equal(posix_memalign(&p, 4096, n), 0);
	memset(p, 0, n);
	return p;
}

static void connect(struct sim_qp *a, struct sim_qp *b)
{
	struct sim_qp_mod m = {.state = SIM_QPS_INIT};
	assert_int_equal(sim_qp_modify(a, &m), 0);
	m = (struct sim_qp_mod){.state = SIM_QPS_RTR, .peer_node = 1, .peer_qpn = sim_qp_num(b)};
	assert_int_equal(sim_qp_modify(a, &m), 0);
	m = (struct sim_qp_mod){.state = SIM_QPS_RTS};
	assert_int_equal(sim_qp_modify(a, &m), 0);
}

static void rig_open(struct rig *g, uint64_t seed)
{
	memset(g, 0, sizeof(*g));
	struct sim_dev_opts o = {.sz = sizeof(o),
	                         .seed = seed,
	                         .fw = SIM_FW_RELAXED,
	                         .hazard = SIM_HAZARD_FAIL,
	                         .sched = SIM_SCHED_RANDOM,
	                         .chaos = true,
	                         .node = 1};
	assert_int_equal(sim_dev_open(&o, &g->d), 0);
	struct sim_cq_attr ca = {.ncqe = 64, .ignore_overrun = true};
	assert_int_equal(sim_cq_create(g->d, &ca, &g->cq_r), 0);
	assert_int_equal(sim_cq_create(g->d, &ca, &g->cq_w), 0);
	assert_int_equal(sim_cq_create(g->d, &ca, &g->cq_x), 0);
	struct sim_qp_attr qa = {.access = SIM_ACCESS_REMOTE_ALL,
	                         .send_cq = g->cq_r,
	                         .recv_cq = g->cq_x,
	                         .sq_bbs = 64,
	                         .rq_max_sge = 1,
	                         .flags = SIM_QP_CROSS_CHANNEL};
	assert_int_equal(sim_qp_create(g->d, &qa, &g->r), 0);
	qa.send_cq = g->cq_w;
	assert_int_equal(sim_qp_create(g->d, &qa, &g->w), 0);
	qa.send_cq = g->cq_x;
	assert_int_equal(sim_qp_create(g->d, &qa, &g->rr), 0);
	assert_int_equal(sim_qp_create(g->d, &qa, &g->wr), 0);
	connect(g->r, g->rr);
	connect(g->rr, g->r);
	connect(g->w, g->wr);
	connect(g->wr, g->w);
	hv_qp_init(&g->hr, g->r, 64, 0);
	hv_qp_init(&g->hw, g->w, 64, 0);
	hv_cq_init(&g->hcq_r, g->cq_r);
	g->obj = zal(OBJ_BYTES);
	g->dst = zal(OBJ_BYTES + 64);
	g->src = zal((size_t)VERSIONS * 3 * OBJ_BYTES);
	const unsigned rw =
	    SIM_ACCESS_LOCAL_WRITE | SIM_ACCESS_REMOTE_READ | SIM_ACCESS_REMOTE_WRITE;
	assert_int_equal(sim_mr_reg(g->d, g->obj, OBJ_BYTES, rw, &g->mr_obj), 0);
	assert_int_equal(sim_mr_reg(g->d, g->dst, OBJ_BYTES + 64, rw, &g->mr_dst), 0);
	assert_int_equal(sim_mr_reg(g->d, g->src, (size_t)VERSIONS * 3 * OBJ_BYTES, rw, &g->mr_src),
	                 0);
}

static void rig_close(struct rig *g)
{
	sim_mr_dereg(g->mr_obj);
	sim_mr_dereg(g->mr_dst);
	sim_mr_dereg(g->mr_src);
	sim_qp_destroy(g->r);
	sim_qp_destroy(g->rr);
	sim_qp_destroy(g->w);
	sim_qp_destroy(g->wr);
	sim_cq_destroy(g->cq_r);
	sim_cq_destroy(g->cq_w);
	sim_cq_destroy(g->cq_x);
	sim_dev_close(g->d);
	free(g->obj);
	free(g->dst);
	free(g->src);
}

/* WRITE @len bytes from @src to the object at @off (unsignaled, WQ order). */
static void post_write(struct rig *g, const void *src, uint32_t off, uint32_t len)
{
	struct prism_wqe w;
	hv_wqe(&w, PRISM_OP_RDMA_WRITE, false);
	w.raddr.raddr = (uint64_t)(uintptr_t)g->obj + off;
	w.raddr.rkey = sim_mr_rkey(g->mr_obj);
	w.num_sge = 1;
	w.sge[0] = (struct prism_sge){
	    .byte_count = len, .lkey = sim_mr_lkey(g->mr_src), .addr = (uint64_t)(uintptr_t)src};
	assert_true(hv_post_send(&g->hw, &w, false, NULL) >= 0);
}

static void post_read(struct rig *g, void *dst, uint32_t off, uint32_t len)
{
	struct prism_wqe w;
	hv_wqe(&w, PRISM_OP_RDMA_READ, true);
	w.raddr.raddr = (uint64_t)(uintptr_t)g->obj + off;
	w.raddr.rkey = sim_mr_rkey(g->mr_obj);
	w.num_sge = 1;
	w.sge[0] = (struct prism_sge){
	    .byte_count = len, .lkey = sim_mr_lkey(g->mr_dst), .addr = (uint64_t)(uintptr_t)dst};
	assert_true(hv_post_send(&g->hr, &w, false, NULL) >= 0);
}

/* WAIT for CQE number @index (0-based) of the reader's CQ. */
static void post_wait(struct rig *g, uint32_t index)
{
	struct prism_wqe w;
	hv_wqe(&w, PRISM_OP_CQE_WAIT, false);
	w.wait_en.index = index;
	w.wait_en.obj_num = sim_cq_num(g->cq_r);
	assert_true(hv_post_send(&g->hr, &w, false, NULL) >= 0);
}

static bool all_words(const uint64_t *p, unsigned from, unsigned to, uint64_t v)
{
	for (unsigned i = from; i < to; i++)
		if (p[i] != v)
			return false;
	return true;
}

/* Experiment 1: one READ, header == footer check. */
static void test_single_read_bookends_miss_torn_objects(void **state)
{
	(void)state;
	unsigned torn_undetected = 0, detected = 0, trials = 400;
	for (unsigned t = 0; t < trials; t++) {
		struct rig g;
		rig_open(&g, 1000 + t);
		for (unsigned v = 0; v < VERSIONS; v++) { /* each version from its own buffer */
			uint64_t *s = g.src + (size_t)v * WORDS;
			for (unsigned i = 0; i < WORDS; i++)
				s[i] = v + 1;
			post_write(&g, s, 0, OBJ_BYTES);
		}
		post_read(&g, g.dst, 0, OBJ_BYTES);
		assert_int_equal(hv_ring(&g.hw), 0);
		assert_int_equal(hv_ring(&g.hr), 0);
		assert_int_equal(sim_dev_run(g.d, 0), 0);
		struct prism_cqe c;
		assert_int_equal(hv_poll(&g.hcq_r, &c), 1);
		assert_int_equal(c.opcode, PRISM_CQE_REQ);
		uint64_t hdr = g.dst[0], ftr = g.dst[WORDS - 1];
		if (hdr != ftr)
			detected++;
		else if (!all_words(g.dst, 0, WORDS, hdr))
			torn_undetected++;
		rig_close(&g);
	}
	print_message("single READ of 512 B, %u trials: %u torn objects passed header==footer, "
	              "%u tears detected\n",
	              trials, torn_undetected, detected);
	assert_true(torn_undetected >= 1);
}

/* Experiment 2: version, WAIT, data, WAIT, version (odd = writer active). */
static void test_version_protocol_never_returns_torn(void **state)
{
	(void)state;
	unsigned accepted = 0, rejected = 0, trials = 400;
	for (unsigned t = 0; t < trials; t++) {
		struct rig g;
		rig_open(&g, 5000 + t);
		/* initial object: version 0 (even), body words = UINT64_MAX */
		for (unsigned i = 1; i < WORDS; i++)
			g.obj[i] = UINT64_MAX;
		/* the writer starts after a seeded number of NOPs and writes 1-3
		 * versions, so that some reads overlap it and some do not */
		struct prism_wqe nop;
		for (unsigned k = 0; k < (t * 7) % 48; k++) {
			hv_wqe(&nop, PRISM_OP_NOP, false);
			assert_true(hv_post_send(&g.hw, &nop, false, NULL) >= 0);
		}
		for (unsigned v = 0; v < 1 + t % 3; v++) {
			uint64_t *lock = g.src + (size_t)(3 * v) * WORDS;
			uint64_t *body = lock + WORDS, *unlock = body + WORDS;
			lock[0] = 2 * (uint64_t)v + 1;   /* odd: writer active */
			unlock[0] = 2 * (uint64_t)v + 2; /* even: version v done */
			for (unsigned i = 1; i < WORDS; i++)
				body[i] = v;
			post_write(&g, lock, 0, 8);
			post_write(&g, body + 1, 8, OBJ_BYTES - 8);
			post_write(&g, unlock, 0, 8);
		}
		uint64_t *v1 = g.dst + WORDS, *v2 = g.dst + WORDS + 1;
		post_read(&g, v1, 0, 8);
		post_wait(&g, 0);
		post_read(&g, g.dst, 0, OBJ_BYTES);
		post_wait(&g, 1);
		post_read(&g, v2, 0, 8);
		assert_int_equal(hv_ring(&g.hw), 0);
		assert_int_equal(hv_ring(&g.hr), 0);
		assert_int_equal(sim_dev_run(g.d, 0), 0);
		if (*v1 == *v2 && (*v1 & 1) == 0) {
			accepted++;
			uint64_t want = *v1 / 2 - 1; /* version 0 -> UINT64_MAX */
			if (!all_words(g.dst, 1, WORDS, want))
				fail_msg("trial %u: accepted version %llu but the object is torn",
				         t, (unsigned long long)*v1);
		} else {
			if (getenv("TORN_DEBUG"))
				print_message("v1=%llu v2=%llu\n", (unsigned long long)*v1,
				              (unsigned long long)*v2);
			rejected++;
		}
		rig_close(&g);
	}
	print_message("version protocol, %u trials: %u accepted (all consistent), %u rejected\n",
	              trials, accepted, rejected);
	assert_true(rejected >= 1);
	assert_true(accepted >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_single_read_bookends_miss_torn_objects),
	    cmocka_unit_test(test_version_protocol_never_returns_torn),
	};
	return cmocka_run_group_tests_name("scenario_torn_read", tests, NULL, NULL);
}
