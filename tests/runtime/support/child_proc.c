/* SPDX-License-Identifier: MIT */
/*
 * tests/runtime/support/child_proc.c - forked helper processes that die with
 * the test (see child_proc.h).
 *
 * Owns: the table of live children of this test process.
 * Must not: touch processes it did not fork.
 */
#include "tests/runtime/support/child_proc.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_CHILDREN 16

static pid_t children[MAX_CHILDREN];
static bool at_exit_set;

static int slot_of(pid_t pid)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (pid > 0 && children[i] == pid)
			return i;
	return -1;
}

static void reap_at_exit(void)
{
	child_reap_all();
}

static void become_child(pid_t parent)
{
	static const int crash[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

	for (size_t i = 0; i < sizeof(crash) / sizeof(crash[0]); i++)
		signal(crash[i], SIG_DFL);
	/* The table is the parent's: a child's own children are its business. */
	for (int i = 0; i < MAX_CHILDREN; i++)
		children[i] = 0;
	setpgid(0, 0);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(126); /* the test is already gone */
}

pid_t child_fork(void)
{
	pid_t parent = getpid(), pid;
	int slot = -1;

	for (int i = 0; i < MAX_CHILDREN && slot < 0; i++)
		if (!children[i])
			slot = i;
	if (slot < 0)
		return -1;
	if (!at_exit_set) {
		atexit(reap_at_exit);
		at_exit_set = true;
	}
	pid = fork();
	if (pid == 0) {
		become_child(parent);
		return 0;
	}
	if (pid > 0) {
		/* Both sides set the group: whichever runs first, a kill of the
		 * group right after fork reaches the child. */
		setpgid(pid, pid);
		children[slot] = pid;
	}
	return pid;
}

/* Wait for @pid to exit, kill what it left in its group (the zombie keeps
 * the group's id from being reused), then reap it. */
static int reap(pid_t pid)
{
	siginfo_t si;
	int st = -1;

	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
		;
	kill(-pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

int child_kill(pid_t pid)
{
	int i = slot_of(pid);

	if (i < 0)
		return -1;
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	children[i] = 0;
	return reap(pid);
}

int child_wait(pid_t pid)
{
	int i = slot_of(pid);

	if (i < 0)
		return -1;
	children[i] = 0;
	return reap(pid);
}

int child_reap_all(void)
{
	int n = 0;

	for (int i = 0; i < MAX_CHILDREN; i++)
		if (children[i] && child_kill(children[i]) != -1)
			n++;
	return n;
}

int child_teardown(void **state)
{
	(void)state;
	child_reap_all();
	return 0;
}
