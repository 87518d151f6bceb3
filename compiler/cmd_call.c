/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd_call.c - `prismc call`: invoke an entry point of a program
 * installed on a running server, as any client would (TCP setup, then the
 * transport), with typed arguments; print the result and the latency.
 *
 *     prismc call [--server HOST[:PORT]] [--program NAME] [--entry NAME]
 *                 [--arg NAME=VALUE]... [--count N] [--timeout MS] [--json]
 *
 * Owns: the command line, arguments typed by the parameters the server
 * describes at connection time, and the report.
 * Must not: need anything a remote client would not have (no object file,
 * no post socket).
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <prism/prism.h>

#include "compiler/cmd.h"
#include "compiler/cmd_server.h"
#include "compiler/run_report.h"
#include "util/json_text.h"
#include "util/clock.h"

#define CALL_MAX_ARGS  16
#define CALL_ARG_BYTES 4096

static void call_help(FILE *out)
{
	fprintf(out,
	        "usage: prismc call [--server HOST[:PORT]] [--program NAME] [--entry NAME]\n"
	        "                   [--arg NAME=VALUE]... [--count N] [--timeout MS] [--json]\n\n"
	        "Connect to a running server (prismd, prism-perf, an application) as a client,\n"
	        "invoke an entry point of an installed program with the arguments given, and\n"
	        "print what it returned and how long it took (wall clock, from the request to\n"
	        "the result, median of --count invocations).\n\n"
	        "options:\n"
	        "  -s, --server HOST[:PORT]  the server (default 127.0.0.1:%d)\n"
	        "  -p, --program NAME  the installed program (default: the server's only one)\n"
	        "  -e, --entry NAME    the entry point (default: the first)\n"
	        "  -a, --arg NAME=VALUE  a parameter: integers in C syntax (0x2a, 42); a pointer\n"
	        "                      is an offset inside its region; byte strings as hex\n"
	        "  -c, --count N       invoke N times (default 1); report the last result\n"
	        "  -t, --timeout MS    per invocation and for the connection (default 5000)\n"
	        "  -j, --json          one JSON object, failures included\n"
	        "  -h, --help          this help\n"
	        "  -V, --version       the version\n\n"
	        "exit status: 0 ok, 1 the invocation failed or the server refused (no such\n"
	        "program or entry), 2 usage (bad argument, bad port), 3 server unreachable\n"
	        "(unknown host, connection refused).\n",
	        PRISM_DEFAULT_PORT);
}

struct call_opts {
	struct cli cli;
	const char *server, *program, *entry;
	const char *args[CALL_MAX_ARGS];
	unsigned nargs;
	uint64_t count, timeout;
	bool json;
};

/* "HOST[:PORT]" with the port checked here (a bad one is a usage error). */
static int check_server(const struct cli *c, const char *s)
{
	const char *colon = strrchr(s, ':');
	uint16_t port;

	if (colon == s)
		return cli_usage(c, "--server %s: no host", s);
	if (colon && cli_port(c, colon + 1, false, &port))
		return PRISMC_EXIT_USAGE;
	return PRISMC_EXIT_OK;
}

/* --arg @spec for parameter @pi into @a (@buf holds byte strings). */
static int parse_arg(const struct cli *c, const struct prism_param_info *pi, const char *val,
                     struct prism_arg *a, uint8_t *buf)
{
	a->name = pi->name;
	if (pi->type != PRISM_TYPE_BYTES) {
		uint64_t max = pi->size >= 8 ? UINT64_MAX : (1ull << (8 * pi->size)) - 1;
		unsigned long long v;
		char *end;

		errno = 0;
		v = strtoull(val, &end, 0);
		if (!*val || *end || errno || val[0] == '-' || v > max)
			return cli_usage(c, "--arg %s: '%s' is not an integer of %u bytes",
			                 pi->name, val, pi->size);
		a->u64 = v;
		return PRISMC_EXIT_OK;
	}
	if (pi->size > CALL_ARG_BYTES || cli_hex(val, buf, pi->size))
		return cli_usage(c, "--arg %s: '%s' is not %u bytes in hex (%u digits)", pi->name,
		                 val, pi->size, 2 * pi->size);
	a->bytes = buf;
	a->len = pi->size;
	return PRISMC_EXIT_OK;
}

