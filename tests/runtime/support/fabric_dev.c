/* SPDX-License-Identifier: MIT */
/*
 * tests/runtime/support/fabric_dev.c - a device, emulated on a shared
 * fabric or not (fabric_dev.h).
 */
#include "tests/runtime/support/fabric_dev.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "tests/mlx5emu/mlx5emu.h"

struct prism_device *fabric_dev_open(const char *name, bool emulated, uint64_t seed,
                                     const char *fabric_dir)
{
	if (emulated)
		mlx5emu_install(&(struct mlx5emu_opts){
		    .relaxed_fw = true, .seed = seed, .fabric_dir = fabric_dir});
	return prism_device__open(name, NULL);
}

void fabric_dev_close(struct prism_device *dev, bool emulated)
{
	prism_device__close(dev);
	if (emulated)
		assert_int_equal(mlx5emu_finish(), 0);
}
