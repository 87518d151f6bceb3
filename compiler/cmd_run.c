/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd_run.c - `prismc run`: compile if needed, load the program on
 * an embedded software NIC, invoke one entry point, print the result and the
 * virtual-clock latency with the cost profile that produced it.
 *
 *     prismc run foo.prism|foo.chain [--entry NAME] [--arg NAME=VALUE]...
 *                [--region NAME=FILE]... [--profile cx5|FILE.yaml]
 *                [--trace OUT.json] [--device NAME] [--json]
 *
 * Owns: option parsing, region set-up (declared size, contents from a file),
 * argument parsing by the entry's parameter types, and the report.
 * Must not: pack WQEs or touch the NIC except through prism.h.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <prism/prism.h>

#include "compiler/chain_source.h"
#include "compiler/cmd.h"

#define RUN_MAX_ARGS    16
#define RUN_MAX_REGIONS 16

static void run_help(FILE *out)
{
	fprintf(
	    out,
	    "usage: prismc run FILE.prism|FILE.chain [--entry NAME] [--arg NAME=VALUE]...\n"
	    "                  [--region NAME=FILE]... [--profile P] [--trace OUT.json]\n"
	    "                  [--device NAME] [--json]\n\n"
	    "Compile the offload (a .chain is used as is), load it onto an embedded software\n"
	    "NIC (the loader re-verifies it), connect a client, invoke the entry point once\n"
	    "and print the result and the virtual-clock latency under the cost profile.\n\n"
	    "options:\n"
	    "  --entry NAME        offload / entry point (default: the first)\n"
	    "  --arg NAME=VALUE    a parameter: integers in C syntax (0x2a, 42); addresses\n"
	    "                      are offsets inside their region; byte strings as hex\n"
	    "  --region NAME=FILE  initial contents of a declared region (else zeros)\n"
	    "  --profile P         NIC cost profile: cx5 (default) or a YAML file\n"
	    "  --trace OUT.json    write a Chrome/Perfetto trace of every WQE executed\n"
	    "  --device NAME       run on this device (default sim; prismc devices lists them)\n"
	    "  --json              print the report as one JSON object\n"
	    "  -h, --help          this help\n\n"
	    "exit status: 0 ok, 1 program rejected or invocation failed, 2 usage,\n"
	    "3 unreadable file, 4 internal error.\n");
}

struct kv {
	const char *name, *value;
};

