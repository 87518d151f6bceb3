/* SPDX-License-Identifier: MIT */
/*
 * compiler/dump_xref.c - words shared by every `prismc dump` renderer:
 * names of WQEs, one-line relocation descriptions, printer lines.
 *
 * Owns: dump_reloc_desc, dump_wqe_ref, dump_wqe_line, dump_rwqe_line,
 * dump_wqe_opcode, dump_reloc_target.  Must not: print to a stream, or
 * look at WQE bytes except through the codec.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <prism/wqe.h>

#include "compiler/dump.h"

void dump_wqe_ref(const struct chainobj *o, uint32_t queue, enum chainobj_ring ring, uint32_t wqe,
                  char *buf, size_t len)
{
	snprintf(buf, len, "%s%s#%u", o->queues[queue].name, ring == CHAINOBJ_RING_RQ ? ".rq" : "",
	         wqe);
}

static const char *target_name(const struct chainobj *o, const struct chainobj_reloc *r)
{
	switch (chainobj_reloc_kind_ref(r->kind)) {
	case CHAINOBJ_REF_QUEUE:
		return o->queues[r->target].name;
	case CHAINOBJ_REF_CQ:
		return o->cqs[r->target].name;
	case CHAINOBJ_REF_REGION:
		return o->regions[r->target].name;
	default:
		return NULL;
	}
}

void dump_reloc_desc(const struct chainobj *o, const struct chainobj_reloc *r, char *buf,
                     size_t len)
{
	const char *t = target_name(o, r);
	size_t n = (size_t)snprintf(buf, len, "%s", chainobj_reloc_kind_name(r->kind));

	if (t && n < len)
		n += (size_t)snprintf(buf + n, len - n, " %s", t);
	if (r->kind == CHAINOBJ_RELOC_QBUF_ADDR && n < len)
		n += (size_t)snprintf(buf + n, len - n, ".%s",
		                      r->ring == CHAINOBJ_RING_RQ ? "rq" : "sq");
	if (r->addend && n < len)
		n += (size_t)snprintf(buf + n, len - n, " +%" PRIu64, r->addend);
	if ((r->stride || r->delta || chainobj_reloc_kind_is_count(r->kind)) && n < len)
		n += (size_t)snprintf(buf + n, len - n, " %s k*%u+%u",
		                      r->kind == CHAINOBJ_RELOC_QBUF_ADDR ? "slot" : "=", r->stride,
		                      r->delta);
	if (r->order == CHAINOBJ_ORDER_LITTLE && n < len)
		snprintf(buf + n, len - n, " (little-endian)");
}

void dump_wqe_line(const struct chainobj_wqe *w, unsigned flags, char *buf, size_t len)
{
	struct prism_wqe dec;

	if (prism_wqe_decode(w->bytes, w->len, &dec, NULL) < 0) {
		snprintf(buf, len, "(undecodable)");
		return;
	}
	prism_wqe_snprint(buf, len, &dec, w->bytes, w->len,
	                  (flags & DUMP_RAW) ? PRISM_PRINT_RAW : 0);
}

void dump_rwqe_line(const struct chainobj_queue *q, const struct chainobj_wqe *w, unsigned flags,
                    char *buf, size_t len)
{
	struct prism_sge sge[PRISM_WQE_MAX_SGE];
	int k = prism_rwqe_decode(w->bytes, q->rq_stride_ds, sge, PRISM_WQE_MAX_SGE, NULL);
	size_t n = (size_t)snprintf(buf, len, "recv    ");

	for (int i = 0; i < k && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, " sge[0x%" PRIx64 "+%u lkey=0x%x]",
		                      sge[i].addr, sge[i].byte_count, sge[i].lkey);
	if ((flags & DUMP_RAW) && n < len) {
		n += (size_t)snprintf(buf + n, len - n, " |");
		for (uint32_t i = 0; i < w->len && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "%s%02x", i % 4 ? "" : " ",
			                      w->bytes[i]);
	}
}

uint8_t dump_wqe_opcode(const struct chainobj_wqe *w)
{
	struct prism_wqe dec;

	if (prism_wqe_decode(w->bytes, w->len, &dec, NULL) < 0)
		return 0xff;
	return dec.ctrl.opcode;
}

int dump_reloc_target(const struct chainobj *o, uint32_t q, uint32_t i, enum chainobj_reloc_kind k,
                      enum prism_wqe_field field)
{
	const struct chainobj_wqe *w = &o->queues[q].sq[i];
	struct prism_wqe dec;
	uint32_t off, len;

	/* A WQE may carry several relocations of one kind (an ENABLE has its
	 * own QPN in the control segment and the enabled queue's in the
	 * wait/enable segment): the field says which one is meant. */
	if (prism_wqe_decode(w->bytes, w->len, &dec, NULL) < 0 ||
	    prism_wqe_field_offset(&dec, field, &off, &len))
		return -1;
	for (uint32_t r = 0; r < o->n_relocs; r++) {
		const struct chainobj_reloc *rl = &o->relocs[r];

		if (rl->kind == k && rl->site.queue == q && rl->site.ring == CHAINOBJ_RING_SQ &&
		    rl->site.wqe == i && rl->site.offset >= off && rl->site.offset < off + len)
			return (int)rl->target;
	}
	return -1;
}
