/* SPDX-License-Identifier: MIT */
/*
 * compiler/ast.h - the abstract syntax tree of a .prism program.
 *
 * Owns: the node types the parser builds and the checker annotates, and the
 * arena every node lives in (one free releases a whole program).  After
 * check_program() succeeds, every node carries its resolved meaning —
 * types with width/byte order, the region each memory access touches,
 * symbol targets, taint (which client parameters a value derives from),
 * folded constants, struct field offsets, loop bounds — so the back end
 * lowers from it without redoing semantic analysis.
 *
 * Must not: know about WQEs, queues or the chain IR (that is the back end).
 *
 * Lists are singly linked through `next` and kept in source order.
 */
#ifndef PRISMC_AST_H
#define PRISMC_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/diag.h"

/* ---- Types ------------------------------------------------------------ */

enum ast_order {
	AST_ORDER_NONE, /* single byte / byte array: no byte order */
	AST_ORDER_BE,   /* big-endian: WQE fields are big-endian (mlx5 PRM) */
	AST_ORDER_LE,
};

/*
 * Memory scalars: X(ID, spelling, bytes, order).  Explicit width and byte
 * order let the compiler know what can feed a WQE field directly: a be64
 * pointer can land in a READ's raddr as is; an le64 one needs a
 * byte-swapping scatter (docs/contracts.md, lowering cookbook).
 */
#define AST_SCALARS(X)                                                                             \
	X(U8, "u8", 1, AST_ORDER_NONE)                                                             \
	X(BE16, "be16", 2, AST_ORDER_BE)                                                           \
	X(LE16, "le16", 2, AST_ORDER_LE)                                                           \
	X(BE24, "be24", 3, AST_ORDER_BE)                                                           \
	X(BE32, "be32", 4, AST_ORDER_BE)                                                           \
	X(LE32, "le32", 4, AST_ORDER_LE)                                                           \
	X(BE48, "be48", 6, AST_ORDER_BE)                                                           \
	X(LE48, "le48", 6, AST_ORDER_LE)                                                           \
	X(BE64, "be64", 8, AST_ORDER_BE)                                                           \
	X(LE64, "le64", 8, AST_ORDER_LE)

enum ast_scalar {
#define AST_X_ENUM(id, spelling, bytes, order) AST_SCALAR_##id,
	AST_SCALARS(AST_X_ENUM)
#undef AST_X_ENUM
	    AST_SCALAR_COUNT
};

struct ast_scalar_info {
	const char *spelling;
	unsigned bytes;
	enum ast_order order;
};
/* Indexed by enum ast_scalar. */
extern const struct ast_scalar_info ast_scalar_table[AST_SCALAR_COUNT];
/* Look up a scalar by spelling; returns false if `name` is not one. */
bool ast_scalar_lookup(const char *name, size_t len, enum ast_scalar *out);

/* Levels of nesting one expression, statement or type may have, and the
 * constants or by-value structs one definition may go through: the checker
 * and the lowering recurse over them, so this bounds their stack (a deeper
 * construct is an error, never a crash). */
#define AST_MAX_DEPTH 256u

enum ast_type_kind {
	AST_TYPE_VOID,   /* statement-only expressions, `return;` */
	AST_TYPE_BOOL,   /* comparisons, cas results; never stored in memory */
	AST_TYPE_INT,    /* untyped integer constant (adapts to its use) */
	AST_TYPE_SCALAR, /* a memory scalar: u8, be64, ... */
	AST_TYPE_ARRAY,  /* elem[count] */
	AST_TYPE_STRUCT,
	AST_TYPE_PTR,   /* pointer into a region, stored as `scalar` */
	AST_TYPE_NAMED, /* parser only: a struct name not yet resolved */
};

struct ast_struct;
struct ast_region;
struct ast_expr;

