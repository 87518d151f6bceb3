# runtime/core/core.mk - the backend-neutral runtime: devices, regions,
# programs (loader, relocation), connections, servers, clients, daemon link.
# (the chain object and its verifier are runtime/chain's: chain.mk.)
LIB_SRCS += runtime/core/log.c runtime/core/errors.c runtime/core/device.c \
	    runtime/core/region.c runtime/core/memfd.c
LIB_SRCS += runtime/core/device_sim.c runtime/core/program.c runtime/core/caps.c runtime/core/inst.c runtime/core/inst_prot.c \
	    runtime/core/probe.c \
	    runtime/core/proto.c runtime/core/server.c runtime/core/server_net.c \
	    runtime/core/client.c runtime/core/client_net.c runtime/core/daemon.c \
	    runtime/core/sim_backend.c
