/* SPDX-License-Identifier: MIT */
/*
 * sim/trace_observer.c - engine events -> Chrome trace (see trace_observer.h).
 *
 * Tracks (tid) inside the device's process (pid):
 *   qpn                 send queue: fetch instants, execution slices, WAIT stalls
 *   RQ_TRACK | qpn      receive queue: RECV scatters (origin of patch arrows)
 *   CQ_TRACK | cqn      completion queue: CQE instants (errors named)
 *   REMOTE_TRACK | qpn  writes done here on behalf of a remote requester
 *
 * Patch arrows: a flow starts inside the writer's execution slice (or a short
 * "scatter" slice on the receive/remote track) and ends inside the execution
 * slice of the patched WQE (the engine names it: the fetched WQE covering the
 * bytes, else the one the slot holds next), once that WQE executes.
 *
 * Must not: alter the engine's behaviour (read-only; forwards to `next`).
 */
#include "sim/trace_observer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <prism/wqe.h>

#include "sim/cost_profile.h"

#define RQ_TRACK     (1ull << 24)
#define CQ_TRACK     (2ull << 24)
#define REMOTE_TRACK (3ull << 24)
#define NO_COUNTER   0xffffffffu
#define EXEC_RING    64 /* execution starts remembered per queue */
#define QUEUE_SLOTS  512
#define MAX_PENDING  4096

#define X_COUNT(n) +1
enum { SIM_EV__COUNT = 0 SIM_EVENT_KINDS(X_COUNT) };
#undef X_COUNT

struct exec_mark {
	uint32_t counter;
	sim_time_t start;
	bool valid;
};

struct queue_state {
	bool used;
	uint32_t qpn;
	struct exec_mark exec[EXEC_RING];
	sim_time_t blocked_at;
	bool blocked;
};

struct pending_flow {
	uint32_t qpn, counter; /* counter NO_COUNTER: the next WQE to execute */
	uint64_t id;
	sim_time_t t; /* when the bytes changed */
};

struct sim_trace_observer {
	struct sim_observer hooks;
	struct sim_trace_observer_opts opts;
	struct sim_trace *tr;
	bool own_trace;
	uint64_t counts[SIM_EV__COUNT];
	uint64_t next_flow;
	struct queue_state queues[QUEUE_SLOTS];
	struct pending_flow pending[MAX_PENDING];
	unsigned npending;
};

static struct queue_state *queue(struct sim_trace_observer *o, uint32_t qpn)
{
	unsigned h = (qpn * 2654435761u) % QUEUE_SLOTS;
	for (unsigned i = 0; i < QUEUE_SLOTS; i++) {
		struct queue_state *q = &o->queues[(h + i) % QUEUE_SLOTS];
		if (q->used && q->qpn == qpn)
			return q;
		if (!q->used) {
			memset(q, 0, sizeof(*q));
			q->used = true;
			q->qpn = qpn;
			char name[48];
			snprintf(name, sizeof(name), "QP 0x%06" PRIx32 " send queue", qpn);
			sim_trace_track(o->tr, o->opts.pid, qpn, name);
			return q;
		}
	}
	return NULL; /* more queues than we track: their events still go out untracked */
}

static void cost_hook(void *ctx, const struct sim_cost_query *q, struct sim_cost *out)
{
	struct sim_trace_observer *o = ctx;
	const struct sim_observer *n = o->opts.next;
	if (n && n->cost)
		n->cost(n->ctx, q, out);
	else
		sim_default_cost(NULL, q, out);
}

static void on_exec_start(struct sim_trace_observer *o, const struct sim_event *ev)
{
	struct queue_state *qs = queue(o, ev->qpn);
	struct sim_trace_args a;
	sim_trace_args_init(&a);
	sim_trace_args_u64(&a, "counter", ev->wqe_counter);
	sim_trace_args_str(&a, "order", sim_order_name(ev->order));
	if (ev->bytes)
		sim_trace_args_u64(&a, "bytes", ev->bytes);
	if (ev->wqe) {
		char text[256];
		prism_wqe_snprint(text, sizeof(text), ev->wqe, NULL, 0, 0);
		sim_trace_args_str(&a, "wqe", text);
	}
	sim_trace_slice(o->tr, o->opts.pid, ev->qpn, prism_opcode_name(ev->opcode), "exec", ev->t,
	                ev->t_end - ev->t, &a);
	if (qs)
		qs->exec[ev->wqe_counter % EXEC_RING] =
		    (struct exec_mark){.counter = ev->wqe_counter, .start = ev->t, .valid = true};
	/* Close the patch arrows that point at this WQE. */
	for (unsigned i = 0; i < o->npending;) {
		struct pending_flow *p = &o->pending[i];
		if (p->qpn == ev->qpn &&
		    (p->counter == ev->wqe_counter || p->counter == NO_COUNTER)) {
			sim_trace_flow_end(o->tr, o->opts.pid, ev->qpn, "patch", p->id, ev->t);
			*p = o->pending[--o->npending];
			continue;
		}
		i++;
	}
}

