/* SPDX-License-Identifier: MIT */
/*
 * core/program.c - opening, re-verifying and loading .chain objects.
 *
 * Owns: prism_program__open_file/_mem (chainobj reader), prism_program__load
 * (re-verification, region binding), the program getters, and the
 * reference count shared with connection instances.
 * Must not: create queues or post WQEs (core/inst.c), trust anything in the
 * object that the checks below or chain_verify did not establish.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chain/chain_verify.h"
#include "chain/chainobj_yaml.h"
#include "core/opts.h"
#include "core/program.h"

static struct prism_program *program_new(struct chainobj *obj, const struct prism_program_opts *o)
{
	struct prism_program *prog = calloc(1, sizeof(*prog));
	const char *name = CORE_OPT(o, name, obj->program);

	if (!prog) {
		chainobj_free(obj);
		return core_fail_ptr(-ENOMEM);
	}
	if (!core_name_valid(name)) {
		core_err("program: invalid name '%s'", name);
		chainobj_free(obj);
		free(prog);
		return core_fail_ptr(-EINVAL);
	}
	snprintf(prog->name, sizeof(prog->name), "%s", name);
	prog->obj = obj;
	prog->refs = 1;
	prog->conn_queue = -1;
	prog->installed_pid = -1;
	prog->installed_uid = (uint32_t)geteuid();
	prog->allow_ungated = CORE_OPT(o, allow_ungated, false);
	pthread_mutex_init(&prog->ref_lock, NULL);
	return prog;
}

/* "program file 'PATH': ..." (@path NULL: the object was in memory). */
static int read_error(int err, const struct diag_report *d, const char *path)
{
	char what[256] = "program object";

	if (path)
		snprintf(what, sizeof(what), "program file '%s'", path);
	if (err == -EINVAL) {
		core_err("%s: rejected: %s", what, d->msg);
		return d->code == CHAINOBJ_E_VERSION ? -PRISM_E_VERSION : -PRISM_E_FORMAT;
	}
	core_err("%s: %s", what, prism_strerror(err));
	return err;
}

PRISM_API struct prism_program *prism_program__open_file(const char *path,
                                                         const struct prism_program_opts *opts)
{
	struct diag_report d = {0};
	struct chainobj *obj;
	int err;

	if ((err = CORE_OPTS_CHECK(opts, allow_ungated)))
		return core_fail_ptr(err);
	if (!path)
		return core_fail_ptr(-EINVAL);
	struct prism_program *prog;
	struct stat st;

	err = chainobj_read_file(path, &obj, &d);
	if (err)
		return core_fail_ptr(read_error(err, &d, path));
	prog = program_new(obj, opts);
	if (prog && !stat(path, &st))
		prog->object_bytes = (uint64_t)st.st_size;
	if (prog)
		snprintf(prog->origin, sizeof(prog->origin), "%s", path);
	return prog;
}

PRISM_API struct prism_program *prism_program__open_mem(const void *buf, size_t len,
                                                        const struct prism_program_opts *opts)
{
	struct diag_report d = {0};
	struct chainobj *obj;
	int err;

	if ((err = CORE_OPTS_CHECK(opts, allow_ungated)))
		return core_fail_ptr(err);
	if (!buf)
		return core_fail_ptr(-EINVAL);
	struct prism_program *prog;

	err = chainobj_read_mem(buf, len, &obj, &d);
	if (err)
		return core_fail_ptr(read_error(err, &d, NULL));
	prog = program_new(obj, opts);
	if (prog)
		prog->object_bytes = len;
	return prog;
}

__attribute__((format(printf, 2, 3))) static int reject(const char *name, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	core_err("program '%s': rejected: %s", name, msg);
	return -PRISM_E_VERIFY;
}

