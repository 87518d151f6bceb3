/* SPDX-License-Identifier: MIT */
/*
 * chain_fixture.h - a hand-built chain object shaped like RedN's hash get.
 *
 * Owns: fixture_hashget(), used by the chain-object and dump tests until
 * the compiler back end produces objects.  Must not: hand-pack WQE bytes
 * (everything goes through the codec).
 */
#ifndef PRISM_TESTS_CHAIN_FIXTURE_H
#define PRISM_TESTS_CHAIN_FIXTURE_H

#include "chain/chainobj.h"

/*
 * Queues: conn (client-facing, managed send; RQ with one 2-entry RECV)
 * and worker (managed send).  Per invocation:
 *   conn RQ[0]  RECV  key(3) -> worker.sq[2] compare, addr(8) -> worker.sq[1] raddr
 *   worker[0]   WAIT  conn_cq
 *   worker[1]   READ  bucket: key -> conn.sq[0] ctrl QPN, value addr -> conn.sq[0] sge0.addr
 *   worker[2]   CAS   (fenced) conn.sq[0] ctrl bytes 0-7: NOP -> WRITE_IMM
 *   worker[3]   SEND_EN conn
 *   conn[0]     NOP standing in for WRITE_IMM of the value to the client
 * Returns a valid object (asserts inside on codec failure).
 */
struct chainobj *fixture_hashget(void);

#endif /* PRISM_TESTS_CHAIN_FIXTURE_H */