struct ast_type {
	enum ast_type_kind kind;
	struct src_loc loc;
	uint32_t depth; /* parser: nesting of array and pointer types (AST_MAX_DEPTH) */
	uint64_t size;  /* bytes in memory (checker); 0 for VOID/BOOL/INT */
	/* SCALAR: the scalar; PTR: how the pointer value is stored (be64
	 * unless written otherwise, e.g. `le64 *node in nodes`). */
	enum ast_scalar scalar;
	/* ARRAY */
	struct ast_type *elem;
	struct ast_expr *count_expr; /* as written; folded into count */
	uint64_t count;
	/* STRUCT (resolved from NAMED) */
	struct ast_struct *strct;
	/* PTR */
	struct ast_type *pointee;
	const char *region_name; /* as written; NULL if omitted */
	struct src_loc region_loc;
	struct ast_region *region; /* resolved by the checker */
	/* NAMED */
	const char *name;
};

/* ---- Top-level declarations -------------------------------------------- */

/* `const NAME = expr;` — folded to an integer by the checker. */
struct ast_const {
	const char *name;
	struct src_loc loc;
	struct ast_expr *expr;
	uint64_t value; /* checker */
	bool resolved;  /* checker: value valid */
	bool resolving; /* checker: cycle detection */
	struct ast_const *next;
};

/* `struct NAME { field: type; ... }` — packed, fields in order. */
struct ast_field {
	const char *name;
	struct src_loc loc;
	struct ast_type *type;
	uint64_t offset; /* checker: byte offset in the struct */
	struct ast_field *next;
};

struct ast_struct {
	const char *name;
	struct src_loc loc;
	struct ast_field *fields;
	unsigned nfields;
	uint64_t size;             /* checker */
	bool laid_out, laying_out; /* checker: recursion guard */
	struct ast_struct *next;
};

/* `region NAME: type readonly|writable;` or `region NAME size expr ...;`
 * Named memory the server registers and binds at load time. */
struct ast_region {
	const char *name;
	struct src_loc loc;
	struct ast_type *type;      /* NULL for the `size` form */
	struct ast_expr *size_expr; /* NULL for the typed form */
	uint64_t size;              /* checker: bytes */
	bool writable;
	unsigned index; /* declaration order, 0-based */
	struct ast_region *next;
};

/* `freelist NAME: type in REGION;` — a PRISM ALLOCATE free list of
 * buffers of `type` carved from REGION (the server posts the buffers). */
struct ast_freelist {
	const char *name;
	struct src_loc loc;
	struct ast_type *type; /* element (buffer) type */
	const char *region_name;
	struct src_loc region_loc;
	struct ast_region *region; /* checker */
	unsigned index;
	struct ast_freelist *next;
};

/* ---- Offload bodies ---------------------------------------------------- */

/* A parameter the client sends (tainted, docs/contracts.md contract 5). */
struct ast_param {
	const char *name;
	struct src_loc loc;
	struct ast_type *type;
	unsigned index;  /* 0-based; taint bit (1ull << index) */
	uint64_t offset; /* checker: byte offset in the argument payload */
	struct ast_param *next;
};

/* A `let` variable: a per-connection temporary (scratch memory). */
struct ast_local {
	const char *name;
	struct src_loc loc;
	struct ast_type *type;  /* as written or inferred by the checker */
	unsigned index;         /* 0-based within its offload */
	uint64_t offset;        /* checker: byte offset in the scratch area */
	uint64_t taint;         /* checker: union of taints ever assigned */
	int lane;               /* checker: -1, or parallel lane that declared it */
	struct ast_local *next; /* in ast_offload.locals */
};

enum ast_sym_kind {
	AST_SYM_NONE, /* unresolved */
	AST_SYM_CONST,
	AST_SYM_REGION,
	AST_SYM_STRUCT,
	AST_SYM_FREELIST,
	AST_SYM_OFFLOAD,
	AST_SYM_PARAM,
	AST_SYM_LOCAL,
};

