/* SPDX-License-Identifier: MIT */
/*
 * core/client.c - prism_client: connect, pack typed arguments, invoke
 * synchronously or in batches, collect results, time out.
 *
 * The client owns one RC QP.  An invocation is one SEND of the entry's
 * message (the server's RECV scatters it straight into WQE fields) and one
 * response, a WRITE_IMM (or SEND) into response slot k mod depth, which
 * consumes one of our receives and so produces one CQE per invocation, in
 * order (RC).  Up to `depth` invocations are in flight.
 *
 * Owns: argument packing and range checks (address parameters are offsets
 * inside the region the program declared; the client adds the base the
 * server described), the SEND/RECV posting through the codec, CQ polling,
 * and waiting: over TCP the waiting thread sleeps on its own socket and runs
 * its NIC when the answer comes (one wake per answer; a threaded device's
 * NIC thread runs it instead, and the waiter also sleeps on the response
 * CQ's completion channel until that thread wrote the completion).
 * Must not: trust the server's description beyond proto.c's checks; print.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/client.h"
#include "util/byteorder.h"
#include "util/clock.h"
#include "core/program.h"
#include "core/opts.h"

/* Callers built before prism_call.ret_len existed pass a smaller call. */
#define CALL_HAS_RET_LEN(call)                                                                     \
	((call)->sz >= offsetof(struct prism_call, ret_len) + sizeof((call)->ret_len))

static uint64_t virt_now_ns(struct prism_client *cl)
{
	return core_shard_now_ns(cl->dev, cl->shard);
}

int core_client_setup(struct prism_client *cl, const char *program, struct core_hello *h)
{
	const struct core_backend_ops *ops = cl->dev->ops;
	struct core_be_dev *be = cl->dev->shards[cl->shard].be;
	struct core_cq_attr ca = {.ncqe = CORE_CLIENT_CQE};
	const size_t msg_len = (size_t)CORE_CLIENT_SLOTS * CHAINOBJ_MAX_MSG;
	const size_t resp_len = (size_t)CORE_CLIENT_SLOTS * CORE_CLIENT_SLOT_BYTES;
	int err;

	if ((err = ops->create_cq(be, &ca, &cl->scq, &cl->scq_info)) ||
	    (err = ops->create_cq(be, &ca, &cl->rcq, &cl->rcq_info)))
		return err;
	struct core_qp_attr qa = {
	    .send_cq = cl->scq,
	    .recv_cq = cl->rcq,
	    .sq_bbs = CORE_CLIENT_SQ_BBS,
	    .rq_wqes = CORE_CLIENT_SLOTS * 2,
	    .rq_max_sge = 1,
	    .access = CORE_ACCESS_REMOTE_WRITE, /* the server WRITEs the responses */
	};
	if ((err = ops->create_qp(be, &qa, &cl->qp, &cl->qp_info)))
		return err;
	cl->msg = aligned_alloc(64, msg_len);
	cl->resp = aligned_alloc(64, resp_len);
	if (!cl->msg || !cl->resp)
		return -ENOMEM;
	memset(cl->msg, 0, msg_len);
	memset(cl->resp, 0, resp_len);
	if ((err = ops->reg_mr(be, NULL, cl->msg, msg_len, CORE_ACCESS_LOCAL_WRITE, &cl->msg_mr,
	                       &cl->msg_keys)) ||
	    (err = ops->reg_mr(be, NULL, cl->resp, resp_len,
	                       CORE_ACCESS_LOCAL_WRITE | CORE_ACCESS_REMOTE_WRITE, &cl->resp_mr,
	                       &cl->resp_keys)))
		return err;
	memset(h, 0, sizeof(*h));
	h->kind = CORE_HELLO_CONNECT;
	if (program)
		snprintf(h->program, sizeof(h->program), "%s", program);
	h->node = cl->dev->shards[cl->shard].node;
	h->qpn = cl->qp_info.qpn;
	h->resp_addr = (uintptr_t)cl->resp;
	h->resp_rkey = cl->resp_keys.rkey;
	h->resp_slots = CORE_CLIENT_SLOTS;
	h->resp_stride = CORE_CLIENT_SLOT_BYTES;
	return 0;
}

