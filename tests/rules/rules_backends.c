/* SPDX-License-Identifier: MIT */
/*
 * tests/rules/rules_backends.c - the backends every rule runs on: the sim;
 * the mlx5 backend over the PRM-level emulator (tests/mlx5emu: DEVX
 * commands as PRM bytes, WQEs executed in the backend's umem, doorbells
 * from its UAR page), stepped by the test (mlx5emu manual mode) so that
 * "nothing ran" is as exact as on the sim; and the mlx5 backend on a real
 * device (PRISM_HW_DEVICE, default the first one rdma-core lists; its
 * firmware profile is what the backend's probe found at open, else
 * PRISM_HW_FW: strict unless "relaxed"), skipped with the reason when the
 * machine has none.
 *
 * Owns: the backend table.  Must not: hold rule logic.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sim/sim.h"
#include "tests/mlx5emu/mlx5emu.h"
#include "tests/rules/rules.h"

/* ---- sim ------------------------------------------------------------------- */

static int sim_open(struct rx *x, bool relaxed_fw, bool hazard_fail, char *why, size_t why_len)
{
	struct core_dev_attr a = {.sz = sizeof(a),
	                          .seed = 1,
	                          .relaxed_fw = relaxed_fw,
	                          .hazard_policy = hazard_fail ? SIM_HAZARD_FAIL : SIM_HAZARD_WARN,
	                          .node = 1};
	int err = core_sim_backend.open(&a, &x->dev);

	if (err)
		snprintf(why, why_len, "sim backend open failed: %d", err);
	x->ops = x->probe_ops = &core_sim_backend;
	x->node = a.node;
	return err;
}

static void sim_close(struct rx *x)
{
	x->ops->close(x->dev);
}

static int sim_run(struct rx *x)
{
	return x->ops->progress(x->dev);
}

static struct sim_dev *sim_sim(struct rx *x)
{
	return sim_backend_dev(x->dev);
}

/* ---- mlx5 over the emulator ------------------------------------------------ */

/* The mlx5 backend's table, but progress() steps the emulated NICs (manual
 * mode): for the probe's rig, which lets a NIC run through progress(). */
static struct core_backend_ops emu_probe_ops;

static int emu_progress(struct core_be_dev *dev)
{
	(void)dev;
	return mlx5emu_run();
}

static int emu_open(struct rx *x, bool relaxed_fw, bool hazard_fail, char *why, size_t why_len)
{
	struct core_dev_attr a = {.sz = sizeof(a), .name = "mlx5_0", .relaxed_fw = relaxed_fw};
	int err;

	emu_probe_ops = core_mlx5_backend;
	emu_probe_ops.progress = emu_progress;
	mlx5emu_install(
	    &(struct mlx5emu_opts){.relaxed_fw = relaxed_fw,
	                           .seed = 1,
	                           .manual = true,
	                           .hazard = hazard_fail ? SIM_HAZARD_FAIL : SIM_HAZARD_WARN});
	x->ops = &core_mlx5_backend;
	x->probe_ops = &emu_probe_ops;
	err = x->ops->open(&a, &x->dev);
	if (err) {
		snprintf(why, why_len, "mlx5 backend on the emulator: open failed (%d): %s", err,
		         mlx5emu_last_error());
		mlx5emu_uninstall();
	}
	return err;
}

static void emu_close(struct rx *x)
{
	x->ops->close(x->dev);
	mlx5emu_uninstall();
}

static int emu_run(struct rx *x)
{
	(void)x;
	return mlx5emu_run();
}

static unsigned emu_loud_errors(const char **last)
{
	*last = mlx5emu_last_error();
	return mlx5emu_errors();
}

static struct sim_dev *emu_sim(struct rx *x)
{
	(void)x;
	return mlx5emu_sim(0);
}

/* ---- mlx5 on a real device ------------------------------------------------- */

static int hw_open(struct rx *x, bool relaxed_fw, bool hazard_fail, char *why, size_t why_len)
{
	const char *fw = getenv("PRISM_HW_FW");
	char names[1][64];
	/* the configured profile: the backend's probe at open overrides it
	 * (caps.relaxed_fw), and a variant of the other profile then skips */
	struct core_dev_attr a = {.sz = sizeof(a), .relaxed_fw = fw && !strcmp(fw, "relaxed")};
	int err;

	(void)relaxed_fw;
	(void)hazard_fail;
	a.name = getenv("PRISM_HW_DEVICE");
	if (!a.name && core_mlx5_device_names(names, 1) < 1) {
		snprintf(why, why_len, "no mlx5 RDMA device (rdma-core lists none)");
		return -1;
	}
	if (!a.name)
		a.name = names[0];
	x->ops = x->probe_ops = &core_mlx5_backend;
	err = x->ops->open(&a, &x->dev);
	if (err)
		snprintf(why, why_len, "%s: mlx5 backend open failed (%d)", a.name, err);
	return err;
}

static void hw_close(struct rx *x)
{
	x->ops->close(x->dev);
}

const struct rx_backend rx_backends[] = {
    {"sim", sim_open, sim_close, sim_run, sim_sim, false, NULL},
    {"mlx5emu", emu_open, emu_close, emu_run, emu_sim, false, emu_loud_errors},
    {"mlx5", hw_open, hw_close, NULL, NULL, true, NULL},
};
const size_t rx_n_backends = sizeof(rx_backends) / sizeof(rx_backends[0]);
