/* SPDX-License-Identifier: MIT */
/*
 * chain/chainobj.h - the compiled chain object (`foo.chain`) in memory.
 *
 * Owns: struct chainobj and everything hanging off it (program name, target
 * profile, entry points with typed parameters, regions, queues with their
 * WQE templates as raw bytes, receive templates, CQs, patch sites,
 * relocations, re-arm mode, verifier summary); the builder helpers the
 * compiler back end fills it with; structural validation; the YAML writer
 * and reader (docs/contracts.md contract 4, schema `prism-chain: 1`, described in
 * docs/chain-format.md); a byte helper to store a relocated value.
 *
 * Must not: pack or parse WQE bytes itself (prism/wqe.h does that), touch a
 * NIC, allocate queues, print, or exit.  Internal to libprism and prismc;
 * not installed.
 *
 * Ownership: a struct chainobj owns every string and array reachable from
 * it; chainobj_free() releases all of it.  Indices (queue, cq, region,
 * wqe) refer to positions in the object's arrays.
 */
#ifndef PRISM_CHAIN_CHAINOBJ_H
#define PRISM_CHAIN_CHAINOBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/diag_report.h"

#define CHAINOBJ_SCHEMA_VERSION 1u /* what chainobj_new() sets: every object */
#define CHAINOBJ_SCHEMA_RECYCLE 2u /* + queues[].recycle (recycled loops) */
#define CHAINOBJ_SCHEMA_ASSUME  3u /* + assumes (NIC behaviour the chain relies on) */
#define CHAINOBJ_SCHEMA_MAX     3u /* newest this build reads */

/* Limits the reader enforces (and the builders respect). */
#define CHAINOBJ_NAME_MAX         63u /* identifiers: [A-Za-z_][A-Za-z0-9_.-]* */
#define CHAINOBJ_MAX_QUEUES       64u
#define CHAINOBJ_MAX_CQS          64u
#define CHAINOBJ_MAX_REGIONS      64u
#define CHAINOBJ_MAX_ENTRIES      64u
#define CHAINOBJ_MAX_PARAMS       16u       /* per entry (a RECV scatters <= 16 entries) */
#define CHAINOBJ_MAX_RING         65536u    /* SQ slots (BBs) / RQ slots per queue */
#define CHAINOBJ_MAX_CQE          16777216u /* 24-bit CQ counts */
#define CHAINOBJ_MAX_RQ_STRIDE_DS 16u       /* receive WQE stride, 16-byte units (<= 16 SGEs) */
#define CHAINOBJ_MAX_REGION_SIZE  (1ull << 40)
#define CHAINOBJ_MAX_SCRATCH      (1u << 20)
#define CHAINOBJ_MAX_MSG          4096u /* client SEND payload / response bytes */
#define CHAINOBJ_MAX_LOOPS        1024u /* loops in the verifier summary */

/* Firmware profile the chain was compiled for (docs/contracts.md contract 3). */
enum chainobj_profile {
	CHAINOBJ_PROFILE_RELAXED = 0, /* ctrl WQE index / QPN checks off (RedN firmware) */
	CHAINOBJ_PROFILE_STRICT = 1,  /* stock firmware: index and QPN must match */
};

enum chainobj_order {
	CHAINOBJ_ORDER_BIG = 0,    /* WQE fields */
	CHAINOBJ_ORDER_LITTLE = 1, /* host-endian atomic operands, host integers */
};

/* Access a program declares for a region (what its WQEs may do there). */
enum chainobj_access {
	CHAINOBJ_ACC_READ = 1u << 0,
	CHAINOBJ_ACC_WRITE = 1u << 1,
	CHAINOBJ_ACC_ATOMIC = 1u << 2,
};

enum chainobj_role {
	CHAINOBJ_ROLE_CONN = 0,   /* RC QP connected to the client */
	CHAINOBJ_ROLE_WORKER = 1, /* loopback QP that runs the chain */
	CHAINOBJ_ROLE_LANE = 2,   /* worker of parallel lane N (queue.lane) */
};

enum chainobj_ring {
	CHAINOBJ_RING_SQ = 0,
	CHAINOBJ_RING_RQ = 1,
};

/* How the program is made ready for invocation k+1. */
enum chainobj_rearm {
	CHAINOBJ_REARM_CPU_REPOST = 0,  /* runtime re-posts templates, counts += stride */
	CHAINOBJ_REARM_NIC_RECYCLE = 1, /* chain wraps its rings itself (WAIT+ENABLE tail) */
};

