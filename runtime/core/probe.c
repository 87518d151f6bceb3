/* SPDX-License-Identifier: MIT */
/*
 * core/probe.c - the NIC behaviour probe (see probe.h).
 *
 * Owns: a small rig of self-connected QPs with one CQ each, posting WQEs
 * built by the codec into their rings, ringing, letting the NIC run and
 * counting CQEs by owner bit; one function per probe.  Every fact a probe
 * asks about is a rule of docs/nic-model.md; the comment above each probe
 * names it and the source that prompted it.
 *
 * Must not: touch objects it did not create, print, exit, or wait without
 * a bound (a backend without progress() is polled for a fixed time).
 */
#include "core/probe.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <prism/wqe.h>

#include "chain/chainobj.h"

static const struct {
	const char *name, *text;
} probes[CORE_PROBE__COUNT] = {
#define CORE_PROBE_X_INFO(e, n, t) [CORE_PROBE_##e] = {n, t},
    CORE_PROBES(CORE_PROBE_X_INFO)
#undef CORE_PROBE_X_INFO
};

const char *core_probe_name(enum core_probe_id id)
{
	return (unsigned)id < CORE_PROBE__COUNT ? probes[id].name : "?";
}

const char *core_probe_text(enum core_probe_id id)
{
	return (unsigned)id < CORE_PROBE__COUNT ? probes[id].text : "?";
}

const char *core_probe_verdict_name(enum core_probe_verdict v)
{
	static const char *const names[] = {"not run", "yes", "no", "failed"};
	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}

uint32_t core_probe_confirmed_assumes(const struct core_probe_report *rep)
{
	uint32_t a = 0;

	if (rep->v[CORE_PROBE_FENCED_ENABLE] == CORE_PROBE_YES)
		a |= CHAINOBJ_ASSUME_FENCED_ENABLE;
	if (rep->v[CORE_PROBE_SEND_EN_BB_UNITS] == CORE_PROBE_YES)
		a |= CHAINOBJ_ASSUME_SEND_EN_BB_UNITS;
	return a;
}

/* ---- the rig ------------------------------------------------------------- */

#define RIG_QPS  3
#define RIG_BBS  16u /* send ring of every QP, in BBs */
#define RIG_NCQE 16u
#define RIG_DATA 4096u

struct rig_qp {
	struct core_be_cq *cq;
	struct core_cq_info cqi;
	struct core_be_qp *qp;
	struct core_qp_info info;
	struct core_be_mr *mr; /* the QP buffer: READs may patch its WQEs */
	struct core_mr_info keys;
	uint32_t pi; /* send producer counter, BBs */
};

struct rig {
	const struct core_backend_ops *ops;
	struct core_be_dev *dev;
	uint32_t node;
	struct rig_qp q[RIG_QPS];
	uint8_t *data; /* src at 0, dst at 2048 */
	struct core_be_mr *data_mr;
	struct core_mr_info data_keys;
};

static const unsigned all_access = CORE_ACCESS_LOCAL_WRITE | CORE_ACCESS_REMOTE_WRITE |
                                   CORE_ACCESS_REMOTE_READ | CORE_ACCESS_REMOTE_ATOMIC;

static int rig_open(struct rig *r, const struct core_backend_ops *ops, struct core_be_dev *dev,
                    uint32_t node)
{
	memset(r, 0, sizeof(*r));
	r->ops = ops;
	r->dev = dev;
	r->node = node;
	r->data = aligned_alloc(4096, RIG_DATA);
	if (!r->data)
		return -ENOMEM;
	memset(r->data, 0, RIG_DATA);
	return ops->reg_mr(dev, NULL, r->data, RIG_DATA, all_access, &r->data_mr, &r->data_keys);
}

