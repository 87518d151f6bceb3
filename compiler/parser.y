/* SPDX-License-Identifier: MIT */
/*
 * compiler/parser.y - grammar of the .prism language (bison, pure).
 *
 * Owns: the syntax (docs/language.md has the EBNF this implements), error
 * recovery (`error` productions at declarations, fields and statements, so
 * one run reports several syntax errors) and the wording of syntax errors:
 *
 *     expected ';'                                 (after the previous token)
 *     expected ')' (to close '(' at line 4), found '{'
 *     unexpected '}'
 *
 * Must not: resolve names or types (compiler/check.c); allocate except
 * through the builders in compiler/parse.c.
 */

%define api.pure full
%define api.prefix {parse_yy}
%define parse.error custom
%define parse.lac full
%locations
%param {struct parse_state *ps}
%param {void *scanner}

%code requires {
#include <stdbool.h>
#include <stdint.h>
#include "compiler/parse_state.h"
}

%code provides {
int parse_yylex(PARSE_YYSTYPE *lval, PARSE_YYLTYPE *lloc, void *scanner);
int parse_yyparse(struct parse_state *ps, void *scanner);
}

%code {
#include <stdio.h>
#include <string.h>

#define parse_yylex(lval, lloc, ps, scanner) parse_yylex(lval, lloc, scanner)
#define L(l) parse_loc((l).first_line, (l).first_column, (l).last_line, (l).last_column)

static void parse_yyerror(PARSE_YYLTYPE *loc, struct parse_state *ps, void *scanner,
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
		{ parse_decl_const(ps, $2, L(@2), $4); }
	| ASSUME IDENT ';'
		{ parse_decl_assume(ps, $2, L(@2)); }
	| STRUCT IDENT '{' field_list '}' semi_opt
		{ parse_decl_struct(ps, $2, L(@2), $4); }
	| REGION IDENT ':' type access ';'
		{ parse_decl_region(ps, $2, L(@2), $4, NULL, $5); }
	| REGION IDENT SIZE expr access ';'
		{ parse_decl_region(ps, $2, L(@2), NULL, $4, $5); }
	| FREELIST IDENT ':' type IN IDENT ';'
		{ parse_decl_freelist(ps, $2, L(@2), $4, $6, L(@6)); }
	| OFFLOAD IDENT '(' params_opt ')' ret_opt block
		{ parse_decl_offload(ps, $2, L(@2), $4, $6, $7); }
	| OFFLOAD IDENT '(' error ')' ret_opt block
		{ parse_decl_offload(ps, $2, L(@2), (struct parse_params){ 0 }, $6, $7); }
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
		{ $$ = parse_fields_add(ps, $1, $2, L(@2), $4); }
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
		{ $$ = parse_params_add(ps, (struct parse_params){ 0 }, $1, L(@1), $3); }
	| param_list ',' IDENT ':' type
		{ $$ = parse_params_add(ps, $1, $3, L(@3), $5); }
	;

ret_opt
	: %empty { $$ = NULL; }
	| ARROW type { $$ = $2; }
	;

/* type = IDENT | type '[' expr ']' | [ IDENT ] '*' type 'in' IDENT | '(' type ')' */
type
	: IDENT
		{ $$ = parse_type_name(ps, $1, L(@1)); }
	| '(' type ')'
		{ $$ = $2; }
	| type '[' expr ']'
		{ $$ = parse_type_array(ps, $1, $3, L(@2)); }
	| '*' type IN IDENT
		{ $$ = parse_type_ptr(ps, NULL, L(@1), $2, $4, L(@4), L(@1)); }
	| IDENT '*' type IN IDENT
		{ $$ = parse_type_ptr(ps, $1, L(@1), $3, $5, L(@5), L(@2)); }
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
		{ $$ = parse_stmt_let(ps, $2, L(@2), NULL, $4, L(@1)); }
	| LET IDENT ':' type '=' expr ';'
		{ $$ = parse_stmt_let(ps, $2, L(@2), $4, $6, L(@1)); }
	| LET IDENT ':' type ';'
		{ $$ = parse_stmt_let(ps, $2, L(@2), $4, NULL, L(@1)); }
	| expr '=' expr ';'
		{ $$ = parse_stmt_assign(ps, $1, $3, L(@2)); }
	| expr ';'
		{ $$ = parse_stmt_expr(ps, $1, L(@1)); }
	| if_stmt
	| WHILE '(' expr ')' BOUND expr block
		{ $$ = parse_stmt_while(ps, $3, $6, $7, L(@1)); }
	| WHILE '(' expr ')' BOUND expr RECYCLE block
		{ $$ = parse_stmt_while(ps, $3, $6, $8, L(@1)); if ($$) $$->u.while_.recycle = true; }
	| WHILE '(' expr ')' block
		{ $$ = parse_stmt_while(ps, $3, NULL, $5, L(@1)); }
	| WHILE '(' expr error BOUND expr block
		{ $$ = parse_stmt_while(ps, NULL, $6, $7, L(@1)); yyerrok; }
	| BREAK ';'
		{ $$ = parse_stmt_simple(ps, AST_STMT_BREAK, L(@1)); }
	| RETURN ';'
		{ $$ = parse_stmt_return(ps, NULL, L(@1)); }
	| RETURN expr ';'
		{ $$ = parse_stmt_return(ps, $2, L(@1)); }
	| PARALLEL lanes
		{ $$ = parse_stmt_parallel(ps, $2, L(@1)); }
	| block
		{ $$ = parse_stmt_block(ps, $1, L(@1)); }
	| error ';'
		{ $$ = NULL; yyerrok; }
	;

/* The error alternatives resume at the block after a missing ')'. */
if_stmt
	: IF '(' expr ')' block else_opt
		{ $$ = parse_stmt_if(ps, $3, $5, $6, $6 != NULL, L(@1)); }
	| IF '(' expr error block else_opt
		{ $$ = parse_stmt_if(ps, NULL, $5, $6, $6 != NULL, L(@1)); yyerrok; }
	;

else_opt
	: %empty { $$ = NULL; }
	| ELSE block { $$ = parse_stmt_block(ps, $2, L(@2)); }
	| ELSE if_stmt { $$ = $2; }
	;

/* lanes = block '||' block { '||' block } */
lanes
	: block OROR block
		{ $$ = parse_lanes_add(ps, parse_lanes_add(ps, (struct parse_lanes){ 0 }, $1, L(@1)),
				       $3, L(@3)); }
	| lanes OROR block
		{ $$ = parse_lanes_add(ps, $1, $3, L(@3)); }
	;

expr
	: postfix
	| expr OROR expr   { $$ = parse_expr_binary(ps, L(@$), AST_BINOP_LOR, $1, $3, L(@2)); }
	| expr ANDAND expr { $$ = parse_expr_binary(ps, L(@$), AST_BINOP_LAND, $1, $3, L(@2)); }
	| expr '|' expr    { $$ = parse_expr_binary(ps, L(@$), AST_BINOP_OR, $1, $3, L(@2)); }
	| expr '^' expr    { $$ = parse_expr_binary(ps, L(@$), AST_BINOP_XOR, $1, $3, L(@2)); }
	| expr '&' expr    { $$ = parse_expr_binary(ps, L(@$), AST_BINOP_AND, $1, $3, L(@2)); }
	| expr EQ expr     { $$ = parse_expr_binary(ps, L(@$), AST_BINOP_EQ, $1, $3, L(@2)); }
	| expr NE expr     { $$ = parse_expr_binary(ps, L(@$), AST_BINOP_NE, $1, $3, L(@2)); }
	| expr '<' expr    { $$ = parse_expr_binary(ps, L(@$), AST_BINOP_LT, $1, $3, L(@2)); }
	| expr '>' expr    { $$ = parse_expr_binary(ps, L(@$), AST_BINOP_GT, $1, $3, L(@2)); }
	| expr LE expr     { $$ = parse_expr_binary(ps, L(@$), AST_BINOP_LE, $1, $3, L(@2)); }
	| expr GE expr     { $$ = parse_expr_binary(ps, L(@$), AST_BINOP_GE, $1, $3, L(@2)); }
	| expr SHL expr    { $$ = parse_expr_binary(ps, L(@$), AST_BINOP_SHL, $1, $3, L(@2)); }
	| expr SHR expr    { $$ = parse_expr_binary(ps, L(@$), AST_BINOP_SHR, $1, $3, L(@2)); }
	| expr '+' expr    { $$ = parse_expr_binary(ps, L(@$), AST_BINOP_ADD, $1, $3, L(@2)); }
	| expr '-' expr    { $$ = parse_expr_binary(ps, L(@$), AST_BINOP_SUB, $1, $3, L(@2)); }
	| expr '*' expr    { $$ = parse_expr_binary(ps, L(@$), AST_BINOP_MUL, $1, $3, L(@2)); }
	| expr '/' expr    { $$ = parse_expr_binary(ps, L(@$), AST_BINOP_DIV, $1, $3, L(@2)); }
	| expr '%' expr    { $$ = parse_expr_binary(ps, L(@$), AST_BINOP_MOD, $1, $3, L(@2)); }
	| '-' expr %prec UNARY { $$ = parse_expr_unary(ps, AST_UNOP_NEG, $2, L(@$)); }
	| '!' expr %prec UNARY { $$ = parse_expr_unary(ps, AST_UNOP_NOT, $2, L(@$)); }
	| '~' expr %prec UNARY { $$ = parse_expr_unary(ps, AST_UNOP_BITNOT, $2, L(@$)); }
	| '*' expr %prec UNARY { $$ = parse_expr_deref(ps, $2, L(@$)); }
	;

/* postfix = primary { '.' IDENT | '[' expr ']' | '[' '..' expr ']' } */
postfix
	: primary
	| postfix '.' IDENT
		{ $$ = parse_expr_field(ps, $1, $3, L(@3), L(@$)); }
	| postfix '[' expr ']'
		{ $$ = parse_expr_index(ps, $1, $3, L(@$)); }
	| postfix '[' DOTDOT expr ']'
		{ $$ = parse_expr_slice(ps, $1, $4, L(@$)); }
	;

/* primary = INTEGER | 'true' | 'false' | IDENT | IDENT '(' args ')' | '(' expr ')'
 *         | 'sizeof' '(' type ')' */
primary
	: INTEGER
		{ $$ = parse_expr_int(ps, $1, L(@1)); }
	| TRUE
		{ $$ = parse_expr_bool(ps, true, L(@1)); }
	| FALSE
		{ $$ = parse_expr_bool(ps, false, L(@1)); }
	| IDENT
		{ $$ = parse_expr_name(ps, $1, L(@1)); }
	| IDENT '(' args_opt ')'
		{ $$ = parse_expr_call(ps, $1, L(@1), $3, L(@$)); }
	| '(' expr ')'
		{ $$ = $2; }
	| SIZEOF '(' type ')'
		{ $$ = parse_expr_sizeof(ps, $3, L(@$)); }
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
static const struct parse_bracket *open_bracket(const struct parse_state *ps)
{
	unsigned n = ps->nbrackets;

	if (n && ps->tok_len == 1 && strchr("([{", ps->tok_text[0]))
		n--;
	if (n == 0 || n > PARSE_MAX_BRACKETS)
		return NULL;
	return &ps->brackets[n - 1];
}

/* What the lookahead token looks like in a message: 'text' or a name. */
static void found_text(const struct parse_state *ps, yysymbol_kind_t sym, char *buf, size_t size)
{
	if (sym == YYSYMBOL_YYEOF || !ps->tok_text || !ps->tok_len)
		snprintf(buf, size, "end of file");
	else
		snprintf(buf, size, "'%.*s'", ps->tok_len > 32 ? 32 : (int)ps->tok_len,
			 ps->tok_text);
}

/* bison's parse.error custom hook: one message per syntax error. */
static int yyreport_syntax_error(const yypcontext_t *ctx, struct parse_state *ps, void *scanner)
{
	enum { MAX_LISTED = 5 };
	yysymbol_kind_t expected[YYNTOKENS];
	yysymbol_kind_t look = yypcontext_token(ctx);
	struct src_loc at = L(*yypcontext_location(ctx));
	int n = yypcontext_expected_tokens(ctx, expected, YYNTOKENS);
	const struct parse_bracket *open = open_bracket(ps);
	char found[48], list[256], name[48];
	bool wants_semi = false, wants_closer = false;
	size_t pos = 0;

	(void)scanner;
	found_text(ps, look, found, sizeof(found));
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
	if (wants_semi && ps->prev_end.line && ps->prev_end.line < at.line) {
		diag_error(ps->d, ps->prev_end, "expected ';'");
		return 0;
	}
	if (n == 0 || n > MAX_LISTED) {
		if (wants_closer)
			diag_error(ps->d, at, "expected '%c' (to close '%c' at line %u), found %s",
				   closer_of(open->open), open->open, open->loc.line, found);
		else
			diag_error(ps->d, at, "unexpected %s", found);
		return 0;
	}
	list[0] = '\0';
	for (int i = 0; i < n && pos < sizeof(list); i++) {
		const char *sep = i == 0 ? "" : i == n - 1 ? " or " : ", ";
		int w = snprintf(list + pos, sizeof(list) - pos, "%s%s", sep,
				 token_name(expected[i], name, sizeof(name)));

		if (w > 0)
			pos += (size_t)w;
	}
	if (wants_closer)
		diag_error(ps->d, at, "expected %s (to close '%c' at line %u), found %s", list,
			   open->open, open->loc.line, found);
	else
		diag_error(ps->d, at, "expected %s, found %s", list, found);
	return 0;
}

/* Only reached for bison's own failures ("memory exhausted": nesting too
 * deep); syntax errors go through yyreport_syntax_error. */
static void parse_yyerror(PARSE_YYLTYPE *loc, struct parse_state *ps, void *scanner,
			  const char *msg)
{
	(void)scanner;
	if (strstr(msg, "exhausted"))
		diag_error(ps->d, L(*loc), "program is nested too deeply");
	else
		diag_error(ps->d, L(*loc), "%s", msg);
}
