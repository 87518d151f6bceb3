/* SPDX-License-Identifier: MIT */
/*
 * tests/runtime/support/hashget_chain.h - a RedN-style hash get (NSDI'22
 * section 5.2.1, Fig. 9) built as a chain object with the chainobj
 * builders and the codec, independent of the compiler, so the runtime's
 * loader, relocation, re-arm and client/server paths are tested on their
 * own.  Also the table layout and the plain C reference lookup.
 *
 * Per invocation k (window k of every ring; CPU re-post):
 *
 *   client SEND {key: le24, addr: be64 bucket}          (11 bytes)
 *   conn.RQ  RECV  key  -> worker CAS compare bytes 1..3
 *                  addr -> worker READ raddr
 *   ctl      WAIT conn.rcq >= k+1 -> gate (CQE k is a SEND) -> SEND_EN worker ->
 *            WAIT worker.cq >= k+1 -> SEND_EN conn
 *   worker   READ bucket{key[3], be64 value addr} -> R1.ctrl QPN bytes, R1.data addr
 *            CAS (fenced) R1.ctrl[0..7]: NOP|key|ds -> WRITE|0|ds       (signaled)
 *   conn.SQ  R1: NOP (miss) / RDMA_WRITE value[64] -> client slot + 0
 *            R2: WRITE_IMM 8 bytes of scratch -> client slot + 64      (signaled)
 *
 * A miss leaves the client's (zeroed) slot as zeros.
 */
#ifndef PRISM_TESTS_HASHGET_CHAIN_H
#define PRISM_TESTS_HASHGET_CHAIN_H

#include <stdint.h>

#include <prism/prism.h>

#include "chain/chainobj.h"

#define HG_KEY_BYTES    3u
#define HG_BUCKET_BYTES 16u /* key[3] (big-endian), be64 value address, padding */
#define HG_VALUE_BYTES  64u

/* Build the object: @table_size bytes of region "table". NULL on ENOMEM. */
struct chainobj *hg_build(uint64_t table_size);

/* Table image: @nb buckets at offset 0, then @nb values of 64 bytes. */
struct hg_table {
	uint8_t *mem;
	uint64_t size;
	uint32_t nb;
};

/* Fill: bucket i holds key keys[i] (24 bit, 0 = empty) and value i. @base is
 * the address the server sees the table at (value pointers are absolute). */
void hg_fill(struct hg_table *t, const uint32_t *keys, uint64_t base, uint64_t seed);
/* Reference: the 64-byte value for @key in bucket @b, or zeros (miss). */
void hg_reference(const struct hg_table *t, uint32_t b, uint32_t key, uint8_t out[HG_VALUE_BYTES]);

/* Result bytes a get answers with: the 64-byte value and the 8-byte return. */
#define HG_RESULT_BYTES (HG_VALUE_BYTES + 8u)

/* A call of entry "get" for @key in bucket @b.  @args (two) and @out
 * (HG_RESULT_BYTES) must live until the call has completed. */
void hg_get_call(struct prism_call *c, struct prism_arg args[2], uint32_t key, uint32_t b,
                 uint8_t *out);

#endif
