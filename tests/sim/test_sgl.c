/* SPDX-License-Identifier: MIT */
/*
 * tests/sim/test_sgl.c - every entry of a scatter/gather list is checked
 * on its own (rule mr-local-protection-error, docs/nic-model.md): entries
 * that share a key are each held to their bounds, and a later entry with
 * another key is checked in full (its PD, its rights), for a READ's
 * scatter list, a WRITE's gather list and a receive's scatter list.  The
 * engine looks a key up only when the QP's memo for that use names
 * another.
 *
 * Owns: these checks.  Must not: time anything.
 */
#include "tests/sim/sim_env.h"

/* The fixture's a and b (loopback), and regions for the lists: @near at
 * the end of the fixture's src, a region of another PD, and one registered
 * without LOCAL_WRITE. */
struct sgl {
	struct env *e;
	struct sim_pd *pd2;
	uint8_t *other, *ro;
	uint32_t other_key, ro_key;
};

static int sgl_setup(void **state)
{
	struct sgl *s = test_calloc(1, sizeof(*s));
	struct sim_mr *mr;

	s->e = env_make(SIM_FW_RELAXED, SIM_HAZARD_OFF, false, 0, 0);
	s->other = aligned_alloc(64, 64);
	s->ro = aligned_alloc(64, 64);
	memset(s->other, 0x11, 64);
	memset(s->ro, 0x22, 64);
	assert_int_equal(sim_pd_alloc(s->e->dev, &s->pd2), 0);
	assert_int_equal(sim_mr_reg_pd(s->pd2, s->other, 64, CONF_ALL, &mr), 0);
	s->other_key = sim_mr_lkey(mr);
	assert_int_equal(sim_mr_reg(s->e->dev, s->ro, 64, SIM_ACCESS_REMOTE_READ, &mr), 0);
	s->ro_key = sim_mr_lkey(mr);
	*state = s;
	return 0;
}

static int sgl_teardown(void **state)
{
	struct sgl *s = *state;

	env_free(s->e);
	free(s->other);
	free(s->ro);
	test_free(s);
	return 0;
}

/* The second and third entries of a list whose first is 8 good bytes of
 * dst (key dst_key): */
enum tail {
	TAIL_OK,       /* dst + 8, same key; a 4-byte entry of another good key */
	TAIL_PAST_END, /* same key, running 8 bytes past the region's end */
	TAIL_BELOW,    /* same key, starting below the region */
	TAIL_OTHER_PD, /* another key, of another PD */
	TAIL_NO_WRITE, /* another key, without LOCAL_WRITE (a scatter needs it) */
	TAIL_BACK_BAD, /* another good key, then the first key past its end */
};

static unsigned fill_tail(struct sgl *s, enum tail t, struct prism_sge *sge)
{
	struct env *e = s->e;
	uintptr_t dst = (uintptr_t)e->dst;

	sge[0] = (struct prism_sge){.byte_count = 8, .lkey = e->dst_key, .addr = dst};
	switch (t) {
	case TAIL_OK:
		sge[1] = (struct prism_sge){.byte_count = 8, .lkey = e->dst_key, .addr = dst + 8};
		sge[2] = (struct prism_sge){
		    .byte_count = 4, .lkey = e->src_key, .addr = (uintptr_t)e->src + 64};
		return 3;
	case TAIL_PAST_END:
		sge[1] = (struct prism_sge){
		    .byte_count = 16, .lkey = e->dst_key, .addr = dst + 4096 - 8};
		return 2;
	case TAIL_BELOW:
		sge[1] = (struct prism_sge){.byte_count = 8, .lkey = e->dst_key, .addr = dst - 8};
		return 2;
	case TAIL_OTHER_PD:
		sge[1] = (struct prism_sge){
		    .byte_count = 8, .lkey = s->other_key, .addr = (uintptr_t)s->other};
		return 2;
	case TAIL_NO_WRITE:
		sge[1] = (struct prism_sge){
		    .byte_count = 8, .lkey = s->ro_key, .addr = (uintptr_t)s->ro};
		return 2;
	case TAIL_BACK_BAD:
		sge[1] = (struct prism_sge){
		    .byte_count = 8, .lkey = e->src_key, .addr = (uintptr_t)e->src};
		sge[2] =
		    (struct prism_sge){.byte_count = 8, .lkey = e->dst_key, .addr = dst + 4096};
		return 3;
	}
	return 0;
}

static void run(struct env *e, struct hx_qp *q)
{
	hx_ring(q);
	assert_int_equal(sim_dev_run(e->dev, 0), 0);
}

