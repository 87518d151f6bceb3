/* SPDX-License-Identifier: MIT */
/*
 * fuzz_chainobj.c - libFuzzer target over the chain-object YAML reader.
 *
 * Owns: the property that chainobj_read_mem() never crashes, never leaks
 * and never reads out of bounds on any input, and that whatever it accepts
 * writes back to text that reads back to the same text (writer and reader
 * agree on every accepted object), and that the verifier judges every
 * accepted object without crashing, with a reason when it refuses one.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chain/chain_verify.h"
#include "chain/chainobj.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct chainobj *o = NULL, *back = NULL;
	struct diag_report d;
	char *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;

	if (chainobj_read_mem(data, size, &o, &d) != 0) {
		if (o || d.code == CHAINOBJ_E_OK || !d.msg[0])
			abort();
		return 0;
	}
	if (chainobj_write_mem(o, 0, &a, &la, &d) != 0)
		abort(); /* an accepted object must be writable */
	if (chainobj_read_mem(a, la, &back, &d) != 0)
		abort();
	if (chainobj_write_mem(back, 0, &b, &lb, &d) != 0 || la != lb || memcmp(a, b, la))
		abort();
	/* the verifier judges any well-formed object without crashing, and
	 * says why when it refuses (tampered seeds: tampered_*.chain) */
	struct chain_verify_report rep;
	int rc = chain_verify(o, 0, &rep);
	if ((rc == 0) != (rep.err == CHAIN_VERIFY_E_OK) || (rc && !rep.msg[0]))
		abort();
	/* so does the request-gate check (seed request_gate.chain has one) */
	char why[200] = "";

	if (!chain_verify_request_gate(o, why, sizeof(why)) && !why[0])
		abort();
	free(a);
	free(b);
	chainobj_free(back);
	chainobj_free(o);
	return 0;
}
