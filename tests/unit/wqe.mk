# tests/unit: WQE codec suites.
TESTS += test_wqe_codec
test_wqe_codec_SRCS := tests/unit/test_wqe_codec.c
TESTS += test_wqe_misc
test_wqe_misc_SRCS := tests/unit/test_wqe_misc.c
