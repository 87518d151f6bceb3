/* SPDX-License-Identifier: MIT */
/*
 * tests/support/redn_hash_chain.c - RedN's hash-lookup chain on the sim.
 *
 * Owns: building the lookup service (queues, CQs, regions, table) and
 * posting one request's WQEs exactly as redn_hash_chain.h draws them.  All
 * WQE bytes come from the codec; patch offsets from prism_wqe_field_offset.
 * Once every ring has been filled, a get re-uses the WQEs an earlier get
 * left at the same positions and rewrites only the fields that change (as a
 * runtime re-arming a chain would), at the codec's field offsets.
 *
 * Must not: run the engine, or peek at its internals.
 */
#include "tests/support/redn_hash_chain.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/host_verbs.h"
#include "util/byteorder.h"

#define REDN_CTL_WQES 4 /* WAIT recv, SEND_EN wrk, WAIT wrk CQ, SEND_EN srv */

struct redn_hash {
	struct redn_hash_cfg cfg;
	struct sim_dev *sdev, *cdev;
	/* server: client-facing QP, worker + its responder, control queue + peer */
	struct sim_cq *cq_srv_send, *cq_srv_recv, *cq_wrk, *cq_misc;
	struct sim_qp *srv, *wrk, *wrk_r, *ctl, *ctl_r;
	struct hv_qp hsrv, hwrk, hctl;
	struct hv_cq hcq_srv_send;
	/* client */
	struct sim_cq *cq_cli_send, *cq_cli_recv;
	struct sim_qp *cli;
	struct hv_qp hcli;
	struct hv_cq hcq_cli_recv, hcq_cli_send;
	/* memory */
	uint8_t *table, *values, *scratch, *resp;
	struct sim_mr *mr_table, *mr_values, *mr_scratch, *mr_srv_sq, *mr_wrk_sq, *mr_resp;
	uint8_t *keys; /* nbuckets x 3 */
	/* counters */
	uint32_t next_req, inflight, srv_recvs, wrk_cqes;
	uint32_t resp_slot; /* next_req % max_inflight: where its value lands */
	/* What a re-post at the same ring positions rewrites (post_get_patch):
	 * control segments as encoded, field offsets from the codec, and the
	 * basic blocks each WQE takes.  Filled by every encoded get. */
	struct redn_tmpl {
		/* R's control segment as packed (miss: the whole segment; hit:
		 * bytes 0-7, the CAS's swap operand); a re-post rewrites their
		 * WQE index (idx_off) and R's immediate (imm_off).  The other
		 * WQEs keep theirs but for the WQE index. */
		uint8_t r_miss[PRISM_WQE_DS_BYTES], r_hit[8];
		uint32_t r_raddr, r_sge0_addr, rd_raddr, cas_compare, imm_off;
		/* byte offsets from the READ (the CAS follows it) */
		uint32_t cas_idx, cas_cmp, cas_swp;
		uint32_t r_bbs, rd_bbs, cas_bbs;
		/* the ctl WQEs: each one's BB from the get's first, its WQE
		 * index and WAIT / SEND_EN counter as byte offsets from the
		 * first; all their BBs */
		uint32_t ctl_at[REDN_CTL_WQES], ctl_idx[REDN_CTL_WQES], ctl_cnt[REDN_CTL_WQES];
		uint32_t ctl_bbs;
		uint32_t cli_inline, cli_bbs; /* the client's SEND: its inline data, its size */
		uint32_t idx_off;             /* the WQE index in a control segment */
		/* can_patch() held and every get since posted whole (each moves
		 * every ring by its per-get size, so it still holds) */
		bool steady;
		bool valid;
	} t;
};

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t pow2_at_least(uint32_t v)
{
	uint32_t p = 1;
	while (p < v)
		p <<= 1;
	return p;
}

static int make_cq(struct sim_dev *dev, uint32_t ncqe, bool ignore_overrun, struct sim_cq **out)
{
	struct sim_cq_attr a = {.ncqe = pow2_at_least(ncqe), .ignore_overrun = ignore_overrun};
	return sim_cq_create(dev, &a, out);
}

static int make_qp(struct sim_dev *dev, struct sim_cq *scq, struct sim_cq *rcq, uint32_t sq_bbs,
                   uint32_t rq_wqes, uint32_t rq_sge, unsigned flags, struct sim_qp **out)
{
	struct sim_qp_attr a = {.access = SIM_ACCESS_REMOTE_ALL,
	                        .send_cq = scq,
	                        .recv_cq = rcq,
	                        .sq_bbs = pow2_at_least(sq_bbs),
	                        .rq_wqes = rq_wqes ? pow2_at_least(rq_wqes) : 0,
	                        .rq_max_sge = rq_sge,
	                        .flags = flags};
	return sim_qp_create(dev, &a, out);
}

