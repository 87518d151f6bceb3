/* SPDX-License-Identifier: MIT */
/*
 * chain/chainobj_write.c - the YAML writer of chain objects (schemas 1, 2).
 *
 * Owns: chainobj_write / chainobj_write_mem / chainobj_checksum.  The text
 * is written by hand rather than through libyaml's emitter so that it can
 * carry comments (each WQE's decoded form, from the codec's printer) and
 * keep one patch site or relocation per line: a compiled chain must be
 * readable and diffable.  Every scalar written is an identifier, a decimal
 * number, a fixed keyword, hex, or a note restricted to printable ASCII and
 * double-quoted with escapes, so the output is valid YAML by construction;
 * the round-trip tests read it back with libyaml.
 *
 * Must not: write an object that does not validate, pack WQE bytes (they
 * are copied verbatim; the printer comments come from prism/wqe.h), or
 * print anywhere but the stream it is given.
 */
#include "chain/chainobj.h"
#include "chain/chainobj_diag.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <prism/wqe.h>

#include "chain/chainobj_yaml.h"

/* A set of bits as a flow sequence of their words. */
static void put_bits(FILE *f, uint32_t bits, unsigned n, const char *(*word)(unsigned bit))
{
	bool first = true;

	fputc('[', f);
	for (unsigned i = 0; i < n; i++) {
		if (!(bits & (1u << i)))
			continue;
		fprintf(f, "%s%s", first ? "" : ", ", word(i));
		first = false;
	}
	fputc(']', f);
}

static void put_access(FILE *f, uint32_t access)
{
	put_bits(f, access, 3, chainobj_yaml_access_name);
}

static const char *assume_word(unsigned bit)
{
	return chainobj_assume_name((enum chainobj_assume_bit)bit);
}

