/* SPDX-License-Identifier: MIT */
/*
 * test_chainobj.c - chain object: builders, validation of in-memory
 * objects, writer -> reader round trips, file I/O and the byte helpers.
 *
 * Owns: the positive-path tests of runtime/chain/chainobj*.c.  Rejections of
 * bad text are in test_chainobj_reject.c.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <prism/wqe.h>

#include "chain/chainobj.h"
#include "tests/chainobj/chain_fixture.h"

static void assert_same_wqes(const struct chainobj_wqe *a, const struct chainobj_wqe *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(a[i].slot, b[i].slot);
		assert_int_equal(a[i].len, b[i].len);
		assert_memory_equal(a[i].bytes, b[i].bytes, a[i].len);
		if (a[i].note)
			assert_string_equal(a[i].note, b[i].note);
		else
			assert_null(b[i].note);
	}
}

/* Field-by-field equality of two objects (line numbers excepted). */
static void assert_same_object(const struct chainobj *a, const struct chainobj *b)
{
	assert_int_equal(a->schema, b->schema);
	assert_string_equal(a->program, b->program);
	assert_int_equal(a->profile, b->profile);
	assert_int_equal(a->rearm, b->rearm);
	assert_int_equal(a->scratch_size, b->scratch_size);
	assert_int_equal(a->response_size, b->response_size);
	assert_int_equal(a->n_regions, b->n_regions);
	for (uint32_t i = 0; i < a->n_regions; i++) {
		assert_string_equal(a->regions[i].name, b->regions[i].name);
		assert_int_equal(a->regions[i].size, b->regions[i].size);
		assert_int_equal(a->regions[i].access, b->regions[i].access);
	}
	assert_int_equal(a->n_cqs, b->n_cqs);
	for (uint32_t i = 0; i < a->n_cqs; i++) {
		assert_string_equal(a->cqs[i].name, b->cqs[i].name);
		assert_int_equal(a->cqs[i].entries, b->cqs[i].entries);
		assert_int_equal(a->cqs[i].ignore_overrun, b->cqs[i].ignore_overrun);
		assert_int_equal(a->cqs[i].per_invocation, b->cqs[i].per_invocation);
	}
	assert_int_equal(a->n_queues, b->n_queues);
	for (uint32_t i = 0; i < a->n_queues; i++) {
		const struct chainobj_queue *x = &a->queues[i], *y = &b->queues[i];

		assert_string_equal(x->name, y->name);
		assert_int_equal(x->role, y->role);
		assert_int_equal(x->lane, y->lane);
		assert_int_equal(x->managed_send, y->managed_send);
		assert_int_equal(x->managed_recv, y->managed_recv);
		assert_int_equal(x->sq_slots, y->sq_slots);
		assert_int_equal(x->rq_slots, y->rq_slots);
		assert_int_equal(x->rq_stride_ds, y->rq_stride_ds);
		assert_int_equal(x->send_cq, y->send_cq);
		assert_int_equal(x->recv_cq, y->recv_cq);
		assert_int_equal(x->sq_per_invocation, y->sq_per_invocation);
		assert_int_equal(x->rq_per_invocation, y->rq_per_invocation);
		assert_int_equal(x->n_sq, y->n_sq);
		assert_int_equal(x->n_rq, y->n_rq);
		assert_same_wqes(x->sq, y->sq, x->n_sq);
		assert_same_wqes(x->rq, y->rq, x->n_rq);
	}
	assert_int_equal(a->n_entries, b->n_entries);
	for (uint32_t i = 0; i < a->n_entries; i++) {
		const struct chainobj_entry *x = &a->entries[i], *y = &b->entries[i];

		assert_string_equal(x->name, y->name);
		assert_int_equal(x->msg_size, y->msg_size);
		assert_int_equal(x->n_params, y->n_params);
		for (uint32_t k = 0; k < x->n_params; k++) {
			struct chainobj_param p = x->params[k], q = y->params[k];

			assert_string_equal(p.name, q.name);
			p.name = q.name = NULL;
			p.line = q.line = 0;
			assert_memory_equal(&p, &q, sizeof(p));
		}
		assert_int_equal(x->n_results, y->n_results);
		for (uint32_t k = 0; k < x->n_results; k++) {
			assert_string_equal(x->results[k].name, y->results[k].name);
			assert_int_equal(x->results[k].width, y->results[k].width);
			assert_int_equal(x->results[k].order, y->results[k].order);
			assert_int_equal(x->results[k].offset, y->results[k].offset);
		}
	}
	assert_int_equal(a->n_patches, b->n_patches);
	for (uint32_t i = 0; i < a->n_patches; i++) {
		struct chainobj_patch p = a->patches[i], q = b->patches[i];

		p.line = q.line = 0;
		assert_memory_equal(&p, &q, sizeof(p));
	}
	assert_int_equal(a->n_relocs, b->n_relocs);
	for (uint32_t i = 0; i < a->n_relocs; i++) {
		struct chainobj_reloc p = a->relocs[i], q = b->relocs[i];

		p.line = q.line = 0;
		assert_memory_equal(&p, &q, sizeof(p));
	}
	assert_int_equal(a->summary.verified, b->summary.verified);
	assert_int_equal(a->summary.wr_per_invocation, b->summary.wr_per_invocation);
	assert_int_equal(a->summary.barriers, b->summary.barriers);
	assert_int_equal(a->summary.n_loops, b->summary.n_loops);
	for (uint32_t i = 0; i < a->summary.n_loops; i++) {
		assert_string_equal(a->summary.loops[i].name, b->summary.loops[i].name);
		assert_int_equal(a->summary.loops[i].bound, b->summary.loops[i].bound);
		assert_int_equal(a->summary.loops[i].wr_per_iteration,
		                 b->summary.loops[i].wr_per_iteration);
	}
	assert_int_equal(a->summary.n_touched, b->summary.n_touched);
	for (uint32_t i = 0; i < a->summary.n_touched; i++) {
		assert_int_equal(a->summary.touched[i].region, b->summary.touched[i].region);
		assert_int_equal(a->summary.touched[i].access, b->summary.touched[i].access);
	}
}

