/* SPDX-License-Identifier: MIT */
/*
 * tests/hw/hw_common.c - device discovery, skip decisions, the loopback RC
 * pair, memory regions, posting and polling dispatch for the hardware tests.
 *
 * Owns: everything in struct hw_env and its teardown.  Must not: pack WQE or
 * CQE bytes (hw_raw.c does it through the codec) or assume that a device is
 * present: without one every test skips with the reason.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "tests/hw/hw_common.h"

#define HW_CQ_DEPTH 256
#define HW_SQ_WR    64
#define HW_RQ_WR    64
#define HW_RECV_SGE 16 /* RECV scatters up to 16 entries (nic-model) */
#define HW_SEND_SGE 4
#define HW_INLINE   64

void hw_print_skip(const char *fmt, ...)
{
	va_list ap;

	/* cmocka prints "Skipped!" on its own; the reason goes right before */
	printf("hw: skipped: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int env_int(const char *name, int dflt)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : dflt;
}

static void why(struct hw_env *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void why(struct hw_env *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->why, sizeof(e->why), fmt, ap);
	va_end(ap);
}

static struct ibv_device *pick_device(struct ibv_device **list, int n, const char *want)
{
	for (int i = 0; i < n; i++)
		if (!want || !*want || strcmp(ibv_get_device_name(list[i]), want) == 0)
			return list[i];
	return NULL;
}

static struct ibv_context *open_device(struct hw_env *e, struct ibv_device *dev)
{
	struct mlx5dv_context_attr dv = {.flags = MLX5DV_CONTEXT_FLAGS_DEVX};
	struct ibv_context *ctx;

	e->is_mlx5 = mlx5dv_is_supported(dev);
	if (e->is_mlx5) {
		/* DEVX lets hw_devx.c query HCA capabilities (cross-channel,
		 * extended atomics) that plain verbs do not report */
		ctx = mlx5dv_open_device(dev, &dv);
		if (ctx) {
			e->devx = true;
			return ctx;
		}
		e->devx_errno = errno;
	}
	return ibv_open_device(dev);
}

static void hw_open(struct hw_env *e)
{
	const char *want = getenv("PRISM_HW_DEVICE");
	const char *path = getenv("PRISM_HW_PATH");
	const char *fw = getenv("PRISM_HW_FW");
	struct ibv_device **list;
	struct ibv_device *dev;
	int n = 0;

	e->port_num = (uint8_t)env_int("PRISM_HW_PORT", 1);
	e->gid_index = env_int("PRISM_HW_GID_INDEX", 0);
	e->timeout_ms = env_int("PRISM_HW_TIMEOUT_MS", 2000);
	e->relaxed_fw = fw && strcmp(fw, "relaxed") == 0;

	/*
	 * rdma-core's mlx5 provider asks the kernel to put receive payloads of
	 * up to 32 bytes into the CQE (scatter-to-CQE, on by default) and copies
	 * them out in mlx5_poll_cq.  The raw path polls CQEs itself, so the
	 * payload must land in the receive buffers, as the model says.
	 */
	setenv("MLX5_SCATTER_TO_CQE", "0", 1);
	list = ibv_get_device_list(&n);
	if (!list) {
		int err = errno;

		/* ENOSYS: the kernel has no RDMA support (no uverbs devices at all) */
		why(e, "no RDMA device (ibv_get_device_list: %s%s)", strerror(err),
		    err == ENOSYS ? ": no RDMA support in this kernel" : "");
		return;
	}
	if (n == 0) {
		why(e, "no RDMA device (ibv_get_device_list found none)");
		ibv_free_device_list(list);
		return;
	}
	dev = pick_device(list, n, want);
	if (!dev) {
		why(e, "no RDMA device named '%s' (PRISM_HW_DEVICE)", want);
		ibv_free_device_list(list);
		return;
	}
	snprintf(e->name, sizeof(e->name), "%s", ibv_get_device_name(dev));
	e->ctx = open_device(e, dev);
	ibv_free_device_list(list);
	if (!e->ctx) {
		why(e, "cannot open %s: %s", e->name, strerror(errno));
		return;
	}
	if (ibv_query_device_ex(e->ctx, NULL, &e->attr)) {
		why(e, "%s: ibv_query_device_ex: %s", e->name, strerror(errno));
		return;
	}
	if (ibv_query_port(e->ctx, e->port_num, &e->port)) {
		why(e, "%s: no port %u (PRISM_HW_PORT)", e->name, e->port_num);
		return;
	}
	if (e->port.state != IBV_PORT_ACTIVE) {
		why(e, "%s port %u is %s, not ACTIVE", e->name, e->port_num,
		    ibv_port_state_str(e->port.state));
		return;
	}
	if (e->port.link_layer == IBV_LINK_LAYER_ETHERNET &&
	    ibv_query_gid(e->ctx, e->port_num, e->gid_index, &e->gid)) {
		why(e, "%s: no GID index %d on port %u (PRISM_HW_GID_INDEX)", e->name, e->gid_index,
		    e->port_num);
		return;
	}
	e->pd = ibv_alloc_pd(e->ctx);
	if (!e->pd) {
		why(e, "%s: ibv_alloc_pd: %s", e->name, strerror(errno));
		return;
	}
	e->path = e->is_mlx5 ? HW_PATH_RAW : HW_PATH_VERBS;
	if (path && strcmp(path, "verbs") == 0)
		e->path = HW_PATH_VERBS;
}

int hw_setup(void **state)
{
	struct hw_env *e = calloc(1, sizeof(*e));

	if (!e)
		return -1;
	hw_open(e);
	*state = e;
	return 0;
}

void hw_cq_destroy(struct hw_cq *c)
{
	if (c->cq)
		ibv_destroy_cq(c->cq);
	memset(c, 0, sizeof(*c));
}

static void qp_destroy(struct hw_qp *q)
{
	if (q->sq_mr)
		ibv_dereg_mr(q->sq_mr);
	if (q->qp)
		ibv_destroy_qp(q->qp);
	hw_verbs_free(q);
	hw_cq_destroy(&q->scq);
	hw_cq_destroy(&q->rcq);
	memset(q, 0, sizeof(*q));
}

static void pair_destroy(struct hw_env *e)
{
	qp_destroy(&e->a);
	qp_destroy(&e->b);
	qp_destroy(&e->c);
	qp_destroy(&e->d);
	e->have_pair = false;
	e->have_pair2 = false;
}

int hw_teardown(void **state)
{
	struct hw_env *e = *state;

	if (!e)
		return 0;
	for (unsigned i = 0; i < e->n_xq; i++) {
		hw_xqp_destroy(e->xq[i]);
		free(e->xq[i]);
	}
	pair_destroy(e);
	for (unsigned i = 0; i < e->n_extra_mr; i++)
		ibv_dereg_mr(e->extra_mr[i]);
	if (e->src_mr)
		ibv_dereg_mr(e->src_mr);
	if (e->dst_mr)
		ibv_dereg_mr(e->dst_mr);
	free(e->src);
	free(e->dst);
	if (e->pd)
		ibv_dealloc_pd(e->pd);
	if (e->ctx)
		ibv_close_device(e->ctx);
	free(e);
	*state = NULL;
	return 0;
}

void hw_cq_create_ex(struct hw_env *e, struct hw_cq *c, bool is_recv, int depth,
                     bool ignore_overrun)
{
	if (ignore_overrun) {
		struct ibv_cq_init_attr_ex ca = {.cqe = (uint32_t)depth,
		                                 .wc_flags = IBV_WC_STANDARD_FLAGS,
		                                 .comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
		                                 .flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN};
		struct ibv_cq_ex *cx = ibv_create_cq_ex(e->ctx, &ca);

		if (!cx)
			HW_SKIP("%s: no CQ with IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN: %s", e->name,
			        strerror(errno));
		c->cq = ibv_cq_ex_to_cq(cx);
	} else {
		c->cq = ibv_create_cq(e->ctx, depth, NULL, NULL, 0);
		if (!c->cq)
			fail_msg("%s: ibv_create_cq: %s", e->name, strerror(errno));
	}
	c->is_recv = is_recv;
	if (e->path == HW_PATH_RAW && hw_raw_init_cq(c))
		fail_msg("%s: mlx5dv_init_obj(CQ) failed", e->name);
}

void hw_cq_create(struct hw_env *e, struct hw_cq *c, bool is_recv)
{
	hw_cq_create_ex(e, c, is_recv, HW_CQ_DEPTH, false);
}

static unsigned min_u(unsigned a, unsigned b)
{
	return a < b ? a : b;
}

static void qp_create(struct hw_env *e, struct hw_qp *q, const struct hw_pair_opts *o)
{
	struct ibv_qp_init_attr ia = {
	    .qp_type = IBV_QPT_RC,
	    .sq_sig_all = 0, /* the CE bits of each WQE decide */
	    .cap = {.max_send_wr = HW_SQ_WR,
	            .max_recv_wr = HW_RQ_WR,
	            .max_send_sge = min_u(HW_SEND_SGE, (unsigned)e->attr.orig_attr.max_sge),
	            .max_recv_sge = min_u(HW_RECV_SGE, (unsigned)e->attr.orig_attr.max_sge),
	            .max_inline_data = HW_INLINE},
	};

	q->env = e;
	hw_cq_create_ex(e, &q->scq, false, o && o->cq_depth ? o->cq_depth : HW_CQ_DEPTH,
	                o && o->cq_ignore_overrun);
	hw_cq_create(e, &q->rcq, true);
	ia.send_cq = q->scq.cq;
	ia.recv_cq = q->rcq.cq;
	q->qp = ibv_create_qp(e->pd, &ia);
	if (!q->qp) {
		/* soft devices may refuse inline data; the inline test then skips */
		ia.cap.max_inline_data = 0;
		q->qp = ibv_create_qp(e->pd, &ia);
	}
	if (!q->qp)
		fail_msg("%s: ibv_create_qp(RC): %s", e->name, strerror(errno));
	q->qpn = q->qp->qp_num;
	q->max_inline = ia.cap.max_inline_data;
	if (e->path == HW_PATH_RAW) {
		if (hw_raw_init_qp(q))
			fail_msg("%s: mlx5dv_init_obj(QP) failed", e->name);
	} else if (hw_verbs_init(q)) {
		fail_msg("out of memory");
	}
}

static int clamp_rd_atom(int v)
{
	return v < 1 ? 1 : v > 16 ? 16 : v;
}

/* The attributes of each transition (ibv_modify_qp(3)), one function per target state. */
static int to_init(struct hw_env *e, struct ibv_qp_attr *a, uint32_t peer,
                   const struct hw_pair_opts *o)
{
	a->pkey_index = 0;
	a->port_num = e->port_num;
	a->qp_access_flags = o && o->qp_access_set ? o->qp_access : HW_ACCESS_ALL;
	return IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
}

static int to_rtr(struct hw_env *e, struct ibv_qp_attr *a, uint32_t peer,
                  const struct hw_pair_opts *o)
{
	a->path_mtu = e->port.active_mtu;
	a->dest_qp_num = peer;
	a->rq_psn = 0;
	a->max_dest_rd_atomic = (uint8_t)clamp_rd_atom(e->attr.orig_attr.max_qp_rd_atom);
	a->min_rnr_timer = (uint8_t)(o->min_rnr_timer ? o->min_rnr_timer : 1);
	a->ah_attr.port_num = e->port_num;
	a->ah_attr.dlid = e->port.lid;
	if (e->port.link_layer == IBV_LINK_LAYER_ETHERNET) {
		a->ah_attr.is_global = 1;
		a->ah_attr.grh.dgid = e->gid;
		a->ah_attr.grh.sgid_index = (uint8_t)e->gid_index;
		a->ah_attr.grh.hop_limit = 1;
	}
	return IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
	       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
}

static int to_rts(struct hw_env *e, struct ibv_qp_attr *a, uint32_t peer,
                  const struct hw_pair_opts *o)
{
	a->timeout = 14;
	a->retry_cnt = (uint8_t)(o->retry_cnt ? o->retry_cnt : 7);
	a->rnr_retry = (uint8_t)(o->rnr_set ? o->rnr_retry : 7);
	a->sq_psn = 0;
	a->max_rd_atomic = (uint8_t)clamp_rd_atom(e->attr.orig_attr.max_qp_init_rd_atom);
	return IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
	       IBV_QP_MAX_QP_RD_ATOMIC;
}

static int to_plain(struct hw_env *e, struct ibv_qp_attr *a, uint32_t peer,
                    const struct hw_pair_opts *o)
{
	return 0; /* RESET and ERR take only the state */
}

static int (*const transition[])(struct hw_env *, struct ibv_qp_attr *, uint32_t,
                                 const struct hw_pair_opts *) = {
    [IBV_QPS_RESET] = to_plain, [IBV_QPS_INIT] = to_init, [IBV_QPS_RTR] = to_rtr,
    [IBV_QPS_RTS] = to_rts,     [IBV_QPS_ERR] = to_plain,
};

int hw_qp_modify(struct hw_env *e, struct hw_qp *q, enum ibv_qp_state to, uint32_t peer,
                 const struct hw_pair_opts *o)
{
	static const struct hw_pair_opts dflt;
	struct ibv_qp_attr a;
	int mask;

	if ((unsigned)to >= sizeof(transition) / sizeof(transition[0]) || !transition[to])
		return EINVAL;
	memset(&a, 0, sizeof(a));
	a.qp_state = to;
	mask = IBV_QP_STATE | transition[to](e, &a, peer, o ? o : &dflt);
	return ibv_modify_qp(q->qp, &a, mask); /* 0 or an errno value (rdma-core) */
}

/* RESET -> INIT -> RTR -> RTS, connected to @peer on the same port. */
static void qp_connect(struct hw_env *e, struct hw_qp *q, uint32_t peer,
                       const struct hw_pair_opts *o)
{
	static const enum ibv_qp_state steps[] = {IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS};
	static const char *const names[] = {"INIT", "RTR", "RTS"};

	for (unsigned i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		int rc = hw_qp_modify(e, q, steps[i], peer, o);

		if (rc)
			fail_msg("%s: QP 0x%x to %s: %s", e->name, q->qpn, names[i], strerror(rc));
	}
}

/* A QP in RESET (its own CQs); hw_teardown frees it. */
void hw_qp_new(struct hw_env *e, struct hw_qp *q)
{
	qp_create(e, q, NULL);
}

void hw_repair(struct hw_env *e, const struct hw_pair_opts *opts)
{
	static const struct hw_pair_opts dflt;

	if (!opts)
		opts = &dflt;
	pair_destroy(e);
	qp_create(e, &e->a, opts);
	qp_create(e, &e->b, opts);
	qp_connect(e, &e->a, e->b.qpn, opts);
	qp_connect(e, &e->b, e->a.qpn, opts);
	e->have_pair = true;
}

void hw_second_pair(struct hw_env *e)
{
	static const struct hw_pair_opts dflt;

	assert_false(e->have_pair2);
	qp_create(e, &e->c, NULL);
	qp_create(e, &e->d, NULL);
	qp_connect(e, &e->c, e->d.qpn, &dflt);
	qp_connect(e, &e->d, e->c.qpn, &dflt);
	e->have_pair2 = true;
}

struct ibv_mr *hw_reg(struct hw_env *e, void *addr, size_t len, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(e->pd, addr, len, access);

	if (!mr)
		fail_msg("%s: ibv_reg_mr(%zu bytes): %s", e->name, len, strerror(errno));
	assert_true(e->n_extra_mr < sizeof(e->extra_mr) / sizeof(e->extra_mr[0]));
	e->extra_mr[e->n_extra_mr++] = mr;
	return mr;
}

static uint8_t *alloc_buf(void)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, HW_BUF_BYTES))
		fail_msg("out of memory");
	memset(p, 0, HW_BUF_BYTES);
	return p;
}

