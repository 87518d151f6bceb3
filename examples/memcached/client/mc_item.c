/* SPDX-License-Identifier: MIT */
/*
 * mc_item.c - parse a memcached 1.6 item (mc_item.h).
 *
 *    0        24        28        32       36      38        40     41     48
 *   +---------+---------+---------+--------+--------+---------+------+----+
 *   | next, prev, h_next| time    |exptime |nbytes  |refcount |flags |cls |nkey|pad
 *   +---------------------------------------------------------------------+
 *   48: [cas u64 if ITEM_CAS] key[nkey] ' ' [client flags u32 if ITEM_CFLAGS]
 *       value[nbytes] (ending in "\r\n")
 *
 * (memcached.h: struct _stritem, ITEM_key / ITEM_data / ITEM_ntotal.)
 *
 * Owns: the offsets and flag bits above.  Must not: read past @n.
 */
#include "mc_item.h"

#include <endian.h>
#include <string.h>

enum {
	IT_EXPTIME = 28,
	IT_NBYTES = 32,
	IT_FLAGS = 38,
	IT_NKEY = 41,
	IT_DATA = 48,
	F_CAS = 2,
	F_CHUNKED = 32,
	F_HDR = 128,
	F_CFLAGS = 256,
};

static uint32_t le32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

int mc_item_parse(const uint8_t *buf, size_t n, struct mc_item_view *v)
{
	uint16_t f;
	uint32_t nbytes;
	size_t keyoff, valoff;

	if (n < IT_DATA)
		return -1;
	memcpy(&f, buf + IT_FLAGS, 2);
	f = le16toh(f);
	nbytes = le32_at(buf + IT_NBYTES);
	if ((f & (F_CHUNKED | F_HDR)) || nbytes < 2 || nbytes > n)
		return -1;
	keyoff = IT_DATA + ((f & F_CAS) ? 8u : 0u);
	v->nkey = buf[IT_NKEY];
	valoff = keyoff + v->nkey + 1 + ((f & F_CFLAGS) ? 4u : 0u);
	if (valoff > n || nbytes > n - valoff || memcmp(buf + valoff + nbytes - 2, "\r\n", 2))
		return -1;
	v->key = buf + keyoff;
	v->value = buf + valoff;
	v->nvalue = nbytes - 2;
	v->client_flags = (f & F_CFLAGS) ? le32_at(buf + keyoff + v->nkey + 1) : 0;
	v->exptime = le32_at(buf + IT_EXPTIME);
	return 0;
}
