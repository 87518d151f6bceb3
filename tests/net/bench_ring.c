/* SPDX-License-Identifier: MIT */
/*
 * bench_ring.c - round trips per second between two processes (fork) over
 * a shared-memory ring pair (net_ring.h) and, in the same run, over a
 * loopback TCP connection (TCP_NODELAY), with the same record: a 12-byte
 * record header and a 76-byte packet (BTH + 64 bytes).
 *
 * Ring modes: "sleep" (a side with nothing to read sets its flag and
 * sleeps on its eventfd, as a transport thread would) and "spin" (it polls
 * the ring, never sleeping).  Prints the median of RUNS runs of ITERS round
 * trips each and the ratio to TCP.  Figures only; never fails on speed.
 * Usage: bench_ring [iterations] [runs]
 *
 * Owns: this measurement.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/net_frame.h"
#include "net/net_ring.h"
#include "tests/support/bench_stats.h"

#define PKT  76u
#define REC  (NET_RECORD_HDR_BYTES + PKT)
#define RBUF 4096u

static uint8_t rec[REC];

/* The next record, sleeping or spinning while none has arrived whole. */
static int ring_take(struct net_ring *r, bool sleep, uint8_t *buf)
{
	size_t got = 0;

	while (got < REC) {
		int n = net_ring_read(r, buf + got, REC - got);

		if (n < 0 || (n == 0 && sleep && net_ring_wait(r, 5000000) < 0))
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/* The ring holds many records: a ping-pong write is never short. */
static int ring_put(struct net_ring *r)
{
	return net_ring_write(r, rec, REC) == (int)REC ? 0 : -1;
}

static int full_io(int fd, void *buf, size_t len, bool out)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = out ? write(fd, (uint8_t *)buf + done, len - done)
		                : read(fd, (uint8_t *)buf + done, len - done);

		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

/* Child: echo @iters records per run over the ring, then over TCP. */
static int echo(struct net_ring *r, int lfd, unsigned iters, unsigned runs)
{
	uint8_t buf[RBUF];

	for (unsigned run = 0; run < runs; run++) {
		for (unsigned mode = 0; mode < 2; mode++)
			for (unsigned i = 0; i < iters; i++)
				if (ring_take(r, mode == 0, buf) || ring_put(r))
					return 1;
		int s = accept(lfd, NULL, NULL), one = 1;

		if (s < 0)
			return 2;
		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		for (unsigned i = 0; i < iters; i++)
			if (full_io(s, buf, REC, false) || full_io(s, buf, REC, true))
				return 3;
		close(s);
	}
	return 0;
}

static double ring_run(struct net_ring *r, bool sleep, unsigned iters)
{
	uint8_t buf[RBUF];
	double t0 = bench_now();

	for (unsigned i = 0; i < iters; i++)
		if (ring_put(r) || ring_take(r, sleep, buf))
			bench_die("ring round trip", -1);
	return iters / (bench_now() - t0);
}

static double tcp_run(int port, unsigned iters)
{
	struct sockaddr_in sa = {.sin_family = AF_INET,
	                         .sin_port = htons((uint16_t)port),
	                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	uint8_t buf[REC];
	int c = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	double t0;

	if (c < 0 || connect(c, (struct sockaddr *)&sa, sizeof(sa)))
		bench_die("connect", -1);
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	t0 = bench_now();
	for (unsigned i = 0; i < iters; i++)
		if (full_io(c, rec, REC, true) || full_io(c, buf, REC, false))
			bench_die("tcp round trip", -1);
	t0 = iters / (bench_now() - t0);
	close(c);
	return t0;
}

int main(int argc, char **argv)
{
	unsigned iters = argc > 1 ? (unsigned)atoi(argv[1]) : 20000;
	unsigned runs = argc > 2 ? (unsigned)atoi(argv[2]) : 3;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t slen = sizeof(sa);
	double sl[16], sp[16], tcp[16];
	struct diag_report d = {0};
	struct net_ring *r;
	int sv[2], lfd, status;
	pid_t pid;

	if (!iters || !runs || runs > 16) {
		fprintf(stderr, "usage: bench_ring [iterations] [runs <= 16]\n");
		return 2;
	}
	memcpy(rec, &(uint32_t){htonl(PKT)}, 4);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 4) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &slen))
		bench_die("listen", -1);
	BENCH_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	pid = fork();
	if (pid < 0)
		bench_die("fork", -1);
	if (pid == 0) {
		close(sv[0]);
		if (net_ring_recv(sv[1], 1u << 16, 5000, &r, &d))
			_exit(9);
		_exit(echo(r, lfd, iters, runs));
	}
	close(sv[1]);
	BENCH_CHECK(net_ring_create(sv[0], 1u << 16, &r, &d));
	BENCH_CHECK(net_ring_send(r, &d));
	for (unsigned run = 0; run < runs; run++) {
		sl[run] = ring_run(r, true, iters);
		sp[run] = ring_run(r, false, iters);
		tcp[run] = tcp_run(ntohs(sa.sin_port), iters);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		bench_die("echo process", -1);
	double t = bench_median(tcp, (int)runs), s = bench_median(sl, (int)runs),
	       p = bench_median(sp, (int)runs);
	printf("record=%u bytes, median of %u runs of %u round trips\n", REC, runs, iters);
	printf("tcp_loopback round_trips_per_s=%.0f\n", t);
	printf("ring_sleep   round_trips_per_s=%.0f ratio=%.2f\n", s, s / t);
	printf("ring_spin    round_trips_per_s=%.0f ratio=%.2f\n", p, p / t);
	net_ring_close(r);
	close(lfd);
	return 0;
}
