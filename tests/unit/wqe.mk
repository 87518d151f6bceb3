# tests/unit: WQE codec suites.
TESTS += test_wqe_codec
test_wqe_codec_SRCS := tests/unit/test_wqe_codec.c
