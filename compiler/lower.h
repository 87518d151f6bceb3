/* SPDX-License-Identifier: MIT */
/*
 * compiler/lower.h - AST -> chain IR, and the state the lowering files share.
 *
 * Files: lower.c (driver, statements, parallel lanes), lower_mem.c (values,
 * READs, indirection, delivering bytes into WQE fields), lower_cond.c (`if`
 * by CAS on a later WQE's control segment), lower_order.c (carry terms,
 * exact guards), lower_dnf.c (`!`, nested `||`, any `else`: disjunctive
 * normal form), lower_effects.c (return, stores, atomics), lower_atomic.c
 * (cas, cas_gt / cas_lt, alloc), lower_loop.c (unrolled loops).
 *
 * Must not: place barriers or compute slots (sched_barrier.c, layout.c).
 */
#ifndef PRISMC_LOWER_H
#define PRISMC_LOWER_H

#include "compiler/ast.h"
#include "compiler/diag.h"
#include "compiler/ir.h"

/* Slots of a free list's region (8-byte cursor, then 8-byte slots). */
#define LOWER_FREELIST_SLOTS 4096u
#define LOWER_RECV_RESERVE   4u /* RECV entries kept for staging when the first try runs out */

/* Lower offload `off` of a checked program.  Returns the IR, or NULL with
 * errors in `d` (or on allocation failure, with d->oom). */
struct ir_prog *lower_offload(struct diag_ctx *d, const struct ast_program *prog,
                              const struct ast_offload *off, enum ir_profile profile);

/* ---- internal ----------------------------------------------------------------- */

/* A run-time value the lowering can deliver into a WQE field. */
enum lval_kind {
	LV_PARAM,   /* client payload bytes: param, byte poff */
	LV_MEM,     /* bytes at offset `off` of what READ `read` fetches */
	LV_CONST,   /* k */
	LV_PHI,     /* after a loop: the value at whichever exit was taken (each
	             * exit's writer patches the same sink; later ones never run) */
	LV_SCRATCH, /* bytes in scratch at `off` (an atomic's returned value),
	             * written by node `field_writer` */
	LV_FIELD,   /* bytes that landed in a WQE field: node `read`, byte `off`,
	             * written by node `field_writer` (copied by a loopback READ, so
	             * every use sees the same snapshot) */
};

struct lval {
	enum lval_kind kind;
	int param;
	uint32_t poff;
	int read; /* index into ctx->reads */
	uint32_t off;
	uint32_t width;
	bool be;    /* stored big-endian (or a byte string) */
	int region; /* pointer values: region pointed into; LV_MEM: region read */
	uint64_t k;
	uint64_t taint;
	int phi; /* LV_PHI: index into ctx->phis */
	int field_writer;
};

/* One pick of a READ: bytes [off, off+width) of the data land at node
 * `target` byte `toff` (reversed: byte j to toff+width-1-j). */
struct lpick {
	uint32_t off, width;
	int target; /* node id, or -1: scratch at toff */
	uint32_t toff;
	bool reverse;
	uint64_t taint;
};

struct lread {
	int node;
	int lane;
	unsigned epoch;   /* its region's write epoch when it was created */
	struct lval base; /* the pointer it dereferences (for a second READ) */
	/* identity of the pointer it dereferences */
	enum lval_kind base_kind;
	int base_param;
	uint32_t base_poff;
	int base_read;
	uint32_t base_off;
	struct lpick *picks;
	unsigned n, cap;
};

enum lcond_kind {
	LC_EQ, /* arm iff lhs == rhs: NOP template, CAS swaps in the opcode */
	LC_NE, /* arm iff lhs != rhs: live template, CAS swaps in a NOP */
	LC_GT, /* arm iff lhs > rhs (unsigned): NOT, add, masked CAS on the carry */
	LC_GE, /* arm iff lhs >= rhs: the carry of rhs + ~lhs clear */
};

