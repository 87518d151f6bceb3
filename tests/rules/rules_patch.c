/* SPDX-License-Identifier: MIT */
/*
 * tests/rules/rules_patch.c - the self-modifying pattern the hazard and
 * cross-channel rules share (RedN Fig. 3/4): a WRITE on the managed queue b
 * whose opcode byte says NOP, and a READ on a that patches the byte back.
 *
 * Owns: those two posts.
 */
#include "tests/rules/rules.h"

/*
 * Posts on managed queue b a WQE with a WRITE's layout whose opcode byte
 * says NOP, and makes src hold the WRITE opcode: a READ from src into that
 * byte turns the NOP into a WRITE of 8 bytes src -> dst+256 (RedN Fig. 3/4).
 * Returns the address of the patched opcode byte.
 */
uint8_t *rx_post_patchable(struct rx *x)
{
	struct prism_wqe w;
	uint32_t off, len;
	uint8_t *slot;

	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)x->dst + 256, x->dst_key, (uintptr_t)x->src,
	      x->src_key, 8, true);
	slot = rx_slot(&x->b, rx_post(&x->b, &w));
	assert_int_equal(prism_wqe_field_offset(&w, PRISM_FIELD_CTRL_OPCODE, &off, &len), 0);
	slot[off] = PRISM_OP_NOP;
	x->src[2048] = PRISM_OP_RDMA_WRITE;
	return slot + off;
}

/* READ the opcode byte from src into b's WQE on a (signaled) */
void rx_post_patch_read(struct rx *x, uint8_t *opbyte)
{
	struct prism_wqe w;

	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)x->src + 2048, x->src_key, (uintptr_t)opbyte,
	      x->b.key, 1, true);
	rx_post(&x->a, &w);
}
