/* SPDX-License-Identifier: MIT */
/*
 * core/client_net.c - a client's network side: the setup exchange with a
 * server (hello out, connection description back), fetching a shared-memory
 * ring pair when the server is on this host, attaching our QP to the
 * transport, and `prismc post`'s one-shot install or removal on a server's
 * post socket.
 *
 * Owns: parsing "host:port", the choice of carrier (prism_client_opts
 * .transport, else PRISM_TRANSPORT), retrying a setup the server refused as
 * busy (bounded by the timeout), mapping setup failures to prism codes,
 * the client's link-down flag, making the link a polled one (the waiting
 * thread reads it) and the wait on it; on a threaded device, the response
 * CQ's completion channel that wait also sleeps on.
 * Must not: touch the data path (client.c).
 */
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <string.h>
#include <unistd.h>

#include "core/client.h"
#include "core/opts.h"
#include "net/net.h"
#include "util/clock.h"

static int split_addr(const char *addr, char *host, size_t cap, int *port)
{
	const char *colon = strrchr(addr, ':');
	size_t hl = colon ? (size_t)(colon - addr) : strlen(addr);
	char *end;

	if (hl >= cap)
		return -EINVAL;
	memcpy(host, addr, hl);
	host[hl] = 0;
	*port = 0;
	if (colon) {
		long v = strtol(colon + 1, &end, 10);

		if (!colon[1] || *end || v <= 0 || v > 65535)
			return -EINVAL;
		*port = (int)v;
	}
	return 0;
}

_Static_assert(NET_E_RESOLVE == -PRISM_E_NET_RESOLVE, "net and prism name resolution codes");
_Static_assert(NET_E_BUSY == -PRISM_E_NET_BUSY, "net and prism busy-server codes");

#define BUSY_FIRST_MS 2u  /* the first wait after a busy REJECT */
#define BUSY_MAX_MS   64u /* the longest (the waits double up to it) */
/* No try is started with less than this left of the call's timeout: such a
 * try would end in a timeout that hides the server's "busy". */
#define BUSY_TRY_MIN_MS 100u

/*
 * A server with too many setups in progress answers REJECT with EBUSY
 * (NET_E_BUSY): many threads attaching at once meet its per-address limit.
 * Such a setup is tried again after a wait that doubles from BUSY_FIRST_MS
 * to BUSY_MAX_MS, each drawn from [half, whole] so that clients refused
 * together come back apart, until @timeout_ms (negative: no bound) has
 * passed since @start_ms, or less than BUSY_TRY_MIN_MS of it would be left
 * for the next try.  Returns true after the wait when another try is due;
 * busy_left() is what that try may take.
 */
static bool busy_wait(int err, int64_t start_ms, int timeout_ms, unsigned *wait_ms, unsigned *seed)
{
	unsigned ms;

	if (err != NET_E_BUSY)
		return false;
	ms = *wait_ms / 2 + (unsigned)rand_r(seed) % (*wait_ms / 2 + 1);
	if (timeout_ms >= 0 && util_now_ms() + ms + BUSY_TRY_MIN_MS - start_ms > timeout_ms)
		return false;
	core_dbg("client: server busy with other setups; again in %u ms", ms);
	poll(NULL, 0, (int)ms);
	*wait_ms = *wait_ms * 2 > BUSY_MAX_MS ? BUSY_MAX_MS : *wait_ms * 2;
	return true;
}

/* What is left of @timeout_ms since @start_ms (at least 1 ms; negative: no bound). */
static int busy_left(int64_t start_ms, int timeout_ms)
{
	int64_t left = timeout_ms - (util_now_ms() - start_ms);

	return timeout_ms < 0 ? timeout_ms : left < 1 ? 1 : (int)left;
}

static unsigned busy_seed(void)
{
	return (unsigned)util_now_ms() ^ (unsigned)(uintptr_t)pthread_self() ^ (unsigned)getpid();
}

static int setup_error(int err, const struct diag_report *d, const char *addr)
{
	/* the net module's message names the address already */
	if (d->msg[0])
		core_err("%s", d->msg);
	else
		core_err("connect %s: %s", addr, prism_strerror(err));
	if (err == -ECONNREFUSED && strstr(d->msg, "reject"))
		return -PRISM_E_NET_REJECTED;
	if (err == NET_E_BUSY)
		return -PRISM_E_NET_BUSY;
	if (err == -EPROTO)
		return -PRISM_E_NET_PROTO;
	if (err == -EPROTONOSUPPORT)
		return -PRISM_E_NET_VERSION;
	return err;
}

/* What the client asked for: its option, else PRISM_TRANSPORT (auto). */
static enum prism_transport transport_wanted(const struct prism_client *cl)
{
	const char *e = getenv("PRISM_TRANSPORT");