/* One carry term: a scratch pair S where X' + ~Y' carries iff X' > Y'
 * (lower_order.c).  Shared by every guard of one `if` (both arms). */
struct lterm {
	bool done;
	int lane;
	uint32_t s;     /* scratch pair S */
	int fa;         /* the add: S is final when it completed */
	int carry_read; /* relaxed form: READ of S[1..7] (one byte per guarded WQE), or -1 */
	bool flip;      /* a constant X' moved to the complemented side: the carry
	                 * means "not X' > Y'" */
	bool constant;  /* known at compile time: X' > Y' == kval, nothing computed */
	bool kval;
	uint64_t taint;
};

struct lorder {
	struct lterm t[2]; /* order: t[0]; equality: t[0] = lhs > rhs, t[1] = rhs > lhs */
};

/* An arm of an `if / else if / else` chain (relaxed `==` chains): whether
 * it ran is its first guarded effect's opcode byte, which later arms copy
 * into their own control index bytes (lower_cond.c). */
struct lstatus {
	int node;  /* first guarded effect of the arm */
	int guard; /* the CAS that arms it */
	uint8_t op;
};

struct lchain {
	struct lstatus prev[2]; /* earlier arms (ctrl index bytes 1 and 2) */
	unsigned n_prev;
	struct lstatus self;
	bool have_self;
	bool final_else; /* the closing `else`: runs unless an earlier arm ran */
};

struct lcond {
	const struct ast_expr *lhs, *rhs; /* lowered again per guard */
	enum lcond_kind kind;
	struct lorder *ord;           /* LC_GT / LC_GE: shared carry (NULL: compute per guard) */
	uint8_t slot;                 /* LC_GT / LC_GE: which term of `ord` (an `==`'s second
	                               * term, b > a, is slot 1) */
	const struct lval *vals;      /* [lhs, rhs] already lowered (cas_gt/cas_lt), or NULL */
	uint64_t ymask;               /* order terms: compare Y' & ymask (0: no mask) */
	struct lchain *chain;         /* arm of an else-if chain, or NULL */
	const struct lcond *and_next; /* conjunction: this clause and the next (&&, nested if) */
	const struct lcond *or_next;  /* disjunction: this conjunction or the next (||) */
	uint32_t width;
	struct src_loc loc;
};

struct lphi {
	struct lval *in;
	bool be; /* the byte order a use of it sees (its lval's `be`) */
	/* per input: the enable of the exit before it (its bytes must land
	 * after that enable, where only a lane that did not exit runs), or -1
	 * for the first exit; and the enable of its own exit (or the loop's
	 * fall-through enable), which must follow the landing */
	int *after, *before;
	unsigned n, cap;
	/* uses outside the lane (responses on conn) that wait for a use inside
	 * it, where the value then lands (lower_mem.c, LV_PHI) */
	struct lphi_use {
		int target;
		uint32_t toff;
		bool reverse;
		uint64_t taint;
	} waiting[4];
	unsigned n_waiting;
	/* where its first use placed it (later uses copy from there), or -1 */
	int landed_target;
	uint32_t landed_toff;
	bool landed_reverse;
	/* the READ that copied those bytes to scratch at landed_scratch before
	 * the field was rewritten in place (a store's field offset), or -1:
	 * later uses copy from scratch */
	int landed_copy;
	uint32_t landed_scratch;
};

/* The loop being unrolled. */
struct lloop {
	int id;
	unsigned iter;
	int cont_q;      /* continuation queue its exits enable */
	int fall_enable; /* the fall-through's enable of cont_q, or -1 */
	/* a loop ending an `if` arm: the complement of the arm's condition,
	 * which retargets the first exit (the loop is skipped), or NULL */
	const struct lcond *skip;
	unsigned body_depth; /* guard depth of its body (assignments there are its own) */
	/* per exit, the locals' values there (nlocals each) */
	struct lval *snap;
	bool *snap_set;
	unsigned n_snap, cap_snap;
};

