/* SPDX-License-Identifier: MIT */
/*
 * core/server.c - prism_server: programs offered to clients, one program
 * instance per connection, the progress thread that re-arms instances and
 * tears failed connections down without disturbing the others.
 *
 * Owns: the server's program table (replace = new connections get the new
 * program; existing ones keep theirs through the program's reference
 * count), the connection lists (one per device shard: a connection lives
 * on the shard it was placed on, the least loaded), opening connections
 * from a hello, posted programs, the progress loops (one per shard by
 * default, each polling only its shards' connections).
 * Must not: block in the progress loop on one connection, or let one
 * connection's failure touch another's queues.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/opts.h"
#include "util/array.h"
#include "util/clock.h"
#include "core/server.h"
#include "net/net.h"

/* Installs: where (a Unix socket, required with allow_post) and by whom. */
static int post_opts(struct prism_server *srv, const struct prism_server_opts *opts)
{
	const char *path = CORE_OPT(opts, post_socket, NULL);
	const uint32_t *uids = CORE_OPT(opts, post_uids, NULL);
	unsigned n = uids ? CORE_OPT(opts, n_post_uids, 0) : 0;

	if (!srv->allow_post)
		return 0;
	if (!path || !*path) {
		core_err("server: allow_post needs a post_socket (programs are installed only "
		         "over a local socket)");
		return -EINVAL;
	}
	srv->post_socket = strdup(path);
	srv->n_post_uids = n ? n : 1;
	srv->post_uids = calloc(srv->n_post_uids, sizeof(*srv->post_uids));
	if (!srv->post_socket || !srv->post_uids) {
		free(srv->post_socket);
		free(srv->post_uids);
		return -ENOMEM;
	}
	if (n)
		memcpy(srv->post_uids, uids, n * sizeof(*uids));
	else
		srv->post_uids[0] = (uint32_t)geteuid();
	return 0;
}

PRISM_API struct prism_server *prism_server__create(struct prism_device *dev,
                                                    const struct prism_server_opts *opts)
{
	struct prism_server *srv;
	const char *host;
	int err;

	if ((err = CORE_OPTS_CHECK(opts, max_setups_per_peer)))
		return core_fail_ptr(err);
	if (!dev)
		return core_fail_ptr(-EINVAL);
	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return core_fail_ptr(-ENOMEM);
	srv->dev = dev;
	host = CORE_OPT(opts, host, NULL);
	if (host && !(srv->host = strdup(host))) {
		free(srv);
		return core_fail_ptr(-ENOMEM);
	}
	srv->port = CORE_OPT(opts, port, 0);
	if (srv->port < -1 || srv->port > 65535) {
		free(srv->host);
		free(srv);
		return core_fail_ptr(-EINVAL);
	}
	srv->rearm = CORE_OPT(opts, rearm, PRISM_REARM_AUTO);
	srv->max_conns = CORE_OPT(opts, max_conns, 4096);
	srv->depth = CORE_OPT(opts, depth, 16);
	srv->allow_post = CORE_OPT(opts, allow_post, false);
	srv->max_conns_per_peer = CORE_OPT(opts, max_conns_per_peer, 64);
	srv->max_setups = CORE_OPT(opts, max_setups, 64);
	srv->max_setups_per_peer = CORE_OPT(opts, max_setups_per_peer, 8);
	if ((err = post_opts(srv, opts))) {
		free(srv->host);
		free(srv);
		return core_fail_ptr(err);
	}
	srv->n_shards = dev->n_shards;
	srv->n_loops = CORE_OPT(opts, progress_threads, dev->n_shards);
	if (srv->n_loops > dev->n_shards)
		srv->n_loops = dev->n_shards; /* a loop with no shard would only spin */
	srv->shards = calloc(srv->n_shards, sizeof(*srv->shards));
	srv->loops = calloc(srv->n_loops, sizeof(*srv->loops));
	if ((unsigned)srv->rearm > PRISM_REARM_NIC || !srv->shards || !srv->loops) {
		err = (unsigned)srv->rearm > PRISM_REARM_NIC ? -EINVAL : -ENOMEM;
		free(srv->shards);
		free(srv->loops);
		free(srv->host);
		free(srv->post_socket);
		free(srv->post_uids);
		free(srv);
		return core_fail_ptr(err);
	}
	for (unsigned i = 0; i < srv->n_shards; i++) {
		srv->shards[i].srv = srv;
		srv->shards[i].index = i;
		pthread_mutex_init(&srv->shards[i].lock, NULL);
	}
	for (unsigned i = 0; i < srv->n_loops; i++) {
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&srv->loops[i].bell, &ca);
		pthread_condattr_destroy(&ca);
		pthread_mutex_init(&srv->loops[i].bell_lock, NULL);
	}
	pthread_mutex_init(&srv->lock, NULL);
	return srv;
}

