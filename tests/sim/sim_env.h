/* SPDX-License-Identifier: MIT */
/*
 * tests/sim/sim_env.h - the two-QP loopback fixture of the sim's own
 * suites (and the sim-engine rules of tests/rules): QPs a and b connected
 * to each other on one sim device, each with its own CQ, two registered
 * buffers.
 *
 * Owns: fixture setup/teardown only (static inline, one copy per suite).
 */
#ifndef PRISM_TESTS_SIM_ENV_H
#define PRISM_TESTS_SIM_ENV_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/sim/sim_harness.h"

#define CONF_RW  (SIM_ACCESS_LOCAL_WRITE | SIM_ACCESS_REMOTE_WRITE | SIM_ACCESS_REMOTE_READ)
#define CONF_ALL (CONF_RW | SIM_ACCESS_REMOTE_ATOMIC)

struct env {
	struct sim_dev *dev;
	struct hx_cq cq_a, cq_b;
	struct hx_qp a, b;
	uint8_t *src, *dst; /* 4096 bytes each, page aligned */
	uint32_t src_key, dst_key;
};

static inline struct env *env_make(enum sim_fw_profile fw, enum sim_hazard_policy hz, bool chaos,
                                   unsigned flags_a, unsigned flags_b)
{
	struct env *e = test_calloc(1, sizeof(*e));

	e->src = aligned_alloc(4096, 4096);
	e->dst = aligned_alloc(4096, 4096);
	memset(e->dst, 0, 4096);
	e->dev = hx_dev(1, fw, hz, chaos);
	hx_cq_init(&e->cq_a, e->dev, 64, false);
	hx_cq_init(&e->cq_b, e->dev, 64, false);
	hx_qp_init(&e->a, e->dev, &e->cq_a, &e->cq_a, 64, 16, flags_a);
	hx_qp_init(&e->b, e->dev, &e->cq_b, &e->cq_b, 64, 16, flags_b);
	hx_pair(&e->a, &e->b);
	for (unsigned i = 0; i < 4096; i++)
		e->src[i] = (uint8_t)(i * 7 + 1);
	e->src_key = hx_key(e->dev, e->src, 4096, CONF_ALL);
	e->dst_key = hx_key(e->dev, e->dst, 4096, CONF_ALL);
	return e;
}

static inline void env_free(struct env *e)
{
	sim_dev_close(e->dev);
	free(e->src);
	free(e->dst);
	test_free(e);
}

static inline int env_teardown(void **state)
{
	env_free(*state);
	return 0;
}

#endif /* PRISM_TESTS_SIM_ENV_H */
