/* SPDX-License-Identifier: MIT */
/*
 * compiler/dump_json.c - the chain object as JSON for programs
 * (`prismc dump --json`): header, entries, regions, CQs, queues with every
 * WQE (index, slot, opcode, class, the printer line, hex bytes, note,
 * patched-by and relocations), patches, relocations, exits, the verifier
 * summary and the statistics of dump_stats.c.
 *
 * Owns: dump_json: which keys the document has and in which order.  The
 * JSON itself (escaping, numbers, layout) is jansson's.  Must not: decode
 * bytes except through the codec.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>
#include <prism/wqe.h>

#include "compiler/dump.h"
#include "chain/chainobj_yaml.h"
#include "util/json_text.h"

/* The document being built: whether any piece of it was lost (out of
 * memory; json_pack already fails on a NULL piece). */
struct jw {
	bool lost;
};

/* Add @v under @key of @obj, or at the end of the array @list; both take
 * over the reference. */
static void put(struct jw *w, json_t *obj, const char *key, json_t *v)
{
	if (json_object_set_new(obj, key, v))
		w->lost = true;
}

static void add(struct jw *w, json_t *list, json_t *v)
{
	if (json_array_append_new(list, v))
		w->lost = true;
}

static json_t *uint_(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *access_list(struct jw *w, uint32_t acc)
{
	json_t *a = json_array();

	for (unsigned b = 0; b < 3; b++)
		if (acc & (1u << b))
			add(w, a, json_string(chainobj_yaml_access_name(b)));
	return a;
}

static json_t *site(const struct chainobj *o, const struct chainobj_site *s)
{
	return json_pack("{s:o, s:s, s:I, s:I, s:I}", "queue", json_text(o->queues[s->queue].name),
	                 "ring", chainobj_yaml_ring_name(s->ring), "wqe", (json_int_t)s->wqe,
	                 "offset", (json_int_t)s->offset, "width", (json_int_t)s->width);
}

static json_t *wqe(struct jw *w, const struct chainobj *o, uint32_t qi, enum chainobj_ring ring,
                   uint32_t i, unsigned flags)
{
	const struct chainobj_queue *q = &o->queues[qi];
	const struct chainobj_wqe *e = ring == CHAINOBJ_RING_RQ ? &q->rq[i] : &q->sq[i];
	char line[2048], desc[160], ref[96];
	json_t *j = json_pack("{s:I, s:I, s:I}", "index", (json_int_t)i, "slot",
	                      (json_int_t)e->slot, "bytes", (json_int_t)e->len);
	json_t *patched = json_array(), *relocs = json_array();

	if (ring == CHAINOBJ_RING_SQ) {
		uint8_t op = dump_wqe_opcode(e);
		const struct prism_opcode_info *info = prism_opcode_info(op);

		put(w, j, "opcode", json_text(prism_opcode_name(op)));
		put(w, j, "class", json_text(info ? prism_op_class_name(info->cls) : "?"));
		dump_wqe_line(e, flags, line, sizeof(line));
	} else {
		dump_rwqe_line(q, e, flags, line, sizeof(line));
	}
	put(w, j, "text", json_text(line));
	put(w, j, "hex", json_hex(e->bytes, e->len));
	if (e->note)
		put(w, j, "note", json_text(e->note));
	for (uint32_t k = 0; k < o->n_patches; k++) {
		const struct chainobj_patch *p = &o->patches[k];

		if (p->target.queue != qi || p->target.ring != ring || p->target.wqe != i)
			continue;
		dump_wqe_ref(o, p->writer_queue, p->writer_ring, p->writer_wqe, ref, sizeof(ref));
		add(w, patched,
		    json_pack("{s:o, s:s, s:I, s:I, s:I}", "writer", json_text(ref), "kind",
		              chainobj_patch_kind_name(p->kind), "sge", (json_int_t)p->writer_sge,
		              "offset", (json_int_t)p->target.offset, "width",
		              (json_int_t)p->target.width));
	}
	for (uint32_t k = 0; k < o->n_relocs; k++) {
		const struct chainobj_reloc *r = &o->relocs[k];

		if (r->site.queue != qi || r->site.ring != ring || r->site.wqe != i)
			continue;
		dump_reloc_desc(o, r, desc, sizeof(desc));
		add(w, relocs,
		    json_pack("{s:I, s:I, s:s, s:o}", "offset", (json_int_t)r->site.offset, "width",
		              (json_int_t)r->site.width, "kind", chainobj_reloc_kind_name(r->kind),
		              "text", json_text(desc)));
	}
	put(w, j, "patched_by", patched);
	put(w, j, "relocs", relocs);
	return j;
}

static json_t *queue(struct jw *w, const struct chainobj *o, uint32_t qi, unsigned flags)
{
	const struct chainobj_queue *q = &o->queues[qi];
	json_t *sq = json_array(), *rq = json_array();
	json_t *j = json_pack(
	    "{s:o, s:s, s:I, s:b, s:b, s:I, s:I, s:I, s:o, s:o, s:I, s:I}", "name",
	    json_text(q->name), "role", chainobj_role_name(q->role), "lane", (json_int_t)q->lane,
	    "managed_send", q->managed_send, "managed_recv", q->managed_recv, "sq_slots",
	    (json_int_t)q->sq_slots, "rq_slots", (json_int_t)q->rq_slots, "rq_stride_ds",
	    (json_int_t)q->rq_stride_ds, "send_cq", json_text(o->cqs[q->send_cq].name), "recv_cq",
	    json_text(o->cqs[q->recv_cq].name), "sq_per_invocation",
	    (json_int_t)q->sq_per_invocation, "rq_per_invocation",
	    (json_int_t)q->rq_per_invocation);

	if (q->recycle.max_laps)
		put(w, j, "recycle",
		    json_pack("{s:I, s:I, s:I, s:I}", "max_laps", (json_int_t)q->recycle.max_laps,
		              "counter_wqe", (json_int_t)q->recycle.counter_wqe, "counter_offset",
		              (json_int_t)q->recycle.counter_offset, "cq_per_lap",
		              (json_int_t)q->recycle.cq_per_lap));
	for (uint32_t i = 0; i < q->n_sq; i++)
		add(w, sq, wqe(w, o, qi, CHAINOBJ_RING_SQ, i, flags));
	for (uint32_t i = 0; i < q->n_rq; i++)
		add(w, rq, wqe(w, o, qi, CHAINOBJ_RING_RQ, i, flags));
	put(w, j, "sq", sq);
	put(w, j, "rq", rq);
	return j;
}

static json_t *entries(struct jw *w, const struct chainobj *o)
{
	json_t *list = json_array();

	for (uint32_t i = 0; i < o->n_entries; i++) {
		const struct chainobj_entry *e = &o->entries[i];
		json_t *params = json_array(), *results = json_array();

		for (uint32_t k = 0; k < e->n_params; k++) {
			const struct chainobj_param *p = &e->params[k];
			json_t *pj = json_pack(
			    "{s:o, s:s, s:I, s:s, s:I, s:I}", "name", json_text(p->name), "type",
			    chainobj_yaml_ptype_name(p->type), "width", (json_int_t)p->width,
			    "order", chainobj_yaml_order_name(p->order), "offset",
			    (json_int_t)p->msg_offset, "copies", (json_int_t)p->copies);

			if (p->type == CHAINOBJ_PT_ADDR)
				put(w, pj, "region", json_text(o->regions[p->region].name));
			add(w, params, pj);
		}
		for (uint32_t k = 0; k < e->n_results; k++) {
			const struct chainobj_result *r = &e->results[k];

			add(w, results,
			    json_pack("{s:o, s:I, s:s, s:I}", "name", json_text(r->name), "width",
			              (json_int_t)r->width, "order",
			              chainobj_yaml_order_name(r->order), "offset",
			              (json_int_t)r->offset));
		}
		add(w, list,
		    json_pack("{s:o, s:I, s:o, s:o}", "name", json_text(e->name), "message_size",
		              (json_int_t)e->msg_size, "params", params, "results", results));
	}
	return list;
}

static json_t *summary(struct jw *w, const struct chainobj *o)
{
	const struct chainobj_summary *s = &o->summary;
	json_t *loops = json_array(), *touched = json_array();

	for (uint32_t i = 0; i < s->n_loops; i++)
		add(w, loops,
		    json_pack("{s:o, s:I, s:I}", "name", json_text(s->loops[i].name), "bound",
		              (json_int_t)s->loops[i].bound, "wr_per_iteration",
		              (json_int_t)s->loops[i].wr_per_iteration));
	for (uint32_t i = 0; i < s->n_touched; i++)
		add(w, touched,
		    json_pack("{s:o, s:o}", "region",
		              json_text(o->regions[s->touched[i].region].name), "access",
		              access_list(w, s->touched[i].access)));
	return json_pack("{s:b, s:I, s:I, s:o, s:o}", "verified", s->verified, "wr_per_invocation",
	                 (json_int_t)s->wr_per_invocation, "barriers", (json_int_t)s->barriers,
	                 "loops", loops, "regions_touched", touched);
}

static json_t *stats(const struct chainobj *o, const struct dump_cost_profile *cost)
{
	struct dump_stats st;

	dump_compute_stats(o, cost, &st);
	/* the prediction in hundredths of a microsecond, as --stats prints it */
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:f}", "wqes",
	                 (json_int_t)st.wqes, "recvs", (json_int_t)st.recvs, "copy",
	                 (json_int_t)st.by_class[PRISM_CLASS_COPY], "atomic",
	                 (json_int_t)st.by_class[PRISM_CLASS_ATOMIC], "ordering",
	                 (json_int_t)st.by_class[PRISM_CLASS_ORDERING], "wq_ordered",
	                 (json_int_t)st.wq_ordered, "completion_ordered",
	                 (json_int_t)st.completion_ordered, "doorbell_ordered",
	                 (json_int_t)st.doorbell_ordered, "signaled", (json_int_t)st.signaled,
	                 "fenced", (json_int_t)st.fenced, "profile", cost->name, "predicted_us",
	                 round(st.predicted_us * 100.0) / 100.0);
}

