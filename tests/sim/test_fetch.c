/* SPDX-License-Identifier: MIT */
/*
 * tests/sim/test_fetch.c - the fetch path's ways of reading a WQE, not a
 * NIC rule: a WQE that fits before the end of the ring is copied and
 * checked in place, one that wraps to the ring's start is copied and
 * compared in two parts, a one-BB WQE is copied and compared as its whole
 * block first.  All must run the bytes that are in memory and report a
 * hazard when those bytes change between fetch and execution, at the
 * right offset inside the WQE, and only then (bytes of the block past the
 * WQE are not the WQE).  Also the attribution of engine writes to the send
 * queue they land in, which first tries the queue the last write went to,
 * the engine's copy for writes of up to 16 bytes, a racing engine write
 * that spans two blocks (one report per write), and the writer a quiet
 * device's quick path records (an inbound WRITE, a receive scatter).  The WQE a step
 * makes room for is fetched inline when no observer is there, by the fetch
 * loop when one is, and so are the one-BB WQEs an ENABLE lets into an
 * empty window: a run must end the same either way.
 *
 * Owns: these checks.  Must not: time anything.
 */
#include "tests/sim/sim_env.h"

#define XC   SIM_QP_CROSS_CHANNEL
#define RING 64 /* env_make's send queues: 64 BBs */

static int setup(void **state)
{
	*state = env_make(SIM_FW_RELAXED, SIM_HAZARD_FAIL, false, XC, 0);
	return 0;
}

/* Fills a's ring up to @ctr with unsignaled NOPs and runs them. */
static void advance_to(struct env *e, uint32_t ctr)
{
	struct prism_wqe w;

	while (e->a.sq_pi < ctr) {
		hx_nop(&w, false);
		hx_post(&e->a, &w);
	}
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
}

/* A WRITE of three 8-byte pieces of src to dst: 80 bytes, two BBs. */
static void write3(struct env *e, struct prism_wqe *w)
{
	hx_rw(w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst, e->dst_key, (uintptr_t)e->src, e->src_key,
	      8, true);
	w->num_sge = 3;
	for (int i = 1; i < 3; i++)
		w->sge[i] = (struct prism_sge){
		    .byte_count = 8, .lkey = e->src_key, .addr = (uintptr_t)e->src + 64 * i};
}

/* Byte offset, inside the WQE, of data segment @i's address (little
 * end: the last byte of the big-endian field). */
static uint32_t sge_addr_low_byte(unsigned i)
{
	return 32 + 16 * i + 15;
}

/* A two-BB WRITE posted at the last BB of the ring runs its bytes. */
static void test_wrapped_wqe_runs(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;

	advance_to(e, RING - 1);
	write3(e, &w);
	assert_int_equal(hx_post(&e->a, &w), RING - 1);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(hx_expect(&e->cq_a).opcode, PRISM_CQE_REQ);
	assert_memory_equal(e->dst, e->src, 8);
	assert_memory_equal(e->dst + 8, e->src + 64, 8);
	assert_memory_equal(e->dst + 16, e->src + 128, 8);
	assert_false(sim_dev_last_hazard(e->dev, NULL));
}

/*
 * Holds a's queue with a WAIT on b's CQ, posts @w behind it (fetched by the
 * doorbell), lets the host edit byte @at of @w, then releases the WAIT.
 * Returns the counter @w was posted at.
 */
