/* SPDX-License-Identifier: MIT */
/*
 * compiler/ir.h - the chain IR: one node = one WQE.
 *
 * Owns: the node, queue, value and edge types every back-end pass works on,
 * and the small builders the lowering files use.  A program is a set of
 * queues (ctl, conn, one lane queue per parallel lane); each queue holds its
 * nodes in execution order.  Node fields are symbolic (struct ir_val) until
 * layout gives every node a slot and emit turns values into template bytes
 * plus relocations.
 *
 * Three kinds of edges (docs/ir.md):
 *   - patch   (A writes bytes of node B: READ / RECV scatter into B, CAS or
 *              WRITE on B).  Derived from the node fields, never stored twice:
 *              ir_patch records are appended by ir_scatter_into / ir_cas_on.
 *   - data    (B reads memory A writes; B must run after A completed).
 *   - control (B is an effect guarded by A: a CAS arms B's ctrl word).  A
 *              control edge is also a patch edge; the flag marks it for the
 *              verifier and the dump.
 *
 * Must not: encode WQE bytes (emit.c does that through prism/wqe.h), know
 * the AST (lower_*.c translate it), or print.
 */
#ifndef PRISMC_IR_H
#define PRISMC_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <prism/wqe.h>

#include "compiler/diag.h"

#define IR_MAX_SGE 16u
#define IR_RECV    -1 /* writer id of the connection's RECV template */

/* Target firmware profile (docs/contracts.md contract 3). */
enum ir_profile {
	IR_PROFILE_RELAXED, /* ctrl index / QPN bytes may carry operands (RedN) */
	IR_PROFILE_STRICT,  /* stock firmware: index and QPN must be exact */
};

/*
 * Symbolic field values: X(ENUM, "name").  `a`/`b` name a region, queue or
 * node as the comment says; `k` is a constant or byte offset.
 */
#define IR_VAL_KINDS(X)                                                                            \
	X(NONE, "none")               /* field unused (zero) */                                    \
	X(CONST, "const")             /* k */                                                      \
	X(RUNTIME, "runtime")         /* written at run time by a patch; k = template */           \
	X(REGION_ADDR, "region")      /* region a, + k */                                          \
	X(REGION_LKEY, "region.lkey") /* region a */                                               \
	X(REGION_RKEY, "region.rkey") /* region a */                                               \
	X(SCRATCH_ADDR, "scratch")    /* per-connection scratch + k */                             \
	X(SCRATCH_LKEY, "scratch.lkey")                                                            \
	X(SCRATCH_RKEY, "scratch.rkey")                                                            \
	X(NODE_ADDR, "node")      /* byte k of node a in its queue buffer */                       \
	X(QBUF_LKEY, "qbuf.lkey") /* queue a */                                                    \
	X(QBUF_RKEY, "qbuf.rkey") /* queue a */                                                    \
	X(RESP_ADDR, "resp")      /* client response buffer + k */                                 \
	X(RESP_RKEY, "resp.rkey")                                                                  \
	X(QPN, "qpn")                 /* queue a */                                                \
	X(SEND_CQN, "scqn")           /* send CQ of queue a */                                     \
	X(RECV_CQN, "rcqn")           /* receive CQ of queue a */                                  \
	X(ENABLE_THROUGH, "enable")   /* SQ counter just after node a (exclusive end) */           \
	X(SEND_CQE, "scqe")           /* 0-based number of node a's CQE in its send CQ (WAIT) */   \
	X(RECV_CQE, "rcqe")           /* receive CQE number k of queue a, 0-based (WAIT) */        \
	X(CTRL_WORD, "ctrl")          /* le64 of node a's ctrl bytes 0-7 with opcode k */          \
	X(QUEUE_ENTRY, "entry")       /* SQ counter just after queue a's first segment */          \
	X(RECV_CQE_ADDR, "rcqe.addr") /* byte k of queue a's receive CQE of this invocation */     \
	X(RECV_CQ_LKEY, "rcq.lkey")   /* lkey of queue a's receive CQ ring (local read) */

enum ir_val_kind {
#define IR_X_ENUM(e, name) IR_V_##e,
	IR_VAL_KINDS(IR_X_ENUM)
#undef IR_X_ENUM
	    IR_V__COUNT
};

struct ir_val {
	enum ir_val_kind kind;
	int32_t a;
	uint64_t k;
	/* CTRL_WORD: bytes (bit i = ctrl byte i) filled at run time with an
	 * operand; the template holds zero there. */
	uint8_t rt_bytes;
};

