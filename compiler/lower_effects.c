/* SPDX-License-Identifier: MIT */
/*
 * compiler/lower_effects.c - effects: return (the response), stores and
 * atomics (fetch_add, cas).
 *
 * Owns:
 *   return v   conn: WRITE_IMM v -> client response buffer, imm = site id (1..,
 *              one per `return` written); every return's value at one
 *              offset (the value's address lands in the WRITE's sge by a
 *              READ scatter: indirection without a round trip)
 *   end        conn: WRITE_IMM of 0 bytes, imm 0 - every invocation ends with
 *              exactly one imm-0 completion unless it ended with an
 *              unconditional return (docs/chain-format.md, execution model)
 *   p.f = v    lane: WRITE (inline bytes from the client's payload or a
 *              constant, or gathered from memory) to the pointer
 *   fetch_add(p.f, k) / cas(p.f, old, new)   lane: FETCH_ADD / CAS
 * Inside an `if`, each effect is guarded (lower_cond.c).
 *
 * Must not: place barriers; every conn node gets an anchor (the lane-0
 * position where sched_barrier enables it).
 */
#include <stdlib.h>
#include <string.h>

#include "compiler/lower.h"
#include "util/array.h"
#include "runtime/chain/chainobj.h"

void lower_anchor(struct lower_ctx *c, int conn_node)
{
	struct ir_prog *p = c->p;
	if (c->in_parallel) {
		if (!ARRAY_RESERVE(c->deferred, c->cap_deferred, c->n_deferred + 1)) {
			p->oom = true;
			return;
		}
		c->deferred[c->n_deferred++] = conn_node;
		return;
	}
	p->nodes[conn_node].anchor = (int)p->queues[p->q_main].n;
}

/* A response: WRITE_IMM on conn of `len` bytes gathered at the pointer. */
static int response(struct lower_ctx *c, uint32_t imm)
{
	struct ir_prog *p = c->p;
	struct ir_node *x = ir_append(p, p->q_conn, PRISM_OP_RDMA_WRITE_IMM, IR_ROLE_RESPONSE);
	if (!x)
		return -1;
	x->raddr = ir_v(IR_V_RESP_ADDR, 0, 0);
	x->rkey = ir_v(IR_V_RESP_RKEY, 0, 0);
	x->imm = imm;
	return x->id;
}

/*
 * A field at `off` behind a pointer: the NIC cannot add an offset, so a
 * 16-byte masked FETCH_ADD on the WQE's [raddr | rkey, reserved] adds it.
 * 16-byte masked atomics are big-endian in memory, like the raddr field, and
 * the add [off | 0] leaves the key word alone (no carry out of it); a carry
 * out of the raddr leaves the 128-bit integer.  The NIC's key check still
 * bounds the sum.  It runs after the pointer landed (fence) and before the
 * WQE (which moves after it: the rewrite costs the barrier the pointer's
 * delivery needs anyway).  The same add on a data segment's [byte_count |
 * lkey, addr] with `off` << 32 adds to the byte count.
 */
static bool pointer_offset(struct lower_ctx *c, int node, uint32_t ra, uint64_t off, int writer)
{
	struct ir_prog *p = c->p;
	if (ra % 16 != 0) {
		lower_error(c, p->nodes[node].loc, "raddr field not 16-byte aligned");
		return false;
	}
	struct ir_node *fa = ir_append(p, c->lane, PRISM_OP_ATOMIC_MASKED_FA, IR_ROLE_DATA);
	if (!fa)
		return false;
	int fid = fa->id;
	fa->what = "pointer + field offset";
	fa->loc = p->nodes[node].loc;
	fa->asize = 16;
	fa->opmod = (uint8_t)PRISM_MASKED_OPMOD(4);
	fa->raddr = ir_v(IR_V_NODE_ADDR, node, ra);
	fa->rkey = ir_v(IR_V_QBUF_RKEY, p->nodes[node].queue, 0);
	for (int i = 0; i < 8; i++)
		fa->swap_bytes[i] = (uint8_t)(off >> (56 - 8 * i));
	uint32_t result = ir_scratch_alloc(p, 16, 16);
	ir_sge_add(p, fa, ir_v(IR_V_SCRATCH_ADDR, 0, result), 16, ir_v(IR_V_SCRATCH_LKEY, 0, 0));
	struct ir_patch pt = {.kind = IR_PATCH_CAS,
	                      .writer = fid,
	                      .writer_sge = 0,
	                      .target = node,
	                      .off = ra,
	                      .len = 16,
	                      .control = false,
	                      .taint = 0};
	if (ir_add_patch(p, &pt) < 0)
		return false;
	if (writer >= 0)
		ir_add_dep(p, writer, fid);
	/* the WQE after its offset add */
	struct ir_queue *q = &p->queues[c->lane];
	if (p->nodes[node].queue == c->lane) {
		for (unsigned i = (unsigned)p->nodes[node].pos; i + 1 < q->n; i++) {
			q->nodes[i] = q->nodes[i + 1];
			p->nodes[q->nodes[i]].pos = (int)i;
		}
		q->nodes[q->n - 1] = node;
		p->nodes[node].pos = (int)q->n - 1;
	}
	return !p->oom;
}

