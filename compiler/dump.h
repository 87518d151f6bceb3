/* SPDX-License-Identifier: MIT */
/*
 * compiler/dump.h - rendering a compiled chain object for people and tools
 * (`prismc dump`).
 *
 * Owns: the listing (per queue, per WQE: index, slot, the codec printer's
 * decoded fields, who patches it, what it patches, its relocations), the
 * statistics and cx5 latency prediction, the Graphviz picture and the JSON
 * form.  Every renderer takes an object that passed chainobj_validate().
 *
 * Must not: decode WQE bytes other than through prism/wqe.h, modify the
 * object, or exit.
 */
#ifndef PRISMC_DUMP_H
#define PRISMC_DUMP_H

#include <stdbool.h>
#include <stdio.h>

#include <prism/wqe.h>

#include "chain/chainobj.h"

#define DUMP_RAW (1u << 0) /* append each WQE's bytes in hex */

/* Per-invocation figures of one object (all SQ templates = one invocation). */
struct dump_stats {
	unsigned wqes;               /* send WQEs */
	unsigned recvs;              /* receive WQEs */
	unsigned by_class[3];        /* enum prism_op_class: copy, atomic, ordering */
	unsigned signaled;           /* CE = CQ update */
	unsigned fenced;             /* a fence mode set */
	unsigned wq_ordered;         /* WRs ordered only by their queue */
	unsigned completion_ordered; /* WAITs not followed by an ENABLE */
	unsigned doorbell_ordered;   /* WAIT + ENABLE pairs (RedN's doorbell ordering) */
	unsigned writes;             /* WRITE, WRITE_IMM, SEND, SEND_IMM */
	unsigned reads_atomics;      /* READ, CAS, FETCH_ADD and masked variants */
	unsigned patch_sites;
	unsigned relocs;
	double predicted_us; /* cx5 sequential model, see dump_stats.c */
};

/*
 * The numbers the prediction uses, taken from a sim cost profile
 * (profiles/<name>.yaml, RedN Fig. 7/8 and Table 3 for cx5): one source of
 * truth for `dump --stats` and the software NIC's virtual clock.
 */
struct dump_cost_profile {
	char name[32];
	double noop_us;        /* one NOOP chain */
	double wq_ordered_us;  /* each further WQ-ordered WR */
	double completion_us;  /* each completion-ordered step (WAIT) */
	double doorbell_us;    /* each doorbell-ordered step (WAIT + ENABLE) */
	double write_us;       /* a WRITE instead of a NOOP */
	double read_atomic_us; /* a READ or atomic instead of a NOOP */
};

/*
 * Fill @out from the built-in sim profile @name ("cx5").  Returns 0, or a
 * negative errno with @err (may be NULL) holding the loader's message.
 */
int dump_cost_profile_builtin(const char *name, struct dump_cost_profile *out, char *err,
                              size_t errlen);
/* A built-in profile by name, else a profile YAML file (`--cost`). */
int dump_cost_profile_load(const char *spec, struct dump_cost_profile *out, char *err,
                           size_t errlen);
/* The cx5 profile, loaded once; never NULL (the built-in text is fixed). */
const struct dump_cost_profile *dump_cost_cx5(void);

void dump_compute_stats(const struct chainobj *o, const struct dump_cost_profile *cost,
                        struct dump_stats *st);

int dump_text(FILE *out, const struct chainobj *o, unsigned flags);
/* @cost: the profile of the latency prediction (NULL: cx5). */
int dump_stats_text(FILE *out, const struct chainobj *o, const struct dump_cost_profile *cost);
int dump_dot(FILE *out, const struct chainobj *o);
int dump_json(FILE *out, const struct chainobj *o, unsigned flags,
              const struct dump_cost_profile *cost);

/* ---- shared by the renderers (dump_xref.c) ---- */

/* One-line description of relocation @r ("cq-count conn_cq k*1+1"). */
void dump_reloc_desc(const struct chainobj *o, const struct chainobj_reloc *r, char *buf,
                     size_t len);
/* "worker#2" for an SQ template, "conn.rq#0" for a receive template. */
void dump_wqe_ref(const struct chainobj *o, uint32_t queue, enum chainobj_ring ring, uint32_t wqe,
                  char *buf, size_t len);
/* Printer line of an SQ template (codec printer), or "(undecodable)". */
void dump_wqe_line(const struct chainobj_wqe *w, unsigned flags, char *buf, size_t len);
/* Receive template line: "recv sge[len -> ...] ...". */
void dump_rwqe_line(const struct chainobj_queue *q, const struct chainobj_wqe *w, unsigned flags,
                    char *buf, size_t len);
/* Opcode of an SQ template (0xff when it does not decode). */
uint8_t dump_wqe_opcode(const struct chainobj_wqe *w);
/* Target of the CQN / QPN relocation of kind @k in field @field of SQ
 * template (q, i), or -1. */
int dump_reloc_target(const struct chainobj *o, uint32_t q, uint32_t i, enum chainobj_reloc_kind k,
                      enum prism_wqe_field field);

#endif /* PRISMC_DUMP_H */
