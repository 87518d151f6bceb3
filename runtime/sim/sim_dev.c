/* SPDX-License-Identifier: MIT */
/*
 * sim_dev.c - the software RNIC device: open/close, options, the log and
 * observer plumbing, the seeded PRNG, statistics and name tables.
 *
 * Owns: struct sim_dev's lifetime.  Must not: execute WQEs (sim_exec*.c)
 * or schedule (sim_sched.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include "sim/sim_internal.h"

static const char *const event_names[] = {
#define SIM_X_NAME(n) [SIM_EV_##n] = #n,
    SIM_EVENT_KINDS(SIM_X_NAME)
#undef SIM_X_NAME
};

const char *sim_event_name(enum sim_event_kind k)
{
	if ((unsigned)k >= sizeof(event_names) / sizeof(event_names[0]))
		return "?";
	return event_names[k];
}

static const char *const pkt_names[] = {
#define SIM_X_NAME(n) [SIM_PKT_##n] = #n,
    SIM_PKT_KINDS(SIM_X_NAME)
#undef SIM_X_NAME
};

const char *sim_pkt_kind_name(enum sim_pkt_kind k)
{
	if ((unsigned)k >= sizeof(pkt_names) / sizeof(pkt_names[0]))
		return "?";
	return pkt_names[k];
}

static const char *const state_names[] = {
    [SIM_QPS_RESET] = "RESET", [SIM_QPS_INIT] = "INIT", [SIM_QPS_RTR] = "RTR",
    [SIM_QPS_RTS] = "RTS",     [SIM_QPS_ERR] = "ERR",
};

const char *sim_qp_state_name(int s)
{
	if (s < 0 || (unsigned)s >= sizeof(state_names) / sizeof(state_names[0]))
		return "?";
	return state_names[s];
}

static const char *const sim_errors[] = {
    [1] = "WQE hazard (fetched WQE modified before it executed)",
    [2] = "object in the wrong state",
    [3] = "object busy",
    [4] = "step budget exhausted before the device went idle",
};

const char *sim_strerror(int err)
{
	int k = -err - SIM_E_BASE;

	if (k > 0 && (unsigned)k < sizeof(sim_errors) / sizeof(sim_errors[0]) && sim_errors[k])
		return sim_errors[k];
	return err < 0 ? strerror(-err) : "success";
}

/*
 * The flat default cost: every WQE occupies its PU for 0.17 us (RedN's
 * per-WR WQ-ordered increment) and takes 1.0 us to take effect when it
 * crosses the wire; ordering verbs take effect when they end.
 */
void sim_default_cost(void *ctx, const struct sim_cost_query *q, struct sim_cost *out)
{
	(void)ctx;
	sim_default_cost_of(q->cls, out);
}

void sim_log(struct sim_dev *dev, enum sim_log_level lvl, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!dev->o.log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dev->o.log(dev->o.log_ctx, lvl, msg);
}

void sim_emit(struct sim_dev *dev, const struct sim_event *ev)
{
	if (dev->obs.event)
		dev->obs.event(dev->obs.ctx, ev);
}

