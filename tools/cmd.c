// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl: object/command dispatch, help and shared command helpers.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "cmd.h"
#include "nl-gen.h"
#include "output.h"

static const struct object *cur_obj;
static const struct cmd *cur_cmd;

/* cmd_describe() in progress: where cmd_args() puts the table. */
static struct {
	bool on;
	struct arg_spec *specs;
	size_t max;
	int n;
} describing;

const struct object *const objects[] = {
	&dev_obj, &listener_obj, &session_obj, &test_obj, &stats_obj,
	&monitor_obj, &version_obj, &ping_obj, &compare_obj, &conform_obj,
};
const size_t nobjects = ARRAY_SIZE(objects);

const char *cmd_what(void)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "%s%s%s", cur_obj ? cur_obj->name : "",
		 cur_cmd ? " " : "", cur_cmd ? cur_cmd->name : "");
	return buf;
}

void usage_hint(void)
{
	if (cur_obj)
		fprintf(stderr, "Try \"krdmactl %s help\".\n", cmd_what());
	else
		fprintf(stderr, "Try \"krdmactl help\".\n");
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "krdmactl: %s: ", cmd_what());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	usage_hint();
	return EXIT_USAGE;
}

int cmd_describe(const struct object *obj, const struct cmd *c,
		 struct arg_spec *specs, size_t max)
{
	const struct object *obj0 = cur_obj;
	const struct cmd *cmd0 = cur_cmd;
	bool parse_only0 = knl_parse_only;
	char *argv[] = { NULL };

	cur_obj = obj;
	cur_cmd = c;
	describing.on = true;
	describing.specs = specs;
	describing.max = max;
	describing.n = -1;
	/* Should a command reach the kernel before cmd_args() after all, it
	 * stops there, as with --parse-only. */
	knl_parse_only = true;
	(c ? c->fn : obj->fn)(0, argv);
	knl_take_parse_only_stopped();
	knl_parse_only = parse_only0;
	describing.on = false;
	cur_obj = obj0;
	cur_cmd = cmd0;
	return describing.n > (int)max ? (int)max : describing.n;
}

/* A keyword given without itself: "ID" for "id", not "[ id ] ID". */
static bool meta_is_kw(const struct arg_spec *sp)
{
	const char *m = sp->meta ? sp->meta : "";
	size_t i;

	for (i = 0; sp->kw[i]; i++)
		if (m[i] != sp->kw[i] - 'a' + 'A' && m[i] != sp->kw[i])
			return false;
	return !(m[i] >= 'A' && m[i] <= 'Z');
}

bool spec_shows_kw(const struct arg_spec *sp)
{
	return !(sp->flags & ARG_HIDDEN) &&
	       !((sp->flags & ARG_POSITIONAL) && meta_is_kw(sp));
}

/* One alternative: "kw META", "META" (positional), "kw" (a flag). */
static void spec_words(char *buf, size_t len, const struct arg_spec *sp,
		       bool in_group)
{
	const char *m = sp->meta ? sp->meta : "VALUE";

	if (sp->type == ARG_FLAG)
		snprintf(buf, len, "%s", sp->kw);
	else if ((sp->flags & ARG_POSITIONAL) && (in_group || meta_is_kw(sp)))
		snprintf(buf, len, "%s", m);
	else if (sp->flags & ARG_POSITIONAL)
		snprintf(buf, len, "[ %s ] %s", sp->kw, m);
	else
		snprintf(buf, len, "%s %s", sp->kw, m);
}

/*
 * Element @i of a synopsis: a required keyword as it is, an optional one
 * in "[ ]", a group where its first member is: "{ a A | b B }" if one
 * is required, else "[ a A | b B ]"; a keyword that may repeat "[ ]...".
 * Empty for the later members of a group, and for hidden keywords.
 */
