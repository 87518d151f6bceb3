/* SPDX-License-Identifier: MIT */
/*
 * wqe_error.c - codec error names and the diagnostic recorder.
 *
 * Owns: prism_wqe_strerror() and wqe_diag_fail(), the one way the encoder
 * and decoder report why a WQE is unusable.
 * Must not: print or log; callers decide what to do with a diagnostic.
 */
#include <stdarg.h>
#include <stdio.h>

#include "wqe_layout.h"

static const char *const err_names[] = {
    [-PRISM_WQE_OK] = "ok",
    [-PRISM_WQE_E_SHORT] = "buffer shorter than the WQE",
    [-PRISM_WQE_E_OPCODE] = "unknown opcode",
    [-PRISM_WQE_E_OPMOD] = "opmod invalid for the opcode",
    [-PRISM_WQE_E_DS] = "DS count inconsistent with the segments",
    [-PRISM_WQE_E_SEGMENT] = "malformed segment",
    [-PRISM_WQE_E_RANGE] = "field value does not fit its width",
    [-PRISM_WQE_E_SGE_COUNT] = "too many scatter/gather entries",
    [-PRISM_WQE_E_INLINE] = "inline length out of bounds",
    [-PRISM_WQE_E_ARG] = "invalid argument",
};

PRISM_API const char *prism_wqe_strerror(int code)
{
	if (code > 0 || (unsigned)-code >= sizeof(err_names) / sizeof(err_names[0]))
		return "unknown codec error";
	return err_names[-code];
}

int wqe_diag_fail(struct prism_wqe_diag *diag, int code, uint32_t offset, const char *fmt, ...)
{
	va_list ap;

	if (!diag)
		return code;
	diag->code = code;
	diag->offset = offset;
	va_start(ap, fmt);
	vsnprintf(diag->msg, sizeof(diag->msg), fmt, ap);
	va_end(ap);
	return code;
}