/* QP @i with its own CQ, connected to itself, in RTS. */
static int rig_qp(struct rig *r, int i, unsigned flags)
{
	struct rig_qp *q = &r->q[i];
	struct core_cq_attr ca = {.ncqe = RIG_NCQE};
	int err = r->ops->create_cq(r->dev, &ca, &q->cq, &q->cqi);

	if (err)
		return err;
	/* the device's default PD; the QP serves its own READs and WRITEs */
	struct core_qp_attr qa = {.send_cq = q->cq,
	                          .recv_cq = q->cq,
	                          .sq_bbs = RIG_BBS,
	                          .rq_wqes = 0,
	                          .flags = flags,
	                          .access = CORE_ACCESS_REMOTE_READ | CORE_ACCESS_REMOTE_WRITE |
	                                    CORE_ACCESS_REMOTE_ATOMIC};
	if ((err = r->ops->create_qp(r->dev, &qa, &q->qp, &q->info)))
		return err;
	if ((err = r->ops->reg_mr(r->dev, NULL, q->info.buf, q->info.buf_len, all_access, &q->mr,
	                          &q->keys)))
		return err;
	struct core_qp_peer peer = {.node = r->node,
	                            .qpn = q->info.qpn,
	                            .rnr_retry = 7,
	                            .min_rnr_timer = 1,
	                            .retry_cnt = 7};
	/* the QP talks to itself: an RDMA NIC needs its own address */
	if (r->ops->port_addr && (err = r->ops->port_addr(r->dev, &peer)))
		return err;
	if ((err = r->ops->modify_qp(q->qp, CORE_QPS_INIT, NULL)) ||
	    (err = r->ops->modify_qp(q->qp, CORE_QPS_RTR, &peer)) ||
	    (err = r->ops->modify_qp(q->qp, CORE_QPS_RTS, &peer)))
		return err;
	return 0;
}

static void rig_close(struct rig *r)
{
	for (int i = 0; i < RIG_QPS; i++) {
		struct rig_qp *q = &r->q[i];

		if (q->mr)
			r->ops->dereg_mr(q->mr);
		if (q->qp)
			r->ops->destroy_qp(q->qp);
		if (q->cq)
			r->ops->destroy_cq(q->cq);
	}
	if (r->data_mr)
		r->ops->dereg_mr(r->data_mr);
	free(r->data);
}

static uint8_t *sq_slot(struct rig_qp *q, uint32_t counter)
{
	return (uint8_t *)q->info.buf + q->info.sq_offset + (size_t)(counter % RIG_BBS) * 64;
}

/* Write @w at the queue's producer counter (index and QPN filled in unless
 * @raw_ctrl); returns the slot of its first BB. */
static uint8_t *post(struct rig_qp *q, struct prism_wqe *w, int *nbb, bool raw_ctrl)
{
	uint8_t buf[PRISM_WQE_MAX_BYTES];
	uint8_t *first = sq_slot(q, q->pi);

	if (!raw_ctrl) {
		w->ctrl.wqe_index = (uint16_t)q->pi;
		w->ctrl.qpn = q->info.qpn;
	}
	memset(buf, 0, sizeof(buf));
	int len = prism_wqe_encode(w, buf, sizeof(buf), NULL);
	if (len <= 0)
		return NULL;
	unsigned n = prism_wqe_bbs((unsigned)len / 16);
	for (unsigned b = 0; b < n; b++)
		memcpy(sq_slot(q, q->pi + b), buf + b * 64, 64);
	q->pi += n;
	if (nbb)
		*nbb = (int)n;
	return first;
}

/* Publish the producer counter in the doorbell record and ring. */
static int ring(struct rig *r, struct rig_qp *q)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	q->info.dbrec[1] = htobe32(q->pi & 0xffffu);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return r->ops->ring_sq(q->qp);
}

static unsigned cqes(struct rig_qp *q, unsigned *errors);

/* Every CQE the rig's queues hold so far. */
static unsigned rig_cqes(struct rig *r)
{
	unsigned n = 0;

	for (unsigned i = 0; i < RIG_QPS; i++)
		if (r->q[i].cq)
			n += cqes(&r->q[i], NULL);
	return n;
}

/*
 * Let the NIC run: until idle (sim); on a NIC that runs by itself, until its
 * CQEs stopped changing for 20 ms (60 ms while none came), at most 500 ms.
 * (A fixed 20 ms was too short for an emulated NIC's thread on a loaded
 * machine: a probe saw a managed queue not run yet and refused programs at
 * random.)
 */
static int settle(struct rig *r)
{
	struct timespec ts = {0, 2 * 1000 * 1000};
	unsigned last, stable = 0;

	if (r->ops->progress)
		return r->ops->progress(r->dev);
	last = rig_cqes(r);
	for (int i = 0; i < 250; i++) {
		unsigned now;

		nanosleep(&ts, NULL);
		now = rig_cqes(r);
		if (now != last) {
			last = now;
			stable = 0;
		} else if (++stable >= (now ? 10u : 30u)) {
			break;
		}
	}
	return 0;
}

