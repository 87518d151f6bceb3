/* SPDX-License-Identifier: MIT */
/*
 * tests/bench/bench_backend.c - compile speed of the whole prismc pipeline.
 *
 * Generates a 10,000-line .prism program in the subset the back end lowers
 * (conditionals by CAS, returns, stores, atomics, parallel lanes, an
 * unrolled list walk with exits), then
 * times the front end alone (parse + check: the baseline) and the full
 * compile of every offload (front end + lower + barrier coalescing + layout
 * + emit through the codec + verifier).  Prints medians of several runs
 * and the ratio full / front end measured in the same run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compiler/compile.h"
#include "compiler/frontend.h"
#include "tests/support/bench_stats.h"

#define TARGET_LINES 10000
#define RUNS         9

static const char header[] = "struct bucket { key: be24; pad: u8[5]; value: *u8[64] in values; }\n"
                             "struct ctr { n: le64; }\n"
                             "region table: bucket[65536] readonly;\n"
                             "region values size 4 MiB readonly;\n"
                             "region counters: ctr[1024] writable;\n"
                             "struct node { key: be24; pad: u8[5]; next: *node in nodes; "
                             "value: u8[64]; }\n"
                             "region nodes: node[4096] readonly;\n";

/* One group of offloads: 29 lines. */
static const char body[] =
    "offload get%u(key: be24, b1: *bucket in table, b2: *bucket in table) -> u8[64] {\n"
    "\tif (b1.key == key) {\n"
    "\t\treturn *b1.value;\n"
    "\t}\n"
    "\tif (b2.key == key) {\n"
    "\t\treturn *b2.value;\n"
    "\t}\n"
    "}\n"
    "offload pget%u(key: be24, b1: *bucket in table, b2: *bucket in table) -> u8[64] {\n"
    "\tparallel {\n"
    "\t\tif (b1.key == key) { return *b1.value; }\n"
    "\t} || {\n"
    "\t\tif (b2.key == key) { return *b2.value; }\n"
    "\t}\n"
    "}\n"
    "offload bump%u(c: *ctr in counters, v: le64) {\n"
    "\tc.n = v;\n"
    "\tfetch_add(c.n, 1);\n"
    "}\n"
    "offload find%u(key: be24, head: *node in nodes) -> u8[64] {\n"
    "\tlet p = head;\n"
    "\twhile (p.key != key) bound 8 {\n"
    "\t\tp = p.next;\n"
    "\t}\n"
    "\tif (p.key == key) {\n"
    "\t\treturn p.value;\n"
    "\t}\n"
    "}\n"
    "\n";

int main(void)
{
	char *src = NULL;
	size_t len = 0;
	unsigned lines = 5, groups = 0;
	FILE *f = open_memstream(&src, &len);
	double fe_t[RUNS], full_t[RUNS];
	unsigned long wqes = 0;
	if (!f)
		return 1;
	fputs(header, f);
	while (lines < TARGET_LINES) {
		fprintf(f, body, groups, groups, groups, groups);
		groups++;
		lines += 29;
	}
	fclose(f);
	for (int r = 0; r < RUNS; r++) {
		struct frontend_unit u;
		double t0 = bench_now();
		if (frontend_load_buffer(&u, "bench.prism", src, len, NULL) != FRONTEND_OK) {
			diag_render(&u.diag, stderr);
			fprintf(stderr, "bench_backend: generated program does not check\n");
			return 1;
		}
		double t1 = bench_now();
		wqes = 0;
		for (const struct ast_offload *off = u.prog->offloads; off; off = off->next) {
			struct compile_opts co = {.profile = IR_PROFILE_RELAXED,
			                          .entry = off->name};
			struct chainobj *o = NULL;
			if (compile_program(&u.diag, u.prog, &co, &o) != 0) {
				diag_render(&u.diag, stderr);
				fprintf(stderr, "bench_backend: %s does not compile\n", off->name);
				return 1;
			}
			wqes += o->summary.wr_per_invocation;
			chainobj_free(o);
		}
		double t2 = bench_now();
		fe_t[r] = t1 - t0;
		full_t[r] = t2 - t0;
		frontend_fini(&u);
	}
	double fe = bench_median(fe_t, RUNS), full = bench_median(full_t, RUNS);
	printf("bench_backend: %u lines, %u offloads, %lu WQEs emitted, median of %d runs\n", lines,
	       groups * 4, wqes, RUNS);
	printf("  front end (baseline)   %8.2f ms\n", fe * 1e3);
	printf("  full compile           %8.2f ms  (%.0f lines/s)\n", full * 1e3, lines / full);
	printf("  ratio full / front end %.2f\n", full / fe);
	free(src);
	return 0;
}