/* Under srv->lock. */
static int find_program(struct prism_server *srv, const char *name)
{
	for (unsigned i = 0; i < srv->n_progs; i++)
		if (!strcmp(srv->progs[i]->name, name))
			return (int)i;
	return -1;
}

PRISM_API int prism_server__add_program(struct prism_server *srv, struct prism_program *prog)
{
	int i;

	if (!srv || !prog)
		return -EINVAL;
	if (!prog->dev) {
		core_err("server: program '%s' is not loaded", prog->name);
		return -PRISM_E_NOTLOADED;
	}
	if (prog->dev != srv->dev) {
		core_err("server: program '%s' is loaded on device %s, the server runs on %s",
		         prog->name, prog->dev->name, srv->dev->name);
		return -EINVAL;
	}
	for (uint32_t r = 0; srv->n_shards > 1 && r < prog->obj->n_regions; r++)
		if (prog->obj->regions[r].access & CHAINOBJ_ACC_ATOMIC)
			core_warn(
			    "server: program '%s': atomics on region '%s' from connections on "
			    "different NIC threads are not atomic with each other (%u NIC "
			    "threads)",
			    prog->name, prog->obj->regions[r].name, srv->n_shards);
	pthread_mutex_lock(&srv->lock);
	i = find_program(srv, prog->name);
	if (i < 0 && srv->n_progs == CORE_SERVER_MAX_PROGRAMS) {
		pthread_mutex_unlock(&srv->lock);
		return -PRISM_E_LIMIT;
	}
	core_program_get(prog);
	if (!prog->installed_at)
		prog->installed_at = (int64_t)time(NULL);
	if (i >= 0) {
		core_program_put(srv->progs[i]);
		srv->progs[i] = prog;
	} else {
		srv->progs[srv->n_progs++] = prog;
	}
	pthread_mutex_unlock(&srv->lock);
	return 0;
}

PRISM_API int prism_server__remove_program(struct prism_server *srv, const char *name)
{
	int i;

	if (!srv || !name)
		return -EINVAL;
	pthread_mutex_lock(&srv->lock);
	i = find_program(srv, name);
	if (i >= 0) {
		core_program_put(srv->progs[i]);
		srv->progs[i] = srv->progs[--srv->n_progs];
	}
	pthread_mutex_unlock(&srv->lock);
	return i >= 0 ? 0 : -PRISM_E_NOPROG;
}

/* The immediate of the conn queue's last response (docs/chain-format.md). */
static uint32_t final_imm(const struct chainobj *o, int conn)
{
	const struct chainobj_queue *q = &o->queues[conn];
	const struct chainobj_wqe *last = NULL;
	struct prism_wqe w;

	for (uint32_t i = 0; i < q->n_sq; i++)
		if (!last || q->sq[i].slot > last->slot)
			last = &q->sq[i];
	if (!last || prism_wqe_decode(last->bytes, last->len, &w, NULL) < 0)
		return 0;
	if (w.ctrl.opcode == PRISM_OP_RDMA_WRITE_IMM || w.ctrl.opcode == PRISM_OP_SEND_IMM)
		return w.ctrl.imm;
	return 0;
}

static void describe(const struct core_inst *in, struct core_welcome *w)
{
	const struct chainobj *o = in->prog->obj;

	w->qpn = core_inst_conn_qpn(in);
	w->node = in->dev->shards[in->shard].node;
	w->depth = in->depth;
	w->inflight = in->inflight;
	w->final_imm = final_imm(o, in->prog->conn_queue);
	w->response_size = o->response_size;
	snprintf(w->program, sizeof(w->program), "%s", in->prog->name);
	for (uint32_t e = 0; e < w->n_entries; e++) {
		const struct chainobj_entry *en = &o->entries[e];
		struct core_entry_desc *d = &w->entries[e];

		snprintf(d->name, sizeof(d->name), "%s", en->name);
		d->msg_size = en->msg_size;
		d->n_params = en->n_params;
		d->n_results = en->n_results;
		for (uint32_t i = 0; i < en->n_params; i++) {
			const struct chainobj_param *p = &en->params[i];
			struct core_param_desc *pd = &d->params[i];

			snprintf(pd->name, sizeof(pd->name), "%s", p->name);
			pd->type = p->type;
			pd->width = p->width;
			pd->order = p->order;
			pd->msg_offset = p->msg_offset;
			pd->copies = p->copies ? p->copies : 1;
			if (p->type == CHAINOBJ_PT_ADDR) {
				const struct prism_region *r = in->prog->regions[p->region];

				pd->region_base = (uintptr_t)r->addr;
				pd->region_size = o->regions[p->region].size;
			}
		}
		for (uint32_t i = 0; i < en->n_results && i < CHAINOBJ_MAX_PARAMS; i++) {
			snprintf(d->results[i].name, sizeof(d->results[i].name), "%s",
			         en->results[i].name);
			d->results[i].width = en->results[i].width;
			d->results[i].order = en->results[i].order;
			d->results[i].offset = en->results[i].offset;
		}
	}
}