/* A READ of 20 bytes (or of the list's length) into the list. */
static void read_into(struct sgl *s, enum tail t, bool ok)
{
	struct env *e = s->e;
	struct prism_wqe w;
	struct prism_cqe c;
	uint32_t len = 0;

	hx_rw(&w, PRISM_OP_RDMA_READ, (uintptr_t)e->src + 256, e->src_key, 0, 0, 0, true);
	w.num_sge = (uint8_t)fill_tail(s, t, w.sge);
	for (unsigned i = 0; i < w.num_sge; i++)
		len += w.sge[i].byte_count;
	hx_post(&e->a, &w);
	run(e, &e->a);
	c = hx_expect(&e->cq_a);
	if (ok) {
		assert_int_equal(c.opcode, PRISM_CQE_REQ);
		assert_int_equal(c.byte_count, len);
		assert_memory_equal(e->dst, e->src + 256, 16);
		assert_memory_equal(e->src + 64, e->src + 256 + 16, 4);
		return;
	}
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_PROT_ERR);
	assert_int_equal(e->dst[0], 0); /* refused before the request left */
}

static void test_read_scatter_entries_checked(void **state)
{
	static const enum tail bad[] = {TAIL_PAST_END, TAIL_BELOW, TAIL_OTHER_PD, TAIL_NO_WRITE,
	                                TAIL_BACK_BAD};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sgl_setup(state);
		read_into(*state, bad[i], false);
		sgl_teardown(state);
	}
	sgl_setup(state);
	read_into(*state, TAIL_OK, true);
	sgl_teardown(state);
}

/* A WRITE gathering the list into b's dst + 1024: a gather needs no
 * LOCAL_WRITE (TAIL_NO_WRITE is good there). */
static void write_from(struct sgl *s, enum tail t, bool ok)
{
	struct env *e = s->e;
	struct prism_wqe w;
	struct prism_cqe c;

	hx_rw(&w, PRISM_OP_RDMA_WRITE, (uintptr_t)e->dst + 1024, e->dst_key, 0, 0, 0, true);
	w.num_sge = (uint8_t)fill_tail(s, t, w.sge);
	memset(e->dst, 0x33, 16);
	hx_post(&e->a, &w);
	run(e, &e->a);
	c = hx_expect(&e->cq_a);
	if (ok) {
		assert_int_equal(c.opcode, PRISM_CQE_REQ);
		assert_int_equal(e->dst[1024], 0x33);
		return;
	}
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_PROT_ERR);
	assert_int_equal(e->dst[1024], 0);
}

static void test_write_gather_entries_checked(void **state)
{
	static const enum tail bad[] = {TAIL_PAST_END, TAIL_BELOW, TAIL_OTHER_PD, TAIL_BACK_BAD};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sgl_setup(state);
		write_from(*state, bad[i], false);
		sgl_teardown(state);
	}
	sgl_setup(state);
	write_from(*state, TAIL_OK, true);
	sgl_teardown(state);
	sgl_setup(state);
	write_from(*state, TAIL_NO_WRITE, true);
	sgl_teardown(state);
}

/* A SEND of 20 bytes from a into a receive of b with the list. */
static void send_into(struct sgl *s, enum tail t, bool ok)
{
	struct env *e = s->e;
	struct prism_sge sge[3];
	struct prism_wqe w;
	struct prism_cqe c;

	hx_post_recv(&e->b, sge, fill_tail(s, t, sge));
	hx_send(&w, PRISM_OP_SEND, (uintptr_t)e->src + 512, e->src_key, 20, true);
	hx_post(&e->a, &w);
	run(e, &e->a);
	c = hx_expect(&e->cq_b);
	if (ok) {
		assert_int_equal(c.opcode, PRISM_CQE_RESP_SEND);
		assert_int_equal(c.byte_count, 20);
		assert_memory_equal(e->dst, e->src + 512, 16);
		assert_memory_equal(e->src + 64, e->src + 512 + 16, 4);
		c = hx_expect(&e->cq_a);
		assert_int_equal(c.opcode, PRISM_CQE_REQ);
		return;
	}
	assert_int_equal(c.opcode, PRISM_CQE_RESP_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_PROT_ERR);
	c = hx_expect(&e->cq_a); /* the requester's NAK */
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
}

static void test_recv_scatter_entries_checked(void **state)
{
	static const enum tail bad[] = {TAIL_PAST_END, TAIL_BELOW, TAIL_OTHER_PD, TAIL_NO_WRITE,
	                                TAIL_BACK_BAD};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sgl_setup(state);
		send_into(*state, bad[i], false);
		sgl_teardown(state);
	}
	sgl_setup(state);
	send_into(*state, TAIL_OK, true);
	sgl_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_read_scatter_entries_checked),
	    cmocka_unit_test(test_write_gather_entries_checked),
	    cmocka_unit_test(test_recv_scatter_entries_checked),
	};

	return cmocka_run_group_tests_name("sim_sgl", tests, NULL, NULL);
}
