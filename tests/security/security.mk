# tests/security/security.mk - adversarial clients against a server, one
# test per attack (docs/security.md), through a raw client that speaks the
# transport directly.
TESTS += security
security_SRCS := tests/security/test_security.c tests/security/raw_client.c \
	tests/net/net_peer.c $(MLX5EMU_SRCS)
