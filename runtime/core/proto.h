/* SPDX-License-Identifier: MIT */
/*
 * core/proto.h - what a client and a server tell each other when a
 * connection is set up (carried in-process or in the transport's OOB blob).
 *
 * Owns: struct core_hello (client -> server) and struct core_welcome
 * (server -> client: the program's entry points, parameter layout and the
 * client-visible facts about its regions), and their byte encodings
 * (explicit little-endian, bounded, versioned).
 * Must not: carry any key or address of server queue memory
 * (docs/contracts.md contract 5): the client learns region base addresses (so that address
 * parameters are offsets it can range-check), never keys.
 */
#ifndef CORE_PROTO_H
#define CORE_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include <prism/prism.h>

#include "chain/chainobj.h"

#define CORE_PROTO_VERSION 1u
#define CORE_PROTO_NAME    64u

enum core_hello_kind {
	CORE_HELLO_CONNECT = 1, /* instantiate a program for this client */
	CORE_HELLO_POST = 2,    /* install a .chain object (prismc post) */
	CORE_HELLO_REMOVE = 3,  /* withdraw program .program (prismc remove) */
	CORE_HELLO_LIST = 4,    /* describe the installed programs (prismc show) */
};

struct core_hello {
	uint32_t kind;                 /* enum core_hello_kind */
	char program[CORE_PROTO_NAME]; /* "" = the server's only program */
	uint32_t node, qpn;            /* the client's QP */
	uint64_t resp_addr;
	uint32_t resp_rkey;
	uint32_t resp_slots;
	uint32_t resp_stride; /* bytes per response slot */
	/* Not encoded: the client's RC address from the setup exchange (net_oob). */
	uint16_t lid;
	uint8_t mtu;
	uint8_t gid[16];
};

struct core_param_desc {
	char name[CORE_PROTO_NAME];
	uint32_t type; /* enum chainobj_ptype */
	uint32_t width, order, msg_offset, copies;
	uint64_t region_base, region_size; /* CHAINOBJ_PT_ADDR */
};

struct core_result_desc {
	char name[CORE_PROTO_NAME];
	uint32_t width, order, offset;
};

struct core_entry_desc {
	char name[CORE_PROTO_NAME];
	uint32_t msg_size;
	uint32_t n_params, n_results;
	struct core_param_desc params[CHAINOBJ_MAX_PARAMS];
	struct core_result_desc results[CHAINOBJ_MAX_PARAMS];
};

struct core_welcome {
	int32_t status; /* 0 or a negative code */
	uint32_t node, qpn;
	uint32_t depth; /* response slots in use: invocation k answers in slot k % depth */
	uint32_t response_size;
	uint32_t inflight;  /* invocations the client may have outstanding (<= depth) */
	uint32_t final_imm; /* the immediate of the completion that ends an invocation */
	char program[CORE_PROTO_NAME];
	uint32_t n_entries;
	struct core_entry_desc *entries; /* malloc'd */
};

/* Encoders return the bytes needed (write nothing when @cap is too small). */
size_t core_hello_encode(const struct core_hello *h, uint8_t *buf, size_t cap);
int core_hello_decode(const uint8_t *buf, size_t len, struct core_hello *h);
size_t core_welcome_encode(const struct core_welcome *w, uint8_t *buf, size_t cap);
int core_welcome_decode(const uint8_t *buf, size_t len, struct core_welcome *w);
void core_welcome_free(struct core_welcome *w);

/*
 * The answer to CORE_HELLO_LIST: @n installed programs.  The decoder
 * fills at most @cap entries of @out (each @stride bytes, at most
 * sizeof(struct prism_installed) of it written), sets *@total to the
 * count the server sent, and returns 0 or -PRISM_E_PROTO.
 */
size_t core_list_encode(const struct prism_installed *l, unsigned n, uint8_t *buf, size_t cap);
int core_list_decode(const uint8_t *buf, size_t len, void *out, size_t cap, size_t stride,
                     unsigned *total);

#endif /* CORE_PROTO_H */
