/* SPDX-License-Identifier: MIT */
/*
 * core/daemon_proto.h - the control protocol between an application and
 * prismd (a unix SOCK_SEQPACKET socket; one message per request/reply).
 *
 *   request: struct core_dctl_req, with the region's memfd in SCM_RIGHTS
 *   reply:   struct core_dctl_rep
 *
 * Owns: the two message layouts (same host, so host order) and their limits.
 * Must not: carry anything but names, sizes and descriptors.
 */
#ifndef CORE_DAEMON_PROTO_H
#define CORE_DAEMON_PROTO_H

#include <stdint.h>

#define CORE_DCTL_MAGIC 0x50444331u /* "PDC1" */

enum core_dctl_op {
	CORE_DCTL_SHARE = 1, /* a region's memfd, to be mapped and registered */
};

struct core_dctl_req {
	uint32_t magic;
	uint32_t op;     /* enum core_dctl_op */
	char name[64];   /* region name, NUL-terminated */
	uint64_t size;   /* bytes the application mapped */
	uint32_t access; /* enum prism_access */
	uint32_t reserved;
};

struct core_dctl_rep {
	uint32_t magic;
	int32_t status;    /* 0 or a negative code */
	uint64_t nic_addr; /* where prismd mapped the region (addresses the NIC uses) */
	char msg[256];
};

#endif /* CORE_DAEMON_PROTO_H */
