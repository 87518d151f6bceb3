/* SPDX-License-Identifier: MIT */
/*
 * tests/difftest/dt_run.c - one program on both engines, compared
 * (dt_run.h).
 *
 * The NIC side is the product end to end: compile, write and reload the
 * object, the loader's verifier, the sim device with the firmware checks of
 * the profile (and a WQE rewritten after its fetch as an error), a local
 * server and client.  The reference side gets copies of the same images at
 * the same addresses, so pointers stored in them mean the same thing.
 *
 * Must not: look inside the object or the NIC; compare anything the
 * language does not define (a faulted invocation's partial effects).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <prism/prism.h>

#include "compiler/compile.h"
#include "compiler/frontend.h"
#include "compiler/interp.h"
#include "compiler/run_image.h"
#include "tests/difftest/dt_run.h"

#define DT_MAX_REGIONS 8

const char *dt_profile_name(enum ir_profile prof)
{
	return prof == IR_PROFILE_STRICT ? "strict" : "relaxed";
}

/* The first error of @d, with numbers and quoted names folded so that one
 * reason counts once ("... more than N receive scatter entries"). */
static void first_error(const struct diag_ctx *d, char *out, size_t len, bool fold)
{
	size_t n = 0;

	out[0] = 0;
	for (size_t i = 0; i < d->count; i++) {
		const char *m = d->items[i].message;

		if (d->items[i].severity != DIAG_ERROR)
			continue;
		for (; *m && n + 2 < len; m++) {
			if (fold && isdigit((unsigned char)*m)) {
				while (isdigit((unsigned char)m[1]))
					m++;
				out[n++] = 'N';
			} else if (fold && *m == '\'') {
				const char *end = strchr(m + 1, '\'');

				if (end) {
					out[n++] = 'X';
					m = end;
				}
			} else {
				out[n++] = *m;
			}
		}
		out[n] = 0;
		return;
	}
}

struct nic {
	struct prism_device *dev;
	struct prism_program *prog;
	struct prism_server *srv;
	struct prism_client *cl;
};

static void nic_close(struct nic *n)
{
	prism_client__close(n->cl);
	prism_server__destroy(n->srv);
	prism_program__close(n->prog);
	prism_device__close(n->dev);
}

static enum dt_outcome fail(struct dt_report *rep, enum dt_outcome o, const char *kind,
                            const char *what)
{
	rep->outcome = o;
	snprintf(rep->kind, sizeof(rep->kind), "%s", kind);
	if (what)
		snprintf(rep->what, sizeof(rep->what), "%s", what);
	return o;
}

static enum dt_outcome compare(const struct dt_input *in, const struct ast_offload *off,
                               const struct ast_program *ast, struct nic *n, struct interp_env *env,
                               struct interp_env *ref, struct dt_report *rep)
{
	struct interp_result res;
	uint8_t *payload = calloc(1, off->args_size ? off->args_size : 1);
	struct prism_arg args[32];
	char err[256];

	if (!payload || in->nargs > 32) {
		free(payload);
		return fail(rep, DT_ERROR, "harness", "out of memory");
	}
	for (size_t i = 0; i < in->nargs; i++)
		args[i] = (struct prism_arg){.name = in->args[i].name, .u64 = in->args[i].value};
	for (const struct ast_param *p = off->params; p; p = p->next) {
		size_t i = 0;

		while (i < in->nargs && strcmp(in->args[i].name, p->name))
			i++;
		if (i == in->nargs || interp_pack_arg(p, in->args[i].value, NULL, 0, ref, payload,
		                                      err, sizeof(err))) {
			free(payload);
			return fail(rep, DT_ERROR, "harness", i == in->nargs ? p->name : err);
		}
	}
	if (interp_run(ast, off, payload, ref, &res)) {
		free(payload);
		return fail(rep, DT_ERROR, "harness", "out of memory");
	}
	free(payload);
	rep->faulted = !res.ok;
	rep->site = res.ret_site;
	rep->value_len = res.ret_len < sizeof(rep->value) ? res.ret_len : sizeof(rep->value);
	memcpy(rep->value, res.ret, rep->value_len);

