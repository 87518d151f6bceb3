/* SPDX-License-Identifier: MIT */
/*
 * prismd - a software NIC in its own process (daemon mode).
 *
 *   prismd --config server.yaml [--nic-threads N] [--quiet]
 *
 * Opens the configured device, creates or waits for the configured regions,
 * loads the configured programs and serves them to TCP clients (one program
 * instance per connection).  Applications attach on the control socket and
 * share their memfd-backed regions (prism_daemon__share_region); prismd maps
 * the same pages, so offloads keep serving when the application crashes
 * (RedN section 5.6: the NIC's resources live in a process that outlives the
 * application).  Prints "prismd: ready port=N nic-threads=K" on stdout once
 * serving, and only when every configured program loaded (a program that
 * waits for a region an application shares loads when it arrives).  Logs
 * every install, replacement and removal made on the post socket (who, what,
 * how large) and every refused one with its reason, on stderr.  With K > 1 NIC threads (shards)
 * each connection lives on one of them, the least loaded when it connects; regions are reachable
 * from all.
 *
 * Exit status: 0 after SIGINT/SIGTERM, 1 configuration error, 2 usage
 * (or no such configuration file), 3 start-up failure (device, region,
 * socket, a configured program that does not load).
 *
 * Owns: the daemon's main loop, region creation from files, pending
 * programs (loaded once their shared regions arrive), the control socket.
 * Must not: trust the application: sizes and names are checked against the
 * configuration, descriptors are closed on every error path.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <prism/prism.h>

#include "core/core.h"
#include "core/daemon_proto.h"
#include "tools/cli/cli.h"
#include "tools/prismd/config.h"
#include "util/fdpass.h"

#define MAX_APPS   64
#define MAX_SHARED PRISMD_MAX_REGIONS

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* A region an application shared: who (its control socket; -1 once it
 * left, when a restarted application may take the name back). */
struct shared {
	struct prism_region *r;
	int app;
};

struct daemon {
	struct prismd_config cfg;
	struct shared shared[MAX_SHARED];
	unsigned n_shared;
	/* regions taken back by a restarted application, freed once no
	 * connection's program uses them any more */
	struct prism_region *retired[MAX_SHARED];
	unsigned n_retired;
	struct prism_device *dev;
	struct prism_server *srv;
	bool loaded[PRISMD_MAX_PROGRAMS];
	/* the region each program waiting for an application's was last said
	 * to wait for: said once, not again after every share */
	const struct prismd_region_cfg *waits_for[PRISMD_MAX_PROGRAMS];
	int ctl;
	int apps[MAX_APPS];
	unsigned n_apps;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: prismd --config FILE.yaml [--nic-threads N] [--quiet]\n\n"
	           "A software NIC in its own process: serves the configured .chain programs\n"
	           "to TCP clients and maps the regions applications share on the control\n"
	           "socket, so offloads survive the application.\n\n"
	           "options:\n"
	           "  -c, --config FILE    the configuration (YAML; '-' reads standard input)\n"
	           "  -n, --nic-threads N  spread client connections over N software NICs, each\n"
	           "                       with its own thread (overrides nic-threads: of the\n"
	           "                       configuration; default 1)\n"
	           "  -q, --quiet          log warnings and errors only (default: also installs,\n"
	           "                       removals and connections)\n"
	           "  -h, --help           this help\n"
	           "  -V, --version        the version\n\n"
	           "exit status: 0 stopped by a signal, 1 configuration error, 2 usage (or no\n"
	           "such configuration file), 3 start-up failure (device, region, socket, a\n"
	           "configured program that does not load).\n");
}

/* Create a daemon-owned region, from a file's bytes when the config names
 * one; an error is reported at the region's place in the configuration (its
 * 'file' value when the file is at fault). */
