/* SPDX-License-Identifier: MIT */
/*
 * net/net_simpkt.c - sim packets <-> IBTA RC packets.
 *
 * Owns: the tables that say which IB opcode carries which sim packet kind,
 * which AETH syndrome carries which CQE error syndrome, and the operand
 * byte order rules (docs/wire-format.md, "Mapping from the sim").
 *
 *   sim kind        IB opcode                          headers
 *   SEND            SEND_ONLY                          BTH
 *   SEND_IMM        SEND_ONLY_WITH_IMMEDIATE           BTH ImmDt
 *   WRITE           RDMA_WRITE_ONLY                    BTH RETH
 *   WRITE_IMM       RDMA_WRITE_ONLY_WITH_IMMEDIATE     BTH RETH ImmDt
 *   READ_REQ        RDMA_READ_REQUEST                  BTH RETH
 *   ATOMIC_REQ      COMPARE_SWAP / FETCH_ADD           BTH AtomicETH
 *                   MASKED_COMPARE_SWAP / _FETCH_ADD   BTH RETH + operands
 *   ACK, NAK        ACKNOWLEDGE                        BTH AETH
 *   READ_RESP       RDMA_READ_RESPONSE_ONLY            BTH AETH
 *   ATOMIC_RESP     ATOMIC_ACKNOWLEDGE (8 bytes)       BTH AETH AtomicAckETH
 *                   MASKED_ATOMIC_ACKNOWLEDGE (other)  BTH AETH + original data
 *
 * Must not: allocate, print, or keep state.
 */
#include "net/net_simpkt.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "util/byteorder.h"

/* Requests and read responses: kind <-> opcode, and the WQE opcode a request came from. */
struct kind_map {
	bool used;
	uint8_t opcode;     /* enum net_opcode */
	uint8_t wqe_opcode; /* enum prism_opcode (requests) */
};

static const struct kind_map kind_to_op[] = {
    [SIM_PKT_SEND] = {true, NET_OP_SEND_ONLY, PRISM_OP_SEND},
    [SIM_PKT_SEND_IMM] = {true, NET_OP_SEND_ONLY_WITH_IMMEDIATE, PRISM_OP_SEND_IMM},
    [SIM_PKT_WRITE] = {true, NET_OP_RDMA_WRITE_ONLY, PRISM_OP_RDMA_WRITE},
    [SIM_PKT_WRITE_IMM] = {true, NET_OP_RDMA_WRITE_ONLY_WITH_IMMEDIATE, PRISM_OP_RDMA_WRITE_IMM},
    [SIM_PKT_READ_REQ] = {true, NET_OP_RDMA_READ_REQUEST, PRISM_OP_RDMA_READ},
    [SIM_PKT_ACK] = {true, NET_OP_ACKNOWLEDGE, 0},
    [SIM_PKT_NAK] = {true, NET_OP_ACKNOWLEDGE, 0},
    [SIM_PKT_READ_RESP] = {true, NET_OP_RDMA_READ_RESPONSE_ONLY, 0},
};

/* Atomic WQE opcode <-> IB opcode. */
static const struct {
	uint8_t wqe_opcode;
	uint8_t opcode;
	bool masked;
} atomic_map[] = {
    {PRISM_OP_ATOMIC_CS, NET_OP_COMPARE_SWAP, false},
    {PRISM_OP_ATOMIC_FA, NET_OP_FETCH_ADD, false},
    {PRISM_OP_ATOMIC_MASKED_CS, NET_OP_MASKED_COMPARE_SWAP, true},
    {PRISM_OP_ATOMIC_MASKED_FA, NET_OP_MASKED_FETCH_ADD, true},
};

/*
 * CQE error syndrome of a NAK <-> AETH.  Transport-retry-exceeded travels as
 * a PSN sequence error NAK: on a lossless link that is the only way a
 * sequence error ends.  Anything else a responder reports is a remote
 * operational error.
 */
