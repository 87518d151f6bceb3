/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/test_be_cond.c - golden tests for conditionals beyond
 * `if (a == b)`: `else`, `!=`, the order comparisons `<` `>` `<=` `>=`
 * (complement, add, carry READ, masked CAS on the guarded WQE), and their
 * rejections.
 *
 * Besides pinning the WQE sequences, a small executor runs an order
 * comparison's atomics on the template bytes (the client payload placed
 * where the RECV scatters it, the arithmetic of mlx5's masked atomics:
 * 16-byte operands big-endian, 8-byte host-endian) and checks the guarded
 * WQE is armed exactly when the condition holds, over edge-case operands.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <prism/wqe.h>

#include "tests/compiler/be_helpers.h"

#define HDR                                                                                        \
	"struct bucket { key: be24; pad: u8[5]; value: *u8[64] in values; alt: *u8[64] in "        \
	"values; }\n"                                                                              \
	"region table: bucket[1024] readonly;\n"                                                   \
	"region values size 65536 readonly;\n"                                                     \
	"struct ctr { n: le64; }\n"                                                                \
	"region counters: ctr[16] writable;\n"

static struct chainobj *compile_ok(const char *src, const char *entry)
{
	char *diag = NULL;
	struct chainobj *o = be_compile(src, entry, IR_PROFILE_RELAXED, &diag);
	if (!o)
		fprintf(stderr, "unexpected compile failure:\n%s", diag ? diag : "");
	free(diag);
	assert_non_null(o);
	assert_true(o->summary.verified);
	return o;
}

static struct prism_wqe decode(const struct chainobj *o, int q, unsigned i)
{
	struct prism_wqe w;
	struct prism_wqe_diag d;
	assert_true(q >= 0);
	assert_true(i < o->queues[q].n_sq);
	memset(&w, 0, sizeof(w));
	assert_true(prism_wqe_decode(o->queues[q].sq[i].bytes, o->queues[q].sq[i].len, &w, &d) > 0);
	return w;
}

static void expect_error(const char *src, const char *needle)
{
	char *diag = NULL;
	struct chainobj *o = be_compile(src, NULL, IR_PROFILE_RELAXED, &diag);
	assert_null(o);
	assert_non_null(diag);
	if (!strstr(diag, needle))
		fprintf(stderr, "diagnostic was:\n%s", diag);
	assert_non_null(strstr(diag, needle));
	free(diag);
}

/* ---- else / != ------------------------------------------------------------ */

/* if/else on equality: the then-response waits as a NOP (one CAS arms it
 * when equal), the else-response is posted live and one CAS disarms it
 * (swaps in a NOP) when equal.  Two guards, one barrier for both. */
static void test_else_equal_two_guards(void **state)
{
	(void)state;
	struct chainobj *o =
	    compile_ok(HDR "offload get(key: be24, b: *bucket in table) -> u8[64] {\n"
	                   "  if (b.key == key) { return *b.value; } else { return *b.alt; }\n}\n",
	               NULL);
	assert_string_equal(be_ops(o, "ctl"), "WAIT WAIT EN"); /* entry WAIT, request gate */
	assert_string_equal(be_ops(o, "w0"), "READ CAS READ CAS WAIT EN");
	assert_string_equal(be_ops(o, "conn"), "NOP WRITE_IMM WRITE_IMM");
	int w0 = be_queue(o, "w0"), conn = be_queue(o, "conn");
	struct prism_wqe arm = decode(o, w0, 1), disarm = decode(o, w0, 3);
	/* arm: NOP -> WRITE_IMM; disarm: WRITE_IMM -> NOP (opcode = byte 3 of
	 * the host-endian ctrl word) */
	assert_int_equal((arm.atomic.compare >> 24) & 0xff, PRISM_OP_NOP);
	assert_int_equal((arm.atomic.swap >> 24) & 0xff, PRISM_OP_RDMA_WRITE_IMM);
	assert_int_equal((disarm.atomic.compare >> 24) & 0xff, PRISM_OP_RDMA_WRITE_IMM);
	assert_int_equal((disarm.atomic.swap >> 24) & 0xff, PRISM_OP_NOP);
	/* both keep the target's ds, so a disarmed WQE keeps its size */
	struct prism_wqe alt = decode(o, conn, 1);
	assert_int_equal((disarm.atomic.swap >> 56) & 0xff, alt.ctrl.ds);
	assert_int_equal((disarm.atomic.compare >> 56) & 0xff, alt.ctrl.ds);
	assert_int_equal(alt.ctrl.imm, 2); /* the second return site */
	/* the key rides in the live response's QPN bytes: no QPN relocation
	 * there, one READ scatter entry of 3 bytes instead */
	unsigned qpn_scatter = 0;
	for (uint32_t i = 0; i < o->n_patches; i++) {
		const struct chainobj_patch *p = &o->patches[i];
		if (p->target.queue == (uint32_t)conn && p->target.wqe == 1 &&
		    p->target.offset == 4 && p->kind == CHAINOBJ_PATCH_READ_SCATTER) {
			assert_int_equal(p->target.width, 3);
			qpn_scatter++;
		}
	}
	assert_int_equal(qpn_scatter, 1);
	for (uint32_t i = 0; i < o->n_relocs; i++) {
		const struct chainobj_reloc *r = &o->relocs[i];
		if (r->site.queue == (uint32_t)conn && r->site.ring == CHAINOBJ_RING_SQ &&
		    r->site.wqe == 1)
			assert_int_not_equal(r->kind, CHAINOBJ_RELOC_QPN);
	}
	assert_int_equal(o->summary.barriers, 2);
	chainobj_free(o);
}

/* `!=` alone: one CAS that disarms; a store under `!=` is posted live in
 * the lane, after its guard. */
static void test_not_equal_store(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok(HDR "offload put(key: be24, b: *bucket in table, "
	                                    "c: *ctr in counters, v: le64) {\n"
	                                    "  if (b.key != key) { c.n = v; }\n}\n",
	                                NULL);
	assert_string_equal(be_ops(o, "w0"), "READ CAS WAIT EN WRITE WAIT EN");
	int w0 = be_queue(o, "w0");
	struct prism_wqe g = decode(o, w0, 1);
	assert_int_equal((g.atomic.compare >> 24) & 0xff, PRISM_OP_RDMA_WRITE);
	assert_int_equal((g.atomic.swap >> 24) & 0xff, PRISM_OP_NOP);
	chainobj_free(o);
}

/* ---- order comparisons ------------------------------------------------------ */

/* if (b.key > key) / else: complement (key is the client's: a RECV fills the
 * swap mask, so no barrier for it), add (the bucket key from the READ: the
 * add field is rewritten, one barrier), one READ of two carry bytes, one
 * masked CAS per response (carry wanted: 0x00 for then, 0xff for else). */