/*
 * NIC behaviour a chain relies on that the public sources do not settle
 * (schema 3, `assumes:`).  A program opts into the fenced enable (`assume
 * fenced_enable;`); the SEND_EN index unit matters only when a queue that
 * SEND_EN runs holds a WQE of more than one 64-byte block (PCX counts
 * blocks, MLNX_OFED libmlx5 work requests), which the compiler records.
 * The loader recomputes both from the WQEs (chain_verify_assumes) and
 * refuses the object on a device whose behaviour probe has not confirmed
 * each (core/probe.h).  X(ENUM, "yaml-name").
 */
#define CHAINOBJ_ASSUMES(X)                                                                        \
	X(FENCED_ENABLE, "fenced-enable")       /* nic-model 3.15a; opt-in */                      \
	X(SEND_EN_BB_UNITS, "send-en-bb-units") /* a queue SEND_EN runs holds a WQE > 64 bytes */

enum chainobj_assume_bit {
#define CHAINOBJ_X_ENUM(e, name) CHAINOBJ_ASSUME_BIT_##e,
	CHAINOBJ_ASSUMES(CHAINOBJ_X_ENUM)
#undef CHAINOBJ_X_ENUM
	    CHAINOBJ_ASSUME__COUNT
};
#define CHAINOBJ_ASSUME_FENCED_ENABLE    (1u << CHAINOBJ_ASSUME_BIT_FENCED_ENABLE)
#define CHAINOBJ_ASSUME_SEND_EN_BB_UNITS (1u << CHAINOBJ_ASSUME_BIT_SEND_EN_BB_UNITS)
#define CHAINOBJ_ASSUME_ALL              ((1u << CHAINOBJ_ASSUME__COUNT) - 1u)

/* Parameter types: the checker's view of what the client sends. */
enum chainobj_ptype {
	CHAINOBJ_PT_UINT = 0,  /* unsigned integer of `width` bytes */
	CHAINOBJ_PT_ADDR = 1,  /* address inside declared region `region` */
	CHAINOBJ_PT_BYTES = 2, /* opaque bytes (keys) */
};

/*
 * How a WQE's bytes are rewritten at run time, by another WQE:
 * X(ENUM, "yaml-name").
 */
#define CHAINOBJ_PATCH_KINDS(X)                                                                    \
	X(READ_SCATTER, "read-scatter")                                                            \
	X(RECV_SCATTER, "recv-scatter")                                                            \
	X(CAS, "cas")                                                                              \
	X(FETCH_ADD, "fetch-add")                                                                  \
	X(MASKED_CAS, "masked-cas")                                                                \
	X(MASKED_FETCH_ADD, "masked-fetch-add")                                                    \
	X(WRITE, "write")

enum chainobj_patch_kind {
#define CHAINOBJ_X_ENUM(e, name) CHAINOBJ_PATCH_##e,
	CHAINOBJ_PATCH_KINDS(CHAINOBJ_X_ENUM)
#undef CHAINOBJ_X_ENUM
	    CHAINOBJ_PATCH__COUNT
};

/* What a relocation's `target` index refers to. */
enum chainobj_ref {
	CHAINOBJ_REF_NONE = 0,
	CHAINOBJ_REF_QUEUE,
	CHAINOBJ_REF_CQ,
	CHAINOBJ_REF_REGION,
};

/* Whether a relocation kind uses the count fields (stride, delta). */
enum chainobj_count_use {
	CHAINOBJ_COUNT_NO = 0,
	CHAINOBJ_COUNT_YES = 1, /* required: the value is a counter */
	CHAINOBJ_COUNT_OPT = 2, /* optional: qbuf-addr of the slot of invocation k */
};

/*
 * Relocation kinds (notes on the program ABI): X(ENUM, "yaml-name", target
 * reference, count use).  The value the loader stores at the site is
 *   address kinds:  base + addend
 *   qbuf-addr with stride/delta (a WQE of invocation k in a ring that
 *                   advances per invocation):
 *                   ring base + ((counter base of the target's ring
 *                   + k * stride + delta) mod ring slots) * slot size + addend
 *   count kinds:    counter base of the target + k * stride + delta
 *                   (k = invocation number; masked to the site's width;
 *                   with early exits, see struct chainobj_exit)
 *   cqe-addr:       address of the CQE whose 0-based number is that count,
 *                   in the target CQ's ring, + addend (< 64): ring base +
 *                   (count mod entries) * 64 + addend (the request gate's
 *                   wait-on-data, docs/chain-format.md)
 *   cq-lkey:        the key of the connection's local-read registration of
 *                   the target CQ's ring
 *   key/number kinds: the key or number itself.
 */
