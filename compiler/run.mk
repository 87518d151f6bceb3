# compiler/run.mk - the subcommands that run programs on a NIC: `prismc run`
# (embedded software NIC) and `prismc post` (install on a running server).
PRISMC_SRCS += compiler/cmd_run.c compiler/cmd_post.c compiler/chain_source.c \
	compiler/cmd_devices.c
