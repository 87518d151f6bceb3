/* SPDX-License-Identifier: MIT */
/*
 * compiler/spell.c - "did you mean" suggestions (see spell.h).
 *
 * Owns: the edit distance and the closeness rule.
 * Must not: print or allocate.
 */
#include "compiler/spell.h"

#include <stdio.h>
#include <string.h>

static unsigned min3(unsigned a, unsigned b, unsigned c)
{
	unsigned m = a < b ? a : b;

	return m < c ? m : c;
}

/* Optimal string alignment distance over three rows of the usual table. */
unsigned spell_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	unsigned rows[3][SPELL_MAX_LEN + 1];
	unsigned *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

	if (n > SPELL_MAX_LEN || m > SPELL_MAX_LEN)
		return SPELL_MAX_LEN + 1;
	for (size_t j = 0; j <= m; j++)
		prev[j] = (unsigned)j;
	for (size_t i = 1; i <= n; i++) {
		cur[0] = (unsigned)i;
		for (size_t j = 1; j <= m; j++) {
			unsigned cost = a[i - 1] != b[j - 1];

			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < cur[j])
				cur[j] = prev2[j - 2] + 1;
		}
		unsigned *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[m];
}

void spell_init(struct spell *s, const char *word)
{
	*s = (struct spell){.word = word, .best = NULL, .dist = SPELL_MAX_LEN + 1};
}

void spell_consider(struct spell *s, const char *candidate)
{
	size_t n, m, longer;
	unsigned d;

	if (!s->word || !candidate || !*candidate || strcmp(s->word, candidate) == 0)
		return;
	n = strlen(s->word);
	m = strlen(candidate);
	longer = n > m ? n : m;
	/* cheap bound first: the distance is at least the difference in length */
	if ((n > m ? n - m : m - n) * 3 > longer)
		return;
	d = spell_distance(s->word, candidate);
	if (d == 0 || (size_t)d * 3 > longer || d >= s->dist)
		return;
	s->best = candidate;
	s->dist = d;
}

void spell_consider_all(struct spell *s, const char *const *candidates)
{
	for (; *candidates; candidates++)
		spell_consider(s, *candidates);
}

const char *spell_best(const struct spell *s)
{
	return s->best;
}

const char *spell_hint(const struct spell *s, char *buf, size_t size)
{
	if (!size)
		return "";
	if (s->best)
		snprintf(buf, size, "; did you mean '%s'?", s->best);
	else
		buf[0] = '\0';
	return buf;
}
