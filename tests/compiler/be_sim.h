/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/be_sim.h - running a compiled snippet end to end on the
 * software NIC, in process.
 *
 * Owns: be_sim_open() (source text -> verified object -> YAML -> loaded on a
 * sim device with every declared region created and zeroed, a local server
 * and a connected client), be_sim_region(), be_sim_call() (one invocation),
 * be_sim_close().  The loader re-verifies the object, the NIC executes the
 * WQE bytes with the firmware checks of the profile compiled for (strict:
 * exact index and QPN) and fails on a WQE rewritten after it was fetched,
 * the runtime re-arms between invocations: nothing is simulated outside the
 * product.
 */
#ifndef PRISM_TESTS_BE_SIM_H
#define PRISM_TESTS_BE_SIM_H

#include <stddef.h>
#include <stdint.h>

#include <prism/prism.h>

#include "compiler/ir.h"

struct be_sim;

/* NULL (with the diagnostics on stderr) if it does not compile or load. */
struct be_sim *be_sim_open(const char *src, const char *entry, enum ir_profile profile);
/* Same, writing a Chrome trace of every WQE the NIC runs to trace_path
 * (complete after be_sim_close). */
struct be_sim *be_sim_open_traced(const char *src, const char *entry, enum ir_profile profile,
                                  const char *trace_path);
/* The host bytes of a declared region. */
uint8_t *be_sim_region(struct be_sim *s, const char *name);
/* One invocation; 0 or a negative code.  *ret_site: which return ran. */
int be_sim_call(struct be_sim *s, const struct prism_arg *args, size_t nargs, void *result,
                size_t cap, uint32_t *ret_site);
/* The entry's result field as its client sees it (offset and size in the
 * result bytes); -1 when the entry has none. */
int be_sim_result_field(struct be_sim *s, uint32_t *offset, uint32_t *size);
void be_sim_close(struct be_sim *s);

#endif
