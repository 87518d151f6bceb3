/* SPDX-License-Identifier: MIT */
/*
 * tools/perf/main.c - prism-perf: measure offloads as perftest measures
 * verbs (docs/prism-perf.md).
 *
 *   prism-perf [OPTIONS]          serve (like ib_read_lat without a host)
 *   prism-perf [OPTIONS] HOST     drive the server on HOST
 *
 * Owns option parsing, usage and exit codes: 0 ok, 1 the run failed (setup,
 * an invocation, no answer), 2 usage error.
 *
 * Must not: measure anything itself (drive.c) or serve (serve.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/perf/perf.h"

#define PERF_VERSION "0.1.0"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: prism-perf [OPTIONS]         serve every workload\n"
	        "       prism-perf [OPTIONS] HOST    drive the server on HOST\n"
	        "\n"
	        "Measure offloads the way perftest measures verbs: latency percentiles and\n"
	        "rate of READ, WRITE, SEND or an offloaded get, over closed-loop connections.\n"
	        "\n"
	        "options:\n"
	        "  -w, --workload W      get, read (default), write or send\n"
	        "  -s, --size BYTES      message size of read/write/send (default 64; give\n"
	        "                        both sides the same)\n"
	        "  -q, --connections N   client connections, one thread each (default 1)\n"
	        "  -t, --depth N         invocations in flight per connection (default 1,\n"
	        "                        at most %d)\n"
	        "  -D, --duration SEC    seconds to run (default 5)\n"
	        "  -d, --device DEV      sim (default) or an mlx5 device\n"
	        "  -p, --port PORT       TCP port (default %d; serve: 0 = any free port)\n"
	        "  -b, --bind ADDR       serve: listen address (default every address)\n"
	        "  -c, --chain FILE      get: the compiled .chain object (both sides)\n"
	        "  -e, --entry NAME      get: entry point (default the first)\n"
	        "  -a, --arg NAME=VALUE  get: an argument (integers in C syntax, addresses as\n"
	        "                        offsets in their region, byte strings in hex)\n"
	        "  -r, --region NAME=FILE  serve: initial contents of a region (else zeros)\n"
	        "      --prismc PATH     prismc for the read/write/send programs (default:\n"
	        "                        next to prism-perf, else on $PATH)\n"
	        "  -J, --json            client: print the result as one JSON object\n"
	        "  -V, --version         print the version\n"
	        "  -h, --help            this help\n"
	        "\n"
	        "exit status: 0 ok, 1 the run failed, 2 usage error.\n",
	        PERF_MAX_DEPTH, PRISM_DEFAULT_PORT);
}

static int bad(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "prism-perf: ");
	fprintf(stderr, fmt, a, b);
	fprintf(stderr, "\nTry 'prism-perf --help'.\n");
	return 2;
}

/* An unsigned in [lo, hi] (C syntax). */
static int parse_uint(const char *opt, const char *v, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(v, &end, 0);
	if (!*v || *end || errno || x < lo || x > hi || v[0] == '-')
		return -1;
	(void)opt;
	*out = (unsigned)x;
	return 0;
}

static int parse_workload(const char *v, enum perf_workload *w)
{
	for (int i = 0; i < PERF__COUNT; i++)
		if (!strcmp(v, perf_workload_names[i])) {
			*w = (enum perf_workload)i;
			return 0;
		}
	return -1;
}

enum { OPT_PRISMC = 256 };

