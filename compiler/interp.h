/* SPDX-License-Identifier: MIT */
/*
 * compiler/interp.h - the reference interpreter: what a `.prism` offload
 * computes, by docs/language.md, evaluated directly from the checked AST.
 *
 * Owns: interp_run() (one invocation over region images and an argument
 * payload: the statements in order, `return` ends the invocation, lanes
 * one after the other), interp_pack_arg() (a client value into the payload
 * the way a client sends it).  It is the executable definition the
 * compiled chains are compared with (`prismc run --reference`,
 * tests/difftest).
 *
 * Must not: know about WQEs, queues, the IR or the lowering; a question the
 * language reference does not answer is decided here the way the reference
 * reads, and the reference is amended, never the lowering copied.
 */
#ifndef PRISMC_INTERP_H
#define PRISMC_INTERP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/ast.h"

/* A free list is a region of its own: a le64 cursor, then this many be64
 * slots (language.md, "Regions"; docs/ir.md, `alloc`). */
#define INTERP_FREELIST_SLOTS 4096u
#define INTERP_FREELIST_BYTES (8 + 8 * (uint64_t)INTERP_FREELIST_SLOTS)

/* A region (or a free list, which is a region named after the list) as the
 * NIC sees it: the address pointers into it hold, and its bytes. */
struct interp_region {
	const char *name;
	uint64_t addr;
	uint8_t *bytes;
	uint64_t size;
};

struct interp_env {
	const struct interp_region *regions;
	size_t nregions;
};

/* What one invocation did.  On a fault (an access outside the pointer's
 * region, an empty free list) `ok` is false and `error` says why; the
 * regions then hold what ran before the fault. */
struct interp_result {
	bool ok;
	uint32_t ret_site; /* 1-based, the `return`s in source order; 0: none ran */
	uint8_t *ret;      /* malloc'd, ret_len bytes: the value of the declared result
	                    * type (a bounded read's bytes past its length are zero) */
	size_t ret_len;
	char error[192];
};

/* The payload of @off (off->args_size bytes, zeroed by the caller) gets
 * parameter @p: integers from @u64 in the parameter's byte order, a
 * pointer as the address of byte @u64 of its region (as a client sends an
 * offset and the runtime adds the base), aggregates from @bytes (@len must
 * be the parameter's size).  0, or -1 with @err filled. */
int interp_pack_arg(const struct ast_param *p, uint64_t u64, const uint8_t *bytes, size_t len,
                    const struct interp_env *env, uint8_t *payload, char *err, size_t errlen);

/* Run @off of the checked @prog once.  @args: off->args_size bytes.
 * Returns 0 (see res->ok for a fault) or -1 when out of memory. */
int interp_run(const struct ast_program *prog, const struct ast_offload *off, const uint8_t *args,
               const struct interp_env *env, struct interp_result *res);

void interp_result_free(struct interp_result *res);

#endif /* PRISMC_INTERP_H */
