/* SPDX-License-Identifier: MIT */
/*
 * tests/rules/rules_main.c - the rules suite: every rule of every topic
 * table, on every backend, under each firmware profile the rule runs under.
 * A case is named "<id> <name>/<backend>/<profile>" after docs/nic-model.md
 * ("3.3 wait-blocks-until-cqe-index/mlx5emu/strict").  A case whose backend
 * has no device here, or lacks what the rule needs, skips and says why.
 * PRISM_RULES=<part of a case name> runs only the matching cases.
 *
 * It also checks the mapping with docs/nic-model.md both ways: every rule
 * here is a row of the document with the same number and name, and every
 * row whose test column says `rules` has a rule here.
 *
 * Owns: the case list, the fixture, the skip decisions, the mapping check.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/rules/rules.h"

static const struct rule_table *const tables[] = {
    &rules_verbs,  &rules_atomics, &rules_ordering, &rules_xc,     &rules_hazards,
    &rules_errors, &rules_cq,      &rules_firmware, &rules_engine,
};
#define N_TABLES (sizeof(tables) / sizeof(tables[0]))

struct rule_case {
	const struct rule *rule;
	const struct rx_backend *be;
	bool relaxed_fw;
	char name[112];
};

struct state {
	const struct rule_case *c;
	struct rx x;
	bool opened;
	char why[200];
};

/* ---- the fixture ----------------------------------------------------------- */

static void fixture(struct rx *x, const struct rule *r)
{
	x->src = rx_buf(x, 4096);
	x->dst = rx_buf(x, 4096);
	for (unsigned i = 0; i < 4096; i++)
		x->src[i] = (uint8_t)(i * 7 + 1);
	x->src_key = rx_key(x, x->src, 4096, RX_ALL);
	x->dst_key = rx_key(x, x->dst, 4096, RX_ALL);
	rx_cq(x, &x->cq_a, 64, false);
	rx_cq(x, &x->cq_b, 64, false);
	rx_qp(x, &x->a, &x->cq_a, &x->cq_a, 64, 16, r->flags_a);
	rx_qp(x, &x->b, &x->cq_b, &x->cq_b, 64, 16, r->flags_b);
	rx_pair(x, &x->a, &x->b);
}

/* Why the opened device cannot show @r, or NULL. */
static const char *unmet(struct rx *x, const struct rule *r, char *buf, size_t len)
{
	if (x->caps.relaxed_fw != x->relaxed_fw) {
		snprintf(buf, len, "the device runs %s firmware (%s); this variant needs %s",
		         x->caps.relaxed_fw ? "relaxed" : "strict", x->caps.fw_note,
		         x->relaxed_fw ? "relaxed" : "strict");
		return buf;
	}
	if ((r->needs & RULE_NEEDS_SIM_ENGINE) == RULE_NEEDS_SIM_ENGINE &&
	    x->ops != &core_sim_backend) {
		/* the emulator's NIC is a sim, but the mlx5 backend selects none
		 * of these modes */
		snprintf(buf, len, "the sim backend's own engine: %s", r->why_not);
		return buf;
	}
	if ((r->needs & RULE_NEEDS_SIM) && !rx_sim(x))
		return r->why_not;
	if ((r->needs & RULE_NEEDS_DETERM) && x->be->hardware)
		return r->why_not;
	if ((r->needs & (RULE_NEEDS_XC | RULE_NEEDS_WOD)) && !x->caps.cross_channel) {
		snprintf(buf, len, "the device has no cross-channel queues (cmd_hca_cap.cd = 0)");
		return buf;
	}
	if ((r->needs & RULE_NEEDS_WOD) && !x->caps.wait_on_data) {
		snprintf(buf, len, "the device has no wait-on-data (cmd_hca_cap.wait_on_data = 0)");
		return buf;
	}
	if ((r->needs & RULE_NEEDS_EVENTS) && (!x->ops->arm_cq || !x->ops->take_events)) {
		snprintf(buf, len, "the %s backend has no completion events (arm_cq NULL)",
		         x->ops->name);
		return buf;
	}
	if ((r->needs & RULE_NEEDS_MASKED) && (x->caps.masked_sizes & 0x3c) != 0x3c) {
		snprintf(buf, len, "the device lacks masked atomics of 4..32 bytes (sizes 0x%x)",
		         x->caps.masked_sizes);
		return buf;
	}
	return NULL;
}

static int setup(void **state)
{
	const struct rule_case *c = *state;
	struct state *s = calloc(1, sizeof(*s));
	char buf[160];

	assert_non_null(s);
	s->c = c;
	s->x.be = c->be;
	s->x.relaxed_fw = c->relaxed_fw;
	if (c->be->open(&s->x, c->relaxed_fw, c->rule->needs & RULE_HAZARD_FAIL, s->why,
	                sizeof(s->why))) {
		*state = s;
		return 0;
	}
	s->opened = true;
	if (s->x.ops->caps)
		assert_int_equal(s->x.ops->caps(s->x.dev, &s->x.caps), 0);
	else
		s->x.caps = (struct core_caps){
		    .cross_channel = true, .wait_on_data = true, .masked_sizes = 0x3c};
	const char *why = unmet(&s->x, c->rule, buf, sizeof(buf));
	if (why)
		snprintf(s->why, sizeof(s->why), "%s", why);
	else if (!(c->rule->needs & RULE_NO_FIXTURE))
		fixture(&s->x, c->rule);
	*state = s;
	return 0;
}

