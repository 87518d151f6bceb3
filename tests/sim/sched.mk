# tests/sim: the scheduler's bookkeeping (parking and waking queues, order
# unchanged by idle queues, request copies for RNR resends).
TESTS += sim_sched
sim_sched_SRCS := tests/sim/test_sched.c tests/sim/sim_harness.c

# tests/sim: fetch and hazard check of WQEs inside the ring, wrapping it and
# one-BB; attribution of engine writes to the send queue they land in.
TESTS += sim_fetch
sim_fetch_SRCS := tests/sim/test_fetch.c tests/sim/sim_harness.c

# tests/sim: after every step of RedN gets and verb mixes, every queue asked
# afresh agrees with the scheduler's cached readiness (no missing wake).
TESTS += sim_sched_check
sim_sched_check_SRCS := tests/sim/test_sched_check.c tests/sim/sim_harness.c \
	tests/support/redn_hash_chain.c tests/support/host_verbs.c

# tests/sim: the packet queue (inbox, deliveries, refused packets) pops in
# (time, push order) order, as a sort would, across slides and growth.
TESTS += sim_pktq
sim_pktq_SRCS := tests/sim/test_pktq.c

# tests/sim: sim_mem_read copies exact bytes at every alignment, and never
# returns a torn aligned word while another thread stores whole words.
TESTS += sim_memread
sim_memread_SRCS := tests/sim/test_memread.c

# tests/sim: a coalesced ACK completes every SEND / WRITE up to its PSN in
# order (across the PSN wrap); READs wait for their responses; stale ACKs
# and ACKs for PSNs never sent change nothing.
TESTS += sim_ack
sim_ack_SRCS := tests/sim/test_ack.c tests/sim/sim_harness.c

# tests/sim: every entry of a scatter/gather list (READ, WRITE, receive) is
# held to its bounds, PD and rights, also where entries share a key.
TESTS += sim_sgl
sim_sgl_SRCS := tests/sim/test_sgl.c tests/sim/sim_harness.c

# tests/sim: completion channels: an armed CQ's CQE, written by the NIC
# thread, makes the channel's fd readable (and nothing before it); no
# wake-up is lost between poll, arm and sleep.
TESTS += sim_channel
sim_channel_SRCS := tests/sim/test_channel.c tests/sim/sim_harness.c

# tests/sim: a QP's key memos never outlive their MR: a deregistered key,
# or the same key registered again over another range, PD or rights,
# grants nothing it no longer names; a key granted for one use grants no
# other.
TESTS += sim_mrkeys
sim_mrkeys_SRCS := tests/sim/test_mrkeys.c tests/sim/sim_harness.c