static uint32_t post_edit_release(struct env *e, struct prism_wqe *w, uint32_t at)
{
	struct prism_wqe x;
	uint32_t ctr;

	hx_wait(&x, sim_cq_num(e->cq_b.cq), 0, false);
	hx_post(&e->a, &x);
	ctr = hx_post(&e->a, w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(hx_poll(&e->cq_a, &(struct prism_cqe){0}), 0); /* held */
	hx_slot(&e->a, ctr + at / 64)[at % 64] ^= 0x40;
	hx_nop(&x, true);
	hx_post(&e->b, &x);
	hx_ring(&e->b);
	return ctr;
}

static void expect_host_hazard(struct env *e, uint32_t ctr, uint32_t at)
{
	struct sim_hazard h;

	assert_int_equal(sim_dev_run(e->dev, 0), SIM_E_HAZARD);
	assert_true(sim_dev_last_hazard(e->dev, &h));
	assert_int_equal(h.qpn, e->a.qpn);
	assert_int_equal(h.wqe_counter, ctr);
	assert_int_equal(h.offset, at);
	assert_int_equal(h.len, 1);
	assert_int_equal(h.writer.kind, SIM_WRITER_HOST);
	assert_false(h.executed);
	assert_int_equal(sim_qp_state(e->a.qp), SIM_QPS_ERR);
	assert_int_equal(e->dst[16], 0); /* the WRITE did not run */
}

/* Bytes changed after the fetch, WQE inside the ring: a hazard. */
static void test_hazard_in_place(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	uint32_t ctr, at = sge_addr_low_byte(2);

	write3(e, &w);
	ctr = post_edit_release(e, &w, at);
	assert_int_equal(ctr, 1);
	expect_host_hazard(e, ctr, at);
}

/* The same when the WQE wraps and the edit lands after the wrap. */
static void test_hazard_after_wrap(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	uint32_t ctr, at = sge_addr_low_byte(2); /* byte 79: in the second BB */

	advance_to(e, RING - 2); /* the WAIT takes BB 62, the WRITE 63 and 0 */
	write3(e, &w);
	ctr = post_edit_release(e, &w, at);
	assert_int_equal(ctr, RING - 1);
	expect_host_hazard(e, ctr, at);
}

/* A one-BB WRITE (48 bytes: ctrl, raddr, one data segment). */
static void write1(struct env *e, struct prism_wqe *w)
{
	hx_rw(w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst, e->dst_key, (uintptr_t)e->src, e->src_key,
	      8, true);
}

/* One-BB WQE: a changed byte inside it is a hazard, at its offset (the
 * whole-block compare fails, the exact compare decides). */
static void test_hazard_one_bb(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	uint32_t ctr, at = sge_addr_low_byte(0); /* byte 47: the WQE's last */

	write1(e, &w);
	ctr = post_edit_release(e, &w, at);
	expect_host_hazard(e, ctr, at);
	assert_int_equal(e->dst[0], 0);
}

/* One-BB WQE: a changed byte of its block past the WQE's 48 bytes is not
 * the WQE: no hazard, the WRITE runs. */
static void test_no_hazard_past_wqe(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;

	write1(e, &w);
	post_edit_release(e, &w, 50);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_false(sim_dev_last_hazard(e->dev, NULL));
	assert_int_equal(hx_expect(&e->cq_a).opcode, PRISM_CQE_REQ); /* the WRITE */
	assert_memory_equal(e->dst, e->src, 8);
	assert_int_equal(sim_qp_state(e->a.qp), SIM_QPS_RTS);
}

/* ---- an engine write racing a fetch, across two blocks ------------ */

static int setup_managed_warn(void **state)
{
	*state = env_make(SIM_FW_RELAXED, SIM_HAZARD_WARN, false, XC, XC | SIM_QP_MANAGED_SEND);
	return 0;
}

/* One race was reported, on b's first WQE at @offset (@len bytes),
 * naming a's READ number @read_ctr as the writer, and the WQE ran. */
static void assert_one_read_race(struct env *e, uint32_t offset, uint32_t len, uint32_t read_ctr)
{
	struct sim_stats st;
	struct sim_hazard h;

	sim_dev_stats(e->dev, &st);
	assert_int_equal(st.hazards, 1);
	assert_true(sim_dev_last_hazard(e->dev, &h));
	assert_int_equal(h.qpn, e->b.qpn);
	assert_int_equal(h.wqe_counter, 0);
	assert_int_equal(h.offset, offset);
	assert_int_equal(h.len, len);
	assert_int_equal(h.writer.kind, SIM_WRITER_SQ);
	assert_int_equal(h.writer.qpn, e->a.qpn);
	assert_int_equal(h.writer.wqe_counter, read_ctr);
	assert_int_equal(h.writer.opcode, PRISM_OP_RDMA_READ);
	assert_true(h.executed);
}

/* a READs 8 bytes into b's two-BB WRITE at bytes 60-67 (4 bytes in each
 * block) and enables b with no barrier: b fetches and runs the WQE before
 * the READ lands.  The patch raced the fetch in both blocks; it is one
 * patch, so one report, at the first changed byte of the first block. */
static void test_patch_race_two_bbs_one_report(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	uint8_t *slot;
	uint32_t read_ctr;

	write3(e, &w);
	slot = hx_slot(&e->b, hx_post(&e->b, &w));
	for (int i = 0; i < 8; i++)
		e->src[2048 + i] = (uint8_t)~slot[60 + i]; /* every byte changes */
	read_ctr = e->a.sq_pi;
	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)e->src + 2048, e->src_key, (uintptr_t)slot + 60,
	      sim_mr_lkey(e->b.sq_mr), 8, true);
	hx_post(&e->a, &w);
	hx_enable(&w, PRISM_OP_SEND_ENABLE, e->b.qpn, 2, false); /* both BBs */
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0); /* warn: the run goes on */
	assert_memory_equal(slot + 60, e->src + 2048, 8);
	assert_one_read_race(e, 60, 4, read_ctr); /* the first block's part */
	/* the stale copy ran: the WRITE's three pieces as posted */
	assert_memory_equal(e->dst, e->src, 8);
	assert_memory_equal(e->dst + 8, e->src + 64, 8);
	assert_memory_equal(e->dst + 16, e->src + 128, 8);
}

