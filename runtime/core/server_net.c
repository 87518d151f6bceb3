/* SPDX-License-Identifier: MIT */
/*
 * core/server_net.c - a server's network side: listen, answer a client's
 * setup with the connection description, hand the conn queue's packets to
 * the transport (moving a local client's onto a shared-memory ring pair);
 * install and remove posted programs.
 *
 * Owns: the listeners of a prism_server (TCP for clients, a Unix socket for
 * installs, an abstract ring socket and its offers for local clients), the setup thread's callback
 * (net_accept.h: the CONNECT -> instance -> ACCEPT -> attach sequence, the per-peer connection
 * limit, the install authorization by uid), the transport's down callback and, on an RDMA NIC, the
 * watch of each client's setup socket (both only mark the connection; the progress thread tears it
 * down), and the rx hook by which the transport thread runs a shard to completion. Must not: run on
 * a progress loop: setups, and parsing and loading posted objects, happen on the setup thread.
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/client.h"
#include "core/server.h"
#include "net/net.h"

static void net_log(void *ctx, int level, const char *msg)
{
	(void)ctx;
	core_log((enum prism_log_level)level, "net: %s", msg);
}

struct net_transport *core_dev_transport(struct prism_device *dev, unsigned shard)
{
	struct core_shard *sh = &dev->shards[shard];
	struct diag_report d = {0};
	int err;

	pthread_mutex_lock(&dev->transport_lock);
	if (!sh->transport) {
		struct net_transport_opts o = {.sz = sizeof(o), .log = net_log};
		struct net_transport *t = NULL;

		err = net_transport_create(sim_backend_dev(sh->be), &o, &t, &d);
		if (err)
			core_err("device %s: transport (NIC thread %u): %s", dev->name, shard,
			         d.msg);
		else
			__atomic_store_n(&sh->transport, t, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&dev->transport_lock);
	return sh->transport;
}

static void serve_setup(void *ctx, struct net_pending *p);

static bool rings_off(void)
{
	const char *e = getenv("PRISM_TRANSPORT");

	return e && !strcmp(e, "tcp");
}

int core_server_net_listen(struct prism_server *srv)
{
	struct net_accept_opts ao = {
	    .max_pending = srv->max_setups,
	    .max_pending_per_peer = srv->max_setups_per_peer,
	    .on_connect = serve_setup,
	    .log = net_log,
	    .ctx = srv,
	};
	struct diag_report d = {0};
	int err = 0;

	if (srv->port) {
		err = net_listen(srv->host, srv->port < 0 ? NET_PORT_EPHEMERAL : srv->port,
		                 &srv->listener, &d);
		if (!err) {
			srv->bound_port = (uint16_t)net_listener_port(srv->listener);
			core_info("server: listening on port %u", srv->bound_port);
		}
	}
	/* an RDMA NIC's connections keep their setup socket, watched: the
	 * watch starts now, not inside a client's setup */
	if (!err && srv->port && !core_dev_is_sim(srv->dev) && !srv->watch &&
	    net_watch_create(&srv->watch, &d))
		core_warn("server: dead clients will not be noticed: %s", d.msg);
	/* local clients' ring pairs (sim device): unless PRISM_TRANSPORT=tcp */
	if (!err && srv->port && core_dev_is_sim(srv->dev) && !rings_off()) {
		if (net_listen_ring(&srv->ring_listener, &d) ||
		    net_ring_offers_create(srv->ring_listener, NET_RING_DEFAULT_SIZE, 0,
		                           &srv->ring_offers, &d)) {
			core_warn("server: local clients stay on TCP: %s", d.msg);
			net_listener_close(srv->ring_listener);
			srv->ring_listener = NULL;
			d.msg[0] = '\0';
		}
	}
	if (!err && srv->allow_post) {
		err = net_listen_unix(srv->post_socket, &srv->post_listener, &d);
		if (!err)
			core_info("server: programs installed on %s", srv->post_socket);
	}
	if (!err)
		err = net_acceptor_start(srv->listener, srv->post_listener, srv->ring_listener, &ao,
		                         &srv->acceptor, &d);
	if (err) {
		core_err("server: %s", d.msg);
		core_server_net_close(srv);
	}
	return err;
}

