/* SPDX-License-Identifier: MIT */
/*
 * compiler/dump_json.c - the chain object as JSON for programs
 * (`prismc dump --json`): header, entries, regions, CQs, queues with every
 * WQE (index, slot, opcode, class, the printer line, hex bytes, note,
 * patched-by and relocations), patches, relocations, exits, the verifier
 * summary and the statistics of dump_stats.c.
 *
 * Owns: dump_json and its string escaping.  Must not: decode bytes except
 * through the codec.
 */
#include <inttypes.h>
#include <stdio.h>

#include <prism/wqe.h>

#include "compiler/dump.h"
#include "core/chainobj_yaml.h"

static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void jkey(FILE *f, const char *k)
{
	jstr(f, k);
	fputc(':', f);
}

static void jhex(FILE *f, const uint8_t *b, uint32_t len)
{
	fputc('"', f);
	for (uint32_t i = 0; i < len; i++)
		fprintf(f, "%02x", b[i]);
	fputc('"', f);
}

static void jaccess(FILE *f, uint32_t acc)
{
	const char *sep = "";

	fputc('[', f);
	for (unsigned b = 0; b < 3; b++)
		if (acc & (1u << b)) {
			fputs(sep, f);
			jstr(f, chainobj_yaml_access_name(b));
			sep = ",";
		}
	fputc(']', f);
}

static void jsite(FILE *f, const struct chainobj *o, const struct chainobj_site *s)
{
	fprintf(f, "{\"queue\":");
	jstr(f, o->queues[s->queue].name);
	fprintf(f, ",\"ring\":\"%s\",\"wqe\":%u,\"offset\":%u,\"width\":%u}",
	        chainobj_yaml_ring_name(s->ring), s->wqe, s->offset, s->width);
}

static void jwqe(FILE *f, const struct chainobj *o, uint32_t qi, enum chainobj_ring ring,
                 uint32_t i, unsigned flags)
{
	const struct chainobj_queue *q = &o->queues[qi];
	const struct chainobj_wqe *w = ring == CHAINOBJ_RING_RQ ? &q->rq[i] : &q->sq[i];
	char line[2048], desc[160], ref[96];
	const char *sep = "";

	fprintf(f, "{\"index\":%u,\"slot\":%u,\"bytes\":%u,", i, w->slot, w->len);
	if (ring == CHAINOBJ_RING_SQ) {
		uint8_t op = dump_wqe_opcode(w);
		const struct prism_opcode_info *info = prism_opcode_info(op);

		jkey(f, "opcode");
		jstr(f, prism_opcode_name(op));
		fputc(',', f);
		jkey(f, "class");
		jstr(f, info ? prism_op_class_name(info->cls) : "?");
		fputc(',', f);
		dump_wqe_line(w, flags, line, sizeof(line));
	} else {
		dump_rwqe_line(q, w, flags, line, sizeof(line));
	}
	jkey(f, "text");
	jstr(f, line);
	fputc(',', f);
	jkey(f, "hex");
	jhex(f, w->bytes, w->len);
	if (w->note) {
		fputc(',', f);
		jkey(f, "note");
		jstr(f, w->note);
	}
	fprintf(f, ",\"patched_by\":[");
	for (uint32_t k = 0; k < o->n_patches; k++) {
		const struct chainobj_patch *p = &o->patches[k];

		if (p->target.queue != qi || p->target.ring != ring || p->target.wqe != i)
			continue;
		dump_wqe_ref(o, p->writer_queue, p->writer_ring, p->writer_wqe, ref, sizeof(ref));
		fprintf(f, "%s{\"writer\":", sep);
		jstr(f, ref);
		fprintf(f, ",\"kind\":\"%s\",\"sge\":%u,\"offset\":%u,\"width\":%u}",
		        chainobj_patch_kind_name(p->kind), p->writer_sge, p->target.offset,
		        p->target.width);
		sep = ",";
	}
	fprintf(f, "],\"relocs\":[");
	sep = "";
	for (uint32_t k = 0; k < o->n_relocs; k++) {
		const struct chainobj_reloc *r = &o->relocs[k];

		if (r->site.queue != qi || r->site.ring != ring || r->site.wqe != i)
			continue;
		dump_reloc_desc(o, r, desc, sizeof(desc));
		fprintf(f, "%s{\"offset\":%u,\"width\":%u,\"kind\":\"%s\",\"text\":", sep,
		        r->site.offset, r->site.width, chainobj_reloc_kind_name(r->kind));
		jstr(f, desc);
		fputc('}', f);
		sep = ",";
	}
	fprintf(f, "]}");
}

