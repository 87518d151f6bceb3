/* SPDX-License-Identifier: MIT */
/*
 * test_dump.c - `prismc dump` renderers against golden output.
 *
 * Owns: golden tests of the listing, --stats, --dot, --json and --raw on
 * the hand-built hash-get chain object (tests/chainobj/chain_fixture.c),
 * the latency model's arithmetic, and dumping an object that went through
 * the YAML writer and reader.  Regenerate the goldens with
 * PRISM_UPDATE_GOLDEN=1 and review the diff.
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

#include "compiler/dump.h"
#include "tests/chainobj/chain_fixture.h"

typedef int (*render_fn)(FILE *f, const struct chainobj *o, unsigned flags);

static int r_text(FILE *f, const struct chainobj *o, unsigned flags)
{
	return dump_text(f, o, flags);
}

static int r_stats(FILE *f, const struct chainobj *o, unsigned flags)
{
	return dump_stats_text(f, o, NULL);
}

static int r_dot(FILE *f, const struct chainobj *o, unsigned flags)
{
	return dump_dot(f, o);
}

static int r_json(FILE *f, const struct chainobj *o, unsigned flags)
{
	return dump_json(f, o, flags, NULL);
}

static char *render(render_fn fn, const struct chainobj *o, unsigned flags)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fn(f, o, flags), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void check_golden(const char *name, render_fn fn, unsigned flags)
{
	struct chainobj *o = fixture_hashget();
	char path[256];
	char *got = render(fn, o, flags), *want;

	snprintf(path, sizeof(path), "tests/compiler/golden/%s", name);
	if (getenv("PRISM_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs(got, f);
		fclose(f);
	}
	want = slurp(path);
	if (!want)
		fail_msg("missing golden file %s (run with PRISM_UPDATE_GOLDEN=1)", path);
	if (strcmp(got, want))
		print_error("%s differs from the golden file; got:\n%s\n", path, got);
	assert_string_equal(got, want);
	free(want);
	free(got);
	chainobj_free(o);
}

static void test_golden_text(void **state)
{
	check_golden("hashget.dump.txt", r_text, 0);
}

static void test_golden_raw(void **state)
{
	check_golden("hashget.raw.txt", r_text, DUMP_RAW);
}

static void test_golden_stats(void **state)
{
	check_golden("hashget.stats.txt", r_stats, 0);
}

static void test_golden_dot(void **state)
{
	check_golden("hashget.dot", r_dot, 0);
}

static void test_golden_json(void **state)
{
	check_golden("hashget.json", r_json, 0);
}

/* The listing names patch writers and relocations the way the brief asks. */
static void test_text_cross_references(void **state)
{
	struct chainobj *o = fixture_hashget();
	char *t = render(r_text, o, 0);

	assert_non_null(strstr(t, "<- worker#2 cas [0..7]"));
	assert_non_null(strstr(t, "<- conn.rq#0 recv-scatter sge1 [16..23]"));
	assert_non_null(strstr(t, "-> conn#0 [4..6] read-scatter sge0"));
	assert_non_null(strstr(t, "reloc [24..27] cq-count conn_cq = k*1+0"));
	assert_non_null(strstr(t, "reloc [8..15] qbuf-addr worker.sq +41 slot k*4+2"));
	free(t);
	chainobj_free(o);
}

/* 4 worker WRs + 1 conn WR: WAIT+SEND_EN is one doorbell step; READ, CAS and
 * the NOP are WQ-ordered; READ and CAS pay the read/atomic premium. */
static void test_latency_model(void **state)
{
	struct chainobj *o = fixture_hashget();
	struct dump_stats st;
	double want;

	dump_compute_stats(o, dump_cost_cx5(), &st);
	assert_int_equal(st.wqes, 5);
	assert_int_equal(st.recvs, 1);
	assert_int_equal(st.by_class[PRISM_CLASS_COPY], 1);
	assert_int_equal(st.by_class[PRISM_CLASS_ATOMIC], 1);
	assert_int_equal(st.by_class[PRISM_CLASS_ORDERING], 3);
	assert_int_equal(st.doorbell_ordered, 0);
	assert_int_equal(st.completion_ordered, 1);
	assert_int_equal(st.wq_ordered, 4);
	assert_int_equal(st.reads_atomics, 2);
	assert_int_equal(st.writes, 0);
	want = 1.21 + 3 * 0.17 + 1 * 0.19 + 2 * (1.8 - 1.21);
	assert_true(st.predicted_us > want - 1e-9 && st.predicted_us < want + 1e-9);
	chainobj_free(o);
}

/* A WAIT immediately followed by an ENABLE is one doorbell-ordered step. */
static void test_doorbell_step(void **state)
{
	struct chainobj *o = chainobj_new("db");
	struct chainobj_queue *q;
	struct prism_wqe w;
	uint8_t buf[64];
	struct dump_stats st;

	assert_non_null(o);
	assert_non_null(chainobj_add_cq(o, "cq", 8));
	q = chainobj_add_queue(o, "q", CHAINOBJ_ROLE_WORKER);
	q->sq_slots = 8;
	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_CQE_WAIT;
	assert_int_equal(prism_wqe_encode(&w, buf, sizeof(buf), NULL), 32);
	assert_non_null(chainobj_queue_add_wqe(q, CHAINOBJ_RING_SQ, 0, buf, 32, NULL));
	w.ctrl.opcode = PRISM_OP_SEND_ENABLE;
	assert_int_equal(prism_wqe_encode(&w, buf, sizeof(buf), NULL), 32);
	assert_non_null(chainobj_queue_add_wqe(q, CHAINOBJ_RING_SQ, 1, buf, 32, NULL));
	assert_int_equal(chainobj_validate(o, NULL), 0);
	dump_compute_stats(o, dump_cost_cx5(), &st);
	assert_int_equal(st.wqes, 2);
	assert_int_equal(st.doorbell_ordered, 1);
	assert_int_equal(st.completion_ordered, 0);
	assert_int_equal(st.wq_ordered, 0);
	assert_true(st.predicted_us > 1.21 + 0.54 - 1e-9 && st.predicted_us < 1.21 + 0.54 + 1e-9);
	chainobj_free(o);
}

/* Dumping the object read back from YAML gives the same listing. */
static void test_dump_after_yaml_round_trip(void **state)
{
	struct chainobj *o = fixture_hashget(), *back = NULL;
	char *text = NULL, *a, *b;
	size_t len = 0;

	assert_int_equal(chainobj_write_mem(o, 0, &text, &len, NULL), 0);
	assert_int_equal(chainobj_read_mem(text, len, &back, NULL), 0);
	a = render(r_text, o, DUMP_RAW);
	b = render(r_text, back, DUMP_RAW);
	assert_string_equal(a, b);
	free(a);
	free(b);
	free(text);
	chainobj_free(back);
	chainobj_free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_golden_text),
	    cmocka_unit_test(test_golden_raw),
	    cmocka_unit_test(test_golden_stats),
	    cmocka_unit_test(test_golden_dot),
	    cmocka_unit_test(test_golden_json),
	    cmocka_unit_test(test_text_cross_references),
	    cmocka_unit_test(test_latency_model),
	    cmocka_unit_test(test_doorbell_step),
	    cmocka_unit_test(test_dump_after_yaml_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
