/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd_post.c - `prismc post`: compile if needed and install the
 * program on a running server (prismd, or an application embedding the
 * runtime with allow_post), which verifies it and serves it to new
 * connections.
 *
 *     prismc post foo.prism|foo.chain --server HOST:PORT [--entry NAME]
 *                 [--firmware relaxed|strict]
 *
 * Owns: the command line and the report.
 * Must not: skip the server's verification (there is no way to).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <prism/prism.h>

#include "compiler/chain_source.h"
#include "compiler/cmd.h"

static void post_help(FILE *out)
{
	fprintf(out,
	        "usage: prismc post FILE.prism|FILE.chain --server HOST:PORT [--entry NAME]\n\n"
	        "Send the program (compiled first when it is a .prism) to a running server,\n"
	        "which re-verifies it and installs it for new connections.\n\n"
	        "options:\n"
	        "  --server HOST:PORT  the server (prismd's `listen:`; port 18515 by default)\n"
	        "  --entry NAME        offload to compile (default: the first)\n"
	        "  --timeout MS        setup timeout (default 5000)\n"
	        "  --firmware P        firmware profile a .prism is compiled for: relaxed\n"
	        "                      (default) or strict\n"
	        "  -h, --help          this help\n\n"
	        "exit status: 0 installed, 1 rejected (program errors or the server's\n"
	        "verifier), 2 usage, 3 unreadable file or server unreachable.\n");
}

static int post_run(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"server", required_argument, NULL, 's'},
	    {"entry", required_argument, NULL, 'e'},
	    {"timeout", required_argument, NULL, 't'},
	    {"firmware", required_argument, NULL, 'f'},
	    {"profile", required_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *server = NULL, *entry = NULL;
	enum ir_profile firmware = IR_PROFILE_RELAXED;
	int timeout = 5000, ch, rc;
	char *yaml;
	size_t len;

	if (prismc_wants_help(argc, argv)) {
		post_help(stdout);
		return PRISMC_EXIT_OK;
	}
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case 's':
			server = optarg;
			break;
		case 'e':
			entry = optarg;
			break;
		case 't':
			timeout = atoi(optarg);
			break;
		case 'f':
			if (prismc_firmware_arg("post", argv[optind - 1], optarg, &firmware))
				return PRISMC_EXIT_USAGE;
			break;
		default:
			fprintf(stderr, "prismc post: bad option (see --help)\n");
			return PRISMC_EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || !server) {
		fprintf(stderr, "prismc post: need one file and --server HOST:PORT\n");
		return PRISMC_EXIT_USAGE;
	}
	rc = chain_source_load(argv[optind], entry, firmware, &yaml, &len);
	if (rc)
		return rc;
	prism_set_log_fn(prism_log_stderr, NULL, PRISM_LOG_ERROR);
	PRISM_OPTS(prism_post_opts, po, .timeout_ms = timeout);
	rc = prism_post(server, yaml, len, &po);
	free(yaml);
	if (!rc) {
		printf("prismc post: %s installed on %s for new connections\n", argv[optind],
		       server);
		return PRISMC_EXIT_OK;
	}
	fprintf(stderr, "prismc post: %s: %s\n", server, prism_strerror(rc));
	return rc == -PRISM_E_NET_REJECTED ? PRISMC_EXIT_ERRORS : PRISMC_EXIT_IO;
}

const struct prismc_cmd cmd_post = {
    .name = "post",
    .summary = "install an offload on a running server (prismd or an embedding app)",
    .run = post_run,
    .help = post_help,
};