	uint8_t result[512] = {0};
	struct prism_call c = {.sz = sizeof(c),
	                       .entry = prism_program__entry_name(n->prog, 0),
	                       .args = args,
	                       .nargs = in->nargs,
	                       .result = result,
	                       .result_cap = sizeof(result)};
	int rc = prism_client__invoke(n->cl, &c, NULL);
	enum dt_outcome o = DT_SAME;

	rep->outcome = DT_SAME;
	if ((rc != 0) != !res.ok) {
		snprintf(rep->what, sizeof(rep->what), "NIC %s, reference %s%s",
		         rc ? prism_strerror(rc) : "ok", res.ok ? "ok" : "faulted: ", res.error);
		o = fail(rep, DT_DIFF, "status", NULL);
		goto out;
	}
	if (rc) /* both faulted: what ran before is not defined */
		goto out;
	if (c.ret_site != res.ret_site) {
		snprintf(rep->what, sizeof(rep->what), "NIC return site %u, reference %u",
		         c.ret_site, res.ret_site);
		o = fail(rep, DT_DIFF, "return site", NULL);
		goto out;
	}
	/* the returned bytes, when a return ran (without one the response
	 * carries no value: an offload that returns nothing still answers) */
	if (!res.ret_site)
		goto regions;
	int e = prism_client__find_entry(n->cl, NULL);
	struct prism_result_info ri = {0};

	if (prism_client__result_count(n->cl, e) > 0)
		prism_client__result(n->cl, e, 0, &ri);
	if (ri.size != res.ret_len) {
		snprintf(rep->what, sizeof(rep->what),
		         "NIC result is %u bytes at offset %u, the declared result %zu bytes",
		         ri.size, ri.offset, res.ret_len);
		o = fail(rep, DT_DIFF, "result layout", NULL);
		goto out;
	}
	if (ri.size && memcmp(result + ri.offset, res.ret, ri.size)) {
		size_t k = 0;

		while (result[ri.offset + k] == res.ret[k])
			k++;
		snprintf(rep->what, sizeof(rep->what),
		         "returned bytes differ from byte %zu: NIC %02x, reference %02x", k,
		         result[ri.offset + k], res.ret[k]);
		o = fail(rep, DT_DIFF, "value", NULL);
		goto out;
	}
regions:
	for (size_t i = 0; i < env->nregions; i++) {
		const struct interp_region *a = &env->regions[i], *b = &ref->regions[i];

		if (!memcmp(a->bytes, b->bytes, a->size))
			continue;
		size_t k = 0;

		while (a->bytes[k] == b->bytes[k])
			k++;
		snprintf(rep->kind, sizeof(rep->kind), "region %s", a->name);
		snprintf(rep->what, sizeof(rep->what),
		         "region %s differs from byte %zu: NIC %02x, reference %02x", a->name, k,
		         a->bytes[k], b->bytes[k]);
		rep->outcome = o = DT_DIFF;
		goto out;
	}
out:
	interp_result_free(&res);
	return o;
}

enum dt_outcome dt_run(const struct dt_input *in, enum ir_profile prof, struct dt_report *rep)
{
	struct frontend_unit u;
	struct chainobj *obj = NULL;
	struct nic n = {0};
	struct interp_region regs[DT_MAX_REGIONS], refs[DT_MAX_REGIONS];
	struct interp_env env = {.regions = regs}, ref = {.regions = refs};
	char *yaml = NULL, err[320];
	size_t len = 0;
	enum dt_outcome o;

	memset(rep, 0, sizeof(*rep));
	if (frontend_load_buffer(&u, "t.prism", in->src, strlen(in->src), NULL) != FRONTEND_OK) {
		first_error(&u.diag, rep->what, sizeof(rep->what), false);
		frontend_fini(&u);
		return fail(rep, DT_BAD, "front end", NULL);
	}
	struct compile_opts co = {.profile = prof};

	if (compile_program(&u.diag, u.prog, &co, &obj) != 0) {
		bool placed = true;

		first_error(&u.diag, rep->what, sizeof(rep->what), true);
		for (size_t i = 0; i < u.diag.count; i++)
			if (u.diag.items[i].severity == DIAG_ERROR && u.diag.items[i].loc.line == 0)
				placed = false;
		frontend_fini(&u);
		/* docs/language.md: a rejection names file:line:col; one that
		 * does not is a defect like a wrong answer */
		if (!placed)
			return fail(rep, DT_DIFF, "rejection without a source position", NULL);
		return fail(rep, DT_REJECTED, "rejected", NULL);
	}
	struct diag_report cd;

