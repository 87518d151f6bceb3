/* SPDX-License-Identifier: MIT */
/*
 * prism-memccat - memccat (libmemcached-tools) with offloaded gets.
 *
 *   prism-memccat --servers=H:P [--offload[=H:P]] [-F|--flags] [-v|--verbose]
 *                 [--stats] key...
 *
 * Prints exactly what memccat prints for the same keys (value and newline;
 * with --flags the flags line first; with --verbose "key: / flags: / value:"
 * lines, and "Could not find key 'K': NOT FOUND" on stderr for a missing
 * key); exit status 1 when a key is missing, as memccat.  With --offload,
 * gets go through prism_mc_get() (the NIC first, memcached_get() as the
 * fallback); --stats prints the offload counters on stderr.
 * MEMCACHED_SERVERS is used when --servers is absent, as memccat does.
 *
 * Owns: the command line and the output format; the gets are the library's.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prism_memcached.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: prism-memccat --servers=H:P [--offload[=H:P]] [-F|--flags] "
	           "[-v|--verbose] [--stats] key...\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"servers", required_argument, NULL, 's'},
	    {"offload", optional_argument, NULL, 'o'},
	    {"flags", no_argument, NULL, 'F'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"stats", no_argument, NULL, 'S'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *servers = getenv("MEMCACHED_SERVERS"), *offload_addr = NULL;
	bool offload = false, show_flags = false, verbose = false, stats = false;
	struct prism_mc *pm = NULL;
	memcached_st *memc;
	memcached_server_st *list;
	memcached_return_t rc;
	int c, status = 0;

	while ((c = getopt_long(argc, argv, "s:Fvh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			servers = optarg;
			break;
		case 'o':
			offload = true;
			offload_addr = optarg;
			break;
		case 'F':
			show_flags = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'S':
			stats = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!servers || optind == argc) {
		usage(stderr);
		return 2;
	}
	memc = memcached_create(NULL);
	list = memcached_servers_parse(servers);
	if (!memc || !list || memcached_server_push(memc, list) != MEMCACHED_SUCCESS) {
		fprintf(stderr, "prism-memccat: bad --servers '%s'\n", servers);
		return 2;
	}
	memcached_server_list_free(list);
	if (offload && !(pm = prism_mc_attach(memc, offload_addr, &rc))) {
		fprintf(stderr, "prism-memccat: no offload at %s: %s\n", servers,
		        memcached_strerror(memc, rc));
		memcached_free(memc);
		return 3;
	}
	for (int i = optind; i < argc; i++) {
		size_t len = 0;
		uint32_t flags = 0;
		const char *key = argv[i];
		char *v = pm ? prism_mc_get(pm, key, strlen(key), &len, &flags, &rc)
		             : memcached_get(memc, key, strlen(key), &len, &flags, &rc);

		if (!v && rc != MEMCACHED_SUCCESS) {
			if (verbose)
				fprintf(stderr, "Could not find key '%s': %s\n", key,
				        memcached_strerror(memc, rc));
			status = 1;
			continue;
		}
		if (verbose) {
			printf("key: %s\n", key);
			if (show_flags)
				printf("flags: %u\n", flags);
			printf("value: ");
		} else if (show_flags) {
			printf("%u\n", flags);
		}
		fwrite(v ? v : "", 1, len, stdout);
		putchar('\n');
		free(v);
	}
	if (pm && stats) {
		struct prism_mc_stats st;

		prism_mc_get_stats(pm, &st);
		fprintf(stderr,
		        "prism-memccat: %llu gets: %llu offloaded, %llu fell back (%llu not "
		        "offloaded, %llu rejected, %llu past the lease, %llu expired)\n",
		        (unsigned long long)st.gets, (unsigned long long)st.offloaded,
		        (unsigned long long)st.fallbacks, (unsigned long long)st.misses,
		        (unsigned long long)st.rejected, (unsigned long long)st.lease_rejects,
		        (unsigned long long)st.expired);
	}
	prism_mc_detach(pm);
	memcached_free(memc);
	return status;
}