/* Built-in operations: X(ID, spelling, min args, max args). */
#define AST_BUILTINS(X)                                                                            \
	X(CAS, "cas", 3, 5)                                                                        \
	X(CAS_GT, "cas_gt", 2, 4)                                                                  \
	X(CAS_LT, "cas_lt", 2, 4)                                                                  \
	X(FETCH_ADD, "fetch_add", 2, 2)                                                            \
	X(ALLOC, "alloc", 1, 1)

enum ast_builtin {
#define AST_X_ENUM(id, spelling, min, max) AST_BUILTIN_##id,
	AST_BUILTINS(AST_X_ENUM)
#undef AST_X_ENUM
	    AST_BUILTIN_COUNT
};

struct ast_builtin_info {
	const char *spelling;
	unsigned min_args, max_args;
};
extern const struct ast_builtin_info ast_builtin_table[AST_BUILTIN_COUNT];

/* Binary operators: X(ID, spelling). */
#define AST_BINOPS(X)                                                                              \
	X(ADD, "+")                                                                                \
	X(SUB, "-")                                                                                \
	X(MUL, "*")                                                                                \
	X(DIV, "/")                                                                                \
	X(MOD, "%")                                                                                \
	X(AND, "&")                                                                                \
	X(OR, "|")                                                                                 \
	X(XOR, "^")                                                                                \
	X(SHL, "<<")                                                                               \
	X(SHR, ">>")                                                                               \
	X(EQ, "==")                                                                                \
	X(NE, "!=")                                                                                \
	X(LT, "<")                                                                                 \
	X(GT, ">")                                                                                 \
	X(LE, "<=")                                                                                \
	X(GE, ">=")                                                                                \
	X(LAND, "&&")                                                                              \
	X(LOR, "||")

enum ast_binop {
#define AST_X_ENUM(id, spelling) AST_BINOP_##id,
	AST_BINOPS(AST_X_ENUM)
#undef AST_X_ENUM
	    AST_BINOP_COUNT
};
extern const char *const ast_binop_spelling[AST_BINOP_COUNT];

enum ast_unop {
	AST_UNOP_NEG,    /* -x */
	AST_UNOP_NOT,    /* !x (bool) */
	AST_UNOP_BITNOT, /* ~x */
	AST_UNOP_COUNT
};
extern const char *const ast_unop_spelling[AST_UNOP_COUNT];

enum ast_expr_kind {
	AST_EXPR_INT,  /* integer literal (size suffixes already applied) */
	AST_EXPR_BOOL, /* true / false */
	AST_EXPR_NAME, /* identifier */
	AST_EXPR_UNARY,
	AST_EXPR_BINARY,
	AST_EXPR_DEREF,  /* *p */
	AST_EXPR_FIELD,  /* e.f (auto-dereferences a pointer to a struct) */
	AST_EXPR_INDEX,  /* e[i] (auto-dereferences a pointer to an array) */
	AST_EXPR_SLICE,  /* e[.. n]: PRISM bounded read of min(n, capacity) bytes */
	AST_EXPR_CALL,   /* builtin(args) */
	AST_EXPR_SIZEOF, /* sizeof(type) */
	AST_EXPR_ERROR,  /* parser: an expression already reported as wrong
	                  * (never present in a program that checked clean) */
};

/* Where the value of an expression lives, for place (lvalue) expressions. */
enum ast_place {
	AST_PLACE_NONE,   /* an rvalue (computed, constant, bool) */
	AST_PLACE_PARAM,  /* in the client's argument payload (RECV scatter) */
	AST_PLACE_LOCAL,  /* in the per-connection scratch area */
	AST_PLACE_MEMORY, /* in a region: an (indirect) READ / WRITE / atomic */
};

struct ast_expr {
	enum ast_expr_kind kind;
	struct src_loc loc;

