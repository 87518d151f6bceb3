/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd_server.c - the request plumbing shared by post, remove,
 * show and call (compiler/cmd_server.h).
 *
 * Owns: the log callback (one line per failure, named after the
 * subcommand) and the error-to-exit mapping.  Must not: print a second
 * message for a failure the runtime already reported.
 */
#include <errno.h>
#include <stdio.h>

#include "compiler/cmd.h"
#include "compiler/cmd_server.h"

static unsigned logged; /* messages the runtime reported */

static void server_log(enum prism_log_level level, const char *msg, void *ctx)
{
	const struct cli *c = ctx;

	(void)level;
	fprintf(stderr, "%s: %s\n", c->name, msg);
	logged++;
}

unsigned prismc_server_logged(void)
{
	return logged;
}

void prismc_server_log(const struct cli *c)
{
	prism_set_log_fn(server_log, (void *)c, PRISM_LOG_ERROR);
}

int prismc_server_exit(int err)
{
	switch (-err) {
	case PRISM_E_NET_REJECTED:
	case PRISM_E_NOPROG:
	case PRISM_E_NOENTRY:
	case EPERM:
		return PRISMC_EXIT_ERRORS;
	case ENOMEM:
		return PRISMC_EXIT_INTERNAL;
	default:
		return PRISMC_EXIT_IO;
	}
}

int prismc_server_remove(const struct cli *c, const char *server, const char *name,
                         const struct prism_post_opts *po)
{
	int err;

	prismc_server_log(c);
	err = prism_post_remove(server, name, po);
	if (err)
		return prismc_server_exit(err);
	printf("%s: program '%s' removed from %s (connections that have it keep it)\n", c->name,
	       name, server);
	return PRISMC_EXIT_OK;
}
