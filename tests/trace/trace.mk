# tests/trace/trace.mk - the Chrome trace writer and its engine observer.
TESTS += trace_chrome
trace_chrome_SRCS := tests/trace/test_trace_chrome.c tests/support/json_mini.c