static int connect_qp(struct sim_qp *qp, struct sim_dev *peer_dev, struct sim_qp *peer)
{
	struct sim_qp_mod m = {.state = SIM_QPS_INIT};
	int rc = sim_qp_modify(qp, &m);
	if (rc)
		return rc;
	m = (struct sim_qp_mod){.state = SIM_QPS_RTR,
	                        .peer_node = sim_dev_node(peer_dev),
	                        .peer_qpn = sim_qp_num(peer),
	                        .min_rnr_timer = 1};
	rc = sim_qp_modify(qp, &m);
	if (rc)
		return rc;
	m = (struct sim_qp_mod){.state = SIM_QPS_RTS, .rnr_retry = 7, .retry_cnt = 7};
	return sim_qp_modify(qp, &m);
}

static int connect_pair(struct sim_dev *da, struct sim_qp *a, struct sim_dev *db, struct sim_qp *b)
{
	int rc = connect_qp(a, db, b);
	return rc ? rc : connect_qp(b, da, a);
}

const uint8_t *redn_hash_key(const struct redn_hash *h, uint32_t i)
{
	return h->keys + (size_t)i * REDN_KEY_BYTES;
}

const uint8_t *redn_hash_value(const struct redn_hash *h, uint32_t i)
{
	return h->values + (size_t)i * h->cfg.value_len;
}

/* Fill the table: distinct random 3-byte keys, random values. */
static void fill_table(struct redn_hash *h)
{
	uint64_t s = h->cfg.seed;
	for (uint32_t i = 0; i < h->cfg.nbuckets; i++) {
		uint8_t *k = h->keys + (size_t)i * REDN_KEY_BYTES;
		uint64_t r = rng_next(&s);
		k[0] = (uint8_t)r;
		k[1] = (uint8_t)(r >> 8);
		k[2] = (uint8_t)((r >> 16) | 1); /* never the all-zero template key */
		uint8_t *b = h->table + (size_t)i * REDN_BUCKET_BYTES;
		memcpy(b, k, REDN_KEY_BYTES);
		uint64_t va = (uint64_t)(uintptr_t)redn_hash_value(h, i);
		for (int j = 0; j < 8; j++) /* big-endian, as a WQE address field wants it */
			b[REDN_KEY_BYTES + j] = (uint8_t)(va >> (56 - 8 * j));
		uint8_t *v = h->values + (size_t)i * h->cfg.value_len;
		for (uint32_t j = 0; j < h->cfg.value_len; j++)
			v[j] = (uint8_t)rng_next(&s);
	}
}

static void *zalloc_aligned(size_t len)
{
	void *p = NULL;
	if (posix_memalign(&p, 4096, len ? len : 64))
		return NULL;
	memset(p, 0, len ? len : 64);
	return p;
}