static void test_order_sequence(void **state)
{
	(void)state;
	struct chainobj *o =
	    compile_ok(HDR "offload get(key: be24, b: *bucket in table) -> u8[64] {\n"
	                   "  if (b.key > key) { return *b.value; } else { return *b.alt; }\n}\n",
	               NULL);
	assert_string_equal(be_ops(o, "w0"), "READ MCAS WAIT EN MFA READ MCAS MCAS WAIT EN");
	assert_string_equal(be_ops(o, "conn"), "NOP NOP WRITE_IMM");
	int w0 = be_queue(o, "w0");
	struct prism_wqe cpl = decode(o, w0, 1), add = decode(o, w0, 4), rd = decode(o, w0, 5);
	struct prism_wqe g1 = decode(o, w0, 6), g2 = decode(o, w0, 7);
	assert_int_equal(cpl.atomic.size, 16);
	assert_int_equal(add.atomic.size, 16);
	static const uint8_t zero[16];
	assert_memory_equal(cpl.atomic.compare_mask_bytes, zero, 16); /* always swaps */
	assert_memory_equal(add.atomic.swap_mask_bytes, zero, 16);    /* no boundary */
	assert_int_equal(rd.num_sge, 2);                              /* one byte per guard */
	assert_int_equal(g1.atomic.size, 8);
	assert_int_equal(g1.atomic.compare_mask, 0xffull << 32);
	assert_int_equal(g1.atomic.compare, 0);
	assert_int_equal(g2.atomic.compare, 0xffull << 32);
	assert_int_equal(g1.atomic.swap_mask, 0x00ffffffff0000ffull);
	assert_int_equal((g1.atomic.swap >> 24) & 0xff, PRISM_OP_RDMA_WRITE_IMM);
	/* fenced chain: add after complement's barrier, READ after add, CAS
	 * after READ */
	assert_int_equal(prism_ctrl_fence(&add.ctrl), PRISM_FENCE_SMALL_AND_FENCE);
	assert_int_equal(prism_ctrl_fence(&rd.ctrl), PRISM_FENCE_SMALL_AND_FENCE);
	assert_int_equal(prism_ctrl_fence(&g1.ctrl), PRISM_FENCE_SMALL_AND_FENCE);
	/* S starts as [00 ff*7 | ff*8] */
	assert_true(o->scratch_init_len >= 16);
	chainobj_free(o);
}

/* A constant goes to the complemented side: `c.n < 10` = not (c.n > 9),
 * so ~9 sits in the scratch image and no complement CAS runs. */
static void test_order_constant(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok(HDR "offload clamp(c: *ctr in counters) {\n"
	                                    "  if (c.n < 10) { c.n = 10; }\n}\n",
	                                NULL);
	assert_string_equal(be_ops(o, "w0"), "READ WAIT EN MFA READ MCAS WAIT EN NOP WAIT EN");
	int w0 = be_queue(o, "w0");
	struct prism_wqe g = decode(o, w0, 5);
	assert_int_equal(g.atomic.compare, 0xffull << 32); /* carry clear */
	static const uint8_t img[16] = {0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	                                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf6};
	int found = 0;
	for (uint32_t off = 0; off + 16 <= o->scratch_init_len; off++)
		found |= memcmp(o->scratch_init + off, img, 16) == 0;
	assert_true(found);
	chainobj_free(o);
}

/* ---- executing an order comparison on the template bytes ------------------- */

/* Payload: parameters a, b (be16 each, `copies` times). */
static void make_payload(const struct chainobj *o, uint16_t a, uint16_t b, uint8_t *msg)
{
	const struct chainobj_entry *e = &o->entries[0];
	for (uint32_t i = 0; i < e->n_params; i++) {
		const struct chainobj_param *p = &e->params[i];
		uint16_t v = i == 0 ? a : b;
		for (uint32_t k = 0; k < p->copies; k++) {
			msg[p->msg_offset + 2 * k] = (uint8_t)(v >> 8);
			msg[p->msg_offset + 2 * k + 1] = (uint8_t)v;
		}
	}
}

static uint32_t be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Apply the RECV: every recv-scatter patch copies its payload bytes into
 * the target template copy. */
static void apply_recv(const struct chainobj *o, const uint8_t *msg, uint8_t wq[][128], int q)
{
	int conn = be_queue(o, "conn");
	const uint8_t *rq = o->queues[conn].rq[0].bytes;
	for (uint32_t i = 0; i < o->n_patches; i++) {
		const struct chainobj_patch *p = &o->patches[i];
		if (p->kind != CHAINOBJ_PATCH_RECV_SCATTER || p->target.queue != (uint32_t)q)
			continue;
		uint32_t moff = 0;
		for (uint32_t s = 0; s < p->writer_sge; s++)
			moff += be32_at(rq + 16 * s);
		memcpy(&wq[p->target.wqe][p->target.offset], msg + moff, p->target.width);
	}
}

static void be_limbs(const uint8_t *b, uint64_t l[2])
{
	l[1] = l[0] = 0;
	for (int i = 0; i < 8; i++) {
		l[1] = l[1] << 8 | b[i];
		l[0] = l[0] << 8 | b[8 + i];
	}
}

static void limbs_be(const uint64_t l[2], uint8_t *b)
{
	for (int i = 0; i < 8; i++) {
		b[7 - i] = (uint8_t)(l[1] >> (8 * i));
		b[15 - i] = (uint8_t)(l[0] >> (8 * i));
	}
}

/* Run the order guard of `o` (lane w0, guarded effect on w0) for a, b:
 * returns whether the guarded WQE ends up armed. */
static bool run_order(const struct chainobj *o, uint16_t a, uint16_t b)
{
	int w0 = be_queue(o, "w0");
	const struct chainobj_queue *q = &o->queues[w0];
	static uint8_t wq[64][128];
	assert_true(q->n_sq <= 64);
	for (uint32_t i = 0; i < q->n_sq; i++) {
		memset(wq[i], 0, 128);
		memcpy(wq[i], q->sq[i].bytes, q->sq[i].len < 128 ? q->sq[i].len : 128);
	}
	uint8_t msg[64] = {0};
	make_payload(o, a, b, msg);
	apply_recv(o, msg, wq, w0);
	uint8_t s[16];
	assert_true(o->scratch_init_len >= 16);
	/* the program's only order comparison: S is the scratch image's first
	 * 16-byte block that starts with 00 ff */
	int soff = -1;
	for (uint32_t off = 0; off + 16 <= o->scratch_init_len && soff < 0; off += 16)
		if (o->scratch_init[off] == 0 && o->scratch_init[off + 1] == 0xff)
			soff = (int)off;
	assert_true(soff >= 0);
	memcpy(s, o->scratch_init + soff, 16);
	bool armed = false;
	uint8_t carry_byte = 0;
	for (uint32_t i = 0; i < q->n_sq; i++) {
		struct prism_wqe w;
		struct prism_wqe_diag d;
		assert_true(prism_wqe_decode(wq[i], q->sq[i].len, &w, &d) > 0);
		uint64_t t[2], sw[2], cm[2], sm[2], cp[2];
		if (w.ctrl.opcode == PRISM_OP_ATOMIC_MASKED_CS && w.atomic.size == 16) {
			be_limbs(s, t);
			be_limbs(w.atomic.swap_bytes, sw);
			be_limbs(w.atomic.compare_bytes, cp);
			be_limbs(w.atomic.swap_mask_bytes, sm);
			be_limbs(w.atomic.compare_mask_bytes, cm);
			if (((t[0] ^ cp[0]) & cm[0]) == 0 && ((t[1] ^ cp[1]) & cm[1]) == 0)
				for (int k = 0; k < 2; k++)
					t[k] = (t[k] & ~sm[k]) | (sw[k] & sm[k]);
			limbs_be(t, s);
		} else if (w.ctrl.opcode == PRISM_OP_ATOMIC_MASKED_FA) {
			be_limbs(s, t);
			be_limbs(w.atomic.swap_bytes, sw);
			uint64_t lo = t[0] + sw[0];
			t[1] += sw[1] + (lo < t[0]);
			t[0] = lo;
			limbs_be(t, s);
		} else if (w.ctrl.opcode == PRISM_OP_RDMA_READ && w.num_sge <= 7 &&
		           w.sge[0].byte_count == 1) {
			carry_byte = s[1]; /* every carry byte is equal */
		} else if (w.ctrl.opcode == PRISM_OP_ATOMIC_MASKED_CS && w.atomic.size == 8) {
			/* the guarded WQE's ctrl word with the carry in byte 4 */
			uint8_t ctrl[8];
			memcpy(ctrl, wq[q->n_sq - 3], 8);
			ctrl[4] = carry_byte;
			uint64_t x = 0;
			for (int k = 7; k >= 0; k--)
				x = x << 8 | ctrl[k];
			if (((x ^ w.atomic.compare) & w.atomic.compare_mask) == 0)
				x = (x & ~w.atomic.swap_mask) |
				    (w.atomic.swap & w.atomic.swap_mask);
			armed = ((x >> 24) & 0xff) != PRISM_OP_NOP;
		}
	}
	return armed;
}

