/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd_dump.c - `prismc dump`: show a compiled chain.
 *
 *     prismc dump [--stats | --dot | --json] [--raw] [--firmware P] [--cost C]
 *                 [--entry NAME]
 *                 <file.chain | file.prism>
 *
 * Owns: the subcommand's options, loading its input (a .chain object
 * through the chain-object reader, a .prism program through the front end
 * and compile_program(), as `prismc compile` does) and choosing the renderer (compiler/dump_*.c).
 * Exit codes are enum prismc_exit (cmd.h): 0 ok, 1 a rejected object or program, 2 usage, 3 I/O, 4
 * internal.
 *
 * Must not: render anything itself, or accept an object that did not pass
 * the reader's validation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/chain_source.h"
#include "compiler/cmd.h"
#include "compiler/compile.h"
#include "compiler/dump.h"
#include "compiler/frontend.h"
#include "chain/chainobj.h"

enum dump_mode { MODE_TEXT, MODE_STATS, MODE_DOT, MODE_JSON };

static void dump_help(FILE *out)
{
	fprintf(out,
	        "usage: prismc dump [--stats | --dot | --json] [--raw] [--firmware P] [--cost C]\n"
	        "                   [--entry NAME] <file.chain | file.prism>\n"
	        "\n"
	        "Show a compiled chain: every queue and WQE with its index, ring slot and\n"
	        "decoded fields, who patches it at run time (\"<- worker#2 cas [0..7]\"),\n"
	        "what it patches (\"-> conn#0 [4..6] read-scatter sge0\") and the relocations\n"
	        "the loader applies to it.  A .prism file is compiled first.\n"
	        "\n"
	        "  --stats  WQE counts by class (copy/atomic/ordering), WQ-, completion- and\n"
	        "           doorbell-ordered steps, and the latency predicted by the cx5 cost\n"
	        "           profile (RedN's microbenchmarks, summed sequentially)\n"
	        "  --dot    a Graphviz digraph: queues, WAIT/ENABLE and patch arrows\n"
	        "  --json   the whole object as JSON, for programs\n"
	        "  --raw    add each WQE's bytes in hex\n"
	        "  --cost C the cost profile of the prediction: cx5 (default) or a YAML file\n"
	        "  --firmware relaxed|strict, --entry NAME\n"
	        "           how to compile a .prism input (as 'prismc compile')\n"
	        "  -h, --help     this text\n"
	        "  -V, --version  the version\n"
	        "\n"
	        "FILE '-' reads standard input (a chain object, else .prism source).\n"
	        "\n"
	        "exit status: 0 ok, 1 the object or program was rejected, 2 usage error (or\n"
	        "no such input file), 3 I/O error, 4 internal error.\n");
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Report a reader rejection as "file:line:col: error: path: what". */
static void report(const char *path, const struct diag_report *d)
{
	const char *what = d->msg;

	if (d->line && !strncmp(what, "line ", 5)) {
		const char *colon = strstr(what, ": ");

		if (colon)
			what = colon + 2;
	}
	if (d->line)
		fprintf(stderr, "%s:%u:%u: error: %s\n", path, d->line, d->col ? d->col : 1, what);
	else
		fprintf(stderr, "%s: error: %s\n", path, what);
}

struct dump_input {
	const struct cli *cli;
	const char *path;
	enum ir_profile profile;
	const char *entry;
};

static int compile_unit(const struct dump_input *in, struct frontend_unit *u,
                        enum frontend_status st, struct chainobj **o)
{
	int rc;

	if (st == FRONTEND_OK) {
		struct compile_opts co = {.profile = in->profile, .entry = in->entry};

		rc = compile_program(&u->diag, u->prog, &co, o);
	} else {
		rc = st == FRONTEND_NOMEM ? PRISMC_EXIT_INTERNAL : PRISMC_EXIT_ERRORS;
	}
	diag_render(&u->diag, stderr);
	return rc;
}

/* A .prism input goes through the front end and the back-end pipeline. */
static int compile_input(const struct dump_input *in, struct chainobj **o)
{
	struct frontend_unit u;
	enum frontend_status st = frontend_load(&u, in->path, NULL);
	int rc;

	if (st == FRONTEND_IO) {
		rc = cli_fail(in->cli, cli_open_exit(u.io_error), "%s: %s", in->path,
		              strerror(u.io_error));
		frontend_fini(&u);
		return rc;
	}
	rc = compile_unit(in, &u, st, o);
	frontend_fini(&u);
	return rc;
}

/* "-" is standard input: a chain object, or .prism source when it does not
 * start like one. */
static int load(const struct dump_input *in, struct chainobj **o)
{
	struct diag_report d;
	char *text;
	size_t len;
	int rc;

	if (has_suffix(in->path, ".prism"))
		return compile_input(in, o);
	rc = cli_read_all(in->cli, in->path, 64u << 20, &text, &len);
	if (rc)
		return rc;
	if (!strcmp(in->path, "-") && !chain_source_is_object(text)) {
		struct frontend_unit u;
		enum frontend_status st = frontend_load_buffer(&u, "<stdin>", text, len, NULL);

		rc = compile_unit(in, &u, st, o);
		frontend_fini(&u);
		free(text);
		return rc;
	}
	rc = chainobj_read_mem(text, len, o, &d);
	free(text);
	if (rc == -ENOMEM)
		return fprintf(stderr, "prismc dump: out of memory\n"), PRISMC_EXIT_INTERNAL;
	if (rc) {
		report(in->path, &d);
		return PRISMC_EXIT_ERRORS;
	}
	if (in->entry && chain_source_entry(in->cli, in->path, *o, in->entry) < 0) {
		chainobj_free(*o);
		*o = NULL;
		return PRISMC_EXIT_USAGE;
	}
	return PRISMC_EXIT_OK;
}

static int dump_run(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"stats", no_argument, NULL, 's'},
	    {"dot", no_argument, NULL, 'd'},
	    {"json", no_argument, NULL, 'j'},
	    {"raw", no_argument, NULL, 'r'},
	    {"firmware", required_argument, NULL, 'f'},
	    {"profile", required_argument, NULL, 'f'},
	    {"entry", required_argument, NULL, 'e'},
	    {"cost", required_argument, NULL, 'c'},
	    {NULL, 0, NULL, 0},
	};
	enum dump_mode mode = MODE_TEXT;
	unsigned flags = 0;
	struct dump_input in = {.profile = IR_PROFILE_RELAXED, .cli = NULL};
	struct dump_cost_profile cost = *dump_cost_cx5();
	struct chainobj *o = NULL;
	char err[256];
	struct cli c;
	int rc, ch;

	cli_init(&c, "prismc dump", argc, argv, "", longopts, dump_help);
	in.cli = &c;
	while ((ch = cli_next(&c)) != -1) {
		enum dump_mode m = ch == 's' ? MODE_STATS : ch == 'd' ? MODE_DOT : MODE_JSON;

		switch (ch) {
		case CLI_STOP:
			return c.exit;
		case 'r':
			flags |= DUMP_RAW;
			break;
		case 'e':
			in.entry = optarg;
			break;
		case 'f':
			if (prismc_firmware_arg(&c, optarg, &in.profile))
				return PRISMC_EXIT_USAGE;
			break;
		case 'c':
			if (dump_cost_profile_load(optarg, &cost, err, sizeof(err)))
				return cli_usage(&c, "--cost %s: %s", optarg, err);
			break;
		case 's':
		case 'd':
		case 'j':
			if (mode != MODE_TEXT && mode != m)
				return cli_usage(&c,
				                 "--stats, --dot and --json exclude each other");
			mode = m;
			break;
		}
	}
	if (optind != argc - 1)
		return cli_usage(&c, optind < argc ? "one input file only" : "no input file");
	in.path = argv[optind];
	rc = load(&in, &o);
	if (rc)
		return rc;
	switch (mode) {
	case MODE_STATS:
		rc = dump_stats_text(stdout, o, &cost);
		break;
	case MODE_DOT:
		rc = dump_dot(stdout, o);
		break;
	case MODE_JSON:
		rc = dump_json(stdout, o, flags, &cost);
		break;
	default:
		rc = dump_text(stdout, o, flags);
		break;
	}
	chainobj_free(o);
	if (rc || fflush(stdout))
		return PRISMC_EXIT_IO;
	return PRISMC_EXIT_OK;
}

const struct prismc_cmd cmd_dump = {
    .name = "dump",
    .summary = "show a compiled chain: queues, WQEs, patches, relocations (--stats/--dot/--json)",
    .run = dump_run,
    .help = dump_help,
};