unsigned core_server_pick_shard(struct prism_server *srv)
{
	unsigned best = 0;
	uint64_t least = UINT64_MAX;

	for (unsigned i = 0; i < srv->n_shards; i++) {
		uint64_t n = __atomic_load_n(&srv->shards[i].active, __ATOMIC_RELAXED);

		if (n < least) {
			least = n;
			best = i;
		}
	}
	return best;
}

int core_server_open_conn(struct prism_server *srv, unsigned shard, const struct core_hello *h,
                          struct core_welcome *w, struct core_conn **out)
{
	struct prism_program *prog = NULL;
	struct core_peer peer = {
	    .node = h->node,
	    .qpn = h->qpn,
	    .resp_addr = h->resp_addr,
	    .resp_rkey = h->resp_rkey,
	    .resp_slots = h->resp_slots,
	    .resp_stride = h->resp_stride,
	    .lid = h->lid,
	    .mtu = h->mtu,
	};
	struct core_conn *c;
	int err, i;

	memcpy(peer.gid, h->gid, sizeof(peer.gid));
	memset(w, 0, sizeof(*w));
	if (shard >= srv->n_shards)
		return w->status = -EINVAL;
	pthread_mutex_lock(&srv->lock);
	if (srv->conns_active >= srv->max_conns) {
		pthread_mutex_unlock(&srv->lock);
		core_warn("server: connection refused: %u connections is the limit",
		          srv->max_conns);
		return w->status = -PRISM_E_LIMIT;
	}
	i = h->program[0] ? find_program(srv, h->program) : (srv->n_progs == 1 ? 0 : -1);
	if (i >= 0) {
		prog = srv->progs[i];
		core_program_get(prog);
	}
	c = calloc(1, sizeof(*c));
	if (c) {
		c->id = ++srv->next_id;
		c->shard = shard;
		c->srv = srv;
	}
	if (prog && c) {
		srv->conns_active++; /* reserved; released if the setup fails */
		srv->conns_opened++;
	}
	pthread_mutex_unlock(&srv->lock);
	if (!prog) {
		free(c);
		core_warn("server: connection refused: no program '%s' (%u offered)",
		          h->program[0] ? h->program : "(any)", srv->n_progs);
		return w->status = -PRISM_E_NOPROG;
	}
	if (!c) {
		core_program_put(prog);
		return w->status = -ENOMEM;
	}
	if (prog->obj->response_size > h->resp_stride) {
		core_warn("conn %u: program '%s' answers %u bytes; the client's slots hold %u",
		          c->id, prog->name, prog->obj->response_size, h->resp_stride);
		err = -PRISM_E_RESULT;
		goto fail;
	}
	err = core_inst_create(prog, shard, c->id, &peer, srv->rearm, srv->depth, &c->inst);
	if (err)
		goto fail;
	w->n_entries = prog->obj->n_entries;
	w->entries = calloc(w->n_entries, sizeof(*w->entries));
	if (!w->entries) {
		core_inst_destroy(c->inst);
		err = -ENOMEM;
		goto fail;
	}
	describe(c->inst, w);
	core_program_put(prog); /* the instance holds its own reference */
	__atomic_store_n(&srv->bytes_per_conn, c->inst->mem_bytes, __ATOMIC_RELAXED);
	core_dbg("conn %u: program '%s' for client node 0x%x QP 0x%x on NIC thread %u", c->id,
	         prog->name, h->node, h->qpn, shard);
	*out = c;
	return 0;
fail:
	pthread_mutex_lock(&srv->lock);
	srv->conns_active--;
	pthread_mutex_unlock(&srv->lock);
	core_program_put(prog);
	free(c);
	return w->status = err;
}

/* Does each request of @c wait for the CPU to see the invocation before
 * it complete (it may have one in flight), and arrive over a link? */
static bool gated(const struct core_conn *c)
{
	return c->link && c->inst->cpu_rearm && c->inst->inflight == 1;
}

