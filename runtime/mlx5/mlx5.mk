# runtime/mlx5/mlx5.mk - the mlx5 hardware backend (rdma-core: libibverbs,
# mlx5dv, DEVX) and its PRM field table.  mlx5_glue.c is the only file that
# calls rdma-core; the library links libmlx5 and libibverbs for it.
LIB_SRCS += runtime/mlx5/mlx5_glue.c runtime/mlx5/mlx5_prm.c runtime/mlx5/mlx5_caps.c \
	    runtime/mlx5/mlx5_dev.c runtime/mlx5/mlx5_queue.c runtime/mlx5/mlx5_qp_state.c \
	    runtime/mlx5/mlx5_post.c runtime/mlx5/mlx5_probe.c runtime/mlx5/mlx5_event.c
LIB_LDLIBS += -lmlx5 -libverbs

