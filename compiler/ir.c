/* SPDX-License-Identifier: MIT */
/*
 * compiler/ir.c - chain IR storage, builders and the text printer.
 *
 * Owns: growth of the node / queue / patch / dep arrays (sticky `oom`), the
 * scatter and RECV helpers that keep a node's fields and its patch records in
 * step, and ir_snprint (the IR as text for tests and --emit-ir).
 *
 * Must not: decide placement (sched_*.c, layout.c) or encode bytes (emit.c).
 */
#include "compiler/ir.h"
#include "util/array.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const val_names[IR_V__COUNT] = {
#define IR_X_NAME(e, name) [IR_V_##e] = name,
    IR_VAL_KINDS(IR_X_NAME)
#undef IR_X_NAME
};

static const char *const role_names[IR_ROLE__COUNT] = {
#define IR_X_NAME(e, name) [IR_ROLE_##e] = name,
    IR_ROLES(IR_X_NAME)
#undef IR_X_NAME
};

const char *ir_val_kind_name(enum ir_val_kind k)
{
	return (unsigned)k < IR_V__COUNT ? val_names[k] : "?";
}

const char *ir_role_name(enum ir_role r)
{
	return (unsigned)r < IR_ROLE__COUNT ? role_names[r] : "?";
}

/* Room for element @n of @arr (ARRAY_RESERVE); a failure is sticky in
 * p->oom, and nothing is added after one. */
#define GROW(p, arr, n, cap)                                                                       \
	(!(p)->oom && (ARRAY_RESERVE(arr, cap, (size_t)(n) + 1) || ((p)->oom = true, false)))

struct ir_prog *ir_prog_new(const char *name, enum ir_profile profile)
{
	struct ir_prog *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->name = name;
	p->profile = profile;
	p->q_ctl = ir_add_queue(p, "ctl", IR_Q_CTL, 0, false);
	p->q_conn = ir_add_queue(p, "conn", IR_Q_CONN, 0, true);
	p->q_main = ir_add_queue(p, "w0", IR_Q_LANE, 0, true);
	if (p->oom) {
		ir_prog_free(p);
		return NULL;
	}
	return p;
}

void ir_prog_free(struct ir_prog *p)
{
	if (!p)
		return;
	for (unsigned i = 0; i < p->n_queues; i++)
		free(p->queues[i].nodes);
	free(p->queues);
	free(p->nodes);
	free(p->patches);
	free(p->deps);
	free(p->regions);
	free(p->params);
	free(p->loops);
	free(p->exits);
	free(p->scratch_init);
	free(p);
}

int ir_add_queue(struct ir_prog *p, const char *name, enum ir_qrole role, unsigned lane,
                 bool managed)
{
	if (!GROW(p, p->queues, p->n_queues, p->cap_queues))
		return -1;
	struct ir_queue *q = &p->queues[p->n_queues];
	memset(q, 0, sizeof(*q));
	snprintf(q->name, sizeof(q->name), "%s", name);
	q->role = role;
	q->lane = lane;
	q->managed = managed;
	q->entry_end = -1;
	return (int)p->n_queues++;
}

int ir_lane_queue(struct ir_prog *p, unsigned lane)
{
	for (unsigned i = 0; i < p->n_queues; i++)
		if (p->queues[i].role == IR_Q_LANE && p->queues[i].lane == lane)
			return (int)i;
	char name[16];
	snprintf(name, sizeof(name), "w%u", lane);
	return ir_add_queue(p, name, IR_Q_LANE, lane, true);
}

static struct ir_node *new_node(struct ir_prog *p, int q, uint8_t op, enum ir_role role)
{
	if (q < 0 || (unsigned)q >= p->n_queues)
		return NULL;
	if (!GROW(p, p->nodes, p->n_nodes, p->cap_nodes))
		return NULL;
	struct ir_queue *qq = &p->queues[q];
	if (!GROW(p, qq->nodes, qq->n, qq->cap))
		return NULL;
	struct ir_node *n = &p->nodes[p->n_nodes];
	memset(n, 0, sizeof(*n));
	n->id = (int)p->n_nodes++;
	n->queue = q;
	n->role = role;
	n->op = op;
	n->tmpl_op = op;
	n->loop = -1;
	n->iter = -1;
	n->asize = 8;
	return n;
}

struct ir_node *ir_append(struct ir_prog *p, int q, uint8_t op, enum ir_role role)
{
	struct ir_node *n = new_node(p, q, op, role);
	if (!n)
		return NULL;
	struct ir_queue *qq = &p->queues[q];
	n->pos = (int)qq->n;
	qq->nodes[qq->n++] = n->id;
	return n;
}