/* The same within one block, with no observer (the write's quick path: a
 * first READ into an unposted slot of b's ring makes b's queue the one the
 * last write went to): a READs 4 bytes over b's one-BB WRITE's immediate
 * word (bytes 12-15, unused by a WRITE) and enables b with no barrier; the
 * patch raced the fetch, reported once, naming the READ. */
static void test_patch_race_one_bb_quiet(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;
	uint8_t *slot;
	uint32_t read_ctr;

	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst, e->dst_key, (uintptr_t)e->src, e->src_key,
	      8, true);
	slot = hx_slot(&e->b, hx_post(&e->b, &w));
	for (int i = 0; i < 4; i++)
		e->src[2048 + i] = (uint8_t)~slot[12 + i]; /* every byte changes */
	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)e->src + 2056, e->src_key,
	      (uintptr_t)hx_slot(&e->b, 32) + 12, sim_mr_lkey(e->b.sq_mr), 4, false);
	hx_post(&e->a, &w);
	read_ctr = e->a.sq_pi;
	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)e->src + 2048, e->src_key, (uintptr_t)slot + 12,
	      sim_mr_lkey(e->b.sq_mr), 4, true);
	hx_post(&e->a, &w);
	hx_enable(&w, PRISM_OP_SEND_ENABLE, e->b.qpn, 1, false);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0); /* warn: the run goes on */
	assert_memory_equal(slot + 12, e->src + 2048, 4);
	assert_one_read_race(e, 12, 4, read_ctr);
	assert_memory_equal(e->dst, e->src, 8); /* the stale copy ran */
}

/* ---- writer records of the quick path (no observer) ----------------- */

/*
 * b writes 4 bytes into the immediate word of a NOP that a fetched and
 * holds behind a WAIT on b's CQ: an inbound WRITE (@recv false) or a SEND
 * scattered by a's receive.  A first, unsignaled WRITE into an unposted
 * slot of a's ring makes a's queue the one the last write went to, so the
 * patch takes the quick path, which records its writer only for a fetched
 * block.  The NOP then fails its hazard check naming that writer.
 */
static void quick_writer_named(struct env *e, bool recv)
{
	struct prism_wqe w;
	struct prism_sge sge;
	struct sim_hazard h;
	uint32_t nop, write_ctr;
	uint8_t *slot;

	hx_wait(&w, sim_cq_num(e->cq_b.cq), 0, false);
	hx_post(&e->a, &w);
	hx_nop(&w, true);
	nop = hx_post(&e->a, &w);
	slot = hx_slot(&e->a, nop);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0); /* both fetched, the WAIT holds */
	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)hx_slot(&e->a, 32) + 12, sim_mr_rkey(e->a.sq_mr),
	      (uintptr_t)e->src, e->src_key, 4, false);
	hx_post(&e->b, &w);
	write_ctr = e->b.sq_pi;
	if (recv) {
		sge = (struct prism_sge){
		    .byte_count = 4, .lkey = sim_mr_lkey(e->a.sq_mr), .addr = (uintptr_t)slot + 12};
		hx_post_recv(&e->a, &sge, 1);
		hx_send(&w, PRISM_OP_SEND, (uintptr_t)e->src + 4, e->src_key, 4, true);
	} else {
		hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)slot + 12, sim_mr_rkey(e->a.sq_mr),
		      (uintptr_t)e->src + 4, e->src_key, 4, true);
	}
	hx_post(&e->b, &w);
	hx_ring(&e->b);
	assert_int_equal(sim_dev_run(e->dev, 0), SIM_E_HAZARD);
	assert_memory_equal(slot + 12, e->src + 4, 4);
	assert_true(sim_dev_last_hazard(e->dev, &h));
	assert_int_equal(h.qpn, e->a.qpn);
	assert_int_equal(h.wqe_counter, nop);
	assert_int_equal(h.offset, 12);
	assert_int_equal(h.len, 4);
	assert_int_equal(h.writer.kind, recv ? SIM_WRITER_RQ : SIM_WRITER_REMOTE);
	assert_int_equal(h.writer.qpn, e->a.qpn);
	assert_int_equal(h.writer.wqe_counter, 0); /* a's first receive; 0 for a WRITE */
	assert_int_equal(h.writer.opcode, recv ? PRISM_OP_SEND : PRISM_OP_RDMA_WRITE);
	assert_int_equal(h.writer.src_qpn, e->b.qpn);
	assert_int_equal(h.writer.src_wqe_counter, write_ctr);
	assert_true(h.writer.issued_at > 0);
	assert_false(h.executed);
}