	if (cl->transport != PRISM_TRANSPORT_AUTO || !e || !*e || !strcmp(e, "auto"))
		return cl->transport;
	if (!strcmp(e, "tcp"))
		return PRISM_TRANSPORT_TCP;
	if (!strcmp(e, "shm"))
		return PRISM_TRANSPORT_SHM;
	core_warn("client: PRISM_TRANSPORT='%s' is not tcp, shm or auto; using auto", e);
	return PRISM_TRANSPORT_AUTO;
}

/*
 * The server offered a ring pair (it is on this host): fetch it, within what
 * is left of the setup's timeout since @start (a busy REJECT waits and tries
 * again, busy_wait).  Failing that the connection stays on TCP, unless the
 * client asked for a ring.
 */
static int fetch_ring(struct prism_client *cl, const char *addr, const struct net_oob_params *peer,
                      uint32_t node, enum prism_transport want, int64_t start, unsigned *wait_ms,
                      unsigned *seed)
{
	struct diag_report d = {0};
	int err;

	if (!(peer->flags & NET_OOB_F_RING)) {
		if (want != PRISM_TRANSPORT_SHM)
			return 0;
		core_err("connect %s: no shared-memory ring: the server is not on this host, or "
		         "offers none",
		         addr);
		return -ENOTSUP;
	}
	/* the ring socket is one of the server's listeners: its setups count
	 * against the same limits, and a busy one is tried again the same way */
	do
		err = net_ring_fetch(&peer->ring, node, busy_left(start, cl->timeout_ms), &cl->ring,
		                     &d);
	while (busy_wait(err, start, cl->timeout_ms, wait_ms, seed));
	if (!err)
		return 0;
	if (want == PRISM_TRANSPORT_SHM) {
		core_err("connect %s: %s", addr, d.msg);
		return err;
	}
	core_info("client: %s: staying on TCP: %s", addr, d.msg);
	return 0;
}

static void client_link_down(void *ctx, struct net_link *link, int err, const char *why)
{
	struct prism_client *cl = ctx;

	(void)link;
	core_info("client: link down: %s", why);
	__atomic_store_n(&cl->link_down, 1, __ATOMIC_RELEASE);
}

int core_client_net_connect(struct prism_client *cl, const char *addr, struct core_hello *h)
{
	struct net_transport *t = NULL;
	struct net_oob_params mine = {0}, peer = {0};
	struct diag_report d = {0};
	uint8_t hello[256];
	char host[256];
	enum prism_transport want = PRISM_TRANSPORT_TCP;
	int64_t start = util_now_ms();
	unsigned wait_ms = BUSY_FIRST_MS, seed = busy_seed();
	int port, fd, err;
	size_t n;

	/* The sim's packets travel over this TCP connection (or a ring pair); an RDMA NIC's
	 * travel on its own fabric and TCP only carries the setup. */
	if (core_dev_is_sim(cl->dev) && !(t = core_dev_transport(cl->dev, cl->shard)))
		return -PRISM_E_BACKEND;
	if (split_addr(addr, host, sizeof(host), &port)) {
		core_err("client: '%s' is not host:port", addr);
		return -EINVAL;
	}
	mine.node = cl->dev->shards[cl->shard].node;
	core_shard_addr(cl->dev, cl->shard, &mine.lid, &mine.mtu, mine.gid);
	mine.qpn = h->qpn;
	mine.n_regions = 1;
	mine.regions[0] =
	    (struct net_oob_region){h->resp_addr, h->resp_rkey, h->resp_slots * h->resp_stride};
	n = core_hello_encode(h, hello, sizeof(hello));
	mine.blob = hello;
	mine.blob_len = (uint32_t)n;
	want = transport_wanted(cl);
	if (t && want != PRISM_TRANSPORT_TCP)
		mine.flags = NET_OOB_F_RING_OFFER; /* dropped for a server on another host */
	do
		err = net_connect(host[0] ? host : "127.0.0.1", port, &mine, &peer,
		                  busy_left(start, cl->timeout_ms), &fd, &d);
	while (busy_wait(err, start, cl->timeout_ms, &wait_ms, &seed));
	if (err)
		return setup_error(err, &d, addr);
	err = core_welcome_decode(peer.blob, peer.blob_len, &cl->w);
	net_oob_params_release(&peer);
	if (!err && cl->w.status)
		err = cl->w.status;
	if (err) {
		close(fd);
		core_err("connect %s: %s", addr, prism_strerror(err));
		return err;
	}
	if (t && want != PRISM_TRANSPORT_TCP &&
	    (err = fetch_ring(cl, addr, &peer, mine.node, want, start, &wait_ms, &seed))) {
		close(fd);
		return err;
	}
	if (t) {
		cl->peer_node =
		    net_peer_node(sim_backend_dev(cl->dev->shards[cl->shard].be), &peer);
	} else {
		cl->peer_node = peer.node;
		cl->peer_addr.lid = peer.lid;
		cl->peer_addr.mtu = peer.mtu;
		memcpy(cl->peer_addr.gid, peer.gid, sizeof(cl->peer_addr.gid));
	}
	cl->net_fd = fd;
	cl->net_peer = malloc(sizeof(peer));
	if (!cl->net_peer) {
		close(fd);
		return -ENOMEM;
	}
	memcpy(cl->net_peer, &peer, sizeof(peer));
	return 0;
}