int core_program_check(const struct chainobj *o, const char *name)
{
	int conn = -1;

	if (!o->summary.verified)
		return reject(name, "the object does not carry a verified summary");
	for (uint32_t q = 0; q < o->n_queues; q++) {
		const struct chainobj_queue *qu = &o->queues[q];

		if (qu->role == CHAINOBJ_ROLE_CONN) {
			if (conn >= 0)
				return reject(name, "queues '%s' and '%s' both have role conn",
				              o->queues[conn].name, qu->name);
			conn = (int)q;
		}
		if (o->rearm != CHAINOBJ_REARM_CPU_REPOST)
			continue;
		/* CPU re-posting needs every invocation window to fit its ring. */
		if (qu->sq_per_invocation > qu->sq_slots || qu->rq_per_invocation > qu->rq_slots)
			return reject(name,
			              "queue '%s': an invocation needs more slots than the "
			              "ring has",
			              qu->name);
		for (uint32_t i = 0; i < qu->n_sq; i++) {
			const struct chainobj_wqe *w = &qu->sq[i];
			uint32_t bbs = prism_wqe_bbs(w->len / PRISM_WQE_DS_BYTES);

			if (qu->sq_per_invocation && w->slot + bbs > qu->sq_per_invocation)
				return reject(name,
				              "queue '%s': SQ WQE %u (slots %u..%u) outside the "
				              "%u-slot invocation window",
				              qu->name, i, w->slot, w->slot + bbs - 1,
				              qu->sq_per_invocation);
		}
		for (uint32_t i = 0; i < qu->n_rq; i++)
			if (qu->rq_per_invocation && qu->rq[i].slot >= qu->rq_per_invocation)
				return reject(name,
				              "queue '%s': RQ WQE %u at slot %u outside the "
				              "%u-slot invocation window",
				              qu->name, i, qu->rq[i].slot, qu->rq_per_invocation);
	}
	if (conn < 0)
		return reject(name, "no queue has role conn (nothing a client could connect to)");
	if (o->n_entries < 1)
		return reject(name, "no entry point");
	for (uint32_t e = 0; e < o->n_entries; e++)
		if (o->entries[e].msg_size > CHAINOBJ_MAX_MSG)
			return reject(name, "entry '%s': %u-byte message", o->entries[e].name,
			              o->entries[e].msg_size);
	if (o->response_size > CHAINOBJ_MAX_MSG)
		return reject(name, "%u-byte response", o->response_size);
	return 0;
}

/* ", declared at FILE:LINE" (or "at line LINE of the object" when it was
 * opened from memory), "" when the object was built in memory. */
static const char *declared_at(const struct prism_program *prog, uint32_t line, char *buf,
                               size_t cap)
{
	if (!line)
		return "";
	if (prog->origin[0])
		snprintf(buf, cap, ", declared at %s:%u", prog->origin, line);
	else
		snprintf(buf, cap, ", declared at line %u of the object", line);
	return buf;
}

/* Every declared region must exist with at least the declared size and access. */
static int bind_regions(struct prism_program *prog, struct prism_device *dev)
{
	const struct chainobj *o = prog->obj;
	char at[sizeof(prog->origin) + 48];
	static const struct {
		unsigned obj, api;
	} acc[] = {
	    {CHAINOBJ_ACC_READ, PRISM_ACCESS_READ},
	    {CHAINOBJ_ACC_WRITE, PRISM_ACCESS_WRITE},
	    {CHAINOBJ_ACC_ATOMIC, PRISM_ACCESS_ATOMIC},
	};

	prog->regions = calloc(o->n_regions ? o->n_regions : 1, sizeof(*prog->regions));
	if (!prog->regions)
		return -ENOMEM;
	for (uint32_t i = 0; i < o->n_regions; i++) {
		const struct chainobj_region *d = &o->regions[i];
		struct prism_region *r = core_region_find(dev, d->name);
		unsigned need = 0;

		if (!r) {
			core_err("program '%s': region '%s' (%llu bytes%s) is not registered on "
			         "device %s",
			         prog->name, d->name, (unsigned long long)d->size,
			         declared_at(prog, d->line, at, sizeof(at)), dev->name);
			return -PRISM_E_NOREGION;
		}
		for (size_t a = 0; a < sizeof(acc) / sizeof(acc[0]); a++)
			if (d->access & acc[a].obj)
				need |= acc[a].api;
		if (r->len < d->size || (r->access & need) != need) {
			char has[32], wants[32];

			core_err("program '%s': region '%s' is %zu bytes with access %s; the "
			         "program declares %llu bytes with access %s%s",
			         prog->name, d->name, r->len,
			         chainobj_access_words(r->access, has, sizeof(has)),
			         (unsigned long long)d->size,
			         chainobj_access_words(need, wants, sizeof(wants)),
			         declared_at(prog, d->line, at, sizeof(at)));
			return -PRISM_E_REGION;
		}
		prog->regions[i] = r;
	}
	pthread_mutex_lock(&dev->reg_lock);
	for (uint32_t i = 0; i < o->n_regions; i++)
		prog->regions[i]->users++;
	pthread_mutex_unlock(&dev->reg_lock);
	return 0;
}

/* No invocation without a real request (chain_gate.c): an object without
 * the request gate is refused unless the application asked for it, and
 * then loaded with a warning, never silently. */
