/* SPDX-License-Identifier: MIT */
/*
 * prism/errors.h - the runtime's own error codes, one table.
 *
 * Owns: the numbering of prism-specific error codes (4000..4099) and their
 * messages.  Every API function returns 0 / a count on success and a
 * negative value on failure: either -errno (ENOMEM, EINVAL, ...) or
 * -PRISM_E_* from this table.  prism_strerror() names both kinds.
 *
 * Ranges: 4000..4059 runtime core, 4060..4079 transport (runtime/net),
 * 4080..4099 reserved.  Add a code with one line in PRISM_ERRORS below;
 * values are explicit so that they never move.
 *
 * Must not: hold anything but the table.
 */
#ifndef PRISM_ERRORS_H
#define PRISM_ERRORS_H

#define PRISM_ERRNO_BASE 4000
#define PRISM_ERRNO_LAST 4099

/* X(NAME, value, message) */
#define PRISM_ERRORS(X)                                                                            \
	X(PRISM_E_FORMAT, 4000, "malformed chain object")                                          \
	X(PRISM_E_VERSION, 4001, "unsupported chain object schema version")                        \
	X(PRISM_E_VERIFY, 4002, "program failed load-time verification")                           \
	X(PRISM_E_NODEV, 4003, "no such prism device")                                             \
	X(PRISM_E_NOREGION, 4004, "program needs a region that is not registered")                 \
	X(PRISM_E_REGION, 4005, "region does not satisfy the program's declaration")               \
	X(PRISM_E_RELOC, 4006, "relocation could not be applied")                                  \
	X(PRISM_E_NOENTRY, 4007, "no such entry point")                                            \
	X(PRISM_E_ARGS, 4008, "arguments do not match the entry point's parameters")               \
	X(PRISM_E_TIMEOUT, 4009, "invocation timed out")                                           \
	X(PRISM_E_CONN, 4010, "connection is in the error state")                                  \
	X(PRISM_E_OPTS, 4011, "options struct has unknown nonzero fields")                         \
	X(PRISM_E_CONFIG, 4012, "invalid configuration")                                           \
	X(PRISM_E_NOPROG, 4013, "no such program on the server")                                   \
	X(PRISM_E_BACKEND, 4014, "device backend failure")                                         \
	X(PRISM_E_EXISTS, 4015, "an object with that name already exists")                         \
	X(PRISM_E_NOTLOADED, 4016, "program is not loaded on a device")                            \
	X(PRISM_E_BUSY, 4017, "object is in use")                                                  \
	X(PRISM_E_RESULT, 4018, "result buffer too small")                                         \
	X(PRISM_E_REARM, 4019, "program cannot be re-armed in the requested mode")                 \
	X(PRISM_E_LIMIT, 4020, "resource limit reached")                                           \
	X(PRISM_E_REMOTE, 4021, "the server rejected the request")                                 \
	X(PRISM_E_DAEMON, 4022, "daemon control protocol error")                                   \
	X(PRISM_E_PROTO, 4023, "malformed connection-setup message")                               \
	X(PRISM_E_NOCAP, 4024, "the device lacks a capability the program needs")                  \
	X(PRISM_E_ASSUME, 4025, "program relies on NIC behaviour the device does not confirm")     \
	X(PRISM_E_UNSEALED, 4040, "shared memory is not a memfd sealed against shrinking")         \
	X(PRISM_E_UNGATED, 4041, "program has no request gate: a flushed receive could start it")  \
	X(PRISM_E_NET_PROTO, 4060, "malformed packet or setup message from the peer")              \
	X(PRISM_E_NET_VERSION, 4061, "peer speaks another setup protocol version")                 \
	X(PRISM_E_NET_REJECTED, 4062, "peer rejected the connection")                              \
	X(PRISM_E_NET_PEER_GONE, 4063, "peer closed the connection")                               \
	X(PRISM_E_NET_RESOLVE, 4064, "host name could not be resolved")                            \
	X(PRISM_E_NET_BUSY, 4065, "peer is busy with other connection setups; try again later")

enum prism_errno {
#define PRISM_X_ERRNO(name, value, msg) name = value,
	PRISM_ERRORS(PRISM_X_ERRNO)
#undef PRISM_X_ERRNO
};

#endif /* PRISM_ERRORS_H */