/* Start a patch arrow at the writer; returns false when it has no slice. */
static bool flow_from_writer(struct sim_trace_observer *o, const struct sim_event *ev, uint64_t id)
{
	const struct sim_writer *w = &ev->writer;
	uint64_t tid;
	const char *what;
	switch (w->kind) {
	case SIM_WRITER_SQ: {
		struct queue_state *qs = queue(o, w->qpn);
		const struct exec_mark *m = qs ? &qs->exec[w->wqe_counter % EXEC_RING] : NULL;
		if (m && m->valid && m->counter == w->wqe_counter) {
			sim_trace_flow_begin(o->tr, o->opts.pid, w->qpn, "patch", id, m->start);
			return true;
		}
		tid = w->qpn;
		what = "response lands";
		break;
	}
	case SIM_WRITER_RQ:
		tid = RQ_TRACK | w->qpn;
		what = "RECV scatter";
		break;
	case SIM_WRITER_REMOTE:
		tid = REMOTE_TRACK | w->qpn;
		what = "remote write";
		break;
	default:
		return false;
	}
	char name[64];
	snprintf(name, sizeof(name), "%s of QP 0x%06" PRIx32 " %s", what, w->qpn,
	         w->kind == SIM_WRITER_RQ ? "receive queue" : "");
	sim_trace_track(o->tr, o->opts.pid, tid, name);
	struct sim_trace_args a;
	sim_trace_args_init(&a);
	sim_trace_args_u64(&a, "writer_counter", w->wqe_counter);
	sim_trace_args_hex(&a, "target_qpn", ev->target_qpn);
	sim_trace_args_u64(&a, "offset", ev->offset);
	sim_trace_args_u64(&a, "len", ev->len);
	sim_trace_slice(o->tr, o->opts.pid, tid, what, "patch", ev->t, 1000, &a);
	sim_trace_flow_begin(o->tr, o->opts.pid, tid, "patch", id, ev->t);
	return true;
}

static void on_patch(struct sim_trace_observer *o, const struct sim_event *ev)
{
	if (o->npending >= MAX_PENDING)
		return;
	queue(o, ev->target_qpn); /* name the target's track */
	uint64_t id = ++o->next_flow;
	if (!flow_from_writer(o, ev, id))
		return;
	o->pending[o->npending++] = (struct pending_flow){
	    .qpn = ev->target_qpn, .counter = ev->target_wqe_counter, .id = id, .t = ev->t};
}

static void on_hazard(struct sim_trace_observer *o, const struct sim_event *ev)
{
	const struct sim_hazard *h = ev->hazard;
	uint32_t qpn = h ? h->qpn : ev->qpn;
	queue(o, qpn);
	struct sim_trace_args a;
	sim_trace_args_init(&a);
	if (h) {
		sim_trace_args_u64(&a, "counter", h->wqe_counter);
		sim_trace_args_u64(&a, "offset", h->offset);
		sim_trace_args_u64(&a, "len", h->len);
		static const char *const kinds[] = {[SIM_WRITER_HOST] = "host",
		                                    [SIM_WRITER_SQ] = "send queue",
		                                    [SIM_WRITER_RQ] = "receive scatter",
		                                    [SIM_WRITER_REMOTE] = "remote request"};
		if ((unsigned)h->writer.kind < sizeof(kinds) / sizeof(kinds[0]))
			sim_trace_args_str(&a, "writer", kinds[h->writer.kind]);
		sim_trace_args_hex(&a, "writer_qpn", h->writer.qpn);
		sim_trace_args_u64(&a, "writer_counter", h->writer.wqe_counter);
		if (h->writer.kind == SIM_WRITER_REMOTE) {
			sim_trace_args_u64(&a, "src_node", h->writer.src_node);
			sim_trace_args_hex(&a, "src_qpn", h->writer.src_qpn);
			sim_trace_args_u64(&a, "src_counter", h->writer.src_wqe_counter);
		}
		sim_trace_args_u64(&a, "fetched_at_ps", h->fetched_at);
	}
	sim_trace_instant(o->tr, o->opts.pid, qpn, "HAZARD: WQE changed after fetch", "hazard",
	                  ev->t, &a);
}

static void on_cqe(struct sim_trace_observer *o, const struct sim_event *ev)
{
	char name[80];
	uint64_t tid = CQ_TRACK | ev->cqn;
	snprintf(name, sizeof(name), "CQ 0x%06" PRIx32, ev->cqn);
	sim_trace_track(o->tr, o->opts.pid, tid, name);
	bool err = ev->cqe_opcode == PRISM_CQE_REQ_ERR || ev->cqe_opcode == PRISM_CQE_RESP_ERR;
	if (err)
		snprintf(name, sizeof(name), "CQE error: %s",
		         prism_cqe_syndrome_name(ev->syndrome));
	else
		snprintf(name, sizeof(name), "CQE %s", prism_cqe_opcode_name(ev->cqe_opcode));
	struct sim_trace_args a;
	sim_trace_args_init(&a);
	sim_trace_args_hex(&a, "qpn", ev->qpn);
	sim_trace_args_u64(&a, "wqe_counter", ev->wqe_counter);
	if (err)
		sim_trace_args_hex(&a, "syndrome", ev->syndrome);
	sim_trace_instant(o->tr, o->opts.pid, tid, name, err ? "error" : "cqe", ev->t, &a);
}

