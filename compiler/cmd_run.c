/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd_run.c - `prismc run`: compile if needed, load the program on
 * an embedded software NIC, invoke one entry point, print the result and the
 * virtual-clock latency with the cost profile that produced it; or, with
 * --reference, compute the same invocation with the reference interpreter
 * (compiler/interp.c) and print it in the same format.
 *
 *     prismc run foo.prism|foo.chain [--entry NAME] [--arg NAME=VALUE]...
 *                [--region NAME=FILE]... [--set SPEC]... [--set-file FILE]...
 *                [--save NAME=FILE]... [--firmware relaxed|strict]
 *                [--cost cx5|FILE.yaml] [--reference] [--trace OUT.json] [--json]
 *
 * Owns: option parsing, region set-up (declared size, contents from a file,
 * typed and pointer stores: run_image.c), argument parsing by the entry's
 * parameter types, and failures (printed, and with --json kept for one JSON
 * object); the report itself is run_report.c.
 * Must not: pack WQEs or touch the NIC except through prism.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <prism/prism.h>

#include "compiler/chain_source.h"
#include "compiler/cmd.h"
#include "compiler/frontend.h"
#include "compiler/interp.h"
#include "compiler/run_image.h"
#include "compiler/run_report.h"
#include "util/hex.h"

#define RUN_MAX_ARGS     16
#define RUN_MAX_REGIONS  64
#define RUN_MAX_SETS     256
#define RUN_ARG_BYTES    4096
#define RUN_SET_FILE_MAX (16u << 20)

/* Failures: each is printed on stderr as it happens; with --json the first
 * one is kept and printed on stdout as a JSON object when the run ends. */
static struct {
	bool json;
	char first[512];
} run_err;

static void run_keep(const char *msg)
{
	if (run_err.json && !run_err.first[0])
		snprintf(run_err.first, sizeof(run_err.first), "%s", msg);
}

__attribute__((format(printf, 1, 2))) static void run_fail(const char *fmt, ...)
{
	char msg[sizeof(run_err.first)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "prismc run: %s\n", msg);
	run_keep(msg);
}

/* The library's messages: on stderr, and the first error kept for --json. */
static void run_log(enum prism_log_level level, const char *msg, void *ctx)
{
	prism_log_stderr(level, msg, ctx);
	if (level == PRISM_LOG_ERROR)
		run_keep(msg);
}