int redn_hash_create(struct sim_dev *server, struct sim_dev *client,
                     const struct redn_hash_cfg *cfg, struct redn_hash **out)
{
	if (!server || !client || !cfg || !out || cfg->nbuckets == 0 || cfg->value_len == 0 ||
	    cfg->max_inflight == 0)
		return -EINVAL;
	struct redn_hash *h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->cfg = *cfg;
	h->sdev = server;
	h->cdev = client;
	uint32_t k = cfg->max_inflight;
	int rc = -ENOMEM;

	h->keys = calloc(cfg->nbuckets, REDN_KEY_BYTES);
	h->table = zalloc_aligned((size_t)cfg->nbuckets * REDN_BUCKET_BYTES);
	h->values = zalloc_aligned((size_t)cfg->nbuckets * cfg->value_len);
	h->scratch = zalloc_aligned(64);
	h->resp = zalloc_aligned((size_t)k * cfg->value_len);
	if (!h->keys || !h->table || !h->values || !h->scratch || !h->resp)
		goto fail;
	fill_table(h);

	const unsigned managed = SIM_QP_CROSS_CHANNEL | SIM_QP_MANAGED_SEND;
	if ((rc = make_cq(server, 4 * k, true, &h->cq_srv_send)) ||
	    (rc = make_cq(server, 4 * k, true, &h->cq_srv_recv)) ||
	    (rc = make_cq(server, 4 * k, true, &h->cq_wrk)) ||
	    (rc = make_cq(server, 4 * k, true, &h->cq_misc)) ||
	    (rc = make_cq(client, 4 * k, false, &h->cq_cli_send)) ||
	    (rc = make_cq(client, 4 * k, false, &h->cq_cli_recv)))
		goto fail;
	if ((rc = make_qp(server, h->cq_srv_send, h->cq_srv_recv, k, k, 2, managed, &h->srv)) ||
	    (rc = make_qp(server, h->cq_wrk, h->cq_misc, 2 * k, 0, 1, managed, &h->wrk)) ||
	    (rc = make_qp(server, h->cq_misc, h->cq_misc, 1, 0, 1, SIM_QP_CROSS_CHANNEL,
	                  &h->wrk_r)) ||
	    (rc = make_qp(server, h->cq_misc, h->cq_misc, 4 * k, 0, 1, SIM_QP_CROSS_CHANNEL,
	                  &h->ctl)) ||
	    (rc = make_qp(server, h->cq_misc, h->cq_misc, 1, 0, 1, SIM_QP_CROSS_CHANNEL,
	                  &h->ctl_r)) ||
	    (rc = make_qp(client, h->cq_cli_send, h->cq_cli_recv, k, k, 1, 0, &h->cli)))
		goto fail;
	hv_qp_init(&h->hsrv, h->srv, pow2_at_least(k), pow2_at_least(k));
	hv_qp_init(&h->hwrk, h->wrk, pow2_at_least(2 * k), 0);
	hv_qp_init(&h->hctl, h->ctl, pow2_at_least(4 * k), 0);
	hv_qp_init(&h->hcli, h->cli, pow2_at_least(k), pow2_at_least(k));
	hv_cq_init(&h->hcq_srv_send, h->cq_srv_send);
	hv_cq_init(&h->hcq_cli_recv, h->cq_cli_recv);
	hv_cq_init(&h->hcq_cli_send, h->cq_cli_send);

	if ((rc = connect_pair(server, h->srv, client, h->cli)) ||
	    (rc = connect_pair(server, h->wrk, server, h->wrk_r)) ||
	    (rc = connect_pair(server, h->ctl, server, h->ctl_r)))
		goto fail;

	const unsigned all = SIM_ACCESS_LOCAL_WRITE | SIM_ACCESS_REMOTE_WRITE |
	                     SIM_ACCESS_REMOTE_READ | SIM_ACCESS_REMOTE_ATOMIC;
	if ((rc = sim_mr_reg(server, h->table, (size_t)cfg->nbuckets * REDN_BUCKET_BYTES,
	                     SIM_ACCESS_REMOTE_READ, &h->mr_table)) ||
	    (rc = sim_mr_reg(server, h->values, (size_t)cfg->nbuckets * cfg->value_len, 0,
	                     &h->mr_values)) ||
	    (rc = sim_mr_reg(server, h->scratch, 64, SIM_ACCESS_LOCAL_WRITE, &h->mr_scratch)) ||
	    /* RedN registers the send queues themselves so chains can rewrite WQEs */
	    (rc = sim_mr_reg(server, sim_qp_buf(h->srv), sim_qp_buf_len(h->srv), all,
	                     &h->mr_srv_sq)) ||
	    (rc = sim_mr_reg(server, sim_qp_buf(h->wrk), sim_qp_buf_len(h->wrk), all,
	                     &h->mr_wrk_sq)) ||
	    (rc = sim_mr_reg(client, h->resp, (size_t)k * cfg->value_len,
	                     SIM_ACCESS_LOCAL_WRITE | SIM_ACCESS_REMOTE_WRITE, &h->mr_resp)))
		goto fail;
	*out = h;
	return 0;
fail:
	redn_hash_destroy(h);
	return rc;
}

void redn_hash_destroy(struct redn_hash *h)
{
	if (!h)
		return;
	struct sim_mr *mrs[] = {h->mr_table,  h->mr_values, h->mr_scratch,
	                        h->mr_srv_sq, h->mr_wrk_sq, h->mr_resp};
	for (size_t i = 0; i < sizeof(mrs) / sizeof(mrs[0]); i++)
		if (mrs[i])
			sim_mr_dereg(mrs[i]);
	struct sim_qp *qps[] = {h->srv, h->wrk, h->wrk_r, h->ctl, h->ctl_r, h->cli};
	for (size_t i = 0; i < sizeof(qps) / sizeof(qps[0]); i++)
		if (qps[i])
			sim_qp_destroy(qps[i]);
	struct sim_cq *cqs[] = {h->cq_srv_send, h->cq_srv_recv, h->cq_wrk,
	                        h->cq_misc,     h->cq_cli_send, h->cq_cli_recv};
	for (size_t i = 0; i < sizeof(cqs) / sizeof(cqs[0]); i++)
		if (cqs[i])
			sim_cq_destroy(cqs[i]);
	free(h->keys);
	free(h->table);
	free(h->values);
	free(h->scratch);
	free(h->resp);
	free(h);
}

