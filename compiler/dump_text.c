/* SPDX-License-Identifier: MIT */
/*
 * compiler/dump_text.c - the human listing of a chain object.
 *
 *   queue worker (worker, managed send, 64 slots, send-cq worker_cq)
 *     [2] @2   cas       idx=0 ... (the codec's printer line)
 *               ; hash_get.prism:6 if bucket.key == key
 *               <- conn.rq#0 recv-scatter sge0 [41..43]
 *               -> conn#0 [0..7] cas
 *               reloc [16..23] qbuf-addr conn.sq
 *
 * Owns: dump_text.  Must not: decode bytes except through the codec.
 */
#include <inttypes.h>
#include <stdio.h>

#include <prism/wqe.h>

#include "compiler/dump.h"
#include "chain/chainobj_yaml.h"

static void put_access(FILE *f, uint32_t acc)
{
	const char *sep = "";

	fputc('[', f);
	for (unsigned b = 0; b < 3; b++)
		if (acc & (1u << b)) {
			fprintf(f, "%s%s", sep, chainobj_yaml_access_name(b));
			sep = ", ";
		}
	fputc(']', f);
}

static void put_header(FILE *f, const struct chainobj *o)
{
	fprintf(f, "program %s: schema %u, profile %s, rearm %s, scratch %u B, response %u B\n",
	        o->program, o->schema, chainobj_profile_name(o->profile),
	        chainobj_rearm_name(o->rearm), o->scratch_size, o->response_size);
	for (uint32_t i = 0; i < o->n_entries; i++) {
		const struct chainobj_entry *e = &o->entries[i];

		fprintf(f, "entry %s(", e->name);
		for (uint32_t k = 0; k < e->n_params; k++) {
			const struct chainobj_param *p = &e->params[k];

			fprintf(f, "%s%s: %s[%u]", k ? ", " : "", p->name,
			        chainobj_yaml_ptype_name(p->type), p->width);
			if (p->type == CHAINOBJ_PT_ADDR)
				fprintf(f, " in %s", o->regions[p->region].name);
			fprintf(f, " @%u", p->msg_offset);
			if (p->copies != 1)
				fprintf(f, " x%u", p->copies);
		}
		fprintf(f, ") -> (");
		for (uint32_t k = 0; k < e->n_results; k++)
			fprintf(f, "%s%s[%u] @%u", k ? ", " : "", e->results[k].name,
			        e->results[k].width, e->results[k].offset);
		fprintf(f, "), message %u B\n", e->msg_size);
	}
	for (uint32_t i = 0; i < o->n_regions; i++) {
		fprintf(f, "region %s: %" PRIu64 " B ", o->regions[i].name, o->regions[i].size);
		put_access(f, o->regions[i].access);
		fputc('\n', f);
	}
	for (uint32_t i = 0; i < o->n_cqs; i++)
		fprintf(f, "cq %s: %u entries, %u per invocation%s\n", o->cqs[i].name,
		        o->cqs[i].entries, o->cqs[i].per_invocation,
		        o->cqs[i].ignore_overrun ? ", ignore overrun" : "");
}

/* The cross references of one template: patched by, patches, relocations. */
static void put_xrefs(FILE *f, const struct chainobj *o, uint32_t q, enum chainobj_ring ring,
                      uint32_t i)
{
	char ref[96], desc[160];

	for (uint32_t k = 0; k < o->n_patches; k++) {
		const struct chainobj_patch *p = &o->patches[k];
		bool scatter = p->kind == CHAINOBJ_PATCH_READ_SCATTER ||
		               p->kind == CHAINOBJ_PATCH_RECV_SCATTER;

		if (p->target.queue == q && p->target.ring == ring && p->target.wqe == i) {
			dump_wqe_ref(o, p->writer_queue, p->writer_ring, p->writer_wqe, ref,
			             sizeof(ref));
			fprintf(f, "              <- %s %s", ref,
			        chainobj_patch_kind_name(p->kind));
			if (scatter)
				fprintf(f, " sge%u", p->writer_sge);
			fprintf(f, " [%u..%u]\n", p->target.offset,
			        p->target.offset + p->target.width - 1);
		}
	}
	for (uint32_t k = 0; k < o->n_patches; k++) {
		const struct chainobj_patch *p = &o->patches[k];

		if (p->writer_queue == q && p->writer_ring == ring && p->writer_wqe == i) {
			dump_wqe_ref(o, p->target.queue, p->target.ring, p->target.wqe, ref,
			             sizeof(ref));
			fprintf(f, "              -> %s [%u..%u] %s", ref, p->target.offset,
			        p->target.offset + p->target.width - 1,
			        chainobj_patch_kind_name(p->kind));
			if (p->kind == CHAINOBJ_PATCH_READ_SCATTER ||
			    p->kind == CHAINOBJ_PATCH_RECV_SCATTER)
				fprintf(f, " sge%u", p->writer_sge);
			fputc('\n', f);
		}
	}
	for (uint32_t k = 0; k < o->n_relocs; k++) {
		const struct chainobj_reloc *r = &o->relocs[k];

		if (r->site.queue == q && r->site.ring == ring && r->site.wqe == i) {
			dump_reloc_desc(o, r, desc, sizeof(desc));
			fprintf(f, "              reloc [%u..%u] %s\n", r->site.offset,
			        r->site.offset + r->site.width - 1, desc);
		}
	}
}

