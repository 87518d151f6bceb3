/* SPDX-License-Identifier: MIT */
/*
 * tests/compiler/diag_cases.h - every front-end diagnostic, pinned: for each
 * case, a program and the exact text `prismc check` prints for it (message,
 * location, source line and caret).  Included by test_fe_diag.c only.
 *
 * Each program starts with DIAG_PRELUDE (lines 1-4) so locations are stable.
 */
/* The cases are laid out as the source and output they pin. */
/* clang-format off */
#define DIAG_PRELUDE \
	"struct node { key: be64; next: *node in nodes; val: u8[32]; n: be32; lk: le64; w: be16; }\n" \
	"region nodes: node[128] readonly;\n" \
	"region heap: node[64] writable;\n" \
	"freelist bufs: node in heap;\n"

static const struct diag_case diag_cases[] = {
	{
		.name = "lex_unterminated_comment",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"return p.val;\n"
		"}\n"
		"/* never closed\n",
		.expect =
		"t.prism:8:1: error: unterminated comment\n"
		"    /* never closed\n"
		"    ^~\n",
	},
	{
		.name = "lex_invalid_integer",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let x: be64 = 12ab;\n"
		"return x;\n"
		"}\n",
		.expect =
		"t.prism:6:15: error: invalid integer literal '12ab'\n"
		"    let x: be64 = 12ab;\n"
		"                  ^~~~\n",
	},
	{
		.name = "lex_integer_too_large",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let x: be64 = 0x1_0000_0000_0000_0000;\n"
		"return x;\n"
		"}\n",
		.expect =
		"t.prism:6:15: error: integer literal is too large (more than 64 bits)\n"
		"    let x: be64 = 0x1_0000_0000_0000_0000;\n"
		"                  ^~~~~~~~~~~~~~~~~~~~~~~\n",
	},
	{
		.name = "lex_size_suffix_too_large",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let x: be64 = 17179869184 GiB;\n"
		"return x;\n"
		"}\n",
		.expect =
		"t.prism:6:15: error: integer literal is too large (more than 64 bits)\n"
		"    let x: be64 = 17179869184 GiB;\n"
		"                  ^~~~~~~~~~~~~~~\n",
	},
	{
		.name = "lex_no_digits",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let x: be64 = 0x_;\n"
		"return x;\n"
		"}\n",
		.expect =
		"t.prism:6:15: error: integer literal has no digits\n"
		"    let x: be64 = 0x_;\n"
		"                  ^~~\n",
	},
	{
		.name = "lex_invalid_character",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let x = p.key $ 1;\n"
		"}\n",
		.expect =
		"t.prism:6:15: error: invalid character '$'\n"
		"    let x = p.key $ 1;\n"
		"                  ^\n"
		"t.prism:6:17: error: unexpected '1'\n"
		"    let x = p.key $ 1;\n"
		"                    ^\n",
	},
	{
		.name = "lex_invalid_byte",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let x = p.key;\x01\n"
		"return x;\n"
		"}\n",
		.expect =
		"t.prism:6:15: error: invalid byte 0x01\n"
		"    let x = p.key; \n"
		"                  ^\n",
	},
	{
		.name = "parse_missing_semicolon",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let x = p.key\n"
		"return x;\n"
		"}\n",
		.expect =
		"t.prism:6:14: error: expected ';'\n"
		"    let x = p.key\n"
		"                 ^\n",
	},
	{
		/* a missing ';' at the end of a line is reported there, and the parse goes on as if it were there (the 'while' is not swallowed, nothing more is reported) */
		.name = "parse_missing_semicolon_before_while",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) -> be64 {\n"
		"let q = p\n"
		"while (q.key != k) bound 8 {\n"
		"q = q.next;\n"
		"}\n"
		"return q.key;\n"
		"}\n",
		.expect =
		"t.prism:6:10: error: expected ';'\n"
		"    let q = p\n"
		"             ^\n",
	},
	{
		.name = "parse_missing_semicolon_before_brace",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) -> be64 {\n"
		"return p.key\n"
		"}\n",
		.expect =
		"t.prism:6:13: error: expected ';'\n"
		"    return p.key\n"
		"                ^\n",
	},
	{
		/* each missing ';' is reported once, at its own line */
		.name = "parse_missing_semicolon_two_lines",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) -> be64 {\n"
		"let q = p\n"
		"let r = q.next\n"
		"return r.key;\n"
		"}\n",
		.expect =
		"t.prism:6:10: error: expected ';'\n"
		"    let q = p\n"
		"             ^\n"
		"t.prism:7:15: error: expected ';'\n"
		"    let r = q.next\n"
		"                  ^\n",
	},
	{
		.name = "parse_misspelled_keyword_decl",
		.status = 1,
		.src = DIAG_PRELUDE
		"ofload f(k: be64) {\n"
		"}\n",
		.expect =
		"t.prism:5:1: error: unexpected 'ofload'; did you mean 'offload'?\n"
		"    ofload f(k: be64) {\n"
		"    ^~~~~~\n",
	},
	{
		/* a misspelled keyword reads as an identifier until the next token */
		.name = "parse_misspelled_keyword_stmt",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) -> be64 {\n"
		"retrun p.key;\n"
		"}\n",
		.expect =
		"t.prism:6:8: error: unexpected 'p'; did you mean 'return' (not 'retrun')?\n"
		"    retrun p.key;\n"
		"           ^\n",
	},
	{
		.name = "parse_misspelled_operation",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) -> be64 {\n"
		"let x: be64 = fetch_ad(h.key, 1);\n"
		"return x;\n"
		"}\n",
		.expect =
		"t.prism:6:15: error: unknown operation 'fetch_ad' (expected cas, cas_gt, cas_lt, fetch_add or alloc); did you mean 'fetch_add'?\n"
		"    let x: be64 = fetch_ad(h.key, 1);\n"
		"                  ^~~~~~~~\n",
	},
	{
		/* a statement broken before its block: the block is still parsed and
		 * checked, and its closing brace does not end the offload */
		.name = "parse_broken_statement_keeps_block",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) -> be64 {\n"
		"let q = p;\n"
		"whlie (q.key != k) bound 8 {\n"
		"q = q.nxt;\n"
		"}\n"
		"return q.key;\n"
		"}\n",
		.expect =
		"t.prism:7:1: error: unknown operation 'whlie' (expected cas, cas_gt, cas_lt, fetch_add or alloc); did you mean 'while'?\n"
		"    whlie (q.key != k) bound 8 {\n"
		"    ^~~~~\n"
		"t.prism:7:20: error: unexpected 'bound'\n"
		"    whlie (q.key != k) bound 8 {\n"
		"                       ^~~~~\n"
		"t.prism:8:7: error: no field 'nxt' in struct 'node'; did you mean 'next'?\n"
		"    q = q.nxt;\n"
		"          ^~~\n"
		"t.prism:1:8: note: struct 'node' is declared here\n"
		"    struct node { key: be64; next: *node in nodes; val: u8[32]; n: be32; lk: le64; w: be16; }\n"
		"           ^~~~\n",
	},
	{
		/* at the end of the file too: the ';' belongs after the last token */
		.name = "parse_missing_semicolon_at_eof",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) -> be64 {\n"
		"return p.key\n",
		.expect =
		"t.prism:6:13: error: expected ';'\n"
		"    return p.key\n"
		"                ^\n"
		"t.prism:7:1: error: expected '}' (to close '{' at line 5), found end of file\n"
		"    \n"
		"    ^\n",
	},
	{
		.name = "parse_unclosed_paren",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"if (p.key == k {\n"
		"return p.val;\n"
		"}\n"
		"}\n",
		.expect =
		"t.prism:6:16: error: expected ')' (to close '(' at line 6), found '{'\n"
		"    if (p.key == k {\n"
		"                   ^\n",
	},
	{
		.name = "parse_unclosed_brace_eof",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64) {\n"
		"if (k == 1) {\n"
		"return k;\n"
		"}\n",
		.expect =
		"t.prism:9:1: error: expected '}' (to close '{' at line 5), found end of file\n"
		"    \n"
		"    ^\n",
	},
	{
		.name = "parse_unexpected_token",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let = 5;\n"
		"}\n",
		.expect =
		"t.prism:6:5: error: expected identifier, found '='\n"
		"    let = 5;\n"
		"        ^\n",
	},
	{
		.name = "parse_unknown_operation",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let x = swap(p.key, 1);\n"
		"}\n",
		.expect =
		"t.prism:6:9: error: unknown operation 'swap' (expected cas, cas_gt, cas_lt, fetch_add or alloc)\n"
		"    let x = swap(p.key, 1);\n"
		"            ^~~~\n",
	},
	{
		.name = "parse_pointer_representation",
		.status = 1,
		.src = DIAG_PRELUDE
		"struct s { q: be32 *node in nodes; }\n",
		.expect =
		"t.prism:5:20: error: a pointer is stored in 8 bytes: write be64 or le64, not be32\n"
		"    struct s { q: be32 *node in nodes; }\n"
		"                       ^\n",
	},
	{
		.name = "parse_expected_list",
		.status = 1,
		.src = DIAG_PRELUDE
		"region r: node[4] executable;\n",
		.expect =
		"t.prism:5:19: error: expected 'readonly', 'writable' or '[', found 'executable'\n"
		"    region r: node[4] executable;\n"
		"                      ^~~~~~~~~~\n",
	},
	{
		.name = "check_redefinition",
		.status = 1,
		.src = DIAG_PRELUDE
		"region nodes size 4 KiB writable;\n",
		.expect =
		"t.prism:5:8: error: redefinition of 'nodes'\n"
		"    region nodes size 4 KiB writable;\n"
		"           ^~~~~\n"
		"t.prism:2:8: note: previous definition of region 'nodes' is here\n"
		"    region nodes: node[128] readonly;\n"
		"           ^~~~~\n",
	},
	{
		.name = "check_region_not_type",
		.status = 1,
		.src = DIAG_PRELUDE
		"struct s { a: heap; }\n",
		.expect =
		"t.prism:5:15: error: 'heap' is a region, not a type\n"
		"    struct s { a: heap; }\n"
		"                  ^~~~\n",
	},
	{
		.name = "check_unknown_type",
		.status = 1,
		.src = DIAG_PRELUDE
		"struct s { a: be62; }\n",
		.expect =
		"t.prism:5:15: error: unknown type 'be62'; did you mean 'be32'?\n"
		"    struct s { a: be62; }\n"
		"                  ^~~~\n",
	},
	{
		.name = "check_unknown_name_hint",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) -> be64 {\n"
		"let key: be64 = k;\n"
		"if (p.key == ky) {\n"
		"return p.key;\n"
		"}\n"
		"return key;\n"
		"}\n",
		.expect =
		"t.prism:7:14: error: unknown name 'ky'; did you mean 'key'?\n"
		"    if (p.key == ky) {\n"
		"                 ^~\n",
	},
	{
		.name = "check_unknown_field_hint",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) -> be64 {\n"
		"let q = p.nxt;\n"
		"return q.key;\n"
		"}\n",
		.expect =
		"t.prism:6:11: error: no field 'nxt' in struct 'node'; did you mean 'next'?\n"
		"    let q = p.nxt;\n"
		"              ^~~\n"
		"t.prism:1:8: note: struct 'node' is declared here\n"
		"    struct node { key: be64; next: *node in nodes; val: u8[32]; n: be32; lk: le64; w: be16; }\n"
		"           ^~~~\n",
	},
	{
		.name = "check_unknown_region_hint",
		.status = 1,
		.src = DIAG_PRELUDE
		"struct s { q: *node in nodse; }\n",
		.expect =
		"t.prism:5:24: error: unknown region 'nodse'; did you mean 'nodes'?\n"
		"    struct s { q: *node in nodse; }\n"
		"                           ^~~~~\n",
	},
	{
		.name = "check_unknown_type_hint",
		.status = 1,
		.src = DIAG_PRELUDE
		"region r: nod[4] readonly;\n",
		.expect =
		"t.prism:5:11: error: unknown type 'nod'; did you mean 'node'?\n"
		"    region r: nod[4] readonly;\n"
		"              ^~~\n",
	},
	{
		.name = "check_unknown_assumption_hint",
		.status = 1,
		.src = DIAG_PRELUDE
		"assume fenced_enabel;\n",
		.expect =
		"t.prism:5:8: error: unknown assumption 'fenced_enabel' (known: fenced_enable); did you mean 'fenced_enable'?\n"
		"    assume fenced_enabel;\n"
		"           ^~~~~~~~~~~~~\n",
	},
	{
		.name = "check_alloc_freelist_hint",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let b = alloc(buf);\n"
		"b.key = k;\n"
		"}\n",
		.expect =
		"t.prism:6:15: error: alloc() takes the name of a free list; did you mean 'bufs'?\n"
		"    let b = alloc(buf);\n"
		"                  ^~~\n",
	},
	{
		.name = "check_struct_contains_itself",
		.status = 1,
		.src = DIAG_PRELUDE
		"struct s { a: be64; b: s; }\n",
		.expect =
		"t.prism:5:8: error: struct 's' contains itself (use a pointer)\n"
		"    struct s { a: be64; b: s; }\n"
		"           ^\n",
	},
	{
		.name = "check_pointer_width",
		.status = 1,
		.src = DIAG_PRELUDE
		"struct s { a: be32 *node in nodes; }\n",
		.expect =
		"t.prism:5:20: error: a pointer is stored in 8 bytes: write be64 or le64, not be32\n"
		"    struct s { a: be32 *node in nodes; }\n"
		"                       ^\n",
	},
	{
		.name = "check_not_a_region",
		.status = 1,
		.src = DIAG_PRELUDE
		"const C = 4;\n"
		"struct s { a: *node in C; }\n",
		.expect =
		"t.prism:6:24: error: 'C' is a constant, not a region\n"
		"    struct s { a: *node in C; }\n"
		"                           ^\n",
	},
	{
		.name = "check_unknown_region",
		.status = 1,
		.src = DIAG_PRELUDE
		"struct s { a: *node in nowhere; }\n",
		.expect =
		"t.prism:5:24: error: unknown region 'nowhere'\n"
		"    struct s { a: *node in nowhere; }\n"
		"                           ^~~~~~~\n",
	},
	{
		.name = "check_array_length_zero",
		.status = 1,
		.src = DIAG_PRELUDE
		"struct s { a: u8[0]; }\n",
		.expect =
		"t.prism:5:18: error: array length must be positive\n"
		"    struct s { a: u8[0]; }\n"
		"                     ^\n",
	},
	{
		.name = "check_array_too_large",
		.status = 1,
		.src = DIAG_PRELUDE
		"struct s { a: node[0xffffffffffffffff]; }\n",
		.expect =
		"t.prism:5:19: error: array type node[18446744073709551615] is too large\n"
		"    struct s { a: node[0xffffffffffffffff]; }\n"
		"                      ^\n",
	},
	{
		.name = "check_duplicate_field",
		.status = 1,
		.src = DIAG_PRELUDE
		"struct s { a: be64; a: be32; }\n",
		.expect =
		"t.prism:5:21: error: duplicate field 'a' in struct 's'\n"
		"    struct s { a: be64; a: be32; }\n"
		"                        ^\n"
		"t.prism:5:12: note: previous field 'a' is here\n"
		"    struct s { a: be64; a: be32; }\n"
		"               ^\n",
	},
	{
		.name = "check_empty_struct",
		.status = 1,
		.src = DIAG_PRELUDE
		"struct s { }\n",
		.expect =
		"t.prism:5:8: error: struct 's' has no fields\n"
		"    struct s { }\n"
		"           ^\n",
	},
	{
		.name = "check_constant_expected",
		.status = 1,
		.src = DIAG_PRELUDE
		"region r size nodes writable;\n",
		.expect =
		"t.prism:5:15: error: expected a constant integer expression\n"
		"    region r size nodes writable;\n"
		"                  ^~~~~\n",
	},
	{
		.name = "check_region_size_zero",
		.status = 1,
		.src = DIAG_PRELUDE
		"region r size 0 writable;\n",
		.expect =
		"t.prism:5:15: error: region 'r' has size 0\n"
		"    region r size 0 writable;\n"
		"                  ^\n",
	},
	{
		.name = "check_freelist_readonly",
		.status = 1,
		.src = DIAG_PRELUDE
		"freelist fl: node in nodes;\n",
		.expect =
		"t.prism:5:22: error: free list 'fl' allocates from read-only region 'nodes'\n"
		"    freelist fl: node in nodes;\n"
		"                         ^~~~~\n"
		"t.prism:2:8: note: region 'nodes' is declared readonly here\n"
		"    region nodes: node[128] readonly;\n"
		"           ^~~~~\n",
	},
	{
		.name = "check_freelist_too_big",
		.status = 1,
		.src = DIAG_PRELUDE
		"region small size 16 writable;\n"
		"freelist fl: node in small;\n",
		.expect =
		"t.prism:6:10: error: buffers of free list 'fl' (62 bytes) do not fit in region 'small' (16 bytes)\n"
		"    freelist fl: node in small;\n"
		"             ^~\n",
	},
	{
		.name = "check_const_cycle",
		.status = 1,
		.src = DIAG_PRELUDE
		"const A = B + 1;\n"
		"const B = A;\n",
		.expect =
		"t.prism:5:7: error: constant 'A' depends on itself\n"
		"    const A = B + 1;\n"
		"          ^\n",
	},
	{
		.name = "check_too_many_params",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload g(a0: u8, a1: u8, a2: u8, a3: u8, a4: u8, a5: u8, a6: u8, a7: u8, a8: u8, a9: u8, a10: u8, a11: u8, a12: u8, a13: u8, a14: u8, a15: u8, a16: u8, a17: u8, a18: u8, a19: u8, a20: u8, a21: u8, a22: u8, a23: u8, a24: u8, a25: u8, a26: u8, a27: u8, a28: u8, a29: u8, a30: u8, a31: u8, a32: u8, a33: u8, a34: u8, a35: u8, a36: u8, a37: u8, a38: u8, a39: u8, a40: u8, a41: u8, a42: u8, a43: u8, a44: u8, a45: u8, a46: u8, a47: u8, a48: u8, a49: u8, a50: u8, a51: u8, a52: u8, a53: u8, a54: u8, a55: u8, a56: u8, a57: u8, a58: u8, a59: u8, a60: u8, a61: u8, a62: u8, a63: u8, a64: u8) { }\n",
		.expect =
		"t.prism:5:9: error: offload 'g' has 65 parameters (at most 64)\n"
		"    offload g(a0: u8, a1: u8, a2: u8, a3: u8, a4: u8, a5: u8, a6: u8, a7: u8, a8: u8, a9: u8, a10: u8, a11: u8, a12: u8, a13: u8, a14: u8, a15: u8, a16: u8, a17: u8, a18: u8, a19: u8, a20: u8, a21: u8, a22: u8, a23: u8, a24: u8, a25: u8, a26: u8, a27: u8, a28: u8, a29: u8, a30: u8, a31: u8, a32: u8, a33: u8, a34: u8, a35: u8, a36: u8, a37: u8, a38: u8, a39: u8, a40: u8, a41: u8, a42: u8, a43: u8, a44: u8, a45: u8, a46: u8, a47: u8, a48: u8, a49: u8, a50: u8, a51: u8, a52: u8, a53: u8, a54: u8, a55: u8, a56: u8, a57: u8, a58: u8, a59: u8, a60: u8, a61: u8, a62: u8, a63: u8, a64: u8) { }\n"
		"            ^\n",
	},
	{
		.name = "check_duplicate_param",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload g(a: be64, a: be32) { }\n",
		.expect =
		"t.prism:5:20: error: duplicate parameter 'a'\n"
		"    offload g(a: be64, a: be32) { }\n"
		"                       ^\n"
		"t.prism:5:11: note: previous parameter 'a' is here\n"
		"    offload g(a: be64, a: be32) { }\n"
		"              ^\n",
	},
	{
		.name = "check_returns_address",
		.status = 0,
		.src = DIAG_PRELUDE
		"offload g(p: *node in nodes) -> *node in nodes { return p.next; }\n",
		.expect =
		"t.prism:5:33: warning: offload 'g' returns a server address (*node in nodes) to the client\n"
		"    offload g(p: *node in nodes) -> *node in nodes { return p.next; }\n"
		"                                    ^\n",
	},
	{
		.name = "check_no_offload",
		.status = 0,
		.src = DIAG_PRELUDE
		"",
		.expect =
		"t.prism: warning: program declares no offload\n",
	},
	{
		.name = "check_infer_from_constant",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let x = 5;\n"
		"}\n",
		.expect =
		"t.prism:6:5: error: cannot infer the type of 'x' from an integer constant; write 'let x: be64 = ...'\n"
		"    let x = 5;\n"
		"        ^\n",
	},
	{
		.name = "check_local_redefinition",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let x = p.key;\n"
		"let x = p.n;\n"
		"}\n",
		.expect =
		"t.prism:7:5: error: redefinition of 'x'\n"
		"    let x = p.n;\n"
		"        ^\n"
		"t.prism:6:5: note: previous definition of 'x' is here\n"
		"    let x = p.key;\n"
		"        ^\n",
	},
	{
		.name = "check_param_shadowed",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let k = p.key;\n"
		"}\n",
		.expect =
		"t.prism:6:5: error: 'k' hides parameter 'k'\n"
		"    let k = p.key;\n"
		"        ^\n"
		"t.prism:5:11: note: parameter 'k' is declared here\n"
		"    offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"              ^\n",
	},
	{
		.name = "check_lane_race",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let x = p.key;\n"
		"parallel { x = p.key; } || { x = p.next.key; }\n"
		"}\n",
		.expect =
		"t.prism:7:30: error: 'x' is assigned in lanes 1 and 2 of the same 'parallel'\n"
		"    parallel { x = p.key; } || { x = p.next.key; }\n"
		"                                 ^\n"
		"t.prism:7:12: note: lane 1 assigns it here\n"
		"    parallel { x = p.key; } || { x = p.next.key; }\n"
		"               ^\n",
	},
	{
		.name = "check_assign_rvalue",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"p.key + 1 = 2;\n"
		"}\n",
		.expect =
		"t.prism:6:1: error: cannot assign to this expression\n"
		"    p.key + 1 = 2;\n"
		"    ^~~~~~~~~\n",
	},
	{
		.name = "check_assign_param",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"k = p.key;\n"
		"}\n",
		.expect =
		"t.prism:6:1: error: cannot assign to parameter 'k' (parameters are the client's read-only arguments)\n"
		"    k = p.key;\n"
		"    ^\n",
	},
	{
		.name = "check_store_readonly",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"p.key = k;\n"
		"}\n",
		.expect =
		"t.prism:6:1: error: store to read-only region 'nodes'\n"
		"    p.key = k;\n"
		"    ^~~~~\n"
		"t.prism:2:8: note: region 'nodes' is declared readonly here\n"
		"    region nodes: node[128] readonly;\n"
		"           ^~~~~\n",
	},
	{
		.name = "check_condition_not_bool",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"if (p.key) { return p.val; }\n"
		"}\n",
		.expect =
		"t.prism:6:5: error: 'if' condition must be a comparison or a boolean, not be64\n"
		"    if (p.key) { return p.val; }\n"
		"        ^~~~~\n",
	},
	{
		.name = "check_condition_constant",
		.status = 0,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"if (1 == 1) { return p.val; }\n"
		"}\n",
		.expect =
		"t.prism:6:5: warning: 'if' condition is always true\n"
		"    if (1 == 1) { return p.val; }\n"
		"        ^~~~~~\n",
	},
	{
		.name = "check_while_unbounded",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let q = p;\n"
		"while (q.key != k) { q = q.next; }\n"
		"}\n",
		.expect =
		"t.prism:7:1: error: 'while' needs an iteration bound: write 'while (cond) bound N { ... }'\n"
		"    while (q.key != k) { q = q.next; }\n"
		"    ^~~~~\n",
	},
	{
		.name = "check_while_bound_zero",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let q = p;\n"
		"while (q.key != k) bound 0 { q = q.next; }\n"
		"}\n",
		.expect =
		"t.prism:7:26: error: loop bound must be at least 1\n"
		"    while (q.key != k) bound 0 { q = q.next; }\n"
		"                             ^\n",
	},
	{
		.name = "check_while_bound_too_large",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let q = p;\n"
		"while (q.key != k) bound 5000 { q = q.next; }\n"
		"}\n",
		.expect =
		"t.prism:7:26: error: loop bound 5000 exceeds the maximum of 4096\n"
		"    while (q.key != k) bound 5000 { q = q.next; }\n"
		"                             ^~~~\n",
	},
	{
		.name = "check_while_bound_not_constant",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let q = p;\n"
		"while (q.key != k) bound k { q = q.next; }\n"
		"}\n",
		.expect =
		"t.prism:7:26: error: expected a constant integer expression\n"
		"    while (q.key != k) bound k { q = q.next; }\n"
		"                             ^\n",
	},
	{
		.name = "check_break_outside_loop",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"break;\n"
		"}\n",
		.expect =
		"t.prism:6:1: error: 'break' outside a loop\n"
		"    break;\n"
		"    ^~~~~\n",
	},
	{
		.name = "check_break_leaves_lane",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let q = p;\n"
		"while (q.key != k) bound 4 {\n"
		"parallel { break; } || { q = q.next; }\n"
		"}\n"
		"}\n",
		.expect =
		"t.prism:8:12: error: 'break' cannot leave a 'parallel' lane\n"
		"    parallel { break; } || { q = q.next; }\n"
		"               ^~~~~\n",
	},
	{
		.name = "check_return_needs_value",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload g(p: *node in nodes) -> be64 { return; }\n",
		.expect =
		"t.prism:5:40: error: 'return' needs a value: offload 'g' returns be64\n"
		"    offload g(p: *node in nodes) -> be64 { return; }\n"
		"                                           ^~~~~~\n",
	},
	{
		.name = "check_return_bool",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"return p.key == k;\n"
		"}\n",
		.expect =
		"t.prism:6:8: error: cannot return bool: return memory, a parameter or a temporary (bytes for the client)\n"
		"    return p.key == k;\n"
		"           ^~~~~~~~~~\n",
	},
	{
		.name = "check_return_mismatch",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"return p.key;\n"
		"return p.n;\n"
		"}\n",
		.expect =
		"t.prism:7:8: error: width mismatch in return: be32 value for a be64 place\n"
		"    return p.n;\n"
		"           ^~~\n",
	},
	{
		.name = "check_nested_parallel",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"parallel { parallel { } || { } } || { }\n"
		"}\n",
		.expect =
		"t.prism:6:12: error: nested 'parallel' is not supported\n"
		"    parallel { parallel { } || { } } || { }\n"
		"               ^~~~~~~~\n",
	},
	{
		.name = "check_unused_result",
		.status = 0,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"p.key == k;\n"
		"}\n",
		.expect =
		"t.prism:6:1: warning: expression result (bool) is unused\n"
		"    p.key == k;\n"
		"    ^~~~~~~~~~\n",
	},
	{
		.name = "check_unknown_name",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"return nothing;\n"
		"}\n",
		.expect =
		"t.prism:6:8: error: unknown name 'nothing'\n"
		"    return nothing;\n"
		"           ^~~~~~~\n",
	},
	{
		.name = "check_freelist_as_value",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let b = bufs;\n"
		"}\n",
		.expect =
		"t.prism:6:9: error: free list 'bufs' can only be used as alloc(bufs)\n"
		"    let b = bufs;\n"
		"            ^~~~\n",
	},
	{
		.name = "check_struct_as_value",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let b = node;\n"
		"}\n",
		.expect =
		"t.prism:6:9: error: 'node' is a struct, not a value\n"
		"    let b = node;\n"
		"            ^~~~\n",
	},
	{
		.name = "check_offload_as_value",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let b = f;\n"
		"}\n",
		.expect =
		"t.prism:6:9: error: 'f' is an offload, not a value\n"
		"    let b = f;\n"
		"            ^\n",
	},
	{
		.name = "check_constant_does_not_fit",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"if (p.w == 0x10000) { return p.val; }\n"
		"}\n",
		.expect =
		"t.prism:6:12: error: constant 0x10000 does not fit in be16\n"
		"    if (p.w == 0x10000) { return p.val; }\n"
		"               ^~~~~~~\n",
	},
	{
		.name = "check_compare_widths",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"if (p.key == p.n) { return p.val; }\n"
		"}\n",
		.expect =
		"t.prism:6:11: error: operands of '==' have different widths (be64 and be32)\n"
		"    if (p.key == p.n) { return p.val; }\n"
		"              ^~\n",
	},
	{
		.name = "check_compare_byte_order",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"if (p.key == p.lk) { return p.val; }\n"
		"}\n",
		.expect =
		"t.prism:6:11: error: operands of '==' have different byte orders (be64 and le64)\n"
		"    if (p.key == p.lk) { return p.val; }\n"
		"              ^~\n",
	},
	{
		.name = "check_division_by_zero",
		.status = 1,
		.src = DIAG_PRELUDE
		"const Z = 4 / 0;\n",
		.expect =
		"t.prism:5:13: error: division by zero\n"
		"    const Z = 4 / 0;\n"
		"                ^\n",
	},
	{
		.name = "check_constant_overflow",
		.status = 1,
		.src = DIAG_PRELUDE
		"const Z = 0xffffffffffffffff + 1;\n",
		.expect =
		"t.prism:5:30: error: constant expression overflows 64 bits\n"
		"    const Z = 0xffffffffffffffff + 1;\n"
		"                                 ^\n",
	},
	{
		.name = "check_shift_overflow",
		.status = 1,
		.src = DIAG_PRELUDE
		"const Z = 1 << 64;\n",
		.expect =
		"t.prism:5:13: error: constant expression overflows 64 bits\n"
		"    const Z = 1 << 64;\n"
		"                ^~\n",
	},
	{
		.name = "check_pointer_compare_regions",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"if (p == h) { return p.val; }\n"
		"}\n",
		.expect =
		"t.prism:6:7: error: comparison of pointers into different regions ('nodes' and 'heap')\n"
		"    if (p == h) { return p.val; }\n"
		"          ^~\n",
	},
	{
		.name = "check_compare_incompatible",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"if (p.val < p.val) { return p.val; }\n"
		"}\n",
		.expect =
		"t.prism:6:11: error: cannot compare u8[32] with u8[32] using '<'\n"
		"    if (p.val < p.val) { return p.val; }\n"
		"              ^\n",
	},
	{
		.name = "check_logic_not_bool",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"if (p.key == k && p.n) { return p.val; }\n"
		"}\n",
		.expect =
		"t.prism:6:19: error: operand of '&&' must be a boolean, not be32\n"
		"    if (p.key == k && p.n) { return p.val; }\n"
		"                      ^~~\n",
	},
	{
		.name = "check_pointer_arithmetic",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let q = p.next + 1;\n"
		"}\n",
		.expect =
		"t.prism:6:16: error: pointer arithmetic is not supported; use indexing (p[i]) or fields (p.f)\n"
		"    let q = p.next + 1;\n"
		"                   ^\n",
	},
	{
		.name = "check_operand_not_integer",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let q: be64 = p.val + 1;\n"
		"}\n",
		.expect =
		"t.prism:6:15: error: operand of '+' must be an integer, not u8[32]\n"
		"    let q: be64 = p.val + 1;\n"
		"                  ^~~~~\n",
	},
	{
		.name = "check_needs_constant_operands",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let q: be64 = p.key * 2;\n"
		"}\n",
		.expect =
		"t.prism:6:21: error: operator '*' needs constant operands (the NIC cannot compute it)\n"
		"    let q: be64 = p.key * 2;\n"
		"                        ^\n",
	},
	{
		.name = "check_not_operand_bool",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"if (!p.key) { return p.val; }\n"
		"}\n",
		.expect =
		"t.prism:6:6: error: operand of '!' must be a boolean, not be64\n"
		"    if (!p.key) { return p.val; }\n"
		"         ^~~~~\n",
	},
	{
		.name = "check_unary_needs_constant",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let q: be64 = -p.key;\n"
		"}\n",
		.expect =
		"t.prism:6:15: error: operator '-' needs a constant operand (the NIC cannot compute it)\n"
		"    let q: be64 = -p.key;\n"
		"                  ^~~~~~\n",
	},
	{
		.name = "check_cannot_dereference",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let q = *k;\n"
		"}\n",
		.expect =
		"t.prism:6:9: error: cannot dereference be64 (not a pointer)\n"
		"    let q = *k;\n"
		"            ^~\n",
	},
	{
		.name = "check_field_of_non_struct",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let q = k.key;\n"
		"}\n",
		.expect =
		"t.prism:6:11: error: cannot access field 'key' of be64 (not a struct)\n"
		"    let q = k.key;\n"
		"              ^~~\n",
	},
	{
		.name = "check_no_field",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let q = p.value;\n"
		"}\n",
		.expect =
		"t.prism:6:11: error: no field 'value' in struct 'node'\n"
		"    let q = p.value;\n"
		"              ^~~~~\n"
		"t.prism:1:8: note: struct 'node' is declared here\n"
		"    struct node { key: be64; next: *node in nodes; val: u8[32]; n: be32; lk: le64; w: be16; }\n"
		"           ^~~~\n",
	},
	{
		.name = "check_cannot_index",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let q = p.key[0];\n"
		"}\n",
		.expect =
		"t.prism:6:9: error: cannot index be64 (not an array)\n"
		"    let q = p.key[0];\n"
		"            ^~~~~~~~\n",
	},
	{
		.name = "check_index_not_integer",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let q = p.val[p.next];\n"
		"}\n",
		.expect =
		"t.prism:6:15: error: array index must be an integer, not *node in nodes\n"
		"    let q = p.val[p.next];\n"
		"                  ^~~~~~\n",
	},
	{
		.name = "check_index_out_of_bounds",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let q = p.val[32];\n"
		"}\n",
		.expect =
		"t.prism:6:15: error: index 32 is out of bounds for u8[32]\n"
		"    let q = p.val[32];\n"
		"                  ^~\n",
	},
	{
		.name = "check_slice_base",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"return k[.. 4];\n"
		"}\n",
		.expect =
		"t.prism:6:8: error: bounded read of be64: expected an array, a struct or a pointer to one\n"
		"    return k[.. 4];\n"
		"           ^~~~~~~\n",
	},
	{
		.name = "check_slice_len_not_integer",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"return p.val[.. p.next];\n"
		"}\n",
		.expect =
		"t.prism:6:17: error: length of a bounded read must be an integer, not *node in nodes\n"
		"    return p.val[.. p.next];\n"
		"                    ^~~~~~\n",
	},
	{
		.name = "check_slice_len_range",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"return p.val[.. 33];\n"
		"}\n",
		.expect =
		"t.prism:6:17: error: bounded read length 33 is outside 1..32 (u8[32])\n"
		"    return p.val[.. 33];\n"
		"                    ^~\n",
	},
	{
		.name = "check_slice_len_little_endian",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"return p.val[.. p.lk];\n"
		"}\n",
		.expect =
		"t.prism:6:17: error: length of a bounded read must be big-endian (it becomes a WQE byte count), not le64\n"
		"    return p.val[.. p.lk];\n"
		"                    ^~~~\n",
	},
	{
		.name = "check_slice_in_expression",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"if (p.val[.. 4] == p.val) { return p.val; }\n"
		"}\n",
		.expect =
		"t.prism:6:5: error: a bounded read (e[.. n]) can only be returned, assigned or stored\n"
		"    if (p.val[.. 4] == p.val) { return p.val; }\n"
		"        ^~~~~~~~~~~\n",
	},
	{
		.name = "check_atomic_needs_memory",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let x: be64 = 0;\n"
		"cas(x, 0, 1);\n"
		"}\n",
		.expect =
		"t.prism:7:5: error: cas needs a memory location (a dereference, field or element of region memory)\n"
		"    cas(x, 0, 1);\n"
		"        ^\n",
	},
	{
		.name = "check_atomic_readonly",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"cas(p.key, 0, 1);\n"
		"}\n",
		.expect =
		"t.prism:6:5: error: cas on read-only region 'nodes'\n"
		"    cas(p.key, 0, 1);\n"
		"        ^~~~~\n"
		"t.prism:2:8: note: region 'nodes' is declared readonly here\n"
		"    region nodes: node[128] readonly;\n"
		"           ^~~~~\n",
	},
	{
		.name = "check_cas_size",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"cas(h.val[0], 0, 1);\n"
		"}\n",
		.expect =
		"t.prism:6:5: error: cas operates on 4, 8, 16 or 32 bytes, not 1 (u8)\n"
		"    cas(h.val[0], 0, 1);\n"
		"        ^~~~~~~~\n",
	},
	{
		.name = "check_cas_gt_aggregate_masks",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"cas_gt(h.val, h.val);\n"
		"}\n",
		.expect =
		"t.prism:6:8: error: cas_gt on u8[32] compares numerically: give cmp_mask and swap_mask to select the compared and swapped bytes\n"
		"    cas_gt(h.val, h.val);\n"
		"           ^~~~~\n",
	},
	{
		.name = "check_cas_operand_count",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"cas(h.key, 0, 1, 2);\n"
		"}\n",
		.expect =
		"t.prism:6:1: error: cas takes a location, 2 operands and optionally cmp_mask and swap_mask (4 arguments given)\n"
		"    cas(h.key, 0, 1, 2);\n"
		"    ^~~\n",
	},
	{
		.name = "check_cas_aggregate_constant",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"cas(h.val, 0, h.val);\n"
		"}\n",
		.expect =
		"t.prism:6:12: error: cas operand for u8[32] must be 32 bytes, not a constant\n"
		"    cas(h.val, 0, h.val);\n"
		"               ^\n",
	},
	{
		.name = "check_cas_width",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"cas(h.key, p.n, k);\n"
		"}\n",
		.expect =
		"t.prism:6:12: error: width mismatch in cas operand: be32 value for a be64 place\n"
		"    cas(h.key, p.n, k);\n"
		"               ^~~\n",
	},
	{
		.name = "check_cas_byte_order",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"cas(h.key, p.lk, k);\n"
		"}\n",
		.expect =
		"t.prism:6:12: error: byte order mismatch in cas operand: le64 value for a be64 place\n"
		"    cas(h.key, p.lk, k);\n"
		"               ^~~~\n",
	},
	{
		.name = "check_fetch_add_size",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let old = fetch_add(h.w, 1);\n"
		"}\n",
		.expect =
		"t.prism:6:21: error: fetch_add operates on 4- or 8-byte integers, not be16\n"
		"    let old = fetch_add(h.w, 1);\n"
		"                        ^~~\n",
	},
	{
		.name = "check_fetch_add_big_endian",
		.status = 0,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let old = fetch_add(h.key, 1);\n"
		"return old;\n"
		"}\n",
		.expect =
		"t.prism:6:21: warning: fetch_add on be64: the NIC adds in host (little-endian) byte order\n"
		"    let old = fetch_add(h.key, 1);\n"
		"                        ^~~~~\n",
	},
	{
		.name = "check_alloc_not_freelist",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let b = alloc(heap);\n"
		"}\n",
		.expect =
		"t.prism:6:15: error: alloc() takes the name of a free list\n"
		"    let b = alloc(heap);\n"
		"                  ^~~~\n",
	},
	{
		.name = "check_builtin_arg_count",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"let b = alloc(bufs, 1);\n"
		"}\n",
		.expect =
		"t.prism:6:9: error: alloc() takes 1 argument, not 2\n"
		"    let b = alloc(bufs, 1);\n"
		"            ^~~~~\n",
	},
	{
		.name = "check_assign_constant_fits",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"h.w = 0x12345;\n"
		"}\n",
		.expect =
		"t.prism:6:7: error: constant 0x12345 does not fit in be16 (assignment)\n"
		"    h.w = 0x12345;\n"
		"          ^~~~~~~\n",
	},
	{
		.name = "check_assign_width",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"h.n = k;\n"
		"}\n",
		.expect =
		"t.prism:6:7: error: width mismatch in assignment: be64 value for a be32 place\n"
		"    h.n = k;\n"
		"          ^\n",
	},
	{
		.name = "check_assign_pointer_region",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"h.next = h;\n"
		"}\n",
		.expect =
		"t.prism:6:10: error: assignment of a pointer into region 'heap' where region 'nodes' is expected\n"
		"    h.next = h;\n"
		"             ^\n",
	},
	{
		.name = "check_assign_size",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"h.val = *p;\n"
		"}\n",
		.expect =
		"t.prism:6:9: error: size mismatch in assignment: node (62 bytes) for u8[32] (32 bytes)\n"
		"    h.val = *p;\n"
		"            ^~\n",
	},
	{
		.name = "check_assign_type",
		.status = 1,
		.src = DIAG_PRELUDE
		"offload f(k: be64, p: *node in nodes, h: *node in heap) {\n"
		"h.key = p.next;\n"
		"}\n",
		.expect =
		"t.prism:6:9: error: type mismatch in assignment: *node in nodes value for a be64 place\n"
		"    h.key = p.next;\n"
		"            ^~~~~~\n",
	},
	{
		.name = "check_region_too_large",
		.status = 1,
		.src = DIAG_PRELUDE
		"region big size 2 TiB writable;\n"
		"offload f(p: *node in heap) -> be64 { return p.key; }\n",
		.expect =
		"t.prism:5:17: error: region 'big' is 2199023255552 bytes; a region holds at most 1 TiB\n"
		"    region big size 2 TiB writable;\n"
		"                    ^~~~~\n",
	},
};
/* clang-format on */
