/* SPDX-License-Identifier: MIT */
/*
 * sim/cost_builtin.c - the NIC profiles compiled into libprism.
 *
 * Owns: the table of built-in profiles.  Their text is the installed YAML
 * file itself (profiles/<name>.yaml), embedded byte for byte with the
 * assembler's .incbin, so the file in the tree is the one source of truth
 * and the built-in copy is parsed by the same code as a file on disk.
 *
 * Must not: hold numbers of its own.
 */
#include "sim/cost_profile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/*
 * Embed profiles/NAME.yaml as a NUL-terminated read-only blob with start
 * and end symbols.  Paths are relative to the top of the tree, where every
 * build runs the compiler (the build fragment lists the .yaml files as
 * prerequisites of this object so edits rebuild it).
 */
#define SIM_EMBED_PROFILE(sym, file)                                                               \
	__asm__(".pushsection .rodata\n"                                                           \
	        ".balign 16\n"                                                                     \
	        ".type sim_profile_" #sym "_start, @object\n"                                      \
	        "sim_profile_" #sym "_start:\n"                                                    \
	        ".incbin \"" file "\"\n"                                                           \
	        "sim_profile_" #sym "_end:\n"                                                      \
	        ".byte 0\n"                                                                        \
	        ".popsection\n");                                                                  \
	extern const char sim_profile_##sym##_start[] __attribute__((visibility("hidden")));       \
	extern const char sim_profile_##sym##_end[] __attribute__((visibility("hidden")))

/* The built-in profiles: one line each. */
#define SIM_BUILTIN_PROFILES(X) X(cx5)

#define X_EMBED(n) SIM_EMBED_PROFILE(n, "profiles/" #n ".yaml");
SIM_BUILTIN_PROFILES(X_EMBED)
#undef X_EMBED

struct builtin {
	const char *name;
	const char *start;
	const char *end;
};

static const struct builtin builtins[] = {
#define X_ENTRY(n) {#n, sim_profile_##n##_start, sim_profile_##n##_end},
    SIM_BUILTIN_PROFILES(X_ENTRY)
#undef X_ENTRY
};

static const char *const builtin_names[] = {
#define X_NAME(n) #n,
    SIM_BUILTIN_PROFILES(X_NAME)
#undef X_NAME
        NULL,
};

const char *const *sim_cost_profile_builtin_names(void)
{
	return builtin_names;
}

static const struct builtin *find_builtin(const char *name)
{
	for (size_t i = 0; name && i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (strcmp(builtins[i].name, name) == 0)
			return &builtins[i];
	return NULL;
}

const char *sim_cost_profile_builtin_text(const char *name, size_t *len)
{
	const struct builtin *b = find_builtin(name);
	if (!b)
		return NULL;
	if (len)
		*len = (size_t)(b->end - b->start);
	return b->start;
}

int sim_cost_profile_builtin(const char *name, struct sim_cost_profile *out,
                             struct diag_report *diag)
{
	const struct builtin *b = find_builtin(name);
	if (!b) {
		if (diag) {
			memset(diag, 0, sizeof(*diag));
			diag->code = -ENOENT;
			snprintf(diag->msg, sizeof(diag->msg), "no built-in NIC profile '%s'",
			         name ? name : "(null)");
		}
		return -ENOENT;
	}
	char origin[48];
	snprintf(origin, sizeof(origin), "profiles/%s.yaml", b->name);
	return sim_cost_profile_parse(b->start, (size_t)(b->end - b->start), origin, out, diag);
}
