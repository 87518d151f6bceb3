/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd_post.c - `prismc post`: compile if needed and install the
 * program on a running server (prismd, or an application embedding the
 * runtime with allow_post), which checks that our uid may install, verifies
 * it and serves it to new connections; or withdraw a program.
 *
 *     prismc post foo.prism|foo.chain --server SOCKET [--entry NAME]
 *                 [--firmware relaxed|strict]
 *     prismc post --remove NAME --server SOCKET
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
	fprintf(out, "usage: prismc post FILE.prism|FILE.chain --server SOCKET [--entry NAME]\n"
	             "       prismc post --remove NAME --server SOCKET\n\n"
	             "Send the program (compiled first when it is a .prism) to a running server,\n"
	             "which re-verifies it and installs it for new connections (replacing one of\n"
	             "the same name), or withdraw program NAME.  Only the uids the server allows\n"
	             "(by default the server's own) may do either.\n\n"
	             "options:\n"
	             "  --server SOCKET     the server's post socket (prismd's `post-socket:`)\n"
	             "  --entry NAME        offload to compile (default: the first)\n"
	             "  --remove NAME       withdraw program NAME instead of installing one\n"
	             "  --timeout MS        setup timeout (default 5000)\n"
	             "  --firmware P        firmware profile a .prism is compiled for: relaxed\n"
	             "                      (default) or strict\n"
	             "  -h, --help          this help\n\n"
	             "exit status: 0 done, 1 refused (not authorized, program errors, the\n"
	             "server's verifier), 2 usage, 3 unreadable file or server unreachable.\n");
}

static int post_run(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"server", required_argument, NULL, 's'},   {"entry", required_argument, NULL, 'e'},
	    {"timeout", required_argument, NULL, 't'},  {"remove", required_argument, NULL, 'r'},
	    {"firmware", required_argument, NULL, 'f'}, {"profile", required_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
	};
	const char *server = NULL, *entry = NULL, *remove = NULL;
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
		case 'r':
			remove = optarg;
			break;
		default:
			fprintf(stderr, "prismc post: bad option (see --help)\n");
			return PRISMC_EXIT_USAGE;
		}
	}
	if (optind != argc - (remove ? 0 : 1) || !server) {
		fprintf(stderr, "prismc post: need one file (or --remove NAME) and --server "
		                "SOCKET\n");
		return PRISMC_EXIT_USAGE;
	}
	/* prism_post logs every failure once (with the server's reason): no
	 * second message here */
	prism_set_log_fn(prism_log_stderr, NULL, PRISM_LOG_ERROR);
	PRISM_OPTS(prism_post_opts, po, .timeout_ms = timeout);
	if (remove) {
		rc = prism_post_remove(server, remove, &po);
		if (!rc)
			printf("prismc post: program '%s' removed from %s\n", remove, server);
	} else {
		rc = chain_source_load(argv[optind], entry, firmware, &yaml, &len);
		if (rc)
			return rc;
		rc = prism_post(server, yaml, len, &po);
		free(yaml);
		if (!rc)
			printf("prismc post: %s installed on %s for new connections\n",
			       argv[optind], server);
	}
	if (!rc)
		return PRISMC_EXIT_OK;
	return rc == -PRISM_E_NET_REJECTED ? PRISMC_EXIT_ERRORS : PRISMC_EXIT_IO;
}

const struct prismc_cmd cmd_post = {
    .name = "post",
    .summary = "install an offload on a running server (prismd or an embedding app)",
    .run = post_run,
    .help = post_help,
};