static void test_quick_writer_remote(void **state)
{
	quick_writer_named(*state, false);
}

static void test_quick_writer_recv(void **state)
{
	quick_writer_named(*state, true);
}

/* ---- write attribution ---------------------------------------------- */

#define MAX_PATCHES 16
struct patches {
	uint32_t n;
	uint32_t qpn[MAX_PATCHES], off[MAX_PATCHES], len[MAX_PATCHES];
};

static void on_event(void *ctx, const struct sim_event *ev)
{
	struct patches *p = ctx;

	if (ev->kind != SIM_EV_PATCH)
		return;
	assert_true(p->n < MAX_PATCHES);
	p->qpn[p->n] = ev->target_qpn;
	p->off[p->n] = ev->offset;
	p->len[p->n] = ev->len;
	p->n++;
}

struct aenv {
	struct patches p;
	struct sim_observer obs;
	struct sim_dev *dev;
	struct hx_cq cq;
	struct hx_qp a, b;
	uint8_t *src;
	uint32_t src_key;
};

static int setup_attr(void **state)
{
	struct aenv *e = test_calloc(1, sizeof(*e));
	struct sim_dev_opts o = {.sz = sizeof(o), .seed = 1, .hazard = SIM_HAZARD_FAIL};

	e->obs = (struct sim_observer){.ctx = &e->p, .event = on_event};
	o.obs = &e->obs;
	assert_int_equal(sim_dev_open(&o, &e->dev), 0);
	hx_cq_init(&e->cq, e->dev, 64, false);
	hx_qp_init(&e->a, e->dev, &e->cq, &e->cq, RING, 16, 0);
	hx_qp_init(&e->b, e->dev, &e->cq, &e->cq, RING, 16, 0);
	hx_pair(&e->a, &e->b);
	e->src = aligned_alloc(4096, 4096);
	for (unsigned i = 0; i < 4096; i++)
		e->src[i] = (uint8_t)(i * 5 + 3);
	e->src_key = hx_key(e->dev, e->src, 4096, CONF_ALL);
	*state = e;
	return 0;
}

static int teardown_attr(void **state)
{
	struct aenv *e = *state;

	sim_dev_close(e->dev);
	free(e->src);
	test_free(e);
	return 0;
}

/* a READs 8 bytes of src into @q's send queue at byte @off (a slot its own
 * WQEs never reach); returns the number of PATCH events it caused. */
static uint32_t read_into(struct aenv *e, struct hx_qp *q, uint32_t off)
{
	struct prism_wqe w;
	uint32_t before = e->p.n;

	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)e->src + off, e->src_key, (uintptr_t)q->sq + off,
	      sim_mr_lkey(q->sq_mr), 8, true);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(hx_expect(&e->cq).opcode, PRISM_CQE_REQ);
	assert_memory_equal(q->sq + off, e->src + off, 8);
	return e->p.n - before;
}

static void expect_patch(struct aenv *e, const struct hx_qp *q, uint32_t off)
{
	uint32_t i = e->p.n - 1;

	assert_int_equal(e->p.qpn[i], q->qpn);
	assert_int_equal(e->p.off[i], off);
	assert_int_equal(e->p.len[i], 8);
}

/* Writes landing in two queues in turn, the same queue twice, outside
 * every queue, in a queue created after the others and, once it is gone,
 * in the others again: each names the queue it landed in. */
