/* SPDX-License-Identifier: MIT */
/*
 * net/net.h - the cross-process transport between software NICs: what the
 * runtime core uses.
 *
 * Owns: struct diag_report (the precise "what failed" every net_* call fills),
 * the default port, and the includes of the module's three parts:
 *   net_oob.h        connection setup: the out-of-band TCP exchange
 *   net_sock.h       listening, accepting and connecting sockets
 *   net_accept.h     the server's setup thread (non-blocking, with limits)
 *   net_transport.h  the packet pump that carries a sim device's wire over TCP
 *                    or a shared-memory ring pair
 *   net_shm.h        setting up a ring pair for a connection on one host
 * The packet framing itself is net_frame.h.
 *
 * Must not: be installed (internal to libprism); print; exit.
 */
#ifndef PRISM_NET_H
#define PRISM_NET_H

#include "net/net_accept.h"
#include "net/net_diag.h"
#include "net/net_oob.h"
#include "net/net_shm.h"
#include "net/net_sock.h"
#include "net/net_transport.h"
#include "net/net_watch.h"

#endif /* PRISM_NET_H */