static void run_help(FILE *out)
{
	fprintf(
	    out,
	    "usage: prismc run FILE.prism|FILE.chain [--entry NAME] [--arg NAME=VALUE]...\n"
	    "                  [--region NAME=FILE]... [--set SPEC]... [--set-file FILE]...\n"
	    "                  [--save NAME=FILE]... [--firmware P] [--cost C] [--reference]\n"
	    "                  [--device NAME] [--trace OUT.json] [--json]\n\n"
	    "Compile the offload (a .chain is used as is), load it onto a NIC (an embedded\n"
	    "software NIC by default; the loader re-verifies it), connect a client through\n"
	    "the same device, invoke the entry point once\n"
	    "and print the result and the virtual-clock latency under the cost profile.\n"
	    "With --reference, the reference interpreter computes the same invocation from\n"
	    "the language's definition (no WQEs) and prints it in the same format.\n\n"
	    "options:\n"
	    "  --entry NAME        offload / entry point (default: the first)\n"
	    "  --arg NAME=VALUE    a parameter: integers in C syntax (0x2a, 42); a pointer\n"
	    "                      is an offset inside its region; byte strings as hex\n"
	    "  --region NAME=FILE  initial contents of a declared region (else zeros)\n"
	    "  --set R[+OFF]=T:V   store V as scalar type T (u8, be16, ..., le64) at byte\n"
	    "                      OFF of region R; V is an integer or &R2[+OFF2], the\n"
	    "                      address of byte OFF2 of region R2 (a pointer, be64 or\n"
	    "                      le64, relocated to where R2 is); T hex: raw bytes\n"
	    "  --set-file FILE     --set specifications from a file, one a line ('#' comments)\n"
	    "  --save NAME=FILE    write region NAME's bytes to FILE after the invocation\n"
	    "  --firmware P        firmware profile: relaxed (default) or strict; a .prism\n"
	    "                      is compiled for it and the NIC checks WQEs by it\n"
	    "  --cost C            NIC cost profile (timing model): cx5 (default) or a YAML\n"
	    "  --device NAME       the NIC: sim (default) or an RDMA device such as mlx5_0\n"
	    "                      (`prismc devices` lists them)\n"
	    "  --reference         run the reference interpreter instead of the NIC\n"
	    "  --trace OUT.json    write a Chrome/Perfetto trace of every WQE executed\n"
	    "  --json              print the report as one JSON object\n"
	    "  -h, --help          this help\n"
	    "  -V, --version       the version\n\n"
	    "FILE '-' reads a .prism from standard input.\n\n"
	    "exit status: 0 ok, 1 program rejected or invocation failed, 2 usage (or no\n"
	    "such input file), 3 unreadable file, 4 internal error.\n");
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

/* One --arg value: an integer (@bytes_size 0) or @bytes_size hex bytes. */
static int parse_value(const struct kv *kv, uint32_t bytes_size, uint64_t *u64, uint8_t *buf)
{
	char *end;

	if (!bytes_size) {
		errno = 0;
		*u64 = strtoull(kv->value, &end, 0);
		/* strtoull takes blanks and a sign ("-1" would be all ones) */
		if (errno || *end || !isdigit((unsigned char)kv->value[0])) {
			run_fail("--arg %s: '%s' is not an integer", kv->name, kv->value);
			return -1;
		}
		return 0;
	}
	const char *h = kv->value;

	if (h[0] == '0' && (h[1] == 'x' || h[1] == 'X'))
		h += 2;
	if (bytes_size > RUN_ARG_BYTES || strlen(h) != 2u * bytes_size) {
		run_fail("--arg %s: needs %u bytes (%u hex digits)", kv->name, bytes_size,
		         2 * bytes_size);
		return -1;
	}
	if (hex_decode(h, bytes_size, buf)) {
		run_fail("--arg %s: '%s' is not hex", kv->name, kv->value);
		return -1;
	}
	return 0;
}

static const struct kv *find_kv(const struct kv *kvs, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(kvs[i].name, name))
			return &kvs[i];
	return NULL;
}

struct run_opts {
	const struct cli *cli;
	const char *path, *entry, *cost, *trace, *device;
	enum ir_profile firmware;
	bool json, reference;
	struct kv args[RUN_MAX_ARGS], regs[RUN_MAX_REGIONS], saves[RUN_MAX_REGIONS];
	unsigned nargs, nregs, nsaves;
	const char *sets[RUN_MAX_SETS];
	bool set_is_file[RUN_MAX_SETS];
	unsigned nsets;
};

/*
 * A --set-file: its lines applied in order; a wrong one is reported at its
 * position (file:line:col, the line, a caret under the part that is wrong).
 * Returns an enum prismc_exit.
 */
static int set_file(const struct run_opts *o, const char *path, const struct interp_env *env)
{
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	struct diag_ctx d;
	char *text;
	size_t len;
	int rc = cli_read_all(o->cli, path, RUN_SET_FILE_MAX, &text, &len);

	if (rc)
		return rc;
	diag_init(&d, name, text, len);
	rc = PRISMC_EXIT_OK;
	if (run_image_set_text(env, text, len, &d)) {
		const struct diag *g = &d.items[0];
		char msg[sizeof(run_err.first)];

		diag_render(&d, stderr);
		snprintf(msg, sizeof(msg), "--set-file %s:%u:%u: %s", name, g->loc.line, g->loc.col,
		         g->message);
		run_keep(msg);
		rc = PRISMC_EXIT_USAGE;
	}
	diag_fini(&d);
	free(text);
	return rc;
}