	if (chainobj_write_mem(obj, 0, &yaml, &len, &cd)) {
		chainobj_free(obj);
		frontend_fini(&u);
		return fail(rep, DT_ERROR, "harness", cd.msg);
	}
	chainobj_free(obj);
	PRISM_OPTS(prism_device_opts, dopts, .firmware = dt_profile_name(prof),
	           .hazard_fail = true);
	o = fail(rep, DT_ERROR, "harness", "the object does not load");
	n.prog = prism_program__open_mem(yaml, len, NULL);
	free(yaml);
	n.dev = n.prog ? prism_device__open("sim", &dopts) : NULL;
	if (!n.dev)
		goto out;
	for (int i = 0; i < prism_program__region_count(n.prog) && i < DT_MAX_REGIONS; i++) {
		struct prism_region_info ri;

		prism_program__region(n.prog, i, &ri);
		PRISM_OPTS(prism_region_opts, ro, .access = ri.access);
		struct prism_region *r = prism_device__create_region(n.dev, ri.name, ri.size, &ro);

		if (!r)
			goto out;
		regs[env.nregions++] = (struct interp_region){.name = prism_region__name(r),
		                                              .addr = prism_region__nic_addr(r),
		                                              .bytes = prism_region__addr(r),
		                                              .size = prism_region__size(r)};
	}
	for (size_t i = 0; i < in->nsets; i++)
		if (run_image_set(&env, in->sets[i], err, sizeof(err))) {
			o = fail(rep, DT_ERROR, "harness", err);
			goto out;
		}
	for (size_t i = 0; i < env.nregions; i++) {
		refs[i] = regs[i];
		refs[i].bytes = malloc(regs[i].size);
		if (!refs[i].bytes)
			goto out;
		ref.nregions++;
		memcpy(refs[i].bytes, regs[i].bytes, regs[i].size);
	}
	if (prism_program__load(n.prog, n.dev))
		goto out;
	PRISM_OPTS(prism_server_opts, so, .rearm = PRISM_REARM_AUTO);
	PRISM_OPTS(prism_client_opts, copts, .timeout_ms = 2000);
	n.srv = prism_server__create(n.dev, &so);
	if (!n.srv || prism_server__add_program(n.srv, n.prog))
		goto out;
	n.cl = prism_client__connect_local(n.srv, &copts);
	if (!n.cl)
		goto out;
	o = compare(in, u.prog->offloads, u.prog, &n, &env, &ref, rep);
out:
	for (size_t i = 0; i < ref.nregions; i++)
		free(refs[i].bytes);
	nic_close(&n);
	frontend_fini(&u);
	return o;
}

/* ---- reduction ---------------------------------------------------------- */

struct dt_prog *dt_reduce(struct dt_prog *p, enum ir_profile prof, const char *kind, unsigned *runs)
{
	bool progress = true;
	/* stay in the class of the original: no return that statements follow
	 * unless it had one (reduction must not wander into another bug) */
	bool tail = dt_prog_tail_returns(p);

	while (progress) {
		progress = false;
		for (size_t k = 0; k < dt_prog_edits(p); k++) {
			struct dt_prog *c = dt_prog_edit(p, k);
			struct dt_report rep;
			struct dt_input in = {0};

			if (!c)
				continue;
			if (tail && !dt_prog_tail_returns(c)) {
				dt_prog_free(c);
				continue;
			}
			char *src = dt_prog_source(c);

			in.src = src;
			in.nsets = dt_prog_sets(c, &in.sets);
			in.nargs = dt_prog_args(c, &in.args);
			(*runs)++;
			if (src && dt_run(&in, prof, &rep) == DT_DIFF && !strcmp(rep.kind, kind)) {
				dt_prog_free(p);
				p = c;
				progress = true;
				k--; /* the same position holds the next candidate */
			} else {
				dt_prog_free(c);
			}
			free(src);
		}
	}
	return p;
}

/* ---- regression cases --------------------------------------------------- */

