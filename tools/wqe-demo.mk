# tools: prism-wqe-demo builds RedN's hash-lookup chain WQE by WQE with the
# codec and prints it (encode, decode, compare); a codec walk-through, not
# part of `make demo` (tools/demo.mk).
TOOLS += prism-wqe-demo
prism-wqe-demo_SRCS := tools/prism-wqe-demo.c