/* Post one receive whose scatter entry is response slot @slot. */
static void post_recv(struct prism_client *cl, uint32_t slot)
{
	struct prism_sge sge = {
	    .byte_count = CORE_CLIENT_SLOT_BYTES,
	    .lkey = cl->resp_keys.lkey,
	    .addr = (uintptr_t)(cl->resp + (size_t)slot * CORE_CLIENT_SLOT_BYTES),
	};
	uint32_t idx = (uint32_t)(cl->rq_pi & (cl->qp_info.rq_wqes - 1));

	prism_rwqe_encode(&sge, 1, (uint8_t *)cl->qp_info.buf + (size_t)idx * cl->qp_info.rq_stride,
	                  cl->qp_info.rq_stride / 16, NULL);
	cl->rq_pi++;
}

static void ring_rq(struct prism_client *cl)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	store_be32_shared(&cl->qp_info.dbrec[0], (uint32_t)(cl->rq_pi & 0xffffu));
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	cl->dev->ops->ring_rq(cl->qp);
}

int core_client_finish(struct prism_client *cl)
{
	const struct core_backend_ops *ops = cl->dev->ops;
	struct core_qp_peer peer = {
	    .node = cl->peer_node,
	    .qpn = cl->w.qpn,
	    .rnr_retry = 7,
	    .min_rnr_timer = 1,
	    .retry_cnt = 7,
	    .lid = cl->peer_addr.lid,
	    .mtu = cl->peer_addr.mtu,
	};
	int err;

	memcpy(peer.gid, cl->peer_addr.gid, sizeof(peer.gid));
	if ((err = core_shard_self_addr(cl->dev, cl->shard, &peer)) ||
	    (err = ops->modify_qp(cl->qp, CORE_QPS_INIT, NULL)) ||
	    (err = ops->modify_qp(cl->qp, CORE_QPS_RTR, &peer)) ||
	    (err = ops->modify_qp(cl->qp, CORE_QPS_RTS, &peer)))
		return err;
	/* A return before the final completion consumes a receive too. */
	for (uint32_t i = 0; i < 2 * cl->w.depth && i < CORE_CLIENT_SLOTS * 2; i++)
		post_recv(cl, i % cl->w.depth);
	ring_rq(cl);
	return 0;
}

static void client_free(struct prism_client *cl)
{
	const struct core_backend_ops *ops = cl->dev->ops;

	if (cl->link || cl->net_fd >= 0)
		core_client_net_close(cl);
	if (cl->srv && cl->conn_id)
		core_server_close_conn(cl->srv, cl->shard, cl->conn_id);
	if (cl->msg_mr)
		ops->dereg_mr(cl->msg_mr);
	if (cl->resp_mr)
		ops->dereg_mr(cl->resp_mr);
	if (cl->qp)
		ops->destroy_qp(cl->qp);
	if (cl->scq)
		ops->destroy_cq(cl->scq);
	if (cl->rcq)
		ops->destroy_cq(cl->rcq);
	free(cl->msg);
	free(cl->resp);
	core_welcome_free(&cl->w);
	free(cl);
}

static struct prism_client *client_new(struct prism_device *dev,
                                       const struct prism_client_opts *opts)
{
	struct prism_client *cl = calloc(1, sizeof(*cl));

	if (!cl)
		return NULL;
	cl->dev = dev;
	cl->net_fd = -1;
	cl->timeout_ms = CORE_OPT(opts, timeout_ms, 5000);
	cl->transport = CORE_OPT(opts, transport, PRISM_TRANSPORT_AUTO);
	return cl;
}

PRISM_API struct prism_client *prism_client__connect_local(struct prism_server *srv,
                                                           const struct prism_client_opts *opts)
{
	struct prism_client *cl;
	struct core_conn *conn;
	struct core_hello h;
	int err;

	if ((err = CORE_OPTS_CHECK(opts, transport)))
		return core_fail_ptr(err);
	if (!srv)
		return core_fail_ptr(-EINVAL);
	cl = client_new(srv->dev, opts);
	if (!cl)
		return core_fail_ptr(-ENOMEM);
	cl->srv = srv;
	/* Both ends on one shard: the client's QP talks to its connection's
	 * conn queue through that shard's loopback. */
	cl->shard = core_server_pick_shard(srv);
	err = core_client_setup(cl, CORE_OPT(opts, program, NULL), &h);
	if (!err)
		err = core_server_open_conn(srv, cl->shard, &h, &cl->w, &conn);
	if (!err) {
		core_server_add_conn(srv, conn);
		cl->conn_id = conn->id;
		cl->peer_node = srv->dev->shards[cl->shard].node;
		err = core_client_finish(cl);
	}
	if (err) {
		core_err("client: cannot connect in-process: %s", prism_strerror(err));
		client_free(cl);
		return core_fail_ptr(err);
	}
	return cl;
}

