/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd_post.c - `prismc post`: compile if needed and install the
 * program on a running server (prismd, or an application embedding the
 * runtime with allow_post), which checks that our uid may install, verifies
 * it and serves it to new connections.
 *
 *     prismc post FILE.prism|FILE.chain --server SOCKET [--entry NAME]
 *                 [--firmware relaxed|strict] [--timeout MS]
 *     prismc post --remove NAME --server SOCKET     (= prismc remove)
 *
 * Owns: the command line and the report.
 * Must not: skip the server's verification (there is no way to).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <prism/prism.h>

#include "compiler/chain_source.h"
#include "compiler/cmd.h"
#include "compiler/cmd_server.h"

static void post_help(FILE *out)
{
	fprintf(out, "usage: prismc post FILE.prism|FILE.chain --server SOCKET [--entry NAME]\n"
	             "                   [--firmware P] [--timeout MS]\n"
	             "       prismc post --remove NAME --server SOCKET\n\n"
	             "Send the program (compiled first when it is a .prism) to a running server,\n"
	             "which re-verifies it and installs it for new connections (replacing one of\n"
	             "the same name), or withdraw program NAME (as 'prismc remove').  Only the\n"
	             "uids the server allows (by default the server's own) may do either.\n\n"
	             "options:\n"
	             "  -s, --server SOCKET the server's post socket (prismd's `post-socket:`)\n"
	             "  -e, --entry NAME    offload to compile (default: the first)\n"
	             "      --remove NAME   withdraw program NAME instead of installing one\n"
	             "  -t, --timeout MS    how long to wait for the server (default 5000)\n"
	             "      --firmware P    firmware profile a .prism is compiled for: relaxed\n"
	             "                      (default) or strict\n"
	             "  -h, --help          this help\n"
	             "  -V, --version       the version\n\n"
	             "FILE '-' reads standard input (a chain object, else .prism source).\n\n"
	             "exit status: 0 done, 1 refused (not authorized, program errors, the\n"
	             "server's verifier), 2 usage (or no such input file), 3 unreadable file\n"
	             "or server unreachable.\n");
}

static int post_run(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"server", required_argument, NULL, 's'},
	    {"entry", required_argument, NULL, 'e'},
	    {"timeout", required_argument, NULL, 't'},
	    {"remove", required_argument, NULL, 'r'},
	    {"firmware", required_argument, NULL, 'f'},
	    {"profile", required_argument, NULL, 'f'},
	    {NULL, 0, NULL, 0},
	};
	const char *server = NULL, *entry = NULL, *remove = NULL;
	enum ir_profile firmware = IR_PROFILE_RELAXED;
	uint64_t timeout = 5000;
	struct cli c;
	int ch, rc;
	char *yaml;
	size_t len;

	cli_init(&c, "prismc post", argc, argv, "s:e:t:", longopts, post_help);
	while ((ch = cli_next(&c)) != -1) {
		switch (ch) {
		case CLI_STOP:
			return c.exit;
		case 's':
			server = optarg;
			break;
		case 'e':
			entry = optarg;
			break;
		case 't':
			if (cli_uint(&c, optarg, 1, 3600000, &timeout))
				return PRISMC_EXIT_USAGE;
			break;
		case 'f':
			if (prismc_firmware_arg(&c, optarg, &firmware))
				return PRISMC_EXIT_USAGE;
			break;
		case 'r':
			remove = optarg;
			break;
		}
	}
	if (optind != argc - (remove ? 0 : 1) || !server)
		return cli_usage(&c, "need one file (or --remove NAME) and --server SOCKET");
	PRISM_OPTS(prism_post_opts, po, .timeout_ms = (int)timeout);
	if (remove)
		return prismc_server_remove(&c, server, remove, &po);
	rc = chain_source_load(&c, argv[optind], entry, firmware, &yaml, &len);
	if (rc)
		return rc;
	prismc_server_log(&c);
	rc = prism_post(server, yaml, len, &po);
	free(yaml);
	if (rc)
		return prismc_server_exit(rc);
	printf("prismc post: %s installed on %s for new connections\n", argv[optind], server);
	return PRISMC_EXIT_OK;
}

const struct prismc_cmd cmd_post = {
    .name = "post",
    .summary = "install an offload on a running server (prismd or an embedding app)",
    .run = post_run,
    .help = post_help,
};
