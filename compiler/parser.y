/* SPDX-License-Identifier: MIT */
/*
 * compiler/parser.y - grammar of the .prism language (bison, pure).
 *
 * Owns: the syntax (docs/language.md has the EBNF this implements), error
 * recovery (`error` productions at declarations, fields and statements, so
 * one run reports several syntax errors), the parse loop (parse_run: a push
 * parser, so that a ';' missing at the end of a line is reported where it
 * belongs and the parse goes on as if it were there) and the wording of
 * syntax errors:
 *
 *     expected ';'                                 (after the previous token)
 *     expected ')' (to close '(' at line 4), found '{'
 *     unexpected '}'
 *
 * Must not: resolve names or types (compiler/check.c); allocate except
 * through the builders in compiler/parse.c.
 */

%define api.pure full
%define api.push-pull push
%define api.prefix {parse_yy}
%define parse.error custom
%define parse.lac full
%locations
%parse-param {struct parse_state *pst}
%parse-param {void *scanner}

%code requires {
#include <stdbool.h>
#include <stdint.h>
#include "compiler/parse_state.h"
}

%code provides {
int parse_yylex(PARSE_YYSTYPE *lval, PARSE_YYLTYPE *lloc, void *scanner);
/* Parse the scanner's whole input into pst->prog; diagnostics into pst->d.
 * Returns 0, 1 after syntax errors, 2 when memory ran out. */
int parse_run(struct parse_state *pst, void *scanner);
}

%code {
#include <stdio.h>
#include <string.h>

#include "compiler/spell.h"

#define L(l) parse_loc((l).first_line, (l).first_column, (l).last_line, (l).last_column)

static void parse_yyerror(PARSE_YYLTYPE *loc, struct parse_state *pst, void *scanner,
			  const char *msg);
}

%union {
	uint64_t num;
	char *str;
	bool flag;
	struct ast_expr *expr;
	struct ast_type *type;
	struct ast_stmt *stmt;
	struct parse_stmts stmts;
	struct parse_fields fields;
	struct parse_params params;
	struct parse_lanes lanes;
	struct parse_args args;
}

%token END 0 "end of file"
%token <str> IDENT "identifier"
%token <num> INTEGER "integer"
%token CONST "'const'" STRUCT "'struct'" REGION "'region'" FREELIST "'freelist'"
%token OFFLOAD "'offload'" READONLY "'readonly'" WRITABLE "'writable'" SIZE "'size'"
%token IN "'in'" LET "'let'" IF "'if'" ELSE "'else'" WHILE "'while'" BOUND "'bound'"
%token BREAK "'break'" RETURN "'return'" PARALLEL "'parallel'" TRUE "'true'"
%token FALSE "'false'" SIZEOF "'sizeof'" RECYCLE "'recycle'"
%token ASSUME "'assume'"
%token EQ "'=='" NE "'!='" LE "'<='" GE "'>='" ANDAND "'&&'" OROR "'||'"
%token SHL "'<<'" SHR "'>>'" ARROW "'->'" DOTDOT "'..'"

%type <expr> expr postfix primary
%type <type> type ret_opt
%type <stmt> stmt block if_stmt else_opt
%type <stmts> stmt_list
%type <fields> field_list
%type <params> param_list params_opt
%type <lanes> lanes
%type <args> arg_list args_opt
%type <flag> access

%left OROR
%left ANDAND
%left '|'
%left '^'
%left '&'
%left EQ NE
%left '<' '>' LE GE
%left SHL SHR
%left '+' '-'
%left '*' '/' '%'
%precedence UNARY

%%

program
	: %empty
	| program decl
	;