static int make_region(struct daemon *d, const struct prismd_region_cfg *rc)
{
	PRISM_OPTS(prism_region_opts, ro, .access = rc->access);
	struct prism_region *r;
	uint64_t size = rc->size;
	FILE *f = NULL;
	struct stat st;
	size_t got;

	if (rc->file) {
		f = fopen(rc->file, "rb");
		if (!f || fstat(fileno(f), &st)) {
			prismd_config_report(&d->cfg, rc->file_pos, stderr,
			                     "region '%s': file '%s': %s", rc->name, rc->file,
			                     strerror(errno));
			if (f)
				fclose(f);
			return -1;
		}
		if (!size) /* 'size' left out: the file's length */
			size = (uint64_t)st.st_size;
		if (!size) {
			prismd_config_report(&d->cfg, rc->file_pos, stderr,
			                     "region '%s': file '%s' is empty and no size is given",
			                     rc->name, rc->file);
			fclose(f);
			return -1;
		}
	}
	r = prism_device__create_region(d->dev, rc->name, size, &ro);
	if (!r) {
		prismd_config_report(&d->cfg, rc->pos, stderr, "region '%s': %s", rc->name,
		                     prism_strerror(-errno));
		if (f)
			fclose(f);
		return -1;
	}
	if (!f)
		return 0;
	got = fread(prism_region__addr(r), 1, size, f);
	if (fgetc(f) != EOF) {
		prismd_config_report(&d->cfg, rc->file_pos, stderr,
		                     "region '%s': file '%s' is larger than its size, %llu bytes",
		                     rc->name, rc->file, (unsigned long long)size);
		fclose(f);
		return -1;
	}
	fclose(f);
	printf("prismd: region '%s': %zu bytes from %s\n", rc->name, got, rc->file);
	return 0;
}

static const struct prismd_region_cfg *find_cfg(const struct daemon *d, const char *name);

/*
 * Does @p wait only for regions an application will share (declared
 * `shared-by-app` and not shared yet)?  Then it loads when they arrive; any
 * other missing region is an error.
 */
static bool waits_for_app(const struct daemon *d, const struct prism_program *p)
{
	for (int i = 0; i < prism_program__region_count(p); i++) {
		struct prism_region_info ri;
		const struct prismd_region_cfg *rc;

		prism_program__region(p, i, &ri);
		if (prism_device__find_region(d->dev, ri.name))
			continue;
		rc = find_cfg(d, ri.name);
		if (!rc || !rc->shared_by_app)
			return false;
	}
	return true;
}

/* The first region @p declares that is not on prismd's device, or NULL. */
static const char *unregistered_region(const struct daemon *d, const struct prism_program *p,
                                       uint64_t *size)
{
	for (int i = 0; i < prism_program__region_count(p); i++) {
		struct prism_region_info ri;

		prism_program__region(p, i, &ri);
		if (!prism_device__find_region(d->dev, ri.name)) {
			*size = ri.size;
			return ri.name;
		}
	}
	return NULL;
}

/*
 * The first region @p declares that the one prismd has does not satisfy:
 * smaller than declared, or configured without an access it needs.  Returns
 * its index in @p's regions, or -1.
 */
static int unsatisfied_region(const struct daemon *d, const struct prism_program *p,
                              struct prism_region_info *ri, size_t *has_size, unsigned *has_acc)
{
	for (int i = 0; i < prism_program__region_count(p); i++) {
		const struct prism_region *r;
		const struct prismd_region_cfg *rc;

		prism_program__region(p, i, ri);
		r = prism_device__find_region(d->dev, ri->name);
		rc = find_cfg(d, ri->name);
		if (!r || !rc)
			continue;
		*has_size = prism_region__size(r);
		*has_acc = rc->access;
		if (*has_size < ri->size || (rc->access & ri->access) != ri->access)
			return i;
	}
	return -1;
}

/*
 * Why configured program @i did not load, at the place of the
 * configuration that lists it: "prismd.yaml:12:5: error: program
 * 'hash_get': ...", the line and a caret under the path.  @why is the
 * library's reason, held while loading ("" when it logged none); a missing
 * or too small region is told in the configuration's terms instead.
 */
static void program_failed(const struct daemon *d, size_t i, const struct prism_program *p, int err,
                           const char *why)
{
	struct prism_region_info ri;
	const char *region;
	uint64_t size = 0;
	unsigned has_acc = 0;
	size_t has = 0;

	if (!p) {
		if (why[0])
			prismd_config_report(&d->cfg, d->cfg.program_pos[i], stderr, "%s", why);
		else
			prismd_config_report(&d->cfg, d->cfg.program_pos[i], stderr,
			                     "program file '%s': %s", d->cfg.programs[i],
			                     prism_strerror(err));
		return;
	}
	region = err == -PRISM_E_NOREGION ? unregistered_region(d, p, &size) : NULL;
	if (err == -PRISM_E_REGION && unsatisfied_region(d, p, &ri, &has, &has_acc) >= 0) {
		char hw[32], ww[32];
		const struct prismd_region_cfg *rc = find_cfg(d, ri.name);

		prismd_config_report(&d->cfg, d->cfg.program_pos[i], stderr,
		                     "program '%s': region '%s' is %zu bytes with access %s; the "
		                     "program declares %llu bytes with access %s",
		                     prism_program__name(p), ri.name, has,
		                     prismd_access_words(has_acc, hw, sizeof(hw)),
		                     (unsigned long long)ri.size,
		                     prismd_access_words(ri.access, ww, sizeof(ww)));
		prismd_config_note(&d->cfg, rc->pos, stderr, "region '%s' is configured here",
		                   ri.name);
	} else if (region)
		prismd_config_report(&d->cfg, d->cfg.program_pos[i], stderr,
		                     "program '%s': region '%s' (%llu bytes) is not registered on "
		                     "device %s (declare it under 'regions')",
		                     prism_program__name(p), region, (unsigned long long)size,
		                     d->cfg.device);
	else if (why[0])
		prismd_config_report(&d->cfg, d->cfg.program_pos[i], stderr, "%s", why);
	else
		prismd_config_report(&d->cfg, d->cfg.program_pos[i], stderr, "program '%s': %s",
		                     prism_program__name(p), prism_strerror(err));
}