#define CHAINOBJ_RELOC_KINDS(X)                                                                    \
	X(QPN, "qpn", CHAINOBJ_REF_QUEUE, CHAINOBJ_COUNT_NO)                                       \
	X(CQN, "cqn", CHAINOBJ_REF_CQ, CHAINOBJ_COUNT_NO)                                          \
	X(QBUF_ADDR, "qbuf-addr", CHAINOBJ_REF_QUEUE, CHAINOBJ_COUNT_OPT)                          \
	X(QBUF_LKEY, "qbuf-lkey", CHAINOBJ_REF_QUEUE, CHAINOBJ_COUNT_NO)                           \
	X(QBUF_RKEY, "qbuf-rkey", CHAINOBJ_REF_QUEUE, CHAINOBJ_COUNT_NO)                           \
	X(REGION_ADDR, "region-addr", CHAINOBJ_REF_REGION, CHAINOBJ_COUNT_NO)                      \
	X(REGION_LKEY, "region-lkey", CHAINOBJ_REF_REGION, CHAINOBJ_COUNT_NO)                      \
	X(REGION_RKEY, "region-rkey", CHAINOBJ_REF_REGION, CHAINOBJ_COUNT_NO)                      \
	X(SCRATCH_ADDR, "scratch-addr", CHAINOBJ_REF_NONE, CHAINOBJ_COUNT_NO)                      \
	X(SCRATCH_LKEY, "scratch-lkey", CHAINOBJ_REF_NONE, CHAINOBJ_COUNT_NO)                      \
	X(SCRATCH_RKEY, "scratch-rkey", CHAINOBJ_REF_NONE, CHAINOBJ_COUNT_NO)                      \
	X(CLIENT_RESP_ADDR, "client-resp-addr", CHAINOBJ_REF_NONE, CHAINOBJ_COUNT_NO)              \
	X(CLIENT_RESP_RKEY, "client-resp-rkey", CHAINOBJ_REF_NONE, CHAINOBJ_COUNT_NO)              \
	X(CLIENT_QPN, "client-qpn", CHAINOBJ_REF_NONE, CHAINOBJ_COUNT_NO)                          \
	X(SQ_COUNT, "sq-count", CHAINOBJ_REF_QUEUE, CHAINOBJ_COUNT_YES)                            \
	X(RQ_COUNT, "rq-count", CHAINOBJ_REF_QUEUE, CHAINOBJ_COUNT_YES)                            \
	X(CQ_COUNT, "cq-count", CHAINOBJ_REF_CQ, CHAINOBJ_COUNT_YES)                               \
	X(CQE_ADDR, "cqe-addr", CHAINOBJ_REF_CQ, CHAINOBJ_COUNT_YES)                               \
	X(CQ_LKEY, "cq-lkey", CHAINOBJ_REF_CQ, CHAINOBJ_COUNT_NO)

/*
 * The request gate (docs/chain-format.md, "Request gate"): right after the
 * entry WAIT on the conn queue's receive CQ, a wait-on-data on the be64
 * word at byte CHAINOBJ_GATE_CQE_OFFSET of the CQE that WAIT released (the
 * word ends with op_own) that holds until (word & MASK) == VALUE: opcode 2
 * or 3, a responder SEND with or without immediate.  A flushed or failed
 * receive completes with opcode 14 (responder error) and never opens it.
 */
#define CHAINOBJ_GATE_CQE_OFFSET 56u
#define CHAINOBJ_GATE_MASK       0xe0u
#define CHAINOBJ_GATE_VALUE      0x20u

enum chainobj_reloc_kind {
#define CHAINOBJ_X_ENUM(e, name, ref, cnt) CHAINOBJ_RELOC_##e,
	CHAINOBJ_RELOC_KINDS(CHAINOBJ_X_ENUM)
#undef CHAINOBJ_X_ENUM
	    CHAINOBJ_RELOC__COUNT
};

