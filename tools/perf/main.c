/* SPDX-License-Identifier: MIT */
/*
 * tools/perf/main.c - prism-perf: measure offloads as perftest measures
 * verbs (docs/prism-perf.md).
 *
 *   prism-perf [OPTIONS]          serve (like ib_read_lat without a host)
 *   prism-perf [OPTIONS] HOST     drive the server on HOST
 *
 * Owns option parsing (tools/cli/cli.h), usage and exit codes: 0 ok, 1 the
 * run failed (setup, an invocation, no answer), 2 usage error.
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

#include "tools/cli/cli.h"
#include "tools/perf/perf.h"

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
	        "  -T, --transport KIND  client on a sim device: auto (default: shared-memory\n"
	        "                        rings for a server on this host, else TCP), tcp or shm\n"
	        "  -p, --port PORT       TCP port (default %d; serve: 0 = any free port)\n"
	        "  -b, --bind ADDR       serve: listen address (default every address)\n"
	        "  -c, --chain FILE      get: the compiled .chain object (both sides; '-':\n"
	        "                        standard input)\n"
	        "  -e, --entry NAME      get: entry point (default the first)\n"
	        "  -a, --arg NAME=VALUE  get: an argument (integers in C syntax, addresses as\n"
	        "                        offsets in their region, byte strings in hex)\n"
	        "  -r, --region NAME=FILE  serve: initial contents of a region (else zeros;\n"
	        "                        FILE '-': standard input)\n"
	        "      --prismc PATH     prismc for the read/write/send programs (default:\n"
	        "                        next to prism-perf, else on $PATH)\n"
	        "  -J, --json            client: print the result as one JSON object\n"
	        "  -V, --version         print the version\n"
	        "  -h, --help            this help\n"
	        "\n"
	        "exit status: 0 ok, 1 the run failed, 2 usage error (a bad option or value,\n"
	        "a bad port).\n",
	        PERF_MAX_DEPTH, PRISM_DEFAULT_PORT);
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

static int parse_transport(const char *v, enum prism_transport *t)
{
	static const char *const names[] = {
	    [PRISM_TRANSPORT_AUTO] = "auto",
	    [PRISM_TRANSPORT_TCP] = "tcp",
	    [PRISM_TRANSPORT_SHM] = "shm",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(v, names[i])) {
			*t = (enum prism_transport)i;
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
	    {"transport", required_argument, NULL, 'T'},
	    {"port", required_argument, NULL, 'p'},
	    {"bind", required_argument, NULL, 'b'},
	    {"chain", required_argument, NULL, 'c'},
	    {"entry", required_argument, NULL, 'e'},
	    {"arg", required_argument, NULL, 'a'},
	    {"region", required_argument, NULL, 'r'},
	    {"prismc", required_argument, NULL, OPT_PRISMC},
	    {"json", no_argument, NULL, 'J'},
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
	struct cli cl;
	uint16_t port;
	uint64_t u;
	char *end;
	int c;

	cli_init(&cl, "prism-perf", argc, argv, "w:s:q:t:D:d:T:p:b:c:e:a:r:J", longs, usage);
	while ((c = cli_next(&cl)) != -1) {
		switch (c) {
		case CLI_STOP:
			return cl.exit;
		case 'w':
			if (parse_workload(optarg, &o.workload))
				return cli_usage(&cl,
				                 "--workload: '%s' is not get, read, write or send",
				                 optarg);
			break;
		case 's':
			if (cli_uint(&cl, optarg, 1, 1u << 20, &u))
				return CLI_EXIT_USAGE;
			o.size = (unsigned)u;
			break;
		case 'q':
			if (cli_uint(&cl, optarg, 1, PERF_MAX_CONNS, &u))
				return CLI_EXIT_USAGE;
			o.connections = (unsigned)u;
			break;
		case 't':
			if (cli_uint(&cl, optarg, 1, PERF_MAX_DEPTH, &u))
				return CLI_EXIT_USAGE;
			o.depth = (unsigned)u;
			break;
		case 'D':
			errno = 0;
			o.duration = strtod(optarg, &end);
			if (!*optarg || *end || errno || !(o.duration > 0 && o.duration <= 86400))
				return cli_usage(
				    &cl,
				    "--duration: '%s' is not a number of seconds in (0, 86400]",
				    optarg);
			break;
		case 'd':
			o.device = optarg;
			break;
		case 'p':
			if (cli_port(&cl, optarg, true, &port))
				return CLI_EXIT_USAGE;
			o.port = port;
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
				return cli_usage(&cl, "--%s: '%s' is not NAME=VALUE",
				                 c == 'a' ? "arg" : "region", optarg);
			if ((c == 'a' ? o.nargs : o.nregions) == PERF_MAX_ARGS)
				return cli_usage(&cl, "--%s: more than %d",
				                 c == 'a' ? "arg" : "region", PERF_MAX_ARGS);
			if (c == 'a')
				o.args[o.nargs++] = optarg;
			else
				o.regions[o.nregions++] = optarg;
			break;
		case 'T':
			if (parse_transport(optarg, &o.transport))
				return cli_usage(&cl, "--transport: '%s' is not auto, tcp or shm",
				                 optarg);
			break;
		case OPT_PRISMC:
			o.prismc = optarg;
			break;
		case 'J':
			o.json = true;
			break;
		}
	}
	if (argc - optind > 1)
		return cli_usage(&cl, "one HOST at most ('%s' is extra)", argv[optind + 1]);
	o.host = optind < argc ? argv[optind] : NULL;
	if (o.workload == PERF_GET && !o.chain && o.host)
		return cli_usage(&cl, "--workload get needs --chain FILE");
	if (o.host && !o.port)
		return cli_usage(&cl, "--port 0 is for serving only");
	if (o.chain && !strcmp(o.chain, "-")) {
		int rc = cli_read_all(&cl, "-", 64u << 20, &o.chain_text, &o.chain_len);

		if (rc)
			return rc;
	}
	signal(SIGPIPE, SIG_IGN);
	prism_set_log_fn(prism_log_stderr, NULL, PRISM_LOG_ERROR);
	c = o.host ? perf_drive(&o) : perf_serve(&o);
	free(o.chain_text);
	return c;
}
