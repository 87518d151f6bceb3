/* SPDX-License-Identifier: MIT */
/*
 * tests/mlx5emu/mlx5emu.h - a PRM-level mlx5 device emulator, so the mlx5
 * backend (runtime/mlx5/) runs end to end without hardware.
 *
 * It is an rdma-core entry-point table (runtime/mlx5/mlx5_glue.h) that
 * answers every call the backend makes the way the kernel and firmware
 * would: the DEVX commands arrive as PRM bytes and are parsed field by
 * field (QUERY_HCA_CAP, CREATE_CQ, CREATE_QP, RST2INIT / INIT2RTR /
 * RTR2RTS / 2ERR / 2RST), answered with PRM output bytes (status, syndrome,
 * CQN, QPN), and carried out on the software NIC: the sim's CQs and QPs use
 * the very umem buffers the backend registered (sim_qp_attr.ext_buf), so the
 * sim executes the WQE bytes the backend wrote where it wrote them, and the
 * doorbells the backend writes to its UAR page reach the sim's queue whose
 * QPN they carry.  Completion events go as the kernel delivers them for DEVX
 * CQs: a CQ subscribed on an event channel and armed through the UAR page's
 * CQ doorbell raises one event (its cookie) once the CQ produces past the
 * armed consumer index (mlx5emu_event.c).  Each emulated device is one threaded sim device, shared
 * by every context opened on it: like a NIC, it runs by itself, and QPs of
 * two contexts (a server and a client in one process) reach each other.
 *
 * A command, op_mod or field value it does not implement fails loudly: the
 * call fails with status BAD_OP / BAD_PARAM, the reason goes to stderr and
 * is counted (mlx5emu_errors), so a test can assert none happened.
 *
 * Not part of libprism: tests link it (tests/mlx5emu/mlx5emu.mk).
 */
#ifndef PRISM_TESTS_MLX5EMU_H
#define PRISM_TESTS_MLX5EMU_H

#include <stdbool.h>
#include <stdint.h>

struct mlx5_glue;
struct sim_dev;

/* What the emulated device reports and how its firmware behaves. */
struct mlx5emu_opts {
	unsigned n_devices;      /* 1 if 0: "mlx5_0", "mlx5_1", ... */
	bool relaxed_fw;         /* the sim's firmware profile */
	bool no_cd;              /* cmd_hca_cap.cd = 0 */
	bool no_wait_on_data;    /* cmd_hca_cap.wait_on_data = 0 */
	bool no_cq_oi;           /* cmd_hca_cap.cq_oi = 0 */
	bool be_atomics;         /* atomic_req_8B_endianness_mode = 0 (big-endian) */
	uint16_t atomic_size_qp; /* 0: 4, 8, 16 and 32 bytes (0x3c) */
	bool no_devx;            /* mlx5dv_open_device refuses DEVX contexts */
	bool no_events;          /* no DEVX event channels (a kernel without them) */
	uint64_t seed;
	bool quiet; /* count loud failures without printing them (fuzzing) */
	bool roce;  /* Ethernet ports (RoCE v2 GIDs, MACs) instead of InfiniBand (LIDs) */
	/* A directory shared by processes whose emulated NICs reach each
	 * other (each device a datagram socket there; implies roce; every
	 * process of one build).  NULL: the NICs of this process only. */
	const char *fabric_dir;
	/* No NIC threads: the emulated NICs run, in the sim's deterministic
	 * mode, until idle on each UAR doorbell and in mlx5emu_run(), so a test
	 * can tell "nothing ran" from "not yet" (the backend's commands, umem,
	 * UAR doorbells and CQE polling are the same). */
	bool manual;
	int hazard; /* the sim's hazard policy (enum sim_hazard_policy); 0: warn */
};

/* Install the emulator as the mlx5 backend's rdma-core (mlx5_glue_set). */
void mlx5emu_install(const struct mlx5emu_opts *opts);
/* The emulator's entry-point table (after mlx5emu_install set it up). */
const struct mlx5_glue *mlx5emu_glue(void);
/* Back to rdma-core; every emulated object must be gone. */
void mlx5emu_uninstall(void);
/* mlx5emu_uninstall(), then the loud failures since mlx5emu_install (each
 * already on stderr unless quiet): how a test ends,
 * assert_int_equal(mlx5emu_finish(), 0). */
unsigned mlx5emu_finish(void);
/* Loud failures so far (unimplemented commands, bad fields, stray doorbells). */
unsigned mlx5emu_errors(void);
/* The last loud failure's text ("" if none). */
const char *mlx5emu_last_error(void);
/* Doorbells taken from UAR pages so far. */
uint64_t mlx5emu_doorbells(void);
/* Of them, doorbells on managed (cd_slave_send) QPs: each starts its queue
 * as on hardware (rule 3.5); the runtime must never ring one. */
uint64_t mlx5emu_managed_doorbells(void);
/* Manual mode: run every emulated NIC until all are idle (sim_fabric_run);
 * 0, or the first SIM_E_HAZARD (fail policy) or error of this run or of a
 * doorbell's run since the last call. */
int mlx5emu_run(void);
/* The sim device behind emulated device @index (NULL if none is open): for
 * tests that ask the software NIC what only it knows (its hazard detector). */
struct sim_dev *mlx5emu_sim(unsigned index);

#endif /* PRISM_TESTS_MLX5EMU_H */
