/* SPDX-License-Identifier: MIT */
/*
 * net/net_frame.c - encode and validate InfiniBand RC packets.
 *
 * Owns: every byte of a packet that crosses between software NICs: the
 * BTH and the extended transport headers, pad bytes and the stream record
 * prefix.  The layouts (IBTA vol 1, ch. 9, transport headers; the same
 * layouts appear in Linux rdma_rxe's rxe_hdr.h):
 *
 *  BTH, 12 bytes
 *   0               1               2               3
 *   +---------------+-+-+---+-------+-------------------------------+
 *   |    OpCode     |S|M|Pad| TVer  |             P_Key             |
 *   +-+-+-----------+-+-+---+-------+-------------------------------+
 *   |F|B| reserved  |               DestQP (24 bits)                |
 *   +-+-------------+-----------------------------------------------+
 *   |A|  reserved   |                 PSN (24 bits)                 |
 *   +-+-------------+-----------------------------------------------+
 *   S = solicited event, M = MigReq, Pad = PadCnt, A = AckReq,
 *   F/B = FECN/BECN (RoCEv2 annex A17; reserved in IB).
 *
 *  RETH 16: be64 VA, be32 R_Key, be32 DMA length.
 *  AtomicETH 28: be64 VA, be32 R_Key, be64 Swap(Add) data, be64 Compare data.
 *  AETH 4: u8 syndrome, be24 MSN.      AtomicAckETH 8: be64 original data.
 *  ImmDt 4: be32.                      IETH 4: be32 R_Key.
 *
 * Extended headers follow the BTH in the order RETH, AtomicETH, AETH,
 * AtomicAckETH, ImmDt, IETH; then the payload and PadCnt zero bytes that
 * round it up to a multiple of 4.  No LRH/GRH/UDP or ICRC: the stream
 * record (be32 length, be64 virtual time) delimits packets, TCP keeps them
 * intact.
 *
 * Must not: allocate, print, or look at queues; decoding never reads past
 * the length it was given.
 */
#include "net/net_frame.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/byteorder.h"

#define BTH_SE        0x80u
#define BTH_MIG       0x40u
#define BTH_PAD_SHIFT 4
#define BTH_PAD_MASK  0x30u
#define BTH_TVER_MASK 0x0fu
#define BTH_FECN      0x80u
#define BTH_BECN      0x40u
#define BTH_RESV6A    0x3fu
#define BTH_ACKREQ    0x80u
#define BTH_RESV7     0x7fu

#define NET_PKT_FLAGS_ALL                                                                          \
	(NET_PKT_SE | NET_PKT_MIGREQ | NET_PKT_ACKREQ | NET_PKT_FECN | NET_PKT_BECN)

