/* SPDX-License-Identifier: MIT */
/*
 * tests/runtime/support/child_proc.h - helper processes (servers, prismd,
 * applications, victims) that a test forks and that must never outlive it,
 * whatever way the test ends.
 *
 * A child made here leads its own process group (so what it spawns, e.g. a
 * prismc run through system(), goes with it), dies with SIGKILL when the test
 * process dies (checked after the request, so a parent that died before the
 * child asked is seen too), and has the default action for the crash signals
 * (a crash kills it instead of jumping back into the test runner's state it
 * inherited).  The parent keeps every child in a table: child_reap_all() in a
 * test's teardown (cmocka runs it after a failed assertion too) and at exit
 * kills and reaps what is left.
 *
 * Must not: be used from more than one thread of the test process.
 */
#ifndef PRISM_TESTS_CHILD_PROC_H
#define PRISM_TESTS_CHILD_PROC_H

#include <sys/types.h>

/* fork(): 0 in the child (already set up as above), the pid in the parent,
 * -1 when fork failed. */
pid_t child_fork(void);
/* Kill @pid's group with SIGKILL, reap @pid, forget it.  Returns its wait
 * status, or -1 when @pid is not a child made here. */
int child_kill(pid_t pid);
/* Reap @pid (it is expected to exit by itself, e.g. after SIGTERM) and forget
 * it; its group is killed after it exited.  Returns its wait status, or -1. */
int child_wait(pid_t pid);
/* Kill and reap every child still known; for teardowns.  Returns how many. */
int child_reap_all(void);
/* A cmocka setup/teardown-shaped wrapper of child_reap_all(). */
int child_teardown(void **state);

#endif
