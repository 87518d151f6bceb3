# runtime/sim: the software RNIC engine (see runtime/sim/sim.h).
LIB_SRCS += \
	runtime/sim/sim_atomic_math.c \
	runtime/sim/sim_channel.c \
	runtime/sim/sim_cq.c \
	runtime/sim/sim_dev.c \
	runtime/sim/sim_exec.c \
	runtime/sim/sim_exec_atomic.c \
	runtime/sim/sim_exec_copy.c \
	runtime/sim/sim_exec_ordering.c \
	runtime/sim/sim_fetch.c \
	runtime/sim/sim_mr.c \
	runtime/sim/sim_qp.c \
	runtime/sim/sim_requester.c \
	runtime/sim/sim_responder.c \
	runtime/sim/sim_sched.c \
	runtime/sim/sim_thread.c \
	runtime/sim/sim_wire.c
