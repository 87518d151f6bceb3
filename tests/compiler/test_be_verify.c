/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/test_be_verify.c - the object-level verifier: one test per
 * rejection (each takes a verified object and breaks exactly one property),
 * and the load-time path (YAML round trip, then verify from the object
 * alone).
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

#include "compiler/cmd.h"
#include "compiler/compile.h"
#include "compiler/frontend.h"
#include "chain/chain_verify.h"
#include "tests/compiler/be_helpers.h"

static const char *src_if = "struct bucket { key: be24; pad: u8[5]; value: *u8[64] in values; }\n"
                            "region table: bucket[1024] readonly;\n"
                            "region values size 65536 readonly;\n"
                            "offload get(key: be24, b: *bucket in table) -> u8[64] {\n"
                            "  if (b.key == key) { return *b.value; }\n}\n";

static int setup(void **state)
{
	struct chainobj *o = be_compile(src_if, NULL, IR_PROFILE_RELAXED, NULL);
	if (!o)
		return -1;
	*state = o;
	return 0;
}

static int teardown(void **state)
{
	chainobj_free(*state);
	return 0;
}

static void expect(const struct chainobj *o, uint32_t budget, enum chain_verify_err err)
{
	struct chain_verify_report rep;
	int rc = chain_verify(o, budget, &rep);
	if (rep.err != err)
		fprintf(stderr, "got: %s\n", rep.msg);
	assert_int_equal(rep.err, err);
	assert_int_equal(rc == 0, err == CHAIN_VERIFY_E_OK);
}

static void test_accepts_compiled(void **state)
{
	const struct chainobj *o = *state;
	struct chain_verify_report rep;
	assert_int_equal(chain_verify(o, 0, &rep), 0);
	assert_int_equal(rep.wr_per_invocation, 9); /* request gate included */
	assert_int_equal(rep.barriers, 2);
	assert_int_equal(rep.regions_touched, 3);
	assert_true(o->summary.verified);
	assert_int_equal(o->summary.wr_per_invocation, 9);
}

static void test_rejects_unmanaged_patch(void **state)
{
	struct chainobj *o = *state;
	o->queues[be_queue(o, "conn")].managed_send = false;
	expect(o, 0, CHAIN_VERIFY_E_UNMANAGED_PATCH);
}

/* The barrier WAIT no longer covers the guard CAS: the response could be
 * fetched before the CAS armed it (the prefetch hazard). */
static void test_rejects_prefetch_hazard(void **state)
{
	struct chainobj *o = *state;
	uint32_t w0 = (uint32_t)be_queue(o, "w0");
	bool changed = false;
	for (uint32_t i = 0; i < o->n_relocs; i++) {
		struct chainobj_reloc *r = &o->relocs[i];
		if (r->site.queue == w0 && r->kind == CHAINOBJ_RELOC_CQ_COUNT) {
			r->delta = UINT32_MAX; /* CQE number -1: waits for nothing */
			changed = true;
		}
	}
	assert_true(changed);
	expect(o, 0, CHAIN_VERIFY_E_PREFETCH);
}

/* Client bytes redirected into a key field. */
static void test_rejects_client_field(void **state)
{
	struct chainobj *o = *state;
	uint32_t w0 = (uint32_t)be_queue(o, "w0");
	for (uint32_t i = 0; i < o->n_patches; i++) {
		struct chainobj_patch *p = &o->patches[i];
		if (p->kind == CHAINOBJ_PATCH_RECV_SCATTER && p->target.queue == w0 &&
		    p->target.wqe == 0) {
			p->target.offset = 8; /* ctrl bytes 8-15: CE/fence bits, imm */
		}
	}
	expect(o, 0, CHAIN_VERIFY_E_CLIENT_FIELD);
}

/* A client address used with the queue buffer's key instead of its
 * region's: the client could read server code memory. */
