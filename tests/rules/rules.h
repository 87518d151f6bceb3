/* SPDX-License-Identifier: MIT */
/*
 * tests/rules/rules.h - the NIC-model rules of docs/nic-model.md, each
 * written once against the backend operations table (runtime/core/
 * backend.h) and run on every backend: the sim, the mlx5 backend over the
 * PRM-level emulator (tests/mlx5emu), and the mlx5 backend on a real device
 * (skipped, with the reason, when the machine has none).
 *
 * A rule is one `struct rule` (its docs/nic-model.md number and name, the
 * body, the firmware profiles it runs under, what it needs); each topic file
 * (rules_verbs.c, rules_atomics.c, ...) exports a table of them.  A body
 * gets a `struct rx`: the opened device and the two-QP loopback fixture
 * (QPs a and b connected to each other, each with its own CQ, two
 * registered 4 KiB buffers), and drives it with the rx_* calls below, which
 * do what rdma-core's mlx5 provider does with a QP: WQE bytes from the codec
 * in the send ring, doorbell record, doorbell, CQEs polled by owner bit.
 *
 * Owns: the rig's interface and the rule descriptor.  Must not: name a
 * backend's own structures (rx_sim() is the one door to the software NIC,
 * for rules only it can show).
 */
#ifndef PRISM_TESTS_RULES_H
#define PRISM_TESTS_RULES_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <prism/wqe.h>

#include "runtime/core/backend.h"
#include "tests/sim/sim_harness.h" /* the WQE builders hx_nop, hx_rw, ... */

#define RX_RW  (CORE_ACCESS_LOCAL_WRITE | CORE_ACCESS_REMOTE_WRITE | CORE_ACCESS_REMOTE_READ)
#define RX_ALL (RX_RW | CORE_ACCESS_REMOTE_ATOMIC)
#define RX_REMOTE_ALL                                                                              \
	(CORE_ACCESS_REMOTE_WRITE | CORE_ACCESS_REMOTE_READ | CORE_ACCESS_REMOTE_ATOMIC)
#define RX_XC      CORE_QP_CROSS_CHANNEL
#define RX_MANAGED (CORE_QP_CROSS_CHANNEL | CORE_QP_MANAGED_SEND)

/* Objects a body may create beyond the fixture (freed by the rig). */
#define RX_MAX_QPS 16
#define RX_MAX_CQS 16
#define RX_MAX_MRS 24
#define RX_MAX_PDS 4

struct rx_cq {
	struct core_be_cq *cq;
	struct core_cq_info info;
	uint32_t ci; /* consumer counter */
};

struct rx_qp {
	struct core_be_qp *qp;
	struct core_qp_info info;
	struct rx_cq *scq, *rcq;
	uint32_t qpn;
	uint32_t pi;    /* send producer counter, 64-byte blocks */
	uint32_t rq_pi; /* receive producer counter */
	uint32_t key;   /* the QP buffer registered (chains rewrite WQEs) */
};

struct rx;

/* A backend the rules run on (rules_backends.c). */
struct rx_backend {
	const char *name; /* in the test names: "sim", "mlx5emu", "mlx5" */
	/* Open a device with the firmware profile; 0, or nonzero with @why
	 * saying why there is none here (the rule skips). */
	int (*open)(struct rx *x, bool relaxed_fw, bool hazard_fail, char *why, size_t why_len);
	void (*close)(struct rx *x); /* after the rig freed its objects */
	int (*run)(struct rx *x);    /* NULL: the NIC runs by itself */
	struct sim_dev *(*sim)(struct rx *x);
	bool hardware; /* a real NIC: nothing can be stepped or looked inside */
	/* Loud failures of an emulator so far (NULL: none to ask). */
	unsigned (*loud_errors)(const char **last);
};
extern const struct rx_backend rx_backends[];
extern const size_t rx_n_backends;

