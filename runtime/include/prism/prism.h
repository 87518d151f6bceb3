/* SPDX-License-Identifier: MIT */
/*
 * prism/prism.h - the prism runtime API.
 *
 * Owns: the public, libbpf-style interface of libprism: opaque objects with
 * prism_<object>__<verb> methods, size-prefixed options structs, negative
 * error codes (prism/errors.h) and a replaceable log callback.
 *
 *   prism_device    a NIC: "sim" (the software RNIC, default) or an mlx5 device
 *   prism_region    a named, registered memory region (optionally memfd-backed)
 *   prism_program   a compiled .chain object, re-verified when loaded
 *   prism_server    serves programs: one program instance (queues, relocated
 *                   WQEs) per client connection, re-armed after each invocation
 *   prism_client    connects to a server and invokes entry points
 *   prism_daemon    the application's handle on prismd (daemon mode)
 *
 * Conventions.  Functions returning int return >= 0 on success and a negative
 * code on failure: -errno or -PRISM_E_*.  Functions returning a pointer
 * return NULL on failure and set errno to the (positive) code.  The library
 * never prints and never exits; messages go to the callback set with
 * prism_set_log_fn() (none by default).  Every object is freed by its
 * __close / __destroy function, which accepts NULL.
 *
 * Must not: expose struct layouts other than options / results, or any
 * internal header.
 */
#ifndef PRISM_PRISM_H
#define PRISM_PRISM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <prism/errors.h>
#include <prism/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors and logging ------------------------------------------------ */

/* Message for @err (negative or positive; prism codes and errno values). */
PRISM_API const char *prism_strerror(int err);

enum prism_log_level {
	PRISM_LOG_ERROR,
	PRISM_LOG_WARN,
	PRISM_LOG_INFO,
	PRISM_LOG_DEBUG,
};

/* @msg is one line without the trailing newline. */
typedef void (*prism_log_fn)(enum prism_log_level level, const char *msg, void *ctx);

/*
 * Install @fn (NULL: discard everything) for messages at @max_level or more
 * severe.  Returns the previous callback.  Thread-safe.
 */
PRISM_API prism_log_fn prism_set_log_fn(prism_log_fn fn, void *ctx, enum prism_log_level max_level);

/* A ready-made callback that writes "prism: <level>: <msg>\n" to stderr. */
PRISM_API void prism_log_stderr(enum prism_log_level level, const char *msg, void *ctx);

/* ---- options ------------------------------------------------------------ */

/*
 * Declare and initialise an options struct: every options struct starts with
 * `size_t sz`, set to the caller's sizeof.  The library accepts smaller
 * (older) structs and rejects larger ones whose unknown tail is not zero
 * (-PRISM_E_OPTS).
 *
 *	PRISM_OPTS(prism_device_opts, o, .profile = "cx5");
 */
#define PRISM_OPTS(TYPE, NAME, ...)                                                                \
	struct TYPE NAME = ({                                                                      \
		memset(&NAME, 0, sizeof(struct TYPE));                                             \
		(struct TYPE){.sz = sizeof(struct TYPE), __VA_ARGS__};                             \
	})

/* ---- devices ------------------------------------------------------------ */

struct prism_device;

struct prism_device_opts {
	size_t sz;
	const char *profile;    /* cost profile (NIC model): "cx5" (default) */
	const char *firmware;   /* "relaxed" (default) or "strict" WQE checks */
	uint64_t seed;          /* sim scheduler seed; 0: fixed default */
	bool hazard_fail;       /* sim: a fetched-then-modified WQE is an error, not a warning */
	bool threaded;          /* sim: the NIC runs on its own thread (servers); default:
	                         * it runs when the runtime drives it (deterministic) */
	uint32_t node;          /* sim: node id on the wire; 0: chosen at random */
	const char *trace_path; /* sim: write a Chrome/Perfetto trace (JSON) of every WQE
	                         * the device runs to this file; finished at close */
	unsigned nic_threads;   /* sim: NICs (shards) behind this device, each with its
	                         * own NIC thread (threaded) or its own progress calls;
	                         * a server spreads its connections over them.  0: 1;
	                         * at most 64; not with trace_path.  Shard i uses node
	                         * id node + i and seed seed + i */
	bool chaos;             /* sim: READs served cache line by cache line in a
	                         * seeded random order, as a NIC may (docs/nic-model.md,
	                         * chaos mode); for consistency tests */
	size_t : 0;
};