/* CQEs the queue's CQ holds (it is never consumed: fewer than RIG_NCQE);
 * *errors: how many are error CQEs. */
static unsigned cqes(struct rig_qp *q, unsigned *errors)
{
	unsigned n = 0, e = 0;

	for (uint32_t i = 0; i < q->cqi.ncqe; i++) {
		const uint8_t *c = core_cq_peek(&q->cqi, i);
		struct prism_cqe d;

		if (!c)
			break;
		if (prism_cqe_decode(c, &d, NULL) == 0 &&
		    (d.opcode == PRISM_CQE_REQ_ERR || d.opcode == PRISM_CQE_RESP_ERR))
			e++;
		n++;
	}
	if (errors)
		*errors = e;
	return n;
}

/* One step of a probe: ring @rq (NULL: none), let the NIC run, and count
 * the CQEs of @cq (*@errors: the error ones; may be NULL).  0, or the
 * backend's error. */
static int run(struct rig *r, struct rig_qp *rq, struct rig_qp *cq, unsigned *n, unsigned *errors)
{
	int err = rq ? ring(r, rq) : 0;

	if (!err)
		err = settle(r);
	if (!err)
		*n = cqes(cq, errors);
	return err;
}

static void wqe(struct prism_wqe *w, uint8_t opcode, bool signaled)
{
	memset(w, 0, sizeof(*w));
	w->ctrl.opcode = opcode;
	w->ctrl.fm_ce_se =
	    prism_fm_ce_se(PRISM_FENCE_NONE, signaled ? PRISM_CE_CQ_UPDATE : PRISM_CE_NONE, false);
	if (opcode == PRISM_OP_CQE_WAIT || opcode == PRISM_OP_SEND_ENABLE ||
	    opcode == PRISM_OP_RECV_ENABLE)
		w->has_wait_en = true;
}

static void wait_en(struct prism_wqe *w, uint8_t opcode, uint32_t obj, uint32_t index,
                    bool signaled)
{
	wqe(w, opcode, signaled);
	w->wait_en.obj_num = obj;
	w->wait_en.index = index;
}

/* A signaled WRITE of @len inline bytes (0) to dst + @off. */
static void inline_write(struct rig *r, struct prism_wqe *w, uint32_t off, uint32_t len)
{
	wqe(w, PRISM_OP_RDMA_WRITE, true);
	w->raddr.raddr = (uint64_t)(uintptr_t)(r->data + 2048 + off);
	w->raddr.rkey = r->data_keys.rkey;
	w->is_inline = true;
	w->inline_len = len;
}

#define VERDICT(v_, ...)                                                                           \
	(snprintf(rep->detail[id], sizeof(rep->detail[id]), __VA_ARGS__), rep->v[id] = (v_), 0)

/* ---- the probes ------------------------------------------------------------ */

typedef int probe_fn(struct rig *r, enum core_probe_id id, struct core_probe_report *rep);

/* rule 3.3 wait-blocks-until-cqe-index: index 1 must hold after one CQE
 * (MLNX_OFED libmlx5 starts the wait index at -1; PCX posts cmpl_cnt - 1) */
static int probe_wait_cqe_index(struct rig *r, enum core_probe_id id, struct core_probe_report *rep)
{
	struct prism_wqe w;
	unsigned n = 0;
	int err;

	if ((err = rig_qp(r, 0, CORE_QP_CROSS_CHANNEL)) || (err = rig_qp(r, 1, 0)))
		return err;
	wqe(&w, PRISM_OP_NOP, true);
	post(&r->q[1], &w, NULL, false);
	if ((err = run(r, &r->q[1], &r->q[1], &n, NULL)))
		return err;
	wait_en(&w, PRISM_OP_CQE_WAIT, r->q[1].cqi.cqn, 1, false);
	post(&r->q[0], &w, NULL, false);
	wqe(&w, PRISM_OP_NOP, true);
	post(&r->q[0], &w, NULL, false);
	if ((err = run(r, &r->q[0], &r->q[0], &n, NULL)))
		return err;
	if (n)
		return VERDICT(CORE_PROBE_NO, "WAIT(1) released after 1 CQE: the index is a count");
	wqe(&w, PRISM_OP_NOP, true);
	post(&r->q[1], &w, NULL, false);
	if ((err = run(r, &r->q[1], &r->q[0], &n, NULL)))
		return err;
	if (n == 1)
		return VERDICT(CORE_PROBE_YES, "WAIT(1) held after 1 CQE, released after 2");
	return VERDICT(CORE_PROBE_FAILED, "WAIT(1) not released after 2 CQEs");
}