uint32_t lower_return_site(struct lower_ctx *c, struct src_loc loc)
{
	for (unsigned i = 0; i < c->ret_sites; i++)
		if (c->sites[i].line == loc.line && c->sites[i].col == loc.col)
			return i + 1;
	if (!ARRAY_RESERVE(c->sites, c->sites_cap, c->ret_sites + 1)) {
		c->p->oom = true;
		return 0;
	}
	c->sites[c->ret_sites++] = loc;
	return c->ret_sites;
}

/* Remember response `x`, whose value sits at byte `off` of what it WRITEs
 * (lower_place_results moves it to the common result offset). */
static bool note_result(struct lower_ctx *c, int x, uint32_t off, uint32_t w)
{
	if (!ARRAY_RESERVE(c->results, c->cap_results, c->n_results + 1)) {
		c->p->oom = true;
		return false;
	}
	c->results[c->n_results++] = (struct lresult){.node = x, .off = off, .width = w};
	return true;
}

/* The returned place `e`: the pointer it lies behind, its offset there and
 * its width (a bounded read: its capacity). */
static bool return_place(struct lower_ctx *c, const struct ast_expr *e, struct lval *ptr,
                         uint32_t *off, uint32_t *w)
{
	if (e->place != AST_PLACE_MEMORY) {
		lower_error(c, e->loc,
		            "return a value in memory (a field or `*ptr`) or a temporary that "
		            "holds an atomic's old value: the response WRITE gathers it from "
		            "server memory or the connection's scratch");
		return false;
	}
	if (!lower_place(c, e, ptr, off))
		return false;
	*w = e->type ? (uint32_t)e->type->size : 0;
	if (e->kind == AST_EXPR_SLICE && e->u.slice.capacity)
		*w = (uint32_t)e->u.slice.capacity;
	if (ptr->region < 0) {
		lower_error(c, e->loc, "returned value has no region");
		return false;
	}
	if ((uint64_t)*off + *w > CHAINOBJ_MAX_MSG) {
		/* the client's response slots (and an object's response) hold
		 * CHAINOBJ_MAX_MSG bytes */
		lower_error(c, e->loc,
		            "a response holds at most %u bytes, and this one needs %u "
		            "(the response WRITE starts at the pointer: the %u bytes before "
		            "the value ride along); return a value that ends within the "
		            "first %u bytes of what the pointer names",
		            CHAINOBJ_MAX_MSG, *off + *w, *off, CHAINOBJ_MAX_MSG);
		return false;
	}
	return true;
}

/* A response at `site` WRITEing `len` bytes from `ptr` (the value at `off`,
 * `w` bytes of result): its node, or -1. */
static int value_response(struct lower_ctx *c, const struct ast_stmt *s, const struct lval *ptr,
                          uint32_t off, uint32_t len, uint32_t w, uint32_t site,
                          struct ldeliv *dptr)
{
	struct ir_prog *p = c->p;
	int x = response(c, site);
	if (x < 0)
		return -1;
	p->nodes[x].loc = s->loc;
	p->nodes[x].what = "return";
	if (!ptr) {
		/* `return;` moves no bytes: a zero-length WRITE_IMM touches no
		 * memory and needs no key (as the end-of-invocation one) */
		p->nodes[x].raddr = IR_CONST(0);
		p->nodes[x].rkey = IR_CONST(0);
		return x;
	}
	uint32_t sge0 = lower_field_off(PRISM_OP_RDMA_WRITE_IMM, PRISM_FIELD_SGE0_ADDR, 8);
	ir_sge_add(p, &p->nodes[x], ir_v(IR_V_RUNTIME, 0, 0), len,
	           ir_v(IR_V_REGION_LKEY, ptr->region, 0));
	*dptr = lower_deliver(c, ptr, x, sge0, !ptr->be);
	if (!lower_delivered(*dptr))
		return -1;
	p->regions[ptr->region].access_used |= 1u;
	return note_result(c, x, off, w) ? x : -1;
}

/*
 * The mask M of a bounded read's length written `n & M` or `M & n` with a
 * constant M <= @cap (then *@ne becomes n), else UINT64_MAX.
 */
static uint64_t masked_length(const struct ast_expr **ne, uint32_t cap)
{
	const struct ast_expr *e = *ne;
	if (e->kind != AST_EXPR_BINARY || e->u.binary.op != AST_BINOP_AND)
		return UINT64_MAX;
	const struct ast_expr *l = e->u.binary.lhs, *r = e->u.binary.rhs;
	if (l->is_const && !r->is_const) {
		const struct ast_expr *t = l;
		l = r;
		r = t;
	}
	if (!r->is_const || l->is_const || r->value > cap)
		return UINT64_MAX;
	*ne = l;
	return r->value;
}