static void test_rejects_client_key(void **state)
{
	struct chainobj *o = *state;
	uint32_t w0 = (uint32_t)be_queue(o, "w0");
	bool changed = false;
	for (uint32_t i = 0; i < o->n_relocs; i++) {
		struct chainobj_reloc *r = &o->relocs[i];
		if (r->site.queue == w0 && r->site.wqe == 0 &&
		    r->kind == CHAINOBJ_RELOC_REGION_RKEY) {
			r->kind = CHAINOBJ_RELOC_QBUF_RKEY;
			r->target = w0;
			changed = true;
		}
	}
	assert_true(changed);
	expect(o, 0, CHAIN_VERIFY_E_CLIENT_KEY);
}

static void test_rejects_budget(void **state)
{
	expect(*state, 3, CHAIN_VERIFY_E_BUDGET);
}

static void test_rejects_ring(void **state)
{
	struct chainobj *o = *state;
	struct chainobj_queue *q = &o->queues[be_queue(o, "w0")];
	q->sq_per_invocation = q->sq_slots + 1;
	struct chain_verify_report rep;
	assert_int_not_equal(chain_verify(o, 0, &rep), 0);
	/* the structural validator or the ring check: both name the ring */
	assert_true(rep.err == CHAIN_VERIFY_E_RING || rep.err == CHAIN_VERIFY_E_STRUCTURE);
}

/* A RECV scatter into WQE memory that no patch site declares. */
static void test_rejects_hidden_patch(void **state)
{
	struct chainobj *o = *state;
	for (uint32_t i = 0; i < o->n_patches; i++) {
		if (o->patches[i].kind == CHAINOBJ_PATCH_RECV_SCATTER) {
			o->patches[i] = o->patches[o->n_patches - 1];
			o->n_patches--;
			break;
		}
	}
	expect(o, 0, CHAIN_VERIFY_E_HIDDEN_PATCH);
}

/* The relocations of receive entry 0 of the conn queue: address and key. */
static void recv_entry_relocs(struct chainobj *o, struct chainobj_reloc **addr,
                              struct chainobj_reloc **key)
{
	uint32_t conn = (uint32_t)be_queue(o, "conn");

	*addr = *key = NULL;
	for (uint32_t i = 0; i < o->n_relocs; i++) {
		struct chainobj_reloc *r = &o->relocs[i];

		if (r->site.queue != conn || r->site.ring != CHAINOBJ_RING_RQ || r->site.wqe != 0)
			continue;
		if (r->site.offset == 8)
			*addr = r;
		if (r->site.offset == 4)
			*key = r;
	}
	assert_non_null(*addr);
	assert_non_null(*key);
	assert_int_equal((*addr)->kind, CHAINOBJ_RELOC_QBUF_ADDR);
}

/* Byte offset of @field in the WQE a receive entry's relocation lands in. */
static uint32_t landing_field(const struct chainobj *o, const struct chainobj_reloc *r,
                              enum prism_wqe_field field, uint32_t *wqe_start)
{
	const struct chainobj_queue *q = &o->queues[r->target];
	struct prism_wqe w;
	uint32_t off, len;

	for (uint32_t j = 0; j < q->n_sq; j++)
		if (q->sq[j].slot <= r->delta &&
		    r->delta * 64 + r->addend < q->sq[j].slot * 64u + q->sq[j].len) {
			assert_true(prism_wqe_decode(q->sq[j].bytes, q->sq[j].len, &w, NULL) > 0);
			if (prism_wqe_field_offset(&w, field, &off, &len))
				fail_msg("no such field");
			*wqe_start = q->sq[j].slot * 64u;
			return off;
		}
	fail_msg("no landing WQE");
	return 0;
}

/* Tampered objects: the declared patch sites stay as compiled (they pass),
 * only where a receive really scatters the client's bytes moves. */
static void retarget_recv(struct chainobj *o, enum prism_wqe_field field, uint32_t extra)
{
	struct chainobj_reloc *addr, *key;
	uint32_t start, off;

	recv_entry_relocs(o, &addr, &key);
	off = landing_field(o, addr, field, &start);
	addr->delta = start / 64u;
	addr->addend = off + extra;
	expect(o, 0, CHAIN_VERIFY_E_RECV_TARGET);
}

static void test_tampered_recv_into_rkey(void **state)
{
	retarget_recv(*state, PRISM_FIELD_RKEY, 0);
}

