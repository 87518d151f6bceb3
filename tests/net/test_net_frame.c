/* SPDX-License-Identifier: MIT */
/*
 * tests/net/test_net_frame.c - the IB packet codec: round trips of every
 * opcode, golden bytes of the header layouts, and one rejection per rule.
 *
 * Must not: touch sockets or the sim.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "net/net_frame.h"

static uint8_t payload_bytes[256];

/* A packet of @opcode with every header field its opcode carries set. */
static struct net_pkt sample(uint8_t opcode, uint32_t payload_len)
{
	const struct net_opcode_info *info = net_opcode_info(opcode);
	struct net_pkt p = {
	    .opcode = opcode,
	    .flags = NET_PKT_ACKREQ | NET_PKT_SE,
	    .pkey = 0xffff,
	    .dest_qpn = 0xabcdef,
	    .psn = 0x123456,
	};

	if (info->hdrs & NET_HDR_RETH)
		p.reth = (typeof(p.reth)){
		    .va = 0x1122334455667788ull, .rkey = 0x99aabbcc, .dma_len = payload_len};
	if (info->hdrs & NET_HDR_ATOMIC)
		p.atomic = (typeof(p.atomic)){
		    .va = 0x1000, .rkey = 7, .swap_add = 0xfeedull << 40, .compare = 42};
	if (info->hdrs & NET_HDR_AETH)
		p.aeth.msn = 0x654321;
	if (info->hdrs & NET_HDR_ATOMIC_ACK)
		p.atomic_orig = 0x0102030405060708ull;
	if (info->hdrs & NET_HDR_IMM)
		p.imm = 0xdeadbeef;
	if (info->hdrs & NET_HDR_IETH)
		p.ieth_rkey = 0x4321;
	switch (info->payload) {
	case NET_PAY_NONE:
		payload_len = 0;
		break;
	case NET_PAY_MASKED_CS:
		p.reth.dma_len = 8;
		payload_len = 32;
		break;
	case NET_PAY_MASKED_FA:
		p.reth.dma_len = 16;
		payload_len = 32;
		break;
	case NET_PAY_MASKED_ACK:
		payload_len = 16;
		break;
	default:
		break;
	}
	p.payload = payload_len ? payload_bytes : NULL;
	p.payload_len = payload_len;
	return p;
}

static void assert_same_pkt(const struct net_pkt *a, const struct net_pkt *b)
{
	assert_int_equal(a->opcode, b->opcode);
	assert_int_equal(a->flags, b->flags);
	assert_int_equal(a->pkey, b->pkey);
	assert_int_equal(a->dest_qpn, b->dest_qpn);
	assert_int_equal(a->psn, b->psn);
	assert_memory_equal(&a->reth, &b->reth, sizeof(a->reth));
	assert_int_equal(a->atomic.va, b->atomic.va);
	assert_int_equal(a->atomic.rkey, b->atomic.rkey);
	assert_int_equal(a->atomic.swap_add, b->atomic.swap_add);
	assert_int_equal(a->atomic.compare, b->atomic.compare);
	assert_int_equal(a->aeth.syndrome, b->aeth.syndrome);
	assert_int_equal(a->aeth.msn, b->aeth.msn);
	assert_int_equal(a->atomic_orig, b->atomic_orig);
	assert_int_equal(a->imm, b->imm);
	assert_int_equal(a->ieth_rkey, b->ieth_rkey);
	assert_int_equal(a->payload_len, b->payload_len);
	if (a->payload_len)
		assert_memory_equal(a->payload, b->payload, a->payload_len);
}

static void test_round_trip_every_opcode(void **state)
{
	unsigned op, n = 0, len;

	(void)state;
	for (op = 0; op < 256; op++) {
		if (!net_opcode_info((uint8_t)op))
			continue;
		for (len = 0; len <= 9; len++) {
			struct net_pkt p = sample((uint8_t)op, len), q;
			struct diag_report diag;
			uint8_t buf[512], again[512];
			int size = net_frame_encode(&p, buf, sizeof(buf), &diag);

			assert_true(size > 0);
			assert_int_equal(size % 4, 0);
			assert_int_equal(size, net_frame_size(&p, NULL));
			assert_int_equal(net_frame_decode(buf, (size_t)size, &q, &diag), 0);
			assert_same_pkt(&p, &q);
			assert_int_equal(net_frame_encode(&q, again, sizeof(again), NULL), size);
			assert_memory_equal(buf, again, (size_t)size);
			n++;
		}
	}
	assert_int_equal(n, 26 * 10);
}

