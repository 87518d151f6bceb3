/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/test_be_constructs.c - constructs docs/language.md
 * describes, each compiled under both firmware profiles and run on the
 * software NIC against a C reference written here: the region's bytes
 * after each invocation, the return site and the returned bytes.  And the
 * constructs the NIC cannot run, pinned to their precise rejection.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/compiler/be_helpers.h"
#include "tests/compiler/be_sim.h"
#include "util/byteorder.h"

#define MSIZE 8192 /* the most bytes of region `m` a case compares */
#define NARGS 6
#define CALLS 120

/* One invocation: the region before (gen) and as the reference expects it
 * after (ref); the arguments; the response the reference expects. */
struct inv {
	uint64_t base; /* the NIC address of region m (pointers stored in it) */
	uint8_t mem[MSIZE];
	uint64_t arg[NARGS];
	uint8_t abytes[NARGS][128]; /* aggregate arguments (alen != 0) */
	unsigned alen[NARGS];
	uint8_t want[4096];
	size_t want_len;
	uint32_t want_site;
};

struct kcase {
	const char *name, *src, *entry;
	const char *args[NARGS]; /* parameter names, in order */
	size_t msize;            /* bytes of region m */
	void (*gen)(uint64_t *seed, struct inv *iv);
	void (*ref)(struct inv *iv);
};

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A small value, often one of a few (so comparisons hold often). */
static uint64_t small(uint64_t *s)
{
	return rng(s) % 4 == 0 ? rng(s) : rng(s) % 3;
}

static void run_case(const struct kcase *k, enum ir_profile prof)
{
	const char *pname = prof == IR_PROFILE_STRICT ? "strict" : "relaxed";
	struct be_sim *s = be_sim_open(k->src, k->entry, prof);
	if (!s)
		fprintf(stderr, "case %s [%s] does not compile or load\n", k->name, pname);
	assert_non_null(s);
	uint8_t *m = be_sim_region(s, "m");
	assert_non_null(m);
	assert_true(k->msize <= MSIZE);
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)k;
	for (int i = 0; i < CALLS; i++) {
		struct inv iv;
		memset(&iv, 0, sizeof(iv));
		iv.base = (uint64_t)(uintptr_t)m;
		k->gen(&seed, &iv);
		memcpy(m, iv.mem, k->msize);
		struct prism_arg a[NARGS];
		unsigned n = 0;
		for (; n < NARGS && k->args[n]; n++)
			a[n] = iv.alen[n]
			           ? (struct prism_arg){.name = k->args[n],
			                                .bytes = iv.abytes[n],
			                                .len = iv.alen[n]}
			           : (struct prism_arg){.name = k->args[n], .u64 = iv.arg[n]};
		uint8_t got[4096];
		uint32_t site = 0;
		memset(got, 0, sizeof(got));
		int rc = be_sim_call(s, a, n, got, sizeof(got), &site);
		k->ref(&iv);
		bool same = rc == 0 && !memcmp(m, iv.mem, k->msize) && site == iv.want_site &&
		            !memcmp(got, iv.want, iv.want_len);
		if (!same) {
			fprintf(stderr, "case %s [%s] call %d: rc %d, site %u (want %u)\n", k->name,
			        pname, i, rc, site, iv.want_site);
			for (size_t b = 0; b < k->msize; b++)
				if (m[b] != iv.mem[b])
					fprintf(stderr, "  m[%zu] = %02x, want %02x\n", b, m[b],
					        iv.mem[b]);
			for (size_t b = 0; b < iv.want_len; b++)
				if (got[b] != iv.want[b])
					fprintf(stderr, "  result[%zu] = %02x, want %02x\n", b,
					        got[b], iv.want[b]);
		}
		assert_true(same);
	}
	be_sim_close(s);
}

/* ---- R4: `return;` ----------------------------------------------------------- */

static void gen_ret(uint64_t *s, struct inv *iv)
{
	put_be(iv->mem, 8, small(s));
	iv->arg[1] = small(s);
}

static void ref_ret(struct inv *iv)
{
	if (get_be(iv->mem, 8) == iv->arg[1]) {
		iv->want_site = 1;
		return;
	}
	put_be(iv->mem + 8, 8, 7);
	iv->want_site = 2;
}

/* ---- R3: a store or atomic whose address or value is read in the statement -- */

/* 8 cells: v be64, w le64, l (be64 pointer to a cell), e be64 */
#define CELL  32u
#define CELLS 8u
#define CELL_SRC                                                                                   \
	"struct cell { v: be64; w: le64; l: *cell in m; e: be64; }\n"                              \
	"region m: cell[8] writable;\n"

static void gen_cells(uint64_t *s, struct inv *iv)
{
	for (unsigned i = 0; i < CELLS; i++) {
		uint8_t *c = iv->mem + i * CELL;
		for (unsigned j = 0; j < CELL; j++)
			c[j] = (uint8_t)rng(s);
		put_be(c + 16, 8, iv->base + CELL * (rng(s) % CELLS));
	}
	iv->arg[0] = CELL * (rng(s) % CELLS);
	iv->arg[1] = CELL * (rng(s) % CELLS);
	iv->arg[2] = rng(s);
}

/* the cell a stored pointer names */
static uint8_t *via(struct inv *iv, const uint8_t *ptr)
{
	return iv->mem + (get_be(ptr, 8) - iv->base);
}

static void ref_copy_field(struct inv *iv)
{
	memcpy(iv->mem + iv->arg[0] + 24, iv->mem + iv->arg[1] + 24, 8);
}

static void ref_copy_cell(struct inv *iv)
{
	memmove(iv->mem + iv->arg[0], iv->mem + iv->arg[1], CELL);
}

static void ref_store_through(struct inv *iv)
{
	put_be(via(iv, iv->mem + iv->arg[0] + 16), 8, iv->arg[2]);
}

static void ref_add_through(struct inv *iv)
{
	uint8_t *w = via(iv, iv->mem + iv->arg[0] + 16) + 8;
	put_le(w, 8, get_le(w, 8) + iv->arg[2]);
}