int sim_dev_open(const struct sim_dev_opts *opts, struct sim_dev **out)
{
	struct sim_dev *dev;
	size_t n;

	if (!out)
		return -EINVAL;
	*out = NULL;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	if (opts) {
		n = opts->sz < sizeof(dev->o) ? opts->sz : sizeof(dev->o);
		/* unknown nonzero trailing bytes are rejected (libbpf OPTS) */
		for (size_t i = sizeof(dev->o); i < opts->sz; i++) {
			if (((const uint8_t *)opts)[i]) {
				free(dev);
				return -EINVAL;
			}
		}
		memcpy(&dev->o, opts, n);
	}
	dev->o.sz = sizeof(dev->o);
	if (dev->o.fw > SIM_FW_RELAXED || dev->o.hazard > SIM_HAZARD_FAIL ||
	    dev->o.sched > SIM_SCHED_RANDOM) {
		free(dev);
		return -EINVAL;
	}
	if (!dev->o.prefetch_bbs)
		dev->o.prefetch_bbs = SIM_DEFAULT_PREFETCH_BBS;
	if (dev->o.prefetch_bbs > 4096)
		dev->o.prefetch_bbs = 4096;
	if (dev->o.obs)
		dev->obs = *dev->o.obs;
	dev->o.obs = NULL;
	dev->cost_query = dev->obs.cost || dev->obs.event;
	dev->step_plain = !dev->cost_query && dev->o.fw != SIM_FW_STRICT;
	if (!dev->obs.cost)
		dev->obs.cost = sim_default_cost;
	for (unsigned op = 0; op < 256; op++)
		dev->op_info[op] = prism_opcode_info((uint8_t)op);
	dev->rng = dev->o.seed ^ 0x5eed5eed5eed5eedull;
	dev->fold_src = dev->o.sched == SIM_SCHED_VTIME ? dev->o.node : 1ull << 32;
	dev->quiet_dst = !dev->obs.event ? dev->o.node : 1ull << 32;
	if (sim_pd_init(dev)) {
		free(dev);
		return -ENOMEM;
	}
	pthread_mutex_init(&dev->lock, NULL);
	pthread_mutex_init(&dev->inbox_lock, NULL);
	pthread_cond_init(&dev->wake, NULL);
	*out = dev;
	return 0;
}

void sim_dev_close(struct sim_dev *dev)
{
	struct sim_pkt *p;

	if (!dev)
		return;
	sim_thread_stop(dev);
	sim_qp_destroy_all(dev);
	sim_cq_destroy_all(dev);
	sim_mr_destroy_all(dev);
	sim_pd_destroy_all(dev);
	sim_readjobs_free(dev);
	while ((p = sim_pktq_pop(&dev->inbox)))
		sim_pkt_free(NULL, p);
	while ((p = sim_pktq_pop(&dev->rx_async)))
		sim_pkt_free(NULL, p);
	sim_pktq_free(&dev->inbox);
	sim_pktq_free(&dev->rx_async);
	sim_pkt_pool_free(dev);
	free(dev->mrs);
	free(dev->cqs);
	free(dev->qps);
	free(dev->dirty);
	free(dev->rdy);
	free(dev->sqr);
	pthread_mutex_destroy(&dev->lock);
	pthread_mutex_destroy(&dev->inbox_lock);
	pthread_cond_destroy(&dev->wake);
	free(dev);
}

uint32_t sim_dev_node(const struct sim_dev *dev)
{
	return dev->o.node;
}

enum sim_fw_profile sim_dev_fw(const struct sim_dev *dev)
{
	return dev->o.fw;
}

bool sim_dev_threaded(struct sim_dev *dev)
{
	bool threaded;

	pthread_mutex_lock(&dev->lock);
	threaded = dev->threaded;
	pthread_mutex_unlock(&dev->lock);
	return threaded;
}

void sim_dev_stats(struct sim_dev *dev, struct sim_stats *out)
{
	pthread_mutex_lock(&dev->lock);
	*out = dev->st;
	out->vtime_max = dev->now; /* the latest time any unit reached */
	pthread_mutex_unlock(&dev->lock);
}

sim_time_t sim_dev_now(struct sim_dev *dev)
{
	sim_time_t now;

	pthread_mutex_lock(&dev->lock);
	now = dev->now;
	pthread_mutex_unlock(&dev->lock);
	return now;
}

bool sim_dev_last_hazard(struct sim_dev *dev, struct sim_hazard *out)
{
	bool has;

	pthread_mutex_lock(&dev->lock);
	has = dev->has_hazard;
	if (has && out)
		*out = dev->last_hazard;
	pthread_mutex_unlock(&dev->lock);
	return has;
}
