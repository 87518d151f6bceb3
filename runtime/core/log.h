/* SPDX-License-Identifier: MIT */
/*
 * core/log.h - the runtime's internal logging entry point.
 *
 * Owns: core_log(), which formats a message and hands it to the callback
 * the application installed with prism_set_log_fn().
 * Must not: print on its own; with no callback installed messages are dropped.
 */
#ifndef CORE_LOG_H
#define CORE_LOG_H

#include <prism/prism.h>

__attribute__((format(printf, 2, 3))) void core_log(enum prism_log_level level, const char *fmt,
                                                    ...);

#define core_err(...)  core_log(PRISM_LOG_ERROR, __VA_ARGS__)
#define core_warn(...) core_log(PRISM_LOG_WARN, __VA_ARGS__)
#define core_info(...) core_log(PRISM_LOG_INFO, __VA_ARGS__)
#define core_dbg(...)  core_log(PRISM_LOG_DEBUG, __VA_ARGS__)

#endif /* CORE_LOG_H */
