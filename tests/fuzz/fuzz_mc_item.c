/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_mc_item.c - the memcached item parser the offload client
 * runs on bytes a NIC returned (examples/memcached/client/mc_item.c): any
 * input either is rejected or yields a key and a value inside the input.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "examples/memcached/client/mc_item.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mc_item_view v;

	if (mc_item_parse(data, size, &v) == 0) {
		if (v.key < data || v.key + v.nkey > data + size || v.value < data ||
		    v.value + v.nvalue + 2 > data + size)
			abort();
	}
	return 0;
}
