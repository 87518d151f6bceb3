/* SPDX-License-Identifier: MIT */
/*
 * tests/rules/rules_probe.c - the behaviour probe (runtime/core/probe.c, what
 * `prismc devices --probe` runs and the loader trusts) checked against the
 * rules it reports on.  A rule's body calls rx_probes() with its number: each
 * probe of that rule runs on the rule's device and must give the verdict
 * docs/nic-model.md states, so the probe and the rule cannot drift apart.
 * rx_probes_check: every probe belongs to a rule that exists.
 *
 * Owns: the probe -> rule table.
 */
#include "runtime/core/probe.h"
#include "tests/rules/rules.h"

/* What docs/nic-model.md says each probe shows (relaxed / strict firmware). */
static const struct {
	enum core_probe_id probe;
	const char *rule; /* docs/nic-model.md number */
	enum core_probe_verdict relaxed, strict;
} probes[] = {
    {CORE_PROBE_WAIT_CQE_INDEX, "3.3", CORE_PROBE_YES, CORE_PROBE_YES},
    {CORE_PROBE_MANAGED_DOORBELL, "3.5", CORE_PROBE_YES, CORE_PROBE_YES},
    {CORE_PROBE_SEND_EN_BB_UNITS, "3.6", CORE_PROBE_YES, CORE_PROBE_YES},
    {CORE_PROBE_WAIT_NO_XC, "3.7", CORE_PROBE_YES, CORE_PROBE_YES},
    {CORE_PROBE_SEND_EN_NEEDS_XC, "3.7", CORE_PROBE_YES, CORE_PROBE_YES},
    {CORE_PROBE_SEND_EN_PAST_DBREC, "3.8", CORE_PROBE_YES, CORE_PROBE_YES},
    {CORE_PROBE_FENCED_ENABLE, "3.15a", CORE_PROBE_YES, CORE_PROBE_YES},
    {CORE_PROBE_RELAXED_INDEX, "4.1", CORE_PROBE_YES, CORE_PROBE_NO},
    {CORE_PROBE_RELAXED_QPN, "4.2", CORE_PROBE_YES, CORE_PROBE_NO},
};
#define N_PROBES (sizeof(probes) / sizeof(probes[0]))

void rx_probes(struct rx *x, const char *rule)
{
	unsigned ran = 0;

	for (size_t i = 0; i < N_PROBES; i++) {
		struct core_probe_report rep = {0};

		if (strcmp(probes[i].rule, rule))
			continue;
		/* the probe's rig lets the NIC run through progress() */
		assert_int_equal(
		    core_probe_run(x->probe_ops, x->dev, x->node, probes[i].probe, &rep), 0);
		enum core_probe_verdict want = x->relaxed_fw ? probes[i].relaxed : probes[i].strict;
		enum core_probe_verdict got = rep.v[probes[i].probe];
		if (got != want)
			fail_msg("probe %s: the device says %s (%s), rule %s says %s",
			         core_probe_name(probes[i].probe), core_probe_verdict_name(got),
			         rep.detail[probes[i].probe], rule, core_probe_verdict_name(want));
		ran++;
	}
	assert_true(ran > 0);
}

void rx_probes_check(const struct rule_table *const *tables, size_t n_tables)
{
	for (unsigned p = 0; p < CORE_PROBE__COUNT; p++) {
		const char *rule = NULL;
		bool found = false;

		for (size_t i = 0; i < N_PROBES; i++)
			if (probes[i].probe == (enum core_probe_id)p)
				rule = probes[i].rule;
		if (!rule)
			fail_msg("probe %s has no rule", core_probe_name((enum core_probe_id)p));
		for (size_t t = 0; t < n_tables; t++)
			for (size_t i = 0; i < tables[t]->n; i++)
				found |= !strcmp(tables[t]->rules[i].id, rule);
		if (!found)
			fail_msg("probe %s: rule %s is not in tests/rules",
			         core_probe_name((enum core_probe_id)p), rule);
	}
}