/* RDMA_WRITE_ONLY_WITH_IMMEDIATE, 5 payload bytes: BTH RETH ImmDt payload pad. */
static void test_golden_write_imm(void **state)
{
	static const uint8_t data[5] = {1, 2, 3, 4, 5};
	static const uint8_t expect[] = {
	    0x0b, 0xb0, 0xff, 0xff,                         /* opcode, SE|PadCnt 3, P_Key */
	    0x00, 0x00, 0x00, 0x11,                         /* reserved, DestQP 0x11 */
	    0x80, 0x00, 0x00, 0x05,                         /* AckReq, PSN 5 */
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, /* VA */
	    0x00, 0x00, 0x00, 0x42,                         /* R_Key */
	    0x00, 0x00, 0x00, 0x05,                         /* DMA length */
	    0xca, 0xfe, 0xba, 0xbe,                         /* ImmDt */
	    1,    2,    3,    4,    5,    0,    0,    0,    /* payload + pad */
	};
	struct net_pkt p = {
	    .opcode = NET_OP_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
	    .flags = NET_PKT_SE | NET_PKT_ACKREQ,
	    .pkey = 0xffff,
	    .dest_qpn = 0x11,
	    .psn = 5,
	    .reth = {.va = 0x1000, .rkey = 0x42, .dma_len = 5},
	    .imm = 0xcafebabe,
	    .payload = data,
	    .payload_len = 5,
	};
	uint8_t buf[64];

	(void)state;
	assert_int_equal(net_frame_encode(&p, buf, sizeof(buf), NULL), sizeof(expect));
	assert_memory_equal(buf, expect, sizeof(expect));
}

/* ATOMIC_ACKNOWLEDGE with a remote-access NAK would be invalid; a plain one: */
static void test_golden_atomic_ack_and_nak(void **state)
{
	static const uint8_t ack[] = {
	    0x12, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x07,
	    0x00, 0x00, 0x00, 0x09, 0x1f, 0x00, 0x00, 0x03, /* AETH: ACK, credits 31, MSN 3 */
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, /* original data 42 */
	};
	static const uint8_t nak[] = {
	    0x11, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x07,
	    0x00, 0x00, 0x00, 0x09, 0x62, 0x00, 0x00, 0x03, /* AETH: NAK remote access error */
	};
	struct net_pkt p = {
	    .opcode = NET_OP_ATOMIC_ACKNOWLEDGE,
	    .pkey = 0xffff,
	    .dest_qpn = 7,
	    .psn = 9,
	    .aeth = {.syndrome = net_aeth_syndrome(NET_AETH_ACK, NET_AETH_CREDITS_INVALID),
	             .msn = 3},
	    .atomic_orig = 42,
	};
	uint8_t buf[64];

	(void)state;
	assert_int_equal(net_frame_encode(&p, buf, sizeof(buf), NULL), sizeof(ack));
	assert_memory_equal(buf, ack, sizeof(ack));
	p.opcode = NET_OP_ACKNOWLEDGE;
	p.aeth.syndrome = net_aeth_syndrome(NET_AETH_NAK, NET_NAK_REMOTE_ACCESS_ERR);
	assert_int_equal(net_frame_encode(&p, buf, sizeof(buf), NULL), sizeof(nak));
	assert_memory_equal(buf, nak, sizeof(nak));
	assert_string_equal(net_aeth_name(buf[12]), "NAK_REMOTE_ACCESS_ERROR");
	assert_string_equal(net_aeth_name(net_aeth_syndrome(NET_AETH_RNR_NAK, 1)), "RNR_NAK");
	assert_string_equal(net_aeth_name(0x1f), "ACK");
}

