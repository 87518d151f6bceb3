/* SPDX-License-Identifier: MIT */
/*
 * wqe_decode.c - send-WQE bytes -> struct prism_wqe, with validation: the
 * codec's decode entry point.
 *
 * Owns: prism_wqe_decode(), the decoder body (wqe_decode_body.h)
 * instantiated with a diagnostic: why a WQE is rejected is recorded.  The
 * software NIC's decode, wqe_decode_lean() (wqe_lean.h), is the same body
 * without one.
 *
 * Must not: execute anything, or accept a WQE it cannot re-encode.
 */
#include "wqe_decode_body.h"

PRISM_API int prism_wqe_decode(const void *buf, size_t len, struct prism_wqe *w,
                               struct prism_wqe_diag *diag)
{
	if (!buf || !w)
		return wqe_diag_fail(diag, PRISM_WQE_E_ARG, 0, "NULL buffer or WQE");
	return wqe_decode_body(buf, len, w, diag);
}
