/* SPDX-License-Identifier: MIT */
/*
 * test_daemon.c - daemon mode end to end (RedN section 5.6): prismd runs the
 * software NIC in its own process; an application process shares its hash
 * table with it through a memfd; a client (this process) invokes gets over
 * TCP; the application is killed with SIGKILL while clients are served, and
 * every later invocation still succeeds and matches the reference; the same
 * with prismd running two NIC threads (connections on both).  Also
 * prismd's configuration errors and a region share the config does not allow;
 * a program waiting for the application's region is no error;
 * a memfd not sealed against shrinking is refused; a restarted application
 * takes its regions back.
 *
 * Every body runs on the sim and on mlx5 over the PRM emulator: there
 * prismd runs `device: mlx5_0` with the emulator loaded from
 * libprism-mlx5emu.so (PRISM_MLX5_GLUE), this process's client has its own
 * emulated NIC, and the two NICs meet on the emulator's cross-process
 * fabric (tests/mlx5emu).  The application shares memfds and needs no NIC.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <prism/prism.h>

#include "chain/chainobj.h"
#include "core/daemon_proto.h"
#include "tests/runtime/support/child_proc.h"
#include "tests/runtime/support/fabric_dev.h"
#include "tests/runtime/support/hashget_chain.h"
#include "tests/support/backend_filter.h"
#include "util/fdpass.h"

#define NB         512u
#define TABLE_SIZE (NB * (HG_BUCKET_BYTES + HG_VALUE_BYTES) + 4096u)

static char prismd[512], emu_so[600], tmp[64], cfg_path[128], sock_path[128], chain_path[128],
    fabric[128], emu_opts[160];
static uint32_t keys[NB];

/* The backend under test (prismd's device and this process's). */
struct backend {
	const char *group;
	const char *dev;
	bool emulated; /* mlx5 over the emulator, prismd and client on one fabric */
};
static const struct backend *g_be;

/* The client's device: on mlx5, its own emulated NIC on the fabric. */
static struct prism_device *open_dev(void)
{
	return fabric_dev_open(g_be->dev, g_be->emulated, 4, fabric);
}

static void close_dev(struct prism_device *dev)
{
	fabric_dev_close(dev, g_be->emulated);
}

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

static void write_config(const char *extra_region)
{
	char text[2048];
	int n = snprintf(text, sizeof(text),
	                 "device: %s\n%slisten: 127.0.0.1:0\ncontrol: %s\n"
	                 "regions:\n  - {name: table, size: %u, access: [read], "
	                 "shared-by-app: true}\n%sprograms:\n  - %s\n",
	                 g_be->dev, g_be->emulated ? "firmware: relaxed\n" : "profile: cx5\n",
	                 sock_path, TABLE_SIZE, extra_region, chain_path);

	write_file(cfg_path, text, (size_t)n);
}

/* Start prismd (with `--nic-threads @nic` unless NULL), its standard output
 * into @out and, unless -1, its standard error into @err. */
