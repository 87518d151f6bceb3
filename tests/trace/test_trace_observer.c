/* SPDX-License-Identifier: MIT */
/*
 * tests/trace/test_trace_observer.c - engine events to a Chrome trace.
 *
 * Owns: running real chains on the engine with the trace observer (RedN's
 * hash get across two nodes into one shared trace; a deliberate
 * fetched-then-modified hazard) and reading the file back with a strict
 * JSON parser: one execution slice per executed WQE carrying the codec's
 * text, fetch instants, patch arrows whose two halves match, hazards.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/cost_profile.h"
#include "sim/sim.h"
#include "sim/trace_observer.h"
#include "tests/support/host_verbs.h"
#include "tests/support/json_read.h"
#include "tests/support/redn_hash_chain.h"

static json_t *parse_buf(char *buf, size_t len)
{
	json_error_t err;
	json_t *j = json_loadb(buf, len, 0, &err);
	if (!j)
		fail_msg("trace is not valid JSON: %s", err.text);
	return j;
}

static unsigned count_ph(const json_t *evs, const char *ph, const char *cat)
{
	unsigned n = 0;
	for (size_t i = 0; i < json_array_size(evs); i++) {
		const char *p = jget_str(json_array_get(evs, i), "ph");
		const char *c = jget_str(json_array_get(evs, i), "cat");
		if (p && strcmp(p, ph) == 0 && (!cat || (c && strcmp(c, cat) == 0)))
			n++;
	}
	return n;
}

static void test_hash_get_trace(void **state)
{
	(void)state;
	struct sim_cost_profile prof;
	assert_int_equal(sim_cost_profile_builtin("cx5", &prof, NULL), 0);
	struct sim_observer cost = {.ctx = &prof, .cost = sim_cost_profile_observer_cost};

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	struct sim_trace *tr;
	assert_int_equal(sim_trace_create(f, &tr), 0);
	struct sim_trace_observer *os, *oc;
	struct sim_trace_observer_opts so = {.shared = tr, .pid = 1, .next = &cost};
	struct sim_trace_observer_opts co = {.shared = tr, .pid = 2, .next = &cost};
	assert_int_equal(sim_trace_observer_create(&so, &os), 0);
	assert_int_equal(sim_trace_observer_create(&co, &oc), 0);

	struct sim_dev *srv, *cli;
	struct sim_dev_opts o = {.sz = sizeof(o),
	                         .seed = 1,
	                         .fw = SIM_FW_RELAXED,
	                         .hazard = SIM_HAZARD_FAIL,
	                         .node = 1,
	                         .obs = sim_trace_observer_hooks(os)};
	assert_int_equal(sim_dev_open(&o, &srv), 0);
	o.node = 2;
	o.obs = sim_trace_observer_hooks(oc);
	assert_int_equal(sim_dev_open(&o, &cli), 0);
	struct sim_fabric *fab;
	assert_int_equal(sim_fabric_create(&fab), 0);
	assert_int_equal(sim_fabric_attach(fab, srv), 0);
	assert_int_equal(sim_fabric_attach(fab, cli), 0);
	struct redn_hash_cfg cfg = {.nbuckets = 8, .value_len = 64, .max_inflight = 2, .seed = 5};
	struct redn_hash *h;
	assert_int_equal(redn_hash_create(srv, cli, &cfg, &h), 0);
	assert_int_equal(redn_hash_post_get(h, redn_hash_key(h, 2), 2, NULL), 0);
	uint8_t miss[REDN_KEY_BYTES];
	memcpy(miss, redn_hash_key(h, 3), REDN_KEY_BYTES);
	miss[1] ^= 1;
	assert_int_equal(redn_hash_post_get(h, miss, 3, NULL), 0);
	assert_int_equal(sim_fabric_run(fab, 0), 0);
	struct sim_stats ss, cs;
	sim_dev_stats(srv, &ss);
	sim_dev_stats(cli, &cs);

	assert_int_equal(sim_trace_observer_finish(os), 0);
	assert_int_equal(sim_trace_observer_finish(oc), 0);
	uint64_t patches = sim_trace_observer_count(os, SIM_EV_PATCH);
	assert_int_equal(sim_trace_finish(tr), 0);
	redn_hash_destroy(h);
	sim_fabric_destroy(fab);
	sim_dev_close(cli);
	sim_dev_close(srv);
	sim_trace_observer_destroy(os);
	sim_trace_observer_destroy(oc);
	sim_trace_destroy(tr);
	fclose(f);

	json_t *doc = parse_buf(buf, len);
	const json_t *evs = jget(doc, "traceEvents");
	assert_non_null(evs);
	/* one slice per executed WQE, each with the codec's one-line text */
	assert_int_equal(count_ph(evs, "X", "exec"), ss.wqes_executed + cs.wqes_executed);
	assert_true(ss.wqes_executed >= 2 * REDN_HASH_SERVER_WQES);
	unsigned with_text = 0, cas = 0;
	for (size_t i = 0; i < json_array_size(evs); i++) {
		const json_t *e = json_array_get(evs, i);
		const char *cat = jget_str(e, "cat");
		if (!cat || strcmp(cat, "exec") != 0)
			continue;
		const char *text = jget_str(jget(e, "args"), "wqe");
		if (text && strlen(text) > 4)
			with_text++;
		if (strcmp(jget_str(e, "name"), "ATOMIC_CS") == 0)
			cas++;
	}
	assert_int_equal(with_text, ss.wqes_executed + cs.wqes_executed);
	assert_int_equal(cas, 2);
	assert_true(count_ph(evs, "i", "fetch") >= ss.wqes_executed);
	/* patch arrows: RECV scatters (2 per get), READ scatters (2), CAS (1 on a hit) */
	assert_true(patches >= 9);
	unsigned nbeg = count_ph(evs, "s", "patch"), nend = count_ph(evs, "f", "patch");
	assert_int_equal(nbeg, patches);
	assert_int_equal(nend, patches); /* every patched WQE executed and got its arrow */
	for (size_t i = 0; i < json_array_size(evs); i++) { /* every arrow end has its start */
		const char *p = jget_str(json_array_get(evs, i), "ph");
		if (!p || strcmp(p, "f") != 0)
			continue;
		double id = jget_num(json_array_get(evs, i), "id", -1);
		bool found = false;
		for (size_t k = 0; k < json_array_size(evs) && !found; k++) {
			const char *q = jget_str(json_array_get(evs, k), "ph");
			found = q && strcmp(q, "s") == 0 &&
			        jget_num(json_array_get(evs, k), "id", -2) == id;
		}
		assert_true(found);
		/* ...and ends where the patched WQE starts executing, on its queue */
		double tid = jget_num(json_array_get(evs, i), "tid", -1);
		double ts = jget_num(json_array_get(evs, i), "ts", -1);
		bool at_exec = false;
		for (size_t k = 0; k < json_array_size(evs) && !at_exec; k++) {
			const json_t *e = json_array_get(evs, k);
			const char *cat = jget_str(e, "cat");
			at_exec = cat && strcmp(cat, "exec") == 0 &&
			          jget_num(e, "tid", -2) == tid && jget_num(e, "ts", -2) == ts;
		}
		assert_true(at_exec);
	}
	assert_int_equal(count_ph(evs, "i", "hazard"), 0);
	json_decref(doc);
	free(buf);
}

