/* SPDX-License-Identifier: MIT */
/*
 * bench_vs_memcached.c - offloaded gets across processes against stock
 * memcached serving the same keys, measured in the same run (issue 16,
 * docs/benchmarks.md).
 *
 *   1. forks a prism server process serving the runtime tests' RedN-style
 *      hash get (tests/runtime/support/hashget_chain.c: 256 buckets, 24-bit
 *      keys, 64-byte values) on a free loopback port;
 *   2. starts /usr/bin/memcached on another free loopback port and stores
 *      the same 256 keys ("key:<hex>") with the same 64-byte values;
 *   3. for 1 and 16 connections, drives each server in turn with closed-loop
 *      clients, one thread per connection and one request in flight on it:
 *      prism_client__invoke() on a sim device of the thread's own, with the
 *      transport chosen automatically (a shared-memory ring pair for this
 *      local server) and again forced to TCP, and a text-protocol `get`
 *      over TCP with TCP_NODELAY;
 *   4. prints, per connection count, the medians over RUNS runs:
 *        connections=N prism_gets_per_s=X memcached_gets_per_s=Y ratio=X/Y
 *      (prism with the automatic choice), then p50/p99 latency of both, CPU
 *      microseconds per get of each server process (utime + stime deltas of
 *      /proc/<pid>/stat: for prism every thread of the server process, i.e.
 *      its NIC, transport and progress threads), of the prism server's
 *      application thread alone (/proc/<pid>/task/<pid>/stat: it only
 *      waits, so about 0) and of the clients (this process, whose only busy
 *      threads are the clients during a run); context switches per get of
 *      the same processes (every thread's, voluntary or not: a figure the
 *      machine's load moves less than CPU time); then the same for prism
 *      forced to TCP.
 *
 * Every answer of both servers is compared with the expected value; a wrong
 * answer is printed (the first few) and makes the program exit 1.  Without
 * /usr/bin/memcached it says so and exits 0 (nothing to compare against).
 *
 *   bench_vs_memcached [seconds-per-run [connections]]
 *       (default 2 s, 5 runs per count; both counts, or only the one given)
 *
 * Must not: hide a ratio below 1; it prints what it measured.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <prism/prism.h>

#include "chain/chainobj.h"
#include "tests/runtime/support/child_proc.h"
#include "tests/runtime/support/hashget_chain.h"
#include "tests/support/bench_stats.h"

#define MEMCACHED  "/usr/bin/memcached"
#define NB         256u
#define TABLE_SIZE (NB * (HG_BUCKET_BYTES + HG_VALUE_BYTES) + 4096u)
#define RUNS       5
#define MAX_CONNS  16
#define MAX_LAT    (1u << 17) /* latency samples kept per connection and run */
#define SHOW_WRONG 5

static uint32_t keys[NB];
static uint8_t expect[NB][HG_VALUE_BYTES]; /* the value each bucket's key maps to */
static char *yaml;
static size_t yaml_len;
static atomic_uint wrong;
static atomic_uint shown;

static void report_wrong(const char *who, uint32_t b, const char *what)
{
	atomic_fetch_add(&wrong, 1);
	if (atomic_fetch_add(&shown, 1) < SHOW_WRONG)
		fprintf(stderr, "bench_vs_memcached: wrong answer from %s for key %06x: %s\n", who,
		        keys[b], what);
}

/*
 * CPU time (utime + stime) in microseconds, or -1: of process @pid, or with
 * @main_only of its main thread alone (the prism server's application
 * thread, which only waits while the NIC threads serve).
 */
static double proc_cpu_us(pid_t pid, bool main_only)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	FILE *f;
	size_t n;

	if (main_only)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')'); /* the command name may hold spaces */
	/* after ") ": state(3) ... utime(14) stime(15) */
	if (!p ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) * 1e6 / (double)sysconf(_SC_CLK_TCK);
}

/* Context switches (voluntary and not) of every thread of process @pid so
 * far, or -1. */
static double proc_switches(pid_t pid)
{
	char path[64], line[128];
	struct dirent *e;
	double n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/status", (int)pid, e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			unsigned long long v;

			if (sscanf(line, "voluntary_ctxt_switches: %llu", &v) == 1 ||
			    sscanf(line, "nonvoluntary_ctxt_switches: %llu", &v) == 1)
				n += (double)v;
		}
		fclose(f);
	}
	closedir(d);
	return n;
}

/* Context switches of this process's threads so far, the finished ones too. */
static double self_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	return (double)ru.ru_nvcsw + (double)ru.ru_nivcsw;
}

static int free_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

