/* SPDX-License-Identifier: MIT */
/*
 * wqe_opcode.c - the opcode table: name, mnemonic, value, segment shape and
 * class of every send opcode prism knows, built from the PRISM_OPCODES
 * X-macro in <prism/wqe.h>.
 *
 * Owns: lookups by opcode value and the class names.
 * Must not: encode or decode bytes.
 */
#include <stddef.h>

#include <prism/wqe.h>

#include "wqe_layout.h"

/*
 * Printer mnemonics, one per X-macro entry.  The table below pastes
 * MNEMONIC_##name, so an opcode added to PRISM_OPCODES without a mnemonic
 * here fails to compile instead of printing a wrong name.
 */
#define MNEMONIC_NOP              "nop"
#define MNEMONIC_RDMA_WRITE       "write"
#define MNEMONIC_RDMA_WRITE_IMM   "write_imm"
#define MNEMONIC_SEND             "send"
#define MNEMONIC_SEND_IMM         "send_imm"
#define MNEMONIC_CQE_WAIT         "wait"
#define MNEMONIC_RDMA_READ        "read"
#define MNEMONIC_ATOMIC_CS        "cas"
#define MNEMONIC_ATOMIC_FA        "faa"
#define MNEMONIC_ATOMIC_MASKED_CS "mcas"
#define MNEMONIC_ATOMIC_MASKED_FA "mfaa"
#define MNEMONIC_RECV_ENABLE      "recv_en"
#define MNEMONIC_SEND_ENABLE      "send_en"

/* Indexed by opcode value: lookups on the sim's hot path are one load
 * (internal: the decoder reads it directly, see wqe_layout.h). */
const struct prism_opcode_info wqe_opcode_table[256] = {
#define PRISM_X_INFO(op, val, shp, klass)                                                          \
	[val] = {.name = #op, .mnemonic = MNEMONIC_##op, .value = val, .shape = shp, .cls = klass},
    PRISM_OPCODES(PRISM_X_INFO)
#undef PRISM_X_INFO
};

PRISM_API const struct prism_opcode_info *prism_opcode_info(uint8_t opcode)
{
	const struct prism_opcode_info *info = &wqe_opcode_table[opcode];

	/* Slot 0 is NOP, so "known" is "has a name", not "nonzero". */
	return info->name ? info : NULL;
}

PRISM_API const char *prism_opcode_name(uint8_t opcode)
{
	const struct prism_opcode_info *info = prism_opcode_info(opcode);

	return info ? info->name : "UNKNOWN";
}

PRISM_API const char *prism_op_class_name(enum prism_op_class cls)
{
	static const char *const names[] = {
	    [PRISM_CLASS_COPY] = "copy",
	    [PRISM_CLASS_ATOMIC] = "atomic",
	    [PRISM_CLASS_ORDERING] = "ordering",
	};

	if ((unsigned)cls >= sizeof(names) / sizeof(names[0]))
		return "?";
	return names[cls];
}
