// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl version: versions of the tool, the module and their ABI.
 */
#include <inttypes.h>
#include <stdio.h>

#include "attrs.h"
#include "cmd.h"
#include "output.h"

struct version_info {
	char module[64];
	bool have_abi;
	uint32_t abi;
};

static int version_reply(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct version_info *v = arg;

	(void)nlh;
	if (tb[KRDMA_A_VERSION])
		snprintf(v->module, sizeof(v->module), "%s",
			 nla_get_string(tb[KRDMA_A_VERSION]));
	if (tb[KRDMA_A_ABI_VERSION]) {
		v->have_abi = true;
		v->abi = nla_get_u32(tb[KRDMA_A_ABI_VERSION]);
	}
	return 0;
}

/* Without the module: krdmactl's own version, then why there is no more. */
static int version_no_module(const char *why)
{
	open_json_object(NULL);
	print_string(PRINT_ANY, "krdmactl", "krdmactl %s", KRDMACTL_VERSION);
	print_uint(PRINT_ANY, "krdmactl_abi", " (abi %" PRIu64 ")",
		   KRDMA_ABI_VERSION);
	print_string(PRINT_JSON, "module", NULL, NULL);
	print_nl();
	close_json_object();
	out_flush();
	fflush(stdout);
	fprintf(stderr, "krdmactl: %s\n", why);
	return EXIT_ERR;
}

static int version_run(int argc, char **argv)
{
	struct version_info v = { .module = "unknown" };
	struct nl_msg *msg;
	struct knl_ctx *c;
	char err[256];
	int rc;

	rc = cmd_args(NULL, 0, argc, argv);
	if (rc)
		return rc == ARGS_HELP ? EXIT_OK : EXIT_USAGE;
	/* Not even krdmactl's own version: --parse-only prints nothing. */
	if (knl_parse_only_stop())
		return EXIT_OK;
	c = knl_try_open(KRDMA_GENL_NAME, err, sizeof(err));
	if (!c)
		return version_no_module(err);
	msg = knl_req(c, KRDMA_CMD_VERSION_GET, 0);
	if (!msg)
		return msg_error();
	if (knl_call(c, msg, version_reply, &v, "version"))
		return EXIT_ERR;

	open_json_object(NULL);
	print_string(PRINT_ANY, "krdmactl", "krdmactl %s", KRDMACTL_VERSION);
	print_uint(PRINT_ANY, "krdmactl_abi", " (abi %" PRIu64 ")",
		   KRDMA_ABI_VERSION);
	print_string(PRINT_ANY, "module", ", module %s", v.module);
	if (v.have_abi)
		print_uint(PRINT_ANY, "abi", ", abi %" PRIu64, v.abi);
	else {
		print_string(PRINT_TEXT, NULL, ", abi %s", "unknown");
		print_string(PRINT_JSON, "abi", NULL, NULL);
	}
	print_nl();
	close_json_object();
	if (out_flush())
		return 1;
	if (!v.have_abi)
		fprintf(stderr, "krdmactl: warning: the module did not report its ABI version\n");
	else if (v.abi != KRDMA_ABI_VERSION)
		fprintf(stderr, "krdmactl: warning: module ABI %u differs from krdmactl's ABI %d; commands may fail or be misread\n",
			v.abi, KRDMA_ABI_VERSION);
	return 0;
}

const struct object version_obj = {
	.name = "version",
	.desc = "show the versions of krdmactl and of the loaded module",
	.fn = version_run,
	.notes = "Prints \"krdmactl VERSION (abi N), module VERSION, abi N\" and warns\n"
		 "when the ABI versions differ.  Without the module: krdmactl's version,\n"
		 "then the error (exit 1).  -V shows krdmactl's own version only.\n",
};
