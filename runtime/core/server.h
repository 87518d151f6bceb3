/* SPDX-License-Identifier: MIT */
/*
 * core/server.h - the server object behind prism_server (internal).
 *
 * Owns: struct prism_server (programs offered, live connections, progress
 * thread, listener) and the calls the client side and the transport glue
 * use to open, poll and close connections.
 * Must not: be used outside runtime/core and its tests.
 */
#ifndef CORE_SERVER_H
#define CORE_SERVER_H

#include "core/inst.h"
#include "core/proto.h"

#define CORE_SERVER_MAX_PROGRAMS 64

struct net_link;
struct net_listener;

struct core_conn {
	struct core_conn *next;
	uint32_t id;
	struct core_inst *inst;
	struct net_link *link; /* NULL for in-process clients */
	int down;              /* set (atomically) by the transport thread */
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
	pthread_mutex_t lock;
	struct prism_program *progs[CORE_SERVER_MAX_PROGRAMS];
	unsigned n_progs;
	struct core_conn *conns;
	uint32_t next_id;
	struct net_listener *listener;
	pthread_t thread;
	bool running;
	int stop;
	struct prism_server_stats st;
};

/*
 * Instantiate the program @h names for a client and describe it in @w
 * (w->status says why not).  Returns 0 or a negative code; takes srv->lock.
 */
int core_server_open_conn(struct prism_server *srv, const struct core_hello *h,
                          struct core_welcome *w, struct core_conn **out);
/* Tear connection @id down (client left); no-op if the server already did. */
void core_server_close_conn(struct prism_server *srv, uint32_t id);
/* Is connection @id still alive (not torn down)? */
bool core_server_has_conn(struct prism_server *srv, uint32_t id);
/* One progress pass: device, every connection's CQs, dead connections.
 * Returns how many invocations completed (>= 0). */
int core_server_poll(struct prism_server *srv);
/* Verify and install a posted .chain object; @why gets the reason on failure. */
int core_server_post(struct prism_server *srv, const void *chain, size_t len, char *why,
                     size_t whylen);

/* Transport glue (server_net.c). */
int core_server_net_listen(struct prism_server *srv);
int core_server_net_accept(struct prism_server *srv);
void core_server_net_close(struct prism_server *srv);
/* The RNR timer for answers to clients in other processes (progress loop). */
void core_server_net_kick(struct prism_server *srv);

#endif /* CORE_SERVER_H */
