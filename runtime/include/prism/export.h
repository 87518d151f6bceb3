/* SPDX-License-Identifier: MIT */
/*
 * prism/export.h - symbol visibility for the public API.
 *
 * Owns: PRISM_API, the one marker for functions exported from libprism.so.
 * Everything else is built with -fvisibility=hidden and additionally
 * filtered by runtime/libprism.map.
 */
#ifndef PRISM_EXPORT_H
#define PRISM_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define PRISM_API __attribute__((visibility("default")))
#else
#define PRISM_API
#endif

#endif /* PRISM_EXPORT_H */