static const struct {
	uint8_t syndrome; /* enum prism_cqe_syndrome */
	enum net_aeth_type type;
	uint8_t value;
} nak_map[] = {
    {PRISM_SYND_RNR_RETRY_EXC_ERR, NET_AETH_RNR_NAK, 0 /* the responder's timer */},
    {PRISM_SYND_REMOTE_INVAL_REQ_ERR, NET_AETH_NAK, NET_NAK_INVALID_REQUEST},
    {PRISM_SYND_REMOTE_ACCESS_ERR, NET_AETH_NAK, NET_NAK_REMOTE_ACCESS_ERR},
    {PRISM_SYND_REMOTE_OP_ERR, NET_AETH_NAK, NET_NAK_REMOTE_OP_ERR},
    {PRISM_SYND_TRANSPORT_RETRY_EXC_ERR, NET_AETH_NAK, NET_NAK_PSN_SEQ_ERR},
    {PRISM_SYND_REMOTE_INVAL_REQ_ERR, NET_AETH_NAK, NET_NAK_INVALID_RD_REQUEST},
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static uint8_t syndrome_to_aeth(uint8_t syndrome, uint8_t rnr_timer)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(nak_map); i++)
		if (nak_map[i].syndrome == syndrome)
			return net_aeth_syndrome(
			    nak_map[i].type,
			    nak_map[i].type == NET_AETH_RNR_NAK ? rnr_timer : nak_map[i].value);
	return net_aeth_syndrome(NET_AETH_NAK, NET_NAK_REMOTE_OP_ERR);
}

static int aeth_to_syndrome(uint8_t aeth, uint8_t *syndrome, uint8_t *rnr_timer)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(nak_map); i++) {
		if (net_aeth_type(aeth) != nak_map[i].type)
			continue;
		if (nak_map[i].type == NET_AETH_RNR_NAK) {
			*syndrome = nak_map[i].syndrome;
			*rnr_timer = (uint8_t)net_aeth_value(aeth);
			return 0;
		}
		if (net_aeth_value(aeth) == nak_map[i].value) {
			*syndrome = nak_map[i].syndrome;
			return 0;
		}
	}
	return -EPROTO;
}

static uint64_t host64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* One masked operand to the wire: 8-byte ones are host order in the sim. */
static void operand_to_wire(uint8_t *dst, const uint8_t *src, unsigned size)
{
	if (size == 8)
		put_be64(dst, host64(src));
	else
		memcpy(dst, src, size);
}

static void operand_from_wire(uint8_t *dst, const uint8_t *src, unsigned size)
{
	if (size == 8) {
		uint64_t v = get_be64(src);

		memcpy(dst, &v, 8);
	} else {
		memcpy(dst, src, size);
	}
}

static int atomic_to_wire(const struct sim_pkt *sp, struct net_pkt *np, uint8_t *scratch,
                          struct diag_report *diag)
{
	size_t i;
	unsigned n, size = sp->atomic_size;

	for (i = 0; i < ARRAY_LEN(atomic_map); i++)
		if (atomic_map[i].wqe_opcode == sp->opcode)
			break;
	if (i == ARRAY_LEN(atomic_map))
		return diag_report_set(diag, -EINVAL, "ATOMIC_REQ with WQE opcode 0x%02x",
		                       sp->opcode);
	np->opcode = atomic_map[i].opcode;
	if (!atomic_map[i].masked) {
		np->atomic.va = sp->raddr;
		np->atomic.rkey = sp->rkey;
		np->atomic.swap_add = host64(sp->swap);
		np->atomic.compare = host64(sp->compare);
		return 0;
	}
	if (!net_masked_size_ok(size))
		return diag_report_set(diag, -EINVAL, "masked atomic of %u bytes", size);
	np->reth.va = sp->raddr;
	np->reth.rkey = sp->rkey;
	np->reth.dma_len = size;
	if (np->opcode == NET_OP_MASKED_COMPARE_SWAP) {
		operand_to_wire(scratch, sp->swap, size);
		operand_to_wire(scratch + size, sp->compare, size);
		operand_to_wire(scratch + 2 * size, sp->swap_mask, size);
		operand_to_wire(scratch + 3 * size, sp->compare_mask, size);
		n = 4;
	} else {
		/* masked FA: add value in swap, field boundary in swap_mask (prism/wqe.h) */
		operand_to_wire(scratch, sp->swap, size);
		operand_to_wire(scratch + size, sp->swap_mask, size);
		n = 2;
	}
	np->payload = scratch;
	np->payload_len = n * size;
	return 0;
}