static void test_golden_compare_swap(void **state)
{
	struct net_pkt p = sample(NET_OP_COMPARE_SWAP, 0), q;
	uint8_t buf[64];

	(void)state;
	assert_int_equal(net_frame_encode(&p, buf, sizeof(buf), NULL), 12 + 28);
	/* AtomicETH: VA at 12, R_Key at 20, swap at 24, compare at 32 */
	assert_int_equal(buf[19], 0x00);
	assert_int_equal(buf[18], 0x10);
	assert_int_equal(buf[23], 7);
	assert_int_equal(buf[24], 0x00);
	assert_int_equal(buf[25], 0xfe);
	assert_int_equal(buf[26], 0xed);
	assert_int_equal(buf[39], 42);
	assert_int_equal(net_frame_decode(buf, 40, &q, NULL), 0);
	assert_int_equal(q.atomic.swap_add, 0xfeedull << 40);
}

/* Decode @buf and expect @code at @offset with @needle in the message. */
static void expect_reject(const uint8_t *buf, size_t len, int code, uint32_t offset,
                          const char *needle)
{
	struct diag_report diag;
	struct net_pkt p;

	assert_int_equal(net_frame_decode(buf, len, &p, &diag), code);
	assert_int_equal(diag.code, code);
	assert_int_equal(diag.offset, offset);
	if (!strstr(diag.msg, needle))
		fail_msg("message \"%s\" lacks \"%s\"", diag.msg, needle);
}

static int encode_sample(uint8_t opcode, uint32_t len, uint8_t *buf, size_t cap)
{
	struct net_pkt p = sample(opcode, len);

	return net_frame_encode(&p, buf, cap, NULL);
}

static void test_reject_header_rules(void **state)
{
	uint8_t buf[128];
	int n;

	(void)state;
	n = encode_sample(NET_OP_SEND_ONLY, 4, buf, sizeof(buf));
	expect_reject(buf, 11, NET_FRAME_E_SHORT, 0, "12-byte BTH");

	buf[0] = 0x15;
	expect_reject(buf, (size_t)n, NET_FRAME_E_OPCODE, 0, "RC opcode 0x15 is reserved");
	buf[0] = 0x64;
	expect_reject(buf, (size_t)n, NET_FRAME_E_OPCODE, 0, "UD transport");
	buf[0] = NET_OP_SEND_ONLY;

	buf[1] |= 0x02;
	expect_reject(buf, (size_t)n, NET_FRAME_E_TVER, 1, "TVer 2");
	buf[1] &= (uint8_t)~0x0f;

	buf[4] |= 0x01;
	expect_reject(buf, (size_t)n, NET_FRAME_E_RESERVED, 4, "byte 4");
	buf[4] &= 0xc0;
	buf[8] |= 0x40;
	expect_reject(buf, (size_t)n, NET_FRAME_E_RESERVED, 8, "byte 8");
	buf[8] &= 0x80;

	assert_int_equal(net_frame_decode(buf, (size_t)n, &(struct net_pkt){0}, NULL), 0);
}

static void test_reject_truncated_headers(void **state)
{
	uint8_t buf[128];
	int n;

	(void)state;
	n = encode_sample(NET_OP_RDMA_READ_REQUEST, 64, buf, sizeof(buf));
	assert_int_equal(n, 28);
	expect_reject(buf, 20, NET_FRAME_E_SHORT, 20, "RDMA_READ_REQUEST needs 28 header bytes");
	n = encode_sample(NET_OP_ATOMIC_ACKNOWLEDGE, 0, buf, sizeof(buf));
	expect_reject(buf, (size_t)n - 4, NET_FRAME_E_SHORT, (uint32_t)n - 4, "AETH");
}