static void need(struct hw_env *e, unsigned needs)
{
	if (e->why[0])
		HW_SKIP("%s", e->why);
	if ((needs & HW_NEED_RAW) && !e->is_mlx5)
		HW_SKIP("needs an mlx5 device: raw WQE posting (%s is not mlx5)", e->name);
	if ((needs & HW_NEED_RAW) && e->path != HW_PATH_RAW)
		HW_SKIP("needs raw WQE posting, but PRISM_HW_PATH=verbs");
	if ((needs & HW_NEED_ATOMIC) && e->attr.orig_attr.atomic_cap == IBV_ATOMIC_NONE)
		HW_SKIP("%s reports no RDMA atomics (atomic_cap NONE; on mlx5 that means the "
		        "8-byte atomic endianness mode is not host order)",
		        e->name);
}

struct hw_env *hw_start(void **state, unsigned needs, const struct hw_pair_opts *opts)
{
	struct hw_env *e = *state;

	assert_non_null(e);
	need(e, needs);
	e->src = alloc_buf();
	e->dst = alloc_buf();
	for (unsigned i = 0; i < HW_BUF_BYTES; i++)
		e->src[i] = (uint8_t)(i * 7 + 1);
	e->src_mr = ibv_reg_mr(e->pd, e->src, HW_BUF_BYTES, HW_ACCESS_ALL);
	e->dst_mr = ibv_reg_mr(e->pd, e->dst, HW_BUF_BYTES, HW_ACCESS_ALL);
	if ((!e->src_mr || !e->dst_mr) && (errno == ENOMEM || errno == EPERM))
		HW_SKIP("%s: cannot pin 128 KiB for memory regions (%s): raise the locked-memory "
		        "limit (ulimit -l)",
		        e->name, strerror(errno));
	if (!e->src_mr || !e->dst_mr)
		fail_msg("%s: ibv_reg_mr: %s", e->name, strerror(errno));
	hw_repair(e, opts);
	return e;
}

