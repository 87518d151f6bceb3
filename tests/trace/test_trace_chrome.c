/* SPDX-License-Identifier: MIT */
/*
 * tests/trace/test_trace_chrome.c - the Chrome trace-event JSON writer.
 *
 * Owns: round trips of every event kind through a strict JSON parser
 * (escaping, time units, flows, metadata, argument truncation, write
 * errors).  The engine-driven trace is tested in test_trace_observer.c.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/trace_chrome.h"
#include "tests/support/json_read.h"

struct memfile {
	char *buf;
	size_t len;
	FILE *f;
};

static void mem_open(struct memfile *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
}

static json_t *mem_close_parse(struct memfile *m)
{
	fclose(m->f);
	json_error_t err;
	json_t *j = json_loadb(m->buf, m->len, 0, &err);
	if (!j)
		fail_msg("invalid JSON (%s):\n%s", err.text, m->buf);
	free(m->buf);
	return j;
}

static const json_t *events_of(const json_t *doc)
{
	const json_t *ev = jget(doc, "traceEvents");
	assert_non_null(ev);
	assert_true(json_is_array(ev));
	return ev;
}

static const json_t *find_event(const json_t *evs, const char *ph, const char *name)
{
	for (size_t i = 0; i < json_array_size(evs); i++) {
		const char *p = jget_str(json_array_get(evs, i), "ph");
		const char *n = jget_str(json_array_get(evs, i), "name");
		if (p && n && strcmp(p, ph) == 0 && strcmp(n, name) == 0)
			return json_array_get(evs, i);
	}
	return NULL;
}

static void test_empty_trace_is_valid_json(void **state)
{
	(void)state;
	struct memfile m;
	mem_open(&m);
	struct sim_trace *tr;
	assert_int_equal(sim_trace_create(m.f, &tr), 0);
	assert_int_equal(sim_trace_finish(tr), 0);
	assert_int_equal(sim_trace_finish(tr), 0); /* idempotent */
	sim_trace_destroy(tr);
	json_t *doc = mem_close_parse(&m);
	assert_int_equal(json_array_size(events_of(doc)), 0);
	assert_string_equal(jget_str(doc, "displayTimeUnit"), "ns");
	json_decref(doc);
}

static void test_slices_instants_flows_round_trip(void **state)
{
	(void)state;
	struct memfile m;
	mem_open(&m);
	struct sim_trace *tr;
	assert_int_equal(sim_trace_create(m.f, &tr), 0);
	sim_trace_process(tr, 1, "sim NIC node 1");
	sim_trace_track(tr, 1, 0x12, "QP 0x12 send");
	sim_trace_track(tr, 1, 0x12, "QP 0x12 send (again)"); /* ignored */
	struct sim_trace_args a;
	sim_trace_args_init(&a);
	sim_trace_args_str(&a, "wqe", "write \"x\"\\y\n\x01");
	sim_trace_args_u64(&a, "counter", 7);
	sim_trace_args_hex(&a, "qpn", 0x12);
	sim_trace_slice(tr, 1, 0x12, "RDMA_WRITE", "exec", 1500000, 170000, &a);
	sim_trace_instant(tr, 1, 0x12, "hazard", "hazard", 1234567891, NULL);
	sim_trace_flow_begin(tr, 1, 0x12, "patch", 42, 1500000);
	sim_trace_flow_end(tr, 1, 0x13, "patch", 42, 2000000);
	assert_int_equal(sim_trace_events(tr), 7);
	sim_trace_destroy(tr);

	json_t *doc = mem_close_parse(&m);
	const json_t *evs = events_of(doc);
	assert_int_equal(json_array_size(evs), 7);

	const json_t *meta = find_event(evs, "M", "thread_name");
	assert_non_null(meta);
	assert_string_equal(jget_str(jget(meta, "args"), "name"), "QP 0x12 send");
	assert_non_null(find_event(evs, "M", "process_name"));

	const json_t *x = find_event(evs, "X", "RDMA_WRITE");
	assert_non_null(x);
	assert_true(jget_num(x, "ts", -1) == 1.5);
	assert_true(jget_num(x, "dur", -1) == 0.17);
	assert_true(jget_num(x, "tid", -1) == 0x12);
	assert_string_equal(jget_str(x, "cat"), "exec");
	const json_t *args = jget(x, "args");
	assert_string_equal(jget_str(args, "wqe"), "write \"x\"\\y\n\x01");
	assert_true(jget_num(args, "counter", -1) == 7);
	assert_string_equal(jget_str(args, "qpn"), "0x12");

	const json_t *i = find_event(evs, "i", "hazard");
	assert_non_null(i);
	assert_string_equal(jget_str(i, "s"), "t");
	assert_true(jget_num(i, "ts", -1) > 1234.567890 && jget_num(i, "ts", -1) < 1234.567892);

	const json_t *s = find_event(evs, "s", "patch");
	const json_t *f = find_event(evs, "f", "patch");
	assert_non_null(s);
	assert_non_null(f);
	assert_true(jget_num(s, "id", -1) == jget_num(f, "id", -2));
	assert_string_equal(jget_str(f, "bp"), "e");
	json_decref(doc);
}