/* A client parameter staged through scratch (lower_mem.c). */
struct lstage {
	int param;
	uint32_t width, copies, off;
	uint32_t cap;  /* copies the payload may carry for it */
	int recv;      /* its RECV entry */
	int node;      /* the READ that fans the copies out now */
	uint32_t uses; /* copies that READ scatters */
};

/*
 * The guard stack.  Each effect the lowering emits (a store, an atomic, a
 * response) is guarded by the condition on top of the stack (lower_guard);
 * an empty stack or a NULL top means unguarded.  A construct that lowers a
 * block under a condition pushes that condition, lowers the block and pops
 * it again, whether the block lowered or not:
 *
 *   if (!lower_guard_push(c, &cd, lower_dnf_top(c), loc))
 *           return false;
 *   bool ok = lower_block(c, body);
 *   lower_guard_pop(c, &cd);
 *
 * `cond` is an lcond chain (clauses by and_next, disjuncts by or_next),
 * NULL for an unguarded region (a loop's body: the loop as a whole is
 * skipped); `dnf` is the same condition as lower_dnf.c built it (an `if`
 * nested in it conjoins with it), or NULL.
 */
#define LOWER_GUARD_DEPTH 64u
/* comparison operands of the `if`s being lowered at once (nested) */
#define LOWER_CAPTURES 128u
/* locals one comparison operand may read with their values saved */
#define LOWER_CAP_SAVED 2u

struct lguard_frame {
	const struct lcond *cond;
	const struct ldnf *dnf;
	unsigned serial; /* which push (a later frame at the same depth differs) */
	/* an arm whose other arm always returns: whatever follows runs only
	 * under this guard (or not at all), so it marks no local (llocal_scope) */
	bool cont;
	/* a local its condition reads, assigned under it since (set_local):
	 * no effect may be guarded by it any more (lower_guard), or NULL */
	const char *stale;
};

/*
 * A local's scope for conditional assignments.  `x = e` is no WQE: x names
 * e's value from then on (lower.c, set_local), whether or not the guard in
 * force at the assignment holds.  So an assignment under a guard pushed
 * after x's declaration (an `if` arm; a loop's body is the loop's business:
 * its exits snapshot the locals) marks x, and a read of x where that guard
 * is no longer in force (after the `if`, in its `else`, in the next
 * iteration) is rejected at the read: the NIC has no value to give it.
 */
struct llocal_scope {
	unsigned base;     /* guard depth at its declaration */
	int mark;          /* depth of the guard of its last conditional assignment, or -1 */
	unsigned serial;   /* that guard's push */
	struct src_loc at; /* that assignment */
};

/*
 * A local's home.  A local read where the condition of its last assignment
 * may not hold (above) lives in a cell of the connection's scratch: every
 * assignment of it also WRITEs the value there, guarded like any effect of
 * the assignment's place (an unguarded WRITE before the `if`, a guarded one
 * in the arm), and a read where the value is not known at compile time
 * reads the cell (an LV_SCRATCH), after its latest WRITE:
 *
 *   lane:  W0 = WRITE inline [a.x] -> H        (let v = a.x;)
 *          guard(C) ─► W1 = WRITE inline [b.y] -> H   (if (C) { v = b.y; })
 *          READ H ──scatter──► the use's field       (c.z = v;)
 *
 * Which locals get one is found by lowering: a read that needs it asks for
 * it (home_wanted) and lower_offload lowers the offload again with it.
 */
struct lhome {
	bool have;      /* its cell is allocated (at its first WRITE) */
	uint32_t off;   /* the cell in scratch */
	int writer;     /* the latest WRITE of it */
	uint64_t taint; /* of every value written there */
};

/* A statement the lowering made up (lower.c: statements after one that may
 * return go into its arms). */
struct lsynth {
	struct lsynth *next;
	struct ast_stmt s;
};

