/* SPDX-License-Identifier: MIT */
/*
 * tests/net/test_net_simpkt.c - sim packets through the IB framing and
 * back: every packet kind, every masked-atomic operand size, every NAK
 * syndrome, and the packets a link must refuse.
 *
 * Must not: open devices or sockets (pure translation + codec).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>

#include "net/net_frame.h"
#include "net/net_simpkt.h"

static const struct net_simpkt_addr A = {
    .local_node = 2, .local_qpn = 0x200, .peer_node = 1, .peer_qpn = 0x100};

/* @in as sent by node 1 / QP 0x100 to node 2 / QP 0x200, out as received. */
static void through_wire(const struct sim_pkt *in, struct sim_pkt *out, uint8_t *wire_opcode)
{
	uint8_t s1[NET_SIMPKT_SCRATCH], s2[NET_SIMPKT_SCRATCH], buf[4096];
	static uint8_t keep[4096];
	struct diag_report diag;
	struct net_pkt np, back;
	int n;

	assert_int_equal(net_simpkt_to_wire(in, &np, s1, &diag), 0);
	*wire_opcode = np.opcode;
	n = net_frame_encode(&np, buf, sizeof(buf), NULL);
	assert_true(n > 0);
	memcpy(keep, buf, (size_t)n); /* the received packet lives in its own buffer */
	assert_int_equal(net_frame_decode(keep, (size_t)n, &back, NULL), 0);
	assert_int_equal(net_simpkt_from_wire(&back, &A, out, s2, &diag), 0);
	assert_int_equal(out->src_node, 1);
	assert_int_equal(out->src_qpn, 0x100);
	assert_int_equal(out->dst_node, 2);
	assert_int_equal(out->dst_qpn, 0x200);
	assert_int_equal(out->psn, in->psn);
	assert_int_equal(out->kind, in->kind);
	assert_int_equal(out->flags, in->flags);
	assert_int_equal(out->payload_len, in->payload_len);
	if (in->payload_len) {
		/* payload may point into scratch s2: compare before it goes away */
		assert_memory_equal(out->payload, in->payload, in->payload_len);
	}
}

static struct sim_pkt base(enum sim_pkt_kind kind)
{
	struct sim_pkt p = {
	    .kind = kind,
	    .flags = SIM_PKT_ACKREQ,
	    .src_node = 1,
	    .src_qpn = 0x100,
	    .dst_node = 2,
	    .dst_qpn = 0x200,
	    .psn = 0xfffffe,
	};

	return p;
}

static void test_requests(void **state)
{
	static uint8_t data[100];
	struct sim_pkt p, q;
	uint8_t op;

	(void)state;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 3);
	p = base(SIM_PKT_SEND);
	p.payload = data;
	p.payload_len = 100;
	p.flags |= SIM_PKT_SE;
	through_wire(&p, &q, &op);
	assert_int_equal(op, NET_OP_SEND_ONLY);
	assert_int_equal(q.opcode, PRISM_OP_SEND);

	p.kind = SIM_PKT_SEND_IMM;
	p.imm = 0xa1b2c3d4;
	through_wire(&p, &q, &op);
	assert_int_equal(op, NET_OP_SEND_ONLY_WITH_IMMEDIATE);
	assert_int_equal(q.imm, 0xa1b2c3d4);

	p = base(SIM_PKT_WRITE_IMM);
	p.raddr = 0x7fff00001234ull;
	p.rkey = 0xbeef;
	p.imm = 7;
	p.payload = data;
	p.payload_len = 33;
	through_wire(&p, &q, &op);
	assert_int_equal(op, NET_OP_RDMA_WRITE_ONLY_WITH_IMMEDIATE);
	assert_int_equal(q.raddr, p.raddr);
	assert_int_equal(q.rkey, 0xbeef);
	assert_int_equal(q.imm, 7);

	p = base(SIM_PKT_READ_REQ);
	p.raddr = 0x1000;
	p.rkey = 3;
	p.len = 1u << 20;
	through_wire(&p, &q, &op);
	assert_int_equal(op, NET_OP_RDMA_READ_REQUEST);
	assert_int_equal(q.len, 1u << 20);
	assert_int_equal(q.raddr, 0x1000);
}