/* NICs' node ids are random per device: the trace numbers NICs 1, 2, ...
 * in order of first use, so two runs of one program give the same pids. */
static void test_pids_are_dense(void **state)
{
	(void)state;
	struct memfile m;
	mem_open(&m);
	struct sim_trace *tr;
	assert_int_equal(sim_trace_create(m.f, &tr), 0);
	sim_trace_process(tr, 0xdeadbeef, "sim NIC");
	sim_trace_process(tr, 0x1234567, "sim NIC");
	sim_trace_instant(tr, 0x1234567, 1, "b", "x", 2000, NULL);
	sim_trace_instant(tr, 0xdeadbeef, 1, "a", "x", 1000, NULL);
	sim_trace_destroy(tr);

	json_t *doc = mem_close_parse(&m);
	const json_t *evs = events_of(doc);
	assert_true(jget_num(find_event(evs, "i", "a"), "pid", -1) == 1);
	assert_true(jget_num(find_event(evs, "i", "b"), "pid", -1) == 2);
	json_decref(doc);
}

static void test_args_overflow_stays_valid(void **state)
{
	(void)state;
	struct sim_trace_args a;
	sim_trace_args_init(&a);
	char big[300];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	unsigned added = 0;
	for (unsigned k = 0; k < 10; k++) {
		char key[8];
		snprintf(key, sizeof(key), "k%u", k);
		sim_trace_args_str(&a, key, big);
		if (!a.truncated)
			added++;
	}
	assert_true(a.truncated);
	assert_true(added >= 2 && added < 10);
	assert_true(a.len < sizeof(a.buf));

	struct memfile m;
	mem_open(&m);
	struct sim_trace *tr;
	assert_int_equal(sim_trace_create(m.f, &tr), 0);
	sim_trace_slice(tr, 0, 1, "big", NULL, 0, 1, &a);
	sim_trace_destroy(tr);
	json_t *doc = mem_close_parse(&m);
	const json_t *x = json_array_get(events_of(doc), 0);
	assert_int_equal(json_object_size(jget(x, "args")), added);
	json_decref(doc);
}

static void test_write_error_reported(void **state)
{
	(void)state;
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		skip();
	struct sim_trace *tr;
	assert_int_equal(sim_trace_create(f, &tr), 0);
	for (int k = 0; k < 1000; k++)
		sim_trace_instant(tr, 0, 1, "x", NULL, (uint64_t)k, NULL);
	assert_int_equal(sim_trace_finish(tr), -EIO);
	sim_trace_destroy(tr);
	fclose(f);
	assert_int_equal(sim_trace_create(NULL, &tr), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_empty_trace_is_valid_json),
	    cmocka_unit_test(test_slices_instants_flows_round_trip),
	    cmocka_unit_test(test_pids_are_dense),
	    cmocka_unit_test(test_args_overflow_stays_valid),
	    cmocka_unit_test(test_write_error_reported),
	};
	return cmocka_run_group_tests_name("trace_chrome", tests, NULL, NULL);
}
