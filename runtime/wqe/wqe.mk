# runtime/wqe: the WQE / receive-WQE / CQE codec (docs/contracts.md contract 1).
LIB_SRCS += \
	runtime/wqe/wqe_abi_check.c \
	runtime/wqe/wqe_cqe.c \
	runtime/wqe/wqe_ctrl.c \
	runtime/wqe/wqe_decode.c \
	runtime/wqe/wqe_encode.c \
	runtime/wqe/wqe_equal.c \
	runtime/wqe/wqe_error.c \
	runtime/wqe/wqe_field.c \
	runtime/wqe/wqe_opcode.c \
	runtime/wqe/wqe_print.c \
	runtime/wqe/wqe_rwqe.c