static void test_plain_atomics(void **state)
{
	struct sim_pkt p = base(SIM_PKT_ATOMIC_REQ), q;
	uint64_t swap = 0x1122334455667788ull, cmp = 0x99, v;
	uint8_t op;

	(void)state;
	p.opcode = PRISM_OP_ATOMIC_CS;
	p.atomic_size = 8;
	p.raddr = 0x2000;
	p.rkey = 9;
	memcpy(p.swap, &swap, 8);
	memcpy(p.compare, &cmp, 8);
	through_wire(&p, &q, &op);
	assert_int_equal(op, NET_OP_COMPARE_SWAP);
	assert_int_equal(q.opcode, PRISM_OP_ATOMIC_CS);
	assert_int_equal(q.atomic_size, 8);
	memcpy(&v, q.swap, 8);
	assert_int_equal(v, swap);
	memcpy(&v, q.compare, 8);
	assert_int_equal(v, cmp);

	p.opcode = PRISM_OP_ATOMIC_FA;
	through_wire(&p, &q, &op);
	assert_int_equal(op, NET_OP_FETCH_ADD);
	memcpy(&v, q.swap, 8);
	assert_int_equal(v, swap);

	/* the 8-byte original value of the response, host order in the sim */
	p = base(SIM_PKT_ATOMIC_RESP);
	p.msn = 12;
	p.payload = (uint8_t *)&swap;
	p.payload_len = 8;
	through_wire(&p, &q, &op);
	assert_int_equal(op, NET_OP_ATOMIC_ACKNOWLEDGE);
	assert_int_equal(q.msn, 12);
	assert_int_equal(q.atomic_size, 8);
}

static void test_masked_atomics(void **state)
{
	static const unsigned sizes[] = {4, 8, 16, 32};

	(void)state;
	for (size_t k = 0; k < 4; k++) {
		unsigned n = sizes[k];
		struct sim_pkt p = base(SIM_PKT_ATOMIC_REQ), q;
		uint8_t op;

		p.opcode = PRISM_OP_ATOMIC_MASKED_CS;
		p.atomic_size = (uint8_t)n;
		p.raddr = 0x3000;
		p.rkey = 4;
		for (unsigned i = 0; i < n; i++) {
			p.swap[i] = (uint8_t)(i + 1);
			p.compare[i] = (uint8_t)(i + 50);
			p.swap_mask[i] = (uint8_t)(0xf0 ^ i);
			p.compare_mask[i] = (uint8_t)(0x0f ^ i);
		}
		through_wire(&p, &q, &op);
		assert_int_equal(op, NET_OP_MASKED_COMPARE_SWAP);
		assert_int_equal(q.opcode, PRISM_OP_ATOMIC_MASKED_CS);
		assert_int_equal(q.atomic_size, n);
		assert_int_equal(q.opmod, PRISM_MASKED_OPMOD(__builtin_ctz(n)));
		assert_memory_equal(q.swap, p.swap, n);
		assert_memory_equal(q.compare, p.compare, n);
		assert_memory_equal(q.swap_mask, p.swap_mask, n);
		assert_memory_equal(q.compare_mask, p.compare_mask, n);

		p.opcode = PRISM_OP_ATOMIC_MASKED_FA;
		through_wire(&p, &q, &op);
		assert_int_equal(op, NET_OP_MASKED_FETCH_ADD);
		assert_memory_equal(q.swap, p.swap, n);
		assert_memory_equal(q.swap_mask, p.swap_mask, n);

		/* the response: 8 bytes go as a plain ATOMIC_ACKNOWLEDGE */
		p = base(SIM_PKT_ATOMIC_RESP);
		p.payload = p.swap;
		p.payload_len = n;
		for (unsigned i = 0; i < n; i++)
			p.swap[i] = (uint8_t)(0x80 + i);
		through_wire(&p, &q, &op);
		assert_int_equal(op, n == 8 ? NET_OP_ATOMIC_ACKNOWLEDGE
		                            : NET_OP_MASKED_ATOMIC_ACKNOWLEDGE);
		assert_int_equal(q.atomic_size, n);
	}
}