static void synopsis_elem(char *buf, size_t len, const struct arg_spec *specs,
			  size_t n, size_t i)
{
	const struct arg_spec *sp = &specs[i];
	bool req = false;
	char w[128];
	size_t j, used = 0, shown = 0;

	buf[0] = '\0';
	if (sp->flags & ARG_HIDDEN)
		return;
	for (j = 0; sp->group && j < n; j++)
		if (specs[j].group == sp->group && !(specs[j].flags & ARG_HIDDEN))
			shown++;
	/* A group of one shown (the others hidden): as a keyword alone. */
	if (shown < 2) {
		spec_words(w, sizeof(w), sp, false);
		snprintf(buf, len, (sp->flags & ARG_REQUIRED) ? "%s" :
			 sp->type == ARG_EXPECT ? "[ %s ]..." : "[ %s ]", w);
		return;
	}
	for (j = 0; j < i; j++)
		if (specs[j].group == sp->group && !(specs[j].flags & ARG_HIDDEN))
			return;
	for (j = i; j < n; j++)
		if (specs[j].group == sp->group)
			req |= specs[j].flags & ARG_REQUIRED;
	for (j = i; j < n && used < len; j++) {
		if (specs[j].group != sp->group || (specs[j].flags & ARG_HIDDEN))
			continue;
		spec_words(w, sizeof(w), &specs[j], true);
		used += (size_t)snprintf(buf + used, len - used, "%s %s",
					 used ? " |" : req ? "{" : "[", w);
	}
	if (used < len)
		snprintf(buf + used, len - used, " %s", req ? "}" : "]");
}

/* Lines end before this column; an element never breaks. */
#define SYNOPSIS_WIDTH	80

void cmd_synopsis(FILE *f, const char *lead, const struct object *obj,
		  const struct cmd *c)
{
	struct arg_spec specs[DESCRIBE_MAX];
	char elem[256];
	int n = cmd_describe(obj, c, specs, ARRAY_SIZE(specs));
	int col, indent;
	size_t i;

	col = fprintf(f, "%s krdmactl %s%s%s", lead, obj->name, c ? " " : "",
		      c ? c->name : "");
	indent = col + 1;
	for (i = 0; n > 0 && i < (size_t)n; i++) {
		synopsis_elem(elem, sizeof(elem), specs, (size_t)n, i);
		if (!elem[0])
			continue;
		if (col + 1 + (int)strlen(elem) >= SYNOPSIS_WIDTH &&
		    col > indent)
			col = fprintf(f, "\n%*s", indent - 1, "") - 1;
		col += fprintf(f, " %s", elem);
	}
	fprintf(f, "\n");
}

/* The value lists of the enum keywords @obj takes, from their tables. */
static void obj_value_lists(FILE *f, const struct object *obj)
{
	static const struct {
		enum arg_type type;
		const char *meta;
		const char *const *names;
		size_t n;
	} lists[] = {
		{ ARG_OP, "OP", krdma_op_strmap,
		  ARRAY_SIZE(krdma_op_strmap) },
		{ ARG_MODE, "MODE", krdma_test_mode_strmap,
		  ARRAY_SIZE(krdma_test_mode_strmap) },
	};
	struct arg_spec specs[DESCRIBE_MAX];
	bool used, first;
	size_t i, j, k;
	int n, col;

	for (k = 0; k < ARRAY_SIZE(lists); k++) {
		used = false;
		for (i = 0; i < (obj->fn ? 1 : obj->ncmds) && !used; i++) {
			n = cmd_describe(obj, obj->fn ? NULL : &obj->cmds[i],
					 specs, ARRAY_SIZE(specs));
			for (j = 0; n > 0 && j < (size_t)n; j++)
				used |= specs[j].type == lists[k].type;
		}
		if (!used)
			continue;
		col = fprintf(f, "%s := {", lists[k].meta);
		first = true;
		for (j = 0; j < lists[k].n; j++) {
			/* An enum's tables leave its unused values NULL. */
			if (!lists[k].names[j])
				continue;
			if (!first)
				col += fprintf(f, " |");
			if (col + 1 + (int)strlen(lists[k].names[j]) >= SYNOPSIS_WIDTH)
				col = fprintf(f, "\n%*s", (int)strlen(lists[k].meta) + 4, "") - 1;
			col += fprintf(f, " %s", lists[k].names[j]);
			first = false;
		}
		fprintf(f, " }\n");
	}
}