static void check_order(const char *op, bool (*truth)(uint16_t, uint16_t))
{
	char src[512];
	snprintf(src, sizeof(src),
	         HDR "offload f(a: be16, b: be16, c: *ctr in counters) {\n"
	             "  if (a %s b) { c.n = 1; }\n}\n",
	         op);
	struct chainobj *o = compile_ok(src, NULL);
	/* the store is the lane's third-last WQE (then its barrier to conn) */
	int w0 = be_queue(o, "w0");
	struct prism_wqe x = decode(o, w0, o->queues[w0].n_sq - 3);
	assert_int_equal(x.ctrl.opcode, PRISM_OP_NOP);
	static const uint16_t vals[] = {0, 1, 2, 0x7fff, 0x8000, 0xfffe, 0xffff, 0x1234};
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		for (size_t j = 0; j < sizeof(vals) / sizeof(vals[0]); j++) {
			bool want = truth(vals[i], vals[j]);
			bool got = run_order(o, vals[i], vals[j]);
			if (want != got)
				fprintf(stderr, "%u %s %u: armed %d, want %d\n", vals[i], op,
				        vals[j], got, want);
			assert_int_equal(got, want);
		}
	chainobj_free(o);
}

static bool t_gt(uint16_t a, uint16_t b)
{
	return a > b;
}
static bool t_lt(uint16_t a, uint16_t b)
{
	return a < b;
}
static bool t_ge(uint16_t a, uint16_t b)
{
	return a >= b;
}
static bool t_le(uint16_t a, uint16_t b)
{
	return a <= b;
}

static void test_order_truth_gt(void **state)
{
	(void)state;
	check_order(">", t_gt);
}
static void test_order_truth_lt(void **state)
{
	(void)state;
	check_order("<", t_lt);
}
static void test_order_truth_ge(void **state)
{
	(void)state;
	check_order(">=", t_ge);
}
static void test_order_truth_le(void **state)
{
	(void)state;
	check_order("<=", t_le);
}

/* ---- rejections --------------------------------------------------------------- */

/* `!` flips what each carry term is wanted to be: `!(a == b)` is `a != b`
 * WQE for WQE (one CAS that disarms), `!(a > b)` is `a <= b`.  A negation
 * whose disjunctive form needs more than 4 clauses is rejected. */
static void test_not_is_the_complement(void **state)
{
	(void)state;
	static const char *pairs[][2] = {
	    {"if (!(b.key == key)) { return *b.value; }", "if (b.key != key) { return *b.value; }"},
	    {"if (!(b.key != key)) { return *b.value; }", "if (b.key == key) { return *b.value; }"},
	    {"if (!(b.key > key)) { return *b.value; }", "if (b.key <= key) { return *b.value; }"},
	    {"if (!!(b.key < key)) { return *b.value; }", "if (b.key < key) { return *b.value; }"},
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		char src[2][512];
		struct chainobj *o[2];
		for (int k = 0; k < 2; k++) {
			snprintf(src[k], sizeof(src[k]),
			         HDR
			         "offload g(key: be24, b: *bucket in table) -> u8[64] {\n  %s\n}\n",
			         pairs[i][k]);
			o[k] = compile_ok(src[k], NULL);
		}
		static const char *qs[] = {"ctl", "conn", "w0"};
		for (int q = 0; q < 3; q++) {
			char ops[512];
			snprintf(ops, sizeof(ops), "%s", be_ops(o[0], qs[q]));
			assert_string_equal(ops, be_ops(o[1], qs[q]));
		}
		assert_int_equal(be_total_wqes(o[0]), be_total_wqes(o[1]));
		chainobj_free(o[0]);
		chainobj_free(o[1]);
	}
	/* READ the key into the live response's QPN bytes, one CAS disarms it */
	struct chainobj *o =
	    compile_ok(HDR "offload g(key: be24, b: *bucket in table) -> "
	                   "u8[64] {\n  if (!(b.key == key)) { return *b.value; }\n}\n",
	               NULL);
	assert_string_equal(be_ops(o, "w0"), "READ CAS WAIT EN");
	assert_string_equal(be_ops(o, "conn"), "WRITE_IMM WRITE_IMM");
	chainobj_free(o);
	expect_error(HDR "offload g(k: be16, j: be16, c: *ctr in counters) {\n"
	                 "  if (!(k == j && j > 3 && k > 4 && k < 9000)) { c.n = 1; }\n}\n",
	             "a disjunction of 5 clauses; an effect is guarded by at most 4");
}

/* `break` under `!=` is two exits (a > b, b > a: test_be_constructs runs
 * such loops); under `&&` it would need both tests in one exit. */
static void test_reject_break_not_equal(void **state)
{
	(void)state;
	expect_error("struct node { key: be24; pad: u8[5]; next: *node in nodes; value: u8[64]; }\n"
	             "region nodes: node[4096] readonly;\n"
	             "offload f(key: be24, head: *node in nodes) -> u8[64] {\n"
	             "  let p = head;\n"
	             "  while (p.key != key) bound 2 { if (p.key != key && p.key > 3) { break; } "
	             "p = p.next; }\n"
	             "  if (p.key == key) { return p.value; }\n}\n",
	             "`break` is lowered under a condition that holds when one of its comparisons "
	             "does");
}

static void test_reject_never_true(void **state)
{
	(void)state;
	expect_error(HDR "offload g(c: *ctr in counters) {\n  if (0 > c.n) { c.n = 1; }\n}\n",
	             "never true for unsigned integers");
}

/* ---- cas_gt / cas_lt ------------------------------------------------------------ */

/* cas_gt(c.n, 100): READ the old value into the CAS's compare field, copy
 * it back from there (one snapshot for both uses), compare (the constant
 * is complemented at compile time: 2 atomics + the carry READ), then the
 * CAS that stores 100, armed only when 100 > old. */
