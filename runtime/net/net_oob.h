/* SPDX-License-Identifier: MIT */
/*
 * net/net_oob.h - connection setup: the out-of-band exchange.
 *
 * Owns: the setup messages both sides send on a fresh TCP connection before
 * any packet (CONNECT from the client, ACCEPT or REJECT from the server):
 * their encoding, validation (version, lengths, ranges) and the blocking
 * exchange with a deadline.  Layout in docs/wire-format.md, "Setup".
 *
 * Must not: know about programs or queues beyond the numbers it carries; the
 * blob is opaque to it.  Never prints.
 */
#ifndef PRISM_NET_OOB_H
#define PRISM_NET_OOB_H

#include <stddef.h>
#include <stdint.h>

#include "net/net_diag.h"

#define NET_OOB_MAGIC 0x5052534du /* "PRSM" */
/* 2: the RC address (LID, MTU, GID); 3: flags, ring block; 4: ACKs are
 * cumulative (rule ack-coalesced): a peer may send one ACK for several
 * requests, which a version-3 requester would leave outstanding */
#define NET_OOB_VERSION      4u
#define NET_OOB_HDR_BYTES    12u
#define NET_OOB_FIXED_BYTES  44u /* CONNECT / ACCEPT body before regions */
#define NET_OOB_REGION_BYTES 16u
#define NET_OOB_RING_BYTES   64u /* the ring block (flag NET_OOB_F_RING) */
#define NET_OOB_TOKEN_BYTES  16u
#define NET_OOB_RING_NAME    44u /* bytes of the ring socket name field */
#define NET_OOB_MAX_REGIONS  8u
#define NET_OOB_MAX_BLOB     (1u << 20) /* a whole .chain object fits */
#define NET_OOB_MAX_REASON   200u
#define NET_OOB_MAX_BODY                                                                           \
	(NET_OOB_FIXED_BYTES + NET_OOB_MAX_REGIONS * NET_OOB_REGION_BYTES + NET_OOB_RING_BYTES +   \
	 NET_OOB_MAX_BLOB)
#define NET_OOB_MAX_MSG (NET_OOB_HDR_BYTES + NET_OOB_MAX_BODY)

enum net_oob_type {
	NET_OOB_CONNECT = 1, /* client -> server */
	NET_OOB_ACCEPT = 2,  /* server -> client */
	NET_OOB_REJECT = 3,  /* server -> client, then close */
};

/* A memory window one side offers the other (e.g. the client's response buffer). */
struct net_oob_region {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};

/* CONNECT / ACCEPT flags. */
enum {
	/* CONNECT: the client is on this host and can take a shared-memory
	 * ring pair instead of this TCP connection (net_shm.h) */
	NET_OOB_F_RING_OFFER = 1u << 0,
	/* a ring block follows the regions: in an ACCEPT, where and with
	 * which one-time token to fetch the ring pair; in the CONNECT on that
	 * socket, the token */
	NET_OOB_F_RING = 1u << 1,
};
#define NET_OOB_FLAGS_KNOWN (NET_OOB_F_RING_OFFER | NET_OOB_F_RING)

/* The ring block: be32 ring size | token | name (printable, NUL-padded). */
struct net_oob_ring {
	uint32_t size; /* bytes per direction (net_ring.h) */
	uint8_t token[NET_OOB_TOKEN_BYTES];
	char name[NET_OOB_RING_NAME + 1]; /* abstract Unix socket name, no leading NUL */
};

/* What each side tells the other. */
struct net_oob_params {
	uint32_t node;    /* sim node id of the sender's device */
	uint32_t qpn;     /* 24 bits */
	uint32_t psn;     /* 24 bits: first PSN the sender will use */
	uint32_t max_pkt; /* largest packet the sender accepts (0 = default) */
	/* Where an RDMA NIC reaches the sender's QP (zeros on the sim, which
	 * routes by node): InfiniBand LID, path MTU (enum ibv_mtu, 1..5; 0 =
	 * unknown) and GID (RoCE, or IB with a GRH). */
	uint16_t lid;
	uint8_t mtu;
	uint8_t gid[16];
	uint16_t n_regions;
	uint16_t flags; /* NET_OOB_F_* */
	struct net_oob_region regions[NET_OOB_MAX_REGIONS];
	struct net_oob_ring ring; /* with NET_OOB_F_RING */
	/*
	 * Opaque to the transport.  Sending: the caller's bytes.  Received
	 * (net_oob_recv, net_connect, net_pending_peer): allocated by the
	 * net module; net_oob_params_release() frees it (pending connections
	 * free their own).
	 */
	uint32_t blob_len;
	uint8_t *blob;
};

/* Free a received blob and clear it. */
void net_oob_params_release(struct net_oob_params *p);

/* A decoded setup message. */
struct net_oob_msg {
	enum net_oob_type type;
	struct net_oob_params params; /* CONNECT / ACCEPT */
	uint32_t reject_errno;        /* REJECT: positive errno value */
	char reason[NET_OOB_MAX_REASON + 1];
};

/* Encode; returns the message size or -EINVAL (params out of range, in @diag). */
int net_oob_encode(const struct net_oob_msg *m, void *buf, size_t cap, struct diag_report *diag);

/*
 * Decode a whole message of @len bytes.  -EPROTO: malformed (bad magic,
 * lengths, ranges); -EPROTONOSUPPORT: another protocol version.  The
 * decoded blob points into @buf (nothing is allocated).
 */
int net_oob_decode(const void *buf, size_t len, struct net_oob_msg *m, struct diag_report *diag);

/* Send @m on non-blocking @fd before @timeout_ms elapses. */
int net_oob_send(int fd, const struct net_oob_msg *m, int timeout_ms, struct diag_report *diag);

/*
 * Read one message from non-blocking @fd: the header, its length checked
 * before the body is read, then the body.  -EPROTO with "truncated" when the
 * peer closes mid-message, -ETIMEDOUT when @timeout_ms passes.
 */
int net_oob_recv(int fd, struct net_oob_msg *m, int timeout_ms, struct diag_report *diag);

/*
 * A message read piece by piece from a non-blocking socket, for a server
 * that serves many setups from one thread (net_accept.h).  Zero it to
 * start; @max_body caps the body (0: NET_OOB_MAX_BODY) and is checked on
 * the header, before the body is allocated.
 */
struct net_oob_rx {
	uint8_t hdr[NET_OOB_HDR_BYTES];
	uint32_t max_body;
	uint32_t body_len;
	size_t got; /* bytes of header + body read so far */
	unsigned type;
	uint8_t *body;
};

/*
 * Read what @fd has: 1 when the message is complete (in @m, as
 * net_oob_recv leaves it: release its blob), 0 when more is to come
 * (EAGAIN), or a negative code (-EPROTO malformed or truncated, with the
 * reason in @diag).
 */
int net_oob_rx_step(struct net_oob_rx *rx, int fd, struct net_oob_msg *m, struct diag_report *diag);
void net_oob_rx_free(struct net_oob_rx *rx);

/*
 * Client side of the exchange: send CONNECT with @mine, wait for ACCEPT
 * (fills @peer) or REJECT (-ECONNREFUSED with the server's reason;
 * NET_E_BUSY when its code is EBUSY: too many setups in progress).
 */
int net_oob_client(int fd, const struct net_oob_params *mine, struct net_oob_params *peer,
                   int timeout_ms, struct diag_report *diag);

#endif /* PRISM_NET_OOB_H */
