# tests/trace/trace.mk - the Chrome trace writer and its engine observer.
TESTS += trace_chrome
trace_chrome_SRCS := tests/trace/test_trace_chrome.c

TESTS += trace_observer
trace_observer_SRCS := tests/trace/test_trace_observer.c \
	tests/support/host_verbs.c tests/support/redn_hash_chain.c