static void test_cas_gt_sequence(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok("struct ctr { n: le64; }\n"
	                                "region counters: ctr[16] writable;\n"
	                                "offload bump(c: *ctr in counters) { cas_gt(c.n, 100); }\n",
	                                NULL);
	assert_string_equal(be_ops(o, "w0"), "READ READ WAIT EN MFA READ MCAS WAIT EN NOP WAIT EN");
	int w0 = be_queue(o, "w0");
	struct prism_wqe x = decode(o, w0, 9), g = decode(o, w0, 6), cp = decode(o, w0, 1);
	assert_int_equal(x.ctrl.opcode, PRISM_OP_NOP);
	assert_int_equal(x.ctrl.ds, 4);                                     /* a CAS's size */
	assert_int_equal((g.atomic.swap >> 24) & 0xff, PRISM_OP_ATOMIC_CS); /* armed as a CAS */
	assert_int_equal(g.atomic.compare, 0xffull << 32); /* 100 > old = not old > 99 */
	/* the armed CAS stores 100 (swap) and compares with the READ's bytes */
	uint32_t cmp_off = 0, cmp_len = 0;
	struct prism_wqe armed = x;
	armed.ctrl.opcode = PRISM_OP_ATOMIC_CS;
	assert_int_equal(
	    prism_wqe_field_offset(&armed, PRISM_FIELD_ATOMIC_COMPARE, &cmp_off, &cmp_len), 0);
	unsigned into_cmp = 0;
	for (uint32_t i = 0; i < o->n_patches; i++) {
		const struct chainobj_patch *p = &o->patches[i];
		if (p->kind == CHAINOBJ_PATCH_READ_SCATTER && p->target.queue == (uint32_t)w0 &&
		    p->target.wqe == 9 && p->target.offset >= cmp_off &&
		    p->target.offset < cmp_off + 8) {
			assert_int_equal(p->writer_wqe, 0);
			into_cmp += p->target.width;
		}
	}
	assert_int_equal(into_cmp, 8); /* le64 old value, reversed byte by byte */
	/* the copy READ reads the CAS's compare field (queue memory) */
	assert_int_equal(cp.num_sge, 1);
	assert_int_equal(cp.sge[0].byte_count, 8);
	assert_int_equal(prism_ctrl_fence(&cp.ctrl), PRISM_FENCE_SMALL_AND_FENCE);
	chainobj_free(o);
}

/* cas_lt with a client value: the complement takes the client bytes, the
 * add the copied snapshot; both rewritten WQEs share one barrier. */
static void test_cas_lt_one_barrier(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok("struct ctr { n: le64; }\n"
	                                "region counters: ctr[16] writable;\n"
	                                "offload low(c: *ctr in counters, v: le64) "
	                                "{ cas_lt(c.n, v); }\n",
	                                NULL);
	assert_string_equal(be_ops(o, "w0"),
	                    "READ READ READ WAIT EN MCAS MFA READ MCAS WAIT EN NOP WAIT EN");
	chainobj_free(o);
}

static void test_reject_cas_gt_forms(void **state)
{
	(void)state;
	/* 4-, 8- and 16-byte places (a 32-byte comparison needs more than the
	 * 16-byte low half of the widest add) */
	expect_error("struct w { n: u8[32]; }\nregion r: w[4] writable;\n"
	             "offload f(p: *w in r, v: u8[32], m: u8[32]) { cas_gt(p.n, v, m, m); }\n",
	             "is lowered on 4-, 8- and 16-byte places");
	expect_error("struct ctr { n: le64; }\nregion r: ctr[4] writable;\n"
	             "offload f(p: *ctr in r, v: le64, m: le64) { cas_gt(p.n, v, m, 255); }\n",
	             "the masks of cas_gt / cas_lt are constants");
	expect_error("struct ctr { n: le64; k: le64; }\nregion r: ctr[4] writable;\n"
	             "offload f(p: *ctr in r, v: le64) { if (p.k != v) { cas_lt(p.n, v); } }\n",
	             "t.prism:3:52: error: cas_lt under a condition that is one `!=` (an `if (a "
	             "!= b)` arm, or the `else` of `if (a == b)`) is not lowered: its guard would "
	             "need the two ways `!=` holds as a disjunction of its own; write the "
	             "condition as `a < b || a > b`\n");
	expect_error("struct ctr { n: be64; k: be64; }\nregion r: ctr[4] writable;\n"
	             "offload f(p: *ctr in r, v: be64) { if (p.k == v) { p.n = 1; } "
	             "else { cas_gt(p.n, v); } }\n",
	             "t.prism:3:70: error: cas_gt under a condition that is one `!=`");
}

/* ---- masked cas --------------------------------------------------------------- */

#define MHDR                                                                                       \
	"struct w4 { n: be32; }\nstruct w8 { n: le64; }\nstruct b8 { n: be64; }\n"                 \
	"struct w16 { a: u8[16]; }\n"                                                              \
	"region r4: w4[4] writable;\nregion r8: w8[4] writable;\nregion rb: b8[4] writable;\n"     \
	"region r16: w16[4] writable;\n"

/* Client bytes that land in `wq` of w0: total width per field offset. */
static unsigned recv_bytes_at(const struct chainobj *o, unsigned wqe, uint32_t off, uint32_t len)
{
	int w0 = be_queue(o, "w0");
	unsigned n = 0;
	for (uint32_t i = 0; i < o->n_patches; i++) {
		const struct chainobj_patch *p = &o->patches[i];
		if (p->kind == CHAINOBJ_PATCH_RECV_SCATTER && p->target.queue == (uint32_t)w0 &&
		    p->target.wqe == wqe && p->target.offset >= off &&
		    p->target.offset + p->target.width <= off + len)
			n += p->target.width;
	}
	return n;
}

/* 4-byte masked cas: opmod 0x08, constants in the template as the
 * big-endian integers the NIC compares, the client value in the swap field
 * in memory order (one 4-byte entry). */
static void test_masked_cas_4(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok(MHDR "offload m(p: *w4 in r4, v: be32) "
	                                     "{ cas(p.n, 0, v, 0xffff0000, 0x0000ffff); }\n",
	                                NULL);
	assert_string_equal(be_ops(o, "w0"), "MCAS WAIT EN");
	struct prism_wqe m = decode(o, be_queue(o, "w0"), 0);
	assert_int_equal(m.atomic.size, 4);
	assert_int_equal(m.ctrl.opmod, PRISM_MASKED_OPMOD(2));
	assert_int_equal(m.atomic.compare_mask, 0xffff0000u);
	assert_int_equal(m.atomic.swap_mask, 0x0000ffffu);
	assert_int_equal(m.atomic.compare, 0);
	uint32_t so, sl;
	assert_int_equal(prism_wqe_field_offset(&m, PRISM_FIELD_ATOMIC_SWAP, &so, &sl), 0);
	assert_int_equal(sl, 4);
	assert_int_equal(recv_bytes_at(o, 0, so, 4), 4);
	chainobj_free(o);
}

/* 16-byte masked cas on an aggregate: all four operands from the client,
 * 16 bytes each, in memory order (swap, compare, swap mask, compare mask). */
