/* SPDX-License-Identifier: MIT */
/*
 * util/hex.h - reading bytes written as hex digits ("00ff" -> 0x00 0xff),
 * for the chain-object reader and the command-line tools.
 *
 * Owns: hex_digit and hex_decode.  Must not: allocate, or accept anything
 * but [0-9a-fA-F] as a digit (callers strip "0x" and spaces themselves).
 */
#ifndef PRISM_UTIL_HEX_H
#define PRISM_UTIL_HEX_H

#include <stddef.h>
#include <stdint.h>

/* The value of hex digit @c, or -1. */
static inline int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* @n bytes from the 2 * @n digits at @s into @out: 0, or -1 at the first
 * character that is not a hex digit (@out written up to there). */
static inline int hex_decode(const char *s, size_t n, uint8_t *out)
{
	for (size_t i = 0; i < n; i++) {
		int hi = hex_digit(s[2 * i]), lo = hi < 0 ? -1 : hex_digit(s[2 * i + 1]);

		if (lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

#endif /* PRISM_UTIL_HEX_H */
