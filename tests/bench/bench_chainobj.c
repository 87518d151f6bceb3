/* SPDX-License-Identifier: MIT */
/*
 * bench_chainobj.c - speed of the chain-object reader, writer and
 * validator, against libyaml's own parse of the same text as the baseline.
 *
 * Owns: the figures printed by `make bench` for the chain object: objects
 * per second for (a) libyaml document load alone, (b) chainobj_read_mem
 * (load + schema walk + validation + checksum), (c) chainobj_validate,
 * (d) chainobj_write_mem; the median of several runs and the ratio of (b)
 * to (a).  Input: the hash-get seed object of the reader's fuzz corpus
 * (or the file named by argv[1]).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <yaml.h>

#include "chain/chainobj.h"
#include "tests/support/bench_stats.h"

#define RUNS 9

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[n] = 0;
	*len = (size_t)n;
	return buf;
}

enum op { OP_YAML, OP_READ, OP_VALIDATE, OP_WRITE };

/* One timed batch of @iters operations; returns seconds per operation. */
static double batch(enum op op, const char *text, size_t len, const struct chainobj *o,
                    unsigned iters)
{
	double t0 = now();

	for (unsigned i = 0; i < iters; i++) {
		switch (op) {
		case OP_YAML: {
			yaml_parser_t p;
			yaml_document_t d;

			yaml_parser_initialize(&p);
			yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
			if (yaml_parser_load(&p, &d))
				yaml_document_delete(&d);
			yaml_parser_delete(&p);
			break;
		}
		case OP_READ: {
			struct chainobj *x = NULL;

			if (chainobj_read_mem(text, len, &x, NULL))
				abort();
			chainobj_free(x);
			break;
		}
		case OP_VALIDATE:
			if (chainobj_validate(o, NULL))
				abort();
			break;
		case OP_WRITE: {
			char *out = NULL;
			size_t n = 0;

			if (chainobj_write_mem(o, 0, &out, &n, NULL))
				abort();
			free(out);
			break;
		}
		}
	}
	return (now() - t0) / iters;
}

static double median(enum op op, const char *text, size_t len, const struct chainobj *o,
                     unsigned iters)
{
	double t[RUNS];

	for (int r = 0; r < RUNS; r++)
		t[r] = batch(op, text, len, o, iters);
	qsort(t, RUNS, sizeof(t[0]), bench_cmp_double);
	return t[RUNS / 2];
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "tests/fuzz/seeds/fuzz_chainobj/hashget_full.chain";
	struct chainobj *o = NULL;
	struct diag_report d;
	size_t len = 0;
	char *text = slurp(path, &len);
	double yaml, rd, val, wr;
	unsigned wqes = 0;

	if (!text) {
		fprintf(stderr, "bench_chainobj: cannot read %s\n", path);
		return 1;
	}
	if (chainobj_read_mem(text, len, &o, &d)) {
		fprintf(stderr, "bench_chainobj: %s: %s\n", path, d.msg);
		free(text);
		return 1;
	}
	for (uint32_t q = 0; q < o->n_queues; q++)
		wqes += o->queues[q].n_sq + o->queues[q].n_rq;
	yaml = median(OP_YAML, text, len, o, 2000);
	rd = median(OP_READ, text, len, o, 2000);
	val = median(OP_VALIDATE, text, len, o, 20000);
	wr = median(OP_WRITE, text, len, o, 2000);
	printf(
	    "bench_chainobj: %s (%zu bytes, %u WQE templates, %u relocations), median of %d runs\n",
	    path, len, wqes, o->n_relocs, RUNS);
	printf("  libyaml load (baseline)   %8.1f us  %9.0f objects/s\n", yaml * 1e6, 1 / yaml);
	printf("  chainobj_read_mem         %8.1f us  %9.0f objects/s  (%.2fx the baseline)\n",
	       rd * 1e6, 1 / rd, rd / yaml);
	printf("  chainobj_validate         %8.1f us  %9.0f objects/s\n", val * 1e6, 1 / val);
	printf("  chainobj_write_mem        %8.1f us  %9.0f objects/s\n", wr * 1e6, 1 / wr);
	chainobj_free(o);
	free(text);
	return 0;
}
