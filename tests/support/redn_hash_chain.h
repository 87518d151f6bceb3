/* SPDX-License-Identifier: MIT */
/*
 * tests/support/redn_hash_chain.h - RedN's hand-written hash-lookup chain
 * (NSDI'22 section 5.2.1, Fig. 9; redn-io/RedN bench/micro/hash_bench.c),
 * built WQE by WQE with the codec and run on the sim.  Used by the scenario
 * test and the benchmark.
 *
 * Per request (unrolled form: the host re-posts the chain each time):
 *
 *   client  SEND {key[3] (byte-reversed), bucket address (be64)} ------------.
 *                                                                             v
 *   srv RQ  RECV scatter: key -> CAS compare (QPN bytes), address -> READ raddr
 *   ctl     1 WAIT(srv recv CQ) -> 2 SEND_EN(wrk) ......... 5 WAIT(wrk CQ) -> 6 SEND_EN(srv)
 *   wrk                 3 READ bucket {key[3], value_addr be64}    |
 *                         scatter: key  -> R.ctrl QPN bytes        |
 *                                  addr -> R.data addr             |
 *                       4 CAS (fenced) R.ctrl[0..7]:               |
 *                         NOP+key+ds -> WRITE_IMM+qpn+ds ----------'
 *   srv SQ  R: NOP (miss) or WRITE_IMM value -> client (hit), imm = request id
 *
 * Owns: the queues, memory regions and table of one lookup service, and the
 * per-request posting.  Must not: run the engine (the caller does, so it can
 * choose deterministic, threaded or fabric runs).
 */
#ifndef PRISM_TESTS_REDN_HASH_CHAIN_H
#define PRISM_TESTS_REDN_HASH_CHAIN_H

#include <stdbool.h>
#include <stdint.h>

#include <prism/wqe.h>

#include "sim/sim.h"

#define REDN_KEY_BYTES    3
#define REDN_BUCKET_BYTES 16 /* {u8 key[3]; be64 value_addr} padded */

struct redn_hash_cfg {
	uint32_t nbuckets;
	uint32_t value_len;    /* bytes per value, returned by the WRITE_IMM */
	uint32_t max_inflight; /* requests posted between two runs to idle */
	uint64_t seed;         /* table keys and values */
	bool defer_doorbells;  /* post_get leaves ringing to redn_hash_ring() (the
	                        * gets between two rings are one post list per
	                        * queue, as one ibv_post_send of a list) */
	/* Once the rings are full, gets patch the WQEs left one lap ago in
	 * place; these two change that: */
	bool encode_every_wqe; /* encode every WQE through the codec instead */
	bool check_patches;    /* patch, then encode over it and compare every
	                          queue byte (post_get fails with -EPROTO) */
};

struct redn_hash;

/* Build the service on @server and the client on @client (may be the same
 * device; otherwise both must be attached to one fabric). */
int redn_hash_create(struct sim_dev *server, struct sim_dev *client,
                     const struct redn_hash_cfg *cfg, struct redn_hash **out);
void redn_hash_destroy(struct redn_hash *h);

/* The table: bucket @i's key and value. */
const uint8_t *redn_hash_key(const struct redn_hash *h, uint32_t i);
const uint8_t *redn_hash_value(const struct redn_hash *h, uint32_t i);

/*
 * Post one get of @key in bucket @bucket: server chain, server receive,
 * client receive, client SEND (rung).  *@req_id identifies the reply.
 * -EAGAIN when max_inflight requests are posted and not yet drained.
 */
int redn_hash_post_get(struct redn_hash *h, const uint8_t key[REDN_KEY_BYTES], uint32_t bucket,
                       uint32_t *req_id);

struct redn_hash_reply {
	uint32_t req_id;
	const uint8_t *value; /* the client's copy (value_len bytes) */
};
/* Publish the queues' doorbell records and ring the server's control queue
 * and the client (defer_doorbells). */
int redn_hash_ring(struct redn_hash *h);

/* After a run: next value the client received (1), none (0), or < 0 (a
 * CQE other than a reply's, consumed). */
int redn_hash_poll_reply(struct redn_hash *h, struct redn_hash_reply *r);
/* After a run: an error CQE on the server's queues (1), none (0). */
int redn_hash_poll_server_error(struct redn_hash *h, struct prism_cqe *cqe);
/* The caller ran the devices to idle: all posted requests are done. */
void redn_hash_drained(struct redn_hash *h);

/* WQEs the server executes per request (for rates in WQEs/s). */
#define REDN_HASH_SERVER_WQES 7 /* 4 ctl + READ + CAS + R */

#endif /* PRISM_TESTS_REDN_HASH_CHAIN_H */
