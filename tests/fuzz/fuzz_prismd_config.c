/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_prismd_config.c - libFuzzer target for prismd's
 * configuration reader (tools/prismd/config.c).
 *
 * Owns: on arbitrary bytes, a parse either succeeds with a configuration
 * inside its limits or fails with a positioned message ("origin:line:col:
 * error: ...", then the line and the caret, indented); what it allocated
 * is freed either way.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools/prismd/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prismd_config cfg;
	char err[256] = "";

	if (prismd_config_parse((const char *)data, size, "f.yaml", &cfg, err, sizeof(err))) {
		const char *nl = strchr(err, '\n');

		if (strncmp(err, "f.yaml:", 7))
			abort(); /* a refusal names where */
		if (nl && strncmp(nl + 1, "    ", strnlen(nl + 1, 4)))
			abort(); /* then the line, indented (util/caret.h) */
		return 0;
	}
	if (cfg.n_regions > PRISMD_MAX_REGIONS || cfg.n_programs > PRISMD_MAX_PROGRAMS ||
	    cfg.n_post_uids > PRISMD_MAX_POST_UIDS)
		abort();
	for (size_t i = 0; i < cfg.n_programs; i++)
		if (!cfg.programs[i])
			abort();
	prismd_config_free(&cfg);
	return 0;
}