	/* ---- checker results ---- */
	struct ast_type *type; /* never NULL after a successful check */
	uint64_t taint;        /* bit i set: derives from parameter i */
	bool is_const;         /* folded: `value` holds it */
	uint64_t value;
	enum ast_place place;
	/* MEMORY places: the region the bytes are in.  Pointer-typed values:
	 * the region they point into (same as type->region). */
	struct ast_region *region;
	/* MEMORY places: true if the address itself is tainted (derives from a
	 * client parameter), i.e. the access must use the narrowest region
	 * key and be bounds-checked (contract 5). */
	bool addr_tainted;
	/* parser: levels of expression below and including this node, bounded
	 * by AST_MAX_DEPTH so no recursive pass can overflow the stack */
	uint32_t depth;

	union {
		uint64_t int_value; /* INT */
		bool bool_value;    /* BOOL */
		struct {
			const char *name;
			enum ast_sym_kind sym;
			union {
				struct ast_const *cnst;
				struct ast_region *region;
				struct ast_param *param;
				struct ast_local *local;
				struct ast_freelist *freelist;
				void *any;
			} target;
		} name;
		struct {
			enum ast_unop op;
			struct ast_expr *operand;
		} unary;
		struct {
			enum ast_binop op;
			struct ast_expr *lhs, *rhs;
			struct src_loc op_loc;
		} binary;
		struct {
			struct ast_expr *ptr;
		} deref;
		struct {
			struct ast_expr *base;
			const char *name;
			struct src_loc name_loc;
			struct ast_field *field; /* checker */
			bool through_ptr;        /* checker: base is a pointer */
		} field;
		struct {
			struct ast_expr *base;
			struct ast_expr *index;
			uint64_t stride;  /* checker: element size */
			bool through_ptr; /* checker: base is a pointer */
		} index;
		struct {
			struct ast_expr *base;
			struct ast_expr *len;
			uint64_t capacity; /* checker: bytes the base can hold */
			bool through_ptr;  /* checker */
		} slice;
		struct {
			enum ast_builtin fn;
			struct src_loc name_loc;
			struct ast_expr *args; /* linked via arg_next */
			unsigned nargs;
			struct ast_freelist *freelist; /* checker: ALLOC */
		} call;
		struct {
			struct ast_type *type;
		} size_of;
	} u;
	struct ast_expr *arg_next; /* next argument in a call */
};

enum ast_stmt_kind {
	AST_STMT_LET,
	AST_STMT_ASSIGN, /* target = value (a store when target is MEMORY) */
	AST_STMT_EXPR,
	AST_STMT_IF,
	AST_STMT_WHILE,
	AST_STMT_BREAK,
	AST_STMT_RETURN,
	AST_STMT_PARALLEL,
	AST_STMT_BLOCK,
};

struct ast_stmt;

/* One lane of `parallel { } || { }` (RedN-Parallel: its own queue). */
struct ast_lane {
	struct src_loc loc;
	struct ast_stmt *body;
	unsigned index;
	struct ast_lane *next;
};

struct ast_stmt {
	enum ast_stmt_kind kind;
	struct src_loc loc;
	uint32_t depth; /* parser: nesting of statements (AST_MAX_DEPTH) */
	union {
		struct {
			struct ast_local *local;
			struct ast_expr *init; /* may be NULL: uninitialized temporary */
		} let;
		struct {
			struct ast_expr *target, *value;
		} assign;
		struct {
			struct ast_expr *expr;
		} expr;
		struct {
			struct ast_expr *cond;
			struct ast_stmt *then_body; /* statement list */
			struct ast_stmt *else_body; /* `else {..}`: one BLOCK; `else if`: one IF */
			bool has_else;
		} if_;
		struct {
			struct ast_expr *cond;
			struct ast_expr *bound_expr; /* NULL: missing (checker error) */
			uint64_t bound;              /* checker: max iterations */
			struct ast_stmt *body;
			unsigned loop_id; /* checker: 0-based within the offload */
			bool recycle;     /* `bound N recycle`: one lap re-run on the NIC */
		} while_;
		struct {
			struct ast_stmt *loop; /* checker: the WHILE it leaves */
		} break_;
		struct {
			struct ast_expr *value; /* NULL: return no bytes */
		} return_;
		struct {
			struct ast_lane *lanes;
			unsigned nlanes;
		} parallel;
		struct {
			struct ast_stmt *body;
		} block;
	} u;
	struct ast_stmt *next;
};

