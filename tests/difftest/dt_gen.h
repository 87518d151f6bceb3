/* SPDX-License-Identifier: MIT */
/*
 * tests/difftest/dt_gen.h - random well-typed .prism programs for the
 * differential test, with random region images and arguments.
 *
 * Owns: the construct list (an X-macro: id, name, the known compiler bug
 * that excludes it by default), the program tree the generator builds and
 * the reducer edits, printing it as source, and the image / argument
 * specifications (`prismc run --set` syntax, run_image.h), so that any
 * program can be rerun by hand.
 *
 * Every program uses one fixed prelude (struct rec, regions m and w, free
 * list fl, offload f with one parameter of each scalar type and three
 * pointers) and a random body.
 */
#ifndef PRISM_TESTS_DT_GEN_H
#define PRISM_TESTS_DT_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * X(ID, name, known): `known` names the known miscompilation whose
 * programs are left out unless asked for (the difftest tool's --with); NULL
 * for constructs the compiler gets right or rejects (W1-W8 of the language
 * audit and N1-N4, N6 found by this test were fixed; N5, lanes after a
 * write, is rejected now).  None is left out today.
 */
#define DT_CONSTRUCTS(X)                                                                           \
	X(STORE_SAME, "store, same byte order", NULL)                                              \
	X(STORE_CROSS, "store across byte orders", NULL)                                           \
	X(STORE_CONST, "store of a constant", NULL)                                                \
	X(STORE_PTR, "store of a pointer", NULL)                                                   \
	X(STORE_LOADED, "store of a value loaded in the same statement", NULL)                     \
	X(STORE_ARITH, "store of run-time + - & | ^", NULL)                                        \
	X(LET_COPY, "temporary copied and stored", NULL)                                           \
	X(LET_ARM, "the walk pointer assigned in an if arm, used there and after", NULL)           \
	X(LET_MERGE, "a local assigned in an if arm (or both), read after it / in its else", NULL) \
	X(LET_COND_SELF, "a local its if's condition reads, assigned in the arm", NULL)            \
	X(LET_MERGE_LOOP, "a local assigned under an if in a walk, read later and after", NULL)    \
	X(READ_AFTER_ATOMIC, "a read after an atomic inside an if arm", NULL)                      \
	X(COND_CMP, "condition: == != < > <= >=", NULL)                                            \
	X(COND_AND, "condition: &&", NULL)                                                         \
	X(COND_OR, "condition: ||", NULL)                                                          \
	X(COND_NOT, "condition: !", NULL)                                                          \
	X(COND_CAS, "condition: cas", NULL)                                                        \
	X(COND_AGG, "condition: 16-byte aggregate ==", NULL)                                       \
	X(CAS_ELSE, "cas where an earlier condition decides", NULL)                                \
	X(IF_ELSE, "if with else", NULL)                                                           \
	X(ELSE_IF, "else-if chain", NULL)                                                          \
	X(ELSE_IF_NE, "else-if chain with != in its conditions", NULL)                             \
	X(IF_NESTED, "nested if", NULL)                                                            \
	X(WALK_BE, "pointer walk, be64 next pointers", NULL)                                       \
	X(WALK_LE, "pointer walk, le64 next pointers", NULL)                                       \
	X(WALK_BREAK, "walk with its exit as a break", NULL)                                       \
	X(WALK_RECYCLE, "recycled walk", NULL)                                                     \
	X(WALK_THEN_STORE, "store through the walk's pointer after the walk", NULL)                \
	X(WALK_TWICE, "a second walk from where the first stopped", NULL)                          \
	X(LOOP_AFTER_WALK, "a loop over the node a walk found", NULL)                              \
	X(LOOP_VALUE, "a walk whose condition is a local the body reloads", NULL)                  \
	X(LOOP_PLAIN, "loop over memory its body leaves alone", NULL)                              \
	X(LOOP_MUTATE, "loop whose body changes what its condition reads", NULL)                   \
	X(LOOP_UNDER_IF, "loop as the last statement of an if arm", NULL)                          \
	X(ATOMIC_FA, "fetch_add", NULL)                                                            \
	X(ATOMIC_FA_OLD, "fetch_add's old value used", NULL)                                       \
	X(ATOMIC_CAS, "cas as a statement", NULL)                                                  \
	X(ATOMIC_CAS_GT, "cas_gt / cas_lt", NULL)                                                  \
	X(ALLOC, "alloc", NULL)                                                                    \
	X(ALLOC_GUARDED, "alloc inside an if", NULL)                                               \
	X(RET_TAIL, "return as the last statement", NULL)                                          \
	X(RET_ARM, "return in an if arm", NULL)                                                    \
	X(RET_EARLY, "return with statements after it", NULL)                                      \
	X(RET_MIXED, "returns of fields at different offsets", NULL)                               \
	X(RET_LOOP, "return inside an unrolled loop", NULL)                                        \
	X(RET_SWAP, "return of a field in the other byte order", NULL)                             \
	X(RET_SLICE, "return of a bounded read", NULL)                                             \
	X(RET_SLICE_PTR, "return of a bounded read through a stored pointer", NULL)                \
	X(RET_SLICE_MASK, "bounded read of a length `n & M`", NULL)                                \
	X(RET_VOID, "return;", NULL)                                                               \
	X(PARALLEL, "parallel lanes", NULL)                                                        \
	X(PAR_AFTER_EFFECTS, "parallel lanes after statements", NULL)

enum dt_construct {
#define DT_X_ENUM(id, name, known) DT_##id,
	DT_CONSTRUCTS(DT_X_ENUM)
#undef DT_X_ENUM
	    DT_NCONSTRUCTS
};

struct dt_construct_info {
	const char *id, *name, *known;
};
extern const struct dt_construct_info dt_constructs[DT_NCONSTRUCTS];

typedef uint64_t dt_mask; /* bit (1 << enum dt_construct) */

/* The default set: every construct but those of a known bug. */
dt_mask dt_default_mask(void);
/* Parse a construct id ("STORE_CROSS") or a known-bug name ("W1", all its
 * constructs) into *@bits; false if it is neither. */
bool dt_parse_construct(const char *s, dt_mask *bits);

struct dt_prog;

/* A program with its image and arguments, from @seed, using only the
 * constructs in @allowed.  NULL when out of memory. */
struct dt_prog *dt_gen(uint64_t seed, dt_mask allowed);
void dt_prog_free(struct dt_prog *p);

/* Source text (malloc'd). */
char *dt_prog_source(const struct dt_prog *p);
/* Constructs the program uses. */
dt_mask dt_prog_constructs(const struct dt_prog *p);

/* The inputs: `--set` specifications for the images and the arguments
 * (name, integer; pointers are offsets in their region). */
struct dt_arg {
	const char *name;
	uint64_t value;
};
size_t dt_prog_sets(const struct dt_prog *p, const char *const **sets);
size_t dt_prog_args(const struct dt_prog *p, const struct dt_arg **args);

/* Reduction: the number of edits the program's tree offers, and a copy
 * with edit @k applied (delete a statement, keep one arm of an if, a loop's
 * body or a lane, drop an else, keep one operand of && / || / !).  NULL
 * when out of memory or @k is out of range. */
size_t dt_prog_edits(const struct dt_prog *p);
/* True if no statement follows one that may return (on any path). */
bool dt_prog_tail_returns(const struct dt_prog *p);
struct dt_prog *dt_prog_edit(const struct dt_prog *p, size_t k);

#endif