struct ir_node *ir_insert(struct ir_prog *p, int q, unsigned pos, uint8_t op, enum ir_role role)
{
	struct ir_node *n = new_node(p, q, op, role);
	if (!n)
		return NULL;
	struct ir_queue *qq = &p->queues[q];
	if (pos > qq->n)
		pos = qq->n;
	memmove(&qq->nodes[pos + 1], &qq->nodes[pos], (qq->n - pos) * sizeof(int));
	qq->nodes[pos] = n->id;
	qq->n++;
	for (unsigned i = pos; i < qq->n; i++)
		p->nodes[qq->nodes[i]].pos = (int)i;
	return n;
}

int ir_add_patch(struct ir_prog *p, const struct ir_patch *pt)
{
	if (!GROW(p, p->patches, p->n_patches, p->cap_patches))
		return -1;
	p->patches[p->n_patches] = *pt;
	return (int)p->n_patches++;
}

int ir_add_dep(struct ir_prog *p, int from, int to)
{
	for (unsigned i = 0; i < p->n_deps; i++)
		if (p->deps[i].from == from && p->deps[i].to == to)
			return (int)i;
	if (!GROW(p, p->deps, p->n_deps, p->cap_deps))
		return -1;
	p->deps[p->n_deps].from = from;
	p->deps[p->n_deps].to = to;
	return (int)p->n_deps++;
}

int ir_add_region(struct ir_prog *p, const char *name, uint64_t size, bool writable)
{
	unsigned cap = p->n_regions;
	if (!GROW(p, p->regions, p->n_regions, cap))
		return -1;
	/* exact-size growth: regions are added once, before lowering */
	struct ir_region *r = &p->regions[p->n_regions];
	r->name = name;
	r->size = size;
	r->writable = writable;
	r->access_used = 0;
	return (int)p->n_regions++;
}

int ir_add_loop(struct ir_prog *p, uint32_t bound, struct src_loc loc)
{
	if (!GROW(p, p->loops, p->n_loops, p->cap_loops))
		return -1;
	struct ir_loop *l = &p->loops[p->n_loops];
	l->id = (int)p->n_loops;
	l->bound = bound;
	l->loc = loc;
	return (int)p->n_loops++;
}

int ir_add_exit(struct ir_prog *p, int response, int halt, int loop, int iter)
{
	if (!GROW(p, p->exits, p->n_exits, p->cap_exits))
		return -1;
	p->exits[p->n_exits].response = response;
	p->exits[p->n_exits].halt = halt;
	p->exits[p->n_exits].loop = loop;
	p->exits[p->n_exits].iter = iter;
	p->nodes[response].exit_id = p->n_exits + 1;
	return (int)p->n_exits++;
}

uint32_t ir_scratch_alloc(struct ir_prog *p, uint32_t len, uint32_t align)
{
	if (align == 0)
		align = 1;
	uint32_t off = (p->scratch_size + align - 1) / align * align;
	p->scratch_size = off + len;
	return off;
}

int ir_scratch_init(struct ir_prog *p, uint32_t off, const uint8_t *bytes, uint32_t len)
{
	uint32_t end = off + len;
	if (end > p->scratch_init_len) {
		uint8_t *n = realloc(p->scratch_init, end);
		if (!n) {
			p->oom = true;
			return -1;
		}
		memset(n + p->scratch_init_len, 0, end - p->scratch_init_len);
		p->scratch_init = n;
		p->scratch_init_len = end;
	}
	memcpy(p->scratch_init + off, bytes, len);
	return 0;
}

int ir_sge_add(struct ir_prog *p, struct ir_node *n, struct ir_val addr, uint32_t len,
               struct ir_val key)
{
	if (n->nsge >= IR_MAX_SGE) {
		p->oom = true; /* callers check the count first; this is a bug guard */
		return -1;
	}
	n->sge[n->nsge].addr = addr;
	n->sge[n->nsge].len = len;
	n->sge[n->nsge].key = key;
	return n->nsge++;
}

int ir_scatter_into(struct ir_prog *p, int writer, int target, uint32_t off, uint32_t len,
                    uint64_t taint)
{
	struct ir_node *w = &p->nodes[writer];
	if (w->nsge >= IR_MAX_SGE)
		return -1;
	int tq = p->nodes[target].queue;
	int s =
	    ir_sge_add(p, w, ir_v(IR_V_NODE_ADDR, target, off), len, ir_v(IR_V_QBUF_LKEY, tq, 0));
	if (s < 0)
		return -1;
	bool atomic = w->op == PRISM_OP_ATOMIC_CS || w->op == PRISM_OP_ATOMIC_FA ||
	              w->op == PRISM_OP_ATOMIC_MASKED_CS || w->op == PRISM_OP_ATOMIC_MASKED_FA;
	struct ir_patch pt = {
	    .kind = atomic ? IR_PATCH_ATOMIC_RESULT : IR_PATCH_READ_SCATTER,
	    .writer = writer,
	    .writer_sge = s,
	    .target = target,
	    .off = off,
	    .len = len,
	    .taint = taint,
	};
	if (ir_add_patch(p, &pt) < 0)
		return -1;
	return s;
}

