/* SPDX-License-Identifier: MIT */
/*
 * tests/cost/test_cost_profile.c - NIC cost profiles and the cost formula.
 *
 * Owns: loading (built-in, file, every error path with its position) and the
 * per-WQE charges against the numbers of docs/contracts.md contract 6 (RedN Fig. 7,
 * Fig. 8, Table 3).  Must not: depend on the engine.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <prism/wqe.h>

#include "sim/cost_profile.h"

static const char *cx5_text(size_t *len)
{
	const char *t = sim_cost_profile_builtin_text("cx5", len);
	assert_non_null(t);
	return t;
}

/* Parse @text; expect failure with @code and a message containing @needle. */
static void expect_error(const char *text, int code, const char *needle, unsigned line)
{
	struct sim_cost_profile p;
	struct diag_report d;
	int rc = sim_cost_profile_parse(text, strlen(text), "t.yaml", &p, &d);
	if (rc != code || !strstr(d.msg, needle) || (line && d.line != line))
		fail_msg("rc=%d (want %d) line=%u (want %u) msg='%s' (want '%s')", rc, code, d.line,
		         line, d.msg, needle);
}

/* cx5 text with the line starting with @key_line replaced by @repl. */
static char *cx5_edit(const char *key_line, const char *repl)
{
	size_t len;
	const char *t = cx5_text(&len);
	const char *at = strstr(t, key_line);
	assert_non_null(at);
	const char *eol = strchr(at, '\n');
	assert_non_null(eol);
	size_t head = (size_t)(at - t), rl = strlen(repl), tail = len - (size_t)(eol - t);
	char *out = malloc(head + rl + tail + 1);
	assert_non_null(out);
	memcpy(out, t, head);
	memcpy(out + head, repl, rl);
	memcpy(out + head + rl, eol, tail);
	out[head + rl + tail] = '\0';
	return out;
}

static unsigned line_of(const char *text, const char *needle)
{
	const char *at = strstr(text, needle);
	assert_non_null(at);
	unsigned line = 1;
	for (const char *q = text; q < at; q++)
		line += *q == '\n';
	return line;
}

static void test_builtin_cx5_matches_contract(void **state)
{
	(void)state;
	struct sim_cost_profile p;
	struct diag_report d;
	assert_int_equal(sim_cost_profile_builtin("cx5", &p, &d), 0);
	assert_string_equal(p.name, "cx5");
	assert_int_equal(p.processing_units, 8);
	assert_true(p.latency_ns[SIM_VERB_NOP] == 1210);
	assert_true(p.latency_ns[SIM_VERB_WRITE] == 1600);
	assert_true(p.latency_ns[SIM_VERB_READ] == 1800);
	assert_true(p.latency_ns[SIM_VERB_ATOMIC] == 1800);
	assert_true(p.chain_ns[SIM_ORDER_WQ] == 170);
	assert_true(p.chain_ns[SIM_ORDER_COMPLETION] == 190);
	assert_true(p.chain_ns[SIM_ORDER_DOORBELL] == 540);
	assert_true(p.throughput_mops[SIM_VERB_ATOMIC] == 8.4);
	assert_true(p.throughput_mops[SIM_VERB_READ] == 65);
	assert_true(p.network_ns == 250);
	assert_string_equal(sim_cost_profile_builtin_names()[0], "cx5");
	assert_null(sim_cost_profile_builtin_names()[1]);
}

static void test_file_equals_builtin(void **state)
{
	(void)state;
	struct sim_cost_profile a, b;
	struct diag_report d;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	assert_int_equal(sim_cost_profile_builtin("cx5", &a, &d), 0);
	int rc = sim_cost_profile_load_file("profiles/cx5.yaml", &b, &d);
	if (rc)
		fail_msg("%s", d.msg);
	assert_memory_equal(&a, &b, sizeof(a));
}

static void test_unknown_builtin_and_missing_file(void **state)
{
	(void)state;
	struct sim_cost_profile p;
	struct diag_report d;
	assert_int_equal(sim_cost_profile_builtin("cx9", &p, &d), -ENOENT);
	assert_non_null(strstr(d.msg, "cx9"));
	assert_int_equal(sim_cost_profile_load_file("profiles/no-such.yaml", &p, &d), -ENOENT);
	assert_non_null(strstr(d.msg, "no-such.yaml: cannot open"));
	assert_null(sim_cost_profile_builtin_text("cx9", NULL));
}