/* Region files, then --set / --set-file in command-line order. */
static int fill_images(const struct run_opts *o, const struct interp_env *env)
{
	char err[320];

	for (unsigned i = 0; i < o->nregs; i++) {
		int rc = run_image_load(env, o->regs[i].name, o->regs[i].value, err, sizeof(err));

		if (rc) {
			run_fail("%s", err);
			return rc == RUN_IMAGE_E_NAME || rc == RUN_IMAGE_E_MISSING
			           ? PRISMC_EXIT_USAGE
			           : PRISMC_EXIT_IO;
		}
	}
	for (unsigned i = 0; i < o->nsets; i++) {
		int rc = o->set_is_file[i] ? set_file(o, o->sets[i], env)
		                           : run_image_set(env, o->sets[i], err, sizeof(err));

		if (rc < 0) {
			run_fail("--set: %s", err);
			return PRISMC_EXIT_USAGE;
		}
		if (rc)
			return rc;
	}
	return PRISMC_EXIT_OK;
}

static int save_images(const struct run_opts *o, const struct interp_env *env)
{
	char err[320];

	for (unsigned i = 0; i < o->nsaves; i++) {
		int rc = run_image_save(env, o->saves[i].name, o->saves[i].value, err, sizeof(err));

		if (rc) {
			run_fail("%s", err);
			return rc == RUN_IMAGE_E_NAME ? PRISMC_EXIT_USAGE : PRISMC_EXIT_IO;
		}
	}
	return PRISMC_EXIT_OK;
}

static int check_arg_names(const struct run_opts *o, const char *const *names, unsigned n)
{
	for (unsigned i = 0; i < o->nargs; i++) {
		unsigned j;

		for (j = 0; j < n && strcmp(names[j], o->args[i].name); j++)
			;
		if (j == n) {
			char list[256] = "";
			size_t len = 0;

			for (j = 0; j < n && len < sizeof(list); j++)
				len += (size_t)snprintf(list + len, sizeof(list) - len, " %s",
				                        names[j]);
			run_fail("--arg %s: the entry has no parameter '%s'; it takes:%s",
			         o->args[i].name, o->args[i].name, n ? list : " none");
			return PRISMC_EXIT_USAGE;
		}
	}
	return PRISMC_EXIT_OK;
}

/* ---- the reference interpreter ---------------------------------------- */