static void jqueue(FILE *f, const struct chainobj *o, uint32_t qi, unsigned flags)
{
	const struct chainobj_queue *q = &o->queues[qi];

	fprintf(f, "{\"name\":");
	jstr(f, q->name);
	fprintf(f,
	        ",\"role\":\"%s\",\"lane\":%u,\"managed_send\":%s,\"managed_recv\":%s,"
	        "\"sq_slots\":%u,\"rq_slots\":%u,\"rq_stride_ds\":%u,\"send_cq\":",
	        chainobj_role_name(q->role), q->lane, q->managed_send ? "true" : "false",
	        q->managed_recv ? "true" : "false", q->sq_slots, q->rq_slots, q->rq_stride_ds);
	jstr(f, o->cqs[q->send_cq].name);
	fprintf(f, ",\"recv_cq\":");
	jstr(f, o->cqs[q->recv_cq].name);
	fprintf(f, ",\"sq_per_invocation\":%u,\"rq_per_invocation\":%u,", q->sq_per_invocation,
	        q->rq_per_invocation);
	if (q->recycle.max_laps)
		fprintf(f,
		        "\"recycle\":{\"max_laps\":%u,\"counter_wqe\":%u,\"counter_offset\":%u,"
		        "\"cq_per_lap\":%u},",
		        q->recycle.max_laps, q->recycle.counter_wqe, q->recycle.counter_offset,
		        q->recycle.cq_per_lap);
	fprintf(f, "\"sq\":[");
	for (uint32_t i = 0; i < q->n_sq; i++) {
		fputs(i ? ",\n     " : "\n     ", f);
		jwqe(f, o, qi, CHAINOBJ_RING_SQ, i, flags);
	}
	fprintf(f, "],\"rq\":[");
	for (uint32_t i = 0; i < q->n_rq; i++) {
		fputs(i ? ",\n     " : "\n     ", f);
		jwqe(f, o, qi, CHAINOBJ_RING_RQ, i, flags);
	}
	fprintf(f, "]}");
}