struct hw_xqp *hw_xqp_new(struct hw_env *e, unsigned roles)
{
	struct hw_xqp *x;
	char why_buf[200];

	assert_true(e->n_xq < sizeof(e->xq) / sizeof(e->xq[0]));
	x = calloc(1, sizeof(*x));
	if (!x)
		fail_msg("out of memory");
	e->xq[e->n_xq++] = x;
	if (hw_xqp_create(e, x, roles, why_buf, sizeof(why_buf)))
		HW_SKIP("%s: cannot create a cross-channel QP: %s", e->name, why_buf);
	return x;
}

struct ibv_mr *hw_register_sq(struct hw_qp *q)
{
	assert_int_equal(q->env->path, HW_PATH_RAW);
	if (!q->sq_mr) {
		q->sq_mr = ibv_reg_mr(q->env->pd, q->dv.sq.buf,
		                      (size_t)q->dv.sq.wqe_cnt * q->dv.sq.stride, HW_ACCESS_ALL);
		if (!q->sq_mr)
			fail_msg("%s: registering the send queue: %s", q->env->name,
			         strerror(errno));
	}
	return q->sq_mr;
}

uint8_t *hw_sq_slot(struct hw_qp *q, uint32_t counter)
{
	assert_int_equal(q->env->path, HW_PATH_RAW);
	return (uint8_t *)q->dv.sq.buf + (size_t)(counter & (q->dv.sq.wqe_cnt - 1)) * PRISM_WQE_BB;
}