struct rx {
	const struct rx_backend *be;
	const struct core_backend_ops *ops;
	/* ops, but whose progress() runs a NIC the test steps (the probe's rig
	 * lets the NIC run through it) */
	const struct core_backend_ops *probe_ops;
	struct core_be_dev *dev;
	uint32_t node; /* the device's node id (sim); 0 where addresses are lid/gid */
	struct core_caps caps;
	bool relaxed_fw;
	/* the fixture */
	struct rx_cq cq_a, cq_b;
	struct rx_qp a, b;
	uint8_t *src, *dst; /* 4096 bytes each, page aligned; src[i] = i * 7 + 1 */
	uint32_t src_key, dst_key;
	/* what the rig frees */
	struct core_be_qp *qps[RX_MAX_QPS];
	struct core_be_cq *cqs[RX_MAX_CQS];
	struct core_be_mr *mrs[RX_MAX_MRS];
	struct core_be_pd *pds[RX_MAX_PDS];
	unsigned n_qps, n_cqs, n_mrs, n_pds;
	void *bufs[RX_MAX_MRS];
	unsigned n_bufs;
};

/* What a rule needs beyond the fixture: without it, it skips, saying why. */
enum rule_needs {
	RULE_NEEDS_SIM = 1u << 0,    /* the software NIC's own knowledge (rx_sim) */
	RULE_NEEDS_XC = 1u << 1,     /* cross-channel queues (caps.cross_channel) */
	RULE_NEEDS_WOD = 1u << 2,    /* wait-on-data (caps.wait_on_data) */
	RULE_NEEDS_MASKED = 1u << 3, /* masked atomics of 4..32 bytes */
	RULE_NEEDS_DETERM = 1u << 4, /* a NIC the test steps (a "may" or a race to assert) */
	RULE_HAZARD_FAIL = 1u << 5,  /* the sim's hazard policy: fail (else warn) */
	RULE_NO_FIXTURE = 1u << 6,   /* the body builds its own QPs */
	RULE_NEEDS_EVENTS = 1u << 8, /* completion events (ops arm_cq, take_events) */
	/* a claim about the sim's own engine, written against sim.h: the sim
	 * backend only (also RULE_NO_FIXTURE) */
	RULE_NEEDS_SIM_ENGINE = 1u << 7 | RULE_NO_FIXTURE,
};

enum rule_fw { RULE_STRICT = 1u << 0, RULE_RELAXED = 1u << 1, RULE_BOTH = 3u };

struct rule {
	const char *id;   /* docs/nic-model.md number: "3.3" */
	const char *name; /* docs/nic-model.md name: "wait-blocks-until-cqe-index" */
	void (*body)(struct rx *x);
	unsigned fw;               /* enum rule_fw; 0: strict */
	unsigned needs;            /* enum rule_needs */
	unsigned flags_a, flags_b; /* the fixture's QPs: enum core_qp_flags */
	const char *why_not;       /* RULE_NEEDS_SIM / DETERM / SIM_ENGINE: why elsewhere not */
};

/* One entry: RULE("3.3", "wait-blocks-until-cqe-index", body, .fw = ..., ...) */
#define RULE(id_, name_, body_, ...)                                                               \
	{                                                                                          \
		.id = (id_), .name = (name_), .body = (body_), __VA_ARGS__                         \
	}

struct rule_table {
	const struct rule *rules;
	size_t n;
};
#define RULE_TABLE(name_, arr_)                                                                    \
	const struct rule_table name_ = {arr_, sizeof(arr_) / sizeof(arr_[0])}

extern const struct rule_table rules_verbs, rules_atomics, rules_ordering, rules_xc, rules_hazards,
    rules_errors, rules_cq, rules_firmware, rules_engine;

/* ---- the behaviour probe (rules_probe.c) ------------------------------------ */

/* Run the probes that report on rule @rule (its number) on the rule's
 * device; each must give the verdict docs/nic-model.md states. */
void rx_probes(struct rx *x, const char *rule);
/* Every probe belongs to a rule of @tables. */
void rx_probes_check(const struct rule_table *const *tables, size_t n_tables);

/* ---- the rig (rules_rig.c) ------------------------------------------------- */