/* The 8-byte masked operands are host order in the sim, big-endian on the wire. */
static void test_masked_8_is_big_endian_on_the_wire(void **state)
{
	struct sim_pkt p = base(SIM_PKT_ATOMIC_REQ);
	uint8_t scratch[NET_SIMPKT_SCRATCH];
	uint64_t v = 0x0102030405060708ull;
	struct net_pkt np;

	(void)state;
	p.opcode = PRISM_OP_ATOMIC_MASKED_CS;
	p.atomic_size = 8;
	memcpy(p.swap, &v, 8);
	assert_int_equal(net_simpkt_to_wire(&p, &np, scratch, NULL), 0);
	assert_int_equal(np.reth.dma_len, 8);
	assert_int_equal(np.payload_len, 32);
	assert_memory_equal(np.payload, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
}

static void test_acks_and_naks(void **state)
{
	static const uint8_t synd[] = {
	    PRISM_SYND_REMOTE_ACCESS_ERR, PRISM_SYND_REMOTE_INVAL_REQ_ERR, PRISM_SYND_REMOTE_OP_ERR,
	    PRISM_SYND_TRANSPORT_RETRY_EXC_ERR, PRISM_SYND_RNR_RETRY_EXC_ERR};
	static const uint8_t aeth[] = {0x62, 0x61, 0x63, 0x60, 0x20 | 14};
	uint8_t scratch[NET_SIMPKT_SCRATCH], data[16] = {1, 2, 3};
	struct sim_pkt p = base(SIM_PKT_ACK), q;
	struct net_pkt np;
	uint8_t op;

	(void)state;
	p.msn = 0xabcdef;
	through_wire(&p, &q, &op);
	assert_int_equal(op, NET_OP_ACKNOWLEDGE);
	assert_int_equal(q.msn, 0xabcdef);
	for (size_t i = 0; i < sizeof(synd); i++) {
		p = base(SIM_PKT_NAK);
		p.syndrome = synd[i];
		p.rnr_timer = 14;
		assert_int_equal(net_simpkt_to_wire(&p, &np, scratch, NULL), 0);
		assert_int_equal(np.aeth.syndrome, aeth[i]);
		through_wire(&p, &q, &op);
		assert_int_equal(q.syndrome, synd[i]);
		if (synd[i] == PRISM_SYND_RNR_RETRY_EXC_ERR)
			assert_int_equal(q.rnr_timer, 14);
	}
	/* a syndrome without an IB NAK code travels as a remote operational error */
	p.syndrome = PRISM_SYND_LOCAL_PROT_ERR;
	through_wire(&p, &q, &op);
	assert_int_equal(q.syndrome, PRISM_SYND_REMOTE_OP_ERR);

	p = base(SIM_PKT_READ_RESP);
	p.payload = data;
	p.payload_len = sizeof(data);
	through_wire(&p, &q, &op);
	assert_int_equal(op, NET_OP_RDMA_READ_RESPONSE_ONLY);
}

static void test_refused(void **state)
{
	uint8_t scratch[NET_SIMPKT_SCRATCH];
	struct diag_report diag;
	struct net_pkt np = {.opcode = NET_OP_SEND_ONLY, .dest_qpn = 0x200};
	struct sim_pkt sp;

	(void)state;
	/* for another QP than the link's */
	np.dest_qpn = 0x201;
	assert_int_equal(net_simpkt_from_wire(&np, &A, &sp, scratch, &diag), -EPROTO);
	assert_non_null(strstr(diag.msg, "SEND_ONLY for QP 0x000201 arrived on the link of QP "
	                                 "0x000200"));
	/* segmented messages are not used on a link */
	np.dest_qpn = 0x200;
	np.opcode = NET_OP_SEND_FIRST;
	assert_int_equal(net_simpkt_from_wire(&np, &A, &sp, scratch, &diag), -EPROTO);
	assert_non_null(strstr(diag.msg, "SEND_FIRST (0x00) is not used between sim NICs"));
	/* a read response must carry an ACK syndrome */
	np.opcode = NET_OP_RDMA_READ_RESPONSE_ONLY;
	np.aeth.syndrome = 0x62;
	assert_int_equal(net_simpkt_from_wire(&np, &A, &sp, scratch, &diag), -EPROTO);
	assert_non_null(strstr(diag.msg, "NAK_REMOTE_ACCESS_ERROR"));
	/* an ACKNOWLEDGE with a NAK code the sim has no syndrome for */
	np.opcode = NET_OP_ACKNOWLEDGE;
	np.aeth.syndrome = 0x40;
	assert_int_equal(net_simpkt_from_wire(&np, &A, &sp, scratch, &diag), -EPROTO);
	/* and on the way out: an atomic with a non-atomic WQE opcode */
	sp = base(SIM_PKT_ATOMIC_REQ);
	sp.opcode = PRISM_OP_SEND;
	assert_int_equal(net_simpkt_to_wire(&sp, &np, scratch, &diag), -EINVAL);
	sp.opcode = PRISM_OP_ATOMIC_MASKED_CS;
	sp.atomic_size = 12;
	assert_int_equal(net_simpkt_to_wire(&sp, &np, scratch, &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "masked atomic of 12 bytes"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_requests),
	    cmocka_unit_test(test_plain_atomics),
	    cmocka_unit_test(test_masked_atomics),
	    cmocka_unit_test(test_masked_8_is_big_endian_on_the_wire),
	    cmocka_unit_test(test_acks_and_naks),
	    cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests_name("net_simpkt", tests, NULL, NULL);
}
