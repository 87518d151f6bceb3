/* SPDX-License-Identifier: MIT */
/*
 * tests/rules/test_rules.c - NIC-model rules written once against the
 * backend operations table (runtime/core/backend.h) and run on every
 * backend: the sim always, a hardware device when one is present (skipped,
 * with the reason, otherwise).
 *
 * Each rule's body is a probe of runtime/core/probe.c (the same programs
 * `prismc devices --probe` runs); this suite asserts that the verdict is the
 * one docs/nic-model.md states.  On the sim that checks the model; on a
 * ConnectX it checks the model against the hardware, so a failure there
 * means the rule (and the sim) must change.  The rules are the ones the
 * hardware audit put first: the WAIT threshold, a doorbell on a managed
 * queue, SEND_EN past the doorbell record, the SEND_EN index unit, the
 * fenced enable, WAIT / SEND_EN without the cross-channel role, and the
 * firmware's control-segment checks, under both firmware profiles.
 *
 * A backend plugs in with one entry in `backends`: its name and an open
 * function that returns the operations table, an opened device and the
 * node its QPs connect through, or a skip reason.
 *
 * Owns: the rule table and the backend table.  Must not: hold a rule body
 * of its own (the probe is the body), or fail for want of hardware.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/core/backend.h"
#include "runtime/core/probe.h"

/* ---- backends -------------------------------------------------------------- */

struct opened {
	const struct core_backend_ops *ops;
	struct core_be_dev *dev;
	uint32_t node;
};

/* Open a device of the backend with the given firmware profile; 0, or a
 * nonzero value with @why saying why it is not available here. */
typedef int open_fn(bool relaxed_fw, struct opened *out, char *why, size_t why_len);

static int open_sim(bool relaxed_fw, struct opened *out, char *why, size_t why_len)
{
	struct core_dev_attr attr = {
	    .sz = sizeof(attr), .relaxed_fw = relaxed_fw, .hazard_policy = 1, .node = 7};
	int err = core_sim_backend.open(&attr, &out->dev);

	if (err)
		snprintf(why, why_len, "sim backend open failed: %d", err);
	out->ops = &core_sim_backend;
	out->node = attr.node;
	return err;
}

/* No hardware backend in this build yet: its open function goes here. */
static int open_mlx5(bool relaxed_fw, struct opened *out, char *why, size_t why_len)
{
	(void)relaxed_fw;
	(void)out;
	snprintf(why, why_len,
	         "no mlx5 backend in this build (runtime/mlx5): the rule runs on the sim only");
	return -1;
}

static const struct {
	const char *name;
	open_fn *open;
} backends[] = {
    {"sim", open_sim},
    {"mlx5", open_mlx5},
};
#define N_BACKENDS (sizeof(backends) / sizeof(backends[0]))

/* ---- rules ------------------------------------------------------------------- */

/* What docs/nic-model.md says each probe shows (relaxed / strict firmware). */
static const struct {
	enum core_probe_id probe;
	const char *rule; /* docs/nic-model.md */
	enum core_probe_verdict relaxed, strict;
} rules[] = {
    {CORE_PROBE_WAIT_CQE_INDEX, "3.3 wait-blocks-until-cqe-index", CORE_PROBE_YES, CORE_PROBE_YES},
    {CORE_PROBE_MANAGED_DOORBELL, "3.5 managed-started-by-doorbell", CORE_PROBE_YES,
     CORE_PROBE_YES},
    {CORE_PROBE_SEND_EN_PAST_DBREC, "3.8 send-en-past-doorbell-record", CORE_PROBE_YES,
     CORE_PROBE_YES},
    {CORE_PROBE_SEND_EN_BB_UNITS, "3.6 send-en-absolute-index (BB units)", CORE_PROBE_YES,
     CORE_PROBE_YES},
    {CORE_PROBE_FENCED_ENABLE, "3.15a fence-orders-enable", CORE_PROBE_YES, CORE_PROBE_YES},
    {CORE_PROBE_WAIT_NO_XC, "3.7 enable-needs-cross-channel (WAIT: no)", CORE_PROBE_YES,
     CORE_PROBE_YES},
    {CORE_PROBE_SEND_EN_NEEDS_XC, "3.7 enable-needs-cross-channel (SEND_EN)", CORE_PROBE_YES,
     CORE_PROBE_YES},
    {CORE_PROBE_RELAXED_INDEX, "4.1 strict-checks-wqe-index", CORE_PROBE_YES, CORE_PROBE_NO},
    {CORE_PROBE_RELAXED_QPN, "4.2 strict-checks-qpn", CORE_PROBE_YES, CORE_PROBE_NO},
};
#define N_RULES (sizeof(rules) / sizeof(rules[0]))

struct rule_case {
	unsigned rule, backend;
	bool relaxed_fw;
	char name[96];
};

static void test_rule(void **state)
{
	const struct rule_case *c = *state;
	struct opened d = {0};
	char why[160] = "";

	if (backends[c->backend].open(c->relaxed_fw, &d, why, sizeof(why))) {
		print_message("%s: SKIP: %s\n", c->name, why);
		skip();
	}
	struct core_probe_report rep = {0};
	int err = core_probe_run(d.ops, d.dev, d.node, rules[c->rule].probe, &rep);
	d.ops->close(d.dev);
	assert_int_equal(err, 0);
	enum core_probe_verdict want =
	    c->relaxed_fw ? rules[c->rule].relaxed : rules[c->rule].strict;
	enum core_probe_verdict got = rep.v[rules[c->rule].probe];
	if (got != want)
		fail_msg("%s: rule %s: the device says %s (%s), the model %s", c->name,
		         rules[c->rule].rule, core_probe_verdict_name(got),
		         rep.detail[rules[c->rule].probe], core_probe_verdict_name(want));
}

/* Every probe has a rule here (a probe without one would test nothing). */
static void test_every_probe_has_a_rule(void **state)
{
	(void)state;
	for (unsigned p = 0; p < CORE_PROBE__COUNT; p++) {
		bool found = false;
		for (unsigned r = 0; r < N_RULES; r++)
			found |= rules[r].probe == (enum core_probe_id)p;
		if (!found)
			fail_msg("probe %s has no rule", core_probe_name((enum core_probe_id)p));
	}
}

int main(void)
{
	enum { N_CASES = N_RULES * N_BACKENDS * 2 };
	static struct rule_case cases[N_CASES];
	static struct CMUnitTest tests[N_CASES + 1];
	unsigned n = 0;

	tests[n++] = (struct CMUnitTest){"every_probe_has_a_rule", test_every_probe_has_a_rule,
	                                 NULL, NULL, NULL};
	for (unsigned b = 0; b < N_BACKENDS; b++)
		for (unsigned r = 0; r < N_RULES; r++)
			for (int fw = 1; fw >= 0; fw--) {
				struct rule_case *c = &cases[n - 1];
				*c = (struct rule_case){.rule = r, .backend = b, .relaxed_fw = fw};
				snprintf(c->name, sizeof(c->name), "%s/%s/%s",
				         core_probe_name(rules[r].probe), backends[b].name,
				         fw ? "relaxed" : "strict");
				tests[n++] = (struct CMUnitTest){c->name, test_rule, NULL, NULL, c};
			}
	return _cmocka_run_group_tests("rules", tests, n, NULL, NULL);
}
