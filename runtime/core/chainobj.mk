# Chain object (in-memory compiled object, YAML writer/reader): part of
# libprism because both prismc and the runtime loader use it.
LIB_SRCS += runtime/core/chainobj.c runtime/core/chainobj_diag.c \
	    runtime/core/chainobj_validate.c runtime/core/chainobj_yaml.c \
	    runtime/core/chainobj_write.c runtime/core/chainobj_read.c \
	    runtime/core/chainobj_guard.c