static void ref_copy_through(struct inv *iv)
{
	uint8_t *src = via(iv, iv->mem + iv->arg[1] + 16) + 24;
	uint8_t v[8];
	memcpy(v, src, 8);
	memcpy(via(iv, iv->mem + iv->arg[0] + 16) + 24, v, 8);
}

static void gen_cells_small(uint64_t *s, struct inv *iv)
{
	gen_cells(s, iv);
	for (unsigned i = 0; i < CELLS; i++) /* w, v, e often equal to the arguments */
		if (rng(s) % 2) {
			put_le(iv->mem + i * CELL + 8, 8, 1);
			put_be(iv->mem + i * CELL, 8, 1);
		}
	iv->arg[1] = 1 + rng(s) % 2;
	iv->arg[2] = rng(s) % 4;
}

static void ref_cas_through(struct inv *iv)
{
	uint8_t *w = via(iv, iv->mem + iv->arg[0] + 16) + 8;
	if (get_le(w, 8) == iv->arg[1])
		put_le(w, 8, iv->arg[2]);
}

static void ref_cas_gt_through(struct inv *iv)
{
	uint8_t *v = via(iv, iv->mem + iv->arg[0] + 16);
	if (iv->arg[1] > get_be(v, 8))
		put_be(v, 8, iv->arg[1]);
}

static void ref_mixed(struct inv *iv)
{
	uint8_t *c = iv->mem + iv->arg[0];
	uint64_t x = iv->arg[1], v = get_be(c, 8), e = get_be(c + 24, 8);
	if (!(v == x) && e != x)
		put_be(c + 24, 8, e ^ x);
	else
		put_be(c, 8, v - e);
}

static void ref_walk_ret(struct inv *iv)
{
	const uint8_t *p = iv->mem + iv->arg[1];
	for (unsigned i = 0; i < 40 && get_be(p, 8) != iv->arg[0]; i++)
		p = iv->mem + (get_be(p + 8, 8) - iv->base);
	memcpy(iv->want, p, 24);
	iv->want_len = 24;
	iv->want_site = 1;
}

/* ---- R1, R10: `!=` and cas under `&&` / `||` ---------------------------------- */

/* 4 rows of a, b: be64 (small values), c: be64 out, v: le64 (cas place) */
#define ROW_SRC                                                                                    \
	"struct row { a: be64; b: be64; c: be64; v: le64; }\n"                                     \
	"region m: row[4] writable;\n"

static void gen_rows(uint64_t *s, struct inv *iv)
{
	for (unsigned i = 0; i < 4 * 32; i += 8)
		put_be(iv->mem + i, 8, small(s));
	iv->arg[0] = 32 * (rng(s) % 4);
	iv->arg[1] = small(s);
	iv->arg[2] = small(s);
}

#define ROW(iv, f) (get_be((iv)->mem + (iv)->arg[0] + 8 * (f), 8))

static void ref_ne_and(struct inv *iv)
{
	if (ROW(iv, 0) != iv->arg[1] && ROW(iv, 1) == iv->arg[2])
		put_be(iv->mem + iv->arg[0] + 16, 8, 1);
}

static void ref_ne_or(struct inv *iv)
{
	if (ROW(iv, 0) != iv->arg[1] || ROW(iv, 1) != iv->arg[2])
		put_be(iv->mem + iv->arg[0] + 16, 8, 1);
}

static void ref_ne_nested(struct inv *iv)
{
	if (ROW(iv, 0) != iv->arg[1]) {
		put_be(iv->mem + iv->arg[0] + 16, 8, 1);
		if (ROW(iv, 1) != iv->arg[2] && ROW(iv, 1) > 0)
			put_le(iv->mem + iv->arg[0] + 24, 8, 5);
	}
}

static void ref_eq_and_cas(struct inv *iv)
{
	uint8_t *v = iv->mem + iv->arg[0] + 24;
	if (iv->arg[1] == 0 && get_le(v, 8) == iv->arg[2]) {
		put_le(v, 8, 9);
		put_be(iv->mem + iv->arg[0] + 16, 8, 1);
	}
}

static void ref_ne_or_cas(struct inv *iv)
{
	uint8_t *v = iv->mem + iv->arg[0] + 24;
	if (ROW(iv, 0) != iv->arg[1])
		put_be(iv->mem + iv->arg[0] + 16, 8, 1);
	else if (get_le(v, 8) == iv->arg[2]) {
		put_le(v, 8, 9);
		put_be(iv->mem + iv->arg[0] + 16, 8, 1);
	}
}

/* ---- R2: else-if chains of any length, and `if`s inside their arms ----------- */

/* row: a, b, c (inputs, small), d (out); chains compare them with x */
#define CH(iv, f)     (get_be((iv)->mem + (iv)->arg[0] + 8 * (f), 8))
#define CH_OUT(iv, v) put_le((iv)->mem + (iv)->arg[0] + 24, 8, (v))

static void ref_chain3_else(struct inv *iv)
{
	uint64_t x = iv->arg[1];
	CH_OUT(iv, CH(iv, 0) == x ? 1 : CH(iv, 1) == x ? 2 : CH(iv, 2) == x ? 3 : 4);
}

static void ref_chain4(struct inv *iv)
{
	uint64_t x = iv->arg[1];
	if (CH(iv, 0) == x)
		CH_OUT(iv, 1);
	else if (CH(iv, 1) == x)
		CH_OUT(iv, 2);
	else if (CH(iv, 2) == x)
		CH_OUT(iv, 3);
	else if (CH(iv, 1) == 0)
		put_be(iv->mem + iv->arg[0], 8, 4);
}

static void ref_chain_nested(struct inv *iv)
{
	uint64_t x = iv->arg[1];
	if (CH(iv, 0) == x)
		CH_OUT(iv, 1);
	else if (CH(iv, 1) == x) {
		if (CH(iv, 2) == x)
			CH_OUT(iv, 2);
		else
			CH_OUT(iv, 5);
	} else
		CH_OUT(iv, 3);
}

static void ref_chain6(struct inv *iv)
{
	uint64_t x = iv->arg[1], y = iv->arg[2];
	uint64_t out = CH(iv, 0) == x   ? 1
	               : CH(iv, 1) == x ? 2
	               : CH(iv, 2) == x ? 3
	               : CH(iv, 0) == y ? 4
	               : CH(iv, 1) > y  ? 5
	               : CH(iv, 2) != y ? 6
	                                : 7;
	CH_OUT(iv, out);
}

