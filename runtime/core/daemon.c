/* SPDX-License-Identifier: MIT */
/*
 * core/daemon.c - the application's side of daemon mode (prism_daemon).
 *
 * Owns: connecting to prismd's control socket and sharing memfd-backed
 * regions with it (SCM_RIGHTS), so prismd's software NIC serves from the
 * application's memory and keeps serving after the application exits or
 * crashes (RedN section 5.6).
 * Must not: block without a bound; print.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/core.h"
#include "core/daemon_proto.h"
#include "util/fdpass.h"

struct prism_daemon {
	int fd;
};

PRISM_API struct prism_daemon *prism_daemon__attach(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = 10};
	struct prism_daemon *d;
	int fd, err;

	if (!path || strlen(path) >= sizeof(sa.sun_path))
		return core_fail_ptr(-EINVAL);
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return core_fail_ptr(-errno);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = -errno;
		core_err("daemon: connect %s: %s", path, prism_strerror(err));
		close(fd);
		return core_fail_ptr(err);
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	d = calloc(1, sizeof(*d));
	if (!d) {
		close(fd);
		return core_fail_ptr(-ENOMEM);
	}
	d->fd = fd;
	return d;
}

PRISM_API void prism_daemon__detach(struct prism_daemon *d)
{
	if (!d)
		return;
	close(d->fd);
	free(d);
}

PRISM_API int prism_daemon__share_region(struct prism_daemon *d, struct prism_region *r)
{
	struct core_dctl_req req = {.magic = CORE_DCTL_MAGIC, .op = CORE_DCTL_SHARE};
	struct core_dctl_rep rep;
	ssize_t n;
	int err;

	if (!d || !r)
		return -EINVAL;
	if (r->fd < 0) {
		core_err("daemon: region '%s' is not memfd-backed (use "
		         "prism_device__create_region)",
		         r->name);
		return -EBADF;
	}
	snprintf(req.name, sizeof(req.name), "%s", r->name);
	req.size = r->len;
	req.access = r->access;
	err = fdpass_send(d->fd, &req, sizeof(req), &r->fd, 1);
	if (err)
		return err;
	n = recv(d->fd, &rep, sizeof(rep), 0);
	if (n != (ssize_t)sizeof(rep) || rep.magic != CORE_DCTL_MAGIC)
		return n < 0 ? -errno : -PRISM_E_DAEMON;
	rep.msg[sizeof(rep.msg) - 1] = 0;
	if (rep.status)
		core_err("daemon: region '%s': %s", r->name, rep.msg);
	else
		r->nic_addr = rep.nic_addr;
	return rep.status;
}
