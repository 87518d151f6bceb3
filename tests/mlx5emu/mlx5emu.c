/* SPDX-License-Identifier: MIT */
/*
 * tests/mlx5emu/mlx5emu.c - the emulator's verbs side: device list,
 * contexts (one sim device each, threaded unless manual), PD and pdn,
 * memory regions (sim MRs: the keys are the sim's), umem registration, UAR
 * pages, the EQ number, the doorbells the backend writes to a UAR register
 * (the send doorbell here; a CQ arm doorbell goes to mlx5emu_event.c), and
 * running the NICs in manual mode.
 *
 * Owns: the emulator's object lists and its loud-failure record.
 * Must not: parse PRM commands (mlx5emu_cmd.c does).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/mlx5emu/mlx5emu_internal.h"

struct emu emu = {.lock = PTHREAD_MUTEX_INITIALIZER};

int emu_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(emu.last_error, sizeof(emu.last_error), fmt, ap);
	va_end(ap);
	emu.errors++;
	if (!emu.o.quiet)
		fprintf(stderr, "mlx5emu: %s\n", emu.last_error);
	errno = err;
	return -err;
}

unsigned mlx5emu_errors(void)
{
	return emu.errors;
}

const char *mlx5emu_last_error(void)
{
	return emu.last_error;
}

uint64_t mlx5emu_doorbells(void)
{
	return __atomic_load_n(&emu.doorbells, __ATOMIC_RELAXED);
}

uint64_t mlx5emu_managed_doorbells(void)
{
	return __atomic_load_n(&emu.managed_doorbells, __ATOMIC_RELAXED);
}

/* Manual mode: run every NIC until idle; the first nonzero result of this
 * run or of one a doorbell started since the last call. */
static int manual_run(void)
{
	pthread_mutex_lock(&emu.lock);
	struct sim_fabric *f = emu.fabric;
	/* A NIC retries an RNR-NAKed SEND after its timer, receive posted or
	 * not (the backend posts receives by dbrec[0] alone): what the
	 * threaded NIC does when it wakes idle, done here per run. */
	for (struct emu_ctx *c = emu.ctxs; c; c = c->next)
		for (struct mlx5dv_devx_obj *o = c->objs; o; o = o->next)
			if (o->kind == EMU_OBJ_QP)
				sim_qp_ring_rq_doorbell(o->qp);
	pthread_mutex_unlock(&emu.lock);
	int rc = f ? sim_fabric_run(f, 0) : 0;

	pthread_mutex_lock(&emu.lock);
	if (rc && !emu.manual_rc)
		emu.manual_rc = rc;
	pthread_mutex_unlock(&emu.lock);
	return rc;
}

int mlx5emu_run(void)
{
	int rc;

	if (!emu.o.manual)
		return -EINVAL;
	manual_run();
	pthread_mutex_lock(&emu.lock);
	rc = emu.manual_rc;
	emu.manual_rc = 0;
	pthread_mutex_unlock(&emu.lock);
	return rc;
}

struct sim_dev *mlx5emu_sim(unsigned index)
{
	struct sim_dev *s;

	pthread_mutex_lock(&emu.lock);
	s = index < EMU_MAX_DEVS ? emu.nic[index] : NULL;
	pthread_mutex_unlock(&emu.lock);
	return s;
}

/* ---- devices and contexts --------------------------------------------- */

static struct ibv_device **get_device_list(int *num)
{
	unsigned n = emu.o.n_devices;
	struct ibv_device **list = calloc(n + 1, sizeof(*list));

	if (!list) {
		errno = ENOMEM;
		return NULL;
	}
	for (unsigned i = 0; i < n; i++)
		list[i] = &emu.devs[i];
	if (num)
		*num = (int)n;
	return list;
}

static void free_device_list(struct ibv_device **list)
{
	free(list);
}

static const char *get_device_name(struct ibv_device *dev)
{
	return dev->name;
}

static bool dv_is_supported(struct ibv_device *dev)
{
	return dev >= emu.devs && dev < emu.devs + EMU_MAX_DEVS;
}

