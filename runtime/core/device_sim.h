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

/*
 * @profile: a built-in name ("cx5") or a YAML file.  @trace_path (may be
 * NULL): write a Chrome/Perfetto trace of the device there (finished when the
 * device closes).  0 or a negative code.
 */
int core_sim_obs_create(const char *profile, const char *trace_path, uint32_t node,
                        struct core_sim_obs **out);
const char *core_sim_obs_profile(const struct core_sim_obs *x);
const struct sim_observer *core_sim_obs_get(const struct core_sim_obs *x);
void core_sim_obs_destroy(struct core_sim_obs *x);

#endif /* CORE_DEVICE_SIM_H */
