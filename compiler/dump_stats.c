/* SPDX-License-Identifier: MIT */
/*
 * compiler/dump_stats.c - per-invocation statistics and the predicted
 * latency of a chain object (`prismc dump --stats`).
 *
 * Owns: the cx5 cost constants used here, the ordering classification and
 * the latency model:
 *
 *   latency = NOOP                                   (the first WR)
 *           + wq_ordered_us   * (WQ-ordered WRs - 1)
 *           + completion_us   * WAITs not followed by an ENABLE
 *           + doorbell_us     * WAIT + ENABLE pairs
 *           + (write_us - NOOP)       * WRITE/SEND WRs
 *           + (read_atomic_us - NOOP) * READ/atomic WRs
 *
 * i.e. RedN's microbenchmark increments (Fig. 7/8, Table 3) summed along
 * the chain as if it ran sequentially: an upper bound when lanes overlap.
 * The constants are a copy of the cx5 profile of DESIGN contract 6; the
 * sim's profile loader (profiles/cx5.yaml) is the source of truth once it
 * lands, and this table should then be read from it.
 *
 * Must not: decode bytes except through the codec.
 */
#include <stdio.h>

#include <prism/wqe.h>

#include "compiler/dump.h"

const struct dump_cost_profile dump_cx5 = {
    .name = "cx5",
    .noop_us = 1.21,
    .wq_ordered_us = 0.17,
    .completion_us = 0.19,
    .doorbell_us = 0.54,
    .write_us = 1.6,
    .read_atomic_us = 1.8,
};

static bool is_write(uint8_t op)
{
	return op == PRISM_OP_RDMA_WRITE || op == PRISM_OP_RDMA_WRITE_IMM || op == PRISM_OP_SEND ||
	       op == PRISM_OP_SEND_IMM;
}

static bool is_enable(uint8_t op)
{
	return op == PRISM_OP_SEND_ENABLE || op == PRISM_OP_RECV_ENABLE;
}

void dump_compute_stats(const struct chainobj *o, const struct dump_cost_profile *cost,
                        struct dump_stats *st)
{
	*st = (struct dump_stats){0};
	for (uint32_t qi = 0; qi < o->n_queues; qi++) {
		const struct chainobj_queue *q = &o->queues[qi];

		st->recvs += q->n_rq;
		for (uint32_t i = 0; i < q->n_sq; i++) {
			struct prism_wqe w;
			const struct prism_opcode_info *info;
			uint8_t op;

			if (prism_wqe_decode(q->sq[i].bytes, q->sq[i].len, &w, NULL) < 0)
				continue;
			op = w.ctrl.opcode;
			info = prism_opcode_info(op);
			st->wqes++;
			if (info)
				st->by_class[info->cls]++;
			if (prism_ctrl_ce(&w.ctrl) >= PRISM_CE_CQ_UPDATE)
				st->signaled++;
			if (prism_ctrl_fence(&w.ctrl) != PRISM_FENCE_NONE)
				st->fenced++;
			if (is_write(op))
				st->writes++;
			else if (info &&
			         (op == PRISM_OP_RDMA_READ || info->cls == PRISM_CLASS_ATOMIC))
				st->reads_atomics++;
			if (op == PRISM_OP_CQE_WAIT) {
				bool pair =
				    i + 1 < q->n_sq && is_enable(dump_wqe_opcode(&q->sq[i + 1]));

				if (pair) {
					st->doorbell_ordered++;
					i++; /* the ENABLE belongs to this step */
					st->wqes++;
					st->by_class[PRISM_CLASS_ORDERING]++;
				} else {
					st->completion_ordered++;
				}
				continue;
			}
			st->wq_ordered++;
		}
	}
	st->patch_sites = o->n_patches;
	st->relocs = o->n_relocs;
	if (!st->wqes)
		return;
	st->predicted_us = cost->noop_us +
	                   cost->wq_ordered_us * (st->wq_ordered ? st->wq_ordered - 1 : 0) +
	                   cost->completion_us * st->completion_ordered +
	                   cost->doorbell_us * st->doorbell_ordered +
	                   (cost->write_us - cost->noop_us) * st->writes +
	                   (cost->read_atomic_us - cost->noop_us) * st->reads_atomics;
}

int dump_stats_text(FILE *f, const struct chainobj *o)
{
	struct dump_stats st;

	dump_compute_stats(o, &dump_cx5, &st);
	fprintf(f, "program %s: %u queues, %u CQs, %u send WQEs, %u receive WQEs per invocation\n",
	        o->program, o->n_queues, o->n_cqs, st.wqes, st.recvs);
	fprintf(f, "by class: copy %u, atomic %u, ordering %u\n", st.by_class[PRISM_CLASS_COPY],
	        st.by_class[PRISM_CLASS_ATOMIC], st.by_class[PRISM_CLASS_ORDERING]);
	fprintf(f, "ordering: %u WQ-ordered, %u completion-ordered, %u doorbell-ordered steps\n",
	        st.wq_ordered, st.completion_ordered, st.doorbell_ordered);
	fprintf(f, "signaled %u, fenced %u, patch sites %u, relocations %u\n", st.signaled,
	        st.fenced, st.patch_sites, st.relocs);
	fprintf(f, "verifier: %u WRs per invocation (bound), %u barriers\n",
	        o->summary.wr_per_invocation, o->summary.barriers);
	fprintf(
	    f,
	    "predicted latency (%s, sequential model): %.2f us = %.2f noop + %u x %.2f wq + %u x "
	    "%.2f completion + %u x %.2f doorbell + %u x %.2f write + %u x %.2f read/atomic\n",
	    dump_cx5.name, st.predicted_us, dump_cx5.noop_us, st.wq_ordered ? st.wq_ordered - 1 : 0,
	    dump_cx5.wq_ordered_us, st.completion_ordered, dump_cx5.completion_us,
	    st.doorbell_ordered, dump_cx5.doorbell_us, st.writes,
	    dump_cx5.write_us - dump_cx5.noop_us, st.reads_atomics,
	    dump_cx5.read_atomic_us - dump_cx5.noop_us);
	return ferror(f) ? -1 : 0;
}