int core_client_net_attach(struct prism_client *cl)
{
	struct net_link_cbs cbs = {.down = client_link_down, .ctx = cl};
	struct diag_report d = {0};
	int err;

	if (!core_dev_is_sim(cl->dev)) {
		/* RDMA NIC: the QP is connected; the socket stays open, unused,
		 * until the client closes. */
		free(cl->net_peer);
		cl->net_peer = NULL;
		return 0;
	}
	if (cl->ring) {
		/* the setup socket stays open beside the ring until the client
		 * closes: the server moves its end of the link off it */
		err = net_transport_attach_ring(core_dev_transport(cl->dev, cl->shard), cl->ring,
		                                sim_backend_qp(cl->qp), cl->net_peer, &cbs,
		                                &cl->link, &d);
		cl->ring = NULL;
		cl->on_ring = err == 0;
	} else {
		err =
		    net_transport_attach(core_dev_transport(cl->dev, cl->shard), cl->net_fd,
		                         sim_backend_qp(cl->qp), cl->net_peer, &cbs, &cl->link, &d);
		cl->net_fd = -1;
	}
	free(cl->net_peer);
	cl->net_peer = NULL;
	if (err) {
		core_err("client: attach: %s", d.msg);
		return err;
	}
	/* The thread that waits for an answer reads it off the socket itself
	 * (else the transport thread does, and the answer wakes two threads). */
	cl->link_polled = net_link_set_polled(cl->link) == 0;
	/* A threaded device's NIC thread writes the completion that ends a
	 * call after this thread handed it the packet: the wait sleeps on the
	 * response CQ's completion channel too (ibv_get_cq_event). */
	if (cl->link_polled && cl->dev->threaded) {
		struct sim_channel *ch;

		err = sim_channel_create(sim_backend_dev(cl->dev->shards[cl->shard].be), &ch);
		if (!err && (err = sim_cq_set_channel(sim_backend_cq(cl->rcq), ch)))
			sim_channel_destroy(ch);
		if (err) {
			core_err("client: completion channel: %s", strerror(-err));
			return err;
		}
		cl->cq_ch = ch;
	}
	return 0;
}

/*
 * The RNR timer of a client whose peer is in another process: a SEND that
 * found no receive posted (the server CPU had not re-armed yet) is parked
 * until the device sees outside progress; the server's re-post happens on
 * another device, so the waiting client kicks its own device now and then,
 * as a NIC's RNR timer would fire.
 */
void core_client_net_kick(struct prism_client *cl)
{
	sim_dev_kick(sim_backend_dev(cl->dev->shards[cl->shard].be));
}

uint64_t core_client_net_parks(struct prism_client *cl)
{
	return sim_dev_rnr_parks(sim_backend_dev(cl->dev->shards[cl->shard].be));
}

bool core_client_net_peer_gone(struct prism_client *cl)
{
	struct pollfd p = {.fd = cl->net_fd, .events = POLLIN | POLLRDHUP};
	char b;

	if (poll(&p, 1, 0) <= 0)
		return false;
	if (p.revents & (POLLRDHUP | POLLHUP | POLLERR))
		return true;
	/* readable: end of stream, or bytes the setup protocol never sends */
	return recv(cl->net_fd, &b, 1, MSG_DONTWAIT | MSG_PEEK) == 0;
}

void core_client_net_hold_acks(struct prism_client *cl, bool hold)
{
	net_link_hold_acks(cl->link, hold);
}

int core_client_net_wait(struct prism_client *cl, int timeout_us)
{
	return net_link_poll(cl->link, timeout_us);
}