static int run_reference(const struct run_opts *o)
{
	struct frontend_unit u;
	enum frontend_status st = frontend_load(&u, o->path, NULL);
	struct interp_region regs[RUN_MAX_REGIONS];
	struct interp_env env = {.regions = regs};
	struct interp_result res = {0};
	uint8_t *payload = NULL;
	int rc = PRISMC_EXIT_ERRORS;

	diag_render(&u.diag, stderr);
	if (st == FRONTEND_ERRORS)
		run_keep("the program has errors (the diagnostics are on stderr)");
	if (st != FRONTEND_OK) {
		rc = st == FRONTEND_IO      ? PRISMC_EXIT_IO
		     : st == FRONTEND_NOMEM ? PRISMC_EXIT_INTERNAL
		                            : PRISMC_EXIT_ERRORS;
		if (st == FRONTEND_IO) {
			rc = cli_open_exit(u.io_error);
			run_fail("%s: %s", o->path, strerror(u.io_error));
		}
		frontend_fini(&u);
		return rc;
	}
	const struct ast_program *prog = u.prog;
	const struct ast_offload *off = frontend_entry(&u.diag, prog, "--entry", o->entry);

	if (!off) { /* the front end's diagnostics are out already: this one only */
		diag_render_one(&u.diag, &u.diag.items[u.diag.count - 1], stderr);
		run_keep(u.diag.items[u.diag.count - 1].message);
		frontend_fini(&u);
		return PRISMC_EXIT_USAGE;
	}
	/* every region and free list: declared size, zeros (the NIC-visible
	 * address of an image is where it is in this process) */
	for (const struct ast_region *r = prog->regions; r; r = r->next) {
		if (env.nregions == RUN_MAX_REGIONS)
			goto nomem;
		struct interp_region *ir = &regs[env.nregions];

		ir->name = r->name;
		ir->size = r->size;
		ir->bytes = calloc(1, r->size ? r->size : 1);
		if (!ir->bytes)
			goto nomem;
		ir->addr = (uintptr_t)ir->bytes;
		env.nregions++;
	}
	for (const struct ast_freelist *fl = prog->freelists; fl; fl = fl->next) {
		if (env.nregions == RUN_MAX_REGIONS)
			goto nomem;
		struct interp_region *ir = &regs[env.nregions];

		ir->name = fl->name;
		ir->size = INTERP_FREELIST_BYTES;
		ir->bytes = calloc(1, ir->size);
		if (!ir->bytes)
			goto nomem;
		ir->addr = (uintptr_t)ir->bytes;
		env.nregions++;
	}
	rc = fill_images(o, &env);
	if (rc)
		goto out;
	const char *names[RUN_MAX_ARGS] = {0};
	unsigned np = 0;

	for (const struct ast_param *p = off->params; p && np < RUN_MAX_ARGS; p = p->next)
		names[np++] = p->name;
	rc = check_arg_names(o, names, np);
	if (rc)
		goto out;
	payload = calloc(1, off->args_size ? off->args_size : 1);
	if (!payload)
		goto nomem;
	for (const struct ast_param *p = off->params; p; p = p->next) {
		const struct kv *kv = find_kv(o->args, o->nargs, p->name);
		static uint8_t buf[RUN_ARG_BYTES];
		uint64_t v = 0;
		char err[256];
		uint32_t bsize = ast_type_width(p->type) ? 0 : (uint32_t)p->type->size;

		if (!kv) {
			run_fail("missing --arg %s=VALUE", p->name);
			rc = PRISMC_EXIT_USAGE;
			goto out;
		}
		if (parse_value(kv, bsize, &v, buf) ||
		    interp_pack_arg(p, v, buf, bsize, &env, payload, err, sizeof(err))) {
			if (!bsize && kv)
				run_fail("%s", err);
			rc = PRISMC_EXIT_USAGE;
			goto out;
		}
	}
	if (interp_run(prog, off, payload, &env, &res))
		goto nomem;
	if (!res.ok) {
		run_fail("invocation failed (reference): %s", res.error);
		rc = PRISMC_EXIT_ERRORS;
		goto out;
	}
	struct run_outcome oc = {.entry = off->name,
	                         .ret_site = res.ret_site,
	                         .has_result = off->ret_type != NULL,
	                         .value = res.ret,
	                         .value_len = res.ret_len,
	                         .value_le = off->ret_type &&
	                                     ast_type_order(off->ret_type) == AST_ORDER_LE &&
	                                     ast_type_width(off->ret_type)};

	run_report_print(stdout, &oc, o->json);
	rc = save_images(o, &env);
	goto out;
nomem:
	run_fail("out of memory");
	rc = PRISMC_EXIT_INTERNAL;
out:
	interp_result_free(&res);
	free(payload);
	for (size_t i = 0; i < env.nregions; i++)
		free(regs[i].bytes);
	frontend_fini(&u);
	return rc;
}

/* ---- the software NIC -------------------------------------------------- */

