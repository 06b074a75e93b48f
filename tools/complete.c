// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl __complete: bash completion, asked of the tables the parser
 * itself uses (cmd_describe()), so that a keyword added to a command is
 * completed everywhere without a word of tools/completion changing.
 */
#include <stdio.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "cmd.h"
#include "conform.h"
#include "nl-gen.h"

struct comp {
	FILE *out;
	const char *cur;	/* the word being completed */
	char last[64];		/* the last live name offered (dumps repeat) */
};

static void offer(struct comp *cp, const char *word)
{
	if (word && !strncmp(word, cp->cur, strlen(cp->cur)))
		fprintf(cp->out, "%s\n", word);
}

/* The names of a table whose rows start with one (as match_table()'s). */
static void offer_table(struct comp *cp, const void *table, size_t n,
			size_t stride)
{
	size_t i;

	for (i = 0; i < n; i++)
		offer(cp, *(const char *const *)((const char *)table +
						 i * stride));
}

static void offer_names(struct comp *cp, const char *const *names, size_t n)
{
	offer_table(cp, names, n, sizeof(*names));
}

/* The units a NUMBER typed so far may take: "10" -> "10ms", "10s", ... */
static void offer_units(struct comp *cp, const char *const *units, size_t n)
{
	size_t len = strspn(cp->cur, "0123456789.");
	char buf[64];
	size_t i;

	if (!len || len >= 32)
		return;
	for (i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "%.*s%s", (int)len, cp->cur,
			 units[i]);
		offer(cp, buf);
	}
}

static int live_name(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct comp *cp = arg;
	struct nlattr *nla = tb[KRDMA_A_NAME] ? tb[KRDMA_A_NAME] :
			     tb[KRDMA_A_DEV_NAME];

	(void)nlh;
	/* A device comes once per port. */
	if (!nla || !strcmp(cp->last, nla_get_string(nla)))
		return 0;
	snprintf(cp->last, sizeof(cp->last), "%s", nla_get_string(nla));
	offer(cp, cp->last);
	return 0;
}

/* What exists, asked of the module: nothing (and no word) without it. */
static void offer_live(struct comp *cp, uint8_t cmd)
{
	char err[256];
	struct knl_ctx *c = knl_try_open(KRDMA_GENL_NAME, err, sizeof(err));
	struct nl_msg *msg;

	if (!c)
		return;
	msg = knl_req(c, cmd, NLM_F_DUMP);
	if (msg)
		knl_exec(c, msg, live_name, cp);
	cp->last[0] = '\0';
}

static void offer_values(struct comp *cp, const struct object *obj,
			 const struct arg_spec *sp)
{
	static const char *const sizes[] = { "K", "M", "G" };
	static const char *const size_examples[] = {
		"1", "4K", "64K", "1M", "4M",
	};
	static const char *const counts[] = { "k", "M", "G" };
	static const char *const times[] = { "ms", "s", "m", "h" };
	static const char *const rates[] = {
		"MB/s", "GB/s", "MiB/s", "GiB/s", "Mb/s", "Gb/s", "pps",
		"kpps", "Mpps",
	};
	static const char *const pcts[] = { "%" };
	int m;

	switch (sp->type) {
	case ARG_OP:
		offer_names(cp, krdma_op_strmap, ARRAY_SIZE(krdma_op_strmap));
		return;
	case ARG_MODE:
		offer_names(cp, krdma_test_mode_strmap,
			    ARRAY_SIZE(krdma_test_mode_strmap));
		return;
	case ARG_SIZE:
	case ARG_SIZES:
		if (!cp->cur[0])
			offer_names(cp, size_examples, ARRAY_SIZE(size_examples));
		offer_units(cp, sizes, ARRAY_SIZE(sizes));
		return;
	case ARG_COUNT:
		offer_units(cp, counts, ARRAY_SIZE(counts));
		return;
	case ARG_DURATION:
		offer_units(cp, times, ARRAY_SIZE(times));
		return;
	case ARG_RATE:
		offer_units(cp, rates, ARRAY_SIZE(rates));
		return;
	case ARG_PERCENT:
		offer_units(cp, pcts, ARRAY_SIZE(pcts));
		return;
	case ARG_EXPECT:
		/* COND's METRIC, as parse_expect() knows them */
		for (m = 0; m < __EXPECT_METRIC_MAX; m++)
			offer(cp, expect_metric_name((enum expect_metric)m));
		return;
	case ARG_STR:
	case ARG_REF:
		break;
	default:
		return;
	}
	/* Names of what is there (a new object's name is ARG_NAME). */
	if (obj == &conform_obj && !strcmp(sp->kw, "case")) {
		offer_table(cp, conform_cases, conform_ncases,
			    sizeof(conform_cases[0]));
		offer(cp, "list");
	} else if (sp->meta && !strcmp(sp->meta, "FILE"))
		fprintf(cp->out, "@files\n");
	else if (!strcmp(sp->kw, "session") || obj == &session_obj)
		offer_live(cp, KRDMA_CMD_SESSION_GET);
	else if (obj == &listener_obj)
		offer_live(cp, KRDMA_CMD_LISTENER_GET);
	else if (obj == &dev_obj)
		offer_live(cp, KRDMA_CMD_DEV_GET);
}