static int check_request_gate(const struct prism_program *prog)
{
	char why[200];

	if (chain_verify_request_gate(prog->obj, why, sizeof(why)))
		return 0;
	if (!prog->allow_ungated) {
		core_err("program '%s': rejected: no request gate (%s): a client that fails its "
		         "own connection could start invocations with unfilled arguments; compile "
		         "it without --no-request-gate, or load it with allow_ungated",
		         prog->name, why);
		return -PRISM_E_UNGATED;
	}
	core_warn("program '%s': loaded WITHOUT a request gate (%s): a client that fails its own "
	          "connection can start pre-posted invocations with unfilled arguments",
	          prog->name, why);
	return 0;
}

/* The object's assumptions (chainobj.assumes) must be what @dev's behaviour
 * probe confirmed: a chain that relies on, say, fenced enables would race
 * its own patches on a NIC that does not honour them. */
static int check_assumes(const struct prism_program *prog, struct prism_device *dev)
{
	const struct core_probe_report *rep;
	uint32_t missing;
	int err;

	/* what the WQEs rely on, whatever the object declares */
	uint32_t assumes = prog->obj->assumes | chain_verify_assumes(prog->obj);

	if (!assumes)
		return 0;
	if ((err = core_dev_probe(dev, &rep)))
		return err;
	missing = assumes & ~core_probe_confirmed_assumes(rep);
	if (!missing)
		return 0;
	unsigned bit = (unsigned)__builtin_ctz(missing);
	/* the probe of an assumption has the assumption's name */
	const char *name = chainobj_assume_name((enum chainobj_assume_bit)bit);
	const char *seen = "not probed";
	for (unsigned i = 0; i < CORE_PROBE__COUNT; i++)
		if (!strcmp(core_probe_name((enum core_probe_id)i), name))
			seen = rep->detail[i];
	core_err("program '%s': rejected: it assumes %s, which device %s does not confirm (%s)",
	         prog->name, name, dev->name, seen);
	return -PRISM_E_ASSUME;
}

PRISM_API int prism_program__load(struct prism_program *prog, struct prism_device *dev)
{
	struct diag_report d = {0};
	int err;

	if (!prog || !dev)
		return -EINVAL;
	if (prog->dev) {
		core_err("program '%s': already loaded on device %s", prog->name, prog->dev->name);
		return -PRISM_E_BUSY;
	}
	/* Structure first (makes the object safe to walk), then security. */
	if (chainobj_validate(prog->obj, &d)) {
		core_err("program '%s': rejected: %s", prog->name, d.msg);
		return -PRISM_E_FORMAT;
	}
	err = core_program_check(prog->obj, prog->name);
	if (err)
		return err;
	/* The security verifier recomputes everything; the object's summary is not trusted. */
	struct chain_verify_report rep;

	memset(&rep, 0, sizeof(rep));
	err = chain_verify(prog->obj, CHAIN_VERIFY_WR_BUDGET, &rep);
	if (err) {
		core_err("program '%s': rejected by the verifier: %s", prog->name, rep.msg);
		return -PRISM_E_VERIFY;
	}
	if ((err = check_assumes(prog, dev)))
		return err;
	if (rep.wr_per_invocation != prog->obj->summary.wr_per_invocation)
		core_info("program '%s': object claims %u WRs per invocation, verifier counts %u",
		          prog->name, prog->obj->summary.wr_per_invocation, rep.wr_per_invocation);
	err = core_caps_check(dev, prog->name, prog->obj);
	if (err)
		return err;
	if ((err = check_request_gate(prog)))
		return err;
	err = bind_regions(prog, dev);
	if (err) {
		free(prog->regions);
		prog->regions = NULL;
		return err;
	}
	for (uint32_t q = 0; q < prog->obj->n_queues; q++)
		if (prog->obj->queues[q].role == CHAINOBJ_ROLE_CONN)
			prog->conn_queue = (int)q;
	prog->dev = dev;
	core_info("program '%s': loaded on %s (%u queues, %u WRs per invocation)", prog->name,
	          dev->name, prog->obj->n_queues, prog->obj->summary.wr_per_invocation);
	return 0;
}

void core_program_get(struct prism_program *prog)
{
	pthread_mutex_lock(&prog->ref_lock);
	prog->refs++;
	pthread_mutex_unlock(&prog->ref_lock);
}

