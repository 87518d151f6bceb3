/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/test_be_passes.c - unit tests of the back-end passes on
 * hand-built IR: barrier coalescing (chains vs independent patches, fences,
 * cross-queue waits), layout (slots, completion counts), emit (relocations)
 * and the IR printer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <prism/wqe.h>

#include "compiler/compile.h"
#include "compiler/ir.h"
#include "compiler/sched.h"

/* A READ from region 0 whose single scatter entry goes to scratch. */
static int read_node(struct ir_prog *p, int q)
{
	struct ir_node *n = ir_append(p, q, PRISM_OP_RDMA_READ, IR_ROLE_DATA);
	assert_non_null(n);
	n->raddr = ir_v(IR_V_REGION_ADDR, 0, 0);
	n->rkey = ir_v(IR_V_REGION_RKEY, 0, 0);
	return n->id;
}

static void scatter_raddr(struct ir_prog *p, int from, int to)
{
	p->nodes[to].raddr = ir_v(IR_V_RUNTIME, 0, 0);
	assert_true(ir_scatter_into(p, from, to, 16, 8, 0) >= 0);
}

static void finish_reads(struct ir_prog *p)
{
	for (unsigned i = 0; i < p->n_nodes; i++)
		if (p->nodes[i].op == PRISM_OP_RDMA_READ && p->nodes[i].nsge == 0)
			ir_sge_add(p, &p->nodes[i], ir_v(IR_V_SCRATCH_ADDR, 0, 0), 8,
			           ir_v(IR_V_SCRATCH_LKEY, 0, 0));
}

static struct ir_prog *new_prog(void)
{
	struct ir_prog *p = ir_prog_new("t", IR_PROFILE_RELAXED);
	assert_non_null(p);
	assert_true(ir_add_region(p, "r", 4096, true) >= 0);
	p->scratch_size = 64;
	return p;
}

static const char *ops(const struct ir_prog *p, int q)
{
	static char buf[512];
	size_t len = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < p->queues[q].n; i++) {
		uint8_t op = p->nodes[p->queues[q].nodes[i]].op;
		const char *s = op == PRISM_OP_RDMA_READ     ? "READ"
		                : op == PRISM_OP_CQE_WAIT    ? "WAIT"
		                : op == PRISM_OP_SEND_ENABLE ? "EN"
		                : op == PRISM_OP_ATOMIC_CS   ? "CAS"
		                                             : prism_opcode_name(op);
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? " " : "", s);
	}
	return buf;
}

/* R1 -> R2 -> R3 (each READ patches the next one's raddr, a pointer walk):
 * every link needs its own barrier. */
static void test_chain_needs_a_barrier_per_link(void **state)
{
	(void)state;
	struct ir_prog *p = new_prog();
	int w0 = ir_lane_queue(p, 0);
	int r1 = read_node(p, w0), r2 = read_node(p, w0), r3 = read_node(p, w0);
	scatter_raddr(p, r1, r2);
	scatter_raddr(p, r2, r3);
	finish_reads(p);
	assert_int_equal(sched_barriers(p), 0);
	assert_string_equal(ops(p, w0), "READ WAIT EN READ WAIT EN READ");
	assert_int_equal(p->barriers, 3); /* two in the lane + the entry barrier */
	/* each WAIT waits on the READ just before it, which became signaled */
	assert_true(p->nodes[r1].signaled);
	assert_true(p->nodes[r2].signaled);
	assert_false(p->nodes[r3].signaled);
	ir_prog_free(p);
}

/* Two independent patches batch behind one barrier. */
static void test_independent_patches_share_a_barrier(void **state)
{
	(void)state;
	struct ir_prog *p = new_prog();
	int w0 = ir_lane_queue(p, 0);
	int a = read_node(p, w0), b = read_node(p, w0);
	int x = read_node(p, w0), y = read_node(p, w0);
	scatter_raddr(p, a, x);
	scatter_raddr(p, b, y);
	finish_reads(p);
	assert_int_equal(sched_barriers(p), 0);
	assert_string_equal(ops(p, w0), "READ READ WAIT EN READ READ");
	assert_int_equal(p->barriers, 2);
	/* one WAIT covers both writers: it waits on the later one */
	assert_false(p->nodes[a].signaled);
	assert_true(p->nodes[b].signaled);
	ir_prog_free(p);
}

/* A data dependency inside a queue costs a fence bit, not a barrier. */
static void test_same_queue_data_dep_is_a_fence(void **state)
{
	(void)state;
	struct ir_prog *p = new_prog();
	int w0 = ir_lane_queue(p, 0);
	int r = read_node(p, w0);
	struct ir_node *cas = ir_append(p, w0, PRISM_OP_ATOMIC_CS, IR_ROLE_DATA);
	int c = cas->id;
	cas->raddr = ir_v(IR_V_REGION_ADDR, 0, 0);
	cas->rkey = ir_v(IR_V_REGION_RKEY, 0, 0);
	ir_sge_add(p, cas, ir_v(IR_V_SCRATCH_ADDR, 0, 8), 8, ir_v(IR_V_SCRATCH_LKEY, 0, 0));
	ir_add_dep(p, r, c);
	finish_reads(p);
	assert_int_equal(sched_barriers(p), 0);
	assert_string_equal(ops(p, w0), "READ CAS");
	assert_int_equal(p->nodes[c].fence, PRISM_FENCE_SMALL_AND_FENCE);
	ir_prog_free(p);
}

