/* SPDX-License-Identifier: MIT */
/*
 * compiler/cmd_devices.c - `prismc devices`: the NIC backends this build
 * has and, with --probe, what each device does where the hardware sources
 * are silent (runtime/core/probe.h, docs/nic-model.md).
 *
 *     prismc devices [--probe] [--firmware relaxed|strict] [--json]
 *
 * Owns: the command line and the report.  On the software NIC the probe
 * shows the model (both firmware profiles); on an mlx5 device it would show
 * the hardware.
 * Must not: keep a device open after it returns.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "compiler/cmd.h"
#include "runtime/core/backend.h"
#include "runtime/core/probe.h"

struct backend_entry {
	const char *name, *what;
	const struct core_backend_ops *ops;
};

/* A hardware backend joins this table with its operations table. */
static const struct backend_entry backends[] = {
    {"sim", "software RNIC (runtime/sim)", &core_sim_backend},
};

static void devices_help(FILE *out)
{
	fprintf(out, "usage: prismc devices [--probe] [--firmware relaxed|strict] [--json]\n\n"
	             "List the NIC backends of this build.  With --probe, run the behaviour\n"
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
                       const struct core_probe_report *rep)
{
	printf("device %s: %s, firmware %s\n", b->name, b->what, profile);
	if (!rep)
		return;
	for (unsigned i = 0; i < CORE_PROBE__COUNT; i++)
		printf("  %-28s %-6s %s\n", core_probe_name((enum core_probe_id)i),
		       core_probe_verdict_name(rep->v[i]), rep->detail[i]);
}

static void print_json(const struct backend_entry *b, const char *profile,
                       const struct core_probe_report *rep)
{
	printf("{\"device\":\"%s\",\"profile\":\"%s\"", b->name, profile);
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
	    {"probe", no_argument, NULL, 'p'},
	    {"firmware", required_argument, NULL, 'f'},
	    {"profile", required_argument, NULL, 'f'}, /* the older spelling */
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *profile = "relaxed";
	bool probe = false, json = false;
	int ch;

	if (prismc_wants_help(argc, argv)) {
		devices_help(stdout);
		return PRISMC_EXIT_OK;
	}
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			probe = true;
			break;
		case 'f':
			profile = optarg;
			break;
		case 'j':
			json = true;
			break;
		default:
			fprintf(stderr, "prismc devices: unknown option '%s'\n", argv[optind - 1]);
			return PRISMC_EXIT_USAGE;
		}
	}
	if (optind < argc || (strcmp(profile, "relaxed") && strcmp(profile, "strict"))) {
		fprintf(stderr, "prismc devices: usage: prismc devices [--probe] "
		                "[--firmware relaxed|strict] [--json]\n");
		return PRISMC_EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		const struct backend_entry *b = &backends[i];
		struct core_probe_report rep = {0};
		struct core_be_dev *dev = NULL;
		struct core_dev_attr attr = {.sz = sizeof(attr),
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
		(json ? print_json : print_text)(b, profile, probe ? &rep : NULL);
	}
	return PRISMC_EXIT_OK;
}

const struct prismc_cmd cmd_devices = {
    .name = "devices",
    .summary = "list NIC backends; --probe shows what each does where sources are silent",
    .run = devices_run,
    .help = devices_help,
};