/* rule 3.5 managed-started-by-doorbell (DPDK crypto GGA rings its
 * cd_slave_send QP) */
static int probe_managed_doorbell(struct rig *r, enum core_probe_id id,
                                  struct core_probe_report *rep)
{
	struct prism_wqe w;
	unsigned n = 0;
	int err;

	if ((err = rig_qp(r, 1, CORE_QP_CROSS_CHANNEL | CORE_QP_MANAGED_SEND)))
		return err;
	wqe(&w, PRISM_OP_NOP, true);
	post(&r->q[1], &w, NULL, false);
	if ((err = run(r, NULL, &r->q[1], &n, NULL)))
		return err;
	if (n)
		return VERDICT(CORE_PROBE_FAILED,
		               "a managed queue ran without doorbell or SEND_EN");
	if ((err = run(r, &r->q[1], &r->q[1], &n, NULL)))
		return err;
	return n == 1 ? VERDICT(CORE_PROBE_YES, "the doorbell ran its NOP")
	              : VERDICT(CORE_PROBE_NO, "the doorbell ran nothing");
}

/* rule 3.8 send-en-past-doorbell-record: the record stays 0 (libmlx5 never
 * writes a managed queue's; DPDK leaves it stale) */
static int probe_send_en_past_dbrec(struct rig *r, enum core_probe_id id,
                                    struct core_probe_report *rep)
{
	struct prism_wqe w;
	int err;

	if ((err = rig_qp(r, 0, CORE_QP_CROSS_CHANNEL)) ||
	    (err = rig_qp(r, 1, CORE_QP_CROSS_CHANNEL | CORE_QP_MANAGED_SEND)))
		return err;
	for (int i = 0; i < 2; i++) {
		wqe(&w, PRISM_OP_NOP, true);
		post(&r->q[1], &w, NULL, false);
	}
	r->q[1].info.dbrec[1] = 0;
	wait_en(&w, PRISM_OP_SEND_ENABLE, r->q[1].info.qpn, 2, false);
	post(&r->q[0], &w, NULL, false);
	unsigned n = 0;

	if ((err = run(r, &r->q[0], &r->q[1], &n, NULL)))
		return err;
	if (n == 2)
		return VERDICT(CORE_PROBE_YES, "SEND_EN 2 ran 2 WQEs, doorbell record 0");
	if (n == 0)
		return VERDICT(CORE_PROBE_NO, "SEND_EN 2 ran nothing past doorbell record 0");
	return VERDICT(CORE_PROBE_FAILED, "SEND_EN 2 ran %u WQEs", n);
}

/* SEND_EN units (nic-model counters paragraph): PCX counts 64-byte blocks,
 * MLNX_OFED libmlx5 work requests; a 2-BB WQE then a 1-BB one, enabled
 * through 2, tells them apart */
static int probe_send_en_bb_units(struct rig *r, enum core_probe_id id,
                                  struct core_probe_report *rep)
{
	struct prism_wqe w;
	int err, nbb = 0;

	if ((err = rig_qp(r, 0, CORE_QP_CROSS_CHANNEL)) ||
	    (err = rig_qp(r, 1, CORE_QP_CROSS_CHANNEL | CORE_QP_MANAGED_SEND)))
		return err;
	inline_write(r, &w, 0, 40); /* ctrl + raddr + 48 inline bytes = 2 BBs */
	if (!post(&r->q[1], &w, &nbb, false) || nbb != 2)
		return VERDICT(CORE_PROBE_FAILED, "no 2-BB WQE (%d BBs)", nbb);
	wqe(&w, PRISM_OP_NOP, true);
	post(&r->q[1], &w, NULL, false);
	wait_en(&w, PRISM_OP_SEND_ENABLE, r->q[1].info.qpn, 2, false);
	post(&r->q[0], &w, NULL, false);
	unsigned n = 0;

