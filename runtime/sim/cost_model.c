/* SPDX-License-Identifier: MIT */
/*
 * sim/cost_model.c - what one WQE costs on the virtual clock.
 *
 * Owns: the mapping from opcode to verb class and the formula that turns a
 * profile and one executed WQE into latency and processing-unit occupancy
 * (docs/cost-model.md):
 *
 * The engine starts a queue's next WQE once the previous one's busy time is
 * over (and its WAIT / fence / ENABLE dependencies hold) and makes a WQE's
 * effect visible latency after its start.  So that a chain on one queue
 * grows as RedN's Fig. 8 measured, a WQE's increment depends on its order:
 *
 *   inc(HOST) = latency[nop]                  doorbell + fetch + NOOP
 *   inc(WQ)   = chain.wq
 *   inc(COMPLETION) = chain.completion - ordering_verb        (WAIT + WR)
 *   inc(DOORBELL)   = chain.doorbell   - 2 * ordering_verb    (WAIT + EN + WR)
 *
 *   WAIT, SEND_EN, RECV_EN: latency = busy = max(ordering_verb, share)
 *   other verbs:
 *     latency = inc(order) + (latency[verb] - latency[nop])    Fig. 7
 *             + max(0, bytes - free_bytes) * 8 / gbps          payload
 *             + (crosses the wire ? network : 0)
 *     busy    = WQ ? share : max(share, inc(order))
 *     latency = max(latency, busy)
 *   share = processing_units * 1000 / throughput[verb]          Table 3
 *
 * Must not: schedule, or know about queues; the engine composes these
 * numbers into a timeline.
 */
#include "sim/cost_profile.h"

#include <math.h>

#include <prism/wqe.h>

/* Opcode -> verb class: designated initializers, unknown opcodes are NOP. */
static const enum sim_verb verb_of_opcode[256] = {
    [PRISM_OP_NOP] = SIM_VERB_NOP,
    [PRISM_OP_RDMA_WRITE] = SIM_VERB_WRITE,
    [PRISM_OP_RDMA_WRITE_IMM] = SIM_VERB_WRITE,
    [PRISM_OP_SEND] = SIM_VERB_SEND,
    [PRISM_OP_SEND_IMM] = SIM_VERB_SEND,
    [PRISM_OP_CQE_WAIT] = SIM_VERB_WAIT,
    [PRISM_OP_RDMA_READ] = SIM_VERB_READ,
    [PRISM_OP_ATOMIC_CS] = SIM_VERB_ATOMIC,
    [PRISM_OP_ATOMIC_FA] = SIM_VERB_ATOMIC,
    [PRISM_OP_ATOMIC_MASKED_CS] = SIM_VERB_MASKED_ATOMIC,
    [PRISM_OP_ATOMIC_MASKED_FA] = SIM_VERB_MASKED_ATOMIC,
    [PRISM_OP_RECV_ENABLE] = SIM_VERB_ENABLE,
    [PRISM_OP_SEND_ENABLE] = SIM_VERB_ENABLE,
};

static const char *const verb_names[SIM_VERB__COUNT] = {
#define X_NAME(v, key) [SIM_VERB_##v] = key,
    SIM_VERB_CLASSES(X_NAME)
#undef X_NAME
};

/* Keys of the profile's chain_ns section, indexed by sim.h's enum sim_order. */
static const char *const order_names[SIM_ORDER__COUNT] = {
    [SIM_ORDER_HOST] = "host",
    [SIM_ORDER_WQ] = "wq",
    [SIM_ORDER_COMPLETION] = "completion",
    [SIM_ORDER_DOORBELL] = "doorbell",
};

enum sim_verb sim_cost_verb_of(uint8_t opcode)
{
	return verb_of_opcode[opcode];
}

const char *sim_verb_name(enum sim_verb v)
{
	return (unsigned)v < SIM_VERB__COUNT ? verb_names[v] : "?";
}

const char *sim_order_name(enum sim_order o)
{
	return (unsigned)o < SIM_ORDER__COUNT ? order_names[o] : "?";
}

static sim_time_t ns_to_ps(double ns)
{
	return ns <= 0 ? 0 : (sim_time_t)llround(ns * 1000.0);
}

/* Verbs whose request or data crosses the wire to the peer. */
static bool uses_wire(enum sim_verb v)
{
	return v == SIM_VERB_WRITE || v == SIM_VERB_SEND || v == SIM_VERB_READ ||
	       v == SIM_VERB_ATOMIC || v == SIM_VERB_MASKED_ATOMIC;
}

/* The latency a WQE adds to its queue's chain in ordering mode @o. */
static double increment(const struct sim_cost_profile *p, unsigned o)
{
	double inc = p->chain_ns[o];
	if (o == SIM_ORDER_COMPLETION)
		inc -= p->ordering_verb_ns;
	else if (o == SIM_ORDER_DOORBELL)
		inc -= 2 * p->ordering_verb_ns;
	return inc > 0 ? inc : 0;
}

void sim_cost_profile_charge(const struct sim_cost_profile *p, const struct sim_cost_query *q,
                             struct sim_cost *out)
{
	enum sim_verb v = sim_cost_verb_of(q->opcode);
	unsigned o = (unsigned)q->order < SIM_ORDER__COUNT ? (unsigned)q->order : SIM_ORDER_WQ;
	double share = (double)p->processing_units * 1000.0 / p->throughput_mops[v];
	double lat, busy;

	if (v == SIM_VERB_WAIT || v == SIM_VERB_ENABLE) {
		lat = busy = share > p->ordering_verb_ns ? share : p->ordering_verb_ns;
	} else {
		double inc = increment(p, o);
		double exec = p->latency_ns[v] - p->latency_ns[SIM_VERB_NOP];
		lat = inc + (exec > 0 ? exec : 0);
		if (q->bytes > p->payload_free_bytes)
			lat += (double)(q->bytes - p->payload_free_bytes) * 8.0 / p->payload_gbps;
		if (!q->loopback && uses_wire(v))
			lat += p->network_ns;
		/* prefetched WQEs pipeline at the verb's rate; the others wait */
		busy = o == SIM_ORDER_WQ || share > inc ? share : inc;
	}
	out->latency = ns_to_ps(lat);
	out->busy = ns_to_ps(busy);
	if (out->latency < out->busy)
		out->latency = out->busy; /* sim.h: latency >= busy */
}

void sim_cost_profile_observer_cost(void *ctx, const struct sim_cost_query *q, struct sim_cost *out)
{
	sim_cost_profile_charge(ctx, q, out);
}