/*
 * Open, load and install configured program @i, holding the library's error
 * meanwhile (core_log_hold): a failure is then one line, at the place of the
 * configuration (program_failed), and a program that only waits for a
 * region an application will share logs no error: it says which region on
 * standard output, again only when that region changes (a share of
 * another leaves it waiting as it was).  Returns 0 when it is
 * installed, 1 when it waits, -1 when it failed for good.
 */
static int load_program(struct daemon *d, size_t i)
{
	struct core_log_held why;
	struct prism_program *p;
	uint64_t size;
	int err;

	core_log_hold(&why);
	p = prism_program__open_file(d->cfg.programs[i], NULL);
	err = p ? prism_program__load(p, d->dev) : -errno;
	if (err == -PRISM_E_NOREGION && waits_for_app(d, p)) {
		const char *region = unregistered_region(d, p, &size);
		const struct prismd_region_cfg *rc = find_cfg(d, region);

		core_log_release(&why);
		if (d->waits_for[i] != rc)
			printf("prismd: program '%s' (%s) waits for region '%s', which an "
			       "application shares\n",
			       prism_program__name(p), d->cfg.programs[i], region);
		d->waits_for[i] = rc;
		prism_program__close(p);
		return 1;
	}
	if (!err)
		err = prism_server__add_program(d->srv, p);
	core_log_release(&why);
	if (err)
		program_failed(d, i, p, err, why.msg);
	else
		printf("prismd: program '%s' installed (%s, %llu bytes)\n", prism_program__name(p),
		       d->cfg.programs[i], (unsigned long long)prism_program__object_bytes(p));
	prism_program__close(p);
	return err ? -1 : 0;
}

/*
 * Load every program not loaded yet whose regions exist now.  Returns how
 * many failed for good (a bad object, a region nobody will provide): at
 * start-up that stops prismd before it says "ready"; later (after a
 * share) the failure is logged and prismd goes on serving the others.
 * A program that failed is not tried again: a bad object never becomes good.
 */
static unsigned load_programs(struct daemon *d)
{
	unsigned failed = 0;

	for (size_t i = 0; i < d->cfg.n_programs; i++) {
		int rc;

		if (d->loaded[i])
			continue;
		rc = load_program(d, i);
		if (rc <= 0)
			d->loaded[i] = true;
		failed += rc < 0;
	}
	fflush(stdout);
	return failed;
}

static const struct prismd_region_cfg *find_cfg(const struct daemon *d, const char *name)
{
	for (size_t i = 0; i < d->cfg.n_regions; i++)
		if (!strcmp(d->cfg.regions[i].name, name))
			return &d->cfg.regions[i];
	return NULL;
}

static struct shared *find_shared(struct daemon *d, const char *name)
{
	for (unsigned i = 0; i < d->n_shared; i++)
		if (!strcmp(prism_region__name(d->shared[i].r), name))
			return &d->shared[i];
	return NULL;
}

/*
 * A region of this name was shared before.  While its application is
 * attached, nobody else may replace it; once it left, the new sharer (the
 * application restarted) takes the name back: the old region leaves the
 * name table, programs are loaded again on the new one for new connections,
 * and the old one is freed when the last connection using it closes.
 */
static int take_back(struct daemon *d, struct shared *sh, struct core_dctl_rep *rep)
{
	if (sh->app >= 0) {
		snprintf(rep->msg, sizeof(rep->msg),
		         "already shared by an application that is still attached");
		return rep->status = -PRISM_E_EXISTS;
	}
	if (d->n_retired == MAX_SHARED) {
		snprintf(rep->msg, sizeof(rep->msg), "too many replaced regions still in use");
		return rep->status = -PRISM_E_BUSY;
	}
	core_region_retire(sh->r);
	d->retired[d->n_retired++] = sh->r;
	printf("prismd: region '%s': taken back from the application that left\n",
	       prism_region__name(sh->r));
	*sh = d->shared[--d->n_shared];
	for (size_t i = 0; i < d->cfg.n_programs; i++)
		d->loaded[i] = false; /* reloaded on the new region: replace by name */
	return 0;
}

