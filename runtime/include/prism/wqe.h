/* SPDX-License-Identifier: MIT */
/*
 * prism/wqe.h - the one WQE / receive-WQE / CQE codec (docs/contracts.md contract 1).
 *
 * Owns: the opcode table, the decoded (host-order) form of every send-WQE
 * segment prism uses, receive WQEs and 64-byte CQEs, their encoders,
 * decoders, validation and the one-line printer.  Every other part of prism
 * (compiler code generator and disassembler, the software NIC, the mlx5
 * backend) produces and parses WQE bytes only through this header.
 *
 * Must not: know about queues, rings, doorbells or memory regions; allocate;
 * print on its own.  Byte layouts follow rdma-core's mlx5dv.h and the PRM
 * facts collected in docs/wqe-format.md.
 */
#ifndef PRISM_WQE_H
#define PRISM_WQE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <prism/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Geometry (mlx5dv.h: MLX5_SEND_WQE_BB; PRM "WQE construction"). */
#define PRISM_WQE_BB         64u /* basic block */
#define PRISM_WQE_DS_BYTES   16u /* one DS (octoword) */
#define PRISM_WQE_MAX_BB     16u /* a send WQE spans at most 16 BBs */
#define PRISM_WQE_MAX_DS     63u /* ds is a 6-bit field */
#define PRISM_WQE_MAX_BYTES  (PRISM_WQE_MAX_DS * PRISM_WQE_DS_BYTES)
#define PRISM_WQE_MAX_SGE    16u  /* scatter/gather entries we decode */
#define PRISM_WQE_MAX_INLINE 512u /* inline bytes we decode */
#define PRISM_CQE_BYTES      64u
#define PRISM_INVALID_LKEY   0x100u      /* mlx5dv.h MLX5_INVALID_LKEY */
#define PRISM_INLINE_SEG     0x80000000u /* mlx5dv.h MLX5_INLINE_SEG */

/* Control-segment fm_ce_se byte (mlx5dv.h MLX5_WQE_CTRL_*). */
#define PRISM_CTRL_SE       (1u << 1) /* solicited event */
#define PRISM_CTRL_CE_SHIFT 2         /* CE: bits 3:2 */
#define PRISM_CTRL_CE_MASK  (3u << 2)
#define PRISM_CTRL_FM_SHIFT 5 /* fence mode: bits 7:5 */
#define PRISM_CTRL_FM_MASK  (7u << 5)

enum prism_ce {
	PRISM_CE_NONE = 0,       /* CQE only on error: none on success (DPDK ONLY_ERR) */
	PRISM_CE_ERROR_ONLY = 1, /* CQE only on the first error (DPDK ONLY_FIRST_ERR) */
	PRISM_CE_CQ_UPDATE = 2,  /* MLX5_WQE_CTRL_CQ_UPDATE >> 2 */
	PRISM_CE_CQ_UPDATE_EVENT = 3,
};

enum prism_fence {
	PRISM_FENCE_NONE = 0,
	PRISM_FENCE_INITIATOR_SMALL = 1, /* MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE */
	PRISM_FENCE_FENCE = 2,
	PRISM_FENCE_STRONG_ORDERING = 3,
	PRISM_FENCE_SMALL_AND_FENCE = 4, /* mlx5dv.h MLX5_WQE_CTRL_FENCE (4<<5) */
};

/* Segment shapes: which segments follow the control segment. */
enum prism_seg_shape {
	PRISM_SHAPE_CTRL_ONLY,    /* NOP */
	PRISM_SHAPE_RADDR_DATA,   /* WRITE, WRITE_IMM, READ: raddr + data/inline */
	PRISM_SHAPE_DATA,         /* SEND, SEND_IMM: data or inline */
	PRISM_SHAPE_RADDR_ATOMIC, /* CAS, FA: raddr + atomic + one data seg */
	PRISM_SHAPE_RADDR_MASKED, /* masked CAS/FA: raddr + masked atomic + data */
	PRISM_SHAPE_WAIT_ENABLE,  /* CQE_WAIT / SEND_EN / RECV_EN (+ wait-on-data) */
};

enum prism_op_class {
	PRISM_CLASS_COPY,     /* moves bytes: WRITE, SEND, READ */
	PRISM_CLASS_ATOMIC,   /* CAS, FA, masked variants */
	PRISM_CLASS_ORDERING, /* NOP, WAIT, SEND_EN, RECV_EN */
};