/* Offset of @field in a WQE shaped like @w (the codec knows the layout). */
static uint32_t field_at(const struct prism_wqe *w, enum prism_wqe_field field)
{
	uint32_t off = 0, len = 0;
	if (prism_wqe_field_offset(w, field, &off, &len) != 0)
		abort(); /* a shape this file builds always has the field */
	return off;
}

/* Control-segment bytes 0-7 as the NIC's 8-byte atomic reads them (host order). */
static uint64_t ctrl_word(const struct prism_ctrl_seg *c)
{
	uint8_t b[16];
	uint64_t v;
	prism_ctrl_seg_pack(c, b);
	memcpy(&v, b, sizeof(v));
	return v;
}

/* The per-request values every WQE of one get needs. */
struct get_req {
	uint32_t id;
	uint64_t resp_addr; /* where the value lands at the client */
	const uint8_t *key;
	uint32_t bucket;
	/* the 0-based CQE numbers the two WAITs wait for: RedN posts
	 * IBV_WAIT_EXPLICIT(.., 1) through libmlx5, whose wait index starts at
	 * -1, so request n waits for CQE n (hash_bench.c, libmlx5 verbs.c) */
	uint32_t recv_index, wrk_index;
};

/* Client: a receive for the WRITE_IMM, then the SEND carrying the request
 * (encoded every time: its inline data is the request). */
/* The client's request: the key (byte-reversed, as the CAS compares it)
 * and the bucket's address, REDN_KEY_BYTES + 8 bytes of inline data. */
static void client_payload(const struct redn_hash *h, const struct get_req *q, uint8_t *out)
{
	uint64_t ba =
	    htobe64((uint64_t)(uintptr_t)(h->table + (size_t)q->bucket * REDN_BUCKET_BYTES));
	const uint8_t k0 = q->key[0], k1 = q->key[1], k2 = q->key[2]; /* before the stores */

	out[0] = k2;
	out[1] = k1;
	out[2] = k0;
	memcpy(out + REDN_KEY_BYTES, &ba, 8); /* big-endian */
}

/* Encodes the client's SEND and records (when @t) what a re-post over it
 * rewrites: the control segment and the inline data. */
static int post_client_send(struct redn_hash *h, const struct get_req *q, struct redn_tmpl *t)
{
	struct prism_wqe w;
	uint8_t *slot;
	uint32_t pi = h->hcli.sq_pi;

	hv_wqe(&w, PRISM_OP_SEND, false);
	w.is_inline = true;
	w.inline_len = REDN_KEY_BYTES + 8;
	client_payload(h, q, w.inline_data);
	int64_t c = hv_post_send(&h->hcli, &w, false, &slot);
	if (c < 0)
		return (int)c;
	if (t) {
		t->cli_bbs = h->hcli.sq_pi - pi;
		t->cli_inline = field_at(&w, PRISM_FIELD_INLINE_DATA);
	}
	return 0;
}

/* Re-posts the client's SEND over the one it left one lap ago: only the
 * control segment's WQE index and the inline payload change. */
static inline __attribute__((always_inline)) void patch_client_send(struct redn_hash *h,
                                                                    const struct get_req *q)
{
	const struct redn_tmpl *t = &h->t;
	const uint32_t pi = h->hcli.sq_pi, end = pi + t->cli_bbs, inline_off = t->cli_inline;
	uint8_t *slot = hv_sq_slot(&h->hcli, pi);

	put_be16(slot + t->idx_off, (uint16_t)(pi & 0xffff));
	client_payload(h, q, slot + inline_off);
	hv_sq_advance(&h->hcli, end);
}

/* Encodes every WQE of one get through the codec, and records in h->t what
 * a later re-post at the same ring positions has to rewrite. */
