# runtime/sim/extras.mk - the software NIC's cost model and trace writer.
# (The engine's own sources are listed in runtime/sim/sim.mk.)
LIB_SRCS += runtime/sim/cost_profile.c runtime/sim/cost_builtin.c runtime/sim/cost_model.c \
	runtime/sim/trace_chrome.c

# cost_builtin.c embeds the YAML profiles with .incbin: rebuild it when they change.
SIM_PROFILE_FILES := $(wildcard profiles/*.yaml)
$(O)/obj/runtime/sim/cost_builtin.o: $(SIM_PROFILE_FILES)