/*
 * Names of the devices prism can open ("sim" first).  Fills at most @cap
 * entries of @names (static strings) and returns the total count.
 */
PRISM_API int prism_list_devices(const char **names, size_t cap);

/* What a device can run; programs that need more are refused at load. */
struct prism_device_caps {
	size_t sz;
	char backend[16];            /* "sim", "mlx5" */
	bool cross_channel;          /* WAIT / SEND_EN / RECV_EN, managed queues */
	bool wait_on_data;           /* WAIT on a memory value */
	bool relaxed_firmware;       /* WQE index / QPN checks off */
	bool atomic_8b_host_endian;  /* 8-byte atomics on host-order integers */
	uint8_t masked_atomic_sizes; /* bits 4, 8, 16, 32: masked atomics on those sizes */
	char firmware_source[96];    /* where relaxed_firmware comes from */
};

/* Fill @caps (.sz = sizeof) for @dev.  0 or a negative error code. */
PRISM_API int prism_device__caps(const struct prism_device *dev, struct prism_device_caps *caps);

/* @name: "sim" or NULL (default), or an mlx5 device name ("mlx5_0"). */
PRISM_API struct prism_device *prism_device__open(const char *name,
                                                  const struct prism_device_opts *opts);
PRISM_API void prism_device__close(struct prism_device *dev);
PRISM_API const char *prism_device__name(const struct prism_device *dev);

/* Name of the sim device's cost profile ("cx5"), NULL on hardware. */
PRISM_API const char *prism_device__profile(const struct prism_device *dev);

/* Virtual clock of a sim device in ns (0 on hardware); the latest of its shards. */
PRISM_API uint64_t prism_device__virt_ns(const struct prism_device *dev);
/* NIC threads (shards) of the device (prism_device_opts.nic_threads), >= 1. */
PRISM_API int prism_device__nic_threads(const struct prism_device *dev);

/* ---- regions ------------------------------------------------------------ */

struct prism_region;

enum prism_access {
	PRISM_ACCESS_READ = 1u << 0,   /* remote/NIC reads */
	PRISM_ACCESS_WRITE = 1u << 1,  /* remote/NIC writes */
	PRISM_ACCESS_ATOMIC = 1u << 2, /* CAS / FETCH_ADD */
};

struct prism_region_opts {
	size_t sz;
	unsigned access; /* enum prism_access; 0 means READ */
	size_t : 0;
};

/*
 * Register @len bytes at @addr under @name (unique per device; letters,
 * digits and '_', at most 63 bytes).  The memory stays the caller's.
 */
PRISM_API struct prism_region *prism_device__register_region(struct prism_device *dev,
                                                             const char *name, void *addr,
                                                             size_t len,
                                                             const struct prism_region_opts *opts);

/*
 * Allocate @len zeroed bytes backed by a memfd (so that prismd can map the
 * same pages, prism_daemon__share_region) and register them under @name.
 */
PRISM_API struct prism_region *prism_device__create_region(struct prism_device *dev,
                                                           const char *name, size_t len,
                                                           const struct prism_region_opts *opts);

PRISM_API struct prism_region *prism_device__find_region(struct prism_device *dev,
                                                         const char *name);

/* Unregister (and unmap, for created regions).  -PRISM_E_BUSY while a loaded program uses it. */
PRISM_API int prism_region__unregister(struct prism_region *region);