void core_server_add_conn(struct prism_server *srv, struct core_conn *c)
{
	/* once linked, @c belongs to the shard's loop (which frees it when its
	 * peer is gone): nothing of it is read after the unlock */
	unsigned shard = c->shard;
	struct core_server_shard *sh = &srv->shards[shard];

	pthread_mutex_lock(&sh->lock);
	c->next = sh->conns;
	sh->conns = c;
	__atomic_store_n(&sh->active, sh->active + 1, __ATOMIC_RELAXED);
	if (!c->link)
		__atomic_store_n(&sh->loop_conns, sh->loop_conns + 1, __ATOMIC_RELAXED);
	if (gated(c))
		__atomic_store_n(&sh->gated_conns, sh->gated_conns + 1, __ATOMIC_RELAXED);
	sh->total++;
	__atomic_add_fetch(&c->inst->prog->conns_active, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&c->inst->prog->conns_total, 1, __ATOMIC_RELAXED);
	/* polled from its first CQE on (or at the next pass, without events);
	 * a peer gone already (its down set before scan_all, maybe consumed
	 * by a pass before it was linked) is polled at the next pass */
	if (!core_inst_arm(c->inst, c) || __atomic_load_n(&c->down, __ATOMIC_ACQUIRE))
		__atomic_store_n(&sh->scan_all, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&sh->lock);
	core_server_wake_loop(srv, shard);
}

/* Destroy an unlinked connection: stop its packets first, then its queues. */
static void conn_free(struct prism_server *srv, struct core_conn *c)
{
	if (c->link)
		net_link_close(c->link);
	net_watch_remove(c->setup);
	core_inst_destroy(c->inst);
	core_server_peer_put(srv, c->peer);
	free(c);
	pthread_mutex_lock(&srv->lock);
	srv->conns_active--;
	pthread_mutex_unlock(&srv->lock);
}

bool core_server_peer_take(struct prism_server *srv, const char *host)
{
	struct core_peer_count *pc = NULL;
	bool ok = true;

	if (!*host)
		return true;
	pthread_mutex_lock(&srv->lock);
	for (unsigned i = 0; i < srv->n_peers && !pc; i++)
		if (!strcmp(srv->peers[i].host, host))
			pc = &srv->peers[i];
	if (!pc) {
		struct core_peer_count *np = realloc(srv->peers, (srv->n_peers + 1) * sizeof(*np));

		if (np) {
			srv->peers = np;
			pc = &np[srv->n_peers++];
			snprintf(pc->host, sizeof(pc->host), "%s", host);
			pc->n = 0;
		}
	}
	if (!pc || pc->n >= srv->max_conns_per_peer)
		ok = false;
	else
		pc->n++;
	pthread_mutex_unlock(&srv->lock);
	return ok;
}

void core_server_peer_put(struct prism_server *srv, const char *host)
{
	if (!*host)
		return;
	pthread_mutex_lock(&srv->lock);
	for (unsigned i = 0; i < srv->n_peers; i++)
		if (!strcmp(srv->peers[i].host, host)) {
			if (--srv->peers[i].n == 0)
				srv->peers[i] = srv->peers[--srv->n_peers];
			break;
		}
	pthread_mutex_unlock(&srv->lock);
}

void core_server_drop_conn(struct prism_server *srv, struct core_conn *c)
{
	conn_free(srv, c);
}

/* Shard lock held: take @c off the hot list, if it is there. */
static void hot_remove(struct core_server_shard *sh, struct core_conn *c)
{
	for (unsigned i = 0; c->hot && i < sh->n_hot; i++)
		if (sh->hot[i] == c) {
			sh->hot[i] = sh->hot[--sh->n_hot];
			c->hot = false;
		}
}

void core_server_close_conn(struct prism_server *srv, unsigned shard, uint32_t id)
{
	struct core_server_shard *sh = &srv->shards[shard];
	struct core_conn **pp, *c = NULL;

	pthread_mutex_lock(&sh->lock);
	for (pp = &sh->conns; *pp && (*pp)->id != id; pp = &(*pp)->next)
		;
	if (*pp) {
		c = *pp;
		*pp = c->next;
		__atomic_store_n(&sh->active, sh->active - 1, __ATOMIC_RELAXED);
		if (!c->link)
			__atomic_store_n(&sh->loop_conns, sh->loop_conns - 1, __ATOMIC_RELAXED);
		if (gated(c))
			__atomic_store_n(&sh->gated_conns, sh->gated_conns - 1, __ATOMIC_RELAXED);
		__atomic_sub_fetch(&c->inst->prog->conns_active, 1, __ATOMIC_RELAXED);
		/* no event may hand @c to a progress pass once the lock is dropped */
		core_inst_disarm(c->inst);
		hot_remove(sh, c);
	}
	pthread_mutex_unlock(&sh->lock);
	if (c)
		conn_free(srv, c); /* its CQs go, and their queued events with them */
}