uint32_t hw_post_ex(struct hw_qp *q, struct prism_wqe *w, bool keep_ctrl)
{
	uint8_t bytes[PRISM_WQE_MAX_BB * PRISM_WQE_BB];
	struct prism_wqe_diag d;
	uint32_t counter = q->sq_pi;
	unsigned bbs;
	int n, rc;

	if (!keep_ctrl) {
		w->ctrl.wqe_index = (uint16_t)counter;
		w->ctrl.qpn = q->qpn;
	}
	memset(bytes, 0, sizeof(bytes));
	n = prism_wqe_encode(w, bytes, sizeof(bytes), &d);
	if (n < 0)
		fail_msg("codec refused the WQE: %s", d.msg);
	bbs = prism_wqe_bbs((unsigned)n / PRISM_WQE_DS_BYTES);
	if (q->env->path == HW_PATH_RAW) {
		/* no slot is reused while it may be in flight */
		assert_true(q->sq_pi + bbs - q->sq_ci <= q->dv.sq.wqe_cnt);
		hw_raw_post(q, bytes, bbs);
	} else {
		rc = hw_verbs_post(q, w, counter);
		if (rc == -ENOTSUP)
			HW_SKIP("needs an mlx5 device: raw WQE posting (%s has no verbs "
			        "equivalent)",
			        prism_opcode_name(w->ctrl.opcode));
		if (rc)
			fail_msg("ibv_post_send: %s", strerror(-rc));
	}
	q->last_bb = counter;
	q->sq_pi += bbs;
	q->posted = true;
	return counter;
}