struct ir_sge {
	struct ir_val addr;
	uint32_t len;
	struct ir_val key;
};

enum ir_qrole {
	IR_Q_CTL,  /* unmanaged: host doorbell; only WAIT / SEND_EN, never patched */
	IR_Q_CONN, /* client-facing RC QP: RECV template, managed response WQEs */
	IR_Q_LANE, /* managed loopback worker (lane 0 = main chain) */
};

/* Why a node exists (dump, verifier messages, golden tests). */
#define IR_ROLES(X)                                                                                \
	X(DATA, "data")         /* a copy or atomic of the program */                              \
	X(GUARD, "guard")       /* CAS that arms a guarded node */                                 \
	X(EFFECT, "effect")     /* guarded: NOP until armed */                                     \
	X(BARRIER_WAIT, "wait") /* inserted by sched_barrier */                                    \
	X(BARRIER_EN, "enable") /* inserted by sched_barrier */                                    \
	X(RESPONSE, "response") /* final notification to the client */                             \
	X(EXIT, "exit")         /* loop continuation that a break retargets */

enum ir_role {
#define IR_X_ENUM(e, name) IR_ROLE_##e,
	IR_ROLES(IR_X_ENUM)
#undef IR_X_ENUM
	    IR_ROLE__COUNT
};

struct ir_node {
	int id;
	int queue;
	enum ir_role role;
	uint8_t op;      /* enum prism_opcode when armed / as executed */
	uint8_t tmpl_op; /* opcode in the template (NOP for a guarded effect) */
	uint8_t opmod;
	uint8_t fence; /* enum prism_fence */
	bool signaled; /* CE = CQ update */
	uint32_t imm;
	struct ir_val raddr, rkey;
	/* atomics: size 8 (plain) or 4/8/16/32 (masked); the masked 16/32-byte
	 * operands are byte strings in *_bytes (wire order). */
	uint8_t asize;
	struct ir_val swap, compare, swap_mask, compare_mask;
	uint8_t swap_bytes[32], compare_bytes[32], swap_mask_bytes[32], compare_mask_bytes[32];
	/* 16-byte masked CAS retargeting a SEND_EN (loop exit): the new
	 * index / QPN words at swap bytes 8-11 / 12-15 */
	struct ir_val swap_idx, swap_obj;
	/* 16-byte masked CAS comparing a SEND_EN's index (a recycled loop's
	 * bound test): the index word at compare bytes 8-11 */
	struct ir_val cmp_idx;
	/* a NOP spanning this many octowords (one WQE pads a lap to its ring) */
	uint8_t nop_ds;
	/* WAIT / SEND_EN */
	struct ir_val we_index, we_obj;
	/* wait-on-data (WAIT opmod 1): the watched big-endian 64-bit word, and
	 * the condition (enum prism_wod_cond) on it under wod_mask */
	struct ir_val wod_addr, wod_key;
	uint64_t wod_value, wod_mask;
	uint8_t wod_cond;
	/* gather / scatter list, or inline data */
	uint8_t nsge;
	struct ir_sge sge[IR_MAX_SGE];
	bool is_inline;
	uint32_t inline_len;
	uint8_t inline_data[64];
	/* bytes of this node's ctrl segment that carry a runtime operand
	 * (relaxed if: index / QPN bytes) */
	uint8_t ctrl_rt_bytes;
	/* provenance */
	struct src_loc loc;
	const char *what; /* "if", "while#0 iter 2", ... (static string or arena) */
	int loop;         /* loop id or -1 */
	int iter;         /* iteration of an unrolled loop or -1 */
	/* placement (sched / layout) */
	int pos;          /* index in its queue */
	uint32_t slot;    /* first BB, relative to the invocation base */
	uint32_t bbs;     /* basic blocks */
	uint32_t ds;      /* octowords */
	uint32_t count;   /* completions of its queue up to it, when signaled (1-based) */
	uint32_t exit_id; /* EXIT / RESPONSE nodes: exit number + 1, else 0 */
	/* conn nodes: lane-0 data node count when appended; lane 0 enables
	 * this node right before its anchor-th data node (or at its end) */
	int anchor;
	int seq; /* index among the data nodes of its queue (sched) */
};