/* Across queues a data dependency is a WAIT without an ENABLE. */
static void test_cross_queue_data_dep_is_a_wait(void **state)
{
	(void)state;
	struct ir_prog *p = new_prog();
	int w0 = ir_lane_queue(p, 0), w1 = ir_lane_queue(p, 1);
	int a = read_node(p, w1);
	int b = read_node(p, w0);
	ir_add_dep(p, a, b);
	finish_reads(p);
	assert_int_equal(sched_barriers(p), 0);
	assert_string_equal(ops(p, w0), "WAIT READ");
	assert_string_equal(ops(p, w1), "READ");
	assert_true(p->nodes[a].signaled);
	/* entry barrier enables both lanes */
	assert_string_equal(ops(p, p->q_ctl), "WAIT EN EN");
	ir_prog_free(p);
}

static void test_layout_slots_and_counts(void **state)
{
	(void)state;
	struct ir_prog *p = new_prog();
	int w0 = ir_lane_queue(p, 0);
	int r1 = read_node(p, w0), r2 = read_node(p, w0);
	scatter_raddr(p, r1, r2);
	finish_reads(p);
	char err[128];
	assert_int_equal(sched_barriers(p), 0);
	assert_int_equal(layout_program(p, err, sizeof(err)), 0);
	const struct ir_queue *q = &p->queues[w0];
	uint32_t slot = 0;
	for (unsigned i = 0; i < q->n; i++) {
		const struct ir_node *n = &p->nodes[q->nodes[i]];
		assert_int_equal(n->slot, slot);
		assert_int_equal(n->bbs, 1); /* READ 3 DS, WAIT/EN 2 DS: one BB each */
		slot += n->bbs;
	}
	assert_int_equal(q->bbs, slot);
	assert_int_equal(q->signaled, 1);
	assert_int_equal(p->nodes[r1].count, 1);
	assert_true(q->ring >= 2 * q->bbs);
	ir_prog_free(p);
}

/* Emit: every SQ template carries its index and QPN relocations, and the
 * object verifies. */
static void test_emit_relocates_every_ctrl(void **state)
{
	(void)state;
	struct ir_prog *p = new_prog();
	int w0 = ir_lane_queue(p, 0);
	int r1 = read_node(p, w0), r2 = read_node(p, w0);
	scatter_raddr(p, r1, r2);
	finish_reads(p);
	struct diag_ctx d;
	diag_init(&d, "t", NULL, 0);
	struct chainobj *o = NULL;
	assert_int_equal(compile_ir(&d, p, "t", &o), 0);
	assert_non_null(o);
	for (uint32_t q = 0; q < o->n_queues; q++) {
		for (uint32_t i = 0; i < o->queues[q].n_sq; i++) {
			bool idx = false, qpn = false;
			for (uint32_t k = 0; k < o->n_relocs; k++) {
				const struct chainobj_reloc *r = &o->relocs[k];
				if (r->site.queue != q || r->site.ring != CHAINOBJ_RING_SQ ||
				    r->site.wqe != i)
					continue;
				idx |= r->site.offset == 1 && r->kind == CHAINOBJ_RELOC_SQ_COUNT;
				qpn |= r->site.offset == 4 && r->kind == CHAINOBJ_RELOC_QPN;
			}
			assert_true(idx);
			assert_true(qpn);
		}
	}
	chainobj_free(o);
	diag_fini(&d);
	ir_prog_free(p);
}

static void test_ir_printer(void **state)
{
	(void)state;
	struct ir_prog *p = new_prog();
	int w0 = ir_lane_queue(p, 0);
	int r1 = read_node(p, w0), r2 = read_node(p, w0);
	scatter_raddr(p, r1, r2);
	char buf[2048];
	size_t n = ir_snprint(p, buf, sizeof(buf));
	assert_true(n > 0 && n < sizeof(buf));
	assert_non_null(strstr(buf, "queue w0 managed"));
	assert_non_null(strstr(buf, "patch n0 -> n1 [16,+8)"));
	/* snprintf-style: a short buffer still reports the full length */
	char small[8];
	assert_int_equal(ir_snprint(p, small, sizeof(small)), n);
	ir_prog_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_chain_needs_a_barrier_per_link),
	    cmocka_unit_test(test_independent_patches_share_a_barrier),
	    cmocka_unit_test(test_same_queue_data_dep_is_a_fence),
	    cmocka_unit_test(test_cross_queue_data_dep_is_a_wait),
	    cmocka_unit_test(test_layout_slots_and_counts),
	    cmocka_unit_test(test_emit_relocates_every_ctrl),
	    cmocka_unit_test(test_ir_printer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