static int split_kv(char *s, struct kv *kv)
{
	char *eq = strchr(s, '=');

	if (!eq || eq == s)
		return -1;
	*eq = 0;
	kv->name = s;
	kv->value = eq + 1;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parse @kv for parameter @p into @a (bytes into @buf). */
static int parse_arg(const struct kv *kv, const struct prism_param_info *p, struct prism_arg *a,
                     uint8_t *buf)
{
	char *end;

	a->name = p->name;
	if (p->type != PRISM_TYPE_BYTES) {
		errno = 0;
		a->u64 = strtoull(kv->value, &end, 0);
		if (errno || *end || !*kv->value) {
			fprintf(stderr, "prismc run: --arg %s: '%s' is not an integer\n", kv->name,
			        kv->value);
			return -1;
		}
		return 0;
	}
	const char *h = kv->value;

	if (h[0] == '0' && (h[1] == 'x' || h[1] == 'X'))
		h += 2;
	if (strlen(h) != 2u * p->size) {
		fprintf(stderr, "prismc run: --arg %s: needs %u bytes (%u hex digits)\n", kv->name,
		        p->size, 2 * p->size);
		return -1;
	}
	for (uint32_t i = 0; i < p->size; i++) {
		int hi = hexval(h[2 * i]), lo = hexval(h[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			fprintf(stderr, "prismc run: --arg %s: '%s' is not hex\n", kv->name,
			        kv->value);
			return -1;
		}
		buf[i] = (uint8_t)(hi << 4 | lo);
	}
	a->bytes = buf;
	a->len = p->size;
	return 0;
}

static int load_region_file(struct prism_region *r, const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		fprintf(stderr, "prismc run: %s: %s\n", path, strerror(errno));
		return PRISMC_EXIT_IO;
	}
	n = fread(prism_region__addr(r), 1, prism_region__size(r), f);
	if (fgetc(f) != EOF) {
		fprintf(stderr, "prismc run: %s is larger than region '%s' (%zu bytes)\n", path,
		        prism_region__name(r), prism_region__size(r));
		fclose(f);
		return PRISMC_EXIT_IO;
	}
	fclose(f);
	(void)n;
	return PRISMC_EXIT_OK;
}

static void print_hex(FILE *out, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%02x", p[i]);
}

/* Human or JSON report of one invocation. */
static void report(const struct prism_client *cl, int e, const struct prism_call *c,
                   const char *profile, bool json)
{
	int nres = prism_client__result_count(cl, e);

	if (json) {
		printf("{\"entry\":\"%s\",\"status\":%d,\"return_site\":%u,\"results\":{", c->entry,
		       c->status, c->ret_site);
		for (int i = 0; i < nres; i++) {
			struct prism_result_info ri;

			prism_client__result(cl, e, i, &ri);
			printf("%s\"%s\":\"", i ? "," : "", ri.name);
			print_hex(stdout, (const uint8_t *)c->result + ri.offset, ri.size);
			printf("\"");
		}
		printf("},\"virtual_ns\":%llu,\"profile\":\"%s\"}\n",
		       (unsigned long long)c->virt_ns, profile);
		return;
	}
	printf("entry %s: %s\n", c->entry,
	       c->ret_site ? "returned" : "finished without a return (no match)");
	if (c->ret_site)
		printf("  return site  %u\n", c->ret_site);
	for (int i = 0; i < nres; i++) {
		struct prism_result_info ri;

		prism_client__result(cl, e, i, &ri);
		printf("  %-12s ", ri.name);
		print_hex(stdout, (const uint8_t *)c->result + ri.offset, ri.size);
		printf("\n");
	}
	printf("  latency      %.2f us virtual (cost profile %s; client SEND to result)\n",
	       (double)c->virt_ns / 1000.0, profile);
}

static int run_run(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"entry", required_argument, NULL, 'e'},
	    {"arg", required_argument, NULL, 'a'},
	    {"region", required_argument, NULL, 'r'},
	    {"profile", required_argument, NULL, 'p'},
	    {"trace", required_argument, NULL, 't'},
	    {"json", no_argument, NULL, 'j'},
	    {"device", required_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct kv args[RUN_MAX_ARGS], regs[RUN_MAX_REGIONS];
	unsigned nargs = 0, nregs = 0;
	const char *entry = NULL, *profile = "cx5", *trace = NULL, *device = "sim";
	bool json = false;
	int ch, rc;

	if (prismc_wants_help(argc, argv)) {
		run_help(stdout);
		return PRISMC_EXIT_OK;
	}
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		struct kv kv;

		switch (ch) {
		case 'e':
			entry = optarg;
			break;
		case 'a':
		case 'r':
			if (split_kv(optarg, &kv) ||
			    (ch == 'a' ? nargs == RUN_MAX_ARGS : nregs == RUN_MAX_REGIONS)) {
				fprintf(stderr, "prismc run: --%s wants NAME=VALUE\n",
				        ch == 'a' ? "arg" : "region");
				return PRISMC_EXIT_USAGE;
			}
			if (ch == 'a')
				args[nargs++] = kv;
			else
				regs[nregs++] = kv;
			break;
		case 'p':
			profile = optarg;
			break;
		case 't':
			trace = optarg;
			break;
		case 'd':
			device = optarg;
			break;
		case 'j':
			json = true;
			break;
		default:
			fprintf(stderr, "prismc run: bad option (see --help)\n");
			return PRISMC_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "prismc run: need one .prism or .chain file\n");
		return PRISMC_EXIT_USAGE;
	}

	char *yaml = NULL;
	size_t len = 0;

	rc = chain_source_load(argv[optind], entry, &yaml, &len);
	if (rc)
		return rc;
	prism_set_log_fn(prism_log_stderr, NULL, PRISM_LOG_WARN);

	struct prism_device *dev = NULL;
	struct prism_program *prog = NULL;
	struct prism_server *srv = NULL;
	struct prism_client *cl = NULL;
	PRISM_OPTS(prism_device_opts, dopts, .profile = profile, .trace_path = trace);

	rc = PRISMC_EXIT_ERRORS;
	prog = prism_program__open_mem(yaml, len, NULL);
	dev = prog ? prism_device__open(device, &dopts) : NULL;
	if (!prog || !dev)
		goto out;
	/* Every region the object declares: its declared size, zeros or a file. */
	for (unsigned i = 0; i < nregs; i++) {
		FILE *f = fopen(regs[i].value, "rb");
		long sz = -1;

		if (f && !fseek(f, 0, SEEK_END))
			sz = ftell(f);
		if (f)
			fclose(f);
		if (sz < 0) {
			fprintf(stderr, "prismc run: %s: %s\n", regs[i].value, strerror(errno));
			rc = PRISMC_EXIT_IO;
			goto out;
		}
		PRISM_OPTS(prism_region_opts, ro,
		           .access = PRISM_ACCESS_READ | PRISM_ACCESS_WRITE | PRISM_ACCESS_ATOMIC);
		struct prism_region *r =
		    prism_device__create_region(dev, regs[i].name, sz ? (size_t)sz : 1, &ro);
		if (!r || (rc = load_region_file(r, regs[i].value)))
			goto out;
		rc = PRISMC_EXIT_ERRORS;
	}
	/* Declared regions not given on the command line: declared size, zeros. */
	for (int i = 0; i < prism_program__region_count(prog); i++) {
		struct prism_region_info ri;

		prism_program__region(prog, i, &ri);
		PRISM_OPTS(prism_region_opts, ro, .access = ri.access);
		if (!prism_device__find_region(dev, ri.name) &&
		    !prism_device__create_region(dev, ri.name, ri.size, &ro))
			goto out;
	}
	if (prism_program__load(prog, dev))
		goto out_rc;
	PRISM_OPTS(prism_server_opts, sopts, .rearm = PRISM_REARM_AUTO);
	srv = prism_server__create(dev, &sopts);
	if (!srv || prism_server__add_program(srv, prog))
		goto out;
	cl = prism_client__connect_local(srv, NULL);
	if (!cl)
		goto out;

	int e = prism_client__find_entry(cl, NULL);
	int np = e >= 0 ? prism_client__param_count(cl, e) : -1;
	struct prism_arg pargs[RUN_MAX_ARGS] = {{0}};
	uint8_t bytes[RUN_MAX_ARGS][4096];

	if (np < 0 || (unsigned)np != nargs) {
		fprintf(stderr, "prismc run: the entry takes %d argument(s):", np);
		for (int i = 0; i < np; i++) {
			struct prism_param_info pi;

			prism_client__param(cl, e, i, &pi);
			fprintf(stderr, " %s", pi.name);
		}
		fprintf(stderr, "; %u given\n", nargs);
		rc = PRISMC_EXIT_USAGE;
		goto out;
	}
	for (int i = 0; i < np; i++) {
		struct prism_param_info pi;
		unsigned j;

		prism_client__param(cl, e, i, &pi);
		for (j = 0; j < nargs && strcmp(args[j].name, pi.name); j++)
			;
		if (j == nargs) {
			fprintf(stderr, "prismc run: missing --arg %s=VALUE\n", pi.name);
			rc = PRISMC_EXIT_USAGE;
			goto out;
		}
		if (parse_arg(&args[j], &pi, &pargs[i], bytes[i])) {
			rc = PRISMC_EXIT_USAGE;
			goto out;
		}
	}

	uint8_t result[4096] = {0};
	struct prism_call c = {.sz = sizeof(c),
	                       .entry = NULL,
	                       .args = pargs,
	                       .nargs = (size_t)np,
	                       .result = result,
	                       .result_cap = sizeof(result)};

	c.entry = prism_program__entry_name(prog, 0);
	rc = prism_client__invoke(cl, &c, NULL);
	if (rc) {
		fprintf(stderr, "prismc run: invocation failed: %s\n", prism_strerror(rc));
		rc = PRISMC_EXIT_ERRORS;
		goto out;
	}
	report(cl, e, &c, prism_device__profile(dev) ? prism_device__profile(dev) : profile, json);
	rc = PRISMC_EXIT_OK;
	goto out;
out_rc:
	rc = PRISMC_EXIT_ERRORS;
out:
	prism_client__close(cl);
	prism_server__destroy(srv);
	prism_program__close(prog);
	prism_device__close(dev);
	free(yaml);
	if (trace && rc == PRISMC_EXIT_OK && !json)
		printf("  trace        %s (open in ui.perfetto.dev or chrome://tracing)\n", trace);
	return rc;
}

const struct prismc_cmd cmd_run = {
    .name = "run",
    .summary = "run an offload once on an embedded software NIC (result, virtual latency)",
    .run = run_run,
    .help = run_help,
};
