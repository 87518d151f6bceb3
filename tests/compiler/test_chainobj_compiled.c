/* SPDX-License-Identifier: MIT */
/*
 * test_chainobj_compiled.c - objects the compiler really produces go
 * through the chain-object writer, reader and every dump renderer intact.
 *
 * Owns: the integration of back end (compile_program) and chain object:
 * for each offload in lib/chains/, the object validates, writes, reads back
 * field-for-field (same canonical text, same checksum), survives a WQE
 * tamper only when the checksum is dropped, and renders in every dump mode.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compiler/compile.h"
#include "compiler/dump.h"
#include "compiler/frontend.h"
#include "chain/chainobj.h"

static struct chainobj *compile_entry(const char *path, const char *entry)
{
	struct frontend_unit u;
	struct compile_opts co = {.profile = IR_PROFILE_RELAXED, .entry = entry};
	struct chainobj *o = NULL;

	assert_int_equal(frontend_load(&u, path, NULL), FRONTEND_OK);
	assert_int_equal(compile_program(&u.diag, u.prog, &co, &o), 0);
	frontend_fini(&u);
	assert_non_null(o);
	return o;
}

static void round_trip_entry(const char *path, const char *entry)
{
	struct chainobj *o = compile_entry(path, entry), *back = NULL;
	struct diag_report d;
	char *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;

	assert_int_equal(chainobj_validate(o, &d), 0);
	assert_int_equal(chainobj_write_mem(o, 0, &a, &la, &d), 0);
	if (chainobj_read_mem(a, la, &back, &d))
		fail_msg("%s: %s", path, d.msg);
	assert_int_equal(chainobj_write_mem(back, 0, &b, &lb, &d), 0);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	assert_int_equal(chainobj_checksum(o), chainobj_checksum(back));
	assert_int_equal(back->n_queues, o->n_queues);
	assert_int_equal(back->n_relocs, o->n_relocs);
	assert_int_equal(back->n_patches, o->n_patches);
	assert_int_equal(back->n_exits, o->n_exits);
	for (unsigned flags = 0; flags <= DUMP_RAW; flags += DUMP_RAW) {
		char *t = NULL;
		size_t tl = 0;
		FILE *f = open_memstream(&t, &tl);

		assert_int_equal(dump_text(f, back, flags), 0);
		assert_int_equal(dump_stats_text(f, back, NULL), 0);
		assert_int_equal(dump_dot(f, back), 0);
		assert_int_equal(dump_json(f, back, flags, NULL), 0);
		fclose(f);
		assert_non_null(strstr(t, "predicted latency (cx5"));
		free(t);
	}
	free(a);
	free(b);
	chainobj_free(back);
	chainobj_free(o);
}

static void round_trip(const char *path)
{
	round_trip_entry(path, NULL);
}

/* A recycled loop (schema 2, queues[].recycle). */
static void test_list_find_long(void **state)
{
	(void)state;
	round_trip_entry("lib/chains/list_find_long.prism", "find_long");
}

static void test_hash_get(void **state)
{
	round_trip("lib/chains/hash_get.prism");
}

static void test_list_find(void **state)
{
	round_trip("lib/chains/list_find.prism");
}

/* Flip one bit of an operand byte in every template in turn: the checksum
 * rejects each edit. */
static void test_every_template_edit_is_caught(void **state)
{
	struct chainobj *o = compile_entry("lib/chains/hash_get.prism", NULL);
	uint64_t sum = chainobj_checksum(o);
	unsigned edits = 0;

	assert_true(sum != 0);
	for (uint32_t q = 0; q < o->n_queues; q++)
		for (uint32_t i = 0; i < o->queues[q].n_sq; i++) {
			struct chainobj_wqe *w = &o->queues[q].sq[i];

			w->bytes[w->len - 1] ^= 0x10; /* last data byte: still decodes */
			if (chainobj_validate(o, NULL) == 0) {
				assert_true(chainobj_checksum(o) != sum);
				edits++;
			}
			w->bytes[w->len - 1] ^= 0x10;
		}
	assert_true(edits > 0);
	assert_int_equal(chainobj_checksum(o), sum);
	chainobj_free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hash_get),
	    cmocka_unit_test(test_list_find),
	    cmocka_unit_test(test_list_find_long),
	    cmocka_unit_test(test_every_template_edit_is_caught),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