PRISM_API const char *prism_region__name(const struct prism_region *region);
PRISM_API void *prism_region__addr(const struct prism_region *region);
PRISM_API size_t prism_region__size(const struct prism_region *region);
/*
 * The address the NIC sees the region at: what pointers stored inside the
 * region (a bucket's value pointer) must hold.  prism_region__addr() unless
 * the region was shared with prismd, which maps it elsewhere.
 */
PRISM_API uint64_t prism_region__nic_addr(const struct prism_region *region);
/* The memfd of a created region, or -EBADF for a registered one. */
PRISM_API int prism_region__fd(const struct prism_region *region);

/* ---- programs ----------------------------------------------------------- */

struct prism_program;

/* Parameter and result types, as declared in the .chain object. */
enum prism_type {
	PRISM_TYPE_U8,
	PRISM_TYPE_U16,
	PRISM_TYPE_U32,
	PRISM_TYPE_U64,
	PRISM_TYPE_BYTES, /* fixed-size byte string */
};

struct prism_param_info {
	const char *name;
	enum prism_type type;
	uint32_t size; /* bytes the client sends for it */
};

struct prism_program_opts {
	size_t sz;
	const char *name; /* override the object's program name */
	/* Load an object compiled without the request gate (prismc compile
	 * --no-request-gate, for a device without wait-on-data): a client that
	 * fails its own connection can then start pre-posted invocations with
	 * unfilled arguments (docs/security.md).  Off: such an object is
	 * refused with PRISM_E_UNGATED. */
	bool allow_ungated;
	size_t : 0;
};

PRISM_API struct prism_program *prism_program__open_file(const char *path,
                                                         const struct prism_program_opts *opts);
PRISM_API struct prism_program *prism_program__open_mem(const void *buf, size_t len,
                                                        const struct prism_program_opts *opts);

/*
 * Re-verify the object and bind it to @dev: every region it declares must be
 * registered on @dev with the declared size and access.  Posts nothing:
 * queues are created per connection (prism_server).  A bad or tampered
 * object fails with -PRISM_E_VERIFY / -PRISM_E_FORMAT and a log message
 * saying which check failed.
 */
PRISM_API int prism_program__load(struct prism_program *prog, struct prism_device *dev);
PRISM_API void prism_program__close(struct prism_program *prog);

PRISM_API const char *prism_program__name(const struct prism_program *prog);
/* Bytes of the .chain object the program was opened from. */
PRISM_API uint64_t prism_program__object_bytes(const struct prism_program *prog);
PRISM_API int prism_program__entry_count(const struct prism_program *prog);
PRISM_API const char *prism_program__entry_name(const struct prism_program *prog, int entry);
/* Index of the entry point @name, or -PRISM_E_NOENTRY. */
PRISM_API int prism_program__find_entry(const struct prism_program *prog, const char *name);
PRISM_API int prism_program__param_count(const struct prism_program *prog, int entry);
PRISM_API int prism_program__param(const struct prism_program *prog, int entry, int param,
                                   struct prism_param_info *info);
/* A region the program declares (what must be registered before load). */
struct prism_region_info {
	const char *name;
	uint64_t size;
	unsigned access; /* enum prism_access */
};

PRISM_API int prism_program__region_count(const struct prism_program *prog);
PRISM_API int prism_program__region(const struct prism_program *prog, int i,
                                    struct prism_region_info *info);

/* Bytes of the entry's result (what the client receives). */
PRISM_API int prism_program__result_size(const struct prism_program *prog, int entry);
/* Work requests one invocation of @entry executes at most (verifier summary). */
PRISM_API int prism_program__wr_budget(const struct prism_program *prog, int entry);

/* ---- servers ------------------------------------------------------------ */

struct prism_server;

#define PRISM_DEFAULT_PORT 18515
#define PRISM_PORT_ANY     (-1)