bool core_server_has_conn(struct prism_server *srv, unsigned shard, uint32_t id)
{
	struct core_server_shard *sh = &srv->shards[shard];
	struct core_conn *c;

	pthread_mutex_lock(&sh->lock);
	for (c = sh->conns; c && c->id != id; c = c->next)
		;
	pthread_mutex_unlock(&sh->lock);
	return c != NULL;
}

/* Shard lock held: poll @c once; on failure mark it dead (unlinked by the caller). */
static int poll_conn(struct core_server_shard *sh, struct core_conn *c, bool *died)
{
	int n = __atomic_load_n(&c->down, __ATOMIC_ACQUIRE) ? -PRISM_E_NET_PEER_GONE
	                                                    : core_inst_poll(c->inst);

	sh->polls++;
	if (n >= 0) {
		if (n)
			core_server_net_rx_ready(c);
		if (c->inst->cpu_rearm)
			sh->rearms_cpu += (uint64_t)n;
		if (n)
			__atomic_add_fetch(&c->inst->prog->invocations, (uint64_t)n,
			                   __ATOMIC_RELAXED);
		return n;
	}
	core_info("conn %u: torn down: %s", c->id, prism_strerror(n));
	c->dead = true;
	*died = true;
	__atomic_store_n(&sh->active, sh->active - 1, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&c->inst->prog->conns_active, 1, __ATOMIC_RELAXED);
	if (n != -PRISM_E_NET_PEER_GONE)
		sh->failed++;
	return 0;
}

/* Shard lock held: keep @c polled next pass (it is busy) or arm it. */
static void after_poll(struct core_server_shard *sh, struct core_conn *c, int n, bool events)
{
	if (c->dead)
		return;
	if (n > 0 || !events || !core_inst_arm(c->inst, c)) {
		if (!c->hot && sh->n_hot < sh->hot_cap) {
			c->hot = true;
			sh->hot[sh->n_hot++] = c;
		} else if (!c->hot) {
			__atomic_store_n(&sh->scan_all, 1, __ATOMIC_RELAXED); /* no room */
		}
	}
}

/* Shard lock held: grow the hot list to hold every connection. */
static void hot_fit(struct core_server_shard *sh)
{
	/* on failure the list stays as it is: hot_cap bounds what is put in it */
	(void)ARRAY_RESERVE(sh->hot, sh->hot_cap, (size_t)sh->active + 1);
}

#define EV_BATCH 64u

int core_server_poll_shard(struct prism_server *srv, unsigned shard)
{
	struct core_server_shard *sh = &srv->shards[shard];
	const struct core_backend_ops *ops = srv->dev->ops;
	struct core_be_dev *be = srv->dev->shards[shard].be;
	bool events = ops->take_events && ops->arm_cq, died = false;
	struct core_conn *dead = NULL, **pp;
	int done = 0;

	core_shard_progress(srv->dev, shard);
	pthread_mutex_lock(&sh->lock);
	hot_fit(sh);
	if (!events || __atomic_exchange_n(&sh->scan_all, 0, __ATOMIC_ACQ_REL)) {
		/* every connection (each armed or kept hot again) */
		for (unsigned i = 0; i < sh->n_hot; i++)
			sh->hot[i]->hot = false;
		sh->n_hot = 0;
		for (struct core_conn *c = sh->conns; c; c = c->next) {
			int n = poll_conn(sh, c, &died);

			done += n;
			after_poll(sh, c, n, events);
		}
	} else {
		/* last pass's busy ones, then those with a completion event */
		unsigned n_prev = sh->n_hot, got;
		void *ev[EV_BATCH];

		for (unsigned i = 0; i < n_prev; i++)
			sh->hot[i]->hot = false;
		sh->n_hot = 0;
		for (unsigned i = 0; i < n_prev; i++) {
			struct core_conn *c = sh->hot[i];
			int n;

			if (c->dead)
				continue;
			n = poll_conn(sh, c, &died);
			done += n;
			/* the list is rebuilt behind the entries read so far */
			after_poll(sh, c, n, events);
		}
		do {
			got = ops->take_events(be, ev, EV_BATCH);
			for (unsigned i = 0; i < got; i++) {
				struct core_conn *c = ev[i];
				int n;

				/* polled already this pass or not, poll it: an
				 * event queued before its arm may stand for a CQE
				 * written since */
				if (c->dead)
					continue;
				n = poll_conn(sh, c, &died);
				done += n;
				after_poll(sh, c, n, events);
			}
		} while (got == EV_BATCH);
	}
	if (died) {
		for (pp = &sh->conns; *pp;) {
			struct core_conn *c = *pp;

			if (!c->dead) {
				pp = &c->next;
				continue;
			}
			*pp = c->next;
			if (!c->link)
				__atomic_store_n(&sh->loop_conns, sh->loop_conns - 1,
				                 __ATOMIC_RELAXED);
			if (gated(c))
				__atomic_store_n(&sh->gated_conns, sh->gated_conns - 1,
				                 __ATOMIC_RELAXED);
			core_inst_disarm(c->inst);
			/* it may have gone hot earlier in this pass, before it died */
			hot_remove(sh, c);
			c->next = dead;
			dead = c;
		}
	}
	sh->invocations += (uint64_t)done;
	pthread_mutex_unlock(&sh->lock);
	while (dead) {
		struct core_conn *c = dead;

		dead = c->next;
		conn_free(srv, c);
	}
	return done;
}

