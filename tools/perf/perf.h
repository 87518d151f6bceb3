/* SPDX-License-Identifier: MIT */
/*
 * tools/perf/perf.h - prism-perf, a perftest-style (ib_read_lat/ib_read_bw)
 * tool for offloads: shared types of its parts.
 *
 *   main.c      options (getopt_long), usage, exit codes, mode choice
 *   programs.c  the READ/WRITE/SEND workloads as .prism sources of the
 *               requested size, compiled by prismc; the get workload's .chain
 *   serve.c     the server side: registers every region, serves every
 *               workload program until SIGINT/SIGTERM
 *   drive.c     the client side: closed-loop connections, one thread each,
 *               latency samples, progress line, text / JSON report
 *
 * Must not: print from programs.c/serve.c/drive.c except through the
 * report and the diagnostics documented in docs/prism-perf.md.
 */
#ifndef PRISM_PERF_H
#define PRISM_PERF_H

#include <stdbool.h>
#include <stddef.h>

#include <prism/prism.h>

#define PERF_MAX_ARGS  16
#define PERF_MAX_CONNS 256
#define PERF_MAX_DEPTH 64

enum perf_workload {
	PERF_GET, /* any compiled program and entry (--chain, --entry, --arg) */
	PERF_READ,
	PERF_WRITE,
	PERF_SEND,
	PERF__COUNT,
};

struct perf_opts {
	enum perf_workload workload;
	unsigned size;                  /* message bytes (read/write/send) */
	unsigned connections;           /* client connections, one thread each */
	unsigned depth;                 /* invocations in flight per connection */
	double duration;                /* seconds */
	const char *device;             /* "sim" or an mlx5 device */
	enum prism_transport transport; /* client, sim device: what carries its packets */
	int port;                       /* 0: any free port (server) */
	bool json;
	const char *host; /* server to drive; NULL: serve */
	const char *bind; /* serve: listen address; NULL: every address */
	const char *chain;
	char *chain_text; /* --chain -: the object read from standard input */
	size_t chain_len;
	const char *entry;
	const char *args[PERF_MAX_ARGS]; /* "NAME=VALUE" */
	unsigned nargs;
	const char *regions[PERF_MAX_ARGS]; /* "NAME=FILE" (server) */
	unsigned nregions;
	const char *prismc; /* NULL: next to this program, then $PATH */
	const char *self;   /* argv[0] */
};

extern const char *const perf_workload_names[PERF__COUNT];

/* Program name a workload is served under ("read", ...; get: the chain's). */
const char *perf_program_name(const struct perf_opts *o, const struct prism_program *get);

/*
 * Open the program of @w: read/write/send compiled from generated source at
 * o->size into a temporary directory, get from o->chain.  NULL (message on
 * stderr) on failure.
 */
struct prism_program *perf_program_open(const struct perf_opts *o, enum perf_workload w);

/* Bytes of the "buf" region of the generated workloads. */
size_t perf_buf_size(unsigned size);

int perf_serve(const struct perf_opts *o);
int perf_drive(const struct perf_opts *o);

#endif