/* Node A rewrites bytes [off, off+len) of node `target` (docs/ir.md). */
enum ir_patch_kind {
	IR_PATCH_RECV_SCATTER,
	IR_PATCH_READ_SCATTER,
	IR_PATCH_ATOMIC_RESULT, /* an atomic's returned value scattered into a WQE */
	IR_PATCH_CAS,           /* a CAS (plain or masked) on the target's bytes */
	IR_PATCH_WRITE,
};

struct ir_patch {
	enum ir_patch_kind kind;
	int writer; /* node id, or IR_RECV */
	int writer_sge;
	int target;
	uint32_t off, len;
	bool control;   /* a guard arming an effect */
	uint64_t taint; /* client parameters whose bytes this patch carries */
};

/* Data dependency: `to` must not start before `from` completed. */
struct ir_dep {
	int from, to;
};

/* A RECV scatter entry: payload bytes [msg_off, msg_off+len) -> dst. */
struct ir_recv_sge {
	uint32_t msg_off, len;
	struct ir_val dst; /* NODE_ADDR or SCRATCH_ADDR */
	int param;         /* parameter index */
	uint32_t copy;     /* which copy of the parameter */
};

struct ir_queue {
	char name[16];
	enum ir_qrole role;
	unsigned lane;
	bool managed;
	int *nodes; /* node ids in execution order */
	unsigned n, cap;
	bool no_entry; /* not enabled by ctl: a loop's exits enable it */
	bool halts;    /* hosts a loop with exits: may stop before its end */
	int cont;      /* halts: the continuation queue its exits enable */
	/* a recycled loop's lap queue (lower_recycle.c): barriers placed by the
	 * lowering, ring = one lap padded with NOPs (layout.c), re-run on the
	 * NIC up to lap_bound times per invocation */
	bool lap;
	int lap_counter;    /* node whose WAIT/SEND_EN index grows by the ring per lap */
	uint32_t lap_bound; /* most laps one invocation runs */
	int entry_end;      /* sched: node through which its first segment runs */
	/* layout results */
	uint32_t bbs;      /* SQ advance per invocation */
	uint32_t signaled; /* CQEs per invocation on its send CQ */
	uint32_t ring;     /* SQ ring size (BBs, power of two) */
};

/* A region the program declared. */
struct ir_region {
	const char *name;
	uint64_t size;
	bool writable;
	uint32_t access_used; /* chainobj access bits the program uses */
};

/* A client parameter (payload layout decided by lower_params). */
struct ir_param {
	const char *name;
	uint32_t width;
	bool big_endian;
	int region; /* pointer parameters: region it points into, else -1 */
	uint32_t msg_off;
	uint32_t copies;
	uint64_t uses; /* fields it must reach */
};

struct ir_loop {
	int id;
	uint32_t bound;
	uint32_t wr_per_iter;
	struct src_loc loc;
};

/* An early exit (break): which response ends the invocation there. */
struct ir_exit {
	int response; /* node id of the WQE whose completion identifies the exit */
	int halt;     /* node id of the last WQE its queue runs (the exit enable) */
	int loop, iter;
};

struct ir_prog {
	const char *name;
	struct src_loc loc; /* the offload's (compile_ir's diagnostics point there) */
	enum ir_profile profile;
	struct ir_node *nodes;
	unsigned n_nodes, cap_nodes;
	struct ir_queue *queues;
	unsigned n_queues, cap_queues;
	struct ir_patch *patches;
	unsigned n_patches, cap_patches;
	struct ir_dep *deps;
	unsigned n_deps, cap_deps;
	struct ir_recv_sge recv[IR_MAX_SGE];
	unsigned n_recv;
	struct ir_region *regions;
	unsigned n_regions;
	struct ir_param *params;
	unsigned n_params;
	struct ir_loop *loops;
	unsigned n_loops, cap_loops;
	struct ir_exit *exits;
	unsigned n_exits, cap_exits;
	uint32_t msg_size;     /* client payload bytes */
	uint32_t scratch_size; /* per-connection scratch bytes */
	uint8_t *scratch_init; /* initial scratch image (re-applied at each re-arm) */
	uint32_t scratch_init_len;
	uint32_t resp_size; /* client response buffer bytes */
	/* where every `return` puts its value in the response buffer: each
	 * response WRITE is shifted so that its value lands at result_off
	 * (lower_effects.c); result_width is the widest value */
	uint32_t result_off, result_width;
	bool result_le;    /* the declared result is a little-endian integer */
	uint32_t barriers; /* WAIT+ENABLE steps (sched_barrier) */
	int q_ctl, q_conn; /* queue indices */
	int q_main;        /* queue whose end enables the responses (lane 0, or the
	                    * continuation queue after its last loop) */
	bool oom;          /* sticky allocation failure */
	/* `assume fenced_enable;`: a fenced SEND_EN may stand in for WAIT +
	 * SEND_EN (sched_barrier.c) and recycled laps are allowed */
	bool assume_fenced_enable;
	/* the entry WAIT is followed by the request gate (sched_barrier.c);
	 * off only where the compiler is told so (--no-request-gate) */
	bool request_gate;
};