static const struct net_opcode_info opcode_table[256] = {
#define NET_X_INFO(nm, val, h, pay, rl)                                                            \
	[val] = {.name = #nm, .value = val, .hdrs = (h), .payload = (pay), .role = (rl)},
    NET_OPCODES(NET_X_INFO)
#undef NET_X_INFO
};

const struct net_opcode_info *net_opcode_info(uint8_t opcode)
{
	const struct net_opcode_info *i = &opcode_table[opcode];

	return i->name ? i : NULL;
}

const char *net_opcode_name(uint8_t opcode)
{
	const struct net_opcode_info *i = net_opcode_info(opcode);

	return i ? i->name : "UNKNOWN";
}

static const char *const nak_names[] = {
    [NET_NAK_PSN_SEQ_ERR] = "NAK_PSN_SEQUENCE_ERROR",
    [NET_NAK_INVALID_REQUEST] = "NAK_INVALID_REQUEST",
    [NET_NAK_REMOTE_ACCESS_ERR] = "NAK_REMOTE_ACCESS_ERROR",
    [NET_NAK_REMOTE_OP_ERR] = "NAK_REMOTE_OPERATIONAL_ERROR",
    [NET_NAK_INVALID_RD_REQUEST] = "NAK_INVALID_RD_REQUEST",
};

const char *net_aeth_name(uint8_t syndrome)
{
	unsigned v = net_aeth_value(syndrome);

	if (syndrome & 0x80u)
		return "RESERVED";
	switch (net_aeth_type(syndrome)) {
	case NET_AETH_ACK:
		return "ACK";
	case NET_AETH_RNR_NAK:
		return "RNR_NAK";
	case NET_AETH_NAK:
		return v < sizeof(nak_names) / sizeof(nak_names[0]) ? nak_names[v] : "NAK_RESERVED";
	default:
		return "RESERVED";
	}
}

static const char *const error_text[] = {
#define NET_X_TEXT(name, value, text) [-(value)] = text,
    NET_FRAME_ERRORS(NET_X_TEXT)
#undef NET_X_TEXT
};

const char *net_frame_strerror(int code)
{
	if (code == 0)
		return "ok";
	if (code < 0 && -code < (int)(sizeof(error_text) / sizeof(error_text[0])) &&
	    error_text[-code])
		return error_text[-code];
	return "unknown net frame error";
}

/* Report @code at byte @offset of the packet. */
__attribute__((format(printf, 4, 5))) static int fail(struct diag_report *diag, int code,
                                                      uint32_t offset, const char *fmt, ...)
{
	va_list ap;

	if (diag)
		diag->offset = offset;
	va_start(ap, fmt);
	diag_report_vset(diag, code, fmt, ap);
	va_end(ap);
	return code;
}

static void ok(struct diag_report *diag)
{
	diag_report_clear(diag);
}

/* One byte of a header (the wider fields: util/byteorder.h). */
static void put8(uint8_t *p, uint8_t v)
{
	p[0] = v;
}

/* Size of the headers @hdrs (BTH included). */
static uint32_t headers_size(uint8_t hdrs)
{
	uint32_t n = NET_BTH_BYTES;

	if (hdrs & NET_HDR_RETH)
		n += NET_RETH_BYTES;
	if (hdrs & NET_HDR_ATOMIC)
		n += NET_ATOMIC_ETH_BYTES;
	if (hdrs & NET_HDR_AETH)
		n += NET_AETH_BYTES;
	if (hdrs & NET_HDR_ATOMIC_ACK)
		n += NET_ATOMIC_ACK_ETH_BYTES;
	if (hdrs & NET_HDR_IMM)
		n += NET_IMMDT_BYTES;
	if (hdrs & NET_HDR_IETH)
		n += NET_IETH_BYTES;
	return n;
}

static const char *transport_name(uint8_t opcode)
{
	static const char *const names[8] = {"RC",  "UC",  "RD",     "UD",
	                                     "CNP", "XRC", "vendor", "vendor"};

	return names[opcode >> 5];
}

static int check_opcode(uint8_t opcode, const struct net_opcode_info **info,
                        struct diag_report *diag)
{
	*info = net_opcode_info(opcode);
	if (*info)
		return 0;
	if ((opcode >> 5) == 0)
		return fail(diag, NET_FRAME_E_OPCODE, 0, "BTH byte 0: RC opcode 0x%02x is reserved",
		            opcode);
	return fail(diag, NET_FRAME_E_OPCODE, 0,
	            "BTH byte 0: opcode 0x%02x (%s transport) is not supported; only RC and "
	            "prism's masked atomics 0xd2-0xd4",
	            opcode, transport_name(opcode));
}

static int check_aeth(uint8_t syndrome, uint32_t offset, struct diag_report *diag)
{
	if (syndrome & 0x80u)
		return fail(diag, NET_FRAME_E_RESERVED, offset,
		            "AETH byte 0: reserved bit 7 of syndrome 0x%02x is set", syndrome);
	if (net_aeth_type(syndrome) == NET_AETH_RESERVED)
		return fail(diag, NET_FRAME_E_AETH, offset,
		            "AETH byte 0: syndrome 0x%02x has the reserved type 10b", syndrome);
	if (net_aeth_type(syndrome) == NET_AETH_NAK &&
	    net_aeth_value(syndrome) > NET_NAK_INVALID_RD_REQUEST)
		return fail(diag, NET_FRAME_E_AETH, offset,
		            "AETH byte 0: NAK code %u is reserved (0-4 are defined)",
		            net_aeth_value(syndrome));
	return 0;
}

/* Payload rules shared by the encoder and the decoder. */
static int check_payload(const struct net_opcode_info *info, const struct net_pkt *pkt,
                         uint32_t payload_len, uint32_t offset, struct diag_report *diag)
{
	uint32_t size = pkt->reth.dma_len;

	if (payload_len > NET_FRAME_MAX_PAYLOAD)
		return fail(diag, NET_FRAME_E_TOO_BIG, offset,
		            "%s: payload of %u bytes exceeds the %u-byte limit", info->name,
		            payload_len, NET_FRAME_MAX_PAYLOAD);
	switch (info->payload) {
	case NET_PAY_NONE:
		if (payload_len)
			return fail(diag, NET_FRAME_E_LENGTH, offset,
			            "%s carries no payload but %u bytes follow its headers",
			            info->name, payload_len);
		return 0;
	case NET_PAY_ANY:
		return 0;
	case NET_PAY_RETH_LEN:
		if (payload_len != size)
			return fail(diag, NET_FRAME_E_LENGTH, offset,
			            "%s: payload is %u bytes but RETH DMA length says %u",
			            info->name, payload_len, size);
		return 0;
	case NET_PAY_MASKED_CS:
	case NET_PAY_MASKED_FA: {
		uint32_t n = info->payload == NET_PAY_MASKED_CS ? 4 : 2;

		if (!net_masked_size_ok(size))
			return fail(diag, NET_FRAME_E_ATOMIC_SIZE, NET_BTH_BYTES + 12,
			            "%s: RETH DMA length %u is not an operand size (4, 8, 16, 32)",
			            info->name, size);
		if (payload_len != n * size)
			return fail(diag, NET_FRAME_E_LENGTH, offset,
			            "%s: %u operands of %u bytes need %u payload bytes, got %u",
			            info->name, n, size, n * size, payload_len);
		return 0;
	}
	case NET_PAY_MASKED_ACK:
		if (!net_masked_size_ok(payload_len))
			return fail(diag, NET_FRAME_E_ATOMIC_SIZE, offset,
			            "%s: original data of %u bytes (4, 8, 16 or 32 expected)",
			            info->name, payload_len);
		return 0;
	}
	return fail(diag, NET_FRAME_E_OPCODE, 0, "opcode 0x%02x: no payload rule", info->value);
}

static uint32_t pad_of(uint32_t payload_len)
{
	return (4u - (payload_len & 3u)) & 3u;
}

static int check_fields(const struct net_pkt *pkt, const struct net_opcode_info *info,
                        struct diag_report *diag)
{
	if (pkt->flags & ~NET_PKT_FLAGS_ALL)
		return fail(diag, NET_FRAME_E_RANGE, 1, "flags 0x%02x has unknown bits",
		            pkt->flags);
	if (pkt->dest_qpn & ~NET_QPN_MASK)
		return fail(diag, NET_FRAME_E_RANGE, 5, "DestQP 0x%x does not fit 24 bits",
		            pkt->dest_qpn);
	if (pkt->psn & ~NET_PSN_MASK)
		return fail(diag, NET_FRAME_E_RANGE, 9, "PSN 0x%x does not fit 24 bits", pkt->psn);
	if (info->hdrs & NET_HDR_AETH) {
		uint32_t off = headers_size(info->hdrs & (NET_HDR_RETH | NET_HDR_ATOMIC));

		if (pkt->aeth.msn & ~NET_MSN_MASK)
			return fail(diag, NET_FRAME_E_RANGE, off + 1,
			            "AETH MSN 0x%x does not fit 24 bits", pkt->aeth.msn);
		return check_aeth(pkt->aeth.syndrome, off, diag);
	}
	return 0;
}

int net_frame_size(const struct net_pkt *pkt, struct diag_report *diag)
{
	const struct net_opcode_info *info;
	uint32_t hdr;
	int rc;

	if (!pkt || (pkt->payload_len && !pkt->payload))
		return fail(diag, NET_FRAME_E_ARG, 0, "NULL packet or payload");
	rc = check_opcode(pkt->opcode, &info, diag);
	if (rc)
		return rc;
	rc = check_fields(pkt, info, diag);
	if (rc)
		return rc;
	hdr = headers_size(info->hdrs);
	rc = check_payload(info, pkt, pkt->payload_len, hdr, diag);
	if (rc)
		return rc;
	ok(diag);
	return (int)(hdr + pkt->payload_len + pad_of(pkt->payload_len));
}

int net_frame_encode(const struct net_pkt *pkt, void *buf, size_t cap, struct diag_report *diag)
{
	const struct net_opcode_info *info;
	uint8_t *p = buf;
	uint32_t pad;
	int size = net_frame_size(pkt, diag);

	if (size < 0)
		return size;
	if (!buf || cap < (size_t)size)
		return fail(diag, NET_FRAME_E_SPACE, 0, "packet needs %d bytes, buffer has %zu",
		            size, buf ? cap : 0);
	info = net_opcode_info(pkt->opcode);
	pad = pad_of(pkt->payload_len);

	put8(p, pkt->opcode);
	put8(p + 1,
	     (uint8_t)(((pkt->flags & NET_PKT_SE) ? BTH_SE : 0) |
	               ((pkt->flags & NET_PKT_MIGREQ) ? BTH_MIG : 0) | (pad << BTH_PAD_SHIFT)));
	put_be16(p + 2, pkt->pkey);
	put8(p + 4, (uint8_t)(((pkt->flags & NET_PKT_FECN) ? BTH_FECN : 0) |
	                      ((pkt->flags & NET_PKT_BECN) ? BTH_BECN : 0)));
	put_be(p + 5, 3, pkt->dest_qpn);
	put8(p + 8, (pkt->flags & NET_PKT_ACKREQ) ? BTH_ACKREQ : 0);
	put_be(p + 9, 3, pkt->psn);
	p += NET_BTH_BYTES;

	if (info->hdrs & NET_HDR_RETH) {
		put_be64(p, pkt->reth.va);
		put_be32(p + 8, pkt->reth.rkey);
		put_be32(p + 12, pkt->reth.dma_len);
		p += NET_RETH_BYTES;
	}
	if (info->hdrs & NET_HDR_ATOMIC) {
		put_be64(p, pkt->atomic.va);
		put_be32(p + 8, pkt->atomic.rkey);
		put_be64(p + 12, pkt->atomic.swap_add);
		put_be64(p + 20, pkt->atomic.compare);
		p += NET_ATOMIC_ETH_BYTES;
	}
	if (info->hdrs & NET_HDR_AETH) {
		put8(p, pkt->aeth.syndrome);
		put_be(p + 1, 3, pkt->aeth.msn);
		p += NET_AETH_BYTES;
	}
	if (info->hdrs & NET_HDR_ATOMIC_ACK) {
		put_be64(p, pkt->atomic_orig);
		p += NET_ATOMIC_ACK_ETH_BYTES;
	}
	if (info->hdrs & NET_HDR_IMM) {
		put_be32(p, pkt->imm);
		p += NET_IMMDT_BYTES;
	}
	if (info->hdrs & NET_HDR_IETH) {
		put_be32(p, pkt->ieth_rkey);
		p += NET_IETH_BYTES;
	}
	if (pkt->payload_len)
		memcpy(p, pkt->payload, pkt->payload_len);
	memset(p + pkt->payload_len, 0, pad);
	return size;
}

static int decode_bth(const uint8_t *p, struct net_pkt *pkt, uint32_t *pad,
                      struct diag_report *diag)
{
	uint8_t b1 = p[1], b4 = p[4], b8 = p[8];

	if (b1 & BTH_TVER_MASK)
		return fail(diag, NET_FRAME_E_TVER, 1,
		            "BTH byte 1: TVer %u (only version 0 is defined)", b1 & BTH_TVER_MASK);
	if (b4 & BTH_RESV6A)
		return fail(diag, NET_FRAME_E_RESERVED, 4,
		            "BTH byte 4: reserved bits 5:0 are 0x%02x, must be 0", b4 & BTH_RESV6A);
	if (b8 & BTH_RESV7)
		return fail(diag, NET_FRAME_E_RESERVED, 8,
		            "BTH byte 8: reserved bits 6:0 are 0x%02x, must be 0", b8 & BTH_RESV7);
	pkt->opcode = p[0];
	pkt->flags =
	    (uint8_t)(((b1 & BTH_SE) ? NET_PKT_SE : 0) | ((b1 & BTH_MIG) ? NET_PKT_MIGREQ : 0) |
	              ((b4 & BTH_FECN) ? NET_PKT_FECN : 0) | ((b4 & BTH_BECN) ? NET_PKT_BECN : 0) |
	              ((b8 & BTH_ACKREQ) ? NET_PKT_ACKREQ : 0));
	pkt->pkey = get_be16(p + 2);
	pkt->dest_qpn = (uint32_t)get_be(p + 5, 3);
	pkt->psn = (uint32_t)get_be(p + 9, 3);
	*pad = (b1 & BTH_PAD_MASK) >> BTH_PAD_SHIFT;
	return 0;
}

static const char *first_header_name(uint8_t hdrs)
{
	if (hdrs & NET_HDR_RETH)
		return "RETH";
	if (hdrs & NET_HDR_ATOMIC)
		return "AtomicETH";
	if (hdrs & NET_HDR_AETH)
		return "AETH";
	if (hdrs & NET_HDR_ATOMIC_ACK)
		return "AtomicAckETH";
	if (hdrs & NET_HDR_IMM)
		return "ImmDt";
	return "IETH";
}

int net_frame_decode(const void *buf, size_t len, struct net_pkt *pkt, struct diag_report *diag)
{
	const struct net_opcode_info *info;
	const uint8_t *base = buf, *p;
	uint32_t hdr, area, pad = 0, i;
	int rc;

	if (!buf || !pkt)
		return fail(diag, NET_FRAME_E_ARG, 0, "NULL buffer or packet");
	memset(pkt, 0, sizeof(*pkt));
	if (len < NET_BTH_BYTES)
		return fail(diag, NET_FRAME_E_SHORT, 0, "%zu bytes cannot hold the 12-byte BTH",
		            len);
	if (len > (size_t)NET_MAX_HDR_BYTES + NET_FRAME_MAX_PAYLOAD + 3)
		return fail(diag, NET_FRAME_E_TOO_BIG, 0, "packet of %zu bytes exceeds the limit",
		            len);
	rc = check_opcode(base[0], &info, diag);
	if (rc)
		return rc;
	rc = decode_bth(base, pkt, &pad, diag);
	if (rc)
		return rc;
	hdr = headers_size(info->hdrs);
	if (len < hdr)
		return fail(diag, NET_FRAME_E_SHORT, (uint32_t)len,
		            "%s needs %u header bytes (BTH + %s...), packet has %zu", info->name,
		            hdr, first_header_name(info->hdrs), len);

	p = base + NET_BTH_BYTES;
	if (info->hdrs & NET_HDR_RETH) {
		pkt->reth.va = get_be64(p);
		pkt->reth.rkey = get_be32(p + 8);
		pkt->reth.dma_len = get_be32(p + 12);
		p += NET_RETH_BYTES;
	}
	if (info->hdrs & NET_HDR_ATOMIC) {
		pkt->atomic.va = get_be64(p);
		pkt->atomic.rkey = get_be32(p + 8);
		pkt->atomic.swap_add = get_be64(p + 12);
		pkt->atomic.compare = get_be64(p + 20);
		p += NET_ATOMIC_ETH_BYTES;
	}
	if (info->hdrs & NET_HDR_AETH) {
		rc = check_aeth(p[0], (uint32_t)(p - base), diag);
		if (rc)
			return rc;
		pkt->aeth.syndrome = p[0];
		pkt->aeth.msn = (uint32_t)get_be(p + 1, 3);
		p += NET_AETH_BYTES;
	}
	if (info->hdrs & NET_HDR_ATOMIC_ACK) {
		pkt->atomic_orig = get_be64(p);
		p += NET_ATOMIC_ACK_ETH_BYTES;
	}
	if (info->hdrs & NET_HDR_IMM) {
		pkt->imm = get_be32(p);
		p += NET_IMMDT_BYTES;
	}
	if (info->hdrs & NET_HDR_IETH) {
		pkt->ieth_rkey = get_be32(p);
		p += NET_IETH_BYTES;
	}

	area = (uint32_t)(len - hdr);
	if (info->payload == NET_PAY_NONE && pad)
		return fail(diag, NET_FRAME_E_PAD, 1,
		            "BTH byte 1: PadCnt %u on %s, which has no payload", pad, info->name);
	if (area & 3u)
		return fail(diag, NET_FRAME_E_PAD, hdr,
		            "%s: %u bytes after the headers is not a multiple of 4", info->name,
		            area);
	if (pad > area)
		return fail(diag, NET_FRAME_E_PAD, 1,
		            "BTH byte 1: PadCnt %u but only %u bytes follow the headers", pad,
		            area);
	for (i = area - pad; i < area; i++)
		if (base[hdr + i])
			return fail(diag, NET_FRAME_E_PAD, hdr + i,
			            "pad byte %u is 0x%02x, must be 0", hdr + i, base[hdr + i]);
	pkt->payload_len = area - pad;
	pkt->payload = pkt->payload_len ? base + hdr : NULL;
	rc = check_payload(info, pkt, pkt->payload_len, hdr, diag);
	if (rc)
		return rc;
	ok(diag);
	return 0;
}

int net_record_encode(const struct net_pkt *pkt, uint64_t vtime, void *buf, size_t cap,
                      struct diag_report *diag)
{
	uint8_t *p = buf;
	int n;

	if (!buf || cap < NET_RECORD_HDR_BYTES)
		return fail(diag, NET_FRAME_E_SPACE, 0, "no room for the record header");
	n = net_frame_encode(pkt, p + NET_RECORD_HDR_BYTES, cap - NET_RECORD_HDR_BYTES, diag);
	if (n < 0)
		return n;
	put_be32(p, (uint32_t)n);
	put_be64(p + 4, vtime);
	return n + (int)NET_RECORD_HDR_BYTES;
}

int net_record_peek(const void *buf, size_t len, uint32_t max_pkt, uint32_t *pkt_len,
                    uint64_t *vtime, struct diag_report *diag)
{
	uint32_t n;

	if (len < NET_RECORD_HDR_BYTES)
		return 1;
	n = get_be32(buf);
	if (n < NET_BTH_BYTES)
		return fail(diag, NET_FRAME_E_SHORT, 0,
		            "record length %u cannot hold the 12-byte BTH", n);
	if (n > max_pkt)
		return fail(diag, NET_FRAME_E_TOO_BIG, 0,
		            "record length %u exceeds the limit of %u bytes", n, max_pkt);
	if (len - NET_RECORD_HDR_BYTES < n)
		return 1;
	*pkt_len = n;
	if (vtime)
		*vtime = get_be64((const uint8_t *)buf + 4);
	return 0;
}

int net_pkt_snprint(char *out, size_t cap, const struct net_pkt *pkt)
{
	const struct net_opcode_info *info = net_opcode_info(pkt->opcode);
	size_t used = 0;
	int n;

#define EMIT(...)                                                                                  \
	do {                                                                                       \
		n = snprintf(out ? out + (used < cap ? used : cap) : NULL,                         \
		             used < cap ? cap - used : 0, __VA_ARGS__);                            \
		if (n < 0)                                                                         \
			return n;                                                                  \
		used += (size_t)n;                                                                 \
	} while (0)

	EMIT("%s qpn=0x%06x psn=%u%s%s", net_opcode_name(pkt->opcode), pkt->dest_qpn, pkt->psn,
	     (pkt->flags & NET_PKT_ACKREQ) ? " ackreq" : "",
	     (pkt->flags & NET_PKT_SE) ? " se" : "");
	if (info && (info->hdrs & NET_HDR_RETH))
		EMIT(" va=0x%llx rkey=0x%x len=%u", (unsigned long long)pkt->reth.va,
		     pkt->reth.rkey, pkt->reth.dma_len);
	if (info && (info->hdrs & NET_HDR_ATOMIC))
		EMIT(" va=0x%llx rkey=0x%x swap_add=0x%llx compare=0x%llx",
		     (unsigned long long)pkt->atomic.va, pkt->atomic.rkey,
		     (unsigned long long)pkt->atomic.swap_add,
		     (unsigned long long)pkt->atomic.compare);
	if (info && (info->hdrs & NET_HDR_AETH))
		EMIT(" %s(%u) msn=%u", net_aeth_name(pkt->aeth.syndrome),
		     net_aeth_value(pkt->aeth.syndrome), pkt->aeth.msn);
	if (info && (info->hdrs & NET_HDR_ATOMIC_ACK))
		EMIT(" orig=0x%llx", (unsigned long long)pkt->atomic_orig);
	if (info && (info->hdrs & NET_HDR_IMM))
		EMIT(" imm=0x%08x", pkt->imm);
	if (info && (info->hdrs & NET_HDR_IETH))
		EMIT(" inv_rkey=0x%x", pkt->ieth_rkey);
	if (pkt->payload_len)
		EMIT(" payload=%u", pkt->payload_len);
#undef EMIT
	return (int)used;
}
