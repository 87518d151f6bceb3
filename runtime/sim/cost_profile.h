/* SPDX-License-Identifier: MIT */
/*
 * sim/cost_profile.h - NIC cost profiles and the per-WQE cost model of the
 * software RNIC's virtual clock (docs/contracts.md contract 6).
 *
 * Owns: the profile schema (a table of fields; YAML files such as
 * profiles/cx5.yaml, parsed with libyaml), the built-in profiles compiled
 * into the library, and sim_cost_profile_charge(), which turns one executed
 * WQE into virtual time (the engine's sim_observer.cost).
 *
 * Must not: know about queues, scheduling or memory; the engine decides when
 * a WQE may start and asks this module only how long it takes.  Never prints:
 * load errors come back as a negative errno and a message with file:line:col.
 */
#ifndef PRISM_SIM_COST_PROFILE_H
#define PRISM_SIM_COST_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/sim.h"

#include "util/diag_report.h"

/* What a WQE costs to execute depends on its verb class... */
#define SIM_VERB_CLASSES(X)                                                                        \
	X(NOP, "nop")                                                                              \
	X(WRITE, "write")                                                                          \
	X(SEND, "send")                                                                            \
	X(READ, "read")                                                                            \
	X(ATOMIC, "atomic")                                                                        \
	X(MASKED_ATOMIC, "masked_atomic")                                                          \
	X(WAIT, "wait")                                                                            \
	X(ENABLE, "enable")

enum sim_verb {
#define SIM_X_VERB(name, key) SIM_VERB_##name,
	SIM_VERB_CLASSES(SIM_X_VERB)
#undef SIM_X_VERB
	    SIM_VERB__COUNT,
};

/*
 * ...and on how it reached its processing unit: sim.h's enum sim_order
 * (HOST: first WQE after a host doorbell, WQ, COMPLETION, DOORBELL; RedN
 * 3.1, Fig. 2, Fig. 8).  The profile's chain_ns section is keyed by these.
 */
#define SIM_ORDER__COUNT 4

#define SIM_PROFILE_NAME_MAX 32
#define SIM_PROFILE_DESC_MAX 160

/* A loaded profile: plain numbers, copied by value. */
struct sim_cost_profile {
	unsigned schema;
	char name[SIM_PROFILE_NAME_MAX];
	char description[SIM_PROFILE_DESC_MAX];
	unsigned processing_units;
	double latency_ns[SIM_VERB__COUNT];      /* alone, doorbell to completion */
	double network_ns;                       /* one way, remote minus loopback */
	double chain_ns[SIM_ORDER__COUNT];       /* [SIM_ORDER_HOST] = latency_ns[NOP] */
	double ordering_verb_ns;                 /* one WAIT / SEND_EN / RECV_EN (Fig. 8 glue) */
	double throughput_mops[SIM_VERB__COUNT]; /* per port */
	unsigned payload_free_bytes;
	double payload_gbps;
};

/* Why a load failed (struct diag_report, util/diag_report.h): the first
 * problem, a negative errno, with its line and column when known and a
 * message "cx5.yaml:12:3: unknown key 'nopp' in 'latency_ns'". */

/*
 * Parse a profile from @text (@len bytes; @origin names it in messages).
 * Returns 0, or -EINVAL (bad YAML, unknown or duplicate key, missing field,
 * value out of range) / -ENOMEM with @diag filled in (@diag may be NULL).
 */
int sim_cost_profile_parse(const char *text, size_t len, const char *origin,
                           struct sim_cost_profile *out, struct diag_report *diag);

/* Same, from a file; -errno of fopen/fread on I/O failure. */
int sim_cost_profile_load_file(const char *path, struct sim_cost_profile *out,
                               struct diag_report *diag);

/*
 * A profile compiled into the library ("cx5"): the YAML text of
 * profiles/<name>.yaml, parsed with the same code.  -ENOENT when unknown.
 */
int sim_cost_profile_builtin(const char *name, struct sim_cost_profile *out,
                             struct diag_report *diag);

/* Names of the built-in profiles, NULL-terminated. */
const char *const *sim_cost_profile_builtin_names(void);

/* Raw YAML text of a built-in profile (for `--dump`), NULL when unknown. */
const char *sim_cost_profile_builtin_text(const char *name, size_t *len);

/*
 * The price of one WQE (struct sim_cost, picoseconds):
 *   latency  from the moment it may start (predecessor done, WAIT satisfied,
 *            ENABLE executed) until its completion is visible;
 *   busy     how long it occupies its processing unit: the PU can start the
 *            next WQE after busy (Table 3: the port's rate for the verb
 *            spread over its processing_units).
 * Inputs used from @q: opcode, order, bytes, loopback.
 */
void sim_cost_profile_charge(const struct sim_cost_profile *p, const struct sim_cost_query *q,
                             struct sim_cost *out);

/* sim_observer.cost callback: @ctx is a const struct sim_cost_profile *. */
void sim_cost_profile_observer_cost(void *ctx, const struct sim_cost_query *q,
                                    struct sim_cost *out);

/* Map a WQE opcode to its verb class; NOP for unknown opcodes. */
enum sim_verb sim_cost_verb_of(uint8_t opcode);

const char *sim_verb_name(enum sim_verb v);
const char *sim_order_name(enum sim_order o);

#endif /* PRISM_SIM_COST_PROFILE_H */
