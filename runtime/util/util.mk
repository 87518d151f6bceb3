# runtime/util/util.mk - one helper of each kind, shared by the runtime, the
# compiler, the tools and the tests: byte order (byteorder.h), array growth
# (array.h), hex digits (hex.h), JSON text (json_text.h), the monotonic clock
# (clock.h) and error reports (diag_report.c).
LIB_SRCS += runtime/util/diag_report.c