/*
 * count &= @mask on the byte count of response @x (at @cnt): a 16-byte
 * masked CAS on [count | lkey, addr] that always swaps (compare mask 0)
 * zeros into the count's bits outside @mask.  Unguarded: a response that
 * stays a NOP never reads it.  It runs after every writer of those 16
 * bytes (it writes them all back) and after @after; the node or -1.
 */
static int mask_count(struct lower_ctx *c, int x, uint32_t cnt, uint32_t mask, int after,
                      struct src_loc loc)
{
	struct ir_prog *p = c->p;
	struct ir_node *f = ir_append(p, c->lane, PRISM_OP_ATOMIC_MASKED_CS, IR_ROLE_DATA);
	if (!f)
		return -1;
	int fid = f->id;
	f->what = "bounded read: mask the byte count";
	f->loc = loc;
	f->asize = 16;
	f->opmod = (uint8_t)PRISM_MASKED_OPMOD(4);
	f->raddr = ir_v(IR_V_NODE_ADDR, x, cnt);
	f->rkey = ir_v(IR_V_QBUF_RKEY, p->nodes[x].queue, 0);
	for (int b = 0; b < 4; b++) /* swap bytes stay 0 */
		f->swap_mask_bytes[b] = (uint8_t)(~mask >> (24 - 8 * b));
	uint32_t junk = ir_scratch_alloc(p, 16, 16);
	ir_sge_add(p, f, ir_v(IR_V_SCRATCH_ADDR, 0, junk), 16, ir_v(IR_V_SCRATCH_LKEY, 0, 0));
	if (cnt % 16 != 0 || !lower_cas_patch(p, fid, x, cnt, 16, false, 0))
		return -1;
	lower_after_writers(c, x, cnt, 16, fid);
	if (after >= 0)
		ir_add_dep(p, after, fid);
	return fid;
}

/*
 * return e[.. n] with n known only at run time: min(n, capacity) bytes.
 * The response's byte count is n, read from memory into the WRITE, plus
 * the field's offset when it has one; a WRITE guarded by the carry term
 * n > capacity (alone: the response itself carries the enclosing guard)
 * then overwrites the count with offset + capacity:
 *
 *   lane:  READ(n) ──scatter──► R.sge.byte_count   [MFA16 R.byte_count += off]
 *          carry term n > cap ─► guard F
 *          F = MCAS16 R.sge[count | lkey, addr]: count := off + cap
 *   conn:  R = WRITE_IMM [ptr, off + min(n, cap))
 *
 * A length `n & M` with a constant M <= cap needs no clamp: the AND is
 * done in place on the byte count, by an unguarded masked CAS that clears
 * the count's bits outside M (before the offset add), instead of computing
 * it in scratch and clamping the result.
 */