/*
 * A byte range inside one WQE template: queue `queue`, ring `ring`, the
 * `wqe`-th template of that ring (position in queue.sq / queue.rq, not the
 * slot), bytes [offset, offset + width).
 */
struct chainobj_site {
	uint32_t queue;
	enum chainobj_ring ring;
	uint32_t wqe;
	uint32_t offset;
	uint32_t width;
};

/* One WQE template: the exact bytes posted at ring slot `slot`. */
struct chainobj_wqe {
	uint32_t slot; /* SQ: first 64-byte BB; RQ: receive slot */
	uint32_t len;  /* SQ: ds*16 (what the codec decodes); RQ: stride bytes */
	uint8_t *bytes;
	char *note;    /* optional provenance ("get.prism:12 if"), may be NULL */
	uint32_t line; /* YAML line it was read from; 0 when built in memory */
};

/*
 * A recycled loop's lap queue (schema 2): its ring is exactly one lap, which
 * the NIC re-runs up to `max_laps` times per invocation (RedN 3.4).  How
 * many laps ran is known only at run time: the be32 field at byte
 * `counter_offset` of SQ template `counter_wqe` (a WAIT count or SEND_EN
 * index) grows by sq_slots every lap, so laps = (value after the invocation
 * - value as posted) / sq_slots.  The queue then advances by laps x sq_slots
 * and its send CQ by laps x `cq_per_lap`; its own per-invocation and exit
 * advances are 0.  The runtime creates it with send-queue overflow ignored.
 * max_laps 0: an ordinary queue.
 */
struct chainobj_recycle {
	uint32_t max_laps;
	uint32_t counter_wqe;
	uint32_t counter_offset;
	uint32_t cq_per_lap;
};

struct chainobj_queue {
	char *name;
	enum chainobj_role role;
	uint32_t lane;                   /* CHAINOBJ_ROLE_LANE only */
	bool managed_send;               /* SQ started only by SEND_EN */
	bool managed_recv;               /* RQ started only by RECV_EN */
	uint32_t sq_slots;               /* power of two, in 64-byte BBs */
	uint32_t rq_slots;               /* power of two, receive WQEs (0: no RQ) */
	uint32_t rq_stride_ds;           /* receive WQE size in 16-byte units, power of two */
	uint32_t send_cq;                /* cq index */
	uint32_t recv_cq;                /* cq index */
	uint32_t sq_per_invocation;      /* SQ producer advance (BBs) per invocation */
	uint32_t rq_per_invocation;      /* RQ WQEs consumed per invocation */
	struct chainobj_recycle recycle; /* lap queue of a recycled loop (schema 2) */
	uint32_t n_sq;
	struct chainobj_wqe *sq;
	uint32_t n_rq;
	struct chainobj_wqe *rq;
	uint32_t line; /* YAML line it was read from; 0 when built in memory */
};

struct chainobj_cq {
	char *name;
	uint32_t entries;        /* power of two */
	bool ignore_overrun;     /* required for recycled / long-running chains */
	uint32_t per_invocation; /* CQEs produced per invocation */
	uint32_t line;           /* YAML line it was read from; 0 when built in memory */
};

struct chainobj_region {
	char *name;
	uint64_t size;
	uint32_t access; /* enum chainobj_access bits */
	uint32_t line;   /* YAML line it was read from; 0 when built in memory */
};

/* A typed entry-point parameter and the RECV scatter entries it lands in. */
struct chainobj_param {
	char *name;
	enum chainobj_ptype type;
	uint32_t width; /* bytes */
	enum chainobj_order order;
	uint32_t region;     /* CHAINOBJ_PT_ADDR: declared region it points into */
	uint32_t msg_offset; /* offset in the client's SEND payload */
	uint32_t copies;     /* the value is sent `copies` times back to back (one per
	                        use: a RECV scatter places each payload byte once);
	                        chainobj_entry_add_param() sets 1 */
	uint32_t queue;      /* receive template: queue ... */
	uint32_t rwqe;       /* ... its rq[rwqe] ... */
	uint32_t first_sge;  /* ... scatter entries [first_sge, first_sge + n_sge), */
	uint32_t n_sge;      /* carrying exactly width * copies message bytes */
	uint32_t line;       /* YAML line it was read from; 0 when built in memory */
};

/* A typed result written back to the client's response buffer. */
struct chainobj_result {
	char *name;
	uint32_t width;
	enum chainobj_order order;
	uint32_t offset; /* in the client response buffer */
	uint32_t line;   /* YAML line it was read from; 0 when built in memory */
};