void hw_ring(struct hw_qp *q)
{
	if (!q->posted)
		return;
	if (q->env->path == HW_PATH_RAW) {
		hw_raw_ring(q);
	} else {
		int rc = hw_verbs_ring(q);

		if (rc)
			fail_msg("ibv_post_send: %s", strerror(-rc));
	}
	q->posted = false;
}

uint32_t hw_post_recv(struct hw_qp *q, const struct prism_sge *sge, unsigned n)
{
	uint32_t counter = q->rq_pi;

	if (n > HW_RECV_SGE)
		fail_msg("%u receive entries; the harness posts at most %u", n, HW_RECV_SGE);
	if (q->env->path == HW_PATH_RAW) {
		assert_true(q->rq_pi < q->dv.rq.wqe_cnt);
		hw_raw_post_recv(q, sge, n);
	} else {
		int rc = hw_verbs_post_recv(q, sge, n, counter);

		if (rc)
			fail_msg("ibv_post_recv: %s", strerror(-rc));
	}
	q->rq_pi++;
	return counter;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* A guard against hanging on a device that never answers: not a measurement. */
int hw_poll(struct hw_cq *c, struct prism_cqe *out, int timeout_ms)
{
	long end = now_ms() + timeout_ms;
	int rc;

	do {
		rc = c->dv.buf ? hw_raw_poll(c, out) : hw_verbs_poll(c, out);
		if (rc < 0)
			fail_msg("polling the CQ failed (%d)", rc);
		if (rc > 0)
			return 1;
	} while (now_ms() < end);
	return 0;
}

struct prism_cqe hw_expect(struct hw_cq *c)
{
	struct prism_cqe out;
	int timeout = env_int("PRISM_HW_TIMEOUT_MS", 2000);

	memset(&out, 0, sizeof(out));
	if (!hw_poll(c, &out, timeout))
		fail_msg("no CQE on %s CQ within %d ms", c->is_recv ? "receive" : "send", timeout);
	return out;
}

void hw_expect_empty(struct hw_cq *c)
{
	struct prism_cqe out;

	if (hw_poll(c, &out, 0))
		fail_msg("unexpected CQE: opcode %s, wqe_counter %u, syndrome %s",
		         prism_cqe_opcode_name(out.opcode), out.wqe_counter,
		         hw_synd_name(out.syndrome));
}

enum ibv_qp_state hw_qp_state(struct hw_qp *q)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(q->qp, &a, IBV_QP_STATE, &ia))
		fail_msg("ibv_query_qp: %s", strerror(errno));
	return a.qp_state;
}

