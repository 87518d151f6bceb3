/* SPDX-License-Identifier: MIT */
/*
 * tests/mlx5emu/mlx5emu_so.c - the emulator as a shared object for whole
 * processes: libprism-mlx5emu.so.  A process started with
 *
 *     PRISM_MLX5_GLUE=build/libprism-mlx5emu.so [PRISM_MLX5EMU=options]
 *
 * (prismd, prismc, prism-demo, a test's child) loads it on its first mlx5
 * call and every rdma-core call goes to the emulator (runtime/mlx5/
 * mlx5_glue.h).  The object carries its own copy of the software NIC.
 * Emulated NICs live in the process; with fabric=DIR they reach those of
 * the other processes naming the same directory (docs/backends.md).
 *
 * PRISM_MLX5EMU: comma-separated, any of devices=N (1..4), relaxed (the
 * relaxed firmware profile), roce, no-cd, no-wait-on-data, no-cq-oi,
 * no-events, be-atomics, seed=N, fabric=DIR (the emulated NICs of every process
 * naming DIR reach each other: mlx5emu_xwire.c).  An unknown option refuses the load (the process
 * then sees no RDMA device).
 *
 * Test support only: never part of libprism or of an install.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5/mlx5_glue.h"
#include "tests/mlx5emu/mlx5emu.h"

static int parse(const char *spec, struct mlx5emu_opts *o)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", spec ? spec : "");
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strncmp(t, "devices=", 8))
			o->n_devices = (unsigned)strtoul(t + 8, NULL, 10);
		else if (!strncmp(t, "seed=", 5))
			o->seed = strtoull(t + 5, NULL, 10);
		else if (!strncmp(t, "fabric=", 7))
			o->fabric_dir = strdup(t + 7); /* kept for the process's life */
		else if (!strcmp(t, "relaxed"))
			o->relaxed_fw = true;
		else if (!strcmp(t, "roce"))
			o->roce = true;
		else if (!strcmp(t, "no-cd"))
			o->no_cd = true;
		else if (!strcmp(t, "no-wait-on-data"))
			o->no_wait_on_data = true;
		else if (!strcmp(t, "no-cq-oi"))
			o->no_cq_oi = true;
		else if (!strcmp(t, "no-events"))
			o->no_events = true;
		else if (!strcmp(t, "be-atomics"))
			o->be_atomics = true;
		else {
			fprintf(stderr, "mlx5emu: PRISM_MLX5EMU: unknown option '%s'\n", t);
			return -1;
		}
	}
	return 0;
}

__attribute__((visibility("default"))) const struct mlx5_glue *
prism_mlx5_glue_interposer(size_t table_size);

const struct mlx5_glue *prism_mlx5_glue_interposer(size_t table_size)
{
	static const struct mlx5_glue *g;
	struct mlx5emu_opts o = {0};

	if (table_size != sizeof(struct mlx5_glue))
		return NULL;
	if (g)
		return g;
	if (parse(getenv("PRISM_MLX5EMU"), &o))
		return NULL;
	mlx5emu_install(&o);
	g = mlx5emu_glue();
	return g;
}
