/* SPDX-License-Identifier: GPL-2.0 */
/*
 * krdmactl: the krdma attribute space as seen by userspace: the
 * generated reply policies, attribute lists and names (nl-gen.h), and a
 * table-driven printer that emits every attribute present in a message
 * (text and JSON from one call).
 */
#ifndef KRDMACTL_ATTRS_H
#define KRDMACTL_ATTRS_H

#include <stdbool.h>
#include <stddef.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/krdma.h>
/* The spec's defaults and bounds of the request attributes, the module's too. */
#include <krdma_params.h>

#include "parse.h"

/*
 * The reply policies (krdma_policy, krdma_addr_policy, ...) and the
 * attributes of each reply and event (krdma_session_get_rsp_attrs, ...),
 * generated from the spec.
 */
#include "nl-gen.h"

/*
 * A repeated nest (a multi-attr: tb[] keeps only the last one): every
 * @type attribute of @nlh's message, parsed up to @maxtype (at most
 * EACH_NESTED_MAXTYPE) with @policy (or none), is handed to @fn. Returns
 * how many could not be parsed and were skipped.
 */
#define EACH_NESTED_MAXTYPE	15
typedef void (*nested_fn)(struct nlattr **tb, void *arg);
int each_nested(struct nlmsghdr *nlh, int type, int maxtype,
		struct nla_policy *policy, nested_fn fn, void *arg);

/*
 * Value names; NULL when the value is not known to this tool. The spec's,
 * from a strmap of nl-gen.h: STRMAP_NAME(krdma_event_strmap, v) is
 * "session_up", STRMAP_NAME(krdma_stats_attr_strmap, t) "sessions_opened".
 */
const char *name_of(const char *const *names, size_t n, unsigned int v);
#define STRMAP_NAME(strmap, v)	name_of(strmap, ARRAY_SIZE(strmap), v)
/* Spelled as the RDMA core does: "ACTIVE", "ACTIVE_DEFER". */
const char *port_state_name(unsigned int v);	/* enum ib_port_state */
const char *lat_stat_name(unsigned int v);	/* "p99.9" */
/* Name of a top-level attribute ("session_id"), for error messages. */
const char *attr_name(unsigned int type);
/* An address's attribute as the spec spells it ("scope-id"). */
const char *addr_attr_name(unsigned int type);

/* An address nest: address (optional) and port (optional). */
struct endpoint {
	bool has_addr;
	struct ip_addr addr;
	int port;		/* -1 if absent */
};
/* a == NULL: no address attribute ("any"); port < 0: no port attribute. */
int put_endpoint(struct nl_msg *msg, int type, const struct ip_addr *a,
		 int port);
int get_endpoint(const struct nlattr *nest, struct endpoint *ep);

/*
 * Print tb[type] if present: text " label value", JSON "key": value.
 * Addresses print as " local 10.0.0.1:4791" / "local_addr", "local_port";
 * KRDMA_A_STATS prints its counters (see print_stats()).
 */
void print_attr(struct nlattr **tb, int type);

/* A completion's status (enum ib_wc_status) in the kernel's words. */
const char *wc_status_name(uint32_t status);
/*
 * The attributes @types of @tb, in that order (a reply's or an event's
 * list of tools/nl-gen.c), but for KRDMA_A_EVENT and KRDMA_A_STATS, which
 * their commands print apart. _then_rest: then any other attribute of
 * @tb, in attribute order (a newer module's: shown rather than hidden).
 */
void print_attrs(struct nlattr **tb, const int *types, size_t n);
void print_attrs_then_rest(struct nlattr **tb, const int *types, size_t n);
/*
 * Counters of a KRDMA_A_STATS nest, in attribute order.  JSON: an object
 * under key (or the current object if key is NULL).  Text: "name value",
 * each on its own line if one_per_line, else " name value" fields.
 */
void print_stats(const struct nlattr *nest, const char *key,
		 bool one_per_line);

/* "1.234s", "12.500ms", "850us" */
void format_ns(char *buf, size_t len, uint64_t ns);
/*
 * The time now as RFC 3339 in UTC: "2026-11-29T07:01:33Z", or with @usec
 * "2026-11-29T07:01:33.123456Z" (monitor's timestamps).
 */
void format_utc_now(char *buf, size_t len, bool usec);

/* Throughput figures of a test result. */
struct rates {
	double mb_s;		/* 10^6 bytes per second */
	double gb_s;		/* 10^9 bits per second */
	double msgs_s;		/* iterations per second */
};
void compute_rates(uint64_t bytes, uint64_t iters, uint64_t elapsed_ns,
		   struct rates *r);

#endif /* KRDMACTL_ATTRS_H */