void obj_usage(FILE *f, const struct object *obj)
{
	size_t i;

	if (obj->fn) {
		cmd_synopsis(f, "Usage:", obj, NULL);
		fprintf(f, "       krdmactl %s help\n", obj->name);
	} else {
		for (i = 0; i < obj->ncmds; i++)
			cmd_synopsis(f, i ? "      " : "Usage:", obj,
				     &obj->cmds[i]);
		fprintf(f, "       krdmactl %s help\n", obj->name);
		fprintf(f, "\n");
		for (i = 0; i < obj->ncmds; i++)
			fprintf(f, "  %-8s %s\n", obj->cmds[i].name,
				obj->cmds[i].desc);
		if (obj->dflt)
			fprintf(f, "Without a command: %s.\n", obj->dflt);
	}
	fprintf(f, "\n");
	obj_value_lists(f, obj);
	if (obj->notes)
		fprintf(f, "%s", obj->notes);
}

static void cmd_usage(FILE *f)
{
	if (cur_cmd) {
		cmd_synopsis(f, "Usage:", cur_obj, cur_cmd);
		fprintf(f, "\n  %s\n\n", cur_cmd->desc);
		obj_value_lists(f, cur_obj);
		if (cur_obj->notes)
			fprintf(f, "%s", cur_obj->notes);
	} else if (cur_obj) {
		obj_usage(f, cur_obj);
	}
}

/*
 * --parse-only: a command that got as far as the kernel (or its files)
 * parsed; it failed there only because it was stopped. A usage error
 * found on the way stays one.
 */
static int parsed_status(int rc)
{
	if (knl_take_parse_only_stopped() && rc != EXIT_USAGE)
		return EXIT_OK;
	return rc;
}

int obj_dispatch(const struct object *obj, int argc, char **argv)
{
	const char *names[32];
	size_t i, n = obj->ncmds;
	int k, rc;

	cur_obj = obj;
	cur_cmd = NULL;
	if (obj->fn) {
		if (argc > 0 && !strcmp(argv[0], "help")) {
			obj_usage(out_file(), obj);
			return 0;
		}
		rc = obj->fn(argc, argv);
		if (knl_take_value_refused() && rc)
			usage_hint();
		return parsed_status(rc);
	}
	if (argc == 0) {
		if (!obj->dflt) {
			obj_usage(stderr, obj);
			return EXIT_USAGE;
		}
		k = match_table(obj->dflt, obj->cmds, n, sizeof(*obj->cmds));
	} else {
		if (n >= ARRAY_SIZE(names))
			n = ARRAY_SIZE(names) - 1;
		for (i = 0; i < n; i++)
			names[i] = obj->cmds[i].name;
		names[n] = "help";
		k = match_word(argv[0], names, n + 1);
		if (k == (int)n) {
			obj_usage(out_file(), obj);
			return 0;
		}
		if (k < 0) {
			fprintf(stderr, "krdmactl: %s %s command '%s' (valid commands:",
				k == MATCH_AMBIGUOUS ? "ambiguous" : "unknown",
				obj->name, argv[0]);
			for (i = 0; i <= n; i++)
				fprintf(stderr, "%s %s", i ? "," : "",
					names[i]);
			fprintf(stderr, ")\n");
			usage_hint();
			return EXIT_USAGE;
		}
		argc--;
		argv++;
	}
	cur_cmd = &obj->cmds[k];
	rc = cur_cmd->fn(argc, argv);
	if (knl_take_value_refused() && rc)
		usage_hint();
	return parsed_status(rc);
}