int dt_case_write(const char *dir, const char *name, const struct dt_prog *p, enum ir_profile prof,
                  const struct dt_report *rep)
{
	char path[512];
	char *src = dt_prog_source(p);
	const char *const *sets;
	const struct dt_arg *args;
	size_t nsets = dt_prog_sets(p, &sets), nargs = dt_prog_args(p, &args);
	dt_mask used = dt_prog_constructs(p);
	FILE *f;

	if (!src)
		return -1;
	snprintf(path, sizeof(path), "%s/%s.set", dir, name);
	f = fopen(path, "w");
	if (!f) {
		free(src);
		return -1;
	}
	fprintf(f, "# region images of %s.prism (prismc run --set-file)\n", name);
	for (size_t i = 0; i < nsets; i++)
		fprintf(f, "%s\n", sets[i]);
	fclose(f);
	snprintf(path, sizeof(path), "%s/%s.prism", dir, name);
	f = fopen(path, "w");
	if (!f) {
		free(src);
		return -1;
	}
	fprintf(f, "// difftest case: %s (%s): %s\n", rep->kind, dt_profile_name(prof), rep->what);
	fprintf(f, "//! firmware: %s\n//! args:", dt_profile_name(prof));
	for (size_t i = 0; i < nargs; i++)
		fprintf(f, " %s=%llu", args[i].name, (unsigned long long)args[i].value);
	fprintf(f, "\n//! expect: %s site=%u value=", rep->faulted ? "fault" : "ok", rep->site);
	for (size_t i = 0; i < rep->value_len; i++)
		fprintf(f, "%02x", rep->value[i]);
	fprintf(f, "\n");
	for (int c = 0; c < DT_NCONSTRUCTS; c++)
		if ((used & ((dt_mask)1 << c)) && dt_constructs[c].known)
			fprintf(f, "//! known: %s (%s)\n", dt_constructs[c].known,
			        dt_constructs[c].name);
	fputs(src, f);
	free(src);
	return fclose(f) ? -1 : 0;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	if (m) {
		int ch;

		while ((ch = fgetc(f)) != EOF)
			fputc(ch, m);
		fclose(m);
	}
	fclose(f);
	return buf;
}

/* A case file and its images: the header lines, the .set file's lines. */
struct dt_case {
	char *src, *sets_text;
	const char *sets[256];
	size_t nsets;
	struct dt_arg args[32];
	char argnames[32][16];
	size_t nargs;
	enum ir_profile prof;
	bool has_prof, known, want_fault;
	unsigned want_site;
	char want_value[160];
};

static void case_free(struct dt_case *c)
{
	free(c->src);
	free(c->sets_text);
}

/* Read @prism_path's header and its .set file (@need_sets: a missing one is
 * an error).  0, or -1 with @err filled. */
static int case_load(const char *prism_path, struct dt_case *c, bool need_sets, char *err,
                     size_t errlen)
{
	char setpath[512];

	memset(c, 0, sizeof(*c));
	c->prof = IR_PROFILE_RELAXED;
	c->src = slurp(prism_path);
	if (!c->src) {
		snprintf(err, errlen, "%s: unreadable", prism_path);
		return -1;
	}
	for (const char *l = c->src; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, "//! firmware: ", 14)) {
			c->has_prof = true;
			c->prof =
			    strncmp(l + 14, "strict", 6) ? IR_PROFILE_RELAXED : IR_PROFILE_STRICT;
		} else if (!strncmp(l, "//! known:", 10)) {
			c->known = true;
		} else if (!strncmp(l, "//! expect: ", 12)) {
			c->want_fault = !strncmp(l + 12, "fault", 5);
			sscanf(l + 12, "%*s site=%u value=%159[0-9a-f]", &c->want_site,
			       c->want_value);
		} else if (!strncmp(l, "//! args:", 9)) {
			const char *a = l + 9;
			int used;
			char *end;

			/* name=value, the value decimal or 0x hexadecimal */
			while (c->nargs < 32 &&
			       sscanf(a, " %15[a-z0-9_]=%n", c->argnames[c->nargs], &used) == 1 &&
			       used > 0 && isdigit((unsigned char)a[used])) {
				unsigned long long v = strtoull(a + used, &end, 0);

				c->args[c->nargs] = (struct dt_arg){c->argnames[c->nargs], v};
				c->nargs++;
				a = end;
			}
		}
	}
	snprintf(setpath, sizeof(setpath), "%.*s.set", (int)(strlen(prism_path) - 6), prism_path);
	c->sets_text = slurp(setpath);
	if (!c->sets_text && need_sets) {
		snprintf(err, errlen, "%s: unreadable", setpath);
		case_free(c);
		return -1;
	}
	for (char *l = c->sets_text ? strtok(c->sets_text, "\n") : NULL; l && c->nsets < 256;
	     l = strtok(NULL, "\n"))
		if (l[0] != '#' && l[0])
			c->sets[c->nsets++] = l;
	return 0;
}