/*
 * The opcode table: X(NAME, value, shape, class).  One list feeds the enum,
 * the names, the shapes and the classes (mlx5dv.h MLX5_OPCODE_*; WAIT and the
 * ENABLEs from DPDK mlx5_prm.h MLX5_OPCODE_WAIT / SEND_EN / RECV_EN).
 */
#define PRISM_OPCODES(X)                                                                           \
	X(NOP, 0x00, PRISM_SHAPE_CTRL_ONLY, PRISM_CLASS_ORDERING)                                  \
	X(RDMA_WRITE, 0x08, PRISM_SHAPE_RADDR_DATA, PRISM_CLASS_COPY)                              \
	X(RDMA_WRITE_IMM, 0x09, PRISM_SHAPE_RADDR_DATA, PRISM_CLASS_COPY)                          \
	X(SEND, 0x0a, PRISM_SHAPE_DATA, PRISM_CLASS_COPY)                                          \
	X(SEND_IMM, 0x0b, PRISM_SHAPE_DATA, PRISM_CLASS_COPY)                                      \
	X(CQE_WAIT, 0x0f, PRISM_SHAPE_WAIT_ENABLE, PRISM_CLASS_ORDERING)                           \
	X(RDMA_READ, 0x10, PRISM_SHAPE_RADDR_DATA, PRISM_CLASS_COPY)                               \
	X(ATOMIC_CS, 0x11, PRISM_SHAPE_RADDR_ATOMIC, PRISM_CLASS_ATOMIC)                           \
	X(ATOMIC_FA, 0x12, PRISM_SHAPE_RADDR_ATOMIC, PRISM_CLASS_ATOMIC)                           \
	X(ATOMIC_MASKED_CS, 0x14, PRISM_SHAPE_RADDR_MASKED, PRISM_CLASS_ATOMIC)                    \
	X(ATOMIC_MASKED_FA, 0x15, PRISM_SHAPE_RADDR_MASKED, PRISM_CLASS_ATOMIC)                    \
	X(RECV_ENABLE, 0x16, PRISM_SHAPE_WAIT_ENABLE, PRISM_CLASS_ORDERING)                        \
	X(SEND_ENABLE, 0x17, PRISM_SHAPE_WAIT_ENABLE, PRISM_CLASS_ORDERING)

enum prism_opcode {
#define PRISM_X_ENUM(name, value, shape, cls) PRISM_OP_##name = value,
	PRISM_OPCODES(PRISM_X_ENUM)
#undef PRISM_X_ENUM
};

struct prism_opcode_info {
	const char *name;     /* "RDMA_WRITE" */
	const char *mnemonic; /* short lower-case form for the printer: "write" */
	uint8_t value;
	enum prism_seg_shape shape;
	enum prism_op_class cls;
};

/* NULL when @opcode is not one prism knows. */
PRISM_API const struct prism_opcode_info *prism_opcode_info(uint8_t opcode);
/* Name of an opcode ("RDMA_WRITE"), or "UNKNOWN" when prism does not know it. */
PRISM_API const char *prism_opcode_name(uint8_t opcode);
PRISM_API const char *prism_op_class_name(enum prism_op_class cls);

/* opmod of the masked atomics: 0x08 | (log2(size) - 2) (MLNX_OFED libmlx5). */
#define PRISM_MASKED_OPMOD(log2_size) (0x08u | ((log2_size)-2u))

/* CQE_WAIT opmod values (PRM; DPDK mlx5_prm.h). */
enum prism_wait_mode {
	PRISM_WAIT_CQ = 0,      /* wait for a CQ's producer count */
	PRISM_WAIT_ON_DATA = 1, /* wait on a memory value (ConnectX-6 Dx+) */
	PRISM_WAIT_ON_TIME = 2,
};

/* Wait-on-data conditions (PRM); PRISM_WOD_INVERT may be or-ed in. */
enum prism_wod_cond {
	PRISM_WOD_ALWAYS_TRUE = 0,
	PRISM_WOD_EQUAL = 1,
	PRISM_WOD_BIGGER = 2,
	PRISM_WOD_SMALLER = 3,
	PRISM_WOD_CYCLIC_BIGGER = 4,
	PRISM_WOD_CYCLIC_SMALLER = 5,
	PRISM_WOD_INVERT = 0x10,
};