int help_dispatch(int argc, char **argv)
{
	static char help[] = "help";
	const char *names[32];
	size_t i, n;
	int k;

	cur_obj = NULL;
	cur_cmd = NULL;
	for (n = 0; n < nobjects && n < ARRAY_SIZE(names); n++)
		names[n] = objects[n]->name;
	k = match_word(argv[0], names, n);
	if (k < 0) {
		fprintf(stderr, "krdmactl: help: %s object '%s' (valid objects:",
			k == MATCH_AMBIGUOUS ? "ambiguous" : "unknown", argv[0]);
		for (i = 0; i < n; i++)
			fprintf(stderr, "%s %s", i ? "," : "", names[i]);
		fprintf(stderr, ")\n");
		usage_hint();
		return EXIT_USAGE;
	}
	/* The words after OBJECT move up one, "help" last. */
	for (i = 1; i < (size_t)argc; i++)
		argv[i - 1] = argv[i];
	argv[argc - 1] = help;
	return obj_dispatch(objects[k], argc, argv);
}

int cmd_args(const struct arg_spec *specs, size_t n, int argc, char **argv)
{
	char err[512];
	int rc;

	if (describing.on) {
		/* cmd_describe(): the table, and the command ends here. */
		describing.n = (int)n;
		if (n > describing.max)
			n = describing.max;
		if (n)
			memcpy(describing.specs, specs, n * sizeof(*specs));
		while (n--)
			describing.specs[n].val = NULL;
		return ARGS_HELP;
	}
	rc = args_parse(specs, n, argc, argv, err, sizeof(err));
	if (rc == ARGS_HELP) {
		cmd_usage(out_file());
		return ARGS_HELP;
	}
	if (rc) {
		fprintf(stderr, "krdmactl: %s: %s\n", cmd_what(), err);
		usage_hint();
		return -1;
	}
	return 0;
}

struct knl_ctx *cmd_begin(const struct arg_spec *specs, size_t n, int argc,
			  char **argv, int *exit_code)
{
	int rc;

	*exit_code = EXIT_ERR;
	rc = cmd_args(specs, n, argc, argv);
	if (rc) {
		*exit_code = rc == ARGS_HELP ? EXIT_OK : EXIT_USAGE;
		return NULL;
	}
	return knl_get();
}

int cmd_port(const struct arg_val *addr, const struct arg_val *port)
{
	bool in_addr = addr->set && addr->has_port;

	if (in_addr && port->set && addr->port != port->num) {
		usage_error("conflicting ports in 'addr' and 'port'");
		return -1;
	}
	if (port->set)
		return (int)port->num;
	return in_addr ? addr->port : KRDMACTL_PORT_DFLT;
}

int cmd_ack_timeout(const struct arg_val *v)
{
	if (v->set && v->num && v->num < KRDMA_ACK_TIMEOUT_MIN) {
		usage_error("ack_timeout '%llu' out of range: must be %u..%u, or 0 for the module's",
			    (unsigned long long)v->num, KRDMA_ACK_TIMEOUT_MIN,
			    KRDMA_ACK_TIMEOUT_MAX);
		return -1;
	}
	return 0;
}

int msg_error(void)
{
	fprintf(stderr, "krdmactl: %s: cannot build the request: out of memory\n",
		cmd_what());
	return 1;
}

struct nl_msg *cmd_begin_req(int argc, char **argv, uint8_t cmd,
			     struct knl_ctx **c, int *exit_code)
{
	struct nl_msg *msg;

	*c = cmd_begin(NULL, 0, argc, argv, exit_code);
	if (!*c)
		return NULL;
	msg = knl_req(*c, cmd, 0);
	if (!msg)
		*exit_code = msg_error();
	return msg;
}

