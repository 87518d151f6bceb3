/* SPDX-License-Identifier: MIT */
/*
 * core/device_sim.c - what a sim device gets at open beyond the backend
 * table: the NIC cost profile (virtual clock, DESIGN contract 6) installed
 * as the sim's observer.
 *
 * Owns: resolving a profile name (built-in "cx5", or a YAML file path) and
 * the observer struct that lives as long as the device.
 * Must not: be reached for non-sim backends.
 */
#include <stdlib.h>

#include "core/device_sim.h"
#include "sim/cost_profile.h"

struct core_sim_obs {
	struct sim_cost_profile prof;
	struct sim_observer obs;
};

int core_sim_obs_create(const char *profile, struct core_sim_obs **out)
{
	struct core_sim_obs *x = calloc(1, sizeof(*x));
	struct sim_cost_diag d = {0};
	int err;

	if (!x)
		return -ENOMEM;
	err = sim_cost_profile_builtin(profile, &x->prof, &d);
	if (err)
		err = sim_cost_profile_load_file(profile, &x->prof, &d);
	if (err) {
		core_err("device sim: cost profile '%s': %s", profile,
			 d.msg[0] ? d.msg : prism_strerror(err));
		free(x);
		return -PRISM_E_CONFIG;
	}
	x->obs.ctx = &x->prof;
	x->obs.cost = sim_cost_profile_observer_cost;
	*out = x;
	return 0;
}

const struct sim_observer *core_sim_obs_get(const struct core_sim_obs *x)
{
	return &x->obs;
}

void core_sim_obs_destroy(struct core_sim_obs *x)
{
	free(x);
}