/* `offload NAME(params) [-> type] { body }` — an entry point. */
struct ast_offload {
	const char *name;
	struct src_loc loc;
	struct ast_param *params;
	unsigned nparams;
	struct ast_type *ret_type; /* as written, or inferred from returns; NULL = none */
	struct ast_stmt *body;
	uint64_t args_size;       /* checker: bytes of the argument payload */
	struct ast_local *locals; /* checker: every `let` in the body */
	unsigned nlocals;
	uint64_t scratch_size; /* checker: bytes of temporaries */
	unsigned nloops;       /* checker */
	unsigned index;
	struct ast_offload *next;
};

enum ast_decl_kind {
	AST_DECL_CONST,
	AST_DECL_STRUCT,
	AST_DECL_REGION,
	AST_DECL_FREELIST,
	AST_DECL_OFFLOAD,
};

/* Declarations in source order (the per-kind lists below hold the same
 * nodes). */
struct ast_decl {
	enum ast_decl_kind kind;
	union {
		struct ast_const *cnst;
		struct ast_struct *strct;
		struct ast_region *region;
		struct ast_freelist *freelist;
		struct ast_offload *offload;
	} u;
	struct ast_decl *next;
};

struct ast_arena;

/* NIC behaviour a program relies on though no public source confirms it
 * (`assume NAME;`, docs/language.md); recorded in the chain object. */
enum ast_assume {
	AST_ASSUME_FENCED_ENABLE = 1u << 0, /* fenced SEND_EN orders its fetch (nic-model 3.15a) */
};

struct ast_program {
	const char *file; /* arena copy */
	unsigned assumes; /* enum ast_assume bits */
	struct ast_decl *decls;
	struct ast_const *consts;
	struct ast_struct *structs;
	struct ast_region *regions;
	struct ast_freelist *freelists;
	struct ast_offload *offloads;
	unsigned nconsts, nstructs, nregions, nfreelists, noffloads;
	bool checked; /* check_program() ran without errors */
	struct ast_arena *arena;
};

/* ---- Construction and lifetime (compiler/ast.c) ------------------------ */

/* A new, empty program with its own arena; NULL on allocation failure. */
struct ast_program *ast_program_new(const char *file);
/* Free a program and every node in its arena (NULL is fine). */
void ast_program_free(struct ast_program *prog);
/* Zeroed memory from the program's arena; NULL on allocation failure. */
void *ast_alloc(struct ast_program *prog, size_t size);
/* Arena copy of `len` bytes of `s`, NUL-terminated. */
char *ast_strndup(struct ast_program *prog, const char *s, size_t len);

/* Node constructors (zeroed, kind and loc set; NULL on allocation
 * failure). */
struct ast_expr *ast_expr_new(struct ast_program *prog, enum ast_expr_kind kind,
                              struct src_loc loc);
struct ast_stmt *ast_stmt_new(struct ast_program *prog, enum ast_stmt_kind kind,
                              struct src_loc loc);
struct ast_type *ast_type_new(struct ast_program *prog, enum ast_type_kind kind,
                              struct src_loc loc);

/* Find declarations by name (NULL if none). */
struct ast_offload *ast_find_offload(const struct ast_program *prog, const char *name);
struct ast_region *ast_find_region(const struct ast_program *prog, const char *name);

/* Print a type as the language spells it ("be64", "*bucket in table",
 * "u8[64]") into buf; returns buf. */
const char *ast_type_str(const struct ast_type *t, char *buf, size_t size);

/* Byte order / width of a scalar or pointer type (NONE / 0 otherwise). */
enum ast_order ast_type_order(const struct ast_type *t);
unsigned ast_type_width(const struct ast_type *t);

#endif /* PRISMC_AST_H */