static void test_bad_yaml_has_position(void **state)
{
	(void)state;
	expect_error("schema: 1\nname: [cx5\n", -EINVAL, "t.yaml:3:1: bad YAML", 3);
	expect_error("schema: 1\n  name: x\n", -EINVAL, "bad YAML", 2);
	expect_error("", -EINVAL, "empty profile", 0);
	expect_error("- 1\n- 2\n", -EINVAL, "t.yaml:1:1: a profile is a mapping", 1);
}

static void test_missing_field_names_section_line(void **state)
{
	(void)state;
	char *t = cx5_edit("  doorbell: 540", "");
	unsigned line = line_of(t, "chain_ns:");
	char want[96];
	snprintf(want, sizeof(want), "t.yaml:%u:1: missing field 'chain_ns.doorbell' in section",
	         line);
	expect_error(t, -EINVAL, want, line);
	free(t);

	t = cx5_edit("processing_units: 8", "");
	expect_error(t, -EINVAL, "missing field 'processing_units'", 0);
	free(t);
}

static void test_field_errors_have_line_and_column(void **state)
{
	(void)state;
	struct {
		const char *line, *repl, *needle;
		unsigned col;
	} cases[] = {
	    {"  nop: 1210", "  nopp: 1210", "unknown key 'nopp' in 'latency_ns'", 3},
	    {"  nop: 1210", "  nop: fast", "'latency_ns.nop': 'fast' is not a number", 8},
	    {"  nop: 1210", "  nop: -5", "'latency_ns.nop' = -5 is out of range", 8},
	    {"  nop: 1210", "  nop: \"1210\"", "must be a plain number", 8},
	    {"  nop: 1210", "  nop: [1, 2]", "must be a single value, not a list", 8},
	    {"processing_units: 8", "processing_units: 2.5", "must be a whole number", 19},
	    {"schema: 1", "schema: 2", "'schema' = 2 is out of range [1, 1]", 9},
	    {"name: cx5", "name: a-very-long-profile-name-that-overflows", "1 to 31 characters", 7},
	    {"name: cx5", "bogus: 1", "unknown key 'bogus'", 1},
	    {"  wq: 170", "  wq: 170\n  wq: 171", "duplicate key 'chain_ns.wq'", 3},
	    {"payload:", "turbo:", "unknown section 'turbo'", 1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *t = cx5_edit(cases[i].line, cases[i].repl);
		struct sim_cost_profile p;
		struct diag_report d;
		int rc = sim_cost_profile_parse(t, strlen(t), "t.yaml", &p, &d);
		/* The error is on the replaced line (its last line for multi-line edits). */
		const char *last = strrchr(cases[i].repl, '\n');
		unsigned want_line = line_of(t, cases[i].repl) + (last ? 1 : 0);
		if (rc != -EINVAL || !strstr(d.msg, cases[i].needle) || d.line != want_line ||
		    d.col != cases[i].col)
			fail_msg("case %zu: rc=%d %u:%u (want %u:%u) '%s'", i, rc, d.line, d.col,
			         want_line, cases[i].col, d.msg);
		free(t);
	}
}

/* Every prefix of a valid profile either parses or fails cleanly. */
static void test_truncations_never_crash(void **state)
{
	(void)state;
	size_t len;
	const char *t = cx5_text(&len);
	unsigned ok = 0, bad = 0;
	for (size_t n = 0; n <= len; n++) {
		struct sim_cost_profile p;
		struct diag_report d;
		int rc = sim_cost_profile_parse(t, n, "cut.yaml", &p, &d);
		if (rc == 0) {
			ok++;
		} else {
			assert_int_equal(rc, -EINVAL);
			assert_true(strncmp(d.msg, "cut.yaml", 8) == 0);
			bad++;
		}
	}
	assert_true(ok >= 1); /* the full text (and its trailing-comment cuts) */
	assert_true(bad > len / 2);
}

/* Charge one WQE; returns latency in ns (busy in *busy_ns when non-NULL). */
static uint64_t charge_busy(const struct sim_cost_profile *p, uint8_t op, enum sim_order o,
                            uint32_t bytes, bool remote, uint64_t *busy_ns)
{
	struct sim_cost_query q = {.opcode = op, .order = o, .bytes = bytes, .loopback = !remote};
	struct sim_cost c;
	sim_cost_profile_observer_cost((void *)p, &q, &c);
	assert_true(c.latency >= c.busy);
	if (busy_ns)
		*busy_ns = c.busy / 1000;
	return c.latency / 1000;
}

static uint64_t charge(const struct sim_cost_profile *p, uint8_t op, enum sim_order o,
                       uint32_t bytes, bool remote)
{
	return charge_busy(p, op, o, bytes, remote, NULL);
}

static void test_single_verb_latency_fig7(void **state)
{
	(void)state;
	struct sim_cost_profile p;
	assert_int_equal(sim_cost_profile_builtin("cx5", &p, NULL), 0);
	assert_int_equal(charge(&p, PRISM_OP_NOP, SIM_ORDER_HOST, 0, false), 1210);
	assert_int_equal(charge(&p, PRISM_OP_RDMA_WRITE, SIM_ORDER_HOST, 64, false), 1600);
	assert_int_equal(charge(&p, PRISM_OP_RDMA_READ, SIM_ORDER_HOST, 64, false), 1800);
	assert_int_equal(charge(&p, PRISM_OP_ATOMIC_CS, SIM_ORDER_HOST, 0, false), 1800);
	assert_int_equal(charge(&p, PRISM_OP_ATOMIC_FA, SIM_ORDER_HOST, 0, false), 1800);
	/* the wire adds ~0.25 us (remote minus loopback, Fig. 7) to verbs that cross it; a
	 * NOP or an ordering verb stays on the NIC */
	assert_int_equal(charge(&p, PRISM_OP_RDMA_WRITE, SIM_ORDER_HOST, 64, true), 1850);
	assert_int_equal(charge(&p, PRISM_OP_NOP, SIM_ORDER_HOST, 0, true), 1210);
	/* payload: 4 KB WRITE adds (4096-64)*8/50 ns */
	assert_int_equal(charge(&p, PRISM_OP_RDMA_WRITE, SIM_ORDER_HOST, 4096, false), 1600 + 645);
}

/*
 * Fig. 8: n NOOPs take 1.21 us + (n-1) x {0.17, 0.19, 0.54} us.  The chains are
 * composed the way the engine composes costs: a queue starts its next WQE
 * when the previous one's busy time is over, a WAIT releases when the WR it
 * waits for completed (start + latency), and a managed queue's WQE starts
 * after the SEND_EN that enabled it.
 *   WQ:          NOP NOP NOP ...
 *   completion:  NOP (WAIT NOP) (WAIT NOP) ...
 *   doorbell:    NOP (WAIT SEND_EN | NOP) (WAIT SEND_EN | NOP) ...
 */
struct step {
	uint64_t start, busy, done;
};

static struct step run_step(const struct sim_cost_profile *p, uint8_t op, enum sim_order o,
                            uint64_t start)
{
	struct sim_cost_query q = {.opcode = op, .order = o, .loopback = true};
	struct sim_cost c;
	sim_cost_profile_charge(p, &q, &c);
	return (struct step){.start = start, .busy = c.busy, .done = start + c.latency};
}

static uint64_t fig8_chain_ps(const struct sim_cost_profile *p, enum sim_order mode, unsigned n)
{
	struct step s = run_step(p, PRISM_OP_NOP, SIM_ORDER_HOST, 0);
	for (unsigned i = 1; i < n; i++) {
		if (mode == SIM_ORDER_WQ) {
			s = run_step(p, PRISM_OP_NOP, SIM_ORDER_WQ, s.start + s.busy);
			continue;
		}
		uint64_t t = s.done > s.start + s.busy ? s.done : s.start + s.busy;
		struct step w = run_step(p, PRISM_OP_CQE_WAIT, SIM_ORDER_WQ, t);
		t = w.start + w.busy;
		if (mode == SIM_ORDER_DOORBELL) {
			struct step e = run_step(p, PRISM_OP_SEND_ENABLE, SIM_ORDER_WQ, t);
			t = e.start + e.busy;
		}
		s = run_step(p, PRISM_OP_NOP, mode, t);
	}
	return s.done;
}

static void test_chain_latency_fig8(void **state)
{
	(void)state;
	struct sim_cost_profile p;
	assert_int_equal(sim_cost_profile_builtin("cx5", &p, NULL), 0);
	const struct {
		enum sim_order order;
		double per_wr_us;
	} modes[] = {
	    {SIM_ORDER_WQ, 0.17}, {SIM_ORDER_COMPLETION, 0.19}, {SIM_ORDER_DOORBELL, 0.54}};
	for (size_t m = 0; m < 3; m++) {
		for (unsigned n = 1; n <= 16; n++) {
			double got = (double)fig8_chain_ps(&p, modes[m].order, n) / 1e6;
			double want = 1.21 + (n - 1) * modes[m].per_wr_us;
			if (got < want * 0.995 || got > want * 1.005)
				fail_msg("%s order, %u NOOPs: %.3f us, RedN Fig. 8: %.3f us",
				         sim_order_name(modes[m].order), n, got, want);
		}
	}
}

/* Table 3: a port of 8 PUs, each busy busy_ns per verb, gives the table's rates. */
static void test_throughput_table3(void **state)
{
	(void)state;
	struct sim_cost_profile p;
	assert_int_equal(sim_cost_profile_builtin("cx5", &p, NULL), 0);
	const struct {
		uint8_t op;
		double mops;
	} rows[] = {{PRISM_OP_RDMA_READ, 65},
	            {PRISM_OP_RDMA_WRITE, 63},
	            {PRISM_OP_ATOMIC_CS, 8.4},
	            {PRISM_OP_ATOMIC_FA, 8.4},
	            {PRISM_OP_ATOMIC_MASKED_CS, 8.4}};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint64_t busy;
		charge_busy(&p, rows[i].op, SIM_ORDER_WQ, 64, false, &busy);
		double port_mops = p.processing_units * 1000.0 / (double)busy;
		assert_true(port_mops > rows[i].mops * 0.99 && port_mops < rows[i].mops * 1.01);
	}
	assert_int_equal(sim_cost_verb_of(PRISM_OP_SEND_ENABLE), SIM_VERB_ENABLE);
	assert_int_equal(sim_cost_verb_of(PRISM_OP_CQE_WAIT), SIM_VERB_WAIT);
	assert_int_equal(sim_cost_verb_of(0xff), SIM_VERB_NOP);
	assert_string_equal(sim_verb_name(SIM_VERB_MASKED_ATOMIC), "masked_atomic");
	assert_string_equal(sim_order_name(SIM_ORDER_DOORBELL), "doorbell");
	/* ordering verbs cost the Fig. 8 glue and never pay for the wire; a READ
	 * behind WAIT + SEND_EN pays the rest of the doorbell increment, its
	 * execution and the wire */
	assert_int_equal(charge(&p, PRISM_OP_SEND_ENABLE, SIM_ORDER_WQ, 0, true), 20);
	assert_int_equal(charge(&p, PRISM_OP_CQE_WAIT, SIM_ORDER_COMPLETION, 0, true), 20);
	assert_int_equal(charge(&p, PRISM_OP_RDMA_READ, SIM_ORDER_DOORBELL, 64, true),
	                 540 - 2 * 20 + 590 + 250);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_builtin_cx5_matches_contract),
	    cmocka_unit_test(test_file_equals_builtin),
	    cmocka_unit_test(test_unknown_builtin_and_missing_file),
	    cmocka_unit_test(test_bad_yaml_has_position),
	    cmocka_unit_test(test_missing_field_names_section_line),
	    cmocka_unit_test(test_field_errors_have_line_and_column),
	    cmocka_unit_test(test_truncations_never_crash),
	    cmocka_unit_test(test_single_verb_latency_fig7),
	    cmocka_unit_test(test_chain_latency_fig8),
	    cmocka_unit_test(test_throughput_table3),
	};
	return cmocka_run_group_tests_name("cost_profile", tests, NULL, NULL);
}
