/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/be_helpers.c - see be_helpers.h.
 */
#include "tests/compiler/be_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <prism/wqe.h>

#include "compiler/frontend.h"

struct chainobj *be_compile(const char *src, const char *entry, enum ir_profile profile,
                            char **diag)
{
	struct frontend_unit u;
	struct chainobj *o = NULL;
	enum frontend_status st = frontend_load_buffer(&u, "t.prism", src, strlen(src), NULL);
	if (st == FRONTEND_OK) {
		struct compile_opts co = {.profile = profile, .entry = entry};
		compile_program(&u.diag, u.prog, &co, &o);
	}
	if (diag) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		if (f) {
			diag_render(&u.diag, f);
			fclose(f);
		}
		*diag = buf;
	}
	frontend_fini(&u);
	return o;
}

int be_queue(const struct chainobj *o, const char *name)
{
	return chainobj_find_queue(o, name);
}

static const char *short_name(uint8_t op)
{
	switch (op) {
	case PRISM_OP_RDMA_READ:
		return "READ";
	case PRISM_OP_RDMA_WRITE:
		return "WRITE";
	case PRISM_OP_RDMA_WRITE_IMM:
		return "WRITE_IMM";
	case PRISM_OP_ATOMIC_CS:
		return "CAS";
	case PRISM_OP_ATOMIC_FA:
		return "FA";
	case PRISM_OP_ATOMIC_MASKED_CS:
		return "MCAS";
	case PRISM_OP_ATOMIC_MASKED_FA:
		return "MFA";
	case PRISM_OP_CQE_WAIT:
		return "WAIT";
	case PRISM_OP_SEND_ENABLE:
		return "EN";
	case PRISM_OP_NOP:
		return "NOP";
	default:
		return prism_opcode_name(op);
	}
}

const char *be_ops(const struct chainobj *o, const char *name)
{
	static char buf[1024];
	buf[0] = 0;
	int q = chainobj_find_queue(o, name);
	if (q < 0)
		return "(no queue)";
	size_t len = 0;
	for (uint32_t i = 0; i < o->queues[q].n_sq; i++) {
		struct prism_ctrl_seg c;
		prism_ctrl_seg_unpack(o->queues[q].sq[i].bytes, &c);
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? " " : "",
		                        short_name(c.opcode));
		if (len >= sizeof(buf))
			break;
	}
	return buf;
}

unsigned be_total_wqes(const struct chainobj *o)
{
	unsigned n = 0;
	for (uint32_t q = 0; q < o->n_queues; q++)
		n += o->queues[q].n_sq;
	return n;
}