static bool bounded_return(struct lower_ctx *c, const struct ast_stmt *s, const struct ast_expr *e,
                           const struct lval *ptr, uint32_t off, uint32_t cap, uint32_t site)
{
	struct ir_prog *p = c->p;
	const struct ast_expr *ne = e->u.slice.len;
	uint64_t mask = masked_length(&ne, cap);
	struct lval n, lo;
	if (!lower_value(c, ne, &n))
		return false;
	lo = n;
	if (n.width > 4) { /* the byte count takes the low 4 bytes (n <= cap then) */
		if (n.kind == LV_MEM)
			lo.off += n.width - 4;
		else if (n.kind == LV_PARAM)
			lo.poff += n.width - 4;
		else {
			lower_error(c, ne->loc,
			            "the length of a bounded read must be read from "
			            "memory or sent by the client");
			return false;
		}
		lo.width = 4;
	}
	struct ldeliv dptr;
	int x = value_response(c, s, ptr, off, 0, cap, site, &dptr);
	if (x < 0)
		return false;
	uint32_t cnt = lower_field_off(PRISM_OP_RDMA_WRITE_IMM, PRISM_FIELD_SGE0_LEN, 8);
	struct ldeliv dn = lower_deliver(c, &lo, x, cnt + 4 - lo.width, false);
	if (!lower_delivered(dn))
		return false;
	int last = dn.writer;
	if (mask != UINT64_MAX) {
		last = mask_count(c, x, cnt, (uint32_t)mask, last, ne->loc);
		if (last < 0)
			return false;
	}
	if (off) {
		/* the WRITE starts at the pointer: off more bytes (after the
		 * pointer landed too: the add rewrites the whole segment) */
		if (dptr.kind == LD_NODE && dn.kind == LD_NODE)
			ir_add_dep(p, dptr.writer, dn.writer);
		if (!pointer_offset(c, x, cnt, (uint64_t)off << 32, last))
			return false;
		struct ir_queue *q = &p->queues[c->lane];
		last = q->nodes[q->n - 1]; /* the add */
		if (dptr.kind == LD_NODE)
			ir_add_dep(p, dptr.writer, last);
	}
	/* a length whose type or mask cannot exceed the capacity needs no clamp */
	uint64_t nmax = n.width >= 8 ? ~0ull : (1ull << (8 * n.width)) - 1;
	if (nmax <= cap || mask <= cap) {
		if (!lower_guard(c, x))
			return false;
		lower_anchor(c, x);
		return !p->oom;
	}
	/* F: the count clamped to the capacity when n > cap.  A 16-byte masked
	 * CAS (big-endian operands) on [byte_count | lkey, addr], compare mask
	 * 0 (it always swaps), swap mask over the count: an atomic, so a fenced
	 * enable waits for it like for the READs (nic model rule 3.2), and it
	 * runs after every writer of those 16 bytes (it writes them all back) */
	struct ir_node *f = ir_append(p, c->lane, PRISM_OP_ATOMIC_MASKED_CS, IR_ROLE_DATA);
	if (!f)
		return false;
	int fid = f->id;
	f->what = "bounded read: clamp the byte count";
	f->loc = ne->loc;
	f->asize = 16;
	f->opmod = (uint8_t)PRISM_MASKED_OPMOD(4);
	f->raddr = ir_v(IR_V_NODE_ADDR, x, cnt);
	f->rkey = ir_v(IR_V_QBUF_RKEY, p->nodes[x].queue, 0);
	for (int b = 0; b < 4; b++) {
		f->swap_bytes[b] = (uint8_t)((off + cap) >> (24 - 8 * b));
		f->swap_mask_bytes[b] = 0xff;
	}
	uint32_t junk = ir_scratch_alloc(p, 16, 16);
	ir_sge_add(p, f, ir_v(IR_V_SCRATCH_ADDR, 0, junk), 16, ir_v(IR_V_SCRATCH_LKEY, 0, 0));
	if (cnt % 16 != 0 || !lower_cas_patch(p, fid, x, cnt, 16, false, 0))
		return false;
	lower_after_writers(c, x, cnt, 16, fid);
	if (last >= 0)
		ir_add_dep(p, last, fid);
	struct lval capv = {.kind = LV_CONST, .k = cap, .width = n.width, .be = true, .region = -1};
	struct lval over[2] = {n, capv};
	struct lorder ord;
	memset(&ord, 0, sizeof(ord));
	struct lcond co = {.lhs = ne,
	                   .rhs = ne,
	                   .kind = LC_GT,
	                   .ord = &ord,
	                   .vals = over,
	                   .width = n.width,
	                   .loc = ne->loc};
	if (!lower_guard_push(c, &co, NULL, ne->loc))
		return false;
	bool ok = lower_guard(c, fid);
	lower_guard_pop(c, &co);
	/* the response under the enclosing condition, as any return */
	if (!ok || !lower_guard(c, x))
		return false;
	lower_anchor(c, x);
	return !p->oom;
}

/* `return t` of a temporary that holds a value in scratch (an atomic's old
 * value, its home's cell): true with that value in *out; false with
 * *failed set when reading it failed (reported). */
static bool scratch_temp(struct lower_ctx *c, const struct ast_expr *e, struct lval *out,
                         bool *failed)
{
	*failed = false;
	if (e->kind != AST_EXPR_NAME || e->u.name.sym != AST_SYM_LOCAL)
		return false;
	if (!lower_local_value(c, e->u.name.target.local, e->loc, out)) {
		*failed = true;
		return false;
	}
	return out->kind == LV_SCRATCH;
}

/* A response gathering a scratch value (after the atomic that wrote it). */
static int scratch_response(struct lower_ctx *c, const struct ast_stmt *s, const struct lval *v,
                            uint32_t site)
{
	struct ir_prog *p = c->p;
	int x = response(c, site);
	if (x < 0)
		return -1;
	p->nodes[x].loc = s->loc;
	p->nodes[x].what = "return";
	ir_sge_add(p, &p->nodes[x], ir_v(IR_V_SCRATCH_ADDR, 0, v->off), v->width,
	           ir_v(IR_V_SCRATCH_LKEY, 0, 0));
	if (v->field_writer >= 0)
		ir_add_dep(p, v->field_writer, x);
	return note_result(c, x, 0, v->width) ? x : -1;
}

/* `return e` where e's byte order is not the declared result's (both
 * 2..8-byte integers or pointers): the value is converted, as a store
 * converts. */