static int run_nic(const struct run_opts *o)
{
	char *yaml = NULL;
	size_t len = 0;
	int rc = chain_source_load(o->cli, o->path, o->entry, o->firmware, &yaml, &len);

	if (rc) {
		run_keep(rc == PRISMC_EXIT_ERRORS
		             ? "the program has errors (the diagnostics are on stderr)"
		             : "the program could not be read (see stderr)");
		return rc;
	}
	prism_set_log_fn(run_log, NULL, PRISM_LOG_WARN);

	struct prism_device *dev = NULL;
	struct prism_program *prog = NULL;
	struct prism_server *srv = NULL;
	struct prism_client *cl = NULL;
	struct interp_region regs[RUN_MAX_REGIONS];
	struct interp_env env = {.regions = regs};
	PRISM_OPTS(prism_device_opts, dopts, .profile = o->cost,
	           .firmware = o->firmware == IR_PROFILE_STRICT ? "strict" : "relaxed",
	           .trace_path = o->trace);

	/* the only client is this command's own: an object compiled with
	 * --no-request-gate runs (the loader says so) */
	PRISM_OPTS(prism_program_opts, popts, .allow_ungated = true);

	rc = PRISMC_EXIT_ERRORS;
	prog = prism_program__open_mem(yaml, len, &popts);
	dev = prog ? prism_device__open(o->device ? o->device : "sim", &dopts) : NULL;
	if (!prog || !dev)
		goto out;
	/* every region the object declares: its declared size, zeros */
	for (int i = 0; i < prism_program__region_count(prog); i++) {
		struct prism_region_info ri;

		prism_program__region(prog, i, &ri);
		PRISM_OPTS(prism_region_opts, ro, .access = ri.access);
		struct prism_region *r = prism_device__create_region(dev, ri.name, ri.size, &ro);

		if (!r || env.nregions == RUN_MAX_REGIONS)
			goto out;
		regs[env.nregions++] = (struct interp_region){.name = prism_region__name(r),
		                                              .addr = prism_region__nic_addr(r),
		                                              .bytes = prism_region__addr(r),
		                                              .size = prism_region__size(r)};
	}
	rc = fill_images(o, &env);
	if (rc)
		goto out;
	rc = PRISMC_EXIT_ERRORS;
	if (prism_program__load(prog, dev))
		goto out;
	PRISM_OPTS(prism_server_opts, sopts, .rearm = PRISM_REARM_AUTO);
	srv = prism_server__create(dev, &sopts);
	if (!srv || prism_server__add_program(srv, prog))
		goto out;
	cl = prism_client__connect_local(srv, NULL);
	if (!cl)
		goto out;

	int e = prism_client__find_entry(cl, o->entry); /* chain_source_load checked it */
	int np = e >= 0 ? prism_client__param_count(cl, e) : -1;
	struct prism_arg pargs[RUN_MAX_ARGS] = {{0}};
	static uint8_t bytes[RUN_MAX_ARGS][RUN_ARG_BYTES];
	const char *names[RUN_MAX_ARGS] = {0};

	if (np < 0 || np > RUN_MAX_ARGS)
		goto out;
	for (int i = 0; i < np; i++) {
		struct prism_param_info pi;

		prism_client__param(cl, e, i, &pi);
		names[i] = pi.name;
	}
	rc = check_arg_names(o, names, (unsigned)np);
	if (rc)
		goto out;
	for (int i = 0; i < np; i++) {
		struct prism_param_info pi;
		const struct kv *kv;

		prism_client__param(cl, e, i, &pi);
		kv = find_kv(o->args, o->nargs, pi.name);
		if (!kv) {
			run_fail("missing --arg %s=VALUE", pi.name);
			rc = PRISMC_EXIT_USAGE;
			goto out;
		}
		pargs[i].name = pi.name;
		if (parse_value(kv, pi.type == PRISM_TYPE_BYTES ? pi.size : 0, &pargs[i].u64,
		                bytes[i])) {
			rc = PRISMC_EXIT_USAGE;
			goto out;
		}
		if (pi.type == PRISM_TYPE_BYTES) {
			pargs[i].bytes = bytes[i];
			pargs[i].len = pi.size;
		}
	}

	static uint8_t result[RUN_ARG_BYTES];
	struct prism_call c = {.sz = sizeof(c),
	                       .entry = prism_program__entry_name(prog, 0),
	                       .args = pargs,
	                       .nargs = (size_t)np,
	                       .result = result,
	                       .result_cap = sizeof(result)};

	memset(result, 0, sizeof(result));
	rc = prism_client__invoke(cl, &c, NULL);
	if (rc) {
		run_fail("invocation failed: %s", prism_strerror(rc));
		rc = PRISMC_EXIT_ERRORS;
		goto out;
	}
	struct run_outcome oc = {.entry = c.entry,
	                         .status = c.status,
	                         .ret_site = c.ret_site,
	                         .engine = prism_device__profile(dev) ? prism_device__profile(dev)
	                                                              : o->cost,
	                         .virt_ns = c.virt_ns};

	if (prism_client__result_count(cl, e) > 0) {
		struct prism_result_info ri;

		prism_client__result(cl, e, 0, &ri);
		oc.has_result = true;
		oc.value = result + ri.offset;
		oc.value_len = ri.size;
		oc.value_le = !ri.big_endian;
	}
	run_report_print(stdout, &oc, o->json);
	rc = save_images(o, &env);
	if (!rc && o->trace && !o->json)
		printf("  trace        %s (open in ui.perfetto.dev or chrome://tracing)\n",
		       o->trace);
out:
	prism_client__close(cl);
	prism_server__destroy(srv);
	prism_program__close(prog);
	prism_device__close(dev);
	free(yaml);
	return rc;
}