static void test_masked_cas_16(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok(
	    MHDR "offload m(p: *w16 in r16, e: u8[16], v: u8[16], cm: u8[16], sm: u8[16]) "
	         "{ cas(p.a, e, v, cm, sm); }\n",
	    NULL);
	assert_string_equal(be_ops(o, "w0"), "MCAS WAIT EN");
	struct prism_wqe m = decode(o, be_queue(o, "w0"), 0);
	assert_int_equal(m.atomic.size, 16);
	uint32_t so, sl;
	assert_int_equal(prism_wqe_field_offset(&m, PRISM_FIELD_ATOMIC_SWAP, &so, &sl), 0);
	for (unsigned f = 0; f < 4; f++)
		assert_int_equal(recv_bytes_at(o, 0, so + 16 * f, 16), 16);
	chainobj_free(o);
}

/* An 8-byte cas on a big-endian place: the NIC compares the host-endian
 * integer of the memory bytes, so constants are byte-swapped and client
 * bytes land reversed. */
static void test_cas_be_place_constant(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok(MHDR "offload m(p: *b8 in rb) { cas(p.n, 5, 6); }\n", NULL);
	struct prism_wqe m = decode(o, be_queue(o, "w0"), 0);
	assert_int_equal(m.ctrl.opcode, PRISM_OP_ATOMIC_CS);
	assert_int_equal(m.atomic.compare, 0x0500000000000000ull);
	assert_int_equal(m.atomic.swap, 0x0600000000000000ull);
	chainobj_free(o);
	o = compile_ok(MHDR "offload m(p: *w8 in r8) { cas(p.n, 5, 6, 255, 255); }\n", NULL);
	m = decode(o, be_queue(o, "w0"), 0);
	assert_int_equal(m.ctrl.opcode, PRISM_OP_ATOMIC_MASKED_CS);
	assert_int_equal(m.atomic.size, 8);
	assert_int_equal(m.atomic.compare, 5);
	assert_int_equal(m.atomic.compare_mask, 255);
	chainobj_free(o);
}

static void test_reject_cas_forms(void **state)
{
	(void)state;
	expect_error(MHDR "offload m(p: *w4 in r4) { cas(p.n, 0, 1); }\n",
	             "a cas without masks is the 8-byte verb");
}

/* ---- alloc ---------------------------------------------------------------------- */

/* PRISM ALLOCATE: FETCH_ADD the list cursor (+8) into scratch, a READ
 * byte-swaps the returned address into the slot READ's raddr, the slot's
 * be64 pointer lands in the WRITE that fills the buffer.  The free list is
 * a region of its own (cursor + slots), keyed separately. */
static void test_alloc_sequence(void **state)
{
	(void)state;
	struct chainobj *o =
	    compile_ok("struct object { version: le64; len: be32; data: u8[52]; }\n"
	               "region heap size 16 MiB writable;\n"
	               "freelist objects: object in heap;\n"
	               "offload put(version: le64) {\n"
	               "  let buf = alloc(objects);\n  buf.version = version;\n}\n",
	               NULL);
	assert_string_equal(be_ops(o, "w0"), "FA READ WAIT EN READ WAIT EN WRITE WAIT EN");
	int w0 = be_queue(o, "w0");
	int list = chainobj_find_region(o, "objects");
	assert_true(list >= 0);
	assert_int_equal(o->regions[list].size, 8 + 8 * 4096);
	struct prism_wqe fa = decode(o, w0, 0), cp = decode(o, w0, 1);
	assert_int_equal(fa.atomic.swap, 8);
	assert_int_equal(cp.num_sge, 8); /* le64 address -> be64 raddr */
	assert_int_equal(prism_ctrl_fence(&cp.ctrl), PRISM_FENCE_SMALL_AND_FENCE);
	/* the FA and the slot READ use the list's key; the WRITE the heap's */
	unsigned list_keys = 0, heap_keys = 0;
	int heap = chainobj_find_region(o, "heap");
	for (uint32_t i = 0; i < o->n_relocs; i++) {
		const struct chainobj_reloc *r = &o->relocs[i];
		if (r->site.queue != (uint32_t)w0 || r->kind != CHAINOBJ_RELOC_REGION_RKEY)
			continue;
		if (r->target == (uint32_t)list) {
			assert_true(r->site.wqe == 0 || r->site.wqe == 4);
			list_keys++;
		} else if (r->target == (uint32_t)heap) {
			assert_int_equal(r->site.wqe, 7);
			heap_keys++;
		}
	}
	assert_int_equal(list_keys, 2);
	assert_int_equal(heap_keys, 1);
	chainobj_free(o);
}

/* ---- an executor for every condition form ---------------------------------------- */

static const struct chainobj_reloc *reloc_at(const struct chainobj *o, int q, unsigned wqe,
                                             uint32_t off)
{
	for (uint32_t i = 0; i < o->n_relocs; i++) {
		const struct chainobj_reloc *r = &o->relocs[i];
		if (r->site.queue == (uint32_t)q && r->site.ring == CHAINOBJ_RING_SQ &&
		    r->site.wqe == wqe && r->site.offset == off)
			return r;
	}
	return NULL;
}

static unsigned last_armed; /* bit k: the k-th guarded WQE of w0 runs */

/* Run lane w0 of `o` on the template bytes for client values a, b: the
 * scratch pairs, the READs between scratch and WQE fields, the atomics on
 * scratch and on the guarded WQE.  Returns whether the guarded WQE (the
 * target of the guards' CAS patches) runs as its real opcode. */
