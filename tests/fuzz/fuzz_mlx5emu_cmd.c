/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_mlx5emu_cmd.c - libFuzzer target for the mlx5 emulator's
 * firmware-command parser (tests/mlx5emu/mlx5emu_cmd.c).
 *
 * Owns: the property that arbitrary DEVX command bytes, given to the
 * general-command, object-create and object-modify entry points, never
 * crash or read out of bounds, and that every answer is consistent: a call
 * that fails wrote a non-zero status (or fails before any output) and counts
 * a loud failure; a call that succeeds wrote status 0, and a created object
 * can be destroyed again.  Input byte 0 picks the entry point; the rest is
 * the command, of the length the input gives.
 *
 * Must not: keep objects across inputs (each created one is destroyed).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mlx5/mlx5_glue.h"
#include "mlx5/mlx5_prm.h"
#include "tests/mlx5emu/mlx5emu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ibv_context *ctx;
static uint8_t out[MLX5_PRM_CAP_OUT_BYTES];
/* Objects a command may name, so some inputs get past the reference checks:
 * umem id 1 (16 KiB), UAR page 0x10, PD 0x100, EQ 7. */
static uint8_t ring[16384] __attribute__((aligned(4096)));
static struct ibv_pd *pd;
static struct mlx5dv_devx_uar *uar;
static struct mlx5dv_devx_umem *umem;

static void setup(void)
{
	const struct mlx5_glue *g;
	struct mlx5dv_context_attr a = {.flags = MLX5DV_CONTEXT_FLAGS_DEVX};
	struct ibv_device **list;
	int n;

	mlx5emu_install(&(struct mlx5emu_opts){.quiet = true});
	g = mlx5_glue();
	list = g->get_device_list(&n);
	ctx = g->dv_open_device(list[0], &a);
	g->free_device_list(list);
	if (!ctx || !(pd = g->alloc_pd(ctx)) ||
	    !(uar = g->devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC)) ||
	    !(umem = g->devx_umem_reg(ctx, ring, sizeof(ring), IBV_ACCESS_LOCAL_WRITE)))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct mlx5_glue *g;
	uint8_t in[MLX5_PRM_QP_CMD_IN_BYTES + 64];
	unsigned before;
	size_t len;
	int rc;

	if (!ctx)
		setup();
	g = mlx5_glue();
	if (size < 1)
		return 0;
	len = size - 1 < sizeof(in) ? size - 1 : sizeof(in);
	memcpy(in, data + 1, len);
	memset(out, 0xa5, sizeof(out));
	before = mlx5emu_errors();
	switch (data[0] % 2) {
	case 0:
		rc = g->devx_general_cmd(ctx, in, len, out, sizeof(out));
		break;
	default: {
		struct mlx5dv_devx_obj *o =
		    g->devx_obj_create(ctx, in, len, out, MLX5_PRM_SHORT_BYTES);

		rc = o ? 0 : -1;
		if (o && g->devx_obj_destroy(o))
			__builtin_trap();
		break;
	}
	}
	if (rc) {
		if (mlx5emu_errors() == before)
			__builtin_trap(); /* a failure that was not loud */
	} else if (mlx5_prm_get(out, sizeof(out), 0, MLX5_PRM_OUT_STATUS) != 0) {
		__builtin_trap(); /* success with a failing status */
	}
	return 0;
}