static void test_fixture_validates(void **state)
{
	struct chainobj *o = fixture_hashget();
	struct diag_report d;

	assert_int_equal(chainobj_validate(o, &d), 0);
	assert_int_equal(d.code, CHAINOBJ_E_OK);
	assert_int_equal(chainobj_find_queue(o, "worker"), 1);
	assert_int_equal(chainobj_find_cq(o, "conn_cq"), 0);
	assert_int_equal(chainobj_find_region(o, "table"), 0);
	assert_int_equal(chainobj_find_queue(o, "nope"), -1);
	assert_non_null(chainobj_site_wqe(o, 1, CHAINOBJ_RING_SQ, 3));
	assert_null(chainobj_site_wqe(o, 1, CHAINOBJ_RING_SQ, 4));
	assert_null(chainobj_site_wqe(o, 1, CHAINOBJ_RING_RQ, 0));
	assert_null(chainobj_site_wqe(o, 2, CHAINOBJ_RING_SQ, 0));
	chainobj_free(o);
}

static void test_round_trip(void **state)
{
	struct chainobj *o = fixture_hashget(), *back = NULL;
	struct diag_report d;
	char *text = NULL, *again = NULL;
	size_t len = 0, len2 = 0;

	assert_int_equal(chainobj_write_mem(o, 0, &text, &len, &d), 0);
	assert_int_equal(strlen(text), len);
	assert_int_equal(chainobj_read_mem(text, len, &back, &d), 0);
	assert_non_null(back);
	assert_same_object(o, back);
	/* Writing what was read gives the same text, byte for byte. */
	assert_int_equal(chainobj_write_mem(back, 0, &again, &len2, &d), 0);
	assert_int_equal(len, len2);
	assert_memory_equal(text, again, len);
	/* Elements remember the line they came from. */
	assert_true(back->queues[1].line > back->queues[0].line);
	assert_true(back->relocs[0].line > back->patches[0].line);
	free(text);
	free(again);
	chainobj_free(back);
	chainobj_free(o);
}

static void test_round_trip_without_comments_or_checksum(void **state)
{
	struct chainobj *o = fixture_hashget(), *back = NULL;
	char *text = NULL;
	size_t len = 0;

	assert_int_equal(chainobj_write_mem(o,
	                                    CHAINOBJ_WRITE_NO_COMMENTS | CHAINOBJ_WRITE_NO_CHECKSUM,
	                                    &text, &len, NULL),
	                 0);
	assert_null(strchr(text, '#'));
	assert_null(strstr(text, "checksum"));
	assert_int_equal(chainobj_read_mem(text, len, &back, NULL), 0);
	assert_same_object(o, back);
	free(text);
	chainobj_free(back);
	chainobj_free(o);
}

