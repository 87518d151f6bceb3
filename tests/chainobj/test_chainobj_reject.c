/* SPDX-License-Identifier: MIT */
/*
 * test_chainobj_reject.c - the chain-object reader rejects bad and tampered
 * objects with a precise message, and never crashes or leaks.
 *
 * Owns: one test per reader error class (each edits the fixture's YAML
 * text in one place and checks the class, the line, the field path and the
 * message), tamper tests (checksum), and truncation / garbage sweeps.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "chain/chainobj.h"
#include "tests/chainobj/chain_fixture.h"

static char *fixture_text(unsigned flags)
{
	struct chainobj *o = fixture_hashget();
	char *text = NULL;
	size_t len = 0;

	assert_int_equal(chainobj_write_mem(o, flags, &text, &len, NULL), 0);
	chainobj_free(o);
	return text;
}

/* Replace the @nth (0-based) occurrence of @find in @text; returns a new string. */
static char *edit(const char *text, const char *find, unsigned nth, const char *repl)
{
	const char *at = text;
	size_t fl = strlen(find), rl = strlen(repl), tl = strlen(text);
	char *out;

	for (unsigned i = 0;; i++) {
		at = strstr(at, find);
		if (!at)
			fail_msg("'%s' (#%u) not in the fixture text", find, nth);
		if (i == nth)
			break;
		at += fl;
	}
	out = malloc(tl - fl + rl + 1);
	assert_non_null(out);
	memcpy(out, text, (size_t)(at - text));
	memcpy(out + (at - text), repl, rl);
	memcpy(out + (at - text) + rl, at + fl, tl - (size_t)(at - text) - fl + 1);
	return out;
}

/* 1-based line of the first occurrence of @needle in @text. */
static unsigned line_of(const char *text, const char *needle)
{
	const char *at = strstr(text, needle);
	unsigned line = 1;

	assert_non_null(at);
	for (const char *p = text; p < at; p++)
		line += *p == '\n';
	return line;
}

struct reject_case {
	const char *find;
	unsigned nth;
	const char *repl;
	enum chainobj_err kind;
	const char *path;    /* expected diag.path ("" for none) */
	const char *line_at; /* the error is on the line of this text in the edited object */
	const char *msg;     /* substring of diag.msg */
};