/* decl = const | struct | region | freelist | offload | assume */
decl
	: CONST IDENT '=' expr ';'
		{ parse_decl_const(pst, $2, L(@2), $4); }
	| ASSUME IDENT ';'
		{ parse_decl_assume(pst, $2, L(@2)); }
	| STRUCT IDENT '{' field_list '}' semi_opt
		{ parse_decl_struct(pst, $2, L(@2), $4); }
	| REGION IDENT ':' type access ';'
		{ parse_decl_region(pst, $2, L(@2), $4, NULL, $5); }
	| REGION IDENT SIZE expr access ';'
		{ parse_decl_region(pst, $2, L(@2), NULL, $4, $5); }
	| FREELIST IDENT ':' type IN IDENT ';'
		{ parse_decl_freelist(pst, $2, L(@2), $4, $6, L(@6)); }
	| OFFLOAD IDENT '(' params_opt ')' ret_opt block
		{ parse_decl_offload(pst, $2, L(@2), $4, $6, $7); }
	| OFFLOAD IDENT '(' error ')' ret_opt block
		{ parse_decl_offload(pst, $2, L(@2), (struct parse_params){ 0 }, $6, $7); }
	/* no yyerrok: bison stays quiet for three tokens, so the rest of a
	 * broken declaration does not cascade */
	| error ';'
	| error '}'
	;

semi_opt
	: %empty
	| ';'
	;

access
	: READONLY { $$ = false; }
	| WRITABLE { $$ = true; }
	;

/* fields = { IDENT ':' type ';' } */
field_list
	: %empty
		{ $$ = (struct parse_fields){ 0 }; }
	| field_list IDENT ':' type ';'
		{ $$ = parse_fields_add(pst, $1, $2, L(@2), $4); }
	| field_list error ';'
		{ $$ = $1; yyerrok; }
	;

/* params = [ param { ',' param } [ ',' ] ] ; param = IDENT ':' type */
params_opt
	: %empty
		{ $$ = (struct parse_params){ 0 }; }
	| param_list
	| param_list ','
	;

param_list
	: IDENT ':' type
		{ $$ = parse_params_add(pst, (struct parse_params){ 0 }, $1, L(@1), $3); }
	| param_list ',' IDENT ':' type
		{ $$ = parse_params_add(pst, $1, $3, L(@3), $5); }
	;

ret_opt
	: %empty { $$ = NULL; }
	| ARROW type { $$ = $2; }
	;

/* type = IDENT | type '[' expr ']' | [ IDENT ] '*' type 'in' IDENT | '(' type ')' */
type
	: IDENT
		{ $$ = parse_type_name(pst, $1, L(@1)); }
	| '(' type ')'
		{ $$ = $2; }
	| type '[' expr ']'
		{ $$ = parse_type_array(pst, $1, $3, L(@2)); }
	| '*' type IN IDENT
		{ $$ = parse_type_ptr(pst, NULL, L(@1), $2, $4, L(@4), L(@1)); }
	| IDENT '*' type IN IDENT
		{ $$ = parse_type_ptr(pst, $1, L(@1), $3, $5, L(@5), L(@2)); }
	;

/* A syntax error inside a block resumes at the next ';' (stmt) or at the
 * block's closing brace (here), so the rest of the program is still seen. */
block
	: '{' stmt_list '}'
		{ $$ = $2.head; }
	| '{' stmt_list error '}'
		{ $$ = $2.head; yyerrok; }
	;

stmt_list
	: %empty
		{ $$ = (struct parse_stmts){ 0 }; }
	| stmt_list stmt
		{ $$ = parse_stmts_add($1, $2); }
	;

/* stmt = let | assign | expr ';' | if | while | break | return | parallel | block */
stmt
	: LET IDENT '=' expr ';'
		{ $$ = parse_stmt_let(pst, $2, L(@2), NULL, $4, L(@1)); }
	| LET IDENT ':' type '=' expr ';'
		{ $$ = parse_stmt_let(pst, $2, L(@2), $4, $6, L(@1)); }
	| LET IDENT ':' type ';'
		{ $$ = parse_stmt_let(pst, $2, L(@2), $4, NULL, L(@1)); }
	| expr '=' expr ';'
		{ $$ = parse_stmt_assign(pst, $1, $3, L(@2)); }
	| expr ';'
		{ $$ = parse_stmt_expr(pst, $1, L(@1)); }
	| if_stmt
	| WHILE '(' expr ')' BOUND expr block
		{ $$ = parse_stmt_while(pst, $3, $6, $7, L(@1)); }
	| WHILE '(' expr ')' BOUND expr RECYCLE block
		{ $$ = parse_stmt_while(pst, $3, $6, $8, L(@1)); if ($$) $$->u.while_.recycle = true; }
	| WHILE '(' expr ')' block
		{ $$ = parse_stmt_while(pst, $3, NULL, $5, L(@1)); }
	| WHILE '(' expr error BOUND expr block
		{ $$ = parse_stmt_while(pst, NULL, $6, $7, L(@1)); yyerrok; }
	| BREAK ';'
		{ $$ = parse_stmt_simple(pst, AST_STMT_BREAK, L(@1)); }
	| RETURN ';'
		{ $$ = parse_stmt_return(pst, NULL, L(@1)); }
	| RETURN expr ';'
		{ $$ = parse_stmt_return(pst, $2, L(@1)); }
	| PARALLEL lanes
		{ $$ = parse_stmt_parallel(pst, $2, L(@1)); }
	| block
		{ $$ = parse_stmt_block(pst, $1, L(@1)); }
	| error ';'
		{ $$ = NULL; yyerrok; }
	/* a statement broken before its block (`whlie (c) bound 8 { ... }`,
	 * `if c == 1 { ... }`): the block is still parsed and checked, and its
	 * closing brace is not taken for the enclosing block's */
	| error block
		{ $$ = parse_stmt_block(pst, $2, L(@2)); yyerrok; }
	;