int ir_recv_into(struct ir_prog *p, int param, uint32_t copy, uint32_t len, struct ir_val dst,
                 int target, uint32_t off, uint64_t taint)
{
	if (p->n_recv >= IR_MAX_SGE)
		return -1;
	struct ir_recv_sge *r = &p->recv[p->n_recv];
	r->msg_off = 0; /* assigned by lower_params_layout */
	r->len = len;
	r->dst = dst;
	r->param = param;
	r->copy = copy;
	if (target >= 0) {
		struct ir_patch pt = {
		    .kind = IR_PATCH_RECV_SCATTER,
		    .writer = IR_RECV,
		    .writer_sge = (int)p->n_recv,
		    .target = target,
		    .off = off,
		    .len = len,
		    .taint = taint,
		};
		if (ir_add_patch(p, &pt) < 0)
			return -1;
	}
	return (int)p->n_recv++;
}

bool ir_node_patched(const struct ir_prog *p, int id)
{
	for (unsigned i = 0; i < p->n_patches; i++)
		if (p->patches[i].target == id)
			return true;
	return false;
}

void ir_count_classes(const struct ir_prog *p, unsigned *copy, unsigned *atomic, unsigned *ordering)
{
	unsigned c = 0, a = 0, o = 0;
	for (unsigned i = 0; i < p->n_nodes; i++) {
		const struct prism_opcode_info *info = prism_opcode_info(p->nodes[i].op);
		if (!info)
			continue;
		if (info->cls == PRISM_CLASS_COPY)
			c++;
		else if (info->cls == PRISM_CLASS_ATOMIC)
			a++;
		else
			o++;
	}
	*copy = c;
	*atomic = a;
	*ordering = o;
}

/* ---- printer ------------------------------------------------------------------ */

struct sbuf {
	char *out;
	size_t cap, len;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t room = b->len < b->cap ? b->cap - b->len : 0;
	int n = vsnprintf(room ? b->out + b->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n;
}

static void sb_val(struct sbuf *b, const struct ir_val *v)
{
	switch (v->kind) {
	case IR_V_NONE:
		sb_printf(b, "-");
		return;
	case IR_V_CONST:
		sb_printf(b, "%#llx", (unsigned long long)v->k);
		return;
	default:
		sb_printf(b, "%s(%d", ir_val_kind_name(v->kind), v->a);
		if (v->k)
			sb_printf(b, ",%#llx", (unsigned long long)v->k);
		sb_printf(b, ")");
	}
}

size_t ir_snprint(const struct ir_prog *p, char *out, size_t cap)
{
	struct sbuf b = {out, cap, 0};
	if (cap)
		out[0] = 0;
	sb_printf(&b, "program %s profile %s\n", p->name ? p->name : "?",
	          p->profile == IR_PROFILE_STRICT ? "strict" : "relaxed");
	for (unsigned qi = 0; qi < p->n_queues; qi++) {
		const struct ir_queue *q = &p->queues[qi];
		sb_printf(&b, "queue %s%s\n", q->name, q->managed ? " managed" : "");
		for (unsigned i = 0; i < q->n; i++) {
			const struct ir_node *n = &p->nodes[q->nodes[i]];
			sb_printf(&b, "  n%d %s %s", n->id, prism_opcode_name(n->op),
			          ir_role_name(n->role));
			if (n->tmpl_op != n->op)
				sb_printf(&b, " tmpl=%s", prism_opcode_name(n->tmpl_op));
			if (n->signaled)
				sb_printf(&b, " ce");
			if (n->fence)
				sb_printf(&b, " fence");
			if (n->raddr.kind != IR_V_NONE) {
				sb_printf(&b, " raddr=");
				sb_val(&b, &n->raddr);
			}
			if (n->we_index.kind != IR_V_NONE) {
				sb_printf(&b, " idx=");
				sb_val(&b, &n->we_index);
				sb_printf(&b, " obj=");
				sb_val(&b, &n->we_obj);
			}
			for (unsigned s = 0; s < n->nsge; s++) {
				sb_printf(&b, " sge[");
				sb_val(&b, &n->sge[s].addr);
				sb_printf(&b, "+%u]", n->sge[s].len);
			}
			if (n->what)
				sb_printf(&b, " ; %s", n->what);
			sb_printf(&b, "\n");
		}
	}
	for (unsigned i = 0; i < p->n_patches; i++) {
		const struct ir_patch *pt = &p->patches[i];
		sb_printf(&b, "patch %s%d -> n%d [%u,+%u)%s\n",
		          pt->writer == IR_RECV ? "recv" : "n",
		          pt->writer == IR_RECV ? pt->writer_sge : pt->writer, pt->target, pt->off,
		          pt->len, pt->control ? " control" : "");
	}
	for (unsigned i = 0; i < p->n_deps; i++)
		sb_printf(&b, "dep n%d -> n%d\n", p->deps[i].from, p->deps[i].to);
	return b.len;
}