PRISM_API struct prism_client *prism_client__connect(struct prism_device *dev, const char *addr,
                                                     const struct prism_client_opts *opts)
{
	struct prism_client *cl;
	struct core_hello h;
	int err;

	if ((err = CORE_OPTS_CHECK(opts, transport)))
		return core_fail_ptr(err);
	if (!dev || !addr)
		return core_fail_ptr(-EINVAL);
	cl = client_new(dev, opts);
	if (!cl)
		return core_fail_ptr(-ENOMEM);
	cl->shard = __atomic_fetch_add(&dev->next_shard, 1, __ATOMIC_RELAXED) % dev->n_shards;
	/* One message per failure: the setup exchange and the attach log
	 * theirs (naming the server and the reason); the rest is logged here. */
	err = core_client_setup(cl, CORE_OPT(opts, program, NULL), &h);
	if (!err && (err = core_client_net_connect(cl, addr, &h)))
		goto fail_logged;
	if (!err)
		err = core_client_finish(cl);
	if (!err && (err = core_client_net_attach(cl)))
		goto fail_logged;
	if (err) {
		core_err("client: cannot connect to %s: %s", addr, prism_strerror(err));
		goto fail_logged;
	}
	return cl;
fail_logged:
	client_free(cl);
	return core_fail_ptr(err);
}

PRISM_API void prism_client__close(struct prism_client *cl)
{
	if (cl)
		client_free(cl);
}

PRISM_API int prism_client__shard(const struct prism_client *cl)
{
	return cl ? (int)cl->shard : -EINVAL;
}

PRISM_API enum prism_transport prism_client__transport(const struct prism_client *cl)
{
	if (!cl || !cl->link)
		return PRISM_TRANSPORT_AUTO;
	return cl->on_ring ? PRISM_TRANSPORT_SHM : PRISM_TRANSPORT_TCP;
}

/* ---- metadata ----------------------------------------------------------- */

PRISM_API int prism_client__find_entry(const struct prism_client *cl, const char *name)
{
	if (!cl)
		return -EINVAL;
	for (uint32_t e = 0; e < cl->w.n_entries; e++)
		if (!name || !strcmp(cl->w.entries[e].name, name))
			return (int)e;
	return -PRISM_E_NOENTRY;
}

static const struct core_entry_desc *entry_at(const struct prism_client *cl, int e)
{
	if (!cl || e < 0 || (uint32_t)e >= cl->w.n_entries)
		return NULL;
	return &cl->w.entries[e];
}

PRISM_API const char *prism_client__entry_name(const struct prism_client *cl, int e)
{
	const struct core_entry_desc *d = entry_at(cl, e);

	return d ? d->name : NULL;
}

PRISM_API int prism_client__param_count(const struct prism_client *cl, int e)
{
	const struct core_entry_desc *d = entry_at(cl, e);

	return d ? (int)d->n_params : -PRISM_E_NOENTRY;
}

PRISM_API int prism_client__param(const struct prism_client *cl, int e, int i,
                                  struct prism_param_info *info)
{
	const struct core_entry_desc *d = entry_at(cl, e);
	struct chainobj_param p;

	if (!d)
		return -PRISM_E_NOENTRY;
	if (!info || i < 0 || (uint32_t)i >= d->n_params)
		return -EINVAL;
	p.type = (enum chainobj_ptype)d->params[i].type;
	p.width = d->params[i].width;
	info->name = d->params[i].name;
	info->type = core_param_type(&p);
	info->size = p.width;
	return 0;
}

PRISM_API int prism_client__result_size(const struct prism_client *cl, int e)
{
	return entry_at(cl, e) ? (int)cl->w.response_size : -PRISM_E_NOENTRY;
}

PRISM_API int prism_client__result_count(const struct prism_client *cl, int e)
{
	const struct core_entry_desc *d = entry_at(cl, e);

	return d ? (int)d->n_results : -PRISM_E_NOENTRY;
}

PRISM_API int prism_client__result(const struct prism_client *cl, int e, int i,
                                   struct prism_result_info *info)
{
	const struct core_entry_desc *d = entry_at(cl, e);