/*
 * Run-to-completion: the transport thread that just handed a shard packets
 * runs it (NIC steps, answers, the CPU's re-arms, then the NIC again for
 * what the re-arms enabled) before it sleeps, and the answers leave when it
 * returns.  A request wakes one server thread, not a transport thread and
 * then a progress loop.  Bounded: other links' packets wait meanwhile.
 */
#define RX_HOOK_ROUNDS 4

static void shard_rx_hook(void *ctx)
{
	struct core_server_shard *ss = ctx;

	/* a peer's packet is outside progress: answers parked on an RNR NAK
	 * retry (the peer re-posts its receives before it sends again) */
	core_server_net_kick(ss->srv, ss->index);
	for (int i = 0; i < RX_HOOK_ROUNDS; i++)
		if (core_server_poll_shard(ss->srv, ss->index) <= 0)
			break;
	/* On a threaded device the NIC thread runs what was just handed over
	 * after this returns: the completion a one-at-a-time connection's next
	 * request waits for (the re-arm) is seen by the loop's polls, which
	 * start now rather than when its nap runs out. */
	if (ss->srv->dev->threaded && __atomic_load_n(&ss->gated_conns, __ATOMIC_RELAXED))
		core_server_wake_loop(ss->srv, ss->index);
	/* an answer parked on an RNR NAK: the idle loop starts its timer */
	if (sim_dev_rnr_parks(sim_backend_dev(ss->srv->dev->shards[ss->index].be)) !=
	    __atomic_load_n(&ss->parks_seen, __ATOMIC_RELAXED))
		core_server_wake_loop(ss->srv, ss->index);
}

void core_server_net_close(struct prism_server *srv)
{
	net_acceptor_stop(srv->acceptor); /* no setup sets a hook from now on */
	srv->acceptor = NULL;
	/* the transports belong to the device and outlive this server */
	for (unsigned i = 0; i < srv->n_shards; i++) {
		struct net_transport *t =
		    __atomic_load_n(&srv->dev->shards[i].transport, __ATOMIC_ACQUIRE);

		if (t)
			net_transport_set_rx_hook(t, NULL, NULL);
	}
	if (srv->listener)
		net_listener_close(srv->listener);
	srv->listener = NULL;
	if (srv->post_listener)
		net_listener_close(srv->post_listener);
	srv->post_listener = NULL;
	if (srv->ring_listener)
		net_listener_close(srv->ring_listener);
	srv->ring_listener = NULL;
	net_ring_offers_destroy(srv->ring_offers);
	srv->ring_offers = NULL;
}

/*
 * The RNR timer of a shard whose clients sit in other processes.  An answer
 * (WRITE_IMM or SEND) that found no receive posted at the client drew an RNR
 * NAK; the sim parks an infinite RNR retry until its device sees outside
 * progress, but the client re-posts its receives on its own device, in its
 * own process, which never bumps ours: without this the answer stays parked
 * and the client's invocation times out.  The progress loop kicks each shard
 * it serves every 200 us, as a NIC's RNR timer fires: always while it is
 * busy, and while sends keep parking when idle (otherwise it sleeps).  No
 * transport on the shard (every client in this process): nothing to do,
 * re-posts bump this device.
 */
void core_server_net_kick(struct prism_server *srv, unsigned shard)
{
	struct core_shard *sh = &srv->dev->shards[shard];

	if (__atomic_load_n(&sh->transport, __ATOMIC_ACQUIRE))
		sim_dev_kick(sim_backend_dev(sh->be));
}

bool core_server_net_parks_moved(struct prism_server *srv, unsigned shard)
{
	struct core_shard *sh = &srv->dev->shards[shard];
	uint64_t n;

	if (!__atomic_load_n(&sh->transport, __ATOMIC_ACQUIRE))
		return false;
	n = sim_dev_rnr_parks(sim_backend_dev(sh->be));
	return __atomic_exchange_n(&srv->shards[shard].parks_seen, n, __ATOMIC_RELAXED) != n;
}

/*
 * The windows @c's instance has posted, for its link: a request whose
 * window is posted needs no run of the shard on the acknowledgements before
 * it (net_link_set_rx_ready).  A program that re-arms on the NIC posts
 * once: its requests keep waiting for that run.  Called where the windows
 * cannot change meanwhile (before the connection is added; under the shard
 * lock after a poll).
 */