int core_server_poll(struct prism_server *srv)
{
	int done = 0;

	for (unsigned i = 0; i < srv->n_shards; i++)
		done += core_server_poll_shard(srv, i);
	return done;
}

/* Real time between two RNR retries of answers parked on a remote client. */
#define RNR_TICK_US 200u
/* The longest an idle loop sleeps without being woken (a safety net: what
 * needs it rings its bell). */
#define IDLE_WAIT_MS 50u
/* A busy loop's nap after 64 polls found nothing; its bell ends it early. */
#define BUSY_NAP_US 50u

void core_server_wake_loop(struct prism_server *srv, unsigned shard)
{
	struct core_server_loop *lp = &srv->loops[shard % srv->n_loops];

	pthread_mutex_lock(&lp->bell_lock);
	lp->rung = true;
	pthread_cond_signal(&lp->bell);
	pthread_mutex_unlock(&lp->bell_lock);
}

/* Until the loop's bell rings, stop, or @us pass; true when it rang. */
static bool bell_wait(struct core_server_loop *lp, unsigned us)
{
	struct timespec ts;
	bool rung;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += us / 1000000u;
	ts.tv_nsec += (long)(us % 1000000u) * 1000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&lp->bell_lock);
	while (!lp->rung && !__atomic_load_n(&lp->srv->stop, __ATOMIC_ACQUIRE))
		if (pthread_cond_timedwait(&lp->bell, &lp->bell_lock, &ts) == ETIMEDOUT)
			break;
	rung = lp->rung;
	lp->rung = false;
	pthread_mutex_unlock(&lp->bell_lock);
	return rung;
}

/* Did a send on one of the loop's shards park on an RNR NAK since the loop
 * last looked?  (Every shard is looked at, so that each one's count is
 * current.) */
static bool loop_parks_moved(struct core_server_loop *lp)
{
	struct prism_server *srv = lp->srv;
	bool moved = false;

	for (unsigned s = lp->index; s < srv->n_shards; s += srv->n_loops)
		moved |= core_server_net_parks_moved(srv, s);
	return moved;
}

/* Does a loop's shard need polling as fast as it can?  Not when every
 * connection on it is run to completion by its transport thread (and the
 * NIC runs on that thread too): then the loop only ticks the RNR timer
 * while answers park on RNR NAKs, and tears down connections whose link
 * went down; otherwise it sleeps until woken. */
static bool loop_busy(struct core_server_loop *lp)
{
	struct prism_server *srv = lp->srv;

	if (srv->dev->threaded)
		return true;
	for (unsigned s = lp->index; s < srv->n_shards; s += srv->n_loops)
		if (__atomic_load_n(&srv->shards[s].loop_conns, __ATOMIC_RELAXED))
			return true;
	return false;
}

/*
 * One progress loop: polls its shards (loop index, + n_loops, ...) and
 * ticks the RNR timer of its shards.  Clients are set up elsewhere (the
 * setup thread, server_net.c): nothing a client does before its connection
 * exists can hold this loop up.  With one
 * loop per shard no loop waits for another shard's connections.
 */
static void *progress_thread(void *arg)
{
	struct core_server_loop *lp = arg;
	struct prism_server *srv = lp->srv;
	uint64_t last_kick = util_now_us();
	bool ticking = false;
	unsigned idle = 0;

	while (!__atomic_load_n(&srv->stop, __ATOMIC_ACQUIRE)) {
		int n = 0;
		uint64_t now;

		for (unsigned s = lp->index; s < srv->n_shards; s += srv->n_loops)
			n += core_server_poll_shard(srv, s);
		/* The RNR timer ticks busy or idle: other connections keeping
		 * this loop busy must not starve one parked answer. */
		now = util_now_us();
		if (now - last_kick >= RNR_TICK_US) {
			last_kick = now;
			for (unsigned s = lp->index; s < srv->n_shards; s += srv->n_loops)
				core_server_net_kick(srv, s);
		}
		if (!loop_busy(lp)) {
			struct timespec ts = {0, RNR_TICK_US * 1000};

			/* The transport threads serve this loop's connections and
			 * kick at each packet: the timer runs only for answers
			 * parked since the last look, the first retry one tick
			 * after the NAK.  None: sleep until needed. */
			if (loop_parks_moved(lp)) {
				if (!ticking)
					last_kick = now;
				ticking = true;
				nanosleep(&ts, NULL);
			} else {
				ticking = false;
				bell_wait(lp, IDLE_WAIT_MS * 1000u);
			}
			continue;
		}
		if (n > 0) {
			idle = 0;
			continue;
		}
		if (++idle < 64)
			sched_yield();
		else if (bell_wait(lp, BUSY_NAP_US))
			idle = 0; /* what rang it wants polls at once (shard_rx_hook) */
	}
	return NULL;
}