/* The error alternatives resume at the block after a missing ')'. */
if_stmt
	: IF '(' expr ')' block else_opt
		{ $$ = parse_stmt_if(pst, $3, $5, $6, $6 != NULL, L(@1)); }
	| IF '(' expr error block else_opt
		{ $$ = parse_stmt_if(pst, NULL, $5, $6, $6 != NULL, L(@1)); yyerrok; }
	;

else_opt
	: %empty { $$ = NULL; }
	| ELSE block { $$ = parse_stmt_block(pst, $2, L(@2)); }
	| ELSE if_stmt { $$ = $2; }
	;

/* lanes = block '||' block { '||' block } */
lanes
	: block OROR block
		{ $$ = parse_lanes_add(pst, parse_lanes_add(pst, (struct parse_lanes){ 0 }, $1, L(@1)),
				       $3, L(@3)); }
	| lanes OROR block
		{ $$ = parse_lanes_add(pst, $1, $3, L(@3)); }
	;

expr
	: postfix
	| expr OROR expr   { $$ = parse_expr_binary(pst, L(@$), AST_BINOP_LOR, $1, $3, L(@2)); }
	| expr ANDAND expr { $$ = parse_expr_binary(pst, L(@$), AST_BINOP_LAND, $1, $3, L(@2)); }
	| expr '|' expr    { $$ = parse_expr_binary(pst, L(@$), AST_BINOP_OR, $1, $3, L(@2)); }
	| expr '^' expr    { $$ = parse_expr_binary(pst, L(@$), AST_BINOP_XOR, $1, $3, L(@2)); }
	| expr '&' expr    { $$ = parse_expr_binary(pst, L(@$), AST_BINOP_AND, $1, $3, L(@2)); }
	| expr EQ expr     { $$ = parse_expr_binary(pst, L(@$), AST_BINOP_EQ, $1, $3, L(@2)); }
	| expr NE expr     { $$ = parse_expr_binary(pst, L(@$), AST_BINOP_NE, $1, $3, L(@2)); }
	| expr '<' expr    { $$ = parse_expr_binary(pst, L(@$), AST_BINOP_LT, $1, $3, L(@2)); }
	| expr '>' expr    { $$ = parse_expr_binary(pst, L(@$), AST_BINOP_GT, $1, $3, L(@2)); }
	| expr LE expr     { $$ = parse_expr_binary(pst, L(@$), AST_BINOP_LE, $1, $3, L(@2)); }
	| expr GE expr     { $$ = parse_expr_binary(pst, L(@$), AST_BINOP_GE, $1, $3, L(@2)); }
	| expr SHL expr    { $$ = parse_expr_binary(pst, L(@$), AST_BINOP_SHL, $1, $3, L(@2)); }
	| expr SHR expr    { $$ = parse_expr_binary(pst, L(@$), AST_BINOP_SHR, $1, $3, L(@2)); }
	| expr '+' expr    { $$ = parse_expr_binary(pst, L(@$), AST_BINOP_ADD, $1, $3, L(@2)); }
	| expr '-' expr    { $$ = parse_expr_binary(pst, L(@$), AST_BINOP_SUB, $1, $3, L(@2)); }
	| expr '*' expr    { $$ = parse_expr_binary(pst, L(@$), AST_BINOP_MUL, $1, $3, L(@2)); }
	| expr '/' expr    { $$ = parse_expr_binary(pst, L(@$), AST_BINOP_DIV, $1, $3, L(@2)); }
	| expr '%' expr    { $$ = parse_expr_binary(pst, L(@$), AST_BINOP_MOD, $1, $3, L(@2)); }
	| '-' expr %prec UNARY { $$ = parse_expr_unary(pst, AST_UNOP_NEG, $2, L(@$)); }
	| '!' expr %prec UNARY { $$ = parse_expr_unary(pst, AST_UNOP_NOT, $2, L(@$)); }
	| '~' expr %prec UNARY { $$ = parse_expr_unary(pst, AST_UNOP_BITNOT, $2, L(@$)); }
	| '*' expr %prec UNARY { $$ = parse_expr_deref(pst, $2, L(@$)); }
	;