/*
 * How a connection's queues get ready for the next invocation.
 *   CPU: the server's progress thread re-posts the WQE templates with advanced
 *        WAIT/ENABLE counts after each invocation (works for every program);
 *   NIC: the program recycles its own queues (WAIT+ENABLE at the tail), no
 *        server CPU at all; only for programs whose object says they can.
 *   AUTO: NIC where the program allows it, else CPU.
 */
enum prism_rearm {
	PRISM_REARM_AUTO,
	PRISM_REARM_CPU,
	PRISM_REARM_NIC,
};

struct prism_server_opts {
	size_t sz;
	const char *host; /* listen address; NULL: "0.0.0.0" */
	int port;         /* TCP port (18515 is the usual one); 0: in-process clients
	                   * only; PRISM_PORT_ANY: any free port (prism_server__port) */
	enum prism_rearm rearm;
	unsigned max_conns;        /* 0: 4096 */
	unsigned depth;            /* invocations a connection may have in flight; 0: 16 */
	bool allow_post;           /* accept programs from `prismc post` (prism_post) on
	                            * post_socket, from the uids of post_uids */
	unsigned progress_threads; /* threads that poll and re-arm connections; 0: one
	                            * per NIC thread of the device (nic_threads),
	                            * else this many, each serving every k-th shard */
	/* Installs: a Unix stream socket (required with allow_post; the only way
	 * to post: TCP posts are refused) and the uids allowed to post or remove
	 * programs on it (checked with SO_PEERCRED; none: the server's own). */
	const char *post_socket;
	const uint32_t *post_uids;
	unsigned n_post_uids;
	unsigned max_conns_per_peer;  /* live connections from one address; 0: 64 */
	unsigned max_setups;          /* connection setups in progress; 0: 64 */
	unsigned max_setups_per_peer; /* from one address; 0: 8 */
	size_t : 0;
};

PRISM_API struct prism_server *prism_server__create(struct prism_device *dev,
                                                    const struct prism_server_opts *opts);
/*
 * Serve @prog (loaded on the server's device) to connections made from now
 * on.  A program with the same name is replaced for new connections; existing
 * connections keep the instance they have.
 */
PRISM_API int prism_server__add_program(struct prism_server *srv, struct prism_program *prog);
PRISM_API int prism_server__remove_program(struct prism_server *srv, const char *name);

/* Start listening (when a port is set) and the background progress thread. */
PRISM_API int prism_server__start(struct prism_server *srv);
/* Stop the thread and tear every connection down; programs stay added. */
PRISM_API void prism_server__stop(struct prism_server *srv);
PRISM_API void prism_server__destroy(struct prism_server *srv);
/* The TCP port actually bound (useful with port 0 + listen), or 0. */
PRISM_API uint16_t prism_server__port(const struct prism_server *srv);

struct prism_server_stats {
	size_t sz;
	uint64_t conns_active;
	uint64_t conns_total;
	uint64_t conns_failed;   /* torn down because of an error */
	uint64_t invocations;    /* completed on the server side */
	uint64_t rearms_cpu;     /* template re-posts done by the CPU */
	uint64_t bytes_per_conn; /* queue + scratch memory of one connection */
	uint64_t shards;         /* NIC threads the connections are spread over */
	uint64_t conns_opened;   /* connections whose queues were created, counted before
	                          * the client can send (failed setups included): 0 means
	                          * no invocation has ever run */
	uint64_t conn_polls;     /* times a connection's CQs were polled: with
	                          * completion events, idle ones are not */
	size_t : 0;
};

/*
 * Shard (NIC thread) @shard of the server's device: its live connections and
 * completed invocations.  0 or -EINVAL (no such shard).
 */
struct prism_shard_stats {
	size_t sz;
	uint64_t conns_active;
	uint64_t conns_total;
	uint64_t invocations;
	size_t : 0;
};

PRISM_API int prism_server__shard_stats(const struct prism_server *srv, unsigned shard,
                                        struct prism_shard_stats *st);

PRISM_API int prism_server__stats(const struct prism_server *srv, struct prism_server_stats *st);

