/* SPDX-License-Identifier: MIT */
/*
 * sim/trace_chrome.c - Chrome trace-event JSON writer.
 *
 * Owns: the document framing, JSON escaping, the set of named tracks and
 * the arguments builder.  Format: the "Trace Event Format" (JSON object
 * form, ts/dur in microseconds, "X" complete events, "i" instants, "s"/"f"
 * flow events, "M" metadata for process/thread names).
 *
 * Must not: interpret engine events (trace_observer.c does), or print
 * anywhere but the caller's stream.
 */
#include "sim/trace_chrome.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define TRACK_SLOTS 1024 /* open-addressed set of named tracks */

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
};

/* Write a JSON string literal (with quotes) of @s. */
static void put_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20 || *p >= 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

/* Picoseconds as microseconds with full precision: "12.345678". */
static void put_us(FILE *f, uint64_t ps)
{
	fprintf(f, "%" PRIu64 ".%06" PRIu64, ps / 1000000u, ps % 1000000u);
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

/* Begin one event object: separator, phase, name, category, pid, tid. */
static bool begin_event(struct sim_trace *tr, const char *ph, const char *name, const char *cat,
                        uint32_t pid, uint64_t tid)
{
	if (tr->finished)
		return false;
	FILE *f = tr->out;
	fputs(tr->events ? ",\n{" : "{", f);
	tr->events++;
	fprintf(f, "\"ph\":\"%s\",\"name\":", ph);
	put_json_string(f, name ? name : "");
	if (cat) {
		fputs(",\"cat\":", f);
		put_json_string(f, cat);
	}
	fprintf(f, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu64, pid, tid);
	return true;
}

static void end_event(struct sim_trace *tr, const struct sim_trace_args *args)
{
	if (args && args->len)
		fprintf(tr->out, ",\"args\":{%s}", args->buf);
	fputc('}', tr->out);
}

void sim_trace_process(struct sim_trace *tr, uint32_t pid, const char *name)
{
	if (!tr || !begin_event(tr, "M", "process_name", NULL, pid, 0))
		return;
	fputs(",\"args\":{\"name\":", tr->out);
	put_json_string(tr->out, name);
	fputs("}}", tr->out);
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
	if (!begin_event(tr, "M", "thread_name", NULL, pid, tid))
		return;
	fputs(",\"args\":{\"name\":", tr->out);
	put_json_string(tr->out, name);
	fputs("}}", tr->out);
	/* Keep tracks in qpn order in the UI. */
	if (begin_event(tr, "M", "thread_sort_index", NULL, pid, tid))
		fprintf(tr->out, ",\"args\":{\"sort_index\":%" PRIu64 "}}", tid);
}

void sim_trace_slice(struct sim_trace *tr, uint32_t pid, uint64_t tid, const char *name,
                     const char *cat, uint64_t t_ps, uint64_t dur_ps,
                     const struct sim_trace_args *args)
{
	if (!tr || !begin_event(tr, "X", name, cat, pid, tid))
		return;
	fputs(",\"ts\":", tr->out);
	put_us(tr->out, t_ps);
	fputs(",\"dur\":", tr->out);
	put_us(tr->out, dur_ps);
	end_event(tr, args);
}

void sim_trace_instant(struct sim_trace *tr, uint32_t pid, uint64_t tid, const char *name,
                       const char *cat, uint64_t t_ps, const struct sim_trace_args *args)
{
	if (!tr || !begin_event(tr, "i", name, cat, pid, tid))
		return;
	fputs(",\"s\":\"t\",\"ts\":", tr->out);
	put_us(tr->out, t_ps);
	end_event(tr, args);
}

static void flow(struct sim_trace *tr, const char *ph, uint32_t pid, uint64_t tid, const char *name,
                 uint64_t id, uint64_t t_ps)
{
	if (!tr || !begin_event(tr, ph, name, "patch", pid, tid))
		return;
	fprintf(tr->out, ",\"id\":%" PRIu64 ",\"ts\":", id);
	put_us(tr->out, t_ps);
	if (ph[0] == 'f')
		fputs(",\"bp\":\"e\"", tr->out);
	fputc('}', tr->out);
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
	a->len = 0;
	a->truncated = false;
	a->buf[0] = '\0';
}

/* Append raw text; on overflow drop the whole field and mark truncation. */
static void args_append(struct sim_trace_args *a, size_t mark, const char *s, size_t n)
{
	if (a->truncated)
		return;
	if (a->len + n + 1 > sizeof(a->buf)) {
		a->len = mark;
		a->buf[mark] = '\0';
		a->truncated = true;
		return;
	}
	memcpy(a->buf + a->len, s, n);
	a->len += n;
	a->buf[a->len] = '\0';
}

static void args_escaped(struct sim_trace_args *a, size_t mark, const char *s)
{
	char tmp[8];
	args_append(a, mark, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p && !a->truncated; p++) {
		if (*p == '"' || *p == '\\') {
			tmp[0] = '\\';
			tmp[1] = (char)*p;
			args_append(a, mark, tmp, 2);
		} else if (*p < 0x20 || *p >= 0x7f) {
			int n = snprintf(tmp, sizeof(tmp), "\\u%04x", *p);
			args_append(a, mark, tmp, (size_t)n);
		} else {
			args_append(a, mark, (const char *)p, 1);
		}
	}
	args_append(a, mark, "\"", 1);
}

static void args_key(struct sim_trace_args *a, size_t mark, const char *key)
{
	if (a->len)
		args_append(a, mark, ",", 1);
	args_escaped(a, mark, key);
	args_append(a, mark, ":", 1);
}

void sim_trace_args_str(struct sim_trace_args *a, const char *key, const char *val)
{
	size_t mark = a->len;
	args_key(a, mark, key);
	args_escaped(a, mark, val ? val : "");
}

void sim_trace_args_u64(struct sim_trace_args *a, const char *key, uint64_t val)
{
	char num[24];
	size_t mark = a->len;
	int n = snprintf(num, sizeof(num), "%" PRIu64, val);
	args_key(a, mark, key);
	args_append(a, mark, num, (size_t)n);
}

void sim_trace_args_hex(struct sim_trace_args *a, const char *key, uint64_t val)
{
	char num[24];
	size_t mark = a->len;
	int n = snprintf(num, sizeof(num), "\"0x%" PRIx64 "\"", val);
	args_key(a, mark, key);
	args_append(a, mark, num, (size_t)n);
}