/* Every SQ template carries the codec printer's line as a comment. */
static void test_writer_comments_use_the_printer(void **state)
{
	struct chainobj *o = fixture_hashget();
	const struct chainobj_queue *w = &o->queues[1];
	char *text = NULL;
	size_t len = 0;

	assert_int_equal(chainobj_write_mem(o, 0, &text, &len, NULL), 0);
	for (uint32_t i = 0; i < w->n_sq; i++) {
		struct prism_wqe dec;
		char line[512], want[600];

		assert_true(prism_wqe_decode(w->sq[i].bytes, w->sq[i].len, &dec, NULL) > 0);
		prism_wqe_snprint(line, sizeof(line), &dec, NULL, 0, 0);
		snprintf(want, sizeof(want), "# [%u] %s\n", i, line);
		assert_non_null(strstr(text, want));
	}
	assert_non_null(strstr(text, "# [0] recv sge[0x0+3 lkey=0x0] sge[0x0+8 lkey=0x0]\n"));
	assert_non_null(strstr(text, "          - \"00000011 00000004 00000088 00000000\"\n"));
	free(text);
	chainobj_free(o);
}

static void test_checksum_covers_content(void **state)
{
	struct chainobj *o = fixture_hashget();
	uint64_t a = chainobj_checksum(o), b;

	assert_true(a != 0);
	assert_int_equal(chainobj_checksum(o), a);
	o->queues[1].sq[2].bytes[40] ^= 1; /* a CAS operand byte: still decodes */
	b = chainobj_checksum(o);
	assert_true(b != 0 && b != a);
	o->queues[1].sq[2].bytes[40] ^= 1;
	o->scratch_size = 128; /* a header field, not a WQE byte */
	assert_true(chainobj_checksum(o) != a);
	chainobj_free(o);
}

static void test_file_io(void **state)
{
	struct chainobj *o = fixture_hashget(), *back = NULL;
	struct diag_report d;
	char path[] = "/tmp/prism-chainobj-XXXXXX";
	int fd = mkstemp(path);
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(chainobj_write(o, f, 0, &d), 0);
	fclose(f);
	assert_int_equal(chainobj_read_file(path, &back, &d), 0);
	assert_same_object(o, back);
	chainobj_free(back);
	unlink(path);
	/* a missing file says so (not "Input/output error") */
	assert_int_equal(chainobj_read_file(path, &back, &d), -ENOENT);
	assert_null(back);
	assert_int_equal(d.code, CHAINOBJ_E_IO);
	assert_non_null(strstr(d.msg, path));
	assert_non_null(strstr(d.msg, "No such file or directory"));
	chainobj_free(o);
}

/* The writer refuses an invalid object and writes nothing. */
static void test_writer_refuses_invalid(void **state)
{
	struct chainobj *o = fixture_hashget();
	struct diag_report d;
	char *text = (char *)1;
	size_t len = 1;

	o->queues[0].send_cq = 7;
	assert_int_equal(chainobj_write_mem(o, 0, &text, &len, &d), -EINVAL);
	assert_null(text);
	assert_int_equal(len, 0);
	assert_int_equal(d.code, CHAINOBJ_E_NAME);
	assert_string_equal(d.path, "queues[0].send-cq");
	assert_string_equal(d.msg, "queues[0].send-cq: CQ index 7 does not exist");
	assert_int_equal(chainobj_checksum(o), 0);
	chainobj_free(o);
}

/* In-memory validation: one broken field per case, checked by class and path. */
static void test_validate_in_memory(void **state)
{
	static const struct {
		const char *path;
		enum chainobj_err kind;
	} want[] = {
	    {"program", CHAINOBJ_E_NAME},
	    {"queues[1].sq[1].hex", CHAINOBJ_E_WQE},
	    {"queues[1].sq[2].slot", CHAINOBJ_E_RING},
	    {"relocs[4].site", CHAINOBJ_E_SITE},
	    {"patches[2].writer", CHAINOBJ_E_PATCH},
	    {"entries[0].params[1].recv", CHAINOBJ_E_PARAM},
	    {"relocs[12].addend", CHAINOBJ_E_RANGE},
	    {"summary.regions-touched[0]", CHAINOBJ_E_RANGE},
	    {"relocs[1].site", CHAINOBJ_E_SITE},
	};

	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct chainobj *o = fixture_hashget();
		struct diag_report d;

		switch (i) {
		case 0:
			o->program[0] = '9';
			break;
		case 1:
			o->queues[1].sq[1].bytes[3] = 0x0e; /* unknown opcode */
			break;
		case 2:
			o->queues[1].sq[2].slot = 1; /* overlaps the READ */
			break;
		case 3:
			o->relocs[4].site.offset = 30; /* 30..33 past a 32-byte WAIT */
			break;
		case 4:
			o->patches[2].writer_wqe = 2; /* the CAS is not a READ */
			break;
		case 5:
			o->entries[0].params[1].first_sge = 2;
			break;
		case 6:
			o->relocs[12].addend = 64;
			break;
		case 7:
			o->summary.touched[0].access = CHAINOBJ_ACC_WRITE;
			break;
		case 8:
			o->relocs[1].site.offset = 10; /* overlaps relocation 0 (8..15) */
			break;
		}
		assert_int_equal(chainobj_validate(o, &d), -EINVAL);
		assert_string_equal(d.path, want[i].path);
		assert_int_equal(d.code, want[i].kind);
		assert_int_equal(d.line, 0);
		chainobj_free(o);
	}
}

