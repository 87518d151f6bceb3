/* SPDX-License-Identifier: MIT */
/*
 * compiler/interp.c - the reference interpreter (interp.h): docs/language.md
 * executed statement by statement over region images.
 *
 * Values: a scalar, a pointer or a constant is a number (a pointer is the
 * address it holds); an aggregate is the bytes of its place.  Reading a
 * place decodes its bytes in the place's byte order; storing encodes the
 * number in the target's order, so a store between byte orders converts
 * (language.md, "place = e").  Every access through a pointer must lie in
 * the pointer's region (its key bounds it on the NIC); outside it the
 * invocation faults, as the NIC's remote access error does.
 *
 * Decisions the reference makes (docs/language.md, "The reference
 * interpreter"): `&&` and `||` evaluate left to right and stop when the
 * outcome is known (a `cas` operand runs only then); a loop tests its
 * condition before each iteration, a recycled one once more after the
 * N-th; lanes run one after the other, a `return` in a lane ends that lane
 * and the invocation after the join, the return written later answers;
 * temporaries start as zeros.
 *
 * Must not: know about WQEs or the lowering.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/interp.h"
#include "util/array.h"
#include "chain/chainobj.h"

/* The widest place an atomic touches (language.md: 4, 8, 16 or 32 bytes). */
#define ATOMIC_MAX 32

enum flow { FLOW_NEXT, FLOW_BREAK, FLOW_RETURN, FLOW_FAULT };

struct ictx {
	const struct ast_offload *off;
	const struct interp_env *env;
	uint8_t *args;
	uint8_t *scratch;
	struct interp_result *res;
	bool faulted;
	unsigned depth; /* eval_num nesting: bounded, the stack is not */
	/* return statements in source order: site = index + 1 */
	const struct ast_stmt **rets;
	unsigned nrets, caprets;
};

/* A place: bytes in the payload, the scratch area or a region image. */
struct iplace {
	uint8_t *b;
	uint64_t size;
	uint64_t addr; /* region memory: the NIC-visible address of b */
};