static void jentries(FILE *f, const struct chainobj *o)
{
	fprintf(f, "\"entries\":[");
	for (uint32_t i = 0; i < o->n_entries; i++) {
		const struct chainobj_entry *e = &o->entries[i];

		fprintf(f, "%s{\"name\":", i ? "," : "");
		jstr(f, e->name);
		fprintf(f, ",\"message_size\":%u,\"params\":[", e->msg_size);
		for (uint32_t k = 0; k < e->n_params; k++) {
			const struct chainobj_param *p = &e->params[k];

			fprintf(f, "%s{\"name\":", k ? "," : "");
			jstr(f, p->name);
			fprintf(f,
			        ",\"type\":\"%s\",\"width\":%u,\"order\":\"%s\",\"offset\":%u,"
			        "\"copies\":%u",
			        chainobj_yaml_ptype_name(p->type), p->width,
			        chainobj_yaml_order_name(p->order), p->msg_offset, p->copies);
			if (p->type == CHAINOBJ_PT_ADDR) {
				fprintf(f, ",\"region\":");
				jstr(f, o->regions[p->region].name);
			}
			fputc('}', f);
		}
		fprintf(f, "],\"results\":[");
		for (uint32_t k = 0; k < e->n_results; k++) {
			const struct chainobj_result *r = &e->results[k];

			fprintf(f, "%s{\"name\":", k ? "," : "");
			jstr(f, r->name);
			fprintf(f, ",\"width\":%u,\"order\":\"%s\",\"offset\":%u}", r->width,
			        chainobj_yaml_order_name(r->order), r->offset);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "],\n");
}

static void jsummary(FILE *f, const struct chainobj *o, const struct dump_cost_profile *cost)
{
	const struct chainobj_summary *s = &o->summary;
	struct dump_stats st;

	fprintf(f,
	        "\"summary\":{\"verified\":%s,\"wr_per_invocation\":%u,\"barriers\":%u,\"loops\":[",
	        s->verified ? "true" : "false", s->wr_per_invocation, s->barriers);
	for (uint32_t i = 0; i < s->n_loops; i++) {
		fprintf(f, "%s{\"name\":", i ? "," : "");
		jstr(f, s->loops[i].name);
		fprintf(f, ",\"bound\":%u,\"wr_per_iteration\":%u}", s->loops[i].bound,
		        s->loops[i].wr_per_iteration);
	}
	fprintf(f, "],\"regions_touched\":[");
	for (uint32_t i = 0; i < s->n_touched; i++) {
		fprintf(f, "%s{\"region\":", i ? "," : "");
		jstr(f, o->regions[s->touched[i].region].name);
		fprintf(f, ",\"access\":");
		jaccess(f, s->touched[i].access);
		fputc('}', f);
	}
	dump_compute_stats(o, cost, &st);
	fprintf(
	    f,
	    "]},\n\"stats\":{\"wqes\":%u,\"recvs\":%u,\"copy\":%u,\"atomic\":%u,\"ordering\":%u,"
	    "\"wq_ordered\":%u,\"completion_ordered\":%u,\"doorbell_ordered\":%u,"
	    "\"signaled\":%u,\"fenced\":%u,\"profile\":\"%s\",\"predicted_us\":%.2f}\n",
	    st.wqes, st.recvs, st.by_class[PRISM_CLASS_COPY], st.by_class[PRISM_CLASS_ATOMIC],
	    st.by_class[PRISM_CLASS_ORDERING], st.wq_ordered, st.completion_ordered,
	    st.doorbell_ordered, st.signaled, st.fenced, cost->name, st.predicted_us);
}

int dump_json(FILE *f, const struct chainobj *o, unsigned flags,
              const struct dump_cost_profile *cost)
{
	if (!cost)
		cost = dump_cost_cx5();
	fprintf(f, "{\"schema\":%u,\"program\":", o->schema);
	jstr(f, o->program);
	fprintf(f,
	        ",\"profile\":\"%s\",\"rearm\":\"%s\",\"scratch_size\":%u,\"response_size\":%u,\n",
	        chainobj_profile_name(o->profile), chainobj_rearm_name(o->rearm), o->scratch_size,
	        o->response_size);
	jentries(f, o);
	fprintf(f, "\"regions\":[");
	for (uint32_t i = 0; i < o->n_regions; i++) {
		fprintf(f, "%s{\"name\":", i ? "," : "");
		jstr(f, o->regions[i].name);
		fprintf(f, ",\"size\":%" PRIu64 ",\"access\":", o->regions[i].size);
		jaccess(f, o->regions[i].access);
		fputc('}', f);
	}
	fprintf(f, "],\n\"cqs\":[");
	for (uint32_t i = 0; i < o->n_cqs; i++) {
		fprintf(f, "%s{\"name\":", i ? "," : "");
		jstr(f, o->cqs[i].name);
		fprintf(f, ",\"entries\":%u,\"ignore_overrun\":%s,\"per_invocation\":%u}",
		        o->cqs[i].entries, o->cqs[i].ignore_overrun ? "true" : "false",
		        o->cqs[i].per_invocation);
	}
	fprintf(f, "],\n\"queues\":[");
	for (uint32_t q = 0; q < o->n_queues; q++) {
		fputs(q ? ",\n  " : "\n  ", f);
		jqueue(f, o, q, flags);
	}
	fprintf(f, "],\n\"patches\":[");
	for (uint32_t k = 0; k < o->n_patches; k++) {
		const struct chainobj_patch *p = &o->patches[k];

		fprintf(f, "%s{\"target\":", k ? "," : "");
		jsite(f, o, &p->target);
		fprintf(f, ",\"kind\":\"%s\",\"writer\":{\"queue\":",
		        chainobj_patch_kind_name(p->kind));
		jstr(f, o->queues[p->writer_queue].name);
		fprintf(f, ",\"ring\":\"%s\",\"wqe\":%u,\"sge\":%u}}",
		        chainobj_yaml_ring_name(p->writer_ring), p->writer_wqe, p->writer_sge);
	}
	fprintf(f, "],\n\"relocs\":[");
	for (uint32_t k = 0; k < o->n_relocs; k++) {
		const struct chainobj_reloc *r = &o->relocs[k];
		char desc[160];

		dump_reloc_desc(o, r, desc, sizeof(desc));
		fprintf(f, "%s{\"site\":", k ? "," : "");
		jsite(f, o, &r->site);
		fprintf(f,
		        ",\"kind\":\"%s\",\"order\":\"%s\",\"addend\":%" PRIu64
		        ",\"stride\":%u,\"delta\":%u,\"text\":",
		        chainobj_reloc_kind_name(r->kind), chainobj_yaml_order_name(r->order),
		        r->addend, r->stride, r->delta);
		jstr(f, desc);
		fputc('}', f);
	}
	fprintf(f, "],\n\"exits\":[");
	for (uint32_t k = 0; k < o->n_exits; k++) {
		const struct chainobj_exit *x = &o->exits[k];

		fprintf(f, "%s{\"queue\":", k ? "," : "");
		jstr(f, o->queues[x->queue].name);
		fprintf(f, ",\"wqe\":%u,\"enable\":%u,\"sq\":[", x->wqe, x->enable);
		for (uint32_t q = 0; q < x->n_queues; q++)
			fprintf(f, "%s%u", q ? "," : "", x->sq_advance[q]);
		fprintf(f, "],\"rq\":[");
		for (uint32_t q = 0; q < x->n_queues; q++)
			fprintf(f, "%s%u", q ? "," : "", x->rq_advance[q]);
		fprintf(f, "],\"cq\":[");
		for (uint32_t c = 0; c < x->n_cqs; c++)
			fprintf(f, "%s%u", c ? "," : "", x->cq_advance[c]);
		fprintf(f, "]}");
	}
	fprintf(f, "],\n");
	jsummary(f, o, cost);
	fprintf(f, "}\n");
	return ferror(f) ? -1 : 0;
}
