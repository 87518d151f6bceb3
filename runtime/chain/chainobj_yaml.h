/* SPDX-License-Identifier: MIT */
/*
 * chain/chainobj_yaml.h - internal: the keywords of the chain-object YAML
 * schema shared by its writer and reader.
 *
 * Owns: one table per enumerated field (ring, byte order, parameter type,
 * access words, and the enums chainobj.h already names), and the lookup
 * from a keyword back to its value.  Must not: parse or emit YAML.
 */
#ifndef PRISM_CHAIN_CHAINOBJ_YAML_H
#define PRISM_CHAIN_CHAINOBJ_YAML_H

#include "chain/chainobj.h"

const char *chainobj_yaml_ring_name(enum chainobj_ring r);
const char *chainobj_yaml_order_name(enum chainobj_order o);
const char *chainobj_yaml_ptype_name(enum chainobj_ptype t);
const char *chainobj_yaml_access_name(unsigned bit_index);
/* An access mask (enum chainobj_access; the API's PRISM_ACCESS_* bits are
 * the same) as words for messages: "read|write", or "none". Returns @buf. */
const char *chainobj_access_words(unsigned mask, char *buf, size_t len);

/* The enumerated fields of the schema. */
enum chainobj_kwset {
	CHAINOBJ_KW_RING,
	CHAINOBJ_KW_ORDER,
	CHAINOBJ_KW_PTYPE,
	CHAINOBJ_KW_ACCESS, /* value = bit index */
	CHAINOBJ_KW_ROLE,
	CHAINOBJ_KW_PROFILE,
	CHAINOBJ_KW_REARM,
	CHAINOBJ_KW_PATCH,
	CHAINOBJ_KW_RELOC,
	CHAINOBJ_KW_ASSUME, /* value = bit index */
	CHAINOBJ_KW__COUNT,
};

/* Value of @word in @set, or -1.  @len bytes of @word are compared. */
int chainobj_yaml_keyword(enum chainobj_kwset set, const char *word, size_t len);
/* The word of value @v in @set ("?" when out of range). */
const char *chainobj_yaml_word(enum chainobj_kwset set, int v);
/* Human list of the keywords of @set ("sq, rq") for messages. */
const char *chainobj_yaml_keywords(enum chainobj_kwset set);

#endif /* PRISM_CHAIN_CHAINOBJ_YAML_H */
