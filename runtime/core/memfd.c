/* SPDX-License-Identifier: MIT */
/*
 * core/memfd.c - memfd-backed memory that two processes map (daemon mode).
 *
 * Owns: creating a sealed-size memfd of a given length mapped shared, and
 * mapping a memfd received from another process (only one sealed against
 * shrinking: a truncated mapping would SIGBUS the process serving it).  The application and
 * prismd map the same pages, so the software NIC in prismd keeps serving
 * from them after the application dies (RedN section 5.6's "hull" process).
 * Must not: register anything with a device (region.c does), log.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core.h"

int core_memfd_create(const char *name, size_t len, int *fd_out, void **addr_out)
{
	char label[80];
	void *addr;
	int fd, err;

	if (!len)
		return -EINVAL;
	snprintf(label, sizeof(label), "prism:%s", name);
	fd = memfd_create(label, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)len) < 0)
		goto fail;
	/* The size is part of the contract with the peer: forbid changing it. */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		goto fail;
	addr = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (addr == MAP_FAILED)
		goto fail;
	*fd_out = fd;
	*addr_out = addr;
	return 0;
fail:
	err = -errno;
	close(fd);
	return err;
}

int core_memfd_map(int fd, size_t *len_out, void **addr_out)
{
	struct stat st;
	void *addr;
	int seals = fcntl(fd, F_GET_SEALS);

	/* Pages of a file its sender can still shrink would vanish under our
	 * mapping: the next access is a SIGBUS in this process.  Only a memfd
	 * sealed against shrinking is mapped. */
	if (seals < 0)
		return errno == EINVAL ? -PRISM_E_UNSEALED : -errno;
	if (!(seals & F_SEAL_SHRINK))
		return -PRISM_E_UNSEALED;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size <= 0)
		return -EINVAL;
	addr = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (addr == MAP_FAILED)
		return -errno;
	*len_out = (size_t)st.st_size;
	*addr_out = addr;
	return 0;
}
