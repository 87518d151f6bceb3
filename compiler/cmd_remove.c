/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd_remove.c - `prismc remove`: withdraw an installed program
 * from a running server, over its authenticated post socket.
 *
 *     prismc remove NAME --server SOCKET [--timeout MS]
 *
 * New connections can no longer ask for NAME; connections that have it keep
 * their instance until they close.  Owns: the command line.
 * Must not: reach the server any other way than the post socket.
 */
#include <stdio.h>

#include <prism/prism.h>

#include "compiler/cmd.h"
#include "compiler/cmd_server.h"

static void remove_help(FILE *out)
{
	fprintf(out, "usage: prismc remove NAME --server SOCKET [--timeout MS]\n\n"
	             "Withdraw program NAME from a running server (prismd, or an application\n"
	             "embedding the runtime with allow_post): new connections can no longer ask\n"
	             "for it; connections that have it keep it until they close.  Only the uids\n"
	             "the server allows to post may remove.\n\n"
	             "options:\n"
	             "  -s, --server SOCKET the server's post socket (prismd's `post-socket:`)\n"
	             "  -t, --timeout MS    how long to wait for the server (default 5000)\n"
	             "  -h, --help          this help\n"
	             "  -V, --version       the version\n\n"
	             "exit status: 0 removed, 1 refused (no such program, not authorized),\n"
	             "2 usage, 3 server unreachable.\n");
}

static int remove_run(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"server", required_argument, NULL, 's'},
	    {"timeout", required_argument, NULL, 't'},
	    {NULL, 0, NULL, 0},
	};
	const char *server = NULL;
	uint64_t timeout = 5000;
	struct cli c;
	int ch;

	cli_init(&c, "prismc remove", argc, argv, "s:t:", longopts, remove_help);
	while ((ch = cli_next(&c)) != -1) {
		switch (ch) {
		case CLI_STOP:
			return c.exit;
		case 's':
			server = optarg;
			break;
		case 't':
			if (cli_uint(&c, optarg, 1, 3600000, &timeout))
				return PRISMC_EXIT_USAGE;
			break;
		}
	}
	if (optind != argc - 1 || !server)
		return cli_usage(&c, "need one program NAME and --server SOCKET");
	PRISM_OPTS(prism_post_opts, po, .timeout_ms = (int)timeout);
	return prismc_server_remove(&c, server, argv[optind], &po);
}

const struct prismc_cmd cmd_remove = {
    .name = "remove",
    .summary = "withdraw an installed program from a running server",
    .run = remove_run,
    .help = remove_help,
};
