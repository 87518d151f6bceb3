/* SPDX-License-Identifier: MIT */
/*
 * net/net_spin.c - the adaptive poll budget of net_spin.h: PRISM_SPIN_US,
 * growing on a catch, halving on a miss, retrying from 0; the process-wide
 * limit on pollers and the count of waiters; the machine's runnable-thread count (the 4th field of
 * /proc/loadavg, looked at most once a millisecond by whichever waiter
 * finds it old).
 *
 * The poll loop (net_spin_poll) is its own too; what one look is, is the
 * waiter's.
 *
 * Must not: sleep.
 */
#include "net/net_spin.h"
#include "util/clock.h"

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define LOOK_EVERY_US 1000u

static unsigned spinners;     /* threads of this process polling now */
static unsigned waiters;      /* threads of this process waiting on a link now */
static unsigned max_spinners; /* half the online CPUs, at least 1 (0: not yet read) */

/* Many waiters of one process (a client's connections, a server's NIC
 * threads) polling at once would take the CPUs their peers need: at most
 * half the CPUs poll, the others sleep at once. */
static unsigned online_cpus(void)
{
	static unsigned cpus;
	unsigned n = __atomic_load_n(&cpus, __ATOMIC_RELAXED);

	if (!n) {
		long v = sysconf(_SC_NPROCESSORS_ONLN);

		n = v > 0 ? (unsigned)v : 1u;
		__atomic_store_n(&cpus, n, __ATOMIC_RELAXED);
	}
	return n;
}

static uint64_t next_look_us; /* when the runnable count is old */
static bool cpus_full;        /* more threads runnable than CPUs, at the last look */

/* The 4th field of /proc/loadavg: "runnable/total" threads of the machine
 * (this one and the pollers included); -1 when unreadable. */
static long runnable_now(void)
{
	char buf[128];
	long running = -1;
	int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	if (sscanf(buf, "%*s %*s %*s %ld/", &running) != 1)
		return -1;
	return running;
}

bool net_spin_cpus_full(void)
{
	uint64_t now = util_now_us();
	uint64_t next = __atomic_load_n(&next_look_us, __ATOMIC_RELAXED);

	if (now >= next && __atomic_compare_exchange_n(&next_look_us, &next, now + LOOK_EVERY_US,
	                                               false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		long r = runnable_now();

		__atomic_store_n(&cpus_full, r > (long)online_cpus(), __ATOMIC_RELAXED);
	}
	return __atomic_load_n(&cpus_full, __ATOMIC_RELAXED);
}

static bool spinner_enter(void)
{
	unsigned max = __atomic_load_n(&max_spinners, __ATOMIC_RELAXED);

	if (!max) {
		unsigned n = online_cpus();

		max = n >= 4 ? n / 2 : 1u;
		__atomic_store_n(&max_spinners, max, __ATOMIC_RELAXED);
	}
	if (__atomic_add_fetch(&spinners, 1, __ATOMIC_RELAXED) <= max)
		return true;
	__atomic_sub_fetch(&spinners, 1, __ATOMIC_RELAXED);
	return false;
}

unsigned net_spin_wait_enter(void)
{
	return __atomic_add_fetch(&waiters, 1, __ATOMIC_RELAXED);
}

void net_spin_wait_leave(void)
{
	__atomic_sub_fetch(&waiters, 1, __ATOMIC_RELAXED);
}

uint32_t net_spin_cap_env(void)
{
	const char *s = getenv("PRISM_SPIN_US");
	char *end;
	unsigned long v;

	if (!s || !*s)
		return NET_SPIN_DEFAULT_US;
	v = strtoul(s, &end, 10);
	if (*end || s[0] == '-')
		return NET_SPIN_DEFAULT_US;
	return v > NET_SPIN_MAX_US ? NET_SPIN_MAX_US : (uint32_t)v;
}

void net_spin_init(struct net_spin *s, uint32_t cap_us)
{
	s->cap_us = cap_us > NET_SPIN_MAX_US ? NET_SPIN_MAX_US : cap_us;
	s->budget_us = s->cap_us;
	s->waits = 0;
	s->busy_ok = false;
}

uint32_t net_spin_begin(struct net_spin *s)
{
	uint32_t us;

	if (!s->cap_us)
		return 0;
	if (!s->busy_ok && net_spin_cpus_full())
		return 0; /* a poll would take a CPU that a runnable thread needs */
	if (s->budget_us)
		us = s->budget_us;
	else if (s->waits + 1 < NET_SPIN_RETRY) {
		s->waits++;
		return 0;
	} else
		us = s->cap_us;
	if (!spinner_enter())
		return 0; /* neither a catch nor a miss */
	if (!s->budget_us)
		s->waits = 0;
	return us;
}

void net_spin_end(struct net_spin *s, uint32_t tried_us, bool caught, uint32_t took_us)
{
	uint32_t want;

	if (!tried_us)
		return;
	__atomic_sub_fetch(&spinners, 1, __ATOMIC_RELAXED);
	if (!caught) {
		s->budget_us /= 2; /* a retry from 0 that missed stays at 0 */
		return;
	}
	want = took_us > s->cap_us / 2 ? s->cap_us : 2 * took_us + 1;
	if (want < tried_us)
		want = tried_us; /* a catch keeps what it had */
	s->budget_us = want > s->cap_us ? s->cap_us : want;
}

int net_spin_poll(struct net_spin *s, uint32_t tried_us, int (*look)(void *ctx), void *ctx)
{
	uint64_t t0 = util_now_us(), now = t0;
	int n;

	do {
		n = look(ctx);
		if (n) {
			net_spin_end(s, tried_us, n > 0, (uint32_t)(now - t0));
			return n;
		}
		net_spin_relax();
		now = util_now_us();
	} while (now - t0 < tried_us);
	net_spin_end(s, tried_us, false, tried_us);
	return 0;
}

void net_spin_relax(void)
{
	for (unsigned i = 0; i < 8; i++) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#elif defined(__aarch64__)
		__asm__ volatile("yield" ::: "memory");
#else
		__asm__ volatile("" ::: "memory");
#endif
	}
	sched_yield();
}
