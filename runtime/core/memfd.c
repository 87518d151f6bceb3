/* SPDX-License-Identifier: MIT */
/*
 * core/memfd.c - memfd-backed memory that two processes map (daemon mode).
 *
 * Owns: creating a sealed-size memfd of a given length mapped shared, and
 * mapping a memfd received from another process (only one sealed against
 * shrinking: a truncated mapping would SIGBUS the process serving it).  The application and
 * prismd map the same pages, so the software NIC in prismd keeps serving
 * from them after the application dies (RedN section 5.6's "hull" process).
 * Creating, checking and passing the descriptor are util/fdpass.h's.
 * Must not: register anything with a device (region.c does), log.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "core/core.h"
#include "util/fdpass.h"

int core_memfd_create(const char *name, size_t len, int *fd_out, void **addr_out)
{
	char label[80];
	void *addr;
	int fd, err;

	if (!len)
		return -EINVAL;
	snprintf(label, sizeof(label), "prism:%s", name);
	/* The size is part of the contract with the peer: sealed for good. */
	fd = fdpass_memfd_create(label, len);
	if (fd < 0)
		return fd;
	addr = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (addr == MAP_FAILED) {
		err = -errno;
		close(fd);
		return err;
	}
	*fd_out = fd;
	*addr_out = addr;
	return 0;
}

int core_memfd_map(int fd, size_t *len_out, void **addr_out)
{
	size_t len;
	void *addr;
	/* Pages of a file its sender can still shrink would vanish under our
	 * mapping: the next access is a SIGBUS in this process.  Only a memfd
	 * sealed against shrinking is mapped. */
	int err = fdpass_memfd_check(fd, F_SEAL_SHRINK, &len);

	if (err)
		return err == -EPERM ? -PRISM_E_UNSEALED : err;
	if (!len)
		return -EINVAL;
	addr = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (addr == MAP_FAILED)
		return -errno;
	*len_out = len;
	*addr_out = addr;
	return 0;
}
