/* SPDX-License-Identifier: MIT */
/*
 * util/fdpass.c - descriptors over a Unix socket and sealed memfds
 * (util/fdpass.h).
 */
#include "util/fdpass.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

union fdpass_ctl {
	char buf[CMSG_SPACE(FDPASS_MAX * sizeof(int))];
	struct cmsghdr align;
};

int fdpass_send(int sock, const void *body, size_t len, const int *fds, unsigned nfds)
{
	union fdpass_ctl ctl;
	struct iovec iov = {.iov_base = (void *)body, .iov_len = len};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *c;
	ssize_t n;

	if (nfds > FDPASS_MAX)
		return -EINVAL;
	memset(&ctl, 0, sizeof(ctl));
	if (nfds) {
		msg.msg_control = ctl.buf;
		msg.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

ssize_t fdpass_recv(int sock, void *body, size_t len, int flags, int *fds, unsigned max,
                    unsigned *nfds, int *trunc)
{
	union fdpass_ctl ctl;
	struct iovec iov = {.iov_base = body, .iov_len = len};
	struct msghdr msg = {.msg_iov = &iov,
	                     .msg_iovlen = 1,
	                     .msg_control = ctl.buf,
	                     .msg_controllen = sizeof(ctl)};
	ssize_t n;

	*nfds = 0;
	*trunc = 0;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | flags);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	/* Take every descriptor that came, so that none leaks, then judge. */
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0))
			continue;
		for (size_t k = 0; k < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); k++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + k * sizeof(int), sizeof(fd));
			if (*nfds < max)
				fds[*nfds] = fd;
			else
				close(fd);
			++*nfds;
		}
	}
	if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
		*trunc = 1;
	return n;
}

int fdpass_memfd_create(const char *name, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING), err;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)len) == 0 && fcntl(fd, F_ADD_SEALS, FDPASS_SEALS) == 0)
		return fd;
	err = -errno;
	close(fd);
	return err;
}

int fdpass_memfd_check(int fd, unsigned seals, size_t *len)
{
	int have = fcntl(fd, F_GET_SEALS);
	struct stat st;

	if (have < 0)
		return errno == EINVAL ? -EPERM : -errno; /* EINVAL: no memfd */
	if (((unsigned)have & seals) != seals)
		return -EPERM;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EPERM;
	*len = (size_t)st.st_size;
	return 0;
}
