/* SPDX-License-Identifier: MIT */
/*
 * tests/runtime/support/fabric_dev.h - a test process's own device on a
 * backend that may be mlx5 over the emulator, where several processes'
 * emulated NICs meet on one cross-process fabric (a directory).
 *
 * Owns: installing the emulator around the device and checking, when it is
 * closed, that the emulator saw no error.  Must not: be linked without
 * cmocka (the check asserts).
 */
#ifndef PRISM_TESTS_FABRIC_DEV_H
#define PRISM_TESTS_FABRIC_DEV_H

#include <stdbool.h>
#include <stdint.h>

#include <prism/prism.h>

/* Open device @name; with @emulated, first this process's own emulated NIC
 * (relaxed firmware, seeded @seed) on the fabric in @fabric_dir. */
struct prism_device *fabric_dev_open(const char *name, bool emulated, uint64_t seed,
                                     const char *fabric_dir);
/* Close it; with @emulated, remove the emulator and assert it saw no error. */
void fabric_dev_close(struct prism_device *dev, bool emulated);

#endif /* PRISM_TESTS_FABRIC_DEV_H */
