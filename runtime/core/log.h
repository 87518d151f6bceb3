/* SPDX-License-Identifier: MIT */
/*
 * core/log.h - the runtime's internal logging entry point.
 *
 * Owns: core_log(), which formats a message and hands it to the callback
 * the application installed with prism_set_log_fn(), and the per-thread hold
 * of an error a caller reports itself (core_log_hold).
 * Must not: print on its own; with no callback installed messages are dropped.
 */
#ifndef CORE_LOG_H
#define CORE_LOG_H

#include <prism/prism.h>

/* The longest message, its terminating NUL included (longer ones are cut). */
#define CORE_LOG_MAX 512

__attribute__((format(printf, 2, 3))) void core_log(enum prism_log_level level, const char *fmt,
                                                    ...);

#define core_err(...)  core_log(PRISM_LOG_ERROR, __VA_ARGS__)
#define core_warn(...) core_log(PRISM_LOG_WARN, __VA_ARGS__)
#define core_info(...) core_log(PRISM_LOG_INFO, __VA_ARGS__)
#define core_dbg(...)  core_log(PRISM_LOG_DEBUG, __VA_ARGS__)

/*
 * A caller that reports a failure itself, with context the library lacks
 * (prismd's configuration line and caret, a post's refusal sent back to its
 * client), holds the errors this thread logs meanwhile: the first one is
 * kept in @msg instead of reaching the callback, so that the failure is one
 * line that carries the library's reason.  Later errors, and every warning,
 * still reach the callback: nothing is lost.  Holds nest (the innermost
 * keeps the error); each is released on the thread that took it.
 */
struct core_log_held {
	char msg[CORE_LOG_MAX]; /* "" until an error is held */
	struct core_log_held *outer;
};

void core_log_hold(struct core_log_held *h);
/* Stop holding @h (the innermost hold); @h->msg stays for the caller. */
void core_log_release(struct core_log_held *h);

#endif /* CORE_LOG_H */