void core_server_net_rx_ready(struct core_conn *c)
{
	if (c->link && c->inst->cpu_rearm)
		net_link_set_rx_ready(c->link, c->inst->posted);
}

/* The peer of @c is gone: mark it; its shard's progress loop tears it down. */
static void conn_peer_gone(struct core_conn *c, const char *what, const char *why)
{
	struct prism_server *srv = c->srv;

	core_info("conn %u: %s: %s", c->id, what, why);
	__atomic_store_n(&c->down, 1, __ATOMIC_RELEASE);
	/* its shard's next pass looks at every connection, this one too */
	__atomic_store_n(&srv->shards[c->shard].scan_all, 1, __ATOMIC_RELEASE);
	core_server_wake_loop(srv, c->shard);
}

static void link_down(void *ctx, struct net_link *link, int err, const char *why)
{
	(void)link, (void)err;
	conn_peer_gone(ctx, "link down", why);
}

static void setup_closed(void *ctx, const char *why)
{
	conn_peer_gone(ctx, "setup connection", why);
}

/*
 * An RDMA NIC's connection: its setup socket stays open, watched, for the
 * connection's life (the watch was started with the listener).  Without a
 * watch the connection works, but a client that dies is not noticed.
 */
static void watch_setup(struct prism_server *srv, struct core_conn *c, int fd)
{
	struct diag_report d = {0};

	if (!srv->watch) { /* its creation failed at listen (logged there) */
		close(fd);
		return;
	}
	if (net_watch_add(srv->watch, fd, setup_closed, c, &c->setup, &d))
		core_warn("conn %u: a dead client will not be noticed: %s", c->id, d.msg);
}

/* May the peer of @p install, remove or list programs?  Only on the post
 * socket, only from an allowed uid. */
static bool may_post(struct prism_server *srv, struct net_pending *p, struct core_poster *who,
                     char *why, size_t cap)
{
	if (!net_pending_local_cred(p, &who->uid, &who->pid)) {
		snprintf(why, cap, "programs are installed only on the server's local post socket");
		return false;
	}
	for (unsigned i = 0; i < srv->n_post_uids; i++)
		if (srv->post_uids[i] == who->uid)
			return true;
	snprintf(why, cap, "uid %u may not install, remove or list programs on this server",
	         who->uid);
	return false;
}

/* The listing as the ACCEPT's blob. */
static int answer_list(struct prism_server *srv, struct net_oob_params *mine, char *why, size_t cap)
{
	struct prism_installed *l;
	unsigned n;
	size_t len;
	int err = core_server_list(srv, &l, &n);

	if (err) {
		snprintf(why, cap, "%s", prism_strerror(err));
		return err;
	}
	len = core_list_encode(l, n, NULL, 0);
	mine->blob = len <= NET_OOB_MAX_BLOB ? malloc(len) : NULL;
	if (!mine->blob) {
		free(l);
		snprintf(why, cap, "out of memory");
		return -ENOMEM;
	}
	core_list_encode(l, n, mine->blob, len);
	mine->blob_len = (uint32_t)len;
	free(l);
	return 0;
}

static const char *const request_names[] = {
    [CORE_HELLO_POST] = "install",
    [CORE_HELLO_REMOVE] = "removal",
    [CORE_HELLO_LIST] = "listing",
};

/* An install, removal or listing on the post socket; each one that changes
 * something, and each refusal, is logged with who asked. */
