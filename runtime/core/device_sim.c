/* SPDX-License-Identifier: MIT */
/*
 * core/device_sim.c - what a sim device gets at open beyond the backend
 * table: the NIC cost profile (virtual clock, docs/contracts.md contract 6) installed
 * as the sim's observer.
 *
 * Owns: resolving a profile name (built-in "cx5", or a YAML file path) and
 * the observer struct that lives as long as the device.
 * Must not: be reached for non-sim backends.
 */
#include <stdlib.h>

#include "core/device_sim.h"
#include "sim/cost_profile.h"
#include "sim/trace_observer.h"

struct core_sim_obs {
	struct sim_cost_profile prof;
	struct sim_observer obs;
	FILE *trace_file;
	struct sim_trace_observer *trace;
};

int core_sim_obs_create(const char *profile, const char *trace_path, uint32_t node,
                        struct core_sim_obs **out)
{
	struct core_sim_obs *x = calloc(1, sizeof(*x));
	struct diag_report d = {0};
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
	if (trace_path) {
		struct sim_trace_observer_opts to = {.pid = node, .next = &x->obs};

		x->trace_file = fopen(trace_path, "w");
		to.out = x->trace_file;
		if (!x->trace_file || sim_trace_observer_create(&to, &x->trace)) {
			err = x->trace_file ? -ENOMEM : -errno;
			core_err("device sim: trace %s: %s", trace_path, prism_strerror(err));
			if (x->trace_file)
				fclose(x->trace_file);
			free(x);
			return err;
		}
	}
	*out = x;
	return 0;
}

const struct sim_observer *core_sim_obs_get(const struct core_sim_obs *x)
{
	return x->trace ? sim_trace_observer_hooks(x->trace) : &x->obs;
}

const char *core_sim_obs_profile(const struct core_sim_obs *x)
{
	return x->prof.name;
}

void core_sim_obs_destroy(struct core_sim_obs *x)
{
	if (!x)
		return;
	if (x->trace) {
		if (sim_trace_observer_finish(x->trace))
			core_warn("device sim: the trace could not be completed");
		sim_trace_observer_destroy(x->trace);
	}
	if (x->trace_file)
		fclose(x->trace_file);
	free(x);
}
