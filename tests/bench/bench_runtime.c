/* SPDX-License-Identifier: MIT */
/*
 * bench_runtime.c - runtime figures (docs/benchmarks.md, "Runtime"):
 *
 *   1. gets per second, in-process (embedded: client and server on one sim
 *      device) and across processes over TCP loopback; baseline in the same
 *      run: an empty round trip of the same client API (NOP-like program is
 *      not available, so the baseline is the in-process figure itself: the
 *      cross-process figure is reported as a ratio to it);
 *   2. memory per connection (queues, CQs, scratch of one program instance);
 *   3. 1,000 concurrent client connections on one server (all invoked);
 *   4. daemon mode: the server application's CPU time per offloaded get,
 *      from getrusage of the application process while prismd serves.
 *
 * Medians of 5 runs.  Uses the hand-built RedN hash get of the runtime tests
 * (no compiler needed), so the figure is the runtime's, not a chain's.
 */
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <prism/prism.h>

#include "chain/chainobj.h"
#include "tests/runtime/support/hashget_chain.h"
#include "tests/support/bench_stats.h"

#define NB         256u
#define TABLE_SIZE (NB * (HG_BUCKET_BYTES + HG_VALUE_BYTES) + 4096u)
#define RUNS       5

static uint32_t keys[NB];
static char *yaml;
static size_t yaml_len;

struct srv {
	struct prism_device *dev;
	struct prism_region *table;
	struct prism_program *prog;
	struct prism_server *srv;
};

static int srv_open(struct srv *s, int port, bool thread)
{
	struct hg_table t;

	s->dev = prism_device__open("sim", NULL);
	s->table = s->dev ? prism_device__create_region(s->dev, "table", TABLE_SIZE, NULL) : NULL;
	if (!s->table)
		return -1;
	t = (struct hg_table){prism_region__addr(s->table), TABLE_SIZE, NB};
	hg_fill(&t, keys, prism_region__nic_addr(s->table), 3);
	s->prog = prism_program__open_mem(yaml, yaml_len, NULL);
	PRISM_OPTS(prism_server_opts, so, .host = "127.0.0.1", .port = port);
	s->srv = s->prog ? prism_server__create(s->dev, &so) : NULL;
	if (!s->srv || prism_program__load(s->prog, s->dev) ||
	    prism_server__add_program(s->srv, s->prog))
		return -1;
	return thread ? prism_server__start(s->srv) : 0;
}

static void srv_close(struct srv *s)
{
	prism_server__destroy(s->srv);
	prism_program__close(s->prog);
	prism_device__close(s->dev);
}

static int one_get(struct prism_client *cl, uint32_t i)
{
	uint8_t out[HG_RESULT_BYTES];
	uint32_t b = i % NB;
	struct prism_arg args[2];
	struct prism_call c;

	hg_get_call(&c, args, keys[b] ? keys[b] : 1, b, out);
	return prism_client__invoke(cl, &c, NULL);
}

/* Gets per second with batches of 16 in flight on one connection. */
static double rate(struct prism_client *cl, int n)
{
	enum { B = 16 };
	uint8_t out[B][HG_RESULT_BYTES];
	struct prism_arg args[B][2];
	struct prism_call c[B];
	double t0 = bench_now();

	for (int i = 0; i < n; i += B) {
		for (int j = 0; j < B; j++) {
			uint32_t b = (uint32_t)(i + j) % NB;

			hg_get_call(&c[j], args[j], keys[b] ? keys[b] : 1, b, out[j]);
		}
		if (prism_client__invoke_batch(cl, c, B, NULL) != B)
			return 0;
	}
	return n / (bench_now() - t0);
}

