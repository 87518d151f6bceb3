/* SPDX-License-Identifier: MIT */
/*
 * compiler/dump_stats.c - per-invocation statistics and the predicted
 * latency of a chain object (`prismc dump --stats`).
 *
 * Owns: the ordering classification, per-lap counts of recycled loops
 * (against RedN Table 2's recycled while), and the latency model:
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
 * The numbers come from the sim's cost profile (runtime/sim/cost_profile.h,
 * profiles/cx5.yaml), the same one the software NIC's virtual clock uses.
 *
 * Must not: decode bytes except through the codec.
 */
#include <stdio.h>
#include <string.h>

#include <prism/wqe.h>

#include "compiler/dump.h"
#include "sim/cost_profile.h"

static void from_sim(const struct sim_cost_profile *p, struct dump_cost_profile *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", p->name);
	out->noop_us = p->latency_ns[SIM_VERB_NOP] / 1000.0;
	out->wq_ordered_us = p->chain_ns[SIM_ORDER_WQ] / 1000.0;
	out->completion_us = p->chain_ns[SIM_ORDER_COMPLETION] / 1000.0;
	out->doorbell_us = p->chain_ns[SIM_ORDER_DOORBELL] / 1000.0;
	out->write_us = p->latency_ns[SIM_VERB_WRITE] / 1000.0;
	out->read_atomic_us = p->latency_ns[SIM_VERB_READ] / 1000.0;
}

int dump_cost_profile_builtin(const char *name, struct dump_cost_profile *out, char *err,
                              size_t errlen)
{
	struct sim_cost_profile p;
	struct diag_report diag;
	int rc = sim_cost_profile_builtin(name, &p, &diag);

	if (rc < 0) {
		if (err && errlen)
			snprintf(err, errlen, "%s", diag.msg);
		return rc;
	}
	from_sim(&p, out);
	return 0;
}

int dump_cost_profile_load(const char *spec, struct dump_cost_profile *out, char *err,
                           size_t errlen)
{
	struct sim_cost_profile p;
	struct diag_report diag;
	int rc;

	/* a built-in name, as the software NIC's --cost takes it, else a file */
	if (dump_cost_profile_builtin(spec, out, NULL, 0) == 0)
		return 0;
	rc = sim_cost_profile_load_file(spec, &p, &diag);
	if (rc < 0) {
		if (err && errlen)
			snprintf(err, errlen, "%s", diag.msg[0] ? diag.msg : strerror(-rc));
		return rc;
	}
	from_sim(&p, out);
	return 0;
}

const struct dump_cost_profile *dump_cost_cx5(void)
{
	static struct dump_cost_profile cx5;

	if (!cx5.name[0] && dump_cost_profile_builtin("cx5", &cx5, NULL, 0) < 0)
		snprintf(cx5.name, sizeof(cx5.name), "cx5 (unavailable)");
	return &cx5;
}

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

/* RedN Table 2: one iteration of a recycled `while` (no bound test). */
#define REDN_WHILE_COPY     3u
#define REDN_WHILE_ATOMIC   2u
#define REDN_WHILE_ORDERING 4u

/* WRs of one lap of recycled queue q by class; padding NOPs apart. */
static void lap_counts(const struct chainobj_queue *q, unsigned by_class[3], unsigned *nops)
{
	by_class[0] = by_class[1] = by_class[2] = 0;
	*nops = 0;
	for (uint32_t i = 0; i < q->n_sq; i++) {
		struct prism_wqe w;
		const struct prism_opcode_info *info;

		if (prism_wqe_decode(q->sq[i].bytes, q->sq[i].len, &w, NULL) < 0)
			continue;
		info = prism_opcode_info(w.ctrl.opcode);
		if (w.ctrl.opcode == PRISM_OP_NOP)
			(*nops)++;
		else if (info && (unsigned)info->cls < 3)
			by_class[info->cls]++;
	}
}

static void laps_text(FILE *f, const struct chainobj *o)
{
	for (uint32_t qi = 0; qi < o->n_queues; qi++) {
		const struct chainobj_queue *q = &o->queues[qi];
		unsigned c[3], nops;

		if (!q->recycle.max_laps)
			continue;
		lap_counts(q, c, &nops);
		fprintf(f,
		        "recycled loop %s: per lap %u WRs = copy %u, atomic %u, ordering %u "
		        "(+ %u NOP padding; ring %u BBs, at most %u laps); RedN recycled while: "
		        "copy %u, atomic %u, ordering %u (no bound test)\n",
		        q->name, c[0] + c[1] + c[2], c[PRISM_CLASS_COPY], c[PRISM_CLASS_ATOMIC],
		        c[PRISM_CLASS_ORDERING], nops, q->sq_slots, q->recycle.max_laps,
		        REDN_WHILE_COPY, REDN_WHILE_ATOMIC, REDN_WHILE_ORDERING);
	}
}

int dump_stats_text(FILE *f, const struct chainobj *o, const struct dump_cost_profile *cost)
{
	const struct dump_cost_profile *cx5 = cost ? cost : dump_cost_cx5();
	struct dump_stats st;
	bool lap = false;

	for (uint32_t q = 0; q < o->n_queues; q++)
		lap |= o->queues[q].recycle.max_laps != 0;
	dump_compute_stats(o, cx5, &st);
	fprintf(f,
	        "program %s: %u queues, %u CQs, %u send WQEs, %u receive WQEs per invocation%s\n",
	        o->program, o->n_queues, o->n_cqs, st.wqes, st.recvs,
	        lap ? " (a recycled loop's lap once)" : "");
	fprintf(f, "by class: copy %u, atomic %u, ordering %u\n", st.by_class[PRISM_CLASS_COPY],
	        st.by_class[PRISM_CLASS_ATOMIC], st.by_class[PRISM_CLASS_ORDERING]);
	fprintf(f, "ordering: %u WQ-ordered, %u completion-ordered, %u doorbell-ordered steps\n",
	        st.wq_ordered, st.completion_ordered, st.doorbell_ordered);
	fprintf(f, "signaled %u, fenced %u, patch sites %u, relocations %u\n", st.signaled,
	        st.fenced, st.patch_sites, st.relocs);
	fprintf(f, "verifier: %u WRs per invocation (bound), %u barriers\n",
	        o->summary.wr_per_invocation, o->summary.barriers);
	laps_text(f, o);
	fprintf(
	    f,
	    "predicted latency (%s, sequential model): %.2f us = %.2f noop + %u x %.2f wq + %u x "
	    "%.2f completion + %u x %.2f doorbell + %u x %.2f write + %u x %.2f read/atomic\n",
	    cx5->name, st.predicted_us, cx5->noop_us, st.wq_ordered ? st.wq_ordered - 1 : 0,
	    cx5->wq_ordered_us, st.completion_ordered, cx5->completion_us, st.doorbell_ordered,
	    cx5->doorbell_us, st.writes, cx5->write_us - cx5->noop_us, st.reads_atomics,
	    cx5->read_atomic_us - cx5->noop_us);
	return ferror(f) ? -1 : 0;
}
