/* SPDX-License-Identifier: MIT */
/*
 * net/net_simpkt.h - translate between the sim's wire packets and IB framing.
 *
 * Owns: the mapping of struct sim_pkt (the software NIC's message-level
 * packet, sim/sim.h) to and from struct net_pkt (IBTA RC headers,
 * net_frame.h): packet kinds to opcodes, CQE error syndromes to AETH NAK
 * codes, host-order 8-byte atomic operands to big-endian wire fields.
 *
 * Must not: touch sockets or devices; allocate.  Pure functions, so the
 * fuzz target and unit tests can drive them directly.
 */
#ifndef PRISM_NET_SIMPKT_H
#define PRISM_NET_SIMPKT_H

#include <stdint.h>

#include "net/net_diag.h"
#include "net/net_frame.h"
#include "sim/sim.h"

/* Scratch a translation may point payloads into: masked operands (4 x 32). */
#define NET_SIMPKT_SCRATCH 128u

/*
 * sim -> wire.  @np->payload may point into @sp's payload or @scratch.
 * Returns 0 or -EINVAL (a packet the wire cannot express, in @diag).
 */
int net_simpkt_to_wire(const struct sim_pkt *sp, struct net_pkt *np,
                       uint8_t scratch[NET_SIMPKT_SCRATCH], struct diag_report *diag);

/* Addressing a received packet gets: the link's two ends. */
struct net_simpkt_addr {
	uint32_t local_node, local_qpn;
	uint32_t peer_node, peer_qpn;
};

/*
 * wire -> sim.  @sp->payload may point into @np's payload or @scratch.
 * Returns 0 or -EPROTO (an opcode or syndrome that has no meaning on a
 * link between sim NICs, or a packet for another QP), with @diag.
 */
int net_simpkt_from_wire(const struct net_pkt *np, const struct net_simpkt_addr *addr,
                         struct sim_pkt *sp, uint8_t scratch[NET_SIMPKT_SCRATCH],
                         struct diag_report *diag);

#endif /* PRISM_NET_SIMPKT_H */