static void test_put_get_uint(void **state)
{
	uint8_t b[8] = {0};

	chainobj_put_uint(b, 3, CHAINOBJ_ORDER_BIG, 0x12345678);
	assert_int_equal(b[0], 0x34);
	assert_int_equal(b[1], 0x56);
	assert_int_equal(b[2], 0x78);
	assert_int_equal(chainobj_get_uint(b, 3, CHAINOBJ_ORDER_BIG), 0x345678);
	chainobj_put_uint(b, 8, CHAINOBJ_ORDER_LITTLE, 0x0102030405060708ull);
	assert_int_equal(b[0], 0x08);
	assert_int_equal(b[7], 0x01);
	assert_int_equal(chainobj_get_uint(b, 8, CHAINOBJ_ORDER_LITTLE), 0x0102030405060708ull);
	assert_int_equal(chainobj_get_uint(b, 2, CHAINOBJ_ORDER_BIG), 0x0807);
}

static void test_names_tables(void **state)
{
	assert_string_equal(chainobj_reloc_kind_name(CHAINOBJ_RELOC_CQ_COUNT), "cq-count");
	assert_true(chainobj_reloc_kind_is_count(CHAINOBJ_RELOC_SQ_COUNT));
	assert_false(chainobj_reloc_kind_is_count(CHAINOBJ_RELOC_QPN));
	assert_int_equal(chainobj_reloc_kind_ref(CHAINOBJ_RELOC_REGION_RKEY), CHAINOBJ_REF_REGION);
	assert_int_equal(chainobj_reloc_kind_ref(CHAINOBJ_RELOC_CLIENT_QPN), CHAINOBJ_REF_NONE);
	assert_string_equal(chainobj_patch_kind_name(CHAINOBJ_PATCH_MASKED_FETCH_ADD),
	                    "masked-fetch-add");
	assert_string_equal(chainobj_patch_kind_name(CHAINOBJ_PATCH__COUNT), "?");
	assert_string_equal(chainobj_err_name(CHAINOBJ_E_CHECKSUM), "checksum mismatch");
	assert_string_equal(chainobj_role_name(CHAINOBJ_ROLE_LANE), "lane");
	assert_string_equal(chainobj_profile_name(CHAINOBJ_PROFILE_STRICT), "strict");
	assert_string_equal(chainobj_rearm_name(CHAINOBJ_REARM_NIC_RECYCLE), "nic-recycle");
	for (int k = 0; k < CHAINOBJ_RELOC__COUNT; k++)
		assert_string_not_equal(chainobj_reloc_kind_name((enum chainobj_reloc_kind)k), "?");
}

/* Builders grow arrays past their implicit capacities correctly. */
static void test_builders_grow(void **state)
{
	struct chainobj *o = chainobj_new("many");
	char name[16];

	assert_non_null(o);
	for (unsigned i = 0; i < 37; i++) {
		snprintf(name, sizeof(name), "r%u", i);
		assert_non_null(chainobj_add_region(o, name, 64 + i, CHAINOBJ_ACC_READ));
	}
	assert_int_equal(o->n_regions, 37);
	for (unsigned i = 0; i < 37; i++) {
		snprintf(name, sizeof(name), "r%u", i);
		assert_string_equal(o->regions[i].name, name);
		assert_int_equal(o->regions[i].size, 64 + i);
	}
	assert_int_equal(chainobj_validate(o, NULL), 0);
	chainobj_free(o);
	chainobj_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixture_validates),
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_round_trip_without_comments_or_checksum),
	    cmocka_unit_test(test_writer_comments_use_the_printer),
	    cmocka_unit_test(test_checksum_covers_content),
	    cmocka_unit_test(test_file_io),
	    cmocka_unit_test(test_writer_refuses_invalid),
	    cmocka_unit_test(test_validate_in_memory),
	    cmocka_unit_test(test_put_get_uint),
	    cmocka_unit_test(test_names_tables),
	    cmocka_unit_test(test_builders_grow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