/* Decoded control segment, host order.  16 bytes on the wire. */
struct prism_ctrl_seg {
	uint8_t opcode;
	uint8_t opmod;
	uint16_t wqe_index; /* producer index the WQE was posted at */
	uint32_t qpn;       /* 24 bits */
	uint8_t ds;         /* 6 bits: WQE size in 16-byte units */
	uint8_t signature;
	uint16_t dci_stream; /* bytes 9-10 (reserved for RC) */
	uint8_t fm_ce_se;    /* raw byte; see prism_ctrl_* helpers */
	uint32_t imm;        /* host order of the big-endian wire value */
};

struct prism_sge {
	uint32_t byte_count;
	uint32_t lkey;
	uint64_t addr;
};

struct prism_raddr_seg {
	uint64_t raddr;
	uint32_t rkey;
	uint32_t reserved;
};

/*
 * Atomic operands.  For plain CAS/FA (size 8) and masked atomics of 4 or 8
 * bytes the value fields are integers.  For 16- and 32-byte masked atomics
 * the bytes[] arrays hold the operands as they appear on the wire (each
 * operand big-endian, most significant byte first).
 *
 * Masked FA: "swap" carries the add value and "swap_mask" the field
 * boundary; compare / compare_mask are unused (and not encoded).
 */
struct prism_atomic_seg {
	uint8_t size; /* 8 for plain CAS/FA; 4, 8, 16 or 32 for masked */
	uint64_t swap;
	uint64_t compare;
	uint64_t swap_mask;
	uint64_t compare_mask;
	uint8_t swap_bytes[32];
	uint8_t compare_bytes[32];
	uint8_t swap_mask_bytes[32];
	uint8_t compare_mask_bytes[32];
};

/*
 * WAIT (opmod 0) / SEND_EN / RECV_EN segment: 16 bytes.  index is kept as the
 * full 32-bit wire word; the NIC compares its low 24 bits (WAIT: CQ count)
 * or 16 bits (ENABLE: WQE index), which the NIC model applies.
 */
struct prism_wait_en_seg {
	uint32_t index;   /* WAIT: 24-bit CQ count; ENABLE: 16-bit WQE index */
	uint32_t obj_num; /* CQN for WAIT, QPN for SEND_EN / RECV_EN */
};

/* Wait-on-data segment (CQE_WAIT opmod 1): 32 bytes. */
struct prism_wod_seg {
	uint8_t cond; /* enum prism_wod_cond, INVERT may be or-ed in */
	uint32_t lkey;
	uint64_t addr; /* 8-byte aligned; low 3 bits are the action on fail */
	uint8_t fail_action;
	uint64_t value;
	uint64_t mask;
};

/*
 * A fully decoded send WQE.
 *
 * Valid after prism_wqe_decode() (the decoder is lean: it writes only what
 * the WQE's shape uses and never clears the big arrays):
 *   always           ctrl, has_raddr, has_atomic, has_wait_en, has_wod,
 *                    num_sge, is_inline, inline_len
 *   has_raddr        raddr
 *   has_atomic       atomic.size; for size 4 and 8: swap, compare, swap_mask,
 *                    compare_mask (unused operands read 0); for 16 and 32:
 *                    the first `size` bytes of swap_bytes and swap_mask_bytes,
 *                    and of compare_bytes / compare_mask_bytes for masked CAS
 *   has_wait_en      wait_en;  has_wod: wod
 *   num_sge > 0      sge[0 .. num_sge-1];  is_inline: inline_data[0 .. inline_len-1]
 * Everything else keeps whatever it held before.  prism_wqe_equal() compares
 * exactly these fields.
 *
 * For prism_wqe_encode() the opcode and opmod decide which segments are
 * written; the has_* flags are ignored.  ctrl.ds is computed, except for a
 * NOP, which keeps a ds above 1 (a NOP standing in for a larger WQE, as in
 * RedN's conditional) and writes only its control segment.
 */