/* postfix = primary { '.' IDENT | '[' expr ']' | '[' '..' expr ']' } */
postfix
	: primary
	| postfix '.' IDENT
		{ $$ = parse_expr_field(pst, $1, $3, L(@3), L(@$)); }
	| postfix '[' expr ']'
		{ $$ = parse_expr_index(pst, $1, $3, L(@$)); }
	| postfix '[' DOTDOT expr ']'
		{ $$ = parse_expr_slice(pst, $1, $4, L(@$)); }
	;

/* primary = INTEGER | 'true' | 'false' | IDENT | IDENT '(' args ')' | '(' expr ')'
 *         | 'sizeof' '(' type ')' */
primary
	: INTEGER
		{ $$ = parse_expr_int(pst, $1, L(@1)); }
	| TRUE
		{ $$ = parse_expr_bool(pst, true, L(@1)); }
	| FALSE
		{ $$ = parse_expr_bool(pst, false, L(@1)); }
	| IDENT
		{ $$ = parse_expr_name(pst, $1, L(@1)); }
	| IDENT '(' args_opt ')'
		{ $$ = parse_expr_call(pst, $1, L(@1), $3, L(@$)); }
	| '(' expr ')'
		{ $$ = $2; }
	| SIZEOF '(' type ')'
		{ $$ = parse_expr_sizeof(pst, $3, L(@$)); }
	;

args_opt
	: %empty
		{ $$ = (struct parse_args){ 0 }; }
	| arg_list
	;

arg_list
	: expr
		{ $$ = parse_args_add((struct parse_args){ 0 }, $1); }
	| arg_list ',' expr
		{ $$ = parse_args_add($1, $3); }
	;

%%

/* Display name of a token: the alias without bison's double quotes. */
static const char *token_name(yysymbol_kind_t sym, char *buf, size_t size)
{
	const char *name = yysymbol_name(sym);
	size_t len = strlen(name);

	if (len >= 2 && name[0] == '"' && name[len - 1] == '"') {
		snprintf(buf, size, "%.*s", (int)(len - 2), name + 1);
		return buf;
	}
	return name;
}

/* The closer of an open bracket. */
static char closer_of(char open)
{
	return open == '(' ? ')' : open == '[' ? ']' : '}';
}

/* The innermost bracket still open before the lookahead token (the
 * lookahead itself may have opened one). */
static const struct parse_bracket *open_bracket(const struct parse_state *pst)
{
	unsigned n = pst->nbrackets;

	if (n && pst->tok_len == 1 && strchr("([{", pst->tok_text[0]))
		n--;
	if (n == 0 || n > PARSE_MAX_BRACKETS)
		return NULL;
	return &pst->brackets[n - 1];
}

/* What the lookahead token looks like in a message: 'text' or a name. */
static void found_text(const struct parse_state *pst, yysymbol_kind_t sym, char *buf, size_t size)
{
	if (sym == YYSYMBOL_YYEOF || !pst->tok_text || !pst->tok_len)
		snprintf(buf, size, "end of file");
	else
		snprintf(buf, size, "'%.*s'", pst->tok_len > 32 ? 32 : (int)pst->tok_len,
			 pst->tok_text);
}

