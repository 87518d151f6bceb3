# tests/hw: hardware tests, one per NIC-model rule that a real RDMA device can
# show (named hw_<rule>).  They link libibverbs and libmlx5 and SKIP, with the
# reason, when the machine has no RDMA device (see tests/hw/README.md).
HW_HARNESS := tests/hw/hw_common.c tests/hw/hw_raw.c tests/hw/hw_verbs.c tests/hw/hw_devx.c \
	tests/hw/hw_devx_qp.c
HW_LDLIBS  := -lmlx5 -libverbs

TESTS += test_hw_harness test_hw_verbs test_hw_errors test_hw_atomics test_hw_cross_channel
# the harness's own logic on fake queue memory: runs without a device
test_hw_harness_SRCS := tests/hw/test_hw_harness.c $(HW_HARNESS)
test_hw_harness_LDLIBS := $(HW_LDLIBS)
test_hw_verbs_SRCS := tests/hw/test_hw_verbs.c $(HW_HARNESS)
test_hw_verbs_LDLIBS := $(HW_LDLIBS)
test_hw_errors_SRCS := tests/hw/test_hw_errors.c $(HW_HARNESS)
test_hw_errors_LDLIBS := $(HW_LDLIBS)
test_hw_atomics_SRCS := tests/hw/test_hw_atomics.c $(HW_HARNESS)
test_hw_atomics_LDLIBS := $(HW_LDLIBS)
test_hw_cross_channel_SRCS := tests/hw/test_hw_cross_channel.c $(HW_HARNESS)
test_hw_cross_channel_LDLIBS := $(HW_LDLIBS)
