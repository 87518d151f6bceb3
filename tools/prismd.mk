# tools/prismd.mk - prismd, the software NIC in its own process (daemon mode;
# installed, docs/prismd.md).
TOOLS += prismd
prismd_SRCS := tools/prismd/prismd.c tools/prismd/config.c tools/cli/cli.c
INSTALL_TOOLS += prismd

# prismd's configuration reader on arbitrary bytes
FUZZERS += fuzz_prismd_config
fuzz_prismd_config_SRCS := tests/fuzz/fuzz_prismd_config.c tools/prismd/config.c
