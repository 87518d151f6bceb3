/* SPDX-License-Identifier: MIT */
/*
 * mc_item.h - reading a memcached 1.6 item from the bytes an offloaded get
 * returned (struct _stritem of memcached.h, 64-bit little-endian host).
 *
 * Owns: the item layout the client depends on.  Must not: trust any field:
 * every length is checked against the bytes received.
 */
#ifndef PRISM_MC_ITEM_H
#define PRISM_MC_ITEM_H

#include <stddef.h>
#include <stdint.h>

struct mc_item_view {
	const uint8_t *key, *value; /* inside the buffer parsed */
	size_t nkey, nvalue;        /* nvalue without the trailing "\r\n" */
	uint32_t client_flags;
	uint32_t exptime; /* memcached rel_time_t: seconds since process start; 0: never */
};

/* 0 and *@v filled when @n bytes hold one whole unchunked item ending in
 * "\r\n"; -1 otherwise. */
int mc_item_parse(const uint8_t *buf, size_t n, struct mc_item_view *v);

#endif
