/* SPDX-License-Identifier: MIT */
/*
 * core/caps.c - what a program needs from a NIC, and refusing to load it on
 * a device that lacks any of it (issue: capabilities and refusal).
 *
 * Needs come from the object itself: its firmware profile, and its WQE
 * templates' opcodes (raw bytes: control-segment byte 3 = opcode, byte 0 =
 * opmod; mlx5dv.h struct mlx5_wqe_ctrl_seg): WAIT / SEND_EN / RECV_EN need
 * cross-channel, WAIT opmod 1 wait-on-data, a masked atomic its operand size
 * (opmod 0x08 | log2(size) - 2), an 8-byte CAS / FETCH_ADD host-endian
 * 8-byte atomics (what chains assume: docs/nic-model.md atomic-8b-host-endian).
 *
 * Must not: change the program or the device.
 */
#include <string.h>

#include "core/core.h"
#include "core/program.h"

static void scan(const struct chainobj_wqe *w, struct core_caps *need)
{
	uint8_t opmod, opcode;

	if (w->len < 4)
		return;
	opmod = w->bytes[0];
	opcode = w->bytes[3];
	switch (opcode) {
	case PRISM_OP_CQE_WAIT:
		need->cross_channel = true;
		need->wait_on_data |= opmod == 1;
		break;
	case PRISM_OP_SEND_ENABLE:
	case PRISM_OP_RECV_ENABLE:
		need->cross_channel = true;
		break;
	case PRISM_OP_ATOMIC_CS:
	case PRISM_OP_ATOMIC_FA:
		need->atomic_8b_host = true;
		break;
	case PRISM_OP_ATOMIC_MASKED_CS:
	case PRISM_OP_ATOMIC_MASKED_FA:
		if ((opmod & 0xf8) == 0x08 && (opmod & 7) <= 3)
			need->masked_sizes |= (uint8_t)(4u << (opmod & 7));
		if ((opmod & 7) == 1)
			need->atomic_8b_host = true;
		break;
	default:
		break;
	}
}

void core_program_needs(const struct chainobj *o, struct core_caps *need)
{
	memset(need, 0, sizeof(*need));
	need->relaxed_fw = o->profile == CHAINOBJ_PROFILE_RELAXED;
	for (uint32_t q = 0; q < o->n_queues; q++)
		for (uint32_t i = 0; i < o->queues[q].n_sq; i++)
			scan(&o->queues[q].sq[i], need);
}

int core_caps_check(const struct prism_device *dev, const char *prog, const struct chainobj *o)
{
	struct core_caps need, have;
	char missing[256] = "";
	size_t n = 0;

	if (!dev->ops->caps)
		return 0;
	core_program_needs(o, &need);
	if (dev->ops->caps(dev->be, &have))
		return -PRISM_E_BACKEND;
#define MISSING(...)                                                                               \
	n += (size_t)snprintf(missing + n, n < sizeof(missing) ? sizeof(missing) - n : 0,          \
	                      __VA_ARGS__)
	if (need.relaxed_fw && !have.relaxed_fw)
		MISSING("%srelaxed firmware (%s)", n ? ", " : "", have.fw_note);
	if (need.cross_channel && !have.cross_channel)
		MISSING("%scross-channel (cmd_hca_cap.cd)", n ? ", " : "");
	if (need.wait_on_data && !have.wait_on_data)
		MISSING("%swait-on-data (cmd_hca_cap.wait_on_data)", n ? ", " : "");
	if (need.atomic_8b_host && !have.atomic_8b_host)
		MISSING("%shost-endian 8-byte atomics (atomic_req_8B_endianness_mode)",
		        n ? ", " : "");
	for (unsigned s = 4; s <= 32; s <<= 1)
		if ((need.masked_sizes & s) && !(have.masked_sizes & s))
			MISSING("%s%u-byte masked atomics", n ? ", " : "", s);
#undef MISSING
	if (!n)
		return 0;
	core_err("program '%s': device %s lacks what it needs: %s", prog, dev->name, missing);
	return -PRISM_E_NOCAP;
}

PRISM_API int prism_device__caps(const struct prism_device *dev, struct prism_device_caps *caps)
{
	struct core_caps c;
	int err;

	if (!dev || !caps || caps->sz < sizeof(*caps))
		return -EINVAL;
	if (!dev->ops->caps)
		return -EOPNOTSUPP;
	if ((err = dev->ops->caps(dev->be, &c)))
		return err;
	memset(caps, 0, sizeof(*caps));
	caps->sz = sizeof(*caps);
	snprintf(caps->backend, sizeof(caps->backend), "%s", dev->ops->name);
	caps->cross_channel = c.cross_channel;
	caps->wait_on_data = c.wait_on_data;
	caps->relaxed_firmware = c.relaxed_fw;
	caps->atomic_8b_host_endian = c.atomic_8b_host;
	caps->masked_atomic_sizes = c.masked_sizes;
	snprintf(caps->firmware_source, sizeof(caps->firmware_source), "%s", c.fw_note);
	return 0;
}
