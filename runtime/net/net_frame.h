/* SPDX-License-Identifier: MIT */
/*
 * net/net_frame.h - InfiniBand RC packet framing between software NICs.
 *
 * Owns: the packet opcode table (IBTA RC opcodes plus prism's masked-atomic
 * extension in the manufacturer-specific range), the decoded packet form
 * (struct net_pkt: BTH, RETH, AETH, AtomicETH, AtomicAckETH, ImmDt, IETH,
 * payload), the encoder, the validating decoder with precise diagnostics,
 * and the 4-byte length prefix that delimits packets on a byte stream.
 *
 * Must not: touch sockets, queues or memory regions; allocate; print.  Byte
 * layouts are drawn once in docs/wire-format.md and in net_frame.c.
 */
#ifndef PRISM_NET_FRAME_H
#define PRISM_NET_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/diag_report.h"

/* Header sizes (IBTA vol 1, ch. 9, transport headers). */
#define NET_BTH_BYTES            12u
#define NET_RETH_BYTES           16u
#define NET_AETH_BYTES           4u
#define NET_ATOMIC_ETH_BYTES     28u
#define NET_ATOMIC_ACK_ETH_BYTES 8u
#define NET_IMMDT_BYTES          4u
#define NET_IETH_BYTES           4u
#define NET_MAX_HDR_BYTES        (NET_BTH_BYTES + NET_ATOMIC_ETH_BYTES + NET_AETH_BYTES + 16u)

/*
 * Stream record around each packet on TCP: be32 packet length, be64 the
 * sender's virtual time (picoseconds; the sim's sim_pkt.t), then the packet.
 * The record is the TCP transport's encapsulation, as IP/UDP is RoCEv2's.
 */
#define NET_RECORD_HDR_BYTES 12u
/* Largest packet the codec accepts: headers + 1 GiB payload. */
#define NET_FRAME_MAX_PAYLOAD (1u << 30)

#define NET_QPN_MASK     0x00ffffffu
#define NET_PSN_MASK     0x00ffffffu
#define NET_MSN_MASK     0x00ffffffu
#define NET_DEFAULT_PKEY 0xffffu

/* Which extended headers an opcode carries, in wire order after the BTH. */
enum net_hdr {
	NET_HDR_RETH = 1u << 0,
	NET_HDR_ATOMIC = 1u << 1,
	NET_HDR_AETH = 1u << 2,
	NET_HDR_ATOMIC_ACK = 1u << 3,
	NET_HDR_IMM = 1u << 4,
	NET_HDR_IETH = 1u << 5,
};

/* What may follow the headers. */
enum net_payload_rule {
	NET_PAY_NONE,       /* no payload, PadCnt 0 */
	NET_PAY_ANY,        /* 0 or more bytes */
	NET_PAY_RETH_LEN,   /* exactly RETH.dma_len bytes (WRITE_ONLY) */
	NET_PAY_MASKED_CS,  /* 4 operands of RETH.dma_len bytes */
	NET_PAY_MASKED_FA,  /* 2 operands of RETH.dma_len bytes */
	NET_PAY_MASKED_ACK, /* the original data: 4, 8, 16 or 32 bytes */
};

enum net_role {
	NET_ROLE_REQUEST,  /* requester -> responder */
	NET_ROLE_RESPONSE, /* responder -> requester */
};

/*
 * The opcode table: X(NAME, value, headers, payload rule, role).
 * RC values: IBTA vol 1, ch. 9, table "OpCode field" (transport 000 = RC);
 * Linux rdma_rxe's rxe_opcode.c lists the same header sets.  0xD2-0xD4 are
 * prism's masked atomics in the manufacturer-specific range 0xC0-0xFF
 * (docs/wire-format.md, "Masked atomics").
 */