static void test_patch_names_its_queue(void **state)
{
	struct aenv *e = *state;
	struct hx_qp c;
	const uint32_t far = 40 * 64 + 16, far2 = 50 * 64 + 8;

	assert_int_equal(read_into(e, &e->b, far), 1);
	expect_patch(e, &e->b, far);
	assert_int_equal(read_into(e, &e->b, far2), 1); /* the same queue again */
	expect_patch(e, &e->b, far2);
	assert_int_equal(read_into(e, &e->a, far), 1); /* a's own queue */
	expect_patch(e, &e->a, far);
	assert_int_equal(read_into(e, &e->b, far), 1);
	expect_patch(e, &e->b, far);

	/* not a send queue: no PATCH */
	struct prism_wqe w;
	uint8_t *buf = aligned_alloc(64, 64);
	uint32_t n = e->p.n;

	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)e->src, e->src_key, (uintptr_t)buf,
	      hx_key(e->dev, buf, 64, CONF_ALL), 8, true);
	hx_post(&e->a, &w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	assert_int_equal(hx_expect(&e->cq).opcode, PRISM_CQE_REQ);
	assert_int_equal(e->p.n, n);

	/* a queue that comes and goes (the ranges are rebuilt both times) */
	hx_qp_init(&c, e->dev, &e->cq, &e->cq, RING, 16, 0);
	assert_int_equal(read_into(e, &c, far), 1);
	expect_patch(e, &c, far);
	assert_int_equal(sim_mr_dereg(c.sq_mr), 0);
	assert_int_equal(sim_qp_destroy(c.qp), 0);
	assert_int_equal(read_into(e, &e->b, far2), 1);
	expect_patch(e, &e->b, far2);
	assert_int_equal(read_into(e, &e->a, far2), 1);
	expect_patch(e, &e->a, far2);
	free(buf);
}

/* Engine writes of every small length (the copy has its own path up to 16
 * bytes) land exactly: the bytes written, none beside them. */
static void test_small_writes_every_length(void **state)
{
	struct env *e = *state;
	struct prism_wqe w;

	for (uint32_t len = 1; len <= 17; len++) {
		uint32_t off = 64 * len + (len % 7); /* unaligned destinations */

		hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst + off, e->dst_key,
		      (uintptr_t)e->src + 3 * len, e->src_key, len, true);
		hx_post(&e->a, &w);
		hx_ring(&e->a);
		assert_int_equal(sim_dev_run(e->dev, 0), 0);
		assert_int_equal(hx_expect(&e->cq_a).opcode, PRISM_CQE_REQ);
		assert_memory_equal(e->dst + off, e->src + 3 * len, len);
		assert_int_equal(e->dst[off - 1], 0);
		assert_int_equal(e->dst[off + len], 0);
	}
}

/* ---- the fetch after a step, quiet or observed ---------------------- */

/* What a run of deep_run ends with. */
struct deep_outcome {
	int rc_pause, rc_end;
	bool hazard;
	struct sim_hazard h;
	uint32_t n;
	struct prism_cqe c[48];
	struct sim_stats st;
	uint32_t fetch_events;
	uint32_t edited; /* BB counter of the WQE the host edited */
};

static void count_fetches(void *ctx, const struct sim_event *ev)
{
	if (ev->kind == SIM_EV_FETCH)
		(*(uint32_t *)ctx)++;
}

/* A device run quiet or observed (an observer that counts FETCH events),
 * with two registered 4 KiB buffers: src patterned, dst zeroed. */
struct quiet_rig {
	struct sim_observer obs;
	struct sim_dev *dev;
	uint8_t *src, *dst;
	uint32_t key, dkey;
};

static void quiet_rig_open(struct quiet_rig *r, uint64_t seed, uint32_t window, bool observe,
                           uint32_t *fetch_events)
{
	r->obs = (struct sim_observer){
	    .ctx = fetch_events, .cost = sim_default_cost, .event = count_fetches};
	struct sim_dev_opts o = {.sz = sizeof(o),
	                         .seed = seed,
	                         .fw = SIM_FW_RELAXED,
	                         .hazard = SIM_HAZARD_FAIL,
	                         .prefetch_bbs = window,
	                         .obs = observe ? &r->obs : NULL};

	r->src = aligned_alloc(4096, 4096);
	r->dst = aligned_alloc(4096, 4096);
	assert_non_null(r->src);
	assert_non_null(r->dst);
	memset(r->dst, 0, 4096);
	for (unsigned i = 0; i < 4096; i++)
		r->src[i] = (uint8_t)(i * seed + 1);
	assert_int_equal(sim_dev_open(&o, &r->dev), 0);
	r->key = hx_key(r->dev, r->src, 4096, CONF_ALL);
	r->dkey = hx_key(r->dev, r->dst, 4096, CONF_ALL);
}

