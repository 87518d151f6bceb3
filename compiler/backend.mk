# compiler/backend.mk - prismc back end: chain IR, lowering, barrier
# coalescing, layout, emission, the `compile` subcommand; the object-level
# verifier lives in the library (runtime/chain/) so the loader can run it.

BACKEND_SRCS := compiler/ir.c compiler/lower.c compiler/lower_mem.c compiler/lower_cond.c compiler/lower_order.c \
	compiler/lower_effects.c compiler/lower_atomic.c compiler/lower_loop.c compiler/lower_recycle.c compiler/sched_barrier.c compiler/layout.c compiler/emit.c \
	compiler/compile.c compiler/verify_taint.c
# conditions in disjunctive normal form (`!`, nested `||`, any `else`)
BACKEND_SRCS += compiler/lower_dnf.c
# run-time + - & | ^ with 16-byte masked atomics on scratch cells
BACKEND_SRCS += compiler/lower_arith.c

PRISMC_SRCS += compiler/cmd_compile.c $(BACKEND_SRCS)