struct lower_ctx {
	struct ir_prog *p;
	struct diag_ctx *d;
	const struct ast_program *prog;
	const struct ast_offload *off;
	struct src_loc at;          /* the statement being lowered (lower_error's fallback) */
	unsigned recv_reserve;      /* RECV entries kept for later parameters (lower_mem.c) */
	bool quiet;                 /* a trial lowering: lower_error reports nothing */
	bool flushing;              /* lower_flush_phis: land at the use given */
	struct lorder cas_terms[8]; /* masked cas conditions' marker terms (lower_cond.c) */
	unsigned n_cas_terms;
	/* the last relaxed `==` guard (lower_cond.c, guard_eq): its CAS returns
	 * the old control word, whose QPN bytes hold the memory-side operand, so
	 * a `break` under the same `if` tests that word (lower_loop.c) */
	struct lguard_rec {
		const struct lcond *cond; /* the condition it tested, or NULL */
		int guard;                /* the CAS */
		struct lval cmp;          /* the operand in its compare field */
		uint64_t taint;           /* of the operand in the control word */
	} eq_guard;
	int lane;         /* queue lowering appends to */
	bool in_parallel; /* conn anchors resolved at the end of the block */
	int *deferred;    /* conn nodes waiting for an anchor */
	unsigned n_deferred, cap_deferred;
	struct lread *reads;
	unsigned n_reads, cap_reads;
	/* per region, bumped after every effect that writes it (a store, an
	 * atomic; lower_mem_written): a READ made before is not shared with, nor
	 * copied for, a read after, which must see the memory as it is then (a
	 * loop condition over memory the body changes) */
	unsigned *mem_epoch;
	int wrote_region; /* the region the effect being lowered writes, or -1 */
	/* the comparison operands of the `if`s being lowered (lower_if) and the
	 * value each one's first guard read: an `if`'s condition is tested once,
	 * before either arm runs, so a guard lowered after an arm wrote that
	 * memory re-reads it right after that first READ (lower_cond_value) */
	struct lcapture {
		const struct ast_expr *e;
		bool have; /* v holds the first guard's bytes (an LV_MEM) */
		int lane;
		struct lval v;
		/* the locals e reads, as they were when the `if` began: saved
		 * when an arm assigns one (lower_assign_local), used whenever a
		 * guard lowers e again (lower_cond_operand) */
		unsigned n_saved;
		struct lsaved {
			unsigned local;
			struct lval v;
		} saved[LOWER_CAP_SAVED];
	} caps[LOWER_CAPTURES];
	unsigned n_caps;
	/* the capture whose operand is being lowered (its saved locals), or NULL */
	const struct lcapture *snap_view;
	/* the guard stack (lower_guard_push): every effect is guarded by the
	 * top frame's condition */
	struct lguard_frame guards[LOWER_GUARD_DEPTH];
	unsigned n_guards;
	unsigned guard_serial;
	struct llocal_scope *scopes; /* [nlocals] */
	const bool *homed;           /* [nlocals]: locals with a home (lhome) */
	uint8_t *home_wanted;        /* [nlocals]: 1 a read asked for a home, 2 assigned
	                              * under a condition (lower_offload) */
	struct lhome *homes;         /* [nlocals] */
	/* arm bodies lower_then_rest made whose other arm always returns */
	const struct ast_stmt *cont_arms[LOWER_GUARD_DEPTH];
	unsigned n_cont_arms;
	/* while lowering the arm of a one-comparison `if` without `else`: its
	 * condition and the complement (a loop may end that arm) */
	const struct lcond *arm_cond, *arm_neg;
	unsigned ret_sites;
	/* the source position of each return site (site k at sites[k - 1]): one
	 * site per `return` written, however often it is lowered (unrolled loops,
	 * statements copied into both arms) */
	struct src_loc *sites;
	unsigned sites_cap;
	struct lsynth *synth;
	/* each response of a value and where the value sits in what it WRITEs */
	struct lresult {
		int node;
		uint32_t off, width;
	} * results;
	unsigned n_results, cap_results;
	bool last_was_return; /* the offload ends with an unconditional return */
	uint32_t junk_off, junk_len;
	bool failed;
	/* current value of each `let` (index = ast_local.index) */
	struct lval *env;
	bool *env_set;
	unsigned nlocals;
	struct lphi *phis;
	unsigned n_phis, cap_phis;
	struct lloop *loop; /* innermost loop being unrolled, or NULL */
	struct lstage stages[12];
	unsigned n_stages;
};