static void serve_post(struct prism_server *srv, struct net_pending *p, const struct core_hello *h,
                       const uint8_t *chain, size_t len)
{
	struct net_oob_params mine = {.node = srv->dev->node};
	struct core_poster who = {0, -1};
	struct diag_report d = {0};
	char why[256] = "";
	int err, fd;

	if (!may_post(srv, p, &who, why, sizeof(why))) {
		err = -EPERM;
	} else if (h->kind == CORE_HELLO_REMOVE) {
		err = prism_server__remove_program(srv, h->program);
		if (err)
			snprintf(why, sizeof(why), "program '%s': %s", h->program,
			         prism_strerror(err));
		else
			core_info("server: program '%s' removed by uid %u pid %d", h->program,
			          who.uid, (int)who.pid);
	} else if (h->kind == CORE_HELLO_LIST) {
		err = answer_list(srv, &mine, why, sizeof(why));
	} else {
		err = core_server_post(srv, chain, len, &who, why, sizeof(why));
	}
	if (err) {
		core_warn("server: %s from %s refused: %s", request_names[h->kind],
		          net_pending_addr(p), why);
		net_pending_reject(p, err, why);
		return;
	}
	err = net_pending_accept(p, &mine, &fd, &d);
	free(mine.blob);
	if (!err)
		close(fd);
}

static void serve_connect(struct prism_server *srv, struct net_pending *p, struct core_hello *h)
{
	/* The pending (and its blob) dies at accept/reject: keep a copy. */
	struct net_oob_params pc = *net_pending_peer(p), *peer = &pc;
	unsigned shard = core_server_pick_shard(srv);
	struct core_shard *sh = &srv->dev->shards[shard];
	struct net_transport *t =
	    core_dev_is_sim(srv->dev) ? core_dev_transport(srv->dev, shard) : NULL;
	struct net_oob_params mine = {0};
	uint8_t *blob;
	struct core_welcome w;
	struct core_conn *c;
	struct diag_report d = {0};
	int err, fd;
	size_t n;
	char host[sizeof(c->peer)];

	if (!t && core_dev_is_sim(srv->dev)) {
		net_pending_reject(p, -EIO, "server transport unavailable");
		return;
	}
	if (net_pending_local_uid(p, &(uint32_t){0})) {
		net_pending_reject(p, -EINVAL,
		                   "the post socket installs programs; connect over TCP");
		return;
	}
	snprintf(host, sizeof(host), "%s", net_pending_host(p));
	if (!core_server_peer_take(srv, host)) {
		core_warn("server: connection from %s refused: %u connections from that address "
		          "is the limit",
		          net_pending_addr(p), srv->max_conns_per_peer);
		net_pending_reject(p, -PRISM_E_LIMIT, "too many connections from this address");
		return;
	}
	pc.blob = NULL;
	pc.blob_len = 0;
	/* On an RDMA NIC the client's QP is reached by its LID / GID. */
	h->node = t ? net_peer_node(sim_backend_dev(sh->be), peer) : peer->node;
	h->qpn = peer->qpn;
	h->lid = peer->lid;
	h->mtu = peer->mtu;
	memcpy(h->gid, peer->gid, sizeof(h->gid));
	err = core_server_open_conn(srv, shard, h, &w, &c);
	if (err) {
		char why[128];

		unsigned n_progs = __atomic_load_n(&srv->n_progs, __ATOMIC_RELAXED);

		/* without a name, the server's only program: say why there is none */
		if (err == -PRISM_E_NOPROG && !h->program[0] && n_progs)
			snprintf(why, sizeof(why),
			         "the client named no program and the server has %u: name one",
			         n_progs);
		else if (err == -PRISM_E_NOPROG && !n_progs)
			snprintf(why, sizeof(why), "the server offers no program");
		else
			snprintf(why, sizeof(why), "%s", prism_strerror(err));
		core_server_peer_put(srv, host);
		net_pending_reject(p, err, why);
		return;
	}
	snprintf(c->peer, sizeof(c->peer), "%s", host); /* conn_free puts it back */
	mine.node = sh->node;
	mine.qpn = w.qpn;
	core_shard_addr(srv->dev, shard, &mine.lid, &mine.mtu, mine.gid);
	n = core_welcome_encode(&w, NULL, 0);
	blob = n <= NET_OOB_MAX_BLOB ? malloc(n) : NULL;
	if (!blob) {
		core_welcome_free(&w);
		net_pending_reject(p, -ENOMEM, "connection description too large");
		core_server_drop_conn(srv, c);
		return;
	}
	core_welcome_encode(&w, blob, n);
	core_welcome_free(&w);
	mine.blob = blob;
	mine.blob_len = (uint32_t)n;
	/* a client on this host may fetch a ring pair for this connection */
	if (t && (peer->flags & NET_OOB_F_RING_OFFER) && srv->ring_offers &&
	    net_pending_same_host(p) &&
	    !net_ring_offer(srv->ring_offers, (uint64_t)shard << 32 | c->id, &mine.ring))
		mine.flags |= NET_OOB_F_RING;
	uint32_t id = c->id;
	struct core_be_qp *qp = c->inst->qps[c->inst->prog->conn_queue].qp;

	err = net_pending_accept(p, &mine, &fd, &d);
	free(blob);
	if (err) {
		core_warn("conn %u: setup answer failed: %s", id, d.msg);
		core_server_drop_conn(srv, c);
		return;
	}
	struct net_link_cbs cbs = {.down = link_down, .ctx = c};

	if (!t) { /* RDMA NIC: connected on its fabric; TCP tells the peer's end */
		watch_setup(srv, c, fd);
		core_server_add_conn(srv, c);
		return;
	}
	/* Not polled yet: only after it is added may the shard's progress loop
	 * (maybe another thread) tear it down. */
	err = net_transport_attach(t, fd, sim_backend_qp(qp), peer, &cbs, &c->link, &d);
	if (err) {
		core_warn("conn %u: attach failed: %s", id, d.msg);
		__atomic_store_n(&c->down, 1, __ATOMIC_RELEASE);
	} else {
		core_server_net_rx_ready(c);
	}
	core_server_add_conn(srv, c);
	net_transport_set_rx_hook(t, shard_rx_hook, &srv->shards[shard]);
}

