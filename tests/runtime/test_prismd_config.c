/* SPDX-License-Identifier: MIT */
/*
 * test_prismd_config.c - prismd's server.yaml reader: a full config, the
 * defaults, one clear error per kind of mistake (with line:col), the line
 * and caret under it, and the place kept for each program and region.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <prism/prism.h>

#include "util/size.h"
#include "tools/prismd/config.h"

static void test_full_config(void **state)
{
	static const char text[] = "device: sim\n"
	                           "profile: cx5\n"
	                           "firmware: strict\n"
	                           "listen: 127.0.0.1:19000\n"
	                           "control: /tmp/x.sock\n"
	                           "rearm: cpu\n"
	                           "max-connections: 2K\n"
	                           "nic-threads: 4\n"
	                           "allow-post: yes\n"
	                           "post-socket: /tmp/x.post\n"
	                           "post-uids: [1000, 0]\n"
	                           "max-connections-per-peer: 5\n"
	                           "regions:\n"
	                           "  - name: table\n"
	                           "    size: 1MiB\n"
	                           "    access: [read, atomic]\n"
	                           "    shared-by-app: true\n"
	                           "  - name: values\n"
	                           "    size: 4096\n"
	                           "    file: values.bin\n"
	                           "programs:\n"
	                           "  - a.chain\n"
	                           "  - b.chain\n";
	struct prismd_config cfg;
	char err[256];

	(void)state;
	assert_int_equal(prismd_config_parse(text, strlen(text), "s.yaml", &cfg, err, sizeof(err)),
	                 0);
	assert_string_equal(cfg.device, "sim");
	assert_string_equal(cfg.firmware, "strict");
	assert_string_equal(cfg.host, "127.0.0.1");
	assert_int_equal(cfg.port, 19000);
	assert_string_equal(cfg.control, "/tmp/x.sock");
	assert_int_equal(cfg.rearm, PRISM_REARM_CPU);
	assert_int_equal(cfg.max_conns, 2048);
	assert_int_equal(cfg.nic_threads, 4);
	assert_true(cfg.allow_post);
	assert_string_equal(cfg.post_socket, "/tmp/x.post");
	assert_int_equal(cfg.n_post_uids, 2);
	assert_int_equal(cfg.post_uids[0], 1000);
	assert_int_equal(cfg.post_uids[1], 0);
	assert_int_equal(cfg.max_conns_per_peer, 5);
	assert_int_equal(cfg.n_regions, 2);
	assert_string_equal(cfg.regions[0].name, "table");
	assert_int_equal(cfg.regions[0].size, 1u << 20);
	assert_int_equal(cfg.regions[0].access, PRISM_ACCESS_READ | PRISM_ACCESS_ATOMIC);
	assert_true(cfg.regions[0].shared_by_app);
	assert_string_equal(cfg.regions[1].file, "values.bin");
	assert_int_equal(cfg.regions[1].access, PRISM_ACCESS_READ);
	assert_int_equal(cfg.n_programs, 2);
	assert_string_equal(cfg.programs[1], "b.chain");
	prismd_config_free(&cfg);
}

static void test_defaults(void **state)
{
	static const char text[] = "regions: []\n";
	struct prismd_config cfg;
	char err[256];

	(void)state;
	assert_int_equal(prismd_config_parse(text, strlen(text), "d.yaml", &cfg, err, sizeof(err)),
	                 0);
	assert_string_equal(cfg.device, "sim");
	assert_string_equal(cfg.profile, "cx5");
	assert_string_equal(cfg.firmware, "relaxed");
	assert_int_equal(cfg.port, 18515);
	assert_null(cfg.host);
	assert_int_equal(cfg.max_conns, 4096);
	assert_int_equal(cfg.nic_threads, 1);
	assert_false(cfg.allow_post);
	prismd_config_free(&cfg);
}

/* Each bad config and the message it must produce. */
/* A socket path one byte longer than sockaddr_un holds. */
#define TEN_X    "xxxxxxxxxx"
#define PATH_108 "/" TEN_X TEN_X TEN_X TEN_X TEN_X TEN_X TEN_X TEN_X TEN_X TEN_X "xxxxxxx"

