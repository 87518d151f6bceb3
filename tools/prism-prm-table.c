/* SPDX-License-Identifier: MIT */
/*
 * tools/prism-prm-table.c - print the mlx5 backend's PRM field table
 * (runtime/mlx5/mlx5_prm.h), one field a line, for tools/check-prm.py:
 *
 *   <struct> <field path> <bit offset, hex> <width, hex>
 *
 * Owns only the printing.
 */
#include <stdio.h>

#include "mlx5/mlx5_prm.h"

int main(void)
{
	printf("# struct field bit-offset width (runtime/mlx5/mlx5_prm.h)\n");
	for (int f = 0; f < MLX5_PRM__COUNT; f++) {
		const struct mlx5_prm_field_info *i = mlx5_prm_field((enum mlx5_prm_field)f);

		printf("%s %s 0x%x 0x%x\n", i->st, i->path, i->off, i->width);
	}
	return 0;
}
