/* SPDX-License-Identifier: MIT */
/*
 * tests/security/raw_client.c - a client that speaks the transport
 * directly (raw_client.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/security/raw_client.h"

/* One receive per response slot: every WRITE_IMM of the server consumes
 * one (docs/chain-format.md, "Client protocol"). */
static int post_recvs(struct raw_client *c, unsigned n)
{
	int rc = 0;

	for (unsigned i = 0; i < n && !rc; i++)
		rc = np_post_recv(&c->q, RAW_DATA_OFF, 0);
	return rc;
}

int raw_connect(struct raw_client *c, struct np_dev *d, int port, const char *program)
{
	return raw_connect_recvs(c, d, port, program, RAW_SLOTS);
}

int raw_setup(struct raw_client *c, struct np_dev *d, int port, const char *program, int *fd)
{
	struct core_hello h = {.kind = CORE_HELLO_CONNECT};
	struct net_oob_params mine;
	uint8_t hello[256];
	size_t n;
	int rc;

	memset(c, 0, sizeof(*c));
	*fd = -1;
	rc = np_qp_open(&c->q, d, RAW_MEM);
	if (rc)
		return rc;
	c->q.psn = 0; /* the runtime's queues start at PSN 0 */
	snprintf(h.program, sizeof(h.program), "%s", program);
	h.node = d->dev ? sim_dev_node(d->dev) : 0; /* an RDMA NIC: its LID / GID (np_qp_params) */
	h.qpn = c->q.qpn;
	h.resp_addr = (uintptr_t)c->q.mem + RAW_RESP_OFF;
	h.resp_rkey = c->q.rkey;
	h.resp_slots = RAW_SLOTS;
	h.resp_stride = RAW_SLOT;
	n = core_hello_encode(&h, hello, sizeof(hello));
	np_qp_params(&c->q, &mine);
	mine.n_regions = 0;
	mine.blob = hello;
	mine.blob_len = (uint32_t)n;
	rc = net_connect("127.0.0.1", port, &mine, &c->peer, RAW_WAIT_MS, fd, NULL);
	if (rc)
		goto fail;
	c->oob_regions = c->peer.n_regions;
	rc = core_welcome_decode(c->peer.blob, c->peer.blob_len, &c->w);
	if (!rc)
		rc = c->w.status;
	if (rc) {
		close(*fd);
		*fd = -1;
		goto fail;
	}
	return 0;
fail:
	raw_close(c);
	return rc;
}

int raw_connect_recvs(struct raw_client *c, struct np_dev *d, int port, const char *program,
                      unsigned recvs)
{
	int fd, rc = raw_setup(c, d, port, program, &fd);

	if (rc)
		return rc;
	rc = np_qp_connect(&c->q, fd, &c->peer);
	if (!rc)
		rc = post_recvs(c, recvs);
	if (rc)
		raw_close(c);
	return rc;
}

int raw_inject(int fd, const struct net_pkt *pkt)
{
	uint8_t rec[NET_RECORD_HDR_BYTES + 4096];
	struct diag_report d;
	int n = net_record_encode(pkt, 0, rec, sizeof(rec), &d);

	if (n < 0)
		return n;
	return write(fd, rec, (size_t)n) == n ? 0 : -errno;
}

void raw_close(struct raw_client *c)
{
	net_oob_params_release(&c->peer);
	np_qp_close(&c->q);
	core_welcome_free(&c->w);
}

int raw_invoke(struct raw_client *c, const void *payload, uint32_t len)
{
	return raw_invoke_burst(c, payload, len, 1);
}

int raw_invoke_burst(struct raw_client *c, const void *payloads, uint32_t len, unsigned n)
{
	struct prism_cqe e;
	unsigned finals = 0;
	int rc;

	if (!n || n > RAW_SLOTS || (size_t)len * n > RAW_DATA_OFF - RAW_MSG_OFF)
		return -EINVAL;
	memcpy(c->q.mem + RAW_MSG_OFF, payloads, (size_t)len * n);
	for (unsigned i = 0; i < n; i++) {
		rc = np_post_send(&c->q, PRISM_OP_SEND, RAW_MSG_OFF + (size_t)i * len, len, 0);
		if (rc)
			return rc;
		c->sent++;
	}
	for (unsigned i = 0; i < n; i++) {
		if ((rc = np_wait(&c->q.scq, &e, RAW_WAIT_MS)))
			return rc;
		if (e.opcode != PRISM_CQE_REQ)
			return -EIO;
	}
	while (finals < n) { /* responses: each request's last carries the final immediate */
		if ((rc = np_wait(&c->q.rcq, &e, RAW_WAIT_MS)))
			return rc;
		if (e.opcode != PRISM_CQE_RESP_WR_IMM)
			return -EIO;
		if ((rc = post_recvs(c, 1)))
			return rc;
		finals += e.imm == c->w.final_imm;
	}
	return 0;
}

int raw_send(struct raw_client *c, uint8_t opcode, const void *payload, uint32_t len,
             struct prism_cqe *out)
{
	int rc;

	if (len > RAW_DATA_OFF - RAW_MSG_OFF)
		return -EINVAL;
	memcpy(c->q.mem + RAW_MSG_OFF, payload, len);
	rc = np_post_send(&c->q, opcode, RAW_MSG_OFF, len, 0x5a5a5a5au);
	if (rc)
		return rc;
	c->sent++;
	return np_wait(&c->q.scq, out, RAW_WAIT_MS);
}

static int finish(struct raw_client *c, struct prism_cqe *out)
{
	return np_wait(&c->q.scq, out, RAW_WAIT_MS);
}

int raw_read(struct raw_client *c, uint64_t raddr, uint32_t rkey, uint32_t len,
             struct prism_cqe *out)
{
	int rc = np_post_rdma(&c->q, PRISM_OP_RDMA_READ, raddr, rkey, RAW_DATA_OFF, len, 0);

	return rc ? rc : finish(c, out);
}

int raw_write(struct raw_client *c, uint64_t raddr, uint32_t rkey, const void *src, uint32_t len,
              struct prism_cqe *out)
{
	int rc;

	memcpy(c->q.mem + RAW_DATA_OFF, src, len);
	rc = np_post_rdma(&c->q, PRISM_OP_RDMA_WRITE, raddr, rkey, RAW_DATA_OFF, len, 0);
	return rc ? rc : finish(c, out);
}

int raw_cas(struct raw_client *c, uint64_t raddr, uint32_t rkey, uint64_t swap, uint64_t compare,
            struct prism_cqe *out)
{
	int rc =
	    np_post_atomic(&c->q, PRISM_OP_ATOMIC_CS, raddr, rkey, swap, compare, RAW_DATA_OFF);

	return rc ? rc : finish(c, out);
}
