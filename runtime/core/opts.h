/* SPDX-License-Identifier: MIT */
/*
 * core/opts.h - validation of size-prefixed options structs (PRISM_OPTS).
 *
 * Owns: core_opts_check(): an options pointer may be NULL (all defaults);
 * otherwise its sz must cover at least the sz field, and any bytes the
 * caller's struct has beyond what this library knows must be zero.
 * CORE_OPT(opts, field, default) reads a field only when the caller's
 * struct is large enough to have it.
 * Must not: log (callers name the object that failed).
 */
#ifndef CORE_OPTS_H
#define CORE_OPTS_H

#include <stddef.h>
#include <stdint.h>

#include <prism/prism.h>

static inline int core_opts_check(const void *opts, size_t lib_sz)
{
	const size_t *szp = opts;
	const uint8_t *p = opts;

	if (!opts)
		return 0;
	if (*szp < sizeof(size_t))
		return -PRISM_E_OPTS;
	for (size_t i = lib_sz; i < *szp; i++)
		if (p[i])
			return -PRISM_E_OPTS;
	return 0;
}

/*
 * The library's known size is where its last field ends (not sizeof, which
 * includes tail padding a newer caller may have filled with a new field).
 */
#define CORE_OPTS_CHECK(opts, last)                                                                \
	core_opts_check((opts), offsetof(__typeof__(*(opts)), last) + sizeof((opts)->last))

/* Field @f of @o when present in the caller's struct and nonzero, else @def. */
#define CORE_OPT(o, f, def)                                                                        \
	(((o) && (o)->sz >= offsetof(__typeof__(*(o)), f) + sizeof((o)->f) && (o)->f) ? (o)->f     \
	                                                                              : (def))

#endif /* CORE_OPTS_H */