static void rx_free(struct rx *x)
{
	for (unsigned i = x->n_mrs; i-- > 0;)
		x->ops->dereg_mr(x->mrs[i]);
	for (unsigned i = x->n_qps; i-- > 0;)
		x->ops->destroy_qp(x->qps[i]);
	for (unsigned i = x->n_cqs; i-- > 0;)
		x->ops->destroy_cq(x->cqs[i]);
	for (unsigned i = x->n_pds; i-- > 0;)
		x->ops->dealloc_pd(x->pds[i]);
	for (unsigned i = 0; i < x->n_bufs; i++)
		free(x->bufs[i]);
}

/* Frees what the rule made; the emulator must not have complained about
 * any of it (a destroy it refused, an object left behind). */
static int teardown(void **state)
{
	struct state *s = *state;
	const char *last = NULL;
	int rc = 0;

	if (s->opened) {
		rx_free(&s->x);
		s->x.be->close(&s->x);
		if (s->x.be->loud_errors && s->x.be->loud_errors(&last)) {
			print_error("teardown: %s\n", last);
			rc = -1;
		}
	}
	free(s);
	return rc;
}

static void test_case(void **state)
{
	struct state *s = *state;

	if (s->why[0]) {
		print_message("rules: skipped: %s\n", s->why);
		skip();
	}
	s->c->rule->body(&s->x);
	/* the emulator answers what it does not implement loudly: none here */
	if (s->x.be->loud_errors) {
		const char *last = NULL;
		unsigned n = s->x.be->loud_errors(&last);
		if (n)
			fail_msg("%u loud emulator failures, the last: %s", n, last);
	}
}

/* ---- the mapping with docs/nic-model.md ------------------------------------ */

/* The rows of the document: "| 3.3 | `wait-blocks-until-cqe-index`: ..." */
struct doc_row {
	char id[8], name[64];
	bool in_rules; /* its test column says `rules` */
};

static size_t doc_rows(struct doc_row *rows, size_t cap)
{
	FILE *f = fopen("docs/nic-model.md", "r");
	char line[4096];
	size_t n = 0;

	if (!f)
		fail_msg("docs/nic-model.md: cannot open it (run from the repository root)");
	while (fgets(line, sizeof(line), f) && n < cap) {
		struct doc_row r = {0};
		char *cells[8];
		int nc = 0;

		if (sscanf(line, "| %7[0-9.a-z] | `%63[a-z0-9-]`", r.id, r.name) != 2)
			continue;
		for (char *p = line; *p && nc < 8; p++)
			if (*p == '|' && (p == line || p[-1] != '\\'))
				cells[nc++] = p + 1;
		/* | # | rule | status | test | hw | : the test column is the 4th */
		assert_true(nc >= 5);
		r.in_rules = !strncmp(cells[3], " `rules`", 8);
		rows[n++] = r;
	}
	fclose(f);
	return n;
}

static void test_rules_match_nic_model(void **state)
{
	static struct doc_row rows[128];
	size_t n = doc_rows(rows, 128);

	(void)state;
	assert_true(n > 50);
	for (size_t t = 0; t < N_TABLES; t++)
		for (size_t i = 0; i < tables[t]->n; i++) {
			const struct rule *r = &tables[t]->rules[i];
			size_t k = 0;

			while (k < n && strcmp(rows[k].id, r->id))
				k++;
			if (k == n || strcmp(rows[k].name, r->name) || !rows[k].in_rules)
				fail_msg("rule %s %s: no row \"| %s | `%s`\" with test `rules` in "
				         "docs/nic-model.md",
				         r->id, r->name, r->id, r->name);
		}
	for (size_t k = 0; k < n; k++) {
		bool found = false;

		for (size_t t = 0; t < N_TABLES && !found; t++)
			for (size_t i = 0; i < tables[t]->n && !found; i++)
				found = !strcmp(tables[t]->rules[i].id, rows[k].id);
		if (rows[k].in_rules && !found)
			fail_msg("docs/nic-model.md rule %s %s says `rules`, but tests/rules has "
			         "no body for it",
			         rows[k].id, rows[k].name);
	}
}

static void test_every_probe_has_a_rule(void **state)
{
	(void)state;
	rx_probes_check(tables, N_TABLES);
}

int main(void)
{
	enum { MAX_CASES = 1024 };
	static struct rule_case cases[MAX_CASES];
	static struct CMUnitTest tests[MAX_CASES + 2];
	const char *only = getenv("PRISM_RULES");
	unsigned n = 0, nc = 0;

	tests[n++] = (struct CMUnitTest){"rules_match_nic_model", test_rules_match_nic_model, NULL,
	                                 NULL, NULL};
	tests[n++] = (struct CMUnitTest){"every_probe_has_a_rule", test_every_probe_has_a_rule,
	                                 NULL, NULL, NULL};
	for (size_t b = 0; b < rx_n_backends; b++)
		for (size_t t = 0; t < N_TABLES; t++)
			for (size_t i = 0; i < tables[t]->n; i++)
				for (int fw = 0; fw < 2; fw++) {
					const struct rule *r = &tables[t]->rules[i];
					struct rule_case *c = &cases[nc];

					if (!((r->fw ? r->fw : RULE_STRICT) &
					      (fw ? RULE_RELAXED : RULE_STRICT)))
						continue;
					if (nc == MAX_CASES) {
						fprintf(stderr, "rules: more than %d cases\n",
						        MAX_CASES);
						return 1;
					}
					*c = (struct rule_case){
					    .rule = r, .be = &rx_backends[b], .relaxed_fw = fw};
					snprintf(c->name, sizeof(c->name), "%s %s/%s/%s", r->id,
					         r->name, rx_backends[b].name,
					         fw ? "relaxed" : "strict");
					if (only && !strstr(c->name, only))
						continue;
					nc++;
					tests[n++] = (struct CMUnitTest){c->name, test_case, setup,
					                                 teardown, c};
				}
	return _cmocka_run_group_tests("rules", tests, n, NULL, NULL);
}
