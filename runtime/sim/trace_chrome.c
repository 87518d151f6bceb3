/* SPDX-License-Identifier: MIT */
/*
 * sim/trace_chrome.c - Chrome trace-event JSON writer.
 *
 * Owns: the document framing (a fixed header and footer around one event
 * a line; each event is written by jansson, which escapes), the set of
 * named tracks and the arguments builder.  Format: the "Trace Event Format" (JSON object
 * form, ts/dur in microseconds, "X" complete events, "i" instants, "s"/"f"
 * flow events, "M" metadata for process/thread names).
 *
 * Must not: interpret engine events (trace_observer.c does), or print
 * anywhere but the caller's stream.
 */
#include "sim/trace_chrome.h"

#include <errno.h>
#include <jansson.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_text.h"

#define TRACK_SLOTS 1024 /* open-addressed set of named tracks */
#define TRACE_PIDS  64   /* NICs given a dense pid */

struct track_key {
	bool used;
	uint32_t pid;
	uint64_t tid;
};

struct sim_trace {
	FILE *out;
	bool finished;
	bool io_error;
	uint64_t events;
	struct track_key tracks[TRACK_SLOTS];
	unsigned ntracks;
	/* the NICs' node ids (random per device) in order of first use: a
	 * trace names NIC i as pid i + 1, so two runs of one program give
	 * the same ids */
	uint32_t nodes[TRACE_PIDS];
	unsigned nnodes;
};

/* The trace's pid for node @node (its node id past TRACE_PIDS NICs). */
static uint32_t trace_pid(struct sim_trace *tr, uint32_t node)
{
	for (unsigned i = 0; i < tr->nnodes; i++)
		if (tr->nodes[i] == node)
			return i + 1;
	if (tr->nnodes == TRACE_PIDS)
		return node;
	tr->nodes[tr->nnodes++] = node;
	return tr->nnodes;
}

enum { ARG_STR, ARG_U64, ARG_HEX };

/* Picoseconds as microseconds (the file's unit). */
static json_t *us(uint64_t ps)
{
	return json_real((double)(ps / 1000000u) + (double)(ps % 1000000u) / 1e6);
}

int sim_trace_create(FILE *out, struct sim_trace **trp)
{
	if (!out || !trp)
		return -EINVAL;
	struct sim_trace *tr = calloc(1, sizeof(*tr));
	if (!tr)
		return -ENOMEM;
	tr->out = out;
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"prism sim\","
	      "\"clock\":\"virtual\"},\n\"traceEvents\":[\n",
	      out);
	*trp = tr;
	return 0;
}

uint64_t sim_trace_events(const struct sim_trace *tr)
{
	return tr ? tr->events : 0;
}

int sim_trace_finish(struct sim_trace *tr)
{
	if (!tr)
		return -EINVAL;
	if (!tr->finished) {
		tr->finished = true;
		fputs("\n]}\n", tr->out);
		if (fflush(tr->out) != 0)
			tr->io_error = true;
	}
	if (ferror(tr->out))
		tr->io_error = true;
	return tr->io_error ? -EIO : 0;
}

void sim_trace_destroy(struct sim_trace *tr)
{
	if (!tr)
		return;
	sim_trace_finish(tr);
	free(tr);
}

/* One event object: phase, name, category, pid, tid (the caller adds the
 * rest); NULL when the document is finished or memory ran out. */
static json_t *event(struct sim_trace *tr, const char *ph, const char *name, const char *cat,
                     uint32_t pid, uint64_t tid)
{
	json_t *e;

	if (tr->finished)
		return NULL;
	e = json_pack("{s:s, s:o}", "ph", ph, "name", json_text(name));
	if (e && cat)
		json_object_set_new(e, "cat", json_text(cat));
	if (e) {
		json_object_set_new(e, "pid", json_integer(trace_pid(tr, pid)));
		json_object_set_new(e, "tid", json_integer((json_int_t)tid));
	} else {
		tr->io_error = true; /* out of memory: the file would miss an event */
	}
	return e;
}

static json_t *args_object(const struct sim_trace_args *a)
{
	json_t *o = json_object();

	for (unsigned i = 0; o && i < a->n; i++) {
		const char *key = a->buf + a->field[i].key;
		json_t *v = a->field[i].kind == ARG_U64 ? json_integer((json_int_t)a->field[i].num)
		            : a->field[i].kind == ARG_HEX
		                ? json_sprintf("0x%" PRIx64, a->field[i].num)
		                : json_text(a->buf + a->field[i].str);

		json_object_set_new(o, key, v);
	}
	return o;
}

/* Write @e (taking it over) with its arguments, one event a line. */
static void emit(struct sim_trace *tr, json_t *e, const struct sim_trace_args *args)
{
	if (!e)
		return;
	if (args && args->n)
		json_object_set_new(e, "args", args_object(args));
	fputs(tr->events ? ",\n" : "", tr->out);
	if (json_dumpf(e, tr->out, JSON_COMPACT | JSON_REAL_PRECISION(15)))
		tr->io_error = true;
	tr->events++;
	json_decref(e);
}

