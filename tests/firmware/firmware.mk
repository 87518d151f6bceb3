# tests/firmware: firmware-config/prism-fw against a fake sysfs and register tool.
TESTS += test_prism_fw
test_prism_fw_SRCS := tests/firmware/test_prism_fw.c