/* ---- R9: equality of aggregates ------------------------------------------------ */

/* 4 slots: key u8[W] then c: be64; the key argument equals the slot's key
 * often, or differs in one byte */
#define AGG_CASE(NAME, W, NE)                                                                      \
	static void gen_##NAME(uint64_t *s, struct inv *iv)                                        \
	{                                                                                          \
		for (unsigned i = 0; i < 4 * ((W) + 8); i++)                                       \
			iv->mem[i] = (uint8_t)(rng(s) % 3);                                        \
		iv->arg[0] = ((W) + 8) * (rng(s) % 4);                                             \
		memcpy(iv->abytes[1], iv->mem + iv->arg[0], (W));                                  \
		if (rng(s) % 2)                                                                    \
			iv->abytes[1][rng(s) % (W)] ^= (uint8_t)(1 + rng(s) % 255);                \
		iv->alen[1] = (W);                                                                 \
	}                                                                                          \
	static void ref_##NAME(struct inv *iv)                                                     \
	{                                                                                          \
		bool eq = !memcmp(iv->mem + iv->arg[0], iv->abytes[1], (W));                       \
		if (eq != (NE))                                                                    \
			put_be(iv->mem + iv->arg[0] + (W), 8, 1);                                  \
	}
AGG_CASE(eq16, 16, false)
AGG_CASE(ne16, 16, true)
AGG_CASE(eq12, 12, false)

/* ---- R11: whole-struct copies of more than 64 bytes ---------------------------- */

/* 3 elements of 200 bytes; a copy between two of them, or from the client */
static void gen_big_copy(uint64_t *s, struct inv *iv)
{
	for (unsigned i = 0; i < 600; i++)
		iv->mem[i] = (uint8_t)rng(s);
	iv->arg[0] = 200 * (rng(s) % 3);
	iv->arg[1] = 200 * (rng(s) % 3);
}

static void ref_big_copy(struct inv *iv)
{
	memmove(iv->mem + iv->arg[0], iv->mem + iv->arg[1], 200);
}

static void gen_big_arg(uint64_t *s, struct inv *iv)
{
	gen_big_copy(s, iv);
	for (unsigned i = 0; i < 100; i++)
		iv->abytes[2][i] = (uint8_t)rng(s);
	iv->alen[2] = 100;
}

static void ref_big_arg(struct inv *iv)
{
	memcpy(iv->mem + iv->arg[0] + 50, iv->abytes[2], 100);
}

/* ---- R7: fetch_add on 4 bytes, and its old value ------------------------------- */

/* 4 cells of a: be32, c: be32, b: le64, d: le64 (24 bytes: each atomic place
 * aligned to its size) */
#define FA_SRC                                                                                     \
	"struct s { a: be32; c: be32; b: le64; d: le64; }\n"                                       \
	"region m: s[4] writable;\n"

static void gen_fa(uint64_t *s, struct inv *iv)
{
	for (unsigned i = 0; i < 96; i++)
		iv->mem[i] = (uint8_t)rng(s);
	iv->arg[0] = 24 * (rng(s) % 4);
	iv->arg[1] = rng(s) % 4 ? rng(s) & 0xffffffffu : 0xffffffffu;
	if (rng(s) % 3 == 0) /* old values the comparison case meets */
		put_be(iv->mem + iv->arg[0], 4, 5);
}

static uint8_t *fa_cell(struct inv *iv)
{
	return iv->mem + iv->arg[0];
}

static void ref_fa4(struct inv *iv)
{
	uint8_t *a = fa_cell(iv);
	put_be(a, 4, (uint32_t)(get_be(a, 4) + iv->arg[1]));
}

static void ref_fa4_old(struct inv *iv)
{
	uint8_t *a = fa_cell(iv);
	memcpy(iv->want, a, 4);
	iv->want_len = 4;
	iv->want_site = 1;
	ref_fa4(iv);
}

static void gen_fa8(uint64_t *s, struct inv *iv)
{
	gen_fa(s, iv);
	iv->arg[1] = rng(s);
}

static void ref_fa8_old(struct inv *iv)
{
	uint8_t *b = fa_cell(iv) + 8;
	memcpy(iv->want, b, 8);
	iv->want_len = 8;
	iv->want_site = 1;
	memcpy(fa_cell(iv) + 16, b, 8);
	put_le(b, 8, get_le(b, 8) + iv->arg[1]);
}

static void ref_fa4_cmp(struct inv *iv)
{
	uint8_t *a = fa_cell(iv);
	uint32_t old = (uint32_t)get_be(a, 4);
	put_be(a, 4, old + 1);
	if (old == 5)
		put_be(a + 4, 4, 1);
}

/* ---- R5: a client parameter needed in more than 16 WQE fields --------------- */

static void gen_many(uint64_t *s, struct inv *iv)
{
	for (unsigned i = 0; i < 4 * 160; i++)
		iv->mem[i] = (uint8_t)rng(s);
	iv->arg[0] = 160 * (rng(s) % 4);
	iv->arg[1] = rng(s);
}

static void ref_many(struct inv *iv)
{
	for (unsigned f = 0; f < 20; f++)
		put_be(iv->mem + iv->arg[0] + 8 * f, 8, iv->arg[1]);
}

/* 4 parameters, each stored 4 times through two client pointers */
static void gen_four(uint64_t *s, struct inv *iv)
{
	for (unsigned i = 0; i < 4 * 64; i++)
		iv->mem[i] = (uint8_t)rng(s);
	iv->arg[0] = 64 * (rng(s) % 4);
	iv->arg[1] = 64 * (rng(s) % 4);
	for (unsigned i = 2; i < 6; i++)
		iv->arg[i] = rng(s);
}

static void ref_four(struct inv *iv)
{
	for (unsigned half = 0; half < 2; half++)
		for (unsigned ptr = 0; ptr < 2; ptr++)
			for (unsigned k = 0; k < 4; k++)
				put_be(iv->mem + iv->arg[ptr] + 8 * (4 * half + k), 8,
				       iv->arg[2 + k]);
}