static int post_get_encode(struct redn_hash *h, const struct get_req *q)
{
	struct redn_tmpl *t = &h->t;
	struct prism_wqe w;
	int64_t c;

	/* R: the response, a WRITE_IMM of the value to the client, posted as a NOP
	 * whose QPN bytes will hold the bucket's key (RedN Fig. 9, R4). */
	struct prism_wqe r;
	hv_wqe(&r, PRISM_OP_RDMA_WRITE_IMM, false);
	r.ctrl.imm = q->id;
	r.has_raddr = true;
	r.raddr.raddr = q->resp_addr;
	r.raddr.rkey = sim_mr_rkey(h->mr_resp);
	r.num_sge = 1;
	r.sge[0] = (struct prism_sge){.byte_count = h->cfg.value_len,
	                              .lkey = sim_mr_lkey(h->mr_values),
	                              .addr = 0 /* patched by the READ */};
	uint8_t *r_slot;
	uint32_t pi = h->hsrv.sq_pi;
	c = hv_post_send(&h->hsrv, &r, false, &r_slot);
	if (c < 0)
		return (int)c;
	t->r_bbs = h->hsrv.sq_pi - pi;
	uint32_t r_end = h->hsrv.sq_pi;
	struct prism_ctrl_seg hit = r.ctrl, miss;
	prism_ctrl_seg_unpack(r_slot, &hit); /* as encoded: ds, index, qpn */
	miss = hit;
	miss.opcode = PRISM_OP_NOP;
	miss.qpn = 0; /* the key goes here */
	prism_ctrl_seg_pack(&miss, r_slot);
	memcpy(t->r_miss, r_slot, sizeof(t->r_miss));
	uint64_t hit_word = ctrl_word(&hit);
	memcpy(t->r_hit, &hit_word, sizeof(t->r_hit));
	t->imm_off = field_at(&r, PRISM_FIELD_CTRL_IMM);
	t->r_raddr = field_at(&r, PRISM_FIELD_RADDR);
	t->r_sge0_addr = field_at(&r, PRISM_FIELD_SGE0_ADDR);

	/* 3: READ the bucket; scatter the key into R's QPN bytes and the value
	 * address into R's data-segment address. */
	hv_wqe(&w, PRISM_OP_RDMA_READ, false);
	w.has_raddr = true;
	w.raddr.raddr = 0; /* patched by the RECV */
	w.raddr.rkey = sim_mr_rkey(h->mr_table);
	w.num_sge = 2;
	w.sge[0] = (struct prism_sge){
	    .byte_count = REDN_KEY_BYTES,
	    .lkey = sim_mr_lkey(h->mr_srv_sq),
	    .addr = (uint64_t)(uintptr_t)(r_slot + field_at(&r, PRISM_FIELD_CTRL_QPN))};
	w.sge[1] = (struct prism_sge){.byte_count = 8,
	                              .lkey = sim_mr_lkey(h->mr_srv_sq),
	                              .addr = (uint64_t)(uintptr_t)(r_slot + t->r_sge0_addr)};
	uint8_t *read_slot;
	pi = h->hwrk.sq_pi;
	c = hv_post_send(&h->hwrk, &w, false, &read_slot);
	if (c < 0)
		return (int)c;
	t->rd_bbs = h->hwrk.sq_pi - pi;
	t->idx_off = field_at(&w, PRISM_FIELD_CTRL_WQE_INDEX);
	t->rd_raddr = field_at(&w, PRISM_FIELD_RADDR);

	/* 4: CAS R.ctrl[0..7]: NOP+key -> WRITE_IMM+qpn, fenced behind the READ. */
	hv_wqe(&w, PRISM_OP_ATOMIC_CS, true);
	w.ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_SMALL_AND_FENCE, PRISM_CE_CQ_UPDATE, false);
	w.has_raddr = true;
	w.raddr.raddr = (uint64_t)(uintptr_t)r_slot;
	w.raddr.rkey = sim_mr_rkey(h->mr_srv_sq);
	w.has_atomic = true;
	w.atomic.size = 8;
	w.atomic.compare = ctrl_word(&miss); /* key bytes patched by the RECV */
	w.atomic.swap = ctrl_word(&hit);
	w.num_sge = 1;
	w.sge[0] = (struct prism_sge){.byte_count = 8,
	                              .lkey = sim_mr_lkey(h->mr_scratch),
	                              .addr = (uint64_t)(uintptr_t)h->scratch};
	uint8_t *cas_slot;
	pi = h->hwrk.sq_pi;
	c = hv_post_send(&h->hwrk, &w, false, &cas_slot);
	if (c < 0)
		return (int)c;
	t->cas_bbs = h->hwrk.sq_pi - pi;
	uint32_t wrk_end = h->hwrk.sq_pi;
	t->cas_compare = field_at(&w, PRISM_FIELD_ATOMIC_COMPARE);
	t->cas_idx = t->rd_bbs * PRISM_WQE_BB + t->idx_off;
	t->cas_cmp = t->rd_bbs * PRISM_WQE_BB + t->cas_compare;
	t->cas_swp = t->rd_bbs * PRISM_WQE_BB + field_at(&w, PRISM_FIELD_ATOMIC_SWAP);
	/*
	 * The compare operand is a big-endian field holding the host-order value
	 * of R.ctrl[0..7]: R's QPN bytes 4, 5, 6 sit at compare bytes 3, 2, 1.
	 */
	uint32_t cas_key_at = t->cas_compare + 1;

	/* Server receive: scatter the request into the CAS and the READ. */
	struct prism_sge rs[2] = {
	    {.byte_count = REDN_KEY_BYTES,
	     .lkey = sim_mr_lkey(h->mr_wrk_sq),
	     .addr = (uint64_t)(uintptr_t)(cas_slot + cas_key_at)},
	    {.byte_count = 8,
	     .lkey = sim_mr_lkey(h->mr_wrk_sq),
	     .addr = (uint64_t)(uintptr_t)(read_slot + t->rd_raddr)},
	};
	if ((c = hv_post_recv(&h->hsrv, rs, 2)) < 0)
		return (int)c;

	/* ctl: 1 WAIT recv, 2 SEND_EN wrk, 5 WAIT wrk CQ, 6 SEND_EN srv. */
	struct {
		uint8_t op;
		uint32_t index, obj;
	} steps[REDN_CTL_WQES] = {
	    {PRISM_OP_CQE_WAIT, q->recv_index, sim_cq_num(h->cq_srv_recv)},
	    {PRISM_OP_SEND_ENABLE, wrk_end & 0xffff, sim_qp_num(h->wrk)},
	    {PRISM_OP_CQE_WAIT, q->wrk_index, sim_cq_num(h->cq_wrk)},
	    {PRISM_OP_SEND_ENABLE, r_end & 0xffff, sim_qp_num(h->srv)},
	};
	pi = h->hctl.sq_pi;
	for (int i = 0; i < REDN_CTL_WQES; i++) {
		uint8_t *ctl_slot;
		hv_wqe(&w, steps[i].op, false);
		w.has_wait_en = true;
		w.wait_en.index = steps[i].index;
		w.wait_en.obj_num = steps[i].obj;
		t->ctl_at[i] = h->hctl.sq_pi - pi;
		if ((c = hv_post_send(&h->hctl, &w, false, &ctl_slot)) < 0)
			return (int)c;
		t->ctl_idx[i] = t->ctl_at[i] * PRISM_WQE_BB + t->idx_off;
		t->ctl_cnt[i] =
		    t->ctl_at[i] * PRISM_WQE_BB + field_at(&w, PRISM_FIELD_WAIT_EN_INDEX);
	}
	t->ctl_bbs = h->hctl.sq_pi - pi;

	if ((c = hv_post_recv(&h->hcli, NULL, 0)) < 0)
		return (int)c;
	t->valid = true;
	return post_client_send(h, q, t);
}

