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
#include "output.h"

static const struct object *cur_obj;
static const struct cmd *cur_cmd;

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

static void cmd_line_usage(FILE *f, const char *lead,
			   const struct object *obj, const struct cmd *c)
{
	fprintf(f, "%s krdmactl %s %s%s%s\n", lead, obj->name, c->name,
		c->args[0] ? " " : "", c->args);
}

void obj_usage(FILE *f, const struct object *obj)
{
	size_t i;

	if (obj->fn) {
		fprintf(f, "Usage: krdmactl %s%s%s\n", obj->name,
			obj->fn_args[0] ? " " : "", obj->fn_args);
		fprintf(f, "       krdmactl %s help\n", obj->name);
	} else {
		for (i = 0; i < obj->ncmds; i++)
			cmd_line_usage(f, i ? "      " : "Usage:", obj,
				       &obj->cmds[i]);
		fprintf(f, "       krdmactl %s help\n", obj->name);
		fprintf(f, "\n");
		for (i = 0; i < obj->ncmds; i++)
			fprintf(f, "  %-8s %s\n", obj->cmds[i].name,
				obj->cmds[i].desc);
		if (obj->dflt)
			fprintf(f, "Without a command: %s.\n", obj->dflt);
	}
	if (obj->notes)
		fprintf(f, "\n%s", obj->notes);
}

static void cmd_usage(FILE *f)
{
	if (cur_cmd) {
		cmd_line_usage(f, "Usage:", cur_obj, cur_cmd);
		fprintf(f, "\n  %s\n", cur_cmd->desc);
		if (cur_obj->notes)
			fprintf(f, "\n%s", cur_obj->notes);
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

int cmd_args(const struct arg_spec *specs, size_t n, int argc, char **argv)
{
	char err[512];
	int rc;

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