static bool run_lane(const struct chainobj *o, uint16_t a, uint16_t b)
{
	int w0 = be_queue(o, "w0");
	const struct chainobj_queue *q = &o->queues[w0];
	static uint8_t wq[64][128];
	static uint8_t scratch[4096];
	assert_true(q->n_sq <= 64 && o->scratch_size <= sizeof(scratch));
	for (uint32_t i = 0; i < q->n_sq; i++) {
		memset(wq[i], 0, 128);
		memcpy(wq[i], q->sq[i].bytes, q->sq[i].len < 128 ? q->sq[i].len : 128);
	}
	memset(scratch, 0, sizeof(scratch));
	if (o->scratch_init_len)
		memcpy(scratch, o->scratch_init, o->scratch_init_len);
	uint8_t msg[64] = {0};
	make_payload(o, a, b, msg);
	apply_recv(o, msg, wq, w0);
	int x = -1;
	for (uint32_t i = 0; i < o->n_patches; i++) {
		const struct chainobj_patch *p = &o->patches[i];
		if ((p->kind == CHAINOBJ_PATCH_CAS || p->kind == CHAINOBJ_PATCH_MASKED_CAS) &&
		    p->target.queue == (uint32_t)w0 && p->target.offset == 0)
			x = (int)p->target.wqe;
	}
	assert_true(x >= 0);
	for (uint32_t i = 0; i < q->n_sq; i++) {
		struct prism_wqe w;
		struct prism_wqe_diag d;
		memset(&w, 0, sizeof(w));
		assert_true(prism_wqe_decode(wq[i], q->sq[i].len, &w, &d) > 0);
		uint32_t ro;
		uint32_t rl;
		if (prism_wqe_field_offset(&w, PRISM_FIELD_RADDR, &ro, &rl) != 0)
			continue;
		const struct chainobj_reloc *r = reloc_at(o, w0, i, ro);
		if (!r)
			continue;
		if (w.ctrl.opcode == PRISM_OP_RDMA_READ &&
		    (r->kind == CHAINOBJ_RELOC_SCRATCH_ADDR ||
		     r->kind == CHAINOBJ_RELOC_QBUF_ADDR)) {
			const uint8_t *src = scratch + r->addend;
			if (r->kind == CHAINOBJ_RELOC_QBUF_ADDR) {
				int sw = -1;
				assert_int_equal(r->target, (uint32_t)w0);
				for (uint32_t j = 0; j < q->n_sq; j++)
					if (q->sq[j].slot == r->delta)
						sw = (int)j;
				assert_true(sw >= 0);
				src = wq[sw] + r->addend;
			}
			uint32_t d0 = 0;
			for (uint32_t k = 0; k < w.num_sge; k++) {
				for (uint32_t pi = 0; pi < o->n_patches; pi++) {
					const struct chainobj_patch *p = &o->patches[pi];
					if (p->kind == CHAINOBJ_PATCH_READ_SCATTER &&
					    p->writer_queue == (uint32_t)w0 && p->writer_wqe == i &&
					    p->writer_sge == k && p->target.queue == (uint32_t)w0)
						memcpy(&wq[p->target.wqe][p->target.offset],
						       src + d0, p->target.width);
				}
				d0 += w.sge[k].byte_count;
			}
			continue;
		}
		uint64_t t[2], sw[2], cm[2], sm[2], cp[2];
		if (r->kind == CHAINOBJ_RELOC_SCRATCH_ADDR && w.has_atomic && w.atomic.size == 16) {
			uint8_t *sb = scratch + r->addend;
			be_limbs(sb, t);
			be_limbs(w.atomic.swap_bytes, sw);
			if (w.ctrl.opcode == PRISM_OP_ATOMIC_MASKED_FA) {
				uint64_t lo = t[0] + sw[0];
				t[1] += sw[1] + (lo < t[0]);
				t[0] = lo;
			} else {
				be_limbs(w.atomic.compare_bytes, cp);
				be_limbs(w.atomic.swap_mask_bytes, sm);
				be_limbs(w.atomic.compare_mask_bytes, cm);
				if (((t[0] ^ cp[0]) & cm[0]) == 0 && ((t[1] ^ cp[1]) & cm[1]) == 0)
					for (int k = 0; k < 2; k++)
						t[k] = (t[k] & ~sm[k]) | (sw[k] & sm[k]);
			}
			limbs_be(t, sb);
			continue;
		}
		if (r->kind == CHAINOBJ_RELOC_QBUF_ADDR && w.has_atomic && w.atomic.size == 8 &&
		    (w.ctrl.opcode == PRISM_OP_ATOMIC_CS ||
		     w.ctrl.opcode == PRISM_OP_ATOMIC_MASKED_CS)) {
			/* on its target's ctrl word (host-endian); index/QPN
			 * relocations are 0 in both the template and the operands */
			for (uint32_t pi = 0; pi < o->n_patches; pi++) {
				const struct chainobj_patch *p = &o->patches[pi];
				if ((p->kind == CHAINOBJ_PATCH_CAS ||
				     p->kind == CHAINOBJ_PATCH_MASKED_CAS) &&
				    p->writer_queue == (uint32_t)w0 && p->writer_wqe == i)
					x = (int)p->target.wqe;
			}
			uint64_t v = 0;
			for (int k = 7; k >= 0; k--)
				v = v << 8 | wq[x][k];
			uint64_t cmask =
			    w.ctrl.opcode == PRISM_OP_ATOMIC_CS ? ~0ull : w.atomic.compare_mask;
			uint64_t smask =
			    w.ctrl.opcode == PRISM_OP_ATOMIC_CS ? ~0ull : w.atomic.swap_mask;
			if (((v ^ w.atomic.compare) & cmask) == 0)
				v = (v & ~smask) | (w.atomic.swap & smask);
			for (int k = 0; k < 8; k++)
				wq[x][k] = (uint8_t)(v >> (8 * k));
		}
	}
	/* the guarded WQEs, in lane order: bit k = the k-th one runs */
	unsigned armed = 0, k = 0;
	for (uint32_t i = 0; i < q->n_sq; i++) {
		bool guarded = false;
		for (uint32_t pi = 0; pi < o->n_patches; pi++) {
			const struct chainobj_patch *p = &o->patches[pi];
			if ((p->kind == CHAINOBJ_PATCH_CAS ||
			     p->kind == CHAINOBJ_PATCH_MASKED_CAS) &&
			    p->target.queue == (uint32_t)w0 && p->target.wqe == i &&
			    p->target.offset == 0)
				guarded = true;
		}
		if (!guarded)
			continue;
		if (wq[i][3] != PRISM_OP_NOP)
			armed |= 1u << k;
		k++;
	}
	last_armed = armed;
	return wq[x][3] != PRISM_OP_NOP;
}

static bool t_eq(uint16_t a, uint16_t b)
{
	return a == b;
}
static bool t_ne(uint16_t a, uint16_t b)
{
	return a != b;
}

/* Every comparison, both profiles, both arms: the guarded store runs
 * exactly when its condition holds. */
static void test_conditions_execute(void **state)
{
	(void)state;
	static const struct {
		const char *op;
		bool (*truth)(uint16_t, uint16_t);
	} ops[] = {{"==", t_eq}, {"!=", t_ne}, {">", t_gt},
	           {"<", t_lt},  {">=", t_ge}, {"<=", t_le}};
	static const uint16_t vals[] = {0, 1, 2, 0x7fff, 0x8000, 0xfffe, 0xffff};
	for (int prof = 0; prof < 2; prof++)
		for (size_t oi = 0; oi < sizeof(ops) / sizeof(ops[0]); oi++)
			for (int arm = 0; arm < 2; arm++) {
				char src[640];
				snprintf(src, sizeof(src),
				         HDR "offload f(a: be16, b: be16, c: *ctr in counters) {\n"
				             "  if (a %s b) { %s } else { %s }\n}\n",
				         ops[oi].op, arm ? "" : "c.n = 1;", arm ? "c.n = 2;" : "");
				char *diag = NULL;
				struct chainobj *o = be_compile(
				    src, NULL, prof ? IR_PROFILE_STRICT : IR_PROFILE_RELAXED,
				    &diag);
				if (!o)
					fprintf(stderr, "%s", diag ? diag : "");
				free(diag);
				assert_non_null(o);
				for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
					for (size_t j = 0; j < sizeof(vals) / sizeof(vals[0]);
					     j++) {
						bool want = ops[oi].truth(vals[i], vals[j]) != arm;
						bool got = run_lane(o, vals[i], vals[j]);
						if (got != want)
							fprintf(stderr,
							        "%s %s arm %d: %u %s %u -> %d\n",
							        prof ? "strict" : "relaxed",
							        ops[oi].op, arm, vals[i],
							        ops[oi].op, vals[j], got);
						assert_int_equal(got, want);
					}
				chainobj_free(o);
			}
}

/* ---- strict profile ---------------------------------------------------------------- */

/* `==` under strict: two carry terms (key > b.key, b.key > key), each READ
 * copies its "carry clear" byte S[0] into the guard's compare field at the
 * opmod (0) and opcode (3) positions of the exact NOP; the masked CAS swaps
 * only opmod and opcode.  Nothing rides in the index or QPN bytes. */