struct chainobj_entry {
	char *name;
	uint32_t msg_size; /* bytes the client SENDs */
	uint32_t n_params;
	struct chainobj_param *params;
	uint32_t n_results;
	struct chainobj_result *results;
	uint32_t line; /* YAML line it was read from; 0 when built in memory */
};

/* `target` bytes are rewritten at run time by WQE `writer`. */
struct chainobj_patch {
	struct chainobj_site target;
	enum chainobj_patch_kind kind;
	uint32_t writer_queue;
	enum chainobj_ring writer_ring;
	uint32_t writer_wqe;
	uint32_t writer_sge; /* scatter kinds: which scatter entry; else 0 */
	uint32_t line;       /* YAML line it was read from; 0 when built in memory */
};

struct chainobj_reloc {
	struct chainobj_site site; /* width 1..8 */
	enum chainobj_reloc_kind kind;
	enum chainobj_order order;
	uint32_t target; /* queue / cq / region index per the kind's reference */
	uint32_t ring;   /* QBUF_ADDR: enum chainobj_ring of the target buffer */
	uint64_t addend; /* address kinds: byte offset */
	uint32_t stride; /* count kinds (and qbuf-addr): advance per invocation */
	uint32_t delta;  /* count kinds (and qbuf-addr): offset within the invocation */
	uint32_t line;   /* YAML line it was read from; 0 when built in memory */
};

struct chainobj_loop {
	char *name;
	uint32_t bound; /* max iterations per invocation */
	uint32_t wr_per_iteration;
	uint32_t line; /* YAML line it was read from; 0 when built in memory */
};

struct chainobj_touch {
	uint32_t region;
	uint32_t access; /* enum chainobj_access bits actually used */
	uint32_t line;   /* YAML line it was read from; 0 when built in memory */
};

/*
 * An early exit (`break`, a return inside a loop): the chain stops before
 * its last WQE, so the counters advance less than per_invocation.  The exit
 * is identified by the completion of SQ template `wqe` of queue `queue`
 * (e.g. the response WQE on conn).  Advances are per queue / per CQ, in
 * declaration order; the fall-through exit is the per_invocation values
 * and has no entry.  Count relocations of invocation k+1 then start from
 * the counters invocation k actually reached.
 */
struct chainobj_exit {
	uint32_t queue;
	uint32_t wqe;         /* the exit test (signaled) */
	uint32_t enable;      /* SEND_EN of `queue` the test retargets when the exit is taken */
	uint32_t n_queues;    /* == chainobj.n_queues */
	uint32_t *sq_advance; /* [n_queues] SQ BBs */
	uint32_t *rq_advance; /* [n_queues] receive WQEs */
	uint32_t n_cqs;       /* == chainobj.n_cqs */
	uint32_t *cq_advance; /* [n_cqs] CQEs */
	uint32_t line;        /* YAML line it was read from; 0 when built in memory */
};

/* What the verifier proved (re-checked at load time). */
struct chainobj_summary {
	bool verified;
	uint32_t wr_per_invocation; /* upper bound, loops included */
	uint32_t barriers;          /* doorbell-ordered steps (WAIT+ENABLE) */
	uint32_t n_loops;
	struct chainobj_loop *loops;
	uint32_t n_touched;
	struct chainobj_touch *touched;
};

struct chainobj {
	uint32_t schema;  /* 1, CHAINOBJ_SCHEMA_RECYCLE when a queue recycles,
	                     CHAINOBJ_SCHEMA_ASSUME when it assumes something */
	uint32_t assumes; /* CHAINOBJ_ASSUME_* bits */
	char *program;
	enum chainobj_profile profile;
	enum chainobj_rearm rearm;
	uint32_t scratch_size;     /* per-connection scratch bytes */
	uint32_t scratch_init_len; /* initial image of the scratch area (<= scratch_size), */
	uint8_t *scratch_init;     /* re-applied by the runtime at each re-arm; may be NULL */
	uint32_t response_size;    /* client response buffer bytes */
	uint32_t n_entries;
	struct chainobj_entry *entries;
	uint32_t n_regions;
	struct chainobj_region *regions;
	uint32_t n_cqs;
	struct chainobj_cq *cqs;
	uint32_t n_queues;
	struct chainobj_queue *queues;
	uint32_t n_patches;
	struct chainobj_patch *patches;
	uint32_t n_relocs;
	struct chainobj_reloc *relocs;
	uint32_t n_exits;
	struct chainobj_exit *exits;
	struct chainobj_summary summary;
};