static const struct reject_case cases[] = {
    {"prism-chain: 1", 0, "prism-chain: [1", CHAINOBJ_E_SYNTAX, "", NULL, "did not find expected"},
    {"program: hash_get", 0, "program: &a hash_get", CHAINOBJ_E_SYNTAX, "", "program: &a",
     "anchors and aliases are not allowed"},
    {"prism-chain: 1", 0, "prism-chain: 4", CHAINOBJ_E_VERSION, "prism-chain", "prism-chain: 4",
     "schema version 4 (this build reads 1 to 3)"},
    {"rearm: cpu-repost\n", 0, "rearm: cpu-repost\nassumes: [fenced-enable]\n", CHAINOBJ_E_VERSION,
     "assumes", "assumes:", "'assumes' needs prism-chain: 3"},
    {"    rq-per-invocation: 0\n", 0,
     "    rq-per-invocation: 0\n    recycle: {max-laps: 2, counter-wqe: 0, counter-offset: 24, "
     "cq-per-lap: 1}\n",
     CHAINOBJ_E_VERSION, "queues[1].recycle", "recycle:", "'recycle' needs prism-chain: 2"},
    {"rearm: cpu-repost\n", 0, "rearm: cpu-repost\nbogus: 1\n", CHAINOBJ_E_UNKNOWN_KEY, "",
     "bogus: 1", "unknown key 'bogus'"},
    {"    sq-slots: 64\n", 1, "", CHAINOBJ_E_MISSING_KEY, "queues[1]", "  - name: worker",
     "missing key 'sq-slots'"},
    {"program: hash_get\n", 0, "program: hash_get\nprogram: other\n", CHAINOBJ_E_DUPLICATE, "",
     "program: other", "duplicate key 'program'"},
    {"sq-slots: 64", 0, "sq-slots: sixty-four", CHAINOBJ_E_TYPE, "queues[0].sq-slots",
     "sq-slots: sixty-four", "expected an unsigned integer, found 'sixty-four'"},
    {"    rq: []", 0, "    rq: 5", CHAINOBJ_E_TYPE, "queues[1].rq", "    rq: 5",
     "expected a sequence, found a scalar"},
    {"rq-stride-ds: 2", 0, "rq-stride-ds: 99", CHAINOBJ_E_RANGE, "queues[0].rq-stride-ds",
     "rq-stride-ds: 99", "99 outside 0..16"},
    {"kind: cas,", 0, "kind: cass,", CHAINOBJ_E_RANGE, "patches[4].kind", "kind: cass",
     "unknown value 'cass'"},
    {"send-cq: conn_cq", 0, "send-cq: nope", CHAINOBJ_E_NAME, "queues[0].send-cq", "send-cq: nope",
     "no CQ named 'nope'"},
    {"  - name: worker", 0, "  - name: conn", CHAINOBJ_E_DUPLICATE, "queues[1].name",
     "  - name: conn\n    role: worker", "duplicate queue name 'conn'"},
    {"0000000f 00000002", 0, "0000000e 00000002", CHAINOBJ_E_WQE, "queues[1].sq[0].hex",
     "      - slot: 0\n        note: \"hash_get.prism:3", "unknown"},
    {"00000017 00000002", 0, "00000017 00000004", CHAINOBJ_E_WQE, "queues[1].sq[3].hex",
     "      - slot: 3", ""},
    {"          - \"00000008 00000000 00000000 00000000\"\n      # [3]", 0, "      # [3]",
     CHAINOBJ_E_WQE, "queues[1].sq[2].hex", "      - slot: 2", ""},
    {"      - slot: 3\n        hex:\n          - \"", 0,
     "      - slot: 3\n        hex:\n          - \"0", CHAINOBJ_E_TYPE, "queues[1].sq[3].hex",
     "          - \"000000017", "not hex bytes at character 9"},
    {"sq-slots: 64", 0, "sq-slots: 48", CHAINOBJ_E_RING, "queues[0].sq-slots", "  - name: conn",
     "48: not a power of two"},
    {"      - slot: 3\n", 0, "      - slot: 2\n", CHAINOBJ_E_RING, "queues[1].sq[3].slot",
     "      - slot: 2\n        hex:", "overlaps the previous template"},
    {"rq-slots: 0", 0, "rq-slots: 0\n    rq-stride-ds: 1", CHAINOBJ_E_DUPLICATE, "queues[1]",
     "rq-stride-ds: 0", "duplicate key 'rq-stride-ds'"},
    {"offset: 36, width: 4}, kind: region-lkey", 0, "offset: 46, width: 4}, kind: region-lkey",
     CHAINOBJ_E_SITE, "relocs[17].site", "offset: 46", "bytes 46..49 lie outside sq WQE 0"},
    {"offset: 8, width: 8}, kind: qbuf-addr", 0, "offset: 8, width: 9}, kind: qbuf-addr",
     CHAINOBJ_E_RANGE, "relocs[0].site", "width: 9", "width 9 outside 1..8"},
    {"offset: 4, width: 4}, kind: qbuf-lkey", 0, "offset: 12, width: 4}, kind: qbuf-lkey",
     CHAINOBJ_E_SITE, "relocs[1].site", "offset: 12, width: 4}, kind: qbuf-lkey",
     "overlaps relocation 0"},
    {"writer: {queue: worker, ring: sq, wqe: 2, sge: 0}", 0,
     "writer: {queue: worker, ring: sq, wqe: 9, sge: 0}", CHAINOBJ_E_PATCH, "patches[4].writer",
     "wqe: 9", "queue 'worker' has no sq WQE 9"},
    {"writer: {queue: worker, ring: sq, wqe: 1, sge: 1}", 0,
     "writer: {queue: worker, ring: sq, wqe: 1, sge: 2}", CHAINOBJ_E_PATCH, "patches[3].writer",
     "sge: 2}", "writer has 2 scatter entries, no entry 2"},
    {"kind: recv-scatter, writer: {queue: conn, ring: rq, wqe: 0, sge: 0}", 0,
     "kind: read-scatter, writer: {queue: conn, ring: rq, wqe: 0, sge: 0}", CHAINOBJ_E_PATCH,
     "patches[0].writer", "kind: read-scatter, writer: {queue: conn",
     "a read-scatter patch is written from the sq"},
    {"offset: 3, recv", 0, "offset: 2, recv", CHAINOBJ_E_PARAM, "entries[0].params[1].recv",
     "offset: 2, recv", "carry message bytes 3+8, the parameter is 2+8"},
    {"type: addr, region: table,", 0, "type: addr,", CHAINOBJ_E_MISSING_KEY,
     "entries[0].params[1].region", "name: addr", "'region' goes with type addr"},
    {"size: 1048576", 0, "size: 99999999999999999999999", CHAINOBJ_E_OVERFLOW, "regions[0].size",
     "size: 9999", "overflows 64 bits"},
    {"\"00000011 00000004 00000088 00000000\"", 0,
     "\"00000011 00000004 00000088 00000000\"\n          - \"00000000 00000000 00000000 00000000\"",
     CHAINOBJ_E_WQE, "queues[1].sq[2].hex", NULL, "80 bytes given but the WQE's ds says 64"},
    {"00000003 00000009 00000003", 0, "00000003 0000000a 00000003", CHAINOBJ_E_CHECKSUM, "checksum",
     "checksum:", "does not match the recorded"},
    {"addend: 80", 0, "addend: 88", CHAINOBJ_E_CHECKSUM, "checksum",
     "checksum:", "object edited or damaged"},
    {"sq: [0, 3]", 0, "sq: [0, 3, 1]", CHAINOBJ_E_EXIT, "exits[0].sq", "sq: [0, 3, 1]",
     "more than 2 values"},
    {"cq: [1, 1]", 0, "cq: [1]", CHAINOBJ_E_EXIT, "exits[0].cq", "cq: [1]",
     "1 values, expected one per CQ (2)"},
    {"{queue: worker, wqe: 2, enable: 3, sq:", 0, "{queue: worker, wqe: 7, enable: 3, sq:",
     CHAINOBJ_E_EXIT, "exits[0].wqe", "wqe: 7, enable: 3, sq:", "no SQ template 7"},
    {"wqe: 2, enable: 3, sq:", 0, "wqe: 2, sq:", CHAINOBJ_E_MISSING_KEY, "exits[0]",
     "wqe: 2, sq:", "missing key 'enable'"},
    {"wqe: 2, enable: 3, sq:", 0, "wqe: 2, enable: 9, sq:", CHAINOBJ_E_EXIT, "exits[0].enable",
     "enable: 9, sq:", "no SQ template 9"},
    {"wqe: 2, enable: 3, sq:", 0, "wqe: 2, enable: 1, sq:", CHAINOBJ_E_EXIT, "exits[0].enable",
     "enable: 1, sq:", "is not a SEND_EN after the exit test 2"},
    {"sq: [0, 3]", 0, "sq: [0, 65]", CHAINOBJ_E_EXIT, "exits[0].sq[1]", "sq: [0, 65]",
     "advance 65 exceeds the 64-slot ring"},
    {"scratch-size: 64", 0, "scratch-size: 4", CHAINOBJ_E_RANGE, "scratch-init",
     "  - \"00000000 deadbeef", "8 bytes do not fit the 4-byte scratch area"},
    {"stride: 4, delta: 2, ", 0, "stride: 4, ", CHAINOBJ_E_MISSING_KEY, "relocs[0].stride",
     "  - {site: {queue: conn, ring: rq, wqe: 0, offset: 8", "stride and delta go together"},
    {"kind: qpn, target: conn,", 0, "kind: qpn, target: conn, stride: 1, delta: 0,",
     CHAINOBJ_E_UNKNOWN_KEY, "relocs[14].stride", "kind: qpn", "only go with counts"},
    {"offset: 3, recv", 0, "offset: 3, copies: 2, recv", CHAINOBJ_E_PARAM,
     "entries[0].params[1].width", "copies: 2", "bytes 3+16 do not fit the 11-byte message"},
    {"    - {region: table, access: [read]}\n", 0,
     "    - {region: table, access: [read]}\n    - {region: table, access: [read]}\n",
     CHAINOBJ_E_DUPLICATE, "summary.regions-touched[1]", NULL, "region 'table' listed twice"},
    {"checksum: \"fnv1a64:", 0, "checksum: \"fnv1a64:zz", CHAINOBJ_E_TYPE, "checksum",
     "checksum:", "16 hex digits"},
};