static void quiet_rig_close(struct quiet_rig *r)
{
	sim_dev_close(r->dev);
	free(r->src);
	free(r->dst);
}

/* Posts a signaled WRITE of three 8-byte SGEs (80 bytes: two BBs) from
 * src to dst on @qp; returns its BB counter. */
static int post_two_bb_write(struct hx_qp *qp, const struct quiet_rig *r)
{
	struct prism_wqe w;

	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)r->dst, r->dkey, (uintptr_t)r->src, r->key, 8,
	      true);
	w.num_sge = 3;
	for (int i = 1; i < 3; i++)
		w.sge[i] = (struct prism_sge){
		    .byte_count = 8, .lkey = r->key, .addr = (uintptr_t)r->src + 64 * i};
	return hx_post(qp, &w);
}

/* A quiet and an observed run ended alike: CQEs (kind, WQE, time) and the
 * figures; the observer saw one FETCH per fetch. */
static void assert_same_run(const struct prism_cqe *quiet_c, const struct prism_cqe *seen_c,
                            uint32_t n, const struct sim_stats *quiet, const struct sim_stats *seen,
                            uint32_t fetch_events)
{
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(quiet_c[i].opcode, seen_c[i].opcode);
		assert_int_equal(quiet_c[i].syndrome, seen_c[i].syndrome);
		assert_int_equal(quiet_c[i].wqe_counter, seen_c[i].wqe_counter);
		assert_int_equal(quiet_c[i].timestamp, seen_c[i].timestamp);
	}
	assert_int_equal(quiet->fetches, seen->fetches);
	assert_int_equal(fetch_events, seen->fetches);
	assert_int_equal(quiet->wqes_executed, seen->wqes_executed);
	assert_int_equal(quiet->steps, seen->steps);
	assert_int_equal(quiet->vtime_max, seen->vtime_max);
}

/* a's ring holds more than the prefetch window (4 BBs): 5 one-BB NOPs, a
 * two-BB WRITE, 10 more NOPs, all signaled.  Each step frees room and
 * fetches what follows (inline without an observer; through the fetch
 * loop, which reports FETCH, with one; the two-BB WRITE through the loop
 * both times).  The run pauses after 9 steps, the host edits the WQE the
 * last step fetched (not run yet), and the run goes on: a hazard there,
 * found the same way both times. */
static void deep_run(bool observe, uint32_t window, struct deep_outcome *out)
{
	struct quiet_rig r;
	struct prism_wqe w;
	struct hx_cq cq;
	struct hx_qp a, b;

	memset(out, 0, sizeof(*out));
	quiet_rig_open(&r, 5, window, observe, &out->fetch_events);
	hx_cq_init(&cq, r.dev, 64, false);
	hx_qp_init(&a, r.dev, &cq, &cq, RING, 16, 0);
	hx_qp_init(&b, r.dev, &cq, &cq, RING, 16, 0);
	hx_pair(&a, &b);
	for (int i = 0; i < 5; i++) {
		hx_nop(&w, true);
		hx_post(&a, &w);
	}
	assert_int_equal(post_two_bb_write(&a, &r), 5);
	for (int i = 0; i < 10; i++) {
		hx_nop(&w, true);
		hx_post(&a, &w);
	}
	hx_ring(&a);
	out->rc_pause = sim_dev_run(r.dev, 9);
	sim_dev_stats(r.dev, &out->st);
	/* the WQE fetched last (by the last step: a NOP past the WRITE, whose
	 * BBs are 5 and 6), not run yet */
	out->edited = (uint32_t)out->st.fetches - 1;
	assert_true(out->edited > 5);
	assert_true(out->edited > out->st.wqes_executed);
	out->edited++; /* its BB counter */
	hx_slot(&a, out->edited)[11] ^= PRISM_CE_CQ_UPDATE << PRISM_CTRL_CE_SHIFT; /* unsignaled */
	out->rc_end = sim_dev_run(r.dev, 0);
	out->hazard = sim_dev_last_hazard(r.dev, &out->h);
	for (out->n = 0; out->n < 48 && hx_poll(&cq, &out->c[out->n]) == 1; out->n++)
		;
	sim_dev_stats(r.dev, &out->st);
	quiet_rig_close(&r);
}

