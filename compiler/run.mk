# compiler/run.mk - the subcommands that run programs on a NIC: `prismc run`
# (embedded software NIC), and those that talk to a running server:
# `prismc post` / `remove` / `show` (its post socket) and `call` (a client).
# the reference interpreter (the language's executable definition) and the
# region images `run` fills; test suites link INTERP_SRCS.
INTERP_SRCS := compiler/interp.c
PRISMC_SRCS += compiler/cmd_run.c compiler/cmd_post.c compiler/chain_source.c \
	compiler/cmd_server.c compiler/cmd_call.c compiler/cmd_show.c compiler/cmd_remove.c \
	compiler/run_image.c compiler/cmd_devices.c $(INTERP_SRCS)