	if ((err = run(r, &r->q[0], &r->q[1], &n, NULL)))
		return err;
	if (n == 1)
		return VERDICT(CORE_PROBE_YES, "SEND_EN 2 ran the 2-BB WQE only");
	if (n == 2)
		return VERDICT(CORE_PROBE_NO, "SEND_EN 2 ran 2 WQEs (3 BBs): it counts WRs");
	return VERDICT(CORE_PROBE_FAILED, "SEND_EN 2 ran %u WQEs", n);
}

/* rule 3.15a fence-orders-enable (no public source): a READ patches the
 * inline payload of a managed queue's WRITE, then a fenced SEND_EN enables
 * it; the payload that lands tells which bytes were fetched */
static int probe_fenced_enable(struct rig *r, enum core_probe_id id, struct core_probe_report *rep)
{
	static const uint8_t pattern[8] = {0x5a, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0xa5};
	struct prism_wqe w, tw;
	uint32_t off = 0, len = 0;
	int err;

	if ((err = rig_qp(r, 0, CORE_QP_CROSS_CHANNEL)) ||
	    (err = rig_qp(r, 1, CORE_QP_CROSS_CHANNEL | CORE_QP_MANAGED_SEND)))
		return err;
	memcpy(r->data, pattern, sizeof(pattern)); /* src */
	inline_write(r, &tw, 64, 8);
	uint8_t *slot = post(&r->q[1], &tw, NULL, false);
	if (!slot || prism_wqe_field_offset(&tw, PRISM_FIELD_INLINE_DATA, &off, &len) || len != 8)
		return VERDICT(CORE_PROBE_FAILED, "no inline WRITE to patch");
	wqe(&w, PRISM_OP_RDMA_READ, false);
	w.raddr.raddr = (uint64_t)(uintptr_t)r->data;
	w.raddr.rkey = r->data_keys.rkey;
	w.num_sge = 1;
	w.sge[0] = (struct prism_sge){
	    .byte_count = 8, .lkey = r->q[1].keys.lkey, .addr = (uint64_t)(uintptr_t)(slot + off)};
	post(&r->q[0], &w, NULL, false);
	wait_en(&w, PRISM_OP_SEND_ENABLE, r->q[1].info.qpn, r->q[1].pi, false);
	w.ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_SMALL_AND_FENCE, PRISM_CE_NONE, false);
	post(&r->q[0], &w, NULL, false);
	unsigned errors = 0, n = 0;

	if ((err = run(r, &r->q[0], &r->q[1], &n, &errors)))
		return err;
	const uint8_t *dst = r->data + 2048 + 64;
	if (n == 1 && !errors && !memcmp(dst, pattern, 8))
		return VERDICT(CORE_PROBE_YES, "the enabled WRITE carried the READ's bytes");
	if (n == 1 && !errors)
		return VERDICT(CORE_PROBE_NO, "the enabled WRITE carried its old bytes");
	return VERDICT(CORE_PROBE_NO, "the enabled WRITE: %u CQEs, %u errors", n, errors);
}

/* rule 3.7 enable-needs-cross-channel: WAIT on a plain QP (DPDK Tx SQs,
 * UCC RC QPs) */
static int probe_wait_no_xc(struct rig *r, enum core_probe_id id, struct core_probe_report *rep)
{
	struct prism_wqe w;
	unsigned errors = 0;
	int err;

	if ((err = rig_qp(r, 0, 0)))
		return err;
	wqe(&w, PRISM_OP_NOP, true);
	post(&r->q[0], &w, NULL, false);
	wait_en(&w, PRISM_OP_CQE_WAIT, r->q[0].cqi.cqn, 0, true);
	post(&r->q[0], &w, NULL, false);
	unsigned n = 0;

	if ((err = run(r, &r->q[0], &r->q[0], &n, &errors)))
		return err;
	if (n == 2 && !errors)
		return VERDICT(CORE_PROBE_YES, "the WAIT completed");
	return VERDICT(CORE_PROBE_NO, "%u CQEs, %u errors", n, errors);
}

