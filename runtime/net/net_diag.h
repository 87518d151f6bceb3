/* SPDX-License-Identifier: MIT */
/*
 * net/net_diag.h - error reports of the net module.
 *
 * Owns: the module's log levels and default port.  Its failures are
 * struct diag_report (util/diag_report.h) with a negative errno-style code
 * and a message naming the object and the reason ("connect
 * 10.0.0.1:18515: connection refused", "setup from 127.0.0.1:40112: body of
 * 9 bytes, CONNECT needs at least 20").
 *
 * Must not: print or log on its own; the caller decides where it goes.
 */
#ifndef PRISM_NET_DIAG_H
#define PRISM_NET_DIAG_H

#include "util/diag_report.h"

#define NET_DEFAULT_PORT 18515 /* perftest's default OOB port */

/* A host name that did not resolve (getaddrinfo failed; the message has
 * gai_strerror's reason).  No errno says that: the value is prism's
 * PRISM_E_NET_RESOLVE (checked at compile time in runtime/core). */
#define NET_E_RESOLVE (-4064)

/* The server refused a setup for now: a REJECT whose code is EBUSY (too
 * many setups in progress, from everyone or from this address); the same
 * CONNECT may succeed a moment later.  The value is prism's
 * PRISM_E_NET_BUSY (checked at compile time in runtime/core). */
#define NET_E_BUSY (-4065)

/* Levels of the log callbacks the owner passes (same order as prism's). */
enum net_log_level { NET_LOG_ERROR, NET_LOG_WARN, NET_LOG_INFO, NET_LOG_DEBUG };

#endif /* PRISM_NET_DIAG_H */
