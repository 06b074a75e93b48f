// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma-hostile: a userspace rdma_cm peer that speaks krdma's wire
 * protocol (kmod/proto.h, Documentation/protocol.rst) badly, one scenario
 * per run, and reports what the krdma module did about it.
 *
 *   krdma-hostile [-t SECONDS] SCENARIO ADDR PORT   client: against a krdma listener
 *   krdma-hostile [-t SECONDS] -l PORT SCENARIO     server: a krdma session connects
 *   krdma-hostile list                              every scenario, one a line
 *
 * Output: one line per outcome,
 *   HOSTILE scenario=NAME outcome=OUTCOME [key=value ...] detail=TEXT
 * where OUTCOME is one of rejected, refused, closed, remote_error (the
 * kernel NAKed the access: remote access, request or operation error),
 * flow_controlled, ok (the safe ones) or accepted, ignored, hang,
 * unexpected, over_offer, other_error (a completion error that is no
 * refusal: retry exceeded, flush), error (the unsafe or broken ones). The
 * exit status is 0 only if what was observed is the safe behaviour for
 * the scenario.
 *
 * In server mode the run may wait for SIGUSR1 (ping_stale: "the kernel's
 * test is reported done, its regions are invalidated: try them now";
 * late_iter_ack: "the kernel's test is done: say something late"). The
 * hold scenarios keep their session open, after a "step=held" line, until
 * SIGUSR1 (the script holds several at once against the kernel's caps).
 *
 * Each scenario is an entry of client.c's or server.c's table: its name,
 * role, description (what `list` prints) and the function that plays it.
 * wire.c packs the structs of kmod/proto.h, verbs.c is the rdma plumbing,
 * report.c the outcome lines; this file finds the scenario and runs it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"

struct peer P;
volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: krdma-hostile [-t SECONDS] [-s SRCPORT] SCENARIO ADDR PORT    (client)\n"
		"       krdma-hostile [-t SECONDS] -l PORT SCENARIO      (server)\n"
		"       krdma-hostile list\n");
	exit(2);
}

/* Both tables, clients first: the order of `list`. */
static const struct {
	const struct scenario *sc;
	const size_t *n;
} tables[] = {
	{ client_scenarios, &n_client_scenarios },
	{ server_scenarios, &n_server_scenarios },
};

static const struct scenario *find_scenario(const char *name)
{
	for (size_t t = 0; t < ARRAY_SIZE(tables); t++)
		for (size_t i = 0; i < *tables[t].n; i++)
			if (!strcmp(tables[t].sc[i].name, name))
				return &tables[t].sc[i];
	return NULL;
}

static void list_scenarios(void)
{
	for (size_t t = 0; t < ARRAY_SIZE(tables); t++)
		for (size_t i = 0; i < *tables[t].n; i++) {
			const struct scenario *sc = &tables[t].sc[i];

			printf("%s %s %s\n", sc->name,
			       sc->role == SERVER ? "server" : "client", sc->what);
		}
}

int main(int argc, char **argv)
{
	const char *lport = NULL;
	const struct scenario *sc;
	struct target t;
	int opt;

	P.tmo_ms = 20000;
	while ((opt = getopt(argc, argv, "l:s:t:h")) != -1) {
		switch (opt) {
		case 's':
			P.sport = (uint16_t)atoi(optarg);
			if (!P.sport)
				usage();
			break;
		case 'l':
			lport = optarg;
			break;
		case 't':
			P.tmo_ms = atoi(optarg) * 1000;
			if (P.tmo_ms <= 0)
				usage();
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 1 && !strcmp(argv[0], "list")) {
		list_scenarios();
		return 0;
	}
	if (argc < 1)
		usage();
	sc = find_scenario(argv[0]);
	if (!sc) {
		fprintf(stderr, "krdma-hostile: unknown scenario %s (see: krdma-hostile list)\n",
			argv[0]);
		return 2;
	}
	if ((sc->role == SERVER) != (lport != NULL)) {
		fprintf(stderr, "krdma-hostile: %s is a %s scenario\n", sc->name,
			sc->role == SERVER ? "server (-l PORT)" : "client (ADDR PORT)");
		return 2;
	}
	if (!lport && argc != 3)
		usage();
	P.scen = sc->name;
	P.server = sc->role == SERVER;
	signal(SIGUSR1, on_usr1);
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (lport)
		t = (struct target){ NULL, lport };
	else
		t = (struct target){ argv[1], argv[2] };
	sc->run(&t);
	/* Process exit tears the connection down (the kernel sees a DREQ). */
	return P.outcomes && !P.fails ? 0 : 1;
}