static const struct {
	const char *text;
	const char *expect;
} bad[] = {
    {"devize: sim\n", "c.yaml:1:1: error: unknown key 'devize'"},
    {"device: sim\ndevice: sim\n", "c.yaml:2:1: error: key 'device' given twice"},
    {"listen: host:99999\n", "c.yaml:1:9: error: 'listen' must be host:port"},
    {"rearm: sometimes\n", "'rearm' must be auto, cpu or nic, not 'sometimes'"},
    {"firmware: loose\n", "'firmware' must be relaxed or strict"},
    {"regions:\n  - name: t\n", "c.yaml:2:5: error: region 't' needs a size (or a file"},
    {"regions:\n  - name: t\n    size: 0\n", "c.yaml:3:11: error: 'size' must not be 0"},
    {"regions:\n  - name: t\n    size: 1M\n    size: 2M\n",
     "c.yaml:4:5: error: region key 'size' given twice (first at line 3)"},
    {"regions:\n  - name: t\n    size: 1 MB\n", "c.yaml:3:11: error: 'size': '1 MB' is not a size"},
    {"regions:\n  - name: t\n    size: -1\n", "'size': '-1' is not a size"},
    {"regions:\n  - name: t\n    size: 12Q\n", "c.yaml:3:11: error: 'size': '12Q' is not a size"},
    {"regions:\n  - name: t\n    size: 1\n    access: [read, exec]\n",
     "c.yaml:4:20: error: unknown access 'exec'"},
    {"regions:\n  - {name: t, size: 1}\n  - {name: t, size: 2}\n", "region 't' declared twice"},
    {"regions:\n  - {name: t, size: 1, colour: red}\n", "unknown region key 'colour'"},
    {"regions:\n  - {name: t, size: 1, file: f, shared-by-app: true}\n",
     "c.yaml:2:33: error: 'file' and 'shared-by-app' contradict each other"},
    {"regions:\n  - name: t\n    shared-by-app: true\n    file: f\n",
     "c.yaml:4:5: error: 'file' and 'shared-by-app' contradict each other"},
    {"allow-post: maybe\n", "'allow-post' must be true or false, not 'maybe'"},
    {"allow-post: true\n", "'allow-post' needs 'post-socket'"},
    {"post-uids: root\n", "'post-uids' must be a list of user ids"},
    {"post-uids: []\n", "'post-uids' is empty"},
    {"max-connections: 0\n", "'max-connections' must be at least 1"},
    {"nic-threads: 0\n", "'nic-threads' must be at least 1"},
    {"max-connections-per-peer: 0\n", "'max-connections-per-peer' must be at least 1"},
    {"control: " PATH_108 "\n",
     "c.yaml:1:10: error: 'control': a socket path is at most 107 bytes"},
    {"post-socket: " PATH_108 "\n",
     "c.yaml:1:14: error: 'post-socket': a socket path is at most 107 bytes"},
    {"nic-threads: 65\n", "'nic-threads'"},
    {"nic-threads: two\n", "'nic-threads'"},
    {"- a\n- b\n", "the configuration must be a mapping"},
    {"device: [sim\n", "c.yaml:2:1: error:"},
    {"", "c.yaml: error: empty configuration"},
    {"programs: foo.chain\n", "'programs' must be a list"},
};

static void test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct prismd_config cfg;
		char err[256];
		int rc = prismd_config_parse(bad[i].text, strlen(bad[i].text), "c.yaml", &cfg, err,
		                             sizeof(err));

		if (rc != -PRISM_E_CONFIG || !strstr(err, bad[i].expect))
			fail_msg("case %zu: rc %d, got \"%s\", want \"%s\"", i, rc, err,
			         bad[i].expect);
	}
}

/* One size syntax: every spelling a .prism literal accepts (util/size.h),
 * and the same value from both parsers. */
