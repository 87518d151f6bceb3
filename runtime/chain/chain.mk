# runtime/chain/chain.mk - the chain object: the in-memory compiled object,
# its YAML writer and reader, validation, and the object-level verifier
# (chain_verify.c, chain_gate.c).  Part of libprism because both prismc and
# the runtime's loader use it; it needs nothing of runtime/core.
LIB_SRCS += runtime/chain/chainobj.c runtime/chain/chainobj_diag.c \
	    runtime/chain/chainobj_validate.c runtime/chain/chainobj_yaml.c \
	    runtime/chain/chainobj_write.c runtime/chain/chainobj_read.c \
	    runtime/chain/chainobj_guard.c runtime/chain/chain_verify.c \
	    runtime/chain/chain_gate.c
