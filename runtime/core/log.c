/* SPDX-License-Identifier: MIT */
/*
 * core/log.c - the replaceable log callback (prism_set_log_fn).
 *
 * Owns: the process-wide callback, its context and level threshold, the
 * formatting of one message into a bounded buffer, and the per-thread hold
 * of an error the caller reports itself (core_log_hold).
 * Must not: write to any stream unless the application installed
 * prism_log_stderr (or its own callback) - the library never prints.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "core/log.h"

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static prism_log_fn log_fn;
static void *log_ctx;
static enum prism_log_level log_max = PRISM_LOG_WARN;
static __thread struct core_log_held *held; /* this thread's innermost hold */

PRISM_API prism_log_fn prism_set_log_fn(prism_log_fn fn, void *ctx, enum prism_log_level max_level)
{
	prism_log_fn old;

	pthread_mutex_lock(&log_lock);
	old = log_fn;
	log_fn = fn;
	log_ctx = ctx;
	log_max = max_level;
	pthread_mutex_unlock(&log_lock);
	return old;
}

static const char *const level_names[] = {
    [PRISM_LOG_ERROR] = "error",
    [PRISM_LOG_WARN] = "warning",
    [PRISM_LOG_INFO] = "info",
    [PRISM_LOG_DEBUG] = "debug",
};

PRISM_API void prism_log_stderr(enum prism_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if ((unsigned)level > PRISM_LOG_DEBUG)
		level = PRISM_LOG_ERROR;
	fprintf(stderr, "prism: %s: %s\n", level_names[level], msg);
}

void core_log_hold(struct core_log_held *h)
{
	h->msg[0] = 0;
	h->outer = held;
	held = h;
}

void core_log_release(struct core_log_held *h)
{
	held = h->outer;
}

void core_log(enum prism_log_level level, const char *fmt, ...)
{
	char buf[CORE_LOG_MAX];
	prism_log_fn fn;
	void *ctx;
	va_list ap;

	if (level == PRISM_LOG_ERROR && held && !held->msg[0]) {
		/* whatever the threshold: the caller reports it */
		va_start(ap, fmt);
		vsnprintf(held->msg, sizeof(held->msg), fmt, ap);
		va_end(ap);
		if (held->msg[0])
			return;
	}
	pthread_mutex_lock(&log_lock);
	fn = log_fn;
	ctx = log_ctx;
	if (level > log_max)
		fn = NULL;
	pthread_mutex_unlock(&log_lock);
	if (!fn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fn(level, buf, ctx);
}
