/* SPDX-License-Identifier: MIT */
/*
 * core/device_sim.h - sim-only device setup (cost profile observer).
 *
 * Owns: the interface of device_sim.c.
 * Must not: be used for other backends.
 */
#ifndef CORE_DEVICE_SIM_H
#define CORE_DEVICE_SIM_H

#include "core/core.h"
#include "sim/sim.h"

struct core_sim_obs;

/* @profile: a built-in name ("cx5") or a YAML file.  0 or -PRISM_E_CONFIG. */
int core_sim_obs_create(const char *profile, struct core_sim_obs **out);
const struct sim_observer *core_sim_obs_get(const struct core_sim_obs *x);
void core_sim_obs_destroy(struct core_sim_obs *x);

#endif /* CORE_DEVICE_SIM_H */
