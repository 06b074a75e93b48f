// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl listener: passive endpoints accepting sessions.
 */
#include <stdio.h>

#include <netlink/genl/genl.h>

#include "attrs.h"
#include "cmd.h"
#include "output.h"
#include "records.h"

int listener_print(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	(void)nlh;
	(void)arg;
	open_json_object(NULL);
	/* listener-add's reply is listener-get's: one list in the spec. */
	print_attrs(tb, krdma_listener_get_rsp_attrs,
		    ARRAY_SIZE(krdma_listener_get_rsp_attrs));
	print_nl();
	close_json_object();
	return 0;
}

static int listener_add(int argc, char **argv)
{
	struct arg_val name, addr, port, ack;
	struct arg_spec specs[] = {
		{ "name", ARG_NAME, 0, 0, 0, 0, &name, "NAME" },
		{ "addr", ARG_ADDR, 0, 0, 0, 0, &addr, "ADDR" },
		{ "port", ARG_PORT, 0, 0, 0, 0, &port, "PORT" },
		{ "ack_timeout", ARG_U32, 0, 0, 0, KRDMA_ACK_TIMEOUT_MAX, &ack,
		  "N" },
	};
	struct nl_msg *msg;
	struct knl_ctx *c;
	int rc, p;

	rc = cmd_args(specs, ARRAY_SIZE(specs), argc, argv);
	if (rc)
		return rc == ARGS_HELP ? EXIT_OK : EXIT_USAGE;
	p = cmd_port(&addr, &port);
	if (p < 0 || cmd_ack_timeout(&ack))
		return EXIT_USAGE;
	c = knl_get();
	if (!c)
		return 1;
	msg = knl_req(c, KRDMA_CMD_LISTENER_ADD, 0);
	if (!msg)
		return msg_error();
	if ((name.set && nla_put_string(msg, KRDMA_A_NAME, name.str)) ||
	    put_endpoint(msg, KRDMA_A_LOCAL_ADDR, addr.set ? &addr.addr : NULL,
			 p) ||
	    (ack.set && nla_put_u8(msg, KRDMA_A_SESSION_ACK_TIMEOUT,
				   (uint8_t)ack.num)))
		return msg_error();
	/* The reply names the new listener: print it like "show" does. */
	return reply_run(c, msg, listener_print, NULL);
}

static int listener_del(int argc, char **argv)
{
	return cmd_del_ref(argc, argv, KRDMA_CMD_LISTENER_DEL, KRDMA_A_LISTENER_ID);
}

static int listener_show(int argc, char **argv)
{
	return cmd_show_ref(argc, argv, KRDMA_CMD_LISTENER_GET, KRDMA_A_LISTENER_ID,
			    listener_print);
}

static const struct cmd listener_cmds[] = {
	{ "add", listener_add,
	  "listen for sessions (on all addresses unless addr is given)" },
	{ "del", listener_del, "remove a listener" },
	{ "show", listener_show,
	  "list listeners, or show one" },
};

const struct object listener_obj = {
	.name = "listener",
	.desc = "passive endpoints that accept sessions",
	.cmds = listener_cmds,
	.ncmds = ARRAY_SIZE(listener_cmds),
	.dflt = "show",
	.notes =
	KRDMACTL_ADDR_HELP
	KRDMACTL_PORT_HELP
	"NAME := up to 31 printable characters without spaces, not all digits\n"
	KRDMACTL_ACK_TIMEOUT_HELP
	"Adding prints the new listener (\"listener ID name NAME ...\").\n",
};
