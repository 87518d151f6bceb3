# tests/chainobj: chain-object builders, validation, YAML writer and reader.
TESTS += test_chainobj
test_chainobj_SRCS := tests/chainobj/test_chainobj.c tests/chainobj/chain_fixture.c
TESTS += test_chainobj_reject
test_chainobj_reject_SRCS := tests/chainobj/test_chainobj_reject.c tests/chainobj/chain_fixture.c