/* rule 3.7 for SEND_EN: only software checks are public (MLNX_OFED libmlx5) */
static int probe_send_en_needs_xc(struct rig *r, enum core_probe_id id,
                                  struct core_probe_report *rep)
{
	struct prism_wqe w;
	unsigned errors = 0;
	int err;

	if ((err = rig_qp(r, 0, 0)) ||
	    (err = rig_qp(r, 1, CORE_QP_CROSS_CHANNEL | CORE_QP_MANAGED_SEND)))
		return err;
	wqe(&w, PRISM_OP_NOP, true);
	post(&r->q[1], &w, NULL, false);
	wait_en(&w, PRISM_OP_SEND_ENABLE, r->q[1].info.qpn, 1, true);
	post(&r->q[0], &w, NULL, false);
	unsigned n = 0;

	if ((err = run(r, &r->q[0], &r->q[0], &n, &errors)))
		return err;
	if (n == 1 && errors == 1)
		return VERDICT(CORE_PROBE_YES, "the SEND_EN failed; the managed queue ran %u WQEs",
		               cqes(&r->q[1], NULL));
	return VERDICT(CORE_PROBE_NO, "the SEND_EN: %u CQEs, %u errors", n, errors);
}

/* rules 4.1 / 4.2 strict-checks-*: a NOP with a wrong index or QPN (the
 * checks RedN's and PCX's firmware change turns off) */
static int probe_relaxed(struct rig *r, enum core_probe_id id, struct core_probe_report *rep)
{
	struct prism_wqe w;
	unsigned errors = 0;
	int err;

	if ((err = rig_qp(r, 0, 0)))
		return err;
	wqe(&w, PRISM_OP_NOP, true);
	w.ctrl.wqe_index = (uint16_t)(r->q[0].pi + (id == CORE_PROBE_RELAXED_INDEX ? 5 : 0));
	w.ctrl.qpn = r->q[0].info.qpn ^ (id == CORE_PROBE_RELAXED_QPN ? 0x55u : 0);
	post(&r->q[0], &w, NULL, true);
	unsigned n = 0;

	if ((err = run(r, &r->q[0], &r->q[0], &n, &errors)))
		return err;
	if (n == 1 && !errors)
		return VERDICT(CORE_PROBE_YES, "the NOP completed");
	if (n == 1)
		return VERDICT(CORE_PROBE_NO, "the NOP failed (stock firmware checks)");
	return VERDICT(CORE_PROBE_FAILED, "%u CQEs", n);
}

static probe_fn *const probe_fns[CORE_PROBE__COUNT] = {
    [CORE_PROBE_WAIT_CQE_INDEX] = probe_wait_cqe_index,
    [CORE_PROBE_MANAGED_DOORBELL] = probe_managed_doorbell,
    [CORE_PROBE_SEND_EN_PAST_DBREC] = probe_send_en_past_dbrec,
    [CORE_PROBE_SEND_EN_BB_UNITS] = probe_send_en_bb_units,
    [CORE_PROBE_FENCED_ENABLE] = probe_fenced_enable,
    [CORE_PROBE_WAIT_NO_XC] = probe_wait_no_xc,
    [CORE_PROBE_SEND_EN_NEEDS_XC] = probe_send_en_needs_xc,
    [CORE_PROBE_RELAXED_INDEX] = probe_relaxed,
    [CORE_PROBE_RELAXED_QPN] = probe_relaxed,
};

int core_probe_run(const struct core_backend_ops *ops, struct core_be_dev *dev, uint32_t node,
                   enum core_probe_id id, struct core_probe_report *rep)
{
	unsigned from = id == CORE_PROBE__COUNT ? 0 : (unsigned)id;
	unsigned to = id == CORE_PROBE__COUNT ? CORE_PROBE__COUNT : (unsigned)id + 1;

	if (!ops || !dev || !rep || (unsigned)id > CORE_PROBE__COUNT)
		return -EINVAL;
	for (unsigned i = from; i < to; i++) {
		struct rig r;
		int err = rig_open(&r, ops, dev, node);

		if (!err)
			err = probe_fns[i](&r, (enum core_probe_id)i, rep);
		rig_close(&r);
		if (err) {
			rep->v[i] = CORE_PROBE_FAILED;
			snprintf(rep->detail[i], sizeof(rep->detail[i]), "backend error %d", err);
		}
	}
	return 0;
}