const char *hw_synd_name(uint8_t syndrome)
{
	return prism_cqe_syndrome_name(syndrome);
}

/* ---- builders: the decoded WQE shapes the conformance tests use ---- */

static void ctrl(struct prism_wqe *w, uint8_t opcode, bool signaled)
{
	memset(w, 0, sizeof(*w));
	w->ctrl.opcode = opcode;
	w->ctrl.fm_ce_se =
	    prism_fm_ce_se(PRISM_FENCE_NONE, signaled ? PRISM_CE_CQ_UPDATE : PRISM_CE_NONE, false);
}

void hw_nop(struct prism_wqe *w, bool signaled)
{
	ctrl(w, PRISM_OP_NOP, signaled);
}

void hw_rw(struct prism_wqe *w, uint8_t opcode, uint64_t raddr, uint32_t rkey, uint64_t laddr,
           uint32_t lkey, uint32_t len, bool signaled)
{
	ctrl(w, opcode, signaled);
	w->raddr.raddr = raddr;
	w->raddr.rkey = rkey;
	w->num_sge = 1;
	w->sge[0] = (struct prism_sge){.byte_count = len, .lkey = lkey, .addr = laddr};
}

void hw_send(struct prism_wqe *w, uint8_t opcode, uint64_t laddr, uint32_t lkey, uint32_t len,
             bool signaled)
{
	ctrl(w, opcode, signaled);
	w->num_sge = 1;
	w->sge[0] = (struct prism_sge){.byte_count = len, .lkey = lkey, .addr = laddr};
}

void hw_atomic(struct prism_wqe *w, uint8_t opcode, uint64_t raddr, uint32_t rkey, uint64_t swap,
               uint64_t compare, uint64_t laddr, uint32_t lkey, bool signaled)
{
	ctrl(w, opcode, signaled);
	w->raddr.raddr = raddr;
	w->raddr.rkey = rkey;
	w->atomic.size = 8;
	w->atomic.swap = swap;
	w->atomic.compare = compare;
	w->num_sge = 1;
	w->sge[0] = (struct prism_sge){.byte_count = 8, .lkey = lkey, .addr = laddr};
}
