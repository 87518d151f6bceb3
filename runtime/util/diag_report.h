/* SPDX-License-Identifier: MIT */
/*
 * util/diag_report.h - the one shape of an error report inside the runtime:
 * what failed (a code), where (a line and column of a text, a byte offset
 * of a binary input, the field's path) and a one-line message naming the
 * object and the reason.
 *
 * Owns: struct diag_report and its fill function.  The chain-object reader
 * and validator, the cost-profile loader, the packet codec and the net
 * module all report through it; each adds only how it names a place.
 *
 * Must not: print or log (the caller decides where a report goes), or
 * allocate.
 */
#ifndef PRISM_UTIL_DIAG_REPORT_H
#define PRISM_UTIL_DIAG_REPORT_H

#include <stdarg.h>
#include <stdint.h>

struct diag_report {
	int code;        /* 0: no error; else the module's code (negative errno, or its enum) */
	unsigned line;   /* 1-based line of a text input; 0 when not tied to one */
	unsigned col;    /* 1-based column */
	uint32_t offset; /* byte offset in a binary input (a packet, a WQE) */
	char path[128];  /* the field concerned ("queues[1].sq[3].hex"), or "" */
	char msg[256];   /* the whole message: "line 42: queues[1].sq[3].hex: ..." */
};

/*
 * Record @code and the message (printf @fmt) in @d, which may be NULL; the
 * place fields are left as they are (set them before or after).  A message
 * longer than msg ends in '~'.  Returns @code, so that callers can write
 * `return diag_report_set(d, -EINVAL, ...)`.
 */
__attribute__((format(printf, 3, 4))) int diag_report_set(struct diag_report *d, int code,
                                                          const char *fmt, ...);
__attribute__((format(printf, 3, 0))) int diag_report_vset(struct diag_report *d, int code,
                                                           const char *fmt, va_list ap);
/* Back to "no error": every field 0, both strings empty. */
void diag_report_clear(struct diag_report *d);

#endif /* PRISM_UTIL_DIAG_REPORT_H */