/* lower_mem.c */
bool lower_value(struct lower_ctx *c, const struct ast_expr *e, struct lval *out);
/* Address (pointer value) and offset of a MEMORY place expression. */
bool lower_place(struct lower_ctx *c, const struct ast_expr *e, struct lval *ptr, uint32_t *off);
/* What delivering a value into a WQE field did (lower_deliver). */
enum ldeliv_kind {
	LD_FAILED,  /* an error was reported (or memory ran out) */
	LD_NODE,    /* node `writer` writes the bytes: whatever reads them waits for it */
	LD_RECV,    /* the connection's RECV scatters them, before any queue runs */
	LD_SEVERAL, /* written by one writer per loop exit, or landed later from
	             * where another use puts them: no single writer to wait for */
	LD_CONST,   /* a constant: nothing delivered, the caller writes it into the
	             * template (not every field supports that) */
};

struct ldeliv {
	enum ldeliv_kind kind;
	int writer; /* LD_NODE: the writer node; else -1 */
};

/* Bytes land at run time (anything but a failure or a constant). */
static inline bool lower_delivered(struct ldeliv d)
{
	return d.kind == LD_NODE || d.kind == LD_RECV || d.kind == LD_SEVERAL;
}

/* Deliver `v` into node `target` bytes [toff, toff+width), byte-reversed
 * when `reverse`. */
struct ldeliv lower_deliver(struct lower_ctx *c, const struct lval *v, int target, uint32_t toff,
                            bool reverse);
/* lower_deliver, and node `reader` runs after the bytes' single writer
 * (if any); false unless bytes land at run time. */
bool lower_deliver_for(struct lower_ctx *c, const struct lval *v, int target, uint32_t toff,
                       bool reverse, int reader);
/* READ of the bytes at `ptr` + [0, off+width): the lval of those bytes. */
bool lower_mem_lval(struct lower_ctx *c, const struct lval *ptr, uint32_t off, uint32_t width,
                    struct lval *out);
/* Node `reader` runs after every writer of `target` bytes [off, off+len)
 * known so far (patches, and READ picks still to be scattered). */
void lower_after_writers(struct lower_ctx *c, int target, uint32_t off, uint32_t len, int reader);
/* The effect just lowered wrote its region (lower_target_addr noted it):
 * later reads of that region read again. */
void lower_mem_written(struct lower_ctx *c);
/* Would reading LV_MEM v's bytes again now read other memory (its region,
 * or that of the READ of its pointer, was written since it was read)? */
bool lower_mem_stale(const struct lower_ctx *c, const struct lval *v);
/* v's bytes as its READ saw them: a second READ of the same pointer placed
 * right after that READ (so before every effect lowered since).  False with
 * an error when it cannot be placed there. */
bool lower_mem_reread(struct lower_ctx *c, const struct lval *v, struct src_loc loc,
                      struct lval *out);
/* A client parameter's bytes in scratch (one RECV entry): an LV_SCRATCH
 * whose parts (off + k) can be delivered one by one. */
bool lower_param_in_scratch(struct lower_ctx *c, const struct lval *v, struct lval *out);
/* Build every READ's scatter list (end of lowering). */
bool lower_finish_reads(struct lower_ctx *c);
/* Land every loop value whose uses all lie outside the lane (end of the
 * offload's body). */
bool lower_flush_phis(struct lower_ctx *c);
uint32_t lower_field_off(uint8_t op, enum prism_wqe_field f, uint8_t asize);

