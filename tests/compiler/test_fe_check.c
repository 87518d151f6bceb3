/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/test_fe_check.c - what the checker records for the back
 * end: layouts and offsets, constant folding, places and regions, taint
 * (including through loops), loop bounds and break targets, lanes, and
 * that every sample program checks clean.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/compiler/fe_helpers.h"

static struct frontend_unit unit;

static struct ast_program *ok(const char *src)
{
	char *text = NULL;
	enum frontend_status st = fe_run(&unit, src, &text);

	if (st != FRONTEND_OK)
		print_error("%s", text);
	assert_int_equal(st, FRONTEND_OK);
	assert_true(unit.prog->checked);
	free(text);
	return unit.prog;
}

static int teardown(void **state)
{
	(void)state;
	frontend_fini(&unit);
	return 0;
}

static void test_layout_and_constants(void **state)
{
	struct ast_program *p = ok("const V = 2 * 32;\n"
	                           "const W = V + sizeof(hdr);\n"
	                           "struct hdr { a: u8; b: be16; c: be48; }\n"
	                           "struct n { h: hdr; key: be64; v: u8[V]; next: *n in r; }\n"
	                           "region r: n[W] readonly;\n"
	                           "region s size 4 KiB + 1 writable;\n"
	                           "offload f(a: be32, b: *n in r, c: u8[3]) { return b.v; }\n");
	struct ast_struct *hdr = p->structs, *n = hdr->next;

	(void)state;
	assert_int_equal(p->consts->value, 64);
	assert_int_equal(p->consts->next->value, 64 + 9);
	assert_int_equal(hdr->size, 9);
	assert_int_equal(hdr->fields->next->offset, 1);
	assert_int_equal(hdr->fields->next->next->offset, 3);
	assert_int_equal(n->size, 9 + 8 + 64 + 8);
	assert_int_equal(n->fields->next->next->offset, 17);
	assert_int_equal(p->regions->size, 73 * n->size);
	assert_int_equal(p->regions->next->size, 4097);
	assert_true(p->regions->next->writable);

	struct ast_offload *o = p->offloads;
	assert_int_equal(o->params->offset, 0);
	assert_int_equal(o->params->next->offset, 4);
	assert_int_equal(o->params->next->next->offset, 12);
	assert_int_equal(o->args_size, 15);
	assert_int_equal(o->ret_type->size, 64);
}

static const char walk[] = "struct n { key: be64; next: *n in r; val: u8[16]; len: be32; }\n"
                           "region r: n[64] readonly;\n"
                           "region w: n[8] writable;\n"
                           "offload f(key: be64, head: *n in r, out: *n in w) {\n"
                           "\tlet p = head;\n"    /* taint: head (bit 1) */
                           "\tlet q: be64 = 0;\n" /* untainted, then tainted by the loop */
                           "\twhile (p.key != key) bound 6 {\n"
                           "\t\tq = p.key;\n"
                           "\t\tp = p.next;\n"
                           "\t\tif (q == key) { break; }\n"
                           "\t}\n"
                           "\tout.key = q;\n"
                           "\treturn p.val[.. p.len];\n"
                           "}\n";

static void test_places_regions_taint(void **state)
{
	struct ast_program *p = ok(walk);
	struct ast_offload *o = p->offloads;
	struct ast_region *r = p->regions, *w = r->next;

	(void)state;
	/* locals: p then q, 8 bytes each in scratch */
	assert_int_equal(o->nlocals, 2);
	assert_string_equal(o->locals->name, "p");
	assert_int_equal(o->locals->offset, 0);
	assert_int_equal(o->locals->next->offset, 8);
	assert_int_equal(o->scratch_size, 16);
	/* p = head: taints with head's bit; q gets it through the loop */
	assert_int_equal(o->locals->taint, 1u << 1);
	assert_int_equal(o->locals->next->taint, 1u << 1);

	struct ast_stmt *wh = fe_find_stmt(o->body, AST_STMT_WHILE);
	assert_int_equal(wh->u.while_.bound, 6);
	assert_int_equal(wh->u.while_.loop_id, 0);
	struct ast_expr *cond = wh->u.while_.cond;
	struct ast_expr *pkey = cond->u.binary.lhs;
	assert_int_equal(cond->type->kind, AST_TYPE_BOOL);
	assert_int_equal(pkey->kind, AST_EXPR_FIELD);
	assert_true(pkey->u.field.through_ptr);
	assert_int_equal(pkey->place, AST_PLACE_MEMORY);
	assert_ptr_equal(pkey->region, r);
	assert_true(pkey->addr_tainted);
	assert_int_equal(pkey->type->scalar, AST_SCALAR_BE64);
	assert_int_equal(cond->u.binary.rhs->place, AST_PLACE_PARAM);
	assert_int_equal(cond->u.binary.rhs->taint, 1u << 0);
	assert_int_equal(cond->taint, (1u << 0) | (1u << 1));

	struct ast_stmt *brk = fe_find_stmt(wh->u.while_.body, AST_STMT_BREAK);
	assert_ptr_equal(brk->u.break_.loop, wh);

	/* out.key = q: a store into region w, address from parameter 2 */
	struct ast_stmt *st = wh->next;
	assert_int_equal(st->kind, AST_STMT_ASSIGN);
	assert_int_equal(st->u.assign.target->place, AST_PLACE_MEMORY);
	assert_ptr_equal(st->u.assign.target->region, w);
	assert_true(st->u.assign.target->addr_tainted);
	assert_int_equal(st->u.assign.value->place, AST_PLACE_LOCAL);

	/* bounded read: capacity 16, result u8[16] */
	struct ast_expr *ret = st->next->u.return_.value;
	assert_int_equal(ret->kind, AST_EXPR_SLICE);
	assert_int_equal(ret->u.slice.capacity, 16);
	assert_int_equal(ret->type->kind, AST_TYPE_ARRAY);
	assert_int_equal(ret->type->size, 16);
	assert_int_equal(o->ret_type->size, 16);
}

