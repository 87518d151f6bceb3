/* SPDX-License-Identifier: MIT */
/*
 * core/errors.c - prism_strerror(): messages for prism codes and errno values.
 *
 * Owns: the lookup from a (negative or positive) code to a static message,
 * generated from the PRISM_ERRORS table in <prism/errors.h>.
 * Must not: allocate or depend on the locale beyond strerror_r's.
 */
#include <stdio.h>
#include <string.h>

#include <prism/prism.h>

static const struct {
	int code;
	const char *msg;
} prism_msgs[] = {
#define PRISM_X_MSG(name, value, msg) {value, msg},
    PRISM_ERRORS(PRISM_X_MSG)
#undef PRISM_X_MSG
};

PRISM_API const char *prism_strerror(int err)
{
	static __thread char buf[64];

	if (err < 0)
		err = -err;
	if (err == 0)
		return "success";
	if (err >= PRISM_ERRNO_BASE && err <= PRISM_ERRNO_LAST) {
		for (size_t i = 0; i < sizeof(prism_msgs) / sizeof(prism_msgs[0]); i++)
			if (prism_msgs[i].code == err)
				return prism_msgs[i].msg;
		snprintf(buf, sizeof(buf), "unknown prism error %d", err);
		return buf;
	}
	/* GNU strerror_r returns a pointer that may or may not be buf. */
	return strerror_r(err, buf, sizeof(buf));
}