/* lower_cond.c */
bool lower_if(struct lower_ctx *c, const struct ast_stmt *s);
/* Operand i (0 = lhs, 1 = rhs) of the active condition. */
bool lower_cond_value(struct lower_ctx *c, int i, struct lval *out);
/* A guard atomic appended to the lane, with a scratch result buffer. */
struct ir_node *lower_guard_node(struct lower_ctx *c, uint8_t op, uint8_t asize,
                                 struct ir_val raddr, struct ir_val rkey, const char *what,
                                 uint32_t result_len);
bool lower_cas_patch(struct ir_prog *p, int writer, int target, uint32_t off, uint32_t len,
                     bool control, uint64_t taint);

/* else-if chains: copy an earlier arm's opcode byte into X's ctrl `byte`
 * (1 or 2); record the current arm's first guarded effect. */
int lower_status_read(struct lower_ctx *c, const struct lstatus *st, int x, unsigned byte);
/* May a further clause be conjoined with `cd` (no chain arm, no disjunction)? */
bool lower_conjoinable(const struct lcond *cd);
/* A comparison as a condition (kind and operands), or a cas(...) used as
 * one (its CAS is lowered here; vals[2] receive its operands). */
bool lower_cond_operands(struct lower_ctx *c, const struct ast_expr *e, struct lcond *cd);
bool lower_cas_condition(struct lower_ctx *c, const struct ast_expr *e, struct lcond *cd,
                         struct lval *vals);

/* lower_dnf.c: `!`, `||` below the top level, and the `else` of any
 * condition, as a disjunction of conjunctions of carry terms. */
bool lower_dnf_wanted(const struct lower_ctx *c, const struct ast_stmt *s);
bool lower_if_dnf(struct lower_ctx *c, const struct ast_stmt *s);
void lower_record_status(struct lower_ctx *c, int x, int guard);
/* Guard X under a condition that always holds (lower_cond.c). */
bool lower_guard_always(struct lower_ctx *c, int x);

/* lower_order.c: order comparisons (relaxed carry form) and every
 * condition in the exact form (strict profile, wide equality) */
bool lower_guard_order(struct lower_ctx *c, int x);
/* Term t of the active condition (lower_cond_top): is X' > Y' for operands
 * vals[xi], vals[yi], in a fresh scratch pair (t->flip: a constant X' was
 * moved, the carry means the opposite; t->constant: known, t->kval). */
bool lower_order_term(struct lower_ctx *c, const struct lval *vals, int xi, int yi,
                      struct lterm *t);
/* Guard effect node `x` with the active condition (no-op without one). */
bool lower_guard(struct lower_ctx *c, int x);

/* lower_atomic.c */
bool lower_cas_order(struct lower_ctx *c, const struct ast_expr *e);
bool lower_cas_stmt(struct lower_ctx *c, const struct ast_expr *e);
/* The CAS of `e` (a cas call): its node id (or -1); *result_off receives
 * the scratch offset of its returned value. */
int lower_cas_node(struct lower_ctx *c, const struct ast_expr *e, uint32_t *result_off);
bool lower_alloc(struct lower_ctx *c, const struct ast_expr *e, struct lval *out);
/* v & m as a big-endian 8-byte scratch value (one 16-byte masked CAS). */
bool lower_mask_value(struct lower_ctx *c, const struct lval *v, uint64_t m, struct lval *out);

/* lower_arith.c: run-time `+ - & | ^` of integers of up to 8 bytes into a
 * scratch cell (16-byte masked atomics) */
bool lower_arith(struct lower_ctx *c, const struct ast_expr *e, struct lval *out);

/* lower_effects.c */
/* The site number of the `return` written at `loc`: one per return in the
 * source, however often the lowering emits it (0: out of memory).  lower.c
 * numbers every return in source order before lowering. */
