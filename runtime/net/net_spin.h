/* SPDX-License-Identifier: MIT */
/*
 * net/net_spin.h - the adaptive, bounded busy-poll a link waiter (a ring's
 * or a TCP socket's) tries before it sleeps.
 *
 * A closed-loop peer answers a few microseconds after it was asked; sleeping
 * on an eventfd for that costs a wake-up on each side (tens of microseconds
 * on an idle virtual CPU).  A waiter polls first, for at most its budget:
 * a poll that caught the event keeps the budget (grown to twice the time it
 * took, up to the cap); a poll that missed halves it, down to 0; a budget
 * of 0 polls again (with the cap) only every NET_SPIN_RETRY-th wait, so a
 * loaded machine, where polls miss, loses almost nothing.  At most half the
 * online CPUs (at least one) of a process poll at once; a waiter beyond
 * that sleeps at once, its budget untouched; and nobody polls while the
 * machine has more runnable threads than CPUs (net_spin_cpus_full), where a
 * poll would only take a CPU from a thread that has work.  The cap is
 * PRISM_SPIN_US (microseconds, read once; 0 turns polling off), default
 * NET_SPIN_DEFAULT_US.  Each waiter owns its struct net_spin (no locking).
 *
 * Must not: sleep, or poll longer than the budget it returned.
 */
#ifndef PRISM_NET_SPIN_H
#define PRISM_NET_SPIN_H

#include <stdbool.h>
#include <stdint.h>

#define NET_SPIN_DEFAULT_US 50u
#define NET_SPIN_MAX_US     1000u /* PRISM_SPIN_US above this is clamped */
#define NET_SPIN_RETRY      64u   /* a budget of 0 polls every this many waits */

struct net_spin {
	uint32_t cap_us;    /* 0: never poll */
	uint32_t budget_us; /* what the next wait polls for */
	uint32_t waits;     /* waits at a budget of 0, for the retry */
	bool busy_ok;       /* poll even while every CPU is busy (tests) */
};

/* PRISM_SPIN_US (clamped to NET_SPIN_MAX_US), or the default when unset or
 * not a number. */
uint32_t net_spin_cap_env(void);
/* A fresh state with @cap_us (the budget starts at the cap; busy_ok off). */
void net_spin_init(struct net_spin *s, uint32_t cap_us);
/* The microseconds to poll before this wait (0: sleep at once).  A non-zero
 * answer must be followed by net_spin_end. */
uint32_t net_spin_begin(struct net_spin *s);
/* After a poll of @tried_us (net_spin_begin's answer, not 0): @caught says
 * whether the event came, @took_us after how long. */
void net_spin_end(struct net_spin *s, uint32_t tried_us, bool caught, uint32_t took_us);
/* The poll itself, for @tried_us (net_spin_begin's answer, not 0, or less):
 * call @look(@ctx) until it answers nonzero or the time is up, with
 * net_spin_relax between two looks, then net_spin_end.  @look answers > 0
 * for a catch, < 0 to stop without one, 0 to go on.  Returns its last
 * answer (0: the time ran out). */
int net_spin_poll(struct net_spin *s, uint32_t tried_us, int (*look)(void *ctx), void *ctx);
/* True when, at the last look (at most a millisecond old), the machine had
 * more runnable threads than online CPUs. */
bool net_spin_cpus_full(void);
/* A waiter of this process (a ring's or a polled socket's owner) starts
 * waiting: returns how many wait now, itself included.  A waiter polls
 * only when it waits alone: with several connections waiting at once,
 * their answers keep the CPUs busy and a poll would take one from them.
 * Each enter is followed by one net_spin_wait_leave. */
unsigned net_spin_wait_enter(void);
void net_spin_wait_leave(void);
/* Between two looks: a few pause instructions, then the CPU to any other
 * runnable thread (sched_yield), so that a poll never delays a runnable
 * thread of its CPU, its peer included, by more than about a microsecond. */
void net_spin_relax(void);

#endif /* PRISM_NET_SPIN_H */