/* The arguments of entry @e, in its parameter order. */
static int build_args(const struct call_opts *o, struct prism_client *cl, int e,
                      struct prism_arg *args, uint8_t (*bufs)[CALL_ARG_BYTES], size_t *nargs)
{
	int np = prism_client__param_count(cl, e);
	struct prism_param_info pi;

	if (np < 0 || np > CALL_MAX_ARGS)
		return cli_fail(&o->cli, PRISMC_EXIT_ERRORS, "entry has %d parameters", np);
	for (unsigned i = 0; i < o->nargs; i++) {
		size_t nl = strcspn(o->args[i], "=");
		int k;

		for (k = 0; k < np; k++) {
			prism_client__param(cl, e, k, &pi);
			if (strlen(pi.name) == nl && !strncmp(pi.name, o->args[i], nl))
				break;
		}
		if (k == np) {
			fprintf(stderr,
			        "%s: --arg %.*s: the entry has no parameter '%.*s'; it takes:",
			        o->cli.name, (int)nl, o->args[i], (int)nl, o->args[i]);
			for (k = 0; k < np; k++) {
				prism_client__param(cl, e, k, &pi);
				fprintf(stderr, " %s", pi.name);
			}
			fprintf(stderr, "\n");
			return PRISMC_EXIT_USAGE;
		}
	}
	for (int k = 0; k < np; k++) {
		const char *val = NULL;
		int rc;

		prism_client__param(cl, e, k, &pi);
		for (unsigned i = 0; i < o->nargs; i++)
			if (!strncmp(o->args[i], pi.name, strlen(pi.name)) &&
			    o->args[i][strlen(pi.name)] == '=')
				val = o->args[i] + strlen(pi.name) + 1;
		if (!val)
			return cli_usage(&o->cli, "missing --arg %s=VALUE", pi.name);
		rc = parse_arg(&o->cli, &pi, val, &args[k], bufs[k]);
		if (rc)
			return rc;
	}
	*nargs = (size_t)np;
	return PRISMC_EXIT_OK;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The report of `prismc run` (run_report.c), with the wall-clock latency
 * of @o->count invocations (their median, @lat_ns). */
static void report(const struct call_opts *o, struct prism_client *cl, int e,
                   const struct prism_call *call, const uint8_t *result, uint64_t lat_ns)
{
	struct run_outcome oc = {.entry = call->entry,
	                         .status = call->status,
	                         .ret_site = call->ret_site,
	                         .count = o->count,
	                         .wall_ns = lat_ns};
	struct prism_result_info ri;

	if (prism_client__result_count(cl, e) > 0 && !prism_client__result(cl, e, 0, &ri)) {
		oc.has_result = true;
		oc.value_name = ri.name;
		oc.value = result + ri.offset;
		oc.value_len = ri.size;
		oc.value_le = !ri.big_endian;
	}
	run_report_print(stdout, &oc, o->json);
}

/* A failure: one line of text (none when the runtime reported it
 * already), or one JSON object with --json. */
static int failed(const struct call_opts *o, const char *entry, int err, const char *what)
{
	if (o->json) {
		json_t *j =
		    json_pack("{s:o, s:i, s:s++}", "entry", json_text(entry), "status", err,
		              "error", what ? what : "", what ? ": " : "", prism_strerror(err));

		if (j)
			json_dumpf(j, stdout, JSON_COMPACT);
		fputc('\n', stdout);
		json_decref(j);
	} else if (!prismc_server_logged())
		fprintf(stderr, "%s: %s%s%s\n", o->cli.name, what ? what : "", what ? ": " : "",
		        prism_strerror(err));
	return prismc_server_exit(err);
}

static int call_server(const struct call_opts *o)
{
	static uint8_t bufs[CALL_MAX_ARGS][CALL_ARG_BYTES], result[CALL_ARG_BYTES];
	struct prism_arg args[CALL_MAX_ARGS] = {{0}};
	struct prism_device *dev;
	struct prism_client *cl = NULL;
	uint64_t *lat = NULL;
	size_t nargs = 0;
	int e, rc, err;

	if (!o->json)
		prismc_server_log(&o->cli);
	else
		prism_set_log_fn(NULL, NULL, PRISM_LOG_ERROR);
	dev = prism_device__open("sim", NULL);
	if (!dev)
		return failed(o, o->entry, -errno, "client device");
	PRISM_OPTS(prism_client_opts, co, .program = o->program, .timeout_ms = (int)o->timeout);
	cl = prism_client__connect(dev, o->server, &co);
	if (!cl) {
		/* the runtime says why, naming the server (not with --json) */
		rc = failed(o, o->entry, -errno, o->server);
		goto out;
	}
	e = prism_client__find_entry(cl, o->entry);
	if (e < 0 && o->entry) {
		char what[320];
		size_t n =
		    (size_t)snprintf(what, sizeof(what), "--entry %s (the program has", o->entry);

		for (int i = 0; prism_client__entry_name(cl, i) && n < sizeof(what); i++)
			n += (size_t)snprintf(what + n, sizeof(what) - n, "%s %s", i ? "," : ":",
			                      prism_client__entry_name(cl, i));
		if (n < sizeof(what))
			snprintf(what + n, sizeof(what) - n, ")");
		rc = failed(o, o->entry, e, what);
		goto out;
	}
	if (e < 0) {
		rc = failed(o, NULL, e, "entry");
		goto out;
	}
	rc = build_args(o, cl, e, args, bufs, &nargs);
	if (rc)
		goto out;
	lat = calloc(o->count, sizeof(*lat));
	if (!lat) {
		rc = failed(o, o->entry, -ENOMEM, "out of memory");
		goto out;
	}
	struct prism_call call = {.sz = sizeof(call),
	                          .entry = prism_client__entry_name(cl, e),
	                          .args = args,
	                          .nargs = nargs,
	                          .result = result,
	                          .result_cap = sizeof(result)};

	for (uint64_t i = 0; i < o->count; i++) {
		uint64_t t0 = util_now_ns();

		memset(result, 0, sizeof(result));
		err = prism_client__invoke(cl, &call, NULL);
		lat[i] = util_now_ns() - t0;
		if (err) {
			rc = failed(o, call.entry, err, "invocation");
			goto out;
		}
	}
	qsort(lat, o->count, sizeof(*lat), cmp_u64);
	report(o, cl, e, &call, result, lat[o->count / 2]);
	rc = PRISMC_EXIT_OK;
out:
	free(lat);
	prism_client__close(cl);
	prism_device__close(dev);
	return rc;
}

static int call_run(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"server", required_argument, NULL, 's'}, {"program", required_argument, NULL, 'p'},
	    {"entry", required_argument, NULL, 'e'},  {"arg", required_argument, NULL, 'a'},
	    {"count", required_argument, NULL, 'c'},  {"timeout", required_argument, NULL, 't'},
	    {"json", no_argument, NULL, 'j'},         {NULL, 0, NULL, 0},
	};
	static struct call_opts o;
	static char defserver[32];
	int ch;

	memset(&o, 0, sizeof(o));
	snprintf(defserver, sizeof(defserver), "127.0.0.1:%d", PRISM_DEFAULT_PORT);
	o.server = defserver;
	o.count = 1;
	o.timeout = 5000;
	cli_init(&o.cli, "prismc call", argc, argv, "s:p:e:a:c:t:j", longopts, call_help);
	while ((ch = cli_next(&o.cli)) != -1) {
		switch (ch) {
		case CLI_STOP:
			return o.cli.exit;
		case 's':
			if (check_server(&o.cli, optarg))
				return PRISMC_EXIT_USAGE;
			o.server = optarg;
			break;
		case 'p':
			o.program = optarg;
			break;
		case 'e':
			o.entry = optarg;
			break;
		case 'a':
			if (!strchr(optarg, '=') || optarg[0] == '=' || o.nargs == CALL_MAX_ARGS)
				return cli_usage(&o.cli, "--arg wants NAME=VALUE (at most %d)",
				                 CALL_MAX_ARGS);
			o.args[o.nargs++] = optarg;
			break;
		case 'c':
			if (cli_uint(&o.cli, optarg, 1, 1000000, &o.count))
				return PRISMC_EXIT_USAGE;
			break;
		case 't':
			if (cli_uint(&o.cli, optarg, 1, 3600000, &o.timeout))
				return PRISMC_EXIT_USAGE;
			break;
		case 'j':
			o.json = true;
			break;
		}
	}
	if (optind < argc)
		return cli_usage(&o.cli, "unexpected argument '%s'", argv[optind]);
	return call_server(&o);
}

const struct prismc_cmd cmd_call = {
    .name = "call",
    .summary = "invoke an entry point of a program on a running server; print the result",
    .run = call_run,
    .help = call_help,
};
