/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd_check.c - `prismc check`: parse, check and verify, report
 * diagnostics, produce nothing.
 *
 *     prismc check [--json] [--max-errors N] [-Werror] [--firmware P]
 *                  [--front-end-only] FILE...
 *
 * Owns: the command line and output of `check` (text diagnostics on
 * stderr, or one JSON document on stdout with --json).  After a clean front
 * end it runs the whole back end (compile.c) on every offload, so `check`
 * rejects exactly what `compile` would, verifier included.
 *
 * Must not: write objects (that is `compile`).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/cmd.h"
#include "compiler/compile.h"
#include "compiler/frontend.h"

static void check_help(FILE *out)
{
	fprintf(out,
	        "usage: prismc check [--json] [--max-errors N] [-Werror] [--firmware P]\n"
	        "                    [--front-end-only] FILE...\n\n"
	        "Parse and check .prism files (syntax, names, types, widths and byte order,\n"
	        "region access, taint, loop bounds), then lower every offload and run the\n"
	        "verifier on it, as `compile` does, without writing an object. FILE '-'\n"
	        "reads standard input.\n\n"
	        "options:\n"
	        "  --json          print one JSON document on stdout:\n"
	        "                  {\"ok\":bool,\"errors\":N,\"warnings\":N,\"diagnostics\":[\n"
	        "                   "
	        "{\"file\",\"line\",\"column\",\"length\",\"severity\",\"message\"}]}\n"
	        "                  (line/column/length absent when a message has no location)\n"
	        "  --max-errors N  stop reporting after N errors per file (default 100)\n"
	        "  -Werror         treat warnings as errors\n"
	        "  --firmware P    firmware profile the back end targets: relaxed (default)\n"
	        "                  or strict (--profile P is the older spelling)\n"
	        "  --front-end-only  stop after the checker (no lowering, no verifier)\n"
	        "  -h, --help      this help\n\n"
	        "exit status: 0 no errors, 1 errors, 2 usage error, 3 unreadable file,\n"
	        "4 internal error (out of memory).\n");
}

struct check_opts {
	struct cli cli;
	bool json;
	bool front_end_only;
	enum ir_profile profile;
	struct frontend_opts fe;
};

/* The index of the first file, or -1 with c->exit set (--help, --version,
 * a usage error). */
static int parse_args(int argc, char **argv, struct check_opts *o)
{
	static const struct option longopts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"max-errors", required_argument, NULL, 'm'},
	    {"Werror", no_argument, NULL, 'W'},
	    {"firmware", required_argument, NULL, 'p'},
	    {"profile", required_argument, NULL, 'p'},
	    {"front-end-only", no_argument, NULL, 'f'},
	    {NULL, 0, NULL, 0},
	};
	struct cli *c = &o->cli;
	uint64_t n;
	int ch;

	cli_init(c, "prismc check", argc, argv, "", longopts, check_help);
	c->long_only = true; /* -Werror */
	while ((ch = cli_next(c)) != -1) {
		switch (ch) {
		case CLI_STOP:
			return -1;
		case 'j':
			o->json = true;
			break;
		case 'W':
			o->fe.werror = true;
			break;
		case 'f':
			o->front_end_only = true;
			break;
		case 'p':
			if (prismc_firmware_arg(c, optarg, &o->profile))
				return c->exit = PRISMC_EXIT_USAGE, -1;
			break;
		case 'm':
			if (cli_uint(c, optarg, 1, 100000, &n))
				return c->exit = PRISMC_EXIT_USAGE, -1;
			o->fe.max_errors = (unsigned)n;
			break;
		}
	}
	if (optind >= argc) {
		c->exit = cli_usage(c, "no input files");
		return -1;
	}
	return optind;
}

static int status_exit(enum frontend_status st)
{
	static const int codes[] = {
	    [FRONTEND_OK] = PRISMC_EXIT_OK,
	    [FRONTEND_ERRORS] = PRISMC_EXIT_ERRORS,
	    [FRONTEND_IO] = PRISMC_EXIT_IO,
	    [FRONTEND_NOMEM] = PRISMC_EXIT_INTERNAL,
	};
	return codes[st];
}

/* The back end on every offload of a clean unit; the worst exit status. */
static int check_back_end(struct frontend_unit *u, const struct check_opts *o)
{
	int rc = PRISMC_EXIT_OK;

	for (const struct ast_offload *off = u->prog->offloads; off; off = off->next) {
		struct compile_opts co = {.profile = o->profile, .entry = off->name};
		struct chainobj *obj = NULL;
		int r = compile_program(&u->diag, u->prog, &co, &obj);

		chainobj_free(obj);
		if (r > rc)
			rc = r;
	}
	return rc;
}

static int check_run(int argc, char **argv)
{
	struct check_opts o = {0};
	unsigned errors = 0, warnings = 0;
	int first_file, rc = PRISMC_EXIT_OK;
	bool first = true;

	first_file = parse_args(argc, argv, &o);
	if (first_file < 0)
		return o.cli.exit;
	if (o.json)
		fputs("{\"diagnostics\":[", stdout);
	for (int i = first_file; i < argc; i++) {
		struct frontend_unit u;
		enum frontend_status st = frontend_load(&u, argv[i], &o.fe);

		int back = PRISMC_EXIT_OK;
		if (st == FRONTEND_OK && !o.front_end_only)
			back = check_back_end(&u, &o);
		if (st == FRONTEND_IO || st == FRONTEND_NOMEM) {
			const char *why =
			    st == FRONTEND_IO ? strerror(u.io_error) : "out of memory";

			diag_error(&u.diag, SRC_LOC_NONE, "cannot read file: %s", why);
		}
		if (o.json)
			diag_render_json_items(&u.diag, stdout, &first);
		else
			diag_render(&u.diag, stderr);
		errors += u.diag.errors;
		warnings += u.diag.warnings;
		/* the most severe status wins: internal > I/O > missing file > errors */
		int code = st == FRONTEND_IO ? cli_open_exit(u.io_error) : status_exit(st);

		if (code > rc)
			rc = code;
		if (back > rc)
			rc = back;
		frontend_fini(&u);
	}
	if (o.json)
		printf("],\"ok\":%s,\"errors\":%u,\"warnings\":%u}\n",
		       rc == PRISMC_EXIT_OK ? "true" : "false", errors, warnings);
	else if (errors || warnings)
		fprintf(stderr, "%u error%s, %u warning%s\n", errors, errors == 1 ? "" : "s",
		        warnings, warnings == 1 ? "" : "s");
	return rc;
}

const struct prismc_cmd cmd_check = {
    .name = "check",
    .summary = "parse, check and verify .prism files; report diagnostics",
    .run = check_run,
    .help = check_help,
};