struct prism_wqe {
	struct prism_ctrl_seg ctrl;
	bool has_raddr;
	struct prism_raddr_seg raddr;
	bool has_atomic;
	struct prism_atomic_seg atomic;
	bool has_wait_en;
	struct prism_wait_en_seg wait_en;
	bool has_wod;
	struct prism_wod_seg wod;
	/* Either a gather/scatter list or inline data (never both). */
	uint8_t num_sge;
	struct prism_sge sge[PRISM_WQE_MAX_SGE];
	bool is_inline;
	uint32_t inline_len;
	uint8_t inline_data[PRISM_WQE_MAX_INLINE];
};

/* Codec errors: negative values returned by encode/decode. */
enum prism_wqe_err {
	PRISM_WQE_OK = 0,
	PRISM_WQE_E_SHORT = -1,     /* buffer shorter than the WQE says */
	PRISM_WQE_E_OPCODE = -2,    /* unknown opcode */
	PRISM_WQE_E_OPMOD = -3,     /* opmod invalid for this opcode */
	PRISM_WQE_E_DS = -4,        /* DS inconsistent with the segments */
	PRISM_WQE_E_SEGMENT = -5,   /* a segment's own size field is wrong */
	PRISM_WQE_E_RANGE = -6,     /* a field value does not fit its width */
	PRISM_WQE_E_SGE_COUNT = -7, /* too many scatter/gather entries */
	PRISM_WQE_E_INLINE = -8,    /* inline length out of bounds */
	PRISM_WQE_E_ARG = -9,       /* NULL or otherwise unusable argument */
};

/* Precise description of why a decode or encode failed. */
struct prism_wqe_diag {
	int code;        /* enum prism_wqe_err */
	uint32_t offset; /* byte offset in the WQE where the problem lies */
	char msg[128];   /* "ds=2 but ATOMIC_CS needs 4 (ctrl+raddr+atomic+data)" */
};

PRISM_API const char *prism_wqe_strerror(int code);

/* Same WQE?  Compares only the fields valid after decode (see above). */
PRISM_API bool prism_wqe_equal(const struct prism_wqe *a, const struct prism_wqe *b);

/*
 * Encode @w into @buf.  ctrl.ds is computed from the segments (the value in
 * @w is ignored, except for a NOP: see struct prism_wqe).  A masked atomic
 * with opmod 0 gets the opmod of its atomic.size; with atomic.size 0, the
 * size of its opmod.  Returns the WQE size in bytes (ds * 16) or a negative
 * enum prism_wqe_err; @diag may be NULL.  On failure @buf is untouched.
 * Bytes between ds*16 and the end of the last basic block are left untouched.
 */
PRISM_API int prism_wqe_encode(const struct prism_wqe *w, void *buf, size_t cap,
                               struct prism_wqe_diag *diag);

/*
 * Decode and validate the WQE at @buf (at most @len readable bytes).  Never
 * reads past @len.  Returns the WQE size in bytes (ds * 16) or a negative
 * enum prism_wqe_err with @diag filled in.
 */
PRISM_API int prism_wqe_decode(const void *buf, size_t len, struct prism_wqe *w,
                               struct prism_wqe_diag *diag);

/* Number of 64-byte basic blocks a WQE of @ds octowords occupies. */
static inline unsigned prism_wqe_bbs(unsigned ds)
{
	return (ds * PRISM_WQE_DS_BYTES + PRISM_WQE_BB - 1) / PRISM_WQE_BB;
}

/* Control-segment field helpers on the decoded form. */
static inline enum prism_ce prism_ctrl_ce(const struct prism_ctrl_seg *c)
{
	return (enum prism_ce)((c->fm_ce_se & PRISM_CTRL_CE_MASK) >> PRISM_CTRL_CE_SHIFT);
}
static inline enum prism_fence prism_ctrl_fence(const struct prism_ctrl_seg *c)
{
	return (enum prism_fence)((c->fm_ce_se & PRISM_CTRL_FM_MASK) >> PRISM_CTRL_FM_SHIFT);
}
static inline bool prism_ctrl_se(const struct prism_ctrl_seg *c)
{
	return (c->fm_ce_se & PRISM_CTRL_SE) != 0;
}
/* The fm_ce_se byte as a constant expression (usable in initializers). */
#define PRISM_FM_CE_SE(fm, ce, se)                                                                 \
	((uint8_t)((((unsigned)(fm) << PRISM_CTRL_FM_SHIFT) & PRISM_CTRL_FM_MASK) |                \
	           (((unsigned)(ce) << PRISM_CTRL_CE_SHIFT) & PRISM_CTRL_CE_MASK) |                \
	           ((se) ? PRISM_CTRL_SE : 0u)))