static pid_t spawn_prismd(const char *nic, int out, int err)
{
	pid_t pid = child_fork(); /* the death signal survives the exec */

	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(out, 1);
		if (err >= 0)
			dup2(err, 2);
		if (g_be->emulated) { /* prismd's NIC: the emulator, on the fabric */
			setenv("PRISM_MLX5_GLUE", emu_so, 1);
			setenv("PRISM_MLX5EMU", emu_opts, 1);
		}
		if (nic)
			execl(prismd, prismd, "--config", cfg_path, "--nic-threads", nic,
			      (char *)NULL);
		else
			execl(prismd, prismd, "--config", cfg_path, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Read @out's lines until "prismd: ready"; the port and NIC threads it
 * reports, and unless NULL the lines before it in @said. */
static void wait_ready(FILE *out, uint16_t *port, unsigned *nics, char *said, size_t cap)
{
	char line[256];
	size_t n = 0;

	*port = 0;
	*nics = 0;
	while (fgets(line, sizeof(line), out)) {
		if (sscanf(line, "prismd: ready port=%hu nic-threads=%u", port, nics) >= 1)
			break;
		if (said)
			n += (size_t)snprintf(said + n, cap - n, "%s", line);
		if (n >= cap)
			n = cap - 1;
	}
	if (said)
		said[n] = 0;
}

/* Start prismd (with `--nic-threads @nic` unless NULL); return its pid, the
 * port it serves on and the NIC threads it reports. */
static pid_t start_prismd_nics(uint16_t *port, const char *nic, unsigned *nics)
{
	int p[2];
	pid_t pid;
	FILE *out;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid = spawn_prismd(nic, p[1], -1);
	close(p[1]);
	out = fdopen(p[0], "r");
	wait_ready(out, port, nics, NULL, 0);
	/* prismd keeps writing; drain in the background is not needed (small output). */
	fclose(out);
	return pid;
}

static pid_t start_prismd(uint16_t *port)
{
	unsigned nics;

	return start_prismd_nics(port, NULL, &nics);
}

/* The application: owns the table (values from @seed), shares it with
 * prismd, then idles.  Returns its pid once shared, or -1 when the share
 * was refused. */
static pid_t start_app_seeded(uint64_t seed)
{
	int p[2];
	pid_t pid;
	char ok = 0;

	assert_int_equal(pipe(p), 0);
	pid = child_fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		struct prism_device *dev = prism_device__open("sim", NULL);
		struct prism_region *r =
		    dev ? prism_device__create_region(dev, "table", TABLE_SIZE, NULL) : NULL;
		struct prism_daemon *d = r ? prism_daemon__attach(sock_path) : NULL;

		if (!d || prism_daemon__share_region(d, r)) {
			ok = 2;
			if (write(p[1], &ok, 1) != 1)
				_exit(2);
			_exit(1);
		}
		struct hg_table t = {prism_region__addr(r), TABLE_SIZE, NB};

		/* Pointers inside the table are the NIC's (prismd's) addresses. */
		hg_fill(&t, keys, prism_region__nic_addr(r), seed);
		ok = 1;
		if (write(p[1], &ok, 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	close(p[1]);
	assert_int_equal(read(p[0], &ok, 1), 1);
	close(p[0]);
	if (ok == 2) {
		child_wait(pid);
		return -1;
	}
	return pid;
}

static pid_t start_app(void)
{
	pid_t pid = start_app_seeded(5);

	assert_true(pid > 0);
	return pid;
}

static int get(struct prism_client *cl, uint32_t key, uint32_t b, uint8_t *out)
{
	struct prism_arg args[2];
	struct prism_call c;

	hg_get_call(&c, args, key, b, out);
	return prism_client__invoke(cl, &c, NULL);
}

static void check_gets(struct prism_client *cl, const struct hg_table *ref, uint64_t *s, int n)
{
	for (int i = 0; i < n; i++) {
		uint8_t out[HG_VALUE_BYTES + 8], want[HG_VALUE_BYTES];
		uint32_t b, key;

		*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
		b = (uint32_t)(*s % NB);
		key = (*s >> 40) % 3 ? (keys[b] ? keys[b] : 3) : (uint32_t)(*s >> 20) & 0xffffff;
		int rc = get(cl, key, b, out);
		if (rc)
			fail_msg("get #%d: %s", i, prism_strerror(rc));
		hg_reference(ref, b, key, want);
		if (memcmp(out, want, HG_VALUE_BYTES))
			fail_msg("get #%d (bucket %u): differs from the reference", i, b);
	}
}

static void test_offload_survives_application_crash(void **state)
{
	static uint8_t local[TABLE_SIZE];
	struct hg_table ref = {local, TABLE_SIZE, NB};
	struct prism_device *dev;
	struct prism_client *cl;
	uint16_t port;
	pid_t d, app;
	char addr[32];
	int st;
	uint64_t s = 9;

	(void)state;
	hg_fill(&ref, keys, 0, 5);
	write_config("");
	d = start_prismd(&port);
	assert_int_not_equal(port, 0);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	dev = open_dev();
	assert_non_null(dev);
	/* Before the application shares its table the program is not installed. */
	assert_null(prism_client__connect(dev, addr, NULL));
	app = start_app();
	cl = prism_client__connect(dev, addr, NULL);
	assert_non_null(cl);
	check_gets(cl, &ref, &s, 2000);
	/* kill -9 the application while this client is connected. */
	assert_int_equal(kill(app, SIGKILL), 0);
	st = child_wait(app);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	check_gets(cl, &ref, &s, 2000);
	prism_client__close(cl);
	/* New clients too. */
	cl = prism_client__connect(dev, addr, NULL);
	assert_non_null(cl);
	check_gets(cl, &ref, &s, 500);
	prism_client__close(cl);
	close_dev(dev);
	kill(d, SIGTERM);
	st = child_wait(d);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* prismd with two NIC threads: clients land on both; the table the
 * application shares after start is reachable from both; the application's
 * death disturbs neither. */
static void test_two_nic_threads_share_the_table(void **state)
{
	static uint8_t local[TABLE_SIZE];
	struct hg_table ref = {local, TABLE_SIZE, NB};
	struct prism_device *dev;
	struct prism_client *cl[3];
	unsigned nics;
	uint16_t port;
	pid_t d, app;
	char addr[32];
	int st;
	uint64_t s = 21;

	(void)state;
	hg_fill(&ref, keys, 0, 5);
	write_config("");
	d = start_prismd_nics(&port, "2", &nics);
	assert_int_not_equal(port, 0);
	assert_int_equal(nics, 2);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	app = start_app();
	dev = open_dev();
	assert_non_null(dev);
	for (int i = 0; i < 3; i++) { /* shards 0, 1, 0 on prismd's side */
		cl[i] = prism_client__connect(dev, addr, NULL);
		assert_non_null(cl[i]);
	}
	for (int i = 0; i < 3; i++)
		check_gets(cl[i], &ref, &s, 300);
	assert_int_equal(kill(app, SIGKILL), 0);
	st = child_wait(app);
	assert_true(WIFSIGNALED(st));
	prism_client__close(cl[1]); /* shard 1 empties; the others go on */
	check_gets(cl[0], &ref, &s, 300);
	check_gets(cl[2], &ref, &s, 300);
	cl[1] = prism_client__connect(dev, addr, NULL); /* back on shard 1 */
	assert_non_null(cl[1]);
	check_gets(cl[1], &ref, &s, 300);
	for (int i = 0; i < 3; i++)
		prism_client__close(cl[i]);
	close_dev(dev);
	kill(d, SIGTERM);
	st = child_wait(d);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* This process as an application of prismd: its device, attached to
 * prismd's control socket. */
struct sharer {
	struct prism_device *dev;
	struct prism_daemon *dm;
};

static void sharer_open(struct sharer *sh)
{
	sh->dev = open_dev();
	assert_non_null(sh->dev);
	sh->dm = prism_daemon__attach(sock_path);
	assert_non_null(sh->dm);
}

/* Share a new region @name of @size bytes; prismd's answer (given once it
 * handled the share). */
static int sharer_share(struct sharer *sh, const char *name, size_t size)
{
	struct prism_region *r = prism_device__create_region(sh->dev, name, size, NULL);

	assert_non_null(r);
	return prism_daemon__share_region(sh->dm, r);
}

static void sharer_close(struct sharer *sh)
{
	prism_daemon__detach(sh->dm);
	close_dev(sh->dev);
}

/* What is left of @f, up to @cap - 1 bytes, NUL-terminated. */
static void read_rest(FILE *f, char *buf, size_t cap)
{
	size_t n = 0, got;

	while (n < cap - 1 && (got = fread(buf + n, 1, cap - 1 - n, f)) > 0)
		n += got;
	buf[n] = 0;
}

/*
 * A program that waits for the region an application shares is not an
 * error: prismd says so on its standard output before "ready", logs no error
 * (it did: the loader's "region 'table' ... is not registered"), and
 * installs the program when the region arrives.  A share of a region it
 * does not need leaves it waiting, and prismd does not say so again (it
 * did, after every share).
 */
static void test_waiting_program_is_no_error(void **state)
{
	char said[2048], logged[8192], want[512];
	int out[2], err[2], st;
	struct sharer sh;
	FILE *fo, *fe;
	unsigned nics;
	uint16_t port;
	pid_t d;

	(void)state;
	write_config("  - {name: other, size: 4096, access: [read], shared-by-app: true}\n");
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_int_equal(pipe2(err, O_CLOEXEC), 0);
	d = spawn_prismd(NULL, out[1], err[1]);
	close(out[1]);
	close(err[1]);
	fo = fdopen(out[0], "r");
	fe = fdopen(err[0], "r");
	wait_ready(fo, &port, &nics, said, sizeof(said));
	assert_int_not_equal(port, 0);
	snprintf(want, sizeof(want),
	         "prismd: program 'hash_get' (%s) waits for region 'table', which an application "
	         "shares\n",
	         chain_path);
	if (strcmp(said, want))
		fail_msg("before ready, wanted \"%s\", got \"%s\"", want, said);
	sharer_open(&sh);
	assert_int_equal(sharer_share(&sh, "other", 4096), 0);
	start_app(); /* prismd answers the share once it loaded the program */
	kill(d, SIGTERM);
	read_rest(fo, said, sizeof(said));
	read_rest(fe, logged, sizeof(logged));
	fclose(fo);
	fclose(fe);
	st = child_wait(d);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	sharer_close(&sh);
	if (strstr(logged, "error:"))
		fail_msg("prismd logged an error:\n%s", logged);
	assert_non_null(strstr(logged, "program 'hash_get': loaded on "));
	/* after ready: the two shares and the install, nothing else */
	snprintf(want, sizeof(want),
	         "prismd: region 'other': 4096 bytes shared by an application\n"
	         "prismd: region 'table': %u bytes shared by an application\n"
	         "prismd: program 'hash_get' installed (%s, ",
	         TABLE_SIZE, chain_path);
	if (strncmp(said, want, strlen(want)) ||
	    strchr(said + strlen(want), '\n') != said + strlen(said) - 1)
		fail_msg("after ready, wanted \"%s...\" and no more lines, got:\n%s", want, said);
}

static void test_config_error_exit_status(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	write_file(cfg_path, "devize: sim\n", 12);
	pid = child_fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", 1);

		dup2(null, 2);
		execl(prismd, prismd, "--config", cfg_path, (char *)NULL);
		_exit(127);
	}
	st = child_wait(pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);
}

static void test_share_of_undeclared_region_refused(void **state)
{
	struct sharer sh;
	uint16_t port;
	pid_t d;
	int st;

	(void)state;
	write_config("");
	d = start_prismd(&port);
	sharer_open(&sh);
	assert_int_equal(sharer_share(&sh, "secrets", 4096), -PRISM_E_NOREGION);
	/* A region smaller than declared is refused too. */
	assert_int_equal(sharer_share(&sh, "table", 64), -PRISM_E_REGION);
	sharer_close(&sh);
	kill(d, SIGTERM);
	st = child_wait(d);
	assert_true(WIFEXITED(st));
}

/* Share @fd as region "table" by hand (what prism_daemon__share_region sends). */
static int share_raw(int fd)
{
	struct core_dctl_req req = {.magic = CORE_DCTL_MAGIC,
	                            .op = CORE_DCTL_SHARE,
	                            .size = TABLE_SIZE,
	                            .access = PRISM_ACCESS_READ};
	struct core_dctl_rep rep;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	assert_true(s >= 0);
	assert_true(strlen(sock_path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, sock_path, strlen(sock_path) + 1);
	assert_int_equal(connect(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	snprintf(req.name, sizeof(req.name), "table");
	assert_int_equal(fdpass_send(s, &req, sizeof(req), &fd, 1), 0);
	assert_int_equal(recv(s, &rep, sizeof(rep), 0), (ssize_t)sizeof(rep));
	close(s);
	return rep.status;
}

/* A memfd prismd would map while its sender can still shrink it (a truncate
 * would SIGBUS prismd) is refused; prismd goes on and takes a sealed one. */
static void test_unsealed_memfd_refused(void **state)
{
	struct prism_device *dev;
	struct prism_client *cl;
	static uint8_t local[TABLE_SIZE];
	struct hg_table ref = {local, TABLE_SIZE, NB};
	uint16_t port;
	char addr[32];
	uint64_t s = 3;
	pid_t d;
	int fd, st;

	(void)state;
	hg_fill(&ref, keys, 0, 5);
	write_config("");
	d = start_prismd(&port);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	fd = memfd_create("unsealed", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, TABLE_SIZE), 0);
	assert_int_equal(share_raw(fd), -PRISM_E_UNSEALED);
	/* sealed against growing only: still shrinkable, still refused */
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_GROW), 0);
	assert_int_equal(share_raw(fd), -PRISM_E_UNSEALED);
	assert_int_equal(ftruncate(fd, 0), 0); /* what would have crashed prismd */
	close(fd);
	start_app();
	dev = open_dev();
	assert_non_null(dev);
	cl = prism_client__connect(dev, addr, NULL);
	assert_non_null(cl);
	check_gets(cl, &ref, &s, 200);
	prism_client__close(cl);
	close_dev(dev);
	kill(d, SIGTERM);
	st = child_wait(d);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* The application restarts: while it lives nobody else may share its table's
 * name; once it died, its successor takes the name back and new clients are
 * served from the new table, while a client connected before keeps the old. */
static void test_restarted_application_takes_regions_back(void **state)
{
	static uint8_t old_img[TABLE_SIZE], new_img[TABLE_SIZE];
	struct hg_table old_ref = {old_img, TABLE_SIZE, NB}, new_ref = {new_img, TABLE_SIZE, NB};
	struct prism_device *dev;
	struct prism_client *before, *after;
	uint16_t port;
	char addr[32];
	uint64_t s = 4;
	pid_t d, app, app2;
	int st;

	(void)state;
	hg_fill(&old_ref, keys, 0, 5);
	hg_fill(&new_ref, keys, 0, 6);
	write_config("");
	d = start_prismd(&port);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	dev = open_dev();
	assert_non_null(dev);
	app = start_app_seeded(5);
	assert_true(app > 0);
	before = prism_client__connect(dev, addr, NULL);
	assert_non_null(before);
	check_gets(before, &old_ref, &s, 100);
	/* a second application while the first is attached: refused */
	assert_int_equal(start_app_seeded(6), -1);
	kill(app, SIGKILL);
	child_wait(app);
	/* the restarted one takes "table" back (was: "already exists") */
	app2 = start_app_seeded(6);
	assert_true(app2 > 0);
	after = prism_client__connect(dev, addr, NULL);
	assert_non_null(after);
	check_gets(after, &new_ref, &s, 200);
	check_gets(before, &old_ref, &s, 100);
	prism_client__close(before);
	prism_client__close(after);
	close_dev(dev);
	kill(d, SIGTERM);
	st = child_wait(d);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    /* the teardown kills and reaps prismd and the application, failed or not */
	    cmocka_unit_test_teardown(test_offload_survives_application_crash, child_teardown),
	    cmocka_unit_test_teardown(test_two_nic_threads_share_the_table, child_teardown),
	    cmocka_unit_test_teardown(test_waiting_program_is_no_error, child_teardown),
	    cmocka_unit_test_teardown(test_config_error_exit_status, child_teardown),
	    cmocka_unit_test_teardown(test_share_of_undeclared_region_refused, child_teardown),
	    cmocka_unit_test_teardown(test_unsealed_memfd_refused, child_teardown),
	    cmocka_unit_test_teardown(test_restarted_application_takes_regions_back,
	                              child_teardown),
	};
	char self[512];
	struct chainobj *o;
	char *yaml;
	size_t len;
	uint64_t s = 77;
	int rc;

	(void)argc;
	snprintf(self, sizeof(self), "%s", argv[0]);
	snprintf(prismd, sizeof(prismd), "%s/../prismd", dirname(self));
	snprintf(tmp, sizeof(tmp), "/tmp/prism-daemon-XXXXXX");
	if (!mkdtemp(tmp))
		return 1;
	snprintf(cfg_path, sizeof(cfg_path), "%s/server.yaml", tmp);
	snprintf(sock_path, sizeof(sock_path), "%s/ctl.sock", tmp);
	snprintf(chain_path, sizeof(chain_path), "%s/hash_get.chain", tmp);
	for (uint32_t i = 0; i < NB; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		keys[i] = (i % 4 == 3) ? 0 : (uint32_t)(s & 0xffffff) | 1;
	}
	o = hg_build(TABLE_SIZE);
	if (!o || chainobj_write_mem(o, 0, &yaml, &len, NULL))
		return 1;
	chainobj_free(o);
	FILE *f = fopen(chain_path, "wb");
	if (!f || fwrite(yaml, 1, len, f) != len)
		return 1;
	fclose(f);
	free(yaml);
	signal(SIGPIPE, SIG_IGN);
	snprintf(emu_so, sizeof(emu_so), "%.*slibprism-mlx5emu.so", (int)(strlen(prismd) - 6),
	         prismd); /* beside prismd */
	snprintf(fabric, sizeof(fabric), "%s/fabric", tmp);
	snprintf(emu_opts, sizeof(emu_opts), "relaxed,fabric=%s", fabric);
	if (mkdir(fabric, 0700))
		return 1;
	static const struct backend backends[] = {
	    {"daemon (sim)", "sim", false},
	    {"daemon (mlx5 over the emulator)", "mlx5_0", true},
	};
	rc = 0;
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		g_be = &backends[i];
		if (!test_backend_selected(g_be->group))
			continue;
		rc += _cmocka_run_group_tests(g_be->group, tests, sizeof(tests) / sizeof(tests[0]),
		                              NULL, NULL);
	}
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	if (system(cmd))
		rc = rc ? rc : 1;
	return rc;
}
