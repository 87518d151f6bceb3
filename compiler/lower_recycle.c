/* SPDX-License-Identifier: MIT */
/*
 * compiler/lower_recycle.c - recycled loops (RedN 3.4, WQ recycling): one
 * lap of the body posted once in a queue of its own, re-run by the NIC.
 *
 * Owns: recognising the loop bodies it can recycle (a pointer walk
 * `while (p.f != x) bound N { p = p.next; }`, or the same with the exit as
 * `while (true) ... { if (p.f == x) { break; } p = p.next; }`), the lap queue with its
 * barriers, the per-lap count advances, the bound test, and the value of the
 * walked pointer after the loop.
 *
 * The lap queue L (managed, overflow ignored, ring = exactly one lap padded
 * with NOPs to a power of two) holds, per lap:
 *
 *   seg A  s0 READ  L.s1.raddr -> scratch P    (p of this lap, for after the loop)
 *          s1 READ  p: f -> C[16..], next -> s1.raddr  (fenced: after s0)
 *          s2 MFA4  C.index += ring                     (C enables the next lap)
 *          s3 MCAS16 C: bytes 16.. == x ? C -> continuation  (the exit test, fenced)
 *          s4 MCAS16 C: index == lap N+1's ? C -> continuation (the bound test)
 *          s5 SEND_EN L through C  (fenced: after s1..s4, C's writers)
 *   seg B  s6 MFA4  s5.index += ring  (for the next lap: s5 already ran in this one)
 *          C  SEND_EN L through the next lap's s5 (fenced: after s6)
 *          NOP  (padding, as many BBs as the ring needs; it runs at the
 *                start of the next lap)
 *
 * SEND_EN indices are absolute and grow every lap, so they are advanced on
 * the NIC by 4-byte masked FETCH_ADDs on the big-endian fields themselves
 * (the sim and the PRM agree: operand byte j meets target byte j).  Every
 * WQE a lap rewrites is fetched only after its writers completed, and every
 * writer is a READ or an atomic of L, so the fence bit orders them (nic
 * model rule 3.2, `fence-waits-for-read`) and no WAIT is needed: C by s5,
 * fenced behind s1..s4; s1 and s5 by the next lap's C, fenced behind s1 and
 * s6 (chain_verify's lap rule checks exactly this).  Nothing in the lap is
 * signaled; the lap CQ only ever receives error completions.  The condition
 * is tested before each lap's body, N + 1 times at most (the last test after
 * the N-th body, as a `while` does); the bound test ends the loop there.
 * The runtime learns the laps run from s5's index (the object's `recycle`
 * entry of L) and advances L's counter by laps x ring.
 *
 * Must not: place barriers outside the lap queue (sched_barrier.c does,
 * and skips L), or compute slots (layout.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/lower.h"
#include "util/array.h"
#include "compiler/sched.h"

#define LAP_OPERAND_OFF 16u /* C's reserved bytes 16-23: the exit operand */
#define LAP_MAX_OPERAND 8u
#define LAP_INDEX_MAX   65535u /* SEND_EN indices compare in 16 bits */
#define MAX_UNROLL      64u    /* lower_loop.c unrolls up to this bound */

struct walk {
	const struct ast_local *p;   /* the walked pointer */
	const struct ast_expr *test; /* p.f */
	const struct ast_expr *x;    /* what p.f is compared with */
	const struct ast_field *key, *next;
	int region;
};

