/* SPDX-License-Identifier: MIT */
/*
 * tests/availability/avail_fx.h - what the availability suites share: a
 * hash-get server on loopback TCP (with its limits and post socket), a
 * well-behaved client ("victim") whose gets are checked against the C
 * reference, and raw clients that speak the setup and transport protocols
 * by hand to misbehave (the attacks).
 *
 * Must not: time anything: progress is asserted by counting gets that
 * complete while an attack is held open.
 */
#ifndef PRISM_TESTS_AVAIL_FX_H
#define PRISM_TESTS_AVAIL_FX_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <prism/prism.h>

#include "net/net.h"
#include "tests/runtime/support/hashget_chain.h"

#define AV_NB         256u
#define AV_TABLE_SIZE (AV_NB * (HG_BUCKET_BYTES + HG_VALUE_BYTES) + 4096u)

struct av_fx {
	struct prism_device *dev, *cdev; /* server's, clients' */
	struct prism_region *table;
	struct prism_server *srv;
	struct hg_table t;
	uint32_t keys[AV_NB];
	char addr[32];
	char post[108]; /* the post socket, when allowed */
	char *yaml;     /* the hash get's chain object */
	size_t yaml_len;
};

struct av_opts {
	unsigned max_conns_per_peer, max_setups_per_peer;
	bool allow_post;
	uint32_t post_uid; /* with allow_post: the one uid allowed (0: the default) */
	bool no_program;   /* serve nothing until something is posted */
};

/*
 * The backend the suites run on: the sim, or mlx5 over the emulator (server
 * on emulated mlx5_0, clients on mlx5_1; the emulated NICs of every process
 * on one fabric in @fabric_dir, so a server in a child process is reached
 * too).  av_run_groups runs @tests once per backend (PRISM_TEST_BACKEND=
 * part of a group name picks one) and returns the failures.
 */
struct av_backend {
	const char *group;
	bool emulated;
};
extern const struct av_backend *av_be;
int av_run_groups(const char *suite, const struct CMUnitTest *tests, size_t n);
/* This process's client device (opens the emulator on mlx5); closed with
 * av_close_client_dev. */
struct prism_device *av_open_client_dev(void);
void av_close_client_dev(struct prism_device *dev);

/* Start a server on any loopback port; the program is added unless no_program. */
void av_open(struct av_fx *f, const struct av_opts *o);
void av_close(struct av_fx *f);
/* A well-behaved TCP client of the server (asserts it connects). */
struct prism_client *av_victim(struct av_fx *f);
/* @n gets through @cl, each checked against the reference (asserts). */
void av_gets(struct av_fx *f, struct prism_client *cl, unsigned n, uint64_t seed);

/*
 * A raw client: the setup exchange by hand (hello asking for the server's
 * program, our QP 0x4242, PSN 0, node 0x77: on mlx5 the GID of an emulated
 * port of node 0x77 that nobody opened; the server's QP never sends to it).  0 and the connected
 * non-blocking @fd with the server's answer in @peer (blob released), or the negative code with the
 * reason in @why (a REJECT: -ECONNREFUSED and its reason).
 */
int av_raw_connect(struct av_fx *f, int *fd, struct net_oob_params *peer, char *why, size_t cap);
/* The same to a server on another port: av_raw_connect_port (avail_flood.h). */
/* A TCP socket connected to the server that has sent nothing (asserts). */
int av_silent_socket(struct av_fx *f);
/* Read a REJECT from @fd (waits while nothing arrives): 0 and its reason, or
 * a negative code when something else came or the peer reset. */
int av_read_reject(int fd, char *reason, size_t cap);
/* Bytes this process has allocated and not freed (glibc's count); false
 * where that count means nothing (ASan builds). */
bool av_heap_bytes(uint64_t *out);

#endif
