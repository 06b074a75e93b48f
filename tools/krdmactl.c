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


/*
 * The global options: getopt's table, the help and the completion are
 * made from this one.
 */
static const struct opt {
	const char *name;
	char letter;
	const char *desc;	/* NULL: not in the help nor completed */
} opt_table[] = {
	{ "json", 'j', "JSON output" },
	{ "pretty", 'p', "pretty-print JSON (with -j)" },
	{ "stats", 's', "include counters (session show)" },
	{ "mib", 'M', "bandwidth in MiB/s (2^20 bytes/s) as perftest, not MB/s" },
	{ "version", 'V', "print krdmactl's version and exit" },
	{ "help", 'h', "this help" },
	/* For tests of what the documentation shows. */
	{ "parse-only", 'P', NULL },
};

/* "  -j, --json  DESC" lines, or "-j | --json | ..." wrapped, of those shown. */
static void usage_options(FILE *f, bool list)
{
	char piece[32];
	size_t i;
	int col = 19;

	for (i = 0; i < ARRAY_SIZE(opt_table); i++) {
		const struct opt *o = &opt_table[i];

		if (!o->desc)
			continue;
		if (list) {
			fprintf(f, "  -%c, --%-9s %s\n", o->letter, o->name,
				o->desc);
			continue;
		}
		snprintf(piece, sizeof(piece), "-%c | --%s", o->letter, o->name);
		if (col > 19 && col + 3 + (int)strlen(piece) >= 78)
			col = fprintf(f, " |\n                    %s", piece) - 3;
		else
			col += fprintf(f, "%s%s", col > 19 ? " | " : "", piece);
	}
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"Usage: krdmactl [ OPTIONS ] OBJECT { COMMAND | help }\n"
		"       krdmactl help [ OBJECT ]\n"
		"where  OBJECT := {");
	for (i = 0; i < nobjects; i++)
		fprintf(f, "%s %s", i ? " |" : "", objects[i]->name);
	fprintf(f, " }\n       OPTIONS := { ");
	usage_options(f, false);
	fprintf(f, " }\n\n");
	for (i = 0; i < nobjects; i++)
		fprintf(f, "  %-9s %s\n", objects[i]->name, objects[i]->desc);
	fprintf(f, "\n");
	usage_options(f, true);
	fprintf(f,
		"\n"
		"Objects, commands and keywords may be abbreviated to any unique prefix.\n"
		"\"krdmactl OBJECT help\" (or \"krdmactl help OBJECT\") shows the commands of\n"
		"an object.\n");
}

static int dispatch(int argc, char **argv)
{
	const char *names[32];
	size_t i, n = nobjects;
	int k;

	for (i = 0; i < n && i < ARRAY_SIZE(names) - 1; i++)
		names[i] = objects[i]->name;
	n = i;
	names[n] = "help";
	k = match_word(argv[0], names, n + 1);
	if (k == (int)n) {
		/* "help OBJECT" is "OBJECT help". */
		if (argc > 1)
			return help_dispatch(argc - 1, argv + 1);
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

/* krdmactl __complete WORDS...: the options shown, for the completion. */
static int complete_main(int argc, char **argv)
{
	char shorts[ARRAY_SIZE(opt_table)][3], longs[ARRAY_SIZE(opt_table)][24];
	const char *words[2 * ARRAY_SIZE(opt_table)];
	size_t i, n = 0;

	for (i = 0; i < ARRAY_SIZE(opt_table); i++) {
		if (!opt_table[i].desc)
			continue;
		snprintf(shorts[i], sizeof(shorts[i]), "-%c",
			 opt_table[i].letter);
		snprintf(longs[i], sizeof(longs[i]), "--%s", opt_table[i].name);
		words[n++] = shorts[i];
		words[n++] = longs[i];
	}
	return complete_run(argc, argv, words, n, stdout);
}

int main(int argc, char **argv)
{
	struct option long_opts[ARRAY_SIZE(opt_table) + 1];
	char short_opts[2 * ARRAY_SIZE(opt_table) + 2] = "+";
	size_t i;
	int opt, rc;

	/* "+": options only before the object, like ip(8)/rdma(8). */
	memset(long_opts, 0, sizeof(long_opts));
	for (i = 0; i < ARRAY_SIZE(opt_table); i++) {
		long_opts[i].name = opt_table[i].name;
		long_opts[i].val = opt_table[i].letter;
		/* --parse-only has no short form. */
		if (opt_table[i].desc)
			short_opts[strlen(short_opts)] = opt_table[i].letter;
	}
	/* The completion asks the tables: before any option. */
	if (argc > 1 && !strcmp(argv[1], "__complete"))
		return complete_main(argc - 2, argv + 2);

	parse_resolver = resolve_host;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
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
