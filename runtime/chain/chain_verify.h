/* SPDX-License-Identifier: MIT */
/*
 * chain/chain_verify.h - the security and safety verifier of a chain object.
 *
 * Owns: the checks that need only the object (no source): every WQE that is
 * rewritten at run time sits in a managed queue and is enabled only after all
 * its writers completed (no prefetch hazard); client bytes land only in
 * fields a program may let a client fill, and a client-controlled address is
 * used only with the key of its declared region; WR budget and ring
 * capacity.  prismc runs it on every compile, the loader on every load
 * (contracts 4 and 5 of docs/contracts.md).  It also computes the summary the object
 * carries (WR count, barriers, regions touched).
 *
 * Must not: print, allocate beyond its call, or trust the object's own
 * summary.
 */
#ifndef PRISM_CHAIN_CHAIN_VERIFY_H
#define PRISM_CHAIN_CHAIN_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "chain/chainobj.h"

/* WQEs one invocation may execute (a recycled loop counts every lap; its
 * 16-bit SEND_EN index caps laps x ring below 65536 anyway) */
#define CHAIN_VERIFY_WR_BUDGET 65536u

/* Reasons: X(ENUM, "text"). */
#define CHAIN_VERIFY_ERRORS(X)                                                                     \
	X(OK, "ok")                                                                                \
	X(STRUCTURE, "object is structurally invalid")                                             \
	X(UNMANAGED_PATCH, "a WQE rewritten at run time is in an unmanaged queue")                 \
	X(PREFETCH, "a rewritten WQE may be enabled before its writer completed")                  \
	X(NO_ENABLE, "a WQE in a managed queue is never enabled")                                  \
	X(CLIENT_FIELD, "client bytes reach a field they may not fill")                            \
	X(CLIENT_KEY, "a client-controlled address is used with a key other than its region's")    \
	X(BUDGET, "WR budget per invocation exceeded")                                             \
	X(RING, "ring capacity exceeded")                                                          \
	X(HIDDEN_PATCH, "a scatter writes WQE memory without a declared patch site")               \
	X(RECV_TARGET, "a receive scatter lands elsewhere than its declared site or region")       \
	X(LAP, "a recycled loop's lap is unbounded or rewrites a WQE it may have fetched")

enum chain_verify_err {
#define CHAIN_VERIFY_X_ENUM(e, text) CHAIN_VERIFY_E_##e,
	CHAIN_VERIFY_ERRORS(CHAIN_VERIFY_X_ENUM)
#undef CHAIN_VERIFY_X_ENUM
	    CHAIN_VERIFY_E__COUNT
};

struct chain_verify_report {
	enum chain_verify_err err;
	char msg[256]; /* "queue w0 wqe 3 (ATOMIC_CS): ..." */
	/* computed summary */
	uint32_t wr_per_invocation;
	uint32_t barriers;        /* SEND_EN WQEs (doorbell-ordered steps) */
	uint32_t regions_touched; /* bit i: region i */
};

const char *chain_verify_err_name(enum chain_verify_err e);

struct prism_wqe;
/* May client-controlled bytes fill [off, off+len) of a WQE shaped like @w
 * (as it executes) under @o's profile?  Address fields, atomic operands,
 * WRITE inline data, and (relaxed) the control segment's QPN bytes.  The
 * compiler applies the same rule to values it stages through scratch. */
bool chain_verify_client_field_ok(const struct chainobj *o, const struct prism_wqe *w, uint32_t off,
                                  uint32_t len);

/*
 * chain_gate.c: does every invocation of @o wait for a real request?  True
 * when each WAIT on the conn queue's receive CQ is followed directly by
 * the request gate on that WAIT's CQE (chainobj.h, CHAINOBJ_GATE_*), so a
 * flushed receive (a QP in error) starts nothing.  False, with the reason
 * in @msg (may be NULL), otherwise.
 */
bool chain_verify_request_gate(const struct chainobj *o, char *msg, size_t cap);

/* Verify @o.  Returns 0, or -EINVAL with @rep describing the first problem. */
int chain_verify(const struct chainobj *o, uint32_t wr_budget, struct chain_verify_report *rep);

/* The NIC behaviour @o's WQEs rely on (CHAINOBJ_ASSUME_* bits), read from
 * the templates, whatever the object declares: a fenced SEND_EN / RECV_EN
 * (fenced-enable), a managed send queue holding a WQE of more than one
 * 64-byte block (send-en-bb-units: its SEND_EN indices count blocks). */
uint32_t chain_verify_assumes(const struct chainobj *o);

/* Verify and write the summary into @o (compiler side). */
int chain_verify_fill_summary(struct chainobj *o, uint32_t wr_budget,
                              struct chain_verify_report *rep);

#endif /* PRISM_CHAIN_CHAIN_VERIFY_H */
