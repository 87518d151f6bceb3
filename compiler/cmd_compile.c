/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd_compile.c - `prismc compile`: source -> verified .chain object.
 *
 *     prismc compile FILE.prism -o FILE.chain [--firmware relaxed|strict]
 *                    [--entry NAME] [--emit-ir] [--no-request-gate]
 *
 * Owns: the pipeline front end -> lower -> sched_barriers -> layout -> emit
 * -> chain_verify (summary into the object) -> chainobj_write.
 *
 * Must not: contain pass logic.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/cmd.h"
#include "compiler/compile.h"
#include "compiler/frontend.h"
#include "chain/chain_verify.h"

static void compile_help(FILE *out)
{
	fprintf(out,
	        "usage: prismc compile FILE.prism -o FILE.chain [--firmware relaxed|strict]\n"
	        "                      [--entry NAME] [--emit-ir] [--no-request-gate]\n\n"
	        "Compile one offload of a .prism file into a chain object (YAML): lower to the\n"
	        "chain IR, coalesce barriers, lay the queues out, emit WQE templates through the\n"
	        "codec, verify (prefetch safety, client fields and keys, WR budget, rings).\n\n"
	        "options:\n"
	        "  -o FILE          output object ('-' = stdout)\n"
	        "  --firmware P     relaxed (default: operands may ride in ctrl index/QPN\n"
	        "                   bytes, RedN firmware) or strict (stock firmware);\n"
	        "                   --profile P is the older spelling\n"
	        "  --entry NAME     offload to compile (default: the first)\n"
	        "  --emit-ir        print the scheduled IR on stdout instead of writing\n"
	        "  --no-request-gate\n"
	        "                   leave out the request gate (a wait-on-data per\n"
	        "                   invocation) for a device without wait_on_data: a\n"
	        "                   flushed receive can then start an invocation, and a\n"
	        "                   server loads the object only when told to accept that\n"
	        "                   (docs/security.md)\n"
	        "  -h, --help       this help\n"
	        "  -V, --version    the version\n\n"
	        "FILE '-' reads standard input.\n\n"
	        "exit status: 0 ok, 1 errors in the program (or verifier rejection), 2 usage\n"
	        "(or no such input file), 3 unreadable/unwritable file, 4 internal error.\n");
}

static int compile_run(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"profile", required_argument, NULL, 'p'},
	    {"firmware", required_argument, NULL, 'p'},
	    {"entry", required_argument, NULL, 'e'},
	    {"emit-ir", no_argument, NULL, 'i'},
	    {"no-request-gate", no_argument, NULL, 'g'},
	    {NULL, 0, NULL, 0},
	};
	const char *outpath = NULL, *entry = NULL;
	enum ir_profile profile = IR_PROFILE_RELAXED;
	bool emit_ir = false, no_gate = false;
	struct cli c;
	int ch;

	cli_init(&c, "prismc compile", argc, argv, "o:", longopts, compile_help);
	while ((ch = cli_next(&c)) != -1) {
		switch (ch) {
		case CLI_STOP:
			return c.exit;
		case 'o':
			outpath = optarg;
			break;
		case 'p':
			if (prismc_firmware_arg(&c, optarg, &profile))
				return PRISMC_EXIT_USAGE;
			break;
		case 'e':
			entry = optarg;
			break;
		case 'i':
			emit_ir = true;
			break;
		case 'g':
			no_gate = true;
			break;
		}
	}
	if (optind != argc - 1 || (!outpath && !emit_ir))
		return cli_usage(&c, "need one input file and -o OUTPUT");
	struct frontend_unit u;
	enum frontend_status st = frontend_load(&u, argv[optind], NULL);
	if (st == FRONTEND_IO) {
		int code = cli_fail(&c, cli_open_exit(u.io_error), "%s: %s", argv[optind],
		                    strerror(u.io_error));

		frontend_fini(&u);
		return code;
	}
	int rc = PRISMC_EXIT_OK;
	struct chainobj *o = NULL;
	if (st == FRONTEND_OK) {
		struct compile_opts co = {.profile = profile,
		                          .entry = entry,
		                          .emit_ir = emit_ir,
		                          .ir_out = stdout,
		                          .no_request_gate = no_gate};
		rc = compile_program(&u.diag, u.prog, &co, &o);
	} else {
		rc = st == FRONTEND_NOMEM ? PRISMC_EXIT_INTERNAL : PRISMC_EXIT_ERRORS;
	}
	diag_render(&u.diag, stderr);
	if (rc == PRISMC_EXIT_OK && o && outpath) {
		FILE *f = strcmp(outpath, "-") == 0 ? stdout : fopen(outpath, "w");
		struct diag_report cd;
		if (!f) {
			fprintf(stderr, "prismc compile: %s: %s\n", outpath, strerror(errno));
			rc = PRISMC_EXIT_IO;
		} else {
			if (chainobj_write(o, f, 0, &cd) != 0) {
				fprintf(stderr, "prismc compile: %s\n", cd.msg);
				rc = PRISMC_EXIT_INTERNAL;
			}
			if (f != stdout && fclose(f) != 0)
				rc = PRISMC_EXIT_IO;
		}
	}
	chainobj_free(o);
	frontend_fini(&u);
	return rc;
}

const struct prismc_cmd cmd_compile = {
    .name = "compile",
    .summary = "compile a .prism offload into a verified .chain object",
    .run = compile_run,
    .help = compile_help,
};
