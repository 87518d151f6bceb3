/* SPDX-License-Identifier: MIT */
/*
 * tools/perf/programs.c - the programs prism-perf serves and invokes.
 *
 * READ, WRITE and SEND are one-line offloads over a region "buf", written
 * as .prism source for the requested message size and compiled by prismc
 * (found with --prismc, else next to this program, else on $PATH), one
 * .chain object per entry:
 *
 *   read(p: *u8[S] in buf) -> u8[S]      the server's NIC READs S bytes
 *                                        at offset p and WRITEs them back
 *   write(p: *u8[S] in buf, data: u8[S]) S bytes travel in the request and
 *                                        are written at offset p
 *   send(data: u8[S])                    S bytes travel in the request;
 *                                        only the completion comes back
 *
 * The get workload is any compiled .chain object (--chain).
 *
 * Must not: leave its temporary files behind.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/perf/perf.h"

const char *const perf_workload_names[PERF__COUNT] = {
    [PERF_GET] = "get",
    [PERF_READ] = "read",
    [PERF_WRITE] = "write",
    [PERF_SEND] = "send",
};

size_t perf_buf_size(unsigned size)
{
	size_t b = (size_t)size * 16;

	return b < 4096 ? 4096 : b;
}

const char *perf_program_name(const struct perf_opts *o, const struct prism_program *get)
{
	return o->workload == PERF_GET ? prism_program__name(get)
	                               : perf_workload_names[o->workload];
}

static int write_source(const char *path, unsigned s)
{
	FILE *f = fopen(path, "w");
	int bad;

	if (!f)
		return -errno;
	fprintf(f,
	        "// prism-perf workloads, message size %u bytes\n"
	        "region buf size %zu writable;\n"
	        "offload read(p: *u8[%u] in buf) -> u8[%u] {\n\treturn *p;\n}\n"
	        "offload write(p: *u8[%u] in buf, data: u8[%u]) {\n\t*p = data;\n}\n"
	        "offload send(data: u8[%u]) {\n}\n",
	        s, perf_buf_size(s), s, s, s, s, s);
	bad = ferror(f);
	return fclose(f) || bad ? -EIO : 0;
}

/* prismc next to this program (build tree, or the installed bindir). */
static const char *find_prismc(const struct perf_opts *o, char *buf, size_t cap)
{
	char self[PATH_MAX];
	ssize_t n;

	if (o->prismc)
		return o->prismc;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		snprintf(buf, cap, "%s/prismc", dirname(self));
		if (!access(buf, X_OK))
			return buf;
	}
	return "prismc";
}

static int run_prismc(const char *prismc, const char *src, const char *entry, const char *out)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execlp(prismc, prismc, "compile", src, "--entry", entry, "-o", out, (char *)NULL);
		fprintf(stderr, "prism-perf: cannot run %s: %s (use --prismc)\n", prismc,
		        strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EINVAL;
}

struct prism_program *perf_program_open(const struct perf_opts *o, enum perf_workload w)
{
	char dir[] = "/tmp/prism-perf-XXXXXX", src[64], out[64], pc[PATH_MAX + 8];
	const char *name = perf_workload_names[w];
	struct prism_program *p = NULL;
	int err;

	if (w == PERF_GET) {
		p = o->chain_text ? prism_program__open_mem(o->chain_text, o->chain_len, NULL)
		                  : prism_program__open_file(o->chain, NULL);
		if (!p)
			fprintf(stderr, "prism-perf: %s: %s\n", o->chain, prism_strerror(errno));
		return p;
	}
	if (!mkdtemp(dir)) {
		fprintf(stderr, "prism-perf: temporary directory: %s\n", strerror(errno));
		return NULL;
	}
	snprintf(src, sizeof(src), "%s/perf.prism", dir);
	snprintf(out, sizeof(out), "%s/%s.chain", dir, name);
	err = write_source(src, o->size);
	if (!err)
		err = run_prismc(find_prismc(o, pc, sizeof(pc)), src, name, out);
	if (!err && !(p = prism_program__open_file(out, NULL)))
		err = -errno;
	if (err)
		fprintf(stderr, "prism-perf: %s workload, size %u: %s\n", name, o->size,
		        err == -EINVAL ? "prismc rejected it" : prism_strerror(err));
	unlink(src);
	unlink(out);
	rmdir(dir);
	return p;
}