static int run_print(struct knl_ctx *c, struct nl_msg *msg, knl_msg_fn fn,
		     void *arg, bool array)
{
	int rc;

	if (array)
		open_json_array(NULL);
	rc = knl_call(c, msg, fn, arg, cmd_what());
	if (rc) {
		out_reset();
		return 1;
	}
	if (array)
		close_json_array();
	if (out_flush()) {
		fprintf(stderr, "krdmactl: error writing output\n");
		return 1;
	}
	return 0;
}

int show_run(struct knl_ctx *c, struct nl_msg *msg, knl_msg_fn fn, void *arg)
{
	return run_print(c, msg, fn, arg, true);
}

int reply_run(struct knl_ctx *c, struct nl_msg *msg, knl_msg_fn fn, void *arg)
{
	return run_print(c, msg, fn, arg, false);
}

int put_ref(struct nl_msg *msg, int id_attr, const struct arg_val *id,
	    const struct arg_val *name)
{
	if (id && id->set) {
		if (id->str)
			return nla_put_string(msg, KRDMA_A_NAME, id->str);
		return nla_put_u32(msg, id_attr, (uint32_t)id->num);
	}
	if (name && name->set)
		return nla_put_string(msg, KRDMA_A_NAME, name->str);
	return 0;
}

int cmd_del_ref(int argc, char **argv, uint8_t cmd, int id_attr)
{
	struct arg_val id, name;
	struct arg_spec specs[] = {
		{ "id", ARG_REF, ARG_POSITIONAL | ARG_REQUIRED, 1, 0, 0, &id,
		  "ID" },
		{ "name", ARG_STR, ARG_REQUIRED, 1, 0, KRDMA_NAME_MAX - 1,
		  &name, "NAME" },
	};
	struct nl_msg *msg;
	struct knl_ctx *c;
	int rc;

	c = cmd_begin(specs, ARRAY_SIZE(specs), argc, argv, &rc);
	if (!c)
		return rc;
	msg = knl_req(c, cmd, 0);
	if (!msg || put_ref(msg, id_attr, &id, &name))
		return msg_error();
	return knl_call(c, msg, NULL, NULL, cmd_what()) ? 1 : 0;
}

int cmd_show_key(int argc, char **argv, const struct arg_spec *key,
		 uint8_t cmd, int attr, knl_msg_fn fn)
{
	const struct arg_val *v = key->val;
	struct nl_msg *msg;
	struct knl_ctx *c;
	int rc;

	c = cmd_begin(key, 1, argc, argv, &rc);
	if (!c)
		return rc;
	msg = knl_req(c, cmd, v->set ? 0 : NLM_F_DUMP);
	if (!msg)
		return msg_error();
	if (v->set) {
		rc = key->type == ARG_STR ?
		     nla_put_string(msg, attr, v->str) :
		     nla_put_u32(msg, attr, (uint32_t)v->num);
		if (rc) {
			nlmsg_free(msg);
			return msg_error();
		}
	}
	return show_run(c, msg, fn, NULL);
}

int cmd_show_ref(int argc, char **argv, uint8_t cmd, int id_attr,
		 knl_msg_fn fn)
{
	struct arg_val id, name;
	struct arg_spec specs[] = {
		{ "id", ARG_REF, ARG_POSITIONAL, 1, 0, 0, &id, "ID" },
		{ "name", ARG_STR, 0, 1, 0, KRDMA_NAME_MAX - 1, &name, "NAME" },
	};
	struct nl_msg *msg;
	struct knl_ctx *c;
	bool one;
	int rc;

	c = cmd_begin(specs, ARRAY_SIZE(specs), argc, argv, &rc);
	if (!c)
		return rc;
	one = id.set || name.set;
	msg = knl_req(c, cmd, one ? 0 : NLM_F_DUMP);
	if (!msg || put_ref(msg, id_attr, &id, &name))
		return msg_error();
	return show_run(c, msg, fn, NULL);
}
