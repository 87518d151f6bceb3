/* SPDX-License-Identifier: MIT */
/*
 * tests/difftest/difftest.c - the differential test as a tool: random
 * programs compiled for both firmware profiles and run on the software NIC,
 * compared with the reference interpreter; differences reduced and kept.
 *
 *     difftest [--programs N] [--seed S] [--with C]... [--without C]...
 *              [--firmware relaxed|strict|both] [--reduce] [--save DIR]
 *              [--show N] [--list]
 *     difftest [--firmware P] FILE.prism...
 *
 * With files, runs each (a regression case, or a hand-written program with
 * the same `//! args:` header and an optional .set file of images) on both
 * engines instead and prints what each profile computes.
 *
 * `make fuzz-diff` runs it long.  Exit status: 0 no difference, 1
 * differences, ill-typed programs or a case --save could not write, 2
 * usage (a --save DIR that is not a writable directory among them: checked
 * before the first program, never created).
 *
 * Owns: the command line.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/difftest/dt_campaign.h"
#include "tests/difftest/dt_run.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: difftest [--programs N] [--seed S] [--with C]... [--without C]...\n"
	           "                [--firmware relaxed|strict|both] [--reduce] [--save DIR]\n"
	           "                [--show N] [--list] [--print]\n"
	           "       difftest [--firmware relaxed|strict|both] FILE.prism...\n\n"
	           "  --programs N   compared programs to reach (default 2000)\n"
	           "  --seed S       first program's seed (default 1)\n"
	           "  --with C       also generate construct C (an id from --list, or a known\n"
	           "                 bug W1..W8, N1, N2: its constructs); --with all\n"
	           "  --without C    never generate C\n"
	           "  --firmware P   profiles to compile for (default both)\n"
	           "  --reduce       reduce each difference to a small program\n"
	           "  --save DIR     write each (reduced) difference as a regression case into\n"
	           "                 DIR (an existing, writable directory)\n"
	           "  --show N       print the first N differing programs (default 5)\n"
	           "  --print        print the program of --seed (source, then its arguments\n"
	           "                 and --set lines as comments) and exit\n"
	           "  --list         list the constructs and exit\n"
	           "  FILE.prism     run these programs (case header: //! args: name=value...;\n"
	           "                 images in FILE.set, optional) on both engines instead\n");
}

static int print_program(uint64_t seed, dt_mask allowed)
{
	struct dt_prog *p = dt_gen(seed, allowed);
	char *src = p ? dt_prog_source(p) : NULL;
	const char *const *sets;
	const struct dt_arg *args;
	size_t nsets, nargs;

	if (!src) {
		dt_prog_free(p);
		return 1;
	}
	nsets = dt_prog_sets(p, &sets);
	nargs = dt_prog_args(p, &args);
	fputs(src, stdout);
	printf("//! args:");
	for (size_t i = 0; i < nargs; i++)
		printf(" %s=%llu", args[i].name, (unsigned long long)args[i].value);
	printf("\n");
	for (size_t i = 0; i < nsets; i++)
		printf("//! set %s\n", sets[i]);
	free(src);
	dt_prog_free(p);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"programs", required_argument, NULL, 'n'}, {"seed", required_argument, NULL, 's'},
	    {"with", required_argument, NULL, 'w'},     {"without", required_argument, NULL, 'x'},
	    {"firmware", required_argument, NULL, 'f'}, {"reduce", no_argument, NULL, 'r'},
	    {"save", required_argument, NULL, 'o'},     {"show", required_argument, NULL, 'S'},
	    {"list", no_argument, NULL, 'l'},           {"help", no_argument, NULL, 'h'},
	    {"print", no_argument, NULL, 'p'},          {NULL, 0, NULL, 0},
	};
	struct dt_campaign_opts o = {.seed = 1,
	                             .programs = 2000,
	                             .allowed = dt_default_mask(),
	                             .relaxed = true,
	                             .strict = true,
	                             .show = 5,
	                             .progress = 10000,
	                             .out = stdout};
	struct dt_tally t;
	dt_mask bits;
	bool print = false;
	int ch, rc;

	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'n':
			o.programs = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 's':
			o.seed = strtoull(optarg, NULL, 0);
			break;
		case 'w':
		case 'x':
			if (!strcmp(optarg, "all"))
				bits = ~(dt_mask)0;
			else if (!dt_parse_construct(optarg, &bits)) {
				fprintf(stderr, "difftest: unknown construct '%s' (see --list)\n",
				        optarg);
				return 2;
			}
			o.allowed = ch == 'w' ? o.allowed | bits : o.allowed & ~bits;
			break;
		case 'f':
			o.relaxed = strcmp(optarg, "strict") != 0;
			o.strict = strcmp(optarg, "relaxed") != 0;
			break;
		case 'r':
			o.reduce = true;
			break;
		case 'o':
			o.save_dir = optarg;
			break;
		case 'S':
			o.show = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'l':
			for (int c = 0; c < DT_NCONSTRUCTS; c++)
				printf("%-14s %-4s %s\n", dt_constructs[c].id,
				       dt_constructs[c].known ? dt_constructs[c].known : "",
				       dt_constructs[c].name);
			return 0;
		case 'p':
			print = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		rc = 0;
		for (int i = optind; i < argc; i++)
			rc |= dt_case_try(argv[i], o.relaxed, o.strict, stdout);
		return rc ? 1 : 0;
	}
	if (!o.programs) {
		usage(stderr);
		return 2;
	}
	if (print)
		return print_program(o.seed, o.allowed);
	if (o.save_dir && (rc = dt_save_dir_check(o.save_dir))) {
		fprintf(stderr, "difftest: --save %s: %s (create it first)\n", o.save_dir,
		        strerror(-rc));
		return 2;
	}
	o.max_generated = o.programs * 20;
	if ((rc = dt_campaign(&o, &t))) {
		fprintf(stderr, "difftest: %s\n", strerror(-rc));
		return 1;
	}
	return t.diffs || t.bad || t.unsaved || t.compared < o.programs ? 1 : 0;
}