	if (!d)
		return -PRISM_E_NOENTRY;
	if (!info || i < 0 || (uint32_t)i >= d->n_results)
		return -EINVAL;
	info->name = d->results[i].name;
	info->offset = d->results[i].offset;
	info->size = d->results[i].width;
	info->big_endian = d->results[i].order == CHAINOBJ_ORDER_BIG;
	return 0;
}

/* ---- argument packing --------------------------------------------------- */

static void put_uint(uint8_t *p, uint32_t width, uint32_t order, uint64_t v)
{
	chainobj_put_uint(p, width, (enum chainobj_order)order, v);
}

/* Pack @call's arguments into @msg per entry @d.  0 or -PRISM_E_ARGS. */
static int pack_args(const struct core_entry_desc *d, const struct prism_call *call, uint8_t *msg)
{
	bool used[64] = {0};

	if (call->nargs > 64)
		return -PRISM_E_ARGS;
	memset(msg, 0, d->msg_size);
	for (uint32_t i = 0; i < d->n_params; i++) {
		const struct core_param_desc *p = &d->params[i];
		const struct prism_arg *a = NULL;
		uint8_t val[CHAINOBJ_MAX_MSG];

		for (size_t j = 0; j < call->nargs; j++) {
			if (call->args[j].name && !strcmp(call->args[j].name, p->name)) {
				a = &call->args[j];
				used[j] = true;
			}
		}
		if (!a) {
			core_err("entry '%s': missing argument '%s'", d->name, p->name);
			return -PRISM_E_ARGS;
		}
		if (p->type == CHAINOBJ_PT_BYTES) {
			if (!a->bytes || a->len != p->width) {
				core_err("entry '%s': argument '%s' needs %u bytes, got %zu",
				         d->name, p->name, p->width, a->bytes ? a->len : 0);
				return -PRISM_E_ARGS;
			}
			memcpy(val, a->bytes, p->width);
		} else {
			uint64_t v = a->u64;

			if (p->width < 8 && v >> (8 * p->width)) {
				core_err("entry '%s': argument '%s' = 0x%llx does not fit %u bytes",
				         d->name, p->name, (unsigned long long)v, p->width);
				return -PRISM_E_ARGS;
			}
			if (p->type == CHAINOBJ_PT_ADDR) {
				/* An offset inside the declared region; the server's keys
				 * enforce the bound too, this is the friendly check. */
				if (v >= p->region_size) {
					core_err("entry '%s': argument '%s' = offset 0x%llx is "
					         "outside its %llu-byte region",
					         d->name, p->name, (unsigned long long)v,
					         (unsigned long long)p->region_size);
					return -PRISM_E_ARGS;
				}
				v += p->region_base;
			}
			put_uint(val, p->width, p->order, v);
		}
		for (uint32_t c = 0; c < p->copies; c++)
			memcpy(msg + p->msg_offset + (size_t)c * p->width, val, p->width);
	}
	for (size_t j = 0; j < call->nargs; j++) {
		if (!used[j]) {
			core_err("entry '%s': no parameter named '%s'", d->name,
			         call->args[j].name ? call->args[j].name : "(null)");
			return -PRISM_E_ARGS;
		}
	}
	return 0;
}

/* ---- the data path ------------------------------------------------------ */