static void bench_inprocess(void)
{
	double r[RUNS], rs[RUNS];
	struct srv s = {0};
	struct prism_client *cl;
	struct prism_server_stats st = {.sz = sizeof(st)};

	if (srv_open(&s, 0, false) || !(cl = prism_client__connect_local(s.srv, NULL))) {
		printf("in-process: setup failed\n");
		return;
	}
	for (int i = 0; i < RUNS; i++) {
		r[i] = rate(cl, 20000);
		double t0 = bench_now();

		for (int j = 0; j < 5000; j++)
			one_get(cl, (uint32_t)j);
		rs[i] = 5000 / (bench_now() - t0);
	}
	prism_server__stats(s.srv, &st);
	printf("gets/s in-process (embedded, one sim device): %.0f batched (16 in flight), "
	       "%.0f one at a time\n",
	       bench_median(r, RUNS), bench_median(rs, RUNS));
	printf("memory per connection (server side: QPs, CQs, scratch): %llu bytes\n",
	       (unsigned long long)st.bytes_per_conn);
	prism_client__close(cl);
	srv_close(&s);
}

static pid_t fork_server(uint16_t *port)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct srv s = {0};

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (srv_open(&s, PRISM_PORT_ANY, true))
			_exit(1);
		*port = prism_server__port(s.srv);
		if (write(p[1], port, sizeof(*port)) != sizeof(*port))
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], port, sizeof(*port)) != sizeof(*port))
		pid = -1;
	close(p[0]);
	return pid;
}

static void bench_tcp(void)
{
	double r[RUNS], rs[RUNS];
	uint16_t port;
	pid_t pid = fork_server(&port);
	char addr[32];
	struct prism_device *dev = prism_device__open("sim", NULL);
	struct prism_client *cl;
	int st;

	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	cl = pid > 0 && dev ? prism_client__connect(dev, addr, NULL) : NULL;
	if (!cl) {
		printf("across processes: setup failed\n");
	} else {
		for (int i = 0; i < RUNS; i++) {
			r[i] = rate(cl, 5000);
			double t0 = bench_now();

			for (int j = 0; j < 2000; j++)
				one_get(cl, (uint32_t)j);
			rs[i] = 2000 / (bench_now() - t0);
		}
		printf("gets/s across processes (TCP loopback): %.0f batched (16 in flight), "
		       "%.0f one at a time\n",
		       bench_median(r, RUNS), bench_median(rs, RUNS));
		prism_client__close(cl);
	}
	prism_device__close(dev);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
}

static void bench_many_connections(void)
{
	enum { N = 1000 };
	static struct prism_client *cls[N];
	struct srv s = {0};
	double t0;
	int ok = 0, n = 0;
	struct prism_server_stats st = {.sz = sizeof(st)};

	if (srv_open(&s, 0, false))
		return;
	t0 = bench_now();
	for (n = 0; n < N; n++)
		if (!(cls[n] = prism_client__connect_local(s.srv, NULL)))
			break;
	double t1 = bench_now();

	for (int i = 0; i < n; i++)
		ok += one_get(cls[i], (uint32_t)i) == 0;
	double t2 = bench_now();

	prism_server__stats(s.srv, &st);
	printf("concurrent connections on one server: %d connected (%.1f ms to connect all), "
	       "%d of them answered a get (%.1f ms for one get on each); server memory %.1f MiB\n",
	       n, (t1 - t0) * 1e3, ok, (t2 - t1) * 1e3,
	       (double)st.bytes_per_conn * (double)st.conns_active / (1 << 20));
	for (int i = 0; i < n; i++)
		prism_client__close(cls[i]);
	srv_close(&s);
}

/* ---- daemon mode: the application's CPU per offloaded get ---------------- */

static double tv_us(struct timeval t)
{
	return (double)t.tv_sec * 1e6 + (double)t.tv_usec;
}

