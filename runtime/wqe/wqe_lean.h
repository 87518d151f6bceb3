/* SPDX-License-Identifier: MIT */
/*
 * wqe_lean.h - the send-WQE decode the software NIC runs on every WQE it
 * fetches (internal to the library: not installed, not exported).
 *
 * Owns: the declaration of wqe_decode_lean().  It is prism_wqe_decode()
 * without the diagnostic: the same decoder body (wqe_decode.c), so the
 * same checks, the same fields written (everything "valid after decode" in
 * <prism/wqe.h>, which observers and cost models read) and the same return
 * value.  Callers that need to say why a WQE was rejected (dumps, the
 * validator, tools) use prism_wqe_decode().
 *
 * Must not: be used where @buf or @w may be NULL.
 */
#ifndef PRISM_WQE_LEAN_H
#define PRISM_WQE_LEAN_H

#include <stdint.h>

#include <prism/wqe.h>

/* Decodes the WQE at @buf (@len readable bytes): ds * 16, or a negative
 * enum prism_wqe_err exactly where prism_wqe_decode() returns it. */
int wqe_decode_lean(const uint8_t *buf, uint32_t len, struct prism_wqe *w);

#endif /* PRISM_WQE_LEAN_H */