static int tcp_connect(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
	                        .sin_port = htons((uint16_t)port),
	                        .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one))) {
		close(fd);
		return -1;
	}
	return fd;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n, len -= (size_t)n;
	}
	return 0;
}

/* ---- the two servers ------------------------------------------------------ */

/* The server's NIC threads: PRISM_BENCH_NIC_THREADS (1..4), else 4, as
 * many as memcached's default worker threads (-t 4), so that both servers
 * run as many threads: on a shared machine a process's CPU share follows
 * its runnable threads. */
static unsigned nic_threads(void)
{
	const char *e = getenv("PRISM_BENCH_NIC_THREADS");
	long n = e ? strtol(e, NULL, 10) : 4;

	return n < 1 ? 1u : n > 4 ? 4u : (unsigned)n;
}

/* The prism server process: fills its table, serves, reports its port. */
static pid_t start_prism(uint16_t *port)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = child_fork();
	if (pid == 0) {
		/* as many NIC threads as memcached runs workers */
		PRISM_OPTS(prism_device_opts, dopt, .nic_threads = nic_threads());
		struct prism_device *dev = prism_device__open("sim", &dopt);
		struct prism_region *table =
		    dev ? prism_device__create_region(dev, "table", TABLE_SIZE, NULL) : NULL;
		struct prism_program *prog = prism_program__open_mem(yaml, yaml_len, NULL);
		struct prism_server *srv;
		struct hg_table t;

		if (!table || !prog)
			_exit(1);
		t = (struct hg_table){prism_region__addr(table), TABLE_SIZE, NB};
		hg_fill(&t, keys, prism_region__nic_addr(table), 3);
		PRISM_OPTS(prism_server_opts, so, .host = "127.0.0.1", .port = PRISM_PORT_ANY);
		srv = prism_server__create(dev, &so);
		if (!srv || prism_program__load(prog, dev) ||
		    prism_server__add_program(srv, prog) || prism_server__start(srv))
			_exit(1);
		*port = prism_server__port(srv);
		if (write(p[1], port, sizeof(*port)) != sizeof(*port))
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid > 0 && read(p[0], port, sizeof(*port)) != sizeof(*port)) {
		child_kill(pid);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

static void mc_key(char *buf, size_t cap, uint32_t b)
{
	snprintf(buf, cap, "key:%06x", keys[b]);
}

/* Read one `get` answer for bucket @b; 0 right, 1 wrong, -1 connection lost. */
static int mc_read_answer(int fd, uint32_t b)
{
	char want[64], buf[256];
	size_t have = 0, need;
	int hl;

	mc_key(want, sizeof(want), b);
	hl = snprintf(buf, sizeof(buf), "VALUE %s 0 %u\r\n", want, HG_VALUE_BYTES);
	memcpy(want, buf, (size_t)hl + 1);
	need = (size_t)hl + HG_VALUE_BYTES + 7; /* value, "\r\nEND\r\n" */
	while (have < need) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		have += (size_t)n;
		/* a miss ("END") or an error line: no VALUE is coming */
		if (memcmp(buf, "VALUE ", have < 6 ? have : 6) && memchr(buf, '\n', have))
			break;
	}
	if (have != need || memcmp(buf, want, (size_t)hl) ||
	    memcmp(buf + hl, expect[b], HG_VALUE_BYTES) ||
	    memcmp(buf + hl + HG_VALUE_BYTES, "\r\nEND\r\n", 7))
		return 1;
	return 0;
}

static int mc_load(int port)
{
	int fd = tcp_connect(port);
	char line[128], ans[16];

	if (fd < 0)
		return -1;
	for (uint32_t b = 0; b < NB; b++) {
		char k[32];
		int n;

		mc_key(k, sizeof(k), b);
		n = snprintf(line, sizeof(line), "set %s 0 0 %u\r\n", k, HG_VALUE_BYTES);
		if (write_all(fd, line, (size_t)n) || write_all(fd, expect[b], HG_VALUE_BYTES) ||
		    write_all(fd, "\r\n", 2) || read(fd, ans, 8) != 8 ||
		    memcmp(ans, "STORED\r\n", 8))
			goto fail;
	}
	close(fd);
	return 0;
fail:
	close(fd);
	return -1;
}