int net_simpkt_to_wire(const struct sim_pkt *sp, struct net_pkt *np,
                       uint8_t scratch[NET_SIMPKT_SCRATCH], struct diag_report *diag)
{
	memset(np, 0, sizeof(*np));
	if ((unsigned)sp->kind >= ARRAY_LEN(kind_to_op) && sp->kind != SIM_PKT_ATOMIC_REQ &&
	    sp->kind != SIM_PKT_ATOMIC_RESP)
		return diag_report_set(diag, -EINVAL, "sim packet kind %d unknown", (int)sp->kind);
	np->flags = (uint8_t)(((sp->flags & SIM_PKT_SE) ? NET_PKT_SE : 0) |
	                      ((sp->flags & SIM_PKT_ACKREQ) ? NET_PKT_ACKREQ : 0));
	np->pkey = NET_DEFAULT_PKEY;
	np->dest_qpn = sp->dst_qpn & NET_QPN_MASK;
	np->psn = sp->psn & NET_PSN_MASK;
	np->imm = sp->imm;

	switch (sp->kind) {
	case SIM_PKT_ATOMIC_REQ:
		return atomic_to_wire(sp, np, scratch, diag);
	case SIM_PKT_ATOMIC_RESP:
		np->aeth.syndrome = net_aeth_syndrome(NET_AETH_ACK, NET_AETH_CREDITS_INVALID);
		np->aeth.msn = sp->msn & NET_MSN_MASK;
		if (sp->payload_len == 8) {
			np->opcode = NET_OP_ATOMIC_ACKNOWLEDGE;
			np->atomic_orig = host64(sp->payload);
			return 0;
		}
		if (!net_masked_size_ok(sp->payload_len))
			return diag_report_set(diag, -EINVAL,
			                       "ATOMIC_RESP with %u bytes of original data",
			                       sp->payload_len);
		np->opcode = NET_OP_MASKED_ATOMIC_ACKNOWLEDGE;
		np->payload = sp->payload;
		np->payload_len = sp->payload_len;
		return 0;
	default:
		break;
	}
	if (!kind_to_op[sp->kind].used)
		return diag_report_set(diag, -EINVAL, "sim packet kind %s has no IB opcode",
		                       sim_pkt_kind_name(sp->kind));
	np->opcode = kind_to_op[sp->kind].opcode;
	switch (sp->kind) {
	case SIM_PKT_WRITE:
	case SIM_PKT_WRITE_IMM:
		np->reth.va = sp->raddr;
		np->reth.rkey = sp->rkey;
		np->reth.dma_len = sp->payload_len;
		break;
	case SIM_PKT_READ_REQ:
		np->reth.va = sp->raddr;
		np->reth.rkey = sp->rkey;
		np->reth.dma_len = sp->len;
		return 0;
	case SIM_PKT_ACK:
	case SIM_PKT_READ_RESP:
		np->aeth.syndrome = net_aeth_syndrome(NET_AETH_ACK, NET_AETH_CREDITS_INVALID);
		np->aeth.msn = sp->msn & NET_MSN_MASK;
		break;
	case SIM_PKT_NAK:
		np->aeth.syndrome = syndrome_to_aeth(sp->syndrome, sp->rnr_timer);
		np->aeth.msn = sp->msn & NET_MSN_MASK;
		return 0;
	default:
		break;
	}
	if (sp->kind != SIM_PKT_ACK) {
		np->payload = sp->payload;
		np->payload_len = sp->payload_len;
	}
	return 0;
}

static int atomic_from_wire(const struct net_pkt *np, struct sim_pkt *sp, struct diag_report *diag)
{
	size_t i;
	unsigned size;

	for (i = 0; i < ARRAY_LEN(atomic_map); i++)
		if (atomic_map[i].opcode == np->opcode)
			break;
	sp->kind = SIM_PKT_ATOMIC_REQ;
	sp->opcode = atomic_map[i].wqe_opcode;
	if (!atomic_map[i].masked) {
		uint64_t swap = np->atomic.swap_add, cmp = np->atomic.compare;

		sp->atomic_size = 8;
		sp->raddr = np->atomic.va;
		sp->rkey = np->atomic.rkey;
		memcpy(sp->swap, &swap, 8);
		memcpy(sp->compare, &cmp, 8);
		return 0;
	}
	size = np->reth.dma_len;
	sp->atomic_size = (uint8_t)size;
	sp->opmod = (uint8_t)PRISM_MASKED_OPMOD(size == 4    ? 2u
	                                        : size == 8  ? 3u
	                                        : size == 16 ? 4u
	                                                     : 5u);
	sp->raddr = np->reth.va;
	sp->rkey = np->reth.rkey;
	if (np->opcode == NET_OP_MASKED_COMPARE_SWAP) {
		operand_from_wire(sp->swap, np->payload, size);
		operand_from_wire(sp->compare, np->payload + size, size);
		operand_from_wire(sp->swap_mask, np->payload + 2 * size, size);
		operand_from_wire(sp->compare_mask, np->payload + 3 * size, size);
	} else {
		operand_from_wire(sp->swap, np->payload, size);
		operand_from_wire(sp->swap_mask, np->payload + size, size);
	}
	(void)diag;
	return 0;
}

int net_simpkt_from_wire(const struct net_pkt *np, const struct net_simpkt_addr *addr,
                         struct sim_pkt *sp, uint8_t scratch[NET_SIMPKT_SCRATCH],
                         struct diag_report *diag)
{
	enum net_aeth_type at = net_aeth_type(np->aeth.syndrome);