/* ---- lifetime ------------------------------------------------------------ */

/* New program with queues "ctl" and "conn" and lane 0 ("w0"). NULL on ENOMEM. */
struct ir_prog *ir_prog_new(const char *name, enum ir_profile profile);
void ir_prog_free(struct ir_prog *p);

/* ---- builders (sticky error: p->oom; each returns -1 / NULL on failure) -- */

int ir_add_queue(struct ir_prog *p, const char *name, enum ir_qrole role, unsigned lane,
                 bool managed);
/* Lane queue of parallel lane `lane` (created on first use). */
int ir_lane_queue(struct ir_prog *p, unsigned lane);
/* Append a zeroed node with opcode `op` at the end of queue `q`. */
struct ir_node *ir_append(struct ir_prog *p, int q, uint8_t op, enum ir_role role);
/* Insert a node before position `pos` of queue `q` (sched uses it). */
struct ir_node *ir_insert(struct ir_prog *p, int q, unsigned pos, uint8_t op, enum ir_role role);
static inline struct ir_node *ir_node(struct ir_prog *p, int id)
{
	return &p->nodes[id];
}
int ir_add_patch(struct ir_prog *p, const struct ir_patch *pt);
int ir_add_dep(struct ir_prog *p, int from, int to);
int ir_add_region(struct ir_prog *p, const char *name, uint64_t size, bool writable);
int ir_add_loop(struct ir_prog *p, uint32_t bound, struct src_loc loc);
int ir_add_exit(struct ir_prog *p, int response, int halt, int loop, int iter);
/* Reserve `len` bytes of scratch aligned to `align`; returns the offset. */
uint32_t ir_scratch_alloc(struct ir_prog *p, uint32_t len, uint32_t align);
/* Set the initial image of scratch bytes [off, off+len) (zero elsewhere). */
int ir_scratch_init(struct ir_prog *p, uint32_t off, const uint8_t *bytes, uint32_t len);

/* Value constructors. */
static inline struct ir_val ir_v(enum ir_val_kind kind, int32_t a, uint64_t k)
{
	struct ir_val v = {.kind = kind, .a = a, .k = k, .rt_bytes = 0};
	return v;
}
#define IR_CONST(k) ir_v(IR_V_CONST, 0, (k))
#define IR_NONE     ir_v(IR_V_NONE, 0, 0)

/* Add a scatter/gather entry to node n. Returns its index or -1. */
int ir_sge_add(struct ir_prog *p, struct ir_node *n, struct ir_val addr, uint32_t len,
               struct ir_val key);

/*
 * Make node `writer` (a READ, or an atomic's result) scatter `len` bytes into
 * node `target` at byte `off` of its WQE: adds the scatter entry (lkey of the
 * target's queue buffer) and the patch record.  Returns the sge index or -1.
 */
int ir_scatter_into(struct ir_prog *p, int writer, int target, uint32_t off, uint32_t len,
                    uint64_t taint);
/* Add a RECV scatter entry: `len` payload bytes of parameter `param` into dst. */
int ir_recv_into(struct ir_prog *p, int param, uint32_t copy, uint32_t len, struct ir_val dst,
                 int target, uint32_t off, uint64_t taint);

/* ---- queries ---------------------------------------------------------------- */

const char *ir_val_kind_name(enum ir_val_kind k);
const char *ir_role_name(enum ir_role r);
/* Is `n` written at run time by any patch? */
bool ir_node_patched(const struct ir_prog *p, int id);
/* Count nodes by class over the whole program (copy/atomic/ordering). */
void ir_count_classes(const struct ir_prog *p, unsigned *copy, unsigned *atomic,
                      unsigned *ordering);
/* Render the IR as text (tests, `prismc compile --emit-ir`). Returns bytes needed. */
size_t ir_snprint(const struct ir_prog *p, char *out, size_t cap);

#endif /* PRISMC_IR_H */
