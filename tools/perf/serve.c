/* SPDX-License-Identifier: MIT */
/*
 * tools/perf/serve.c - prism-perf's server side (run without a host).
 *
 * Opens the device, compiles the READ/WRITE/SEND workloads at --size (and
 * opens --chain for the get workload), creates every region they declare
 * (zeroed, or filled from --region NAME=FILE), serves them all on --port and
 * prints one line when ready:
 *
 *   prism-perf: serving read write send [get:NAME] on port N
 *
 * then serves until SIGINT or SIGTERM and prints the invocations served.
 *
 * Must not: do any per-invocation work itself: the NIC answers.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/perf/perf.h"

/* The FILE of a --region NAME=FILE for @name, or NULL. */
static const char *region_file(const struct perf_opts *o, const char *name)
{
	size_t n = strlen(name);

	for (unsigned i = 0; i < o->nregions; i++)
		if (!strncmp(o->regions[i], name, n) && o->regions[i][n] == '=')
			return o->regions[i] + n + 1;
	return NULL;
}

static int fill_region(struct prism_region *r, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin; /* '-': standard input */
	size_t n, cap = prism_region__size(r);
	int extra;

	if (!f) {
		fprintf(stderr, "prism-perf: region %s: %s: %s\n", prism_region__name(r), path,
		        strerror(errno));
		return -1;
	}
	n = fread(prism_region__addr(r), 1, cap, f);
	extra = fgetc(f);
	if (f != stdin)
		fclose(f);
	if (extra != EOF) {
		fprintf(stderr, "prism-perf: region %s: %s is larger than its %zu bytes\n",
		        prism_region__name(r), path, cap);
		return -1;
	}
	(void)n;
	return 0;
}

/* Create the regions @p declares that the device does not have yet. */
static int make_regions(const struct perf_opts *o, struct prism_device *dev,
                        struct prism_program *p)
{
	for (int i = 0; i < prism_program__region_count(p); i++) {
		struct prism_region_info ri;
		struct prism_region *r;
		const char *file;

		if (prism_program__region(p, i, &ri))
			return -1;
		if (prism_device__find_region(dev, ri.name))
			continue;
		PRISM_OPTS(prism_region_opts, ro, .access = ri.access);
		r = prism_device__create_region(dev, ri.name, ri.size, &ro);
		if (!r) {
			fprintf(stderr, "prism-perf: region %s (%llu bytes): %s\n", ri.name,
			        (unsigned long long)ri.size, prism_strerror(errno));
			return -1;
		}
		file = region_file(o, ri.name);
		if (file && fill_region(r, file))
			return -1;
	}
	return 0;
}

int perf_serve(const struct perf_opts *o)
{
	struct prism_program *progs[PERF__COUNT] = {0};
	struct prism_server *srv = NULL;
	struct prism_device *dev;
	sigset_t set;
	int sig, rc = 1;

	/* Block the stop signals before any thread starts, then wait for one. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	dev = prism_device__open(o->device, NULL);
	if (!dev) {
		fprintf(stderr, "prism-perf: device %s: %s\n", o->device, prism_strerror(errno));
		return 1;
	}
	PRISM_OPTS(prism_server_opts, so, .host = o->bind,
	           .port = o->port ? o->port : PRISM_PORT_ANY,
	           .depth = o->depth > 16 ? o->depth : 16);
	srv = prism_server__create(dev, &so);
	if (!srv) {
		fprintf(stderr, "prism-perf: server: %s\n", prism_strerror(errno));
		goto out;
	}
	for (int w = 0; w < PERF__COUNT; w++) {
		int err;

		if (w == PERF_GET && !o->chain)
			continue;
		progs[w] = perf_program_open(o, (enum perf_workload)w);
		if (!progs[w] || make_regions(o, dev, progs[w]))
			goto out;
		err = prism_program__load(progs[w], dev);
		if (!err)
			err = prism_server__add_program(srv, progs[w]);
		if (err) {
			fprintf(stderr, "prism-perf: program %s: %s\n",
			        prism_program__name(progs[w]), prism_strerror(err));
			goto out;
		}
	}
	if ((rc = prism_server__start(srv))) {
		fprintf(stderr, "prism-perf: listen on port %d: %s\n", o->port, prism_strerror(rc));
		rc = 1;
		goto out;
	}
	printf("prism-perf: serving read write send");
	if (progs[PERF_GET])
		printf(" get:%s", prism_program__name(progs[PERF_GET]));
	printf(" on port %u\n", prism_server__port(srv));
	fflush(stdout);
	sigwait(&set, &sig);

	struct prism_server_stats st = {.sz = sizeof(st)};

	prism_server__stats(srv, &st);
	printf("prism-perf: %s: served %llu invocations on %llu connections\n", strsignal(sig),
	       (unsigned long long)st.invocations, (unsigned long long)st.conns_total);
	rc = 0;
out:
	prism_server__destroy(srv);
	for (int w = 0; w < PERF__COUNT; w++)
		prism_program__close(progs[w]);
	prism_device__close(dev);
	return rc;
}
