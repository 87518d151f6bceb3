/* SPDX-License-Identifier: MIT */
/*
 * fuzz_wqe_decode.c - libFuzzer target for the WQE/receive-WQE/CQE decoders.
 *
 * Property: any byte string either decodes to a WQE or yields a codec error
 * with a diagnostic, without reading outside the input (ASan checks that).
 * When it decodes, encoding the result and decoding that again must give
 * the same WQE, and a second encode must give the same bytes: the decoder
 * accepts nothing the encoder cannot reproduce.  A CQE's body encoded into a
 * dirty slot (prism_cqe_encode_body) must match prism_cqe_encode's bytes.
 * The software NIC's decode (wqe_decode_engine) returns the same value as
 * prism_wqe_decode on every input, and writes the same bytes once the
 * fields it leaves alone are copied over (wqe_engine_rest), and its decode
 * of a fetched copy (wqe_decode_fetched) is that of the WQE's own DS bytes,
 * reading none past them.  A mismatch traps.
 *
 * Owns: this property only.  Seeds: tests/fuzz/seeds/fuzz_wqe_decode/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <prism/wqe.h>

#include "wqe/wqe_lean.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A fetched copy of exactly the WQE's own DS bytes (16 for DS 0), from
 * @data where it holds them: the fetch's decode reads none past them and
 * says what the engine's decode of that length says. */
static void check_fetched(const uint8_t *data, size_t size)
{
	static struct prism_wqe a, b;
	uint32_t own;
	uint8_t *row;

	if (size < 8)
		return;
	own = (data[7] & 0x3fu) ? (data[7] & 0x3fu) * 16u : 16u;
	if (size < own || !(row = malloc(own)))
		return;
	memcpy(row, data, own);
	memset(&a, 0x3c, sizeof(a));
	memset(&b, 0x3c, sizeof(b));
	if (wqe_decode_fetched(row, &a) != wqe_decode_engine(row, own, &b) ||
	    memcmp(&a, &b, sizeof(a)))
		__builtin_trap(); /* the fetch's decode differs from the engine's */
	free(row);
}

static void check_wqe(const uint8_t *data, size_t size)
{
	/* heap copy of exactly @size bytes, so ASan sees any over-read */
	uint8_t *in = malloc(size ? size : 1);
	static struct prism_wqe w, again, lean;
	static uint8_t enc[PRISM_WQE_MAX_BYTES], enc2[PRISM_WQE_MAX_BYTES];
	struct prism_wqe_diag diag;
	char line[4096];
	int n, m, k;

	if (!in)
		return;
	memcpy(in, data, size);
	diag.code = 0;
	diag.msg[0] = '\0';
	memset(&w, 0x5a, sizeof(w));
	memset(&lean, 0x5a, sizeof(lean));
	n = prism_wqe_decode(in, size, &w, &diag);
	if (size <= UINT32_MAX) {
		if (wqe_decode_engine(in, (uint32_t)size, &lean) != n)
			__builtin_trap(); /* the engine's verdict differs from the full one */
		wqe_engine_rest(&lean, &w);
		if (memcmp(&w, &lean, sizeof(w)))
			__builtin_trap(); /* a field the engine reads differs */
	}
	check_fetched(data, size);
	if (n < 0) {
		if (diag.code != n || diag.msg[0] == '\0' || prism_wqe_strerror(n)[0] == '\0')
			__builtin_trap(); /* an error without a diagnostic */
		free(in);
		return;
	}
	if (n % 16 || (size_t)n > size || n != w.ctrl.ds * 16)
		__builtin_trap();
	prism_wqe_snprint(line, sizeof(line), &w, in, size, PRISM_PRINT_RAW);

	memset(enc, 0, sizeof(enc));
	m = prism_wqe_encode(&w, enc, sizeof(enc), &diag);
	if (m != n)
		__builtin_trap(); /* decoded but cannot be re-encoded at the same size */
	k = prism_wqe_decode(enc, (size_t)m, &again, &diag);
	if (k != m || !prism_wqe_equal(&w, &again))
		__builtin_trap();
	memset(enc2, 0, sizeof(enc2));
	if (prism_wqe_encode(&again, enc2, sizeof(enc2), NULL) != m || memcmp(enc, enc2, (size_t)m))
		__builtin_trap();
	free(in);
}

static void check_rwqe_and_cqe(const uint8_t *data, size_t size)
{
	struct prism_sge sge[PRISM_WQE_MAX_SGE];
	struct prism_cqe c, c2;
	uint8_t cqe[PRISM_CQE_BYTES], cqe2[PRISM_CQE_BYTES];
	char line[512];
	unsigned stride = (unsigned)(size / 16);
	int n;

	if (stride > PRISM_WQE_MAX_SGE)
		stride = PRISM_WQE_MAX_SGE;
	if (stride) {
		n = prism_rwqe_decode(data, stride, sge, PRISM_WQE_MAX_SGE, NULL);
		if (n > (int)stride)
			__builtin_trap();
	}
	if (size >= PRISM_CQE_BYTES && prism_cqe_decode(data, &c, NULL) == 0) {
		prism_cqe_snprint(line, sizeof(line), &c);
		prism_cqe_encode(&c, cqe);
		if (prism_cqe_decode(cqe, &c2, NULL) != 0)
			__builtin_trap();
		prism_cqe_encode(&c2, cqe2);
		if (memcmp(cqe, cqe2, sizeof(cqe)))
			__builtin_trap();
		/* the ring-slot encoder writes the same 63 bytes over whatever the
		 * slot held (the input's bytes) and returns the same op_own */
		memcpy(cqe2, data, PRISM_CQE_BYTES);
		if (prism_cqe_encode_body(&c, cqe2) != cqe[PRISM_CQE_BYTES - 1] ||
		    memcmp(cqe, cqe2, PRISM_CQE_BYTES - 1) || cqe2[PRISM_CQE_BYTES - 1] != data[63])
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_wqe(data, size);
	check_rwqe_and_cqe(data, size);
	return 0;
}