static void run_case(void **state)
{
	const struct reject_case *c = *state;
	char *text = fixture_text(0), *bad;
	struct chainobj *o = (struct chainobj *)1;
	struct diag_report d;
	char prefix[32];

	bad = edit(text, c->find, c->nth, c->repl);
	assert_int_equal(chainobj_read_mem(bad, strlen(bad), &o, &d), -EINVAL);
	assert_null(o);
	if (d.code != (int)c->kind || strcmp(d.path, c->path) || !strstr(d.msg, c->msg))
		print_error("got kind %s path '%s' msg '%s'\n",
		            chainobj_err_name((enum chainobj_err)d.code), d.path, d.msg);
	assert_int_equal(d.code, c->kind);
	assert_string_equal(d.path, c->path);
	assert_non_null(strstr(d.msg, c->msg));
	assert_true(d.line > 0);
	if (c->line_at)
		assert_int_equal(d.line, line_of(bad, c->line_at));
	snprintf(prefix, sizeof(prefix), "line %u: ", d.line);
	assert_memory_equal(d.msg, prefix, strlen(prefix));
	free(bad);
	free(text);
}

/* Without a checksum, a WQE edit that still decodes is accepted: that is
 * why the loader re-verifies instead of trusting the file. */
static void test_tamper_without_checksum_needs_reverification(void **state)
{
	char *text = fixture_text(CHAINOBJ_WRITE_NO_CHECKSUM);
	char *bad = edit(text, "00000003 00000009 00000003", 0, "00000003 0000000a 00000003");
	struct chainobj *o = NULL;

	assert_int_equal(chainobj_read_mem(bad, strlen(bad), &o, NULL), 0);
	assert_non_null(o);
	assert_int_equal(o->queues[1].sq[2].bytes[39], 0x0a);
	chainobj_free(o);
	free(bad);
	free(text);
}