bool lower_mentions_local(const struct ast_expr *e, const struct ast_local *l)
{
	if (!e)
		return false;
	switch (e->kind) {
	case AST_EXPR_NAME:
		return e->u.name.sym == AST_SYM_LOCAL && e->u.name.target.local == l;
	case AST_EXPR_UNARY:
		return lower_mentions_local(e->u.unary.operand, l);
	case AST_EXPR_BINARY:
		return lower_mentions_local(e->u.binary.lhs, l) ||
		       lower_mentions_local(e->u.binary.rhs, l);
	case AST_EXPR_DEREF:
		return lower_mentions_local(e->u.deref.ptr, l);
	case AST_EXPR_FIELD:
		return lower_mentions_local(e->u.field.base, l);
	case AST_EXPR_INDEX:
		return lower_mentions_local(e->u.index.base, l) ||
		       lower_mentions_local(e->u.index.index, l);
	case AST_EXPR_INT:
	case AST_EXPR_BOOL:
	case AST_EXPR_SIZEOF:
		return false;
	default:
		return true; /* conservative: calls, slices */
	}
}

/* `l.f` through a pointer local: the local, else NULL. */
static const struct ast_local *field_of_local(const struct ast_expr *e)
{
	if (e->kind != AST_EXPR_FIELD || !e->u.field.through_ptr || !e->u.field.field)
		return NULL;
	const struct ast_expr *b = e->u.field.base;
	if (b->kind != AST_EXPR_NAME || b->u.name.sym != AST_SYM_LOCAL)
		return NULL;
	return b->u.name.target.local;
}

static bool unsupported(struct lower_ctx *c, struct src_loc loc, const char *what)
{
	lower_error(c, loc,
	            "a recycled loop is lowered for a pointer walk only: `while (p.f != x) "
	            "bound N { p = p.next; }`, or `while (true) bound N { if (p.f == x) { break; } "
	            "p = p.next; }` (%s)",
	            what);
	return false;
}

/* `while (true) ... { if (p.f == x) { break; } p = p.next; }`: the same
 * walk, its exit written as a break.  The exit test, *body receives the rest
 * of the body. */
static const struct ast_expr *break_test(const struct ast_stmt *s, const struct ast_stmt **body)
{
	const struct ast_stmt *b = s->u.while_.body;
	if (!b || b->kind != AST_STMT_IF || b->u.if_.has_else || !b->u.if_.cond)
		return NULL;
	const struct ast_stmt *t = b->u.if_.then_body;
	if (t && t->kind == AST_STMT_BLOCK && !t->next)
		t = t->u.block.body;
	if (!t || t->kind != AST_STMT_BREAK || t->next)
		return NULL;
	const struct ast_expr *e = b->u.if_.cond;
	if (e->kind != AST_EXPR_BINARY || e->u.binary.op != AST_BINOP_EQ)
		return NULL;
	*body = b->next;
	return e;
}

static bool recognise(struct lower_ctx *c, const struct ast_stmt *s, struct walk *w)
{
	const struct ast_expr *cond = s->u.while_.cond;
	const struct ast_stmt *b = s->u.while_.body;
	memset(w, 0, sizeof(*w));
	if (cond->is_const && cond->value) {
		cond = break_test(s, &b);
		if (!cond)
			return unsupported(
			    c, s->loc,
			    "`while (true)` needs the body `if (p.f == x) { break; } "
			    "p = p.next;`");
	} else if (cond->kind != AST_EXPR_BINARY || cond->u.binary.op != AST_BINOP_NE) {
		return unsupported(c, cond->loc, "the condition is not `p.f != x`");
	}
	const struct ast_expr *lhs = cond->u.binary.lhs, *rhs = cond->u.binary.rhs;
	const struct ast_local *pl = field_of_local(lhs);
	w->test = lhs;
	w->x = rhs;
	if (!pl || lower_mentions_local(rhs, pl)) {
		pl = field_of_local(rhs);
		w->test = rhs;
		w->x = lhs;
		if (!pl || lower_mentions_local(lhs, pl))
			return unsupported(
			    c, cond->loc,
			    "one side of the comparison must be a field of the walked pointer, "
			    "the other must not depend on it");
	}
	w->p = pl;
	w->key = w->test->u.field.field;
	if (!b || b->next || b->kind != AST_STMT_ASSIGN)
		return unsupported(c, b ? b->loc : s->loc,
		                   "the body must be the one statement `p = p.next;`");
	const struct ast_expr *t = b->u.assign.target, *v = b->u.assign.value;
	if (t->kind != AST_EXPR_NAME || t->u.name.sym != AST_SYM_LOCAL ||
	    t->u.name.target.local != pl || field_of_local(v) != pl)
		return unsupported(c, b->loc, "the body must assign `p = p.next` to the walked p");
	w->next = v->u.field.field;
	if (!v->type || v->type->kind != AST_TYPE_PTR || v->type->size != 8 ||
	    ast_type_order(v->type) == AST_ORDER_LE)
		return unsupported(
		    c, v->loc,
		    "the next pointer must be an 8-byte big-endian pointer (it lands "
		    "in the READ's address as is)");
	uint64_t kw = w->key->type ? w->key->type->size : 0;
	if (kw == 0 || kw > LAP_MAX_OPERAND)
		return unsupported(c, w->test->loc,
		                   "the compared field must be 1 to 8 bytes (it meets x in a "
		                   "SEND_EN's reserved bytes)");
	uint64_t ko = w->key->offset, no = w->next->offset;
	if (ko < no + 8 && no < ko + kw)
		return unsupported(c, w->test->loc, "the compared field overlaps the next pointer");
	w->region = v->type->region ? (int)v->type->region->index : -1;
	if (w->region < 0)
		return unsupported(c, v->loc, "the pointer must name its region");
	return true;
}

