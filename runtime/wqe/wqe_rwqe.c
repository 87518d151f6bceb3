/* SPDX-License-Identifier: MIT */
/*
 * wqe_rwqe.c - receive WQEs: an array of data segments (16 bytes each:
 * be32 byte_count, be32 lkey, be64 addr).  A list shorter than the queue's
 * stride ends with a segment whose lkey is MLX5_INVALID_LKEY (0x100), as
 * rdma-core's mlx5_post_recv() writes it.
 *
 * Owns: prism_rwqe_encode / prism_rwqe_decode (its body: wqe_rwqe_body.h).
 * Must not: know receive-queue geometry beyond the stride it is given.
 */
#include "wqe_bytes.h"
#include "wqe_layout.h"
#include "wqe_rwqe_body.h"

PRISM_API int prism_rwqe_encode(const struct prism_sge *sge, unsigned n, void *buf,
                                unsigned stride_ds, struct prism_wqe_diag *diag)
{
	uint8_t *p = buf;
	unsigned i;

	if (!buf || (n && !sge))
		return wqe_diag_fail(diag, PRISM_WQE_E_ARG, 0, "NULL receive list or buffer");
	if (stride_ds == 0 || stride_ds > PRISM_WQE_MAX_DS)
		return wqe_diag_fail(diag, PRISM_WQE_E_ARG, 0, "receive stride of %u DS (1..%u)",
		                     stride_ds, PRISM_WQE_MAX_DS);
	if (n > stride_ds || n > PRISM_WQE_MAX_SGE)
		return wqe_diag_fail(diag, PRISM_WQE_E_SGE_COUNT, 0,
		                     "%u scatter entries, stride holds %u, at most %u", n,
		                     stride_ds, PRISM_WQE_MAX_SGE);
	for (i = 0; i < n; i++) {
		if (sge[i].byte_count & PRISM_INLINE_SEG)
			return wqe_diag_fail(diag, PRISM_WQE_E_RANGE, 16u * i,
			                     "rsge[%u] byte_count 0x%x does not fit 31 bits", i,
			                     sge[i].byte_count);
		if (sge[i].lkey == PRISM_INVALID_LKEY)
			return wqe_diag_fail(diag, PRISM_WQE_E_RANGE, 16u * i + 4,
			                     "rsge[%u] uses lkey 0x100, the list terminator", i);
	}
	for (i = 0; i < n; i++, p += WQE_DATA_BYTES) {
		put_be32(p, sge[i].byte_count);
		put_be32(p + 4, sge[i].lkey);
		put_be64(p + 8, sge[i].addr);
	}
	if (n < stride_ds) {
		put_be32(p, 0);
		put_be32(p + 4, PRISM_INVALID_LKEY);
		put_be64(p + 8, 0);
	}
	return (int)(stride_ds * WQE_DATA_BYTES);
}

PRISM_API int prism_rwqe_decode(const void *buf, unsigned stride_ds, struct prism_sge *sge,
                                unsigned max, struct prism_wqe_diag *diag)
{
	unsigned i = 0;
	int n;

	if (!buf || (max && !sge))
		return wqe_diag_fail(diag, PRISM_WQE_E_ARG, 0, "NULL receive WQE or list");
	if (stride_ds == 0 || stride_ds > PRISM_WQE_MAX_DS)
		return wqe_diag_fail(diag, PRISM_WQE_E_ARG, 0, "receive stride of %u DS (1..%u)",
		                     stride_ds, PRISM_WQE_MAX_DS);
	n = wqe_rwqe_decode_body(buf, stride_ds, sge, max, &i);
	if (n == PRISM_WQE_E_SEGMENT)
		return wqe_diag_fail(diag, n, 16u * i, "rsge[%u] byte_count 0x%08x has bit 31 set",
		                     i, get_be32((const uint8_t *)buf + 16u * i));
	if (n == PRISM_WQE_E_SGE_COUNT)
		return wqe_diag_fail(diag, n, 16u * i, "more than %u scatter entries",
		                     max < PRISM_WQE_MAX_SGE ? max : PRISM_WQE_MAX_SGE);
	return n;
}