/* Ctl WQE @i of a re-posted get whose first is at @first, counter @pi: its
 * WQE index and its WAIT / SEND_EN counter @count. */
static inline void patch_ctl(const struct redn_tmpl *t, uint8_t *first, uint32_t pi, int i,
                             uint32_t count)
{
	put_be16(first + t->ctl_idx[i], (uint16_t)(pi + t->ctl_at[i]));
	put_be32(first + t->ctl_cnt[i], count);
}

/*
 * Re-posts one get over the WQEs that the same ring positions held one lap
 * ago (same shapes, same addresses in the rings): rewrites only what changed
 * -- counters in the control segments, the request id, the reply address,
 * the CAS operands, and the fields the last run's chain patched -- at the
 * codec's field offsets.  The receives are re-posted unchanged.
 */
static inline __attribute__((always_inline)) int post_get_patch(struct redn_hash *h,
                                                                const struct get_req *q)
{
	const struct redn_tmpl *t = &h->t;
	const uint32_t idx = t->idx_off; /* read once: ring stores may alias t */
	/* the counters each ring moves to (read before the ring stores, too) */
	const uint32_t srv_pi = h->hsrv.sq_pi, rd_pi = h->hwrk.sq_pi, ctl_pi = h->hctl.sq_pi;
	const uint32_t r_end = srv_pi + t->r_bbs, cas_pi = rd_pi + t->rd_bbs;
	const uint32_t wrk_end = cas_pi + t->cas_bbs;

	uint8_t *r_slot = hv_sq_slot(&h->hsrv, srv_pi);
	memcpy(r_slot, t->r_miss, sizeof(t->r_miss)); /* R as a NOP (the miss) */
	put_be16(r_slot + idx, (uint16_t)srv_pi);
	put_be32(r_slot + t->imm_off, q->id);
	uint8_t hit[sizeof(t->r_hit)]; /* R's bytes 0-7 as the CAS makes them */
	memcpy(hit, t->r_hit, sizeof(hit));
	put_be16(hit + idx, (uint16_t)srv_pi);
	put_be64(r_slot + t->r_raddr, q->resp_addr);
	put_be64(r_slot + t->r_sge0_addr, 0); /* patched by the READ */
	hv_sq_advance(&h->hsrv, r_end);

	/* A get's WQEs on one ring never wrap: each ring holds a whole number
	 * of gets and the rings moved in step (can_patch), so the next WQE of
	 * the same get follows in memory. */
	uint8_t *read_slot = hv_sq_slot(&h->hwrk, rd_pi);
	put_be16(read_slot + idx, (uint16_t)rd_pi);
	put_be64(read_slot + t->rd_raddr, 0); /* patched by the RECV */

	put_be16(read_slot + t->cas_idx, (uint16_t)cas_pi);
	uint64_t miss_word, hit_word;
	memcpy(&miss_word, r_slot, sizeof(miss_word)); /* R as just written: the miss */
	memcpy(&hit_word, hit, sizeof(hit_word));
	put_be64(read_slot + t->cas_cmp, miss_word);
	put_be64(read_slot + t->cas_swp, hit_word);
	hv_sq_advance(&h->hwrk, wrk_end);

	hv_rq_advance(&h->hsrv);

	/* ctl: 1 WAIT recv, 2 SEND_EN wrk, 5 WAIT wrk CQ, 6 SEND_EN srv */
	uint8_t *ctl_slot = hv_sq_slot(&h->hctl, ctl_pi);
	patch_ctl(t, ctl_slot, ctl_pi, 0, q->recv_index);
	patch_ctl(t, ctl_slot, ctl_pi, 1, wrk_end & 0xffff);
	patch_ctl(t, ctl_slot, ctl_pi, 2, q->wrk_index);
	patch_ctl(t, ctl_slot, ctl_pi, 3, r_end & 0xffff);
	hv_sq_advance(&h->hctl, ctl_pi + t->ctl_bbs); /* the four at once */

	hv_rq_advance(&h->hcli);
	patch_client_send(h, q);
	return 0;
}

