/* SPDX-License-Identifier: MIT */
/*
 * bench_net.c - round trips per second between two software NICs in two
 * processes (fork) over loopback TCP: SEND/RECV ping-pong and READ, each
 * next to a plain TCP ping-pong of the same message size between the same
 * two processes, measured in the same run.
 *
 * Prints, per size, the median of RUNS runs of ITERS round trips each and
 * the ratio to the TCP baseline.  Figures only; never fails on speed.
 * Usage: bench_net [iterations] [runs]
 *
 * Owns: this measurement.  The server process answers SENDs from its own
 * CPU loop (as perftest's send_lat does); READs need no server CPU.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/net/net_peer.h"
#include "tests/support/bench_stats.h"

#define RUNS_DEFAULT  5
#define ITERS_DEFAULT 2000
#define MEM           (1u << 20)
#define WAIT_MS       10000

static const uint32_t sizes[] = {64, 4096};

enum cmd { CMD_TCP = 'T', CMD_SEND = 'S', CMD_QUIT = 'Q' };

static int full_io(int fd, void *buf, size_t len, bool wr)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = wr ? write(fd, (char *)buf + off, len - off)
		               : read(fd, (char *)buf + off, len - off);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			return -1;
		}
		off += (size_t)n;
	}
	return 0;
}

static int tcp_pair(int lfd, int port, int *cfd, int *sfd)
{
	struct sockaddr_in sa = {.sin_family = AF_INET,
	                         .sin_port = htons((uint16_t)port),
	                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int one = 1;

	if (cfd) {
		*cfd = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(*cfd, (struct sockaddr *)&sa, sizeof(sa)))
			return -1;
		setsockopt(*cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	if (sfd) {
		*sfd = accept(lfd, NULL, NULL);
		if (*sfd < 0)
			return -1;
		setsockopt(*sfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	return 0;
}

/* ---- server process ---------------------------------------------------- */

static int serve_send(struct np_qp *q, uint32_t size, unsigned iters)
{
	struct prism_cqe e;

	for (unsigned i = 0; i < iters; i++) {
		if (np_wait(&q->rcq, &e, WAIT_MS) || e.opcode != PRISM_CQE_RESP_SEND)
			return -1;
		if (np_post_recv(q, 0, 65536) || np_post_send(q, PRISM_OP_SEND, 0, size, 0))
			return -1;
		if (np_wait(&q->scq, &e, WAIT_MS) || e.opcode != PRISM_CQE_REQ)
			return -1;
	}
	return 0;
}

static int server_main(int ctl, struct net_listener *l, int tcp_lfd, unsigned iters)
{
	struct np_dev d;
	struct np_qp q;
	bool primed = false;
	char cmd;
	uint32_t size;
	int rc = 0;

	if (np_dev_open(&d, 1) || np_qp_open(&q, &d, MEM) || np_qp_answer(&q, l))
		return 2;
	while (!rc && full_io(ctl, &cmd, 1, false) == 0 && cmd != CMD_QUIT) {
		if (full_io(ctl, &size, sizeof(size), false))
			return 3;
		if (cmd == CMD_TCP) {
			static char buf[65536];
			int s;

			if (tcp_pair(tcp_lfd, 0, NULL, &s))
				return 4;
			for (unsigned i = 0; i < iters && !rc; i++)
				rc = full_io(s, buf, size, false) || full_io(s, buf, size, true);
			close(s);
		} else if (cmd == CMD_SEND) {
			/* 16 receives stay posted ahead; each reply reposts one */
			for (unsigned i = 0; !primed && i < 16 && !rc; i++)
				rc = np_post_recv(&q, 0, 65536);
			primed = true;
			if (!rc && full_io(ctl, &cmd, 1, true) == 0)
				rc = serve_send(&q, size, iters);
		}
		if (!rc)
			rc = full_io(ctl, &cmd, 1, true); /* run done */
	}
	np_qp_close(&q);
	np_dev_close(&d);
	return rc ? 5 : 0;
}

/* ---- client process ---------------------------------------------------- */

static double run_tcp(int ctl, int port, uint32_t size, unsigned iters)
{
	static char buf[65536];
	char cmd = CMD_TCP, ack;
	double t0, t;
	int c;

	if (full_io(ctl, &cmd, 1, true) || full_io(ctl, &size, sizeof(size), true) ||
	    tcp_pair(-1, port, &c, NULL))
		return -1;
	t0 = bench_now();
	for (unsigned i = 0; i < iters; i++)
		if (full_io(c, buf, size, true) || full_io(c, buf, size, false))
			return -1;
	t = bench_now() - t0;
	close(c);
	if (full_io(ctl, &ack, 1, false))
		return -1;
	return iters / t;
}

