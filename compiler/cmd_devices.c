/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd_devices.c - `prismc devices`: the devices prism can open
 * (sim and every mlx5 RDMA device) and what each can run.
 *
 *     prismc devices [--firmware relaxed|strict] [--json]
 *
 * Owns: the command line and the listing.  Must not: change any device.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <prism/prism.h>

#include "compiler/cmd.h"

#define DEVICES_MAX 16

static void devices_help(FILE *out)
{
	fprintf(out, "usage: prismc devices [--firmware relaxed|strict] [--json]\n\n"
	             "List the devices prism can open (sim and every mlx5 RDMA device) with\n"
	             "what each can run: cross-channel, wait-on-data, host-endian 8-byte\n"
	             "atomics, masked-atomic operand sizes, firmware profile.  A device that\n"
	             "cannot be opened is listed with the reason.\n\n"
	             "options:\n"
	             "  --firmware P   the firmware profile to open devices with (default\n"
	             "                 relaxed; an mlx5 device's is probed, this is the fallback)\n"
	             "  --json         one JSON array\n"
	             "  -h, --help     this help\n\n"
	             "exit status: 0 listed, 2 usage.\n");
}

static void sizes(char *buf, size_t cap, uint8_t m)
{
	size_t n = 0;

	buf[0] = 0;
	for (unsigned s = 4; s <= 32; s <<= 1)
		if (m & s)
			n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s%u", n ? "," : "",
			                      s);
	if (!n)
		snprintf(buf, cap, "none");
}

static void print_one(const char *name, const struct prism_device_caps *c, const char *err,
                      bool json, bool first)
{
	char sz[32];

	if (err) {
		if (json)
			printf("%s{\"name\":\"%s\",\"error\":\"%s\"}", first ? "" : ",", name, err);
		else
			printf("%-10s unavailable: %s\n", name, err);
		return;
	}
	sizes(sz, sizeof(sz), c->masked_atomic_sizes);
	if (json) {
		printf("%s{\"name\":\"%s\",\"backend\":\"%s\",\"cross_channel\":%s,"
		       "\"wait_on_data\":%s,\"atomic_8b_host_endian\":%s,\"masked_atomic_sizes\":"
		       "\"%s\",\"firmware\":\"%s\",\"firmware_source\":\"%s\"}",
		       first ? "" : ",", name, c->backend, c->cross_channel ? "true" : "false",
		       c->wait_on_data ? "true" : "false",
		       c->atomic_8b_host_endian ? "true" : "false", sz,
		       c->relaxed_firmware ? "relaxed" : "strict", c->firmware_source);
		return;
	}
	printf("%-10s backend %-5s cross-channel %-3s wait-on-data %-3s 8B-atomics %-4s "
	       "masked %-10s firmware %s (%s)\n",
	       name, c->backend, c->cross_channel ? "yes" : "no", c->wait_on_data ? "yes" : "no",
	       c->atomic_8b_host_endian ? "host" : "BE", sz,
	       c->relaxed_firmware ? "relaxed" : "strict", c->firmware_source);
}

static int devices_run(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"firmware", required_argument, NULL, 'f'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *names[DEVICES_MAX], *fw = "relaxed";
	bool json = false;
	int n, ch;

	if (prismc_wants_help(argc, argv)) {
		devices_help(stdout);
		return PRISMC_EXIT_OK;
	}
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (ch == 'f' && (!strcmp(optarg, "relaxed") || !strcmp(optarg, "strict"))) {
			fw = optarg;
		} else if (ch == 'j') {
			json = true;
		} else {
			fprintf(stderr, "prismc devices: bad option (see --help)\n");
			return PRISMC_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "prismc devices: takes no file\n");
		return PRISMC_EXIT_USAGE;
	}
	n = prism_list_devices(names, DEVICES_MAX);
	if (n > DEVICES_MAX)
		n = DEVICES_MAX;
	if (json)
		printf("[");
	for (int i = 0; i < n; i++) {
		PRISM_OPTS(prism_device_opts, o, .firmware = fw);
		struct prism_device_caps c = {.sz = sizeof(c)};
		struct prism_device *dev = prism_device__open(names[i], &o);
		int err = dev ? prism_device__caps(dev, &c) : -errno;

		print_one(names[i], &c, err ? prism_strerror(err) : NULL, json, i == 0);
		prism_device__close(dev);
	}
	if (json)
		printf("]\n");
	return PRISMC_EXIT_OK;
}

const struct prismc_cmd cmd_devices = {
    .name = "devices",
    .summary = "list the devices (sim, mlx5) and what each can run",
    .run = devices_run,
    .help = devices_help,
};