/*
 * True when every ring position the next get uses holds the WQE the same
 * step of an earlier get left there: each ring has been filled once, all
 * rings moved in step (no get stopped half-posted), and a ring's size is a
 * whole number of gets.
 */
static bool can_patch(struct redn_hash *h)
{
	struct redn_tmpl *t = &h->t;
	uint32_t n = h->next_req;

	if (!t->valid || h->cfg.encode_every_wqe)
		return false;
	if (t->steady)
		return true;
	struct {
		const struct hv_qp *q;
		uint32_t per_get; /* basic blocks (send) or receives per get */
		bool sq;
	} rings[] = {
	    {&h->hsrv, t->r_bbs, true},   {&h->hwrk, t->rd_bbs + t->cas_bbs, true},
	    {&h->hctl, t->ctl_bbs, true}, {&h->hsrv, 1, false},
	    {&h->hcli, 1, false},         {&h->hcli, t->cli_bbs, true},
	};
	for (size_t i = 0; i < sizeof(rings) / sizeof(rings[0]); i++) {
		const struct hv_qp *q = rings[i].q;
		uint32_t size = rings[i].sq ? q->sq_bbs : q->rq_n;
		uint32_t pi = rings[i].sq ? q->sq_pi : q->rq_pi;
		if (size % rings[i].per_get || (uint64_t)n * rings[i].per_get < size ||
		    pi != n * rings[i].per_get)
			return false;
	}
	t->steady = true;
	return true;
}

/* Posts by patching, then posts the same get again through the codec over
 * the same positions and checks that every queue byte came out the same. */