/* Without an observer the WQE a step makes room for is fetched inline; the
 * run must end exactly as the observed one, where the fetch loop does it:
 * the same hazard (WQE, byte, fetch time), CQEs and their times, figures.
 * @window: the prefetch window in BBs (the ring of fetched WQEs holds the
 * next power of two: a window of 3 leaves a record unused there). */
static void quiet_matches_observed(uint32_t window)
{
	struct deep_outcome *quiet = test_calloc(1, sizeof(*quiet));
	struct deep_outcome *seen = test_calloc(1, sizeof(*seen));

	deep_run(false, window, quiet);
	deep_run(true, window, seen);
	assert_int_equal(quiet->rc_pause, SIM_E_LIMIT);
	assert_int_equal(seen->rc_pause, SIM_E_LIMIT);
	assert_int_equal(quiet->rc_end, SIM_E_HAZARD);
	assert_int_equal(seen->rc_end, SIM_E_HAZARD);
	assert_true(quiet->hazard && seen->hazard);
	assert_int_equal(quiet->edited, seen->edited);
	assert_int_equal(quiet->h.wqe_counter, quiet->edited);
	assert_int_equal(quiet->h.offset, 11);
	assert_int_equal(quiet->h.writer.kind, SIM_WRITER_HOST);
	assert_int_equal(quiet->h.wqe_counter, seen->h.wqe_counter);
	assert_int_equal(quiet->h.offset, seen->h.offset);
	assert_int_equal(quiet->h.len, seen->h.len);
	assert_int_equal(quiet->h.fetched_at, seen->h.fetched_at);
	assert_int_equal(quiet->h.executed_at, seen->h.executed_at);
	assert_true(quiet->h.fetched_at > 0); /* fetched after a step, not at the doorbell */
	assert_int_equal(quiet->n, seen->n);
	assert_same_run(quiet->c, seen->c, quiet->n, &quiet->st, &seen->st, seen->fetch_events);
	assert_true(quiet->st.fetches > window); /* past the first window */
	assert_int_equal(quiet->n, 16);          /* one CQE per WQE (errors from the hazard on) */
	for (uint32_t i = 0; i < quiet->n; i++)  /* in order, none lost or doubled */
		assert_int_equal(quiet->c[i].wqe_counter, i < 6 ? i : i + 1); /* WRITE: BBs 5, 6 */
	assert_int_equal(quiet->st.hazards, 1);
	test_free(quiet);
	test_free(seen);
}
static void test_fetch_after_step_quiet_matches_observed(void **state)
{
	(void)state;
	quiet_matches_observed(4);
}
/* A window that is not a power of two (3 BBs): fetch stops at the window,
 * not at the ring of records (4). */
static void test_fetch_window_not_pow2(void **state)
{
	(void)state;
	quiet_matches_observed(3);
}

/* ---- an ENABLE's fetch, quiet or observed --------------------------- */

/* What a run of enable_run ends with. */
struct enable_outcome {
	int rc;
	uint32_t n;
	struct prism_cqe c[32];
	struct sim_stats st;
	uint32_t fetch_events;
};

/* a enables managed b three times, each time into b's empty window (4
 * BBs): two NOPs; then one NOP, a two-BB WRITE and more NOPs (the quiet
 * short path stops at the WRITE and the fetch loop goes on); then six
 * NOPs, more than the window holds.  a WAITs for b's last CQE before each
 * later enable.  All of b's WQEs are signaled. */
