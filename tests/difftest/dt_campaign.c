/* SPDX-License-Identifier: MIT */
/*
 * tests/difftest/dt_campaign.c - many random programs, both profiles,
 * tallied (dt_campaign.h).
 *
 * Must not: decide what counts as a difference (dt_run.c does).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <prism/prism.h>

#include "tests/difftest/dt_campaign.h"
#include "util/array.h"
#include "tests/difftest/dt_run.h"

/* Counted strings (rejection reasons, kinds of difference). */
struct bucket {
	char *key;
	unsigned n;
	char *example; /* the first program's source */
};

struct buckets {
	struct bucket *b;
	size_t n, cap;
};

static struct bucket *count(struct buckets *bs, const char *key, const char *example)
{
	for (size_t i = 0; i < bs->n; i++)
		if (!strcmp(bs->b[i].key, key)) {
			bs->b[i].n++;
			return &bs->b[i];
		}
	if (!ARRAY_RESERVE(bs->b, bs->cap, bs->n + 1))
		return NULL;
	struct bucket *b = &bs->b[bs->n];

	b->key = strdup(key);
	b->example = example ? strdup(example) : NULL;
	b->n = 1;
	if (!b->key)
		return NULL;
	bs->n++;
	return b;
}

static int by_count(const void *a, const void *b)
{
	const struct bucket *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : strcmp(x->key, y->key);
}

static void print_buckets(FILE *f, const char *title, struct buckets *bs)
{
	if (!bs->n)
		return;
	qsort(bs->b, bs->n, sizeof(*bs->b), by_count);
	fprintf(f, "%s:\n", title);
	for (size_t i = 0; i < bs->n; i++)
		fprintf(f, "  %7u  %s\n", bs->b[i].n, bs->b[i].key);
}

static void free_buckets(struct buckets *bs)
{
	for (size_t i = 0; i < bs->n; i++) {
		free(bs->b[i].key);
		free(bs->b[i].example);
	}
	free(bs->b);
}

/* A difference: show it, reduce it, keep it. */
static void on_diff(const struct dt_campaign_opts *o, struct dt_tally *t, struct dt_prog *p,
                    enum ir_profile prof, const struct dt_report *rep, uint64_t seed)
{
	char *src;

	if (!p)
		return;
	struct dt_report r = *rep;

	if (o->reduce) {
		struct dt_input in = {0};

		p = dt_reduce(p, prof, rep->kind, &t->runs);
		src = dt_prog_source(p);
		in.src = src;
		in.nsets = dt_prog_sets(p, &in.sets);
		in.nargs = dt_prog_args(p, &in.args);
		if (src)
			dt_run(&in, prof, &r);
		free(src);
	}
	src = dt_prog_source(p);
	if (o->out && t->diffs <= o->show)
		fprintf(o->out, "== difference (seed %llu, %s): %s: %s\n%s\n",
		        (unsigned long long)seed, dt_profile_name(prof), r.kind, r.what,
		        src ? src : "");
	if (o->save_dir) {
		char name[96];

		snprintf(name, sizeof(name), "seed%llu-%s", (unsigned long long)seed,
		         dt_profile_name(prof));
		if (dt_case_write(o->save_dir, name, p, prof, &r)) {
			fprintf(stderr, "difftest: cannot write case %s in %s: %s\n", name,
			        o->save_dir, strerror(errno));
			t->unsaved++;
		}
	}
	free(src);
	dt_prog_free(p);
}

