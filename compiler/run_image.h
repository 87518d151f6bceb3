/* SPDX-License-Identifier: MIT */
/*
 * compiler/run_image.h - region images for `prismc run`: contents from a
 * file, and typed stores whose values may be symbolic pointers that are
 * relocated to where the region really is.
 *
 *     --set REGION[+OFF]=TYPE:VALUE      TYPE a scalar (u8, be16, ..., le64)
 *     VALUE: an integer (0x2a, 42), or &REGION[+OFF], the address of byte
 *     OFF of REGION (be64 or le64 only: a pointer as the program stores it)
 *     --set REGION[+OFF]=hex:BYTES       raw bytes
 *
 * Owns: parsing those specifications (from the command line, or a set
 * file's lines, whose errors carry a position) and applying them to images
 * (struct interp_region: name, NIC-visible address, bytes, size).
 * Must not: know whether the images belong to a software NIC or to the
 * reference interpreter.
 */
#ifndef PRISMC_RUN_IMAGE_H
#define PRISMC_RUN_IMAGE_H

#include <stddef.h>

#include "compiler/diag.h"
#include "compiler/interp.h"

/* What the functions below return besides 0 and -1 (a message in @err):
 * a region name the program does not declare (the message lists those it
 * does), a usage error rather than an unreadable file. */
#define RUN_IMAGE_E_NAME (-2)
/* A region file that does not exist (prismc's exit code for a missing
 * input file is the usage code, as for the program file). */
#define RUN_IMAGE_E_MISSING (-3)

/* Apply one `--set` specification.  0, or -1 with @err filled. */
int run_image_set(const struct interp_env *env, const char *spec, char *err, size_t errlen);
/*
 * Apply the specifications of a set file's text (@len bytes), one a line;
 * '#' starts a comment.  0, or -1 with an error in @d at the line and
 * column of the part that is wrong (the region name, the offset, the type
 * or the value), which diag_render shows with the line and a caret when @d
 * was given the text.
 */
int run_image_set_text(const struct interp_env *env, const char *text, size_t len,
                       struct diag_ctx *d);
/* Fill region @name from a file ("-": standard input; not larger than the
 * region; the rest stays as it is). */
int run_image_load(const struct interp_env *env, const char *name, const char *path, char *err,
                   size_t errlen);
/* Write region @name's bytes to a file. */
int run_image_save(const struct interp_env *env, const char *name, const char *path, char *err,
                   size_t errlen);

#endif /* PRISMC_RUN_IMAGE_H */