static void test_reject_payload_rules(void **state)
{
	uint8_t buf[256];
	int n;

	(void)state;
	/* a no-payload opcode with 4 trailing bytes */
	n = encode_sample(NET_OP_ACKNOWLEDGE, 0, buf, sizeof(buf));
	memset(buf + n, 0, 4);
	expect_reject(buf, (size_t)n + 4, NET_FRAME_E_LENGTH, (uint32_t)n, "carries no payload");
	/* PadCnt on a no-payload opcode */
	buf[1] |= 0x10;
	expect_reject(buf, (size_t)n, NET_FRAME_E_PAD, 1, "PadCnt 1 on ACKNOWLEDGE");

	/* payload area not a multiple of 4 */
	n = encode_sample(NET_OP_SEND_ONLY, 8, buf, sizeof(buf));
	expect_reject(buf, (size_t)n - 1, NET_FRAME_E_PAD, 12, "not a multiple of 4");
	/* nonzero pad byte */
	n = encode_sample(NET_OP_SEND_ONLY, 6, buf, sizeof(buf));
	buf[n - 1] = 0x5a;
	expect_reject(buf, (size_t)n, NET_FRAME_E_PAD, (uint32_t)n - 1, "pad byte");
	/* PadCnt larger than the payload area */
	n = encode_sample(NET_OP_SEND_ONLY, 0, buf, sizeof(buf));
	buf[1] |= 0x30;
	expect_reject(buf, (size_t)n, NET_FRAME_E_PAD, 1, "PadCnt 3 but only 0 bytes");

	/* WRITE_ONLY whose payload disagrees with the RETH */
	n = encode_sample(NET_OP_RDMA_WRITE_ONLY, 8, buf, sizeof(buf));
	buf[12 + 15] = 9;
	expect_reject(buf, (size_t)n, NET_FRAME_E_LENGTH, 28, "RETH DMA length says 9");

	/* masked CAS: bad operand size, then wrong operand bytes */
	n = encode_sample(NET_OP_MASKED_COMPARE_SWAP, 0, buf, sizeof(buf));
	assert_int_equal(n, 12 + 16 + 32);
	buf[12 + 15] = 12;
	expect_reject(buf, (size_t)n, NET_FRAME_E_ATOMIC_SIZE, 24, "DMA length 12");
	buf[12 + 15] = 4;
	expect_reject(buf, (size_t)n, NET_FRAME_E_LENGTH, 28, "need 16 payload bytes, got 32");
	/* masked ack with 12 bytes of original data */
	n = encode_sample(NET_OP_MASKED_ATOMIC_ACKNOWLEDGE, 0, buf, sizeof(buf));
	expect_reject(buf, (size_t)n - 4, NET_FRAME_E_ATOMIC_SIZE, 16, "12 bytes");
}

static void test_reject_aeth(void **state)
{
	uint8_t buf[64];
	int n;

	(void)state;
	n = encode_sample(NET_OP_ACKNOWLEDGE, 0, buf, sizeof(buf));
	buf[12] = 0x40; /* type 10b */
	expect_reject(buf, (size_t)n, NET_FRAME_E_AETH, 12, "reserved type");
	buf[12] = 0x65; /* NAK code 5 */
	expect_reject(buf, (size_t)n, NET_FRAME_E_AETH, 12, "NAK code 5");
	buf[12] = 0x80;
	expect_reject(buf, (size_t)n, NET_FRAME_E_RESERVED, 12, "bit 7");
}

static void test_encode_rejects(void **state)
{
	struct net_pkt p = sample(NET_OP_SEND_ONLY, 4);
	struct diag_report diag;
	uint8_t buf[64];

	(void)state;
	p.dest_qpn = 0x1000000;
	assert_int_equal(net_frame_encode(&p, buf, sizeof(buf), &diag), NET_FRAME_E_RANGE);
	assert_non_null(strstr(diag.msg, "DestQP"));
	p = sample(NET_OP_SEND_ONLY, 4);
	p.psn = 0x1000000;
	assert_int_equal(net_frame_encode(&p, buf, sizeof(buf), &diag), NET_FRAME_E_RANGE);
	p = sample(NET_OP_SEND_ONLY, 4);
	p.payload = NULL;
	assert_int_equal(net_frame_encode(&p, buf, sizeof(buf), &diag), NET_FRAME_E_ARG);
	p = sample(NET_OP_SEND_ONLY, 4);
	assert_int_equal(net_frame_encode(&p, buf, 15, &diag), NET_FRAME_E_SPACE);
	p.opcode = 0x20; /* UC SEND_FIRST */
	assert_int_equal(net_frame_encode(&p, buf, sizeof(buf), &diag), NET_FRAME_E_OPCODE);
	p = sample(NET_OP_ACKNOWLEDGE, 0);
	p.aeth.syndrome = 0x47;
	assert_int_equal(net_frame_encode(&p, buf, sizeof(buf), &diag), NET_FRAME_E_AETH);
	p = sample(NET_OP_ACKNOWLEDGE, 0);
	p.aeth.msn = 1u << 24;
	assert_int_equal(net_frame_encode(&p, buf, sizeof(buf), &diag), NET_FRAME_E_RANGE);
	assert_string_equal(net_frame_strerror(NET_FRAME_E_PAD), "bad pad count or pad bytes");
}

