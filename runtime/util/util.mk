# runtime/util/util.mk - one helper of each kind, shared by the runtime, the
# compiler, the tools and the tests: byte order (byteorder.h), array growth
# (array.h), hex digits (hex.h), JSON text (json_text.h), the monotonic clock
# (clock.h), error reports (diag_report.c), the source line and caret under
# an error's column (caret.c) and descriptors shared between
# processes: SCM_RIGHTS passing and sealed memfds (fdpass.c).
LIB_SRCS += runtime/util/caret.c runtime/util/diag_report.c runtime/util/fdpass.c

TESTS += util_fdpass util_caret
util_fdpass_SRCS := tests/unit/test_fdpass.c
util_caret_SRCS := tests/unit/test_caret.c
