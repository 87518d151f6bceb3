/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd_devices.c - `prismc devices`: the devices this build can
 * open (the sim and every mlx5 RDMA device), what each can run (its
 * capabilities: cross-channel, wait-on-data, 8-byte atomic byte order,
 * masked-atomic sizes, firmware profile) and, with --probe, what each does
 * where the hardware sources are silent (runtime/core/probe.h,
 * docs/nic-model.md).
 *
 *     prismc devices [--probe] [--firmware relaxed|strict] [--json]
 *
 * Owns: the command line and the report.  On the software NIC the probe
 * shows the model (both firmware profiles); on an mlx5 device it would show
 * the hardware.
 * Must not: keep a device open after it returns.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <prism/prism.h>

#include "compiler/cmd.h"
#include "runtime/core/backend.h"
#include "runtime/core/probe.h"

struct backend_entry {
	const char *name, *what;
	const struct core_backend_ops *ops;
};

#define DEVICES_MAX 16

/* The sim, then every mlx5 RDMA device (rdma-core's list). */
static size_t list_devices(struct backend_entry *out, char (*names)[64])
{
	size_t n = 0;
	int k = core_mlx5_device_names(names, DEVICES_MAX - 1);

	out[n++] = (struct backend_entry){"sim", "software RNIC (runtime/sim)", &core_sim_backend};
	for (int i = 0; i < k; i++)
		out[n++] = (struct backend_entry){names[i], "mlx5 NIC (runtime/mlx5, DEVX)",
		                                  &core_mlx5_backend};
	return n;
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

/* What the device can run (prism_device__caps), or why it cannot be opened. */
static int caps_of(const char *name, const char *profile, struct prism_device_caps *c)
{
	PRISM_OPTS(prism_device_opts, o, .firmware = profile);
	struct prism_device *dev = prism_device__open(name, &o);
	int err;

	c->sz = sizeof(*c);
	err = dev ? prism_device__caps(dev, c) : -errno;
	prism_device__close(dev);
	return err;
}

static void devices_help(FILE *out)
{
	fprintf(
	    out,
	    "usage: prismc devices [--probe] [--firmware relaxed|strict] [--json]\n\n"
	    "List the devices this build can open (the sim and every mlx5 RDMA\n"
	    "device) with what each can run: cross-channel, wait-on-data, 8-byte\n"
	    "atomic byte order, masked-atomic sizes, firmware profile (an mlx5\n"
	    "device's is probed; --firmware is the fallback).  With --probe, run the behaviour\n"
	    "probe on each: short WQE programs whose outcome shows the WAIT threshold,\n"
	    "whether a doorbell starts a managed queue, SEND_EN past the doorbell\n"
	    "record, SEND_EN index units, the fenced enable, WAIT / SEND_EN without\n"
	    "the cross-channel role and the firmware's control-segment checks.\n\n"
	    "options:\n"
	    "  --probe           run the probe\n"
	    "  --firmware P      the software NIC's firmware profile (default relaxed;\n"
	    "                    --profile is the same option)\n"
	    "  --json            one JSON object per device\n"
	    "  -h, --help        this help\n\n"
	    "exit status: 0 ok, 2 usage, 4 a backend could not be opened.\n");
}

static void print_text(const struct backend_entry *b, const char *profile,
                       const struct prism_device_caps *c, int cerr,
                       const struct core_probe_report *rep)
{
	char sz[32];

	printf("device %s: %s, firmware %s\n", b->name, b->what, profile);
	sizes(sz, sizeof(sz), c->masked_atomic_sizes);
	if (cerr)
		printf("  unavailable: %s\n", prism_strerror(cerr));
	else
		printf("  cross-channel %s, wait-on-data %s, 8-byte atomics %s, masked %s, "
		       "firmware %s (%s)\n",
		       c->cross_channel ? "yes" : "no", c->wait_on_data ? "yes" : "no",
		       c->atomic_8b_host_endian ? "host order" : "big-endian", sz,
		       c->relaxed_firmware ? "relaxed" : "strict", c->firmware_source);
	if (!rep)
		return;
	for (unsigned i = 0; i < CORE_PROBE__COUNT; i++)
		printf("  %-28s %-6s %s\n", core_probe_name((enum core_probe_id)i),
		       core_probe_verdict_name(rep->v[i]), rep->detail[i]);
}

static void print_json(const struct backend_entry *b, const char *profile,
                       const struct prism_device_caps *c, int cerr,
                       const struct core_probe_report *rep)
{
	char sz[32];

	printf("{\"device\":\"%s\",\"profile\":\"%s\"", b->name, profile);
	sizes(sz, sizeof(sz), c->masked_atomic_sizes);
	if (cerr)
		printf(",\"error\":\"%s\"", prism_strerror(cerr));
	else
		printf(",\"backend\":\"%s\",\"cross_channel\":%s,\"wait_on_data\":%s,"
		       "\"atomic_8b_host_endian\":%s,\"masked_atomic_sizes\":\"%s\","
		       "\"firmware\":\"%s\",\"firmware_source\":\"%s\"",
		       c->backend, c->cross_channel ? "true" : "false",
		       c->wait_on_data ? "true" : "false",
		       c->atomic_8b_host_endian ? "true" : "false", sz,
		       c->relaxed_firmware ? "relaxed" : "strict", c->firmware_source);
	if (rep) {
		printf(",\"probe\":{");
		for (unsigned i = 0; i < CORE_PROBE__COUNT; i++)
			printf("%s\"%s\":{\"verdict\":\"%s\",\"detail\":\"%s\"}", i ? "," : "",
			       core_probe_name((enum core_probe_id)i),
			       core_probe_verdict_name(rep->v[i]), rep->detail[i]);
		printf("}");
	}
	printf("}\n");
}

static int devices_run(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"probe", no_argument, NULL, 'p'},         {"firmware", required_argument, NULL, 'f'},
	    {"profile", required_argument, NULL, 'f'}, /* the older spelling */
	    {"json", no_argument, NULL, 'j'},          {NULL, 0, NULL, 0},
	};
	const char *profile = "relaxed";
	bool probe = false, json = false;
	struct backend_entry backends[DEVICES_MAX];
	char names[DEVICES_MAX][64];
	size_t n_backends;
	enum ir_profile fw = IR_PROFILE_RELAXED;
	struct cli c;
	int ch;

	cli_init(&c, "prismc devices", argc, argv, "", longopts, devices_help);
	while ((ch = cli_next(&c)) != -1) {
		switch (ch) {
		case CLI_STOP:
			return c.exit;
		case 'p':
			probe = true;
			break;
		case 'f':
			if (prismc_firmware_arg(&c, optarg, &fw))
				return PRISMC_EXIT_USAGE;
			profile = fw == IR_PROFILE_STRICT ? "strict" : "relaxed";
			break;
		case 'j':
			json = true;
			break;
		}
	}
	if (optind < argc)
		return cli_usage(&c, "unexpected argument '%s'", argv[optind]);
	n_backends = list_devices(backends, names);
	for (size_t i = 0; i < n_backends; i++) {
		const struct backend_entry *b = &backends[i];
		struct core_probe_report rep = {0};
		struct prism_device_caps caps = {.sz = sizeof(caps)};
		int cerr = caps_of(b->name, profile, &caps);
		struct core_be_dev *dev = NULL;
		struct core_dev_attr attr = {.sz = sizeof(attr),
		                             .name = b->ops == &core_sim_backend ? NULL : b->name,
		                             .relaxed_fw = !strcmp(profile, "relaxed"),
		                             .hazard_policy = 1,
		                             .node = 1};

		if (probe) {
			int err = b->ops->open(&attr, &dev);
			if (!err) {
				err =
				    core_probe_run(b->ops, dev, attr.node, CORE_PROBE__COUNT, &rep);
				b->ops->close(dev);
			}
			if (err) {
				fprintf(stderr,
				        "prismc devices: %s: could not run the probe (%d)\n",
				        b->name, err);
				return PRISMC_EXIT_INTERNAL;
			}
		}
		(json ? print_json : print_text)(b, profile, &caps, cerr, probe ? &rep : NULL);
	}
	return PRISMC_EXIT_OK;
}

const struct prismc_cmd cmd_devices = {
    .name = "devices",
    .summary = "list the devices (sim, mlx5) and what each can run; --probe: what each does",
    .run = devices_run,
    .help = devices_help,
};
