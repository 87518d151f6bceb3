/* SPDX-License-Identifier: MIT */
/*
 * test_core_basics.c - error codes, prism_strerror, the log callback, the
 * hold of an error its caller reports itself (core_log_hold) and
 * size-prefixed options (runtime core, no device needed).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <prism/prism.h>

#include "core/log.h"
#include "core/opts.h"

static void test_strerror_prism_codes(void **state)
{
	(void)state;
	assert_string_equal(prism_strerror(-PRISM_E_VERIFY),
	                    "program failed load-time verification");
	assert_string_equal(prism_strerror(PRISM_E_VERIFY), prism_strerror(-PRISM_E_VERIFY));
	assert_string_equal(prism_strerror(-PRISM_E_NET_PEER_GONE), "peer closed the connection");
	assert_string_equal(prism_strerror(0), "success");
	assert_non_null(strstr(prism_strerror(-4098), "unknown prism error 4098"));
}

static void test_strerror_errno(void **state)
{
	(void)state;
	assert_string_equal(prism_strerror(-ENOMEM), strerror(ENOMEM));
	assert_string_equal(prism_strerror(EINVAL), strerror(EINVAL));
}

/* Every code sits in the documented range and is unique. */
static void test_error_table_range(void **state)
{
	static const int codes[] = {
#define X(name, value, msg) value,
	    PRISM_ERRORS(X)
#undef X
	};
	(void)state;
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		assert_in_range(codes[i], PRISM_ERRNO_BASE, PRISM_ERRNO_LAST);
		for (size_t j = 0; j < i; j++)
			assert_int_not_equal(codes[i], codes[j]);
		assert_null(strstr(prism_strerror(-codes[i]), "unknown prism error"));
	}
}

struct captured {
	int calls;
	enum prism_log_level level;
	char msg[600];
};

static void capture(enum prism_log_level level, const char *msg, void *ctx)
{
	struct captured *c = ctx;

	c->calls++;
	c->level = level;
	snprintf(c->msg, sizeof(c->msg), "%s", msg);
}

static void test_log_callback_and_level(void **state)
{
	struct captured c = {0};
	prism_log_fn old;

	(void)state;
	old = prism_set_log_fn(capture, &c, PRISM_LOG_WARN);
	core_err("conn %d: program '%s': WQE %d: remote access error", 3, "get", 7);
	assert_int_equal(c.calls, 1);
	assert_int_equal(c.level, PRISM_LOG_ERROR);
	assert_string_equal(c.msg, "conn 3: program 'get': WQE 7: remote access error");
	core_dbg("not shown %d", 1);
	assert_int_equal(c.calls, 1);
	prism_set_log_fn(capture, &c, PRISM_LOG_DEBUG);
	core_dbg("shown %d", 2);
	assert_int_equal(c.calls, 2);
	assert_int_equal(c.level, PRISM_LOG_DEBUG);
	/* A message longer than the buffer is truncated, not overflowed. */
	char big[2000];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	core_warn("%s", big);
	assert_int_equal(c.calls, 3);
	assert_true(strlen(c.msg) < 512);
	assert_ptr_equal(prism_set_log_fn(NULL, NULL, PRISM_LOG_DEBUG), capture);
	core_err("dropped");
	assert_int_equal(c.calls, 3);
	prism_set_log_fn(old, NULL, PRISM_LOG_WARN);
}

/* A held error is kept for the caller and not logged; a second error, and
 * every warning, still are; holds nest; another thread's errors are not
 * held. */
static void *log_error_elsewhere(void *arg)
{
	(void)arg;
	core_err("from another thread");
	return NULL;
}

static void test_log_hold(void **state)
{
	struct core_log_held outer, inner;
	struct captured c = {0};
	prism_log_fn old;
	pthread_t th;

	(void)state;
	old = prism_set_log_fn(capture, &c, PRISM_LOG_WARN);
	core_log_hold(&outer);
	assert_string_equal(outer.msg, "");
	core_warn("a warning %d", 1);
	assert_int_equal(c.calls, 1);
	core_err("program '%s': rejected", "get");
	assert_int_equal(c.calls, 1);
	assert_string_equal(outer.msg, "program 'get': rejected");
	core_err("a second error");
	assert_int_equal(c.calls, 2);
	assert_string_equal(c.msg, "a second error");
	assert_int_equal(pthread_create(&th, NULL, log_error_elsewhere, NULL), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(c.calls, 3);
	assert_string_equal(c.msg, "from another thread");
	core_log_hold(&inner);
	core_err("inner");
	core_log_release(&inner);
	assert_string_equal(inner.msg, "inner");
	assert_string_equal(outer.msg, "program 'get': rejected");
	assert_int_equal(c.calls, 3);
	core_log_release(&outer);
	core_err("not held");
	assert_int_equal(c.calls, 4);
	assert_string_equal(outer.msg, "program 'get': rejected");
	/* held whatever the threshold: the caller reports it */
	prism_set_log_fn(NULL, NULL, PRISM_LOG_ERROR);
	core_log_hold(&outer);
	core_err("no callback %d", 5);
	core_log_release(&outer);
	assert_string_equal(outer.msg, "no callback 5");
	prism_set_log_fn(old, NULL, PRISM_LOG_WARN);
}

struct opts_v1 {
	size_t sz;
	int a;
	size_t : 0;
};

struct opts_v2 {
	size_t sz;
	int a;
	int b;
	size_t : 0;
};

static void test_opts_forward_backward(void **state)
{
	(void)state;
	assert_int_equal(core_opts_check(NULL, sizeof(struct opts_v1)), 0);
	/* An older (smaller) caller struct is accepted; its missing fields default. */
	union {
		struct opts_v1 v1;
		struct opts_v2 v2;
	} mem;
	memset(&mem, 0xff, sizeof(mem)); /* garbage past the old struct must be ignored */
	mem.v1 = (struct opts_v1){.sz = sizeof(struct opts_v1), .a = 5};
	struct opts_v2 *as_new = &mem.v2;
	assert_int_equal(core_opts_check(&mem.v1, sizeof(struct opts_v2)), 0);
	assert_int_equal(CORE_OPT(as_new, a, 9), 5);
	assert_int_equal(CORE_OPT(as_new, b, 9), 9);
	/* A newer caller struct whose unknown tail is zero is accepted... */
	PRISM_OPTS(opts_v2, nw, .a = 1);
	assert_int_equal(core_opts_check(&nw, offsetof(struct opts_v1, a) + sizeof(int)), 0);
	/* ...but a nonzero unknown field is rejected. */
	nw.b = 1;
	assert_int_equal(core_opts_check(&nw, offsetof(struct opts_v1, a) + sizeof(int)),
	                 -PRISM_E_OPTS);
	/* sz smaller than the sz field itself is nonsense. */
	nw.sz = 2;
	assert_int_equal(core_opts_check(&nw, sizeof(struct opts_v2)), -PRISM_E_OPTS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_strerror_prism_codes),
	    cmocka_unit_test(test_strerror_errno),
	    cmocka_unit_test(test_error_table_range),
	    cmocka_unit_test(test_log_callback_and_level),
	    cmocka_unit_test(test_log_hold),
	    cmocka_unit_test(test_opts_forward_backward),
	};

	return cmocka_run_group_tests_name("runtime_core_basics", tests, NULL, NULL);
}
