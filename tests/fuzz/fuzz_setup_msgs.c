/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_setup_msgs.c - libFuzzer target for what a server's post
 * socket answers and the size syntax (runtime/core/proto.c, util/size.h).
 *
 * Owns: on arbitrary bytes, (1) the listing decoder (prismc show's answer)
 * never reads out of bounds and what it accepts encodes and decodes again
 * to the same programs; (2) the hello decoder accepts only what re-encodes
 * to a hello it decodes the same, and so does the welcome decoder (what a
 * client reads from a server it does not trust); (3) the size parser never
 * fails to stop, and a size it accepts is the value of its digits times its
 * unit.
 *
 * Must not: allocate per input beyond the fixed buffers and the welcome's
 * entry table (freed).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/proto.h"
#include "util/size.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CAP 8

static struct prism_installed a[CAP], b[CAP];

/* The same program (names up to their NUL: bytes after it are not sent). */
static bool same(const struct prism_installed *x, const struct prism_installed *y)
{
	if (strcmp(x->name, y->name) || x->n_entries != y->n_entries ||
	    x->n_regions != y->n_regions || x->object_bytes != y->object_bytes ||
	    x->installed_at != y->installed_at || x->installed_uid != y->installed_uid ||
	    x->installed_pid != y->installed_pid || x->conns_active != y->conns_active ||
	    x->conns_total != y->conns_total || x->invocations != y->invocations)
		return false;
	for (uint32_t e = 0; e < x->n_entries && e < PRISM_LIST_ENTRIES; e++)
		if (strcmp(x->entries[e], y->entries[e]))
			return false;
	for (uint32_t r = 0; r < x->n_regions && r < PRISM_LIST_REGIONS; r++)
		if (strcmp(x->regions[r].name, y->regions[r].name) ||
		    x->regions[r].size != y->regions[r].size ||
		    x->regions[r].access != y->regions[r].access)
			return false;
	return true;
}
static uint8_t buf[CAP * sizeof(struct prism_installed) * 2];

static void check_list(const uint8_t *data, size_t size)
{
	unsigned n = 0, m = 0;
	size_t len;

	memset(a, 0, sizeof(a));
	if (core_list_decode(data, size, a, CAP, sizeof(a[0]), &n))
		return;
	if (n > CAP)
		return; /* only the first CAP are kept: nothing to compare */
	len = core_list_encode(a, n, NULL, 0);
	if (len > sizeof(buf) || core_list_encode(a, n, buf, len) != len)
		__builtin_trap();
	memset(b, 0, sizeof(b));
	if (core_list_decode(buf, len, b, CAP, sizeof(b[0]), &m) || m != n)
		__builtin_trap();
	for (unsigned i = 0; i < n; i++)
		if (!same(&a[i], &b[i]))
			__builtin_trap();
}

static void check_hello(const uint8_t *data, size_t size)
{
	struct core_hello h, h2;
	uint8_t out[512];
	size_t n;

	if (core_hello_decode(data, size, &h))
		return;
	n = core_hello_encode(&h, out, sizeof(out));
	if (n > sizeof(out) || core_hello_decode(out, n, &h2))
		__builtin_trap();
	/* the program name up to its NUL: bytes after it are not sent */
	if (h.kind != h2.kind || strcmp(h.program, h2.program) || h.node != h2.node ||
	    h.qpn != h2.qpn || h.resp_addr != h2.resp_addr || h.resp_rkey != h2.resp_rkey ||
	    h.resp_slots != h2.resp_slots || h.resp_stride != h2.resp_stride)
		__builtin_trap();
}

static void check_welcome(const uint8_t *data, size_t size)
{
	struct core_welcome w, w2;
	static uint8_t out[1 << 16];
	size_t n;

	if (core_welcome_decode(data, size, &w))
		return;
	n = core_welcome_encode(&w, out, sizeof(out));
	if (n > sizeof(out) || core_welcome_decode(out, n, &w2))
		__builtin_trap();
	if (w.status != w2.status || w.qpn != w2.qpn || w.depth != w2.depth ||
	    w.inflight != w2.inflight || w.response_size != w2.response_size ||
	    w.n_entries != w2.n_entries || strcmp(w.program, w2.program))
		__builtin_trap();
	for (uint32_t e = 0; e < w.n_entries; e++)
		if (strcmp(w.entries[e].name, w2.entries[e].name) ||
		    w.entries[e].msg_size != w2.entries[e].msg_size ||
		    w.entries[e].n_params != w2.entries[e].n_params)
			__builtin_trap();
	core_welcome_free(&w);
	core_welcome_free(&w2);
}

static void check_size(const uint8_t *data, size_t size)
{
	uint64_t v = 0, digits = 0;
	char text[64];

	if (size > sizeof(text) - 1)
		return;
	memcpy(text, data, size);
	text[size] = 0;
	if (core_size_parse(text, size, &v) != CORE_SIZE_OK)
		return;
	/* no unit: the value is the digits' (strtoull agrees on plain decimals) */
	if (strspn(text, "0123456789") == size && size && text[0] != '0') {
		digits = strtoull(text, NULL, 10);
		if (digits != v)
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_list(data, size);
	check_hello(data, size);
	check_welcome(data, size);
	check_size(data, size);
	return 0;
}