static int run_cmd(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"entry", required_argument, NULL, 'e'},    {"arg", required_argument, NULL, 'a'},
	    {"region", required_argument, NULL, 'r'},   {"set", required_argument, NULL, 's'},
	    {"set-file", required_argument, NULL, 'S'}, {"save", required_argument, NULL, 'o'},
	    {"firmware", required_argument, NULL, 'f'}, {"profile", required_argument, NULL, 'f'},
	    {"cost", required_argument, NULL, 'c'},     {"reference", no_argument, NULL, 'R'},
	    {"trace", required_argument, NULL, 't'},    {"json", no_argument, NULL, 'j'},
	    {"device", required_argument, NULL, 'd'},   {NULL, 0, NULL, 0},
	};
	static struct run_opts o;
	struct cli cl;
	int ch;

	memset(&o, 0, sizeof(o));
	o.cost = "cx5";
	o.cli = &cl;
	cli_init(&cl, "prismc run", argc, argv, "", longopts, run_help);
	if (run_err.json) {
		cl.keep = run_err.first;
		cl.keep_len = sizeof(run_err.first);
	}
	while ((ch = cli_next(&cl)) != -1) {
		struct kv kv;

		switch (ch) {
		case CLI_STOP:
			return cl.exit;
		case 'e':
			o.entry = optarg;
			break;
		case 'a':
		case 'r':
		case 'o': {
			const char *opt = ch == 'a' ? "arg" : ch == 'r' ? "region" : "save";
			unsigned *n = ch == 'a' ? &o.nargs : ch == 'r' ? &o.nregs : &o.nsaves;
			unsigned cap = ch == 'a' ? RUN_MAX_ARGS : RUN_MAX_REGIONS;

			if (split_kv(optarg, &kv) || *n == cap)
				return cli_usage(&cl, "--%s wants NAME=VALUE (at most %u)", opt,
				                 cap);
			(ch == 'a' ? o.args : ch == 'r' ? o.regs : o.saves)[(*n)++] = kv;
			break;
		}
		case 's':
		case 'S':
			if (o.nsets == RUN_MAX_SETS)
				return cli_usage(&cl, "at most %u --set/--set-file", RUN_MAX_SETS);
			o.set_is_file[o.nsets] = ch == 'S';
			o.sets[o.nsets++] = optarg;
			break;
		case 'f':
			if (prismc_firmware_arg(&cl, optarg, &o.firmware))
				return PRISMC_EXIT_USAGE;
			break;
		case 'c':
			o.cost = optarg;
			break;
		case 'R':
			o.reference = true;
			break;
		case 't':
			o.trace = optarg;
			break;
		case 'd':
			o.device = optarg;
			break;
		case 'j':
			o.json = true;
			break;
		}
	}
	if (optind != argc - 1)
		return cli_usage(&cl, "need one .prism or .chain file");
	o.path = argv[optind];
	if (o.reference) {
		size_t pl = strlen(o.path);

		if (pl > 6 && !strcmp(o.path + pl - 6, ".chain")) {
			run_fail("--reference interprets the source: give the .prism file");
			return PRISMC_EXIT_USAGE;
		}
		if (o.trace) {
			run_fail("--trace traces the NIC; not with --reference");
			return PRISMC_EXIT_USAGE;
		}
		return run_reference(&o);
	}
	return run_nic(&o);
}

/* With --json a failure is also one JSON object on stdout: {"error", "exit_status"}. */
static int run_run(int argc, char **argv)
{
	memset(&run_err, 0, sizeof(run_err));
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json"))
			run_err.json = true;

	int rc = run_cmd(argc, argv);

	if (rc && run_err.json)
		run_report_error_json(stdout, NULL,
		                      run_err.first[0]          ? run_err.first
		                      : rc == PRISMC_EXIT_USAGE ? "usage error (see stderr)"
		                                                : "failed (see stderr)",
		                      rc);
	return rc;
}

const struct prismc_cmd cmd_run = {
    .name = "run",
    .summary = "run an offload once on an embedded software NIC (result, virtual latency)",
    .run = run_run,
    .help = run_help,
};
