# tools/demo.mk - `make demo`: compile the hash-get offload, start a server
# process that populates a hash table, run a client process that performs
# gets over TCP, and print the virtual-clock latency next to RedN's 5.7 us
# and a one-sided (two READs) baseline measured in the same run.
# (The Makefile splits DEMO_STEPS on spaces, so the steps live in demo.sh.)
TOOLS += prism-demo
prism-demo_SRCS := tools/demo/prism_demo.c
DEMO_STEPS += tools/demo.sh
