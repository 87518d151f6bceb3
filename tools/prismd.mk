# tools/prismd.mk - prismd, the software NIC in its own process (daemon mode).
TOOLS += prismd
prismd_SRCS := tools/prismd/prismd.c tools/prismd/config.c tools/cli/cli.c
