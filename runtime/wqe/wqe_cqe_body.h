/* SPDX-License-Identifier: MIT */
/*
 * wqe_cqe_body.h - the CQE body encoder (internal to the library: not
 * installed, not exported), inline so that a producer writing CQEs on its
 * data path (the software NIC's CQ) compiles it into its own push.
 *
 * Owns: the one encoder of a CQE's bytes 0..62 (layout in wqe_cqe.c);
 * prism_cqe_encode_body() and prism_cqe_encode() are this function.  Each
 * of the eight 8-byte words is written once, zeros included (no clearing
 * pass), so the bytes are exactly those a cleared slot plus the fields
 * would hold.
 *
 * Must not: store byte 63 (op_own): it is returned, and the producer stores
 * it last (the owner-bit rule in <prism/wqe.h>).
 */
#ifndef PRISM_WQE_CQE_BODY_H
#define PRISM_WQE_CQE_BODY_H

#include <stdint.h>
#include <string.h>

#include <prism/wqe.h>

#include "util/byteorder.h"

static inline uint8_t wqe_cqe_encode_body(const struct prism_cqe *c, uint8_t *p)
{
	memset(p, 0, 32);
	put_be32(p + 32, c->srqn_uidx);
	if (c->opcode == PRISM_CQE_REQ_ERR || c->opcode == PRISM_CQE_RESP_ERR) {
		put_be32(p + 36, 0);
		put_be64(p + 40, 0);
		put_be32(p + 48, 0);
		put_be16(p + 52, 0);
		p[54] = c->vendor_syndrome;
		p[55] = c->syndrome;
		put_be32(p + 56, ((uint32_t)c->wqe_opcode << 24) | (c->qpn & 0xffffffu));
	} else {
		put_be32(p + 36, c->imm);
		put_be32(p + 40, 0);
		put_be32(p + 44, c->byte_count);
		put_be64(p + 48, c->timestamp);
		put_be32(p + 56, c->qpn & 0xffffffu);
	}
	put_be16(p + 60, c->wqe_counter);
	p[62] = c->signature;
	return (uint8_t)((c->opcode << 4) | (c->owner & 1u));
}

#endif /* PRISM_WQE_CQE_BODY_H */
