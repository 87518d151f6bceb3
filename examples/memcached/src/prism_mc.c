/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prism_mc.c - the prism get offload inside memcached.
 *
 * Owns: the offload's state in the memcached process: the prism device and
 * server (software NICs run by the server's transport threads), the two
 * registered regions (slab memory, the shadow index), the index itself, the
 * quarantine of unlinked items and the prism_* stats.  memcached calls in
 * through the hooks of prism_mc.h; everything else of memcached is
 * unchanged.
 *
 * The index (memcached_get.prism) is a two-choice table of 16-byte slots:
 *
 *    0      3    4          8                 16
 *   +--------+----+----------+-----------------+
 *   | fp be24|rsvd| len be32 | item be64       |   w0 = bytes 0-7, w1 = 8-15
 *   +--------+----+----------+-----------------+
 *
 * fp is the top 24 bits of XXH3-64(key, seed) (0 mapped to 1: 0 is empty),
 * b1 = h mod N, b2 = (b1 ^ fp * 0x5bd1e995) mod N (MemC3's alternate slot:
 * a kick needs only the slot).  Writers (under ix_lock, item lock held by
 * memcached) store whole aligned words: insert w1 then w0, remove w0 then
 * w1 = the sentinel (the slab base).  Any (w0, w1) pair the NIC can assemble
 * is empty, or a length <= MAX_ITEM with a pointer into the slab region
 * (registered MAX_ITEM bytes longer than memcached's memory), so no pair can
 * fault a connection; a wrong pairing yields a wrong item, which the client's
 * full-key and length checks reject.
 *
 * Memory safety without refcounts on the NIC: an indexed item is immutable
 * (memcached only writes exptime, CAS and LRU bits in place; in-place incr is
 * disabled for ITEM_PRISM items), and an unlinked ITEM_PRISM item is kept
 * (an extra reference) for lease_ms before memcached may reuse its memory.
 * The client accepts a result only when its round trip took less than half
 * the lease, so every byte it accepts was read from a live or quarantined item.
 *
 * Must not: take an item lock while holding ix_lock or q_lock (memcached calls
 * the hooks with the item lock held); change memcached's behaviour when the
 * offload is off.
 */
#include "memcached.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic" /* size_t : 0 tails of the options structs */
#include <prism/prism.h>
#pragma GCC diagnostic pop

#define SLOT_BYTES   16u
#define ALT_MUL      0x5bd1e995u
#define MAX_KICKS    8
#define SWEEP_NS     (5 * 1000 * 1000)
#define DEFAULT_SEED 0x7072736d6d656d63ull /* "prsmmemc" */

#ifndef PRISM_MC_CHAIN
#define PRISM_MC_CHAIN "/usr/share/prism/chains/memcached_get.chain"
#endif

struct slot {
	uint64_t w0, w1; /* big-endian words as the NIC reads them */
};

struct qent {
	item *it;
	uint64_t until_ns;
};

static struct {
	bool on, chaos;
	unsigned index_power;    /* 0: the chain's index as it is */
	bool env_read, from_env; /* MEMCACHED_PRISM looked at / turned the offload on */
	int port;
	unsigned nic_threads, lease_ms;
	char chain[256];
	char device[64]; /* device=NAME: "sim" (default) or an RDMA device */
	uint64_t seed;

	struct prism_device *dev;
	struct prism_region *slabs, *index;
	struct prism_program *prog;
	struct prism_server *srv; /* NULL under prismd */
	struct prism_daemon *daemon;
	char daemon_sock[108];
	bool running; /* hooks on */
	char *slab_base;
	size_t slab_len, slab_used; /* pages handed to memcached (page_lock) */
	void **spare;               /* released pages, reused first */
	size_t nspare, spare_cap;
	pthread_mutex_t page_lock;
	uint64_t slab_nic;
	uint32_t max_item, nslots;

	pthread_mutex_t ix_lock;
	struct slot *slots;
	item **owner; /* host pointer per slot, for kicks and removals */
	uint64_t indexed, inserts, kicks, index_full, skipped;

	pthread_mutex_t q_lock;
	struct qent *q;
	size_t q_head, q_len, q_cap;
	uint64_t quarantined;
	bool clients_seen;
	pthread_t sweeper;
	volatile bool stop;
} pm = {.port = PRISM_DEFAULT_PORT,
        .nic_threads = 1,
        .lease_ms = 1000,
        .chain = PRISM_MC_CHAIN,
        .seed = DEFAULT_SEED,
        .page_lock = PTHREAD_MUTEX_INITIALIZER,
        .ix_lock = PTHREAD_MUTEX_INITIALIZER,
        .q_lock = PTHREAD_MUTEX_INITIALIZER};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* ---- options ------------------------------------------------------------- */

/* port=N (0: any free port),nic_threads=N,lease_ms=N,chain=PATH,seed=N,chaos=0|1,
 * daemon=SOCKET (prismd serves the chain on its port: port= names it for clients),
 * index_power=N (2^N index slots: the chain built for N, 16 18 20 22 24),
 * device=NAME (sim, the default, or an RDMA device such as mlx5_0)
 * (every key optional). */
int prism_mc_option(const char *spec)
{
	char *copy = strdup(spec ? spec : ""), *save = NULL, *tok;
	int rc = 0;

	if (!copy)
		return -1;
	pm.on = true;
	for (tok = strtok_r(copy, ",:", &save); tok; tok = strtok_r(NULL, ",:", &save)) {
		char *eq = strchr(tok, '='), *end = NULL;
		unsigned long long v = 0;

		if (!eq) {
			fprintf(stderr, "prism: option '%s' needs a value\n", tok);
			rc = -1;
			break;
		}
		*eq++ = '\0';
		if (!strcmp(tok, "chain")) {
			snprintf(pm.chain, sizeof(pm.chain), "%s", eq);
			continue;
		}
		if (!strcmp(tok, "device")) {
			snprintf(pm.device, sizeof(pm.device), "%s", eq);
			continue;
		}
		if (!strcmp(tok, "daemon")) {
			snprintf(pm.daemon_sock, sizeof(pm.daemon_sock), "%s", eq);
			continue;
		}
		errno = 0;
		v = strtoull(eq, &end, 0);
		if (errno || !*eq || *end) {
			fprintf(stderr, "prism: bad number '%s' for %s\n", eq, tok);
			rc = -1;
			break;
		}
		if (!strcmp(tok, "port") && v < 65536)
			pm.port = v ? (int)v : PRISM_PORT_ANY;
		else if (!strcmp(tok, "nic_threads") && v >= 1 && v <= 64)
			pm.nic_threads = (unsigned)v;
		else if (!strcmp(tok, "lease_ms") && v >= 1 && v <= 60000)
			pm.lease_ms = (unsigned)v;
		else if (!strcmp(tok, "index_power") && v >= 10 && v <= 30)
			pm.index_power = (unsigned)v;
		else if (!strcmp(tok, "chaos"))
			pm.chaos = v != 0;
		else if (!strcmp(tok, "seed"))
			pm.seed = v;
		else {
			fprintf(stderr, "prism: unknown option or value out of range: %s=%s\n", tok,
			        eq);
			rc = -1;
			break;
		}
	}
	free(copy);
	return rc;
}

bool prism_mc_enabled(void)
{
	const char *env = getenv("MEMCACHED_PRISM");

	if (!pm.on && !pm.env_read && env) {
		pm.from_env = true;
		if (prism_mc_option(env))
			exit(EXIT_FAILURE);
	}
	pm.env_read = true;
	return pm.on;
}

/* ---- device, regions, program -------------------------------------------- */

/*
 * A step of the set-up that the library refuses is one line: the option
 * that chose what was refused, then the library's reason
 * ("prism: device=nosuch0: device 'nosuch0': no such device ..."), as prismd
 * places a program's failure at its configuration line.  While the offload
 * sets up, the first error the library logs on this thread is held for that
 * line; later errors and warnings are printed as they come, and one held
 * that no line reported is printed when the set-up ends: nothing is lost.
 */
static __thread struct {
	bool on;
	char msg[512]; /* "" until an error is held */
} held;

static void logf_stderr(enum prism_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level == PRISM_LOG_ERROR && held.on && !held.msg[0])
		snprintf(held.msg, sizeof(held.msg), "%s", msg);
	else if (level <= PRISM_LOG_WARN || settings.verbose > 1)
		fprintf(stderr, "prism: %s\n", msg);
}

static void hold_errors(bool on)
{
	if (!on && held.msg[0])
		fprintf(stderr, "prism: %s\n", held.msg);
	held.on = on;
	held.msg[0] = '\0';
}

/* "prism: PLACE: REASON", the reason the library logged (held), else
 * @err's; returns -1. */
__attribute__((format(printf, 2, 3))) static int setup_failed(int err, const char *place, ...)
{
	va_list ap;

	fputs("prism: ", stderr);
	va_start(ap, place);
	vfprintf(stderr, place, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", held.msg[0] ? held.msg : prism_strerror(err));
	held.msg[0] = '\0';
	return -1;
}

static int declared(const char *name, uint64_t *size)
{
	for (int i = 0; i < prism_program__region_count(pm.prog); i++) {
		struct prism_region_info ri;

		if (prism_program__region(pm.prog, i, &ri) == 0 && !strcmp(ri.name, name)) {
			*size = ri.size;
			return 0;
		}
	}
	fprintf(stderr, "prism: chain=%s: declares no region '%s'\n", pm.chain, name);
	return -1;
}

/* Daemon mode: prismd maps the slab and index memfds, so offloaded gets go
 * on (from the crash-time snapshot: nothing is freed any more) if memcached dies. */
static int share_with_daemon(void)
{
	int err;

	pm.daemon = prism_daemon__attach(pm.daemon_sock);
	if (!pm.daemon)
		return setup_failed(errno, "daemon=%s: cannot attach to prismd", pm.daemon_sock);
	if ((err = prism_daemon__share_region(pm.daemon, pm.slabs)) ||
	    (err = prism_daemon__share_region(pm.daemon, pm.index)))
		return setup_failed(err, "daemon=%s: prismd refused a region", pm.daemon_sock);
	return 0;
}

static int slab_memory(size_t maxbytes, bool prealloc)
{
	struct prism_device_opts d;
	struct prism_region_opts r;
	uint64_t isize = 0, ssize = 0;
	int entry, res;

	if (prealloc) {
		/* -e / -L: memcached's pages would not be in the registered region. */
		fprintf(stderr, "prism: the offload works neither with -e nor with -L%s\n",
		        pm.from_env ? "; MEMCACHED_PRISM ignored" : "");
		pm.on = false;
		return pm.from_env ? 0 : -1;
	}
	memset(&d, 0, sizeof(d));
	d.sz = sizeof(d);
	/* Not threaded: a client's packets are run to completion by the
	 * transport thread that received them (its shard's NIC steps, the
	 * answer and the re-arm), as any prism server over TCP; a NIC thread
	 * of its own would add a wake-up per round trip.  Under prismd this
	 * device never runs. */
	d.nic_threads = pm.nic_threads;
	d.chaos = pm.chaos;
	memset(&r, 0, sizeof(r));
	r.sz = sizeof(r);
	r.access = PRISM_ACCESS_READ;
	if (pm.index_power && pm.index_power != 20) {
		/* The build compiles memcached_get-N.chain beside the default one. */
		char *dot = strrchr(pm.chain, '.');

		if (dot && !strcmp(dot, ".chain"))
			snprintf(dot, sizeof(pm.chain) - (size_t)(dot - pm.chain), "-%u.chain",
			         pm.index_power);
	}
	pm.prog = prism_program__open_file(pm.chain, NULL);
	if (!pm.prog)
		return setup_failed(errno, "chain=%s", pm.chain);
	entry = prism_program__find_entry(pm.prog, "get");
	res = entry < 0 ? entry : prism_program__result_size(pm.prog, entry);
	if (res < 0)
		return setup_failed(res, "chain=%s: offload 'get'", pm.chain);
	if (res <= (int)sizeof(item)) {
		fprintf(stderr,
		        "prism: chain=%s: offload 'get' returns %d bytes, no more than an item "
		        "header\n",
		        pm.chain, res);
		return -1;
	}
	if (declared("index", &isize) || declared("slabs", &ssize))
		return -1;
	pm.max_item = (uint32_t)res;
	pm.nslots = (uint32_t)(isize / SLOT_BYTES);
	if (pm.nslots & (pm.nslots - 1)) {
		fprintf(stderr, "prism: index of %u slots is not a power of two\n", pm.nslots);
		return -1;
	}
	pm.dev = prism_device__open(pm.device[0] ? pm.device : "sim", &d);
	if (!pm.dev)
		return setup_failed(errno, "device=%s", pm.device[0] ? pm.device : "sim");
	/* memcached may go one page past -m per slab class (do_slabs_newslab);
	 * MAX_ITEM bytes more: a slot's length read with another slot's pointer
	 * never leaves the region. */
	pm.slab_len = maxbytes + (size_t)MAX_NUMBER_OF_SLAB_CLASSES * settings.slab_page_size;
	pm.slabs = prism_device__create_region(pm.dev, "slabs", pm.slab_len + pm.max_item, &r);
	pm.index = prism_device__create_region(pm.dev, "index", isize, &r);
	pm.owner = calloc(pm.nslots, sizeof(*pm.owner));
	if (!pm.slabs || !pm.index || !pm.owner)
		return setup_failed(ENOMEM, "cannot create the regions (%zu + %llu bytes)",
		                    maxbytes, (unsigned long long)isize);
	if (pm.daemon_sock[0] && share_with_daemon())
		return -1;
	pm.slab_base = prism_region__addr(pm.slabs);
	pm.slab_nic = prism_region__nic_addr(pm.slabs); /* prismd's mapping when shared */
	pm.slots = prism_region__addr(pm.index);
	for (uint32_t i = 0; i < pm.nslots; i++)
		pm.slots[i].w1 = htobe64(pm.slab_nic);
	return 0;
}

int prism_mc_slab_memory(size_t maxbytes, bool prealloc)
{
	int rc;

	prism_set_log_fn(logf_stderr, NULL, PRISM_LOG_INFO);
	hold_errors(true);
	rc = slab_memory(maxbytes, prealloc);
	hold_errors(false);
	return rc;
}

void *prism_mc_page(size_t size)
{
	void *p = NULL;

	size = (size + 4095) & ~(size_t)4095;
	pthread_mutex_lock(&pm.page_lock);
	if (pm.nspare && size <= (size_t)settings.slab_page_size) {
		p = pm.spare[--pm.nspare];
	} else if (pm.slab_len - pm.slab_used >= size) {
		p = pm.slab_base + pm.slab_used;
		pm.slab_used += size;
	}
	pthread_mutex_unlock(&pm.page_lock);
	return p;
}

void prism_mc_page_free(void *page)
{
	pthread_mutex_lock(&pm.page_lock);
	if (pm.nspare == pm.spare_cap) {
		size_t cap = pm.spare_cap ? pm.spare_cap * 2 : 64;
		void **s = realloc(pm.spare, cap * sizeof(*s));

		if (!s) { /* leaked to the region: it stays registered memory */
			pthread_mutex_unlock(&pm.page_lock);
			return;
		}
		pm.spare = s;
		pm.spare_cap = cap;
	}
	pm.spare[pm.nspare++] = page;
	pthread_mutex_unlock(&pm.page_lock);
}

static void *sweeper(void *arg);

int prism_mc_start(void)
{
	struct prism_server_opts so;
	int err;

	memset(&so, 0, sizeof(so));
	so.sz = sizeof(so);
	so.port = pm.port;
	if (pm.daemon_sock[0]) {
		/* prismd serves the chain; memcached only keeps the index. */
		pm.running = true;
		if (pthread_create(&pm.sweeper, NULL, sweeper, NULL)) {
			fprintf(stderr, "prism: cannot start the quarantine thread\n");
			return -1;
		}
		return 0;
	}
	hold_errors(true);
	if ((err = prism_program__load(pm.prog, pm.dev)))
		err = setup_failed(err, "chain=%s", pm.chain);
	else if (!(pm.srv = prism_server__create(pm.dev, &so)) ||
	         (err = prism_server__add_program(pm.srv, pm.prog)) ||
	         (err = prism_server__start(pm.srv)))
		err = setup_failed(err ? err : errno, "port=%d",
		                   pm.port == PRISM_PORT_ANY ? 0 : pm.port);
	hold_errors(false);
	if (err)
		return -1;
	pm.running = true;
	if (pthread_create(&pm.sweeper, NULL, sweeper, NULL)) {
		fprintf(stderr, "prism: cannot start the quarantine thread\n");
		return -1;
	}
	if (settings.verbose)
		fprintf(stderr, "prism: offload on port %u, %u slots, items up to %u bytes\n",
		        prism_server__port(pm.srv), pm.nslots, pm.max_item);
	return 0;
}

/* ---- the index ------------------------------------------------------------ */

static uint64_t key_hash(const char *key, size_t nkey, uint32_t *fp)
{
	uint64_t h = XXH3_64bits_withSeed(key, nkey, pm.seed);

	*fp = (uint32_t)(h >> 40);
	if (!*fp)
		*fp = 1;
	return h;
}

static uint32_t alt_slot(uint32_t b, uint32_t fp)
{
	return (b ^ (fp * ALT_MUL)) & (pm.nslots - 1);
}

static uint32_t slot_fp(uint32_t b)
{
	return (uint32_t)(be64toh(pm.slots[b].w0) >> 40);
}

static void slot_set(uint32_t b, item *it, uint32_t fp)
{
	uint64_t w1 = htobe64(pm.slab_nic + (uint64_t)((char *)it - pm.slab_base));
	uint64_t w0 = htobe64((uint64_t)fp << 40 | (uint32_t)ITEM_ntotal(it));

	__atomic_store_n(&pm.slots[b].w1, w1, __ATOMIC_RELEASE);
	__atomic_store_n(&pm.slots[b].w0, w0, __ATOMIC_RELEASE);
	pm.owner[b] = it;
}

static void slot_clear(uint32_t b)
{
	__atomic_store_n(&pm.slots[b].w0, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&pm.slots[b].w1, htobe64(pm.slab_nic), __ATOMIC_RELEASE);
	pm.owner[b] = NULL;
}

/* Cuckoo path from @b (occupied) to an empty slot, moved from its far end so
 * that every item stays findable at every instant; 0 or -1 (no path). */
static int make_room(uint32_t b)
{
	uint32_t path[MAX_KICKS + 1];
	int n = 0;

	path[0] = b;
	while (pm.owner[path[n]]) {
		if (n == MAX_KICKS)
			return -1;
		path[n + 1] = alt_slot(path[n], slot_fp(path[n]));
		n++;
	}
	for (int i = n - 1; i >= 0; i--) {
		uint32_t fp = slot_fp(path[i]);

		slot_set(path[i + 1], pm.owner[path[i]], fp); /* insert, then remove */
		slot_clear(path[i]);
		pm.kicks++;
	}
	return 0;
}

static bool indexable(const item *it)
{
	if (it->it_flags & (ITEM_CHUNKED | ITEM_HDR))
		return false;
	if (ITEM_ntotal(it) > pm.max_item)
		return false;
	/* A pending or just-issued flush_all makes this item flushed.  Called
	 * under ix_lock: a flush_all that took its oldest_cas after this item's
	 * CAS but cleared the index before we got here is seen by
	 * item_is_flushed (the flush wrote settings before its prism_mc_flush
	 * took ix_lock), so a flushed item never enters the index after the
	 * clear. */
	if (settings.oldest_live != 0 && settings.oldest_live >= current_time)
		return false;
	if (item_is_flushed((item *)it))
		return false;
	return (char *)it >= pm.slab_base &&
	       (char *)it + ITEM_ntotal(it) <= pm.slab_base + pm.slab_len;
}

/* chaos=1: now and then a pause between memcached's link (CAS, time) and the
 * index insert, the window a concurrent flush_all falls into. */
static void chaos_pause(void)
{
	static unsigned n;
	struct timespec t = {0, 200 * 1000};

	if (__atomic_add_fetch(&n, 1, __ATOMIC_RELAXED) % 4 == 0)
		nanosleep(&t, NULL);
}

void prism_mc_link(item *it)
{
	uint32_t fp, b1, b2, b;

	if (!pm.running)
		return;
	b1 = (uint32_t)key_hash(ITEM_key(it), it->nkey, &fp) & (pm.nslots - 1);
	b2 = alt_slot(b1, fp);
	if (pm.chaos)
		chaos_pause();
	pthread_mutex_lock(&pm.ix_lock);
	if (!indexable(it)) {
		pm.skipped++;
	} else if (!pm.owner[b1] || !pm.owner[b2] || make_room(b1) == 0 || make_room(b2) == 0) {
		b = !pm.owner[b1] ? b1 : b2;
		slot_set(b, it, fp);
		it->it_flags |= ITEM_PRISM;
		pm.indexed++;
		pm.inserts++;
	} else {
		pm.index_full++;
	}
	pthread_mutex_unlock(&pm.ix_lock);
}

/* Has an offload client ever connected?  Until one has, no NIC read can be in
 * flight (the slot was cleared before any invocation can start), so unlinked
 * items are freed at once, as in stock memcached.  The server counts a
 * connection (conns_opened) before it answers the client's setup. */
static bool clients_seen(void)
{
	struct prism_server_stats ss;

	if (__atomic_load_n(&pm.clients_seen, __ATOMIC_ACQUIRE) || !pm.srv)
		return true; /* under prismd: clients come and go unseen */
	memset(&ss, 0, sizeof(ss));
	ss.sz = sizeof(ss);
	if (prism_server__stats(pm.srv, &ss) == 0 && ss.conns_opened == 0)
		return false;
	__atomic_store_n(&pm.clients_seen, true, __ATOMIC_RELEASE);
	return true;
}

void prism_mc_unlink(item *it)
{
	uint32_t fp, b1, b2;

	if (!pm.running || !(it->it_flags & ITEM_PRISM))
		return;
	b1 = (uint32_t)key_hash(ITEM_key(it), it->nkey, &fp) & (pm.nslots - 1);
	b2 = alt_slot(b1, fp);
	pthread_mutex_lock(&pm.ix_lock);
	if (pm.owner[b1] == it || pm.owner[b2] == it) {
		slot_clear(pm.owner[b1] == it ? b1 : b2);
		pm.indexed--;
	}
	pthread_mutex_unlock(&pm.ix_lock);
	if (!clients_seen()) {
		/* No reference taken: the slab mover must treat it as any item. */
		it->it_flags &= ~ITEM_PRISM;
		return;
	}

	/* Keep the memory for the lease (memcached holds the item lock, so the
	 * reference is taken as its own readers take theirs). */
	pthread_mutex_lock(&pm.q_lock);
	if (pm.q_len == pm.q_cap) {
		size_t cap = pm.q_cap ? pm.q_cap * 2 : 1024;
		struct qent *q = malloc(cap * sizeof(*q));

		if (!q) {
			/* No room to remember it: wait out the lease here. */
			pthread_mutex_unlock(&pm.q_lock);
			struct timespec t = {pm.lease_ms / 1000,
			                     (long)(pm.lease_ms % 1000) * 1000000};
			nanosleep(&t, NULL);
			return;
		}
		for (size_t i = 0; i < pm.q_len; i++)
			q[i] = pm.q[(pm.q_head + i) % pm.q_cap];
		free(pm.q);
		pm.q = q;
		pm.q_cap = cap;
		pm.q_head = 0;
	}
	refcount_incr(it);
	pm.q[(pm.q_head + pm.q_len++) % pm.q_cap] =
	    (struct qent){it, now_ns() + (uint64_t)pm.lease_ms * 1000000ull};
	pm.quarantined++;
	pthread_mutex_unlock(&pm.q_lock);
}

void prism_mc_check(item *it)
{
	uint32_t fp, b[2];

	if (!pm.running)
		return;
	b[0] = (uint32_t)key_hash(ITEM_key(it), it->nkey, &fp) & (pm.nslots - 1);
	b[1] = alt_slot(b[0], fp);
	pthread_mutex_lock(&pm.ix_lock);
	for (int i = 0; i < 2; i++) {
		item *o = pm.owner[b[i]];

		/* A slot's item is never freed before the slot is cleared, so its
		 * key is readable here. */
		if (o && o != it && o->nkey == it->nkey &&
		    !memcmp(ITEM_key(o), ITEM_key(it), it->nkey)) {
			fprintf(stderr, "prism: slot %u holds a stale item of key %.*s\n", b[i],
			        (int)it->nkey, ITEM_key(it));
			abort();
		}
		if (o == it && be64toh(pm.slots[b[i]].w1) !=
		                   pm.slab_nic + (uint64_t)((char *)it - pm.slab_base)) {
			fprintf(stderr, "prism: slot %u does not point at its item\n", b[i]);
			abort();
		}
	}
	pthread_mutex_unlock(&pm.ix_lock);
}

void prism_mc_flush(void)
{
	if (!pm.running)
		return;
	pthread_mutex_lock(&pm.ix_lock);
	for (uint32_t b = 0; b < pm.nslots; b++)
		if (pm.owner[b])
			slot_clear(b);
	pm.indexed = 0;
	pthread_mutex_unlock(&pm.ix_lock);
}

/* Releases quarantined items whose lease is over (item_remove takes the
 * item lock, so never under q_lock). */
static void *sweeper(void *arg)
{
	(void)arg;
	while (!pm.stop) {
		struct timespec t = {0, SWEEP_NS};

		for (;;) {
			item *it = NULL;

			pthread_mutex_lock(&pm.q_lock);
			if (pm.q_len && pm.q[pm.q_head].until_ns <= now_ns()) {
				it = pm.q[pm.q_head].it;
				pm.q_head = (pm.q_head + 1) % pm.q_cap;
				pm.q_len--;
			}
			pthread_mutex_unlock(&pm.q_lock);
			if (!it)
				break;
			item_remove(it);
		}
		nanosleep(&t, NULL);
	}
	return NULL;
}

/* ---- stats ----------------------------------------------------------------- */

void prism_mc_stats(ADD_STAT add_stats, conn *c)
{
	struct prism_server_stats ss;
	uint64_t indexed, inserts, kicks, full, skipped, qlen, quarantined;

	if (!pm.running)
		return;
	memset(&ss, 0, sizeof(ss));
	ss.sz = sizeof(ss);
	if (pm.srv)
		prism_server__stats(pm.srv, &ss); /* under prismd: its own counters */
	pthread_mutex_lock(&pm.ix_lock);
	indexed = pm.indexed;
	inserts = pm.inserts;
	kicks = pm.kicks;
	full = pm.index_full;
	skipped = pm.skipped;
	pthread_mutex_unlock(&pm.ix_lock);
	pthread_mutex_lock(&pm.q_lock);
	qlen = pm.q_len;
	quarantined = pm.quarantined;
	pthread_mutex_unlock(&pm.q_lock);

	APPEND_STAT("prism_port", "%u",
	            pm.srv ? (unsigned)prism_server__port(pm.srv) : (unsigned)pm.port);
	APPEND_STAT("prism_daemon", "%s", pm.daemon_sock[0] ? pm.daemon_sock : "none");
	APPEND_STAT("prism_nic_threads", "%u", pm.nic_threads);
	APPEND_STAT("prism_index_slots", "%u", pm.nslots);
	APPEND_STAT("prism_seed", "%llu", (unsigned long long)pm.seed);
	APPEND_STAT("prism_max_item", "%u", pm.max_item);
	APPEND_STAT("prism_lease_ms", "%u", pm.lease_ms);
	APPEND_STAT("prism_process_started", "%lld", (long long)process_started);
	APPEND_STAT("prism_offloaded", "%llu", (unsigned long long)ss.invocations);
	APPEND_STAT("prism_conns", "%llu", (unsigned long long)ss.conns_active);
	APPEND_STAT("prism_conns_failed", "%llu", (unsigned long long)ss.conns_failed);
	APPEND_STAT("prism_indexed", "%llu", (unsigned long long)indexed);
	APPEND_STAT("prism_inserts", "%llu", (unsigned long long)inserts);
	APPEND_STAT("prism_not_indexable", "%llu", (unsigned long long)skipped);
	APPEND_STAT("prism_kicks", "%llu", (unsigned long long)kicks);
	APPEND_STAT("prism_index_full", "%llu", (unsigned long long)full);
	APPEND_STAT("prism_quarantined", "%llu", (unsigned long long)qlen);
	APPEND_STAT("prism_quarantined_total", "%llu", (unsigned long long)quarantined);
}
