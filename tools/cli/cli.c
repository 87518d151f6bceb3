/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/cli.c - the option, message and exit-code conventions shared
 * by prismc, prismd and prism-perf (tools/cli/cli.h).
 *
 * Owns: getopt_long with --help/--version added, naming a bad option,
 * number and port values, input files ("-" = stdin, a missing file is a
 * usage error).  Must not: know any tool's options or print anything but
 * the messages above.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cli/cli.h"
#include "util/array.h"
#include "util/hex.h"

#ifndef PRISM_VERSION
#define PRISM_VERSION "0.1.0"
#endif

const char *cli_version(void)
{
	return PRISM_VERSION;
}

/* The tool's own name ("prismc" of "prismc call") for --version. */
static void print_version(const struct cli *c)
{
	const char *sp = strchr(c->name, ' ');
	int n = sp ? (int)(sp - c->name) : (int)strlen(c->name);

	printf("%.*s %s\n", n, c->name, PRISM_VERSION);
}

void cli_init(struct cli *c, const char *name, int argc, char **argv, const char *shortopts,
              const struct option *longopts, void (*help)(FILE *out))
{
	size_t n = 0;

	memset(c, 0, sizeof(*c));
	c->name = name;
	c->argc = argc;
	c->argv = argv;
	c->help = help;
	/* ':' first: a missing value is reported as ':', not '?' */
	snprintf(c->shortopts, sizeof(c->shortopts), ":%shV", shortopts ? shortopts : "");
	/* CLI_MAX_OPTS is above every tool's table (prism-perf's 14 is the most) */
	for (; longopts && longopts[n].name && n < CLI_MAX_OPTS - 3; n++)
		c->longopts[n] = longopts[n];
	c->longopts[n++] = (struct option){"help", no_argument, NULL, 'h'};
	c->longopts[n++] = (struct option){"version", no_argument, NULL, 'V'};
	c->longopts[n] = (struct option){0};
	optind = 0; /* GNU getopt: full re-initialization (subcommands parse again) */
	opterr = 0; /* our messages name the option */
}

/* An option getopt could not take, as spelled up to any '=' ("--entry", "-e"). */
static const char *spelled(const struct cli *c, char *buf, size_t cap)
{
	const char *a = optind > 0 && optind <= c->argc ? c->argv[optind - 1] : "?";

	if (a[0] == '-' && a[1] != '-' && optopt && !c->long_only)
		snprintf(buf, cap, "-%c", optopt);
	else
		snprintf(buf, cap, "%.*s", (int)strcspn(a, "="), a);
	return buf;
}

const char *cli_opt(const struct cli *c)
{
	static char buf[128];

	if (c->longindex >= 0)
		snprintf(buf, sizeof(buf), "--%s", c->longopts[c->longindex].name);
	else
		snprintf(buf, sizeof(buf), "-%c", c->ch);
	return buf;
}

int cli_next(struct cli *c)
{
	char buf[128];
	int ch;

	optopt = 0;
	c->longindex = -1;
	ch = c->long_only
	         ? getopt_long_only(c->argc, c->argv, c->shortopts, c->longopts, &c->longindex)
	         : getopt_long(c->argc, c->argv, c->shortopts, c->longopts, &c->longindex);
	c->ch = ch;
	switch (ch) {
	case 'h':
		c->help(stdout);
		c->exit = CLI_EXIT_OK;
		return CLI_STOP;
	case 'V':
		print_version(c);
		c->exit = CLI_EXIT_OK;
		return CLI_STOP;
	case ':':
		c->exit = cli_usage(c, "option '%s' needs a value", spelled(c, buf, sizeof(buf)));
		return CLI_STOP;
	case '?':
		spelled(c, buf, sizeof(buf));
		/* "--json=x": getopt says '?' for a value given to a flag too */
		for (size_t i = 0; buf[0] == '-' && buf[1] == '-' && c->longopts[i].name; i++)
			if (!strcmp(buf + 2, c->longopts[i].name) &&
			    c->longopts[i].has_arg == no_argument) {
				c->exit = cli_usage(c, "option '%s' takes no value", buf);
				return CLI_STOP;
			}
		c->exit = cli_usage(c, "unknown option '%s'", buf);
		return CLI_STOP;
	default:
		return ch;
	}
}

static void vmsg(const struct cli *c, const char *fmt, va_list ap)
{
	if (c->keep && c->keep_len && !c->keep[0]) {
		va_list copy;

		va_copy(copy, ap);
		vsnprintf(c->keep, c->keep_len, fmt, copy);
		va_end(copy);
	}
	fprintf(stderr, "%s: ", c->name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int cli_usage(const struct cli *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(c, fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help'.\n", c->name);
	return CLI_EXIT_USAGE;
}

int cli_fail(const struct cli *c, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(c, fmt, ap);
	va_end(ap);
	return code;
}

int cli_uint(const struct cli *c, const char *val, uint64_t lo, uint64_t hi, uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(val, &end, 0);
	if (!*val || *end || errno || val[0] == '-' || v < lo || v > hi) {
		cli_usage(c, "%s: '%s' is not a number in %llu..%llu", cli_opt(c), val,
		          (unsigned long long)lo, (unsigned long long)hi);
		return -1;
	}
	*out = v;
	return 0;
}

int cli_hex(const char *s, uint8_t *out, size_t n)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (strlen(s) != 2 * n)
		return -1;
	return hex_decode(s, n, out);
}

int cli_port(const struct cli *c, const char *val, bool any_ok, uint16_t *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(val, &end, 10);
	if (!*val || *end || errno || val[0] == '-' || v > 65535 || (!v && !any_ok)) {
		cli_usage(c, "%s: '%s' is not a TCP port (%s..65535)", cli_opt(c), val,
		          any_ok ? "0" : "1");
		return -1;
	}
	*out = (uint16_t)v;
	return 0;
}

int cli_open_exit(int err)
{
	return err == ENOENT || err == ENOTDIR ? CLI_EXIT_USAGE : CLI_EXIT_IO;
}

FILE *cli_open_in(const struct cli *c, const char *path, int *code)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;

	if (!f) {
		int err = errno;

		*code = cli_fail(c, cli_open_exit(err), "%s: %s", path, strerror(err));
	}
	return f;
}

void cli_close_in(FILE *f)
{
	if (f && f != stdin)
		fclose(f);
}

int cli_read_all(const struct cli *c, const char *path, size_t max, char **buf, size_t *len)
{
	int code = CLI_EXIT_OK;
	FILE *f = cli_open_in(c, path, &code);
	size_t n = 0, cap = 0;
	char *b = NULL;

	if (!f)
		return code;
	for (;;) {
		if (cap - n < 2) {
			if (cap > max || !ARRAY_RESERVE(b, cap, cap ? cap * 2 : 65536)) {
				code = cap > max ? cli_fail(c, CLI_EXIT_IO,
				                            "%s: larger than %zu bytes", path, max)
				                 : cli_fail(c, CLI_EXIT_INTERNAL, "out of memory");
				break;
			}
		}
		size_t got = fread(b + n, 1, cap - n - 1, f);

		if (!got) {
			if (ferror(f))
				code = cli_fail(c, CLI_EXIT_IO, "%s: %s", path, strerror(errno));
			break;
		}
		n += got;
	}
	cli_close_in(f);
	if (code) {
		free(b);
		return code;
	}
	b[n] = 0;
	*buf = b;
	*len = n;
	return CLI_EXIT_OK;
}
