/* SPDX-License-Identifier: MIT */
/*
 * sim/trace_observer.h - a sim_observer that writes the engine's events as a
 * Chrome trace (Perfetto): one track per send queue with each WQE's fetch
 * (instant) and execution (slice, the codec's one-line text in its args),
 * patch arrows from the writing WQE to the WQE whose bytes it changed,
 * hazards as instants, CQEs on one track per CQ, WAIT stalls as slices.
 *
 * Owns: the mapping from struct sim_event to trace_chrome calls and the
 * bookkeeping it needs (execution start per WQE, pending patch arrows).
 * Must not: change what the engine does: it forwards every call to the
 * observer it wraps (cost model included) and only reads events.
 */
#ifndef PRISM_SIM_TRACE_OBSERVER_H
#define PRISM_SIM_TRACE_OBSERVER_H

#include <stdbool.h>
#include <stdio.h>

#include "sim/sim.h"
#include "sim/trace_chrome.h"

struct sim_trace_observer_opts {
	/* Exactly one of: a stream (a document of its own), or a trace shared
	 * with other observers (several devices in one file, one per pid). */
	FILE *out;
	struct sim_trace *shared;
	uint32_t pid;                    /* process id in the trace: the device's node */
	const struct sim_observer *next; /* cost and events forwarded here (may be NULL) */
	bool read_lines;                 /* also trace READ_LINE (chaos mode) */
};

struct sim_trace_observer;

int sim_trace_observer_create(const struct sim_trace_observer_opts *opts,
                              struct sim_trace_observer **out);
/* The hooks to pass in sim_dev_opts.obs (valid until destroy). */
const struct sim_observer *sim_trace_observer_hooks(struct sim_trace_observer *o);
/* Events seen so far, per kind (for tests). */
uint64_t sim_trace_observer_count(const struct sim_trace_observer *o, enum sim_event_kind k);
/* Close the document (own stream only); -EIO on a write error. */
int sim_trace_observer_finish(struct sim_trace_observer *o);
void sim_trace_observer_destroy(struct sim_trace_observer *o);

#endif /* PRISM_SIM_TRACE_OBSERVER_H */