static bool return_swaps(const struct lower_ctx *c, const struct ast_expr *e)
{
	const struct ast_type *rt = c->off->ret_type;
	unsigned w = ast_type_width(e->type);
	enum ast_order eo = ast_type_order(e->type), ro = ast_type_order(rt);
	return w > 1 && w == ast_type_width(rt) && eo != AST_ORDER_NONE && ro != AST_ORDER_NONE &&
	       (eo == AST_ORDER_LE) != (ro == AST_ORDER_LE);
}

/*
 * return e, e in the other byte order: its bytes land reversed in a WRITE's
 * inline data that stores them to scratch, and the response gathers them
 * from there:
 *
 *   lane:  W = WRITE inline [e reversed] -> scratch S
 *   conn:  R = WRITE_IMM [S, w)  (after W)
 */
static int swapped_response(struct lower_ctx *c, const struct ast_stmt *s, uint32_t site)
{
	struct ir_prog *p = c->p;
	const struct ast_expr *e = s->u.return_.value;
	uint32_t w = ast_type_width(e->type);
	struct lval val;
	if (!lower_value(c, e, &val))
		return -1;
	struct ir_node *wn = ir_append(p, c->lane, PRISM_OP_RDMA_WRITE, IR_ROLE_DATA);
	if (!wn)
		return -1;
	int id = wn->id;
	uint32_t off = ir_scratch_alloc(p, w, 8);
	wn->what = "return: convert the byte order";
	wn->loc = s->loc;
	wn->raddr = ir_v(IR_V_SCRATCH_ADDR, 0, off);
	wn->rkey = ir_v(IR_V_SCRATCH_RKEY, 0, 0);
	wn->is_inline = true;
	wn->inline_len = w;
	uint32_t inl = lower_field_off(PRISM_OP_RDMA_WRITE, PRISM_FIELD_RADDR, 8) + 16 + 4;
	if (!lower_delivered(lower_deliver(c, &val, id, inl, true)))
		return -1;
	struct lval sv = {.kind = LV_SCRATCH,
	                  .read = -1,
	                  .off = off,
	                  .width = w,
	                  .region = -1,
	                  .taint = val.taint,
	                  .field_writer = id};
	return scratch_response(c, s, &sv, site);
}

/*
 * return e:
 *
 *   lane:  READ(ptr) ──scatter──► R.sge.addr        (pointer behind the value)
 *          [guard CAS on R.ctrl]                    (inside an `if`)
 *   conn:  R = WRITE_IMM [ptr, off + w) ─► client response buffer + (X - off),
 *              imm = site
 *
 * The WRITE starts at the pointer (the NIC cannot add the field's offset
 * to a gathered address), so the `off` bytes before the value ride along;
 * its remote address is shifted so that the value of every return lands at
 * the same offset X (the largest `off`): the entry's result field.  A
 * bounded read `e[.. n]` WRITEs n bytes (bounded_return when n is known only
 * at run time).  Inside a loop the return also leaves the loop (as `break`
 * does).
 */

bool lower_return(struct lower_ctx *c, const struct ast_stmt *s)
{
	struct ir_prog *p = c->p;
	const struct ast_expr *e = s->u.return_.value;
	uint32_t site = lower_return_site(c, s->loc);
	if (!site)
		return false;
	struct lval ptr;
	uint32_t off = 0, w = 0;
	struct lval tmpv;
	bool tmp_failed = false;
	const struct lval *tmp = e && scratch_temp(c, e, &tmpv, &tmp_failed) ? &tmpv : NULL;
	if (tmp_failed)
		return false;
	bool swap = e && return_swaps(c, e);
	if (e && !tmp && !swap && !return_place(c, e, &ptr, &off, &w))
		return false;
	const struct ast_expr *len = e && e->kind == AST_EXPR_SLICE ? e->u.slice.len : NULL;
	bool bounded = len && !len->is_const;
	if (swap) {
		int x = swapped_response(c, s, site);
		if (x < 0 || !lower_guard(c, x))
			return false;
		lower_anchor(c, x);
		if (!c->loop && !lower_cond_top(c)) {
			c->last_was_return = true;
			p->nodes[x].signaled = true;
		}
	} else if (bounded) {
		if (!bounded_return(c, s, e, &ptr, off, w, site))
			return false;
	} else {
		struct ldeliv dptr;
		uint32_t n = len ? (uint32_t)len->value : w;
		int x = tmp ? scratch_response(c, s, tmp, site)
		            : value_response(c, s, e ? &ptr : NULL, off, off + n, w, site, &dptr);
		/* the guard first: lane 0 enables the response after its anchor */
		if (x < 0 || !lower_guard(c, x))
			return false;
		lower_anchor(c, x);
		if (!c->loop && !lower_cond_top(c)) {
			c->last_was_return = true;
			p->nodes[x].signaled = true;
		}
	}
	if (c->loop)
		return lower_leave_loop(c, s->loc, "return") && !p->oom;
	return !p->oom;
}

