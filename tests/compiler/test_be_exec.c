/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/test_be_exec.c - run compiled lanes on their template
 * bytes and check what they do to memory.
 *
 * Owns: a small in-order executor for one lane (w0) of a compiled object:
 * the RECV scatter of a client payload (into WQE fields and scratch), READs
 * (from region memory, scratch or queue memory, scattered by the declared
 * patch sites or into scratch), CAS / FETCH_ADD / masked atomics of 8 and
 * 16 bytes (mlx5 arithmetic: 8-byte host-endian, 16-byte big-endian) on
 * region memory, scratch or WQEs, inline WRITEs, and guarded WQEs that stay
 * NOPs unless a guard rewrote their opcode.  It is not the sim (the sim
 * lives on its own branch and executes from queue memory with prefetch and
 * ordering); it checks the arithmetic of the lowering: operand placement,
 * byte order, masks and carries, end to end on cas_gt / cas_lt (plain and
 * masked), cas as a condition and alloc.
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

#define MEM_BASE 0x10000ull /* client pointers point here */

struct machine {
	const struct chainobj *o;
	int w0;
	uint8_t wq[64][1024];
	uint8_t scratch[4096];
	uint8_t mem[65536]; /* every region, one address space at MEM_BASE */
};

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

/* Bytes an address field designates: scratch, a w0 WQE, or region memory
 * (region relocations resolve to MEM_BASE; run-time addresses are used as
 * they are). */
static uint8_t *resolve(struct machine *m, unsigned wqe, uint32_t field, uint64_t value)
{
	const struct chainobj_reloc *r = reloc_at(m->o, m->w0, wqe, field);
	if (r && r->kind == CHAINOBJ_RELOC_SCRATCH_ADDR)
		return m->scratch + r->addend;
	if (r && r->kind == CHAINOBJ_RELOC_QBUF_ADDR) {
		const struct chainobj_queue *q = &m->o->queues[r->target];
		assert_int_equal(r->target, (uint32_t)m->w0);
		for (uint32_t j = 0; j < q->n_sq; j++)
			if (q->sq[j].slot == r->delta)
				return m->wq[j] + r->addend;
		fail();
	}
	if (r && r->kind == CHAINOBJ_RELOC_REGION_ADDR)
		value = MEM_BASE + r->addend;
	assert_true(value >= MEM_BASE && value - MEM_BASE < sizeof(m->mem));
	return m->mem + (value - MEM_BASE);
}

static void load(struct machine *m, const struct chainobj *o, const uint8_t *msg)
{
	memset(m, 0, sizeof(*m));
	m->o = o;
	m->w0 = be_queue(o, "w0");
	const struct chainobj_queue *q = &o->queues[m->w0];
	assert_true(q->n_sq <= 64);
	for (uint32_t i = 0; i < q->n_sq; i++) {
		assert_true(q->sq[i].len <= sizeof(m->wq[i]));
		memcpy(m->wq[i], q->sq[i].bytes, q->sq[i].len);
	}
	assert_true(o->scratch_size <= sizeof(m->scratch));
	if (o->scratch_init_len)
		memcpy(m->scratch, o->scratch_init, o->scratch_init_len);
	/* the RECV: entry s takes the next byte_count payload bytes */
	int conn = be_queue(o, "conn");
	const uint8_t *rq = o->queues[conn].rq[0].bytes;
	uint32_t moff = 0;
	for (uint32_t s = 0; s < 16 && 16 * s + 16 <= o->queues[conn].rq[0].len; s++) {
		const uint8_t *d = rq + 16 * s;
		uint32_t len =
		    (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3];
		if ((uint32_t)d[4] << 24 == 0 && d[5] == 0x00 && d[6] == 0x01 && d[7] == 0x00)
			break; /* invalid lkey ends the list */
		const struct chainobj_reloc *r = NULL;
		for (uint32_t i = 0; i < o->n_relocs; i++)
			if (o->relocs[i].site.queue == (uint32_t)conn &&
			    o->relocs[i].site.ring == CHAINOBJ_RING_RQ &&
			    o->relocs[i].site.offset == 16 * s + 8)
				r = &o->relocs[i];
		if (!r)
			break;
		if (r->kind == CHAINOBJ_RELOC_SCRATCH_ADDR) {
			memcpy(m->scratch + r->addend, msg + moff, len);
		} else {
			for (uint32_t i = 0; i < o->n_patches; i++) {
				const struct chainobj_patch *p = &o->patches[i];
				if (p->kind == CHAINOBJ_PATCH_RECV_SCATTER && p->writer_sge == s &&
				    p->target.queue == (uint32_t)m->w0)
					memcpy(&m->wq[p->target.wqe][p->target.offset], msg + moff,
					       p->target.width);
			}
		}
		moff += len;
	}
}