/* Comments are not content: editing them keeps the checksum valid. */
static void test_comment_edit_keeps_checksum(void **state)
{
	char *text = fixture_text(0);
	char *edited = edit(text, "# [2] cas", 0, "# [2] the conditional");
	struct chainobj *o = NULL;

	assert_int_equal(chainobj_read_mem(edited, strlen(edited), &o, NULL), 0);
	chainobj_free(o);
	free(edited);
	free(text);
}

static void test_degenerate_inputs(void **state)
{
	static const char *const inputs[] = {
	    "",
	    "# only a comment\n",
	    "42\n",
	    "[1, 2]\n",
	    "prism-chain: 1\n",
	    "prism-chain: 1\n---\nprism-chain: 1\n",
	    "prism-chain: x\n",
	    "{a: *b}\n",
	    "prism-chain: 1\nprogram: [x]\n",
	    "\t\n",
	    "prism-chain: 01\n",
	    "prism-chain: 0x1\nprogram: p\n",
	};
	struct diag_report d;

	for (unsigned i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		struct chainobj *o = (struct chainobj *)1;

		assert_int_equal(chainobj_read_mem(inputs[i], strlen(inputs[i]), &o, &d), -EINVAL);
		assert_null(o);
		assert_true(d.code != CHAINOBJ_E_OK);
		assert_true(d.msg[0] != 0);
	}
	/* Deep flow nesting is refused before libyaml's scanner sees it (it is
	 * quadratic there); quoted brackets do not count. */
	{
		static const char quoted[] = "prism-chain: 1\nprogram: \"[[[[[[[[[[[[[[[[[[[[\"\n";
		char *deep = malloc(100001);
		struct chainobj *o = NULL;

		assert_non_null(deep);
		memset(deep, '[', 100000);
		deep[100000] = 0;
		assert_int_equal(chainobj_read_mem(deep, 100000, &o, &d), -EINVAL);
		assert_int_equal(d.code, CHAINOBJ_E_SYNTAX);
		assert_string_equal(d.msg, "line 1: flow collections nested deeper than 16");
		free(deep);
		assert_int_equal(chainobj_read_mem(quoted, sizeof(quoted) - 1, &o, &d), -EINVAL);
		assert_int_equal(d.code, CHAINOBJ_E_MISSING_KEY); /* past the depth check */
	}
	/* NUL bytes inside the text. */
	{
		static const char nul[] = "prism-chain: 1\nprogram: a\0b\n";
		struct chainobj *o = NULL;

		assert_int_equal(chainobj_read_mem(nul, sizeof(nul) - 1, &o, &d), -EINVAL);
	}
}

