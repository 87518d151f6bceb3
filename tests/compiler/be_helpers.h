/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/be_helpers.h - compiling snippets in back-end tests.
 *
 * Owns: be_compile() (source text -> verified chain object, or the rendered
 * diagnostics), be_ops() (a queue's template opcodes as one string, the
 * golden-test format: "READ CAS WAIT EN"), be_queue().
 */
#ifndef PRISM_TESTS_BE_HELPERS_H
#define PRISM_TESTS_BE_HELPERS_H

#include "compiler/compile.h"
#include "runtime/chain/chainobj.h"

/* Compile `src` (entry NULL = first offload).  Returns the object or NULL;
 * *diag receives the rendered diagnostics (malloc'ed) when diag != NULL. */
struct chainobj *be_compile(const char *src, const char *entry, enum ir_profile profile,
                            char **diag);

/* Template opcodes of queue `name` separated by spaces; a guarded WQE shows
 * as "NOP>WRITE_IMM" (template > armed form is not known from bytes, so it
 * prints the template opcode: "NOP").  Static buffer. */
const char *be_ops(const struct chainobj *o, const char *name);

int be_queue(const struct chainobj *o, const char *name);

/* Number of SQ WQEs over every queue. */
unsigned be_total_wqes(const struct chainobj *o);

#endif