static double run_send(int ctl, struct np_qp *q, uint32_t size, unsigned iters)
{
	static bool primed;
	char cmd = CMD_SEND, ack;
	struct prism_cqe e;
	double t0, t;

	if (full_io(ctl, &cmd, 1, true) || full_io(ctl, &size, sizeof(size), true))
		return -1;
	for (unsigned i = 0; !primed && i < 16; i++)
		if (np_post_recv(q, 0, 65536))
			return -1;
	primed = true;
	if (full_io(ctl, &ack, 1, false)) /* server's receives are posted */
		return -1;
	t0 = bench_now();
	for (unsigned i = 0; i < iters; i++) {
		if (np_post_send(q, PRISM_OP_SEND, 0, size, 0) || np_wait(&q->scq, &e, WAIT_MS) ||
		    e.opcode != PRISM_CQE_REQ || np_wait(&q->rcq, &e, WAIT_MS) ||
		    e.opcode != PRISM_CQE_RESP_SEND || np_post_recv(q, 0, 65536))
			return -1;
	}
	t = bench_now() - t0;
	if (full_io(ctl, &ack, 1, false))
		return -1;
	return iters / t;
}

static double run_read(struct np_qp *q, uint32_t size, unsigned iters)
{
	struct prism_cqe e;
	double t0 = bench_now();

	for (unsigned i = 0; i < iters; i++)
		if (np_post_rdma(q, PRISM_OP_RDMA_READ, q->peer.regions[0].addr,
		                 q->peer.regions[0].rkey, 0, size, 0) ||
		    np_wait(&q->scq, &e, WAIT_MS) || e.opcode != PRISM_CQE_REQ)
			return -1;
	return iters / (bench_now() - t0);
}

static int client_main(int ctl, int port, int tcp_port, unsigned iters, int runs)
{
	struct np_dev d;
	struct np_qp q;
	char quit = CMD_QUIT;

	if (np_dev_open(&d, 2) || np_qp_open(&q, &d, MEM) || np_qp_dial(&q, "127.0.0.1", port))
		return 2;
	printf("bench_net: two processes, a sim NIC each, IB RC packets over loopback TCP\n");
	printf("  %u round trips per run, median of %d runs\n", iters, runs);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		double tcp[32], snd[32], rd[32], mt, ms, mr;
		uint32_t size = sizes[k];

		for (int r = 0; r < runs; r++) {
			tcp[r] = run_tcp(ctl, tcp_port, size, iters);
			snd[r] = run_send(ctl, &q, size, iters);
			rd[r] = run_read(&q, size, iters);
			if (tcp[r] <= 0 || snd[r] <= 0 || rd[r] <= 0) {
				fprintf(stderr, "bench_net: run %d of size %u failed\n", r, size);
				return 3;
			}
		}
		mt = bench_median(tcp, runs);
		ms = bench_median(snd, runs);
		mr = bench_median(rd, runs);
		printf("  %5u B  plain TCP ping-pong  %9.0f RT/s  (%6.1f us)\n", size, mt,
		       1e6 / mt);
		printf("  %5u B  SEND/RECV ping-pong  %9.0f RT/s  (%6.1f us)  x%.2f of TCP\n", size,
		       ms, 1e6 / ms, ms / mt);
		printf("  %5u B  READ                 %9.0f RT/s  (%6.1f us)  x%.2f of TCP\n", size,
		       mr, 1e6 / mr, mr / mt);
	}
	full_io(ctl, &quit, 1, true);
	np_qp_close(&q);
	np_dev_close(&d);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned iters = argc > 1 ? (unsigned)atoi(argv[1]) : ITERS_DEFAULT;
	int runs = argc > 2 ? atoi(argv[2]) : RUNS_DEFAULT;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sa);
	struct net_listener *l;
	int ctl[2], tcp_lfd, status, rc;
	pid_t pid;

	if (!iters || runs < 1 || runs > 32) {
		fprintf(stderr, "usage: bench_net [iterations] [runs (1-32)]\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (net_listen("127.0.0.1", NET_PORT_EPHEMERAL, &l, NULL) ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, ctl))
		return 1;
	tcp_lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (tcp_lfd < 0 || bind(tcp_lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(tcp_lfd, 4) || getsockname(tcp_lfd, (struct sockaddr *)&sa, &sl))
		return 1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(ctl[0]);
		_exit(server_main(ctl[1], l, tcp_lfd, iters));
	}
	close(ctl[1]);
	rc = client_main(ctl[0], net_listener_port(l), ntohs(sa.sin_port), iters, runs);
	close(ctl[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		rc = rc ? rc : 4;
	net_listener_close(l);
	close(tcp_lfd);
	return rc;
}