static void join_loops(struct prism_server *srv, unsigned n)
{
	__atomic_store_n(&srv->stop, 1, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < n; i++)
		core_server_wake_loop(srv, i);
	for (unsigned i = 0; i < n; i++)
		pthread_join(srv->loops[i].thread, NULL);
}

PRISM_API int prism_server__start(struct prism_server *srv)
{
	int err = 0;
	unsigned i;

	if (!srv)
		return -EINVAL;
	if (srv->running)
		return -PRISM_E_BUSY;
	if ((srv->port || srv->allow_post) && (err = core_server_net_listen(srv)))
		return err;
	srv->stop = 0;
	for (i = 0; i < srv->n_loops; i++) {
		srv->loops[i].srv = srv;
		srv->loops[i].index = i;
		err = pthread_create(&srv->loops[i].thread, NULL, progress_thread, &srv->loops[i]);
		if (err)
			break;
		pthread_setname_np(srv->loops[i].thread, "prism-progress");
	}
	if (err) {
		join_loops(srv, i);
		core_server_net_close(srv);
		return -err;
	}
	srv->running = true;
	return 0;
}

PRISM_API void prism_server__stop(struct prism_server *srv)
{
	if (!srv)
		return;
	core_server_net_close(srv); /* no setup adds a connection from now on */
	if (srv->running) {
		join_loops(srv, srv->n_loops);
		srv->running = false;
	}
	for (unsigned i = 0; i < srv->n_shards; i++) {
		struct core_server_shard *sh = &srv->shards[i];

		pthread_mutex_lock(&sh->lock);
		struct core_conn *all = sh->conns;
		sh->conns = NULL;
		sh->n_hot = 0;
		__atomic_store_n(&sh->active, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&sh->loop_conns, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&sh->gated_conns, 0, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&sh->lock);
		while (all) {
			struct core_conn *c = all;

			all = c->next;
			conn_free(srv, c);
		}
	}
}

PRISM_API void prism_server__destroy(struct prism_server *srv)
{
	if (!srv)
		return;
	prism_server__stop(srv);
	net_watch_destroy(srv->watch); /* after every connection is gone */
	for (unsigned i = 0; i < srv->n_progs; i++)
		core_program_put(srv->progs[i]);
	for (unsigned i = 0; i < srv->n_shards; i++) {
		pthread_mutex_destroy(&srv->shards[i].lock);
		free(srv->shards[i].hot);
	}
	pthread_mutex_destroy(&srv->lock);
	free(srv->shards);
	for (unsigned i = 0; i < srv->n_loops; i++) {
		pthread_cond_destroy(&srv->loops[i].bell);
		pthread_mutex_destroy(&srv->loops[i].bell_lock);
	}
	free(srv->loops);
	free(srv->host);
	free(srv->post_socket);
	free(srv->post_uids);
	free(srv->peers);
	free(srv);
}

PRISM_API uint16_t prism_server__port(const struct prism_server *srv)
{
	return srv ? srv->bound_port : 0;
}

PRISM_API int prism_server__stats(const struct prism_server *srv, struct prism_server_stats *st)
{
	struct prism_server_stats copy = {0};
	size_t n;

	if (!srv || !st || st->sz < sizeof(size_t))
		return -EINVAL;
	n = st->sz < sizeof(*st) ? st->sz : sizeof(*st);
	for (unsigned i = 0; i < srv->n_shards; i++) {
		struct core_server_shard *sh = (struct core_server_shard *)&srv->shards[i];

		pthread_mutex_lock(&sh->lock);
		copy.conns_active += sh->active;
		copy.conns_total += sh->total;
		copy.conns_failed += sh->failed;
		copy.invocations += sh->invocations;
		copy.rearms_cpu += sh->rearms_cpu;
		copy.conn_polls += sh->polls;
		pthread_mutex_unlock(&sh->lock);
	}
	pthread_mutex_lock(&((struct prism_server *)srv)->lock);
	copy.conns_opened = srv->conns_opened;
	pthread_mutex_unlock(&((struct prism_server *)srv)->lock);
	copy.bytes_per_conn = __atomic_load_n(&srv->bytes_per_conn, __ATOMIC_RELAXED);
	copy.shards = srv->n_shards;
	copy.sz = st->sz;
	memcpy(st, &copy, n);
	return 0;
}