static inline uint8_t prism_fm_ce_se(enum prism_fence fm, enum prism_ce ce, bool se)
{
	return PRISM_FM_CE_SE(fm, ce, se);
}

/*
 * Raw control-segment access for code that patches or inspects WQE bytes in
 * place (the sim's fetch path, the compiler's patch sites).
 */
PRISM_API void prism_ctrl_seg_pack(const struct prism_ctrl_seg *c, void *out16);
PRISM_API void prism_ctrl_seg_unpack(const void *in16, struct prism_ctrl_seg *c);

/*
 * Byte offsets, inside a WQE, of fields that chains patch at run time
 * (RECV scatter targets, READ scatter targets, CAS targets).  Fixed by the
 * segment order: ctrl (0..15), then raddr (16..31) when present, ...
 */
enum prism_wqe_field {
	PRISM_FIELD_CTRL_OPCODE,   /* byte 3 */
	PRISM_FIELD_CTRL_WORD0,    /* bytes 0-3: opmod/index/opcode */
	PRISM_FIELD_CTRL_QPN,      /* bytes 4-6 */
	PRISM_FIELD_CTRL_DS,       /* byte 7 */
	PRISM_FIELD_CTRL_FM_CE_SE, /* byte 11 */
	PRISM_FIELD_CTRL_IMM,      /* bytes 12-15 */
	PRISM_FIELD_RADDR,         /* raddr (8 bytes) */
	PRISM_FIELD_RKEY,          /* rkey (4 bytes) */
	PRISM_FIELD_ATOMIC_SWAP,   /* first swap/add operand */
	PRISM_FIELD_ATOMIC_COMPARE,
	PRISM_FIELD_SGE0_LEN, /* first data segment's byte_count */
	PRISM_FIELD_SGE0_LKEY,
	PRISM_FIELD_SGE0_ADDR,
	PRISM_FIELD_WAIT_EN_INDEX,
	PRISM_FIELD_WAIT_EN_OBJ,
	PRISM_FIELD_INLINE_DATA,    /* inline payload (inline_len bytes; inline WQEs only) */
	PRISM_FIELD_CTRL_WQE_INDEX, /* bytes 1-2: the WQE index (big-endian 16 bits) */
	PRISM_FIELD_WOD_LKEY,       /* wait-on-data: lkey of the watched word */
	PRISM_FIELD_WOD_ADDR,       /* wait-on-data: its address (low 3 bits: action on fail) */
	PRISM_FIELD_WOD_VALUE,      /* wait-on-data: compare value */
	PRISM_FIELD_WOD_MASK,       /* wait-on-data: mask */
	PRISM_FIELD__COUNT,
};

/*
 * Where @field lives in a WQE shaped like @w (only opcode, opmod and
 * atomic.size are consulted; for PRISM_FIELD_INLINE_DATA also is_inline
 * and inline_len, the field's length).  Returns 0 and sets *@offset / *@len, or
 * PRISM_WQE_E_ARG when the WQE has no such field.
 */
PRISM_API int prism_wqe_field_offset(const struct prism_wqe *w, enum prism_wqe_field field,
                                     uint32_t *offset, uint32_t *len);
PRISM_API const char *prism_wqe_field_name(enum prism_wqe_field field);

/*
 * Receive WQEs: an array of data segments, a short list ends with lkey 0x100.
 * @buf holds stride_ds * 16 bytes.  Encode writes the @n entries (at most 16)
 * and, when n < stride_ds, the terminator, and returns stride_ds * 16.
 */
PRISM_API int prism_rwqe_encode(const struct prism_sge *sge, unsigned n, void *buf,
                                unsigned stride_ds, struct prism_wqe_diag *diag);
/* Returns the number of valid entries (0..stride_ds) or a negative error. */
PRISM_API int prism_rwqe_decode(const void *buf, unsigned stride_ds, struct prism_sge *sge,
                                unsigned max, struct prism_wqe_diag *diag);