static void test_size_syntax(void **state)
{
	static const struct {
		const char *text;
		uint64_t value;
	} sizes[] = {
	    {"1048576", 1u << 20}, {"1M", 1u << 20},       {"1 MiB", 1u << 20},
	    {"1MiB", 1u << 20},    {"0x100000", 1u << 20}, {"1_048_576", 1u << 20},
	    {"4K", 4096},          {"4 KiB", 4096},        {"2G", 2ull << 30},
	    {"1 TiB", 1ull << 40},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char text[128], err[256];
		struct prismd_config cfg;
		uint64_t v = 0;

		snprintf(text, sizeof(text), "regions:\n  - name: t\n    size: %s\n",
		         sizes[i].text);
		if (prismd_config_parse(text, strlen(text), "s.yaml", &cfg, err, sizeof(err)))
			fail_msg("'%s': %s", sizes[i].text, err);
		assert_int_equal(cfg.regions[0].size, sizes[i].value);
		prismd_config_free(&cfg);
		assert_int_equal(core_size_parse(sizes[i].text, strlen(sizes[i].text), &v),
		                 CORE_SIZE_OK);
		assert_int_equal(v, sizes[i].value);
	}
	assert_int_equal(core_size_parse("1 MB", 4, &(uint64_t){0}), CORE_SIZE_SYNTAX);
	assert_int_equal(core_size_parse("16777216 T", 10, &(uint64_t){0}), CORE_SIZE_RANGE);
	assert_int_equal(core_size_parse("M", 1, &(uint64_t){0}), CORE_SIZE_NODIGITS);
}

/* 'size' may be left out with 'file' (the file's length, at start-up). */
static void test_size_from_file(void **state)
{
	const char *text = "regions:\n  - {name: t, file: t.bin}\n";
	struct prismd_config cfg;
	char err[256];

	(void)state;
	assert_int_equal(prismd_config_parse(text, strlen(text), "s.yaml", &cfg, err, sizeof(err)),
	                 0);
	assert_int_equal(cfg.regions[0].size, 0);
	assert_string_equal(cfg.regions[0].file, "t.bin");
	prismd_config_free(&cfg);
}

/* The whole message of a refused configuration: the place, the line and a
 * caret under the part that is wrong (util/caret.h, as prismc's). */