PRISM_API int prism_server__shard_stats(const struct prism_server *srv, unsigned shard,
                                        struct prism_shard_stats *st)
{
	struct prism_shard_stats copy = {0};
	struct core_server_shard *sh;
	size_t n;

	if (!srv || !st || st->sz < sizeof(size_t) || shard >= srv->n_shards)
		return -EINVAL;
	sh = (struct core_server_shard *)&srv->shards[shard];
	n = st->sz < sizeof(*st) ? st->sz : sizeof(*st);
	pthread_mutex_lock(&sh->lock);
	copy.conns_active = sh->active;
	copy.conns_total = sh->total;
	copy.invocations = sh->invocations;
	pthread_mutex_unlock(&sh->lock);
	copy.sz = st->sz;
	memcpy(st, &copy, n);
	return 0;
}

int core_server_post(struct prism_server *srv, const void *chain, size_t len,
                     const struct core_poster *who, char *why, size_t whylen)
{
	struct core_log_held held;
	struct prism_program *prog;
	bool replaces;
	int err;

	if (!srv->allow_post) {
		snprintf(why, whylen, "this server does not accept posted programs");
		return -EPERM;
	}
	/* the library's reason goes to the poster, and into the one line the
	 * caller logs about the refusal */
	core_log_hold(&held);
	prog = prism_program__open_mem(chain, len, NULL);
	if (!prog) {
		err = -errno;
		core_log_release(&held);
		snprintf(why, whylen, "%s", held.msg[0] ? held.msg : prism_strerror(err));
		return err;
	}
	prog->installed_uid = who->uid;
	prog->installed_pid = who->pid;
	pthread_mutex_lock(&srv->lock);
	replaces = find_program(srv, prog->name) >= 0;
	pthread_mutex_unlock(&srv->lock);
	err = prism_program__load(prog, srv->dev);
	if (!err)
		err = prism_server__add_program(srv, prog);
	core_log_release(&held);
	if (err && held.msg[0])
		snprintf(why, whylen, "%s", held.msg);
	else if (err)
		snprintf(why, whylen, "program '%s': %s", prog->name, prism_strerror(err));
	else
		core_info("server: program '%s' %s by uid %u pid %d (%zu-byte object, %d "
		          "entr%s) for new connections",
		          prog->name, replaces ? "replaced" : "installed", who->uid, (int)who->pid,
		          len, prism_program__entry_count(prog),
		          prism_program__entry_count(prog) == 1 ? "y" : "ies");
	prism_program__close(prog);
	return err;
}

/* Under srv->lock: what prism_post_list() says about @p. */
static void describe_installed(const struct prism_program *p, struct prism_installed *d)
{
	const struct chainobj *o = p->obj;

	memset(d, 0, sizeof(*d));
	d->sz = sizeof(*d);
	snprintf(d->name, sizeof(d->name), "%s", p->name);
	d->n_entries = o->n_entries;
	for (uint32_t e = 0; e < o->n_entries && e < PRISM_LIST_ENTRIES; e++)
		snprintf(d->entries[e], sizeof(d->entries[e]), "%s", o->entries[e].name);
	d->n_regions = o->n_regions;
	for (uint32_t r = 0; r < o->n_regions && r < PRISM_LIST_REGIONS; r++) {
		struct prism_region_info ri;

		prism_program__region(p, (int)r, &ri);
		snprintf(d->regions[r].name, sizeof(d->regions[r].name), "%s", ri.name);
		d->regions[r].size = ri.size;
		d->regions[r].access = ri.access;
	}
	d->object_bytes = p->object_bytes;
	d->installed_at = p->installed_at;
	d->installed_uid = p->installed_uid;
	d->installed_pid = p->installed_pid;
	d->conns_active = __atomic_load_n(&p->conns_active, __ATOMIC_RELAXED);
	d->conns_total = __atomic_load_n(&p->conns_total, __ATOMIC_RELAXED);
	d->invocations = __atomic_load_n(&p->invocations, __ATOMIC_RELAXED);
}

int core_server_list(struct prism_server *srv, struct prism_installed **out, unsigned *n)
{
	pthread_mutex_lock(&srv->lock);
	*n = srv->n_progs;
	*out = calloc(srv->n_progs ? srv->n_progs : 1, sizeof(**out));
	if (!*out) {
		pthread_mutex_unlock(&srv->lock);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < srv->n_progs; i++)
		describe_installed(srv->progs[i], &(*out)[i]);
	pthread_mutex_unlock(&srv->lock);
	return 0;
}