	memset(sp, 0, sizeof(*sp));
	if (np->dest_qpn != addr->local_qpn)
		return diag_report_set(diag, -EPROTO,
		                       "%s for QP 0x%06x arrived on the link of QP 0x%06x",
		                       net_opcode_name(np->opcode), np->dest_qpn, addr->local_qpn);
	sp->flags = (uint8_t)(((np->flags & NET_PKT_SE) ? SIM_PKT_SE : 0) |
	                      ((np->flags & NET_PKT_ACKREQ) ? SIM_PKT_ACKREQ : 0));
	sp->src_node = addr->peer_node;
	sp->src_qpn = addr->peer_qpn;
	sp->dst_node = addr->local_node;
	sp->dst_qpn = addr->local_qpn;
	sp->psn = np->psn;
	sp->imm = np->imm;

	switch (np->opcode) {
	case NET_OP_SEND_ONLY:
	case NET_OP_SEND_ONLY_WITH_IMMEDIATE:
		sp->kind = np->opcode == NET_OP_SEND_ONLY ? SIM_PKT_SEND : SIM_PKT_SEND_IMM;
		sp->opcode = kind_to_op[sp->kind].wqe_opcode;
		break;
	case NET_OP_RDMA_WRITE_ONLY:
	case NET_OP_RDMA_WRITE_ONLY_WITH_IMMEDIATE:
		sp->kind = np->opcode == NET_OP_RDMA_WRITE_ONLY ? SIM_PKT_WRITE : SIM_PKT_WRITE_IMM;
		sp->opcode = kind_to_op[sp->kind].wqe_opcode;
		sp->raddr = np->reth.va;
		sp->rkey = np->reth.rkey;
		break;
	case NET_OP_RDMA_READ_REQUEST:
		sp->kind = SIM_PKT_READ_REQ;
		sp->opcode = PRISM_OP_RDMA_READ;
		sp->raddr = np->reth.va;
		sp->rkey = np->reth.rkey;
		sp->len = np->reth.dma_len;
		return 0;
	case NET_OP_COMPARE_SWAP:
	case NET_OP_FETCH_ADD:
	case NET_OP_MASKED_COMPARE_SWAP:
	case NET_OP_MASKED_FETCH_ADD:
		return atomic_from_wire(np, sp, diag);
	case NET_OP_ACKNOWLEDGE:
		sp->msn = np->aeth.msn;
		if (at == NET_AETH_ACK) {
			sp->kind = SIM_PKT_ACK;
			return 0;
		}
		sp->kind = SIM_PKT_NAK;
		if (aeth_to_syndrome(np->aeth.syndrome, &sp->syndrome, &sp->rnr_timer))
			return diag_report_set(diag, -EPROTO,
			                       "ACKNOWLEDGE with syndrome 0x%02x (%s)",
			                       np->aeth.syndrome, net_aeth_name(np->aeth.syndrome));
		return 0;
	case NET_OP_RDMA_READ_RESPONSE_ONLY:
	case NET_OP_ATOMIC_ACKNOWLEDGE:
	case NET_OP_MASKED_ATOMIC_ACKNOWLEDGE:
		if (at != NET_AETH_ACK)
			return diag_report_set(diag, -EPROTO,
			                       "%s carries %s; responses other than "
			                       "ACKNOWLEDGE must carry an ACK syndrome",
			                       net_opcode_name(np->opcode),
			                       net_aeth_name(np->aeth.syndrome));
		sp->msn = np->aeth.msn;
		if (np->opcode == NET_OP_RDMA_READ_RESPONSE_ONLY) {
			sp->kind = SIM_PKT_READ_RESP;
			break;
		}
		sp->kind = SIM_PKT_ATOMIC_RESP;
		if (np->opcode == NET_OP_ATOMIC_ACKNOWLEDGE) {
			uint64_t orig = np->atomic_orig;

			memcpy(scratch, &orig, 8);
			sp->payload = scratch;
			sp->payload_len = 8;
			sp->atomic_size = 8;
			return 0;
		}
		sp->atomic_size = (uint8_t)np->payload_len;
		break;
	default:
		return diag_report_set(
		    diag, -EPROTO,
		    "%s (0x%02x) is not used between sim NICs: messages travel whole, "
		    "as ONLY packets",
		    net_opcode_name(np->opcode), np->opcode);
	}
	sp->payload = (uint8_t *)(uintptr_t)np->payload;
	sp->payload_len = np->payload_len;
	return 0;
}