static void test_error_caret(void **state)
{
	static const struct {
		const char *text;
		const char *expect;
	} cases[] = {
	    /* bad YAML syntax: libyaml's place, the (empty) line after the '[' */
	    {"device: [sim\n", "c.yaml:2:1: error: did not find expected ',' or ']'\n"
	                       "    \n"
	                       "    ^"},
	    {"device: sim\n  listen: 1\n", "c.yaml:2:9: error: mapping values are not allowed in "
	                                   "this context\n"
	                                   "      listen: 1\n"
	                                   "            ^"},
	    /* unknown key: under the key */
	    {"device: sim\nlisten: 0\ndevize: sim\n",
	     "c.yaml:3:1: error: unknown key 'devize' (device, profile, firmware, listen, "
	     "control, rearm, max-connections, max-connections-per-peer, nic-threads, "
	     "allow-post, post-socket, regions, programs)\n"
	     "    devize: sim\n"
	     "    ^~~~~~"},
	    /* a region key given twice: under the second one */
	    {"regions:\n  - name: t\n    size: 1M\n    size: 2M\n",
	     "c.yaml:4:5: error: region key 'size' given twice (first at line 3)\n"
	     "        size: 2M\n"
	     "        ^~~~"},
	    /* in a flow mapping: under the value */
	    {"regions:\n  - {name: t, size: 12Q}\n",
	     "c.yaml:2:21: error: 'size': '12Q' is not a size (digits, then optionally K, KiB, "
	     "M, MiB, G, GiB, T or TiB)\n"
	     "      - {name: t, size: 12Q}\n"
	     "                        ^~~"},
	    /* a value with a line break stays on the message's line */
	    {"regions:\n  - {name: t, size: \"4\\nK\"}\n",
	     "c.yaml:2:21: error: 'size': '4\\nK' is not a size (digits, then optionally K, KiB, "
	     "M, MiB, G, GiB, T or TiB)\n"
	     "      - {name: t, size: \"4\\nK\"}\n"
	     "                        ^~~~~~"},
	    /* bytes that are not UTF-8: placed from libyaml's byte offset */
	    {"device: sim\nprofile: c\xffx\n", "c.yaml:2:11: error: invalid leading UTF-8 octet "
	                                       "(byte 0xff)\n"
	                                       "    profile: c\xffx\n"
	                                       "              ^"},
	    /* columns count characters (libyaml's), so the caret lines up after
	     * a two-byte 'é' */
	    {"regions:\n  - {name: \xc3\xa9, size: 1Q}\n",
	     "c.yaml:2:21: error: 'size': '1Q' is not a size (digits, then optionally K, KiB, "
	     "M, MiB, G, GiB, T or TiB)\n"
	     "      - {name: \xc3\xa9, size: 1Q}\n"
	     "                        ^~"},
	    /* a whole region: under its first line */
	    {"regions:\n  - name: t\n", "c.yaml:2:5: error: region 't' needs a size (or a file "
	                                "to take it from)\n"
	                                "      - name: t\n"
	                                "        ^"},
	    /* no place: no line */
	    {"", "c.yaml: error: empty configuration"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct prismd_config cfg;
		char err[1024];
		int rc = prismd_config_parse(cases[i].text, strlen(cases[i].text), "c.yaml", &cfg,
		                             err, sizeof(err));

		if (rc != -PRISM_E_CONFIG || strcmp(err, cases[i].expect))
			fail_msg("case %zu: rc %d, got\n%s\nwant\n%s", i, rc, err, cases[i].expect);
	}
}

/* A message cut at the caller's buffer stays a terminated string. */
static void test_error_cut(void **state)
{
	static const char text[] = "devize: sim\n";
	struct prismd_config cfg;
	char err[16];

	(void)state;
	assert_int_equal(prismd_config_parse(text, strlen(text), "c.yaml", &cfg, err, sizeof(err)),
	                 -PRISM_E_CONFIG);
	assert_string_equal(err, "c.yaml:1:1: err");
}

/* Each program keeps the place that listed it; a later error about it is
 * reported there, with the line and a caret under the path. */
static void test_program_place(void **state)
{
	static const char text[] = "device: sim\n"
	                           "programs:\n"
	                           "  - a.chain\n"
	                           "  - \"lib/hash_get.chain\"\n"
	                           "  - [b.chain]\n";
	static const char two[] = "programs: [x.chain,  y.chain]\n";
	struct prismd_config cfg;
	char err[1024], *out = NULL;
	size_t n = 0;
	FILE *f;

	(void)state;
	/* a list in a list is refused at its place */
	assert_int_equal(prismd_config_parse(text, strlen(text), "p.yaml", &cfg, err, sizeof(err)),
	                 -PRISM_E_CONFIG);
	assert_string_equal(err, "p.yaml:5:5: error: 'programs' must be a scalar\n"
	                         "      - [b.chain]\n"
	                         "        ^~~~~~~~~");
	assert_int_equal(
	    prismd_config_parse(text, strlen(text) - 14, "p.yaml", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.n_programs, 2);
	assert_int_equal(cfg.program_pos[0].line, 3);
	assert_int_equal(cfg.program_pos[0].col, 5);
	assert_int_equal(cfg.program_pos[0].len, 7);
	assert_int_equal(cfg.program_pos[1].line, 4);
	assert_int_equal(cfg.program_pos[1].len, 20); /* the quotes too */
	f = open_memstream(&out, &n);
	assert_non_null(f);
	prismd_config_report(&cfg, cfg.program_pos[1], f,
	                     "program 'get': region '%s' (%d bytes) is not registered on device %s",
	                     "table", 4096, cfg.device);
	prismd_config_note(&cfg, cfg.program_pos[0], f, "listed first");
	prismd_config_report(&cfg, (struct prismd_pos){0, 0, 0}, f, "no place");
	fclose(f);
	assert_string_equal(out, "p.yaml:4:5: error: program 'get': region 'table' (4096 bytes) is "
	                         "not registered on device sim\n"
	                         "      - \"lib/hash_get.chain\"\n"
	                         "        ^~~~~~~~~~~~~~~~~~~~\n"
	                         "p.yaml:3:5: note: listed first\n"
	                         "      - a.chain\n"
	                         "        ^~~~~~~\n"
	                         "p.yaml: error: no place\n");
	free(out);
	prismd_config_free(&cfg);
	/* a flow list: each path's own column */
	assert_int_equal(prismd_config_parse(two, strlen(two), "p.yaml", &cfg, err, sizeof(err)),
	                 0);
	assert_int_equal(cfg.program_pos[0].col, 12);
	assert_int_equal(cfg.program_pos[1].col, 22);
	assert_int_equal(cfg.program_pos[1].len, 7);
	prismd_config_free(&cfg);
}

/* Each region keeps the place of its entry and of its 'file' value. */
static void test_region_place(void **state)
{
	static const char text[] = "regions:\n"
	                           "  - name: t\n"
	                           "    size: 1M\n"
	                           "  - {name: u, file: u.bin}\n";
	struct prismd_config cfg;
	char err[256];

	(void)state;
	assert_int_equal(prismd_config_parse(text, strlen(text), "r.yaml", &cfg, err, sizeof(err)),
	                 0);
	assert_int_equal(cfg.regions[0].pos.line, 2);
	assert_int_equal(cfg.regions[0].pos.col, 5);
	assert_int_equal(cfg.regions[0].file_pos.line, 0); /* no file */
	assert_int_equal(cfg.regions[1].pos.line, 4);
	assert_int_equal(cfg.regions[1].pos.col, 5);
	assert_int_equal(cfg.regions[1].pos.len, 22); /* the whole {...} */
	assert_int_equal(cfg.regions[1].file_pos.line, 4);
	assert_int_equal(cfg.regions[1].file_pos.col, 21);
	assert_int_equal(cfg.regions[1].file_pos.len, 5);
	prismd_config_free(&cfg);
}

/* Access bits spelled as the configuration spells them. */
static void test_access_words(void **state)
{
	char buf[32], tiny[8];

	(void)state;
	assert_string_equal(prismd_access_words(0, buf, sizeof(buf)), "none");
	assert_string_equal(prismd_access_words(PRISM_ACCESS_READ, buf, sizeof(buf)), "read");
	assert_string_equal(
	    prismd_access_words(PRISM_ACCESS_READ | PRISM_ACCESS_ATOMIC, buf, sizeof(buf)),
	    "read, atomic");
	assert_string_equal(
	    prismd_access_words(PRISM_ACCESS_READ | PRISM_ACCESS_WRITE | PRISM_ACCESS_ATOMIC, buf,
	                        sizeof(buf)),
	    "read, write, atomic");
	/* cut at a whole word */
	assert_string_equal(
	    prismd_access_words(PRISM_ACCESS_READ | PRISM_ACCESS_WRITE, tiny, sizeof(tiny)),
	    "read");
}

static void test_missing_file(void **state)
{
	struct prismd_config cfg;
	char err[256];

	(void)state;
	assert_int_equal(prismd_config_load("/nonexistent/s.yaml", &cfg, err, sizeof(err)),
	                 -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/s.yaml: error:"));
}

static void test_hostport(void **state)
{
	char *host;
	uint16_t port;

	(void)state;
	assert_int_equal(prismd_parse_hostport("10.0.0.1:18515", &host, &port), 0);
	assert_string_equal(host, "10.0.0.1");
	assert_int_equal(port, 18515);
	free(host);
	assert_int_equal(prismd_parse_hostport(":7", &host, &port), 0);
	assert_null(host);
	assert_int_equal(port, 7);
	assert_int_equal(prismd_parse_hostport("80", &host, &port), 0);
	assert_int_equal(port, 80);
	assert_int_equal(prismd_parse_hostport("h:", &host, &port), -EINVAL);
	assert_int_equal(prismd_parse_hostport("h:x1", &host, &port), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_full_config),    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_errors),         cmocka_unit_test(test_missing_file),
	    cmocka_unit_test(test_hostport),       cmocka_unit_test(test_size_syntax),
	    cmocka_unit_test(test_size_from_file), cmocka_unit_test(test_error_caret),
	    cmocka_unit_test(test_error_cut),      cmocka_unit_test(test_program_place),
	    cmocka_unit_test(test_region_place),   cmocka_unit_test(test_access_words),
	};

	return cmocka_run_group_tests_name("prismd_config", tests, NULL, NULL);
}