/* Free the regions taken back that no program uses any more. */
static void free_retired(struct daemon *d)
{
	for (unsigned i = d->n_retired; i-- > 0;)
		if (!core_region_in_use(d->retired[i])) {
			prism_region__unregister(d->retired[i]);
			d->retired[i] = d->retired[--d->n_retired];
		}
}

/* SHARE: map the application's memfd and register it under its name. */
static void handle_share(struct daemon *d, int app, const struct core_dctl_req *req, int fd,
                         struct core_dctl_rep *rep)
{
	const struct prismd_region_cfg *rc = find_cfg(d, req->name);
	struct shared *sh = find_shared(d, req->name);
	struct prism_region *r;
	size_t len;
	void *addr;
	int err;

	if (!rc || !rc->shared_by_app) {
		rep->status = -PRISM_E_NOREGION;
		snprintf(rep->msg, sizeof(rep->msg), "the configuration has no shared region '%s'",
		         req->name);
		close(fd);
		return;
	}
	err = core_memfd_map(fd, &len, &addr);
	if (err) {
		rep->status = err;
		snprintf(rep->msg, sizeof(rep->msg), "cannot map it: %s", prism_strerror(err));
		close(fd);
		return;
	}

	if (len < rc->size) {
		rep->status = -PRISM_E_REGION;
		snprintf(rep->msg, sizeof(rep->msg), "%zu bytes; the configuration says %llu", len,
		         (unsigned long long)rc->size);
		munmap(addr, len);
		close(fd);
		return;
	}
	if (sh && take_back(d, sh, rep)) {
		munmap(addr, len);
		close(fd);
		return;
	}
	r = core_region_adopt(d->dev, rc->name, fd, addr, len, rc->access);
	if (!r) {
		rep->status = -errno;
		snprintf(rep->msg, sizeof(rep->msg), "%s", prism_strerror(rep->status));
		munmap(addr, len);
		close(fd);
		return;
	}
	rep->nic_addr = (uintptr_t)addr;
	d->shared[d->n_shared++] = (struct shared){r, app};
	printf("prismd: region '%s': %zu bytes shared by an application\n", rc->name, len);
	load_programs(d);
}

/* One request from an attached application; false when it left. */
static bool serve_app(struct daemon *d, int app)
{
	struct core_dctl_req req;
	struct core_dctl_rep rep = {.magic = CORE_DCTL_MAGIC};
	unsigned nfds;
	int fd = -1, trunc;
	ssize_t n = fdpass_recv(app, &req, sizeof(req), 0, &fd, 1, &nfds, &trunc);

	if (n <= 0) {
		if (n == 0 && nfds)
			close(fd);
		return false;
	}
	req.name[sizeof(req.name) - 1] = 0;
	if (n != (ssize_t)sizeof(req) || req.magic != CORE_DCTL_MAGIC ||
	    req.op != CORE_DCTL_SHARE || nfds != 1 || trunc) {
		rep.status = -PRISM_E_DAEMON;
		snprintf(rep.msg, sizeof(rep.msg), "malformed request");
		if (nfds)
			close(fd);
	} else {
		handle_share(d, app, &req, fd, &rep);
	}
	fflush(stdout);
	return send(app, &rep, sizeof(rep), MSG_NOSIGNAL) == (ssize_t)sizeof(rep);
}