static pid_t start_memcached(int *port)
{
	char ps[16];
	pid_t pid;

	*port = free_port();
	if (*port < 0)
		return -1;
	snprintf(ps, sizeof(ps), "%d", *port);
	pid = child_fork();
	if (pid == 0) {
		/* memcached refuses to run as root unless told which user to become. */
		execl(MEMCACHED, MEMCACHED, "-l", "127.0.0.1", "-p", ps, "-U", "0", "-m", "64",
		      geteuid() ? NULL : "-u", "nobody", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; pid > 0 && i < 200; i++) { /* up to 2 s to start listening */
		int fd = tcp_connect(*port);

		if (fd >= 0) {
			close(fd);
			return pid;
		}
		usleep(10000);
	}
	if (pid > 0)
		child_kill(pid);
	return -1;
}

/* ---- closed-loop clients -------------------------------------------------- */

struct conn {
	pthread_t th;
	int id;
	struct prism_device *dev; /* prism: the connection's own device */
	struct prism_client *cl;
	struct prism_client *cl_tcp; /* the same, forced to TCP */
	int fd;                      /* memcached */
	/* per run */
	atomic_bool *stop;
	uint64_t gets;
	uint32_t nlat;
	double *lat; /* microseconds */
	int failed;
};

static void record(struct conn *c, double t0)
{
	if (c->nlat < MAX_LAT)
		c->lat[c->nlat++] = (bench_now() - t0) * 1e6;
	c->gets++;
}

static void *prism_loop(void *arg)
{
	struct conn *c = arg;
	uint32_t b = (uint32_t)c->id * 17u;

	while (!atomic_load_explicit(c->stop, memory_order_relaxed)) {
		uint8_t out[HG_RESULT_BYTES];
		struct prism_arg args[2];
		struct prism_call call;
		double t0 = bench_now();

		b = (b + 1) % NB;
		hg_get_call(&call, args, keys[b], b, out);
		if (prism_client__invoke(c->cl, &call, NULL)) {
			fprintf(stderr, "bench_vs_memcached: prism get: %s\n",
			        prism_strerror(call.status));
			c->failed = 1;
			break;
		}
		record(c, t0);
		if (call.result_len < HG_VALUE_BYTES || memcmp(out, expect[b], HG_VALUE_BYTES))
			report_wrong("prism", b, "value differs");
	}
	return NULL;
}

/* The same gets on the connection forced to TCP. */
static void *prism_tcp_loop(void *arg)
{
	struct conn *c = arg, alt = *c;

	alt.cl = c->cl_tcp;
	prism_loop(&alt);
	c->gets = alt.gets, c->nlat = alt.nlat, c->failed = alt.failed;
	return NULL;
}

static void *mc_loop(void *arg)
{
	struct conn *c = arg;
	uint32_t b = (uint32_t)c->id * 17u;

	while (!atomic_load_explicit(c->stop, memory_order_relaxed)) {
		char req[48];
		double t0 = bench_now();
		int n, r;

		b = (b + 1) % NB;
		n = snprintf(req, sizeof(req), "get key:%06x\r\n", keys[b]);
		if (write_all(c->fd, req, (size_t)n) || (r = mc_read_answer(c->fd, b)) < 0) {
			fprintf(stderr, "bench_vs_memcached: memcached connection lost\n");
			c->failed = 1;
			break;
		}
		record(c, t0);
		if (r)
			report_wrong("memcached", b, "answer differs");
	}
	return NULL;
}

struct result {
	double rate, p50, p99;
	double cpu_per_get;        /* the whole server process */
	double main_cpu_per_get;   /* its main thread: prism's application thread */
	double client_cpu_per_get; /* this process: the client threads */
	double cs_per_get;         /* context switches of the server process */
	double client_cs_per_get;  /* and of the clients */
};

/* One run of @secs seconds on @n connections; the server is process @pid. */
static int run_once(struct conn *cs, int n, void *(*loop)(void *), pid_t pid, double secs,
                    struct result *r)
{
	static double all[MAX_CONNS * (size_t)MAX_LAT];
	atomic_bool stop = false;
	double t0, t1, c0, c1, m0, m1, s0, s1, w0, w1, x0, x1;
	uint64_t gets = 0;
	size_t nl = 0;
	int failed = 0;

	c0 = proc_cpu_us(pid, false);
	m0 = proc_cpu_us(pid, true);
	s0 = proc_cpu_us(getpid(), false);
	w0 = proc_switches(pid);
	x0 = self_switches();
	t0 = bench_now();
	for (int i = 0; i < n; i++) {
		cs[i].stop = &stop, cs[i].gets = 0, cs[i].nlat = 0, cs[i].failed = 0;
		if (pthread_create(&cs[i].th, NULL, loop, &cs[i]))
			return -1;
	}
	usleep((useconds_t)(secs * 1e6));
	atomic_store(&stop, true);
	for (int i = 0; i < n; i++)
		pthread_join(cs[i].th, NULL);
	t1 = bench_now();
	c1 = proc_cpu_us(pid, false);
	m1 = proc_cpu_us(pid, true);
	s1 = proc_cpu_us(getpid(), false);
	w1 = proc_switches(pid);
	x1 = self_switches();
	for (int i = 0; i < n; i++) {
		gets += cs[i].gets;
		failed |= cs[i].failed;
		memcpy(all + nl, cs[i].lat, cs[i].nlat * sizeof(double));
		nl += cs[i].nlat;
	}
	if (failed || !gets)
		return -1;
	qsort(all, nl, sizeof(double), bench_cmp_double);
	r->rate = (double)gets / (t1 - t0);
	r->p50 = all[nl / 2];
	r->p99 = all[nl * 99 / 100];
	r->cpu_per_get = (c1 - c0) / (double)gets;
	r->main_cpu_per_get = (m1 - m0) / (double)gets;
	r->client_cpu_per_get = (s1 - s0) / (double)gets;
	r->cs_per_get = (w1 - w0) / (double)gets;
	r->client_cs_per_get = (x1 - x0) / (double)gets;
	return 0;
}

static void med(struct result *runs, int n, struct result *m)
{
	double rate[RUNS], p50[RUNS], p99[RUNS], cpu[RUNS], main_cpu[RUNS], cli[RUNS], cs[RUNS],
	    ccs[RUNS];

	for (int i = 0; i < n; i++)
		rate[i] = runs[i].rate, p50[i] = runs[i].p50, p99[i] = runs[i].p99,
		cpu[i] = runs[i].cpu_per_get, main_cpu[i] = runs[i].main_cpu_per_get,
		cli[i] = runs[i].client_cpu_per_get, cs[i] = runs[i].cs_per_get,
		ccs[i] = runs[i].client_cs_per_get;
	*m = (struct result){bench_median(rate, n), bench_median(p50, n),      bench_median(p99, n),
	                     bench_median(cpu, n),  bench_median(main_cpu, n), bench_median(cli, n),
	                     bench_median(cs, n),   bench_median(ccs, n)};
}

static int compare(int n, pid_t ppid, uint16_t pport, pid_t mpid, int mport, double secs)
{
	struct conn p[MAX_CONNS] = {0}, m[MAX_CONNS] = {0};
	struct result pr[RUNS], tr[RUNS], mr[RUNS], pm, tm, mm;
	PRISM_OPTS(prism_client_opts, tcp, .transport = PRISM_TRANSPORT_TCP);
	const char *carrier = "?";
	char addr[32];
	int rc = -1;

	snprintf(addr, sizeof(addr), "127.0.0.1:%u", pport);
	for (int i = 0; i < n; i++) {
		p[i].id = m[i].id = i;
		p[i].lat = malloc(MAX_LAT * sizeof(double));
		m[i].lat = malloc(MAX_LAT * sizeof(double));
		p[i].dev = prism_device__open("sim", NULL);
		p[i].cl = p[i].dev ? prism_client__connect(p[i].dev, addr, NULL) : NULL;
		m[i].fd = tcp_connect(mport);
		if (!p[i].lat || !m[i].lat || !p[i].cl || m[i].fd < 0) {
			fprintf(stderr, "bench_vs_memcached: connection %d: setup failed\n", i);
			goto out;
		}
	}
	/* The server puts each connection on its least busy NIC thread: the
	 * TCP ones come after all the automatic ones, so that each kind is
	 * spread over every NIC thread (alternating, the automatic ones would
	 * all land on every other one). */
	for (int i = 0; i < n; i++) {
		p[i].cl_tcp = prism_client__connect(p[i].dev, addr, &tcp);
		if (!p[i].cl_tcp) {
			fprintf(stderr, "bench_vs_memcached: connection %d: TCP setup failed\n", i);
			goto out;
		}
	}
	switch (prism_client__transport(p[0].cl)) {
	case PRISM_TRANSPORT_SHM:
		carrier = "shm";
		break;
	case PRISM_TRANSPORT_TCP:
		carrier = "tcp";
		break;
	default:
		break;
	}
	/* interleaved, so that the machine's load moves all three alike */
	for (int r = 0; r < RUNS; r++)
		if (run_once(p, n, prism_loop, ppid, secs, &pr[r]) ||
		    run_once(m, n, mc_loop, mpid, secs, &mr[r]) ||
		    run_once(p, n, prism_tcp_loop, ppid, secs, &tr[r]))
			goto out;
	med(pr, RUNS, &pm);
	med(tr, RUNS, &tm);
	med(mr, RUNS, &mm);
	printf("connections=%d prism_gets_per_s=%.0f memcached_gets_per_s=%.0f ratio=%.3f\n", n,
	       pm.rate, mm.rate, pm.rate / mm.rate);
	printf("  prism_transport=%s\n", carrier);
	printf("  latency_us prism_p50=%.1f prism_p99=%.1f memcached_p50=%.1f memcached_p99=%.1f\n",
	       pm.p50, pm.p99, mm.p50, mm.p99);
	printf("  cpu_us_per_get prism_server_process=%.2f prism_server_app_thread=%.2f "
	       "prism_clients=%.2f memcached_process=%.2f memcached_clients=%.2f\n",
	       pm.cpu_per_get, pm.main_cpu_per_get, pm.client_cpu_per_get, mm.cpu_per_get,
	       mm.client_cpu_per_get);
	printf("  switches_per_get prism_server_process=%.2f prism_clients=%.2f "
	       "memcached_process=%.2f memcached_clients=%.2f\n",
	       pm.cs_per_get, pm.client_cs_per_get, mm.cs_per_get, mm.client_cs_per_get);
	printf("  tcp_forced prism_gets_per_s=%.0f ratio=%.3f prism_p50=%.1f prism_p99=%.1f "
	       "cpu_us_per_get prism_server_process=%.2f prism_clients=%.2f "
	       "switches_per_get prism_server_process=%.2f prism_clients=%.2f\n",
	       tm.rate, tm.rate / mm.rate, tm.p50, tm.p99, tm.cpu_per_get, tm.client_cpu_per_get,
	       tm.cs_per_get, tm.client_cs_per_get);
	fflush(stdout);
	rc = 0;
out:
	for (int i = 0; i < n; i++) {
		prism_client__close(p[i].cl);
		prism_client__close(p[i].cl_tcp);
		prism_device__close(p[i].dev);
		if (m[i].fd > 0)
			close(m[i].fd);
		free(p[i].lat);
		free(m[i].lat);
	}
	return rc;
}

int main(int argc, char **argv)
{
	static const int counts[] = {1, MAX_CONNS};
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	int only = argc > 2 ? atoi(argv[2]) : 0;
	struct chainobj *o;
	uint8_t *img;
	uint16_t pport = 0;
	pid_t ppid, mpid;
	uint64_t s = 42;
	int mport, rc = 0;

	prism_set_log_fn(prism_log_stderr, NULL, PRISM_LOG_ERROR);
	signal(SIGPIPE, SIG_IGN);
	if (secs <= 0 || secs > 60 || only < 0 || only > MAX_CONNS) {
		fprintf(stderr,
		        "usage: bench_vs_memcached [seconds-per-run (0..60] "
		        "[connections (1..%d)]]\n",
		        MAX_CONNS);
		return 2;
	}
	if (access(MEMCACHED, X_OK)) {
		printf("bench_vs_memcached: %s not installed (tools/deps.sh install); skipped\n",
		       MEMCACHED);
		return 0;
	}
	/* The same keys as bench_runtime; the expected values from a local image. */
	for (uint32_t i = 0; i < NB; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		keys[i] = (uint32_t)(s & 0xffffff) | 1;
	}
	img = malloc(TABLE_SIZE);
	o = hg_build(TABLE_SIZE);
	if (!img || !o || chainobj_write_mem(o, 0, &yaml, &yaml_len, NULL))
		return 1;
	chainobj_free(o);
	struct hg_table t = {img, TABLE_SIZE, NB};

	hg_fill(&t, keys, 0, 3);
	for (uint32_t b = 0; b < NB; b++)
		hg_reference(&t, b, keys[b], expect[b]);
	free(img);

	ppid = start_prism(&pport);
	mpid = start_memcached(&mport);
	if (ppid <= 0 || mpid <= 0 || mc_load(mport)) {
		fprintf(stderr, "bench_vs_memcached: could not start %s\n",
		        ppid <= 0 ? "the prism server" : "memcached");
		child_reap_all();
		return 1;
	}
	printf("bench_vs_memcached: 256 keys, 64-byte values, loopback, closed loop (one get in "
	       "flight per connection), median of %d runs of %.1f s; prism server with %u NIC "
	       "thread(s); prism over the automatic transport, then forced to TCP\n",
	       RUNS, secs, nic_threads());
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		if ((!only || only == counts[i] || (i == 0 && only != MAX_CONNS)) &&
		    compare(only ? only : counts[i], ppid, pport, mpid, mport, secs))
			rc = 1;
	if (atomic_load(&wrong)) {
		printf("wrong_answers=%u\n", atomic_load(&wrong));
		rc = 1;
	}
	child_reap_all();
	free(yaml);
	return rc;
}
