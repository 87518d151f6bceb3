/* SPDX-License-Identifier: MIT */
/*
 * compiler/run_report.h - how the subcommands that invoke an entry point
 * print what one invocation returned: the lines a person reads, or one JSON
 * object (--json), and a failure as JSON.
 *
 * Owns: the wording and the JSON keys of an invocation's report, the same
 * for `prismc run` (software NIC, a device, the reference interpreter) and
 * `prismc call` (a running server).
 * Must not: run anything; the caller fills struct run_outcome.
 */
#ifndef PRISMC_RUN_REPORT_H
#define PRISMC_RUN_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What one invocation returned, from whichever engine ran it. */
struct run_outcome {
	const char *entry;
	int status;           /* the invocation's completion status (0: fine) */
	uint32_t ret_site;    /* 1-based index of the `return` that ran; 0: none ran */
	bool has_result;      /* the entry declares a result */
	const uint8_t *value; /* the result field "value" (read when ret_site != 0) */
	size_t value_len;
	bool value_le;          /* a little-endian integer of 1..8 bytes: printed as a number */
	const char *value_name; /* the result field's name (NULL: "value") */
	/* how long it took, one of: */
	uint64_t count;     /* a client of a running server: invocations timed (0: not one) */
	uint64_t wall_ns;   /* ... and their median wall-clock latency */
	const char *engine; /* an embedded NIC: its cost profile; NULL with count 0: the
	                     * reference interpreter */
	uint64_t virt_ns;   /* virtual latency (engine != NULL) */
};

/* The report on @out: text lines, or one JSON object and a newline. */
void run_report_print(FILE *out, const struct run_outcome *o, bool json);

/* A failed invocation as one JSON object on @out: {"entry", "error",
 * "exit_status"}; @entry may be NULL (not known yet). */
void run_report_error_json(FILE *out, const char *entry, const char *message, int exit_status);

#endif /* PRISMC_RUN_REPORT_H */
