/* SPDX-License-Identifier: MIT */
/*
 * net_peer_tool.c - prism-net-peer: one end of a sim-NIC connection over the
 * network, for multi-host tests (tests/net/netns.sh runs it in two network
 * namespaces joined by a veth pair).
 *
 *   prism-net-peer serve [--host ADDR] [--port N] [--clients N]
 *       Listen (default port 18515), accept N clients one QP each, echo every
 *       SEND back with a SEND, expose a 1 MiB buffer filled with a known
 *       pattern for READ/CAS; exit 0 once all N clients came and went.
 *   prism-net-peer ping --host ADDR [--port N] [--count N] [--vanish-after K]
 *       Connect, do N SEND/RECV round trips checking the echoed bytes, READ
 *       the server's pattern, CAS and FETCH_ADD a word; exit 0 when all
 *       matched.  --vanish-after K: exit abruptly after K round trips.
 *
 * Exit codes: 0 ok, 1 a check failed, 2 usage, 3 setup failed.
 * Owns: this tool.  Must not: be part of the library.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/net/net_peer.h"

#define MEM         (1u << 20)
#define WAIT_MS     10000
#define MAX_CLIENTS 16

static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 7 + (i >> 8) + 1);
}

static void usage(void)
{
	fprintf(stderr, "usage: prism-net-peer serve [--host ADDR] [--port N] [--clients N]\n"
	                "       prism-net-peer ping --host ADDR [--port N] [--count N] "
	                "[--vanish-after K]\n");
}

/* ---- serve ------------------------------------------------------------- */

struct conn {
	struct np_qp q;
	bool live;
	int id;
};

static int accept_one(struct np_dev *d, struct net_listener *l, struct conn *c, int id)
{
	int rc;

	if (np_qp_open(&c->q, d, MEM))
		return -ENOMEM;
	for (size_t i = 0; i < MEM; i++)
		c->q.mem[i] = pattern(i);
	rc = np_qp_answer(&c->q, l);
	for (int i = 0; !rc && i < 64; i++)
		rc = np_post_recv(&c->q, 0, 4096);
	if (rc) {
		np_qp_close(&c->q);
		return rc;
	}
	c->live = true;
	c->id = id;
	printf("serve: client %d connected (peer node %u QP 0x%06x)\n", id, c->q.peer.node,
	       c->q.peer.qpn);
	fflush(stdout);
	return 0;
}

/* Echo what arrived; 1 when the connection ended. */
static int pump(struct conn *c)
{
	struct prism_cqe e;

	while (np_poll(&c->q.rcq, &e) == 1) {
		if (e.opcode != PRISM_CQE_RESP_SEND)
			return 1;
		/* echo from the receive buffer (offset 0), then repost */
		if (np_post_send(&c->q, PRISM_OP_SEND, 0, e.byte_count, 0) ||
		    np_post_recv(&c->q, 0, 4096))
			return 1;
	}
	while (np_poll(&c->q.scq, &e) == 1)
		if (e.opcode != PRISM_CQE_REQ)
			return 1;
	return __atomic_load_n(&c->q.down_err, __ATOMIC_ACQUIRE) != 0;
}

static int serve(const char *host, int port, int clients)
{
	struct conn conns[MAX_CLIENTS];
	struct net_listener *l;
	struct diag_report diag;
	struct np_dev d;
	int seen = 0, live = 0;

	memset(conns, 0, sizeof(conns));
	if (np_dev_open(&d, 1))
		return 3;
	if (net_listen(host, port, &l, &diag)) {
		fprintf(stderr, "serve: %s\n", diag.msg);
		return 3;
	}
	printf("serve: listening on %s:%d\n", host ? host : "*", net_listener_port(l));
	fflush(stdout);
	while (seen < clients || live) {
		struct pollfd pfd = {.fd = net_listener_fd(l), .events = POLLIN};

		if (seen < clients && poll(&pfd, 1, 0) == 1) {
			if (accept_one(&d, l, &conns[seen], seen) == 0) {
				seen++;
				live++;
			}
		}
		for (int i = 0; i < seen; i++) {
			if (!conns[i].live || !pump(&conns[i]))
				continue;
			printf("serve: client %d gone: %s (QP %s)\n", i,
			       conns[i].q.down_why[0] ? conns[i].q.down_why : "error completion",
			       sim_qp_state_name(sim_qp_state(conns[i].q.qp)));
			fflush(stdout);
			conns[i].live = false;
			np_qp_close(&conns[i].q);
			live--;
		}
		usleep(20);
	}
	net_listener_close(l);
	np_dev_close(&d);
	printf("serve: done, %d clients\n", seen);
	return 0;
}

