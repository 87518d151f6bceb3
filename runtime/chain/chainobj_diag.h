/* SPDX-License-Identifier: MIT */
/*
 * chain/chainobj_diag.h - internal: filling struct diag_report.
 *
 * Owns: the one formatter of chain-object error messages, shared by the
 * validator and the reader, so every rejection reads the same way:
 * "line 42: queues[1].sq[3].hex: ...".  Must not: print or allocate.
 */
#ifndef PRISM_CHAIN_CHAINOBJ_DIAG_H
#define PRISM_CHAIN_CHAINOBJ_DIAG_H

#include "chain/chainobj.h"

/*
 * Record an error in @d (may be NULL) unless one is already recorded
 * (d->code != OK): the first error wins.  Returns -EINVAL, or -ENOMEM /
 * -EIO for those kinds, so callers can `return chainobj_diag_set(...)`.
 */
int chainobj_diag_set(struct diag_report *d, enum chainobj_err kind, unsigned line, unsigned col,
                      const char *path, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Give a recorded error without a line (an object-level field) line @line. */
void chainobj_diag_set_line(struct diag_report *d, unsigned line, unsigned col);

/* Reset @d to "no error". */
void chainobj_diag_clear(struct diag_report *d);

/* Is @s a valid identifier ([A-Za-z_][A-Za-z0-9_.-]*, at most CHAINOBJ_NAME_MAX)? */
bool chainobj_name_ok(const char *s);
/* Is @s a valid note (printable ASCII, at most CHAINOBJ_NOTE_MAX bytes)? */
bool chainobj_note_ok(const char *s);

#define CHAINOBJ_NOTE_MAX 200u

#endif /* PRISM_CHAIN_CHAINOBJ_DIAG_H */
