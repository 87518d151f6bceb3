/* SPDX-License-Identifier: MIT */
/*
 * wqe_lean.h - the send-WQE decode the software NIC runs on every WQE it
 * fetches (internal to the library: not installed, not exported).
 *
 * Owns: wqe_decode_engine(), prism_wqe_decode() without the diagnostic and
 * without the fields the engine never reads: the same decoder body
 * (wqe_decode_body.h), so the same checks in the same order and the same
 * return value; inline, so that the engine's decode of a head WQE has the
 * body in line (wqe_decode_fetched: of a fetched copy, whose length is
 * the WQE's own).  Where a cost model or an observer is handed the decoded
 * WQE, the engine uses prism_wqe_decode() (every field "valid after
 * decode" in <prism/wqe.h>), as do callers that need to say why a WQE was
 * rejected (dumps, the validator, tools).
 *
 * Must not: be used where @buf or @w may be NULL.
 */
#ifndef PRISM_WQE_LEAN_H
#define PRISM_WQE_LEAN_H

#include <stdint.h>
#include <string.h>

#include <prism/wqe.h>

#include "wqe/wqe_decode_body.h"

/* Decodes the WQE at @buf (@len readable bytes): ds * 16, or a negative
 * enum prism_wqe_err exactly where prism_wqe_decode() returns it, with the
 * same fields written less those the engine never reads (see
 * wqe_engine_rest), which keep whatever they held. */
static inline __attribute__((always_inline)) int wqe_decode_engine(const uint8_t *buf, uint32_t len,
                                                                   struct prism_wqe *w)
{
	return wqe_decode_body(buf, len, w, true, NULL);
}

/* wqe_decode_engine of a fetched copy: @buf holds at least the bytes its
 * own DS (byte 7) says, ds * 16, as the software NIC's fetch copies them;
 * the same verdict and fields as wqe_decode_engine(buf, ds * 16, w) (or 16
 * for DS 0).  The length is no separate input: it is the WQE's own, given
 * as the most any DS can say (63 * 16), so the body's checks of DS against
 * it hold by construction and fold away (DS bits 7:6 and DS 0 are
 * rejected before they are reached). */
static inline __attribute__((always_inline)) int wqe_decode_fetched(const uint8_t *buf,
                                                                    struct prism_wqe *w)
{
	return wqe_decode_body(buf, PRISM_WQE_MAX_BYTES, w, true, NULL);
}

/* Copies into @w, from @full, the fields wqe_decode_engine leaves alone:
 * the control segment's wqe_index, qpn, ds, signature, dci_stream and imm, the
 * remote address segment's reserved word and the has_atomic / has_wait_en /
 * has_wod flags (the engine tells the shape by the opcode).  After it a
 * WQE that wqe_decode_engine decoded equals, byte for byte, what
 * prism_wqe_decode made of the same bytes (tests/unit/test_wqe_codec.c and
 * tests/fuzz/fuzz_wqe_decode.c hold it so); nothing in runtime/sim reads
 * these fields from the head WQE.  Byte copies: a field that neither decode
 * wrote (a WQE rejected early) may hold any byte, not a valid bool. */
static inline void wqe_engine_rest(struct prism_wqe *w, const struct prism_wqe *full)
{
	w->ctrl.wqe_index = full->ctrl.wqe_index;
	w->ctrl.qpn = full->ctrl.qpn;
	w->ctrl.ds = full->ctrl.ds;
	w->ctrl.imm = full->ctrl.imm;
	w->ctrl.signature = full->ctrl.signature;
	w->ctrl.dci_stream = full->ctrl.dci_stream;
	w->raddr.reserved = full->raddr.reserved;
	memcpy(&w->has_atomic, &full->has_atomic, sizeof(w->has_atomic));
	memcpy(&w->has_wait_en, &full->has_wait_en, sizeof(w->has_wait_en));
	memcpy(&w->has_wod, &full->has_wod, sizeof(w->has_wod));
}

#endif /* PRISM_WQE_LEAN_H */
