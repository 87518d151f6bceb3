/* SPDX-License-Identifier: MIT */
/*
 * prism-wqe-demo - RedN's hash-lookup chain, built WQE by WQE with the codec.
 *
 * What it runs: the codec path only.  Every WQE of the chain is described
 * as a struct prism_wqe, encoded to bytes, decoded back, compared, and
 * printed with the codec's printer (with the raw bytes).  The patch sites
 * that make the chain self-modifying (RECV and READ scatter targets, the CAS
 * that turns the response NOP into a WRITE_IMM) are computed with
 * prism_wqe_field_offset().  Nothing is executed: the software NIC and the
 * compiler are not merged yet, and this program says so.
 *
 * The chain (RedN, NSDI'22, section 4 and its hash_bench; see
 * docs/wqe-format.md): a client SEND carries a key and a bucket address;
 *   C.rq[0]  RECV scatters 3 key bytes into the CAS's compare operand and
 *            8 address bytes into the READ's remote address;
 *   W[0] WAIT client CQ   W[1] SEND_EN W   W[2] READ bucket {key[3], addr}
 *            scattering the key into the response's QPN bytes and the
 *            value address into its data segment;
 *   W[3] CAS (fenced) on the response's control bytes 0-7:
 *            NOP+key+ds -> WRITE_IMM+real QPN+ds;
 *   W[4] WAIT worker CQ   W[5] SEND_EN C, which runs
 *   C.sq[0]  the response: WRITE_IMM of the value if the keys matched,
 *            otherwise the NOP it was posted as.
 *
 * Owns: this demonstration.  Must not: hand-pack WQE bytes (all through
 * <prism/wqe.h>).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <prism/wqe.h>

/* Illustrative numbers for queues, CQs, keys and buffers. */
enum {
	QPN_CLIENT = 0x000011, /* client-facing QP C (managed send) */
	QPN_WORKER = 0x000012, /* worker loopback QP W (managed send) */
	CQN_CLIENT = 0x21,     /* C's CQ: the RECV completion */
	CQN_WORKER = 0x22,     /* W's CQ: the CAS completion */
	LKEY_CODE = 0x100a,    /* queue memory (the chain rewrites itself) */
	RKEY_CODE = 0x200a,
	RKEY_TABLE = 0x200b,  /* the hash table */
	RKEY_CLIENT = 0x300c, /* the client's response buffer */
	VALUE_LEN = 64,
};

#define W_SQ_ADDR  0x7f0000010000ull /* W's send queue buffer */
#define C_SQ_ADDR  0x7f0000020000ull /* C's send queue buffer */
#define CLIENT_BUF 0x5500000000ull

struct chain_wqe {
	const char *queue;
	unsigned index;
	const char *role;
	struct prism_wqe w;
	uint8_t bytes[PRISM_WQE_MAX_BYTES];
	int len;
};

static int fail(const char *what, int rc, const struct prism_wqe_diag *d)
{
	fprintf(stderr, "prism-wqe-demo: %s: %s: %s\n", what, prism_wqe_strerror(rc), d->msg);
	return 1;
}

/* Encode, decode back, compare, print. */
static int show(struct chain_wqe *c)
{
	struct prism_wqe_diag diag = {0};
	struct prism_wqe back;
	char line[1024];
	int rc;

	c->len = prism_wqe_encode(&c->w, c->bytes, sizeof(c->bytes), &diag);
	if (c->len < 0)
		return fail(c->role, c->len, &diag);
	rc = prism_wqe_decode(c->bytes, (size_t)c->len, &back, &diag);
	if (rc < 0)
		return fail(c->role, rc, &diag);
	c->w.ctrl.ds = back.ctrl.ds;
	c->w.ctrl.opmod = back.ctrl.opmod;
	c->w.has_raddr = back.has_raddr;
	c->w.has_atomic = back.has_atomic;
	c->w.has_wait_en = back.has_wait_en;
	c->w.has_wod = back.has_wod;
	if (!prism_wqe_equal(&c->w, &back)) {
		fprintf(stderr, "prism-wqe-demo: %s: decode(encode(w)) != w\n", c->role);
		return 1;
	}
	printf("%s[%u]  %s\n", c->queue, c->index, c->role);
	prism_wqe_snprint(line, sizeof(line), &back, NULL, 0, 0);
	printf("    %s\n", line);
	prism_wqe_snprint(line, sizeof(line), &back, c->bytes, (size_t)c->len, PRISM_PRINT_RAW);
	printf("    raw:%s\n", strstr(line, " |") + 2);
	return 0;
}

