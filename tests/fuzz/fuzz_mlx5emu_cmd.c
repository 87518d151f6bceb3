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
 * the command, of the length the input gives.  The third entry point is the
 * CQ arm doorbell (mlx5emu_event.c): 8 input bytes written to the UAR
 * page's CQ doorbell of a subscribed CQ, the doorbell record's arm word
 * either the same or the next 4 input bytes; a doorbell the emulator takes
 * without a loud failure must be a valid arm of that CQ (cmd 0, its CQN,
 * the record matching), and its event, if any, carries the CQ's cookie.
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
/* A 16-CQE CQ in the umem (ring at 0, doorbell record at 8192), subscribed
 * to its completion event on @evch with cookie 0xc0ffee. */
static struct mlx5dv_devx_obj *cq;
static struct mlx5dv_devx_event_channel *evch;
static uint32_t cqn;
#define CQ_DBR 8192u

static void setup_cq(const struct mlx5_glue *g)
{
	const uint32_t cqc = mlx5_prm_off(MLX5_PRM_CREATE_CQ_IN_CQC);
	uint16_t ev[] = {0};
	struct mlx5_prm_cmd c;

	for (unsigned i = 0; i < 16; i++)
		ring[i * 64 + 63] = 0xf1;
	mlx5_prm_cmd_init(&c, MLX5_PRM_CMD_CREATE_CQ, 0, MLX5_PRM_CQ_CMD_IN_BYTES);
	mlx5_prm_cmd_set(&c, cqc, MLX5_PRM_CQC_LOG_CQ_SIZE, 4);
	mlx5_prm_cmd_set(&c, cqc, MLX5_PRM_CQC_UAR_PAGE, uar->page_id);
	mlx5_prm_cmd_set(&c, cqc, MLX5_PRM_CQC_C_EQN, 7);
	mlx5_prm_cmd_set(&c, cqc, MLX5_PRM_CQC_DBR_UMEM_VALID, 1);
	mlx5_prm_cmd_set(&c, cqc, MLX5_PRM_CQC_DBR_UMEM_ID, umem->umem_id);
	mlx5_prm_cmd_set(&c, cqc, MLX5_PRM_CQC_DBR_ADDR, CQ_DBR);
	mlx5_prm_cmd_set(&c, 0, MLX5_PRM_CREATE_CQ_IN_UMEM_VALID, 1);
	mlx5_prm_cmd_set(&c, 0, MLX5_PRM_CREATE_CQ_IN_UMEM_ID, umem->umem_id);
	if (c.err || !(cq = g->devx_obj_create(ctx, c.in, c.inlen, out, MLX5_PRM_SHORT_BYTES)) ||
	    !(evch = g->devx_create_event_channel(
	          ctx, MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA)) ||
	    g->devx_subscribe_devx_event(evch, cq, sizeof(ev), ev, 0xc0ffee))
		__builtin_trap();
	cqn = (uint32_t)mlx5_prm_get(out, MLX5_PRM_SHORT_BYTES, 0, MLX5_PRM_CREATE_CQ_OUT_CQN);
}

/* The CQ arm doorbell from @in (8 bytes, then maybe 4 for the record). */
static void cq_doorbell(const struct mlx5_glue *g, const uint8_t *in, size_t len)
{
	uint8_t db[8] = {0};
	uint32_t word, rec, n_cqn;
	uint64_t bytes;
	unsigned before = mlx5emu_errors();
	struct mlx5dv_devx_async_event_hdr hdr;

	memcpy(db, in, len < 8 ? len : 8);
	memcpy(&word, db, 4);
	memcpy(&n_cqn, db + 4, 4);
	rec = word;
	if (len >= 12)
		memcpy(&rec, in + 8, 4);
	memcpy(ring + CQ_DBR + 4, &rec, 4); /* the record's arm word (big-endian already) */
	memcpy(&bytes, db, 8);
	g->uar_write64((uint8_t *)uar->base_addr + 0x20, bytes);
	if (mlx5emu_errors() == before &&
	    (rec != word || ((__builtin_bswap32(word) >> 24) & 0xff) >> 4 > 3 ||
	     ((__builtin_bswap32(word) >> 24) & 0xf) != 0 || __builtin_bswap32(n_cqn) != cqn))
		__builtin_trap(); /* an arm the emulator should have refused */
	while (g->devx_get_event(evch, &hdr, sizeof(hdr)) > 0)
		if (hdr.cookie != 0xc0ffee)
			__builtin_trap();
}

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
	setup_cq(g);
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
	switch (data[0] % 3) {
	case 0:
		rc = g->devx_general_cmd(ctx, in, len, out, sizeof(out));
		break;
	case 2:
		cq_doorbell(g, in, len);
		return 0;
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