/* CQE opcodes (op_own bits 7:4, mlx5dv.h MLX5_CQE_*). */
enum prism_cqe_opcode {
	PRISM_CQE_REQ = 0,
	PRISM_CQE_RESP_WR_IMM = 1,
	PRISM_CQE_RESP_SEND = 2,
	PRISM_CQE_RESP_SEND_IMM = 3,
	PRISM_CQE_REQ_ERR = 13,
	PRISM_CQE_RESP_ERR = 14,
	PRISM_CQE_INVALID = 15,
};

/* Error syndromes (mlx5dv.h MLX5_CQE_SYNDROME_*). */
enum prism_cqe_syndrome {
	PRISM_SYND_LOCAL_LENGTH_ERR = 0x01,
	PRISM_SYND_LOCAL_QP_OP_ERR = 0x02,
	PRISM_SYND_LOCAL_PROT_ERR = 0x04,
	PRISM_SYND_WR_FLUSH_ERR = 0x05,
	PRISM_SYND_MW_BIND_ERR = 0x06,
	PRISM_SYND_BAD_RESP_ERR = 0x10,
	PRISM_SYND_LOCAL_ACCESS_ERR = 0x11,
	PRISM_SYND_REMOTE_INVAL_REQ_ERR = 0x12,
	PRISM_SYND_REMOTE_ACCESS_ERR = 0x13,
	PRISM_SYND_REMOTE_OP_ERR = 0x14,
	PRISM_SYND_TRANSPORT_RETRY_EXC_ERR = 0x15,
	PRISM_SYND_RNR_RETRY_EXC_ERR = 0x16,
	PRISM_SYND_REMOTE_ABORTED_ERR = 0x22,
};

PRISM_API const char *prism_cqe_syndrome_name(uint8_t syndrome);
PRISM_API const char *prism_cqe_opcode_name(uint8_t opcode);

/* Decoded 64-byte CQE, host order. */
struct prism_cqe {
	uint8_t opcode;          /* enum prism_cqe_opcode */
	uint8_t owner;           /* op_own bit 0 */
	uint8_t syndrome;        /* error CQEs only (byte 55) */
	uint8_t vendor_syndrome; /* error CQEs only (byte 54) */
	uint8_t wqe_opcode;      /* error CQEs: s_wqe_opcode (byte 56) */
	uint16_t wqe_counter;
	uint32_t byte_count; /* success CQEs */
	uint32_t qpn;        /* 24 bits */
	uint32_t imm;        /* host order of the big-endian immediate */
	uint32_t srqn_uidx;
	uint64_t timestamp;
	uint8_t signature;
};

PRISM_API void prism_cqe_encode(const struct prism_cqe *c, void *out64);
/* Writes bytes 0..62 of the CQE prism_cqe_encode would write and returns
 * byte 63 (op_own) without storing it: a producer writes the body straight
 * into its ring slot, then stores op_own last with release order so a
 * poller that sees the owner bit flip sees the whole CQE. */
PRISM_API uint8_t prism_cqe_encode_body(const struct prism_cqe *c, void *out64);
/* Returns 0, or PRISM_WQE_E_OPCODE for a reserved CQE opcode. */
PRISM_API int prism_cqe_decode(const void *in64, struct prism_cqe *c, struct prism_wqe_diag *diag);
/* Does software own the CQE at consumer index @ci in a ring of @ncqe entries? */
static inline bool prism_cqe_sw_owned(uint8_t op_own, uint32_t ci, uint32_t ncqe)
{
	return (op_own & 1u) == ((ci & ncqe) ? 1u : 0u);
}

/* Printer flags. */
#define PRISM_PRINT_RAW (1u << 0) /* append the raw bytes in hex */

/*
 * Render @w in one line, objdump-style, e.g.
 *   "write    idx=3 qpn=0x000102 ds=3 ce=cq fm=none raddr=0x1000 rkey=0x5 sge[0x2000+64 lkey=0x4]"
 * @raw (may be NULL) and @raw_len are the bytes shown with PRISM_PRINT_RAW.
 * snprintf-style: returns the length the full line needs.
 */
PRISM_API int prism_wqe_snprint(char *out, size_t cap, const struct prism_wqe *w, const void *raw,
                                size_t raw_len, unsigned flags);
PRISM_API int prism_cqe_snprint(char *out, size_t cap, const struct prism_cqe *c);

#ifdef __cplusplus
}
#endif
#endif /* PRISM_WQE_H */