/*
 * Whether ADDR[:PORT] @w names a port, as parse_endpoint() and
 * parse_host_endpoint() read it: [IPV6]:PORT, or a single colon.
 */
static bool addr_has_port(const char *w)
{
	const char *colon = strchr(w, ':');

	if (w[0] == '[')
		return strstr(w, "]:") != NULL;
	return colon && !strchr(colon + 1, ':');
}

/* Whether @sp may still be given after the words marked in @used. */
static bool spec_open(const struct arg_spec *specs, size_t n,
		      const bool *used, size_t i)
{
	size_t j;

	if (!spec_shows_kw(&specs[i]))
		return false;
	if (used[i])
		return specs[i].type == ARG_EXPECT;
	for (j = 0; specs[i].group && j < n; j++)
		if (used[j] && specs[j].group == specs[i].group)
			return false;
	return true;
}

/*
 * The arguments @words (all before the word being completed) of a
 * command whose table is @specs: the value of the keyword before, or
 * the keywords still open (and, first, the positional one's values);
 * no port after an ADDR:PORT.
 */
static void complete_args(struct comp *cp, const struct object *obj,
			  const struct arg_spec *specs, size_t n, int nwords,
			  char **words)
{
	bool used[DESCRIBE_MAX] = { false };
	const struct arg_spec *want = NULL;
	bool has_port = false;
	size_t i;
	int j, k;

	for (j = 0; j < nwords; j++) {
		k = match_table(words[j], specs, n, sizeof(*specs));
		if (k >= 0) {
			used[k] = true;
			if (specs[k].type == ARG_FLAG)
				continue;
			if (j + 1 == nwords)
				want = &specs[k];
			else if (specs[k].type == ARG_ADDR)
				has_port |= addr_has_port(words[j + 1]);
			j++;	/* its value */
			continue;
		}
		/* A value without its keyword: the positional one, first. */
		for (i = 0; j == 0 && i < n; i++)
			if (specs[i].flags & ARG_POSITIONAL) {
				used[i] = true;
				if (specs[i].type == ARG_ADDR)
					has_port |= addr_has_port(words[j]);
				break;
			}
	}
	if (want) {
		offer_values(cp, obj, want);
		return;
	}
	for (i = 0; i < n; i++)
		if (spec_open(specs, n, used, i) &&
		    !(has_port && specs[i].type == ARG_PORT))
			offer(cp, specs[i].kw);
	for (i = 0; nwords == 0 && i < n; i++)
		if ((specs[i].flags & ARG_POSITIONAL) &&
		    !(specs[i].flags & ARG_HIDDEN)) {
			offer_values(cp, obj, &specs[i]);
			break;
		}
}

int complete_run(int argc, char **argv, const char *const *opts,
		 size_t nopts, FILE *out)
{
	struct comp cp = { out, argc > 0 ? argv[argc - 1] : "", "" };
	const char *names[DESCRIBE_MAX];
	struct arg_spec specs[DESCRIBE_MAX];
	const struct object *obj;
	const struct cmd *c = NULL;
	int i = 0, k, n;
	size_t j;

	if (argc < 1)
		return 0;
	/* The options come before the object. */
	while (i < argc - 1 && argv[i][0] == '-')
		i++;
	if (i == argc - 1) {
		if (cp.cur[0] == '-') {
			offer_names(&cp, opts, nopts);
			return 0;
		}
		for (j = 0; j < nobjects; j++)
			offer(&cp, objects[j]->name);
		offer(&cp, "help");
		return 0;
	}
	/* "help OBJECT" */
	if (i == argc - 2 && !strcmp(argv[i], "help")) {
		for (j = 0; j < nobjects; j++)
			offer(&cp, objects[j]->name);
		return 0;
	}
	for (j = 0; j < nobjects && j < ARRAY_SIZE(names); j++)
		names[j] = objects[j]->name;
	k = match_word(argv[i++], names, j);
	if (k < 0)
		return 0;
	obj = objects[k];
	if (!obj->fn) {
		if (i == argc - 1) {
			for (j = 0; j < obj->ncmds; j++)
				offer(&cp, obj->cmds[j].name);
			offer(&cp, "help");
			return 0;
		}
		k = match_table(argv[i++], obj->cmds, obj->ncmds,
				sizeof(*obj->cmds));
		if (k < 0)
			return 0;
		c = &obj->cmds[k];
	}
	n = cmd_describe(obj, c, specs, ARRAY_SIZE(specs));
	if (n > 0)
		complete_args(&cp, obj, specs, (size_t)n, argc - 1 - i,
			      argv + i);
	knl_put();
	return 0;
}