static int open_control(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 16) < 0) {
		fprintf(stderr, "prismd: control socket %s: %s\n", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static void loop(struct daemon *d)
{
	while (!stop) {
		struct pollfd p[MAX_APPS + 1];
		unsigned n = 0;

		free_retired(d);
		if (d->ctl >= 0)
			p[n++] = (struct pollfd){.fd = d->ctl, .events = POLLIN};
		for (unsigned i = 0; i < d->n_apps; i++)
			p[n++] = (struct pollfd){.fd = d->apps[i], .events = POLLIN};
		if (poll(p, n, 200) <= 0)
			continue;
		unsigned base = d->ctl >= 0 ? 1 : 0;

		for (unsigned i = d->n_apps; i-- > 0;) {
			if (!(p[base + i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (!serve_app(d, d->apps[i])) {
				/* its regions keep serving, and may be taken back */
				for (unsigned k = 0; k < d->n_shared; k++)
					if (d->shared[k].app == d->apps[i])
						d->shared[k].app = -1;
				close(d->apps[i]);
				d->apps[i] = d->apps[--d->n_apps];
			}
		}
		if (base && (p[0].revents & POLLIN)) {
			int a = accept4(d->ctl, NULL, NULL, SOCK_CLOEXEC);

			if (a >= 0 && d->n_apps < MAX_APPS)
				d->apps[d->n_apps++] = a;
			else if (a >= 0)
				close(a);
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"nic-threads", required_argument, NULL, 'n'},
	    {"quiet", no_argument, NULL, 'q'},
	    {NULL, 0, NULL, 0},
	};
	struct daemon d = {.ctl = -1};
	const char *config = NULL;
	uint64_t nic_threads = 0;
	bool quiet = false;
	char err[2048]; /* the message, the line and the caret */
	struct cli c;
	int rc = 3, ch;

	cli_init(&c, "prismd", argc, argv, "c:n:q", longopts, usage);
	while ((ch = cli_next(&c)) != -1) {
		switch (ch) {
		case CLI_STOP:
			return c.exit;
		case 'c':
			config = optarg;
			break;
		case 'n':
			if (cli_uint(&c, optarg, 1, PRISMD_MAX_NIC_THREADS, &nic_threads))
				return CLI_EXIT_USAGE;
			break;
		case 'q':
			quiet = true;
			break;
		}
	}
	if (optind < argc)
		return cli_usage(&c, "unexpected argument '%s'", argv[optind]);
	if (!config)
		return cli_usage(&c, "--config FILE is required");
	rc = prismd_config_load(config, &d.cfg, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s\n", err); /* starts with the file's name */
		if (rc == -PRISM_E_CONFIG)
			return CLI_EXIT_ERRORS;
		return cli_open_exit(-rc) == CLI_EXIT_USAGE ? CLI_EXIT_USAGE : 3;
	}
	rc = 3;
	if (nic_threads) /* the command line wins over the file */
		d.cfg.nic_threads = (unsigned)nic_threads;
	prism_set_log_fn(prism_log_stderr, NULL,
	                 getenv("PRISMD_DEBUG") ? PRISM_LOG_DEBUG
	                 : quiet                ? PRISM_LOG_WARN
	                                        : PRISM_LOG_INFO);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	PRISM_OPTS(prism_device_opts, dopts, .profile = d.cfg.profile, .firmware = d.cfg.firmware,
	           .nic_threads = d.cfg.nic_threads);
	d.dev = prism_device__open(d.cfg.device, &dopts);
	if (!d.dev) {
		fprintf(stderr, "prismd: device '%s': %s\n", d.cfg.device, prism_strerror(-errno));
		goto out;
	}
	for (size_t i = 0; i < d.cfg.n_regions; i++)
		if (!d.cfg.regions[i].shared_by_app && make_region(&d, &d.cfg.regions[i]))
			goto out;
	PRISM_OPTS(prism_server_opts, sopts, .host = d.cfg.host, .port = d.cfg.port,
	           .rearm = (enum prism_rearm)d.cfg.rearm, .max_conns = d.cfg.max_conns,
	           .allow_post = d.cfg.allow_post, .post_socket = d.cfg.post_socket,
	           .post_uids = d.cfg.n_post_uids ? d.cfg.post_uids : NULL,
	           .n_post_uids = d.cfg.n_post_uids,
	           .max_conns_per_peer = d.cfg.max_conns_per_peer);
	d.srv = prism_server__create(d.dev, &sopts);
	if (!d.srv) {
		fprintf(stderr, "prismd: server: %s\n", prism_strerror(-errno));
		goto out;
	}
	if (load_programs(&d)) {
		fprintf(stderr, "prismd: a configured program did not load; not starting\n");
		goto out;
	}
	if (d.cfg.control && (d.ctl = open_control(d.cfg.control)) < 0)
		goto out;
	if (prism_server__start(d.srv)) {
		fprintf(stderr, "prismd: cannot listen on port %d\n", d.cfg.port);
		goto out;
	}
	printf("prismd: ready port=%u nic-threads=%d\n", prism_server__port(d.srv),
	       prism_device__nic_threads(d.dev));
	fflush(stdout);
	loop(&d);
	rc = 0;
out:
	for (unsigned i = 0; i < d.n_apps; i++)
		close(d.apps[i]);
	if (d.ctl >= 0) {
		close(d.ctl);
		unlink(d.cfg.control);
	}
	prism_server__destroy(d.srv);
	for (unsigned i = 0; i < d.n_retired; i++)
		prism_region__unregister(d.retired[i]);
	prism_device__close(d.dev);
	prismd_config_free(&d.cfg);
	return rc;
}
