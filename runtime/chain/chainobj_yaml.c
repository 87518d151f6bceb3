/* SPDX-License-Identifier: MIT */
/*
 * chain/chainobj_yaml.c - keyword tables of the chain-object YAML schema.
 *
 * Owns: the words used for rings, byte orders, parameter types and access
 * bits, and keyword -> value lookup for every enumerated field.  The words
 * of roles, profiles, re-arm modes, patch and relocation kinds come from
 * chainobj.c (the X-macro lists), so each word is spelled exactly once.
 * Must not: parse or emit YAML.
 */
#include "chain/chainobj_yaml.h"

#include <stdio.h>
#include <string.h>

static const char *const ring_words[] = {
    [CHAINOBJ_RING_SQ] = "sq",
    [CHAINOBJ_RING_RQ] = "rq",
};

static const char *const order_words[] = {
    [CHAINOBJ_ORDER_BIG] = "big",
    [CHAINOBJ_ORDER_LITTLE] = "little",
};

static const char *const ptype_words[] = {
    [CHAINOBJ_PT_UINT] = "uint",
    [CHAINOBJ_PT_ADDR] = "addr",
    [CHAINOBJ_PT_BYTES] = "bytes",
};

static const char *const access_words[] = {"read", "write", "atomic"};

#define WORD(tab, i) ((size_t)(i) < sizeof(tab) / sizeof((tab)[0]) ? (tab)[i] : "?")

const char *chainobj_yaml_ring_name(enum chainobj_ring r)
{
	return WORD(ring_words, r);
}

const char *chainobj_yaml_order_name(enum chainobj_order o)
{
	return WORD(order_words, o);
}

const char *chainobj_yaml_ptype_name(enum chainobj_ptype t)
{
	return WORD(ptype_words, t);
}

const char *chainobj_yaml_access_name(unsigned bit_index)
{
	return WORD(access_words, bit_index);
}

const char *chainobj_access_words(unsigned mask, char *buf, size_t len)
{
	size_t n = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	for (unsigned b = 0; b < 32 && n < len; b++)
		if (mask & (1u << b))
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "|" : "",
			                      b < sizeof(access_words) / sizeof(access_words[0])
			                          ? access_words[b]
			                          : "?");
	if (!mask)
		snprintf(buf, len, "none");
	return buf;
}

static const char *role_word(int v)
{
	return chainobj_role_name((enum chainobj_role)v);
}

static const char *profile_word(int v)
{
	return chainobj_profile_name((enum chainobj_profile)v);
}

static const char *rearm_word(int v)
{
	return chainobj_rearm_name((enum chainobj_rearm)v);
}

static const char *patch_word(int v)
{
	return chainobj_patch_kind_name((enum chainobj_patch_kind)v);
}

static const char *reloc_word(int v)
{
	return chainobj_reloc_kind_name((enum chainobj_reloc_kind)v);
}

static const char *ring_word(int v)
{
	return chainobj_yaml_ring_name((enum chainobj_ring)v);
}

static const char *order_word(int v)
{
	return chainobj_yaml_order_name((enum chainobj_order)v);
}

static const char *ptype_word(int v)
{
	return chainobj_yaml_ptype_name((enum chainobj_ptype)v);
}

static const char *access_word(int v)
{
	return chainobj_yaml_access_name((unsigned)v);
}

static const char *assume_word(int v)
{
	return chainobj_assume_name((enum chainobj_assume_bit)v);
}

static const struct {
	const char *(*word)(int value);
	int count;
	const char *list;
} kwsets[CHAINOBJ_KW__COUNT] = {
    [CHAINOBJ_KW_RING] = {ring_word, 2, "sq, rq"},
    [CHAINOBJ_KW_ORDER] = {order_word, 2, "big, little"},
    [CHAINOBJ_KW_PTYPE] = {ptype_word, 3, "uint, addr, bytes"},
    [CHAINOBJ_KW_ACCESS] = {access_word, 3, "read, write, atomic"},
    [CHAINOBJ_KW_ROLE] = {role_word, 3, "conn, worker, lane"},
    [CHAINOBJ_KW_PROFILE] = {profile_word, 2, "relaxed, strict"},
    [CHAINOBJ_KW_REARM] = {rearm_word, 2, "cpu-repost, nic-recycle"},
    [CHAINOBJ_KW_PATCH] = {patch_word, CHAINOBJ_PATCH__COUNT,
                           "read-scatter, recv-scatter, cas, fetch-add, masked-cas, "
                           "masked-fetch-add, write"},
    [CHAINOBJ_KW_RELOC] = {reloc_word, CHAINOBJ_RELOC__COUNT, "see docs/chain-format.md"},
    [CHAINOBJ_KW_ASSUME] = {assume_word, CHAINOBJ_ASSUME__COUNT, "fenced-enable, send-en-bb-units"},
};

int chainobj_yaml_keyword(enum chainobj_kwset set, const char *word, size_t len)
{
	if ((unsigned)set >= CHAINOBJ_KW__COUNT)
		return -1;
	for (int v = 0; v < kwsets[set].count; v++) {
		const char *w = kwsets[set].word(v);

		if (strlen(w) == len && !memcmp(w, word, len))
			return v;
	}
	return -1;
}

const char *chainobj_yaml_word(enum chainobj_kwset set, int v)
{
	if ((unsigned)set >= CHAINOBJ_KW__COUNT || v < 0 || v >= kwsets[set].count)
		return "?";
	return kwsets[set].word(v);
}

const char *chainobj_yaml_keywords(enum chainobj_kwset set)
{
	return (unsigned)set < CHAINOBJ_KW__COUNT ? kwsets[set].list : "";
}