static void test_tampered_recv_into_opcode(void **state)
{
	retarget_recv(*state, PRISM_FIELD_CTRL_OPCODE, 0);
}

static void test_tampered_recv_into_lkey(void **state)
{
	retarget_recv(*state, PRISM_FIELD_SGE0_LKEY, 0);
}

/* Client bytes into a region the program declares read-only. */
static void test_tampered_recv_into_readonly_region(void **state)
{
	struct chainobj *o = *state;
	struct chainobj_reloc *addr, *key;

	assert_false(o->regions[0].access & CHAINOBJ_ACC_WRITE);
	recv_entry_relocs(o, &addr, &key);
	addr->kind = CHAINOBJ_RELOC_REGION_ADDR;
	addr->target = 0;
	addr->ring = 0;
	addr->addend = 0;
	addr->stride = addr->delta = 0;
	key->kind = CHAINOBJ_RELOC_REGION_LKEY;
	key->target = 0;
	expect(o, 0, CHAIN_VERIFY_E_RECV_TARGET);
}

/* A receive entry whose address is a constant in the template. */
static void test_tampered_recv_fixed_address(void **state)
{
	struct chainobj *o = *state;
	struct chainobj_reloc *addr, *key;

	recv_entry_relocs(o, &addr, &key);
	*addr = o->relocs[--o->n_relocs];
	if (key == &o->relocs[o->n_relocs])
		key = addr;
	expect(o, 0, CHAIN_VERIFY_E_RECV_TARGET);
}

/* A loop exit (a SEND_EN a CAS retargets) fetched before its CAS completed:
 * drop the barrier WAIT in front of it. */
static void test_rejects_loop_exit_prefetch(void **state)
{
	(void)state;
	struct chainobj *o = be_compile(
	    "struct node { key: be24; pad: u8[5]; next: *node in nodes; value: u8[64]; }\n"
	    "region nodes: node[4096] readonly;\n"
	    "offload find(key: be24, head: *node in nodes) -> u8[64] {\n"
	    "  let p = head;\n"
	    "  while (p.key != key) bound 2 { p = p.next; }\n"
	    "  if (p.key == key) { return p.value; }\n}\n",
	    NULL, IR_PROFILE_RELAXED, NULL);
	assert_non_null(o);
	expect(o, 0, CHAIN_VERIFY_E_OK);
	uint32_t w0 = (uint32_t)be_queue(o, "w0");
	for (uint32_t i = 0; i < o->n_relocs; i++) {
		struct chainobj_reloc *r = &o->relocs[i];
		if (r->site.queue == w0 && r->kind == CHAINOBJ_RELOC_CQ_COUNT)
			r->delta = UINT32_MAX; /* CQE number -1: waits for nothing */
	}
	expect(o, 0, CHAIN_VERIFY_E_PREFETCH);
	chainobj_free(o);
}

/* Load time: the runtime has only the YAML.  Round trip, verify; then a
 * tampered object (conn no longer managed) is rejected after reading. */
static void test_load_time_reverify(void **state)
{
	const struct chainobj *o = *state;
	char *text = NULL;
	size_t len = 0;
	struct diag_report d;
	assert_int_equal(chainobj_write_mem(o, CHAINOBJ_WRITE_NO_CHECKSUM, &text, &len, &d), 0);
	struct chainobj *back = NULL;
	int rc = chainobj_read_mem(text, len, &back, &d);
	if (rc)
		fprintf(stderr, "read: %s\n", d.msg);
	assert_int_equal(rc, 0);
	struct chain_verify_report rep;
	assert_int_equal(chain_verify(back, 0, &rep), 0);
	chainobj_free(back);
	char *p = strstr(text, "role: conn");
	assert_non_null(p);
	p = strstr(p, "managed-send: true");
	assert_non_null(p);
	size_t head = (size_t)(p - text);
	char *tampered = malloc(len + 2);
	assert_non_null(tampered);
	memcpy(tampered, text, head);
	memcpy(tampered + head, "managed-send: false", 19);
	memcpy(tampered + head + 19, p + 18, len - head - 18);
	rc = chainobj_read_mem(tampered, len + 1, &back, &d);
	if (rc)
		fprintf(stderr, "read: %s\n", d.msg);
	assert_int_equal(rc, 0);
	free(tampered);
	assert_int_not_equal(chain_verify(back, 0, &rep), 0);
	assert_int_equal(rep.err, CHAIN_VERIFY_E_UNMANAGED_PATCH);
	assert_non_null(strstr(rep.msg, "not managed"));
	chainobj_free(back);
	free(text);
}

