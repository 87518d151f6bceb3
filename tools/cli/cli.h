/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/cli.h - the command-line conventions every prism tool shares
 * (prismc and its subcommands, prismd, prism-perf): getopt_long parsing
 * with --help and --version built in, bad options named, the documented
 * exit codes, numbers and ports checked, input files where "-" is stdin.
 *
 *	static const struct option opts[] = {{"entry", required_argument, NULL, 'e'}, {0}};
 *	struct cli c;
 *
 *	cli_init(&c, "prismc call", argc, argv, "e:", opts, call_help);
 *	while ((ch = cli_next(&c)) != -1) {
 *		switch (ch) {
 *		case CLI_STOP:             // --help/--version answered, or a usage error
 *			return c.exit;     // printed; c.exit is 0 or CLI_EXIT_USAGE
 *		case 'e': ...
 *		}
 *	}
 *
 * Owns: option iteration, the usage-error and file-open messages, the exit
 * codes.  Must not: know any tool's options (its table stays next to its
 * --help text).
 */
#ifndef PRISM_TOOLS_CLI_H
#define PRISM_TOOLS_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit status of every tool (docs/prismc.md, "Exit status"). */
enum cli_exit {
	CLI_EXIT_OK = 0,       /* success (warnings allowed) */
	CLI_EXIT_ERRORS = 1,   /* the program or request was rejected / failed */
	CLI_EXIT_USAGE = 2,    /* bad command line, missing input file, bad port */
	CLI_EXIT_IO = 3,       /* a file could not be read or written, a server unreachable */
	CLI_EXIT_INTERNAL = 4, /* out of memory, an internal failure */
};

/* cli_next(): stop parsing and return c->exit. */
#define CLI_STOP (-2)

#define CLI_MAX_OPTS 48

struct cli {
	const char *name; /* "prismc call": the prefix of every message */
	int argc;
	char **argv;
	void (*help)(FILE *out);
	bool long_only; /* getopt_long_only: "-Werror" is a long option */
	int exit;       /* after CLI_STOP: CLI_EXIT_OK or CLI_EXIT_USAGE */
	int ch;         /* the option being handled */
	int longindex;  /* its entry in longopts, or -1 (spelled short) */
	char shortopts[96];
	struct option longopts[CLI_MAX_OPTS];
	/* Optional, set by the tool after cli_init(): the first message is also
	 * kept here (a tool that prints its failure as JSON), NUL-terminated. */
	char *keep;
	size_t keep_len;
};

/* The version every tool prints for --version (the Makefile's VERSION). */
const char *cli_version(void);

/*
 * Prepare to parse @argv (argv[0] is the tool or subcommand name).
 * @shortopts and @longopts as for getopt_long, without help and version:
 * -h/--help and -V/--version are added (when @shortopts does not use the
 * letter for something else).
 */
void cli_init(struct cli *c, const char *name, int argc, char **argv, const char *shortopts,
              const struct option *longopts, void (*help)(FILE *out));
/*
 * The next option, as getopt_long returns it (optarg, optind are set), -1
 * after the last, or CLI_STOP: --help (the help on stdout, exit 0),
 * --version ("<tool> <version>", exit 0), an unknown option or a missing
 * value (named on stderr, exit 2).
 */
int cli_next(struct cli *c);
/* The option being handled, as the user spelled it ("--port", "-p"); a
 * static buffer, valid until the next call. */
const char *cli_opt(const struct cli *c);

/* "<name>: <message>" and a pointer to --help on stderr; returns CLI_EXIT_USAGE. */
__attribute__((format(printf, 2, 3))) int cli_usage(const struct cli *c, const char *fmt, ...);
/* "<name>: <message>" on stderr; returns @code. */
__attribute__((format(printf, 3, 4))) int cli_fail(const struct cli *c, int code, const char *fmt,
                                                   ...);

/*
 * An unsigned integer (C syntax: 42, 0x2a) in [@lo, @hi] for the option
 * being handled; otherwise a usage message naming it, and -1.
 */
int cli_uint(const struct cli *c, const char *val, uint64_t lo, uint64_t hi, uint64_t *out);
/*
 * Exactly @n bytes as 2*@n hex digits ("0x" allowed first) into @out: 0,
 * or -1 when @s is not that (no message: the caller names what it is).
 */
int cli_hex(const char *s, uint8_t *out, size_t n);
/* A TCP port (1..65535; 0 too when @any_ok); otherwise a usage message, -1. */
int cli_port(const struct cli *c, const char *val, bool any_ok, uint16_t *out);

/*
 * Open @path for reading ("-" is stdin).  On failure prints
 * "<name>: <path>: <strerror>" and returns NULL with *@code set:
 * CLI_EXIT_USAGE for a file that does not exist, CLI_EXIT_IO otherwise.
 */
FILE *cli_open_in(const struct cli *c, const char *path, int *code);
/* Close what cli_open_in() opened (not stdin). */
void cli_close_in(FILE *f);
/* The exit code for errno @err from opening an input file (the rule above). */
int cli_open_exit(int err);
/*
 * Read all of @path ("-" is stdin), at most @max bytes, NUL-terminated
 * (*@len excludes the NUL).  0, or the exit code after a message.
 */
int cli_read_all(const struct cli *c, const char *path, size_t max, char **buf, size_t *len);

#endif /* PRISM_TOOLS_CLI_H */