static struct ir_node *lap_node(struct lower_ctx *c, int q, uint8_t op, enum ir_role role,
                                const char *what, int loop, struct src_loc loc)
{
	struct ir_node *n = ir_append(c->p, q, op, role);
	if (n) {
		n->what = what;
		n->loop = loop;
		n->loc = loc;
	}
	return n;
}

/* A 4-byte masked FETCH_ADD of `add` on the be32 index field of `target`. */
static int count_add(struct lower_ctx *c, int q, int target, uint32_t add, const char *what,
                     int loop, struct src_loc loc)
{
	struct ir_prog *p = c->p;
	struct ir_node *n =
	    lap_node(c, q, PRISM_OP_ATOMIC_MASKED_FA, IR_ROLE_DATA, what, loop, loc);
	if (!n)
		return -1;
	int id = n->id;
	uint32_t io = lower_field_off(PRISM_OP_SEND_ENABLE, PRISM_FIELD_WAIT_EN_INDEX, 8);
	n->asize = 4;
	n->opmod = (uint8_t)PRISM_MASKED_OPMOD(2);
	n->raddr = ir_v(IR_V_NODE_ADDR, target, io);
	n->rkey = ir_v(IR_V_QBUF_RKEY, q, 0);
	n->swap = IR_CONST(add);    /* the addend */
	n->swap_mask = IR_CONST(0); /* one field: no carry boundary inside */
	uint32_t res = ir_scratch_alloc(p, 8, 8);
	if (ir_sge_add(p, &p->nodes[id], ir_v(IR_V_SCRATCH_ADDR, 0, res), 4,
	               ir_v(IR_V_SCRATCH_LKEY, 0, 0)) < 0)
		return -1;
	struct ir_patch pt = {
	    .kind = IR_PATCH_CAS, .writer = id, .target = target, .off = io, .len = 4};
	if (ir_add_patch(p, &pt) < 0)
		return -1;
	return id;
}