#define NET_OPCODES(X)                                                                             \
	X(SEND_FIRST, 0x00, 0, NET_PAY_ANY, NET_ROLE_REQUEST)                                      \
	X(SEND_MIDDLE, 0x01, 0, NET_PAY_ANY, NET_ROLE_REQUEST)                                     \
	X(SEND_LAST, 0x02, 0, NET_PAY_ANY, NET_ROLE_REQUEST)                                       \
	X(SEND_LAST_WITH_IMMEDIATE, 0x03, NET_HDR_IMM, NET_PAY_ANY, NET_ROLE_REQUEST)              \
	X(SEND_ONLY, 0x04, 0, NET_PAY_ANY, NET_ROLE_REQUEST)                                       \
	X(SEND_ONLY_WITH_IMMEDIATE, 0x05, NET_HDR_IMM, NET_PAY_ANY, NET_ROLE_REQUEST)              \
	X(RDMA_WRITE_FIRST, 0x06, NET_HDR_RETH, NET_PAY_ANY, NET_ROLE_REQUEST)                     \
	X(RDMA_WRITE_MIDDLE, 0x07, 0, NET_PAY_ANY, NET_ROLE_REQUEST)                               \
	X(RDMA_WRITE_LAST, 0x08, 0, NET_PAY_ANY, NET_ROLE_REQUEST)                                 \
	X(RDMA_WRITE_LAST_WITH_IMMEDIATE, 0x09, NET_HDR_IMM, NET_PAY_ANY, NET_ROLE_REQUEST)        \
	X(RDMA_WRITE_ONLY, 0x0a, NET_HDR_RETH, NET_PAY_RETH_LEN, NET_ROLE_REQUEST)                 \
	X(RDMA_WRITE_ONLY_WITH_IMMEDIATE, 0x0b, NET_HDR_RETH | NET_HDR_IMM, NET_PAY_RETH_LEN,      \
	  NET_ROLE_REQUEST)                                                                        \
	X(RDMA_READ_REQUEST, 0x0c, NET_HDR_RETH, NET_PAY_NONE, NET_ROLE_REQUEST)                   \
	X(RDMA_READ_RESPONSE_FIRST, 0x0d, NET_HDR_AETH, NET_PAY_ANY, NET_ROLE_RESPONSE)            \
	X(RDMA_READ_RESPONSE_MIDDLE, 0x0e, 0, NET_PAY_ANY, NET_ROLE_RESPONSE)                      \
	X(RDMA_READ_RESPONSE_LAST, 0x0f, NET_HDR_AETH, NET_PAY_ANY, NET_ROLE_RESPONSE)             \
	X(RDMA_READ_RESPONSE_ONLY, 0x10, NET_HDR_AETH, NET_PAY_ANY, NET_ROLE_RESPONSE)             \
	X(ACKNOWLEDGE, 0x11, NET_HDR_AETH, NET_PAY_NONE, NET_ROLE_RESPONSE)                        \
	X(ATOMIC_ACKNOWLEDGE, 0x12, NET_HDR_AETH | NET_HDR_ATOMIC_ACK, NET_PAY_NONE,               \
	  NET_ROLE_RESPONSE)                                                                       \
	X(COMPARE_SWAP, 0x13, NET_HDR_ATOMIC, NET_PAY_NONE, NET_ROLE_REQUEST)                      \
	X(FETCH_ADD, 0x14, NET_HDR_ATOMIC, NET_PAY_NONE, NET_ROLE_REQUEST)                         \
	X(SEND_LAST_WITH_INVALIDATE, 0x16, NET_HDR_IETH, NET_PAY_ANY, NET_ROLE_REQUEST)            \
	X(SEND_ONLY_WITH_INVALIDATE, 0x17, NET_HDR_IETH, NET_PAY_ANY, NET_ROLE_REQUEST)            \
	X(MASKED_ATOMIC_ACKNOWLEDGE, 0xd2, NET_HDR_AETH, NET_PAY_MASKED_ACK, NET_ROLE_RESPONSE)    \
	X(MASKED_COMPARE_SWAP, 0xd3, NET_HDR_RETH, NET_PAY_MASKED_CS, NET_ROLE_REQUEST)            \
	X(MASKED_FETCH_ADD, 0xd4, NET_HDR_RETH, NET_PAY_MASKED_FA, NET_ROLE_REQUEST)

