/* SPDX-License-Identifier: MIT */
/*
 * tests/sim/test_mrkeys.c - a QP's key memos (sim_mr_check: per use of
 * registered memory, the key last granted and its region's range) never
 * outlive what they stand for (rules mr-local-protection-error,
 * mr-remote-access-error, pd-keys, docs/nic-model.md):
 *   - a deregistered key fails every use a QP had granted it (a gather, an
 *     inbound WRITE);
 *   - the same key registered again names the new region only: another
 *     range, another PD, fewer rights;
 *   - a key granted for one use grants no other (a gather's key without
 *     LOCAL_WRITE does not take a READ's data; an inbound READ's key
 *     without REMOTE_WRITE does not take a WRITE).
 * Registering the same key again needs the key drawn to be that key: this
 * suite's getrandom(2) hands out a key the test chooses once (the sim's
 * only getrandom caller is its key draw), the kernel's otherwise.
 *
 * Owns: these checks.  Must not: time anything.
 */
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/sim/sim_env.h"

static uint32_t forced_key; /* the next key drawn (0: the kernel's) */

ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
	if (forced_key && len == sizeof(forced_key)) {
		memcpy(buf, &forced_key, sizeof(forced_key));
		forced_key = 0;
		return (ssize_t)len;
	}
	return syscall(SYS_getrandom, buf, len, flags);
}

/* The fixture and a 256-byte region x of its own (key xkey, MR xmr). */
struct keys {
	struct env *e;
	uint8_t *x;
	struct sim_mr *xmr;
	uint32_t xkey;
};

static struct keys *keys_make(unsigned access)
{
	struct keys *k = test_calloc(1, sizeof(*k));

	k->e = env_make(SIM_FW_RELAXED, SIM_HAZARD_OFF, false, 0, 0);
	k->x = aligned_alloc(64, 256);
	memset(k->x, 0x5a, 256);
	assert_int_equal(sim_mr_reg(k->e->dev, k->x, 256, access, &k->xmr), 0);
	k->xkey = sim_mr_lkey(k->xmr);
	return k;
}

static void keys_free(struct keys *k)
{
	env_free(k->e);
	free(k->x);
	test_free(k);
}

static void deregister(struct keys *k)
{
	assert_int_equal(sim_mr_dereg(k->xmr), 0);
	k->xmr = NULL;
}

/* x's MR goes and the same key is registered again over [@addr, @addr +
 * @len) with @access, in @pd (NULL: the device's default PD). */
static void reregister(struct keys *k, struct sim_pd *pd, void *addr, size_t len, unsigned access)
{
	struct sim_mr *mr;

	deregister(k);
	forced_key = k->xkey;
	if (pd)
		assert_int_equal(sim_mr_reg_pd(pd, addr, len, access, &mr), 0);
	else
		assert_int_equal(sim_mr_reg(k->e->dev, addr, len, access, &mr), 0);
	assert_int_equal(sim_mr_lkey(mr), k->xkey);
}

/* Posts @w on a, runs the device, returns a's one CQE. */
static struct prism_cqe run_a(struct env *e, struct prism_wqe *w)
{
	hx_post(&e->a, w);
	hx_ring(&e->a);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
	return hx_expect(&e->cq_a);
}

static void expect(struct prism_cqe c, uint8_t synd)
{
	if (!synd) {
		assert_int_equal(c.opcode, PRISM_CQE_REQ);
		return;
	}
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, synd);
}

/* a WRITEs 16 bytes gathered from @laddr (@lkey) into b's dst. */
static struct prism_cqe write_from(struct keys *k, uintptr_t laddr, uint32_t lkey)
{
	struct prism_wqe w;

	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)k->e->dst, k->e->dst_key, laddr, lkey, 16, true);
	return run_a(k->e, &w);
}

/* a WRITEs 16 bytes of its src into @raddr (@rkey), served by b. */
static struct prism_cqe write_to(struct keys *k, uintptr_t raddr, uint32_t rkey)
{
	struct prism_wqe w;

	hx_rw(&w, PRISM_OP_RDMA_WRITE, raddr, rkey, (uintptr_t)k->e->src, k->e->src_key, 16, true);
	return run_a(k->e, &w);
}

/* a READs 16 bytes of b's src into @laddr (@lkey). */
static struct prism_cqe read_into(struct keys *k, uintptr_t laddr, uint32_t lkey)
{
	struct prism_wqe w;

	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)k->e->src, k->e->src_key, laddr, lkey, 16, true);
	return run_a(k->e, &w);
}

/* a READs 16 bytes of @raddr (@rkey), served by b, into its dst. */
static struct prism_cqe read_from(struct keys *k, uintptr_t raddr, uint32_t rkey)
{
	struct prism_wqe w;

	hx_rw(&w, PRISM_OP_RDMA_READ, raddr, rkey, (uintptr_t)k->e->dst, k->e->dst_key, 16, true);
	return run_a(k->e, &w);
}