static void test_records(void **state)
{
	struct net_pkt p = sample(NET_OP_SEND_ONLY_WITH_IMMEDIATE, 3);
	struct diag_report diag;
	uint8_t buf[64];
	uint64_t vt = 0;
	uint32_t len = 0;
	int n;

	(void)state;
	n = net_record_encode(&p, 0x0102030405060708ull, buf, sizeof(buf), &diag);
	assert_int_equal(n, 12 + 12 + 4 + 4);
	assert_memory_equal(buf, "\x00\x00\x00\x14\x01\x02\x03\x04\x05\x06\x07\x08", 12);
	assert_int_equal(net_record_peek(buf, 3, 1024, &len, &vt, &diag), 1);
	assert_int_equal(net_record_peek(buf, (size_t)n - 1, 1024, &len, &vt, &diag), 1);
	assert_int_equal(net_record_peek(buf, (size_t)n, 1024, &len, &vt, &diag), 0);
	assert_int_equal(len, 20);
	assert_int_equal(vt, 0x0102030405060708ull);
	assert_int_equal(net_record_peek(buf, (size_t)n, 19, &len, NULL, &diag),
	                 NET_FRAME_E_TOO_BIG);
	assert_non_null(strstr(diag.msg, "exceeds the limit of 19"));
	buf[3] = 11;
	assert_int_equal(net_record_peek(buf, (size_t)n, 1024, &len, NULL, &diag),
	                 NET_FRAME_E_SHORT);
}

static void test_names_and_print(void **state)
{
	struct net_pkt p = sample(NET_OP_RDMA_READ_REQUEST, 64);
	char line[160];

	(void)state;
	assert_string_equal(net_opcode_name(NET_OP_FETCH_ADD), "FETCH_ADD");
	assert_string_equal(net_opcode_name(0x15), "UNKNOWN");
	assert_null(net_opcode_info(0x15));
	assert_int_equal(net_opcode_info(NET_OP_MASKED_COMPARE_SWAP)->role, NET_ROLE_REQUEST);
	assert_true(net_pkt_snprint(line, sizeof(line), &p) > 0);
	assert_non_null(strstr(line, "RDMA_READ_REQUEST qpn=0xabcdef psn=1193046 ackreq se"));
	assert_non_null(strstr(line, "len=64"));
	/* truncation keeps the snprintf contract */
	assert_true(net_pkt_snprint(line, 8, &p) > 8);
	assert_int_equal(strlen(line), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip_every_opcode),
	    cmocka_unit_test(test_golden_write_imm),
	    cmocka_unit_test(test_golden_atomic_ack_and_nak),
	    cmocka_unit_test(test_golden_compare_swap),
	    cmocka_unit_test(test_reject_header_rules),
	    cmocka_unit_test(test_reject_truncated_headers),
	    cmocka_unit_test(test_reject_payload_rules),
	    cmocka_unit_test(test_reject_aeth),
	    cmocka_unit_test(test_encode_rejects),
	    cmocka_unit_test(test_records),
	    cmocka_unit_test(test_names_and_print),
	};

	for (size_t i = 0; i < sizeof(payload_bytes); i++)
		payload_bytes[i] = (uint8_t)(i * 7 + 1);
	return cmocka_run_group_tests_name("net_frame", tests, NULL, NULL);
}
