/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/be_sim.c - compiled snippets on the software NIC (be_sim.h).
 *
 * Must not: look inside the object or the NIC: the test sees what a client
 * and the server application see (results, region bytes).
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/compiler/be_helpers.h"
#include "tests/compiler/be_sim.h"

struct be_sim {
	struct prism_device *dev;
	struct prism_program *prog;
	struct prism_server *srv;
	struct prism_client *cl;
	const char *entry;
};

void be_sim_close(struct be_sim *s)
{
	if (!s)
		return;
	prism_client__close(s->cl);
	prism_server__destroy(s->srv);
	prism_program__close(s->prog);
	prism_device__close(s->dev);
	free(s);
}

struct be_sim *be_sim_open(const char *src, const char *entry, enum ir_profile profile)
{
	return be_sim_open_traced(src, entry, profile, NULL);
}

struct be_sim *be_sim_open_traced(const char *src, const char *entry, enum ir_profile profile,
                                  const char *trace_path)
{
	char *diag = NULL;
	struct chainobj *o = be_compile(src, entry, profile, &diag);
	if (!o) {
		fprintf(stderr, "be_sim: does not compile:\n%s", diag ? diag : "");
		free(diag);
		return NULL;
	}
	free(diag);
	char *yaml = NULL;
	size_t len = 0;
	struct diag_report cd;
	int rc = chainobj_write_mem(o, 0, &yaml, &len, &cd);
	chainobj_free(o);
	struct be_sim *s = calloc(1, sizeof(*s));
	if (rc || !s) {
		fprintf(stderr, "be_sim: cannot write the object: %s\n", rc ? cd.msg : "no memory");
		free(yaml);
		free(s);
		return NULL;
	}
	s->prog = prism_program__open_mem(yaml, len, NULL);
	free(yaml);
	/* the firmware checks of the profile compiled for, and a WQE rewritten
	 * after the NIC fetched it is an error, not a warning */
	PRISM_OPTS(prism_device_opts, dopts,
	           .firmware = profile == IR_PROFILE_STRICT ? "strict" : "relaxed",
	           .hazard_fail = true, .trace_path = trace_path);
	s->dev = s->prog ? prism_device__open("sim", &dopts) : NULL;
	if (!s->dev)
		goto fail;
	for (int i = 0; i < prism_program__region_count(s->prog); i++) {
		struct prism_region_info ri;
		prism_program__region(s->prog, i, &ri);
		PRISM_OPTS(prism_region_opts, ro, .access = ri.access);
		if (!prism_device__create_region(s->dev, ri.name, ri.size, &ro))
			goto fail;
	}
	if (prism_program__load(s->prog, s->dev))
		goto fail;
	PRISM_OPTS(prism_server_opts, so, .rearm = PRISM_REARM_AUTO);
	s->srv = prism_server__create(s->dev, &so);
	if (!s->srv || prism_server__add_program(s->srv, s->prog))
		goto fail;
	s->cl = prism_client__connect_local(s->srv, NULL);
	if (!s->cl)
		goto fail;
	s->entry = prism_program__entry_name(s->prog, 0);
	return s;
fail:
	fprintf(stderr, "be_sim: the object does not load or connect\n");
	be_sim_close(s);
	return NULL;
}

uint8_t *be_sim_region(struct be_sim *s, const char *name)
{
	struct prism_region *r = prism_device__find_region(s->dev, name);
	return r ? prism_region__addr(r) : NULL;
}

int be_sim_call(struct be_sim *s, const struct prism_arg *args, size_t nargs, void *result,
                size_t cap, uint32_t *ret_site)
{
	struct prism_call c = {.sz = sizeof(c),
	                       .entry = s->entry,
	                       .args = args,
	                       .nargs = nargs,
	                       .result = result,
	                       .result_cap = cap};
	int rc = prism_client__invoke(s->cl, &c, NULL);
	if (ret_site)
		*ret_site = c.ret_site;
	return rc;
}

int be_sim_result_field(struct be_sim *s, uint32_t *offset, uint32_t *size)
{
	int e = s->entry ? prism_client__find_entry(s->cl, s->entry) : 0;
	struct prism_result_info ri;
	if (e < 0 || prism_client__result_count(s->cl, e) < 1 ||
	    prism_client__result(s->cl, e, 0, &ri) != 0)
		return -1;
	*offset = ri.offset;
	*size = ri.size;
	return 0;
}