int core_client_net_wait_cqe(struct prism_client *cl, int timeout_us)
{
	enum net_woke woke;
	void *ctx;
	int n;

	/* take an event the last wait left (the fd unreadable again), then
	 * arm over what the last poll consumed: a CQE written since then
	 * makes the fd readable at once, so none is slept through */
	sim_channel_take_events(cl->cq_ch, &ctx, 1);
	sim_cq_arm(sim_backend_cq(cl->rcq), cl, true);
	n = net_link_poll_also(cl->link, timeout_us, sim_channel_fd(cl->cq_ch), &woke);
	if (woke == NET_WOKE_LINK) {
		cl->waits.link++;
	} else if (woke == NET_WOKE_ALSO) {
		cl->waits.channel++;
	} else {
		cl->waits.bound++;
		if (core_cq_peek(&cl->rcq_info, cl->rcq_ci))
			cl->waits.missed++; /* written, and nothing woke us */
	}
	return n;
}

/* Disarmed first (an event still queued is dropped, none can follow), so
 * that no ctx of ours moves to the device's own list. */
static void close_channel(struct prism_client *cl)
{
	struct sim_cq *rcq = sim_backend_cq(cl->rcq);

	sim_cq_arm(rcq, NULL, false);
	sim_cq_set_channel(rcq, NULL);
	sim_channel_destroy(cl->cq_ch);
	cl->cq_ch = NULL;
}

void core_client_net_close(struct prism_client *cl)
{
	if (cl->cq_ch)
		close_channel(cl);
	if (cl->link)
		net_link_close(cl->link);
	cl->link = NULL;
	net_ring_close(cl->ring);
	cl->ring = NULL;
	if (cl->net_fd >= 0)
		close(cl->net_fd);
	cl->net_fd = -1;
	free(cl->net_peer);
	cl->net_peer = NULL;
}

/*
 * One request on a server's post socket: hello @h, then @len bytes of
 * @body.  The answer's blob goes to @answer (release it) when not NULL.
 */
static int post_request(const char *path, const struct core_hello *h, const void *body, size_t len,
                        const struct prism_post_opts *opts, struct net_oob_params *answer)
{
	struct net_oob_params mine = {0}, peer = {0};
	struct diag_report d = {0};
	int64_t start = util_now_ms();
	unsigned wait_ms = BUSY_FIRST_MS, seed = busy_seed();
	int fd, err, timeout_ms;
	uint8_t *blob;
	size_t n;

	if ((err = CORE_OPTS_CHECK(opts, timeout_ms)))
		return err;
	n = core_hello_encode(h, NULL, 0);
	if (n + len > NET_OOB_MAX_BLOB) {
		core_err("post: a %zu-byte object does not fit the %u-byte setup message", len,
		         NET_OOB_MAX_BLOB - (unsigned)n);
		return -E2BIG;
	}
	blob = malloc(n + len);
	if (!blob)
		return -ENOMEM;
	core_hello_encode(h, blob, n);
	if (len)
		memcpy(blob + n, body, len);
	mine.node = 1;
	mine.blob = blob;
	mine.blob_len = (uint32_t)(n + len);
	timeout_ms = CORE_OPT(opts, timeout_ms, 5000);
	do
		err = net_connect_unix(path, &mine, &peer, busy_left(start, timeout_ms), &fd, &d);
	while (busy_wait(err, start, timeout_ms, &wait_ms, &seed));
	free(blob);
	if (err)
		return setup_error(err, &d, path);
	if (answer)
		*answer = peer;
	else
		net_oob_params_release(&peer);
	close(fd);
	return 0;
}

PRISM_API int prism_post(const char *socket_path, const void *chain, size_t len,
                         const struct prism_post_opts *opts)
{
	struct core_hello h = {.kind = CORE_HELLO_POST};

	if (!socket_path || !chain)
		return -EINVAL;
	return post_request(socket_path, &h, chain, len, opts, NULL);
}

PRISM_API int prism_post_remove(const char *socket_path, const char *name,
                                const struct prism_post_opts *opts)
{
	struct core_hello h = {.kind = CORE_HELLO_REMOVE};

	if (!socket_path || !name || strlen(name) >= sizeof(h.program))
		return -EINVAL;
	snprintf(h.program, sizeof(h.program), "%s", name);
	return post_request(socket_path, &h, NULL, 0, opts, NULL);
}

PRISM_API int prism_post_list(const char *socket_path, struct prism_installed *out, size_t cap,
                              const struct prism_post_opts *opts)
{
	struct core_hello h = {.kind = CORE_HELLO_LIST};
	struct net_oob_params answer = {0};
	size_t stride = cap && out ? out[0].sz : sizeof(*out);
	unsigned total = 0;
	int err;

	if (!socket_path || (cap && (!out || stride < sizeof(size_t))))
		return -EINVAL;
	err = post_request(socket_path, &h, NULL, 0, opts, &answer);
	if (err)
		return err;
	err = core_list_decode(answer.blob, answer.blob_len, out, out ? cap : 0, stride, &total);
	net_oob_params_release(&answer);
	if (err) {
		core_err("list %s: malformed answer", socket_path);
		return err;
	}
	return (int)total;
}
