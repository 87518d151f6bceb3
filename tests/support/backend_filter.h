/* SPDX-License-Identifier: MIT */
/*
 * tests/support/backend_filter.h - which backend groups a suite runs: all,
 * or with PRISM_TEST_BACKEND set (e.g. "emulator"), those whose group name
 * holds it ("runtime_local (mlx5 over the emulator)").
 *
 * Owns: test_backend_selected.  Must not: use a test framework.
 */
#ifndef PRISM_TESTS_BACKEND_FILTER_H
#define PRISM_TESTS_BACKEND_FILTER_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static inline bool test_backend_selected(const char *group)
{
	const char *only = getenv("PRISM_TEST_BACKEND");

	return !only || strstr(group, only);
}

#endif /* PRISM_TESTS_BACKEND_FILTER_H */
