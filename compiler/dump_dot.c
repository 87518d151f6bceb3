/* SPDX-License-Identifier: MIT */
/*
 * compiler/dump_dot.c - a Graphviz picture of a chain object
 * (`prismc dump --dot`): one cluster per queue with its WQEs in ring order,
 * WAIT arrows from the queues that feed the awaited CQ, ENABLE arrows to
 * the queue they start, and patch arrows from each writer to the WQE it
 * rewrites.
 *
 * Owns: dump_dot.  Must not: decode bytes except through the codec.
 */
#include <stdio.h>

#include <prism/wqe.h>

#include "compiler/dump.h"

static const char *mnemonic(const struct chainobj_wqe *w)
{
	const struct prism_opcode_info *info = prism_opcode_info(dump_wqe_opcode(w));

	return info ? info->mnemonic : "?";
}

static void node_id(char *buf, size_t len, uint32_t q, enum chainobj_ring ring, uint32_t i)
{
	snprintf(buf, len, "q%u_%s%u", q, ring == CHAINOBJ_RING_RQ ? "r" : "s", i);
}

/* Arrows from every queue that completes into CQ @cq to the WAIT node @to. */
static void wait_edges(FILE *f, const struct chainobj *o, int cq, const char *to)
{
	char from[32];

	for (uint32_t p = 0; p < o->n_queues; p++) {
		const struct chainobj_queue *src = &o->queues[p];

		if ((int)src->send_cq == cq && src->n_sq) {
			node_id(from, sizeof(from), p, CHAINOBJ_RING_SQ, src->n_sq - 1);
			fprintf(f, "  %s -> %s [style=dashed, label=\"wait %s\"];\n", from, to,
			        o->cqs[cq].name);
		}
		if ((int)src->recv_cq == cq && src->n_rq) {
			node_id(from, sizeof(from), p, CHAINOBJ_RING_RQ, 0);
			fprintf(f, "  %s -> %s [style=dashed, label=\"wait %s\"];\n", from, to,
			        o->cqs[cq].name);
		}
	}
}

static void queue_cluster(FILE *f, const struct chainobj *o, uint32_t qi)
{
	const struct chainobj_queue *q = &o->queues[qi];
	char id[32], prev[32];

	fprintf(f, "  subgraph cluster_q%u {\n    label=\"%s (%s%s)\";\n", qi, q->name,
	        chainobj_role_name(q->role), q->managed_send ? ", managed" : "");
	for (uint32_t i = 0; i < q->n_rq; i++) {
		node_id(id, sizeof(id), qi, CHAINOBJ_RING_RQ, i);
		fprintf(f, "    %s [label=\"rq#%u recv\", shape=ellipse];\n", id, i);
	}
	for (uint32_t i = 0; i < q->n_sq; i++) {
		node_id(id, sizeof(id), qi, CHAINOBJ_RING_SQ, i);
		fprintf(f, "    %s [label=\"#%u %s\"];\n", id, i, mnemonic(&q->sq[i]));
		if (i) {
			node_id(prev, sizeof(prev), qi, CHAINOBJ_RING_SQ, i - 1);
			fprintf(f, "    %s -> %s [color=gray];\n", prev, id);
		}
	}
	fprintf(f, "  }\n");
}

int dump_dot(FILE *f, const struct chainobj *o)
{
	char from[32], to[32];

	fprintf(f, "digraph \"%s\" {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n",
	        o->program);
	for (uint32_t q = 0; q < o->n_queues; q++)
		queue_cluster(f, o, q);
	for (uint32_t qi = 0; qi < o->n_queues; qi++) {
		const struct chainobj_queue *q = &o->queues[qi];

		for (uint32_t i = 0; i < q->n_sq; i++) {
			uint8_t op = dump_wqe_opcode(&q->sq[i]);
			int t;

			node_id(from, sizeof(from), qi, CHAINOBJ_RING_SQ, i);
			if (op == PRISM_OP_CQE_WAIT) {
				t = dump_reloc_target(o, qi, i, CHAINOBJ_RELOC_CQN,
				                      PRISM_FIELD_WAIT_EN_OBJ);
				if (t >= 0)
					wait_edges(f, o, t, from);
			} else if (op == PRISM_OP_SEND_ENABLE || op == PRISM_OP_RECV_ENABLE) {
				t = dump_reloc_target(o, qi, i, CHAINOBJ_RELOC_QPN,
				                      PRISM_FIELD_WAIT_EN_OBJ);
				if (t >= 0) {
					bool rq = op == PRISM_OP_RECV_ENABLE;

					if (rq ? !o->queues[t].n_rq : !o->queues[t].n_sq)
						continue;
					node_id(to, sizeof(to), (uint32_t)t,
					        rq ? CHAINOBJ_RING_RQ : CHAINOBJ_RING_SQ, 0);
					fprintf(f,
					        "  %s -> %s [style=bold, color=blue, "
					        "label=\"enable\"];\n",
					        from, to);
				}
			}
		}
	}
	for (uint32_t k = 0; k < o->n_patches; k++) {
		const struct chainobj_patch *p = &o->patches[k];

		node_id(from, sizeof(from), p->writer_queue, p->writer_ring, p->writer_wqe);
		node_id(to, sizeof(to), p->target.queue, p->target.ring, p->target.wqe);
		fprintf(f, "  %s -> %s [color=red, style=dotted, label=\"%s [%u..%u]\"];\n", from,
		        to, chainobj_patch_kind_name(p->kind), p->target.offset,
		        p->target.offset + p->target.width - 1);
	}
	fprintf(f, "}\n");
	return ferror(f) ? -1 : 0;
}