static void put_note(FILE *f, const char *note)
{
	fputc('"', f);
	for (const char *p = note; *p; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

/* Hex, 16 bytes (one DS) per line, four 4-byte groups. */
static void put_hex(FILE *f, const uint8_t *b, uint32_t len, const char *indent)
{
	for (uint32_t i = 0; i < len; i += PRISM_WQE_DS_BYTES) {
		fprintf(f, "%s- \"", indent);
		for (uint32_t j = i; j < len && j < i + PRISM_WQE_DS_BYTES; j++)
			fprintf(f, "%s%02x", (j > i && (j - i) % 4 == 0) ? " " : "", b[j]);
		fputs("\"\n", f);
	}
}

/* A comment line must stay one printable line. */
static void put_comment(FILE *f, const char *indent, const char *text)
{
	fprintf(f, "%s# ", indent);
	for (const char *p = text; *p; p++)
		fputc((*p >= 0x20 && *p <= 0x7e) ? *p : '?', f);
	fputc('\n', f);
}

static void comment_sq(FILE *f, uint32_t i, const struct chainobj_wqe *w)
{
	struct prism_wqe dec;
	char line[512];
	char text[560];

	if (prism_wqe_decode(w->bytes, w->len, &dec, NULL) < 0)
		snprintf(line, sizeof(line), "(does not decode)");
	else
		prism_wqe_snprint(line, sizeof(line), &dec, NULL, 0, 0);
	snprintf(text, sizeof(text), "[%u] %s", i, line);
	put_comment(f, "      ", text);
}

static void comment_rq(FILE *f, uint32_t i, const struct chainobj_queue *q,
                       const struct chainobj_wqe *w)
{
	struct prism_sge sge[PRISM_WQE_MAX_SGE];
	char text[560];
	size_t used;
	int n = prism_rwqe_decode(w->bytes, q->rq_stride_ds, sge, PRISM_WQE_MAX_SGE, NULL);

	used = (size_t)snprintf(text, sizeof(text), "[%u] recv", i);
	for (int k = 0; k < n && used < sizeof(text); k++)
		used += (size_t)snprintf(text + used, sizeof(text) - used,
		                         " sge[0x%" PRIx64 "+%u lkey=0x%x]", sge[k].addr,
		                         sge[k].byte_count, sge[k].lkey);
	put_comment(f, "      ", text);
}

static void put_wqes(FILE *f, const struct chainobj_queue *q, enum chainobj_ring ring,
                     unsigned flags)
{
	const struct chainobj_wqe *arr = ring == CHAINOBJ_RING_RQ ? q->rq : q->sq;
	uint32_t n = ring == CHAINOBJ_RING_RQ ? q->n_rq : q->n_sq;

	fprintf(f, "    %s:%s\n", ring == CHAINOBJ_RING_RQ ? "rq" : "sq", n ? "" : " []");
	for (uint32_t i = 0; i < n; i++) {
		const struct chainobj_wqe *w = &arr[i];

		if (!(flags & CHAINOBJ_WRITE_NO_COMMENTS)) {
			if (ring == CHAINOBJ_RING_RQ)
				comment_rq(f, i, q, w);
			else
				comment_sq(f, i, w);
		}
		fprintf(f, "      - slot: %u\n", w->slot);
		if (w->note) {
			fputs("        note: ", f);
			put_note(f, w->note);
			fputc('\n', f);
		}
		fputs("        hex:\n", f);
		put_hex(f, w->bytes, w->len, "          ");
	}
}

static void put_site(FILE *f, const struct chainobj *o, const struct chainobj_site *s)
{
	fprintf(f, "{queue: %s, ring: %s, wqe: %u, offset: %u, width: %u}",
	        o->queues[s->queue].name, chainobj_yaml_ring_name(s->ring), s->wqe, s->offset,
	        s->width);
}

static void put_queue(FILE *f, const struct chainobj *o, const struct chainobj_queue *q,
                      unsigned flags)
{
	fprintf(f, "  - name: %s\n", q->name);
	fprintf(f, "    role: %s\n", chainobj_role_name(q->role));
	if (q->role == CHAINOBJ_ROLE_LANE)
		fprintf(f, "    lane: %u\n", q->lane);
	fprintf(f, "    managed-send: %s\n", q->managed_send ? "true" : "false");
	fprintf(f, "    managed-recv: %s\n", q->managed_recv ? "true" : "false");
	fprintf(f, "    sq-slots: %u\n", q->sq_slots);
	fprintf(f, "    rq-slots: %u\n", q->rq_slots);
	fprintf(f, "    rq-stride-ds: %u\n", q->rq_stride_ds);
	fprintf(f, "    send-cq: %s\n", o->cqs[q->send_cq].name);
	fprintf(f, "    recv-cq: %s\n", o->cqs[q->recv_cq].name);
	fprintf(f, "    sq-per-invocation: %u\n", q->sq_per_invocation);
	fprintf(f, "    rq-per-invocation: %u\n", q->rq_per_invocation);
	if (q->recycle.max_laps)
		fprintf(f,
		        "    recycle: {max-laps: %u, counter-wqe: %u, counter-offset: %u, "
		        "cq-per-lap: %u}\n",
		        q->recycle.max_laps, q->recycle.counter_wqe, q->recycle.counter_offset,
		        q->recycle.cq_per_lap);
	put_wqes(f, q, CHAINOBJ_RING_SQ, flags);
	put_wqes(f, q, CHAINOBJ_RING_RQ, flags);
}

static void put_entry(FILE *f, const struct chainobj *o, const struct chainobj_entry *e)
{
	fprintf(f, "  - name: %s\n", e->name);
	fprintf(f, "    message-size: %u\n", e->msg_size);
	fprintf(f, "    params:%s\n", e->n_params ? "" : " []");
	for (uint32_t i = 0; i < e->n_params; i++) {
		const struct chainobj_param *p = &e->params[i];

		fprintf(f, "      - {name: %s, type: %s, ", p->name,
		        chainobj_yaml_ptype_name(p->type));
		if (p->type == CHAINOBJ_PT_ADDR)
			fprintf(f, "region: %s, ", o->regions[p->region].name);
		fprintf(f, "width: %u, order: %s, offset: %u, ", p->width,
		        chainobj_yaml_order_name(p->order), p->msg_offset);
		if (p->copies != 1)
			fprintf(f, "copies: %u, ", p->copies);
		fprintf(f, "recv: {queue: %s, wqe: %u, sge: %u, count: %u}}\n",
		        o->queues[p->queue].name, p->rwqe, p->first_sge, p->n_sge);
	}
	fprintf(f, "    results:%s\n", e->n_results ? "" : " []");
	for (uint32_t i = 0; i < e->n_results; i++) {
		const struct chainobj_result *r = &e->results[i];

		fprintf(f, "      - {name: %s, width: %u, order: %s, offset: %u}\n", r->name,
		        r->width, chainobj_yaml_order_name(r->order), r->offset);
	}
}

static void put_reloc(FILE *f, const struct chainobj *o, const struct chainobj_reloc *r)
{
	enum chainobj_ref ref = chainobj_reloc_kind_ref(r->kind);

	fputs("  - {site: ", f);
	put_site(f, o, &r->site);
	fprintf(f, ", kind: %s", chainobj_reloc_kind_name(r->kind));
	if (ref == CHAINOBJ_REF_QUEUE)
		fprintf(f, ", target: %s", o->queues[r->target].name);
	else if (ref == CHAINOBJ_REF_CQ)
		fprintf(f, ", target: %s", o->cqs[r->target].name);
	else if (ref == CHAINOBJ_REF_REGION)
		fprintf(f, ", target: %s", o->regions[r->target].name);
	if (r->kind == CHAINOBJ_RELOC_QBUF_ADDR)
		fprintf(f, ", ring: %s", chainobj_yaml_ring_name((enum chainobj_ring)r->ring));
	if (r->addend)
		fprintf(f, ", addend: %" PRIu64, r->addend);
	if (chainobj_reloc_kind_is_count(r->kind) ||
	    (chainobj_reloc_kind_count_use(r->kind) == CHAINOBJ_COUNT_OPT &&
	     (r->stride || r->delta)))
		fprintf(f, ", stride: %u, delta: %u", r->stride, r->delta);
	fprintf(f, ", order: %s}\n", chainobj_yaml_order_name(r->order));
}

static void put_counts(FILE *f, const char *key, const uint32_t *v, uint32_t n)
{
	fprintf(f, "%s: [", key);
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "%s%u", i ? ", " : "", v[i]);
	fputc(']', f);
}

static void put_exits(FILE *f, const struct chainobj *o)
{
	/* Optional keys are omitted at their default, so that objects written
	 * before a key existed keep their canonical text (and checksum). */
	if (!o->n_exits)
		return;
	fputs("exits:\n", f);
	for (uint32_t i = 0; i < o->n_exits; i++) {
		const struct chainobj_exit *x = &o->exits[i];

		fprintf(f, "  - {queue: %s, wqe: %u, enable: %u, ", o->queues[x->queue].name,
		        x->wqe, x->enable);
		put_counts(f, "sq", x->sq_advance, x->n_queues);
		fputs(", ", f);
		put_counts(f, "rq", x->rq_advance, x->n_queues);
		fputs(", ", f);
		put_counts(f, "cq", x->cq_advance, x->n_cqs);
		fputs("}\n", f);
	}
}

static void put_summary(FILE *f, const struct chainobj *o)
{
	const struct chainobj_summary *s = &o->summary;

	fputs("summary:\n", f);
	fprintf(f, "  verified: %s\n", s->verified ? "true" : "false");
	fprintf(f, "  wr-per-invocation: %u\n", s->wr_per_invocation);
	fprintf(f, "  barriers: %u\n", s->barriers);
	fprintf(f, "  loops:%s\n", s->n_loops ? "" : " []");
	for (uint32_t i = 0; i < s->n_loops; i++)
		fprintf(f, "    - {name: %s, bound: %u, wr-per-iteration: %u}\n", s->loops[i].name,
		        s->loops[i].bound, s->loops[i].wr_per_iteration);
	fprintf(f, "  regions-touched:%s\n", s->n_touched ? "" : " []");
	for (uint32_t i = 0; i < s->n_touched; i++) {
		fprintf(f, "    - {region: %s, access: ", o->regions[s->touched[i].region].name);
		put_access(f, s->touched[i].access);
		fputs("}\n", f);
	}
}

/* The whole object; @o must validate. */
static void put_object(FILE *f, const struct chainobj *o, unsigned flags, uint64_t sum)
{
	if (!(flags & CHAINOBJ_WRITE_NO_COMMENTS))
		fprintf(f, "# prism compiled chain: program '%s' (docs/chain-format.md)\n",
		        o->program);
	fprintf(f, "prism-chain: %u\n", o->schema);
	fprintf(f, "program: %s\n", o->program);
	fprintf(f, "profile: %s\n", chainobj_profile_name(o->profile));
	fprintf(f, "rearm: %s\n", chainobj_rearm_name(o->rearm));
	if (o->assumes) {
		fputs("assumes: ", f);
		put_bits(f, o->assumes, CHAINOBJ_ASSUME__COUNT, assume_word);
		fputc('\n', f);
	}
	fprintf(f, "scratch-size: %u\n", o->scratch_size);
	fprintf(f, "response-size: %u\n", o->response_size);
	if (o->scratch_init_len) {
		fputs("scratch-init:\n", f);
		put_hex(f, o->scratch_init, o->scratch_init_len, "  ");
	}
	if (!(flags & CHAINOBJ_WRITE_NO_CHECKSUM))
		fprintf(f, "checksum: \"fnv1a64:%016" PRIx64 "\"\n", sum);

	fprintf(f, "regions:%s\n", o->n_regions ? "" : " []");
	for (uint32_t i = 0; i < o->n_regions; i++) {
		fprintf(f, "  - {name: %s, size: %" PRIu64 ", access: ", o->regions[i].name,
		        o->regions[i].size);
		put_access(f, o->regions[i].access);
		fputs("}\n", f);
	}
	fprintf(f, "cqs:%s\n", o->n_cqs ? "" : " []");
	for (uint32_t i = 0; i < o->n_cqs; i++)
		fprintf(f, "  - {name: %s, entries: %u, ignore-overrun: %s, per-invocation: %u}\n",
		        o->cqs[i].name, o->cqs[i].entries,
		        o->cqs[i].ignore_overrun ? "true" : "false", o->cqs[i].per_invocation);
	fprintf(f, "queues:%s\n", o->n_queues ? "" : " []");
	for (uint32_t i = 0; i < o->n_queues; i++)
		put_queue(f, o, &o->queues[i], flags);
	fprintf(f, "entries:%s\n", o->n_entries ? "" : " []");
	for (uint32_t i = 0; i < o->n_entries; i++)
		put_entry(f, o, &o->entries[i]);
	fprintf(f, "patches:%s\n", o->n_patches ? "" : " []");
	for (uint32_t i = 0; i < o->n_patches; i++) {
		const struct chainobj_patch *p = &o->patches[i];

		fputs("  - {target: ", f);
		put_site(f, o, &p->target);
		fprintf(f, ", kind: %s, writer: {queue: %s, ring: %s, wqe: %u, sge: %u}}\n",
		        chainobj_patch_kind_name(p->kind), o->queues[p->writer_queue].name,
		        chainobj_yaml_ring_name(p->writer_ring), p->writer_wqe, p->writer_sge);
	}
	fprintf(f, "relocs:%s\n", o->n_relocs ? "" : " []");
	for (uint32_t i = 0; i < o->n_relocs; i++)
		put_reloc(f, o, &o->relocs[i]);
	put_exits(f, o);
	put_summary(f, o);
}

/* FNV-1a, 64-bit (Fowler/Noll/Vo, public domain parameters). */
static uint64_t fnv1a64(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Checksum of a validated object: 0 only on allocation failure. */
static int checksum_valid(const struct chainobj *o, uint64_t *sum)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return -ENOMEM;
	put_object(f, o, CHAINOBJ_WRITE_NO_COMMENTS | CHAINOBJ_WRITE_NO_CHECKSUM, 0);
	if (fclose(f) || !text) {
		free(text);
		return -ENOMEM;
	}
	*sum = fnv1a64(text, len);
	free(text);
	return 0;
}

uint64_t chainobj_checksum(const struct chainobj *o)
{
	uint64_t sum = 0;

	if (chainobj_validate(o, NULL) || checksum_valid(o, &sum))
		return 0;
	return sum;
}

int chainobj_write(const struct chainobj *o, FILE *out, unsigned flags, struct diag_report *diag)
{
	uint64_t sum = 0;
	int rc = chainobj_validate(o, diag);

	if (rc)
		return rc;
	if (!(flags & CHAINOBJ_WRITE_NO_CHECKSUM) && checksum_valid(o, &sum))
		return chainobj_diag_set(diag, CHAINOBJ_E_NOMEM, 0, 0, "", "out of memory");
	put_object(out, o, flags, sum);
	if (fflush(out) || ferror(out))
		return chainobj_diag_set(diag, CHAINOBJ_E_IO, 0, 0, "", "write failed: %s",
		                         strerror(errno));
	return 0;
}

int chainobj_write_mem(const struct chainobj *o, unsigned flags, char **text, size_t *len,
                       struct diag_report *diag)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f;
	int rc;

	*text = NULL;
	*len = 0;
	f = open_memstream(&buf, &n);
	if (!f)
		return chainobj_diag_set(diag, CHAINOBJ_E_NOMEM, 0, 0, "", "out of memory");
	rc = chainobj_write(o, f, flags, diag);
	if (fclose(f) && !rc)
		rc = chainobj_diag_set(diag, CHAINOBJ_E_NOMEM, 0, 0, "", "out of memory");
	if (rc) {
		free(buf);
		return rc;
	}
	*text = buf;
	*len = n;
	return 0;
}