/* Let the NIC run: until idle (sim, emulator), or a fixed while (hardware).
 * Returns the sim's verdict (SIM_E_HAZARD under the fail policy) or 0. */
int rx_run(struct rx *x);
#define RX_RUN(x) assert_int_equal(rx_run(x), 0)

void rx_cq(struct rx *x, struct rx_cq *c, uint32_t ncqe, bool ignore_overrun);
/* A QP with @sq_bbs send blocks, @rq receive WQEs (16 entries each), in
 * @pd (NULL: the device's) serving @access (CORE_ACCESS_REMOTE_*). */
void rx_qp_prot(struct rx *x, struct rx_qp *q, struct rx_cq *scq, struct rx_cq *rcq,
                uint32_t sq_bbs, uint32_t rq, unsigned flags, struct core_be_pd *pd,
                unsigned access);
void rx_qp(struct rx *x, struct rx_qp *q, struct rx_cq *scq, struct rx_cq *rcq, uint32_t sq_bbs,
           uint32_t rq, unsigned flags);
/* RESET->INIT->RTR->RTS towards @peer_qpn on this device. */
void rx_connect(struct rx *x, struct rx_qp *q, uint32_t peer_qpn, uint8_t rnr_retry,
                uint8_t min_rnr_timer);
void rx_pair(struct rx *x, struct rx_qp *a, struct rx_qp *b);
/* The peer description rx_connect uses (for bodies that move states). */
struct core_qp_peer rx_peer(struct rx *x, uint32_t peer_qpn, uint8_t rnr_retry);

/* Register @len bytes at @addr (lkey == rkey on every backend: asserted). */
uint32_t rx_key(struct rx *x, void *addr, size_t len, unsigned access);
uint32_t rx_key_pd(struct rx *x, struct core_be_pd *pd, void *addr, size_t len, unsigned access);
struct core_be_pd *rx_pd(struct rx *x);
/* @len zeroed bytes, aligned to 4096, freed by the rig. */
void *rx_buf(struct rx *x, size_t len);

/* Encode @w at the producer counter (index and QPN filled in); the
 * counter of its first block.  Nothing is published until rx_ring. */
uint32_t rx_post(struct rx_qp *q, struct prism_wqe *w);
/* Encode @w at the producer counter exactly as given (a wrong index or QPN
 * on purpose). */
uint32_t rx_post_raw(struct rx_qp *q, const struct prism_wqe *w);
/* Publish the producer counter in dbrec[1] and ring. */
void rx_ring(struct rx *x, struct rx_qp *q);
uint32_t rx_post_recv(struct rx *x, struct rx_qp *q, const struct prism_sge *sge, unsigned n);
uint8_t *rx_slot(struct rx_qp *q, uint32_t counter);

/* 1: the next CQE in *out (consumed); 0: none yet. */
int rx_poll(struct rx_cq *c, struct prism_cqe *out);
/* The next CQE, waiting for it on a NIC that runs by itself. */
struct prism_cqe rx_expect(struct rx *x, struct rx_cq *c);
/* CQEs produced so far: consumed + waiting (never consumes). */
uint32_t rx_count(struct rx_cq *c);
/* Whether @q is in ERR: a signaled NOP posted now is flushed (rule 5.1)
 * rather than completed.  Consumes every CQE of its send CQ. */
bool rx_in_err(struct rx *x, struct rx_qp *q);
/* Post on the managed queue b a WRITE (8 bytes src -> dst + 256,
 * signaled) whose opcode byte says NOP, and put the WRITE opcode at
 * src[2048]; returns the patched byte's address (rules_patch.c). */
uint8_t *rx_post_patchable(struct rx *x);
/* Post on a a signaled READ of src[2048] into @opbyte (not rung). */
void rx_post_patch_read(struct rx *x, uint8_t *opbyte);
/* The sim device under the backend, or NULL on hardware. */
struct sim_dev *rx_sim(struct rx *x);

#endif /* PRISM_TESTS_RULES_H */
