/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd_server.h - what the subcommands that talk to a running
 * server (post, remove, show, call) share: one message per failure and
 * the exit code of a failed request.
 *
 * Owns: the library log callback those subcommands install (the runtime
 * reports a failed request once, with the server's reason; the subcommand
 * prints nothing more about it) and the mapping of a runtime error code
 * to an exit status.
 * Must not: parse options (each subcommand does).
 */
#ifndef PRISMC_CMD_SERVER_H
#define PRISMC_CMD_SERVER_H

#include <prism/prism.h>

#include "tools/cli/cli.h"

/* Route the runtime's error messages to stderr as "<c->name>: <message>". */
void prismc_server_log(const struct cli *c);
/* How many the runtime reported so far (a subcommand adds its own line
 * about a failure only when the runtime said nothing). */
unsigned prismc_server_logged(void);
/* Exit status for a failed request @err: 1 refused by the server, 3 the
 * server could not be reached (no socket, connection refused, unknown host). */
int prismc_server_exit(int err);
/* `prismc remove` / `prismc post --remove`: withdraw @name. */
int prismc_server_remove(const struct cli *c, const char *server, const char *name,
                         const struct prism_post_opts *po);

#endif /* PRISMC_CMD_SERVER_H */