enum net_opcode {
#define NET_X_ENUM(name, value, hdrs, pay, role) NET_OP_##name = value,
	NET_OPCODES(NET_X_ENUM)
#undef NET_X_ENUM
};

struct net_opcode_info {
	const char *name;
	uint8_t value;
	uint8_t hdrs; /* enum net_hdr bits */
	enum net_payload_rule payload;
	enum net_role role;
};

/* NULL when @opcode is not in the table. */
const struct net_opcode_info *net_opcode_info(uint8_t opcode);
/* The opcode's name, or "UNKNOWN" when not in the table. */
const char *net_opcode_name(uint8_t opcode);

/*
 * AETH syndrome (IBTA vol 1, ch. 9, "ACK extended transport header"):
 *
 *     7   6 5   4       0
 *   +---+-----+---------+
 *   | 0 | typ |  value  |   typ 00 ACK (value = credit count)
 *   +---+-----+---------+       01 RNR NAK (value = RNR timer)
 *                               11 NAK (value = NAK code), 10 reserved
 */
#define NET_AETH_TYPE_SHIFT 5
#define NET_AETH_TYPE_MASK  (3u << NET_AETH_TYPE_SHIFT)
#define NET_AETH_VALUE_MASK 0x1fu
enum net_aeth_type {
	NET_AETH_ACK = 0,
	NET_AETH_RNR_NAK = 1,
	NET_AETH_RESERVED = 2,
	NET_AETH_NAK = 3,
};
enum net_nak_code {
	NET_NAK_PSN_SEQ_ERR = 0,
	NET_NAK_INVALID_REQUEST = 1,
	NET_NAK_REMOTE_ACCESS_ERR = 2,
	NET_NAK_REMOTE_OP_ERR = 3,
	NET_NAK_INVALID_RD_REQUEST = 4,
};
#define NET_AETH_CREDITS_INVALID 0x1fu /* "no credit information" */

static inline uint8_t net_aeth_syndrome(enum net_aeth_type type, unsigned value)
{
	return (uint8_t)(((unsigned)type << NET_AETH_TYPE_SHIFT) | (value & NET_AETH_VALUE_MASK));
}
static inline enum net_aeth_type net_aeth_type(uint8_t syndrome)
{
	return (enum net_aeth_type)((syndrome & NET_AETH_TYPE_MASK) >> NET_AETH_TYPE_SHIFT);
}
static inline unsigned net_aeth_value(uint8_t syndrome)
{
	return syndrome & NET_AETH_VALUE_MASK;
}
/* "ACK", "RNR_NAK", "NAK_REMOTE_ACCESS_ERROR", ... */
const char *net_aeth_name(uint8_t syndrome);

/* BTH flag bits kept in net_pkt.flags (see net_frame.c for their places). */
enum net_pkt_flag {
	NET_PKT_SE = 1u << 0,     /* solicited event */
	NET_PKT_MIGREQ = 1u << 1, /* migration state */
	NET_PKT_ACKREQ = 1u << 2, /* acknowledge request */
	NET_PKT_FECN = 1u << 3,   /* RoCEv2 congestion bits (byte 4) */
	NET_PKT_BECN = 1u << 4,
};

/*
 * A decoded packet, host order.  Only the headers its opcode carries are
 * meaningful.  On decode, @payload points into the caller's buffer.
 */
struct net_pkt {
	uint8_t opcode; /* enum net_opcode */
	uint8_t flags;  /* enum net_pkt_flag */
	uint16_t pkey;
	uint32_t dest_qpn; /* 24 bits */
	uint32_t psn;      /* 24 bits */
	struct {
		uint64_t va;
		uint32_t rkey;
		uint32_t dma_len;
	} reth;
	struct {
		uint64_t va;
		uint32_t rkey;
		uint64_t swap_add;
		uint64_t compare;
	} atomic;
	struct {
		uint8_t syndrome;
		uint32_t msn; /* 24 bits */
	} aeth;
	uint64_t atomic_orig; /* AtomicAckETH */
	uint32_t imm;         /* ImmDt: host value of the big-endian field */
	uint32_t ieth_rkey;
	const uint8_t *payload;
	uint32_t payload_len;
};