/* ---- clients ------------------------------------------------------------ */

struct prism_client;

/*
 * What carries a client's packets to a server in another process (sim
 * device; docs/runtime-api.md, "Transport"):
 *   AUTO: a shared-memory ring pair when the server runs on this host and
 *         offers one (same uid), else TCP; the environment variable
 *         PRISM_TRANSPORT=tcp|shm|auto decides for AUTO;
 *   TCP:  TCP always;
 *   SHM:  a ring pair, or the connection fails.
 */
enum prism_transport {
	PRISM_TRANSPORT_AUTO,
	PRISM_TRANSPORT_TCP,
	PRISM_TRANSPORT_SHM,
};

struct prism_client_opts {
	size_t sz;
	const char *program; /* program name on the server; NULL: the only one */
	int timeout_ms;      /* default per invocation; 0: 5000; <0: forever */
	enum prism_transport transport;
	size_t : 0;
};

/* Connect over TCP to @addr ("host:port"; port defaults to 18515). */
PRISM_API struct prism_client *prism_client__connect(struct prism_device *dev, const char *addr,
                                                     const struct prism_client_opts *opts);
/* Connect in-process to @srv (embedded mode: both ends on the server's device). */
PRISM_API struct prism_client *prism_client__connect_local(struct prism_server *srv,
                                                           const struct prism_client_opts *opts);
PRISM_API void prism_client__close(struct prism_client *cl);
/* The shard (NIC thread of its device) the client's queues live on. */
PRISM_API int prism_client__shard(const struct prism_client *cl);
/* What carries its packets: PRISM_TRANSPORT_SHM (a ring pair) or _TCP;
 * _AUTO for an in-process client or an RDMA NIC's (neither). */
PRISM_API enum prism_transport prism_client__transport(const struct prism_client *cl);

/* Entry/parameter metadata as the server described it at connection time. */
PRISM_API int prism_client__find_entry(const struct prism_client *cl, const char *name);
/* Name of entry @entry (NULL when out of range). */
PRISM_API const char *prism_client__entry_name(const struct prism_client *cl, int entry);
PRISM_API int prism_client__param_count(const struct prism_client *cl, int entry);
PRISM_API int prism_client__param(const struct prism_client *cl, int entry, int param,
                                  struct prism_param_info *info);
PRISM_API int prism_client__result_size(const struct prism_client *cl, int entry);

/* A named field of an entry's result (bytes [offset, offset + size) of it). */
struct prism_result_info {
	const char *name;
	uint32_t offset;
	uint32_t size;
	bool big_endian;
};

PRISM_API int prism_client__result_count(const struct prism_client *cl, int entry);
PRISM_API int prism_client__result(const struct prism_client *cl, int entry, int i,
                                   struct prism_result_info *info);

/* A typed argument: integers use .u64, PRISM_TYPE_BYTES uses .bytes/.len. */
struct prism_arg {
	const char *name; /* must match the parameter's name */
	uint64_t u64;
	const void *bytes;
	size_t len;
};

/* One invocation; the result fields are filled in. */
struct prism_call {
	size_t sz;
	const char *entry;
	const struct prism_arg *args;
	size_t nargs;
	void *result; /* receives the entry's result bytes */
	size_t result_cap;
	/* out */
	int status; /* 0 or a negative code */
	size_t result_len;
	uint64_t virt_ns;  /* virtual-clock latency (sim), 0 on hardware */
	uint32_t ret_site; /* which `return` produced the result (1, 2, ...); 0: none
	                    * ran (e.g. a lookup that found nothing) */
	uint32_t ret_len;  /* bytes that `return` wrote (its completion's byte
	                    * count; less than result_len after a bounded read
	                    * `e[.. n]`); 0 when none ran */
	size_t : 0;
};

struct prism_invoke_opts {
	size_t sz;
	int timeout_ms; /* 0: the client's default */
	size_t : 0;
};

