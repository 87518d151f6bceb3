/* SPDX-License-Identifier: MIT */
/*
 * wqe_lean.h - the send-WQE decode the software NIC runs on every WQE it
 * fetches (internal to the library: not installed, not exported).
 *
 * Owns: wqe_decode_lean().  It is prism_wqe_decode() without the
 * diagnostic: the same decoder body (wqe_decode_body.h), so the same
 * checks, the same fields written (everything "valid after decode" in
 * <prism/wqe.h>, which observers and cost models read) and the same return
 * value; inline, so that the engine's decode of a head WQE has the body in
 * line.  Callers that need to say why a WQE was rejected (dumps, the
 * validator, tools) use prism_wqe_decode().
 *
 * Must not: be used where @buf or @w may be NULL.
 */
#ifndef PRISM_WQE_LEAN_H
#define PRISM_WQE_LEAN_H

#include <stdint.h>

#include <prism/wqe.h>

#include "wqe/wqe_decode_body.h"

/* Decodes the WQE at @buf (@len readable bytes): ds * 16, or a negative
 * enum prism_wqe_err exactly where prism_wqe_decode() returns it. */
static inline int wqe_decode_lean(const uint8_t *buf, uint32_t len, struct prism_wqe *w)
{
	return wqe_decode_body(buf, len, w, NULL);
}

#endif /* PRISM_WQE_LEAN_H */
