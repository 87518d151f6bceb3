/* SPDX-License-Identifier: MIT */
/*
 * core/server.h - the server object behind prism_server (internal).
 *
 * Owns: struct prism_server (programs offered, live connections per device
 * shard, progress threads, listener) and the calls the client side and the
 * transport glue use to place, open, poll and close connections.
 * Must not: be used outside runtime/core and its tests.
 */
#ifndef CORE_SERVER_H
#define CORE_SERVER_H

#include "core/inst.h"
#include "core/proto.h"

#define CORE_SERVER_MAX_PROGRAMS 64

struct net_link;
struct net_listener;
struct net_acceptor;
struct net_ring_offers;

/* Live connections from one address (per-peer limit). */
struct core_peer_count {
	char host[64];
	unsigned n;
};

struct core_conn {
	struct core_conn *next;
	struct prism_server *srv;
	uint32_t id;
	unsigned shard; /* the device shard its queues live on */
	struct core_inst *inst;
	struct net_link *link;     /* NULL for in-process clients */
	struct net_watched *setup; /* RDMA NIC: its setup socket, watched (server_net.c) */
	int down;                  /* set (atomically) by the transport thread */
	bool dead;                 /* torn down this pass (shard lock) */
	bool hot;                  /* in its shard's hot list (shard lock) */
	char peer[64];             /* the client's address ("" in-process): per-peer count */
};

/*
 * The connections of one device shard.  Only the progress loop serving the
 * shard (or, without a started server, the in-process clients waiting on
 * it) polls them, under this shard's lock alone: shards never wait for
 * each other.
 */
struct core_server_shard {
	struct prism_server *srv;
	unsigned index;
	pthread_mutex_t lock; /* conns and the counters */
	struct core_conn *conns;
	/*
	 * Which connections a pass polls (event-driven, when the backend has
	 * completion events): those whose CQs had a CQE since they were armed,
	 * and the "hot" ones, which completed something last pass and are
	 * polled again without arming.  An idle connection is armed and costs
	 * nothing until its next CQE.  scan_all (a link went down, or no
	 * events): the next pass polls every connection.
	 */
	struct core_conn **hot;
	unsigned n_hot, hot_cap;
	int scan_all;
	uint64_t active; /* written under lock, read atomically (placement) */
	/* connections only a progress loop serves (in-process clients, RDMA
	 * NICs); the others are run to completion by the transport thread
	 * (server_net.c); written under lock, read atomically */
	uint64_t loop_conns;
	/* connections over a link that run one invocation at a time (a
	 * serial program, or one window): each request waits for this CPU to
	 * see the invocation before it complete (written under lock, read
	 * atomically) */
	uint64_t gated_conns;
	uint64_t parks_seen; /* the device's RNR park count its loop last saw */
	uint64_t total, failed, invocations, rearms_cpu, polls;
};

/* A progress thread: polls shards loop, loop + n_loops, ... */
struct core_server_loop {
	struct prism_server *srv;
	unsigned index;
	pthread_t thread;
	/* an idle loop sleeps on this until something needs it (a connection
	 * added or gone, an answer parked on an RNR NAK, stop) */
	pthread_mutex_t bell_lock;
	pthread_cond_t bell;
	bool rung;
};

struct prism_server {
	struct prism_device *dev;
	char *host;
	int port; /* 0: no TCP; -1: any free port */
	uint16_t bound_port;
	enum prism_rearm rearm;
	unsigned max_conns;
	unsigned depth;
	bool allow_post;
	char *post_socket;
	uint32_t *post_uids;
	unsigned n_post_uids;
	unsigned max_conns_per_peer, max_setups, max_setups_per_peer;
	pthread_mutex_t lock; /* programs, ids, placement, peers */
	struct core_peer_count *peers;
	unsigned n_peers;
	struct prism_program *progs[CORE_SERVER_MAX_PROGRAMS];
	unsigned n_progs;
	uint32_t next_id;
	uint64_t conns_active; /* every shard's, against max_conns (under lock) */
	uint64_t conns_opened; /* connections whose queues were ever created (under lock) */
	uint64_t bytes_per_conn;
	unsigned n_shards; /* = the device's */
	struct core_server_shard *shards;
	unsigned n_loops; /* progress threads */
	struct core_server_loop *loops;
	struct net_listener *listener;
	struct net_listener *post_listener;
	struct net_listener *ring_listener; /* local clients fetch ring pairs here */
	struct net_ring_offers *ring_offers;
	struct net_acceptor *acceptor; /* connection setup, on its own thread */
	struct net_watch *watch;       /* RDMA NIC: the clients' setup sockets */
	bool running;
	int stop;
};

/*
 * The shard a new connection goes to: the one with the fewest live
 * connections (the lowest index among equals, so placement is the same
 * from run to run).
 */
unsigned core_server_pick_shard(struct prism_server *srv);
/*
 * Instantiate the program @h names for a client on shard @shard and
 * describe it in @w (w->status says why not).  Returns 0 or a negative
 * code.  The connection is not polled until core_server_add_conn (so a
 * setup still using it never races the shard's progress loop), or it is
 * given back with core_server_drop_conn.
 */
int core_server_open_conn(struct prism_server *srv, unsigned shard, const struct core_hello *h,
                          struct core_welcome *w, struct core_conn **out);
void core_server_add_conn(struct prism_server *srv, struct core_conn *c);
void core_server_drop_conn(struct prism_server *srv, struct core_conn *c);
/* Tear connection @id of @shard down (client left); no-op if the server already did. */
void core_server_close_conn(struct prism_server *srv, unsigned shard, uint32_t id);
/* Is connection @id of @shard still alive (not torn down)? */
bool core_server_has_conn(struct prism_server *srv, unsigned shard, uint32_t id);
/* One progress pass over shard @shard: its device, its connections' CQs,
 * its dead connections.  Returns how many invocations completed (>= 0). */
int core_server_poll_shard(struct prism_server *srv, unsigned shard);
/* The same over every shard in turn. */
int core_server_poll(struct prism_server *srv);
/* Who posts or removes a program (SO_PEERCRED of the post socket). */
struct core_poster {
	uint32_t uid;
	int32_t pid;
};

/* Verify and install a posted .chain object (logged with @who and its
 * size); @why gets the reason on failure. */
int core_server_post(struct prism_server *srv, const void *chain, size_t len,
                     const struct core_poster *who, char *why, size_t whylen);
/* Describe every installed program: *@out (malloc'd, *@n entries). */
int core_server_list(struct prism_server *srv, struct prism_installed **out, unsigned *n);
/*
 * Count one more live connection from @host against max_conns_per_peer
 * (false: at the limit); core_server_peer_put gives it back.  "" is not
 * counted (in-process clients).
 */
bool core_server_peer_take(struct prism_server *srv, const char *host);
void core_server_peer_put(struct prism_server *srv, const char *host);

/* Transport glue (server_net.c): listeners and the setup thread. */
int core_server_net_listen(struct prism_server *srv);
void core_server_net_close(struct prism_server *srv);
/* The RNR timer for answers to clients in other processes (progress loop). */
void core_server_net_kick(struct prism_server *srv, unsigned shard);
/* Did a send of @shard park on an RNR NAK since the last call?  (Its loop
 * then keeps the RNR timer running.) */
bool core_server_net_parks_moved(struct prism_server *srv, unsigned shard);
/* Tell @c's link how many of its requests have a window posted. */
void core_server_net_rx_ready(struct core_conn *c);
/* Wake the progress loop of @shard if it sleeps idle. */
void core_server_wake_loop(struct prism_server *srv, unsigned shard);

#endif /* CORE_SERVER_H */
