/* SPDX-License-Identifier: MIT */
/*
 * util/size.h - the one size syntax of prism: `.prism` integer literals
 * (`region heap size 16 MiB`) and prismd's configuration (`size: 16M`)
 * accept exactly the same spellings, through this parser.
 *
 *   size   = number [ blanks ] [ unit ]
 *   number = decimal | "0x" hex | "0b" binary     ('_' may separate digits)
 *   unit   = K | KiB | M | MiB | G | GiB | T | TiB (powers of 1024)
 *
 * Owns: core_size_parse() (inline: no object file).  Must not: print, or accept a sign, a fraction
 * or a value past 64 bits.
 */
#ifndef CORE_SIZE_H
#define CORE_SIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The units, for messages. */
#define CORE_SIZE_UNITS "K, KiB, M, MiB, G, GiB, T or TiB"

enum core_size_status {
	CORE_SIZE_OK = 0,
	CORE_SIZE_NODIGITS, /* no digit where the number should be */
	CORE_SIZE_SYNTAX,   /* something else than a unit after the number */
	CORE_SIZE_RANGE,    /* more than 64 bits */
};

/*
 * Inline, so that the lexer (linked after libprism in test programs) and
 * prismd share one definition without a link-order dependency.
 */
static inline int core_size_digit(char c, unsigned base)
{
	int v = -1;

	if (c >= '0' && c <= '9')
		v = c - '0';
	else if (c >= 'a' && c <= 'f')
		v = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		v = c - 'A' + 10;
	return v >= 0 && (unsigned)v < base ? v : -1;
}

/* Parse all @len bytes of @s into *@out; an enum core_size_status. */
static inline enum core_size_status core_size_parse(const char *s, size_t len, uint64_t *out)
{
	static const struct {
		const char *name;
		unsigned shift;
	} core_size_units[] = {
	    {"K", 10}, {"KiB", 10}, {"M", 20}, {"MiB", 20},
	    {"G", 30}, {"GiB", 30}, {"T", 40}, {"TiB", 40},
	};
	unsigned base = 10;
	size_t i = 0;
	uint64_t v = 0;
	bool any = false;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, i = 2;
	else if (len > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
		base = 2, i = 2;
	for (; i < len; i++) {
		int dv;

		if (s[i] == '_')
			continue;
		dv = core_size_digit(s[i], base);
		if (dv < 0)
			break;
		if (v > (UINT64_MAX - (uint64_t)dv) / base)
			return CORE_SIZE_RANGE;
		v = v * base + (uint64_t)dv;
		any = true;
	}
	if (!any)
		return CORE_SIZE_NODIGITS;
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
		i++;
	if (i < len) {
		size_t k, n = len - i;

		for (k = 0; k < sizeof(core_size_units) / sizeof(core_size_units[0]); k++)
			if (strlen(core_size_units[k].name) == n &&
			    !memcmp(s + i, core_size_units[k].name, n))
				break;
		if (k == sizeof(core_size_units) / sizeof(core_size_units[0]))
			return CORE_SIZE_SYNTAX;
		if (v > (UINT64_MAX >> core_size_units[k].shift))
			return CORE_SIZE_RANGE;
		v <<= core_size_units[k].shift;
	}
	*out = v;
	return CORE_SIZE_OK;
}

#endif /* CORE_SIZE_H */