/* Every return's value at one offset X of the response buffer: the entry's
 * result field is [X, X + widest value). */
static void lower_place_results(struct lower_ctx *c)
{
	struct ir_prog *p = c->p;
	uint32_t x = 0, w = 0;
	for (unsigned i = 0; i < c->n_results; i++) {
		x = c->results[i].off > x ? c->results[i].off : x;
		w = c->results[i].width > w ? c->results[i].width : w;
	}
	for (unsigned i = 0; i < c->n_results; i++)
		p->nodes[c->results[i].node].raddr.k = x - c->results[i].off;
	p->result_off = x;
	p->result_width = w;
	/* returns agree on the width (checker) and each ends within
	 * CHAINOBJ_MAX_MSG (lower_return), so x + w does too */
	if (c->n_results)
		p->resp_size = x + w;
}

bool lower_final_response(struct lower_ctx *c)
{
	struct ir_prog *p = c->p;
	lower_place_results(c);
	if (c->last_was_return)
		return true;
	int f = response(c, 0);
	if (f < 0)
		return false;
	p->nodes[f].what = "end of invocation";
	p->nodes[f].signaled = true;
	if (p->resp_size == 0) {
		/* no response buffer: a zero-length WRITE_IMM touches no memory and
		 * needs no key (InfiniBand: an R_Key is checked only when bytes move) */
		p->nodes[f].raddr = IR_CONST(0);
		p->nodes[f].rkey = IR_CONST(0);
	}
	lower_anchor(c, f);
	if (!lower_join_loop_lanes(c))
		return false;
	/* join: the response goes after every lane's last node (a queue a loop
	 * may leave early is joined through its continuation queue) */
	for (unsigned q = 0; q < p->n_queues; q++)
		if (p->queues[q].role == IR_Q_LANE && p->queues[q].n && !p->queues[q].halts)
			ir_add_dep(p, p->queues[q].nodes[p->queues[q].n - 1], f);
	return !p->oom;
}

/* The target of a store / atomic: pointer delivered into raddr, plus the
 * field's offset. */
static bool target_addr_at(struct lower_ctx *c, const struct ast_expr *t, int node, uint8_t op,
                           uint32_t extra);

bool lower_target_addr(struct lower_ctx *c, const struct ast_expr *t, int node, uint8_t op)
{
	return target_addr_at(c, t, node, op, 0);
}

/* The address of byte `extra` of place t into node's raddr. */
static bool target_addr_at(struct lower_ctx *c, const struct ast_expr *t, int node, uint8_t op,
                           uint32_t extra)
{
	struct ir_prog *p = c->p;
	struct lval ptr;
	uint32_t off;
	if (t->place != AST_PLACE_MEMORY) {
		lower_error(c, t->loc, "the target must be memory in a declared region");
		return false;
	}
	if (!lower_place(c, t, &ptr, &off))
		return false;
	off += extra;
	if (ptr.region < 0 || !p->regions[ptr.region].writable) {
		lower_error(c, t->loc, "the target region is not writable");
		return false;
	}
	p->nodes[node].rkey = ir_v(IR_V_REGION_RKEY, ptr.region, 0);
	p->nodes[node].raddr = ir_v(IR_V_RUNTIME, 0, 0);
	c->wrote_region = ptr.region;
	p->regions[ptr.region].access_used |= op == PRISM_OP_RDMA_WRITE ? 2u : 4u;
	uint32_t ra = lower_field_off(op, PRISM_FIELD_RADDR, 8);
	struct ldeliv dp = lower_deliver(c, &ptr, node, ra, !ptr.be);
	if (!lower_delivered(dp))
		return false;
	if (off == 0)
		return true;
	/* the field offset is added in place: a loop value that landed here
	 * first is copied to scratch before, where later uses find it */
	int writer = dp.writer;
	struct lphi *ph = ptr.kind == LV_PHI ? &c->phis[ptr.phi] : NULL;
	if (ph && ph->landed_target == node && ph->landed_copy < 0) {
		struct ir_node *cp = ir_append(p, c->lane, PRISM_OP_RDMA_READ, IR_ROLE_DATA);
		if (!cp)
			return false;
		cp->what = "keep a loop value (its field is rewritten)";
		cp->raddr = ir_v(IR_V_NODE_ADDR, node, ra);
		cp->rkey = ir_v(IR_V_QBUF_RKEY, p->nodes[node].queue, 0);
		uint32_t keep = ir_scratch_alloc(p, 8, 8);
		ir_sge_add(p, cp, ir_v(IR_V_SCRATCH_ADDR, 0, keep), 8,
		           ir_v(IR_V_SCRATCH_LKEY, 0, 0));
		ph->landed_copy = cp->id;
		ph->landed_scratch = keep;
		lower_after_writers(c, node, ra, 8, cp->id);
		writer = cp->id; /* the add waits for the copy */
	}
	return pointer_offset(c, node, ra, off, writer);
}