static int post_get_checked(struct redn_hash *h, const struct get_req *q)
{
	struct hv_qp saved[4] = {h->hsrv, h->hwrk, h->hctl, h->hcli};
	struct sim_qp *qps[4] = {h->srv, h->wrk, h->ctl, h->cli};
	uint8_t *patched[4] = {NULL};
	int rc = post_get_patch(h, q);

	for (int i = 0; i < 4 && rc == 0; i++) {
		patched[i] = malloc(sim_qp_buf_len(qps[i]));
		if (!patched[i])
			rc = -ENOMEM;
		else
			memcpy(patched[i], sim_qp_buf(qps[i]), sim_qp_buf_len(qps[i]));
	}
	struct hv_qp after[4] = {h->hsrv, h->hwrk, h->hctl, h->hcli};
	if (rc == 0) {
		h->hsrv = saved[0];
		h->hwrk = saved[1];
		h->hctl = saved[2];
		h->hcli = saved[3];
		rc = post_get_encode(h, q);
	}
	struct hv_qp now[4] = {h->hsrv, h->hwrk, h->hctl, h->hcli};
	for (int i = 0; i < 4 && rc == 0; i++)
		if (memcmp(patched[i], sim_qp_buf(qps[i]), sim_qp_buf_len(qps[i])) ||
		    now[i].sq_pi != after[i].sq_pi || now[i].rq_pi != after[i].rq_pi)
			rc = -EPROTO;
	for (int i = 0; i < 4; i++)
		free(patched[i]);
	return rc;
}

int redn_hash_post_get(struct redn_hash *h, const uint8_t key[REDN_KEY_BYTES], uint32_t bucket,
                       uint32_t *req_id)
{
	if (h->inflight >= h->cfg.max_inflight)
		return -EAGAIN;
	if (bucket >= h->cfg.nbuckets)
		return -EINVAL;
	struct get_req q = {
	    .id = h->next_req,
	    .resp_addr = (uint64_t)(uintptr_t)(h->resp + (size_t)h->resp_slot * h->cfg.value_len),
	    .key = key,
	    .bucket = bucket,
	    .recv_index = h->srv_recvs & 0xffffff,
	    .wrk_index = h->wrk_cqes & 0xffffff,
	};
	int rc;

	if (h->t.steady && !h->cfg.check_patches) /* what can_patch says, sooner */
		rc = post_get_patch(h, &q);
	else if (!can_patch(h))
		rc = post_get_encode(h, &q);
	else if (h->cfg.check_patches)
		rc = post_get_checked(h, &q);
	else
		rc = post_get_patch(h, &q);
	if (rc) {
		h->t.steady = false; /* rings may be half-posted: check again */
		return rc;
	}
	h->srv_recvs++;
	h->wrk_cqes++;

	if (!h->cfg.defer_doorbells) {
		rc = redn_hash_ring(h);
		if (rc) {
			h->t.steady = false; /* posted, but not counted */
			return rc;
		}
	}
	h->next_req++;
	if (++h->resp_slot == h->cfg.max_inflight)
		h->resp_slot = 0;
	h->inflight++;
	if (req_id)
		*req_id = q.id;
	return 0;
}

int redn_hash_ring(struct redn_hash *h)
{
	/* the gets posted since the last ring are one list per queue: their
	 * doorbell records are written once (a re-posted get leaves them);
	 * a managed queue's send record never (libmlx5 does not write it
	 * for MANAGED_SEND: SEND_EN runs it, docs/nic-model.md 3.8) */
	hv_publish_rq(&h->hsrv);
	hv_publish_sq(&h->hctl);
	hv_publish_sq(&h->hcli);
	hv_publish_rq(&h->hcli);
	int rc = hv_ring(&h->hctl);
	return rc ? rc : hv_ring(&h->hcli);
}

int redn_hash_poll_reply(struct redn_hash *h, struct redn_hash_reply *r)
{
	/* the two fields a reply needs, read from the CQE in place */
	const uint8_t *cqe = hv_cq_peek(&h->hcq_cli_recv);
	if (!cqe)
		return 0;
	uint8_t opcode = cqe[63] >> 4;
	uint32_t imm = get_be32(cqe + 36);
	hv_cq_pop(&h->hcq_cli_recv);
	if (opcode != PRISM_CQE_RESP_WR_IMM)
		return -EPROTO;
	r->req_id = imm;
	r->value = h->resp + (size_t)(imm % h->cfg.max_inflight) * h->cfg.value_len;
	return 1;
}

int redn_hash_poll_server_error(struct redn_hash *h, struct prism_cqe *cqe)
{
	int rc;
	while ((rc = hv_poll(&h->hcq_srv_send, cqe)) == 1)
		if (cqe->opcode == PRISM_CQE_REQ_ERR || cqe->opcode == PRISM_CQE_RESP_ERR)
			return 1;
	return rc;
}

void redn_hash_drained(struct redn_hash *h)
{
	h->inflight = 0;
	struct prism_cqe cqe;
	while (hv_poll(&h->hcq_cli_send, &cqe) == 1)
		;
}