static void test_dereg_forgets_every_use(void **state)
{
	struct keys *k = keys_make(CONF_ALL);

	(void)state;
	/* a's gather memo */
	expect(write_from(k, (uintptr_t)k->x, k->xkey), 0);
	assert_int_equal(k->e->dst[0], 0x5a);
	memset(k->e->dst, 0, 16);
	deregister(k);
	expect(write_from(k, (uintptr_t)k->x, k->xkey), PRISM_SYND_LOCAL_PROT_ERR);
	assert_int_equal(k->e->dst[0], 0);
	keys_free(k);

	/* b's inbound-WRITE memo */
	k = keys_make(CONF_ALL);
	expect(write_to(k, (uintptr_t)k->x, k->xkey), 0);
	assert_memory_equal(k->x, k->e->src, 16);
	memset(k->x, 0x5a, 16);
	deregister(k);
	expect(write_to(k, (uintptr_t)k->x, k->xkey), PRISM_SYND_REMOTE_ACCESS_ERR);
	assert_int_equal(k->x[0], 0x5a);
	keys_free(k);
}

static void test_same_key_other_range(void **state)
{
	static uint8_t y[64];
	struct keys *k = keys_make(CONF_ALL);

	(void)state;
	expect(write_from(k, (uintptr_t)k->x, k->xkey), 0);
	reregister(k, NULL, y, sizeof(y), CONF_ALL);
	expect(write_from(k, (uintptr_t)k->x, k->xkey), PRISM_SYND_LOCAL_PROT_ERR);
	keys_free(k);

	/* the new range is granted under the key */
	k = keys_make(CONF_ALL);
	expect(write_from(k, (uintptr_t)k->x, k->xkey), 0);
	reregister(k, NULL, y, sizeof(y), CONF_ALL);
	memset(y, 0x77, 16);
	expect(write_from(k, (uintptr_t)y, k->xkey), 0);
	assert_int_equal(k->e->dst[0], 0x77);
	keys_free(k);
}

static void test_same_key_other_pd(void **state)
{
	struct keys *k = keys_make(CONF_ALL);
	struct sim_pd *pd2;

	(void)state;
	expect(read_into(k, (uintptr_t)k->x, k->xkey), 0);
	assert_memory_equal(k->x, k->e->src, 16);
	memset(k->x, 0x5a, 16);
	assert_int_equal(sim_pd_alloc(k->e->dev, &pd2), 0);
	reregister(k, pd2, k->x, 256, CONF_ALL);
	expect(read_into(k, (uintptr_t)k->x, k->xkey), PRISM_SYND_LOCAL_PROT_ERR);
	assert_int_equal(k->x[0], 0x5a);
	keys_free(k);
}

static void test_same_key_fewer_rights(void **state)
{
	struct keys *k = keys_make(CONF_ALL);
	struct prism_wqe w;

	(void)state;
	/* a READ's scatter, then the same key without LOCAL_WRITE */
	expect(read_into(k, (uintptr_t)k->x, k->xkey), 0);
	memset(k->x, 0x5a, 16);
	reregister(k, NULL, k->x, 256, SIM_ACCESS_REMOTE_READ);
	expect(read_into(k, (uintptr_t)k->x, k->xkey), PRISM_SYND_LOCAL_PROT_ERR);
	assert_int_equal(k->x[0], 0x5a);
	keys_free(k);

	/* an inbound atomic, then the same key without REMOTE_ATOMIC */
	k = keys_make(CONF_ALL);
	memset(k->x, 0, 8);
	hx_atomic(&w, PRISM_OP_ATOMIC_FA, (uintptr_t)k->x, k->xkey, 1, 0, (uintptr_t)k->e->dst,
	          k->e->dst_key, true);
	expect(run_a(k->e, &w), 0);
	assert_int_equal(k->x[0], 1);
	reregister(k, NULL, k->x, 256, CONF_RW);
	hx_atomic(&w, PRISM_OP_ATOMIC_FA, (uintptr_t)k->x, k->xkey, 1, 0, (uintptr_t)k->e->dst,
	          k->e->dst_key, true);
	expect(run_a(k->e, &w), PRISM_SYND_REMOTE_ACCESS_ERR);
	assert_int_equal(k->x[0], 1);
	keys_free(k);
}

static void test_uses_kept_apart(void **state)
{
	struct keys *k = keys_make(SIM_ACCESS_REMOTE_READ); /* no LOCAL_WRITE */

	(void)state;
	/* granted as a's gather source, not as its READ's scatter target */
	expect(write_from(k, (uintptr_t)k->x, k->xkey), 0);
	expect(read_into(k, (uintptr_t)k->x, k->xkey), PRISM_SYND_LOCAL_PROT_ERR);
	assert_int_equal(k->x[0], 0x5a);
	keys_free(k);

	/* granted for b's inbound READ, not for an inbound WRITE */
	k = keys_make(SIM_ACCESS_REMOTE_READ);
	expect(read_from(k, (uintptr_t)k->x, k->xkey), 0);
	assert_int_equal(k->e->dst[0], 0x5a);
	expect(write_to(k, (uintptr_t)k->x, k->xkey), PRISM_SYND_REMOTE_ACCESS_ERR);
	assert_int_equal(k->x[0], 0x5a);
	keys_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dereg_forgets_every_use),
	    cmocka_unit_test(test_same_key_other_range),
	    cmocka_unit_test(test_same_key_other_pd),
	    cmocka_unit_test(test_same_key_fewer_rights),
	    cmocka_unit_test(test_uses_kept_apart),
	};

	return cmocka_run_group_tests_name("sim_mrkeys", tests, NULL, NULL);
}