int main(int argc, char **argv)
{
	static const struct option longs[] = {
	    {"workload", required_argument, NULL, 'w'},
	    {"size", required_argument, NULL, 's'},
	    {"connections", required_argument, NULL, 'q'},
	    {"depth", required_argument, NULL, 't'},
	    {"duration", required_argument, NULL, 'D'},
	    {"device", required_argument, NULL, 'd'},
	    {"port", required_argument, NULL, 'p'},
	    {"bind", required_argument, NULL, 'b'},
	    {"chain", required_argument, NULL, 'c'},
	    {"entry", required_argument, NULL, 'e'},
	    {"arg", required_argument, NULL, 'a'},
	    {"region", required_argument, NULL, 'r'},
	    {"prismc", required_argument, NULL, OPT_PRISMC},
	    {"json", no_argument, NULL, 'J'},
	    {"version", no_argument, NULL, 'V'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct perf_opts o = {.workload = PERF_READ,
	                      .size = 64,
	                      .connections = 1,
	                      .depth = 1,
	                      .duration = 5,
	                      .device = "sim",
	                      .port = PRISM_DEFAULT_PORT,
	                      .self = argv[0]};
	unsigned u;
	char *end;
	int c;

	opterr = 0; /* our own messages, naming the option */
	while ((c = getopt_long(argc, argv, ":w:s:q:t:D:d:p:b:c:e:a:r:JVh", longs, NULL)) != -1) {
		const char *name = argv[optind - 1];

		switch (c) {
		case 'w':
			if (parse_workload(optarg, &o.workload))
				return bad("--workload: '%s' is not get, read, write or send%s",
				           optarg, "");
			break;
		case 's':
			if (parse_uint(name, optarg, 1, 1u << 20, &o.size))
				return bad("--size: '%s' is not a size in 1..1048576%s", optarg,
				           "");
			break;
		case 'q':
			if (parse_uint(name, optarg, 1, PERF_MAX_CONNS, &o.connections))
				return bad("--connections: '%s' is not in 1..256%s", optarg, "");
			break;
		case 't':
			if (parse_uint(name, optarg, 1, PERF_MAX_DEPTH, &o.depth))
				return bad("--depth: '%s' is not in 1..64%s", optarg, "");
			break;
		case 'D':
			errno = 0;
			o.duration = strtod(optarg, &end);
			if (!*optarg || *end || errno || !(o.duration > 0 && o.duration <= 86400))
				return bad(
				    "--duration: '%s' is not a number of seconds in (0, 86400]%s",
				    optarg, "");
			break;
		case 'd':
			o.device = optarg;
			break;
		case 'p':
			if (parse_uint(name, optarg, 0, 65535, &u))
				return bad("--port: '%s' is not a port in 0..65535%s", optarg, "");
			o.port = (int)u;
			break;
		case 'b':
			o.bind = optarg;
			break;
		case 'c':
			o.chain = optarg;
			break;
		case 'e':
			o.entry = optarg;
			break;
		case 'a':
		case 'r':
			if (!strchr(optarg, '=') || optarg[0] == '=')
				return bad("--%s: '%s' is not NAME=VALUE",
				           c == 'a' ? "arg" : "region", optarg);
			if ((c == 'a' ? o.nargs : o.nregions) == PERF_MAX_ARGS)
				return bad("--%s: more than 16%s", c == 'a' ? "arg" : "region", "");
			if (c == 'a')
				o.args[o.nargs++] = optarg;
			else
				o.regions[o.nregions++] = optarg;
			break;
		case OPT_PRISMC:
			o.prismc = optarg;
			break;
		case 'J':
			o.json = true;
			break;
		case 'V':
			printf("prism-perf %s\n", PERF_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			return bad("option '%s' needs a value%s", name, "");
		default:
			return bad("unknown option '%s'%s", name, "");
		}
	}
	if (argc - optind > 1)
		return bad("one HOST at most ('%s' is extra)%s", argv[optind + 1], "");
	o.host = optind < argc ? argv[optind] : NULL;
	if (o.workload == PERF_GET && !o.chain && o.host)
		return bad("--workload get needs --chain FILE%s%s", "", "");
	if (o.host && !o.port)
		return bad("--port 0 is for serving only%s%s", "", "");
	signal(SIGPIPE, SIG_IGN);
	prism_set_log_fn(prism_log_stderr, NULL, PRISM_LOG_ERROR);
	return o.host ? perf_drive(&o) : perf_serve(&o);
}