/* ---- ping -------------------------------------------------------------- */

static int check(bool ok, const char *what)
{
	if (!ok)
		fprintf(stderr, "ping: %s\n", what);
	return ok ? 0 : 1;
}

static int ping(const char *host, int port, int count, int vanish_after)
{
	struct np_dev d;
	struct np_qp q;
	struct prism_cqe e;
	uint64_t raddr, v;
	uint32_t rkey;
	int rc;

	if (np_dev_open(&d, 2) || np_qp_open(&q, &d, MEM))
		return 3;
	rc = np_qp_dial(&q, host, port);
	for (int i = 0; !rc && i < 64; i++)
		rc = np_post_recv(&q, 8192, 4096);
	if (rc) {
		fprintf(stderr, "ping: connect %s:%d: %s\n", host, port, strerror(-rc));
		return 3;
	}
	raddr = q.peer.regions[0].addr;
	rkey = q.peer.regions[0].rkey;
	for (int i = 0; i < count; i++) {
		uint32_t len = 1 + (uint32_t)(i * 37) % 4000;

		if (i == vanish_after) {
			printf("ping: vanishing after %d round trips\n", i);
			fflush(stdout);
			_exit(0);
		}
		for (uint32_t k = 0; k < len; k++)
			q.mem[k] = (uint8_t)(i + k);
		if (np_post_send(&q, PRISM_OP_SEND, 0, len, 0) || np_wait(&q.scq, &e, WAIT_MS) ||
		    check(e.opcode == PRISM_CQE_REQ, "send failed") ||
		    np_wait(&q.rcq, &e, WAIT_MS) ||
		    check(e.opcode == PRISM_CQE_RESP_SEND && e.byte_count == len, "no echo") ||
		    check(memcmp(q.mem + 8192, q.mem, len) == 0, "echo differs") ||
		    np_post_recv(&q, 8192, 4096))
			return 1;
	}
	/* READ the server's pattern (it was overwritten by echoes only at 0..4095) */
	if (np_post_rdma(&q, PRISM_OP_RDMA_READ, raddr + 65536, rkey, 16384, 65536, 0) ||
	    np_wait(&q.scq, &e, WAIT_MS) || check(e.opcode == PRISM_CQE_REQ, "read failed"))
		return 1;
	for (size_t k = 0; k < 65536; k++)
		if (check(q.mem[16384 + k] == pattern(65536 + k), "read data differs"))
			return 1;
	memcpy(&v, q.mem + 16384, 8);
	if (np_post_atomic(&q, PRISM_OP_ATOMIC_CS, raddr + 65536, rkey, 42, v, 0) ||
	    np_wait(&q.scq, &e, WAIT_MS) || check(e.opcode == PRISM_CQE_REQ, "cas failed") ||
	    np_post_atomic(&q, PRISM_OP_ATOMIC_FA, raddr + 65536, rkey, 8, 0, 8) ||
	    np_wait(&q.scq, &e, WAIT_MS) || check(e.opcode == PRISM_CQE_REQ, "fetch-add failed"))
		return 1;
	memcpy(&v, q.mem + 8, 8);
	if (check(v == 42, "fetch-add did not see the CAS"))
		return 1;
	printf("ping: ok: %d round trips, READ 64 KiB, CAS, FETCH_ADD to %s\n", count, host);
	np_qp_close(&q);
	np_dev_close(&d);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"host", required_argument, NULL, 'h'},         {"port", required_argument, NULL, 'p'},
	    {"clients", required_argument, NULL, 'c'},      {"count", required_argument, NULL, 'n'},
	    {"vanish-after", required_argument, NULL, 'v'}, {NULL, 0, NULL, 0},
	};
	const char *host = NULL;
	int port = 0, clients = 1, count = 1000, vanish = -1, o;

	if (argc < 2) {
		usage();
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	optind = 2;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'h':
			host = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'c':
			clients = atoi(optarg);
			break;
		case 'n':
			count = atoi(optarg);
			break;
		case 'v':
			vanish = atoi(optarg);
			break;
		default:
			usage();
			return 2;
		}
	}
	if (!strcmp(argv[1], "serve") && clients > 0 && clients <= MAX_CLIENTS)
		return serve(host, port, clients);
	if (!strcmp(argv[1], "ping") && host && count > 0)
		return ping(host, port, count, vanish);
	usage();
	return 2;
}