/* Client arguments staged through scratch (more RECV entries than 16) are
 * still client bytes: a tampered object whose staging READ scatters them
 * into a control segment's flags is rejected at load time, although no
 * RECV entry touches that WQE. */
static void test_rejects_client_copy(void **state)
{
	(void)state;
	struct chainobj *o =
	    be_compile("struct ctr { n: le64; }\n"
	               "region counters: ctr[16] writable;\n"
	               "offload f(c: *ctr in counters, v: le64) { cas_gt(c.n, v); }\n",
	               NULL, IR_PROFILE_RELAXED, NULL);
	assert_non_null(o);
	expect(o, 0, CHAIN_VERIFY_E_OK);
	uint32_t w0 = (uint32_t)be_queue(o, "w0");
	/* the staging READ is w0's first WQE; move one of its one-byte scatter
	 * sites onto the target's fm_ce_se byte (11) */
	bool moved = false;
	for (uint32_t i = 0; i < o->n_patches && !moved; i++) {
		struct chainobj_patch *p = &o->patches[i];
		if (p->kind == CHAINOBJ_PATCH_READ_SCATTER && p->writer_queue == w0 &&
		    p->writer_wqe == 0 && p->target.width == 1) {
			p->target.offset = 11;
			moved = true;
		}
	}
	assert_true(moved);
	expect(o, 0, CHAIN_VERIFY_E_CLIENT_FIELD);
	struct chain_verify_report rep;
	chain_verify(o, 0, &rep);
	assert_non_null(strstr(rep.msg, "copied by"));
	chainobj_free(o);
}

/* lib/chains/prism_ops.prism (alloc, masked cas_gt, cas as a condition, a
 * conjunction of order comparisons), both profiles: the objects survive the
 * YAML round trip with their scratch image and masked atomics, and the
 * loader's verifier accepts them from the text alone. */
static void test_prism_ops_reverify(void **state)
{
	(void)state;
	FILE *f = fopen("lib/chains/prism_ops.prism", "r");
	assert_non_null(f);
	static char buf[8192];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	static const char *entries[] = {"put", "publish", "acquire", "lookup"};
	for (int prof = 0; prof < 2; prof++)
		for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
			char *diag = NULL;
			struct chainobj *o = be_compile(
			    buf, entries[i], prof ? IR_PROFILE_STRICT : IR_PROFILE_RELAXED, &diag);
			if (!o)
				fprintf(stderr, "%s", diag ? diag : "");
			free(diag);
			assert_non_null(o);
			char *text = NULL;
			size_t len = 0;
			struct diag_report d;
			assert_int_equal(chainobj_write_mem(o, 0, &text, &len, &d), 0);
			struct chainobj *back = NULL;
			int rc = chainobj_read_mem(text, len, &back, &d);
			if (rc)
				fprintf(stderr, "read: %s\n", d.msg);
			assert_int_equal(rc, 0);
			assert_int_equal(back->scratch_init_len, o->scratch_init_len);
			if (o->scratch_init_len)
				assert_memory_equal(back->scratch_init, o->scratch_init,
				                    o->scratch_init_len);
			struct chain_verify_report rep;
			rc = chain_verify(back, 0, &rep);
			if (rc)
				fprintf(stderr, "%s: %s\n", entries[i], rep.msg);
			assert_int_equal(rc, 0);
			assert_int_equal(rep.wr_per_invocation, o->summary.wr_per_invocation);
			chainobj_free(back);
			free(text);
			chainobj_free(o);
		}
}

