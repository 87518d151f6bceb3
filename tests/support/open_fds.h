/* SPDX-License-Identifier: MIT */
/*
 * tests/support/open_fds.h - how many descriptors this process holds, for
 * tests that check nothing leaked (compare before and after).
 *
 * Owns: open_fds.  Must not: use a test framework (fuzz targets may call it).
 */
#ifndef PRISM_TESTS_OPEN_FDS_H
#define PRISM_TESTS_OPEN_FDS_H

#include <dirent.h>

/* Entries of /proc/self/fd (the directory's own descriptor and "." and
 * ".." included, the same at every call); 0 when it cannot be read. */
static inline unsigned open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned n = 0;

	if (!d)
		return 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

#endif /* PRISM_TESTS_OPEN_FDS_H */