/* Invoke synchronously.  Returns 0 or a negative code (also in call->status). */
PRISM_API int prism_client__invoke(struct prism_client *cl, struct prism_call *call,
                                   const struct prism_invoke_opts *opts);
/*
 * Issue @n calls back to back (up to the connection's depth in flight) and
 * wait for all of them.  Returns how many succeeded; each call's status says
 * how it went.
 */
PRISM_API int prism_client__invoke_batch(struct prism_client *cl, struct prism_call *calls,
                                         size_t n, const struct prism_invoke_opts *opts);

struct prism_post_opts {
	size_t sz;
	int timeout_ms; /* 0: 5000 */
	size_t : 0;
};

/*
 * Send a .chain object (@len bytes of YAML) to the server whose post socket
 * is @socket_path (its post_socket), which checks that this process's uid
 * may post, verifies the object and installs it for new connections,
 * replacing a program of the same name.  0, or -PRISM_E_NET_REJECTED with
 * the server's reason in the log (one message).
 */
PRISM_API int prism_post(const char *socket_path, const void *chain, size_t len,
                         const struct prism_post_opts *opts);
/* Withdraw program @name from new connections of the server at @socket_path
 * (same authorization as prism_post); existing connections keep it. */
PRISM_API int prism_post_remove(const char *socket_path, const char *name,
                                const struct prism_post_opts *opts);

/* One program installed on a server, as prism_post_list() describes it. */
#define PRISM_LIST_ENTRIES 8
#define PRISM_LIST_REGIONS 16

struct prism_installed_region {
	char name[64];
	uint64_t size;
	unsigned access; /* enum prism_access */
};

struct prism_installed {
	size_t sz;
	char name[64];
	uint32_t n_entries; /* all of them; the first PRISM_LIST_ENTRIES are named */
	char entries[PRISM_LIST_ENTRIES][64];
	uint32_t n_regions; /* all of them; the first PRISM_LIST_REGIONS are described */
	struct prism_installed_region regions[PRISM_LIST_REGIONS];
	uint64_t object_bytes;  /* size of the .chain object it came from */
	int64_t installed_at;   /* Unix time it was installed (or replaced) */
	uint32_t installed_uid; /* who posted it (the server's uid when added by the
	                         * application or its configuration) */
	int32_t installed_pid;  /* -1: added by the application, not posted */
	uint64_t conns_active;  /* connections running this installation now */
	uint64_t conns_total;   /* ... and since it was installed */
	uint64_t invocations;   /* completed on the server since it was installed */
	size_t : 0;
};

/*
 * List the programs installed on the server whose post socket is
 * @socket_path (same authorization as prism_post).  Fills at most @cap
 * entries of @out, each of @out[0].sz bytes (set it to sizeof(struct
 * prism_installed)), and returns how many programs are installed, or a
 * negative code.
 */
PRISM_API int prism_post_list(const char *socket_path, struct prism_installed *out, size_t cap,
                              const struct prism_post_opts *opts);

/* ---- daemon mode (prismd) ----------------------------------------------- */

struct prism_daemon;

/*
 * Attach to prismd's control socket (the `control:` path of its config).
 * The application keeps its data in regions made with
 * prism_device__create_region() (memfd-backed) on any device (a "sim"
 * device it never runs is fine) and shares them; prismd maps the same
 * pages, so its software NIC keeps serving if the application dies.
 */
PRISM_API struct prism_daemon *prism_daemon__attach(const char *socket_path);
PRISM_API void prism_daemon__detach(struct prism_daemon *d);
/*
 * Hand a created (memfd-backed) region to prismd, which maps the same pages
 * and registers them on its device under the region's name (a region its
 * config declares `shared-by-app`).  Programs waiting for it are loaded.
 */
PRISM_API int prism_daemon__share_region(struct prism_daemon *d, struct prism_region *region);

#ifdef __cplusplus
}
#endif
#endif /* PRISM_PRISM_H */
