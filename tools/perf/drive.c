/* SPDX-License-Identifier: MIT */
/*
 * tools/perf/drive.c - prism-perf's client side (run with a host).
 *
 * Opens --connections connections to the server, each on a device of its
 * own and driven by a thread of its own in a closed loop: --depth
 * invocations issued back to back (prism_client__invoke_batch; one at a
 * time with prism_client__invoke when the depth is 1), then the next batch.
 * A latency sample is the time from issuing a batch to its last answer (with
 * depth 1: one invocation's round trip).  Runs for --duration seconds,
 * printing a progress line on stderr once a second on runs of 3 s or more,
 * then the report: t_min, p50, p99, p99.9, t_max, rate and bandwidth, as a
 * table or (--json) one JSON object.
 *
 * Must not: count an invocation that failed as done; any failure makes the
 * run exit 1.
 */
#include <jansson.h>
#include <math.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/hex.h"
#include "util/json_text.h"
#include "util/clock.h"
#include "tools/perf/perf.h"

struct conn {
	const struct perf_opts *o;
	const char *addr, *program, *entry;
	pthread_t th;
	unsigned id;
	atomic_bool *stop;
	atomic_ullong ops;
	atomic_ullong errors;
	double *lat; /* microseconds, at most cap samples */
	size_t nlat, cap;
	size_t result_bytes;            /* of the entry, as the server described it */
	enum prism_transport transport; /* what the connection got */
	char why[160];                  /* the first failure */
};
/* Seconds of the monotonic clock. */
static double now_s(void)
{
	return (double)util_now_ns() / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* "NAME=VALUE" for parameter @pi: integers in C syntax, byte strings in hex. */
static int parse_arg(const char *s, const struct prism_param_info *pi, struct prism_arg *a,
                     uint8_t *bytes)
{
	const char *v = s + strlen(pi->name) + 1;
	char *end;

	a->name = pi->name;
	if (pi->type != PRISM_TYPE_BYTES) {
		errno = 0;
		a->u64 = strtoull(v, &end, 0);
		return *v && !*end && !errno ? 0 : -1;
	}
	if (v[0] == '0' && (v[1] | 0x20) == 'x')
		v += 2;
	if (strlen(v) != 2 * (size_t)pi->size)
		return -1;
	if (hex_decode(v, pi->size, bytes))
		return -1;
	a->bytes = bytes, a->len = pi->size;
	return 0;
}

/*
 * The arguments of one invocation on @cl: the workload's own, or --arg for
 * get (every parameter must be given).  @bytes holds byte strings.
 */
static int make_args(struct conn *c, struct prism_client *cl, int e, struct prism_arg *args,
                     uint8_t *bytes, size_t *nargs)
{
	const struct perf_opts *o = c->o;
	int np = prism_client__param_count(cl, e);

	if (np < 0 || np > PERF_MAX_ARGS)
		return snprintf(c->why, sizeof(c->why), "entry %s: %d parameters", c->entry, np),
		       -1;
	*nargs = (size_t)np;
	for (int i = 0; i < np; i++) {
		struct prism_param_info pi;
		const char *given = NULL;

		if (prism_client__param(cl, e, i, &pi))
			return -1;
		if (o->workload != PERF_GET) {
			/* p: an offset inside buf; data: size bytes of a pattern */
			if (pi.type == PRISM_TYPE_BYTES && pi.size != o->size) {
				snprintf(c->why, sizeof(c->why),
				         "the server serves %s with %u-byte messages; give both "
				         "sides the same --size",
				         c->program, pi.size);
				return -1;
			}
			args[i] = (struct prism_arg){.name = pi.name, .u64 = 0};
			if (pi.type == PRISM_TYPE_BYTES) {
				memset(bytes, 0xa5, pi.size);
				args[i].bytes = bytes, args[i].len = pi.size;
				bytes += pi.size;
			}
			continue;
		}
		for (unsigned j = 0; j < o->nargs; j++)
			if (!strncmp(o->args[j], pi.name, strlen(pi.name)) &&
			    o->args[j][strlen(pi.name)] == '=')
				given = o->args[j];
		if (!given || parse_arg(given, &pi, &args[i], bytes)) {
			snprintf(c->why, sizeof(c->why), "entry %s: %s argument %s", c->entry,
			         given ? "bad" : "missing", pi.name);
			return -1;
		}
		bytes += pi.type == PRISM_TYPE_BYTES ? pi.size : 0;
	}
	return 0;
}

/* Bytes of every parameter of @e together (room for the byte strings). */
static size_t param_bytes(struct prism_client *cl, int e)
{
	size_t n = 1;

	for (int i = 0; i < prism_client__param_count(cl, e); i++) {
		struct prism_param_info pi;

		if (!prism_client__param(cl, e, i, &pi))
			n += pi.size;
	}
	return n;
}

static void *conn_loop(void *arg)
{
	struct conn *c = arg;
	const struct perf_opts *o = c->o;
	struct prism_device *dev = prism_device__open(o->device, NULL);
	struct prism_client *cl = NULL;
	struct prism_call calls[PERF_MAX_DEPTH];
	struct prism_arg args[PERF_MAX_ARGS], cargs[PERF_MAX_DEPTH][PERF_MAX_ARGS];
	uint8_t *bytes = NULL, *res = NULL;
	size_t nargs, rsz, off = 0, slots = perf_buf_size(o->size) / (o->size ? o->size : 1);
	int e = -1;

	PRISM_OPTS(prism_client_opts, co, .program = c->program, .transport = o->transport);
	if (dev)
		cl = prism_client__connect(dev, c->addr, &co);
	if (!cl) {
		snprintf(c->why, sizeof(c->why), "connect to %s: %s", c->addr,
		         prism_strerror(errno));
		goto out;
	}
	c->transport = prism_client__transport(cl);
	e = prism_client__find_entry(cl, c->entry);
	rsz = e >= 0 ? (size_t)prism_client__result_size(cl, e) : 0;
	c->result_bytes = rsz;
	bytes = e >= 0 ? malloc(param_bytes(cl, e)) : NULL;
	res = malloc((rsz + 8) * o->depth);
	if (e < 0 || !bytes || !res) {
		snprintf(c->why, sizeof(c->why), "entry %s: %s", c->entry,
		         e < 0 ? "the server has none of that name" : strerror(ENOMEM));
		goto out;
	}
	if (o->workload == PERF_READ && rsz != o->size) {
		snprintf(c->why, sizeof(c->why),
		         "the server serves read with %zu-byte messages; give both sides the "
		         "same --size",
		         rsz);
		goto out;
	}
	if (make_args(c, cl, e, args, bytes, &nargs))
		goto out;
	while (!atomic_load_explicit(c->stop, memory_order_relaxed)) {
		double t0 = now_s();
		int ok;

		for (unsigned i = 0; i < o->depth; i++) {
			/* read/write: a different slot of buf each time */
			memcpy(cargs[i], args, nargs * sizeof(args[0]));
			if (o->workload == PERF_READ || o->workload == PERF_WRITE)
				cargs[i][0].u64 = (uint64_t)(off++ % slots) * o->size;
			calls[i] = (struct prism_call){.sz = sizeof(calls[i]),
			                               .entry = c->entry,
			                               .args = cargs[i],
			                               .nargs = nargs,
			                               .result = res + i * (rsz + 8),
			                               .result_cap = rsz + 8};
		}
		ok = o->depth == 1 ? !prism_client__invoke(cl, &calls[0], NULL)
		                   : prism_client__invoke_batch(cl, calls, o->depth, NULL);
		if (ok != (int)o->depth) {
			for (unsigned i = 0; i < o->depth; i++)
				if (calls[i].status && !c->why[0])
					snprintf(c->why, sizeof(c->why), "invoke %s: %s", c->entry,
					         prism_strerror(calls[i].status));
			atomic_fetch_add(&c->errors, o->depth - (unsigned)(ok > 0 ? ok : 0));
			break;
		}
		if (c->nlat < c->cap)
			c->lat[c->nlat++] = (now_s() - t0) * 1e6;
		atomic_fetch_add_explicit(&c->ops, o->depth, memory_order_relaxed);
	}
out:
	if (c->why[0] && !atomic_load(&c->errors))
		atomic_fetch_add(&c->errors, 1);
	free(bytes);
	free(res);
	prism_client__close(cl);
	prism_device__close(dev);
	return NULL;
}

static unsigned long long total(struct conn *cs, unsigned n, bool errors)
{
	unsigned long long t = 0;

	for (unsigned i = 0; i < n; i++)
		t += atomic_load(errors ? &cs[i].errors : &cs[i].ops);
	return t;
}

/* What carried the connections: "shm", "tcp", "mixed", or "-" (an RDMA
 * device's queues, which no transport of ours carries). */
static const char *transport_name(const struct conn *cs, unsigned n)
{
	static const char *const names[] = {
	    [PRISM_TRANSPORT_AUTO] = "-",
	    [PRISM_TRANSPORT_TCP] = "tcp",
	    [PRISM_TRANSPORT_SHM] = "shm",
	};

	for (unsigned i = 1; i < n; i++)
		if (cs[i].transport != cs[0].transport)
			return "mixed";
	return names[cs[0].transport];
}

struct report {
	const char *transport;
	unsigned long long ops, errors, samples;
	double secs, tmin, p50, p99, p999, tmax, rate, mbps;
};

static void print_report(const struct perf_opts *o, const char *program, const char *entry,
                         size_t bytes, const struct report *r)
{
	if (o->json) {
		/* figures rounded as the table prints them */
#define R(v, places) (round((v) * (places)) / (places))
		json_t *j = json_pack(
		    "{s:s, s:o, s:o, s:I, s:I, s:I, s:o, s:s, s:f, s:I, s:I, s:I, s:f, s:f, s:f, "
		    "s:f, s:f, s:f, s:f}",
		    "workload", perf_workload_names[o->workload], "program", json_text(program),
		    "entry", json_text(entry), "bytes", (json_int_t)bytes, "connections",
		    (json_int_t)o->connections, "depth", (json_int_t)o->depth, "device",
		    json_text(o->device), "transport", r->transport, "duration_s", R(r->secs, 1e3),
		    "ops", (json_int_t)r->ops, "errors", (json_int_t)r->errors, "samples",
		    (json_int_t)r->samples, "t_min_us", R(r->tmin, 1e2), "p50_us", R(r->p50, 1e2),
		    "p99_us", R(r->p99, 1e2), "p99_9_us", R(r->p999, 1e2), "t_max_us",
		    R(r->tmax, 1e2), "rate_ops_per_s", R(r->rate, 1e1), "bw_mb_per_s",
		    R(r->mbps, 1e3));
#undef R

		if (j)
			json_dumpf(j, stdout, JSON_COMPACT | JSON_REAL_PRECISION(15));
		fputc('\n', stdout);
		json_decref(j);
		return;
	}
	printf("prism-perf: %s (program %s, entry %s) server %s:%d device %s transport %s, %u "
	       "connection(s), depth %u, %.1f s\n",
	       perf_workload_names[o->workload], program, entry, o->host, o->port, o->device,
	       r->transport, o->connections, o->depth, r->secs);
	printf(" %8s %12s %8s %10s %10s %10s %10s %10s %12s %10s\n", "#bytes", "#ops", "errors",
	       "t_min[us]", "p50[us]", "p99[us]", "p99.9[us]", "t_max[us]", "rate[op/s]",
	       "bw[MB/s]");
	printf(" %8zu %12llu %8llu %10.2f %10.2f %10.2f %10.2f %10.2f %12.1f %10.3f\n", bytes,
	       r->ops, r->errors, r->tmin, r->p50, r->p99, r->p999, r->tmax, r->rate, r->mbps);
}

/* For get: the program and entry names come from the local .chain file. */
static int get_names(const struct perf_opts *o, char *program, char *entry, size_t cap)
{
	struct prism_program *p = perf_program_open(o, PERF_GET);
	int e;

	if (!p)
		return -1;
	e = o->entry ? prism_program__find_entry(p, o->entry) : 0;
	if (e < 0 || e >= prism_program__entry_count(p)) {
		char list[256] = "";
		size_t n = 0;

		for (int i = 0; i < prism_program__entry_count(p) && n < sizeof(list); i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
			                      prism_program__entry_name(p, i));
		fprintf(stderr,
		        "prism-perf: --entry %s: %s has no entry of that name; it has%s%s\n",
		        o->entry ? o->entry : "(first)",
		        strcmp(o->chain, "-") ? o->chain : "<stdin>", n ? ": " : " none", list);
		prism_program__close(p);
		return -1;
	}
	snprintf(program, cap, "%s", prism_program__name(p));
	snprintf(entry, cap, "%s", prism_program__entry_name(p, e));
	prism_program__close(p);
	return 0;
}

int perf_drive(const struct perf_opts *o)
{
	char addr[300], program[128], entry[128];
	atomic_bool stop = false;
	struct conn *cs = calloc(o->connections, sizeof(*cs));
	size_t cap = ((size_t)1 << 22) / o->connections, n = 0, bytes;
	struct report r = {0};
	double t0, *all;
	int rc = 1;

	if (!cs)
		return 1;
	if (o->workload == PERF_GET) {
		if (get_names(o, program, entry, sizeof(program)))
			goto out;
	} else {
		snprintf(program, sizeof(program), "%s", perf_workload_names[o->workload]);
		snprintf(entry, sizeof(entry), "%s", program);
	}
	snprintf(addr, sizeof(addr), "%s:%d", o->host, o->port);
	t0 = now_s();
	for (unsigned i = 0; i < o->connections; i++) {
		cs[i] = (struct conn){.o = o,
		                      .addr = addr,
		                      .program = program,
		                      .entry = entry,
		                      .id = i,
		                      .stop = &stop,
		                      .cap = cap};
		cs[i].lat = malloc(cap * sizeof(double));
		if (!cs[i].lat || pthread_create(&cs[i].th, NULL, conn_loop, &cs[i])) {
			fprintf(stderr, "prism-perf: connection %u: cannot start\n", i);
			atomic_store(&stop, true);
			for (unsigned j = 0; j < i; j++)
				pthread_join(cs[j].th, NULL);
			goto out;
		}
	}
	for (double next = 1; now_s() - t0 < o->duration && !total(cs, o->connections, true);) {
		usleep(20000);
		if (o->duration >= 3 && now_s() - t0 >= next) {
			fprintf(stderr, "prism-perf: %3.0f/%.0f s  %llu ops  %.0f op/s\n", next,
			        o->duration, total(cs, o->connections, false),
			        (double)total(cs, o->connections, false) / (now_s() - t0));
			next += 1;
		}
	}
	atomic_store(&stop, true);
	for (unsigned i = 0; i < o->connections; i++)
		pthread_join(cs[i].th, NULL);
	r.secs = now_s() - t0;
	r.ops = total(cs, o->connections, false);
	r.errors = total(cs, o->connections, true);
	r.transport = transport_name(cs, o->connections);
	for (unsigned i = 0; i < o->connections; i++) {
		if (cs[i].why[0])
			fprintf(stderr, "prism-perf: connection %u: %s\n", i, cs[i].why);
		n += cs[i].nlat;
	}
	all = malloc((n ? n : 1) * sizeof(double));
	if (!all)
		goto out;
	n = 0;
	for (unsigned i = 0; i < o->connections; i++) {
		memcpy(all + n, cs[i].lat, cs[i].nlat * sizeof(double));
		n += cs[i].nlat;
	}
	qsort(all, n, sizeof(double), cmp_d);
	if (n) {
		r.samples = n;
		r.tmin = all[0], r.tmax = all[n - 1];
		r.p50 = all[n / 2], r.p99 = all[n * 99 / 100], r.p999 = all[n * 999 / 1000];
	}
	free(all);
	bytes = o->workload == PERF_GET ? cs[0].result_bytes : o->size;
	r.rate = (double)r.ops / r.secs;
	r.mbps = r.rate * (double)bytes / 1e6;
	print_report(o, program, entry, bytes, &r);
	rc = r.errors || !r.ops;
out:
	for (unsigned i = 0; i < o->connections; i++)
		free(cs[i].lat);
	free(cs);
	return rc;
}