/* Error classes the validator and reader report (diag.code). */
#define CHAINOBJ_ERRORS(X)                                                                         \
	X(OK, "ok")                                                                                \
	X(NOMEM, "out of memory")                                                                  \
	X(IO, "I/O error")                                                                         \
	X(SYNTAX, "YAML syntax error")                                                             \
	X(VERSION, "unsupported schema version")                                                   \
	X(UNKNOWN_KEY, "unknown key")                                                              \
	X(MISSING_KEY, "missing key")                                                              \
	X(DUPLICATE, "duplicate key or name")                                                      \
	X(TYPE, "wrong type")                                                                      \
	X(RANGE, "value out of range")                                                             \
	X(NAME, "unknown or invalid name")                                                         \
	X(WQE, "WQE bytes do not decode")                                                          \
	X(RING, "ring size or slot inconsistent")                                                  \
	X(SITE, "relocation site outside its WQE")                                                 \
	X(PATCH, "patch site points nowhere")                                                      \
	X(PARAM, "parameter does not match its receive template")                                  \
	X(EXIT, "early exit inconsistent with queues or CQs")                                      \
	X(OVERFLOW, "integer overflow")                                                            \
	X(CHECKSUM, "checksum mismatch")

enum chainobj_err {
#define CHAINOBJ_X_ENUM(e, text) CHAINOBJ_E_##e,
	CHAINOBJ_ERRORS(CHAINOBJ_X_ENUM)
#undef CHAINOBJ_X_ENUM
	    CHAINOBJ_E__COUNT
};

/*
 * Where and why an object was rejected: a struct diag_report (util/
 * diag_report.h) whose code is an enum chainobj_err; `line`/`col` are 1-based
 * positions in the YAML text (0 when the error comes from validating an
 * in-memory object), `path` names the field ("queues[1].sq[3].hex") and
 * `msg` is the full one-line message, "line 42: queues[1].sq[3].hex: ...".
 */

const char *chainobj_err_name(enum chainobj_err e);
const char *chainobj_patch_kind_name(enum chainobj_patch_kind k);
const char *chainobj_reloc_kind_name(enum chainobj_reloc_kind k);
enum chainobj_ref chainobj_reloc_kind_ref(enum chainobj_reloc_kind k);
/* True when the kind requires stride/delta (CHAINOBJ_COUNT_YES). */
bool chainobj_reloc_kind_is_count(enum chainobj_reloc_kind k);
enum chainobj_count_use chainobj_reloc_kind_count_use(enum chainobj_reloc_kind k);
const char *chainobj_role_name(enum chainobj_role r);
const char *chainobj_profile_name(enum chainobj_profile p);
const char *chainobj_rearm_name(enum chainobj_rearm r);
const char *chainobj_assume_name(enum chainobj_assume_bit b);

/*
 * The armed form of guarded WQE i of queue q (a NOP its guard CAS turns into
 * the real opcode): 1 with *out decoded from the template with the guard's
 * opmod and opcode swapped in; -1 when the armed bytes do not decode (then
 * only out->ctrl.opmod/opcode are set); 0 when no guard arms it.
 */
struct prism_wqe;
int chainobj_armed_decode(const struct chainobj *o, uint32_t q, uint32_t i, struct prism_wqe *out);

/* ---- building (compiler back end, tests) ------------------------------ */

/* A new empty object (schema set, relaxed profile, CPU re-post). NULL on ENOMEM. */
struct chainobj *chainobj_new(const char *program);
void chainobj_free(struct chainobj *o);

/*
 * Append helpers: each returns a pointer to the new zero-initialised element
 * (name copied), or NULL on allocation failure.  Pointers stay valid until
 * the next append to the same array.  Arrays must only grow through these
 * helpers (their capacity is implied by the count).
 */
struct chainobj_region *chainobj_add_region(struct chainobj *o, const char *name, uint64_t size,
                                            uint32_t access);
struct chainobj_cq *chainobj_add_cq(struct chainobj *o, const char *name, uint32_t entries);
struct chainobj_queue *chainobj_add_queue(struct chainobj *o, const char *name,
                                          enum chainobj_role role);
