/* SPDX-License-Identifier: MIT */
/*
 * util/array.h - the one way a growable array gets room: ARRAY_RESERVE.
 *
 * Owns: capacity doubling with overflow checks (element count times size,
 * and the capacity's own type), zeroing of the new tail, and leaving the
 * array as it was when memory runs out.  Used by the compiler, the runtime,
 * the software NIC, the tools and the tests.
 *
 * Must not: be installed (internal), or know what the elements are.
 */
#ifndef PRISM_UTIL_ARRAY_H
#define PRISM_UTIL_ARRAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_MIN_CAP 8u

/*
 * Room for at least @need elements of @size bytes in @arr, which has *@cap
 * (at most @max_cap): the capacity doubles from ARRAY_MIN_CAP until it is
 * enough (clamped to @max_cap), and the elements past the old capacity are
 * zeroed.  Returns the (maybe moved) array with *@cap updated, or NULL
 * (nothing changed) when @need exceeds @max_cap, the bytes would overflow,
 * or realloc fails.
 */
static inline void *array_grow(void *arr, size_t *cap, size_t need, size_t size, size_t max_cap)
{
	size_t ncap = *cap ? *cap : ARRAY_MIN_CAP;
	void *p;

	if (need <= *cap)
		return arr;
	if (need > max_cap || !size)
		return NULL;
	while (ncap < need)
		ncap = ncap > max_cap / 2 ? max_cap : ncap * 2;
	if (ncap > SIZE_MAX / size)
		return NULL;
	p = realloc(arr, ncap * size);
	if (!p)
		return NULL;
	memset((char *)p + *cap * size, 0, (ncap - *cap) * size);
	*cap = ncap;
	return p;
}

/*
 * ARRAY_RESERVE(arr, cap, need): true when @arr (an lvalue pointer) has room
 * for @need elements, growing it and its capacity @cap (an lvalue of an
 * unsigned integer type) as array_grow does; false, with both unchanged,
 * when out of memory or when the capacity would not fit @cap's type.
 */
#define ARRAY_RESERVE(arr, cap, need)                                                              \
	({                                                                                         \
		_Static_assert((__typeof__(cap))-1 > 0, "ARRAY_RESERVE: unsigned capacity");       \
		bool array_ok_ = (size_t)(need) <= (size_t)(cap);                                  \
		if (!array_ok_) {                                                                  \
			size_t array_cap_ = (cap);                                                 \
			void *array_p_ = array_grow((arr), &array_cap_, (size_t)(need),            \
			                            sizeof(*(arr)), (size_t)(__typeof__(cap))-1);  \
			if (array_p_) {                                                            \
				(arr) = array_p_;                                                  \
				(cap) = (__typeof__(cap))array_cap_;                               \
				array_ok_ = true;                                                  \
			}                                                                          \
		}                                                                                  \
		array_ok_;                                                                         \
	})

#endif /* PRISM_UTIL_ARRAY_H */
