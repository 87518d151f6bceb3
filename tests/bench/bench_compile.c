/* SPDX-License-Identifier: MIT */
/*
 * tests/bench/bench_compile.c - compile speed of prismc's front end.
 *
 * Generates a 10,000-line .prism program (structs, regions, and offloads
 * with loops, conditionals, atomics, allocation and parallel lanes), then
 * times parse-only and parse+check runs; prints the median of several runs
 * of each and the checker's share (ratio against the parse-only baseline
 * measured in the same run).  The back end extends this with lowering.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compiler/check.h"
#include "compiler/parse.h"
#include "tests/support/bench_stats.h"

#define TARGET_LINES 10000
#define RUNS         11

static const char header[] = "const VALUE = 64;\n"
                             "struct node { key: be64; next: *node in nodes; val: u8[VALUE]; "
                             "len: be32; ver: le64; }\n"
                             "region nodes: node[4096] readonly;\n"
                             "region heap: node[1024] writable;\n"
                             "freelist bufs: node in heap;\n";

/* One offload: 24 lines. */
static const char body[] =
    "offload op%u(key: be64, head: *node in nodes, h: *node in heap, v: le64) -> u8[VALUE] {\n"
    "\tlet p = head;\n"
    "\t// walk the list\n"
    "\twhile (p.key != key) bound 8 {\n"
    "\t\tp = p.next;\n"
    "\t\tif (p.key == 0) {\n"
    "\t\t\tbreak;\n"
    "\t\t}\n"
    "\t}\n"
    "\tlet old = fetch_add(h.ver, 1);\n"
    "\tif (cas(h.key, key, p.key)) {\n"
    "\t\th.len = p.len;\n"
    "\t}\n"
    "\tcas_gt(h.ver, v, 0xffffffff00000000, 0xffffffffffffffff);\n"
    "\tlet b = alloc(bufs);\n"
    "\tb.key = key;\n"
    "\tparallel {\n"
    "\t\tif (head.key == key) { return head.val; }\n"
    "\t} || {\n"
    "\t\tif (p.key == key) { return p.val[.. p.len]; }\n"
    "\t}\n"
    "\treturn p.val;\n"
    "}\n"
    "\n";

int main(void)
{
	char *src = NULL;
	size_t len = 0;
	unsigned lines = 5, i = 0;
	FILE *f = open_memstream(&src, &len);
	double parse_t[RUNS], check_t[RUNS], full_t[RUNS];

	if (!f)
		return 1;
	fputs(header, f);
	while (lines < TARGET_LINES) {
		fprintf(f, body, i++);
		lines += 24;
	}
	fclose(f);

	for (int r = 0; r < RUNS; r++) {
		struct diag_ctx d;
		double t0 = bench_now();

		diag_init(&d, "bench.prism", src, len);
		struct ast_program *prog = parse_buffer(&d, "bench.prism", src, len);
		double t1 = bench_now();
		unsigned errors = prog ? check_program(&d, prog) : 1;
		double t2 = bench_now();

		if (!prog || d.errors || errors) {
			diag_render(&d, stderr);
			fprintf(stderr, "bench_compile: generated program does not check\n");
			return 1;
		}
		parse_t[r] = t1 - t0;
		check_t[r] = t2 - t1;
		full_t[r] = t2 - t0;
		ast_program_free(prog);
		diag_fini(&d);
	}
	double p = bench_median(parse_t, RUNS), c = bench_median(check_t, RUNS),
	       t = bench_median(full_t, RUNS);
	printf("bench_compile: %u lines, %u offloads, %zu bytes, median of %d runs\n", lines, i,
	       len, RUNS);
	printf("  parse           %8.2f ms  (%.0f lines/s)\n", p * 1e3, lines / p);
	printf("  check           %8.2f ms\n", c * 1e3);
	printf("  front end total %8.2f ms  (%.0f lines/s)\n", t * 1e3, lines / t);
	printf("  ratio check / parse (baseline) %.2f\n", c / p);
	free(src);
	return 0;
}