static void test_atomics_and_alloc(void **state)
{
	struct ast_program *p = ok("struct o { ver: le64; ptr: *o in heap; pair: u8[16]; }\n"
	                           "region heap: o[16] writable;\n"
	                           "freelist fl: o in heap;\n"
	                           "offload f(s: *o in heap, v: le64, pr: u8[16]) {\n"
	                           "\tlet b = alloc(fl);\n"
	                           "\tlet old = fetch_add(s.ver, 1);\n"
	                           "\tif (cas(s.ptr, b, b) && cas_gt(s.ver, v, 0xff, 0xffff)) {\n"
	                           "\t\tcas(s.pair, pr, pr);\n"
	                           "\t}\n"
	                           "\treturn old;\n"
	                           "}\n");
	struct ast_offload *o = p->offloads;
	struct ast_stmt *s = o->body;

	(void)state;
	struct ast_expr *alloc = s->u.let.init;
	assert_int_equal(alloc->u.call.fn, AST_BUILTIN_ALLOC);
	assert_ptr_equal(alloc->u.call.freelist, p->freelists);
	assert_int_equal(alloc->type->kind, AST_TYPE_PTR);
	assert_ptr_equal(alloc->type->region, p->regions);
	assert_int_equal(alloc->taint, 0);
	assert_int_equal(s->u.let.local->type->kind, AST_TYPE_PTR);

	struct ast_expr *fa = s->next->u.let.init;
	assert_int_equal(fa->type->scalar, AST_SCALAR_LE64);
	assert_int_equal(fa->taint, 1u << 0);

	struct ast_expr *cond = s->next->next->u.if_.cond;
	assert_int_equal(cond->type->kind, AST_TYPE_BOOL);
	struct ast_expr *gt = cond->u.binary.rhs;
	assert_int_equal(gt->u.call.fn, AST_BUILTIN_CAS_GT);
	assert_int_equal(gt->u.call.nargs, 4);
	assert_int_equal(gt->taint, (1u << 0) | (1u << 1));
}

static void test_lanes(void **state)
{
	struct ast_program *p = ok("struct b { k: be64; v: u8[8]; }\n"
	                           "region t: b[4] readonly;\n"
	                           "offload g(k: be64, x: *b in t, y: *b in t) {\n"
	                           "\tlet hit: be64 = 0;\n"
	                           "\tparallel {\n"
	                           "\t\tlet a = x.k;\n"
	                           "\t\tif (a == k) { return x.v; }\n"
	                           "\t} || {\n"
	                           "\t\tlet a = y.k;\n"
	                           "\t\thit = a;\n"
	                           "\t}\n"
	                           "\treturn y.v;\n"
	                           "}\n");
	struct ast_offload *o = p->offloads;

	(void)state;
	assert_int_equal(o->nlocals, 3);
	assert_int_equal(o->locals->lane, -1);
	assert_int_equal(o->locals->next->lane, 0);
	assert_int_equal(o->locals->next->next->lane, 1);
	assert_int_equal(o->locals->taint, 1u << 2);
}

static void test_sample_programs_check(void **state)
{
	static const char *const files[] = {
	    "tests/prism/hash_get.prism",     "tests/prism/list_find.prism",
	    "tests/prism/alloc_write.prism",  "tests/prism/cas_gt.prism",
	    "tests/prism/parallel_get.prism",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct frontend_unit u;
		enum frontend_status st = frontend_load(&u, files[i], NULL);

		if (st != FRONTEND_OK)
			diag_render(&u.diag, stderr);
		assert_int_equal(st, FRONTEND_OK);
		assert_int_equal(u.diag.count, 0);
		frontend_fini(&u);
	}
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_layout_and_constants, teardown),
	    cmocka_unit_test_teardown(test_places_regions_taint, teardown),
	    cmocka_unit_test_teardown(test_atomics_and_alloc, teardown),
	    cmocka_unit_test_teardown(test_lanes, teardown),
	    cmocka_unit_test(test_sample_programs_check),
	};

	return cmocka_run_group_tests_name("frontend checker", tests, NULL, NULL);
}