/* Metadata: {"ph":"M","name":@what,...,"args":{@key:@value}}. */
static void meta(struct sim_trace *tr, const char *what, uint32_t pid, uint64_t tid,
                 const char *key, json_t *value)
{
	json_t *e = event(tr, "M", what, NULL, pid, tid);

	if (e)
		json_object_set_new(e, "args", json_pack("{s:o}", key, value));
	else
		json_decref(value);
	emit(tr, e, NULL);
}

void sim_trace_process(struct sim_trace *tr, uint32_t pid, const char *name)
{
	if (tr)
		meta(tr, "process_name", pid, 0, "name", json_text(name));
}

void sim_trace_track(struct sim_trace *tr, uint32_t pid, uint64_t tid, const char *name)
{
	if (!tr || tr->ntracks >= TRACK_SLOTS / 2)
		return;
	uint64_t h = (tid * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)pid << 32);
	for (unsigned i = 0; i < TRACK_SLOTS; i++) {
		struct track_key *k = &tr->tracks[(h + i) % TRACK_SLOTS];
		if (k->used && k->pid == pid && k->tid == tid)
			return;
		if (!k->used) {
			*k = (struct track_key){.used = true, .pid = pid, .tid = tid};
			tr->ntracks++;
			break;
		}
	}
	meta(tr, "thread_name", pid, tid, "name", json_text(name));
	/* Keep tracks in qpn order in the UI. */
	meta(tr, "thread_sort_index", pid, tid, "sort_index", json_integer((json_int_t)tid));
}

void sim_trace_slice(struct sim_trace *tr, uint32_t pid, uint64_t tid, const char *name,
                     const char *cat, uint64_t t_ps, uint64_t dur_ps,
                     const struct sim_trace_args *args)
{
	json_t *e = tr ? event(tr, "X", name, cat, pid, tid) : NULL;

	if (!e)
		return;
	json_object_set_new(e, "ts", us(t_ps));
	json_object_set_new(e, "dur", us(dur_ps));
	emit(tr, e, args);
}

void sim_trace_instant(struct sim_trace *tr, uint32_t pid, uint64_t tid, const char *name,
                       const char *cat, uint64_t t_ps, const struct sim_trace_args *args)
{
	json_t *e = tr ? event(tr, "i", name, cat, pid, tid) : NULL;

	if (!e)
		return;
	json_object_set_new(e, "s", json_string("t"));
	json_object_set_new(e, "ts", us(t_ps));
	emit(tr, e, args);
}

static void flow(struct sim_trace *tr, const char *ph, uint32_t pid, uint64_t tid, const char *name,
                 uint64_t id, uint64_t t_ps)
{
	json_t *e = tr ? event(tr, ph, name, "patch", pid, tid) : NULL;

	if (!e)
		return;
	json_object_set_new(e, "id", json_integer((json_int_t)id));
	json_object_set_new(e, "ts", us(t_ps));
	if (ph[0] == 'f')
		json_object_set_new(e, "bp", json_string("e"));
	emit(tr, e, NULL);
}

void sim_trace_flow_begin(struct sim_trace *tr, uint32_t pid, uint64_t tid, const char *name,
                          uint64_t id, uint64_t t_ps)
{
	flow(tr, "s", pid, tid, name, id, t_ps);
}

void sim_trace_flow_end(struct sim_trace *tr, uint32_t pid, uint64_t tid, const char *name,
                        uint64_t id, uint64_t t_ps)
{
	flow(tr, "f", pid, tid, name, id, t_ps);
}

/* ---- arguments ---------------------------------------------------------- */

void sim_trace_args_init(struct sim_trace_args *a)
{
	a->n = 0;
	a->len = 0;
	a->truncated = false;
}

/* Copy @s into the arguments' buffer; its offset, or -1 when it does not fit. */
static int args_copy(struct sim_trace_args *a, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t at = a->len;

	if (at + n > sizeof(a->buf) || at > UINT16_MAX)
		return -1;
	memcpy(a->buf + at, s, n);
	a->len += n;
	return (int)at;
}

/* A field; on overflow it is dropped whole and the set marked truncated. */
static void args_add(struct sim_trace_args *a, const char *key, int kind, const char *str,
                     uint64_t num)
{
	size_t mark = a->len;
	int k, v = 0;

	if (a->truncated)
		return;
	if (a->n == SIM_TRACE_MAX_ARGS || (k = args_copy(a, key)) < 0 ||
	    (str && (v = args_copy(a, str)) < 0)) {
		a->len = mark;
		a->truncated = true;
		return;
	}
	a->field[a->n].key = (uint16_t)k;
	a->field[a->n].str = (uint16_t)v;
	a->field[a->n].kind = (uint8_t)kind;
	a->field[a->n].num = num;
	a->n++;
}

void sim_trace_args_str(struct sim_trace_args *a, const char *key, const char *val)
{
	args_add(a, key, ARG_STR, val ? val : "", 0);
}

void sim_trace_args_u64(struct sim_trace_args *a, const char *key, uint64_t val)
{
	args_add(a, key, ARG_U64, NULL, val);
}

void sim_trace_args_hex(struct sim_trace_args *a, const char *key, uint64_t val)
{
	args_add(a, key, ARG_HEX, NULL, val);
}