static int poll_cqs(struct prism_client *cl)
{
	for (;;) { /* send completions: errors only matter */
		const uint8_t *raw = core_cq_peek(&cl->scq_info, cl->scq_ci);
		struct prism_cqe c;

		if (!raw)
			break;
		prism_cqe_decode(raw, &c, NULL);
		cl->scq_ci++;
		store_be32_shared(&cl->scq_info.dbrec[0], (uint32_t)(cl->scq_ci & 0xffffffu));
		if (c.opcode == PRISM_CQE_REQ_ERR) {
			core_err("client: SEND failed: %s", prism_cqe_syndrome_name(c.syndrome));
			return cl->error = -PRISM_E_CONN;
		}
	}
	for (;;) { /* responses */
		const uint8_t *raw = core_cq_peek(&cl->rcq_info, cl->rcq_ci);
		struct prism_cqe c;

		if (!raw)
			break;
		prism_cqe_decode(raw, &c, NULL);
		cl->rcq_ci++;
		store_be32_shared(&cl->rcq_info.dbrec[0], (uint32_t)(cl->rcq_ci & 0xffffffu));
		if (c.opcode == PRISM_CQE_RESP_ERR || c.opcode == PRISM_CQE_REQ_ERR) {
			core_err("client: response failed: %s",
			         prism_cqe_syndrome_name(c.syndrome));
			return cl->error = -PRISM_E_CONN;
		}
		uint64_t k = cl->answered;
		uint32_t slot = (uint32_t)(k % cl->w.depth);
		struct prism_call *call = cl->inflight[slot];

		post_recv(cl, slot);
		ring_rq(cl);
		if (c.imm != cl->w.final_imm) {
			/* A `return` site's completion: its bytes are in the slot; the
			 * invocation ends with the final completion (RC keeps order). */
			if (call) {
				call->ret_site = c.imm;
				if (CALL_HAS_RET_LEN(call))
					call->ret_len = c.byte_count;
			}
			continue;
		}
		cl->answered++;
		if (call) {
			size_t n = cl->w.response_size;

			if (n > call->result_cap) {
				call->status = -PRISM_E_RESULT;
				n = call->result_cap;
			} else {
				call->status = 0;
			}
			if (call->result)
				memcpy(call->result,
				       cl->resp + (size_t)slot * CORE_CLIENT_SLOT_BYTES, n);
			call->result_len = n;
			call->virt_ns =
			    c.timestamp > cl->t_sent[slot] ? c.timestamp - cl->t_sent[slot] : 0;
			if (c.imm && !call->ret_site) {
				call->ret_site = c.imm; /* an unconditional final return */
				if (CALL_HAS_RET_LEN(call))
					call->ret_len = c.byte_count;
			}
			cl->inflight[slot] = NULL;
		}
	}
	return 0;
}

/*
 * One round of making progress: our shard, and the server's connections on
 * it when in-process (other shards belong to the clients waiting on them):
 * always when the server has no thread, and when our connection runs one
 * invocation at a time (a serial program, or one window: inflight 1) even
 * when it has, because then the server's CPU must see each invocation
 * complete before the next one can start (it re-posts or rings the next
 * window), and this thread is awake at that moment while the server's
 * loop may be napping between its polls.
 */
static int step(struct prism_client *cl)
{
	int err;

	if (cl->srv && (!cl->srv->running || cl->w.inflight == 1))
		core_server_poll_shard(cl->srv, cl->shard);
	else
		core_shard_progress(cl->dev, cl->shard);
	if (cl->link && __atomic_load_n(&cl->link_down, __ATOMIC_ACQUIRE))
		return cl->error = -PRISM_E_NET_PEER_GONE;
	err = poll_cqs(cl);
	return err;
}

/*
 * Waiting on a polled link: the thread sleeps in poll(2) on its own socket
 * or ring, so the answer wakes it directly (on two shared cores a busy-poll
 * only delays the server).  A packet and the server's hang-up both wake
 * it; the only thing a timer does is the RNR timer: a SEND parked on an RNR
 * NAK retries after outside progress (the server re-armed before its
 * packets left).  So while no send of the device parked since the last
 * look (sim_dev_rnr_parks), a wait lasts NET_WAIT_IDLE_US (a bound, not a
 * timer anything needs): at 16 connections on two cores an answer takes
 * about 200 us, and a shorter wait that ran out first cost a wake-up, a
 * device run and a sleep more per get.  After a park, each wait that
 * passes in silence doubles the next, from NET_WAIT_US up to
 * NET_WAIT_MAX_US, and a packet (an RNR NAK among them) brings it back to
 * NET_WAIT_US; the first wait of the next call starts where an answer that
 * needed several came in, and halves back towards NET_WAIT_US while
 * answers come within it.
 *
 * A threaded device (prism_device_opts.threaded) is run by its NIC thread,
 * not by this one: the packets this thread reads are handed to that
 * thread, and the completion that ends the call is written there, a few
 * microseconds later.  So the wait sleeps on the response CQ's completion
 * channel as well as on the link (core_client_net_wait_cqe): the CQ is
 * armed over what the last poll consumed, then the thread sleeps until a
 * packet, a hang-up or the NIC thread's CQE, as ibv_get_cq_event does.
 * Nothing else can move the call on (the NIC thread retries its parked
 * sends on its own: it wakes every 200 us while idle), so such a wait
 * lasts NET_WAIT_IDLE_US, a bound, like an idle one.
 */
#define NET_WAIT_US      200
#define NET_WAIT_MAX_US  3200
#define NET_WAIT_IDLE_US 100000