/* A 16-byte masked CAS on C's bytes 16-31 that retargets C to `cont`. */
static int retarget_cas(struct lower_ctx *c, int q, int cnode, int cont, const char *what, int loop,
                        struct src_loc loc, uint64_t taint)
{
	struct ir_prog *p = c->p;
	struct ir_node *g =
	    lap_node(c, q, PRISM_OP_ATOMIC_MASKED_CS, IR_ROLE_GUARD, what, loop, loc);
	if (!g)
		return -1;
	int id = g->id;
	g->asize = 16;
	g->opmod = (uint8_t)PRISM_MASKED_OPMOD(4);
	g->raddr = ir_v(IR_V_NODE_ADDR, cnode, LAP_OPERAND_OFF);
	g->rkey = ir_v(IR_V_QBUF_RKEY, q, 0);
	memset(g->swap_mask_bytes + 8, 0xff, 8);
	g->swap_idx = ir_v(IR_V_QUEUE_ENTRY, cont, 0);
	g->swap_obj = ir_v(IR_V_QPN, cont, 0);
	uint32_t res = ir_scratch_alloc(p, 16, 16);
	if (ir_sge_add(p, &p->nodes[id], ir_v(IR_V_SCRATCH_ADDR, 0, res), 16,
	               ir_v(IR_V_SCRATCH_LKEY, 0, 0)) < 0)
		return -1;
	struct ir_patch pt = {.kind = IR_PATCH_CAS,
	                      .writer = id,
	                      .target = cnode,
	                      .off = LAP_OPERAND_OFF,
	                      .len = 16,
	                      .control = true,
	                      .taint = taint};
	return ir_add_patch(p, &pt) < 0 ? -1 : id;
}

/* BBs of queue q's nodes as they encode now (sizes do not depend on values). */
static int lap_bbs(struct lower_ctx *c, int q, uint32_t *out)
{
	struct ir_prog *p = c->p;
	uint32_t bbs = 0;
	for (unsigned i = 0; i < p->queues[q].n; i++) {
		struct prism_wqe w;
		uint8_t buf[PRISM_WQE_MAX_BYTES];
		struct prism_wqe_diag d;
		emit_node_wqe(p, &p->nodes[p->queues[q].nodes[i]], &w);
		int len = prism_wqe_encode(&w, buf, sizeof(buf), &d);
		if (len < 0)
			return -1;
		bbs += prism_wqe_bbs((uint32_t)len / PRISM_WQE_DS_BYTES);
	}
	*out = bbs;
	return 0;
}

/* The walk READ's scatter: the compared field into C's operand bytes, the
 * next pointer into its own address, gaps (from the node start) into junk. */
static bool walk_scatter(struct lower_ctx *c, const struct walk *w, int rd, int cnode,
                         uint64_t taint)
{
	struct ir_prog *p = c->p;
	struct span {
		uint32_t off, len;
		int target;
		uint32_t toff;
	} sp[2];
	uint32_t ko = (uint32_t)w->key->offset, kw = (uint32_t)w->key->type->size;
	uint32_t no = (uint32_t)w->next->offset;
	uint32_t ro = lower_field_off(PRISM_OP_RDMA_READ, PRISM_FIELD_RADDR, 8);
	struct span k = {ko, kw, cnode, LAP_OPERAND_OFF}, n = {no, 8, rd, ro};
	/* bytes between the field and a later next pointer ride along into
	 * C's unused operand bytes (the compare mask skips them) */
	if (ko < no && no - ko <= LAP_MAX_OPERAND)
		k.len = no - ko;
	sp[0] = ko < no ? k : n;
	sp[1] = ko < no ? n : k;
	uint32_t cur = 0, junk_len = 0;
	for (int i = 0; i < 2; i++) {
		if (sp[i].off > cur && sp[i].off - cur > junk_len)
			junk_len = sp[i].off - cur;
		cur = sp[i].off + sp[i].len;
	}
	uint32_t junk = junk_len ? ir_scratch_alloc(p, junk_len, 8) : 0;
	cur = 0;
	for (int i = 0; i < 2; i++) {
		if (sp[i].off > cur &&
		    ir_sge_add(p, &p->nodes[rd], ir_v(IR_V_SCRATCH_ADDR, 0, junk), sp[i].off - cur,
		               ir_v(IR_V_SCRATCH_LKEY, 0, 0)) < 0)
			return false;
		if (ir_scatter_into(p, rd, sp[i].target, sp[i].toff, sp[i].len, taint) < 0)
			return false;
		cur = sp[i].off + sp[i].len;
	}
	return !p->oom;
}

