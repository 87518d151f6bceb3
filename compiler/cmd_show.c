/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd_show.c - `prismc show`: the programs installed on a running
 * server (bpftool's `prog show`), over its authenticated post socket.
 *
 *     prismc show --server SOCKET [NAME] [--json]
 *
 * Owns: the command line and the listing's text and JSON forms.
 * Must not: reach the server any other way than the post socket.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <prism/prism.h>

#include "compiler/cmd.h"
#include "compiler/cmd_server.h"
#include "chain/chainobj_yaml.h"
#include "util/json_text.h"

#define SHOW_MAX 64 /* the server's limit (CORE_SERVER_MAX_PROGRAMS) */

static void show_help(FILE *out)
{
	fprintf(out,
	        "usage: prismc show --server SOCKET [NAME] [--json] [--timeout MS]\n\n"
	        "List the programs installed on a running server (prismd, or an application\n"
	        "embedding the runtime with allow_post), or only NAME: entry points, regions\n"
	        "(size and access), the object's size, when and by whom it was installed\n"
	        "(pid -1: by the server's own configuration or application), live and total\n"
	        "connections and completed invocations since it was installed.  Only the\n"
	        "uids the server allows to post may list.\n\n"
	        "options:\n"
	        "  -s, --server SOCKET the server's post socket (prismd's `post-socket:`)\n"
	        "  -j, --json          one JSON array of objects, for programs\n"
	        "  -t, --timeout MS    how long to wait for the server (default 5000)\n"
	        "  -h, --help          this help\n"
	        "  -V, --version       the version\n\n"
	        "exit status: 0 listed, 1 refused (not authorized, no program NAME), 2 usage,\n"
	        "3 server unreachable.\n");
}

static void access_text(unsigned a, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s%s", a & PRISM_ACCESS_READ ? "r" : "-",
	         a & PRISM_ACCESS_WRITE ? "w" : "-", a & PRISM_ACCESS_ATOMIC ? "a" : "-");
}

static void when_text(int64_t t, char *buf, size_t cap)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!t || !gmtime_r(&tt, &tm) || !strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, cap, "-");
}

static void print_text(const struct prism_installed *p)
{
	char when[32], acc[4];

	printf("%s  entries", p->name);
	for (uint32_t e = 0; e < p->n_entries && e < PRISM_LIST_ENTRIES; e++)
		printf("%s%s", e ? "," : " ", p->entries[e]);
	if (p->n_entries > PRISM_LIST_ENTRIES)
		printf(",... (%u)", p->n_entries);
	printf("\n\tregions");
	for (uint32_t r = 0; r < p->n_regions && r < PRISM_LIST_REGIONS; r++) {
		access_text(p->regions[r].access, acc, sizeof(acc));
		printf("%s%s %" PRIu64 "B %s", r ? ", " : " ", p->regions[r].name,
		       p->regions[r].size, acc);
	}
	if (p->n_regions > PRISM_LIST_REGIONS)
		printf(", ... (%u)", p->n_regions);
	when_text(p->installed_at, when, sizeof(when));
	printf("\n\tinstalled %s  uid %u  pid %d  object %" PRIu64 "B\n", when, p->installed_uid,
	       (int)p->installed_pid, p->object_bytes);
	printf("\tconnections %" PRIu64 " live, %" PRIu64 " total  invocations %" PRIu64 "\n",
	       p->conns_active, p->conns_total, p->invocations);
}

/* One program as a JSON object (jansson), appended to @list. */
static void add_json(json_t *list, const struct prism_installed *p)
{
	json_t *entries = json_array(), *regions = json_array();
	char when[32];

	when_text(p->installed_at, when, sizeof(when));
	for (uint32_t e = 0; e < p->n_entries && e < PRISM_LIST_ENTRIES; e++)
		json_array_append_new(entries, json_text(p->entries[e]));
	for (uint32_t r = 0; r < p->n_regions && r < PRISM_LIST_REGIONS; r++) {
		json_t *acc = json_array();

		for (unsigned b = 0; b < 3; b++)
			if (p->regions[r].access & (1u << b))
				json_array_append_new(acc,
				                      json_string(chainobj_yaml_access_name(b)));
		json_array_append_new(
		    regions, json_pack("{s:o, s:I, s:o}", "name", json_text(p->regions[r].name),
		                       "size", (json_int_t)p->regions[r].size, "access", acc));
	}
	json_array_append_new(
	    list,
	    json_pack("{s:o, s:o, s:o, s:I, s:s, s:I, s:I, s:I, s:I, s:I}", "name",
	              json_text(p->name), "entries", entries, "regions", regions, "object_bytes",
	              (json_int_t)p->object_bytes, "installed_at", when, "uid",
	              (json_int_t)p->installed_uid, "pid", (json_int_t)p->installed_pid,
	              "conns_active", (json_int_t)p->conns_active, "conns_total",
	              (json_int_t)p->conns_total, "invocations", (json_int_t)p->invocations));
}

static int show_run(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"server", required_argument, NULL, 's'},
	    {"json", no_argument, NULL, 'j'},
	    {"timeout", required_argument, NULL, 't'},
	    {NULL, 0, NULL, 0},
	};
	static struct prism_installed progs[SHOW_MAX];
	const char *server = NULL, *name = NULL;
	uint64_t timeout = 5000;
	bool json = false;
	json_t *list = NULL;
	struct cli c;
	int ch, n, shown = 0;

	cli_init(&c, "prismc show", argc, argv, "s:jt:", longopts, show_help);
	while ((ch = cli_next(&c)) != -1) {
		switch (ch) {
		case CLI_STOP:
			return c.exit;
		case 's':
			server = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 't':
			if (cli_uint(&c, optarg, 1, 3600000, &timeout))
				return PRISMC_EXIT_USAGE;
			break;
		}
	}
	if (optind < argc - 1 || !server)
		return cli_usage(&c, "need --server SOCKET and at most one program NAME");
	if (optind < argc)
		name = argv[optind];
	PRISM_OPTS(prism_post_opts, po, .timeout_ms = (int)timeout);
	prismc_server_log(&c);
	progs[0].sz = sizeof(progs[0]);
	n = prism_post_list(server, progs, SHOW_MAX, &po);
	if (n < 0)
		return prismc_server_exit(n);
	if (json && !(list = json_array()))
		return cli_fail(&c, PRISMC_EXIT_INTERNAL, "out of memory");
	for (int i = 0; i < n && i < SHOW_MAX; i++) {
		if (name && strcmp(name, progs[i].name))
			continue;
		if (json)
			add_json(list, &progs[i]);
		else
			print_text(&progs[i]);
		shown++;
	}
	if (json) {
		json_dumpf(list, stdout, JSON_COMPACT);
		fputc('\n', stdout);
		json_decref(list);
	}
	if (name && !shown)
		return cli_fail(&c, PRISMC_EXIT_ERRORS, "no program '%s' on %s", name, server);
	return PRISMC_EXIT_OK;
}

const struct prismc_cmd cmd_show = {
    .name = "show",
    .summary = "list the programs installed on a running server (entries, regions, counters)",
    .run = show_run,
    .help = show_help,
};