static uint64_t le64_get(const uint8_t *b)
{
	uint64_t v = 0;
	for (int k = 7; k >= 0; k--)
		v = v << 8 | b[k];
	return v;
}

static void le64_put(uint8_t *b, uint64_t v)
{
	for (int k = 0; k < 8; k++)
		b[k] = (uint8_t)(v >> (8 * k));
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

static void atomic(struct machine *m, const struct prism_wqe *w, uint8_t *t, unsigned i,
                   uint32_t sge_off)
{
	uint8_t orig[16];
	unsigned size = w->atomic.size ? w->atomic.size : 8;
	memcpy(orig, t, size);
	if (size == 8) {
		uint64_t v = le64_get(t);
		switch (w->ctrl.opcode) {
		case PRISM_OP_ATOMIC_CS:
			if (v == w->atomic.compare)
				v = w->atomic.swap;
			break;
		case PRISM_OP_ATOMIC_FA:
			v += w->atomic.swap;
			break;
		case PRISM_OP_ATOMIC_MASKED_CS:
			if (((v ^ w->atomic.compare) & w->atomic.compare_mask) == 0)
				v = (v & ~w->atomic.swap_mask) |
				    (w->atomic.swap & w->atomic.swap_mask);
			break;
		default:
			fail();
		}
		le64_put(t, v);
	} else {
		assert_int_equal(size, 16);
		uint64_t tv[2], sw[2], cp[2], sm[2], cm[2];
		be_limbs(t, tv);
		be_limbs(w->atomic.swap_bytes, sw);
		if (w->ctrl.opcode == PRISM_OP_ATOMIC_MASKED_FA) {
			uint64_t lo = tv[0] + sw[0];
			tv[1] += sw[1] + (lo < tv[0]);
			tv[0] = lo;
		} else {
			be_limbs(w->atomic.compare_bytes, cp);
			be_limbs(w->atomic.swap_mask_bytes, sm);
			be_limbs(w->atomic.compare_mask_bytes, cm);
			if (((tv[0] ^ cp[0]) & cm[0]) == 0 && ((tv[1] ^ cp[1]) & cm[1]) == 0)
				for (int k = 0; k < 2; k++)
					tv[k] = (tv[k] & ~sm[k]) | (sw[k] & sm[k]);
		}
		limbs_be(tv, t);
	}
	/* the returned value: into the local buffer (scratch) */
	uint8_t *dst = resolve(m, i, sge_off, w->sge[0].addr);
	memcpy(dst, orig, size);
}

static void run(struct machine *m)
{
	const struct chainobj_queue *q = &m->o->queues[m->w0];
	for (uint32_t i = 0; i < q->n_sq; i++) {
		struct prism_wqe w;
		struct prism_wqe_diag d;
		memset(&w, 0, sizeof(w));
		assert_true(prism_wqe_decode(m->wq[i], q->sq[i].len, &w, &d) > 0);
		uint32_t ro, rl, so = 0, sl;
		if (prism_wqe_field_offset(&w, PRISM_FIELD_RADDR, &ro, &rl) != 0)
			continue; /* NOP, WAIT, SEND_EN */
		prism_wqe_field_offset(&w, PRISM_FIELD_SGE0_ADDR, &so, &sl);
		uint8_t *src = resolve(m, i, ro, w.raddr.raddr);
		if (w.ctrl.opcode == PRISM_OP_RDMA_READ) {
			uint32_t d0 = 0;
			for (uint32_t k = 0; k < w.num_sge; k++) {
				bool patched = false;
				for (uint32_t pi = 0; pi < m->o->n_patches; pi++) {
					const struct chainobj_patch *p = &m->o->patches[pi];
					if (p->kind == CHAINOBJ_PATCH_READ_SCATTER &&
					    p->writer_queue == (uint32_t)m->w0 &&
					    p->writer_wqe == i && p->writer_sge == k) {
						assert_int_equal(p->target.queue, (uint32_t)m->w0);
						memcpy(&m->wq[p->target.wqe][p->target.offset],
						       src + d0, p->target.width);
						patched = true;
					}
				}
				if (!patched)
					memcpy(resolve(m, i, so + 16 * k, w.sge[k].addr), src + d0,
					       w.sge[k].byte_count);
				d0 += w.sge[k].byte_count;
			}
		} else if (w.ctrl.opcode == PRISM_OP_RDMA_WRITE && w.is_inline) {
			memcpy(src, w.inline_data, w.inline_len);
		} else if (w.has_atomic) {
			atomic(m, &w, src, i, so);
		}
	}
}

static uint8_t *place_at(struct machine *m, uint64_t addr)
{
	return m->mem + (addr - MEM_BASE);
}

/* Payload of (p: pointer, v: le64) with their copies. */
static void payload_ptr_le64(const struct chainobj *o, uint64_t ptr, uint64_t v, uint8_t *msg)
{
	const struct chainobj_entry *e = &o->entries[0];
	for (uint32_t i = 0; i < e->n_params; i++) {
		const struct chainobj_param *p = &e->params[i];
		for (uint32_t k = 0; k < p->copies; k++) {
			uint8_t *d = msg + p->msg_offset + 8 * k;
			for (int b = 0; b < 8; b++)
				d[b] = i == 0 ? (uint8_t)(ptr >> (56 - 8 * b))
				              : (uint8_t)(v >> (8 * b));
		}
	}
}

static struct chainobj *compile_ok(const char *src)
{
	char *diag = NULL;
	struct chainobj *o = be_compile(src, NULL, IR_PROFILE_RELAXED, &diag);
	if (!o)
		fprintf(stderr, "%s", diag ? diag : "");
	free(diag);
	assert_non_null(o);
	return o;
}

static const uint64_t vals[] = {
    0,    1, 2, 99, 100, 101, 0x7fffffffffffffffull, 0x8000000000000000ull, 0xfffffffffffffffeull,
    ~0ull};

/* cas_gt / cas_lt with a client value: the place ends as max / min. */
static void test_cas_order_executes(void **state)
{
	(void)state;
	for (int gt = 0; gt < 2; gt++) {
		char src[256];
		snprintf(src, sizeof(src),
		         "struct ctr { n: le64; }\nregion counters: ctr[16] writable;\n"
		         "offload f(c: *ctr in counters, v: le64) { %s(c.n, v); }\n",
		         gt ? "cas_gt" : "cas_lt");
		struct chainobj *o = compile_ok(src);
		static struct machine m;
		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
			for (size_t j = 0; j < sizeof(vals) / sizeof(vals[0]); j++) {
				uint8_t msg[256] = {0};
				payload_ptr_le64(o, MEM_BASE + 64, vals[j], msg);
				load(&m, o, msg);
				le64_put(place_at(&m, MEM_BASE + 64), vals[i]);
				run(&m);
				uint64_t got = le64_get(place_at(&m, MEM_BASE + 64));
				uint64_t want = gt ? (vals[j] > vals[i] ? vals[j] : vals[i])
				                   : (vals[j] < vals[i] ? vals[j] : vals[i]);
				if (got != want)
					fprintf(
					    stderr, "%s old %llx v %llx -> %llx\n",
					    gt ? "cas_gt" : "cas_lt", (unsigned long long)vals[i],
					    (unsigned long long)vals[j], (unsigned long long)got);
				assert_true(got == want);
			}
		chainobj_free(o);
	}
}

/* PRISM §7.3's publish: cas_gt(s.tagged, tagged, TAG_MASK, ALL) installs the
 * whole word when its tag (high 32 bits) is newer. */
static void test_masked_cas_gt_executes(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok("const TAG_MASK = 0xffffffff00000000;\n"
	                                "const ALL = 0xffffffffffffffff;\n"
	                                "struct slot { tagged: le64; }\n"
	                                "region meta: slot[256] writable;\n"
	                                "offload publish(s: *slot in meta, tagged: le64) {\n"
	                                "  cas_gt(s.tagged, tagged, TAG_MASK, ALL);\n}\n");
	static const uint64_t olds[] = {0x0000000500000010ull, 0x00000005ffffffffull, 0};
	static const uint64_t news[] = {0x0000000600000001ull, 0x0000000500000020ull,
	                                0x0000000400000030ull, 0xffffffff00000000ull};
	static struct machine m;
	for (size_t i = 0; i < sizeof(olds) / sizeof(olds[0]); i++)
		for (size_t j = 0; j < sizeof(news) / sizeof(news[0]); j++) {
			uint8_t msg[256] = {0};
			payload_ptr_le64(o, MEM_BASE + 128, news[j], msg);
			load(&m, o, msg);
			le64_put(place_at(&m, MEM_BASE + 128), olds[i]);
			run(&m);
			uint64_t got = le64_get(place_at(&m, MEM_BASE + 128));
			uint64_t want = (news[j] >> 32) > (olds[i] >> 32) ? news[j] : olds[i];
			assert_true(got == want);
		}
	chainobj_free(o);
}

/* if (cas(l.v, 0, 1)) { fetch_add(c.n, 1) }: the counter moves only when the
 * lock was free. */
static void test_cas_condition_executes(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok(
	    "struct lk { v: le64; n: le64; }\nregion locks: lk[16] writable;\n"
	    "offload take(l: *lk in locks) { if (cas(l.v, 0, 1)) { fetch_add(l.n, 1); } }\n");
	static struct machine m;
	for (uint64_t lock = 0; lock < 3; lock++) {
		uint8_t msg[256] = {0};
		const struct chainobj_param *p = &o->entries[0].params[0];
		for (uint32_t k = 0; k < p->copies; k++)
			for (int b = 0; b < 8; b++)
				msg[p->msg_offset + 8 * k + b] =
				    (uint8_t)((MEM_BASE + 256) >> (56 - 8 * b));
		load(&m, o, msg);
		le64_put(place_at(&m, MEM_BASE + 256), lock);
		le64_put(place_at(&m, MEM_BASE + 264), 40);
		run(&m);
		assert_true(le64_get(place_at(&m, MEM_BASE + 256)) == (lock == 0 ? 1 : lock));
		assert_true(le64_get(place_at(&m, MEM_BASE + 264)) == (lock == 0 ? 41u : 40u));
	}
	chainobj_free(o);
}

/* alloc pops the slot the cursor points at and the store lands in that
 * buffer; the cursor advances by one slot. */
static void test_alloc_executes(void **state)
{
	(void)state;
	struct chainobj *o = compile_ok("struct object { version: le64; len: le64; }\n"
	                                "region heap size 4096 writable;\n"
	                                "freelist objects: object in heap;\n"
	                                "offload put(version: le64) {\n"
	                                "  let buf = alloc(objects);\n  buf.len = version;\n}\n");
	static struct machine m;
	uint8_t msg[64] = {0};
	const struct chainobj_param *p = &o->entries[0].params[0];
	for (uint32_t k = 0; k < p->copies; k++)
		le64_put(msg + p->msg_offset + 8 * k, 0x1122334455667788ull);
	load(&m, o, msg);
	/* the list region resolves to MEM_BASE (cursor at 0, slots from 8):
	 * two posted buffers, the cursor at slot 0 */
	uint64_t cursor = MEM_BASE + 8;
	le64_put(place_at(&m, MEM_BASE), cursor);
	for (int s = 0; s < 2; s++) {
		uint64_t buf = MEM_BASE + 0x1000 + 0x100 * (uint64_t)s; /* be64 pointers */
		for (int b = 0; b < 8; b++)
			place_at(&m, MEM_BASE + 8 + 8 * (uint64_t)s)[b] =
			    (uint8_t)(buf >> (56 - 8 * b));
	}
	run(&m);
	assert_true(le64_get(place_at(&m, MEM_BASE)) == cursor + 8);
	assert_true(le64_get(place_at(&m, MEM_BASE + 0x1000 + 8)) == 0x1122334455667788ull);
	chainobj_free(o);
}

/* A masked cas as a condition succeeds when the compare-mask bits match:
 * here the lock's low byte pair, whatever the other bits hold. */
static void test_masked_cas_condition_executes(void **state)
{
	(void)state;
	struct chainobj *o =
	    compile_ok("struct lk { v: le64; n: le64; }\nregion locks: lk[16] writable;\n"
	               "offload take(l: *lk in locks) {\n"
	               "  if (cas(l.v, 0x100, 0x200, 0xff00, 0xff00)) { fetch_add(l.n, 1); }\n}\n");
	static const uint64_t olds[] = {0x100, 0x1100, 0xabcd0000000001ffull, 0x1ff, 0, 0x200};
	static struct machine m;
	for (size_t i = 0; i < sizeof(olds) / sizeof(olds[0]); i++) {
		uint8_t msg[256] = {0};
		const struct chainobj_param *p = &o->entries[0].params[0];
		for (uint32_t k = 0; k < p->copies; k++)
			for (int b = 0; b < 8; b++)
				msg[p->msg_offset + 8 * k + b] =
				    (uint8_t)((MEM_BASE + 256) >> (56 - 8 * b));
		load(&m, o, msg);
		le64_put(place_at(&m, MEM_BASE + 256), olds[i]);
		le64_put(place_at(&m, MEM_BASE + 264), 7);
		run(&m);
		bool hit = (olds[i] & 0xff00) == 0x100;
		uint64_t v = le64_get(place_at(&m, MEM_BASE + 256));
		assert_true(v == (hit ? (olds[i] & ~0xff00ull) | 0x200 : olds[i]));
		assert_true(le64_get(place_at(&m, MEM_BASE + 264)) == (hit ? 8u : 7u));
	}
	chainobj_free(o);
}

/* cas_gt inside an `if`: its guard is the conjunction of both conditions. */
static void test_cas_gt_in_if_executes(void **state)
{
	(void)state;
	struct chainobj *o =
	    compile_ok("struct ctr { n: le64; }\nregion counters: ctr[16] writable;\n"
	               "offload f(c: *ctr in counters, v: le64) {\n"
	               "  if (v < 1000) { cas_gt(c.n, v); }\n}\n");
	static struct machine m;
	static const uint64_t vs[] = {0, 5, 50, 999, 1000, 5000};
	static const uint64_t olds[] = {0, 10, 100, 2000};
	for (size_t i = 0; i < sizeof(olds) / sizeof(olds[0]); i++)
		for (size_t j = 0; j < sizeof(vs) / sizeof(vs[0]); j++) {
			uint8_t msg[256] = {0};
			payload_ptr_le64(o, MEM_BASE + 64, vs[j], msg);
			load(&m, o, msg);
			le64_put(place_at(&m, MEM_BASE + 64), olds[i]);
			run(&m);
			uint64_t want = vs[j] < 1000 && vs[j] > olds[i] ? vs[j] : olds[i];
			assert_true(le64_get(place_at(&m, MEM_BASE + 64)) == want);
		}
	chainobj_free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cas_order_executes),
	    cmocka_unit_test(test_masked_cas_gt_executes),
	    cmocka_unit_test(test_cas_condition_executes),
	    cmocka_unit_test(test_alloc_executes),
	    cmocka_unit_test(test_masked_cas_condition_executes),
	    cmocka_unit_test(test_cas_gt_in_if_executes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