/*
 * A client of the ring socket with the token of its connection: the ring
 * pair goes to it, then the connection's link moves onto it.  Anything
 * failing before the pair was passed leaves the connection on TCP (the
 * client stays there); after, the link fails and the client sees it.
 */
static void serve_ring(struct prism_server *srv, struct net_pending *p)
{
	struct core_server_shard *sh;
	struct diag_report d = {0};
	struct net_ring *ring;
	struct core_conn *c;
	uint64_t cookie;
	char from[64];
	int err;

	snprintf(from, sizeof(from), "%s", net_pending_addr(p));
	if (!srv->ring_offers) {
		net_pending_reject(p, -ENOTSUP, "this server offers no rings");
		return;
	}
	err = net_ring_serve(srv->ring_offers, p, &cookie, &ring, &d);
	if (err) {
		core_warn("server: ring for %s refused: %s", from, d.msg);
		return;
	}
	if ((cookie >> 32) >= srv->n_shards) { /* cannot happen: our own cookie */
		net_ring_close(ring);
		return;
	}
	sh = &srv->shards[cookie >> 32];
	/* under the shard's lock the connection cannot be torn down */
	pthread_mutex_lock(&sh->lock);
	for (c = sh->conns; c && c->id != (uint32_t)cookie; c = c->next)
		;
	if (c && c->link && !c->dead) {
		err = net_link_use_ring(c->link, ring, &d);
		ring = NULL;
	} else {
		err = -ENOENT;
		snprintf(d.msg, sizeof(d.msg), "its connection is gone");
	}
	pthread_mutex_unlock(&sh->lock);
	net_ring_close(ring);
	if (err)
		core_warn("server: ring for %s: %s", from, d.msg);
	else
		core_info("conn %u: packets over a shared-memory ring (%s)", (uint32_t)cookie,
		          from);
}

/* The setup thread's callback: a complete CONNECT from @p. */
static void serve_setup(void *ctx, struct net_pending *p)
{
	struct prism_server *srv = ctx;
	const struct net_oob_params *peer = net_pending_peer(p);
	struct core_hello h;
	size_t hl;

	if (net_pending_is_ring(p)) {
		serve_ring(srv, p);
		return;
	}
	if (core_hello_decode(peer->blob, peer->blob_len, &h)) {
		net_pending_reject(p, -EPROTO, "malformed prism hello");
		return;
	}
	hl = core_hello_encode(&h, NULL, 0);
	if (h.kind == CORE_HELLO_POST || h.kind == CORE_HELLO_REMOVE || h.kind == CORE_HELLO_LIST)
		serve_post(srv, p, &h, peer->blob + hl, peer->blob_len - hl);
	else
		serve_connect(srv, p, &h);
}