static void value_hex(const struct dt_report *rep, char *got, size_t len)
{
	got[0] = 0;
	for (size_t i = 0; i < rep->value_len && 2 * i + 2 < len; i++)
		snprintf(got + 2 * i, 3, "%02x", rep->value[i]);
}

int dt_case_run(const char *prism_path, bool *known_diff, char *err, size_t errlen)
{
	struct dt_case c;
	int rc = -1;

	*known_diff = false;
	if (case_load(prism_path, &c, true, err, errlen))
		return -1;

	struct dt_input in = {
	    .src = c.src, .sets = c.sets, .nsets = c.nsets, .args = c.args, .nargs = c.nargs};
	struct dt_report rep;
	enum dt_outcome o = dt_run(&in, c.prof, &rep);
	char got[160];

	value_hex(&rep, got, sizeof(got));
	if (o != DT_SAME && o != DT_DIFF) {
		snprintf(err, errlen, "%s: %s: %s", prism_path, rep.kind, rep.what);
		goto out;
	}
	if (rep.faulted != c.want_fault || rep.site != c.want_site || strcmp(got, c.want_value)) {
		snprintf(err, errlen,
		         "%s: the reference computes %s site=%u value=%s; the case expects %s "
		         "site=%u value=%s",
		         prism_path, rep.faulted ? "fault" : "ok", rep.site, got,
		         c.want_fault ? "fault" : "ok", c.want_site, c.want_value);
		goto out;
	}
	*known_diff = o == DT_DIFF;
	if (o == DT_DIFF && !c.known) {
		snprintf(err, errlen, "%s: %s: %s", prism_path, rep.kind, rep.what);
		goto out;
	}
	rc = 0;
out:
	case_free(&c);
	return rc;
}

int dt_case_try(const char *prism_path, bool relaxed, bool strict, FILE *out)
{
	static const char *const names[] = {[DT_SAME] = "same",
	                                    [DT_DIFF] = "DIFFERS",
	                                    [DT_REJECTED] = "rejected",
	                                    [DT_BAD] = "front end rejects",
	                                    [DT_ERROR] = "harness error"};
	struct dt_case c;
	char err[600];
	int rc = 0;

	if (case_load(prism_path, &c, false, err, sizeof(err))) {
		fprintf(out, "%s\n", err);
		return -1;
	}
	for (int k = 0; k < 2; k++) {
		enum ir_profile prof = k ? IR_PROFILE_STRICT : IR_PROFILE_RELAXED;
		struct dt_input in = {.src = c.src,
		                      .sets = c.sets,
		                      .nsets = c.nsets,
		                      .args = c.args,
		                      .nargs = c.nargs};
		struct dt_report rep;
		char got[160];

		if (!(k ? strict : relaxed) || (c.has_prof && c.prof != prof))
			continue;
		enum dt_outcome o = dt_run(&in, prof, &rep);

		value_hex(&rep, got, sizeof(got));
		fprintf(out, "%s: %s: %s", prism_path, dt_profile_name(prof), names[o]);
		if (o == DT_SAME || o == DT_DIFF)
			fprintf(out, " (reference: %s site=%u value=%s)",
			        rep.faulted ? "fault" : "ok", rep.site, got);
		if (o != DT_SAME)
			fprintf(out, ": %s: %s", rep.kind, rep.what);
		fprintf(out, "\n");
		if (o == DT_DIFF || o == DT_BAD || o == DT_ERROR)
			rc = -1;
	}
	case_free(&c);
	return rc;
}

unsigned dt_test_programs(void)
{
	const char *env = getenv("DIFFTEST_PROGRAMS");

	return env ? (unsigned)strtoul(env, NULL, 0) : 2000;
}

unsigned dt_test_runs(unsigned full)
{
	unsigned n = dt_test_programs();
	unsigned r = n >= 2000 ? full : (unsigned)((uint64_t)full * n / 2000);

	return r ? r : 1;
}