int core_client_wait(struct prism_client *cl, uint64_t k, int timeout_ms)
{
	uint64_t now,
	    deadline = timeout_ms < 0 ? UINT64_MAX : (uint64_t)util_now_ms() + (uint64_t)timeout_ms;
	unsigned spins = 0, wait_us = cl->net_wait_us ? cl->net_wait_us : NET_WAIT_US;
	bool silent = false;

	while (cl->answered <= k) {
		int err = cl->error ? cl->error : step(cl);

		if (err)
			return err;
		if (cl->answered > k)
			break;
		now = (uint64_t)util_now_ms();
		if (now >= deadline)
			return -PRISM_E_TIMEOUT;
		if (cl->link_polled) {
			uint64_t parks, left_ms = deadline - now;
			unsigned idle = NET_WAIT_IDLE_US;

			if (left_ms < NET_WAIT_IDLE_US / 1000)
				idle = (unsigned)left_ms * 1000u + 1000u;
			/* threaded: a packet, a hang-up or the completion */
			if (cl->cq_ch) {
				core_client_net_wait_cqe(cl, (int)idle);
				continue;
			}
			parks = core_client_net_parks(cl);
			/* No send parked since the last look (this thread's step ran
			 * the device on every packet it read): nothing but a packet
			 * or a hang-up can move the call on, and both wake us. */
			if (parks == cl->parks_seen) {
				core_client_net_wait(cl, (int)idle);
				core_client_net_kick(cl);
				continue;
			}
			cl->parks_seen = parks;
			/* Whatever the server sent (an answer, an RNR NAK) or a wait
			 * that timed out is outside progress: a SEND parked on an
			 * RNR NAK retries (the server re-armed before its packets
			 * left).  A link gone is seen by the next step. */
			if (core_client_net_wait(cl, (int)wait_us) == 0) {
				wait_us =
				    wait_us * 2 > NET_WAIT_MAX_US ? NET_WAIT_MAX_US : wait_us * 2;
				silent = true;
			} else if (cl->answered <= k) {
				wait_us = NET_WAIT_US; /* a packet, not yet the answer */
			}
			core_client_net_kick(cl);
			continue;
		}
		if (++spins > 64) {
			struct timespec ts = {0, 20 * 1000};

			/* In-process: the server may have torn our connection down. */
			if (cl->srv && !core_server_has_conn(cl->srv, cl->shard, cl->conn_id))
				return cl->error = -PRISM_E_CONN;
			/* Over TCP: retry a SEND parked on an RNR NAK (RNR timer). */
			if (cl->link && spins % 16 == 0)
				core_client_net_kick(cl);
			/* On an RDMA NIC: a server that died closed our setup socket. */
			if (!cl->link && cl->net_fd >= 0 && spins % 16 == 0 &&
			    core_client_net_peer_gone(cl))
				return cl->error = -PRISM_E_NET_PEER_GONE;
			nanosleep(&ts, NULL);
		}
	}
	/* A connection that runs one invocation at a time: the server re-arms
	 * the next one once it saw the answer acknowledged, and an ACK the
	 * polled link held for our next request would keep it waiting until
	 * then (an RNR NAK for a one-window program's request, or the re-arm
	 * on the request's path).  So between two calls ACKs leave at once,
	 * those held now and those a NIC thread sends later (threaded). */
	if (cl->link_polled && cl->w.inflight == 1)
		core_client_net_hold_acks(cl, false);
	/* where the next call's first wait starts */
	if (cl->link_polled && silent)
		cl->net_wait_us = wait_us;
	else if (cl->link_polled)
		cl->net_wait_us = wait_us / 2 < NET_WAIT_US ? NET_WAIT_US : wait_us / 2;
	return 0;
}

int core_client_send_raw(struct prism_client *cl, const void *msg, size_t len,
                         struct prism_call *call)
{
	uint64_t k = cl->sent;
	uint32_t slot = (uint32_t)(k % cl->w.depth);
	uint8_t *buf = cl->msg + (size_t)slot * CHAINOBJ_MAX_MSG;
	struct prism_wqe w;
	uint32_t idx;
	int n;

