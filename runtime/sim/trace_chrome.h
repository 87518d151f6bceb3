/* SPDX-License-Identifier: MIT */
/*
 * sim/trace_chrome.h - Chrome trace-event JSON writer (opens in Perfetto and
 * chrome://tracing).
 *
 * Owns: the JSON document ({"displayTimeUnit":"ns","traceEvents":[...]},
 * one event a line, each written by jansson), track names (one track per queue), complete slices,
 * instants and flow arrows, and a small builder for event arguments.
 * Times are virtual picoseconds; the file carries microseconds.
 *
 * Must not: know about the engine's objects.  trace_observer.c turns the
 * engine's events into calls of this writer.  Never prints on its own: it
 * writes only to the stream it was given, and reports write errors at
 * sim_trace_finish().
 */
#ifndef PRISM_SIM_TRACE_CHROME_H
#define PRISM_SIM_TRACE_CHROME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct sim_trace;

/* Start a document on @out (the caller keeps ownership of @out). */
int sim_trace_create(FILE *out, struct sim_trace **tr);
/* Close the document; -EIO if any write failed. Idempotent. */
int sim_trace_finish(struct sim_trace *tr);
/* Frees @tr (finishing the document first if needed). */
void sim_trace_destroy(struct sim_trace *tr);
/* Number of trace events written so far (metadata included). */
uint64_t sim_trace_events(const struct sim_trace *tr);

/* Arguments of one event: up to SIM_TRACE_MAX_ARGS fields whose keys and
 * string values are copied into buf; a field that does not fit is dropped
 * and marks the set truncated. */
#define SIM_TRACE_MAX_ARGS 16
struct sim_trace_args {
	unsigned n;
	bool truncated;
	struct {
		uint16_t key, str; /* offsets in buf */
		uint8_t kind;      /* string, number, hex string */
		uint64_t num;
	} field[SIM_TRACE_MAX_ARGS];
	size_t len; /* bytes of buf used */
	char buf[1024];
};
void sim_trace_args_init(struct sim_trace_args *a);
void sim_trace_args_str(struct sim_trace_args *a, const char *key, const char *val);
void sim_trace_args_u64(struct sim_trace_args *a, const char *key, uint64_t val);
void sim_trace_args_hex(struct sim_trace_args *a, const char *key, uint64_t val);

/* Name track (@pid, @tid), once; later calls for the same track are ignored. */
void sim_trace_track(struct sim_trace *tr, uint32_t pid, uint64_t tid, const char *name);
void sim_trace_process(struct sim_trace *tr, uint32_t pid, const char *name);

/* A complete slice [t, t + dur] ("ph":"X"). @args may be NULL. */
void sim_trace_slice(struct sim_trace *tr, uint32_t pid, uint64_t tid, const char *name,
                     const char *cat, uint64_t t_ps, uint64_t dur_ps,
                     const struct sim_trace_args *args);
/* A thread-scoped instant ("ph":"i"). */
void sim_trace_instant(struct sim_trace *tr, uint32_t pid, uint64_t tid, const char *name,
                       const char *cat, uint64_t t_ps, const struct sim_trace_args *args);
/*
 * A flow arrow: begin ("ph":"s") must lie inside a slice of its track; end
 * ("ph":"f", binding point "e") binds to the slice enclosing @t_ps on its
 * track.  Both halves share @id and @name.
 */
void sim_trace_flow_begin(struct sim_trace *tr, uint32_t pid, uint64_t tid, const char *name,
                          uint64_t id, uint64_t t_ps);
void sim_trace_flow_end(struct sim_trace *tr, uint32_t pid, uint64_t tid, const char *name,
                        uint64_t id, uint64_t t_ps);

#endif /* PRISM_SIM_TRACE_CHROME_H */
