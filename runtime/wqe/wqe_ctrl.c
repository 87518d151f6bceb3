/* SPDX-License-Identifier: MIT */
/*
 * wqe_ctrl.c - the 16-byte control segment, packed and unpacked in place.
 *
 *   byte  0        1        2        3        4        5        6        7
 *       +--------+-----------------+--------+--------------------------+--------+
 *       | opmod  |   wqe_index     | opcode |      qpn (24 bits)       |rr| ds  |
 *       +--------+-----------------+--------+--------------------------+--------+
 *   byte  8        9       10       11       12 .. 15
 *       +--------+-----------------+--------+-----------------------------------+
 *       |  sig   | dci_stream (rsv)|fm_ce_se|          immediate (be32)          |
 *       +--------+-----------------+--------+-----------------------------------+
 *   fm_ce_se: bits 7:5 fence mode, 4 reserved, 3:2 CE, 1 SE, 0 reserved.
 *
 * Same layout as rdma-core's struct mlx5_wqe_ctrl_seg and mlx5dv_set_ctrl_seg()
 * (checked in wqe_abi_check.c and byte-compared in the tests).
 *
 * Owns: prism_ctrl_seg_pack / prism_ctrl_seg_unpack.
 * Must not: validate opcodes (the decoder does) or know other segments.
 */
#include "wqe_bytes.h"
#include "wqe_layout.h"

PRISM_API void prism_ctrl_seg_pack(const struct prism_ctrl_seg *c, void *out16)
{
	uint8_t *p = out16;

	put_be32(p, ((uint32_t)c->opmod << 24) | ((uint32_t)c->wqe_index << 8) | c->opcode);
	put_be32(p + 4, ((c->qpn & 0xffffffu) << 8) | c->ds);
	p[8] = c->signature;
	put_be16(p + 9, c->dci_stream);
	p[11] = c->fm_ce_se;
	put_be32(p + 12, c->imm);
}

PRISM_API void prism_ctrl_seg_unpack(const void *in16, struct prism_ctrl_seg *c)
{
	wqe_ctrl_unpack(in16, c);
}
