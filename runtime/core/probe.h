/* SPDX-License-Identifier: MIT */
/*
 * core/probe.h - the NIC behaviour probe.
 *
 * Owns: short WQE programs, run through a backend's operations table
 * (core/backend.h), that show what a device does where the public sources
 * are silent or were found to contradict an earlier model (docs/nic-model.md,
 * the rules marked CORRECTED and SIM CHOICE): the WAIT threshold, whether a
 * doorbell starts a managed queue, SEND_EN past the doorbell record, the
 * SEND_EN index unit, the fenced enable, WAIT without the cross-channel role
 * and the firmware's control-segment checks.  On the sim the report shows
 * the model; on an mlx5 device, the hardware.  The loader refuses a chain
 * object whose assumptions (chainobj.assumes) the device's report does not
 * confirm.
 *
 * Each probe opens its own queues and memory and destroys them: it does not
 * touch the device's other objects.  A NO is what the device did; FAILED
 * means the probe could not tell (an object could not be created, a queue
 * never completed).
 *
 * Must not: print, exit, or keep anything after it returns.
 */
#ifndef PRISM_CORE_PROBE_H
#define PRISM_CORE_PROBE_H

#include <stdint.h>

#include "core/backend.h"

/* X(ENUM, "name", "what a YES means") */
#define CORE_PROBES(X)                                                                             \
	X(WAIT_CQE_INDEX, "wait-cqe-index",                                                        \
	  "WAIT index i releases once CQE number i (0-based) exists")                              \
	X(MANAGED_DOORBELL, "managed-doorbell-starts", "a doorbell starts a managed send queue")   \
	X(SEND_EN_PAST_DBREC, "send-en-past-dbrec",                                                \
	  "SEND_EN runs a managed queue past its doorbell record")                                 \
	X(SEND_EN_BB_UNITS, "send-en-bb-units",                                                    \
	  "SEND_EN's index counts 64-byte blocks, not work requests")                              \
	X(FENCED_ENABLE, "fenced-enable",                                                          \
	  "a fenced SEND_EN fetches what an earlier READ of its queue wrote")                      \
	X(WAIT_NO_XC, "wait-without-cross-channel",                                                \
	  "WAIT runs on a QP without the cross-channel role")                                      \
	X(SEND_EN_NEEDS_XC, "send-en-needs-cross-channel",                                         \
	  "SEND_EN fails on a QP without the cross-channel role")                                  \
	X(RELAXED_INDEX, "relaxed-wqe-index",                                                      \
	  "a WQE whose control-segment index is not its position runs")                            \
	X(RELAXED_QPN, "relaxed-qpn", "a WQE whose control-segment QPN is not its QP's runs")

enum core_probe_id {
#define CORE_PROBE_X_ENUM(e, name, text) CORE_PROBE_##e,
	CORE_PROBES(CORE_PROBE_X_ENUM)
#undef CORE_PROBE_X_ENUM
	    CORE_PROBE__COUNT
};

enum core_probe_verdict {
	CORE_PROBE_NOT_RUN = 0,
	CORE_PROBE_YES,
	CORE_PROBE_NO,
	CORE_PROBE_FAILED, /* the probe could not tell */
};

struct core_probe_report {
	enum core_probe_verdict v[CORE_PROBE__COUNT];
	char detail[CORE_PROBE__COUNT][96]; /* what was observed */
};

const char *core_probe_name(enum core_probe_id id);
const char *core_probe_text(enum core_probe_id id);
const char *core_probe_verdict_name(enum core_probe_verdict v);

/*
 * Run probe @id (or every probe, for CORE_PROBE__COUNT) on backend device
 * @dev, whose QPs connect to themselves through node @node.  Fills rep->v
 * and rep->detail of the probes run.  Returns 0, or a negative error code
 * when the backend failed outside a probe.
 */
int core_probe_run(const struct core_backend_ops *ops, struct core_be_dev *dev, uint32_t node,
                   enum core_probe_id id, struct core_probe_report *rep);

/* The chainobj assumption bits (CHAINOBJ_ASSUME_*) @rep confirms. */
uint32_t core_probe_confirmed_assumes(const struct core_probe_report *rep);

#endif /* PRISM_CORE_PROBE_H */