/* Masked atomics: operand size in bytes (4, 8, 16 or 32) is RETH.dma_len. */
static inline bool net_masked_size_ok(uint32_t size)
{
	return size == 4 || size == 8 || size == 16 || size == 32;
}

/* Codec errors (negative). */
#define NET_FRAME_ERRORS(X)                                                                        \
	X(SHORT, -1, "packet shorter than its headers")                                            \
	X(OPCODE, -2, "unknown or unsupported opcode")                                             \
	X(TVER, -3, "unsupported BTH transport header version")                                    \
	X(RESERVED, -4, "reserved bits set")                                                       \
	X(PAD, -5, "bad pad count or pad bytes")                                                   \
	X(LENGTH, -6, "payload length does not match the opcode")                                  \
	X(AETH, -7, "reserved AETH syndrome")                                                      \
	X(ATOMIC_SIZE, -8, "masked atomic operand size not 4, 8, 16 or 32")                        \
	X(RANGE, -9, "field value does not fit its width")                                         \
	X(ARG, -10, "unusable argument")                                                           \
	X(TOO_BIG, -11, "record larger than the limit")                                            \
	X(SPACE, -12, "output buffer too small")

enum net_frame_err {
	NET_FRAME_OK = 0,
#define NET_X_ERR(name, value, text) NET_FRAME_E_##name = value,
	NET_FRAME_ERRORS(NET_X_ERR)
#undef NET_X_ERR
};

/* A rejected packet is described by a struct diag_report (util/
 * diag_report.h): code an enum net_frame_err, offset the byte offset in the
 * packet of the offending field, msg "BTH byte 1: TVer 3 (only 0 is
 * defined)". */

const char *net_frame_strerror(int code);

/* Bytes net_frame_encode() will write for @pkt (packet only, no record). */
int net_frame_size(const struct net_pkt *pkt, struct diag_report *diag);

/*
 * Encode @pkt into @buf (packet only).  Validates as the decoder does.
 * Returns the packet size or a negative enum net_frame_err.
 */
int net_frame_encode(const struct net_pkt *pkt, void *buf, size_t cap, struct diag_report *diag);

/*
 * Decode and validate one packet of exactly @len bytes.  Never reads past
 * @len.  Returns 0 or a negative enum net_frame_err with @diag filled in.
 */
int net_frame_decode(const void *buf, size_t len, struct net_pkt *pkt, struct diag_report *diag);

/*
 * Stream records: [be32 packet length][be64 virtual time][packet].  Writes
 * the record header and the packet into @buf; returns the record size or a
 * negative error.
 */
int net_record_encode(const struct net_pkt *pkt, uint64_t vtime, void *buf, size_t cap,
                      struct diag_report *diag);

/*
 * Look at the head of a byte stream.  Returns 0 and sets *@pkt_len and
 * *@vtime (may be NULL) when a
 * whole record is present (the packet starts NET_RECORD_HDR_BYTES in), 1
 * when more bytes are needed, or NET_FRAME_E_TOO_BIG / E_SHORT when the
 * length prefix exceeds @max_pkt or is below the BTH size.
 */
int net_record_peek(const void *buf, size_t len, uint32_t max_pkt, uint32_t *pkt_len,
                    uint64_t *vtime, struct diag_report *diag);

/* One-line rendering for logs: "RDMA_WRITE_ONLY qpn=0x11 psn=5 ack va=.. len=64". */
int net_pkt_snprint(char *out, size_t cap, const struct net_pkt *pkt);

#endif /* PRISM_NET_FRAME_H */