static void test_strict_equal_sequence(void **state)
{
	(void)state;
	char *diag = NULL;
	struct chainobj *o =
	    be_compile(HDR "offload get(key: be24, b: *bucket in table) -> u8[64] {\n"
	                   "  if (b.key == key) { return *b.value; }\n}\n",
	               NULL, IR_PROFILE_STRICT, &diag);
	free(diag);
	assert_non_null(o);
	assert_string_equal(be_ops(o, "w0"),
	                    "READ READ MCAS WAIT EN MFA MCAS MFA READ READ WAIT EN MCAS WAIT EN");
	assert_string_equal(be_ops(o, "conn"), "NOP WRITE_IMM");
	int w0 = be_queue(o, "w0"), conn = be_queue(o, "conn");
	struct prism_wqe g = decode(o, w0, 12);
	assert_int_equal(g.atomic.size, 8);
	assert_int_equal(g.atomic.compare_mask, 0xff0000ffull);
	assert_int_equal(g.atomic.swap_mask, 0xff0000ffull);
	assert_int_equal((g.atomic.swap >> 24) & 0xff, PRISM_OP_RDMA_WRITE_IMM);
	/* the response template is exact: index and QPN relocated */
	unsigned exact = 0;
	for (uint32_t i = 0; i < o->n_relocs; i++) {
		const struct chainobj_reloc *r = &o->relocs[i];
		if (r->site.queue == (uint32_t)conn && r->site.ring == CHAINOBJ_RING_SQ &&
		    r->site.wqe == 0 &&
		    ((r->kind == CHAINOBJ_RELOC_QPN && r->site.offset == 4) ||
		     (r->kind == CHAINOBJ_RELOC_SQ_COUNT && r->site.offset == 1)))
			exact++;
	}
	assert_int_equal(exact, 2);
	/* the two carry READs land in the compare field bytes of ctrl 0 / 3 */
	uint32_t cmp = 0, len = 0;
	assert_int_equal(prism_wqe_field_offset(&g, PRISM_FIELD_ATOMIC_COMPARE, &cmp, &len), 0);
	unsigned hits = 0;
	for (uint32_t i = 0; i < o->n_patches; i++) {
		const struct chainobj_patch *p = &o->patches[i];
		if (p->kind == CHAINOBJ_PATCH_READ_SCATTER && p->target.queue == (uint32_t)w0 &&
		    p->target.wqe == 12) {
			assert_true(p->target.offset == cmp + 7 || p->target.offset == cmp + 4);
			hits++;
		}
	}
	assert_int_equal(hits, 2);
	chainobj_free(o);
}

/* A wide key (8 bytes) under relaxed uses the same exact form. */
static void test_wide_equal(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok(
	    "struct b8 { key: be64; v: *u8[8] in vals; }\nregion t8: b8[4] readonly;\n"
	    "region vals size 64 readonly;\n"
	    "offload g(k: be64, p: *b8 in t8) -> u8[8] { if (p.key == k) { return *p.v; } }\n",
	    NULL);
	assert_string_equal(be_ops(o, "w0"),
	                    "READ READ MCAS WAIT EN MFA MCAS MFA READ READ WAIT EN MCAS WAIT EN");
	chainobj_free(o);
}

/* ---- cas as a condition ------------------------------------------------------------ */

/* if (cas(l.v, 0, 1)) {..} else {..}: the CAS runs, its returned value
 * (scratch) is compared with 0 in the exact form: one term (old > 0; the
 * other, 0 > old, folds to false), a READ of the value into the add, the
 * carry READs into each arm's guard. */
static void test_cas_condition(void **state)
{
	(void)state;
	struct chainobj *o =
	    compile_ok("struct lk { v: le64; }\nregion locks: lk[16] writable;\n"
	               "struct ctr { n: le64; }\nregion counters: ctr[16] writable;\n"
	               "offload take(l: *lk in locks, c: *ctr in counters) -> le64 {\n"
	               "  if (cas(l.v, 0, 1)) { fetch_add(c.n, 1); } else { return l.v; }\n}\n",
	               NULL);
	assert_string_equal(be_ops(o, "w0"), "CAS READ WAIT EN MFA READ WAIT EN MCAS WAIT EN NOP "
	                                     "READ WAIT EN MCAS WAIT EN");
	assert_string_equal(be_ops(o, "conn"), "NOP WRITE_IMM");
	int w0 = be_queue(o, "w0");
	struct prism_wqe cas = decode(o, w0, 0), cp = decode(o, w0, 1);
	assert_int_equal(cas.atomic.compare, 0);
	assert_int_equal(cas.atomic.swap, 1);
	assert_int_equal(cp.num_sge, 8); /* the le64 old value, reversed into the add */
	assert_int_equal(prism_ctrl_fence(&cp.ctrl), PRISM_FENCE_SMALL_AND_FENCE);
	chainobj_free(o);
}

static void test_reject_masked_cas_condition(void **state)
{
	(void)state;
	/* 4, 8, 16 bytes: a 32-byte value and its marker exceed a 32-byte CAS */
	expect_error("struct lk { v: u8[32]; }\nregion locks: lk[16] writable;\n"
	             "offload t(l: *lk in locks, e: u8[32], m: u8[32]) {\n"
	             "  if (cas(l.v, e, e, m, m)) { l.v = e; }\n}\n",
	             "on 4, 8 and 16-byte places, not 32");
}

/* if / else if / else: exactly the first arm whose condition holds runs.
 * Earlier arms' outcomes ride in the index bytes of later arms. */
static void test_else_if_chain_executes(void **state)
{
	(void)state;
	static const char *srcs[] = {
	    HDR "offload f(a: be16, b: be16, c: *ctr in counters) {\n"
	        "  if (a == b) { c.n = 1; } else if (a > b) { c.n = 2; } else { c.n = 3; }\n}\n",
	    HDR "offload f(a: be16, b: be16, c: *ctr in counters) {\n"
	        "  if (a < 10) { c.n = 1; } else if (a == b) { c.n = 2; } else if (b > a) "
	        "{ c.n = 3; }\n}\n",
	};
	static const uint16_t vals[] = {0, 5, 10, 11, 0x8000, 0xffff};
	for (int si = 0; si < 2; si++) {
		struct chainobj *o = compile_ok(srcs[si], NULL);
		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
			for (size_t j = 0; j < sizeof(vals) / sizeof(vals[0]); j++) {
				uint16_t a = vals[i], b = vals[j];
				unsigned want;
				if (si == 0)
					want = a == b ? 1 : a > b ? 2 : 4;
				else
					want = a < 10 ? 1 : a == b ? 2 : b > a ? 4 : 0;
				run_lane(o, a, b);
				if (last_armed != want)
					fprintf(stderr, "chain %d: a %u b %u armed %x want %x\n",
					        si, a, b, last_armed, want);
				assert_int_equal(last_armed, want);
			}
		chainobj_free(o);
	}
	/* three conditions and an else: beyond the status bytes, in disjunctive
	 * normal form (tests/compiler/test_be_constructs.c runs such chains) */
	chainobj_free(compile_ok(HDR "offload f(a: be16, b: be16, c: *ctr in counters) {\n"
	                             "  if (a < 10) { c.n = 1; } else if (a == b) { c.n = 2; } "
	                             "else if (b > a) { c.n = 3; } else { c.n = 4; }\n}\n",
	                         NULL));
}

/* `&&` and an `if` inside an `if`: one exact guard tests every clause's
 * carry terms (up to four under relaxed: opmod, opcode, index bytes). */
