/* SPDX-License-Identifier: MIT */
/*
 * tests/difftest/dt_run.h - one program, both engines: compiled for a
 * firmware profile and run on the software NIC, and run by the reference
 * interpreter, over the same region images and arguments; then compared
 * (every region's bytes, the return site, the returned bytes).  Plus the
 * reducer and the regression-case files built on it.
 *
 * Owns: dt_run(), dt_reduce(), dt_case_write() / dt_case_run().
 */
#ifndef PRISM_TESTS_DT_RUN_H
#define PRISM_TESTS_DT_RUN_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/ir.h"
#include "tests/difftest/dt_gen.h"

enum dt_outcome {
	DT_SAME,     /* both engines agree */
	DT_DIFF,     /* they disagree: `kind` and `what` say how */
	DT_REJECTED, /* the compiler rejects the program: `what` is the reason */
	DT_BAD,      /* the front end rejects it (a generator bug): `what` */
	DT_ERROR,    /* the harness failed (out of memory, a bad image spec) */
};

struct dt_report {
	enum dt_outcome outcome;
	char kind[48];     /* DIFF: "status", "return site", "value", "region m", ... */
	char what[640];    /* the difference, or the first diagnostic */
	uint32_t site;     /* the reference's return site */
	uint8_t value[64]; /* the reference's returned bytes (first 64) */
	size_t value_len;
	bool faulted; /* the reference faulted (both did, when SAME) */
};

struct dt_input {
	const char *src;
	const char *const *sets;
	size_t nsets;
	const struct dt_arg *args;
	size_t nargs;
};

/* Run @in under @prof and fill @rep.  Returns rep->outcome. */
enum dt_outcome dt_run(const struct dt_input *in, enum ir_profile prof, struct dt_report *rep);

/* The program made as small as edits allow while it still differs the same
 * way (same report kind) under @prof.  Takes @p; returns the reduced one
 * (or @p).  *@runs: programs tried. */
struct dt_prog *dt_reduce(struct dt_prog *p, enum ir_profile prof, const char *kind,
                          unsigned *runs);

/* Write @dir/@name.prism (the program with a header: firmware, arguments,
 * what the reference computes, the kind of difference, known bugs its
 * constructs may hit) and @dir/@name.set (the images, for `prismc run
 * --set-file`).  0 or -1. */
int dt_case_write(const char *dir, const char *name, const struct dt_prog *p, enum ir_profile prof,
                  const struct dt_report *rep);

/* Run a case file written by dt_case_write (or by hand, same header):
 * the reference must compute what the header says; the NIC must agree with
 * it, unless the header names a known bug (`//! known:`), where a
 * difference is expected and *@known_diff says whether it is still there.
 * Returns 0 when the case passes, else -1 with @err filled. */
int dt_case_run(const char *prism_path, bool *known_diff, char *err, size_t errlen);

/* Run @prism_path (a case file, or any one-offload program with the same
 * header lines; its .set file is optional) under the profiles asked for (a
 * `//! firmware:` line keeps one) and print each outcome with what the
 * reference computes to @out.  Returns 0 unless the engines differ or the
 * program, its images or the harness fail. */
int dt_case_try(const char *prism_path, bool relaxed, bool strict, FILE *out);

const char *dt_profile_name(enum ir_profile prof);

/* The number of compared programs a campaign in `make test` makes
 * (DIFFTEST_PROGRAMS, 2000 unset; the ASan+UBSan pass sets 500). */
unsigned dt_test_programs(void);

/* @full random inputs per program, scaled down as DIFFTEST_PROGRAMS is
 * below 2000 (at least 1): suites that run fixed programs on random inputs
 * cost the sanitizer pass a quarter. */
unsigned dt_test_runs(unsigned full);

#endif