/* A prefetched WQE rewritten before it executes shows up as a hazard. */
static void test_hazard_instant(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct sim_trace_observer *ob;
	struct sim_trace_observer_opts to = {.out = f, .pid = 1};
	assert_int_equal(sim_trace_observer_create(&to, &ob), 0);
	struct sim_dev *d;
	struct sim_dev_opts o = {.sz = sizeof(o),
	                         .seed = 3,
	                         .fw = SIM_FW_RELAXED,
	                         .hazard = SIM_HAZARD_WARN,
	                         .node = 1,
	                         .obs = sim_trace_observer_hooks(ob)};
	assert_int_equal(sim_dev_open(&o, &d), 0);
	struct sim_cq *cqa, *cqb;
	struct sim_cq_attr ca = {.ncqe = 16, .ignore_overrun = true};
	assert_int_equal(sim_cq_create(d, &ca, &cqa), 0);
	assert_int_equal(sim_cq_create(d, &ca, &cqb), 0);
	struct sim_qp *a, *b;
	struct sim_qp_attr qa = {.access = SIM_ACCESS_REMOTE_ALL,
	                         .send_cq = cqa,
	                         .recv_cq = cqa,
	                         .sq_bbs = 8,
	                         .rq_max_sge = 1,
	                         .flags = SIM_QP_CROSS_CHANNEL};
	assert_int_equal(sim_qp_create(d, &qa, &a), 0);
	qa.send_cq = qa.recv_cq = cqb;
	assert_int_equal(sim_qp_create(d, &qa, &b), 0);
	struct sim_qp_mod m = {.state = SIM_QPS_INIT};
	struct sim_qp *pair[2][2] = {{a, b}, {b, a}};
	for (int i = 0; i < 2; i++) {
		m = (struct sim_qp_mod){.state = SIM_QPS_INIT};
		assert_int_equal(sim_qp_modify(pair[i][0], &m), 0);
		m = (struct sim_qp_mod){
		    .state = SIM_QPS_RTR, .peer_node = 1, .peer_qpn = sim_qp_num(pair[i][1])};
		assert_int_equal(sim_qp_modify(pair[i][0], &m), 0);
		m = (struct sim_qp_mod){.state = SIM_QPS_RTS};
		assert_int_equal(sim_qp_modify(pair[i][0], &m), 0);
	}
	struct sim_mr *mr;
	assert_int_equal(sim_mr_reg(d, sim_qp_buf(a), sim_qp_buf_len(a),
	                            SIM_ACCESS_LOCAL_WRITE | SIM_ACCESS_REMOTE_WRITE, &mr),
	                 0);
	struct hv_qp ha, hb;
	hv_qp_init(&ha, a, 8, 0);
	hv_qp_init(&hb, b, 8, 0);
	/* A: WAIT for B's WRITE, then a NOP that was prefetched at the doorbell */
	struct prism_wqe w;
	hv_wqe(&w, PRISM_OP_CQE_WAIT, false);
	w.wait_en.index = 0; /* CQE number 0: B's WRITE */
	w.wait_en.obj_num = sim_cq_num(cqb);
	assert_true(hv_post_send(&ha, &w, false, NULL) >= 0);
	uint8_t *nop_slot;
	hv_wqe(&w, PRISM_OP_NOP, true);
	assert_true(hv_post_send(&ha, &w, false, &nop_slot) >= 0);
	assert_int_equal(hv_ring(&ha), 0);
	/* B: WRITE 4 bytes into the NOP's immediate */
	hv_wqe(&w, PRISM_OP_RDMA_WRITE, true);
	w.raddr.raddr = (uint64_t)(uintptr_t)(nop_slot + 12);
	w.raddr.rkey = sim_mr_rkey(mr);
	w.is_inline = true;
	w.inline_len = 4;
	memcpy(w.inline_data, "\x01\x02\x03\x04", 4);
	assert_true(hv_post_send(&hb, &w, false, NULL) >= 0);
	assert_int_equal(hv_ring(&hb), 0);
	assert_int_equal(sim_dev_run(d, 0), 0);
	struct sim_stats st;
	sim_dev_stats(d, &st);
	assert_int_equal(st.hazards, 1);
	assert_int_equal(sim_trace_observer_count(ob, SIM_EV_HAZARD), 1);
	assert_int_equal(sim_trace_observer_finish(ob), 0);
	sim_mr_dereg(mr);
	uint32_t qpn_a = sim_qp_num(a), qpn_b = sim_qp_num(b);
	sim_qp_destroy(a);
	sim_qp_destroy(b);
	sim_cq_destroy(cqa);
	sim_cq_destroy(cqb);
	sim_dev_close(d);
	sim_trace_observer_destroy(ob);
	fclose(f);

	json_t *doc = parse_buf(buf, len);
	const json_t *evs = jget(doc, "traceEvents");
	assert_int_equal(count_ph(evs, "i", "hazard"), 1);
	for (size_t i = 0; i < json_array_size(evs); i++) {
		const char *c = jget_str(json_array_get(evs, i), "cat");
		if (c && strcmp(c, "hazard") == 0) {
			const json_t *args = jget(json_array_get(evs, i), "args");
			/* on the changed queue's track, naming the bytes and the writer */
			assert_true(jget_num(json_array_get(evs, i), "tid", -1) == qpn_a);
			assert_true(jget_num(args, "offset", -1) == 12);
			char want[16];
			snprintf(want, sizeof(want), "0x%x", qpn_b);
			assert_string_equal(jget_str(args, "writer"), "remote request");
			assert_string_equal(jget_str(args, "src_qpn"), want);
		}
	}
	json_decref(doc);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hash_get_trace),
	    cmocka_unit_test(test_hazard_instant),
	};
	return cmocka_run_group_tests_name("trace_observer", tests, NULL, NULL);
}