static void bench_daemon(const char *prismd)
{
	char dir[] = "/tmp/prism-bench-XXXXXX", cfg[128], sock[128], chain[128], text[1024];
	int out[2], cmd[2], rep[2], st;
	uint16_t port = 0;
	pid_t d, app;
	FILE *f;

	if (!mkdtemp(dir))
		return;
	snprintf(cfg, sizeof(cfg), "%s/s.yaml", dir);
	snprintf(sock, sizeof(sock), "%s/ctl", dir);
	snprintf(chain, sizeof(chain), "%s/hg.chain", dir);
	f = fopen(chain, "w");
	if (!f || fwrite(yaml, 1, yaml_len, f) != yaml_len)
		return;
	fclose(f);
	int n = snprintf(text, sizeof(text),
	                 "listen: 127.0.0.1:0\ncontrol: %s\nregions:\n  - {name: table, size: %u, "
	                 "shared-by-app: true}\nprograms:\n  - %s\n",
	                 sock, TABLE_SIZE, chain);
	f = fopen(cfg, "w");
	if (!f || fwrite(text, 1, (size_t)n, f) != (size_t)n)
		return;
	fclose(f);
	if (pipe(out) || pipe(cmd) || pipe(rep))
		return;
	d = fork();
	if (d == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(out[1], 1);
		execl(prismd, prismd, "--config", cfg, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	f = fdopen(out[0], "r");
	while (f && fgets(text, sizeof(text), f))
		if (sscanf(text, "prismd: ready port=%hu", &port) == 1)
			break;
	app = fork();
	if (app == 0) {
		/* The application: shares its table, then only answers rusage requests. */
		struct prism_device *dev = prism_device__open("sim", NULL);
		struct prism_region *r =
		    dev ? prism_device__create_region(dev, "table", TABLE_SIZE, NULL) : NULL;
		struct prism_daemon *dm = r ? prism_daemon__attach(sock) : NULL;
		char c;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (!dm || prism_daemon__share_region(dm, r))
			_exit(1);
		struct hg_table t = {prism_region__addr(r), TABLE_SIZE, NB};

		hg_fill(&t, keys, prism_region__nic_addr(r), 3);
		while (read(cmd[0], &c, 1) == 1) {
			struct rusage ru;

			getrusage(RUSAGE_SELF, &ru);
			if (write(rep[1], &ru, sizeof(ru)) != sizeof(ru))
				_exit(2);
		}
		_exit(0);
	}
	struct rusage r0, r1;
	char c = 1, addr[32];
	struct prism_device *dev = prism_device__open("sim", NULL);
	struct prism_client *cl = NULL;
	int gets = 0;

	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	if (write(cmd[1], &c, 1) == 1 && read(rep[0], &r0, sizeof(r0)) == sizeof(r0) && dev)
		cl = prism_client__connect(dev, addr, NULL);
	if (cl) {
		for (int i = 0; i < 5000; i++)
			gets += one_get(cl, (uint32_t)i) == 0;
		if (write(cmd[1], &c, 1) == 1 && read(rep[0], &r1, sizeof(r1)) == sizeof(r1)) {
			double cpu = tv_us(r1.ru_utime) + tv_us(r1.ru_stime) - tv_us(r0.ru_utime) -
			             tv_us(r0.ru_stime);

			printf("daemon mode: %d gets served by prismd; the application's CPU time "
			       "(getrusage) during them: %.0f us total, %.4f us per get\n",
			       gets, cpu, gets ? cpu / gets : 0.0);
		}
		prism_client__close(cl);
	} else {
		printf("daemon mode: setup failed\n");
	}
	prism_device__close(dev);
	close(cmd[1]);
	kill(app, SIGKILL);
	waitpid(app, &st, 0);
	kill(d, SIGTERM);
	waitpid(d, &st, 0);
	if (f)
		fclose(f);
	snprintf(text, sizeof(text), "rm -rf %s", dir);
	if (system(text))
		return;
}

int main(int argc, char **argv)
{
	struct chainobj *o;
	uint64_t s = 42;

	prism_set_log_fn(prism_log_stderr, NULL, PRISM_LOG_ERROR);
	signal(SIGPIPE, SIG_IGN);
	for (uint32_t i = 0; i < NB; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		keys[i] = (uint32_t)(s & 0xffffff) | 1;
	}
	o = hg_build(TABLE_SIZE);
	if (!o || chainobj_write_mem(o, 0, &yaml, &yaml_len, NULL))
		return 1;
	chainobj_free(o);
	printf("bench_runtime: RedN-style hash get (9 WRs), median of %d runs\n", RUNS);
	bench_inprocess();
	bench_tcp();
	bench_many_connections();
	if (argc > 0) {
		char self[512], prismd[600];

		snprintf(self, sizeof(self), "%s", argv[0]);
		snprintf(prismd, sizeof(prismd), "%s/prismd", dirname(self));
		bench_daemon(prismd);
	}
	free(yaml);
	return 0;
}