static void on_simple_instant(struct sim_trace_observer *o, const struct sim_event *ev,
                              const char *name, const char *cat)
{
	queue(o, ev->qpn);
	struct sim_trace_args a;
	sim_trace_args_init(&a);
	sim_trace_args_u64(&a, "counter", ev->wqe_counter);
	if (ev->kind == SIM_EV_FETCH) {
		sim_trace_args_str(&a, "opcode", prism_opcode_name(ev->opcode));
		sim_trace_args_str(&a, "order", sim_order_name(ev->order));
	}
	if (ev->kind == SIM_EV_QP_STATE) {
		sim_trace_args_str(&a, "from", sim_qp_state_name(ev->old_state));
		sim_trace_args_str(&a, "to", sim_qp_state_name(ev->new_state));
	}
	if (ev->kind == SIM_EV_READ_LINE) {
		sim_trace_args_u64(&a, "offset", ev->offset);
		sim_trace_args_u64(&a, "len", ev->len);
	}
	sim_trace_instant(o->tr, o->opts.pid, ev->qpn, name, cat, ev->t, &a);
}

static void event_hook(void *ctx, const struct sim_event *ev)
{
	struct sim_trace_observer *o = ctx;
	if ((unsigned)ev->kind < SIM_EV__COUNT)
		o->counts[ev->kind]++;
	switch (ev->kind) {
	case SIM_EV_DOORBELL:
		on_simple_instant(o, ev, "doorbell", "doorbell");
		break;
	case SIM_EV_FETCH:
		on_simple_instant(o, ev, "fetch", "fetch");
		break;
	case SIM_EV_EXEC_START:
		on_exec_start(o, ev);
		break;
	case SIM_EV_PATCH:
		on_patch(o, ev);
		break;
	case SIM_EV_HAZARD:
		on_hazard(o, ev);
		break;
	case SIM_EV_CQE:
		on_cqe(o, ev);
		break;
	case SIM_EV_QP_STATE:
		on_simple_instant(o, ev, "QP state", "state");
		break;
	case SIM_EV_WAIT_BLOCK: {
		struct queue_state *qs = queue(o, ev->qpn);
		if (qs) {
			qs->blocked = true;
			qs->blocked_at = ev->t;
		}
		break;
	}
	case SIM_EV_WAIT_RELEASE: {
		struct queue_state *qs = queue(o, ev->qpn);
		if (qs && qs->blocked) {
			qs->blocked = false;
			sim_trace_slice(o->tr, o->opts.pid, ev->qpn, "blocked (WAIT)", "wait",
			                qs->blocked_at, ev->t - qs->blocked_at, NULL);
		}
		break;
	}
	case SIM_EV_READ_LINE:
		if (o->opts.read_lines)
			on_simple_instant(o, ev, "READ line", "chaos");
		break;
	default: /* EXEC_END (the slice has its end), packets */
		break;
	}
	const struct sim_observer *n = o->opts.next;
	if (n && n->event)
		n->event(n->ctx, ev);
}

int sim_trace_observer_create(const struct sim_trace_observer_opts *opts,
                              struct sim_trace_observer **out)
{
	if (!opts || !out || (!opts->out == !opts->shared))
		return -EINVAL;
	struct sim_trace_observer *o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->opts = *opts;
	if (opts->shared) {
		o->tr = opts->shared;
	} else {
		int rc = sim_trace_create(opts->out, &o->tr);
		if (rc) {
			free(o);
			return rc;
		}
		o->own_trace = true;
	}
	/* its pid in the trace is dense, not the node id (trace_chrome.c) */
	sim_trace_process(o->tr, opts->pid, "sim NIC");
	o->hooks.ctx = o;
	o->hooks.cost = cost_hook;
	o->hooks.event = event_hook;
	*out = o;
	return 0;
}

const struct sim_observer *sim_trace_observer_hooks(struct sim_trace_observer *o)
{
	return &o->hooks;
}

uint64_t sim_trace_observer_count(const struct sim_trace_observer *o, enum sim_event_kind k)
{
	return (unsigned)k < SIM_EV__COUNT ? o->counts[k] : 0;
}

int sim_trace_observer_finish(struct sim_trace_observer *o)
{
	if (!o)
		return -EINVAL;
	/* Arrows whose target never executed: mark the target queue instead. */
	for (unsigned i = 0; i < o->npending; i++) {
		struct sim_trace_args a;
		sim_trace_args_init(&a);
		sim_trace_args_u64(&a, "flow", o->pending[i].id);
		sim_trace_instant(o->tr, o->opts.pid, o->pending[i].qpn, "patched, never executed",
		                  "patch", o->pending[i].t, &a);
	}
	o->npending = 0;
	return o->own_trace ? sim_trace_finish(o->tr) : 0;
}

void sim_trace_observer_destroy(struct sim_trace_observer *o)
{
	if (!o)
		return;
	if (o->own_trace)
		sim_trace_destroy(o->tr);
	free(o);
}
