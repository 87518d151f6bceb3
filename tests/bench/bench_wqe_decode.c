/* SPDX-License-Identifier: MIT */
/*
 * bench_wqe_decode.c - how fast prism_wqe_decode() runs on the WQE mix of a
 * RedN-style chain (WAIT, SEND_EN, READ with 2 scatter entries, fenced CAS,
 * WRITE_IMM, masked CAS), the sim's hot path.
 *
 * Prints decode rates (median of 7 runs) and, as a baseline measured in the
 * same run, the rate of copying the same bytes (memcpy of ds*16 bytes into
 * a buffer), with the ratio.  Also encode.  Figures only; never fails on
 * speed.
 *
 * Owns: this measurement.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <prism/wqe.h>

#include "tests/support/bench_stats.h"

#define NWQE  6
#define ITERS 2000000u
#define RUNS  7

static uint8_t wqes[NWQE][128];
static int lens[NWQE];
static struct prism_wqe src[NWQE];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void build(void)
{
	memset(src, 0, sizeof(src));
	src[0].ctrl.opcode = PRISM_OP_CQE_WAIT;
	src[0].wait_en = (struct prism_wait_en_seg){.index = 1, .obj_num = 0x21};
	src[1].ctrl.opcode = PRISM_OP_SEND_ENABLE;
	src[1].wait_en = (struct prism_wait_en_seg){.index = 4, .obj_num = 0x12};
	src[2].ctrl.opcode = PRISM_OP_RDMA_READ;
	src[2].num_sge = 2;
	src[2].sge[0] = (struct prism_sge){3, 1, 0x1004};
	src[2].sge[1] = (struct prism_sge){8, 1, 0x1028};
	src[3].ctrl.opcode = PRISM_OP_ATOMIC_CS;
	src[3].ctrl.fm_ce_se = PRISM_FM_CE_SE(PRISM_FENCE_SMALL_AND_FENCE, PRISM_CE_CQ_UPDATE, 0);
	src[3].num_sge = 1;
	src[4].ctrl.opcode = PRISM_OP_RDMA_WRITE_IMM;
	src[4].num_sge = 1;
	src[5].ctrl.opcode = PRISM_OP_ATOMIC_MASKED_CS;
	src[5].atomic.size = 8;
	src[5].num_sge = 1;
	for (int i = 0; i < NWQE; i++) {
		lens[i] = prism_wqe_encode(&src[i], wqes[i], sizeof(wqes[i]), NULL);
		if (lens[i] < 0) {
			fprintf(stderr, "bench_wqe_decode: encode %d failed\n", i);
			exit(1);
		}
	}
}

/* Returns operations per second of one run of @what. */
static double run(int what)
{
	static struct prism_wqe w;
	static uint8_t sink[128];
	static uint8_t out[128];
	unsigned long acc = 0;
	double t0 = now();

	for (unsigned i = 0; i < ITERS; i++) {
		unsigned k = i % NWQE;

		if (what == 0) {
			acc += (unsigned long)prism_wqe_decode(wqes[k], (size_t)lens[k], &w, NULL);
			acc += w.ctrl.opcode;
		} else if (what == 1) {
			memcpy(sink, wqes[k], (size_t)lens[k]);
			__asm__ volatile("" : : "r"(sink) : "memory");
			acc += sink[3];
		} else {
			acc += (unsigned long)prism_wqe_encode(&src[k], out, sizeof(out), NULL);
			__asm__ volatile("" : : "r"(out) : "memory");
		}
	}
	__asm__ volatile("" : : "r"(acc));
	return ITERS / (now() - t0);
}

static double median(int what)
{
	double r[RUNS];

	for (int i = 0; i < RUNS; i++)
		r[i] = run(what);
	qsort(r, RUNS, sizeof(r[0]), bench_cmp_double);
	return r[RUNS / 2];
}

int main(void)
{
	double dec, cpy, enc;

	build();
	dec = median(0);
	cpy = median(1);
	enc = median(2);
	printf("bench_wqe_decode: WQE mix of %d kinds (WAIT, SEND_EN, READ+2 SGE, CAS, "
	       "WRITE_IMM, masked CAS), %u ops x %d runs, median\n",
	       NWQE, ITERS, RUNS);
	printf("  decode            %8.1f M WQE/s  (%.1f ns/WQE)\n", dec / 1e6, 1e9 / dec);
	printf("  encode            %8.1f M WQE/s  (%.1f ns/WQE)\n", enc / 1e6, 1e9 / enc);
	printf("  baseline memcpy   %8.1f M WQE/s  (%.1f ns/WQE)\n", cpy / 1e6, 1e9 / cpy);
	printf("  decode / memcpy   %8.2f\n", dec / cpy);
	return 0;
}