uint32_t lower_return_site(struct lower_ctx *c, struct src_loc loc);
bool lower_target_addr(struct lower_ctx *c, const struct ast_expr *t, int node, uint8_t op);
bool lower_return(struct lower_ctx *c, const struct ast_stmt *s);
bool lower_store(struct lower_ctx *c, const struct ast_stmt *s);
bool lower_call_stmt(struct lower_ctx *c, const struct ast_expr *e);
bool lower_final_response(struct lower_ctx *c);
/* fetch_add: the node (or -1), the old value's scratch offset in *result;
 * as a value (`let old = fetch_add(..)`): the old value in scratch. */
int lower_fetch_add(struct lower_ctx *c, const struct ast_expr *e, uint32_t *result);
bool lower_fetch_add_value(struct lower_ctx *c, const struct ast_expr *e, struct lval *out);
void lower_anchor(struct lower_ctx *c, int conn_node);

/* lower_loop.c */
bool lower_while(struct lower_ctx *c, const struct ast_stmt *s);
bool lower_break(struct lower_ctx *c, const struct ast_stmt *s);
/* Leave the loop being unrolled under the active condition (`break`, or
 * `what` = "return" after its response). */
bool lower_leave_loop(struct lower_ctx *c, struct src_loc loc, const char *what);
/* Before the join: a loop's continuation that ended empty gets one NOP, the
 * WQE the join waits for (its lane is done: every exit enables it). */
bool lower_join_loop_lanes(struct lower_ctx *c);
/* After lowering: reject a value that leaves a loop's queue for a queue its
 * exits do not lead to (it could wait for a writer that never runs). */
bool lower_check_loop_escapes(struct lower_ctx *c);

/* lower_recycle.c: a loop re-run by the NIC from one lap (RedN 3.4) */
bool lower_recycle(struct lower_ctx *c, const struct ast_stmt *s);

/* lower.c */
/* Make `cd` (with its DNF form `dnf`) the active guard; false (reported at
 * `loc`) when conditions nest deeper than LOWER_GUARD_DEPTH. */
bool lower_guard_push(struct lower_ctx *c, const struct lcond *cd, const struct ldnf *dnf,
                      struct src_loc loc);
/* Undo the matching push (`cd`: what it pushed, checked). */
void lower_guard_pop(struct lower_ctx *c, const struct lcond *cd);

static inline const struct lcond *lower_cond_top(const struct lower_ctx *c)
{
	return c->n_guards ? c->guards[c->n_guards - 1].cond : NULL;
}

static inline const struct ldnf *lower_dnf_top(const struct lower_ctx *c)
{
	return c->n_guards ? c->guards[c->n_guards - 1].dnf : NULL;
}

bool lower_block(struct lower_ctx *c, const struct ast_stmt *s);
/* Whether expression @e reads local @l (conservatively: calls and slices
 * count as reading it). */
bool lower_mentions_local(const struct ast_expr *e, const struct ast_local *l);
/* The value local @l holds where it is read now: the value of its last
 * assignment where that assignment's condition holds (llocal_scope), else
 * its home's cell (lhome).  False (reported at @loc) before any assignment;
 * false, asking for a home, when it has none. */
bool lower_local_value(struct lower_ctx *c, const struct ast_local *l, struct src_loc loc,
                       struct lval *out);
/* Local @index has a home: it now reads its cell (after a loop, whose
 * exits left it different values: every assignment wrote the cell). */
bool lower_local_to_home(struct lower_ctx *c, unsigned index);
/* Local @l now holds @v (assigned at @loc): its home is written, and the
 * conditions being lowered that read it keep its earlier value. */
bool lower_assign_local(struct lower_ctx *c, const struct ast_local *l, const struct lval *v,
                        struct src_loc loc);
/* A comparison operand of an `if` (or of a loop test): lowered with the
 * locals as they were when its `if` began (lower_assign_local saved them). */
bool lower_cond_operand(struct lower_ctx *c, const struct ast_expr *e, struct lval *out);
void lower_error(struct lower_ctx *c, struct src_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* PRISMC_LOWER_H */