/*
 * A store wider than a WRITE's inline data (64 bytes): one WRITE per
 * 64-byte part, each to the place plus the part's offset, each with its
 * part of the value (read before any of them runs: the READs come first
 * in the lane).  `first` is the WRITE already appended for part 0.
 *
 *   lane: READ(value) .. WRITE [ptr + off, 64 B]  WRITE [ptr + off + 64, ..] ..
 */
static bool store_parts(struct lower_ctx *c, const struct ast_stmt *s, int first,
                        const struct lval *value, uint32_t width)
{
	struct ir_prog *p = c->p;
	const struct ast_expr *t = s->u.assign.target;
	uint32_t cap = sizeof(p->nodes[first].inline_data);
	struct lval val = *value;
	if (val.kind == LV_PARAM && !lower_param_in_scratch(c, &val, &val))
		return false;
	if (val.kind != LV_MEM && val.kind != LV_SCRATCH && val.kind != LV_FIELD) {
		lower_error(c, s->loc,
		            "a store of more than %u bytes takes a parameter or a value in memory",
		            cap);
		return false;
	}
	int ids[64];
	unsigned n = 0;
	for (uint32_t k = 0; k < width; k += cap) {
		if (n == sizeof(ids) / sizeof(ids[0])) {
			lower_error(c, s->loc, "a store of more than %zu bytes is not lowered",
			            (size_t)cap * (sizeof(ids) / sizeof(ids[0])));
			return false;
		}
		int id = first;
		if (k) {
			struct ir_node *w =
			    ir_append(p, c->lane, PRISM_OP_RDMA_WRITE, IR_ROLE_DATA);
			if (!w)
				return false;
			id = w->id;
			w->what = "store (part)";
			w->loc = s->loc;
			if (!target_addr_at(c, t, id, PRISM_OP_RDMA_WRITE, k))
				return false;
		}
		struct lval part = val;
		part.off += k;
		part.width = width - k < cap ? width - k : cap;
		struct ir_node *wn = &p->nodes[id];
		wn->is_inline = true;
		wn->inline_len = part.width;
		uint32_t inl = lower_field_off(PRISM_OP_RDMA_WRITE, PRISM_FIELD_RADDR, 8) + 16 + 4;
		if (!lower_delivered(lower_deliver(c, &part, id, inl, false)))
			return false;
		ids[n++] = id;
	}
	lower_mem_written(c);
	for (unsigned i = 0; i < n; i++)
		if (!lower_guard(c, ids[i]))
			return false;
	return true;
}

/*
 * p.f = v:
 *
 *   lane:  READ(p) ──scatter──► W.raddr    [MFA16 W.raddr += off(f)]
 *          W = WRITE inline [v]            (v: RECV / READ scatter, or a constant)
 *          [guard CAS on W.ctrl]           (inside an `if`)
 *
 * v lands byte-reversed when it and f differ in byte order; later reads of
 * the region read again (mem_epoch).
 */
bool lower_store(struct lower_ctx *c, const struct ast_stmt *s)
{
	struct ir_prog *p = c->p;
	const struct ast_expr *t = s->u.assign.target, *v = s->u.assign.value;
	if (t->place == AST_PLACE_LOCAL) {
		lower_error(c, s->loc, "assigning a variable is not lowered yet (use `let`)");
		return false;
	}
	struct ir_node *w = ir_append(p, c->lane, PRISM_OP_RDMA_WRITE, IR_ROLE_DATA);
	if (!w)
		return false;
	int id = w->id;
	w->what = "store";
	w->loc = s->loc;
	if (!lower_target_addr(c, t, id, PRISM_OP_RDMA_WRITE))
		return false;
	struct lval val;
	if (!lower_value(c, v, &val))
		return false;
	uint32_t width = t->type ? (uint32_t)t->type->size : val.width;
	if (width > sizeof(p->nodes[id].inline_data))
		return store_parts(c, s, id, &val, width);
	struct ir_node *wn = &p->nodes[id];
	wn->is_inline = true;
	wn->inline_len = width;
	if (val.kind == LV_CONST) {
		for (uint32_t j = 0; j < width; j++) /* stored as the target type's bytes */
			wn->inline_data[j] =
			    (uint8_t)(val.k >> (8 * (ast_type_order(t->type) == AST_ORDER_LE
			                                 ? j
			                                 : width - 1 - j)));
	} else {
		/* the bytes land in the WRITE's inline data: RECV or READ scatter,
		 * byte-reversed when the value and the target differ in byte order
		 * (le16 <-> be16 ... le64 <-> be64, a pointer into an `le64 *T`) */
		uint32_t inl = lower_field_off(PRISM_OP_RDMA_WRITE, PRISM_FIELD_RADDR, 8) + 16 + 4;
		bool target_be = ast_type_order(t->type) != AST_ORDER_LE;
		bool swap = width > 1 && val.width == width && val.be != target_be;
		if (!lower_delivered(lower_deliver(c, &val, id, inl, swap)))
			return false;
	}
	/* the guard first: it may read the condition's operands (before the
	 * store runs), then later reads of the region read again */
	bool ok = lower_guard(c, id);
	lower_mem_written(c);
	return ok;
}

