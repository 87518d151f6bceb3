# tools/demo.mk - `make demo`: compile the hash-get offload, start a server
# process that populates a hash table, run a client process that performs
# gets over TCP, and print the virtual-clock latency next to RedN's 5.7 us
# and a one-sided (two READs) baseline measured in the same run.
TOOLS += prism-demo
prism-demo_SRCS := tools/demo/prism_demo.c
DEMO_STEPS += 'mkdir -p $(O)/demo'
DEMO_STEPS += '$(O)/prismc compile lib/chains/hash_get.prism --entry get -o $(O)/demo/hash_get.chain'
DEMO_STEPS += '$(O)/prism-demo $(O)/demo/hash_get.chain'
