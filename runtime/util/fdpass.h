/* SPDX-License-Identifier: MIT */
/*
 * util/fdpass.h - descriptors shared between two processes of one host:
 * passing them in a message over a Unix socket (SCM_RIGHTS), and the
 * sealed memfds passed that way (a shared-memory ring pair, a region
 * shared with prismd).
 *
 * Owns: the control-message layout of a send and a receive, taking every
 * descriptor a message brought (none leaks, whatever the peer sent), and
 * creating and checking memfds whose size is sealed.  Must not: log,
 * allocate, or know what the descriptors are for (callers judge them).
 */
#ifndef PRISM_UTIL_FDPASS_H
#define PRISM_UTIL_FDPASS_H

#include <fcntl.h>
#include <stddef.h>
#include <sys/types.h>

/* The most descriptors one message carries here. */
#define FDPASS_MAX 8u

/*
 * Send @len bytes of @body with @nfds (at most FDPASS_MAX) descriptors in
 * one message on @sock (MSG_NOSIGNAL; again after EINTR).  0, -EIO when
 * the body went out short, or -errno.
 */
int fdpass_send(int sock, const void *body, size_t len, const int *fds, unsigned nfds);

/*
 * Receive one message on @sock: at most @len bytes into @body and up to @max
 * descriptors (close-on-exec) into @fds; those past @max are closed.
 * @flags: MSG_DONTWAIT or 0.  Returns the body's bytes (0: the peer closed)
 * with *@nfds the descriptors that came (the first min(*@nfds, @max) are in
 * @fds) and *@trunc true when the body or the control message was cut
 * short; or -errno (then no descriptor came).
 */
ssize_t fdpass_recv(int sock, void *body, size_t len, int flags, int *fds, unsigned max,
                    unsigned *nfds, int *trunc);

/* The seals a shared memfd here carries: its size is fixed for good. */
#define FDPASS_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

/*
 * A memfd of @len bytes named @name (close-on-exec) sealed with
 * FDPASS_SEALS: the descriptor, or -errno.
 */
int fdpass_memfd_create(const char *name, size_t len);

/*
 * Check a memfd received from a peer before mapping it: 0 and its size in
 * *@len when @fd is a memfd carrying at least @seals; -EPERM when it is not
 * (not a memfd, or the seals are missing: its sender could still shrink it
 * under a mapping, and the next access would be a SIGBUS); or -errno.
 */
int fdpass_memfd_check(int fd, unsigned seals, size_t *len);

#endif /* PRISM_UTIL_FDPASS_H */