/* Copies @len bytes.  @note may be NULL. */
struct chainobj_wqe *chainobj_queue_add_wqe(struct chainobj_queue *q, enum chainobj_ring ring,
                                            uint32_t slot, const void *bytes, uint32_t len,
                                            const char *note);
struct chainobj_entry *chainobj_add_entry(struct chainobj *o, const char *name);
struct chainobj_param *chainobj_entry_add_param(struct chainobj_entry *e, const char *name);
struct chainobj_result *chainobj_entry_add_result(struct chainobj_entry *e, const char *name);
struct chainobj_patch *chainobj_add_patch(struct chainobj *o);
struct chainobj_reloc *chainobj_add_reloc(struct chainobj *o);
struct chainobj_loop *chainobj_add_loop(struct chainobj *o, const char *name);
/* Call after every queue and CQ is added: sizes the advance arrays to them (zeroed). */
struct chainobj_exit *chainobj_add_exit(struct chainobj *o);
/* Copy @len bytes as the scratch area's initial image (replaces any earlier one). */
int chainobj_set_scratch_init(struct chainobj *o, const void *bytes, uint32_t len);
struct chainobj_touch *chainobj_add_touch(struct chainobj *o);

/* Index lookups by name; -1 when absent. */
int chainobj_find_queue(const struct chainobj *o, const char *name);
int chainobj_find_cq(const struct chainobj *o, const char *name);
int chainobj_find_region(const struct chainobj *o, const char *name);

/* Template at a site's (queue, ring, wqe), or NULL when it does not exist. */
const struct chainobj_wqe *chainobj_site_wqe(const struct chainobj *o, uint32_t queue,
                                             enum chainobj_ring ring, uint32_t wqe);

/*
 * Structural validation of an in-memory object: every index in range, names
 * valid and unique, rings power-of-two and templates inside them without
 * overlap, SQ templates decode with the codec, receive templates decode,
 * sites inside their WQE, patch writers exist and have the scatter entry
 * named, parameters consistent with their receive template, sizes without
 * overflow.  Returns 0 or -EINVAL with @diag filled (diag may be NULL).
 * This is not the security verifier; it makes the object safe to walk.
 */
int chainobj_validate(const struct chainobj *o, struct diag_report *diag);

/*
 * Content checksum: FNV-1a 64 over the object's canonical YAML (written
 * without comments and without the checksum line), so it covers every
 * field, not only the WQE bytes.  0 on allocation failure (or when the
 * object does not validate).  A checksum only detects accidental or naive
 * edits; the real defence is the loader's re-verification.
 */
uint64_t chainobj_checksum(const struct chainobj *o);

/* ---- YAML ------------------------------------------------------------ */

/* Writer flags. */
#define CHAINOBJ_WRITE_NO_COMMENTS (1u << 0) /* omit the printer comments */
#define CHAINOBJ_WRITE_NO_CHECKSUM (1u << 1)

/*
 * Write @o as YAML.  Validates first (returns -EINVAL and @diag on an
 * invalid object; nothing is written then).  -EIO on a write error.
 */
int chainobj_write(const struct chainobj *o, FILE *out, unsigned flags, struct diag_report *diag);
/* Same, into a malloc'd NUL-terminated buffer (*@text, *@len). */
int chainobj_write_mem(const struct chainobj *o, unsigned flags, char **text, size_t *len,
                       struct diag_report *diag);

/*
 * Parse and validate a chain object.  On success *@out owns a new object
 * and 0 is returned; otherwise *@out is NULL, the return is -EINVAL
 * (rejected, @diag says where and why), -ENOMEM or -EIO.  Never reads past
 * @len, never crashes, frees everything on failure.
 */
int chainobj_read_mem(const void *text, size_t len, struct chainobj **out,
                      struct diag_report *diag);
/* As chainobj_read_mem, from a file; a file that cannot be opened fails
 * with -errno of the open (-ENOENT, -EACCES), a read error with -EIO. */
int chainobj_read_file(const char *path, struct chainobj **out, struct diag_report *diag);

/* ---- relocation helper ----------------------------------------------- */

/* Store the low @width bytes (1..8) of @value at @p in @order. */
void chainobj_put_uint(uint8_t *p, uint32_t width, enum chainobj_order order, uint64_t value);
uint64_t chainobj_get_uint(const uint8_t *p, uint32_t width, enum chainobj_order order);

#endif /* PRISM_CHAIN_CHAINOBJ_H */
