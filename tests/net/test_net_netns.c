/* SPDX-License-Identifier: MIT */
/*
 * tests/net/test_net_netns.c - runs tests/net/netns.sh (two network
 * namespaces joined by a veth pair, a sim NIC in each) as part of the cmocka
 * suites, with prism-net-peer from this build.  Where namespaces cannot be
 * created (no root / no CAP_NET_ADMIN) the script says why and the test is
 * skipped, never failed.
 *
 * Must not: create namespaces itself (the script owns setup and cleanup).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_two_hosts_over_veth(void **state)
{
	char exe[PATH_MAX], cmd[2 * PATH_MAX + 64], line[512], skip_reason[512] = "";
	ssize_t n;
	FILE *f;
	int status;

	(void)state;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	/* <build>/tests/net_netns -> <build>/prism-net-peer */
	snprintf(cmd, sizeof(cmd), "tests/net/netns.sh %s/prism-net-peer 2>&1",
	         dirname(dirname(exe)));
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		fputs(line, stdout);
		if (!strncmp(line, "SKIP: ", 6))
			snprintf(skip_reason, sizeof(skip_reason), "%s", line);
	}
	status = pclose(f);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77) {
		printf("net_netns: skipped: %s",
		       skip_reason[0] ? skip_reason + 6 : "(no reason)\n");
		skip();
	}
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_two_hosts_over_veth),
	};

	return cmocka_run_group_tests_name("net_netns", tests, NULL, NULL);
}
