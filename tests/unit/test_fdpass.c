/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_fdpass.c - util/fdpass: descriptors over a Unix socket
 * and sealed memfds.
 *
 * Owns: what a receiver gets from an honest and from a careless or hostile
 * sender (more descriptors than it takes, a body longer than its buffer,
 * none at all), and which memfds pass the check before a mapping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/support/open_fds.h"
#include "util/fdpass.h"

/* The descriptors arrive as the same open files, close-on-exec; extra ones
 * are counted and closed, a long body is cut and said so; nothing leaks. */
static void test_pass_and_take_everything(void **state)
{
	char body[8] = "prism!!", got[8];
	int sv[2], fds[3], in[2], trunc;
	unsigned nfds, before;
	uint64_t v = 7;
	ssize_t n;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	for (int i = 0; i < 3; i++)
		fds[i] = eventfd(0, EFD_CLOEXEC);
	before = open_fds();

	/* two of two */
	assert_int_equal(fdpass_send(sv[0], body, sizeof(body), fds, 2), 0);
	n = fdpass_recv(sv[1], got, sizeof(got), 0, in, 2, &nfds, &trunc);
	assert_int_equal(n, (ssize_t)sizeof(body));
	assert_memory_equal(got, body, sizeof(body));
	assert_int_equal(nfds, 2);
	assert_false(trunc);
	assert_int_equal(write(in[0], &v, sizeof(v)), (ssize_t)sizeof(v)); /* the same eventfd */
	assert_int_equal(read(fds[0], &v, sizeof(v)), (ssize_t)sizeof(v));
	assert_int_equal(v, 7);
	assert_int_equal(fcntl(in[1], F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	close(in[0]);
	close(in[1]);
	assert_int_equal(open_fds(), before);

	/* three sent, two taken: the third is closed, and counted */
	assert_int_equal(fdpass_send(sv[0], body, sizeof(body), fds, 3), 0);
	n = fdpass_recv(sv[1], got, sizeof(got), 0, in, 2, &nfds, &trunc);
	assert_int_equal(n, (ssize_t)sizeof(body));
	assert_int_equal(nfds, 3);
	close(in[0]);
	close(in[1]);
	assert_int_equal(open_fds(), before);

	/* a body longer than the buffer (a datagram socket cuts it) */
	int dg[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, dg), 0);
	assert_int_equal(fdpass_send(dg[0], body, sizeof(body), fds, 1), 0);
	n = fdpass_recv(dg[1], got, 4, 0, in, 1, &nfds, &trunc);
	assert_int_equal(n, 4);
	assert_int_equal(nfds, 1);
	assert_true(trunc);
	close(in[0]);
	/* nothing at all: 0 descriptors; a closed peer: 0 bytes */
	assert_int_equal(fdpass_send(dg[0], body, sizeof(body), NULL, 0), 0);
	n = fdpass_recv(dg[1], got, sizeof(got), 0, in, 1, &nfds, &trunc);
	assert_int_equal(n, (ssize_t)sizeof(body));
	assert_int_equal(nfds, 0);
	close(dg[0]);
	assert_int_equal(fdpass_recv(dg[1], got, sizeof(got), 0, in, 1, &nfds, &trunc), 0);
	assert_int_equal(fdpass_recv(dg[1], got, sizeof(got), MSG_DONTWAIT, in, 1, &nfds, &trunc),
	                 0);
	close(dg[1]);
	assert_int_equal(fdpass_recv(sv[1], got, sizeof(got), MSG_DONTWAIT, in, 1, &nfds, &trunc),
	                 -EAGAIN);
	assert_int_equal(fdpass_send(sv[0], body, sizeof(body), fds, FDPASS_MAX + 1), -EINVAL);
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	close(sv[0]);
	close(sv[1]);
}

/* A memfd made here has its size sealed; the check takes only memfds with
 * the seals asked for, and gives their size. */
static void test_memfd_seals(void **state)
{
	size_t len = 0;
	int fd = fdpass_memfd_create("t", 8192), loose, pipefd[2];

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(fdpass_memfd_check(fd, FDPASS_SEALS, &len), 0);
	assert_int_equal(len, 8192);
	assert_int_not_equal(ftruncate(fd, 4096), 0); /* sealed */
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), -1);
	close(fd);

	loose = memfd_create("loose", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_true(loose >= 0);
	assert_int_equal(ftruncate(loose, 4096), 0);
	assert_int_equal(fdpass_memfd_check(loose, F_SEAL_SHRINK, &len), -EPERM);
	assert_int_equal(fcntl(loose, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	assert_int_equal(fdpass_memfd_check(loose, F_SEAL_SHRINK, &len), 0);
	assert_int_equal(len, 4096);
	assert_int_equal(fdpass_memfd_check(loose, FDPASS_SEALS, &len), -EPERM);
	close(loose);

	assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
	assert_int_equal(fdpass_memfd_check(pipefd[0], F_SEAL_SHRINK, &len), -EPERM);
	close(pipefd[0]);
	close(pipefd[1]);
	assert_int_equal(fdpass_memfd_check(-1, F_SEAL_SHRINK, &len), -EBADF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pass_and_take_everything),
	    cmocka_unit_test(test_memfd_seals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