static void test_conjunction_executes(void **state)
{
	(void)state;
	static const char *srcs[] = {
	    HDR "offload f(a: be16, b: be16, c: *ctr in counters) {\n"
	        "  if (a > b && b > 10) { c.n = 1; }\n}\n",
	    HDR "offload f(a: be16, b: be16, c: *ctr in counters) {\n"
	        "  if (a > b) { if (b > 10) { c.n = 1; } }\n}\n",
	    HDR "offload f(a: be16, b: be16, c: *ctr in counters) {\n"
	        "  if (a == b && a >= 5) { c.n = 1; }\n}\n",
	    HDR "offload f(a: be16, b: be16, c: *ctr in counters) {\n"
	        "  if (a > 5) { c.n = 1; if (b > a) { c.n = 2; } else { c.n = 3; } }\n}\n",
	};
	static const uint16_t vals[] = {0, 5, 6, 10, 11, 12, 0xffff};
	for (int si = 0; si < 4; si++) {
		struct chainobj *o = compile_ok(srcs[si], NULL);
		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
			for (size_t j = 0; j < sizeof(vals) / sizeof(vals[0]); j++) {
				uint16_t a = vals[i], b = vals[j];
				unsigned want;
				switch (si) {
				case 0:
				case 1:
					want = a > b && b > 10;
					break;
				case 2:
					want = a == b && a >= 5;
					break;
				default:
					want = a > 5 ? 1u | (b > a ? 2u : 4u) : 0u;
					break;
				}
				run_lane(o, a, b);
				if (last_armed != want)
					fprintf(stderr, "conj %d: a %u b %u armed %x want %x\n", si,
					        a, b, last_armed, want);
				assert_int_equal(last_armed, want);
			}
		chainobj_free(o);
	}
	/* strict: the 8-byte guard tests two terms (opmod and opcode bytes);
	 * three take the 16-byte guard on the whole control segment */
	struct chainobj *o = compile_ok(srcs[2], NULL);
	chainobj_free(o);
	char *diag = NULL;
	o = be_compile(srcs[2], NULL, IR_PROFILE_STRICT, &diag);
	free(diag);
	assert_non_null(o);
	unsigned wide = 0;
	int w0 = be_queue(o, "w0");
	for (uint32_t i = 0; i < o->queues[w0].n_sq; i++) {
		struct prism_wqe w = decode(o, w0, i);
		if (w.ctrl.opcode == PRISM_OP_ATOMIC_MASKED_CS && w.atomic.size == 16 &&
		    w.atomic.swap_mask_bytes[3] == 0xff) {
			static const uint8_t cm[16] = {0xff, 0, 0, 0xff, 0, 0, 0, 0, 0xff};
			assert_memory_equal(w.atomic.compare_mask_bytes, cm, 16);
			assert_int_equal(w.atomic.swap_mask_bytes[0], 0xff);
			for (int b = 1; b < 16; b++)
				if (b != 3)
					assert_int_equal(w.atomic.swap_mask_bytes[b], 0);
			wide++;
		}
	}
	assert_int_equal(wide, 1);
	chainobj_free(o);
	/* the else of a nested `==` (a disjunction: a > b or b > a, each with
	 * the enclosing a > 1) */
	o = compile_ok(HDR "offload f(a: be16, b: be16, c: *ctr in counters) {\n"
	                   "  if (a > 1) { if (a == b) { c.n = 1; } else { c.n = 2; } }\n}\n",
	               NULL);
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		for (size_t j = 0; j < sizeof(vals) / sizeof(vals[0]); j++) {
			uint16_t a = vals[i], b = vals[j];
			run_lane(o, a, b);
			assert_int_equal(last_armed, a > 1 ? (a == b ? 1u : 2u) : 0u);
		}
	chainobj_free(o);
}

/* `||`: one exact guard per clause; its else is the conjunction of the
 * clauses' complements. */
static void test_disjunction_executes(void **state)
{
	(void)state;
	static const char *srcs[] = {
	    HDR "offload f(a: be16, b: be16, c: *ctr in counters) {\n"
	        "  if (a > b || b > 10) { c.n = 1; } else { c.n = 2; }\n}\n",
	    HDR "offload f(a: be16, b: be16, c: *ctr in counters) {\n"
	        "  if (a == b || a < 5 && b > 20) { c.n = 1; }\n}\n",
	};
	static const uint16_t vals[] = {0, 4, 5, 10, 11, 21, 0xffff};
	for (int si = 0; si < 2; si++) {
		struct chainobj *o = compile_ok(srcs[si], NULL);
		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
			for (size_t j = 0; j < sizeof(vals) / sizeof(vals[0]); j++) {
				uint16_t a = vals[i], b = vals[j];
				unsigned want = si == 0 ? (a > b || b > 10 ? 1u : 2u)
				                        : (a == b || (a < 5 && b > 20) ? 1u : 0u);
				run_lane(o, a, b);
				if (last_armed != want)
					fprintf(stderr, "disj %d: a %u b %u armed %x want %x\n", si,
					        a, b, last_armed, want);
				assert_int_equal(last_armed, want);
			}
		chainobj_free(o);
	}
	/* its else when a clause is an `==`: a disjunction itself */
	struct chainobj *o =
	    compile_ok(HDR "offload f(a: be16, b: be16, c: *ctr in counters) {\n"
	                   "  if (a == b || b > 10) { c.n = 1; } else { c.n = 2; }\n}\n",
	               NULL);
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		for (size_t j = 0; j < sizeof(vals) / sizeof(vals[0]); j++) {
			uint16_t a = vals[i], b = vals[j];
			run_lane(o, a, b);
			assert_int_equal(last_armed, a == b || b > 10 ? 1u : 2u);
		}
	chainobj_free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_else_equal_two_guards),
	    cmocka_unit_test(test_not_equal_store),
	    cmocka_unit_test(test_order_sequence),
	    cmocka_unit_test(test_order_constant),
	    cmocka_unit_test(test_order_truth_gt),
	    cmocka_unit_test(test_order_truth_lt),
	    cmocka_unit_test(test_order_truth_ge),
	    cmocka_unit_test(test_order_truth_le),
	    cmocka_unit_test(test_cas_gt_sequence),
	    cmocka_unit_test(test_cas_lt_one_barrier),
	    cmocka_unit_test(test_reject_cas_gt_forms),
	    cmocka_unit_test(test_masked_cas_4),
	    cmocka_unit_test(test_masked_cas_16),
	    cmocka_unit_test(test_cas_be_place_constant),
	    cmocka_unit_test(test_reject_cas_forms),
	    cmocka_unit_test(test_alloc_sequence),
	    cmocka_unit_test(test_conditions_execute),
	    cmocka_unit_test(test_strict_equal_sequence),
	    cmocka_unit_test(test_wide_equal),
	    cmocka_unit_test(test_cas_condition),
	    cmocka_unit_test(test_reject_masked_cas_condition),
	    cmocka_unit_test(test_else_if_chain_executes),
	    cmocka_unit_test(test_conjunction_executes),
	    cmocka_unit_test(test_disjunction_executes),
	    cmocka_unit_test(test_not_is_the_complement),
	    cmocka_unit_test(test_reject_break_not_equal),
	    cmocka_unit_test(test_reject_never_true),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
