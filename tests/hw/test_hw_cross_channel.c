/* SPDX-License-Identifier: MIT */
/*
 * tests/hw/test_hw_cross_channel.c - NIC-model rules for cross-channel
 * (managed) queues on a real ConnectX: a managed send queue ignores the host
 * doorbell and runs only what SEND_EN enabled, WAIT holds a queue until a CQ
 * produced a count of CQEs, RECV_EN enables receive WQEs.  One test per rule
 * of docs/nic-model.md, named after the rule (hw_<rule>).
 *
 * Cross-channel QPs cannot be created through upstream verbs: rdma-core's
 * ibv_create_qp_ex and mlx5dv_create_qp reject the cross-channel creation
 * flags that MLNX_OFED's experimental verbs had.  The route is DEVX
 * (CREATE_QP with qpc.cd_master / cd_slave_send / cd_slave_receive, the WQ
 * and doorbell record in umem), which needs the HCA capability `cd`.  Each
 * test reports precisely which of these steps is missing on this machine.
 *
 * Owns: the capability probe of these tests.  Must not: leave a device
 * setting changed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests/hw/hw_common.h"

/*
 * Skips unless the device can make cross-channel QPs, with the reason:
 * no device, not mlx5, no DEVX context, QUERY_HCA_CAP refused, cd = 0, or
 * (last) the DEVX QP path that tests/hw does not have yet.
 */
static void need_cross_channel(void **state, const char *rule)
{
	struct hw_env *e = *state;
	struct hw_mlx5_caps caps;
	int rc;

	if (e->why[0])
		HW_SKIP("%s", e->why);
	if (!e->is_mlx5)
		HW_SKIP("%s needs an mlx5 device with cross-channel queues (%s is not mlx5)", rule,
		        e->name);
	rc = hw_mlx5_query_caps(e, &caps);
	if (rc)
		HW_SKIP("%s needs DEVX to create cross-channel QPs; %s: %s", rule, e->name,
		        e->devx ? "QUERY_HCA_CAP failed"
		                : "mlx5dv_open_device(MLX5DV_CONTEXT_FLAGS_DEVX) failed");
	if (!caps.cd)
		HW_SKIP("%s: %s reports no cross-channel support (cmd_hca_cap.cd = 0)", rule,
		        e->name);
	HW_SKIP("%s: %s has cross-channel (cd = 1), but upstream rdma-core cannot create "
	        "cross-channel QPs (ibv_create_qp_ex / mlx5dv_create_qp reject the flags) and "
	        "tests/hw has no DEVX CREATE_QP path yet",
	        rule, e->name);
}

/*
 * rule enable-needs-cross-channel: WAIT / SEND_EN on a QP created without the
 * cross-channel flag fail with a local QP operation error (0x02).  This one
 * needs no DEVX: an ordinary mlx5 QP is exactly such a QP; the SEND_EN's
 * bytes come from the codec.
 */
static void hw_enable_needs_cross_channel(void **state)
{
	struct hw_env *e = hw_start(state, HW_NEED_RAW, NULL);
	struct prism_wqe w;
	struct prism_cqe c;

	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = PRISM_OP_SEND_ENABLE;
	w.ctrl.fm_ce_se = prism_fm_ce_se(PRISM_FENCE_NONE, PRISM_CE_CQ_UPDATE, false);
	w.wait_en.obj_num = e->b.qpn;
	w.wait_en.index = 1;
	hw_post(&e->a, &w);
	hw_ring(&e->a);
	c = hw_expect(&e->a.scq);
	print_message("hw: %s: SEND_EN on a plain QP completed as %s %s\n", e->name,
	              prism_cqe_opcode_name(c.opcode), hw_synd_name(c.syndrome));
	assert_int_equal(c.opcode, PRISM_CQE_REQ_ERR);
	assert_int_equal(c.syndrome, PRISM_SYND_LOCAL_QP_OP_ERR);
	assert_int_equal(hw_qp_state(&e->a), IBV_QPS_ERR);
}

/* rule managed-ignores-doorbell: the host doorbell does not start a managed send queue;
 * only SEND_EN from another queue does */
static void hw_managed_ignores_doorbell(void **state)
{
	need_cross_channel(state, "managed-ignores-doorbell");
}

/* rule wait-blocks-until-cq-count: WAIT holds its queue until the CQ has produced the
 * given count of CQEs (absolute count) */
static void hw_wait_blocks_until_cq_count(void **state)
{
	need_cross_channel(state, "wait-blocks-until-cq-count");
}

/* rule wait-index-24-bit: WAIT compares only 24 bits of its count */
static void hw_wait_index_24_bit(void **state)
{
	need_cross_channel(state, "wait-index-24-bit");
}

/* rule send-en-absolute-index: SEND_EN's index is an absolute 16-bit producer
 * value: the managed queue runs every WQE below it, and no further */
static void hw_send_en_absolute_index(void **state)
{
	need_cross_channel(state, "send-en-absolute-index");
}

/* rule managed-bounded-by-posted: without IGNORE_SQ_OVERFLOW an ENABLE cannot run
 * a managed queue past what the host posted */
static void hw_managed_bounded_by_posted(void **state)
{
	need_cross_channel(state, "managed-bounded-by-posted");
}

/* rule recycle-wraps-queue: with IGNORE_SQ_OVERFLOW an ENABLE past the posted
 * WQEs re-executes the ring (RedN section 3.4, WQ recycling) */
static void hw_recycle_wraps_queue(void **state)
{
	need_cross_channel(state, "recycle-wraps-queue");
}

/* rule strict-firmware-rejects-recycling: under stock firmware a recycled WQE's stale
 * index fails it with a local QP operation error */
static void hw_strict_firmware_rejects_recycling(void **state)
{
	need_cross_channel(state, "strict-firmware-rejects-recycling");
}

/* rule recv-en-makes-receive-usable: a managed receive queue accepts a SEND only
 * into receive WQEs that RECV_EN enabled */
static void hw_recv_en_makes_receive_usable(void **state)
{
	need_cross_channel(state, "recv-en-makes-receive-usable");
}

/* rule managed-no-prefetch-before-enable: a managed queue fetches no WQE before the
 * ENABLE that covers it executed, so bytes patched before then run */
static void hw_managed_no_prefetch_before_enable(void **state)
{
	need_cross_channel(state, "managed-no-prefetch-before-enable");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(hw_enable_needs_cross_channel, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_managed_ignores_doorbell, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_wait_blocks_until_cq_count, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_wait_index_24_bit, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_send_en_absolute_index, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_managed_bounded_by_posted, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_recycle_wraps_queue, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_strict_firmware_rejects_recycling, hw_setup,
	                                    hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_recv_en_makes_receive_usable, hw_setup, hw_teardown),
	    cmocka_unit_test_setup_teardown(hw_managed_no_prefetch_before_enable, hw_setup,
	                                    hw_teardown),
	};

	return cmocka_run_group_tests_name("test_hw_cross_channel", tests, NULL, NULL);
}