/* Absolute address of @field inside WQE @c posted at @sq_base. */
static uint64_t field_addr(const struct chain_wqe *c, uint64_t sq_base, enum prism_wqe_field f,
                           uint32_t *len)
{
	uint32_t off = 0;

	if (prism_wqe_field_offset(&c->w, f, &off, len) != 0) {
		fprintf(stderr, "prism-wqe-demo: %s has no %s\n", c->role, prism_wqe_field_name(f));
		exit(1);
	}
	return sq_base + (uint64_t)c->index * PRISM_WQE_BB + off;
}

/* The first 8 control bytes of @ctrl as the host-order integer an 8-byte
 * atomic in host-endian mode compares (mlx5.md "Atomics and endianness"). */
static uint64_t ctrl_word(const struct prism_ctrl_seg *ctrl)
{
	uint8_t b[16];
	uint64_t v;

	prism_ctrl_seg_pack(ctrl, b);
	memcpy(&v, b, sizeof(v));
	return v;
}

int main(void)
{
	struct chain_wqe wait_recv = {
	    .queue = "W", .index = 0, .role = "WAIT for the client's SEND (RECV completion)"};
	struct chain_wqe en_worker = {
	    .queue = "W", .index = 1, .role = "SEND_EN: let W run the READ and the CAS"};
	struct chain_wqe read = {
	    .queue = "W", .index = 2, .role = "READ the bucket {key[3], value address}"};
	struct chain_wqe cas = {
	    .queue = "W", .index = 3, .role = "CAS (fenced): NOP -> WRITE_IMM if the keys match"};
	struct chain_wqe wait_cas = {
	    .queue = "W", .index = 4, .role = "WAIT for the CAS completion"};
	struct chain_wqe en_client = {
	    .queue = "W", .index = 5, .role = "SEND_EN: let C run the response"};
	struct chain_wqe resp = {.queue = "C",
	                         .index = 0,
	                         .role = "response, posted as a NOP with WRITE_IMM's segments"};
	struct prism_ctrl_seg nop_ctrl, write_ctrl;
	struct prism_sge recv_sge[2], back_sge[2];
	uint8_t rwqe[4 * PRISM_WQE_DS_BYTES];
	struct prism_wqe_diag diag = {0};
	uint32_t len;
	int rc;

	printf("prism-wqe-demo: RedN hash-lookup chain, built with the WQE codec.\n"
	       "NOTE: this is the codec path only (encode -> decode -> print). The software\n"
	       "NIC (runtime/sim) and the compiler (prismc) are not merged yet, so nothing\n"
	       "below is executed; addresses, keys and queue numbers are illustrative.\n\n");

	/* The response: WRITE_IMM of the value to the client, encoded in full... */
	resp.w.ctrl = (struct prism_ctrl_seg){
	    .opcode = PRISM_OP_RDMA_WRITE_IMM,
	    .wqe_index = 0,
	    .qpn = QPN_CLIENT,
	    .fm_ce_se = PRISM_FM_CE_SE(PRISM_FENCE_NONE, PRISM_CE_CQ_UPDATE, 0),
	    .imm = 0x600d};
	resp.w.raddr = (struct prism_raddr_seg){.raddr = CLIENT_BUF, .rkey = RKEY_CLIENT};
	resp.w.num_sge = 1;
	resp.w.sge[0] = (struct prism_sge){.byte_count = VALUE_LEN, .lkey = 0x400d, .addr = 0};
	if (show(&resp))
		return 1;
	write_ctrl = resp.w.ctrl;
	/* ...then posted as a NOP that keeps its DS and carries the bucket key in QPN. */
	nop_ctrl = write_ctrl;
	nop_ctrl.opcode = PRISM_OP_NOP;
	nop_ctrl.qpn = 0; /* the READ scatters the bucket's key here */
	prism_ctrl_seg_pack(&nop_ctrl, resp.bytes);

	wait_recv.w.ctrl =
	    (struct prism_ctrl_seg){.opcode = PRISM_OP_CQE_WAIT, .wqe_index = 0, .qpn = QPN_WORKER};
	wait_recv.w.wait_en = (struct prism_wait_en_seg){.index = 1, .obj_num = CQN_CLIENT};

	en_worker.w.ctrl = (struct prism_ctrl_seg){
	    .opcode = PRISM_OP_SEND_ENABLE, .wqe_index = 1, .qpn = QPN_WORKER};
	en_worker.w.wait_en = (struct prism_wait_en_seg){.index = 4, .obj_num = QPN_WORKER};

	read.w.ctrl = (struct prism_ctrl_seg){
	    .opcode = PRISM_OP_RDMA_READ, .wqe_index = 2, .qpn = QPN_WORKER};
	read.w.raddr = (struct prism_raddr_seg){.raddr = 0, .rkey = RKEY_TABLE}; /* RECV fills */
	read.w.num_sge = 2;
	read.w.sge[0] =
	    (struct prism_sge){.byte_count = 3,
	                       .lkey = LKEY_CODE,
	                       .addr = field_addr(&resp, C_SQ_ADDR, PRISM_FIELD_CTRL_QPN, &len)};
	read.w.sge[1] =
	    (struct prism_sge){.byte_count = 8,
	                       .lkey = LKEY_CODE,
	                       .addr = field_addr(&resp, C_SQ_ADDR, PRISM_FIELD_SGE0_ADDR, &len)};

	cas.w.ctrl = (struct prism_ctrl_seg){
	    .opcode = PRISM_OP_ATOMIC_CS,
	    .wqe_index = 3,
	    .qpn = QPN_WORKER,
	    .fm_ce_se = PRISM_FM_CE_SE(PRISM_FENCE_SMALL_AND_FENCE, PRISM_CE_CQ_UPDATE, 0)};
	cas.w.raddr = (struct prism_raddr_seg){
	    .raddr = field_addr(&resp, C_SQ_ADDR, PRISM_FIELD_CTRL_WORD0, &len), .rkey = RKEY_CODE};
	cas.w.atomic = (struct prism_atomic_seg){
	    .size = 8, .swap = ctrl_word(&write_ctrl), .compare = ctrl_word(&nop_ctrl)};
	cas.w.num_sge = 1;
	cas.w.sge[0] =
	    (struct prism_sge){.byte_count = 8, .lkey = LKEY_CODE, .addr = 0x7f0000030000};

	wait_cas.w.ctrl =
	    (struct prism_ctrl_seg){.opcode = PRISM_OP_CQE_WAIT, .wqe_index = 4, .qpn = QPN_WORKER};
	wait_cas.w.wait_en = (struct prism_wait_en_seg){.index = 1, .obj_num = CQN_WORKER};

	en_client.w.ctrl = (struct prism_ctrl_seg){
	    .opcode = PRISM_OP_SEND_ENABLE, .wqe_index = 5, .qpn = QPN_WORKER};
	en_client.w.wait_en = (struct prism_wait_en_seg){.index = 1, .obj_num = QPN_CLIENT};

	if (show(&wait_recv) || show(&en_worker) || show(&read) || show(&cas) || show(&wait_cas) ||
	    show(&en_client))
		return 1;

	/* The RECV on C: the client's 11-byte SEND lands inside the chain. */
	recv_sge[0] = (struct prism_sge){
	    .byte_count = 3,
	    .lkey = LKEY_CODE,
	    .addr = field_addr(&cas, W_SQ_ADDR, PRISM_FIELD_ATOMIC_COMPARE, &len) + 1};
	recv_sge[1] =
	    (struct prism_sge){.byte_count = 8,
	                       .lkey = LKEY_CODE,
	                       .addr = field_addr(&read, W_SQ_ADDR, PRISM_FIELD_RADDR, &len)};
	rc = prism_rwqe_encode(recv_sge, 2, rwqe, 4, &diag);
	if (rc < 0)
		return fail("RECV", rc, &diag);
	rc = prism_rwqe_decode(rwqe, 4, back_sge, 2, &diag);
	if (rc != 2)
		return fail("RECV decode", rc < 0 ? rc : PRISM_WQE_E_SGE_COUNT, &diag);
	printf("C.rq[0]  RECV: scatter the client's SEND into the chain\n");
	for (int i = 0; i < rc; i++)
		printf("    rsge[%d] 0x%" PRIx64 "+%u lkey=0x%x\n", i, back_sge[i].addr,
		       back_sge[i].byte_count, back_sge[i].lkey);
	printf("    (3 key bytes -> W[3] compare bytes 1-3: the compare operand is the\n"
	       "     response's control bytes 0-7 as a host-order integer, so its QPN bytes\n"
	       "     sit there in reverse order; 8 bytes -> W[2] remote address, big-endian)\n\n");

	{
		struct prism_wqe posted;
		char line[1024];

		rc = prism_wqe_decode(resp.bytes, (size_t)resp.len, &posted, &diag);
		if (rc < 0)
			return fail("posted response", rc, &diag);
		prism_wqe_snprint(line, sizeof(line), &posted, resp.bytes, (size_t)resp.len,
		                  PRISM_PRINT_RAW);
		printf("C[0] as posted (a NOP of the WRITE_IMM's size; keys not yet filled):\n"
		       "    %s\n",
		       line);
	}
	printf("\nCAS W[3]: compare 0x%016" PRIx64 " (NOP, key in QPN, ds=%u)\n"
	       "          swap    0x%016" PRIx64 " (WRITE_IMM, QPN 0x%06x, ds=%u)\n",
	       cas.w.atomic.compare, nop_ctrl.ds, cas.w.atomic.swap, write_ctrl.qpn, write_ctrl.ds);
	printf("\nprism-wqe-demo: %d WQEs and 1 receive WQE encoded, decoded and compared: OK\n",
	       7);
	return 0;
}