void core_program_put(struct prism_program *prog)
{
	unsigned left;

	pthread_mutex_lock(&prog->ref_lock);
	left = --prog->refs;
	pthread_mutex_unlock(&prog->ref_lock);
	if (left)
		return;
	if (prog->dev && prog->regions) {
		pthread_mutex_lock(&prog->dev->reg_lock);
		for (uint32_t i = 0; i < prog->obj->n_regions; i++)
			prog->regions[i]->users--;
		pthread_mutex_unlock(&prog->dev->reg_lock);
	}
	free(prog->regions);
	chainobj_free(prog->obj);
	pthread_mutex_destroy(&prog->ref_lock);
	free(prog);
}

PRISM_API void prism_program__close(struct prism_program *prog)
{
	if (prog)
		core_program_put(prog);
}

PRISM_API uint64_t prism_program__object_bytes(const struct prism_program *prog)
{
	return prog ? prog->object_bytes : 0;
}

PRISM_API const char *prism_program__name(const struct prism_program *prog)
{
	return prog ? prog->name : NULL;
}

PRISM_API int prism_program__entry_count(const struct prism_program *prog)
{
	return prog ? (int)prog->obj->n_entries : -EINVAL;
}

static const struct chainobj_entry *entry_at(const struct prism_program *prog, int e)
{
	if (!prog || e < 0 || (uint32_t)e >= prog->obj->n_entries)
		return NULL;
	return &prog->obj->entries[e];
}

PRISM_API const char *prism_program__entry_name(const struct prism_program *prog, int e)
{
	const struct chainobj_entry *en = entry_at(prog, e);

	return en ? en->name : NULL;
}

PRISM_API int prism_program__find_entry(const struct prism_program *prog, const char *name)
{
	if (!prog || !name)
		return -EINVAL;
	for (uint32_t e = 0; e < prog->obj->n_entries; e++)
		if (!strcmp(prog->obj->entries[e].name, name))
			return (int)e;
	return -PRISM_E_NOENTRY;
}

PRISM_API int prism_program__param_count(const struct prism_program *prog, int e)
{
	const struct chainobj_entry *en = entry_at(prog, e);

	return en ? (int)en->n_params : -PRISM_E_NOENTRY;
}

enum prism_type core_param_type(const struct chainobj_param *p)
{
	/* Integers of any width up to 8 (a be24 key) take the next C type. */
	if (p->type == CHAINOBJ_PT_BYTES || p->width > 8)
		return PRISM_TYPE_BYTES;
	return p->width == 1   ? PRISM_TYPE_U8
	       : p->width == 2 ? PRISM_TYPE_U16
	       : p->width <= 4 ? PRISM_TYPE_U32
	                       : PRISM_TYPE_U64;
}

PRISM_API int prism_program__param(const struct prism_program *prog, int e, int i,
                                   struct prism_param_info *info)
{
	const struct chainobj_entry *en = entry_at(prog, e);

	if (!en)
		return -PRISM_E_NOENTRY;
	if (!info || i < 0 || (uint32_t)i >= en->n_params)
		return -EINVAL;
	info->name = en->params[i].name;
	info->type = core_param_type(&en->params[i]);
	info->size = en->params[i].width;
	return 0;
}

PRISM_API int prism_program__result_size(const struct prism_program *prog, int e)
{
	const struct chainobj_entry *en = entry_at(prog, e);
	uint32_t end = 0;

	if (!en)
		return -PRISM_E_NOENTRY;
	for (uint32_t i = 0; i < en->n_results; i++)
		if (en->results[i].offset + en->results[i].width > end)
			end = en->results[i].offset + en->results[i].width;
	return (int)end;
}

PRISM_API int prism_program__region_count(const struct prism_program *prog)
{
	return prog ? (int)prog->obj->n_regions : -EINVAL;
}

PRISM_API int prism_program__region(const struct prism_program *prog, int i,
                                    struct prism_region_info *info)
{
	const struct chainobj_region *r;

	if (!prog || !info || i < 0 || (uint32_t)i >= prog->obj->n_regions)
		return -EINVAL;
	r = &prog->obj->regions[i];
	info->name = r->name;
	info->size = r->size;
	info->access = (r->access & CHAINOBJ_ACC_READ ? PRISM_ACCESS_READ : 0) |
	               (r->access & CHAINOBJ_ACC_WRITE ? PRISM_ACCESS_WRITE : 0) |
	               (r->access & CHAINOBJ_ACC_ATOMIC ? PRISM_ACCESS_ATOMIC : 0);
	return 0;
}

PRISM_API int prism_program__wr_budget(const struct prism_program *prog, int e)
{
	if (!entry_at(prog, e))
		return -PRISM_E_NOENTRY;
	return (int)prog->obj->summary.wr_per_invocation;
}
