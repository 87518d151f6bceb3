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
	"struct bucket { key: be24; pad: u8[5]; value: *u8[64] in values; alt: *u8[64] in "       \
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
	assert_true(prism_wqe_decode(o->queues[q].sq[i].bytes, o->queues[q].sq[i].len, &w, &d) >
	            0);
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
	assert_string_equal(be_ops(o, "ctl"), "WAIT EN");
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
				x = (x & ~w.atomic.swap_mask) | (w.atomic.swap & w.atomic.swap_mask);
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

static void test_reject_else_if(void **state)
{
	(void)state;
	expect_error(HDR "offload g(key: be24, b: *bucket in table) -> u8[64] {\n"
	                 "  if (b.key == key) { return *b.value; } else if (b.key > key) "
	                 "{ return *b.alt; }\n}\n",
	             "`else if` is not lowered yet");
}

static void test_reject_and(void **state)
{
	(void)state;
	expect_error(HDR "offload g(key: be24, b: *bucket in table) -> u8[64] {\n"
	                 "  if (b.key == key && b.key > key) { return *b.value; }\n}\n",
	             "chained guards");
}

static void test_reject_break_not_equal(void **state)
{
	(void)state;
	expect_error("struct node { key: be24; pad: u8[5]; next: *node in nodes; value: u8[64]; }\n"
	             "region nodes: node[4096] readonly;\n"
	             "offload f(key: be24, head: *node in nodes) -> u8[64] {\n"
	             "  let p = head;\n"
	             "  while (p.key != key) bound 2 { if (p.key != key) { break; } p = p.next; }\n"
	             "  if (p.key == key) { return p.value; }\n}\n",
	             "`break` is lowered under an `a == b` condition only");
}

static void test_reject_never_true(void **state)
{
	(void)state;
	expect_error(HDR "offload g(c: *ctr in counters) {\n  if (0 > c.n) { c.n = 1; }\n}\n",
	             "constant for unsigned integers");
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
	assert_int_equal(x.ctrl.ds, 4);                            /* a CAS's size */
	assert_int_equal((g.atomic.swap >> 24) & 0xff, PRISM_OP_ATOMIC_CS); /* armed as a CAS */
	assert_int_equal(g.atomic.compare, 0xffull << 32); /* 100 > old = not old > 99 */
	/* the armed CAS stores 100 (swap) and compares with the READ's bytes */
	uint32_t cmp_off = 0, cmp_len = 0;
	struct prism_wqe armed = x;
	armed.ctrl.opcode = PRISM_OP_ATOMIC_CS;
	assert_int_equal(prism_wqe_field_offset(&armed, PRISM_FIELD_ATOMIC_COMPARE, &cmp_off,
	                                        &cmp_len),
	                 0);
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
	expect_error("struct w { n: le32; }\nregion r: w[4] writable;\n"
	             "offload f(p: *w in r, v: le32) { cas_gt(p.n, v); }\n",
	             "8-byte places only");
	expect_error("struct ctr { n: le64; }\nregion r: ctr[4] writable;\n"
	             "offload f(p: *ctr in r, v: le64) { cas_gt(p.n, v, 255, 255); }\n",
	             "masked cas_gt is not lowered yet");
	expect_error("struct ctr { n: le64; k: le64; }\nregion r: ctr[4] writable;\n"
	             "offload f(p: *ctr in r, v: le64) { if (p.k > v) { cas_lt(p.n, v); } }\n",
	             "inside an `if`");
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
	struct chainobj *o =
	    compile_ok(MHDR "offload m(p: *b8 in rb) { cas(p.n, 5, 6); }\n", NULL);
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
	    cmocka_unit_test(test_reject_else_if),
	    cmocka_unit_test(test_reject_and),
	    cmocka_unit_test(test_reject_break_not_equal),
	    cmocka_unit_test(test_reject_never_true),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