/* 48 nodes (key, next, val) in a random ring; the walk's key is often one
 * 17..47 steps away */
#define WALK_NODES 48u

static void gen_walk(uint64_t *s, struct inv *iv)
{
	unsigned perm[WALK_NODES];
	for (unsigned i = 0; i < WALK_NODES; i++)
		perm[i] = i;
	for (unsigned i = WALK_NODES - 1; i > 0; i--) {
		unsigned j = (unsigned)(rng(s) % (i + 1)), t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (unsigned i = 0; i < WALK_NODES; i++) {
		uint8_t *n = iv->mem + 24 * perm[i];
		put_be(n, 8, 0x1000 + perm[i]);
		put_be(n + 8, 8, iv->base + 24 * perm[(i + 1) % WALK_NODES]);
		put_be(n + 16, 8, rng(s));
	}
	unsigned h = (unsigned)(rng(s) % WALK_NODES);
	iv->arg[1] = 24 * perm[h];
	iv->arg[0] = rng(s) % 5 ? 0x1000 + perm[(h + 17 + rng(s) % 30) % WALK_NODES] : 0x999;
}

static void ref_walk(struct inv *iv)
{
	const uint8_t *p = iv->mem + iv->arg[1];
	for (unsigned i = 0; i < 40 && get_be(p, 8) != iv->arg[0]; i++)
		p = iv->mem + (get_be(p + 8, 8) - iv->base);
	if (get_be(p, 8) != iv->arg[0])
		return;          /* a miss: no return ran */
	memcpy(iv->want, p, 24); /* the response starts at the node: val at 16 */
	iv->want_len = 24;
	iv->want_site = 1;
}

/* ---- R6: loop conditions other than `a != b` of two run-time values -------- */

/* 16 nodes (key be64, tag be32, pad, next) in a random ring; tags small so
 * the conditions change along the walk */
#define LN 16u
#define LOOP_SRC                                                                                   \
	"struct n { key: be64; tag: be32; pad: be32; next: *n in m; }\n"                           \
	"region m: n[16] readonly;\n"

static void gen_list(uint64_t *s, struct inv *iv)
{
	unsigned perm[LN];
	for (unsigned i = 0; i < LN; i++)
		perm[i] = i;
	for (unsigned i = LN - 1; i > 0; i--) {
		unsigned j = (unsigned)(rng(s) % (i + 1)), t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (unsigned i = 0; i < LN; i++) {
		uint8_t *n = iv->mem + 24 * perm[i];
		put_be(n, 8, rng(s) % 4 ? 0x100 + perm[i] : 0);
		put_be(n + 8, 4, rng(s) % 8);
		put_be(n + 12, 4, 0);
		put_be(n + 16, 8, iv->base + 24 * perm[(i + 1) % LN]);
	}
	iv->arg[0] = 24 * (rng(s) % LN);
	iv->arg[1] = rng(s) % 9;
}

enum lcmp { L_NE0, L_LT, L_GT, L_LE, L_GE, L_LT_K, L_EQ, L_AND, L_NOT_OR, L_BRK_OR };

/* Walk while the condition holds (at most 8 steps); the node reached. */
static const uint8_t *walk_while(struct inv *iv, enum lcmp k)
{
	const uint8_t *p = iv->mem + iv->arg[0];
	uint64_t lim = iv->arg[1];
	for (unsigned i = 0; i < 8; i++) {
		uint64_t tag = get_be(p + 8, 4);
		bool hold = k == L_NE0      ? get_be(p, 8) != 0
		            : k == L_LT     ? tag < lim
		            : k == L_GT     ? tag > lim
		            : k == L_LE     ? tag <= lim
		            : k == L_GE     ? tag >= lim
		            : k == L_LT_K   ? tag < 5
		            : k == L_EQ     ? tag == lim
		            : k == L_AND    ? get_be(p, 8) != 0 && tag <= lim
		            : k == L_NOT_OR ? !(get_be(p, 8) == 0 || tag > lim)
		                            : !(tag == lim || get_be(p, 8) == 0);
		if (!hold)
			break;
		p = iv->mem + (get_be(p + 16, 8) - iv->base);
	}
	return p;
}

/* the response: the node's key and tag (the WRITE starts at the node) */
#define WALK_REF(NAME, K)                                                                          \
	static void ref_##NAME(struct inv *iv)                                                     \
	{                                                                                          \
		memcpy(iv->want, walk_while(iv, (K)), 16);                                         \
		iv->want_len = 16;                                                                 \
		iv->want_site = 1;                                                                 \
	}
WALK_REF(ne0, L_NE0)
WALK_REF(lt, L_LT)
WALK_REF(gt, L_GT)
WALK_REF(le, L_LE)
WALK_REF(ge, L_GE)
WALK_REF(ltk, L_LT_K)
WALK_REF(eq, L_EQ)
WALK_REF(landw, L_AND)
WALK_REF(notor, L_NOT_OR)
WALK_REF(brkor, L_BRK_OR)

/* the same walks written with `break` under the complement */
#define BREAK_CASE(NAME, BRK, REF)                                                                 \
	{                                                                                          \
		.name = "loop with break under " BRK,                                              \
		.src = LOOP_SRC "offload f(h: *n in m, lim: be32) -> be32 {\n"                     \
		                "\tlet p = h;\n\twhile (true) bound 8 {\n"                         \
		                "\t\tif (" BRK ") { break; }\n\t\tp = p.next;\n\t}\n"              \
		                "\tif (p.pad == 0) { return p.tag; }\n}\n",                        \
		.args = {"h", "lim"}, .msize = 24 * LN, .gen = gen_list, .ref = REF                \
	}

#define WALK_CASE(NAME, COND, REF)                                                                 \
	{                                                                                          \
		.name = "loop while " COND,                                                        \
		.src = LOOP_SRC "offload f(h: *n in m, lim: be32) -> be32 {\n"                     \
		                "\tlet p = h;\n\twhile (" COND ") bound 8 { p = p.next; }\n"       \
		                "\tif (p.pad == 0) { return p.tag; }\n}\n",                        \
		.args = {"h", "lim"}, .msize = 24 * LN, .gen = gen_list, .ref = REF                \
	}

/* ---- R8: run-time + - & | ^ ---------------------------------------------------- */

/* 4 cells: a, b, c: be64; u, v: le32; pad (32 bytes) */
#define AR_SRC                                                                                     \
	"struct s { a: be64; b: be64; c: be64; u: le32; v: le32; }\n"                              \
	"region m: s[4] writable;\n"

static void gen_ar(uint64_t *s, struct inv *iv)
{
	for (unsigned i = 0; i < 128; i++)
		iv->mem[i] = (uint8_t)rng(s);
	iv->arg[0] = 32 * (rng(s) % 4);
	iv->arg[1] = rng(s) % 3 ? rng(s) : get_be(iv->mem + iv->arg[0], 8);
	iv->arg[2] = rng(s) & 0xffffffffu;
}

#define AR_A(iv)    get_be((iv)->mem + (iv)->arg[0], 8)
#define AR_B(iv)    get_be((iv)->mem + (iv)->arg[0] + 8, 8)
#define AR_U(iv)    get_le((iv)->mem + (iv)->arg[0] + 24, 4)
#define AR_C(iv, v) put_be((iv)->mem + (iv)->arg[0] + 16, 8, (v))
#define AR_V(iv, v) put_le((iv)->mem + (iv)->arg[0] + 28, 4, (v))

#define AR_REF(NAME, STMT)                                                                         \
	static void ref_##NAME(struct inv *iv)                                                     \
	{                                                                                          \
		uint64_t x = iv->arg[1], y = iv->arg[2];                                           \
		(void)x;                                                                           \
		(void)y;                                                                           \
		STMT;                                                                              \
	}
AR_REF(add, AR_C(iv, AR_A(iv) + x))
AR_REF(sub, AR_C(iv, AR_A(iv) - x))
AR_REF(and, AR_C(iv, AR_A(iv) & x))
AR_REF(or, AR_C(iv, AR_A(iv) | x))
AR_REF(xor, AR_C(iv, AR_A(iv) ^ x))
AR_REF(subk, AR_C(iv, AR_A(iv) - 3))
AR_REF(andk, AR_C(iv, x & 0xff00ff))
AR_REF(nested, AR_C(iv, (AR_A(iv) + x) ^ AR_B(iv)))
AR_REF(le32, AR_V(iv, (uint32_t)(AR_U(iv) - y)))
AR_REF(cond, if (AR_A(iv) - x == 0) AR_C(iv, 1))

#define AR_CASE(NAME, BODY)                                                                        \
	{                                                                                          \
		.name = "run-time arithmetic: " BODY,                                              \
		.src = AR_SRC "offload f(p: *s in m, x: be64, y: le32) { " BODY " }\n",            \
		.args = {"p", "x", "y"}, .msize = 128, .gen = gen_ar, .ref = ref_##NAME            \
	}

/* ---- R12: responses of more than 512 bytes, up to 4096 --------------------- */

/* Two elements of H + D bytes; the entry returns field d of one: the
 * response WRITE starts at the element, so the result holds H + D bytes. */
#define BIG_CASE(NAME, H, D)                                                                       \
	static void gen_##NAME(uint64_t *s, struct inv *iv)                                        \
	{                                                                                          \
		for (size_t i = 0; i < 2 * ((H) + (D)); i++)                                       \
			iv->mem[i] = (uint8_t)rng(s);                                              \
		iv->arg[0] = ((H) + (D)) * (rng(s) % 2);                                           \
	}                                                                                          \
	static void ref_##NAME(struct inv *iv)                                                     \
	{                                                                                          \
		memcpy(iv->want, iv->mem + iv->arg[0], (H) + (D));                                 \
		iv->want_len = (H) + (D);                                                          \
		iv->want_site = 1;                                                                 \
	}
BIG_CASE(big600, 10, 600)
BIG_CASE(big4096, 96, 4000)

static const struct kcase cases[] = {
    AR_CASE(add, "p.c = p.a + x;"),
    AR_CASE(sub, "p.c = p.a - x;"),
    AR_CASE(and, "p.c = p.a & x;"),
    AR_CASE(or, "p.c = p.a | x;"),
    AR_CASE(xor, "p.c = p.a ^ x;"),
    AR_CASE(subk, "p.c = p.a - 3;"),
    AR_CASE(andk, "p.c = x & 0xff00ff;"),
    AR_CASE(nested, "p.c = (p.a + x) ^ p.b;"),
    AR_CASE(le32, "p.v = p.u - y;"),
    AR_CASE(cond, "if (p.a - x == 0) { p.c = 1; }"),
    WALK_CASE(ne0, "p.key != 0", ref_ne0),
    WALK_CASE(lt, "p.tag < lim", ref_lt),
    WALK_CASE(gt, "p.tag > lim", ref_gt),
    WALK_CASE(le, "p.tag <= lim", ref_le),
    WALK_CASE(ge, "p.tag >= lim", ref_ge),
    WALK_CASE(ltk, "p.tag < 5", ref_ltk),
    WALK_CASE(eq, "p.tag == lim", ref_eq),
    WALK_CASE(landw, "p.key != 0 && p.tag <= lim", ref_landw),
    WALK_CASE(notor, "!(p.key == 0 || p.tag > lim)", ref_notor),
    BREAK_CASE(gt, "p.tag > lim", ref_le),
    BREAK_CASE(ne, "p.tag != lim", ref_eq),
    BREAK_CASE(or, "p.tag == lim || p.key == 0", ref_brkor),
    {.name = "20 stores of a parameter through one pointer",
     .src = "struct s { f: be64[20]; }\nregion m: s[4] writable;\n"
            "offload f(p: *s in m, x: be64) {\n"
            "\tp.f[0] = x; p.f[1] = x; p.f[2] = x; p.f[3] = x; p.f[4] = x; p.f[5] = x;\n"
            "\tp.f[6] = x; p.f[7] = x; p.f[8] = x; p.f[9] = x; p.f[10] = x; p.f[11] = x;\n"
            "\tp.f[12] = x; p.f[13] = x; p.f[14] = x; p.f[15] = x; p.f[16] = x;\n"
            "\tp.f[17] = x; p.f[18] = x; p.f[19] = x;\n}\n",
     .args = {"p", "x"},
     .msize = 640,
     .gen = gen_many,
     .ref = ref_many},
    {.name = "four parameters stored four times each through two pointers",
     .src = "struct s { f: be64[8]; }\nregion m: s[4] writable;\n"
            "offload f(p: *s in m, q: *s in m, x: be64, y: be64, z: be64, w: be64) {\n"
            "\tp.f[0] = x; p.f[1] = y; p.f[2] = z; p.f[3] = w;\n"
            "\tq.f[0] = x; q.f[1] = y; q.f[2] = z; q.f[3] = w;\n"
            "\tp.f[4] = x; p.f[5] = y; p.f[6] = z; p.f[7] = w;\n"
            "\tq.f[4] = x; q.f[5] = y; q.f[6] = z; q.f[7] = w;\n}\n",
     .args = {"p", "q", "x", "y", "z", "w"},
     .msize = 256,
     .gen = gen_four,
     .ref = ref_four},
    {.name = "unrolled walk of 40, then an unconditional return",
     .src = "struct node { key: be64; next: *node in m; val: be64; }\n"
            "region m: node[48] readonly;\n"
            "offload find(key: be64, head: *node in m) -> be64 {\n"
            "\tlet p = head;\n\twhile (p.key != key) bound 40 { p = p.next; }\n"
            "\treturn p.val;\n}\n",
     .args = {"key", "head"},
     .msize = 24 * WALK_NODES,
     .gen = gen_walk,
     .ref = ref_walk_ret},
    {.name = "unrolled walk of 40 with a client key",
     .src = "struct node { key: be64; next: *node in m; val: be64; }\n"
            "region m: node[48] readonly;\n"
            "offload find(key: be64, head: *node in m) -> be64 {\n"
            "\tlet p = head;\n\twhile (p.key != key) bound 40 { p = p.next; }\n"
            "\tif (p.key == key) { return p.val; }\n}\n",
     .args = {"key", "head"},
     .msize = 24 * WALK_NODES,
     .gen = gen_walk,
     .ref = ref_walk},
    {.name = "fetch_add on a be32",
     .src = FA_SRC "offload f(p: *s in m, d: be32) { fetch_add(p.a, d); }\n",
     .args = {"p", "d"},
     .msize = 96,
     .gen = gen_fa,
     .ref = ref_fa4},
    {.name = "fetch_add on a be32, old value returned",
     .src = FA_SRC "offload f(p: *s in m, d: be32) -> be32 {\n"
                   "\tlet o = fetch_add(p.a, d);\n\treturn o;\n}\n",
     .args = {"p", "d"},
     .msize = 96,
     .gen = gen_fa,
     .ref = ref_fa4_old},
    {.name = "fetch_add on an le64, old value stored and returned",
     .src = FA_SRC "offload f(p: *s in m, d: le64) -> le64 {\n"
                   "\tlet o = fetch_add(p.b, d);\n\tp.d = o;\n\treturn o;\n}\n",
     .args = {"p", "d"},
     .msize = 96,
     .gen = gen_fa8,
     .ref = ref_fa8_old},
    {.name = "fetch_add old value compared",
     .src = FA_SRC "offload f(p: *s in m) {\n"
                   "\tlet o = fetch_add(p.a, 1);\n\tif (o == 5) { p.c = 1; }\n}\n",
     .args = {"p"},
     .msize = 96,
     .gen = gen_fa,
     .ref = ref_fa4_cmp},
    {.name = "copy of a 200-byte struct",
     .src = "struct big { h: be64; d: u8[192]; }\nregion m: big[3] writable;\n"
            "offload f(p: *big in m, q: *big in m) { *p = *q; }\n",
     .args = {"p", "q"},
     .msize = 600,
     .gen = gen_big_copy,
     .ref = ref_big_copy},
    {.name = "store of a 100-byte argument",
     .src = "struct big { h: u8[50]; d: u8[100]; t: u8[50]; }\nregion m: big[3] writable;\n"
            "offload f(p: *big in m, q: *big in m, x: u8[100]) { p.d = x; }\n",
     .args = {"p", "q", "x"},
     .msize = 600,
     .gen = gen_big_arg,
     .ref = ref_big_arg},
    {.name = "== of 16-byte aggregates",
     .src = "struct k { a: be64; b: be64; }\nstruct s { key: k; c: be64; }\n"
            "region m: s[4] writable;\n"
            "offload f(p: *s in m, x: k) { if (p.key == x) { p.c = 1; } }\n",
     .args = {"p", "x"},
     .msize = 96,
     .gen = gen_eq16,
     .ref = ref_eq16},
    {.name = "!= of 16-byte aggregates",
     .src = "struct s { key: u8[16]; c: be64; }\n"
            "region m: s[4] writable;\n"
            "offload f(p: *s in m, x: u8[16]) { if (p.key != x) { p.c = 1; } }\n",
     .args = {"p", "x"},
     .msize = 96,
     .gen = gen_ne16,
     .ref = ref_ne16},
    {.name = "== of 12-byte aggregates",
     .src = "struct s { key: u8[12]; c: be64; }\n"
            "region m: s[4] writable;\n"
            "offload f(p: *s in m, x: u8[12]) { if (p.key == x) { p.c = 1; } }\n",
     .args = {"p", "x"},
     .msize = 80,
     .gen = gen_eq12,
     .ref = ref_eq12},
    {.name = "else-if chain of 3 conditions and else",
     .src = ROW_SRC "offload f(p: *row in m, x: be64) {\n"
                    "\tif (p.a == x) { p.v = 1; } else if (p.b == x) { p.v = 2; }\n"
                    "\telse if (p.c == x) { p.v = 3; } else { p.v = 4; }\n}\n",
     .args = {"p", "x"},
     .msize = 128,
     .gen = gen_rows,
     .ref = ref_chain3_else},
    {.name = "else-if chain of 4 conditions",
     .src = ROW_SRC "offload f(p: *row in m, x: be64) {\n"
                    "\tif (p.a == x) { p.v = 1; } else if (p.b == x) { p.v = 2; }\n"
                    "\telse if (p.c == x) { p.v = 3; } else if (p.b == 0) { p.a = 4; }\n}\n",
     .args = {"p", "x"},
     .msize = 128,
     .gen = gen_rows,
     .ref = ref_chain4},
    {.name = "if inside an else-if arm",
     .src = ROW_SRC "offload f(p: *row in m, x: be64) {\n"
                    "\tif (p.a == x) { p.v = 1; } else if (p.b == x) {\n"
                    "\t\tif (p.c == x) { p.v = 2; } else { p.v = 5; }\n"
                    "\t} else { p.v = 3; }\n}\n",
     .args = {"p", "x"},
     .msize = 128,
     .gen = gen_rows,
     .ref = ref_chain_nested},
    {.name = "else-if chain of 6 conditions and else",
     .src = ROW_SRC "offload f(p: *row in m, x: be64, y: be64) {\n"
                    "\tif (p.a == x) { p.v = 1; } else if (p.b == x) { p.v = 2; }\n"
                    "\telse if (p.c == x) { p.v = 3; } else if (p.a == y) { p.v = 4; }\n"
                    "\telse if (p.b > y) { p.v = 5; } else if (p.c != y) { p.v = 6; }\n"
                    "\telse { p.v = 7; }\n}\n",
     .args = {"p", "x", "y"},
     .msize = 128,
     .gen = gen_rows,
     .ref = ref_chain6},
    {.name = "!= under && in an if without else",
     .src = ROW_SRC "offload f(p: *row in m, x: be64, y: be64) {\n"
                    "\tif (p.a != x && p.b == y) { p.c = 1; }\n}\n",
     .args = {"p", "x", "y"},
     .msize = 128,
     .gen = gen_rows,
     .ref = ref_ne_and},
    {.name = "!= under || in an if without else",
     .src = ROW_SRC "offload f(p: *row in m, x: be64, y: be64) {\n"
                    "\tif (p.a != x || p.b != y) { p.c = 1; }\n}\n",
     .args = {"p", "x", "y"},
     .msize = 128,
     .gen = gen_rows,
     .ref = ref_ne_or},
    {.name = "!= and && inside an if on !=",
     .src = ROW_SRC "offload f(p: *row in m, x: be64, y: be64) {\n"
                    "\tif (p.a != x) { p.c = 1; if (p.b != y && p.b > 0) { p.v = 5; } }\n}\n",
     .args = {"p", "x", "y"},
     .msize = 128,
     .gen = gen_rows,
     .ref = ref_ne_nested},
    {.name = "== && cas",
     .src = ROW_SRC "offload f(p: *row in m, x: be64, y: le64) {\n"
                    "\tif (x == 0 && cas(p.v, y, 9)) { p.c = 1; }\n}\n",
     .args = {"p", "x", "y"},
     .msize = 128,
     .gen = gen_rows,
     .ref = ref_eq_and_cas},
    {.name = "!= || cas",
     .src = ROW_SRC "offload f(p: *row in m, x: be64, y: le64) {\n"
                    "\tif (p.a != x || cas(p.v, y, 9)) { p.c = 1; }\n}\n",
     .args = {"p", "x", "y"},
     .msize = 128,
     .gen = gen_rows,
     .ref = ref_ne_or_cas},
    {.name = "cas through a loaded pointer",
     .src = CELL_SRC "offload f(p: *cell in m, x: le64, y: le64) { cas(p.l.w, x, y); }\n",
     .args = {"p", "x", "y"},
     .msize = CELL * CELLS,
     .gen = gen_cells_small,
     .ref = ref_cas_through},
    {.name = "cas_gt through a loaded pointer",
     .src = CELL_SRC "offload f(p: *cell in m, x: be64) { cas_gt(p.l.v, x); }\n",
     .args = {"p", "x"},
     .msize = CELL * CELLS,
     .gen = gen_cells_small,
     .ref = ref_cas_gt_through},
    {.name = "arithmetic in both arms of a negated condition",
     .src = CELL_SRC
     "offload f(p: *cell in m, x: be64) {\n"
     "\tif (!(p.v == x) && p.e != x) { p.e = p.e ^ x; } else { p.v = p.v - p.e; }\n}\n",
     .args = {"p", "x"},
     .msize = CELL * CELLS,
     .gen = gen_cells_small,
     .ref = ref_mixed},
    {.name = "store a field read in the statement",
     .src = CELL_SRC "offload f(p: *cell in m, r: *cell in m) { p.e = r.e; }\n",
     .args = {"p", "r"},
     .msize = CELL * CELLS,
     .gen = gen_cells,
     .ref = ref_copy_field},
    {.name = "copy a struct through two pointers",
     .src = CELL_SRC "offload f(p: *cell in m, r: *cell in m) { *p = *r; }\n",
     .args = {"p", "r"},
     .msize = CELL * CELLS,
     .gen = gen_cells,
     .ref = ref_copy_cell},
    {.name = "store through a loaded pointer",
     .src = CELL_SRC "offload f(p: *cell in m, r: *cell in m, x: be64) { p.l.v = x; }\n",
     .args = {"p", "r", "x"},
     .msize = CELL * CELLS,
     .gen = gen_cells,
     .ref = ref_store_through},
    {.name = "fetch_add through a loaded pointer",
     .src = CELL_SRC "offload f(p: *cell in m, r: *cell in m, x: le64) { fetch_add(p.l.w, x); }\n",
     .args = {"p", "r", "x"},
     .msize = CELL * CELLS,
     .gen = gen_cells,
     .ref = ref_add_through},
    {.name = "copy between two loaded pointers",
     .src = CELL_SRC "offload f(p: *cell in m, r: *cell in m) { p.l.e = r.l.e; }\n",
     .args = {"p", "r"},
     .msize = CELL * CELLS,
     .gen = gen_cells,
     .ref = ref_copy_through},
    {.name = "return without a value",
     .src = "struct s { a: be64; b: be64; }\n"
            "region m: s[4] writable;\n"
            "offload f(p: *s in m, x: be64) {\n"
            "\tif (p.a == x) { return; } else { p.b = 7; return; }\n"
            "}\n",
     .args = {"p", "x"},
     .msize = 32,
     .gen = gen_ret,
     .ref = ref_ret},
    {.name = "a response of 610 bytes",
     .src = "struct big { h: u8[10]; d: u8[600]; }\n"
            "region m: big[2] readonly;\n"
            "offload f(p: *big in m) -> u8[600] { return p.d; }\n",
     .args = {"p"},
     .msize = 1220,
     .gen = gen_big600,
     .ref = ref_big600},
    {.name = "a response of 4096 bytes",
     .src = "struct big { h: u8[96]; d: u8[4000]; }\n"
            "region m: big[2] readonly;\n"
            "offload f(p: *big in m) -> u8[4000] { return p.d; }\n",
     .args = {"p"},
     .msize = 8192,
     .gen = gen_big4096,
     .ref = ref_big4096},
};

/* ---- rejections -------------------------------------------------------------- */

/* The whole rendered diagnostic under both profiles. */
static void expect_diag(const char *src, const char *want)
{
	for (int prof = 0; prof < 2; prof++) {
		char *diag = NULL;
		struct chainobj *o =
		    be_compile(src, NULL, prof ? IR_PROFILE_STRICT : IR_PROFILE_RELAXED, &diag);
		assert_null(o);
		assert_non_null(diag);
		if (strcmp(diag, want))
			fprintf(stderr, "diagnostic was:\n%s\nwanted:\n%s", diag, want);
		assert_string_equal(diag, want);
		free(diag);
	}
}

static void test_response_too_large(void **state)
{
	(void)state;
	expect_diag("struct big { h: u8[100]; d: u8[4000]; }\n"
	            "region m: big[4] readonly;\n"
	            "offload f(p: *big in m) -> u8[4000] { return p.d; }\n",
	            "t.prism:3:46: error: a response holds at most 4096 bytes, and this one "
	            "needs 4100 (the response WRITE starts at the pointer: the 100 bytes before "
	            "the value ride along); return a value that ends within the first 4096 "
	            "bytes of what the pointer names\n"
	            "    offload f(p: *big in m) -> u8[4000] { return p.d; }\n"
	            "                                                 ^~~\n");
}

static void test_loop_or_rejected(void **state)
{
	(void)state;
	expect_diag(
	    "struct n { key: be64; tag: be32; pad: be32; next: *n in m; }\n"
	    "region m: n[16] writable;\n"
	    "offload f(h: *n in m, k: be64) { let p = h; while (p.key == k || p.tag == 0) "
	    "bound 8 { p = p.next; } }\n",
	    "t.prism:3:52: error: a loop condition is a comparison, an `&&` of comparisons "
	    "(`!` pushed in: `!(a || b)` is `!a && !b`), or `true` (each way it fails is "
	    "one exit test); a loop that runs while either of two conditions holds is not "
	    "lowered (it would exit only when both fail, which no single exit test sees)\n"
	    "    offload f(h: *n in m, k: be64) { let p = h; while (p.key == k || p.tag == 0) "
	    "bound 8 { p = p.next; } }\n"
	    "                                                       ^~~~~~~~~~~~~~~~~~~~~~~~\n");
}

static void test_fetch_add_value_needs_let(void **state)
{
	(void)state;
	expect_diag("struct n { key: le64; }\nregion m: n[16] writable;\n"
	            "offload g(h: *n in m, k: le64) { h.key = fetch_add(h.key, 1) + k; }\n",
	            "t.prism:3:42: error: fetch_add's old value is used through a temporary: write "
	            "`let old = fetch_add(..);` and use `old`\n"
	            "    offload g(h: *n in m, k: le64) { h.key = fetch_add(h.key, 1) + k; }\n"
	            "                                             ^~~~~~~~~~~~~~~~~~~\n");
}

/* Lanes start at the entry: a `parallel` after a write is refused, under both
 * profiles, at the `parallel` (it was a silent wrong answer). */
static void test_parallel_after_write_rejected(void **state)
{
	(void)state;
	const char *src = "struct r { k: be64; j: be64; }\nregion m: r[4] writable;\n"
	                  "offload f(q: *r in m) {\n"
	                  "    q.k = 1;\n"
	                  "    parallel { q.j = 2; } || { let s = q.k; q.j = s; }\n"
	                  "}\n";
	for (int prof = 0; prof < 2; prof++) {
		char *diag = NULL;
		struct chainobj *o =
		    be_compile(src, NULL, prof ? IR_PROFILE_STRICT : IR_PROFILE_RELAXED, &diag);
		assert_null(o);
		assert_non_null(diag);
		assert_non_null(strstr(diag,
		                       "t.prism:5:5: error: `parallel` after a statement that "
		                       "writes memory is not lowered"));
		assert_non_null(strstr(diag, "move the writes into the first lane"));
		free(diag);
	}
}

static void test_wide_equality_rejected(void **state)
{
	(void)state;
	expect_diag(
	    "struct k { a: be64; b: be64; c: be64; }\nstruct s { key: k; c: be64; }\n"
	    "region m: s[16] writable;\n"
	    "offload f(p: *s in m, x: k) { if (p.key == x) { p.c = 1; } }\n",
	    "t.prism:4:35: error: `==` compares aggregates of at most 16 bytes (each 8-byte "
	    "part is two carry tests, and one guard takes five), not 24; compare at most "
	    "16 bytes of them (the fields that tell them apart)\n"
	    "    offload f(p: *s in m, x: k) { if (p.key == x) { p.c = 1; } }\n"
	    "                                      ^~~~~~~~~~\n");
}

static void test_on_sim(void **state)
{
	const struct kcase *k = *state;
	run_case(k, IR_PROFILE_RELAXED);
	run_case(k, IR_PROFILE_STRICT);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
	    cmocka_unit_test(test_response_too_large),
	    cmocka_unit_test(test_loop_or_rejected),
	    cmocka_unit_test(test_fetch_add_value_needs_let),
	    cmocka_unit_test(test_wide_equality_rejected),
	    cmocka_unit_test(test_parallel_after_write_rejected),
	};
	enum { N = sizeof(cases) / sizeof(cases[0]), F = sizeof(fixed) / sizeof(fixed[0]) };
	struct CMUnitTest tests[N + F];
	for (size_t i = 0; i < N; i++)
		tests[i] = (struct CMUnitTest){.name = cases[i].name,
		                               .test_func = test_on_sim,
		                               .initial_state = (void *)&cases[i]};
	memcpy(tests + N, fixed, sizeof(fixed));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
