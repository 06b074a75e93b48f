// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl dev: RDMA devices as seen by krdma.
 */
#include <inttypes.h>
#include <stdio.h>

#include <netlink/genl/genl.h>

#include "attrs.h"
#include "cmd.h"
#include "records.h"
#include "output.h"

static void print_port(struct nlattr **pt)
{
	char buf[32];
	const char *state;

	if (pt[KRDMA_PORT_A_INDEX])
		print_uint(PRINT_ANY, "port", " port %" PRIu64,
			   nla_get_u32(pt[KRDMA_PORT_A_INDEX]));
	if (pt[KRDMA_PORT_A_STATE]) {
		unsigned int v = nla_get_u8(pt[KRDMA_PORT_A_STATE]);

		state = port_state_name(v);
		if (!state) {
			snprintf(buf, sizeof(buf), "unknown(%u)", v);
			state = buf;
		}
		print_string(PRINT_ANY, "state", " state %s", state);
	}
	if (pt[KRDMA_PORT_A_ACTIVE_MTU])
		print_uint(PRINT_ANY, "mtu", " mtu %" PRIu64,
			   nla_get_u32(pt[KRDMA_PORT_A_ACTIVE_MTU]));
}

/*
 * One line (one JSON object) per device and port, in the reply's order
 * (the spec's): "1: rxe0 port 1 state ACTIVE mtu 1024 max_qp_rd_atom ...".
 */
static void print_dev_line(struct nlattr **tb, struct nlattr **pt)
{
	size_t i;

	open_json_object(NULL);
	for (i = 0; i < ARRAY_SIZE(krdma_dev_get_rsp_attrs); i++) {
		int t = krdma_dev_get_rsp_attrs[i];

		switch (t) {
		case KRDMA_A_DEV_INDEX:
			if (tb[t])
				print_uint(PRINT_ANY, "dev_index", "%" PRIu64 ":",
					   nla_get_u32(tb[t]));
			break;
		case KRDMA_A_DEV_NAME:
			if (tb[t])
				print_string(PRINT_ANY, "dev", " %s",
					     nla_get_string(tb[t]));
			break;
		case KRDMA_A_DEV_PORT:
			if (pt)
				print_port(pt);
			break;
		default:
			print_attr(tb, t);
		}
	}
	print_nl();
	close_json_object();
}

struct dev_ports {
	struct nlattr **tb;	/* the device's */
	int ports;
};

static void print_dev_port(struct nlattr **pt, void *arg)
{
	struct dev_ports *d = arg;

	print_dev_line(d->tb, pt);
	d->ports++;
}

int dev_print(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct dev_ports d = { tb, 0 };
	int bad;

	(void)arg;
	bad = each_nested(nlh, KRDMA_A_DEV_PORT, KRDMA_PORT_A_MAX,
			  krdma_port_policy, print_dev_port, &d);
	while (bad-- > 0)
		fprintf(stderr, "krdmactl: warning: malformed port attribute\n");
	if (!d.ports)
		print_dev_line(tb, NULL);
	return 0;
}

static int dev_show(int argc, char **argv)
{
	struct arg_val name;
	const struct arg_spec key = {
		"name", ARG_STR, ARG_POSITIONAL, 0, 0, 63, &name, "NAME"
	};

	return cmd_show_key(argc, argv, &key, KRDMA_CMD_DEV_GET,
			    KRDMA_A_DEV_NAME, dev_print);
}

static const struct cmd dev_cmds[] = {
	{ "show", dev_show,
	  "list RDMA devices and ports usable by krdma (one line per port)" },
};

const struct object dev_obj = {
	.name = "dev",
	.desc = "RDMA devices",
	.cmds = dev_cmds,
	.ncmds = ARRAY_SIZE(dev_cmds),
	.dflt = "show",
	.notes = "NAME: an RDMA device name, e.g. rxe0 (\"name NAME\" also works).\n",
};
