/* SPDX-License-Identifier: MIT */
/*
 * tests/cost/fuzz_cost_profile.c - libFuzzer target for the profile parser.
 *
 * Owns: feeding arbitrary bytes to sim_cost_profile_parse(); a parse either
 * succeeds with values inside the schema's ranges or fails with a message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cost_profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_cost_profile p;
	struct diag_report d;
	int rc = sim_cost_profile_parse((const char *)data, size, "fuzz", &p, &d);
	if (rc == 0) {
		if (p.processing_units < 1 || p.latency_ns[SIM_VERB_NOP] < 1)
			abort();
		struct sim_cost_query q = {
		    .opcode = 0x11, .order = SIM_ORDER_DOORBELL, .bytes = 4096};
		struct sim_cost c;
		sim_cost_profile_charge(&p, &q, &c);
		if (c.latency < c.busy)
			abort();
	} else if (d.msg[0] == '\0') {
		abort();
	}
	return 0;
}
