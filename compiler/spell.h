/* SPDX-License-Identifier: MIT */
/*
 * compiler/spell.h - "did you mean" suggestions for a misspelled name.
 *
 * Owns: the edit distance (optimal string alignment: insertions, deletions,
 * substitutions and swaps of adjacent characters, each costing 1) and the
 * rule for when a candidate is close enough to suggest.  Every hint of
 * prismc goes through it: subcommands, keywords and operations, names,
 * fields, types, regions.
 *
 * Must not: print or allocate; it only compares strings the caller offers.
 *
 *     struct spell s;
 *     spell_init(&s, "nxt");
 *     for (each field f) spell_consider(&s, f->name);
 *     char buf[SPELL_HINT_SIZE];
 *     diag_error(d, loc, "no field 'nxt'%s", spell_hint(&s, buf, sizeof(buf)));
 *                                     -> "no field 'nxt'; did you mean 'next'?"
 */
#ifndef PRISMC_SPELL_H
#define PRISMC_SPELL_H

#include <stddef.h>

/* Longer names get no suggestion. */
#define SPELL_MAX_LEN 64
/* Room for a hint: spell_hint's, or one naming the word and the suggestion. */
#define SPELL_HINT_SIZE (2 * SPELL_MAX_LEN + 32)

struct spell {
	const char *word; /* the misspelled name (not owned) */
	const char *best; /* the closest candidate so far, or NULL (not owned) */
	unsigned dist;    /* its distance */
};

/* Edit distance between @a and @b (SPELL_MAX_LEN + 1 when either is longer). */
unsigned spell_distance(const char *a, const char *b);

void spell_init(struct spell *s, const char *word);
/* Offer a candidate; it is kept when it is close enough to the word (at most
 * one edit per three characters of the longer name, and not the word
 * itself) and closer than every earlier one (the first wins a tie). */
void spell_consider(struct spell *s, const char *candidate);
/* Offer every string of a NULL-terminated array. */
void spell_consider_all(struct spell *s, const char *const *candidates);
/* The suggestion, or NULL when no candidate was close enough. */
const char *spell_best(const struct spell *s);
/* "; did you mean 'X'?" for the suggestion, or "" when there is none,
 * written into @buf (@size bytes); returns @buf. */
const char *spell_hint(const struct spell *s, char *buf, size_t size);

#endif /* PRISMC_SPELL_H */
