// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl stats: module-wide counters.
 */
#include <stdio.h>

#include "attrs.h"
#include "cmd.h"
#include "output.h"

static int stats_print(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	(void)nlh;
	(void)arg;
	if (!tb[KRDMA_A_STATS]) {
		fprintf(stderr, "krdmactl: warning: no counters in the reply\n");
		return 0;
	}
	/* One object of counters (JSON), one "name value" per line (text). */
	open_json_object(NULL);
	print_stats(tb[KRDMA_A_STATS], NULL, true);
	close_json_object();
	return 0;
}

static int stats_show(int argc, char **argv)
{
	struct nl_msg *msg;
	struct knl_ctx *c;
	int rc;

	msg = cmd_begin_req(argc, argv, KRDMA_CMD_STATS_GET, &c, &rc);
	if (!msg)
		return rc;
	return reply_run(c, msg, stats_print, NULL);
}

static int stats_reset(int argc, char **argv)
{
	struct nl_msg *msg;
	struct knl_ctx *c;
	int rc;

	msg = cmd_begin_req(argc, argv, KRDMA_CMD_STATS_RESET, &c, &rc);
	if (!msg)
		return rc;
	return knl_call(c, msg, NULL, NULL, cmd_what()) ? 1 : 0;
}

static const struct cmd stats_cmds[] = {
	{ "show", stats_show, "show the module-wide counters" },
	{ "reset", stats_reset, "set the module-wide counters to zero" },
};

const struct object stats_obj = {
	.name = "stats",
	.desc = "module-wide counters",
	.cmds = stats_cmds,
	.ncmds = ARRAY_SIZE(stats_cmds),
	.dflt = "show",
	.notes = "Per-session counters: krdmactl -s session show.\n",
};