static struct ibv_context *dv_open_device(struct ibv_device *dev, struct mlx5dv_context_attr *a)
{
	struct sim_dev_opts so = {.sz = sizeof(so)};
	struct emu_ctx *c;

	if (!dv_is_supported(dev)) {
		emu_fail(EINVAL, "mlx5dv_open_device: not an emulated device");
		return NULL;
	}
	if (a && (a->flags & MLX5DV_CONTEXT_FLAGS_DEVX) && emu.o.no_devx) {
		errno = EOPNOTSUPP; /* the kernel refuses a DEVX user context (log_max_uctx 0) */
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	c->pub.device = dev;
	c->dev_index = (unsigned)(dev - emu.devs);
	c->lid = (uint16_t)(c->dev_index + 1);
	c->devx = a && (a->flags & MLX5DV_CONTEXT_FLAGS_DEVX);
	c->next_umem_id = 1;
	c->next_uar_page = 0x10;
	c->next_pdn = 0x100;
	so.seed = emu.o.seed;
	so.fw = emu.o.relaxed_fw ? SIM_FW_RELAXED : SIM_FW_STRICT;
	so.hazard = emu.o.hazard ? (enum sim_hazard_policy)emu.o.hazard : SIM_HAZARD_WARN;
	so.node = emu_node(c->dev_index);
	pthread_mutex_lock(&emu.lock);
	if (!emu.fabric && sim_fabric_create(&emu.fabric)) {
		pthread_mutex_unlock(&emu.lock);
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	if (!emu.nic[c->dev_index]) {
		struct sim_dev *s = NULL;

		if (sim_dev_open(&so, &s) || sim_fabric_attach(emu.fabric, s) ||
		    (emu.o.fabric_dir && emu_xwire_attach(c->dev_index, s)) ||
		    (!emu.o.manual && sim_dev_start(s))) {
			if (s)
				sim_dev_close(s);
			pthread_mutex_unlock(&emu.lock);
			free(c);
			errno = ENOMEM;
			return NULL;
		}
		emu.nic[c->dev_index] = s;
	}
	emu.nic_users[c->dev_index]++;
	emu.users++;
	c->sim = emu.nic[c->dev_index];
	c->next = emu.ctxs;
	emu.ctxs = c;
	pthread_mutex_unlock(&emu.lock);
	return &c->pub;
}

static int close_device(struct ibv_context *ctx)
{
	struct emu_ctx *c = (struct emu_ctx *)ctx, **pp;

	if (c->objs || c->umems || c->uars || c->pds || c->mrs || c->evchs)
		return -emu_fail(EBUSY, "ibv_close_device: objects still alive (%s%s%s%s%s%s)",
		                 c->objs ? "DEVX objects " : "", c->umems ? "umem " : "",
		                 c->uars ? "UAR " : "", c->pds ? "PD " : "", c->mrs ? "MR " : "",
		                 c->evchs ? "event channel" : "");
	pthread_mutex_lock(&emu.lock);
	for (pp = &emu.ctxs; *pp && *pp != c; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = c->next;
	emu.nic_users[c->dev_index]--;
	if (--emu.users == 0) {
		/* no packet from another process from now on, then stop every
		 * NIC thread before the fabric goes */
		emu_xwire_stop();
		for (unsigned i = 0; i < EMU_MAX_DEVS; i++)
			if (emu.nic[i])
				sim_dev_stop(emu.nic[i]);
		sim_fabric_destroy(emu.fabric);
		emu.fabric = NULL;
		for (unsigned i = 0; i < EMU_MAX_DEVS; i++) {
			if (emu.nic[i])
				sim_dev_close(emu.nic[i]);
			emu.nic[i] = NULL;
		}
	}
	pthread_mutex_unlock(&emu.lock);
	free(c);
	return 0;
}

static int query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr)
{
	struct emu_ctx *c = (struct emu_ctx *)ctx;

	if (port != 1)
		return emu_fail(EINVAL, "ibv_query_port: port %u (the device has port 1)", port);
	memset(attr, 0, sizeof(*attr));
	attr->state = IBV_PORT_ACTIVE;
	attr->max_mtu = IBV_MTU_4096;
	attr->active_mtu = IBV_MTU_4096;
	attr->lid = emu.o.roce ? 0 : c->lid; /* Ethernet ports have no LID */
	attr->link_layer = emu.o.roce ? IBV_LINK_LAYER_ETHERNET : IBV_LINK_LAYER_INFINIBAND;
	attr->gid_tbl_len = 1;
	return 0;
}

static int query_gid(struct ibv_context *ctx, uint8_t port, int index, union ibv_gid *gid)
{
	struct emu_ctx *c = (struct emu_ctx *)ctx;

	if (port != 1 || index != 0)
		return emu_fail(EINVAL, "ibv_query_gid: port %u index %d", port, index);
	emu_gid(c->dev_index, gid->raw);
	return 0;
}

uint32_t emu_node(unsigned dev_index)
{
	/* across processes the node id names the process too */
	return emu.o.fabric_dir ? (uint32_t)getpid() << 3 | (dev_index + 1) : dev_index + 1;
}

void emu_gid(unsigned dev_index, uint8_t gid[16])
{
	uint32_t node = emu_node(dev_index);

	memset(gid, 0, 16);
	if (emu.o.roce) {
		gid[10] = gid[11] = 0xff; /* IPv4-mapped: 10.0.0.(i + 1), or the node */
		gid[12] = emu.o.fabric_dir ? (uint8_t)(node >> 24) : 10;
		gid[13] = (uint8_t)(node >> 16);
		gid[14] = (uint8_t)(node >> 8);
	} else {
		gid[0] = 0xfe;
		gid[1] = 0x80;
	}
	gid[15] = (uint8_t)node;
}

void emu_mac(uint32_t node, uint8_t mac[6])
{
	mac[0] = 0x02;
	mac[1] = 0;
	mac[2] = (uint8_t)(node >> 24);
	mac[3] = (uint8_t)(node >> 16);
	mac[4] = (uint8_t)(node >> 8);
	mac[5] = (uint8_t)node;
}

int emu_node_by_gid(const uint8_t gid[16], uint32_t *node)
{
	static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	if (emu.o.fabric_dir) { /* any process's port: found when a packet goes */
		if (memcmp(gid, v4mapped, 12))
			return -1;
		*node = (uint32_t)gid[12] << 24 | (uint32_t)gid[13] << 16 | (uint32_t)gid[14] << 8 |
		        gid[15];
		return *node ? 0 : -1;
	}
	for (unsigned i = 0; i < emu.o.n_devices; i++) {
		uint8_t g[16];

		emu_gid(i, g);
		if (!memcmp(g, gid, 16)) {
			*node = emu_node(i);
			return 0;
		}
	}
	return -1;
}

/* ---- address handles (RoCE: the kernel resolves a GID to a MAC) ------- */

struct emu_ah {
	struct ibv_ah pub;
	struct mlx5_wqe_av av;
};

static struct ibv_ah *create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	uint32_t node = 0;
	struct emu_ah *ah;

	if (!emu.o.roce || !attr->is_global || emu_node_by_gid(attr->grh.dgid.raw, &node) ||
	    attr->port_num != 1) {
		errno = EHOSTUNREACH; /* no neighbour entry for that address */
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	ah->pub.context = pd->context;
	ah->pub.pd = pd;
	emu_mac(node, ah->av.rmac);
	memcpy(ah->av.rgid, attr->grh.dgid.raw, 16);
	return &ah->pub;
}

static int destroy_ah(struct ibv_ah *ah)
{
	free(ah);
	return 0;
}

/* ---- PD, MR ------------------------------------------------------------- */

static struct ibv_pd *alloc_pd(struct ibv_context *ctx)
{
	struct emu_ctx *c = (struct emu_ctx *)ctx;
	struct emu_pd *p = calloc(1, sizeof(*p));

	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	p->pub.context = ctx;
	if (sim_pd_alloc(c->sim, &p->sim)) {
		free(p);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&emu.lock);
	p->pdn = c->next_pdn++;
	p->next = c->pd_list;
	c->pd_list = p;
	c->pds++;
	pthread_mutex_unlock(&emu.lock);
	return &p->pub;
}

static int dealloc_pd(struct ibv_pd *pd)
{
	struct emu_ctx *c = (struct emu_ctx *)pd->context;
	struct emu_pd *p = (struct emu_pd *)pd, **pp;
	int rc = sim_pd_dealloc(p->sim);

	if (rc)
		return rc < 0 ? -rc : EBUSY; /* MRs or QPs still in it */
	pthread_mutex_lock(&emu.lock);
	for (pp = &c->pd_list; *pp && *pp != p; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = p->next;
	c->pds--;
	pthread_mutex_unlock(&emu.lock);
	free(p);
	return 0;
}

struct sim_pd *emu_pd_by_pdn(struct emu_ctx *c, uint32_t pdn)
{
	struct emu_pd *p;

	pthread_mutex_lock(&emu.lock);
	for (p = c->pd_list; p && p->pdn != pdn; p = p->next)
		;
	pthread_mutex_unlock(&emu.lock);
	return p ? p->sim : NULL;
}

static int dv_init_obj(struct mlx5dv_obj *obj, uint64_t type)
{
	if (type == MLX5DV_OBJ_PD) {
		obj->pd.out->pdn = ((struct emu_pd *)obj->pd.in)->pdn;
		return 0;
	}
	if (type == MLX5DV_OBJ_AH) {
		obj->ah.out->av = &((struct emu_ah *)obj->ah.in)->av;
		return 0;
	}
	return emu_fail(EOPNOTSUPP, "mlx5dv_init_obj: object type 0x%llx not emulated",
	                (unsigned long long)type);
}

static struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	struct emu_ctx *c = (struct emu_ctx *)pd->context;
	struct emu_mr *m = calloc(1, sizeof(*m));
	int rc;

	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	rc = sim_mr_reg_pd(((struct emu_pd *)pd)->sim, addr, len, (unsigned)access, &m->mr);
	if (rc) {
		free(m);
		errno = rc < 0 ? -rc : EINVAL;
		return NULL;
	}
	m->pub.context = pd->context;
	m->pub.pd = pd;
	m->pub.addr = addr;
	m->pub.length = len;
	m->pub.lkey = sim_mr_lkey(m->mr);
	m->pub.rkey = sim_mr_rkey(m->mr);
	pthread_mutex_lock(&emu.lock);
	c->mrs++;
	pthread_mutex_unlock(&emu.lock);
	return &m->pub;
}

static int dereg_mr(struct ibv_mr *mr)
{
	struct emu_mr *m = (struct emu_mr *)mr;
	struct emu_ctx *c = (struct emu_ctx *)mr->context;
	int rc = sim_mr_dereg(m->mr);

	if (rc)
		return rc < 0 ? -rc : rc;
	pthread_mutex_lock(&emu.lock);
	c->mrs--;
	pthread_mutex_unlock(&emu.lock);
	free(m);
	return 0;
}

/* ---- umem, UAR, EQ ------------------------------------------------------ */

static struct mlx5dv_devx_umem *umem_reg(struct ibv_context *ctx, void *addr, size_t size,
                                         uint32_t access)
{
	struct emu_ctx *c = (struct emu_ctx *)ctx;
	struct emu_umem *u;

	if (!c->devx) {
		emu_fail(EOPNOTSUPP, "mlx5dv_devx_umem_reg on a context opened without DEVX");
		return NULL;
	}
	if (!addr || !size || ((uintptr_t)addr & 4095)) {
		emu_fail(EINVAL,
		         "mlx5dv_devx_umem_reg: %zu bytes at %p (page-aligned memory "
		         "expected)",
		         size, addr);
		return NULL;
	}
	u = calloc(1, sizeof(*u));
	if (!u) {
		errno = ENOMEM;
		return NULL;
	}
	u->ctx = c;
	u->addr = addr;
	u->size = size;
	pthread_mutex_lock(&emu.lock);
	u->pub.umem_id = c->next_umem_id++;
	u->next = c->umems;
	c->umems = u;
	pthread_mutex_unlock(&emu.lock);
	return &u->pub;
}

static int umem_dereg(struct mlx5dv_devx_umem *umem)
{
	struct emu_umem *u = (struct emu_umem *)umem, **pp;

	pthread_mutex_lock(&emu.lock);
	for (pp = &u->ctx->umems; *pp && *pp != u; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = u->next;
	pthread_mutex_unlock(&emu.lock);
	free(u);
	return 0;
}

struct emu_umem *emu_umem_find(struct emu_ctx *c, uint32_t id)
{
	struct emu_umem *u;

	pthread_mutex_lock(&emu.lock);
	for (u = c->umems; u && u->pub.umem_id != id; u = u->next)
		;
	pthread_mutex_unlock(&emu.lock);
	return u;
}

static struct mlx5dv_devx_uar *alloc_uar(struct ibv_context *ctx, uint32_t flags)
{
	struct emu_ctx *c = (struct emu_ctx *)ctx;
	struct emu_uar *u;

	if (flags != MLX5DV_UAR_ALLOC_TYPE_NC && flags != MLX5DV_UAR_ALLOC_TYPE_BF) {
		emu_fail(EINVAL, "mlx5dv_devx_alloc_uar: flags 0x%x", flags);
		return NULL;
	}
	u = calloc(1, sizeof(*u));
	if (u)
		u->pub.base_addr = aligned_alloc(4096, 4096);
	if (!u || !u->pub.base_addr) {
		free(u);
		errno = ENOMEM;
		return NULL;
	}
	memset(u->pub.base_addr, 0, 4096);
	/* the doorbell register of a UAR page sits at 0x800 (mlx5 BF offset) */
	u->pub.reg_addr = (uint8_t *)u->pub.base_addr + 0x800;
	u->ctx = c;
	pthread_mutex_lock(&emu.lock);
	u->pub.page_id = c->next_uar_page++;
	u->next = c->uars;
	c->uars = u;
	pthread_mutex_unlock(&emu.lock);
	return &u->pub;
}

static void free_uar(struct mlx5dv_devx_uar *uar)
{
	struct emu_uar *u = (struct emu_uar *)uar, **pp;

	pthread_mutex_lock(&emu.lock);
	for (pp = &u->ctx->uars; *pp && *pp != u; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = u->next;
	pthread_mutex_unlock(&emu.lock);
	free(u->pub.base_addr);
	free(u);
}

bool emu_uar_page_known(struct emu_ctx *c, uint32_t page)
{
	bool ok = false;

	pthread_mutex_lock(&emu.lock);
	for (struct emu_uar *u = c->uars; u && !ok; u = u->next)
		ok = u->pub.page_id == page;
	pthread_mutex_unlock(&emu.lock);
	return ok;
}

static int query_eqn(struct ibv_context *ctx, uint32_t vector, uint32_t *eqn)
{
	if (vector != 0)
		return emu_fail(EINVAL, "mlx5dv_devx_query_eqn: vector %u (one completion vector)",
		                vector);
	*eqn = EMU_EQN;
	return 0;
}

/*
 * A doorbell: the 8 bytes are a control segment's first two dwords,
 * opmod_idx_opcode and qpn_ds (mlx5dv.h struct mlx5_wqe_ctrl_seg).  The QPN
 * picks the queue; the NIC then reads the producer index from that QP's
 * doorbell record, which the sim does in sim_qp_ring_sq_doorbell.
 */
static void uar_write64(void *reg, uint64_t bytes)
{
	const uint8_t *b = (const uint8_t *)&bytes;
	uint32_t qpn = (uint32_t)b[4] << 16 | (uint32_t)b[5] << 8 | b[6];
	struct mlx5dv_devx_obj *o = NULL;
	struct emu_ctx *c;
	bool cq_db = false;

	memcpy(reg, &bytes, 8);
	pthread_mutex_lock(&emu.lock);
	for (c = emu.ctxs; c; c = c->next) {
		struct emu_uar *u;

		for (u = c->uars; u && u->pub.reg_addr != reg &&
		                  (uint8_t *)u->pub.base_addr + EMU_CQ_DOORBELL != reg;
		     u = u->next)
			;
		if (u) {
			cq_db = reg != u->pub.reg_addr;
			break;
		}
	}
	for (o = c && !cq_db ? c->objs : NULL; o && !(o->kind == EMU_OBJ_QP && o->num == qpn);
	     o = o->next)
		;
	pthread_mutex_unlock(&emu.lock);
	if (cq_db) {
		emu_cq_doorbell(c, bytes);
		return;
	}
	if (!c) {
		emu_fail(EFAULT, "doorbell written to %p, not a UAR register", reg);
		return;
	}
	if (!o) {
		emu_fail(EINVAL, "doorbell for QPN 0x%x, no such QP on this device", qpn);
		return;
	}
	__atomic_add_fetch(&emu.doorbells, 1, __ATOMIC_RELAXED);
	if (o->managed_send) /* it starts the queue (rule 3.5); a driver never does it */
		__atomic_add_fetch(&emu.managed_doorbells, 1, __ATOMIC_RELAXED);
	if (sim_qp_ring_sq_doorbell(o->qp))
		emu_fail(EINVAL, "doorbell for QPN 0x%x refused by the QP (state %s)", qpn,
		         sim_qp_state_name(sim_qp_state(o->qp)));
	else if (emu.o.manual) /* a NIC starts on its doorbell */
		manual_run();
}

static const struct mlx5_glue emu_glue = {
    .name = "mlx5emu",
    .get_device_list = get_device_list,
    .free_device_list = free_device_list,
    .get_device_name = get_device_name,
    .dv_is_supported = dv_is_supported,
    .dv_open_device = dv_open_device,
    .close_device = close_device,
    .query_port = query_port,
    .query_gid = query_gid,
    .alloc_pd = alloc_pd,
    .dealloc_pd = dealloc_pd,
    .dv_init_obj = dv_init_obj,
    .reg_mr = reg_mr,
    .create_ah = create_ah,
    .destroy_ah = destroy_ah,
    .dereg_mr = dereg_mr,
    .devx_general_cmd = emu_general_cmd,
    .devx_umem_reg = umem_reg,
    .devx_umem_dereg = umem_dereg,
    .devx_alloc_uar = alloc_uar,
    .devx_free_uar = free_uar,
    .devx_query_eqn = query_eqn,
    .devx_obj_create = emu_obj_create,
    .devx_obj_modify = emu_obj_modify,
    .devx_obj_destroy = emu_obj_destroy,
    .devx_create_event_channel = emu_create_event_channel,
    .devx_destroy_event_channel = emu_destroy_event_channel,
    .devx_subscribe_devx_event = emu_subscribe_devx_event,
    .devx_get_event = emu_get_event,
    .uar_write64 = uar_write64,
};

void mlx5emu_install(const struct mlx5emu_opts *opts)
{
	pthread_mutex_lock(&emu.lock);
	emu.o = opts ? *opts : (struct mlx5emu_opts){0};
	if (!emu.o.n_devices)
		emu.o.n_devices = 1;
	if (emu.o.n_devices > EMU_MAX_DEVS)
		emu.o.n_devices = EMU_MAX_DEVS;
	if (!emu.o.atomic_size_qp)
		emu.o.atomic_size_qp = 4 | 8 | 16 | 32;
	if (emu.o.fabric_dir) /* ports of other processes are reached by GID */
		emu.o.roce = true;
	for (unsigned i = 0; i < EMU_MAX_DEVS; i++) {
		memset(&emu.devs[i], 0, sizeof(emu.devs[i]));
		snprintf(emu.devs[i].name, sizeof(emu.devs[i].name), "mlx5_%u", i);
		emu.devs[i].node_type = IBV_NODE_CA;
		emu.devs[i].transport_type = IBV_TRANSPORT_IB;
	}
	emu.errors = 0;
	emu.last_error[0] = 0;
	emu.doorbells = 0;
	emu.managed_doorbells = 0;
	emu.manual_rc = 0;
	pthread_mutex_unlock(&emu.lock);
	mlx5_glue_set(&emu_glue);
}

const struct mlx5_glue *mlx5emu_glue(void)
{
	return &emu_glue;
}

void mlx5emu_uninstall(void)
{
	mlx5_glue_set(NULL);
	if (emu.ctxs)
		emu_fail(EBUSY, "uninstalled with contexts still open");
}

unsigned mlx5emu_finish(void)
{
	mlx5emu_uninstall();
	return mlx5emu_errors();
}
