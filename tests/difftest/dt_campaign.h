/* SPDX-License-Identifier: MIT */
/*
 * tests/difftest/dt_campaign.h - a run of many random programs through
 * dt_run under both firmware profiles, with the tallies a reader needs:
 * per construct (programs that use it, programs compared), per rejection
 * reason, per kind of difference.
 *
 * Owns: dt_campaign() and the summary it prints.  Used by `make test`
 * (tests/difftest/test_difftest.c, a bounded run) and by the difftest tool
 * (`make fuzz-diff`, a long one, with reduction).
 */
#ifndef PRISM_TESTS_DT_CAMPAIGN_H
#define PRISM_TESTS_DT_CAMPAIGN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tests/difftest/dt_gen.h"

struct dt_campaign_opts {
	uint64_t seed;          /* programs use seeds seed, seed + 1, ... */
	unsigned programs;      /* compared programs to reach (rejected ones do not count) */
	unsigned max_generated; /* stop after this many generated, even if short */
	dt_mask allowed;
	bool relaxed, strict; /* profiles to run */
	bool reduce;          /* reduce each difference */
	const char *save_dir; /* write reduced differences as cases here (or NULL) */
	unsigned show;        /* print the source of the first `show` differences */
	unsigned progress;    /* a progress line every this many programs (0: none) */
	FILE *out;            /* the summary (NULL: none) */
};

struct dt_tally {
	unsigned generated, compared, diffs, bad, rejected, runs;
	unsigned faulted; /* runs where both engines failed the invocation (agreeing) */
	unsigned unsaved; /* differences save_dir could not take (each said on stderr) */
};

/* 0 when @dir is a directory this process can write cases into, else the
 * negative errno (-ENOTDIR for something else by that name). */
int dt_save_dir_check(const char *dir);

/*
 * Run the campaign; fills @t.  0; -ENOMEM when out of memory; or, before
 * generating anything, dt_save_dir_check's error for an unusable save_dir
 * (a campaign of hours must not find its differences and drop them).
 */
int dt_campaign(const struct dt_campaign_opts *o, struct dt_tally *t);

#endif
