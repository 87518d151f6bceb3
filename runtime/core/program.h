/* SPDX-License-Identifier: MIT */
/*
 * core/program.h - a loaded program (struct prism_program) as the server
 * and the connection instances see it.
 *
 * Owns: struct prism_program: the parsed chain object, the regions it is
 * bound to on its device, and a reference count (connection instances keep
 * the program alive after the application closes or replaces it).
 * Must not: post anything (core/inst.c instantiates per connection).
 */
#ifndef CORE_PROGRAM_H
#define CORE_PROGRAM_H

#include "chain/chainobj.h"
#include "core/core.h"

struct prism_program {
	struct chainobj *obj;
	char name[CORE_NAME_MAX + 1];
	struct prism_device *dev;      /* set by prism_program__load */
	struct prism_region **regions; /* [obj->n_regions], bound at load */
	int conn_queue;                /* index of the queue with role CONN */
	bool allow_ungated;            /* prism_program_opts.allow_ungated */
	unsigned refs;                 /* 1 for the application + 1 per user */
	pthread_mutex_t ref_lock;
	/* What a server lists about it (prism_post_list): where it came
	 * from, and counters kept with atomics by the server's shards. */
	uint64_t object_bytes; /* the .chain object it was opened from */
	char origin[128];      /* that object's path; "" when opened from memory */
	int64_t installed_at;  /* Unix time of prism_server__add_program */
	uint32_t installed_uid;
	int32_t installed_pid; /* -1: added by the application, not posted */
	uint64_t conns_active, conns_total, invocations;
};

void core_program_get(struct prism_program *prog);
void core_program_put(struct prism_program *prog);

/* Public type of a parameter (width decides the integer size). */
enum prism_type core_param_type(const struct chainobj_param *p);

/*
 * The checks the loader runs on an object before anything is posted, in
 * addition to chainobj_validate (structure) and chain_verify (security):
 * exactly one CONN queue, counts and windows that CPU re-posting can
 * repeat, a verified summary.  Logs the first failure; returns 0 or
 * -PRISM_E_VERIFY.
 */
int core_program_check(const struct chainobj *o, const char *name);

/* core/caps.c: what @o needs from a NIC; refuse a device lacking any of it
 * (0, or -PRISM_E_NOCAP after logging what is missing). */
void core_program_needs(const struct chainobj *o, struct core_caps *need);
int core_caps_check(const struct prism_device *dev, const char *prog, const struct chainobj *o);

#endif /* CORE_PROGRAM_H */