/* Every prefix of a valid object is rejected cleanly or accepted (never a crash). */
static void test_truncation_sweep(void **state)
{
	char *text = fixture_text(CHAINOBJ_WRITE_NO_COMMENTS);
	size_t len = strlen(text);
	unsigned accepted = 0;

	for (size_t n = 0; n < len; n += 7) {
		struct chainobj *o = NULL;
		struct diag_report d;
		int rc = chainobj_read_mem(text, n, &o, &d);

		if (rc == 0) {
			accepted++;
			chainobj_free(o);
		} else {
			assert_int_equal(rc, -EINVAL);
			assert_null(o);
			assert_true(d.msg[0] != 0);
		}
	}
	assert_true(accepted <= 2);
	free(text);
}

/* Single-byte corruptions all over the text: rejected or accepted, never a crash. */
static void test_byte_flip_sweep(void **state)
{
	char *text = fixture_text(0);
	size_t len = strlen(text);
	unsigned rejected = 0, total = 0;

	for (size_t i = 0; i < len; i += 3) {
		char saved = text[i];
		struct chainobj *o = NULL;

		text[i] = (char)(saved == '0' ? '1' : saved ^ 0x20);
		if (chainobj_read_mem(text, len, &o, NULL) == 0)
			chainobj_free(o);
		else
			rejected++;
		total++;
		text[i] = saved;
	}
	/* The checksum catches almost every content change. */
	assert_true(rejected * 10 >= total * 9);
	free(text);
}

int main(void)
{
	struct CMUnitTest tests[sizeof(cases) / sizeof(cases[0]) + 5];
	size_t n = 0;
	static char names[sizeof(cases) / sizeof(cases[0])][64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(names[i], sizeof(names[i]), "reject_%s_%zu",
		         chainobj_err_name(cases[i].kind), i);
		for (char *p = names[i]; *p; p++)
			if (*p == ' ')
				*p = '_';
		tests[n++] = (struct CMUnitTest){names[i], run_case, NULL, NULL, (void *)&cases[i]};
	}
	tests[n++] =
	    (struct CMUnitTest)cmocka_unit_test(test_tamper_without_checksum_needs_reverification);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_comment_edit_keeps_checksum);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_degenerate_inputs);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_truncation_sweep);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_byte_flip_sweep);
	return _cmocka_run_group_tests("chainobj_reject", tests, n, NULL, NULL);
}