static bool fault(struct ictx *c, const struct ast_expr *e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fault(struct ictx *c, const struct ast_expr *e, const char *fmt, ...)
{
	va_list ap;
	size_t n = 0;

	if (c->faulted)
		return false;
	c->faulted = true;
	if (e)
		n = (size_t)snprintf(c->res->error, sizeof(c->res->error), "%u:%u: ", e->loc.line,
		                     e->loc.col);
	va_start(ap, fmt);
	vsnprintf(c->res->error + n, sizeof(c->res->error) - n, fmt, ap);
	va_end(ap);
	return false;
}

static enum chainobj_order order_of(const struct ast_type *t)
{
	return ast_type_order(t) == AST_ORDER_LE ? CHAINOBJ_ORDER_LITTLE : CHAINOBJ_ORDER_BIG;
}

/* Scalars, pointers, constants and booleans are numbers. */
static bool is_number(const struct ast_type *t)
{
	return t->kind == AST_TYPE_SCALAR || t->kind == AST_TYPE_PTR || t->kind == AST_TYPE_INT ||
	       t->kind == AST_TYPE_BOOL;
}

static uint64_t width_mask(unsigned w)
{
	return w >= 8 ? ~0ull : (1ull << (8 * w)) - 1;
}

static const struct interp_region *env_region(struct ictx *c, const char *name)
{
	for (size_t i = 0; i < c->env->nregions; i++)
		if (!strcmp(c->env->regions[i].name, name))
			return &c->env->regions[i];
	return NULL;
}

/* @size bytes at address @addr, which must lie in region @r. */
static bool mem_at(struct ictx *c, const struct ast_expr *e, const struct ast_region *r,
                   uint64_t addr, uint64_t size, struct iplace *p)
{
	const struct interp_region *ir = r ? env_region(c, r->name) : NULL;

	if (!ir)
		return fault(c, e, "region '%s' has no image", r ? r->name : "?");
	if (addr < ir->addr || addr - ir->addr > ir->size || size > ir->size - (addr - ir->addr))
		return fault(c, e,
		             "access of %llu bytes at 0x%llx is outside region '%s' "
		             "(remote access error)",
		             (unsigned long long)size, (unsigned long long)addr, r->name);
	p->b = ir->bytes + (addr - ir->addr);
	p->size = size;
	p->addr = addr;
	return true;
}

static bool eval_num(struct ictx *c, const struct ast_expr *e, uint64_t *out);
static bool place_of(struct ictx *c, const struct ast_expr *e, struct iplace *p);

/* Base of a field / index / slice: the aggregate itself, or what the
 * pointer `base` points to (@size bytes from @off). */
static bool base_at(struct ictx *c, const struct ast_expr *e, const struct ast_expr *base,
                    bool through_ptr, uint64_t off, uint64_t size, struct iplace *p)
{
	if (through_ptr) {
		uint64_t addr;

		if (!eval_num(c, base, &addr))
			return false;
		if (addr + off < addr) /* no address wraps into a region */
			return fault(c, e, "address 0x%llx + %llu wraps", (unsigned long long)addr,
			             (unsigned long long)off);
		return mem_at(c, e, e->region, addr + off, size, p);
	}
	if (!place_of(c, base, p))
		return false;
	if (off > p->size || size > p->size - off)
		return fault(c, e, "access outside its aggregate");
	p->b += off;
	p->addr += off;
	p->size = size;
	return true;
}

static uint64_t array_count(const struct ast_expr *base, bool through_ptr)
{
	const struct ast_type *t = through_ptr ? base->type->pointee : base->type;

	return t && t->kind == AST_TYPE_ARRAY ? t->count : 0;
}

static bool place_of(struct ictx *c, const struct ast_expr *e, struct iplace *p)
{
	uint64_t v, size = e->type->size;

	switch (e->kind) {
	case AST_EXPR_NAME:
		switch (e->u.name.sym) {
		case AST_SYM_PARAM:
			p->b = c->args + e->u.name.target.param->offset;
			p->size = size;
			p->addr = 0;
			return true;
		case AST_SYM_LOCAL:
			p->b = c->scratch + e->u.name.target.local->offset;
			p->size = size;
			p->addr = 0;
			return true;
		case AST_SYM_REGION: {
			const struct interp_region *ir =
			    env_region(c, e->u.name.target.region->name);

			if (!ir)
				return fault(c, e, "region '%s' has no image", e->u.name.name);
			return mem_at(c, e, e->u.name.target.region, ir->addr, size, p);
		}
		default:
			return fault(c, e, "'%s' is not a place", e->u.name.name);
		}
	case AST_EXPR_DEREF:
		if (!eval_num(c, e->u.deref.ptr, &v))
			return false;
		return mem_at(c, e, e->u.deref.ptr->type->region, v, size, p);
	case AST_EXPR_FIELD:
		return base_at(c, e, e->u.field.base, e->u.field.through_ptr,
		               e->u.field.field->offset, size, p);
	case AST_EXPR_INDEX: {
		uint64_t n = array_count(e->u.index.base, e->u.index.through_ptr);

		if (!eval_num(c, e->u.index.index, &v))
			return false;
		if (v >= n)
			return fault(c, e, "index %llu is outside the array (%llu elements)",
			             (unsigned long long)v, (unsigned long long)n);
		return base_at(c, e, e->u.index.base, e->u.index.through_ptr, v * e->u.index.stride,
		               size, p);
	}
	case AST_EXPR_SLICE: {
		uint64_t cap = e->u.slice.capacity;

		if (!eval_num(c, e->u.slice.len, &v))
			return false;
		/* PRISM's bounded read: min(n, capacity) bytes */
		return base_at(c, e, e->u.slice.base, e->u.slice.through_ptr, 0, v < cap ? v : cap,
		               p);
	}
	default:
		return fault(c, e, "not a place");
	}
}

/* The operand @e as @size bytes in the representation of @as (a number is
 * encoded in @as's byte order; an aggregate is copied, a bounded read
 * padded with zeros). */
static bool eval_bytes(struct ictx *c, const struct ast_expr *e, const struct ast_type *as,
                       uint8_t *out, uint64_t size)
{
	if (is_number(e->type) && is_number(as)) {
		uint64_t v;

		if (!eval_num(c, e, &v))
			return false;
		chainobj_put_uint(out, (uint32_t)size, order_of(as), v);
		return true;
	}
	struct iplace p;

	if (!place_of(c, e, &p))
		return false;
	memset(out, 0, size);
	memcpy(out, p.b, p.size < size ? p.size : size);
	return true;
}

/* ---- builtins ----------------------------------------------------------- */

/* An atomic's place: region memory aligned to its size (an RDMA atomic on a
 * misaligned address is an invalid request, IB spec 9.4.5). */
static bool atomic_place(struct ictx *c, const struct ast_expr *e, const struct ast_expr *place,
                         struct iplace *p)
{
	if (!place_of(c, place, p))
		return false;
	if (p->addr % p->size)
		return fault(c, e,
		             "atomic on %llu bytes at 0x%llx, which is not aligned to its size",
		             (unsigned long long)p->size, (unsigned long long)p->addr);
	return true;
}

static const struct ast_expr *arg_n(const struct ast_expr *e, unsigned n)
{
	const struct ast_expr *a = e->u.call.args;

	while (n-- && a)
		a = a->arg_next;
	return a;
}

/* Numeric order of two W-byte operands in the place's representation
 * (aggregates compare as big-endian integers, like 16-byte masked
 * atomics). */
static int cmp_repr(const uint8_t *a, const uint8_t *b, uint64_t w, const struct ast_type *t)
{
	if (is_number(t) && w <= 8) {
		uint64_t x = chainobj_get_uint(a, (uint32_t)w, order_of(t));
		uint64_t y = chainobj_get_uint(b, (uint32_t)w, order_of(t));

		return x < y ? -1 : x > y;
	}
	return memcmp(a, b, w);
}

/* cas / cas_gt / cas_lt: *out = whether it swapped. */
static bool eval_cas(struct ictx *c, const struct ast_expr *e, uint64_t *out)
{
	enum ast_builtin fn = e->u.call.fn;
	const struct ast_expr *place = arg_n(e, 0);
	const struct ast_type *t = place->type;
	unsigned nops = fn == AST_BUILTIN_CAS ? 2 : 1;
	uint8_t ops[2][ATOMIC_MAX], cm[ATOMIC_MAX], sm[ATOMIC_MAX], old[ATOMIC_MAX];
	uint64_t w = t->size;
	struct iplace p;

	if (w > ATOMIC_MAX)
		return fault(c, e, "atomic on %llu bytes", (unsigned long long)w);
	for (unsigned i = 0; i < nops; i++)
		if (!eval_bytes(c, arg_n(e, 1 + i), t, ops[i], w))
			return false;
	memset(cm, 0xff, sizeof(cm));
	memset(sm, 0xff, sizeof(sm));
	if (e->u.call.nargs == nops + 3) {
		if (!eval_bytes(c, arg_n(e, 1 + nops), t, cm, w) ||
		    !eval_bytes(c, arg_n(e, 2 + nops), t, sm, w))
			return false;
	}
	/* cas_gt / cas_lt read the place and compare first; only their swap is
	 * an atomic on it, so a misaligned place fails only a swap (the NIC
	 * runs no atomic when the value is not greater / less) */
	if (fn == AST_BUILTIN_CAS ? !atomic_place(c, e, place, &p) : !place_of(c, place, &p))
		return false;
	bool swap;
	const uint8_t *v = ops[nops - 1];

	if (fn == AST_BUILTIN_CAS) {
		swap = true;
		for (uint64_t i = 0; i < w; i++)
			swap &= (p.b[i] & cm[i]) == (ops[0][i] & cm[i]);
	} else {
		uint8_t a[ATOMIC_MAX], b[ATOMIC_MAX];

		for (uint64_t i = 0; i < w; i++) {
			a[i] = v[i] & cm[i];
			b[i] = p.b[i] & cm[i];
		}
		int r = cmp_repr(a, b, w, t);

		swap = fn == AST_BUILTIN_CAS_GT ? r > 0 : r < 0;
	}
	if (swap && fn != AST_BUILTIN_CAS && !atomic_place(c, e, place, &p))
		return false;
	memcpy(old, p.b, w);
	if (swap)
		for (uint64_t i = 0; i < w; i++)
			p.b[i] = (uint8_t)((old[i] & ~sm[i]) | (v[i] & sm[i]));
	*out = swap;
	return true;
}

static bool eval_fetch_add(struct ictx *c, const struct ast_expr *e, uint64_t *out)
{
	const struct ast_expr *place = arg_n(e, 0);
	unsigned w = ast_type_width(place->type);
	uint64_t d, old;
	struct iplace p;

	if (!eval_num(c, arg_n(e, 1), &d) || !atomic_place(c, e, place, &p))
		return false;
	old = chainobj_get_uint(p.b, w, order_of(place->type));
	chainobj_put_uint(p.b, w, order_of(place->type), (old + d) & width_mask(w));
	*out = old;
	return true;
}

/*
 * PRISM ALLOCATE (docs/ir.md, `alloc`): the list's region holds a le64
 * cursor (the address of the next free slot) and be64 slots of buffer
 * pointers; the cursor advances by 8 and the slot it pointed at is read.
 */
static bool eval_alloc(struct ictx *c, const struct ast_expr *e, uint64_t *out)
{
	const struct ast_freelist *fl = e->u.call.freelist;
	const struct interp_region *ir = env_region(c, fl->name);
	uint64_t cur;

	if (!ir || ir->size < 16)
		return fault(c, e, "free list '%s' has no image", fl->name);
	cur = chainobj_get_uint(ir->bytes, 8, CHAINOBJ_ORDER_LITTLE);
	chainobj_put_uint(ir->bytes, 8, CHAINOBJ_ORDER_LITTLE, cur + 8);
	if (cur < ir->addr + 8 || cur - ir->addr > ir->size - 8)
		return fault(c, e, "free list '%s' is empty (cursor 0x%llx; remote access error)",
		             fl->name, (unsigned long long)cur);
	*out = chainobj_get_uint(ir->bytes + (cur - ir->addr), 8, CHAINOBJ_ORDER_BIG);
	return true;
}

/* ---- expressions -------------------------------------------------------- */

static bool eval_compare(struct ictx *c, const struct ast_expr *e, uint64_t *out)
{
	const struct ast_expr *l = e->u.binary.lhs, *r = e->u.binary.rhs;
	int rel;

	if (is_number(l->type) && is_number(r->type)) {
		uint64_t a, b;

		if (!eval_num(c, l, &a) || !eval_num(c, r, &b))
			return false;
		rel = a < b ? -1 : a > b;
	} else {
		struct iplace a, b;

		if (!place_of(c, l, &a) || !place_of(c, r, &b))
			return false;
		if (a.size != b.size)
			return fault(c, e, "aggregates of different sizes");
		rel = memcmp(a.b, b.b, a.size) != 0;
	}
	switch (e->u.binary.op) {
	case AST_BINOP_EQ:
		*out = rel == 0;
		break;
	case AST_BINOP_NE:
		*out = rel != 0;
		break;
	case AST_BINOP_LT:
		*out = rel < 0;
		break;
	case AST_BINOP_GT:
		*out = rel > 0;
		break;
	case AST_BINOP_LE:
		*out = rel <= 0;
		break;
	default:
		*out = rel >= 0;
		break;
	}
	return true;
}

static bool eval_binary(struct ictx *c, const struct ast_expr *e, uint64_t *out)
{
	enum ast_binop op = e->u.binary.op;
	uint64_t a, b;

	switch (op) {
	case AST_BINOP_LAND:
	case AST_BINOP_LOR:
		if (!eval_num(c, e->u.binary.lhs, &a))
			return false;
		if ((op == AST_BINOP_LAND) != (a != 0)) {
			*out = a != 0;
			return true;
		}
		if (!eval_num(c, e->u.binary.rhs, &b))
			return false;
		*out = b != 0;
		return true;
	case AST_BINOP_EQ:
	case AST_BINOP_NE:
	case AST_BINOP_LT:
	case AST_BINOP_GT:
	case AST_BINOP_LE:
	case AST_BINOP_GE:
		return eval_compare(c, e, out);
	default:
		break;
	}
	if (!eval_num(c, e->u.binary.lhs, &a) || !eval_num(c, e->u.binary.rhs, &b))
		return false;
	switch (op) {
	case AST_BINOP_ADD:
		*out = a + b;
		break;
	case AST_BINOP_SUB:
		*out = a - b;
		break;
	case AST_BINOP_AND:
		*out = a & b;
		break;
	case AST_BINOP_OR:
		*out = a | b;
		break;
	case AST_BINOP_XOR:
		*out = a ^ b;
		break;
	default: /* * / % << >> are constants only (checker) */
		return fault(c, e, "operator '%s' at run time", ast_binop_spelling[op]);
	}
	*out &= width_mask(ast_type_width(e->type) ? ast_type_width(e->type) : 8);
	return true;
}

/* Deeper expressions than this are refused (a fault naming the limit)
 * rather than recursed into: the stack stays bounded whatever the front end
 * accepts.  Real offloads nest a few levels. */
#define INTERP_MAX_DEPTH 1000

static bool eval_num_at(struct ictx *c, const struct ast_expr *e, uint64_t *out);

static bool eval_num(struct ictx *c, const struct ast_expr *e, uint64_t *out)
{
	bool ok;

	if (c->faulted)
		return false;
	if (c->depth >= INTERP_MAX_DEPTH)
		return fault(c, e, "expression nested more than %u deep", INTERP_MAX_DEPTH);
	c->depth++;
	ok = eval_num_at(c, e, out);
	c->depth--;
	return ok;
}

static bool eval_num_at(struct ictx *c, const struct ast_expr *e, uint64_t *out)
{
	if (e->kind == AST_EXPR_BOOL) {
		*out = e->u.bool_value;
		return true;
	}
	if (e->is_const) {
		*out = e->value;
		return true;
	}
	switch (e->kind) {
	case AST_EXPR_UNARY: {
		uint64_t v;

		if (!eval_num(c, e->u.unary.operand, &v))
			return false;
		if (e->u.unary.op == AST_UNOP_NOT)
			*out = !v;
		else if (e->u.unary.op == AST_UNOP_BITNOT)
			*out = ~v & width_mask(ast_type_width(e->type));
		else
			*out = -v & width_mask(ast_type_width(e->type));
		return true;
	}
	case AST_EXPR_BINARY:
		return eval_binary(c, e, out);
	case AST_EXPR_CALL:
		switch (e->u.call.fn) {
		case AST_BUILTIN_FETCH_ADD:
			return eval_fetch_add(c, e, out);
		case AST_BUILTIN_ALLOC:
			return eval_alloc(c, e, out);
		default:
			return eval_cas(c, e, out);
		}
	default:
		break;
	}
	struct iplace p;
	unsigned w = ast_type_width(e->type);

	if (!w || !place_of(c, e, &p))
		return w ? false : fault(c, e, "not a number");
	*out = chainobj_get_uint(p.b, w, order_of(e->type));
	return true;
}

/* ---- statements --------------------------------------------------------- */

static enum flow exec_list(struct ictx *c, const struct ast_stmt *s);

static uint32_t site_of(const struct ictx *c, const struct ast_stmt *s)
{
	for (unsigned i = 0; i < c->nrets; i++)
		if (c->rets[i] == s)
			return i + 1;
	return 0;
}

static enum flow exec_return(struct ictx *c, const struct ast_stmt *s)
{
	const struct ast_expr *v = s->u.return_.value;

	if (v) {
		const struct ast_type *rt = c->off->ret_type ? c->off->ret_type : v->type;

		if (!eval_bytes(c, v, rt, c->res->ret, c->res->ret_len))
			return FLOW_FAULT;
	}
	c->res->ret_site = site_of(c, s);
	return FLOW_RETURN;
}

static enum flow exec_assign(struct ictx *c, const struct ast_expr *target,
                             const struct ast_expr *value)
{
	uint64_t size = target->type->size;
	uint8_t small[64], *buf = size <= sizeof(small) ? small : malloc(size);
	struct iplace p;
	enum flow f = FLOW_FAULT;

	if (!buf) {
		fault(c, target, "out of memory");
		return FLOW_FAULT;
	}
	/* the value first (reads through the old pointers), then the store */
	if (eval_bytes(c, value, target->type, buf, size) && place_of(c, target, &p)) {
		memcpy(p.b, buf, size);
		f = FLOW_NEXT;
	}
	if (buf != small)
		free(buf);
	return f;
}

static enum flow exec_while(struct ictx *c, const struct ast_stmt *s)
{
	uint64_t v;

	for (uint64_t i = 0; i < s->u.while_.bound; i++) {
		if (!eval_num(c, s->u.while_.cond, &v))
			return FLOW_FAULT;
		if (!v)
			return FLOW_NEXT;
		enum flow f = exec_list(c, s->u.while_.body);

		if (f == FLOW_BREAK)
			return FLOW_NEXT;
		if (f != FLOW_NEXT)
			return f;
	}
	/* a recycled loop tests once more after the N-th lap (language.md) */
	if (s->u.while_.recycle && !eval_num(c, s->u.while_.cond, &v))
		return FLOW_FAULT;
	return FLOW_NEXT;
}

static enum flow exec_parallel(struct ictx *c, const struct ast_stmt *s)
{
	bool returned = false;

	/* lanes in source order; a later lane's return overwrites an earlier
	 * one's response and site (language.md: the return written later
	 * answers) */
	for (const struct ast_lane *l = s->u.parallel.lanes; l; l = l->next) {
		enum flow f = exec_list(c, l->body);

		if (f == FLOW_FAULT)
			return f;
		returned |= f == FLOW_RETURN;
	}
	return returned ? FLOW_RETURN : FLOW_NEXT;
}

static enum flow exec_stmt(struct ictx *c, const struct ast_stmt *s)
{
	uint64_t v;

	switch (s->kind) {
	case AST_STMT_LET: {
		const struct ast_local *l = s->u.let.local;

		memset(c->scratch + l->offset, 0, l->type->size);
		if (!s->u.let.init)
			return FLOW_NEXT;
		return eval_bytes(c, s->u.let.init, l->type, c->scratch + l->offset, l->type->size)
		           ? FLOW_NEXT
		           : FLOW_FAULT;
	}
	case AST_STMT_ASSIGN:
		return exec_assign(c, s->u.assign.target, s->u.assign.value);
	case AST_STMT_EXPR: {
		const struct ast_expr *e = s->u.expr.expr;

		if (is_number(e->type) || e->type->kind == AST_TYPE_VOID)
			return eval_num(c, e, &v) ? FLOW_NEXT : FLOW_FAULT;
		struct iplace p;

		return place_of(c, e, &p) ? FLOW_NEXT : FLOW_FAULT;
	}
	case AST_STMT_IF:
		if (!eval_num(c, s->u.if_.cond, &v))
			return FLOW_FAULT;
		if (v)
			return exec_list(c, s->u.if_.then_body);
		return exec_list(c, s->u.if_.else_body);
	case AST_STMT_WHILE:
		return exec_while(c, s);
	case AST_STMT_BREAK:
		return FLOW_BREAK;
	case AST_STMT_RETURN:
		return exec_return(c, s);
	case AST_STMT_PARALLEL:
		return exec_parallel(c, s);
	case AST_STMT_BLOCK:
		return exec_list(c, s->u.block.body);
	}
	return FLOW_FAULT;
}

static enum flow exec_list(struct ictx *c, const struct ast_stmt *s)
{
	for (; s; s = s->next) {
		enum flow f = exec_stmt(c, s);

		if (c->faulted)
			return FLOW_FAULT;
		if (f != FLOW_NEXT)
			return f;
	}
	return FLOW_NEXT;
}

/* Number the returns in source order (the sites a client sees). */
static bool collect_returns(struct ictx *c, const struct ast_stmt *s)
{
	for (; s; s = s->next) {
		switch (s->kind) {
		case AST_STMT_RETURN:
			if (!ARRAY_RESERVE(c->rets, c->caprets, c->nrets + 1))
				return false;
			c->rets[c->nrets++] = s;
			break;
		case AST_STMT_IF:
			if (!collect_returns(c, s->u.if_.then_body) ||
			    !collect_returns(c, s->u.if_.else_body))
				return false;
			break;
		case AST_STMT_WHILE:
			if (!collect_returns(c, s->u.while_.body))
				return false;
			break;
		case AST_STMT_PARALLEL:
			for (const struct ast_lane *l = s->u.parallel.lanes; l; l = l->next)
				if (!collect_returns(c, l->body))
					return false;
			break;
		case AST_STMT_BLOCK:
			if (!collect_returns(c, s->u.block.body))
				return false;
			break;
		default:
			break;
		}
	}
	return true;
}

int interp_run(const struct ast_program *prog, const struct ast_offload *off, const uint8_t *args,
               const struct interp_env *env, struct interp_result *res)
{
	struct ictx c = {.off = off, .env = env, .res = res};
	int rc = -1;

	(void)prog;
	memset(res, 0, sizeof(*res));
	res->ret_len = off->ret_type ? off->ret_type->size : 0;
	res->ret = calloc(1, res->ret_len ? res->ret_len : 1);
	c.args = malloc(off->args_size ? off->args_size : 1);
	c.scratch = calloc(1, off->scratch_size ? off->scratch_size : 1);
	if (!res->ret || !c.args || !c.scratch || !collect_returns(&c, off->body))
		goto out;
	memcpy(c.args, args, off->args_size);
	exec_list(&c, off->body);
	res->ok = !c.faulted;
	if (!res->ok) {
		res->ret_site = 0;
		memset(res->ret, 0, res->ret_len);
	}
	rc = 0;
out:
	free(c.args);
	free(c.scratch);
	free(c.rets);
	return rc;
}

void interp_result_free(struct interp_result *res)
{
	if (!res)
		return;
	free(res->ret);
	res->ret = NULL;
}

int interp_pack_arg(const struct ast_param *p, uint64_t u64, const uint8_t *bytes, size_t len,
                    const struct interp_env *env, uint8_t *payload, char *err, size_t errlen)
{
	const struct ast_type *t = p->type;
	unsigned w = ast_type_width(t);

	if (!w) {
		if (!bytes || len != t->size) {
			snprintf(err, errlen, "argument '%s' needs %llu bytes", p->name,
			         (unsigned long long)t->size);
			return -1;
		}
		memcpy(payload + p->offset, bytes, len);
		return 0;
	}
	if (w < 8 && u64 >> (8 * w)) {
		snprintf(err, errlen, "argument '%s' = 0x%llx does not fit %u bytes", p->name,
		         (unsigned long long)u64, w);
		return -1;
	}
	if (t->kind == AST_TYPE_PTR) {
		const struct interp_region *r = NULL;

		for (size_t i = 0; i < env->nregions && t->region; i++)
			if (!strcmp(env->regions[i].name, t->region->name))
				r = &env->regions[i];
		if (!r || u64 >= r->size) {
			snprintf(err, errlen, "argument '%s' = offset 0x%llx is outside its region",
			         p->name, (unsigned long long)u64);
			return -1;
		}
		u64 += r->addr;
	}
	chainobj_put_uint(payload + p->offset, w, order_of(t), u64);
	return 0;
}
