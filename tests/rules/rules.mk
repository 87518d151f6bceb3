# tests/rules: the NIC-model rules of docs/nic-model.md, one body each,
# written against the backend operations table and run on every backend:
# the sim, the mlx5 backend over the PRM-level emulator, and a real mlx5
# device (skipped, with the reason, without one).  tests/rules/rules.h.
TESTS += rules
rules_SRCS := tests/rules/rules_main.c tests/rules/rules_rig.c tests/rules/rules_backends.c \
	tests/rules/rules_probe.c tests/rules/rules_patch.c tests/rules/rules_verbs.c tests/rules/rules_atomics.c \
	tests/rules/rules_ordering.c tests/rules/rules_xc.c tests/rules/rules_hazards.c \
	tests/rules/rules_errors.c tests/rules/rules_cq.c tests/rules/rules_firmware.c \
	tests/rules/rules_engine.c tests/sim/sim_harness.c $(MLX5EMU_SRCS)