static void put_queue(FILE *f, const struct chainobj *o, uint32_t qi, unsigned flags)
{
	const struct chainobj_queue *q = &o->queues[qi];
	char line[2048];

	fprintf(f, "\nqueue %s (%s", q->name, chainobj_role_name(q->role));
	if (q->role == CHAINOBJ_ROLE_LANE)
		fprintf(f, " %u", q->lane);
	fprintf(f, "%s%s, sq %u slots, %u per invocation, send-cq %s",
	        q->managed_send ? ", managed send" : "", q->managed_recv ? ", managed recv" : "",
	        q->sq_slots, q->sq_per_invocation, o->cqs[q->send_cq].name);
	if (q->rq_slots)
		fprintf(f, ", rq %u x %u B, recv-cq %s", q->rq_slots, q->rq_stride_ds * 16,
		        o->cqs[q->recv_cq].name);
	if (q->recycle.max_laps)
		fprintf(f,
		        ", recycled: the ring is one lap, up to %u laps per invocation, lap "
		        "counter [%u] byte %u, %u CQE per lap",
		        q->recycle.max_laps, q->recycle.counter_wqe, q->recycle.counter_offset,
		        q->recycle.cq_per_lap);
	fprintf(f, ")\n");
	for (uint32_t i = 0; i < q->n_sq; i++) {
		dump_wqe_line(&q->sq[i], flags, line, sizeof(line));
		fprintf(f, "  [%u] @%-3u %s\n", i, q->sq[i].slot, line);
		if (q->sq[i].note)
			fprintf(f, "              ; %s\n", q->sq[i].note);
		put_xrefs(f, o, qi, CHAINOBJ_RING_SQ, i);
	}
	for (uint32_t i = 0; i < q->n_rq; i++) {
		dump_rwqe_line(q, &q->rq[i], flags, line, sizeof(line));
		fprintf(f, "  rq[%u] @%-3u %s\n", i, q->rq[i].slot, line);
		if (q->rq[i].note)
			fprintf(f, "              ; %s\n", q->rq[i].note);
		put_xrefs(f, o, qi, CHAINOBJ_RING_RQ, i);
	}
}

static void put_trailer(FILE *f, const struct chainobj *o)
{
	const struct chainobj_summary *s = &o->summary;

	for (uint32_t i = 0; i < o->n_exits; i++) {
		const struct chainobj_exit *x = &o->exits[i];
		char ref[96], en[96];

		dump_wqe_ref(o, x->queue, CHAINOBJ_RING_SQ, x->wqe, ref, sizeof(ref));
		dump_wqe_ref(o, x->queue, CHAINOBJ_RING_SQ, x->enable, en, sizeof(en));
		fprintf(f, "%sexit %u at %s (enable %s): sq", i ? "" : "\n", i, ref, en);
		for (uint32_t q = 0; q < x->n_queues; q++)
			fprintf(f, " %s+%u", o->queues[q].name, x->sq_advance[q]);
		fprintf(f, ", cq");
		for (uint32_t c = 0; c < x->n_cqs; c++)
			fprintf(f, " %s+%u", o->cqs[c].name, x->cq_advance[c]);
		fputc('\n', f);
	}
	fprintf(f, "\nverifier: %s, %u WRs per invocation, %u barriers",
	        s->verified ? "verified" : "NOT verified", s->wr_per_invocation, s->barriers);
	for (uint32_t i = 0; i < s->n_loops; i++)
		fprintf(f, ", loop %s <= %u x %u WRs", s->loops[i].name, s->loops[i].bound,
		        s->loops[i].wr_per_iteration);
	for (uint32_t i = 0; i < s->n_touched; i++) {
		fprintf(f, ", touches %s ", o->regions[s->touched[i].region].name);
		put_access(f, s->touched[i].access);
	}
	fputc('\n', f);
}

int dump_text(FILE *out, const struct chainobj *o, unsigned flags)
{
	put_header(out, o);
	for (uint32_t q = 0; q < o->n_queues; q++)
		put_queue(out, o, q, flags);
	put_trailer(out, o);
	return ferror(out) ? -1 : 0;
}