	if (cl->error)
		return cl->error;
	if (len > CHAINOBJ_MAX_MSG)
		return -PRISM_E_ARGS;
	/* Wait for the invocation that used this slot before. */
	if (k >= cl->w.inflight) {
		int err = core_client_wait(cl, k - cl->w.inflight, cl->timeout_ms);

		if (err)
			return err;
	}
	if (cl->link_polled && cl->w.inflight == 1)
		core_client_net_hold_acks(cl, true); /* a call: they may ride on its frames */
	if (buf != msg)
		memcpy(buf, msg, len);
	/* A program that answers only part of its result (a miss) leaves zeros. */
	memset(cl->resp + (size_t)slot * CORE_CLIENT_SLOT_BYTES, 0,
	       cl->w.response_size < CORE_CLIENT_SLOT_BYTES ? cl->w.response_size
	                                                    : CORE_CLIENT_SLOT_BYTES);
	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_SEND;
	w.ctrl.wqe_index = (uint16_t)cl->sq_pi;
	w.ctrl.qpn = cl->qp_info.qpn;
	w.ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_NONE, PRISM_CE_CQ_UPDATE, false);
	w.num_sge = 1;
	w.sge[0] = (struct prism_sge){
	    .byte_count = (uint32_t)len, .lkey = cl->msg_keys.lkey, .addr = (uintptr_t)buf};
	idx = (uint32_t)(cl->sq_pi & (cl->qp_info.sq_bbs - 1));
	n = prism_wqe_encode(
	    &w, (uint8_t *)cl->qp_info.buf + cl->qp_info.sq_offset + (size_t)idx * PRISM_WQE_BB,
	    PRISM_WQE_BB, NULL);
	if (n < 0)
		return -PRISM_E_BACKEND;
	cl->inflight[slot] = call;
	if (call) {
		call->status = 1; /* pending */
		call->ret_site = 0;
		if (CALL_HAS_RET_LEN(call))
			call->ret_len = 0;
	}
	cl->t_sent[slot] = virt_now_ns(cl);
	cl->sq_pi += prism_wqe_bbs((unsigned)n / PRISM_WQE_DS_BYTES);
	cl->sent++;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	store_be32_shared(&cl->qp_info.dbrec[1], (uint32_t)(cl->sq_pi & 0xffffu));
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return cl->dev->ops->ring_sq(cl->qp);
}

static int send_call(struct prism_client *cl, struct prism_call *call)
{
	const struct core_entry_desc *d;
	uint8_t msg[CHAINOBJ_MAX_MSG];
	int e, err;

	e = prism_client__find_entry(cl, call->entry);
	if (e < 0) {
		core_err("client: program '%s' has no entry '%s'", cl->w.program,
		         call->entry ? call->entry : "(null)");
		return call->status = e;
	}
	d = &cl->w.entries[e];
	if ((err = pack_args(d, call, msg)))
		return call->status = err;
	err = core_client_send_raw(cl, msg, d->msg_size, call);
	if (err)
		call->status = err;
	return err;
}

PRISM_API int prism_client__invoke_batch(struct prism_client *cl, struct prism_call *calls,
                                         size_t n, const struct prism_invoke_opts *opts)
{
	int timeout, err, ok = 0;
	uint64_t first;

	if ((err = CORE_OPTS_CHECK(opts, timeout_ms)))
		return err;
	if (!cl || (!calls && n))
		return -EINVAL;
	timeout = CORE_OPT(opts, timeout_ms, cl->timeout_ms);
	first = cl->sent;
	for (size_t i = 0; i < n; i++) {
		calls[i].status = 1;
		calls[i].result_len = 0;
		calls[i].virt_ns = 0;
		err = send_call(cl, &calls[i]);
		if (err && err != -PRISM_E_ARGS && err != -PRISM_E_NOENTRY) {
			for (size_t j = i; j < n; j++)
				if (calls[j].status == 1)
					calls[j].status = err;
			break;
		}
	}
	if (cl->sent > first) {
		err = core_client_wait(cl, cl->sent - 1, timeout);
		if (err) {
			for (uint32_t s = 0; s < CORE_CLIENT_SLOTS; s++) {
				if (cl->inflight[s]) {
					cl->inflight[s]->status = err;
					cl->inflight[s] = NULL; /* a late answer is dropped */
				}
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (calls[i].status == 1)
			calls[i].status = -PRISM_E_TIMEOUT;
		ok += calls[i].status == 0;
	}
	return ok;
}

PRISM_API int prism_client__invoke(struct prism_client *cl, struct prism_call *call,
                                   const struct prism_invoke_opts *opts)
{
	int n = prism_client__invoke_batch(cl, call, 1, opts);

	if (n < 0)
		return n;
	return call->status;
}
