/* SPDX-License-Identifier: MIT */
/*
 * prismd/config.h - prismd's configuration file (server.yaml).
 *
 * Owns: struct prismd_config and its YAML reader (libyaml), with errors
 * that say "file:line:col: error: what is wrong" followed by the line and a
 * caret under the place, and the place of each listed program and region
 * so that a later error about it (a missing file, a region nobody
 * registered) points at the line that listed it.
 *
 *   device: sim                 # prism device name (default sim)
 *   profile: cx5                # NIC cost profile (default cx5)
 *   firmware: relaxed           # relaxed | strict
 *   listen: 0.0.0.0:18515       # client connections (TCP, IB-style framing)
 *   control: /tmp/prismd.sock   # unix socket where applications attach
 *   rearm: auto                 # auto | cpu | nic
 *   max-connections: 4096
 *   nic-threads: 1              # NIC threads (shards) connections are spread over
 *   max-connections-per-peer: 64 # live connections from one address
 *   allow-post: true            # accept `prismc post` programs ...
 *   post-socket: /run/prismd.post # ... on this unix socket,
 *   post-uids: [1000]           # ... from these uids (default: prismd's own)
 *   regions:
 *     - name: table
 *       size: 1M                # bytes: 1048576, 1M, 1 MiB, 0x100000 (the .prism
 *                               # syntax, util/size.h); with file: defaults to its length
 *       access: [read, write, atomic]
 *       file: table.bin         # optional initial contents (not longer than size); or
 *       shared-by-app: true     # the application shares the memfd at attach
 *   programs:
 *     - lib/chains/hash_get.chain
 *
 * Must not: open devices or sockets (prismd.c does); exit or print.
 */
#ifndef PRISMD_CONFIG_H
#define PRISMD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PRISMD_MAX_REGIONS     64
#define PRISMD_MAX_POST_UIDS   16
#define PRISMD_MAX_PROGRAMS    64
#define PRISMD_MAX_NIC_THREADS 64 /* the runtime's limit (prism_device_opts) */

/* A place in the configuration: 1-based line and column, and the width the
 * caret underlines.  line 0: none. */
struct prismd_pos {
	unsigned line, col, len;
};

struct prismd_region_cfg {
	char *name;
	uint64_t size;   /* 0: the length of file */
	unsigned access; /* enum prism_access */
	char *file;      /* initial contents, or NULL */
	bool shared_by_app;
	struct prismd_pos pos;      /* the region's entry, for later reports */
	struct prismd_pos file_pos; /* its 'file' value */
};

struct prismd_config {
	char *device;
	char *profile;
	char *firmware;
	char *host;
	int port; /* -1: any free port ("listen: host:0") */
	char *control;
	int rearm; /* enum prism_rearm */
	unsigned max_conns;
	unsigned nic_threads; /* NICs connections are spread over (default 1) */
	bool allow_post;
	char *post_socket;
	uint32_t post_uids[PRISMD_MAX_POST_UIDS];
	unsigned n_post_uids;        /* 0: prismd's own uid */
	unsigned max_conns_per_peer; /* 0: the library's default */
	size_t n_regions;
	struct prismd_region_cfg regions[PRISMD_MAX_REGIONS];
	size_t n_programs;
	char *programs[PRISMD_MAX_PROGRAMS];
	struct prismd_pos program_pos[PRISMD_MAX_PROGRAMS]; /* where each is listed */
	char *origin; /* the name and a copy of the text, for prismd_config_report */
	char *text;
	size_t text_len;
};

/*
 * Parse @len bytes of YAML named @origin (for messages).  On failure returns
 * a negative code and writes into @err (cut at @errlen) the message
 * "origin:line:col: error: message", a newline, the line indented by four
 * spaces, a newline and the caret line under the column (no newline at the
 * end); "origin: error: message" alone when no place applies.
 */
int prismd_config_parse(const char *text, size_t len, const char *origin, struct prismd_config *cfg,
                        char *err, size_t errlen);
/* The same from a file ("-": standard input); -errno when it cannot be opened. */
int prismd_config_load(const char *path, struct prismd_config *cfg, char *err, size_t errlen);
void prismd_config_free(struct prismd_config *cfg);

/*
 * Print, after a successful parse, an error about the thing at @pos in the
 * configuration (e.g. cfg->program_pos[i]) in the form of a parse error:
 * "origin:line:col: error: message", the line, the caret line.
 */
void prismd_config_report(const struct prismd_config *cfg, struct prismd_pos pos, FILE *out,
                          const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The same as a note ("origin:line:col: note: ..."), after an error. */
void prismd_config_note(const struct prismd_config *cfg, struct prismd_pos pos, FILE *out,
                        const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* enum prism_access bits as the configuration spells them: "read, atomic"
 * ("none" for 0); returns @buf. */
const char *prismd_access_words(unsigned access, char *buf, size_t n);

/* "host:port" / ":port" / "port" -> host (malloc'd, may be NULL) and port. */
int prismd_parse_hostport(const char *s, char **host, uint16_t *port);

#endif /* PRISMD_CONFIG_H */