/* Offer @sp the keywords among @n tokens of @expected (every keyword when
 * @n is 0).  @names holds their spellings while @sp refers to them. */
static void consider_keywords(struct spell *sp, const yysymbol_kind_t *expected, int n,
			      char names[][24])
{
	int k = 0;

	for (int i = 0; i < (n > 0 ? n : YYNTOKENS); i++) {
		yysymbol_kind_t sym = n > 0 ? expected[i] : (yysymbol_kind_t)i;
		const char *alias = yysymbol_name(sym);
		size_t len = strlen(alias);

		/* keywords are the tokens named 'while': quoted letters */
		if (len < 3 || len - 2 >= sizeof(names[0]) || alias[0] != '\'' ||
		    !(alias[1] >= 'a' && alias[1] <= 'z'))
			continue;
		snprintf(names[k], sizeof(names[k]), "%.*s", (int)(len - 2), alias + 1);
		spell_consider(sp, names[k++]);
	}
}

/*
 * A hint for a misspelled keyword, else "":
 *  - the unexpected token is an identifier close to a keyword the parser
 *    would have taken there (one of the @n @expected, or any keyword when
 *    there were too many to list): "; did you mean 'offload'?";
 *  - the token before it was an identifier close to a keyword (`retrun x;`
 *    reads as an expression until `x`): "; did you mean 'return' (not 'retrun')?".
 */
static void keyword_hint(const struct parse_state *pst, yysymbol_kind_t look,
			 const yysymbol_kind_t *expected, int n, char *hint, size_t size)
{
	char word[SPELL_MAX_LEN + 1], names[YYNTOKENS][24];
	struct spell sp;

	hint[0] = '\0';
	if (look == YYSYMBOL_IDENT && pst->tok_text && pst->tok_len <= SPELL_MAX_LEN) {
		snprintf(word, sizeof(word), "%.*s", (int)pst->tok_len, pst->tok_text);
		spell_init(&sp, word);
		consider_keywords(&sp, expected, n, names);
		if (spell_best(&sp)) {
			spell_hint(&sp, hint, size);
			return;
		}
	}
	if (pst->prev_kind == IDENT && pst->prev_text && pst->prev_len <= SPELL_MAX_LEN) {
		snprintf(word, sizeof(word), "%.*s", (int)pst->prev_len, pst->prev_text);
		spell_init(&sp, word);
		consider_keywords(&sp, expected, 0, names);
		if (spell_best(&sp))
			snprintf(hint, size, "; did you mean '%s' (not '%s')?", spell_best(&sp), word);
	}
}

/* bison's parse.error custom hook: one message per syntax error. */
static int yyreport_syntax_error(const yypcontext_t *ctx, struct parse_state *pst, void *scanner)
{
	enum { MAX_LISTED = 5 };
	yysymbol_kind_t expected[YYNTOKENS];
	yysymbol_kind_t look = yypcontext_token(ctx);
	struct src_loc at = L(*yypcontext_location(ctx));
	int n = yypcontext_expected_tokens(ctx, expected, YYNTOKENS);
	const struct parse_bracket *open = open_bracket(pst);
	char found[48], list[256], name[48], hint[SPELL_HINT_SIZE];
	bool wants_semi = false, wants_closer = false;
	size_t pos = 0;

	(void)scanner;
	found_text(pst, look, found, sizeof(found));
	if (n < 0)
		n = 0;
	for (int i = 0; i < n; i++) {
		if (expected[i] == YYSYMBOL_YYUNDEF)
			continue;
		if (strcmp(yysymbol_name(expected[i]), "';'") == 0)
			wants_semi = true;
		if (open) {
			char c[4] = { '\'', closer_of(open->open), '\'', 0 };

			if (strcmp(yysymbol_name(expected[i]), c) == 0)
				wants_closer = true;
		}
	}

	/* A missing ';' at the end of a line: point just past the previous
	 * token, where the ';' belongs. */
	if (wants_semi && pst->prev_end.line && pst->prev_end.line < at.line) {
		diag_error(pst->d, pst->prev_end, "expected ';'");
		return 0;
	}
	if (n == 0 || n > MAX_LISTED) {
		if (wants_closer)
			diag_error(pst->d, at, "expected '%c' (to close '%c' at line %u), found %s",
				   closer_of(open->open), open->open, open->loc.line, found);
		else {
			keyword_hint(pst, look, expected, n, hint, sizeof(hint));
			diag_error(pst->d, at, "unexpected %s%s", found, hint);
		}
		return 0;
	}
	list[0] = '\0';
	keyword_hint(pst, look, expected, n, hint, sizeof(hint));
	for (int i = 0; i < n && pos < sizeof(list); i++) {
		const char *sep = i == 0 ? "" : i == n - 1 ? " or " : ", ";
		int w = snprintf(list + pos, sizeof(list) - pos, "%s%s", sep,
				 token_name(expected[i], name, sizeof(name)));

		if (w > 0)
			pos += (size_t)w;
	}
	if (wants_closer)
		diag_error(pst->d, at, "expected %s (to close '%c' at line %u), found %s%s", list,
			   open->open, open->loc.line, found, hint);
	else
		diag_error(pst->d, at, "expected %s, found %s%s", list, found, hint);
	return 0;
}

