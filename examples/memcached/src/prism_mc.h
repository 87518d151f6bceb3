/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prism_mc.h - memcached's hooks into the prism get offload (prism_mc.c).
 *
 * Included at the end of memcached.h.  Built with --enable-prism (PRISM
 * defined) the hooks are functions; without it PRISM_HOOK() expands to
 * nothing, so the patched tree compiles to stock memcached.
 *
 * Must not: be included before memcached.h's types (item, ADD_STAT).
 */
#ifndef PRISM_MC_H
#define PRISM_MC_H

/* it_flags bit: the offload indexed this item, so its memory is quarantined
 * for a lease when it is unlinked (once an offload client has connected;
 * cleared when it is not); bits 13-15 are free. */
#define ITEM_PRISM 8192

#ifdef PRISM
/* -o prism=SPEC (or the MEMCACHED_PRISM environment variable): 0, or -1 with
 * a message on stderr. */
int prism_mc_option(const char *spec);
/* True once the offload was asked for (option or environment). */
bool prism_mc_enabled(void);
/* Register the slab region for @maxbytes of items: 0 or -1 (message).  With
 * @prealloc (-e, -L) the offload cannot work: an error for -o prism, a note
 * and the offload off for MEMCACHED_PRISM. */
int prism_mc_slab_memory(size_t maxbytes, bool prealloc);
/* A slab page of @size bytes from the region (memcached's malloc), or NULL. */
void *prism_mc_page(size_t size);
/* A page memcached released (memory_release): kept for the next prism_mc_page. */
void prism_mc_page_free(void *page);
/* Start the offload server (after the worker threads); 0 or -1 (message). */
int prism_mc_start(void);
/* assoc_insert published @it / assoc_delete is about to unlink it (item lock held). */
void prism_mc_link(item *it);
void prism_mc_unlink(item *it);
/* memcached-debug, on every hit do_item_get returns (item lock held): no
 * index slot may hold another item of the same key; aborts if one does. */
void prism_mc_check(item *it);
/* flush_all set settings.oldest_live. */
void prism_mc_flush(void);
/* STAT prism_* lines. */
void prism_mc_stats(ADD_STAT add_stats, conn *c);
#define PRISM_HOOK(call) call
/* Slab pages come from the registered region (memory_allocate), with
 * memcached's own accounting unchanged. */
#define PRISM_PAGE_ALLOC(size) (prism_mc_enabled() ? prism_mc_page(size) : malloc(size))
#define PRISM_PAGE_FREE(p)     (prism_mc_enabled() ? prism_mc_page_free(p) : free(p))
#else
#define PRISM_PAGE_ALLOC(size) malloc(size)
#define PRISM_PAGE_FREE(p)     free(p)
#define PRISM_HOOK(call)                                                                           \
	do {                                                                                       \
	} while (0)
#endif

#endif