/* The request gate (chain_gate.c): the compiled object has it; each way of
 * breaking it (no gate, another CQE, another condition, a patch aimed at
 * it) is refused; --no-request-gate's object is reported as ungated. */
static struct chainobj_reloc *gate_reloc(struct chainobj *o, enum chainobj_reloc_kind k)
{
	for (uint32_t i = 0; i < o->n_relocs; i++)
		if (o->relocs[i].kind == k)
			return &o->relocs[i];
	fail_msg("no %s relocation", chainobj_reloc_kind_name(k));
	return NULL;
}

static void expect_ungated(struct chainobj *o, const char *reason)
{
	char why[200] = "";

	assert_false(chain_verify_request_gate(o, why, sizeof(why)));
	if (!strstr(why, reason))
		fail_msg("reason '%s', expected '%s'", why, reason);
	chainobj_free(o);
}

static void test_request_gate(void **state)
{
	struct chainobj *o = be_compile(src_if, NULL, IR_PROFILE_RELAXED, NULL);
	uint32_t ctl;
	char why[200];

	(void)state;
	assert_non_null(o);
	assert_true(chain_verify_request_gate(o, why, sizeof(why)));
	chainobj_free(o);
	/* the gate watches the CQE after the one its WAIT released */
	o = be_compile(src_if, NULL, IR_PROFILE_RELAXED, NULL);
	gate_reloc(o, CHAINOBJ_RELOC_CQE_ADDR)->delta = 1;
	expect_ungated(o, "not the request gate");
	/* another byte of the CQE */
	o = be_compile(src_if, NULL, IR_PROFILE_RELAXED, NULL);
	gate_reloc(o, CHAINOBJ_RELOC_CQE_ADDR)->addend = 48;
	expect_ungated(o, "not the request gate");
	/* a condition that a flush CQE (opcode 14) passes: mask 0 */
	o = be_compile(src_if, NULL, IR_PROFILE_RELAXED, NULL);
	ctl = (uint32_t)be_queue(o, "ctl");
	memset(o->queues[ctl].sq[1].bytes + 16 + 24, 0, 8);
	expect_ungated(o, "not the request gate");
	/* the gate turned into a NOP */
	o = be_compile(src_if, NULL, IR_PROFILE_RELAXED, NULL);
	ctl = (uint32_t)be_queue(o, "ctl");
	o->queues[ctl].sq[1].bytes[3] = PRISM_OP_NOP;
	expect_ungated(o, "no request gate");
	/* a patch aimed at the gate */
	o = be_compile(src_if, NULL, IR_PROFILE_RELAXED, NULL);
	ctl = (uint32_t)be_queue(o, "ctl");
	o->patches[0].target = (struct chainobj_site){ctl, CHAINOBJ_RING_SQ, 1, 40, 8};
	expect_ungated(o, "patched");
	/* compiled without it */
	struct frontend_unit u;
	struct compile_opts co = {.profile = IR_PROFILE_RELAXED, .no_request_gate = true};

	o = NULL;
	assert_int_equal(frontend_load_buffer(&u, "t.prism", src_if, strlen(src_if), NULL),
	                 FRONTEND_OK);
	assert_int_equal(compile_program(&u.diag, u.prog, &co, &o), PRISMC_EXIT_OK);
	frontend_fini(&u);
	assert_non_null(o);
	assert_string_equal(be_ops(o, "ctl"), "WAIT EN");
	expect_ungated(o, "no request gate");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_accepts_compiled, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rejects_unmanaged_patch, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rejects_prefetch_hazard, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rejects_client_field, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rejects_client_key, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rejects_budget, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rejects_ring, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rejects_hidden_patch, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_load_time_reverify, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tampered_recv_into_rkey, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tampered_recv_into_opcode, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tampered_recv_into_lkey, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tampered_recv_into_readonly_region, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_tampered_recv_fixed_address, setup, teardown),
	    cmocka_unit_test(test_rejects_loop_exit_prefetch),
	    cmocka_unit_test(test_rejects_client_copy),
	    cmocka_unit_test(test_prism_ops_reverify),
	    cmocka_unit_test(test_request_gate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