static json_t *document(struct jw *w, const struct chainobj *o, unsigned flags,
                        const struct dump_cost_profile *cost)
{
	json_t *regions = json_array(), *cqs = json_array(), *queues = json_array();
	json_t *patches = json_array(), *relocs = json_array(), *exits = json_array();

	for (uint32_t i = 0; i < o->n_regions; i++)
		add(w, regions,
		    json_pack("{s:o, s:I, s:o}", "name", json_text(o->regions[i].name), "size",
		              (json_int_t)o->regions[i].size, "access",
		              access_list(w, o->regions[i].access)));
	for (uint32_t i = 0; i < o->n_cqs; i++)
		add(w, cqs,
		    json_pack("{s:o, s:I, s:b, s:I}", "name", json_text(o->cqs[i].name), "entries",
		              (json_int_t)o->cqs[i].entries, "ignore_overrun",
		              o->cqs[i].ignore_overrun, "per_invocation",
		              (json_int_t)o->cqs[i].per_invocation));
	for (uint32_t q = 0; q < o->n_queues; q++)
		add(w, queues, queue(w, o, q, flags));
	for (uint32_t k = 0; k < o->n_patches; k++) {
		const struct chainobj_patch *p = &o->patches[k];

		add(w, patches,
		    json_pack("{s:o, s:s, s:{s:o, s:s, s:I, s:I}}", "target", site(o, &p->target),
		              "kind", chainobj_patch_kind_name(p->kind), "writer", "queue",
		              json_text(o->queues[p->writer_queue].name), "ring",
		              chainobj_yaml_ring_name(p->writer_ring), "wqe",
		              (json_int_t)p->writer_wqe, "sge", (json_int_t)p->writer_sge));
	}
	for (uint32_t k = 0; k < o->n_relocs; k++) {
		const struct chainobj_reloc *r = &o->relocs[k];
		char desc[160];

		dump_reloc_desc(o, r, desc, sizeof(desc));
		add(w, relocs,
		    json_pack("{s:o, s:s, s:s, s:I, s:I, s:I, s:o}", "site", site(o, &r->site),
		              "kind", chainobj_reloc_kind_name(r->kind), "order",
		              chainobj_yaml_order_name(r->order), "addend", (json_int_t)r->addend,
		              "stride", (json_int_t)r->stride, "delta", (json_int_t)r->delta,
		              "text", json_text(desc)));
	}
	for (uint32_t k = 0; k < o->n_exits; k++) {
		const struct chainobj_exit *x = &o->exits[k];
		json_t *sq = json_array(), *rq = json_array(), *cq = json_array();

		for (uint32_t q = 0; q < x->n_queues; q++) {
			add(w, sq, uint_(x->sq_advance[q]));
			add(w, rq, uint_(x->rq_advance[q]));
		}
		for (uint32_t c = 0; c < x->n_cqs; c++)
			add(w, cq, uint_(x->cq_advance[c]));
		add(w, exits,
		    json_pack("{s:o, s:I, s:I, s:o, s:o, s:o}", "queue",
		              json_text(o->queues[x->queue].name), "wqe", (json_int_t)x->wqe,
		              "enable", (json_int_t)x->enable, "sq", sq, "rq", rq, "cq", cq));
	}
	return json_pack("{s:I, s:o, s:s, s:s, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
	                 "s:o}",
	                 "schema", (json_int_t)o->schema, "program", json_text(o->program),
	                 "profile", chainobj_profile_name(o->profile), "rearm",
	                 chainobj_rearm_name(o->rearm), "scratch_size", (json_int_t)o->scratch_size,
	                 "response_size", (json_int_t)o->response_size, "entries", entries(w, o),
	                 "regions", regions, "cqs", cqs, "queues", queues, "patches", patches,
	                 "relocs", relocs, "exits", exits, "summary", summary(w, o), "stats",
	                 stats(o, cost));
}

int dump_json(FILE *f, const struct chainobj *o, unsigned flags,
              const struct dump_cost_profile *cost)
{
	struct jw w = {0};
	json_t *doc = document(&w, o, flags, cost ? cost : dump_cost_cx5());
	int rc =
	    doc && !w.lost && !json_dumpf(doc, f, JSON_COMPACT | JSON_REAL_PRECISION(15)) ? 0 : -1;

	fputc('\n', f);
	json_decref(doc);
	return rc || ferror(f) ? -1 : 0;
}