static bool call_stmt(struct lower_ctx *c, const struct ast_expr *e)
{
	uint32_t result;
	if (e->kind != AST_EXPR_CALL) {
		lower_error(c, e->loc, "expression statement has no effect");
		return false;
	}
	switch (e->u.call.fn) {
	case AST_BUILTIN_FETCH_ADD:
		return lower_fetch_add(c, e, &result) >= 0;
	case AST_BUILTIN_CAS:
		return lower_cas_stmt(c, e);
	case AST_BUILTIN_CAS_GT:
	case AST_BUILTIN_CAS_LT:
		return lower_cas_order(c, e);
	default:
		lower_error(c, e->loc, "%s is not lowered yet",
		            ast_builtin_table[e->u.call.fn].spelling);
		return false;
	}
}

/*
 * fetch_add(place, delta):
 *
 *   lane: FETCH_ADD place += delta ──old value──► scratch R     (8 bytes)
 *         masked FETCH_ADD (4 bytes, no carry boundary) ──► R   (4 bytes)
 *
 * 8-byte atomics add in host (little-endian) order, the 4-byte masked one
 * in big-endian order (reference/mlx5.md); the addend field is big-endian
 * either way, so a run-time delta lands reversed when it is little-endian.
 * The old value lands in R in the place's own byte order.  Returns the
 * node (or -1); *result: R's offset.
 */
int lower_fetch_add(struct lower_ctx *c, const struct ast_expr *e, uint32_t *result)
{
	struct ir_prog *p = c->p;
	const struct ast_expr *a0 = e->u.call.args;
	const struct ast_expr *a1 = a0 ? a0->arg_next : NULL;
	uint32_t w = a0 && a0->type ? (uint32_t)a0->type->size : 8;
	uint8_t op = w == 4 ? PRISM_OP_ATOMIC_MASKED_FA : PRISM_OP_ATOMIC_FA;
	struct ir_node *n = ir_append(p, c->lane, op, IR_ROLE_DATA);
	if (!n)
		return -1;
	int id = n->id;
	n->what = "fetch_add";
	n->loc = e->loc;
	if (w == 4) {
		n->asize = 4;
		n->opmod = (uint8_t)PRISM_MASKED_OPMOD(2);
		n->swap_mask = IR_CONST(0); /* one field: no carry boundary inside */
	}
	if (!lower_target_addr(c, a0, id, op))
		return -1;
	*result = ir_scratch_alloc(p, 8, 8);
	ir_sge_add(p, &p->nodes[id], ir_v(IR_V_SCRATCH_ADDR, 0, *result), w,
	           ir_v(IR_V_SCRATCH_LKEY, 0, 0));
	/* the addend: a constant in the template, a run-time value scattered
	 * into the atomic segment (big-endian bytes of the integer) */
	struct lval v;
	if (!lower_value(c, a1, &v))
		return -1;
	if (v.kind == LV_CONST) {
		p->nodes[id].swap = IR_CONST(w == 4 ? (uint32_t)v.k : v.k);
	} else {
		if (v.width != w) {
			lower_error(c, a1->loc, "the fetch_add operand has %u bytes, the place %u",
			            v.width, w);
			return -1;
		}
		p->nodes[id].swap = ir_v(IR_V_RUNTIME, 0, 0);
		if (!lower_delivered(lower_deliver(
		        c, &v, id, lower_field_off(op, PRISM_FIELD_ATOMIC_SWAP, (uint8_t)w),
		        !v.be)))
			return -1;
	}
	return lower_guard(c, id) ? id : -1;
}

/* `let old = fetch_add(place, delta)`: the old value, in scratch. */
bool lower_fetch_add_value(struct lower_ctx *c, const struct ast_expr *e, struct lval *out)
{
	uint32_t result;
	int id = lower_fetch_add(c, e, &result);
	if (id < 0)
		return false;
	lower_mem_written(c);
	const struct ast_expr *place = e->u.call.args;
	*out = (struct lval){.kind = LV_SCRATCH,
	                     .read = -1,
	                     .off = result,
	                     .width = (uint32_t)place->type->size,
	                     .be = ast_type_order(place->type) != AST_ORDER_LE,
	                     .region = -1,
	                     .taint = e->taint,
	                     .field_writer = id};
	return !c->p->oom;
}

bool lower_call_stmt(struct lower_ctx *c, const struct ast_expr *e)
{
	bool ok = call_stmt(c, e);
	lower_mem_written(c);
	return ok;
}
