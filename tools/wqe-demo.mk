# tools: prism-wqe-demo, the codec-only demo that `make demo` runs until the
# software NIC and the compiler are merged.
TOOLS += prism-wqe-demo
prism-wqe-demo_SRCS := tools/prism-wqe-demo.c
# (make demo now runs the runtime demo, tools/demo.mk)