/* Only reached for bison's own failures ("memory exhausted": nesting too
 * deep); syntax errors go through yyreport_syntax_error. */
static void parse_yyerror(PARSE_YYLTYPE *loc, struct parse_state *pst, void *scanner,
			  const char *msg)
{
	(void)scanner;
	if (strstr(msg, "exhausted"))
		diag_error(pst->d, L(*loc), "program is nested too deeply");
	else
		diag_error(pst->d, L(*loc), "%s", msg);
}

/* Can the parser in state @st take @sym as its next token?  Exact (LAC):
 * the default reductions the token would cause are explored first. */
static bool token_fits(yypstate *st, yysymbol_kind_t sym)
{
	yysymbol_kind_t expected[YYNTOKENS];
	int n = yypstate_expected_tokens(st, expected, YYNTOKENS);

	for (int i = 0; i < n; i++)
		if (expected[i] == sym)
			return true;
	return false;
}

/*
 * The parse loop.  Before a token that starts a later line than the one
 * before it is pushed, it is tested: if the parser cannot take it but
 * could take a ';', the ';' is missing at the end of the previous line.
 * That is reported there ("expected ';'", caret just past the previous
 * token) and a ';' is pushed first, so the parse goes on with the next
 * line's statement instead of resynchronising at some later ';' (which
 * swallowed the statement and reported a second error lines later).
 * Only the first token of a line after a token that can end a statement
 * is tested, so a well-formed file pays only for the push interface (about
 * 15% more instructions than a pull parser on bench_compile's program).
 */
int parse_run(struct parse_state *pst, void *scanner)
{
	yypstate *st = parse_yypstate_new();
	int status;

	if (!st) {
		pst->oom = true;
		return 2;
	}
	do {
		PARSE_YYSTYPE val = { 0 };
		PARSE_YYLTYPE loc;
		int tok = parse_yylex(&val, &loc, scanner);
		bool new_line = tok != ';' && pst->prev_end.line && pst->prev_end.line < pst->tok_loc.line;
		int prev = pst->prev_kind; /* the token before tok */
		bool can_end = prev == IDENT || prev == INTEGER || prev == ')' || prev == ']' ||
			       prev == TRUE || prev == FALSE || prev == READONLY ||
			       prev == WRITABLE || prev == BREAK || prev == RETURN;

		if (new_line && can_end && !token_fits(st, YYTRANSLATE(tok)) &&
		    token_fits(st, YYTRANSLATE(';'))) {
			PARSE_YYSTYPE semi_val = { 0 };
			PARSE_YYLTYPE semi_loc = { (int)pst->prev_end.line, (int)pst->prev_end.col,
						   (int)pst->prev_end.line, (int)pst->prev_end.col + 1 };

			diag_error(pst->d, pst->prev_end, "expected ';'");
			parse_yypush_parse(st, ';', &semi_val, &semi_loc, pst, scanner);
		}
		status = parse_yypush_parse(st, tok, &val, &loc, pst, scanner);
	} while (status == YYPUSH_MORE);
	parse_yypstate_delete(st);
	return status;
}
