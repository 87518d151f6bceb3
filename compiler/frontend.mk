# compiler/frontend.mk - prismc front end: language, lexer/parser, checker,
# diagnostics and the CLI framework (main, subcommand table, `check`).
#
# FRONTEND_SRCS lists the front end without main() so that test suites and
# fuzz targets can link it; the generated parser/lexer objects are in
# FRONTEND_GEN_OBJS.  Other compiler fragments add their own sources to
# PRISMC_SRCS.

FRONTEND_SRCS := compiler/diag.c compiler/spell.c compiler/ast.c compiler/parse.c compiler/check.c \
	compiler/check_expr.c compiler/check_taint.c compiler/frontend.c

PRISMC_SRCS += compiler/prismc.c compiler/cmd_table.c compiler/cmd_opts.c compiler/cmd_check.c \
	tools/cli/cli.c \
	$(FRONTEND_SRCS)
PRISMC_GEN  += $(O)/gen/parser.c $(O)/gen/lexer.c
FRONTEND_GEN_SRCS := $(O)/gen/parser.c $(O)/gen/lexer.c
FRONTEND_GEN_OBJS := $(O)/gen/parser.o $(O)/gen/lexer.o

# Generated code: flex output trips -Wsign-compare/-Wunused-function and
# has no prototypes for some of its static helpers' callers.
GEN_CFLAGS := $(CFLAGS_ALL) -Wno-sign-compare -Wno-unused-function -Wno-missing-prototypes \
	-Wno-unused-but-set-variable

# A pattern rule with two targets: one bison run makes both.
$(O)/gen/%.c $(O)/gen/%.h: compiler/%.y
	@mkdir -p $(O)/gen
	$(BISON) -Wall -Werror --defines=$(O)/gen/$*.h -o $(O)/gen/$*.c $<

$(O)/gen/lexer.c: compiler/lexer.l $(O)/gen/parser.h
	@mkdir -p $(O)/gen
	$(FLEX) -o $@ $<

$(O)/gen/parser.o $(O)/gen/lexer.o: compiler/parse_state.h compiler/ast.h compiler/diag.h \
	$(O)/gen/parser.h
# (obj() is defined after the fragments are read: spell the object path.)
$(O)/obj/compiler/parse.o: $(O)/gen/parser.h