int dt_save_dir_check(const char *dir)
{
	struct stat st;

	if (stat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return access(dir, W_OK | X_OK) ? -errno : 0;
}

int dt_campaign(const struct dt_campaign_opts *o, struct dt_tally *t)
{
	unsigned gen[DT_NCONSTRUCTS] = {0}, cmp[DT_NCONSTRUCTS] = {0};
	struct buckets rejected = {0}, diffs = {0}, bad = {0};
	enum ir_profile profs[2];
	unsigned nprofs = 0;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	if (o->save_dir && (rc = dt_save_dir_check(o->save_dir)))
		return rc;
	if (o->relaxed)
		profs[nprofs++] = IR_PROFILE_RELAXED;
	if (o->strict)
		profs[nprofs++] = IR_PROFILE_STRICT;
	prism_set_log_fn(NULL, NULL, PRISM_LOG_ERROR);
	for (uint64_t seed = o->seed; t->compared < o->programs && t->generated < o->max_generated;
	     seed++) {
		struct dt_prog *p = dt_gen(seed, o->allowed);
		char *src = p ? dt_prog_source(p) : NULL;
		bool compared = false;

		if (!src) {
			dt_prog_free(p);
			rc = -ENOMEM;
			break;
		}
		t->generated++;
		dt_mask used = dt_prog_constructs(p);

		for (int c = 0; c < DT_NCONSTRUCTS; c++)
			gen[c] += (used >> c) & 1;
		for (unsigned k = 0; k < nprofs; k++) {
			struct dt_input in = {.src = src};
			struct dt_report rep;
			char key[720];

			in.nsets = dt_prog_sets(p, &in.sets);
			in.nargs = dt_prog_args(p, &in.args);
			t->runs++;
			switch (dt_run(&in, profs[k], &rep)) {
			case DT_SAME:
				compared = true;
				t->faulted += rep.faulted;
				break;
			case DT_DIFF:
				compared = true;
				t->diffs++;
				snprintf(key, sizeof(key), "%s (%s)", rep.kind,
				         dt_profile_name(profs[k]));
				count(&diffs, key, src);
				/* the same program again (generation is deterministic) */
				on_diff(o, t, dt_gen(seed, o->allowed), profs[k], &rep, seed);
				break;
			case DT_REJECTED:
				t->rejected++;
				snprintf(key, sizeof(key), "%s: %s", dt_profile_name(profs[k]),
				         rep.what);
				count(&rejected, key, NULL);
				break;
			case DT_BAD:
				t->bad++;
				count(&bad, rep.what, src);
				if (o->out && t->bad <= 3)
					fprintf(o->out,
					        "== ill-typed program (seed %llu): %s\n%s\n",
					        (unsigned long long)seed, rep.what, src);
				break;
			case DT_ERROR:
				t->bad++;
				count(&bad, rep.what, src);
				break;
			}
		}
		if (o->out && o->progress && t->generated % o->progress == 0) {
			fprintf(o->out, "difftest: %u generated, %u compared, %u differences\n",
			        t->generated, t->compared, t->diffs);
			fflush(o->out);
		}
		if (compared) {
			t->compared++;
			for (int c = 0; c < DT_NCONSTRUCTS; c++)
				cmp[c] += (used >> c) & 1;
		}
		free(src);
		dt_prog_free(p);
	}
	if (o->out) {
		FILE *f = o->out;

		fprintf(f,
		        "difftest: %u programs generated, %u compared (compiled under at least one "
		        "profile), %u runs (%u where both fail the invocation), %u differences, %u "
		        "rejections, %u ill-typed/harness\n",
		        t->generated, t->compared, t->runs, t->faulted, t->diffs, t->rejected,
		        t->bad);
		fprintf(f, "constructs (programs using it: generated / compared):\n");
		for (int c = 0; c < DT_NCONSTRUCTS; c++)
			fprintf(f, "  %-14s %7u / %7u  %s%s%s%s\n", dt_constructs[c].id, gen[c],
			        cmp[c], dt_constructs[c].name,
			        dt_constructs[c].known ? " [known " : "",
			        dt_constructs[c].known ? dt_constructs[c].known : "",
			        dt_constructs[c].known
			            ? ((o->allowed >> c) & 1 ? ", included]" : ", excluded]")
			            : "");
		print_buckets(f, "differences", &diffs);
		print_buckets(f, "rejected by the compiler (profile: first error)", &rejected);
		print_buckets(f, "ill-typed or harness errors", &bad);
	}
	free_buckets(&rejected);
	free_buckets(&diffs);
	free_buckets(&bad);
	return rc;
}