/*
 * The walk's inputs (the start pointer into s1.raddr, x into s3's compare)
 * are delivered by lane 0, which then enables the lap queue; the lane goes
 * on in the continuation queue the exits enable (the lap picture above):
 *
 *   w0:   deliver p0, x ─► SEND_EN L (first lap)
 *   L:    lap, lap, ... ─(exit or bound)─► SEND_EN w0c
 */
bool lower_recycle(struct lower_ctx *c, const struct ast_stmt *s)
{
	struct ir_prog *p = c->p;
	uint64_t bound = s->u.while_.bound;
	if (p->profile == IR_PROFILE_STRICT) {
		lower_error(
		    c, s->loc,
		    "a recycled loop needs the relaxed firmware profile: its lap queue re-runs "
		    "the same WQEs, whose control-segment index then no longer matches the "
		    "queue's counter, which stock firmware rejects (RedN 3.4 needed the same "
		    "setting); %s",
		    bound <= MAX_UNROLL ? "drop `recycle` to unroll the loop"
		                        : "a bound of at most 64 unrolls the loop");
		return false;
	}
	if (!(c->prog->assumes & AST_ASSUME_FENCED_ENABLE)) {
		lower_error(
		    c, s->loc,
		    "a recycled loop's lap orders its SEND_ENs with fence bits, which no "
		    "public source shows to hold a SEND_EN's fetch (docs/nic-model.md "
		    "3.15a): declare `assume fenced_enable;` to rely on it (the loader then "
		    "needs a device whose probe confirmed it), %s",
		    bound <= MAX_UNROLL ? "or drop `recycle` to unroll the loop"
		                        : "or use a bound of at most 64 to unroll the loop");
		return false;
	}
	if (p->n_loops) {
		lower_error(c, s->loc,
		            "a recycled loop must be the only loop of its offload (the runtime "
		            "learns one loop exit and one lap count per invocation)");
		return false;
	}
	struct walk w;
	if (!recognise(c, s, &w))
		return false;
	struct lval p0, xv;
	if (!lower_local_value(c, w.p, s->loc, &p0))
		return false;
	if (!lower_value(c, w.x, &xv))
		return false;
	uint32_t kw = (uint32_t)w.key->type->size;
	if (xv.kind == LV_CONST) { /* a literal takes the field's width and order */
		if (kw < 8 && (xv.k >> (8 * kw))) {
			lower_error(c, w.x->loc, "the constant does not fit the %u-byte field", kw);
			return false;
		}
		xv.width = kw;
		xv.be = ast_type_order(w.key->type) != AST_ORDER_LE;
	}
	if (xv.width != kw) {
		lower_error(c, w.x->loc, "the loop exit compares %u bytes with %u bytes", kw,
		            xv.width);
		return false;
	}

	char name[16];
	snprintf(name, sizeof(name), "w0r%u", p->n_loops);
	int lq = ir_add_queue(p, name, IR_Q_LANE, 0, true);
	snprintf(name, sizeof(name), "w0c%u", p->n_loops);
	int cq = ir_add_queue(p, name, IR_Q_LANE, 0, true);
	if (lq < 0 || cq < 0)
		return false;
	p->queues[lq].no_entry = true;
	p->queues[lq].halts = true;
	p->queues[lq].lap = true;
	p->queues[lq].cont = cq;
	p->queues[cq].no_entry = true;
	int loop = ir_add_loop(p, (uint32_t)bound, s->loc);
	if (loop < 0)
		return false;
	struct src_loc loc = s->loc, cloc = s->u.while_.cond->loc;
	uint64_t taint = p0.taint | xv.taint;

	/* the lap, in order; C first allocated so that the others can name it */
	struct ir_node *n;
	uint32_t stash = ir_scratch_alloc(p, 8, 8);
	int s0 = (n = lap_node(c, lq, PRISM_OP_RDMA_READ, IR_ROLE_DATA, "lap: keep p", loop, loc))
	             ? n->id
	             : -1;
	int s1 =
	    (n = lap_node(c, lq, PRISM_OP_RDMA_READ, IR_ROLE_DATA, "lap: p = p.next", loop, loc))
	        ? n->id
	        : -1;
	if (s0 < 0 || s1 < 0)
		return false;
	struct ir_node *cn_tmp = ir_append(p, lq, PRISM_OP_SEND_ENABLE, IR_ROLE_EXIT);
	if (!cn_tmp)
		return false;
	int cnode = cn_tmp->id;
	p->queues[lq].n--; /* appended for real after seg B */
	uint32_t ro = lower_field_off(PRISM_OP_RDMA_READ, PRISM_FIELD_RADDR, 8);
	n = &p->nodes[s0];
	n->raddr = ir_v(IR_V_NODE_ADDR, s1, ro);
	n->rkey = ir_v(IR_V_QBUF_RKEY, lq, 0);
	if (ir_sge_add(p, n, ir_v(IR_V_SCRATCH_ADDR, 0, stash), 8, ir_v(IR_V_SCRATCH_LKEY, 0, 0)) <
	    0)
		return false;
	n = &p->nodes[s1];
	n->raddr = ir_v(IR_V_RUNTIME, 0, 0);
	n->rkey = ir_v(IR_V_REGION_RKEY, w.region, 0);
	n->fence = PRISM_FENCE_SMALL_AND_FENCE; /* after s0 copied the address */
	p->regions[w.region].access_used |= 1u;
	if (!walk_scatter(c, &w, s1, cnode, taint))
		return false;
	int s2 = count_add(c, lq, cnode, 0, "lap: next lap's enable", loop, loc);
	int s3 = retarget_cas(c, lq, cnode, cq, "lap: exit test", loop, cloc, taint);
	int s4 = retarget_cas(c, lq, cnode, cq, "lap: bound test", loop, loc, 0);
	if (s2 < 0 || s3 < 0 || s4 < 0)
		return false;
	n = &p->nodes[s3];
	n->fence = PRISM_FENCE_SMALL_AND_FENCE; /* after s1 landed the operand */
	memset(n->compare_mask_bytes, 0xff, kw);
	n = &p->nodes[s4];
	n->compare_mask_bytes[10] = 0xff; /* C's index, low 16 bits */
	n->compare_mask_bytes[11] = 0xff;
	struct ir_node *en = lap_node(c, lq, PRISM_OP_SEND_ENABLE, IR_ROLE_BARRIER_EN,
	                              "lap: enable the exit", loop, loc);
	if (!en)
		return false;
	int s5 = en->id;
	en->fence = PRISM_FENCE_SMALL_AND_FENCE; /* after s1..s4 wrote C */
	en->we_index = ir_v(IR_V_ENABLE_THROUGH, cnode, 0);
	en->we_obj = ir_v(IR_V_QPN, lq, 0);
	int s6 = count_add(c, lq, s5, 0, "lap: next lap's enable", loop, loc);
	if (s6 < 0)
		return false;
	/* C, at the end of the lap */
	struct ir_queue *q = &p->queues[lq];
	if (!ARRAY_RESERVE(q->nodes, q->cap, q->n + 1)) {
		p->oom = true;
		return false;
	}
	q->nodes[q->n++] = cnode;
	n = &p->nodes[cnode];
	n->what = "lap: next lap / exit";
	n->loop = loop;
	n->loc = cloc;
	n->fence = PRISM_FENCE_SMALL_AND_FENCE; /* after s6 */
	n->we_index = ir_v(IR_V_ENABLE_THROUGH, s5, 0);
	n->we_obj = ir_v(IR_V_QPN, lq, 0);

	/* pad the lap to a power of two: the ring is exactly one lap */
	uint32_t bbs, ring = 1, lap_wrs = p->queues[lq].n;
	if (lap_bbs(c, lq, &bbs) < 0) {
		lower_error(c, loc, "internal: a lap WQE does not encode");
		return false;
	}
	while (ring < bbs)
		ring <<= 1;
	/* one NOP covers up to 15 BBs (a 6-bit ds): one WQE a lap, not one a BB */
	for (uint32_t left = ring - bbs; left;) {
		uint32_t span = left < 15 ? left : 15;
		struct ir_node *pad =
		    lap_node(c, lq, PRISM_OP_NOP, IR_ROLE_DATA, "lap: padding", loop, loc);
		if (!pad)
			return false;
		pad->nop_ds = (uint8_t)(span * (PRISM_WQE_BB / PRISM_WQE_DS_BYTES));
		left -= span;
	}
	if ((bound + 1) * ring > LAP_INDEX_MAX) {
		lower_error(c, s->u.while_.bound_expr ? s->u.while_.bound_expr->loc : loc,
		            "bound %llu is too large to recycle: %llu laps of %u WQE blocks exceed "
		            "the 16-bit SEND_EN index the bound test compares (at most %u laps)",
		            (unsigned long long)bound, (unsigned long long)bound + 1, ring,
		            LAP_INDEX_MAX / ring - 1);
		return false;
	}
	p->nodes[s2].swap = IR_CONST(ring);
	p->nodes[s6].swap = IR_CONST(ring);
	/* lap j's C (after s2) enables through base + s5's end + (j + 1) * ring;
	 * the (bound + 1)-th lap is the last */
	p->nodes[s4].cmp_idx = ir_v(IR_V_ENABLE_THROUGH, s5, (bound + 1) * ring);
	q = &p->queues[lq];
	q->lap_counter = s5;
	q->lap_bound = (uint32_t)bound + 1;

	/* inputs, delivered once per invocation by lane 0 (or the RECV) before
	 * it enables the first lap */
	uint32_t cmp = lower_field_off(PRISM_OP_ATOMIC_MASKED_CS, PRISM_FIELD_ATOMIC_COMPARE, 16);
	struct ldeliv dp = lower_deliver(c, &p0, s1, ro, !p0.be);
	if (dp.kind == LD_FAILED)
		return false;
	if (dp.kind == LD_CONST) {
		lower_error(c, s->loc, "the walk must start from a run-time pointer");
		return false;
	}
	struct ldeliv dx = lower_deliver(c, &xv, s3, cmp, false);
	if (dx.kind == LD_FAILED)
		return false;
	if (dx.kind == LD_CONST) { /* a constant: straight into the template */
		for (uint32_t j = 0; j < kw; j++)
			p->nodes[s3].compare_bytes[j] =
			    (uint8_t)(xv.k >> (8 * (xv.be ? kw - 1 - j : j)));
	}
	struct ir_node *enter = ir_append(p, c->lane, PRISM_OP_SEND_ENABLE, IR_ROLE_BARRIER_EN);
	if (!enter)
		return false;
	int eid = enter->id;
	enter->we_index = ir_v(IR_V_ENABLE_THROUGH, s5, 0);
	enter->we_obj = ir_v(IR_V_QPN, lq, 0);
	enter->what = "enter the recycled loop";
	enter->loc = loc;
	if (dp.kind == LD_NODE)
		ir_add_dep(p, dp.writer, eid);
	if (dx.kind == LD_NODE)
		ir_add_dep(p, dx.writer, eid);
	if (ir_add_exit(p, s3, cnode, loop, -1) < 0)
		return false;
	p->loops[loop].wr_per_iter = lap_wrs;

	/* after the loop, p is the node of the lap that exited (s0 kept it) */
	struct lval after = {.kind = LV_SCRATCH,
	                     .off = stash,
	                     .width = 8,
	                     .be = true,
	                     .region = w.region,
	                     .taint = p0.taint,
	                     .read = -1,
	                     .field_writer = s0};
	c->lane = cq;
	p->q_main = cq;
	return lower_assign_local(c, w.p, &after, s->loc) && !p->oom;
}
