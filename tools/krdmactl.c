// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl: configure and exercise the krdma kernel module over Generic
 * Netlink.  main(), global options and the object table live here; each
 * object has its own file (dev.c, listener.c, session.c, test.c, stats.c,
 * monitor.c, version.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrs.h"
#include "cmd.h"
#include "output.h"
#include "resolve.h"

/* ---- main ---- */

static const struct object *const objects[] = {
	&dev_obj, &listener_obj, &session_obj, &test_obj, &stats_obj,
	&monitor_obj, &version_obj, &ping_obj, &compare_obj,
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"Usage: krdmactl [ OPTIONS ] OBJECT { COMMAND | help }\n"
		"       krdmactl help\n"
		"where  OBJECT := { dev | listener | session | test | stats | monitor | version }\n"
		"       OPTIONS := { -j | --json | -p | --pretty | -s | --stats | -M | --mib |\n"
		"                    -V | --version | -h | --help }\n"
		"\n");
	for (i = 0; i < ARRAY_SIZE(objects); i++)
		fprintf(f, "  %-9s %s\n", objects[i]->name, objects[i]->desc);
	fprintf(f,
		"\n"
		"  -j, --json     JSON output\n"
		"  -p, --pretty   pretty-print JSON (with -j)\n"
		"  -s, --stats    include counters (session show)\n"
		"  -M, --mib      bandwidth in MiB/s (2^20 bytes/s) as perftest, not MB/s\n"
		"  -V, --version  print krdmactl's version and exit\n"
		"  -h, --help     this help\n"
		"\n"
		"Objects, commands and keywords may be abbreviated to any unique prefix.\n"
		"\"krdmactl OBJECT help\" shows the commands of an object.\n");
}

static int dispatch(int argc, char **argv)
{
	const char *names[ARRAY_SIZE(objects) + 1];
	size_t i, n = ARRAY_SIZE(objects);
	int k;

	for (i = 0; i < n; i++)
		names[i] = objects[i]->name;
	names[n] = "help";
	k = match_word(argv[0], names, n + 1);
	if (k == (int)n) {
		usage(stdout);
		return 0;
	}
	if (k < 0) {
		fprintf(stderr, "krdmactl: %s object '%s' (valid objects:",
			k == MATCH_AMBIGUOUS ? "ambiguous" : "unknown", argv[0]);
		for (i = 0; i <= n; i++)
			fprintf(stderr, "%s %s", i ? "," : "", names[i]);
		fprintf(stderr, ")\n");
		usage_hint();
		return EXIT_USAGE;
	}
	return obj_dispatch(objects[k], argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "stats", no_argument, NULL, 's' },
		{ "mib", no_argument, NULL, 'M' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		/* Not in the help: for tests of what the documentation shows. */
		{ "parse-only", no_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, rc;

	parse_resolver = resolve_host;
	/* "+": options only before the object, like ip(8)/rdma(8). */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+jpsMVh", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			opts.json = true;
			break;
		case 'p':
			opts.pretty = true;
			break;
		case 's':
			opts.stats = true;
			break;
		case 'M':
			opts.mib = true;
			break;
		case 'V':
			printf("krdmactl %s (abi %d)\n", KRDMACTL_VERSION,
			       KRDMA_ABI_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		case 'P':
			/* Parse and check the command line, send nothing:
			 * exit 0 if it would run, 2 if not (nl.h). */
			knl_parse_only = true;
			parse_resolver = resolve_unchecked;
			break;
		default:
			if (optopt)
				fprintf(stderr, "krdmactl: invalid option '-%c'\n", optopt);
			else
				fprintf(stderr, "krdmactl: invalid option '%s'\n",
					argv[optind - 1]);
			usage_hint();
			return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		usage(stderr);
		return EXIT_USAGE;
	}
	out_init(stdout, opts.json, opts.pretty);
	rc = dispatch(argc, argv);
	if (out_flush() && !rc) {
		fprintf(stderr, "krdmactl: error writing output\n");
		rc = EXIT_ERR;
	}
	knl_put();
	return rc;
}