static void enable_run(bool observe, struct enable_outcome *out)
{
	struct quiet_rig r;
	struct prism_wqe w;
	struct hx_cq cqa, cqb;
	struct hx_qp a, b;

	memset(out, 0, sizeof(*out));
	quiet_rig_open(&r, 7, 4, observe, &out->fetch_events);
	hx_cq_init(&cqa, r.dev, 64, false);
	hx_cq_init(&cqb, r.dev, 64, false);
	hx_qp_init(&a, r.dev, &cqa, &cqa, RING, 16, XC);
	hx_qp_init(&b, r.dev, &cqb, &cqb, RING, 16, XC | SIM_QP_MANAGED_SEND);
	hx_pair(&a, &b);
	for (int i = 0; i < 3; i++) { /* BBs 0-2 */
		hx_nop(&w, true);
		hx_post(&b, &w);
	}
	assert_int_equal(post_two_bb_write(&b, &r), 3); /* BBs 3-4 */
	for (int i = 0; i < 12; i++) {                  /* BBs 5-16 */
		hx_nop(&w, true);
		hx_post(&b, &w);
	}
	hx_enable(&w, PRISM_OP_SEND_ENABLE, b.qpn, 2, false);
	hx_post(&a, &w);
	hx_wait(&w, sim_cq_num(cqb.cq), 1, false); /* b's second CQE */
	hx_post(&a, &w);
	hx_enable(&w, PRISM_OP_SEND_ENABLE, b.qpn, 11, false);
	hx_post(&a, &w);
	hx_wait(&w, sim_cq_num(cqb.cq), 9, false); /* b's WQEs up to BB 10 */
	hx_post(&a, &w);
	hx_enable(&w, PRISM_OP_SEND_ENABLE, b.qpn, 17, false);
	hx_post(&a, &w);
	hx_ring(&a);
	out->rc = sim_dev_run(r.dev, 0);
	for (out->n = 0; out->n < 32 && hx_poll(&cqb, &out->c[out->n]) == 1; out->n++)
		;
	sim_dev_stats(r.dev, &out->st);
	assert_memory_equal(r.dst, r.src, 8); /* the WRITE ran */
	quiet_rig_close(&r);
}

/* Without an observer an ENABLE fetches one-BB WQEs into an empty window
 * by a short path; the run must end exactly as the observed one, where
 * the fetch loop does it all: the same CQEs at the same times (a WQE
 * starts no earlier than its fetch), the same figures. */
static void test_enable_fetch_quiet_matches_observed(void **state)
{
	struct enable_outcome *quiet = test_calloc(1, sizeof(*quiet));
	struct enable_outcome *seen = test_calloc(1, sizeof(*seen));

	(void)state;
	enable_run(false, quiet);
	enable_run(true, seen);
	assert_int_equal(quiet->rc, 0);
	assert_int_equal(seen->rc, 0);
	assert_int_equal(quiet->n, 16); /* every WQE of b, in order */
	assert_int_equal(seen->n, quiet->n);
	for (uint32_t i = 0; i < quiet->n; i++)
		assert_int_equal(quiet->c[i].syndrome, 0);
	assert_same_run(quiet->c, seen->c, quiet->n, &quiet->st, &seen->st, seen->fetch_events);
	assert_int_equal(quiet->c[3].wqe_counter, 3); /* the WRITE */
	assert_int_equal(quiet->c[15].wqe_counter, 16);
	assert_int_equal(quiet->st.fetches, 16 + 5); /* b's WQEs and a's */
	assert_int_equal(quiet->st.hazards, 0);
	test_free(quiet);
	test_free(seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_wrapped_wqe_runs, setup, env_teardown),
	    cmocka_unit_test_setup_teardown(test_hazard_in_place, setup, env_teardown),
	    cmocka_unit_test_setup_teardown(test_hazard_after_wrap, setup, env_teardown),
	    cmocka_unit_test_setup_teardown(test_hazard_one_bb, setup, env_teardown),
	    cmocka_unit_test_setup_teardown(test_no_hazard_past_wqe, setup, env_teardown),
	    cmocka_unit_test_setup_teardown(test_patch_names_its_queue, setup_attr, teardown_attr),
	    cmocka_unit_test_setup_teardown(test_small_writes_every_length, setup, env_teardown),
	    cmocka_unit_test_setup_teardown(test_patch_race_one_bb_quiet, setup_managed_warn,
	                                    env_teardown),
	    cmocka_unit_test_setup_teardown(test_patch_race_two_bbs_one_report, setup_managed_warn,
	                                    env_teardown),
	    cmocka_unit_test_setup_teardown(test_quick_writer_remote, setup, env_teardown),
	    cmocka_unit_test_setup_teardown(test_quick_writer_recv, setup, env_teardown),
	    cmocka_unit_test(test_fetch_after_step_quiet_matches_observed),
	    cmocka_unit_test(test_enable_fetch_quiet_matches_observed),
	    cmocka_unit_test(test_fetch_window_not_pow2),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
