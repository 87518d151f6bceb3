/* SPDX-License-Identifier: MIT */
/*
 * tests/security/raw_client.h - a client that speaks prism's transport
 * directly, for the adversarial suite: it sets a connection up with a
 * prism hello as the runtime's client does, then drives its own RC QP with
 * any verb it likes (SEND a request, or RDMA READ / WRITE / atomic aimed
 * at the server), as a hostile host with its own RNIC could.
 *
 * Owns: struct raw_client.  Built on tests/net/net_peer (a threaded sim
 * device with the TCP transport); uses the runtime's own hello/welcome
 * encoders (core/proto.h).
 * Must not: use cmocka (callers assert); every function returns 0 or a
 * negative errno-style code.
 */
#ifndef PRISM_TESTS_RAW_CLIENT_H
#define PRISM_TESTS_RAW_CLIENT_H

#include "core/proto.h"
#include "net/net_frame.h"
#include "tests/net/net_peer.h"

#define RAW_MEM      (64u << 10) /* the client's registered buffer */
#define RAW_RESP_OFF 0u          /* response slots at the start of it */
#define RAW_SLOTS    4u
#define RAW_SLOT     512u
#define RAW_MSG_OFF  4096u /* request payloads are built here */
#define RAW_DATA_OFF 8192u /* READ / atomic results land here */
#define RAW_WAIT_MS  5000

struct raw_client {
	struct np_qp q;
	struct core_welcome w;      /* what the server published */
	unsigned oob_regions;       /* regions its setup answer advertised */
	struct net_oob_params peer; /* the server's setup answer */
	uint64_t sent;              /* requests sent */
};

/* Connect @c (on device @d) to program @program of the server at
 * 127.0.0.1:@port, with a prism hello; receives are posted for the
 * responses.  0, or the setup's error (the server's REJECT included). */
int raw_connect(struct raw_client *c, struct np_dev *d, int port, const char *program);
/* ... with @recvs receives posted for the responses (0: every response
 * meets receiver-not-ready and stays in flight, unacknowledged). */
int raw_connect_recvs(struct raw_client *c, struct np_dev *d, int port, const char *program,
                      unsigned recvs);
void raw_close(struct raw_client *c);

/* Only the setup: the hello, the server's answer in c->w and c->peer, and
 * the link's socket in *@fd, with no QP bound to it; the caller writes
 * records of its own making into it (raw_inject) and closes it before
 * raw_close.  0, or the setup's error. */
int raw_setup(struct raw_client *c, struct np_dev *d, int port, const char *program, int *fd);
/* Write one transport record carrying @pkt (any header the client likes)
 * into @fd.  0 or a negative errno. */
int raw_inject(int fd, const struct net_pkt *pkt);

/* Send @len bytes of request payload (an invocation of the entry the
 * payload is laid out for) and wait for the completion that ends it: a
 * burst of one. */
int raw_invoke(struct raw_client *c, const void *payload, uint32_t len);

/* Send @n requests of @len payload bytes each (@payloads back to back) at
 * once, whatever the server's `inflight` says, then wait until each one's
 * SEND completed and each one's final response arrived.  0, -EIO (an
 * error completion), or -ETIMEDOUT. */
int raw_invoke_burst(struct raw_client *c, const void *payloads, uint32_t len, unsigned n);

/* Post a SEND (PRISM_OP_SEND or PRISM_OP_SEND_IMM) of @len payload bytes
 * and return its requester completion in @out, without waiting for any
 * response. */
int raw_send(struct raw_client *c, uint8_t opcode, const void *payload, uint32_t len,
             struct prism_cqe *out);

/* One-sided attempts at server memory: post, wait, and return the
 * requester's completion in @out (opcode, syndrome).  READ lands at
 * RAW_DATA_OFF of the client buffer; WRITE sends @len bytes from there. */
int raw_read(struct raw_client *c, uint64_t raddr, uint32_t rkey, uint32_t len,
             struct prism_cqe *out);
int raw_write(struct raw_client *c, uint64_t raddr, uint32_t rkey, const void *src, uint32_t len,
              struct prism_cqe *out);
int raw_cas(struct raw_client *c, uint64_t raddr, uint32_t rkey, uint64_t swap, uint64_t compare,
            struct prism_cqe *out);

#endif /* PRISM_TESTS_RAW_CLIENT_H */
